//! AI course generation: `POST /v1/generate` and the MCP tool
//! `generate_course` both call [`Courses::generate_course`], which checks the
//! plan (Build and up), validates the request, takes one generation from the
//! monthly allowance (429 past it) and stores a draft course.
//!
//! The built-in generator ([`crate::offline_writer`]) is offline and
//! deterministic: from the prompt and an optional source text it writes an
//! outline, teaching screens of the text's key sentences, and scored
//! questions answered by those screens; its output passes the same block
//! validation as the API.
//!
//! With a model configured ([`LlmConfig`], from `SVC_LLM_URL`) the draft
//! comes from an OpenAI-compatible chat completions endpoint asked for
//! structured output ([`course_schema`]); the answer is validated like an
//! API body and must contain a scored question. A model that fails, times
//! out or answers something invalid does not cost the user a draft: the
//! built-in generator produces it, and `generation.fallbackFrom` says why.

use serde_json::{Map, Value, json};

use crate::Courses;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, code};
use crate::model::{Access, Course};
use crate::plans::Feature;

pub const MAX_PROMPT_CHARS: usize = 2_000;
/// The largest model answer read.
const MAX_MODEL_RESPONSE: usize = 2 * 1024 * 1024;
pub const MAX_SCREENS_TARGET: u64 = 20;
pub const DEFAULT_SCREENS_TARGET: u64 = 6;

/// A validated generation request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationRequest {
    pub prompt: String,
    pub screens_target: usize,
    pub passing_score: Option<i64>,
    /// Text the author provides to build the course from (Markdown or
    /// plain text, up to [`crate::offline_writer::MAX_SOURCE_CHARS`]).
    pub source_text: Option<String>,
}

pub fn parse_request(body: &Map<String, Value>) -> CoursesResult<GenerationRequest> {
    let mut issues = Issues::default();
    let prompt = match body.get("prompt") {
        Some(Value::String(p)) if p.chars().count() > MAX_PROMPT_CHARS => {
            issues.push(code::TOO_BIG, &[], Some("prompt"), format!("prompt is at most {MAX_PROMPT_CHARS} characters"));
            String::new()
        }
        Some(Value::String(p)) if p.trim().is_empty() => {
            issues.push(code::TOO_SMALL, &[], Some("prompt"), "prompt must not be empty");
            String::new()
        }
        Some(Value::String(p)) => p.split_whitespace().collect::<Vec<_>>().join(" "),
        Some(_) => {
            issues.push(code::INVALID_TYPE, &[], Some("prompt"), "prompt must be a string");
            String::new()
        }
        None => {
            issues.push(code::REQUIRED, &[], Some("prompt"), "prompt is required");
            String::new()
        }
    };
    let screens_target = match body.get("screensTarget") {
        None | Some(Value::Null) => DEFAULT_SCREENS_TARGET,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(t) if t > MAX_SCREENS_TARGET => {
                issues.push(
                    code::TOO_BIG,
                    &[],
                    Some("screensTarget"),
                    format!("screensTarget is at most {MAX_SCREENS_TARGET}"),
                );
                0
            }
            Some(t) if t >= 1 => t,
            _ => {
                issues.push(code::TOO_SMALL, &[], Some("screensTarget"), "screensTarget is at least 1");
                0
            }
        },
        Some(_) => {
            issues.push(code::INVALID_TYPE, &[], Some("screensTarget"), "screensTarget must be an integer");
            0
        }
    };
    let passing_score = match body.get("passingScore") {
        None | Some(Value::Null) => Some(70),
        Some(Value::Number(n)) if n.as_i64().is_some_and(|n| (0..=100).contains(&n)) => n.as_i64(),
        Some(_) => {
            issues.push(
                code::INVALID_VALUE,
                &[],
                Some("passingScore"),
                "passingScore must be an integer from 0 to 100",
            );
            None
        }
    };
    let max_source = crate::offline_writer::MAX_SOURCE_CHARS;
    let source_text = match body.get("sourceText") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() > max_source => {
            issues.push(
                code::TOO_BIG,
                &[],
                Some("sourceText"),
                format!("sourceText is at most {max_source} characters"),
            );
            None
        }
        Some(Value::String(s)) => Some(s.clone()).filter(|s| !s.trim().is_empty()),
        Some(_) => {
            issues.push(code::INVALID_TYPE, &[], Some("sourceText"), "sourceText must be a string");
            None
        }
    };
    issues.finish(GenerationRequest {
        prompt,
        screens_target: usize::try_from(screens_target).unwrap_or(1),
        passing_score,
        source_text,
    })
}

