use axum::http::StatusCode;
use hub_core::Plan;
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

on_both_stores!(
    create_get_and_slug_generation,
    name_is_required_and_fields_are_checked,
    list_envelope_filter_and_pagination,
    patch_is_sparse_and_custom_domain_needs_business,
    delete_cascades_to_versions,
    free_plan_project_cap,
    secrets_never_appear_in_responses,
);

async fn create_get_and_slug_generation(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let created = app.post_json("/api/v1/projects", &token, &json!({ "name": "Payments API" })).await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(created.headers["location"], "/api/v1/projects/payments-api");
    let body = created.json();
    assert_eq!(body["slug"], "payments-api");
    assert_eq!(body["name"], "Payments API");
    assert_eq!(body["is_public"], false);
    assert!(body["created_at"].as_str().unwrap().ends_with('Z'));
    // The same name again gets the next free suffix; slugs are global.
    let (_, other) = app.user("bo@example.com", Plan::Pro).await;
    let second = app.post_json("/api/v1/projects", &other, &json!({ "name": "Payments  API!" })).await;
    assert_eq!(second.json()["slug"], "payments-api-2");
    // An explicit slug that is taken is a conflict, not a silent rename.
    let taken = app.post_json("/api/v1/projects", &token, &json!({ "name": "X", "slug": "payments-api-2" })).await;
    assert_eq!(taken.status, StatusCode::CONFLICT);
    assert_eq!(taken.error_code(), "CONFLICT");
    let fetched = app.get("/api/v1/projects/payments-api", &token).await;
    assert_eq!(fetched.status, StatusCode::OK);
    assert_eq!(fetched.json()["id"], body["id"]);
    // Another user's project answers exactly like a missing one.
    let hidden = app.get("/api/v1/projects/payments-api", &other).await;
    let missing = app.get("/api/v1/projects/does-not-exist", &other).await;
    assert_eq!((hidden.status, hidden.error_code()), (StatusCode::NOT_FOUND, "NOT_FOUND".to_owned()));
    assert_eq!(hidden.body, missing.body, "no difference a caller could observe");
}

async fn name_is_required_and_fields_are_checked(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Free).await;
    let cases = [
        (json!({}), "name"),
        (json!({ "name": "   " }), "name"),
        (json!({ "name": 42 }), "name"),
        (json!({ "name": "ok", "slug": "Bad Slug" }), "slug"),
        (json!({ "name": "ok", "base_url": "not a url" }), "base_url"),
        (json!({ "name": "ok", "colour": "red" }), "colour"),
        (json!({ "name": "x".repeat(201) }), "name"),
    ];
    for (body, field) in cases {
        let response = app.post_json("/api/v1/projects", &token, &body).await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(response.error_code(), "VALIDATION_ERROR");
        assert_eq!(response.json()["error"]["details"]["field"], field, "{body}");
    }
    let not_json = app.request(axum::http::Method::POST, "/api/v1/projects", Some(&token), Some("{nope".into())).await;
    assert_eq!(not_json.status, StatusCode::BAD_REQUEST);
    assert_eq!(not_json.json()["error"]["details"]["line"], 1);
    let array = app.post_json("/api/v1/projects", &token, &json!([1])).await;
    assert_eq!(array.status, StatusCode::BAD_REQUEST);
}

async fn list_envelope_filter_and_pagination(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Business).await;
    for i in 0..7 {
        app.project(&token, &format!("Service {i}")).await;
    }
    app.project(&token, "Billing 100% done").await;
    let all = app.get("/api/v1/projects", &token).await.json();
    assert_eq!(all["pagination"], json!({ "total": 8, "limit": 50, "offset": 0 }));
    assert_eq!(all["data"].as_array().unwrap().len(), 8);
    // Newest first.
    assert_eq!(all["data"][0]["slug"], "billing-100-done");
    let page = app.get("/api/v1/projects?limit=3&offset=2", &token).await.json();
    assert_eq!(page["pagination"], json!({ "total": 8, "limit": 3, "offset": 2 }));
    assert_eq!(page["data"].as_array().unwrap().len(), 3);
    assert_eq!(page["data"][0]["slug"], all["data"][2]["slug"]);
    let clamped_low = app.get("/api/v1/projects?limit=0", &token).await.json();
    assert_eq!(clamped_low["pagination"]["limit"], 1);
    assert_eq!(clamped_low["data"].as_array().unwrap().len(), 1);
    let clamped_high = app.get("/api/v1/projects?limit=1000", &token).await.json();
    assert_eq!(clamped_high["pagination"]["limit"], 100);
    let beyond = app.get("/api/v1/projects?offset=100", &token).await.json();
    assert_eq!(beyond["data"], json!([]));
    assert_eq!(beyond["pagination"]["total"], 8);
    for bad in ["limit=abc", "limit=1.5", "offset=-1", "offset=x"] {
        let response = app.get(&format!("/api/v1/projects?{bad}"), &token).await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{bad}");
        let field = bad.split('=').next().unwrap();
        assert_eq!(response.json()["error"]["details"]["field"], field);
    }
    let filtered = app.get("/api/v1/projects?q=SERVICE%205", &token).await.json();
    assert_eq!(filtered["pagination"]["total"], 1);
    assert_eq!(filtered["data"][0]["slug"], "service-5");
    // LIKE wildcards in q are literal.
    let percent = app.get("/api/v1/projects?q=100%25", &token).await.json();
    assert_eq!(percent["pagination"]["total"], 1);
    let underscore = app.get("/api/v1/projects?q=_", &token).await.json();
    assert_eq!(underscore["pagination"]["total"], 0);
}

