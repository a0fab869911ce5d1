//! `svc push` against a real server: config discovery, both token kinds,
//! previews from CI variables, progress on a terminal, and exit codes.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::{SPEC, Server, http, run_json, svc};

struct Hub {
    server: Server,
    token: String,
    _dir: tempfile::TempDir,
}

async fn hub_with_project(project: &str) -> Hub {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap().to_owned();
    run_json(&["--data-dir", &data, "hub", "user", "create", "--email", "ci@example.com", "--plan", "pro"], &[]);
    let token =
        run_json(&["--data-dir", &data, "hub", "token", "create", "--email", "ci@example.com", "--name", "ci"], &[]);
    let token = token["token"].as_str().unwrap().to_owned();
    let server = Server::start(dir.path(), &[]);
    let created = http()
        .post(format!("{}/api/v1/projects", server.url))
        .bearer_auth(&token)
        .json(&serde_json::json!({ "name": project }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    Hub { server, token, _dir: dir }
}

fn push(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = svc();
    command.current_dir(cwd).arg("push").args(args);
    for name in [
        "SVC_SERVER",
        "SVC_TOKEN",
        "SVC_PROJECT",
        "GITHUB_REF",
        "GITHUB_SHA",
        "GITHUB_HEAD_REF",
        "GITHUB_REF_NAME",
        "CI_COMMIT_SHA",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied()).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).to_string()
}

async fn version(hub: &Hub, project: &str, label: &str) -> Value {
    http()
        .get(format!("{}/api/v1/projects/{project}/versions/{label}", hub.server.url))
        .bearer_auth(&hub.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test]
async fn config_is_discovered_from_a_nested_folder() {
    let hub = hub_with_project("Discovered").await;
    let repo = tempfile::tempdir().unwrap();
    let nested = repo.path().join("services/api/spec");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("openapi.yaml"), SPEC).unwrap();
    let config = serde_json::json!({ "server": hub.server.url, "tokenEnv": "HUB_CI_TOKEN", "project": "discovered", "label": "from-config" });
    std::fs::write(repo.path().join("svc.json"), config.to_string()).unwrap();
    let output = push(&nested, &["openapi.yaml"], &[("HUB_CI_TOKEN", &hub.token)]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("as from-config"));
    assert_eq!(version(&hub, "discovered", "from-config").await["spec_format"], "openapi3");
    // Flags override the file; the environment overrides the file too.
    let output = push(&nested, &["openapi.yaml", "--label", "from-flag", "--default"], &[("SVC_TOKEN", &hub.token)]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(version(&hub, "discovered", "from-flag").await["is_default"], true);
}

#[tokio::test]
async fn both_token_kinds_and_previews_from_ci_variables() {
    let hub = hub_with_project("Tokens").await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("spec.yaml"), SPEC).unwrap();
    let server = hub.server.url.as_str();
    // A personal token with --preview: the CI variables fill pr, commit and branch.
    let ci = [("GITHUB_REF", "refs/pull/17/merge"), ("GITHUB_SHA", "0123abcd"), ("GITHUB_HEAD_REF", "feature/tokens")];
    let output = push(
        dir.path(),
        &[
            "spec.yaml",
            "--project",
            "tokens",
            "--label",
            "pr-17",
            "--preview",
            "--server",
            server,
            "--token",
            &hub.token,
        ],
        &ci,
    );
    assert!(output.status.success(), "{}", stderr(&output));
    // The preview's docs and its own MCP server are printed for the PR.
    let printed = String::from_utf8_lossy(&output.stdout).to_string();
    let base = server.trim_end_matches('/');
    assert!(printed.contains(&format!("docs: {base}/docs/tokens/pr-17")), "{printed}");
    assert!(printed.contains(&format!("mcp:  {base}/api/mcp/tokens@pr-17")), "{printed}");
    let preview = version(&hub, "tokens", "pr-17").await;
    assert_eq!((preview["is_preview"].clone(), preview["pr_number"].clone()), (Value::Bool(true), Value::from(17)));
    assert_eq!(
        (preview["commit_sha"].as_str(), preview["branch"].as_str()),
        (Some("0123abcd"), Some("feature/tokens"))
    );
    // A project upload token goes to the upload endpoint.
    let rotated: Value = http()
        .post(format!("{server}/api/projects/tokens/upload-token"))
        .bearer_auth(&hub.token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let upload_token = rotated["upload_token"].as_str().unwrap();
    let output = push(
        dir.path(),
        &["--json", "spec.yaml", "--project", "tokens", "--label", "ci", "--server", server, "--token", upload_token],
        &[],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed["version_label"], "ci");
    // Upload tokens cannot push previews: a user error before any request.
    let output = push(
        dir.path(),
        &["spec.yaml", "--project", "tokens", "--preview", "--server", server, "--token", upload_token],
        &[],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("personal access token"));
    // A 4xx from the server is a user error with the server's message.
    let output = push(dir.path(), &["spec.yaml", "--project", "nope", "--server", server, "--token", &hub.token], &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("NOT_FOUND"), "{}", stderr(&output));
}

#[test]
fn exit_codes_for_broken_specs_and_stopped_servers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.yaml"), "openapi: 3.0.3\ninfo:\n  title: [unclosed\n").unwrap();
    std::fs::write(dir.path().join("ok.yaml"), SPEC).unwrap();
    let token = "svc_pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    // Nothing listens on this port: a broken spec must fail before any request.
    let output =
        push(dir.path(), &["broken.yaml", "--project", "p", "--server", "http://127.0.0.1:9", "--token", token], &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("broken.yaml:"), "names the file with line and column: {}", stderr(&output));
    assert!(!stderr(&output).contains("retrying"));
    let output =
        push(dir.path(), &["ok.yaml", "--project", "p", "--server", "http://127.0.0.1:9", "--token", token], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("gave up after 3 attempts"));
    let output = push(dir.path(), &["ok.yaml", "--server", "http://127.0.0.1:9", "--token", token], &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("no project"));
    let output = push(dir.path(), &["missing.yaml", "--project", "p", "--token", token], &[]);
    assert_eq!(output.status.code(), Some(1));
    let output = push(dir.path(), &["ok.yaml", "--project", "p", "--token", "ghp_nope"], &[]);
    assert_eq!(output.status.code(), Some(1));
}

/// A server that answers every request with 200 and a body that is not a
/// version: the CLI cannot make sense of a success, which is exit 3.
#[test]
fn an_unreadable_success_is_an_internal_error() {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(1) {
            let mut stream = stream.unwrap();
            let mut buf = [0_u8; 65536];
            let _ = stream.read(&mut buf);
            let body = "<html>not a hub</html>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ok.yaml"), SPEC).unwrap();
    let token = "svc_pat_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    let server = format!("http://{address}");
    let output = push(dir.path(), &["ok.yaml", "--project", "p", "--server", &server, "--token", token], &[]);
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
    assert!(stderr(&output).contains("is --server a hub?"));
}

#[tokio::test]
async fn a_large_push_shows_progress_on_a_terminal() {
    let hub = hub_with_project("Large").await;
    let dir = tempfile::tempdir().unwrap();
    // A valid 50 MB document: a real spec followed by padding in a comment-free way.
    let mut big = SPEC.as_bytes().to_vec();
    big.extend(std::iter::repeat_n(b' ', 50 * 1024 * 1024 - big.len() - 1));
    big.push(b'\n');
    std::fs::write(dir.path().join("big.yaml"), &big).unwrap();
    let command = format!(
        "{} push big.yaml --project large --label big --server {} --token {}",
        env!("CARGO_BIN_EXE_svc"),
        hub.server.url,
        hub.token
    );
    // `script` runs the command under a pseudo-terminal, as a person would.
    let output = std::process::Command::new("script")
        .current_dir(dir.path())
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .output()
        .expect("script runs");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("uploading ["), "a progress bar was drawn: {text}");
    assert!(text.contains("pushed big.yaml to large as big"), "{text}");
    assert_eq!(version(&hub, "large", "big").await["spec_size"], 50 * 1024 * 1024);
}

