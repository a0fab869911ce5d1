//! Webhook signatures, signed and verified exactly as each sender does.
//!
//! | scheme | headers | signed bytes | MAC |
//! |---|---|---|---|
//! | `svc` (ours) | `X-Service-Signature: sha256=<hex>` | body | HMAC-SHA256 |
//! | `stripe` | `Stripe-Signature: t=<secs>,v1=<hex>[,v1=...]` | `<t>.<body>` | HMAC-SHA256 |
//! | `github` | `X-Hub-Signature-256: sha256=<hex>` | body | HMAC-SHA256 |
//! | `github-sha1` | `X-Hub-Signature: sha1=<hex>` | body | HMAC-SHA1 |
//! | `slack` | `X-Slack-Signature: v0=<hex>`, `X-Slack-Request-Timestamp` | `v0:<ts>:<body>` | HMAC-SHA256 |
//! | `shopify` | `X-Shopify-Hmac-Sha256: <base64>` | body | HMAC-SHA256 |
//! | `linear` | `Linear-Signature: <hex>` (freshness: the body's `webhookTimestamp`, ms) | body | HMAC-SHA256 |
//! | `zendesk` | `X-Zendesk-Webhook-Signature: <base64>`, `X-Zendesk-Webhook-Signature-Timestamp` | `<ts><body>` | HMAC-SHA256 |
//! | `standard-webhooks` | `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64> ...` | `<id>.<ts>.<body>` | HMAC-SHA256, key `whsec_<base64>` decoded |
//! | `custom` | a named header, optional prefix, hex or base64; optional timestamp header | body, or `<ts>.<body>` | HMAC-SHA1, -SHA256 or -SHA512 |
//!
//! Verification works on the raw bytes a request arrived with, never a
//! re-serialised body; every comparison is constant-time; a timestamp
//! further than the tolerance from now (either way) is refused. The crate
//! does no I/O and reads no clock: callers pass the time.
//!
//! Hand-written rather than taken from per-provider crates: no maintained
//! Rust crate covers these senders, the few single-provider ones pull in
//! their HTTP stacks, and each scheme is a few lines over `hmac`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

/// The tolerance every timestamped scheme's own library defaults to.
pub const DEFAULT_TOLERANCE_SECS: u64 = 300;
/// Longest header name a custom scheme may name.
pub const MAX_HEADER_NAME: usize = 128;
/// Longest prefix a custom scheme may strip.
pub const MAX_PREFIX: usize = 64;

/// A scheme's name, as the API and the dashboard spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SchemeName {
    Svc,
    Stripe,
    Github,
    GithubSha1,
    Slack,
    Shopify,
    Linear,
    Zendesk,
    StandardWebhooks,
    Custom,
}

impl SchemeName {
    pub const ALL: [Self; 10] = [
        Self::Svc,
        Self::Stripe,
        Self::Github,
        Self::GithubSha1,
        Self::Slack,
        Self::Shopify,
        Self::Linear,
        Self::Zendesk,
        Self::StandardWebhooks,
        Self::Custom,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Svc => "svc",
            Self::Stripe => "stripe",
            Self::Github => "github",
            Self::GithubSha1 => "github-sha1",
            Self::Slack => "slack",
            Self::Shopify => "shopify",
            Self::Linear => "linear",
            Self::Zendesk => "zendesk",
            Self::StandardWebhooks => "standard-webhooks",
            Self::Custom => "custom",
        }
    }

    /// The sender a person would recognise.
    #[must_use]
    pub const fn label(self) -> &'static str {
        match self {
            Self::Svc => "This service (X-Service-Signature)",
            Self::Stripe => "Stripe",
            Self::Github => "GitHub (SHA-256)",
            Self::GithubSha1 => "GitHub (SHA-1, legacy)",
            Self::Slack => "Slack",
            Self::Shopify => "Shopify",
            Self::Linear => "Linear",
            Self::Zendesk => "Zendesk",
            Self::StandardWebhooks => "Standard Webhooks (Svix and others)",
            Self::Custom => "Custom HMAC",
        }
    }

    /// # Errors
    /// An unknown name.
    pub fn parse(name: &str) -> Result<Self, Invalid> {
        Self::ALL.into_iter().find(|s| s.as_str() == name).ok_or(Invalid::Scheme)
    }
}

