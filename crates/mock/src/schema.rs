//! OpenAPI schemas as JSON Schemas, validated with the `jsonschema` crate.
//!
//! OpenAPI 3.0 (and Swagger 2.0, upgraded by `spec`) schemas are a dialect
//! of JSON Schema draft 4: `nullable: true` (or `x-nullable`) is rewritten to
//! a type list with `null`, and they are validated as draft 4, which also
//! gives 3.0's boolean `exclusiveMinimum`. OpenAPI 3.1 schemas are draft
//! 2020-12 as written. The document's components are registered once under
//! [`BASE`], and every local `$ref` is rewritten to point there, so one
//! validator per schema shares the whole description without copying it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jsonschema::{Draft, Registry, Validator};
use serde_json::{Map, Value, json};
use spec::{Spec, SpecFormat};

/// The URI the description's components are registered under.
pub const BASE: &str = "https://spec.invalid/openapi.json";

/// Inlined (non-component) references followed at most this deep.
const MAX_INLINE_DEPTH: usize = 16;

/// One failed check: where (`body.name`, `query.limit`) and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Issue {
    pub path: String,
    pub message: String,
}

/// The components of one description, ready to build validators against.
pub struct SchemaSet {
    registry: Option<Registry<'static>>,
    draft: Draft,
    /// Validators of bare `{"$ref": ...}` schemas, by target: the same
    /// component (an `Error`, a `Pet`) is compiled once per description,
    /// not once per operation that names it.
    by_ref: Mutex<HashMap<String, Option<Arc<Validator>>>>,
}

impl std::fmt::Debug for SchemaSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaSet").field("draft", &self.draft).finish_non_exhaustive()
    }
}

impl SchemaSet {
    #[must_use]
    pub fn new(spec: &Spec) -> Self {
        let draft = match spec.format {
            SpecFormat::OpenApi3 if spec.source_version.starts_with("3.1") => Draft::Draft202012,
            _ => Draft::Draft4,
        };
        let mut components = Map::new();
        let schemas: Map<String, Value> =
            spec.schemas.iter().map(|(name, schema)| (name.clone(), convert(spec, schema, 0))).collect();
        components.insert("schemas".to_owned(), Value::Object(schemas));
        for (section, entries) in &spec.components {
            let converted: Map<String, Value> =
                entries.iter().map(|(name, value)| (name.clone(), convert(spec, value, 0))).collect();
            components.insert(section.clone(), Value::Object(converted));
        }
        let document = json!({ "components": components });
        let registry =
            Registry::new().add(BASE, draft.create_resource(document)).ok().and_then(|builder| builder.prepare().ok());
        Self { registry, draft, by_ref: Mutex::new(HashMap::new()) }
    }

    /// A validator for `schema` (as written in the description), or `None`
    /// when the schema cannot be compiled (then it is not enforced).
    #[must_use]
    pub fn validator(&self, spec: &Spec, schema: &Value) -> Option<Arc<Validator>> {
        let target =
            schema.as_object().filter(|map| map.len() == 1).and_then(|map| map.get("$ref")).and_then(Value::as_str);
        let Some(target) = target else { return self.compile(spec, schema) };
        if let Some(hit) = self.by_ref.lock().ok().and_then(|cache| cache.get(target).cloned()) {
            return hit;
        }
        let compiled = self.compile(spec, schema);
        if let Ok(mut cache) = self.by_ref.lock() {
            cache.insert(target.to_owned(), compiled.clone());
        }
        compiled
    }

    fn compile(&self, spec: &Spec, schema: &Value) -> Option<Arc<Validator>> {
        let registry = self.registry.as_ref()?;
        let converted = convert(spec, schema, 0);
        jsonschema::options()
            .with_draft(self.draft)
            .with_registry(registry)
            .with_pattern_options(pattern_limits())
            .should_validate_formats(true)
            .build(&converted)
            .ok()
            .map(Arc::new)
    }
}

/// Limits of every `pattern` a description brings: a pattern that would
/// backtrack catastrophically (`(a+)+$` on a long input) fails its check
/// after this many steps instead of holding a worker, and one that compiles
/// to an enormous automaton (`(x{100000}){100000}`) is not compiled.
#[must_use]
pub fn pattern_limits() -> jsonschema::PatternOptions<jsonschema::FancyRegex> {
    jsonschema::PatternOptions::fancy_regex().backtrack_limit(100_000).size_limit(2 << 20).dfa_size_limit(2 << 20)
}

