//! What both languages need to know about each operation, decided once:
//! which parameters go where, which request and response media types are
//! used, and which security requirements apply.

use serde_json::Value;
use spec::{
    ApiKeyLocation, HttpMethod, Operation, Parameter, ParameterLocation, SecuritySchemeKind, Spec, schema_types,
};

/// How a request body is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    Json,
    Form,
    Multipart,
    Text,
    Binary,
}

impl BodyKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Form => "form",
            Self::Multipart => "multipart",
            Self::Text => "text",
            Self::Binary => "binary",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct BodyPlan<'a> {
    pub kind: BodyKind,
    pub media_type: String,
    pub schema: Option<&'a Value>,
    pub required: bool,
}

/// One possible successful result.
#[derive(Debug, Clone)]
pub(crate) enum Outcome<'a> {
    /// No body (204, or a response without content).
    Empty,
    /// A JSON body, typed by its schema when there is one.
    Json(Option<&'a Value>),
    Text,
    Binary,
}

#[derive(Debug, Clone)]
pub(crate) struct OperationPlan<'a> {
    pub operation: &'a Operation,
    /// Path parameters in the order they appear in the template.
    pub path_params: Vec<PathParam<'a>>,
    /// Query, header and cookie parameters in document order.
    pub other_params: Vec<&'a Parameter>,
    pub body: Option<BodyPlan<'a>>,
    pub outcomes: Vec<Outcome<'a>>,
    /// Security alternatives by scheme key; an empty alternative means
    /// anonymous access is allowed. Alternatives naming a scheme the SDK
    /// cannot apply (mutual TLS) are dropped.
    pub security: Vec<Vec<String>>,
}

#[derive(Debug, Clone)]
pub(crate) struct PathParam<'a> {
    pub name: String,
    pub parameter: Option<&'a Parameter>,
}

/// How a security scheme is applied by the generated client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    ApiKey {
        location: ApiKeyLocation,
        name: String,
    },
    /// `Authorization: <prefix> <token>`: bearer, OAuth 2, OpenID Connect and
    /// other HTTP schemes that take one credential.
    Token {
        prefix: String,
    },
    Basic,
}

pub(crate) fn auth_of(kind: &SecuritySchemeKind) -> Option<Auth> {
    match kind {
        SecuritySchemeKind::ApiKey { name, location } => Some(Auth::ApiKey { location: *location, name: name.clone() }),
        SecuritySchemeKind::Http { scheme, .. } if scheme.eq_ignore_ascii_case("basic") => Some(Auth::Basic),
        SecuritySchemeKind::Http { scheme, .. } if scheme.eq_ignore_ascii_case("bearer") || scheme.is_empty() => {
            Some(Auth::Token { prefix: "Bearer".to_owned() })
        }
        SecuritySchemeKind::Http { scheme, .. } => {
            let mut chars = scheme.chars();
            let prefix = chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default();
            // Only a token68-safe word can be a header prefix.
            prefix.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_').then_some(Auth::Token { prefix })
        }
        SecuritySchemeKind::OAuth2 { .. } | SecuritySchemeKind::OpenIdConnect { .. } => {
            Some(Auth::Token { prefix: "Bearer".to_owned() })
        }
        SecuritySchemeKind::MutualTls => None,
    }
}

