//! Collaborators (invitations, seats, both role layers, removal, owner-only
//! actions), the audit log's read API and CSV export, its settings, the
//! signed webhook and the daily prune, through the real router.

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{HeaderMap, Method, StatusCode};
use hub_core::Plan;
use serde_json::{Value, json};
use test_kit::{TestApp, TestResponse, on_both_stores};

use crate::dashboard::mails;
use crate::openapi_yaml;

on_both_stores!(
    invitations_hold_seats_and_work_once,
    both_layers_with_audit_rows_and_owner_mail,
    removal_ends_access_at_once,
    owner_only_actions_stay_with_the_owner,
    audit_rows_filter_page_and_export,
    webhook_deliveries_are_signed_and_logged,
    prune_keeps_what_retention_keeps,
);

async fn send_json(app: &TestApp, method: Method, path: &str, token: &str, body: &Value) -> TestResponse {
    app.request(method, path, Some(token), Some(Body::from(body.to_string()))).await
}

/// The invitation link's secret from the newest mail to `to`.
async fn invitation_secret(app: &TestApp, to: &str) -> String {
    let all = mails(app).await;
    let mail = all.iter().rev().find(|m| m.contains(&format!("To: {to}"))).unwrap_or_else(|| panic!("no mail to {to}"));
    let unfolded = mail.replace("=\r\n", "").replace("=\n", "").replace("=3D", "=");
    let start = unfolded.find("/app/invitations/").unwrap_or_else(|| panic!("no link in {mail}")) + 17;
    unfolded[start..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect()
}

/// The invitation link's secret of the newest mail to `to` (for other suites).
pub(crate) async fn newest_invitation_secret(app: &TestApp, to: &str) -> String {
    invitation_secret(app, to).await
}

/// Invites `email` as `role` and accepts with `member_token`.
async fn join(app: &TestApp, owner: &str, email: &str, member_token: &str, role: &str) -> String {
    let invited =
        send_json(app, Method::POST, "/api/v1/collaborators", owner, &json!({ "email": email, "role": role })).await;
    assert_eq!(invited.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&invited.body));
    let secret = invitation_secret(app, email).await;
    let accepted = app.post_json(&format!("/api/v1/invitations/{secret}/accept"), member_token, &json!({})).await;
    assert_eq!(accepted.status, StatusCode::OK, "{}", String::from_utf8_lossy(&accepted.body));
    app.hub.user_by_email(email).await.unwrap().id
}

async fn audit_codes(app: &TestApp, owner_email: &str) -> Vec<(String, Value)> {
    app.hub.audit_log(owner_email).await.unwrap().into_iter().map(|e| (e.action, e.metadata)).collect()
}