/// Runs the steps of the composite action in `action.yml` the way a runner
/// would: inputs substituted, each `run` script in bash with its `env`.
fn run_action(inputs: &[(&str, &str)], workdir: &Path) -> Vec<Output> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("action.yml")).unwrap();
    let action: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(action["runs"]["using"], "composite");
    let declared = action["inputs"].as_object().unwrap();
    for (name, _) in inputs {
        assert!(declared.contains_key(*name), "input {name} is declared");
    }
    let input = |name: &str| -> String {
        inputs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
            .or_else(|| declared[name]["default"].as_str().map(str::to_owned))
            .unwrap_or_default()
    };
    let substitute = |raw: &str| -> String {
        let mut out = raw.replace("${{ github.action_path }}", root.to_str().unwrap());
        while let Some(start) = out.find("${{ inputs.") {
            let end = out[start..].find("}}").unwrap() + start;
            let name = out[start + "${{ inputs.".len()..end].trim().to_owned();
            out.replace_range(start..end + 2, &input(&name));
        }
        out
    };
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_svc")).parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut outputs = Vec::new();
    for step in action["runs"]["steps"].as_array().unwrap() {
        assert_eq!(step["shell"], "bash");
        let mut command = std::process::Command::new("bash");
        command.current_dir(workdir).arg("-c").arg(substitute(step["run"].as_str().unwrap()));
        command.env("PATH", &path).env("RUNNER_TEMP", workdir).env_remove("SVC_TOKEN").env_remove("SVC_SERVER");
        for (key, value) in step["env"].as_object().into_iter().flatten() {
            command.env(key, substitute(value.as_str().unwrap()));
        }
        let output = command.output().unwrap();
        let failed = !output.status.success();
        outputs.push(output);
        if failed {
            break;
        }
    }
    outputs
}

