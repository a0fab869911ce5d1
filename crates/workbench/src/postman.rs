//! Postman collection v2.1 and Postman environments, out and in.
//!
//! Out: folders become nested item groups, a path URL is written after
//! `{{baseUrl}}` with the project's base URL as a collection variable, the
//! query joins the URL (placeholders kept whole), a JSON body is `raw` with
//! the `json` language. Environments list variables as `default` and
//! secrets as `secret`, their values empty unless the caller explicitly
//! asks for them.
//!
//! In (through the `postman_collection` crate's typed model): nested
//! folders become `a/b` paths; `raw`, `urlencoded` and `graphql` bodies are
//! kept as text; bearer and API-key auth become headers or query pairs;
//! what has no equivalent here (scripts, form-data and file bodies, other
//! auth) is listed in `skipped` rather than silently dropped.

use postman_collection::v2_1_0 as pm;
use serde_json::{Value, json};

use crate::curl::encode_query;
use crate::{Invalid, MAX_REQUESTS, RequestDraft, invalid};

/// The v2.1 schema URL every exported collection names.
pub const SCHEMA: &str = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
/// Bytes of an imported collection at most.
pub const MAX_IMPORT_BYTES: usize = 5 * 1024 * 1024;
/// Folder nesting read at most (deeper items are skipped).
const MAX_DEPTH: usize = 8;

/// A saved request to export, with its id.
pub struct Exported<'a> {
    pub id: &'a str,
    pub draft: &'a RequestDraft,
}

fn is_json_body(draft: &RequestDraft) -> bool {
    draft.headers.iter().any(|(n, v)| n.eq_ignore_ascii_case("content-type") && v.to_ascii_lowercase().contains("json"))
        || draft.body.as_deref().is_some_and(|b| serde_json::from_str::<Value>(b).is_ok())
}

fn item(request: &Exported<'_>) -> Value {
    let draft = request.draft;
    let mut url = if draft.url.starts_with('/') { format!("{{{{baseUrl}}}}{}", draft.url) } else { draft.url.clone() };
    if !draft.query.is_empty() {
        let query: Vec<String> =
            draft.query.iter().map(|(n, v)| format!("{}={}", encode_query(n), encode_query(v))).collect();
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&query.join("&"));
    }
    let headers: Vec<Value> = draft.headers.iter().map(|(k, v)| json!({ "key": k, "value": v })).collect();
    let mut request_json = json!({ "method": draft.method, "header": headers, "url": url });
    if let (Some(body), Value::Object(map)) = (&draft.body, &mut request_json) {
        let mut body_json = json!({ "mode": "raw", "raw": body });
        if is_json_body(draft)
            && let Value::Object(b) = &mut body_json
        {
            b.insert("options".into(), json!({ "raw": { "language": "json" } }));
        }
        map.insert("body".into(), body_json);
    }
    json!({ "id": request.id, "name": draft.name, "request": request_json })
}

/// Puts `item` into the folder `segments` under `level`, making folders.
fn insert(level: &mut Vec<Value>, segments: &[&str], item: Value) {
    let Some((first, rest)) = segments.split_first() else {
        level.push(item);
        return;
    };
    let at = match level.iter().position(|v| v.get("item").is_some() && v["name"] == *first) {
        Some(at) => at,
        None => {
            level.push(json!({ "name": first, "item": [] }));
            level.len() - 1
        }
    };
    if let Some(Value::Array(children)) = level.get_mut(at).and_then(|group| group.get_mut("item")) {
        insert(children, rest, item);
    }
}

