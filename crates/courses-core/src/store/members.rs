//! The SQL of members: people, memberships, sessions, invitations and
//! password reset links.

use kernel::{StoreError, Timestamp};
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::members::{Invitation, Member, Person, Role, SessionRow};
use crate::model::Workspace;

#[derive(sqlx::FromRow)]
struct PersonRow {
    id: String,
    email: String,
    display_name: String,
    password_hash: Option<String>,
    created_at: i64,
}

impl From<PersonRow> for Person {
    fn from(r: PersonRow) -> Self {
        Self {
            id: r.id,
            email: r.email,
            display_name: r.display_name,
            password_hash: r.password_hash,
            created_at: Timestamp::from_millis(r.created_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct MemberRow {
    person_id: String,
    workspace_id: String,
    email: String,
    display_name: String,
    role: String,
    created_at: i64,
}

impl From<MemberRow> for Member {
    fn from(r: MemberRow) -> Self {
        Self {
            person_id: r.person_id,
            workspace_id: r.workspace_id,
            email: r.email,
            display_name: r.display_name,
            role: Role::parse(&r.role).unwrap_or(Role::Viewer),
            created_at: Timestamp::from_millis(r.created_at),
        }
    }
}

#[derive(sqlx::FromRow)]
struct SessionMemberRow {
    id: String,
    person_id: String,
    workspace_id: String,
    created_at: i64,
    last_seen_at: i64,
    expires_at: i64,
    email: String,
    display_name: String,
    role: String,
    member_since: i64,
}

#[derive(sqlx::FromRow)]
struct InvitationRow {
    id: String,
    workspace_id: String,
    email: String,
    role: String,
    invited_by: String,
    created_at: i64,
    expires_at: i64,
    accepted_at: Option<i64>,
}

impl From<InvitationRow> for Invitation {
    fn from(r: InvitationRow) -> Self {
        Self {
            id: r.id,
            workspace_id: r.workspace_id,
            email: r.email,
            role: Role::parse(&r.role).unwrap_or(Role::Viewer),
            invited_by: r.invited_by,
            created_at: Timestamp::from_millis(r.created_at),
            expires_at: Timestamp::from_millis(r.expires_at),
            accepted_at: r.accepted_at.map(Timestamp::from_millis),
        }
    }
}

impl Store {
    /// A new workspace with `person` as its owner, in one transaction;
    /// false (and nothing written) when the address has an account.
    pub async fn insert_owner(&self, ws: &Workspace, person: &Person) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let added = sqlx::query(
                "INSERT INTO people (id, email, display_name, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (email) DO NOTHING",
            )
            .bind(&person.id)
            .bind(&person.email)
            .bind(&person.display_name)
            .bind(&person.password_hash)
            .bind(person.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            if added == 0 {
                tx.rollback().await.map_err(store_error)?;
                return Ok(false);
            }
            sqlx::query(
                "INSERT INTO workspaces (id, name, plan, payment_failed_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&ws.id)
            .bind(&ws.name)
            .bind(ws.plan.as_str())
            .bind(ws.payment_failed_at.map(Timestamp::as_millis))
            .bind(ws.created_at.as_millis())
            .bind(ws.updated_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO memberships (workspace_id, person_id, role, created_at) VALUES ($1, $2, 'owner', $3)",
            )
            .bind(&ws.id)
            .bind(&person.id)
            .bind(ws.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }

    pub async fn person_by_email(&self, email: &str) -> Result<Option<Person>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, PersonRow>(
                "SELECT id, email, display_name, password_hash, created_at FROM people WHERE email = $1",
            )
            .bind(email)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Person::from))
            .map_err(store_error)
        })
    }

    /// The workspace a person joined first.
    pub async fn first_workspace_of(&self, person_id: &str) -> Result<Option<String>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_scalar::<_, String>(
                "SELECT workspace_id FROM memberships WHERE person_id = $1 ORDER BY created_at, workspace_id LIMIT 1",
            )
            .bind(person_id)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })
    }

    pub async fn insert_member_session(&self, row: &SessionRow, secret_hash: &str) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO member_sessions (id, secret_hash, person_id, workspace_id, created_at, last_seen_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(&row.id)
            .bind(secret_hash)
            .bind(&row.person_id)
            .bind(&row.workspace_id)
            .bind(row.created_at.as_millis())
            .bind(row.last_seen_at.as_millis())
            .bind(row.expires_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// The session with this secret hash and the membership it acts in
    /// (none when the membership was removed).
    pub async fn member_session(&self, secret_hash: &str) -> Result<Option<(SessionRow, Member)>, StoreError> {
        let row = with_db!(&self.db, |pool| {
            sqlx::query_as::<_, SessionMemberRow>(
                "SELECT s.id, s.person_id, s.workspace_id, s.created_at, s.last_seen_at, s.expires_at,
                        p.email, p.display_name, m.role, m.created_at AS member_since
                 FROM member_sessions s
                 JOIN people p ON p.id = s.person_id
                 JOIN memberships m ON m.person_id = s.person_id AND m.workspace_id = s.workspace_id
                 WHERE s.secret_hash = $1",
            )
            .bind(secret_hash)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|r| {
            let member = Member {
                person_id: r.person_id.clone(),
                workspace_id: r.workspace_id.clone(),
                email: r.email,
                display_name: r.display_name,
                role: Role::parse(&r.role).unwrap_or(Role::Viewer),
                created_at: Timestamp::from_millis(r.member_since),
            };
            let session = SessionRow {
                id: r.id,
                person_id: r.person_id,
                workspace_id: r.workspace_id,
                created_at: Timestamp::from_millis(r.created_at),
                last_seen_at: Timestamp::from_millis(r.last_seen_at),
                expires_at: Timestamp::from_millis(r.expires_at),
            };
            (session, member)
        }))
    }

    pub async fn touch_member_session(&self, id: &str, now: Timestamp) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("UPDATE member_sessions SET last_seen_at = $2 WHERE id = $1")
                .bind(id)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })
    }

    pub async fn delete_member_session(&self, id: &str) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM member_sessions WHERE id = $1")
                .bind(id)
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })
    }

    pub async fn delete_member_session_by_hash(&self, secret_hash: &str) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM member_sessions WHERE secret_hash = $1")
                .bind(secret_hash)
                .execute(pool)
                .await
                .map(drop)
                .map_err(store_error)
        })
    }

    /// The members of a workspace: owners, then authors, then viewers, each
    /// by when they joined.
    pub async fn members(&self, workspace_id: &str) -> Result<Vec<Member>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, MemberRow>(
                "SELECT m.person_id, m.workspace_id, p.email, p.display_name, m.role, m.created_at FROM memberships m JOIN people p ON p.id = m.person_id
                 WHERE m.workspace_id = $1
                 ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'author' THEN 1 ELSE 2 END, m.created_at, p.email",
            )
            .bind(workspace_id)
            .fetch_all(pool)
            .await
            .map(|rows| rows.into_iter().map(Member::from).collect())
            .map_err(store_error)
        })
    }

    pub async fn insert_invitation(&self, inv: &Invitation, secret_hash: &str) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO invitations (id, workspace_id, email, role, secret_hash, invited_by, created_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(&inv.id)
            .bind(&inv.workspace_id)
            .bind(&inv.email)
            .bind(inv.role.as_str())
            .bind(secret_hash)
            .bind(&inv.invited_by)
            .bind(inv.created_at.as_millis())
            .bind(inv.expires_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    pub async fn invitations(&self, workspace_id: &str) -> Result<Vec<Invitation>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, InvitationRow>(
                "SELECT id, workspace_id, email, role, invited_by, created_at, expires_at, accepted_at
                 FROM invitations WHERE workspace_id = $1 ORDER BY created_at, id",
            )
            .bind(workspace_id)
            .fetch_all(pool)
            .await
            .map(|rows| rows.into_iter().map(Invitation::from).collect())
            .map_err(store_error)
        })
    }

    pub async fn invitation_by_hash(&self, secret_hash: &str) -> Result<Option<Invitation>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, InvitationRow>(
                "SELECT id, workspace_id, email, role, invited_by, created_at, expires_at, accepted_at
                 FROM invitations WHERE secret_hash = $1",
            )
            .bind(secret_hash)
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Invitation::from))
            .map_err(store_error)
        })
    }

    /// Spends the invitation and makes `person` (added when new) a member
    /// with its role, in one transaction; false when the invitation was
    /// spent meanwhile.
    pub async fn accept_invitation(
        &self,
        inv: &Invitation,
        person: &Person,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let spent = sqlx::query("UPDATE invitations SET accepted_at = $2 WHERE id = $1 AND accepted_at IS NULL")
                .bind(&inv.id)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if spent == 0 {
                tx.rollback().await.map_err(store_error)?;
                return Ok(false);
            }
            sqlx::query(
                // The invitation's mail proves the address. A person who never
                // confirmed theirs (someone may have typed it at sign-up) does
                // not keep that password: the invited one sets it.
                "INSERT INTO people (id, email, display_name, password_hash, created_at, verified_at) VALUES ($1, $2, $3, $4, $5, $5)
                 ON CONFLICT (email) DO UPDATE SET
                   password_hash = CASE WHEN people.verified_at IS NULL THEN excluded.password_hash
                                        ELSE COALESCE(people.password_hash, excluded.password_hash) END,
                   verified_at = COALESCE(people.verified_at, excluded.verified_at)",
            )
            .bind(&person.id)
            .bind(&person.email)
            .bind(&person.display_name)
            .bind(&person.password_hash)
            .bind(person.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO memberships (workspace_id, person_id, role, created_at)
                 SELECT $1, id, $3, $4 FROM people WHERE email = $2
                 ON CONFLICT (workspace_id, person_id) DO NOTHING",
            )
            .bind(&inv.workspace_id)
            .bind(&person.email)
            .bind(inv.role.as_str())
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }
}

