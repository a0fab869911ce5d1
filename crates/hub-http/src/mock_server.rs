//! `/mock/<slug>/...`: the hosted mock server, and the HTTP glue `svc mock`
//! shares with it.
//!
//! Per request: rate limits (per client IP and per project, in memory on
//! each node), the project's snapshot (cached; changes made by this process
//! are seen at once; on SQLite, those of other processes within 50 ms
//! through the WAL-index stamp; on PostgreSQL, those of other nodes within a
//! second), overrides, the version to serve (rule 11), the engine
//! (compiled once per document and cached), the simulated latency, and a
//! request-log row handed to a background writer that batches them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::Hub;
use hub_core::mock::{LogEntry, MockClosed, MockSnapshot, MockVersion};
use hub_core::read_cache::Stamp;
use mock::{Context, Engine, ExampleChoice, Prefer, Reply};
use platform::throttle::Throttle;
use rand::SeedableRng as _;
use tokio::sync::mpsc;

use crate::error::{ApiError, Code};

/// Largest request body the mock reads.
pub const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// Compiled documents kept in memory per node: at most this many, built
/// from at most [`ENGINE_CACHE_SOURCE_BYTES`] of descriptions.
const ENGINE_CACHE: usize = 64;
/// An engine holds about seven times its description (GitHub's 13 MB REST
/// description: about 90 MB with its validators), so about 340 MB.
const ENGINE_CACHE_SOURCE_BYTES: usize = 48 * 1024 * 1024;
/// How long a snapshot may be reused when the store cannot say it changed.
const SNAPSHOT_TTL: Duration = Duration::from_secs(1);
/// How long one read of the SQLite WAL-index stamp is reused. Changes this
/// process makes bump the hub's mock generation and are seen by the next
/// request; changes another process makes to the same file (a `svc hub`
/// command) are seen within this time. Reading the stamp opens a file, which
/// on every request was an eighth of the hosted mock's CPU time.
const STAMP_REUSE: Duration = Duration::from_millis(50);
/// Request-log rows buffered before new ones are dropped.
const LOG_QUEUE: usize = 8192;
/// Request-log rows written per project per second at most: the log keeps
/// the last 5000 requests for people to read, so above this rate it keeps a
/// sample instead of spending the database on rows that would be trimmed
/// within seconds.
const LOG_ROWS_PER_SECOND: u32 = 100;
const LOG_BATCH: usize = 500;

/// Operator settings of the hosted mock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MockConfig {
    /// Requests per minute per project; 0 turns the limit off.
    pub per_project_per_minute: u32,
    /// Requests per minute per client IP; 0 turns the limit off.
    pub per_ip_per_minute: u32,
}

impl Default for MockConfig {
    fn default() -> Self {
        Self { per_project_per_minute: 120, per_ip_per_minute: 60 }
    }
}

struct CachedSnapshot {
    snapshot: Arc<Loaded>,
    stamp: Option<hub_core::read_cache::Stamp>,
    generation: u64,
    loaded: Instant,
}

/// A snapshot with its overrides compiled, and what requests learn about
/// it on the way: the engine of each version once looked up, and the
/// request log's sampling budget.
struct Loaded {
    snapshot: MockSnapshot,
    overrides: Vec<mock::overrides::Compiled>,
    /// The engine of each version (same order as `snapshot.versions`), so
    /// that a request after the first takes no lock to find it. Weak: the
    /// engine cache alone decides how many compiled documents stay in memory.
    engines: Vec<OnceLock<std::sync::Weak<Engine>>>,
    /// Rule 11's fall-through applies: every version is REST and there is
    /// another one than the default to fall through to.
    falls_through: bool,
    log_budget: LogBudget,
}

impl Loaded {
    fn new(snapshot: MockSnapshot) -> Self {
        let rules = snapshot.overrides.iter().cloned().map(Into::into).collect();
        let falls_through = snapshot.versions.len() > 1
            && snapshot.versions.iter().all(|v| v.spec_format != "graphql")
            && snapshot.versions.iter().skip(1).any(|v| !v.is_preview);
        Self {
            overrides: mock::overrides::compile(rules),
            engines: snapshot.versions.iter().map(|_| OnceLock::new()).collect(),
            falls_through,
            log_budget: LogBudget::default(),
            snapshot,
        }
    }
}

