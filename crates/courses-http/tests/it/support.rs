//! The courses service on a fresh SQLite file or a fresh PostgreSQL
//! database, a manual clock, and in-process requests against the real
//! router. PostgreSQL runs at `TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); when unreachable the
//! variant is skipped with a message unless `REQUIRE_POSTGRES=1`.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use courses_core::{Courses, Plan};
use courses_http::AppState;
use http_body_util::BodyExt as _;
use kernel::{ManualClock, Timestamp};
use platform::Db;
use serde_json::{Value, json};
use tower::ServiceExt as _;

/// 2026-11-22T00:00:00Z.
pub const START: Timestamp = Timestamp::from_millis(1_795_305_600_000);

pub struct TestApp {
    pub courses: Courses,
    pub router: Router,
    pub clock: ManualClock,
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

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Checks the seed's envelope (`error` and `message`, `issues` only on
    /// validation failures) and returns the code.
    pub fn error(&self) -> String {
        let body = self.json();
        let map = body.as_object().unwrap_or_else(|| panic!("not an object: {body}"));
        let code = map.get("error").and_then(Value::as_str).unwrap_or_else(|| panic!("no error code: {body}"));
        assert!(map.get("message").and_then(Value::as_str).is_some_and(|m| !m.is_empty()), "no message: {body}");
        let allowed = if code == "invalid_request" { 3 } else { 2 };
        assert!(map.len() <= allowed, "unexpected keys in {body}");
        code.to_owned()
    }

    /// The `path`s of the `issues` of a 400.
    pub fn issue_paths(&self) -> Vec<String> {
        self.json()["issues"]
            .as_array()
            .unwrap_or_else(|| panic!("no issues: {}", self.text()))
            .iter()
            .map(|i| {
                assert!(i["code"].is_string() && i["message"].is_string(), "{i}");
                i["path"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p.as_str().unwrap().to_owned())
                    .collect::<Vec<_>>()
                    .join(".")
            })
            .collect()
    }
}

