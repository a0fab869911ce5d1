//! Building the model from a document in OpenAPI 3 shape (an OpenAPI 3.0 or
//! 3.1 document as written, or a Swagger 2.0 document after
//! [`crate::swagger::upgrade`]).
//!
//! Parameters, request bodies, responses, headers, examples and path items
//! that are `$ref`s are resolved into the operation (a small copy each), so
//! the consumers see complete operations; schemas keep their `$ref`s.

use indexmap::IndexMap;
use serde_json::Value;

use crate::error::{SpecError, SpecErrorKind};
use crate::fields::{
    Object, into_object, take_array, take_bool, take_extensions, take_named, take_object, take_string, take_strings,
};
use crate::model::{
    ApiKeyLocation, Contact, Example, ExternalDocs, Header, HttpMethod, License, MediaType, OAuthFlow, OAuthFlowKind,
    Operation, Parameter, ParameterLocation, RequestBody, Response, SecurityRequirement, SecurityScheme,
    SecuritySchemeKind, Server, ServerVariable, Spec, SpecFormat, Tag,
};

/// Most reference hops a resolution follows; cycles were refused earlier, so
/// this only bounds work on adversarial input that slipped past.
const MAX_HOPS: usize = 64;

struct Resolver<'a> {
    root: &'a Value,
    detached: &'a IndexMap<String, Value>,
}

impl Resolver<'_> {
    /// Replaces a Reference Object by a copy of its target. OpenAPI 3.1 lets
    /// a reference carry its own `summary` and `description`, which win.
    fn follow(&self, value: Value) -> Result<Value, SpecError> {
        let mut current = value;
        let mut overrides: Vec<(String, Value)> = Vec::new();
        for _ in 0..MAX_HOPS {
            let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                if let Value::Object(map) = &mut current {
                    for (key, value) in overrides.into_iter().rev() {
                        map.insert(key, value);
                    }
                }
                return Ok(current);
            };
            let target = self
                .detached
                .get(reference)
                .or_else(|| crate::refs::lookup(self.root, reference))
                .ok_or_else(|| {
                    SpecError::new(
                        SpecErrorKind::InvalidReference,
                        format!("reference `{reference}` points at nothing in the document"),
                    )
                })?
                .clone();
            if let Value::Object(map) = &current {
                for key in ["summary", "description"] {
                    if let Some(value) = map.get(key) {
                        overrides.push((key.to_owned(), value.clone()));
                    }
                }
            }
            current = target;
        }
        Err(SpecError::new(SpecErrorKind::CyclicReference, "reference chain is too long or loops"))
    }

    fn object(&self, value: Value) -> Result<Object, SpecError> {
        self.follow(value).map(into_object)
    }
}

/// Builds a [`Spec`] from a root object in OpenAPI 3 shape. `detached` holds
/// copies of reference targets outside `components`.
pub(crate) fn build(
    mut root: Object,
    format: SpecFormat,
    source_version: String,
    detached: IndexMap<String, Value>,
) -> Result<Spec, SpecError> {
    let paths = take_object(&mut root, "paths");
    let webhooks = take_object(&mut root, "webhooks");
    let root = Value::Object(root);
    let resolver = Resolver { root: &root, detached: &detached };

    let mut operations = Vec::new();
    for (path, item) in paths {
        if path.starts_with("x-") {
            continue;
        }
        path_operations(&resolver, path, item, &mut operations)?;
    }
    let mut webhook_operations = Vec::new();
    for (name, item) in webhooks {
        if name.starts_with("x-") {
            continue;
        }
        path_operations(&resolver, name, item, &mut webhook_operations)?;
    }

    let mut security_schemes = IndexMap::new();
    if let Some(Value::Object(schemes)) = root.pointer("/components/securitySchemes") {
        for (name, scheme) in schemes {
            let scheme = resolver.object(scheme.clone())?;
            let parsed = security_scheme(scheme).map_err(|err| context(err, &format!("security scheme `{name}`")))?;
            security_schemes.insert(name.clone(), parsed);
        }
    }

    let mut root = into_object(root);
    let mut components = take_object(&mut root, "components");
    let schemas = take_named(&mut components, "schemas");
    components.shift_remove("securitySchemes");
    let components = components
        .into_iter()
        .filter(|(section, _)| !section.starts_with("x-"))
        .map(|(section, entries)| {
            let entries = into_object(entries).into_iter().collect::<IndexMap<_, _>>();
            (section, entries)
        })
        .collect();

    let mut info = take_object(&mut root, "info");
    let title = take_string(&mut info, "title").unwrap_or_default();
    let api_version = take_string(&mut info, "version").unwrap_or_default();
    let contact = info.shift_remove("contact").map(into_object).map(|mut c| Contact {
        name: take_string(&mut c, "name"),
        url: take_string(&mut c, "url"),
        email: take_string(&mut c, "email"),
    });
    let license = info.shift_remove("license").map(into_object).map(|mut l| License {
        name: take_string(&mut l, "name").unwrap_or_default(),
        url: take_string(&mut l, "url"),
        identifier: take_string(&mut l, "identifier"),
    });

    let security = match root.shift_remove("security") {
        Some(value) => security_requirements(value)?,
        None => Vec::new(),
    };

    Ok(Spec {
        format,
        source_version,
        title,
        api_version,
        description: take_string(&mut info, "description"),
        summary: take_string(&mut info, "summary"),
        terms_of_service: take_string(&mut info, "termsOfService"),
        contact,
        license,
        external_docs: external_docs(root.shift_remove("externalDocs")),
        servers: servers(take_array(&mut root, "servers")),
        operations,
        webhooks: webhook_operations,
        schemas,
        components,
        security_schemes,
        security,
        tags: take_array(&mut root, "tags")
            .into_iter()
            .map(into_object)
            .filter_map(|mut tag| {
                Some(Tag {
                    name: take_string(&mut tag, "name")?,
                    description: take_string(&mut tag, "description"),
                    external_docs: external_docs(tag.shift_remove("externalDocs")),
                })
            })
            .collect(),
        graphql: None,
        detached_targets: detached,
    })
}