/// Every failure of `instance`, with paths under `prefix` (`body`, `query.tags`).
#[must_use]
pub fn issues(validator: &Validator, instance: &Value, prefix: &str) -> Vec<Issue> {
    validator
        .iter_errors(instance)
        .take(20)
        .map(|error| {
            let pointer = error.instance_path().to_string();
            let mut path = prefix.to_owned();
            for segment in pointer.split('/').skip(1) {
                path.push('.');
                path.push_str(&segment.replace("~1", "/").replace("~0", "~"));
            }
            Issue { path, message: error.to_string() }
        })
        .collect()
}

fn convert(spec: &Spec, value: &Value, depth: usize) -> Value {
    match value {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                if reference.starts_with("#/components/") {
                    return json!({ "$ref": format!("{BASE}{reference}") });
                }
                if depth < MAX_INLINE_DEPTH
                    && let Some(target) = spec.resolve(reference)
                {
                    return convert(spec, target, depth + 1);
                }
                return json!({});
            }
            let mut out = Map::with_capacity(map.len());
            for (key, child) in map {
                // `example`, `xml` and other annotations are copied as they
                // are: validators ignore unknown keywords.
                let converted = match key.as_str() {
                    "example" | "examples" | "default" | "enum" | "const" => child.clone(),
                    // Draft 4 wants unique names; descriptions repeat them.
                    "required" => match child {
                        Value::Array(names) => {
                            let mut unique: Vec<Value> = Vec::with_capacity(names.len());
                            for name in names {
                                if !unique.contains(name) {
                                    unique.push(name.clone());
                                }
                            }
                            Value::Array(unique)
                        }
                        other => other.clone(),
                    },
                    _ => convert(spec, child, depth),
                };
                out.insert(key.clone(), converted);
            }
            let nullable =
                ["nullable", "x-nullable"].iter().any(|key| map.get(*key).and_then(Value::as_bool) == Some(true));
            if nullable {
                return make_nullable(out);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|item| convert(spec, item, depth)).collect()),
        other => other.clone(),
    }
}

fn make_nullable(mut schema: Map<String, Value>) -> Value {
    schema.remove("nullable");
    schema.remove("x-nullable");
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    let composed = schema.contains_key("allOf") || schema.contains_key("oneOf") || schema.contains_key("anyOf");
    match schema.get_mut("type") {
        Some(Value::String(ty)) => {
            let ty = std::mem::take(ty);
            schema.insert("type".to_owned(), json!([ty, "null"]));
            Value::Object(schema)
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
            Value::Object(schema)
        }
        _ if composed => json!({ "anyOf": [ { "type": "null" }, Value::Object(schema) ] }),
        _ => Value::Object(schema),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_and_refs_validate_as_openapi_means() {
        let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": {"schemas": {
                "Pet": {"type": "object", "required": ["name"], "additionalProperties": false,
                        "properties": {"name": {"type": "string", "nullable": true},
                                       "age": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}}}}});
        let spec = spec::parse(doc.to_string().as_bytes()).unwrap();
        let set = SchemaSet::new(&spec);
        let validator = set.validator(&spec, &json!({"$ref": "#/components/schemas/Pet"})).unwrap();
        assert!(validator.is_valid(&json!({"name": null})));
        assert!(validator.is_valid(&json!({"name": "Rex", "age": 1})));
        let found = issues(&validator, &json!({"name": 3, "age": 0, "extra": true}), "body");
        let paths: Vec<&str> = found.iter().map(|i| i.path.as_str()).collect();
        assert!(paths.contains(&"body.name"), "{found:?}");
        assert!(paths.contains(&"body.age"), "{found:?}");
        assert!(paths.contains(&"body"), "additionalProperties is reported at the object: {found:?}");
    }

    #[test]
    fn openapi_31_uses_2020_12() {
        let doc = json!({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {},
            "components": {"schemas": {"N": {"type": ["integer", "null"], "exclusiveMinimum": 5}}}});
        let spec = spec::parse(doc.to_string().as_bytes()).unwrap();
        let set = SchemaSet::new(&spec);
        let validator = set.validator(&spec, &json!({"$ref": "#/components/schemas/N"})).unwrap();
        assert!(validator.is_valid(&json!(null)));
        assert!(validator.is_valid(&json!(6)));
        assert!(!validator.is_valid(&json!(5)));
    }
}
