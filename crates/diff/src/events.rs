//! Webhooks (OpenAPI 3.1 `webhooks`) and callbacks: requests the API sends
//! to the consumer, who answers them. The roles are the other way round
//! from an operation, so the directions flip:
//!
//! - what the API sends (parameters and body) is read by the consumer, so
//!   it is compared as a response: a field removed, made optional or
//!   nullable, or a new enum value breaks the consumer's handler; a new
//!   field, even a required one, does not;
//! - the consumer's answer (the responses) is what the API reads, so it is
//!   compared as a request: a status or media type the API no longer
//!   documents as accepted, or a new required field in the answer, breaks
//!   the consumer; accepting more does not;
//! - a webhook or callback operation removed breaks consumers that rely on
//!   being called; one added is additive.
//!
//! Response `links` are compared here too: they describe how to call
//! another operation with values from a response, and change nothing on
//! the wire, so every link change is cosmetic.

use std::collections::BTreeMap;

use indexmap::IndexMap;
use serde_json::Value;
use spec::{HttpMethod, MediaType, Operation, Spec};

use crate::http::media_key;
use crate::rules::{self, Rule};
use crate::schema::{Cursor, Differ, Direction, escape_pointer};

/// The parts of a webhook or callback operation that are compared,
/// borrowed from the model (webhooks) or read from the raw callback object,
/// so that schemas keep their addresses in the document.
#[derive(Default)]
struct EventOp<'a> {
    deprecated: bool,
    summary: Option<&'a str>,
    description: Option<&'a str>,
    /// By location and name (header names lowercased), with their index.
    parameters: BTreeMap<(&'static str, String), EventParam<'a>>,
    body: Option<EventBody<'a>>,
    /// By status, upper-cased.
    replies: BTreeMap<String, EventReply<'a>>,
}

struct EventParam<'a> {
    name: &'a str,
    index: usize,
    required: bool,
    description: Option<&'a str>,
    schema: Option<&'a Value>,
}

struct EventBody<'a> {
    required: bool,
    content: Content<'a>,
}

struct EventReply<'a> {
    status: &'a str,
    description: &'a str,
    content: Content<'a>,
}

/// Media types by their comparison key: the name as written and the schema.
type Content<'a> = BTreeMap<String, (&'a str, Option<&'a Value>)>;

fn location_key(location: &str, name: &str) -> Option<(&'static str, String)> {
    let location: &'static str = match location {
        "path" => "path",
        "query" => "query",
        "header" => "header",
        "cookie" => "cookie",
        _ => return None,
    };
    let name = if location == "header" { name.to_ascii_lowercase() } else { name.to_owned() };
    Some((location, name))
}

impl<'a> EventOp<'a> {
    fn of_operation(op: &'a Operation) -> Self {
        let content_of = |content: &'a IndexMap<String, MediaType>| -> Content<'a> {
            content.iter().map(|(name, media)| (media_key(name), (name.as_str(), media.schema.as_ref()))).collect()
        };
        EventOp {
            deprecated: op.deprecated,
            summary: op.summary.as_deref(),
            description: op.description.as_deref(),
            parameters: op
                .parameters
                .iter()
                .enumerate()
                .filter_map(|(index, param)| {
                    let key = location_key(param.location.as_str(), &param.name)?;
                    Some((
                        key,
                        EventParam {
                            name: &param.name,
                            index,
                            required: param.required,
                            description: param.description.as_deref(),
                            schema: param.schema.as_ref(),
                        },
                    ))
                })
                .collect(),
            body: op
                .request_body
                .as_ref()
                .map(|body| EventBody { required: body.required, content: content_of(&body.content) }),
            replies: op
                .responses
                .iter()
                .map(|(status, response)| {
                    (
                        status.to_ascii_uppercase(),
                        EventReply {
                            status,
                            description: &response.description,
                            content: content_of(&response.content),
                        },
                    )
                })
                .collect(),
        }
    }

