//! GraphQL mocking (rule 3) on apollo-compiler's executor.
//!
//! The query is parsed and validated against the schema, then executed by
//! apollo-compiler with one generic resolver that answers every field from
//! its declared type: `ID` as a UUID, `DateTime` as an ISO timestamp, lists
//! of two items, enums' first value, abstract types as their first
//! implementation. Execution is therefore selection-set aware, with
//! fragments, inline fragments, aliases, variables and `__typename` handled
//! by the executor, and introspection is on so GraphiQL and code generators
//! work against the mock. Every error comes back as `{"errors": [...]}` with
//! HTTP 200.

use std::cell::Cell;

use apollo_compiler::ast::{OperationType, Type};
use apollo_compiler::collections::HashMap;
use apollo_compiler::executable::ExecutableDocument;
use apollo_compiler::resolvers::{Execution, FieldError, ObjectValue, ResolveInfo, ResolvedValue};
use apollo_compiler::response::{JsonMap, JsonValue};
use apollo_compiler::schema::{ExtendedType, Implementers};
use apollo_compiler::validation::Valid;
use apollo_compiler::{Name, Schema};
use bytes::Bytes;
use http::StatusCode;
use http::header::{CONTENT_TYPE, HeaderValue};
use serde_json::{Value, json};

use crate::{Context, Reply, Request, Settings, Synth};

/// Items in every generated list.
const LIST_LENGTH: usize = 2;
/// Largest accepted query text.
const MAX_QUERY_BYTES: usize = 256 * 1024;

/// A schema ready to execute queries.
pub struct GraphQlEngine {
    schema: Valid<Schema>,
    implementers: HashMap<Name, Implementers>,
}

impl GraphQlEngine {
    pub fn new(source: &str) -> Result<Self, String> {
        let schema = Schema::parse_and_validate(source, "schema.graphql").map_err(|e| e.errors.to_string())?;
        let implementers = schema.implementers_map();
        Ok(Self { schema, implementers })
    }

    /// Answers a GraphQL-over-HTTP request (POST JSON, or GET `?query=`).
    pub fn respond(&self, request: &Request<'_>, _settings: &Settings, _ctx: &mut Context<'_>) -> Reply {
        let body = match parse_request(request) {
            Ok(body) => body,
            Err(message) => return errors_reply(&[json!({ "message": message })]),
        };
        let response = self.execute(&body);
        let mut reply = Reply::new(StatusCode::OK, Synth::GraphQlSchemaWalk);
        reply.headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        reply.body = Bytes::from(serde_json::to_vec(&response).unwrap_or_default());
        reply
    }

    /// Executes one request body `{query, variables, operationName}`.
    #[must_use]
    pub fn execute(&self, body: &Value) -> Value {
        let Some(query) = body.get("query").and_then(Value::as_str) else {
            return json!({ "errors": [{ "message": "the request has no `query` string" }] });
        };
        if query.len() > MAX_QUERY_BYTES {
            return json!({ "errors": [{ "message": format!("the query is larger than {MAX_QUERY_BYTES} bytes") }] });
        }
        let document = match ExecutableDocument::parse_and_validate(&self.schema, query, "query.graphql") {
            Ok(document) => document,
            Err(with_errors) => {
                let errors: Vec<Value> = with_errors
                    .errors
                    .iter()
                    .map(|d| serde_json::to_value(d.to_json()).unwrap_or(Value::Null))
                    .collect();
                return json!({ "errors": errors });
            }
        };
        let variables: JsonMap = match body.get("variables") {
            None | Some(Value::Null) => JsonMap::new(),
            Some(value @ Value::Object(_)) => match serde_json::from_value::<JsonMap>(value.clone()) {
                Ok(map) => map,
                Err(err) => return json!({ "errors": [{ "message": format!("invalid variables: {err}") }] }),
            },
            Some(_) => return json!({ "errors": [{ "message": "`variables` must be an object" }] }),
        };
        let operation_name = body.get("operationName").and_then(Value::as_str);
        let execution = match Execution::new(&self.schema, &document)
            .implementers_map(&self.implementers)
            .raw_variable_values(&variables)
            .enable_schema_introspection(true)
            .operation_name(operation_name)
        {
            Ok(execution) => execution,
            Err(err) => return json!({ "errors": [err.to_graphql_error(&document.sources)] }),
        };
        let operation_type = match document.operations.get(operation_name) {
            Ok(operation) => operation.operation_type,
            Err(err) => return json!({ "errors": [err.to_graphql_error(&document.sources)] }),
        };
        if operation_type == OperationType::Subscription {
            return json!({ "errors": [{ "message": "subscriptions are not served over HTTP by the mock" }] });
        }
        let Some(root) = self.schema.root_operation(operation_type) else {
            return json!({ "errors": [{ "message": "the schema has no root type for this operation" }] });
        };
        let root = MockObject { engine: self, type_name: root.clone(), counter: Cell::new(0) };
        match execution.execute_sync(&root) {
            Ok(response) => serde_json::to_value(response).unwrap_or(Value::Null),
            Err(err) => json!({ "errors": [err.to_graphql_error(&document.sources)] }),
        }
    }

