//! Webhook inboxes: a capture URL per inbox that checks a sender's address,
//! HTTP Basic credentials and signature (as the sender signs, through
//! [`webhook_signatures`]) before anything is stored, counts stored
//! captures on an append-only ledger against the plan's cap, and replays a
//! capture to another URL re-signed with a fresh timestamp.
//!
//! Order of the checks on arrival: unknown inbox (404), paused (503 with
//! `Retry-After`, so senders retry later rather than drop the event),
//! address outside the allowlist (403), Basic credentials (401 with
//! `WWW-Authenticate`), signature (401), plan cap (429 with `Retry-After`).
//! A refused request is counted on its inbox, never stored.

use std::net::IpAddr;

use base64::Engine as _;
use kernel::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;
use webhook_signatures::{Custom, Headers as _, Scheme, SchemeName};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, Source};
use crate::plans::Plan;
use crate::roles::Action;

/// Largest body an inbox stores: 1 MiB, webhook.site's and Hookdeck's order
/// of size; larger requests answer 413.
pub const MAX_CAPTURE_BYTES: usize = 1024 * 1024;
/// Headers kept of one capture (more are refused: 431 territory).
pub const MAX_CAPTURE_HEADERS: usize = 100;
pub const MAX_NAME_CHARS: usize = 100;
pub const MAX_ALLOW_IPS: usize = 50;
pub const MAX_BASIC_CHARS: usize = 256;
/// Longest tolerance a timestamped scheme may be given: one day.
pub const MAX_TOLERANCE_SECS: u64 = 86_400;
/// Captures one listing answers at most.
pub const MAX_LIST: u32 = 100;
/// The daily prune of captures past their plan's window: 03:53 UTC, in
/// milliseconds after midnight (apart from the other daily jobs).
pub const PRUNE_OFFSET_MS: i64 = (3 * 60 + 53) * 60_000;
/// What a paused inbox asks senders to wait before retrying.
pub const PAUSED_RETRY_SECS: u64 = 60;
/// Descriptions whose compiled `webhooks` a node keeps, and the bytes of
/// those descriptions at most (the models hold only the webhooks' schemas).
pub const WEBHOOK_MODELS: usize = 16;
pub const WEBHOOK_MODEL_SOURCE_BYTES: usize = 16 * 1024 * 1024;
/// Headers never replayed: the connection's own, and what the client
/// computes again.
const HOP_HEADERS: &[&str] = &[
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
    "accept-encoding",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InboxState {
    Live,
    Paused,
}

impl InboxState {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Live => "live",
            Self::Paused => "paused",
        }
    }

    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "live" => Some(Self::Live),
            "paused" => Some(Self::Paused),
            _ => None,
        }
    }
}

