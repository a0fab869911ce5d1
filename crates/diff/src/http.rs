//! OpenAPI and Swagger: endpoints, parameters, request bodies, responses,
//! security and servers. Schemas are handed to [`crate::schema`] with the
//! direction of the place they sit in.

use std::collections::{BTreeMap, BTreeSet};

use indexmap::IndexMap;
use serde_json::Value;
use spec::{
    MediaType, Operation, Parameter, ParameterLocation, RequestBody, Response, SecurityRequirement, SecuritySchemeKind,
    Spec,
};

use crate::Change;
use crate::rules::{self, Rule};
use crate::schema::{Cursor, Differ, Direction, escape_pointer, push_pointer};

/// Below this many operations the second thread costs more than it saves.
const PARALLEL_FROM: usize = 64;

pub(crate) fn diff<'a>(old: &'a Spec, new: &'a Spec) -> Vec<Change> {
    let old_ops = index_operations(&old.operations);
    let new_ops = index_operations(&new.operations);
    let old_list: Vec<(&OperationKey, &&Operation)> = old_ops.iter().collect();
    // The operations of the old document are compared in two halves, the
    // second on its own thread with its own memo, and its changes appended
    // after the first half's: the same changes in the same order as one
    // pass. A memoised subtree replays exactly what walking it again
    // finds, so a half that walks a shared schema the other half already
    // walked emits the same changes; only the work is done twice.
    let middle = if old_list.len() >= PARALLEL_FROM { old_list.len() / 2 } else { old_list.len() };
    let (first, second) = old_list.split_at(middle);
    let mut differ = Differ::new(old, new);
    std::thread::scope(|scope| {
        let second_half = (!second.is_empty()).then(|| {
            scope.spawn(|| {
                let mut differ = Differ::new(old, new);
                compare_operations(&mut differ, second, &new_ops);
                differ.out
            })
        });
        compare_operations(&mut differ, first, &new_ops);
        if let Some(handle) = second_half {
            // The walk does not panic on input; if it ever did, re-raise
            // it here as the single-threaded walk would have.
            match handle.join() {
                Ok(changes) => differ.out.extend(changes),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    for (key, new_op) in &new_ops {
        if !old_ops.contains_key(key) {
            let label = label(new_op);
            differ.push(
                rules::ENDPOINT_ADDED,
                Some(&label),
                "endpoint".to_owned(),
                Some(operation_pointer(new_op)),
                None,
                None,
                format!("{label} added"),
            );
        }
    }
    differ.webhooks();
    differ.security_schemes();
    differ.servers();
    differ.out
}

/// Compares each old operation of `half` with the new operation of the same
/// endpoint, or reports it removed.
fn compare_operations<'a>(
    differ: &mut Differ<'a>,
    half: &[(&OperationKey, &&'a Operation)],
    new_ops: &BTreeMap<OperationKey, &'a Operation>,
) {
    for (key, old_op) in half {
        match new_ops.get(*key) {
            Some(new_op) => differ.operation(old_op, new_op),
            None => {
                let label = label(old_op);
                differ.push(
                    rules::ENDPOINT_REMOVED,
                    Some(&label),
                    "endpoint".to_owned(),
                    Some(operation_pointer(old_op)),
                    None,
                    None,
                    format!("{label} removed"),
                );
            }
        }
    }
}

/// An endpoint: normalised path template and method.
type OperationKey = (String, &'static str);

/// Operations by method and path template with variable names blanked, so
/// `/pets/{id}` and `/pets/{petId}` are the same endpoint.
fn index_operations(operations: &[Operation]) -> BTreeMap<OperationKey, &Operation> {
    operations.iter().map(|op| ((normalise_path(&op.path), op.method.as_str()), op)).collect()
}

fn normalise_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_variable = false;
    for c in path.trim_end_matches('/').chars() {
        match c {
            '{' => {
                in_variable = true;
                out.push_str("{}");
            }
            '}' => in_variable = false,
            _ if in_variable => {}
            _ => out.push(c),
        }
    }
    out
}

fn path_variables(path: &str) -> Vec<&str> {
    path.split('{').skip(1).filter_map(|rest| rest.split_once('}').map(|(name, _)| name)).collect()
}

fn label(op: &Operation) -> String {
    format!("{} {}", op.method.as_str(), op.path)
}

fn operation_pointer(op: &Operation) -> String {
    format!("/paths/{}/{}", escape_pointer(&op.path), op.method.key())
}

/// Media types compare without case or spaces around parameters, and
/// without `charset=utf-8`, which JSON always is (RFC 8259) and every
/// client assumes for text: `application/json; charset=utf-8` is
/// `application/json`.
pub(crate) fn media_key(media_type: &str) -> String {
    if !media_type.contains(';') {
        return media_type.trim().to_ascii_lowercase();
    }
    media_type
        .split(';')
        .map(|part| part.trim().to_ascii_lowercase())
        .filter(|part| {
            let compact: String = part.chars().filter(|c| !c.is_whitespace() && *c != '"').collect();
            compact != "charset=utf-8"
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn content_index(content: &IndexMap<String, MediaType>) -> BTreeMap<String, (&str, &MediaType)> {
    content.iter().map(|(name, media)| (media_key(name), (name.as_str(), media))).collect()
}

/// Parameters by location and name (header names ignore case); path
/// variables renamed in place are keyed by their new name.
fn parameter_key(param: &Parameter) -> (&'static str, String) {
    let name =
        if param.location == ParameterLocation::Header { param.name.to_ascii_lowercase() } else { param.name.clone() };
    (param.location.as_str(), name)
}

impl<'a> Differ<'a> {
    fn operation(&mut self, old: &'a Operation, new: &'a Operation) {
        let label = label(new);
        let op = Some(label.as_str());
        let pointer = operation_pointer(new);
        if old.deprecated != new.deprecated {
            let (rule, message) = if new.deprecated {
                (rules::ENDPOINT_DEPRECATED, format!("{label} deprecated"))
            } else {
                (rules::ENDPOINT_UNDEPRECATED, format!("{label} no longer deprecated"))
            };
            self.push(
                rule,
                op,
                "endpoint".to_owned(),
                Some(pointer.clone()),
                Some(old.deprecated.into()),
                Some(new.deprecated.into()),
                message,
            );
        }
        let texts: [(Rule, &str, &Option<String>, &Option<String>); 3] = [
            (rules::OPERATION_ID_CHANGED, "operationId", &old.operation_id, &new.operation_id),
            (rules::OPERATION_SUMMARY_CHANGED, "summary", &old.summary, &new.summary),
            (rules::OPERATION_DESCRIPTION_CHANGED, "description", &old.description, &new.description),
        ];
        for (rule, field, before, after) in texts {
            if before != after {
                self.push(
                    rule,
                    op,
                    field.to_owned(),
                    Some(format!("{pointer}/{field}")),
                    before.clone().map(Value::from),
                    after.clone().map(Value::from),
                    format!("{field} changed"),
                );
            }
        }
        self.parameters(op, &pointer, old, new);
        self.request_body(op, &pointer, old.request_body.as_ref(), new.request_body.as_ref());
        self.responses(op, &pointer, &old.responses, &new.responses);
        self.security(op, &pointer, self.old.effective_security(old), self.new.effective_security(new));
        self.callbacks(&label, &pointer, &old.callbacks, &new.callbacks);
    }

    fn parameters(&mut self, op: Option<&str>, pointer: &str, old: &'a Operation, new: &'a Operation) {
        // Path variables are positional: `{id}` renamed to `{petId}` is the
        // same parameter.
        let renames: BTreeMap<&str, &str> = path_variables(&old.path)
            .into_iter()
            .zip(path_variables(&new.path))
            .filter(|(before, after)| before != after)
            .collect();
        for (before, after) in &renames {
            self.push(
                rules::PATH_PARAMETER_RENAMED,
                op,
                format!("parameter path {after}"),
                Some(format!("{pointer}/parameters")),
                Some((*before).into()),
                Some((*after).into()),
                format!("path parameter `{before}` renamed to `{after}`"),
            );
        }
        let old_params: BTreeMap<(&'static str, String), &Parameter> = old
            .parameters
            .iter()
            .map(|param| {
                let (location, name) = parameter_key(param);
                let name = match renames.get(name.as_str()) {
                    Some(after) if location == "path" => (*after).to_owned(),
                    _ => name,
                };
                ((location, name), param)
            })
            .collect();
        let new_params: BTreeMap<(&'static str, String), (usize, &Parameter)> =
            new.parameters.iter().enumerate().map(|(index, param)| (parameter_key(param), (index, param))).collect();
        let mut moved: BTreeSet<(&'static str, String)> = BTreeSet::new();
        for ((location, name), old_param) in &old_params {
            let place = format!("parameter {} {}", *location, old_param.name);
            match new_params.get(&(*location, name.clone())) {
                Some((index, new_param)) => {
                    let param_pointer = format!("{pointer}/parameters/{index}");
                    self.parameter(op, &place, &param_pointer, old_param, new_param);
                }
                None => {
                    let elsewhere = new_params
                        .iter()
                        .find(|((other_location, other_name), _)| other_name == name && other_location != location);
                    if let Some((other_key, (index, new_param))) = elsewhere
                        && !old_params.contains_key(other_key)
                    {
                        moved.insert(other_key.clone());
                        self.push(
                            rules::REQUEST_PARAMETER_LOCATION_CHANGED,
                            op,
                            place,
                            Some(format!("{pointer}/parameters/{index}")),
                            Some(Value::from(*location)),
                            Some(new_param.location.as_str().into()),
                            format!(
                                "parameter `{}` moved from {} to {}",
                                old_param.name,
                                *location,
                                new_param.location.as_str()
                            ),
                        );
                        continue;
                    }
                    self.push(
                        rules::REQUEST_PARAMETER_REMOVED,
                        op,
                        place,
                        Some(format!("{pointer}/parameters")),
                        None,
                        None,
                        format!("{} parameter `{}` removed", *location, old_param.name),
                    );
                }
            }
        }
        for (key, (index, new_param)) in &new_params {
            if old_params.contains_key(key) || moved.contains(key) {
                continue;
            }
            let rule = if new_param.required {
                rules::REQUEST_REQUIRED_PARAMETER_ADDED
            } else {
                rules::REQUEST_OPTIONAL_PARAMETER_ADDED
            };
            let required = if new_param.required { "required" } else { "optional" };
            self.push(
                rule,
                op,
                format!("parameter {} {}", key.0, new_param.name),
                Some(format!("{pointer}/parameters/{index}")),
                None,
                None,
                format!("{required} {} parameter `{}` added", key.0, new_param.name),
            );
        }
    }

    fn parameter(&mut self, op: Option<&str>, place: &str, pointer: &str, old: &'a Parameter, new: &'a Parameter) {
        if old.required != new.required {
            let (rule, message) = if new.required {
                (rules::REQUEST_PARAMETER_BECAME_REQUIRED, format!("parameter `{}` became required", new.name))
            } else {
                (rules::REQUEST_PARAMETER_BECAME_OPTIONAL, format!("parameter `{}` became optional", new.name))
            };
            self.push(
                rule,
                op,
                place.to_owned(),
                Some(pointer.to_owned()),
                Some(old.required.into()),
                Some(new.required.into()),
                message,
            );
        }
        let (old_style, new_style) = (effective_style(old), effective_style(new));
        if old_style != new_style {
            self.push(
                rules::REQUEST_PARAMETER_STYLE_CHANGED,
                op,
                place.to_owned(),
                Some(pointer.to_owned()),
                Some(style_value(&old_style)),
                Some(style_value(&new_style)),
                format!("serialisation changed from {} to {}", style_text(&old_style), style_text(&new_style)),
            );
        }
        if old.deprecated != new.deprecated {
            let message = if new.deprecated { "parameter deprecated" } else { "parameter no longer deprecated" };
            self.push(
                rules::REQUEST_PARAMETER_DEPRECATED,
                op,
                place.to_owned(),
                Some(pointer.to_owned()),
                Some(old.deprecated.into()),
                Some(new.deprecated.into()),
                message.to_owned(),
            );
        }
        self.description(op, place, pointer, old.description.as_deref(), new.description.as_deref());
        self.example(op, place, pointer, old.example.as_ref(), new.example.as_ref());
        if let (Some(old_schema), Some(new_schema)) = (&old.schema, &new.schema) {
            let mut cursor = Cursor {
                operation: op,
                direction: Direction::Request,
                location: place.to_owned(),
                old_ptr: format!("{pointer}/schema"),
                new_ptr: format!("{pointer}/schema"),
            };
            self.default_value(&cursor, old_schema, new_schema, !old.required);
            self.schema(&mut cursor, old_schema, new_schema);
        }
        if !old.content.is_empty() || !new.content.is_empty() {
            self.content(op, place, pointer, Direction::Request, &old.content, &new.content);
        }
    }

    fn request_body(
        &mut self,
        op: Option<&str>,
        pointer: &str,
        old: Option<&'a RequestBody>,
        new: Option<&'a RequestBody>,
    ) {
        let place = "request body";
        let body_pointer = format!("{pointer}/requestBody");
        match (old, new) {
            (None, None) => {}
            (None, Some(new)) => {
                let (rule, required) = if new.required {
                    (rules::REQUEST_REQUIRED_BODY_ADDED, "required")
                } else {
                    (rules::REQUEST_OPTIONAL_BODY_ADDED, "optional")
                };
                self.push(
                    rule,
                    op,
                    place.to_owned(),
                    Some(body_pointer),
                    None,
                    None,
                    format!("{required} request body added"),
                );
            }
            (Some(_), None) => {
                self.push(
                    rules::REQUEST_BODY_REMOVED,
                    op,
                    place.to_owned(),
                    Some(body_pointer),
                    None,
                    None,
                    "request body removed".to_owned(),
                );
            }
            (Some(old), Some(new)) => {
                self.required_changed(
                    op,
                    place.to_owned(),
                    body_pointer.clone(),
                    (old.required, new.required),
                    [
                        (rules::REQUEST_BODY_BECAME_REQUIRED, "request body became required"),
                        (rules::REQUEST_BODY_BECAME_OPTIONAL, "request body became optional"),
                    ],
                );
                self.description(op, place, &body_pointer, old.description.as_deref(), new.description.as_deref());
                self.content(op, place, &body_pointer, Direction::Request, &old.content, &new.content);
            }
        }
    }

    fn content(
        &mut self,
        op: Option<&str>,
        place: &str,
        pointer: &str,
        direction: Direction,
        old: &'a IndexMap<String, MediaType>,
        new: &'a IndexMap<String, MediaType>,
    ) {
        let request = direction == Direction::Request;
        let old_index = content_index(old);
        let new_index = content_index(new);
        for (key, (old_name, old_media)) in &old_index {
            let Some((new_name, new_media)) = new_index.get(key) else {
                let rule = if request { rules::REQUEST_MEDIA_TYPE_REMOVED } else { rules::RESPONSE_MEDIA_TYPE_REMOVED };
                self.push(
                    rule,
                    op,
                    format!("{place} {old_name}"),
                    Some(format!("{pointer}/content/{}", escape_pointer(old_name))),
                    Some((*old_name).into()),
                    None,
                    format!("media type `{old_name}` removed"),
                );
                continue;
            };
            let media_place = format!("{place} {new_name}");
            let media_pointer = format!("{pointer}/content/{}", escape_pointer(new_name));
            self.example(op, &media_place, &media_pointer, old_media.example.as_ref(), new_media.example.as_ref());
            let old_examples: BTreeMap<&String, &spec::Example> = old_media.examples.iter().collect();
            let new_examples: BTreeMap<&String, &spec::Example> = new_media.examples.iter().collect();
            if old_examples != new_examples {
                self.push(
                    rules::EXAMPLE_CHANGED,
                    op,
                    media_place.clone(),
                    Some(format!("{media_pointer}/examples")),
                    None,
                    None,
                    "examples changed".to_owned(),
                );
            }
            match (&old_media.schema, &new_media.schema) {
                (Some(old_schema), Some(new_schema)) => {
                    let mut location = media_place.clone();
                    location.push_str(" body");
                    let mut old_ptr = format!("{pointer}/content/{}", escape_pointer(old_name));
                    push_pointer(&mut old_ptr, "schema");
                    let mut new_ptr = media_pointer.clone();
                    push_pointer(&mut new_ptr, "schema");
                    let mut cursor = Cursor { operation: op, direction, location, old_ptr, new_ptr };
                    self.schema(&mut cursor, old_schema, new_schema);
                }
                (None, Some(_)) if !request => {
                    // A body without a schema promised nothing; a schema
                    // is a new promise.
                }
                _ => {}
            }
        }
        for (key, (new_name, _)) in &new_index {
            if old_index.contains_key(key) {
                continue;
            }
            let rule = if request { rules::REQUEST_MEDIA_TYPE_ADDED } else { rules::RESPONSE_MEDIA_TYPE_ADDED };
            self.push(
                rule,
                op,
                format!("{place} {new_name}"),
                Some(format!("{pointer}/content/{}", escape_pointer(new_name))),
                None,
                Some((*new_name).into()),
                format!("media type `{new_name}` added"),
            );
        }
    }

    fn responses(
        &mut self,
        op: Option<&str>,
        pointer: &str,
        old: &'a IndexMap<String, Response>,
        new: &'a IndexMap<String, Response>,
    ) {
        let old_index: BTreeMap<String, (&String, &Response)> =
            old.iter().map(|(status, response)| (status.to_ascii_uppercase(), (status, response))).collect();
        let new_index: BTreeMap<String, (&String, &Response)> =
            new.iter().map(|(status, response)| (status.to_ascii_uppercase(), (status, response))).collect();
        for (key, (status, old_response)) in &old_index {
            let Some((new_status, new_response)) = new_index.get(key) else {
                self.push(
                    rules::RESPONSE_STATUS_REMOVED,
                    op,
                    format!("response {status}"),
                    Some(format!("{pointer}/responses/{}", escape_pointer(status))),
                    Some(status.as_str().into()),
                    None,
                    format!("response {status} removed"),
                );
                continue;
            };
            let place = format!("response {new_status}");
            let response_pointer = format!("{pointer}/responses/{}", escape_pointer(new_status));
            if old_response.description != new_response.description {
                self.push(
                    rules::DESCRIPTION_CHANGED,
                    op,
                    place.clone(),
                    Some(format!("{response_pointer}/description")),
                    Some(old_response.description.as_str().into()),
                    Some(new_response.description.as_str().into()),
                    "description changed".to_owned(),
                );
            }
            self.headers(op, &place, &response_pointer, &old_response.headers, &new_response.headers);
            self.links(op, &place, &response_pointer, &old_response.links, &new_response.links);
            self.content(
                op,
                &place,
                &response_pointer,
                Direction::Response,
                &old_response.content,
                &new_response.content,
            );
        }
        for (key, (status, _)) in &new_index {
            if !old_index.contains_key(key) {
                self.push(
                    rules::RESPONSE_STATUS_ADDED,
                    op,
                    format!("response {status}"),
                    Some(format!("{pointer}/responses/{}", escape_pointer(status))),
                    None,
                    Some(status.as_str().into()),
                    format!("response {status} added"),
                );
            }
        }
    }

    fn headers(
        &mut self,
        op: Option<&str>,
        place: &str,
        pointer: &str,
        old: &'a IndexMap<String, spec::Header>,
        new: &'a IndexMap<String, spec::Header>,
    ) {
        let old_index: BTreeMap<String, (&String, &spec::Header)> =
            old.iter().map(|(name, header)| (name.to_ascii_lowercase(), (name, header))).collect();
        let new_index: BTreeMap<String, (&String, &spec::Header)> =
            new.iter().map(|(name, header)| (name.to_ascii_lowercase(), (name, header))).collect();
        for (key, (name, old_header)) in &old_index {
            let header_place = format!("{place} header {name}");
            let header_pointer = format!("{pointer}/headers/{}", escape_pointer(name));
            let Some((_, new_header)) = new_index.get(key) else {
                self.push(
                    rules::RESPONSE_HEADER_REMOVED,
                    op,
                    header_place,
                    Some(header_pointer),
                    None,
                    None,
                    format!("response header `{name}` removed"),
                );
                continue;
            };
            if old_header.required && !new_header.required {
                self.push(
                    rules::RESPONSE_PROPERTY_BECAME_OPTIONAL,
                    op,
                    header_place.clone(),
                    Some(header_pointer.clone()),
                    Some(true.into()),
                    Some(false.into()),
                    format!("response header `{name}` became optional"),
                );
            }
            self.description(
                op,
                &header_place,
                &header_pointer,
                old_header.description.as_deref(),
                new_header.description.as_deref(),
            );
            if let (Some(old_schema), Some(new_schema)) = (&old_header.schema, &new_header.schema) {
                let mut cursor = Cursor {
                    operation: op,
                    direction: Direction::Response,
                    location: header_place,
                    old_ptr: format!("{header_pointer}/schema"),
                    new_ptr: format!("{header_pointer}/schema"),
                };
                self.schema(&mut cursor, old_schema, new_schema);
            }
        }
        for (key, (name, _)) in &new_index {
            if !old_index.contains_key(key) {
                self.push(
                    rules::RESPONSE_HEADER_ADDED,
                    op,
                    format!("{place} header {name}"),
                    Some(format!("{pointer}/headers/{}", escape_pointer(name))),
                    None,
                    None,
                    format!("response header `{name}` added"),
                );
            }
        }
    }

    fn description(&mut self, op: Option<&str>, place: &str, pointer: &str, old: Option<&str>, new: Option<&str>) {
        if old != new {
            self.push(
                rules::DESCRIPTION_CHANGED,
                op,
                place.to_owned(),
                Some(format!("{pointer}/description")),
                old.map(Value::from),
                new.map(Value::from),
                "description changed".to_owned(),
            );
        }
    }

    fn example(&mut self, op: Option<&str>, place: &str, pointer: &str, old: Option<&Value>, new: Option<&Value>) {
        if old != new {
            self.push(
                rules::EXAMPLE_CHANGED,
                op,
                place.to_owned(),
                Some(format!("{pointer}/example")),
                old.cloned(),
                new.cloned(),
                "example changed".to_owned(),
            );
        }
    }

    /// Security requirements are alternatives: any one satisfies the
    /// operation. An empty list, or an empty alternative, allows anonymous
    /// calls.
    fn security(&mut self, op: Option<&str>, pointer: &str, old: &[SecurityRequirement], new: &[SecurityRequirement]) {
        let anonymous =
            |list: &[SecurityRequirement]| list.is_empty() || list.iter().any(SecurityRequirement::is_anonymous);
        let place = "security".to_owned();
        let security_pointer = Some(format!("{pointer}/security"));
        let old_anonymous = anonymous(old);
        let new_anonymous = anonymous(new);
        if old_anonymous && !new_anonymous {
            self.push(
                rules::SECURITY_ADDED,
                op,
                place,
                security_pointer,
                None,
                Some(requirements_value(new)),
                format!("now requires {}", describe_requirements(new)),
            );
            return;
        }
        if !old_anonymous && new_anonymous {
            self.push(
                rules::SECURITY_REMOVED,
                op,
                place,
                security_pointer,
                Some(requirements_value(old)),
                None,
                "no longer requires credentials".to_owned(),
            );
            return;
        }
        let old_alternatives = alternatives(old);
        let new_alternatives = alternatives(new);
        for (names, old_scopes) in &old_alternatives {
            let joined = names.join(" + ");
            match new_alternatives.get(names) {
                None => self.push(
                    rules::SECURITY_ALTERNATIVE_REMOVED,
                    op,
                    format!("security {joined}"),
                    security_pointer.clone(),
                    Some(joined.as_str().into()),
                    None,
                    format!("authentication with {joined} no longer accepted"),
                ),
                Some(new_scopes) => {
                    for scope in new_scopes.difference(old_scopes) {
                        self.push(
                            rules::SECURITY_SCOPE_ADDED,
                            op,
                            format!("security {joined}"),
                            security_pointer.clone(),
                            None,
                            Some(scope.as_str().into()),
                            format!("scope `{scope}` now required"),
                        );
                    }
                    for scope in old_scopes.difference(new_scopes) {
                        self.push(
                            rules::SECURITY_SCOPE_REMOVED,
                            op,
                            format!("security {joined}"),
                            security_pointer.clone(),
                            Some(scope.as_str().into()),
                            None,
                            format!("scope `{scope}` no longer required"),
                        );
                    }
                }
            }
        }
        for names in new_alternatives.keys() {
            if !old_alternatives.contains_key(names) {
                let joined = names.join(" + ");
                self.push(
                    rules::SECURITY_ALTERNATIVE_ADDED,
                    op,
                    format!("security {joined}"),
                    security_pointer.clone(),
                    None,
                    Some(joined.as_str().into()),
                    format!("authentication with {joined} now accepted"),
                );
            }
        }
    }

    fn security_schemes(&mut self) {
        let old: BTreeMap<&String, &spec::SecurityScheme> = self.old.security_schemes.iter().collect();
        let new: BTreeMap<&String, &spec::SecurityScheme> = self.new.security_schemes.iter().collect();
        for (name, old_scheme) in &old {
            let pointer = Some(format!("/components/securitySchemes/{}", escape_pointer(name)));
            let place = format!("security scheme {name}");
            match new.get(name) {
                None => self.push(
                    rules::SECURITY_SCHEME_REMOVED,
                    None,
                    place,
                    pointer,
                    serde_json::to_value(&old_scheme.kind).ok(),
                    None,
                    format!("security scheme `{name}` removed"),
                ),
                Some(new_scheme) => {
                    if scheme_identity(&old_scheme.kind) != scheme_identity(&new_scheme.kind) {
                        self.push(
                            rules::SECURITY_SCHEME_CHANGED,
                            None,
                            place.clone(),
                            pointer.clone(),
                            serde_json::to_value(&old_scheme.kind).ok(),
                            serde_json::to_value(&new_scheme.kind).ok(),
                            format!("security scheme `{name}` changed"),
                        );
                    }
                    if old_scheme.description != new_scheme.description {
                        self.push(
                            rules::DESCRIPTION_CHANGED,
                            None,
                            place,
                            pointer,
                            old_scheme.description.clone().map(Value::from),
                            new_scheme.description.clone().map(Value::from),
                            "description changed".to_owned(),
                        );
                    }
                }
            }
        }
        for (name, new_scheme) in &new {
            if !old.contains_key(name) {
                self.push(
                    rules::SECURITY_SCHEME_ADDED,
                    None,
                    format!("security scheme {name}"),
                    Some(format!("/components/securitySchemes/{}", escape_pointer(name))),
                    None,
                    serde_json::to_value(&new_scheme.kind).ok(),
                    format!("security scheme `{name}` added"),
                );
            }
        }
    }

    fn servers(&mut self) {
        let old: BTreeSet<&str> = self.old.servers.iter().map(|server| server.url.trim_end_matches('/')).collect();
        let new: BTreeSet<&str> = self.new.servers.iter().map(|server| server.url.trim_end_matches('/')).collect();
        if old == new {
            return;
        }
        if !old.is_empty() && old.is_disjoint(&new) {
            self.push(
                rules::SERVERS_ALL_REMOVED,
                None,
                "servers".to_owned(),
                Some("/servers".to_owned()),
                Some(old.iter().map(|url| Value::from(*url)).collect()),
                Some(new.iter().map(|url| Value::from(*url)).collect()),
                "none of the old server urls remains".to_owned(),
            );
            return;
        }
        for url in old.difference(&new) {
            self.push(
                rules::SERVER_REMOVED,
                None,
                "servers".to_owned(),
                Some("/servers".to_owned()),
                Some((*url).into()),
                None,
                format!("server `{url}` removed"),
            );
        }
        for url in new.difference(&old) {
            self.push(
                rules::SERVER_ADDED,
                None,
                "servers".to_owned(),
                Some("/servers".to_owned()),
                None,
                Some((*url).into()),
                format!("server `{url}` added"),
            );
        }
    }
}

/// What a client must know to authenticate: everything but descriptions
/// and OAuth scope lists (scopes are checked per operation).
fn scheme_identity(kind: &SecuritySchemeKind) -> Value {
    match kind {
        SecuritySchemeKind::OAuth2 { flows } => {
            let mut flows: Vec<Value> = flows
                .iter()
                .map(|flow| {
                    serde_json::json!({
                        "kind": flow.kind,
                        "authorization_url": flow.authorization_url,
                        "token_url": flow.token_url,
                    })
                })
                .collect();
            flows.sort_by_key(Value::to_string);
            serde_json::json!({ "type": "oauth2", "flows": flows })
        }
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

/// Serialisation as the server reads it, with OpenAPI's defaults filled in.
fn effective_style(param: &Parameter) -> (String, bool) {
    let style = param.style.clone().unwrap_or_else(|| {
        match param.location {
            ParameterLocation::Query | ParameterLocation::Cookie => "form",
            ParameterLocation::Path | ParameterLocation::Header => "simple",
        }
        .to_owned()
    });
    let explode = param.explode.unwrap_or(style == "form");
    (style, explode)
}

fn style_value((style, explode): &(String, bool)) -> Value {
    serde_json::json!({ "style": style, "explode": explode })
}

fn style_text(style: &(String, bool)) -> String {
    format!("style {} explode {}", style.0, style.1)
}

/// Non-anonymous alternatives by their sorted scheme names, with the union
/// of their scopes.
fn alternatives(list: &[SecurityRequirement]) -> BTreeMap<Vec<String>, BTreeSet<String>> {
    list.iter()
        .filter(|requirement| !requirement.is_anonymous())
        .map(|requirement| {
            let mut names: Vec<String> = requirement.schemes.keys().cloned().collect();
            names.sort();
            (names, requirement.schemes.values().flatten().cloned().collect())
        })
        .collect()
}

fn requirements_value(list: &[SecurityRequirement]) -> Value {
    serde_json::to_value(list).unwrap_or(Value::Null)
}

fn describe_requirements(list: &[SecurityRequirement]) -> String {
    let alternatives: Vec<String> =
        list.iter().map(|requirement| requirement.schemes.keys().cloned().collect::<Vec<_>>().join(" + ")).collect();
    alternatives.join(" or ")
}
