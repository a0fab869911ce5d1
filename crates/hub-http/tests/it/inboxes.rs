//! Webhook inboxes through the real router: every check before anything is
//! stored (signature, timestamp, Basic, allowlist, pause, size), captures
//! and their search, the ingest ledger against the plan's cap on an
//! injected clock, replay re-signed to a local receiver, the test event,
//! secrets never answered, and strangers answered 404.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode};
use base64::Engine as _;
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::{START, TestApp, TestResponse, on_both_stores};
use webhook_signatures::{Scheme, Signing};

on_both_stores!(
    captures_pass_every_check_or_are_not_stored,
    the_ledger_caps_captures_per_plan_window,
    concurrent_captures_never_pass_the_cap,
    replay_and_the_test_event_are_signed_afresh,
    settings_are_validated_owned_and_secret,
    captures_are_read_against_the_projects_webhooks
);

const SECRET: &str = "whsec_test_inbox_secret";

fn now_secs() -> i64 {
    START.as_millis() / 1000
}

async fn create(app: &TestApp, token: &str, body: Value) -> Value {
    let created = app.post_json("/api/v1/inboxes", token, &body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    created.json()
}

/// The inbox's path on the router (`/i/<id>`), from its capture URL.
fn path_of(inbox: &Value) -> String {
    let url = inbox["capture_url"].as_str().unwrap();
    format!("/i/{}", url.rsplit("/i/").next().unwrap())
}

async fn deliver(app: &TestApp, path: &str, headers: &[(String, String)], body: &str) -> TestResponse {
    let pairs: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    app.mock(Method::POST, path, &pairs, Some(body)).await
}

fn stripe(body: &str, at: i64) -> Vec<(String, String)> {
    let mut headers = Scheme::Stripe.sign(SECRET, body.as_bytes(), Signing { timestamp_secs: at, message_id: "" });
    headers.push(("content-type".into(), "application/json".into()));
    headers
}

async fn captures(app: &TestApp, token: &str, inbox: &Value, query: &str) -> Vec<Value> {
    let id = inbox["id"].as_str().unwrap();
    let listed = app.get(&format!("/api/v1/inboxes/{id}/captures{query}"), token).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", String::from_utf8_lossy(&listed.body));
    listed.json()["data"].as_array().unwrap().clone()
}

async fn captures_pass_every_check_or_are_not_stored(app: TestApp) {
    let (_, token) = app.user("hooks@example.com", Plan::Pro).await;
    let inbox =
        create(&app, &token, json!({"name": "Payments", "verification": {"scheme": "stripe", "secret": SECRET}})).await;
    let path = path_of(&inbox);
    let id = inbox["id"].as_str().unwrap().to_owned();

    // Signed as the sender signs: stored with its raw body and headers,
    // under any sub-path, with the tenant-content headers.
    let body = r#"{"id":"evt_1","type":"charge.succeeded"}"#;
    let mut headers = stripe(body, now_secs());
    headers.push(("cookie".into(), "svc_session=visitor-session; theirs=kept".into()));
    let ok = deliver(&app, &format!("{path}/stripe/events?attempt=1"), &headers, body).await;
    assert_eq!(ok.status, StatusCode::OK, "{}", String::from_utf8_lossy(&ok.body));
    assert!(ok.headers["content-security-policy"].to_str().unwrap().contains("sandbox"));
    let stored = captures(&app, &token, &inbox, "").await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["id"], ok.json()["captured"]);
    assert_eq!(stored[0]["body"], body);
    assert_eq!(stored[0]["body_encoding"], "utf8");
    assert_eq!(stored[0]["path"], "/stripe/events");
    assert_eq!(stored[0]["query"], "attempt=1");
    assert_eq!(stored[0]["verified"], true);
    let cookie = stored[0]["headers"].as_array().unwrap().iter().find(|h| h[0] == "cookie").unwrap()[1].clone();
    assert_eq!(cookie, "theirs=kept", "the hub's own cookies never reach a capture");

    // A one-byte change, a stale timestamp, another secret, no signature:
    // 401 with the reason, and nothing stored.
    let tampered = deliver(&app, &path, &stripe(body, now_secs()), &body.replace("evt_1", "evt_2")).await;
    assert_eq!((tampered.status, tampered.error_code()), (StatusCode::UNAUTHORIZED, "SIGNATURE_INVALID".into()));
    let stale = deliver(&app, &path, &stripe(body, now_secs() - 301), body).await;
    assert_eq!(stale.status, StatusCode::UNAUTHORIZED);
    assert!(stale.json()["error"]["message"].as_str().unwrap().contains("tolerance"), "{}", stale.json());
    let unsigned = deliver(&app, &path, &[], body).await;
    assert!(unsigned.json()["error"]["message"].as_str().unwrap().contains("Stripe-Signature"));
    assert_eq!(captures(&app, &token, &inbox, "").await.len(), 1, "refusals are not stored");
    let got = app.get(&format!("/api/v1/inboxes/{id}"), &token).await.json();
    assert_eq!(got["refused"], 3, "refusals are counted");

    // HTTP Basic: 401 with a challenge until the pair matches.
    let basic = json!({"basic_auth": {"username": "hooks", "password": "pa55word"}});
    assert_eq!(app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &basic).await.status, StatusCode::OK);
    let challenged = deliver(&app, &path, &stripe(body, now_secs()), body).await;
    assert_eq!(challenged.status, StatusCode::UNAUTHORIZED);
    assert!(challenged.headers["www-authenticate"].to_str().unwrap().starts_with("Basic "));
    let mut with_basic = stripe(body, now_secs());
    let credentials = base64::engine::general_purpose::STANDARD.encode("hooks:pa55word");
    with_basic.push(("authorization".into(), format!("Basic {credentials}")));
    assert_eq!(deliver(&app, &path, &with_basic, body).await.status, StatusCode::OK);

    // The allowlist: outside it, 403. (In-process requests come from the
    // unspecified address, 0.0.0.0.)
    let outside = json!({"allow_ips": ["203.0.113.0/24", "2001:db8::/32"]});
    assert_eq!(app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &outside).await.status, StatusCode::OK);
    let refused = deliver(&app, &path, &with_basic, body).await;
    assert_eq!((refused.status, refused.error_code()), (StatusCode::FORBIDDEN, "ADDRESS_NOT_ALLOWED".into()));
    let inside = json!({"allow_ips": ["0.0.0.0/32"]});
    assert_eq!(app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &inside).await.status, StatusCode::OK);
    assert_eq!(deliver(&app, &path, &with_basic, body).await.status, StatusCode::OK);

    // Paused: 503 with Retry-After, so the sender tries again later.
    let paused = app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &json!({"state": "paused"})).await;
    assert_eq!(paused.json()["state"], "paused");
    let waiting = deliver(&app, &path, &with_basic, body).await;
    assert_eq!((waiting.status, waiting.error_code()), (StatusCode::SERVICE_UNAVAILABLE, "INBOX_PAUSED".into()));
    assert_eq!(waiting.headers["retry-after"], "60");
    app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &json!({"state": "live"})).await;

    // Larger than 1 MiB: 413, nothing stored.
    let big = "x".repeat(1024 * 1024 + 1);
    let too_big = deliver(&app, &path, &with_basic, &big).await;
    assert_eq!(too_big.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(captures(&app, &token, &inbox, "").await.len(), 3);

    // Search, paging and clearing.
    let other = r#"{"id":"evt_9","type":"invoice.paid"}"#;
    let mut signed = stripe(other, now_secs());
    signed.push(("authorization".into(), format!("Basic {credentials}")));
    assert_eq!(deliver(&app, &path, &signed, other).await.status, StatusCode::OK);
    let found = captures(&app, &token, &inbox, "?q=INVOICE.paid").await;
    assert_eq!(found.len(), 1);
    assert_eq!(found[0]["body"], other);
    let page = captures(&app, &token, &inbox, "?limit=2").await;
    assert_eq!(page.len(), 2);
    assert_eq!(page[0]["body"], other, "newest first");
    let before = page[1]["id"].as_str().unwrap();
    let rest = captures(&app, &token, &inbox, &format!("?limit=100&before={before}")).await;
    assert_eq!(rest.len(), 2);
    let bad_limit = app.get(&format!("/api/v1/inboxes/{id}/captures?limit=101"), &token).await;
    assert_eq!(bad_limit.status, StatusCode::BAD_REQUEST);
    let cleared = app.delete(&format!("/api/v1/inboxes/{id}/captures"), &token).await;
    assert_eq!(cleared.json()["removed"], 4);
    assert!(captures(&app, &token, &inbox, "").await.is_empty());

    // Unknown inboxes and ids of the wrong shape are 404 alike.
    let unknown = deliver(&app, "/i/ibx_00000000000000000000000000000000", &[], "{}").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(deliver(&app, "/i/not-an-inbox", &[], "{}").await.status, StatusCode::NOT_FOUND);
}

