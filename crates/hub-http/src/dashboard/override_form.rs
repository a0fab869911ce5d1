//! An override as form fields: the dashboard's editor shows one field per
//! part of an override (with a JSON editor beside it for the whole), and
//! turns the fields back into the JSON the API's use case takes, so both
//! are checked by the same validation.

use std::collections::BTreeMap;

use mock::overrides::OverrideSpec;
use serde_json::{Map, Value, json};

use super::Form;

/// The methods the editor offers; `*` matches any.
pub(crate) const METHODS: [&str; 9] = ["*", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"];

/// A starting point for a new override.
pub(crate) fn new_fields() -> Form {
    let mut form = Form::default();
    for (name, value) in
        [("enabled", "on"), ("priority", "0"), ("method", "GET"), ("path", "/"), ("status", "200"), ("latency_ms", "0")]
    {
        form.values.insert(name.to_owned(), value.to_owned());
    }
    form
}

/// The fields of a stored override.
pub(crate) fn to_fields(spec: &OverrideSpec) -> Form {
    let mut form = Form::default();
    let mut put = |name: &str, value: String| {
        form.values.insert(name.to_owned(), value);
    };
    put("name", spec.name.clone());
    if spec.enabled {
        put("enabled", "on".to_owned());
    }
    put("priority", spec.priority.to_string());
    put("method", spec.matcher.method.to_ascii_uppercase());
    put("path", spec.matcher.path.clone());
    put("query", lines(&spec.matcher.query, "="));
    put("match_headers", lines(&spec.matcher.headers, ": "));
    put("match_body", spec.matcher.body.as_ref().map(pretty).unwrap_or_default());
    put("operation_name", spec.matcher.operation_name.clone().unwrap_or_default());
    put("status", spec.response.status.to_string());
    put("response_headers", lines(&spec.response.headers, ": "));
    put("response_body", spec.response.body.as_ref().map(body_text).unwrap_or_default());
    put("latency_ms", spec.latency_ms.to_string());
    form
}

fn lines(map: &BTreeMap<String, String>, separator: &str) -> String {
    map.iter().map(|(k, v)| format!("{k}{separator}{v}")).collect::<Vec<_>>().join("\n")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// A body as the editor shows it: JSON pretty-printed; a text body as
/// itself, unless it would read back as JSON (then it stays quoted, so a
/// round trip never changes its type).
fn body_text(body: &Value) -> String {
    match body {
        Value::String(text) if serde_json::from_str::<Value>(text).is_err() => text.clone(),
        other => pretty(other),
    }
}

/// A field the editor could not read, named as the form names it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub field: &'static str,
    pub message: String,
}

fn refuse(field: &'static str, message: impl Into<String>) -> FieldError {
    FieldError { field, message: message.into() }
}

/// The override JSON of the editor's fields, for the use case to check.
pub(crate) fn from_fields(form: &Form) -> Result<Value, FieldError> {
    let integer = |field: &'static str, label: &str| -> Result<Value, FieldError> {
        let text = form.get(field).trim();
        if text.is_empty() {
            return Ok(json!(0));
        }
        text.parse::<i64>().map(|n| json!(n)).map_err(|_| refuse(field, format!("{label} must be a whole number")))
    };
    let mut matcher = Map::new();
    matcher.insert("method".into(), json!(form.get("method").trim()));
    matcher.insert("path".into(), json!(form.get("path").trim()));
    matcher.insert("query".into(), pairs(form.get("query"), '=', "query", "name=value")?);
    matcher.insert("headers".into(), pairs(form.get("match_headers"), ':', "match_headers", "Name: value")?);
    let match_body = form.get("match_body").trim();
    if !match_body.is_empty() {
        let value: Value = serde_json::from_str(match_body)
            .map_err(|e| refuse("match_body", format!("The body to match must be JSON: {e}")))?;
        matcher.insert("body".into(), value);
    }
    let operation_name = form.get("operation_name").trim();
    if !operation_name.is_empty() {
        matcher.insert("operationName".into(), json!(operation_name));
    }
    let status = form.get("status").trim();
    let status: Value = if status.is_empty() {
        json!(200)
    } else {
        status
            .parse::<u64>()
            .map(|n| json!(n))
            .map_err(|_| refuse("status", "The status must be a number such as 200"))?
    };
    let mut response = Map::new();
    response.insert("status".into(), status);
    response.insert("headers".into(), pairs(form.get("response_headers"), ':', "response_headers", "Name: value")?);
    let body = form.get("response_body");
    if !body.trim().is_empty() {
        // JSON when it reads as JSON (templates work inside its strings),
        // else the text as it is.
        let value = serde_json::from_str::<Value>(body).unwrap_or_else(|_| Value::String(body.to_owned()));
        response.insert("body".into(), value);
    }
    Ok(json!({
        "name": form.get("name").trim(),
        "enabled": form.checked("enabled"),
        "priority": integer("priority", "The priority")?,
        "matcher": matcher,
        "response": response,
        "latencyMs": integer("latency_ms", "The latency")?,
    }))
}