/// The draft the built-in writer makes (see [`crate::offline_writer`]): an
/// outline from the prompt and the source text, teaching screens of their
/// key sentences, and questions answered by those screens.
pub fn offline_course(req: &GenerationRequest) -> Value {
    let (title, screens) =
        crate::offline_writer::write(&req.prompt, req.source_text.as_deref(), req.screens_target.max(1));
    let produced = screens.len();
    json!({
        "title": title,
        "passingScore": req.passing_score,
        "screens": screens,
        "generation": {
            "provider": "offline-template",
            "promptHash": platform::crypto::sha256_hex(req.prompt.as_bytes()),
            "sourceText": req.source_text.as_ref().map(|s| json!({ "characters": s.chars().count(), "sha256": platform::crypto::sha256_hex(s.as_bytes()) })),
            "screensRequested": req.screens_target,
            "screensProduced": produced,
        },
    })
}

/// The model endpoint, shared with the hub's docs assistant.
pub use platform::llm::LlmConfig;

/// The JSON Schema of a generated course (strict structured output: every
/// property required, no others).
pub fn course_schema() -> Value {
    let text = json!({ "type": "string" });
    let strings = json!({ "type": "array", "items": { "type": "string" } });
    let block = |kind: &str, props: Value| {
        let mut properties = Map::new();
        properties.insert("type".to_owned(), json!({ "type": "string", "enum": [kind] }));
        let mut required = vec![Value::String("type".to_owned())];
        if let Value::Object(props) = props {
            for (k, v) in props {
                required.push(Value::String(k.clone()));
                properties.insert(k, v);
            }
        }
        json!({ "type": "object", "properties": properties, "required": required, "additionalProperties": false })
    };
    let blocks = json!({ "anyOf": [
        block("heading", json!({ "text": text })),
        block("text", json!({ "text": text })),
        block("list", json!({ "items": strings })),
        block("stack", json!({ "stackCards": { "type": "array", "items": {
            "type": "object", "properties": { "front": text, "back": text },
            "required": ["front", "back"], "additionalProperties": false } } })),
        block("multiple_choice", json!({ "question": text, "options": strings, "correctIndex": { "type": "integer" } })),
        block("multiple_response", json!({ "question": text, "options": strings, "correctIndexes": { "type": "array", "items": { "type": "integer" } } })),
        block("true_false", json!({ "statement": text, "answer": { "type": "boolean" } })),
    ] });
    json!({
        "type": "object",
        "properties": {
            "title": text,
            "screens": { "type": "array", "items": {
                "type": "object",
                "properties": { "title": text, "blocks": { "type": "array", "items": blocks } },
                "required": ["title", "blocks"], "additionalProperties": false,
            } },
        },
        "required": ["title", "screens"],
        "additionalProperties": false,
    })
}

const SYSTEM_PROMPT: &str = "You write short, accurate e-learning courses. Answer with one JSON object that follows the \
    given schema: a course title and its screens in order, each with a title and blocks. Start with an introduction \
    that lists the learning objectives, teach with text, list and stack blocks, check understanding with scored \
    questions (multiple_choice with 2 to 10 options and a 0-based correctIndex, multiple_response, true_false), and end \
    with a summary. Stacks have 1 to 10 cards. Texts are plain, at most a few sentences each.";

