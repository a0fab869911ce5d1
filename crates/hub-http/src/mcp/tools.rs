//! The twelve tools: their schemas and what they do.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Map, Value, json};
use spec::{Operation, Spec};

use super::{McpCore, Scope, number, text};
use hub_core::mcp::McpMetered;

/// Every tool, in the order `tools/list` gives them.
pub(crate) const NAMES: [&str; 12] = [
    "list_endpoints",
    "search_endpoints",
    "get_endpoint",
    "get_schema",
    "list_versions",
    "get_examples",
    "typescript_types",
    "ask_docs",
    "call_endpoint",
    "call_mock",
    "diff_versions",
    "get_auth",
];

/// Largest text of one tool answer (a response body, a schema): longer
/// ones are cut and say so.
const MAX_TEXT: usize = 256 * 1024;
/// Endpoints per `list_endpoints` page.
const MAX_PAGE: usize = 200;
/// Changes one `diff_versions` answer lists.
const MAX_CHANGES: usize = 200;

/// A tool's refusal, shown to the assistant as the tool's error text.
#[derive(Debug)]
pub(crate) struct ToolError(String);

impl ToolError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<hub_core::HubError> for ToolError {
    fn from(error: hub_core::HubError) -> Self {
        match error {
            hub_core::HubError::RateLimited { limit, retry_after_secs } => {
                Self(format!("rate limited: {limit} calls per minute for this project; retry in {retry_after_secs} s"))
            }
            hub_core::HubError::Internal(_) => Self("the hub could not finish this call; retry once".into()),
            other => Self(other.to_string()),
        }
    }
}

type ToolResult = Result<Value, ToolError>;
type JsonSchema = Arc<Map<String, Value>>;

fn schema(properties: Value, required: &[&str]) -> Arc<Map<String, Value>> {
    let mut map = Map::new();
    map.insert("type".into(), json!("object"));
    map.insert("properties".into(), properties);
    map.insert("required".into(), json!(required));
    map.insert("additionalProperties".into(), json!(false));
    Arc::new(map)
}

fn output(properties: Value, required: &[&str]) -> Arc<Map<String, Value>> {
    let mut map = Map::new();
    map.insert("type".into(), json!("object"));
    map.insert("properties".into(), properties);
    map.insert("required".into(), json!(required));
    Arc::new(map)
}