#[tokio::test]
async fn the_ci_action_runs_its_steps_against_a_local_server() {
    let hub = hub_with_project("Action").await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("openapi.yaml"), SPEC).unwrap();
    let inputs = [
        ("spec", "openapi.yaml"),
        ("project", "action"),
        ("server", hub.server.url.as_str()),
        ("token", hub.token.as_str()),
        ("label", "from-action"),
        ("make-default", "true"),
    ];
    let outputs = run_action(&inputs, dir.path());
    assert_eq!(outputs.len(), 2, "both steps ran");
    for output in &outputs {
        assert!(output.status.success(), "{}{}", String::from_utf8_lossy(&output.stdout), stderr(output));
    }
    assert!(String::from_utf8_lossy(&outputs[0].stdout).contains("using svc 0."));
    assert!(String::from_utf8_lossy(&outputs[1].stdout).contains("pushed openapi.yaml to action as from-action"));
    assert_eq!(version(&hub, "action", "from-action").await["is_default"], true);
    // A cli-version that is not a major version number stops at the first step.
    let outputs = run_action(
        &[("spec", "openapi.yaml"), ("project", "action"), ("server", "x"), ("token", "x"), ("cli-version", "v1")],
        dir.path(),
    );
    assert_eq!(outputs.len(), 1);
    assert!(String::from_utf8_lossy(&outputs[0].stdout).contains("cli-version must be a major version number"));
}

const WIDER: &str = "openapi: 3.0.3\ninfo: {title: Nodes, version: '2'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n  /b:\n    get:\n      responses:\n        '200': {description: ok}\n";
const NARROWER: &str = "openapi: 3.0.3\ninfo: {title: Nodes, version: '3'}\npaths:\n  /b:\n    get:\n      responses:\n        '200': {description: ok}\n";

