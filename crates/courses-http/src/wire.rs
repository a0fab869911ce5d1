//! The wire shapes of the API (camelCase JSON). Domain types are not wire
//! types: this module decides what each looks like to clients.

use courses_core::resources::WEBHOOK_SECRET_FIELD;
use courses_core::{ApiKeyInfo, Completion, Course, Identity, IssuedCertificate, Resource, Usage, Workspace};
use kernel::Timestamp;
use serde_json::{Map, Value, json};

fn time(t: Timestamp) -> Value {
    Value::String(t.to_rfc3339())
}

fn opt_time(t: Option<Timestamp>) -> Value {
    t.map_or(Value::Null, time)
}

pub fn workspace(ws: &Workspace) -> Value {
    json!({
        "object": "workspace",
        "id": ws.id,
        "name": ws.name,
        "plan": ws.plan.as_str(),
        "paymentFailedAt": opt_time(ws.payment_failed_at),
        "createdAt": time(ws.created_at),
        "updatedAt": time(ws.updated_at),
    })
}

pub fn api_key(key: &ApiKeyInfo) -> Value {
    json!({
        "object": "api_key",
        "id": key.id,
        "name": key.name,
        "display": key.display,
        "readOnly": key.read_only,
        "revokedAt": opt_time(key.revoked_at),
        "lastUsedAt": opt_time(key.last_used_at),
        "createdAt": time(key.created_at),
    })
}

pub fn usage(u: &Usage) -> Value {
    json!({
        "object": "usage",
        "month": u.month,
        "plan": u.plan.as_str(),
        "courseViews": { "used": u.course_views, "allowance": u.course_views_allowance, "overage": u.course_views_overage, "hardCapped": u.plan.hard_capped() },
        "generations": { "used": u.generations, "allowance": u.generations_allowance },
    })
}

/// A course; unknown fields it was given are echoed back beside the known ones.
pub fn course(c: &Course) -> Value {
    let mut out = Map::new();
    for (k, v) in &c.extra {
        out.insert(k.clone(), v.clone());
    }
    let known = json!({
        "object": "course",
        "id": c.id,
        "workspaceId": c.workspace_id,
        "title": c.title,
        "status": c.status.as_str(),
        "passingScore": c.passing_score,
        "themeId": c.theme_id,
        "certificateId": c.certificate_id,
        "navigation": c.settings.get("navigation").cloned().unwrap_or(Value::Null),
        "quizFeedback": c.settings.get("quizFeedback").cloned().unwrap_or(Value::Null),
        "direction": c.settings.get("direction").cloned().unwrap_or(Value::Null),
        "retry": if c.allows_retry() { "allowed" } else { "never" },
        "description": c.settings.get("description").cloned().unwrap_or(Value::Null),
        "sourceKind": c.source_kind,
        "screens": c.screens,
        "embedPath": format!("/v1/embed/{}", c.id),
        "publishedAt": opt_time(c.published_at),
        "createdAt": time(c.created_at),
        "updatedAt": time(c.updated_at),
    });
    if let Value::Object(known) = known {
        out.extend(known);
    }
    Value::Object(out)
}

pub fn resource(r: &Resource) -> Value {
    let mut out = Map::new();
    for (k, v) in &r.data {
        // Signing material never leaves the server after creation.
        if k != WEBHOOK_SECRET_FIELD && !k.starts_with("_signing") {
            out.insert(k.clone(), v.clone());
        }
    }
    out.insert("object".to_owned(), json!(r.kind.as_str()));
    out.insert("id".to_owned(), json!(r.id));
    out.insert("workspaceId".to_owned(), json!(r.workspace_id));
    out.insert("createdAt".to_owned(), time(r.created_at));
    out.insert("updatedAt".to_owned(), time(r.updated_at));
    Value::Object(out)
}

/// A signed webhook message with the headers it is (to be) sent with.
pub fn delivery(d: &courses_core::store::Delivery) -> Value {
    let payload: Value = serde_json::from_str(&d.payload).unwrap_or(Value::Null);
    json!({
        "object": "webhook_delivery",
        "id": d.id,
        "webhookId": d.webhook_id,
        "event": d.event,
        "status": d.status,
        "attempts": d.attempts,
        "headers": { "webhook-id": d.id, "webhook-timestamp": d.sent_at_secs.to_string(), "webhook-signature": d.signature },
        "body": d.payload,
        "payload": payload,
        "createdAt": time(d.created_at),
        "nextAttemptAt": d.next_attempt_at.map(time),
        "lastAttemptAt": d.last_attempt_at.map(time),
        "responseStatus": d.response_status,
        "lastError": d.last_error,
        "deliveredAt": d.delivered_at.map(time),
    })
}

pub fn identity(i: &Identity) -> Value {
    let mut out = i.extra.clone();
    let known = json!({
        "object": "identity",
        "id": i.id,
        "externalId": i.external_id,
        "email": i.email,
        "name": i.name,
        "createdAt": time(i.created_at),
        "updatedAt": time(i.updated_at),
    });
    if let Value::Object(known) = known {
        out.extend(known);
    }
    Value::Object(out)
}

pub fn completion(c: &Completion) -> Value {
    json!({
        "object": "completion",
        "id": c.id,
        "courseId": c.course_id,
        "identityId": c.identity_id,
        "score": c.score,
        "passed": c.passed,
        "scorm": c.scorm,
        "completedAt": time(c.created_at),
    })
}

pub fn certificate(c: &IssuedCertificate) -> Value {
    json!({
        "object": "issued_certificate",
        "id": c.id,
        "courseId": c.course_id,
        "identityId": c.identity_id,
        "completionId": c.completion_id,
        "certificateId": c.template_id,
        "learnerName": c.learner_name,
        "courseTitle": c.course_title,
        "score": c.score,
        "pdfPath": format!("/v1/issued-certificates/{}/pdf", c.id),
        "issuedAt": time(c.issued_at),
    })
}