impl Store {
    pub async fn insert_password_reset(
        &self,
        id: &str,
        secret_hash: &str,
        person_id: &str,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO password_resets (id, secret_hash, person_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(id)
            .bind(secret_hash)
            .bind(person_id)
            .bind(now.as_millis())
            .bind(expires_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// The person behind an unspent reset link that has not expired at `now`.
    pub async fn open_password_reset(&self, secret_hash: &str, now: Timestamp) -> Result<Option<Person>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, PersonRow>(
                "SELECT p.id, p.email, p.display_name, p.password_hash, p.created_at
                 FROM password_resets r JOIN people p ON p.id = r.person_id
                 WHERE r.secret_hash = $1 AND r.used_at IS NULL AND r.expires_at > $2",
            )
            .bind(secret_hash)
            .bind(now.as_millis())
            .fetch_optional(pool)
            .await
            .map(|r| r.map(Person::from))
            .map_err(store_error)
        })
    }

    /// Spends the reset link, sets the person's new password hash, spends
    /// their other open links and ends every session they have, in one
    /// transaction; false (nothing written) when the link was spent or had
    /// expired meanwhile.
    pub async fn use_password_reset(
        &self,
        secret_hash: &str,
        person_id: &str,
        password_hash: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let spent = sqlx::query(
                "UPDATE password_resets SET used_at = $3
                 WHERE secret_hash = $1 AND person_id = $2 AND used_at IS NULL AND expires_at > $3",
            )
            .bind(secret_hash)
            .bind(person_id)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            if spent == 0 {
                tx.rollback().await.map_err(store_error)?;
                return Ok(false);
            }
            sqlx::query("UPDATE password_resets SET used_at = $2 WHERE person_id = $1 AND used_at IS NULL")
                .bind(person_id)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            // The reset's mail proves the address too.
            sqlx::query("UPDATE people SET password_hash = $2, verified_at = COALESCE(verified_at, $3) WHERE id = $1")
                .bind(person_id)
                .bind(password_hash)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("DELETE FROM member_sessions WHERE person_id = $1")
                .bind(person_id)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(true)
        })
    }
}

