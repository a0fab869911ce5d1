//! Uptime monitoring: monitors per operation, rounds against a local API
//! written here (a good answer, a body that breaks the schema, a 500, one
//! that never answers in time, one that needs the description's example,
//! a 5 KB body, one that fails after its first answer), the status page and
//! its JSON, plan gates, the guard, and rounds across three nodes.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::Path;
use axum::http::{Method, StatusCode};
use axum::routing::get;
use hub_core::{Hub, Plan};
use serde_json::{Value, json};
use test_kit::{CRON_SECRET, START, TestApp, TestResponse, on_both_stores};

on_both_stores!(rounds_feed_the_status_page_and_its_json, plans_privacy_and_the_guard_close_the_page);

/// The probes' budget in these tests (the product's is 10 s).
const TEST_TIMEOUT: Duration = Duration::from_millis(800);
const TEN_MINUTES: i64 = 600_000;

/// A local API: each path answers as its name says.
async fn local_api() -> String {
    let flaky = Arc::new(AtomicUsize::new(0));
    let app = Router::new()
        .route("/ok", get(|| async { axum::Json(json!({ "id": 1, "name": "Rex" })) }))
        .route("/wrong", get(|| async { axum::Json(json!({ "id": "one" })) }))
        .route("/fail", get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "boom") }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                "late"
            }),
        )
        .route(
            "/pets/{id}",
            get(|Path(id): Path<String>| async move {
                if id == "rex-42" {
                    (StatusCode::OK, axum::Json(json!({ "id": 42, "name": "Rex" })))
                } else {
                    (StatusCode::NOT_FOUND, axum::Json(json!({ "error": "no such pet" })))
                }
            }),
        )
        .route(
            "/big",
            get(|| async {
                let items: Vec<Value> =
                    (0..100).map(|i| json!({ "id": i, "name": format!("pet number {i:04}") })).collect();
                axum::Json(Value::Array(items))
            }),
        )
        .route(
            "/flaky",
            get(move || {
                let flaky = flaky.clone();
                async move {
                    if flaky.fetch_add(1, Ordering::SeqCst) == 0 {
                        (StatusCode::OK, axum::Json(json!({ "id": 7, "name": "Fido" })))
                    } else {
                        (StatusCode::SERVICE_UNAVAILABLE, axum::Json(json!({ "error": "busy" })))
                    }
                }
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    format!("http://{addr}")
}

/// The description of the local API: a Pet for single answers, a list for `/big`.
fn description(extra_path: bool) -> String {
    let pet = json!({ "$ref": "#/components/schemas/Pet" });
    let one = |schema: &Value| json!({ "200": { "description": "ok", "content": { "application/json": { "schema": schema } } } });
    let mut paths = json!({
        "/ok": { "get": { "operationId": "ok", "responses": one(&pet) } },
        "/wrong": { "get": { "operationId": "wrong", "responses": one(&pet) } },
        "/fail": { "get": { "operationId": "fail", "responses": one(&pet) } },
        "/slow": { "get": { "operationId": "slow", "responses": one(&pet) } },
        "/pets/{petId}": { "get": { "operationId": "getPet",
            "parameters": [{ "name": "petId", "in": "path", "required": true, "schema": { "type": "string" }, "example": "rex-42" }],
            "responses": one(&pet) } },
        "/big": { "get": { "operationId": "big", "responses": one(&json!({ "type": "array", "items": pet })) } },
        "/flaky": { "get": { "operationId": "flaky", "responses": one(&pet) } },
    });
    if extra_path {
        paths["/added"] = json!({ "get": { "operationId": "added", "responses": one(&pet) } });
    }
    json!({
        "openapi": "3.0.3",
        "info": { "title": "Uptime", "version": "1.0" },
        "components": { "schemas": { "Pet": { "type": "object", "required": ["id", "name"],
            "properties": { "id": { "type": "integer" }, "name": { "type": "string" } } } } },
        "paths": paths,
    })
    .to_string()
}

fn with_probes(app: &TestApp) -> (Hub, Router) {
    let allow = platform::outbound::AllowList::parse("127.0.0.1").unwrap();
    let hub = app.hub.clone().with_probes(platform::outbound::Outbound::guarded(allow).with_timeout(TEST_TIMEOUT), 600);
    let router = app.router_for(hub.clone());
    (hub, router)
}

async fn call(router: &Router, method: Method, path: &str, token: Option<&str>, body: Option<Value>) -> TestResponse {
    let mut request = axum::http::Request::builder().method(method).uri(path);
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if body.is_some() {
        request = request.header("content-type", "application/json");
    }
    let body = body.map_or_else(axum::body::Body::empty, |b| axum::body::Body::from(b.to_string()));
    TestApp::send(router, request.body(body).unwrap()).await
}

async fn page(router: &Router, path: &str, accept: &str) -> TestResponse {
    let request = axum::http::Request::builder().uri(path).header("accept", accept).body(axum::body::Body::empty());
    TestApp::send(router, request.unwrap()).await
}

fn row<'a>(rows: &'a [Value], path: &str) -> &'a Value {
    rows.iter().find(|r| r["path"] == path).unwrap_or_else(|| panic!("no row {path} in {rows:?}"))
}

