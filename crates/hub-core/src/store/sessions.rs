//! The dashboard's account tables: sessions, mail links, verified addresses,
//! display names and plan requests.

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::{HubError, HubResult};
use crate::model::{AuditEvent, Principal};
use crate::plans::Plan;
use crate::sessions::{Account, MailPurpose, PlanRequest, SessionInfo};

#[derive(sqlx::FromRow)]
struct SessionRow {
    id: String,
    user_id: String,
    email: String,
    plan: String,
    created_at: i64,
    last_seen_at: i64,
    expires_at: i64,
    user_agent: String,
    ip: String,
}

impl SessionRow {
    fn into_parts(self) -> (Principal, SessionInfo) {
        let principal = Principal {
            user_id: self.user_id.clone(),
            email: self.email,
            plan: self.plan.parse().unwrap_or(Plan::Free),
            token_id: None,
        };
        let info = SessionInfo {
            id: self.id,
            user_id: self.user_id,
            created_at: Timestamp::from_millis(self.created_at),
            last_seen_at: Timestamp::from_millis(self.last_seen_at),
            expires_at: Timestamp::from_millis(self.expires_at),
            user_agent: self.user_agent,
            ip: self.ip,
        };
        (principal, info)
    }
}

#[derive(sqlx::FromRow)]
struct AccountRow {
    id: String,
    email: String,
    plan: String,
    password_hash: Option<String>,
    email_verified_at: Option<i64>,
    display_name: Option<String>,
    created_at: i64,
}

impl From<AccountRow> for Account {
    fn from(row: AccountRow) -> Self {
        Self {
            id: row.id,
            email: row.email,
            plan: row.plan.parse().unwrap_or(Plan::Free),
            password_hash: row.password_hash,
            email_verified_at: row.email_verified_at.map(Timestamp::from_millis),
            display_name: row.display_name,
            created_at: Timestamp::from_millis(row.created_at),
        }
    }
}

macro_rules! session_select {
    () => {
        "SELECT s.id, s.user_id, u.email, u.plan, s.created_at, s.last_seen_at, s.expires_at,
         s.user_agent, s.ip FROM sessions s JOIN users u ON u.id = s.user_id"
    };
}

macro_rules! account_select {
    () => {
        "SELECT id, email, plan, password_hash, email_verified_at, display_name, created_at FROM users"
    };
}

