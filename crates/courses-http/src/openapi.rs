//! The OpenAPI 3.1 description of `/v1`, built from the route table below so
//! the document and the router cannot drift apart silently (a test checks
//! every documented operation answers something other than 404 or 405).

use serde_json::{Map, Value, json};

use crate::error::Code;

/// (method, path, summary, success status, tag)
pub const OPERATIONS: &[(&str, &str, &str, u16, &str)] = &[
    ("get", "/v1/workspaces", "List the key's workspace", 200, "workspaces"),
    ("get", "/v1/workspaces/{id}", "Get the key's workspace", 200, "workspaces"),
    ("patch", "/v1/workspaces/{id}", "Rename the key's workspace", 200, "workspaces"),
    ("get", "/v1/usage", "This month's course views and AI generations", 200, "workspaces"),
    ("get", "/v1/api-keys", "List the workspace's API keys (never their secret)", 200, "workspaces"),
    ("post", "/v1/api-keys", "Create an API key; the key is returned once", 201, "workspaces"),
    ("delete", "/v1/api-keys/{id}", "Revoke an API key", 204, "workspaces"),
    ("get", "/v1/block-types", "The block types and their fields", 200, "courses"),
    (
        "post",
        "/v1/generate",
        "Generate a draft course from a prompt (Build and up; prompt up to 2,000 characters, screensTarget up to 20)",
        201,
        "generation",
    ),
    (
        "post",
        "/v1/mcp",
        "MCP endpoint (Streamable HTTP, JSON responses): generate_course and the authoring tools",
        200,
        "generation",
    ),
    ("get", "/v1/courses", "List courses", 200, "courses"),
    ("post", "/v1/courses", "Create a draft course (screens and blocks may be inlined)", 201, "courses"),
    (
        "post",
        "/v1/courses/import/csv",
        "Import a draft course from CSV (screen,type,text,options,correct; up to 2,000 data rows; ?title=)",
        201,
        "courses",
    ),
    (
        "post",
        "/v1/courses/import/scorm",
        "Import a SCORM package exported by this service (zip body up to 100 MB; Scale and up)",
        201,
        "courses",
    ),
    ("get", "/v1/courses/{id}", "Get a course", 200, "courses"),
    ("patch", "/v1/courses/{id}", "Change a course's fields; screens replaces all screens", 200, "courses"),
    ("delete", "/v1/courses/{id}", "Delete a course", 204, "courses"),
    ("post", "/v1/courses/{id}/publish", "Publish a course", 200, "courses"),
    ("post", "/v1/courses/{id}/unpublish", "Return a course to draft", 200, "courses"),
    ("get", "/v1/courses/{id}/scorm", "Export as a SCORM package (?version=1.2 or 2004; Scale and up)", 200, "courses"),
    ("get", "/v1/courses/{id}/screens", "List a course's screens", 200, "screens"),
    ("post", "/v1/courses/{id}/screens", "Add a screen (at position, default last)", 201, "screens"),
    (
        "put",
        "/v1/courses/{id}/screens/order",
        "Reorder screens: orderedScreenIds lists every screen once",
        200,
        "screens",
    ),
    ("get", "/v1/courses/{id}/screens/{screenId}", "Get a screen", 200, "screens"),
    ("patch", "/v1/courses/{id}/screens/{screenId}", "Change a screen", 200, "screens"),
    ("delete", "/v1/courses/{id}/screens/{screenId}", "Delete a screen", 204, "screens"),
    (
        "post",
        "/v1/courses/{id}/screens/{screenId}/duplicate",
        "Duplicate a screen right after itself, with new ids",
        201,
        "screens",
    ),
    ("get", "/v1/courses/{id}/screens/{screenId}/blocks", "List a screen's blocks", 200, "blocks"),
    ("post", "/v1/courses/{id}/screens/{screenId}/blocks", "Add a block (at position, default last)", 201, "blocks"),
    ("get", "/v1/courses/{id}/screens/{screenId}/blocks/{blockId}", "Get a block", 200, "blocks"),
    ("patch", "/v1/courses/{id}/screens/{screenId}/blocks/{blockId}", "Change a block", 200, "blocks"),
    ("delete", "/v1/courses/{id}/screens/{screenId}/blocks/{blockId}", "Delete a block", 204, "blocks"),
    ("get", "/v1/identities", "List learner identities", 200, "learners"),
    ("post", "/v1/identities", "Create or update one identity by externalId", 201, "learners"),
    ("post", "/v1/identities/bulk", "Create or update up to 500 identities", 200, "learners"),
    ("delete", "/v1/identities/bulk", "Delete up to 500 identities by id or externalId", 200, "learners"),
    ("get", "/v1/identities/{id}", "Get an identity", 200, "learners"),
    ("delete", "/v1/identities/{id}", "Delete an identity (with its completions and certificates)", 204, "learners"),
    ("get", "/v1/completions", "List completions", 200, "learners"),
    ("post", "/v1/completions", "Record a completion graded from answers", 201, "learners"),
    ("get", "/v1/completions/{id}", "Get a completion", 200, "learners"),
    ("delete", "/v1/completions/{id}", "Delete a completion", 204, "learners"),
    ("get", "/v1/issued-certificates", "List issued certificates", 200, "certificates"),
    (
        "post",
        "/v1/issued-certificates",
        "Issue a learner's certificate (403 below the passing score)",
        201,
        "certificates",
    ),
    ("get", "/v1/issued-certificates/{id}", "Get an issued certificate", 200, "certificates"),
    ("delete", "/v1/issued-certificates/{id}", "Delete an issued certificate", 204, "certificates"),
    ("get", "/v1/issued-certificates/{id}/pdf", "The certificate as a PDF", 200, "certificates"),
    (
        "get",
        "/v1/{collection}",
        "List themes, certificate-templates, translations (Scale and up), collections or webhooks",
        200,
        "resources",
    ),
    ("post", "/v1/{collection}", "Create one (a webhook's signing secret is returned once)", 201, "resources"),
    ("get", "/v1/{collection}/{id}", "Get one", 200, "resources"),
    ("patch", "/v1/{collection}/{id}", "Change one (null removes a field)", 200, "resources"),
    ("delete", "/v1/{collection}/{id}", "Delete one", 204, "resources"),
    (
        "get",
        "/v1/webhook-deliveries",
        "The signed messages of a webhook (?webhookId=), with their Standard Webhooks headers and delivery attempts",
        200,
        "resources",
    ),
    (
        "get",
        "/v1/embed/{courseId}",
        "The learner player of a published course (public; counts a course view; ?learner= and ?lang=)",
        200,
        "embed",
    ),
    (
        "post",
        "/v1/embed/views/{viewId}/completion",
        "The player records the learner's completion (public)",
        201,
        "embed",
    ),
    ("post", "/v1/embed/views/{viewId}/check", "Immediate feedback for one answer (public)", 200, "embed"),
    (
        "post",
        "/v1/embed/views/{viewId}/certificate",
        "The player issues the learner's certificate (public)",
        201,
        "embed",
    ),
    ("get", "/v1/embed/views/{viewId}/certificate.pdf", "The learner's certificate as a PDF (public)", 200, "embed"),
];

