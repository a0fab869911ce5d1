//! Upgrading a Swagger 2.0 document into OpenAPI 3 shape, so that the rest
//! of the crate and every consumer sees one model.
//!
//! The mapping follows the one swagger2openapi and the OpenAPI 3.0 spec's
//! migration notes use: `body` and `formData` parameters become a request
//! body with one media type per `consumes` entry, response `schema` becomes
//! `content` per `produces` entry, `definitions` become
//! `components/schemas` (with every `$ref` rewritten), `securityDefinitions`
//! become security schemes, and `schemes`/`host`/`basePath` become servers.
//! Values are moved, never deep-copied, except for shared parameters.

use serde_json::{Map, Value, json};

use crate::error::{SpecError, SpecErrorKind};
use crate::fields::{Object, into_object, take_array, take_object, take_string, take_strings};

const MAX_HOPS: usize = 64;
const DEFAULT_MEDIA_TYPE: &str = "application/json";

/// Keys of a Swagger non-body parameter (and header) that describe its value
/// and so move into the OpenAPI 3 `schema`.
const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
    "x-nullable",
];

/// A Swagger 2.0 document in OpenAPI 3 shape.
pub(crate) struct Upgraded {
    pub(crate) root: Object,
    /// Whether some reference may point outside `#/components/` after the
    /// rewrite; when false, [`crate::refs::detached_references`] would find
    /// none, and its walk over the whole document can be skipped.
    pub(crate) may_have_detached: bool,
}

/// Converts a Swagger 2.0 root object (already reference-checked) into an
/// OpenAPI 3 shaped root object.
pub(crate) fn upgrade(mut root: Object) -> Result<Upgraded, SpecError> {
    let global_consumes = media_types(take_strings(&mut root, "consumes"));
    let global_produces = media_types(take_strings(&mut root, "produces"));
    let shared_parameters = take_object(&mut root, "parameters");
    let shared_responses = take_object(&mut root, "responses");

    let mut out = Object::new();
    out.insert("openapi".to_owned(), json!("3.0.3"));
    if let Some(info) = root.shift_remove("info") {
        out.insert("info".to_owned(), info);
    }
    out.insert("servers".to_owned(), Value::Array(servers(&mut root)));

    let mut components = Object::new();
    let mut schemas = take_object(&mut root, "definitions");
    for schema in schemas.values_mut() {
        upgrade_schema(schema);
    }
    components.insert("schemas".to_owned(), Value::Object(schemas));

    // Shared parameters stay available by their new names for `$ref`s that
    // point at them from elsewhere; operations get them resolved inline.
    let mut parameters = Object::new();
    let mut request_bodies = Object::new();
    for (name, parameter) in &shared_parameters {
        let parameter = into_object(parameter.clone());
        match parameter.get("in").and_then(Value::as_str) {
            Some("body") => {
                request_bodies.insert(name.clone(), body_request(parameter, &global_consumes));
            }
            Some("formData") => {
                request_bodies.insert(name.clone(), form_request(vec![parameter], &global_consumes));
            }
            _ => {
                parameters.insert(name.clone(), Value::Object(plain_parameter(parameter)));
            }
        }
    }
    // Operations copy these converted shared parameters instead of
    // converting their own copy of the Swagger form each time.
    let shared = Shared { parameters: &shared_parameters, converted: &parameters };
    let mut paths = Object::new();
    for (path, item) in take_object(&mut root, "paths") {
        if path.starts_with("x-") {
            continue;
        }
        let item =
            upgrade_path_item(into_object(item), &shared, &global_consumes, &global_produces).map_err(|mut err| {
                err.message = format!("path `{path}`: {}", err.message);
                err
            })?;
        paths.insert(path, Value::Object(item));
    }
    components.insert("parameters".to_owned(), Value::Object(parameters));
    components.insert("requestBodies".to_owned(), Value::Object(request_bodies));

    let mut responses = Object::new();
    for (name, response) in shared_responses {
        responses.insert(name, upgrade_response(response, &global_produces));
    }
    components.insert("responses".to_owned(), Value::Object(responses));
    components.insert(
        "securitySchemes".to_owned(),
        Value::Object(security_schemes(take_object(&mut root, "securityDefinitions"))),
    );
    out.insert("components".to_owned(), Value::Object(components));

    out.insert("paths".to_owned(), Value::Object(paths));

    for key in ["security", "tags", "externalDocs"] {
        if let Some(value) = root.shift_remove(key) {
            out.insert(key.to_owned(), value);
        }
    }
    let mut out = Value::Object(out);
    let may_have_detached = rewrite_references(&mut out);
    Ok(Upgraded { root: into_object(out), may_have_detached })
}