async fn the_ledger_caps_captures_per_plan_window(app: TestApp) {
    let (_, token) = app.user("free-hooks@example.com", Plan::Free).await;
    let inbox = create(&app, &token, json!({"name": "Free"})).await;
    let path = path_of(&inbox);
    let id = inbox["id"].as_str().unwrap().to_owned();
    // Free: 500 captures per rolling 7 days, counted on the ledger.
    for n in 0..500 {
        let stored = deliver(&app, &path, &[], &format!("{{\"n\":{n}}}")).await;
        assert_eq!(stored.status, StatusCode::OK, "capture {n}");
        if n == 0 {
            app.clock.advance_days(1);
        }
    }
    let over = deliver(&app, &path, &[], "{}").await;
    assert_eq!((over.status, over.error_code()), (StatusCode::TOO_MANY_REQUESTS, "CAPTURE_LIMIT_REACHED".into()));
    // The first capture leaves the window in 6 days (it was made a day
    // before the others).
    assert_eq!(over.headers["retry-after"], (6 * 86_400).to_string());
    // Clearing the captures does not give them back.
    app.delete(&format!("/api/v1/inboxes/{id}/captures"), &token).await;
    assert_eq!(deliver(&app, &path, &[], "{}").await.status, StatusCode::TOO_MANY_REQUESTS);
    // Nor does a new inbox: the cap is the account's.
    let second = create(&app, &token, json!({"name": "Another"})).await;
    assert_eq!(deliver(&app, &path_of(&second), &[], "{}").await.status, StatusCode::TOO_MANY_REQUESTS);
    // Once the first capture's 7 days pass, one more fits.
    app.clock.advance_days(6);
    app.clock.advance_millis(1000);
    assert_eq!(deliver(&app, &path, &[], "{}").await.status, StatusCode::OK);
    assert_eq!(deliver(&app, &path, &[], "{}").await.status, StatusCode::TOO_MANY_REQUESTS);
    // Free holds 5 inboxes.
    for n in 0..3 {
        create(&app, &token, json!({"name": format!("Inbox {n}")})).await;
    }
    let sixth = app.post_json("/api/v1/inboxes", &token, &json!({"name": "Sixth"})).await;
    assert_eq!((sixth.status, sixth.error_code()), (StatusCode::PAYMENT_REQUIRED, "INBOX_LIMIT_REACHED".into()));
    // Captures older than the plan's window are pruned; the count shown
    // follows the window too.
    app.clock.advance_days(8);
    assert!(app.hub.prune_inboxes().await.unwrap() >= 1);
    assert!(captures(&app, &token, &inbox, "").await.is_empty());
}

