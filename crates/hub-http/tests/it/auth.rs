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
        (Some("Bearer svc_pat_tooshort"), "malformed"),
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
