//! `diff` compares two versions of an API description and classifies every
//! change as breaking, additive or cosmetic, then suggests a semver bump.
//!
//! It owns the rule catalogue (see `rules.rs` and the README's table), the
//! direction semantics (a request is what a client sends, a response what it
//! receives, so the same schema change can be breaking in one and harmless in
//! the other), and the Markdown rendering for pull-request comments.
//!
//! It reads only the normalised [`spec::Spec`] model, so OpenAPI 3.0, 3.1 and
//! Swagger 2.0 of the same API compare equal, and JSON versus YAML never
//! matters. It must stay pure: no I/O, no clock, no async runtime, and no
//! dependency on tokio, axum, sqlx or reqwest. Nothing panics on input.

mod events;
mod graphql;
mod http;
mod markdown;
mod rules;
mod schema;

use serde::Serialize;
use serde_json::Value;
use spec::{Spec, SpecFormat};

pub use crate::rules::{RULES, Rule, rule};

/// Why two descriptions cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiffError {
    /// One description is GraphQL and the other an HTTP API (OpenAPI or
    /// Swagger); there is no meaningful mapping between the two.
    #[error("cannot compare a {old} description with a {new} description: graphql only compares with graphql")]
    Incompatible { old: SpecFormat, new: SpecFormat },
}

/// The suggested semantic-version bump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bump {
    Major,
    Minor,
    Patch,
}

impl Bump {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Major => "major",
            Self::Minor => "minor",
            Self::Patch => "patch",
        }
    }
}

/// How a change affects existing clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// An existing client can fail: it sends something now refused, or
    /// receives something it was not promised.
    Breaking,
    /// New capability; existing clients keep working.
    Additive,
    /// Documentation, metadata or a tightening of what the server returns;
    /// no client behaviour changes.
    Cosmetic,
}

impl ChangeKind {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Breaking => "breaking",
            Self::Additive => "additive",
            Self::Cosmetic => "cosmetic",
        }
    }
}

/// One classified change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// Stable kebab-case rule id, see [`RULES`].
    pub rule: &'static str,
    /// `GET /pets/{id}`, or a GraphQL root field such as `Query.user`.
    pub operation: Option<String>,
    /// Human-readable place: `response 200 application/json body.items[].name`.
    pub location: String,
    /// JSON pointer into the normalised new document (the old one for
    /// removals). Best effort: Swagger documents are pointed at in their
    /// OpenAPI 3 shape, and merged parameters have no index.
    pub pointer: Option<String>,
    pub before: Option<Value>,
    pub after: Option<Value>,
    pub message: String,
}

/// Counts per kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Summary {
    pub breaking: usize,
    pub additive: usize,
    pub cosmetic: usize,
}

/// Everything that changed between two descriptions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Sorted: breaking first, then additive, then cosmetic; within a kind by
    /// operation, location and rule.
    pub changes: Vec<Change>,
    pub bump: Bump,
    pub summary: Summary,
}

impl Report {
    fn new(changes: Vec<Change>) -> Self {
        // Operations are ranked once, so the sort compares two integers
        // before it compares long locations, and only within an operation.
        let mut operations: Vec<&str> = changes.iter().filter_map(|change| change.operation.as_deref()).collect();
        operations.sort_unstable();
        operations.dedup();
        let ranks: Vec<usize> = changes
            .iter()
            .map(|change| match change.operation.as_deref() {
                None => 0,
                Some(operation) => operations.binary_search(&operation).map_or(0, |at| at + 1),
            })
            .collect();
        // Sorting indices moves eight bytes per step instead of a change.
        let mut order: Vec<usize> = (0..changes.len()).collect();
        let key = |at: usize| {
            let change = changes.get(at)?;
            Some((
                change.kind,
                ranks.get(at).copied().unwrap_or(0),
                &change.location,
                change.rule,
                &change.message,
                &change.pointer,
            ))
        };
        order.sort_by(|a, b| key(*a).cmp(&key(*b)));
        let mut slots: Vec<Option<Change>> = changes.into_iter().map(Some).collect();
        let mut changes: Vec<Change> =
            order.into_iter().filter_map(|at| slots.get_mut(at).and_then(Option::take)).collect();
        changes.dedup();
        let mut summary = Summary::default();
        for change in &changes {
            match change.kind {
                ChangeKind::Breaking => summary.breaking += 1,
                ChangeKind::Additive => summary.additive += 1,
                ChangeKind::Cosmetic => summary.cosmetic += 1,
            }
        }
        let bump = if summary.breaking > 0 {
            Bump::Major
        } else if summary.additive > 0 {
            Bump::Minor
        } else {
            Bump::Patch
        };
        Self { changes, bump, summary }
    }

    /// True when at least one change is breaking.
    #[must_use]
    pub fn has_breaking(&self) -> bool {
        self.summary.breaking > 0
    }

    /// Markdown fit for a pull-request comment: a summary line with the
    /// bump, then one table per kind, breaking first. Deterministic.
    #[must_use]
    pub fn to_markdown(&self, title: &str) -> String {
        markdown::render(self, title)
    }
}

/// Compares two descriptions. OpenAPI and Swagger compare freely (both are
/// normalised to the same model); GraphQL only compares with GraphQL.
pub fn diff(old: &Spec, new: &Spec) -> Result<Report, DiffError> {
    let changes = match (old.format.is_rest(), new.format.is_rest()) {
        (true, true) => http::diff(old, new),
        (false, false) => graphql::diff(old, new),
        _ => return Err(DiffError::Incompatible { old: old.format, new: new.format }),
    };
    Ok(Report::new(changes))
}
