//! The studio's learner importer: a CSV of up to [`MAX_IMPORT_ROWS`]
//! learners, previewed with each row's problems before anything is written,
//! then written in one transaction (the seed's "dashboard learner importer
//! up to 1,000"). Each row is checked by the API's own identity rules.
//!
//! The header names the columns, in any order and case: `externalId` (or
//! `external_id`, `id`), `name`, `email`. Other columns are ignored.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use crate::Courses;
use crate::csv_import::parse_csv;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::code;
use crate::learners::parse_identities;
use crate::members::SignedIn;
use crate::store::IdentityUpsert;

/// Data rows one import takes.
pub const MAX_IMPORT_ROWS: usize = 1_000;

/// One data row of the file as the preview shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportRow {
    /// The line of the file (the header is line 1).
    pub line: usize,
    pub external_id: String,
    pub name: String,
    pub email: String,
    /// Why the row cannot be imported.
    pub error: Option<String>,
}

/// Reads the file into rows with their problems. A file that cannot be read
/// at all (not CSV, no `externalId` column, no rows, too many) is an error
/// of its own.
pub fn read_rows(text: &str) -> CoursesResult<Vec<ImportRow>> {
    let invalid = |message: String| CoursesError::field(&["csv"], code::INVALID_VALUE, message);
    let table = parse_csv(text).map_err(invalid)?;
    let mut lines = table.into_iter();
    let header: Vec<String> = lines.next().unwrap_or_default().iter().map(|h| h.trim().to_lowercase()).collect();
    let column = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
    let Some(id_at) = column(&["externalid", "external_id", "id"]) else {
        return Err(invalid("the first line names the columns and one of them is externalId".to_owned()));
    };
    let (name_at, email_at) = (column(&["name"]), column(&["email"]));
    let data: Vec<Vec<String>> = lines.filter(|row| row.iter().any(|f| !f.trim().is_empty())).collect();
    if data.is_empty() {
        return Err(CoursesError::field(&["csv"], code::TOO_SMALL, "the file has no learners below its header"));
    }
    if data.len() > MAX_IMPORT_ROWS {
        return Err(CoursesError::field(
            &["csv"],
            code::TOO_BIG,
            format!("the file has {} learners; import at most {MAX_IMPORT_ROWS} at a time", data.len()),
        ));
    }
    let cell = |row: &[String], at: Option<usize>| at.and_then(|i| row.get(i)).map_or("", |v| v.trim()).to_owned();
    let mut seen = HashSet::new();
    Ok(data
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let mut out = ImportRow {
                line: i + 2,
                external_id: cell(row, Some(id_at)),
                name: cell(row, name_at),
                email: cell(row, email_at),
                error: None,
            };
            out.error = check_row(&out).err();
            if out.error.is_none() && !seen.insert(out.external_id.clone()) {
                out.error = Some("this externalId appears on an earlier line".to_owned());
            }
            out
        })
        .collect())
}

/// The row as the API's body for one identity.
fn row_body(row: &ImportRow) -> Map<String, Value> {
    let mut item = Map::new();
    item.insert("externalId".into(), json!(row.external_id));
    if !row.name.is_empty() {
        item.insert("name".into(), json!(row.name));
    }
    if !row.email.is_empty() {
        item.insert("email".into(), json!(row.email));
    }
    let mut body = Map::new();
    body.insert("identities".into(), json!([item]));
    body
}

/// The API's rules for one identity, as one sentence.
fn check_row(row: &ImportRow) -> Result<IdentityUpsert, String> {
    match parse_identities(&row_body(row)) {
        Ok(mut batch) => batch.pop().ok_or_else(|| "the row is empty".to_owned()),
        Err(CoursesError::Invalid { issues, .. }) => {
            Err(issues.iter().map(|i| i.message.clone()).collect::<Vec<_>>().join("; "))
        }
        Err(other) => Err(other.to_string()),
    }
}

impl Courses {
    /// The preview of an import: every row with its problem, nothing written.
    pub async fn preview_learner_import(&self, me: &SignedIn, text: &str) -> CoursesResult<Vec<ImportRow>> {
        me.writer()?;
        read_rows(text)
    }

    /// Writes every row of the file (created, or updated by `externalId`) in
    /// one transaction; refused whole, with the first problems named, when
    /// any row has one. Returns how many learners were created and updated.
    pub async fn import_learners(&self, me: &SignedIn, text: &str) -> CoursesResult<(usize, usize)> {
        let access = me.writer()?;
        let rows = read_rows(text)?;
        let problems: Vec<String> =
            rows.iter().filter_map(|r| r.error.as_ref().map(|e| format!("line {}: {e}", r.line))).collect();
        if let Some(first) = problems.first() {
            let more =
                if problems.len() > 1 { format!(" (and {} more lines)", problems.len() - 1) } else { String::new() };
            return Err(CoursesError::field(
                &["csv"],
                code::INVALID_VALUE,
                format!("nothing was imported: {first}{more}"),
            ));
        }
        let batch: Vec<IdentityUpsert> = rows.iter().filter_map(|r| check_row(r).ok()).collect();
        let messages = self.identity_messages(&access.workspace.id, &batch).await?;
        let (stored, created) =
            self.store.upsert_identities(&access.workspace.id, &batch, &messages, self.clock.now()).await?;
        Ok((created, stored.len().saturating_sub(created)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_carry_the_apis_problems_and_duplicates() {
        let rows = read_rows(
            "Email,externalId,Name\r\nada@example.com,u1,Ada\nnot-an-address,u2,Bob\n,u1,Again\n,,\n,\"\",Nameless\n",
        )
        .unwrap();
        assert_eq!(rows.len(), 4, "blank lines are skipped");
        assert_eq!((rows[0].line, rows[0].error.as_deref()), (2, None));
        assert_eq!(rows[0].name, "Ada");
        assert!(rows[1].error.as_deref().is_some_and(|e| e.contains("email")), "{:?}", rows[1]);
        assert!(rows[2].error.as_deref().is_some_and(|e| e.contains("earlier line")), "{:?}", rows[2]);
        assert!(rows[3].error.as_deref().is_some_and(|e| e.contains("externalId")), "{:?}", rows[3]);
    }

    #[test]
    fn files_without_ids_rows_or_within_the_limit_are_refused_whole() {
        assert!(read_rows("name,email\nAda,a@b.c\n").is_err());
        assert!(read_rows("externalId\n").is_err());
        let many: String =
            std::iter::once("externalId\n".to_owned()).chain((0..1_001).map(|i| format!("u{i}\n"))).collect();
        let err = read_rows(&many).unwrap_err().to_string();
        assert!(err.contains("1001") || err.contains("1,001") || err.contains("at most 1000"), "{err}");
        let exactly: String =
            std::iter::once("externalId\n".to_owned()).chain((0..1_000).map(|i| format!("u{i}\n"))).collect();
        assert_eq!(read_rows(&exactly).unwrap().len(), 1_000);
        assert!(read_rows("externalId\n\"unterminated\n").is_err());
    }
}
