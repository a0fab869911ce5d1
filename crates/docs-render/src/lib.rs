//! Server-rendered API reference pages from the normalised [`spec::Spec`].
//!
//! Pure: no I/O, no store. The hub prepares a [`Site`] once per document
//! (operation keys, the navigation by tag), passes a [`Chrome`] (project
//! name, versions, branding, header, badge, per-endpoint markdown) and asks
//! for one [`Page`] at a time, so even a description with a thousand
//! operations renders one operation per request. Templates are minijinja
//! with auto-escaping on; the only unescaped HTML comes from
//! [`markdown::render`], which sanitises. Every asset the pages load is in
//! [`assets`]: nothing comes from a CDN.

pub mod assets;
pub mod callbacks;
pub mod examples;
pub mod highlight;
pub mod markdown;
pub mod samples;
pub mod schema_view;
pub mod theme;

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use minijinja::{Environment, context};
use serde::Serialize;
use serde_json::Value;
use spec::{GraphQlField, GraphQlInputValue, GraphQlTypeKind, Operation, SecuritySchemeKind, Spec};

pub use theme::{Palette, Theme};

/// Above this many operations the navigation lists tags, and the operations
/// of the current tag only (each page stays small for huge descriptions).
pub const FULL_NAV_MAX_OPERATIONS: usize = 150;
/// Above this many root fields the GraphQL overview lists fields and types
/// by name, each field on its own page.
pub const GRAPHQL_FULL_MAX_FIELDS: usize = 60;
/// Examples are cut past this many bytes on a page.
const MAX_EXAMPLE_BYTES: usize = 16 * 1024;

/// A document prepared for rendering: operation keys and the tag groups.
#[derive(Debug)]
pub struct Site {
    spec: Spec,
    keys: Vec<String>,
    by_key: HashMap<String, usize>,
    groups: Vec<Group>,
    quick: OnceLock<QuickIndex>,
}

/// The small prebuilt index the quick-search overlay filters instantly:
/// one `[kind, title, subtitle, target]` entry per operation, webhook,
/// schema, tag and GraphQL field or type, as JSON, with a content hash for
/// its cache-busting URL.
#[derive(Debug, Clone)]
pub struct QuickIndex {
    pub json: String,
    pub hash: String,
}

#[derive(Debug)]
struct Group {
    name: String,
    description: Option<String>,
    operations: Vec<usize>,
}

/// One entry of the version switcher.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct VersionLink {
    pub label: String,
    pub is_default: bool,
    pub is_preview: bool,
}

/// A call-to-action button of the docs header.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct HeaderButton {
    pub label: String,
    pub url: String,
    /// `solid`, `outline` or `ghost`.
    pub variant: String,
}

/// A plain-text link of the docs header.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct HeaderLink {
    pub label: String,
    pub url: String,
}

/// The docs header as the owner configured it (already validated).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct Header {
    pub logo_url: Option<String>,
    pub title: Option<String>,
    pub buttons: Vec<HeaderButton>,
    pub links: Vec<HeaderLink>,
    pub search: bool,
}

/// Owner-written markdown around one endpoint.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq, Hash)]
pub struct EndpointMarkdown {
    /// Above the parameters.
    pub intro: Option<String>,
    /// Below the Try-It panel.
    pub extras: Option<String>,
}

/// Everything around the reference itself, decided by the hub per request.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Chrome {
    pub project_name: String,
    /// Where this project's docs live: `/docs/<slug>`, or empty on a custom
    /// domain (served at its root).
    pub base: String,
    /// Where the assets are served (`/_docs`).
    pub asset_base: String,
    pub versions: Vec<VersionLink>,
    /// The label of the version shown.
    pub label: String,
    /// The API's base URL for Try-It (the version's override, else the
    /// project's), when set.
    pub base_url: Option<String>,
    /// The hosted mock of this version, when it is open.
    pub mock_url: Option<String>,
    /// The dashboard's new-request form of this project (saved requests,
    /// Pro and up), which Try-It's "Save as a request" opens prefilled.
    pub save_url: Option<String>,
    pub logo_url: Option<String>,
    pub favicon_url: Option<String>,
    pub theme: Option<Theme>,
    pub header: Header,
    /// The 'Powered by' footer badge.
    pub show_badge: bool,
    /// Keyed by endpoint: `GET /pets/{id}` (REST) or `query book` (GraphQL).
    pub endpoint_markdown: BTreeMap<String, EndpointMarkdown>,
    /// Search hits, on the search page.
    pub search: Option<SearchResults>,
    /// Which parts of the docs assistant the page offers.
    pub assistant: Assistant,
}

/// The docs assistant on a page: AI answers in the quick search (`ask`,
/// posted to `<version>/_ask`) and the chat drawer (`chat`, posted to
/// `<version>/_chat`).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Assistant {
    pub ask: bool,
    pub chat: bool,
}

/// What the search page shows.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct SearchResults {
    pub query: String,
    pub hits: Vec<SearchHit>,
}

#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct SearchHit {
    /// Path below the version's base (`op/listPets`, `schemas/Pet`).
    pub target: String,
    pub title: String,
    pub snippet: String,
}

