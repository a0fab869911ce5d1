//! The docs assistant's routes: AI search (`POST .../_ask`) and the chat
//! drawer (`POST .../_chat`, answered as server-sent events). Both have the
//! docs pages' visibility and take JSON only, so a cross-site form cannot
//! spend a project's quota (a JSON `fetch` from another origin needs a CORS
//! preflight this route never grants).
//!
//! The chat stream's events:
//! - `meta`: `{"conversation", "engine", "citations": [{"n", "title", "url"}]}`, first;
//! - `delta`: `{"text"}`, the answer as it is written;
//! - `done`: `{"tokens"}` charged to the project owner's day; or
//! - `error`: `{"message"}` when the model broke off (what came stays).
//!
//! Refusals before the answer starts (quotas, plan, bad input) are the
//! usual JSON envelope with its status, `Retry-After` on a 429.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use hub_core::assistant::{AskScope, ChatEvent, Citation};
use serde_json::{Value, json};

use crate::docs_site::{DocsServer, OpenedDocs};
use crate::error::ApiError;

/// Largest request body of both routes.
const MAX_BODY_BYTES: usize = 16 * 1024;

/// `POST /docs/<slug>/<label>/_ask` with `{"q": "..."}`: one answer with
/// its citations (`engine` says whether a model wrote it).
pub async fn ask(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    request: axum::extract::Request,
) -> Response {
    match ask_inner(&server, &slug, &label, request).await {
        Ok(value) => no_store(Json(value).into_response()),
        Err(error) => error.into_response(),
    }
}

async fn ask_inner(
    server: &DocsServer,
    slug: &str,
    label: &str,
    request: axum::extract::Request,
) -> Result<Value, ApiError> {
    let (docs, body) = server.open_json(slug, label, request, MAX_BODY_BYTES).await?;
    let q = string_field(&body, "q")?;
    let scope = docs.scope();
    let answer = server.hub().ai_search(&scope, &q, docs.sections()).await?;
    Ok(json!({
        "answer": answer.answer,
        "engine": answer.engine,
        "citations": citations(&docs, &answer.citations),
    }))
}

/// `POST /docs/<slug>/<label>/_chat` with `{"message": "...",
/// "conversation": "..."}`: the answer as server-sent events.
pub async fn chat(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    request: axum::extract::Request,
) -> Response {
    match chat_inner(&server, &slug, &label, request).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn chat_inner(
    server: &DocsServer,
    slug: &str,
    label: &str,
    request: axum::extract::Request,
) -> Result<Response, ApiError> {
    let (docs, body) = server.open_json(slug, label, request, MAX_BODY_BYTES).await?;
    let message = string_field(&body, "message")?;
    let conversation = match body.get("conversation") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(id.as_str()),
        Some(_) => return Err(ApiError::field("conversation", "a conversation id is a string")),
    };
    let scope = docs.scope();
    let reply = server.hub().chat(&scope, conversation, &message, docs.sections()).await?;
    let meta = json!({
        "conversation": reply.conversation,
        "engine": reply.engine,
        "citations": citations(&docs, &reply.citations),
    });
    let first = futures_util::stream::once(async move {
        Ok::<_, Infallible>(Event::default().event("meta").data(meta.to_string()))
    });
    let rest = futures_util::stream::unfold(reply.events, |mut events| async move {
        let event = events.recv().await?;
        let sse = match event {
            ChatEvent::Delta(text) => Event::default().event("delta").data(json!({ "text": text }).to_string()),
            ChatEvent::Done { tokens } => Event::default().event("done").data(json!({ "tokens": tokens }).to_string()),
            ChatEvent::Failed(message) => {
                Event::default().event("error").data(json!({ "message": message }).to_string())
            }
        };
        Some((Ok::<_, Infallible>(sse), events))
    });
    use futures_util::StreamExt as _;
    let response = Sse::new(first.chain(rest)).keep_alive(KeepAlive::default()).into_response();
    Ok(no_store(response))
}

fn no_store(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, header::HeaderValue::from_static("nosniff"));
    response
}

fn string_field(body: &Value, name: &'static str) -> Result<String, ApiError> {
    match body.get(name) {
        Some(Value::String(text)) if !text.trim().is_empty() => Ok(text.clone()),
        Some(Value::String(_)) | None | Some(Value::Null) => {
            Err(ApiError::field(name, format!("`{name}` is required")))
        }
        Some(_) => Err(ApiError::field(name, format!("`{name}` is a string"))),
    }
}

fn citations(docs: &OpenedDocs, citations: &[Citation]) -> Vec<Value> {
    citations
        .iter()
        .map(|c| json!({ "n": c.n, "title": c.title, "url": format!("{}/{}", docs.vbase, c.target) }))
        .collect()
}

impl OpenedDocs {
    /// The assistant's view of this project and version.
    fn scope(&self) -> AskScope<'_> {
        AskScope {
            project_id: &self.site.project_id,
            owner_id: &self.site.owner_id,
            owner_plan: self.site.owner_plan,
            spec_sha256: &self.version.spec_sha256,
            spec: self.prepared.spec(),
            base_url: self.version.base_url.as_deref().or(self.site.base_url.as_deref()),
            visitor: &self.visitor,
        }
    }

    /// The search index's sections of this version, built on first search.
    fn sections(&self) -> impl FnOnce() -> Vec<hub_core::docs::SearchSection> + use<> {
        let prepared = self.prepared.clone();
        move || hub_core::docs::search_sections(&prepared)
    }
}
