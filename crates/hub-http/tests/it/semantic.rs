//! The search re-ranked by a sentence model. The operator's embeddings
//! model (`SVC_LLM_EMBEDDING_MODEL`) is a fake OpenAI-compatible
//! embeddings server written here, whose vectors count words of a few
//! meanings, so that a question and an operation sharing no word can
//! still meet; the built-in model is the real all-MiniLM-L6-v2. Checked
//! through the hosted docs' search and MCP `search_endpoints`, against the
//! word engine alone, and with a model that fails.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::response::IntoResponse as _;
use hub_core::Plan;
use hub_core::semantic::SearchModel;
use serde_json::{Value, json};
use test_kit::{TestApp, TestResponse, on_both_stores};

on_both_stores!(a_model_reranks_every_surface_and_a_broken_one_changes_nothing);
on_both_stores!(the_built_in_model_finds_what_words_miss);
on_both_stores!(a_pushed_document_is_embedded_before_its_first_search);

const API: &str = r##"{"openapi":"3.0.3","info":{"title":"Service","version":"1"},
  "paths":{
    "/requests":{"get":{"operationId":"listRequests","summary":"List requests","description":"Every request your integrations sent, newest first.","responses":{"200":{"description":"ok"}}}},
    "/requests/{id}":{"get":{"operationId":"getRequest","summary":"Get a request","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}},
    "/rate_limit":{"get":{"operationId":"getRateLimit","summary":"Get rate limit status","description":"The quota of the current window.","responses":{"200":{"description":"ok"}}}},
    "/pets":{"get":{"operationId":"listPets","summary":"List pets","responses":{"200":{"description":"ok"}}}}}}"##;

/// The question: it shares no word with the operation that answers it,
/// which only meaning finds.
const QUESTION: &str = "how many calls do I have left";
/// A question for the built-in model (which finds "calls" as close to
/// the list of requests as to the rate limit), sharing no word with the
/// document: the model's find must pass `BUILTIN_FLOOR` on its own.
const THROTTLED: &str = "how close am I to being throttled";
/// A question sharing "requests" with the wrong operation.
const MISLEADING: &str = "how many requests do I have left";

/// Words of each meaning the fake model knows; a text's vector counts them.
const MEANINGS: [&[&str]; 3] =
    [&["left", "remaining", "quota", "rate", "limit"], &["pets", "pet", "animal"], &["newest", "sent", "history"]];

fn vector(text: &str) -> Vec<f32> {
    let words: Vec<String> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    // A last constant direction, so no text is without one.
    let mut vector: Vec<f32> =
        MEANINGS.iter().map(|meaning| words.iter().filter(|w| meaning.contains(&w.as_str())).count() as f32).collect();
    vector.push(0.1);
    vector
}

/// A request the fake model received: its bearer key and its body.
type Received = (Option<String>, Value);

#[derive(Clone, Default)]
struct FakeModel {
    requests: Arc<Mutex<Vec<Received>>>,
}

/// `/v1/embeddings` answers the vectors (in reverse order, each with its
/// index, as servers may), or 503 for a text saying "unembeddable";
/// `/broken/v1/embeddings` answers 500.
async fn fake_model() -> (String, FakeModel) {
    let fake = FakeModel::default();
    let state = fake.clone();
    let app = axum::Router::new()
        .route(
            "/v1/embeddings",
            axum::routing::post(move |headers: axum::http::HeaderMap, axum::Json(body): axum::Json<Value>| {
                let state = state.clone();
                async move {
                    let key = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
                    let inputs: Vec<String> = body["input"]
                        .as_array()
                        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                        .unwrap_or_default();
                    state.requests.lock().unwrap().push((key, body));
                    if inputs.iter().any(|t| t.contains("unembeddable")) {
                        return (StatusCode::SERVICE_UNAVAILABLE, "not now").into_response();
                    }
                    let data: Vec<Value> = inputs
                        .iter()
                        .enumerate()
                        .rev()
                        .map(|(i, text)| json!({ "object": "embedding", "index": i, "embedding": vector(text) }))
                        .collect();
                    axum::Json(json!({ "object": "list", "data": data, "model": "fake-embed" })).into_response()
                }
            }),
        )
        .route(
            "/broken/v1/embeddings",
            axum::routing::post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "overloaded").into_response() }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), fake)
}

fn config(url: String) -> Option<SearchModel> {
    Some(SearchModel::Remote(platform::embeddings::EmbeddingConfig {
        url,
        model: "fake-embed".into(),
        api_key: Some("sk-test".into()),
        timeout_secs: 10,
    }))
}

async fn get(router: &axum::Router, path: &str) -> TestResponse {
    let request = Request::builder().uri(path).body(Body::empty()).unwrap();
    TestApp::send(router, request).await
}

