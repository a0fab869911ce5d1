//! `svc serve`: start the services, seed the demo on an empty store, run the
//! scheduled jobs, and shut down gracefully on Ctrl-C or SIGTERM.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use hub_http::AppState;
use kernel::{Secret, SystemClock};
use serde_json::json;

use crate::cli::{ServeArgs, ServiceName, StoreArgs};
use crate::config::open_hub;
use crate::output::Output;

/// How often each node wakes to prune expired previews (the slot claim makes
/// only one node of a cluster do the work each period).
const PREVIEW_PRUNE_PERIOD: Duration = Duration::from_secs(3600);
/// The seed: customizations past retention are deleted by an hourly job.
const CUSTOMIZATION_PRUNE_PERIOD: Duration = Duration::from_secs(3600);

pub async fn run(args: ServeArgs, store: StoreArgs, out: &Output) -> anyhow::Result<()> {
    platform::telemetry::init_logging(std::env::var("SVC_LOG_FORMAT").is_ok_and(|f| f == "json"));
    let wants = |name: ServiceName| args.service == ServiceName::All || args.service == name;
    // One shutdown signal fans out to every service of this process.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        platform::http::shutdown_signal().await;
        stop.send(true).ok();
    });
    let mut services = tokio::task::JoinSet::new();
    if wants(ServiceName::Hub) {
        let ready = serve_hub(&args, &store, out, stopped.clone()).await?;
        services.spawn(ready);
    }
    if wants(ServiceName::Catalog) {
        let ready = crate::catalog::serve_catalog(&args, &store, out, stopped.clone()).await?;
        services.spawn(ready);
    }
    if wants(ServiceName::Courses) {
        let ready = crate::courses::serve_courses(&args, &store, out, stopped.clone()).await?;
        services.spawn(ready);
    }
    while let Some(finished) = services.join_next().await {
        finished.context("a service task panicked")??;
    }
    Ok(())
}

/// Resolves when `stopped` flips to true (or its sender is gone).
async fn until_stopped(mut stopped: tokio::sync::watch::Receiver<bool>) {
    while !*stopped.borrow() {
        if stopped.changed().await.is_err() {
            break;
        }
    }
}