    /// Reads a raw operation object of a callback, resolving `$ref`s.
    fn of_raw(spec: &'a Spec, raw: &'a Value, shared: &'a Value) -> Self {
        let text = |key: &str| raw.get(key).and_then(Value::as_str);
        let mut op = EventOp {
            deprecated: raw.get("deprecated").and_then(Value::as_bool) == Some(true),
            summary: text("summary"),
            description: text("description"),
            ..EventOp::default()
        };
        let lists = [shared, raw.get("parameters").unwrap_or(&Value::Null)];
        for list in lists {
            for (index, param) in list.as_array().into_iter().flatten().enumerate() {
                let Some(param) = spec.resolve_value(param) else { continue };
                let name = param.get("name").and_then(Value::as_str).unwrap_or_default();
                let location = param.get("in").and_then(Value::as_str).unwrap_or_default();
                let Some(key) = location_key(location, name) else { continue };
                let param = EventParam {
                    name,
                    index,
                    required: param.get("required").and_then(Value::as_bool) == Some(true) || location == "path",
                    description: param.get("description").and_then(Value::as_str),
                    schema: param.get("schema"),
                };
                op.parameters.insert(key, param);
            }
        }
        op.body = raw.get("requestBody").and_then(|body| spec.resolve_value(body)).map(|body| EventBody {
            required: body.get("required").and_then(Value::as_bool) == Some(true),
            content: raw_content(spec, body.get("content")),
        });
        if let Some(Value::Object(responses)) = raw.get("responses") {
            for (status, response) in responses {
                if status.starts_with("x-") {
                    continue;
                }
                let Some(response) = spec.resolve_value(response) else { continue };
                let reply = EventReply {
                    status,
                    description: response.get("description").and_then(Value::as_str).unwrap_or_default(),
                    content: raw_content(spec, response.get("content")),
                };
                op.replies.insert(status.to_ascii_uppercase(), reply);
            }
        }
        op
    }
}

fn raw_content<'a>(spec: &'a Spec, content: Option<&'a Value>) -> Content<'a> {
    let Some(Value::Object(map)) = content.and_then(|value| spec.resolve_value(value)) else {
        return Content::new();
    };
    map.iter()
        .filter(|(name, _)| !name.starts_with("x-"))
        .map(|(name, media)| (media_key(name), (name.as_str(), media.get("schema"))))
        .collect()
}

/// The operations of a set of callbacks, keyed by callback name, runtime
/// expression and method.
fn callback_operations<'a>(
    spec: &'a Spec,
    callbacks: &'a IndexMap<String, Value>,
) -> BTreeMap<(&'a str, &'a str, &'static str), EventOp<'a>> {
    let mut out = BTreeMap::new();
    for (name, callback) in callbacks {
        let Some(Value::Object(expressions)) = spec.resolve_value(callback) else { continue };
        for (expression, item) in expressions {
            let Some(Value::Object(item)) = spec.resolve_value(item) else { continue };
            let shared = item.get("parameters").unwrap_or(&Value::Null);
            for (key, raw) in item {
                let Some(method) = HttpMethod::from_key(key).filter(|method| method.key() == key) else { continue };
                let Some(raw) = spec.resolve_value(raw) else { continue };
                out.insert((name.as_str(), expression.as_str(), method.key()), EventOp::of_raw(spec, raw, shared));
            }
        }
    }
    out
}

/// How an event operation is named in changes.
struct Event<'p> {
    /// `POST webhook newPet` or the parent operation `POST /subscriptions`.
    operation: String,
    /// Prefix of every location: empty for a webhook, `callback onData POST
    /// {$request.body#/url}` for a callback.
    place: String,
    pointer: &'p str,
}

impl Event<'_> {
    fn at(&self, what: &str) -> String {
        if self.place.is_empty() { what.to_owned() } else { format!("{} {what}", self.place) }
    }
}