/// The titles the docs' search answers, best first.
async fn docs_search(router: &axum::Router, slug: &str, q: &str) -> Vec<String> {
    let path = format!("/docs/{slug}/1/search?format=json&q={}", q.replace(' ', "+"));
    let response = get(router, &path).await;
    assert_eq!(response.status, StatusCode::OK, "{}", String::from_utf8_lossy(&response.body));
    response.json()["hits"].as_array().unwrap().iter().map(|h| h["title"].as_str().unwrap().to_owned()).collect()
}

/// The operations MCP `search_endpoints` answers, best first.
async fn search_endpoints(router: &axum::Router, slug: &str, q: &str) -> Vec<String> {
    let params = json!({ "name": "search_endpoints", "arguments": { "query": q } });
    let response = crate::mcp_call(router, slug, None, "tools/call", params).await;
    assert_eq!(response.status, StatusCode::OK);
    let results = response.json()["result"]["structuredContent"]["results"].clone();
    results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} {}", r["method"].as_str().unwrap(), r["path"].as_str().unwrap()))
        .collect()
}

/// A Pro user `email` with the public project `svc` holding [`API`].
/// Publishes [`API`] as project `svc`; returns the document's SHA-256.
async fn publish_api(app: &TestApp, email: &str) -> String {
    let (_, token) = app.user(email, Plan::Pro).await;
    let created =
        app.post_json("/api/v1/projects", &token, &json!({ "name": "Svc", "slug": "svc", "is_public": true })).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let pushed = app.push("svc", &token, "label=1", API).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    pushed.json()["spec_sha256"].as_str().unwrap_or_default().to_owned()
}

async fn a_model_reranks_every_surface_and_a_broken_one_changes_nothing(app: TestApp) {
    publish_api(&app, "meaning@example.com").await;

    // The word engine alone does not find the operation.
    let words_alone = docs_search(&app.router, "svc", QUESTION).await;
    assert!(!words_alone.contains(&"GET /rate_limit".to_owned()), "{words_alone:?}");

    // A model that fails changes nothing, and costs no error.
    let (url, fake) = fake_model().await;
    let broken = app.router_for(app.hub.clone().with_search_model(config(format!("{url}/broken/v1"))));
    assert_eq!(docs_search(&broken, "svc", QUESTION).await, words_alone);
    assert_eq!(docs_search(&broken, "svc", QUESTION).await, words_alone, "and again while it is paused");

    // With a model, the first search embeds the document off the request
    // path; searches re-rank once its vectors are ready.
    let router = app.router_for(app.hub.clone().with_search_model(config(format!("{url}/v1/chat/completions"))));
    let mut found = docs_search(&router, "svc", QUESTION).await;
    for _ in 0..100 {
        if found.first().map(String::as_str) == Some("GET /rate_limit") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        found = docs_search(&router, "svc", QUESTION).await;
    }
    assert_eq!(found.first().map(String::as_str), Some("GET /rate_limit"), "{found:?}");
    // Where the words mislead, the model's find joins the engine's.
    let both = docs_search(&router, "svc", MISLEADING).await;
    let engine_alone = docs_search(&app.router, "svc", MISLEADING).await;
    assert!(!engine_alone.contains(&"GET /rate_limit".to_owned()), "{engine_alone:?}");
    assert!(both.contains(&"GET /rate_limit".to_owned()) && both.contains(&"GET /requests".to_owned()), "{both:?}");
    let tool = search_endpoints(&router, "svc", QUESTION).await;
    assert_eq!(tool.first().map(String::as_str), Some("GET /rate_limit"), "MCP shares the ranking: {tool:?}");
    let animals = search_endpoints(&router, "svc", "which animal do you have").await;
    assert_eq!(animals.first().map(String::as_str), Some("GET /pets"), "{animals:?}");

    // A question the model fails on is answered by words alone, and for a
    // minute the model is not asked again; questions it answered before
    // are still re-ranked.
    let odd = "unembeddable requests";
    assert_eq!(docs_search(&router, "svc", odd).await, docs_search(&broken, "svc", odd).await);
    assert_eq!(docs_search(&router, "svc", QUESTION).await.first().map(String::as_str), Some("GET /rate_limit"));
    let before = fake.requests.lock().unwrap().len();
    docs_search(&router, "svc", "remaining quota").await;
    assert_eq!(fake.requests.lock().unwrap().len(), before, "paused after the failure");

    // What the model was sent: the model's name and key, each section once
    // (its title with identifiers split, then its description), and the
    // questions.
    let requests = fake.requests.lock().unwrap().clone();
    assert!(
        requests.iter().all(|(key, body)| key.as_deref() == Some("Bearer sk-test") && body["model"] == "fake-embed")
    );
    let inputs: Vec<String> = requests
        .iter()
        .flat_map(|(_, body)| body["input"].as_array().cloned().unwrap_or_default())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    let sections = inputs.iter().filter(|t| t.starts_with("GET /")).count();
    assert_eq!(sections, 4, "each operation embedded once: {inputs:?}");
    assert!(inputs.iter().any(|t| t.starts_with("GET /rate limit: Get rate limit status")), "{inputs:?}");
    assert!(requests.iter().all(|(_, body)| body["input"].as_array().is_some_and(|a| a.len() <= 64)));
    let asked = inputs.iter().filter(|t| t.as_str() == QUESTION).count();
    assert!(!inputs.iter().any(|t| t == "remaining quota"));
    assert_eq!(asked, 1, "a question is embedded once, then kept: {inputs:?}");
}

