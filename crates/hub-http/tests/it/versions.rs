use axum::http::StatusCode;
use hub_core::Plan;
use serde_json::json;
use test_kit::{TestApp, on_both_stores};

use crate::{GRAPHQL_SDL, SWAGGER_JSON, openapi_yaml};

on_both_stores!(
    formats_are_sniffed_and_first_version_is_default,
    promotion_demotes_the_previous_default,
    default_version_is_protected,
    soft_deactivation_and_reactivation,
    repushing_a_label_replaces_its_spec,
    oversized_and_broken_specs_are_refused,
    version_base_url_and_labels,
);

async fn formats_are_sniffed_and_first_version_is_default(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Formats").await;
    let json_spec = serde_json::to_string(&json!({
        "openapi": "3.1.0", "info": { "title": "J", "version": "9" },
        "paths": { "/a": { "get": { "responses": { "200": { "description": "ok" } } } } }
    }))
    .unwrap();
    let cases = [
        ("label=yaml", openapi_yaml("1.0"), "openapi3", 2),
        ("label=json", json_spec, "openapi3", 1),
        ("label=swagger", SWAGGER_JSON.to_owned(), "swagger2", 1),
        ("label=graphql", GRAPHQL_SDL.to_owned(), "graphql", 3),
    ];
    for (i, (query, body, format, operations)) in cases.into_iter().enumerate() {
        let size = body.len();
        let response = app.push(&slug, &token, query, body).await;
        assert_eq!(response.status, StatusCode::CREATED, "{query}: {}", String::from_utf8_lossy(&response.body));
        let version = response.json();
        assert_eq!(version["spec_format"], format, "{query}");
        assert_eq!(version["spec_size"], size, "{query}");
        assert_eq!(version["operation_count"], operations, "{query}");
        assert_eq!(version["is_default"], i == 0, "only the first version becomes default");
        assert_eq!(version["is_active"], true);
        assert_eq!(version["version_label"], query.trim_start_matches("label="));
        assert!(version["id"].as_str().is_some_and(|id| !id.is_empty()));
    }
    let listed = app.get(&format!("/api/v1/projects/{slug}/versions"), &token).await.json();
    assert_eq!(listed["pagination"]["total"], 4);
    let defaults = listed["data"].as_array().unwrap().iter().filter(|v| v["is_default"] == true).count();
    assert_eq!(defaults, 1);
    // Without a label the document's own version is used.
    let unlabelled = app.push(&slug, &token, "", openapi_yaml("3.2.1")).await.json();
    assert_eq!(unlabelled["version_label"], "3.2.1");
    let sdl = app.push(&slug, &token, "", GRAPHQL_SDL).await.json();
    assert!(sdl["version_label"].as_str().unwrap().starts_with("2026-11-22T"), "{sdl}");
}

async fn promotion_demotes_the_previous_default(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Promo").await;
    app.push(&slug, &token, "label=v1", openapi_yaml("1")).await;
    app.push(&slug, &token, "label=v2", openapi_yaml("2")).await;
    let pushed_default = app.push(&slug, &token, "label=v3&makeDefault=true", openapi_yaml("3")).await.json();
    assert_eq!(pushed_default["is_default"], true);
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}/versions/v1"), &token).await.json()["is_default"], false);
    let promoted =
        app.patch_json(&format!("/api/v1/projects/{slug}/versions/v2"), &token, &json!({ "is_default": true })).await;
    assert_eq!(promoted.status, StatusCode::OK);
    assert_eq!(promoted.json()["is_default"], true);
    let versions = app.get(&format!("/api/v1/projects/{slug}/versions"), &token).await.json();
    let defaults: Vec<_> = versions["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v["is_default"] == true)
        .map(|v| v["version_label"].clone())
        .collect();
    assert_eq!(defaults, vec![json!("v2")]);
    // Promoting the default again is a no-op, not an error.
    let again =
        app.patch_json(&format!("/api/v1/projects/{slug}/versions/v2"), &token, &json!({ "is_default": true })).await;
    assert_eq!(again.status, StatusCode::OK);
}

