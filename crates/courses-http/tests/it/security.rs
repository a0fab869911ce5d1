//! The holes of "safe on the open internet", each through the real router:
//! bodies refused before they are read, MCP batches bounded and counted,
//! embed links that cannot name another learner, previews that record
//! nothing, the webhook outbox written with its change, signing keys sealed
//! at rest, and a panic answered with the envelope.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use bytes::Bytes;
use courses_core::Plan;
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::plans::b64_decode;
use crate::support::{TestApp, quiz_course};

const MIB: usize = 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// A body of `total` bytes streamed in 64 KiB chunks, counting every byte
/// the server pulls from it.
fn counting_body(total: usize, fill: u8) -> (Body, Arc<AtomicUsize>) {
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = pulled.clone();
    let chunk = Bytes::from(vec![fill; CHUNK]);
    let stream = futures_util::stream::unfold(0_usize, move |sent| {
        let counter = counter.clone();
        let chunk = chunk.clone();
        async move {
            if sent >= total {
                return None;
            }
            counter.fetch_add(chunk.len(), Ordering::SeqCst);
            Some((Ok::<_, std::io::Error>(chunk), sent + CHUNK))
        }
    });
    (Body::from_stream(stream), pulled)
}

async fn publish(app: &TestApp, key: &str, body: &Value) -> String {
    let course = app.course(key, body).await;
    let id = course["id"].as_str().unwrap().to_owned();
    assert_eq!(app.post(&format!("/v1/courses/{id}/publish"), key, &json!({})).await.status, StatusCode::OK);
    id
}

async fn count(app: &TestApp, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    platform::with_db!(app.courses.db(), |pool| {
        sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql)).fetch_one(pool).await.unwrap()
    })
}

fn player_data(html: &str) -> Value {
    serde_json::from_str(html.split("type=\"application/json\">").nth(1).unwrap().split("</script>").next().unwrap())
        .unwrap()
}

on_both_stores!(
    anonymous_and_oversized_bodies_are_refused_unread,
    mcp_batches_are_bounded_and_each_call_counts,
    embed_learner_ids_must_be_signed,
    unsigned_preview_records_nothing_and_counts_once_per_visitor_per_day,
    embed_openings_are_limited_per_client_address,
    answers_are_checked_only_with_immediate_feedback,
    outbox_rows_commit_with_their_change,
    webhook_signing_keys_are_sealed_at_rest,
    a_panic_answers_the_envelope
);

