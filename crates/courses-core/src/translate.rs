//! Translations applied to what a learner sees. A translation resource is
//! `{courseId, locale, strings}`; `strings` maps a key to the translated
//! text:
//!
//! - `title`: the course title;
//! - `<screenId>.title`: a screen's title;
//! - `<blockId>.<path>`: any text inside a block, by its path, e.g.
//!   `blk_1.text`, `blk_2.question`, `blk_2.options.1`, `blk_3.items.0`,
//!   `blk_4.stackCards.2.back`;
//! - `ui.<name>`: the player's own words (`ui.back`, `ui.continue`,
//!   `ui.finish`, `ui.score`, `ui.passed`, `ui.failed`, `ui.certificate`,
//!   `ui.retry`, `ui.oneAttempt`, `ui.true`, `ui.false`).
//!
//! A key that is missing leaves the original text; ids, types, URLs and
//! answers are never touched.

use serde_json::{Map, Value};

use crate::model::Resource;

/// Fields inside a block that are never translated.
const UNTRANSLATED: [&str; 10] = [
    "id",
    "type",
    "url",
    "correctIndex",
    "correctIndexes",
    "answer",
    "packageId",
    "launch",
    "scormVersion",
    "scormType",
];

/// The translation for `locale` among a course's translations: an exact
/// match (case-insensitive), else one for the same language (`fr` for
/// `fr-CA`, or `fr-CA` for `fr`).
pub fn pick<'a>(translations: &'a [Resource], course_id: &str, locale: &str) -> Option<&'a Resource> {
    let locale = locale.trim().replace('_', "-");
    let language = |l: &str| l.split('-').next().unwrap_or_default().to_ascii_lowercase();
    let of_course: Vec<&Resource> =
        translations.iter().filter(|t| t.data.get("courseId").and_then(Value::as_str) == Some(course_id)).collect();
    let locale_of = |t: &Resource| t.data.get("locale").and_then(Value::as_str).unwrap_or_default().replace('_', "-");
    of_course.iter().find(|t| locale_of(t).eq_ignore_ascii_case(&locale)).copied().or_else(|| {
        of_course.iter().find(|t| !locale.is_empty() && language(&locale_of(t)) == language(&locale)).copied()
    })
}

fn translate_leaves(value: &mut Value, prefix: &str, strings: &Map<String, Value>) {
    match value {
        Value::String(text) => {
            if let Some(Value::String(t)) = strings.get(prefix) {
                text.clone_from(t);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                translate_leaves(item, &format!("{prefix}.{i}"), strings);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut().filter(|(k, _)| !UNTRANSLATED.contains(&k.as_str())) {
                translate_leaves(item, &format!("{prefix}.{key}"), strings);
            }
        }
        _ => {}
    }
}

fn collect_leaves(value: &Value, prefix: &str, out: &mut Vec<(String, String)>) {
    match value {
        Value::String(text) if !text.trim().is_empty() => out.push((prefix.to_owned(), text.clone())),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                collect_leaves(item, &format!("{prefix}.{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter().filter(|(k, _)| !UNTRANSLATED.contains(&k.as_str())) {
                collect_leaves(item, &format!("{prefix}.{key}"), out);
            }
        }
        _ => {}
    }
}

/// Every text of a course a translation can replace, in course order, as
/// `(key, original)`: the title, each screen's title, then each text
/// inside its blocks (the keys [`apply`] reads).
pub fn source_strings(title: &str, screens: &[Value]) -> Vec<(String, String)> {
    let mut out = vec![("title".to_owned(), title.to_owned())];
    for screen in screens {
        let id = screen.get("id").and_then(Value::as_str).unwrap_or_default();
        if id.is_empty() {
            continue;
        }
        if let Some(title) = screen.get("title").and_then(Value::as_str).filter(|t| !t.trim().is_empty()) {
            out.push((format!("{id}.title"), title.to_owned()));
        }
        for block in screen.get("blocks").and_then(Value::as_array).into_iter().flatten() {
            let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
            if !id.is_empty() {
                collect_leaves(block, id, &mut out);
            }
        }
    }
    out
}

/// Whether `locale` reads as a language tag: a language of 2 or 3
/// letters, then subtags of 1 to 8 letters or digits (`fr`, `pt-BR`,
/// `zh-Hant-TW`), at most 35 characters.
pub fn is_locale(locale: &str) -> bool {
    let mut parts = locale.split(['-', '_']);
    let language = parts.next().unwrap_or_default();
    locale.len() <= 35
        && (2..=3).contains(&language.len())
        && language.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// The course title and screens with `strings` applied.
pub fn apply(title: &str, screens: &[Value], strings: &Map<String, Value>) -> (String, Vec<Value>) {
    let title = strings.get("title").and_then(Value::as_str).unwrap_or(title).to_owned();
    let mut screens = screens.to_vec();
    for screen in &mut screens {
        let Some(screen) = screen.as_object_mut() else { continue };
        let id = screen.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
        if let (Some(Value::String(t)), Some(Value::String(title))) =
            (strings.get(&format!("{id}.title")), screen.get_mut("title"))
        {
            title.clone_from(t);
        }
        if let Some(Value::Array(blocks)) = screen.get_mut("blocks") {
            for block in blocks.iter_mut() {
                let id = block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
                if !id.is_empty() {
                    translate_leaves(block, &id, strings);
                }
            }
        }
    }
    (title, screens)
}

/// The player's own words from `ui.*` keys.
pub fn ui_strings(strings: &Map<String, Value>) -> Map<String, Value> {
    strings
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("ui.")?.to_owned(), Value::String(v.as_str()?.to_owned()))))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]
mod tests {
    use kernel::Timestamp;
    use serde_json::json;