fn context(mut err: SpecError, place: &str) -> SpecError {
    err.message = format!("{place}: {}", err.message);
    err
}

fn path_operations(
    resolver: &Resolver<'_>,
    path: String,
    item: Value,
    out: &mut Vec<Operation>,
) -> Result<(), SpecError> {
    let place = format!("path `{path}`");
    let item = resolve_path_item(resolver, item).map_err(|err| context(err, &place))?;
    let mut item = item;
    let shared = parameters(resolver, take_array(&mut item, "parameters")).map_err(|err| context(err, &place))?;
    let shared_servers = servers(take_array(&mut item, "servers"));
    for (key, operation) in item {
        let Some(method) = HttpMethod::from_key(&key) else {
            continue;
        };
        if key != method.key() {
            // Path item keys are lowercase; `GET` is not an operation.
            continue;
        }
        let place = format!("{method} {path}");
        let built = build_operation(resolver, method, &path, into_object(operation), &shared)
            .map_err(|err| context(err, &place))?;
        let mut built = built;
        if built.servers.is_empty() {
            built.servers.clone_from(&shared_servers);
        }
        out.push(built);
    }
    Ok(())
}

/// Resolves a path item `$ref`, keeping sibling fields (OpenAPI 3.0 allows
/// them on path items; the sibling wins).
fn resolve_path_item(resolver: &Resolver<'_>, item: Value) -> Result<Object, SpecError> {
    let mut item = into_object(item);
    let Some(reference) = item.shift_remove("$ref") else {
        return Ok(item);
    };
    let mut wrapper = Object::new();
    wrapper.insert("$ref".to_owned(), reference);
    let mut target = resolver.object(Value::Object(wrapper))?;
    for (key, value) in item {
        target.insert(key, value);
    }
    Ok(target)
}

fn build_operation(
    resolver: &Resolver<'_>,
    method: HttpMethod,
    path: &str,
    mut op: Object,
    shared: &[Parameter],
) -> Result<Operation, SpecError> {
    let own = parameters(resolver, take_array(&mut op, "parameters"))?;
    let mut merged = shared.to_vec();
    for parameter in own {
        match merged.iter_mut().find(|p| p.name == parameter.name && p.location == parameter.location) {
            Some(slot) => *slot = parameter,
            None => merged.push(parameter),
        }
    }
    let request_body = match op.shift_remove("requestBody") {
        Some(body) => Some(request_body(resolver, body)?),
        None => None,
    };
    let mut responses = IndexMap::new();
    for (status, response) in take_object(&mut op, "responses") {
        if status.starts_with("x-") {
            continue;
        }
        let parsed = self::response(resolver, response).map_err(|err| context(err, &format!("response `{status}`")))?;
        responses.insert(status, parsed);
    }
    let security = match op.shift_remove("security") {
        Some(value) => Some(security_requirements(value)?),
        None => None,
    };
    Ok(Operation {
        method,
        path: path.to_owned(),
        operation_id: take_string(&mut op, "operationId"),
        summary: take_string(&mut op, "summary"),
        description: take_string(&mut op, "description"),
        tags: take_strings(&mut op, "tags"),
        deprecated: take_bool(&mut op, "deprecated").unwrap_or(false),
        parameters: merged,
        request_body,
        responses,
        security,
        servers: servers(take_array(&mut op, "servers")),
        callbacks: take_named(&mut op, "callbacks"),
        external_docs: external_docs(op.shift_remove("externalDocs")),
        extensions: take_extensions(&mut op),
    })
}

