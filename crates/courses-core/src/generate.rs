//! AI course generation: `POST /v1/generate` and the MCP tool
//! `generate_course` both call [`Courses::generate_course`], which checks the
//! plan (Build and up), validates the request, takes one generation from the
//! monthly allowance (429 past it) and stores a draft course.
//!
//! The built-in generator is offline and deterministic: the same prompt and
//! target always give the same outline. It plans screens from the prompt's
//! sentences and key phrases (an intro with objectives, content screens that
//! alternate text, lists and stacks, a knowledge check every third screen, a
//! summary) and its output passes the same block validation as the API.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::Courses;
use crate::content::MAX_STACK_CARDS;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, code};
use crate::model::{Access, Course};
use crate::plans::Feature;

pub const MAX_PROMPT_CHARS: usize = 2_000;
pub const MAX_SCREENS_TARGET: u64 = 20;
pub const DEFAULT_SCREENS_TARGET: u64 = 6;

/// A validated generation request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerationRequest {
    pub prompt: String,
    pub screens_target: usize,
    pub passing_score: Option<i64>,
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
    issues.finish(GenerationRequest {
        prompt,
        screens_target: usize::try_from(screens_target).unwrap_or(1),
        passing_score,
    })
}

const STOP_WORDS: &[&str] = &[
    "about", "after", "also", "among", "and", "are", "because", "been", "before", "being", "between", "both", "but",
    "can", "could", "course", "create", "does", "each", "every", "from", "have", "help", "into", "learn", "learners",
    "make", "more", "most", "must", "need", "only", "other", "over", "should", "some", "such", "teach", "than", "that",
    "their", "them", "then", "there", "these", "they", "this", "those", "through", "using", "very", "want", "what",
    "when", "where", "which", "while", "will", "with", "within", "without", "would", "your", "team", "teams", "people",
    "how", "for", "the", "our", "new", "who", "why",
];

fn sentences(prompt: &str) -> Vec<String> {
    prompt
        .split(['.', '!', '?', ';', '\n'])
        .map(str::trim)
        .filter(|s| s.split_whitespace().count() >= 3)
        .map(|s| {
            let mut chars = s.chars();
            chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect::<String>() + ".")
        })
        .collect()
}

/// Key phrases: content words by frequency, ties by first appearance.
fn key_phrases(prompt: &str, max: usize) -> Vec<String> {
    let mut counts: HashMap<String, (usize, usize)> = HashMap::new();
    for (position, word) in prompt
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .map(str::to_lowercase)
        .filter(|w| {
            w.chars().count() >= 4 && !STOP_WORDS.contains(&w.as_str()) && !w.chars().all(|c| c.is_ascii_digit())
        })
        .enumerate()
    {
        counts.entry(word).or_insert((0, position)).0 += 1;
    }
    let mut ranked: Vec<(String, (usize, usize))> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.1.1.cmp(&b.1.1)));
    ranked.into_iter().take(max).map(|(w, _)| w).collect()
}