impl Store {
    pub async fn account_by_email(&self, email: &str) -> HubResult<Option<Account>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, AccountRow>(concat!(account_select!(), " WHERE email = $1"))
                .bind(email)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(Account::from))
    }

    pub async fn account_by_id(&self, user_id: &str) -> HubResult<Option<Account>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, AccountRow>(concat!(account_select!(), " WHERE id = $1"))
                .bind(user_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(Account::from))
    }

    /// A new account whose address is not verified yet.
    pub async fn insert_unverified_user(
        &self,
        id: &str,
        email: &str,
        password_hash: &str,
        plan: Plan,
        now: Timestamp,
    ) -> HubResult<()> {
        let result = with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO users (id, email, password_hash, plan, created_at, email_verified_at)
                 VALUES ($1, $2, $3, $4, $5, NULL)",
            )
            .bind(id)
            .bind(email)
            .bind(password_hash)
            .bind(plan.as_str())
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map(|_| ())
            .map_err(store_error)
        });
        match result {
            Ok(_) => Ok(()),
            Err(kernel::StoreError::Conflict(_)) => Err(HubError::conflict("an account with this address exists")),
            Err(err) => Err(err.into()),
        }
    }

    /// Stores a mail link's hash. Earlier unused links of the same purpose
    /// stop working: only the newest mail counts.
    pub async fn insert_mail_token(
        &self,
        user_id: &str,
        purpose: MailPurpose,
        token_hash: &str,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("DELETE FROM mail_tokens WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL")
                .bind(user_id)
                .bind(purpose.as_str())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO mail_tokens (token_hash, user_id, purpose, created_at, expires_at, used_at)
                 VALUES ($1, $2, $3, $4, $5, NULL)",
            )
            .bind(token_hash)
            .bind(user_id)
            .bind(purpose.as_str())
            .bind(now.as_millis())
            .bind(expires_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })?;
        Ok(())
    }

    /// Marks a mail link used, once: the user it belongs to when it was
    /// unused, of this purpose and not expired. The update is the check, so
    /// two concurrent uses cannot both pass.
    pub async fn consume_mail_token(
        &self,
        token_hash: &str,
        purpose: MailPurpose,
        now: Timestamp,
    ) -> HubResult<Option<String>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String,)>(
                "UPDATE mail_tokens SET used_at = $3
                 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3
                 RETURNING user_id",
            )
            .bind(token_hash)
            .bind(purpose.as_str())
            .bind(now.as_millis())
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|(user_id,)| user_id))
    }

    /// Whether an unused, unexpired link of this purpose exists (the page
    /// behind a reset link checks before showing its form).
    pub async fn mail_token_open(&self, token_hash: &str, purpose: MailPurpose, now: Timestamp) -> HubResult<bool> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String,)>(
                "SELECT user_id FROM mail_tokens
                 WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > $3",
            )
            .bind(token_hash)
            .bind(purpose.as_str())
            .bind(now.as_millis())
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.is_some())
    }

    /// The user a mail link belongs to, used or not.
    pub async fn mail_token_owner(&self, token_hash: &str) -> HubResult<Option<String>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String,)>("SELECT user_id FROM mail_tokens WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(|(user_id,)| user_id))
    }

    pub async fn mark_email_verified(&self, user_id: &str, now: Timestamp) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE users SET email_verified_at = COALESCE(email_verified_at, $2) WHERE id = $1")
                .bind(user_id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })?;
        Ok(())
    }

    /// Replaces the password, verifies the address (a reset link proves it),
    /// ends every session but `keep` and voids open reset links.
    pub async fn replace_password(
        &self,
        user_id: &str,
        change: &crate::sessions::PasswordChange<'_>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let (keep, new_secret_hash) = change.rotate.unwrap_or(("", ""));
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "UPDATE users SET password_hash = $2, email_verified_at = COALESCE(email_verified_at, $3) WHERE id = $1",
            )
            .bind(user_id)
            .bind(change.hash)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id <> $2")
                .bind(user_id)
                .bind(keep)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            // The kept session answers to a new secret only.
            sqlx::query("UPDATE sessions SET token_hash = $3 WHERE user_id = $1 AND id = $2")
                .bind(user_id)
                .bind(keep)
                .bind(new_secret_hash)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            if change.revoke_tokens {
                sqlx::query("DELETE FROM access_tokens WHERE user_id = $1")
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
            }
            sqlx::query("DELETE FROM mail_tokens WHERE user_id = $1 AND purpose = 'reset' AND used_at IS NULL")
                .bind(user_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)
        })?;
        Ok(())
    }

    pub async fn set_display_name(
        &self,
        user_id: &str,
        name: Option<&str>,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("UPDATE users SET display_name = $2 WHERE id = $1")
                .bind(user_id)
                .bind(name)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn insert_session(
        &self,
        session: &SessionInfo,
        token_hash: &str,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at, user_agent, ip)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&session.id)
            .bind(&session.user_id)
            .bind(token_hash)
            .bind(session.created_at.as_millis())
            .bind(session.last_seen_at.as_millis())
            .bind(session.expires_at.as_millis())
            .bind(&session.user_agent)
            .bind(&session.ip)
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn session_by_hash(&self, token_hash: &str) -> HubResult<Option<(Principal, SessionInfo)>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, SessionRow>(concat!(session_select!(), " WHERE s.token_hash = $1"))
                .bind(token_hash)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.map(SessionRow::into_parts))
    }

    pub async fn sessions_of_user(&self, user_id: &str, now: Timestamp) -> HubResult<Vec<SessionInfo>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, SessionRow>(concat!(
                session_select!(),
                " WHERE s.user_id = $1 AND s.expires_at > $2 ORDER BY s.last_seen_at DESC"
            ))
            .bind(user_id)
            .bind(now.as_millis())
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(|row| row.into_parts().1).collect())
    }

    pub async fn touch_session(&self, id: &str, now: Timestamp) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE sessions SET last_seen_at = $2 WHERE id = $1")
                .bind(id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })?;
        Ok(())
    }

    /// Deletes one session of a user; false when it was not theirs or gone.
    pub async fn delete_session(&self, user_id: &str, id: &str) -> HubResult<bool> {
        let affected = with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND id = $2")
                .bind(user_id)
                .bind(id)
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })?;
        Ok(affected > 0)
    }

    pub async fn delete_session_by_hash(&self, token_hash: &str) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
                .bind(token_hash)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })?;
        Ok(())
    }

    /// Ends every session of a user; returns how many there were.
    pub async fn delete_sessions_of_user(&self, user_id: &str, audit: Option<&AuditEvent>) -> HubResult<u64> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let n = sqlx::query("DELETE FROM sessions WHERE user_id = $1")
                .bind(user_id)
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok::<u64, kernel::StoreError>(n)
        })
        .map_err(HubError::from)
    }

    /// Removes sessions and mail links past their expiry.
    pub async fn prune_sessions(&self, now: Timestamp, idle_before: Timestamp) -> HubResult<u64> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let sessions = sqlx::query("DELETE FROM sessions WHERE expires_at <= $1 OR last_seen_at <= $2")
                .bind(now.as_millis())
                .bind(idle_before.as_millis())
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)?;
            let links = sqlx::query("DELETE FROM mail_tokens WHERE expires_at <= $1")
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok::<u64, kernel::StoreError>(sessions + links)
        })
        .map_err(HubError::from)
    }

    pub async fn insert_plan_request(&self, request: &PlanRequest, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            // One open request per account: a new one replaces the last.
            sqlx::query("DELETE FROM plan_requests WHERE user_id = $1 AND completed_at IS NULL")
                .bind(&request.user_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO plan_requests (id, user_id, plan, created_at, completed_at) VALUES ($1, $2, $3, $4, NULL)",
            )
            .bind(&request.id)
            .bind(&request.user_id)
            .bind(request.plan.as_str())
            .bind(request.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)
        })?;
        Ok(())
    }

    pub async fn open_plan_request(&self, user_id: &str) -> HubResult<Option<PlanRequest>> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String, String, String, i64)>(
                "SELECT id, user_id, plan, created_at FROM plan_requests
                 WHERE user_id = $1 AND completed_at IS NULL ORDER BY created_at DESC LIMIT 1",
            )
            .bind(user_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|(id, user_id, plan, created_at)| PlanRequest {
            id,
            user_id,
            plan: plan.parse().unwrap_or(Plan::Free),
            created_at: Timestamp::from_millis(created_at),
        }))
    }

    /// Closes the open requests of a user (the operator changed the plan).
    pub async fn complete_plan_requests(&self, user_id: &str, now: Timestamp) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE plan_requests SET completed_at = $2 WHERE user_id = $1 AND completed_at IS NULL")
                .bind(user_id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })?;
        Ok(())
    }

    /// How many projects a user owns (the plan's project cap counts these).
    pub async fn owned_project_count(&self, user_id: &str) -> HubResult<u64> {
        let (n,) = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (i64,)>("SELECT COUNT(*) FROM projects WHERE owner_id = $1")
                .bind(user_id)
                .fetch_one(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Collaborators on a user's account (seats in use).
    pub async fn collaborator_count(&self, user_id: &str) -> HubResult<u64> {
        let (n,) = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (i64,)>("SELECT COUNT(*) FROM collaborators WHERE account_user_id = $1")
                .bind(user_id)
                .fetch_one(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(u64::try_from(n).unwrap_or(0))
    }
}