/// The tools with their input and output schemas.
pub(crate) fn definitions() -> Vec<Tool> {
    let version = json!({ "type": "string", "description": "A version label; the default version when absent." });
    let method = json!({ "type": "string", "description": "HTTP method (GET, POST, ...), or QUERY / MUTATION / SUBSCRIPTION for GraphQL." });
    let path = json!({ "type": "string", "description": "The path template as the description writes it (/pets/{id}), or the GraphQL field name." });
    let operation_id = json!({ "type": "string", "description": "The operationId, instead of method and path." });
    let call_props = json!({
        "method": { "type": "string" },
        "path": { "type": "string", "description": "The path with its parameters filled in (/pets/7)." },
        "query": { "type": "object", "additionalProperties": { "type": "string" } },
        "headers": { "type": "object", "additionalProperties": { "type": "string" }, "description": "Sent with this call only and never stored (credentials included)." },
        "body": { "anyOf": [{ "type": "object", "additionalProperties": true }, { "type": "array" }, { "type": "string" }], "description": "A JSON value, or text sent as it is." },
        "version": version,
    });
    let call_output = output(
        json!({
            "status": { "anyOf": [{ "type": "integer" }, { "type": "null" }], "description": "null when the API could not be reached (see error)" },
            "headers": { "type": "object", "additionalProperties": { "type": "string" } },
            "body": { "anyOf": [{ "type": "object", "additionalProperties": true }, { "type": "array" }, { "type": "string" }, { "type": "number" }, { "type": "boolean" }, { "type": "null" }] },
            "error": { "type": "string" },
        }),
        &["status"],
    );
    let defs: Vec<(&str, &str, JsonSchema, JsonSchema)> = vec![
        (
            "list_endpoints",
            "List the endpoints of the API (paged), optionally of one tag.",
            schema(
                json!({
                    "tag": { "type": "string" },
                    "offset": { "type": "integer", "minimum": 0 },
                    "limit": { "type": "integer", "minimum": 1, "maximum": MAX_PAGE },
                    "version": version,
                }),
                &[],
            ),
            output(
                json!({
                    "version": { "type": "string" },
                    "total": { "type": "integer" },
                    "endpoints": { "type": "array", "items": { "type": "object" } },
                    "next_offset": { "type": "integer", "description": "Absent on the last page." },
                }),
                &["version", "total", "endpoints"],
            ),
        ),
        (
            "search_endpoints",
            "Find the endpoints that answer a question or keywords (\"list the issues of a repository\"), best first.",
            schema(
                json!({
                    "query": { "type": "string", "minLength": 1, "maxLength": 200 },
                    "limit": { "type": "integer", "minimum": 1, "maximum": 20 },
                    "version": version,
                }),
                &["query"],
            ),
            output(
                json!({ "query": { "type": "string" }, "results": { "type": "array", "items": { "type": "object" } } }),
                &["query", "results"],
            ),
        ),
        (
            "get_endpoint",
            "Everything about one endpoint: parameters, request body, responses, security, and its docs page.",
            schema(json!({ "method": method, "path": path, "operationId": operation_id, "version": version }), &[]),
            output(
                json!({ "method": { "type": "string" }, "path": { "type": "string" }, "url": { "type": "string" } }),
                &["method", "path", "url"],
            ),
        ),
        (
            "get_schema",
            "One named schema (or GraphQL type) as the description defines it.",
            schema(json!({ "name": { "type": "string" }, "version": version }), &["name"]),
            output(
                json!({ "name": { "type": "string" }, "schema": { "type": "object", "additionalProperties": true } }),
                &["name", "schema"],
            ),
        ),
        (
            "list_versions",
            "The published versions of the API, the default first, with their docs and MCP addresses.",
            schema(json!({}), &[]),
            output(json!({ "versions": { "type": "array", "items": { "type": "object" } } }), &["versions"]),
        ),
        (
            "get_examples",
            "Example values for one endpoint: parameters, the request body and each response.",
            schema(json!({ "method": method, "path": path, "operationId": operation_id, "version": version }), &[]),
            output(
                json!({ "parameters": { "type": "object" }, "request": { "type": "object", "description": "Absent without a request body." }, "responses": { "type": "array" } }),
                &["parameters", "responses"],
            ),
        ),
        (
            "typescript_types",
            "TypeScript declarations for one schema or one endpoint (parameters, body, response), as the generated SDK declares them.",
            schema(
                json!({ "schema": { "type": "string" }, "method": method, "path": path, "operationId": operation_id, "version": version }),
                &[],
            ),
            output(json!({ "language": { "type": "string" }, "code": { "type": "string" } }), &["language", "code"]),
        ),
        (
            "ask_docs",
            "Answer a question from the API description, citing the endpoints and schemas it comes from; never names an endpoint the description does not have.",
            schema(
                json!({ "question": { "type": "string", "minLength": 1, "maxLength": 1000 }, "version": version }),
                &["question"],
            ),
            output(
                json!({ "answer": { "type": "string" }, "citations": { "type": "array", "items": { "type": "object" } }, "engine": { "type": "string" } }),
                &["answer", "citations"],
            ),
        ),
        (
            "call_endpoint",
            "Call the live API at the project's base URL (Pro plan and up; rate-limited). Credentials go in `headers` for this call only.",
            schema(call_props.clone(), &["method", "path"]),
            call_output.clone(),
        ),
        (
            "call_mock",
            "Call the project's hosted mock server, which answers from the description's examples and schemas.",
            schema(call_props, &["method", "path"]),
            call_output,
        ),
        (
            "diff_versions",
            "The changes between two versions, grouped as breaking, additive and cosmetic, with the semver advice (Pro plan and up).",
            schema(json!({ "from": { "type": "string" }, "to": { "type": "string" } }), &["from", "to"]),
            output(
                json!({ "from": { "type": "string" }, "to": { "type": "string" }, "bump": { "type": "string" }, "changes": { "type": "array" } }),
                &["from", "to", "bump", "changes"],
            ),
        ),
        (
            "get_auth",
            "How to authenticate: the security schemes and which of them the API requires.",
            schema(json!({ "version": version }), &[]),
            output(
                json!({ "schemes": { "type": "array" }, "required": { "type": "array" } }),
                &["schemes", "required"],
            ),
        ),
    ];
    defs.into_iter()
        .map(|(name, description, input, out)| Tool::new(name, description, input).with_raw_output_schema(out))
        .collect()
}