/// The chat completions request for a generation.
pub fn model_request(config: &LlmConfig, req: &GenerationRequest) -> Value {
    json!({
        "model": config.model,
        "temperature": 0.3,
        "messages": [
            { "role": "system", "content": SYSTEM_PROMPT },
            { "role": "user", "content": match &req.source_text {
                None => format!(
                    "Write a course of exactly {} screens, with at least one scored question, about:\n\n{}",
                    req.screens_target, req.prompt),
                Some(source) => format!(
                    "Write a course of exactly {} screens, with at least one scored question, about:\n\n{}\n\nTeach only what this source text says, and answer every question from it:\n\n{}",
                    req.screens_target, req.prompt, source),
            } },
        ],
        "response_format": { "type": "json_schema", "json_schema": { "name": "course", "strict": true, "schema": course_schema() } },
    })
}

/// Reads a chat completions answer into a draft course body, validated
/// like an API body: the screens pass the block rules and at least one
/// block is scored. The error says what was wrong.
pub fn draft_from_model_answer(
    answer: &[u8],
    req: &GenerationRequest,
    model: &str,
) -> Result<Map<String, Value>, String> {
    let answer: Value = serde_json::from_slice(answer).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let content = answer
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| "the answer has no choices[0].message.content".to_owned())?;
    let content = content.trim();
    let content = content
        .strip_prefix("```json")
        .or_else(|| content.strip_prefix("```"))
        .and_then(|c| c.strip_suffix("```"))
        .unwrap_or(content);
    let course: Value = serde_json::from_str(content).map_err(|e| format!("the course is not JSON: {e}"))?;
    let title = course
        .get("title")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| "the course has no title".to_owned())?;
    let screens = course.get("screens").cloned().unwrap_or(Value::Null);
    let count = screens.as_array().map_or(0, Vec::len);
    if count == 0 || count > usize::try_from(MAX_SCREENS_TARGET).unwrap_or(20) {
        return Err(format!("the course has {count} screens (1 to {MAX_SCREENS_TARGET} expected)"));
    }
    let mut issues = Issues::default();
    let stored = crate::content::validate_screens(&screens, &["screens".to_owned()], &mut issues);
    if let Some(first) = issues.into_vec().first() {
        return Err(format!("the course is not valid: {}: {}", first.path_text(), first.message));
    }
    if !crate::content::has_scored_blocks(&stored) {
        return Err("the course has no scored question".to_owned());
    }
    let mut draft = Map::new();
    draft.insert("title".to_owned(), Value::String(title.chars().take(200).collect()));
    draft.insert("passingScore".to_owned(), json!(req.passing_score));
    draft.insert("screens".to_owned(), screens);
    draft.insert(
        "generation".to_owned(),
        json!({
            "provider": "llm",
            "model": model,
            "promptHash": platform::crypto::sha256_hex(req.prompt.as_bytes()),
            "screensRequested": req.screens_target,
            "screensProduced": count,
        }),
    );
    Ok(draft)
}

impl Courses {
    /// Asks the configured model for a draft.
    async fn model_draft(&self, config: &LlmConfig, req: &GenerationRequest) -> Result<Map<String, Value>, String> {
        let client = platform::outbound::Outbound::trusted()
            .with_timeout(std::time::Duration::from_secs(config.timeout_secs.max(1)))
            .with_max_response(MAX_MODEL_RESPONSE);
        let mut headers = vec![("content-type", "application/json".to_owned())];
        if let Some(key) = &config.api_key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        let body = model_request(config, req).to_string().into_bytes();
        let response = client.post(&config.endpoint(), &headers, body).await.map_err(|e| e.to_string())?;
        if !(200..300).contains(&response.status) {
            let text = String::from_utf8_lossy(&response.body);
            return Err(format!(
                "the model endpoint answered {}: {}",
                response.status,
                text.chars().take(200).collect::<String>()
            ));
        }
        draft_from_model_answer(&response.body, req, &config.model)
    }

    /// The draft from the model when one is configured and answers well,
    /// else from the built-in generator.
    async fn draft(&self, req: &GenerationRequest) -> Value {
        let Some(config) = &self.llm else { return offline_course(req) };
        match self.model_draft(config, req).await {
            Ok(draft) => Value::Object(draft),
            Err(reason) => {
                tracing::warn!(model = %config.model, reason, "the model's draft was unusable; using the built-in generator");
                let mut draft = offline_course(req);
                if let Some(Value::Object(generation)) = draft.get_mut("generation") {
                    generation.insert(
                        "fallbackFrom".to_owned(),
                        json!({ "provider": "llm", "model": config.model, "error": reason }),
                    );
                }
                draft
            }
        }
    }
}