/// A page of a version's docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page<'a> {
    Overview,
    Operation(&'a str),
    Tag(&'a str),
    Schemas,
    Schema(&'a str),
    /// A GraphQL type.
    Type(&'a str),
    /// A GraphQL root field: `query`, `mutation` or `subscription`, and its name.
    Field(&'a str, &'a str),
    Search,
}

/// One searchable piece of a document (the hub indexes these).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Section {
    pub target: String,
    pub title: String,
    pub body: String,
}

impl Site {
    /// Prepares `spec` for rendering.
    #[must_use]
    pub fn new(spec: Spec) -> Self {
        let mut keys = Vec::with_capacity(spec.operations.len());
        let mut by_key = HashMap::with_capacity(spec.operations.len());
        // Webhooks follow the operations: their pages are `op/webhook-<name>`.
        for (index, operation) in spec.operations.iter().chain(&spec.webhooks).enumerate() {
            let base = if index < spec.operations.len() {
                operation_key(operation)
            } else {
                let mut folded = String::from("webhook-");
                for ch in operation.path.chars().take(100) {
                    if ch.is_ascii_alphanumeric() || ch == '_' {
                        folded.push(ch.to_ascii_lowercase());
                    } else if !folded.ends_with('-') {
                        folded.push('-');
                    }
                }
                folded.trim_end_matches('-').to_owned()
            };
            let mut key = base.clone();
            let mut n = 2;
            while by_key.contains_key(&key) {
                key = format!("{base}-{n}");
                n += 1;
            }
            by_key.insert(key.clone(), index);
            keys.push(key);
        }
        let mut groups: Vec<Group> = spec
            .tags
            .iter()
            .map(|tag| Group { name: tag.name.clone(), description: tag.description.clone(), operations: Vec::new() })
            .collect();
        let mut untagged = Vec::new();
        for (index, operation) in spec.operations.iter().enumerate() {
            if operation.tags.is_empty() {
                untagged.push(index);
            }
            for tag in &operation.tags {
                match groups.iter_mut().find(|g| &g.name == tag) {
                    Some(group) => group.operations.push(index),
                    None => groups.push(Group { name: tag.clone(), description: None, operations: vec![index] }),
                }
            }
        }
        groups.retain(|g| !g.operations.is_empty());
        if !untagged.is_empty() {
            let name = if groups.is_empty() { "Operations" } else { "Other" };
            groups.push(Group { name: name.to_owned(), description: None, operations: untagged });
        }
        if !spec.webhooks.is_empty() {
            groups.push(Group {
                name: "Webhooks".to_owned(),
                description: Some("Requests this API sends to your endpoints.".to_owned()),
                operations: (spec.operations.len()..spec.operations.len() + spec.webhooks.len()).collect(),
            });
        }
        Self { spec, keys, by_key, groups, quick: OnceLock::new() }
    }

    /// The quick-search index of this document (built once).
    pub fn quick_index(&self) -> &QuickIndex {
        self.quick.get_or_init(|| {
            let mut entries: Vec<[String; 4]> = Vec::new();
            for (index, (key, operation)) in
                self.keys.iter().zip(self.spec.operations.iter().chain(&self.spec.webhooks)).enumerate()
            {
                let kind = if index < self.spec.operations.len() {
                    operation.method.as_str().to_owned()
                } else {
                    "webhook".to_owned()
                };
                let title = operation
                    .summary
                    .as_deref()
                    .map(|s| markdown::first_line(s, 100))
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| operation.path.clone());
                entries.push([kind, title, operation.path.clone(), format!("op/{}", encode(key))]);
            }
            for group in &self.groups {
                entries.push([
                    "tag".to_owned(),
                    group.name.clone(),
                    format!("{} operations", group.operations.len()),
                    format!("tags/{}", encode(&group.name)),
                ]);
            }
            for (name, schema) in &self.spec.schemas {
                let sub = schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| markdown::first_line(d, 80))
                    .unwrap_or_default();
                entries.push(["schema".to_owned(), name.clone(), sub, format!("schemas/{}", encode(name))]);
            }
            if let Some(model) = &self.spec.graphql {
                for (kind, fields) in
                    [("query", &model.queries), ("mutation", &model.mutations), ("subscription", &model.subscriptions)]
                {
                    for field in fields {
                        entries.push([
                            kind.to_owned(),
                            field.name.clone(),
                            field.ty.to_string(),
                            format!("graphql/{kind}/{}", encode(&field.name)),
                        ]);
                    }
                }
                for (name, ty) in &model.types {
                    entries.push([
                        kind_name(ty.kind).to_owned(),
                        name.clone(),
                        ty.description.as_deref().map(|d| markdown::first_line(d, 80)).unwrap_or_default(),
                        format!("types/{}", encode(name)),
                    ]);
                }
            }
            let json = serde_json::to_string(&entries).unwrap_or_else(|_| "[]".to_owned());
            let hash = {
                use sha2::Digest;
                hex::encode(sha2::Sha256::digest(json.as_bytes())).chars().take(16).collect()
            };
            QuickIndex { json, hash }
        })
    }

    #[must_use]
    pub const fn spec(&self) -> &Spec {
        &self.spec
    }

    /// The key of each operation, in document order (its page is `op/<key>`).
    #[must_use]
    pub fn operation_keys(&self) -> &[String] {
        &self.keys
    }

    /// The operation whose page is `op/<key>`.
    #[must_use]
    pub fn operation(&self, key: &str) -> Option<&Operation> {
        self.by_key.get(key).and_then(|index| self.op_at(*index))
    }

    /// The operation at `index`, webhooks counted after the operations.
    fn op_at(&self, index: usize) -> Option<&Operation> {
        self.spec
            .operations
            .get(index)
            .or_else(|| self.spec.webhooks.get(index.checked_sub(self.spec.operations.len())?))
    }

    /// Whether the page `op/<key>` is a webhook's.
    fn is_webhook(&self, key: &str) -> bool {
        self.by_key.get(key).is_some_and(|index| *index >= self.spec.operations.len())
    }

    /// The searchable sections of the document: operations, schemas, tags,
    /// GraphQL fields and types, with their plain text.
    #[must_use]
    pub fn sections(&self) -> Vec<Section> {
        let mut out = Vec::new();
        for (key, operation) in self.keys.iter().zip(self.spec.operations.iter().chain(&self.spec.webhooks)) {
            let mut body = String::new();
            for text in [&operation.summary, &operation.description, &operation.operation_id].into_iter().flatten() {
                body.push_str(text);
                body.push('\n');
            }
            for parameter in &operation.parameters {
                body.push_str(&parameter.name);
                body.push(' ');
                if let Some(text) = &parameter.description {
                    body.push_str(text);
                    body.push('\n');
                }
            }
            out.push(Section {
                target: format!("op/{}", encode(key)),
                title: format!("{} {}", operation.method, operation.path),
                body,
            });
        }
        for (name, schema) in &self.spec.schemas {
            let mut body = String::new();
            if let Some(text) = schema.get("description").and_then(Value::as_str) {
                body.push_str(text);
            }
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (property, value) in properties {
                    body.push('\n');
                    body.push_str(property);
                    if let Some(text) = value.get("description").and_then(Value::as_str) {
                        body.push(' ');
                        body.push_str(text);
                    }
                }
            }
            out.push(Section { target: format!("schemas/{}", encode(name)), title: name.clone(), body });
        }
        if let Some(model) = &self.spec.graphql {
            for (kind, fields) in [("query", &model.queries), ("mutation", &model.mutations)] {
                for field in fields {
                    out.push(Section {
                        target: format!("graphql/{kind}/{}", encode(&field.name)),
                        title: format!("{kind} {}", field.name),
                        body: field.description.clone().unwrap_or_default(),
                    });
                }
            }
            for (name, ty) in &model.types {
                let mut body = ty.description.clone().unwrap_or_default();
                for field in &ty.fields {
                    body.push('\n');
                    body.push_str(&field.name);
                }
                out.push(Section { target: format!("types/{}", encode(name)), title: name.clone(), body });
            }
        }
        out
    }
}

