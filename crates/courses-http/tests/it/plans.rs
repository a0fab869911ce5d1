use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::json;

use crate::on_both_stores;
use crate::support::{TestApp, quiz_course};

on_both_stores!(
    a_downgrade_stops_themes_translations_and_templates_everywhere_and_an_upgrade_restores_them,
    features_above_the_plan_are_plan_required,
    sandbox_is_hard_capped_until_the_month_turns_or_upgrade,
    paid_plans_are_metered_not_cut_off,
    unpaid_invoice_suspends_after_the_grace_period
);

async fn features_above_the_plan_are_plan_required(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Build).await;
    for path in ["/v1/themes", "/v1/certificate-templates", "/v1/translations"] {
        let response = app.get(path, &key).await;
        assert_eq!(response.status, StatusCode::FORBIDDEN, "{path}");
        assert_eq!(response.error(), "plan_required");
        assert!(response.json()["message"].as_str().unwrap().contains("Scale"), "the message names the plan");
        let response = app.post(path, &key, &json!({ "name": "x" })).await;
        assert_eq!(response.status, StatusCode::FORBIDDEN, "never a partial result");
    }
    // Every plan has collections and webhooks.
    let collection = app.post("/v1/collections", &key, &json!({ "name": "Starter pack" })).await;
    assert_eq!(collection.status, StatusCode::CREATED);
    let webhook = app
        .post("/v1/webhooks", &key, &json!({ "url": "https://example.com/hook", "events": ["completion.created"] }))
        .await;
    assert_eq!(webhook.status, StatusCode::CREATED, "{}", webhook.text());
    let secret = webhook.json()["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("whsec_"));
    let id = webhook.json()["id"].as_str().unwrap().to_owned();
    assert!(!app.get(&format!("/v1/webhooks/{id}"), &key).await.text().contains(&secret), "the secret is shown once");
    app.courses.set_plan(&ws, Plan::Scale).await.unwrap();
    assert_eq!(app.get("/v1/themes", &key).await.status, StatusCode::OK, "upgrading unlocks at once");
}

async fn sandbox_is_hard_capped_until_the_month_turns_or_upgrade(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Sandbox).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let link = app.embed_link(&key, id, "u1").await;
    app.set_usage(&ws, "course_views", 499).await;
    let last = app.send(axum::http::Method::GET, &link, None, None).await;
    assert_eq!(last.status, StatusCode::OK, "the 500th view is within the allowance");
    for path in ["/v1/courses", "/v1/usage", "/v1/identities"] {
        let capped = app.get(path, &key).await;
        assert_eq!(capped.status, StatusCode::PAYMENT_REQUIRED, "{path}");
        assert_eq!(capped.error(), "plan_required");
        let message = capped.json()["message"].as_str().unwrap().to_owned();
        assert!(message.contains("500 course views") && message.contains("2026-12-01"), "{message}");
    }
    let embed = app.send(axum::http::Method::GET, &format!("/v1/embed/{id}"), None, None).await;
    assert_eq!(embed.status, StatusCode::PAYMENT_REQUIRED, "the 501st view is refused");
    // The cap clears when the month turns...
    app.clock.set(kernel::Timestamp::from_millis(1_796_083_200_000)); // 2026-12-01T00:00:00Z
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::OK);
    // ...or on upgrade.
    app.set_usage(&ws, "course_views", 500).await;
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::PAYMENT_REQUIRED);
    app.courses.set_plan(&ws, Plan::Build).await.unwrap();
    let usage = app.get("/v1/usage", &key).await.json();
    assert_eq!(usage["courseViews"], json!({ "used": 500, "allowance": 25000, "overage": 0, "hardCapped": false }));
    assert_eq!(app.get(&format!("/v1/courses/{id}"), &key).await.json()["title"], "Fire safety", "nothing deleted");
}

async fn paid_plans_are_metered_not_cut_off(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Build).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    app.set_usage(&ws, "course_views", 25_000).await;
    let link = app.embed_link(&key, id, "u1").await;
    for _ in 0..2 {
        let embed = app.send(axum::http::Method::GET, &link, None, None).await;
        assert_eq!(embed.status, StatusCode::OK);
    }
    let usage = app.get("/v1/usage", &key).await;
    assert_eq!(usage.status, StatusCode::OK);
    assert_eq!(
        usage.json()["courseViews"],
        json!({ "used": 25_002, "allowance": 25_000, "overage": 2, "hardCapped": false })
    );
    assert_eq!(usage.json()["month"], "2026-11");
}

