//! The audit log as a product (Business): reading it with filters, the CSV
//! export, retention, the signed webhook and its delivery log, and the
//! owner's chat notifications.
//!
//! Rows are written by the store in the mutation's transaction (see
//! `audit.rs`); when the account has a webhook, an outbox row is written in
//! the same transaction, and [`Hub::deliver_audit_outbox`] sends it after
//! commit. A delivery is one POST with a 5-second budget and no retry (the
//! seed's rule); a node that dies between claiming and sending leaves the
//! claim to expire, and another pass sends it, so a restart loses nothing.

use std::time::{Duration, Instant};

use futures_util::Stream;
use kernel::{Page, PageRequest, Secret, Timestamp};
use serde_json::{Value, json};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft, Category};
use crate::error::{HubError, HubResult};
use crate::model::{AuditEvent, Principal, Source};
use crate::plans::Feature;

/// Retention bounds and default, in days (seed 000).
pub const MIN_RETENTION_DAYS: i64 = 30;
pub const MAX_RETENTION_DAYS: i64 = 3650;
pub const DEFAULT_RETENTION_DAYS: i64 = 730;
/// The windows the dashboard offers (any value in bounds is accepted by the API).
pub const RETENTION_WINDOWS: [(i64, &str); 6] =
    [(30, "30 days"), (90, "90 days"), (365, "1 year"), (730, "2 years"), (1825, "5 years"), (3650, "10 years")];
/// The webhook's and the chat message's budget.
pub const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(5);
pub const WEBHOOK_USER_AGENT: &str = "Service-Audit-Webhook/1";
/// The hour and minute of the daily prune, UTC.
pub const PRUNE_AT_UTC: (u32, u32) = (3, 23);
/// How long a claimed outbox row is left to its node before another may
/// send it (longer than the webhook's budget).
const CLAIM_MS: i64 = 30_000;
/// Rows of one outbox pass, sent concurrently.
const OUTBOX_BATCH: i64 = 32;
/// Delivery log rows kept per account, newest first.
pub const DELIVERY_LOG_DAYS: i64 = 30;
/// Rows per database round trip of the CSV export.
const EXPORT_BATCH: i64 = 1000;
const MAX_QUERY_CHARS: usize = 200;
const MAX_URL_CHARS: usize = 2048;

/// The filters of the viewer, the read API and the export.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub from: Option<Timestamp>,
    pub to: Option<Timestamp>,
    /// A user id or an email address.
    pub actor: Option<String>,
    /// A project slug.
    pub project: Option<String>,
    pub category: Option<Category>,
    /// Free text, matched against the action, the target and the metadata.
    pub q: Option<String>,
}

/// The filter as the store applies it: names resolved to ids.
#[derive(Clone, Debug, Default)]
pub struct ResolvedFilter {
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub actor_id: Option<String>,
    pub project_id: Option<String>,
    pub actions: Option<Vec<&'static str>>,
    pub q: Option<String>,
    /// A name that matched nothing: the answer is empty.
    pub matches_nothing: bool,
}

/// An account's audit settings; the webhook secret is never part of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditSettings {
    pub retention_days: i64,
    pub webhook_url: Option<String>,
    pub chat_webhook_url: Option<String>,
    pub updated_at: Option<Timestamp>,
}

impl Default for AuditSettings {
    fn default() -> Self {
        Self { retention_days: DEFAULT_RETENTION_DAYS, webhook_url: None, chat_webhook_url: None, updated_at: None }
    }
}

/// A change of settings; `None` keeps a field, `Some(None)` clears a URL.
#[derive(Clone, Debug, Default)]
pub struct SettingsPatch {
    pub retention_days: Option<i64>,
    pub webhook_url: Option<Option<String>>,
    pub chat_webhook_url: Option<Option<String>>,
}

/// One delivery attempt, as the log shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub delivery_id: String,
    pub action: String,
    /// The receiver's status code; `None` when there was no answer.
    pub status: Option<u16>,
    pub latency_ms: i64,
    pub error: Option<String>,
    pub attempted_at: Timestamp,
}

/// The audit row as the API, the export and the webhook show it.
pub fn event_json(event: &AuditEvent) -> Value {
    json!({
        "id": event.id,
        "account_user_id": event.account_user_id,
        "actor_user_id": event.actor_user_id,
        "action": event.action,
        "target_type": event.target_type,
        "target_id": event.target_id,
        "project_id": event.project_id,
        "metadata": event.metadata,
        "created_at": event.created_at.to_rfc3339(),
    })
}