/// `operationId` when it is URL-friendly, else `<method>-<path>` folded.
fn operation_key(operation: &Operation) -> String {
    if let Some(id) = &operation.operation_id
        && !id.is_empty()
        && id.len() <= 120
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return id.clone();
    }
    let mut key = operation.method.key().to_owned();
    for ch in operation.path.chars() {
        if ch.is_ascii_alphanumeric() {
            key.push(ch.to_ascii_lowercase());
        } else if !key.ends_with('-') {
            key.push('-');
        }
    }
    key.trim_end_matches('-').chars().take(120).collect()
}

/// Percent-encodes one URL path segment (everything but unreserved bytes).
#[must_use]
pub fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// Keeps http(s) URLs and site-relative paths; anything else becomes `#`.
fn safe_url(url: &str) -> String {
    let lower = url.trim().to_ascii_lowercase();
    if lower.starts_with("https://")
        || lower.starts_with("http://")
        || (lower.starts_with('/') && !lower.starts_with("//"))
    {
        url.trim().to_owned()
    } else {
        "#".to_owned()
    }
}

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, source) in [
            ("base.html", include_str!("../templates/base.html")),
            ("overview.html", include_str!("../templates/overview.html")),
            ("operation.html", include_str!("../templates/operation.html")),
            ("tag.html", include_str!("../templates/tag.html")),
            ("schemas.html", include_str!("../templates/schemas.html")),
            ("schema.html", include_str!("../templates/schema.html")),
            ("graphql.html", include_str!("../templates/graphql.html")),
            ("type.html", include_str!("../templates/type.html")),
            ("search.html", include_str!("../templates/search.html")),
            ("macros.html", include_str!("../templates/macros.html")),
            ("message.html", include_str!("../templates/message.html")),
            ("signin.html", include_str!("../templates/signin.html")),
            ("signout.html", include_str!("../templates/signout.html")),
            ("field.html", include_str!("../templates/field.html")),
        ] {
            // A template that does not compile is a build defect the unit
            // tests catch; rendering it then fails with `try_render`'s error.
            let _ = env.add_template(name, source);
        }
        env.add_filter("url", |value: String| safe_url(&value));
        env.add_filter("enc", |value: String| minijinja::Value::from_safe_string(encode(&value)));
        // The default escaper also escapes `/`, which bloats every URL;
        // `&`, `<`, `>` and both quotes are enough in content and in quoted
        // attributes (every attribute in the templates is quoted).
        env.set_formatter(|out, state, value| {
            if !value.is_safe()
                && let Some(text) = value.as_str()
                && state.auto_escape() != minijinja::AutoEscape::None
            {
                return out.write_str(&escape(text)).map_err(minijinja::Error::from);
            }
            minijinja::escape_formatter(out, state, value)
        });
        env
    })
}

#[derive(Serialize)]
struct NavOp {
    key: String,
    method: &'static str,
    label: String,
    deprecated: bool,
}

#[derive(Serialize)]
struct NavGroup {
    name: String,
    count: usize,
    open: bool,
    ops: Vec<NavOp>,
}

fn nav_op(site: &Site, index: usize) -> Option<NavOp> {
    let operation = site.op_at(index)?;
    let key = site.keys.get(index)?;
    let label = operation
        .summary
        .as_deref()
        .map(|s| markdown::first_line(s, 80))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| operation.path.clone());
    Some(NavOp { key: key.clone(), method: operation.method.as_str(), label, deprecated: operation.deprecated })
}

fn nav(site: &Site, current_group: Option<&str>) -> Vec<NavGroup> {
    let full = site.spec.operations.len() <= FULL_NAV_MAX_OPERATIONS;
    site.groups
        .iter()
        .map(|group| {
            let open = full || current_group == Some(group.name.as_str());
            NavGroup {
                name: group.name.clone(),
                count: group.operations.len(),
                open: current_group == Some(group.name.as_str()) || (full && site.groups.len() <= 12),
                ops: if open { group.operations.iter().filter_map(|i| nav_op(site, *i)).collect() } else { Vec::new() },
            }
        })
        .collect()
}

#[derive(Serialize)]
struct ParamView {
    name: String,
    location: &'static str,
    required: bool,
    deprecated: bool,
    ty: String,
    ref_name: Option<String>,
    description_html: String,
    example: Option<String>,
    /// What the Try-It field starts with (the example, else a generated
    /// value for a required parameter).
    value: Option<String>,
    constraints: Vec<String>,
    /// The Try-It field: its input kind and the checks the browser makes.
    input: ParamInput,
}

/// How a parameter's Try-It field is drawn and checked in the browser.
#[derive(Serialize, Default)]
struct ParamInput {
    /// `text`, `number` or `select` (enums and booleans).
    kind: &'static str,
    options: Vec<String>,
    pattern: Option<String>,
    min: Option<String>,
    max: Option<String>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    step: Option<&'static str>,
}

fn param_input(spec: &Spec, schema: Option<&Value>) -> ParamInput {
    let Some(schema) = schema.and_then(|s| spec.resolve_value(s)) else {
        return ParamInput { kind: "text", ..ParamInput::default() };
    };
    let types = spec::schema_types(schema).types;
    let scalar = |key: &str| schema.get(key).filter(|v| v.is_number()).map(Value::to_string);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let options = values
            .iter()
            .filter(|v| !v.is_null())
            .take(200)
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
            .collect();
        return ParamInput { kind: "select", options, ..ParamInput::default() };
    }
    if types.contains(&"boolean") {
        return ParamInput {
            kind: "select",
            options: vec!["true".to_owned(), "false".to_owned()],
            ..ParamInput::default()
        };
    }
    if types.contains(&"integer") || types.contains(&"number") {
        let integer = types.contains(&"integer");
        return ParamInput {
            kind: "number",
            min: scalar("minimum"),
            max: scalar("maximum"),
            step: Some(if integer { "1" } else { "any" }),
            ..ParamInput::default()
        };
    }
    ParamInput {
        kind: "text",
        pattern: schema.get("pattern").and_then(Value::as_str).map(str::to_owned),
        min_length: schema.get("minLength").and_then(Value::as_u64),
        max_length: schema.get("maxLength").and_then(Value::as_u64),
        ..ParamInput::default()
    }
}