/// The hash of a custom scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    Sha1,
    #[default]
    Sha256,
    Sha512,
}

/// How a custom scheme writes its MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    #[default]
    Hex,
    Base64,
}

/// A custom HMAC scheme: the MAC of the body (or of `<timestamp>.<body>`
/// when a timestamp header is named) in one header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Custom {
    pub header: String,
    #[serde(default)]
    pub algorithm: Algorithm,
    #[serde(default)]
    pub encoding: Encoding,
    /// Stripped from the header's value before decoding (`sha256=`).
    #[serde(default)]
    pub prefix: String,
    /// A header holding the sending time in seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp_header: Option<String>,
}

/// A scheme with what it needs besides the secret.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scheme {
    Svc,
    Stripe,
    Github,
    GithubSha1,
    Slack,
    Shopify,
    Linear,
    Zendesk,
    StandardWebhooks,
    Custom(Custom),
}

/// A scheme's settings that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    #[error(
        "unknown scheme; one of svc, stripe, github, github-sha1, slack, shopify, linear, zendesk, standard-webhooks, custom"
    )]
    Scheme,
    #[error("a custom scheme needs a header name: letters, digits and hyphens, at most {MAX_HEADER_NAME}")]
    HeaderName,
    #[error("the prefix must be printable ASCII, at most {MAX_PREFIX} characters")]
    Prefix,
    #[error("the secret must not be empty")]
    EmptySecret,
    #[error("a Standard Webhooks secret is whsec_ followed by base64")]
    StandardSecret,
    #[error("the secret is at most 1024 characters")]
    LongSecret,
}

/// Why a request's signature was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the {0} header is missing")]
    Missing(String),
    #[error("the {header} header is malformed: {why}")]
    Malformed { header: String, why: &'static str },
    #[error("the signature does not match the body")]
    Mismatch,
    #[error("the timestamp is {age} s from now, beyond the tolerance of {tolerance} s")]
    Stale { age: u64, tolerance: u64 },
}

/// A request's headers, looked up by name without regard to case.
pub trait Headers {
    fn header(&self, name: &str) -> Option<&str>;
}

impl Headers for [(String, String)] {
    fn header(&self, name: &str) -> Option<&str> {
        self.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

impl Headers for Vec<(String, String)> {
    fn header(&self, name: &str) -> Option<&str> {
        self.as_slice().header(name)
    }
}

/// What a signature is made with, besides scheme, secret and body.
#[derive(Clone, Copy, Debug)]
pub struct Signing<'a> {
    /// Seconds since the epoch.
    pub timestamp_secs: i64,
    /// The Standard Webhooks message id (`msg_...`).
    pub message_id: &'a str,
}

impl Scheme {
    #[must_use]
    pub const fn name(&self) -> SchemeName {
        match self {
            Self::Svc => SchemeName::Svc,
            Self::Stripe => SchemeName::Stripe,
            Self::Github => SchemeName::Github,
            Self::GithubSha1 => SchemeName::GithubSha1,
            Self::Slack => SchemeName::Slack,
            Self::Shopify => SchemeName::Shopify,
            Self::Linear => SchemeName::Linear,
            Self::Zendesk => SchemeName::Zendesk,
            Self::StandardWebhooks => SchemeName::StandardWebhooks,
            Self::Custom(_) => SchemeName::Custom,
        }
    }

