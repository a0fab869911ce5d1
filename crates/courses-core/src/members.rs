//! People who author in the studio: members of a workspace with an email
//! address and a password, their roles, browser sessions and invitations.
//! API keys stay for machines; a member's session acts through the same
//! use cases with an [`Access`] whose scope follows the role.
//!
//! Roles (docs/decisions.md): an `owner` does everything, including
//! inviting people and the workspace's settings; an `author` edits,
//! publishes, exports and manages learners; a `viewer` reads. The security
//! rules are the hub's: argon2id through `platform::passwords` (a check
//! against an unknown address costs the same hash), sessions stored as the
//! SHA-256 of a random secret that end after [`SESSION_IDLE_DAYS`] unused
//! or [`SESSION_ABSOLUTE_DAYS`] after sign-in, single-use invitation links
//! stored hashed that expire after [`INVITATION_DAYS`], single-use password
//! reset links stored hashed that expire after [`RESET_LINK_HOURS`], an
//! address confirmed by a mailed link (valid [`VERIFY_LINK_HOURS`]) before
//! the first sign-in, a sign-up that answers the same for a known address
//! (whose owner gets a mail instead), mail through `platform::mail`. Throttles and CSRF are the pages' (they know the client).

use std::fmt;

use kernel::{Secret, Timestamp};
use platform::mail::{Mail, Mailer};

use crate::error::{CoursesError, CoursesResult};
use crate::issues::code;
use crate::model::{Access, Workspace};
use crate::plans::Plan;
use crate::{Courses, content};

/// A session unused this long ends.
pub const SESSION_IDLE_DAYS: i64 = 14;
/// A session ends this long after sign-in, however busy.
pub const SESSION_ABSOLUTE_DAYS: i64 = 30;
/// Invitation links work this long.
pub const INVITATION_DAYS: i64 = 7;
/// Password reset links work this long.
pub const RESET_LINK_HOURS: i64 = 1;
/// Address verification links work this long.
pub const VERIFY_LINK_HOURS: i64 = 24;
/// A sign-up never confirmed is removed this long after it was made (with
/// its workspace, unless that is in use).
pub const UNCONFIRMED_SIGNUP_DAYS: i64 = 7;
/// `last_seen_at` is rewritten at most once per this interval.
const SESSION_TOUCH_MS: i64 = 60_000;
/// Display names, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// Addresses, in characters.
const MAX_EMAIL_CHARS: usize = 254;

/// What a sign-in comes to.
#[derive(Debug)]
pub enum SignInOutcome {
    SignedIn(NewSession),
    /// The password is right but the address is not confirmed: a new link
    /// was mailed.
    Unverified,
    /// A wrong password, or an unknown address: the same answer.
    Refused,
}

/// A member's role in one workspace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Viewer,
    Author,
    Owner,
}

impl Role {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Author => "author",
            Self::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "owner" => Some(Self::Owner),
            "author" => Some(Self::Author),
            "viewer" => Some(Self::Viewer),
            _ => None,
        }
    }

    /// Whether the role may change the workspace's content.
    pub const fn can_write(self) -> bool {
        matches!(self, Self::Owner | Self::Author)
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A person's membership as the studio shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub person_id: String,
    pub workspace_id: String,
    pub email: String,
    pub display_name: String,
    pub role: Role,
    pub created_at: Timestamp,
}

/// A signed-in member in their workspace, and the access their role gives
/// to the use cases (read-only for viewers).
#[derive(Clone, Debug)]
pub struct SignedIn {
    pub member: Member,
    pub session_id: String,
    pub access: Access,
}

impl SignedIn {
    /// The access of a member who may write, or 403 for a viewer.
    pub fn writer(&self) -> CoursesResult<&Access> {
        if self.member.role.can_write() {
            Ok(&self.access)
        } else {
            Err(CoursesError::RoleRequired { role: self.member.role, needed: "an owner or an author may change it" })
        }
    }