/// How an inbox verifies signatures (its secret is kept apart, sealed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verification {
    pub scheme: Scheme,
    pub tolerance_secs: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inbox {
    pub id: String,
    pub account_id: String,
    pub project_id: Option<String>,
    /// The linked project's slug, for display.
    pub project_slug: Option<String>,
    pub name: String,
    pub state: InboxState,
    pub verification: Option<Verification>,
    pub basic_username: Option<String>,
    pub allow_ips: Vec<String>,
    /// Requests refused since the inbox was made.
    pub refused: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// An inbox with its sealed secrets and its account's plan, as a capture
/// needs it.
#[derive(Clone, Debug)]
pub struct StoredInbox {
    pub inbox: Inbox,
    pub secret_sealed: Option<String>,
    pub basic_sealed: Option<String>,
    pub plan: Plan,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capture {
    pub id: String,
    pub inbox_id: String,
    pub received_at: Timestamp,
    pub method: String,
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub source_ip: String,
    /// `None` when the inbox verifies no signature.
    pub verified: Option<bool>,
}

/// A request at an inbox's capture URL, as it arrived.
#[derive(Clone, Debug)]
pub struct Arrival {
    pub method: String,
    /// After `/i/<id>`: `/` or the sub-path.
    pub path: String,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: bytes::Bytes,
    /// The client's address by the trusted-proxy rule.
    pub source_ip: IpAddr,
}

/// Why an arrival was not stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    NotFound,
    Paused,
    AddressNotAllowed,
    BasicAuthRequired,
    Signature(webhook_signatures::Refusal),
    OverCap { limit: u32, window_days: u32, retry_after_secs: u64 },
}

/// Settings sent to create or change an inbox (the API's body).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InboxInput {
    pub name: Option<String>,
    /// A project slug; `null` unlinks.
    #[serde(default, deserialize_with = "double_option")]
    pub project: Option<Option<String>>,
    #[serde(default, deserialize_with = "double_option")]
    pub verification: Option<Option<VerificationInput>>,
    #[serde(default, deserialize_with = "double_option")]
    pub basic_auth: Option<Option<BasicInput>>,
    pub allow_ips: Option<Vec<String>>,
    pub state: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerificationInput {
    pub scheme: String,
    /// Required when the scheme changes; kept when omitted otherwise.
    pub secret: Option<String>,
    pub tolerance_secs: Option<u64>,
    pub header: Option<String>,
    pub algorithm: Option<webhook_signatures::Algorithm>,
    pub encoding: Option<webhook_signatures::Encoding>,
    pub prefix: Option<String>,
    pub timestamp_header: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BasicInput {
    pub username: String,
    /// Kept when omitted on a change of an inbox that has one.
    pub password: Option<String>,
}

fn double_option<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// An inbox's settings after validation, with secrets sealed, as the store
/// writes them.
#[derive(Clone, Debug)]
pub struct InboxRecord {
    pub name: String,
    pub project_id: Option<String>,
    pub state: InboxState,
    pub scheme: Option<String>,
    pub custom: Option<String>,
    pub secret_sealed: Option<String>,
    pub tolerance_secs: u64,
    pub basic_username: Option<String>,
    pub basic_sealed: Option<String>,
    pub allow_ips: Vec<String>,
}

/// A capture's plan window and cap: `(cap, window_days)`, cap `None` for
/// unlimited.
#[must_use]
pub const fn capture_cap(plan: Plan) -> (Option<u32>, u32) {
    let limits = plan.limits();
    (limits.max_captures, limits.capture_window_days)
}

/// An unguessable inbox id: `ibx_` and 128 random bits in hex.
#[must_use]
pub fn new_inbox_id() -> String {
    format!("ibx_{}", uuid::Uuid::new_v4().simple())
}

/// Whether `id` has the shape of an inbox id (anything else is a 404
/// without a query).
#[must_use]
pub fn is_inbox_id(id: &str) -> bool {
    id.strip_prefix("ibx_").is_some_and(|hex| hex.len() == 32 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Checks an allowlist entry: an IPv4 or IPv6 address or CIDR range.
fn parse_cidr(entry: &str) -> Option<platform::outbound::Cidr> {
    let entry = entry.trim();
    if entry.contains('/') {
        platform::outbound::Cidr::parse(entry)
    } else {
        let ip: IpAddr = entry.parse().ok()?;
        let bits = if ip.is_ipv4() { 32 } else { 128 };
        platform::outbound::Cidr::parse(&format!("{ip}/{bits}"))
    }
}

/// Whether `ip` is allowed by `allow_ips` (an empty list allows everyone).
#[must_use]
pub fn address_allowed(allow_ips: &[String], ip: IpAddr) -> bool {
    // An IPv4 client reached over an IPv6 socket arrives mapped.
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    };
    allow_ips.is_empty() || allow_ips.iter().filter_map(|e| parse_cidr(e)).any(|cidr| cidr.contains(ip))
}

/// Whether an `Authorization: Basic` header carries `username` and
/// `password`, compared in constant time.
#[must_use]
pub fn basic_matches(header: Option<&str>, username: &str, password: &str) -> bool {
    let Some(encoded) = header.and_then(|h| h.strip_prefix("Basic ").or_else(|| h.strip_prefix("basic "))) else {
        return false;
    };
    let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(encoded.trim()) else { return false };
    let expected = format!("{username}:{password}");
    decoded.len() == expected.len() && bool::from(decoded.ct_eq(expected.as_bytes()))
}

/// The scheme stored for an inbox: its name and, for a custom scheme, its
/// settings as JSON.
#[must_use]
pub fn scheme_from_stored(name: Option<&str>, custom: Option<&str>) -> Option<Scheme> {
    let name = SchemeName::parse(name?).ok()?;
    let custom = custom.and_then(|c| serde_json::from_str::<Custom>(c).ok());
    Scheme::new(name, custom).ok()
}

/// Headers of a capture to send again: hop-by-hop headers and the scheme's
/// old signature headers left out, the fresh signature added.
#[must_use]
pub fn replay_headers(
    capture: &Capture,
    scheme: Option<&Scheme>,
    secret: Option<&str>,
    now_secs: i64,
) -> Vec<(String, String)> {
    let signature_headers = scheme.map(Scheme::header_names).unwrap_or_default();
    let mut headers: Vec<(String, String)> = capture
        .headers
        .iter()
        .filter(|(name, _)| {
            let lower = name.to_ascii_lowercase();
            !HOP_HEADERS.contains(&lower.as_str()) && !signature_headers.contains(&lower)
        })
        .cloned()
        .collect();
    if let (Some(scheme), Some(secret)) = (scheme, secret) {
        // A Standard Webhooks message keeps its id, so receivers that
        // de-duplicate on it still can.
        let original_id = capture.headers.header("webhook-id").map(str::to_owned);
        let id = original_id.unwrap_or_else(|| format!("msg_{}", uuid::Uuid::now_v7().simple()));
        let signing = webhook_signatures::Signing { timestamp_secs: now_secs, message_id: &id };
        headers.extend(scheme.sign(secret, &capture.body, signing));
    }
    headers
}

/// The body of the send-test event: a payment processor's event shape.
#[must_use]
pub fn test_event(inbox_id: &str, now: Timestamp) -> Vec<u8> {
    json!({
        "id": format!("evt_test_{}", uuid::Uuid::now_v7().simple()),
        "object": "event",
        "type": "inbox.test",
        "created": now.as_millis() / 1000,
        "livemode": false,
        "data": { "object": { "inbox": inbox_id, "message": "A test event from the webhook inbox" } },
    })
    .to_string()
    .into_bytes()
}

#[must_use]
pub fn inbox_json(inbox: &Inbox, capture_url: &str) -> Value {
    let verification = inbox.verification.as_ref().map(|v| {
        let mut out = json!({ "scheme": v.scheme.name().as_str(), "tolerance_secs": v.tolerance_secs });
        if let (Scheme::Custom(custom), Value::Object(map)) = (&v.scheme, &mut out) {
            map.insert("header".into(), json!(custom.header));
            map.insert("algorithm".into(), json!(custom.algorithm));
            map.insert("encoding".into(), json!(custom.encoding));
            map.insert("prefix".into(), json!(custom.prefix));
            map.insert("timestamp_header".into(), json!(custom.timestamp_header));
        }
        out
    });
    json!({
        "id": inbox.id,
        "name": inbox.name,
        "capture_url": capture_url,
        "state": inbox.state.as_str(),
        "project": inbox.project_slug,
        "verification": verification,
        "basic_auth": inbox.basic_username.as_ref().map(|u| json!({ "username": u })),
        "allow_ips": inbox.allow_ips,
        "refused": inbox.refused,
        "created_at": inbox.created_at.to_rfc3339(),
        "updated_at": inbox.updated_at.to_rfc3339(),
    })
}

#[must_use]
pub fn capture_json(capture: &Capture) -> Value {
    let (body, encoding) = match std::str::from_utf8(&capture.body) {
        Ok(text) => (text.to_owned(), "utf8"),
        Err(_) => (base64::engine::general_purpose::STANDARD.encode(&capture.body), "base64"),
    };
    json!({
        "id": capture.id,
        "method": capture.method,
        "path": capture.path,
        "query": capture.query,
        "headers": capture.headers.iter().map(|(n, v)| json!([n, v])).collect::<Vec<_>>(),
        "body": body,
        "body_encoding": encoding,
        "received_at": capture.received_at.to_rfc3339(),
        "source_ip": capture.source_ip,
        "verified": capture.verified,
    })
}

/// A capture read against the webhooks of its inbox's linked project.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureEvent {
    pub project: String,
    /// The version whose description was read: the project's default.
    pub version: String,
    /// `None` when no webhook of the description is sent with the
    /// capture's method.
    pub found: Option<mock::webhooks::WebhookMatch>,
}

/// The `webhook` member of a capture's answer.
#[must_use]
pub fn capture_event_json(event: &CaptureEvent) -> Value {
    let found = event.found.as_ref();
    json!({
        "project": event.project,
        "version": event.version,
        "event": found.map(|m| &m.event),
        "operation_id": found.and_then(|m| m.operation_id.as_ref()),
        "summary": found.and_then(|m| m.summary.as_ref()),
        "matched_by": found.map(|m| m.matched_by),
        "fits": found.is_some_and(|m| m.fits),
        "issues": found.map(|m| m.issues.as_slice()).unwrap_or_default(),
        "also_fits": found.map(|m| m.also_fits.as_slice()).unwrap_or_default(),
    })
}

/// What to change of a capture made into a mock override (the API's
/// body); each absent field comes from the capture.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureOverrideInput {
    pub name: Option<String>,
    /// The method the override matches; the capture's by default.
    pub method: Option<String>,
    /// The mock path the override matches; the capture's sub-path by default.
    pub path: Option<String>,
    /// The status it answers; 200 by default.
    pub status: Option<u16>,
}

/// The mock override a capture becomes: it matches the capture's method
/// and path and answers the captured body with its content type.
///
/// # Errors
/// A body that is not text (a mock answers JSON or text).
pub fn capture_override(capture: &Capture, input: &CaptureOverrideInput) -> HubResult<Value> {
    let Ok(text) = std::str::from_utf8(&capture.body) else {
        return Err(HubError::InvalidField {
            field: "body".to_owned(),
            message: "this capture's body is not text, and a mock answers JSON or text".to_owned(),
        });
    };
    let content_type = capture
        .headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| value.clone());
    let is_json = content_type.as_deref().is_none_or(mock::is_json_media);
    let body = match serde_json::from_str::<Value>(text) {
        Ok(value) if is_json => value,
        _ if text.is_empty() => Value::Null,
        _ => Value::String(text.to_owned()),
    };
    let mut headers = serde_json::Map::new();
    if let Some(content_type) = content_type.filter(|_| !text.is_empty()) {
        headers.insert("Content-Type".to_owned(), json!(content_type));
    }
    let method = input.method.clone().unwrap_or_else(|| capture.method.clone());
    let path = input.path.clone().unwrap_or_else(|| capture.path.clone());
    let name = input.name.clone().unwrap_or_else(|| format!("From capture {}", capture.id));
    Ok(json!({
        "name": name,
        "matcher": { "method": method, "path": path },
        "response": { "status": input.status.unwrap_or(200), "headers": headers, "body": body },
    }))
}

