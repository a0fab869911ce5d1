//! The docs assistant: AI search and the chat drawer, offline and with a
//! model (a fake OpenAI-compatible server written here), their quotas on
//! the shared ledger moved through time with the manual clock, on both
//! stores.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use axum::response::IntoResponse as _;
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::{TestApp, TestResponse, on_both_stores};

on_both_stores!(
    ai_search_counts_five_a_month_on_free,
    offline_chat_streams_keeps_eight_messages_and_limits_each_visitor,
    model_answers_stream_with_citations_within_the_days_tokens,
);

const PETS: &str = r##"{"openapi":"3.0.3","info":{"title":"Pets","version":"1"},
  "servers":[{"url":"https://pets.example/v1"}],
  "paths":{
    "/pets":{"get":{"operationId":"listPets","summary":"List pets","responses":{"200":{"description":"ok"}}},
             "post":{"operationId":"createPet","summary":"Create a pet",
               "requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}},
               "responses":{"201":{"description":"created"}}}},
    "/pets/{id}":{"get":{"operationId":"getPet","summary":"Get a pet by its id",
               "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
               "responses":{"200":{"description":"the pet","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}},
               "delete":{"operationId":"deletePet","summary":"Delete a pet",
               "parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
               "responses":{"204":{"description":"deleted"}}}}},
  "components":{"schemas":{"Pet":{"type":"object","required":["name"],"properties":{"id":{"type":"string"},"name":{"type":"string"}}}}}}"##;

/// A public project `slug` of a new owner on `plan`, with version `1`.
async fn docs(app: &TestApp, plan: Plan, slug: &str) -> String {
    let (user, token) = app.user(&format!("{slug}@example.com"), plan).await;
    let body = json!({ "name": slug, "slug": slug, "is_public": true });
    let created = app.post_json("/api/v1/projects", &token, &body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    let pushed = app.push(slug, &token, "label=1", PETS).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    user.id
}

async fn post(router: &axum::Router, path: &str, content_type: &str, body: String) -> TestResponse {
    let request = Request::builder()
        .method(Method::POST)
        .uri(path)
        .header(header::CONTENT_TYPE, content_type)
        .body(Body::from(body))
        .unwrap();
    TestApp::send(router, request).await
}

async fn ask(router: &axum::Router, slug: &str, q: &str) -> TestResponse {
    post(router, &format!("/docs/{slug}/1/_ask"), "application/json", json!({ "q": q }).to_string()).await
}

async fn chat(router: &axum::Router, slug: &str, message: &str, conversation: Option<&str>) -> TestResponse {
    let body = json!({ "message": message, "conversation": conversation });
    post(router, &format!("/docs/{slug}/1/_chat"), "application/json", body.to_string()).await
}

/// The events of a server-sent event stream: (event, data as JSON).
fn events(response: &TestResponse) -> Vec<(String, Value)> {
    assert_eq!(response.status, StatusCode::OK, "{}", String::from_utf8_lossy(&response.body));
    let content_type = response.headers.get(header::CONTENT_TYPE).unwrap().to_str().unwrap();
    assert!(content_type.starts_with("text/event-stream"), "{content_type}");
    String::from_utf8_lossy(&response.body)
        .split("\n\n")
        .filter_map(|block| {
            let mut name = String::from("message");
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            (!data.is_empty()).then(|| (name, serde_json::from_str(&data).unwrap()))
        })
        .collect()
}

/// The streamed answer's text, and the `meta` and `done` events.
fn answer_of(events: &[(String, Value)]) -> (Value, String, Value) {
    assert_eq!(events.first().map(|e| e.0.as_str()), Some("meta"), "{events:?}");
    let text: String =
        events.iter().filter(|e| e.0 == "delta").map(|e| e.1["text"].as_str().unwrap().to_owned()).collect();
    let done = events.iter().find(|e| e.0 == "done").map(|e| e.1.clone()).unwrap_or(Value::Null);
    (events[0].1.clone(), text, done)
}

fn retry_after(response: &TestResponse) -> u64 {
    response.headers.get(header::RETRY_AFTER).unwrap().to_str().unwrap().parse().unwrap()
}

async fn ai_search_counts_five_a_month_on_free(app: TestApp) {
    let owner = docs(&app, Plan::Free, "free-pets").await;
    for _ in 0..5 {
        let answered = ask(&app.router, "free-pets", "how do I get a pet by id").await;
        assert_eq!(answered.status, StatusCode::OK, "{}", String::from_utf8_lossy(&answered.body));
        let body = answered.json();
        assert_eq!(body["engine"], "offline");
        assert!(body["answer"].as_str().unwrap().starts_with("Use `GET /pets/{id}`"), "{body}");
        assert_eq!(body["citations"][0]["url"], "/docs/free-pets/1/op/getPet", "{body}");
    }
    let usage = app.hub.ai_usage(&owner, Plan::Free).await.unwrap();
    assert_eq!((usage.ai_searches_this_month, usage.ai_searches_per_month), (5, Some(5)));
    // The sixth of the month is refused until the month ends (the tests
    // start at 2026-11-22T00:00Z: 9 days left).
    let refused = ask(&app.router, "free-pets", "delete a pet").await;
    assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(refused.error_code(), "QUOTA_EXCEEDED");
    assert_eq!(refused.json()["error"]["details"]["quota"], "ai_searches_per_month");
    assert_eq!(retry_after(&refused), 9 * 86_400);
    // A refusal is not counted.
    assert_eq!(app.hub.ai_usage(&owner, Plan::Free).await.unwrap().ai_searches_this_month, 5);
    app.clock.advance_millis(9 * 86_400 * 1000);
    let december = ask(&app.router, "free-pets", "delete a pet").await;
    assert_eq!(december.status, StatusCode::OK, "{}", String::from_utf8_lossy(&december.body));
    assert!(december.json()["answer"].as_str().unwrap().starts_with("Use `DELETE /pets/{id}`"));

    // Paid plans have no monthly count.
    let pro = docs(&app, Plan::Pro, "pro-pets").await;
    for _ in 0..7 {
        assert_eq!(ask(&app.router, "pro-pets", "list pets").await.status, StatusCode::OK);
    }
    assert_eq!(app.hub.ai_usage(&pro, Plan::Pro).await.unwrap().ai_searches_this_month, 0);

    // Bad requests are told what is wrong.
    let blank = ask(&app.router, "pro-pets", "  ").await;
    assert_eq!((blank.status, blank.error_code().as_str()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"));
    let form = post(&app.router, "/docs/pro-pets/1/_ask", "application/x-www-form-urlencoded", "q=pets".into()).await;
    assert_eq!((form.status, form.error_code().as_str()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"));
    let huge =
        post(&app.router, "/docs/pro-pets/1/_ask", "application/json", json!({ "q": "x".repeat(20_000) }).to_string())
            .await;
    assert_eq!((huge.status, huge.error_code().as_str()), (StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE"));
    let not_json = post(&app.router, "/docs/pro-pets/1/_ask", "application/json", "{".into()).await;
    assert_eq!(not_json.status, StatusCode::BAD_REQUEST);
    let missing = ask(&app.router, "no-such-project", "pets").await;
    assert_eq!((missing.status, missing.error_code().as_str()), (StatusCode::NOT_FOUND, "NOT_FOUND"));
    // The chat drawer is for plans with chat tokens.
    let free_chat = chat(&app.router, "free-pets", "list pets", None).await;
    assert_eq!((free_chat.status, free_chat.error_code().as_str()), (StatusCode::PAYMENT_REQUIRED, "PLAN_REQUIRED"));
    assert_eq!(free_chat.json()["error"]["details"]["feature"], "docs_chat");
}

async fn offline_chat_streams_keeps_eight_messages_and_limits_each_visitor(app: TestApp) {
    let owner = docs(&app, Plan::Pro, "chat-pets").await;
    let first = events(&chat(&app.router, "chat-pets", "how do I delete a pet?", None).await);
    let (meta, text, done) = answer_of(&first);
    assert_eq!(meta["engine"], "offline");
    let conversation = meta["conversation"].as_str().unwrap().to_owned();
    assert_eq!(conversation.len(), 32);
    assert_eq!(meta["citations"][0]["url"], "/docs/chat-pets/1/op/deletePet", "{meta}");
    assert!(text.starts_with("Use `DELETE /pets/{id}`: Delete a pet [1]."), "{text}");
    assert!(text.contains("Required parameters: `id` (path)."), "{text}");
    assert!(first.iter().filter(|e| e.0 == "delta").count() > 1, "the answer streams in parts");
    let mut charged = done["tokens"].as_u64().unwrap();
    assert!(charged > 0);

    // Four more exchanges: the conversation keeps the last 8 messages.
    let questions = ["list pets", "create a pet", "get a pet", "list pets again"];
    for question in questions {
        let streamed = events(&chat(&app.router, "chat-pets", question, Some(&conversation)).await);
        let (meta, _, done) = answer_of(&streamed);
        assert_eq!(meta["conversation"], conversation.as_str());
        charged += done["tokens"].as_u64().unwrap();
    }
    let project = app.hub.docs_site("chat-pets", hub_core::docs::DocsVisitor::default()).await.unwrap().unwrap();
    let kept = app.hub.conversation(&project.project_id, &conversation).await.unwrap();
    assert_eq!(kept.len(), 8);
    assert_eq!((kept[0].role.as_str(), kept[0].content.as_str()), ("user", "list pets"));
    assert_eq!(kept[7].role, "assistant");
    assert_eq!(app.hub.ai_usage(&owner, Plan::Pro).await.unwrap().chat_tokens_today, charged);
    // Another project cannot continue it: a new conversation starts.
    docs(&app, Plan::Pro, "other-pets").await;
    let elsewhere = events(&chat(&app.router, "other-pets", "list pets", Some(&conversation)).await);
    assert_ne!(answer_of(&elsewhere).0["conversation"], conversation.as_str());

    // 30 questions an hour per visitor (5 asked above on this project).
    for _ in 0..25 {
        assert_eq!(ask(&app.router, "chat-pets", "list pets").await.status, StatusCode::OK);
    }
    let limited = chat(&app.router, "chat-pets", "list pets", Some(&conversation)).await;
    assert_eq!((limited.status, limited.error_code().as_str()), (StatusCode::TOO_MANY_REQUESTS, "QUOTA_EXCEEDED"));
    assert_eq!(limited.json()["error"]["details"]["quota"], "questions_per_visitor_hour");
    assert_eq!(retry_after(&limited), 3600, "the tests start on the hour");
    app.clock.advance_millis(3600 * 1000);
    assert_eq!(chat(&app.router, "chat-pets", "list pets", Some(&conversation)).await.status, StatusCode::OK);
    // A day later the conversation is forgotten and starts over.
    app.clock.advance_millis(86_400 * 1000);
    let later = events(&chat(&app.router, "chat-pets", "list pets", Some(&conversation)).await);
    assert_ne!(answer_of(&later).0["conversation"], conversation.as_str());
    // The hourly job forgets visitor windows that started over a day ago
    // (the first hour's); those of the last day and today's token count stay.
    let before = rate_windows(&app).await;
    assert_eq!(before, 4, "a window per project and hour asked in");
    let today = app.hub.ai_usage(&owner, Plan::Pro).await.unwrap().chat_tokens_today;
    assert!(app.hub.prune_counters().await.unwrap() >= 1);
    assert_eq!(rate_windows(&app).await, 2);
    assert_eq!(app.hub.ai_usage(&owner, Plan::Pro).await.unwrap().chat_tokens_today, today);
}

async fn rate_windows(app: &TestApp) -> i64 {
    platform::with_db!(app.hub.db(), |pool| {
        sqlx::query_as::<_, (i64,)>("SELECT COUNT(*) FROM rate_windows").fetch_one(pool).await.unwrap().0
    })
}

/// What the fake model server received, and how it answers.
#[derive(Clone, Default)]
struct FakeModel {
    requests: Arc<Mutex<Vec<Value>>>,
}

/// An OpenAI-compatible chat completions server: streams a fixed answer in
/// three chunks and reports 100 prompt and 20 completion tokens; the
/// `/broken` endpoint answers 500.
async fn fake_model() -> (String, FakeModel) {
    let fake = FakeModel::default();
    let state = fake.clone();
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
                let state = state.clone();
                async move {
                    state.requests.lock().unwrap().push(body);
                    let chunk = |text: &str| json!({ "choices": [{ "index": 0, "delta": { "content": text } }] });
                    let mut out = String::new();
                    let role = json!({ "choices": [{ "index": 0, "delta": { "role": "assistant" } }] });
                    for event in [role, chunk("Use "), chunk("`GET /pets/{id}` "), chunk("[1].")] {
                        out.push_str(&format!("data: {event}\n\n"));
                    }
                    let usage = json!({ "choices": [], "usage": { "prompt_tokens": 100, "completion_tokens": 20 } });
                    out.push_str(&format!("data: {usage}\n\ndata: [DONE]\n\n"));
                    ([(header::CONTENT_TYPE, "text/event-stream")], out).into_response()
                }
            }),
        )
        .route(
            "/broken/v1/chat/completions",
            axum::routing::post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "overloaded").into_response() }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), fake)
}

fn model(url: String) -> Option<platform::llm::LlmConfig> {
    Some(platform::llm::LlmConfig { url, model: "fake".into(), api_key: Some("sk-test".into()), timeout_secs: 10 })
}

async fn model_answers_stream_with_citations_within_the_days_tokens(app: TestApp) {
    let (url, fake) = fake_model().await;
    let router = app.router_for(app.hub.clone().with_llm(model(format!("{url}/v1"))));
    let owner = docs(&app, Plan::Pro, "model-pets").await;

    let first = events(&chat(&router, "model-pets", "how do I get a pet by its id?", None).await);
    let (meta, text, done) = answer_of(&first);
    assert_eq!(meta["engine"], "model");
    assert_eq!(text, "Use `GET /pets/{id}` [1].");
    assert_eq!(meta["citations"][0]["url"], "/docs/model-pets/1/op/getPet", "{meta}");
    assert_eq!(done["tokens"], 120, "the model's own count, within what was reserved");
    let conversation = meta["conversation"].as_str().unwrap().to_owned();
    {
        let requests = fake.requests.lock().unwrap();
        let sent = &requests[0];
        assert_eq!((sent["stream"].clone(), sent["model"].clone()), (json!(true), json!("fake")));
        let messages = sent["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 2);
        assert!(messages[0]["content"].as_str().unwrap().contains("[1] GET /pets/{id}: Get a pet by its id"));
        assert_eq!(messages[1], json!({ "role": "user", "content": "how do I get a pet by its id?" }));
    }
    // The follow-up carries the conversation so far.
    let second = events(&chat(&router, "model-pets", "and delete it?", Some(&conversation)).await);
    assert_eq!(answer_of(&second).2["tokens"], 120);
    {
        let requests = fake.requests.lock().unwrap();
        let roles: Vec<&str> =
            requests[1]["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert_eq!(requests[1]["messages"][2]["content"], "Use `GET /pets/{id}` [1].");
    }
    assert_eq!(app.hub.ai_usage(&owner, Plan::Pro).await.unwrap().chat_tokens_today, 240);
    // Pro has 25,000 tokens a day. With 50 left, the third answer reserves
    // those 50 and is charged no more (the cap is never passed, whatever the
    // model reports); the fourth question is refused until midnight UTC.
    app.hub.store().add_usage(&owner, "chat_tokens", test_kit::START.as_millis(), 25_000 - 240 - 50).await.unwrap();
    let third = events(&chat(&router, "model-pets", "list pets", Some(&conversation)).await);
    assert_eq!(answer_of(&third).2["tokens"], 50);
    {
        let requests = fake.requests.lock().unwrap();
        assert_eq!(
            requests[2]["max_tokens"], 1,
            "the model may write only what the reservation leaves: {}",
            requests[2]
        );
    }
    assert_eq!(app.hub.ai_usage(&owner, Plan::Pro).await.unwrap().chat_tokens_today, 25_000);
    let refused = chat(&router, "model-pets", "list pets", Some(&conversation)).await;
    assert_eq!((refused.status, refused.error_code().as_str()), (StatusCode::TOO_MANY_REQUESTS, "QUOTA_EXCEEDED"));
    assert_eq!(refused.json()["error"]["details"]["quota"], "chat_tokens_per_day");
    assert_eq!(refused.json()["error"]["details"]["limit"], 25_000);
    assert_eq!(retry_after(&refused), 86_400, "the tests start at midnight");
    // With the day's tokens spent, AI search answers offline.
    let offline = ask(&router, "model-pets", "list pets").await.json();
    assert_eq!(offline["engine"], "offline");
    app.clock.advance_millis(86_400 * 1000);
    let next_day = ask(&router, "model-pets", "get a pet by id").await.json();
    assert_eq!(
        (next_day["engine"].clone(), next_day["answer"].clone()),
        (json!("model"), json!("Use `GET /pets/{id}` [1]."))
    );
    assert_eq!(next_day["citations"][0]["title"], "GET /pets/{id}");
    assert_eq!(app.hub.ai_usage(&owner, Plan::Pro).await.unwrap().chat_tokens_today, 120);

    // A model that fails: the chat says so in the stream, AI search falls
    // back to the offline answer.
    let broken = app.router_for(app.hub.clone().with_llm(model(format!("{url}/broken/v1"))));
    let failed = events(&chat(&broken, "model-pets", "list pets", None).await);
    let error = failed.iter().find(|e| e.0 == "error").unwrap();
    assert!(error.1["message"].as_str().unwrap().contains("unavailable"), "{failed:?}");
    assert_eq!(ask(&broken, "model-pets", "list pets").await.json()["engine"], "offline");
}
