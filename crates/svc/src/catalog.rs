//! `svc catalog ...` and the catalog half of `svc serve`: wiring only; every
//! command calls a `catalog_core::Catalog` use case.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use catalog_core::{Catalog, CatalogError};
use clap::Subcommand;
use kernel::{StoreError, SystemClock};
use serde_json::json;

use crate::cli::{ServeArgs, StoreArgs};
use crate::output::Output;

#[derive(Subcommand, Debug)]
pub enum CatalogCommand {
    /// Import the audio files under DIR (tags, artwork, analysis); rescans are incremental.
    Scan { dir: PathBuf },
    /// Register or list OAuth apps.
    #[command(subcommand)]
    App(AppCommand),
    /// Create listener accounts.
    #[command(subcommand)]
    User(CatalogUserCommand),
}

#[derive(Subcommand, Debug)]
pub enum AppCommand {
    /// Register an OAuth client; its secret is printed once.
    Create {
        #[arg(long)]
        name: String,
        /// Allowed redirect URI (repeat for several).
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum CatalogUserCommand {
    /// Create a user with a random password, printed once.
    Create {
        #[arg(long)]
        name: String,
        /// Let this listener administer the library in the listener app
        /// (scans, their problems, users and their apps).
        #[arg(long)]
        operator: bool,
    },
}

/// 1 user error, 2 transient, 3 internal.
pub const fn exit_code(err: &CatalogError) -> u8 {
    match err {
        CatalogError::Store(StoreError::Busy(_)) => 2,
        CatalogError::Store(_) | CatalogError::Internal(_) | CatalogError::Audio(_) => 3,
        _ => 1,
    }
}

pub async fn open_catalog(store: &StoreArgs) -> anyhow::Result<Catalog> {
    let markets = markets_from(std::env::var("SVC_CATALOG_MARKETS").ok().as_deref())?;
    Ok(Catalog::open(store.catalog_database_url.as_deref(), &store.data_dir, Arc::new(SystemClock))
        .await
        .context("could not open the catalog's store")?
        .with_markets(markets)
        // Optional: Opus and WavPack analysis, streams of AIFF, WavPack and ALAC.
        .with_ffmpeg(std::env::var_os("PATH").and_then(|path| catalog_core::transcode::Ffmpeg::find_in(&path))))
}

/// The markets `SVC_CATALOG_MARKETS` names (comma-separated ISO codes),
/// one market, `US`, when it is unset or empty. Read where the catalog is
/// opened, so the server and the admin commands (which create users, whose
/// country is the first market) agree.
fn markets_from(raw: Option<&str>) -> anyhow::Result<catalog_core::markets::Markets> {
    match raw.map(str::trim).filter(|r| !r.is_empty()) {
        None => Ok(catalog_core::markets::Markets::default()),
        Some(raw) => {
            catalog_core::markets::Markets::parse(raw).map_err(|e| anyhow::anyhow!("SVC_CATALOG_MARKETS: {e}"))
        }
    }
}

pub async fn run(command: CatalogCommand, store: &StoreArgs, out: &Output) -> anyhow::Result<()> {
    let catalog = open_catalog(store).await?;
    match command {
        CatalogCommand::Scan { dir } => {
            let json_mode = out.is_json();
            let done = catalog
                .scan(&dir, |p| {
                    if json_mode {
                        out.json_line(&json!({ "progress": { "done": p.done, "total": p.total, "file": p.current } }));
                    } else {
                        eprint!(
                            "\rscanning {}/{} ({} new, {} unchanged, {} failed)",
                            p.done, p.total, p.added, p.unchanged, p.failed
                        );
                    }
                })
                .await?;
            if !json_mode && done.total > 0 {
                eprintln!();
            }
            // Every file the scan could not read is named, never skipped silently.
            let mut text = format!(
                "scanned {} files: {} imported, {} unchanged, {} failed, {} removed",
                done.total, done.added, done.unchanged, done.failed, done.removed
            );
            for p in &done.problems {
                text.push_str(&format!("\n  {}: {}", p.path, p.problem));
            }
            let problems: Vec<_> = done
                .problems
                .iter()
                .map(|p| json!({ "path": p.path, "problem": p.problem, "imported": p.imported }))
                .collect();
            out.emit(
                &text,
                &json!({ "files": done.total, "imported": done.added, "unchanged": done.unchanged, "failed": done.failed, "removed": done.removed, "problems": problems }),
            );
        }
        CatalogCommand::App(AppCommand::Create { name, redirect_uris }) => {
            let (app, secret) = catalog.create_app(&name, &redirect_uris).await?;
            out.emit(
                &format!(
                    "client_id:     {}\nclient_secret: {}\n\nThis is the only time the secret is shown.",
                    app.client_id,
                    secret.expose()
                ),
                &json!({ "client_id": app.client_id, "client_secret": secret.expose() }),
            );
        }
        CatalogCommand::User(CatalogUserCommand::Create { name, operator }) => {
            let (user, password) = catalog.create_user(&name, None).await?;
            if operator {
                catalog.make_operator(&user.username).await?;
            }
            out.emit(
                &format!("created user {} (id {})\npassword: {}", user.username, user.id, password.expose()),
                &json!({ "id": user.id, "username": user.username, "password": password.expose() }),
            );
        }
    }
    catalog.db().close().await;
    Ok(())
}

/// The listener the first start creates, an operator.
const DEMO_LISTENER: &str = "demo";

/// Opens the catalog, fills an empty one with the demo library, binds its
/// listener and returns the future that serves it until shutdown.
pub async fn serve_catalog(
    args: &ServeArgs,
    store: &StoreArgs,
    out: &Output,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<impl std::future::Future<Output = anyhow::Result<()>> + Send + 'static> {
    let catalog = open_catalog(store).await?.with_rate_limit(catalog_core::limits::RateLimit {
        requests: args.catalog_rate_limit,
        window_secs: catalog_core::limits::WINDOW_SECS,
    });
    // The first start fills the library and makes a listener to try the
    // app with; its login is printed once the address is known.
    let mut demo_listener = None;
    if !args.no_demo
        && let Some(added) = catalog.seed_demo_if_empty(&store.data_dir).await?
    {
        out.emit(
            &format!("Filled the empty catalog with a synthesised demo library of {added} files (music, a podcast, an audiobook)."),
            &json!({ "catalog_demo_files": added }),
        );
        match catalog.create_user(DEMO_LISTENER, None).await {
            Ok(created) => {
                // Whoever started the server administers it.
                catalog.make_operator(DEMO_LISTENER).await?;
                demo_listener = Some(created);
            }
            // An operator made a listener of that name before the first scan.
            Err(catalog_core::CatalogError::Conflict(_)) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let listener = tokio::net::TcpListener::bind(args.catalog_listen)
        .await
        .with_context(|| format!("could not listen on {}", args.catalog_listen))?;
    let bound = listener.local_addr().context("could not read the bound address")?;
    // The bound address, so `--catalog-listen 127.0.0.1:0` yields working links.
    let public_url =
        args.public_url_catalog.clone().unwrap_or_else(|| format!("http://{bound}")).trim_end_matches('/').to_owned();
    out.emit(
        &format!(
            "catalog listening on http://{bound} (API {public_url}/v1, OAuth {public_url}/authorize and {public_url}/api/token)"
        ),
        &json!({ "service": "catalog", "listen": bound.to_string(), "url": public_url }),
    );
    if let Some((user, password)) = demo_listener {
        out.emit(
            &format!(
                "Created a demo listener (an operator) on this empty catalog.\n  app:       {public_url}/ (sign in with the login below; Admin scans your music)\n  login:     {} / {}",
                user.username,
                password.expose()
            ),
            &json!({ "catalog_demo_listener": { "username": user.username, "password": password.expose(), "app": format!("{public_url}/") } }),
        );
    }
    let pruner = {
        let catalog = catalog.clone();
        platform::jobs::spawn_periodic(
            catalog.db().clone(),
            Arc::new(SystemClock),
            "catalog.tokens-prune",
            Duration::from_secs(3600),
            stopped.clone(),
            move || {
                let catalog = catalog.clone();
                async move {
                    if let Err(err) = catalog.prune_grants().await {
                        tracing::warn!(error = %err, "token pruning failed");
                    }
                }
            },
        )
    };
    // Forms' CSRF tokens are signed under the shared secret key, so every
    // node accepts every node's login page; the sign-in throttle believes
    // `X-Forwarded-For` only from the configured proxies. A panicking
    // handler is answered with Spotify's 500 object.
    let secret_key =
        platform::secrets::SecretKey::load_or_create(&store.data_dir).context("could not load the secret key")?;
    let proxies = platform::net::TrustedProxies::from_env().context("invalid trusted proxies")?;
    let catalog = catalog.clone().with_limiter(crate::serve::limiter_for(args, catalog.db(), "catalog").await?);
    let state = catalog_http::AppState::new(catalog.clone(), &public_url)
        .with_secret_key(&secret_key)
        .with_trusted_proxies(proxies);
    let router = catalog_http::router(state);
    Ok(async move {
        let until = async move {
            while !*stopped.borrow() {
                if stopped.changed().await.is_err() {
                    break;
                }
            }
        };
        platform::http::serve(listener, router, catalog_http::panic_response, until)
            .await
            .context("the catalog server failed")?;
        tracing::info!("catalog stopped: in-flight requests finished");
        pruner.await.ok();
        catalog.db().close().await;
        Ok(())
    })
}