/// A collection of `requests` named `name`. `base_url` becomes the
/// `baseUrl` collection variable that path URLs start with.
#[must_use]
pub fn export_collection(id: &str, name: &str, requests: &[Exported<'_>], base_url: Option<&str>) -> Value {
    // Folders in the order their first request comes, nested by path.
    let mut root: Vec<Value> = Vec::new();
    for request in requests {
        let folder = request.draft.folder.as_deref().unwrap_or("");
        let segments: Vec<&str> = folder.split('/').filter(|s| !s.is_empty()).collect();
        insert(&mut root, &segments, item(request));
    }
    let mut collection = json!({
        "info": { "_postman_id": id, "name": name, "schema": SCHEMA },
        "item": root,
    });
    if let (Some(base), Value::Object(map)) = (base_url, &mut collection) {
        map.insert("variable".into(), json!([{ "key": "baseUrl", "value": base, "type": "string" }]));
    }
    collection
}

/// A Postman environment. `secrets` are `(name, value)`: the value is
/// `None` unless the caller explicitly asked for it, and is then written.
#[must_use]
pub fn export_environment(
    id: &str,
    name: &str,
    variables: &[(String, String)],
    secrets: &[(String, Option<String>)],
) -> Value {
    let mut values: Vec<Value> = variables
        .iter()
        .map(|(key, value)| json!({ "key": key, "value": value, "type": "default", "enabled": true }))
        .collect();
    values.extend(secrets.iter().map(|(key, value)| {
        json!({ "key": key, "value": value.as_deref().unwrap_or(""), "type": "secret", "enabled": true })
    }));
    json!({
        "id": id,
        "name": name,
        "values": values,
        "_postman_variable_scope": "environment",
        "_postman_exported_using": concat!("svc/", env!("CARGO_PKG_VERSION")),
    })
}

/// What an import found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Imported {
    pub name: String,
    pub requests: Vec<RequestDraft>,
    /// The collection's own variables (`baseUrl` and the like).
    pub variables: Vec<(String, String)>,
    /// What was not imported, and why, one line each.
    pub skipped: Vec<String>,
}

/// Reads a Postman collection v2.1.
///
/// # Errors
/// Not JSON, not a v2.1 collection, too large, or holding more requests
/// than a project keeps.
pub fn import_collection(bytes: &[u8]) -> Result<Imported, Invalid> {
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(invalid("body", format!("a collection of at most {MAX_IMPORT_BYTES} bytes")));
    }
    let parsed =
        postman_collection::from_slice(bytes).map_err(|e| invalid("body", format!("not a Postman collection: {e}")))?;
    let postman_collection::PostmanCollection::V2_1_0(spec) = parsed else {
        return Err(invalid("body", "only Postman collection v2.1 is imported: export it from Postman as v2.1"));
    };
    let mut imported = Imported { name: spec.info.name.trim().to_owned(), ..Imported::default() };
    if spec.event.as_ref().is_some_and(|e| !e.is_empty()) {
        imported.skipped.push("collection: scripts are not imported".to_owned());
    }
    for variable in spec.variable.iter().flatten() {
        let key = variable.key.clone().or_else(|| variable.id.clone()).unwrap_or_default();
        if key.is_empty() || variable.disabled == Some(true) {
            continue;
        }
        let value = match &variable.value {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        };
        imported.variables.push((key, value));
    }
    walk(&spec.item, &mut Vec::new(), spec.auth.as_ref(), &mut imported)?;
    Ok(imported)
}

fn walk(
    items: &[pm::Items],
    folder: &mut Vec<String>,
    auth: Option<&pm::Auth>,
    out: &mut Imported,
) -> Result<(), Invalid> {
    for entry in items {
        match entry {
            pm::Items::ItemGroup(group) => {
                let name = group.name.clone().unwrap_or_else(|| "Folder".to_owned()).replace('/', "-");
                if folder.len() >= MAX_DEPTH {
                    out.skipped.push(format!("{}/{name}: folders nested deeper than {MAX_DEPTH}", folder.join("/")));
                    continue;
                }
                folder.push(name);
                walk(&group.item, folder, group.auth.as_ref().or(auth), out)?;
                folder.pop();
            }
            pm::Items::Item(item) => {
                if out.requests.len() >= MAX_REQUESTS {
                    return Err(invalid("body", format!("a collection of at most {MAX_REQUESTS} requests")));
                }
                let name = item.name.clone().unwrap_or_else(|| "Request".to_owned());
                if item.event.as_ref().is_some_and(|e| !e.is_empty()) {
                    out.skipped.push(format!("{name}: scripts are not imported"));
                }
                match request_of(&item.request, auth, &name, &mut out.skipped) {
                    Some(mut draft) => {
                        draft.name = name;
                        draft.folder = (!folder.is_empty()).then(|| folder.join("/"));
                        out.requests.push(draft);
                    }
                    None => out.skipped.push(format!("{name}: no URL")),
                }
            }
        }
    }
    Ok(())
}