#[derive(Serialize)]
struct MediaView {
    media: String,
    rows: Vec<schema_view::Row>,
    example: Option<String>,
    /// The example highlighted on the server (escaped HTML).
    example_html: Option<String>,
    is_json: bool,
}

/// A credential field of the Try-It panel.
#[derive(Serialize)]
struct AuthField {
    /// The scheme's name in the document.
    name: String,
    /// `bearer`, `basic`, `apikey`, `oauth2` or `openid`.
    kind: &'static str,
    /// `header`, `query` or `cookie` (API keys and bearer tokens).
    location: &'static str,
    /// The header, query parameter or cookie name (API keys).
    param: String,
    label: String,
    flows: Vec<FlowView>,
}

#[derive(Serialize)]
struct FlowView {
    /// `authorization_code`, `client_credentials`, `password`, `implicit`.
    kind: &'static str,
    authorization_url: Option<String>,
    token_url: Option<String>,
    scopes: Vec<String>,
}

fn auth_fields(spec: &Spec, operation: &Operation) -> Vec<AuthField> {
    let mut out: Vec<AuthField> = Vec::new();
    for requirement in spec.effective_security(operation).iter() {
        for name in requirement.schemes.keys() {
            if out.iter().any(|f| &f.name == name) {
                continue;
            }
            let Some(scheme) = spec.security_schemes.get(name) else { continue };
            let field = match &scheme.kind {
                SecuritySchemeKind::ApiKey { name: param, location } => AuthField {
                    name: name.clone(),
                    kind: "apikey",
                    location: match location {
                        spec::ApiKeyLocation::Header => "header",
                        spec::ApiKeyLocation::Query => "query",
                        spec::ApiKeyLocation::Cookie => "cookie",
                    },
                    param: param.clone(),
                    label: format!("{name}: API key ({param})"),
                    flows: Vec::new(),
                },
                SecuritySchemeKind::Http { scheme: http, .. } if http == "basic" => AuthField {
                    name: name.clone(),
                    kind: "basic",
                    location: "header",
                    param: "Authorization".to_owned(),
                    label: format!("{name}: HTTP basic"),
                    flows: Vec::new(),
                },
                SecuritySchemeKind::Http { .. } => AuthField {
                    name: name.clone(),
                    kind: "bearer",
                    location: "header",
                    param: "Authorization".to_owned(),
                    label: format!("{name}: bearer token"),
                    flows: Vec::new(),
                },
                SecuritySchemeKind::OAuth2 { flows } => AuthField {
                    name: name.clone(),
                    kind: "oauth2",
                    location: "header",
                    param: "Authorization".to_owned(),
                    label: format!("{name}: OAuth 2 access token"),
                    flows: flows
                        .iter()
                        .map(|f| FlowView {
                            kind: match f.kind {
                                spec::OAuthFlowKind::Implicit => "implicit",
                                spec::OAuthFlowKind::Password => "password",
                                spec::OAuthFlowKind::ClientCredentials => "client_credentials",
                                spec::OAuthFlowKind::AuthorizationCode => "authorization_code",
                            },
                            authorization_url: f.authorization_url.as_deref().map(safe_url),
                            token_url: f.token_url.as_deref().map(safe_url),
                            scopes: f.scopes.keys().cloned().collect(),
                        })
                        .collect(),
                },
                SecuritySchemeKind::OpenIdConnect { .. } => AuthField {
                    name: name.clone(),
                    kind: "bearer",
                    location: "header",
                    param: "Authorization".to_owned(),
                    label: format!("{name}: OpenID Connect token"),
                    flows: Vec::new(),
                },
                SecuritySchemeKind::MutualTls => continue,
            };
            out.push(field);
        }
    }
    out
}

/// An example highlighted when its media type is JSON.
fn example_html(text: &str, media: &str) -> String {
    if examples::is_json(media) { highlight::html(text, "json") } else { escape(text) }
}

#[derive(Serialize)]
struct ResponseView {
    status: String,
    /// The description's first line, plain text.
    summary: String,
    class: &'static str,
    description_html: String,
    headers: Vec<ParamView>,
    media: Vec<MediaView>,
}

#[derive(Serialize)]
struct SchemeView {
    name: String,
    kind: String,
    scopes: Vec<String>,
    description_html: String,
}

#[derive(Serialize)]
struct TryTarget {
    label: String,
    url: String,
}

fn media_views(
    spec: &Spec,
    content: &indexmap::IndexMap<String, spec::MediaType>,
    direction: mock::sample::Direction,
) -> Vec<MediaView> {
    content
        .iter()
        .map(|(media, content)| {
            let example = examples::media_example(spec, content, direction)
                .map(|v| examples::display(&v, media, MAX_EXAMPLE_BYTES));
            MediaView {
                media: media.clone(),
                rows: content.schema.as_ref().map(|s| schema_view::rows(spec, s)).unwrap_or_default(),
                example_html: example.as_deref().map(|text| example_html(text, media)),
                example,
                is_json: examples::is_json(media),
            }
        })
        .collect()
}

fn scheme_kind(kind: &SecuritySchemeKind) -> String {
    match kind {
        SecuritySchemeKind::ApiKey { name, location } => format!(
            "API key in {} `{name}`",
            match location {
                spec::ApiKeyLocation::Header => "header",
                spec::ApiKeyLocation::Query => "query",
                spec::ApiKeyLocation::Cookie => "cookie",
            }
        ),
        SecuritySchemeKind::Http { scheme, bearer_format } => match bearer_format {
            Some(format) => format!("HTTP {scheme} ({format})"),
            None => format!("HTTP {scheme}"),
        },
        SecuritySchemeKind::OAuth2 { flows } => {
            let kinds: Vec<&str> = flows
                .iter()
                .map(|f| match f.kind {
                    spec::OAuthFlowKind::Implicit => "implicit",
                    spec::OAuthFlowKind::Password => "password",
                    spec::OAuthFlowKind::ClientCredentials => "client credentials",
                    spec::OAuthFlowKind::AuthorizationCode => "authorization code",
                })
                .collect();
            format!("OAuth 2 ({})", kinds.join(", "))
        }
        SecuritySchemeKind::OpenIdConnect { url } => format!("OpenID Connect ({url})"),
        SecuritySchemeKind::MutualTls => "mutual TLS".to_owned(),
    }
}

