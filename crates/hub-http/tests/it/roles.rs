use axum::http::StatusCode;
use hub_core::{Plan, Role};
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(role_layers_on_business, free_and_pro_collaborators_act_as_editor, listing_agrees_with_the_gate);

/// The outcome of every v1 action for one caller, as status codes.
async fn probe(app: &TestApp, token: &str, slug: &str) -> [StatusCode; 6] {
    let path = format!("/api/v1/projects/{slug}");
    [
        app.get(&path, token).await.status,
        app.patch_json(&path, token, &json!({ "name": "Renamed" })).await.status,
        app.push(slug, token, "label=probe", openapi_yaml("9")).await.status,
        app.patch_json(&format!("{path}/versions/probe"), token, &json!({ "is_active": true })).await.status,
        app.delete(&format!("{path}/versions/probe"), token).await.status,
        app.delete(&path, token).await.status,
    ]
}

async fn role_layers_on_business(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, member) = app.user("member@example.com", Plan::Free).await;
    let (_, stranger) = app.user("stranger@example.com", Plan::Business).await;
    let slug = app.project(&owner, "Shared").await;
    app.push(&slug, &owner, "label=v1", openapi_yaml("1")).await;
    use StatusCode as S;

    // Not a collaborator: everything is 404, exactly like a missing project.
    assert_eq!(probe(&app, &stranger, &slug).await, [S::NOT_FOUND; 6]);
    let member_view = app.get(&format!("/api/v1/projects/{slug}"), &member).await;
    assert_eq!(member_view.error_code(), "NOT_FOUND");

    // Account-wide viewer: reads only; mutations answer 403 FORBIDDEN.
    app.hub.add_collaborator("owner@example.com", "member@example.com", Role::Viewer).await.unwrap();
    let outcome = probe(&app, &member, &slug).await;
    assert_eq!(outcome, [S::OK, S::FORBIDDEN, S::FORBIDDEN, S::FORBIDDEN, S::FORBIDDEN, S::FORBIDDEN]);
    let denied = app.patch_json(&format!("/api/v1/projects/{slug}"), &member, &json!({ "name": "x" })).await;
    assert_eq!(denied.error_code(), "FORBIDDEN");
    assert_eq!(denied.json()["error"]["details"], json!({ "role": "viewer", "action": "update_project" }));

    // Per-project override to editor: everything but deleting the project.
    app.hub.set_project_role(&slug, "member@example.com", Role::Editor).await.unwrap();
    let outcome = probe(&app, &member, &slug).await;
    assert_eq!(outcome, [S::OK, S::OK, S::CREATED, S::OK, S::NO_CONTENT, S::FORBIDDEN]);

    // Override none hides the project entirely.
    app.hub.set_project_role(&slug, "member@example.com", Role::None).await.unwrap();
    assert_eq!(probe(&app, &member, &slug).await, [S::NOT_FOUND; 6]);

    // The owner can do everything, including deleting the project.
    let outcome = probe(&app, &owner, &slug).await;
    assert_eq!(outcome, [S::OK, S::OK, S::CREATED, S::OK, S::NO_CONTENT, S::NO_CONTENT]);
}

async fn free_and_pro_collaborators_act_as_editor(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, member) = app.user("member@example.com", Plan::Free).await;
    let slug = app.project(&owner, "Downgrade").await;
    app.push(&slug, &owner, "label=v1", openapi_yaml("1")).await;
    app.hub.add_collaborator("owner@example.com", "member@example.com", Role::Viewer).await.unwrap();
    app.hub.set_project_role(&slug, "member@example.com", Role::None).await.unwrap();
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}"), &member).await.status, StatusCode::NOT_FOUND);
    // On Pro the layers are not applied: the collaborator acts as editor.
    app.hub.set_plan("owner@example.com", Plan::Pro).await.unwrap();
    let outcome = probe(&app, &member, &slug).await;
    use StatusCode as S;
    assert_eq!(outcome, [S::OK, S::OK, S::CREATED, S::OK, S::NO_CONTENT, S::FORBIDDEN]);
    // Stored overrides survive the downgrade and apply again after an upgrade.
    app.hub.set_plan("owner@example.com", Plan::Business).await.unwrap();
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}"), &member).await.status, StatusCode::NOT_FOUND);
}

async fn listing_agrees_with_the_gate(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, member) = app.user("member@example.com", Plan::Free).await;
    let visible = app.project(&owner, "Visible").await;
    let hidden = app.project(&owner, "Hidden").await;
    app.project(&member, "Mine").await;
    app.hub.add_collaborator("owner@example.com", "member@example.com", Role::Viewer).await.unwrap();
    app.hub.set_project_role(&hidden, "member@example.com", Role::None).await.unwrap();
    let listed = app.get("/api/v1/projects", &member).await.json();
    let mut slugs: Vec<String> =
        listed["data"].as_array().unwrap().iter().map(|p| p["slug"].as_str().unwrap().to_owned()).collect();
    slugs.sort();
    assert_eq!(slugs, vec!["mine".to_owned(), visible.clone()]);
    assert_eq!(listed["pagination"]["total"], 2);
    for slug in [&visible, &hidden, &"mine".to_owned()] {
        let status = app.get(&format!("/api/v1/projects/{slug}"), &member).await.status;
        assert_eq!(status == StatusCode::OK, slugs.contains(slug), "{slug}: list and gate disagree");
    }
}