/// Runs one tool.
pub(crate) async fn call(core: &McpCore, scope: &Scope, name: &str, args: &Map<String, Value>) -> ToolResult {
    let label = text(args, "version");
    match name {
        "list_versions" => list_versions(core, scope).await,
        "diff_versions" => diff_versions(core, scope, args).await,
        "call_mock" => call_mock(core, scope, args).await,
        _ => {
            let (version, site) = core.version(scope, label).await?;
            let spec = site.spec();
            match name {
                "list_endpoints" => Ok(list_endpoints(spec, &version.label, args)),
                "search_endpoints" => search_endpoints(core, scope, &version, &site, args).await,
                "get_endpoint" => get_endpoint(core, scope, &version.label, &site, args),
                "get_schema" => get_schema(spec, args),
                "get_examples" => get_examples(spec, args),
                "typescript_types" => typescript_types(spec, args),
                "ask_docs" => ask_docs(core, scope, &version, &site, args).await,
                "call_endpoint" => call_endpoint(core, scope, &version, &site, args).await,
                "get_auth" => Ok(get_auth(spec)),
                _ => Err(ToolError::new(format!("no tool named `{name}`"))),
            }
        }
    }
}

/// Endpoints as the tools name them: REST operations, and GraphQL root
/// fields as `QUERY name`, `MUTATION name`, `SUBSCRIPTION name`.
fn endpoints(spec: &Spec) -> Vec<Value> {
    let mut out: Vec<Value> = spec
        .operations
        .iter()
        .map(|op| {
            json!({
                "method": op.method.as_str(),
                "path": op.path,
                "operationId": op.operation_id,
                "summary": op.summary,
                "tags": op.tags,
                "deprecated": op.deprecated,
            })
        })
        .collect();
    if let Some(model) = &spec.graphql {
        for (kind, fields) in
            [("QUERY", &model.queries), ("MUTATION", &model.mutations), ("SUBSCRIPTION", &model.subscriptions)]
        {
            out.extend(fields.iter().map(|f| {
                json!({ "method": kind, "path": f.name, "summary": f.description, "tags": [], "deprecated": f.deprecated })
            }));
        }
    }
    out
}

fn list_endpoints(spec: &Spec, label: &str, args: &Map<String, Value>) -> Value {
    let tag = text(args, "tag");
    let offset = number(args, "offset", 0, usize::MAX);
    let limit = number(args, "limit", 50, MAX_PAGE).max(1);
    let all: Vec<Value> = endpoints(spec)
        .into_iter()
        .filter(|e| tag.is_none_or(|t| e["tags"].as_array().is_some_and(|tags| tags.iter().any(|x| x == t))))
        .collect();
    let total = all.len();
    let page: Vec<Value> = all.into_iter().skip(offset).take(limit).collect();
    let mut out = Map::new();
    out.insert("version".into(), json!(label));
    out.insert("total".into(), json!(total));
    out.insert("endpoints".into(), Value::Array(page));
    if offset.saturating_add(limit) < total {
        out.insert("next_offset".into(), json!(offset + limit));
    }
    Value::Object(out)
}

