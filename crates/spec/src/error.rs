//! The one error type of this crate.
//!
//! Errors are data: callers (the hub's HTTP layer, the CLI) map `kind` to a
//! stable code and show `message`, so messages name the problem in terms the
//! author of the spec understands and carry a location whenever one is known.

use std::fmt;

/// What went wrong, coarse enough for a caller to map to a stable error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SpecErrorKind {
    /// The input is larger than [`crate::Limits::max_bytes`].
    TooLarge,
    /// The input is binary or not valid UTF-8 (or UTF-16 with a byte-order mark).
    NotText,
    /// JSON, YAML or GraphQL syntax error.
    Syntax,
    /// Nesting deeper than [`crate::Limits::max_depth`].
    TooDeep,
    /// YAML aliases expand to more than the alias budget allows.
    TooManyAliases,
    /// A mapping holds the same key twice.
    DuplicateKey,
    /// Well-formed JSON or YAML that is not an OpenAPI or Swagger document.
    NotASpec,
    /// `openapi` or `swagger` names a version this crate does not read.
    UnsupportedVersion,
    /// A local `$ref` points at nothing.
    InvalidReference,
    /// A `$ref` to another file or URL; only self-contained documents are read.
    ExternalReference,
    /// A chain of `$ref`s that only points at other `$ref`s and never ends.
    CyclicReference,
    /// A required part of the description is missing or has the wrong shape.
    InvalidDocument,
    /// GraphQL SDL that parses but does not validate.
    InvalidGraphQl,
    /// The input is empty or holds only whitespace and comments.
    Empty,
}

impl SpecErrorKind {
    /// Stable snake_case name, suitable as an error code suffix.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TooLarge => "too_large",
            Self::NotText => "not_text",
            Self::Syntax => "syntax",
            Self::TooDeep => "too_deep",
            Self::TooManyAliases => "too_many_aliases",
            Self::DuplicateKey => "duplicate_key",
            Self::NotASpec => "not_a_spec",
            Self::UnsupportedVersion => "unsupported_version",
            Self::InvalidReference => "invalid_reference",
            Self::ExternalReference => "external_reference",
            Self::CyclicReference => "cyclic_reference",
            Self::InvalidDocument => "invalid_document",
            Self::InvalidGraphQl => "invalid_graphql",
            Self::Empty => "empty",
        }
    }
}

impl fmt::Display for SpecErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an input could not be turned into a [`crate::Spec`].
///
/// `line` and `column` are 1-based and refer to the decoded text (after a
/// byte-order mark is removed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub struct SpecError {
    pub kind: SpecErrorKind,
    pub message: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, " at line {line}, column {column}"),
            (Some(line), None) => write!(f, " at line {line}"),
            _ => Ok(()),
        }
    }
}

impl SpecError {
    pub(crate) fn new(kind: SpecErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into(), line: None, column: None }
    }

    pub(crate) fn at(mut self, line: Option<u64>, column: Option<u64>) -> Self {
        // Locations past u32::MAX cannot occur under the size limit; saturate
        // rather than fail so an error never hides behind another error.
        self.line = line.filter(|l| *l > 0).map(|l| u32::try_from(l).unwrap_or(u32::MAX));
        self.column = column.filter(|c| *c > 0).map(|c| u32::try_from(c).unwrap_or(u32::MAX));
        self
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::new(SpecErrorKind::InvalidDocument, message)
    }
}