/// The CSV's columns: the seed's field names, in its order.
pub const CSV_HEADER: [&str; 9] = [
    "id",
    "account_user_id",
    "actor_user_id",
    "action",
    "target_type",
    "target_id",
    "project_id",
    "metadata",
    "created_at",
];

/// A cell a spreadsheet would run as a formula gets a leading apostrophe
/// (OWASP's advice for CSV injection); everything else is left as is.
pub fn neutralise_cell(cell: &str) -> std::borrow::Cow<'_, str> {
    match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => std::borrow::Cow::Owned(format!("'{cell}")),
        _ => std::borrow::Cow::Borrowed(cell),
    }
}

/// Rows as RFC 4180 CSV (CRLF line ends, quotes where needed), formula
/// cells neutralised; with the header row when `header` is set.
pub fn csv_chunk(events: &[AuditEvent], header: bool) -> HubResult<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
    let fail = |e: csv::Error| HubError::Internal(format!("csv: {e}"));
    if header {
        writer.write_record(CSV_HEADER).map_err(fail)?;
    }
    for event in events {
        let metadata = event.metadata.to_string();
        let created_at = event.created_at.to_rfc3339();
        let cells = [
            event.id.as_str(),
            &event.account_user_id,
            &event.actor_user_id,
            &event.action,
            &event.target_type,
            &event.target_id,
            event.project_id.as_deref().unwrap_or(""),
            &metadata,
            &created_at,
        ];
        writer.write_record(cells.iter().map(|c| neutralise_cell(c).into_owned())).map_err(fail)?;
    }
    writer.into_inner().map_err(|e| HubError::Internal(format!("csv: {e}")))
}

/// `sha256=<hex>` of the body with the secret (the `X-Service-Signature`):
/// the `svc` scheme of [`webhook_signatures`], which webhook inboxes verify.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let signing = webhook_signatures::Signing { timestamp_secs: 0, message_id: "" };
    webhook_signatures::Scheme::Svc
        .sign(secret, body, signing)
        .into_iter()
        .next()
        .map(|(_, value)| value)
        .unwrap_or_default()
}

/// The instant of the daily prune on or before `now` (03:23 UTC).
pub fn prune_offset_ms() -> i64 {
    (i64::from(PRUNE_AT_UTC.0) * 60 + i64::from(PRUNE_AT_UTC.1)) * 60_000
}

