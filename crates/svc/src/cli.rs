//! The command contract (see ARCHITECTURE.md, "Command contract").

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(name = "svc", version, about = "API docs hub, audio catalog and course service in one binary")]
pub struct Cli {
    /// Print one JSON object per line instead of human-readable text.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(flatten)]
    pub global: StoreArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The global store flags, which commands that need no store (`push`,
/// `diff`, `mock`, `sdk`) leave out of their `--help`.
const STORE_FLAGS: [&str; 4] = ["data_dir", "hub_database_url", "catalog_database_url", "courses_database_url"];

/// The command line as clap reads it, with the store flags hidden from the
/// help of the commands that do not use them.
#[must_use]
pub fn command() -> clap::Command {
    let mut command = <Cli as clap::CommandFactory>::command();
    // Global flags reach the subcommands when the command is built.
    command.build();
    for name in ["push", "diff", "mock", "sdk"] {
        // `mut_args` edits in place (`mut_arg` would move the flag after
        // the built `--help`).
        command = command.mut_subcommand(name, |sub| {
            sub.mut_args(|arg| if STORE_FLAGS.contains(&arg.get_id().as_str()) { arg.hide(true) } else { arg })
        });
    }
    command
}

/// Parses the process's arguments (exits with clap's message on a mistake).
#[must_use]
pub fn parse() -> Cli {
    let matches = command().get_matches();
    <Cli as clap::FromArgMatches>::from_arg_matches(&matches).unwrap_or_else(|err| err.exit())
}

/// Where the services keep their data; shared by `serve` and the admin
/// commands so the latter act on the store of a running server.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Directory of the embedded SQLite files and blobs.
    #[arg(long, global = true, env = "SVC_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// `postgres://...` to keep the hub in PostgreSQL instead of SQLite.
    #[arg(long, global = true, env = "HUB_DATABASE_URL", hide_env_values = true)]
    pub hub_database_url: Option<String>,
    /// `postgres://...` to keep the catalog in PostgreSQL instead of SQLite.
    #[arg(long, global = true, env = "CATALOG_DATABASE_URL", hide_env_values = true)]
    pub catalog_database_url: Option<String>,
    /// `postgres://...` to keep the courses service in PostgreSQL instead of SQLite.
    #[arg(long, global = true, env = "COURSES_DATABASE_URL", hide_env_values = true)]
    pub courses_database_url: Option<String>,
    /// Where blobs live: `s3://bucket/prefix` (S3-compatible object storage,
    /// credentials and endpoint from `AWS_*`), `file:///dir`, or `database`;
    /// unset keeps them in the data dir on SQLite and in the database on
    /// PostgreSQL.
    #[arg(long, global = true, env = "SVC_BLOB_URL")]
    pub blob_url: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the services (all three when no service is named).
    Serve(ServeArgs),
    /// Administer the hub: users, plans and personal access tokens.
    #[command(subcommand)]
    Hub(HubCommand),
    /// Administer the catalog: scan audio, register OAuth apps, create users.
    #[command(subcommand)]
    Catalog(crate::catalog::CatalogCommand),
    /// Administer the courses service: workspaces, plans and API keys.
    #[command(subcommand)]
    Courses(crate::courses::CoursesCommand),
    /// Operate a deployment: move blobs between stores, collect unreferenced ones.
    #[command(subcommand)]
    Admin(crate::blobs_cmd::AdminCommand),
    /// Validate a spec locally and push it to a hub project.
    Push(PushArgs),
    /// Compare two spec files: every change, its kind and a semver bump.
    Diff(DiffArgs),
    /// Serve a mock of a local spec file (no hub needed); reloads on change.
    Mock(MockArgs),
    /// Generate a client SDK from a spec file (the hub's `/sdk` route, locally).
    #[command(hide = true)]
    Sdk(SdkArgs),
}

/// `svc mock <spec_file> [--listen ADDR]`.
#[derive(Args, Debug)]
pub struct MockArgs {
    pub spec_file: PathBuf,
    #[arg(long, env = "SVC_MOCK_LISTEN", default_value = "127.0.0.1:4010")]
    pub listen: SocketAddr,
    /// Refuse requests that do not match the description (400).
    #[arg(long)]
    pub validate: bool,
    /// Answer 401 when the credentials the description requires are missing.
    #[arg(long)]
    pub enforce_auth: bool,
    /// Simulated latency band in milliseconds (uniform per request).
    #[arg(long, default_value_t = 0)]
    pub latency_min_ms: u32,
    #[arg(long, default_value_t = 0)]
    pub latency_max_ms: u32,
    /// An override bundle exported from a hub project.
    #[arg(long)]
    pub overrides: Option<PathBuf>,
    /// Requests per minute per client IP; 0 (the default) is unlimited.
    #[arg(long, default_value_t = 0)]
    pub rate_limit: u32,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SdkLanguage {
    #[value(alias = "ts")]
    Typescript,
    #[value(alias = "py")]
    Python,
}

#[derive(Args, Debug)]
pub struct SdkArgs {
    pub spec_file: PathBuf,
    #[arg(long, value_enum)]
    pub language: SdkLanguage,
    /// Write the SDK to this file instead of standard output.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Exit 1 when any change is breaking.
    Breaking,
    /// Exit 1 when any change is breaking or additive.
    Additive,
}

impl FailOn {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Breaking => "breaking",
            Self::Additive => "additive",
        }
    }
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    pub old: PathBuf,
    pub new: PathBuf,
    /// Exit with status 1 when the changes reach this kind.
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Print Markdown fit for a pull-request comment.
    #[arg(long)]
    pub markdown: bool,
}

