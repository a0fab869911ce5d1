//! Users, plans and personal access tokens.

use kernel::{Secret, Timestamp};

use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult, TokenRejection};
use crate::model::{Principal, Source, TokenInfo, User};
use crate::names::Email;
use crate::plans::{Plan, fixed};
use crate::store::NewUser;
use crate::tokens::{hash_bearer, mint_personal_token};
use crate::{Hub, Role};

/// `last_used_at` is rewritten at most once per this interval: the first use
/// after a quiet minute is recorded before the response, while a busy client
/// does not turn every read into a write.
const LAST_USED_RESOLUTION_MS: i64 = 60_000;

impl Hub {
    /// Resolves the caller from an `Authorization` header value.
    pub async fn authenticate(&self, authorization: Option<&str>) -> HubResult<Principal> {
        let hash = hash_bearer(authorization).map_err(HubError::InvalidToken)?;
        let (principal, expires_at, last_used_at) =
            self.store.principal_by_token_hash(&hash).await?.ok_or(HubError::InvalidToken(TokenRejection::Unknown))?;
        self.accept_token(&principal, expires_at, last_used_at).await?;
        Ok(principal)
    }

    /// Refuses an expired token and records its use (see
    /// `LAST_USED_RESOLUTION_MS`) before the response is produced.
    pub(crate) async fn accept_token(
        &self,
        principal: &Principal,
        expires_at: Option<Timestamp>,
        last_used_at: Option<Timestamp>,
    ) -> HubResult<()> {
        let now = self.clock.now();
        if expires_at.is_some_and(|at| at <= now) {
            return Err(HubError::InvalidToken(TokenRejection::Expired));
        }
        let stale = last_used_at.is_none_or(|at| now.as_millis() - at.as_millis() >= LAST_USED_RESOLUTION_MS);
        if let (true, Some(token_id)) = (stale, principal.token_id.as_deref()) {
            self.store.touch_token(token_id, now).await?;
        }
        Ok(())
    }

    pub async fn create_user(&self, email: &str, plan: Plan, password: Option<&Secret<String>>) -> HubResult<User> {
        let email = Email::parse(email)?;
        let password_hash = match password {
            Some(p) => Some(self.hash_password(p.expose()).await?),
            None => None,
        };
        self.store
            .insert_user(NewUser {
                id: &uuid::Uuid::now_v7().to_string(),
                email: email.as_str(),
                password_hash: password_hash.as_deref(),
                plan,
                now: self.clock.now(),
            })
            .await
    }

    pub async fn user_by_email(&self, email: &str) -> HubResult<User> {
        let email = Email::parse(email)?;
        self.store.user_by_email(email.as_str()).await?.ok_or(HubError::not_found("user"))
    }

    /// Changes a user's plan. Nothing is deleted on a downgrade: stored roles
    /// and customisations apply again after an upgrade.
    pub async fn set_plan(&self, email: &str, plan: Plan) -> HubResult<User> {
        let user = self.user_by_email(email).await?;
        // Recorded when the account keeps a log before or after the change.
        let keeps = if user.plan.writes_audit() { user.plan } else { plan };
        let audit = (user.plan != plan)
            .then(|| {
                self.audit_row(
                    &user.id,
                    keeps,
                    &user.id,
                    Source::System,
                    AuditDraft::new(AuditAction::PlanChanged, "account", &user.id)
                        .meta("from", user.plan.as_str())
                        .meta("to", plan.as_str()),
                )
            })
            .flatten();
        self.store.set_plan(&user.id, plan, self.clock.now(), audit.as_ref()).await?;
        // An upgrade request from the dashboard is done now.
        self.store.complete_plan_requests(&user.id, self.clock.now()).await?;
        Ok(User { plan, ..user })
    }

    /// Makes `collaborator` a member of `owner`'s account with a default role
    /// (layer 1). Collaborator management proper arrives with its own feature;
    /// this is the storage the role gate reads.
    pub async fn add_collaborator(&self, owner_email: &str, collaborator_email: &str, role: Role) -> HubResult<()> {
        if role == Role::None {
            return Err(HubError::validation("role", "an account-wide role is editor or viewer"));
        }
        let owner = self.user_by_email(owner_email).await?;
        let member = self.user_by_email(collaborator_email).await?;
        self.store.add_collaborator(&owner.id, &member.id, role, self.clock.now()).await
    }

