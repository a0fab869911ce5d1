//! Collaborators: invitations by mail, seats, the two role layers, removal
//! and leaving.
//!
//! An account owner invites an address with an account-wide role (layer 1);
//! the invitation is a signed, single-use, expiring link. Accepting it makes
//! the invitee a collaborator of every project of the account, as the role
//! gate (`roles.rs`) resolves it with the per-project overrides (layer 2).
//! Pending invitations hold a seat, so an account can never end up with
//! more collaborators than its plan has seats.

use kernel::{Secret, Timestamp};
use platform::mail::Mail;

use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, Source, User};
use crate::names::Email;
use crate::roles::Role;
use crate::sessions::{ClientInfo, NewSession, check_password, hash_secret, link_mail};
use crate::store::NewUser;
use crate::{Hub, Plan};

/// How long an invitation link stays valid.
pub const INVITATION_DAYS: i64 = 7;

/// Whether a collaborator has joined or is still invited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberStatus {
    Pending,
    Active,
}

impl MemberStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Active => "active",
        }
    }
}

/// A row of the team list: an active collaborator (its id is their user
/// id) or a pending invitation (its id is the invitation's).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collaborator {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub status: MemberStatus,
    pub created_at: Timestamp,
    /// When a pending invitation's link stops working.
    pub expires_at: Option<Timestamp>,
}

/// An account the caller collaborates on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub account_user_id: String,
    pub owner_email: String,
    pub role: Role,
    pub since: Timestamp,
}

/// What an invitation link shows before it is accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationView {
    pub id: String,
    pub account_user_id: String,
    pub owner_email: String,
    pub email: String,
    pub role: Role,
    pub expires_at: Timestamp,
    /// Whether the invited address has an account already (it signs in to
    /// accept; otherwise it signs up through the link).
    pub has_account: bool,
}

/// A per-project override as the owner sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectOverride {
    pub user_id: String,
    pub email: String,
    pub role: Role,
}

/// The team of an account: its collaborators and invitations, and its seats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Team {
    pub members: Vec<Collaborator>,
    pub seats: u32,
    pub plan: Plan,
}

impl Team {
    pub fn seats_used(&self) -> usize {
        self.members.len()
    }
}

fn invitation_link(public_url: &str, secret: &str) -> String {
    format!("{public_url}/app/invitations/{secret}")
}

impl Hub {
    /// The caller's own team: collaborators first, then pending invitations.
    pub async fn team(&self, principal: &Principal) -> HubResult<Team> {
        let owner = self.account(principal).await?;
        let members = self.store.team_members(&owner.id, self.clock.now()).await?;
        Ok(Team { members, seats: owner.plan.limits().collaborator_seats, plan: owner.plan })
    }

