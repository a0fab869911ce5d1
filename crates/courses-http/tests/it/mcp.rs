use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(mcp_tools_use_the_same_use_cases_and_gates);

async fn rpc(app: &TestApp, key: &str, id: u64, method: &str, params: Value) -> Value {
    let response =
        app.post("/v1/mcp", key, &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })).await;
    assert_eq!(response.status, StatusCode::OK, "{}", response.text());
    let body = response.json();
    assert_eq!(body["id"], id);
    body
}

async fn call(app: &TestApp, key: &str, tool: &str, arguments: Value) -> Value {
    rpc(app, key, 9, "tools/call", json!({ "name": tool, "arguments": arguments })).await["result"].clone()
}

async fn mcp_tools_use_the_same_use_cases_and_gates(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Build).await;
    let init = rpc(&app, &key, 1, "initialize", json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "test", "version": "1" } })).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    let note = app.post("/v1/mcp", &key, &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
    assert_eq!(note.status, StatusCode::ACCEPTED);

    let tools = rpc(&app, &key, 2, "tools/list", json!({})).await;
    let names: Vec<&str> =
        tools["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    for expected in [
        "generate_course",
        "create_course",
        "add_screen",
        "reorder_screens",
        "duplicate_screen",
        "add_block",
        "publish_course",
    ] {
        assert!(names.contains(&expected), "{expected}");
    }

    let generated = call(&app, &key, "generate_course", json!({ "prompt": "Password hygiene for new hires. Use a password manager. Turn on two-factor authentication everywhere.", "screensTarget": 4 })).await;
    assert_eq!(generated["isError"], false, "{generated}");
    let course = generated["structuredContent"].clone();
    let id = course["id"].as_str().unwrap().to_owned();
    let served = app.get(&format!("/v1/courses/{id}"), &key).await;
    assert_eq!(served.status, StatusCode::OK, "the API serves what the tool made");
    assert_eq!(served.json()["sourceKind"], "generated");

    let screen_ids: Vec<String> =
        course["screens"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect();
    let dup = call(&app, &key, "duplicate_screen", json!({ "courseId": id, "screenId": screen_ids[0] })).await;
    assert_eq!(dup["structuredContent"]["index"], 1);
    let partial = call(&app, &key, "reorder_screens", json!({ "courseId": id, "orderedScreenIds": screen_ids })).await;
    assert_eq!(partial["isError"], true, "a partial list is rejected");
    assert!(partial["content"][0]["text"].as_str().unwrap().contains("invalid_request"));
    let added = call(&app, &key, "add_block", json!({ "courseId": id, "screenId": screen_ids[0], "block": { "type": "stack", "stackCards": vec![json!({ "front": "x" }); 11] } })).await;
    assert_eq!(added["isError"], true, "the same validation as the API");
    let published = call(&app, &key, "publish_course", json!({ "courseId": id })).await;
    assert_eq!(published["structuredContent"]["status"], "published");

    // Same gates: a read-only key may read but not write; another workspace's course is not found.
    let (_, ro) = app.courses.create_key(&ws, "ro", true).await.unwrap();
    let denied = call(&app, ro.expose(), "create_course", json!({ "title": "x" })).await;
    assert_eq!(denied["isError"], true);
    assert!(denied["content"][0]["text"].as_str().unwrap().contains("insufficient_scope"));
    assert_eq!(call(&app, ro.expose(), "get_course", json!({ "courseId": id })).await["isError"], false);
    let (_, other) = app.workspace(Plan::Build).await;
    let hidden = call(&app, &other, "get_course", json!({ "courseId": id })).await;
    assert!(hidden["content"][0]["text"].as_str().unwrap().contains("not_found"));
    let (_, sandbox) = app.workspace(Plan::Sandbox).await;
    let gated = call(&app, &sandbox, "generate_course", json!({ "prompt": "anything at all here" })).await;
    assert!(gated["content"][0]["text"].as_str().unwrap().contains("plan_required"));
    let unauthenticated = app.send(axum::http::Method::POST, "/v1/mcp", None, Some("{}".into())).await;
    assert_eq!(unauthenticated.status, StatusCode::UNAUTHORIZED);
}
