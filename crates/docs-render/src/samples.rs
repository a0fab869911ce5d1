//! Code samples of an operation in curl, JavaScript (`fetch`), Python
//! (`requests`), Go (`net/http`), Ruby (`net/http`), PHP (ext-curl) and Java
//! (`java.net.http`), built from the operation's parameters, security and
//! body example. `code` is plain text; `html` is the same text highlighted
//! on the server (escaped).

use serde::Serialize;
use serde_json::Value;
use spec::{ApiKeyLocation, Operation, ParameterLocation, SecuritySchemeKind, Spec};

use crate::examples;

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Sample {
    pub id: &'static str,
    pub label: &'static str,
    pub code: String,
    pub html: String,
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
    let sample = |id: &'static str, label: &'static str, lang: &str, code: String| Sample {
        id,
        label,
        html: crate::highlight::html(&code, lang),
        code,
    };
    vec![
        sample("curl", "curl", "sh", curl(&call)),
        sample("js", "JavaScript", "js", javascript(&call)),
        sample("python", "Python", "py", python(&call)),
        sample("go", "Go", "go", go(&call)),
        sample("ruby", "Ruby", "rb", ruby(&call)),
        sample("php", "PHP", "php", php(&call)),
        sample("java", "Java", "java", java(&call)),
    ]
}

fn call(spec: &Spec, operation: &Operation, server: &str) -> Call {
    let mut path = operation.path.clone();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    for parameter in &operation.parameters {
        let example = examples::parameter_value(spec, parameter);
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

fn javascript(call: &Call) -> String {
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

/// A Go string literal: a raw string when it can be one, else quoted.
fn go_string(text: &str) -> String {
    if !text.contains('`') && text.contains('"') { format!("`{text}`") } else { js_string(text) }
}

fn go(call: &Call) -> String {
    let mut out = String::from("package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n");
    if call.body.is_some() {
        out.push_str("\t\"strings\"\n");
    }
    out.push_str(")\n\nfunc main() {\n");
    let body = call.body.as_ref().map_or_else(|| "nil".to_owned(), |b| format!("strings.NewReader({})", go_string(b)));
    out.push_str(&format!(
        "\treq, err := http.NewRequest({}, {}, {body})\n\tif err != nil {{\n\t\tpanic(err)\n\t}}\n",
        js_string(&call.method),
        js_string(&call.url)
    ));
    for (name, value) in &call.headers {
        out.push_str(&format!("\treq.Header.Set({}, {})\n", js_string(name), js_string(value)));
    }
    out.push_str(
        "\tres, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tdefer res.Body.Close()\n\tdata, _ := io.ReadAll(res.Body)\n\tfmt.Println(res.StatusCode, string(data))\n}",
    );
    out
}

/// A single-quoted Ruby or PHP string.
fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn ruby(call: &Call) -> String {
    let class = {
        let mut chars = call.method.to_ascii_lowercase().chars().collect::<Vec<_>>();
        if let Some(first) = chars.first_mut() {
            *first = first.to_ascii_uppercase();
        }
        chars.into_iter().collect::<String>()
    };
    let mut out = format!(
        "require 'net/http'\nrequire 'uri'\n\nuri = URI({})\nrequest = Net::HTTP::{class}.new(uri)\n",
        single_quoted(&call.url)
    );
    for (name, value) in &call.headers {
        out.push_str(&format!("request[{}] = {}\n", single_quoted(name), single_quoted(value)));
    }
    if let Some(body) = &call.body {
        out.push_str(&format!("request.body = {}\n", single_quoted(body)));
    }
    out.push_str(
        "\nresponse = Net::HTTP.start(uri.hostname, uri.port, use_ssl: uri.scheme == 'https') do |http|\n  http.request(request)\nend\nputs response.code, response.body",
    );
    out
}

fn php(call: &Call) -> String {
    let mut out = format!(
        "<?php\n$ch = curl_init({});\ncurl_setopt($ch, CURLOPT_CUSTOMREQUEST, {});\ncurl_setopt($ch, CURLOPT_RETURNTRANSFER, true);\n",
        single_quoted(&call.url),
        single_quoted(&call.method)
    );
    if !call.headers.is_empty() {
        out.push_str("curl_setopt($ch, CURLOPT_HTTPHEADER, [\n");
        for (name, value) in &call.headers {
            out.push_str(&format!("    {},\n", single_quoted(&format!("{name}: {value}"))));
        }
        out.push_str("]);\n");
    }
    if let Some(body) = &call.body {
        out.push_str(&format!("curl_setopt($ch, CURLOPT_POSTFIELDS, {});\n", single_quoted(body)));
    }
    out.push_str("$body = curl_exec($ch);\necho curl_getinfo($ch, CURLINFO_RESPONSE_CODE), \"\\n\", $body;");
    out
}

fn java(call: &Call) -> String {
    let mut out = String::from(
        "import java.net.URI;\nimport java.net.http.HttpClient;\nimport java.net.http.HttpRequest;\nimport java.net.http.HttpResponse;\n\n",
    );
    out.push_str(&format!("HttpRequest request = HttpRequest.newBuilder(URI.create({}))\n", js_string(&call.url)));
    for (name, value) in &call.headers {
        out.push_str(&format!("    .header({}, {})\n", js_string(name), js_string(value)));
    }
    let publisher = call.body.as_ref().map_or_else(
        || "HttpRequest.BodyPublishers.noBody()".to_owned(),
        |b| format!("HttpRequest.BodyPublishers.ofString({})", js_string(b)),
    );
    out.push_str(&format!("    .method({}, {publisher})\n    .build();\n", js_string(&call.method)));
    out.push_str(
        "HttpResponse<String> response = HttpClient.newHttpClient()\n    .send(request, HttpResponse.BodyHandlers.ofString());\nSystem.out.println(response.statusCode() + \" \" + response.body());",
    );
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
        let js = &samples.get(1).unwrap_or_else(|| panic!("none")).code;
        assert!(js.contains("await fetch(\"https://api.example.com/pets/abc\""), "{js}");
        let py = &samples.get(2).unwrap_or_else(|| panic!("none")).code;
        assert!(py.starts_with("import requests"), "{py}");
        let labels: Vec<&str> = samples.iter().map(|s| s.label).collect();
        assert_eq!(labels, ["curl", "JavaScript", "Python", "Go", "Ruby", "PHP", "Java"]);
        let code = |i: usize| samples.get(i).map(|s| s.code.clone()).unwrap_or_default();
        assert!(code(3).contains("http.NewRequest(\"PUT\", \"https://api.example.com/pets/abc\""), "{}", code(3));
        assert!(code(3).contains("req.Header.Set(\"X-Key\", \"<API_KEY>\")"), "{}", code(3));
        assert!(code(4).contains("Net::HTTP::Put.new(uri)"), "{}", code(4));
        assert!(code(5).contains("CURLOPT_CUSTOMREQUEST, 'PUT'"), "{}", code(5));
        assert!(code(6).contains(".header(\"X-Key\", \"<API_KEY>\")"), "{}", code(6));
        // Highlighted on the server: keywords get a class, text stays escaped.
        let html = &samples.get(3).map(|s| s.html.clone()).unwrap_or_default();
        assert!(html.contains("<span class=\"k\">func"), "{html}");
        assert!(!html.contains("<API_KEY>"), "{html}");
    }

    #[test]
    fn quotes_are_escaped_for_the_shell() {
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