async fn anonymous_and_oversized_bodies_are_refused_unread(app: TestApp) {
    let (_, key) = app.workspace(Plan::Scale).await;
    // 200 MB to MCP without a key: 401 before a byte is read.
    let (body, pulled) = counting_body(200 * MIB, b' ');
    let anonymous = app.send(Method::POST, "/v1/mcp", None, Some(body)).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert_eq!(anonymous.error(), "unauthorized");
    assert_eq!(pulled.load(Ordering::SeqCst), 0, "the body of an anonymous MCP request is never read");

    // With a key, the body is cut off once it passes 1 MiB, while streaming.
    let (body, pulled) = counting_body(200 * MIB, b' ');
    let oversized = app.send(Method::POST, "/v1/mcp", Some(&key), Some(body)).await;
    assert_eq!(oversized.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(oversized.error(), "payload_too_large");
    let read = pulled.load(Ordering::SeqCst);
    assert!(read <= MIB + CHUNK, "read {read} bytes of 200 MB");

    // A declared length over the limit is refused before reading.
    let (body, pulled) = counting_body(200 * MIB, b' ');
    let request = Request::builder()
        .method(Method::POST)
        .uri("/v1/mcp")
        .header("authorization", format!("Bearer {key}"))
        .header("content-length", (200 * MIB).to_string())
        .body(body)
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.router.clone(), request).await.unwrap();
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(pulled.load(Ordering::SeqCst), 0);

    // Every other body route: 401 unread without a key, and the public
    // embed routes stop at 1 MiB.
    for path in ["/v1/courses", "/v1/courses/import/scorm", "/v1/courses/import/csv", "/v1/identities/bulk"] {
        let (body, pulled) = counting_body(200 * MIB, b'x');
        let response = app.send(Method::POST, path, None, Some(body)).await;
        assert_eq!(response.status, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(pulled.load(Ordering::SeqCst), 0, "{path}");
    }
    let (body, pulled) = counting_body(200 * MIB, b' ');
    let public = app.send(Method::POST, "/v1/embed/views/view_x/completion", None, Some(body)).await;
    assert_eq!(public.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(pulled.load(Ordering::SeqCst) <= MIB + CHUNK);
    let (body, pulled) = counting_body(2 * MIB, b' ');
    let json = app.send(Method::POST, "/v1/courses", Some(&key), Some(body)).await;
    assert_eq!((json.status, json.error()), (StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large".to_owned()));
    assert!(pulled.load(Ordering::SeqCst) <= MIB + CHUNK);
}

async fn mcp_batches_are_bounded_and_each_call_counts(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let batch =
        |n: usize| Value::Array((0..n).map(|i| json!({ "jsonrpc": "2.0", "id": i, "method": "ping" })).collect());
    let refused = app.post("/v1/mcp", &key, &batch(courses_http::mcp::MAX_BATCH + 1)).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert_eq!(refused.error(), "invalid_request");
    assert!(refused.json()["message"].as_str().unwrap().contains("at most 20 messages"), "{}", refused.text());

    let full = app.post("/v1/mcp", &key, &batch(courses_http::mcp::MAX_BATCH)).await;
    assert_eq!(full.status, StatusCode::OK);
    let replies = full.json();
    assert_eq!(replies.as_array().unwrap().len(), 20);
    assert_eq!(replies[19], json!({ "jsonrpc": "2.0", "id": 19, "result": {} }));
    // 1 (refused batch) + 20 so far; four more batches reach 101, and the
    // next batch passes the 120 per minute within its calls.
    for _ in 0..4 {
        assert_eq!(app.post("/v1/mcp", &key, &batch(20)).await.status, StatusCode::OK);
    }
    let limited = app.post("/v1/mcp", &key, &batch(20)).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS, "{}", limited.text());
    assert_eq!(limited.error(), "rate_limited");
    assert!(limited.headers.contains_key("retry-after"));
    // A single call is counted once: the key is spent until the window moves.
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::TOO_MANY_REQUESTS);
}

async fn embed_learner_ids_must_be_signed(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let id = publish(&app, &key, &quiz_course(Some(50))).await;
    let signed = app.embed_link(&key, &id, "ada").await;
    let query: Vec<(String, String)> = serde_urlencoded::from_str(signed.split_once('?').unwrap().1).unwrap();
    let param = |name: &str| query.iter().find(|(k, _)| k == name).unwrap().1.clone();
    let (expires, signature) = (param("expires"), param("signature"));
    let later: i64 = expires.parse::<i64>().unwrap() + 3600;
    let mut flipped = signature.clone();
    let last = flipped.pop().unwrap();
    flipped.push(if last == '0' { '1' } else { '0' });
    let forged = [
        (format!("/v1/embed/{id}?learner=ada"), "without a signature"),
        (format!("/v1/embed/{id}?learner=bob&expires={expires}&signature={signature}"), "another learner"),
        (format!("/v1/embed/{id}?learner=ada&expires={later}&signature={signature}"), "a later expiry"),
        (format!("/v1/embed/{id}?learner=ada&expires={expires}&signature={flipped}"), "an altered signature"),
    ];
    for (path, what) in &forged {
        let refused = app.send(Method::GET, path, None, None).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{what}");
        assert_eq!(refused.error(), "invalid_signature", "{what}");
    }
    let malformed =
        app.send(Method::GET, &format!("/v1/embed/{id}?learner=ada&expires={expires}&signature=zz"), None, None).await;
    assert_eq!(malformed.status, StatusCode::BAD_REQUEST);
    assert_eq!(malformed.issue_paths(), ["signature"]);
    // A link for another course of the same workspace does not open this one.
    let other = publish(&app, &key, &quiz_course(None)).await;
    let moved = signed.replace(&id, &other);
    assert_eq!(app.send(Method::GET, &moved, None, None).await.error(), "invalid_signature");
    // Nothing was recorded for any of them.
    assert_eq!(app.get("/v1/identities", &key).await.json()["data"], json!([]));
    assert_eq!(count(&app, "course_views").await, 0);
    assert_eq!(app.get("/v1/usage", &key).await.json()["courseViews"]["used"], 0);

    // The genuine link opens as Ada and records her completion and certificate.
    let page = app.send(Method::GET, &signed, None, None).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.text());
    let data = player_data(&page.text());
    assert_eq!(data["learner"]["externalId"], "ada");
    let view = data["viewId"].as_str().unwrap().to_owned();
    let done = app
        .send(
            Method::POST,
            &format!("/v1/embed/views/{view}/completion"),
            None,
            Some(json!({ "answers": { "q1": 1, "q2": false } }).to_string().into()),
        )
        .await;
    assert_eq!(done.status, StatusCode::CREATED);
    let cert = app.send(Method::POST, &format!("/v1/embed/views/{view}/certificate"), None, None).await;
    assert_eq!(cert.status, StatusCode::CREATED);
    assert_eq!(cert.json()["learnerName"], "ada");
    // Once expired, the same link is refused, and the view id it gave no
    // longer records anything.
    app.clock.advance_millis(25 * 3600 * 1000);
    let late = app.send(Method::POST, &format!("/v1/embed/views/{view}/certificate"), None, None).await;
    assert_eq!(late.status, StatusCode::NOT_FOUND);
    let expired = app.send(Method::GET, &signed, None, None).await;
    assert_eq!(expired.status, StatusCode::FORBIDDEN);
    assert!(expired.json()["message"].as_str().unwrap().contains("expired"));
    // Links are minted only for courses of the caller's workspace.
    let (_, stranger) = app.workspace(Plan::Build).await;
    let minted = app.post(&format!("/v1/courses/{id}/embed-links"), &stranger, &json!({ "externalId": "x" })).await;
    assert_eq!(minted.status, StatusCode::NOT_FOUND);
    let invalid = app.post(&format!("/v1/courses/{id}/embed-links"), &key, &json!({ "expiresInSeconds": 5 })).await;
    assert_eq!(invalid.issue_paths(), ["externalId"]);
}

async fn unsigned_preview_records_nothing_and_counts_once_per_visitor_per_day(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let mut body = quiz_course(Some(50));
    body["quizFeedback"] = json!("immediate");
    let id = publish(&app, &key, &body).await;
    let preview = format!("/v1/embed/{id}");
    for _ in 0..3 {
        let page = app.send_from("203.0.113.5", Method::GET, &preview, None).await;
        assert_eq!(page.status, StatusCode::OK);
        let data = player_data(&page.text());
        assert_eq!(
            (data["viewId"].clone(), data["preview"].clone(), data["learner"].clone()),
            (Value::Null, json!(true), Value::Null)
        );
        assert_eq!(data["course"]["screens"][1]["blocks"][0]["question"], "Which extinguisher for oil?");
    }
    let usage = || async { app.get("/v1/usage", &key).await.json()["courseViews"]["used"].clone() };
    assert_eq!(usage().await, 1, "one view per visitor per day");
    app.send_from("198.51.100.7", Method::GET, &preview, None).await;
    assert_eq!(usage().await, 2, "another visitor");
    app.clock.advance_millis(24 * 3600 * 1000);
    app.send_from("203.0.113.5", Method::GET, &preview, None).await;
    assert_eq!(usage().await, 3, "the same visitor the next day");
    // No learner, no view capability, no completion: nothing recorded.
    assert_eq!(count(&app, "course_views").await, 0);
    assert_eq!(app.get("/v1/identities", &key).await.json()["data"], json!([]));
    assert_eq!(app.get("/v1/completions", &key).await.json()["data"], json!([]));
    // The visitor is stored as a keyed hash, never as the address.
    let visitors: Vec<String> = platform::with_db!(app.courses.db(), |pool| {
        sqlx::query_scalar("SELECT visitor FROM embed_previews").fetch_all(pool).await.unwrap()
    });
    assert_eq!(visitors.len(), 3);
    assert!(visitors.iter().all(|v| v.len() == 64 && !v.contains("203.0")));
    // Re-opening the first day's rows after pruning would not double count.
    assert_eq!(app.courses.prune_previews().await.unwrap(), 0, "rows of the last two days are kept");
}

async fn embed_openings_are_limited_per_client_address(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let id = publish(&app, &key, &quiz_course(None)).await;
    let link = app.embed_link(&key, &id, "ada").await;
    let limited = app.with_state(|state| state.with_embed_limit(3));
    for _ in 0..3 {
        assert_eq!(limited.send_from("203.0.113.5", Method::GET, &link, None).await.status, StatusCode::OK);
    }
    // A client cannot pick another address with X-Forwarded-For (no trusted proxy).
    let mut request =
        Request::builder().uri(&link).header("x-forwarded-for", "192.0.2.44").body(Body::empty()).unwrap();
    request
        .extensions_mut()
        .insert(axum::extract::ConnectInfo("203.0.113.5:1".parse::<std::net::SocketAddr>().unwrap()));
    let response = tower::ServiceExt::oneshot(limited.router.clone(), request).await.unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let secs: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&secs));
    let refused = limited.send_from("203.0.113.5", Method::POST, "/v1/embed/views/view_x/completion", None).await;
    assert_eq!(refused.error(), "rate_limited", "the view routes share the limit");
    assert_eq!(limited.send_from("198.51.100.7", Method::GET, &link, None).await.status, StatusCode::OK);
    assert_eq!(limited.get("/v1/usage", &key).await.json()["courseViews"]["used"], 4, "refused openings count nothing");
}