    /// The scheme `name` with a custom scheme's settings.
    ///
    /// # Errors
    /// A custom scheme without settings or with a bad header name or prefix.
    pub fn new(name: SchemeName, custom: Option<Custom>) -> Result<Self, Invalid> {
        Ok(match name {
            SchemeName::Svc => Self::Svc,
            SchemeName::Stripe => Self::Stripe,
            SchemeName::Github => Self::Github,
            SchemeName::GithubSha1 => Self::GithubSha1,
            SchemeName::Slack => Self::Slack,
            SchemeName::Shopify => Self::Shopify,
            SchemeName::Linear => Self::Linear,
            SchemeName::Zendesk => Self::Zendesk,
            SchemeName::StandardWebhooks => Self::StandardWebhooks,
            SchemeName::Custom => {
                let custom = custom.ok_or(Invalid::HeaderName)?;
                let names = std::iter::once(&custom.header).chain(custom.timestamp_header.as_ref());
                for name in names {
                    let ok = !name.is_empty()
                        && name.len() <= MAX_HEADER_NAME
                        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                    if !ok {
                        return Err(Invalid::HeaderName);
                    }
                }
                if custom.prefix.len() > MAX_PREFIX || !custom.prefix.bytes().all(|b| (0x20..0x7f).contains(&b)) {
                    return Err(Invalid::Prefix);
                }
                Self::Custom(custom)
            }
        })
    }

    /// The headers this scheme writes (lower-case): what a replay replaces.
    #[must_use]
    pub fn header_names(&self) -> Vec<String> {
        let fixed: &[&str] = match self {
            Self::Svc => &["x-service-signature"],
            Self::Stripe => &["stripe-signature"],
            Self::Github => &["x-hub-signature-256"],
            Self::GithubSha1 => &["x-hub-signature"],
            Self::Slack => &["x-slack-signature", "x-slack-request-timestamp"],
            Self::Shopify => &["x-shopify-hmac-sha256"],
            Self::Linear => &["linear-signature"],
            Self::Zendesk => &["x-zendesk-webhook-signature", "x-zendesk-webhook-signature-timestamp"],
            Self::StandardWebhooks => &["webhook-id", "webhook-timestamp", "webhook-signature"],
            Self::Custom(c) => {
                return std::iter::once(&c.header)
                    .chain(c.timestamp_header.as_ref())
                    .map(|h| h.to_ascii_lowercase())
                    .collect();
            }
        };
        fixed.iter().map(|h| (*h).to_owned()).collect()
    }

    /// Checks that `secret` can sign with this scheme.
    ///
    /// # Errors
    /// An empty or overlong secret, or a Standard Webhooks secret that is
    /// not base64.
    pub fn check_secret(&self, secret: &str) -> Result<(), Invalid> {
        if secret.is_empty() {
            return Err(Invalid::EmptySecret);
        }
        if secret.len() > 1024 {
            return Err(Invalid::LongSecret);
        }
        if matches!(self, Self::StandardWebhooks) {
            standard_key(secret).ok_or(Invalid::StandardSecret)?;
        }
        Ok(())
    }

