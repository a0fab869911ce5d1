//! The server process stays small and up under hostile input: schemas that
//! ask for gigabytes through the mock and the docs, and 200 MB bodies sent
//! without credentials. Memory is read from `/proc` (peak resident size).

use std::time::Duration;

use crate::support::{Server, http, run_json};

/// Schemas that ask for a terabyte string, ten billion pattern characters,
/// a billion lists of a million 60 KB strings, and recursion without end.
const HOSTILE: &str = r#"
openapi: 3.0.3
info: {title: Hostile, version: '1'}
paths:
  /ordinary:
    get:
      operationId: ordinary
      responses:
        '200': {description: x, content: {application/json: {schema: {type: object, properties: {name: {type: string}}}}}}
  /huge-string:
    get:
      operationId: hugeString
      responses:
        '200': {description: x, content: {application/json: {schema: {type: string, minLength: 1000000000000}}}}
  /huge-pattern:
    post:
      operationId: hugePattern
      requestBody: {content: {application/json: {schema: {$ref: '#/components/schemas/Code'}}}}
      responses:
        '200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Code'}}}}
  /huge-list:
    get:
      operationId: hugeList
      responses:
        '200':
          description: x
          content:
            application/json:
              schema: {type: array, minItems: 1000000000, items: {type: array, minItems: 1000000, items: {type: string, minLength: 60000}}}
  /deep:
    get:
      operationId: deep
      responses:
        '200': {description: x, content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}}
components:
  schemas:
    Code: {type: object, required: [code], properties: {code: {type: string, pattern: '^(x{100000}){100000}$'}}}
    Node:
      type: object
      required: [child, items, name]
      properties:
        name: {type: string, minLength: 50000}
        child: {$ref: '#/components/schemas/Node'}
        items: {type: array, minItems: 64, items: {$ref: '#/components/schemas/Node'}}
"#;

/// Peak and current resident size of a process, in KiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}

#[tokio::test]
async fn hostile_schemas_and_bodies_keep_the_process_small_and_up() {
    if !std::path::Path::new("/proc/self/status").exists() {
        eprintln!("skipping: no /proc to read memory from");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    run_json(&["--data-dir", data, "hub", "user", "create", "--email", "t@example.com", "--plan", "pro"], &[]);
    let token =
        run_json(&["--data-dir", data, "hub", "token", "create", "--email", "t@example.com", "--name", "t"], &[]);
    let token = token["token"].as_str().unwrap().to_owned();
    let server = Server::start(dir.path(), &[("SVC_MOCK_RATE_PER_IP", "0"), ("SVC_MOCK_RATE_PER_PROJECT", "0")]);
    let client = http();
    let auth = format!("Bearer {token}");
    let created = client
        .post(format!("{}/api/v1/projects", server.url))
        .header("authorization", &auth)
        .json(&serde_json::json!({"name": "Hostile", "is_public": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
    let pushed = client
        .post(format!("{}/api/v1/projects/hostile/versions?label=1&makeDefault=true", server.url))
        .header("authorization", &auth)
        .body(HOSTILE)
        .send()
        .await
        .unwrap();
    assert_eq!(pushed.status(), 201, "{}", pushed.text().await.unwrap());
    // Warm up: an ordinary overview, operation page and mock answer, so the
    // baseline holds what any request needs (the compiled engine, the
    // highlighter's grammars, the templates).
    for path in ["/docs/hostile/1", "/docs/hostile/1/op/ordinary", "/mock/hostile/ordinary"] {
        let warm = client.get(format!("{}{path}", server.url)).send().await.unwrap();
        assert_eq!(warm.status(), 200, "{path}");
    }
    let (_, baseline) = memory(server.child.id());

    for (method, path) in [("GET", "/huge-string"), ("POST", "/huge-pattern"), ("GET", "/huge-list"), ("GET", "/deep")]
    {
        let request = client.request(method.parse().unwrap(), format!("{}/mock/hostile{path}", server.url));
        let answer = request.header("content-type", "application/json").body("{\"code\":\"x\"}").send().await.unwrap();
        assert!(answer.status().as_u16() < 500, "{path}: {}", answer.status());
        let body = answer.text().await.unwrap();
        assert!(body.len() <= 2 * 1024 * 1024, "{path}: {} bytes", body.len());
    }
    for op in ["hugeString", "hugePattern", "hugeList", "deep"] {
        let page = client.get(format!("{}/docs/hostile/1/op/{op}", server.url)).send().await.unwrap();
        assert_eq!(page.status(), 200, "{op}");
        assert!(page.text().await.unwrap().len() < 300 * 1024, "{op}");
    }

    // 200 MB bodies without credentials, to every kind of route.
    let routes = [
        ("POST", "/api/v1/projects".to_owned()),
        ("PATCH", "/api/v1/projects/hostile".to_owned()),
        ("POST", "/api/v1/projects/hostile/versions?label=2".to_owned()),
        ("POST", "/api/projects/hostile/upload".to_owned()),
        ("POST", "/api/v1/projects/hostile/mock/overrides/import".to_owned()),
        ("POST", "/docs/_signin".to_owned()),
        ("POST", "/docs/hostile/_login".to_owned()),
        ("POST", "/docs/hostile/1/_tryit".to_owned()),
        ("POST", "/mock/hostile/huge-pattern".to_owned()),
    ];
    for (method, path) in &routes {
        let stream = futures_util::stream::iter((0..3200).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 64 * 1024])));
        let answer = client
            .request(method.parse().unwrap(), format!("{}{path}", server.url))
            .header("content-type", "application/json")
            .body(reqwest::Body::wrap_stream(stream))
            .send()
            .await;
        // The server may answer and close before the client finished sending.
        if let Ok(answer) = answer {
            let status = answer.status().as_u16();
            assert!(matches!(status, 401 | 403 | 413 | 429), "{method} {path}: {status}");
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (peak, now) = memory(server.child.id());
    eprintln!("peak resident {peak} KiB, baseline {baseline} KiB, now {now} KiB");
    let alive = client.get(format!("{}/healthz", server.url)).send().await.unwrap();
    assert_eq!(alive.status(), 200, "the process is up");
    assert!(
        peak.saturating_sub(baseline) < 64 * 1024,
        "peak grew {} KiB over the baseline of {baseline} KiB (now {now} KiB)",
        peak.saturating_sub(baseline)
    );
}
