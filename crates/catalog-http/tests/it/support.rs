//! The catalog's test support: a catalog on a fresh SQLite file or a fresh
//! PostgreSQL database, filled with a short synthesised library, driven
//! through the real router in-process.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use catalog_core::Catalog;
use catalog_http::AppState;
use http_body_util::BodyExt as _;
use kernel::{ManualClock, Timestamp};
use platform::Db;
use serde_json::Value;
use tower::ServiceExt as _;

pub const BASE: &str = "http://catalog.test";
pub const REDIRECT: &str = "http://127.0.0.1:9999/callback";
pub const START: Timestamp = Timestamp::from_millis(1_795_305_600_000);
pub const PASSWORD: &str = "correct horse battery";

pub struct TestApp {
    pub catalog: Catalog,
    pub router: Router,
    pub clock: ManualClock,
    pub backend: &'static str,
    _dir: tempfile::TempDir,
}

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

    /// Asserts Spotify's error object and returns its message.
    pub fn spotify_error(&self, status: u16) -> String {
        assert_eq!(self.status.as_u16(), status, "{}", String::from_utf8_lossy(&self.body));
        let body = self.json();
        assert_eq!(body["error"]["status"], status, "{body}");
        assert!(body["error"].get("reason").is_none(), "reason only on player errors: {body}");
        body["error"]["message"].as_str().unwrap_or_else(|| panic!("no message: {body}")).to_owned()
    }
}

