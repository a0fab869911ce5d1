//! An OpenAI-compatible embeddings client, for the model an operator
//! configures with `SVC_LLM_URL` and `SVC_LLM_EMBEDDING_MODEL` (the hub's
//! search re-ranks by it; see `hub_core::semantic`).
//!
//! `POST {base}/embeddings` with `{"model", "input": [...], "encoding_format":
//! "float"}`, the answer's `data[i].embedding` read back in the order of
//! `data[i].index`. OpenAI, Azure's OpenAI-compatible endpoint, Ollama,
//! llama.cpp's server, vLLM and text-embeddings-inference all answer this
//! shape. Every answer is checked before use: as many vectors as inputs, one
//! width for all, no more than [`MAX_DIMENSIONS`], finite numbers.

use std::time::Duration;

use serde_json::{Value, json};

use crate::llm::{LlmConfig, LlmError};
use crate::outbound::Outbound;

/// Texts sent in one request at most (OpenAI accepts 2,048; local servers
/// often fewer, and smaller batches keep each answer small).
pub const MAX_BATCH: usize = 64;

/// Characters of one text sent at most: a section's title and the start of
/// its description say what it is, and every model's context holds this.
pub const MAX_INPUT_CHARS: usize = 1_000;

/// The widest vector accepted (OpenAI's largest model has 3,072).
pub const MAX_DIMENSIONS: usize = 8_192;

/// The largest answer read, in bytes: [`MAX_BATCH`] vectors of 3,072
/// numbers written as JSON take about 5 MB.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024 * 1024;

/// An OpenAI-compatible embeddings endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmbeddingConfig {
    /// The endpoint: a base URL (`.../v1`), or a full `.../embeddings` or
    /// `.../chat/completions` URL whose base is taken.
    pub url: String,
    pub model: String,
    pub api_key: Option<String>,
    /// The budget of one request made off the request path (a document's
    /// sections); a search's question gets at most [`QUESTION_TIMEOUT`].
    pub timeout_secs: u64,
}

/// The longest a search waits for its question's vector before answering
/// without it.
pub const QUESTION_TIMEOUT: Duration = Duration::from_secs(3);

impl EmbeddingConfig {
    /// `SVC_LLM_EMBEDDING_MODEL` on the endpoint, key and timeout of
    /// [`LlmConfig::from_vars`]; `None` unless both `SVC_LLM_URL` and the
    /// model are set (a chat model is no embeddings model, so none is
    /// assumed).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Option<Self> {
        let model = var("SVC_LLM_EMBEDDING_MODEL").map(|m| m.trim().to_owned()).filter(|m| !m.is_empty())?;
        let llm = LlmConfig::from_vars(var)?;
        Some(Self { url: llm.url, model, api_key: llm.api_key, timeout_secs: llm.timeout_secs })
    }

    /// [`EmbeddingConfig::from_vars`] over the process's environment.
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The embeddings URL.
    pub fn endpoint(&self) -> String {
        let url = self.url.trim_end_matches('/');
        let base = url
            .strip_suffix("/embeddings")
            .or_else(|| url.strip_suffix("/chat/completions"))
            .unwrap_or(url)
            .trim_end_matches('/');
        format!("{base}/embeddings")
    }

    /// The request's body for `inputs` (each cut to [`MAX_INPUT_CHARS`]).
    pub fn request(&self, inputs: &[String]) -> Value {
        let inputs: Vec<String> = inputs.iter().map(|t| t.chars().take(MAX_INPUT_CHARS).collect()).collect();
        json!({ "model": self.model, "input": inputs, "encoding_format": "float" })
    }
}

/// The vectors of `inputs` (at most [`MAX_BATCH`]), in their order, each
/// request bounded by `timeout`. The endpoint is the operator's own
/// configuration, so the client is the trusted one (a model on the same
/// machine is the common case), but the answer is bounded and checked.
pub async fn embed(config: &EmbeddingConfig, inputs: &[String], timeout: Duration) -> Result<Vec<Vec<f32>>, LlmError> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    if inputs.len() > MAX_BATCH {
        return Err(LlmError::Malformed(format!("at most {MAX_BATCH} texts per request")));
    }
    let client =
        Outbound::trusted().with_timeout(timeout.max(Duration::from_millis(100))).with_max_response(MAX_ANSWER_BYTES);
    let mut headers = vec![("content-type", "application/json".to_owned())];
    if let Some(key) = &config.api_key {
        headers.push(("authorization", format!("Bearer {key}")));
    }
    let body = config.request(inputs).to_string().into_bytes();
    let answer = client.post(&config.endpoint(), &headers, body).await?;
    if !(200..300).contains(&answer.status) {
        let detail: String = String::from_utf8_lossy(&answer.body).chars().take(300).collect();
        return Err(LlmError::Status { status: answer.status, detail });
    }
    if answer.truncated {
        return Err(LlmError::Malformed(format!("the answer is over {MAX_ANSWER_BYTES} bytes")));
    }
    parse(&answer.body, inputs.len())
}

