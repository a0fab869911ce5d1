use axum::body::Body;
use axum::http::{Method, StatusCode};
use courses_core::Plan;
use serde_json::json;

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(
    missing_wrong_and_revoked_keys_are_unauthorized,
    read_only_keys_may_only_read,
    other_workspaces_objects_are_not_found,
    keys_are_stored_only_as_hashes,
    rate_limit_is_120_per_key_per_rolling_minute,
    server_faults_are_opaque_internal_errors,
    oversized_bodies_are_refused
);

async fn missing_wrong_and_revoked_keys_are_unauthorized(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let cases = [
        None,
        Some("Basic dXNlcjpwYXNz".to_owned()),
        Some("Bearer sk_live_short".to_owned()),
        Some(format!("Bearer sk_live_{}", "A".repeat(43))),
    ];
    for header in cases {
        let mut request = axum::http::Request::builder().uri("/v1/courses");
        if let Some(h) = &header {
            request = request.header("authorization", h);
        }
        let response =
            tower::ServiceExt::oneshot(app.router.clone(), request.body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{header:?}");
        let body = http_body_util::BodyExt::collect(response.into_body()).await.unwrap().to_bytes();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["error"], "unauthorized");
        assert!(json["message"].is_string());
    }
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::OK);
    let keys = app.get("/v1/api-keys", &key).await.json();
    let id = keys["data"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(app.delete(&format!("/v1/api-keys/{id}"), &key).await.status, StatusCode::NO_CONTENT);
    let response = app.get("/v1/courses", &key).await;
    assert_eq!(response.status, StatusCode::UNAUTHORIZED);
    assert_eq!(response.error(), "unauthorized");
    assert!(response.json()["message"].as_str().unwrap().contains("revoked"));
}

async fn read_only_keys_may_only_read(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &json!({ "title": "T" })).await;
    let id = course["id"].as_str().unwrap();
    let (_, read_only) = app.courses.create_key(&ws, "ro", true).await.unwrap();
    let ro = read_only.expose();
    assert_eq!(app.get("/v1/courses", ro).await.status, StatusCode::OK);
    assert_eq!(app.get(&format!("/v1/courses/{id}"), ro).await.status, StatusCode::OK);
    for method in [Method::HEAD, Method::OPTIONS] {
        let response = app.send(method.clone(), "/v1/courses", Some(ro), None).await;
        assert_ne!(response.status, StatusCode::FORBIDDEN, "{method}");
    }
    // OPTIONS is answered (204 and the route's methods), behind the same key gate.
    let options = app.send(Method::OPTIONS, &format!("/v1/courses/{id}"), Some(ro), None).await;
    assert_eq!(options.status, StatusCode::NO_CONTENT);
    assert_eq!(options.headers["allow"], "GET, HEAD, PATCH, DELETE, OPTIONS");
    let anonymous = app.send(Method::OPTIONS, "/v1/courses", None, None).await;
    assert_eq!((anonymous.status, anonymous.error()), (StatusCode::UNAUTHORIZED, "unauthorized".to_owned()));
    let public = app.send(Method::OPTIONS, &format!("/v1/embed/{id}"), None, None).await;
    assert_eq!(
        (public.status, public.headers["allow"].to_str().unwrap()),
        (StatusCode::NO_CONTENT, "GET, HEAD, OPTIONS")
    );
    let unsupported = app.send(Method::PUT, "/v1/courses", Some(&key), None).await;
    assert_eq!(unsupported.error(), "method_not_allowed");
    let writes = [
        (Method::POST, "/v1/courses".to_owned()),
        (Method::PATCH, format!("/v1/courses/{id}")),
        (Method::DELETE, format!("/v1/courses/{id}")),
        (Method::POST, "/v1/identities/bulk".to_owned()),
        (Method::DELETE, "/v1/identities/bulk".to_owned()),
    ];
    for (method, path) in writes {
        let response = app.send(method.clone(), &path, Some(ro), Some(Body::from("{}"))).await;
        assert_eq!(response.status, StatusCode::FORBIDDEN, "{method} {path}");
        assert_eq!(response.error(), "insufficient_scope");
    }
    // A key with write access writes.
    assert_eq!(app.patch(&format!("/v1/courses/{id}"), &key, &json!({ "title": "U" })).await.status, StatusCode::OK);
}