/// `svc push <spec_file> --project <slug>`; settings also come from
/// `svc.json`/`.svcrc.json` (walking up) and `SVC_SERVER`/`SVC_TOKEN`.
#[derive(Args, Debug)]
pub struct PushArgs {
    /// The description to push: OpenAPI 3.x or Swagger 2.0 (JSON or YAML),
    /// or GraphQL SDL; checked locally first.
    pub spec_file: PathBuf,
    /// The project's slug (else `SVC_PROJECT` or "project" in svc.json).
    #[arg(long)]
    pub project: Option<String>,
    /// The version's label (else "label" in svc.json, else the
    /// description's info.version; a label is made up, with a warning,
    /// when it has none).
    #[arg(long)]
    pub label: Option<String>,
    /// Make the pushed version the project's default.
    #[arg(long)]
    pub default: bool,
    /// Push a preview version (personal access tokens only); pr, commit and
    /// branch are read from the CI environment when not given.
    #[arg(long)]
    pub preview: bool,
    /// The pull request the preview belongs to (with --preview).
    #[arg(long, requires = "preview")]
    pub pr: Option<i64>,
    /// The commit hash the preview was built from (with --preview).
    #[arg(long, requires = "preview")]
    pub commit: Option<String>,
    /// The branch the preview was built from (with --preview).
    #[arg(long, requires = "preview")]
    pub branch: Option<String>,
    /// Hub base URL (else `SVC_SERVER` or "server" in svc.json, else
    /// http://127.0.0.1:8080).
    #[arg(long)]
    pub server: Option<String>,
    /// `svc_pat_...` or a project upload token `svc_...` (else `SVC_TOKEN`
    /// or "tokenEnv" in svc.json).
    #[arg(long)]
    pub token: Option<String>,
    /// Refuse to push when the spec has breaking changes against the
    /// project's current default version (exit 1, nothing pushed).
    #[arg(long)]
    pub fail_on_breaking: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServiceName {
    All,
    Hub,
    Catalog,
    Courses,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[arg(value_enum, default_value = "all")]
    pub service: ServiceName,
    #[arg(long, env = "SVC_HUB_LISTEN", default_value = "127.0.0.1:8080")]
    pub hub_listen: SocketAddr,
    #[arg(long, env = "SVC_CATALOG_LISTEN", default_value = "127.0.0.1:8081")]
    pub catalog_listen: SocketAddr,
    #[arg(long, env = "SVC_COURSES_LISTEN", default_value = "127.0.0.1:8082")]
    pub courses_listen: SocketAddr,
    /// Externally visible base URL of the hub, used in printed links.
    #[arg(long, env = "SVC_PUBLIC_URL_HUB")]
    pub public_url_hub: Option<String>,
    /// The tenant-content origin: a listener that serves only the hosted
    /// mock (recommended in production, with `--public-url-mock`).
    #[arg(long, env = "SVC_MOCK_LISTEN")]
    pub mock_listen: Option<SocketAddr>,
    /// Externally visible base URL of the hosted mock; when set, every mock
    /// link uses it and `/mock/...` on the hub answers 308 to it.
    #[arg(long, env = "SVC_PUBLIC_URL_MOCK")]
    pub public_url_mock: Option<String>,
    /// Externally visible base URL of the catalog (links and OAuth redirects).
    #[arg(long, env = "SVC_PUBLIC_URL_CATALOG")]
    pub public_url_catalog: Option<String>,
    /// Bearer credential of `/api/cron/*`; random per start when unset.
    #[arg(long, env = "CRON_SECRET", hide_env_values = true)]
    pub cron_secret: Option<String>,
    /// Do not create the demo account on an empty store (`SVC_NO_DEMO`
    /// takes 1/0, true/false, yes/no, on/off).
    #[arg(long, env = "SVC_NO_DEMO", value_parser = clap::builder::BoolishValueParser::new())]
    pub no_demo: bool,
    /// Catalog: Web API calls per app per 30 seconds before 429 (0: unlimited).
    #[arg(long, env = "SVC_CATALOG_RATE_LIMIT", default_value_t = catalog_core::limits::DEFAULT_REQUESTS)]
    pub catalog_rate_limit: u32,
    /// Seconds between uptime rounds (one node runs each round).
    #[arg(long, env = "HUB_PROBE_INTERVAL_SECS", default_value_t = hub_core::monitoring::DEFAULT_INTERVAL_SECS,
          value_parser = clap::value_parser!(u64).range(10..=86_400))]
    pub probe_interval_secs: u64,
    /// Hosted mock: requests per minute per project (0: unlimited).
    #[arg(long, env = "SVC_MOCK_RATE_PER_PROJECT", default_value_t = 120)]
    pub mock_rate_per_project: u32,
    /// Hosted mock: requests per minute per client IP (0: unlimited).
    #[arg(long, env = "SVC_MOCK_RATE_PER_IP", default_value_t = 60)]
    pub mock_rate_per_ip: u32,
    /// Who may create a hub account in the dashboard: open, invite or closed.
    #[arg(long, env = "SVC_SIGNUP", default_value = "open")]
    pub signup: String,
    /// SMTP server for the hub's mail (`smtps://user:pass@host:465`,
    /// `smtp://user:pass@host:587?tls=required` for STARTTLS, `smtp://host:25`
    /// plain for a local relay); unset writes `.eml` files under `<data dir>/mail/`.
    #[arg(long, env = "SVC_SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,
    /// The sender of the hub's mail; `noreply@` the public host by default.
    #[arg(long, env = "SVC_MAIL_FROM")]
    pub mail_from: Option<String>,
    /// `redis://host:6379` to count every rate limit in Redis, shared by all
    /// nodes; unset counts in PostgreSQL when a service is in PostgreSQL,
    /// else in memory.
    #[arg(long, env = "SVC_REDIS_URL", hide_env_values = true)]
    pub redis_url: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum HubCommand {
    #[command(subcommand)]
    User(UserCommand),
    #[command(subcommand)]
    Token(TokenCommand),
    /// Remove preview versions whose 14 days have passed.
    PrunePreviews,
    /// Serve a project's docs at its custom domain, once its DNS and TLS
    /// point at this hub (see docs/docs-pages.md).
    VerifyDomain {
        #[arg(long)]
        domain: String,
    },
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum PlanArg {
    Free,
    Pro,
    Business,
}

impl From<PlanArg> for hub_core::Plan {
    fn from(plan: PlanArg) -> Self {
        match plan {
            PlanArg::Free => Self::Free,
            PlanArg::Pro => Self::Pro,
            PlanArg::Business => Self::Business,
        }
    }
}

#[derive(Subcommand, Debug)]
pub enum UserCommand {
    /// Create a user.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long, value_enum, default_value = "free")]
        plan: PlanArg,
        /// Read the password from standard input (first line).
        #[arg(long)]
        password_stdin: bool,
    },
    /// Change a user's plan.
    SetPlan {
        #[arg(long)]
        email: String,
        #[arg(long, value_enum)]
        plan: PlanArg,
    },
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Mint a personal access token; the plaintext is printed once.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        /// Days until the token expires (never when omitted).
        #[arg(long)]
        expires_in: Option<u32>,
    },
    /// List a user's tokens (never their plaintext).
    List {
        #[arg(long)]
        email: String,
    },
    /// Revoke a token by id or name; its next use answers 401.
    Revoke {
        #[arg(long)]
        email: String,
        #[arg(long)]
        token: String,
    },
}

