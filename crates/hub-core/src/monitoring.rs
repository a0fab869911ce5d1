//! Uptime monitoring per operation and the status pages that show it (Pro
//! and up).
//!
//! Every operation of a pushed version has a monitor row, unmonitored until
//! someone turns it on. A round probes every monitored operation once: the
//! request is planned from the description (base URL, path parameters and
//! required query parameters from its examples or the values the user set,
//! the credentials of its security schemes, a described example body), sent
//! through the outbound guard, and judged against the operation's response
//! schema with the mock's validator. A GraphQL version has one monitor: an
//! introspection query.
//!
//! Rounds run every [`DEFAULT_INTERVAL_SECS`] on exactly one node (the
//! leased scheduler's slot), or on demand through `/api/cron/uptime`. A round
//! is bounded: [`ROUND_CONCURRENCY`] probes at once, [`PER_ORIGIN`] per
//! origin (so a round never floods one API), each within [`PROBE_TIMEOUT`].
//!
//! The status page, its JSON, the dashboard's view and the API all read
//! [`Hub::monitor_status`] or [`Hub::list_monitors`], which share the same
//! aggregation ([`summarise`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt as _;
use kernel::Timestamp;
use mock::schema::SchemaSet;
use platform::outbound::{OutboundError, OutboundResponse};
use serde_json::{Value, json};
use spec::{ApiKeyLocation, Operation, ParameterLocation, SecuritySchemeKind, Spec, SpecFormat};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, ProjectAccess, Source, Version};
use crate::plans::{Feature, Plan};
use crate::roles::Action;

/// The seed's probe interval; `HUB_PROBE_INTERVAL_SECS` changes it.
pub const DEFAULT_INTERVAL_SECS: u64 = 600;
/// A probe's whole budget (connect, send, read), well under the interval.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// Probes of one round in flight at once, across all origins.
pub const ROUND_CONCURRENCY: usize = 64;
/// Probes in flight at once to one origin (scheme, host and port).
pub const PER_ORIGIN: usize = 4;
/// Bytes of a probe's answer read; a longer body is judged on this much
/// (and its schema is not judged: `schema_valid` is unknown).
pub const MAX_PROBE_BODY: usize = 1024 * 1024;
/// Bytes of the answer kept with the check (the seed's 1 KB).
pub const SNIPPET_BYTES: usize = 1024;
/// Days a check is kept.
pub const CHECK_RETENTION_DAYS: i64 = 14;
/// The status page's rolling window.
pub const UPTIME_WINDOW_MS: i64 = 24 * 60 * 60 * 1000;
/// Segments of a row's bar at most: a day of checks at the seed's interval.
pub const MAX_SEGMENTS: usize = 144;
/// Checks listed by the API at most per page.
pub const MAX_CHECKS_PAGE: u32 = 100;
/// The hour and minute of the daily prune, UTC.
pub const PRUNE_AT_UTC: (u32, u32) = (3, 41);
/// The path of a GraphQL version's one monitor (its base URL itself).
pub const GRAPHQL_PATH: &str = "";
/// The introspection query a GraphQL probe sends.
pub const INTROSPECTION_QUERY: &str = "query UptimeProbe { __schema { queryType { name } } }";
/// The probes' `User-Agent`.
pub const USER_AGENT: &str = "svc-hub-uptime/1";

const MAX_VALUE_CHARS: usize = 1024;
const MAX_VALUES: usize = 50;
const MAX_CREDENTIAL_CHARS: usize = 4096;
const MAX_SCHEME_CHARS: usize = 128;

/// What one check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CheckState {
    /// A 2xx whose body fits the operation's response schema (or has none).
    Up,
    /// A 3xx, 4xx or 5xx, or a 2xx whose body breaks the schema.
    Degraded,
    /// No response: DNS, connect, TLS, timeout, refused by the guard, or a
    /// probe that could not be planned.
    Down,
}

impl CheckState {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Degraded => "degraded",
            Self::Down => "down",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "up" => Some(Self::Up),
            "degraded" => Some(Self::Degraded),
            "down" => Some(Self::Down),
            _ => None,
        }
    }
}

/// A row's state: its last check's, or `None` before the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowState {
    Checked(CheckState),
    None,
}

impl RowState {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Checked(state) => state.as_str(),
            Self::None => "none",
        }
    }

    /// Words for people (the colour is never the only signal).
    pub const fn label(self) -> &'static str {
        match self {
            Self::Checked(CheckState::Up) => "Operational",
            Self::Checked(CheckState::Degraded) => "Degraded",
            Self::Checked(CheckState::Down) => "Down",
            Self::None => "Not checked yet",
        }
    }
}

/// A monitor as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Monitor {
    pub id: String,
    pub project_id: String,
    pub version_id: String,
    pub method: String,
    pub path: String,
    pub operation_id: Option<String>,
    pub monitored: bool,
    /// Values the user set for path parameters (they win over examples).
    pub path_params: BTreeMap<String, String>,
    /// Query parameters the user set (sent with the required ones).
    pub query: BTreeMap<String, String>,
    pub updated_at: Timestamp,
}

/// One probe's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    pub checked_at: Timestamp,
    pub state: CheckState,
    /// `None` without a response.
    pub status_code: Option<u16>,
    pub latency_ms: i64,
    /// The first bytes of the body, at most [`SNIPPET_BYTES`].
    pub snippet: String,
    /// The error's class and message when there was no response.
    pub error: Option<String>,
    /// Whether a 2xx body matched the response schema; `None` when there was
    /// no 2xx, no schema, or too much body to judge.
    pub schema_valid: Option<bool>,
}

/// One segment of a row's bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub checked_at: Timestamp,
    pub state: CheckState,
}

/// A monitor with what its checks say.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorRow {
    pub monitor: Monitor,
    pub state: RowState,
    pub last_checked_at: Option<Timestamp>,
    pub latency_ms: Option<i64>,
    /// The share of `up` checks over the last 24 hours, in per cent to one
    /// decimal; `None` without a check in that window.
    pub uptime_24h: Option<f64>,
    /// The window's checks, oldest first, at most [`MAX_SEGMENTS`].
    pub segments: Vec<Segment>,
}

/// A version's status, as the status page, its JSON and the dashboard show it.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusView {
    pub project_slug: String,
    pub project_name: String,
    pub is_public: bool,
    pub version: String,
    /// Labels of the versions with a status, the default first.
    pub versions: Vec<String>,
    pub default_version: Option<String>,
    pub overall: RowState,
    /// Monitored operations only, in the description's order.
    pub rows: Vec<MonitorRow>,
    pub generated_at: Timestamp,
    pub interval_secs: u64,
}

