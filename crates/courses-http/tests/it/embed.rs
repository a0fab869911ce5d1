use axum::http::{Method, StatusCode};
use courses_core::Plan;
use serde_json::json;

use crate::on_both_stores;
use crate::support::{TestApp, quiz_course};

on_both_stores!(
    draft_embed_is_404_like_a_missing_course,
    player_records_completion_and_certificate,
    each_opening_counts_a_view,
    a_course_without_retry_records_one_attempt
);

async fn draft_embed_is_404_like_a_missing_course(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    let draft = app.send(Method::GET, &format!("/v1/embed/{id}"), None, None).await;
    let missing = app.send(Method::GET, "/v1/embed/crs_missing", None, None).await;
    assert_eq!(draft.status, StatusCode::NOT_FOUND);
    assert_eq!(draft.error(), "not_found");
    assert_eq!(draft.body, missing.body, "identical to a course that does not exist");
    assert_eq!(draft.headers.get("content-type"), missing.headers.get("content-type"));
}

async fn player_records_completion_and_certificate(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &quiz_course(Some(100))).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let page = app.send(Method::GET, &app.embed_link(&key, id, "emp-7").await, None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.headers["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = page.text();
    assert!(html.contains("<title>Fire safety</title>"));
    assert!(!html.contains("correctIndex") && !html.contains("\"answer\""), "answers never reach the browser");
    let view = html.split("\"viewId\":\"").nth(1).unwrap().split('"').next().unwrap().to_owned();

    let send = |path: String, body: serde_json::Value| {
        let app = &app;
        async move { app.send(Method::POST, &path, None, Some(body.to_string().into())).await }
    };
    let failed = send(format!("/v1/embed/views/{view}/completion"), json!({ "answers": { "q1": 1 } })).await;
    assert_eq!(failed.status, StatusCode::CREATED);
    assert_eq!((failed.json()["score"].clone(), failed.json()["passed"].clone()), (json!(50.0), json!(false)));
    // The results screen's review: each question with the learner's answer and the right one.
    assert_eq!(
        failed.json()["review"],
        json!([
            { "blockId": "q1", "question": "Which extinguisher for oil?", "yourAnswer": "foam", "rightAnswer": "foam", "correct": true, "feedback": null },
            { "blockId": "q2", "question": "Use lifts in a fire.", "yourAnswer": null, "rightAnswer": "False", "correct": false, "feedback": null },
        ])
    );
    let refused = send(format!("/v1/embed/views/{view}/certificate"), json!({})).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.error(), "passing_score_not_met");

    let passed =
        send(format!("/v1/embed/views/{view}/completion"), json!({ "answers": { "q1": 1, "q2": false } })).await;
    assert_eq!(passed.json()["passed"], true);
    let cert = send(format!("/v1/embed/views/{view}/certificate"), json!({})).await;
    assert_eq!(cert.status, StatusCode::CREATED, "{}", cert.text());
    let pdf_path = cert.json()["pdfPath"].as_str().unwrap().to_owned();
    let pdf = app.send(Method::GET, &pdf_path, None, None).await;
    assert_eq!(pdf.headers["content-type"], "application/pdf");
    assert!(pdf.text().contains("(emp-7)"), "the learner's name, or their id when no name is known");

    // The API sees what the player recorded.
    let completions = app.get("/v1/completions", &key).await.json();
    assert_eq!(completions["data"].as_array().unwrap().len(), 2);
    let learners = app.get("/v1/identities", &key).await.json();
    assert_eq!(learners["data"][0]["externalId"], "emp-7");
    let unknown = send("/v1/embed/views/view_nope/completion".to_owned(), json!({})).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
}