fn md(text: Option<&String>) -> String {
    text.map(|t| markdown::render(t)).unwrap_or_default()
}

/// The first server of the document with its variables at their defaults,
/// when it is an absolute URL.
fn document_server(spec: &Spec, operation: Option<&Operation>) -> Option<String> {
    let server = operation.and_then(|op| op.servers.first()).or_else(|| spec.servers.first())?;
    let mut url = server.url.clone();
    for (name, variable) in &server.variables {
        url = url.replace(&format!("{{{name}}}"), &variable.default);
    }
    (url.starts_with("http://") || url.starts_with("https://")).then_some(url)
}

/// Every API base URL the Try-It panels of these docs may send to: the
/// project's `base_url` when set, else each operation's (or the
/// description's) first absolute server. The hub's Try-It relay sends only
/// below these.
#[must_use]
pub fn api_bases(site: &Site, chrome: &Chrome) -> Vec<String> {
    if let Some(url) = &chrome.base_url {
        return vec![url.clone()];
    }
    let mut bases: Vec<String> = document_server(&site.spec, None).into_iter().collect();
    for operation in &site.spec.operations {
        if let Some(url) = document_server(&site.spec, Some(operation))
            && !bases.contains(&url)
        {
            bases.push(url);
        }
    }
    bases
}

fn try_targets(site: &Site, chrome: &Chrome, operation: Option<&Operation>) -> Vec<TryTarget> {
    let mut targets = Vec::new();
    if let Some(url) = chrome.base_url.clone().or_else(|| document_server(&site.spec, operation)) {
        targets.push(TryTarget { label: format!("API: {url}"), url });
    }
    if let Some(url) = &chrome.mock_url {
        targets.push(TryTarget { label: "Mock server".to_owned(), url: url.clone() });
    }
    targets
}

fn status_class(status: &str) -> &'static str {
    match status.as_bytes().first() {
        Some(b'2') => "ok",
        Some(b'3') => "redirect",
        Some(b'4') => "client",
        Some(b'5') => "server",
        _ => "other",
    }
}

/// The request body section of an operation page.
fn body_view(spec: &Spec, operation: &Operation) -> Option<minijinja::Value> {
    operation.request_body.as_ref().map(|body| {
        context! {
            description_html => md(body.description.as_ref()),
            required => body.required,
            media => media_views(spec, &body.content, mock::sample::Direction::Request),
        }
    })
}

/// The responses of an operation, by status.
fn response_views(spec: &Spec, operation: &Operation) -> Vec<ResponseView> {
    operation
        .responses
        .iter()
        .map(|(status, response)| ResponseView {
            status: status.clone(),
            class: status_class(status),
            summary: markdown::first_line(&response.description, 120),
            description_html: markdown::render(&response.description),
            headers: response
                .headers
                .iter()
                .map(|(name, header)| ParamView {
                    name: name.clone(),
                    location: "header",
                    required: header.required,
                    deprecated: header.deprecated,
                    ty: header.schema.as_ref().map(|s| schema_view::type_label(spec, s)).unwrap_or_default(),
                    ref_name: None,
                    description_html: md(header.description.as_ref()),
                    example: None,
                    value: None,
                    constraints: Vec::new(),
                    input: ParamInput::default(),
                })
                .collect(),
            media: media_views(spec, &response.content, mock::sample::Direction::Response),
        })
        .collect()
}

/// The callbacks of an operation, each with its operations (the runtime
/// expression as the path), shown in place on the operation's page.
fn callback_views(spec: &Spec, operation: &Operation) -> Vec<minijinja::Value> {
    operation
        .callbacks
        .iter()
        .enumerate()
        .map(|(index, (name, callback))| {
            let operations: Vec<minijinja::Value> = callbacks::operations(spec, callback)
                .iter()
                .map(|op| {
                    context! {
                        method => op.method.as_str(),
                        path => op.path,
                        summary => op.summary,
                        deprecated => op.deprecated,
                        description_html => md(op.description.as_ref()),
                        params => op.parameters.iter().map(|p| context! {
                            name => p.name,
                            location => p.location.as_str(),
                            required => p.required,
                            ty => p.schema.as_ref().map(|s| schema_view::type_label(spec, s)).unwrap_or_else(|| "string".to_owned()),
                            description_html => md(p.description.as_ref()),
                        }).collect::<Vec<_>>(),
                        body => body_view(spec, op),
                        responses => response_views(spec, op),
                    }
                })
                .collect();
            context! { name => name, id => format!("callback-{}", index + 1), operations => operations }
        })
        .collect()
}