impl Courses {
    /// The model that writes generated courses, when one is configured
    /// (`SVC_LLM_URL`); none means the built-in offline writer.
    pub fn generation_model(&self) -> Option<&str> {
        self.llm.as_ref().map(|c| c.model.as_str())
    }

    /// Generates and stores a draft course (Build and up; one generation of
    /// the monthly allowance, taken only for a valid request).
    pub async fn generate_course(&self, access: &Access, body: &Map<String, Value>) -> CoursesResult<Course> {
        self.require(access, Feature::Generation)?;
        let request = parse_request(body)?;
        self.take_generation(&access.workspace).await?;
        let draft = self.draft(&request).await;
        let Value::Object(draft) = draft else {
            return Err(CoursesError::Internal("the generator produced no course".to_owned()));
        };
        // The draft goes through the same validation as an API body.
        self.create_course_from(access, &draft, "generated").await.map_err(|err| match err {
            CoursesError::Invalid { message, .. } => {
                CoursesError::Internal(format!("the generator produced an invalid course: {message}"))
            }
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content;
    use crate::issues::Issues;

    fn request(prompt: &str, target: usize) -> GenerationRequest {
        GenerationRequest {
            prompt: prompt.to_owned(),
            screens_target: target,
            passing_score: Some(70),
            source_text: None,
        }
    }

    const PROMPT: &str = "Teach new warehouse staff forklift safety. Forklift operators must inspect brakes before each shift. \
        Pedestrians keep to marked walkways near the loading dock. Loads stay low and tilted back while the forklift moves. \
        Report damaged pallets to the shift lead.";

    #[test]
    fn drafts_are_valid_deterministic_and_sized() {
        for target in [1, 2, 3, 6, 20] {
            let draft = offline_course(&request(PROMPT, target));
            assert_eq!(draft, offline_course(&request(PROMPT, target)), "deterministic");
            let screens = draft["screens"].clone();
            assert_eq!(screens.as_array().unwrap().len(), target);
            let mut issues = Issues::default();
            let stored = content::validate_screens(&screens, &["screens".to_owned()], &mut issues);
            assert!(issues.is_empty(), "{:?}", issues.into_vec());
            assert!(content::has_scored_blocks(&stored), "target {target} has a scored question");
        }
        let draft = offline_course(&request(PROMPT, 6));
        assert_eq!(draft["title"], "Teach new warehouse staff forklift safety");
        assert!(draft.to_string().contains("Forklift"));
    }

    fn model_answer(course: &Value) -> Vec<u8> {
        json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "content": course.to_string() } }] })
            .to_string()
            .into_bytes()
    }

    #[test]
    fn model_answers_are_validated_like_api_bodies() {
        let req = request("Forklift safety for warehouse staff", 2);
        let good = json!({ "title": "Forklift safety", "screens": [
            { "title": "Why it matters", "blocks": [{ "type": "text", "text": "Forklifts weigh tonnes." }] },
            { "title": "Check", "blocks": [{ "type": "true_false", "statement": "Carry passengers.", "answer": false }] },
        ] });
        let draft = draft_from_model_answer(&model_answer(&good), &req, "m1").unwrap();
        assert_eq!(draft["title"], "Forklift safety");
        assert_eq!(draft["generation"]["provider"], "llm");
        assert_eq!(draft["generation"]["model"], "m1");
        assert_eq!(draft["passingScore"], 70);
        // Fenced content is accepted too.
        let fenced = json!({ "choices": [{ "message": { "content": format!("```json\n{good}\n```") } }] });
        assert!(draft_from_model_answer(fenced.to_string().as_bytes(), &req, "m1").is_ok());
        let no_quiz =
            json!({ "title": "T", "screens": [{ "title": "S", "blocks": [{ "type": "text", "text": "x" }] }] });
        let too_many_cards = json!({ "title": "T", "screens": [{ "title": "S", "blocks": [
            { "type": "stack", "stackCards": (0..11).map(|i| json!({ "front": i.to_string(), "back": "b" })).collect::<Vec<_>>() },
            { "type": "true_false", "statement": "s", "answer": true },
        ] }] });
        for (answer, expected) in [
            (model_answer(&no_quiz), "no scored question"),
            (model_answer(&too_many_cards), "screens.0.blocks.0.stackCards"),
            (model_answer(&json!({ "title": "T", "screens": [] })), "0 screens"),
            (model_answer(&json!({ "screens": [] })), "no title"),
            (b"{}".to_vec(), "no choices"),
            (b"<html>".to_vec(), "not JSON"),
        ] {
            let err = draft_from_model_answer(&answer, &req, "m1").unwrap_err();
            assert!(err.contains(expected), "{err} should mention {expected}");
        }
    }

    #[test]
    fn model_requests_ask_for_the_course_schema() {
        let config =
            LlmConfig { url: "http://127.0.0.1:9/v1/".into(), model: "m1".into(), api_key: None, timeout_secs: 5 };
        assert_eq!(config.endpoint(), "http://127.0.0.1:9/v1/chat/completions");
        let full = LlmConfig { url: "http://h/x/chat/completions".into(), ..config.clone() };
        assert_eq!(full.endpoint(), "http://h/x/chat/completions");
        let body = model_request(&config, &request("Fire safety basics", 4));
        assert_eq!(body["model"], "m1");
        assert_eq!(body["response_format"]["json_schema"]["strict"], true);
        assert!(body["messages"][1]["content"].as_str().unwrap().contains("exactly 4 screens"));
        let schema = course_schema();
        assert_eq!(schema["required"], json!(["title", "screens"]));
        let kinds: Vec<&str> = schema["properties"]["screens"]["items"]["properties"]["blocks"]["items"]["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["properties"]["type"]["enum"][0].as_str().unwrap())
            .collect();
        assert!(kinds.contains(&"multiple_choice") && kinds.contains(&"stack"), "{kinds:?}");
    }

    #[test]
    fn source_text_is_optional_and_bounded() {
        let body = json!({ "prompt": "Forklifts", "sourceText": "# Brakes\n\nOperators inspect the brakes before each shift." });
        let req = parse_request(body.as_object().unwrap()).unwrap();
        assert!(req.source_text.is_some());
        let draft = offline_course(&req);
        assert!(draft.to_string().contains("Operators inspect the brakes before each shift."));
        assert_eq!(draft["generation"]["sourceText"]["characters"], 57);
        let long = json!({ "prompt": "x y z", "sourceText": "a".repeat(crate::offline_writer::MAX_SOURCE_CHARS + 1) });
        let Err(CoursesError::Invalid { issues, .. }) = parse_request(long.as_object().unwrap()) else { panic!() };
        assert_eq!(issues[0].path, ["sourceText"]);
    }

    #[test]
    fn offline_draft_snapshot() {
        // The whole draft for one prompt: reviewing a change to the
        // generator is reading this file's diff.
        insta::assert_json_snapshot!("offline_draft_forklift_6", offline_course(&request(PROMPT, 6)));
    }

    #[test]
    fn course_schema_snapshot() {
        insta::assert_json_snapshot!("course_schema", course_schema());
    }

    #[test]
    fn requests_are_bounded() {
        let body = |v: Value| v.as_object().unwrap().clone();
        assert!(parse_request(&body(json!({ "prompt": "x".repeat(2000), "screensTarget": 20 }))).is_ok());
        let cases = [
            (json!({ "prompt": "x".repeat(2001) }), "prompt"),
            (json!({ "prompt": "ok", "screensTarget": 21 }), "screensTarget"),
            (json!({ "prompt": "ok", "screensTarget": 0 }), "screensTarget"),
            (json!({}), "prompt"),
        ];
        for (b, field) in cases {
            let Err(CoursesError::Invalid { issues, .. }) = parse_request(&body(b.clone())) else { panic!("{b}") };
            assert_eq!(issues[0].path, vec![field.to_owned()], "{b}");
        }
    }
}