fn check_url(field: &'static str, url: &str, outbound: &platform::outbound::Outbound) -> HubResult<String> {
    let url = url.trim();
    if url.chars().count() > MAX_URL_CHARS {
        return Err(HubError::validation(field, format!("use at most {MAX_URL_CHARS} characters")));
    }
    let parsed = url::Url::parse(url).map_err(|_| HubError::validation(field, "an absolute http or https URL"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(HubError::validation(field, "an absolute http or https URL"));
    }
    outbound.precheck(url).map_err(|e| HubError::validation(field, e.to_string()))?;
    Ok(url.to_owned())
}

impl Hub {
    /// The caller's account, if its plan keeps an audit log (402 otherwise).
    async fn audit_account(&self, principal: &Principal, feature: Feature) -> HubResult<crate::sessions::Account> {
        let account = self.account(principal).await?;
        if !account.plan.allows(feature) {
            return Err(HubError::PlanRequired { feature, current: account.plan });
        }
        Ok(account)
    }

    async fn resolve_filter(&self, account_user_id: &str, filter: &AuditFilter) -> HubResult<ResolvedFilter> {
        let mut resolved = ResolvedFilter {
            from: filter.from.map(Timestamp::as_millis),
            to: filter.to.map(Timestamp::as_millis),
            actions: filter.category.map(Category::codes),
            ..ResolvedFilter::default()
        };
        if let Some(q) = filter.q.as_deref().map(str::trim).filter(|q| !q.is_empty()) {
            if q.chars().count() > MAX_QUERY_CHARS {
                return Err(HubError::validation("q", format!("use at most {MAX_QUERY_CHARS} characters")));
            }
            resolved.q = Some(q.to_owned());
        }
        if let Some(actor) = filter.actor.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
            if actor.contains('@') {
                match self.store.account_by_email(&actor.to_lowercase()).await? {
                    Some(account) => resolved.actor_id = Some(account.id),
                    None => resolved.matches_nothing = true,
                }
            } else {
                resolved.actor_id = Some(actor.to_owned());
            }
        }
        if let Some(slug) = filter.project.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            match self.store.project_id_of_owner(account_user_id, slug).await? {
                Some(id) => resolved.project_id = Some(id),
                None => resolved.matches_nothing = true,
            }
        }
        if let (Some(from), Some(to)) = (resolved.from, resolved.to)
            && from > to
        {
            return Err(HubError::validation("from", "from is after to"));
        }
        Ok(resolved)
    }

    /// One page of the caller's audit log, newest first (Business).
    pub async fn audit_log_page(
        &self,
        principal: &Principal,
        filter: &AuditFilter,
        page: PageRequest,
    ) -> HubResult<Page<AuditEvent>> {
        let account = self.audit_account(principal, Feature::AuditLog).await?;
        let resolved = self.resolve_filter(&account.id, filter).await?;
        if resolved.matches_nothing {
            return Ok(Page { items: Vec::new(), total: 0, request: page });
        }
        self.store.audit_page(&account.id, &resolved, page).await
    }

    /// The caller's audit log as CSV, streamed in batches so memory stays
    /// flat whatever the number of rows (Business).
    pub async fn audit_csv(
        &self,
        principal: &Principal,
        filter: &AuditFilter,
    ) -> HubResult<impl Stream<Item = HubResult<bytes::Bytes>> + Send + 'static> {
        let account = self.audit_account(principal, Feature::AuditCsvExport).await?;
        let resolved = self.resolve_filter(&account.id, filter).await?;
        let store = self.store.clone();
        // (cursor of the last row sent, header sent, done)
        let start: (Option<(i64, String)>, bool, bool) = (None, false, resolved.matches_nothing);
        // Fused: a body that polls once more after the end gets `None`
        // again instead of a panic.
        Ok(futures_util::StreamExt::fuse(futures_util::stream::unfold(start, move |(cursor, header_sent, done)| {
            let (store, resolved, account_id) = (store.clone(), resolved.clone(), account.id.clone());
            async move {
                if !header_sent {
                    let head = csv_chunk(&[], true).map(bytes::Bytes::from);
                    return Some((head, (cursor, true, done)));
                }
                if done {
                    return None;
                }
                match store.audit_batch(&account_id, &resolved, cursor.as_ref(), EXPORT_BATCH).await {
                    Ok(rows) if rows.is_empty() => None,
                    Ok(rows) => {
                        let last = rows.last().map(|r| (r.created_at.as_millis(), r.id.clone()));
                        let finished = i64::try_from(rows.len()).unwrap_or(i64::MAX) < EXPORT_BATCH;
                        Some((csv_chunk(&rows, false).map(bytes::Bytes::from), (last, true, finished)))
                    }
                    Err(err) => Some((Err(err), (cursor, true, true))),
                }
            }
        })))
    }

    /// The caller's audit settings (Business).
    pub async fn audit_settings(&self, principal: &Principal) -> HubResult<AuditSettings> {
        let account = self.audit_account(principal, Feature::AuditLog).await?;
        Ok(self.store.audit_settings(&account.id).await?.map(|(s, _)| s).unwrap_or_default())
    }

    /// Changes the caller's audit settings. A new webhook URL mints a new
    /// secret (32 random bytes, base64url), returned here once and stored
    /// sealed; clearing the URL forgets the secret.
    pub async fn update_audit_settings(
        &self,
        principal: &Principal,
        patch: SettingsPatch,
        source: Source,
    ) -> HubResult<(AuditSettings, Option<Secret<String>>)> {
        let account = self.audit_account(principal, Feature::AuditLog).await?;
        let (mut settings, mut sealed) = self.store.audit_settings(&account.id).await?.unwrap_or_default();
        let before = settings.clone();
        if let Some(days) = patch.retention_days {
            if !(MIN_RETENTION_DAYS..=MAX_RETENTION_DAYS).contains(&days) {
                return Err(HubError::validation(
                    "retention_days",
                    format!("retention is {MIN_RETENTION_DAYS} to {MAX_RETENTION_DAYS} days"),
                ));
            }
            settings.retention_days = days;
        }
        let mut minted = None;
        if let Some(url) = patch.webhook_url {
            match url.filter(|u| !u.trim().is_empty()) {
                Some(url) => {
                    if !account.plan.allows(Feature::AuditWebhook) {
                        return Err(HubError::PlanRequired { feature: Feature::AuditWebhook, current: account.plan });
                    }
                    let url = check_url("webhook_url", &url, &self.webhooks)?;
                    if settings.webhook_url.as_deref() != Some(url.as_str()) || sealed.is_none() {
                        let secret = platform::crypto::random_token(32);
                        sealed = Some(self.secret_key.seal(&secret));
                        minted = Some(Secret::new(secret));
                    }
                    settings.webhook_url = Some(url);
                }
                None => {
                    settings.webhook_url = None;
                    sealed = None;
                }
            }
        }
        if let Some(url) = patch.chat_webhook_url {
            settings.chat_webhook_url = match url.filter(|u| !u.trim().is_empty()) {
                Some(url) => Some(check_url("chat_webhook_url", &url, &self.webhooks)?),
                None => None,
            };
        }
        let now = self.clock.now();
        settings.updated_at = Some(now);
        let mut draft = AuditDraft::new(AuditAction::AuditSettingsUpdated, "account", &account.id);
        if before.retention_days != settings.retention_days {
            draft = draft.meta("retention_days", json!({"from": before.retention_days, "to": settings.retention_days}));
        }
        if before.webhook_url != settings.webhook_url || minted.is_some() {
            // The URL may carry a credential of its own: only its host is kept.
            let host = |u: &Option<String>| {
                u.as_deref().and_then(|u| url::Url::parse(u).ok()).and_then(|u| u.host_str().map(str::to_owned))
            };
            draft = draft
                .meta("webhook_host", json!({"from": host(&before.webhook_url), "to": host(&settings.webhook_url)}));
        }
        if before.chat_webhook_url != settings.chat_webhook_url {
            draft = draft.meta("chat_webhook", json!(settings.chat_webhook_url.is_some()));
        }
        let audit = self.audit_row(&account.id, account.plan, &principal.user_id, source, draft);
        self.store.put_audit_settings(&account.id, &settings, sealed.as_deref(), now, audit.as_ref()).await?;
        self.outbox.notify_one();
        Ok((settings, minted))
    }

    /// Sends a test event to the webhook now and logs the attempt.
    pub async fn send_test_event(&self, principal: &Principal) -> HubResult<Delivery> {
        let account = self.audit_account(principal, Feature::AuditWebhook).await?;
        let (settings, sealed) = self.store.audit_settings(&account.id).await?.unwrap_or_default();
        let (Some(url), Some(sealed)) = (settings.webhook_url, sealed) else {
            return Err(HubError::validation("webhook_url", "set a webhook URL first"));
        };
        let event = AuditDraft::new(AuditAction::AuditWebhookTested, "account", &account.id)
            .meta("test", true)
            .into_event(&account.id, &principal.user_id, Source::Dashboard, self.clock.now());
        let secret = self.secret_key.open(&sealed).map_err(|e| HubError::Internal(e.to_string()))?;
        Ok(self.post_event(&url, &secret, &event).await)
    }

    /// The last deliveries of the caller's webhook, newest first.
    pub async fn audit_deliveries(&self, principal: &Principal, limit: u32) -> HubResult<Vec<Delivery>> {
        let account = self.audit_account(principal, Feature::AuditWebhook).await?;
        self.store.audit_deliveries(&account.id, i64::from(limit.clamp(1, 100))).await
    }

    /// Sends what the outbox holds; returns how many rows it handled. Each
    /// row is claimed by one node, sent once through the outbound guard and
    /// logged, then removed whatever the answer (no retry, as the seed says).
    pub async fn deliver_audit_outbox(&self) -> HubResult<usize> {
        let now = self.clock.now().as_millis();
        let claimed = self.store.claim_outbox(now, now + CLAIM_MS, OUTBOX_BATCH).await?;
        let count = claimed.len();
        let sends = claimed.into_iter().map(|(event, target)| async move {
            if let Some((url, sealed)) = target {
                match self.secret_key.open(&sealed) {
                    Ok(secret) => {
                        self.post_event(&url, &secret, &event).await;
                    }
                    Err(err) => tracing::error!(error = %err, "the audit webhook's secret could not be opened"),
                }
            }
            if let Err(err) = self.store.finish_outbox(&event.id).await {
                tracing::warn!(error = %err, "an outbox row could not be removed");
            }
        });
        futures_util::future::join_all(sends).await;
        Ok(count)
    }

    /// POSTs one row, signed, and logs the attempt; never fails.
    async fn post_event(&self, url: &str, secret: &str, event: &AuditEvent) -> Delivery {
        let body = event_json(event).to_string().into_bytes();
        let headers = [
            ("content-type", "application/json".to_owned()),
            ("x-service-event", event.action.clone()),
            ("x-service-delivery", event.id.clone()),
            ("x-service-signature", signature(secret, &body)),
            ("user-agent", WEBHOOK_USER_AGENT.to_owned()),
        ];
        let started = Instant::now();
        let client = self.webhooks.clone().with_timeout(WEBHOOK_TIMEOUT).with_max_response(1024);
        let result = client.post(url, &headers, body).await;
        let latency_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        let (status, error) = match result {
            Ok(response) if (200..300).contains(&response.status) => (Some(response.status), None),
            Ok(response) => (Some(response.status), Some(format!("the receiver answered {}", response.status))),
            Err(err) => (None, Some(err.to_string())),
        };
        if let Some(error) = &error {
            tracing::warn!(delivery = %event.id, %error, "audit webhook delivery failed (not retried)");
        }
        let delivery = Delivery {
            delivery_id: event.id.clone(),
            action: event.action.clone(),
            status,
            latency_ms,
            error,
            attempted_at: self.clock.now(),
        };
        if let Err(err) = self.store.insert_delivery(&event.account_user_id, &delivery).await {
            tracing::warn!(error = %err, "a delivery could not be logged");
        }
        delivery
    }

    /// Posts `text` to the account's chat webhook, when one is set, within
    /// the 5-second budget; failures are logged.
    pub(crate) async fn send_chat_message(&self, account_user_id: &str, text: &str) {
        let url = match self.store.audit_settings(account_user_id).await {
            Ok(Some((settings, _))) => settings.chat_webhook_url,
            Ok(None) => None,
            Err(err) => {
                tracing::warn!(error = %err, "chat webhook settings unreadable");
                None
            }
        };
        let Some(url) = url else { return };
        // Slack, Mattermost and Rocket.Chat read `text`; Discord reads `content`.
        let body = json!({ "text": text, "content": text }).to_string().into_bytes();
        let client = self.webhooks.clone().with_timeout(WEBHOOK_TIMEOUT).with_max_response(1024);
        let sent = tokio::time::timeout(
            WEBHOOK_TIMEOUT,
            client.post(&url, &[("content-type", "application/json".to_owned())], body),
        )
        .await;
        match sent {
            Ok(Ok(r)) if (200..300).contains(&r.status) => {}
            Ok(Ok(r)) => tracing::warn!(status = r.status, "the chat webhook refused a notification"),
            Ok(Err(err)) => tracing::warn!(error = %err, "the chat webhook could not be reached"),
            Err(_) => tracing::warn!("the chat webhook took longer than 5 s"),
        }
    }

    /// Deletes audit rows past each account's retention, delivery log rows
    /// past 30 days and expired invitations (the daily 03:23 UTC job).
    pub async fn prune_audit(&self) -> HubResult<u64> {
        self.store.prune_audit(self.clock.now(), DEFAULT_RETENTION_DAYS, DELIVERY_LOG_DAYS).await
    }

    /// Runs the outbox's worker until `shutdown`: a pass when a mutation
    /// may have queued a row, and one every second (rows queued by other
    /// nodes, or before a restart).
    pub fn spawn_audit_delivery(&self, shutdown: tokio::sync::watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let hub = self.clone();
        tokio::spawn(async move {
            let mut shutdown = shutdown;
            loop {
                tokio::select! {
                    () = hub.outbox.notified() => {}
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    _ = shutdown.changed() => break,
                }
                loop {
                    match hub.deliver_audit_outbox().await {
                        Ok(n) if n >= usize::try_from(OUTBOX_BATCH).unwrap_or(usize::MAX) => {}
                        Ok(_) => break,
                        Err(err) => {
                            tracing::warn!(error = %err, "the audit outbox could not be read");
                            break;
                        }
                    }
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(project: &str) -> AuditEvent {
        AuditDraft::new(AuditAction::ProjectCreated, "project", "p1").project("p1").meta("name", project).into_event(
            "owner",
            "actor",
            Source::Api,
            Timestamp::from_millis(1_700_000_000_123),
        )
    }

    #[test]
    fn formula_cells_are_neutralised_and_others_kept() {
        for cell in ["=HYPERLINK(\"x\")", "+1", "-2", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(neutralise_cell(cell), format!("'{cell}"));
        }
        for cell in ["plain", "{\"a\":1}", "2026-01-01", ""] {
            assert_eq!(neutralise_cell(cell), cell);
        }
    }

    #[test]
    fn csv_quotes_as_rfc_4180_says() {
        let text = String::from_utf8(csv_chunk(&[event("a \"quoted\", name")], true).unwrap()).unwrap();
        let mut lines = text.split("\r\n");
        assert_eq!(lines.next().unwrap(), CSV_HEADER.join(","));
        let row = lines.next().unwrap();
        assert!(row.contains(r#""{""name"":""a \""quoted\"", name"",""source"":""api""}""#), "{row}");
        assert!(row.ends_with("2023-11-14T22:13:20.123Z"), "{row}");
    }

    #[test]
    fn signatures_match_a_known_hmac() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn the_prune_runs_at_03_23() {
        assert_eq!(prune_offset_ms(), (3 * 60 + 23) * 60_000);
    }
}
