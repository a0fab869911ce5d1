//! Response choice (rules 2 and 4): status from `Prefer: code=`, media type
//! from `Accept`, body from examples, the schema, or a placeholder.

use std::sync::OnceLock;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, StatusCode};
use rand::Rng as _;
use serde_json::{Value, json};
use spec::{MediaType, Operation, Response, Spec};

use crate::sample::{self, Direction};
use crate::schema::SchemaSet;
use crate::{Context, Reply, Synth, envelope};

/// How to pick among named examples.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExampleChoice {
    Named(String),
    Random,
    Sequential,
}

/// What the request asked for with `Prefer` (or Prism's `__code` and
/// `__example` query parameters).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Prefer {
    pub code: Option<u16>,
    pub example: Option<ExampleChoice>,
}

impl Prefer {
    #[must_use]
    pub fn parse(headers: &HeaderMap, query: &str) -> Self {
        let mut prefer = Self::default();
        for value in headers.get_all(http::header::HeaderName::from_static("prefer")) {
            let Ok(text) = value.to_str() else { continue };
            for part in text.split([',', ';']) {
                let Some((key, value)) = part.split_once('=') else { continue };
                let value = value.trim().trim_matches('"');
                match key.trim().to_ascii_lowercase().as_str() {
                    "code" => prefer.code = value.parse().ok(),
                    "example" => prefer.example = Some(ExampleChoice::from(value)),
                    _ => {}
                }
            }
        }
        if query.contains("__") {
            for (key, value) in parse_query(query) {
                match key.as_str() {
                    "__code" => prefer.code = value.parse().ok(),
                    "__example" => prefer.example = Some(ExampleChoice::from(value.as_str())),
                    _ => {}
                }
            }
        }
        prefer
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.code.is_none() && self.example.is_none()
    }
}

impl From<&str> for ExampleChoice {
    fn from(value: &str) -> Self {
        match value {
            "random" => Self::Random,
            "sequential" => Self::Sequential,
            name => Self::Named(name.to_owned()),
        }
    }
}

/// Decoded query pairs in order.
#[must_use]
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default()
}

/// Picks the response entry for a status, following `NXX` and `default`.
fn response_for(operation: &Operation, code: u16) -> Option<&Response> {
    let exact = code.to_string();
    let range = format!("{}XX", code / 100);
    operation
        .responses
        .get(&exact)
        .or_else(|| operation.responses.iter().find(|(k, _)| k.eq_ignore_ascii_case(&range)).map(|(_, r)| r))
        .or_else(|| operation.responses.get("default"))
}

/// The status answered without `Prefer: code=`: the lowest success code
/// declared, else a `2XX` range as 200, else `default` as 200.
fn default_status(operation: &Operation) -> (u16, Option<&Response>) {
    let explicit = operation
        .responses
        .iter()
        .filter_map(|(key, response)| key.parse::<u16>().ok().map(|code| (code, response)))
        .filter(|(code, _)| (200..300).contains(code))
        .min_by_key(|(code, _)| *code);
    if let Some((code, response)) = explicit {
        return (code, Some(response));
    }
    if let Some(response) = operation.responses.iter().find(|(k, _)| k.eq_ignore_ascii_case("2XX")).map(|(_, r)| r) {
        return (200, Some(response));
    }
    if let Some(response) = operation.responses.get("default") {
        return (200, Some(response));
    }
    let first = operation.responses.iter().find_map(|(key, response)| key.parse::<u16>().ok().map(|c| (c, response)));
    first.map_or((200, None), |(code, response)| (code, Some(response)))
}

