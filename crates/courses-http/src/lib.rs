//! The courses service's HTTP surface: the `/v1` API, its OpenAPI document,
//! the public embed with the learner player, and the operational endpoints.
//!
//! Handlers are thin: they extract, call one `courses_core::Courses` use
//! case and map the result to a wire shape. Status codes and the error
//! envelope live only here ([`error`]); SQL and business rules live only in
//! `courses-core`.

pub mod error;
pub mod extract;
pub mod list;
pub mod mcp;
pub mod openapi;
pub mod player;
pub mod routes;
pub mod scorm;
pub mod studio;
pub mod wire;

use std::net::IpAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse as _, Response};
use axum::routing::{delete, get, post, put};
use courses_core::Courses;
use platform::net::TrustedProxies;
use platform::throttle::Throttle;

use crate::error::{ApiError, Code};

/// Openings of the public embed (and calls of its view routes) per client
/// address per minute.
pub const EMBED_PER_IP_PER_MINUTE: u32 = 60;

/// Shared state of every handler.
#[derive(Clone, Debug)]
pub struct AppState {
    pub courses: Courses,
    /// Who may name the client in `X-Forwarded-For`.
    pub proxies: TrustedProxies,
    /// The public embed's per-address limit (keyed by the resolved client
    /// address, pruned of idle addresses).
    pub embed_throttle: Arc<Throttle<IpAddr>>,
    /// The studio's cookies, CSRF key and throttles.
    pub studio: Arc<studio::StudioWeb>,
    /// Where the service's rate limits count (memory, Redis or PostgreSQL).
    pub limiter: platform::limiter::Limiter,
}

impl AppState {
    /// The state with no trusted proxies and the default embed limit.
    pub fn new(courses: Courses) -> Self {
        Self {
            courses,
            proxies: TrustedProxies::default(),
            embed_throttle: Arc::new(Throttle::per_minute(EMBED_PER_IP_PER_MINUTE)),
            studio: Arc::new(studio::StudioWeb::default()),
            limiter: platform::limiter::Limiter::memory(),
        }
    }

    /// Counts the embed's and the studio's limits through `limiter`, so
    /// nodes sharing it share the budgets.
    #[must_use]
    pub fn with_limiter(mut self, limiter: platform::limiter::Limiter) -> Self {
        self.embed_throttle = Arc::new(Throttle::shared(&limiter, "embed.ip", self.embed_throttle.limit_per_minute()));
        self.studio = Arc::new(self.studio.with_limiter(&limiter));
        self.limiter = limiter;
        self
    }

    /// The studio's cookies and CSRF tokens for `public_url` under the
    /// service's secret key (shared by every node).
    #[must_use]
    pub fn with_studio(mut self, public_url: &str, key: &platform::secrets::SecretKey) -> Self {
        self.studio = Arc::new(studio::StudioWeb::new(public_url, key).with_limiter(&self.limiter));
        self
    }

    #[must_use]
    pub fn with_proxies(mut self, proxies: TrustedProxies) -> Self {
        self.proxies = proxies;
        self
    }

    /// Replaces the embed's per-address limit (0: unlimited).
    #[must_use]
    pub fn with_embed_limit(mut self, per_minute: u32) -> Self {
        self.embed_throttle = Arc::new(Throttle::shared(&self.limiter, "embed.ip", per_minute));
        self
    }
}

/// The answer of a request whose handler panicked: the 500 envelope.
pub fn panic_response() -> Response {
    ApiError::new(Code::InternalError, "internal error; retry once, then report the request id").into_response()
}

/// `router` with a panic in any handler answered by [`panic_response`].
pub fn with_panic_envelope(router: Router) -> Router {
    platform::http::catch_panics(router, panic_response)
}