/// The saved request a capture becomes (see [`Hub::capture_to_request`]).
///
/// # Errors
/// A body that is not text, or a method a saved request cannot use.
pub fn capture_request(capture: &Capture) -> HubResult<crate::workbench::RequestInput> {
    let Ok(body) = std::str::from_utf8(&capture.body) else {
        return Err(HubError::InvalidField {
            field: "body".to_owned(),
            message: "this capture's body is not text, and a saved request's body is".to_owned(),
        });
    };
    let headers: Vec<(String, String)> = capture
        .headers
        .iter()
        .filter(|(name, _)| {
            let lower = name.to_ascii_lowercase();
            !HOP_HEADERS.contains(&lower.as_str()) && !lower.starts_with("x-forwarded-") && lower != "forwarded"
        })
        .take(workbench::MAX_HEADERS)
        .cloned()
        .collect();
    let query = if capture.query.is_empty() { String::new() } else { format!("?{}", capture.query) };
    Ok(crate::workbench::RequestInput {
        name: Some(
            format!("Capture {} {}", capture.method, capture.path).chars().take(workbench::MAX_NAME_CHARS).collect(),
        ),
        folder: Some(Some("Inbox captures".to_owned())),
        method: Some(capture.method.clone()),
        url: Some(format!("{{{{receiver}}}}{}{query}", capture.path)),
        headers: Some(headers),
        query: Some(Vec::new()),
        body: Some(Some(body.to_owned()).filter(|b| !b.is_empty())),
    })
}

/// A capture waiting for its group's commit.
#[derive(Debug)]
pub struct PendingCapture {
    pub account_id: String,
    pub capture: Capture,
    pub cap: Option<u32>,
    pub window_ms: i64,
}

/// What the writer answers for one capture: the capture, and `Ok` when it
/// is stored or `Err(oldest counted capture's time)` when the plan's cap
/// refused it.
type Written = (Capture, Result<(), i64>);

/// Most captures one transaction commits.
const GROUP: usize = 256;

/// Commits captures in groups: the captures that arrive while one commit
/// runs go into the next, so a burst costs one transaction per group
/// rather than one per request (SQLite has one writer at a time). Each
/// capture is answered only after its group has committed, so an
/// acknowledged capture is stored. One per hub, started on first use.
#[derive(Debug)]
pub struct CaptureWriter {
    queue: tokio::sync::mpsc::Sender<(PendingCapture, tokio::sync::oneshot::Sender<HubResult<Written>>)>,
}

