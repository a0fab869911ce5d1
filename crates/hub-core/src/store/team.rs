//! Collaborators, invitations and per-project overrides.

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::error::{HubError, HubResult};
use crate::model::AuditEvent;
use crate::plans::Plan;
use crate::roles::Role;
use crate::team::{Collaborator, InvitationView, MemberStatus, Membership, ProjectOverride};

/// A new invitation and the seat cap it must respect.
pub struct NewInvitation<'a> {
    pub id: &'a str,
    pub account_user_id: &'a str,
    pub email: &'a str,
    pub role: Role,
    pub token_hash: &'a str,
    pub invited_by: &'a str,
    pub now: Timestamp,
    pub expires_at: Timestamp,
    pub seats: u32,
    pub audit: Option<&'a AuditEvent>,
}

#[derive(sqlx::FromRow)]
struct MemberRow {
    id: String,
    email: String,
    role: String,
    pending: bool,
    created_at: i64,
    expires_at: Option<i64>,
}

impl From<MemberRow> for Collaborator {
    fn from(row: MemberRow) -> Self {
        Self {
            id: row.id,
            email: row.email,
            role: row.role.parse().unwrap_or(Role::Viewer),
            status: if row.pending { MemberStatus::Pending } else { MemberStatus::Active },
            created_at: Timestamp::from_millis(row.created_at),
            expires_at: row.expires_at.map(Timestamp::from_millis),
        }
    }
}