impl Store {
    /// Whether the person confirmed their address.
    pub async fn person_verified(&self, person_id: &str) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_scalar::<_, Option<i64>>("SELECT verified_at FROM people WHERE id = $1")
                .bind(person_id)
                .fetch_optional(pool)
                .await
                .map(|v| v.flatten().is_some())
                .map_err(store_error)
        })
    }

    pub async fn insert_verification(
        &self,
        id: &str,
        secret_hash: &str,
        person_id: &str,
        now: Timestamp,
        expires_at: Timestamp,
    ) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO address_verifications (id, secret_hash, person_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(id)
            .bind(secret_hash)
            .bind(person_id)
            .bind(now.as_millis())
            .bind(expires_at.as_millis())
            .execute(pool)
            .await
            .map(drop)
            .map_err(store_error)
        })
    }

    /// Spends an open verification link, its person's other links, and
    /// marks the person verified, in one transaction; the person's id, or
    /// none when the link was spent, expired or unknown.
    pub async fn use_verification(&self, secret_hash: &str, now: Timestamp) -> Result<Option<String>, StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let person = sqlx::query_scalar::<_, String>(
                "UPDATE address_verifications SET used_at = $2
                 WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING person_id",
            )
            .bind(secret_hash)
            .bind(now.as_millis())
            .fetch_optional(&mut *tx)
            .await
            .map_err(store_error)?;
            let Some(person) = person else {
                tx.rollback().await.map_err(store_error)?;
                return Ok(None);
            };
            sqlx::query("UPDATE address_verifications SET used_at = $2 WHERE person_id = $1 AND used_at IS NULL")
                .bind(&person)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            sqlx::query("UPDATE people SET verified_at = COALESCE(verified_at, $2) WHERE id = $1")
                .bind(&person)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            tx.commit().await.map_err(store_error)?;
            Ok(Some(person))
        })
    }

    /// Removes sign-ups never confirmed that were made before `before`:
    /// the workspace each made, when its unconfirmed owner is its only
    /// member and it has no API key and no course (an operator may have
    /// put it to use), then the people left without a membership. One
    /// transaction; the number of workspaces and people removed.
    pub async fn prune_unconfirmed(&self, before: Timestamp) -> Result<(u64, u64), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let workspaces = sqlx::query(
                "DELETE FROM workspaces WHERE id IN (
                   SELECT m.workspace_id FROM memberships m JOIN people p ON p.id = m.person_id
                   WHERE p.verified_at IS NULL AND p.created_at < $1
                     AND NOT EXISTS (SELECT 1 FROM memberships o WHERE o.workspace_id = m.workspace_id AND o.person_id <> m.person_id)
                     AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.workspace_id = m.workspace_id)
                     AND NOT EXISTS (SELECT 1 FROM courses c WHERE c.workspace_id = m.workspace_id))",
            )
            .bind(before.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            let people = sqlx::query(
                "DELETE FROM people WHERE verified_at IS NULL AND created_at < $1
                 AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.person_id = people.id)",
            )
            .bind(before.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            tx.commit().await.map_err(store_error)?;
            Ok((workspaces, people))
        })
    }

    /// A new workspace with an existing person as its owner, in one
    /// transaction.
    pub async fn insert_workspace_for(&self, ws: &Workspace, person_id: &str) -> Result<(), StoreError> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(
                "INSERT INTO workspaces (id, name, plan, payment_failed_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(&ws.id)
            .bind(&ws.name)
            .bind(ws.plan.as_str())
            .bind(ws.payment_failed_at.map(Timestamp::as_millis))
            .bind(ws.created_at.as_millis())
            .bind(ws.updated_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            sqlx::query(
                "INSERT INTO memberships (workspace_id, person_id, role, created_at) VALUES ($1, $2, 'owner', $3)",
            )
            .bind(&ws.id)
            .bind(person_id)
            .bind(ws.created_at.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?;
            tx.commit().await.map_err(store_error)
        })
    }

    /// The workspaces a person belongs to, with their role, in the order
    /// they joined.
    pub async fn workspaces_of(&self, person_id: &str) -> Result<Vec<(String, String, String)>, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query_as::<_, (String, String, String)>(
                "SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
                 WHERE m.person_id = $1 ORDER BY m.created_at, w.id",
            )
            .bind(person_id)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })
    }

    /// Moves a session to another workspace of its person; false when the
    /// person is not a member of it.
    pub async fn set_session_workspace(
        &self,
        session_id: &str,
        person_id: &str,
        workspace_id: &str,
    ) -> Result<bool, StoreError> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "UPDATE member_sessions SET workspace_id = $3 WHERE id = $1 AND person_id = $2
                 AND EXISTS (SELECT 1 FROM memberships WHERE person_id = $2 AND workspace_id = $3)",
            )
            .bind(session_id)
            .bind(person_id)
            .bind(workspace_id)
            .execute(pool)
            .await
            .map(|r| r.rows_affected() == 1)
            .map_err(store_error)
        })
    }
}

