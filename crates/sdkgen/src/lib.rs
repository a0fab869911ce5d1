//! `sdkgen` turns the normalised API model ([`spec::Spec`]) into a client
//! SDK: one self-contained TypeScript file (no runtime dependency beyond
//! `fetch`) or one Python module (standard library only).
//!
//! Each file has a `Client` class (base URL defaulting to the first server,
//! credentials for the document's security schemes, timeouts, retries with
//! exponential backoff and jitter on 429 and 5xx honouring `Retry-After`), a
//! typed method per operation, types for every named schema, and an
//! `ApiError` carrying the status, headers and decoded body.
//!
//! The crate is pure: no I/O, no clock, no randomness at generation time.
//! The same spec always gives byte-identical output: every collection it
//! walks is ordered as the document is. Inline schemas are walked to a fixed
//! depth; named schemas become named types, so recursive schemas are fine.
//!
//! GraphQL descriptions are refused with [`SdkError::GraphQl`]: a GraphQL
//! client's result types follow from the queries it sends, which a schema
//! alone does not say (see docs/decisions.md).

mod names;
mod plan;
mod python;
mod ts;

use serde_json::Value;
use spec::Spec;

/// Deepest nesting of inline schemas followed before a type falls back to
/// `unknown` / `Any`. Named schemas restart the count, being named types.
pub(crate) const MAX_INLINE_DEPTH: usize = 24;

/// A target language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    TypeScript,
    Python,
}

impl Language {
    pub const ALL: [Self; 2] = [Self::TypeScript, Self::Python];

    /// Accepts `typescript`, `ts`, `python` and `py`, ignoring case.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "typescript" | "ts" => Some(Self::TypeScript),
            "python" | "py" => Some(Self::Python),
            _ => None,
        }
    }

    /// `typescript` or `python`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TypeScript => "typescript",
            Self::Python => "python",
        }
    }

    /// The file extension without the dot.
    #[must_use]
    pub fn extension(self) -> &'static str {
        match self {
            Self::TypeScript => "ts",
            Self::Python => "py",
        }
    }

    /// The media type the hub serves the file with.
    #[must_use]
    pub fn media_type(self) -> &'static str {
        match self {
            Self::TypeScript => "application/typescript; charset=utf-8",
            Self::Python => "text/x-python; charset=utf-8",
        }
    }

    /// A file name for an SDK of the API called `name`: `petstore.ts`,
    /// `petstore.py` (Python module names use underscores).
    #[must_use]
    pub fn file_name(self, name: &str) -> String {
        let stem = names::snake(name, "client");
        let stem = if stem.starts_with('_') { format!("api{stem}") } else { stem };
        match self {
            Self::TypeScript => format!("{}.ts", stem.replace('_', "-")),
            Self::Python => format!("{stem}.py"),
        }
    }
}

/// Why no SDK was generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SdkError {
    #[error(
        "SDKs are generated for OpenAPI and Swagger descriptions only: a GraphQL client's types follow from the \
         queries it sends, so use a GraphQL code generator over your queries and this project's schema"
    )]
    GraphQl,
}

/// Generates the SDK source for `spec` in `language`.
pub fn generate(spec: &Spec, language: Language) -> Result<String, SdkError> {
    if !spec.format.is_rest() {
        return Err(SdkError::GraphQl);
    }
    Ok(match language {
        Language::TypeScript => ts::generate(spec),
        Language::Python => python::generate(spec),
    })
}

pub use ts::TypesOf;

/// TypeScript declarations for one schema or one operation of a REST
/// description, as the generated SDK declares them, with the named schemas
/// they reference. `Ok(None)` when it is not in the description.
pub fn typescript_types(spec: &Spec, of: TypesOf<'_>) -> Result<Option<String>, SdkError> {
    if !spec.format.is_rest() {
        return Err(SdkError::GraphQl);
    }
    Ok(ts::types(spec, of))
}

/// The key of a named schema a reference points at directly
/// (`#/components/schemas/Pet` -> `Pet`), if it is one.
pub(crate) fn schema_key<'s>(spec: &'s Spec, reference: &str) -> Option<&'s str> {
    let raw = reference.strip_prefix("#/components/schemas/")?;
    if raw.contains('/') {
        return None;
    }
    if let Some((key, _)) = spec.schemas.get_key_value(raw) {
        return Some(key.as_str());
    }
    let decoded = percent_decode(&raw.replace("~1", "/").replace("~0", "~"));
    spec.schemas.get_key_value(decoded.as_str()).map(|(key, _)| key.as_str())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%'
            && let Some(hex) = bytes.get(i + 1..i + 3)
            && let Ok(hex) = std::str::from_utf8(hex)
            && let Ok(value) = u8::from_str_radix(hex, 16)
        {
            out.push(value);
            i += 3;
            continue;
        }
        out.push(b);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether a schema (without following `$ref`) describes an object with
/// named properties or an open map.
pub(crate) fn is_object_like(schema: &Value) -> bool {
    let types = spec::schema_types(schema).types;
    types == ["object"]
        || (types.is_empty() && (schema.get("properties").is_some() || schema.get("additionalProperties").is_some()))
}

/// `required` of a schema as a list of names.
pub(crate) fn required_names(schema: &Value) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

#[cfg(test)]
mod tests;