fn title_case(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// The course title: the prompt's first clause, shortened.
fn course_title(prompt: &str, phrases: &[String]) -> String {
    let first = prompt.split(['.', '!', '?', '\n', ':']).next().unwrap_or(prompt).trim();
    let words: Vec<&str> = first.split_whitespace().take(10).collect();
    let title = words.join(" ");
    if title.is_empty() {
        phrases.first().map_or_else(|| "New course".to_owned(), |p| title_case(p))
    } else {
        title_case(&title)
    }
}

const VERBS: [&str; 6] = ["Explain", "Recognise", "Apply", "Compare", "Describe", "Use"];

/// Plans and fills the screens of a draft course from the prompt.
pub fn offline_course(req: &GenerationRequest) -> Value {
    let all_sentences = sentences(&req.prompt);
    let phrases = key_phrases(&req.prompt, 8);
    let title = course_title(&req.prompt, &phrases);
    let topic = |i: usize| -> String {
        phrases.get(i % phrases.len().max(1)).cloned().unwrap_or_else(|| "the topic".to_owned())
    };
    let about = |phrase: &str| -> Vec<String> {
        all_sentences.iter().filter(|s| s.to_lowercase().contains(phrase)).cloned().collect()
    };
    let n = req.screens_target.max(1);
    let mut screens = Vec::with_capacity(n);
    let objectives: Vec<String> = (0..phrases.len().clamp(1, 4))
        .map(|i| format!("{} {}", VERBS.get(i % VERBS.len()).unwrap_or(&"Explain"), topic(i)))
        .collect();
    screens.push(json!({
        "title": "Introduction",
        "blocks": [
            { "type": "heading", "text": title },
            { "type": "text", "text": all_sentences.first().cloned().unwrap_or_else(|| format!("This course covers {}.", req.prompt)) },
            { "type": "list", "items": objectives },
        ],
    }));
    let mut question_index = 0;
    for i in 1..n {
        let last = i == n - 1 && n > 2;
        let phrase = topic(i - 1);
        let related = about(&phrase);
        if last {
            let mut items: Vec<String> = (0..phrases.len().clamp(1, 5)).map(|k| title_case(&topic(k))).collect();
            items.dedup();
            screens.push(json!({
                "title": "Summary",
                "blocks": [
                    { "type": "text", "text": format!("You have worked through {title}. Keep these points in mind:") },
                    { "type": "list", "items": items },
                ],
            }));
        } else if i % 3 == 0 {
            question_index += 1;
            screens.push(knowledge_check(&phrase, &phrases, &related, question_index));
        } else {
            let heading = title_case(&phrase);
            let body = related.first().cloned().unwrap_or_else(|| format!("{heading} is a key part of {title}."));
            let detail = match i % 2 {
                0 => {
                    json!({ "type": "list", "items": if related.len() > 1 { related.clone() } else { vec![body.clone(), format!("Look for {phrase} in your daily work.")] } })
                }
                _ => {
                    let mut cards: Vec<Value> =
                        related.iter().take(MAX_STACK_CARDS).map(|s| json!({ "front": heading, "back": s })).collect();
                    if cards.is_empty() {
                        cards.push(json!({ "front": heading, "back": body }));
                    }
                    json!({ "type": "stack", "stackCards": cards })
                }
            };
            screens.push(json!({ "title": heading, "blocks": [{ "type": "text", "text": body }, detail] }));
        }
    }
    // Every generated course ends with at least one scored question.
    if question_index == 0 {
        let phrase = topic(0);
        let check = knowledge_check(&phrase, &phrases, &about(&phrase), 1);
        if let (Some(Value::Object(last)), Some(Value::Array(extra))) =
            (screens.last_mut(), check.get("blocks").cloned())
            && let Some(Value::Array(existing)) = last.get_mut("blocks")
        {
            existing.extend(extra);
        }
    }
    json!({
        "title": title,
        "passingScore": req.passing_score,
        "screens": screens,
        "generation": {
            "provider": "offline-template",
            "promptHash": platform::crypto::sha256_hex(req.prompt.as_bytes()),
            "screensRequested": req.screens_target,
            "screensProduced": n,
        },
    })
}

fn knowledge_check(phrase: &str, phrases: &[String], related: &[String], seed: usize) -> Value {
    let correct = title_case(phrase);
    let mut distractors: Vec<String> =
        phrases.iter().filter(|p| p.as_str() != phrase).take(2).map(|p| title_case(p)).collect();
    for filler in ["None of these", "Something unrelated to this course"] {
        if distractors.len() < 2 {
            distractors.push(filler.to_owned());
        }
    }
    let position = seed % (distractors.len() + 1);
    let mut options = distractors;
    options.insert(position.min(options.len()), correct.clone());
    let statement = related.first().cloned().unwrap_or_else(|| format!("{correct} is covered in this course."));
    json!({
        "title": "Knowledge check",
        "blocks": [
            { "type": "multiple_choice", "question": format!("Which topic does this describe? \u{201c}{statement}\u{201d}"), "options": options, "correctIndex": position },
            { "type": "true_false", "statement": format!("{correct} is one of the topics of this course."), "answer": true },
        ],
    })
}

impl Courses {
    /// Generates and stores a draft course (Build and up; one generation of
    /// the monthly allowance, taken only for a valid request).
    pub async fn generate_course(&self, access: &Access, body: &Map<String, Value>) -> CoursesResult<Course> {
        self.require(access, Feature::Generation)?;
        let request = parse_request(body)?;
        self.take_generation(&access.workspace).await?;
        let draft = offline_course(&request);
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
        GenerationRequest { prompt: prompt.to_owned(), screens_target: target, passing_score: Some(70) }
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
