//! The search evaluation of `bench/search-eval` (issue 29): questions
//! written as people ask them, over eight public APIs, each with the
//! operations that answer it, in a development half and a test half. For
//! every API and half this prints recall@1, recall@3 and the mean
//! reciprocal rank of the docs search (the engine behind the quick search,
//! AI search, the chat's retrieval and MCP `search_endpoints`; its
//! operations and GraphQL root fields, as `search_endpoints` answers), and
//! how often MCP `ask_docs` cites an expected operation.
//!
//! Run by `bench/search-eval.sh`; skipped unless `SVC_SEARCH_EVAL` names
//! the folder of questions. It asserts nothing about the figures: they are
//! measurements, quoted in docs/mcp.md from the test half only. The hub
//! re-ranks with the sentence model `svc serve` would choose (the built-in
//! one, unless `SVC_SEARCH_MODEL=off` or an operator's model is set), and
//! each document's sections are encoded before its questions are asked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use axum::http::StatusCode;
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::TestApp;

#[path = "../../../../bench/search-eval/tally.rs"]
mod tally;
use tally::Tally;

fn source_path(source: &str) -> Option<PathBuf> {
    if source.starts_with("npm:@octokit/openapi") {
        return crate::search::github_description();
    }
    let relative = source.strip_prefix("../shared/")?;
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared").join(relative);
    path.is_file().then_some(path)
}

async fn ask(router: &axum::Router, slug: &str, question: &str) -> Vec<String> {
    let params = json!({ "name": "ask_docs", "arguments": { "question": question } });
    let response = crate::mcp_call(router, slug, None, "tools/call", params).await;
    assert_eq!(response.status, StatusCode::OK, "{}", String::from_utf8_lossy(&response.body));
    let result = response.json()["result"]["structuredContent"].clone();
    assert!(result.is_object(), "ask_docs answered {:?}", response.json());
    result["citations"]
        .as_array()
        .map(|c| c.iter().filter_map(|c| c["title"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn search_evaluation() {
    let Some(dir) = std::env::var_os("SVC_SEARCH_EVAL").map(PathBuf::from) else {
        eprintln!("skipping: SVC_SEARCH_EVAL names the folder of questions (bench/search-eval.sh sets it)");
        return;
    };
    let app = TestApp::sqlite().await;
    let (_, token) = app.user("eval@example.com", Plan::Business).await;
    let model = hub_core::semantic::SearchModel::from_vars(|name| std::env::var(name).ok()).unwrap();
    println!("sentence model: {}", model.as_ref().map_or("none (words alone)", |m| m.name()));
    let hub = app.hub.clone().with_search_model(model);
    let router = app.router_for(hub.clone());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut totals: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut misses = Vec::new();
    println!("{}", Tally::header());
    for file in files {
        let set: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let api = set["api"].as_str().unwrap_or("?").to_owned();
        let Some(path) = set["source"].as_str().and_then(source_path) else {
            println!("{api:<12} skipped: {} is not here", set["source"]);
            continue;
        };
        let bytes = std::fs::read(&path).unwrap();
        let site = docs_render::Site::new(spec::parse(&bytes).unwrap());
        let slug = format!("eval-{}", api.to_ascii_lowercase());
        let created =
            app.post_json("/api/v1/projects", &token, &json!({ "name": api, "slug": slug, "is_public": true })).await;
        assert_eq!(created.status, StatusCode::CREATED);
        let pushed = app.push(&slug, &token, "label=eval", bytes.clone()).await;
        assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
        // The first search starts the encoding of the document's sections;
        // the questions wait until it is done.
        let sha = platform::crypto::sha256_hex(&bytes);
        let sections = || {
            site.sections()
                .into_iter()
                .map(|s| hub_core::docs::SearchSection { target: s.target, title: s.title, body: s.body })
                .collect()
        };
        hub.docs_search(&sha, "warm up", sections).await.unwrap();
        let started = std::time::Instant::now();
        while !hub.docs_search_settled(&sha) {
            assert!(started.elapsed().as_secs() < 1_800, "the sections of {api} were not encoded in 30 minutes");
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        let mut halves: BTreeMap<String, Tally> = BTreeMap::new();
        for question in set["questions"].as_array().unwrap() {
            let q = question["q"].as_str().unwrap();
            let expect: Vec<&str> = question["expect"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            let hits = hub.docs_search(&sha, q, sections).await.unwrap();
            // What MCP `search_endpoints` answers: operations and GraphQL
            // root fields, in the engine's order.
            let hits: Vec<_> =
                hits.into_iter().filter(|h| h.target.starts_with("op/") || h.target.starts_with("graphql/")).collect();
            let rank = hits.iter().take(10).position(|h| expect.contains(&h.title.as_str())).map(|p| p + 1);
            let cited = ask(&router, &slug, q).await.iter().any(|c| expect.contains(&c.as_str()));
            let half = question["half"].as_str().unwrap_or("?").to_owned();
            if half == "dev" && rank.is_none_or(|r| r > 3) {
                let top: Vec<&str> = hits.iter().take(3).map(|h| h.title.as_str()).collect();
                misses.push(format!("{api} {:?}: expected {expect:?}, got {top:?}", q));
            }
            halves.entry(half).or_default().add(rank, Some(cited));
        }
        for (half, tally) in &halves {
            println!("{}", tally.row(&api, half));
            let key: &'static str = if half == "dev" { "dev" } else { "test" };
            totals.entry(key).or_default().merge(tally);
        }
    }
    for (half, tally) in &totals {
        println!("{}", tally.row("all", half));
    }
    // Misses of the development half only: the test half is never looked at.
    for miss in &misses {
        println!("dev miss: {miss}");
    }
}