impl Store {
    /// Active collaborators (oldest first), then invitations whose links
    /// still work.
    pub async fn team_members(&self, account_user_id: &str, now: Timestamp) -> HubResult<Vec<Collaborator>> {
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MemberRow>(
                "SELECT u.id, u.email, c.default_role AS role, FALSE AS pending, c.created_at, NULL AS expires_at
                 FROM collaborators c JOIN users u ON u.id = c.user_id
                 WHERE c.account_user_id = $1
                 UNION ALL
                 SELECT i.id, i.email, i.role, TRUE AS pending, i.created_at, i.expires_at
                 FROM invitations i
                 WHERE i.account_user_id = $1 AND i.expires_at > $2
                 ORDER BY pending, created_at, id",
            )
            .bind(account_user_id)
            .bind(now.as_millis())
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows.into_iter().map(Collaborator::from).collect())
    }

    /// Stores an invitation unless the seats are full (pending invitations
    /// count; one to the same address is replaced and keeps its seat), or
    /// the address is a collaborator already.
    pub async fn insert_invitation(&self, new: NewInvitation<'_>) -> HubResult<Collaborator> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            lock_account!(&mut *tx, new.account_user_id);
            let (already,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM collaborators c JOIN users u ON u.id = c.user_id
                 WHERE c.account_user_id = $1 AND u.email = $2",
            )
            .bind(new.account_user_id)
            .bind(new.email)
            .fetch_one(&mut *tx)
            .await
            .map_err(store_error)?;
            if already > 0 {
                return Err(HubError::conflict(format!("{} is a collaborator already", new.email)));
            }
            let (used,): (i64,) = sqlx::query_as(
                "SELECT (SELECT COUNT(*) FROM collaborators WHERE account_user_id = $1)
                      + (SELECT COUNT(*) FROM invitations WHERE account_user_id = $1 AND expires_at > $2 AND email <> $3)",
            )
            .bind(new.account_user_id)
            .bind(new.now.as_millis())
            .bind(new.email)
            .fetch_one(&mut *tx)
            .await
            .map_err(store_error)?;
            if used >= i64::from(new.seats) {
                return Err(HubError::SeatLimitReached { plan: Plan::Free, limit: new.seats });
            }
            sqlx::query("DELETE FROM invitations WHERE account_user_id = $1 AND email = $2")
                .bind(new.account_user_id)
                .bind(new.email)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO invitations (id, account_user_id, email, role, token_hash, invited_by, created_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(new.id)
            .bind(new.account_user_id)
            .bind(new.email)
            .bind(new.role.as_str())
            .bind(new.token_hash)
            .bind(new.invited_by)
            .bind(new.now.as_millis())
            .bind(new.expires_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            if let Some(event) = new.audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(Collaborator {
                id: new.id.to_owned(),
                email: new.email.to_owned(),
                role: new.role,
                status: MemberStatus::Pending,
                created_at: new.now,
                expires_at: Some(new.expires_at),
            })
        })
    }

    /// Sets layer 1 of an active collaborator, or the role of a pending
    /// invitation.
    pub async fn set_member_role(
        &self,
        account_user_id: &str,
        member: &Collaborator,
        role: Role,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let sql = match member.status {
            MemberStatus::Active => {
                "UPDATE collaborators SET default_role = $3 WHERE account_user_id = $1 AND user_id = $2"
            }
            MemberStatus::Pending => "UPDATE invitations SET role = $3 WHERE account_user_id = $1 AND id = $2",
        };
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let updated = sqlx::query(sql)
                .bind(account_user_id)
                .bind(&member.id)
                .bind(role.as_str())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if updated == 0 {
                return Err(HubError::not_found("collaborator"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Ends a collaborator's membership (their overrides on the account's
    /// projects, and the upload tokens they minted there, go with it), or
    /// revokes a pending invitation.
    pub async fn remove_member(
        &self,
        account_user_id: &str,
        member: &Collaborator,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let removed = match member.status {
                MemberStatus::Pending => sqlx::query("DELETE FROM invitations WHERE account_user_id = $1 AND id = $2")
                    .bind(account_user_id)
                    .bind(&member.id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?
                    .rows_affected(),
                MemberStatus::Active => {
                    let removed = sqlx::query("DELETE FROM collaborators WHERE account_user_id = $1 AND user_id = $2")
                        .bind(account_user_id)
                        .bind(&member.id)
                        .execute(&mut *tx)
                        .await
                        .map_err(store_error)?
                        .rows_affected();
                    sqlx::query(
                        "DELETE FROM project_roles WHERE user_id = $2
                         AND project_id IN (SELECT id FROM projects WHERE owner_id = $1)",
                    )
                    .bind(account_user_id)
                    .bind(&member.id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                    sqlx::query(
                        "UPDATE projects SET upload_token_hash = NULL, upload_token_minted_by = NULL
                         WHERE owner_id = $1 AND upload_token_minted_by = $2",
                    )
                    .bind(account_user_id)
                    .bind(&member.id)
                    .execute(&mut *tx)
                    .await
                    .map_err(store_error)?;
                    removed
                }
            };
            if removed == 0 {
                return Err(HubError::not_found("collaborator"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// The accounts `user_id` collaborates on.
    pub async fn memberships(&self, user_id: &str) -> HubResult<Vec<Membership>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            account_user_id: String,
            owner_email: String,
            role: String,
            created_at: i64,
        }
        let rows = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, Row>(
                "SELECT c.account_user_id, o.email AS owner_email, c.default_role AS role, c.created_at
                 FROM collaborators c JOIN users o ON o.id = c.account_user_id
                 WHERE c.user_id = $1 ORDER BY o.email",
            )
            .bind(user_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows
            .into_iter()
            .map(|r| Membership {
                account_user_id: r.account_user_id,
                owner_email: r.owner_email,
                role: r.role.parse().unwrap_or(Role::Viewer),
                since: Timestamp::from_millis(r.created_at),
            })
            .collect())
    }

    pub async fn project_override(&self, project_id: &str, user_id: &str) -> HubResult<Option<Role>> {
        let row: Option<(String,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT role FROM project_roles WHERE project_id = $1 AND user_id = $2")
                .bind(project_id)
                .bind(user_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.and_then(|(role,)| role.parse().ok()))
    }

    /// Sets (or, with `None`, removes) a per-project override.
    pub async fn set_project_override(
        &self,
        project_id: &str,
        user_id: &str,
        role: Option<Role>,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            match role {
                Some(role) => sqlx::query(
                    "INSERT INTO project_roles (project_id, user_id, role) VALUES ($1, $2, $3)
                     ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role",
                )
                .bind(project_id)
                .bind(user_id)
                .bind(role.as_str()),
                None => sqlx::query("DELETE FROM project_roles WHERE project_id = $1 AND user_id = $2")
                    .bind(project_id)
                    .bind(user_id),
            }
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

    pub async fn project_overrides(&self, project_id: &str) -> HubResult<Vec<ProjectOverride>> {
        let rows: Vec<(String, String, String)> = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "SELECT r.user_id, u.email, r.role FROM project_roles r JOIN users u ON u.id = r.user_id
                 WHERE r.project_id = $1 ORDER BY u.email",
            )
            .bind(project_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(rows
            .into_iter()
            .filter_map(|(user_id, email, role)| Some(ProjectOverride { user_id, email, role: role.parse().ok()? }))
            .collect())
    }

    /// A live invitation by its link's hash.
    pub async fn invitation_by_hash(&self, token_hash: &str, now: Timestamp) -> HubResult<Option<InvitationView>> {
        #[derive(sqlx::FromRow)]
        struct Row {
            id: String,
            account_user_id: String,
            owner_email: String,
            email: String,
            role: String,
            expires_at: i64,
            has_account: bool,
        }
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, Row>(
                "SELECT i.id, i.account_user_id, o.email AS owner_email, i.email, i.role, i.expires_at,
                        EXISTS (SELECT 1 FROM users u WHERE u.email = i.email) AS has_account
                 FROM invitations i JOIN users o ON o.id = i.account_user_id
                 WHERE i.token_hash = $1 AND i.expires_at > $2",
            )
            .bind(token_hash)
            .bind(now.as_millis())
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|r| InvitationView {
            id: r.id,
            account_user_id: r.account_user_id,
            owner_email: r.owner_email,
            email: r.email,
            role: r.role.parse().unwrap_or(Role::Viewer),
            expires_at: Timestamp::from_millis(r.expires_at),
            has_account: r.has_account,
        }))
    }

    pub async fn delete_invitation(&self, id: &str, audit: Option<&AuditEvent>) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let deleted = sqlx::query("DELETE FROM invitations WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if deleted == 0 {
                return Err(HubError::not_found("invitation"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Turns an invitation into a membership, once: the invitation row is
    /// deleted in the same transaction, so a second use finds nothing.
    pub async fn accept_invitation(
        &self,
        invitation_id: &str,
        user_id: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        #[derive(sqlx::FromRow)]
        struct Row {
            account_user_id: String,
            role: String,
        }
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let row = sqlx::query_as::<_, Row>(
                "DELETE FROM invitations WHERE id = $1 AND expires_at > $2 RETURNING account_user_id, role",
            )
            .bind(invitation_id)
            .bind(now.as_millis())
            .fetch_optional(&mut *tx)
            .await
            .map_err(store_error)?
            .ok_or_else(|| HubError::validation("token", "this invitation was used, declined or has expired"))?;
            sqlx::query(
                "INSERT INTO collaborators (account_user_id, user_id, default_role, created_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (account_user_id, user_id) DO UPDATE SET default_role = excluded.default_role",
            )
            .bind(&row.account_user_id)
            .bind(user_id)
            .bind(&row.role)
            .bind(now.as_millis())
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
}
