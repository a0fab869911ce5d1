//! `spec` turns API descriptions (OpenAPI 3.0 and 3.1 in JSON or YAML,
//! Swagger 2.0 in JSON or YAML, and GraphQL SDL) into one normalised model,
//! [`Spec`], that hosted docs, the mock server, diff, SDK generation and MCP
//! all read.
//!
//! It owns: format detection, decoding (UTF-8, UTF-8 and UTF-16 with a
//! byte-order mark), the resource limits on hostile input (size, nesting,
//! YAML alias expansion), `$ref` checking (every local reference resolves,
//! no reference chain loops, no external references), the Swagger 2.0 to
//! OpenAPI 3 upgrade, and the GraphQL type model.
//!
//! It must stay pure: no I/O, no clock, no async runtime, and no dependency
//! on tokio, axum, sqlx or reqwest. Nothing is ever fetched, so `$ref`s to
//! other files or URLs are refused rather than followed. Everything that can
//! fail returns [`SpecError`]; nothing panics on input.

mod error;
mod fields;
mod graphql;
mod model;
mod openapi;
mod refs;
mod swagger;
mod text;
mod tree;

use serde_json::Value;

pub use crate::error::{SpecError, SpecErrorKind};
pub use crate::graphql::{
    GraphQlEnumValue, GraphQlField, GraphQlInputValue, GraphQlModel, GraphQlType, GraphQlTypeKind, TypeRef,
};
pub use crate::model::{
    ApiKeyLocation, Contact, Example, ExternalDocs, Header, HttpMethod, License, MediaType, OAuthFlow, OAuthFlowKind,
    Operation, Parameter, ParameterLocation, RequestBody, Response, SchemaTypes, SecurityRequirement, SecurityScheme,
    SecuritySchemeKind, Server, ServerVariable, Spec, SpecFormat, Tag, schema_types,
};

/// Resource limits applied while parsing untrusted input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted input in bytes (the hub's upload limit is 50 MB).
    pub max_bytes: usize,
    /// Deepest accepted nesting of JSON/YAML collections, and the GraphQL
    /// parser's recursion limit. Loading recurses once per level, so this
    /// bounds stack use: 64 levels fit a 2 MiB thread stack (tokio's worker
    /// default) even in debug builds, while the deepest of 2,645 real
    /// descriptions in the APIs.guru corpus nests 34 levels. JSON is
    /// additionally capped at 128 by serde_json.
    pub max_depth: usize,
    /// Most YAML events that aliases may replay in total; an alias bomb
    /// trips this long before it costs real memory or time.
    pub max_yaml_alias_events: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_bytes: 50 * 1024 * 1024, max_depth: 64, max_yaml_alias_events: 100_000 }
    }
}

/// Parses an API description with the default [`Limits`].
pub fn parse(input: &[u8]) -> Result<Spec, SpecError> {
    parse_with(input, &Limits::default())
}

/// Parses an API description: detects the format, checks references, and
/// normalises it into a [`Spec`].
pub fn parse_with(input: &[u8], limits: &Limits) -> Result<Spec, SpecError> {
    if input.len() > limits.max_bytes {
        return Err(SpecError::new(
            SpecErrorKind::TooLarge,
            format!("spec is {} bytes; the limit is {} bytes", input.len(), limits.max_bytes),
        ));
    }
    let text = text::decode(input)?;
    let Some(syntax) = text::syntax(&text) else {
        return Err(SpecError::new(SpecErrorKind::Empty, "document is empty"));
    };
    let tree = match syntax {
        text::Syntax::GraphQl => return graphql::parse(&text, limits),
        text::Syntax::Json => tree::load_json(&text, limits)?,
        text::Syntax::Yaml => tree::load_yaml(&text, limits)?,
    };
    drop(text);
    from_tree(tree)
}

/// Decodes a description's bytes to text the way [`parse`] does (UTF-8,
/// or UTF-8/UTF-16 with a byte-order mark).
pub fn decode(input: &[u8]) -> Result<String, SpecError> {
    text::decode(input).map(std::borrow::Cow::into_owned)
}

