//! Outgoing mail: through an SMTP server when `SVC_SMTP_URL` names one,
//! otherwise written as `.eml` files under `<data dir>/mail/` and logged, so
//! a self-hoster without a mail server can still finish every flow (the
//! verification link is in the file and in the log line).
//!
//! The SMTP client is lettre's, with rustls, and takes its URL forms:
//! `smtps://user:password@host:465` is TLS from the first byte,
//! `smtp://user:password@host:587?tls=required` upgrades with STARTTLS (and
//! refuses a server that cannot), and a bare `smtp://host:25` is plain text,
//! for a relay on the same machine or network only (a warning says so).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// How long one SMTP exchange may take before the send fails.
const SMTP_TIMEOUT: Duration = Duration::from_secs(15);

/// One message: the address it goes to, its subject, and the same content
/// as plain text and as HTML.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}

impl Mail {
    /// A mail with one call to action (`action`, a link), as plain text and
    /// as HTML: a lead sentence, the link, and a closing sentence.
    #[must_use]
    pub fn with_link(to: &str, subject: &str, lead: &str, action: &str, link: &str, tail: &str) -> Self {
        Self {
            to: to.to_owned(),
            subject: subject.to_owned(),
            text: format!("{lead}\n\n{action}: {link}\n\n{tail}\n"),
            html: format!(
                "<!doctype html><html><body style=\"font-family:system-ui,sans-serif;line-height:1.5\">\
                 <p>{}</p><p><a href=\"{}\">{}</a></p><p style=\"color:#555\">{}</p>\
                 <p style=\"color:#555;font-size:90%\">Or paste this address into your browser: {}</p></body></html>",
                escape_html(lead),
                escape_html(link),
                escape_html(action),
                escape_html(tail),
                escape_html(link)
            ),
        }
    }
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[derive(Debug, thiserror::Error)]
pub enum MailError {
    #[error("SVC_SMTP_URL is not a usable SMTP URL: {0}")]
    Config(String),
    #[error("the mail could not be built: {0}")]
    Build(String),
    #[error("the SMTP server refused or could not be reached: {0}")]
    Smtp(String),
    #[error("the mail could not be written to {path}: {cause}")]
    File { path: String, cause: std::io::Error },
}

/// Where mail goes.
#[derive(Clone)]
pub struct Mailer {
    from: Mailbox,
    via: Via,
}

#[derive(Clone)]
enum Via {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    Files { dir: PathBuf, sequence: std::sync::Arc<AtomicU64> },
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let via = match &self.via {
            Via::Smtp(_) => "smtp".to_owned(),
            Via::Files { dir, .. } => format!("files in {}", dir.display()),
        };
        f.debug_struct("Mailer").field("from", &self.from.to_string()).field("via", &via).finish()
    }
}

impl Mailer {
    /// Mail through `smtp_url` when set, otherwise into `<data_dir>/mail/`.
    /// `from` is the sender (`Name <address>` or a bare address).
    pub fn from_config(smtp_url: Option<&str>, from: &str, data_dir: &Path) -> Result<Self, MailError> {
        let from: Mailbox = from.parse().map_err(|e| MailError::Config(format!("sender {from:?}: {e}")))?;
        let via = match smtp_url.map(str::trim).filter(|url| !url.is_empty()) {
            Some(url) => {
                crate::outbound::ensure_crypto_provider();
                if url.starts_with("smtp://") && !url.contains("tls=") {
                    tracing::warn!(
                        "SVC_SMTP_URL is plain SMTP: mail and credentials cross the network unencrypted; use smtps:// or ?tls=required unless the relay is local"
                    );
                }
                let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
                    .map_err(|e| MailError::Config(e.to_string()))?
                    .timeout(Some(SMTP_TIMEOUT))
                    .build();
                Via::Smtp(transport)
            }
            None => Self::files_via(data_dir),
        };
        Ok(Self { from, via })
    }

    fn files_via(data_dir: &Path) -> Via {
        Via::Files { dir: data_dir.join("mail"), sequence: std::sync::Arc::new(AtomicU64::new(0)) }
    }

    /// Whether mail leaves the machine (an SMTP server is configured).
    #[must_use]
    pub const fn uses_smtp(&self) -> bool {
        matches!(self.via, Via::Smtp(_))
    }

