//! Search that understands API descriptions, on GitHub's REST description:
//! questions as people ask them must find the operation they mean. The
//! description comes from the npm corpus (`SVC_GITHUB_SPEC`, or the
//! corpus and benchmark caches `scripts/test` fills); without it the test
//! says so and passes.

use axum::http::StatusCode;
use hub_core::Plan;
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

on_both_stores!(questions_find_their_operation_on_githubs_description);

/// Question, and the operation it means.
const QUESTIONS: [(&str, &str); 30] = [
    ("how do I list the issues of a repository", "GET /repos/{owner}/{repo}/issues"),
    ("create a release", "POST /repos/{owner}/{repo}/releases"),
    ("delete a repository", "DELETE /repos/{owner}/{repo}"),
    ("open a pull request", "POST /repos/{owner}/{repo}/pulls"),
    ("merge a pull request", "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge"),
    ("who starred a repository", "GET /repos/{owner}/{repo}/stargazers"),
    ("star a repository for the authenticated user", "PUT /user/starred/{owner}/{repo}"),
    ("get the authenticated user", "GET /user"),
    ("list the members of an organization", "GET /orgs/{org}/members"),
    ("comment on an issue", "POST /repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("add labels to an issue", "POST /repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("list the commits of a repository", "GET /repos/{owner}/{repo}/commits"),
    ("get a commit", "GET /repos/{owner}/{repo}/commits/{ref}"),
    ("create a repository for the authenticated user", "POST /user/repos"),
    ("fork a repo", "POST /repos/{owner}/{repo}/forks"),
    ("list branches", "GET /repos/{owner}/{repo}/branches"),
    ("get the contents of a file in a repository", "GET /repos/{owner}/{repo}/contents/{path}"),
    ("create or update file contents", "PUT /repos/{owner}/{repo}/contents/{path}"),
    ("search repositories", "GET /search/repositories"),
    ("search code", "GET /search/code"),
    ("list workflow runs for a repository", "GET /repos/{owner}/{repo}/actions/runs"),
    ("create a repository webhook", "POST /repos/{owner}/{repo}/hooks"),
    ("list the teams of an org", "GET /orgs/{org}/teams"),
    ("create a gist", "POST /gists"),
    ("list notifications for the authenticated user", "GET /notifications"),
    ("get the latest release", "GET /repos/{owner}/{repo}/releases/latest"),
    ("edit an issue", "PATCH /repos/{owner}/{repo}/issues/{issue_number}"),
    ("list repository collaborators", "GET /repos/{owner}/{repo}/collaborators"),
    ("create a deployment", "POST /repos/{owner}/{repo}/deployments"),
    ("get my rate limit status", "GET /rate_limit"),
];

/// GitHub's REST description, where the test caches keep it.
pub(crate) fn github_description() -> Option<std::path::PathBuf> {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default();
    let cache =
        std::env::var_os("SVC_TEST_CACHE").map_or_else(|| home.join(".cache/svc-test"), std::path::PathBuf::from);
    let candidates = [
        std::env::var_os("SVC_GITHUB_SPEC").map(std::path::PathBuf::from),
        Some(cache.join("bench/api.github.com.json")),
        Some(cache.join("spec-corpus/flat/octokit-openapi--api.github.com.json")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_file());
    if found.is_none() {
        eprintln!("skipping: GitHub's REST description is not here (SVC_GITHUB_SPEC, or scripts/test fetches it)");
    }
    found
}

async fn questions_find_their_operation_on_githubs_description(app: TestApp) {
    let Some(path) = github_description() else { return };
    let bytes = std::fs::read(&path).unwrap();
    let site = docs_render::Site::new(spec::parse(&bytes).unwrap());
    let sha = "github-rest-test";
    let mut misses = Vec::new();
    for (question, expected) in QUESTIONS {
        let hits = app
            .hub
            .docs_search(sha, question, || {
                site.sections()
                    .into_iter()
                    .map(|s| hub_core::docs::SearchSection { target: s.target, title: s.title, body: s.body })
                    .collect()
            })
            .await
            .unwrap();
        let top: Vec<&str> = hits.iter().take(3).map(|h| h.title.as_str()).collect();
        if !top.contains(&expected) {
            misses.push(format!("{question:?}: expected {expected}, got {top:?}"));
        }
    }
    for miss in &misses {
        eprintln!("miss: {miss}");
    }
    assert!(misses.len() <= 3, "{} of 30 questions missed their operation in the top 3", misses.len());
}

/// The MCP server's `ask_docs`, without a model, on the same questions:
/// its citations name the expected operation for at least 24 of 30.
#[tokio::test]
async fn ask_docs_without_a_model_cites_the_operation() {
    let Some(path) = github_description() else { return };
    let app = TestApp::sqlite().await;
    let (_, token) = app.user("github@example.com", Plan::Pro).await;
    let created = app
        .post_json("/api/v1/projects", &token, &json!({ "name": "GitHub", "slug": "github", "is_public": true }))
        .await;
    assert_eq!(created.status, StatusCode::CREATED);
    let pushed = app.push("github", &token, "label=rest", std::fs::read(&path).unwrap()).await;
    assert_eq!(pushed.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&pushed.body));
    let mut misses = Vec::new();
    for (question, expected) in QUESTIONS {
        let params = json!({ "name": "ask_docs", "arguments": { "question": question } });
        let response = crate::mcp_call(&app.router, "github", None, "tools/call", params).await;
        assert_eq!(response.status, StatusCode::OK);
        let result = response.json()["result"]["structuredContent"].clone();
        let cited: Vec<String> =
            result["citations"].as_array().unwrap().iter().map(|c| c["title"].as_str().unwrap().to_owned()).collect();
        if !cited.iter().any(|c| c == expected) {
            misses.push(format!("{question:?}: expected {expected}, cited {cited:?}"));
        }
        // Never an operation the description does not have.
        for citation in result["citations"].as_array().unwrap() {
            if citation["url"].as_str().unwrap().contains("/op/") {
                let title = citation["title"].as_str().unwrap();
                assert!(result["answer"].as_str().unwrap().contains(&format!("`{title}`")), "{result}");
            }
        }
    }
    for miss in &misses {
        eprintln!("miss: {miss}");
    }
    assert!(misses.len() <= 6, "{} of 30 answers missed their operation", misses.len());
}
