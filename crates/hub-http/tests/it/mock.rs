//! The hosted mock through the real router: one scenario per rule of seed
//! 000's "Mock server behaviour", the limits, and the management API.

use std::time::Instant;

use axum::http::{Method, StatusCode};
use hub_core::{Plan, Role};
use serde_json::{Value, json};
use test_kit::{TestApp, on_both_stores};

use crate::GRAPHQL_SDL;

/// Our own fixture: explicit, named and schema-level examples, generated
/// bodies, an empty schema, a 204, and every kind of security scheme.
pub const FIXTURE: &str = r#"
openapi: 3.0.3
info: {title: Mock fixture, version: '1'}
servers: [{url: 'https://api.example.com/v1'}]
security: [{apiKey: []}]
components:
  securitySchemes:
    apiKey: {type: apiKey, in: header, name: X-API-Key}
    bearer: {type: http, scheme: bearer}
    basic: {type: http, scheme: basic}
    oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://example.com/token', scopes: {}}}}
    oidc: {type: openIdConnect, openIdConnectUrl: 'https://example.com/.well-known/openid-configuration'}
    queryKey: {type: apiKey, in: query, name: api_key}
    cookieKey: {type: apiKey, in: cookie, name: session}
  schemas:
    Pet:
      type: object
      required: [id, name, status]
      properties:
        id: {type: string, format: uuid}
        name: {type: string, minLength: 2, maxLength: 20}
        status: {type: string, enum: [available, sold]}
        tag: {type: string, nullable: true}
        born: {type: string, format: date-time}
        weight: {type: number, minimum: 1, maximum: 99}
paths:
  /pets:
    get:
      operationId: listPets
      parameters:
        - {name: limit, in: query, schema: {type: integer, minimum: 1, maximum: 100}}
        - {name: X-Trace, in: header, required: false, schema: {type: string, pattern: '^[a-z]+$'}}
      responses:
        '200':
          description: ok
          headers:
            X-Total-Count: {schema: {type: integer, minimum: 5}}
          content:
            application/json:
              schema: {type: array, minItems: 2, items: {$ref: '#/components/schemas/Pet'}}
            application/xml:
              example: '<pets/>'
    post:
      operationId: createPet
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [name]
              additionalProperties: false
              properties:
                name: {type: string, minLength: 2}
                status: {type: string, enum: [available, sold]}
                age: {type: integer, minimum: 0}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
              examples:
                cat: {value: {id: '1', name: Tom, status: available}}
                dog: {value: {id: '2', name: Rex, status: sold}}
        '400':
          description: bad
          content:
            application/json:
              example: {error: bad request}
  /pets/{petId}:
    get:
      operationId: getPet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: integer}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              example: {id: abc, name: Explicit, status: sold}
        '404':
          description: missing
          content:
            application/json:
              schema: {type: object, properties: {message: {type: string}}}
    delete:
      operationId: deletePet
      security: []
      parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]
      responses:
        '204': {description: gone}
  /open:
    get:
      operationId: openThing
      security: []
      responses:
        '200':
          description: anything
          content:
            application/json:
              schema: {}
  /schema-example:
    get:
      operationId: schemaExample
      security: []
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {a: {type: integer}}, example: {a: 7}}
  /bearer-or-basic:
    get:
      operationId: bearerOrBasic
      security: [{bearer: []}, {basic: []}]
      responses: {'200': {description: ok}}
  /oauth:
    get:
      operationId: oauthOnly
      security: [{oauth: []}]
      responses: {'200': {description: ok}}
  /oidc:
    get:
      operationId: oidcOnly
      security: [{oidc: []}]
      responses: {'200': {description: ok}}
  /query-or-cookie:
    get:
      operationId: queryOrCookie
      security: [{queryKey: []}, {cookieKey: []}]
      responses: {'200': {description: ok}}
"#;

const KEY: (&str, &str) = ("x-api-key", "k");

fn header<'a>(response: &'a test_kit::TestResponse, name: &str) -> &'a str {
    response.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// A public project with the fixture as its default version.
async fn public_project(app: &TestApp, email: &str, plan: Plan) -> (String, String) {
    let (_, token) = app.user(email, plan).await;
    let slug = app.project(&token, "Mocked").await;
    let made_public = app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    assert_eq!(made_public.status, StatusCode::OK, "{}", String::from_utf8_lossy(&made_public.body));
    let pushed = app.push(&slug, &token, "label=v1", FIXTURE).await;
    assert!(pushed.status.is_success(), "{}", String::from_utf8_lossy(&pushed.body));
    (slug, token)
}

async fn settings(app: &TestApp, slug: &str, token: &str, patch: Value) -> Value {
    let response = app.patch_json(&format!("/api/v1/projects/{slug}/mock/settings"), token, &patch).await;
    assert_eq!(response.status, StatusCode::OK, "{}", String::from_utf8_lossy(&response.body));
    response.json()
}

async fn create_override(app: &TestApp, slug: &str, token: &str, body: Value) -> Value {
    let response = app.post_json(&format!("/api/v1/projects/{slug}/mock/overrides"), token, &body).await;
    assert_eq!(response.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&response.body));
    response.json()
}

