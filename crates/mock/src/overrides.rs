//! Overrides (rule 5): hand-written responses that win over the description
//! when their matcher fits a request, and the export bundle (rule 10).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::router::Router;

/// At most this many overrides per project (the store enforces it too).
pub const MAX_OVERRIDES: usize = 50;
/// Longest latency an override may add, in milliseconds.
pub const MAX_LATENCY_MS: u32 = 10_000;
/// Largest override body, in bytes of its JSON text.
pub const MAX_BODY_BYTES: usize = 256 * 1024;
/// The export bundle's format name and version.
pub const BUNDLE_FORMAT: &str = "svc-mock-overrides";
pub const BUNDLE_VERSION: u32 = 1;

/// What an override matches. Absent fields match anything.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Matcher {
    /// `GET`, `POST`, ... or `*` (any); case-insensitive.
    #[serde(default = "any_method")]
    pub method: String,
    /// A path template relative to the mock root: `/pets/{id}`, `/pets/*`.
    pub path: String,
    /// Query parameters that must be present with these values (`*`: any value).
    #[serde(default)]
    pub query: BTreeMap<String, String>,
    /// Headers that must be present with these values (`*`: any value); names
    /// are case-insensitive.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// A JSON value the request body must contain (objects by subset).
    #[serde(default)]
    pub body: Option<Value>,
    /// For GraphQL requests: the operation's name.
    #[serde(default, rename = "operationName")]
    pub operation_name: Option<String>,
}

fn any_method() -> String {
    "*".to_owned()
}

/// The response an override sends.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverrideResponse {
    #[serde(default = "ok")]
    pub status: u16,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// JSON (templated inside strings), or a string sent as text.
    #[serde(default)]
    pub body: Option<Value>,
}

fn ok() -> u16 {
    200
}

/// The editable part of an override: what the API accepts and the bundle
/// carries (no project-local ids).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OverrideSpec {
    #[serde(default)]
    pub name: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Lower numbers are tried first; ties go to the older override.
    #[serde(default)]
    pub priority: i32,
    pub matcher: Matcher,
    pub response: OverrideResponse,
    #[serde(default, rename = "latencyMs")]
    pub latency_ms: u32,
}

fn yes() -> bool {
    true
}

/// A stored override.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Override {
    pub id: String,
    #[serde(flatten)]
    pub spec: OverrideSpec,
}

/// Why an override was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct InvalidOverride {
    pub field: String,
    pub message: String,
}

fn invalid(field: &str, message: impl Into<String>) -> InvalidOverride {
    InvalidOverride { field: field.to_owned(), message: message.into() }
}

impl OverrideSpec {
    /// Checks every limit; the store adds the per-project count.
    pub fn validate(&self) -> Result<(), InvalidOverride> {
        let method = self.matcher.method.to_ascii_uppercase();
        if method != "*" && spec::HttpMethod::from_key(&method).is_none() {
            return Err(invalid("matcher.method", format!("`{}` is not an HTTP method or `*`", self.matcher.method)));
        }
        if !self.matcher.path.starts_with('/') || self.matcher.path.len() > 2048 {
            return Err(invalid("matcher.path", "must start with `/` and be at most 2048 characters"));
        }
        if !(100..=599).contains(&self.response.status) {
            return Err(invalid("response.status", "must be an HTTP status between 100 and 599"));
        }
        if self.latency_ms > MAX_LATENCY_MS {
            return Err(invalid("latencyMs", format!("must be between 0 and {MAX_LATENCY_MS} milliseconds")));
        }
        if self.name.chars().count() > 200 || self.name.chars().any(char::is_control) {
            return Err(invalid("name", "must be at most 200 characters without control characters"));
        }
        for name in self.response.headers.keys().chain(self.matcher.headers.keys()) {
            if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(invalid("headers", format!("`{name}` is not a valid header name")));
            }
        }
        if let Some(name) = self.response.headers.keys().find(|name| is_forbidden_response_header(name)) {
            return Err(invalid(
                "response.headers",
                format!(
                    "`{name}` cannot be set by a mock response (cookies, security policies, CORS and connection headers are the server's)"
                ),
            ));
        }
        let body_len = self.response.body.as_ref().map_or(0, |b| b.to_string().len());
        if body_len > MAX_BODY_BYTES {
            return Err(invalid("response.body", format!("must be at most {MAX_BODY_BYTES} bytes")));
        }
        Ok(())
    }
}