/// A local receiver that keeps what it is sent.
async fn receiver() -> (String, Arc<Mutex<Vec<(HeaderMap, String)>>>) {
    let seen: Arc<Mutex<Vec<(HeaderMap, String)>>> = Arc::default();
    let kept = seen.clone();
    let app = Router::new().fallback(move |headers: HeaderMap, body: String| {
        let kept = kept.clone();
        async move {
            kept.lock().unwrap().push((headers, body));
            (StatusCode::ACCEPTED, "thanks")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    (format!("http://{addr}/hooks"), seen)
}

fn pairs(headers: &HeaderMap) -> Vec<(String, String)> {
    headers.iter().map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned())).collect()
}

async fn replay_and_the_test_event_are_signed_afresh(app: TestApp) {
    let (_, token) = app.user("replay@example.com", Plan::Pro).await;
    let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    let inbox =
        create(&app, &token, json!({"name": "Std", "verification": {"scheme": "standard-webhooks", "secret": secret}}))
            .await;
    let id = inbox["id"].as_str().unwrap().to_owned();
    let body = r#"{"type":"user.created","data":{"id":1}}"#;
    let signing = Signing { timestamp_secs: now_secs(), message_id: "msg_original" };
    let mut headers = Scheme::StandardWebhooks.sign(secret, body.as_bytes(), signing);
    headers.push(("x-custom".into(), "kept".into()));
    assert_eq!(deliver(&app, &path_of(&inbox), &headers, body).await.status, StatusCode::OK);
    let capture = captures(&app, &token, &inbox, "").await[0]["id"].as_str().unwrap().to_owned();

    // An hour later, the replay carries a fresh timestamp and signature
    // (the original would be stale by now), the same id and payload.
    app.clock.advance_millis(3_600_000);
    let (url, seen) = receiver().await;
    let replayed =
        app.post_json(&format!("/api/v1/inboxes/{id}/captures/{capture}/replay"), &token, &json!({ "url": url })).await;
    assert_eq!(replayed.status, StatusCode::OK, "{}", String::from_utf8_lossy(&replayed.body));
    assert_eq!(replayed.json()["status"], 202);
    let (got_headers, got_body) = seen.lock().unwrap().pop().unwrap();
    assert_eq!(got_body, body);
    assert_eq!(got_headers["x-custom"], "kept");
    assert_eq!(got_headers["webhook-id"], "msg_original");
    let later = now_secs() + 3600;
    assert_eq!(got_headers["webhook-timestamp"], later.to_string());
    assert_eq!(Scheme::StandardWebhooks.verify(secret, &pairs(&got_headers), body.as_bytes(), later, 300), Ok(()));

    // The guard refuses what it refuses by default (a link-local address).
    let guarded = app
        .post_json(
            &format!("/api/v1/inboxes/{id}/captures/{capture}/replay"),
            &token,
            &json!({"url": "http://169.254.169.254/latest"}),
        )
        .await;
    assert_eq!(guarded.json()["status"], Value::Null, "{}", guarded.json());

    // The test event: Stripe's v1 format with the inbox's secret, to a URL...
    let sent = app.post_json(&format!("/api/v1/inboxes/{id}/send-test"), &token, &json!({ "url": url })).await;
    assert_eq!(sent.json()["status"], 202);
    let (got_headers, got_body) = seen.lock().unwrap().pop().unwrap();
    assert_eq!(Scheme::Stripe.verify(secret, &pairs(&got_headers), got_body.as_bytes(), later, 300), Ok(()));
    assert_eq!(serde_json::from_str::<Value>(&got_body).unwrap()["type"], "inbox.test");
    // ...or to the inbox itself, through the same checks (a Stripe inbox
    // takes it).
    let stripe_inbox =
        create(&app, &token, json!({"name": "Pay", "verification": {"scheme": "stripe", "secret": SECRET}})).await;
    let sid = stripe_inbox["id"].as_str().unwrap();
    let itself = app.post_json(&format!("/api/v1/inboxes/{sid}/send-test"), &token, &json!({})).await;
    assert_eq!(itself.json()["status"], 200, "{}", itself.json());
    let stored = captures(&app, &token, &stripe_inbox, "").await;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0]["verified"], true);
}

