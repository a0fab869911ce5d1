//! Callbacks (OpenAPI 3 `callbacks`) as operations, so their pages can show
//! them the way webhooks are shown. The spec model keeps callbacks as
//! written (`$ref`s kept); this module reads them, following references
//! through the document's components.

use indexmap::IndexMap;
use serde_json::Value;
use spec::{
    Example, Header, HttpMethod, MediaType, Operation, Parameter, ParameterLocation, RequestBody, Response, Spec,
};

/// The operations of one callback: one per runtime expression and method,
/// the expression as the operation's `path`. Entries that are not objects
/// are skipped; a document that the spec parser accepted never fails here.
#[must_use]
pub fn operations(spec: &Spec, callback: &Value) -> Vec<Operation> {
    let Some(Value::Object(callback)) = spec.resolve_value(callback) else { return Vec::new() };
    let mut out = Vec::new();
    for (expression, item) in callback {
        if expression.starts_with("x-") {
            continue;
        }
        let Some(Value::Object(item)) = spec.resolve_value(item) else { continue };
        let shared = parameters(spec, item.get("parameters"));
        for (key, operation) in item {
            let Some(method) = HttpMethod::from_key(key).filter(|m| m.key() == key) else { continue };
            let Some(Value::Object(operation)) = spec.resolve_value(operation) else { continue };
            let mut merged = shared.clone();
            for parameter in parameters(spec, operation.get("parameters")) {
                match merged.iter_mut().find(|p| p.name == parameter.name && p.location == parameter.location) {
                    Some(slot) => *slot = parameter,
                    None => merged.push(parameter),
                }
            }
            out.push(Operation {
                method,
                path: expression.clone(),
                operation_id: string(operation.get("operationId")),
                summary: string(operation.get("summary")),
                description: string(operation.get("description")),
                tags: Vec::new(),
                deprecated: operation.get("deprecated").and_then(Value::as_bool).unwrap_or(false),
                parameters: merged,
                request_body: operation.get("requestBody").and_then(|body| request_body(spec, body)),
                responses: object(spec, operation.get("responses"))
                    .filter(|(status, _)| !status.starts_with("x-"))
                    .map(|(status, response)| (status.clone(), self::response(spec, response)))
                    .collect(),
                security: None,
                servers: Vec::new(),
                callbacks: IndexMap::new(),
                external_docs: None,
                extensions: IndexMap::new(),
            });
        }
    }
    out
}

fn string(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).map(str::to_owned)
}

/// The entries of an object (after following a `$ref`), or none.
fn object<'a>(spec: &'a Spec, value: Option<&'a Value>) -> impl Iterator<Item = (&'a String, &'a Value)> {
    value.and_then(|v| spec.resolve_value(v)).and_then(Value::as_object).into_iter().flatten()
}

fn parameters(spec: &Spec, list: Option<&Value>) -> Vec<Parameter> {
    let Some(Value::Array(list)) = list else { return Vec::new() };
    list.iter()
        .filter_map(|item| {
            let item = spec.resolve_value(item)?.as_object()?;
            let location = match item.get("in").and_then(Value::as_str)? {
                "path" => ParameterLocation::Path,
                "query" => ParameterLocation::Query,
                "header" => ParameterLocation::Header,
                "cookie" => ParameterLocation::Cookie,
                _ => return None,
            };
            Some(Parameter {
                name: item.get("name").and_then(Value::as_str)?.to_owned(),
                location,
                description: string(item.get("description")),
                required: item.get("required").and_then(Value::as_bool).unwrap_or(false)
                    || location == ParameterLocation::Path,
                deprecated: item.get("deprecated").and_then(Value::as_bool).unwrap_or(false),
                allow_empty_value: false,
                style: string(item.get("style")),
                explode: item.get("explode").and_then(Value::as_bool),
                schema: item.get("schema").cloned(),
                example: item.get("example").cloned(),
                examples: examples(spec, item.get("examples")),
                content: content(spec, item.get("content")),
            })
        })
        .collect()
}

