//! The Try-It relay: the docs page's request to the project's own API, sent
//! by the hub for APIs that do not answer browsers' CORS preflights.
//!
//! Rules kept here (and nowhere else):
//! - Only URLs under one of the API bases the docs offer for that version
//!   (the project's `base_url`, else the description's servers) are
//!   relayed: same scheme, host and port, and a path inside the base's path.
//!   The hub is never an open proxy.
//! - The outbound guard refuses loopback and private addresses unless the
//!   operator allows them (`SVC_OUTBOUND_ALLOW`); redirects are returned,
//!   not followed.
//! - The visitor's cookies and hop-by-hop or proxy headers are never
//!   forwarded; only the headers typed into the panel are.
//! - Bounded: 1 MiB of request body, 50 headers, 8 KiB of URL, 1 MiB of
//!   response body kept, 30 seconds.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::{HubError, HubResult};

/// Bytes of a relayed request body at most.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Bytes of a relayed response body kept.
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;
/// Headers of a relayed request at most.
pub const MAX_HEADERS: usize = 50;
/// Characters of a relayed URL at most.
pub const MAX_URL_CHARS: usize = 8 * 1024;
/// Seconds a relayed request may take.
pub const TIMEOUT_SECS: u64 = 30;

/// Methods the panel sends.
const METHODS: [&str; 7] = ["GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH"];

/// Request headers the relay never forwards: the visitor's credentials for
/// the hub, hop-by-hop headers, and anything that would claim a proxy path.
const DROPPED: [&str; 16] = [
    "cookie",
    "host",
    "content-length",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
    "proxy-connection",
    "forwarded",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-real-ip",
];

/// What the panel asks the hub to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelayRequest {
    pub method: String,
    pub url: url::Url,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    method: String,
    url: String,
    #[serde(default)]
    headers: serde_json::Map<String, Value>,
    #[serde(default)]
    body: Option<String>,
}

impl RelayRequest {
    /// Parses and checks the panel's JSON against `bases`, the API base
    /// URLs the docs offer for the version.
    pub fn parse(body: &[u8], bases: &[String]) -> HubResult<Self> {
        let wire: Wire = serde_json::from_slice(body)
            .map_err(|e| HubError::validation("body", format!("expected {{method, url, headers, body}}: {e}")))?;
        let method = wire.method.to_ascii_uppercase();
        if !METHODS.contains(&method.as_str()) {
            return Err(HubError::validation(
                "method",
                format!("`{}` is not an HTTP method the panel sends", wire.method),
            ));
        }
        if wire.url.chars().count() > MAX_URL_CHARS {
            return Err(HubError::validation("url", format!("at most {MAX_URL_CHARS} characters")));
        }
        let url = url::Url::parse(&wire.url).map_err(|e| HubError::validation("url", format!("not a URL: {e}")))?;
        if !bases.iter().any(|base| within(&url, base)) {
            return Err(HubError::validation(
                "url",
                "the relay only sends to the API base URLs these docs offer for this version",
            ));
        }
        let mut headers = Vec::with_capacity(wire.headers.len());
        for (name, value) in wire.headers {
            let Value::String(value) = value else {
                return Err(HubError::validation("headers", format!("the value of `{name}` must be a string")));
            };
            headers.push((name, value));
        }
        Self::checked(method, url, headers, wire.body.unwrap_or_default().into_bytes())
    }

    /// A request from parts (a saved request's, resolved): the header
    /// count, names and values and the body size checked, and the headers
    /// the relay never forwards dropped.
    pub fn checked(method: String, url: url::Url, given: Vec<(String, String)>, body: Vec<u8>) -> HubResult<Self> {
        if given.len() > MAX_HEADERS {
            return Err(HubError::validation("headers", format!("at most {MAX_HEADERS} headers")));
        }
        let mut headers = Vec::with_capacity(given.len());
        for (name, value) in given {
            let lower = name.to_ascii_lowercase();
            if DROPPED.contains(&lower.as_str()) || lower.starts_with("proxy-") || lower.starts_with("sec-") {
                continue;
            }
            if !valid_header(&name, &value) {
                return Err(HubError::validation("headers", format!("`{name}` is not a valid header")));
            }
            headers.push((name, value));
        }
        if body.len() > MAX_BODY_BYTES {
            return Err(HubError::validation("body", format!("at most {MAX_BODY_BYTES} bytes")));
        }
        Ok(Self { method, url, headers, body })
    }
}

/// Header names are tokens; values are visible ASCII, spaces and tabs.
fn valid_header(name: &str, value: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        && value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b))
}

/// Whether `url` lies under `base`: same scheme, host and port, and a path
/// inside the base's path (segment by segment, so `/v1` does not admit
/// `/v10`). Dot segments were already resolved by the URL parser.
pub fn within(url: &url::Url, base: &str) -> bool {
    let Ok(base) = url::Url::parse(base) else { return false };
    if url.scheme() != base.scheme()
        || url.host_str() != base.host_str()
        || url.port_or_known_default() != base.port_or_known_default()
        || !url.username().is_empty()
        || url.password().is_some()
    {
        return false;
    }
    let prefix = base.path().trim_end_matches('/');
    let path = url.path();
    prefix.is_empty() || path == prefix || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

/// Sends the request through the guarded outbound client and shapes the
/// answer for the panel: `{status, headers: [[name, value]], body,
/// truncated, duration_ms}`. An address the guard refuses is a validation
/// error; an API that does not answer (no such host, refused connection,
/// timeout) is `{status: null, error}`, as a browser's failed `fetch` is
/// not the page's fault either.
pub async fn relay(outbound: &platform::outbound::Outbound, request: RelayRequest) -> HubResult<Value> {
    let sent = send(outbound, request).await?;
    let Some(status) = sent.status else { return Ok(json!({ "status": null, "error": sent.error })) };
    let headers: Vec<Value> = sent.headers.iter().map(|(n, v)| json!([n, v])).collect();
    Ok(json!({
        "status": status,
        "headers": headers,
        "body": String::from_utf8_lossy(&sent.body),
        "truncated": sent.truncated,
        "duration_ms": sent.duration_ms,
    }))
}

/// What came back from a relayed request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Relayed {
    /// `None` when the API did not answer (then `error` says why).
    pub status: Option<u16>,
    pub headers: Vec<(String, String)>,
    /// At most [`MAX_RESPONSE_BYTES`].
    pub body: Vec<u8>,
    pub truncated: bool,
    pub duration_ms: u64,
    pub error: Option<String>,
}