/// The operation an argument set names (method and path, or operationId).
fn find_operation<'s>(spec: &'s Spec, args: &Map<String, Value>) -> Result<&'s Operation, ToolError> {
    if let Some(id) = text(args, "operationId") {
        return spec.operations.iter().find(|op| op.operation_id.as_deref() == Some(id)).ok_or_else(|| {
            ToolError::new(format!("no operation has the operationId `{id}`; search_endpoints finds it by words"))
        });
    }
    let (Some(method), Some(path)) = (text(args, "method"), text(args, "path")) else {
        return Err(ToolError::new("name the endpoint by `method` and `path`, or by `operationId`"));
    };
    spec.operations.iter().find(|op| op.method.as_str().eq_ignore_ascii_case(method) && op.path == path).ok_or_else(
        || {
            ToolError::new(format!(
                "no endpoint {} {path} in this version; list_endpoints shows them all",
                method.to_ascii_uppercase()
            ))
        },
    )
}

/// The docs page target of an operation (`op/<key>`).
fn target_of(site: &docs_render::Site, op: &Operation) -> Option<String> {
    let index = site.spec().operations.iter().position(|o| std::ptr::eq(o, op))?;
    site.operation_keys().get(index).map(|key| format!("op/{}", docs_render::encode(key)))
}

fn get_endpoint(
    core: &McpCore,
    scope: &Scope,
    label: &str,
    site: &docs_render::Site,
    args: &Map<String, Value>,
) -> ToolResult {
    let spec = site.spec();
    if spec.graphql.is_some() {
        return graphql_field(spec, args);
    }
    let op = find_operation(spec, args)?;
    let url = target_of(site, op).map(|t| core.docs_url(&scope.access.slug, label, &t)).unwrap_or_default();
    let security: Vec<Value> = spec
        .effective_security(op)
        .iter()
        .map(|requirement| json!(requirement.schemes.keys().collect::<Vec<_>>()))
        .collect();
    let value = json!({
        "method": op.method.as_str(),
        "path": op.path,
        "operationId": op.operation_id,
        "summary": op.summary,
        "description": op.description,
        "tags": op.tags,
        "deprecated": op.deprecated,
        "parameters": op.parameters,
        "requestBody": op.request_body,
        "responses": op.responses,
        "security": security,
        "url": url,
    });
    bounded(value)
}

fn graphql_field(spec: &Spec, args: &Map<String, Value>) -> ToolResult {
    let model = spec.graphql.as_ref().ok_or_else(|| ToolError::new("not a GraphQL description"))?;
    let (Some(kind), Some(name)) = (text(args, "method"), text(args, "path")) else {
        return Err(ToolError::new("name the field by `method` (QUERY, MUTATION, SUBSCRIPTION) and `path` (its name)"));
    };
    let fields = match kind.to_ascii_uppercase().as_str() {
        "QUERY" => &model.queries,
        "MUTATION" => &model.mutations,
        "SUBSCRIPTION" => &model.subscriptions,
        _ => return Err(ToolError::new("`method` is QUERY, MUTATION or SUBSCRIPTION for a GraphQL API")),
    };
    let field =
        fields.iter().find(|f| f.name == name).ok_or_else(|| ToolError::new(format!("no {kind} field `{name}`")))?;
    bounded(json!({ "method": kind.to_ascii_uppercase(), "path": field.name, "url": "", "field": field }))
}