/// Guesses the format from the text without parsing it: the first
/// meaningful token decides JSON, YAML or GraphQL, and an `openapi` or
/// `swagger` key decides the rest. `None` when nothing fits.
#[must_use]
pub fn sniff(input: &[u8]) -> Option<SpecFormat> {
    // The first KiB decides the syntax; the version key may sit anywhere
    // (documents with sorted keys put `swagger` last), so that search is a
    // byte scan over everything, which stays cheap even at 50 MB.
    const WINDOW: usize = 1024;
    let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    if body.starts_with(b"\xFF\xFE") || body.starts_with(b"\xFE\xFF") {
        let decoded = text::decode(input).ok()?;
        let syntax = text::syntax(&decoded)?;
        return text::version_key_bytes(decoded.as_bytes(), syntax);
    }
    let window = body.get(..WINDOW).unwrap_or(body);
    let head = match std::str::from_utf8(window) {
        Ok(text) => text,
        // A window may cut a multi-byte character; anything else is not
        // text at all.
        Err(err) if err.error_len().is_none() => std::str::from_utf8(window.get(..err.valid_up_to())?).ok()?,
        Err(_) => return None,
    };
    let syntax = text::syntax(head)?;
    text::version_key_bytes(body, syntax)
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn version_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn from_tree(tree: Value) -> Result<Spec, SpecError> {
    const EXPECTED: &str =
        "expected an openapi 3.x or swagger 2.0 document with a top-level `openapi` or `swagger` field";
    if tree.is_null() {
        return Err(SpecError::new(SpecErrorKind::Empty, "document is empty"));
    }
    let Value::Object(root) = tree else {
        return Err(SpecError::new(
            SpecErrorKind::NotASpec,
            format!("not an api description: the document is {}; {EXPECTED}", describe(&tree)),
        ));
    };
    if let Some(version) = root.get("openapi") {
        let version = version_text(version);
        if !(version.starts_with("3.0") || version.starts_with("3.1")) {
            return Err(SpecError::new(
                SpecErrorKind::UnsupportedVersion,
                format!("openapi version `{version}` is not supported; expected 3.0.x or 3.1.x"),
            ));
        }
        let root = Value::Object(root);
        let detached = {
            let references = refs::check_document(&root)?;
            refs::copy_targets(&root, &references)
        };
        return openapi::build(fields::into_object(root), SpecFormat::OpenApi3, version, detached);
    }
    if let Some(version) = root.get("swagger") {
        let version = version_text(version);
        if version != "2.0" {
            return Err(SpecError::new(
                SpecErrorKind::UnsupportedVersion,
                format!("swagger version `{version}` is not supported; expected 2.0"),
            ));
        }
        let root = Value::Object(root);
        refs::check_document(&root)?;
        let upgraded = swagger::upgrade(fields::into_object(root))?;
        let may_have_detached = upgraded.may_have_detached;
        let upgraded = Value::Object(upgraded.root);
        let detached = if may_have_detached {
            refs::copy_targets(&upgraded, &refs::detached_references(&upgraded))
        } else {
            indexmap::IndexMap::new()
        };
        return openapi::build(fields::into_object(upgraded), SpecFormat::Swagger2, version, detached);
    }
    let hint = if root.contains_key("item") || root.contains_key("_postman_id") {
        " (this looks like a postman collection)"
    } else if root.contains_key("services") {
        " (this looks like a docker compose file)"
    } else if root.contains_key("__schema") || root.get("data").is_some_and(|data| data.get("__schema").is_some()) {
        " (this looks like a graphql introspection result; upload the schema as sdl instead)"
    } else if root.contains_key("asyncapi") {
        " (asyncapi is not supported)"
    } else {
        ""
    };
    Err(SpecError::new(SpecErrorKind::NotASpec, format!("not an api description{hint}: {EXPECTED}")))
}
