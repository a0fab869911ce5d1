//! Spec-driven auth enforcement (rule 7): presence of credentials only.
//!
//! An operation's own `security` replaces the document's; an empty list (or
//! an empty requirement `{}` among the alternatives) lets anonymous requests
//! through. A requirement is met when every scheme it names finds its
//! credential: an API key in its header, query parameter or cookie, or an
//! `Authorization` header of the right scheme (Bearer for OAuth 2 and
//! OpenID Connect). Mutual TLS cannot be seen at this layer and counts as met.

use serde_json::{Value, json};
use spec::{ApiKeyLocation, Operation, SecuritySchemeKind, Spec};

use crate::Request;

/// Why a request was refused, and how to tell the client.
pub struct Challenge {
    pub www_authenticate: String,
    pub hint: String,
    pub schemes: Vec<Value>,
}

pub fn check(spec: &Spec, operation: &Operation, request: &Request<'_>) -> Option<Challenge> {
    let requirements = spec.effective_security(operation);
    if requirements.is_empty() || requirements.iter().any(spec::SecurityRequirement::is_anonymous) {
        return None;
    }
    let satisfied = requirements.iter().any(|requirement| {
        requirement
            .schemes
            .keys()
            .all(|name| spec.security_schemes.get(name).is_none_or(|scheme| present(&scheme.kind, request)))
    });
    if satisfied {
        return None;
    }
    let mut challenges = Vec::new();
    let mut hints = Vec::new();
    let mut schemes = Vec::new();
    for requirement in requirements {
        for name in requirement.schemes.keys() {
            let Some(scheme) = spec.security_schemes.get(name) else { continue };
            let (challenge, hint) = describe(&scheme.kind);
            if !challenges.contains(&challenge) {
                challenges.push(challenge);
                hints.push(hint);
            }
            schemes.push(json!({ "name": name, "type": kind_name(&scheme.kind) }));
        }
    }
    Some(Challenge {
        www_authenticate: challenges.join(", "),
        hint: format!("this operation requires credentials: {}", hints.join(", or ")),
        schemes,
    })
}

fn kind_name(kind: &SecuritySchemeKind) -> &'static str {
    match kind {
        SecuritySchemeKind::ApiKey { .. } => "apiKey",
        SecuritySchemeKind::Http { .. } => "http",
        SecuritySchemeKind::OAuth2 { .. } => "oauth2",
        SecuritySchemeKind::OpenIdConnect { .. } => "openIdConnect",
        SecuritySchemeKind::MutualTls => "mutualTLS",
    }
}

fn authorization_scheme<'a>(request: &'a Request<'_>) -> Option<&'a str> {
    let value = request.headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, credentials) = value.trim().split_once(' ')?;
    (!credentials.trim().is_empty()).then_some(scheme)
}

fn present(kind: &SecuritySchemeKind, request: &Request<'_>) -> bool {
    match kind {
        SecuritySchemeKind::ApiKey { name, location } => match location {
            ApiKeyLocation::Header => request.headers.get(name.as_str()).is_some_and(|v| !v.is_empty()),
            ApiKeyLocation::Query => {
                crate::negotiate::parse_query(request.query).iter().any(|(key, value)| key == name && !value.is_empty())
            }
            ApiKeyLocation::Cookie => request
                .headers
                .get_all(http::header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(';'))
                .filter_map(|pair| pair.split_once('='))
                .any(|(key, value)| key.trim() == name && !value.trim().is_empty()),
        },
        SecuritySchemeKind::Http { scheme, .. } => {
            authorization_scheme(request).is_some_and(|found| found.eq_ignore_ascii_case(scheme))
        }
        SecuritySchemeKind::OAuth2 { .. } | SecuritySchemeKind::OpenIdConnect { .. } => {
            authorization_scheme(request).is_some_and(|found| found.eq_ignore_ascii_case("bearer"))
        }
        SecuritySchemeKind::MutualTls => true,
    }
}

fn describe(kind: &SecuritySchemeKind) -> (String, String) {
    match kind {
        SecuritySchemeKind::ApiKey { name, location } => {
            let place = match location {
                ApiKeyLocation::Header => "header",
                ApiKeyLocation::Query => "query",
                ApiKeyLocation::Cookie => "cookie",
            };
            (
                format!("ApiKey realm=\"mock\", in=\"{place}\", name=\"{name}\""),
                format!("an API key in the {place} `{name}`"),
            )
        }
        SecuritySchemeKind::Http { scheme, .. } => {
            let title = match scheme.as_str() {
                "basic" => "Basic".to_owned(),
                "bearer" => "Bearer".to_owned(),
                other => other.to_owned(),
            };
            (format!("{title} realm=\"mock\""), format!("an `Authorization: {title} ...` header"))
        }
        SecuritySchemeKind::OAuth2 { .. } => (
            "Bearer realm=\"mock\", error=\"invalid_request\"".to_owned(),
            "an OAuth 2.0 access token as `Authorization: Bearer ...`".to_owned(),
        ),
        SecuritySchemeKind::OpenIdConnect { .. } => (
            "Bearer realm=\"mock\", error=\"invalid_request\"".to_owned(),
            "an OpenID Connect token as `Authorization: Bearer ...`".to_owned(),
        ),
        SecuritySchemeKind::MutualTls => ("Mutual realm=\"mock\"".to_owned(), "a client certificate".to_owned()),
    }
}
