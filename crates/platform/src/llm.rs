//! An OpenAI-compatible chat completions client, for the model an operator
//! configures with `SVC_LLM_URL` (the courses' generator and the hub's docs
//! assistant share it).
//!
//! Answers are streamed: the request asks for `stream: true` with usage in
//! the last chunk, and the server-sent events are read with `sse-stream`
//! over a body bounded by the outbound client. A server that answers with
//! one JSON document instead (some local servers ignore `stream`) is read
//! as one delta, so both behave the same to the caller.

use std::time::Duration;

use futures_util::{Stream, StreamExt as _};
use serde_json::{Value, json};

use crate::outbound::{Outbound, OutboundError};

/// The largest model answer read, in bytes of the HTTP body (events and
/// their JSON framing included).
pub const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// An OpenAI-compatible chat completions endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LlmConfig {
    /// The endpoint: a base URL (`.../v1`) or the full `.../chat/completions`.
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    pub timeout_secs: u64,
}

impl LlmConfig {
    /// `SVC_LLM_URL`, `SVC_LLM_MODEL` (default `gpt-4o-mini`),
    /// `SVC_LLM_KEY` (the name the deployment contract gives; the older
    /// `SVC_LLM_API_KEY` is read when it is unset) and
    /// `SVC_LLM_TIMEOUT_SECS` (default 60); `None` without `SVC_LLM_URL`.
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// [`LlmConfig::from_env`] over any source of variables.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        let url = set("SVC_LLM_URL")?;
        Some(Self {
            url: url.trim().to_owned(),
            model: set("SVC_LLM_MODEL").unwrap_or_else(|| "gpt-4o-mini".to_owned()),
            api_key: set("SVC_LLM_KEY").or_else(|| set("SVC_LLM_API_KEY")),
            timeout_secs: set("SVC_LLM_TIMEOUT_SECS").and_then(|t| t.trim().parse().ok()).unwrap_or(60),
        })
    }

    /// The chat completions URL.
    pub fn endpoint(&self) -> String {
        let base = self.url.trim_end_matches('/');
        if base.ends_with("/chat/completions") { base.to_owned() } else { format!("{base}/chat/completions") }
    }

    /// The request headers: JSON, and the bearer key when there is one.
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        let mut headers = vec![("content-type", "application/json".to_owned())];
        if let Some(key) = &self.api_key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        headers
    }
}

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    pub content: String,
}

/// What a streamed answer yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatChunk {
    /// More text of the answer.
    Delta(String),
    /// The tokens the model reports for the whole exchange.
    Usage { prompt_tokens: u64, completion_tokens: u64 },
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    #[error("the model endpoint could not be reached: {0}")]
    Outbound(#[from] OutboundError),
    #[error("the model endpoint answered {status}: {detail}")]
    Status { status: u16, detail: String },
    #[error("the model's answer could not be read: {0}")]
    Malformed(String),
}

/// The body of a streamed chat completions request.
pub fn chat_request(config: &LlmConfig, messages: &[ChatMessage], max_tokens: u32) -> Value {
    let messages: Vec<Value> = messages.iter().map(|m| json!({ "role": m.role, "content": m.content })).collect();
    json!({
        "model": config.model,
        "messages": messages,
        "max_tokens": max_tokens,
        "temperature": 0.2,
        "stream": true,
        "stream_options": { "include_usage": true },
    })
}

/// Sends `messages` and streams the answer. The endpoint is the operator's
/// own configuration, so the client is the trusted one; the body is still
/// bounded by [`MAX_ANSWER_BYTES`] and the whole exchange by the
/// configured timeout.
pub async fn stream_chat(
    config: &LlmConfig,
    messages: &[ChatMessage],
    max_tokens: u32,
) -> Result<impl Stream<Item = Result<ChatChunk, LlmError>> + Send + 'static + use<>, LlmError> {
    let client = Outbound::trusted()
        .with_timeout(Duration::from_secs(config.timeout_secs.max(1)))
        .with_max_response(MAX_ANSWER_BYTES);
    let body = chat_request(config, messages, max_tokens).to_string().into_bytes();
    let opened = client.open("POST", &config.endpoint(), &config.headers(), body).await?;
    let status = opened.status;
    let is_stream = opened.header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
    if !(200..300).contains(&status) {
        let body = opened.bytes().await.unwrap_or_default();
        let detail: String = String::from_utf8_lossy(&body).chars().take(300).collect();
        return Err(LlmError::Status { status, detail });
    }
    let chunks: futures_util::stream::BoxStream<'static, Result<ChatChunk, LlmError>> = if is_stream {
        let events = sse_stream::SseStream::from_bytes_stream(opened.bytes_stream());
        events
            .map(|event| match event {
                Ok(event) => Ok(event.data.map(|data| parse_event(&data)).unwrap_or_default()),
                Err(error) => Err(LlmError::Malformed(error.to_string())),
            })
            .flat_map(|parsed| {
                futures_util::stream::iter(match parsed {
                    Ok(chunks) => chunks.into_iter().map(Ok).collect::<Vec<_>>(),
                    Err(error) => vec![Err(error)],
                })
            })
            .boxed()
    } else {
        let body = opened.bytes().await?;
        let chunks = parse_whole(&body);
        futures_util::stream::iter(match chunks {
            Ok(chunks) => chunks.into_iter().map(Ok).collect::<Vec<_>>(),
            Err(error) => vec![Err(error)],
        })
        .boxed()
    };
    Ok(chunks)
}

