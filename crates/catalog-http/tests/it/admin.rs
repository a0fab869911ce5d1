//! `/api/admin`: an operator scans a folder and follows its progress and
//! per-file problems, and sees the listeners with their apps; to anyone
//! else it does not exist.

use std::time::Duration;

use axum::http::{Method, StatusCode};
use kernel::Clock as _;
use serde_json::{Value, json};

use crate::developer::listener_token;
use crate::on_both_stores;
use crate::support::{PASSWORD, REDIRECT, TestApp};

on_both_stores!(
    an_operator_scans_and_sees_each_problem_and_every_listener,
    the_administration_is_hidden_from_others,
    a_scan_runs_on_one_node_and_every_node_sees_its_progress,
    an_operator_creates_disables_and_deletes_listeners
);

async fn scan_until_finished(app: &TestApp, token: &str) -> Value {
    for _ in 0..600 {
        let status = app.get("/api/admin/scan", token).await.json();
        if status["scan"]["finished"] == true {
            return status["scan"].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the scan did not finish");
}

async fn an_operator_scans_and_sees_each_problem_and_every_listener(app: TestApp) {
    let ada = listener_token(&app, "ada").await;
    app.catalog.make_operator("ada").await.unwrap();
    let bob = listener_token(&app, "bob").await;
    let made = app
        .send_json(
            Method::POST,
            "/api/apps",
            &bob,
            &json!({ "name": "Bob's radio", "redirect_uris": [REDIRECT], "flows": ["pkce"] }),
        )
        .await;
    assert_eq!(made.status, StatusCode::CREATED);

    // A folder with two good files and two the scan cannot read.
    let dir = tempfile::tempdir().unwrap();
    let samples = catalog_core::synth::chord(&[60, 64, 67], 1.0, 22_050);
    for name in ["one.wav", "two.wav"] {
        catalog_core::synth::write_wav(
            &dir.path().join(name),
            &samples,
            22_050,
            &[("INAM", format!("Admin song {name}")), ("IART", "Operator".to_owned())],
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("broken.flac"), b"not a flac file at all").unwrap();
    std::fs::write(dir.path().join("odd.ape"), b"MAC ").unwrap();
    assert_eq!(app.get("/api/admin/scan", &ada).await.json(), json!({ "scan": null }));
    let started = app.send_json(Method::POST, "/api/admin/scan", &ada, &json!({ "dir": dir.path() })).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", String::from_utf8_lossy(&started.body));
    let scan = scan_until_finished(&app, &ada).await;
    assert_eq!(scan["total"], 4, "{scan}");
    assert_eq!(scan["done"], 4, "{scan}");
    assert_eq!(scan["failed"], 2, "{scan}");
    assert!(scan["added"].as_u64().unwrap() >= 2, "{scan}");
    let problems: Vec<(String, String)> = scan["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["path"].as_str().unwrap().rsplit('/').next().unwrap().to_owned(),
                p["problem"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(problems.iter().any(|(f, why)| f == "odd.ape" && why.contains("unsupported")), "{problems:?}");
    assert!(problems.iter().any(|(f, _)| f == "broken.flac"), "{problems:?}");
    // What was scanned is in the catalog.
    let found = app.get("/v1/search?type=track&q=admin", &ada).await.json();
    assert_eq!(found["tracks"]["total"], 2, "{found}");

    // Bad folders are refused before anything runs.
    for dir in ["", "relative/path", "/no/such/folder/anywhere"] {
        let answer = app.send_json(Method::POST, "/api/admin/scan", &ada, &json!({ "dir": dir })).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{dir:?}");
    }

    let users = app.get("/api/admin/users", &ada).await.json();
    let names: Vec<&str> = users["items"].as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect();
    assert_eq!(names, ["ada", "bob"], "{users}");
    assert_eq!(users["items"][0]["operator"], true);
    assert_eq!(users["items"][1]["operator"], false);
    assert_eq!(users["items"][1]["apps"][0]["name"], "Bob's radio", "{users}");
    assert!(!users.to_string().contains("secret"), "{users}");
}

async fn the_administration_is_hidden_from_others(app: TestApp) {
    let bob = listener_token(&app, "bob").await;
    let dir = tempfile::tempdir().unwrap();
    for (method, path) in [(Method::GET, "/api/admin/scan"), (Method::GET, "/api/admin/users")] {
        assert_eq!(app.request(method, path, Some(&bob), None).await.status, StatusCode::NOT_FOUND, "{path}");
    }
    let answer = app.send_json(Method::POST, "/api/admin/scan", &bob, &json!({ "dir": dir.path() })).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    // An operator's token from another app is refused too.
    app.catalog.make_operator("bob").await.unwrap();
    let other = app.token_for("bob", "user-read-private").await;
    assert_eq!(app.get("/api/admin/users", &other).await.status, StatusCode::FORBIDDEN);
    assert_eq!(app.get("/api/admin/users", &bob).await.status, StatusCode::OK);
}

/// Two nodes over one store: while one holds the scan lease the other's
/// page refuses a second scan and shows the first one's progress; a lease
/// its node stopped renewing lapses, the scan reads as stopped, and a new
/// one may start; its progress is read back on the other node.
async fn a_scan_runs_on_one_node_and_every_node_sees_its_progress(app: TestApp) {
    let ada = listener_token(&app, "ada").await;
    app.catalog.make_operator("ada").await.unwrap();
    let ada_id = app.get("/v1/me", &ada).await.json()["id"].as_str().unwrap().to_owned();
    let other_node = catalog_core::Catalog::new(app.catalog.db().clone(), std::sync::Arc::new(app.clock.clone()));

    // The other node is scanning (its lease, claimed as a scan would).
    let now = app.clock.now();
    let held = catalog_core::store::ScanRunRow {
        node: "the-other-node".to_owned(),
        dir: "/srv/elsewhere".to_owned(),
        started_at: now.as_millis(),
        lease_until: now.as_millis() + 60_000,
        finished: false,
        error: None,
        progress:
            r#"{"done":3,"total":10,"added":3,"unchanged":0,"failed":0,"removed":0,"current":"c.flac","problems":[]}"#
                .to_owned(),
    };
    assert!(other_node.store().claim_scan(&held, now).await.unwrap());
    assert!(!other_node.store().claim_scan(&held, now).await.unwrap(), "a held lease cannot be claimed again");

    let dir = tempfile::tempdir().unwrap();
    let samples = catalog_core::synth::chord(&[60, 64, 67], 1.0, 22_050);
    catalog_core::synth::write_wav(&dir.path().join("one.wav"), &samples, 22_050, &[("INAM", "Lease song".to_owned())])
        .unwrap();
    std::fs::write(dir.path().join("broken.flac"), b"not a flac file at all").unwrap();
    let refused = app.send_json(Method::POST, "/api/admin/scan", &ada, &json!({ "dir": dir.path() })).await;
    assert_eq!(refused.spotify_error(409), "a scan is already running");
    let status = app.get("/api/admin/scan", &ada).await.json();
    assert_eq!(status["scan"]["dir"], "/srv/elsewhere", "{status}");
    assert_eq!(status["scan"]["finished"], false, "{status}");
    assert_eq!((status["scan"]["done"].clone(), status["scan"]["total"].clone()), (json!(3), json!(10)), "{status}");
    assert_eq!(status["scan"]["current"], "c.flac");

    // The other node stops renewing: after the lease the scan reads as stopped.
    app.clock.advance_millis(60_001);
    let status = app.get("/api/admin/scan", &ada).await.json();
    assert_eq!(status["scan"]["finished"], true, "{status}");
    assert_eq!(status["scan"]["error"], "the node running this scan stopped before it finished", "{status}");

    // Now this node claims the scan; the other node reads its progress.
    let started = app.send_json(Method::POST, "/api/admin/scan", &ada, &json!({ "dir": dir.path() })).await;
    assert_eq!(started.status, StatusCode::ACCEPTED, "{}", String::from_utf8_lossy(&started.body));
    let scan = scan_until_finished(&app, &ada).await;
    assert_eq!((scan["done"].clone(), scan["failed"].clone()), (json!(2), json!(1)), "{scan}");
    assert_eq!(scan["error"], Value::Null, "{scan}");
    let seen = other_node.scan_status(&ada_id).await.unwrap().unwrap();
    assert!(seen.finished);
    assert_eq!(seen.dir, dir.path().to_str().unwrap());
    assert_eq!((seen.progress.done, seen.progress.added, seen.progress.failed), (2, 1, 1));
    assert!(seen.progress.problems.iter().any(|p| p.path.ends_with("broken.flac")), "{:?}", seen.progress.problems);
    // Finished, the lease is free for the other node.
    let next = catalog_core::store::ScanRunRow { started_at: app.clock.now().as_millis(), ..held };
    assert!(other_node.store().claim_scan(&next, app.clock.now()).await.unwrap());
}

async fn login_error(app: &TestApp, username: &str, password: &str) -> Option<String> {
    match app.catalog.login(username, password, None).await {
        Ok(_) => None,
        Err(catalog_core::error::CatalogError::Forbidden(message)) => Some(message),
        Err(other) => panic!("unexpected {other:?}"),
    }
}

async fn an_operator_creates_disables_and_deletes_listeners(app: TestApp) {
    let ada = listener_token(&app, "ada").await;
    app.catalog.make_operator("ada").await.unwrap();
    let ada_id = app.get("/v1/me", &ada).await.json()["id"].as_str().unwrap().to_owned();
    let bob = listener_token(&app, "bob").await;
    let bob_id = app.get("/v1/me", &bob).await.json()["id"].as_str().unwrap().to_owned();
    // A listener who is not an operator finds no such API.
    let refused = app.send_json(Method::POST, "/api/admin/users", &bob, &json!({ "username": "eve" })).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);

    // Created with a generated password, shown once.
    let made =
        app.send_json(Method::POST, "/api/admin/users", &ada, &json!({ "username": "cleo", "operator": true })).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&made.body));
    assert_eq!(made.headers["cache-control"], "no-store");
    let made = made.json();
    assert_eq!(
        (made["username"].clone(), made["operator"].clone(), made["disabled"].clone()),
        (json!("cleo"), json!(true), json!(false))
    );
    let password = made["password"].as_str().unwrap().to_owned();
    assert!(password.len() >= 12, "{password}");
    assert_eq!(login_error(&app, "cleo", &password).await, None);
    assert!(app.catalog.is_operator(made["id"].as_str().unwrap()).await.unwrap());
    for (body, status) in [
        (json!({ "username": "cleo" }), 409),
        (json!({ "username": "no spaces allowed" }), 400),
        (json!({ "username": "dan", "operator": "yes" }), 400),
        (json!({}), 400),
    ] {
        assert_eq!(
            app.send_json(Method::POST, "/api/admin/users", &ada, &body).await.status.as_u16(),
            status,
            "{body}"
        );
    }

    // Bob has an app with a client-credentials token.
    let app_made = app
        .send_json(Method::POST, "/api/apps", &bob, &json!({ "name": "Bob's", "flows": ["client_credentials"] }))
        .await
        .json();
    let (client_id, secret) = (app_made["client_id"].as_str().unwrap(), app_made["client_secret"].as_str().unwrap());
    let basic = Some((client_id, secret));
    let app_token = app.form("/api/token", &[("grant_type", "client_credentials")], basic).await.json()["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(app.get("/v1/markets", &app_token).await.status, StatusCode::OK);

    // Disabled: no sign-in (said only with the right password), every
    // token of his and of his app refused, his app unknown to /api/token.
    let path = format!("/api/admin/users/{bob_id}");
    let disabled = app.send_json(Method::PUT, &path, &ada, &json!({ "disabled": true })).await;
    assert_eq!(disabled.status, StatusCode::NO_CONTENT, "{}", String::from_utf8_lossy(&disabled.body));
    assert_eq!(app.get("/v1/me", &bob).await.status, StatusCode::UNAUTHORIZED);
    assert_eq!(app.get("/v1/markets", &app_token).await.status, StatusCode::UNAUTHORIZED);
    let token = app.form("/api/token", &[("grant_type", "client_credentials")], basic).await;
    assert_eq!((token.status, token.json()["error"].clone()), (StatusCode::UNAUTHORIZED, json!("invalid_client")));
    assert_eq!(
        login_error(&app, "bob", PASSWORD).await.as_deref(),
        Some("this account is disabled: ask the catalog's operator")
    );
    assert_eq!(login_error(&app, "bob", "a wrong password").await.as_deref(), Some("wrong user name or password"));
    let users = app.get("/api/admin/users", &ada).await.json();
    let listed: Vec<(String, bool)> = users["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["username"].as_str().unwrap().to_owned(), u["disabled"].as_bool().unwrap()))
        .collect();
    assert_eq!(listed, [("ada".to_owned(), false), ("bob".to_owned(), true), ("cleo".to_owned(), false)]);

    // Enabled again: he signs in and his app gets tokens.
    assert_eq!(
        app.send_json(Method::PUT, &path, &ada, &json!({ "disabled": false })).await.status,
        StatusCode::NO_CONTENT
    );
    assert_eq!(login_error(&app, "bob", PASSWORD).await, None);
    let token = app.form("/api/token", &[("grant_type", "client_credentials")], basic).await;
    assert_eq!(token.status, StatusCode::OK);

    // An operator cannot lock themselves out; unknown listeners are 404.
    let own = format!("/api/admin/users/{ada_id}");
    let answer = app.send_json(Method::PUT, &own, &ada, &json!({ "disabled": true })).await;
    assert_eq!(answer.spotify_error(400), "you cannot disable your own account");
    assert_eq!(
        app.request(Method::DELETE, &own, Some(&ada), None).await.spotify_error(400),
        "you cannot delete your own account"
    );
    assert_eq!(
        app.send_json(Method::PUT, &path, &ada, &json!({ "disabled": "yes" })).await.status,
        StatusCode::BAD_REQUEST
    );
    let nobody = "/api/admin/users/nobody";
    assert_eq!(
        app.send_json(Method::PUT, nobody, &ada, &json!({ "disabled": true })).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.request(Method::DELETE, nobody, Some(&ada), None).await.status, StatusCode::NOT_FOUND);

    // Deleted: gone from the list with his app; his name no longer signs in.
    assert_eq!(app.request(Method::DELETE, &path, Some(&ada), None).await.status, StatusCode::NO_CONTENT);
    let users = app.get("/api/admin/users", &ada).await.json();
    let names: Vec<&str> = users["items"].as_array().unwrap().iter().map(|u| u["username"].as_str().unwrap()).collect();
    assert_eq!(names, ["ada", "cleo"]);
    assert_eq!(login_error(&app, "bob", PASSWORD).await.as_deref(), Some("wrong user name or password"));
    let token = app.form("/api/token", &[("grant_type", "client_credentials")], basic).await;
    assert_eq!(token.status, StatusCode::UNAUTHORIZED);
}
