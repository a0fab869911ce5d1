//! Real-world and broken specs from `../shared/specs`, pushed through the API.

use std::time::Instant;

use axum::http::StatusCode;
use hub_core::Plan;
use test_kit::{TestApp, on_both_stores};

use crate::shared_specs;

on_both_stores!(broken_inputs_get_a_4xx_that_names_the_problem);

#[tokio::test]
async fn every_real_spec_is_accepted_with_its_format() {
    let Some(root) = shared_specs() else { return };
    let app = TestApp::sqlite().await;
    let (_, token) = app.user("corpus@example.com", Plan::Business).await;
    let slug = app.project(&token, "Corpus").await;
    let mut pushed = 0;
    for (dir, expected) in
        [("openapi3", Some("openapi3")), ("swagger2", Some("swagger2")), ("graphql", Some("graphql")), ("pairs", None)]
    {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let bytes = std::fs::read(&file).unwrap();
            let started = Instant::now();
            let label = format!("{dir}-{name}");
            let response = app.push(&slug, &token, &format!("label={label}"), bytes).await;
            assert_eq!(
                response.status,
                StatusCode::CREATED,
                "{dir}/{name}: {}",
                String::from_utf8_lossy(&response.body)
            );
            let version = response.json();
            let expected = expected.unwrap_or_else(|| {
                let text = std::fs::read_to_string(&file).unwrap();
                if name.ends_with(".graphql") {
                    "graphql"
                } else if text.contains("swagger") && !text.contains("openapi:") && !text.contains("\"openapi\"") {
                    "swagger2"
                } else {
                    "openapi3"
                }
            });
            assert_eq!(version["spec_format"], expected, "{dir}/{name}");
            assert!(
                version["operation_count"].as_i64().unwrap() > 0 || name.contains("webhook"),
                "{dir}/{name} has operations"
            );
            eprintln!("{dir}/{name}: {} in {:?}", version["spec_format"], started.elapsed());
            pushed += 1;
        }
    }
    assert!(pushed >= 30, "pushed {pushed} documents");
}

async fn broken_inputs_get_a_4xx_that_names_the_problem(app: TestApp) {
    let Some(root) = shared_specs() else { return };
    let (_, token) = app.user("bad@example.com", Plan::Business).await;
    let slug = app.project(&token, "Bad").await;
    // What each message must mention (lowercase), so the caller can act on it.
    let expectations = [
        ("alias-bomb.yaml", &["alias"][..]),
        ("binary.bin", &["utf-8", "text", "binary"][..]),
        ("circular-ref.yaml", &["cycl", "circular", "never reaches"][..]),
        ("deep-nesting.json", &["deep", "depth", "nest"][..]),
        ("duplicate-keys.yaml", &["duplicate"][..]),
        ("empty.json", &["empty"][..]),
        ("empty.yaml", &["empty"][..]),
        ("github-schema-15.26.1.duplicate-fields.graphql", &["repositorydeploykeysetting", "defined", "duplicate"][..]),
        ("invalid-utf8.yaml", &["utf-8"][..]),
        ("not-a-spec.json", &["openapi", "swagger", "not"][..]),
        ("not-a-spec.yaml", &["openapi", "swagger", "not"][..]),
        ("truncated.graphql", &["line", "expected", "eof", "end"][..]),
        ("truncated.json", &["eof", "end", "line"][..]),
        ("unresolvable-ref.yaml", &["doesnotexist", "reference", "$ref"][..]),
    ];
    for (file, words) in expectations {
        let bytes = std::fs::read(root.join("bad").join(file)).unwrap();
        let started = Instant::now();
        let response = app.push(&slug, &token, "label=bad", bytes).await;
        let elapsed = started.elapsed();
        assert!(response.status.is_client_error(), "{file}: {}", response.status);
        assert_eq!(response.error_code(), "VALIDATION_ERROR", "{file}");
        let message = response.json()["error"]["message"].as_str().unwrap().to_lowercase();
        assert!(words.iter().any(|w| message.contains(w)), "{file}: message {message:?} names none of {words:?}");
        eprintln!("bad/{file}: {} {message:?} in {elapsed:?}", response.status);
    }
    let utf16 = std::fs::read(root.join("bad/utf16le-bom.yaml")).unwrap();
    let response = app.push(&slug, &token, "label=utf16", utf16).await;
    assert!(response.status.is_success() || response.status.is_client_error(), "utf16: {}", response.status);
    if response.status.is_client_error() {
        assert!(response.json()["error"]["message"].as_str().unwrap().to_lowercase().contains("utf-8"));
    }
    let listed = app.get(&format!("/api/v1/projects/{slug}/versions"), &token).await.json();
    assert!(listed["pagination"]["total"].as_u64().unwrap() <= 1, "no broken input was stored");
}