/// `name<separator>value` lines as an object; blank lines are skipped.
fn pairs(text: &str, separator: char, field: &'static str, shape: &str) -> Result<Value, FieldError> {
    let mut map = Map::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (name, value) = line
            .split_once(separator)
            .ok_or_else(|| refuse(field, format!("Line {}: write one `{shape}` per line", number + 1)))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(refuse(field, format!("Line {}: the name is missing", number + 1)));
        }
        map.insert(name.to_owned(), json!(value.trim()));
    }
    Ok(Value::Object(map))
}

/// The form field of a use case's field name (`matcher.path` is `path`).
pub(crate) fn form_field(field: &str) -> Option<&'static str> {
    Some(match field {
        "name" => "name",
        "priority" => "priority",
        "matcher.method" => "method",
        "matcher.path" => "path",
        "matcher.query" => "query",
        "matcher.headers" | "headers" => "match_headers",
        "matcher.body" => "match_body",
        "matcher.operationName" => "operation_name",
        "response.status" => "status",
        "response.headers" => "response_headers",
        "response.body" => "response_body",
        "latencyMs" => "latency_ms",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(pairs: &[(&str, &str)]) -> Form {
        let mut form = Form::default();
        for (k, v) in pairs {
            form.values.insert((*k).to_owned(), (*v).to_owned());
        }
        form
    }

    #[test]
    fn fields_become_the_apis_override() {
        let value = from_fields(&form(&[
            ("name", " Out of stock "),
            ("enabled", "on"),
            ("priority", "2"),
            ("method", "GET"),
            ("path", "/pets/{id}"),
            ("query", "status=sold\n\n  page = 2 "),
            ("match_headers", "X-Tenant: acme"),
            ("status", "404"),
            ("response_headers", "Retry-After: 5"),
            ("response_body", "{\"message\": \"Pet {{request.path.id}} is gone\"}"),
            ("latency_ms", "150"),
        ]))
        .unwrap();
        assert_eq!(
            value,
            json!({
                "name": "Out of stock",
                "enabled": true,
                "priority": 2,
                "matcher": {
                    "method": "GET", "path": "/pets/{id}",
                    "query": { "status": "sold", "page": "2" },
                    "headers": { "X-Tenant": "acme" }
                },
                "response": {
                    "status": 404,
                    "headers": { "Retry-After": "5" },
                    "body": { "message": "Pet {{request.path.id}} is gone" }
                },
                "latencyMs": 150
            })
        );
        let spec: OverrideSpec = serde_json::from_value(value).unwrap();
        assert!(spec.validate().is_ok());
    }

    #[test]
    fn a_stored_override_round_trips_through_the_fields() {
        let spec: OverrideSpec = serde_json::from_value(json!({
            "name": "Text and a JSON-looking string",
            "enabled": false,
            "priority": -1,
            "matcher": { "method": "post", "path": "/orders", "body": { "kind": "gift" }, "operationName": "Op" },
            "response": { "status": 201, "body": "123" },
            "latencyMs": 0
        }))
        .unwrap();
        let fields = to_fields(&spec);
        assert_eq!(fields.get("response_body"), "\"123\"", "a string that reads as JSON stays quoted");
        assert_eq!(fields.get("method"), "POST");
        let back: OverrideSpec = serde_json::from_value(from_fields(&fields).unwrap()).unwrap();
        assert_eq!(back.response.body, Some(json!("123")));
        assert_eq!(back.matcher.body, Some(json!({ "kind": "gift" })));
        assert_eq!(back.matcher.operation_name.as_deref(), Some("Op"));
        assert!(!back.enabled);
        assert_eq!(back.priority, -1);

        let text: OverrideSpec = serde_json::from_value(json!({
            "matcher": { "path": "/health" },
            "response": { "body": "plain words" }
        }))
        .unwrap();
        let fields = to_fields(&text);
        assert_eq!(fields.get("response_body"), "plain words");
        let back: OverrideSpec = serde_json::from_value(from_fields(&fields).unwrap()).unwrap();
        assert_eq!(back, text);
    }

    #[test]
    fn unreadable_fields_are_named() {
        let err = from_fields(&form(&[("path", "/x"), ("response_headers", "no separator here")])).unwrap_err();
        assert_eq!(err.field, "response_headers");
        assert!(err.message.contains("Line 1"), "{}", err.message);
        let err = from_fields(&form(&[("path", "/x"), ("status", "ok")])).unwrap_err();
        assert_eq!(err.field, "status");
        let err = from_fields(&form(&[("path", "/x"), ("match_body", "{nope")])).unwrap_err();
        assert_eq!(err.field, "match_body");
        assert_eq!(form_field("response.status"), Some("status"));
        assert_eq!(form_field("matcher.path"), Some("path"));
        assert_eq!(form_field("body"), None);
    }
}