/// Builds the response for an operation.
pub fn respond(
    spec: &Spec,
    schemas: &OnceLock<SchemaSet>,
    operation: &Operation,
    prefer: &Prefer,
    accept: Option<&str>,
    ctx: &mut Context<'_>,
) -> Reply {
    let (code, response) = match prefer.code {
        Some(code) => (code, response_for(operation, code)),
        None => default_status(operation),
    };
    let Ok(status) = StatusCode::from_u16(code) else {
        return Reply::new(StatusCode::BAD_REQUEST, Synth::ValidationError).json(&envelope(
            "VALIDATION_ERROR",
            &format!("Prefer: code={code} is not an HTTP status"),
            None,
        ));
    };
    let Some(response) = response else {
        // The status is honoured even when the description does not list it.
        return Reply::new(status, Synth::EmptySchema);
    };
    let mut reply = Reply::new(status, Synth::SchemaWalk);
    add_headers(spec, response, &mut reply.headers);
    if response.content.is_empty() {
        reply.headers.insert(HeaderName::from_static("x-mock-synth"), HeaderValue::from_static("example"));
        return reply;
    }
    let Some((media_name, media)) = choose_media(&response.content, accept) else {
        let offered: Vec<&str> = response.content.keys().map(String::as_str).collect();
        return Reply::new(StatusCode::NOT_ACCEPTABLE, Synth::NoRoute).json(&envelope(
            "NOT_ACCEPTABLE",
            &format!("no response media type matches Accept; this operation offers {}", offered.join(", ")),
            None,
        ));
    };
    let (body, synth) = match choose_body(spec, schemas, media, prefer, ctx) {
        Ok(found) => found,
        Err(message) => {
            return Reply::new(StatusCode::BAD_REQUEST, Synth::ValidationError).json(&envelope(
                "VALIDATION_ERROR",
                &message,
                Some(json!({"field": "Prefer"})),
            ));
        }
    };
    reply.headers.insert(HeaderName::from_static("x-mock-synth"), HeaderValue::from_static(synth.as_str()));
    let content_type = if media_name.contains('*') { "application/json" } else { media_name };
    if let Ok(value) = HeaderValue::from_str(content_type) {
        reply.headers.insert(CONTENT_TYPE, value);
    }
    reply.body = encode(content_type, &body);
    reply
}

fn encode(content_type: &str, body: &Value) -> Bytes {
    match body {
        Value::String(text) if !is_json(content_type) => Bytes::from(text.clone()),
        other => Bytes::from(serde_json::to_vec(other).unwrap_or_default()),
    }
}