async fn other_workspaces_objects_are_not_found(app: TestApp) {
    let (_, mine) = app.workspace(Plan::Scale).await;
    let (other_ws, theirs) = app.workspace(Plan::Scale).await;
    let course = app
        .course(
            &theirs,
            &json!({ "title": "Theirs", "screens": [{ "id": "s", "blocks": [{ "id": "b", "type": "divider" }] }] }),
        )
        .await;
    let id = course["id"].as_str().unwrap();
    let identity = app.post("/v1/identities", &theirs, &json!({ "externalId": "u1" })).await.json();
    let theme = app.post("/v1/themes", &theirs, &json!({ "name": "Dark" })).await.json();
    let missing = app.get("/v1/courses/crs_doesnotexist", &mine).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    let paths = [
        format!("/v1/courses/{id}"),
        format!("/v1/courses/{id}/screens"),
        format!("/v1/courses/{id}/screens/s"),
        format!("/v1/courses/{id}/screens/s/blocks/b"),
        format!("/v1/identities/{}", identity["id"].as_str().unwrap()),
        format!("/v1/themes/{}", theme["id"].as_str().unwrap()),
        format!("/v1/workspaces/{other_ws}"),
    ];
    for path in &paths {
        let response = app.get(path, &mine).await;
        assert_eq!(response.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(response.error(), "not_found");
    }
    let response = app.patch(&format!("/v1/courses/{id}"), &mine, &json!({ "title": "mine now" })).await;
    assert_eq!(response.status, StatusCode::NOT_FOUND);
    assert_eq!(missing.json()["message"], response.json()["message"], "ids of others are not confirmed");
    assert_eq!(app.delete(&format!("/v1/courses/{id}"), &mine).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&format!("/v1/courses/{id}"), &theirs).await.json()["title"], "Theirs");
}

async fn keys_are_stored_only_as_hashes(app: TestApp) {
    let (_, key) = app.workspace(Plan::Sandbox).await;
    let created = app.post("/v1/api-keys", &key, &json!({ "name": "ci", "readOnly": true })).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let new_key = created.json()["key"].as_str().unwrap().to_owned();
    assert!(new_key.starts_with("sk_live_"));
    let listed = app.get("/v1/api-keys", &key).await.text();
    assert!(!listed.contains(&new_key) && !listed.contains(&key), "keys are never returned after creation");
    let stored: Vec<(String, String)> = platform::with_db!(app.courses.db(), |pool| {
        sqlx::query_as("SELECT key_hash, display FROM api_keys").fetch_all(pool).await.unwrap()
    });
    assert_eq!(stored.len(), 2);
    for (hash, display) in stored {
        assert_eq!(hash.len(), 64);
        assert!(!new_key.contains(&hash) && !key.contains(&hash));
        assert!(!display.contains(&new_key[8..40]));
    }
    assert_eq!(app.get("/v1/courses", &new_key).await.status, StatusCode::OK);
}

async fn rate_limit_is_120_per_key_per_rolling_minute(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Build).await;
    for i in 0..120 {
        let response = app.get("/v1/usage", &key).await;
        assert_eq!(response.status, StatusCode::OK, "request {i}");
        if i == 59 {
            app.clock.advance_millis(30_000);
        }
    }
    let limited = app.get("/v1/usage", &key).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.error(), "rate_limited");
    assert_eq!(limited.headers["retry-after"], "30", "the oldest request leaves the window in 30 s");
    // Another key of the same workspace has its own window.
    let (_, other) = app.courses.create_key(&ws, "other", false).await.unwrap();
    assert_eq!(app.get("/v1/usage", other.expose()).await.status, StatusCode::OK);
    // The window rolls: 30 s later the first 60 requests have left it.
    app.clock.advance_millis(30_000);
    for _ in 0..60 {
        assert_eq!(app.get("/v1/usage", &key).await.status, StatusCode::OK);
    }
    assert_eq!(app.get("/v1/usage", &key).await.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(app.courses.prune_rate_hits().await.unwrap(), 0, "nothing older than the window remains");
}

async fn server_faults_are_opaque_internal_errors(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    app.courses.db().close().await;
    let response = app.get("/v1/courses", &key).await;
    assert_eq!(response.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(response.error(), "internal_error");
    let message = response.json()["message"].as_str().unwrap().to_owned();
    assert!(!message.contains("pool") && !message.contains("sql"), "{message}");
}

async fn oversized_bodies_are_refused(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let big = format!("{{\"title\":\"{}\"}}", "x".repeat(courses_http::extract::JSON_BODY_LIMIT));
    let response = app.send(Method::POST, "/v1/courses", Some(&key), Some(Body::from(big))).await;
    assert_eq!(response.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(response.error(), "payload_too_large");
    let response = app.send(Method::POST, "/v1/courses", Some(&key), Some(Body::from("{not json"))).await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.error(), "invalid_request");
}