    use super::*;
    use crate::model::ResourceKind;

    fn translation(course: &str, locale: &str) -> Resource {
        Resource {
            id: format!("trn_{locale}"),
            workspace_id: "ws".into(),
            kind: ResourceKind::Translation,
            data: json!({ "courseId": course, "locale": locale, "strings": {} }).as_object().unwrap().clone(),
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        }
    }

    #[test]
    fn locales_match_exactly_then_by_language() {
        let all = [translation("c1", "fr-CA"), translation("c1", "de"), translation("c2", "es")];
        assert_eq!(pick(&all, "c1", "fr-ca").unwrap().id, "trn_fr-CA");
        assert_eq!(pick(&all, "c1", "fr").unwrap().id, "trn_fr-CA");
        assert_eq!(pick(&all, "c1", "de_AT").unwrap().id, "trn_de");
        assert!(pick(&all, "c1", "es").is_none(), "another course's translation");
        assert!(pick(&all, "c1", "").is_none());
    }

    #[test]
    fn strings_replace_texts_by_id_and_path() {
        let screens = vec![json!({ "id": "s1", "title": "Check", "blocks": [
            { "id": "b1", "type": "multiple_choice", "question": "Which?", "options": ["water", "foam"], "correctIndex": 1 },
            { "id": "b2", "type": "stack", "stackCards": [{ "front": "F", "back": "B" }] },
            { "id": "b3", "type": "image", "url": "https://example.com/a.png", "alt": "A fire" },
        ] })];
        let strings = json!({
            "title": "Sécurité incendie",
            "s1.title": "Vérification",
            "b1.question": "Lequel ?",
            "b1.options.1": "mousse",
            "b1.correctIndex": "0",
            "b2.stackCards.0.back": "Verso",
            "b3.url": "https://evil.example/",
            "b3.alt": "Un feu",
            "ui.continue": "Continuer",
        });
        let strings = strings.as_object().unwrap();
        let (title, out) = apply("Fire safety", &screens, strings);
        assert_eq!(title, "Sécurité incendie");
        assert_eq!(
            out[0],
            json!({ "id": "s1", "title": "Vérification", "blocks": [
                { "id": "b1", "type": "multiple_choice", "question": "Lequel ?", "options": ["water", "mousse"], "correctIndex": 1 },
                { "id": "b2", "type": "stack", "stackCards": [{ "front": "F", "back": "Verso" }] },
                { "id": "b3", "type": "image", "url": "https://example.com/a.png", "alt": "Un feu" },
            ] })
        );
        assert_eq!(Value::Object(ui_strings(strings)), json!({ "continue": "Continuer" }));
    }

    #[test]
    fn the_source_lists_every_text_apply_replaces() {
        let screens = vec![json!({ "id": "s1", "title": "Check", "blocks": [
            { "id": "b1", "type": "multiple_choice", "question": "Which?", "options": ["water", "foam"], "correctIndex": 1 },
            { "id": "b3", "type": "image", "url": "https://example.com/a.png", "alt": "A fire" },
            { "id": "b4", "type": "audio", "url": "https://example.com/a.mp3", "transcript": "Ring" },
        ] })];
        let found = source_strings("Fire safety", &screens);
        let keys: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            ["title", "s1.title", "b1.question", "b1.options.0", "b1.options.1", "b3.alt", "b4.transcript"]
        );
        // Translating every key through `apply` changes every text.
        let strings: Map<String, Value> = found.iter().map(|(k, v)| (k.clone(), json!(format!("[{v}]")))).collect();
        let (title, out) = apply("Fire safety", &screens, &strings);
        assert_eq!(title, "[Fire safety]");
        assert_eq!(out[0]["blocks"][0]["options"], json!(["[water]", "[foam]"]));
        assert_eq!(out[0]["blocks"][2]["transcript"], "[Ring]");
        assert_eq!(out[0]["blocks"][2]["url"], "https://example.com/a.mp3");
    }

    #[test]
    fn locales_are_language_tags() {
        for good in ["fr", "pt-BR", "zh-Hant-TW", "de_AT", "fil"] {
            assert!(is_locale(good), "{good}");
        }
        for bad in ["", "f", "french", "fr-", "fr--CA", "fr CA", "<b>", "en-verylongsubtag"] {
            assert!(!is_locale(bad), "{bad}");
        }
    }
}
