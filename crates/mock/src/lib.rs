//! The mock server's engine: a compiled API description answers HTTP
//! requests the way seed 000's "Mock server behaviour" says.
//!
//! It is pure: `(compiled spec, settings, overrides, request, clock, RNG)
//! -> response`. Storage (overrides, sequence counters, the request log),
//! rate limits and the network live in the hub; the same engine also serves
//! a local file in `svc mock`.
//!
//! A request goes through, in order: overrides ([`overrides`], which skip
//! everything below), routing, the per-endpoint disable list (503),
//! spec-driven auth (401), strict validation (400), network simulation
//! (latency and chaos errors), then response choice: `Prefer: code=` picks
//! the status, `Accept` the media type, and the body is an explicit example,
//! a named example (`Prefer: example=`), a schema-level example, a sample
//! generated from the schema, or a placeholder for an empty schema. The
//! default answer of each operation is computed once and reused, so the
//! work per request does not grow with the size of the description.

mod graphql;
mod negotiate;
pub mod overrides;
pub mod realistic;
mod router;
pub mod sample;
pub mod schema;
mod security;
pub mod template;
mod validate;
pub mod webhooks;

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use chrono::{DateTime, Utc};
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, Method, StatusCode};
use rand::{Rng as _, RngCore};
use serde_json::{Value, json};
use spec::{HttpMethod, Operation, Spec};

pub use crate::graphql::GraphQlEngine;
pub use crate::negotiate::{ExampleChoice, Prefer, is_json as is_json_media};
pub use crate::schema::Issue;

/// The `X-Mock-Server` header's value.
pub const SERVER_NAME: &str = concat!("svc-mock/", env!("CARGO_PKG_VERSION"));

/// Values of `X-Mock-Synth`: how a response was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synth {
    Override,
    Example,
    SchemaWalk,
    EmptySchema,
    GraphQlSchemaWalk,
    ValidationError,
    AuthRequired,
    ChaosError,
    Disabled,
    NoRoute,
}

impl Synth {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Override => "override",
            Self::Example => "example",
            Self::SchemaWalk => "schema-walk",
            Self::EmptySchema => "empty-schema",
            Self::GraphQlSchemaWalk => "graphql-schema-walk",
            Self::ValidationError => "validation-error",
            Self::AuthRequired => "auth-required",
            Self::ChaosError => "chaos-error",
            Self::Disabled => "disabled",
            Self::NoRoute => "no-route",
        }
    }
}

/// Per-project switches (rules 6 to 9).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Settings {
    /// Strict request validation (rule 6).
    pub validate_requests: bool,
    /// Spec-driven auth enforcement (rule 7).
    pub enforce_auth: bool,
    /// Latency band in milliseconds, uniform per request (rule 8).
    pub latency_min_ms: u32,
    pub latency_max_ms: u32,
    /// Percent of requests (0 to 100) answered with `chaos_status`.
    pub chaos_error_rate: f64,
    pub chaos_status: u16,
    /// operationIds answering 503 in every version (rule 9).
    pub disabled_operations: Vec<String>,
    /// operationIds answering 503 per version label.
    pub disabled_by_version: std::collections::BTreeMap<String, Vec<String>>,
}

/// Limits of the settings (seed: latency 0 to 30000 ms, error rate 0 to 100).
pub const MAX_SIMULATED_LATENCY_MS: u32 = 30_000;

impl Settings {
    /// Checks every limit, naming the first offending field.
    pub fn validate(&self) -> Result<(), overrides::InvalidOverride> {
        let bad = |field: &str, message: &str| {
            Err(overrides::InvalidOverride { field: field.to_owned(), message: message.to_owned() })
        };
        if self.latency_min_ms > MAX_SIMULATED_LATENCY_MS || self.latency_max_ms > MAX_SIMULATED_LATENCY_MS {
            return bad("latencyMaxMs", "latency must be between 0 and 30000 milliseconds");
        }
        if self.latency_min_ms > self.latency_max_ms {
            return bad("latencyMinMs", "must not exceed latencyMaxMs");
        }
        if !(0.0..=100.0).contains(&self.chaos_error_rate) || self.chaos_error_rate.is_nan() {
            return bad("chaosErrorRate", "must be a percentage between 0 and 100");
        }
        // 0 is the unset status: a chaos answer is then a 500.
        let status_ok = (400..=599).contains(&self.chaos_status) || self.chaos_status == 0;
        if !status_ok {
            return bad("chaosStatus", "must be a 4xx or 5xx status, or 0 for 500");
        }
        let too_many = self.disabled_operations.len() > 1000 || self.disabled_by_version.len() > 100;
        if too_many {
            return bad("disabledOperations", "at most 1000 operations and 100 versions");
        }
        Ok(())
    }

