//! The per-project MCP server's gates through the real router, on both
//! stores: who is admitted (401 and 404 as documented), the MCP token's
//! life (shown once, never in project answers, audited, replaced on
//! rotation), the plan gate of live calls and the outbound guard they go
//! through. The tools themselves are exercised by the official MCP client
//! SDK (`tests/clients/run-mcp.sh`).

use axum::http::{StatusCode, header};
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::{TestApp, TestResponse, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(
    who_may_use_a_projects_mcp_server,
    mcp_tokens_are_shown_once_hashed_and_replaced,
    live_calls_are_plan_gated_and_guarded,
);

async fn rpc(app: &TestApp, target: &str, token: Option<&str>, method: &str, params: Value) -> TestResponse {
    crate::mcp_call(&app.router, target, token, method, params).await
}

async fn tool(app: &TestApp, target: &str, token: Option<&str>, name: &str, arguments: Value) -> Value {
    let response = rpc(app, target, token, "tools/call", json!({ "name": name, "arguments": arguments })).await;
    assert_eq!(response.status, StatusCode::OK, "{}", String::from_utf8_lossy(&response.body));
    response.json()["result"].clone()
}

fn tool_text(result: &Value) -> String {
    result["content"][0]["text"].as_str().unwrap_or_default().to_owned()
}

async fn project(app: &TestApp, token: &str, slug: &str, public: bool, base_url: Option<&str>) {
    let body = json!({ "name": slug, "slug": slug, "is_public": public, "base_url": base_url });
    let created = app.post_json("/api/v1/projects", token, &body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    assert_eq!(app.push(slug, token, "label=1", openapi_yaml("1")).await.status, StatusCode::CREATED);
}

async fn who_may_use_a_projects_mcp_server(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Pro).await;
    let (_, stranger) = app.user("stranger@example.com", Plan::Pro).await;
    project(&app, &owner, "open", true, None).await;
    project(&app, &owner, "closed", false, None).await;

    // A public project answers anyone; tools/list holds exactly twelve tools.
    let listed = rpc(&app, "open", None, "tools/list", json!({})).await;
    assert_eq!(listed.status, StatusCode::OK);
    let tools = listed.json()["result"]["tools"].as_array().unwrap().len();
    assert_eq!(tools, 12);

    // A private one: 401 without a credential (with a challenge), 404 for a
    // stranger's token and for an unknown project, 200 for the owner's.
    let bare = rpc(&app, "closed", None, "tools/list", json!({})).await;
    assert_eq!(bare.status, StatusCode::UNAUTHORIZED);
    assert!(bare.headers.get(header::WWW_AUTHENTICATE).is_some());
    assert_eq!(rpc(&app, "closed", Some(&stranger), "tools/list", json!({})).await.status, StatusCode::NOT_FOUND);
    assert_eq!(rpc(&app, "nothing", None, "tools/list", json!({})).await.status, StatusCode::NOT_FOUND);
    assert_eq!(rpc(&app, "closed", Some(&owner), "tools/list", json!({})).await.status, StatusCode::OK);

    // A version by label, and an unknown one named in the tool's error.
    let found = tool(&app, "open@1", None, "list_endpoints", json!({})).await;
    assert_eq!(found["structuredContent"]["total"], 2, "{found}");
    let missing = tool(&app, "open@9", None, "list_endpoints", json!({})).await;
    assert_eq!(missing["isError"], true);
    assert!(tool_text(&missing).contains("no version `9`"), "{missing}");

    // Arguments are checked: an unknown tool is a protocol error.
    let unknown = rpc(&app, "open", None, "tools/call", json!({ "name": "drop_tables", "arguments": {} })).await;
    assert_eq!(unknown.json()["error"]["code"], -32602, "{}", String::from_utf8_lossy(&unknown.body));
}

async fn mcp_tokens_are_shown_once_hashed_and_replaced(app: TestApp) {
    let (_, owner) = app.user("tokens@example.com", Plan::Business).await;
    project(&app, &owner, "vault", false, None).await;
    project(&app, &owner, "other", false, None).await;
    let minted = app.post_json("/api/v1/projects/vault/mcp-token", &owner, &json!({})).await;
    assert_eq!(minted.status, StatusCode::CREATED);
    let first = minted.json()["mcp_token"].as_str().unwrap().to_owned();
    assert!(first.starts_with("svc_mcp_"));
    let shown = app.get("/api/v1/projects/vault", &owner).await;
    let text = String::from_utf8_lossy(&shown.body).to_string();
    assert!(!text.contains(&first) && !text.contains("mcp_token"), "never in a project answer: {text}");
    assert_eq!(rpc(&app, "vault", Some(&first), "tools/list", json!({})).await.status, StatusCode::OK);
    assert_eq!(rpc(&app, "other", Some(&first), "tools/list", json!({})).await.status, StatusCode::NOT_FOUND);

    let rotated = app.post_json("/api/v1/projects/vault/mcp-token", &owner, &json!({})).await.json();
    let second = rotated["mcp_token"].as_str().unwrap().to_owned();
    assert_ne!(first, second);
    assert_eq!(rpc(&app, "vault", Some(&first), "tools/list", json!({})).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(rpc(&app, "vault", Some(&second), "tools/list", json!({})).await.status, StatusCode::OK);
    let audit = app.hub.audit_log("tokens@example.com").await.unwrap();
    let rows: Vec<_> = audit.iter().filter(|e| e.action == "MCP_TOKEN_ROTATED").collect();
    assert_eq!(rows.len(), 2);
    assert!(!serde_json::to_string(&rows[0].metadata).unwrap().contains(&first), "the audit row shows a prefix only");
}

async fn live_calls_are_plan_gated_and_guarded(app: TestApp) {
    let (_, free) = app.user("free@example.com", Plan::Free).await;
    let (_, pro) = app.user("pro@example.com", Plan::Pro).await;
    project(&app, &free, "freeapi", true, Some("https://api.example.com")).await;
    // A private address the operator did not allow (the test hub allows 127.0.0.1 only).
    project(&app, &pro, "inside", true, Some("http://10.20.30.40")).await;
    let call = json!({ "method": "GET", "path": "/pets" });
    let gated = tool(&app, "freeapi", None, "call_endpoint", call.clone()).await;
    assert_eq!(gated["isError"], true);
    assert!(tool_text(&gated).to_lowercase().contains("pro"), "{gated}");
    let refused = tool(&app, "inside", None, "call_endpoint", call).await;
    assert_eq!(refused["isError"], true);
    let message = tool_text(&refused);
    assert!(message.contains("10.20.30.40") || message.contains("private"), "{message}");
    // The mock, in-process, answers the same project.
    let mocked = tool(&app, "inside", None, "call_mock", json!({ "method": "GET", "path": "/pets" })).await;
    assert_eq!(mocked["structuredContent"]["status"], 200, "{mocked}");
}