fn operation_context(site: &Site, chrome: &Chrome, key: &str) -> Option<minijinja::Value> {
    let operation = site.operation(key)?;
    let spec = &site.spec;
    let params: Vec<ParamView> = operation
        .parameters
        .iter()
        .map(|p| ParamView {
            name: p.name.clone(),
            location: p.location.as_str(),
            required: p.required,
            deprecated: p.deprecated,
            ty: p.schema.as_ref().map(|s| schema_view::type_label(spec, s)).unwrap_or_else(|| "string".to_owned()),
            ref_name: p.schema.as_ref().and_then(|s| schema_view::ref_name(s)).map(str::to_owned),
            description_html: md(p.description.as_ref()),
            example: examples::parameter_example(spec, p),
            value: examples::parameter_value(spec, p),
            constraints: p
                .schema
                .as_ref()
                .and_then(|s| spec.resolve_value(s))
                .map(|s| schema_view::rows(spec, s).into_iter().next().map(|r| r.constraints).unwrap_or_default())
                .unwrap_or_default(),
            input: param_input(spec, p.schema.as_ref()),
        })
        .collect();
    let body = body_view(spec, operation);
    let responses = response_views(spec, operation);
    let security: Vec<Vec<SchemeView>> = spec
        .effective_security(operation)
        .iter()
        .map(|requirement| {
            requirement
                .schemes
                .iter()
                .map(|(name, scopes)| {
                    let scheme = spec.security_schemes.get(name);
                    SchemeView {
                        name: name.clone(),
                        kind: scheme.map(|s| scheme_kind(&s.kind)).unwrap_or_default(),
                        scopes: scopes.clone(),
                        description_html: String::new(),
                    }
                })
                .collect()
        })
        .collect();
    let targets = try_targets(site, chrome, Some(operation));
    let sample_server = targets.first().map_or_else(|| "https://api.example.com".to_owned(), |t| absolute(&t.url));
    let endpoint = format!("{} {}", operation.method, operation.path);
    let custom = chrome.endpoint_markdown.get(&endpoint);
    let body_example =
        operation.request_body.as_ref().and_then(|b| b.content.iter().next()).and_then(|(media, content)| {
            examples::media_example(spec, content, mock::sample::Direction::Request)
                .map(|v| (media.clone(), examples::display(&v, media, MAX_EXAMPLE_BYTES)))
        });
    let auth_headers: Vec<String> = spec
        .effective_security(operation)
        .iter()
        .take(1)
        .flat_map(|r| r.schemes.keys())
        .filter_map(|name| match spec.security_schemes.get(name).map(|s| &s.kind) {
            Some(SecuritySchemeKind::ApiKey { name, location: spec::ApiKeyLocation::Header }) => Some(name.clone()),
            Some(
                SecuritySchemeKind::Http { .. }
                | SecuritySchemeKind::OAuth2 { .. }
                | SecuritySchemeKind::OpenIdConnect { .. },
            ) => Some("Authorization".to_owned()),
            _ => None,
        })
        .collect();
    let group = operation.tags.first().cloned().or_else(|| {
        site.groups
            .iter()
            .find(|g| g.operations.iter().any(|i| site.keys.get(*i).map(String::as_str) == Some(key)))
            .map(|g| g.name.clone())
    });
    // The response examples pane: one tab per status and media type.
    let examples: Vec<minijinja::Value> = responses
        .iter()
        .flat_map(|r| {
            let several = r.media.len() > 1;
            r.media.iter().filter_map(move |m| {
                let html = m.example_html.as_ref()?;
                Some(context! {
                    label => if several { format!("{} {}", r.status, m.media) } else { r.status.clone() },
                    class => r.class,
                    media => m.media,
                    summary => r.summary,
                    html => html,
                })
            })
        })
        .collect();
    let webhook = site.is_webhook(key);
    Some(context! {
        key => key,
        webhook => webhook,
        group => group,
        method => operation.method.as_str(),
        path => operation.path,
        operation_id => operation.operation_id,
        summary => operation.summary,
        deprecated => operation.deprecated,
        description_html => md(operation.description.as_ref()),
        intro_html => md(custom.and_then(|c| c.intro.as_ref())),
        extras_html => md(custom.and_then(|c| c.extras.as_ref())),
        params => params,
        body => body,
        responses => responses,
        security => security,
        samples => if webhook { Vec::new() } else { samples::samples(spec, operation, &sample_server) },
        targets => if webhook { Vec::new() } else { targets },
        body_example => body_example.as_ref().map(|(_, text)| text.clone()),
        body_media => body_example.as_ref().map(|(media, _)| media.clone()),
        auth_headers => auth_headers,
        auth => auth_fields(spec, operation),
        examples => examples,
        try_params => operation.parameters.iter().any(|p| p.location != spec::ParameterLocation::Cookie),
        callbacks => callback_views(spec, operation),
    })
}

/// A Try-It target as a code sample shows it (site-relative mock URLs are
/// shown with a placeholder origin).
fn absolute(url: &str) -> String {
    if url.starts_with('/') { format!("https://<hub>{url}") } else { url.to_owned() }
}

#[derive(Serialize)]
struct GqlArg {
    name: String,
    ty: String,
    named: String,
    default: Option<String>,
    description_html: String,
}

#[derive(Serialize)]
struct GqlFieldView {
    name: String,
    ty: String,
    named: String,
    deprecated: bool,
    deprecation_reason: Option<String>,
    description_html: String,
    args: Vec<GqlArg>,
}

fn gql_arg(arg: &GraphQlInputValue) -> GqlArg {
    GqlArg {
        name: arg.name.clone(),
        ty: arg.ty.to_string(),
        named: arg.ty.named().to_owned(),
        default: arg.default_value.clone(),
        description_html: md(arg.description.as_ref()),
    }
}

fn gql_field(field: &GraphQlField) -> GqlFieldView {
    GqlFieldView {
        name: field.name.clone(),
        ty: field.ty.to_string(),
        named: field.ty.named().to_owned(),
        deprecated: field.deprecated,
        deprecation_reason: field.deprecation_reason.clone(),
        description_html: md(field.description.as_ref()),
        args: field.args.iter().map(gql_arg).collect(),
    }
}

const fn kind_name(kind: GraphQlTypeKind) -> &'static str {
    match kind {
        GraphQlTypeKind::Scalar => "scalar",
        GraphQlTypeKind::Object => "type",
        GraphQlTypeKind::Interface => "interface",
        GraphQlTypeKind::Union => "union",
        GraphQlTypeKind::Enum => "enum",
        GraphQlTypeKind::InputObject => "input",
    }
}

/// Renders one page, or `None` when the page does not exist in this
/// document (an unknown operation, schema or type) or the templates failed
/// (see [`try_render`]).
#[must_use]
pub fn render(site: &Site, chrome: &Chrome, page: Page<'_>) -> Option<String> {
    try_render(site, chrome, page).ok().flatten()
}