    fn is_disabled(&self, version: &str, operation_id: &str) -> bool {
        self.disabled_operations.iter().any(|id| id == operation_id)
            || self.disabled_by_version.get(version).is_some_and(|ids| ids.iter().any(|id| id == operation_id))
    }
}

/// One request, as the engine sees it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    pub method: &'a Method,
    /// The path under the mock root, starting with `/`.
    pub path: &'a str,
    /// The raw query string, without `?`.
    pub query: &'a str,
    pub headers: &'a HeaderMap,
    pub body: &'a [u8],
}

/// The clock, randomness and store-kept state a response may use.
pub struct Context<'a> {
    pub now: DateTime<Utc>,
    pub rng: &'a mut dyn RngCore,
    /// The counter for `Prefer: example=sequential`, fetched by the caller.
    pub sequence: Option<u64>,
    /// The version label, for `X-Mock-Version` and per-version disabling.
    pub version: &'a str,
}

/// A finished response. `delay_ms` is the latency to wait before sending.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub delay_ms: u64,
}

impl Reply {
    fn new(status: StatusCode, synth: Synth) -> Self {
        // Room for every header an answer gets on its way out (the mock's
        // own, content type, CORS, the sandbox), so the map never regrows.
        let mut headers = HeaderMap::with_capacity(16);
        headers.insert(HeaderName::from_static("x-mock-server"), HeaderValue::from_static(SERVER_NAME));
        headers.insert(HeaderName::from_static("x-mock-synth"), HeaderValue::from_static(synth.as_str()));
        Self { status, headers, body: Bytes::new(), delay_ms: 0 }
    }

    fn json(mut self, body: &Value) -> Self {
        self.headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        self.body = Bytes::from(serde_json::to_vec(body).unwrap_or_default());
        self
    }

    fn header(&mut self, name: &'static str, value: &str) {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.insert(HeaderName::from_static(name), value);
        }
    }

    /// Which `X-Mock-Synth` the reply carries.
    #[must_use]
    pub fn synth(&self) -> Option<&str> {
        self.headers.get("x-mock-synth").and_then(|v| v.to_str().ok())
    }

    /// Drops the body where HTTP forbids one (1xx, 204, 304; rule 13).
    fn finish(mut self) -> Self {
        if self.status.is_informational()
            || self.status == StatusCode::NO_CONTENT
            || self.status == StatusCode::NOT_MODIFIED
        {
            self.body = Bytes::new();
            self.headers.remove(CONTENT_TYPE);
        }
        self
    }
}

/// The error envelope the hub uses everywhere: `{"error": {code, message}}`.
fn envelope(code: &str, message: &str, details: Option<Value>) -> Value {
    let mut error = json!({ "code": code, "message": message });
    if let (Some(details), Value::Object(map)) = (details, &mut error) {
        map.insert("details".to_owned(), details);
    }
    json!({ "error": error })
}

/// A compiled description, shared by all requests to one version.
pub struct Engine {
    spec: Arc<Spec>,
    kind: Kind,
    /// Whether validating a request can run a description's own regular
    /// expressions (a `pattern`, `patternProperties` or the `regex` format).
    runs_patterns: bool,
}

enum Kind {
    Rest(Box<Rest>),
    GraphQl(Box<GraphQlEngine>),
}

struct Rest {
    router: router::Router,
    paths: Vec<PathEntry>,
    ops: Vec<Op>,
    /// Path prefixes of the servers (`/v1`), tried when a path does not match
    /// as given.
    base_paths: Vec<String>,
    schemas: OnceLock<schema::SchemaSet>,
}