async fn invitations_hold_seats_and_work_once(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Pro).await;
    let (_, free_owner) = app.user("free@example.com", Plan::Free).await;
    let (_, invitee) = app.user("ann@example.com", Plan::Free).await;
    let (_, other) = app.user("other@example.com", Plan::Free).await;

    // Free has no seats.
    let refused =
        send_json(&app, Method::POST, "/api/v1/collaborators", &free_owner, &json!({ "email": "x@example.com" })).await;
    assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED);
    assert_eq!(refused.error_code(), "SEAT_LIMIT_REACHED");
    assert_eq!(refused.json()["error"]["details"], json!({ "plan": "free", "seats": 0 }));

    // Pro has three; pending invitations hold them.
    let mut ids = Vec::new();
    for email in ["ann@example.com", "bob@example.com", "cat@example.com"] {
        let made = send_json(
            &app,
            Method::POST,
            "/api/v1/collaborators",
            &owner,
            &json!({ "email": email, "role": "viewer" }),
        )
        .await;
        assert_eq!(made.status, StatusCode::CREATED);
        assert_eq!(made.json()["status"], "pending");
        assert_eq!(made.json()["role"], "viewer");
        ids.push(made.json()["id"].as_str().unwrap().to_owned());
    }
    let fourth =
        send_json(&app, Method::POST, "/api/v1/collaborators", &owner, &json!({ "email": "dan@example.com" })).await;
    assert_eq!(fourth.error_code(), "SEAT_LIMIT_REACHED");
    // Inviting the same address again (a second later) replaces its link
    // and expiry, keeps its id, and takes no new seat.
    app.clock.advance_millis(1000);
    let again =
        send_json(&app, Method::POST, "/api/v1/collaborators", &owner, &json!({ "email": "ANN@example.com" })).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&again.body));
    assert_eq!(again.json()["id"], ids[0], "the invitation keeps its id (a new link, the same resource)");
    let list = app.get("/api/v1/collaborators", &owner).await.json();
    assert_eq!(list["seats"], json!({ "included": 3, "used": 3 }));
    let emails: Vec<&str> = list["data"].as_array().unwrap().iter().map(|c| c["email"].as_str().unwrap()).collect();
    assert_eq!(emails, ["bob@example.com", "cat@example.com", "ann@example.com"], "oldest first; ann's is new");

    // The link: someone else cannot use it; the invitee can, once.
    let secret = invitation_secret(&app, "ann@example.com").await;
    let accept = format!("/api/v1/invitations/{secret}/accept");
    let wrong = app.post_json(&accept, &other, &json!({})).await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(wrong.json()["error"]["message"].as_str().unwrap().contains("ann@example.com"));
    let ok = app.post_json(&accept, &invitee, &json!({})).await;
    assert_eq!(ok.status, StatusCode::OK);
    assert_eq!(ok.json()["role"], "editor", "the second invitation's role (editor by default) applies");
    let twice = app.post_json(&accept, &invitee, &json!({})).await;
    assert_eq!(twice.status, StatusCode::BAD_REQUEST);
    assert!(twice.json()["error"]["message"].as_str().unwrap().contains("used"));
    let list = app.get("/api/v1/collaborators", &owner).await.json();
    let ann = list["data"].as_array().unwrap().iter().find(|c| c["email"] == "ann@example.com").unwrap().clone();
    assert_eq!(ann["status"], "active");

    // A collaborator already is a conflict, not a new seat.
    let dup =
        send_json(&app, Method::POST, "/api/v1/collaborators", &owner, &json!({ "email": "ann@example.com" })).await;
    assert_eq!(dup.status, StatusCode::CONFLICT);

    // Revoking a pending invitation frees its seat and kills its link.
    let bob = list["data"].as_array().unwrap().iter().find(|c| c["email"] == "bob@example.com").unwrap().clone();
    let bob_secret = invitation_secret(&app, "bob@example.com").await;
    assert_eq!(
        app.delete(&format!("/api/v1/collaborators/{}", bob["id"].as_str().unwrap()), &owner).await.status,
        StatusCode::NO_CONTENT
    );
    let made =
        send_json(&app, Method::POST, "/api/v1/collaborators", &owner, &json!({ "email": "dan@example.com" })).await;
    assert_eq!(made.status, StatusCode::CREATED);
    let (_, bob_token) = app.user("bob@example.com", Plan::Free).await;
    let dead = app.post_json(&format!("/api/v1/invitations/{bob_secret}/accept"), &bob_token, &json!({})).await;
    assert_eq!(dead.status, StatusCode::BAD_REQUEST);

    // The collaborator sees the owner's projects.
    let slug = app.project(&owner, "Shared").await;
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}"), &invitee).await.status, StatusCode::OK);
    // Bad input is named.
    let bad = send_json(
        &app,
        Method::POST,
        "/api/v1/collaborators",
        &owner,
        &json!({ "email": "x@example.com", "role": "admin" }),
    )
    .await;
    assert_eq!(bad.json()["error"]["details"]["field"], "role");
    let me =
        send_json(&app, Method::POST, "/api/v1/collaborators", &owner, &json!({ "email": "owner@example.com" })).await;
    assert_eq!(me.status, StatusCode::BAD_REQUEST);
}

