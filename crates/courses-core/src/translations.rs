//! Translations edited side by side in the studio (Scale and up): each
//! text of a course beside its translation for one locale, saved as the
//! course's translation resource of that locale (the API's
//! `/v1/translations`), which the player applies (`translate`).

use serde_json::{Map, Value, json};

use crate::error::{CoursesError, CoursesResult};
use crate::issues::code;
use crate::model::{Access, Course, Resource, ResourceKind};
use crate::plans::Feature;
use crate::{Courses, translate};

/// One line of the side-by-side editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SheetRow {
    pub key: String,
    pub original: String,
    /// Empty when not translated yet (the original shows).
    pub translated: String,
}

/// A course's texts beside their translation for one locale.
#[derive(Clone, Debug)]
pub struct TranslationSheet {
    pub course: Course,
    pub locale: String,
    pub rows: Vec<SheetRow>,
    /// The translation resource, once saved.
    pub translation_id: Option<String>,
}

fn locale_of(t: &Resource) -> &str {
    t.data.get("locale").and_then(Value::as_str).unwrap_or_default()
}

impl Courses {
    /// The locales a course has translations for, in the order made.
    pub async fn course_locales(&self, access: &Access, course_id: &str) -> CoursesResult<Vec<String>> {
        self.require(access, Feature::Translations)?;
        self.course(access, course_id).await?;
        Ok(self.translations_of(access, course_id).await?.iter().map(|t| locale_of(t).to_owned()).collect())
    }

    async fn translations_of(&self, access: &Access, course_id: &str) -> CoursesResult<Vec<Resource>> {
        let all = self.store.resources_of_kind(&access.workspace.id, ResourceKind::Translation).await?;
        Ok(all.into_iter().filter(|t| t.data.get("courseId").and_then(Value::as_str) == Some(course_id)).collect())
    }

    fn checked_locale(locale: &str) -> CoursesResult<String> {
        let locale = locale.trim();
        if translate::is_locale(locale) {
            Ok(locale.replace('_', "-"))
        } else {
            Err(CoursesError::field(
                &["locale"],
                code::INVALID_VALUE,
                "a locale is a language tag such as fr, pt-BR or zh-Hant",
            ))
        }
    }

    /// Every text of the course beside its translation for `locale` (the
    /// translation of exactly that locale, case-insensitive).
    pub async fn translation_sheet(
        &self,
        access: &Access,
        course_id: &str,
        locale: &str,
    ) -> CoursesResult<TranslationSheet> {
        self.require(access, Feature::Translations)?;
        let locale = Self::checked_locale(locale)?;
        let course = self.course(access, course_id).await?;
        let existing = self
            .translations_of(access, course_id)
            .await?
            .into_iter()
            .find(|t| locale_of(t).eq_ignore_ascii_case(&locale));
        let strings = existing.as_ref().and_then(|t| t.data.get("strings")).and_then(Value::as_object);
        let rows = translate::source_strings(&course.title, &course.screens)
            .into_iter()
            .map(|(key, original)| {
                let translated =
                    strings.and_then(|s| s.get(&key)).and_then(Value::as_str).unwrap_or_default().to_owned();
                SheetRow { key, original, translated }
            })
            .collect();
        Ok(TranslationSheet {
            locale: existing.as_ref().map_or(locale, |t| locale_of(t).to_owned()),
            translation_id: existing.map(|t| t.id),
            course,
            rows,
        })
    }

    /// Saves the editor's texts for `locale`: the course's texts get the
    /// non-empty values of `texts` (keys the course does not have are
    /// ignored; an empty value shows the original); keys the editor does
    /// not show (the player's `ui.*` words set over the API) are kept. The
    /// translation is created on first save. Returns it.
    pub async fn save_translation_sheet(
        &self,
        access: &Access,
        course_id: &str,
        locale: &str,
        texts: &Map<String, Value>,
    ) -> CoursesResult<Resource> {
        let sheet = self.translation_sheet(access, course_id, locale).await?;
        let mut strings = match &sheet.translation_id {
            Some(id) => self
                .resource(access, ResourceKind::Translation, id)
                .await?
                .data
                .get("strings")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            None => Map::new(),
        };
        for row in &sheet.rows {
            strings.remove(&row.key);
            if let Some(text) = texts.get(&row.key).and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty()) {
                strings.insert(row.key.clone(), json!(text));
            }
        }
        let mut body = Map::new();
        body.insert("strings".into(), Value::Object(strings));
        match &sheet.translation_id {
            Some(id) => self.update_resource(access, ResourceKind::Translation, id, &body).await,
            None => {
                body.insert("courseId".into(), json!(course_id));
                body.insert("locale".into(), json!(sheet.locale));
                Ok(self.create_resource(access, ResourceKind::Translation, &body).await?.0)
            }
        }
    }
}
