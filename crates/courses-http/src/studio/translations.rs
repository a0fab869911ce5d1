//! A course's translations side by side (Scale and up): the languages it
//! has, and for one language every text of the course beside its
//! translation, saved in one form; the preview plays the course in it.

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::HeaderMap;
use axum::response::Response;
use courses_core::members::SignedIn;
use courses_core::{CoursesError, Feature};
use page_kit::Form;
use serde_json::{Map, Value, json};

use super::{Ctx, St, form_with_error};
use crate::AppState;

/// The prefix of a translation field: `t:<key>`.
const FIELD_PREFIX: &str = "t:";

async fn page(s: &AppState, ctx: &Ctx, me: &SignedIn, id: &str, locale: Option<&str>, form: &Form) -> Response {
    let status = super::form_status(form);
    if !me.access.workspace.plan.allows(Feature::Translations) {
        return match s.courses.course(&me.access, id).await {
            Ok(course) => s.render(
                ctx,
                status,
                "translations.html",
                "courses",
                json!({
                    "allowed": false,
                    "course": { "id": course.id, "title": course.title },
                    "minimum": Feature::Translations.minimum_plan().to_string(),
                }),
            ),
            Err(e) => s.error_page(Some(ctx), e),
        };
    }
    let result = async {
        let locales = s.courses.course_locales(&me.access, id).await?;
        let course = s.courses.course(&me.access, id).await?;
        let sheet = match locale {
            Some(locale) => Some(s.courses.translation_sheet(&me.access, id, locale).await?),
            None => None,
        };
        let rows: Vec<Value> = sheet
            .as_ref()
            .map(|sheet| {
                sheet
                    .rows
                    .iter()
                    .enumerate()
                    .map(|(i, row)| {
                        // A re-shown form keeps what was typed.
                        let typed = form.values.get(&format!("{FIELD_PREFIX}{}", row.key));
                        json!({
                            "n": i,
                            "key": row.key,
                            "original": row.original,
                            "translated": typed.cloned().unwrap_or_else(|| row.translated.clone()),
                            "long": row.original.chars().count() > 80,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok::<_, CoursesError>(s.render(
            ctx,
            status,
            "translations.html",
            "courses",
            json!({
                "allowed": true,
                "course": { "id": course.id, "title": course.title },
                "locales": locales,
                "locale": sheet.as_ref().map(|s| s.locale.clone()),
                "rows": rows,
                "translated": sheet.as_ref().map_or(0, |s| s.rows.iter().filter(|r| !r.translated.is_empty()).count()),
                "form": form.view(),
            }),
        ))
    }
    .await;
    match result {
        Err(e @ CoursesError::Invalid { .. }) => {
            // An unreadable locale in the address: the language list, the
            // problem beside the field that opens one.
            let form = form_with_error(Form::default(), &e);
            Box::pin(page(s, ctx, me, id, None, &form)).await
        }
        other => super::page_or_error(s, ctx, other),
    }
}

#[derive(serde::Deserialize, Default)]
pub(super) struct LocaleQuery {
    #[serde(default)]
    locale: String,
}

pub(super) async fn show(
    State(s): St,
    Path(id): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let (ctx, me) = match s.studio_signed_in(&headers).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let query: LocaleQuery = serde_urlencoded::from_str(query.as_deref().unwrap_or_default()).unwrap_or_default();
    let locale = query.locale.trim();
    page(&s, &ctx, &me, &id, (!locale.is_empty()).then_some(locale), &Form::default()).await
}

/// Saves the texts of one language.
pub(super) async fn save(State(s): St, Path(id): Path<String>, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let texts: Map<String, Value> = p
        .form
        .values
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix(FIELD_PREFIX)?.to_owned(), Value::String(v.clone()))))
        .collect();
    let locale = p.form.get("locale").trim().to_owned();
    match s.courses.save_translation_sheet(&p.me.access, &id, &locale, &texts).await {
        Ok(saved) => {
            let locale = saved.data.get("locale").and_then(Value::as_str).unwrap_or(&locale).to_owned();
            s.redirect_with(
                &format!("/courses/{id}/translations?locale={}", page_kit::encode(&locale)),
                "success",
                "Translation saved: the preview plays it.",
            )
        }
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error(p.form, &e);
            page(
                &s,
                &p.ctx,
                &p.me,
                &id,
                Some(&locale).filter(|l| courses_core::translate::is_locale(l)).map(String::as_str),
                &form,
            )
            .await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