struct PathEntry {
    template: String,
    methods: Vec<(HttpMethod, usize)>,
}

struct Op {
    prepared: OnceLock<Prepared>,
    checks: OnceLock<validate::Checks>,
}

/// The default answer of an operation, computed once.
#[derive(Clone)]
struct Prepared {
    status: StatusCode,
    content_type: Option<HeaderValue>,
    body: Bytes,
    synth: Synth,
    headers: Vec<(HeaderName, HeaderValue)>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("title", &self.spec.title).finish_non_exhaustive()
    }
}

/// A matched operation.
#[derive(Clone, Debug)]
pub struct Route {
    /// The path template as written in the description.
    pub template: String,
    pub operation_index: usize,
    pub params: Vec<(String, String)>,
}

impl Engine {
    /// Compiles a parsed description. `source` is the document's text,
    /// needed for GraphQL (whose executor works on the schema itself).
    pub fn compile(spec: Spec, source: &str) -> Result<Self, String> {
        let spec = Arc::new(spec);
        if !spec.format.is_rest() {
            let graphql = GraphQlEngine::new(source)?;
            return Ok(Self { spec, kind: Kind::GraphQl(Box::new(graphql)), runs_patterns: true });
        }
        let mut router = router::Router::default();
        let mut paths: Vec<PathEntry> = Vec::new();
        let mut index_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for (i, op) in spec.operations.iter().enumerate() {
            let entry = *index_of.entry(op.path.as_str()).or_insert_with(|| {
                paths.push(PathEntry { template: op.path.clone(), methods: Vec::new() });
                router.insert(&op.path, paths.len() - 1);
                paths.len() - 1
            });
            if let Some(path) = paths.get_mut(entry) {
                path.methods.push((op.method, i));
            }
        }
        let mut base_paths: Vec<String> = spec
            .servers
            .iter()
            .filter_map(|server| server_path(&server.url))
            .filter(|p| p != "/" && !p.is_empty())
            .collect();
        base_paths.sort();
        base_paths.dedup();
        let ops = spec.operations.iter().map(|_| Op { prepared: OnceLock::new(), checks: OnceLock::new() }).collect();
        // A textual scan over-approximates (a description mentioning the
        // word counts too), which only costs a thread hop.
        let runs_patterns = source.contains("pattern") || source.contains("regex");
        Ok(Self {
            spec,
            kind: Kind::Rest(Box::new(Rest { router, paths, ops, base_paths, schemas: OnceLock::new() })),
            runs_patterns,
        })
    }

    /// Whether validating a request body of `len` bytes is cheap enough to
    /// run on an async worker: a REST description with no regular
    /// expressions of its own validates in time linear in the body, so a
    /// small body takes microseconds. Anything else belongs on a blocking
    /// thread with a time budget.
    #[must_use]
    pub fn validates_inline(&self, len: usize) -> bool {
        const INLINE_BODY_BYTES: usize = 64 * 1024;
        !self.runs_patterns && len <= INLINE_BODY_BYTES
    }

    /// The description this engine serves.
    #[must_use]
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    #[must_use]
    pub fn is_graphql(&self) -> bool {
        matches!(self.kind, Kind::GraphQl(_))
    }

    /// Whether any operation lives at `path` (for falling through versions).
    #[must_use]
    pub fn has_path(&self, path: &str) -> bool {
        match &self.kind {
            Kind::Rest(rest) => rest.find_path(path).is_some(),
            Kind::GraphQl(_) => is_graphql_path(path),
        }
    }

    /// The operation `method` on `path`, if the description has it.
    #[must_use]
    pub fn route(&self, method: &Method, path: &str) -> Option<Route> {
        let Kind::Rest(rest) = &self.kind else { return None };
        let (entry, params) = rest.find_path(path)?;
        let index = lookup_method(&entry.methods, method)?;
        Some(Route { template: entry.template.clone(), operation_index: index, params })
    }