async fn both_layers_with_audit_rows_and_owner_mail(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, member) = app.user("mia@example.com", Plan::Free).await;
    let slug = app.project(&owner, "Layers").await;
    let member_id = join(&app, &owner, "mia@example.com", &member, "viewer").await;
    let project = format!("/api/v1/projects/{slug}");
    assert_eq!(app.patch_json(&project, &member, &json!({ "name": "x" })).await.status, StatusCode::FORBIDDEN);

    // Layer 1 to editor.
    let changed =
        app.patch_json(&format!("/api/v1/collaborators/{member_id}"), &owner, &json!({ "role": "editor" })).await;
    assert_eq!(changed.json()["role"], "editor");
    assert_eq!(app.patch_json(&project, &member, &json!({ "name": "Renamed" })).await.status, StatusCode::OK);

    // Layer 2: none hides the project, and it leaves the member's list.
    let hide = send_json(
        &app,
        Method::PUT,
        &format!("{project}/collaborators/{member_id}"),
        &owner,
        &json!({ "role": "none" }),
    )
    .await;
    assert_eq!(hide.status, StatusCode::OK);
    assert_eq!(app.get(&project, &member).await.status, StatusCode::NOT_FOUND);
    let listed = app.get("/api/v1/projects", &member).await.json();
    assert_eq!(listed["pagination"]["total"], 0);
    assert_eq!(
        app.delete(&format!("{project}/collaborators/{member_id}"), &owner).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(app.get(&project, &member).await.status, StatusCode::OK);

    let rows = audit_codes(&app, "owner@example.com").await;
    let role_rows: Vec<&Value> =
        rows.iter().filter(|(code, _)| code == "COLLABORATOR_ROLE_CHANGED").map(|(_, meta)| meta).collect();
    assert_eq!(role_rows.len(), 3);
    assert_eq!(
        (role_rows[0]["scope"].as_str(), role_rows[0]["from"].as_str(), role_rows[0]["to"].as_str()),
        (Some("account"), Some("viewer"), Some("editor"))
    );
    assert_eq!(
        (role_rows[1]["scope"].as_str(), role_rows[1]["from"].as_str(), role_rows[1]["to"].as_str()),
        (Some("project"), Some("default"), Some("none"))
    );
    assert_eq!(role_rows[2]["to"], "default");
    assert_eq!(role_rows[0]["source"], "api");
    for code in ["COLLABORATOR_INVITED", "COLLABORATOR_JOINED"] {
        assert!(rows.iter().any(|(c, _)| c == code), "{code} missing from {rows:?}");
    }
    // The owner was told of each role change by mail.
    let told = mails(&app)
        .await
        .into_iter()
        .filter(|m| m.contains("To: owner@example.com") && m.contains("role changed"))
        .count();
    assert_eq!(told, 3);
    // Downgrade: the layers stop applying (every collaborator edits), and
    // come back with the upgrade.
    send_json(&app, Method::PUT, &format!("{project}/collaborators/{member_id}"), &owner, &json!({ "role": "viewer" }))
        .await;
    app.hub.set_plan("owner@example.com", Plan::Pro).await.unwrap();
    assert_eq!(app.patch_json(&project, &member, &json!({ "name": "Pro" })).await.status, StatusCode::OK);
    app.hub.set_plan("owner@example.com", Plan::Business).await.unwrap();
    assert_eq!(app.patch_json(&project, &member, &json!({ "name": "Biz" })).await.status, StatusCode::FORBIDDEN);
    // Both plan changes touch Business, so both are on the log.
    let plans: Vec<(String, String)> = audit_codes(&app, "owner@example.com")
        .await
        .into_iter()
        .filter(|(code, _)| code == "PLAN_CHANGED")
        .map(|(_, m)| (m["from"].as_str().unwrap().to_owned(), m["to"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(plans, [("business".to_owned(), "pro".to_owned()), ("pro".to_owned(), "business".to_owned())]);
}

async fn removal_ends_access_at_once(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Pro).await;
    let (_, member) = app.user("max@example.com", Plan::Free).await;
    let slug = app.project(&owner, "Removal").await;
    let member_id = join(&app, &owner, "max@example.com", &member, "editor").await;
    // The collaborator mints the project's upload token and uses it.
    let rotated = app.post_json(&format!("/api/projects/{slug}/upload-token"), &member, &json!({})).await;
    assert_eq!(rotated.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&rotated.body));
    let upload_token = rotated.json()["upload_token"].as_str().unwrap().to_owned();
    let upload = |token: String| {
        let app = &app;
        let slug = slug.clone();
        async move {
            app.request(
                Method::POST,
                &format!("/api/projects/{slug}/upload?label=ci"),
                Some(&token),
                Some(Body::from(openapi_yaml("1"))),
            )
            .await
            .status
        }
    };
    assert_eq!(upload(upload_token.clone()).await, StatusCode::CREATED);

    assert_eq!(app.delete(&format!("/api/v1/collaborators/{member_id}"), &owner).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&format!("/api/v1/projects/{slug}"), &member).await.status, StatusCode::NOT_FOUND);
    assert_eq!(upload(upload_token).await, StatusCode::UNAUTHORIZED, "the token they minted ended with them");
    let list = app.get("/api/v1/collaborators", &owner).await.json();
    assert_eq!(list["data"], json!([]));
    assert!(audit_codes(&app, "owner@example.com").await.is_empty(), "Pro keeps no audit rows");
    // Removing someone twice, or someone unknown, is a 404.
    assert_eq!(app.delete(&format!("/api/v1/collaborators/{member_id}"), &owner).await.status, StatusCode::NOT_FOUND);
}

