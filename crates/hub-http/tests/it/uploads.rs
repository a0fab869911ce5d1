use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use hub_core::{Plan, Role};
use test_kit::{TestApp, TestResponse, on_both_stores};

use crate::openapi_yaml;

on_both_stores!(upload_tokens_push_to_their_project_only, rotation_is_gated_audited_and_revokes_the_old_token);

async fn upload(app: &TestApp, slug: &str, token: &str, query: &str) -> TestResponse {
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("/api/projects/{slug}/upload?{query}"))
        .header("authorization", format!("Bearer {token}"))
        .body(Body::from(openapi_yaml("7")))
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.router.clone(), request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
    TestResponse { status, headers, body }
}

async fn upload_tokens_push_to_their_project_only(app: TestApp) {
    let (_, pat) = app.user("ci@example.com", Plan::Pro).await;
    let slug = app.project(&pat, "Uploads").await;
    let other = app.project(&pat, "Other").await;
    let rotated = app.request(Method::POST, &format!("/api/projects/{slug}/upload-token"), Some(&pat), None).await;
    assert_eq!(rotated.status, StatusCode::CREATED);
    let token = rotated.json()["upload_token"].as_str().unwrap().to_owned();
    assert!(token.starts_with("svc_") && !token.starts_with("svc_pat_"), "{token}");

    let pushed = upload(&app, &slug, &token, "label=ci-1&makeDefault=true").await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    assert_eq!(pushed.json()["version_label"], "ci-1");
    assert_eq!(pushed.json()["is_default"], true);
    assert_eq!(upload(&app, &slug, &token, "label=ci-1").await.status, StatusCode::OK, "re-push replaces");

    let preview = upload(&app, &slug, &token, "label=pr&preview=true").await;
    assert_eq!(preview.status, StatusCode::BAD_REQUEST);
    assert!(preview.json()["error"]["message"].as_str().unwrap().contains("personal access token"));

    let elsewhere = upload(&app, &other, &token, "label=x").await;
    assert_eq!((elsewhere.status, elsewhere.error_code()), (StatusCode::UNAUTHORIZED, "INVALID_TOKEN".to_owned()));
    let pat_on_upload = upload(&app, &slug, &pat, "label=x").await;
    assert_eq!(pat_on_upload.status, StatusCode::UNAUTHORIZED);
    assert_eq!(pat_on_upload.json()["error"]["details"]["reason"], "malformed");
    let upload_on_v1 = app.get("/api/v1/projects", &token).await;
    assert_eq!(upload_on_v1.status, StatusCode::UNAUTHORIZED, "upload tokens are not personal tokens");
    let missing_project = upload(&app, "no-such-project", &token, "label=x").await;
    assert_eq!(missing_project.status, StatusCode::UNAUTHORIZED);

    for response in [app.get(&format!("/api/v1/projects/{slug}"), &pat).await, app.get("/api/v1/projects", &pat).await]
    {
        let text = String::from_utf8_lossy(&response.body).to_string();
        assert!(!text.contains(&token) && !text.contains("upload_token"), "{text}");
    }
}

async fn rotation_is_gated_audited_and_revokes_the_old_token(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, viewer) = app.user("viewer@example.com", Plan::Free).await;
    let slug = app.project(&owner, "Rotate").await;
    app.hub.add_collaborator("owner@example.com", "viewer@example.com", Role::Viewer).await.unwrap();
    let path = format!("/api/projects/{slug}/upload-token");
    let denied = app.request(Method::POST, &path, Some(&viewer), None).await;
    assert_eq!((denied.status, denied.error_code()), (StatusCode::FORBIDDEN, "FORBIDDEN".to_owned()));
    let first =
        app.request(Method::POST, &path, Some(&owner), None).await.json()["upload_token"].as_str().unwrap().to_owned();
    let second =
        app.request(Method::POST, &path, Some(&owner), None).await.json()["upload_token"].as_str().unwrap().to_owned();
    assert_ne!(first, second);
    assert_eq!(upload(&app, &slug, &first, "label=a").await.status, StatusCode::UNAUTHORIZED, "rotation revokes");
    assert_eq!(upload(&app, &slug, &second, "label=a").await.status, StatusCode::CREATED);
    let actions: Vec<String> =
        app.hub.audit_log("owner@example.com").await.unwrap().into_iter().map(|e| e.action).collect();
    assert_eq!(actions.iter().filter(|a| *a == "UPLOAD_TOKEN_ROTATED").count(), 2);
    assert!(actions.contains(&"SPEC_UPLOADED".to_owned()));
}
