//! Webhook events: each event a workspace's webhooks subscribe to becomes a
//! signed message in the `webhook_deliveries` outbox. Signatures follow the
//! Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`,
//! `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
//! secret `whsec_<base64 key>`), which the official Standard Webhooks and
//! Svix libraries verify.
//!
//! The sender ([`Courses::deliver_due`]) claims due messages (a lease, so
//! nodes never send one message twice at once), signs each attempt afresh
//! with the attempt's timestamp, POSTs it through the guarded
//! [`platform::outbound::Outbound`] client (no private, loopback or
//! link-local addresses unless the operator allows them) and records the
//! answer: a 2xx delivers the message; anything else is retried with
//! backoff ([`RETRY_DELAYS_SECS`]) and fails after [`MAX_ATTEMPTS`]; a URL the
//! guard refuses fails at once.

use serde_json::{Value, json};
use sha2::Sha256;
use tokio::sync::mpsc;

use crate::courses::ListRequest;
use crate::error::{CoursesError, CoursesResult};
use crate::model::{Access, ListItem, ResourceKind};
use crate::store::{AttemptOutcome, Bind, DELIVERY_COLUMNS, Delivery, DeliveryRow};
use crate::{Courses, content};

/// HMAC-SHA256 (RFC 2104), through the `hmac` crate.
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    use hmac::Mac as _;
    // HMAC takes keys of any length: `new_from_slice` cannot fail.
    let Ok(mut mac) = hmac::Hmac::<Sha256>::new_from_slice(key) else { return [0; 32] };
    mac.update(message);
    mac.finalize().into_bytes().into()
}

/// Standard base64 with padding.
pub fn base64(data: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(data)
}

/// A fresh signing secret: `whsec_` and 32 random bytes in base64, and the
/// key bytes as hex for the server's own use.
pub fn new_secret() -> (String, String) {
    let mut key = Vec::with_capacity(32);
    key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    key.extend_from_slice(uuid::Uuid::new_v4().as_bytes());
    (format!("whsec_{}", base64(&key)), key.iter().map(|b| format!("{b:02x}")).collect())
}

fn key_from_hex(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2).filter_map(|i| hex.get(2 * i..2 * i + 2).and_then(|h| u8::from_str_radix(h, 16).ok())).collect()
}

/// `v1,<signature>` of one message: the Standard Webhooks scheme of
/// `webhook-signatures`, which the hub's webhook inboxes verify too.
pub fn sign(key: &[u8], message_id: &str, timestamp_secs: i64, body: &str) -> String {
    let secret = format!("whsec_{}", base64(key));
    let signing = webhook_signatures::Signing { timestamp_secs, message_id };
    webhook_signatures::Scheme::StandardWebhooks
        .sign(&secret, body.as_bytes(), signing)
        .into_iter()
        .find(|(name, _)| name == "webhook-signature")
        .map(|(_, value)| value)
        .unwrap_or_default()
}

/// The webhooks of one workspace subscribed to one event, read before the
/// change that causes the event: [`Outbox::messages`] turns the event's data
/// into the outbox rows the store writes in the change's own transaction.
#[derive(Clone, Debug)]
pub struct Outbox {
    event: String,
    subscribers: Vec<(String, Vec<u8>)>,
    now: kernel::Timestamp,
}

