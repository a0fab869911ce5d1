//! The hub's HTTP surface: the `/api/v1` management API, its OpenAPI
//! document, cron routes and the operational endpoints.
//!
//! Handlers are thin: they extract, call one `hub_core::Hub` use case and map
//! the result to a wire type. Status codes and the error envelope live only
//! here ([`error`]); SQL and business rules live only in `hub-core`.

mod compression;
pub mod dashboard;
pub mod docs_assistant;
pub mod docs_site;
pub mod error;
pub mod extract;
pub mod llms;
pub mod mcp;
pub mod mock_server;
pub mod routes;
pub mod wire;

use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use hub_core::Hub;
use kernel::Secret;

use crate::error::{ApiError, Code};

/// The OpenAPI 3.1 description of `/api/v1`, served at `/api/v1/openapi.json`.
pub const OPENAPI_DOCUMENT: &str = include_str!("../openapi/v1.json");

/// Shared state of every handler.
#[derive(Clone, Debug)]
pub struct AppState {
    pub hub: Hub,
    pub cron_secret: Secret<String>,
    /// The guarded client of the docs' Try-It relay (`SVC_OUTBOUND_ALLOW`).
    pub outbound: platform::outbound::Outbound,
    /// How the hub meets browsers and proxies (cookies, CSRF, the mock's
    /// origin); shared, since the state is cloned for every request.
    pub web: std::sync::Arc<WebConfig>,
}

/// The operator's settings of the hub's pages and origins.
#[derive(Clone, Debug)]
pub struct WebConfig {
    /// The hub's public URL (`SVC_PUBLIC_URL_HUB`).
    pub public_url: String,
    /// Cookie attributes, from the hub's public URL (https: `Secure`, `__Host-`).
    pub cookies: platform::web::CookiePolicy,
    /// CSRF tokens of cookie-authenticated forms.
    pub csrf: platform::web::Csrf,
    /// Proxies whose `X-Forwarded-For` names the client (`SVC_TRUSTED_PROXIES`).
    pub proxies: platform::net::TrustedProxies,
    /// The tenant-content origin (`SVC_PUBLIC_URL_MOCK`, no trailing slash):
    /// when set, the hosted mock lives there and `/mock/...` on the hub's
    /// origin answers 308 to it.
    pub mock_public_url: Option<String>,
    /// Where every rate limit of the hub counts: memory on one node, Redis
    /// or PostgreSQL when nodes share their limits.
    pub limiter: platform::limiter::Limiter,
}

impl WebConfig {
    /// Settings for the hub at `public_url` with `key` as the secret key.
    #[must_use]
    pub fn new(public_url: &str, key: &platform::secrets::SecretKey) -> Self {
        let cookies = platform::web::CookiePolicy::for_public_url(public_url);
        Self {
            public_url: public_url.trim_end_matches('/').to_owned(),
            csrf: platform::web::Csrf::new(key, cookies.clone())
                .with_cookie_name(CSRF_COOKIE)
                .bound_to_session(dashboard::SESSION_COOKIE),
            cookies,
            proxies: platform::net::TrustedProxies::default(),
            mock_public_url: None,
            limiter: platform::limiter::Limiter::memory(),
        }
    }

    /// The base of mock links: the mock's own origin, or `/mock` on the hub's.
    #[must_use]
    pub fn mock_base(&self) -> String {
        self.mock_public_url.as_ref().map_or_else(|| "/mock".to_owned(), |url| format!("{url}/mock"))
    }
}

impl Default for WebConfig {
    /// Plain-HTTP cookies and a random key: tests and local development.
    fn default() -> Self {
        Self::new("http://127.0.0.1", &platform::secrets::SecretKey::generate())
    }
}

/// The start of the name of every cookie the hub sets (before the
/// `__Host-` prefix): the dashboard's session, CSRF and flash cookies, the
/// docs' member and password sessions. One prefix, so the rule below holds
/// for cookies added later, and so a tenant API's own `session` cookie is
/// not mistaken for ours.
pub const COOKIE_PREFIX: &str = "svc_";

/// The CSRF nonce cookie of the hub's forms.
pub const CSRF_COOKIE: &str = "svc_csrf";

/// Whether a cookie is one the hub sets on its own origin (its name starts
/// with [`COOKIE_PREFIX`], with or without `__Host-`). Tenant logic (the
/// hosted mock, and every later route that serves what tenants write) never
/// sees them: they are removed from a request before it is matched,
/// templated, validated or logged, so no override can copy a visitor's
/// session.
#[must_use]
pub fn is_hub_cookie(name: &str) -> bool {
    platform::web::unprefixed(name).starts_with(COOKIE_PREFIX)
}

