use axum::http::StatusCode;
use hub_core::Plan;
use test_kit::{TestApp, on_both_stores};

use crate::{GRAPHQL_SDL, openapi_yaml};

on_both_stores!(sdk_of_a_version_is_gated_limited_and_deterministic);

async fn sdk_of_a_version_is_gated_limited_and_deterministic(app: TestApp) {
    let (_, token) = app.user("sdk@example.com", Plan::Free).await;
    let slug = app.project(&token, "Pet Shop").await;
    app.push(&slug, &token, "label=v1", openapi_yaml("1")).await;
    let without_get_pet = openapi_yaml("2").replace("  /pets/{id}:\n    get:\n      operationId: getPet\n      parameters:\n        - name: id\n          in: path\n          required: true\n          schema: {type: string}\n      responses:\n        '200':\n          description: ok\n", "");
    app.push(&slug, &token, "label=v2", without_get_pet).await;
    app.push(&slug, &token, "label=gql", GRAPHQL_SDL).await;
    let path = format!("/api/projects/{slug}/sdk?language=typescript&version=v1");

    let gated = app.get(&path, &token).await;
    assert_eq!((gated.status, gated.error_code()), (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED".to_owned()));
    assert_eq!(gated.json()["error"]["details"]["feature"], "sdks");
    app.hub.set_plan("sdk@example.com", Plan::Pro).await.unwrap();

    let ts = app.get(&path, &token).await;
    assert_eq!(ts.status, StatusCode::OK, "{}", String::from_utf8_lossy(&ts.body));
    assert!(ts.headers["content-type"].to_str().unwrap().starts_with("application/typescript"));
    assert_eq!(ts.headers["content-disposition"].to_str().unwrap(), format!("attachment; filename=\"{slug}.ts\""));
    let source = String::from_utf8(ts.body.to_vec()).unwrap();
    assert!(source.contains("export class Client extends BaseClient"), "{source}");
    assert!(source.contains("async listPets(options: RequestOptions = {}): Promise<void>"), "{source}");
    assert!(source.contains("async getPet(id: string, options: RequestOptions = {}): Promise<void>"), "{source}");
    let again = app.get(&path, &token).await;
    assert_eq!(again.body, ts.body, "the same version gives byte-identical output");

    let py = app.get(&format!("/api/projects/{slug}/sdk?language=python&version=v2"), &token).await;
    assert_eq!(py.status, StatusCode::OK);
    assert!(py.headers["content-type"].to_str().unwrap().starts_with("text/x-python"));
    let module = slug.replace('-', "_");
    assert_eq!(py.headers["content-disposition"].to_str().unwrap(), format!("attachment; filename=\"{module}.py\""));
    let source = String::from_utf8(py.body.to_vec()).unwrap();
    assert!(source.contains("class Client(_BaseClient):") && source.contains("    def list_pets("), "{source}");
    assert!(!source.contains("def get_pet("), "v2 has no getPet");

    // Without a version, the default version (the first push) is used.
    let default = app.get(&format!("/api/projects/{slug}/sdk?language=ts"), &token).await;
    assert_eq!(default.body, ts.body);

    let graphql = app.get(&format!("/api/projects/{slug}/sdk?language=typescript&version=gql"), &token).await;
    assert_eq!((graphql.status, graphql.error_code()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR".to_owned()));
    assert!(graphql.json()["error"]["message"].as_str().unwrap().contains("GraphQL"));
    let unknown = app.get(&format!("/api/projects/{slug}/sdk?language=python&version=nope"), &token).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    let missing = app.get(&format!("/api/projects/{slug}/sdk"), &token).await;
    assert_eq!(missing.json()["error"]["details"]["field"], "language");
    let bad = app.get(&format!("/api/projects/{slug}/sdk?language=cobol"), &token).await;
    assert_eq!(
        (bad.status, bad.json()["error"]["details"]["field"].as_str()),
        (StatusCode::BAD_REQUEST, Some("language"))
    );
    let anonymous = app.get(&path, "svc_pat_nope").await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);

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
    assert_eq!(limited.json()["error"]["details"]["limit_per_minute"], 60);
    let retry: u64 = limited.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));
    let diff = app.get(&format!("/api/projects/{slug}/diff?from=v1&to=v2"), &token).await;
    assert_eq!(diff.status, StatusCode::OK, "diffs have their own budget");
    app.clock.advance_millis(60_000);
    assert_eq!(app.get(&path, &token).await.status, StatusCode::OK, "a new minute, a new budget");
}