    /// Answers one request (overrides are the caller's first step).
    pub fn respond(&self, request: &Request<'_>, settings: &Settings, ctx: &mut Context<'_>) -> Reply {
        let mut reply = match &self.kind {
            Kind::Rest(rest) => self.respond_rest(rest, request, settings, ctx),
            Kind::GraphQl(engine) => {
                if is_graphql_path(request.path) {
                    engine.respond(request, settings, ctx)
                } else {
                    no_route(request)
                }
            }
        };
        reply.header("x-mock-version", ctx.version);
        reply.finish()
    }

    fn respond_rest(&self, rest: &Rest, request: &Request<'_>, settings: &Settings, ctx: &mut Context<'_>) -> Reply {
        let Some((entry, params)) = rest.find_path(request.path) else {
            return no_route(request);
        };
        let Some(index) = lookup_method(&entry.methods, request.method) else {
            let allow: Vec<&str> = entry.methods.iter().map(|(m, _)| m.as_str()).collect();
            let mut reply = Reply::new(StatusCode::METHOD_NOT_ALLOWED, Synth::NoRoute).json(&envelope(
                "METHOD_NOT_ALLOWED",
                &format!("{} is not defined for {}; allowed: {}", request.method, entry.template, allow.join(", ")),
                None,
            ));
            reply.header("allow", &allow.join(", "));
            return reply;
        };
        let (Some(operation), Some(op)) = (self.spec.operations.get(index), rest.ops.get(index)) else {
            return no_route(request);
        };
        let mut reply = self.respond_operation(rest, operation, op, &params, request, settings, ctx);
        reply.header("x-mock-matched-path", &entry.template);
        if let Some(id) = &operation.operation_id {
            reply.header("x-mock-operation-id", id);
        }
        if operation.deprecated {
            reply.header("deprecation", "true");
        }
        reply
    }

    #[allow(clippy::too_many_arguments, reason = "one request's whole state")]
    fn respond_operation(
        &self,
        rest: &Rest,
        operation: &Operation,
        op: &Op,
        params: &[(String, String)],
        request: &Request<'_>,
        settings: &Settings,
        ctx: &mut Context<'_>,
    ) -> Reply {
        if let Some(id) = &operation.operation_id
            && settings.is_disabled(ctx.version, id)
        {
            return Reply::new(StatusCode::SERVICE_UNAVAILABLE, Synth::Disabled).json(&envelope(
                "OPERATION_DISABLED",
                &format!("operation `{id}` is disabled on this mock"),
                None,
            ));
        }
        if settings.enforce_auth
            && let Some(challenge) = security::check(&self.spec, operation, request)
        {
            let mut reply = Reply::new(StatusCode::UNAUTHORIZED, Synth::AuthRequired).json(&envelope(
                "UNAUTHORIZED",
                &challenge.hint,
                Some(json!({ "schemes": challenge.schemes })),
            ));
            reply.header("www-authenticate", &challenge.www_authenticate);
            return reply;
        }
        if settings.validate_requests {
            let schemas = rest.schemas.get_or_init(|| schema::SchemaSet::new(&self.spec));
            let checks = op.checks.get_or_init(|| validate::Checks::new(&self.spec, operation, schemas));
            let issues = checks.run(&self.spec, operation, params, request);
            if !issues.is_empty() {
                let message = issues.first().map_or_else(String::new, |i| format!("{}: {}", i.path, i.message));
                return Reply::new(StatusCode::BAD_REQUEST, Synth::ValidationError).json(&envelope(
                    "VALIDATION_ERROR",
                    &format!("the request does not match the description: {message}"),
                    Some(json!({ "issues": issues })),
                ));
            }
        }
        // Network simulation: latency for everything below, and chaos.
        let mut delay_ms = 0;
        if settings.latency_max_ms > 0 {
            delay_ms = u64::from(ctx.rng.random_range(settings.latency_min_ms..=settings.latency_max_ms));
        }
        if settings.chaos_error_rate > 0.0 && ctx.rng.random::<f64>() * 100.0 < settings.chaos_error_rate {
            let status = StatusCode::from_u16(settings.chaos_status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut reply = Reply::new(status, Synth::ChaosError).json(&envelope(
                "CHAOS_ERROR",
                &format!("simulated failure ({}% of requests fail on this mock)", settings.chaos_error_rate),
                None,
            ));
            reply.delay_ms = delay_ms;
            reply.header("x-mock-chaos-latency-ms", &delay_ms.to_string());
            return reply;
        }
        let prefer = Prefer::parse(request.headers, request.query);
        let default_accept = request.headers.get(http::header::ACCEPT).is_none_or(|a| a.as_bytes() == b"*/*");
        let mut reply = if prefer.is_empty() && default_accept {
            let prepared = op.prepared.get_or_init(|| {
                let mut scratch = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(0);
                let mut ctx = Context { now: ctx.now, rng: &mut scratch, sequence: None, version: "" };
                let reply =
                    negotiate::respond(&self.spec, &rest.schemas, operation, &Prefer::default(), None, &mut ctx);
                Prepared::from_reply(reply)
            });
            prepared.to_reply()
        } else {
            let accept = request.headers.get(http::header::ACCEPT).and_then(|a| a.to_str().ok());
            negotiate::respond(&self.spec, &rest.schemas, operation, &prefer, accept, ctx)
        };
        if settings.latency_max_ms > 0 {
            reply.delay_ms = delay_ms;
            reply.header("x-mock-chaos-latency-ms", &delay_ms.to_string());
        }
        reply
    }
}

impl Prepared {
    fn from_reply(reply: Reply) -> Self {
        let synth = match reply.synth() {
            Some("example") => Synth::Example,
            Some("empty-schema") => Synth::EmptySchema,
            _ => Synth::SchemaWalk,
        };
        let content_type = reply.headers.get(CONTENT_TYPE).cloned();
        let headers = reply
            .headers
            .iter()
            .filter(|(name, _)| *name != CONTENT_TYPE && !name.as_str().starts_with("x-mock-"))
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        Self { status: reply.status, content_type, body: reply.body, synth, headers }
    }

