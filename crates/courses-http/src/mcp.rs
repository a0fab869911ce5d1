//! The MCP endpoint (`POST /v1/mcp`, Streamable HTTP with JSON responses):
//! JSON-RPC `initialize`, `tools/list` and `tools/call` over the same use
//! cases and gates as the REST API. The key in `Authorization: Bearer`
//! scopes every tool call to its workspace; tools that write need a key with
//! write access, exactly like the REST methods other than GET.

use axum::Json;
use axum::extract::State;
use axum::http::header::AUTHORIZATION;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use courses_core::{Access, CourseStatus, CoursesError};
use serde_json::{Map, Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::wire;

const PROTOCOL_VERSIONS: [&str; 3] = ["2025-06-18", "2025-03-26", "2024-11-05"];

/// (name, description, writes, input schema properties, required)
fn tools() -> Vec<Value> {
    let course_id = json!({ "type": "string", "description": "The course id (crs_...)" });
    let specs: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        (
            "generate_course",
            "Generate a draft course (outline, screens, blocks, scored questions) from a prompt. Build plan and up; counts against the monthly AI generation allowance.",
            json!({ "prompt": { "type": "string", "maxLength": 2000 }, "screensTarget": { "type": "integer", "minimum": 1, "maximum": 20 }, "passingScore": { "type": ["integer", "null"], "minimum": 0, "maximum": 100 }, "sourceText": { "type": ["string", "null"], "maxLength": courses_core::offline_writer::MAX_SOURCE_CHARS, "description": "Markdown or plain text to build the course from" } }),
            vec!["prompt"],
        ),
        (
            "create_course",
            "Create a draft course. Each screen has an id, a title and an array of blocks (see list_block_types).",
            json!({ "title": { "type": "string" }, "screens": { "type": "array", "items": { "type": "object" } }, "passingScore": { "type": ["integer", "null"] }, "themeId": { "type": ["string", "null"] }, "certificateId": { "type": ["string", "null"] }, "navigation": { "enum": ["default", "hidden"] }, "quizFeedback": { "enum": ["deferred", "immediate"] } }),
            vec!["title"],
        ),
        ("get_course", "Get a course with its screens and blocks.", json!({ "courseId": course_id }), vec!["courseId"]),
        (
            "list_courses",
            "List the workspace's courses (id, title, status).",
            json!({ "limit": { "type": "integer", "minimum": 1 }, "offset": { "type": "integer", "minimum": 0 } }),
            vec![],
        ),
        (
            "add_screen",
            "Add a screen to a course, at position (default: last).",
            json!({ "courseId": course_id, "title": { "type": "string" }, "position": { "type": "integer", "minimum": 0 }, "blocks": { "type": "array", "items": { "type": "object" } } }),
            vec!["courseId"],
        ),
        (
            "reorder_screens",
            "Reorder a course's screens. Send every screen id exactly once; a partial list is rejected.",
            json!({ "courseId": course_id, "orderedScreenIds": { "type": "array", "items": { "type": "string" } } }),
            vec!["courseId", "orderedScreenIds"],
        ),
        (
            "duplicate_screen",
            "Duplicate a screen right after the original; every block gets a new id.",
            json!({ "courseId": course_id, "screenId": { "type": "string" } }),
            vec!["courseId", "screenId"],
        ),
        (
            "add_block",
            "Add a block to a screen, at position (default: last).",
            json!({ "courseId": course_id, "screenId": { "type": "string" }, "block": { "type": "object" }, "position": { "type": "integer", "minimum": 0 } }),
            vec!["courseId", "screenId", "block"],
        ),
        (
            "publish_course",
            "Publish a course so its embed link serves learners.",
            json!({ "courseId": course_id }),
            vec!["courseId"],
        ),
        ("list_block_types", "The block types, their fields and which are scored.", json!({}), vec![]),
    ];
    specs
        .into_iter()
        .map(|(name, description, properties, required)| {
            json!({ "name": name, "description": description, "inputSchema": { "type": "object", "properties": properties, "required": required } })
        })
        .collect()
}