/// The chunks of one server-sent event's data: a delta of text, usage, or
/// nothing (`[DONE]`, role-only deltas, keep-alives).
pub fn parse_event(data: &str) -> Vec<ChatChunk> {
    let data = data.trim();
    if data.is_empty() || data == "[DONE]" {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_str::<Value>(data) else { return Vec::new() };
    let mut chunks = Vec::new();
    if let Some(text) = value.pointer("/choices/0/delta/content").and_then(Value::as_str)
        && !text.is_empty()
    {
        chunks.push(ChatChunk::Delta(text.to_owned()));
    }
    chunks.extend(usage(&value));
    chunks
}

/// A whole (non-streamed) chat completions answer as chunks.
pub fn parse_whole(body: &[u8]) -> Result<Vec<ChatChunk>, LlmError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| LlmError::Malformed(e.to_string()))?;
    let text = value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| LlmError::Malformed("no choices[0].message.content".to_owned()))?;
    let mut chunks = vec![ChatChunk::Delta(text.to_owned())];
    chunks.extend(usage(&value));
    Ok(chunks)
}

fn usage(value: &Value) -> Option<ChatChunk> {
    let usage = value.get("usage").filter(|u| u.is_object())?;
    Some(ChatChunk::Usage {
        prompt_tokens: usage.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        completion_tokens: usage.get("completion_tokens").and_then(Value::as_u64).unwrap_or(0),
    })
}

/// A rough token count for text no model counted (about four characters a
/// token for English, as the model vendors' own rule of thumb says).
pub fn estimate_tokens(text: &str) -> u64 {
    u64::try_from(text.chars().count().div_ceil(4)).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_from_a_base_or_a_full_url() {
        let config =
            LlmConfig { url: "http://127.0.0.1:9/v1/".into(), model: "m".into(), api_key: None, timeout_secs: 5 };
        assert_eq!(config.endpoint(), "http://127.0.0.1:9/v1/chat/completions");
        let full = LlmConfig { url: "http://h/x/chat/completions".into(), ..config };
        assert_eq!(full.endpoint(), "http://h/x/chat/completions");
    }

    #[test]
    fn settings_come_from_the_contracts_variables() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
        };
        assert_eq!(LlmConfig::from_vars(vars(&[("SVC_LLM_KEY", "k")])), None, "no URL, no model");
        let config = LlmConfig::from_vars(vars(&[("SVC_LLM_URL", " http://m/v1 "), ("SVC_LLM_KEY", "k")]));
        assert_eq!(
            config,
            Some(LlmConfig {
                url: "http://m/v1".into(),
                model: "gpt-4o-mini".into(),
                api_key: Some("k".into()),
                timeout_secs: 60
            })
        );
        let older = LlmConfig::from_vars(vars(&[("SVC_LLM_URL", "http://m"), ("SVC_LLM_API_KEY", "old")]));
        assert_eq!(older.and_then(|c| c.api_key), Some("old".to_owned()));
        let both = LlmConfig::from_vars(vars(&[
            ("SVC_LLM_URL", "http://m"),
            ("SVC_LLM_KEY", "new"),
            ("SVC_LLM_API_KEY", "old"),
        ]));
        assert_eq!(both.and_then(|c| c.api_key), Some("new".to_owned()));
    }

    #[test]
    fn events_yield_deltas_and_usage_and_ignore_the_rest() {
        assert_eq!(parse_event(r#"{"choices":[{"delta":{"content":"Hel"}}]}"#), vec![ChatChunk::Delta("Hel".into())]);
        assert!(parse_event(r#"{"choices":[{"delta":{"role":"assistant"}}]}"#).is_empty());
        assert!(parse_event("[DONE]").is_empty());
        assert!(parse_event("not json").is_empty());
        assert_eq!(
            parse_event(r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3}}"#),
            vec![ChatChunk::Usage { prompt_tokens: 12, completion_tokens: 3 }]
        );
    }

    #[test]
    fn a_whole_answer_is_one_delta() {
        let body = br#"{"choices":[{"message":{"content":"Use GET /pets."}}],"usage":{"prompt_tokens":5,"completion_tokens":4}}"#;
        assert_eq!(
            parse_whole(body).ok(),
            Some(vec![
                ChatChunk::Delta("Use GET /pets.".into()),
                ChatChunk::Usage { prompt_tokens: 5, completion_tokens: 4 }
            ])
        );
        assert!(parse_whole(b"{}").is_err());
    }

    #[test]
    fn requests_stream_with_usage_and_a_cap() {
        let config =
            LlmConfig { url: "http://h/v1".into(), model: "m".into(), api_key: Some("k".into()), timeout_secs: 5 };
        let body = chat_request(&config, &[ChatMessage { role: "user", content: "hi".into() }], 300);
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["max_tokens"], 300);
        assert_eq!(body["messages"][0]["content"], "hi");
        assert!(config.headers().iter().any(|(n, v)| *n == "authorization" && v == "Bearer k"));
        assert_eq!(estimate_tokens("abcdefgh"), 2);
        assert_eq!(estimate_tokens("abcdefghi"), 3);
    }
}
