use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(
    courses_crud_keeps_unknown_fields,
    validation_failures_list_issues_with_paths,
    theme_and_certificate_must_belong_to_the_workspace,
    screens_add_reorder_duplicate_delete,
    blocks_add_update_delete,
    course_lists_page_with_has_more
);

async fn courses_crud_keeps_unknown_fields(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app
        .course(
            &key,
            &json!({ "title": "Onboarding", "passingScore": 80, "colour": "teal", "screens": [
                { "title": "One", "blocks": [{ "type": "text", "text": "Hi", "txet": "typo" }] }
            ]}),
        )
        .await;
    let id = course["id"].as_str().unwrap();
    assert_eq!(course["status"], "draft");
    assert_eq!(course["colour"], "teal", "unknown fields are stored");
    assert_eq!(course["screens"][0]["blocks"][0]["txet"], "typo", "a misspelled block field is stored");
    assert_eq!(course["passingScore"], 80);
    assert_eq!(course["navigation"], "default");
    let fetched = app.get(&format!("/v1/courses/{id}"), &key).await.json();
    assert_eq!(fetched, course);

    let patched =
        app.patch(&format!("/v1/courses/{id}"), &key, &json!({ "title": "Onboarding 2", "passingScore": null })).await;
    assert_eq!(patched.status, StatusCode::OK, "{}", patched.text());
    let patched = patched.json();
    assert_eq!(patched["title"], "Onboarding 2");
    assert_eq!(patched["passingScore"], Value::Null);
    assert_eq!(patched["screens"], course["screens"], "absent fields are unchanged");

    let published = app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await.json();
    assert_eq!(published["status"], "published");
    assert!(published["publishedAt"].is_string());
    assert_eq!(app.post(&format!("/v1/courses/{id}/unpublish"), &key, &json!({})).await.json()["status"], "draft");
    assert_eq!(app.delete(&format!("/v1/courses/{id}"), &key).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&format!("/v1/courses/{id}"), &key).await.status, StatusCode::NOT_FOUND);
}

async fn validation_failures_list_issues_with_paths(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let cards = |n: usize| (0..n).map(|i| json!({ "front": format!("card {i}") })).collect::<Vec<_>>();
    let ten = app
        .post(
            "/v1/courses",
            &key,
            &json!({ "title": "T", "screens": [{ "blocks": [{ "type": "stack", "stackCards": cards(10) }] }] }),
        )
        .await;
    assert_eq!(ten.status, StatusCode::CREATED, "ten cards are allowed");
    let cases = [
        (json!({}), vec!["title"]),
        (json!({ "title": "T", "passingScore": 120 }), vec!["passingScore"]),
        (
            json!({ "title": "T", "screens": [{ "blocks": [{ "type": "stack", "stackCards": cards(11) }] }] }),
            vec!["screens.0.blocks.0.stackCards"],
        ),
        (
            json!({ "title": "T", "screens": [{}, { "blocks": [{ "type": "quiz" }, { "type": "image" }] }] }),
            vec!["screens.1.blocks.0.type", "screens.1.blocks.1.url"],
        ),
        (json!({ "title": 5, "status": "archived" }), vec!["title", "status"]),
    ];
    for (body, paths) in cases {
        let response = app.post("/v1/courses", &key, &body).await;
        assert_eq!(response.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(response.error(), "invalid_request");
        assert_eq!(response.issue_paths(), paths, "{body}");
    }
    let id = ten.json()["id"].as_str().unwrap().to_owned();
    let screen = ten.json()["screens"][0]["id"].as_str().unwrap().to_owned();
    let response = app
        .post(
            &format!("/v1/courses/{id}/screens/{screen}/blocks"),
            &key,
            &json!({ "type": "stack", "stackCards": cards(11) }),
        )
        .await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.issue_paths(), vec!["stackCards"]);
}

async fn theme_and_certificate_must_belong_to_the_workspace(app: TestApp) {
    let (_, key) = app.workspace(Plan::Scale).await;
    let (_, other) = app.workspace(Plan::Scale).await;
    let my_theme = app.post("/v1/themes", &key, &json!({ "name": "Mine", "accentColor": "#0a7" })).await;
    assert_eq!(my_theme.status, StatusCode::CREATED, "{}", my_theme.text());
    let my_theme = my_theme.json()["id"].as_str().unwrap().to_owned();
    let my_cert = app.post("/v1/certificate-templates", &key, &json!({ "name": "Gold" })).await.json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let their_theme =
        app.post("/v1/themes", &other, &json!({ "name": "Theirs" })).await.json()["id"].as_str().unwrap().to_owned();
    let their_cert = app.post("/v1/certificate-templates", &other, &json!({ "name": "Theirs" })).await.json()["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let ok = app.course(&key, &json!({ "title": "T", "themeId": my_theme, "certificateId": my_cert })).await;
    assert_eq!(ok["themeId"], json!(my_theme));
    let response = app.post("/v1/courses", &key, &json!({ "title": "T", "themeId": their_theme })).await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.error(), "invalid_request");
    assert_eq!(response.issue_paths(), vec!["themeId"]);
    let id = ok["id"].as_str().unwrap();
    let response = app
        .patch(&format!("/v1/courses/{id}"), &key, &json!({ "certificateId": their_cert, "themeId": their_theme }))
        .await;
    assert_eq!(response.status, StatusCode::BAD_REQUEST);
    assert_eq!(response.issue_paths(), vec!["themeId", "certificateId"]);
    assert_eq!(
        app.get(&format!("/v1/courses/{id}"), &key).await.json()["certificateId"],
        json!(my_cert),
        "nothing changed"
    );
}

