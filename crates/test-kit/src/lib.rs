//! Dev-only helpers for the services' test suites: a hub on a fresh SQLite
//! file or a fresh PostgreSQL database, a manual clock, and in-process
//! requests against the real router.
//!
//! PostgreSQL tests use `TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`) to create one database per
//! test. When no server answers they are skipped with a message, unless
//! `REQUIRE_POSTGRES=1` (set by `scripts/test`) makes that a failure.

#![expect(clippy::expect_used, reason = "test helpers fail loudly with a message")]

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use http_body_util::BodyExt as _;
use hub_core::{Hub, Plan, Source, User};
use hub_http::AppState;
use kernel::{ManualClock, Secret, Timestamp};
use platform::Db;
use serde_json::Value;
use tower::ServiceExt as _;

pub const CRON_SECRET: &str = "test-cron-secret";
/// 2026-11-22T00:00:00Z: tests start at a fixed instant.
pub const START: Timestamp = Timestamp::from_millis(1_795_305_600_000);

/// A hub with its router, clock and store, isolated from every other test.
pub struct TestApp {
    pub hub: Hub,
    pub router: Router,
    /// The same hub with the mock's rate limits off, for tests that send
    /// many mock requests (the default router keeps the seed's limits).
    pub unlimited: Router,
    pub clock: ManualClock,
    pub backend: &'static str,
    _dir: tempfile::TempDir,
}

/// What a request returned.
#[derive(Debug)]
pub struct TestResponse {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: bytes::Bytes,
}

impl TestResponse {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The `error.code` of an error envelope, checking the envelope's shape.
    pub fn error_code(&self) -> String {
        let body = self.json();
        let error = body.get("error").unwrap_or_else(|| panic!("not an error envelope: {body}"));
        assert!(error.get("message").and_then(Value::as_str).is_some_and(|m| !m.is_empty()), "no message: {body}");
        error["code"].as_str().unwrap_or_else(|| panic!("no code: {body}")).to_owned()
    }
}