/// At most [`LOG_ROWS_PER_SECOND`] request-log rows per project and
/// second: a fixed one-second window, the window's number in the high 32
/// bits and the rows taken in it in the low ones. One atomic word instead of
/// a keyed rate limiter: the check runs on every request.
#[derive(Default)]
struct LogBudget(AtomicU64);

impl LogBudget {
    /// Takes a row from the budget of window `second`, if any is left.
    fn take(&self, second: u32) -> bool {
        let mut current = self.0.load(Ordering::Relaxed);
        loop {
            let (window, taken) = ((current >> 32) as u32, current as u32);
            let next = if window == second {
                if taken >= LOG_ROWS_PER_SECOND {
                    return false;
                }
                current + 1
            } else {
                (u64::from(second) << 32) | 1
            };
            match self.0.compare_exchange_weak(current, next, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(actual) => current = actual,
            }
        }
    }
}

/// Shared state of the hosted mock.
pub struct MockServer {
    hub: Hub,
    /// Keyed by project id, once the slug has resolved: unknown slugs are
    /// refused before they can add a key.
    per_project: Throttle<String>,
    per_ip: Throttle<IpAddr>,
    proxies: platform::net::TrustedProxies,
    /// How the docs session cookie is named (read for protected projects).
    cookies: platform::web::CookiePolicy,
    limits: MockConfig,
    /// Compiled engines: concurrent first requests compile a document once.
    engines: platform::document_cache::DocumentCache<Engine>,
    snapshots: RwLock<HashMap<String, CachedSnapshot>>,
    log: OnceLock<mpsc::Sender<LogEntry>>,
    /// The origin of the request log's sampling windows.
    started: Instant,
    /// The last WAL-index stamp read and when (see [`STAMP_REUSE`]).
    stamp: RwLock<Option<(Instant, Option<Stamp>)>>,
    /// The hub's custom domains, which serve docs only (none on the mock's
    /// own listener).
    domains: Option<crate::docs_site::Domains>,
    /// `mock_requests_total`: the mock is mounted outside the hub's
    /// per-request instrumentation (see `router_with`), so it counts its
    /// requests itself, through a handle taken once (an atomic add).
    requests: metrics::Counter,
}

impl std::fmt::Debug for MockServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockServer").field("limits", &self.limits).finish_non_exhaustive()
    }
}

impl MockServer {
    #[must_use]
    pub fn new(hub: Hub, config: MockConfig, web: &crate::WebConfig) -> Self {
        Self {
            hub,
            per_project: Throttle::shared(&web.limiter, "mock.project", config.per_project_per_minute),
            per_ip: Throttle::shared(&web.limiter, "mock.ip", config.per_ip_per_minute),
            proxies: web.proxies.clone(),
            cookies: web.cookies.clone(),
            limits: config,
            engines: platform::document_cache::DocumentCache::new(ENGINE_CACHE, ENGINE_CACHE_SOURCE_BYTES),
            snapshots: RwLock::new(HashMap::new()),
            log: OnceLock::new(),
            started: Instant::now(),
            stamp: RwLock::new(None),
            domains: None,
            requests: {
                platform::http::metrics_handle();
                metrics::counter!("mock_requests_total")
            },
        }
    }

    /// Refuses requests that arrive through a verified custom domain.
    #[must_use]
    pub fn with_domains(mut self, domains: Option<crate::docs_site::Domains>) -> Self {
        self.domains = domains;
        self
    }

    /// The store's change stamp, read at most once per [`STAMP_REUSE`]. A
    /// snapshot stored under an older stamp than the data it holds is only
    /// reloaded once more, never served stale.
    fn change_stamp(&self) -> Option<Stamp> {
        if let Ok(memo) = self.stamp.read()
            && let Some((at, stamp)) = *memo
            && at.elapsed() < STAMP_REUSE
        {
            return stamp;
        }
        let stamp = self.hub.change_stamp();
        if let Ok(mut memo) = self.stamp.write() {
            *memo = Some((Instant::now(), stamp));
        }
        stamp
    }

    fn snapshot_cached(&self, slug: &str) -> Option<Arc<Loaded>> {
        let stamp = self.change_stamp();
        let generation = self.hub.mock_generation();
        let snapshots = self.snapshots.read().ok()?;
        let cached = snapshots.get(slug)?;
        let fresh = match (&stamp, &cached.stamp) {
            (Some(now), Some(then)) => now == then,
            _ => cached.loaded.elapsed() < SNAPSHOT_TTL,
        };
        (fresh && cached.generation == generation).then(|| cached.snapshot.clone())
    }

