//! Strict request validation (rule 6): required path, query, header and
//! cookie parameters with their schemas, and the JSON body, each failure
//! named by a field path (`query.limit`, `body.owner.name`).

use std::sync::Arc;

use jsonschema::Validator;
use serde_json::{Number, Value};
use spec::{Operation, ParameterLocation, Spec, schema_types};

use crate::Request;
use crate::negotiate::{is_json, parse_query};
use crate::schema::{Issue, SchemaSet, issues};

/// Most issues reported for one request.
const MAX_ISSUES: usize = 20;

/// The compiled checks of one operation.
pub struct Checks {
    params: Vec<Option<Arc<Validator>>>,
    /// (media type, validator) for the JSON request bodies.
    bodies: Vec<(String, Option<Arc<Validator>>)>,
}

impl Checks {
    pub fn new(spec: &Spec, operation: &Operation, schemas: &SchemaSet) -> Self {
        let params = operation
            .parameters
            .iter()
            .map(|p| p.schema.as_ref().and_then(|schema| schemas.validator(spec, schema)))
            .collect();
        Self { params, bodies: body_validators(spec, operation, schemas) }
    }

    pub fn run(
        &self,
        spec: &Spec,
        operation: &Operation,
        path_params: &[(String, String)],
        request: &Request<'_>,
    ) -> Vec<Issue> {
        let mut found = Vec::new();
        let query = parse_query(request.query);
        for (parameter, validator) in operation.parameters.iter().zip(&self.params) {
            let location = parameter.location;
            let field = format!("{}.{}", location.as_str(), parameter.name);
            let raw: Vec<String> = match location {
                ParameterLocation::Path => {
                    path_params.iter().filter(|(k, _)| *k == parameter.name).map(|(_, v)| v.clone()).collect()
                }
                ParameterLocation::Query => {
                    query.iter().filter(|(k, _)| *k == parameter.name).map(|(_, v)| v.clone()).collect()
                }
                ParameterLocation::Header => request
                    .headers
                    .get_all(parameter.name.as_str())
                    .iter()
                    .filter_map(|v| v.to_str().ok().map(str::to_owned))
                    .collect(),
                ParameterLocation::Cookie => {
                    cookies(request).into_iter().filter(|(k, _)| *k == parameter.name).map(|(_, v)| v).collect()
                }
            };
            if raw.is_empty() {
                if parameter.required {
                    found.push(Issue { path: field, message: format!("required {location} parameter is missing") });
                }
                continue;
            }
            let (Some(validator), Some(schema)) = (validator, &parameter.schema) else { continue };
            let schema = spec.resolve_value(schema).unwrap_or(schema);
            let value = coerce(spec, schema, &raw);
            found.extend(issues(validator, &value, &field));
        }
        self.check_body(operation, request, &mut found);
        found.truncate(MAX_ISSUES);
        found
    }

    fn check_body(&self, operation: &Operation, request: &Request<'_>, found: &mut Vec<Issue>) {
        let Some(body) = &operation.request_body else { return };
        if request.body.is_empty() {
            if body.required {
                found.push(Issue { path: "body".to_owned(), message: "a request body is required".to_owned() });
            }
            return;
        }
        let content_type =
            request.headers.get(http::header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("application/json");
        let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        let declared = declared_body(&self.bodies, &essence);
        let Some((_, validator)) = declared else {
            let offered: Vec<&str> = self.bodies.iter().map(|(m, _)| m.as_str()).collect();
            found.push(Issue {
                path: "header.content-type".to_owned(),
                message: format!("`{essence}` is not accepted; send one of {}", offered.join(", ")),
            });
            return;
        };
        if !is_json(&essence) {
            return;
        }
        let value: Value = match serde_json::from_slice(request.body) {
            Ok(value) => value,
            Err(err) => {
                found.push(Issue { path: "body".to_owned(), message: format!("the body is not valid JSON: {err}") });
                return;
            }
        };
        if let Some(validator) = validator {
            found.extend(issues(validator, &value, "body"));
        }
    }
}

/// `(media type, validator)` for each request body `operation` declares:
/// a validator for the JSON ones whose schema compiles, none otherwise.
pub(crate) fn body_validators(
    spec: &Spec,
    operation: &Operation,
    schemas: &SchemaSet,
) -> Vec<(String, Option<Arc<Validator>>)> {
    operation
        .request_body
        .iter()
        .flat_map(|body| body.content.iter())
        .map(|(media, content)| {
            let validator = if is_json(media) {
                content.schema.as_ref().and_then(|schema| schemas.validator(spec, schema))
            } else {
                None
            };
            (media.clone(), validator)
        })
        .collect()
}

/// The declared body a request of media type `essence` (lowercase, without
/// parameters) matches: the same type, `*/*`, or a `type/*` range.
pub(crate) fn declared_body<'a>(
    bodies: &'a [(String, Option<Arc<Validator>>)],
    essence: &str,
) -> Option<&'a (String, Option<Arc<Validator>>)> {
    bodies.iter().find(|(media, _)| {
        let media = media.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        media == essence || media == "*/*" || media.ends_with("/*") && essence.starts_with(media.trim_end_matches('*'))
    })
}

fn cookies(request: &Request<'_>) -> Vec<(String, String)> {
    request
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
}

/// Turns the text of a parameter into the JSON its schema describes, so
/// `?limit=5` validates as the integer 5 and `?tags=a,b` as a list.
fn coerce(spec: &Spec, schema: &Value, raw: &[String]) -> Value {
    let ty = schema_types(schema).types.first().copied().unwrap_or("");
    match ty {
        "array" => {
            let items = schema.get("items").and_then(|items| spec.resolve_value(items)).cloned().unwrap_or(Value::Null);
            let parts: Vec<String> = if raw.len() == 1 {
                raw.iter().flat_map(|v| v.split(',')).map(str::to_owned).collect()
            } else {
                raw.to_vec()
            };
            Value::Array(parts.iter().map(|part| scalar(&items, part)).collect())
        }
        _ => raw.first().map_or(Value::Null, |first| scalar(schema, first)),
    }
}

fn scalar(schema: &Value, text: &str) -> Value {
    let types = schema_types(schema);
    for ty in &types.types {
        match *ty {
            "integer" => {
                if let Ok(n) = text.parse::<i64>() {
                    return Value::Number(n.into());
                }
            }
            "number" => {
                if let Some(n) = text.parse::<f64>().ok().and_then(Number::from_f64) {
                    return Value::Number(n);
                }
            }
            "boolean" => match text {
                "true" => return Value::Bool(true),
                "false" => return Value::Bool(false),
                _ => {}
            },
            _ => {}
        }
    }
    if types.nullable && text == "null" {
        return Value::Null;
    }
    Value::String(text.to_owned())
}