impl Outbox {
    /// One signed, pending message per subscribed webhook.
    pub fn messages(&self, data: &Value) -> Vec<Delivery> {
        let now = self.now;
        let secs = now.as_millis().div_euclid(1000);
        self.subscribers
            .iter()
            .map(|(webhook_id, key)| {
                let id = content::new_id("msg");
                let body = json!({ "type": self.event, "timestamp": now.to_rfc3339(), "data": data }).to_string();
                Delivery {
                    signature: sign(key, &id, secs, &body),
                    id,
                    webhook_id: webhook_id.clone(),
                    event: self.event.clone(),
                    payload: body,
                    sent_at_secs: secs,
                    status: "pending".to_owned(),
                    attempts: 0,
                    created_at: now,
                    next_attempt_at: Some(now),
                    last_attempt_at: None,
                    response_status: None,
                    last_error: None,
                    delivered_at: None,
                }
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.subscribers.is_empty()
    }
}

impl Courses {
    /// The active webhooks of the workspace subscribed to `event`, with
    /// their signing keys opened.
    pub(crate) async fn outbox(&self, workspace_id: &str, event: &str) -> CoursesResult<Outbox> {
        let hooks = self.store.resources_of_kind(workspace_id, ResourceKind::Webhook).await?;
        let mut subscribers = Vec::new();
        for hook in hooks {
            let subscribed =
                hook.data.get("events").and_then(Value::as_array).is_some_and(|e| e.iter().any(|x| x == event));
            let active = hook.data.get("active").and_then(Value::as_bool).unwrap_or(true);
            if !subscribed || !active {
                continue;
            }
            let Some(stored) = hook.data.get(WEBHOOK_SIGNING_KEY).and_then(Value::as_str) else { continue };
            subscribers.push((hook.id.clone(), self.signing_key(stored)?));
        }
        Ok(Outbox { event: event.to_owned(), subscribers, now: self.clock.now() })
    }

    /// A webhook's key bytes from its stored form: sealed (`enc:v1:`) with
    /// the service's secret key, or hex written before encryption at rest.
    fn signing_key(&self, stored: &str) -> CoursesResult<Vec<u8>> {
        let hex = self
            .secret_key
            .open(stored)
            .map_err(|e| CoursesError::Internal(format!("a webhook signing key could not be opened: {e}")))?;
        Ok(key_from_hex(&hex))
    }

    /// Seals a fresh webhook key (hex) for storage.
    pub(crate) fn seal_signing_key(&self, hex: &str) -> String {
        self.secret_key.seal(hex)
    }

    /// Seals every webhook signing key still stored in plaintext (written
    /// before encryption at rest). Run at start; returns how many changed.
    pub async fn seal_plaintext_secrets(&self) -> CoursesResult<usize> {
        let mut sealed = 0;
        for mut hook in self.store.all_resources_of_kind(ResourceKind::Webhook).await? {
            let Some(Value::String(stored)) = hook.data.get(WEBHOOK_SIGNING_KEY) else { continue };
            if platform::secrets::SecretKey::is_sealed(stored) {
                continue;
            }
            let value = self.secret_key.seal(stored);
            hook.data.insert(WEBHOOK_SIGNING_KEY.to_owned(), Value::String(value));
            if self.store.update_resource(&hook).await? {
                sealed += 1;
            }
        }
        Ok(sealed)
    }

    /// Queues one signed `webhook.test` message for the webhook, delivered
    /// (and retried) like every other message, so its log shows whether the
    /// endpoint takes it. A paused webhook's test waits with its other
    /// messages.
    pub async fn send_test_event(&self, access: &Access, webhook_id: &str) -> CoursesResult<Delivery> {
        if access.read_only {
            return Err(CoursesError::InsufficientScope { method: "POST".to_owned() });
        }
        let hook = self
            .store
            .resource(&access.workspace.id, ResourceKind::Webhook, webhook_id)
            .await?
            .ok_or(CoursesError::not_found("webhook"))?;
        let stored = hook
            .data
            .get(WEBHOOK_SIGNING_KEY)
            .and_then(Value::as_str)
            .ok_or_else(|| CoursesError::Internal(format!("webhook {webhook_id} has no signing key")))?;
        let outbox = Outbox {
            event: TEST_EVENT.to_owned(),
            subscribers: vec![(hook.id.clone(), self.signing_key(stored)?)],
            now: self.clock.now(),
        };
        let messages = outbox.messages(&json!({ "webhookId": hook.id, "test": true }));
        self.store.insert_deliveries(&access.workspace.id, &messages).await?;
        messages.into_iter().next().ok_or_else(|| CoursesError::Internal("no test message was made".to_owned()))
    }

    /// The studio's delivery log: the webhook's newest `limit` messages,
    /// newest first.
    pub async fn recent_deliveries(
        &self,
        access: &Access,
        webhook_id: &str,
        limit: u32,
    ) -> CoursesResult<Vec<Delivery>> {
        self.store
            .resource(&access.workspace.id, ResourceKind::Webhook, webhook_id)
            .await?
            .ok_or(CoursesError::not_found("webhook"))?;
        let mut rx = self.store.stream::<DeliveryRow, Delivery>(
            format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE workspace_id = $1 AND webhook_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4"),
            vec![Bind::Text(access.workspace.id.clone()), Bind::Text(webhook_id.to_owned())],
            u64::from(limit),
            0,
        );
        let mut out = Vec::new();
        while let Some(item) = rx.recv().await {
            match item {
                ListItem::Item(d) => out.push(d),
                ListItem::End { .. } => break,
                ListItem::Failed(e) => return Err(e.into()),
            }
        }
        Ok(out)
    }

    /// The signed messages of one webhook, oldest first.
    pub async fn list_deliveries(
        &self,
        access: &Access,
        webhook_id: &str,
        page: ListRequest,
    ) -> CoursesResult<mpsc::Receiver<ListItem<Delivery>>> {
        self.store
            .resource(&access.workspace.id, ResourceKind::Webhook, webhook_id)
            .await?
            .ok_or(CoursesError::not_found("webhook"))?;
        Ok(self.store.stream::<DeliveryRow, Delivery>(
            format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE workspace_id = $1 AND webhook_id = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4"),
            vec![Bind::Text(access.workspace.id.clone()), Bind::Text(webhook_id.to_owned())],
            page.limit,
            page.offset,
        ))
    }
}

/// The event of a test message (not subscribable: every webhook gets its
/// own tests).
pub const TEST_EVENT: &str = "webhook.test";

/// Where a webhook's key bytes (hex) are kept inside its document.
pub const WEBHOOK_SIGNING_KEY: &str = "_signingKey";

/// Delays before the 2nd, 3rd, ... attempt of a message.
pub const RETRY_DELAYS_SECS: [i64; 5] = [10, 60, 300, 1_800, 7_200];
/// Attempts before a message is given up (`failed`).
pub const MAX_ATTEMPTS: i64 = 6;
/// How long a claimed message is hidden from other senders (renewed every
/// third of it while its attempt runs).
pub const LEASE_MS: i64 = 60_000;
/// Messages claimed per tick.
const BATCH: i64 = 50;
/// Messages sent at once by one node.
pub const CONCURRENT_SENDS: usize = 8;

/// What the attempt numbered `attempt` (1-based) came to, given the
/// receiver's answer: delivered, retried later, or failed for good.
pub fn next_step(attempt: i64, answer: &Result<u16, (bool, String)>) -> (&'static str, Option<i64>) {
    match answer {
        Ok(status) if (200..300).contains(status) => ("delivered", None),
        Err((true, _)) => ("failed", None),
        _ if attempt >= MAX_ATTEMPTS => ("failed", None),
        _ => {
            let index = usize::try_from(attempt.saturating_sub(1)).unwrap_or(0);
            let delay = RETRY_DELAYS_SECS.get(index).copied().unwrap_or(7_200);
            ("pending", Some(delay))
        }
    }
}

impl Courses {
    /// Sends every due webhook message once (one tick of the sender) and
    /// returns how many attempts were made.
    pub async fn deliver_due(&self) -> CoursesResult<usize> {
        use futures_util::StreamExt as _;
        let now = self.clock.now();
        let claimed = self.store.claim_due_deliveries(now, self.lease_ms, BATCH).await?;
        let count = claimed.len();
        let results: Vec<CoursesResult<()>> = futures_util::stream::iter(claimed)
            .map(|(workspace_id, delivery)| async move { self.attempt_leased(&workspace_id, &delivery).await })
            .buffer_unordered(CONCURRENT_SENDS)
            .collect()
            .await;
        for result in results {
            result?;
        }
        Ok(count)
    }

    /// One attempt, with its lease renewed every third of the lease
    /// while it runs, so a slow receiver never lets another node claim
    /// the message in the meantime.
    async fn attempt_leased(&self, workspace_id: &str, delivery: &Delivery) -> CoursesResult<()> {
        let attempt = self.attempt(workspace_id, delivery);
        tokio::pin!(attempt);
        let period = std::time::Duration::from_millis(u64::try_from(self.lease_ms / 3).unwrap_or(20_000).max(1));
        loop {
            tokio::select! {
                result = &mut attempt => return result,
                () = tokio::time::sleep(period) => {
                    let until = self.clock.now().plus_millis(self.lease_ms);
                    if let Err(err) = self.store.renew_lease(&delivery.id, until).await {
                        tracing::warn!(error = %err, message = %delivery.id, "could not renew a webhook lease");
                    }
                }
            }
        }
    }

    async fn attempt(&self, workspace_id: &str, delivery: &Delivery) -> CoursesResult<()> {
        let hook = self.store.resource(workspace_id, ResourceKind::Webhook, &delivery.webhook_id).await?;
        let now = self.clock.now();
        let secs = now.as_millis().div_euclid(1000);
        let url = hook.as_ref().and_then(|h| h.data.get("url")).and_then(Value::as_str).map(str::to_owned);
        let key = match hook.as_ref().and_then(|h| h.data.get(WEBHOOK_SIGNING_KEY)).and_then(Value::as_str) {
            Some(stored) => Some(self.signing_key(stored)?),
            None => None,
        };
        let active = hook.as_ref().and_then(|h| h.data.get("active")).and_then(Value::as_bool).unwrap_or(true);
        let (Some(url), Some(key)) = (url, key) else {
            let outcome = AttemptOutcome {
                status: "failed",
                next_attempt_at: now,
                response_status: None,
                error: Some("the webhook has no URL or signing key".to_owned()),
                sent_at_secs: delivery.sent_at_secs,
                signature: delivery.signature.clone(),
            };
            return Ok(self.store.record_attempt(&delivery.id, &outcome, now).await?);
        };
        if !active {
            // Paused: keep the message and look again later, without
            // counting an attempt.
            let outcome = AttemptOutcome {
                status: "pending",
                next_attempt_at: kernel::Timestamp::from_millis(now.as_millis().saturating_add(60_000)),
                response_status: None,
                error: Some("the webhook is paused".to_owned()),
                sent_at_secs: delivery.sent_at_secs,
                signature: delivery.signature.clone(),
            };
            return Ok(self.store.record_paused(&delivery.id, &outcome).await?);
        }
        // Each attempt is signed with its own timestamp, so receivers that
        // reject stale timestamps accept retries.
        let signature = sign(&key, &delivery.id, secs, &delivery.payload);
        let headers = [
            ("content-type", "application/json".to_owned()),
            ("user-agent", "svc-courses-webhooks/1".to_owned()),
            ("webhook-id", delivery.id.clone()),
            ("webhook-timestamp", secs.to_string()),
            ("webhook-signature", signature.clone()),
        ];
        let answer = self
            .outbound
            .post(&url, &headers, delivery.payload.clone().into_bytes())
            .await
            .map(|r| r.status)
            .map_err(|e| (e.is_permanent(), e.to_string()));
        let (status, delay) = next_step(delivery.attempts.saturating_add(1), &answer);
        let finished = self.clock.now();
        let outcome = AttemptOutcome {
            status,
            next_attempt_at: kernel::Timestamp::from_millis(
                finished.as_millis().saturating_add(delay.unwrap_or(0).saturating_mul(1000)),
            ),
            response_status: answer.as_ref().ok().map(|s| i64::from(*s)),
            error: match &answer {
                Ok(s) if (200..300).contains(s) => None,
                Ok(s) => Some(format!("the receiver answered {s}")),
                Err((_, e)) => Some(e.clone()),
            },
            sent_at_secs: secs,
            signature,
        };
        if status != "delivered" {
            tracing::info!(message = %delivery.id, url, status, error = ?outcome.error, "webhook attempt failed");
        }
        Ok(self.store.record_attempt(&delivery.id, &outcome, finished).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_and_give_up() {
        assert_eq!(next_step(1, &Ok(200)), ("delivered", None));
        assert_eq!(next_step(3, &Ok(204)), ("delivered", None));
        assert_eq!(next_step(1, &Ok(500)), ("pending", Some(10)));
        assert_eq!(next_step(2, &Err((false, "timeout".to_owned()))), ("pending", Some(60)));
        assert_eq!(next_step(5, &Ok(302)), ("pending", Some(7_200)));
        assert_eq!(next_step(MAX_ATTEMPTS, &Ok(503)), ("failed", None));
        assert_eq!(next_step(1, &Err((true, "refused".to_owned()))), ("failed", None), "the guard's no is final");
        let total: i64 = RETRY_DELAYS_SECS.iter().sum();
        assert!(total < 3 * 3600, "a message is given up within a few hours");
    }

    #[test]
    fn hmac_matches_rfc_4231() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
        let long_key = [0xaa_u8; 131];
        let mac = hmac_sha256(&long_key, b"Test Using Larger Than Block-Size Key - Hash Key First");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    }

    #[test]
    fn base64_matches_rfc_4648() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected);
        }
    }

    #[test]
    fn signatures_follow_standard_webhooks() {
        // The example of the Standard Webhooks specification.
        let key = [
            0x31, 0xf2, 0x90, 0xf6, 0xbf, 0x06, 0x29, 0x8a, 0xab, 0x4f, 0x08, 0xd4, 0x3c, 0x3f, 0x08, 0x2c, 0xf6, 0x48,
            0xa3, 0x62, 0xda, 0x2d, 0xa4, 0xb0,
        ];
        assert_eq!(base64(&key), "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
        assert_eq!(
            sign(&key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, "{\"test\": 2432232314}"),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }
}
