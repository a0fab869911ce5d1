//! Which of a description's OpenAPI 3.1 `webhooks` a received request is,
//! and whether its payload fits that webhook's request body: what a webhook
//! inbox linked to a project shows beside each capture.
//!
//! A request is matched in two steps. First by name: the event names that
//! senders put in a header (`X-GitHub-Event` with the body's `action`,
//! `X-Shopify-Topic`, ...) or in the body (`type`, `event`, `topic`, ...)
//! are compared with each webhook's name and `operationId`, without case or
//! punctuation (`check_run` with the action `completed` meets
//! `check-run-completed`; `invoice.paid` meets `invoicePaid`).
//! Then by payload: the body is validated against every candidate's request
//! body schema. A named candidate wins over the payload; among the rest, one
//! the payload fits wins over the closest misfit.

use std::sync::Arc;

use jsonschema::Validator;
use serde::Serialize;
use serde_json::Value;
use spec::Spec;

use crate::negotiate::is_json;
use crate::schema::{Issue, SchemaSet, issues};
use crate::validate::{body_validators, declared_body};

/// Headers in which senders name the event.
const EVENT_HEADERS: [&str; 8] = [
    "x-github-event",
    "x-gitlab-event",
    "x-gitea-event",
    "x-shopify-topic",
    "x-event-type",
    "x-webhook-event",
    "x-event-name",
    "linear-event",
];
/// Top-level body fields in which senders name the event.
const EVENT_FIELDS: [&str; 6] = ["type", "event", "event_type", "eventType", "topic", "trigger"];
/// Other events a payload also fits, listed at most.
const MAX_ALSO: usize = 5;
/// Longest event name read from a request.
const MAX_HINT_CHARS: usize = 200;

/// One webhook of a description, compiled.
struct Event {
    name: String,
    method: String,
    operation_id: Option<String>,
    summary: Option<String>,
    /// The name and the operation id, normalised (see [`normalise`]).
    keys: Vec<String>,
    body_required: bool,
    /// (media type, validator) per declared request body; no validator for
    /// non-JSON media or schemas that do not compile.
    bodies: Vec<(String, Option<Arc<Validator>>)>,
}

/// The webhooks of one description, ready to match requests. Holds only
/// the compiled webhooks, not the description.
pub struct WebhookModel {
    events: Vec<Event>,
}

impl std::fmt::Debug for WebhookModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookModel").field("events", &self.events.len()).finish()
    }
}

/// How the event was told.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchedBy {
    /// A header or body field named it.
    EventName,
    /// Its schema is the one the payload fits.
    Payload,
    /// No candidate fits; this one has the fewest field errors.
    Closest,
}

/// What a request is, by the description's webhooks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WebhookMatch {
    /// The webhook's name (its key under `webhooks`).
    pub event: String,
    pub method: String,
    pub operation_id: Option<String>,
    pub summary: Option<String>,
    pub matched_by: MatchedBy,
    /// Whether the request fits the webhook's request body.
    pub fits: bool,
    /// Field-level errors (`body.pull_request.number`), at most 20.
    pub issues: Vec<Issue>,
    /// Other webhooks the payload also fits, in document order.
    pub also_fits: Vec<String>,
}