fn error_responses(public: bool) -> Map<String, Value> {
    let mut out = Map::new();
    for code in Code::ALL {
        let (status, name) = code.status_and_name();
        if public && matches!(code, Code::Unauthorized | Code::InsufficientScope | Code::RateLimited) {
            continue;
        }
        let key = status.as_u16().to_string();
        let entry = out.entry(key).or_insert_with(|| json!({ "description": "", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }));
        if let Some(Value::String(d)) = entry.get_mut("description") {
            if !d.is_empty() {
                d.push_str(", ");
            }
            d.push_str(name);
        }
    }
    out
}

pub fn document() -> Value {
    let mut paths = Map::new();
    for (method, path, summary, status, tag) in OPERATIONS {
        let public = path.starts_with("/v1/embed");
        let params: Vec<Value> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(|name| json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }))
            .collect();
        let mut responses = error_responses(public);
        let ok = if *status == 204 {
            json!({ "description": "done" })
        } else if path.ends_with("/pdf") || path.ends_with(".pdf") {
            json!({ "description": "PDF", "content": { "application/pdf": {} } })
        } else if *path == "/v1/embed/{courseId}" {
            json!({ "description": "HTML player", "content": { "text/html": {} } })
        } else {
            json!({ "description": "ok", "content": { "application/json": { "schema": { "type": "object" } } } })
        };
        responses.insert(status.to_string(), ok);
        let mut params = params;
        let is_list = *method == "get" && (!path.contains('{') || path.ends_with("{collection}"));
        if is_list {
            params.push(json!({ "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "default": 50 }, "description": "no maximum" }));
            params.push(
                json!({ "name": "offset", "in": "query", "schema": { "type": "integer", "minimum": 0, "default": 0 } }),
            );
        }
        let mut op = Map::new();
        op.insert("summary".to_owned(), json!(summary));
        op.insert("tags".to_owned(), json!([tag]));
        op.insert("parameters".to_owned(), Value::Array(params));
        op.insert("responses".to_owned(), Value::Object(responses));
        if public {
            op.insert("security".to_owned(), json!([]));
        }
        if ["post", "patch", "put"].contains(method) {
            op.insert(
                "requestBody".to_owned(),
                json!({ "required": false, "content": { "application/json": { "schema": { "type": "object", "additionalProperties": true } } } }),
            );
        }
        if let Value::Object(entry) = paths.entry((*path).to_owned()).or_insert_with(|| json!({})) {
            entry.insert((*method).to_owned(), Value::Object(op));
        }
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Courses API",
            "version": "1.0.0",
            "description": "Author, publish and track courses. Authenticate with `Authorization: Bearer <API_KEY>`; keys are scoped to one workspace. 120 requests per key per rolling minute.",
        },
        "servers": [{ "url": "/" }],
        "security": [{ "apiKey": [] }],
        "paths": paths,
        "components": {
            "securitySchemes": { "apiKey": { "type": "http", "scheme": "bearer" } },
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error", "message"],
                    "properties": {
                        "error": { "type": "string", "enum": Code::ALL.iter().map(|c| c.status_and_name().1).collect::<std::collections::BTreeSet<_>>() },
                        "message": { "type": "string" },
                        "issues": { "type": "array", "items": {
                            "type": "object",
                            "required": ["code", "path", "message"],
                            "properties": { "code": { "type": "string" }, "path": { "type": "array", "items": { "type": "string" } }, "message": { "type": "string" } },
                        } },
                    },
                },
            },
        },
    })
}