    async fn snapshot(&self, slug: &str) -> Result<Result<Arc<Loaded>, MockClosed>, ApiError> {
        if let Some(found) = self.snapshot_cached(slug) {
            return Ok(Ok(found));
        }
        // Read the markers first: a change committed while loading leaves
        // the entry already stale.
        let stamp = self.change_stamp();
        let generation = self.hub.mock_generation();
        let snapshot = match self.hub.mock_snapshot(slug).await? {
            Ok(snapshot) => snapshot,
            Err(closed) => return Ok(Err(closed)),
        };
        let loaded = Arc::new(Loaded::new(snapshot));
        if let Ok(mut snapshots) = self.snapshots.write() {
            if snapshots.len() >= 10_000 {
                snapshots.clear();
            }
            snapshots.insert(
                slug.to_owned(),
                CachedSnapshot { snapshot: loaded.clone(), stamp, generation, loaded: Instant::now() },
            );
        }
        Ok(Ok(loaded))
    }

    /// The engine of version `index` of a loaded snapshot.
    async fn engine_of(&self, loaded: &Loaded, index: usize) -> Result<Arc<Engine>, ApiError> {
        let (Some(version), Some(slot)) = (loaded.snapshot.versions.get(index), loaded.engines.get(index)) else {
            return Err(ApiError::from(hub_core::HubError::Internal("version index out of range".into())));
        };
        if let Some(engine) = slot.get().and_then(std::sync::Weak::upgrade) {
            return Ok(engine);
        }
        let engine = self.engine(version).await?;
        let _ = slot.set(Arc::downgrade(&engine));
        Ok(engine)
    }

    async fn engine(&self, version: &MockVersion) -> Result<Arc<Engine>, ApiError> {
        self.engines
            .get_or_build(&version.spec_sha256, || async {
                let document = self.hub.mock_document(&version.spec_sha256).await?;
                let source_bytes = document.len();
                let engine = tokio::task::spawn_blocking(move || compile(&document))
                    .await
                    .map_err(|e| hub_core::HubError::Internal(format!("mock compile task failed: {e}")))?
                    .map_err(|e| hub_core::HubError::Internal(format!("stored spec does not compile: {e}")))?;
                Ok::<_, ApiError>((engine, source_bytes))
            })
            .await
    }

    async fn check_ip_rate(&self, ip: IpAddr) -> Result<(), ApiError> {
        self.per_ip.check(&ip).await.map_err(|refused| {
            rate_limited(self.limits.per_ip_per_minute, Duration::from_secs(refused.secs), "this client")
        })
    }

    async fn check_project_rate(&self, project_id: &str) -> Result<(), ApiError> {
        if self.limits.per_project_per_minute == 0 {
            return Ok(());
        }
        self.per_project.check(&project_id.to_owned()).await.map_err(|refused| {
            rate_limited(self.limits.per_project_per_minute, Duration::from_secs(refused.secs), "this project")
        })
    }

    /// Whether a request that arrived at `at` goes into the project's
    /// request log (at most [`LOG_ROWS_PER_SECOND`] rows a second).
    fn log_sampled(&self, loaded: &Loaded, at: Instant) -> bool {
        let second = u32::try_from(at.saturating_duration_since(self.started).as_secs()).unwrap_or(u32::MAX);
        loaded.log_budget.take(second)
    }

    /// Hands a sampled row to the background writer.
    fn record(&self, entry: LogEntry) {
        let sender = self.log.get_or_init(|| {
            let (tx, rx) = mpsc::channel(LOG_QUEUE);
            tokio::spawn(write_log(self.hub.clone(), rx));
            tx
        });
        if sender.try_send(entry).is_err() {
            tracing::debug!("mock request log queue full; a row was dropped");
        }
    }
}

/// Parses and compiles a stored document.
pub fn compile(document: &[u8]) -> Result<Engine, String> {
    let spec = spec::parse(document).map_err(|e| e.to_string())?;
    let source =
        if spec.format.is_rest() { String::new() } else { spec::decode(document).map_err(|e| e.to_string())? };
    Engine::compile(spec, &source)
}

