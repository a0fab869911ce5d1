use axum::http::StatusCode;
use hub_core::Plan;
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(business_writes_a_row_per_mutation, free_and_pro_write_none);

async fn run_mutations(app: &TestApp, token: &str) -> String {
    let slug = app.project(token, "Audited").await;
    let path = format!("/api/v1/projects/{slug}");
    app.patch_json(&path, token, &json!({ "is_public": true })).await;
    app.patch_json(&path, token, &json!({ "name": "Audited API" })).await;
    app.push(&slug, token, "label=v1", openapi_yaml("1")).await;
    app.push(&slug, token, "label=v1", openapi_yaml("1b")).await;
    app.push(&slug, token, "label=v2", openapi_yaml("2")).await;
    app.push(&slug, token, "label=pr-1&preview=true&pr=1", openapi_yaml("3")).await;
    app.patch_json(&format!("{path}/versions/v2"), token, &json!({ "is_default": true })).await;
    app.patch_json(&format!("{path}/versions/v1"), token, &json!({ "is_active": false })).await;
    assert_eq!(app.delete(&format!("{path}/versions/v1"), token).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.delete(&path, token).await.status, StatusCode::NO_CONTENT);
    slug
}

async fn business_writes_a_row_per_mutation(app: TestApp) {
    let (user, token) = app.user("biz@example.com", Plan::Business).await;
    run_mutations(&app, &token).await;
    let events = app.hub.audit_log("biz@example.com").await.unwrap();
    let actions: Vec<&str> = events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions,
        vec![
            "TOKEN_CREATED",
            "PROJECT_CREATED",
            "PROJECT_VISIBILITY_CHANGED",
            "PROJECT_UPDATED",
            "SPEC_UPLOADED",
            "VERSION_PROMOTED_DEFAULT",
            "SPEC_SYNCED",
            "SPEC_UPLOADED",
            "PREVIEW_CREATED",
            "VERSION_PROMOTED_DEFAULT",
            "VERSION_DEACTIVATED",
            "VERSION_DELETED",
            "PROJECT_DELETED",
        ]
    );
    for event in &events {
        assert!(uuid::Uuid::parse_str(&event.id).is_ok());
        assert_eq!(event.account_user_id, user.id);
        assert_eq!(event.actor_user_id, user.id);
        assert!(event.action.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
        let created = event.created_at.to_rfc3339();
        assert!(created.len() == 24 && created.ends_with('Z'), "UTC with milliseconds: {created}");
    }
    let api_events = &events[1..];
    assert!(api_events.iter().all(|e| e.metadata["source"] == "api"));
    assert_eq!(events[0].metadata["source"], "system");
    let visibility = &events[2];
    assert_eq!(
        (visibility.metadata["from"].clone(), visibility.metadata["to"].clone()),
        (json!("private"), json!("public"))
    );
    assert_eq!(visibility.target_type, "project");
    let upload = &events[4];
    assert_eq!(upload.target_type, "version");
    assert_eq!(upload.metadata["label"], "v1");
    assert!(upload.project_id.is_some());
}

async fn free_and_pro_write_none(app: TestApp) {
    for (email, plan) in [("free@example.com", Plan::Free), ("pro@example.com", Plan::Pro)] {
        let (_, token) = app.user(email, plan).await;
        if plan == Plan::Free {
            let slug = app.project(&token, "Free audited").await;
            app.push(&slug, &token, "label=v1", openapi_yaml("1")).await;
            app.delete(&format!("/api/v1/projects/{slug}"), &token).await;
        } else {
            run_mutations(&app, &token).await;
        }
        assert!(app.hub.audit_log(email).await.unwrap().is_empty(), "{plan} wrote audit rows");
    }
}

