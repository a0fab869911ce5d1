//! Running `svc` as a child process.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

pub fn svc() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_svc"));
    command.env_remove("HUB_DATABASE_URL").env_remove("SVC_DATA_DIR").env("RUST_LOG", "warn");
    command
}

/// Runs an admin command with `--json` and returns its first JSON line.
pub fn run_json(args: &[&str], env: &[(&str, &str)]) -> Value {
    let output = svc().arg("--json").args(args).envs(env.iter().copied()).output().expect("svc runs");
    assert!(output.status.success(), "svc {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.lines().next().expect("a JSON line")).expect("JSON output")
}

/// A `svc serve hub` child on a free port; killed when dropped.
pub struct Server {
    pub child: Child,
    pub url: String,
}

impl Server {
    pub fn start(data_dir: &Path, env: &[(&str, &str)]) -> Self {
        let mut child = svc()
            .args(["--json", "serve", "hub", "--hub-listen", "127.0.0.1:0", "--no-demo", "--data-dir"])
            .arg(data_dir)
            .env("CRON_SECRET", "multinode-secret")
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("svc serve starts");
        let stdout = child.stdout.take().expect("stdout piped");
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            let line = lines.next().expect("svc printed its address").expect("readable stdout");
            if let Ok(value) = serde_json::from_str::<Value>(&line)
                && value["service"] == "hub"
            {
                break format!("http://{}", value["listen"].as_str().expect("listen address"));
            }
        };
        std::thread::spawn(move || for _ in lines {});
        Self { child, url }
    }

    /// Sends SIGTERM and waits for the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs");
        // Generous: an in-flight request is allowed to finish first, and a
        // debug build on a loaded machine parses a large spec slowly.
        for _ in 0..1200 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("svc did not exit within 120 s of SIGTERM");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

pub fn http() -> reqwest::Client {
    rustls::crypto::ring::default_provider().install_default().ok();
    reqwest::Client::builder().timeout(Duration::from_secs(60)).build().expect("client builds")
}

pub const SPEC: &str = "openapi: 3.0.3\ninfo: {title: Nodes, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        '200': {description: ok}\n";