#[test]
fn local_diff_reports_changes_and_fails_on_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("v1.yaml", SPEC), ("v2.yaml", WIDER), ("v3.yaml", NARROWER)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let run = |args: &[&str]| svc().current_dir(dir.path()).arg("diff").args(args).output().unwrap();
    let additive = run(&["v1.yaml", "v2.yaml", "--fail-on", "breaking"]);
    assert!(additive.status.success(), "{}", stderr(&additive));
    assert!(String::from_utf8_lossy(&additive.stdout).contains("suggested bump: minor"));
    assert_eq!(run(&["v1.yaml", "v2.yaml", "--fail-on", "additive"]).status.code(), Some(1));
    let breaking = svc().current_dir(dir.path()).args(["--json", "diff", "v2.yaml", "v3.yaml"]).output().unwrap();
    assert!(breaking.status.success(), "without --fail-on the exit is 0");
    let report: Value = serde_json::from_slice(&breaking.stdout).unwrap();
    assert_eq!(report["bump"], "major");
    assert!(
        report["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["rule"] == "endpoint-removed" && c["kind"] == "breaking")
    );
    let failing = run(&["v2.yaml", "v3.yaml", "--fail-on", "breaking"]);
    assert_eq!(failing.status.code(), Some(1));
    let markdown = run(&["v2.yaml", "v3.yaml", "--markdown"]);
    assert!(String::from_utf8_lossy(&markdown.stdout).to_lowercase().contains("major"));
    std::fs::write(dir.path().join("schema.graphql"), "type Query { a: Int }").unwrap();
    let incompatible = run(&["v1.yaml", "schema.graphql"]);
    assert_eq!(incompatible.status.code(), Some(1));
}

#[test]
fn local_sdk_writes_the_same_bytes_every_time() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("v1.yaml"), SPEC).unwrap();
    std::fs::write(dir.path().join("schema.graphql"), "type Query { a: Int }").unwrap();
    let run = |args: &[&str]| svc().current_dir(dir.path()).arg("sdk").args(args).output().unwrap();
    let ts = run(&["v1.yaml", "--language", "ts"]);
    assert!(ts.status.success(), "{}", stderr(&ts));
    let source = String::from_utf8_lossy(&ts.stdout);
    assert!(source.contains("export class Client extends BaseClient"), "{source}");
    let written = run(&["v1.yaml", "--language", "typescript", "-o", "client.ts"]);
    assert!(written.status.success(), "{}", stderr(&written));
    assert_eq!(std::fs::read(dir.path().join("client.ts")).unwrap(), ts.stdout, "byte-identical");
    let py = run(&["v1.yaml", "--language", "python"]);
    assert!(String::from_utf8_lossy(&py.stdout).contains("class Client(_BaseClient):"));
    let graphql = run(&["schema.graphql", "--language", "python"]);
    assert_eq!(graphql.status.code(), Some(1));
    assert!(stderr(&graphql).contains("GraphQL"), "{}", stderr(&graphql));
}

#[tokio::test]
async fn push_refuses_breaking_changes_against_the_default() {
    let hub = hub_with_project("Guarded").await;
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("v1.yaml", SPEC), ("v2.yaml", WIDER), ("v3.yaml", NARROWER)] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let server = hub.server.url.as_str();
    let push_file = |file: &str, label: &str| {
        push(
            dir.path(),
            &[
                file,
                "--project",
                "guarded",
                "--label",
                label,
                "--default",
                "--fail-on-breaking",
                "--server",
                server,
                "--token",
                &hub.token,
            ],
            &[],
        )
    };
    let first = push_file("v1.yaml", "v1");
    assert!(first.status.success(), "a project without a default accepts anything: {}", stderr(&first));
    let additive = push_file("v2.yaml", "v2");
    assert!(additive.status.success(), "{}", stderr(&additive));
    let breaking = push_file("v3.yaml", "v3");
    assert_eq!(breaking.status.code(), Some(1));
    assert!(stderr(&breaking).contains("refusing to push: 1 breaking change"), "{}", stderr(&breaking));
    let missing = version(&hub, "guarded", "v3").await;
    assert_eq!(missing["error"]["code"], "NOT_FOUND", "nothing was pushed");
}