async fn owner_only_actions_stay_with_the_owner(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, member) = app.user("eve@example.com", Plan::Free).await;
    let slug = app.project(&owner, "Owned").await;
    let member_id = join(&app, &owner, "eve@example.com", &member, "editor").await;
    let project = format!("/api/v1/projects/{slug}");
    let deleted = app.delete(&project, &member).await;
    assert_eq!(deleted.status, StatusCode::FORBIDDEN);
    assert_eq!(deleted.json()["error"]["details"]["action"], "delete_project");
    // Managing the project's team is the owner's.
    let override_attempt = send_json(
        &app,
        Method::PUT,
        &format!("{project}/collaborators/{member_id}"),
        &member,
        &json!({ "role": "editor" }),
    )
    .await;
    assert_eq!(override_attempt.status, StatusCode::FORBIDDEN);
    assert_eq!(override_attempt.json()["error"]["details"]["action"], "manage_collaborators");
    // The member's own team is their own (empty) account: the owner's
    // collaborators are not theirs to see or change.
    assert_eq!(app.get("/api/v1/collaborators", &member).await.json()["data"], json!([]));
    assert_eq!(app.delete(&format!("/api/v1/collaborators/{member_id}"), &member).await.status, StatusCode::NOT_FOUND);
    // The audit log is the owner's.
    let audit = app.get("/api/v1/audit", &member).await;
    assert_eq!(audit.error_code(), "PLAN_REQUIRED");
    let own = app.get("/api/v1/audit", &owner).await.json();
    assert!(own["data"].as_array().unwrap().iter().all(|r| r["account_user_id"] == own["data"][0]["account_user_id"]));
    assert_eq!(app.delete(&project, &owner).await.status, StatusCode::NO_CONTENT);
}