/// The request as received.
#[derive(Clone, Copy, Debug)]
pub struct Received<'a> {
    pub method: &'a str,
    /// Header names in any case.
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl WebhookModel {
    /// Compiles the webhooks of `spec` (none for Swagger 2.0, OpenAPI 3.0 or
    /// GraphQL, which have no `webhooks`).
    #[must_use]
    pub fn new(spec: &Spec) -> Self {
        if spec.webhooks.is_empty() {
            return Self { events: Vec::new() };
        }
        let schemas = SchemaSet::new(spec);
        let events = spec
            .webhooks
            .iter()
            .map(|operation| {
                let bodies = body_validators(spec, operation, &schemas);
                let mut keys = vec![normalise(&operation.path)];
                if let Some(id) = &operation.operation_id {
                    keys.push(normalise(id));
                }
                keys.retain(|key| !key.is_empty());
                Event {
                    name: operation.path.clone(),
                    method: operation.method.as_str().to_ascii_uppercase(),
                    operation_id: operation.operation_id.clone(),
                    summary: operation.summary.clone(),
                    keys,
                    body_required: operation.request_body.as_ref().is_some_and(|b| b.required),
                    bodies,
                }
            })
            .collect();
        Self { events }
    }

    /// Whether the description declares no webhook.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Number of webhooks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// The webhook `request` is, or `None` when no webhook of the
    /// description is sent with its method.
    #[must_use]
    pub fn classify(&self, request: &Received<'_>) -> Option<WebhookMatch> {
        let method = request.method.to_ascii_uppercase();
        let candidates: Vec<&Event> = self.events.iter().filter(|e| e.method == method).collect();
        if candidates.is_empty() {
            return None;
        }
        let json = serde_json::from_slice::<Value>(request.body).ok();
        let hints = hints(request.headers, json.as_ref());
        let content_type = header(request.headers, "content-type").unwrap_or("application/json");
        let named: Vec<&Event> =
            candidates.iter().copied().filter(|e| e.keys.iter().any(|k| hints.contains(k))).collect();
        let (pool, named_any) = if named.is_empty() { (candidates, false) } else { (named, true) };
        let checked: Vec<(&Event, Vec<Issue>)> =
            pool.into_iter().map(|event| (event, event.check(content_type, request.body, json.as_ref()))).collect();
        let fitting: Vec<&(&Event, Vec<Issue>)> = checked.iter().filter(|(_, found)| found.is_empty()).collect();
        let (chosen, found) = match fitting.first() {
            Some((event, _)) => (*event, Vec::new()),
            None => {
                let closest = checked.iter().min_by_key(|(_, found)| found.len())?;
                (closest.0, closest.1.clone())
            }
        };
        let matched_by = match (named_any, found.is_empty()) {
            (true, _) => MatchedBy::EventName,
            (false, true) => MatchedBy::Payload,
            (false, false) => MatchedBy::Closest,
        };
        let also_fits = fitting
            .iter()
            .filter(|(event, _)| event.name != chosen.name)
            .take(MAX_ALSO)
            .map(|(event, _)| event.name.clone())
            .collect();
        Some(WebhookMatch {
            event: chosen.name.clone(),
            method: chosen.method.clone(),
            operation_id: chosen.operation_id.clone(),
            summary: chosen.summary.clone(),
            matched_by,
            fits: found.is_empty(),
            issues: found,
            also_fits,
        })
    }
}

