use axum::http::{Method, StatusCode};
use hub_core::{Plan, Source};
use test_kit::{TestApp, on_both_stores};

on_both_stores!(
    missing_malformed_unknown_tokens_are_refused,
    revoked_token_gets_401_on_next_request,
    expired_token_is_refused,
    last_used_at_is_written_before_the_response
);

async fn missing_malformed_unknown_tokens_are_refused(app: TestApp) {
    let cases: [(Option<&str>, &str); 5] = [
        (None, "missing"),
        (Some("Basic dXNlcjpwYXNz"), "malformed"),
        (Some("Bearer svc_abc"), "malformed"),
        // A personal access token copied wrong is a wrong token.
        (Some("Bearer svc_pat_tooshort"), "unknown"),
        (Some("Bearer svc_pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), "unknown"),
    ];
    for (header, reason) in cases {
        let mut request = axum::http::Request::builder().uri("/api/v1/projects");
        if let Some(h) = header {
            request = request.header("authorization", h);
        }
        let response = tower::ServiceExt::oneshot(app.router.clone(), request.body(axum::body::Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{header:?}");
        assert!(response.headers().contains_key("www-authenticate"));
        let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["error"]["code"], "INVALID_TOKEN", "{header:?}");
        assert_eq!(json["error"]["details"]["reason"], reason, "{header:?}");
    }
}

async fn revoked_token_gets_401_on_next_request(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Free).await;
    assert_eq!(app.get("/api/v1/projects", &token).await.status, StatusCode::OK);
    let tokens = app.hub.list_tokens("ada@example.com").await.unwrap();
    assert_eq!(tokens.len(), 1);
    app.hub.revoke_token("ada@example.com", &tokens[0].id, Source::System).await.unwrap();
    assert!(app.hub.list_tokens("ada@example.com").await.unwrap().is_empty(), "revocation deletes the row");
    let response = app.get("/api/v1/projects", &token).await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert_eq!(response.error_code(), "INVALID_TOKEN");
    assert_eq!(response.json()["error"]["details"]["reason"], "unknown");
}

async fn expired_token_is_refused(app: TestApp) {
    app.hub.create_user("bo@example.com", Plan::Pro, None).await.unwrap();
    let (info, token) = app.hub.create_token("bo@example.com", "ci", Some(7), Source::System).await.unwrap();
    assert_eq!(info.expires_at, Some(test_kit::START.plus_days(7)));
    assert_eq!(app.get("/api/v1/projects", token.expose()).await.status, StatusCode::OK);
    app.clock.advance_days(7);
    let response = app.get("/api/v1/projects", token.expose()).await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert_eq!(response.json()["error"]["details"]["reason"], "expired");
    let zero = app.hub.create_token("bo@example.com", "bad", Some(0), Source::System).await;
    assert!(zero.is_err());
}

async fn last_used_at_is_written_before_the_response(app: TestApp) {
    let (_, token) = app.user("cy@example.com", Plan::Free).await;
    assert_eq!(app.hub.list_tokens("cy@example.com").await.unwrap()[0].last_used_at, None);
    app.clock.advance_millis(5_000);
    let response = app.request(Method::GET, "/api/v1/projects", Some(&token), None).await;
    assert_eq!(response.status, StatusCode::OK);
    let used = app.hub.list_tokens("cy@example.com").await.unwrap()[0].last_used_at;
    assert_eq!(used, Some(test_kit::START.plus_millis(5_000)));
    // Within the one-minute resolution the stored instant stays; after it, it moves.
    app.clock.advance_millis(30_000);
    app.get("/api/v1/projects", &token).await;
    assert_eq!(app.hub.list_tokens("cy@example.com").await.unwrap()[0].last_used_at, used);
    app.clock.advance_millis(60_000);
    app.get("/api/v1/projects", &token).await;
    assert_eq!(
        app.hub.list_tokens("cy@example.com").await.unwrap()[0].last_used_at,
        Some(test_kit::START.plus_millis(95_000))
    );
}

/// The read cache of project reads never outlives a change made by another
/// process: revocation, a role override or a rename through a second handle
/// on the same SQLite file is seen by the very next request.
#[tokio::test]
async fn cached_project_reads_see_changes_made_by_another_process() {
    let app = TestApp::sqlite().await;
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, member) = app.user("member@example.com", Plan::Free).await;
    let slug = app.project(&owner, "Cached").await;
    app.hub.add_collaborator("owner@example.com", "member@example.com", hub_core::Role::Viewer).await.unwrap();
    let path = format!("/api/v1/projects/{slug}");
    for _ in 0..3 {
        assert_eq!(app.get(&path, &owner).await.json()["name"], "Cached");
        assert_eq!(app.get(&path, &member).await.status, StatusCode::OK);
    }
    let other_process = {
        let db = platform::Db::open_sqlite(&app.sqlite_path().unwrap()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        hub_core::Hub::new(db, &dir.path().join("blobs"), std::sync::Arc::new(kernel::SystemClock))
    };
    other_process.set_project_role(&slug, "member@example.com", hub_core::Role::None).await.unwrap();
    assert_eq!(app.get(&path, &member).await.status, StatusCode::NOT_FOUND, "the override applies at once");
    let owner_principal = other_process.authenticate(Some(&format!("Bearer {owner}"))).await.unwrap();
    other_process
        .update_project(
            &owner_principal,
            &slug,
            hub_core::projects::ProjectPatch { name: Some("Renamed".into()), ..Default::default() },
            Source::Api,
        )
        .await
        .unwrap();
    assert_eq!(app.get(&path, &owner).await.json()["name"], "Renamed");
    let tokens = other_process.list_tokens("owner@example.com").await.unwrap();
    other_process.revoke_token("owner@example.com", &tokens[0].id, Source::System).await.unwrap();
    let revoked = app.get(&path, &owner).await;
    assert_eq!((revoked.status, revoked.error_code()), (StatusCode::UNAUTHORIZED, "INVALID_TOKEN".to_owned()));
}