fn get_schema(spec: &Spec, args: &Map<String, Value>) -> ToolResult {
    let name = text(args, "name").ok_or_else(|| ToolError::new("`name` is required"))?;
    if let Some(schema) = spec.schemas.get(name) {
        return bounded(json!({ "name": name, "schema": schema }));
    }
    if let Some(ty) = spec.graphql.as_ref().and_then(|m| m.types.get(name)) {
        return bounded(json!({ "name": name, "schema": ty }));
    }
    let lower = name.to_lowercase();
    let close: Vec<&String> = spec.schemas.keys().filter(|k| k.to_lowercase().contains(&lower)).take(10).collect();
    Err(ToolError::new(format!(
        "no schema named `{name}`{}",
        if close.is_empty() { String::new() } else { format!("; close: {close:?}") }
    )))
}

async fn list_versions(core: &McpCore, scope: &Scope) -> ToolResult {
    let versions = core.hub.mcp_versions(&scope.access).await?;
    let slug = &scope.access.slug;
    let list: Vec<Value> = versions
        .iter()
        .map(|v| {
            json!({
                "label": v.label,
                "default": v.is_default,
                "preview": v.is_preview,
                "docs_url": format!("{}/docs/{slug}/{}", core.public_url.trim_end_matches('/'), docs_render::encode(&v.label)),
                "mcp_url": core.mcp_url(slug, &v.label),
            })
        })
        .collect();
    Ok(json!({ "versions": list }))
}

fn get_examples(spec: &Spec, args: &Map<String, Value>) -> ToolResult {
    use docs_render::examples::{media_example, parameter_example};
    use mock::sample::Direction;
    let op = find_operation(spec, args)?;
    let parameters: Map<String, Value> = op
        .parameters
        .iter()
        .filter_map(|p| parameter_example(spec, p).map(|e| (p.name.clone(), Value::String(e))))
        .collect();
    let request = op.request_body.as_ref().and_then(|b| b.content.iter().next()).and_then(|(media, content)| {
        media_example(spec, content, Direction::Request).map(|e| json!({ "media_type": media, "example": e }))
    });
    let responses: Vec<Value> = op
        .responses
        .iter()
        .flat_map(|(status, response)| {
            response.content.iter().filter_map(move |(media, content)| {
                media_example(spec, content, Direction::Response)
                    .map(|e| json!({ "status": status, "media_type": media, "example": e }))
            })
        })
        .collect();
    let mut out = Map::new();
    out.insert("parameters".into(), Value::Object(parameters));
    out.insert("responses".into(), Value::Array(responses));
    if let Some(request) = request {
        out.insert("request".into(), request);
    }
    bounded(Value::Object(out))
}

fn typescript_types(spec: &Spec, args: &Map<String, Value>) -> ToolResult {
    let of = match text(args, "schema") {
        Some(name) => sdkgen::TypesOf::Schema(name),
        None => {
            let op = find_operation(spec, args)?;
            return typescript_of(spec, sdkgen::TypesOf::Operation(op.method.as_str(), &op.path));
        }
    };
    typescript_of(spec, of)
}

fn typescript_of(spec: &Spec, of: sdkgen::TypesOf<'_>) -> ToolResult {
    match sdkgen::typescript_types(spec, of) {
        Ok(Some(code)) => bounded(json!({ "language": "typescript", "code": code })),
        Ok(None) => Err(ToolError::new("no such schema or endpoint in this version")),
        Err(error) => Err(ToolError::new(error.to_string())),
    }
}

/// Search hits of the docs' index for a question, operations resolved.
async fn search(
    core: &McpCore,
    version: &hub_core::docs::DocsVersion,
    site: &Arc<docs_render::Site>,
    query: &str,
) -> Result<Vec<hub_core::docs::SearchHit>, ToolError> {
    let sections_site = site.clone();
    Ok(core
        .hub
        .docs_search(&version.spec_sha256, query, move || hub_core::docs::search_sections(&sections_site))
        .await?)
}

