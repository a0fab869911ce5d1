//! No false breaking changes: a document against itself, against a JSON
//! re-serialisation with every key and parameter list reversed, against a
//! copy whose components are renamed, inlined or wrapped, and a Swagger 2.0
//! description against the OpenAPI 3 description of the same API.

use serde_json::{Map, Value};

use crate::support::{check, parse, shared_specs};

fn reversed(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().rev().map(|(key, value)| (key.clone(), reversed(value))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

/// Reverses key order everywhere and the order of parameter lists and
/// enum values, which carry no meaning.
fn reordered(value: &Value) -> Value {
    let mut out = reversed(value);
    reverse_lists(&mut out);
    out
}

fn reverse_lists(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if (key == "parameters" || key == "enum" || key == "required")
                    && let Value::Array(items) = child
                {
                    items.reverse();
                }
                reverse_lists(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(reverse_lists),
        _ => {}
    }
}

/// Renames every component schema `X` to `XRenamed`, references included.
fn renamed(value: &Value, section: &str) -> Value {
    let text = value.to_string().replace(&format!("\"#/{section}/"), &format!("\"#/{section}/Renamed"));
    let mut out: Value = serde_json::from_str(&text).unwrap();
    let container = section.split('/').try_fold(&mut out, |node, key| node.get_mut(key));
    if let Some(Value::Object(schemas)) = container {
        let taken = std::mem::take(schemas);
        *schemas = taken.into_iter().map(|(name, schema)| (format!("Renamed{name}"), schema)).collect();
    }
    out
}

#[test]
fn every_shared_document_against_itself_has_no_changes() {
    let Some(root) = shared_specs() else { return };
    for dir in ["openapi3", "swagger2", "graphql"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        let mut paths: Vec<_> = entries.map(|entry| entry.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(spec) = spec::parse(&bytes) else {
                eprintln!("skipping {}: does not parse", path.display());
                continue;
            };
            let report = diff::diff(&spec, &spec).unwrap();
            assert!(
                report.changes.is_empty(),
                "{}: {:#?}",
                path.display(),
                &report.changes[..report.changes.len().min(5)]
            );
            assert_eq!(report.bump, diff::Bump::Patch);
        }
    }
}

#[test]
fn json_documents_reordered_and_renamed_have_no_changes() {
    let Some(root) = shared_specs() else { return };
    let files = [
        ("openapi3/oai-petstore-expanded.json", "components/schemas"),
        ("openapi3/oai-link-example.json", "components/schemas"),
        ("openapi3/oai-uspto.json", "components/schemas"),
        ("swagger2/oai-petstore.json", "definitions"),
        ("swagger2/oai-uber.json", "definitions"),
    ];
    for (file, section) in files {
        let path = root.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            eprintln!("skipping {file}: absent");
            continue;
        };
        let original = parse(&text);
        let value: Value = serde_json::from_str(&text).unwrap();
        for (what, variant) in [
            ("compact", serde_json::to_string(&value).unwrap()),
            ("reordered", serde_json::to_string_pretty(&reordered(&value)).unwrap()),
            ("renamed", serde_json::to_string(&renamed(&value, section)).unwrap()),
        ] {
            let report = diff::diff(&original, &parse(&variant)).unwrap();
            assert!(report.changes.is_empty(), "{file} {what}: {:#?}", report.changes);
        }
    }
}

const YAML: &str = r"
openapi: 3.0.3
info: {title: Pets, version: '1'}
paths:
  /pets/{id}:
    get:
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
        - {name: fields, in: query, schema: {type: string, enum: [a, b]}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
components:
  schemas:
    Pet:
      type: object
      required: [id]
      properties:
        id: {type: integer, format: int64}
        name: {type: string, nullable: true}
        tags: {type: array, items: {$ref: '#/components/schemas/Tag'}}
    Tag: {type: object, properties: {label: {type: string}}}
";

#[test]
fn yaml_against_json_inlined_and_wrapped_has_no_changes() {
    let json = r##"{"openapi": "3.0.3", "info": {"title": "Pets", "version": "1"},
      "components": {"schemas": {"Tag": {"properties": {"label": {"type": "string"}}, "type": "object"}}},
      "paths": {"/pets/{petId}": {"get": {
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
          "allOf": [{"type": "object", "required": ["id"], "properties": {
            "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}},
            "name": {"type": ["string", "null"]},
            "id": {"format": "int64", "type": "integer"}}}]}}}}},
        "parameters": [
          {"in": "query", "name": "fields", "schema": {"enum": ["b", "a"], "type": "string"}},
          {"in": "path", "name": "petId", "required": true, "schema": {"type": "string"}}]}}}}"##;
    // The only difference is the path variable's name.
    check(YAML, json, &["path-parameter-renamed"]);
}

#[test]
fn swagger_and_openapi_of_the_same_api_have_no_changes() {
    let swagger = r##"{"swagger": "2.0", "info": {"title": "Pets", "version": "1"},
      "host": "api.pets.test", "basePath": "/v1", "schemes": ["https"],
      "consumes": ["application/json"], "produces": ["application/json"],
      "paths": {"/pets": {
        "get": {"parameters": [{"name": "limit", "in": "query", "type": "integer", "maximum": 100}],
          "responses": {"200": {"description": "ok", "schema": {"type": "array", "items": {"$ref": "#/definitions/Pet"}}}}},
        "post": {"parameters": [{"name": "body", "in": "body", "required": true, "schema": {"$ref": "#/definitions/Pet"}}],
          "responses": {"201": {"description": "created", "schema": {"$ref": "#/definitions/Pet"}}}}}},
      "definitions": {"Pet": {"type": "object", "required": ["name"],
        "properties": {"name": {"type": "string"}, "nick": {"type": "string", "x-nullable": true}}}}}"##;
    let openapi = r"
openapi: 3.0.3
info: {title: Pets, version: '1'}
servers: [{url: 'https://api.pets.test/v1'}]
paths:
  /pets:
    get:
      parameters: [{name: limit, in: query, schema: {type: integer, maximum: 100}}]
      responses:
        '200': {description: ok, content: {application/json: {schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}}}}
    post:
      requestBody: {required: true, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
      responses:
        '201': {description: created, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
components:
  schemas:
    Pet: {type: object, required: [name], properties: {name: {type: string}, nick: {type: string, nullable: true}}}
";
    check(swagger, openapi, &[]);
    check(openapi, swagger, &[]);
}

#[test]
fn graphql_against_http_is_incompatible() {
    let sdl = parse("type Query { a: Int }");
    let http = parse(YAML);
    let err = diff::diff(&sdl, &http).unwrap_err();
    assert!(matches!(err, diff::DiffError::Incompatible { .. }));
    assert!(err.to_string().contains("graphql"), "{err}");
    assert!(diff::diff(&http, &sdl).is_err());
}