    /// The concrete object type used for an abstract one.
    fn concrete(&self, name: &str) -> Option<Name> {
        match self.schema.types.get(name)? {
            ExtendedType::Object(_) => Name::new(name).ok(),
            ExtendedType::Interface(_) => {
                let implementers = self.implementers.get(name)?;
                let mut objects: Vec<&Name> = implementers.objects.iter().collect();
                objects.sort();
                objects.first().map(|n| (*n).clone())
            }
            ExtendedType::Union(union) => union.members.iter().next().map(|m| m.name.clone()),
            _ => None,
        }
    }
}

fn errors_reply(errors: &[Value]) -> Reply {
    let mut reply = Reply::new(StatusCode::OK, Synth::GraphQlSchemaWalk);
    reply.headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    reply.body = Bytes::from(serde_json::to_vec(&json!({ "errors": errors })).unwrap_or_default());
    reply
}

fn parse_request(request: &Request<'_>) -> Result<Value, String> {
    if request.method == http::Method::GET {
        let pairs = crate::negotiate::parse_query(request.query);
        let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        let query = get("query").ok_or("a GET request needs a `query` parameter")?;
        let variables = match get("variables") {
            Some(text) => serde_json::from_str(&text).map_err(|e| format!("`variables` is not JSON: {e}"))?,
            None => Value::Null,
        };
        return Ok(json!({ "query": query, "variables": variables, "operationName": get("operationName") }));
    }
    if request.method != http::Method::POST {
        return Err("send GraphQL requests with POST (or GET with `query`)".to_owned());
    }
    let content_type = request.headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if content_type.starts_with("application/graphql") {
        let text = std::str::from_utf8(request.body).map_err(|_| "the body is not UTF-8")?;
        return Ok(json!({ "query": text }));
    }
    let value: Value = serde_json::from_slice(request.body).map_err(|e| format!("the body is not JSON: {e}"))?;
    if !value.is_object() {
        return Err("the body must be a JSON object with `query`".to_owned());
    }
    Ok(value)
}

/// The operation name a GraphQL request names (for override matching):
/// `operationName`, else the first named operation of the query.
#[must_use]
pub fn operation_name(body: &Value) -> Option<String> {
    if let Some(name) = body.get("operationName").and_then(Value::as_str) {
        return Some(name.to_owned());
    }
    let query = body.get("query")?.as_str()?;
    if query.len() > MAX_QUERY_BYTES {
        return None;
    }
    let document = apollo_compiler::ast::Document::parse(query, "query.graphql").ok()?;
    document.definitions.iter().find_map(|definition| match definition {
        apollo_compiler::ast::Definition::OperationDefinition(op) => op.name.as_ref().map(ToString::to_string),
        _ => None,
    })
}

struct MockObject<'a> {
    engine: &'a GraphQlEngine,
    type_name: Name,
    counter: Cell<u64>,
}

impl ObjectValue for MockObject<'_> {
    fn type_name(&self) -> &str {
        self.type_name.as_str()
    }

    fn resolve_field<'a>(&'a self, info: &'a ResolveInfo<'a>) -> Result<ResolvedValue<'a>, FieldError> {
        let definition = info.field_definition();
        Ok(self.value(&definition.ty, info.field_name(), 0))
    }
}