async fn audit_rows_filter_page_and_export(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (_, pro) = app.user("pro@example.com", Plan::Pro).await;
    let (_, member) = app.user("ida@example.com", Plan::Free).await;
    join(&app, &owner, "ida@example.com", &member, "editor").await;
    let formula = "=HYPERLINK(\"https://evil.example\",\"x\")";
    let evil = app.post_json("/api/v1/projects", &owner, &json!({ "name": formula, "slug": "evil" })).await;
    assert_eq!(evil.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&evil.body));
    app.clock.advance_millis(1000);
    let plain = app.project(&owner, "Plain").await;
    app.push(&plain, &member, "label=v1", openapi_yaml("1")).await;

    let all = app.get("/api/v1/audit?limit=100", &owner).await;
    assert_eq!(all.status, StatusCode::OK);
    let body = all.json();
    let rows = body["data"].as_array().unwrap();
    let total = body["pagination"]["total"].as_u64().unwrap();
    assert_eq!(total as usize, rows.len());
    assert!(total >= 5, "{body}");
    // Newest first, in the seed's shape.
    let times: Vec<&str> = rows.iter().map(|r| r["created_at"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    assert!(times[0].ends_with('Z') && times[0].len() == 24, "{}", times[0]);
    let created = rows.iter().find(|r| r["action"] == "PROJECT_CREATED" && r["metadata"]["name"] == formula);
    assert!(created.is_some(), "the JSON keeps the name as written: {body}");

    // Filters.
    let by_actor = app.get("/api/v1/audit?actor=ida@example.com", &owner).await.json();
    let actions: Vec<&str> =
        by_actor["data"].as_array().unwrap().iter().map(|r| r["action"].as_str().unwrap()).collect();
    assert!(actions.contains(&"SPEC_UPLOADED") && actions.iter().all(|a| *a != "PROJECT_CREATED"), "{actions:?}");
    let by_project = app.get(&format!("/api/v1/audit?project={plain}"), &owner).await.json();
    assert!(
        by_project["data"].as_array().unwrap().iter().all(|r| r["project_id"] == by_project["data"][0]["project_id"])
    );
    assert!(by_project["pagination"]["total"].as_u64().unwrap() >= 2);
    let by_category = app.get("/api/v1/audit?category=collaborators", &owner).await.json();
    assert!(
        by_category["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["action"].as_str().unwrap().starts_with("COLLABORATOR_"))
    );
    assert_eq!(by_category["pagination"]["total"], 2);
    let by_text = app.get("/api/v1/audit?q=hyperlink", &owner).await.json();
    assert_eq!(by_text["pagination"]["total"], 1);
    let nobody = app.get("/api/v1/audit?actor=nobody@example.com", &owner).await.json();
    assert_eq!(nobody["pagination"]["total"], 0);
    let later = app.get(&format!("/api/v1/audit?from={}", times[0]), &owner).await.json();
    assert!(later["pagination"]["total"].as_u64().unwrap() < total);
    let paged = app.get("/api/v1/audit?limit=2&offset=1", &owner).await.json();
    assert_eq!(paged["data"][0]["id"], rows[1]["id"]);
    assert_eq!(paged["data"].as_array().unwrap().len(), 2);
    for bad in ["category=nope", "category=", "from=yesterday", "from=2026-02-01&to=2026-01-01"] {
        let refused = app.get(&format!("/api/v1/audit?{bad}"), &owner).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{bad}");
    }

    // The CSV export: the same rows, formula cells neutralised.
    let csv = app.get("/api/audit/export.csv", &owner).await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.headers["content-type"].to_str().unwrap().starts_with("text/csv"));
    let mut reader = csv::Reader::from_reader(&csv.body[..]);
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(header, hub_core::audit_log::CSV_HEADER);
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), rows.len());
    for (record, row) in records.iter().zip(rows) {
        assert_eq!(&record[0], row["id"].as_str().unwrap());
        assert_eq!(&record[3], row["action"].as_str().unwrap());
        let metadata: Value = serde_json::from_str(&record[7]).unwrap();
        assert_eq!(metadata, row["metadata"]);
    }
    let evil_cells: Vec<&csv::StringRecord> = records.iter().filter(|r| r[7].contains("HYPERLINK")).collect();
    assert!(!evil_cells.is_empty());
    // The name sits inside the JSON cell (which starts with `{`); the
    // target id is the project's own. Each cell that a spreadsheet would
    // run is prefixed.
    assert!(records.iter().flat_map(|r| r.iter().collect::<Vec<_>>()).all(|cell| !cell.starts_with('=')));
    // Compressed, the streamed body ends cleanly too (the compressor polls
    // the stream once more after its end).
    let gzip = TestApp::send(
        &app.router,
        axum::http::Request::builder()
            .uri("/api/audit/export.csv")
            .header("authorization", format!("Bearer {owner}"))
            .header("accept-encoding", "gzip")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(gzip.status, StatusCode::OK);
    let mut unzipped = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&gzip.body[..]), &mut unzipped).unwrap();
    assert_eq!(csv::Reader::from_reader(unzipped.as_bytes()).records().count(), rows.len());
    let filtered = app.get("/api/audit/export.csv?category=collaborators", &owner).await;
    assert_eq!(csv::Reader::from_reader(&filtered.body[..]).records().count(), 2);

    // Below Business: 402 on every audit route.
    for path in ["/api/v1/audit", "/api/audit/export.csv", "/api/v1/audit/settings", "/api/v1/audit/webhook/deliveries"]
    {
        let refused = app.get(path, &pro).await;
        assert_eq!(refused.status, StatusCode::PAYMENT_REQUIRED, "{path}");
        assert_eq!(refused.json()["error"]["details"]["required_plan"], "business", "{path}");
    }
}

/// What a local receiver was sent: each request's headers and body.
type Seen = Arc<Mutex<Vec<(HeaderMap, Vec<u8>)>>>;

/// A local receiver that keeps every request's headers and body.
async fn receiver(status: StatusCode) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let kept = seen.clone();
    let app = axum::Router::new().fallback(move |headers: HeaderMap, body: axum::body::Bytes| {
        let kept = kept.clone();
        async move {
            kept.lock().unwrap().push((headers, body.to_vec()));
            status
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.ok() });
    (url, seen)
}