    /// Continues for an owner, or 403.
    pub fn owner(&self) -> CoursesResult<&Access> {
        if self.member.role == Role::Owner {
            Ok(&self.access)
        } else {
            Err(CoursesError::RoleRequired { role: self.member.role, needed: "only an owner may do this" })
        }
    }
}

/// A new session: the cookie's secret, returned once.
#[derive(Debug)]
pub struct NewSession {
    pub secret: Secret<String>,
    pub workspace_id: String,
}

/// A session row as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub person_id: String,
    pub workspace_id: String,
    pub created_at: Timestamp,
    pub last_seen_at: Timestamp,
    pub expires_at: Timestamp,
}

/// A person: one per address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Person {
    pub id: String,
    pub email: String,
    pub display_name: String,
    pub password_hash: Option<String>,
    pub created_at: Timestamp,
}

/// An invitation to a workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub id: String,
    pub workspace_id: String,
    pub email: String,
    pub role: Role,
    pub invited_by: String,
    pub created_at: Timestamp,
    pub expires_at: Timestamp,
    pub accepted_at: Option<Timestamp>,
}

/// An invitation as the page that accepts it shows it.
#[derive(Clone, Debug)]
pub struct InvitationView {
    pub invitation: Invitation,
    pub workspace_name: String,
    /// Whether the address has an account already (then its password is
    /// asked, not a new one).
    pub has_account: bool,
}

/// A sign-up: the workspace's name and the owner's name, address and
/// password.
#[derive(Debug)]
pub struct SignUp<'a> {
    pub workspace_name: &'a str,
    pub display_name: &'a str,
    pub email: &'a str,
    pub password: &'a Secret<String>,
}

/// Who may create a workspace through the studio's sign-up page: the
/// operator's `SVC_SIGNUP`, read as the hub reads it (docs/decisions.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignupMode {
    /// Anyone.
    #[default]
    Open,
    /// Nobody through the page: people join workspaces by an owner's
    /// invitation only.
    Invite,
    /// Nobody through the page, as `Invite`.
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

impl std::str::FromStr for SignupMode {
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

/// How members are reached: the studio's public URL (mailed links start
/// with it) and the mailer, and who may sign up.
#[derive(Clone, Debug)]
pub struct MembersConfig {
    pub public_url: String,
    pub mailer: Option<Mailer>,
    pub signup: SignupMode,
}

impl Default for MembersConfig {
    fn default() -> Self {
        Self { public_url: "http://127.0.0.1:8082".to_owned(), mailer: None, signup: SignupMode::Open }
    }
}

pub(crate) fn hash_secret(secret: &str) -> String {
    platform::crypto::sha256_hex(secret.as_bytes())
}

/// An address as stored: trimmed, lowercased, one `@` with text either side.
pub fn parse_email(email: &str) -> CoursesResult<String> {
    let email = email.trim().to_lowercase();
    let valid = email.chars().count() <= MAX_EMAIL_CHARS
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !domain.contains('@')
        });
    if valid {
        Ok(email)
    } else {
        Err(CoursesError::field(&["email"], code::INVALID_VALUE, "enter an email address such as ada@example.com"))
    }
}

fn display_name(name: &str, email: &str) -> CoursesResult<String> {
    let name = name.trim();
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(CoursesError::field(&["display_name"], code::TOO_BIG, "a name is at most 100 characters"));
    }
    Ok(if name.is_empty() { email.split('@').next().unwrap_or(email).to_owned() } else { name.to_owned() })
}

fn check_password(password: &str, email: &str) -> CoursesResult<()> {
    let local = email.split('@').next().unwrap_or_default();
    platform::passwords::check_strength(password, &[local, email, "svc", "courses"])
        .map_err(|message| CoursesError::field(&["password"], code::TOO_SMALL, message))
}

impl Courses {
    /// The studio's public URL and mailer.
    pub const fn members_config(&self) -> &MembersConfig {
        &self.members
    }

