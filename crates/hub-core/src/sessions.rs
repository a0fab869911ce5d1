//! People in a browser: sign-up with a verified address, sign-in to a
//! server-side session, sign-out (here or everywhere), password change and
//! reset by mailed link, the profile, and plan upgrade requests.
//!
//! Sessions live in the store, so every node sees the same ones and a
//! revocation takes effect everywhere at once. The cookie holds a random
//! secret; the store keeps its SHA-256. A session ends after
//! [`SESSION_IDLE_DAYS`] without use or [`SESSION_ABSOLUTE_DAYS`] after
//! sign-in, whichever comes first. Mail links are single use, stored hashed
//! and expire (verification after a day, reset after an hour).

use std::str::FromStr;

use kernel::{Secret, Timestamp};
use platform::mail::{Mail, Mailer};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{AuditEvent, Principal, Source, User};
use crate::names::Email;
use crate::plans::Plan;

/// A session unused this long ends.
pub const SESSION_IDLE_DAYS: i64 = 14;
/// A session ends this long after sign-in, however busy.
pub const SESSION_ABSOLUTE_DAYS: i64 = 30;
/// `last_seen_at` is rewritten at most once per this interval.
const SESSION_TOUCH_MS: i64 = 60_000;
/// Verification links work this long.
pub const VERIFY_LINK_HOURS: i64 = 24;
/// Reset links work this long.
pub const RESET_LINK_HOURS: i64 = 1;
/// Password length bounds, in characters (the platform's, shared by every
/// service's accounts).
pub use platform::passwords::{MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS};
/// Display names, in characters.
pub const MAX_DISPLAY_NAME_CHARS: usize = 100;

/// Who may create an account through the sign-up page (`SVC_SIGNUP`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignupMode {
    /// Anyone with an address they can read mail at.
    #[default]
    Open,
    /// Only addresses with an account made for them (by the operator, or
    /// later by an invitation) that has no password yet; the mailed link
    /// proves the address and the person sets a password.
    Invite,
    /// No sign-up page; the operator makes accounts.
    Closed,
}

impl SignupMode {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Invite => "invite",
            Self::Closed => "closed",
        }
    }
}

impl FromStr for SignupMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "open" => Ok(Self::Open),
            "invite" => Ok(Self::Invite),
            "closed" => Ok(Self::Closed),
            other => Err(format!("SVC_SIGNUP is open, invite or closed, not {other:?}")),
        }
    }
}

/// How the hub meets people: sign-up mode, mail and the public URL that
/// mailed links start with.
#[derive(Clone, Debug)]
pub struct AccountsConfig {
    pub signup: SignupMode,
    /// The hub's public URL without a trailing slash.
    pub public_url: String,
    pub mailer: Mailer,
}

/// An account as the dashboard sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub email: String,
    pub plan: Plan,
    pub(crate) password_hash: Option<String>,
    pub email_verified_at: Option<Timestamp>,
    pub display_name: Option<String>,
    pub created_at: Timestamp,
}

impl Account {
    pub const fn is_verified(&self) -> bool {
        self.email_verified_at.is_some()
    }

    pub const fn has_password(&self) -> bool {
        self.password_hash.is_some()
    }
}

/// One signed-in browser.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    pub id: String,
    pub user_id: String,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
    pub expires_at: Timestamp,
    pub user_agent: String,
    pub ip: String,
}

/// A new session: the cookie's secret (returned once) and its row.
#[derive(Debug)]
pub struct NewSession {
    pub secret: Secret<String>,
    pub info: SessionInfo,
}

/// What a browser tells about itself at sign-in, shown in the session list.
#[derive(Clone, Debug, Default)]
pub struct ClientInfo {
    pub user_agent: String,
    pub ip: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MailPurpose {
    Verify,
    Reset,
}

impl MailPurpose {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Verify => "verify",
            Self::Reset => "reset",
        }
    }
}

/// A plan change waiting for the operator (no payment provider).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanRequest {
    pub id: String,
    pub user_id: String,
    pub plan: Plan,
    pub created_at: Timestamp,
}

/// A new password as the store writes it: its hash, the session of this
/// browser to keep under a new secret hash (every other session ends), and
/// whether every personal access token goes too.
#[derive(Clone, Copy, Debug)]
pub struct PasswordChange<'a> {
    pub hash: &'a str,
    pub rotate: Option<(&'a str, &'a str)>,
    pub revoke_tokens: bool,
}