on_both_stores!(
    rules_1_2_12_13_availability_response_choice_and_headers,
    rule_3_graphql,
    rule_4_prefer_code_and_examples,
    rule_5_overrides,
    rules_6_7_validation_and_auth,
    rules_8_9_network_simulation_and_disabled_operations,
    rule_10_export_and_import,
    rule_11_versions,
    limits_rate_and_request_log,
);

async fn rules_1_2_12_13_availability_response_choice_and_headers(app: TestApp) {
    let (slug, token) = public_project(&app, "rules@example.com", Plan::Free).await;

    // Rule 2: explicit example first, with every diagnostic header (rule 12).
    let pet = app.mock(Method::GET, &format!("/mock/{slug}/pets/7"), &[], None).await;
    assert_eq!(pet.status, StatusCode::OK);
    assert_eq!(pet.json(), json!({"id": "abc", "name": "Explicit", "status": "sold"}));
    assert_eq!(header(&pet, "x-mock-synth"), "example");
    assert!(header(&pet, "x-mock-server").starts_with("svc-mock/"));
    assert_eq!(header(&pet, "x-mock-version"), "v1");
    assert_eq!(header(&pet, "x-mock-matched-path"), "/pets/{petId}");
    assert_eq!(header(&pet, "x-mock-operation-id"), "getPet");
    assert_eq!(header(&pet, "content-type"), "application/json");

    // Generated from the schema: formats, enums, bounds, required, minItems.
    let list = app.mock(Method::GET, &format!("/mock/{slug}/pets"), &[], None).await;
    assert_eq!(header(&list, "x-mock-synth"), "schema-walk");
    let pets = list.json();
    let pets = pets.as_array().unwrap();
    assert_eq!(pets.len(), 2);
    for pet in pets {
        assert!(uuid::Uuid::parse_str(pet["id"].as_str().unwrap()).is_ok(), "{pet}");
        assert!(["available", "sold"].contains(&pet["status"].as_str().unwrap()));
        let name = pet["name"].as_str().unwrap();
        assert!((2..=20).contains(&name.len()));
        let weight = pet["weight"].as_f64().unwrap();
        assert!((1.0..=99.0).contains(&weight));
        assert!(chrono::DateTime::parse_from_rfc3339(pet["born"].as_str().unwrap()).is_ok());
    }
    let total: i64 = header(&list, "x-total-count").parse().unwrap();
    assert!(total >= 5, "response headers are generated too");

    // Named examples (first when nothing is asked), schema-level examples,
    // an empty schema's placeholder, and the server prefix of `servers`.
    let created = app.mock(Method::POST, &format!("/mock/{slug}/v1/pets"), &[KEY], Some(r#"{"name":"x"}"#)).await;
    assert_eq!((created.status, created.json()["name"].as_str()), (StatusCode::CREATED, Some("Tom")));
    let schema_level = app.mock(Method::GET, &format!("/mock/{slug}/schema-example"), &[], None).await;
    assert_eq!((schema_level.json(), header(&schema_level, "x-mock-synth")), (json!({"a": 7}), "example"));
    let empty = app.mock(Method::GET, &format!("/mock/{slug}/open"), &[], None).await;
    assert_eq!(header(&empty, "x-mock-synth"), "empty-schema");
    assert!(empty.json()["message"].as_str().unwrap().contains("no schema"));

    // The media type follows Accept; nothing acceptable is a 406.
    let xml = app.mock(Method::GET, &format!("/mock/{slug}/pets"), &[("accept", "application/xml")], None).await;
    assert_eq!((header(&xml, "content-type"), &xml.body[..]), ("application/xml", &b"<pets/>"[..]));
    let refused = app.mock(Method::GET, &format!("/mock/{slug}/pets"), &[("accept", "text/csv")], None).await;
    assert_eq!(refused.status, StatusCode::NOT_ACCEPTABLE);

    // Rule 13: no body for 204 (and HEAD answers like GET without one).
    let gone = app.mock(Method::DELETE, &format!("/mock/{slug}/pets/1"), &[], None).await;
    assert_eq!((gone.status, gone.body.len()), (StatusCode::NO_CONTENT, 0));
    assert!(gone.headers.get("content-type").is_none());
    let head = app.mock(Method::HEAD, &format!("/mock/{slug}/pets/1"), &[], None).await;
    assert_eq!((head.status, head.body.len()), (StatusCode::OK, 0));

    // Unknown paths and methods, trailing slashes.
    let unknown = app.mock(Method::GET, &format!("/mock/{slug}/nothing"), &[], None).await;
    assert_eq!((unknown.status, unknown.error_code()), (StatusCode::NOT_FOUND, "NOT_FOUND".to_owned()));
    let wrong = app.mock(Method::PUT, &format!("/mock/{slug}/pets"), &[], None).await;
    assert_eq!(wrong.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(&wrong, "allow"), "GET, POST");
    let slash = app.mock(Method::GET, &format!("/mock/{slug}/pets/7/"), &[], None).await;
    assert_eq!(slash.json()["name"], "Explicit");

    // Rule 1: open CORS with preflight, no plan gate, no auth of our own;
    // private and password-protected projects are closed.
    let preflight = app
        .mock(
            Method::OPTIONS,
            &format!("/mock/{slug}/pets"),
            &[("origin", "https://app.example"), ("access-control-request-method", "POST")],
            None,
        )
        .await;
    assert!(preflight.status.is_success());
    assert_eq!(header(&preflight, "access-control-allow-origin"), "*");
    let cors = app.mock(Method::GET, &format!("/mock/{slug}/pets/1"), &[("origin", "https://app.example")], None).await;
    assert_eq!(header(&cors, "access-control-allow-origin"), "*");
    let private = app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": false})).await;
    assert_eq!(private.status, StatusCode::OK);
    let closed = app.mock(Method::GET, &format!("/mock/{slug}/pets/1"), &[], None).await;
    assert_eq!(closed.status, StatusCode::NOT_FOUND, "a private project's mock is hidden");
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    protect_with_password(&app, &slug).await;
    let locked = app.mock(Method::GET, &format!("/mock/{slug}/pets/1?bust=1"), &[], None).await;
    assert_eq!((locked.status, locked.error_code()), (StatusCode::UNAUTHORIZED, "PASSWORD_REQUIRED".to_owned()));
    let missing = app.mock(Method::GET, "/mock/no-such-project/pets", &[], None).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

/// Sets a password hash in the store directly (no API sets one yet), as
/// another node would; the mock's snapshot cache sees it within a second.
async fn protect_with_password(app: &TestApp, slug: &str) {
    const SQL: &str = "UPDATE projects SET password_hash = 'x' WHERE slug = $1";
    match app.hub.db() {
        platform::Db::Sqlite(pool) => sqlx::query(SQL).bind(slug).execute(pool).await.map(|_| ()).unwrap(),
        platform::Db::Postgres(pool) => sqlx::query(SQL).bind(slug).execute(pool).await.map(|_| ()).unwrap(),
    }
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
}

async fn rule_3_graphql(app: TestApp) {
    let (_, token) = app.user("gql@example.com", Plan::Free).await;
    let slug = app.project(&token, "Graph").await;
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    app.push(&slug, &token, "label=g1", GRAPHQL_SDL).await;
    let path = format!("/mock/{slug}/graphql");
    let query = json!({
        "query": "query Q($id: ID!) { one: book(id: $id) { ...F } books { title } } fragment F on Book { id __typename }",
        "variables": {"id": "1"}
    });
    let answer = app.mock(Method::POST, &path, &[("content-type", "application/json")], Some(&query.to_string())).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(header(&answer, "x-mock-synth"), "graphql-schema-walk");
    let data = &answer.json()["data"];
    assert!(uuid::Uuid::parse_str(data["one"]["id"].as_str().unwrap()).is_ok());
    assert_eq!(data["one"]["__typename"], "Book");
    assert_eq!(data["one"].as_object().unwrap().len(), 2, "only the selected fields");
    assert_eq!(data["books"].as_array().unwrap().len(), 2, "lists of two");
    let mutation = json!({"query": "mutation { addBook(title: \"x\") { title } }"});
    let added = app.mock(Method::POST, &path, &[], Some(&mutation.to_string())).await.json();
    assert!(added["data"]["addBook"]["title"].is_string());
    let introspection = json!({"query": "{ __schema { queryType { name } mutationType { name } } }"});
    let schema = app.mock(Method::POST, &path, &[], Some(&introspection.to_string())).await.json();
    assert_eq!(schema["data"]["__schema"]["mutationType"]["name"], "Mutation");
    let bad = app.mock(Method::POST, &path, &[], Some(r#"{"query": "{ nope }"}"#)).await;
    assert_eq!(bad.status, StatusCode::OK, "GraphQL errors come with 200");
    assert!(bad.json()["errors"][0]["message"].as_str().unwrap().contains("nope"));
    let garbage = app.mock(Method::POST, &path, &[], Some("not json")).await;
    assert_eq!(garbage.status, StatusCode::OK);
    assert!(garbage.json()["errors"].is_array());
    let get = app.mock(Method::GET, &format!("{path}?query=%7B%20books%20%7B%20id%20%7D%20%7D"), &[], None).await;
    assert_eq!(get.json()["data"]["books"].as_array().unwrap().len(), 2);
}

async fn rule_4_prefer_code_and_examples(app: TestApp) {
    let (slug, _) = public_project(&app, "prefer@example.com", Plan::Free).await;
    let pets = format!("/mock/{slug}/pets");
    let not_found = app.mock(Method::GET, &format!("/mock/{slug}/pets/1"), &[("prefer", "code=404")], None).await;
    assert_eq!(not_found.status, StatusCode::NOT_FOUND);
    assert_eq!(header(&not_found, "x-mock-synth"), "schema-walk");
    assert!(not_found.json()["message"].is_string());
    let teapot = app.mock(Method::GET, &format!("/mock/{slug}/pets/1"), &[("prefer", "code=418")], None).await;
    assert_eq!(teapot.status.as_u16(), 418, "a status the description lacks is still honoured");

    let body = Some(r#"{"name":"Tom"}"#);
    let dog = app.mock(Method::POST, &pets, &[KEY, ("prefer", "example=dog")], body).await;
    assert_eq!(dog.json()["name"], "Rex");
    let unknown = app.mock(Method::POST, &pets, &[KEY, ("prefer", "example=eel")], body).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert!(unknown.json()["error"]["message"].as_str().unwrap().contains("cat, dog"));
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..30 {
        let random = app.mock(Method::POST, &pets, &[KEY, ("prefer", "example=random")], body).await;
        seen.insert(random.json()["name"].as_str().unwrap().to_owned());
    }
    assert_eq!(seen.len(), 2, "random visits both examples: {seen:?}");

    // Sequential state lives in the store: a second node continues the cycle.
    let mut names = Vec::new();
    for _ in 0..3 {
        let next = app.mock(Method::POST, &pets, &[KEY, ("prefer", "example=sequential")], body).await;
        names.push(next.json()["name"].as_str().unwrap().to_owned());
    }
    let other_node = hub_http::router_with(
        hub_http::AppState {
            hub: app.hub.clone(),
            cron_secret: kernel::Secret::new(String::new()),
            outbound: platform::outbound::Outbound::default(),
            web: std::sync::Arc::new(hub_http::WebConfig::default()),
        },
        hub_http::mock_server::MockConfig { per_project_per_minute: 0, per_ip_per_minute: 0 },
    );
    let request = axum::http::Request::builder()
        .method(Method::POST)
        .uri(&pets)
        .header("x-api-key", "k")
        .header("prefer", "example=sequential")
        .body(axum::body::Body::from(r#"{"name":"Tom"}"#))
        .unwrap();
    names.push(TestApp::send(&other_node, request).await.json()["name"].as_str().unwrap().to_owned());
    assert_eq!(names, ["Tom", "Rex", "Tom", "Rex"]);
}

async fn rule_5_overrides(app: TestApp) {
    let (slug, token) = public_project(&app, "owner@example.com", Plan::Business).await;
    let base = format!("/api/v1/projects/{slug}/mock/overrides");
    let templated = create_override(&app, &slug, &token, json!({
        "name": "templated",
        "priority": 1,
        "matcher": {"method": "POST", "path": "/pets", "headers": {"X-Scenario": "vip"}, "body": {"owner": {"tier": "gold"}}},
        "response": {
            "status": 202,
            "headers": {"X-Request-Name": "{{request.body.name}}", "Content-Type": "application/vnd.pets+json"},
            "body": {"id": "{{$uuid}}", "name": "{{request.body.name}}", "count": "{{$randomInt:3:3}}",
                     "vip": "{{request.headers.x-scenario}}", "at": "{{$timestamp}}", "odd": "{{$noSuchToken}}"}
        }
    })).await;
    let id = templated["id"].as_str().unwrap().to_owned();
    let catch_all = create_override(
        &app,
        &slug,
        &token,
        json!({
            "priority": 5, "matcher": {"path": "/pets/{petId}"},
            "response": {"status": 200, "body": {"pet": "{{request.path.petId}}", "q": "{{request.query.q}}"}}
        }),
    )
    .await;

    let request_body = r#"{"name": "Tom", "owner": {"tier": "gold", "since": 2020}}"#;
    let hit = app.mock(Method::POST, &format!("/mock/{slug}/pets"), &[("x-scenario", "vip")], Some(request_body)).await;
    assert_eq!(hit.status, StatusCode::ACCEPTED, "overrides skip the auth the spec requires");
    assert_eq!(header(&hit, "x-mock-synth"), "override");
    assert_eq!(header(&hit, "x-mock-override-id"), id);
    assert_eq!(header(&hit, "x-request-name"), "Tom");
    assert_eq!(header(&hit, "content-type"), "application/vnd.pets+json");
    let body = hit.json();
    assert!(uuid::Uuid::parse_str(body["id"].as_str().unwrap()).is_ok());
    assert_eq!((body["name"].as_str(), body["count"].as_i64()), (Some("Tom"), Some(3)), "numbers stay numbers");
    assert_eq!(body["vip"], "vip");
    assert!(body["at"].as_i64().unwrap() > 1_700_000_000);
    assert_eq!(body["odd"], "{{$noSuchToken}}", "unknown tokens are left as written");
    let miss = app.mock(Method::POST, &format!("/mock/{slug}/pets"), &[KEY], Some(r#"{"name":"Tom"}"#)).await;
    assert_eq!(header(&miss, "x-mock-synth"), "example", "a partial body mismatch falls through to the spec");

    let param = app.mock(Method::GET, &format!("/mock/{slug}/pets/42?q=x"), &[], None).await;
    assert_eq!(param.json(), json!({"pet": "42", "q": "x"}));

    // Priority: lower first; disabling and editing take effect at once.
    let urgent = create_override(
        &app,
        &slug,
        &token,
        json!({
            "priority": 0, "matcher": {"method": "GET", "path": "/pets/*"}, "response": {"status": 410, "body": "gone"}
        }),
    )
    .await;
    let gone = app.mock(Method::GET, &format!("/mock/{slug}/pets/42"), &[], None).await;
    assert_eq!((gone.status, &gone.body[..]), (StatusCode::GONE, &b"gone"[..]));
    let urgent_id = urgent["id"].as_str().unwrap();
    let patched = app.patch_json(&format!("{base}/{urgent_id}"), &token, &json!({"enabled": false})).await;
    assert_eq!(patched.json()["enabled"], false);
    let back = app.mock(Method::GET, &format!("/mock/{slug}/pets/42"), &[], None).await;
    assert_eq!(back.json()["pet"], "42");

    // Duplicates start disabled; latency is applied.
    let copy =
        app.post_json(&format!("{base}/{}/duplicate", catch_all["id"].as_str().unwrap()), &token, &json!({})).await;
    assert_eq!((copy.status, copy.json()["enabled"].as_bool()), (StatusCode::CREATED, Some(false)));
    let slow = create_override(&app, &slug, &token, json!({
        "priority": -1, "latencyMs": 300, "matcher": {"path": "/open"}, "response": {"status": 200, "body": {"slow": true}}
    })).await;
    let started = Instant::now();
    let waited = app.mock(Method::GET, &format!("/mock/{slug}/open"), &[], None).await;
    assert!(started.elapsed().as_millis() >= 300 && waited.json()["slow"] == true);

    // Limits, validation, the role gate and the audit log.
    for (bad, field) in [
        (json!({"matcher": {"path": "/x"}, "response": {"status": 200}, "latencyMs": 10_001}), "latencyMs"),
        (json!({"matcher": {"path": "x"}, "response": {"status": 200}}), "matcher.path"),
        (json!({"matcher": {"path": "/x", "method": "FETCH"}, "response": {}}), "matcher.method"),
        (json!({"matcher": {"path": "/x"}, "response": {"status": 700}}), "response.status"),
        (json!({"matcher": {"path": "/x"}, "response": {}, "surprise": 1}), "body"),
    ] {
        let refused = app.post_json(&base, &token, &bad).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(refused.json()["error"]["details"]["field"], field, "{bad}");
    }
    let count = app.get(&base, &token).await.json()["items"].as_array().unwrap().len();
    for i in count..50 {
        create_override(&app, &slug, &token, json!({"matcher": {"path": format!("/fill/{i}")}, "response": {}})).await;
    }
    let over = app.post_json(&base, &token, &json!({"matcher": {"path": "/one-more"}, "response": {}})).await;
    assert_eq!((over.status, over.error_code()), (StatusCode::CONFLICT, "MOCK_OVERRIDE_LIMIT_REACHED".to_owned()));
    let dup = app.post_json(&format!("{base}/{}/duplicate", slow["id"].as_str().unwrap()), &token, &json!({})).await;
    assert_eq!(dup.status, StatusCode::CONFLICT, "duplicates count too");

    app.user("viewer@example.com", Plan::Free).await;
    app.hub.add_collaborator("owner@example.com", "viewer@example.com", Role::Viewer).await.unwrap();
    let (_, viewer_token) =
        app.hub.create_token("viewer@example.com", "t", None, hub_core::Source::System).await.unwrap();
    let viewer_token = viewer_token.into_inner();
    assert_eq!(app.get(&base, &viewer_token).await.status, StatusCode::OK);
    let forbidden = app.delete(&format!("{base}/{id}"), &viewer_token).await;
    assert_eq!(forbidden.status, StatusCode::FORBIDDEN);
    let deleted = app.delete(&format!("{base}/{id}"), &token).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&format!("{base}/{id}"), &token).await.status, StatusCode::NOT_FOUND);
    let actions: Vec<String> =
        app.hub.audit_log("owner@example.com").await.unwrap().into_iter().map(|e| e.action).collect();
    for code in ["MOCK_OVERRIDE_CREATED", "MOCK_OVERRIDE_UPDATED", "MOCK_OVERRIDE_DELETED"] {
        assert!(actions.iter().any(|a| a == code), "{code} missing from {actions:?}");
    }
}

async fn rules_6_7_validation_and_auth(app: TestApp) {
    let (slug, token) = public_project(&app, "strict@example.com", Plan::Free).await;
    let pets = format!("/mock/{slug}/pets");
    // Off by default: anything goes.
    let lax = app.mock(Method::POST, &pets, &[], Some(r#"{"nom": 1}"#)).await;
    assert_eq!(lax.status, StatusCode::CREATED);

    let current = settings(&app, &slug, &token, json!({"validateRequests": true, "enforceAuth": true})).await;
    assert_eq!((current["validateRequests"].as_bool(), current["enforceAuth"].as_bool()), (Some(true), Some(true)));

    // Rule 7: 401 with a tailored challenge and a hint, per scheme kind.
    let anonymous = app.mock(Method::GET, &pets, &[], None).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert_eq!(header(&anonymous, "x-mock-synth"), "auth-required");
    assert!(header(&anonymous, "www-authenticate").contains(r#"name="X-API-Key""#));
    assert!(anonymous.json()["error"]["message"].as_str().unwrap().contains("X-API-Key"));
    let keyed = app.mock(Method::GET, &pets, &[KEY], None).await;
    assert_eq!(keyed.status, StatusCode::OK);
    let either = format!("/mock/{slug}/bearer-or-basic");
    let challenge = app.mock(Method::GET, &either, &[], None).await;
    assert_eq!(header(&challenge, "www-authenticate"), r#"Bearer realm="mock", Basic realm="mock""#);
    assert_eq!(app.mock(Method::GET, &either, &[("authorization", "Basic dTpw")], None).await.status, StatusCode::OK);
    assert_eq!(app.mock(Method::GET, &either, &[("authorization", "Bearer t")], None).await.status, StatusCode::OK);
    assert_eq!(
        app.mock(Method::GET, &either, &[("authorization", "Digest x")], None).await.status,
        StatusCode::UNAUTHORIZED
    );
    for path in ["oauth", "oidc"] {
        let url = format!("/mock/{slug}/{path}");
        assert_eq!(app.mock(Method::GET, &url, &[], None).await.status, StatusCode::UNAUTHORIZED);
        assert_eq!(app.mock(Method::GET, &url, &[("authorization", "Bearer t")], None).await.status, StatusCode::OK);
    }
    let qc = format!("/mock/{slug}/query-or-cookie");
    assert_eq!(app.mock(Method::GET, &qc, &[], None).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.mock(Method::GET, &format!("{qc}?api_key=1"), &[], None).await.status, StatusCode::OK);
    assert_eq!(app.mock(Method::GET, &qc, &[("cookie", "a=b; session=s")], None).await.status, StatusCode::OK);
    let opted_out = app.mock(Method::GET, &format!("/mock/{slug}/open"), &[], None).await;
    assert_eq!(opted_out.status, StatusCode::OK, "security: [] opts out");

    // Rule 6: field-level paths for the body, query and headers.
    let bad_body = app.mock(Method::POST, &pets, &[KEY], Some(r#"{"name": "x", "status": "lost", "extra": 1}"#)).await;
    assert_eq!(bad_body.status, StatusCode::BAD_REQUEST);
    assert_eq!(header(&bad_body, "x-mock-synth"), "validation-error");
    let issues = bad_body.json()["error"]["details"]["issues"].clone();
    let paths: Vec<&str> = issues.as_array().unwrap().iter().map(|i| i["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&"body.name") && paths.contains(&"body.status") && paths.contains(&"body"), "{issues}");
    let missing = app.mock(Method::POST, &pets, &[KEY], None).await;
    assert_eq!(missing.json()["error"]["details"]["issues"][0]["path"], "body");
    let not_json = app.mock(Method::POST, &pets, &[KEY], Some("{")).await;
    assert!(not_json.json()["error"]["message"].as_str().unwrap().contains("not valid JSON"));
    let query = app.mock(Method::GET, &format!("{pets}?limit=500"), &[KEY], None).await;
    assert_eq!(query.json()["error"]["details"]["issues"][0]["path"], "query.limit");
    let typed = app.mock(Method::GET, &format!("{pets}?limit=ten"), &[KEY], None).await;
    assert_eq!(typed.json()["error"]["details"]["issues"][0]["path"], "query.limit");
    let head = app.mock(Method::GET, &pets, &[KEY, ("x-trace", "ABC")], None).await;
    assert_eq!(head.json()["error"]["details"]["issues"][0]["path"], "header.X-Trace");
    let path_param = app.mock(Method::GET, &format!("/mock/{slug}/pets/abc"), &[KEY], None).await;
    assert_eq!(path_param.json()["error"]["details"]["issues"][0]["path"], "path.petId");
    let good = app.mock(Method::POST, &pets, &[KEY], Some(r#"{"name": "Tom", "age": 3}"#)).await;
    assert_eq!(good.status, StatusCode::CREATED);

    // Overrides skip both checks.
    create_override(
        &app,
        &slug,
        &token,
        json!({
            "matcher": {"method": "POST", "path": "/pets"}, "response": {"status": 200, "body": {"ok": true}}
        }),
    )
    .await;
    let skipped = app.mock(Method::POST, &pets, &[], Some(r#"{"bad": true}"#)).await;
    assert_eq!((skipped.status, skipped.json()["ok"].as_bool()), (StatusCode::OK, Some(true)));
}

async fn rules_8_9_network_simulation_and_disabled_operations(app: TestApp) {
    let (slug, token) = public_project(&app, "chaos@example.com", Plan::Free).await;
    let pet = format!("/mock/{slug}/pets/1");
    settings(&app, &slug, &token, json!({"latencyMinMs": 20, "latencyMaxMs": 60})).await;
    let started = Instant::now();
    let slow = app.mock(Method::GET, &pet, &[], None).await;
    let latency: u64 = header(&slow, "x-mock-chaos-latency-ms").parse().unwrap();
    assert!((20..=60).contains(&latency));
    assert!(started.elapsed().as_millis() >= u128::from(latency));

    settings(
        &app,
        &slug,
        &token,
        json!({"latencyMaxMs": 0, "latencyMinMs": 0, "chaosErrorRate": 100, "chaosStatus": 503}),
    )
    .await;
    let failed = app.mock(Method::GET, &pet, &[], None).await;
    assert_eq!((failed.status, header(&failed, "x-mock-synth")), (StatusCode::SERVICE_UNAVAILABLE, "chaos-error"));
    settings(&app, &slug, &token, json!({"chaosErrorRate": 50, "chaosStatus": 500})).await;
    let mut statuses = std::collections::BTreeSet::new();
    for _ in 0..40 {
        statuses.insert(app.mock(Method::GET, &pet, &[], None).await.status.as_u16());
    }
    assert_eq!(statuses.into_iter().collect::<Vec<_>>(), vec![200, 500], "about half fail");
    settings(&app, &slug, &token, json!({"chaosErrorRate": 100, "validateRequests": true})).await;
    let invalid = app.mock(Method::GET, &format!("/mock/{slug}/pets/x"), &[], None).await;
    assert_eq!(header(&invalid, "x-mock-synth"), "validation-error", "validation errors bypass chaos");
    create_override(&app, &slug, &token, json!({"matcher": {"path": "/schema-example"}, "response": {"status": 200}}))
        .await;
    let overridden = app.mock(Method::GET, &format!("/mock/{slug}/schema-example"), &[], None).await;
    assert_eq!(overridden.status, StatusCode::OK, "overrides bypass chaos");

    // Limits of the settings.
    for (patch, field) in [
        (json!({"latencyMaxMs": 30_001}), "latencyMaxMs"),
        (json!({"chaosErrorRate": 101}), "chaosErrorRate"),
        (json!({"chaosStatus": 200}), "chaosStatus"),
        (json!({"noSuchSetting": true}), "noSuchSetting"),
    ] {
        let refused = app.patch_json(&format!("/api/v1/projects/{slug}/mock/settings"), &token, &patch).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{patch}");
        assert_eq!(refused.json()["error"]["details"]["field"], field, "{patch}");
    }

    // A maximum below the minimum is raised to it: a fixed latency.
    let fixed = app
        .patch_json(
            &format!("/api/v1/projects/{slug}/mock/settings"),
            &token,
            &json!({"latencyMinMs": 50, "latencyMaxMs": 10}),
        )
        .await;
    assert_eq!((fixed.json()["latencyMinMs"].clone(), fixed.json()["latencyMaxMs"].clone()), (json!(50), json!(50)));
    app.patch_json(
        &format!("/api/v1/projects/{slug}/mock/settings"),
        &token,
        &json!({"latencyMinMs": 0, "latencyMaxMs": 0}),
    )
    .await;

    // Rule 9: disabled by operationId, project-wide or per version.
    settings(
        &app,
        &slug,
        &token,
        json!({"chaosErrorRate": 0, "validateRequests": false, "disabledOperations": ["getPet"]}),
    )
    .await;
    let disabled = app.mock(Method::GET, &pet, &[], None).await;
    assert_eq!(
        (disabled.status, disabled.error_code()),
        (StatusCode::SERVICE_UNAVAILABLE, "OPERATION_DISABLED".to_owned())
    );
    settings(&app, &slug, &token, json!({"disabledOperations": [], "disabledByVersion": {"v2": ["getPet"]}})).await;
    assert_eq!(app.mock(Method::GET, &pet, &[], None).await.status, StatusCode::OK, "v1 still serves it");
    app.push(&slug, &token, "label=v2&makeDefault=true", FIXTURE).await;
    let in_v2 = app.mock(Method::GET, &format!("/mock/{slug}@v2/pets/1"), &[], None).await;
    assert_eq!(in_v2.status, StatusCode::SERVICE_UNAVAILABLE);
}

async fn rule_10_export_and_import(app: TestApp) {
    let (slug, token) = public_project(&app, "bundle@example.com", Plan::Free).await;
    let base = format!("/api/v1/projects/{slug}/mock/overrides");
    create_override(&app, &slug, &token, json!({"name": "a", "matcher": {"path": "/a"}, "response": {"status": 201}}))
        .await;
    create_override(&app, &slug, &token, json!({"name": "b", "matcher": {"path": "/b"}, "response": {"status": 202}}))
        .await;
    let export = app.get(&format!("{base}/export"), &token).await;
    assert!(header(&export, "content-disposition").contains("mock-overrides.json"));
    let bundle = export.json();
    assert_eq!((bundle["format"].as_str(), bundle["version"].as_u64()), (Some("svc-mock-overrides"), Some(1)));
    assert_eq!(bundle["overrides"].as_array().unwrap().len(), 2);
    assert!(bundle["overrides"][0].get("id").is_none(), "project-local ids are stripped");

    // Into another project: merge keeps, replace swaps; malformed entries are skipped.
    let other = app.project(&token, "Other").await;
    let other_base = format!("/api/v1/projects/{other}/mock/overrides");
    create_override(&app, &other, &token, json!({"matcher": {"path": "/mine"}, "response": {}})).await;
    let mut with_junk = bundle.clone();
    with_junk["overrides"].as_array_mut().unwrap().push(json!({"matcher": {"path": "nope"}, "response": {}}));
    with_junk["overrides"].as_array_mut().unwrap().push(json!(42));
    with_junk["overrides"][0]["id"] = json!("foreign-id");
    let merged = app.post_json(&format!("{other_base}/import?mode=merge"), &token, &with_junk).await.json();
    assert_eq!((merged["imported"].as_u64(), merged["total"].as_u64()), (Some(2), Some(3)));
    assert_eq!(
        merged["skipped"].as_array().unwrap().iter().map(|s| s["index"].as_u64().unwrap()).collect::<Vec<_>>(),
        vec![2, 3]
    );
    let items = app.get(&other_base, &token).await.json()["items"].clone();
    assert!(items.as_array().unwrap().iter().all(|i| i["id"] != "foreign-id"));
    let replaced = app.post_json(&format!("{other_base}/import?mode=replace"), &token, &bundle).await.json();
    assert_eq!(replaced["total"], 2);
    let names: Vec<String> = app.get(&other_base, &token).await.json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["a", "b"]);

    // Capacity is checked before anything is written.
    let mut big = bundle.clone();
    big["overrides"] =
        json!((0..49).map(|i| json!({"matcher": {"path": format!("/p{i}")}, "response": {}})).collect::<Vec<_>>());
    let full = app.post_json(&format!("{other_base}/import?mode=merge"), &token, &big).await;
    assert_eq!(full.error_code(), "MOCK_OVERRIDE_LIMIT_REACHED");
    assert_eq!(app.get(&other_base, &token).await.json()["items"].as_array().unwrap().len(), 2);
    let wrong = app
        .post_json(&format!("{other_base}/import"), &token, &json!({"format": "x", "version": 1, "overrides": []}))
        .await;
    assert_eq!(wrong.json()["error"]["details"]["field"], "format");
    let mode = app.post_json(&format!("{other_base}/import?mode=upsert"), &token, &bundle).await;
    assert_eq!(mode.json()["error"]["details"]["field"], "mode");
}

async fn rule_11_versions(app: TestApp) {
    let (_, token) = app.user("versions@example.com", Plan::Free).await;
    let slug = app.project(&token, "Versions").await;
    app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({"is_public": true})).await;
    let only_a = "openapi: 3.0.3\ninfo: {title: A, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              example: {from: v1}\n";
    let only_b = "openapi: 3.0.3\ninfo: {title: B, version: '2'}\npaths:\n  /b:\n    get:\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              example: {from: v2}\n";
    app.push(&slug, &token, "label=v1", only_a).await;
    app.push(&slug, &token, "label=v2&makeDefault=true", only_b).await;
    let b = app.mock(Method::GET, &format!("/mock/{slug}/b"), &[], None).await;
    assert_eq!((b.json()["from"].as_str(), header(&b, "x-mock-version")), (Some("v2"), "v2"));
    let a = app.mock(Method::GET, &format!("/mock/{slug}/a"), &[], None).await;
    assert_eq!((a.json()["from"].as_str(), header(&a, "x-mock-version")), (Some("v1"), "v1"), "all-REST falls through");
    let pinned = app.mock(Method::GET, &format!("/mock/{slug}@v1/b"), &[], None).await;
    assert_eq!(pinned.status, StatusCode::NOT_FOUND, "a per-version URL serves only that version");
    let unknown = app.mock(Method::GET, &format!("/mock/{slug}@v9/a"), &[], None).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    // Mixing REST and GraphQL: per-version URLs, no fall-through.
    app.push(&slug, &token, "label=graph", GRAPHQL_SDL).await;
    let no_fallthrough = app.mock(Method::GET, &format!("/mock/{slug}/a"), &[], None).await;
    assert_eq!(no_fallthrough.status, StatusCode::NOT_FOUND);
    let query = json!({"query": "{ books { title } }"}).to_string();
    let graph = app.mock(Method::POST, &format!("/mock/{slug}@graph/graphql"), &[], Some(&query)).await;
    assert_eq!(graph.json()["data"]["books"].as_array().unwrap().len(), 2);
    assert_eq!(header(&graph, "x-mock-version"), "graph");
    let v1 = app.mock(Method::GET, &format!("/mock/{slug}@v1/a"), &[], None).await;
    assert_eq!(v1.json()["from"], "v1");
}

async fn limits_rate_and_request_log(app: TestApp) {
    let (slug, token) = public_project(&app, "limits@example.com", Plan::Free).await;
    let pet = format!("/mock/{slug}/pets/1");
    // The default router keeps the seed's limits: 60 per minute per IP.
    let mut limited = None;
    for i in 0..61 {
        let response = app.request(Method::GET, &format!("{pet}?n={i}"), None, None).await;
        if response.status == StatusCode::TOO_MANY_REQUESTS {
            limited = Some((i, response));
            break;
        }
    }
    let (at, limited) = limited.expect("the 61st request in a minute is refused");
    assert_eq!(at, 60);
    assert_eq!(limited.error_code(), "RATE_LIMITED");
    let retry: u64 = limited.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry));

    // The log is readable through the API (written in batches).
    let mut rows = Value::Null;
    for _ in 0..50 {
        rows = app.get(&format!("/api/v1/projects/{slug}/mock/requests?limit=5"), &token).await.json();
        if rows["items"].as_array().is_some_and(|items| items.len() == 5) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let newest = &rows["items"][0];
    assert_eq!((newest["method"].as_str(), newest["path"].as_str()), (Some("GET"), Some("/pets/1")));
    assert!(newest["query"].as_str().unwrap().starts_with("n="));
    assert_eq!((newest["status"].as_i64(), newest["synth"].as_str()), (Some(200), Some("example")));
    assert!(rows["next_before"].is_i64());
    let older = app
        .get(&format!("/api/v1/projects/{slug}/mock/requests?limit=5&before={}", rows["next_before"]), &token)
        .await
        .json();
    assert!(older["items"][0]["id"].as_i64() < newest["id"].as_i64());
    let bad = app.get(&format!("/api/v1/projects/{slug}/mock/requests?limit=0"), &token).await;
    assert_eq!(bad.json()["error"]["details"]["field"], "limit");

    // Retention: rows older than 14 days go with the cron job.
    app.clock.advance_millis(15 * 24 * 60 * 60 * 1000);
    let pruned = app.request(Method::POST, "/api/cron/mock-log-prune", Some(test_kit::CRON_SECRET), None).await.json();
    assert_eq!(pruned["job"], "mock-log-prune");
    assert!(pruned["removed"].as_u64().unwrap() >= 60, "{pruned}");
    let after = app.get(&format!("/api/v1/projects/{slug}/mock/requests"), &token).await.json();
    assert_eq!(after["items"].as_array().unwrap().len(), 0);
}