async fn webhook_deliveries_are_signed_and_logged(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    let (url, seen) = receiver(StatusCode::OK).await;
    let put = |body: Value| {
        let (app, owner) = (&app, &owner);
        async move { send_json(app, Method::PUT, "/api/v1/audit/settings", owner, &body).await }
    };
    let saved = put(json!({ "webhook_url": url, "retention_days": 90 })).await;
    assert_eq!(saved.status, StatusCode::OK, "{}", String::from_utf8_lossy(&saved.body));
    let secret = saved.json()["webhook_secret"].as_str().unwrap().to_owned();
    assert_eq!(secret.len(), 43, "32 bytes in base64url");
    // Shown once: never read back.
    let read = app.get("/api/v1/audit/settings", &owner).await.json();
    assert_eq!(read, json!({ "retention_days": 90, "webhook_url": url, "chat_webhook_url": null }));
    let same = put(json!({ "retention_days": 120 })).await.json();
    assert!(same.get("webhook_secret").is_none(), "{same}");

    app.project(&owner, "Hooked").await;
    assert!(app.hub.deliver_audit_outbox().await.unwrap() >= 1);
    let got = seen.lock().unwrap().clone();
    let rows = app.get("/api/v1/audit", &owner).await.json();
    let created = rows["data"].as_array().unwrap().iter().find(|r| r["action"] == "PROJECT_CREATED").unwrap().clone();
    let (headers, body) = got.iter().find(|(h, _)| h["x-service-event"] == "PROJECT_CREATED").unwrap();
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["user-agent"], "Service-Audit-Webhook/1");
    assert_eq!(headers["x-service-delivery"].to_str().unwrap(), created["id"].as_str().unwrap());
    assert_eq!(serde_json::from_slice::<Value>(body).unwrap(), created, "the body is the row");
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body);
    let expected = format!("sha256={}", hex::encode(mac.finalize().into_bytes()));
    assert_eq!(headers["x-service-signature"].to_str().unwrap(), expected);
    // Nothing is sent twice.
    let before = seen.lock().unwrap().len();
    assert_eq!(app.hub.deliver_audit_outbox().await.unwrap(), 0);
    assert_eq!(seen.lock().unwrap().len(), before);

    // The test event and the delivery log.
    let tested = app.post_json("/api/v1/audit/webhook/test", &owner, &json!({})).await.json();
    assert_eq!(tested["status"], 200);
    assert_eq!(tested["error"], Value::Null);
    let log = app.get("/api/v1/audit/webhook/deliveries", &owner).await.json();
    let actions: Vec<&str> = log["data"].as_array().unwrap().iter().map(|d| d["action"].as_str().unwrap()).collect();
    assert_eq!(actions[0], "AUDIT_WEBHOOK_TESTED");
    assert!(actions.contains(&"PROJECT_CREATED"));

    // A receiver that fails is logged with its status; nothing is retried.
    let (failing, failing_seen) = receiver(StatusCode::INTERNAL_SERVER_ERROR).await;
    let rotated = put(json!({ "webhook_url": failing })).await.json();
    assert_ne!(rotated["webhook_secret"].as_str().unwrap(), secret, "a new URL mints a new secret");
    app.project(&owner, "Second").await;
    app.hub.deliver_audit_outbox().await.unwrap();
    assert_eq!(app.hub.deliver_audit_outbox().await.unwrap(), 0);
    let log = app.get("/api/v1/audit/webhook/deliveries", &owner).await.json();
    let failed = log["data"].as_array().unwrap().iter().find(|d| d["status"] == 500).unwrap();
    assert!(failed["error"].as_str().unwrap().contains("500"));
    let projects_sent =
        failing_seen.lock().unwrap().iter().filter(|(h, _)| h["x-service-event"] == "PROJECT_CREATED").count();
    assert_eq!(projects_sent, 1);

    // Bad settings are named; a private address is refused by the guard.
    for (body, field) in [
        (json!({ "retention_days": 29 }), "retention_days"),
        (json!({ "retention_days": 3651 }), "retention_days"),
        (json!({ "webhook_url": "ftp://example.com" }), "webhook_url"),
        (json!({ "webhook_url": "http://10.0.0.1/hook" }), "webhook_url"),
        (json!({ "chat_webhook_url": "not a url" }), "chat_webhook_url"),
        (json!({ "secret": "mine" }), "secret"),
    ] {
        let refused = put(body.clone()).await;
        assert_eq!(refused.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(refused.json()["error"]["details"]["field"], field, "{body}");
    }
    // The chat webhook hears of a new token (and the owner gets a mail).
    let (chat, chat_seen) = receiver(StatusCode::OK).await;
    assert_eq!(put(json!({ "chat_webhook_url": chat })).await.status, StatusCode::OK);
    app.hub.create_token("owner@example.com", "ci", None, hub_core::Source::Api).await.unwrap();
    app.hub.settle_background().await;
    let said = chat_seen.lock().unwrap().clone();
    assert_eq!(said.len(), 1);
    let message: Value = serde_json::from_slice(&said[0].1).unwrap();
    assert!(message["text"].as_str().unwrap().contains("\"ci\""), "{message}");
    assert_eq!(message["text"], message["content"]);
    assert!(mails(&app).await.iter().any(|m| m.contains("To: owner@example.com") && m.contains("token was created")));

    // Clearing the URL stops deliveries and the test event says why.
    put(json!({ "webhook_url": null })).await;
    let none = app.post_json("/api/v1/audit/webhook/test", &owner, &json!({})).await;
    assert_eq!(none.status, StatusCode::BAD_REQUEST);
}