async fn a_course_without_retry_records_one_attempt(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let mut body = quiz_course(Some(100));
    body["retry"] = json!("never");
    let course = app.course(&key, &body).await;
    assert_eq!(course["retry"], "never");
    let id = course["id"].as_str().unwrap().to_owned();
    let other = app.course(&key, &quiz_course(None)).await;
    assert_eq!(other["retry"], "allowed", "new courses allow a retry");
    let wrong = app.patch(&format!("/v1/courses/{id}"), &key, &json!({ "retry": "twice" })).await;
    assert_eq!((wrong.status, wrong.issue_paths()), (StatusCode::BAD_REQUEST, vec!["retry".to_owned()]));
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    // A learner known by name: the certificate prints the name, not the id.
    app.post("/v1/identities", &key, &json!({ "externalId": "gh-1", "name": "Grace Hopper" })).await;
    let html = app.send(Method::GET, &app.embed_link(&key, &id, "gh-1").await, None, None).await.text();
    assert!(html.contains("\"retry\":false"), "the player knows not to offer a retry");
    let view = html.split("\"viewId\":\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let complete = |answers: serde_json::Value| {
        let (app, view) = (&app, &view);
        async move {
            let body = json!({ "answers": answers }).to_string();
            app.send(Method::POST, &format!("/v1/embed/views/{view}/completion"), None, Some(body.into())).await
        }
    };
    let first = complete(json!({ "q1": 0 })).await;
    assert_eq!((first.status, first.json()["passed"].clone()), (StatusCode::CREATED, json!(false)));
    let second = complete(json!({ "q1": 1, "q2": false })).await;
    assert_eq!(second.status, StatusCode::CONFLICT);
    assert_eq!(second.error(), "conflict");
    assert_eq!(second.json()["message"], "this course allows one attempt, and the learner has already completed it");
    assert_eq!(app.get("/v1/completions", &key).await.json()["data"].as_array().unwrap().len(), 1, "nothing recorded");

    // Allowed again, the learner's next attempt counts and earns the certificate.
    let allowed = app.patch(&format!("/v1/courses/{id}"), &key, &json!({ "retry": "allowed" })).await;
    assert_eq!(allowed.json()["retry"], "allowed");
    let third = complete(json!({ "q1": 1, "q2": false })).await;
    assert_eq!((third.status, third.json()["passed"].clone()), (StatusCode::CREATED, json!(true)));
    let cert = app.send(Method::POST, &format!("/v1/embed/views/{view}/certificate"), None, Some("{}".into())).await;
    assert_eq!(cert.json()["learnerName"], "Grace Hopper");
    let pdf = app.send(Method::GET, cert.json()["pdfPath"].as_str().unwrap(), None, None).await.text();
    assert!(pdf.contains("(Grace Hopper) Tj"), "the display name is printed");
    assert!(!pdf.contains("(gh-1)"), "not the learner's id");
}

async fn each_opening_counts_a_view(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let link = app.embed_link(&key, id, "same").await;
    for _ in 0..3 {
        assert_eq!(app.send(Method::GET, &link, None, None).await.status, StatusCode::OK);
    }
    assert_eq!(app.get("/v1/usage", &key).await.json()["courseViews"]["used"], 3, "repeat openings included");
    app.clock.set(kernel::Timestamp::from_millis(1_796_083_200_000)); // 2026-12-01T00:00:00Z
    let december = app.get("/v1/usage", &key).await.json();
    assert_eq!((december["month"].clone(), december["courseViews"]["used"].clone()), (json!("2026-12"), json!(0)));
}

on_both_stores!(demo_is_seeded_once_and_serves);

async fn demo_is_seeded_once_and_serves(app: TestApp) {
    let demo = app.courses.seed_demo_if_empty().await.unwrap().expect("an empty store gets the demo");
    assert!(app.courses.seed_demo_if_empty().await.unwrap().is_none(), "only once");
    let courses = app.get("/v1/courses", demo.key.expose()).await.json();
    assert_eq!(courses["data"][0]["status"], "published");
    assert!(demo.player_path.starts_with(&format!("/v1/embed/{}?learner=demo&expires=", demo.course_id)));
    let page = app.send(Method::GET, &demo.player_path, None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text().contains("\"externalId\":\"demo\""), "the demo link names its learner");
}

on_both_stores!(immediate_feedback_checks_one_answer);

async fn immediate_feedback_checks_one_answer(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let mut body = quiz_course(None);
    body["quizFeedback"] = json!("immediate");
    let course = app.course(&key, &body).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let html = app.send(Method::GET, &app.embed_link(&key, id, "fb-1").await, None, None).await.text();
    assert!(html.contains("\"quizFeedback\":\"immediate\""));
    let view = html.split("\"viewId\":\"").nth(1).unwrap().split('"').next().unwrap().to_owned();
    let check = |block: &str, answer: serde_json::Value| {
        let app = &app;
        let path = format!("/v1/embed/views/{view}/check");
        let body = json!({ "blockId": block, "answer": answer }).to_string();
        async move { app.send(Method::POST, &path, None, Some(body.into())).await }
    };
    assert_eq!(check("q1", json!(1)).await.json(), json!({ "correct": true }));
    assert_eq!(check("q2", json!(true)).await.json(), json!({ "correct": false }));
    assert_eq!(check("t1", json!(0)).await.status, StatusCode::NOT_FOUND, "not a question");
}