fn request_body(spec: &Spec, body: &Value) -> Option<RequestBody> {
    let body = spec.resolve_value(body)?.as_object()?;
    Some(RequestBody {
        description: string(body.get("description")),
        required: body.get("required").and_then(Value::as_bool).unwrap_or(false),
        content: content(spec, body.get("content")),
    })
}

fn response(spec: &Spec, response: &Value) -> Response {
    let Some(response) = spec.resolve_value(response).and_then(Value::as_object) else { return Response::default() };
    Response {
        description: string(response.get("description")).unwrap_or_default(),
        headers: object(spec, response.get("headers"))
            .filter_map(|(name, header)| {
                let header = spec.resolve_value(header)?.as_object()?;
                Some((
                    name.clone(),
                    Header {
                        description: string(header.get("description")),
                        required: header.get("required").and_then(Value::as_bool).unwrap_or(false),
                        deprecated: header.get("deprecated").and_then(Value::as_bool).unwrap_or(false),
                        schema: header.get("schema").cloned(),
                        example: header.get("example").cloned(),
                        examples: examples(spec, header.get("examples")),
                        content: content(spec, header.get("content")),
                    },
                ))
            })
            .collect(),
        content: content(spec, response.get("content")),
        links: IndexMap::new(),
    }
}

fn content(spec: &Spec, content: Option<&Value>) -> IndexMap<String, MediaType> {
    object(spec, content)
        .filter_map(|(media, value)| {
            let value = spec.resolve_value(value)?.as_object()?;
            Some((
                media.clone(),
                MediaType {
                    schema: value.get("schema").cloned(),
                    example: value.get("example").cloned(),
                    examples: examples(spec, value.get("examples")),
                    encoding: IndexMap::new(),
                },
            ))
        })
        .collect()
}

fn examples(spec: &Spec, examples: Option<&Value>) -> IndexMap<String, Example> {
    object(spec, examples)
        .filter_map(|(name, example)| {
            let example = spec.resolve_value(example)?.as_object()?;
            Some((
                name.clone(),
                Example {
                    summary: string(example.get("summary")),
                    description: string(example.get("description")),
                    value: example.get("value").cloned(),
                    external_value: string(example.get("externalValue")),
                },
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_read_through_references() {
        let spec = spec::parse(
            br##"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
              "paths": {"/subscribe": {"post": {"responses": {"201": {"description": "ok"}},
                "callbacks": {"onEvent": {"$ref": "#/components/callbacks/Event"}}}}},
              "components": {
                "callbacks": {"Event": {"{$request.body#/url}": {
                  "parameters": [{"name": "X-Signature", "in": "header", "schema": {"type": "string"}}],
                  "post": {"summary": "An event", "requestBody": {"$ref": "#/components/requestBodies/Event"},
                           "responses": {"200": {"$ref": "#/components/responses/Thanks"}}},
                  "x-note": 1}}},
                "requestBodies": {"Event": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Event"}}}}},
                "responses": {"Thanks": {"description": "Thanks"}},
                "schemas": {"Event": {"type": "object", "properties": {"kind": {"type": "string"}}}}}}"##,
        )
        .unwrap();
        let operation = spec.operations.first().unwrap();
        let callback = operation.callbacks.get("onEvent").unwrap();
        let ops = operations(&spec, callback);
        assert_eq!(ops.len(), 1);
        let op = ops.first().unwrap();
        assert_eq!((op.method, op.path.as_str()), (HttpMethod::Post, "{$request.body#/url}"));
        assert_eq!(op.summary.as_deref(), Some("An event"));
        assert_eq!(op.parameters.first().map(|p| p.name.as_str()), Some("X-Signature"));
        let body = op.request_body.as_ref().unwrap();
        assert!(body.required && body.content.contains_key("application/json"));
        assert_eq!(op.responses.get("200").map(|r| r.description.as_str()), Some("Thanks"));
        assert!(operations(&spec, &Value::String("nonsense".into())).is_empty());
    }
}