async fn rounds_feed_the_status_page_and_its_json(app: TestApp) {
    let api = local_api().await;
    let (hub, router) = with_probes(&app);
    let (_, token) = app.user("ops@example.com", Plan::Business).await;
    let created = call(
        &router,
        Method::POST,
        "/api/v1/projects",
        Some(&token),
        Some(json!({ "name": "Uptime", "slug": "uptime", "is_public": true, "base_url": api })),
    )
    .await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    assert_eq!(app.push("uptime", &token, "label=1.0", description(false)).await.status, StatusCode::CREATED);

    // Every operation is listed, none monitored, none checked.
    let listed = call(&router, Method::GET, "/api/v1/projects/uptime/monitors", Some(&token), None).await;
    assert_eq!(listed.status, StatusCode::OK, "{}", String::from_utf8_lossy(&listed.body));
    let monitors = listed.json()["data"].as_array().unwrap().clone();
    assert_eq!(monitors.len(), 7);
    assert!(monitors.iter().all(|m| m["monitored"] == false && m["state"] == "none" && m["uptime_24h"].is_null()));
    let before = page(&router, "/status/uptime", "application/json").await.json();
    assert_eq!((before["overall"].as_str(), before["rows"].as_array().map(Vec::len)), (Some("none"), Some(0)));

    for monitor in &monitors {
        let id = monitor["id"].as_str().unwrap();
        let on = call(
            &router,
            Method::PATCH,
            &format!("/api/v1/projects/uptime/monitors/{id}"),
            Some(&token),
            Some(json!({ "monitored": true })),
        )
        .await;
        assert_eq!(on.status, StatusCode::OK, "{}", String::from_utf8_lossy(&on.body));
        assert_eq!(on.json()["monitored"], true);
    }
    let codes: Vec<String> =
        app.hub.audit_log("ops@example.com").await.unwrap().into_iter().map(|e| e.action).collect();
    assert_eq!(codes.iter().filter(|c| *c == "MONITOR_ENABLED").count(), 7, "{codes:?}");

    // Three rounds ten minutes apart: by the cron route, by the scheduler's
    // slot (once per slot), and by the cron route again.
    let first = call(&router, Method::POST, "/api/cron/uptime", Some(CRON_SECRET), None).await;
    assert_eq!(first.json()["probed"], 7, "{}", String::from_utf8_lossy(&first.body));
    let wrong_secret = call(&router, Method::POST, "/api/cron/uptime", Some("nope"), None).await;
    assert_eq!(wrong_secret.status, StatusCode::UNAUTHORIZED);
    app.clock.advance_millis(TEN_MINUTES);
    assert_eq!(hub.uptime_round_if_due(Duration::from_secs(600)).await.unwrap(), Some(7));
    assert_eq!(hub.uptime_round_if_due(Duration::from_secs(600)).await.unwrap(), None, "one round per slot");
    app.clock.advance_millis(TEN_MINUTES);
    let third = call(&router, Method::GET, "/api/cron/uptime", Some(CRON_SECRET), None).await;
    assert_eq!(third.json()["probed"], 7);
    app.clock.advance_millis(4 * 60_000);

    let status = page(&router, "/status/uptime", "application/json").await;
    assert_eq!(status.status, StatusCode::OK);
    let status = status.json();
    assert_eq!(status["version"], "1.0");
    assert_eq!(status["versions"], json!(["1.0"]));
    assert_eq!(status["overall"], "degraded");
    let rows = status["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    let last = kernel::Timestamp::from_millis(START.as_millis() + 2 * TEN_MINUTES).to_rfc3339();
    for (path, state, uptime) in [
        ("/ok", "up", 100.0),
        ("/wrong", "degraded", 0.0),
        ("/fail", "degraded", 0.0),
        ("/slow", "down", 0.0),
        ("/pets/{petId}", "up", 100.0),
        ("/big", "up", 100.0),
        ("/flaky", "degraded", 33.3),
    ] {
        let r = row(rows, path);
        assert_eq!(r["state"], state, "{path}: {r}");
        assert_eq!(r["uptime_24h"].as_f64(), Some(uptime), "{path}: {r}");
        assert_eq!(r["last_checked_at"], last, "{path}");
        let segments = r["segments"].as_array().unwrap();
        assert_eq!(segments.len(), 3, "{path}");
        let times: Vec<&str> = segments.iter().map(|s| s["checked_at"].as_str().unwrap()).collect();
        let mut sorted = times.clone();
        sorted.sort_unstable();
        assert_eq!(times, sorted, "{path}: segments oldest first");
        assert_eq!(times[0], START.to_rfc3339(), "{path}");
    }
    let flaky: Vec<&str> =
        row(rows, "/flaky")["segments"].as_array().unwrap().iter().map(|s| s["state"].as_str().unwrap()).collect();
    assert_eq!(flaky, ["up", "degraded", "degraded"], "the first answer was the good one");
    let slow = row(rows, "/slow");
    assert!(slow["latency_ms"].as_i64().unwrap() >= 700, "the timeout is the latency: {slow}");
    assert!(row(rows, "/ok")["latency_ms"].as_i64().unwrap() < 700);

    // The checks API: newest first, snippets cut at 1 KB, errors classed.
    let id_of = |path: &str| monitors.iter().find(|m| m["path"] == path).unwrap()["id"].as_str().unwrap().to_owned();
    let checks_of = |path: &str| {
        let url = format!("/api/v1/projects/uptime/monitors/{}/checks", id_of(path));
        let (router, token) = (router.clone(), token.clone());
        async move { call(&router, Method::GET, &url, Some(&token), None).await.json()["data"].as_array().unwrap().clone() }
    };
    let big = checks_of("/big").await;
    assert_eq!(big.len(), 3);
    assert_eq!(big[0]["checked_at"], last, "newest first");
    assert_eq!(big[0]["status_code"], 200);
    assert_eq!(big[0]["schema_valid"], true);
    let snippet = big[0]["snippet"].as_str().unwrap();
    assert_eq!(snippet.len(), 1024, "the 5 KB answer is kept as its first 1024 bytes");
    assert!(snippet.starts_with("[{\"id\":0"));
    let slow_checks = checks_of("/slow").await;
    assert!(slow_checks[0]["status_code"].is_null());
    assert!(slow_checks[0]["error"].as_str().unwrap().starts_with("timeout: "), "{:?}", slow_checks[0]);
    let wrong = checks_of("/wrong").await;
    assert_eq!((wrong[0]["status_code"].as_i64(), wrong[0]["schema_valid"].as_bool()), (Some(200), Some(false)));
    let fail = checks_of("/fail").await;
    assert_eq!((fail[0]["status_code"].as_i64(), fail[0]["snippet"].as_str()), (Some(500), Some("boom")));

    // The HTML page says the same in words, and the badge in its colour.
    let html = page(&router, "/status/uptime", "text/html").await;
    assert_eq!(html.status, StatusCode::OK);
    let text = String::from_utf8_lossy(&html.body);
    assert!(text.contains("Some operations are degraded or down"), "{text}");
    assert!(text.contains("33.3 %") && text.contains("100.0 %"), "uptime to one decimal");
    assert!(text.contains("4 min ago"), "the age of the last check");
    assert!(text.contains("3 checks in the last 24 hours, oldest to newest: 1 operational, 2 degraded, 0 down"));
    assert!(html.headers["content-security-policy"].to_str().unwrap().contains("script-src 'self'"));
    assert!(text.contains(r#"id="status-view" data-refresh="600""#), "the region the page kit refreshes in place");
    let badge = page(&router, "/status/uptime.svg", "*/*").await;
    assert_eq!(badge.headers["content-type"], "image/svg+xml; charset=utf-8");
    assert!(String::from_utf8_lossy(&badge.body).contains(">degraded<"));

    // A new version's new operation appears unmonitored; the old version
    // keeps its settings and its page.
    assert_eq!(app.push("uptime", &token, "label=2.0", description(true)).await.status, StatusCode::CREATED);
    let v2 =
        call(&router, Method::GET, "/api/v1/projects/uptime/monitors?version=2.0", Some(&token), None).await.json();
    let added = row(v2["data"].as_array().unwrap(), "/added");
    assert_eq!((added["monitored"].as_bool(), added["state"].as_str()), (Some(false), Some("none")));
    let v1 = page(&router, "/status/uptime/1.0", "application/json").await.json();
    assert_eq!(v1["rows"].as_array().unwrap().len(), 7);
    assert_eq!(v1["versions"], json!(["1.0", "2.0"]));
    let unknown = page(&router, "/status/uptime/9.9", "application/json").await;
    assert_eq!((unknown.status, unknown.error_code()), (StatusCode::NOT_FOUND, "NOT_FOUND".to_owned()));

    // Probe values the user sets win over the description's example.
    let pets = id_of("/pets/{petId}");
    let set = call(
        &router,
        Method::PATCH,
        &format!("/api/v1/projects/uptime/monitors/{pets}"),
        Some(&token),
        Some(json!({ "path_params": { "petId": "nobody" } })),
    )
    .await;
    assert_eq!(set.json()["path_params"], json!({ "petId": "nobody" }));
    let bad = call(
        &router,
        Method::PATCH,
        &format!("/api/v1/projects/uptime/monitors/{pets}"),
        Some(&token),
        Some(json!({ "path_params": { "petId": ["x"] } })),
    )
    .await;
    assert_eq!((bad.status, bad.error_code()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR".to_owned()));
    hub.run_uptime_round().await.unwrap();
    let after = checks_of("/pets/{petId}").await;
    assert_eq!(after[0]["status_code"], 404, "the user's value was sent");

    // Credentials are stored sealed and never returned.
    let put = call(
        &router,
        Method::PUT,
        "/api/v1/projects/uptime/monitors/credentials/api_key",
        Some(&token),
        Some(json!({ "value": "sk_live_very_secret" })),
    )
    .await;
    assert_eq!(put.status, StatusCode::OK, "{}", String::from_utf8_lossy(&put.body));
    let listed = call(&router, Method::GET, "/api/v1/projects/uptime/monitors/credentials", Some(&token), None).await;
    assert!(!String::from_utf8_lossy(&listed.body).contains("sk_live"), "never returned");
    assert_eq!(listed.json()["data"][0]["set"], true);
    let project_id = app.hub.store().docs_project("uptime").await.unwrap().unwrap().id;
    let stored = app.hub.store().credentials(&project_id).await.unwrap();
    assert!(stored.values().all(|v| v.starts_with("enc:v1:") && !v.contains("sk_live")), "sealed at rest");
    let cleared =
        call(&router, Method::DELETE, "/api/v1/projects/uptime/monitors/credentials/api_key", Some(&token), None).await;
    assert_eq!(cleared.status, StatusCode::NO_CONTENT);

    // Checks past 14 days go with the daily prune.
    app.clock.advance_millis(15 * 86_400_000);
    assert!(hub.prune_monitor_checks().await.unwrap() >= 22);
    assert!(checks_of("/ok").await.is_empty());
}

async fn plans_privacy_and_the_guard_close_the_page(app: TestApp) {
    let api = local_api().await;
    let (_, free) = app.user("free@example.com", Plan::Free).await;
    let (_, pro) = app.user("pro@example.com", Plan::Pro).await;
    for (token, slug, public) in [(&free, "free-api", true), (&pro, "private-api", false), (&pro, "guarded", true)] {
        let created = app
            .post_json(
                "/api/v1/projects",
                token,
                &json!({ "name": slug, "slug": slug, "is_public": public, "base_url": api }),
            )
            .await;
        assert_eq!(created.status, StatusCode::CREATED);
        assert_eq!(app.push(slug, token, "label=1.0", description(false)).await.status, StatusCode::CREATED);
    }
    // Free: no toggles (402) and no page (404).
    let listed = app.get("/api/v1/projects/free-api/monitors", &free).await;
    assert_eq!((listed.status, listed.error_code()), (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED".to_owned()));
    assert_eq!(page(&app.router, "/status/free-api", "text/html").await.status, StatusCode::NOT_FOUND);
    // Private: members see the view; nobody gets a public page.
    let private = app.get("/api/v1/projects/private-api/monitors/status", &pro).await;
    assert_eq!(private.status, StatusCode::OK);
    assert_eq!(page(&app.router, "/status/private-api", "application/json").await.status, StatusCode::NOT_FOUND);
    assert_eq!(page(&app.router, "/status/private-api.svg", "*/*").await.status, StatusCode::NOT_FOUND);
    // A stranger's monitor is a missing one.
    let monitors = app.get("/api/v1/projects/guarded/monitors", &pro).await.json();
    let id = monitors["data"][0]["id"].as_str().unwrap().to_owned();
    let stranger =
        app.patch_json(&format!("/api/v1/projects/guarded/monitors/{id}"), &free, &json!({"monitored": true})).await;
    assert_eq!(stranger.status, StatusCode::NOT_FOUND);
    let turned =
        app.patch_json(&format!("/api/v1/projects/guarded/monitors/{id}"), &pro, &json!({"monitored": true})).await;
    assert_eq!(turned.status, StatusCode::OK);
    // Without SVC_OUTBOUND_ALLOW the loopback API is refused by the guard:
    // a down check that says so, and the API never saw the request.
    let round = app.request(Method::POST, "/api/cron/uptime", Some(CRON_SECRET), None).await.json();
    assert_eq!(round["probed"], 1);
    let checks = app.get(&format!("/api/v1/projects/guarded/monitors/{id}/checks"), &pro).await.json();
    let error = checks["data"][0]["error"].as_str().unwrap();
    assert!(error.starts_with("refused: "), "{error}");
    assert!(error.contains("SVC_OUTBOUND_ALLOW"), "{error}");
}

/// Three nodes (three connection pools and hubs) on one PostgreSQL database
/// run the scheduler for an hour of injected time: every check is recorded
/// once per round.
#[tokio::test]
async fn three_nodes_record_each_round_once() {
    let Some(app) = TestApp::postgres().await else { return };
    let api = local_api().await;
    let (_, token) = app.user("nodes@example.com", Plan::Pro).await;
    let created =
        app.post_json("/api/v1/projects", &token, &json!({ "name": "Nodes", "slug": "nodes", "base_url": api })).await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(app.push("nodes", &token, "label=1.0", description(false)).await.status, StatusCode::CREATED);
    let monitors = app.get("/api/v1/projects/nodes/monitors", &token).await.json();
    for path in ["/ok", "/wrong", "/big"] {
        let id = row(monitors["data"].as_array().unwrap(), path)["id"].as_str().unwrap().to_owned();
        let on =
            app.patch_json(&format!("/api/v1/projects/nodes/monitors/{id}"), &token, &json!({"monitored": true})).await;
        assert_eq!(on.status, StatusCode::OK);
    }
    let platform::Db::Postgres(pool) = app.hub.db() else { unreachable!("a PostgreSQL app") };
    let allow = platform::outbound::AllowList::parse("127.0.0.1").unwrap();
    let mut nodes = Vec::new();
    for _ in 0..3 {
        let own = sqlx::PgPool::connect_with((*pool.connect_options()).clone()).await.unwrap();
        let blobs = tempfile::tempdir().unwrap();
        let hub = Hub::new(platform::Db::Postgres(own), blobs.path(), Arc::new(app.clock.clone()))
            .with_probes(platform::outbound::Outbound::guarded(allow.clone()).with_timeout(TEST_TIMEOUT), 600);
        nodes.push((hub, blobs));
    }
    let mut rounds = 0;
    for _ in 0..6 {
        let runs = nodes.iter().map(|(hub, _)| hub.uptime_round_if_due(Duration::from_secs(600)));
        let won: Vec<Option<usize>> =
            futures_util::future::join_all(runs).await.into_iter().map(Result::unwrap).collect();
        assert_eq!(won.iter().flatten().count(), 1, "exactly one node per round: {won:?}");
        assert_eq!(won.iter().flatten().sum::<usize>(), 3);
        rounds += 1;
        app.clock.advance_millis(TEN_MINUTES);
    }
    assert_eq!(rounds, 6);
    for path in ["/ok", "/wrong", "/big"] {
        let id = row(monitors["data"].as_array().unwrap(), path)["id"].as_str().unwrap().to_owned();
        let checks = app.get(&format!("/api/v1/projects/nodes/monitors/{id}/checks"), &token).await.json();
        let times: Vec<&str> =
            checks["data"].as_array().unwrap().iter().map(|c| c["checked_at"].as_str().unwrap()).collect();
        assert_eq!(times.len(), 6, "{path}: one check per round");
        let mut unique = times.clone();
        unique.dedup();
        assert_eq!(unique.len(), 6, "{path}: no round recorded twice");
    }
}

mod pages {
    //! The Monitoring tab and a monitor's page through the dashboard.

    use axum::http::StatusCode;
    use hub_core::{Plan, Source};
    use test_kit::{TestApp, on_both_stores};

    use crate::dashboard::{location, signed_in, text};

    on_both_stores!(monitors_are_turned_on_and_set_in_the_dashboard);

    async fn monitors_are_turned_on_and_set_in_the_dashboard(app: TestApp) {
        let mut owner = signed_in(&app, "watch@example.com", Plan::Pro).await;
        let created = owner.submit("/app/new", "/app/new", &[("name", "Watch"), ("slug", "watch")]).await;
        assert_eq!(created.status, StatusCode::SEE_OTHER);
        let empty = owner.get("/app/p/watch/monitoring").await;
        assert!(text(&empty).contains("No version yet"), "{}", text(&empty));
        let token = app.hub.create_token("watch@example.com", "t", None, Source::System).await.unwrap().1.into_inner();
        let pushed = app.push("watch", &token, "label=1.0", super::description(false)).await;
        assert_eq!(pushed.status, StatusCode::CREATED);

        let tab = owner.get("/app/p/watch/monitoring").await;
        assert_eq!(tab.status, StatusCode::OK);
        let html = text(&tab);
        assert_eq!(html.matches("Turn on<span class=\"vh\">").count(), 7, "{html}");
        assert!(html.contains("This project is private"), "a private project's status stays in the dashboard");
        let monitors = app.get("/api/v1/projects/watch/monitors", &token).await.json();
        let id = monitors["data"][0]["id"].as_str().unwrap().to_owned();
        let on = owner
            .submit(
                "/app/p/watch/monitoring",
                &format!("/app/p/watch/monitoring/{id}"),
                &[("monitored", "true"), ("version", "1.0")],
            )
            .await;
        assert_eq!(on.status, StatusCode::SEE_OTHER);
        assert!(location(&on).starts_with("/app/p/watch/monitoring?version=1.0"), "{}", location(&on));
        let after = text(&owner.get("/app/p/watch/monitoring").await);
        assert_eq!(after.matches("Turn off<span class=\"vh\">").count(), 1, "{after}");
        assert!(after.contains("is monitored from the next round"));

        // Probe values: a line without "=" stays on the form with its error.
        let page = format!("/app/p/watch/monitoring/{id}");
        let bad = owner.submit(&page, &page, &[("values", "1"), ("path_params", "petId"), ("query", "")]).await;
        assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(text(&bad).contains("aria-invalid"), "{}", text(&bad));
        let good = owner.submit(&page, &page, &[("values", "1"), ("path_params", ""), ("query", "verbose=1")]).await;
        assert_eq!(good.status, StatusCode::SEE_OTHER);
        let monitor = app.get("/api/v1/projects/watch/monitors", &token).await.json();
        assert_eq!(monitor["data"][0]["query"]["verbose"], "1");

        // A credential is stored and never shown.
        let stored = owner
            .submit(
                "/app/p/watch/monitoring",
                "/app/p/watch/monitoring/credentials",
                &[("scheme", "api_key"), ("value", "sk_dashboard_secret")],
            )
            .await;
        assert_eq!(stored.status, StatusCode::SEE_OTHER);
        let with_credential = text(&owner.get("/app/p/watch/monitoring").await);
        assert!(with_credential.contains("The credential for api_key is stored"), "{with_credential}");
        assert!(!with_credential.contains("sk_dashboard_secret"));

        // Another account's project is a missing page; Free sees the plan.
        let mut stranger = signed_in(&app, "stranger@example.com", Plan::Free).await;
        assert_eq!(stranger.get("/app/p/watch/monitoring").await.status, StatusCode::NOT_FOUND);
        let created = stranger.submit("/app/new", "/app/new", &[("name", "Mine"), ("slug", "mine")]).await;
        assert_eq!(created.status, StatusCode::SEE_OTHER);
        let free = text(&stranger.get("/app/p/mine/monitoring").await);
        assert!(free.contains("part of the Pro plan"), "{free}");
    }
}
