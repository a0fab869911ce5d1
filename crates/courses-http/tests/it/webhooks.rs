//! The webhook sender against real receivers: a loopback receiver allowed
//! by configuration gets signed messages (retried with backoff after a
//! failure), and addresses the guard refuses are never contacted.

use axum::http::StatusCode;
use courses_core::Plan;
use platform::outbound::{AllowList, Outbound};
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::plans::b64_decode;
use crate::support::{Receiver, START, TestApp, quiz_course};

on_both_stores!(
    messages_are_delivered_signed_and_retried,
    private_and_loopback_receivers_are_refused,
    concurrent_senders_send_each_message_once
);

async fn publish(app: &TestApp, key: &str) -> String {
    let course = app.course(key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap().to_owned();
    assert_eq!(app.post(&format!("/v1/courses/{id}/publish"), key, &json!({})).await.status, StatusCode::OK);
    id
}

async fn deliveries(app: &TestApp, key: &str, webhook_id: &str) -> Vec<Value> {
    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={webhook_id}"), key).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text());
    list.json()["data"].as_array().unwrap().clone()
}

async fn messages_are_delivered_signed_and_retried(app: TestApp) {
    // The receiver fails the first attempt, then accepts.
    let receiver = Receiver::start(|n, _| if n == 0 { (500, "{}".into()) } else { (204, String::new()) }).await;
    let app = app.with_courses(|c| c.with_outbound(Outbound::guarded(AllowList::parse("127.0.0.1").unwrap())));
    let (_, key) = app.workspace(Plan::Build).await;
    let hook = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({ "url": format!("{}/hooks/courses", receiver.url), "events": ["course.published"] }),
        )
        .await
        .json();
    let hook_id = hook["id"].as_str().unwrap().to_owned();
    let secret = b64_decode(hook["secret"].as_str().unwrap().trim_start_matches("whsec_"));
    let course_id = publish(&app, &key).await;

    assert_eq!(app.courses.deliver_due().await.unwrap(), 1);
    let [first] = deliveries(&app, &key, &hook_id).await.try_into().unwrap();
    assert_eq!(first["status"], "pending");
    assert_eq!(first["attempts"], 1);
    assert_eq!(first["responseStatus"], 500);
    assert_eq!(first["lastError"], "the receiver answered 500");
    let retry_at = kernel::Timestamp::from_millis(START.as_millis() + 10_000).to_rfc3339();
    assert_eq!(first["nextAttemptAt"], json!(retry_at), "the first retry waits 10 s");
    assert_eq!(app.courses.deliver_due().await.unwrap(), 0, "not due yet");

    app.clock.advance_millis(10_000);
    assert_eq!(app.courses.deliver_due().await.unwrap(), 1);
    let [done] = deliveries(&app, &key, &hook_id).await.try_into().unwrap();
    assert_eq!(done["status"], "delivered");
    assert_eq!(done["attempts"], 2);
    assert_eq!(done["responseStatus"], 204);
    assert_eq!(done["lastError"], Value::Null);
    assert_eq!(done["nextAttemptAt"], Value::Null);
    assert_eq!(done["deliveredAt"], json!(retry_at));
    assert_eq!(app.courses.deliver_due().await.unwrap(), 0, "a delivered message is not sent again");

    let got = receiver.requests();
    assert_eq!(got.len(), 2);
    let header = |i: usize, name: &str| got[i].headers[name].to_str().unwrap().to_owned();
    for (i, request) in got.iter().enumerate() {
        assert_eq!(request.path, "/hooks/courses");
        assert_eq!(header(i, "content-type"), "application/json");
        // Each attempt is signed with its own timestamp; both verify.
        let expected = courses_core::webhooks::sign(
            &secret,
            &header(i, "webhook-id"),
            header(i, "webhook-timestamp").parse().unwrap(),
            &request.body,
        );
        assert_eq!(header(i, "webhook-signature"), expected);
        let body: Value = serde_json::from_str(&request.body).unwrap();
        assert_eq!(body["type"], "course.published");
        assert_eq!(body["data"]["id"], json!(course_id));
    }
    assert_eq!(header(0, "webhook-id"), header(1, "webhook-id"), "retries keep the message id");
    let (t0, t1): (i64, i64) =
        (header(0, "webhook-timestamp").parse().unwrap(), header(1, "webhook-timestamp").parse().unwrap());
    assert_eq!(t1 - t0, 10);
    assert_eq!(done["headers"]["webhook-timestamp"], json!(t1.to_string()), "the record shows the last attempt");
}

