use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::support::{TestApp, quiz_course};

on_both_stores!(
    identities_bulk_up_to_500_per_call,
    lists_default_to_50_and_have_no_maximum,
    score_is_null_without_scored_blocks,
    certificates_need_the_passing_score
);

fn learners(range: std::ops::Range<usize>) -> Vec<Value> {
    range.map(|i| json!({ "externalId": format!("user-{i:04}"), "name": format!("Learner {i}") })).collect()
}

async fn identities_bulk_up_to_500_per_call(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let too_many = app.post("/v1/identities/bulk", &key, &json!({ "identities": learners(0..501) })).await;
    assert_eq!(too_many.status, StatusCode::BAD_REQUEST);
    assert_eq!(too_many.error(), "invalid_request");
    assert_eq!(too_many.issue_paths(), vec!["identities"]);
    assert_eq!(too_many.json()["issues"][0]["code"], "too_big");

    let created = app.post("/v1/identities/bulk", &key, &json!({ "identities": learners(0..500) })).await;
    assert_eq!(created.status, StatusCode::OK, "{}", created.text());
    let created = created.json();
    assert_eq!((created["created"].clone(), created["updated"].clone()), (json!(500), json!(0)));
    // Re-sending updates by externalId: a batch size, not a quota.
    let again = app.post("/v1/identities/bulk", &key, &json!({ "identities": learners(400..600) })).await.json();
    assert_eq!((again["created"].clone(), again["updated"].clone()), (json!(100), json!(100)));

    let ids: Vec<Value> = (0..501).map(|i| json!(format!("user-{i:04}"))).collect();
    let too_many = app.delete_json("/v1/identities/bulk", &key, &json!({ "ids": ids })).await;
    assert_eq!(too_many.status, StatusCode::BAD_REQUEST);
    assert_eq!(too_many.issue_paths(), vec!["ids"]);
    let first_id = created["data"][0]["id"].as_str().unwrap().to_owned();
    let mut batch: Vec<Value> = (1..500).map(|i| json!(format!("user-{i:04}"))).collect();
    batch.push(json!(first_id));
    let deleted = app.delete_json("/v1/identities/bulk", &key, &json!({ "ids": batch })).await;
    assert_eq!(deleted.json()["deleted"], 500, "by externalId or id");
    let rest = app.get("/v1/identities?limit=1000", &key).await.json();
    assert_eq!(rest["data"].as_array().unwrap().len(), 100);

    let bad = app
        .post(
            "/v1/identities/bulk",
            &key,
            &json!({ "identities": [{ "externalId": "x", "email": "nope" }, { "name": "no id" }] }),
        )
        .await;
    assert_eq!(bad.issue_paths(), vec!["identities.0.email", "identities.1.externalId"]);
}

async fn lists_default_to_50_and_have_no_maximum(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    app.post("/v1/identities/bulk", &key, &json!({ "identities": learners(0..500) })).await;
    app.post("/v1/identities/bulk", &key, &json!({ "identities": learners(500..620) })).await;
    let default = app.get("/v1/identities", &key).await.json();
    assert_eq!(default["data"].as_array().unwrap().len(), 50);
    assert_eq!(default["pagination"], json!({ "limit": 50, "offset": 0, "hasMore": true }));
    let all = app.get("/v1/identities?limit=10000", &key).await.json();
    assert_eq!(all["data"].as_array().unwrap().len(), 620);
    assert_eq!(all["pagination"]["hasMore"], false);
    let tail = app.get("/v1/identities?limit=600&offset=20", &key).await.json();
    assert_eq!(tail["data"].as_array().unwrap().len(), 600);
    assert_eq!(tail["pagination"]["hasMore"], false);
    let exact = app.get("/v1/identities?limit=619", &key).await.json();
    assert_eq!(exact["pagination"]["hasMore"], true);
    for path in ["/v1/completions", "/v1/issued-certificates"] {
        let empty = app.get(path, &key).await.json();
        assert_eq!(
            empty,
            json!({ "object": "list", "data": [], "pagination": { "limit": 50, "offset": 0, "hasMore": false } })
        );
    }
}

async fn score_is_null_without_scored_blocks(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let learner = app.post("/v1/identities", &key, &json!({ "externalId": "ada", "name": "Ada" })).await.json();
    let unscored = app.course(&key, &json!({ "title": "Read only", "passingScore": 80, "screens": [{ "blocks": [{ "type": "text", "text": "hi" }] }] })).await;
    let completion =
        app.post("/v1/completions", &key, &json!({ "courseId": unscored["id"], "identityId": learner["id"] })).await;
    assert_eq!(completion.status, StatusCode::CREATED, "{}", completion.text());
    let completion = completion.json();
    assert_eq!(completion["score"], Value::Null, "null, not zero");
    assert_eq!(completion["passed"], true);

    let quiz = app.course(&key, &quiz_course(Some(50))).await;
    let wrong = app
        .post(
            "/v1/completions",
            &key,
            &json!({ "courseId": quiz["id"], "identityId": learner["id"], "answers": { "q1": 0, "q2": true } }),
        )
        .await
        .json();
    assert_eq!(wrong["score"], json!(0.0), "zero is zero");
    assert_eq!(wrong["passed"], false);
    let half = app
        .post(
            "/v1/completions",
            &key,
            &json!({ "courseId": quiz["id"], "identityId": learner["id"], "answers": { "q1": 1 } }),
        )
        .await
        .json();
    assert_eq!((half["score"].clone(), half["passed"].clone()), (json!(50.0), json!(true)));
    let listed = app.get("/v1/completions?limit=2", &key).await.json();
    assert_eq!(listed["data"][0]["score"], Value::Null);
    assert_eq!(listed["pagination"]["hasMore"], true);
    let id = half["id"].as_str().unwrap();
    assert_eq!(app.get(&format!("/v1/completions/{id}"), &key).await.json(), half);

    let unknown = app.post("/v1/completions", &key, &json!({ "courseId": "crs_x", "identityId": "idn_x" })).await;
    assert_eq!(unknown.issue_paths(), vec!["courseId", "identityId"]);
}