fn media_types(list: Vec<String>) -> Vec<String> {
    if list.is_empty() { vec![DEFAULT_MEDIA_TYPE.to_owned()] } else { list }
}

fn servers(root: &mut Object) -> Vec<Value> {
    let host = take_string(root, "host");
    let base_path = take_string(root, "basePath").unwrap_or_default();
    let schemes = take_strings(root, "schemes");
    let Some(host) = host else {
        // Without a host the API lives relative to wherever the document is
        // served from.
        let url = if base_path.is_empty() { "/".to_owned() } else { base_path };
        return vec![json!({ "url": url })];
    };
    let schemes = if schemes.is_empty() { vec!["https".to_owned()] } else { schemes };
    schemes.into_iter().map(|scheme| json!({ "url": format!("{scheme}://{host}{base_path}") })).collect()
}

/// The document's shared parameters, as written and converted.
struct Shared<'a> {
    parameters: &'a Object,
    /// `plain_parameter` of every shared parameter that is not a body or
    /// form parameter, by name.
    converted: &'a Object,
}

/// A parameter after following `#/parameters/..` references: the shared
/// parameter it names (by name, borrowed), or one written inline.
#[derive(Clone)]
enum Resolved<'a> {
    Shared(&'a str, &'a Object),
    Inline(Object),
}

impl Resolved<'_> {
    fn object(&self) -> &Object {
        match self {
            Self::Shared(_, object) => object,
            Self::Inline(object) => object,
        }
    }

    fn into_object(self) -> Object {
        match self {
            Self::Shared(_, object) => object.clone(),
            Self::Inline(object) => object,
        }
    }

    /// The OpenAPI 3 form of a query, path, header or cookie parameter.
    fn into_plain(self, shared: &Shared<'_>) -> Object {
        match self {
            Self::Shared(name, object) => match shared.converted.get(name) {
                Some(Value::Object(converted)) => converted.clone(),
                _ => plain_parameter(object.clone()),
            },
            Self::Inline(object) => plain_parameter(object),
        }
    }
}

fn upgrade_path_item(
    mut item: Object,
    shared: &Shared<'_>,
    consumes: &[String],
    produces: &[String],
) -> Result<Object, SpecError> {
    let path_parameters = resolve_parameters(take_array(&mut item, "parameters"), shared.parameters)?;
    let mut out = Object::new();
    for (key, value) in item {
        let is_method = crate::model::HttpMethod::from_key(&key).is_some_and(|method| method.key() == key);
        if is_method {
            let operation = upgrade_operation(into_object(value), &path_parameters, shared, consumes, produces)?;
            out.insert(key, Value::Object(operation));
        } else {
            out.insert(key, value);
        }
    }
    Ok(out)
}

/// Follows `#/parameters/..` references to their targets.
fn resolve_parameters<'a>(list: Vec<Value>, shared: &'a Object) -> Result<Vec<Resolved<'a>>, SpecError> {
    list.into_iter()
        .map(|parameter| {
            let mut target: Option<(&'a str, &'a Value)> = None;
            for _ in 0..MAX_HOPS {
                let current = target.map_or(&parameter, |(_, value)| value);
                let Some(reference) = current.get("$ref").and_then(Value::as_str) else {
                    return Ok(match target {
                        None => Resolved::Inline(into_object(parameter)),
                        Some((name, Value::Object(object))) => Resolved::Shared(name, object),
                        Some(_) => Resolved::Inline(Object::new()),
                    });
                };
                let name =
                    reference.strip_prefix("#/parameters/").map(|name| name.replace("~1", "/").replace("~0", "~"));
                let (name, value) = name.and_then(|name| shared.get_key_value(&name)).ok_or_else(|| {
                    SpecError::new(
                        SpecErrorKind::InvalidReference,
                        format!("parameter reference `{reference}` does not name a shared parameter"),
                    )
                })?;
                target = Some((name.as_str(), value));
            }
            Err(SpecError::new(SpecErrorKind::CyclicReference, "parameter reference chain is too long or loops"))
        })
        .collect()
}

