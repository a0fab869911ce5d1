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