async fn unpaid_invoice_suspends_after_the_grace_period(app: TestApp) {
    let (ws, key) = app.workspace(Plan::Scale).await;
    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    app.courses.set_payment_failed(&ws, true).await.unwrap();
    app.clock.advance_days(13);
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::OK, "within the grace period");
    app.clock.advance_days(1);
    let suspended = app.get("/v1/courses", &key).await;
    assert_eq!(suspended.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(suspended.error(), "plan_required");
    assert!(suspended.json()["message"].as_str().unwrap().contains("invoice"));
    let embed = app.send(axum::http::Method::GET, &format!("/v1/embed/{id}"), None, None).await;
    assert_eq!(embed.status, StatusCode::PAYMENT_REQUIRED, "published courses stop serving");
    app.courses.set_payment_failed(&ws, false).await.unwrap();
    assert_eq!(app.get("/v1/courses", &key).await.status, StatusCode::OK, "paying clears it");
    let workspace = app.get(&format!("/v1/workspaces/{ws}"), &key).await.json();
    assert_eq!(workspace["plan"], "scale", "nothing downgraded");
}

on_both_stores!(webhooks_receive_signed_events);

pub fn b64_decode(s: &str) -> Vec<u8> {
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0_u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in s.bytes().filter(|c| *c != b'=') {
        bits = (bits << 6) | alphabet.iter().position(|a| *a == c).unwrap() as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    out
}

async fn webhooks_receive_signed_events(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let hook = app.post("/v1/webhooks", &key, &json!({ "url": "https://example.com/hook", "events": ["course.published", "completion.created", "certificate.issued"] })).await.json();
    let other = app
        .post(
            "/v1/webhooks",
            &key,
            &json!({ "url": "https://example.com/other", "events": ["identity.created"], "active": false }),
        )
        .await
        .json();
    let secret = hook["secret"].as_str().unwrap().to_owned();
    let hook_id = hook["id"].as_str().unwrap().to_owned();
    assert!(
        !app.get(&format!("/v1/webhooks/{hook_id}"), &key).await.text().contains("_signing"),
        "no key material in reads"
    );

    let course = app.course(&key, &quiz_course(None)).await;
    let id = course["id"].as_str().unwrap();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await; // already published: no second event
    let learner = app.post("/v1/identities", &key, &json!({ "externalId": "w1", "name": "Wen" })).await.json();
    app.post(
        "/v1/completions",
        &key,
        &json!({ "courseId": id, "identityId": learner["id"], "answers": { "q1": 1, "q2": false } }),
    )
    .await;
    app.post("/v1/issued-certificates", &key, &json!({ "courseId": id, "identityId": learner["id"] })).await;

    let list = app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &key).await;
    assert_eq!(list.status, StatusCode::OK, "{}", list.text());
    let list = list.json();
    let events: Vec<&str> = list["data"].as_array().unwrap().iter().map(|d| d["event"].as_str().unwrap()).collect();
    assert_eq!(events, ["course.published", "completion.created", "certificate.issued"]);
    let key_bytes = b64_decode(secret.trim_start_matches("whsec_"));
    for delivery in list["data"].as_array().unwrap() {
        let headers = &delivery["headers"];
        let expected = courses_core::webhooks::sign(
            &key_bytes,
            headers["webhook-id"].as_str().unwrap(),
            headers["webhook-timestamp"].as_str().unwrap().parse().unwrap(),
            delivery["body"].as_str().unwrap(),
        );
        assert_eq!(headers["webhook-signature"], json!(expected));
        assert_eq!(delivery["payload"]["type"], delivery["event"]);
    }
    assert_eq!(list["data"][1]["payload"]["data"]["score"], json!(100.0));
    let inactive =
        app.get(&format!("/v1/webhook-deliveries?webhookId={}", other["id"].as_str().unwrap()), &key).await.json();
    assert_eq!(inactive["data"], json!([]), "inactive webhooks get nothing");
    let (_, stranger) = app.workspace(Plan::Build).await;
    assert_eq!(
        app.get(&format!("/v1/webhook-deliveries?webhookId={hook_id}"), &stranger).await.status,
        StatusCode::NOT_FOUND
    );
}

