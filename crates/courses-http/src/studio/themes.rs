//! Themes (Scale and up): the workspace's themes, a new theme with its
//! accent colour, font and logo (uploaded on the media page), and (on the
//! course page) the theme a course uses.

use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::response::Response;
use courses_core::courses::ListRequest;
use courses_core::members::SignedIn;
use courses_core::{CoursesError, Feature, ListItem, ResourceKind};
use page_kit::Form;
use serde_json::{Map, Value, json};

use super::{Ctx, St, form_status, form_with_error_as};
use crate::AppState;

/// The workspace's themes as `{id, name, accent}`, or none below Scale.
pub(super) async fn themes_of(s: &AppState, me: &SignedIn) -> Result<Option<Vec<Value>>, CoursesError> {
    if !me.access.workspace.plan.allows(Feature::Themes) {
        return Ok(None);
    }
    let mut rx = s.courses.list_resources(&me.access, ResourceKind::Theme, ListRequest::new(Some(200), None))?;
    let mut themes = Vec::new();
    while let Some(item) = rx.recv().await {
        match item {
            ListItem::Item(theme) => themes.push(json!({
                "id": theme.id,
                "name": theme.data.get("name").and_then(Value::as_str).unwrap_or_default(),
                "accent": theme.data.get("accentColor").and_then(Value::as_str).unwrap_or_default(),
                "font": theme.data.get("fontMediaId").and_then(Value::as_str),
                "logo": theme.data.get("logoMediaId").and_then(Value::as_str),
            })),
            ListItem::End { .. } => break,
            ListItem::Failed(e) => return Err(e.into()),
        }
    }
    Ok(Some(themes))
}

async fn themes_page(s: &AppState, ctx: &Ctx, me: &SignedIn, form: &Form) -> Response {
    let themes = match themes_of(s, me).await {
        Ok(themes) => themes,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    // The workspace's uploaded fonts and images, to choose from.
    let media = match s.courses.media_list(&me.access).await {
        Ok(media) => media,
        Err(e) => return s.error_page(Some(ctx), e),
    };
    let of_kind = |kind: courses_core::media::MediaKind| -> Vec<Value> {
        media.iter().filter(|m| m.kind == kind).map(|m| json!({ "id": m.id, "name": m.name })).collect()
    };
    let name_of = |id: Option<&str>| -> Option<String> {
        id.and_then(|id| media.iter().find(|m| m.id == id)).map(|m| m.name.clone())
    };
    let themes = themes.map(|list| {
        list.into_iter()
            .map(|mut t| {
                let font = name_of(t.get("font").and_then(Value::as_str));
                let logo = name_of(t.get("logo").and_then(Value::as_str));
                if let Value::Object(map) = &mut t {
                    map.insert("font_name".into(), json!(font));
                    map.insert("logo_name".into(), json!(logo));
                }
                t
            })
            .collect::<Vec<_>>()
    });
    s.render(
        ctx,
        form_status(form),
        "themes.html",
        "themes",
        json!({
            "fonts": of_kind(courses_core::media::MediaKind::Font),
            "images": of_kind(courses_core::media::MediaKind::Image),
            "themes": themes,
            "allowed": themes.is_some(),
            "minimum": Feature::Themes.minimum_plan().to_string(),
            "form": form.view(),
        }),
    )
}

pub(super) async fn show(State(s): St, headers: HeaderMap) -> Response {
    match s.studio_signed_in(&headers).await {
        Ok((ctx, me)) => themes_page(&s, &ctx, &me, &Form::default()).await,
        Err(response) => response,
    }
}

pub(super) async fn create(State(s): St, request: Request) -> Response {
    let p = match s.studio_writer(request).await {
        Ok(p) => p,
        Err(response) => return response,
    };
    let access = &p.me.access;
    let mut body = Map::new();
    body.insert("name".into(), json!(p.form.get("name").trim()));
    body.insert("accentColor".into(), json!(p.form.get("accent").trim()));
    // Empty choices: the player's own font, no logo.
    for (field, name) in [("fontMediaId", "font"), ("logoMediaId", "logo")] {
        let id = p.form.get(name).trim();
        if !id.is_empty() {
            body.insert(field.into(), json!(id));
        }
    }
    match s.courses.create_resource(access, ResourceKind::Theme, &body).await {
        Ok(_) => s.redirect_with("/themes", "success", "Theme created: choose it in a course's settings."),
        Err(e @ CoursesError::Invalid { .. }) => {
            let form = form_with_error_as(
                p.form,
                &e,
                &[("accentColor", "accent"), ("fontMediaId", "font"), ("logoMediaId", "logo")],
            );
            themes_page(&s, &p.ctx, &p.me, &form).await
        }
        Err(e) => s.error_page(Some(&p.ctx), e),
    }
}