    /// Verifies a request's signature over its raw `body`.
    ///
    /// # Errors
    /// The [`Refusal`] saying what is missing, malformed, stale or wrong.
    pub fn verify(
        &self,
        secret: &str,
        headers: &(impl Headers + ?Sized),
        body: &[u8],
        now_secs: i64,
        tolerance_secs: u64,
    ) -> Result<(), Refusal> {
        let fresh = |ts: i64| {
            let age = now_secs.abs_diff(ts);
            if age > tolerance_secs { Err(Refusal::Stale { age, tolerance: tolerance_secs }) } else { Ok(()) }
        };
        let key = secret.as_bytes();
        match self {
            Self::Svc => {
                let given = hex_after(required(headers, "X-Service-Signature")?, "sha256=", "X-Service-Signature")?;
                matches(&mac(Algorithm::Sha256, key, &[body]), &given)
            }
            Self::Github => {
                let given = hex_after(required(headers, "X-Hub-Signature-256")?, "sha256=", "X-Hub-Signature-256")?;
                matches(&mac(Algorithm::Sha256, key, &[body]), &given)
            }
            Self::GithubSha1 => {
                let given = hex_after(required(headers, "X-Hub-Signature")?, "sha1=", "X-Hub-Signature")?;
                matches(&mac(Algorithm::Sha1, key, &[body]), &given)
            }
            Self::Stripe => {
                let value = required(headers, "Stripe-Signature")?;
                let mut timestamp = None;
                let mut signatures = Vec::new();
                for part in value.split(',') {
                    match part.trim().split_once('=') {
                        Some(("t", t)) => timestamp = Some(t),
                        Some(("v1", v)) => signatures.push(v),
                        _ => {}
                    }
                }
                let malformed = |why| Refusal::Malformed { header: "Stripe-Signature".into(), why };
                let timestamp = timestamp.ok_or_else(|| malformed("no t= timestamp"))?;
                let ts: i64 = timestamp.parse().map_err(|_| malformed("t= is not a number"))?;
                if signatures.is_empty() {
                    return Err(malformed("no v1= signature"));
                }
                let expected = mac(Algorithm::Sha256, key, &[timestamp.as_bytes(), b".", body]);
                // Stripe sends one v1 per active secret while a secret is
                // being rolled: any one of them may match.
                let any = signatures
                    .iter()
                    .filter_map(|s| hex::decode(s).ok())
                    .fold(subtle::Choice::from(0), |acc, given| acc | ct_eq(&expected, &given));
                if !bool::from(any) {
                    return Err(Refusal::Mismatch);
                }
                fresh(ts)
            }
            Self::Slack => {
                let timestamp = required(headers, "X-Slack-Request-Timestamp")?;
                let ts = number(timestamp, "X-Slack-Request-Timestamp")?;
                let given = hex_after(required(headers, "X-Slack-Signature")?, "v0=", "X-Slack-Signature")?;
                matches(&mac(Algorithm::Sha256, key, &[b"v0:", timestamp.as_bytes(), b":", body]), &given)?;
                fresh(ts)
            }
            Self::Shopify => {
                let given = base64_value(required(headers, "X-Shopify-Hmac-Sha256")?, "X-Shopify-Hmac-Sha256")?;
                matches(&mac(Algorithm::Sha256, key, &[body]), &given)
            }
            Self::Linear => {
                let given = hex_after(required(headers, "Linear-Signature")?, "", "Linear-Signature")?;
                matches(&mac(Algorithm::Sha256, key, &[body]), &given)?;
                // Linear's own verifier checks the payload's
                // `webhookTimestamp` (milliseconds) against the clock.
                match linear_timestamp_ms(body) {
                    Some(ms) => fresh(ms.div_euclid(1000)),
                    None => Ok(()),
                }
            }
            Self::Zendesk => {
                let timestamp = required(headers, "X-Zendesk-Webhook-Signature-Timestamp")?;
                let ts = chrono::DateTime::parse_from_rfc3339(timestamp)
                    .map_err(|_| Refusal::Malformed {
                        header: "X-Zendesk-Webhook-Signature-Timestamp".into(),
                        why: "not an RFC 3339 time",
                    })?
                    .timestamp();
                let given =
                    base64_value(required(headers, "X-Zendesk-Webhook-Signature")?, "X-Zendesk-Webhook-Signature")?;
                matches(&mac(Algorithm::Sha256, key, &[timestamp.as_bytes(), body]), &given)?;
                fresh(ts)
            }
            Self::StandardWebhooks => {
                let id = required(headers, "webhook-id")?;
                let timestamp = required(headers, "webhook-timestamp")?;
                let ts = number(timestamp, "webhook-timestamp")?;
                let value = required(headers, "webhook-signature")?;
                let key = standard_key(secret).ok_or(Refusal::Mismatch)?;
                let expected = mac(Algorithm::Sha256, &key, &[id.as_bytes(), b".", timestamp.as_bytes(), b".", body]);
                let any = value
                    .split(' ')
                    .filter_map(|s| s.strip_prefix("v1,"))
                    .filter_map(|s| BASE64.decode(s).ok())
                    .fold(subtle::Choice::from(0), |acc, given| acc | ct_eq(&expected, &given));
                if !bool::from(any) {
                    return Err(Refusal::Mismatch);
                }
                fresh(ts)
            }
            Self::Custom(custom) => {
                let value = required(headers, &custom.header)?;
                let given = match custom.encoding {
                    Encoding::Hex => hex_after(value, &custom.prefix, &custom.header)?,
                    Encoding::Base64 => {
                        let rest = value.trim().strip_prefix(custom.prefix.as_str()).ok_or_else(|| {
                            Refusal::Malformed { header: custom.header.clone(), why: "does not start with the prefix" }
                        })?;
                        base64_value(rest, &custom.header)?
                    }
                };
                match &custom.timestamp_header {
                    Some(name) => {
                        let timestamp = required(headers, name)?;
                        let ts = number(timestamp, name)?;
                        matches(&mac(custom.algorithm, key, &[timestamp.as_bytes(), b".", body]), &given)?;
                        fresh(ts)
                    }
                    None => matches(&mac(custom.algorithm, key, &[body]), &given),
                }
            }
        }
    }