async fn private_and_loopback_receivers_are_refused(app: TestApp) {
    // The default guard: public addresses only, no exceptions configured.
    let receiver = Receiver::start(|_, _| (200, "{}".into())).await;
    let (_, key) = app.workspace(Plan::Build).await;
    // Addresses are refused when the webhook is saved...
    for (url, kind) in [
        (format!("{}/hook", receiver.url), "loopback"),
        ("http://10.0.0.1/hook".to_owned(), "private"),
        ("http://192.168.1.20:8080/hook".to_owned(), "private"),
        ("http://169.254.169.254/latest/meta-data".to_owned(), "link-local"),
        ("http://[::1]:9/hook".to_owned(), "loopback"),
    ] {
        let refused = app.post("/v1/webhooks", &key, &json!({ "url": url, "events": ["course.published"] })).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{url}");
        assert_eq!(refused.issue_paths(), vec!["url"]);
        let message = refused.json()["issues"][0]["message"].as_str().unwrap().to_owned();
        // The refusal names the destination, never what kind of address it is.
        assert!(
            message.contains("is not an allowed destination") && message.contains("SVC_OUTBOUND_ALLOW"),
            "{message}"
        );
        assert!(!message.contains(kind), "{message}");
    }
    // ...and a host name by the addresses it resolves to, when sending.
    let port = receiver.url.rsplit(':').next().unwrap().to_owned();
    let hook = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({ "url": format!("http://localhost:{port}/hook"), "events": ["course.published"] }),
        )
        .await;
    assert_eq!(hook.status, StatusCode::CREATED, "{}", hook.text());
    publish(&app, &key).await;
    assert_eq!(app.courses.deliver_due().await.unwrap(), 1);
    let [delivery] = deliveries(&app, &key, hook.json()["id"].as_str().unwrap()).await.try_into().unwrap();
    assert_eq!(delivery["status"], "failed", "the guard's refusal is final");
    assert_eq!(delivery["attempts"], 1);
    assert_eq!(delivery["responseStatus"], Value::Null);
    let error = delivery["lastError"].as_str().unwrap();
    assert!(error.contains("localhost is not an allowed destination"), "{error}");
    assert!(
        !error.contains("loopback") && !error.contains("127.0.0.1"),
        "what the name resolves to stays unsaid: {error}"
    );
    assert!(receiver.requests().is_empty(), "nothing reached the loopback receiver");
    app.clock.advance_days(1);
    assert_eq!(app.courses.deliver_due().await.unwrap(), 0, "failed messages are not retried");
}

async fn concurrent_senders_send_each_message_once(app: TestApp) {
    let receiver = Receiver::start(|_, _| (200, "{}".into())).await;
    let app = app.with_courses(|c| c.with_outbound(Outbound::guarded(AllowList::parse("127.0.0.0/8").unwrap())));
    let (_, key) = app.workspace(Plan::Build).await;
    let hook = app
        .post("/v1/webhooks", &key, &json!({ "url": format!("{}/h", receiver.url), "events": ["course.published"] }))
        .await
        .json();
    for _ in 0..6 {
        publish(&app, &key).await;
    }
    // Two senders (two nodes, say) at once: the lease gives each message to one.
    let (a, b, c) = tokio::join!(app.courses.deliver_due(), app.courses.deliver_due(), app.courses.deliver_due());
    assert_eq!(a.unwrap() + b.unwrap() + c.unwrap(), 6);
    let mut ids: Vec<String> =
        receiver.requests().iter().map(|r| r.headers["webhook-id"].to_str().unwrap().to_owned()).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 6, "six messages, each sent once");
    assert_eq!(receiver.requests().len(), 6);
    let all = deliveries(&app, &key, hook["id"].as_str().unwrap()).await;
    assert!(all.iter().all(|d| d["status"] == "delivered" && d["attempts"] == 1), "{all:?}");
}

/// A slow receiver outlives the lease of its message: the sender renews the
/// lease while it waits, so a second sender (another node) finds nothing to
/// claim and the message is sent once. Runs on a multi-threaded runtime
/// (the receiver blocks one thread while it "works").
async fn a_slow_send_keeps_its_lease(app: TestApp) {
    let receiver = Receiver::start(|_, _| {
        std::thread::sleep(std::time::Duration::from_millis(900));
        (204, String::new())
    })
    .await;
    let app = app.with_courses(|c| {
        c.with_outbound(Outbound::guarded(AllowList::parse("127.0.0.0/8").unwrap()))
            .with_webhook_lease(std::time::Duration::from_millis(300))
    });
    let (_, key) = app.workspace(Plan::Build).await;
    let hook = app
        .post("/v1/webhooks", &key, &json!({ "url": format!("{}/slow", receiver.url), "events": ["course.published"] }))
        .await
        .json();
    publish(&app, &key).await;
    let first = {
        let courses = app.courses.clone();
        tokio::spawn(async move { courses.deliver_due().await })
    };
    // The service's clock passes the first lease (300 ms); the sender, still
    // waiting for the receiver, renews it from the new time (every 100 ms).
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    app.clock.advance_millis(400);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(app.courses.deliver_due().await.unwrap(), 0, "the message is still leased");
    assert_eq!(first.await.unwrap().unwrap(), 1);
    assert_eq!(receiver.requests().len(), 1, "sent once");
    let all = deliveries(&app, &key, hook["id"].as_str().unwrap()).await;
    assert_eq!((all[0]["status"].clone(), all[0]["attempts"].clone()), (json!("delivered"), json!(1)));
}

mod a_slow_send_keeps_its_lease {
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sqlite() {
        super::a_slow_send_keeps_its_lease(crate::support::TestApp::sqlite().await).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn postgres() {
        if let Some(app) = crate::support::TestApp::postgres().await {
            super::a_slow_send_keeps_its_lease(app).await;
        }
    }
}