/// A course as the studio's list shows it.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct CourseLine {
    pub id: String,
    pub title: String,
    pub status: String,
    pub updated_at: i64,
}

impl Store {
    /// A workspace's courses whose title contains `query` (any case),
    /// newest change first, one page of them, and how many match in all.
    pub async fn course_lines(
        &self,
        workspace_id: &str,
        query: &str,
        limit: i64,
        offset: i64,
    ) -> Result<(Vec<CourseLine>, i64), StoreError> {
        let escaped = query.to_lowercase().replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
        let pattern = format!("%{escaped}%");
        with_db!(&self.db, |pool| {
            let total = sqlx::query_scalar::<_, i64>(
                "SELECT COUNT(*) FROM courses WHERE workspace_id = $1 AND LOWER(title) LIKE $2 ESCAPE '\\'",
            )
            .bind(workspace_id)
            .bind(&pattern)
            .fetch_one(pool)
            .await
            .map_err(store_error)?;
            let lines = sqlx::query_as::<_, CourseLine>(
                "SELECT id, title, status, updated_at FROM courses
                 WHERE workspace_id = $1 AND LOWER(title) LIKE $2 ESCAPE '\\'
                 ORDER BY updated_at DESC, id LIMIT $3 OFFSET $4",
            )
            .bind(workspace_id)
            .bind(&pattern)
            .bind(limit)
            .bind(offset)
            .fetch_all(pool)
            .await
            .map_err(store_error)?;
            Ok((lines, total))
        })
    }
}
