//! The normalised model every consumer (docs, mock, diff, SDK generation,
//! MCP) reads.
//!
//! The shapes follow OpenAPI 3.x: a Swagger 2.0 document is upgraded into
//! them, so no consumer needs a second code path. JSON Schemas stay
//! `serde_json::Value` with their `$ref`s intact, because inlining them would
//! blow up large descriptions and lose the names docs and SDKs show; use
//! [`Spec::resolve`] to follow a reference.

use std::fmt;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::graphql::GraphQlModel;

/// Which kind of description a [`Spec`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpecFormat {
    /// OpenAPI 3.0.x or 3.1.x.
    OpenApi3,
    /// Swagger 2.0 (OpenAPI 2.0).
    Swagger2,
    /// GraphQL schema definition language.
    GraphQl,
}

impl SpecFormat {
    /// Stable lowercase name: `openapi3`, `swagger2` or `graphql`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenApi3 => "openapi3",
            Self::Swagger2 => "swagger2",
            Self::GraphQl => "graphql",
        }
    }

    /// Whether this is an HTTP (REST) description rather than GraphQL.
    #[must_use]
    pub fn is_rest(self) -> bool {
        !matches!(self, Self::GraphQl)
    }
}

impl fmt::Display for SpecFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One parsed, normalised API description.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub format: SpecFormat,
    /// The `openapi` or `swagger` field as written ("3.0.3", "3.1.0", "2.0");
    /// empty for GraphQL.
    pub source_version: String,
    pub title: String,
    /// `info.version`; empty for GraphQL.
    pub api_version: String,
    pub description: Option<String>,
    /// `info.summary` (OpenAPI 3.1).
    pub summary: Option<String>,
    pub terms_of_service: Option<String>,
    pub contact: Option<Contact>,
    pub license: Option<License>,
    pub external_docs: Option<ExternalDocs>,
    /// Base URLs; Swagger's `schemes`, `host` and `basePath` become one server
    /// per scheme.
    pub servers: Vec<Server>,
    /// REST operations in document order, path-level parameters merged in.
    pub operations: Vec<Operation>,
    /// OpenAPI 3.1 `webhooks`: operations the API calls on the consumer; the
    /// operation's `path` holds the webhook's name.
    pub webhooks: Vec<Operation>,
    /// Named schemas (`components.schemas`, or Swagger `definitions`), with
    /// `$ref`s kept and Swagger refs rewritten to `#/components/schemas/..`.
    pub schemas: IndexMap<String, Value>,
    /// The other component sections (`responses`, `parameters`, `examples`,
    /// `requestBodies`, `headers`, `links`, `callbacks`, `pathItems`) as
    /// written, so that any `#/components/..` reference can be resolved.
    pub components: IndexMap<String, IndexMap<String, Value>>,
    pub security_schemes: IndexMap<String, SecurityScheme>,
    /// Document-level security: any one requirement must be met.
    pub security: Vec<SecurityRequirement>,
    pub tags: Vec<Tag>,
    /// Present exactly when `format` is GraphQL.
    pub graphql: Option<GraphQlModel>,
    /// Targets of local references that point outside `components` (for
    /// example into `#/paths/..`), copied when parsing because `paths` itself
    /// is not kept; keyed by the reference as written.
    pub(crate) detached_targets: IndexMap<String, Value>,
}

impl Spec {
    /// Number of operations: REST operations (webhooks excluded), or the
    /// root fields of Query, Mutation and Subscription for GraphQL.
    #[must_use]
    pub fn operation_count(&self) -> usize {
        match &self.graphql {
            Some(model) => model.queries.len() + model.mutations.len() + model.subscriptions.len(),
            None => self.operations.len(),
        }
    }

    /// Follows a local reference (`#/components/schemas/Pet`,
    /// `#/components/schemas/Pet/properties/id`, ...) to its target, one step:
    /// a target that is itself a `$ref` is returned as is. `None` for external
    /// or unknown references.
    #[must_use]
    pub fn resolve(&self, reference: &str) -> Option<&Value> {
        if let Some(target) = self.detached_targets.get(reference) {
            return Some(target);
        }
        let pointer = crate::refs::decode_fragment(reference)?;
        let mut segments = crate::refs::segments(&pointer);
        if segments.next().as_deref() != Some("components") {
            return None;
        }
        let section = segments.next()?;
        let name = segments.next()?;
        let root = if section == "schemas" {
            self.schemas.get(name.as_ref())?
        } else {
            self.components.get(section.as_ref())?.get(name.as_ref())?
        };
        segments.try_fold(root, |node, segment| crate::refs::step(node, &segment))
    }