async fn search_endpoints(
    core: &McpCore,
    scope: &Scope,
    version: &hub_core::docs::DocsVersion,
    site: &Arc<docs_render::Site>,
    args: &Map<String, Value>,
) -> ToolResult {
    let query = text(args, "query").ok_or_else(|| ToolError::new("`query` is required"))?;
    let query: String = query.chars().take(200).collect();
    let limit = number(args, "limit", 5, 20).max(1);
    let hits = search(core, version, site, &query).await?;
    let spec = site.spec();
    let results: Vec<Value> = hits
        .into_iter()
        .filter(|h| h.target.starts_with("op/") || h.target.starts_with("graphql/"))
        .take(limit)
        .map(|h| {
            let (method, path) = h.title.split_once(' ').unwrap_or(("", h.title.as_str()));
            let summary = hub_core::assistant::operation_of(spec, &h.title).and_then(|op| op.summary.clone());
            json!({
                "method": method,
                "path": path,
                "summary": summary,
                "snippet": h.body,
                "url": core.docs_url(&scope.access.slug, &version.label, &h.target),
            })
        })
        .collect();
    Ok(json!({ "query": query, "results": results }))
}

/// The offline answer (`hub_core::assistant`): the best operations the
/// index finds, described from the description alone, each cited with its
/// docs page. An assistant calling this tool is a model itself, so the
/// project's chat tokens are not spent on a second one.
async fn ask_docs(
    core: &McpCore,
    scope: &Scope,
    version: &hub_core::docs::DocsVersion,
    site: &Arc<docs_render::Site>,
    args: &Map<String, Value>,
) -> ToolResult {
    let question = text(args, "question").ok_or_else(|| ToolError::new("`question` is required"))?;
    let ask = hub_core::assistant::AskScope {
        project_id: &scope.access.project_id,
        owner_id: &scope.access.owner_id,
        owner_plan: scope.access.owner_plan,
        spec_sha256: &version.spec_sha256,
        spec: site.spec(),
        base_url: version.base_url.as_deref().or(scope.access.base_url.as_deref()),
        visitor: "mcp",
    };
    let sections_site = site.clone();
    let answer = core.hub.ask_offline(&ask, question, move || hub_core::docs::search_sections(&sections_site)).await?;
    let citations: Vec<Value> = answer
        .citations
        .iter()
        .map(|c| {
            json!({ "n": c.n, "title": c.title, "url": core.docs_url(&scope.access.slug, &version.label, &c.target) })
        })
        .collect();
    Ok(json!({ "answer": answer.answer, "citations": citations, "engine": answer.engine }))
}

/// The request a call tool sends, from its arguments.
struct Call {
    method: String,
    path: String,
    query: Vec<(String, String)>,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

fn call_args(args: &Map<String, Value>) -> Result<Call, ToolError> {
    let method = text(args, "method").ok_or_else(|| ToolError::new("`method` is required"))?.to_ascii_uppercase();
    let path = text(args, "path").ok_or_else(|| ToolError::new("`path` is required"))?;
    if !path.starts_with('/') || path.starts_with("//") {
        return Err(ToolError::new("`path` starts with a single `/`"));
    }
    let pairs = |name: &str| -> Result<Vec<(String, String)>, ToolError> {
        match args.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    other => Ok((k.clone(), other.to_string())),
                })
                .collect(),
            Some(_) => Err(ToolError::new(format!("`{name}` is an object of strings"))),
        }
    };
    let body = match args.get("body") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => Some(other.to_string()),
    };
    Ok(Call { method, path: path.to_owned(), query: pairs("query")?, headers: pairs("headers")?, body })
}

fn with_query(path: &str, query: &[(String, String)]) -> String {
    if query.is_empty() {
        return path.to_owned();
    }
    let encoded = serde_urlencoded::to_string(query).unwrap_or_default();
    format!("{path}{}{encoded}", if path.contains('?') { "&" } else { "?" })
}