/// The address a request's connection came from (the unspecified address
/// for a request without one, as in-process tests send); the client's own
/// address is this after the trusted-proxy rule (`TrustedProxies::client_ip`).
pub(crate) fn peer_ip(request: &axum::extract::Request) -> std::net::IpAddr {
    request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |info| info.0.ip())
}

/// The complete hub router (without the process-level layers the binary adds).
pub fn router(state: AppState) -> Router {
    router_with(state, mock_server::MockConfig::default())
}

/// The hub router with the hosted mock's operator settings.
pub fn router_with(state: AppState, mock_config: mock_server::MockConfig) -> Router {
    let db = state.hub.db().clone();
    let own_urls: Vec<&str> =
        [Some(state.web.public_url.as_str()), state.web.mock_public_url.as_deref()].into_iter().flatten().collect();
    let docs_state = std::sync::Arc::new(docs_site::DocsServer::new(
        state.hub.clone(),
        state.outbound.clone(),
        (*state.web).clone(),
    ));
    let docs = Router::new()
        .route("/docs/_signin", get(docs_site::signin_form).post(docs_site::signin))
        .route("/docs/_signout", get(docs_site::signout_form).post(docs_site::signout))
        .route("/docs/{slug}", get(docs_site::overview))
        .route("/docs/{slug}/", get(docs_site::overview))
        .route("/docs/{slug}/_login", axum::routing::post(docs_site::login))
        .route("/docs/{slug}/embed.json", get(docs_site::embed).layer(tower_http::cors::CorsLayer::permissive()))
        .route("/docs/{slug}/llms.txt", get(docs_site::llms_txt))
        .route("/docs/{slug}/{version}", get(docs_site::version_overview))
        .route("/docs/{slug}/{version}/llms.txt", get(docs_site::version_llms_txt))
        .route("/docs/{slug}/{version}/", get(docs_site::version_overview))
        .route("/docs/{slug}/{version}/op/{key}", get(docs_site::operation))
        .route("/docs/{slug}/{version}/tags/{tag}", get(docs_site::tag))
        .route("/docs/{slug}/{version}/schemas", get(docs_site::schemas))
        .route("/docs/{slug}/{version}/schemas/{name}", get(docs_site::schema))
        .route("/docs/{slug}/{version}/types/{name}", get(docs_site::graphql_type))
        .route("/docs/{slug}/{version}/graphql/{kind}/{name}", get(docs_site::graphql_field))
        .route("/docs/{slug}/{version}/search", get(docs_site::search))
        .route("/docs/{slug}/{version}/openapi", get(docs_site::download))
        .route("/docs/{slug}/{version}/_tryit", post(docs_site::relay))
        .route("/docs/{slug}/{version}/_ask", post(docs_assistant::ask))
        .route("/docs/{slug}/{version}/_chat", post(docs_assistant::chat))
        .route("/_docs/{file}", get(docs_site::asset))
        .route("/widget.js", get(docs_site::widget))
        .layer(compression::layer())
        .with_state(docs_state.clone());
    let domains = docs_site::Domains::new(state.hub.clone(), docs.clone(), &own_urls);
    let mock_server = std::sync::Arc::new(
        mock_server::MockServer::new(state.hub.clone(), mock_config, &state.web).with_domains(Some(domains.clone())),
    );
    let mock = match &state.web.mock_public_url {
        // Tenant content has its own origin: the hub's only points there.
        Some(url) => Router::new()
            .route("/mock/{*rest}", any(mock_server::redirect))
            .route("/i/{*rest}", any(routes::inboxes::redirect))
            .with_state(url.clone()),
        // Custom domains never serve the mock (it sits outside
        // `host_routing`): the mock refuses them itself, which costs one
        // Host check per request instead of a middleware.
        None => mock_routes(mock_server.clone()).merge(inbox_routes(&state)),
    };
    // The per-project MCP server; its tools call the mock in-process.
    let mcp = Router::new().route("/api/mcp/{target}", any(mcp::handle)).with_state(mcp::McpState::new(mcp::McpCore {
        hub: state.hub.clone(),
        docs: docs_state.clone(),
        mock: mock_server,
        outbound: state.outbound.clone(),
        public_url: state.web.public_url.clone(),
    }));
    let (state_hub, state_web) = (state.hub.clone(), (*state.web).clone());
    let mock_admin = "/api/v1/projects/{slug}/mock";
    let project = "/api/v1/projects/{slug}";
    let api = Router::new()
        .route("/api/v1/projects", get(routes::projects::list).post(routes::projects::create))
        .route(
            "/api/v1/projects/{slug}",
            get(routes::projects::get).patch(routes::projects::update).delete(routes::projects::delete),
        )
        .route("/api/v1/projects/{slug}/versions", get(routes::versions::list).post(routes::versions::push))
        .route(
            "/api/v1/projects/{slug}/versions/{label}",
            get(routes::versions::get).patch(routes::versions::update).delete(routes::versions::delete),
        )
        .route(
            &format!("{project}/branding"),
            get(routes::docs_admin::get_branding).put(routes::docs_admin::put_branding),
        )
        .route(&format!("{project}/theme"), get(routes::docs_admin::get_theme).put(routes::docs_admin::put_theme))
        .route(
            &format!("{project}/customization"),
            get(routes::docs_admin::get_customization).put(routes::docs_admin::put_customization),
        )
        .route(
            &format!("{project}/endpoint-docs"),
            get(routes::docs_admin::list_endpoint_docs).put(routes::docs_admin::put_endpoint_docs),
        )
        .route(&format!("{project}/docs-password"), axum::routing::put(routes::docs_admin::put_password))
        .route("/api/v1/openapi.json", get(openapi_document))
        .route("/api/v1/collaborators", get(routes::team::list).post(routes::team::invite))
        .route("/api/v1/collaborators/{id}", axum::routing::patch(routes::team::update).delete(routes::team::remove))
        .route(
            &format!("{project}/collaborators/{{id}}"),
            axum::routing::put(routes::team::put_override).delete(routes::team::delete_override),
        )
        .route("/api/v1/invitations/{token}/accept", post(routes::team::accept))
        .route("/api/v1/audit", get(routes::audit::list))
        .route("/api/audit/export.csv", get(routes::audit::export_csv))
        .route("/api/v1/audit/settings", get(routes::audit::get_settings).put(routes::audit::put_settings))
        .route("/api/v1/audit/webhook/test", post(routes::audit::test_webhook))
        .route("/api/v1/audit/webhook/deliveries", get(routes::audit::deliveries))
        .route("/api/projects/{slug}/upload-token", post(routes::uploads::rotate))
        .route(&format!("{project}/mcp-token"), post(routes::uploads::rotate_mcp))
        .route("/api/projects/{slug}/upload", post(routes::uploads::upload))
        .route("/api/projects/{slug}/spec", get(routes::uploads::default_spec))
        .route("/api/projects/{slug}/diff", get(routes::diffs::diff))
        .route("/api/projects/{slug}/sdk", get(routes::sdks::sdk))
        .route("/api/cron/previews-prune", get(routes::cron::previews_prune).post(routes::cron::previews_prune))
        .route(
            "/api/cron/customizations-prune",
            get(routes::cron::customizations_prune).post(routes::cron::customizations_prune),
        )
        .route("/api/cron/mock-log-prune", get(routes::cron::mock_log_prune).post(routes::cron::mock_log_prune))
        .route("/api/cron/uptime", get(routes::cron::uptime).post(routes::cron::uptime))
        .route("/api/v1/inboxes", get(routes::inboxes::list).post(routes::inboxes::create))
        .route(
            "/api/v1/inboxes/{id}",
            get(routes::inboxes::get).patch(routes::inboxes::update).delete(routes::inboxes::delete),
        )
        .route("/api/v1/inboxes/{id}/captures", get(routes::inboxes::captures).delete(routes::inboxes::clear))
        .route(
            "/api/v1/inboxes/{id}/captures/{capture_id}",
            get(routes::inboxes::get_capture).delete(routes::inboxes::delete_capture),
        )
        .route("/api/v1/inboxes/{id}/captures/{capture_id}/replay", post(routes::inboxes::replay))
        .route("/api/v1/inboxes/{id}/captures/{capture_id}/override", post(routes::inboxes::capture_override))
        .route("/api/v1/inboxes/{id}/captures/{capture_id}/request", post(routes::inboxes::capture_request))
        .route("/api/v1/inboxes/{id}/send-test", post(routes::inboxes::send_test))
        .route(
            &format!("{project}/environments"),
            get(routes::workbench::list_environments).post(routes::workbench::create_environment),
        )
        .route(
            &format!("{project}/environments/{{id}}"),
            get(routes::workbench::get_environment)
                .patch(routes::workbench::update_environment)
                .delete(routes::workbench::delete_environment),
        )
        .route(
            &format!("{project}/requests"),
            get(routes::workbench::list_requests).post(routes::workbench::create_request),
        )
        .route(&format!("{project}/requests/export"), get(routes::workbench::export))
        .route(&format!("{project}/requests/import"), post(routes::workbench::import))
        .route(
            &format!("{project}/requests/{{id}}"),
            get(routes::workbench::get_request)
                .patch(routes::workbench::update_request)
                .delete(routes::workbench::delete_request),
        )
        .route(&format!("{project}/requests/{{id}}/run"), post(routes::workbench::run_request))
        .route(&format!("{project}/requests/{{id}}/runs"), get(routes::workbench::request_runs))
        .route(&format!("{project}/requests/{{id}}/curl"), get(routes::workbench::request_curl))
        .route(&format!("{project}/monitors"), get(routes::monitors::list))
        .route(&format!("{project}/monitors/status"), get(routes::monitors::status))
        .route(&format!("{project}/monitors/credentials"), get(routes::monitors::credentials))
        .route(
            &format!("{project}/monitors/credentials/{{scheme}}"),
            axum::routing::put(routes::monitors::put_credential).delete(routes::monitors::delete_credential),
        )
        .route(&format!("{project}/monitors/{{id}}"), axum::routing::patch(routes::monitors::update))
        .route(&format!("{project}/monitors/{{id}}/checks"), get(routes::monitors::checks))
        .route(&format!("{mock_admin}/settings"), get(routes::mock::get_settings).patch(routes::mock::update_settings))
        .route(
            &format!("{mock_admin}/overrides"),
            get(routes::mock::list_overrides).post(routes::mock::create_override),
        )
        .route(&format!("{mock_admin}/overrides/export"), get(routes::mock::export_overrides))
        .route(&format!("{mock_admin}/overrides/import"), post(routes::mock::import_overrides))
        .route(
            &format!("{mock_admin}/overrides/{{id}}"),
            get(routes::mock::get_override).patch(routes::mock::update_override).delete(routes::mock::delete_override),
        )
        .route(&format!("{mock_admin}/overrides/{{id}}/duplicate"), post(routes::mock::duplicate_override))
        .route(&format!("{mock_admin}/requests"), get(routes::mock::requests))
        // JSON bodies are read by `JsonObject` and `json_body` (1 MiB, in
        // the envelope); spec pushes stream with their own 50 MB limit.
        // Any other buffering extractor stops at the same 1 MiB.
        .layer(axum::extract::DefaultBodyLimit::max(platform::http::DEFAULT_BODY_LIMIT))
        .method_not_allowed_fallback(method_not_allowed)
        .layer(compression::layer())
        .layer(axum::Extension(docs_state.clone()))
        .with_state(state);
    let dashboard = dashboard::router(state_hub, state_web, docs_state.clone());
    let app = api
        .merge(mcp)
        .merge(docs)
        .merge(dashboard)
        .merge(platform::http::ops_routes(db))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(domains, docs_site::host_routing));
    // The hosted mock stays outside the request ids, access-log spans and
    // per-route metrics: at tens of thousands of requests a second they were
    // a quarter of its time (36% more throughput without them, measured).
    // It keeps its own request log and counts `mock_requests_total`.
    // Served by `platform::http::serve` with [`panic_response`].
    platform::http::instrument(app, "hub").merge(mock)
}

