//! Our own OpenAPI document stays true: every operation it lists is routed,
//! every route is in it, and responses match its schemas.

use axum::http::{Method, StatusCode};
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::TestApp;

fn document() -> Value {
    serde_json::from_str(hub_http::OPENAPI_DOCUMENT).expect("the document is JSON")
}

#[tokio::test]
async fn served_document_is_the_embedded_one() {
    let app = TestApp::sqlite().await;
    let served = app.request(Method::GET, "/api/v1/openapi.json", None, None).await;
    assert_eq!(served.status, StatusCode::OK);
    assert_eq!(served.json(), document());
    assert_eq!(document()["openapi"], "3.1.0");
}

#[tokio::test]
async fn every_documented_operation_is_routed() {
    let app = TestApp::sqlite().await;
    let (_, token) = app.user("doc@example.com", Plan::Business).await;
    let slug = app.project(&token, "Documented").await;
    app.push(&slug, &token, "label=v1", crate::openapi_yaml("1")).await;
    app.push(&slug, &token, "label=v2", crate::openapi_yaml("2")).await;
    let doc = document();
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, _) in item.as_object().unwrap().iter().filter(|(k, _)| *k != "parameters") {
            operations += 1;
            let concrete = path.replace("{slug}", &slug).replace("{label}", "v2");
            let method: Method = method.to_uppercase().parse().unwrap();
            let body = matches!(method, Method::POST | Method::PATCH).then(|| axum::body::Body::from("{}"));
            let response = app.request(method.clone(), &concrete, Some(&token), body).await;
            assert_ne!(response.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
            // The router's fallback answers JSON; a page's own 404 (the
            // status page's, for a project without one) is HTML.
            let html =
                response.headers.get("content-type").is_some_and(|v| v.to_str().unwrap().starts_with("text/html"));
            if response.status == StatusCode::NOT_FOUND && !html {
                assert_ne!(response.json()["error"]["message"], "no such route", "{method} {path} is not routed");
            }
        }
    }
    assert_eq!(
        operations, 82,
        "the seed's ten routes, the eleven of the mock, the SDK route, the nine of the docs, the MCP token, \
         the six of collaborators, the seven of the audit log, the seven of monitors, the two status pages, \
         the thirteen of webhook inboxes and the fifteen of saved requests"
    );
}

/// Checks `value` against a schema of our document: types, required
/// properties, closed objects and enums, following `$ref`s. The document uses
/// only these keywords in response schemas, and schemathesis repeats the full
/// check against the live server in scripts/test.
fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/components/schemas/");
        return conforms(doc, &doc["components"]["schemas"][name], value, at);
    }
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        if !allowed.iter().any(|t| *t == actual || (*t == "number" && actual == "integer")) {
            return Err(format!("{at}: {actual} is not {allowed:?}"));
        }
    }
    if let (Some(values), false) = (schema.get("enum").and_then(Value::as_array), value.is_null())
        && !values.contains(value)
    {
        return Err(format!("{at}: {value} not in enum"));
    }
    if let Value::Object(map) = value {
        for required in schema.get("required").and_then(Value::as_array).into_iter().flatten() {
            let key = required.as_str().unwrap();
            if !map.contains_key(key) {
                return Err(format!("{at}: missing {key}"));
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, item) in map {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => conforms(doc, sub, item, &format!("{at}.{key}"))?,
                None if schema.get("additionalProperties") == Some(&json!(false)) => {
                    return Err(format!("{at}: undocumented property {key}"));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            conforms(doc, item_schema, item, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[tokio::test]
async fn responses_match_their_documented_schemas() {
    let app = TestApp::sqlite().await;
    let doc = document();
    let (_, token) = app.user("doc@example.com", Plan::Business).await;
    let slug = app.project(&token, "Shapes").await;
    let schema = |name: &str| json!({ "$ref": format!("#/components/schemas/{name}") });
    let checks = [
        (app.get(&format!("/api/v1/projects/{slug}"), &token).await, schema("Project")),
        (app.get("/api/v1/projects", &token).await, schema("ProjectList")),
        (app.push(&slug, &token, "label=v1&", crate::openapi_yaml("1")).await, schema("Version")),
        (app.push(&slug, &token, "label=pr&preview=true&pr=3", crate::openapi_yaml("1")).await, schema("Version")),
        (
            app.get(&format!("/api/v1/projects/{slug}/versions?include_previews=true"), &token).await,
            schema("VersionList"),
        ),
        (app.get("/api/v1/projects/none", &token).await, schema("Error")),
        (app.get("/api/v1/projects", "svc_pat_x").await, schema("Error")),
    ];
    for (response, schema) in checks {
        let body = response.json();
        conforms(&doc, &schema, &body, "$").unwrap_or_else(|e| panic!("{e}\n{body}"));
    }
}