    /// Sign-up, while it is open (`SignupMode::Open`): a new workspace on
    /// Sandbox with its first member, its owner, written in one transaction,
    /// and a mailed link that confirms the address before the first
    /// sign-in. The answer is the same `Ok` whether or not the address has
    /// an account, so the page cannot tell them apart: a known address gets
    /// a mail instead (a fresh confirmation link when it was never
    /// confirmed, else a note with the ways in), and nothing is written.
    /// The password is hashed either way, so both cost the same.
    pub async fn sign_up(&self, form: SignUp<'_>) -> CoursesResult<()> {
        if self.members.signup != SignupMode::Open {
            return Err(CoursesError::SignupClosed);
        }
        let email = parse_email(form.email)?;
        check_password(form.password.expose(), &email)?;
        let name = display_name(form.display_name, &email)?;
        let workspace_name = if form.workspace_name.trim().is_empty() {
            format!("{name}'s workspace")
        } else {
            form.workspace_name.to_owned()
        };
        let workspace_name = crate::access::workspace_name(&workspace_name).map_err(|_| {
            CoursesError::field(&["workspace_name"], code::TOO_BIG, "a workspace name is at most 100 characters")
        })?;
        let hash =
            self.passwords.hash(form.password.expose()).await.map_err(|e| CoursesError::Internal(e.to_string()))?;
        let now = self.clock.now();
        let workspace = Workspace {
            id: content::new_id("ws"),
            name: workspace_name,
            plan: Plan::Sandbox,
            payment_failed_at: None,
            created_at: now,
            updated_at: now,
        };
        let person = Person {
            id: content::new_id("per"),
            email,
            display_name: name,
            password_hash: Some(hash),
            created_at: now,
        };
        if self.store.insert_owner(&workspace, &person).await? {
            return self.mail_verification(&person).await;
        }
        // The address has an account.
        match self.store.person_by_email(&person.email).await? {
            Some(known) if !self.store.person_verified(&known.id).await? => self.mail_verification(&known).await,
            Some(known) => {
                let base = self.members.public_url.trim_end_matches('/');
                self.send_mail(Mail::with_link(
                    &known.email,
                    "You already have an svc courses account",
                    "Someone (hopefully you) tried to create a studio workspace with this address, which has an account already. Nothing was changed.",
                    "Sign in",
                    &format!("{base}/signin"),
                    &format!("Forgot the password? Choose a new one at {base}/reset. To join another workspace, ask its owner for an invitation."),
                ))
                .await;
                Ok(())
            }
            None => Err(CoursesError::Internal("an address with an account has no person".to_owned())),
        }
    }

    /// Mails `person` a fresh single-use link that confirms their address.
    async fn mail_verification(&self, person: &Person) -> CoursesResult<()> {
        let secret = platform::crypto::random_token(32);
        let now = self.clock.now();
        let expires_at = now.plus_millis(VERIFY_LINK_HOURS * 3_600_000);
        self.store
            .insert_verification(&content::new_id("ver"), &hash_secret(&secret), &person.id, now, expires_at)
            .await?;
        let link = format!("{}/verify?token={secret}", self.members.public_url.trim_end_matches('/'));
        self.send_mail(Mail::with_link(
            &person.email,
            "Confirm your address for svc courses",
            "Confirm this address to open your studio workspace.",
            "Confirm the address",
            &link,
            &format!("The link works once, for {VERIFY_LINK_HOURS} hours. If you did not sign up, ignore this mail."),
        ))
        .await;
        Ok(())
    }

    async fn send_mail(&self, mail: Mail) {
        if let Some(mailer) = &self.members.mailer
            && let Err(err) = mailer.send(&mail).await
        {
            tracing::warn!(error = %err, "a studio mail could not be sent");
        }
    }