async fn call_endpoint(
    core: &McpCore,
    scope: &Scope,
    version: &hub_core::docs::DocsVersion,
    site: &Arc<docs_render::Site>,
    args: &Map<String, Value>,
) -> ToolResult {
    let call = call_args(args)?;
    core.hub.mcp_meter(&scope.access, McpMetered::LiveCall).await?;
    let spec = site.spec();
    let base = version
        .base_url
        .clone()
        .or_else(|| scope.access.base_url.clone())
        .or_else(|| spec.servers.first().map(|s| s.url.clone()).filter(|u| u.starts_with("http")))
        .ok_or_else(|| ToolError::new("this project has no base URL to call; set one in its settings"))?;
    let url = format!("{}{}", base.trim_end_matches('/'), with_query(&call.path, &call.query));
    let mut has_content_type = false;
    let headers: Map<String, Value> = call
        .headers
        .iter()
        .map(|(k, v)| {
            has_content_type |= k.eq_ignore_ascii_case("content-type");
            (k.clone(), Value::String(v.clone()))
        })
        .collect();
    let mut headers = headers;
    if call.body.is_some() && !has_content_type && matches!(args.get("body"), Some(Value::Object(_) | Value::Array(_)))
    {
        headers.insert("Content-Type".into(), json!("application/json"));
    }
    let wire = json!({ "method": call.method, "url": url, "headers": headers, "body": call.body });
    let request = hub_core::tryit::RelayRequest::parse(wire.to_string().as_bytes(), &[base])?;
    let answer = hub_core::tryit::relay(&core.outbound, request).await?;
    let Value::Object(mut answer) = answer else { return Err(ToolError::new("the relay answered no object")) };
    // The relay lists headers as pairs; an assistant reads an object.
    let mut headers = Map::new();
    if let Some(Value::Array(pairs)) = answer.get("headers") {
        for pair in pairs {
            let (Some(name), Some(value)) = (pair.get(0).and_then(Value::as_str), pair.get(1).and_then(Value::as_str))
            else {
                continue;
            };
            match headers.get_mut(name) {
                Some(Value::String(existing)) => {
                    existing.push_str(", ");
                    existing.push_str(value);
                }
                _ => {
                    headers.insert(name.to_owned(), Value::String(value.to_owned()));
                }
            }
        }
    }
    answer.insert("headers".into(), Value::Object(headers));
    // A JSON body is returned as JSON, like call_mock's.
    let parsed = answer.get("body").and_then(Value::as_str).and_then(|b| serde_json::from_str::<Value>(b).ok());
    if let Some(parsed) = parsed {
        answer.insert("body".into(), parsed);
    }
    let answer = Value::Object(answer);
    bounded(answer)
}

async fn call_mock(core: &McpCore, scope: &Scope, args: &Map<String, Value>) -> ToolResult {
    let call = call_args(args)?;
    let method = axum::http::Method::from_bytes(call.method.as_bytes())
        .map_err(|_| ToolError::new(format!("`{}` is not an HTTP method", call.method)))?;
    let target = match text(args, "version").or(scope.label.as_deref()) {
        Some(label) => format!("{}@{}", scope.access.slug, docs_render::encode(label)),
        None => scope.access.slug.clone(),
    };
    let uri = format!("/mock/{target}{}", with_query(&call.path, &call.query));
    let mut builder = axum::http::Request::builder().method(method).uri(&uri);
    let mut has_content_type = false;
    for (name, value) in &call.headers {
        has_content_type |= name.eq_ignore_ascii_case("content-type");
        builder = builder.header(name.as_str(), value.as_str());
    }
    if call.body.is_some() && !has_content_type {
        builder = builder.header("content-type", "application/json");
    }
    let request = builder
        .body(axum::body::Body::from(call.body.unwrap_or_default()))
        .map_err(|e| ToolError::new(format!("the request could not be built: {e}")))?;
    let response = crate::mock_server::serve(axum::extract::State(core.mock.clone()), request).await;
    let status = response.status().as_u16();
    let headers: Map<String, Value> = response
        .headers()
        .iter()
        .filter(|(name, _)| {
            !matches!(name.as_str(), "content-security-policy" | "x-content-type-options" | "vary")
                && !name.as_str().starts_with("access-control-")
        })
        .filter_map(|(name, value)| value.to_str().ok().map(|v| (name.to_string(), Value::String(v.to_owned()))))
        .collect();
    let bytes = platform::http::read_body_limited(&axum::http::HeaderMap::new(), response.into_body(), MAX_TEXT)
        .await
        .map_err(|_| ToolError::new(format!("the mock's answer is larger than {MAX_TEXT} bytes")))?;
    let body = serde_json::from_slice::<Value>(&bytes)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
    Ok(json!({ "status": status, "headers": headers, "body": body }))
}

