//! Structured logging set-up for the binary.

use tracing_subscriber::EnvFilter;

/// Installs the global tracing subscriber: human-readable lines by default,
/// one JSON object per line when `json` is true. `RUST_LOG` overrides the
/// default level (`info`). Calling it twice is harmless.
pub fn init_logging(json: bool) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_target(false);
    let result = if json { builder.json().flatten_event(true).try_init() } else { builder.try_init() };
    // A second initialisation (tests, embedded use) keeps the first subscriber.
    drop(result);
}
