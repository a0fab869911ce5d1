//! The per-project MCP server: `/api/mcp/<slug>` (the default version) and
//! `/api/mcp/<slug>@<label>`, MCP over Streamable HTTP with the official
//! Rust SDK (rmcp), stateless, answering JSON.
//!
//! The route admits the caller first (`Hub::mcp_access`: public projects to
//! anyone, others to their MCP token or a member's personal access token;
//! 401 without a credential, 404 for one that cannot see the project), then
//! hands the request to rmcp with the admitted scope in its extensions. The
//! twelve tools read the version's description through the docs' cached
//! parse, search through the docs' index, call the API through the outbound
//! guard and the mock in-process. See docs/mcp.md.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use hub_core::docs::DocsVersion;
use hub_core::mcp::{McpAccess, McpMetered};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, InitializeResult,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
#[cfg(test)]
use serde_json::json;
use serde_json::{Map, Value};

use crate::docs_site::DocsServer;
use crate::error::ApiError;
use crate::mock_server::MockServer;

mod tools;

/// Largest MCP request body.
const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// Everything the tools use.
pub struct McpCore {
    pub(crate) hub: hub_core::Hub,
    pub(crate) docs: Arc<DocsServer>,
    pub(crate) mock: Arc<MockServer>,
    pub(crate) outbound: platform::outbound::Outbound,
    pub(crate) public_url: String,
}

/// The project and version a request was admitted to.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub access: McpAccess,
    pub label: Option<String>,
}

/// The rmcp handler: one per request (stateless), sharing the core.
#[derive(Clone)]
pub struct HubMcp(Arc<McpCore>);

/// The route's state: the core and the rmcp service.
pub struct McpState {
    core: Arc<McpCore>,
    service: StreamableHttpService<HubMcp, NeverSessionManager>,
}

impl McpState {
    pub fn new(core: McpCore) -> Arc<Self> {
        let core = Arc::new(core);
        // rmcp checks the Host header against this list (DNS rebinding):
        // the hub's own host, and loopback for local use.
        let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
        if let Ok(url) = url::Url::parse(&core.public_url)
            && let Some(host) = url.host_str()
        {
            hosts.push(host.to_owned());
            if let Some(port) = url.port() {
                hosts.push(format!("{host}:{port}"));
            }
        }
        let config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_sse_keep_alive(None)
            .with_allowed_hosts(hosts)
            .with_max_request_body_bytes(MAX_REQUEST_BYTES);
        let factory_core = core.clone();
        let service = StreamableHttpService::new(
            move || Ok(HubMcp(factory_core.clone())),
            Arc::new(NeverSessionManager::default()),
            config,
        );
        Arc::new(Self { core, service })
    }
}

/// `ANY /api/mcp/{target}`: admits the caller, then lets rmcp answer.
pub async fn handle(State(state): State<Arc<McpState>>, Path(target): Path<String>, mut request: Request) -> Response {
    let (slug, label) = match target.split_once('@') {
        Some((slug, label)) => (slug.to_owned(), Some(label.to_owned())),
        None => (target.clone(), None),
    };
    let authorization = request.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let access = match state.core.hub.mcp_access(&slug, authorization.as_deref()).await {
        Ok(access) => access,
        Err(error) => {
            let mut response = ApiError::from(error).into_response();
            if response.status() == axum::http::StatusCode::UNAUTHORIZED {
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"mcp\", error=\"invalid_token\""),
                );
            }
            return response;
        }
    };
    request.extensions_mut().insert(Scope { access, label });
    match tower::ServiceExt::oneshot(state.service.clone(), request).await {
        Ok(response) => response.map(Body::new),
        Err(never) => match never {},
    }
}

impl ServerHandler for HubMcp {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("svc-hub", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Tools over one API description hosted by the hub: list, search and read its endpoints and \
                 schemas, get examples, TypeScript types and the authentication it needs, ask a question \
                 answered from the description with citations, diff versions, and call the mock or the live API.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::definitions()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scope = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Scope>())
            .cloned()
            .ok_or_else(|| ErrorData::internal_error("the request carries no admitted project", None))?;
        if !tools::NAMES.contains(&request.name.as_ref()) {
            return Err(ErrorData::invalid_params(format!("no tool named `{}`", request.name), None));
        }
        let arguments = request.arguments.unwrap_or_default();
        let result = match self.0.hub.mcp_meter(&scope.access, McpMetered::Call).await {
            Ok(()) => tools::call(&self.0, &scope, &request.name, &arguments).await,
            Err(error) => Err(tools::ToolError::from(error)),
        };
        Ok(match result {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => CallToolResult::error(vec![ContentBlock::text(error.to_string())]),
        }
        .into())
    }
}

impl McpCore {
    /// The version a call works on, and the docs' parse of its description.
    async fn version(
        &self,
        scope: &Scope,
        label: Option<&str>,
    ) -> Result<(DocsVersion, Arc<docs_render::Site>), tools::ToolError> {
        let versions = self.hub.mcp_versions(&scope.access).await?;
        let wanted = label.or(scope.label.as_deref());
        let version = match wanted {
            Some(label) => versions.into_iter().find(|v| v.label == label),
            None => versions.into_iter().next(),
        }
        .ok_or_else(|| match wanted {
            Some(label) => tools::ToolError::new(format!("this project has no version `{label}`")),
            None => tools::ToolError::new("this project has no published version yet"),
        })?;
        let site =
            self.docs.site_for(&version.spec_sha256).await.map_err(|e| tools::ToolError::new(format!("{e:?}")))?;
        Ok((version, site))
    }

    fn docs_url(&self, slug: &str, label: &str, target: &str) -> String {
        format!("{}/docs/{slug}/{}/{target}", self.public_url.trim_end_matches('/'), docs_render::encode(label))
    }

    fn mcp_url(&self, slug: &str, label: &str) -> String {
        format!("{}/api/mcp/{slug}@{}", self.public_url.trim_end_matches('/'), docs_render::encode(label))
    }
}

/// A JSON object's field as text.
fn text<'a>(arguments: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    arguments.get(name).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}

/// A JSON object's field as a bounded whole number.
fn number(arguments: &Map<String, Value>, name: &str, default: usize, max: usize) -> usize {
    arguments.get(name).and_then(Value::as_u64).map_or(default, |n| usize::try_from(n).unwrap_or(max).min(max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_read_with_bounds() {
        let args: Map<String, Value> =
            serde_json::from_value(json!({ "q": "  pets ", "empty": " ", "n": 900, "neg": -1 })).unwrap();
        assert_eq!(text(&args, "q"), Some("pets"));
        assert_eq!(text(&args, "empty"), None);
        assert_eq!(number(&args, "n", 5, 100), 100);
        assert_eq!(number(&args, "neg", 5, 100), 5);
        assert_eq!(number(&args, "absent", 5, 100), 5);
    }
}