/// An override ready to match requests.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub rule: Override,
    path: Router,
    method: Option<String>,
}

/// Compiles enabled overrides, ordered as they are tried.
#[must_use]
pub fn compile(mut rules: Vec<Override>) -> Vec<Compiled> {
    rules.retain(|rule| rule.spec.enabled);
    // Stable: equal priorities keep the store's (creation) order.
    rules.sort_by_key(|rule| rule.spec.priority);
    rules
        .into_iter()
        .map(|rule| {
            let mut path = Router::default();
            path.insert(&rule.spec.matcher.path.replace('*', "{*}"), 0);
            let method = Some(rule.spec.matcher.method.to_ascii_uppercase()).filter(|m| m != "*" && !m.is_empty());
            Compiled { rule, path, method }
        })
        .collect()
}

/// What an override matcher sees of a request.
pub struct Facts<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub query: &'a [(String, String)],
    pub headers: &'a http::HeaderMap,
    pub json: Option<&'a Value>,
    pub operation_name: Option<&'a str>,
}

impl Compiled {
    /// Path parameters when this override matches.
    #[must_use]
    pub fn matches(&self, facts: &Facts<'_>) -> Option<crate::router::Params> {
        if self.method.as_deref().is_some_and(|m| !m.eq_ignore_ascii_case(facts.method)) {
            return None;
        }
        let (_, params) = self.path.find(facts.path)?;
        let matcher = &self.rule.spec.matcher;
        for (key, want) in &matcher.query {
            let found = facts.query.iter().find(|(k, _)| k == key)?;
            if want != "*" && &found.1 != want {
                return None;
            }
        }
        for (name, want) in &matcher.headers {
            let found = facts.headers.get(name.as_str())?.to_str().ok()?;
            if want != "*" && found != want {
                return None;
            }
        }
        if let Some(want) = &matcher.body
            && !contains(facts.json?, want)
        {
            return None;
        }
        if let Some(want) = &matcher.operation_name
            && facts.operation_name != Some(want.as_str())
        {
            return None;
        }
        Some(params.into_iter().filter(|(name, _)| name != "*").collect())
    }
}

/// Whether `actual` contains `wanted`: objects by subset of keys, arrays by
/// position, everything else by equality.
#[must_use]
pub fn contains(actual: &Value, wanted: &Value) -> bool {
    match (actual, wanted) {
        (Value::Object(actual), Value::Object(wanted)) => {
            wanted.iter().all(|(key, value)| actual.get(key).is_some_and(|found| contains(found, value)))
        }
        (Value::Array(actual), Value::Array(wanted)) => {
            wanted.len() <= actual.len() && wanted.iter().zip(actual).all(|(w, a)| contains(a, w))
        }
        _ => actual == wanted,
    }
}

/// An export bundle.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bundle {
    pub format: String,
    pub version: u32,
    pub overrides: Vec<Value>,
}

/// Builds the export bundle (ids stripped).
#[must_use]
pub fn export(rules: &[Override]) -> Value {
    serde_json::json!({
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "overrides": rules.iter().map(|rule| &rule.spec).collect::<Vec<_>>(),
    })
}

/// One entry of a bundle that could not be imported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub index: usize,
    pub reason: String,
}

/// Response headers a tenant may never set on a mock answer (overrides,
/// imported bundles, headers a description declares): cookies, security
/// policies, cross-origin grants and the hop-by-hop headers of the
/// connection itself. The server owns them on every origin it serves.
#[must_use]
pub fn is_forbidden_response_header(name: &str) -> bool {
    is_forbidden_header_name(&name.trim().to_ascii_lowercase())
}

