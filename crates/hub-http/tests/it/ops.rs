use axum::http::{Method, StatusCode};
use hub_core::Plan;
use test_kit::TestApp;

#[tokio::test]
async fn health_readiness_metrics_and_request_ids() {
    let app = TestApp::sqlite().await;
    let health = app.request(Method::GET, "/healthz", None, None).await;
    assert_eq!((health.status, health.json()["status"].clone()), (StatusCode::OK, "ok".into()));
    let ready = app.request(Method::GET, "/readyz", None, None).await;
    assert_eq!((ready.status, ready.json()["status"].clone()), (StatusCode::OK, "ready".into()));
    let (_, token) = app.user("ops@example.com", Plan::Free).await;
    let listed = app.get("/api/v1/projects", &token).await;
    let id = listed.headers.get("x-request-id").expect("request id").to_str().unwrap();
    assert!(uuid::Uuid::parse_str(id).is_ok());
    // The hosted mock counts its own requests (it is mounted outside the
    // per-route instrumentation).
    let mock = app.request(Method::GET, "/mock/no-such-project/pets", None, None).await;
    assert_eq!(mock.status, StatusCode::NOT_FOUND);
    let metrics = app.request(Method::GET, "/metrics", None, None).await;
    let text = String::from_utf8_lossy(&metrics.body);
    assert!(text.contains("http_requests_total"), "{text}");
    assert!(text.contains("mock_requests_total"), "{text}");
    assert!(text.contains("route=\"/api/v1/projects\""), "{text}");
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_in_the_envelope() {
    let app = TestApp::sqlite().await;
    let (_, token) = app.user("ops@example.com", Plan::Free).await;
    let missing = app.get("/api/v1/nothing-here", &token).await;
    assert_eq!((missing.status, missing.error_code()), (StatusCode::NOT_FOUND, "NOT_FOUND".to_owned()));
    let method = app.request(Method::PUT, "/api/v1/projects", Some(&token), None).await;
    assert_eq!((method.status, method.error_code()), (StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED".to_owned()));
}