fn upgrade_operation(
    mut op: Object,
    path_parameters: &[Resolved<'_>],
    shared: &Shared<'_>,
    global_consumes: &[String],
    global_produces: &[String],
) -> Result<Object, SpecError> {
    let consumes = match op.shift_remove("consumes") {
        Some(Value::Array(list)) if !list.is_empty() => {
            list.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
        }
        _ => global_consumes.to_vec(),
    };
    let produces = match op.shift_remove("produces") {
        Some(Value::Array(list)) if !list.is_empty() => {
            list.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
        }
        _ => global_produces.to_vec(),
    };
    op.shift_remove("schemes");

    // Merge the path's parameters with the operation's (the operation wins
    // by name and location) before splitting off the body, since a body
    // parameter may be declared at either level.
    let mut merged: Vec<Resolved<'_>> = path_parameters.to_vec();
    for parameter in resolve_parameters(take_array(&mut op, "parameters"), shared.parameters)? {
        let key = parameter_key(parameter.object());
        match merged.iter_mut().find(|p| parameter_key(p.object()) == key) {
            Some(slot) => *slot = parameter,
            None => merged.push(parameter),
        }
    }
    let mut plain = Vec::new();
    let mut body = None;
    let mut form = Vec::new();
    for parameter in merged {
        match parameter.object().get("in").and_then(Value::as_str) {
            Some("body") => body = Some(parameter),
            Some("formData") => form.push(parameter.into_object()),
            _ => plain.push(Value::Object(parameter.into_plain(shared))),
        }
    }
    let body = body.map(Resolved::into_object);
    let mut out = Object::new();
    for (key, value) in op {
        match key.as_str() {
            "responses" => {
                let mut responses = Object::new();
                for (status, response) in into_object(value) {
                    let response =
                        if status.starts_with("x-") { response } else { upgrade_response(response, &produces) };
                    responses.insert(status, response);
                }
                out.insert(key, Value::Object(responses));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    out.insert("parameters".to_owned(), Value::Array(plain));
    if let Some(body) = body {
        out.insert("requestBody".to_owned(), body_request(body, &consumes));
    } else if !form.is_empty() {
        out.insert("requestBody".to_owned(), form_request(form, &consumes));
    }
    Ok(out)
}

fn parameter_key(parameter: &Object) -> (Option<&str>, Option<&str>) {
    (parameter.get("name").and_then(Value::as_str), parameter.get("in").and_then(Value::as_str))
}

/// A Swagger query/path/header parameter: its value keywords move into a
/// `schema`, and `collectionFormat` becomes `style`/`explode`.
fn plain_parameter(mut parameter: Object) -> Object {
    let schema = schema_from_keywords(&mut parameter);
    let location = parameter.get("in").and_then(Value::as_str).unwrap_or_default().to_owned();
    match take_string(&mut parameter, "collectionFormat").as_deref() {
        Some("multi") => {
            parameter.insert("style".to_owned(), json!("form"));
            parameter.insert("explode".to_owned(), json!(true));
        }
        Some("ssv") => {
            parameter.insert("style".to_owned(), json!("spaceDelimited"));
            parameter.insert("explode".to_owned(), json!(false));
        }
        Some("pipes") => {
            parameter.insert("style".to_owned(), json!("pipeDelimited"));
            parameter.insert("explode".to_owned(), json!(false));
        }
        Some(_) | None if schema.get("type").and_then(Value::as_str) == Some("array") => {
            // csv is Swagger's default collection format.
            let style = if location == "query" { "form" } else { "simple" };
            parameter.insert("style".to_owned(), json!(style));
            parameter.insert("explode".to_owned(), json!(false));
        }
        _ => {}
    }
    if let Some(example) = parameter.shift_remove("x-example") {
        parameter.insert("example".to_owned(), example);
    }
    parameter.insert("schema".to_owned(), Value::Object(schema));
    parameter
}

fn schema_from_keywords(source: &mut Object) -> Object {
    let mut schema = Object::new();
    // A parameter has a handful of keys and uses two or three of these
    // keywords: scanning its keys once is cheaper than a hashed removal
    // attempt for each of the seventeen.
    let present: Vec<&str> = SCHEMA_KEYS.iter().copied().filter(|key| source.keys().any(|own| own == key)).collect();
    for key in present {
        if let Some(value) = source.shift_remove(key) {
            schema.insert(key.to_owned(), value);
        }
    }
    if schema.get("type").and_then(Value::as_str) == Some("file") {
        schema.insert("type".to_owned(), json!("string"));
        schema.insert("format".to_owned(), json!("binary"));
    }
    // `items` of a Swagger parameter is itself keyword-style; it is already
    // schema-shaped, and `upgrade_schema` below fixes `file` inside it.
    let mut value = Value::Object(schema);
    upgrade_schema(&mut value);
    into_object(value)
}

fn body_request(mut parameter: Object, consumes: &[String]) -> Value {
    let schema = parameter.shift_remove("schema").unwrap_or_else(|| json!({}));
    let example = parameter.shift_remove("x-example");
    let mut content = Map::new();
    for media_type in consumes {
        let mut entry = json!({ "schema": schema.clone() });
        if let (Some(example), Value::Object(map)) = (&example, &mut entry) {
            map.insert("example".to_owned(), example.clone());
        }
        content.insert(media_type.clone(), entry);
    }
    let mut body = Object::new();
    if let Some(description) = parameter.shift_remove("description") {
        body.insert("description".to_owned(), description);
    }
    body.insert("required".to_owned(), parameter.shift_remove("required").unwrap_or(json!(false)));
    body.insert("content".to_owned(), Value::Object(content));
    if let Some(name) = parameter.shift_remove("name") {
        // Code generators use the body's Swagger name for the argument.
        body.insert("x-body-name".to_owned(), name);
    }
    Value::Object(body)
}

fn form_request(parameters: Vec<Object>, consumes: &[String]) -> Value {
    let mut properties = Object::new();
    let mut required = Vec::new();
    let mut has_file = false;
    for mut parameter in parameters {
        let Some(name) = take_string(&mut parameter, "name") else {
            continue;
        };
        has_file |= parameter.get("type").and_then(Value::as_str) == Some("file");
        if take_bool_value(&mut parameter, "required") {
            required.push(json!(name));
        }
        let mut schema = schema_from_keywords(&mut parameter);
        if let Some(text) = parameter.shift_remove("description") {
            schema.insert("description".to_owned(), text);
        }
        properties.insert(name, Value::Object(schema));
    }
    let form_types: Vec<&String> = consumes
        .iter()
        .filter(|m| m.starts_with("multipart/form-data") || m.starts_with("application/x-www-form-urlencoded"))
        .collect();
    let media_types: Vec<String> = if form_types.is_empty() {
        let fallback = if has_file { "multipart/form-data" } else { "application/x-www-form-urlencoded" };
        vec![fallback.to_owned()]
    } else {
        form_types.into_iter().cloned().collect()
    };
    let mut schema = json!({ "type": "object", "properties": properties });
    if let (false, Value::Object(map)) = (required.is_empty(), &mut schema) {
        map.insert("required".to_owned(), Value::Array(required.clone()));
    }
    let mut content = Map::new();
    for media_type in media_types {
        content.insert(media_type, json!({ "schema": schema.clone() }));
    }
    json!({ "required": !required.is_empty(), "content": content })
}

fn take_bool_value(map: &mut Object, key: &str) -> bool {
    matches!(map.shift_remove(key), Some(Value::Bool(true)))
}

fn upgrade_response(response: Value, produces: &[String]) -> Value {
    let mut response = into_object(response);
    if response.contains_key("$ref") {
        return Value::Object(response);
    }
    let schema = response.shift_remove("schema");
    let examples = take_object(&mut response, "examples");
    let mut content = Map::new();
    if let Some(mut schema) = schema {
        if schema.get("type").and_then(Value::as_str) == Some("file") {
            schema = json!({ "type": "string", "format": "binary" });
        }
        for media_type in produces {
            let mut entry = Object::new();
            entry.insert("schema".to_owned(), schema.clone());
            if let Some(example) = examples.get(media_type) {
                entry.insert("example".to_owned(), example.clone());
            }
            content.insert(media_type.clone(), Value::Object(entry));
        }
    }
    // Examples for media types the operation does not list still say what
    // the response looks like.
    for (media_type, example) in examples {
        if !content.contains_key(&media_type) {
            content.insert(media_type, json!({ "example": example }));
        }
    }
    if !content.is_empty() {
        response.insert("content".to_owned(), Value::Object(content));
    }
    if let Some(Value::Object(headers)) = response.get_mut("headers") {
        for header in headers.values_mut() {
            let mut map = into_object(std::mem::take(header));
            let description = map.shift_remove("description");
            let schema = schema_from_keywords(&mut map);
            let mut upgraded = Object::new();
            if let Some(description) = description {
                upgraded.insert("description".to_owned(), description);
            }
            upgraded.insert("schema".to_owned(), Value::Object(schema));
            *header = Value::Object(upgraded);
        }
    }
    response.entry("description").or_insert_with(|| json!(""));
    Value::Object(response)
}

fn security_schemes(definitions: Object) -> Object {
    definitions
        .into_iter()
        .map(|(name, definition)| {
            let mut definition = into_object(definition);
            let description = definition.shift_remove("description");
            let mut scheme = match take_string(&mut definition, "type").as_deref() {
                Some("basic") => json!({ "type": "http", "scheme": "basic" }),
                Some("apiKey") => json!({
                    "type": "apiKey",
                    "name": definition.shift_remove("name").unwrap_or_default(),
                    "in": definition.shift_remove("in").unwrap_or_default(),
                }),
                Some("oauth2") => {
                    let flow = match take_string(&mut definition, "flow").as_deref() {
                        Some("implicit") => "implicit",
                        Some("password") => "password",
                        Some("application") => "clientCredentials",
                        _ => "authorizationCode",
                    };
                    let mut body = Object::new();
                    for (from, to) in [("authorizationUrl", "authorizationUrl"), ("tokenUrl", "tokenUrl")] {
                        if let Some(url) = definition.shift_remove(from) {
                            body.insert(to.to_owned(), url);
                        }
                    }
                    body.insert("scopes".to_owned(), definition.shift_remove("scopes").unwrap_or_else(|| json!({})));
                    json!({ "type": "oauth2", "flows": { flow: body } })
                }
                other => json!({ "type": other.unwrap_or_default() }),
            };
            if let (Some(description), Value::Object(map)) = (description, &mut scheme) {
                map.insert("description".to_owned(), description);
            }
            (name, scheme)
        })
        .collect()
}

/// Schema-level differences: `x-nullable` becomes `nullable`, `type: file`
/// becomes a binary string, and a string `discriminator` becomes an object.
fn upgrade_schema(schema: &mut Value) {
    let mut stack = vec![(schema, false)];
    while let Some((node, is_name_map)) = stack.pop() {
        match node {
            Value::Object(map) => {
                if is_name_map {
                    stack.extend(map.values_mut().map(|child| (child, false)));
                    continue;
                }
                if let Some(Value::Bool(nullable)) = map.get("x-nullable") {
                    let nullable = *nullable;
                    map.insert("nullable".to_owned(), json!(nullable));
                }
                if map.get("type").and_then(Value::as_str) == Some("file") {
                    map.insert("type".to_owned(), json!("string"));
                    map.insert("format".to_owned(), json!("binary"));
                }
                if let Some(Value::String(property)) = map.get("discriminator") {
                    let property = property.clone();
                    map.insert("discriminator".to_owned(), json!({ "propertyName": property }));
                }
                for (key, child) in map.iter_mut() {
                    if key.starts_with("x-") || matches!(key.as_str(), "example" | "default" | "enum") {
                        continue;
                    }
                    let names = crate::refs::is_name_map(key);
                    stack.push((child, names));
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut().map(|item| (item, false))),
            _ => {}
        }
    }
}

/// Rewrites Swagger reference targets to their OpenAPI 3 homes everywhere
/// outside example data and extensions. Returns whether any reference it
/// saw, or any `$ref` of an entry of an `examples` map, is left pointing
/// outside `#/components/`: this walk visits every place that
/// [`crate::refs::detached_references`] looks at, so when it returns false
/// that second walk would find nothing.
fn rewrite_references(root: &mut Value) -> bool {
    let outside = |reference: &str| !reference.starts_with("#/components/");
    let mut may_have_detached = false;
    let mut stack = vec![(root, false)];
    while let Some((node, is_name_map)) = stack.pop() {
        match node {
            Value::Object(map) => {
                if is_name_map {
                    stack.extend(map.values_mut().map(|child| (child, false)));
                    continue;
                }
                // The `$ref` is found while walking the keys: a hashed
                // lookup per object was a good part of this walk.
                for (key, child) in map.iter_mut() {
                    if key == "$ref"
                        && let Value::String(reference) = child
                    {
                        for (from, to) in [
                            ("#/definitions/", "#/components/schemas/"),
                            ("#/parameters/", "#/components/parameters/"),
                            ("#/responses/", "#/components/responses/"),
                        ] {
                            if let Some(rest) = reference.strip_prefix(from) {
                                *reference = format!("{to}{rest}");
                                break;
                            }
                        }
                        may_have_detached |= outside(reference);
                        continue;
                    }
                    if key == "examples"
                        && let Value::Object(examples) = child
                    {
                        // Example objects may be references (see
                        // `refs::walk_refs`); they are not rewritten.
                        may_have_detached |= examples
                            .values()
                            .any(|example| example.get("$ref").and_then(Value::as_str).is_some_and(outside));
                    }
                    if key.starts_with("x-") || matches!(key.as_str(), "example" | "examples" | "default" | "enum") {
                        continue;
                    }
                    let names = crate::refs::is_name_map(key);
                    stack.push((child, names));
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut().map(|item| (item, false))),
            _ => {}
        }
    }
    may_have_detached
}