    /// Uses a confirmation link: the person is verified and signed in to
    /// the workspace they joined first.
    pub async fn verify_address(&self, secret: &str) -> CoursesResult<NewSession> {
        let spent = || {
            CoursesError::field(
                &["token"],
                code::INVALID_VALUE,
                "this link was used already or has expired; sign in to get a new one",
            )
        };
        if secret.is_empty() || secret.len() > 128 {
            return Err(spent());
        }
        let person = self.store.use_verification(&hash_secret(secret), self.clock.now()).await?.ok_or_else(spent)?;
        let workspace_id = self.store.first_workspace_of(&person).await?.ok_or_else(spent)?;
        self.open_session(&person, &workspace_id).await
    }

    /// Removes sign-ups not confirmed within [`UNCONFIRMED_SIGNUP_DAYS`]:
    /// their workspaces (when nobody else is in them and they have no key
    /// and no course) and the people; the number of workspaces removed.
    /// Run by the service's periodic pruner.
    pub async fn prune_unconfirmed_signups(&self) -> CoursesResult<u64> {
        let before = self.clock.now().plus_days(-UNCONFIRMED_SIGNUP_DAYS);
        let (workspaces, people) = self.store.prune_unconfirmed(before).await?;
        if workspaces + people > 0 {
            tracing::info!(workspaces, people, "unconfirmed sign-ups removed");
        }
        Ok(workspaces)
    }

    /// The workspaces the signed-in person belongs to: `(id, name, role)`.
    pub async fn my_workspaces(&self, me: &SignedIn) -> CoursesResult<Vec<(String, String, String)>> {
        Ok(self.store.workspaces_of(&me.member.person_id).await?)
    }

