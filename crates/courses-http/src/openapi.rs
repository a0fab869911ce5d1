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
        "Import a SCORM 1.2 or 2004 package (zip body up to 100 MB = 100,000,000 bytes; Scale and up): this service's own export becomes editable screens again, any other tool's package a course that plays its SCOs",
        201,
        "courses",
    ),
    ("get", "/v1/courses/{id}", "Get a course", 200, "courses"),
    ("patch", "/v1/courses/{id}", "Change a course's fields; screens replaces all screens", 200, "courses"),
    ("delete", "/v1/courses/{id}", "Delete a course", 204, "courses"),
    ("post", "/v1/courses/{id}/publish", "Publish a course", 200, "courses"),
    ("post", "/v1/courses/{id}/unpublish", "Return a course to draft", 200, "courses"),
    (
        "post",
        "/v1/courses/{id}/embed-links",
        "Mint a signed player link for one learner (externalId, expiresInSeconds 60 to 7,776,000, default 86,400)",
        201,
        "embed",
    ),
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
        "post",
        "/v1/webhooks/{id}/test",
        "Queue a signed webhook.test message for the webhook (delivered and retried like the others; a paused webhook's waits)",
        201,
        "resources",
    ),
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
        "The player of a published course (public). A signed link (learner, expires, signature) opens it for that learner and counts a course view; without learner it is an anonymous preview that records nothing and counts one view per visitor per day",
        200,
        "embed",
    ),
    (
        "get",
        "/v1/embed/{courseId}/session",
        "What the player page carries, as JSON (viewId, course without answers, learner), for players of your own; opens and counts like the page",
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
    (
        "post",
        "/v1/embed/views/{viewId}/scorm",
        "The player saves what a SCO of an imported package committed (blockId, data: cmi elements) for the learner's next opening (public)",
        204,
        "embed",
    ),
    (
        "get",
        "/v1/embed/scorm/{packageId}/{path}",
        "A file of an imported SCORM package of a published course, served sandboxed (an opaque origin, no cookies); HTML pages get the SCORM runtime (public)",
        200,
        "embed",
    ),
    (
        "get",
        "/v1/embed/media/{mediaId}",
        "A file a workspace uploaded in the studio (image, audio, video, font), typed by its bytes and served sandboxed, without cookies (public)",
        200,
        "embed",
    ),
    (
        "get",
        "/v1/embed/scorm-runtime.js",
        "The SCORM 1.2 and 2004 runtime API (window.API, window.API_1484_11) added to the pages of imported packages (public)",
        200,
        "embed",
    ),
];

/// The methods a concrete path answers, from the route table (the most
/// specific templates only: `/v1/usage` is not `/v1/{collection}`), with
/// HEAD beside GET and OPTIONS always. Empty for an unknown path.
pub fn allowed_methods(path: &str) -> Vec<&'static str> {
    let given: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let matches = |template: &str| -> Option<usize> {
        let parts: Vec<&str> = template.split('/').collect();
        let wildcard_tail = parts.last().is_some_and(|p| *p == "{path}");
        if parts.len() != given.len() && !(wildcard_tail && given.len() > parts.len()) {
            return None;
        }
        let mut fixed = 0;
        for (want, got) in parts.iter().zip(&given) {
            if want.starts_with('{') {
                if got.is_empty() {
                    return None;
                }
            } else if want == got {
                fixed += 1;
            } else {
                return None;
            }
        }
        Some(fixed)
    };
    let found: Vec<(usize, &'static str)> = OPERATIONS
        .iter()
        .filter_map(|(method, template, ..)| matches(template).map(|fixed| (fixed, *method)))
        .collect();
    let Some(best) = found.iter().map(|(fixed, _)| *fixed).max() else { return Vec::new() };
    let mut methods: Vec<&'static str> = Vec::new();
    for (_, method) in found.into_iter().filter(|(fixed, _)| *fixed == best) {
        let upper = match method {
            "get" => "GET",
            "post" => "POST",
            "put" => "PUT",
            "patch" => "PATCH",
            "delete" => "DELETE",
            _ => continue,
        };
        if !methods.contains(&upper) {
            methods.push(upper);
        }
        if upper == "GET" && !methods.contains(&"HEAD") {
            methods.push("HEAD");
        }
    }
    methods.push("OPTIONS");
    methods
}

