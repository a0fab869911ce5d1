use crate::support::{Server, http, run_json, svc};

#[test]
fn admin_commands_follow_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let user =
        run_json(&["--data-dir", data, "hub", "user", "create", "--email", "Ada@Example.com", "--plan", "pro"], &[]);
    assert_eq!(user["email"], "ada@example.com");
    assert_eq!(user["plan"], "pro");
    let token =
        run_json(&["--data-dir", data, "hub", "token", "create", "--email", "ada@example.com", "--name", "ci"], &[]);
    let plaintext = token["token"].as_str().unwrap();
    assert!(plaintext.starts_with("svc_pat_") && plaintext.len() == 51);
    let plan = run_json(
        &["--data-dir", data, "hub", "user", "set-plan", "--email", "ada@example.com", "--plan", "business"],
        &[],
    );
    assert_eq!(plan["plan"], "business");
    // A duplicate user is a user error: exit code 1 and a message.
    let duplicate =
        svc().args(["--data-dir", data, "hub", "user", "create", "--email", "ada@example.com"]).output().unwrap();
    assert_eq!(duplicate.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&duplicate.stderr).contains("exists"));
    let unknown = svc()
        .args(["--data-dir", data, "hub", "token", "create", "--email", "nobody@example.com", "--name", "x"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    // The plaintext is never listed.
    let listed = svc()
        .args(["--json", "--data-dir", data, "hub", "token", "list", "--email", "ada@example.com"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("\"name\":\"ci\"") && !listed.contains(plaintext));
    let revoked =
        run_json(&["--data-dir", data, "hub", "token", "revoke", "--email", "ada@example.com", "--token", "ci"], &[]);
    assert_eq!(revoked["name"], "ci");
}

#[tokio::test]
async fn serve_seeds_a_demo_that_answers_and_shuts_down_gracefully() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = svc()
        .args(["--json", "serve", "hub", "--hub-listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let (mut token, mut url, mut login) = (None, None, None);
    while url.is_none() {
        let line: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if let Some(demo) = line.get("demo") {
            token = Some(demo["token"].as_str().unwrap().to_owned());
            assert_eq!(demo["email"], "demo@example.com");
            login = Some((
                demo["dashboard"].as_str().unwrap().to_owned(),
                demo["email"].as_str().unwrap().to_owned(),
                demo["password"].as_str().unwrap().to_owned(),
            ));
        }
        if line["service"] == "hub" {
            url = Some(format!("http://{}", line["listen"].as_str().unwrap()));
        }
    }
    let (token, url) = (token.expect("demo token printed"), url.unwrap());
    let server = Server { child, url };
    let client = http();

    // The printed dashboard address and login sign a person in.
    let (dashboard, email, password) = login.expect("the demo's dashboard and login printed");
    assert_eq!(dashboard, format!("{}/app", server.url));
    let no_redirects = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let form = no_redirects.get(format!("{dashboard}/signin")).send().await.unwrap();
    let cookies: Vec<String> = form
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_owned())
        .collect();
    let html = form.text().await.unwrap();
    let marker = "name=\"csrf_token\" value=\"";
    let start = html.find(marker).expect("a CSRF field") + marker.len();
    let csrf = html[start..].split('"').next().unwrap().to_owned();
    let signed = no_redirects
        .post(format!("{dashboard}/signin"))
        .header("cookie", cookies.join("; "))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(
            url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs([
                    ("email", email.as_str()),
                    ("password", password.as_str()),
                    ("csrf_token", csrf.as_str()),
                ])
                .finish(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(signed.status(), 303, "{:?}", signed.text().await);
    let session = signed
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_owned())
        .find(|c| c.starts_with("svc_session="))
        .expect("a session cookie");
    let home = no_redirects.get(&dashboard).header("cookie", session).send().await.unwrap();
    assert_eq!(home.status(), 200);
    let page = home.text().await.unwrap();
    assert!(page.contains("demo@example.com") && page.contains("bookshelf"), "{page}");
    let project: serde_json::Value = client
        .get(format!("{}/api/v1/projects/bookshelf", server.url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(project["is_public"], true);
    let versions: serde_json::Value = client
        .get(format!("{}/api/v1/projects/bookshelf/versions", server.url))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(versions["data"][0]["spec_format"], "openapi3");
    assert_eq!(versions["data"][0]["is_default"], true);

    // A large push in flight when SIGTERM arrives still completes.
    let mut big = crate::support::SPEC.as_bytes().to_vec();
    big.resize(30 * 1024 * 1024, b' ');
    let push = tokio::spawn({
        let (client, url, token) = (client.clone(), server.url.clone(), token.clone());
        async move {
            client
                .post(format!("{url}/api/v1/projects/bookshelf/versions?label=big"))
                .bearer_auth(token)
                .body(big)
                .send()
                .await
        }
    });
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    let status = tokio::task::spawn_blocking(move || server.terminate()).await.unwrap();
    let response = push.await.unwrap().expect("the in-flight request was answered");
    assert_eq!(response.status(), 201);
    assert!(status.success(), "graceful exit: {status:?}");
    for _ in lines {}
}

#[test]
fn switches_from_the_environment_take_the_words_scripts_use() {
    for (value, demo) in [("1", false), ("yes", false), ("ON", false), ("true", false), ("0", true), ("off", true)] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = svc()
            .args(["--json", "serve", "hub", "--hub-listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .env("SVC_NO_DEMO", value)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (mut seeded, mut started) = (false, false);
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)) {
            let line: serde_json::Value = serde_json::from_str(&line.unwrap()).unwrap();
            seeded |= line.get("demo").is_some();
            if line["service"] == "hub" {
                started = true;
                break;
            }
        }
        assert!(started, "SVC_NO_DEMO={value} was refused");
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(seeded, demo, "SVC_NO_DEMO={value}");
    }
}

/// `svc catalog scan` names every file it could not read in its summary,
/// and `SVC_CATALOG_MARKETS` is checked where the catalog is opened.
#[test]
fn catalog_scan_names_unreadable_files_and_markets_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let library = dir.path().join("library/Artist/Album");
    std::fs::create_dir_all(&library).unwrap();
    std::fs::write(library.join("01 Monkey.ape"), b"MAC ").unwrap();
    std::fs::write(library.join("02 Broken.flac"), b"not a flac file").unwrap();
    std::fs::write(library.join("notes.txt"), b"not audio").unwrap();
    let output = svc()
        .args(["--json", "--data-dir"])
        .arg(&data)
        .args(["catalog", "scan"])
        .arg(dir.path().join("library"))
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!((summary["files"].as_u64(), summary["failed"].as_u64()), (Some(2), Some(2)), "{summary}");
    let problems = summary["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["path"].as_str().unwrap().ends_with("01 Monkey.ape")
        && p["problem"].as_str().unwrap().contains("unsupported audio format .ape")));
    assert!(problems.iter().any(|p| p["path"].as_str().unwrap().ends_with("02 Broken.flac") && p["imported"] == false));

    let bad = svc()
        .arg("--data-dir")
        .arg(&data)
        .args(["catalog", "user", "create", "--name", "ada"])
        .env("SVC_CATALOG_MARKETS", "DE,DEU")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("SVC_CATALOG_MARKETS") && stderr.contains("DEU"), "{stderr}");
    let good = svc()
        .args(["--json", "--data-dir"])
        .arg(&data)
        .args(["catalog", "user", "create", "--name", "ada"])
        .env("SVC_CATALOG_MARKETS", "de,fr")
        .output()
        .unwrap();
    assert!(good.status.success(), "{}", String::from_utf8_lossy(&good.stderr));
}

#[test]
fn courses_workspaces_are_listed_with_the_ids_operators_need() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_str().unwrap();
    let empty = run_json(&["--data-dir", data, "courses", "workspace", "list"], &[]);
    assert_eq!(empty["workspaces"], serde_json::json!([]));
    let acme =
        run_json(&["--data-dir", data, "courses", "workspace", "create", "--name", "Acme", "--plan", "build"], &[]);
    let other = run_json(&["--data-dir", data, "courses", "workspace", "create", "--name", "Other"], &[]);
    let acme_id = acme["id"].as_str().unwrap();
    run_json(&["--data-dir", data, "courses", "key", "create", "--workspace", acme_id], &[]);
    run_json(&["--data-dir", data, "courses", "key", "create", "--workspace", acme_id, "--read-only"], &[]);
    run_json(&["--data-dir", data, "courses", "workspace", "set-plan", "--workspace", acme_id, "--plan", "scale"], &[]);
    let listed = run_json(&["--data-dir", data, "courses", "workspace", "list"], &[]);
    let rows: Vec<(String, String, u64, u64)> = listed["workspaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["id"].as_str().unwrap().to_owned(),
                w["plan"].as_str().unwrap().to_owned(),
                w["keys"].as_u64().unwrap(),
                w["readOnlyKeys"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (acme_id.to_owned(), "scale".to_owned(), 2, 1),
            (other["id"].as_str().unwrap().to_owned(), "sandbox".to_owned(), 0, 0)
        ]
    );
    assert_eq!(listed["workspaces"][0]["members"], serde_json::json!([]), "no studio members yet");
    // Without --json: a table naming each id and plan.
    let text = svc().args(["--data-dir", data, "courses", "workspace", "list"]).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.lines().any(|l| l.starts_with(acme_id) && l.contains("scale") && l.ends_with("Acme")), "{text}");
}