fn parameters(resolver: &Resolver<'_>, list: Vec<Value>) -> Result<Vec<Parameter>, SpecError> {
    list.into_iter().map(|item| parameter(resolver, resolver.object(item)?)).collect()
}

fn parameter(resolver: &Resolver<'_>, mut map: Object) -> Result<Parameter, SpecError> {
    let name = take_string(&mut map, "name").ok_or_else(|| SpecError::invalid("a parameter has no `name`"))?;
    let location = take_string(&mut map, "in").unwrap_or_default();
    let location = ParameterLocation::parse(&location).ok_or_else(|| {
        SpecError::invalid(format!(
            "parameter `{name}` has location `{location}`; expected path, query, header or cookie"
        ))
    })?;
    Ok(Parameter {
        required: take_bool(&mut map, "required").unwrap_or(false) || location == ParameterLocation::Path,
        description: take_string(&mut map, "description"),
        deprecated: take_bool(&mut map, "deprecated").unwrap_or(false),
        allow_empty_value: take_bool(&mut map, "allowEmptyValue").unwrap_or(false),
        style: take_string(&mut map, "style"),
        explode: take_bool(&mut map, "explode"),
        schema: map.shift_remove("schema"),
        example: map.shift_remove("example"),
        examples: examples(resolver, take_object(&mut map, "examples"))?,
        content: content(resolver, take_object(&mut map, "content"))?,
        name,
        location,
    })
}

fn request_body(resolver: &Resolver<'_>, value: Value) -> Result<RequestBody, SpecError> {
    let mut map = resolver.object(value)?;
    Ok(RequestBody {
        description: take_string(&mut map, "description"),
        required: take_bool(&mut map, "required").unwrap_or(false),
        content: content(resolver, take_object(&mut map, "content"))?,
    })
}

fn response(resolver: &Resolver<'_>, value: Value) -> Result<Response, SpecError> {
    let mut map = resolver.object(value)?;
    let mut headers = IndexMap::new();
    for (name, header) in take_object(&mut map, "headers") {
        headers.insert(name, self::header(resolver, header)?);
    }
    Ok(Response {
        description: take_string(&mut map, "description").unwrap_or_default(),
        headers,
        content: content(resolver, take_object(&mut map, "content"))?,
        links: take_named(&mut map, "links"),
    })
}

fn header(resolver: &Resolver<'_>, value: Value) -> Result<Header, SpecError> {
    let mut map = resolver.object(value)?;
    Ok(Header {
        description: take_string(&mut map, "description"),
        required: take_bool(&mut map, "required").unwrap_or(false),
        deprecated: take_bool(&mut map, "deprecated").unwrap_or(false),
        schema: map.shift_remove("schema"),
        example: map.shift_remove("example"),
        examples: examples(resolver, take_object(&mut map, "examples"))?,
        content: content(resolver, take_object(&mut map, "content"))?,
    })
}

fn content(resolver: &Resolver<'_>, map: Object) -> Result<IndexMap<String, MediaType>, SpecError> {
    let mut out = IndexMap::new();
    for (media_type, entry) in map {
        if media_type.starts_with("x-") {
            continue;
        }
        let mut entry = into_object(entry);
        let parsed = MediaType {
            schema: entry.shift_remove("schema"),
            example: entry.shift_remove("example"),
            examples: examples(resolver, take_object(&mut entry, "examples"))?,
            encoding: take_named(&mut entry, "encoding"),
        };
        out.insert(media_type, parsed);
    }
    Ok(out)
}

fn examples(resolver: &Resolver<'_>, map: Object) -> Result<IndexMap<String, Example>, SpecError> {
    let mut out = IndexMap::new();
    for (name, example) in map {
        let mut example = resolver.object(example)?;
        out.insert(
            name,
            Example {
                summary: take_string(&mut example, "summary"),
                description: take_string(&mut example, "description"),
                value: example.shift_remove("value"),
                external_value: take_string(&mut example, "externalValue"),
            },
        );
    }
    Ok(out)
}