    /// The headers that sign `body` with this scheme (names as the sender
    /// writes them).
    #[must_use]
    pub fn sign(&self, secret: &str, body: &[u8], signing: Signing<'_>) -> Vec<(String, String)> {
        let key = secret.as_bytes();
        let ts = signing.timestamp_secs.to_string();
        let one = |name: &str, value: String| vec![(name.to_owned(), value)];
        match self {
            Self::Svc => {
                one("X-Service-Signature", format!("sha256={}", hex::encode(mac(Algorithm::Sha256, key, &[body]))))
            }
            Self::Github => {
                one("X-Hub-Signature-256", format!("sha256={}", hex::encode(mac(Algorithm::Sha256, key, &[body]))))
            }
            Self::GithubSha1 => {
                one("X-Hub-Signature", format!("sha1={}", hex::encode(mac(Algorithm::Sha1, key, &[body]))))
            }
            Self::Stripe => {
                let sig = hex::encode(mac(Algorithm::Sha256, key, &[ts.as_bytes(), b".", body]));
                one("Stripe-Signature", format!("t={ts},v1={sig}"))
            }
            Self::Slack => {
                let sig = hex::encode(mac(Algorithm::Sha256, key, &[b"v0:", ts.as_bytes(), b":", body]));
                vec![("X-Slack-Request-Timestamp".into(), ts), ("X-Slack-Signature".into(), format!("v0={sig}"))]
            }
            Self::Shopify => one("X-Shopify-Hmac-Sha256", BASE64.encode(mac(Algorithm::Sha256, key, &[body]))),
            Self::Linear => one("Linear-Signature", hex::encode(mac(Algorithm::Sha256, key, &[body]))),
            Self::Zendesk => {
                let time = chrono::DateTime::from_timestamp(signing.timestamp_secs, 0)
                    .unwrap_or_default()
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                let sig = BASE64.encode(mac(Algorithm::Sha256, key, &[time.as_bytes(), body]));
                vec![
                    ("X-Zendesk-Webhook-Signature".into(), sig),
                    ("X-Zendesk-Webhook-Signature-Timestamp".into(), time),
                ]
            }
            Self::StandardWebhooks => {
                let key = standard_key(secret).unwrap_or_default();
                let id = signing.message_id;
                let sig =
                    BASE64.encode(mac(Algorithm::Sha256, &key, &[id.as_bytes(), b".", ts.as_bytes(), b".", body]));
                vec![
                    ("webhook-id".into(), id.to_owned()),
                    ("webhook-timestamp".into(), ts),
                    ("webhook-signature".into(), format!("v1,{sig}")),
                ]
            }
            Self::Custom(custom) => {
                let raw = match &custom.timestamp_header {
                    Some(_) => mac(custom.algorithm, key, &[ts.as_bytes(), b".", body]),
                    None => mac(custom.algorithm, key, &[body]),
                };
                let encoded = match custom.encoding {
                    Encoding::Hex => hex::encode(raw),
                    Encoding::Base64 => BASE64.encode(raw),
                };
                let mut headers = one(&custom.header, format!("{}{encoded}", custom.prefix));
                if let Some(name) = &custom.timestamp_header {
                    headers.push((name.clone(), ts));
                }
                headers
            }
        }
    }
}

/// The HMAC of the concatenated `parts`.
fn mac(algorithm: Algorithm, key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    fn run<M: Mac + hmac::digest::KeyInit>(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
        // HMAC takes keys of any length: `new_from_slice` cannot fail.
        let Ok(mut mac) = <M as hmac::digest::KeyInit>::new_from_slice(key) else { return Vec::new() };
        for part in parts {
            mac.update(part);
        }
        mac.finalize().into_bytes().to_vec()
    }
    match algorithm {
        Algorithm::Sha1 => run::<Hmac<sha1::Sha1>>(key, parts),
        Algorithm::Sha256 => run::<Hmac<sha2::Sha256>>(key, parts),
        Algorithm::Sha512 => run::<Hmac<sha2::Sha512>>(key, parts),
    }
}

fn ct_eq(expected: &[u8], given: &[u8]) -> subtle::Choice {
    // Lengths are public (they follow from the algorithm); contents are
    // compared in constant time.
    if expected.is_empty() || expected.len() != given.len() { subtle::Choice::from(0) } else { expected.ct_eq(given) }
}

fn matches(expected: &[u8], given: &[u8]) -> Result<(), Refusal> {
    if bool::from(ct_eq(expected, given)) { Ok(()) } else { Err(Refusal::Mismatch) }
}

fn required<'a>(headers: &'a (impl Headers + ?Sized), name: &str) -> Result<&'a str, Refusal> {
    headers.header(name).ok_or_else(|| Refusal::Missing(name.to_owned()))
}