/// Searches `q` until the first hit is `expected` (the document's vectors
/// are made in the background after its first search), at most `seconds`.
async fn first_hit_becomes(router: &axum::Router, slug: &str, q: &str, expected: &str, seconds: u64) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    loop {
        let found = docs_search(router, slug, q).await;
        if found.first().map(String::as_str) == Some(expected) || std::time::Instant::now() > deadline {
            return found;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

async fn the_built_in_model_finds_what_words_miss(app: TestApp) {
    let sha = publish_api(&app, "builtin@example.com").await;
    let words_alone = docs_search(&app.router, "svc", THROTTLED).await;
    assert!(!words_alone.contains(&"GET /rate_limit".to_owned()), "{words_alone:?}");

    let router = app.router_for(app.hub.clone().with_search_model(Some(SearchModel::Builtin)));
    let found = first_hit_becomes(&router, "svc", THROTTLED, "GET /rate_limit", 60).await;
    assert_eq!(found.first().map(String::as_str), Some("GET /rate_limit"), "{found:?}");
    let tool = search_endpoints(&router, "svc", THROTTLED).await;
    assert_eq!(tool.first().map(String::as_str), Some("GET /rate_limit"), "MCP shares the ranking: {tool:?}");
    let animals = docs_search(&router, "svc", "which animals do you keep").await;
    assert_eq!(animals.first().map(String::as_str), Some("GET /pets"), "{animals:?}");
    // A question the words already answer keeps its answer.
    assert_eq!(docs_search(&router, "svc", "list pets").await.first().map(String::as_str), Some("GET /pets"));
    // Nonsense, and what the document does not hold, find nothing.
    for nothing in ["zyzzyva quux", "how do I bake bread"] {
        assert_eq!(docs_search(&router, "svc", nothing).await, Vec::<String>::new(), "{nothing}");
    }
    let answer = crate::mcp_call(
        &router,
        "svc",
        None,
        "tools/call",
        json!({ "name": "ask_docs", "arguments": { "question": "zyzzyva quux" } }),
    )
    .await;
    assert_eq!(answer.json()["result"]["structuredContent"]["citations"], json!([]), "{:?}", answer.json());
    // The vectors are kept in the store, one per section, under the
    // model's name (`semantic::tests` shows a restart reads them back).
    let kept = app.hub.store().docs_vectors(&sha, &SearchModel::Builtin.key()).await.unwrap().unwrap();
    let sections = app.hub.store().docs_sections(&sha).await.unwrap().len();
    assert_eq!((kept.sections, kept.width), (sections, sentence::WIDTH));
    assert!(sections > 3, "{sections}");
}

/// With a model configured, a push indexes and embeds the document in the
/// background, so its first search already ranks by meaning.
async fn a_pushed_document_is_embedded_before_its_first_search(app: TestApp) {
    let hub = app.hub.clone().with_search_model(Some(SearchModel::Builtin));
    let router = app.router_for(hub.clone());
    let (_, token) = app.user("pushed@example.com", Plan::Pro).await;
    let created =
        app.post_json("/api/v1/projects", &token, &json!({ "name": "Svc", "slug": "svc", "is_public": true })).await;
    assert_eq!(created.status, StatusCode::CREATED);
    let request = Request::post("/api/v1/projects/svc/versions?label=1")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .body(Body::from(API))
        .unwrap();
    let pushed = TestApp::send(&router, request).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    let sha = pushed.json()["spec_sha256"].as_str().unwrap_or_default().to_owned();

    // Nobody searches: the sections are indexed and embedded all the same.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !hub.docs_search_settled(&sha) && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(hub.docs_search_settled(&sha), "the pushed document's vectors are ready without a search");
    assert!(app.hub.store().docs_indexed(&sha).await.unwrap());
    let kept = app.hub.store().docs_vectors(&sha, &SearchModel::Builtin.key()).await.unwrap().unwrap();
    assert_eq!(kept.sections, app.hub.store().docs_sections(&sha).await.unwrap().len());
    // The first search ranks by meaning at once, with no wait.
    let found = docs_search(&router, "svc", THROTTLED).await;
    assert_eq!(found.first().map(String::as_str), Some("GET /rate_limit"), "{found:?}");
}