/// The catalog's first start fills the library, creates the demo listener
/// (an operator) and prints its login and the listener app's address, which
/// serves the app; `svc catalog user create --operator` makes another.
#[tokio::test]
async fn the_catalog_first_start_prints_a_demo_listener_and_the_app() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = svc()
        .args(["--json", "serve", "catalog", "--catalog-listen", "127.0.0.1:0", "--data-dir"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let (mut url, mut listener) = (None, None);
    while listener.is_none() {
        let line: serde_json::Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
        if line["service"] == "catalog" {
            url = Some(line["url"].as_str().unwrap().to_owned());
        }
        if let Some(demo) = line.get("catalog_demo_listener") {
            listener = Some(demo.clone());
        }
    }
    let (url, listener) = (url.expect("the catalog's address printed first"), listener.unwrap());
    let server = Server { child, url: url.clone() };
    assert_eq!(listener["username"], "demo");
    assert!(listener["password"].as_str().unwrap().len() >= 12, "{listener}");
    assert_eq!(listener["app"], format!("{url}/"));
    let page = http().get(format!("{url}/")).send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("id=\"signin\""));
    drop(server);

    let made = run_json(
        &["--data-dir", dir.path().to_str().unwrap(), "catalog", "user", "create", "--name", "ops", "--operator"],
        &[],
    );
    assert_eq!(made["username"], "ops", "{made}");
}