/// A template failure: a defect of this crate, never of the input.
#[derive(Debug)]
pub struct RenderError(pub String);

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Renders one page: `Ok(None)` when the page does not exist in this
/// document, `Err` when a template failed.
pub fn try_render(site: &Site, chrome: &Chrome, page: Page<'_>) -> Result<Option<String>, RenderError> {
    let spec = &site.spec;
    let vbase = format!("{}/{}", chrome.base, encode(&chrome.label));
    let theme_css = chrome.theme.as_ref().map(theme::css).unwrap_or_default();
    let lock = chrome.theme.as_ref().and_then(|t| t.lock.clone());
    let graphql = spec.graphql.as_ref();
    let type_names: Vec<&String> = graphql.map(|m| m.types.keys().collect()).unwrap_or_default();
    let common = context! {
        chrome => chrome,
        vbase => vbase,
        home => if chrome.base.is_empty() { "/".to_owned() } else { chrome.base.clone() },
        asset_version => assets::VERSION,
        theme_css => theme_css,
        theme_lock => lock,
        title => chrome.header.title.clone().unwrap_or_else(|| chrome.project_name.clone()),
        api_title => spec.title,
        api_version => spec.api_version,
        is_graphql => graphql.is_some(),
        type_names => type_names,
        schema_count => spec.schemas.len(),
        default_label => chrome.versions.iter().find(|v| v.is_default).map(|v| v.label.clone()),
        quick_hash => site.quick_index().hash,
        download_label => match spec.format {
            spec::SpecFormat::OpenApi3 => "Download OpenAPI document",
            spec::SpecFormat::Swagger2 => "Download Swagger document",
            spec::SpecFormat::GraphQl => "Download GraphQL schema",
        },
    };
    let env = environment();
    let result = match page {
        Page::Overview => {
            if let Some(model) = graphql {
                let mut types: BTreeMap<&'static str, Vec<(String, String)>> = BTreeMap::new();
                for (name, ty) in &model.types {
                    types.entry(kind_name(ty.kind)).or_default().push((
                        name.clone(),
                        ty.description.as_deref().map(|d| markdown::first_line(d, 120)).unwrap_or_default(),
                    ));
                }
                let roots = [&model.query_type, &model.mutation_type, &model.subscription_type];
                let op_md = |kind: &str, name: &str| {
                    let custom = chrome.endpoint_markdown.get(&format!("{kind} {name}"));
                    (md(custom.and_then(|c| c.intro.as_ref())), md(custom.and_then(|c| c.extras.as_ref())))
                };
                let compact =
                    model.queries.len() + model.mutations.len() + model.subscriptions.len() > GRAPHQL_FULL_MAX_FIELDS;
                let section = |kind: &'static str, fields: &[GraphQlField]| {
                    fields
                        .iter()
                        .map(|f| {
                            if compact {
                                let summary = f.description.as_deref().map(|d| markdown::first_line(d, 100));
                                return context! { field => context! { name => f.name, ty => f.ty.to_string() }, summary => summary, kind => kind };
                            }
                            let (intro, extras) = op_md(kind, &f.name);
                            context! { field => gql_field(f), intro_html => intro, extras_html => extras, kind => kind }
                        })
                        .collect::<Vec<_>>()
                };
                env.get_template("graphql.html").and_then(|t| {
                    t.render(context! {
                        description_html => md(spec.description.as_ref()),
                        queries => section("query", &model.queries),
                        mutations => section("mutation", &model.mutations),
                        subscriptions => section("subscription", &model.subscriptions),
                        types => types,
                        roots => roots,
                        compact => compact,
                        targets => try_targets(site, chrome, None),
                        ..common.clone()
                    })
                })
            } else {
                let schemes: Vec<SchemeView> = spec
                    .security_schemes
                    .iter()
                    .map(|(name, scheme)| SchemeView {
                        name: name.clone(),
                        kind: scheme_kind(&scheme.kind),
                        scopes: Vec::new(),
                        description_html: md(scheme.description.as_ref()),
                    })
                    .collect();
                let servers: Vec<(String, String)> =
                    spec.servers.iter().map(|s| (s.url.clone(), s.description.clone().unwrap_or_default())).collect();
                let groups: Vec<_> = site
                    .groups
                    .iter()
                    .map(|g| {
                        context! {
                            name => g.name,
                            count => g.operations.len(),
                            summary => g.description.as_deref().map(|d| markdown::first_line(d, 160)),
                            ops => if g.operations.len() <= 40 || spec.operations.len() <= FULL_NAV_MAX_OPERATIONS {
                                g.operations.iter().filter_map(|i| nav_op(site, *i)).collect::<Vec<_>>()
                            } else { Vec::new() },
                        }
                    })
                    .collect();
                env.get_template("overview.html").and_then(|t| {
                    t.render(context! {
                        nav => nav(site, None),
                        description_html => md(spec.description.as_ref()),
                        summary => spec.summary,
                        servers => servers,
                        schemes => schemes,
                        groups => groups,
                        operation_count => spec.operations.len(),
                        ..common.clone()
                    })
                })
            }
        }
        Page::Operation(key) => {
            let Some(op) = operation_context(site, chrome, key) else { return Ok(None) };
            let group = op.get_attr("group").ok().and_then(|v| v.as_str().map(str::to_owned));
            env.get_template("operation.html")
                .and_then(|t| t.render(context! { nav => nav(site, group.as_deref()), op => op, ..common.clone() }))
        }
        Page::Tag(name) => {
            let Some(group) = site.groups.iter().find(|g| g.name == name) else { return Ok(None) };
            let ops: Vec<NavOp> = group.operations.iter().filter_map(|i| nav_op(site, *i)).collect();
            env.get_template("tag.html").and_then(|t| {
                t.render(context! {
                    nav => nav(site, Some(name)),
                    name => group.name,
                    description_html => md(group.description.as_ref()),
                    ops => ops,
                    ..common.clone()
                })
            })
        }
        Page::Schemas => {
            let schemas: Vec<(String, String)> = spec
                .schemas
                .iter()
                .map(|(name, schema)| (name.clone(), schema_view::type_label(spec, schema)))
                .collect();
            env.get_template("schemas.html")
                .and_then(|t| t.render(context! { nav => nav(site, None), schemas => schemas, ..common.clone() }))
        }
        Page::Schema(name) => {
            let Some(schema) = spec.schemas.get(name) else { return Ok(None) };
            let example = mock::sample::sample(spec, schema, mock::sample::Direction::Response);
            env.get_template("schema.html").and_then(|t| {
                t.render(context! {
                    nav => nav(site, None),
                    name => name,
                    rows => schema_view::rows(spec, schema),
                    description_html => md(schema.get("description").and_then(Value::as_str).map(str::to_owned).as_ref()),
                    example_html => highlight::html(&examples::display(&example, "application/json", MAX_EXAMPLE_BYTES), "json"),
                    ..common.clone()
                })
            })
        }
        Page::Type(name) => {
            let Some(ty) = graphql.and_then(|m| m.types.get(name)) else { return Ok(None) };
            let used_by: Vec<String> = graphql
                .map(|m| {
                    m.types
                        .values()
                        .filter(|t| {
                            t.fields.iter().any(|f| f.ty.named() == name)
                                || t.input_fields.iter().any(|f| f.ty.named() == name)
                        })
                        .map(|t| t.name.clone())
                        .take(50)
                        .collect()
                })
                .unwrap_or_default();
            env.get_template("type.html").and_then(|t| {
                t.render(context! {
                    name => ty.name,
                    kind => kind_name(ty.kind),
                    description_html => md(ty.description.as_ref()),
                    fields => ty.fields.iter().map(gql_field).collect::<Vec<_>>(),
                    input_fields => ty.input_fields.iter().map(gql_arg).collect::<Vec<_>>(),
                    interfaces => ty.interfaces,
                    members => ty.members,
                    enum_values => ty.enum_values.iter().map(|v| context! {
                        name => v.name, description_html => md(v.description.as_ref()), deprecated => v.deprecated,
                    }).collect::<Vec<_>>(),
                    specified_by => ty.specified_by,
                    used_by => used_by,
                    ..common.clone()
                })
            })
        }
        Page::Field(kind, name) => {
            let Some(model) = graphql else { return Ok(None) };
            let fields = match kind {
                "query" => &model.queries,
                "mutation" => &model.mutations,
                "subscription" => &model.subscriptions,
                _ => return Ok(None),
            };
            let Some(field) = fields.iter().find(|f| f.name == name) else { return Ok(None) };
            let custom = chrome.endpoint_markdown.get(&format!("{kind} {name}"));
            let f = context! {
                field => gql_field(field),
                intro_html => md(custom.and_then(|c| c.intro.as_ref())),
                extras_html => md(custom.and_then(|c| c.extras.as_ref())),
                kind => kind,
            };
            env.get_template("field.html").and_then(|t| {
                t.render(context! { f => f, targets => try_targets(site, chrome, None), ..common.clone() })
            })
        }
        Page::Search => env
            .get_template("search.html")
            .and_then(|t| t.render(context! { nav => nav(site, None), search => chrome.search, ..common.clone() })),
    };
    result.map(Some).map_err(|err| RenderError(format!("{err:#}")))
}