impl TestApp {
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open_sqlite(&dir.path().join("courses.db")).await.unwrap();
        Self::build(db, dir).await
    }

    pub async fn postgres() -> Option<Self> {
        let db = platform::testing::fresh_postgres("coursestest").await?;
        Some(Self::build(db, tempfile::tempdir().unwrap()).await)
    }

    async fn build(db: Db, dir: tempfile::TempDir) -> Self {
        db.migrate(&courses_core::MIGRATIONS).await.unwrap();
        let clock = ManualClock::new(START);
        // Package files as a real deployment keeps them: a directory beside a
        // SQLite store, the database's blobs table with PostgreSQL.
        let blobs: Arc<dyn platform::blobs::BlobStore> = match db.backend() {
            platform::Backend::Sqlite => Arc::new(platform::blobs::FsBlobStore::new(dir.path().join("courses-blobs"))),
            platform::Backend::Postgres => Arc::new(platform::blobs::DbBlobStore::new(db.clone())),
        };
        // Mailed links (invitations) are written under the data dir.
        let mailer =
            platform::mail::Mailer::from_config(None, "svc courses <noreply@studio.test>", dir.path()).unwrap();
        let members = courses_core::members::MembersConfig {
            public_url: "http://studio.test".to_owned(),
            mailer: Some(mailer),
            signup: courses_core::members::SignupMode::Open,
        };
        let courses = Courses::new(db, Arc::new(clock.clone())).with_blobs(blobs).with_members(members);
        let router = courses_http::router(AppState::new(courses.clone()));
        Self { courses, router, clock, _dir: dir }
    }

    /// The same app with the service reconfigured (outbound guard, model).
    #[must_use]
    pub fn with_courses(mut self, configure: impl FnOnce(Courses) -> Courses) -> Self {
        self.courses = configure(self.courses);
        self.router = courses_http::router(AppState::new(self.courses.clone()));
        self
    }

    /// The same app with the router's state reconfigured (limits, proxies).
    #[must_use]
    pub fn with_state(mut self, configure: impl FnOnce(AppState) -> AppState) -> Self {
        self.router = courses_http::router(configure(AppState::new(self.courses.clone())));
        self
    }

    /// The texts of the mail written so far (`.txt` twins), oldest first.
    pub fn mails(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self._dir.path().join("mail")) else { return Vec::new() };
        let mut names: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        names.sort();
        names.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
    }

    /// Forgets the mail written so far (a test counts what follows).
    pub fn clear_mails(&self) {
        let _ = std::fs::remove_dir_all(self._dir.path().join("mail"));
    }

    /// A workspace on `plan` and a read-write key for it.
    pub async fn workspace(&self, plan: Plan) -> (String, String) {
        let ws = self.courses.create_workspace("Acme", plan).await.unwrap();
        let (_, key) = self.courses.create_key(&ws.id, "test", false).await.unwrap();
        (ws.id, key.into_inner())
    }

    pub async fn send(&self, method: Method, path: &str, key: Option<&str>, body: Option<Body>) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(key) = key {
            builder = builder.header("authorization", format!("Bearer {key}"));
        }
        let response =
            self.router.clone().oneshot(builder.body(body.unwrap_or_else(Body::empty)).unwrap()).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    pub async fn get(&self, path: &str, key: &str) -> TestResponse {
        self.send(Method::GET, path, Some(key), None).await
    }

    pub async fn delete(&self, path: &str, key: &str) -> TestResponse {
        self.send(Method::DELETE, path, Some(key), None).await
    }

    pub async fn post(&self, path: &str, key: &str, body: &Value) -> TestResponse {
        self.send(Method::POST, path, Some(key), Some(Body::from(body.to_string()))).await
    }

    pub async fn patch(&self, path: &str, key: &str, body: &Value) -> TestResponse {
        self.send(Method::PATCH, path, Some(key), Some(Body::from(body.to_string()))).await
    }

    pub async fn delete_json(&self, path: &str, key: &str, body: &Value) -> TestResponse {
        self.send(Method::DELETE, path, Some(key), Some(Body::from(body.to_string()))).await
    }

    /// Creates a course and returns its JSON.
    pub async fn course(&self, key: &str, body: &Value) -> Value {
        let response = self.post("/v1/courses", key, body).await;
        assert_eq!(response.status, StatusCode::CREATED, "{}", response.text());
        response.json()
    }

    /// A signed embed link (path and query) for `learner`, minted through the API.
    pub async fn embed_link(&self, key: &str, course_id: &str, learner: &str) -> String {
        let minted =
            self.post(&format!("/v1/courses/{course_id}/embed-links"), key, &json!({ "externalId": learner })).await;
        assert_eq!(minted.status, StatusCode::CREATED, "{}", minted.text());
        let path = minted.json()["path"].as_str().unwrap().to_owned();
        assert_eq!(minted.json()["url"], format!("http://studio.test{path}"), "an absolute URL beside the path");
        path
    }

    /// A request from the client address `peer` (as the server sees it).
    pub async fn send_from(&self, peer: &str, method: Method, path: &str, body: Option<Body>) -> TestResponse {
        let mut request = Request::builder().method(method).uri(path).body(body.unwrap_or_else(Body::empty)).unwrap();
        let addr: std::net::SocketAddr = format!("{peer}:40000").parse().unwrap();
        request.extensions_mut().insert(axum::extract::ConnectInfo(addr));
        let response = self.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    /// Sets this month's counter of `metric` for a workspace.
    pub async fn set_usage(&self, workspace_id: &str, metric: &str, count: i64) {
        let month = courses_core::plans::month_of(self.clock.now_ts());
        platform::with_db!(self.courses.db(), |pool| {
            sqlx::query(
                "INSERT INTO usage_counters (workspace_id, month, metric, count) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (workspace_id, month, metric) DO UPDATE SET count = excluded.count",
            )
            .bind(workspace_id)
            .bind(&month)
            .bind(metric)
            .bind(count)
            .execute(pool)
            .await
            .map(drop)
            .unwrap();
        });
    }
}

pub trait Now {
    fn now_ts(&self) -> Timestamp;
}

impl Now for ManualClock {
    fn now_ts(&self) -> Timestamp {
        kernel::Clock::now(self)
    }
}