/// `application/json`, `application/problem+json`, `text/json`, ...
#[must_use]
pub fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json") || essence == "text/json" || essence == "*/*"
}

fn choose_body(
    spec: &Spec,
    schemas: &OnceLock<SchemaSet>,
    media: &MediaType,
    prefer: &Prefer,
    ctx: &mut Context<'_>,
) -> Result<(Value, Synth), String> {
    let named: Vec<(&String, &Value)> =
        media.examples.iter().filter_map(|(name, example)| example.value.as_ref().map(|value| (name, value))).collect();
    match &prefer.example {
        Some(ExampleChoice::Named(name)) => {
            return named.iter().find(|(n, _)| *n == name).map(|(_, v)| ((*v).clone(), Synth::Example)).ok_or_else(
                || {
                    let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
                    if names.is_empty() {
                        format!("no example named `{name}`: this response has no named examples")
                    } else {
                        format!("no example named `{name}`; this response has: {}", names.join(", "))
                    }
                },
            );
        }
        Some(ExampleChoice::Random) if !named.is_empty() => {
            let i = ctx.rng.random_range(0..named.len());
            if let Some((_, value)) = named.get(i) {
                return Ok(((*value).clone(), Synth::Example));
            }
        }
        Some(ExampleChoice::Sequential) if !named.is_empty() => {
            let n = u64::try_from(named.len()).unwrap_or(1);
            let i = usize::try_from(ctx.sequence.unwrap_or(0) % n).unwrap_or(0);
            if let Some((_, value)) = named.get(i) {
                return Ok(((*value).clone(), Synth::Example));
            }
        }
        _ => {}
    }
    if let Some(example) = &media.example {
        return Ok((example.clone(), Synth::Example));
    }
    if let Some((_, value)) = named.first() {
        return Ok(((*value).clone(), Synth::Example));
    }
    let Some(schema) = &media.schema else {
        return Ok((placeholder(), Synth::EmptySchema));
    };
    if let Some(resolved) = spec.resolve_value(schema) {
        let schema_example = resolved.get("example").or_else(|| resolved.get("examples").and_then(|e| e.get(0)));
        if let Some(example) = schema_example {
            return Ok((example.clone(), Synth::Example));
        }
    }
    if sample::is_empty_schema(spec, schema) {
        return Ok((placeholder(), Synth::EmptySchema));
    }
    match sample::bounded_sample_with(spec, schemas, schema, Direction::Response) {
        Some(value) => Ok((value, Synth::SchemaWalk)),
        None => Ok((sample::over_budget_placeholder(), Synth::EmptySchema)),
    }
}

fn placeholder() -> Value {
    json!({
        "message": "The API description declares no schema or example for this response, so the mock cannot tell what to return. Add a schema or an example, or create an override."
    })
}

/// Negotiates `Accept` (with q-values and wildcards) against the offered
/// media types; without `Accept` the first offered type wins.
fn choose_media<'a>(
    content: &'a indexmap::IndexMap<String, MediaType>,
    accept: Option<&str>,
) -> Option<(&'a str, &'a MediaType)> {
    let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
        return content.iter().next().map(|(k, v)| concrete(content, k.as_str(), v));
    };
    let mut best: Option<(f32, usize, &'a str, &'a MediaType)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';');
        let wanted = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let q =
            parts.filter_map(|p| p.trim().strip_prefix("q=")).find_map(|q| q.trim().parse::<f32>().ok()).unwrap_or(1.0);
        if q <= 0.0 {
            continue;
        }
        for (position, (name, media)) in content.iter().enumerate() {
            let offered = name.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            if media_matches(&wanted, &offered) {
                let better = best.is_none_or(|(bq, bp, _, _)| q > bq || (q == bq && position < bp));
                if better {
                    best = Some((q, position, name.as_str(), media));
                }
            }
        }
    }
    let accepts_json = accept.split(',').any(|range| {
        let mut parts = range.split(';');
        let wanted = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.filter_map(|p| p.trim().strip_prefix("q=")).any(|q| q.trim().parse::<f32>() == Ok(0.0));
        !refused && media_matches(&wanted, "application/json")
    });
    best.map(|(_, _, name, media)| if accepts_json { concrete(content, name, media) } else { (name, media) })
}

/// A wildcard offer (`*/*`) is answered as `application/json`; when the
/// description also lists `application/json`, that entry is the one whose
/// schema the answer must follow.
fn concrete<'a>(
    content: &'a indexmap::IndexMap<String, MediaType>,
    name: &'a str,
    media: &'a MediaType,
) -> (&'a str, &'a MediaType) {
    if name.contains('*')
        && let Some((json_name, json)) = content.get_key_value("application/json")
    {
        return (json_name.as_str(), json);
    }
    (name, media)
}

fn media_matches(wanted: &str, offered: &str) -> bool {
    if wanted == "*/*" || wanted == offered || offered == "*/*" {
        return true;
    }
    let (w_type, w_sub) = wanted.split_once('/').unwrap_or((wanted, ""));
    let (o_type, o_sub) = offered.split_once('/').unwrap_or((offered, ""));
    if w_sub == "*" {
        return w_type == o_type || o_type == "*";
    }
    // `application/json` accepts `application/problem+json` and the like.
    w_type == o_type && (o_sub == "*" || (w_sub == "json" && o_sub.ends_with("+json")))
}

fn add_headers(spec: &Spec, response: &Response, headers: &mut HeaderMap) {
    for (name, header) in &response.headers {
        if name.eq_ignore_ascii_case("content-type") || name.eq_ignore_ascii_case("content-length") {
            continue;
        }
        let value = header
            .example
            .clone()
            .or_else(|| header.examples.values().find_map(|e| e.value.clone()))
            .or_else(|| header.schema.as_ref().map(|s| sample::sample(spec, s, Direction::Response)));
        let text = match value {
            Some(Value::String(text)) => text,
            Some(Value::Null) | None => continue,
            Some(other) => other.to_string(),
        };
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&text)) {
            headers.insert(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefer_reads_header_and_query() {
        let mut headers = HeaderMap::new();
        headers.insert("prefer", "code=404, example=sequential".parse().unwrap());
        let prefer = Prefer::parse(&headers, "");
        assert_eq!(prefer.code, Some(404));
        assert_eq!(prefer.example, Some(ExampleChoice::Sequential));
        let prefer = Prefer::parse(&HeaderMap::new(), "a=1&__example=cat");
        assert_eq!(prefer.example, Some(ExampleChoice::Named("cat".to_owned())));
    }

    #[test]
    fn accept_negotiation() {
        let mut content = indexmap::IndexMap::new();
        content.insert("application/xml".to_owned(), MediaType::default());
        content.insert("application/problem+json".to_owned(), MediaType::default());
        assert_eq!(choose_media(&content, None).unwrap().0, "application/xml");
        assert_eq!(choose_media(&content, Some("application/json")).unwrap().0, "application/problem+json");
        assert_eq!(
            choose_media(&content, Some("application/xml;q=0.5, application/*;q=0.9")).unwrap().0,
            "application/xml",
            "equal-or-better q keeps the earlier offer"
        );
        assert!(choose_media(&content, Some("text/html")).is_none());
        // GererMesAffaires: a wildcard offer beside application/json.
        let mut content = indexmap::IndexMap::new();
        content.insert("*/*".to_owned(), MediaType::default());
        content.insert("application/json".to_owned(), MediaType::default());
        assert_eq!(choose_media(&content, None).unwrap().0, "application/json");
        assert_eq!(choose_media(&content, Some("*/*")).unwrap().0, "application/json");
        assert_eq!(choose_media(&content, Some("text/plain")).unwrap().0, "*/*", "JSON was not asked for");
    }
}