/// What the embeddable widget needs to build its Try-It form for one
/// operation (site-relative target URLs are made absolute by the widget).
#[must_use]
pub fn embed(site: &Site, chrome: &Chrome, key: &str) -> Option<Value> {
    let op = operation_context(site, chrome, key)?;
    let operation = site.operation(key)?;
    let params: Vec<Value> = operation
        .parameters
        .iter()
        .map(|p| {
            serde_json::json!({
                "name": p.name,
                "in": p.location.as_str(),
                "required": p.required,
                "example": examples::parameter_example(&site.spec, p),
            })
        })
        .collect();
    let targets: Vec<Value> = try_targets(site, chrome, Some(operation))
        .into_iter()
        .map(|t| {
            let kind = if Some(&t.url) == chrome.mock_url.as_ref() { "mock" } else { "api" };
            serde_json::json!({ "label": t.label, "url": t.url, "kind": kind })
        })
        .collect();
    let attr = |name: &str| op.get_attr(name).ok().filter(|v| !v.is_none() && !v.is_undefined()).map(|v| v.to_string());
    let auth: Vec<String> = op
        .get_attr("auth_headers")
        .ok()
        .and_then(|v| v.try_iter().ok().map(|it| it.map(|h| h.to_string()).collect()))
        .unwrap_or_default();
    Some(serde_json::json!({
        "version": chrome.label,
        "operation": {
            "key": key,
            "method": operation.method.as_str(),
            "path": operation.path,
            "summary": operation.summary,
            "params": params,
            "body_media": attr("body_media"),
            "body_example": attr("body_example"),
            "auth_headers": auth,
        },
        "targets": targets,
        "docs_url": format!("{}/{}/op/{}", chrome.base, encode(&chrome.label), encode(key)),
    }))
}

/// A small standalone page (errors, the password form) in the docs' look.
#[must_use]
pub fn message_page(title: &str, message: &str, form_action: Option<&str>, form_error: Option<&str>) -> String {
    message_page_with_signin(title, message, form_action, form_error, None, "")
}

/// [`message_page`] with a link to the member sign-in (`signin` is its URL).
#[must_use]
pub fn message_page_with_signin(
    title: &str,
    message: &str,
    form_action: Option<&str>,
    form_error: Option<&str>,
    signin: Option<&str>,
    csrf_token: &str,
) -> String {
    environment()
        .get_template("message.html")
        .and_then(|t| {
            t.render(context! {
                csrf_token => csrf_token,
                title => title,
                message => message,
                form_action => form_action,
                form_error => form_error,
                signin => signin,
                asset_base => assets::BASE,
                asset_version => assets::VERSION,
            })
        })
        .unwrap_or_else(|_| format!("<!doctype html><title>{0}</title><p>{0}</p>", escape(title)))
}

/// The member sign-in page: a personal access token field; `next` is the
/// docs page to return to (checked again by the server on submit).
#[must_use]
pub fn signin_page(next: &str, form_error: Option<&str>, csrf_token: &str) -> String {
    environment()
        .get_template("signin.html")
        .and_then(|t| {
            t.render(context! {
                csrf_token => csrf_token,
                next => next,
                form_error => form_error,
                asset_base => assets::BASE,
                asset_version => assets::VERSION,
            })
        })
        .unwrap_or_else(|_| "<!doctype html><title>Sign in</title><p>Sign in</p>".to_owned())
}

/// The member sign-out page: one button, with the browser's CSRF token.
#[must_use]
pub fn signout_page(csrf_token: &str) -> String {
    environment()
        .get_template("signout.html")
        .and_then(|t| {
            t.render(context! {
                csrf_token => csrf_token,
                asset_base => assets::BASE,
                asset_version => assets::VERSION,
            })
        })
        .unwrap_or_else(|_| "<!doctype html><title>Sign out</title><p>Sign out</p>".to_owned())
}

/// Escapes text for HTML element content and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