#[cfg(test)]
mod help_tests {
    use super::*;

    fn help(sub: &str) -> String {
        let mut command = command();
        let sub = command.find_subcommand_mut(sub).expect("the subcommand exists");
        sub.render_long_help().to_string()
    }

    #[test]
    fn push_help_describes_every_flag_and_hides_the_store() {
        let text = help("push");
        for flag in
            ["--project", "--label", "--default", "--preview", "--pr", "--commit", "--branch", "--server", "--token"]
        {
            let line =
                text.lines().find(|l| l.trim_start().starts_with(flag)).unwrap_or_else(|| panic!("{flag}: {text}"));
            let described = line.trim_start().len() > flag.len() + 12
                || text.lines().skip_while(|l| l != &line).nth(1).is_some_and(|next| !next.trim().is_empty());
            assert!(described, "{flag} has no description: {text}");
        }
        for hidden in ["--data-dir", "--hub-database-url", "--catalog-database-url"] {
            assert!(!text.contains(hidden), "{hidden} shown in push --help: {text}");
        }
        assert!(help("serve").contains("--hub-database-url"), "serve still shows the store flags");
    }

    #[test]
    fn the_command_line_still_parses_store_flags_everywhere() {
        let matches = command().try_get_matches_from(["svc", "push", "spec.yaml", "--data-dir", "/tmp/x"]);
        assert!(matches.is_ok(), "a hidden flag is still accepted: {matches:?}");
    }
}
