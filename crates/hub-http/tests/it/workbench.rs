//! Saved requests with environments through the real router: a request
//! with placeholders (a secret among them) runs against a local API written
//! here, which sees every placeholder resolved; the guard refuses loopback
//! unless the operator allows it; secrets never appear in an answer, an
//! export without an explicit request, or the audit log; Postman
//! collections import with their folders; the plan gate; runs are kept and
//! bounded.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::{TestApp, on_both_stores};

on_both_stores!(
    a_saved_request_runs_with_its_environment_resolved,
    secrets_stay_out_of_every_answer_export_and_audit_row,
    postman_collections_import_with_their_folders,
    the_workbench_is_pro_and_up_and_gated_by_role
);

const SECRET: &str = "sk_live_Zq81-secret-value";

/// A local API that answers what it received: method, path and query,
/// headers and body. `/v1/...` only.
pub(crate) async fn local_api() -> (String, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    let app = Router::new().fallback(
        move |method: axum::http::Method, uri: axum::http::Uri, headers: HeaderMap, body: String| {
            let kept = kept.clone();
            async move {
                let headers: serde_json::Map<String, Value> = headers
                    .iter()
                    .map(|(n, v)| (n.as_str().to_owned(), json!(v.to_str().unwrap_or_default())))
                    .collect();
                let echo = json!({"method": method.as_str(), "uri": uri.to_string(), "headers": headers, "body": body});
                kept.lock().unwrap().push(echo.clone());
                axum::Json(echo)
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    (format!("http://{address}/v1"), seen)
}

pub(crate) fn described(base: &str) -> String {
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": base}],
        "paths": {"/pets": {"post": {"responses": {"200": {"description": "ok"}}}}}
    })
    .to_string()
}

/// A Pro project whose description points at the local API.
async fn project(app: &TestApp, email: &str, plan: Plan, base: &str) -> (String, String) {
    let (_, token) = app.user(email, plan).await;
    let slug = app.project(&token, "Pets").await;
    assert_eq!(app.push(&slug, &token, "label=v1", described(base)).await.status, StatusCode::CREATED);
    (token, slug)
}

async fn created(app: &TestApp, path: &str, token: &str, body: Value) -> Value {
    let made = app.post_json(path, token, &body).await;
    assert_eq!(made.status, StatusCode::CREATED, "{path}: {}", String::from_utf8_lossy(&made.body));
    made.json()
}

async fn a_saved_request_runs_with_its_environment_resolved(app: TestApp) {
    let (base, seen) = local_api().await;
    let (token, slug) = project(&app, "runs@example.com", Plan::Pro, &base).await;
    let p = format!("/api/v1/projects/{slug}");
    let env = created(
        &app,
        &format!("{p}/environments"),
        &token,
        json!({"name": "Local", "variables": {"limit": "5", "pet": "Rex"}, "secrets": {"token": SECRET}, "active": true}),
    )
    .await;
    assert_eq!(env["active"], true);
    let request = created(
        &app,
        &format!("{p}/requests"),
        &token,
        json!({
            "name": "Create a pet", "folder": "Pets", "method": "post", "url": "/pets",
            "headers": [["Authorization", "Bearer {{token}}"], ["X-Limit", "{{ limit }}"], ["Content-Type", "application/json"]],
            "query": [["limit", "{{limit}}"], ["key", "{{token}}"], ["unknown", "{{missing}}"]],
            "body": "{\"name\": \"{{pet}}\"}"
        }),
    )
    .await;
    assert_eq!(request["method"], "POST");
    assert_eq!(request["placeholders"], json!(["token", "limit", "missing", "pet"]));
    let id = request["id"].as_str().unwrap();

    let ran = app.post_json(&format!("{p}/requests/{id}/run"), &token, &json!({})).await;
    assert_eq!(ran.status, StatusCode::OK, "{}", String::from_utf8_lossy(&ran.body));
    let outcome = ran.json();
    // The local API saw every known placeholder resolved...
    let got = seen.lock().unwrap().pop().unwrap();
    assert_eq!(got["method"], "POST");
    assert_eq!(got["headers"]["authorization"], format!("Bearer {SECRET}"));
    assert_eq!(got["headers"]["x-limit"], "5");
    assert_eq!(got["body"], r#"{"name": "Rex"}"#);
    let uri = got["uri"].as_str().unwrap();
    assert!(uri.starts_with("/v1/pets?limit=5&key=sk_live_Zq81-secret-value&unknown=%7B%7Bmissing%7D%7D"), "{uri}");
    // ...and the answer has the status, the time and size, the unknown
    // placeholder, and the secret masked wherever the API echoed it.
    assert_eq!(outcome["status"], 200);
    assert_eq!(outcome["environment"], "Local");
    assert_eq!(outcome["unresolved"], json!(["missing"]));
    assert!(outcome["size"].as_i64().unwrap() > 0);
    assert!(outcome["resolved_url"].as_str().unwrap().starts_with(&format!("{base}/pets?limit=5&key=********")));
    assert!(!outcome.to_string().contains(SECRET), "{outcome}");
    assert!(outcome["body"].as_str().unwrap().contains("Bearer ********"));

    // Another environment by id; a path without a base is refused clearly.
    let other =
        created(&app, &format!("{p}/environments"), &token, json!({"name": "Other", "variables": {"pet": "Tom"}}))
            .await;
    let with_other = json!({"environment": other["id"]});
    let ran = app.post_json(&format!("{p}/requests/{id}/run"), &token, &with_other).await.json();
    assert_eq!(ran["unresolved"], json!(["limit", "missing", "token"]));
    assert_eq!(seen.lock().unwrap().pop().unwrap()["body"], r#"{"name": "Tom"}"#);
    let unknown = app.post_json(&format!("{p}/requests/{id}/run"), &token, &json!({"environment": "env_nope"})).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);

    // Runs are kept, newest first, masked; 50 at most.
    let runs = app.get(&format!("{p}/requests/{id}/runs"), &token).await.json();
    assert_eq!(runs["data"].as_array().unwrap().len(), 2);
    assert_eq!(runs["data"][0]["environment"], "Other");
    assert!(!runs.to_string().contains(SECRET));
    for _ in 0..50 {
        app.post_json(&format!("{p}/requests/{id}/run"), &token, &json!({})).await;
    }
    let runs = app.get(&format!("{p}/requests/{id}/runs"), &token).await.json();
    assert_eq!(runs["data"].as_array().unwrap().len(), 50);

    // Toward loopback without the operator's allowance: refused, not sent.
    let strict = app.router_for(app.hub.clone().with_relay(platform::outbound::Outbound::default()));
    let before = seen.lock().unwrap().len();
    let request = axum::http::Request::post(format!("{p}/requests/{id}/run"))
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(axum::body::Body::from("{}"))
        .unwrap();
    let refused = TestApp::send(&strict, request).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{}", String::from_utf8_lossy(&refused.body));
    assert_eq!(refused.json()["error"]["details"]["field"], "url");
    assert_eq!(seen.lock().unwrap().len(), before, "nothing reached the API");

    // Copy as curl: variables filled in, the secret a shell variable.
    let curl = app.get(&format!("{p}/requests/{id}/curl"), &token).await.json();
    let command = curl["command"].as_str().unwrap();
    assert!(command.starts_with(&format!("curl -X POST '{base}/pets?limit=5&key='\"${{TOKEN}}\"")), "{command}");
    assert!(command.contains("'Authorization: Bearer '\"${TOKEN}\"") && !command.contains(SECRET), "{command}");
}

async fn secrets_stay_out_of_every_answer_export_and_audit_row(app: TestApp) {
    let (base, _) = local_api().await;
    let (token, slug) = project(&app, "secrets@example.com", Plan::Business, &base).await;
    let p = format!("/api/v1/projects/{slug}");
    let mut answers: Vec<String> = Vec::new();
    let env = created(
        &app,
        &format!("{p}/environments"),
        &token,
        json!({"name": "Prod", "variables": {"base": base}, "secrets": {"token": SECRET}, "is_default": true}),
    )
    .await;
    answers.push(env.to_string());
    assert_eq!(env["secrets"], json!({"token": null}));
    let id = env["id"].as_str().unwrap().to_owned();
    let e = format!("{p}/environments/{id}");

    // A PATCH with `null` keeps the stored value; a new name needs one.
    let kept = app.patch_json(&e, &token, &json!({"secrets": {"token": null}, "variables": {"base": base}})).await;
    assert_eq!(kept.status, StatusCode::OK);
    answers.push(kept.json().to_string());
    let nothing = app.patch_json(&e, &token, &json!({"secrets": {"token": null, "other": null}})).await;
    assert_eq!(nothing.json()["secrets"], json!({"token": null}), "a null without a stored value adds nothing");
    let both = app.patch_json(&e, &token, &json!({"variables": {"token": "x"}})).await;
    assert_eq!(both.status, StatusCode::BAD_REQUEST, "a name is a variable or a secret, not both");

    let req = created(
        &app,
        &format!("{p}/requests"),
        &token,
        json!({"name": "Me", "method": "GET", "url": "{{base}}/me", "headers": [["Authorization", "Bearer {{token}}"]]}),
    )
    .await;
    answers.push(req.to_string());
    let rid = req["id"].as_str().unwrap();
    // The default environment applies to a member who chose none.
    let ran = app.post_json(&format!("{p}/requests/{rid}/run"), &token, &json!({})).await.json();
    assert_eq!(ran["environment"], "Prod");
    answers.push(ran.to_string());
    answers.push(app.get(&format!("{p}/requests/{rid}/runs"), &token).await.json().to_string());
    answers.push(app.get(&format!("{p}/environments"), &token).await.json().to_string());
    answers.push(app.get(&e, &token).await.json().to_string());
    answers.push(app.get(&format!("{p}/requests/{rid}/curl"), &token).await.json().to_string());
    let collection = app.get(&format!("{p}/requests/export?format=postman"), &token).await;
    assert!(collection.headers["content-disposition"].to_str().unwrap().contains(".postman_collection.json"));
    answers.push(String::from_utf8_lossy(&collection.body).into_owned());
    let hidden = app.get(&format!("{p}/requests/export?format=postman-environment&environment={id}"), &token).await;
    let hidden = hidden.json();
    assert_eq!(hidden["values"][1], json!({"key": "token", "value": "", "type": "secret", "enabled": true}));
    answers.push(hidden.to_string());
    for answer in &answers {
        assert!(!answer.contains(SECRET), "a secret in: {answer}");
    }

    // Asked for explicitly: the value, and a row saying who took it.
    let shown = app
        .get(&format!("{p}/requests/export?format=postman-environment&environment={id}&secrets=include"), &token)
        .await;
    assert_eq!(shown.json()["values"][1]["value"], SECRET);
    let audit = app.get("/api/v1/audit?limit=100", &token).await;
    let rows = audit.json();
    let codes: Vec<&str> = rows["data"].as_array().unwrap().iter().map(|r| r["action"].as_str().unwrap()).collect();
    for code in ["ENVIRONMENT_CREATED", "ENVIRONMENT_UPDATED", "REQUEST_CREATED", "ENVIRONMENT_SECRETS_EXPORTED"] {
        assert!(codes.contains(&code), "{code} in {codes:?}");
    }
    assert!(!String::from_utf8_lossy(&audit.body).contains(SECRET), "the audit log names secrets, never their values");
    let csv = app.get("/api/audit/export.csv", &token).await;
    assert!(!String::from_utf8_lossy(&csv.body).contains(SECRET));
}

async fn postman_collections_import_with_their_folders(app: TestApp) {
    let (base, seen) = local_api().await;
    let (token, slug) = project(&app, "import@example.com", Plan::Pro, &base).await;
    let p = format!("/api/v1/projects/{slug}");
    let collection = json!({
        "info": {"name": "Written here", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
        "variable": [{"key": "baseUrl", "value": base}],
        "item": [
            {"name": "Admin", "item": [
                {"name": "Deep", "item": [
                    {"name": "Delete pet", "request": {"method": "DELETE", "url": "{{baseUrl}}/pets/{{id}}"}}
                ]},
                {"name": "Stats", "event": [{"listen": "test", "script": {"exec": ["pm.test('ok')"]}}],
                 "request": {"method": "GET", "url": {"raw": "{{baseUrl}}/stats?window=7d", "host": ["{{baseUrl}}"], "path": ["stats"]}}}
            ]},
            {"name": "Ping", "request": "{{baseUrl}}/ping"}
        ]
    });
    let imported = app.post_json(&format!("{p}/requests/import"), &token, &collection).await;
    assert_eq!(imported.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&imported.body));
    let report = imported.json();
    assert_eq!(report["imported"], 3);
    assert_eq!(report["skipped"].as_array().unwrap().len(), 1, "the script is named: {report}");
    let listed = app.get(&format!("{p}/requests"), &token).await.json();
    let rows: Vec<(Value, Value, Value)> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["folder"].clone(), r["name"].clone(), r["url"].clone()))
        .collect();
    assert_eq!(
        rows,
        [
            (Value::Null, json!("Ping"), json!("{{baseUrl}}/ping")),
            (json!("Admin"), json!("Stats"), json!("{{baseUrl}}/stats")),
            (json!("Admin/Deep"), json!("Delete pet"), json!("{{baseUrl}}/pets/{{id}}")),
        ]
    );
    // The collection's variables became an environment that runs it.
    let env_id = report["environment"].as_str().unwrap();
    let env = app.get(&format!("{p}/environments/{env_id}"), &token).await.json();
    assert_eq!(env["name"], "Written here");
    let stats = listed["data"][1]["id"].as_str().unwrap();
    let ran = app.post_json(&format!("{p}/requests/{stats}/run"), &token, &json!({"environment": env_id})).await;
    assert_eq!(ran.json()["status"], 200);
    assert_eq!(seen.lock().unwrap().pop().unwrap()["uri"], "/v1/stats?window=7d");

    // What is not a v2.1 collection is refused with the reason.
    let old = app.post_json(&format!("{p}/requests/import"), &token, &json!({"name": "v1", "requests": []})).await;
    assert_eq!(old.status, StatusCode::BAD_REQUEST);
    // And the export reads back through the same import.
    let exported = app.get(&format!("{p}/requests/export"), &token).await;
    let again = app.post_json(&format!("{p}/requests/import"), &token, &exported.json()).await.json();
    assert_eq!(again["imported"], 3);
}

