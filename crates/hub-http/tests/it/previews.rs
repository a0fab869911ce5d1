use axum::http::StatusCode;
use hub_core::Plan;
use serde_json::json;
use test_kit::{CRON_SECRET, START, TestApp, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(previews_need_pro, preview_lifecycle_with_expiry_and_pruning, preview_cap_and_label_conflicts);

async fn previews_need_pro(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Free).await;
    let slug = app.project(&token, "Free").await;
    let response = app.push(&slug, &token, "label=pr-1&preview=true&pr=1", openapi_yaml("1")).await;
    assert_eq!(response.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(response.error_code(), "PLAN_REQUIRED");
    assert_eq!(response.json()["error"]["details"]["feature"], "preview_pushes");
}

async fn preview_lifecycle_with_expiry_and_pruning(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Previews").await;
    app.push(&slug, &token, "label=main", openapi_yaml("1")).await;
    let created = app
        .push(&slug, &token, "label=pr-42&preview=true&pr=42&commit=abc123def&branch=feature%2Fx", openapi_yaml("1.1"))
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let preview = created.json();
    assert_eq!(preview["is_preview"], true);
    assert_eq!(preview["is_default"], false);
    assert_eq!(
        (preview["pr_number"].clone(), preview["commit_sha"].clone(), preview["branch"].clone()),
        (json!(42), json!("abc123def"), json!("feature/x"))
    );
    assert_eq!(preview["expires_at"], START.plus_days(14).to_rfc3339());
    let list = format!("/api/v1/projects/{slug}/versions");
    assert_eq!(app.get(&list, &token).await.json()["pagination"]["total"], 1, "hidden without include_previews");
    assert_eq!(app.get(&format!("{list}?include_previews=true"), &token).await.json()["pagination"]["total"], 2);
    // A re-push of the same label updates the same row and rolls the expiry.
    app.clock.advance_days(10);
    let again = app.push(&slug, &token, "label=pr-42&preview=true&commit=fff999", openapi_yaml("1.2")).await;
    assert_eq!(again.status, StatusCode::OK);
    let again = again.json();
    assert_eq!(again["id"], preview["id"]);
    assert_eq!(again["commit_sha"], "fff999");
    assert_eq!(again["pr_number"], 42, "fields not sent are kept");
    assert_eq!(again["expires_at"], START.plus_days(24).to_rfc3339());
    // Previews cannot be promoted.
    let promote = app.patch_json(&format!("{list}/pr-42"), &token, &json!({ "is_default": true })).await;
    assert_eq!(promote.status, StatusCode::CONFLICT);
    let default_preview = app.push(&slug, &token, "label=pr-43&preview=true&makeDefault=true", openapi_yaml("1")).await;
    assert_eq!(default_preview.status, StatusCode::BAD_REQUEST);
    // 14 days after the last push the preview is gone for readers at once...
    app.clock.advance_days(14);
    assert_eq!(app.get(&format!("{list}/pr-42"), &token).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&format!("{list}?include_previews=true"), &token).await.json()["pagination"]["total"], 1);
    // ...and the pruning job removes the row.
    let unauthorised = app.request(axum::http::Method::POST, "/api/cron/previews-prune", Some("wrong"), None).await;
    assert_eq!(unauthorised.status, StatusCode::UNAUTHORIZED);
    let pruned = app.request(axum::http::Method::POST, "/api/cron/previews-prune", Some(CRON_SECRET), None).await;
    assert_eq!(pruned.status, StatusCode::OK);
    assert_eq!(pruned.json()["removed"], 1);
    assert_eq!(app.hub.prune_expired_previews().await.unwrap(), 0);
}

async fn preview_cap_and_label_conflicts(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Business).await;
    let slug = app.project(&token, "Cap").await;
    app.push(&slug, &token, "label=main", openapi_yaml("1")).await;
    let cap = hub_core::plans::fixed::MAX_PREVIEWS_PER_PROJECT;
    for n in 0..cap {
        let response =
            app.push(&slug, &token, &format!("label=pr-{n}&preview=true&pr={}", n + 1), openapi_yaml("1")).await;
        assert_eq!(response.status, StatusCode::CREATED, "preview {n}");
    }
    let over = app.push(&slug, &token, "label=pr-over&preview=true", openapi_yaml("1")).await;
    assert_eq!(over.status, StatusCode::CONFLICT);
    assert_eq!(over.error_code(), "PREVIEW_LIMIT_REACHED");
    // Re-pushing an existing preview is not a new one.
    assert_eq!(app.push(&slug, &token, "label=pr-0&preview=true", openapi_yaml("2")).await.status, StatusCode::OK);
    // Labels are shared between previews and regular versions.
    let clash = app.push(&slug, &token, "label=main&preview=true", openapi_yaml("1")).await;
    assert_eq!(clash.status, StatusCode::CONFLICT);
    let clash = app.push(&slug, &token, "label=pr-0", openapi_yaml("1")).await;
    assert_eq!(clash.status, StatusCode::CONFLICT);
    // Once they expire, the cap frees up.
    app.clock.advance_days(15);
    assert_eq!(
        app.push(&slug, &token, "label=pr-over&preview=true", openapi_yaml("1")).await.status,
        StatusCode::CREATED
    );
}