/// [`is_forbidden_response_header`] for a name that is lowercase already
/// (every `HeaderName`): no allocation, on every mock answer.
#[must_use]
pub fn is_forbidden_header_name(name: &str) -> bool {
    matches!(
        name,
        "set-cookie"
            | "set-cookie2"
            | "content-security-policy"
            | "content-security-policy-report-only"
            | "strict-transport-security"
            | "x-content-type-options"
            | "clear-site-data"
            | "alt-svc"
            | "connection"
            | "keep-alive"
            | "proxy-authenticate"
            | "proxy-authorization"
            | "proxy-connection"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "content-length"
    ) || name.starts_with("access-control-")
}

/// JSON numbers written as `5.0` where an integer is expected, turned into
/// `5` at the given JSON pointers (JSON Schema's `integer` admits both; the
/// typed structures do not). Other numbers are left for the parser to refuse.
pub fn integral_numbers_at(value: &mut Value, pointers: &[&str]) {
    for pointer in pointers {
        if let Some(slot) = value.pointer_mut(pointer)
            && let Some(float) = slot.as_f64().filter(|f| slot.is_f64() && f.fract() == 0.0 && f.abs() < 9.0e15)
        {
            #[expect(clippy::cast_possible_truncation, reason = "integral and within 2^53, checked above")]
            let integer = float as i64;
            *slot = Value::from(integer);
        }
    }
}

/// Where an override holds integers.
pub const OVERRIDE_INTEGERS: [&str; 3] = ["/priority", "/latencyMs", "/response/status"];

/// Entries a bundle may hold, valid or not (the cap on what is imported is
/// [`MAX_OVERRIDES`]).
pub const MAX_BUNDLE_ENTRIES: usize = 1000;

/// A read bundle: what can be imported, what cannot, and how many
/// forbidden response headers were dropped from the imported entries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportBundle {
    pub valid: Vec<OverrideSpec>,
    pub skipped: Vec<Skipped>,
    pub dropped_headers: usize,
}

