//! The studio's block forms: every block type a person authors, as plain
//! form fields and back. The body this builds is checked by the same rules
//! as the API's (`content::validate_block`); this module only translates.
//!
//! Form fields (one set for every kind; each kind reads its own):
//! - `block_text`: a text, heading or quote's text, a question, a
//!   true/false statement, a button's label;
//! - `attribution` (quote), `url` (image, video), `alt` (image);
//! - `items` (list) and `options` (questions): one per line;
//! - `cards` (stack): one card per line, `front | back`;
//! - `correct`: the right option's number (from 1), or numbers separated by
//!   commas for a question with several right options;
//! - `answer`: `true` or `false`;
//! - `feedback` (questions): shown in the learner's review.
//!
//! A `scorm` block comes only from an imported package and has no form.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

/// The kinds the studio's forms author, with a person's name for each.
pub const FORM_KINDS: [(&str, &str); 13] = [
    ("text", "Text"),
    ("heading", "Heading"),
    ("quote", "Quote"),
    ("image", "Image"),
    ("video", "Video"),
    ("audio", "Audio"),
    ("list", "List"),
    ("button", "Button"),
    ("divider", "Divider"),
    ("stack", "Cards to turn"),
    ("multiple_choice", "Question: one right option"),
    ("multiple_response", "Question: several right options"),
    ("true_false", "Question: true or false"),
];

/// Whether the studio has a form for blocks of `kind`.
pub fn has_form(kind: &str) -> bool {
    FORM_KINDS.iter().any(|(k, _)| *k == kind)
}

/// API fields named differently on the form, for placing errors beside
/// their fields (`stackCards.0.front` is shown at `cards`).
pub const FORM_NAMES: [(&str, &str); 9] = [
    ("text", "block_text"),
    ("question", "block_text"),
    ("statement", "block_text"),
    ("label", "block_text"),
    ("correctIndex", "correct"),
    ("correctIndexes", "correct"),
    ("stackCards", "cards"),
    ("items", "items"),
    ("options", "options"),
];

fn lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).collect()
}

/// Optional text: an empty field clears it (null), so an edit can remove
/// it.
fn optional(text: &str) -> Value {
    let text = text.trim();
    if text.is_empty() { Value::Null } else { json!(text) }
}

/// A person's option number (from 1) as the API's index (from 0); text
/// that is not a number stays text, so the API's rule names the field.
fn index(text: &str) -> Value {
    let text = text.trim();
    match text.parse::<u64>() {
        Ok(n) => n.checked_sub(1).map_or_else(|| json!(text), |i| json!(i)),
        Err(_) if text.is_empty() => Value::Null,
        Err(_) => json!(text),
    }
}

/// The body of a block of `kind` from the form's fields (`get` answers ""
/// for a missing field).
pub fn block_from_form<'a>(kind: &str, get: impl Fn(&str) -> &'a str) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("type".into(), json!(kind));
    let main = get("block_text").trim();
    match kind {
        "quote" => {
            body.insert("text".into(), json!(main));
            body.insert("attribution".into(), optional(get("attribution")));
        }
        "image" => {
            body.insert("url".into(), json!(get("url").trim()));
            body.insert("alt".into(), optional(get("alt")));
        }
        "video" => {
            body.insert("url".into(), json!(get("url").trim()));
        }
        "audio" => {
            body.insert("url".into(), json!(get("url").trim()));
            body.insert("transcript".into(), optional(get("transcript")));
        }
        "list" => {
            body.insert("items".into(), json!(lines(get("items"))));
        }
        "button" => {
            body.insert("label".into(), json!(main));
        }
        "divider" => {}
        "stack" => {
            let cards: Vec<Value> = lines(get("cards"))
                .into_iter()
                .map(|line| match line.split_once('|') {
                    Some((front, back)) => json!({ "front": front.trim(), "back": back.trim() }),
                    None => json!({ "front": line }),
                })
                .collect();
            body.insert("stackCards".into(), json!(cards));
        }
        "multiple_choice" => {
            body.insert("question".into(), json!(main));
            body.insert("options".into(), json!(lines(get("options"))));
            body.insert("correctIndex".into(), index(get("correct")));
            body.insert("feedback".into(), optional(get("feedback")));
        }
        "multiple_response" => {
            body.insert("question".into(), json!(main));
            body.insert("options".into(), json!(lines(get("options"))));
            let right: Vec<Value> =
                get("correct").split([',', ' ']).map(str::trim).filter(|n| !n.is_empty()).map(index).collect();
            body.insert("correctIndexes".into(), json!(right));
            body.insert("feedback".into(), optional(get("feedback")));
        }
        "true_false" => {
            body.insert("statement".into(), json!(main));
            body.insert("answer".into(), json!(get("answer").trim() == "true"));
            body.insert("feedback".into(), optional(get("feedback")));
        }
        _ => {
            body.insert("text".into(), json!(main));
        }
    }
    body
}

