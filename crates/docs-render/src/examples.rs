//! Example values shown on pages and used in code samples and the Try-It
//! panel: the document's own examples first, else a sample generated from
//! the schema (the same generator the mock server answers with).

use mock::sample::Direction;
use serde_json::Value;
use spec::{Parameter, Spec};

/// Whether a media type carries JSON (`application/json`, `application/problem+json`, ...).
#[must_use]
pub fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}

pub use mock::sample::media_example;

/// A parameter's example as text (strings unquoted).
#[must_use]
pub fn parameter_example(spec: &Spec, parameter: &Parameter) -> Option<String> {
    let value =
        parameter.example.clone().or_else(|| parameter.examples.values().find_map(|e| e.value.clone())).or_else(
            || {
                let schema = parameter.schema.as_ref()?;
                let resolved = spec.resolve_value(schema)?;
                resolved.get("example").cloned().or_else(|| resolved.get("default").cloned())
            },
        )?;
    Some(match value {
        Value::String(text) => text,
        Value::Null => return None,
        other => other.to_string(),
    })
}

/// Pretty JSON for display, or the text itself for a string example of a
/// non-JSON media type; cut at `max` bytes.
#[must_use]
pub fn display(value: &Value, media: &str, max: usize) -> String {
    let text = match value {
        Value::String(text) if !is_json(media) => text.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    };
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n… (cut)", text.get(..end).unwrap_or(""))
}

/// The value a request carries for a parameter: its example, else for a
/// required parameter a value generated from its schema (the mock's
/// sampler), so Try-It and the samples start with a request that is valid.
#[must_use]
pub fn parameter_value(spec: &Spec, parameter: &Parameter) -> Option<String> {
    parameter_example(spec, parameter).or_else(|| {
        if !parameter.required {
            return None;
        }
        // Named by the parameter, as properties are: a path parameter
        // `owner` starts as a user name, not the word "string".
        match mock::sample::sample_named(spec, parameter.schema.as_ref()?, &parameter.name, Direction::Request) {
            Value::String(text) => Some(text),
            Value::Null | Value::Object(_) | Value::Array(_) => None,
            other => Some(other.to_string()),
        }
    })
}