fn is_json(media: &str) -> bool {
    let media = media.to_ascii_lowercase();
    let essence = media.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json") || essence.contains("/json") || essence == "*/*"
}

fn body_kind(media: &str) -> BodyKind {
    let essence = media.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if is_json(&essence) {
        BodyKind::Json
    } else if essence == "application/x-www-form-urlencoded" {
        BodyKind::Form
    } else if essence.starts_with("multipart/") {
        BodyKind::Multipart
    } else if essence.starts_with("text/") {
        BodyKind::Text
    } else {
        BodyKind::Binary
    }
}

fn body_rank(kind: BodyKind) -> u8 {
    match kind {
        BodyKind::Json => 0,
        BodyKind::Form => 1,
        BodyKind::Multipart => 2,
        BodyKind::Text => 3,
        BodyKind::Binary => 4,
    }
}

/// The `{name}`s of a path template, in order.
pub(crate) fn template_names(path: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let after = rest.get(start + 1..).unwrap_or("");
        let Some(end) = after.find('}') else { break };
        let name = after.get(..end).unwrap_or("");
        if !name.is_empty() && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
        rest = after.get(end + 1..).unwrap_or("");
    }
    names
}

/// The literal pieces and placeholders of a path template.
pub(crate) enum PathPiece<'p> {
    Literal(&'p str),
    Param(&'p str),
}

pub(crate) fn path_pieces(path: &str) -> Vec<PathPiece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let (before, after) = (rest.get(..start).unwrap_or(""), rest.get(start + 1..).unwrap_or(""));
        let Some(end) = after.find('}') else { break };
        if !before.is_empty() {
            pieces.push(PathPiece::Literal(before));
        }
        pieces.push(PathPiece::Param(after.get(..end).unwrap_or("")));
        rest = after.get(end + 1..).unwrap_or("");
    }
    if !rest.is_empty() {
        pieces.push(PathPiece::Literal(rest));
    }
    pieces
}

pub(crate) fn plan<'a>(spec: &'a Spec, operation: &'a Operation) -> OperationPlan<'a> {
    let mut path_params: Vec<PathParam<'a>> = template_names(&operation.path)
        .into_iter()
        .map(|name| {
            let parameter =
                operation.parameters.iter().find(|p| p.location == ParameterLocation::Path && p.name == name);
            PathParam { name, parameter }
        })
        .collect();
    for parameter in operation.parameters.iter().filter(|p| p.location == ParameterLocation::Path) {
        if !path_params.iter().any(|p| p.name == parameter.name) {
            path_params.push(PathParam { name: parameter.name.clone(), parameter: Some(parameter) });
        }
    }
    let other_params = operation.parameters.iter().filter(|p| p.location != ParameterLocation::Path).collect();
    let body = operation.request_body.as_ref().and_then(|body| {
        let (media, content) = body.content.iter().min_by_key(|(media, _)| body_rank(body_kind(media)))?;
        Some(BodyPlan {
            kind: body_kind(media),
            media_type: media.clone(),
            schema: content.schema.as_ref(),
            required: body.required,
        })
    });
    let mut successes: Vec<_> = operation
        .responses
        .iter()
        .filter(|(status, _)| status.starts_with('2'))
        .map(|(_, response)| response)
        .collect();
    if successes.is_empty() {
        successes.extend(operation.responses.get("default"));
    }
    // A HEAD response never has a body, whatever the document says.
    let mut outcomes = Vec::new();
    for response in successes {
        let outcome = if operation.method == HttpMethod::Head {
            Outcome::Empty
        } else {
            match response.content.iter().min_by_key(|(media, _)| body_rank(body_kind(media))) {
                None => Outcome::Empty,
                Some((media, content)) => match body_kind(media) {
                    BodyKind::Json => Outcome::Json(content.schema.as_ref()),
                    BodyKind::Text | BodyKind::Form => Outcome::Text,
                    BodyKind::Multipart | BodyKind::Binary => Outcome::Binary,
                },
            }
        };
        outcomes.push(outcome);
    }
    let security = spec
        .effective_security(operation)
        .iter()
        .filter(|requirement| {
            requirement
                .schemes
                .keys()
                .all(|name| spec.security_schemes.get(name).is_some_and(|scheme| auth_of(&scheme.kind).is_some()))
        })
        .map(|requirement| requirement.schemes.keys().cloned().collect())
        .collect();
    OperationPlan { operation, path_params, other_params, body, outcomes, security }
}

/// Whether a schema describes binary content (`format: binary`).
pub(crate) fn is_binary(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("binary")
        && schema_types(schema).types.iter().all(|t| *t == "string")
}

/// The base name of an operation's method: its `operationId`, or the method
/// and path (`get /pets/{petId}` -> get pets petId).
pub(crate) fn operation_base_name(operation: &Operation) -> String {
    match operation.operation_id.as_deref() {
        Some(id) if id.chars().any(|c| c.is_ascii_alphanumeric()) => id.to_owned(),
        _ => format!("{} {}", operation.method.key(), operation.path),
    }
}

/// The default base URL: the first server with its variables at their
/// defaults, without a trailing slash.
pub(crate) fn default_base_url(spec: &Spec) -> String {
    let Some(server) = spec.servers.first() else { return String::new() };
    let mut url = server.url.clone();
    for (name, variable) in &server.variables {
        url = url.replace(&format!("{{{name}}}"), &variable.default);
    }
    url.trim_end_matches('/').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        assert_eq!(template_names("/a/{x}/b/{y}.{x}"), ["x", "y"]);
        let pieces = path_pieces("/a/{x}/b");
        assert_eq!(pieces.len(), 3);
        assert!(matches!(pieces.get(1), Some(PathPiece::Param("x"))));
        assert!(template_names("/broken/{x").is_empty());
    }

    #[test]
    fn media_types() {
        assert_eq!(body_kind("application/json; charset=utf-8"), BodyKind::Json);
        assert_eq!(body_kind("application/vnd.github+json"), BodyKind::Json);
        assert_eq!(body_kind("multipart/form-data"), BodyKind::Multipart);
        assert_eq!(body_kind("application/octet-stream"), BodyKind::Binary);
        assert_eq!(body_kind("text/plain"), BodyKind::Text);
    }
}