async fn default_version_is_protected(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Protect").await;
    app.push(&slug, &token, "label=v1", openapi_yaml("1")).await;
    app.push(&slug, &token, "label=v2", openapi_yaml("2")).await;
    let delete_default = app.delete(&format!("/api/v1/projects/{slug}/versions/v1"), &token).await;
    assert_eq!(delete_default.status, StatusCode::CONFLICT);
    assert_eq!(delete_default.error_code(), "CONFLICT");
    // Seed 000: "any write that would leave the project without a default
    // -> 400 VALIDATION_ERROR"; only the DELETE above is 409.
    let undefault =
        app.patch_json(&format!("/api/v1/projects/{slug}/versions/v1"), &token, &json!({ "is_default": false })).await;
    assert_eq!((undefault.status, undefault.error_code().as_str()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"));
    assert!(undefault.json()["error"]["message"].as_str().unwrap().contains("without a default version"));
    assert_eq!(undefault.json()["error"]["details"]["field"], "is_default");
    let deactivate_default =
        app.patch_json(&format!("/api/v1/projects/{slug}/versions/v1"), &token, &json!({ "is_active": false })).await;
    assert_eq!(
        (deactivate_default.status, deactivate_default.error_code().as_str()),
        (StatusCode::BAD_REQUEST, "VALIDATION_ERROR")
    );
    assert!(deactivate_default.json()["error"]["message"].as_str().unwrap().contains("cannot be deactivated"));
    assert_eq!(deactivate_default.json()["error"]["details"]["field"], "is_active");
    let both = app
        .patch_json(
            &format!("/api/v1/projects/{slug}/versions/v1"),
            &token,
            &json!({ "is_default": false, "is_active": false }),
        )
        .await;
    assert_eq!((both.status, both.error_code().as_str()), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"));
    let delete_other = app.delete(&format!("/api/v1/projects/{slug}/versions/v2"), &token).await;
    assert_eq!(delete_other.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}/versions/v2"), &token).await.status, StatusCode::NOT_FOUND);
    let v1 = app.get(&format!("/api/v1/projects/{slug}/versions/v1"), &token).await.json();
    assert_eq!((v1["is_default"].clone(), v1["is_active"].clone()), (json!(true), json!(true)));
    let missing = app.delete(&format!("/api/v1/projects/{slug}/versions/nope"), &token).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
}

async fn soft_deactivation_and_reactivation(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Soft").await;
    app.push(&slug, &token, "label=v1", openapi_yaml("1")).await;
    app.push(&slug, &token, "label=v2", openapi_yaml("2")).await;
    let path = format!("/api/v1/projects/{slug}/versions/v2");
    let off = app.patch_json(&path, &token, &json!({ "is_active": false })).await.json();
    assert_eq!(off["is_active"], false);
    let listed = app.get(&format!("/api/v1/projects/{slug}/versions"), &token).await.json();
    assert_eq!(listed["pagination"]["total"], 2, "an inactive version remains stored and listed");
    let promote_inactive = app.patch_json(&path, &token, &json!({ "is_default": true })).await;
    assert_eq!(
        (promote_inactive.status, promote_inactive.error_code().as_str()),
        (StatusCode::BAD_REQUEST, "VALIDATION_ERROR")
    );
    let repush_default_inactive = app.push(&slug, &token, "label=v2&makeDefault=true", openapi_yaml("2")).await;
    assert_eq!(repush_default_inactive.status, StatusCode::BAD_REQUEST);
    let both = app.patch_json(&path, &token, &json!({ "is_active": true, "is_default": true })).await.json();
    assert_eq!((both["is_active"].clone(), both["is_default"].clone()), (json!(true), json!(true)));
    let bad = app.patch_json(&path, &token, &json!({ "is_active": "no" })).await;
    assert_eq!(bad.json()["error"]["details"]["field"], "is_active");
}

async fn repushing_a_label_replaces_its_spec(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Repush").await;
    let first = app.push(&slug, &token, "label=stable", openapi_yaml("1")).await;
    assert_eq!(first.status, StatusCode::CREATED);
    app.clock.advance_millis(1000);
    let second = app.push(&slug, &token, "label=stable", SWAGGER_JSON).await;
    assert_eq!(second.status, StatusCode::OK);
    let (a, b) = (first.json(), second.json());
    assert_eq!(a["id"], b["id"]);
    assert_eq!(b["spec_format"], "swagger2");
    assert_ne!(a["spec_sha256"], b["spec_sha256"]);
    assert_eq!(b["created_at"], a["created_at"]);
    assert_ne!(b["updated_at"], a["updated_at"]);
    assert_eq!(b["is_default"], true);
}

async fn oversized_and_broken_specs_are_refused(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Limits").await;
    let mut big = openapi_yaml("1").into_bytes();
    big.resize(50 * 1024 * 1024 + 1, b' ');
    let too_large = app.push(&slug, &token, "label=big", big).await;
    assert_eq!(too_large.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(too_large.error_code(), "PAYLOAD_TOO_LARGE");
    assert_eq!(too_large.json()["error"]["details"]["limit_bytes"], 52_428_800);
    let mut at_limit = openapi_yaml("1").into_bytes();
    at_limit.resize(50 * 1024 * 1024, b' ');
    let fits = app.push(&slug, &token, "label=fits", at_limit).await;
    assert_eq!(fits.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&fits.body));
    assert_eq!(fits.json()["spec_size"], 52_428_800);
    let broken = app.push(&slug, &token, "label=broken", "openapi: 3.0.0\ninfo: [\n").await;
    assert_eq!(broken.status, StatusCode::BAD_REQUEST);
    let details = &broken.json()["error"]["details"];
    assert_eq!(details["field"], "body");
    assert!(details["line"].as_u64().is_some(), "{details}");
    let empty = app.push(&slug, &token, "label=empty", "").await;
    assert_eq!(empty.status, StatusCode::BAD_REQUEST);
    for query in ["makeDefault=maybe", "pr=abc", "label=a/b", "pr=5"] {
        let response = app.push(&slug, &token, query, openapi_yaml("1")).await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{query}");
        assert_eq!(response.error_code(), "VALIDATION_ERROR");
    }
    let listed = app.get(&format!("/api/v1/projects/{slug}/versions"), &token).await.json();
    assert_eq!(listed["pagination"]["total"], 1, "refused pushes store nothing");
}

async fn version_base_url_and_labels(app: TestApp) {
    let (_, token) = app.user("ada@example.com", Plan::Pro).await;
    let slug = app.project(&token, "Labels").await;
    let pushed = app.push(&slug, &token, "label=2024-01%20beta", openapi_yaml("1")).await;
    assert_eq!(pushed.json()["version_label"], "2024-01 beta");
    let path = format!("/api/v1/projects/{slug}/versions/2024-01%20beta");
    let rebased = app.patch_json(&path, &token, &json!({ "base_url": "https://staging.example.com" })).await.json();
    assert_eq!(rebased["base_url"], "https://staging.example.com");
    let invalid = app.patch_json(&path, &token, &json!({ "base_url": "javascript:alert(1)" })).await;
    assert_eq!(invalid.json()["error"]["details"]["field"], "base_url");
    let unknown = app.patch_json(&path, &token, &json!({ "label": "x" })).await;
    assert_eq!(unknown.status, StatusCode::BAD_REQUEST);
}