/// An account's use of its plan's limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Usage {
    pub plan: Plan,
    pub projects: u64,
    pub collaborators: u64,
    pub open_request: Option<PlanRequest>,
    /// The docs assistant's quotas in their current windows.
    pub ai: crate::assistant::AiUsage,
}

/// A sign-in that did not open a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignInRefusal {
    /// Unknown address or wrong password: the same answer for both.
    Credentials,
    /// The password is right but the address is not verified yet.
    Unverified,
}

pub(crate) fn hash_secret(secret: &str) -> String {
    platform::crypto::sha256_hex(secret.as_bytes())
}

/// Checks a new password: length, and not among the passwords attackers try
/// first (zxcvbn's frequency lists and patterns, with the address as a hint).
pub fn check_password(password: &str, email: &str) -> HubResult<()> {
    let local = email.split('@').next().unwrap_or_default();
    platform::passwords::check_strength(password, &[local, email, "svc", "hub"])
        .map_err(|message| HubError::validation("password", message))
}

pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A mail with one call to action, as plain text and HTML (the platform's,
/// shared with the courses studio's invitations).
pub(crate) fn link_mail(to: &str, subject: &str, lead: &str, action: &str, link: &str, tail: &str) -> Mail {
    Mail::with_link(to, subject, lead, action, link, tail)
}

impl Hub {
    /// The sign-up mode, mail and public URL of this hub.
    pub fn accounts_config(&self) -> &AccountsConfig {
        &self.accounts
    }

    pub async fn account(&self, principal: &Principal) -> HubResult<Account> {
        self.store.account_by_id(&principal.user_id).await?.ok_or(HubError::not_found("account"))
    }

    /// Creates an account (open sign-up) or claims a prepared one (invite),
    /// and mails a verification link.
    ///
    /// The answer and the work on the request path are the same for every
    /// address, so neither the page nor its timing tells whether one has an
    /// account: one password hash and one lookup, then what differs (a new
    /// row, a mail) happens off the request path. An address that has an
    /// account already is told by mail that someone tried, and nothing of
    /// the account changes; in invite mode an address without an invitation
    /// gets the same "check your mail" and no mail.
    pub async fn sign_up(&self, email: &str, password: &Secret<String>) -> HubResult<()> {
        let mode = self.accounts.signup;
        if mode == SignupMode::Closed {
            return Err(HubError::SignupClosed);
        }
        let email = Email::parse(email)?;
        check_password(password.expose(), email.as_str())?;
        let hash = self.hash_password(password.expose()).await?;
        let existing = self.store.account_by_email(email.as_str()).await?;
        let hub = self.clone();
        self.in_background(async move {
            if let Err(err) = hub.finish_sign_up(mode, email, existing, hash).await {
                tracing::error!(error = %err, "sign-up not finished");
            }
        });
        Ok(())
    }

    /// The part of a sign-up that depends on the address: off the request path.
    async fn finish_sign_up(
        &self,
        mode: SignupMode,
        email: Email,
        existing: Option<Account>,
        hash: String,
    ) -> HubResult<()> {
        match existing {
            Some(account) if account.has_password() => {
                // Someone may be trying to learn whether the address has an
                // account: they got the same page; the owner learns of it.
                let mail = link_mail(
                    account.email.as_str(),
                    "Someone tried to sign up with your address",
                    "Someone tried to create an account with this address, which already has one. \
                     If it was you, sign in or reset your password.",
                    "Reset your password",
                    &format!("{}/app/reset", self.accounts.public_url),
                    "If it was not you, you can ignore this mail: nothing of your account changed.",
                );
                self.deliver(&mail).await;
            }
            Some(account) => {
                // A prepared account without a password (made by the
                // operator or an invitation): the person proves the address
                // by choosing the password through a mailed link, so knowing
                // an invited address is not enough to claim it.
                self.send_password_link(&account, true).await?;
            }
            None if mode == SignupMode::Invite => {
                tracing::info!("sign-up refused for an address without an invitation (invite mode)");
            }
            None => {
                let id = uuid::Uuid::now_v7().to_string();
                let now = self.clock.now();
                match self.store.insert_unverified_user(&id, email.as_str(), &hash, Plan::Free, now).await {
                    Ok(()) => {
                        self.send_verification(&id, email.as_str()).await?;
                    }
                    // A concurrent sign-up with the same address won; its
                    // own mail is on its way.
                    Err(HubError::Conflict { .. }) => {}
                    Err(err) => return Err(err),
                }
            }
        }
        Ok(())
    }

    /// Mails a new verification link when the address has an unverified
    /// account; does nothing otherwise. Everything but parsing happens off
    /// the request path, so the answer takes as long for every address.
    pub async fn resend_verification(&self, email: &str) -> HubResult<()> {
        let Ok(email) = Email::parse(email) else { return Ok(()) };
        let hub = self.clone();
        self.in_background(async move {
            let result = async {
                if let Some(account) = hub.store.account_by_email(email.as_str()).await?
                    && !account.is_verified()
                    && account.has_password()
                {
                    hub.send_verification(&account.id, &account.email).await?;
                }
                Ok::<(), HubError>(())
            };
            if let Err(err) = result.await {
                tracing::error!(error = %err, "verification link not resent");
            }
        });
        Ok(())
    }

    async fn send_verification(&self, user_id: &str, email: &str) -> HubResult<bool> {
        let secret = platform::crypto::random_token(32);
        let now = self.clock.now();
        self.store
            .insert_mail_token(
                user_id,
                MailPurpose::Verify,
                &hash_secret(&secret),
                now,
                now.plus_millis(VERIFY_LINK_HOURS * 3_600_000),
            )
            .await?;
        let mail = link_mail(
            email,
            "Verify your address",
            "Welcome! Verify this address to finish creating your account.",
            "Verify your address",
            &format!("{}/app/verify?token={secret}", self.accounts.public_url),
            &format!("The link works once, for {VERIFY_LINK_HOURS} hours. If you did not sign up, ignore this mail."),
        );
        Ok(self.deliver(&mail).await)
    }

    /// Sends a mail; a failure is logged and reported as `false`, never
    /// lost silently and never a failed request.
    pub(crate) async fn deliver(&self, mail: &Mail) -> bool {
        match self.accounts.mailer.send(mail).await {
            Ok(()) => true,
            Err(err) => {
                tracing::error!(error = %err, to = %mail.to, subject = %mail.subject, "mail not sent");
                false
            }
        }
    }

    /// Uses a verification link: the address is verified.
    pub async fn verify_email(&self, secret: &str) -> HubResult<User> {
        let now = self.clock.now();
        let user_id =
            self.store.consume_mail_token(&hash_secret(secret), MailPurpose::Verify, now).await?.ok_or_else(|| {
                HubError::validation("token", "this link was used already or has expired; sign in to get a new one")
            })?;
        self.store.mark_email_verified(&user_id, now).await?;
        let account = self.store.account_by_id(&user_id).await?.ok_or(HubError::not_found("account"))?;
        Ok(User { id: account.id, email: account.email, plan: account.plan, created_at: account.created_at })
    }

    /// Checks a password and opens a session. Unknown addresses cost the
    /// same hash as known ones. Throttling is the caller's (it knows the
    /// client's address).
    pub async fn sign_in(
        &self,
        email: &str,
        password: &Secret<String>,
        client: ClientInfo,
    ) -> HubResult<Result<NewSession, SignInRefusal>> {
        let account = match Email::parse(email) {
            Ok(email) => self.store.account_by_email(email.as_str()).await?,
            Err(_) => None,
        };
        let stored = account.as_ref().and_then(|a| a.password_hash.as_deref());
        let input: String = password.expose().chars().take(MAX_PASSWORD_CHARS).collect();
        if !self.verify_password(&input, stored).await? {
            return Ok(Err(SignInRefusal::Credentials));
        }
        let Some(account) = account else { return Ok(Err(SignInRefusal::Credentials)) };
        if !account.is_verified() {
            return Ok(Err(SignInRefusal::Unverified));
        }
        let audit = self.audit_row(
            &account.id,
            account.plan,
            &account.id,
            Source::Dashboard,
            AuditDraft::new(AuditAction::SignedIn, "session", &account.id).meta("method", "password"),
        );
        Ok(Ok(self.open_session_audited(&account.id, client, audit.as_ref()).await?))
    }

    pub(crate) async fn open_session(&self, user_id: &str, client: ClientInfo) -> HubResult<NewSession> {
        self.open_session_audited(user_id, client, None).await
    }

    async fn open_session_audited(
        &self,
        user_id: &str,
        client: ClientInfo,
        audit: Option<&AuditEvent>,
    ) -> HubResult<NewSession> {
        let now = self.clock.now();
        let secret = platform::crypto::random_token(32);
        let info = SessionInfo {
            id: uuid::Uuid::now_v7().to_string(),
            user_id: user_id.to_owned(),
            created_at: now,
            last_seen_at: now,
            expires_at: now.plus_days(SESSION_ABSOLUTE_DAYS),
            user_agent: client.user_agent.chars().take(300).collect(),
            ip: client.ip.chars().take(64).collect(),
        };
        self.store.insert_session(&info, &hash_secret(&secret), audit).await?;
        Ok(NewSession { secret: Secret::new(secret), info })
    }

    /// The person behind a session cookie, when the session is live.
    pub async fn session(&self, secret: &str) -> HubResult<Option<(Principal, SessionInfo)>> {
        if secret.is_empty() || secret.len() > 128 {
            return Ok(None);
        }
        let Some((principal, info)) = self.store.session_by_hash(&hash_secret(secret)).await? else {
            return Ok(None);
        };
        let now = self.clock.now();
        let idle_end = info.last_seen_at.plus_days(SESSION_IDLE_DAYS);
        if info.expires_at <= now || idle_end <= now {
            self.store.delete_session(&info.user_id, &info.id).await?;
            return Ok(None);
        }
        if now.as_millis() - info.last_seen_at.as_millis() >= SESSION_TOUCH_MS {
            self.store.touch_session(&info.id, now).await?;
        }
        Ok(Some((principal, info)))
    }

    /// Ends the session behind a cookie.
    pub async fn sign_out(&self, secret: &str) -> HubResult<()> {
        self.store.delete_session_by_hash(&hash_secret(secret)).await
    }

    /// Ends every session of the caller (this browser's too).
    pub async fn sign_out_everywhere(&self, principal: &Principal, source: Source) -> HubResult<u64> {
        let audit = self.audit_row(
            &principal.user_id,
            principal.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::SessionsRevoked, "user", &principal.user_id),
        );
        self.store.delete_sessions_of_user(&principal.user_id, audit.as_ref()).await
    }

    pub async fn list_sessions(&self, principal: &Principal) -> HubResult<Vec<SessionInfo>> {
        self.store.sessions_of_user(&principal.user_id, self.clock.now()).await
    }

    /// Ends one of the caller's sessions; another person's is not found.
    pub async fn revoke_session(&self, principal: &Principal, id: &str) -> HubResult<()> {
        if self.store.delete_session(&principal.user_id, id).await? {
            Ok(())
        } else {
            Err(HubError::not_found("session"))
        }
    }

    /// Changes the caller's password after checking the current one; every
    /// other session ends, and the session `keep_session` (this browser's)
    /// gets a new secret, returned for its cookie: a copy of the old cookie
    /// stops working too. The throttle in front of the current-password
    /// check is the caller's, as for sign-in.
    pub async fn change_password(
        &self,
        principal: &Principal,
        current: &Secret<String>,
        new: &Secret<String>,
        keep_session: Option<&str>,
        source: Source,
    ) -> HubResult<Option<Secret<String>>> {
        let account = self.account(principal).await?;
        let input: String = current.expose().chars().take(MAX_PASSWORD_CHARS).collect();
        if !self.verify_password(&input, account.password_hash.as_deref()).await? {
            return Err(HubError::validation("current_password", "the current password is not right"));
        }
        check_password(new.expose(), &account.email)?;
        let hash = self.hash_password(new.expose()).await?;
        let audit = self.audit_row(
            &account.id,
            account.plan,
            &account.id,
            source,
            AuditDraft::new(AuditAction::PasswordChanged, "user", &account.id),
        );
        let renewed = keep_session.map(|id| (id, platform::crypto::random_token(32)));
        let rotate = renewed.as_ref().map(|(id, secret)| (*id, hash_secret(secret)));
        let rotate = rotate.as_ref().map(|(id, hashed)| (*id, hashed.as_str()));
        let change = PasswordChange { hash: &hash, rotate, revoke_tokens: false };
        self.store.replace_password(&account.id, &change, self.clock.now(), audit.as_ref()).await?;
        Ok(renewed.map(|(_, secret)| Secret::new(secret)))
    }

    /// Mails a reset link when the address has an account. The lookup and
    /// the mail happen off the request path, so the answer and its timing
    /// are the same for every address.
    pub async fn request_password_reset(&self, email: &str) -> HubResult<()> {
        let Ok(email) = Email::parse(email) else { return Ok(()) };
        let hub = self.clone();
        self.in_background(async move {
            let result = async {
                if let Some(account) = hub.store.account_by_email(email.as_str()).await? {
                    hub.send_password_link(&account, false).await?;
                }
                Ok::<(), HubError>(())
            };
            if let Err(err) = result.await {
                tracing::error!(error = %err, "reset link not sent");
            }
        });
        Ok(())
    }

    /// Mails a single-use link to the page that sets a new password: a
    /// reset, or the first password of a prepared account.
    async fn send_password_link(&self, account: &Account, first: bool) -> HubResult<bool> {
        let secret = platform::crypto::random_token(32);
        let now = self.clock.now();
        self.store
            .insert_mail_token(
                &account.id,
                MailPurpose::Reset,
                &hash_secret(&secret),
                now,
                now.plus_millis(RESET_LINK_HOURS * 3_600_000),
            )
            .await?;
        let link = format!("{}/app/reset/new?token={secret}", self.accounts.public_url);
        let mail = if first {
            link_mail(
                &account.email,
                "Choose your password",
                "An account is waiting for this address. Choose a password to finish creating it.",
                "Choose your password",
                &link,
                &format!("The link works once, for {RESET_LINK_HOURS} hour. If you did not sign up, ignore this mail."),
            )
        } else {
            link_mail(
                &account.email,
                "Reset your password",
                "Someone (hopefully you) asked to reset the password of this account.",
                "Choose a new password",
                &link,
                &format!(
                    "The link works once, for {RESET_LINK_HOURS} hour. If you did not ask, ignore this mail: \
                     your password stays as it is."
                ),
            )
        };
        Ok(self.deliver(&mail).await)
    }

    /// Whether a reset link can still be used.
    pub async fn reset_link_open(&self, secret: &str) -> HubResult<bool> {
        self.store.mail_token_open(&hash_secret(secret), MailPurpose::Reset, self.clock.now()).await
    }

    /// The personal access tokens of the account a reset link belongs to,
    /// shown on the reset page so the person can revoke them with the new
    /// password (a stolen session may have minted one); `None` when the
    /// link does not work.
    pub async fn reset_link_tokens(&self, secret: &str) -> HubResult<Option<Vec<crate::TokenInfo>>> {
        if !self.reset_link_open(secret).await? {
            return Ok(None);
        }
        let Some(owner) = self.store.mail_token_owner(&hash_secret(secret)).await? else { return Ok(None) };
        Ok(Some(self.store.tokens_of_user(&owner).await?))
    }

    /// Uses a reset link: sets the password, verifies the address, ends
    /// every session and, with `revoke_tokens`, deletes every personal
    /// access token of the account, in one transaction.
    pub async fn reset_password(&self, secret: &str, new: &Secret<String>, revoke_tokens: bool) -> HubResult<User> {
        let now = self.clock.now();
        if !self.reset_link_open(secret).await? {
            return Err(HubError::validation("token", "this link was used already or has expired; ask for a new one"));
        }
        // Check the password before using up the link, so a refused
        // password can be retried with the same link.
        let hash_of_link = hash_secret(secret);
        let user_id = {
            // Peek at the owner to check the new password against the address.
            let owner = self.store.mail_token_owner(&hash_of_link).await?.ok_or(HubError::not_found("account"))?;
            let account = self.store.account_by_id(&owner).await?.ok_or(HubError::not_found("account"))?;
            check_password(new.expose(), &account.email)?;
            owner
        };
        let hash = self.hash_password(new.expose()).await?;
        let consumed =
            self.store.consume_mail_token(&hash_of_link, MailPurpose::Reset, now).await?.ok_or_else(|| {
                HubError::validation("token", "this link was used already or has expired; ask for a new one")
            })?;
        if consumed != user_id {
            return Err(HubError::Internal("a reset link changed owner".into()));
        }
        let account = self.store.account_by_id(&user_id).await?.ok_or(HubError::not_found("account"))?;
        let audit = self.audit_row(
            &account.id,
            account.plan,
            &account.id,
            Source::Dashboard,
            AuditDraft::new(AuditAction::PasswordChanged, "user", &account.id)
                .meta("via", "reset_link")
                .meta("tokens_revoked", revoke_tokens),
        );
        let change = PasswordChange { hash: &hash, rotate: None, revoke_tokens };
        self.store.replace_password(&account.id, &change, now, audit.as_ref()).await?;
        Ok(User { id: account.id, email: account.email, plan: account.plan, created_at: account.created_at })
    }

    /// Sets or clears the caller's display name.
    pub async fn update_profile(&self, principal: &Principal, display_name: &str) -> HubResult<Account> {
        let name = display_name.trim();
        if name.chars().count() > MAX_DISPLAY_NAME_CHARS {
            return Err(HubError::validation(
                "display_name",
                format!("use at most {MAX_DISPLAY_NAME_CHARS} characters"),
            ));
        }
        if name.chars().any(char::is_control) {
            return Err(HubError::validation("display_name", "the name cannot hold control characters"));
        }
        let audit = self.audit_row(
            &principal.user_id,
            principal.plan,
            &principal.user_id,
            Source::Dashboard,
            AuditDraft::new(AuditAction::ProfileUpdated, "account", &principal.user_id)
                .meta("display_name", !name.is_empty()),
        );
        self.store.set_display_name(&principal.user_id, (!name.is_empty()).then_some(name), audit.as_ref()).await?;
        self.account(principal).await
    }

    /// Records a plan change for the operator to complete (owner-only: an
    /// account's plan is its owner's to change, and a session is always its
    /// own account's owner).
    pub async fn request_plan(&self, principal: &Principal, plan: Plan, source: Source) -> HubResult<PlanRequest> {
        if plan == principal.plan {
            return Err(HubError::validation("plan", format!("the account is on {} already", plan.as_str())));
        }
        let request = PlanRequest {
            id: uuid::Uuid::now_v7().to_string(),
            user_id: principal.user_id.clone(),
            plan,
            created_at: self.clock.now(),
        };
        let audit = self.audit_row(
            &principal.user_id,
            principal.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::PlanChangeRequested, "user", &principal.user_id)
                .meta("from", principal.plan.as_str())
                .meta("to", plan.as_str()),
        );
        self.store.insert_plan_request(&request, audit.as_ref()).await?;
        tracing::info!(user = %principal.email, plan = plan.as_str(), "plan change requested; complete it with `svc hub user set-plan`");
        Ok(request)
    }

    /// The caller's use of their plan.
    pub async fn usage(&self, principal: &Principal) -> HubResult<Usage> {
        Ok(Usage {
            plan: principal.plan,
            projects: self.store.owned_project_count(&principal.user_id).await?,
            collaborators: self.store.collaborator_count(&principal.user_id).await?,
            open_request: self.store.open_plan_request(&principal.user_id).await?,
            ai: self.ai_usage(&principal.user_id, principal.plan).await?,
        })
    }

    /// Removes expired sessions and mail links (scheduled hourly).
    pub async fn prune_sessions(&self) -> HubResult<u64> {
        let now = self.clock.now();
        self.store.prune_sessions(now, now.plus_days(-SESSION_IDLE_DAYS)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_common_passwords_are_refused_with_a_reason() {
        let short = check_password("abc", "ada@example.com").unwrap_err();
        assert!(short.to_string().contains("at least 10"), "{short}");
        for common in ["password1234", "qwertyuiop", "1234567890", "ada@example.com1"] {
            assert!(check_password(common, "ada@example.com").is_err(), "{common} passed");
        }
        let long = "x".repeat(MAX_PASSWORD_CHARS + 1);
        assert!(check_password(&long, "ada@example.com").is_err());
    }

    #[test]
    fn unrelated_words_and_random_strings_pass() {
        check_password("violet tractor wanders", "ada@example.com").unwrap();
        check_password("Xk4!vQ9#mT2p", "ada@example.com").unwrap();
    }

    #[test]
    fn signup_modes_parse_and_the_default_is_open() {
        assert_eq!("Invite".parse::<SignupMode>().unwrap(), SignupMode::Invite);
        assert_eq!("closed".parse::<SignupMode>().unwrap(), SignupMode::Closed);
        assert!("sometimes".parse::<SignupMode>().is_err());
        assert_eq!(SignupMode::default(), SignupMode::Open);
    }

    #[test]
    fn mails_carry_the_link_in_both_parts_and_escape_html() {
        let mail = link_mail("a@b.c", "S", "Lead <b>", "Go", "https://h/x?token=a&b", "Tail");
        assert!(mail.text.contains("Go: https://h/x?token=a&b"));
        assert!(mail.html.contains("href=\"https://h/x?token=a&amp;b\""));
        assert!(mail.html.contains("Lead &lt;b&gt;"));
    }
}