    fn to_reply(&self) -> Reply {
        let mut reply = Reply::new(self.status, self.synth);
        if let Some(content_type) = &self.content_type {
            reply.headers.insert(CONTENT_TYPE, content_type.clone());
        }
        for (name, value) in &self.headers {
            reply.headers.insert(name.clone(), value.clone());
        }
        reply.body = self.body.clone();
        reply
    }
}

impl Rest {
    fn find_path(&self, path: &str) -> Option<(&PathEntry, Vec<(String, String)>)> {
        if let Some((index, params)) = self.router.find(path) {
            return self.paths.get(index).map(|entry| (entry, params));
        }
        self.base_paths.iter().find_map(|base| {
            let rest = path.strip_prefix(base.as_str())?;
            if !rest.is_empty() && !rest.starts_with('/') {
                return None;
            }
            let (index, params) = self.router.find(rest)?;
            self.paths.get(index).map(|entry| (entry, params))
        })
    }
}

fn lookup_method(methods: &[(HttpMethod, usize)], method: &Method) -> Option<usize> {
    let wanted = HttpMethod::from_key(method.as_str())?;
    methods
        .iter()
        .find(|(m, _)| *m == wanted)
        .or_else(|| {
            // HEAD is answered like GET when the description has no HEAD.
            (wanted == HttpMethod::Head).then(|| methods.iter().find(|(m, _)| *m == HttpMethod::Get)).flatten()
        })
        .map(|(_, index)| *index)
}

fn no_route(request: &Request<'_>) -> Reply {
    Reply::new(StatusCode::NOT_FOUND, Synth::NoRoute).json(&envelope(
        "NOT_FOUND",
        &format!("no operation of this description matches {} {}", request.method, request.path),
        None,
    ))
}

fn is_graphql_path(path: &str) -> bool {
    path.trim_end_matches('/') == "/graphql" || path.trim_end_matches('/').is_empty()
}

/// The path part of a server URL (`https://x/v1` -> `/v1`), variables
/// replaced by their defaults where the URL is a template.
fn server_path(url: &str) -> Option<String> {
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = if url.contains("://") {
        without_scheme.find('/').and_then(|i| without_scheme.get(i..)).unwrap_or("")
    } else {
        without_scheme
    };
    if path.contains('{') {
        return None;
    }
    Some(path.trim_end_matches('/').to_owned())
}

/// Answers a request with the first matching override, if any (rule 5):
/// validation, auth and network simulation do not apply to overrides.
#[must_use]
pub fn respond_override(rules: &[overrides::Compiled], request: &Request<'_>, ctx: &mut Context<'_>) -> Option<Reply> {
    if rules.is_empty() {
        return None;
    }
    let json_body: Option<Value> =
        if request.body.is_empty() { None } else { serde_json::from_slice(request.body).ok() };
    let query = negotiate::parse_query(request.query);
    let operation_name = json_body.as_ref().and_then(graphql::operation_name);
    let facts = overrides::Facts {
        method: request.method.as_str(),
        path: request.path,
        query: &query,
        headers: request.headers,
        json: json_body.as_ref(),
        operation_name: operation_name.as_deref(),
    };
    let (rule, params) = rules.iter().find_map(|rule| rule.matches(&facts).map(|params| (rule, params)))?;
    let spec = &rule.rule.spec;
    let url =
        if request.query.is_empty() { request.path.to_owned() } else { format!("{}?{}", request.path, request.query) };
    let mut renderer = template::Renderer {
        request: template::RequestData {
            method: request.method.as_str(),
            url: &url,
            body: json_body.as_ref(),
            path: &params,
            headers: request.headers,
            query: &query,
        },
        now: ctx.now,
        rng: &mut *ctx.rng,
    };
    let status = StatusCode::from_u16(spec.response.status).unwrap_or(StatusCode::OK);
    let mut reply = Reply::new(status, Synth::Override);
    let mut content_type = None;
    for (name, value) in &spec.response.headers {
        let rendered = renderer.render_text(value);
        if name.eq_ignore_ascii_case("content-type") {
            content_type = Some(rendered);
            continue;
        }
        if let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&rendered)) {
            reply.headers.insert(name, value);
        }
    }
    match &spec.response.body {
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => {
            reply.body = Bytes::from(renderer.render_text(text));
            content_type.get_or_insert_with(|| "text/plain; charset=utf-8".to_owned());
        }
        Some(body) => {
            let rendered = renderer.render_json(body);
            reply.body = Bytes::from(serde_json::to_vec(&rendered).unwrap_or_default());
            content_type.get_or_insert_with(|| "application/json".to_owned());
        }
    }
    if let Some(content_type) = content_type.and_then(|c| HeaderValue::from_str(&c).ok()) {
        reply.headers.insert(CONTENT_TYPE, content_type);
    }
    reply.header("x-mock-override-id", &rule.rule.id);
    reply.header("x-mock-version", ctx.version);
    reply.delay_ms = u64::from(spec.latency_ms);
    Some(reply.finish())
}