fn rate_limited(limit: u32, wait: Duration, whom: &str) -> ApiError {
    let retry_after_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    ApiError::from(hub_core::HubError::RateLimited { limit, retry_after_secs: retry_after_secs.max(1) }).with_message(
        format!("the mock allows {limit} requests per minute for {whom}; retry in {} s", retry_after_secs.max(1)),
    )
}

async fn write_log(hub: Hub, mut rx: mpsc::Receiver<LogEntry>) {
    let mut batch = Vec::with_capacity(LOG_BATCH);
    while let Some(first) = rx.recv().await {
        batch.push(first);
        let deadline = tokio::time::sleep(Duration::from_millis(500));
        tokio::pin!(deadline);
        while batch.len() < LOG_BATCH {
            tokio::select! {
                () = &mut deadline => break,
                next = rx.recv() => match next {
                    Some(entry) => batch.push(entry),
                    None => break,
                },
            }
        }
        if let Err(err) = hub.record_mock_requests(&batch).await {
            tracing::warn!(error = %err, rows = batch.len(), "mock request log write failed");
        }
        batch.clear();
    }
}

/// `/mock/<slug>[@<version>]/<path...>` for any method.
pub async fn serve(State(server): State<Arc<MockServer>>, request: Request) -> Response {
    server.requests.increment(1);
    if request.method() == Method::OPTIONS && request.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD) {
        return preflight();
    }
    let mut response = match serve_inner(&server, request).await {
        Ok(response) => response,
        Err(error) => {
            let mut response = error.into_response();
            response.headers_mut().insert("x-mock-server", HeaderValue::from_static(mock::SERVER_NAME));
            response
        }
    };
    open_cors(response.headers_mut());
    platform::http::tenant_content_headers(response.headers_mut());
    response
}

/// The hosted mock is open to every origin, as `CorsLayer::permissive`
/// answers; written out because that layer's configuration is cloned for
/// every request, which measurably slowed every mock answer (callgrind).
fn open_cors(headers: &mut axum::http::HeaderMap) {
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("*"));
    headers.append(header::VARY, HeaderValue::from_static(CORS_VARY));
}

const CORS_VARY: &str = "origin, access-control-request-method, access-control-request-headers";

/// A CORS preflight: any method and any header from any origin.
fn preflight() -> Response {
    let mut response = StatusCode::OK.into_response();
    let headers = response.headers_mut();
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("*"));
    headers.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("*"));
    headers.append(header::VARY, HeaderValue::from_static(CORS_VARY));
    platform::http::tenant_content_headers(headers);
    response
}

/// `/mock/...` on the hub's origin when the mock has its own
/// (`SVC_PUBLIC_URL_MOCK`): 308 keeps the method and body.
pub async fn redirect(State(mock_origin): State<String>, uri: axum::http::Uri) -> Response {
    let target = match uri.query() {
        Some(query) => format!("{mock_origin}{}?{query}", uri.path()),
        None => format!("{mock_origin}{}", uri.path()),
    };
    let mut response = StatusCode::PERMANENT_REDIRECT.into_response();
    if let Ok(location) = HeaderValue::from_str(&target) {
        response.headers_mut().insert(axum::http::header::LOCATION, location);
    }
    platform::http::tenant_content_headers(response.headers_mut());
    response
}