impl TestApp {
    /// The folder the test library was synthesised into and scanned from.
    pub fn library(&self) -> std::path::PathBuf {
        self._dir.path().join("library")
    }

    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_sqlite(&dir.path().join("catalog.db")).await.unwrap();
        Self::build(db, dir, "sqlite").await
    }

    pub async fn postgres() -> Option<Self> {
        let db = platform::testing::fresh_postgres("catalogtest").await?;
        Some(Self::build(db, tempfile::tempdir().unwrap(), "postgres").await)
    }

    async fn build(db: Db, dir: tempfile::TempDir, backend: &'static str) -> Self {
        db.migrate(&catalog_core::MIGRATIONS).await.unwrap();
        let clock = ManualClock::new(START);
        let catalog = Catalog::new(db, Arc::new(clock.clone()));
        let library = dir.path().join("library");
        let files = catalog_core::synth::write_library(&library, 4.0).unwrap();
        let scanned = catalog.scan(&library, |_| {}).await.unwrap();
        assert_eq!(scanned.added, files);
        let router = catalog_http::router(AppState::new(catalog.clone(), BASE));
        Self { catalog, router, clock, backend, _dir: dir }
    }

    /// The same catalog and store, serving `markets` (`SVC_CATALOG_MARKETS`).
    #[must_use]
    pub fn with_markets(mut self, markets: catalog_core::markets::Markets) -> Self {
        self.catalog = self.catalog.clone().with_markets(markets);
        self.router = catalog_http::router(AppState::new(self.catalog.clone(), BASE));
        self
    }

    /// The same catalog and store, using `ffmpeg`.
    #[must_use]
    pub fn with_ffmpeg(mut self, ffmpeg: Option<catalog_core::transcode::Ffmpeg>) -> Self {
        self.catalog = self.catalog.clone().with_ffmpeg(ffmpeg);
        self.router = catalog_http::router(AppState::new(self.catalog.clone(), BASE));
        self
    }

    pub async fn request(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<(&str, Vec<u8>)>,
    ) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        let body = match body {
            Some((content_type, bytes)) => {
                builder = builder.header("content-type", content_type);
                Body::from(bytes)
            }
            None => Body::empty(),
        };
        let response = self.router.clone().oneshot(builder.body(body).unwrap()).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    pub async fn get(&self, path: &str, token: &str) -> TestResponse {
        self.request(Method::GET, path, Some(token), None).await
    }

    pub async fn send_json(&self, method: Method, path: &str, token: &str, body: &Value) -> TestResponse {
        self.request(method, path, Some(token), Some(("application/json", body.to_string().into_bytes()))).await
    }

    pub async fn form(&self, path: &str, pairs: &[(&str, &str)], basic: Option<(&str, &str)>) -> TestResponse {
        let mut headers = Vec::new();
        if let Some((id, secret)) = basic {
            use base64::Engine as _;
            let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
            headers.push(("authorization".to_owned(), format!("Basic {encoded}")));
        }
        self.form_with(path, pairs, &headers).await
    }

    /// POSTs a form with extra headers (a cookie, a forwarded address).
    pub async fn form_with(&self, path: &str, pairs: &[(&str, &str)], headers: &[(String, String)]) -> TestResponse {
        let mut builder = Request::builder()
            .method(Method::POST)
            .uri(path)
            .header("content-type", "application/x-www-form-urlencoded");
        for (name, value) in headers {
            builder = builder.header(name.as_str(), value.as_str());
        }
        let body = serde_urlencoded::to_string(pairs).unwrap();
        self.send(builder.body(Body::from(body)).unwrap()).await
    }

    /// Sends a prepared request through the router.
    pub async fn send(&self, request: Request<Body>) -> TestResponse {
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    /// Opens the login page for the OAuth parameters among `pairs` (as a
    /// browser would) and returns the CSRF cookie pair and the form's token.
    pub async fn login_page(&self, pairs: &[(&str, &str)]) -> (String, String) {
        self.login_page_on(&self.router, pairs).await
    }

    /// [`Self::login_page`] on another router (its own CSRF key).
    pub async fn login_page_on(&self, router: &Router, pairs: &[(&str, &str)]) -> (String, String) {
        let params: Vec<(&str, &str)> = pairs
            .iter()
            .copied()
            .filter(|(k, _)| !matches!(*k, "username" | "password" | "decision" | "csrf_token"))
            .collect();
        let query = serde_urlencoded::to_string(&params).unwrap();
        let request = Request::get(format!("/authorize?{query}")).body(Body::empty()).unwrap();
        let response = router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        let page = TestResponse { status, headers, body };
        assert_eq!(page.status, StatusCode::OK, "{}", String::from_utf8_lossy(&page.body));
        let cookie = page.headers["set-cookie"].to_str().unwrap().split(';').next().unwrap().to_owned();
        let html = String::from_utf8_lossy(&page.body);
        let token = html
            .split("name=\"csrf_token\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("no CSRF token in the login page: {html}"))
            .to_owned();
        (cookie, token)
    }

    /// Submits the login form as a browser does: the page first (its CSRF
    /// cookie and token), then the POST with both.
    pub async fn submit_login(&self, pairs: &[(&str, &str)]) -> TestResponse {
        let (cookie, token) = self.login_page(pairs).await;
        let mut with_token = pairs.to_vec();
        with_token.push(("csrf_token", &token));
        self.form_with("/authorize", &with_token, &[("cookie".to_owned(), cookie)]).await
    }

    /// An app and a user; returns (client_id, client_secret, user_id).
    pub async fn app_and_user(&self, name: &str) -> (String, String, String) {
        let (app, secret) = self.catalog.create_app("Test app", &[REDIRECT.to_owned()]).await.unwrap();
        let (user, _) = self.catalog.create_user(name, Some(kernel::Secret::new(PASSWORD.to_owned()))).await.unwrap();
        (app.client_id, secret.into_inner(), user.id)
    }

    /// Logs `username` in on `/authorize` and returns the code from the redirect.
    pub async fn authorize(&self, client_id: &str, username: &str, scope: &str, challenge: Option<&str>) -> String {
        let mut pairs = vec![
            ("client_id", client_id),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("scope", scope),
            ("state", "xyz"),
            ("username", username),
            ("password", PASSWORD),
            ("decision", "allow"),
        ];
        if let Some(c) = challenge {
            pairs.push(("code_challenge", c));
            pairs.push(("code_challenge_method", "S256"));
        }
        let response = self.submit_login(&pairs).await;
        assert!(response.status.is_redirection(), "{:?}: {}", response.status, String::from_utf8_lossy(&response.body));
        let location = response.headers["location"].to_str().unwrap().to_owned();
        assert!(location.starts_with(REDIRECT), "{location}");
        assert!(location.contains("state=xyz"), "{location}");
        let query = location.split_once('?').unwrap().1;
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap();
        pairs.into_iter().find(|(k, _)| k == "code").unwrap().1
    }

    /// A user token with `scope` through the authorization-code flow.
    pub async fn user_token(&self, username: &str, scope: &str) -> String {
        let (client_id, secret, _) = self.app_and_user(username).await;
        self.exchange(&client_id, &secret, username, scope).await
    }

    /// A token for an existing user through a fresh app.
    pub async fn token_for(&self, username: &str, scope: &str) -> String {
        let (app, secret) = self.catalog.create_app("Another app", &[REDIRECT.to_owned()]).await.unwrap();
        self.exchange(&app.client_id, secret.expose(), username, scope).await
    }

    async fn exchange(&self, client_id: &str, secret: &str, username: &str, scope: &str) -> String {
        let code = self.authorize(client_id, username, scope, None).await;
        let response = self
            .form(
                "/api/token",
                &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
                Some((client_id, secret)),
            )
            .await;
        assert_eq!(response.status, StatusCode::OK, "{}", String::from_utf8_lossy(&response.body));
        response.json()["access_token"].as_str().unwrap().to_owned()
    }

    /// Ids of the demo library's tracks, ordered by name.
    pub async fn track_ids(&self, token: &str) -> Vec<String> {
        let body = self.get("/v1/search?q=a&type=track&limit=50", token).await.json();
        let mut all = body["tracks"]["items"].as_array().unwrap().clone();
        all.sort_by_key(|t| t["name"].as_str().unwrap().to_owned());
        all.iter().map(|t| t["id"].as_str().unwrap().to_owned()).collect()
    }
}

/// Runs each scenario once per store.
#[macro_export]
macro_rules! on_both_stores {
    ($($scenario:ident),+ $(,)?) => {
        $(
            mod $scenario {
                #[tokio::test]
                async fn sqlite() {
                    super::$scenario($crate::support::TestApp::sqlite().await).await;
                }

                #[tokio::test]
                async fn postgres() {
                    if let Some(app) = $crate::support::TestApp::postgres().await {
                        super::$scenario(app).await;
                    }
                }
            }
        )+
    };
}

/// Asserts that `value` has every key in `keys` (null allowed).
pub fn has_keys(value: &Value, keys: &[&str]) {
    for key in keys {
        assert!(value.get(*key).is_some(), "missing key {key:?} in {value}");
    }
}

pub const TRACK_KEYS: &[&str] = &[
    "album",
    "artists",
    "available_markets",
    "disc_number",
    "duration_ms",
    "explicit",
    "external_ids",
    "external_urls",
    "href",
    "id",
    "is_playable",
    "name",
    "popularity",
    "preview_url",
    "track_number",
    "type",
    "uri",
    "is_local",
];
pub const ALBUM_KEYS: &[&str] = &[
    "album_type",
    "total_tracks",
    "available_markets",
    "external_urls",
    "href",
    "id",
    "images",
    "name",
    "release_date",
    "release_date_precision",
    "type",
    "uri",
    "artists",
    "tracks",
    "copyrights",
    "external_ids",
    "genres",
    "label",
    "popularity",
];
pub const ARTIST_KEYS: &[&str] =
    &["external_urls", "followers", "genres", "href", "id", "images", "name", "popularity", "type", "uri"];
pub const PAGING_KEYS: &[&str] = &["href", "items", "limit", "next", "offset", "previous", "total"];