/// A course with one quiz of two scored questions and a text block.
pub fn quiz_course(passing_score: Option<i64>) -> Value {
    json!({
        "title": "Fire safety",
        "passingScore": passing_score,
        "screens": [
            { "id": "intro", "title": "Welcome", "blocks": [{ "id": "t1", "type": "text", "text": "Read this first." }] },
            { "id": "quiz", "title": "Check", "blocks": [
                { "id": "q1", "type": "multiple_choice", "question": "Which extinguisher for oil?", "options": ["water", "foam"], "correctIndex": 1 },
                { "id": "q2", "type": "true_false", "statement": "Use lifts in a fire.", "answer": false },
            ]},
        ],
    })
}

/// Runs each scenario `async fn(TestApp)` once per store.
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

/// One request a [`Receiver`] got.
#[derive(Clone, Debug)]
pub struct Received {
    pub path: String,
    pub headers: HeaderMap,
    pub body: String,
}

type Reply = Arc<dyn Fn(usize, &Received) -> (u16, String) + Send + Sync>;

/// A real HTTP server on loopback that records what it gets and answers
/// with `reply(n, request)` (n counts from 0): a webhook receiver, or a
/// stand-in for an external model endpoint.
pub struct Receiver {
    pub url: String,
    pub received: Arc<std::sync::Mutex<Vec<Received>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    pub async fn start(reply: impl Fn(usize, &Received) -> (u16, String) + Send + Sync + 'static) -> Self {
        let received: Arc<std::sync::Mutex<Vec<Received>>> = Arc::default();
        let reply: Reply = Arc::new(reply);
        let log = received.clone();
        let app = Router::new().fallback(move |request: Request<Body>| {
            let log = log.clone();
            let reply = reply.clone();
            async move {
                let (parts, body) = request.into_parts();
                let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                let got = Received {
                    path: parts.uri.path().to_owned(),
                    headers: parts.headers,
                    body: String::from_utf8_lossy(&body).into_owned(),
                };
                let n = {
                    let mut log = log.lock().unwrap();
                    log.push(got.clone());
                    log.len() - 1
                };
                let (status, text) = reply(n, &got);
                (StatusCode::from_u16(status).unwrap(), [(axum::http::header::CONTENT_TYPE, "application/json")], text)
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        Self { url, received, task }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The text a certificate PDF prints, line by line, as a reader extracts
/// it: literal strings as they are, glyph ids of an embedded font through
/// the font's `ToUnicode` map.
pub fn pdf_lines(pdf: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(pdf);
    let mut map = std::collections::HashMap::new();
    for line in text.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        if let [glyph, unicode] = parts.as_slice()
            && glyph.len() == 6
            && glyph.starts_with('<')
            && unicode.starts_with('<')
            && *glyph != "<0000>"
        {
            let units: Vec<u16> = unicode
                .trim_matches(|c| c == '<' || c == '>')
                .as_bytes()
                .chunks(4)
                .map(|h| u16::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap())
                .collect();
            map.insert(glyph.trim_matches(|c| c == '<' || c == '>').to_owned(), String::from_utf16_lossy(&units));
        }
    }
    text.lines()
        .filter(|l| l.starts_with("BT ") && l.ends_with(" Tj ET"))
        .map(|l| {
            let shown = l.trim_end_matches(" Tj ET");
            if let Some(start) = shown.find(" Td <") {
                let hex = shown[start + 5..].trim_end_matches('>');
                hex.as_bytes()
                    .chunks(4)
                    .map(|g| map.get(std::str::from_utf8(g).unwrap()).cloned().unwrap_or_else(|| "?".to_owned()))
                    .collect()
            } else {
                let start = shown.find(" Td (").unwrap();
                shown[start + 5..shown.len() - 1].replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")
            }
        })
        .collect()
}

/// A PNG of two pixels, for a logo.
pub const TINY_PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00\x01\x08\x02\x00\x00\x00\x7b\x40\xe8\xdd\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\x50\x70\x38\x00\x44\x00\x06\xa7\x02\x41\x43\x04\x9c\x25\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";