async fn serve_inner(server: &MockServer, request: Request) -> Result<Response, ApiError> {
    let started = Instant::now();
    if let Some(domains) = &server.domains
        && crate::docs_site::is_custom_domain(domains, request.headers()).await
    {
        return Err(ApiError::new(Code::NotFound, "a custom domain serves its project's docs only"));
    }
    let peer = crate::peer_ip(&request);
    let ip = server.proxies.client_ip(peer, request.headers());
    let (mut parts, body) = request.into_parts();
    let full = parts.uri.path();
    let rest = full.strip_prefix("/mock/").unwrap_or("");
    // The path inside the project keeps its leading slash.
    let (head, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    };
    let (slug, label) = match head.split_once('@') {
        Some((slug, label)) => (slug, Some(label)),
        None => (head, None),
    };
    server.check_ip_rate(ip).await?;
    let loaded = match server.snapshot(slug).await? {
        Ok(loaded) => loaded,
        Err(MockClosed::NotFound) => return Err(ApiError::new(Code::NotFound, "project not found")),
        Err(MockClosed::PasswordProtected) => {
            // A docs session opens the mock; such snapshots are never cached
            // under the slug (a visitor without the cookie must not reuse them).
            let session = crate::docs_site::session_cookie(&server.cookies, &parts.headers, slug);
            match session {
                Some(session) => match server.hub.mock_snapshot_for(slug, Some(&session)).await? {
                    Ok(snapshot) => Arc::new(Loaded::new(snapshot)),
                    Err(_) => return Err(password_required(slug)),
                },
                None => return Err(password_required(slug)),
            }
        }
    };
    // The docs password session (read above, for a protected project) was
    // the last use of the hub's cookies: from here on the request is the
    // tenant's, and no match, template, validation or log sees them.
    platform::web::remove_cookies(&mut parts.headers, crate::is_hub_cookie);
    server.check_project_rate(&loaded.snapshot.project_id).await?;
    let body = platform::http::read_body_limited(&parts.headers, body, MAX_BODY_BYTES)
        .await
        .map_err(|e| ApiError::new(Code::PayloadTooLarge, e.to_string()))?;
    let query = parts.uri.query().unwrap_or("");
    let mock_request = mock::Request { method: &parts.method, path, query, headers: &parts.headers, body: &body };
    let snapshot = &loaded.snapshot;
    let version = pick_version(server, &loaded, label, path).await?;
    let mut rng = rand::rngs::SmallRng::from_rng(&mut rand::rng());
    let now = chrono::DateTime::from_timestamp_millis(server.hub.clock().now().as_millis()).unwrap_or_default();
    let reply = if let Some(reply) = {
        let mut ctx = Context { now, rng: &mut rng, sequence: None, version: &version.0.label };
        mock::respond_override(&loaded.overrides, &mock_request, &mut ctx)
    } {
        reply
    } else {
        let (version, engine) = version;
        let sequence = if Prefer::parse(&parts.headers, query).example == Some(ExampleChoice::Sequential) {
            match engine.route(&parts.method, path) {
                Some(route) => Some(
                    server
                        .hub
                        .mock_sequence(&snapshot.project_id, &version.label, parts.method.as_str(), &route.template)
                        .await?,
                ),
                None => None,
            }
        } else {
            None
        };
        if snapshot.settings.validate_requests && !body.is_empty() && !engine.validates_inline(body.len()) {
            // Validating this body may run the description's own patterns:
            // off the async workers, within a time budget.
            validate_off_workers(&engine, &parts, path, query, &body, &snapshot.settings, now, sequence, &version.label)
                .await?
        } else {
            let mut ctx = Context { now, rng: &mut rng, sequence, version: &version.label };
            engine.respond(&mock_request, &snapshot.settings, &mut ctx)
        }
    };
    // Most requests above the log's sampling rate are not logged: decide
    // before building the row.
    if server.log_sampled(&loaded, started) {
        let label = reply.headers.get("x-mock-version").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let entry = LogEntry {
            id: None,
            project_id: snapshot.project_id.clone(),
            at: now.timestamp_millis(),
            method: parts.method.to_string(),
            path: path.chars().take(2048).collect(),
            query: query.chars().take(2048).collect(),
            status: i32::from(reply.status.as_u16()),
            synth: reply.synth().unwrap_or_default().to_owned(),
            override_id: reply.headers.get("x-mock-override-id").and_then(|v| v.to_str().ok()).map(str::to_owned),
            version: label,
            duration_us: i64::try_from(started.elapsed().as_micros()).unwrap_or(i64::MAX),
            client_ip: ip.to_string(),
        };
        server.record(entry);
    }
    Ok(into_response(reply, &parts.method).await)
}

/// How long validating and answering one request body may take.
const VALIDATION_BUDGET: Duration = Duration::from_secs(2);