async fn patch_is_sparse_and_custom_domain_needs_business(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Docs").await;
    let path = format!("/api/v1/projects/{slug}");
    let renamed = app.patch_json(&path, &token, &json!({ "name": "Docs v2" })).await.json();
    assert_eq!(renamed["name"], "Docs v2");
    assert_eq!(renamed["is_public"], false, "untouched fields stay");
    assert_eq!(renamed["slug"], slug, "renaming keeps the slug");
    let public = app
        .patch_json(&path, &token, &json!({ "is_public": true, "base_url": "https://api.example.com" }))
        .await
        .json();
    assert_eq!(
        (public["is_public"].clone(), public["base_url"].clone()),
        (json!(true), json!("https://api.example.com"))
    );
    assert_eq!(public["name"], "Docs v2");
    let cleared = app.patch_json(&path, &token, &json!({ "base_url": null })).await.json();
    assert_eq!(cleared["base_url"], json!(null));
    let gated = app.patch_json(&path, &token, &json!({ "custom_domain": "docs.example.com" })).await;
    assert_eq!(gated.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(gated.error_code(), "PLAN_REQUIRED");
    assert_eq!(
        gated.json()["error"]["details"],
        json!({ "feature": "custom_domain", "required_plan": "business", "current_plan": "pro" })
    );
    app.hub.set_plan("ada@example.com", Plan::Business).await.unwrap();
    let domain = app.patch_json(&path, &token, &json!({ "custom_domain": "Docs.Example.com" })).await;
    assert_eq!(domain.status, StatusCode::OK);
    assert_eq!(domain.json()["custom_domain"], "docs.example.com");
    let invalid = app.patch_json(&path, &token, &json!({ "custom_domain": "not a host" })).await;
    assert_eq!(invalid.json()["error"]["details"]["field"], "custom_domain");
    let unknown = app.patch_json(&path, &token, &json!({ "slug": "new" })).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
    assert_eq!(unknown.json()["error"]["details"]["field"], "slug");
    let wrong_type = app.patch_json(&path, &token, &json!({ "is_public": "yes" })).await;
    assert_eq!(wrong_type.json()["error"]["details"]["field"], "is_public");
}

async fn delete_cascades_to_versions(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Temp").await;
    assert_eq!(app.push(&slug, &token, "label=v1", crate::openapi_yaml("1")).await.status, StatusCode::CREATED);
    assert_eq!(app.push(&slug, &token, "label=v2", crate::openapi_yaml("2")).await.status, StatusCode::CREATED);
    let deleted = app.delete(&format!("/api/v1/projects/{slug}"), &token).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert!(deleted.body.is_empty());
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}"), &token).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}/versions/v1"), &token).await.status, StatusCode::NOT_FOUND);
    let remaining = count_versions(&app).await;
    assert_eq!(remaining, 0, "the cascade removed every version row");
}

async fn count_versions(app: &TestApp) -> i64 {
    platform::with_db!(app.hub.db(), |pool| {
        sqlx::query_as::<_, (i64,)>("SELECT COUNT(*) FROM versions").fetch_one(pool).await.unwrap().0
    })
}

async fn free_plan_project_cap(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Free).await;
    app.project(&token, "One").await;
    app.project(&token, "Two").await;
    let third = app.post_json("/api/v1/projects", &token, &json!({ "name": "Three" })).await;
    assert_eq!(third.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(third.error_code(), "PROJECT_LIMIT_REACHED");
    assert_eq!(third.json()["error"]["details"], json!({ "plan": "free", "limit": 2 }));
    app.hub.set_plan("ada@example.com", Plan::Pro).await.unwrap();
    assert_eq!(
        app.post_json("/api/v1/projects", &token, &json!({ "name": "Three" })).await.status,
        StatusCode::CREATED
    );
}

async fn secrets_never_appear_in_responses(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Business).await;
    let slug = app.project(&token, "Secretive").await;
    let responses = [
        app.get(&format!("/api/v1/projects/{slug}"), &token).await,
        app.get("/api/v1/projects", &token).await,
        app.patch_json(&format!("/api/v1/projects/{slug}"), &token, &json!({ "name": "S" })).await,
    ];
    for response in responses {
        let text = String::from_utf8_lossy(&response.body).to_string();
        for secret in ["password_hash", "mcp_token", "upload_token", "token_hash", "owner_id"] {
            assert!(!text.contains(secret), "{secret} leaked in {text}");
        }
    }
}