/// Opens the hub, seeds the demo, binds its listener and returns the future
/// that serves it until shutdown (errors before serving surface at once).
async fn serve_hub(
    args: &ServeArgs,
    store: &StoreArgs,
    out: &Output,
    stopped: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<impl std::future::Future<Output = anyhow::Result<()>> + Send + 'static> {
    let signup: hub_core::sessions::SignupMode =
        args.signup.parse().map_err(|e: String| anyhow::anyhow!(e)).context("SVC_SIGNUP")?;
    let hub = open_hub(store).await?;
    let listener = tokio::net::TcpListener::bind(args.hub_listen)
        .await
        .with_context(|| format!("could not listen on {}", args.hub_listen))?;
    let bound = listener.local_addr().context("could not read the bound address")?;
    // Without a configured public URL, the address actually bound (port 0
    // picks one) is where links lead.
    let public_url =
        args.public_url_hub.clone().unwrap_or_else(|| format!("http://{bound}")).trim_end_matches('/').to_owned();
    let cron_secret = match args.cron_secret.clone().filter(|s| !s.is_empty()) {
        Some(secret) => Secret::new(secret),
        None => {
            let secret = platform::crypto::random_token(24);
            out.emit(&format!("cron secret (this run only): {secret}"), &json!({ "cron_secret": secret }));
            Secret::new(secret)
        }
    };
    let demo = if args.no_demo { None } else { hub.seed_demo_if_empty().await? };
    if let Some(demo) = demo {
        out.emit(
            &format!(
                "Created a demo account on this empty store.\n  dashboard: {public_url}/app (sign in with the login below)\n  login:     {} / {}\n  token:     {}\n  project:   {public_url}/api/v1/projects/{}\n  docs:      {public_url}/docs/{}\n  try:       curl -H 'Authorization: Bearer {}' {public_url}/api/v1/projects",
                demo.email,
                demo.password.expose(),
                demo.token.expose(),
                demo.project_slug,
                demo.project_slug,
                demo.token.expose(),
            ),
            &json!({
                "demo": {
                    "email": demo.email, "password": demo.password.expose(), "token": demo.token.expose(),
                    "project": demo.project_slug,
                    "docs": format!("{public_url}/docs/{}", demo.project_slug),
                    "dashboard": format!("{public_url}/app"),
                }
            }),
        );
    }
    // Mailed links need an address that reaches this hub, port included.
    let link_base = args
        .public_url_hub
        .clone()
        .map_or_else(|| format!("http://{bound}"), |url| url.trim_end_matches('/').to_owned());
    let mail_from = args.mail_from.clone().unwrap_or_else(|| default_sender(&link_base));
    let mailer = platform::mail::Mailer::from_config(args.smtp_url.as_deref(), &mail_from, &store.data_dir)
        .context("SVC_SMTP_URL or SVC_MAIL_FROM")?;
    if !mailer.uses_smtp() {
        tracing::info!(dir = %store.data_dir.join("mail").display(), "SVC_SMTP_URL is not set: mail is written to files");
    }
    let hub = hub.with_accounts(hub_core::sessions::AccountsConfig { signup, public_url: link_base, mailer });
    // The docs assistant answers with the operator's model when one is
    // configured, else offline.
    let llm = platform::llm::LlmConfig::from_env();
    if let Some(llm) = &llm {
        tracing::info!(model = %llm.model, "the docs assistant answers with SVC_LLM_URL");
    }
    let hub = hub.with_llm(llm);
    // The search re-ranks by a sentence model: the operator's embeddings
    // model when one is named, else the one in the binary unless
    // SVC_SEARCH_MODEL=off.
    let search_model =
        hub_core::semantic::SearchModel::from_vars(|name| std::env::var(name).ok()).map_err(anyhow::Error::msg)?;
    match &search_model {
        Some(model) => tracing::info!(model = %model.name(), "the docs search re-ranks by a sentence model"),
        None => tracing::info!("SVC_SEARCH_MODEL=off: the docs search ranks by words alone"),
    }
    let hub = hub.with_search_model(search_model);
    let key = platform::secrets::SecretKey::load_or_create(&store.data_dir).context("the secret key")?;
    let webhooks = platform::outbound::Outbound::guarded_for(platform::outbound::Purpose::Webhooks).context(
        "SVC_OUTBOUND_ALLOW or SVC_OUTBOUND_ALLOW_WEBHOOKS (hosts and networks webhooks may reach) is invalid",
    )?;
    let probes = platform::outbound::Outbound::guarded_from_env()
        .context("SVC_OUTBOUND_ALLOW (hosts and networks uptime probes may reach) is invalid")?
        .with_timeout(hub_core::monitoring::PROBE_TIMEOUT);
    let outbound = platform::outbound::Outbound::guarded_for(platform::outbound::Purpose::TryIt).context(
        "SVC_OUTBOUND_ALLOW or SVC_OUTBOUND_ALLOW_TRYIT (hosts and networks the Try-It relay may reach) is invalid",
    )?;
    let hub = hub
        .with_secret_key(key.clone())
        .with_webhooks(webhooks)
        .with_probes(probes, args.probe_interval_secs)
        .with_relay(outbound.clone());
    out.emit(
        &format!("hub listening on http://{bound} (API {public_url}/api/v1, OpenAPI {public_url}/api/v1/openapi.json)"),
        &json!({ "service": "hub", "listen": bound.to_string(), "url": public_url }),
    );

    let pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_periodic(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.previews-prune",
            PREVIEW_PRUNE_PERIOD,
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_expired_previews().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "pruned expired previews"),
                        Err(err) => tracing::warn!(error = %err, "preview pruning failed"),
                    }
                }
            },
        )
    };
    let log_pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_periodic(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.mock-log-prune",
            PREVIEW_PRUNE_PERIOD,
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_mock_log().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "pruned mock request log rows older than 14 days"),
                        Err(err) => tracing::warn!(error = %err, "mock request log pruning failed"),
                    }
                }
            },
        )
    };
    let session_pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_periodic(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.sessions-prune",
            CUSTOMIZATION_PRUNE_PERIOD,
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_sessions().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "pruned expired sessions and mail links"),
                        Err(err) => tracing::warn!(error = %err, "session pruning failed"),
                    }
                    match hub.prune_counters().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "pruned ended rate windows and usage windows"),
                        Err(err) => tracing::warn!(error = %err, "counter pruning failed"),
                    }
                }
            },
        )
    };
    let customization_pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_periodic(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.customizations-prune",
            CUSTOMIZATION_PRUNE_PERIOD,
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_customizations().await {
                        Ok(0) => {}
                        Ok(n) => {
                            tracing::info!(removed = n, "pruned docs customizations of accounts on Free past retention")
                        }
                        Err(err) => tracing::warn!(error = %err, "docs customization pruning failed"),
                    }
                }
            },
        )
    };
    // The audit log: rows past retention go daily at 03:23 UTC, once across
    // nodes; the webhook's outbox is sent as rows arrive.
    let audit_pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_daily_at(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.audit-prune",
            hub_core::audit_log::prune_offset_ms(),
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_audit().await {
                        Ok(0) => {}
                        Ok(n) => {
                            tracing::info!(removed = n, "pruned audit rows past retention and expired invitations")
                        }
                        Err(err) => tracing::warn!(error = %err, "audit pruning failed"),
                    }
                }
            },
        )
    };
    let audit_delivery = hub.spawn_audit_delivery(stopped.clone());
    // Blobs no version refers to: noted hourly, deleted a day later, by one
    // node per period.
    let blob_collector = {
        let hub = hub.clone();
        platform::jobs::spawn_periodic(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.blobs-gc",
            PREVIEW_PRUNE_PERIOD,
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.collect_blob_garbage(hub_core::blobs::GRACE_MS).await {
                        Ok(done) if done.deleted == 0 => {}
                        Ok(done) => tracing::info!(deleted = done.deleted, "deleted blobs no version refers to"),
                        Err(err) => tracing::warn!(error = %err, "blob collection failed"),
                    }
                }
            },
        )
    };
    // Uptime: a round per interval on one node (the slot's claim), and the
    // checks past 14 days pruned daily.
    let uptime = {
        let hub = hub.clone();
        platform::jobs::spawn_periodic(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.uptime",
            std::time::Duration::from_secs(args.probe_interval_secs),
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.run_uptime_round().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(probed = n, "uptime round finished"),
                        Err(err) => tracing::warn!(error = %err, "uptime round failed"),
                    }
                }
            },
        )
    };
    let uptime_pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_daily_at(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.uptime-prune",
            hub_core::monitoring::prune_offset_ms(),
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_monitor_checks().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "pruned uptime checks older than 14 days"),
                        Err(err) => tracing::warn!(error = %err, "uptime check pruning failed"),
                    }
                }
            },
        )
    };
    let inbox_pruner = {
        let hub = hub.clone();
        platform::jobs::spawn_daily_at(
            hub.db().clone(),
            Arc::new(SystemClock),
            "hub.inbox-prune",
            hub_core::inboxes::PRUNE_OFFSET_MS,
            stopped.clone(),
            move || {
                let hub = hub.clone();
                async move {
                    match hub.prune_inboxes().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "pruned inbox captures older than their plan's window"),
                        Err(err) => tracing::warn!(error = %err, "inbox capture pruning failed"),
                    }
                }
            },
        )
    };
    let mock_config = hub_http::mock_server::MockConfig {
        per_project_per_minute: args.mock_rate_per_project,
        per_ip_per_minute: args.mock_rate_per_ip,
    };
    let mut web = hub_http::WebConfig::new(&public_url, &key);
    web.proxies = platform::net::TrustedProxies::from_env().context("SVC_TRUSTED_PROXIES")?;
    web.limiter = limiter_for(args, hub.db(), "hub").await?;
    let mock_listener = match args.mock_listen {
        Some(addr) => Some(
            tokio::net::TcpListener::bind(addr).await.with_context(|| format!("could not listen on {addr} (mock)"))?,
        ),
        None => None,
    };
    web.mock_public_url = match (&args.public_url_mock, &mock_listener) {
        (Some(url), _) => Some(url.trim_end_matches('/').to_owned()),
        (None, Some(listener)) => Some(format!("http://{}", listener.local_addr().context("mock address")?)),
        (None, None) => None,
    };
    let state = AppState { hub: hub.clone(), cron_secret, outbound, web: Arc::new(web) };
    let mock_server = match mock_listener {
        Some(listener) => {
            let bound = listener.local_addr().context("could not read the mock's bound address")?;
            let url = state.web.mock_public_url.clone().unwrap_or_default();
            out.emit(
                &format!("hub mock (tenant content) listening on http://{bound} ({url}/mock/<slug>)"),
                &json!({ "service": "hub-mock", "listen": bound.to_string(), "url": url }),
            );
            let router = hub_http::mock_router(&state, mock_config);
            Some(tokio::spawn(platform::http::serve(
                listener,
                router,
                hub_http::panic_response,
                until_stopped(stopped.clone()),
            )))
        }
        None => None,
    };
    let router = hub_http::router_with(state, mock_config);
    Ok(async move {
        platform::http::serve(listener, router, hub_http::panic_response, until_stopped(stopped))
            .await
            .context("the hub server failed")?;
        if let Some(mock_server) = mock_server {
            mock_server.await.context("the mock server task failed")?.context("the mock server failed")?;
        }
        tracing::info!("hub stopped: in-flight requests finished");
        pruner.await.ok();
        log_pruner.await.ok();
        customization_pruner.await.ok();
        session_pruner.await.ok();
        audit_pruner.await.ok();
        audit_delivery.await.ok();
        blob_collector.await.ok();
        uptime.await.ok();
        uptime_pruner.await.ok();
        inbox_pruner.await.ok();
        // Mail started after an answer (sign-up, reset) is sent before the
        // store closes.
        hub.settle_background().await;
        hub.db().close().await;
        Ok(())
    })
}

/// The limiter of one service: Redis with `SVC_REDIS_URL`, else PostgreSQL
/// when the service's store is PostgreSQL, else memory.
pub(crate) async fn limiter_for(
    args: &ServeArgs,
    db: &platform::Db,
    service: &str,
) -> anyhow::Result<platform::limiter::Limiter> {
    let limiter = platform::limiter::Limiter::for_service(args.redis_url.as_deref(), db, service)
        .await
        .with_context(|| format!("the {service}'s rate limits (SVC_REDIS_URL)"))?;
    tracing::info!(service, engine = limiter.engine(), "rate limits counted");
    Ok(limiter)
}

/// `noreply@` the public host when it is a name; `noreply@localhost` for an
/// address (mail servers refuse senders at bare addresses).
pub(crate) fn default_sender(public_url: &str) -> String {
    let authority = public_url.split_once("://").map_or(public_url, |(_, rest)| rest);
    let authority = authority.split('/').next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = if host.starts_with('[') { "" } else { host.split(':').next().unwrap_or_default() };
    let is_name = host.contains('.') && host.parse::<std::net::IpAddr>().is_err() || host == "localhost";
    format!("svc hub <noreply@{}>", if is_name { host } else { "localhost" })
}