fn number(value: &str, header: &str) -> Result<i64, Refusal> {
    value.trim().parse().map_err(|_| Refusal::Malformed { header: header.to_owned(), why: "not a number of seconds" })
}

fn hex_after(value: &str, prefix: &str, header: &str) -> Result<Vec<u8>, Refusal> {
    let rest = value
        .trim()
        .strip_prefix(prefix)
        .ok_or_else(|| Refusal::Malformed { header: header.to_owned(), why: "does not start with the prefix" })?;
    hex::decode(rest).map_err(|_| Refusal::Malformed { header: header.to_owned(), why: "not hexadecimal" })
}

fn base64_value(value: &str, header: &str) -> Result<Vec<u8>, Refusal> {
    BASE64.decode(value.trim()).map_err(|_| Refusal::Malformed { header: header.to_owned(), why: "not base64" })
}

/// The key of a Standard Webhooks secret: the base64 after `whsec_` (the
/// prefix is optional, as in the specification's libraries).
fn standard_key(secret: &str) -> Option<Vec<u8>> {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    BASE64.decode(encoded).ok().filter(|k| !k.is_empty())
}

/// `webhookTimestamp` of a Linear payload, in milliseconds.
fn linear_timestamp_ms(body: &[u8]) -> Option<i64> {
    #[derive(Deserialize)]
    struct Payload {
        #[serde(rename = "webhookTimestamp")]
        webhook_timestamp: Option<i64>,
    }
    serde_json::from_slice::<Payload>(body).ok()?.webhook_timestamp
}

#[cfg(test)]
mod tests;