/// Every mutating operation of the API document, called once on a Business
/// account, writes its audit code; the table must name every mutating
/// operation the document has, so a new route cannot be added without its
/// code.
#[tokio::test]
async fn every_mutating_route_of_the_api_writes_its_code() {
    use axum::body::Body;
    use axum::http::Method;
    use serde_json::Value;

    let app = TestApp::sqlite().await;
    let (_, token) = app.user("walk@example.com", Plan::Business).await;
    let (_, walker) = app.user("walker@example.com", Plan::Free).await;
    let mut covered: Vec<&str> = Vec::new();
    let mut seen = app.hub.audit_log("walk@example.com").await.unwrap().len();
    // Calls one operation and checks the codes its rows carry.
    macro_rules! step {
        ($op:literal, $method:expr, $path:expr, $who:expr, $body:expr, [$($code:literal),*]) => {{
            let body: Option<Value> = $body;
            let path = String::from($path);
            let response = app
                .request($method, &path, Some($who), body.map(|b| Body::from(b.to_string())))
                .await;
            assert!(response.status.is_success(), "{}: {} {}", $op, response.status, String::from_utf8_lossy(&response.body));
            let rows = app.hub.audit_log("walk@example.com").await.unwrap();
            let new: Vec<String> = rows[seen..].iter().map(|e| e.action.clone()).collect();
            seen = rows.len();
            let expected: Vec<&str> = vec![$($code),*];
            assert_eq!(new, expected, "{}", $op);
            covered.push($op);
            response
        }};
    }
    let p = "/api/v1/projects/walk";
    step!(
        "createProject",
        Method::POST,
        "/api/v1/projects",
        &token,
        Some(json!({"name": "Walk", "slug": "walk"})),
        ["PROJECT_CREATED"]
    );
    let pushed = app.push("walk", &token, "label=1.0", openapi_yaml("1.0")).await;
    assert_eq!(pushed.status, StatusCode::CREATED);
    seen += 2; // SPEC_UPLOADED and the first version's VERSION_PROMOTED_DEFAULT
    covered.push("pushVersion");
    let again = app.push("walk", &token, "label=2.0", openapi_yaml("2.0")).await;
    assert_eq!(again.status, StatusCode::CREATED);
    seen += 1;
    step!("updateProject", Method::PATCH, p, &token, Some(json!({"name": "Walk two"})), ["PROJECT_UPDATED"]);
    step!(
        "updateVersion",
        Method::PATCH,
        format!("{p}/versions/2.0"),
        &token,
        Some(json!({"is_default": true})),
        ["VERSION_PROMOTED_DEFAULT"]
    );
    step!("deleteVersion", Method::DELETE, format!("{p}/versions/1.0"), &token, None, ["VERSION_DELETED"]);
    step!(
        "updateMockSettings",
        Method::PATCH,
        format!("{p}/mock/settings"),
        &token,
        Some(json!({"validateRequests": true})),
        ["MOCK_SETTINGS_UPDATED"]
    );
    let made = step!(
        "createMockOverride",
        Method::POST,
        format!("{p}/mock/overrides"),
        &token,
        Some(json!({"name": "Teapot", "matcher": {"method": "GET", "path": "/pets"}, "response": {"status": 418}})),
        ["MOCK_OVERRIDE_CREATED"]
    );
    let id = made.json()["id"].as_str().unwrap().to_owned();
    step!(
        "updateMockOverride",
        Method::PATCH,
        format!("{p}/mock/overrides/{id}"),
        &token,
        Some(json!({"name": "Kettle"})),
        ["MOCK_OVERRIDE_UPDATED"]
    );
    step!(
        "duplicateMockOverride",
        Method::POST,
        format!("{p}/mock/overrides/{id}/duplicate"),
        &token,
        None,
        ["MOCK_OVERRIDE_CREATED"]
    );
    step!(
        "deleteMockOverride",
        Method::DELETE,
        format!("{p}/mock/overrides/{id}"),
        &token,
        None,
        ["MOCK_OVERRIDE_DELETED"]
    );
    step!(
        "importMockOverrides",
        Method::POST,
        format!("{p}/mock/overrides/import"),
        &token,
        Some(json!({"format": "svc-mock-overrides", "version": 1, "overrides": []})),
        ["MOCK_OVERRIDES_IMPORTED"]
    );
    step!(
        "putBranding",
        Method::PUT,
        format!("{p}/branding"),
        &token,
        Some(json!({"accent_color": "#FF6600"})),
        ["BRANDING_UPDATED"]
    );
    step!("putTheme", Method::PUT, format!("{p}/theme"), &token, Some(json!({"radius": 6})), ["THEME_UPDATED"]);
    step!(
        "putCustomization",
        Method::PUT,
        format!("{p}/customization"),
        &token,
        Some(json!({"header": {"title": "Walk"}})),
        ["CUSTOMIZATION_UPDATED"]
    );
    step!(
        "putEndpointDocs",
        Method::PUT,
        format!("{p}/endpoint-docs"),
        &token,
        Some(json!({"version": "2.0", "endpoint": "get /pets", "intro": "Hello"})),
        ["CUSTOMIZATION_UPDATED"]
    );
    step!(
        "putDocsPassword",
        Method::PUT,
        format!("{p}/docs-password"),
        &token,
        Some(json!({"password": "a long docs password"})),
        ["PROJECT_UPDATED"]
    );
    step!("rotateMcpToken", Method::POST, format!("{p}/mcp-token"), &token, None, ["MCP_TOKEN_ROTATED"]);
    step!(
        "inviteCollaborator",
        Method::POST,
        "/api/v1/collaborators",
        &token,
        Some(json!({"email": "walker@example.com", "role": "viewer"})),
        ["COLLABORATOR_INVITED"]
    );
    let secret = crate::team::newest_invitation_secret(&app, "walker@example.com").await;
    step!(
        "acceptInvitation",
        Method::POST,
        format!("/api/v1/invitations/{secret}/accept"),
        &walker,
        None,
        ["COLLABORATOR_JOINED"]
    );
    let member = app.hub.user_by_email("walker@example.com").await.unwrap().id;
    step!(
        "updateCollaborator",
        Method::PATCH,
        format!("/api/v1/collaborators/{member}"),
        &token,
        Some(json!({"role": "editor"})),
        ["COLLABORATOR_ROLE_CHANGED"]
    );
    step!(
        "putProjectOverride",
        Method::PUT,
        format!("{p}/collaborators/{member}"),
        &token,
        Some(json!({"role": "viewer"})),
        ["COLLABORATOR_ROLE_CHANGED"]
    );
    step!(
        "deleteProjectOverride",
        Method::DELETE,
        format!("{p}/collaborators/{member}"),
        &token,
        None,
        ["COLLABORATOR_ROLE_CHANGED"]
    );
    step!(
        "removeCollaborator",
        Method::DELETE,
        format!("/api/v1/collaborators/{member}"),
        &token,
        None,
        ["COLLABORATOR_REMOVED"]
    );
    step!(
        "putAuditSettings",
        Method::PUT,
        "/api/v1/audit/settings",
        &token,
        Some(json!({"retention_days": 90})),
        ["AUDIT_SETTINGS_UPDATED"]
    );
    let monitors = app.get(&format!("{p}/monitors"), &token).await.json();
    let monitor = monitors["data"][0]["id"].as_str().unwrap().to_owned();
    step!(
        "updateMonitor",
        Method::PATCH,
        format!("{p}/monitors/{monitor}"),
        &token,
        Some(json!({"monitored": true})),
        ["MONITOR_ENABLED"]
    );
    step!(
        "putMonitorCredential",
        Method::PUT,
        format!("{p}/monitors/credentials/token"),
        &token,
        Some(json!({"value": "secret-value"})),
        ["MONITOR_CREDENTIAL_SET"]
    );
    step!(
        "deleteMonitorCredential",
        Method::DELETE,
        format!("{p}/monitors/credentials/token"),
        &token,
        None,
        ["MONITOR_CREDENTIAL_CLEARED"]
    );
    let inbox = step!(
        "createInbox",
        Method::POST,
        "/api/v1/inboxes",
        &token,
        Some(json!({"name": "Walk inbox", "project": "walk", "verification": {"scheme": "stripe", "secret": "s"}})),
        ["INBOX_CREATED"]
    )
    .json();
    let inbox = format!("/api/v1/inboxes/{}", inbox["id"].as_str().unwrap());
    step!("updateInbox", Method::PATCH, inbox.clone(), &token, Some(json!({"name": "Renamed"})), ["INBOX_UPDATED"]);
    // Captures, replays and test events are traffic, not settings: no rows.
    step!("sendInboxTest", Method::POST, format!("{inbox}/send-test"), &token, Some(json!({})), []);
    let capture =
        app.get(&format!("{inbox}/captures"), &token).await.json()["data"][0]["id"].as_str().unwrap().to_owned();
    step!(
        "replayInboxCapture",
        Method::POST,
        format!("{inbox}/captures/{capture}/replay"),
        &token,
        Some(json!({"url": "http://127.0.0.1:9/unreachable"})),
        []
    );
    step!(
        "createOverrideFromCapture",
        Method::POST,
        format!("{inbox}/captures/{capture}/override"),
        &token,
        Some(json!({})),
        ["MOCK_OVERRIDE_CREATED"]
    );
    step!(
        "saveCaptureAsRequest",
        Method::POST,
        format!("{inbox}/captures/{capture}/request"),
        &token,
        None,
        ["REQUEST_CREATED"]
    );
    step!(
        "deleteInboxCapture",
        Method::DELETE,
        format!("{inbox}/captures/{capture}"),
        &token,
        None,
        ["INBOX_CAPTURE_DELETED"]
    );
    step!("clearInboxCaptures", Method::DELETE, format!("{inbox}/captures"), &token, None, ["INBOX_CLEARED"]);
    let env = step!(
        "createEnvironment",
        Method::POST,
        format!("{p}/environments"),
        &token,
        Some(json!({"name": "Staging", "variables": {"base": "http://127.0.0.1:9"}, "secrets": {"token": "s3cr3t-value"}})),
        ["ENVIRONMENT_CREATED"]
    )
    .json();
    let env = format!("{p}/environments/{}", env["id"].as_str().unwrap());
    step!(
        "updateEnvironment",
        Method::PATCH,
        env.clone(),
        &token,
        Some(json!({"is_default": true})),
        ["ENVIRONMENT_UPDATED"]
    );
    let request = step!(
        "createSavedRequest",
        Method::POST,
        format!("{p}/requests"),
        &token,
        Some(json!({"name": "Pets", "method": "GET", "url": "{{base}}/pets"})),
        ["REQUEST_CREATED"]
    )
    .json();
    let request = format!("{p}/requests/{}", request["id"].as_str().unwrap());
    step!(
        "updateSavedRequest",
        Method::PATCH,
        request.clone(),
        &token,
        Some(json!({"folder": "Pets"})),
        ["REQUEST_UPDATED"]
    );
    // A run is traffic, like a replay: kept among the request's runs, no row.
    step!("runSavedRequest", Method::POST, format!("{request}/run"), &token, Some(json!({})), []);
    step!(
        "importSavedRequests",
        Method::POST,
        format!("{p}/requests/import"),
        &token,
        Some(
            json!({"info": {"name": "Walk", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}, "item": []})
        ),
        ["REQUESTS_IMPORTED"]
    );
    step!("deleteSavedRequest", Method::DELETE, request, &token, None, ["REQUEST_DELETED"]);
    step!("deleteEnvironment", Method::DELETE, env, &token, None, ["ENVIRONMENT_DELETED"]);
    step!("deleteInbox", Method::DELETE, inbox.clone(), &token, None, ["INBOX_DELETED"]);
    // The test event is sent and logged among the deliveries, never a row;
    // without a webhook it is refused.
    let test = app.post_json("/api/v1/audit/webhook/test", &token, &json!({})).await;
    assert_eq!(test.status, StatusCode::BAD_REQUEST);
    covered.push("testAuditWebhook");
    step!("deleteProject", Method::DELETE, p, &token, None, ["PROJECT_DELETED"]);
    assert_eq!(seen, app.hub.audit_log("walk@example.com").await.unwrap().len(), "nothing else was written");

    let doc: Value = serde_json::from_str(hub_http::OPENAPI_DOCUMENT).unwrap();
    let mut mutating: Vec<String> = Vec::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for (method, op) in item.as_object().unwrap() {
            if ["post", "put", "patch", "delete"].contains(&method.as_str()) {
                mutating.push(op["operationId"].as_str().unwrap().to_owned());
            }
        }
    }
    mutating.sort();
    let mut covered: Vec<String> = covered.into_iter().map(str::to_owned).collect();
    covered.sort();
    assert_eq!(covered, mutating, "every mutating operation of the document is walked");
}