async fn certificates_need_the_passing_score(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let learner =
        app.post("/v1/identities", &key, &json!({ "externalId": "grace", "name": "Grace Hopper" })).await.json();
    let quiz = app.course(&key, &quiz_course(Some(100))).await;
    let request = json!({ "courseId": quiz["id"], "identityId": learner["id"] });

    let not_done = app.post("/v1/issued-certificates", &key, &request).await;
    assert_eq!(not_done.status, StatusCode::FORBIDDEN);
    assert_eq!(not_done.error(), "not_completed");

    app.post(
        "/v1/completions",
        &key,
        &json!({ "courseId": quiz["id"], "identityId": learner["id"], "answers": { "q1": 1 } }),
    )
    .await;
    let below = app.post("/v1/issued-certificates", &key, &request).await;
    assert_eq!(below.status, StatusCode::FORBIDDEN, "intended behaviour: below passingScore");
    assert_eq!(below.error(), "passing_score_not_met");
    assert!(below.json()["message"].as_str().unwrap().contains("100"));

    app.post(
        "/v1/completions",
        &key,
        &json!({ "courseId": quiz["id"], "identityId": learner["id"], "answers": { "q1": 1, "q2": false } }),
    )
    .await;
    let issued = app.post("/v1/issued-certificates", &key, &request).await;
    assert_eq!(issued.status, StatusCode::CREATED, "{}", issued.text());
    let issued = issued.json();
    assert_eq!(issued["learnerName"], "Grace Hopper");
    assert_eq!(issued["score"], json!(100.0));
    let again = app.post("/v1/issued-certificates", &key, &request).await;
    assert_eq!(again.status, StatusCode::OK, "one certificate per learner and course");
    assert_eq!(again.json()["id"], issued["id"]);

    let id = issued["id"].as_str().unwrap();
    let pdf = app.get(&format!("/v1/issued-certificates/{id}/pdf"), &key).await;
    assert_eq!(pdf.status, StatusCode::OK);
    assert_eq!(pdf.headers["content-type"], "application/pdf");
    assert!(pdf.body.starts_with(b"%PDF-1.4"));
    assert!(pdf.text().contains("(Grace Hopper)") && pdf.text().contains("(Fire safety)"));
    assert_eq!(app.get("/v1/issued-certificates", &key).await.json()["data"][0]["id"], issued["id"]);
}

on_both_stores!(completion_and_certificate_lists_default_to_50_and_have_no_maximum);

async fn completion_and_certificate_lists_default_to_50_and_have_no_maximum(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let created = app.post("/v1/identities/bulk", &key, &json!({ "identities": learners(0..60) })).await.json();
    let ids: Vec<String> =
        created["data"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_owned()).collect();
    for (n, id) in ids.iter().enumerate() {
        // Stay under 120 requests per rolling minute.
        if n == 50 {
            app.clock.advance_millis(61_000);
        }
        let body = json!({ "courseId": course["id"], "identityId": id, "answers": { "q1": 1, "q2": false } });
        assert_eq!(app.post("/v1/completions", &key, &body).await.status, StatusCode::CREATED);
        let body = json!({ "courseId": course["id"], "identityId": id });
        assert_eq!(app.post("/v1/issued-certificates", &key, &body).await.status, StatusCode::CREATED);
    }
    app.clock.advance_millis(61_000);
    for path in ["/v1/completions", "/v1/issued-certificates"] {
        let page = app.get(path, &key).await.json();
        assert_eq!(page["data"].as_array().unwrap().len(), 50, "{path}");
        assert_eq!(page["pagination"], json!({ "limit": 50, "offset": 0, "hasMore": true }));
        let all = app.get(&format!("{path}?limit=100000"), &key).await.json();
        assert_eq!(all["data"].as_array().unwrap().len(), 60, "{path}: no maximum");
        assert_eq!(all["pagination"]["hasMore"], false);
        let tail = app.get(&format!("{path}?limit=50&offset=50"), &key).await.json();
        assert_eq!(tail["data"].as_array().unwrap().len(), 10);
        assert_eq!(tail["data"][9]["identityId"], json!(ids[59]), "{path}: oldest first");
    }
}
