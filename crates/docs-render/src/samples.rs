//! Code samples of an operation in curl, TypeScript (fetch) and Python
//! (requests), built from the operation's parameters, security and body
//! example. Plain text: the templates escape it.

use serde::Serialize;
use serde_json::Value;
use spec::{ApiKeyLocation, Operation, ParameterLocation, SecuritySchemeKind, Spec};

use crate::examples;

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Sample {
    pub id: &'static str,
    pub label: &'static str,
    pub code: String,
}

/// What a sample request carries.
struct Call {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

/// The samples for `operation` against `server` (no trailing slash).
#[must_use]
pub fn samples(spec: &Spec, operation: &Operation, server: &str) -> Vec<Sample> {
    let call = call(spec, operation, server);
    vec![
        Sample { id: "curl", label: "curl", code: curl(&call) },
        Sample { id: "ts", label: "TypeScript", code: typescript(&call) },
        Sample { id: "python", label: "Python", code: python(&call) },
    ]
}

fn call(spec: &Spec, operation: &Operation, server: &str) -> Call {
    let mut path = operation.path.clone();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    for parameter in &operation.parameters {
        let example = examples::parameter_example(spec, parameter);
        match parameter.location {
            ParameterLocation::Path => {
                let value = example.unwrap_or_else(|| format!("{{{}}}", parameter.name));
                path = path.replace(&format!("{{{}}}", parameter.name), &value);
            }
            ParameterLocation::Query if parameter.required => {
                query.push(format!("{}={}", parameter.name, example.unwrap_or_default()));
            }
            ParameterLocation::Header if parameter.required => {
                headers.push((parameter.name.clone(), example.unwrap_or_default()));
            }
            _ => {}
        }
    }
    let mut url = format!("{}{path}", server.trim_end_matches('/'));
    for requirement in spec.effective_security(operation).iter().take(1) {
        for name in requirement.schemes.keys() {
            match spec.security_schemes.get(name).map(|s| &s.kind) {
                Some(SecuritySchemeKind::ApiKey { name, location: ApiKeyLocation::Header }) => {
                    headers.push((name.clone(), "<API_KEY>".to_owned()));
                }
                Some(SecuritySchemeKind::ApiKey { name, location: ApiKeyLocation::Query }) => {
                    query.push(format!("{name}=<API_KEY>"));
                }
                Some(SecuritySchemeKind::ApiKey { name, location: ApiKeyLocation::Cookie }) => {
                    headers.push(("Cookie".to_owned(), format!("{name}=<API_KEY>")));
                }
                Some(SecuritySchemeKind::Http { scheme, .. }) if scheme == "basic" => {
                    headers.push(("Authorization".to_owned(), "Basic <BASE64_CREDENTIALS>".to_owned()));
                }
                Some(SecuritySchemeKind::Http { .. } | SecuritySchemeKind::OAuth2 { .. })
                | Some(SecuritySchemeKind::OpenIdConnect { .. }) => {
                    headers.push(("Authorization".to_owned(), "Bearer <TOKEN>".to_owned()));
                }
                _ => {}
            }
        }
    }
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    let body = operation.request_body.as_ref().and_then(|body| {
        let (media, content) = body.content.iter().next()?;
        headers.push(("Content-Type".to_owned(), media.clone()));
        let example = examples::media_example(spec, content, mock::sample::Direction::Request)?;
        Some(match example {
            Value::String(text) if !examples::is_json(media) => text,
            other => serde_json::to_string_pretty(&other).unwrap_or_default(),
        })
    });
    Call { method: operation.method.as_str().to_owned(), url, headers, body }
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn curl(call: &Call) -> String {
    let mut out = format!("curl -X {} {}", call.method, shell_quote(&call.url));
    for (name, value) in &call.headers {
        out.push_str(&format!(" \\\n  -H {}", shell_quote(&format!("{name}: {value}"))));
    }
    if let Some(body) = &call.body {
        out.push_str(&format!(" \\\n  --data {}", shell_quote(body)));
    }
    out
}

fn js_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn typescript(call: &Call) -> String {
    let mut out =
        format!("const response = await fetch({}, {{\n  method: {},\n", js_string(&call.url), js_string(&call.method));
    if !call.headers.is_empty() {
        out.push_str("  headers: {\n");
        for (name, value) in &call.headers {
            out.push_str(&format!("    {}: {},\n", js_string(name), js_string(value)));
        }
        out.push_str("  },\n");
    }
    if let Some(body) = &call.body {
        out.push_str(&format!("  body: {},\n", js_string(body)));
    }
    out.push_str("});\nconst data = await response.json();\nconsole.log(response.status, data);");
    out
}

fn python(call: &Call) -> String {
    let mut out = String::from("import requests\n\n");
    out.push_str(&format!(
        "response = requests.request(\n    {},\n    {},\n",
        js_string(&call.method),
        js_string(&call.url)
    ));
    if !call.headers.is_empty() {
        out.push_str("    headers={\n");
        for (name, value) in &call.headers {
            out.push_str(&format!("        {}: {},\n", js_string(name), js_string(value)));
        }
        out.push_str("    },\n");
    }
    if let Some(body) = &call.body {
        out.push_str(&format!("    data={},\n", js_string(body)));
    }
    out.push_str(")\nprint(response.status_code, response.text)");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_carry_path_params_auth_and_body() {
        let spec = spec::parse(
            br"
openapi: 3.0.3
info: {title: t, version: '1'}
components:
  securitySchemes:
    key: {type: apiKey, in: header, name: X-Key}
security: [{key: []}]
paths:
  /pets/{id}:
    put:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}, example: abc}
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {name: {type: string, example: Rex}}}
      responses: {'200': {description: ok}}
",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let op = spec.operations.first().cloned().unwrap_or_else(|| panic!("no op"));
        let samples = samples(&spec, &op, "https://api.example.com/");
        let curl = &samples.first().unwrap_or_else(|| panic!("none")).code;
        assert!(curl.contains("curl -X PUT 'https://api.example.com/pets/abc'"), "{curl}");
        assert!(curl.contains("X-Key: <API_KEY>"), "{curl}");
        assert!(curl.contains("\"name\": \"Rex\""), "{curl}");
        let ts = &samples.get(1).unwrap_or_else(|| panic!("none")).code;
        assert!(ts.contains("await fetch(\"https://api.example.com/pets/abc\""), "{ts}");
        let py = &samples.get(2).unwrap_or_else(|| panic!("none")).code;
        assert!(py.starts_with("import requests"), "{py}");
    }

    #[test]
    fn quotes_are_escaped_for_the_shell() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