on_both_stores!(translations_apply_in_the_player, a_refused_opening_writes_nothing);

async fn translations_apply_in_the_player(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Scale).await;
    let course = app.course(&key, &quiz_course(Some(50))).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let translation = app
        .post(
            "/v1/translations",
            &key,
            &json!({ "courseId": id, "locale": "fr", "strings": {
                "title": "Sécurité incendie",
                "quiz.title": "Vérification",
                "q1.question": "Quel extincteur pour l'huile ?",
                "q1.options.1": "mousse",
                "q1.correctIndex": "0",
                "ui.continue": "Continuer",
            } }),
        )
        .await;
    assert_eq!(translation.status, StatusCode::CREATED, "{}", translation.text());
    // Learners (existing ones are kept as they are) carry their names.
    app.post("/v1/identities", &key, &json!({ "externalId": "fr-1", "name": "Amélie" })).await;

    let page =
        app.send(Method::GET, &format!("{}&lang=fr-CA", app.embed_link(&key, id, "fr-1").await), None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = page.text();
    assert!(html.starts_with("<!doctype html>\n<html lang=\"fr\""), "{}", &html[..60]);
    assert!(html.contains("<title>Sécurité incendie</title>"));
    let data: serde_json::Value = serde_json::from_str(
        html.split("type=\"application/json\">").nth(1).unwrap().split("</script>").next().unwrap(),
    )
    .unwrap();
    assert_eq!(data["locale"], "fr");
    assert_eq!(data["ui"], json!({ "continue": "Continuer" }));
    assert_eq!(data["course"]["title"], "Sécurité incendie");
    let quiz = &data["course"]["screens"][1];
    assert_eq!(quiz["title"], "Vérification");
    assert_eq!(quiz["blocks"][0]["question"], "Quel extincteur pour l'huile ?");
    assert_eq!(quiz["blocks"][0]["options"], json!(["water", "mousse"]), "untranslated strings stay");
    assert_eq!(quiz["blocks"][0].get("correctIndex"), None, "answers never reach the browser");
    assert_eq!(data["course"]["screens"][0]["title"], "Welcome");
    assert_eq!(data["learner"]["name"], "Amélie", "opening the player keeps the learner's details");

    let plain = app.send(Method::GET, &format!("/v1/embed/{id}?lang=de"), None, None).await.text();
    assert!(plain.contains("<title>Fire safety</title>") && plain.contains("<html lang=\"en\""));
    // Below Scale, translations are not applied (never a partial result).
    app.courses.set_plan(&ws, Plan::Build).await.unwrap();
    let build = app.send(Method::GET, &format!("/v1/embed/{id}?lang=fr"), None, None).await.text();
    assert!(build.contains("<title>Fire safety</title>"));
}

async fn a_refused_opening_writes_nothing(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Sandbox).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let hook = app
        .post("/v1/webhooks", &key, &json!({ "url": "https://example.com/hook", "events": ["identity.created"] }))
        .await
        .json()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let link = app.embed_link(&key, id, "late-learner").await;
    app.set_usage(&ws, "course_views", 500).await;
    let refused = app.send(Method::GET, &link, None, None).await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
    app.courses.set_plan(&ws, Plan::Build).await.unwrap();
    let learners = app.get("/v1/identities", &key).await.json();
    assert_eq!(learners["data"], json!([]), "the learner of a refused opening is not created");
    assert_eq!(app.get("/v1/usage", &key).await.json()["courseViews"]["used"], 500);
    let opened = app.send(Method::GET, &link, None, None).await;
    assert_eq!(opened.status, StatusCode::OK);
    let learners = app.get("/v1/identities", &key).await.json();
    assert_eq!(learners["data"][0]["externalId"], "late-learner", "the view and its learner are written together");
    // Only the opening that created the learner announces it.
    app.send(Method::GET, &link, None, None).await;
    let deliveries = app.get(&format!("/v1/webhook-deliveries?webhookId={hook}"), &key).await.json();
    let events: Vec<_> =
        deliveries["data"].as_array().unwrap().iter().map(|d| d["payload"]["data"]["externalId"].clone()).collect();
    assert_eq!(events, [json!("late-learner")]);
    assert_eq!(app.get("/v1/usage", &key).await.json()["courseViews"]["used"], 502, "each opening counts");
}