fn error_responses(public: bool) -> Map<String, Value> {
    let mut out = Map::new();
    for code in Code::ALL {
        let (status, name) = code.status_and_name();
        if public && matches!(code, Code::Unauthorized | Code::InsufficientScope) {
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

/// A non-blank string of at most `max` characters.
fn text(max: u64) -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": max, "pattern": "\\S" })
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": true })
}

fn block_schema() -> Value {
    let types: Vec<&str> = courses_core::content::BLOCK_TYPES.to_vec();
    object(json!({ "id": content_id("block"), "type": { "enum": types } }), &["type"])
}

/// A screen's or block's id as a writer may send it: kept when it is 1 to
/// 64 letters, digits, `_` or `-` and not taken, otherwise replaced by a new
/// one (so any string is accepted, and the answer carries the id in use).
fn content_id(what: &str) -> Value {
    json!({
        "type": "string",
        "description": format!("The {what}'s id: kept when it is 1 to 64 letters, digits, _ or - and unused in the course, otherwise a new id is assigned; the answer carries the id in use.")
    })
}

fn screen_schema() -> Value {
    object(
        json!({
            "id": content_id("screen"),
            "title": { "type": ["string", "null"], "maxLength": 200 },
            "blocks": { "type": "array", "maxItems": 100, "items": { "$ref": "#/components/schemas/Block" } },
        }),
        &[],
    )
}

fn course_schema(creating: bool) -> Value {
    object(
        json!({
            "title": text(200),
            "status": { "enum": ["draft", "published"] },
            "passingScore": { "type": ["integer", "null"], "minimum": 0, "maximum": 100 },
            "themeId": { "type": ["string", "null"], "minLength": 1 },
            "certificateId": { "type": ["string", "null"], "minLength": 1 },
            "navigation": { "enum": ["default", "hidden"] },
            "quizFeedback": { "enum": ["deferred", "immediate"] },
            "direction": { "enum": ["ltr", "rtl"] },
            "retry": { "enum": ["allowed", "never"] },
            "description": { "type": ["string", "null"], "maxLength": 20000 },
            "screens": { "type": "array", "maxItems": 200, "items": { "$ref": "#/components/schemas/Screen" } },
        }),
        if creating { &["title"] } else { &[] },
    )
}

/// The JSON body of an operation (`None`: the operation takes none), and
/// whether it is required.
fn request_body(method: &str, path: &str) -> Option<(Value, bool)> {
    let id = || json!({ "type": "string", "minLength": 1 });
    let schema = match (method, path) {
        ("patch", "/v1/workspaces/{id}") => object(json!({ "name": text(100) }), &[]),
        ("post", "/v1/api-keys") => object(
            json!({ "name": { "type": ["string", "null"], "description": "cut to 100 characters" }, "readOnly": { "type": ["boolean", "null"] } }),
            &[],
        ),
        ("post", "/v1/generate") => object(
            json!({
                "prompt": text(2000),
                "screensTarget": { "type": ["integer", "null"], "minimum": 1, "maximum": 20, "default": 6 },
                "passingScore": { "type": ["integer", "null"], "minimum": 0, "maximum": 100 },
                "sourceText": { "type": ["string", "null"], "maxLength": courses_core::offline_writer::MAX_SOURCE_CHARS, "description": "Markdown or plain text the course is built from" },
            }),
            &["prompt"],
        ),
        ("post", "/v1/mcp") => json!({ "oneOf": [
            { "type": "object", "description": "one JSON-RPC message" },
            { "type": "array", "minItems": 1, "maxItems": crate::mcp::MAX_BATCH, "items": { "type": "object" }, "description": "a batch" },
        ] }),
        ("post", "/v1/courses") => course_schema(true),
        ("patch", "/v1/courses/{id}") => course_schema(false),
        ("post", "/v1/courses/{id}/embed-links") => object(
            json!({
                "externalId": text(200),
                "expiresInSeconds": { "type": "integer", "minimum": 60, "maximum": courses_core::embed_links::MAX_TTL_SECS },
            }),
            &["externalId"],
        ),
        ("post", "/v1/courses/{id}/screens") => {
            let mut screen = screen_schema();
            if let Some(Value::Object(props)) = screen.get_mut("properties") {
                props.insert("position".to_owned(), json!({ "type": "integer", "minimum": 0 }));
            }
            screen
        }
        ("patch", "/v1/courses/{id}/screens/{screenId}") => screen_schema(),
        ("put", "/v1/courses/{id}/screens/order") => object(
            json!({ "orderedScreenIds": { "type": "array", "maxItems": 200, "items": { "type": "string" }, "uniqueItems": true } }),
            &["orderedScreenIds"],
        ),
        ("post", "/v1/courses/{id}/screens/{screenId}/blocks") => json!({
            "allOf": [{ "$ref": "#/components/schemas/Block" }],
            "properties": { "position": { "type": "integer", "minimum": 0 } },
        }),
        ("patch", "/v1/courses/{id}/screens/{screenId}/blocks/{blockId}") => json!({ "type": "object" }),
        ("post", "/v1/identities") => object(
            json!({
                "externalId": text(200),
                "email": { "type": ["string", "null"], "maxLength": 320, "pattern": "^\\s*$|@", "description": "blank is none" },
                "name": { "type": ["string", "null"], "maxLength": 200 },
            }),
            &["externalId"],
        ),
        ("post", "/v1/identities/bulk") => object(
            json!({ "identities": { "type": "array", "minItems": 1, "maxItems": 500, "items": object(
                json!({
                    "externalId": text(200),
                    "email": { "type": ["string", "null"], "maxLength": 320, "pattern": "^\\s*$|@", "description": "blank is none" },
                    "name": { "type": ["string", "null"], "maxLength": 200 },
                }),
                &["externalId"],
            ) } }),
            &["identities"],
        ),
        ("delete", "/v1/identities/bulk") => object(
            json!({ "ids": { "type": "array", "minItems": 1, "maxItems": 500, "items": { "type": "string" } } }),
            &["ids"],
        ),
        ("post", "/v1/completions") => object(
            json!({ "courseId": id(), "identityId": id(), "answers": { "type": ["object", "null"] } }),
            &["courseId", "identityId"],
        ),
        ("post", "/v1/issued-certificates") => {
            object(json!({ "courseId": id(), "identityId": id() }), &["courseId", "identityId"])
        }
        ("post", "/v1/embed/views/{viewId}/completion") => {
            object(json!({ "answers": { "type": ["object", "null"] } }), &[])
        }
        ("post", "/v1/embed/views/{viewId}/check") => object(json!({ "blockId": id(), "answer": {} }), &["blockId"]),
        ("post", "/v1/embed/views/{viewId}/scorm") => object(
            json!({ "blockId": id(), "data": { "type": "object", "maxProperties": 16, "additionalProperties": { "type": "string", "maxLength": 64000 } } }),
            &["blockId", "data"],
        ),
        ("patch", "/v1/{collection}/{id}") => json!({ "type": "object" }),
        // One shape per collection: a theme, template or collection has a
        // name; a webhook a URL and events; a translation its course,
        // locale and strings.
        ("post", "/v1/{collection}") => json!({ "anyOf": [
            object(json!({ "name": text(200) }), &["name"]),
            object(
                json!({
                    "url": { "type": "string", "format": "uri", "pattern": "^https?://", "maxLength": 2048 },
                    "events": { "type": "array", "minItems": 1, "uniqueItems": true, "items": { "enum": ["course.published", "completion.created", "certificate.issued", "identity.created"] } },
                    "active": { "type": "boolean" },
                }),
                &["url", "events"],
            ),
            object(
                json!({ "courseId": id(), "locale": { "type": "string", "minLength": 1, "maxLength": 35 }, "strings": { "type": "object", "additionalProperties": { "type": "string" } } }),
                &["courseId", "locale", "strings"],
            ),
        ] }),
        _ => return None,
    };
    let required = schema.get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty())
        || matches!((method, path), ("post", "/v1/mcp" | "/v1/{collection}"));
    Some((schema, required))
}

/// Query parameters beyond paging.
fn query_params(method: &str, path: &str) -> Vec<Value> {
    let q = |name: &str, required: bool, schema: Value, description: &str| json!({ "name": name, "in": "query", "required": required, "schema": schema, "description": description });
    match (method, path) {
        ("get", "/v1/webhook-deliveries") => {
            vec![q("webhookId", true, json!({ "type": "string", "minLength": 1 }), "the webhook's id")]
        }
        ("get", "/v1/courses/{id}/scorm") => {
            vec![q("version", false, json!({ "enum": ["1.2", "2004"], "default": "2004" }), "the SCORM version")]
        }
        ("post", "/v1/courses/import/csv") => {
            vec![q("title", false, json!({ "type": "string", "maxLength": 200 }), "the course title")]
        }
        ("get", "/v1/embed/{courseId}" | "/v1/embed/{courseId}/session") => vec![
            q(
                "learner",
                false,
                json!({ "type": "string", "minLength": 1, "maxLength": 200 }),
                "the learner's externalId, signed",
            ),
            q("expires", false, json!({ "type": "string", "pattern": "^[0-9]{1,12}$" }), "Unix seconds"),
            q("signature", false, json!({ "type": "string", "pattern": "^[0-9a-fA-F]{64}$" }), "HMAC-SHA256 (hex)"),
            q("lang", false, json!({ "type": "string", "maxLength": 35 }), "a locale (Scale and up)"),
        ],
        _ => Vec::new(),
    }
}

fn path_param(name: &str) -> Value {
    let schema = if name == "collection" {
        json!({ "enum": ["themes", "certificate-templates", "translations", "collections", "webhooks"] })
    } else {
        json!({ "type": "string", "minLength": 1 })
    };
    json!({ "name": name, "in": "path", "required": true, "schema": schema })
}

/// OpenAPI links from an operation's success answer, so stateful tools
/// reach every operation with identifiers that exist.
fn links(method: &str, path: &str) -> Option<Value> {
    let to = |op: &str, params: Value| json!({ "operationId": op, "parameters": params });
    let mut out = Map::new();
    let mut add = |name: String, link: Value| {
        out.insert(name, link);
    };
    match (method, path) {
        ("post", "/v1/courses" | "/v1/generate" | "/v1/courses/import/csv" | "/v1/courses/import/scorm") => {
            add("openPreview".to_owned(), to("getV1EmbedCourseid", json!({ "path.courseId": "$response.body#/id" })));
            for (m, p, _, _, _) in OPERATIONS {
                if p.starts_with("/v1/courses/{id}") && !p.contains("{screenId}") {
                    add(operation_id(m, p), to(&operation_id(m, p), json!({ "path.id": "$response.body#/id" })));
                }
            }
        }
        ("post", "/v1/courses/{id}/screens" | "/v1/courses/{id}/screens/{screenId}/duplicate") => {
            for (m, p, _, _, _) in OPERATIONS {
                if p.starts_with("/v1/courses/{id}/screens/{screenId}") && !p.contains("{blockId}") {
                    add(
                        operation_id(m, p),
                        to(
                            &operation_id(m, p),
                            json!({ "path.id": "$request.path.id", "path.screenId": "$response.body#/screen/id" }),
                        ),
                    );
                }
            }
        }
        ("post", "/v1/courses/{id}/screens/{screenId}/blocks") => {
            for (m, p, _, _, _) in OPERATIONS {
                if p.contains("{blockId}") {
                    add(
                        operation_id(m, p),
                        to(
                            &operation_id(m, p),
                            json!({ "path.id": "$request.path.id", "path.screenId": "$request.path.screenId", "path.blockId": "$response.body#/block/id" }),
                        ),
                    );
                }
            }
        }
        ("post", "/v1/courses/{id}/publish") => {
            add("mintEmbedLink".to_owned(), to("postV1CoursesIdEmbedLinks", json!({ "path.id": "$response.body#/id" })))
        }
        ("post", "/v1/courses/{id}/embed-links") => add(
            "openPlayer".to_owned(),
            to(
                "getV1EmbedCourseidSession",
                json!({ "path.courseId": "$response.body#/courseId", "query.learner": "$response.body#/externalId", "query.expires": "$response.body#/expires", "query.signature": "$response.body#/signature" }),
            ),
        ),
        ("get", "/v1/embed/{courseId}/session") => {
            for (m, p, _, _, _) in OPERATIONS {
                if p.contains("{viewId}") {
                    add(
                        operation_id(m, p),
                        to(&operation_id(m, p), json!({ "path.viewId": "$response.body#/viewId" })),
                    );
                }
            }
        }
        ("post", "/v1/embed/views/{viewId}/completion") => {
            for op in ["postV1EmbedViewsViewidCertificate", "getV1EmbedViewsViewidCertificatePdf"] {
                add(op.to_owned(), to(op, json!({ "path.viewId": "$request.path.viewId" })));
            }
        }
        ("post", "/v1/embed/views/{viewId}/certificate") => add(
            "pdf".to_owned(),
            to("getV1EmbedViewsViewidCertificatePdf", json!({ "path.viewId": "$request.path.viewId" })),
        ),
        ("post", "/v1/identities") => {
            for op in ["getV1IdentitiesId", "deleteV1IdentitiesId"] {
                add(op.to_owned(), to(op, json!({ "path.id": "$response.body#/id" })));
            }
        }
        ("post", "/v1/completions") => {
            for op in ["getV1CompletionsId", "deleteV1CompletionsId"] {
                add(op.to_owned(), to(op, json!({ "path.id": "$response.body#/id" })));
            }
        }
        ("post", "/v1/issued-certificates") => {
            for op in ["getV1IssuedCertificatesId", "deleteV1IssuedCertificatesId", "getV1IssuedCertificatesIdPdf"] {
                add(op.to_owned(), to(op, json!({ "path.id": "$response.body#/id" })));
            }
        }
        ("post", "/v1/api-keys") => {
            add("revoke".to_owned(), to("deleteV1ApiKeysId", json!({ "path.id": "$response.body#/id" })))
        }
        ("get", "/v1/workspaces") => {
            for op in ["getV1WorkspacesId", "patchV1WorkspacesId"] {
                add(op.to_owned(), to(op, json!({ "path.id": "$response.body#/data/0/id" })));
            }
        }
        ("post", "/v1/{collection}") => {
            for op in ["getV1CollectionId", "patchV1CollectionId", "deleteV1CollectionId"] {
                add(
                    op.to_owned(),
                    to(op, json!({ "path.collection": "$request.path.collection", "path.id": "$response.body#/id" })),
                );
            }
            add(
                "deliveries".to_owned(),
                to("getV1WebhookDeliveries", json!({ "query.webhookId": "$response.body#/id" })),
            );
            add("test".to_owned(), to("postV1WebhooksIdTest", json!({ "path.id": "$response.body#/id" })));
        }
        _ => {}
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// `getV1CoursesIdScreens`-style ids from the method and path.
pub fn operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_owned();
    for part in path.split(['/', '-', '.', '{', '}']).filter(|p| !p.is_empty()) {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            id.push(first.to_ascii_uppercase());
            id.push_str(&chars.as_str().to_ascii_lowercase());
        }
    }
    id
}

pub fn document() -> Value {
    let mut paths = Map::new();
    for (method, path, summary, status, tag) in OPERATIONS {
        let public = path.starts_with("/v1/embed");
        let params: Vec<Value> = path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .map(path_param)
            .collect();
        let mut responses = error_responses(public);
        let mut ok = if *status == 204 {
            json!({ "description": "done" })
        } else if path.ends_with("/pdf") || path.ends_with(".pdf") {
            json!({ "description": "PDF", "content": { "application/pdf": {} } })
        } else if *path == "/v1/embed/{courseId}" {
            json!({ "description": "the player page", "content": { "text/html": {} } })
        } else if *path == "/v1/embed/scorm/{packageId}/{path}" {
            json!({ "description": "the file, typed by its extension", "content": { "*/*": {} } })
        } else if *path == "/v1/embed/media/{mediaId}" {
            json!({ "description": "the file, typed by its first bytes", "content": { "*/*": {} } })
        } else if *path == "/v1/embed/scorm-runtime.js" {
            json!({ "description": "the runtime script", "content": { "text/javascript": {} } })
        } else if path.ends_with("/scorm") {
            json!({ "description": "SCORM package", "content": { "application/zip": {} } })
        } else {
            json!({ "description": "ok", "content": { "application/json": { "schema": { "type": "object" } } } })
        };
        if let (Some(links), Value::Object(map)) = (links(method, path), &mut ok) {
            map.insert("links".to_owned(), links);
        }
        responses.insert(status.to_string(), ok);
        if (*method, *path) == ("post", "/v1/identities") {
            responses.insert("200".to_owned(), json!({ "description": "an existing identity, updated", "content": { "application/json": { "schema": { "type": "object" } } } }));
        }
        if *path == "/v1/mcp" {
            responses.insert("202".to_owned(), json!({ "description": "only notifications or responses were sent" }));
        }
        let mut params = params;
        let is_list = *method == "get"
            && (matches!(
                *path,
                "/v1/courses"
                    | "/v1/identities"
                    | "/v1/completions"
                    | "/v1/issued-certificates"
                    | "/v1/webhook-deliveries"
                    | "/v1/{collection}"
            ));
        if is_list {
            params.push(json!({ "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": i64::MAX, "default": 50 }, "description": "no maximum" }));
            params.push(
                json!({ "name": "offset", "in": "query", "schema": { "type": "integer", "minimum": 0, "maximum": i64::MAX, "default": 0 } }),
            );
        }
        params.extend(query_params(method, path));
        let mut op = Map::new();
        op.insert("operationId".to_owned(), json!(operation_id(method, path)));
        op.insert("summary".to_owned(), json!(summary));
        op.insert("tags".to_owned(), json!([tag]));
        op.insert("parameters".to_owned(), Value::Array(params));
        op.insert("responses".to_owned(), Value::Object(responses));
        if public {
            op.insert("security".to_owned(), json!([]));
        }
        if let Some((schema, required)) = request_body(method, path) {
            op.insert(
                "requestBody".to_owned(),
                json!({ "required": required, "content": { "application/json": { "schema": schema } } }),
            );
        } else if *path == "/v1/courses/import/csv" {
            op.insert(
                "requestBody".to_owned(),
                json!({ "required": true, "content": { "text/csv": { "schema": { "type": "string" } } } }),
            );
        } else if *path == "/v1/courses/import/scorm" {
            op.insert("requestBody".to_owned(), json!({ "required": true, "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } }));
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
                "Block": block_schema(),
                "Screen": screen_schema(),
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
            "audio" => json!({ "url": "http(s) URL (required)", "transcript": "string" }),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_methods_come_from_the_most_specific_route() {
        assert_eq!(allowed_methods("/v1/usage"), ["GET", "HEAD", "OPTIONS"]);
        assert_eq!(allowed_methods("/v1/courses"), ["GET", "HEAD", "POST", "OPTIONS"]);
        assert_eq!(allowed_methods("/v1/themes/thm_1"), ["GET", "HEAD", "PATCH", "DELETE", "OPTIONS"]);
        assert_eq!(allowed_methods("/v1/embed/scorm/pkg_1/a/b/c.html"), ["GET", "HEAD", "OPTIONS"]);
        assert!(allowed_methods("/v1/nothing/here/at/all").is_empty());
    }

    #[test]
    fn operation_ids_are_unique_and_every_link_names_one() {
        let doc = document();
        let mut ids = std::collections::BTreeSet::new();
        let mut targets = Vec::new();
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                assert!(ids.insert(op["operationId"].as_str().unwrap().to_owned()), "{method} {path}");
                for response in op["responses"].as_object().unwrap().values() {
                    if let Some(links) = response.get("links").and_then(Value::as_object) {
                        targets.extend(links.values().map(|l| l["operationId"].as_str().unwrap().to_owned()));
                    }
                }
            }
        }
        assert!(targets.len() > 30, "{}", targets.len());
        for target in targets {
            assert!(ids.contains(&target), "a link names {target}, which is no operation");
        }
    }
}