impl TestApp {
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Db::open_sqlite(&dir.path().join("hub.db")).await.expect("sqlite opens");
        Self::build(db, dir, "sqlite").await
    }

    /// A hub on a fresh PostgreSQL database, or `None` (with a message) when
    /// no server is reachable and `REQUIRE_POSTGRES` is not set.
    pub async fn postgres() -> Option<Self> {
        let db = platform::testing::fresh_postgres("hubtest").await?;
        let dir = tempfile::tempdir().expect("temp dir");
        Some(Self::build(db, dir, "postgres").await)
    }

    async fn build(db: Db, dir: tempfile::TempDir, backend: &'static str) -> Self {
        db.migrate(&hub_core::MIGRATIONS).await.expect("migrations apply");
        let clock = ManualClock::new(START);
        // Loopback is allowed so relay tests can stand up a local API, and
        // webhook tests a local receiver.
        let allow = platform::outbound::AllowList::parse("127.0.0.1").expect("a valid allow list");
        let hub = Hub::new(db, &dir.path().join("blobs"), Arc::new(clock.clone()))
            .with_webhooks(platform::outbound::Outbound::guarded(allow.clone()))
            .with_relay(platform::outbound::Outbound::guarded(allow.clone()));
        let state = AppState {
            hub: hub.clone(),
            cron_secret: Secret::new(CRON_SECRET.to_owned()),
            outbound: platform::outbound::Outbound::guarded(allow),
            web: Arc::new(hub_http::WebConfig::default()),
        };
        let router = hub_http::router(state.clone());
        let off = hub_http::mock_server::MockConfig { per_project_per_minute: 0, per_ip_per_minute: 0 };
        let unlimited = hub_http::router_with(state, off);
        Self { hub, router, unlimited, clock, backend, _dir: dir }
    }

    /// The hub's router as an operator with other web settings would run it
    /// (an https public URL, trusted proxies, a separate mock origin).
    pub fn router_with_web(&self, web: hub_http::WebConfig) -> Router {
        let allow = platform::outbound::AllowList::parse("127.0.0.1").expect("a valid allow list");
        let state = AppState {
            hub: self.hub.clone(),
            cron_secret: Secret::new(CRON_SECRET.to_owned()),
            outbound: platform::outbound::Outbound::guarded(allow),
            web: Arc::new(web),
        };
        hub_http::router(state)
    }

    /// A router over another configuration of this app's hub (a model for
    /// the docs assistant, say), with the default web settings.
    pub fn router_for(&self, hub: Hub) -> Router {
        let allow = platform::outbound::AllowList::parse("127.0.0.1").expect("a valid allow list");
        let state = AppState {
            hub,
            cron_secret: Secret::new(CRON_SECRET.to_owned()),
            outbound: platform::outbound::Outbound::guarded(allow),
            web: Arc::new(hub_http::WebConfig::default()),
        };
        hub_http::router(state)
    }

    /// The SQLite file of this app, for tests that open it from a second
    /// handle as another process would.
    pub fn sqlite_path(&self) -> Option<std::path::PathBuf> {
        (self.backend == "sqlite").then(|| self._dir.path().join("hub.db"))
    }

    /// Where the hub writes mail (no SMTP in tests): one `.eml` file each.
    pub fn mail_dir(&self) -> std::path::PathBuf {
        self._dir.path().join("mail")
    }

    /// Creates a user on `plan` and a token for them.
    pub async fn user(&self, email: &str, plan: Plan) -> (User, String) {
        let user = self.hub.create_user(email, plan, None).await.expect("user created");
        let (_, token) = self.hub.create_token(email, "test", None, Source::System).await.expect("token created");
        (user, token.into_inner())
    }

    pub async fn request(&self, method: Method, path: &str, token: Option<&str>, body: Option<Body>) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let request = builder.body(body.unwrap_or_else(Body::empty)).expect("request builds");
        let response = self.router.clone().oneshot(request).await.expect("router answers");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.expect("body reads").to_bytes();
        TestResponse { status, headers, body }
    }

    /// Sends `request` to `router` and reads the whole response.
    pub async fn send(router: &Router, request: Request<Body>) -> TestResponse {
        let response = router.clone().oneshot(request).await.expect("router answers");
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.expect("body reads").to_bytes();
        TestResponse { status, headers, body }
    }

    /// A request to the mock (rate limits off) with extra headers.
    pub async fn mock(&self, method: Method, path: &str, headers: &[(&str, &str)], body: Option<&str>) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        let request =
            builder.body(body.map_or_else(Body::empty, |b| Body::from(b.to_owned()))).expect("request builds");
        Self::send(&self.unlimited, request).await
    }

    pub async fn get(&self, path: &str, token: &str) -> TestResponse {
        self.request(Method::GET, path, Some(token), None).await
    }

    pub async fn delete(&self, path: &str, token: &str) -> TestResponse {
        self.request(Method::DELETE, path, Some(token), None).await
    }

    pub async fn post_json(&self, path: &str, token: &str, body: &Value) -> TestResponse {
        self.request(Method::POST, path, Some(token), Some(Body::from(body.to_string()))).await
    }

    pub async fn patch_json(&self, path: &str, token: &str, body: &Value) -> TestResponse {
        self.request(Method::PATCH, path, Some(token), Some(Body::from(body.to_string()))).await
    }

    /// Pushes raw bytes as a spec with the given query string.
    pub async fn push(&self, slug: &str, token: &str, query: &str, spec: impl Into<Body>) -> TestResponse {
        let path = format!("/api/v1/projects/{slug}/versions{}{query}", if query.is_empty() { "" } else { "?" });
        self.request(Method::POST, &path, Some(token), Some(spec.into())).await
    }

    /// Creates a project and returns its slug.
    pub async fn project(&self, token: &str, name: &str) -> String {
        let response = self.post_json("/api/v1/projects", token, &serde_json::json!({ "name": name })).await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&response.body));
        response.json().get("slug").and_then(Value::as_str).expect("slug").to_owned()
    }
}

pub use platform::testing::{database_url, postgres_admin_url};

/// Runs each named scenario `async fn(TestApp)` once per store:
/// `mod <name> { sqlite, postgres }`.
#[macro_export]
macro_rules! on_both_stores {
    ($($scenario:ident),+ $(,)?) => {
        $(
            mod $scenario {
                #[tokio::test]
                async fn sqlite() {
                    super::$scenario($crate::TestApp::sqlite().await).await;
                }

                #[tokio::test]
                async fn postgres() {
                    if let Some(app) = $crate::TestApp::postgres().await {
                        super::$scenario(app).await;
                    }
                }
            }
        )+
    };
}