impl CaptureWriter {
    fn start(store: crate::store::Store) -> Self {
        let (queue, mut receiver) =
            tokio::sync::mpsc::channel::<(PendingCapture, tokio::sync::oneshot::Sender<HubResult<Written>>)>(GROUP * 4);
        tokio::spawn(async move {
            let mut group = Vec::with_capacity(GROUP);
            while receiver.recv_many(&mut group, GROUP).await > 0 {
                let (pending, replies): (Vec<PendingCapture>, Vec<_>) = group.drain(..).unzip();
                match store.insert_captures(&pending).await {
                    Ok(outcomes) => {
                        for ((pending, outcome), reply) in pending.into_iter().zip(outcomes).zip(replies) {
                            let _ = reply.send(Ok((pending.capture, outcome)));
                        }
                    }
                    Err(err) => {
                        let message = err.to_string();
                        for reply in replies {
                            let _ = reply.send(Err(HubError::Internal(format!("storing a capture failed: {message}"))));
                        }
                    }
                }
            }
        });
        Self { queue }
    }

    async fn write(&self, pending: PendingCapture) -> HubResult<Written> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        self.queue.send((pending, reply)).await.map_err(|_| HubError::Internal("the capture writer stopped".into()))?;
        answer.await.map_err(|_| HubError::Internal("the capture writer stopped".into()))?
    }
}

fn invalid(field: &'static str, message: impl Into<String>) -> HubError {
    HubError::validation(field, message)
}