fn request_of(
    request: &pm::RequestUnion,
    inherited: Option<&pm::Auth>,
    name: &str,
    skipped: &mut Vec<String>,
) -> Option<RequestDraft> {
    let request = match request {
        pm::RequestUnion::String(url) => {
            let (url, query) = split_query(url.trim());
            return Some(RequestDraft { method: "GET".into(), url, query, ..RequestDraft::default() });
        }
        pm::RequestUnion::RequestClass(request) => request,
    };
    let raw_url = match request.url.as_ref()? {
        pm::Url::String(url) => url.clone(),
        pm::Url::UrlClass(class) => url_of(class),
    };
    let (url, mut query) = split_query(raw_url.trim());
    if url.is_empty() {
        return None;
    }
    let mut headers: Vec<(String, String)> = match &request.header {
        Some(pm::HeaderUnion::HeaderArray(list)) => {
            list.iter().filter(|h| h.disabled != Some(true)).map(|h| (h.key.clone(), h.value.clone())).collect()
        }
        Some(pm::HeaderUnion::String(text)) => text
            .lines()
            .filter_map(|line| line.split_once(':'))
            .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
            .filter(|(n, _)| !n.is_empty())
            .collect(),
        None => Vec::new(),
    };
    if let Some(auth) = request.auth.as_ref().or(inherited) {
        apply_auth(auth, &mut headers, &mut query, name, skipped);
    }
    let body = request
        .body
        .as_ref()
        .filter(|b| b.disabled != Some(true))
        .and_then(|body| body_of(body, &mut headers, name, skipped));
    Some(RequestDraft {
        name: String::new(),
        folder: None,
        method: request.method.clone().unwrap_or_else(|| "GET".to_owned()).to_ascii_uppercase(),
        url,
        headers,
        query,
        body,
    })
}

/// A URL object written back as text: `raw` when Postman kept it, else its
/// parts.
fn url_of(class: &pm::UrlClass) -> String {
    if let Some(raw) = class.raw.as_ref().filter(|r| !r.is_empty()) {
        return raw.clone();
    }
    let host = match &class.host {
        Some(pm::Host::String(h)) => h.clone(),
        Some(pm::Host::StringArray(parts)) => parts.join("."),
        None => String::new(),
    };
    let path = match &class.path {
        Some(pm::UrlPath::String(p)) => p.trim_start_matches('/').to_owned(),
        Some(pm::UrlPath::UnionArray(parts)) => parts
            .iter()
            .map(|p| match p {
                pm::PathElement::String(s) => s.clone(),
                pm::PathElement::PathClass(c) => c.value.clone().unwrap_or_default(),
            })
            .collect::<Vec<_>>()
            .join("/"),
        None => String::new(),
    };
    let mut out = match &class.protocol {
        Some(protocol) => format!("{protocol}://{host}"),
        None => host,
    };
    if let Some(port) = class.port.as_ref().filter(|p| !p.is_empty()) {
        out.push(':');
        out.push_str(port);
    }
    if !path.is_empty() {
        out.push('/');
        out.push_str(&path);
    }
    let query: Vec<String> = class
        .query
        .iter()
        .flatten()
        .filter(|q| q.disabled != Some(true))
        .map(|q| format!("{}={}", q.key.as_deref().unwrap_or(""), q.value.as_deref().unwrap_or("")))
        .collect();
    if !query.is_empty() {
        out.push('?');
        out.push_str(&query.join("&"));
    }
    out
}

/// `url?a=1&b` as the URL and its query pairs, percent-decoded (what the
/// run encodes again); placeholders stay whole.
fn split_query(url: &str) -> (String, Vec<(String, String)>) {
    let Some((base, query)) = url.split_once('?') else { return (url.to_owned(), Vec::new()) };
    let decode = |s: &str| percent_encoding::percent_decode_str(&s.replace('+', " ")).decode_utf8_lossy().into_owned();
    let pairs = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(pair), String::new()),
        })
        .collect();
    (base.to_owned(), pairs)
}

fn attribute(list: Option<&Vec<pm::AuthAttribute>>, key: &str) -> Option<String> {
    list?.iter().find(|a| a.key == key).and_then(|a| match &a.value {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    })
}