    /// A new workspace (Sandbox) for the signed-in person, who owns it; the
    /// session moves to it. Any member may make one, as at sign-up.
    pub async fn create_own_workspace(&self, me: &SignedIn, name: &str) -> CoursesResult<Workspace> {
        let name = crate::access::workspace_name(name).map_err(|e| match e {
            CoursesError::Invalid { issues, .. } => issues.first().map_or_else(
                || CoursesError::field(&["workspace_name"], code::INVALID_VALUE, "enter a name"),
                |i| CoursesError::field(&["workspace_name"], i.code, i.message.replace("name ", "a workspace name ")),
            ),
            other => other,
        })?;
        let now = self.clock.now();
        let workspace = Workspace {
            id: content::new_id("ws"),
            name,
            plan: Plan::Sandbox,
            payment_failed_at: None,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_workspace_for(&workspace, &me.member.person_id).await?;
        self.switch_workspace(me, &workspace.id).await?;
        Ok(workspace)
    }

    /// Moves the session to another workspace the person belongs to (404
    /// for any other, as for every object of another workspace).
    pub async fn switch_workspace(&self, me: &SignedIn, workspace_id: &str) -> CoursesResult<()> {
        if self.store.set_session_workspace(&me.session_id, &me.member.person_id, workspace_id).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found("workspace"))
        }
    }

    /// Checks a password and opens a session in the person's first
    /// workspace. Unknown addresses cost the same hash as known ones; the
    /// answer is the same `None` for both.
    ///
    /// A person who has not confirmed their address is not signed in: a
    /// fresh link is mailed and the answer says so (only to someone who
    /// knows the password).
    pub async fn sign_in(&self, email: &str, password: &Secret<String>) -> CoursesResult<SignInOutcome> {
        let person = match parse_email(email) {
            Ok(email) => self.store.person_by_email(&email).await?,
            Err(_) => None,
        };
        let input: String = password.expose().chars().take(platform::passwords::MAX_PASSWORD_CHARS).collect();
        let stored = person.as_ref().and_then(|p| p.password_hash.as_deref());
        let matches = self.passwords.verify(&input, stored).await.map_err(|e| CoursesError::Internal(e.to_string()))?;
        let Some(person) = person.filter(|_| matches) else { return Ok(SignInOutcome::Refused) };
        if !self.store.person_verified(&person.id).await? {
            self.mail_verification(&person).await?;
            return Ok(SignInOutcome::Unverified);
        }
        let Some(workspace_id) = self.store.first_workspace_of(&person.id).await? else {
            return Ok(SignInOutcome::Refused);
        };
        Ok(SignInOutcome::SignedIn(self.open_session(&person.id, &workspace_id).await?))
    }

    async fn open_session(&self, person_id: &str, workspace_id: &str) -> CoursesResult<NewSession> {
        let now = self.clock.now();
        let secret = platform::crypto::random_token(32);
        let row = SessionRow {
            id: content::new_id("ses"),
            person_id: person_id.to_owned(),
            workspace_id: workspace_id.to_owned(),
            created_at: now,
            last_seen_at: now,
            expires_at: now.plus_days(SESSION_ABSOLUTE_DAYS),
        };
        self.store.insert_member_session(&row, &hash_secret(&secret)).await?;
        Ok(NewSession { secret: Secret::new(secret), workspace_id: workspace_id.to_owned() })
    }

    /// The member behind a session cookie, when the session is live and
    /// the membership still exists.
    pub async fn signed_in(&self, secret: &str) -> CoursesResult<Option<SignedIn>> {
        if secret.is_empty() || secret.len() > 128 {
            return Ok(None);
        }
        let Some((row, member)) = self.store.member_session(&hash_secret(secret)).await? else { return Ok(None) };
        let now = self.clock.now();
        if row.expires_at <= now || row.last_seen_at.plus_days(SESSION_IDLE_DAYS) <= now {
            self.store.delete_member_session(&row.id).await?;
            return Ok(None);
        }
        if now.as_millis() - row.last_seen_at.as_millis() >= SESSION_TOUCH_MS {
            self.store.touch_member_session(&row.id, now).await?;
        }
        let workspace = self.workspace(&row.workspace_id).await?;
        let access =
            Access { workspace, key_id: format!("member:{}", member.person_id), read_only: !member.role.can_write() };
        Ok(Some(SignedIn { member, session_id: row.id, access }))
    }

    /// Ends the session behind a cookie.
    pub async fn sign_out(&self, secret: &str) -> CoursesResult<()> {
        Ok(self.store.delete_member_session_by_hash(&hash_secret(secret)).await?)
    }

    /// The studio's course list: titles containing `query`, newest change
    /// first, `limit` from `offset`, with the number that match.
    pub async fn studio_courses(
        &self,
        me: &SignedIn,
        query: &str,
        limit: u32,
        offset: u64,
    ) -> CoursesResult<(Vec<crate::store::CourseLine>, u64)> {
        let query: String = query.trim().chars().take(200).collect();
        let offset = i64::try_from(offset).unwrap_or(i64::MAX);
        let (lines, total) = self.store.course_lines(&me.access.workspace.id, &query, i64::from(limit), offset).await?;
        Ok((lines, u64::try_from(total).unwrap_or(0)))
    }

    /// The members of the caller's workspace, owners first.
    pub async fn list_members(&self, me: &SignedIn) -> CoursesResult<Vec<Member>> {
        Ok(self.store.members(&me.access.workspace.id).await?)
    }

    /// The invitations of the caller's workspace not accepted yet.
    pub async fn pending_invitations(&self, me: &SignedIn) -> CoursesResult<Vec<Invitation>> {
        me.owner()?;
        let now = self.clock.now();
        Ok(self
            .store
            .invitations(&me.access.workspace.id)
            .await?
            .into_iter()
            .filter(|i| i.accepted_at.is_none() && i.expires_at > now)
            .collect())
    }

    /// Invites `email` to the caller's workspace with `role` (owners only)
    /// and mails the link. The link is returned too, so an operator without
    /// mail can pass it on.
    pub async fn invite(&self, me: &SignedIn, email: &str, role: Role) -> CoursesResult<(Invitation, String)> {
        me.owner()?;
        let email = parse_email(email)?;
        if self.store.members(&me.access.workspace.id).await?.iter().any(|m| m.email == email) {
            return Err(CoursesError::field(&["email"], code::INVALID_VALUE, "this person is a member already"));
        }
        let now = self.clock.now();
        let secret = platform::crypto::random_token(32);
        let invitation = Invitation {
            id: content::new_id("inv"),
            workspace_id: me.access.workspace.id.clone(),
            email,
            role,
            invited_by: me.member.person_id.clone(),
            created_at: now,
            expires_at: now.plus_days(INVITATION_DAYS),
            accepted_at: None,
        };
        self.store.insert_invitation(&invitation, &hash_secret(&secret)).await?;
        let link = format!("{}/invitations/{secret}", self.members.public_url.trim_end_matches('/'));
        if let Some(mailer) = &self.members.mailer {
            let mail = Mail::with_link(
                &invitation.email,
                &format!("{} invites you to {} on svc courses", me.member.display_name, me.access.workspace.name),
                &format!(
                    "{} ({}) invites you to author courses in the workspace {} as {} {}.",
                    me.member.display_name,
                    me.member.email,
                    me.access.workspace.name,
                    if role == Role::Author { "an" } else { "a" },
                    role
                ),
                "Accept the invitation",
                &link,
                &format!(
                    "The link works once, for {INVITATION_DAYS} days. If you did not expect it, ignore this mail."
                ),
            );
            if let Err(err) = mailer.send(&mail).await {
                tracing::warn!(error = %err, "an invitation could not be mailed");
            }
        }
        Ok((invitation, link))
    }

    /// The invitation behind a link, while it is open.
    pub async fn invitation(&self, secret: &str) -> CoursesResult<InvitationView> {
        let not_found = || CoursesError::not_found("invitation");
        if secret.is_empty() || secret.len() > 128 {
            return Err(not_found());
        }
        let invitation = self.store.invitation_by_hash(&hash_secret(secret)).await?.ok_or_else(not_found)?;
        if invitation.accepted_at.is_some() || invitation.expires_at <= self.clock.now() {
            return Err(not_found());
        }
        let workspace = self.workspace(&invitation.workspace_id).await?;
        let has_account = match self.store.person_by_email(&invitation.email).await? {
            Some(p) if p.password_hash.is_some() => self.store.person_verified(&p.id).await?,
            _ => false,
        };
        Ok(InvitationView { invitation, workspace_name: workspace.name, has_account })
    }

    /// Accepts an invitation: a new person chooses a name and a password; a
    /// person with an account proves it with their password. The
    /// membership is added, the link spent and a session opened in the
    /// invitation's workspace, in that order.
    pub async fn accept_invitation(
        &self,
        secret: &str,
        name: &str,
        password: &Secret<String>,
    ) -> CoursesResult<NewSession> {
        let view = self.invitation(secret).await?;
        let invitation = view.invitation;
        let now = self.clock.now();
        let known = match self.store.person_by_email(&invitation.email).await? {
            Some(person) if view.has_account => Some(person),
            // An address typed at a sign-up that was never confirmed: the
            // invitation's mail proves it, and the invited person sets the
            // password (the store replaces the unconfirmed one).
            Some(person) => Some(Person { password_hash: None, ..person }),
            None => None,
        };
        let person = match known {
            Some(person) if person.password_hash.is_some() => {
                let ok = self
                    .passwords
                    .verify(password.expose(), person.password_hash.as_deref())
                    .await
                    .map_err(|e| CoursesError::Internal(e.to_string()))?;
                if !ok {
                    return Err(CoursesError::field(&["password"], code::INVALID_VALUE, "the password is not right"));
                }
                person
            }
            other => {
                check_password(password.expose(), &invitation.email)?;
                let hash =
                    self.passwords.hash(password.expose()).await.map_err(|e| CoursesError::Internal(e.to_string()))?;
                Person {
                    id: other.as_ref().map_or_else(|| content::new_id("per"), |p| p.id.clone()),
                    display_name: display_name(name, &invitation.email)?,
                    email: invitation.email.clone(),
                    password_hash: Some(hash),
                    created_at: now,
                }
            }
        };
        if !self.store.accept_invitation(&invitation, &person, now).await? {
            return Err(CoursesError::not_found("invitation"));
        }
        self.open_session(&person.id, &invitation.workspace_id).await
    }

    /// Mails a single-use reset link when the address has an account with
    /// a password; the answer is the same `Ok` for every address, known,
    /// unknown or not an address at all, so the page cannot tell them apart.
    pub async fn request_password_reset(&self, email: &str) -> CoursesResult<()> {
        let Ok(email) = parse_email(email) else { return Ok(()) };
        let Some(person) = self.store.person_by_email(&email).await?.filter(|p| p.password_hash.is_some()) else {
            return Ok(());
        };
        let secret = platform::crypto::random_token(32);
        let now = self.clock.now();
        let expires_at = now.plus_millis(RESET_LINK_HOURS * 3_600_000);
        self.store
            .insert_password_reset(&content::new_id("rst"), &hash_secret(&secret), &person.id, now, expires_at)
            .await?;
        let link = format!("{}/reset/new?token={secret}", self.members.public_url.trim_end_matches('/'));
        if let Some(mailer) = &self.members.mailer {
            let mail = Mail::with_link(
                &person.email,
                "Reset your svc courses password",
                "Someone (hopefully you) asked to reset the password of this studio account.",
                "Choose a new password",
                &link,
                &format!(
                    "The link works once, for {RESET_LINK_HOURS} hour. If you did not ask, ignore this mail: \
                     your password stays as it is."
                ),
            );
            if let Err(err) = mailer.send(&mail).await {
                tracing::warn!(error = %err, "a reset link could not be mailed");
            }
        }
        Ok(())
    }

    /// The address a reset link is for, while the link works.
    pub async fn reset_link_email(&self, secret: &str) -> CoursesResult<Option<String>> {
        if secret.is_empty() || secret.len() > 128 {
            return Ok(None);
        }
        Ok(self.store.open_password_reset(&hash_secret(secret), self.clock.now()).await?.map(|p| p.email))
    }

    /// Uses a reset link: checks the new password (a refused one leaves the
    /// link usable), then sets it, spends the link and ends every session
    /// of the person in one transaction. Returns the address, for the
    /// sign-in page.
    pub async fn reset_password(&self, secret: &str, new: &Secret<String>) -> CoursesResult<String> {
        let spent = || {
            CoursesError::field(
                &["token"],
                code::INVALID_VALUE,
                "this link was used already or has expired; ask for a new one",
            )
        };
        if secret.is_empty() || secret.len() > 128 {
            return Err(spent());
        }
        let hash_of_link = hash_secret(secret);
        let person = self.store.open_password_reset(&hash_of_link, self.clock.now()).await?.ok_or_else(spent)?;
        check_password(new.expose(), &person.email)?;
        let hash = self.passwords.hash(new.expose()).await.map_err(|e| CoursesError::Internal(e.to_string()))?;
        if !self.store.use_password_reset(&hash_of_link, &person.id, &hash, self.clock.now()).await? {
            return Err(spent());
        }
        Ok(person.email)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signup_modes_read_as_the_hub_reads_them() {
        let read: Vec<Result<SignupMode, String>> =
            [" Open", "INVITE", "closed", "maybe"].iter().map(|s| s.parse::<SignupMode>()).collect();
        assert_eq!(
            read,
            [
                Ok(SignupMode::Open),
                Ok(SignupMode::Invite),
                Ok(SignupMode::Closed),
                Err("SVC_SIGNUP is open, invite or closed, not \"maybe\"".to_owned())
            ]
        );
        assert_eq!(MembersConfig::default().signup, SignupMode::Open);
        assert_eq!(SignupMode::Invite.as_str(), "invite");
    }
}
