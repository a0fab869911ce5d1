//! `svc push`: validate a spec locally, then upload it to the hub.
//!
//! A `svc_pat_` token goes to the v1 API (previews work); another `svc_`
//! token goes to the project's upload endpoint. The file is parsed first with
//! the same parser the server uses, so a broken spec fails before any request
//! with its line and column. Exit codes: 1 user error (flags, config, spec,
//! 4xx), 2 transient (5xx, network; after bounded retries), 3 internal.

pub mod ci;
pub mod config;

use std::fmt;
use std::io::IsTerminal as _;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use indicatif::{ProgressBar, ProgressStyle};
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use serde_json::Value;

use crate::cli::PushArgs;
use crate::output::Output;

/// A failure the exit code classifies.
#[derive(Debug)]
pub enum Failure {
    /// Exit 1: something the user can fix (flags, config, spec, a 4xx).
    User(String),
    /// Exit 2: worth retrying later (5xx, network).
    Transient(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::User(m) | Self::Transient(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Failure {}

const ATTEMPTS: u32 = 3;
const CHUNK: usize = 256 * 1024;

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

pub async fn run(args: PushArgs, out: &Output) -> anyhow::Result<()> {
    let cwd = std::env::current_dir().map_err(|e| Failure::User(format!("cannot read the working directory: {e}")))?;
    let mut layers = Vec::new();
    if let Some(path) = config::discover(&cwd) {
        let file = config::load(&path).map_err(Failure::User)?;
        layers.push(file.layer(&env));
    }
    layers.push(config::Layer {
        server: env("SVC_SERVER"),
        token: env("SVC_TOKEN"),
        project: env("SVC_PROJECT"),
        label: None,
    });
    layers.push(config::Layer {
        server: args.server.clone(),
        token: args.token.clone(),
        project: args.project.clone(),
        label: args.label.clone(),
    });
    let settings = config::merge(&layers);
    let project = settings.project.clone().ok_or_else(|| {
        Failure::User("no project: pass --project, set SVC_PROJECT, or add \"project\" to svc.json".to_owned())
    })?;
    let token = settings.token.clone().ok_or_else(|| {
        Failure::User("no token: pass --token, set SVC_TOKEN, or add \"tokenEnv\" to svc.json".to_owned())
    })?;

    let (document, parsed) = read_and_validate(&args.spec_file)?;
    if args.fail_on_breaking {
        refuse_breaking(&settings.server, &project, &token, &parsed, out).await?;
    }
    let mut query: Vec<(&str, String)> = Vec::new();
    if let Some(label) = &settings.label {
        query.push(("label", label.clone()));
    }
    if args.default {
        query.push(("makeDefault", "true".to_owned()));
    }
    let url = if token.starts_with("svc_pat_") {
        if args.preview {
            let detected = ci::detect(&env);
            query.push(("preview", "true".to_owned()));
            if let Some(pr) = args.pr.or(detected.pr) {
                query.push(("pr", pr.to_string()));
            }
            if let Some(commit) = args.commit.clone().or(detected.commit) {
                query.push(("commit", commit));
            }
            if let Some(branch) = args.branch.clone().or(detected.branch) {
                query.push(("branch", branch));
            }
        }
        format!("{}/api/v1/projects/{}/versions", settings.server, project)
    } else if token.starts_with("svc_") {
        if args.preview {
            return Err(Failure::User(
                "previews need a personal access token (svc_pat_...); upload tokens push regular versions".to_owned(),
            )
            .into());
        }
        format!("{}/api/projects/{}/upload", settings.server, project)
    } else {
        return Err(Failure::User(
            "the token must start with svc_pat_ (personal) or svc_ (project upload token)".to_owned(),
        )
        .into());
    };

    let mut version = upload(&url, &token, &query, document, out).await?;
    let label = at(&version, "/version_label").as_str().unwrap_or("?").to_owned();
    // Without --label the hub labels a version by the description's
    // info.version; when it had none to use, say the label was made up.
    if settings.label.is_none() && label != parsed.api_version.trim() {
        eprintln!(
            "warning: {} has no usable info.version, so the hub labelled this version {label}; \
             pass --label (or \"label\" in svc.json) to choose one",
            args.spec_file.display()
        );
    }
    // Where the version is read: its docs, and its MCP server (a preview's
    // lives as long as the preview).
    let docs_url = hub_link(&settings.server, &["docs", &project, &label]);
    let mcp_url = hub_link(&settings.server, &["api", "mcp", &format!("{project}@{label}")]);
    let line = format!(
        "pushed {} to {project} as {label} ({}, {} operations{}{})\n  docs: {docs_url}\n  mcp:  {mcp_url}",
        args.spec_file.display(),
        at(&version, "/spec_format").as_str().unwrap_or("?"),
        at(&version, "/operation_count"),
        if *at(&version, "/is_default") == Value::Bool(true) { ", default" } else { "" },
        at(&version, "/expires_at").as_str().map(|e| format!(", preview until {e}")).unwrap_or_default(),
    );
    if let Value::Object(map) = &mut version {
        map.insert("docs_url".into(), Value::String(docs_url));
        map.insert("mcp_url".into(), Value::String(mcp_url));
    }
    out.emit(&line, &version);
    Ok(())
}

/// `server` with `segments` appended, each percent-encoded as a path
/// segment (a label may hold spaces or `#`).
fn hub_link(server: &str, segments: &[&str]) -> String {
    match url::Url::parse(server) {
        Ok(mut url) => {
            if let Ok(mut path) = url.path_segments_mut() {
                path.pop_if_empty().extend(segments);
            }
            url.to_string()
        }
        Err(_) => format!("{}/{}", server.trim_end_matches('/'), segments.join("/")),
    }
}

/// The document to upload and its content type, refused locally when the
/// server's parser would refuse it.
struct Document {
    bytes: Bytes,
    content_type: &'static str,
}

fn read_and_validate(path: &Path) -> Result<(Document, spec::Spec), Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::User(format!("cannot read {}: {e}", path.display())))?;
    let parsed = spec::parse(&bytes).map_err(|e| match (e.line, e.column) {
        (Some(line), Some(column)) => Failure::User(format!("{}:{line}:{column}: {}", path.display(), e.message)),
        _ => Failure::User(format!("{}: {}", path.display(), e.message)),
    })?;
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace() && *b != 0xEF && *b != 0xBB && *b != 0xBF);
    let content_type = match parsed.format {
        spec::SpecFormat::GraphQl => "application/graphql",
        _ if first == Some(b'{') => "application/json",
        _ => "application/yaml",
    };
    Ok((Document { bytes: Bytes::from(bytes), content_type }, parsed))
}