impl<'e> MockObject<'e> {
    fn value<'a>(&'a self, ty: &Type, field: &str, seed: u64) -> ResolvedValue<'a> {
        match ty {
            Type::NonNullNamed(name) | Type::Named(name) => self.named(name, field, seed),
            Type::NonNullList(inner) | Type::List(inner) => {
                let inner = inner.as_ref().clone();
                let field = field.to_owned();
                ResolvedValue::list((0..LIST_LENGTH as u64).map(move |i| self.value(&inner, &field, seed * 10 + i + 1)))
            }
        }
    }

    fn named<'a>(&'a self, name: &Name, field: &str, seed: u64) -> ResolvedValue<'a> {
        match self.engine.schema.types.get(name) {
            Some(ExtendedType::Enum(enumeration)) => enumeration
                .values
                .keys()
                .next()
                .map_or_else(ResolvedValue::null, |value| ResolvedValue::leaf(value.as_str())),
            Some(ExtendedType::Object(_) | ExtendedType::Interface(_) | ExtendedType::Union(_)) => {
                match self.engine.concrete(name) {
                    Some(concrete) => ResolvedValue::object(MockObject {
                        engine: self.engine,
                        type_name: concrete,
                        counter: Cell::new(self.counter.get() * 31 + seed + 1),
                    }),
                    None => ResolvedValue::null(),
                }
            }
            _ => ResolvedValue::leaf(self.scalar(name.as_str(), field, seed)),
        }
    }

    fn scalar(&self, name: &str, field: &str, seed: u64) -> JsonValue {
        let n = self.counter.get().wrapping_mul(7919).wrapping_add(seed);
        match name {
            "ID" => JsonValue::from(uuid_for(n)),
            "Int" => JsonValue::from(i64::try_from(n % 100).unwrap_or(0) + 1),
            "Float" => JsonValue::from(1.5 + f64::from(u32::try_from(n % 10).unwrap_or(0))),
            "Boolean" => JsonValue::from(true),
            "DateTime" | "Timestamp" | "Instant" => JsonValue::from("2024-01-15T09:30:00.000Z"),
            "Date" => JsonValue::from("2024-01-15"),
            "Time" => JsonValue::from("09:30:00Z"),
            "URL" | "Url" | "URI" | "Uri" => JsonValue::from("https://example.com/resource"),
            "Email" | "EmailAddress" => JsonValue::from("user@example.com"),
            "UUID" | "Uuid" => JsonValue::from(uuid_for(n)),
            "JSON" | "JSONObject" => JsonValue::Object(JsonMap::new()),
            "BigInt" | "Long" => JsonValue::from("1"),
            _ => JsonValue::from(field_sample(field)),
        }
    }
}

fn field_sample(field: &str) -> String {
    let lower = field.to_ascii_lowercase();
    if lower.contains("email") {
        "user@example.com".to_owned()
    } else if lower.contains("name") {
        "Ada Lovelace".to_owned()
    } else if lower.ends_with("url") {
        "https://example.com/resource".to_owned()
    } else {
        format!("{field} sample")
    }
}

/// A stable version-4-shaped UUID for a counter value.
fn uuid_for(n: u64) -> String {
    let mixed = u128::from(n.wrapping_mul(0x9E37_79B9_7F4A_7C15)) << 64 | u128::from(n ^ 0xD1B5_4A32_D192_ED03);
    uuid::Builder::from_random_bytes(mixed.to_be_bytes()).into_uuid().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDL: &str = r#"
        scalar DateTime
        interface Node { id: ID! }
        type User implements Node { id: ID! name: String! joined: DateTime role: Role! posts(first: Int): [Post!]! }
        type Post implements Node { id: ID! title: String! }
        union Result = User | Post
        enum Role { ADMIN MEMBER }
        type Query { me: User! node(id: ID!): Node search(term: String!): [Result!]! }
        type Mutation { rename(name: String!): User! }
    "#;

    #[test]
    fn selection_aware_with_fragments_aliases_and_variables() {
        let engine = GraphQlEngine::new(SDL).unwrap();
        let out = engine.execute(&json!({
            "query": "query Q($id: ID!) { me { ...U posts(first: 2) { title } } who: node(id: $id) { __typename ... on User { name } } search(term: \"x\") { ... on User { role } } } fragment U on User { id joined role }",
            "variables": {"id": "1"}
        }));
        assert!(out.get("errors").is_none(), "{out}");
        let me = &out["data"]["me"];
        assert_eq!(me.as_object().unwrap().len(), 4, "only selected fields: {me}");
        assert!(uuid::Uuid::parse_str(me["id"].as_str().unwrap()).is_ok());
        assert_eq!(me["joined"], "2024-01-15T09:30:00.000Z");
        assert_eq!(me["role"], "ADMIN");
        assert_eq!(me["posts"].as_array().unwrap().len(), 2);
        assert_eq!(out["data"]["who"]["__typename"], "Post", "first implementation by name");
        assert_eq!(out["data"]["search"][0]["role"], "ADMIN");
    }

    #[test]
    fn errors_and_introspection() {
        let engine = GraphQlEngine::new(SDL).unwrap();
        let out = engine.execute(&json!({"query": "{ me { id nope } }"}));
        assert!(
            out["errors"].as_array().unwrap().iter().any(|e| e["message"].as_str().unwrap().contains("`nope`")),
            "{out}"
        );
        let out = engine.execute(&json!({"query": "{ __schema { queryType { name } types { name } } }"}));
        assert_eq!(out["data"]["__schema"]["queryType"]["name"], "Query");
        let out = engine.execute(&json!({"query": "mutation { rename(name: \"x\") { name } }"}));
        assert_eq!(out["data"]["rename"]["name"], "Ada Lovelace");
        assert_eq!(operation_name(&json!({"query": "query Named { me { id } }"})).as_deref(), Some("Named"));
    }
}