    /// Follows `$ref`s from `value` until a node that is not a reference,
    /// giving up after a fixed number of hops (parsing already refused
    /// reference cycles, so this only guards hand-built models).
    #[must_use]
    pub fn resolve_value<'a>(&'a self, mut value: &'a Value) -> Option<&'a Value> {
        for _ in 0..64 {
            match value.get("$ref").and_then(Value::as_str) {
                Some(reference) => value = self.resolve(reference)?,
                None => return Some(value),
            }
        }
        None
    }

    /// The operation with this `operationId`.
    #[must_use]
    pub fn operation_by_id(&self, operation_id: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.operation_id.as_deref() == Some(operation_id))
    }

    /// The security an operation requires: its own when set (an empty list
    /// opts out), otherwise the document's.
    #[must_use]
    pub fn effective_security<'a>(&'a self, operation: &'a Operation) -> &'a [SecurityRequirement] {
        operation.security.as_deref().unwrap_or(&self.security)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Contact {
    pub name: Option<String>,
    pub url: Option<String>,
    pub email: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct License {
    pub name: String,
    pub url: Option<String>,
    /// SPDX identifier (OpenAPI 3.1).
    pub identifier: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExternalDocs {
    pub url: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Server {
    /// May contain `{variable}` placeholders, see `variables`.
    pub url: String,
    pub description: Option<String>,
    pub variables: IndexMap<String, ServerVariable>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ServerVariable {
    pub default: String,
    pub allowed: Vec<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HttpMethod {
    Get,
    Put,
    Post,
    Delete,
    Options,
    Head,
    Patch,
    Trace,
}

impl HttpMethod {
    pub const ALL: [Self; 8] =
        [Self::Get, Self::Put, Self::Post, Self::Delete, Self::Options, Self::Head, Self::Patch, Self::Trace];

    /// The HTTP method token: `GET`, `POST`, ...
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Put => "PUT",
            Self::Post => "POST",
            Self::Delete => "DELETE",
            Self::Options => "OPTIONS",
            Self::Head => "HEAD",
            Self::Patch => "PATCH",
            Self::Trace => "TRACE",
        }
    }

    /// The key used for this method in a path item: `get`, `post`, ...
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Put => "put",
            Self::Post => "post",
            Self::Delete => "delete",
            Self::Options => "options",
            Self::Head => "head",
            Self::Patch => "patch",
            Self::Trace => "trace",
        }
    }

    /// Parses a path-item key (`get`) or method token (`GET`), ignoring case.
    #[must_use]
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|method| method.key().eq_ignore_ascii_case(key))
    }
}

impl fmt::Display for HttpMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One REST operation: a method on a path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    pub method: HttpMethod,
    /// The path template as written (`/pets/{petId}`), or a webhook's name.
    pub path: String,
    pub operation_id: Option<String>,
    pub summary: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    pub deprecated: bool,
    /// Path-level and operation-level parameters merged (the operation's win
    /// by name and location), `$ref`s resolved.
    pub parameters: Vec<Parameter>,
    pub request_body: Option<RequestBody>,
    /// By status code as written (`200`, `4XX`, `default`), in document order.
    pub responses: IndexMap<String, Response>,
    /// `None`: the document-level security applies. `Some(vec![])`: the
    /// operation opts out of security.
    pub security: Option<Vec<SecurityRequirement>>,
    /// Servers that override the document's for this operation.
    pub servers: Vec<Server>,
    /// Callbacks as written (`$ref`s kept).
    pub callbacks: IndexMap<String, Value>,
    pub external_docs: Option<ExternalDocs>,
    /// `x-` extensions of the operation.
    pub extensions: IndexMap<String, Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParameterLocation {
    Path,
    Query,
    Header,
    Cookie,
}

impl ParameterLocation {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Query => "query",
            Self::Header => "header",
            Self::Cookie => "cookie",
        }
    }

    pub(crate) fn parse(value: &str) -> Option<Self> {
        match value {
            "path" => Some(Self::Path),
            "query" => Some(Self::Query),
            "header" => Some(Self::Header),
            "cookie" => Some(Self::Cookie),
            _ => None,
        }
    }
}