async fn a_downgrade_stops_themes_translations_and_templates_everywhere_and_an_upgrade_restores_them(app: TestApp) {
    use axum::http::Method;
    let (ws, key) = app.workspace(Plan::Scale).await;
    // The theme's font and logo are uploads (the studio takes them; the
    // core's use case is what it calls).
    let owner = courses_core::Access {
        workspace: app.courses.workspace(&ws).await.unwrap(),
        key_id: String::new(),
        read_only: false,
    };
    let font = courses_core::pdf::testing::tiny_font("Award fo Fire safetyAdCcnOpl");
    let font = app.courses.upload_media(&owner, "brand.ttf", font).await.unwrap();
    let logo = app.courses.upload_media(&owner, "logo.png", crate::support::TINY_PNG.to_vec()).await.unwrap();
    let theme = app
        .post(
            "/v1/themes",
            &key,
            &json!({ "name": "Brand", "accentColor": "#aa0000", "fontMediaId": font.id, "logoMediaId": logo.id }),
        )
        .await
        .json();
    let template = app
        .post("/v1/certificate-templates", &key, &json!({ "name": "Award", "title": "Award for {{course}}" }))
        .await
        .json();
    let mut body = quiz_course(Some(50));
    body["themeId"] = theme["id"].clone();
    body["certificateId"] = template["id"].clone();
    let course = app.course(&key, &body).await;
    let id = course["id"].as_str().unwrap().to_owned();
    app.post(&format!("/v1/courses/{id}/publish"), &key, &json!({})).await;
    let translated = app
        .post(
            "/v1/translations",
            &key,
            &json!({ "courseId": id, "locale": "fr", "strings": { "title": "Sécurité incendie" } }),
        )
        .await;
    assert_eq!(translated.status, StatusCode::CREATED);
    let link = app.embed_link(&key, &id, "ada").await;
    let session_path =
        format!("{}&lang=fr", link.replacen(&format!("/v1/embed/{id}?"), &format!("/v1/embed/{id}/session?"), 1));
    // One learner passes and holds a certificate issued under the template.
    let first = app.send(Method::GET, &session_path, None, None).await.json();
    let view = first["viewId"].as_str().unwrap().to_owned();
    let answers = json!({ "answers": { "q1": 1, "q2": false } });
    let done = app
        .send(Method::POST, &format!("/v1/embed/views/{view}/completion"), None, Some(answers.to_string().into()))
        .await;
    assert_eq!(done.status, StatusCode::CREATED);
    let cert = app.send(Method::POST, &format!("/v1/embed/views/{view}/certificate"), None, None).await.json();
    let cert_id = cert["id"].as_str().unwrap().to_owned();

    // What each place shows: the player (theme, translation), the export's
    // theme (the core's choice, as any export path uses it) and the PDF.
    let observe = || {
        let app = &app;
        let (session_path, ws, id, cert_id, key) = (&session_path, &ws, &id, &cert_id, &key);
        async move {
            let session = app.send(Method::GET, session_path, None, None).await.json();
            let access = courses_core::Access {
                workspace: app.courses.workspace(ws).await.unwrap(),
                key_id: String::new(),
                read_only: false,
            };
            let stored = app.courses.course(&access, id).await.unwrap();
            let exported = app.courses.applied_theme(&access, &stored).await.unwrap().map(|t| t.id);
            let pdf = app.get(&format!("/v1/issued-certificates/{cert_id}/pdf"), key).await;
            assert_eq!(pdf.status, StatusCode::OK);
            let lines = crate::support::pdf_lines(&pdf.body);
            let pdf = String::from_utf8_lossy(&pdf.body).into_owned();
            // The theme's font, logo and accent reach the certificate together.
            let themed = (pdf.contains("/FontFile2"), pdf.contains("/Im1 Do"), pdf.contains("0.667 0.000 0.000 RG"));
            assert!(themed == (true, true, true) || themed == (false, false, false), "{themed:?}");
            (
                session["course"]["title"].as_str().unwrap().to_owned(),
                session["theme"]["accentColor"].as_str().map(str::to_owned),
                exported.is_some(),
                lines.first().is_some_and(|l| l == "Award for Fire safety"),
                lines.first().is_some_and(|l| l == "Certificate of Completion"),
                themed.0,
            )
        }
    };
    let on_scale = ("Sécurité incendie".to_owned(), Some("#aa0000".to_owned()), true, true, false, true);
    assert_eq!(observe().await, on_scale);

    app.courses.set_plan(&ws, Plan::Build).await.unwrap();
    assert_eq!(
        observe().await,
        ("Fire safety".to_owned(), None, false, false, true, false),
        "below Scale nothing of the three applies anywhere, and nothing is partly applied"
    );
    // Using the features is refused whole, naming the plan; the course keeps its references.
    for path in ["/v1/themes", "/v1/certificate-templates", "/v1/translations"] {
        let refused = app.get(path, &key).await;
        assert_eq!((refused.status, refused.error()), (StatusCode::FORBIDDEN, "plan_required".to_owned()), "{path}");
    }
    let refused =
        app.patch(&format!("/v1/courses/{id}"), &key, &json!({ "themeId": theme["id"], "title": "Renamed" })).await;
    assert_eq!((refused.status, refused.error()), (StatusCode::FORBIDDEN, "plan_required".to_owned()));
    assert!(refused.json()["message"].as_str().unwrap().contains("Scale"));
    let course_now = app.get(&format!("/v1/courses/{id}"), &key).await.json();
    assert_eq!(
        (course_now["title"].clone(), course_now["themeId"].clone()),
        (json!("Fire safety"), theme["id"].clone()),
        "nothing of the refused change was applied"
    );
    let other = app.course(&key, &json!({ "title": "Plain", "themeId": null })).await;
    assert_eq!(other["themeId"], json!(null), "clearing a reference is always allowed");

    app.courses.set_plan(&ws, Plan::Scale).await.unwrap();
    assert_eq!(observe().await, on_scale, "an upgrade restores all three at once");
}