async fn answers_are_checked_only_with_immediate_feedback(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let id = publish(&app, &key, &quiz_course(None)).await;
    let html = app.send(Method::GET, &app.embed_link(&key, &id, "ada").await, None, None).await.text();
    let view = player_data(&html)["viewId"].as_str().unwrap().to_owned();
    let check = app
        .send(
            Method::POST,
            &format!("/v1/embed/views/{view}/check"),
            None,
            Some(json!({ "blockId": "q1", "answer": 1 }).to_string().into()),
        )
        .await;
    assert_eq!(check.status, StatusCode::NOT_FOUND, "deferred feedback reveals no answer one by one");
    assert_eq!(check.error(), "not_found");
}

async fn outbox_rows_commit_with_their_change(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let hook = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({ "url": "https://example.com/hook", "events": ["completion.created", "identity.created", "course.published"] }),
        )
        .await
        .json();
    let hook_id = hook["id"].as_str().unwrap().to_owned();
    let id = publish(&app, &key, &quiz_course(None)).await;
    app.clock.advance_millis(1000);
    let learner = app.post("/v1/identities", &key, &json!({ "externalId": "ada" })).await.json();
    let learner_id = learner["id"].as_str().unwrap().to_owned();
    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &key).await.json();
    let events: Vec<&str> = list["data"].as_array().unwrap().iter().map(|d| d["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["course.published", "identity.created"]);

    // When the outbox cannot be written, the change it reports is not
    // written either: before, the completion stood and its event was lost.
    platform::with_db!(app.courses.db(), |pool| {
        sqlx::query("ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_gone").execute(pool).await.unwrap();
    });
    let completion = app
        .post("/v1/completions", &key, &json!({ "courseId": id, "identityId": learner_id, "answers": { "q1": 1 } }))
        .await;
    assert_eq!(completion.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(completion.error(), "internal_error");
    let bulk = app.post("/v1/identities/bulk", &key, &json!({ "identities": [{ "externalId": "bob" }] })).await;
    assert_eq!(bulk.status, StatusCode::INTERNAL_SERVER_ERROR);
    platform::with_db!(app.courses.db(), |pool| {
        sqlx::query("ALTER TABLE webhook_deliveries_gone RENAME TO webhook_deliveries").execute(pool).await.unwrap();
    });
    assert_eq!(app.get("/v1/completions", &key).await.json()["data"], json!([]), "the completion rolled back");
    let learners = app.get("/v1/identities", &key).await.json();
    assert_eq!(learners["data"].as_array().unwrap().len(), 1, "bob rolled back with his message");
    app.clock.advance_millis(1000);
    let done = app
        .post("/v1/completions", &key, &json!({ "courseId": id, "identityId": learner_id, "answers": { "q1": 1 } }))
        .await;
    assert_eq!(done.status, StatusCode::CREATED);
    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &key).await.json();
    let last = list["data"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["event"].clone(), last["payload"]["data"]["id"].clone()),
        (json!("completion.created"), done.json()["id"].clone())
    );
}

