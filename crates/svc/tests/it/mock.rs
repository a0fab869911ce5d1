//! `svc mock`: a local file served by the same engine as the hub's mock,
//! reloaded when the file changes, refused with exit 1 when invalid.

use std::io::{BufRead as _, BufReader};
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;

use crate::support::{Server, http, svc};

const V1: &str = "openapi: 3.0.3\ninfo: {title: Local, version: '1'}\npaths:\n  /things/{id}:\n    get:\n      operationId: getThing\n      parameters: [{name: id, in: path, required: true, schema: {type: integer}}]\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                type: object\n                required: [id, label]\n                properties: {id: {type: integer, minimum: 10}, label: {type: string, enum: [first]}}\n";

fn start(path: &std::path::Path, extra: &[&str]) -> Server {
    let mut child = svc()
        .args(["--json", "mock"])
        .arg(path)
        .args(["--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("svc mock starts");
    let stdout = child.stdout.take().expect("stdout piped");
    let mut lines = BufReader::new(stdout).lines();
    let line = lines.next().expect("an address line").expect("readable");
    let value: Value = serde_json::from_str(&line).expect("JSON line");
    assert_eq!(value["operations"], 1);
    std::thread::spawn(move || for _ in lines {});
    Server { url: value["url"].as_str().expect("url").to_owned(), child }
}

#[tokio::test]
async fn serves_a_local_file_and_reloads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.yaml");
    std::fs::write(&path, V1).unwrap();
    let server = start(&path, &["--validate"]);
    let client = http();
    let url = format!("{}/things/12", server.url);
    let first = client.get(&url).send().await.unwrap();
    assert_eq!(first.headers()["x-mock-operation-id"], "getThing");
    assert_eq!(first.json::<Value>().await.unwrap(), serde_json::json!({"id": 10, "label": "first"}));
    let invalid = client.get(format!("{}/things/abc", server.url)).send().await.unwrap();
    assert_eq!(invalid.status(), 400, "--validate turns strict validation on");

    // No rate limit unless asked for.
    for _ in 0..80 {
        assert_eq!(client.get(&url).send().await.unwrap().status(), 200);
    }

    // An edit is served without a restart; a broken edit keeps the last good one.
    std::fs::write(&path, V1.replace("enum: [first]", "enum: [second]").replace("getThing", "fetchThing")).unwrap();
    let mut reloaded = None;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let response = client.get(&url).send().await.unwrap();
        if response.headers()["x-mock-operation-id"] == "fetchThing" {
            reloaded = Some(response.json::<Value>().await.unwrap());
            break;
        }
    }
    assert_eq!(reloaded.expect("reloaded within 10 s")["label"], "second");
    std::fs::write(&path, "openapi: 3.0.3\ninfo: [").unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let still = client.get(&url).send().await.unwrap();
    assert_eq!(still.headers()["x-mock-operation-id"], "fetchThing");
}

#[test]
fn an_invalid_file_is_a_user_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, "openapi: 3.0.3\ninfo: {title: x\n").unwrap();
    let output = svc().arg("mock").arg(&path).args(["--listen", "127.0.0.1:0"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.yaml:"), "{stderr}");
}

#[tokio::test]
async fn rate_limit_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.yaml");
    std::fs::write(&path, V1).unwrap();
    let server = start(&path, &["--rate-limit", "5"]);
    let client = http();
    let mut statuses = Vec::new();
    for _ in 0..6 {
        statuses.push(client.get(format!("{}/things/1", server.url)).send().await.unwrap().status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 200, 200, 429]);
}
