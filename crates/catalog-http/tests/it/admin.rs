//! `/api/admin`: an operator scans a folder and follows its progress and
//! per-file problems, and sees the listeners with their apps; to anyone
//! else it does not exist.

use std::time::Duration;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::developer::listener_token;
use crate::on_both_stores;
use crate::support::{REDIRECT, TestApp};

on_both_stores!(an_operator_scans_and_sees_each_problem_and_every_listener, the_administration_is_hidden_from_others);

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
