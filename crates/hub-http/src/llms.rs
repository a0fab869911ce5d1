//! The docs for assistants: `llms.txt` (the llms.txt convention: the API in
//! one Markdown index with a link per page) and a Markdown rendition beside
//! each operation and schema page (`.../op/<key>.md`, `.../schemas/<name>.md`),
//! written from the same parsed description as the HTML pages.
//!
//! Descriptions are the author's Markdown, passed through as written (the
//! reader is a model or a person reading text, never a browser), so nothing
//! here is HTML.

use std::fmt::Write as _;

use serde_json::Value;
use spec::{Operation, Spec};

/// Largest JSON schema shown inline; larger ones are cut with a note.
const MAX_SCHEMA_CHARS: usize = 16 * 1024;

/// `llms.txt` for one version: title, summary, and a link per operation
/// (by tag) and per schema. `base` is the version's docs URL.
pub fn index(site: &docs_render::Site, base: &str) -> String {
    let spec = site.spec();
    let mut out = String::new();
    let title = if spec.title.is_empty() { "API" } else { spec.title.as_str() };
    let _ = writeln!(out, "# {title}\n");
    let summary =
        spec.summary.as_deref().or(spec.description.as_deref()).map(|d| docs_render::markdown::first_line(d, 300));
    if let Some(summary) = summary.filter(|s| !s.is_empty()) {
        let _ = writeln!(out, "> {summary}\n");
    }
    if !spec.api_version.is_empty() {
        let _ = writeln!(out, "Version {}. The whole description: {base}/openapi\n", spec.api_version);
    }
    let mut by_tag: Vec<(String, Vec<String>)> = Vec::new();
    for (op, key) in spec.operations.iter().zip(site.operation_keys()) {
        let tag = op.tags.first().cloned().unwrap_or_else(|| "Operations".to_owned());
        let line = format!(
            "- [{} {}]({base}/op/{}.md){}",
            op.method,
            op.path,
            docs_render::encode(key),
            op.summary.as_deref().map(|s| format!(": {}", s.trim())).unwrap_or_default()
        );
        match by_tag.iter_mut().find(|(t, _)| *t == tag) {
            Some((_, lines)) => lines.push(line),
            None => by_tag.push((tag, vec![line])),
        }
    }
    for (tag, lines) in by_tag {
        let _ = writeln!(out, "## {tag}\n");
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
    }
    if !spec.schemas.is_empty() {
        let _ = writeln!(out, "## Schemas\n");
        for name in spec.schemas.keys() {
            let _ = writeln!(out, "- [{name}]({base}/schemas/{}.md)", docs_render::encode(name));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
use hub_core::assistant::operation_of;

/// The Markdown rendition of an operation page.
pub fn operation(spec: &Spec, op: &Operation) -> String {
    let title = format!("{} {}", op.method, op.path);
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", op.summary.as_deref().map_or(title.as_str(), str::trim));
    let _ = writeln!(out, "`{} {}`{}\n", op.method, op.path, if op.deprecated { " (deprecated)" } else { "" });
    if let Some(id) = &op.operation_id {
        let _ = writeln!(out, "operationId: `{id}`\n");
    }
    if let Some(description) = &op.description {
        let _ = writeln!(out, "{}\n", description.trim());
    }
    let security: Vec<String> = spec
        .effective_security(op)
        .iter()
        .map(|r| r.schemes.keys().map(String::as_str).collect::<Vec<_>>().join(" + "))
        .filter(|s| !s.is_empty())
        .collect();
    if !security.is_empty() {
        let _ = writeln!(out, "Authentication: {}\n", security.join(", or "));
    }
    if !op.parameters.is_empty() {
        out.push_str("## Parameters\n\n| name | in | required | type | description |\n|---|---|---|---|---|\n");
        for p in &op.parameters {
            let ty = p.schema.as_ref().map(type_of).unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                p.name,
                p.location.as_str(),
                if p.required { "yes" } else { "no" },
                ty,
                cell(p.description.as_deref().unwrap_or(""))
            );
        }
        out.push('\n');
    }
    if let Some(body) = &op.request_body {
        let _ = writeln!(out, "## Request body{}\n", if body.required { " (required)" } else { "" });
        if let Some(description) = &body.description {
            let _ = writeln!(out, "{}\n", description.trim());
        }
        for (media, content) in &body.content {
            let _ = writeln!(out, "`{media}`\n");
            if let Some(schema) = &content.schema {
                out.push_str(&schema_block(schema));
            }
            if let Some(example) = docs_render::examples::media_example(spec, content, mock::sample::Direction::Request)
            {
                let _ = writeln!(out, "Example:\n\n```json\n{}\n```\n", pretty(&example));
            }
        }
    }
    if !op.responses.is_empty() {
        out.push_str("## Responses\n\n");
        for (status, response) in &op.responses {
            let _ = writeln!(out, "### {status}\n");
            if !response.description.trim().is_empty() {
                let _ = writeln!(out, "{}\n", response.description.trim());
            }
            for (media, content) in &response.content {
                let _ = writeln!(out, "`{media}`\n");
                if let Some(schema) = &content.schema {
                    out.push_str(&schema_block(schema));
                }
            }
        }
    }
    out
}

/// The Markdown rendition of a schema page.
pub fn schema(spec: &Spec, name: &str) -> Option<String> {
    let value = spec.schemas.get(name)?;
    let mut out = format!("# {name}\n\n");
    if let Some(description) = value.get("description").and_then(Value::as_str) {
        let _ = writeln!(out, "{}\n", description.trim());
    }
    if let Some(properties) = value.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> = value
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        out.push_str("| property | type | required | description |\n|---|---|---|---|\n");
        for (property, schema) in properties {
            let _ = writeln!(
                out,
                "| `{property}` | {} | {} | {} |",
                type_of(schema),
                if required.contains(&property.as_str()) { "yes" } else { "no" },
                cell(schema.get("description").and_then(Value::as_str).unwrap_or(""))
            );
        }
        out.push('\n');
    }
    out.push_str(&schema_block(value));
    Some(out)
}

/// A schema's type in a few characters: `string (email)`, `array of Pet`, `Pet`.
fn type_of(schema: &Value) -> String {
    if let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.rsplit('/').next()) {
        return name.to_owned();
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            format!("array of {}", schema.get("items").map(type_of).unwrap_or_else(|| "any".to_owned()))
        }
        Some(Value::String(t)) => match schema.get("format").and_then(Value::as_str) {
            Some(format) => format!("{t} ({format})"),
            None => t.clone(),
        },
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        _ => ["oneOf", "anyOf", "allOf"]
            .iter()
            .find(|k| schema.get(**k).is_some())
            .map_or_else(|| "any".to_owned(), |k| (*k).to_owned()),
    }
}