/// The block types, their fields, and which are scored.
pub fn block_types() -> Value {
    let fields = |kind: &str| -> Value {
        match kind {
            "text" | "heading" => json!({ "text": "string (required)" }),
            "quote" => json!({ "text": "string (required)", "attribution": "string" }),
            "image" => json!({ "url": "http(s) URL (required)", "alt": "string" }),
            "video" => json!({ "url": "http(s) URL (required)" }),
            "list" => json!({ "items": "1 to 50 strings (required)" }),
            "button" => json!({ "label": "string (required); advances to the next screen" }),
            "divider" => json!({}),
            "stack" => json!({ "stackCards": "1 to 10 cards {front (required), back}" }),
            "multiple_choice" => {
                json!({ "question": "string (required)", "options": "2 to 10 strings", "correctIndex": "integer" })
            }
            "multiple_response" => {
                json!({ "question": "string (required)", "options": "2 to 10 strings", "correctIndexes": "distinct integers" })
            }
            "true_false" => json!({ "statement": "string (required)", "answer": "boolean" }),
            _ => json!({}),
        }
    };
    let data: Vec<Value> = courses_core::content::BLOCK_TYPES
        .iter()
        .map(|t| json!({ "type": t, "scored": courses_core::content::is_scored_type(t), "fields": fields(t) }))
        .collect();
    json!({ "object": "list", "data": data })
}