async fn settings_are_validated_owned_and_secret(app: TestApp) {
    let (_, token) = app.user("owner@example.com", Plan::Pro).await;
    let (_, stranger) = app.user("stranger@example.com", Plan::Pro).await;
    let project = app.project(&token, "Linked").await;
    let inbox = create(
        &app,
        &token,
        json!({
            "name": "Custom",
            "project": project,
            "verification": {"scheme": "custom", "secret": "custom-secret-value", "header": "X-Sig",
                             "algorithm": "sha512", "encoding": "base64", "prefix": "v1=", "timestamp_header": "X-Ts"},
            "basic_auth": {"username": "u", "password": "basic-password-value"},
            "allow_ips": ["198.51.100.0/24"]
        }),
    )
    .await;
    let id = inbox["id"].as_str().unwrap().to_owned();
    assert_eq!(inbox["project"], project);
    assert_eq!(inbox["verification"]["scheme"], "custom");
    assert_eq!(inbox["verification"]["algorithm"], "sha512");
    assert_eq!(inbox["basic_auth"], json!({"username": "u"}));
    assert!(inbox["capture_url"].as_str().unwrap().ends_with(&format!("/i/{id}")));
    for answer in [
        app.get(&format!("/api/v1/inboxes/{id}"), &token).await,
        app.get("/api/v1/inboxes", &token).await,
        app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &json!({"name": "Renamed"})).await,
    ] {
        let text = String::from_utf8_lossy(&answer.body).into_owned();
        assert!(answer.status.is_success(), "{text}");
        assert!(!text.contains("custom-secret-value") && !text.contains("basic-password-value"), "{text}");
    }
    // A rename kept the secret: with the address and Basic checks taken
    // off, a capture signed with it verifies.
    let open = json!({"allow_ips": [], "basic_auth": null});
    assert_eq!(app.patch_json(&format!("/api/v1/inboxes/{id}"), &token, &open).await.status, StatusCode::OK);
    let scheme = Scheme::new(
        webhook_signatures::SchemeName::Custom,
        Some(webhook_signatures::Custom {
            header: "X-Sig".into(),
            algorithm: webhook_signatures::Algorithm::Sha512,
            encoding: webhook_signatures::Encoding::Base64,
            prefix: "v1=".into(),
            timestamp_header: Some("X-Ts".into()),
        }),
    )
    .unwrap();
    let body = r#"{"custom":true}"#;
    let signed =
        scheme.sign("custom-secret-value", body.as_bytes(), Signing { timestamp_secs: now_secs(), message_id: "" });
    assert_eq!(deliver(&app, &format!("/i/{id}"), &signed, body).await.status, StatusCode::OK);
    let wrong = scheme.sign("another-secret", body.as_bytes(), Signing { timestamp_secs: now_secs(), message_id: "" });
    assert_eq!(deliver(&app, &format!("/i/{id}"), &wrong, body).await.status, StatusCode::UNAUTHORIZED);

    // Strangers: 404 on every route, as for an inbox that does not exist.
    for (method, path) in [
        (Method::GET, format!("/api/v1/inboxes/{id}")),
        (Method::PATCH, format!("/api/v1/inboxes/{id}")),
        (Method::DELETE, format!("/api/v1/inboxes/{id}")),
        (Method::GET, format!("/api/v1/inboxes/{id}/captures")),
        (Method::DELETE, format!("/api/v1/inboxes/{id}/captures")),
    ] {
        let body = (method == Method::PATCH).then(|| axum::body::Body::from("{}"));
        let answer = app.request(method.clone(), &path, Some(&stranger), body).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{method} {path}");
    }
    assert!(app.get("/api/v1/inboxes", &stranger).await.json()["data"].as_array().unwrap().is_empty());
    // A project the caller cannot read answers as one that does not exist:
    // a bad field of the body.
    let theirs = app.post_json("/api/v1/inboxes", &stranger, &json!({"project": project})).await;
    let nowhere = app.post_json("/api/v1/inboxes", &stranger, &json!({"project": "no-such-project"})).await;
    assert_eq!(theirs.status, StatusCode::BAD_REQUEST);
    assert_eq!(theirs.json()["error"]["details"]["field"], "project");
    assert_eq!(theirs.body, nowhere.body, "the same answer for both");

    // Bad settings: 400 naming the field.
    for (body, field) in [
        (json!({"verification": {"scheme": "paypal", "secret": "x"}}), "verification.scheme"),
        (json!({"verification": {"scheme": "stripe"}}), "verification.secret"),
        (json!({"verification": {"scheme": "custom", "secret": "x"}}), "verification.header"),
        (json!({"verification": {"scheme": "standard-webhooks", "secret": "whsec_***"}}), "verification.secret"),
        (
            json!({"verification": {"scheme": "slack", "secret": "x", "tolerance_secs": 0}}),
            "verification.tolerance_secs",
        ),
        (json!({"allow_ips": ["10.0.0.0/33"]}), "allow_ips"),
        (json!({"basic_auth": {"username": "a:b", "password": "x"}}), "basic_auth.username"),
        (json!({"name": "   "}), "name"),
        (json!({"state": "paused"}), "state"),
    ] {
        let refused = app.post_json("/api/v1/inboxes", &token, &body).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(refused.json()["error"]["details"]["field"], field, "{body}: {}", refused.json());
    }
    let unknown = app.post_json("/api/v1/inboxes", &token, &json!({"colour": "red"})).await;
    assert_eq!((unknown.status, unknown.error_code()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR".into()));
    assert!(unknown.json()["error"]["message"].as_str().unwrap().contains("colour"));

    // Deleting removes it; its capture URL then answers 404.
    assert_eq!(app.delete(&format!("/api/v1/inboxes/{id}"), &token).await.status, StatusCode::NO_CONTENT);
    assert_eq!(deliver(&app, &format!("/i/{id}"), &[], body).await.status, StatusCode::NOT_FOUND);
}

/// Captures are committed in groups; a burst at the edge of the cap still
/// stores exactly the cap, and every 2xx is a stored capture.
async fn concurrent_captures_never_pass_the_cap(app: TestApp) {
    let (user, token) = app.user("burst@example.com", Plan::Free).await;
    let inbox = create(&app, &token, json!({"name": "Burst"})).await;
    let path = path_of(&inbox);
    let mut tasks = Vec::new();
    for n in 0..530 {
        let router = app.unlimited.clone();
        let path = path.clone();
        tasks.push(tokio::spawn(async move {
            let request = axum::http::Request::builder()
                .method(Method::POST)
                .uri(path)
                .body(axum::body::Body::from(format!("{{\"n\":{n}}}")))
                .unwrap();
            TestApp::send(&router, request).await.status
        }));
    }
    let mut ok = 0;
    let mut over = 0;
    for task in tasks {
        match task.await.unwrap() {
            StatusCode::OK => ok += 1,
            StatusCode::TOO_MANY_REQUESTS => over += 1,
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!((ok, over), (500, 30));
    let principal = hub_core::Principal { user_id: user.id, email: user.email, plan: Plan::Free, token_id: None };
    let id = inbox["id"].as_str().unwrap();
    let mut stored = 0;
    let mut before: Option<String> = None;
    loop {
        let page = app.hub.inbox_captures(&principal, id, 100, before.as_deref(), None).await.unwrap();
        stored += page.len();
        match page.last() {
            Some(last) if page.len() == 100 => before = Some(last.id.clone()),
            _ => break,
        }
    }
    assert_eq!(stored, 500, "every acknowledged capture is stored, and no more");
}

/// A description with OpenAPI 3.1 `webhooks` for the linked-project scenario.
const SHOP: &str = r##"{
  "openapi": "3.1.0",
  "info": {"title": "Shop", "version": "1.0.0"},
  "paths": {"/orders": {"get": {"operationId": "listOrders", "responses": {"200": {"description": "ok"}}}}},
  "webhooks": {
    "order.created": {"post": {"operationId": "orderCreated", "summary": "An order was placed",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OrderEvent"}}}},
      "responses": {"200": {"description": "ok"}}}},
    "refund.issued": {"post": {"operationId": "refundIssued", "summary": "A refund went out",
      "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RefundEvent"}}}},
      "responses": {"200": {"description": "ok"}}}}
  },
  "components": {"schemas": {
    "OrderEvent": {"type": "object", "required": ["type", "id", "total"], "properties": {
      "type": {"const": "order.created"}, "id": {"type": "string"}, "total": {"type": "integer", "minimum": 0}}},
    "RefundEvent": {"type": "object", "required": ["refund_id", "amount"], "additionalProperties": false, "properties": {
      "refund_id": {"type": "string"}, "amount": {"type": "integer"}}}
  }}
}"##;