impl<'a> Differ<'a> {
    /// Webhooks by name and method.
    pub(crate) fn webhooks(&mut self) {
        let index = |list: &'a [Operation]| -> BTreeMap<(&'a str, &'static str), &'a Operation> {
            list.iter().map(|op| ((op.path.as_str(), op.method.key()), op)).collect()
        };
        let (old, new) = (index(&self.old.webhooks), index(&self.new.webhooks));
        for (key, old_op) in &old {
            let label = format!("{} webhook {}", old_op.method.as_str(), old_op.path);
            let pointer = format!("/webhooks/{}/{}", escape_pointer(&old_op.path), old_op.method.key());
            match new.get(key) {
                Some(new_op) => {
                    let event = Event { operation: label, place: String::new(), pointer: &pointer };
                    self.event_operation(&event, &EventOp::of_operation(old_op), &EventOp::of_operation(new_op));
                }
                None => self.push(
                    rules::WEBHOOK_REMOVED,
                    Some(&label),
                    "webhook".to_owned(),
                    Some(pointer.clone()),
                    None,
                    None,
                    format!("webhook `{}` removed: consumers are no longer called", old_op.path),
                ),
            }
        }
        for (key, new_op) in &new {
            if !old.contains_key(key) {
                let label = format!("{} webhook {}", new_op.method.as_str(), new_op.path);
                self.push(
                    rules::WEBHOOK_ADDED,
                    Some(&label),
                    "webhook".to_owned(),
                    Some(format!("/webhooks/{}/{}", escape_pointer(&new_op.path), new_op.method.key())),
                    None,
                    None,
                    format!("webhook `{}` added", new_op.path),
                );
            }
        }
    }

    /// The callbacks of one operation, by name, expression and method.
    pub(crate) fn callbacks(
        &mut self,
        op: &str,
        pointer: &str,
        old: &'a IndexMap<String, Value>,
        new: &'a IndexMap<String, Value>,
    ) {
        if old.is_empty() && new.is_empty() {
            return;
        }
        let old_ops = callback_operations(self.old, old);
        let new_ops = callback_operations(self.new, new);
        let place = |(name, expression, method): &(&str, &str, &str)| {
            format!("callback {name} {} {expression}", method.to_ascii_uppercase())
        };
        let callback_pointer = |(name, expression, method): &(&str, &str, &str)| {
            format!("{pointer}/callbacks/{}/{}/{method}", escape_pointer(name), escape_pointer(expression))
        };
        for (key, old_op) in &old_ops {
            let at = callback_pointer(key);
            match new_ops.get(key) {
                Some(new_op) => {
                    let event = Event { operation: op.to_owned(), place: place(key), pointer: &at };
                    self.event_operation(&event, old_op, new_op);
                }
                None => self.push(
                    rules::CALLBACK_REMOVED,
                    Some(op),
                    place(key),
                    Some(at),
                    None,
                    None,
                    format!("callback `{}` removed: consumers are no longer called", key.0),
                ),
            }
        }
        for key in new_ops.keys() {
            if !old_ops.contains_key(key) {
                let message = format!("callback `{}` added", key.0);
                self.push(
                    rules::CALLBACK_ADDED,
                    Some(op),
                    place(key),
                    Some(callback_pointer(key)),
                    None,
                    None,
                    message,
                );
            }
        }
    }

    fn event_operation(&mut self, event: &Event<'_>, old: &EventOp<'a>, new: &EventOp<'a>) {
        let op = Some(event.operation.as_str());
        if old.deprecated != new.deprecated {
            let message = if new.deprecated { "deprecated" } else { "no longer deprecated" };
            self.push(
                rules::EVENT_DEPRECATED,
                op,
                event.at("deprecation"),
                Some(event.pointer.to_owned()),
                Some(old.deprecated.into()),
                Some(new.deprecated.into()),
                message.to_owned(),
            );
        }
        for (field, before, after) in
            [("summary", old.summary, new.summary), ("description", old.description, new.description)]
        {
            if before != after {
                self.push(
                    rules::DESCRIPTION_CHANGED,
                    op,
                    event.at(field),
                    Some(format!("{}/{field}", event.pointer)),
                    before.map(Value::from),
                    after.map(Value::from),
                    format!("{field} changed"),
                );
            }
        }
        self.event_parameters(event, old, new);
        self.event_body(event, old.body.as_ref(), new.body.as_ref());
        self.event_replies(event, old, new);
    }

