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
    // The seed's table gives Sandbox 5 generations, but the plan gate answers
    // first, even to an invalid request, and nothing is counted.
    let invalid = app.post("/v1/generate", &sandbox, &json!({ "prompt": "x".repeat(2001) })).await;
    assert_eq!((invalid.status, invalid.error()), (StatusCode::FORBIDDEN, "plan_required".to_owned()));
    let usage = app.get("/v1/usage", &sandbox).await.json();
    assert_eq!(usage["generations"], json!({ "used": 0, "allowance": 5 }));

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

on_both_stores!(generation_uses_the_configured_model, an_unusable_model_answer_falls_back_to_the_built_in_generator);

fn chat_answer(content: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "fake-1",
        "choices": [{ "index": 0, "finish_reason": "stop", "message": { "role": "assistant", "content": content } }],
    })
    .to_string()
}

fn model(url: &str) -> courses_core::generate::LlmConfig {
    courses_core::generate::LlmConfig {
        url: format!("{url}/v1"),
        model: "fake-1".to_owned(),
        api_key: Some("llm-key-123".to_owned()),
        timeout_secs: 5,
    }
}

async fn generation_uses_the_configured_model(app: TestApp) {
    let draft = json!({ "title": "Ladder safety", "screens": [
        { "title": "Before you climb", "blocks": [
            { "type": "text", "text": "Inspect the feet and rungs of the ladder." },
            { "type": "list", "items": ["Three points of contact", "Face the ladder"] },
        ] },
        { "title": "Check", "blocks": [
            { "type": "multiple_choice", "question": "How many points of contact?", "options": ["Two", "Three"], "correctIndex": 1 },
            { "type": "true_false", "statement": "Stand on the top rung.", "answer": false },
        ] },
    ] });
    let answer = chat_answer(&draft.to_string());
    let endpoint = crate::support::Receiver::start(move |_, _| (200, answer.clone())).await;
    let app = app.with_courses(|c| c.with_llm(Some(model(&endpoint.url))));
    let (_, key) = app.workspace(Plan::Build).await;
    let prompt = "Ladder safety for maintenance staff: inspection and climbing.";
    let generated = app.post("/v1/generate", &key, &json!({ "prompt": prompt, "screensTarget": 2 })).await;
    assert_eq!(generated.status, StatusCode::CREATED, "{}", generated.text());
    let course = generated.json();
    assert_eq!(course["title"], "Ladder safety");
    assert_eq!(course["sourceKind"], "generated");
    assert_eq!(course["generation"]["provider"], "llm");
    assert_eq!(course["generation"]["model"], "fake-1");
    assert_eq!(course["passingScore"], 70);
    let screens = course["screens"].as_array().unwrap();
    assert_eq!(screens.len(), 2);
    assert_eq!(screens[1]["blocks"][0]["question"], "How many points of contact?");
    assert!(screens[1]["blocks"][0]["id"].as_str().unwrap().starts_with("blk_"), "ids are the service's");
    let id = course["id"].as_str().unwrap();
    assert_eq!(app.get(&format!("/v1/courses/{id}"), &key).await.json(), course, "the API serves it");

    let [request] = endpoint.requests().try_into().unwrap();
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.headers["authorization"], "Bearer llm-key-123");
    let body: serde_json::Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(body["model"], "fake-1");
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["schema"], courses_core::generate::course_schema());
    assert!(body["messages"][1]["content"].as_str().unwrap().contains(prompt));
    let usage = app.get("/v1/usage", &key).await.json();
    assert_eq!(usage["generations"]["used"], 1);
}

async fn an_unusable_model_answer_falls_back_to_the_built_in_generator(app: TestApp) {
    let no_quiz = json!({ "title": "T", "screens": [{ "title": "S", "blocks": [{ "type": "text", "text": "x" }] }] });
    let endpoint = crate::support::Receiver::start(move |n, _| match n {
        0 => (200, chat_answer("Sure! Here is your course.")),
        1 => (200, chat_answer(&no_quiz.to_string())),
        _ => (503, "{\"error\":\"overloaded\"}".to_owned()),
    })
    .await;
    let app = app.with_courses(|c| c.with_llm(Some(model(&endpoint.url))));
    let (_, key) = app.workspace(Plan::Build).await;
    for expected in ["the course is not JSON", "no scored question", "answered 503"] {
        let generated = app.post("/v1/generate", &key, &json!({ "prompt": PROMPT, "screensTarget": 4 })).await;
        assert_eq!(generated.status, StatusCode::CREATED, "{}", generated.text());
        let course = generated.json();
        assert_eq!(course["generation"]["provider"], "offline-template");
        assert_eq!(course["generation"]["fallbackFrom"]["model"], "fake-1");
        let error = course["generation"]["fallbackFrom"]["error"].as_str().unwrap();
        assert!(error.contains(expected), "{error}");
        assert_eq!(course["screens"].as_array().unwrap().len(), 4);
        assert_eq!(course["title"], "Onboarding for support agents", "built from the prompt");
    }
    assert_eq!(endpoint.requests().len(), 3);
}