async fn prune_keeps_what_retention_keeps(app: TestApp) {
    let (_, owner) = app.user("owner@example.com", Plan::Business).await;
    send_json(&app, Method::PUT, "/api/v1/audit/settings", &owner, &json!({ "retention_days": 30 })).await;
    app.project(&owner, "Old").await;
    app.clock.advance_millis(29 * 86_400_000);
    app.project(&owner, "Recent").await;
    app.clock.advance_millis(2 * 86_400_000);
    let before = app.hub.audit_log("owner@example.com").await.unwrap().len();
    let removed = app.hub.prune_audit().await.unwrap();
    let after = app.hub.audit_log("owner@example.com").await.unwrap();
    assert_eq!(before - after.len(), 3, "the token, settings and first project rows are older than 30 days");
    assert!(removed >= 3);
    assert!(after.iter().any(|e| e.metadata["name"] == "Recent"));
    assert!(after.iter().all(|e| e.metadata["name"] != "Old"));
}

/// Three nodes (three connection pools) on one PostgreSQL database claim
/// the 03:23 UTC prune: one wins each day, whatever their clocks' skew.
#[tokio::test]
async fn the_daily_prune_runs_once_across_three_nodes() {
    let Some(app) = TestApp::postgres().await else { return };
    let platform::Db::Postgres(pool) = app.hub.db() else { unreachable!("a PostgreSQL app") };
    let mut nodes = vec![app.hub.db().clone()];
    for _ in 0..2 {
        let own = sqlx::PgPool::connect_with((*pool.connect_options()).clone()).await.unwrap();
        nodes.push(platform::Db::Postgres(own));
    }
    let offset = hub_core::audit_log::prune_offset_ms();
    let day = 20_000 * 86_400_000_i64;
    let claims_at = |at: i64| {
        let nodes = nodes.clone();
        async move {
            let claims = nodes.iter().enumerate().map(|(i, db)| {
                let skew = i64::try_from(i).unwrap() * 1500;
                platform::jobs::claim_daily(db, "hub.audit-prune", offset, at + skew)
            });
            futures_util::future::join_all(claims).await.into_iter().map(Result::unwrap).filter(|won| *won).count()
        }
    };
    assert_eq!(claims_at(day + offset).await, 1, "03:23: one node wins");
    assert_eq!(claims_at(day + offset + 3_600_000).await, 0, "later that day: done already");
    assert_eq!(claims_at(day + 86_400_000 + offset - 60_000).await, 0, "03:22 the next day: not yet");
    assert_eq!(claims_at(day + 86_400_000 + offset).await, 1, "03:23 the next day: one again");
}

mod pages {
    //! The team, invitation, access and audit pages through the dashboard.

    use axum::http::StatusCode;
    use hub_core::Plan;
    use test_kit::{TestApp, on_both_stores};

    use super::invitation_secret;
    use crate::dashboard::{Browser, location, signed_in, text};

    on_both_stores!(a_team_is_built_and_audited_in_the_dashboard);