/// Sends the request through the guarded outbound client (30 s, 1 MiB of
/// answer kept). An address the guard refuses is a validation error on
/// `url`; an API that does not answer is a [`Relayed`] without a status.
pub async fn send(outbound: &platform::outbound::Outbound, request: RelayRequest) -> HubResult<Relayed> {
    use platform::outbound::OutboundError;
    let client = outbound.clone().with_timeout(Duration::from_secs(TIMEOUT_SECS)).with_max_response(MAX_RESPONSE_BYTES);
    let headers: Vec<(&str, String)> = request.headers.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
    let started = std::time::Instant::now();
    let result = client.send(&request.method, request.url.as_str(), &headers, request.body).await;
    let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match result {
        Ok(response) => Ok(Relayed {
            status: Some(response.status),
            headers: response.headers,
            body: response.body,
            truncated: response.truncated,
            duration_ms,
            error: None,
        }),
        Err(refused @ (OutboundError::Refused { .. } | OutboundError::InvalidUrl(_))) => {
            Err(HubError::validation("url", refused.to_string()))
        }
        Err(failed) => Ok(Relayed { duration_ms, error: Some(failed.to_string()), ..Relayed::default() }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]
mod tests {
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap()
    }

    #[test]
    fn only_urls_under_a_base_pass() {
        let base = "https://api.example.com/v1";
        assert!(within(&url("https://api.example.com/v1"), base));
        assert!(within(&url("https://api.example.com/v1/pets?limit=2"), base));
        assert!(within(&url("https://api.example.com/v1/../v1/pets"), base), "dot segments resolve first");
        assert!(!within(&url("https://api.example.com/v10/pets"), base), "segment-aware");
        assert!(!within(&url("https://api.example.com/v1/../admin"), base), "dot segments cannot climb out");
        assert!(!within(&url("http://api.example.com/v1/pets"), base), "scheme");
        assert!(!within(&url("https://api.example.com:8443/v1/pets"), base), "port");
        assert!(!within(&url("https://api.example.com.evil.test/v1"), base), "host");
        assert!(!within(&url("https://user:pw@api.example.com/v1"), base), "credentials");
        assert!(within(&url("https://api.example.com/anything"), "https://api.example.com"));
        assert!(within(&url("https://api.example.com:443/v1/x"), base), "the default port is the same port");
        assert!(!within(&url("https://api.example.com/v1"), "/v1"), "relative bases admit nothing");
    }

    #[test]
    fn requests_are_checked_and_headers_filtered() {
        let bases = vec!["https://api.example.com/v1".to_owned()];
        let ok = RelayRequest::parse(
            br#"{"method":"post","url":"https://api.example.com/v1/pets","headers":{"Authorization":"Bearer x","Cookie":"hub=1","X-Forwarded-For":"1.2.3.4","Proxy-Foo":"1","Content-Type":"application/json"},"body":"{}"}"#,
            &bases,
        )
        .unwrap();
        assert_eq!(ok.method, "POST");
        let names: Vec<&str> = ok.headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Authorization", "Content-Type"], "cookies and proxy headers are never relayed");
        assert_eq!(ok.body, b"{}");

        let refused = |body: &str| match RelayRequest::parse(body.as_bytes(), &bases) {
            Err(HubError::Validation { field, .. }) => field,
            other => panic!("expected a validation error for {body}, got {other:?}"),
        };
        assert_eq!(refused(r#"{"method":"GET","url":"https://evil.test/v1"}"#), Some("url"));
        assert_eq!(refused(r#"{"method":"GET","url":"http://127.0.0.1/v1"}"#), Some("url"));
        assert_eq!(refused(r#"{"method":"TRACE","url":"https://api.example.com/v1"}"#), Some("method"));
        assert_eq!(refused(r#"{"method":"GET","url":"not a url"}"#), Some("url"));
        assert_eq!(
            refused(r#"{"method":"GET","url":"https://api.example.com/v1","headers":{"X":1}}"#),
            Some("headers")
        );
        assert_eq!(
            refused(r#"{"method":"GET","url":"https://api.example.com/v1","headers":{"X":"a\nb"}}"#),
            Some("headers")
        );
        assert_eq!(refused(r#"{"method":"GET","url":"https://api.example.com/v1","extra":1}"#), Some("body"));
        let big = format!(
            r#"{{"method":"POST","url":"https://api.example.com/v1","body":"{}"}}"#,
            "a".repeat(MAX_BODY_BYTES + 1)
        );
        assert_eq!(refused(&big), Some("body"));
        let many: serde_json::Map<String, Value> = (0..=MAX_HEADERS).map(|i| (format!("x-{i}"), json!("v"))).collect();
        let many = json!({"method": "GET", "url": "https://api.example.com/v1", "headers": many}).to_string();
        assert_eq!(refused(&many), Some("headers"));
    }
}
