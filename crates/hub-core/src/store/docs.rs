//! The hosted docs' tables: theme tokens and customization, per-endpoint
//! markdown, and each document's search sections with their normalised
//! words (`hub_core::search` indexes them in memory).

use kernel::Timestamp;
use platform::db::store_error;
use platform::with_db;

use super::Store;
use crate::docs::{Customization, DocsVersion, EndpointMarkdown, SearchSection, ThemeTokens};
use crate::error::{HubError, HubResult};
use crate::model::AuditEvent;

/// Projects whose owner has been on Free since `$1` or earlier.
macro_rules! stale_projects {
    () => {
        "SELECT p.id FROM projects p JOIN users u ON u.id = p.owner_id
         WHERE u.plan = 'free' AND u.downgraded_at IS NOT NULL AND u.downgraded_at <= $1"
    };
}

/// The project a docs request names, with its owner's plan.
#[derive(Debug, sqlx::FromRow)]
pub struct DocsProjectRow {
    pub id: String,
    pub owner_id: String,
    pub slug: String,
    pub name: String,
    pub is_public: bool,
    pub password_hash: Option<String>,
    pub base_url: Option<String>,
    pub branding: String,
    pub owner_plan: String,
}

/// Which column of `docs_settings` a write replaces.
fn settings_sql(column: &str) -> HubResult<&'static str> {
    match column {
        "theme" => Ok("INSERT INTO docs_settings (project_id, theme, updated_at) VALUES ($1, $2, $3)
                       ON CONFLICT (project_id) DO UPDATE SET theme = excluded.theme, updated_at = excluded.updated_at"),
        "customization" => Ok("INSERT INTO docs_settings (project_id, customization, updated_at) VALUES ($1, $2, $3)
                       ON CONFLICT (project_id) DO UPDATE SET customization = excluded.customization, updated_at = excluded.updated_at"),
        other => Err(HubError::Internal(format!("unknown docs setting {other}"))),
    }
}

impl Store {
    pub async fn set_password_hash(
        &self,
        project_id: &str,
        hash: Option<&str>,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query("UPDATE projects SET password_hash = $2, updated_at = $3 WHERE id = $1")
                .bind(project_id)
                .bind(hash)
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

    /// The project served at a verified custom domain, whose owner's plan
    /// still has custom domains.
    pub async fn docs_project_by_domain(&self, domain: &str) -> HubResult<Option<DocsProjectRow>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, DocsProjectRow>(
                "SELECT p.id, p.owner_id, p.slug, p.name, p.is_public, p.password_hash, p.base_url, p.branding, u.plan AS owner_plan
                 FROM projects p JOIN users u ON u.id = p.owner_id
                 WHERE p.custom_domain = $1 AND p.custom_domain_verified_at IS NOT NULL AND u.plan = 'business'",
            )
            .bind(domain)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// Marks a custom domain verified; false when no project has it.
    pub async fn verify_custom_domain(&self, domain: &str, now: Timestamp) -> HubResult<bool> {
        let updated = with_db!(&self.db, |pool| {
            sqlx::query("UPDATE projects SET custom_domain_verified_at = $2 WHERE custom_domain = $1")
                .bind(domain)
                .bind(now.as_millis())
                .execute(pool)
                .await
                .map(|r| r.rows_affected())
                .map_err(store_error)
        })?;
        Ok(updated > 0)
    }

    pub async fn docs_project(&self, slug: &str) -> HubResult<Option<DocsProjectRow>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, DocsProjectRow>(
                "SELECT p.id, p.owner_id, p.slug, p.name, p.is_public, p.password_hash, p.base_url,
                        p.branding, u.plan AS owner_plan
                 FROM projects p JOIN users u ON u.id = p.owner_id WHERE p.slug = $1",
            )
            .bind(slug)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// Active versions that have not expired, the default first, then the
    /// newest.
    pub async fn docs_versions(&self, project_id: &str, now: Timestamp) -> HubResult<Vec<DocsVersion>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, DocsVersion>(
                "SELECT label, spec_sha256, spec_format, is_default, is_preview, base_url FROM versions
                 WHERE project_id = $1 AND is_active AND NOT (is_preview AND expires_at <= $2)
                 ORDER BY is_default DESC, created_at DESC, label",
            )
            .bind(project_id)
            .bind(now.as_millis())
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// The stored theme tokens and customization (unreadable rows read as
    /// unset: they were validated when written).
    pub async fn docs_settings(&self, project_id: &str) -> HubResult<(Option<ThemeTokens>, Option<Customization>)> {
        let row: Option<(Option<String>, Option<String>)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT theme, customization FROM docs_settings WHERE project_id = $1")
                .bind(project_id)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        let Some((theme, customization)) = row else { return Ok((None, None)) };
        Ok((
            theme.and_then(|t| serde_json::from_str(&t).ok()),
            customization.and_then(|c| serde_json::from_str(&c).ok()),
        ))
    }

    pub async fn set_docs_setting(
        &self,
        project_id: &str,
        column: &str,
        json: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        let sql = settings_sql(column)?;
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            sqlx::query(sql)
                .bind(project_id)
                .bind(json)
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

    pub async fn set_branding(
        &self,
        project_id: &str,
        json: &str,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let updated = sqlx::query("UPDATE projects SET branding = $2, updated_at = $3 WHERE id = $1")
                .bind(project_id)
                .bind(json)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?
                .rows_affected();
            if updated == 0 {
                return Err(HubError::not_found("project"));
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    pub async fn endpoint_markdown(&self, project_id: &str, label: Option<&str>) -> HubResult<Vec<EndpointMarkdown>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, EndpointMarkdown>(
                "SELECT version_label, endpoint, intro, extras FROM docs_endpoint_markdown
                 WHERE project_id = $1 AND ($2 IS NULL OR version_label = $2)
                 ORDER BY version_label, endpoint",
            )
            .bind(project_id)
            .bind(label)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// Upserts (`keep`) or deletes one endpoint's markdown.
    pub async fn put_endpoint_markdown(
        &self,
        project_id: &str,
        entry: &EndpointMarkdown,
        keep: bool,
        now: Timestamp,
        audit: Option<&AuditEvent>,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            if keep {
                sqlx::query(
                    "INSERT INTO docs_endpoint_markdown (project_id, version_label, endpoint, intro, extras, updated_at)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (project_id, version_label, endpoint)
                     DO UPDATE SET intro = excluded.intro, extras = excluded.extras, updated_at = excluded.updated_at",
                )
                .bind(project_id)
                .bind(&entry.version_label)
                .bind(&entry.endpoint)
                .bind(&entry.intro)
                .bind(&entry.extras)
                .bind(now.as_millis())
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            } else {
                sqlx::query(
                    "DELETE FROM docs_endpoint_markdown WHERE project_id = $1 AND version_label = $2 AND endpoint = $3",
                )
                .bind(project_id)
                .bind(&entry.version_label)
                .bind(&entry.endpoint)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            if let Some(event) = audit {
                insert_audit!(&mut *tx, event)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Deletes the docs customization and per-endpoint markdown of projects
    /// whose owner dropped to Free at or before `cutoff` (theme tokens and
    /// branding are kept: they are only not applied). Returns the number of
    /// projects pruned.
    pub async fn prune_customizations(&self, cutoff: Timestamp) -> HubResult<u64> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let settings = sqlx::query(concat!(
                "UPDATE docs_settings SET customization = NULL WHERE customization IS NOT NULL AND project_id IN (",
                stale_projects!(),
                ")"
            ))
            .bind(cutoff.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            let markdown = sqlx::query(concat!(
                "DELETE FROM docs_endpoint_markdown WHERE project_id IN (",
                stale_projects!(),
                ")"
            ))
            .bind(cutoff.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            tx.commit().await.map_err(store_error)?;
            Ok(settings + markdown)
        })
    }

    pub async fn docs_indexed(&self, spec_sha256: &str) -> HubResult<bool> {
        let row: Option<(i64,)> = with_db!(&self.db, |pool| {
            sqlx::query_as("SELECT indexed_at FROM docs_search_documents WHERE spec_sha256 = $1")
                .bind(spec_sha256)
                .fetch_optional(pool)
                .await
                .map_err(store_error)
        })?;
        Ok(row.is_some())
    }

    /// Indexes a document's sections once (a concurrent indexer of the same
    /// document loses the race on the marker row and rolls back).
    pub async fn index_docs(&self, spec_sha256: &str, sections: &[SearchSection], now: Timestamp) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            let mut tx = pool.begin().await.map_err(store_error)?;
            let claimed = sqlx::query(
                "INSERT INTO docs_search_documents (spec_sha256, indexed_at) VALUES ($1, $2) ON CONFLICT (spec_sha256) DO NOTHING",
            )
            .bind(spec_sha256)
            .bind(now.as_millis())
            .execute(&mut *tx)
            .await
            .map_err(store_error)?
            .rows_affected();
            if claimed == 0 {
                return Ok(());
            }
            for (position, section) in sections.iter().enumerate() {
                let (title_terms, terms) = crate::search::section_terms(&section.title, &section.body);
                // The words come from the whole description; hits show its
                // start only.
                let shown: String = section.body.chars().take(crate::search::SNIPPET_CHARS).collect();
                sqlx::query(
                    "INSERT INTO docs_search (spec_sha256, position, target, title, body, title_terms, terms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(spec_sha256)
                .bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(&section.target)
                .bind(&section.title)
                .bind(shown)
                .bind(title_terms)
                .bind(terms)
                .execute(&mut *tx)
                .await
                .map_err(store_error)?;
            }
            tx.commit().await.map_err(store_error)?;
            Ok(())
        })
    }

    /// Every indexed section of a document in document order, with the
    /// words it was indexed under (descriptions cut as search hits show
    /// them).
    pub async fn docs_sections(&self, spec_sha256: &str) -> HubResult<Vec<crate::search::Candidate>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, crate::search::Candidate>(
                "SELECT target, title, body, title_terms, terms
                 FROM docs_search WHERE spec_sha256 = $1 ORDER BY position",
            )
            .bind(spec_sha256)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// The vectors model `model` gave the sections of document
    /// `spec_sha256`, when some are kept: `(texts_sha256, sections, width,
    /// bytes)`.
    pub async fn docs_vectors(&self, spec_sha256: &str, model: &str) -> HubResult<Option<KeptVectors>> {
        let row: Option<(String, i64, i64, Vec<u8>)> = with_db!(&self.db, |pool| {
            sqlx::query_as(
                "SELECT texts_sha256, sections, width, vectors FROM docs_search_vectors
                 WHERE spec_sha256 = $1 AND model = $2",
            )
            .bind(spec_sha256)
            .bind(model)
            .fetch_optional(pool)
            .await
            .map_err(store_error)
        })?;
        Ok(row.map(|(texts_sha256, sections, width, bytes)| KeptVectors {
            texts_sha256,
            sections: usize::try_from(sections).unwrap_or(0),
            width: usize::try_from(width).unwrap_or(0),
            bytes,
        }))
    }

    /// Keeps the vectors model `model` gave the sections of document
    /// `spec_sha256`, in place of any it gave before.
    pub async fn put_docs_vectors(
        &self,
        spec_sha256: &str,
        model: &str,
        kept: &KeptVectors,
        now: Timestamp,
    ) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO docs_search_vectors (spec_sha256, model, texts_sha256, sections, width, vectors, created_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (spec_sha256, model) DO UPDATE SET texts_sha256 = excluded.texts_sha256,
                   sections = excluded.sections, width = excluded.width, vectors = excluded.vectors,
                   created_at = excluded.created_at",
            )
            .bind(spec_sha256)
            .bind(model)
            .bind(&kept.texts_sha256)
            .bind(i64::try_from(kept.sections).unwrap_or(i64::MAX))
            .bind(i64::try_from(kept.width).unwrap_or(i64::MAX))
            .bind(&kept.bytes)
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map(|_| ())
            .map_err(store_error)
        })?;
        Ok(())
    }

    /// Claims the encoding of document `spec_sha256`'s sections by `model`
    /// for `holder` until `until`: whether the claim is `holder`'s now (it
    /// was free, expired at `now`, or already `holder`'s).
    pub async fn claim_docs_vectors(
        &self,
        spec_sha256: &str,
        model: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> HubResult<bool> {
        let claimed = with_db!(&self.db, |pool| {
            sqlx::query(
                "INSERT INTO docs_search_claims (spec_sha256, model, holder, expires_at) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (spec_sha256, model) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                 WHERE docs_search_claims.expires_at <= $5 OR docs_search_claims.holder = excluded.holder",
            )
            .bind(spec_sha256)
            .bind(model)
            .bind(holder)
            .bind(until.as_millis())
            .bind(now.as_millis())
            .execute(pool)
            .await
            .map(|done| done.rows_affected() > 0)
            .map_err(store_error)
        })?;
        Ok(claimed)
    }

    /// Ends `holder`'s claim on document `spec_sha256`'s encoding by `model`.
    pub async fn release_docs_vectors(&self, spec_sha256: &str, model: &str, holder: &str) -> HubResult<()> {
        with_db!(&self.db, |pool| {
            sqlx::query("DELETE FROM docs_search_claims WHERE spec_sha256 = $1 AND model = $2 AND holder = $3")
                .bind(spec_sha256)
                .bind(model)
                .bind(holder)
                .execute(pool)
                .await
                .map(|_| ())
                .map_err(store_error)
        })?;
        Ok(())
    }
}

/// A sentence model's vectors of a document's sections as kept
/// (`docs_search_vectors`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptVectors {
    /// The SHA-256 of the sections' texts the vectors are of.
    pub texts_sha256: String,
    pub sections: usize,
    pub width: usize,
    /// `Meanings::to_bytes`.
    pub bytes: Vec<u8>,
}