/// Fetches the project's default version and refuses (exit 1, nothing
/// pushed) when `new` breaks it. A project without a default passes.
async fn refuse_breaking(
    server: &str,
    project: &str,
    token: &str,
    new: &spec::Spec,
    out: &Output,
) -> anyhow::Result<()> {
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(120))
        .build()
        .map_err(|e| anyhow::anyhow!("could not build the HTTP client: {e}"))?;
    let url = format!("{server}/api/projects/{project}/spec");
    let response = client
        .get(&url)
        .bearer_auth(token)
        .send()
        .await
        .map_err(|e| Failure::Transient(unreachable_message(&url, &e)))?;
    let status = response.status();
    if status == reqwest::StatusCode::NOT_FOUND {
        let body: Value = response.json().await.unwrap_or(Value::Null);
        if at(&body, "/error/message").as_str().is_some_and(|m| m.contains("default version")) {
            return Ok(());
        }
        return Err(Failure::User(describe_refusal(404, &body)).into());
    }
    if status.is_client_error() {
        let body: Value = response.json().await.unwrap_or(Value::Null);
        return Err(Failure::User(describe_refusal(status.as_u16(), &body)).into());
    }
    if !status.is_success() {
        return Err(Failure::Transient(format!("the hub answered {status} for {url}")).into());
    }
    let current = response.bytes().await.map_err(|e| Failure::Transient(format!("could not read {url}: {e}")))?;
    let current =
        spec::parse(&current).map_err(|e| Failure::User(format!("the current default spec does not parse: {e}")))?;
    let report = diff::diff(&current, new).map_err(|e| Failure::User(e.to_string()))?;
    if report.has_breaking() {
        if !out.is_json() {
            eprint!("{}", crate::diff_cmd::render_text(&report));
        }
        return Err(Failure::User(format!(
            "refusing to push: {} breaking change(s) against the current default version (suggested bump: {})",
            report.summary.breaking,
            report.bump.as_str()
        ))
        .into());
    }
    Ok(())
}

fn progress_bar(len: u64, out: &Output) -> Option<ProgressBar> {
    if out.is_json() || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len);
    let style =
        ProgressStyle::with_template("{spinner} uploading [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}")
            .map(|s| s.progress_chars("=> "));
    if let Ok(style) = style {
        bar.set_style(style);
    }
    Some(bar)
}

