//! `svc courses ...` and the courses half of `svc serve`: wiring only; every
//! command calls a `courses_core::Courses` use case.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Subcommand, ValueEnum};
use courses_core::{Courses, CoursesError, Plan};
use kernel::{StoreError, SystemClock};
use serde_json::json;

use crate::cli::{ServeArgs, StoreArgs};
use crate::output::Output;

#[derive(Subcommand, Debug)]
pub enum CoursesCommand {
    /// Create workspaces and change their plan or billing standing.
    #[command(subcommand)]
    Workspace(WorkspaceCommand),
    /// Mint workspace API keys.
    #[command(subcommand)]
    Key(KeyCommand),
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum PlanArg {
    Sandbox,
    Build,
    Scale,
    Partner,
}

impl From<PlanArg> for Plan {
    fn from(plan: PlanArg) -> Self {
        match plan {
            PlanArg::Sandbox => Self::Sandbox,
            PlanArg::Build => Self::Build,
            PlanArg::Scale => Self::Scale,
            PlanArg::Partner => Self::Partner,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum WorkspaceCommand {
    /// Create a workspace; prints its id.
    Create {
        #[arg(long)]
        name: String,
        #[arg(long, value_enum, default_value = "sandbox")]
        plan: PlanArg,
    },
    /// List every workspace with its id, plan, standing, API keys and
    /// courses (the id is what `set-plan`, `billing` and `key create` take).
    List,
    /// Move a workspace to another plan (nothing is deleted).
    SetPlan {
        #[arg(long)]
        workspace: String,
        #[arg(long, value_enum)]
        plan: PlanArg,
    },
    /// Record a failed charge (starts the grace period) or a paid invoice.
    Billing {
        #[arg(long)]
        workspace: String,
        /// `failed` or `paid`.
        #[arg(long, value_parser = ["failed", "paid"])]
        invoice: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum KeyCommand {
    /// Mint an API key for a workspace; the key is printed once.
    Create {
        #[arg(long)]
        workspace: String,
        /// GET, HEAD and OPTIONS only.
        #[arg(long)]
        read_only: bool,
        #[arg(long, default_value = "cli")]
        name: String,
    },
}

/// 1 user error, 2 transient, 3 internal.
pub const fn exit_code(err: &CoursesError) -> u8 {
    match err {
        CoursesError::Store(StoreError::Busy(_)) => 2,
        CoursesError::Store(_) | CoursesError::Internal(_) => 3,
        _ => 1,
    }
}

pub async fn open_courses(store: &StoreArgs) -> anyhow::Result<Courses> {
    // Seals webhook signing keys and embed secrets at rest; every node of
    // one store must share it (SVC_SECRET_KEY).
    let secret_key = platform::secrets::SecretKey::load_or_create(&store.data_dir)
        .context("the secret key (SVC_SECRET_KEY, or secret.key in the data dir)")?;
    let courses = Courses::open(store.courses_database_url.as_deref(), &store.data_dir, Arc::new(SystemClock))
        .await
        .context("could not open the courses service's store")?
        .with_secret_key(secret_key);
    Ok(match crate::config::blob_store(store, "courses", courses.db())? {
        Some(blobs) => courses.with_blobs(blobs),
        None => courses,
    })
}

pub async fn run(command: CoursesCommand, store: &StoreArgs, out: &Output) -> anyhow::Result<()> {
    let courses = open_courses(store).await?;
    match command {
        CoursesCommand::Workspace(WorkspaceCommand::Create { name, plan }) => {
            let ws = courses.create_workspace(&name, plan.into()).await?;
            out.emit(
                &format!("created workspace {} on the {} plan (id {})", ws.name, ws.plan, ws.id),
                &json!({ "id": ws.id, "name": ws.name, "plan": ws.plan.as_str() }),
            );
        }
        CoursesCommand::Workspace(WorkspaceCommand::List) => {
            let summaries = courses.workspace_summaries().await?;
            let mut rows: Vec<serde_json::Value> = Vec::with_capacity(summaries.len());
            for s in &summaries {
                let members: Vec<serde_json::Value> = courses
                    .workspace_members(&s.workspace.id)
                    .await?
                    .iter()
                    .map(|m| json!({ "email": m.email, "name": m.display_name, "role": m.role.as_str() }))
                    .collect();
                rows.push(json!({
                        "id": s.workspace.id,
                        "name": s.workspace.name,
                        "plan": s.workspace.plan.as_str(),
                        "paymentFailedAt": s.workspace.payment_failed_at.map(|t| t.to_rfc3339()),
                        "keys": s.active_keys,
                        "readOnlyKeys": s.read_only_keys,
                        "courses": s.courses,
                        "members": members,
                        "createdAt": s.workspace.created_at.to_rfc3339(),
                }));
            }
            let mut text = if summaries.is_empty() {
                "no workspaces yet: svc courses workspace create --name NAME".to_owned()
            } else {
                format!("{:<36}  {:<8}  {:>4}  {:>7}  {:>7}  name", "id", "plan", "keys", "courses", "members")
            };
            for s in &summaries {
                let unpaid = if s.workspace.payment_failed_at.is_some() { "  (charge failed)" } else { "" };
                text.push_str(&format!(
                    "\n{:<36}  {:<8}  {:>4}  {:>7}  {:>7}  {}{unpaid}",
                    s.workspace.id,
                    s.workspace.plan.as_str(),
                    s.active_keys,
                    s.courses,
                    s.members,
                    s.workspace.name
                ));
            }
            out.emit(&text, &json!({ "workspaces": rows }));
        }
        CoursesCommand::Workspace(WorkspaceCommand::SetPlan { workspace, plan }) => {
            let ws = courses.set_plan(&workspace, plan.into()).await?;
            out.emit(
                &format!("{} is now on the {} plan", ws.id, ws.plan),
                &json!({ "id": ws.id, "plan": ws.plan.as_str() }),
            );
        }
        CoursesCommand::Workspace(WorkspaceCommand::Billing { workspace, invoice }) => {
            let ws = courses.set_payment_failed(&workspace, invoice == "failed").await?;
            let failed_at = ws.payment_failed_at.map(|t| t.to_rfc3339());
            out.emit(
                &failed_at.as_ref().map_or_else(
                    || format!("{}: invoice paid; any suspension is lifted", ws.id),
                    |at| {
                        format!(
                            "{}: charge failed at {at}; the grace period is {} days",
                            ws.id,
                            courses_core::plans::GRACE_PERIOD_DAYS
                        )
                    },
                ),
                &json!({ "id": ws.id, "paymentFailedAt": failed_at }),
            );
        }
        CoursesCommand::Key(KeyCommand::Create { workspace, read_only, name }) => {
            let (info, key) = courses.create_key(&workspace, &name, read_only).await?;
            out.emit(
                &format!(
                    "{}\n\nThis is the only time the key is shown. Id: {}{}",
                    key.expose(),
                    info.id,
                    if info.read_only { " (read-only)" } else { "" }
                ),
                &json!({ "key": key.expose(), "id": info.id, "readOnly": info.read_only }),
            );
        }
    }
    courses.db().close().await;
    Ok(())
}

/// Opens the courses service, binds its listener and returns the future
/// that serves it until shutdown.
pub async fn serve_courses(
    args: &ServeArgs,
    store: &StoreArgs,
    out: &Output,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<impl std::future::Future<Output = anyhow::Result<()>> + Send + 'static> {
    let outbound = platform::outbound::Outbound::guarded_from_env()
        .context("SVC_OUTBOUND_ALLOW lists the hosts and networks webhooks may reach")?;
    let llm = courses_core::generate::LlmConfig::from_env();
    if let Some(llm) = &llm {
        tracing::info!(endpoint = %llm.endpoint(), model = %llm.model, "AI generation uses the configured model");
    }
    let proxies = platform::net::TrustedProxies::from_env().context("SVC_TRUSTED_PROXIES")?;
    // The seed's 120 requests per key per minute; an operator may raise it
    // (load tests, the API fuzzing stage of scripts/test).
    let rate_limit = match std::env::var("SVC_COURSES_RATE_LIMIT") {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse::<u32>()
            .context("SVC_COURSES_RATE_LIMIT must be a whole number of requests per minute")?,
        _ => courses_core::access::RATE_LIMIT,
    };
    let courses = open_courses(store).await?.with_outbound(outbound).with_llm(llm).with_rate_limit(rate_limit);
    let sealed = courses.seal_plaintext_secrets().await?;
    if sealed > 0 {
        tracing::info!(sealed, "sealed webhook signing keys stored before encryption at rest");
    }
    let listener = tokio::net::TcpListener::bind(args.courses_listen)
        .await
        .with_context(|| format!("could not listen on {}", args.courses_listen))?;
    let bound = listener.local_addr().context("could not read the bound address")?;
    let public_url = format!("http://{bound}");
    // The studio's mailed links and cookies: the public URL when the
    // operator gives one (SVC_PUBLIC_URL_COURSES), else the bound address.
    let studio_url = std::env::var("SVC_PUBLIC_URL_COURSES")
        .ok()
        .map(|url| url.trim().trim_end_matches('/').to_owned())
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| public_url.clone());
    let mail_from = args.mail_from.clone().unwrap_or_else(|| crate::serve::default_sender(&studio_url));
    let mailer = platform::mail::Mailer::from_config(args.smtp_url.as_deref(), &mail_from, &store.data_dir)
        .context("SVC_SMTP_URL or SVC_MAIL_FROM")?;
    let secret_key = platform::secrets::SecretKey::load_or_create(&store.data_dir)
        .context("the secret key (SVC_SECRET_KEY, or secret.key in the data dir)")?;
    let signup: courses_core::members::SignupMode =
        args.signup.parse().map_err(|e: String| anyhow::anyhow!(e)).context("SVC_SIGNUP")?;
    let courses = courses.with_members(courses_core::members::MembersConfig {
        public_url: studio_url.clone(),
        mailer: Some(mailer),
        signup,
    });
    if !args.no_demo
        && let Some(demo) = courses.seed_demo_if_empty().await?
    {
        out.emit(
            &format!(
                "Created a demo courses workspace on this empty store.\n  workspace: {}\n  key:       {}\n  player:    {public_url}{}\n  try:       curl -H 'Authorization: Bearer {}' {public_url}/v1/courses",
                demo.workspace_id,
                demo.key.expose(),
                demo.player_path,
                demo.key.expose(),
            ),
            &json!({ "courses_demo": { "workspace": demo.workspace_id, "key": demo.key.expose(), "course": demo.course_id, "player": format!("{public_url}{}", demo.player_path) } }),
        );
    }
    out.emit(
        &format!("courses listening on {public_url} (API {public_url}/v1, OpenAPI {public_url}/v1/openapi.json)"),
        &json!({ "service": "courses", "listen": bound.to_string(), "url": public_url }),
    );
    let pruner = {
        let courses = courses.clone();
        platform::jobs::spawn_periodic(
            courses.db().clone(),
            Arc::new(SystemClock),
            "courses.rate-hits-prune",
            Duration::from_secs(600),
            stopped.clone(),
            move || {
                let courses = courses.clone();
                async move {
                    if let Err(err) = courses.prune_rate_hits().await {
                        tracing::warn!(error = %err, "rate window pruning failed");
                    }
                    if let Err(err) = courses.prune_unconfirmed_signups().await {
                        tracing::warn!(error = %err, "unconfirmed sign-up pruning failed");
                    }
                    if let Err(err) = courses.prune_previews().await {
                        tracing::warn!(error = %err, "embed preview pruning failed");
                    }
                }
            },
        )
    };
    // The webhook sender: every node polls; a claimed message is leased, so
    // no message is sent twice at once.
    let sender = {
        let courses = courses.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let mut ticker = tokio::time::interval(Duration::from_secs(2));
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = ticker.tick() => {}
                    _ = stopped.changed() => break,
                }
                if let Err(err) = courses.deliver_due().await {
                    tracing::warn!(error = %err, "webhook sending failed");
                }
            }
        })
    };
    let embed_limit = match std::env::var("SVC_COURSES_EMBED_RATE_LIMIT") {
        Ok(text) if !text.trim().is_empty() => text
            .trim()
            .parse::<u32>()
            .context("SVC_COURSES_EMBED_RATE_LIMIT must be a whole number of requests per minute (0: unlimited)")?,
        _ => courses_http::EMBED_PER_IP_PER_MINUTE,
    };
    let limiter = crate::serve::limiter_for(args, courses.db(), "courses").await?;
    let router = courses_http::router(
        courses_http::AppState::new(courses.clone())
            .with_limiter(limiter)
            .with_proxies(proxies)
            .with_embed_limit(embed_limit)
            .with_studio(&studio_url, &secret_key),
    );
    Ok(async move {
        let until = async move {
            while !*stopped.borrow() {
                if stopped.changed().await.is_err() {
                    break;
                }
            }
        };
        platform::http::serve(listener, router, courses_http::panic_response, until)
            .await
            .context("the courses server failed")?;
        tracing::info!("courses stopped: in-flight requests finished");
        pruner.await.ok();
        sender.await.ok();
        courses.db().close().await;
        Ok(())
    })
}