/// The vectors of an embeddings answer, in the order of the inputs.
pub fn parse(body: &[u8], expected: usize) -> Result<Vec<Vec<f32>>, LlmError> {
    let malformed = |why: &str| LlmError::Malformed(why.to_owned());
    let value: Value = serde_json::from_slice(body).map_err(|e| LlmError::Malformed(e.to_string()))?;
    let data = value.get("data").and_then(Value::as_array).ok_or_else(|| malformed("no data array"))?;
    if data.len() != expected {
        return Err(LlmError::Malformed(format!("{} vectors for {expected} texts", data.len())));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; expected];
    let mut width = None;
    for (at, item) in data.iter().enumerate() {
        // `index` says which input a vector is of; servers that leave it
        // out answer in order.
        let index = match item.get("index") {
            None => at,
            Some(index) => index
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .ok_or_else(|| malformed("an index is no number"))?,
        };
        let numbers = item.get("embedding").and_then(Value::as_array).ok_or_else(|| malformed("no embedding"))?;
        if numbers.is_empty() || numbers.len() > MAX_DIMENSIONS {
            return Err(LlmError::Malformed(format!("a vector of {} numbers", numbers.len())));
        }
        if *width.get_or_insert(numbers.len()) != numbers.len() {
            return Err(malformed("vectors of different widths"));
        }
        let vector: Vec<f32> = numbers
            .iter()
            .map(|n| n.as_f64().filter(|f| f.is_finite()).map(|f| f as f32))
            .collect::<Option<_>>()
            .ok_or_else(|| malformed("a vector holds something other than a number"))?;
        let slot = vectors.get_mut(index).ok_or_else(|| malformed("an index past the inputs"))?;
        if slot.replace(vector).is_some() {
            return Err(malformed("two vectors for one input"));
        }
    }
    vectors.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| malformed("an input without a vector"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn settings_need_both_the_endpoint_and_a_model() {
        assert_eq!(EmbeddingConfig::from_vars(vars(&[("SVC_LLM_URL", "http://m/v1")])), None, "no model named");
        assert_eq!(EmbeddingConfig::from_vars(vars(&[("SVC_LLM_EMBEDDING_MODEL", "e")])), None, "no endpoint");
        let config = EmbeddingConfig::from_vars(vars(&[
            ("SVC_LLM_URL", "http://m/v1/chat/completions"),
            ("SVC_LLM_EMBEDDING_MODEL", " text-embedding-3-small "),
            ("SVC_LLM_KEY", "k"),
            ("SVC_LLM_TIMEOUT_SECS", "7"),
        ]));
        assert_eq!(
            config,
            Some(EmbeddingConfig {
                url: "http://m/v1/chat/completions".into(),
                model: "text-embedding-3-small".into(),
                api_key: Some("k".into()),
                timeout_secs: 7,
            })
        );
    }

    #[test]
    fn the_endpoint_is_the_bases_embeddings() {
        let at = |url: &str| EmbeddingConfig { url: url.into(), model: "m".into(), api_key: None, timeout_secs: 1 };
        assert_eq!(at("http://h:11434/v1").endpoint(), "http://h:11434/v1/embeddings");
        assert_eq!(at("http://h/v1/").endpoint(), "http://h/v1/embeddings");
        assert_eq!(at("http://h/v1/chat/completions").endpoint(), "http://h/v1/embeddings");
        assert_eq!(at("http://h/v1/embeddings").endpoint(), "http://h/v1/embeddings");
    }

    #[test]
    fn requests_name_the_model_and_cut_long_texts() {
        let config = EmbeddingConfig { url: "http://h".into(), model: "m".into(), api_key: None, timeout_secs: 1 };
        let body = config.request(&["x".repeat(5_000), "short".into()]);
        assert_eq!(body["model"], "m");
        assert_eq!(body["encoding_format"], "float");
        assert_eq!(body["input"][0].as_str().map(str::len), Some(MAX_INPUT_CHARS));
        assert_eq!(body["input"][1], "short");
    }

    #[test]
    fn answers_come_back_in_the_order_of_the_inputs() {
        let body = br#"{"data":[{"index":1,"embedding":[0.0,1.0]},{"index":0,"embedding":[1.0,0.5]}]}"#;
        assert_eq!(parse(body, 2).ok(), Some(vec![vec![1.0, 0.5], vec![0.0, 1.0]]));
        let unindexed = br#"{"data":[{"embedding":[1]},{"embedding":[2]}]}"#;
        assert_eq!(parse(unindexed, 2).ok(), Some(vec![vec![1.0], vec![2.0]]));
    }

    #[test]
    fn answers_that_do_not_fit_the_question_are_refused() {
        let refused = |body: &str, expected: usize| parse(body.as_bytes(), expected).is_err();
        assert!(refused("not json", 1));
        assert!(refused(r#"{"error":{"message":"no such model"}}"#, 1));
        assert!(refused(r#"{"data":[{"embedding":[1,2]}]}"#, 2), "one vector for two texts");
        assert!(refused(r#"{"data":[{"embedding":[1,2]},{"embedding":[1]}]}"#, 2), "two widths");
        assert!(refused(r#"{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}"#, 2), "twice");
        assert!(refused(r#"{"data":[{"index":5,"embedding":[1]}]}"#, 1), "past the inputs");
        assert!(refused(r#"{"data":[{"embedding":[1,"x"]}]}"#, 1), "not a number");
        assert!(refused(r#"{"data":[{"embedding":[]}]}"#, 1), "empty");
        let wide = format!(r#"{{"data":[{{"embedding":[{}]}}]}}"#, vec!["0.1"; MAX_DIMENSIONS + 1].join(","));
        assert!(refused(&wide, 1), "too wide");
    }
}