#[cfg(test)]
mod tests {
    use super::Engine;

    fn engine(source: &str) -> Engine {
        let spec = spec::parse(source.as_bytes()).expect("the test description parses");
        Engine::compile(spec, source).expect("the test description compiles")
    }

    const PLAIN: &str = r#"{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/pets":{"post":{
        "requestBody":{"content":{"application/json":{"schema":{"type":"object","properties":{"name":{"type":"string","maxLength":40}}}}}},
        "responses":{"201":{"description":"made"}}}}}}"#;

    #[test]
    fn small_bodies_of_a_description_without_patterns_validate_inline() {
        let plain = engine(PLAIN);
        assert!(plain.validates_inline(200));
        assert!(plain.validates_inline(64 * 1024));
        assert!(!plain.validates_inline(64 * 1024 + 1), "a large body goes to a blocking thread");
    }

    #[test]
    fn a_description_with_its_own_regular_expressions_never_validates_inline() {
        let patterned = engine(&PLAIN.replace(r#""maxLength":40"#, r#""pattern":"^(a+)+$""#));
        assert!(!patterned.validates_inline(10));
        let regex_format = engine(&PLAIN.replace(r#""maxLength":40"#, r#""format":"regex""#));
        assert!(!regex_format.validates_inline(10));
    }
}