fn apply_auth(
    auth: &pm::Auth,
    headers: &mut Vec<(String, String)>,
    query: &mut Vec<(String, String)>,
    name: &str,
    skipped: &mut Vec<String>,
) {
    match auth.auth_type {
        pm::AuthType::Noauth => {}
        pm::AuthType::Bearer => {
            let token = attribute(auth.bearer.as_ref(), "token").unwrap_or_default();
            headers.push(("Authorization".to_owned(), format!("Bearer {token}")));
        }
        pm::AuthType::Apikey => {
            let key = attribute(auth.api_key.as_ref(), "key").unwrap_or_else(|| "X-API-Key".to_owned());
            let value = attribute(auth.api_key.as_ref(), "value").unwrap_or_default();
            if attribute(auth.api_key.as_ref(), "in").as_deref() == Some("query") {
                query.push((key, value));
            } else {
                headers.push((key, value));
            }
        }
        ref other => {
            skipped.push(format!("{name}: {} authentication is not imported; add its header", auth_name(other)))
        }
    }
}

fn auth_name(kind: &pm::AuthType) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_else(|| "this".to_owned())
}

fn body_of(
    body: &pm::Body,
    headers: &mut Vec<(String, String)>,
    name: &str,
    skipped: &mut Vec<String>,
) -> Option<String> {
    let has_type =
        |headers: &Vec<(String, String)>| headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("content-type"));
    match body.mode {
        Some(pm::Mode::Raw) | None => {
            let raw = body.raw.clone().filter(|r| !r.is_empty())?;
            let language = body.options.as_ref().and_then(|o| o.pointer("/raw/language")).and_then(Value::as_str);
            if language == Some("json") && !has_type(headers) {
                headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
            }
            Some(raw)
        }
        Some(pm::Mode::Urlencoded) => {
            let pairs: Vec<String> = body
                .urlencoded
                .iter()
                .flatten()
                .filter(|p| p.disabled != Some(true))
                .map(|p| format!("{}={}", encode_query(&p.key), encode_query(p.value.as_deref().unwrap_or(""))))
                .collect();
            if !has_type(headers) {
                headers.push(("Content-Type".to_owned(), "application/x-www-form-urlencoded".to_owned()));
            }
            Some(pairs.join("&"))
        }
        Some(pm::Mode::Graphql) => {
            let graphql = body.graphql.as_ref()?;
            let variables = graphql
                .get("variables")
                .and_then(Value::as_str)
                .and_then(|v| serde_json::from_str::<Value>(v).ok())
                .unwrap_or(Value::Null);
            if !has_type(headers) {
                headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
            }
            Some(
                json!({ "query": graphql.get("query").cloned().unwrap_or(Value::Null), "variables": variables })
                    .to_string(),
            )
        }
        Some(ref other) => {
            let mode = serde_json::to_value(other).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
            skipped.push(format!("{name}: a {mode} body is not imported"));
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]
mod tests {
    use super::*;

    fn drafts() -> Vec<RequestDraft> {
        vec![
            RequestDraft {
                name: "List pets".into(),
                folder: Some("Pets".into()),
                method: "GET".into(),
                url: "/pets".into(),
                headers: vec![("Authorization".into(), "Bearer {{token}}".into())],
                query: vec![("limit".into(), "{{limit}}".into()), ("q".into(), "a b&c".into())],
                body: None,
            },
            RequestDraft {
                name: "Create pet".into(),
                folder: Some("Pets/Admin".into()),
                method: "POST".into(),
                url: "{{base}}/pets".into(),
                headers: vec![("Content-Type".into(), "application/json".into())],
                query: vec![],
                body: Some(r#"{"name": "{{pet}}"}"#.into()),
            },
            RequestDraft {
                name: "Health".into(),
                method: "GET".into(),
                url: "https://status.example.com/".into(),
                ..Default::default()
            },
        ]
    }

    #[test]
    fn exported_collections_read_back_as_they_were_written() {
        let drafts = drafts();
        let ids = ["r1", "r2", "r3"];
        let exported: Vec<Exported<'_>> = drafts.iter().zip(ids).map(|(draft, id)| Exported { id, draft }).collect();
        let collection = export_collection("c1", "Pets API", &exported, Some("https://api.example.com/v1"));
        assert_eq!(collection["info"]["schema"], SCHEMA);
        assert_eq!(collection["item"][0]["name"], "Pets", "folders first where their first request is");
        assert_eq!(collection["item"][0]["item"][1]["name"], "Admin");
        assert_eq!(collection["item"][0]["item"][0]["request"]["url"], "{{baseUrl}}/pets?limit={{limit}}&q=a+b%26c");
        assert_eq!(
            collection["item"][0]["item"][1]["item"][0]["request"]["body"]["options"]["raw"]["language"],
            "json"
        );

        let back = import_collection(collection.to_string().as_bytes()).unwrap();
        assert_eq!(back.name, "Pets API");
        assert_eq!(back.variables, [("baseUrl".to_owned(), "https://api.example.com/v1".to_owned())]);
        assert!(back.skipped.is_empty(), "{:?}", back.skipped);
        let mut expected = drafts;
        expected[0].url = "{{baseUrl}}/pets".into();
        assert_eq!(back.requests, expected, "a round trip keeps what both sides know");
    }

    #[test]
    fn imports_take_postmans_shapes_and_say_what_they_leave() {
        let written = json!({
            "info": {"name": "Written by hand", "schema": SCHEMA},
            "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]},
            "item": [
                {"name": "Folder A", "item": [
                    {"name": "Nested", "item": [
                        {"name": "Form", "request": {"method": "post",
                            "url": {"protocol": "https", "host": ["api", "example", "com"], "path": ["v1", "forms"],
                                    "query": [{"key": "x", "value": "1"}, {"key": "off", "value": "2", "disabled": true}]},
                            "body": {"mode": "urlencoded", "urlencoded": [{"key": "a", "value": "b c"}]}}}
                    ]},
                    {"name": "Upload", "event": [{"listen": "test", "script": {"exec": ["pm.test()"]}}],
                     "request": {"method": "PUT", "url": "https://api.example.com/v1/files",
                        "auth": {"type": "digest", "digest": []},
                        "body": {"mode": "formdata", "formdata": [{"key": "f", "type": "file", "src": "x"}]}}}
                ]},
                {"name": "Key in query", "request": {"method": "GET", "url": "https://api.example.com/v1/me",
                    "auth": {"type": "apikey", "apikey": [{"key": "in", "value": "query"}, {"key": "key", "value": "api_key"}, {"key": "value", "value": "{{key}}"}]},
                    "header": [{"key": "Accept", "value": "application/json"}, {"key": "X-Off", "value": "1", "disabled": true}]}}
            ]
        });
        let got = import_collection(written.to_string().as_bytes()).unwrap();
        assert_eq!(got.requests.len(), 3);
        let form = &got.requests[0];
        assert_eq!((form.folder.as_deref(), form.method.as_str()), (Some("Folder A/Nested"), "POST"));
        assert_eq!(form.url, "https://api.example.com/v1/forms");
        assert_eq!(form.query, [("x".to_owned(), "1".to_owned())]);
        assert_eq!(form.body.as_deref(), Some("a=b+c"));
        assert!(
            form.headers.contains(&("Authorization".to_owned(), "Bearer {{token}}".to_owned())),
            "the collection's auth applies"
        );
        let upload = &got.requests[1];
        assert_eq!(upload.body, None);
        assert_eq!(got.skipped.len(), 3, "{:?}", got.skipped);
        let keyed = &got.requests[2];
        assert_eq!(keyed.query, [("api_key".to_owned(), "{{key}}".to_owned())]);
        assert_eq!(keyed.headers, [("Accept".to_owned(), "application/json".to_owned())]);
        assert!(keyed.clone().normalise().is_ok());

        assert_eq!(import_collection(b"{}").unwrap_err().field, "body");
        let v1 = json!({"id": "x", "name": "old", "order": [], "requests": []});
        assert!(import_collection(v1.to_string().as_bytes()).is_err());
    }

    #[test]
    fn environments_leave_secret_values_out_unless_asked() {
        let vars = vec![("base".to_owned(), "https://api.example.com".to_owned())];
        let hidden = export_environment("e1", "Staging", &vars, &[("token".to_owned(), None)]);
        assert_eq!(hidden["values"][1], json!({"key": "token", "value": "", "type": "secret", "enabled": true}));
        let shown = export_environment("e1", "Staging", &vars, &[("token".to_owned(), Some("t0k3n".to_owned()))]);
        assert_eq!(shown["values"][1]["value"], "t0k3n");
        assert_eq!(shown["_postman_variable_scope"], "environment");
    }
}