/// A change to one monitor; `None` keeps a field.
#[derive(Clone, Debug, Default)]
pub struct MonitorPatch {
    pub monitored: Option<bool>,
    pub path_params: Option<BTreeMap<String, String>>,
    pub query: Option<BTreeMap<String, String>>,
}

/// A security scheme of the description and whether a credential is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CredentialSlot {
    pub scheme: String,
    /// `apiKey (header X-Key)`, `http bearer`, `oauth2`...
    pub kind: String,
    pub set: bool,
}

/// A monitored operation ready for a round: the monitor and where its
/// version and project keep what the probe needs.
#[derive(Clone, Debug)]
pub struct Target {
    pub monitor: Monitor,
    pub spec_sha256: String,
    pub version_base_url: Option<String>,
    pub project_base_url: Option<String>,
}

/// An operation of a description as a monitor row: (method, path, operation id).
pub type OperationKey = (String, String, Option<String>);

/// The monitors a description has: one per operation, or one introspection
/// probe for GraphQL.
pub fn operations_of(spec: &Spec) -> Vec<OperationKey> {
    if spec.format == SpecFormat::GraphQl {
        return vec![("POST".to_owned(), GRAPHQL_PATH.to_owned(), Some("introspection".to_owned()))];
    }
    let mut seen = std::collections::HashSet::new();
    spec.operations
        .iter()
        .filter(|op| seen.insert((op.method.as_str(), op.path.as_str())))
        .map(|op| (op.method.as_str().to_owned(), op.path.clone(), op.operation_id.clone()))
        .collect()
}

/// The request a probe sends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Why a probe could not be planned (recorded as a `down` check with the
/// class `config`, so the owner sees what to set).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError(pub String);

/// The base URL a version's probes go to: the version's, else the
/// project's, else the description's first absolute server.
pub fn probe_base(version_base: Option<&str>, project_base: Option<&str>, spec: &Spec) -> Option<String> {
    let chosen = version_base.or(project_base).map(str::to_owned).or_else(|| {
        spec.servers.first().map(|server| {
            let mut url = server.url.clone();
            for (name, variable) in &server.variables {
                url = url.replace(&format!("{{{name}}}"), &variable.default);
            }
            url
        })
    })?;
    let parsed = url::Url::parse(&chosen).ok()?;
    matches!(parsed.scheme(), "http" | "https").then(|| chosen.trim_end_matches('/').to_owned())
}

/// The first value the description gives for a parameter: its example, its
/// first named example, the schema's example, first example, default or
/// first enum value.
fn described_value(spec: &Spec, parameter: &spec::Parameter) -> Option<Value> {
    if let Some(example) = &parameter.example {
        return Some(example.clone());
    }
    if let Some(value) = parameter.examples.values().find_map(|e| e.value.clone()) {
        return Some(value);
    }
    let schema = parameter.schema.as_ref().and_then(|s| spec.resolve_value(s))?;
    schema
        .get("example")
        .cloned()
        .or_else(|| schema.get("examples").and_then(Value::as_array).and_then(|a| a.first()).cloned())
        .or_else(|| schema.get("default").cloned())
        .or_else(|| schema.get("enum").and_then(Value::as_array).and_then(|a| a.first()).cloned())
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

/// Plans the request of one monitor. `credentials` maps scheme names to
/// stored values.
pub fn plan_probe(
    spec: &Spec,
    monitor: &Monitor,
    base: Option<&str>,
    credentials: &HashMap<String, String>,
) -> Result<ProbeRequest, PlanError> {
    let base = base.ok_or_else(|| {
        PlanError("no base URL: set the version's or the project's base URL, or a server in the description".to_owned())
    })?;
    let mut headers = vec![
        ("user-agent".to_owned(), USER_AGENT.to_owned()),
        ("accept".to_owned(), "application/json, */*;q=0.5".to_owned()),
    ];
    if spec.format == SpecFormat::GraphQl {
        headers.push(("content-type".to_owned(), "application/json".to_owned()));
        let body = json!({ "query": INTROSPECTION_QUERY }).to_string().into_bytes();
        let mut url = base.to_owned();
        append_query(&mut url, &monitor.query);
        apply_credentials(spec, &spec.security, credentials, &mut headers, &mut url);
        return Ok(ProbeRequest { method: "POST".to_owned(), url, headers, body });
    }
    let operation = spec
        .operations
        .iter()
        .find(|op| op.method.as_str() == monitor.method && op.path == monitor.path)
        .ok_or_else(|| PlanError("the operation is no longer in the description".to_owned()))?;
    let mut path = String::with_capacity(operation.path.len());
    let mut rest = operation.path.as_str();
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else { break };
        path.push_str(&rest[..open]);
        let name = &rest[open + 1..close];
        let value = monitor.path_params.get(name).cloned().or_else(|| {
            operation
                .parameters
                .iter()
                .find(|p| p.location == ParameterLocation::Path && p.name == name)
                .and_then(|p| described_value(spec, p))
                .map(|v| value_text(&v))
        });
        let Some(value) = value.filter(|v| !v.is_empty()) else {
            return Err(PlanError(format!(
                "the path parameter {name} has no example in the description: set a value for it"
            )));
        };
        path.push_str(&percent_encode_segment(&value));
        rest = &rest[close + 1..];
    }
    path.push_str(rest);
    let mut url = format!("{base}{path}");
    let mut query: BTreeMap<String, String> = BTreeMap::new();
    for parameter in operation.parameters.iter().filter(|p| p.required) {
        match parameter.location {
            ParameterLocation::Query if !monitor.query.contains_key(&parameter.name) => {
                let value = described_value(spec, parameter).ok_or_else(|| {
                    PlanError(format!(
                        "the query parameter {} is required and has no example in the description: set a value for it",
                        parameter.name
                    ))
                })?;
                query.insert(parameter.name.clone(), value_text(&value));
            }
            ParameterLocation::Header => {
                if let Some(value) = described_value(spec, parameter) {
                    headers.push((parameter.name.to_ascii_lowercase(), value_text(&value)));
                }
            }
            _ => {}
        }
    }
    query.extend(monitor.query.iter().map(|(k, v)| (k.clone(), v.clone())));
    append_query(&mut url, &query);
    apply_credentials(spec, spec.effective_security(operation), credentials, &mut headers, &mut url);
    let body = example_body(operation).map_or_else(Vec::new, |(media, body)| {
        headers.push(("content-type".to_owned(), media));
        body
    });
    Ok(ProbeRequest { method: monitor.method.clone(), url, headers, body })
}

