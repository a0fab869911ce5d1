use axum::http::StatusCode;
use hub_core::Plan;
use test_kit::{TestApp, on_both_stores};

use crate::{GRAPHQL_SDL, openapi_yaml};

on_both_stores!(diff_between_versions_is_gated_limited_and_rendered);

async fn diff_between_versions_is_gated_limited_and_rendered(app: TestApp) {
    let (_, token) = app.user("differ@example.com", Plan::Free).await;
    let slug = app.project(&token, "Diffs").await;
    app.push(&slug, &token, "label=v1", openapi_yaml("1")).await;
    let without_get_pet = openapi_yaml("2").replace("  /pets/{id}:\n    get:\n      operationId: getPet\n      parameters:\n        - name: id\n          in: path\n          required: true\n          schema: {type: string}\n      responses:\n        '200':\n          description: ok\n", "");
    assert!(!without_get_pet.contains("getPet"));
    app.push(&slug, &token, "label=v2", without_get_pet).await;
    app.push(&slug, &token, "label=gql", GRAPHQL_SDL).await;
    let path = format!("/api/projects/{slug}/diff?from=v1&to=v2");

    let gated = app.get(&path, &token).await;
    assert_eq!((gated.status, gated.error_code()), (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED".to_owned()));
    app.hub.set_plan("differ@example.com", Plan::Pro).await.unwrap();

    let report = app.get(&path, &token).await;
    assert_eq!(report.status, StatusCode::OK, "{}", String::from_utf8_lossy(&report.body));
    let body = report.json();
    assert_eq!(
        (body["from"].as_str(), body["to"].as_str(), body["bump"].as_str()),
        (Some("v1"), Some("v2"), Some("major"))
    );
    assert_eq!(body["summary"]["breaking"], 1);
    let removed = &body["changes"][0];
    assert_eq!((removed["rule"].as_str(), removed["kind"].as_str()), (Some("endpoint-removed"), Some("breaking")));
    assert_eq!(removed["operation"], "GET /pets/{id}");

    let reverse = app.get(&format!("/api/projects/{slug}/diff?from=v2&to=v1"), &token).await.json();
    assert_eq!(reverse["bump"], "minor");

    let markdown = app.get(&format!("{path}&format=markdown"), &token).await;
    assert!(markdown.headers["content-type"].to_str().unwrap().starts_with("text/markdown"));
    let text = String::from_utf8_lossy(&markdown.body);
    assert!(text.contains("GET /pets/{id}") && text.to_lowercase().contains("major"), "{text}");

    let mixed = app.get(&format!("/api/projects/{slug}/diff?from=v1&to=gql"), &token).await;
    assert_eq!((mixed.status, mixed.error_code()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR".to_owned()));
    let unknown = app.get(&format!("/api/projects/{slug}/diff?from=v1&to=nope"), &token).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let missing = app.get(&format!("/api/projects/{slug}/diff?from=v1"), &token).await;
    assert_eq!(missing.json()["error"]["details"]["field"], "to");

    // 60 requests per minute per project: the requests above counted too.
    let mut limited = None;
    for _ in 0..60 {
        let response = app.get(&path, &token).await;
        if response.status == StatusCode::TOO_MANY_REQUESTS {
            limited = Some(response);
            break;
        }
    }
    let limited = limited.expect("the 61st request in a minute is refused");
    assert_eq!(limited.error_code(), "RATE_LIMITED");
    let retry: u64 = limited.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    app.clock.advance_millis(60_000);
    assert_eq!(app.get(&path, &token).await.status, StatusCode::OK, "a new minute, a new budget");
}