    /// Sets a per-project role override (layer 2) for a collaborator.
    pub async fn set_project_role(&self, slug: &str, collaborator_email: &str, role: Role) -> HubResult<()> {
        let member = self.user_by_email(collaborator_email).await?;
        let project = self.store.project_access(slug, &member.id).await?.ok_or(HubError::not_found("project"))?;
        self.store.set_project_role(&project.project.id, &member.id, role).await
    }

    /// Mints a personal access token; the plaintext is returned once and only
    /// its hash is stored.
    pub async fn create_token(
        &self,
        email: &str,
        name: &str,
        expires_in_days: Option<u32>,
        source: Source,
    ) -> HubResult<(TokenInfo, Secret<String>)> {
        let user = self.user_by_email(email).await?;
        let name = name.trim();
        if name.is_empty() || name.chars().count() > fixed::MAX_TOKEN_NAME_CHARS {
            return Err(HubError::validation("name", "token name must be 1 to 100 characters"));
        }
        if expires_in_days == Some(0) {
            return Err(HubError::validation("expires_in", "expiry must be at least one day"));
        }
        let now = self.clock.now();
        let minted = mint_personal_token();
        let info = TokenInfo {
            id: uuid::Uuid::now_v7().to_string(),
            user_id: user.id.clone(),
            name: name.to_owned(),
            display: minted.display,
            expires_at: expires_in_days.map(|days| now.plus_days(i64::from(days))),
            last_used_at: None,
            created_at: now,
        };
        let audit = self.audit_row(
            &user.id,
            user.plan,
            &user.id,
            source,
            AuditDraft::new(AuditAction::TokenCreated, "token", &info.id).meta("name", name),
        );
        self.store.insert_token(&info, &minted.hash, audit.as_ref()).await?;
        self.notify_owner(
            &user.id,
            &user.email,
            source,
            "A personal access token was created",
            &format!(
                "A personal access token named \"{name}\" was created for your account ({}). \
                 It acts as you on the API until it is revoked{}.",
                info.display,
                info.expires_at.map(|at| format!(" or expires on {}", at.to_rfc3339())).unwrap_or_default()
            ),
        );
        Ok((info, minted.plaintext))
    }

    pub async fn list_tokens(&self, email: &str) -> HubResult<Vec<TokenInfo>> {
        let user = self.user_by_email(email).await?;
        self.store.tokens_of_user(&user.id).await
    }

    /// Revokes (deletes) a token by id or by name.
    pub async fn revoke_token(&self, email: &str, id_or_name: &str, source: Source) -> HubResult<TokenInfo> {
        let user = self.user_by_email(email).await?;
        let tokens = self.store.tokens_of_user(&user.id).await?;
        let matching: Vec<&TokenInfo> = tokens.iter().filter(|t| t.id == id_or_name || t.name == id_or_name).collect();
        let token = match matching.as_slice() {
            [one] => (*one).clone(),
            [] => return Err(HubError::not_found("token")),
            _ => return Err(HubError::conflict("several tokens have that name; revoke by id")),
        };
        let audit = self.audit_row(
            &user.id,
            user.plan,
            &user.id,
            source,
            AuditDraft::new(AuditAction::TokenRevoked, "token", &token.id).meta("name", token.name.as_str()),
        );
        if self.store.delete_token(&user.id, &token.id, audit.as_ref()).await? {
            Ok(token)
        } else {
            Err(HubError::not_found("token"))
        }
    }

    /// The audit rows of an account, oldest first.
    pub async fn audit_log(&self, email: &str) -> HubResult<Vec<crate::AuditEvent>> {
        let user = self.user_by_email(email).await?;
        self.store.audit_events(&user.id).await
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }
}

impl Hub {
    /// An argon2id hash of an account or docs password (at least 8
    /// characters), computed on the blocking pool.
    pub(crate) async fn hash_password(&self, password: &str) -> HubResult<String> {
        if password.chars().count() < 8 {
            return Err(HubError::validation("password", "password must be at least 8 characters"));
        }
        self.passwords.hash(password).await.map_err(|e| HubError::Internal(e.to_string()))
    }

    /// Whether `password` matches `stored`; with no stored hash, a check
    /// against a dummy hash that takes the same time and fails.
    pub(crate) async fn verify_password(&self, password: &str, stored: Option<&str>) -> HubResult<bool> {
        self.passwords.verify(password, stored).await.map_err(|e| HubError::Internal(e.to_string()))
    }
}