/// The complete courses router, instrumented and with `/healthz`,
/// `/readyz` and `/metrics`.
pub fn router(state: AppState) -> Router {
    use routes as r;
    let db = state.courses.db().clone();
    let api = Router::new()
        .route("/v1/openapi.json", get(|| async { axum::Json(openapi::document()) }))
        .route("/v1/workspaces", get(r::list_workspaces))
        .route("/v1/workspaces/{id}", get(r::get_workspace).patch(r::update_workspace))
        .route("/v1/usage", get(r::usage))
        .route("/v1/api-keys", get(r::list_keys).post(r::create_key))
        .route("/v1/api-keys/{id}", delete(r::revoke_key))
        .route("/v1/block-types", get(r::block_types))
        .route("/v1/generate", post(r::generate))
        .route("/v1/mcp", post(mcp::handle))
        .route("/v1/courses", get(r::list_courses).post(r::create_course))
        .route("/v1/courses/import/csv", post(r::import_csv))
        .route("/v1/courses/import/scorm", post(r::import_scorm))
        .route("/v1/courses/{id}", get(r::get_course).patch(r::update_course).delete(r::delete_course))
        .route("/v1/courses/{id}/publish", post(r::publish_course))
        .route("/v1/courses/{id}/unpublish", post(r::unpublish_course))
        .route("/v1/courses/{id}/embed-links", post(r::mint_embed_link))
        .route("/v1/courses/{id}/scorm", get(r::export_scorm))
        .route("/v1/courses/{id}/screens", get(r::list_screens).post(r::add_screen))
        .route("/v1/courses/{id}/screens/order", put(r::reorder_screens))
        .route("/v1/courses/{id}/screens/{screen}", get(r::get_screen).patch(r::update_screen).delete(r::delete_screen))
        .route("/v1/courses/{id}/screens/{screen}/duplicate", post(r::duplicate_screen))
        .route("/v1/courses/{id}/screens/{screen}/blocks", get(r::list_blocks).post(r::add_block))
        .route(
            "/v1/courses/{id}/screens/{screen}/blocks/{block}",
            get(r::get_block).patch(r::update_block).delete(r::delete_block),
        )
        .route("/v1/identities", get(r::list_identities).post(r::create_identity))
        .route("/v1/identities/bulk", post(r::bulk_create_identities).delete(r::bulk_delete_identities))
        .route("/v1/identities/{id}", get(r::get_identity).delete(r::delete_identity))
        .route("/v1/completions", get(r::list_completions).post(r::create_completion))
        .route("/v1/completions/{id}", get(r::get_completion).delete(r::delete_completion))
        .route("/v1/issued-certificates", get(r::list_certificates).post(r::issue_certificate))
        .route("/v1/issued-certificates/{id}", get(r::get_certificate).delete(r::delete_certificate))
        .route("/v1/issued-certificates/{id}/pdf", get(r::certificate_pdf))
        .route("/v1/webhook-deliveries", get(r::list_deliveries))
        .route("/v1/webhooks/{id}/test", post(r::send_test_event))
        .route("/v1/{collection}", get(r::list_resources).post(r::create_resource))
        .route("/v1/{collection}/{id}", get(r::get_resource).patch(r::update_resource).delete(r::delete_resource))
        .route("/v1/embed/{course}", get(player::open))
        .route("/v1/embed/{course}/session", get(player::session))
        .route("/v1/embed/views/{view}/completion", post(player::complete))
        .route("/v1/embed/views/{view}/check", post(player::check))
        .route("/v1/embed/views/{view}/certificate", post(player::certificate))
        .route("/v1/embed/views/{view}/certificate.pdf", get(player::certificate_pdf))
        .route("/v1/embed/views/{view}/scorm", post(player::save_scorm_state))
        .route(scorm::RUNTIME_PATH, get(scorm::runtime))
        .route("/v1/embed/media/{id}", get(scorm::media))
        .route("/v1/embed/scorm/{package}/{*path}", get(scorm::file))
        // Bodies are bounded where they are read, while streaming (1 MiB
        // by default, SCORM packages 100 MB, CSV 8 MiB); this also bounds
        // any axum extractor a future handler might use.
        .layer(axum::extract::DefaultBodyLimit::max(platform::http::DEFAULT_BODY_LIMIT))
        .method_not_allowed_fallback(method_not_allowed)
        .merge(studio::router())
        .with_state(state);
    // Served by `platform::http::serve` with [`panic_response`].
    platform::http::instrument(api.merge(platform::http::ops_routes(db)).fallback(not_found), "courses")
}

async fn not_found() -> ApiError {
    ApiError::new(Code::NotFound, "no such route")
}

/// A method the route does not have: 405, except OPTIONS, which every
/// route answers with its `Allow` list (204). OPTIONS passes the same key
/// gate as the route's other methods (a read-only key may use it, as the
/// seed says); the public embed routes answer it without a key. The API
/// sends no CORS headers: keys are for servers, and the player calls its
/// own origin.
async fn method_not_allowed(
    State(s): State<AppState>,
    method: axum::http::Method,
    uri: axum::http::Uri,
    headers: axum::http::HeaderMap,
) -> Response {
    if method != axum::http::Method::OPTIONS {
        return ApiError::new(Code::MethodNotAllowed, "this route does not support that method").into_response();
    }
    let path = uri.path();
    if !path.starts_with("/v1/embed") {
        let authorization = headers.get(axum::http::header::AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
        if let Err(err) = s.courses.authorize(authorization, "OPTIONS").await {
            return ApiError::from(err).into_response();
        }
    }
    let allow = openapi::allowed_methods(path).join(", ");
    let mut response = axum::http::StatusCode::NO_CONTENT.into_response();
    if let Ok(value) = axum::http::HeaderValue::from_str(&allow) {
        response.headers_mut().insert(axum::http::header::ALLOW, value);
    }
    response
}