    /// Parameters the API sends; the consumer reads them.
    fn event_parameters(&mut self, event: &Event<'_>, old: &EventOp<'a>, new: &EventOp<'a>) {
        let op = Some(event.operation.as_str());
        let pointer = format!("{}/parameters", event.pointer);
        for (key, old_param) in &old.parameters {
            let place = event.at(&format!("parameter {} {}", key.0, old_param.name));
            let Some(new_param) = new.parameters.get(key) else {
                self.push(
                    rules::EVENT_PARAMETER_REMOVED,
                    op,
                    place,
                    Some(pointer.clone()),
                    None,
                    None,
                    format!("{} parameter `{}` is no longer sent", key.0, old_param.name),
                );
                continue;
            };
            let param_pointer = format!("{pointer}/{}", new_param.index);
            self.required_changed(
                op,
                place.clone(),
                param_pointer.clone(),
                (old_param.required, new_param.required),
                [
                    (rules::EVENT_PARAMETER_BECAME_REQUIRED, "parameter is now always sent"),
                    (rules::EVENT_PARAMETER_BECAME_OPTIONAL, "parameter is no longer always sent"),
                ],
            );
            if old_param.description != new_param.description {
                self.push(
                    rules::DESCRIPTION_CHANGED,
                    op,
                    place.clone(),
                    Some(format!("{param_pointer}/description")),
                    old_param.description.map(Value::from),
                    new_param.description.map(Value::from),
                    "description changed".to_owned(),
                );
            }
            if let (Some(old_schema), Some(new_schema)) = (old_param.schema, new_param.schema) {
                let mut cursor = Cursor {
                    operation: op,
                    direction: Direction::Response,
                    location: place,
                    old_ptr: format!("{pointer}/{}/schema", old_param.index),
                    new_ptr: format!("{param_pointer}/schema"),
                };
                self.schema(&mut cursor, old_schema, new_schema);
            }
        }
        for (key, new_param) in &new.parameters {
            if !old.parameters.contains_key(key) {
                self.push(
                    rules::EVENT_PARAMETER_ADDED,
                    op,
                    event.at(&format!("parameter {} {}", key.0, new_param.name)),
                    Some(format!("{pointer}/{}", new_param.index)),
                    None,
                    None,
                    format!("{} parameter `{}` is now sent", key.0, new_param.name),
                );
            }
        }
    }

    /// The body the API sends; the consumer parses it.
    fn event_body(&mut self, event: &Event<'_>, old: Option<&EventBody<'a>>, new: Option<&EventBody<'a>>) {
        let op = Some(event.operation.as_str());
        let place = event.at("request body");
        let pointer = format!("{}/requestBody", event.pointer);
        let (old, new) = match (old, new) {
            (None, None) => return,
            (Some(_), None) => {
                let message = "the request no longer carries a body".to_owned();
                self.push(rules::EVENT_BODY_REMOVED, op, place, Some(pointer), None, None, message);
                return;
            }
            (None, Some(_)) => {
                let message = "the request now carries a body".to_owned();
                self.push(rules::EVENT_BODY_ADDED, op, place, Some(pointer), None, None, message);
                return;
            }
            (Some(old), Some(new)) => (old, new),
        };
        self.required_changed(
            op,
            place.clone(),
            pointer.clone(),
            (old.required, new.required),
            [
                (rules::EVENT_BODY_BECAME_REQUIRED, "the body is now always sent"),
                (rules::EVENT_BODY_BECAME_OPTIONAL, "the body is no longer always sent"),
            ],
        );
        let media = [rules::EVENT_MEDIA_TYPE_REMOVED, rules::EVENT_MEDIA_TYPE_ADDED];
        self.event_content(event, (&place, &pointer), Direction::Response, media, &old.content, &new.content);
    }

    /// The consumer's answers, which the API reads.
    fn event_replies(&mut self, event: &Event<'_>, old: &EventOp<'a>, new: &EventOp<'a>) {
        let op = Some(event.operation.as_str());
        for (key, old_reply) in &old.replies {
            let status = old_reply.status;
            let place = event.at(&format!("response {status}"));
            let pointer = format!("{}/responses/{}", event.pointer, escape_pointer(status));
            let Some(new_reply) = new.replies.get(key) else {
                self.push(
                    rules::EVENT_REPLY_STATUS_REMOVED,
                    op,
                    place,
                    Some(pointer),
                    Some(status.into()),
                    None,
                    format!("an answer with status {status} is no longer documented as accepted"),
                );
                continue;
            };
            if old_reply.description != new_reply.description {
                self.push(
                    rules::DESCRIPTION_CHANGED,
                    op,
                    place.clone(),
                    Some(format!("{pointer}/description")),
                    Some(old_reply.description.into()),
                    Some(new_reply.description.into()),
                    "description changed".to_owned(),
                );
            }
            let media = [rules::EVENT_REPLY_MEDIA_TYPE_REMOVED, rules::EVENT_REPLY_MEDIA_TYPE_ADDED];
            self.event_content(
                event,
                (&place, &pointer),
                Direction::Request,
                media,
                &old_reply.content,
                &new_reply.content,
            );
        }
        for (key, new_reply) in &new.replies {
            if !old.replies.contains_key(key) {
                let status = new_reply.status;
                self.push(
                    rules::EVENT_REPLY_STATUS_ADDED,
                    op,
                    event.at(&format!("response {status}")),
                    Some(format!("{}/responses/{}", event.pointer, escape_pointer(status))),
                    None,
                    Some(status.into()),
                    format!("an answer with status {status} is now accepted"),
                );
            }
        }
    }