async fn screens_add_reorder_duplicate_delete(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app
        .course(&key, &json!({ "title": "T", "screens": [{ "id": "a", "title": "A" }, { "id": "b", "title": "B" }] }))
        .await;
    let id = course["id"].as_str().unwrap();
    let base = format!("/v1/courses/{id}/screens");
    let added =
        app.post(&base, &key, &json!({ "title": "First", "position": 0, "blocks": [{ "type": "divider" }] })).await;
    assert_eq!(added.status, StatusCode::CREATED);
    let added = added.json();
    assert_eq!(added["index"], 0);
    let c = added["screen"]["id"].as_str().unwrap().to_owned();
    let order = |v: &Value| {
        v["screens"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    assert_eq!(
        order(&app.get(&format!("/v1/courses/{id}"), &key).await.json()),
        vec![c.clone(), "a".into(), "b".into()]
    );

    let partial = app
        .send(
            axum::http::Method::PUT,
            &format!("{base}/order"),
            Some(&key),
            Some(json!({ "orderedScreenIds": ["a", "b"] }).to_string().into()),
        )
        .await;
    assert_eq!(partial.status, StatusCode::BAD_REQUEST, "a partial list is rejected");
    assert_eq!(partial.issue_paths(), vec!["orderedScreenIds"]);
    let reordered = app
        .send(
            axum::http::Method::PUT,
            &format!("{base}/order"),
            Some(&key),
            Some(json!({ "orderedScreenIds": ["b", c, "a"] }).to_string().into()),
        )
        .await;
    assert_eq!(reordered.status, StatusCode::OK);
    assert_eq!(order(&reordered.json()), vec!["b".to_owned(), c.clone(), "a".to_owned()]);

    let dup = app.post(&format!("{base}/{c}/duplicate"), &key, &json!({})).await.json();
    assert_eq!(dup["index"], 2, "the copy follows the original");
    assert_ne!(dup["screen"]["id"], json!(c));
    let original = app.get(&format!("{base}/{c}"), &key).await.json();
    assert_ne!(dup["screen"]["blocks"][0]["id"], original["screen"]["blocks"][0]["id"], "every block gets a new id");
    assert_eq!(dup["screen"]["title"], "First");

    let renamed = app.patch(&format!("{base}/a"), &key, &json!({ "title": "A2" })).await;
    assert_eq!(renamed.json()["title"], "A2");
    assert_eq!(app.delete(&format!("{base}/a"), &key).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&format!("{base}/a"), &key).await.status, StatusCode::NOT_FOUND);
    assert_eq!(app.get(&base, &key).await.json()["data"].as_array().unwrap().len(), 3);
}

async fn blocks_add_update_delete(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &json!({ "title": "T", "screens": [{ "id": "s" }] })).await;
    let base = format!("/v1/courses/{}/screens/s/blocks", course["id"].as_str().unwrap());
    let added = app
        .post(
            &base,
            &key,
            &json!({ "type": "multiple_choice", "question": "?", "options": ["a", "b"], "correctIndex": 0 }),
        )
        .await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", added.text());
    let block = added.json()["block"]["id"].as_str().unwrap().to_owned();
    let bad = app.patch(&format!("{base}/{block}"), &key, &json!({ "correctIndex": 5 })).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.issue_paths(), vec!["correctIndex"]);
    let good = app.patch(&format!("{base}/{block}"), &key, &json!({ "correctIndex": 1, "hint": "think" })).await.json();
    assert_eq!(
        (good["correctIndex"].clone(), good["hint"].clone(), good["id"].clone()),
        (json!(1), json!("think"), json!(block))
    );
    assert_eq!(app.get(&format!("{base}/{block}"), &key).await.json(), good);
    assert_eq!(app.delete(&format!("{base}/{block}"), &key).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&base, &key).await.json()["data"], json!([]));
    assert_eq!(app.get(&format!("{base}/{block}"), &key).await.status, StatusCode::NOT_FOUND);
}

async fn course_lists_page_with_has_more(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    for i in 0..3 {
        app.course(&key, &json!({ "title": format!("C{i}") })).await;
        app.clock.advance_millis(1);
    }
    let page = app.get("/v1/courses?limit=2", &key).await.json();
    assert_eq!(page["data"].as_array().unwrap().len(), 2);
    assert_eq!(page["pagination"], json!({ "limit": 2, "offset": 0, "hasMore": true }));
    let last = app.get("/v1/courses?limit=2&offset=2", &key).await.json();
    assert_eq!(last["data"][0]["title"], "C2");
    assert_eq!(last["pagination"]["hasMore"], false);
    let empty = app.get("/v1/courses?offset=10", &key).await.json();
    assert_eq!(empty["data"], json!([]));
    assert_eq!(empty["pagination"]["limit"], 50, "default limit");
    let bad = app.get("/v1/courses?limit=abc", &key).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.issue_paths(), vec!["limit"]);
}