impl Hub {
    /// The settings of `input` applied over `current` (none for a new
    /// inbox), validated, with secrets sealed.
    async fn inbox_record(
        &self,
        principal: &Principal,
        input: InboxInput,
        current: Option<&StoredInbox>,
    ) -> HubResult<InboxRecord> {
        let name = match (input.name, current) {
            (Some(name), _) => {
                let name = name.trim().to_owned();
                if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
                    return Err(invalid("name", format!("a name of 1 to {MAX_NAME_CHARS} characters")));
                }
                name
            }
            (None, Some(c)) => c.inbox.name.clone(),
            (None, None) => "Webhook inbox".to_owned(),
        };
        let project_id = match input.project {
            // A project the caller cannot read answers as one that does not
            // exist; both are a bad field of this body, not a missing inbox.
            Some(Some(slug)) => match self.authorize_project(principal, &slug, Action::ViewProject).await {
                Ok(found) => Some(found.project.id),
                Err(HubError::NotFound { .. } | HubError::Forbidden { .. }) => {
                    return Err(invalid("project", "no project with this slug that you can read"));
                }
                Err(e) => return Err(e),
            },
            Some(None) => None,
            None => current.and_then(|c| c.inbox.project_id.clone()),
        };
        let state = match input.state.as_deref() {
            Some(text) => InboxState::parse(text).ok_or_else(|| invalid("state", "live or paused"))?,
            None => current.map_or(InboxState::Live, |c| c.inbox.state),
        };
        let (scheme, custom, secret_sealed, tolerance_secs) = match input.verification {
            Some(None) => (None, None, None, webhook_signatures::DEFAULT_TOLERANCE_SECS),
            Some(Some(v)) => {
                let name = SchemeName::parse(&v.scheme).map_err(|e| invalid("verification.scheme", e.to_string()))?;
                let custom = (name == SchemeName::Custom).then(|| Custom {
                    header: v.header.clone().unwrap_or_default(),
                    algorithm: v.algorithm.unwrap_or_default(),
                    encoding: v.encoding.unwrap_or_default(),
                    prefix: v.prefix.clone().unwrap_or_default(),
                    timestamp_header: v.timestamp_header.clone().filter(|h| !h.is_empty()),
                });
                let scheme =
                    Scheme::new(name, custom.clone()).map_err(|e| invalid("verification.header", e.to_string()))?;
                let tolerance_secs = v.tolerance_secs.unwrap_or(webhook_signatures::DEFAULT_TOLERANCE_SECS);
                if tolerance_secs == 0 || tolerance_secs > MAX_TOLERANCE_SECS {
                    return Err(invalid("verification.tolerance_secs", format!("1 to {MAX_TOLERANCE_SECS} seconds")));
                }
                let same_scheme =
                    current.and_then(|c| c.inbox.verification.as_ref()).is_some_and(|old| old.scheme.name() == name);
                let secret_sealed = match (v.secret, same_scheme) {
                    (Some(secret), _) => {
                        scheme.check_secret(&secret).map_err(|e| invalid("verification.secret", e.to_string()))?;
                        Some(self.secret_key.seal(&secret))
                    }
                    (None, true) => current.and_then(|c| c.secret_sealed.clone()),
                    (None, false) => return Err(invalid("verification.secret", "the scheme's signing secret")),
                };
                let custom = custom.map(|c| serde_json::to_string(&c).unwrap_or_default());
                (Some(name.as_str().to_owned()), custom, secret_sealed, tolerance_secs)
            }
            None => match current {
                Some(c) => (
                    c.inbox.verification.as_ref().map(|v| v.scheme.name().as_str().to_owned()),
                    c.inbox.verification.as_ref().and_then(|v| match &v.scheme {
                        Scheme::Custom(custom) => serde_json::to_string(custom).ok(),
                        _ => None,
                    }),
                    c.secret_sealed.clone(),
                    c.inbox
                        .verification
                        .as_ref()
                        .map_or(webhook_signatures::DEFAULT_TOLERANCE_SECS, |v| v.tolerance_secs),
                ),
                None => (None, None, None, webhook_signatures::DEFAULT_TOLERANCE_SECS),
            },
        };
        let (basic_username, basic_sealed) = match input.basic_auth {
            Some(None) => (None, None),
            Some(Some(basic)) => {
                let ok =
                    |s: &str| !s.is_empty() && s.chars().count() <= MAX_BASIC_CHARS && !s.chars().any(char::is_control);
                if !ok(&basic.username) || basic.username.contains(':') {
                    return Err(invalid(
                        "basic_auth.username",
                        format!("a user name of 1 to {MAX_BASIC_CHARS} characters without a colon"),
                    ));
                }
                let sealed = match basic.password {
                    Some(password) if ok(&password) => self.secret_key.seal(&password),
                    Some(_) => {
                        return Err(invalid(
                            "basic_auth.password",
                            format!("a password of 1 to {MAX_BASIC_CHARS} characters"),
                        ));
                    }
                    None => current
                        .and_then(|c| c.basic_sealed.clone())
                        .ok_or_else(|| invalid("basic_auth.password", "a password"))?,
                };
                (Some(basic.username), Some(sealed))
            }
            None => {
                (current.and_then(|c| c.inbox.basic_username.clone()), current.and_then(|c| c.basic_sealed.clone()))
            }
        };
        let allow_ips = match input.allow_ips {
            Some(list) => {
                if list.len() > MAX_ALLOW_IPS {
                    return Err(invalid("allow_ips", format!("at most {MAX_ALLOW_IPS} ranges")));
                }
                let mut out = Vec::with_capacity(list.len());
                for entry in list {
                    if parse_cidr(&entry).is_none() {
                        return Err(invalid(
                            "allow_ips",
                            format!(
                                "{entry:?} is not an IPv4 or IPv6 address or CIDR range (203.0.113.0/24, 2001:db8::/32)"
                            ),
                        ));
                    }
                    out.push(entry.trim().to_owned());
                }
                out
            }
            None => current.map(|c| c.inbox.allow_ips.clone()).unwrap_or_default(),
        };
        Ok(InboxRecord {
            name,
            project_id,
            state,
            scheme,
            custom,
            secret_sealed,
            tolerance_secs,
            basic_username,
            basic_sealed,
            allow_ips,
        })
    }

    pub async fn create_inbox(&self, principal: &Principal, input: InboxInput, source: Source) -> HubResult<Inbox> {
        let record = self.inbox_record(principal, input, None).await?;
        let id = new_inbox_id();
        let draft = AuditDraft::new(AuditAction::InboxCreated, "inbox", &id).meta("name", record.name.as_str());
        let audit = self.audit_row(&principal.user_id, principal.plan, &principal.user_id, source, draft);
        let limit = principal.plan.limits().max_inboxes;
        self.store.insert_inbox(&id, &principal.user_id, &record, limit, self.clock.now(), audit.as_ref()).await?;
        self.inbox(principal, &id).await
    }

    pub async fn inboxes(&self, principal: &Principal) -> HubResult<Vec<Inbox>> {
        Ok(self.store.inboxes_of(&principal.user_id).await?.into_iter().map(|s| s.inbox).collect())
    }

    /// The caller's own inbox, else 404.
    async fn own_inbox(&self, principal: &Principal, id: &str) -> HubResult<StoredInbox> {
        if !is_inbox_id(id) {
            return Err(HubError::not_found("inbox"));
        }
        match self.store.inbox(id).await? {
            Some(stored) if stored.inbox.account_id == principal.user_id => Ok(stored),
            _ => Err(HubError::not_found("inbox")),
        }
    }

    pub async fn inbox(&self, principal: &Principal, id: &str) -> HubResult<Inbox> {
        Ok(self.own_inbox(principal, id).await?.inbox)
    }

    pub async fn update_inbox(
        &self,
        principal: &Principal,
        id: &str,
        input: InboxInput,
        source: Source,
    ) -> HubResult<Inbox> {
        let current = self.own_inbox(principal, id).await?;
        let record = self.inbox_record(principal, input, Some(&current)).await?;
        let draft = AuditDraft::new(AuditAction::InboxUpdated, "inbox", id)
            .meta("name", record.name.as_str())
            .meta("state", record.state.as_str());
        let audit = self.audit_row(&principal.user_id, principal.plan, &principal.user_id, source, draft);
        self.store.update_inbox(id, &record, self.clock.now(), audit.as_ref()).await?;
        self.inbox(principal, id).await
    }

    pub async fn delete_inbox(&self, principal: &Principal, id: &str, source: Source) -> HubResult<()> {
        let current = self.own_inbox(principal, id).await?;
        let draft = AuditDraft::new(AuditAction::InboxDeleted, "inbox", id).meta("name", current.inbox.name.as_str());
        let audit = self.audit_row(&principal.user_id, principal.plan, &principal.user_id, source, draft);
        self.store.delete_inbox(id, audit.as_ref()).await
    }

    /// Newest first; `before` is a capture id to page from, `search` a
    /// text every listed capture's path, query, headers or body holds.
    pub async fn inbox_captures(
        &self,
        principal: &Principal,
        id: &str,
        limit: u32,
        before: Option<&str>,
        search: Option<&str>,
    ) -> HubResult<Vec<Capture>> {
        let stored = self.own_inbox(principal, id).await?;
        let (_, window_days) = capture_cap(stored.plan);
        let since = self.clock.now().as_millis() - i64::from(window_days) * 86_400_000;
        let search = search.map(str::trim).filter(|s| !s.is_empty());
        if search.is_some_and(|s| s.chars().count() > 200) {
            return Err(invalid("q", "a search of at most 200 characters"));
        }
        self.store.captures(id, since, limit.clamp(1, MAX_LIST), before, search).await
    }

    pub async fn inbox_capture(&self, principal: &Principal, id: &str, capture_id: &str) -> HubResult<Capture> {
        self.own_inbox(principal, id).await?;
        self.store.capture(id, capture_id).await?.ok_or_else(|| HubError::not_found("capture"))
    }

    /// One capture with what it is among the linked project's webhooks.
    pub async fn inbox_capture_event(
        &self,
        principal: &Principal,
        id: &str,
        capture_id: &str,
    ) -> HubResult<(Capture, Option<CaptureEvent>)> {
        let stored = self.own_inbox(principal, id).await?;
        let capture = self.store.capture(id, capture_id).await?.ok_or_else(|| HubError::not_found("capture"))?;
        let mut read = self.classify_captures(principal, &stored.inbox, vec![capture]).await?;
        read.pop().ok_or_else(|| HubError::Internal("a classified capture went missing".to_owned()))
    }

    /// Reads captures of `inbox` against the `webhooks` of its linked
    /// project's default version. Every event is `None` when the inbox is
    /// unlinked, the caller cannot see the project, it has no default
    /// version, or its description declares no webhook.
    pub async fn classify_captures(
        &self,
        principal: &Principal,
        inbox: &Inbox,
        captures: Vec<Capture>,
    ) -> HubResult<Vec<(Capture, Option<CaptureEvent>)>> {
        let Some((project, version, model)) = self.inbox_webhooks(principal, inbox).await? else {
            return Ok(captures.into_iter().map(|c| (c, None)).collect());
        };
        // Validation is CPU work (a description may declare hundreds of
        // webhooks): off the async workers, moving the captures rather than
        // copying their bodies.
        tokio::task::spawn_blocking(move || {
            captures
                .into_iter()
                .map(|capture| {
                    let received = mock::webhooks::Received {
                        method: &capture.method,
                        headers: &capture.headers,
                        body: &capture.body,
                    };
                    let found = model.classify(&received);
                    let event = CaptureEvent { project: project.clone(), version: version.clone(), found };
                    (capture, Some(event))
                })
                .collect()
        })
        .await
        .map_err(|e| HubError::Internal(format!("webhook matching failed: {e}")))
    }

    /// The linked project's slug, default version label and compiled
    /// webhooks, when there are any to match against.
    async fn inbox_webhooks(
        &self,
        principal: &Principal,
        inbox: &Inbox,
    ) -> HubResult<Option<(String, String, std::sync::Arc<mock::webhooks::WebhookModel>)>> {
        let Some(slug) = inbox.project_slug.as_deref() else { return Ok(None) };
        let found = match self.authorize_project(principal, slug, Action::ViewProject).await {
            Ok(found) => found,
            Err(HubError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some(version) = self.store.default_version(&found.project.id).await? else { return Ok(None) };
        if version.spec_format != spec::SpecFormat::OpenApi3.as_str() {
            return Ok(None);
        }
        let sha = version.spec_sha256.clone();
        let model = self
            .webhook_models
            .get_or_build(&sha, || async {
                let document =
                    self.blobs.get(&sha).await?.ok_or_else(|| HubError::Internal(format!("blob {sha} is missing")))?;
                let size = document.len();
                let limits = self.spec_limits.clone();
                let model = tokio::task::spawn_blocking(move || {
                    spec::parse_with(&document, &limits).map(|spec| mock::webhooks::WebhookModel::new(&spec))
                })
                .await
                .map_err(|e| HubError::Internal(format!("spec parser task failed: {e}")))?
                .map_err(HubError::InvalidSpec)?;
                Ok::<_, HubError>((model, size))
            })
            .await?;
        if model.is_empty() {
            return Ok(None);
        }
        Ok(Some((found.project.slug.clone(), version.label, model)))
    }

    /// Makes a capture of a project-linked inbox a mock override of that
    /// project in one step (see [`capture_override`]); editors of the
    /// project only, with the override's own limits and audit row.
    pub async fn capture_to_override(
        &self,
        principal: &Principal,
        id: &str,
        capture_id: &str,
        input: &CaptureOverrideInput,
        source: Source,
    ) -> HubResult<crate::mock::StoredOverride> {
        let (capture, slug) = self.linked_capture(principal, id, capture_id, "make mock overrides").await?;
        let body = capture_override(&capture, input)?;
        self.create_mock_override(principal, &slug, &body, source).await
    }

    /// A capture of the caller's inbox and the slug of the inbox's linked
    /// project (409, saying that the link is needed to do `what`, without one).
    async fn linked_capture(
        &self,
        principal: &Principal,
        id: &str,
        capture_id: &str,
        what: &str,
    ) -> HubResult<(Capture, String)> {
        let stored = self.own_inbox(principal, id).await?;
        let capture = self.store.capture(id, capture_id).await?.ok_or_else(|| HubError::not_found("capture"))?;
        let Some(slug) = stored.inbox.project_slug else {
            return Err(HubError::conflict(format!(
                "this inbox is not linked to a project: link one in its settings to {what}"
            )));
        };
        Ok((capture, slug))
    }

    /// Saves a capture of a project-linked inbox as a saved request of that
    /// project (Pro and up, editors): its method, sub-path and query after
    /// a `{{receiver}}` placeholder (the URL to send it to, from an
    /// environment), its headers less the connection's own, its body.
    pub async fn capture_to_request(
        &self,
        principal: &Principal,
        id: &str,
        capture_id: &str,
        source: Source,
    ) -> HubResult<crate::workbench::SavedRequest> {
        let (capture, slug) = self.linked_capture(principal, id, capture_id, "save captures as requests").await?;
        let input = capture_request(&capture)?;
        self.create_saved_request(principal, &slug, input, source).await
    }

    /// Removes every capture of the inbox; the ledger keeps counting them.
    pub async fn clear_inbox(&self, principal: &Principal, id: &str, source: Source) -> HubResult<u64> {
        let current = self.own_inbox(principal, id).await?;
        let draft = AuditDraft::new(AuditAction::InboxCleared, "inbox", id).meta("name", current.inbox.name.as_str());
        let audit = self.audit_row(&principal.user_id, principal.plan, &principal.user_id, source, draft);
        self.store.delete_captures(id, None, audit.as_ref()).await
    }

    /// Removes one capture; the ledger keeps counting it.
    pub async fn delete_capture(
        &self,
        principal: &Principal,
        id: &str,
        capture_id: &str,
        source: Source,
    ) -> HubResult<()> {
        self.own_inbox(principal, id).await?;
        let draft = AuditDraft::new(AuditAction::InboxCaptureDeleted, "inbox", id).meta("capture", capture_id);
        let audit = self.audit_row(&principal.user_id, principal.plan, &principal.user_id, source, draft);
        // The row is written only when a capture goes: a second DELETE
        // answers 404 and leaves no trace.
        match self.store.delete_captures(id, Some(capture_id), audit.as_ref()).await? {
            0 => Err(HubError::not_found("capture")),
            _ => Ok(()),
        }
    }

    /// Checks and stores one arrival. `Ok(Err(refusal))` when a check
    /// refused it (counted on the inbox, not stored).
    pub async fn capture(&self, inbox_id: &str, arrival: Arrival) -> HubResult<Result<Capture, Refusal>> {
        if !is_inbox_id(inbox_id) {
            return Ok(Err(Refusal::NotFound));
        }
        let Some(stored) = self.store.inbox(inbox_id).await? else { return Ok(Err(Refusal::NotFound)) };
        let now = self.clock.now();
        let refusal = self.check_arrival(&stored, &arrival, now);
        if let Some(refusal) = refusal {
            self.store.count_refusal(inbox_id).await?;
            return Ok(Err(refusal));
        }
        let capture = Capture {
            id: uuid::Uuid::now_v7().to_string(),
            inbox_id: inbox_id.to_owned(),
            received_at: now,
            method: arrival.method,
            path: arrival.path,
            query: arrival.query,
            headers: arrival.headers,
            body: arrival.body.to_vec(),
            source_ip: arrival.source_ip.to_string(),
            verified: stored.inbox.verification.as_ref().map(|_| true),
        };
        let (cap, window_days) = capture_cap(stored.plan);
        let window_ms = i64::from(window_days) * 86_400_000;
        let pending = PendingCapture { account_id: stored.inbox.account_id.clone(), capture, cap, window_ms };
        let writer = self.capture_writer.get_or_init(|| CaptureWriter::start(self.store.clone()));
        let (capture, outcome) = writer.write(pending).await?;
        match outcome {
            Ok(()) => Ok(Ok(capture)),
            Err(oldest_ms) => {
                self.store.count_refusal(inbox_id).await?;
                let retry_after_ms = (oldest_ms + window_ms - now.as_millis()).max(1000);
                Ok(Err(Refusal::OverCap {
                    limit: cap.unwrap_or(0),
                    window_days,
                    retry_after_secs: u64::try_from((retry_after_ms + 999) / 1000).unwrap_or(1),
                }))
            }
        }
    }

    fn check_arrival(&self, stored: &StoredInbox, arrival: &Arrival, now: Timestamp) -> Option<Refusal> {
        let inbox = &stored.inbox;
        if inbox.state == InboxState::Paused {
            return Some(Refusal::Paused);
        }
        if !address_allowed(&inbox.allow_ips, arrival.source_ip) {
            return Some(Refusal::AddressNotAllowed);
        }
        if let (Some(username), Some(sealed)) = (&inbox.basic_username, &stored.basic_sealed) {
            let Ok(password) = self.secret_key.open(sealed) else { return Some(Refusal::BasicAuthRequired) };
            if !basic_matches(arrival.headers.header("authorization"), username, &password) {
                return Some(Refusal::BasicAuthRequired);
            }
        }
        if let (Some(verification), Some(sealed)) = (&inbox.verification, &stored.secret_sealed) {
            let Ok(secret) = self.secret_key.open(sealed) else {
                return Some(Refusal::Signature(webhook_signatures::Refusal::Mismatch));
            };
            let now_secs = now.as_millis().div_euclid(1000);
            if let Err(refusal) = verification.scheme.verify(
                &secret,
                &arrival.headers,
                &arrival.body,
                now_secs,
                verification.tolerance_secs,
            ) {
                return Some(Refusal::Signature(refusal));
            }
        }
        None
    }

    /// Sends a capture again to `url` with its payload and headers,
    /// re-signed with the inbox's scheme and a fresh timestamp, through the
    /// outbound guard. Answers `(status, latency_ms, error)`.
    pub async fn replay_capture(
        &self,
        principal: &Principal,
        id: &str,
        capture_id: &str,
        url: &str,
    ) -> HubResult<(Option<u16>, i64, Option<String>)> {
        let stored = self.own_inbox(principal, id).await?;
        let capture = self.store.capture(id, capture_id).await?.ok_or_else(|| HubError::not_found("capture"))?;
        let url = self.check_replay_url(url)?;
        let secret = stored.secret_sealed.as_deref().and_then(|s| self.secret_key.open(s).ok());
        let scheme = stored.inbox.verification.as_ref().map(|v| &v.scheme);
        let headers = replay_headers(&capture, scheme, secret.as_deref(), self.clock.now().as_millis() / 1000);
        Ok(self.send_out(&capture.method, &url, &headers, capture.body.clone()).await)
    }

    /// Sends a test event signed HMAC-SHA256 in the payment processor's
    /// `Stripe-Signature: t=..,v1=..` format with the inbox's secret (or, for
    /// an inbox without one, unsigned) to `url`, by default the inbox itself.
    pub async fn send_inbox_test(
        &self,
        principal: &Principal,
        id: &str,
        url: Option<&str>,
    ) -> HubResult<(Option<u16>, i64, Option<String>)> {
        let stored = self.own_inbox(principal, id).await?;
        let now = self.clock.now();
        let body = test_event(id, now);
        let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
        if let Some(secret) = stored.secret_sealed.as_deref().and_then(|s| self.secret_key.open(s).ok()) {
            let signing = webhook_signatures::Signing { timestamp_secs: now.as_millis() / 1000, message_id: "" };
            headers.extend(Scheme::Stripe.sign(&secret, &body, signing));
        }
        match url {
            Some(url) => {
                let url = self.check_replay_url(url)?;
                Ok(self.send_out("POST", &url, &headers, body).await)
            }
            // The inbox itself: stored through the same checks as any
            // arrival, without a network round trip.
            None => {
                let arrival = Arrival {
                    method: "POST".into(),
                    path: "/".into(),
                    query: String::new(),
                    headers,
                    body: body.into(),
                    source_ip: IpAddr::from([127, 0, 0, 1]),
                };
                let started = std::time::Instant::now();
                let outcome = self.capture(id, arrival).await?;
                let latency = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
                Ok(match outcome {
                    Ok(_) => (Some(200), latency, None),
                    Err(refusal) => (None, latency, Some(format!("{refusal:?}"))),
                })
            }
        }
    }

    fn check_replay_url(&self, url: &str) -> HubResult<String> {
        let url = url.trim();
        let parsed = url::Url::parse(url).map_err(|_| invalid("url", "an absolute http or https URL"))?;
        if !matches!(parsed.scheme(), "http" | "https") || url.len() > 2048 {
            return Err(invalid("url", "an absolute http or https URL of at most 2,048 characters"));
        }
        self.webhooks.precheck(url).map_err(|e| invalid("url", e.to_string()))?;
        Ok(url.to_owned())
    }

    async fn send_out(
        &self,
        method: &str,
        url: &str,
        headers: &[(String, String)],
        body: Vec<u8>,
    ) -> (Option<u16>, i64, Option<String>) {
        let headers: Vec<(&str, String)> = headers.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
        let started = std::time::Instant::now();
        let client = self.webhooks.clone().with_max_response(1024);
        let result = client.send(method, url, &headers, body).await;
        let latency = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        match result {
            Ok(response) => (Some(response.status), latency, None),
            Err(err) => (None, latency, Some(err.to_string())),
        }
    }

    /// Removes captures older than their plan's window, and ledger rows
    /// older than the longest window.
    pub async fn prune_inboxes(&self) -> HubResult<u64> {
        let now = self.clock.now().as_millis();
        let windows: Vec<(Plan, i64)> =
            Plan::ALL.iter().map(|p| (*p, now - i64::from(capture_cap(*p).1) * 86_400_000)).collect();
        let ledger_cutoff = windows.iter().map(|(_, cutoff)| *cutoff).min().unwrap_or(now);
        self.store.prune_inboxes(&windows, ledger_cutoff).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(content_type: Option<&str>, body: &[u8]) -> Capture {
        Capture {
            id: "cap_1".into(),
            inbox_id: "ibx_1".into(),
            received_at: Timestamp::from_millis(0),
            method: "POST".into(),
            path: "/events".into(),
            query: String::new(),
            headers: content_type.map(|t| vec![("Content-Type".to_owned(), t.to_owned())]).unwrap_or_default(),
            body: body.to_vec(),
            source_ip: "192.0.2.1".into(),
            verified: None,
        }
    }

    #[test]
    fn captures_become_overrides_that_answer_their_body() {
        let json =
            capture_override(&captured(Some("application/json"), br#"{"n": 1}"#), &CaptureOverrideInput::default())
                .unwrap();
        assert_eq!(json["matcher"], json!({"method": "POST", "path": "/events"}));
        assert_eq!(json["response"]["body"], json!({"n": 1}), "JSON stays JSON");
        assert_eq!(json["response"]["headers"]["Content-Type"], "application/json");
        assert_eq!(json["name"], "From capture cap_1");

        let input = CaptureOverrideInput { method: Some("GET".into()), status: Some(201), ..Default::default() };
        let text = capture_override(&captured(Some("text/plain"), b"[1, 2]"), &input).unwrap();
        assert_eq!(text["response"]["body"], "[1, 2]", "text that parses as JSON is still text");
        assert_eq!((text["matcher"]["method"].as_str(), text["response"]["status"].as_u64()), (Some("GET"), Some(201)));

        let empty = capture_override(&captured(None, b""), &CaptureOverrideInput::default()).unwrap();
        assert_eq!(empty["response"]["body"], Value::Null);
        assert_eq!(empty["response"]["headers"], json!({}));

        let binary = capture_override(
            &captured(Some("application/octet-stream"), &[0xff, 0xfe]),
            &CaptureOverrideInput::default(),
        );
        assert!(matches!(binary, Err(HubError::InvalidField { .. })));
        // The override itself is checked where every override is.
        let spec: mock::overrides::OverrideSpec = serde_json::from_value(json).unwrap();
        assert_eq!(spec.validate(), Ok(()));
    }

    #[test]
    fn ids_are_unguessable_and_checked_by_shape() {
        let a = new_inbox_id();
        assert!(is_inbox_id(&a), "{a}");
        assert_ne!(a, new_inbox_id());
        assert!(!is_inbox_id("ibx_123"));
        assert!(!is_inbox_id("../etc"));
    }

    #[test]
    fn allowlists_take_addresses_and_ranges_of_both_families() {
        let list = vec!["203.0.113.0/24".to_owned(), "2001:db8::/32".to_owned(), "198.51.100.7".to_owned()];
        assert!(address_allowed(&list, "203.0.113.9".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(address_allowed(&list, "::ffff:203.0.113.9".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(address_allowed(&list, "2001:db8::1".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(address_allowed(&list, "198.51.100.7".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(!address_allowed(&list, "198.51.100.8".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(!address_allowed(&list, "2001:db9::1".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(address_allowed(&[], "192.0.2.1".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]))));
        assert!(parse_cidr("10.0.0.0/33").is_none());
        assert!(parse_cidr("example.com").is_none());
    }

    #[test]
    fn basic_credentials_must_match_exactly() {
        let header = format!("Basic {}", base64::engine::general_purpose::STANDARD.encode("ada:s3cret"));
        assert!(basic_matches(Some(&header), "ada", "s3cret"));
        assert!(!basic_matches(Some(&header), "ada", "s3cre"));
        assert!(!basic_matches(Some(&header), "bob", "s3cret"));
        assert!(!basic_matches(Some("Bearer x"), "ada", "s3cret"));
        assert!(!basic_matches(None, "ada", "s3cret"));
    }

    #[test]
    fn replays_drop_hop_headers_and_old_signatures_and_sign_afresh() {
        let capture = Capture {
            id: "c".into(),
            inbox_id: "i".into(),
            received_at: Timestamp::from_millis(0),
            method: "POST".into(),
            path: "/".into(),
            query: String::new(),
            headers: vec![
                ("Host".into(), "hub.example".into()),
                ("Content-Type".into(), "application/json".into()),
                ("Stripe-Signature".into(), "t=1,v1=00".into()),
                ("Content-Length".into(), "2".into()),
            ],
            body: b"{}".to_vec(),
            source_ip: "127.0.0.1".into(),
            verified: Some(true),
        };
        let headers = replay_headers(&capture, Some(&Scheme::Stripe), Some("whsec_x"), 1_700_000_000);
        let names: Vec<&str> = headers.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["Content-Type", "Stripe-Signature"]);
        assert_eq!(Scheme::Stripe.verify("whsec_x", &headers, b"{}", 1_700_000_000, 300), Ok(()));
    }
}