/// Reads a bundle: the valid entries (ids and other project-local fields
/// dropped) and the malformed ones with their reasons.
pub fn parse_bundle(bundle: &Value) -> Result<ImportBundle, InvalidOverride> {
    let format = bundle.get("format").and_then(Value::as_str);
    if format != Some(BUNDLE_FORMAT) {
        return Err(invalid("format", format!("expected \"{BUNDLE_FORMAT}\"")));
    }
    let version = bundle.get("version").and_then(Value::as_u64);
    if version != Some(u64::from(BUNDLE_VERSION)) {
        return Err(invalid(
            "version",
            format!("unsupported bundle version; this server reads version {BUNDLE_VERSION}"),
        ));
    }
    let Some(entries) = bundle.get("overrides").and_then(Value::as_array) else {
        return Err(invalid("overrides", "expected a list"));
    };
    if entries.len() > MAX_BUNDLE_ENTRIES {
        return Err(invalid("overrides", format!("a bundle holds at most {MAX_BUNDLE_ENTRIES} entries")));
    }
    let mut valid = Vec::new();
    let mut skipped = Vec::new();
    let mut dropped_headers = 0;
    for (index, entry) in entries.iter().enumerate() {
        let mut entry = entry.clone();
        integral_numbers_at(&mut entry, &OVERRIDE_INTEGERS);
        if let Value::Object(map) = &mut entry {
            for local in ["id", "projectId", "project_id", "createdAt", "created_at", "updatedAt", "updated_at"] {
                map.remove(local);
            }
        }
        match serde_json::from_value::<OverrideSpec>(entry) {
            Ok(mut spec) => {
                let before = spec.response.headers.len();
                spec.response.headers.retain(|name, _| !is_forbidden_response_header(name));
                dropped_headers += before - spec.response.headers.len();
                match spec.validate() {
                    Ok(()) => valid.push(spec),
                    Err(err) => skipped.push(Skipped { index, reason: err.to_string() }),
                }
            }
            Err(err) => skipped.push(Skipped { index, reason: err.to_string() }),
        }
    }
    Ok(ImportBundle { valid, skipped, dropped_headers })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(id: &str, priority: i32, matcher: Value) -> Override {
        let spec: OverrideSpec = serde_json::from_value(json!({
            "priority": priority, "matcher": matcher, "response": {"status": 201}
        }))
        .unwrap();
        Override { id: id.to_owned(), spec }
    }

    #[test]
    fn first_match_by_priority_with_all_matchers() {
        let rules = compile(vec![
            rule("late", 5, json!({"path": "/pets/*"})),
            rule(
                "early",
                1,
                json!({"method": "post", "path": "/pets/{id}", "query": {"dry": "1"},
                "headers": {"X-Team": "*"}, "body": {"pet": {"kind": "cat"}}}),
            ),
        ]);
        let mut headers = http::HeaderMap::new();
        headers.insert("x-team", "blue".parse().unwrap());
        let body = json!({"pet": {"kind": "cat", "name": "Tom"}, "extra": 1});
        let query = vec![("dry".to_owned(), "1".to_owned())];
        let facts = Facts {
            method: "POST",
            path: "/pets/7",
            query: &query,
            headers: &headers,
            json: Some(&body),
            operation_name: None,
        };
        let hit = rules.iter().find_map(|r| r.matches(&facts).map(|p| (r.rule.id.clone(), p))).unwrap();
        assert_eq!(hit.0, "early");
        assert_eq!(hit.1, vec![("id".to_owned(), "7".to_owned())]);
        let other = json!({"pet": {"kind": "dog"}});
        let facts = Facts { json: Some(&other), ..facts };
        let hit = rules.iter().find_map(|r| r.matches(&facts).map(|_| r.rule.id.clone())).unwrap();
        assert_eq!(hit, "late");
    }

    #[test]
    fn forbidden_response_headers_are_refused_by_name() {
        for name in [
            "Set-Cookie",
            "Content-Security-Policy",
            "Access-Control-Allow-Origin",
            "Strict-Transport-Security",
            "Transfer-Encoding",
        ] {
            let spec: OverrideSpec = serde_json::from_value(json!({
                "matcher": {"path": "/a"}, "response": {"headers": {name: "x"}}
            }))
            .unwrap();
            let err = spec.validate().unwrap_err();
            assert_eq!(err.field, "response.headers");
            assert!(err.message.contains(name), "{err}");
        }
        for name in ["X-RateLimit-Remaining", "Content-Type", "ETag", "Location"] {
            assert!(!is_forbidden_response_header(name), "{name}");
        }
    }

    #[test]
    fn bundle_round_trip_skips_malformed_and_strips_ids() {
        let rules = vec![rule("ovr_1", 0, json!({"path": "/a"}))];
        let mut bundle = export(&rules);
        assert!(!bundle.to_string().contains("ovr_1"));
        bundle["overrides"].as_array_mut().unwrap().push(json!({"matcher": {"path": "no-slash"}, "response": {}}));
        bundle["overrides"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "x", "matcher": {"path": "/b"}, "response": {"status": 418}}));
        bundle["overrides"].as_array_mut().unwrap().push(json!("garbage"));
        bundle["overrides"].as_array_mut().unwrap().push(json!({"matcher": {"path": "/c"}, "response": {
            "headers": {"Set-Cookie": "s=1", "access-control-allow-origin": "*", "X-Kept": "1"}}}));
        let ImportBundle { valid, skipped, dropped_headers } = parse_bundle(&bundle).unwrap();
        assert_eq!(valid.len(), 3);
        assert_eq!(dropped_headers, 2);
        assert_eq!(valid[2].response.headers.keys().collect::<Vec<_>>(), vec!["X-Kept"]);
        assert_eq!(valid[1].response.status, 418);
        assert_eq!(skipped.iter().map(|s| s.index).collect::<Vec<_>>(), vec![1, 3]);
        assert!(parse_bundle(&json!({"format": "other", "version": 1, "overrides": []})).is_err());
    }

    #[test]
    fn limits_are_checked() {
        let mut spec = rule("a", 0, json!({"path": "/a"})).spec;
        spec.latency_ms = 10_001;
        assert_eq!(spec.validate().unwrap_err().field, "latencyMs");
        spec.latency_ms = 10_000;
        spec.response.status = 99;
        assert_eq!(spec.validate().unwrap_err().field, "response.status");
    }
}