async fn the_workbench_is_pro_and_up_and_gated_by_role(app: TestApp) {
    let (base, _) = local_api().await;
    let (token, slug) = project(&app, "free@example.com", Plan::Free, &base).await;
    let listed = app.get(&format!("/api/v1/projects/{slug}/requests"), &token).await;
    assert_eq!((listed.status, listed.error_code()), (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED".into()));
    let made = app.post_json(&format!("/api/v1/projects/{slug}/environments"), &token, &json!({"name": "x"})).await;
    assert_eq!(made.status, StatusCode::PAYMENT_REQUIRED);

    // Someone else's project answers 404, as a missing one does.
    let (owner, theirs) = project(&app, "owner@example.com", Plan::Pro, &base).await;
    let (_, stranger) = app.user("stranger@example.com", Plan::Pro).await;
    let req = created(
        &app,
        &format!("/api/v1/projects/{theirs}/requests"),
        &owner,
        json!({"name": "x", "method": "GET", "url": "/pets"}),
    )
    .await;
    let id = req["id"].as_str().unwrap();
    for path in [format!("/api/v1/projects/{theirs}/requests"), format!("/api/v1/projects/{theirs}/requests/{id}")] {
        assert_eq!(app.get(&path, &stranger).await.status, StatusCode::NOT_FOUND, "{path}");
    }
    // Limits answer 400 on their field.
    let bad = app
        .post_json(
            &format!("/api/v1/projects/{theirs}/requests"),
            &owner,
            &json!({"name": "x", "method": "TRACE", "url": "/pets"}),
        )
        .await;
    assert_eq!(
        (bad.status, bad.json()["error"]["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("method"))
    );
    let big = json!({"name": "x", "method": "POST", "url": "/pets", "body": "x".repeat(1024 * 1024 + 1)});
    let refused = app.post_json(&format!("/api/v1/projects/{theirs}/requests"), &owner, &big).await;
    assert!(refused.status.is_client_error(), "{}", refused.status);
}
