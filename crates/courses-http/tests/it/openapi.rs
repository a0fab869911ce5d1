use axum::http::{Method, StatusCode};
use courses_core::Plan;

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(every_documented_operation_is_routed);

async fn every_documented_operation_is_routed(app: TestApp) {
    let (_, key) = app.workspace(Plan::Partner).await;
    let doc = app.send(Method::GET, "/v1/openapi.json", None, None).await;
    assert_eq!(doc.status, StatusCode::OK);
    let doc = doc.json();
    assert_eq!(doc["openapi"], "3.1.0");
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 30);
    for (path, ops) in paths {
        for method in ops.as_object().unwrap().keys() {
            let concrete = path
                .replace("{collection}", "collections")
                .replace("{id}", "x")
                .replace("{screenId}", "x")
                .replace("{blockId}", "x")
                .replace("{courseId}", "x")
                .replace("{viewId}", "x")
                .replace("{packageId}", "x")
                .replace("{path}", "x");
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let response = app.send(method.clone(), &concrete, Some(&key), Some("{}".into())).await;
            assert_ne!(response.status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
            if response.status == StatusCode::NOT_FOUND {
                assert_ne!(response.json()["message"], "no such route", "{method} {path}");
            }
        }
    }
}