/// The hosted mock alone, for its own listener (`SVC_MOCK_LISTEN`): the
/// tenant-content origin serves nothing that reads the hub's cookies.
pub fn mock_router(state: &AppState, mock_config: mock_server::MockConfig) -> Router {
    let db = state.hub.db().clone();
    let mock_state = std::sync::Arc::new(mock_server::MockServer::new(state.hub.clone(), mock_config, &state.web));
    mock_routes(mock_state).merge(inbox_routes(state)).merge(platform::http::ops_routes(db)).fallback(not_found)
}

/// Webhook inboxes' capture URLs: tenant content, like the mock (outside
/// the hub's request instrumentation; the capture is its own record).
fn inbox_routes(state: &AppState) -> Router {
    let capture = std::sync::Arc::new(routes::inboxes::CaptureState {
        hub: state.hub.clone(),
        proxies: state.web.proxies.clone(),
    });
    Router::new()
        .route("/i/{id}", any(routes::inboxes::capture))
        .route("/i/{id}/{*rest}", any(routes::inboxes::capture))
        .layer(axum::extract::DefaultBodyLimit::disable())
        .with_state(capture)
}

fn mock_routes(mock_state: std::sync::Arc<mock_server::MockServer>) -> Router {
    // Open CORS (preflight included) is the handler's own; no body limit
    // beyond the mock's own.
    Router::new()
        .route("/mock/{*rest}", any(mock_server::serve))
        .layer(axum::extract::DefaultBodyLimit::disable())
        .with_state(mock_state)
}

/// The answer to a request whose handler panicked: the 500 envelope
/// (`platform::http::serve` answers with it).
pub fn panic_response() -> Response {
    ApiError::from(hub_core::HubError::Internal("a request handler panicked".into())).into_response()
}

async fn openapi_document() -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], OPENAPI_DOCUMENT).into_response()
}

async fn not_found() -> ApiError {
    ApiError::new(Code::NotFound, "no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(Code::MethodNotAllowed, "this route does not support that method")
}
