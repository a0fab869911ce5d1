//! Saved requests with environments, as the hub's API workbench keeps them:
//! the limits of a request and of an environment, `{{name}}` placeholders
//! resolved from an environment at run time, secrets masked in whatever is
//! shown after a run, Postman collection v2.1 and environment interchange,
//! and "copy as curl".
//!
//! Pure: no I/O. The hub stores, gates, seals and sends; this crate decides
//! what a request is and what it becomes.

pub mod curl;
pub mod postman;
pub mod template;

use serde::{Deserialize, Serialize};

/// Methods a saved request may use.
pub const METHODS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];
pub const MAX_NAME_CHARS: usize = 200;
/// A folder is a path of at most this many names joined by `/`.
pub const MAX_FOLDER_DEPTH: usize = 8;
pub const MAX_FOLDER_CHARS: usize = 300;
pub const MAX_URL_CHARS: usize = 8 * 1024;
pub const MAX_HEADERS: usize = 50;
pub const MAX_QUERY: usize = 100;
/// Characters of one header or query value.
pub const MAX_VALUE_CHARS: usize = 8 * 1024;
/// Bytes of a request body (the Try-It relay's own limit).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Variables and secrets of one environment, together.
pub const MAX_VARIABLES: usize = 200;
pub const MAX_VARIABLE_NAME_CHARS: usize = 100;
/// Saved requests and environments of one project.
pub const MAX_REQUESTS: usize = 500;
pub const MAX_ENVIRONMENTS: usize = 50;
/// Runs kept per saved request (older ones go).
pub const MAX_RUNS: usize = 50;

/// A refusal, named by the field it concerns (`url`, `headers`, `secrets.token`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct Invalid {
    pub field: String,
    pub message: String,
}

pub(crate) fn invalid(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    Invalid { field: field.into(), message: message.into() }
}

/// A saved request as written: every text may hold `{{name}}` placeholders.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestDraft {
    pub name: String,
    /// Folder path, `Users/Admin`; `None` at the top.
    #[serde(default)]
    pub folder: Option<String>,
    pub method: String,
    /// Absolute (`https://api.example.com/pets`, `{{base}}/pets`) or a path
    /// (`/pets`) resolved against the project's base URL.
    pub url: String,
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    #[serde(default)]
    pub query: Vec<(String, String)>,
    #[serde(default)]
    pub body: Option<String>,
}

impl RequestDraft {
    /// Normalises (method in capitals, names trimmed, folder segments
    /// trimmed and joined by `/`) and checks every limit.
    ///
    /// # Errors
    /// The first field that is out of bounds.
    pub fn normalise(mut self) -> Result<Self, Invalid> {
        self.name = self.name.trim().to_owned();
        if self.name.is_empty() || self.name.chars().count() > MAX_NAME_CHARS || self.name.chars().any(char::is_control)
        {
            return Err(invalid("name", format!("1 to {MAX_NAME_CHARS} characters without control characters")));
        }
        self.folder = normalise_folder(self.folder.as_deref())?;
        self.method = self.method.trim().to_ascii_uppercase();
        if !METHODS.contains(&self.method.as_str()) {
            return Err(invalid("method", format!("one of {}", METHODS.join(", "))));
        }
        self.url = self.url.trim().to_owned();
        if self.url.is_empty() || self.url.chars().count() > MAX_URL_CHARS || self.url.chars().any(char::is_control) {
            return Err(invalid("url", format!("1 to {MAX_URL_CHARS} characters without control characters")));
        }
        if !(self.url.starts_with('/') || self.url.starts_with("{{") || self.url.contains("://")) {
            return Err(invalid("url", "an absolute URL (https://...), a path starting with `/`, or a `{{variable}}`"));
        }
        check_pairs("headers", &self.headers, MAX_HEADERS, true)?;
        check_pairs("query", &self.query, MAX_QUERY, false)?;
        if self.body.as_ref().is_some_and(|b| b.len() > MAX_BODY_BYTES) {
            return Err(invalid("body", format!("at most {MAX_BODY_BYTES} bytes")));
        }
        if self.body.as_deref() == Some("") {
            self.body = None;
        }
        Ok(self)
    }