    fn event_content(
        &mut self,
        event: &Event<'_>,
        (place, pointer): (&str, &str),
        direction: Direction,
        [removed, added]: [Rule; 2],
        old: &Content<'a>,
        new: &Content<'a>,
    ) {
        let op = Some(event.operation.as_str());
        for (key, (old_name, old_schema)) in old {
            let Some((new_name, new_schema)) = new.get(key) else {
                self.push(
                    removed,
                    op,
                    format!("{place} {old_name}"),
                    Some(format!("{pointer}/content/{}", escape_pointer(old_name))),
                    Some((*old_name).into()),
                    None,
                    format!("media type `{old_name}` removed"),
                );
                continue;
            };
            if let (Some(old_schema), Some(new_schema)) = (old_schema, new_schema) {
                let mut cursor = Cursor {
                    operation: op,
                    direction,
                    location: format!("{place} {new_name} body"),
                    old_ptr: format!("{pointer}/content/{}/schema", escape_pointer(old_name)),
                    new_ptr: format!("{pointer}/content/{}/schema", escape_pointer(new_name)),
                };
                self.schema(&mut cursor, old_schema, new_schema);
            }
        }
        for (key, (new_name, _)) in new {
            if !old.contains_key(key) {
                self.push(
                    added,
                    op,
                    format!("{place} {new_name}"),
                    Some(format!("{pointer}/content/{}", escape_pointer(new_name))),
                    None,
                    Some((*new_name).into()),
                    format!("media type `{new_name}` added"),
                );
            }
        }
    }

    /// The links of one response, by name. All cosmetic.
    pub(crate) fn links(
        &mut self,
        op: Option<&str>,
        place: &str,
        pointer: &str,
        old: &'a IndexMap<String, Value>,
        new: &'a IndexMap<String, Value>,
    ) {
        for (name, old_link) in old {
            let link_place = format!("{place} link {name}");
            let link_pointer = format!("{pointer}/links/{}", escape_pointer(name));
            match new.get(name) {
                None => self.push(
                    rules::LINK_REMOVED,
                    op,
                    link_place,
                    Some(link_pointer),
                    self.old.resolve_value(old_link).cloned(),
                    None,
                    format!("link `{name}` removed"),
                ),
                Some(new_link) => {
                    let before = self.old.resolve_value(old_link);
                    let after = self.new.resolve_value(new_link);
                    if link_target(before) != link_target(after) {
                        self.push(
                            rules::LINK_CHANGED,
                            op,
                            link_place,
                            Some(link_pointer),
                            before.cloned(),
                            after.cloned(),
                            format!("link `{name}` changed its target or the values it passes"),
                        );
                    }
                }
            }
        }
        for (name, new_link) in new {
            if !old.contains_key(name) {
                self.push(
                    rules::LINK_ADDED,
                    op,
                    format!("{place} link {name}"),
                    Some(format!("{pointer}/links/{}", escape_pointer(name))),
                    None,
                    self.new.resolve_value(new_link).cloned(),
                    format!("link `{name}` added"),
                );
            }
        }
    }
}

/// What a link does, without its description.
fn link_target(link: Option<&Value>) -> Option<Value> {
    let Value::Object(map) = link? else {
        return None;
    };
    Some(Value::Object(
        map.iter().filter(|(key, _)| key.as_str() != "description").map(|(k, v)| (k.clone(), v.clone())).collect(),
    ))
}