impl Event {
    /// The field-level errors of a request against this webhook's body.
    fn check(&self, content_type: &str, body: &[u8], json: Option<&Value>) -> Vec<Issue> {
        if body.is_empty() {
            return if self.body_required {
                vec![Issue { path: "body".to_owned(), message: "a request body is required".to_owned() }]
            } else {
                Vec::new()
            };
        }
        if self.bodies.is_empty() {
            return Vec::new();
        }
        let essence = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        let Some((media, validator)) = declared_body(&self.bodies, &essence) else {
            let offered: Vec<&str> = self.bodies.iter().map(|(m, _)| m.as_str()).collect();
            return vec![Issue {
                path: "header.content-type".to_owned(),
                message: format!("`{essence}` is not what this webhook sends ({})", offered.join(", ")),
            }];
        };
        if !is_json(media) {
            return Vec::new();
        }
        let Some(value) = json else {
            return vec![Issue { path: "body".to_owned(), message: "the body is not valid JSON".to_owned() }];
        };
        validator.as_ref().map(|v| issues(v, value, "body")).unwrap_or_default()
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// The event names a request carries, normalised; with the body's
/// `action` appended as well (GitHub names `issues` + `opened` as the
/// webhook `issues-opened`).
fn hints(headers: &[(String, String)], json: Option<&Value>) -> Vec<String> {
    let mut named: Vec<&str> = EVENT_HEADERS.iter().filter_map(|name| header(headers, name)).collect();
    if let Some(Value::Object(map)) = json {
        named.extend(EVENT_FIELDS.iter().filter_map(|field| map.get(*field).and_then(Value::as_str)));
    }
    let action = json.and_then(|v| v.get("action")).and_then(Value::as_str).map(normalise);
    let mut hints = Vec::new();
    for name in named.into_iter().filter(|n| n.chars().count() <= MAX_HINT_CHARS) {
        let key = normalise(name);
        if key.is_empty() {
            continue;
        }
        if let Some(action) = action.as_deref().filter(|a| !a.is_empty()) {
            hints.push(format!("{key}{action}"));
        }
        hints.push(key);
    }
    hints
}

/// Lower-case letters and digits only: `check_run`, `check-run`,
/// `checkRun` and `Check Run` are one key.
fn normalise(name: &str) -> String {
    name.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESCRIPTION: &str = r##"{
      "openapi": "3.1.0",
      "info": {"title": "Shop", "version": "1"},
      "paths": {},
      "webhooks": {
        "order.created": {"post": {"operationId": "orderCreated", "summary": "An order was placed",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/OrderEvent"}}}},
          "responses": {"200": {"description": "ok"}}}},
        "refund.issued": {"post": {"operationId": "refundIssued",
          "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RefundEvent"}}}},
          "responses": {"200": {"description": "ok"}}}},
        "check-run-completed": {"post": {
          "requestBody": {"content": {"application/json": {"schema": {"type": "object", "required": ["action"], "properties": {"action": {"const": "completed"}}}}}},
          "responses": {"200": {"description": "ok"}}}}
      },
      "components": {"schemas": {
        "OrderEvent": {"type": "object", "required": ["id", "total"], "properties": {
          "id": {"type": "string"}, "total": {"type": "integer", "minimum": 0},
          "customer": {"type": "object", "required": ["email"], "properties": {"email": {"type": "string", "format": "email"}}}}},
        "RefundEvent": {"type": "object", "required": ["refund_id", "amount"], "additionalProperties": false, "properties": {
          "refund_id": {"type": "string"}, "amount": {"type": "integer"}}}
      }}
    }"##;

    fn model() -> WebhookModel {
        let spec = spec::parse(DESCRIPTION.as_bytes()).expect("the test description parses");
        WebhookModel::new(&spec)
    }

    fn json_headers(extra: &[(&str, &str)]) -> Vec<(String, String)> {
        let mut headers = vec![("Content-Type".to_owned(), "application/json".to_owned())];
        headers.extend(extra.iter().map(|(n, v)| ((*n).to_owned(), (*v).to_owned())));
        headers
    }

    fn classify(method: &str, headers: &[(String, String)], body: &str) -> Option<WebhookMatch> {
        model().classify(&Received { method, headers, body: body.as_bytes() })
    }

    #[test]
    fn a_payload_that_fits_one_webhook_is_that_webhook() {
        let found = classify("POST", &json_headers(&[]), r#"{"refund_id": "r_1", "amount": 300}"#).expect("a match");
        assert_eq!(found.event, "refund.issued");
        assert_eq!(found.matched_by, MatchedBy::Payload);
        assert!(found.fits && found.issues.is_empty());
    }

    #[test]
    fn an_event_name_in_the_body_picks_the_webhook_and_its_field_errors_show() {
        let body = r#"{"type": "order.created", "id": "o_1", "total": -5, "customer": {"email": "nope"}}"#;
        let found = classify("POST", &json_headers(&[]), body).expect("a match");
        assert_eq!(found.event, "order.created");
        assert_eq!(found.operation_id.as_deref(), Some("orderCreated"));
        assert_eq!(found.matched_by, MatchedBy::EventName);
        assert!(!found.fits);
        let paths: Vec<&str> = found.issues.iter().map(|i| i.path.as_str()).collect();
        assert!(paths.contains(&"body.total"), "{paths:?}");
        assert!(paths.contains(&"body.customer.email"), "{paths:?}");
    }

    #[test]
    fn a_sender_header_with_the_body_action_names_the_webhook() {
        let headers = json_headers(&[("X-GitHub-Event", "check_run")]);
        let found = classify("POST", &headers, r#"{"action": "completed"}"#).expect("a match");
        assert_eq!(found.event, "check-run-completed");
        assert_eq!(found.matched_by, MatchedBy::EventName);
        assert!(found.fits);
    }

    #[test]
    fn no_fit_names_the_closest_webhook_with_its_errors() {
        let found = classify("POST", &json_headers(&[]), r#"{"refund_id": 7, "amount": 300}"#).expect("a match");
        assert_eq!(found.matched_by, MatchedBy::Closest);
        assert!(!found.fits);
        assert!(found.issues.iter().any(|i| i.path == "body.refund_id"), "{:?}", found.issues);
    }

    #[test]
    fn other_webhooks_the_payload_fits_are_listed() {
        // Fits the loose check-run schema and the order schema alike.
        let body = r#"{"action": "completed", "id": "o_2", "total": 3}"#;
        let found = classify("POST", &json_headers(&[]), body).expect("a match");
        assert_eq!(found.event, "order.created", "document order decides between fits");
        assert_eq!(found.also_fits, vec!["check-run-completed".to_owned()]);
    }

    #[test]
    fn bodies_that_are_not_json_or_of_another_type_are_errors() {
        let found = classify("POST", &json_headers(&[("X-Event-Type", "refund.issued")]), "not json").expect("a match");
        assert_eq!(found.issues[0].path, "body");
        let form = vec![("content-type".to_owned(), "application/x-www-form-urlencoded".to_owned())];
        let found = classify("POST", &form, "a=1").expect("a match");
        assert_eq!(found.issues[0].path, "header.content-type");
        let found = classify("POST", &json_headers(&[("X-Event-Type", "order.created")]), "").expect("a match");
        assert_eq!(found.issues[0].message, "a request body is required");
    }

    #[test]
    fn a_method_no_webhook_uses_matches_nothing() {
        assert_eq!(classify("GET", &json_headers(&[]), ""), None);
        let empty = spec::parse(br#"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {}}"#)
            .expect("parses");
        assert!(WebhookModel::new(&empty).is_empty());
    }

    #[test]
    fn names_compare_without_case_or_punctuation() {
        assert_eq!(normalise("check_run"), normalise("Check-Run"));
        assert_eq!(normalise("invoice.paid"), "invoicepaid");
        assert_eq!(normalise("…"), "");
    }
}