    /// Sends `mail`: hands it to the SMTP server, or writes it as a file and
    /// logs where.
    pub async fn send(&self, mail: &Mail) -> Result<(), MailError> {
        let message = self.message(mail)?;
        match &self.via {
            Via::Smtp(transport) => {
                transport.send(message).await.map_err(|e| MailError::Smtp(e.to_string()))?;
                tracing::info!(to = %mail.to, subject = %mail.subject, "mail sent");
                Ok(())
            }
            Via::Files { dir, sequence } => {
                let bytes = message.formatted();
                let n = sequence.fetch_add(1, Ordering::Relaxed);
                let stamp =
                    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
                let stem = format!("{stamp}-{n:04}-{}", std::process::id());
                let path = dir.join(format!("{stem}.eml"));
                // The .eml's text part is quoted-printable (a link breaks at
                // `=3D` and soft line ends); its twin holds the text as
                // written, so a link copied from it works.
                let twin = dir.join(format!("{stem}.txt"));
                let readable = format!("To: {}\nSubject: {}\n\n{}", mail.to, mail.subject, mail.text);
                let write = async {
                    tokio::fs::create_dir_all(dir).await?;
                    tokio::fs::write(&path, &bytes).await?;
                    tokio::fs::write(&twin, readable.as_bytes()).await
                };
                write.await.map_err(|cause| MailError::File { path: path.display().to_string(), cause })?;
                tracing::info!(
                    to = %mail.to,
                    subject = %mail.subject,
                    file = %path.display(),
                    text_file = %twin.display(),
                    text = %mail.text,
                    "mail written to a file (SVC_SMTP_URL is not set)"
                );
                Ok(())
            }
        }
    }

    fn message(&self, mail: &Mail) -> Result<Message, MailError> {
        let to: Mailbox = mail.to.parse().map_err(|e| MailError::Build(format!("recipient {:?}: {e}", mail.to)))?;
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(&mail.subject)
            .multipart(MultiPart::alternative_plain_html(mail.text.clone(), mail.html.clone()))
            .map_err(|e| MailError::Build(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Mail {
        Mail {
            to: "ada@example.com".into(),
            subject: "Verify your address".into(),
            text: "Open http://hub.test/app/verify?token=abc".into(),
            html: "<p><a href=\"http://hub.test/app/verify?token=abc\">Verify</a></p>".into(),
        }
    }

    #[tokio::test]
    async fn without_smtp_mail_is_written_as_an_eml_file_with_both_parts() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = Mailer::from_config(None, "Hub <noreply@hub.test>", dir.path()).unwrap();
        assert!(!mailer.uses_smtp());
        mailer.send(&sample()).await.unwrap();
        let mut files: Vec<_> =
            std::fs::read_dir(dir.path().join("mail")).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        assert_eq!(files.len(), 2, "the .eml and its plain-text twin");
        let eml = std::fs::read_to_string(&files[0]).unwrap();
        assert!(files[0].extension().is_some_and(|e| e == "eml") && files[1].extension().is_some_and(|e| e == "txt"));
        // The twin holds the link whole, as written.
        let twin = std::fs::read_to_string(&files[1]).unwrap();
        assert!(twin.contains("Open http://hub.test/app/verify?token=abc"), "{twin}");
        assert!(twin.starts_with("To: ada@example.com\nSubject: Verify your address\n"), "{twin}");
        assert!(eml.contains("To: ada@example.com"), "{eml}");
        assert!(eml.contains("From: Hub <noreply@hub.test>"), "{eml}");
        assert!(eml.contains("Subject: Verify your address"), "{eml}");
        assert!(eml.contains("multipart/alternative"), "{eml}");
        assert!(eml.contains("text/plain") && eml.contains("text/html"), "{eml}");
    }

    #[test]
    fn smtp_urls_are_checked_when_configured() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            Mailer::from_config(Some("smtp://127.0.0.1:2525"), "noreply@hub.test", dir.path()).unwrap().uses_smtp()
        );
        assert!(Mailer::from_config(Some("smtp://mail.example?tls=required"), "noreply@hub.test", dir.path()).is_ok());
        assert!(matches!(
            Mailer::from_config(Some("http://mail.example"), "noreply@hub.test", dir.path()),
            Err(MailError::Config(_))
        ));
        assert!(matches!(
            Mailer::from_config(Some("smtp://mail.example?tls=sometimes"), "noreply@hub.test", dir.path()),
            Err(MailError::Config(_))
        ));
        assert!(matches!(Mailer::from_config(None, "not an address", dir.path()), Err(MailError::Config(_))));
    }

    #[tokio::test]
    async fn a_bad_recipient_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let mailer = Mailer::from_config(None, "noreply@hub.test", dir.path()).unwrap();
        let mail = Mail { to: "not an address".into(), ..sample() };
        assert!(matches!(mailer.send(&mail).await, Err(MailError::Build(_))));
    }
}