/// Answers a request whose body is validated on the blocking pool. Every
/// pattern check is bounded by the validator's backtrack limit, so the task
/// ends; the request does not wait past [`VALIDATION_BUDGET`] for it.
#[expect(clippy::too_many_arguments, reason = "the owned parts of one request, moved to another thread")]
async fn validate_off_workers(
    engine: &Arc<Engine>,
    parts: &axum::http::request::Parts,
    path: &str,
    query: &str,
    body: &bytes::Bytes,
    settings: &mock::Settings,
    now: chrono::DateTime<chrono::Utc>,
    sequence: Option<u64>,
    label: &str,
) -> Result<Reply, ApiError> {
    let (engine, method, headers) = (engine.clone(), parts.method.clone(), parts.headers.clone());
    let (path, query, body, settings, label) =
        (path.to_owned(), query.to_owned(), body.clone(), settings.clone(), label.to_owned());
    let task = tokio::task::spawn_blocking(move || {
        let request = mock::Request { method: &method, path: &path, query: &query, headers: &headers, body: &body };
        let mut rng = rand::rngs::SmallRng::from_rng(&mut rand::rng());
        let mut ctx = Context { now, rng: &mut rng, sequence, version: &label };
        engine.respond(&request, &settings, &mut ctx)
    });
    match tokio::time::timeout(VALIDATION_BUDGET, task).await {
        Ok(Ok(reply)) => Ok(reply),
        Ok(Err(err)) => Err(hub_core::HubError::Internal(format!("mock validation task failed: {err}")).into()),
        Err(_) => Err(ApiError::new(
            Code::ServiceUnavailable,
            format!(
                "validating this request took longer than {} s; simplify its body or the schema's patterns",
                VALIDATION_BUDGET.as_secs()
            ),
        )),
    }
}

fn password_required(slug: &str) -> ApiError {
    ApiError::new(
        Code::PasswordRequired,
        format!("this project is password-protected; open its docs at /docs/{slug} and enter the password first"),
    )
}

type Chosen<'a> = (&'a MockVersion, Arc<Engine>);

/// Rule 11: an explicit `@label`; else the default version; in projects
/// whose versions are all REST, the first other version that has the path
/// when the default does not.
async fn pick_version<'a>(
    server: &MockServer,
    loaded: &'a Loaded,
    label: Option<&str>,
    path: &str,
) -> Result<Chosen<'a>, ApiError> {
    let versions = &loaded.snapshot.versions;
    if let Some(label) = label {
        let (index, version) = versions
            .iter()
            .enumerate()
            .find(|(_, v)| v.label == label)
            .ok_or_else(|| ApiError::new(Code::NotFound, format!("version `{label}` not found")))?;
        return Ok((version, server.engine_of(loaded, index).await?));
    }
    let Some(default) = versions.first() else {
        return Err(ApiError::new(Code::NotFound, "the project has no version to mock yet; push a spec first"));
    };
    let engine = server.engine_of(loaded, 0).await?;
    if !loaded.falls_through || engine.has_path(path) {
        return Ok((default, engine));
    }
    for (index, version) in versions.iter().enumerate().skip(1).filter(|(_, v)| !v.is_preview) {
        let other = server.engine_of(loaded, index).await?;
        if other.has_path(path) {
            return Ok((version, other));
        }
    }
    Ok((default, engine))
}

/// Waits the simulated latency, then turns the engine's reply into a
/// response (HEAD answers carry no body).
pub async fn into_response(reply: Reply, method: &Method) -> Response {
    if reply.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(reply.delay_ms.min(60_000))).await;
    }
    let body = if method == Method::HEAD { Body::empty() } else { Body::from(reply.body) };
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(reply.status.as_u16()).unwrap_or(StatusCode::OK);
    let mut headers = reply.headers;
    // Headers a description declares (with examples) or an override sets
    // that would reach the origin's cookies or policies never leave. Names
    // in a map are lowercase already; nothing is allocated unless one is
    // found. (The sandbox headers are added by the callers, once.)
    if headers.keys().any(|name| mock::overrides::is_forbidden_header_name(name.as_str())) {
        let forbidden: Vec<_> =
            headers.keys().filter(|name| mock::overrides::is_forbidden_header_name(name.as_str())).cloned().collect();
        for name in forbidden {
            headers.remove(name);
        }
    }
    *response.headers_mut() = headers;
    response
}

/// The engine behind `svc mock`: one local document, no store. Sequential
/// counters live in memory; the document can be swapped while serving.
pub struct LocalMock {
    engine: std::sync::RwLock<Arc<Engine>>,
    settings: mock::Settings,
    overrides: Vec<mock::overrides::Compiled>,
    /// Zero per minute leaves it off.
    per_ip: Throttle<IpAddr>,
    sequences: Mutex<HashMap<(String, String), u64>>,
    label: String,
}

impl std::fmt::Debug for LocalMock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalMock").field("label", &self.label).finish_non_exhaustive()
    }
}