const fn writes(tool: &str) -> bool {
    !matches!(tool.as_bytes(), b"get_course" | b"list_courses" | b"list_block_types")
}

fn rpc_result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn text_result(value: &Value, is_error: bool) -> Value {
    let mut result = json!({ "content": [{ "type": "text", "text": value.to_string() }], "isError": is_error });
    if !is_error
        && value.is_object()
        && let Value::Object(map) = &mut result
    {
        map.insert("structuredContent".to_owned(), value.clone());
    }
    result
}

fn string_arg(args: &Map<String, Value>, name: &str) -> Result<String, CoursesError> {
    args.get(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| CoursesError::field(&[name], "required", format!("{name} is required")))
}

async fn call_tool(
    state: &AppState,
    access: &Access,
    name: &str,
    args: &Map<String, Value>,
) -> Result<Value, CoursesError> {
    let courses = &state.courses;
    if writes(name) && access.read_only {
        return Err(CoursesError::InsufficientScope { method: format!("the {name} tool") });
    }
    match name {
        "generate_course" => Ok(wire::course(&courses.generate_course(access, args).await?)),
        "create_course" => Ok(wire::course(&courses.create_course(access, args).await?)),
        "get_course" => Ok(wire::course(&courses.course(access, &string_arg(args, "courseId")?).await?)),
        "list_courses" => {
            let limit = args.get("limit").and_then(Value::as_u64);
            let offset = args.get("offset").and_then(Value::as_u64);
            let page = courses_core::courses::ListRequest::new(limit, offset);
            let mut rx = courses.list_courses(access, page);
            let mut data = Vec::new();
            let mut has_more = false;
            while let Some(item) = rx.recv().await {
                match item {
                    courses_core::ListItem::Item(c) => {
                        data.push(json!({ "id": c.id, "title": c.title, "status": c.status.as_str(), "screens": c.screens.len() }));
                    }
                    courses_core::ListItem::End { has_more: more } => has_more = more,
                    courses_core::ListItem::Failed(err) => return Err(err.into()),
                }
            }
            Ok(
                json!({ "data": data, "pagination": { "limit": page.limit, "offset": page.offset, "hasMore": has_more } }),
            )
        }
        "add_screen" => {
            let mut body = args.clone();
            body.remove("courseId");
            let (index, screen) = courses.add_screen(access, &string_arg(args, "courseId")?, &body).await?;
            Ok(json!({ "index": index, "screen": screen }))
        }
        "reorder_screens" => {
            let ordered: Vec<String> = args
                .get("orderedScreenIds")
                .and_then(Value::as_array)
                .map(|ids| ids.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            Ok(wire::course(&courses.reorder_screens(access, &string_arg(args, "courseId")?, &ordered).await?))
        }
        "duplicate_screen" => {
            let (index, screen) = courses
                .duplicate_screen(access, &string_arg(args, "courseId")?, &string_arg(args, "screenId")?)
                .await?;
            Ok(json!({ "index": index, "screen": screen }))
        }
        "add_block" => {
            let mut block = args.get("block").and_then(Value::as_object).cloned().unwrap_or_default();
            if let Some(position) = args.get("position") {
                block.insert("position".to_owned(), position.clone());
            }
            let (index, block) = courses
                .add_block(access, &string_arg(args, "courseId")?, &string_arg(args, "screenId")?, &block)
                .await?;
            Ok(json!({ "index": index, "block": block }))
        }
        "publish_course" => Ok(wire::course(
            &courses.set_course_status(access, &string_arg(args, "courseId")?, CourseStatus::Published).await?,
        )),
        "list_block_types" => Ok(crate::openapi::block_types()),
        _ => Err(CoursesError::not_found("tool")),
    }
}

/// Messages in one JSON-RPC batch; a larger batch is refused whole.
pub const MAX_BATCH: usize = 20;

/// `POST /v1/mcp`: one JSON-RPC message (or a batch) per request.
///
/// The key is checked before a byte of the body is read, the body is
/// bounded while it streams ([`crate::extract::JSON_BODY_LIMIT`]), and each
/// message of a batch counts against the key's rate like a request.
pub async fn handle(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Result<Response, ApiError> {
    let authorization = headers.get(AUTHORIZATION).map(|v| v.to_str().unwrap_or("\u{0}"));
    // Listing and reading tools is allowed to read-only keys; each writing
    // tool checks the key's scope itself.
    let access = state.courses.authorize(authorization, "GET").await?;
    let body = crate::extract::read_limited(&headers, body, crate::extract::JSON_BODY_LIMIT).await?;
    let message: Value = serde_json::from_slice(&body).map_err(|e| {
        ApiError::from(CoursesError::field(&[], "invalid_json", format!("the body is not valid JSON-RPC: {e}")))
    })?;
    let batched = matches!(message, Value::Array(_));
    let messages = match message {
        Value::Array(batch) => batch,
        single => vec![single],
    };
    if messages.is_empty() || messages.iter().any(|m| !m.is_object()) {
        return Err(CoursesError::field(
            &[],
            "invalid_type",
            "the body must be a JSON-RPC message (an object) or a batch of 1 to 20 of them",
        )
        .into());
    }
    if messages.len() > MAX_BATCH {
        return Err(CoursesError::field(
            &[],
            "too_big",
            format!("a JSON-RPC batch holds at most {MAX_BATCH} messages; this one has {}", messages.len()),
        )
        .into());
    }
    // The request itself counted one call; the others of the batch count now.
    state.courses.count_calls(&access, messages.len().saturating_sub(1)).await?;
    let mut replies = Vec::new();
    for message in &messages {
        if let Some(reply) = dispatch(&state, &access, message).await {
            replies.push(reply);
        }
    }
    Ok(match (replies.len(), batched) {
        (0, _) => StatusCode::ACCEPTED.into_response(),
        (1, false) => replies.pop().map_or_else(|| StatusCode::ACCEPTED.into_response(), |r| Json(r).into_response()),
        _ => Json(Value::Array(replies)).into_response(),
    })
}

async fn dispatch(state: &AppState, access: &Access, message: &Value) -> Option<Value> {
    let id = message.get("id").cloned();
    let method = message.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = message.get("params").and_then(Value::as_object).cloned().unwrap_or_default();
    // Notifications (no id) get no reply.
    let id = id?;
    Some(match method {
        "initialize" => {
            let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
            let version = PROTOCOL_VERSIONS.iter().find(|v| **v == requested).copied().unwrap_or(PROTOCOL_VERSIONS[0]);
            rpc_result(
                &id,
                json!({
                    "protocolVersion": version,
                    "capabilities": { "tools": { "listChanged": false } },
                    "serverInfo": { "name": "courses", "version": env!("CARGO_PKG_VERSION") },
                    "instructions": format!("Tools act on workspace {} ({} plan).", access.workspace.name, access.workspace.plan),
                }),
            )
        }
        "ping" => rpc_result(&id, json!({})),
        "tools/list" => rpc_result(&id, json!({ "tools": tools() })),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
            let args = params.get("arguments").and_then(Value::as_object).cloned().unwrap_or_default();
            if !tools().iter().any(|t| t["name"] == name) {
                return Some(rpc_error(&id, -32602, &format!("unknown tool {name:?}")));
            }
            match call_tool(state, access, name, &args).await {
                Ok(value) => rpc_result(&id, text_result(&value, false)),
                Err(err) => {
                    let api = ApiError::from(err);
                    let body = crate::error::envelope(api.code(), api.message(), api.issues());
                    rpc_result(&id, text_result(&body, true))
                }
            }
        }
        _ => rpc_error(&id, -32601, &format!("method {method:?} not found")),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_tool_has_a_schema() {
        for tool in super::tools() {
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
        }
    }
}
