//! The hub's integration suite: the real router in-process, every scenario
//! on a fresh SQLite file and again on a fresh PostgreSQL database.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    reason = "a test fails loudly on an unexpected shape; that is its job"
)]

mod account_safety;
mod assistant;
mod audit;
mod auth;
mod bad_specs;
mod blobs;
mod dashboard;
mod diffs;
mod docs;
mod docs_weight;
mod inboxes;
mod mcp;
mod mock;
mod monitoring;
mod openapi;
mod ops;
mod previews;
mod projects;
mod roles;
mod sdks;
mod search;
mod search_eval;
mod security;
mod semantic;
mod team;
mod uploads;
mod versions;
mod workbench;

/// A small OpenAPI 3.0 document written for these tests; `{v}` becomes its
/// `info.version`.
pub fn openapi_yaml(version: &str) -> String {
    format!(
        "openapi: 3.0.3\ninfo:\n  title: Pets\n  version: '{version}'\npaths:\n  /pets:\n    get:\n      operationId: listPets\n      responses:\n        '200':\n          description: ok\n  /pets/{{id}}:\n    get:\n      operationId: getPet\n      parameters:\n        - name: id\n          in: path\n          required: true\n          schema: {{type: string}}\n      responses:\n        '200':\n          description: ok\n"
    )
}

pub const SWAGGER_JSON: &str = r#"{"swagger":"2.0","info":{"title":"Legacy","version":"2.1"},"basePath":"/v2","paths":{"/items":{"get":{"operationId":"listItems","responses":{"200":{"description":"ok"}}}}}}"#;

pub const GRAPHQL_SDL: &str = "type Query { book(id: ID!): Book books: [Book!]! }\ntype Mutation { addBook(title: String!): Book }\ntype Book { id: ID! title: String! }\n";

/// A JSON-RPC call `method` with `params` to the MCP server of project
/// `target` through `router`, as an MCP client sends it (with `token` as a
/// bearer when given).
pub async fn mcp_call(
    router: &axum::Router,
    target: &str,
    token: Option<&str>,
    method: &str,
    params: serde_json::Value,
) -> test_kit::TestResponse {
    use axum::http::header;
    let body = serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let mut builder = axum::http::Request::builder()
        .method(axum::http::Method::POST)
        .uri(format!("/api/mcp/{target}"))
        .header(header::HOST, "127.0.0.1")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::ACCEPT, "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18");
    if let Some(token) = token {
        builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    test_kit::TestApp::send(router, builder.body(axum::body::Body::from(body.to_string())).unwrap()).await
}

/// Path of the shared test corpus beside the checkout, if present.
pub fn shared_specs() -> Option<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/specs");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: ../shared/specs not found beside the checkout");
        None
    }
}