    async fn a_team_is_built_and_audited_in_the_dashboard(app: TestApp) {
        let mut owner = signed_in(&app, "lead@example.com", Plan::Business).await;
        let created = owner.submit("/app/new", "/app/new", &[("name", "Atlas"), ("slug", "atlas")]).await;
        assert_eq!(created.status, StatusCode::SEE_OTHER);
        let team = owner.get("/app/team").await;
        assert!(text(&team).contains("Seats: 0 of 10 used"), "{}", text(&team));

        // A bad address stays on the form with the error beside its field.
        let bad = owner.submit("/app/team", "/app/team/invite", &[("email", "nobody"), ("role", "viewer")]).await;
        assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert!(text(&bad).contains("aria-invalid"), "{}", text(&bad));
        let sent =
            owner.submit("/app/team", "/app/team/invite", &[("email", "new@example.com"), ("role", "viewer")]).await;
        assert_eq!(sent.status, StatusCode::SEE_OTHER);
        let listed = text(&owner.get("/app/team").await);
        assert!(listed.contains("new@example.com") && listed.contains("invited"), "{listed}");

        // The invitee has no account: the link signs them up and in.
        let secret = invitation_secret(&app, "new@example.com").await;
        let mut invitee = Browser::new(&app);
        let page = invitee.get(&format!("/app/invitations/{secret}")).await;
        assert_eq!(page.status, StatusCode::OK);
        let page_text = text(&page);
        assert!(page_text.contains("lead@example.com") && page_text.contains("Create account and join"), "{page_text}");
        let weak = invitee
            .submit(
                &format!("/app/invitations/{secret}"),
                &format!("/app/invitations/{secret}/signup"),
                &[("password", "short")],
            )
            .await;
        assert_eq!(weak.status, StatusCode::UNPROCESSABLE_ENTITY);
        let joined = invitee
            .submit(
                &format!("/app/invitations/{secret}"),
                &format!("/app/invitations/{secret}/signup"),
                &[("password", "violet tractor wanders far")],
            )
            .await;
        assert_eq!(joined.status, StatusCode::SEE_OTHER, "{}", text(&joined));
        assert_eq!(location(&joined), "/app");
        let home = text(&invitee.get("/app").await);
        assert!(home.contains("Atlas"), "the collaborator sees the owner's project: {home}");
        // The link worked once.
        assert_eq!(invitee.get(&format!("/app/invitations/{secret}")).await.status, StatusCode::NOT_FOUND);

        // The owner hides the project from them on its Access tab.
        let member_id = app.hub.user_by_email("new@example.com").await.unwrap().id;
        let access = owner.get("/app/p/atlas/access").await;
        assert!(text(&access).contains("new@example.com"));
        let hidden =
            owner.submit("/app/p/atlas/access", &format!("/app/p/atlas/access/{member_id}"), &[("role", "none")]).await;
        assert_eq!(hidden.status, StatusCode::SEE_OTHER);
        assert_eq!(invitee.get("/app/p/atlas").await.status, StatusCode::NOT_FOUND);
        // The collaborator cannot manage the owner's project access.
        assert_eq!(invitee.get("/app/p/atlas/access").await.status, StatusCode::NOT_FOUND);

        // The audit viewer: rows, a filter, the export and the settings.
        let audit = text(&owner.get("/app/audit?category=collaborators").await);
        assert!(audit.contains("COLLABORATOR_ROLE_CHANGED") && audit.contains("COLLABORATOR_JOINED"), "{audit}");
        assert!(!audit.contains("PROJECT_CREATED"), "the category filters");
        let csv = owner.get("/app/audit/export.csv?q=atlas").await;
        assert_eq!(csv.status, StatusCode::OK);
        assert!(String::from_utf8_lossy(&csv.body).starts_with("id,account_user_id,actor_user_id,action"));
        let bad_date = owner.get("/app/audit?from=someday").await;
        assert_eq!(bad_date.status, StatusCode::UNPROCESSABLE_ENTITY);
        let saved = owner
            .submit(
                "/app/audit/settings",
                "/app/audit/settings",
                &[
                    ("retention_days", "365"),
                    ("webhook_url", "https://hooks.example.com/audit"),
                    ("chat_webhook_url", ""),
                ],
            )
            .await;
        assert_eq!(saved.status, StatusCode::OK);
        let shown = text(&saved);
        assert!(shown.contains("Signing secret") && shown.contains("shown once"), "{shown}");
        let again = text(&owner.get("/app/audit/settings").await);
        assert!(!again.contains("Signing secret") && again.contains("hooks.example.com"), "never shown again");
        // Below Business the pages say what is needed.
        let mut pro = signed_in(&app, "pro@example.com", Plan::Pro).await;
        assert_eq!(pro.get("/app/audit").await.status, StatusCode::PAYMENT_REQUIRED);
        // The collaborator leaves.
        let owner_id = app.hub.user_by_email("lead@example.com").await.unwrap().id;
        let left = invitee.submit("/app/team", &format!("/app/team/leave/{owner_id}"), &[]).await;
        assert_eq!(left.status, StatusCode::SEE_OTHER);
        assert!(!text(&invitee.get("/app").await).contains("Atlas"));
    }
}
