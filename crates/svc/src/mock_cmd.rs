//! `svc mock <spec_file> [--listen ADDR]`: the hub's mock engine serving a
//! local file with no hub, reloading when the file changes.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::Context as _;
use hub_http::mock_server::{LocalMock, local_router};
use serde_json::json;

use crate::cli::MockArgs;
use crate::diff_cmd::parse_file;
use crate::output::Output;
use crate::push::Failure;

/// How often the file is checked for changes. Polling the file's size and
/// modification time works the same on every platform and file system
/// (network mounts and editors that replace the file included).
const WATCH_PERIOD: Duration = Duration::from_millis(300);

fn compile(path: &Path) -> Result<mock::Engine, Failure> {
    let spec = parse_file(path)?;
    let source = if spec.format.is_rest() {
        String::new()
    } else {
        let bytes = std::fs::read(path).map_err(|e| Failure::User(format!("cannot read {}: {e}", path.display())))?;
        spec::decode(&bytes).map_err(|e| Failure::User(e.message))?
    };
    mock::Engine::compile(spec, &source).map_err(|e| Failure::User(format!("{}: {e}", path.display())))
}

fn load_overrides(path: Option<&PathBuf>) -> Result<Vec<mock::overrides::Override>, Failure> {
    let Some(path) = path else { return Ok(Vec::new()) };
    let text = std::fs::read(path).map_err(|e| Failure::User(format!("cannot read {}: {e}", path.display())))?;
    let bundle: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| Failure::User(format!("{}: not JSON: {e}", path.display())))?;
    let mock::overrides::ImportBundle { valid, skipped, dropped_headers } =
        mock::overrides::parse_bundle(&bundle).map_err(|e| Failure::User(format!("{}: {e}", path.display())))?;
    if dropped_headers > 0 {
        eprintln!(
            "{}: {dropped_headers} forbidden response header(s) dropped (cookies, policies, CORS)",
            path.display()
        );
    }
    for entry in skipped {
        eprintln!("{}: override {} skipped: {}", path.display(), entry.index, entry.reason);
    }
    Ok(valid
        .into_iter()
        .enumerate()
        .map(|(i, spec)| mock::overrides::Override { id: format!("local-{}", i + 1), spec })
        .collect())
}

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

pub async fn run(args: MockArgs, out: &Output) -> anyhow::Result<()> {
    platform::telemetry::init_logging(false);
    let engine = compile(&args.spec_file)?;
    let title = engine.spec().title.clone();
    let operations = engine.spec().operation_count();
    let settings = mock::Settings {
        validate_requests: args.validate,
        enforce_auth: args.enforce_auth,
        latency_min_ms: args.latency_min_ms,
        latency_max_ms: args.latency_max_ms.max(args.latency_min_ms),
        ..mock::Settings::default()
    };
    settings.validate().map_err(|e| Failure::User(e.to_string()))?;
    let overrides = load_overrides(args.overrides.as_ref())?;
    let label = args.spec_file.file_name().map_or_else(|| "local".to_owned(), |n| n.to_string_lossy().into_owned());
    let local = Arc::new(LocalMock::new(engine, settings, overrides, args.rate_limit, label));
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("could not listen on {}", args.listen))?;
    let bound = listener.local_addr().context("could not read the bound address")?;
    out.emit(
        &format!("mock of {title:?} ({operations} operations) listening on http://{bound}"),
        &json!({ "listen": bound.to_string(), "url": format!("http://{bound}"), "operations": operations }),
    );

    let watcher = {
        let local = local.clone();
        let path = args.spec_file.clone();
        let json_output = out.is_json();
        tokio::spawn(async move {
            let mut last = stamp(&path);
            loop {
                tokio::time::sleep(WATCH_PERIOD).await;
                let now = stamp(&path);
                if now.is_none() || now == last {
                    continue;
                }
                last = now;
                let path_for_task = path.clone();
                match tokio::task::spawn_blocking(move || compile(&path_for_task)).await {
                    Ok(Ok(engine)) => {
                        let count = engine.spec().operation_count();
                        local.replace(engine);
                        if !json_output {
                            eprintln!("reloaded {} ({count} operations)", path.display());
                        }
                    }
                    Ok(Err(err)) => eprintln!("not reloaded, still serving the previous version: {err}"),
                    Err(err) => eprintln!("reload failed: {err}"),
                }
            }
        })
    };
    let served = platform::http::serve(
        listener,
        local_router(local),
        hub_http::panic_response,
        platform::http::shutdown_signal(),
    )
    .await;
    watcher.abort();
    served.context("the mock server failed")
}