/// The request body the description gives an example of, if any.
fn example_body(operation: &Operation) -> Option<(String, Vec<u8>)> {
    let body = operation.request_body.as_ref()?;
    body.content.iter().find_map(|(media, content)| {
        let example = content.example.clone().or_else(|| content.examples.values().find_map(|e| e.value.clone()))?;
        let bytes = match &example {
            Value::String(text) if !media.contains("json") => text.clone().into_bytes(),
            other => other.to_string().into_bytes(),
        };
        Some((media.clone(), bytes))
    })
}

fn append_query(url: &mut String, query: &BTreeMap<String, String>) {
    if query.is_empty() {
        return;
    }
    let encoded: String = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(query.iter()).finish();
    url.push(if url.contains('?') { '&' } else { '?' });
    url.push_str(&encoded);
}

/// Percent-encodes a path segment (RFC 3986's unreserved characters stay).
fn percent_encode_segment(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Adds the credentials of the first security requirement whose schemes
/// all have a stored value; without one the probe goes unauthenticated
/// (and a 401 shows as degraded, which tells the owner what is missing).
fn apply_credentials(
    spec: &Spec,
    requirements: &[spec::SecurityRequirement],
    credentials: &HashMap<String, String>,
    headers: &mut Vec<(String, String)>,
    url: &mut String,
) {
    let Some(requirement) = requirements
        .iter()
        .find(|r| !r.schemes.is_empty() && r.schemes.keys().all(|name| credentials.contains_key(name)))
    else {
        return;
    };
    for name in requirement.schemes.keys() {
        let (Some(value), Some(scheme)) = (credentials.get(name), spec.security_schemes.get(name)) else { continue };
        match &scheme.kind {
            SecuritySchemeKind::ApiKey { name: key, location } => match location {
                ApiKeyLocation::Header => headers.push((key.to_ascii_lowercase(), value.clone())),
                ApiKeyLocation::Query => {
                    let mut one = BTreeMap::new();
                    one.insert(key.clone(), value.clone());
                    append_query(url, &one);
                }
                ApiKeyLocation::Cookie => headers.push(("cookie".to_owned(), format!("{key}={value}"))),
            },
            SecuritySchemeKind::Http { scheme, .. } if scheme == "basic" => {
                use base64::Engine as _;
                let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
                headers.push(("authorization".to_owned(), format!("Basic {encoded}")));
            }
            SecuritySchemeKind::Http { scheme, .. } if scheme != "bearer" => {
                headers.push(("authorization".to_owned(), format!("{scheme} {value}")));
            }
            SecuritySchemeKind::Http { .. }
            | SecuritySchemeKind::OAuth2 { .. }
            | SecuritySchemeKind::OpenIdConnect { .. } => {
                headers.push(("authorization".to_owned(), format!("Bearer {value}")));
            }
            SecuritySchemeKind::MutualTls => {}
        }
    }
}

/// How a scheme is described to the person who sets its credential.
pub fn scheme_kind(kind: &SecuritySchemeKind) -> String {
    match kind {
        SecuritySchemeKind::ApiKey { name, location } => {
            let place = match location {
                ApiKeyLocation::Header => "header",
                ApiKeyLocation::Query => "query",
                ApiKeyLocation::Cookie => "cookie",
            };
            format!("API key in {place} {name}")
        }
        SecuritySchemeKind::Http { scheme, .. } if scheme == "basic" => "HTTP Basic (user:password)".to_owned(),
        SecuritySchemeKind::Http { scheme, .. } => format!("HTTP {scheme} token"),
        SecuritySchemeKind::OAuth2 { .. } => "OAuth 2 access token".to_owned(),
        SecuritySchemeKind::OpenIdConnect { .. } => "OpenID Connect access token".to_owned(),
        SecuritySchemeKind::MutualTls => "mutual TLS (not supported by probes)".to_owned(),
    }
}

/// The schema a 2xx answer with `status` should match: the exact status,
/// then `2XX`, then `default`; its JSON media type's schema.
fn response_schema(operation: &Operation, status: u16) -> Option<&Value> {
    let exact = status.to_string();
    let response = operation
        .responses
        .get(&exact)
        .or_else(|| operation.responses.get("2XX"))
        .or_else(|| operation.responses.get("2xx"))
        .or_else(|| operation.responses.get("default"))?;
    response.content.iter().find(|(media, _)| media.contains("json")).and_then(|(_, content)| content.schema.as_ref())
}

/// The first [`SNIPPET_BYTES`] of a body as text, cut on a character
/// boundary.
pub fn snippet(body: &[u8]) -> String {
    let head = body.get(..SNIPPET_BYTES).unwrap_or(body);
    let mut text = String::from_utf8_lossy(head).into_owned();
    if text.len() > SNIPPET_BYTES {
        let mut end = SNIPPET_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    // A multi-byte character cut by the limit shows as one replacement
    // character at the end; drop it.
    if head.len() == SNIPPET_BYTES && body.len() > SNIPPET_BYTES && text.ends_with('\u{fffd}') {
        text.pop();
    }
    text
}

/// Judges one answer (or its absence).
pub fn judge(
    spec: &Spec,
    schemas: &SchemaSet,
    monitor: &Monitor,
    outcome: Result<&OutboundResponse, &OutboundError>,
    latency_ms: i64,
    checked_at: Timestamp,
) -> Check {
    let response = match outcome {
        Ok(response) => response,
        Err(error) => {
            return Check {
                checked_at,
                state: CheckState::Down,
                status_code: None,
                latency_ms,
                snippet: String::new(),
                error: Some(format!("{}: {error}", error.class())),
                schema_valid: None,
            };
        }
    };
    let status = response.status;
    let snippet = snippet(&response.body);
    if !(200..300).contains(&status) {
        return Check {
            checked_at,
            state: CheckState::Degraded,
            status_code: Some(status),
            latency_ms,
            snippet,
            error: None,
            schema_valid: None,
        };
    }
    let schema_valid = if response.truncated {
        None
    } else if spec.format == SpecFormat::GraphQl {
        let parsed: Option<Value> = serde_json::from_slice(&response.body).ok();
        Some(parsed.as_ref().and_then(|v| v.pointer("/data/__schema")).is_some_and(Value::is_object))
    } else {
        spec.operations
            .iter()
            .find(|op| op.method.as_str() == monitor.method && op.path == monitor.path)
            .and_then(|op| response_schema(op, status))
            .and_then(|schema| schemas.validator(spec, schema))
            .map(|validator| {
                serde_json::from_slice::<Value>(&response.body).is_ok_and(|body| validator.is_valid(&body))
            })
    };
    Check {
        checked_at,
        state: if schema_valid == Some(false) { CheckState::Degraded } else { CheckState::Up },
        status_code: Some(status),
        latency_ms,
        snippet,
        error: None,
        schema_valid,
    }
}

/// A check for a probe that could not be planned.
pub fn unplanned(error: &PlanError, checked_at: Timestamp) -> Check {
    Check {
        checked_at,
        state: CheckState::Down,
        status_code: None,
        latency_ms: 0,
        snippet: String::new(),
        error: Some(format!("config: {}", error.0)),
        schema_valid: None,
    }
}

/// The share of `up` among `segments`, in per cent rounded to one decimal.
pub fn uptime(segments: &[Segment]) -> Option<f64> {
    if segments.is_empty() {
        return None;
    }
    let up = segments.iter().filter(|s| s.state == CheckState::Up).count();
    #[allow(clippy::cast_precision_loss)] // counts of a day's checks
    let share = up as f64 * 100.0 / segments.len() as f64;
    Some((share * 10.0).round() / 10.0)
}

/// A monitor and its checks (the latest overall, and the window's, oldest
/// first) as a row.
pub fn summarise(monitor: Monitor, latest: Option<&Check>, window: &[Segment]) -> MonitorRow {
    let segments = window.get(window.len().saturating_sub(MAX_SEGMENTS)..).unwrap_or_default().to_vec();
    MonitorRow {
        monitor,
        state: latest.map_or(RowState::None, |c| RowState::Checked(c.state)),
        last_checked_at: latest.map(|c| c.checked_at),
        latency_ms: latest.map(|c| c.latency_ms),
        uptime_24h: uptime(window),
        segments,
    }
}

/// The banner's state: `none` without a checked row; `down` when every
/// checked row is down; `degraded` when any is degraded or down; else `up`.
pub fn overall(rows: &[MonitorRow]) -> RowState {
    let states: Vec<CheckState> = rows
        .iter()
        .filter_map(|r| match r.state {
            RowState::Checked(state) => Some(state),
            RowState::None => None,
        })
        .collect();
    if states.is_empty() {
        RowState::None
    } else if states.iter().all(|s| *s == CheckState::Down) {
        RowState::Checked(CheckState::Down)
    } else if states.iter().any(|s| *s != CheckState::Up) {
        RowState::Checked(CheckState::Degraded)
    } else {
        RowState::Checked(CheckState::Up)
    }
}

/// The banner's words.
pub const fn overall_label(state: RowState) -> &'static str {
    match state {
        RowState::Checked(CheckState::Up) => "All monitored operations are operational",
        RowState::Checked(CheckState::Degraded) => "Some operations are degraded or down",
        RowState::Checked(CheckState::Down) => "All monitored operations are down",
        RowState::None => "No checks yet",
    }
}

fn check_values(field: &'static str, values: &BTreeMap<String, String>) -> HubResult<()> {
    if values.len() > MAX_VALUES {
        return Err(HubError::validation(field, format!("at most {MAX_VALUES} values")));
    }
    for (name, value) in values {
        if name.is_empty() || name.chars().count() > 128 || name.chars().any(char::is_control) {
            return Err(HubError::validation(field, "names are 1 to 128 characters without control characters"));
        }
        if value.chars().count() > MAX_VALUE_CHARS || value.chars().any(char::is_control) {
            return Err(HubError::validation(
                field,
                format!("values are at most {MAX_VALUE_CHARS} characters without control characters"),
            ));
        }
    }
    Ok(())
}

/// The monitor's row as the API shows it.
pub fn monitor_json(row: &MonitorRow) -> Value {
    json!({
        "id": row.monitor.id,
        "method": row.monitor.method,
        "path": row.monitor.path,
        "operation_id": row.monitor.operation_id,
        "monitored": row.monitor.monitored,
        "state": row.state.as_str(),
        "last_checked_at": row.last_checked_at.map(Timestamp::to_rfc3339),
        "latency_ms": row.latency_ms,
        "uptime_24h": row.uptime_24h,
        "path_params": row.monitor.path_params,
        "query": row.monitor.query,
    })
}

/// A check as the API shows it.
pub fn check_json(check: &Check) -> Value {
    json!({
        "checked_at": check.checked_at.to_rfc3339(),
        "state": check.state.as_str(),
        "status_code": check.status_code,
        "latency_ms": check.latency_ms,
        "snippet": check.snippet,
        "error": check.error,
        "schema_valid": check.schema_valid,
    })
}

/// The status page as JSON (the seed's shape, segments oldest first).
pub fn status_json(view: &StatusView) -> Value {
    json!({
        "project": { "slug": view.project_slug, "name": view.project_name },
        "version": view.version,
        "versions": view.versions,
        "overall": view.overall.as_str(),
        "generated_at": view.generated_at.to_rfc3339(),
        "interval_secs": view.interval_secs,
        "rows": view.rows.iter().map(|row| json!({
            "method": row.monitor.method,
            "path": row.monitor.path,
            "operation_id": row.monitor.operation_id,
            "state": row.state.as_str(),
            "last_checked_at": row.last_checked_at.map(Timestamp::to_rfc3339),
            "latency_ms": row.latency_ms,
            "uptime_24h": row.uptime_24h,
            "segments": row.segments.iter().map(|s| json!({
                "checked_at": s.checked_at.to_rfc3339(),
                "state": s.state.as_str(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// A probe planned for a round.
struct Planned {
    monitor: Monitor,
    version: Arc<(Spec, SchemaSet)>,
    request: Result<ProbeRequest, PlanError>,
}

impl Hub {
    /// The project and its owner's plan gate for monitoring (402 below Pro).
    async fn monitoring_project(&self, principal: &Principal, slug: &str, action: Action) -> HubResult<ProjectAccess> {
        let found = self.authorize_project(principal, slug, action).await?;
        if !found.owner_plan.allows(Feature::Monitoring) {
            return Err(HubError::PlanRequired { feature: Feature::Monitoring, current: found.owner_plan });
        }
        Ok(found)
    }

    /// The version named by `label`, or the default one.
    async fn monitored_version(&self, project_id: &str, label: Option<&str>) -> HubResult<Version> {
        let version = match label.filter(|l| !l.is_empty()) {
            Some(label) => self.store.version(project_id, label, self.clock.now()).await?,
            None => self.store.default_version(project_id).await?,
        };
        version.ok_or(HubError::not_found("version"))
    }

    /// Parses a version's stored description off the async workers.
    async fn parsed_description(&self, sha256: &str) -> HubResult<Spec> {
        let document =
            self.blobs.get(sha256).await?.ok_or_else(|| HubError::Internal(format!("blob {sha256} is missing")))?;
        let limits = self.spec_limits.clone();
        tokio::task::spawn_blocking(move || spec::parse_with(&document, &limits))
            .await
            .map_err(|e| HubError::Internal(format!("spec parser task failed: {e}")))?
            .map_err(HubError::InvalidSpec)
    }

    /// Writes the monitor rows of a pushed version (new operations arrive
    /// unmonitored; operations gone from the description go).
    pub(crate) async fn sync_monitors(&self, version: &Version, spec: &Spec) -> HubResult<()> {
        self.store.sync_monitors(&version.project_id, &version.id, &operations_of(spec), self.clock.now()).await
    }

    /// Rows of versions stored before monitoring existed are written on
    /// first read.
    async fn ensure_monitors(&self, version: &Version) -> HubResult<()> {
        if version.operation_count > 0 && self.store.monitor_count(&version.id).await? == 0 {
            let spec = self.parsed_description(&version.spec_sha256).await?;
            self.sync_monitors(version, &spec).await?;
        }
        Ok(())
    }

    /// Every operation of a version with its monitor state (Pro and up).
    pub async fn list_monitors(
        &self,
        principal: &Principal,
        slug: &str,
        label: Option<&str>,
    ) -> HubResult<(Version, Vec<MonitorRow>)> {
        let found = self.monitoring_project(principal, slug, Action::ViewProject).await?;
        let version = self.monitored_version(&found.project.id, label).await?;
        self.ensure_monitors(&version).await?;
        let rows = self.monitor_rows(&version.id, false).await?;
        Ok((version, rows))
    }

    async fn monitor_rows(&self, version_id: &str, monitored_only: bool) -> HubResult<Vec<MonitorRow>> {
        let now = self.clock.now();
        let monitors = self.store.monitors_of_version(version_id, monitored_only).await?;
        let latest = self.store.latest_checks(version_id).await?;
        let window = self.store.window_segments(version_id, now.plus_millis(-UPTIME_WINDOW_MS)).await?;
        Ok(monitors
            .into_iter()
            .map(|monitor| {
                let segments = window.get(&monitor.id).map_or(&[][..], Vec::as_slice);
                let last = latest.get(&monitor.id);
                summarise(monitor, last, segments)
            })
            .collect())
    }

    /// One monitor of the caller's project.
    async fn project_monitor(&self, found: &ProjectAccess, id: &str) -> HubResult<Monitor> {
        self.store.monitor(id).await?.filter(|m| m.project_id == found.project.id).ok_or(HubError::not_found("monitor"))
    }

    /// Turns a monitor on or off and sets its probe's values (editors).
    pub async fn update_monitor(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        patch: MonitorPatch,
        source: Source,
    ) -> HubResult<MonitorRow> {
        let found = self.monitoring_project(principal, slug, Action::ManageMonitors).await?;
        let mut monitor = self.project_monitor(&found, id).await?;
        let mut fields = Vec::new();
        if let Some(values) = patch.path_params {
            check_values("path_params", &values)?;
            if values != monitor.path_params {
                fields.push("path_params");
            }
            monitor.path_params = values;
        }
        if let Some(values) = patch.query {
            check_values("query", &values)?;
            if values != monitor.query {
                fields.push("query");
            }
            monitor.query = values;
        }
        let action = match patch.monitored {
            Some(on) if on != monitor.monitored => {
                monitor.monitored = on;
                Some(if on { AuditAction::MonitorEnabled } else { AuditAction::MonitorDisabled })
            }
            _ => (!fields.is_empty()).then_some(AuditAction::MonitorUpdated),
        };
        monitor.updated_at = self.clock.now();
        let audit = action.and_then(|action| {
            let draft = AuditDraft::new(action, "monitor", &monitor.id)
                .project(&found.project.id)
                .meta("method", monitor.method.as_str())
                .meta("path", monitor.path.as_str())
                .meta("fields", fields.clone());
            self.audit_row(&found.project.owner_id, found.owner_plan, &principal.user_id, source, draft)
        });
        self.store.update_monitor(&monitor, audit.as_ref()).await?;
        let rows = self.monitor_rows(&monitor.version_id, false).await?;
        rows.into_iter().find(|r| r.monitor.id == monitor.id).ok_or(HubError::not_found("monitor"))
    }

    /// One monitor's checks, newest first.
    pub async fn monitor_checks(
        &self,
        principal: &Principal,
        slug: &str,
        id: &str,
        limit: u32,
    ) -> HubResult<(MonitorRow, Vec<Check>)> {
        let found = self.monitoring_project(principal, slug, Action::ViewProject).await?;
        let monitor = self.project_monitor(&found, id).await?;
        let checks = self.store.checks_of(&monitor.id, limit.clamp(1, MAX_CHECKS_PAGE)).await?;
        let rows = self.monitor_rows(&monitor.version_id, false).await?;
        let row = rows.into_iter().find(|r| r.monitor.id == monitor.id).ok_or(HubError::not_found("monitor"))?;
        Ok((row, checks))
    }

    /// The description's security schemes (of `label`, else the default
    /// version) and which have a stored credential; values never leave.
    pub async fn monitor_credentials(
        &self,
        principal: &Principal,
        slug: &str,
        label: Option<&str>,
    ) -> HubResult<Vec<CredentialSlot>> {
        let found = self.monitoring_project(principal, slug, Action::ViewProject).await?;
        let version = self.monitored_version(&found.project.id, label).await?;
        let spec = self.parsed_description(&version.spec_sha256).await?;
        let stored = self.store.credential_names(&found.project.id).await?;
        let mut slots: Vec<CredentialSlot> = spec
            .security_schemes
            .iter()
            .map(|(name, scheme)| CredentialSlot {
                scheme: name.clone(),
                kind: scheme_kind(&scheme.kind),
                set: stored.contains(name),
            })
            .collect();
        for name in stored {
            if !slots.iter().any(|s| s.scheme == name) {
                slots.push(CredentialSlot { scheme: name, kind: "not in this version".to_owned(), set: true });
            }
        }
        Ok(slots)
    }

    /// Stores (sealed) or clears the credential probes send for a scheme.
    pub async fn set_monitor_credential(
        &self,
        principal: &Principal,
        slug: &str,
        scheme: &str,
        value: Option<&str>,
        source: Source,
    ) -> HubResult<()> {
        let found = self.monitoring_project(principal, slug, Action::ManageMonitors).await?;
        if scheme.is_empty() || scheme.chars().count() > MAX_SCHEME_CHARS || scheme.chars().any(char::is_control) {
            return Err(HubError::validation("scheme", format!("a scheme name of 1 to {MAX_SCHEME_CHARS} characters")));
        }
        let sealed = match value {
            Some(value) => {
                if value.is_empty()
                    || value.chars().count() > MAX_CREDENTIAL_CHARS
                    || value.chars().any(|c| c == '\r' || c == '\n')
                {
                    return Err(HubError::validation(
                        "value",
                        format!("a credential of 1 to {MAX_CREDENTIAL_CHARS} characters on one line"),
                    ));
                }
                Some(self.secret_key.seal(value))
            }
            None => None,
        };
        let action =
            if sealed.is_some() { AuditAction::MonitorCredentialSet } else { AuditAction::MonitorCredentialCleared };
        let draft =
            AuditDraft::new(action, "monitor_credential", scheme).project(&found.project.id).meta("scheme", scheme);
        let audit = self.audit_row(&found.project.owner_id, found.owner_plan, &principal.user_id, source, draft);
        let changed = self
            .store
            .set_credential(&found.project.id, scheme, sealed.as_deref(), self.clock.now(), audit.as_ref())
            .await?;
        if !changed {
            return Err(HubError::not_found("credential"));
        }
        Ok(())
    }

    /// What the status page of `slug` shows anyone: public projects whose
    /// owner's plan has monitoring, without a docs password; everything
    /// else is a missing page.
    pub async fn public_status(&self, slug: &str, label: Option<&str>) -> HubResult<StatusView> {
        let Some(row) = self.store.docs_project(slug).await? else { return Err(HubError::not_found("status page")) };
        let plan: Plan = row.owner_plan.parse().unwrap_or(Plan::Free);
        if !row.is_public || row.password_hash.is_some() || !plan.allows(Feature::Monitoring) {
            return Err(HubError::not_found("status page"));
        }
        self.status_view(&row.id, &row.slug, &row.name, true, label).await
    }

    /// The same view for the project's members, public or not (Pro and up).
    pub async fn monitor_status(
        &self,
        principal: &Principal,
        slug: &str,
        label: Option<&str>,
    ) -> HubResult<StatusView> {
        let found = self.monitoring_project(principal, slug, Action::ViewProject).await?;
        let public = found.project.is_public && !found.project.has_password;
        self.status_view(&found.project.id, &found.project.slug, &found.project.name, public, label).await
    }

    async fn status_view(
        &self,
        project_id: &str,
        slug: &str,
        name: &str,
        is_public: bool,
        label: Option<&str>,
    ) -> HubResult<StatusView> {
        let versions: Vec<_> = self
            .store
            .docs_versions(project_id, self.clock.now())
            .await?
            .into_iter()
            .filter(|v| !v.is_preview)
            .collect();
        let chosen = match label {
            Some(label) => versions.iter().find(|v| v.label == label),
            None => versions.iter().find(|v| v.is_default),
        }
        .ok_or(HubError::not_found("version"))?;
        let version = self.monitored_version(project_id, Some(&chosen.label)).await?;
        self.ensure_monitors(&version).await?;
        let rows = self.monitor_rows(&version.id, true).await?;
        Ok(StatusView {
            project_slug: slug.to_owned(),
            project_name: name.to_owned(),
            is_public,
            version: version.label,
            default_version: versions.iter().find(|v| v.is_default).map(|v| v.label.clone()),
            versions: versions.into_iter().map(|v| v.label).collect(),
            overall: overall(&rows),
            rows,
            generated_at: self.clock.now(),
            interval_secs: self.probe_interval_secs,
        })
    }

    /// Runs one round now: every monitored operation of every account whose
    /// plan has monitoring is probed once. Returns the number of probes.
    pub async fn run_uptime_round(&self) -> HubResult<usize> {
        let targets = self.store.monitored_targets(self.clock.now()).await?;
        if targets.is_empty() {
            return Ok(0);
        }
        // One parse and one set of validators per version, for the round.
        let mut versions: HashMap<String, Arc<(Spec, SchemaSet)>> = HashMap::new();
        let mut credentials: HashMap<String, HashMap<String, String>> = HashMap::new();
        let mut planned = Vec::with_capacity(targets.len());
        for target in targets {
            let version = match versions.get(&target.spec_sha256) {
                Some(parsed) => Arc::clone(parsed),
                None => {
                    let Ok(spec) = self.parsed_description(&target.spec_sha256).await else {
                        tracing::warn!(sha256 = %target.spec_sha256, "an uptime round skipped a description it could not read");
                        continue;
                    };
                    let parsed = tokio::task::spawn_blocking(move || {
                        let schemas = SchemaSet::new(&spec);
                        Arc::new((spec, schemas))
                    })
                    .await
                    .map_err(|e| HubError::Internal(format!("schema task failed: {e}")))?;
                    versions.insert(target.spec_sha256.clone(), Arc::clone(&parsed));
                    parsed
                }
            };
            if !credentials.contains_key(&target.monitor.project_id) {
                let stored = self.store.credentials(&target.monitor.project_id).await?;
                let opened = stored
                    .into_iter()
                    .filter_map(|(scheme, sealed)| self.secret_key.open(&sealed).ok().map(|value| (scheme, value)))
                    .collect();
                credentials.insert(target.monitor.project_id.clone(), opened);
            }
            let creds = credentials.get(&target.monitor.project_id).cloned().unwrap_or_default();
            let base = probe_base(target.version_base_url.as_deref(), target.project_base_url.as_deref(), &version.0);
            let request = plan_probe(&version.0, &target.monitor, base.as_deref(), &creds);
            planned.push(Planned { monitor: target.monitor, version, request });
        }
        let probed = planned.len();
        let checks = self.probe_all(planned).await;
        self.store.insert_checks(&checks).await?;
        Ok(probed)
    }

    /// Sends the planned probes, [`PER_ORIGIN`] at a time per origin and
    /// [`ROUND_CONCURRENCY`] in all.
    async fn probe_all(&self, planned: Vec<Planned>) -> Vec<(String, Check)> {
        let mut by_origin: BTreeMap<String, Vec<Planned>> = BTreeMap::new();
        let mut checks = Vec::with_capacity(planned.len());
        for probe in planned {
            match &probe.request {
                Ok(request) => {
                    let origin = url::Url::parse(&request.url)
                        .map(|u| u.origin().ascii_serialization())
                        .unwrap_or_else(|_| request.url.clone());
                    by_origin.entry(origin).or_default().push(probe);
                }
                Err(error) => checks.push((probe.monitor.id.clone(), unplanned(error, self.clock.now()))),
            }
        }
        let overall = Arc::new(tokio::sync::Semaphore::new(ROUND_CONCURRENCY));
        let outbound = self.probes.clone();
        let per_origin = futures_util::stream::iter(by_origin.into_values().map(|probes| {
            let (outbound, overall) = (outbound.clone(), Arc::clone(&overall));
            let clock = Arc::clone(&self.clock);
            async move {
                let first = probes.iter().find_map(|p| p.request.as_ref().ok().map(|r| r.url.clone()));
                let client = match first {
                    Some(url) => outbound.origin_client(&url).await,
                    None => return Vec::new(),
                };
                futures_util::stream::iter(probes)
                    .map(|probe| {
                        let (client, overall, clock) = (client.clone(), Arc::clone(&overall), Arc::clone(&clock));
                        async move {
                            let _permit = overall.acquire().await.ok();
                            let checked_at = clock.now();
                            let started = Instant::now();
                            let check = match (&client, &probe.request) {
                                (Ok(client), Ok(request)) => {
                                    let headers: Vec<(&str, String)> =
                                        request.headers.iter().map(|(n, v)| (n.as_str(), v.clone())).collect();
                                    let answer = client
                                        .send(&request.method, &request.url, &headers, request.body.clone())
                                        .await;
                                    let latency = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
                                    let (spec, schemas) = &*probe.version;
                                    judge(spec, schemas, &probe.monitor, answer.as_ref(), latency, checked_at)
                                }
                                (Err(error), _) => {
                                    let latency = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
                                    let (spec, schemas) = &*probe.version;
                                    judge(spec, schemas, &probe.monitor, Err(error), latency, checked_at)
                                }
                                (_, Err(error)) => unplanned(error, checked_at),
                            };
                            (probe.monitor.id, check)
                        }
                    })
                    .buffer_unordered(PER_ORIGIN)
                    .collect::<Vec<_>>()
                    .await
            }
        }))
        .buffer_unordered(ROUND_CONCURRENCY)
        .collect::<Vec<_>>()
        .await;
        checks.extend(per_origin.into_iter().flatten());
        checks
    }

    /// Runs a round when this node wins the current slot of `interval` (one
    /// node per slot, however many run).
    pub async fn uptime_round_if_due(&self, interval: Duration) -> HubResult<Option<usize>> {
        let period = i64::try_from(interval.as_millis()).unwrap_or(i64::MAX);
        let won = platform::jobs::claim_slot(self.db(), "hub.uptime", period, self.clock.now().as_millis()).await?;
        if won { self.run_uptime_round().await.map(Some) } else { Ok(None) }
    }

    /// The label of the version a monitor belongs to.
    pub async fn monitor_version_label(&self, monitor: &Monitor) -> HubResult<String> {
        self.store.version_label(&monitor.version_id).await?.ok_or(HubError::not_found("version"))
    }

    /// Deletes checks older than [`CHECK_RETENTION_DAYS`].
    pub async fn prune_monitor_checks(&self) -> HubResult<u64> {
        self.store.prune_checks(self.clock.now().plus_days(-CHECK_RETENTION_DAYS)).await
    }
}

/// The instant of the daily prune after midnight UTC, in milliseconds.
pub fn prune_offset_ms() -> i64 {
    (i64::from(PRUNE_AT_UTC.0) * 60 + i64::from(PRUNE_AT_UTC.1)) * 60_000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> Spec {
        spec::parse(text.as_bytes()).unwrap()
    }

    fn monitor(method: &str, path: &str) -> Monitor {
        Monitor {
            id: "m1".into(),
            project_id: "p".into(),
            version_id: "v".into(),
            method: method.into(),
            path: path.into(),
            operation_id: None,
            monitored: true,
            path_params: BTreeMap::new(),
            query: BTreeMap::new(),
            updated_at: Timestamp::from_millis(0),
        }
    }

    const PETS: &str = r##"{"openapi":"3.0.3","info":{"title":"t","version":"1"},
      "servers":[{"url":"https://{region}.example.com/v1","variables":{"region":{"default":"eu"}}}],
      "components":{"securitySchemes":{"key":{"type":"apiKey","in":"header","name":"X-Key"},
                                       "basic":{"type":"http","scheme":"basic"}},
        "schemas":{"Pet":{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}}},
      "security":[{"key":[]}],
      "paths":{"/pets/{petId}":{"get":{"operationId":"getPet",
          "parameters":[{"name":"petId","in":"path","required":true,"schema":{"type":"string"},"example":"a b"},
                        {"name":"limit","in":"query","required":true,"schema":{"type":"integer","default":5}},
                        {"name":"page","in":"query","schema":{"type":"integer"}}],
          "responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}}},
        "/owners/{ownerId}":{"get":{"parameters":[{"name":"ownerId","in":"path","required":true,"schema":{"type":"string"}}],
          "security":[{"basic":[]}],"responses":{"200":{"description":"ok"}}}}}}"##;

    #[test]
    fn a_probe_takes_examples_defaults_credentials_and_the_servers_variables() {
        let spec = spec(PETS);
        let base = probe_base(None, None, &spec).unwrap();
        assert_eq!(base, "https://eu.example.com/v1");
        let mut creds = HashMap::new();
        creds.insert("key".to_owned(), "k-123".to_owned());
        let request = plan_probe(&spec, &monitor("GET", "/pets/{petId}"), Some(&base), &creds).unwrap();
        assert_eq!(request.url, "https://eu.example.com/v1/pets/a%20b?limit=5");
        assert!(request.headers.contains(&("x-key".to_owned(), "k-123".to_owned())));
        // The user's values win, and their query goes with the required one.
        let mut custom = monitor("GET", "/pets/{petId}");
        custom.path_params.insert("petId".into(), "42".into());
        custom.query.insert("page".into(), "2".into());
        let request = plan_probe(&spec, &custom, Some("https://api.test"), &HashMap::new()).unwrap();
        assert_eq!(request.url, "https://api.test/pets/42?limit=5&page=2");
        assert!(!request.headers.iter().any(|(n, _)| n == "x-key"), "no stored credential, none sent");
    }

    #[test]
    fn a_path_parameter_without_any_value_is_a_configuration_error() {
        let spec = spec(PETS);
        let err = plan_probe(&spec, &monitor("GET", "/owners/{ownerId}"), Some("https://a.test"), &HashMap::new())
            .unwrap_err();
        assert!(err.0.contains("ownerId"), "{err:?}");
        let check = unplanned(&err, Timestamp::from_millis(5));
        assert_eq!(check.state, CheckState::Down);
        assert!(check.error.as_deref().unwrap().starts_with("config: "));
    }

    #[test]
    fn basic_credentials_are_encoded_and_operation_security_wins() {
        let spec = spec(PETS);
        let mut m = monitor("GET", "/owners/{ownerId}");
        m.path_params.insert("ownerId".into(), "o".into());
        let mut creds = HashMap::new();
        creds.insert("basic".to_owned(), "ann:secret".to_owned());
        creds.insert("key".to_owned(), "k".to_owned());
        let request = plan_probe(&spec, &m, Some("https://a.test"), &creds).unwrap();
        assert!(request.headers.contains(&("authorization".to_owned(), "Basic YW5uOnNlY3JldA==".to_owned())));
        assert!(!request.headers.iter().any(|(n, _)| n == "x-key"));
    }

    fn response(status: u16, body: &str) -> OutboundResponse {
        OutboundResponse { status, headers: Vec::new(), body: body.as_bytes().to_vec(), truncated: false }
    }

    #[test]
    fn answers_are_judged_by_status_and_schema() {
        let spec = spec(PETS);
        let schemas = SchemaSet::new(&spec);
        let m = monitor("GET", "/pets/{petId}");
        let at = Timestamp::from_millis(1);
        let good = judge(&spec, &schemas, &m, Ok(&response(200, r#"{"id":1}"#)), 12, at);
        assert_eq!((good.state, good.schema_valid, good.status_code), (CheckState::Up, Some(true), Some(200)));
        let wrong = judge(&spec, &schemas, &m, Ok(&response(200, r#"{"id":"x"}"#)), 12, at);
        assert_eq!((wrong.state, wrong.schema_valid), (CheckState::Degraded, Some(false)));
        let not_json = judge(&spec, &schemas, &m, Ok(&response(200, "<html>")), 12, at);
        assert_eq!(not_json.state, CheckState::Degraded);
        let failed = judge(&spec, &schemas, &m, Ok(&response(503, "busy")), 12, at);
        assert_eq!((failed.state, failed.schema_valid, failed.snippet.as_str()), (CheckState::Degraded, None, "busy"));
        let none = judge(&spec, &schemas, &m, Err(&OutboundError::Timeout("10 s".into())), 10_000, at);
        assert_eq!((none.state, none.status_code), (CheckState::Down, None));
        assert!(none.error.as_deref().unwrap().starts_with("timeout: "));
        // No schema for the answer: a 2xx is up, its schema unknown.
        let open = judge(&spec, &schemas, &monitor("GET", "/owners/{ownerId}"), Ok(&response(200, "ok")), 3, at);
        assert_eq!((open.state, open.schema_valid), (CheckState::Up, None));
    }

    #[test]
    fn snippets_keep_at_most_1024_bytes_on_a_character_boundary() {
        let body = "é".repeat(1000); // 2,000 bytes
        let cut = snippet(body.as_bytes());
        assert!(cut.len() <= SNIPPET_BYTES);
        assert_eq!(cut, "é".repeat(512));
        let odd = format!("a{}", "é".repeat(1000));
        let cut = snippet(odd.as_bytes());
        assert_eq!(cut.len(), 1023, "the split character is dropped, not replaced");
        assert_eq!(snippet(b"short"), "short");
    }

    fn seg(state: CheckState, at: i64) -> Segment {
        Segment { checked_at: Timestamp::from_millis(at), state }
    }

    #[test]
    fn uptime_is_the_share_of_up_checks_to_one_decimal() {
        assert_eq!(uptime(&[]), None);
        let three = [seg(CheckState::Up, 1), seg(CheckState::Degraded, 2), seg(CheckState::Up, 3)];
        assert_eq!(uptime(&three), Some(66.7));
        assert_eq!(uptime(&[seg(CheckState::Down, 1)]), Some(0.0));
    }

    #[test]
    fn the_banner_summarises_the_rows() {
        let row = |state: RowState| MonitorRow {
            monitor: monitor("GET", "/"),
            state,
            last_checked_at: None,
            latency_ms: None,
            uptime_24h: None,
            segments: Vec::new(),
        };
        let up = RowState::Checked(CheckState::Up);
        let down = RowState::Checked(CheckState::Down);
        assert_eq!(overall(&[]), RowState::None);
        assert_eq!(overall(&[row(RowState::None)]), RowState::None);
        assert_eq!(overall(&[row(up), row(RowState::None)]), up);
        assert_eq!(overall(&[row(up), row(down)]), RowState::Checked(CheckState::Degraded));
        assert_eq!(overall(&[row(down), row(down)]), down);
    }

    #[test]
    fn a_graphql_version_has_one_introspection_probe() {
        let spec = spec("type Query { hello: String }");
        assert_eq!(operations_of(&spec), vec![("POST".to_owned(), String::new(), Some("introspection".to_owned()))]);
        let m = monitor("POST", "");
        let request = plan_probe(&spec, &m, Some("https://gql.test/graphql"), &HashMap::new()).unwrap();
        assert_eq!(request.url, "https://gql.test/graphql");
        assert!(String::from_utf8(request.body).unwrap().contains("__schema"));
        let schemas = SchemaSet::new(&spec);
        let ok = judge(
            &spec,
            &schemas,
            &m,
            Ok(&response(200, r#"{"data":{"__schema":{"queryType":{"name":"Query"}}}}"#)),
            1,
            Timestamp::from_millis(1),
        );
        assert_eq!(ok.state, CheckState::Up);
        let errors = judge(
            &spec,
            &schemas,
            &m,
            Ok(&response(200, r#"{"errors":[{"message":"no"}]}"#)),
            1,
            Timestamp::from_millis(1),
        );
        assert_eq!(errors.state, CheckState::Degraded);
    }
}