async fn stored_data(app: &TestApp, id: &str) -> String {
    platform::with_db!(app.courses.db(), |pool| {
        sqlx::query_scalar("SELECT data FROM resources WHERE id = $1").bind(id).fetch_one(pool).await.unwrap()
    })
}

async fn webhook_signing_keys_are_sealed_at_rest(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let hook = app
        .post("/v1/webhooks", &key, &json!({ "url": "https://example.com/hook", "events": ["course.published"] }))
        .await
        .json();
    let hook_id = hook["id"].as_str().unwrap().to_owned();
    let secret = b64_decode(hook["secret"].as_str().unwrap().trim_start_matches("whsec_"));
    let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    let row = stored_data(&app, &hook_id).await;
    assert!(row.contains("\"_signingKey\":\"enc:v1:"), "{row}");
    assert!(!row.contains(&hex) && !row.contains(hook["secret"].as_str().unwrap()), "no plaintext key in the row");
    assert!(!app.get(&format!("/v1/webhooks/{hook_id}"), &key).await.text().contains("signingKey"));

    let verify = |delivery: &Value| {
        let expected = courses_core::webhooks::sign(
            &secret,
            delivery["id"].as_str().unwrap(),
            delivery["headers"]["webhook-timestamp"].as_str().unwrap().parse().unwrap(),
            delivery["body"].as_str().unwrap(),
        );
        assert_eq!(delivery["headers"]["webhook-signature"], json!(expected));
    };
    publish(&app, &key, &quiz_course(None)).await;
    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &key).await.json();
    verify(&list["data"][0]);

    // A key stored in plaintext before encryption at rest still signs, and
    // the start-up pass seals it.
    let legacy = row.replace(row.split("\"_signingKey\":\"").nth(1).unwrap().split('"').next().unwrap(), &hex);
    platform::with_db!(app.courses.db(), |pool| {
        sqlx::query("UPDATE resources SET data = $2 WHERE id = $1")
            .bind(&hook_id)
            .bind(&legacy)
            .execute(pool)
            .await
            .unwrap();
    });
    app.clock.advance_millis(1000);
    publish(&app, &key, &quiz_course(None)).await;
    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &key).await.json();
    verify(&list["data"][1]);
    assert_eq!(app.courses.seal_plaintext_secrets().await.unwrap(), 1);
    assert_eq!(app.courses.seal_plaintext_secrets().await.unwrap(), 0, "idempotent");
    let row = stored_data(&app, &hook_id).await;
    assert!(row.contains("\"_signingKey\":\"enc:v1:") && !row.contains(&hex));
    app.clock.advance_millis(1000);
    publish(&app, &key, &quiz_course(None)).await;
    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &key).await.json();
    verify(&list["data"][2]);
    // The embed secret is sealed too.
    app.embed_link(&key, list["data"][2]["payload"]["data"]["id"].as_str().unwrap(), "ada").await;
    let sealed: Vec<String> = platform::with_db!(app.courses.db(), |pool| {
        sqlx::query_scalar("SELECT sealed FROM workspace_secrets").fetch_all(pool).await.unwrap()
    });
    assert_eq!(sealed.len(), 1);
    assert!(sealed[0].starts_with("enc:v1:"));
}

async fn a_panic_answers_the_envelope(app: TestApp) {
    let boom = courses_http::with_panic_envelope(axum::Router::new().route(
        "/boom",
        axum::routing::get(|| async {
            let empty: Vec<u8> = Vec::new();
            // An out-of-bounds index stands for any bug in a handler.
            let byte = empty[usize::from(empty.is_empty())];
            byte.to_string()
        }),
    ));
    let response = tower::ServiceExt::oneshot(boom, Request::get("/boom").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    let json: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(json["error"], "internal_error");
    assert!(json["message"].as_str().unwrap().contains("retry once"));
    // The real router carries the same layer: it still answers after the panic test.
    assert_eq!(app.send(Method::GET, "/healthz", None, None).await.status, StatusCode::OK);
}
