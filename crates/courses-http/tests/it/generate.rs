use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::json;

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(generation_needs_build_and_respects_limits, generation_allowance_is_rate_limited);

const PROMPT: &str = "Onboarding for support agents. Agents answer tickets within four hours. \
    Escalate billing disputes to the finance queue. Tag every ticket with the product area.";

async fn generation_needs_build_and_respects_limits(app: TestApp) {
    let (_, sandbox) = app.workspace(Plan::Sandbox).await;
    let refused = app.post("/v1/generate", &sandbox, &json!({ "prompt": PROMPT })).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.error(), "plan_required");
    assert!(refused.json()["message"].as_str().unwrap().contains("Build"));

    let (_, key) = app.workspace(Plan::Build).await;
    for (body, path) in [
        (json!({ "prompt": "x".repeat(2001) }), "prompt"),
        (json!({ "prompt": PROMPT, "screensTarget": 21 }), "screensTarget"),
        (json!({ "screensTarget": 3 }), "prompt"),
    ] {
        let response = app.post("/v1/generate", &key, &body).await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST);
        assert_eq!(response.issue_paths(), vec![path]);
    }
    let at_limit = app.post("/v1/generate", &key, &json!({ "prompt": "y ".repeat(1000), "screensTarget": 20 })).await;
    assert_eq!(at_limit.status, StatusCode::CREATED, "2,000 characters and 20 screens are allowed");
    assert_eq!(at_limit.json()["screens"].as_array().unwrap().len(), 20);

    let generated = app.post("/v1/generate", &key, &json!({ "prompt": PROMPT, "screensTarget": 5 })).await;
    assert_eq!(generated.status, StatusCode::CREATED, "{}", generated.text());
    let course = generated.json();
    assert_eq!(course["status"], "draft");
    assert_eq!(course["sourceKind"], "generated");
    assert_eq!(course["generation"]["provider"], "offline-template");
    assert_eq!(course["screens"].as_array().unwrap().len(), 5);
    assert!(course.to_string().contains("multiple_choice"), "scored questions");
    let id = course["id"].as_str().unwrap();
    assert_eq!(app.get(&format!("/v1/courses/{id}"), &key).await.json(), course, "stored like any course");
    let usage = app.get("/v1/usage", &key).await.json();
    assert_eq!(usage["generations"], json!({ "used": 2, "allowance": 100 }), "invalid requests are not counted");
}

async fn generation_allowance_is_rate_limited(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Build).await;
    app.set_usage(&ws, "generations", 99).await;
    assert_eq!(app.post("/v1/generate", &key, &json!({ "prompt": PROMPT })).await.status, StatusCode::CREATED);
    let limited = app.post("/v1/generate", &key, &json!({ "prompt": PROMPT })).await;
    assert_eq!(limited.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(limited.error(), "rate_limited");
    let retry: u64 = limited.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert_eq!(retry, 9 * 86_400, "until 2026-12-01T00:00:00Z");
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::OK, "only generation is limited");
    let (partner_ws, partner) = app.workspace(Plan::Partner).await;
    app.set_usage(&partner_ws, "generations", 1_000_000).await;
    assert_eq!(
        app.post("/v1/generate", &partner, &json!({ "prompt": PROMPT })).await.status,
        StatusCode::CREATED,
        "unlimited"
    );
}