    /// Every placeholder name the request uses, in order of first use.
    #[must_use]
    pub fn placeholders(&self) -> Vec<String> {
        let mut names = Vec::new();
        let texts = std::iter::once(self.url.as_str())
            .chain(self.headers.iter().flat_map(|(n, v)| [n.as_str(), v.as_str()]))
            .chain(self.query.iter().flat_map(|(n, v)| [n.as_str(), v.as_str()]))
            .chain(self.body.as_deref());
        for text in texts {
            for name in template::names(text) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }
}

fn normalise_folder(folder: Option<&str>) -> Result<Option<String>, Invalid> {
    let Some(folder) = folder else { return Ok(None) };
    let segments: Vec<&str> = folder.split('/').map(str::trim).filter(|s| !s.is_empty()).collect();
    if segments.is_empty() {
        return Ok(None);
    }
    let joined = segments.join("/");
    if segments.len() > MAX_FOLDER_DEPTH
        || joined.chars().count() > MAX_FOLDER_CHARS
        || joined.chars().any(char::is_control)
    {
        return Err(invalid(
            "folder",
            format!("at most {MAX_FOLDER_DEPTH} names joined by `/`, {MAX_FOLDER_CHARS} characters in all"),
        ));
    }
    Ok(Some(joined))
}

fn check_pairs(field: &str, pairs: &[(String, String)], max: usize, header_names: bool) -> Result<(), Invalid> {
    if pairs.len() > max {
        return Err(invalid(field, format!("at most {max}")));
    }
    for (name, value) in pairs {
        if name.is_empty() || name.chars().count() > MAX_VARIABLE_NAME_CHARS * 2 {
            return Err(invalid(field, "every name is 1 to 200 characters"));
        }
        if header_names && !(template::is_placeholder_only(name) || is_token(name)) {
            return Err(invalid(field, format!("`{name}` is not a header name")));
        }
        if value.chars().count() > MAX_VALUE_CHARS || value.chars().any(|c| c == '\r' || c == '\n') {
            return Err(invalid(
                field,
                format!("the value of `{name}` is at most {MAX_VALUE_CHARS} characters on one line"),
            ));
        }
    }
    Ok(())
}

/// An HTTP token (a header name).
pub(crate) fn is_token(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A variable or secret name: what a placeholder can name.
///
/// # Errors
/// Empty, too long, or with braces or line breaks.
pub fn check_variable_name(field: &str, name: &str) -> Result<(), Invalid> {
    if name.trim() != name
        || name.is_empty()
        || name.chars().count() > MAX_VARIABLE_NAME_CHARS
        || name.chars().any(|c| c == '{' || c == '}' || c.is_control())
    {
        return Err(invalid(
            field,
            format!(
                "`{name}` is not a variable name: 1 to {MAX_VARIABLE_NAME_CHARS} characters, no braces, no spaces around"
            ),
        ));
    }
    Ok(())
}

/// Checks an environment's variables and secrets together: names, values,
/// their count, and that no name is both.
///
/// # Errors
/// The first variable out of bounds.
pub fn check_environment(variables: &[(String, String)], secret_names: &[&str]) -> Result<(), Invalid> {
    if variables.len() + secret_names.len() > MAX_VARIABLES {
        return Err(invalid("variables", format!("at most {MAX_VARIABLES} variables and secrets together")));
    }
    for (name, value) in variables {
        check_variable_name("variables", name)?;
        if value.chars().count() > MAX_VALUE_CHARS {
            return Err(invalid(format!("variables.{name}"), format!("at most {MAX_VALUE_CHARS} characters")));
        }
        if secret_names.contains(&name.as_str()) {
            return Err(invalid("secrets", format!("`{name}` is a variable and a secret; keep one")));
        }
    }
    for name in secret_names {
        check_variable_name("secrets", name)?;
    }
    Ok(())
}

/// A secret's value as checked before it is sealed.
///
/// # Errors
/// Longer than a variable may be.
pub fn check_secret_value(name: &str, value: &str) -> Result<(), Invalid> {
    if value.chars().count() > MAX_VALUE_CHARS {
        return Err(invalid(format!("secrets.{name}"), format!("at most {MAX_VALUE_CHARS} characters")));
    }
    Ok(())
}

/// A request with its placeholders resolved, ready to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub method: String,
    pub url: url::Url,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    /// Placeholder names no environment held, left as written.
    pub unknown: Vec<String>,
}

/// Resolves `draft` with `lookup`; a URL that is a path after resolution
/// is joined to `base_url` (the project's API base).
///
/// # Errors
/// A URL that is not an absolute `http`/`https` URL after resolution, a
/// path without a base, or a header that resolution made invalid.
pub fn resolve<'v>(
    draft: &RequestDraft,
    lookup: impl Fn(&str) -> Option<&'v str> + Copy,
    base_url: Option<&str>,
) -> Result<Resolved, Invalid> {
    let mut unknown = std::collections::BTreeSet::new();
    let text = template::resolve(&draft.url, lookup, &mut unknown);
    let absolute = if text.starts_with('/') {
        let Some(base) = base_url else {
            return Err(invalid(
                "url",
                "a path needs the project's base URL: set one on its version, or write the whole URL",
            ));
        };
        format!("{}{text}", base.trim_end_matches('/'))
    } else {
        text
    };
    let mut url = url::Url::parse(&absolute)
        .map_err(|e| invalid("url", format!("`{absolute}` is not a URL after resolution: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("url", "only http and https URLs are sent"));
    }
    if !draft.query.is_empty() {
        let mut pairs = url.query_pairs_mut();
        for (name, value) in &draft.query {
            let name = template::resolve(name, lookup, &mut unknown);
            let value = template::resolve(value, lookup, &mut unknown);
            pairs.append_pair(&name, &value);
        }
    }
    let mut headers = Vec::with_capacity(draft.headers.len());
    for (name, value) in &draft.headers {
        let name = template::resolve(name, lookup, &mut unknown);
        let value = template::resolve(value, lookup, &mut unknown);
        if !is_token(&name) || value.chars().any(|c| c == '\r' || c == '\n') {
            return Err(invalid("headers", format!("`{name}` is not a valid header after resolution")));
        }
        headers.push((name, value));
    }
    let body = draft.body.as_deref().map(|b| template::resolve(b, lookup, &mut unknown));
    Ok(Resolved { method: draft.method.clone(), url, headers, body, unknown: unknown.into_iter().collect() })
}

/// What is shown in place of a secret's value.
pub const MASK: &str = "********";

/// Replaces every occurrence of a secret's value in `text` (as written,
/// and as a URL would carry it, percent- or form-encoded) with [`MASK`].
/// Values shorter than 4 characters are left (masking every `1` of a body
/// would hide more than it protects); the docs say so.
#[must_use]
pub fn mask(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| s.chars().count() >= 4) {
        let form: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
        let percent = form.replace('+', "%20");
        for variant in [(*secret).to_owned(), form, percent] {
            if out.contains(&variant) {
                out = out.replace(&variant, MASK);
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]
mod tests {
    use super::*;

    fn draft() -> RequestDraft {
        RequestDraft {
            name: " List pets ".into(),
            folder: Some(" Pets / Admin /".into()),
            method: "get".into(),
            url: "{{base}}/pets".into(),
            headers: vec![("Authorization".into(), "Bearer {{token}}".into())],
            query: vec![("limit".into(), "{{limit}}".into())],
            body: Some(String::new()),
        }
    }

    #[test]
    fn drafts_are_normalised_and_bounded() {
        let ok = draft().normalise().unwrap();
        assert_eq!(
            (ok.name.as_str(), ok.folder.as_deref(), ok.method.as_str()),
            ("List pets", Some("Pets/Admin"), "GET")
        );
        assert_eq!(ok.body, None, "an empty body is no body");
        assert_eq!(ok.placeholders(), ["base", "token", "limit"]);

        let field = |d: RequestDraft| d.normalise().unwrap_err().field;
        assert_eq!(field(RequestDraft { method: "TRACE".into(), ..draft() }), "method");
        assert_eq!(field(RequestDraft { url: "pets".into(), ..draft() }), "url");
        assert_eq!(field(RequestDraft { name: String::new(), ..draft() }), "name");
        assert_eq!(field(RequestDraft { folder: Some("a/b/c/d/e/f/g/h/i".into()), ..draft() }), "folder");
        assert_eq!(field(RequestDraft { headers: vec![("Bad Name".into(), "x".into())], ..draft() }), "headers");
        assert_eq!(field(RequestDraft { headers: vec![("X".into(), "a\nb".into())], ..draft() }), "headers");
        assert_eq!(field(RequestDraft { body: Some("x".repeat(MAX_BODY_BYTES + 1)), ..draft() }), "body");
        let many = (0..=MAX_QUERY).map(|i| (format!("q{i}"), String::new())).collect();
        assert_eq!(field(RequestDraft { query: many, ..draft() }), "query");
        assert!(RequestDraft { url: "/pets".into(), ..draft() }.normalise().is_ok());
        assert!(RequestDraft { url: "https://api.example.com".into(), ..draft() }.normalise().is_ok());
    }

    #[test]
    fn requests_resolve_against_an_environment_and_a_base() {
        let vars = |name: &str| match name {
            "token" => Some("t0k3n"),
            "limit" => Some("5 & more"),
            "base" => Some("https://api.example.com/v1"),
            _ => None,
        };
        let ok = draft().normalise().unwrap();
        let sent = resolve(&ok, vars, None).unwrap();
        assert_eq!(sent.url.as_str(), "https://api.example.com/v1/pets?limit=5+%26+more");
        assert_eq!(sent.headers, [("Authorization".to_owned(), "Bearer t0k3n".to_owned())]);
        assert!(sent.unknown.is_empty());

        let path = RequestDraft { url: "/pets/{{id}}".into(), query: vec![], ..ok.clone() };
        let joined = resolve(&path, vars, Some("https://api.example.com/v1/")).unwrap();
        assert_eq!(joined.url.as_str(), "https://api.example.com/v1/pets/%7B%7Bid%7D%7D");
        assert_eq!(joined.unknown, ["id"]);
        assert_eq!(resolve(&path, vars, None).unwrap_err().field, "url");
        let ftp = RequestDraft { url: "ftp://x/{{id}}".into(), ..ok.clone() };
        assert_eq!(resolve(&ftp, vars, None).unwrap_err().field, "url");
        let bad_header = RequestDraft { headers: vec![("{{limit}}".into(), "x".into())], ..ok };
        assert_eq!(resolve(&bad_header, vars, None).unwrap_err().field, "headers");
    }

    #[test]
    fn environments_name_each_value_once() {
        let vars = vec![("base".to_owned(), "https://api.example.com".to_owned())];
        assert!(check_environment(&vars, &["token"]).is_ok());
        assert_eq!(check_environment(&vars, &["base"]).unwrap_err().field, "secrets");
        assert_eq!(check_environment(&[("a{b".into(), String::new())], &[]).unwrap_err().field, "variables");
        assert_eq!(check_environment(&[], &[" padded"]).unwrap_err().field, "secrets");
        assert_eq!(check_secret_value("t", &"x".repeat(MAX_VALUE_CHARS + 1)).unwrap_err().field, "secrets.t");
    }

    #[test]
    fn secrets_are_masked_as_written_and_as_urls_carry_them() {
        let secret = "s3cr3t token+/";
        let text = format!("Bearer {secret} url?k=s3cr3t+token%2B%2F and s3cr3t%20token%2B%2F");
        let masked = mask(&text, &[secret, "ab"]);
        assert!(!masked.contains("s3cr3t"), "{masked}");
        assert_eq!(masked.matches(MASK).count(), 3, "{masked}");
        assert_eq!(mask("ab ab", &["ab"]), "ab ab", "short values are left");
    }
}
