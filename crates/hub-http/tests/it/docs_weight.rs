//! Server time and page weight of the docs for the largest descriptions of
//! the shared corpus (skipped when ../shared is absent). Targets: under 300
//! KB of HTML on the heaviest page; the time is printed (debug builds are
//! slow; the release benchmark in docs/docs-pages.md holds the 50 ms target).

use std::time::Instant;

use axum::http::{Method, StatusCode};
use hub_core::Plan;
use serde_json::json;
use test_kit::TestApp;

const MAX_PAGE_BYTES: usize = 300 * 1024;

async fn measure(app: &TestApp, path: &str) -> usize {
    let started = Instant::now();
    let response = app.request(Method::GET, path, None, None).await;
    let first = started.elapsed();
    let started = Instant::now();
    let again = app.request(Method::GET, path, None, None).await;
    let cached = started.elapsed();
    assert_eq!(response.status, StatusCode::OK, "{path}");
    assert_eq!(again.body, response.body);
    eprintln!("{path}: {} bytes, first {first:?}, cached {cached:?}", response.body.len());
    assert!(response.body.len() < MAX_PAGE_BYTES, "{path} weighs {} bytes", response.body.len());
    response.body.len()
}

#[tokio::test]
async fn large_descriptions_stay_light() {
    let Some(dir) = crate::shared_specs() else { return };
    let app = TestApp::sqlite().await;
    let (_, token) = app.user("big@example.com", Plan::Business).await;
    for file in ["openapi3/twilio_api_v2010.json", "openapi3/openai.openapi.yaml", "graphql/github.schema.graphql"] {
        let spec = std::fs::read(dir.join(file)).unwrap();
        let slug = app.project(&token, file.split('/').next_back().unwrap().split('.').next().unwrap()).await;
        app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
        let pushed = app.push(&slug, &token, "label=v1", spec).await;
        assert_eq!(pushed.status, StatusCode::CREATED, "{file}");
        measure(&app, &format!("/docs/{slug}")).await;
        let site = docs_render::Site::new(spec::parse(&std::fs::read(dir.join(file)).unwrap()).unwrap());
        if let Some(key) = site
            .operation_keys()
            .iter()
            .max_by_key(|k| site.operation(k).map_or(0, |op| op.parameters.len() + op.responses.len() * 4))
        {
            measure(&app, &format!("/docs/{slug}/v1/op/{}", docs_render::encode(key))).await;
        }
        if let Some(name) = site.spec().schemas.keys().next() {
            measure(&app, &format!("/docs/{slug}/v1/schemas/{}", docs_render::encode(name))).await;
        }
        if let Some(model) = &site.spec().graphql
            && let Some(name) = model.types.keys().find(|n| n.as_str() == "Repository")
        {
            measure(&app, &format!("/docs/{slug}/v1/types/{name}")).await;
        }
    }
}