async fn capture_detail(app: &TestApp, token: &str, inbox: &str, capture: &str) -> TestResponse {
    app.get(&format!("/api/v1/inboxes/{inbox}/captures/{capture}"), token).await
}

async fn captures_are_read_against_the_projects_webhooks(app: TestApp) {
    let (_, token) = app.user("events@example.com", Plan::Business).await;
    let slug = app.project(&token, "Shop").await;
    assert_eq!(app.push(&slug, &token, "label=v1", SHOP).await.status, StatusCode::CREATED);
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    let inbox = create(&app, &token, json!({"name": "Shop events", "project": slug})).await;
    assert_eq!(inbox["project"], slug.as_str());
    let id = inbox["id"].as_str().unwrap().to_owned();
    let json_type = [("content-type".to_owned(), "application/json".to_owned())];

    // Named by its body, with the field that does not fit.
    let misfit = r#"{"type": "order.created", "id": "o_1", "total": -5}"#;
    let got = deliver(&app, &path_of(&inbox), &json_type, misfit).await;
    let first = got.json()["captured"].as_str().unwrap().to_owned();
    let read = capture_detail(&app, &token, &id, &first).await;
    assert_eq!(read.status, StatusCode::OK, "{}", String::from_utf8_lossy(&read.body));
    let webhook = &read.json()["webhook"];
    assert_eq!(webhook["event"], "order.created", "{webhook}");
    assert_eq!(webhook["operation_id"], "orderCreated");
    assert_eq!(webhook["version"], "v1");
    assert_eq!(webhook["matched_by"], "event_name");
    assert_eq!(webhook["fits"], false);
    assert_eq!(webhook["issues"][0]["path"], "body.total", "{webhook}");
    assert_eq!(read.json()["body"], misfit, "the capture itself is answered as stored");

    // Told by its payload alone, and fitting.
    let refund = r#"{"refund_id": "r_9", "amount": 1250}"#;
    let got = deliver(&app, &format!("{}/refunds", path_of(&inbox)), &json_type, refund).await;
    let second = got.json()["captured"].as_str().unwrap().to_owned();
    let webhook = capture_detail(&app, &token, &id, &second).await.json()["webhook"].clone();
    assert_eq!((webhook["event"].as_str(), webhook["matched_by"].as_str()), (Some("refund.issued"), Some("payload")));
    assert_eq!(webhook["fits"], true);
    assert_eq!(webhook["issues"], json!([]));

    // A GET is no webhook of this description: an answer, but no event.
    let got = app.mock(Method::GET, &path_of(&inbox), &[], None).await;
    let third = got.json()["captured"].as_str().unwrap().to_owned();
    let webhook = capture_detail(&app, &token, &id, &third).await.json()["webhook"].clone();
    assert_eq!((webhook["event"].clone(), webhook["fits"].clone()), (Value::Null, json!(false)));

    // One action makes the refund capture the mock's answer at its path.
    let made = app.post_json(&format!("/api/v1/inboxes/{id}/captures/{second}/override"), &token, &json!({})).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&made.body));
    let rule = made.json();
    assert_eq!(
        (rule["matcher"]["method"].as_str(), rule["matcher"]["path"].as_str()),
        (Some("POST"), Some("/refunds"))
    );
    let mocked = app.mock(Method::POST, &format!("/mock/{slug}/refunds"), &json_type_pairs(), Some("{}")).await;
    assert_eq!(mocked.status, StatusCode::OK);
    assert_eq!(mocked.headers["x-mock-override-id"], rule["id"].as_str().unwrap());
    assert_eq!(mocked.json(), serde_json::from_str::<Value>(refund).unwrap());
    let audit = app.get("/api/v1/audit?q=MOCK_OVERRIDE_CREATED", &token).await.json();
    assert_eq!(audit["data"].as_array().map(Vec::len), Some(1), "{audit}");
    // The method, path and status can be changed in the same step.
    let changed = json!({"method": "GET", "path": "/refunds/{id}", "status": 201});
    let made = app.post_json(&format!("/api/v1/inboxes/{id}/captures/{second}/override"), &token, &changed).await;
    assert_eq!(made.json()["response"]["status"], 201);
    let bad = json!({"path": "no-slash"});
    let refused = app.post_json(&format!("/api/v1/inboxes/{id}/captures/{second}/override"), &token, &bad).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", refused.json());

    // Or it becomes a saved request of the project, sent to `{{receiver}}`.
    let saved = app.post_json(&format!("/api/v1/inboxes/{id}/captures/{second}/request"), &token, &json!({})).await;
    assert_eq!(saved.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&saved.body));
    let saved = saved.json();
    assert_eq!((saved["method"].as_str(), saved["url"].as_str()), (Some("POST"), Some("{{receiver}}/refunds")));
    assert_eq!((saved["folder"].as_str(), saved["body"].as_str()), (Some("Inbox captures"), Some(refund)));
    assert_eq!(saved["placeholders"], json!(["receiver"]));

    // Deleting one capture: gone, written once in the audit log, still
    // counted by the ledger.
    let gone = app.delete(&format!("/api/v1/inboxes/{id}/captures/{first}"), &token).await;
    assert_eq!(gone.status, StatusCode::NO_CONTENT);
    assert_eq!(capture_detail(&app, &token, &id, &first).await.status, StatusCode::NOT_FOUND);
    assert_eq!(
        app.delete(&format!("/api/v1/inboxes/{id}/captures/{first}"), &token).await.status,
        StatusCode::NOT_FOUND
    );
    let audit = app.get("/api/v1/audit?q=INBOX_CAPTURE_DELETED", &token).await.json();
    assert_eq!(audit["data"].as_array().map(Vec::len), Some(1), "{audit}");
    assert_eq!(captures(&app, &token, &inbox, "").await.len(), 2);

    // An unlinked inbox reads no webhook and cannot make overrides.
    let loose = create(&app, &token, json!({"name": "Loose"})).await;
    let loose_id = loose["id"].as_str().unwrap();
    let got = deliver(&app, &path_of(&loose), &json_type, refund).await;
    let loose_capture = got.json()["captured"].as_str().unwrap().to_owned();
    assert_eq!(capture_detail(&app, &token, loose_id, &loose_capture).await.json()["webhook"], Value::Null);
    let refused = app
        .post_json(&format!("/api/v1/inboxes/{loose_id}/captures/{loose_capture}/override"), &token, &json!({}))
        .await;
    assert_eq!((refused.status, refused.error_code()), (StatusCode::CONFLICT, "CONFLICT".into()));
    let refused = app
        .post_json(&format!("/api/v1/inboxes/{loose_id}/captures/{loose_capture}/request"), &token, &json!({}))
        .await;
    assert_eq!(refused.status, StatusCode::CONFLICT);

    // Strangers see none of it.
    let (_, stranger) = app.user("stranger@example.com", Plan::Pro).await;
    assert_eq!(capture_detail(&app, &stranger, &id, &second).await.status, StatusCode::NOT_FOUND);
    let theirs =
        app.post_json(&format!("/api/v1/inboxes/{id}/captures/{second}/override"), &stranger, &json!({})).await;
    assert_eq!(theirs.status, StatusCode::NOT_FOUND);
    assert_eq!(
        app.delete(&format!("/api/v1/inboxes/{id}/captures/{second}"), &stranger).await.status,
        StatusCode::NOT_FOUND
    );
}

fn json_type_pairs() -> [(&'static str, &'static str); 1] {
    [("content-type", "application/json")]
}