    /// Invites `email` to the caller's account with an account-wide role,
    /// and mails the link. A pending invitation to the same address is
    /// replaced (new link, new expiry) without taking another seat.
    pub async fn invite_collaborator(
        &self,
        principal: &Principal,
        email: &str,
        role: Role,
        source: Source,
    ) -> HubResult<Collaborator> {
        let owner = self.account(principal).await?;
        let email = Email::parse(email)?;
        if email.as_str() == owner.email {
            return Err(HubError::validation("email", "you own this account; invite someone else"));
        }
        let now = self.clock.now();
        let secret = platform::crypto::random_token(32);
        // A pending invitation to the same address keeps its id: the link
        // and expiry are new, the resource is the same (a DELETE of the id
        // an earlier answer gave still revokes it).
        let pending = self.store.team_members(&owner.id, now).await?;
        let id = pending
            .into_iter()
            .find(|m| m.status == MemberStatus::Pending && m.email == email.as_str())
            .map_or_else(|| uuid::Uuid::now_v7().to_string(), |m| m.id);
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CollaboratorInvited, "invitation", &id)
                .meta("email", email.as_str())
                .meta("role", role.as_str()),
        );
        let invitation = self
            .store
            .insert_invitation(crate::store::NewInvitation {
                id: &id,
                account_user_id: &owner.id,
                email: email.as_str(),
                role,
                token_hash: &hash_secret(&secret),
                invited_by: &principal.user_id,
                now,
                expires_at: now.plus_days(INVITATION_DAYS),
                seats: owner.plan.limits().collaborator_seats,
                audit: audit.as_ref(),
            })
            .await
            .map_err(|err| match err {
                HubError::SeatLimitReached { limit, .. } => HubError::SeatLimitReached { plan: owner.plan, limit },
                other => other,
            })?;
        let link = invitation_link(&self.accounts.public_url, &secret);
        let who = owner.display_name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| owner.email.clone());
        let mail = link_mail(
            email.as_str(),
            &format!("{who} invited you to collaborate"),
            &format!(
                "{who} invited you to their projects on this documentation hub as {}. \
                 The link works once and for {INVITATION_DAYS} days.",
                role_words(role)
            ),
            "Accept the invitation",
            &link,
            "If you did not expect this, ignore the mail: nothing happens until the link is used.",
        );
        let hub = self.clone();
        self.in_background(async move {
            hub.deliver(&mail).await;
        });
        Ok(invitation)
    }

    /// Sets a collaborator's account-wide role (layer 1), or a pending
    /// invitation's. The owner is told by mail (and chat, when set).
    pub async fn set_collaborator_role(
        &self,
        principal: &Principal,
        id: &str,
        role: Role,
        source: Source,
    ) -> HubResult<Collaborator> {
        let owner = self.account(principal).await?;
        let member = self.find_member(&owner.id, id).await?;
        if member.role == role {
            return Ok(member);
        }
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CollaboratorRoleChanged, "collaborator", &member.id)
                .meta("scope", "account")
                .meta("email", member.email.as_str())
                .meta("from", member.role.as_str())
                .meta("to", role.as_str()),
        );
        self.store.set_member_role(&owner.id, &member, role, audit.as_ref()).await?;
        self.notify_owner(
            &owner.id,
            &owner.email,
            source,
            "A collaborator's role changed",
            &format!(
                "The account-wide role of {} on your projects changed from {} to {}.",
                member.email, member.role, role
            ),
        );
        Ok(Collaborator { role, ..member })
    }

    /// Removes a collaborator (their access ends with this call: the gate
    /// reads the membership on every request, their overrides go and the
    /// upload tokens they minted on the account's projects stop working),
    /// or revokes a pending invitation.
    pub async fn remove_collaborator(&self, principal: &Principal, id: &str, source: Source) -> HubResult<()> {
        let owner = self.account(principal).await?;
        let member = self.find_member(&owner.id, id).await?;
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CollaboratorRemoved, "collaborator", &member.id)
                .meta("email", member.email.as_str())
                .meta("status", member.status.as_str()),
        );
        self.store.remove_member(&owner.id, &member, audit.as_ref()).await
    }

    /// The collaborator leaves the account of `account_user_id`.
    pub async fn leave_account(&self, principal: &Principal, account_user_id: &str, source: Source) -> HubResult<()> {
        let owner = self.store.account_by_id(account_user_id).await?.ok_or(HubError::not_found("membership"))?;
        let member = self
            .store
            .team_members(&owner.id, self.clock.now())
            .await?
            .into_iter()
            .find(|m| m.status == MemberStatus::Active && m.id == principal.user_id)
            .ok_or(HubError::not_found("membership"))?;
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CollaboratorLeft, "collaborator", &member.id)
                .meta("email", member.email.as_str()),
        );
        self.store.remove_member(&owner.id, &member, audit.as_ref()).await
    }

    /// The addresses of the given users (the audit viewer names its actors);
    /// unknown ids are left out.
    pub async fn user_emails(&self, ids: &[String]) -> HubResult<std::collections::HashMap<String, String>> {
        let mut unique: Vec<&String> = ids.iter().collect();
        unique.sort();
        unique.dedup();
        let mut emails = std::collections::HashMap::new();
        for id in unique.into_iter().take(100) {
            if let Some(account) = self.store.account_by_id(id).await? {
                emails.insert(id.clone(), account.email);
            }
        }
        Ok(emails)
    }

    /// The accounts the caller collaborates on.
    pub async fn memberships(&self, principal: &Principal) -> HubResult<Vec<Membership>> {
        self.store.memberships(&principal.user_id).await
    }

    /// Sets a per-project override (layer 2) for one of the owner's
    /// collaborators. Only the project's owner may.
    pub async fn set_project_override(
        &self,
        principal: &Principal,
        slug: &str,
        collaborator_id: &str,
        role: Option<Role>,
        source: Source,
    ) -> HubResult<()> {
        let found = self.project_access(principal, slug).await?;
        if found.project.owner_id != principal.user_id {
            // Editors see the project but do not manage its team.
            return Err(HubError::Forbidden { access: found.access, action: crate::Action::ManageCollaborators });
        }
        let owner = self.account(principal).await?;
        let member = self
            .store
            .team_members(&owner.id, self.clock.now())
            .await?
            .into_iter()
            .find(|m| m.status == MemberStatus::Active && m.id == collaborator_id)
            .ok_or(HubError::not_found("collaborator"))?;
        let before = self.store.project_override(&found.project.id, &member.id).await?;
        if before == role {
            return Ok(());
        }
        let describe = |r: Option<Role>| r.map_or_else(|| format!("default ({})", member.role), |r| r.to_string());
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CollaboratorRoleChanged, "collaborator", &member.id)
                .project(&found.project.id)
                .meta("scope", "project")
                .meta("project", found.project.slug.as_str())
                .meta("email", member.email.as_str())
                .meta("from", before.map_or("default", Role::as_str))
                .meta("to", role.map_or("default", Role::as_str)),
        );
        self.store.set_project_override(&found.project.id, &member.id, role, audit.as_ref()).await?;
        self.notify_owner(
            &owner.id,
            &owner.email,
            source,
            "A collaborator's role changed",
            &format!(
                "The role of {} on the project {} changed from {} to {}.",
                member.email,
                found.project.slug,
                describe(before),
                describe(role)
            ),
        );
        Ok(())
    }

    /// The overrides of one project (owner only).
    pub async fn project_overrides(&self, principal: &Principal, slug: &str) -> HubResult<Vec<ProjectOverride>> {
        let found = self.project_access(principal, slug).await?;
        if found.project.owner_id != principal.user_id {
            return Err(HubError::Forbidden { access: found.access, action: crate::Action::ManageCollaborators });
        }
        self.store.project_overrides(&found.project.id).await
    }

    /// What an invitation link shows; an unknown, used or expired link is
    /// one answer.
    pub async fn invitation(&self, secret: &str) -> HubResult<InvitationView> {
        if secret.is_empty() || secret.len() > 128 {
            return Err(gone());
        }
        self.store.invitation_by_hash(&hash_secret(secret), self.clock.now()).await?.ok_or_else(gone)
    }

    /// Accepts an invitation as the signed-in invitee (the address must be
    /// the invited one).
    pub async fn accept_invitation(
        &self,
        principal: &Principal,
        secret: &str,
        source: Source,
    ) -> HubResult<Membership> {
        let view = self.invitation(secret).await?;
        if !view.email.eq_ignore_ascii_case(&principal.email) {
            return Err(HubError::validation(
                "email",
                format!("this invitation is for {}; sign in with that address to accept it", view.email),
            ));
        }
        self.join(&view, &principal.user_id, source).await
    }

    /// Signs up through an invitation: the mailed link proves the address,
    /// so the account is verified at once, joins the team and is signed in.
    pub async fn sign_up_by_invitation(
        &self,
        secret: &str,
        password: &Secret<String>,
        client: ClientInfo,
    ) -> HubResult<(User, NewSession)> {
        let view = self.invitation(secret).await?;
        if view.has_account {
            return Err(HubError::validation("password", "this address has an account: sign in to accept"));
        }
        check_password(password.expose(), &view.email)?;
        let hash = self.hash_password(password.expose()).await?;
        let user = self
            .store
            .insert_user(NewUser {
                id: &uuid::Uuid::now_v7().to_string(),
                email: &view.email,
                password_hash: Some(&hash),
                plan: Plan::Free,
                now: self.clock.now(),
            })
            .await?;
        self.join(&view, &user.id, Source::Dashboard).await?;
        let session = self.open_session(&user.id, client).await?;
        Ok((user, session))
    }

    /// Declines an invitation: the link stops working and the seat frees.
    pub async fn decline_invitation(&self, secret: &str) -> HubResult<()> {
        let view = self.invitation(secret).await?;
        let owner = self.store.account_by_id(&view.account_user_id).await?.ok_or_else(gone)?;
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            &view.id,
            Source::Dashboard,
            AuditDraft::new(AuditAction::CollaboratorInvitationDeclined, "invitation", &view.id)
                .meta("email", view.email.as_str()),
        );
        self.store.delete_invitation(&view.id, audit.as_ref()).await
    }

    async fn join(&self, view: &InvitationView, user_id: &str, source: Source) -> HubResult<Membership> {
        let owner = self.store.account_by_id(&view.account_user_id).await?.ok_or_else(gone)?;
        let audit = self.audit_row(
            &owner.id,
            owner.plan,
            user_id,
            source,
            AuditDraft::new(AuditAction::CollaboratorJoined, "collaborator", user_id)
                .meta("email", view.email.as_str())
                .meta("role", view.role.as_str()),
        );
        let now = self.clock.now();
        self.store.accept_invitation(&view.id, user_id, now, audit.as_ref()).await?;
        Ok(Membership { account_user_id: owner.id, owner_email: owner.email, role: view.role, since: now })
    }

    async fn find_member(&self, account_user_id: &str, id: &str) -> HubResult<Collaborator> {
        self.store
            .team_members(account_user_id, self.clock.now())
            .await?
            .into_iter()
            .find(|m| m.id == id)
            .ok_or(HubError::not_found("collaborator"))
    }

    /// Tells the account's owner of a sensitive change, by mail and through
    /// the chat webhook when one is set; off the request path, with a
    /// 5-second budget for the chat message. Changes the system makes
    /// (first start) tell nobody.
    pub(crate) fn notify_owner(&self, account_user_id: &str, email: &str, source: Source, subject: &str, text: &str) {
        if source == Source::System {
            return;
        }
        let mail = Mail {
            to: email.to_owned(),
            subject: subject.to_owned(),
            text: format!(
                "{text}\n\nIf you did not expect this, review your team and tokens at {}/app.\n",
                self.accounts.public_url
            ),
            html: format!(
                "<!doctype html><html><body style=\"font-family:system-ui,sans-serif;line-height:1.5\"><p>{}</p>\
                 <p>If you did not expect this, review your team and tokens at <a href=\"{url}/app\">{url}/app</a>.</p></body></html>",
                crate::sessions::escape(text),
                url = crate::sessions::escape(&self.accounts.public_url)
            ),
        };
        let hub = self.clone();
        let (account, text) = (account_user_id.to_owned(), format!("{subject}: {text}"));
        self.in_background(async move {
            hub.deliver(&mail).await;
            hub.send_chat_message(&account, &text).await;
        });
    }
}

fn gone() -> HubError {
    HubError::validation("token", "this invitation was used, declined or has expired; ask for a new one")
}

fn role_words(role: Role) -> &'static str {
    match role {
        Role::Editor => "an editor",
        Role::Viewer => "a viewer",
        Role::None => "a collaborator who sees only the projects shared with them",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_point_at_the_dashboard() {
        assert_eq!(invitation_link("https://hub.example", "abc"), "https://hub.example/app/invitations/abc");
    }

    #[test]
    fn statuses_and_roles_have_words() {
        assert_eq!(MemberStatus::Pending.as_str(), "pending");
        assert!(role_words(Role::None).contains("shared"));
    }
}