fn schema_block(schema: &Value) -> String {
    let mut text = pretty(schema);
    if text.len() > MAX_SCHEMA_CHARS {
        let cut = (0..=MAX_SCHEMA_CHARS).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        text.truncate(cut);
        text.push_str("\n… (cut; the whole description is linked from llms.txt)");
    }
    format!("```json\n{text}\n```\n\n")
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Text for one Markdown table cell: one line, pipes escaped.
fn cell(text: &str) -> String {
    docs_render::markdown::first_line(text, 200).replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r#"
openapi: 3.0.3
info: {title: Pets, version: '2', description: "Pets for everyone.\n\nMore."}
paths:
  /pets/{id}:
    get:
      operationId: getPet
      tags: [pets]
      summary: Get a pet
      parameters:
        - {name: id, in: path, required: true, schema: {type: string, format: uuid}, description: "The | id"}
      responses:
        '200':
          description: The pet
          content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
components:
  schemas:
    Pet:
      type: object
      description: A pet.
      required: [name]
      properties:
        name: {type: string}
        tags: {type: array, items: {type: string}}
"#;

    #[test]
    fn an_operation_and_a_schema_read_as_markdown() {
        let spec = spec::parse(SPEC.as_bytes()).unwrap();
        let page = operation(&spec, operation_of(&spec, "GET /pets/{id}").unwrap());
        assert!(page.starts_with("# Get a pet\n"), "{page}");
        assert!(page.contains("`GET /pets/{id}`") && page.contains("operationId: `getPet`"), "{page}");
        assert!(page.contains("| `id` | path | yes | string (uuid) | The \\| id |"), "{page}");
        assert!(page.contains("### 200") && page.contains("\"$ref\": \"#/components/schemas/Pet\""), "{page}");
        assert!(operation_of(&spec, "DELETE /pets/{id}").is_none());
        let pet = schema(&spec, "Pet").unwrap();
        assert!(
            pet.contains("| `name` | string | yes |") && pet.contains("| `tags` | array of string | no |"),
            "{pet}"
        );
        assert!(schema(&spec, "Nope").is_none());
    }

    #[test]
    fn the_index_links_every_operation_and_schema() {
        let spec = spec::parse(SPEC.as_bytes()).unwrap();
        let site = docs_render::Site::new(spec);
        let text = index(&site, "https://hub.example/docs/pets/2");
        assert!(text.starts_with("# Pets\n\n> Pets for everyone.\n"), "{text}");
        assert!(text.contains("## pets\n\n- [GET /pets/{id}](https://hub.example/docs/pets/2/op/"), "{text}");
        assert!(text.contains(".md): Get a pet"), "{text}");
        assert!(text.contains("## Schemas\n\n- [Pet](https://hub.example/docs/pets/2/schemas/Pet.md)"), "{text}");
    }
}