async fn diff_versions(core: &McpCore, scope: &Scope, args: &Map<String, Value>) -> ToolResult {
    let (Some(from), Some(to)) = (text(args, "from"), text(args, "to")) else {
        return Err(ToolError::new("`from` and `to` name two versions (list_versions shows them)"));
    };
    core.hub.mcp_meter(&scope.access, McpMetered::Diff).await?;
    let (old_version, old) = core.version(scope, Some(from)).await?;
    let (new_version, new) = core.version(scope, Some(to)).await?;
    let report = {
        let (old, new) = (old.clone(), new.clone());
        tokio::task::spawn_blocking(move || diff::diff(old.spec(), new.spec()))
            .await
            .map_err(|e| ToolError::new(format!("the diff did not finish: {e}")))?
            .map_err(|e| ToolError::new(e.to_string()))?
    };
    let total = report.changes.len();
    let changes: Vec<&diff::Change> = report.changes.iter().take(MAX_CHANGES).collect();
    Ok(json!({
        "from": old_version.label,
        "to": new_version.label,
        "bump": report.bump.as_str(),
        "summary": report.summary,
        "total_changes": total,
        "changes": changes,
    }))
}

fn get_auth(spec: &Spec) -> Value {
    let schemes: Vec<Value> = spec
        .security_schemes
        .iter()
        .map(|(name, scheme)| {
            let how = match &scheme.kind {
                spec::SecuritySchemeKind::ApiKey { name: key, location } => {
                    let place = match location {
                        spec::ApiKeyLocation::Header => "header",
                        spec::ApiKeyLocation::Query => "query parameter",
                        spec::ApiKeyLocation::Cookie => "cookie",
                    };
                    format!("send the key in the {place} `{key}`")
                }
                spec::SecuritySchemeKind::Http { scheme: s, .. } if s == "bearer" => {
                    "send `Authorization: Bearer <token>`".to_owned()
                }
                spec::SecuritySchemeKind::Http { scheme: s, .. } if s == "basic" => {
                    "send `Authorization: Basic base64(user:password)`".to_owned()
                }
                spec::SecuritySchemeKind::Http { scheme: s, .. } => format!("HTTP `{s}` authentication"),
                other => serde_json::to_value(other)
                    .ok()
                    .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_default(),
            };
            json!({ "name": name, "scheme": scheme.kind, "how": how, "description": scheme.description })
        })
        .collect();
    let required: Vec<Value> = spec.security.iter().map(|r| json!(r.schemes.keys().collect::<Vec<_>>())).collect();
    json!({ "schemes": schemes, "required": required })
}

/// Refuses an answer whose JSON is larger than an assistant should read.
fn bounded(value: Value) -> ToolResult {
    let size = serde_json::to_string(&value).map_or(0, |s| s.len());
    if size > MAX_TEXT {
        return Err(ToolError::new(format!(
            "the answer is {size} bytes, more than the {MAX_TEXT} a tool returns; ask for a smaller part (get_schema for one schema)"
        )));
    }
    Ok(value)
}