impl LocalMock {
    /// `per_ip_per_minute` 0 leaves rate limiting off (the default of `svc mock`).
    #[must_use]
    pub fn new(
        engine: Engine,
        settings: mock::Settings,
        overrides: Vec<mock::overrides::Override>,
        per_ip_per_minute: u32,
        label: String,
    ) -> Self {
        Self {
            engine: std::sync::RwLock::new(Arc::new(engine)),
            settings,
            overrides: mock::overrides::compile(overrides),
            per_ip: Throttle::per_minute(per_ip_per_minute),
            sequences: Mutex::new(HashMap::new()),
            label,
        }
    }

    /// Serves `engine` from now on (the file changed).
    pub fn replace(&self, engine: Engine) {
        if let Ok(mut current) = self.engine.write() {
            *current = Arc::new(engine);
        }
        if let Ok(mut sequences) = self.sequences.lock() {
            sequences.clear();
        }
    }

    fn current(&self) -> Option<Arc<Engine>> {
        self.engine.read().ok().map(|engine| engine.clone())
    }
}

/// The router of `svc mock`: every path of the document at the root, open CORS.
pub fn local_router(local: Arc<LocalMock>) -> axum::Router {
    axum::Router::new()
        .route("/", axum::routing::any(serve_local))
        .route("/{*path}", axum::routing::any(serve_local))
        .layer(tower_http::cors::CorsLayer::permissive())
        .layer(axum::extract::DefaultBodyLimit::disable())
        .with_state(local)
}

async fn serve_local(State(local): State<Arc<LocalMock>>, request: Request) -> Response {
    let mut response = match serve_local_inner(&local, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    };
    platform::http::tenant_content_headers(response.headers_mut());
    response
}

async fn serve_local_inner(local: &LocalMock, request: Request) -> Result<Response, ApiError> {
    let ip = crate::peer_ip(&request);
    local
        .per_ip
        .check_local(&ip)
        .map_err(|refused| rate_limited(refused.per_minute, Duration::from_secs(refused.secs), "this client"))?;
    let (parts, body) = request.into_parts();
    let body = platform::http::read_body_limited(&parts.headers, body, MAX_BODY_BYTES)
        .await
        .map_err(|e| ApiError::new(Code::PayloadTooLarge, e.to_string()))?;
    let path = parts.uri.path();
    let query = parts.uri.query().unwrap_or("");
    let mock_request = mock::Request { method: &parts.method, path, query, headers: &parts.headers, body: &body };
    let engine =
        local.current().ok_or_else(|| ApiError::from(hub_core::HubError::Internal("engine lock poisoned".into())))?;
    let reply = respond_local(local, &engine, &mock_request);
    Ok(into_response(reply, &parts.method).await)
}

/// Answers synchronously (the RNG must not live across an await).
fn respond_local(local: &LocalMock, engine: &Engine, request: &mock::Request<'_>) -> Reply {
    let mut rng = rand::rngs::SmallRng::from_rng(&mut rand::rng());
    let mut ctx = Context { now: chrono::Utc::now(), rng: &mut rng, sequence: None, version: &local.label };
    if let Some(reply) = mock::respond_override(&local.overrides, request, &mut ctx) {
        return reply;
    }
    if Prefer::parse(request.headers, request.query).example == Some(ExampleChoice::Sequential)
        && let Some(route) = engine.route(request.method, request.path)
        && let Ok(mut sequences) = local.sequences.lock()
    {
        let counter = sequences.entry((request.method.to_string(), route.template)).or_insert(0);
        ctx.sequence = Some(*counter);
        *counter += 1;
    }
    engine.respond(request, &local.settings, &mut ctx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_budget_takes_a_fixed_number_of_rows_per_window() {
        let budget = LogBudget::default();
        let taken = (0..LOG_ROWS_PER_SECOND + 50).filter(|_| budget.take(7)).count();
        assert_eq!(taken, LOG_ROWS_PER_SECOND as usize);
        assert!(!budget.take(7), "the window stays spent");
        assert!(budget.take(8), "the next second starts a new window");
        let taken = 1 + (0..LOG_ROWS_PER_SECOND).filter(|_| budget.take(8)).count();
        assert_eq!(taken, LOG_ROWS_PER_SECOND as usize);
    }

    #[test]
    fn log_budget_is_exact_across_threads() {
        let budget = Arc::new(LogBudget::default());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let budget = budget.clone();
                std::thread::spawn(move || (0..1000).filter(|_| budget.take(3)).count())
            })
            .collect();
        let total: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(total, LOG_ROWS_PER_SECOND as usize);
    }
}