pub(crate) fn security_requirements(value: Value) -> Result<Vec<SecurityRequirement>, SpecError> {
    let Value::Array(items) = value else {
        return Err(SpecError::invalid("`security` must be a list of requirements"));
    };
    Ok(items
        .into_iter()
        .map(|item| SecurityRequirement {
            schemes: into_object(item)
                .into_iter()
                .map(|(name, scopes)| {
                    let scopes = match scopes {
                        Value::Array(list) => list.into_iter().filter_map(|s| s.as_str().map(str::to_owned)).collect(),
                        _ => Vec::new(),
                    };
                    (name, scopes)
                })
                .collect(),
        })
        .collect())
}

fn security_scheme(mut map: Object) -> Result<SecurityScheme, SpecError> {
    let description = take_string(&mut map, "description");
    let kind = take_string(&mut map, "type").unwrap_or_default();
    let kind = match kind.as_str() {
        "apiKey" => {
            let name =
                take_string(&mut map, "name").ok_or_else(|| SpecError::invalid("an apiKey scheme needs a `name`"))?;
            let location = match take_string(&mut map, "in").as_deref() {
                Some("header") => ApiKeyLocation::Header,
                Some("query") => ApiKeyLocation::Query,
                Some("cookie") => ApiKeyLocation::Cookie,
                other => {
                    return Err(SpecError::invalid(format!(
                        "an apiKey scheme has location `{}`; expected header, query or cookie",
                        other.unwrap_or_default()
                    )));
                }
            };
            SecuritySchemeKind::ApiKey { name, location }
        }
        "http" => SecuritySchemeKind::Http {
            scheme: take_string(&mut map, "scheme").unwrap_or_default().to_ascii_lowercase(),
            bearer_format: take_string(&mut map, "bearerFormat"),
        },
        "oauth2" => {
            let mut flows = Vec::new();
            for (key, flow) in take_object(&mut map, "flows") {
                let kind = match key.as_str() {
                    "implicit" => OAuthFlowKind::Implicit,
                    "password" => OAuthFlowKind::Password,
                    "clientCredentials" => OAuthFlowKind::ClientCredentials,
                    "authorizationCode" => OAuthFlowKind::AuthorizationCode,
                    _ => continue,
                };
                let mut flow = into_object(flow);
                flows.push(OAuthFlow {
                    kind,
                    authorization_url: take_string(&mut flow, "authorizationUrl"),
                    token_url: take_string(&mut flow, "tokenUrl"),
                    refresh_url: take_string(&mut flow, "refreshUrl"),
                    scopes: take_object(&mut flow, "scopes")
                        .into_iter()
                        .map(|(scope, text)| (scope, text.as_str().unwrap_or_default().to_owned()))
                        .collect(),
                });
            }
            SecuritySchemeKind::OAuth2 { flows }
        }
        "openIdConnect" => {
            SecuritySchemeKind::OpenIdConnect { url: take_string(&mut map, "openIdConnectUrl").unwrap_or_default() }
        }
        "mutualTLS" => SecuritySchemeKind::MutualTls,
        other => {
            return Err(SpecError::invalid(format!(
                "unknown security scheme type `{other}`; expected apiKey, http, oauth2, openIdConnect or mutualTLS"
            )));
        }
    };
    Ok(SecurityScheme { description, kind })
}

pub(crate) fn servers(list: Vec<Value>) -> Vec<Server> {
    list.into_iter()
        .map(into_object)
        .filter_map(|mut server| {
            let url = take_string(&mut server, "url")?;
            let variables = take_object(&mut server, "variables")
                .into_iter()
                .map(|(name, variable)| {
                    let mut variable = into_object(variable);
                    (
                        name,
                        ServerVariable {
                            default: take_string(&mut variable, "default").unwrap_or_default(),
                            allowed: take_strings(&mut variable, "enum"),
                            description: take_string(&mut variable, "description"),
                        },
                    )
                })
                .collect();
            Some(Server { url, description: take_string(&mut server, "description"), variables })
        })
        .collect()
}

fn external_docs(value: Option<Value>) -> Option<ExternalDocs> {
    let mut map = into_object(value?);
    Some(ExternalDocs { url: take_string(&mut map, "url")?, description: take_string(&mut map, "description") })
}
