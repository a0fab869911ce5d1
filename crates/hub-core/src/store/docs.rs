//! The hosted docs' tables: theme tokens and customization, per-endpoint
//! markdown, and the full-text search index (FTS5 on SQLite, a `tsvector`
//! with a GIN index on PostgreSQL: the only queries here that differ by
//! backend).

use kernel::Timestamp;
use platform::db::store_error;
use platform::{Db, with_db};

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

/// Which words of a section a search looks at.
#[derive(Clone, Copy)]
enum Field {
    Title,
    Body,
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
            for section in sections {
                let (title_terms, terms) = crate::search::section_terms(&section.title, &section.body);
                sqlx::query(
                    "INSERT INTO docs_search (spec_sha256, target, title, body, title_terms, terms) VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(spec_sha256)
                .bind(&section.target)
                .bind(&section.title)
                .bind(&section.body)
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

    /// Every indexed section of a document, with the words it was indexed
    /// under (descriptions cut to 240 characters, as search hits show them).
    pub async fn docs_sections(&self, spec_sha256: &str) -> HubResult<Vec<crate::search::Candidate>> {
        Ok(with_db!(&self.db, |pool| {
            sqlx::query_as::<_, crate::search::Candidate>(
                "SELECT target, title, substr(body, 1, 240) AS body, title_terms, terms
                 FROM docs_search WHERE spec_sha256 = $1",
            )
            .bind(spec_sha256)
            .fetch_all(pool)
            .await
            .map_err(store_error)
        })?)
    }

    /// The best sections of one document for a question's word groups
    /// (`search::query_groups`: each group's words are alternatives; a
    /// section matching more groups, in its title above all, ranks higher),
    /// best first. The last group's first word also matches as a prefix, for
    /// a search box that asks while the word is typed.
    ///
    /// Only the sections' targets are read: the ranking takes their words
    /// from the node's copy of the document's sections ([`Store::docs_sections`]),
    /// so a search moves a few hundred short strings, not their descriptions.
    pub async fn search_docs(&self, spec_sha256: &str, groups: &[Vec<String>], limit: i64) -> HubResult<Vec<String>> {
        // Sections whose title words match come first (most answers are
        // there, and titles are short, so ranking them is cheap); a few more
        // found only in descriptions follow.
        let body_limit = (limit / 4).max(1);
        let mut found = self.search_docs_in(spec_sha256, groups, Field::Title, limit).await?;
        for extra in self.search_docs_in(spec_sha256, groups, Field::Body, body_limit).await? {
            if !found.contains(&extra) {
                found.push(extra);
            }
        }
        Ok(found)
    }

    async fn search_docs_in(
        &self,
        spec_sha256: &str,
        groups: &[Vec<String>],
        field: Field,
        limit: i64,
    ) -> HubResult<Vec<String>> {
        let last = groups.len().saturating_sub(1);
        let rows = match &self.db {
            Db::Sqlite(pool) => {
                let query = groups
                    .iter()
                    .enumerate()
                    .map(|(i, group)| {
                        let words: Vec<String> = group
                            .iter()
                            .enumerate()
                            .map(|(j, w)| {
                                let w = w.replace('"', "");
                                if i == last && j == 0 { format!("\"{w}\"*") } else { format!("\"{w}\"") }
                            })
                            .collect();
                        format!("({})", words.join(" OR "))
                    })
                    .collect::<Vec<_>>()
                    .join(" OR ");
                let sql = match field {
                    Field::Title => {
                        "SELECT target FROM docs_search
                         WHERE docs_search MATCH '{title_terms} : (' || $1 || ')' AND spec_sha256 = $2
                         ORDER BY bm25(docs_search, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0), title LIMIT $3"
                    }
                    Field::Body => {
                        "SELECT target FROM docs_search
                         WHERE docs_search MATCH '{terms} : (' || $1 || ')' AND spec_sha256 = $2
                         ORDER BY bm25(docs_search, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0), title LIMIT $3"
                    }
                };
                sqlx::query_scalar::<_, String>(sql).bind(query).bind(spec_sha256).bind(limit).fetch_all(pool).await
            }
            Db::Postgres(pool) => {
                // `:A` matches title words only, `:B` description words.
                let weight = match field {
                    Field::Title => "A",
                    Field::Body => "B",
                };
                let query = groups
                    .iter()
                    .enumerate()
                    .map(|(i, group)| {
                        let words: Vec<String> =
                            group
                                .iter()
                                .map(|w| w.chars().filter(|c| c.is_alphanumeric()).collect::<String>())
                                .enumerate()
                                .filter(|(_, w)| !w.is_empty())
                                .map(|(j, w)| {
                                    if i == last && j == 0 { format!("{w}:*{weight}") } else { format!("{w}:{weight}") }
                                })
                                .collect();
                        format!("({})", words.join(" | "))
                    })
                    .filter(|g| g != "()")
                    .collect::<Vec<_>>()
                    .join(" | ");
                if query.is_empty() {
                    return Ok(Vec::new());
                }
                sqlx::query_scalar::<_, String>(
                    "SELECT target
                     FROM docs_search, to_tsquery('simple', $1) q
                     WHERE spec_sha256 = $2 AND document @@ q
                     ORDER BY ts_rank(document, q, 1) DESC, title LIMIT $3",
                )
                .bind(query)
                .bind(spec_sha256)
                .bind(limit)
                .fetch_all(pool)
                .await
            }
        };
        Ok(rows.map_err(store_error)?)
    }
}