/// The form's fields for a stored block: what its edit form starts with.
pub fn form_from_block(block: &Value) -> HashMap<String, String> {
    let text = |k: &str| block.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
    let strings = |k: &str| -> Vec<String> {
        block
            .get(k)
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default()
    };
    let kind = text("type");
    let mut values = HashMap::new();
    let main = match kind.as_str() {
        "multiple_choice" | "multiple_response" => text("question"),
        "true_false" => text("statement"),
        "button" => text("label"),
        _ => text("text"),
    };
    values.insert("block_text".to_owned(), main);
    for name in ["attribution", "url", "alt", "feedback", "transcript"] {
        values.insert(name.to_owned(), text(name));
    }
    values.insert("items".to_owned(), strings("items").join("\n"));
    values.insert("options".to_owned(), strings("options").join("\n"));
    let cards: Vec<String> = block
        .get("stackCards")
        .and_then(Value::as_array)
        .map(|cards| {
            cards
                .iter()
                .map(|c| {
                    let side = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or_default();
                    if side("back").is_empty() {
                        side("front").to_owned()
                    } else {
                        format!("{} | {}", side("front"), side("back"))
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    values.insert("cards".to_owned(), cards.join("\n"));
    let correct = match kind.as_str() {
        "multiple_response" => block
            .get("correctIndexes")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_u64).map(|i| (i + 1).to_string()).collect::<Vec<_>>().join(", "))
            .unwrap_or_default(),
        _ => block.get("correctIndex").and_then(Value::as_u64).map(|i| (i + 1).to_string()).unwrap_or_default(),
    };
    values.insert("correct".to_owned(), correct);
    values.insert("answer".to_owned(), block.get("answer").and_then(Value::as_bool).unwrap_or(true).to_string());
    values.insert("type".to_owned(), kind);
    values
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::content::validate_block;
    use crate::issues::Issues;

    fn from(kind: &str, fields: &[(&str, &str)]) -> Map<String, Value> {
        let map: HashMap<&str, &str> = fields.iter().copied().collect();
        block_from_form(kind, |k| map.get(k).copied().unwrap_or(""))
    }

    fn valid(body: &Map<String, Value>) -> bool {
        let mut issues = Issues::default();
        validate_block(&Value::Object(body.clone()), &[], &mut HashSet::new(), &mut issues);
        issues.finish(()).is_ok()
    }

    #[test]
    fn every_kind_but_scorm_has_a_form() {
        let mut kinds: Vec<&str> = FORM_KINDS.iter().map(|(k, _)| *k).collect();
        let mut expected: Vec<&str> = crate::content::BLOCK_TYPES.iter().copied().filter(|k| *k != "scorm").collect();
        kinds.sort_unstable();
        expected.sort_unstable();
        assert_eq!(kinds, expected);
        assert!(has_form("stack") && !has_form("scorm"));
    }

    #[test]
    fn each_kind_reads_its_own_fields_into_a_valid_block() {
        type Fields<'a> = Vec<(&'a str, &'a str)>;
        let cases: Vec<(&str, Fields, Value)> = vec![
            ("text", vec![("block_text", " Hello ")], json!({ "type": "text", "text": "Hello" })),
            (
                "quote",
                vec![("block_text", "Be brief."), ("attribution", "")],
                json!({ "type": "quote", "text": "Be brief.", "attribution": null }),
            ),
            (
                "image",
                vec![("url", "https://e.test/a.png"), ("alt", "A map")],
                json!({ "type": "image", "url": "https://e.test/a.png", "alt": "A map" }),
            ),
            ("video", vec![("url", "https://e.test/v.mp4")], json!({ "type": "video", "url": "https://e.test/v.mp4" })),
            (
                "audio",
                vec![("url", "https://e.test/talk.mp3"), ("transcript", " Welcome. ")],
                json!({ "type": "audio", "url": "https://e.test/talk.mp3", "transcript": "Welcome." }),
            ),
            ("list", vec![("items", "one\n\n two \n")], json!({ "type": "list", "items": ["one", "two"] })),
            ("button", vec![("block_text", "Go on")], json!({ "type": "button", "label": "Go on" })),
            ("divider", vec![], json!({ "type": "divider" })),
            (
                "stack",
                vec![("cards", "Fire | Call 112\nExit")],
                json!({ "type": "stack", "stackCards": [{ "front": "Fire", "back": "Call 112" }, { "front": "Exit" }] }),
            ),
            (
                "multiple_choice",
                vec![("block_text", "Q?"), ("options", "a\nb"), ("correct", "2"), ("feedback", "Because.")],
                json!({ "type": "multiple_choice", "question": "Q?", "options": ["a", "b"], "correctIndex": 1, "feedback": "Because." }),
            ),
            (
                "multiple_response",
                vec![("block_text", "Q?"), ("options", "a\nb\nc"), ("correct", "1, 3")],
                json!({ "type": "multiple_response", "question": "Q?", "options": ["a", "b", "c"], "correctIndexes": [0, 2], "feedback": null }),
            ),
            (
                "true_false",
                vec![("block_text", "Sky is blue."), ("answer", "true")],
                json!({ "type": "true_false", "statement": "Sky is blue.", "answer": true, "feedback": null }),
            ),
        ];
        for (kind, fields, expected) in cases {
            let body = from(kind, &fields);
            assert_eq!(Value::Object(body.clone()), expected, "{kind}");
            assert!(valid(&body), "{kind} is a valid block");
        }
    }

    #[test]
    fn wrong_input_is_left_for_the_api_rules_to_name() {
        let body = from("multiple_choice", &[("block_text", "Q?"), ("options", "a\nb"), ("correct", "x")]);
        assert_eq!(body["correctIndex"], json!("x"));
        assert!(!valid(&body));
        let body = from("multiple_choice", &[("block_text", "Q?"), ("options", "a\nb"), ("correct", "0")]);
        assert_eq!(body["correctIndex"], json!("0"), "0 is no option's number");
        assert!(!valid(&from("image", &[("url", "javascript:alert(1)")])));
        assert!(!valid(&from("list", &[("items", "  ")])));
    }

    #[test]
    fn a_stored_block_fills_its_form_and_round_trips() {
        let blocks = [
            json!({ "type": "stack", "stackCards": [{ "front": "F", "back": "B" }, { "front": "Only" }] }),
            json!({ "type": "multiple_response", "question": "Q", "options": ["a", "b", "c"], "correctIndexes": [0, 2], "feedback": "fb" }),
            json!({ "type": "image", "url": "https://e.test/a.png", "alt": "A" }),
            json!({ "type": "button", "label": "Next" }),
            json!({ "type": "list", "items": ["x", "y"] }),
        ];
        for block in blocks {
            let values = form_from_block(&block);
            let kind = values["type"].clone();
            let body = block_from_form(&kind, |k| values.get(k).map_or("", String::as_str));
            for (k, v) in block.as_object().unwrap() {
                assert_eq!(body.get(k), Some(v), "{kind}.{k}");
            }
        }
        assert_eq!(
            form_from_block(&json!({ "type": "multiple_response", "correctIndexes": [1, 2] }))["correct"],
            "2, 3"
        );
    }
}