async fn upload(
    url: &str,
    token: &str,
    query: &[(&str, String)],
    document: Document,
    out: &Output,
) -> anyhow::Result<Value> {
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(600))
        .user_agent(concat!("svc-cli/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| anyhow::anyhow!("could not build the HTTP client: {e}"))?;
    let len = document.bytes.len();
    if !out.is_json() && !std::io::stderr().is_terminal() {
        eprintln!("uploading {len} bytes to {url}");
    }
    let mut last = String::new();
    for attempt in 1..=ATTEMPTS {
        let bar = progress_bar(len as u64, out);
        let chunks: Vec<Bytes> =
            (0..len).step_by(CHUNK).map(|start| document.bytes.slice(start..len.min(start + CHUNK))).collect();
        let counter = bar.clone();
        let stream = futures_util::stream::iter(chunks.into_iter().map(move |chunk| {
            if let Some(bar) = &counter {
                bar.inc(chunk.len() as u64);
            }
            Ok::<Bytes, std::io::Error>(chunk)
        }));
        let sent = client
            .post(url)
            .bearer_auth(token)
            .query(query)
            .header(CONTENT_TYPE, document.content_type)
            .header(CONTENT_LENGTH, len)
            .body(reqwest::Body::wrap_stream(stream))
            .send()
            .await;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        let wait = match sent {
            Ok(response) if response.status().is_success() => {
                let value: Value = response.json().await.map_err(|e| {
                    // A success the CLI cannot read means it and the server
                    // disagree about the protocol: an internal error (exit 3).
                    anyhow::anyhow!(
                        "the server accepted the push but its answer is not a version ({e}); is --server a hub?"
                    )
                })?;
                if !out.is_json() && !std::io::stderr().is_terminal() {
                    eprintln!("uploaded");
                }
                return Ok(value);
            }
            Ok(response) if response.status().is_client_error() => {
                let status = response.status();
                let body: Value = response.json().await.unwrap_or(Value::Null);
                return Err(Failure::User(describe_refusal(status.as_u16(), &body)).into());
            }
            Ok(response) => {
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get(RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok())
                    .map(|s| Duration::from_secs(s.min(10)));
                last = format!("the server answered {status}");
                retry_after
            }
            Err(err) => {
                last = unreachable_message(url, &err);
                None
            }
        };
        if attempt < ATTEMPTS {
            let delay = wait.unwrap_or(Duration::from_secs(u64::from(attempt)));
            eprintln!("{last}; retrying in {} s ({attempt}/{ATTEMPTS})", delay.as_secs());
            tokio::time::sleep(delay).await;
        }
    }
    Err(Failure::Transient(format!("{last}; gave up after {ATTEMPTS} attempts, try again later")).into())
}

/// Why a request did not reach the hub, cause included (reqwest's own
/// message names only the URL), and the setting that names the server.
fn unreachable_message(url: &str, err: &reqwest::Error) -> String {
    let mut causes: Vec<String> = Vec::new();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let text = cause.to_string();
        // Layers often repeat the layer below word for word.
        if !text.is_empty() && !causes.iter().any(|c| c.contains(&text)) {
            causes.push(text);
        }
        source = cause.source();
    }
    let cause = if err.is_timeout() {
        "timed out".to_owned()
    } else if causes.is_empty() {
        err.to_string()
    } else {
        causes.join(": ")
    };
    format!(
        "could not reach {url}: {cause} (is the hub running there? set the server with --server, SVC_SERVER or `server` in svc.json)"
    )
}

/// The value at a JSON pointer, or null: server answers are read leniently.
fn at<'a>(value: &'a Value, pointer: &str) -> &'a Value {
    value.pointer(pointer).unwrap_or(&Value::Null)
}

/// The server's error envelope as a message, with what to do about it.
fn describe_refusal(status: u16, body: &Value) -> String {
    let code = at(body, "/error/code").as_str().unwrap_or("");
    let message = at(body, "/error/message").as_str().unwrap_or("no message");
    let hint = match (status, code) {
        (401, _) => " (check the token: SVC_TOKEN, --token or tokenEnv in svc.json)",
        (404, _) => " (check the project slug, and that the token's user can see it)",
        (402, _) => " (the project owner's plan does not include this)",
        (403, _) => " (ask the project owner for the editor role)",
        _ => "",
    };
    let location = match (at(body, "/error/details/line").as_u64(), at(body, "/error/details/column").as_u64()) {
        (Some(line), Some(column)) => format!(" at line {line}, column {column}"),
        _ => String::new(),
    };
    format!("the hub refused the push: {status} {code}: {message}{location}{hint}")
}