impl fmt::Display for ParameterLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub name: String,
    pub location: ParameterLocation,
    pub description: Option<String>,
    /// Always true for path parameters.
    pub required: bool,
    pub deprecated: bool,
    pub allow_empty_value: bool,
    pub style: Option<String>,
    pub explode: Option<bool>,
    /// The schema (with `$ref`s kept); `None` when the parameter uses `content`.
    pub schema: Option<Value>,
    pub example: Option<Value>,
    pub examples: IndexMap<String, Example>,
    /// Alternative to `schema` for complex serialisations.
    pub content: IndexMap<String, MediaType>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RequestBody {
    pub description: Option<String>,
    pub required: bool,
    /// By media type (`application/json`, `multipart/form-data`, ...).
    pub content: IndexMap<String, MediaType>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MediaType {
    pub schema: Option<Value>,
    pub example: Option<Value>,
    pub examples: IndexMap<String, Example>,
    /// `encoding` as written (multipart and form bodies).
    pub encoding: IndexMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Example {
    pub summary: Option<String>,
    pub description: Option<String>,
    pub value: Option<Value>,
    pub external_value: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Response {
    pub description: String,
    pub headers: IndexMap<String, Header>,
    pub content: IndexMap<String, MediaType>,
    /// Links as written.
    pub links: IndexMap<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Header {
    pub description: Option<String>,
    pub required: bool,
    pub deprecated: bool,
    pub schema: Option<Value>,
    pub example: Option<Value>,
    pub examples: IndexMap<String, Example>,
    pub content: IndexMap<String, MediaType>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityScheme {
    pub description: Option<String>,
    pub kind: SecuritySchemeKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum SecuritySchemeKind {
    /// A key in a header, query parameter or cookie called `name`.
    ApiKey {
        name: String,
        location: ApiKeyLocation,
    },
    /// HTTP authentication; `scheme` is lowercased (`basic`, `bearer`, ...).
    Http {
        scheme: String,
        bearer_format: Option<String>,
    },
    OAuth2 {
        flows: Vec<OAuthFlow>,
    },
    OpenIdConnect {
        url: String,
    },
    MutualTls,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApiKeyLocation {
    Header,
    Query,
    Cookie,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthFlow {
    pub kind: OAuthFlowKind,
    pub authorization_url: Option<String>,
    pub token_url: Option<String>,
    pub refresh_url: Option<String>,
    /// Scope name to description.
    pub scopes: IndexMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OAuthFlowKind {
    Implicit,
    Password,
    ClientCredentials,
    AuthorizationCode,
}

/// One way to satisfy security: every named scheme (with the listed scopes)
/// must be present. An empty requirement means anonymous access is allowed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecurityRequirement {
    pub schemes: IndexMap<String, Vec<String>>,
}

impl SecurityRequirement {
    /// True for `{}`, which allows unauthenticated access.
    #[must_use]
    pub fn is_anonymous(&self) -> bool {
        self.schemes.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tag {
    pub name: String,
    pub description: Option<String>,
    pub external_docs: Option<ExternalDocs>,
}

/// The JSON types a schema admits, reading both OpenAPI 3.0 (`type: string`
/// plus `nullable: true`, or Swagger's `x-nullable`) and 3.1 (`type:
/// [string, "null"]`). `types` excludes `null`; an empty list means the
/// schema does not constrain the type.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SchemaTypes<'a> {
    pub types: Vec<&'a str>,
    pub nullable: bool,
}

/// Reads the type and nullability of one schema node (without following
/// `$ref`).
#[must_use]
pub fn schema_types(schema: &Value) -> SchemaTypes<'_> {
    let mut result = SchemaTypes::default();
    match schema.get("type") {
        Some(Value::String(ty)) => result.types.push(ty.as_str()),
        Some(Value::Array(list)) => result.types.extend(list.iter().filter_map(Value::as_str)),
        _ => {}
    }
    if result.types.contains(&"null") {
        result.nullable = true;
        result.types.retain(|ty| *ty != "null");
    }
    if schema.get("nullable").and_then(Value::as_bool) == Some(true)
        || schema.get("x-nullable").and_then(Value::as_bool) == Some(true)
    {
        result.nullable = true;
    }
    result
}
