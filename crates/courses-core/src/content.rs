//! The course document: screens made of blocks, their validation, and the
//! grading of a learner's answers. Pure functions over JSON values, so every
//! rule is unit-tested without a database.
//!
//! Blocks keep every field they were given: unknown fields are stored and
//! render nothing (seed 002, "What the service does" 5). Only the fields a
//! block type defines are checked.

use std::collections::{BTreeSet, HashSet};

use serde_json::{Map, Value};

use crate::issues::{Issues, child, code};

pub const MAX_SCREENS: usize = 200;
pub const MAX_BLOCKS_PER_SCREEN: usize = 100;
pub const MAX_STACK_CARDS: usize = 10;
pub const MAX_OPTIONS: usize = 10;
pub const MAX_TEXT_CHARS: usize = 20_000;
pub const MAX_TITLE_CHARS: usize = 200;
pub const MAX_LIST_ITEMS: usize = 50;

/// Every block type the service renders. Question types are scored; a
/// `scorm` block (one SCO or asset of an imported package) is scored when
/// its manifest gives a mastery score or its SCO reports a score.
pub const BLOCK_TYPES: [&str; 14] = [
    "text",
    "heading",
    "image",
    "video",
    "audio",
    "list",
    "quote",
    "button",
    "divider",
    "stack",
    "multiple_choice",
    "multiple_response",
    "true_false",
    "scorm",
];

/// The SCORM editions a `scorm` block may name.
pub const SCORM_VERSIONS: [&str; 2] = ["1.2", "2004"];

pub fn is_scored_type(kind: &str) -> bool {
    matches!(kind, "multiple_choice" | "multiple_response" | "true_false")
}

/// A fresh prefixed id (`scr_…`, `blk_…`).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", uuid::Uuid::now_v7().simple())
}

/// Validates an array of screens at `path`, assigning ids to screens and
/// blocks that lack one (or repeat one) and returning the stored form.
pub fn validate_screens(value: &Value, path: &[String], issues: &mut Issues) -> Vec<Value> {
    let Value::Array(screens) = value else {
        issues.push(code::INVALID_TYPE, path, None, "screens must be an array");
        return Vec::new();
    };
    if screens.len() > MAX_SCREENS {
        issues.push(code::TOO_BIG, path, None, format!("a course holds at most {MAX_SCREENS} screens"));
        return Vec::new();
    }
    let mut seen = HashSet::new();
    screens.iter().enumerate().map(|(i, screen)| validate_screen(screen, &child(path, i), &mut seen, issues)).collect()
}

/// Validates one screen; `seen` holds the ids already used in the course.
pub fn validate_screen(value: &Value, path: &[String], seen: &mut HashSet<String>, issues: &mut Issues) -> Value {
    let Value::Object(input) = value else {
        issues.push(code::INVALID_TYPE, path, None, "a screen must be an object");
        return Value::Null;
    };
    let mut screen = input.clone();
    assign_id(&mut screen, "scr", seen);
    match input.get("title") {
        None | Some(Value::Null) => {
            screen.insert("title".to_owned(), Value::String(String::new()));
        }
        Some(Value::String(t)) if t.chars().count() > MAX_TITLE_CHARS => {
            issues.push(code::TOO_BIG, path, Some("title"), format!("title is at most {MAX_TITLE_CHARS} characters"));
        }
        Some(Value::String(_)) => {}
        Some(_) => issues.push(code::INVALID_TYPE, path, Some("title"), "title must be a string"),
    }
    let blocks_path = child(path, "blocks");
    let blocks = match input.get("blocks") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(blocks)) if blocks.len() > MAX_BLOCKS_PER_SCREEN => {
            issues.push(
                code::TOO_BIG,
                &blocks_path,
                None,
                format!("a screen holds at most {MAX_BLOCKS_PER_SCREEN} blocks"),
            );
            Vec::new()
        }
        Some(Value::Array(blocks)) => blocks
            .iter()
            .enumerate()
            .map(|(i, block)| validate_block(block, &child(&blocks_path, i), seen, issues))
            .collect(),
        Some(_) => {
            issues.push(code::INVALID_TYPE, &blocks_path, None, "blocks must be an array");
            Vec::new()
        }
    };
    screen.insert("blocks".to_owned(), Value::Array(blocks));
    Value::Object(screen)
}

fn assign_id(object: &mut Map<String, Value>, prefix: &str, seen: &mut HashSet<String>) {
    let given = object.get("id").and_then(Value::as_str).map(str::trim).filter(|id| {
        !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    });
    let id = match given {
        Some(id) if !seen.contains(id) => id.to_owned(),
        _ => new_id(prefix),
    };
    seen.insert(id.clone());
    object.insert("id".to_owned(), Value::String(id));
}

/// Validates one block by its type; unknown fields are kept untouched.
pub fn validate_block(value: &Value, path: &[String], seen: &mut HashSet<String>, issues: &mut Issues) -> Value {
    let Value::Object(input) = value else {
        issues.push(code::INVALID_TYPE, path, None, "a block must be an object");
        return Value::Null;
    };
    let mut block = input.clone();
    assign_id(&mut block, "blk", seen);
    let kind = match input.get("type") {
        Some(Value::String(kind)) if BLOCK_TYPES.contains(&kind.as_str()) => kind.as_str(),
        Some(Value::String(kind)) => {
            issues.push(
                code::INVALID_VALUE,
                path,
                Some("type"),
                format!("unknown block type {kind:?}; expected one of {}", BLOCK_TYPES.join(", ")),
            );
            return Value::Object(block);
        }
        Some(_) => {
            issues.push(code::INVALID_TYPE, path, Some("type"), "type must be a string");
            return Value::Object(block);
        }
        None => {
            issues.push(code::REQUIRED, path, Some("type"), "type is required");
            return Value::Object(block);
        }
    };
    let mut fields = Fields { input, path, issues };
    match kind {
        "text" | "heading" => fields.text("text", true),
        "quote" => {
            fields.text("text", true);
            fields.text("attribution", false);
        }
        "image" => {
            fields.url("url");
            fields.text("alt", false);
        }
        "video" => fields.url("url"),
        "audio" => {
            fields.url("url");
            fields.text("transcript", false);
        }
        "button" => fields.text("label", true),
        "list" => fields.strings("items", 1, MAX_LIST_ITEMS),
        "stack" => fields.stack_cards(),
        "multiple_choice" => {
            fields.text("question", true);
            let options = fields.options();
            fields.index("correctIndex", options);
        }
        "multiple_response" => {
            fields.text("question", true);
            let options = fields.options();
            fields.indexes("correctIndexes", options);
        }
        "true_false" => {
            fields.text("statement", true);
            fields.boolean("answer");
        }
        "scorm" => fields.scorm(),
        _ => {}
    }
    Value::Object(block)
}

/// Checks the fields of one block, reporting issues under its path.
struct Fields<'a> {
    input: &'a Map<String, Value>,
    path: &'a [String],
    issues: &'a mut Issues,
}

impl Fields<'_> {
    fn report(&mut self, code: &'static str, leaf: &str, message: String) {
        self.issues.push(code, self.path, Some(leaf), message);
    }

    fn text(&mut self, name: &str, required: bool) {
        match self.input.get(name) {
            Some(Value::String(s)) if s.chars().count() > MAX_TEXT_CHARS => {
                self.report(code::TOO_BIG, name, format!("{name} is at most {MAX_TEXT_CHARS} characters"));
            }
            Some(Value::String(s)) if required && s.trim().is_empty() => {
                self.report(code::TOO_SMALL, name, format!("{name} must not be empty"));
            }
            Some(Value::String(_)) => {}
            None | Some(Value::Null) if !required => {}
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be a string")),
        }
    }

    fn url(&mut self, name: &str) {
        match self.input.get(name) {
            Some(Value::String(s)) if s.starts_with("https://") || s.starts_with("http://") => {
                if s.len() > 2048 {
                    self.report(code::TOO_BIG, name, format!("{name} is at most 2048 characters"));
                }
            }
            Some(Value::String(_)) => {
                self.report(code::INVALID_VALUE, name, format!("{name} must be an http or https URL"));
            }
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be a string")),
        }
    }

    fn boolean(&mut self, name: &str) {
        match self.input.get(name) {
            Some(Value::Bool(_)) => {}
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be true or false")),
        }
    }

    fn strings(&mut self, name: &str, min: usize, max: usize) {
        match self.input.get(name) {
            Some(Value::Array(items)) if items.len() < min => {
                self.report(code::TOO_SMALL, name, format!("{name} needs at least {min} entries"));
            }
            Some(Value::Array(items)) if items.len() > max => {
                self.report(code::TOO_BIG, name, format!("{name} holds at most {max} entries"));
            }
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    let ok = item.as_str().is_some_and(|s| s.chars().count() <= MAX_TEXT_CHARS);
                    if !ok {
                        let path = child(&child(self.path, name), i);
                        self.issues.push(code::INVALID_TYPE, &path, None, "each entry must be a string");
                    }
                }
            }
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be an array of strings")),
        }
    }

    /// The options of a question; returns how many there are (0 when invalid).
    fn options(&mut self) -> usize {
        self.strings("options", 2, MAX_OPTIONS);
        match self.input.get("options") {
            Some(Value::Array(items)) if (2..=MAX_OPTIONS).contains(&items.len()) => items.len(),
            _ => 0,
        }
    }

    fn index(&mut self, name: &str, options: usize) {
        match self.input.get(name) {
            Some(Value::Number(n)) => match n.as_u64() {
                Some(i) if options == 0 || usize::try_from(i).is_ok_and(|i| i < options) => {}
                _ => self.report(code::INVALID_VALUE, name, format!("{name} must be the index of one of the options")),
            },
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be an integer")),
        }
    }

    fn indexes(&mut self, name: &str, options: usize) {
        match self.input.get(name) {
            Some(Value::Array(items)) if !items.is_empty() => {
                let mut seen = BTreeSet::new();
                let valid = items.iter().all(|item| {
                    item.as_u64()
                        .and_then(|i| usize::try_from(i).ok())
                        .is_some_and(|i| (options == 0 || i < options) && seen.insert(i))
                });
                if !valid {
                    self.report(code::INVALID_VALUE, name, format!("{name} must list distinct option indexes"));
                }
            }
            Some(Value::Array(_)) => self.report(code::TOO_SMALL, name, format!("{name} needs at least one index")),
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be an array of integers")),
        }
    }

    /// A `scorm` block: the package it plays (`packageId`), the path it
    /// launches inside the package, the edition of the runtime it talks to,
    /// and the manifest's scoring hints.
    fn scorm(&mut self) {
        match self.input.get("packageId") {
            Some(Value::String(id))
                if id.starts_with("pkg_")
                    && id.len() <= 64
                    && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') => {}
            None | Some(Value::Null) => self.report(code::REQUIRED, "packageId", "packageId is required".to_owned()),
            Some(_) => self.report(
                code::INVALID_VALUE,
                "packageId",
                "packageId must be the id of an imported package (pkg_...)".to_owned(),
            ),
        }
        match self.input.get("launch") {
            Some(Value::String(launch)) if is_package_path(launch) => {}
            None | Some(Value::Null) => self.report(code::REQUIRED, "launch", "launch is required".to_owned()),
            Some(_) => self.report(
                code::INVALID_VALUE,
                "launch",
                "launch must be a relative path inside the package (at most 2048 characters, no ..)".to_owned(),
            ),
        }
        match self.input.get("scormVersion") {
            Some(Value::String(v)) if SCORM_VERSIONS.contains(&v.as_str()) => {}
            None | Some(Value::Null) => {
                self.report(code::REQUIRED, "scormVersion", "scormVersion is required".to_owned());
            }
            Some(_) => {
                self.report(code::INVALID_VALUE, "scormVersion", "scormVersion must be \"1.2\" or \"2004\"".to_owned())
            }
        }
        match self.input.get("scormType") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) if t == "sco" || t == "asset" => {}
            Some(_) => {
                self.report(code::INVALID_VALUE, "scormType", "scormType must be \"sco\" or \"asset\"".to_owned())
            }
        }
        match self.input.get("masteryScore") {
            None | Some(Value::Null) => {}
            Some(Value::Number(n)) if n.as_f64().is_some_and(|m| (0.0..=100.0).contains(&m)) => {}
            Some(_) => self.report(
                code::INVALID_VALUE,
                "masteryScore",
                "masteryScore must be a number from 0 to 100, or null".to_owned(),
            ),
        }
        self.text("title", false);
        self.text("launchData", false);
    }

    fn stack_cards(&mut self) {
        let name = "stackCards";
        match self.input.get(name) {
            Some(Value::Array(cards)) if cards.len() > MAX_STACK_CARDS => {
                self.report(code::TOO_BIG, name, format!("a stack block holds at most {MAX_STACK_CARDS} cards"));
            }
            Some(Value::Array(cards)) if cards.is_empty() => {
                self.report(code::TOO_SMALL, name, "a stack block needs at least one card".to_owned());
            }
            Some(Value::Array(cards)) => {
                for (i, card) in cards.iter().enumerate() {
                    let path = child(&child(self.path, name), i);
                    match card {
                        Value::Object(card) => {
                            let mut fields = Fields { input: card, path: &path, issues: self.issues };
                            fields.text("front", true);
                            fields.text("back", false);
                        }
                        _ => self.issues.push(code::INVALID_TYPE, &path, None, "a card must be an object"),
                    }
                }
            }
            None | Some(Value::Null) => self.report(code::REQUIRED, name, format!("{name} is required")),
            Some(_) => self.report(code::INVALID_TYPE, name, format!("{name} must be an array of cards")),
        }
    }
}

/// Whether `path` names a file inside a package: relative, no `..`
/// segment, no scheme, no backslash, at most 2,048 characters.
pub fn is_package_path(path: &str) -> bool {
    let file = path.split(['?', '#']).next().unwrap_or_default();
    !file.is_empty()
        && path.len() <= 2048
        && !file.starts_with('/')
        && !file.contains("://")
        && !file.contains('\\')
        && !file.split('/').any(|part| part == ".." || part.eq_ignore_ascii_case("%2e%2e"))
}

/// The outcome of grading one attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct Grade {
    /// Percentage of the scored blocks' credit earned (a question is worth
    /// 0 or 1, a SCO its reported score), or `None` when the course has no
    /// scored block (null is not zero).
    pub score: Option<f64>,
    /// Scored blocks earning full credit.
    pub correct: usize,
    pub scored: usize,
    pub passed: bool,
    /// What each SCO reported (block id to `{completionStatus,
    /// successStatus, score, location, suspendData}`); empty for courses
    /// without `scorm` blocks.
    pub scorm: Map<String, Value>,
}

/// Every block of every screen, in order.
pub fn blocks(screens: &[Value]) -> impl Iterator<Item = &Map<String, Value>> {
    screens.iter().filter_map(|s| s.get("blocks").and_then(Value::as_array)).flatten().filter_map(Value::as_object)
}

pub fn has_scored_blocks(screens: &[Value]) -> bool {
    blocks(screens).any(|b| b.get("type").and_then(Value::as_str).is_some_and(is_scored_type))
}

/// Suspend data is at most 64,000 characters in SCORM 2004 (4,096 in 1.2).
pub const MAX_SUSPEND_DATA_CHARS: usize = 64_000;

/// What one SCO reported through the runtime: the `cmi` elements of either
/// edition, as the player sends them (element name to string value).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScoReport {
    pub completed: bool,
    /// `Some(true)` passed, `Some(false)` failed, `None` unknown.
    pub success: Option<bool>,
    /// 0 to 1.
    pub score: Option<f64>,
    pub location: Option<String>,
    pub suspend_data: Option<String>,
}

fn cmi<'a>(data: &'a Map<String, Value>, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|n| data.get(*n).and_then(Value::as_str)).map(str::trim).filter(|v| !v.is_empty())
}

fn cmi_number(data: &Map<String, Value>, names: &[&str]) -> Option<f64> {
    cmi(data, names)?.parse::<f64>().ok().filter(|n| n.is_finite())
}

impl ScoReport {
    /// Reads a SCO's runtime data; anything malformed counts as not
    /// reported.
    pub fn read(data: &Value) -> Self {
        let Some(data) = data.as_object() else { return Self::default() };
        let lesson_status = cmi(data, &["cmi.core.lesson_status"]);
        let completion = cmi(data, &["cmi.completion_status"]);
        let success = cmi(data, &["cmi.success_status"]);
        let completed = matches!(lesson_status, Some("completed" | "passed" | "failed"))
            || completion == Some("completed")
            || matches!(success, Some("passed" | "failed"));
        let success = match (lesson_status, success) {
            (_, Some("passed")) | (Some("passed"), _) => Some(true),
            (_, Some("failed")) | (Some("failed"), _) => Some(false),
            _ => None,
        };
        // 2004's scaled score first (-1 to 1, below 0 counts as 0), else the
        // raw score within its range (0 to 100 unless the SCO set one).
        let scaled = cmi_number(data, &["cmi.score.scaled"]).filter(|s| (-1.0..=1.0).contains(s)).map(|s| s.max(0.0));
        let raw = cmi_number(data, &["cmi.score.raw", "cmi.core.score.raw"]).and_then(|raw| {
            let min = cmi_number(data, &["cmi.score.min", "cmi.core.score.min"]).unwrap_or(0.0);
            let max = cmi_number(data, &["cmi.score.max", "cmi.core.score.max"]).unwrap_or(100.0);
            (max > min).then(|| ((raw - min) / (max - min)).clamp(0.0, 1.0))
        });
        let text = |names: &[&str], max: usize| cmi(data, names).map(|v| v.chars().take(max).collect::<String>());
        Self {
            completed,
            success,
            score: scaled.or(raw),
            location: text(&["cmi.location", "cmi.core.lesson_location"], 1000),
            suspend_data: text(&["cmi.suspend_data"], MAX_SUSPEND_DATA_CHARS),
        }
    }

    fn summary(&self) -> Value {
        serde_json::json!({
            "completionStatus": if self.completed { "completed" } else { "incomplete" },
            "successStatus": match self.success { Some(true) => "passed", Some(false) => "failed", None => "unknown" },
            "score": self.score.map(|s| (s * 10_000.0).round() / 100.0),
            "location": self.location,
            "suspendData": self.suspend_data,
        })
    }
}

/// Grades `answers` (block id to answer) against the course's scored blocks.
/// Unanswered questions count as wrong; answers to unknown blocks are
/// ignored. A `scorm` block is scored when its manifest gave a mastery
/// score or its SCO reported one; the attempt passes only when every SCO
/// reported completion and none reported failure.
pub fn grade(screens: &[Value], answers: &Map<String, Value>, passing_score: Option<i64>) -> Grade {
    let mut credit = 0.0;
    let mut correct = 0;
    let mut scored = 0;
    let mut scos_done = true;
    let mut scorm = Map::new();
    for block in blocks(screens) {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
        let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
        let answer = answers.get(id);
        if kind == "scorm" {
            let report = answer.map(ScoReport::read).unwrap_or_default();
            let is_asset = block.get("scormType").and_then(Value::as_str) == Some("asset");
            if !is_asset && (!report.completed || report.success == Some(false)) {
                scos_done = false;
            }
            if report.score.is_some() || block.get("masteryScore").is_some_and(Value::is_number) {
                scored += 1;
                let earned = report.score.unwrap_or(0.0);
                credit += earned;
                if earned >= 1.0 {
                    correct += 1;
                }
            }
            if answer.is_some() {
                scorm.insert(id.to_owned(), report.summary());
            }
            continue;
        }
        if !is_scored_type(kind) {
            continue;
        }
        scored += 1;
        if answer.is_some_and(|a| is_correct(kind, block, a)) {
            credit += 1.0;
            correct += 1;
        }
    }
    let score = (scored > 0).then(|| {
        #[expect(clippy::cast_precision_loss, reason = "block counts are far below 2^52")]
        let ratio = credit / scored as f64;
        (ratio * 10_000.0).round() / 100.0
    });
    #[expect(clippy::cast_precision_loss, reason = "passing scores are 0..=100")]
    let meets = match (passing_score, score) {
        (None, _) | (Some(_), None) => true,
        (Some(min), Some(score)) => score >= min as f64,
    };
    Grade { score, correct, scored, passed: meets && scos_done, scorm }
}

/// Whether `answer` is right for the scored block `block_id`; `None` when
/// the course has no scored block with that id.
pub fn check_answer(screens: &[Value], block_id: &str, answer: &Value) -> Option<bool> {
    blocks(screens).find(|b| b.get("id").and_then(Value::as_str) == Some(block_id)).and_then(|block| {
        let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
        is_scored_type(kind).then(|| is_correct(kind, block, answer))
    })
}

/// The results screen's review of a graded attempt: for each question, in
/// course order, its text, the learner's answer and the right one (as the
/// options' texts, or "True"/"False"), whether it was right, and the
/// block's `feedback` when it has one.
pub fn review(screens: &[Value], answers: &Map<String, Value>) -> Vec<Value> {
    let option = |block: &Map<String, Value>, i: Option<u64>| -> Option<String> {
        let i = usize::try_from(i?).ok()?;
        block.get("options").and_then(Value::as_array).and_then(|o| o.get(i)).and_then(Value::as_str).map(str::to_owned)
    };
    let options = |block: &Map<String, Value>, v: Option<&Value>| -> Option<String> {
        let list: Vec<String> = v?.as_array()?.iter().filter_map(|i| option(block, i.as_u64())).collect();
        (!list.is_empty()).then(|| list.join(", "))
    };
    let yes_no = |b: Option<bool>| b.map(|b| if b { "True" } else { "False" }.to_owned());
    blocks(screens)
        .filter_map(|block| {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
            if !is_scored_type(kind) {
                return None;
            }
            let id = block.get("id").and_then(Value::as_str).unwrap_or_default();
            let given = answers.get(id);
            let (question, yours, right) = match kind {
                "multiple_choice" => (
                    block.get("question"),
                    option(block, given.and_then(Value::as_u64)),
                    option(block, block.get("correctIndex").and_then(Value::as_u64)),
                ),
                "multiple_response" => {
                    (block.get("question"), options(block, given), options(block, block.get("correctIndexes")))
                }
                _ => (
                    block.get("statement"),
                    yes_no(given.and_then(Value::as_bool)),
                    yes_no(block.get("answer").and_then(Value::as_bool)),
                ),
            };
            Some(serde_json::json!({
                "blockId": id,
                "question": question.and_then(Value::as_str).unwrap_or_default(),
                "yourAnswer": yours,
                "rightAnswer": right,
                "correct": given.is_some_and(|a| is_correct(kind, block, a)),
                "feedback": block.get("feedback").and_then(Value::as_str),
            }))
        })
        .collect()
}

fn is_correct(kind: &str, block: &Map<String, Value>, answer: &Value) -> bool {
    match kind {
        "multiple_choice" => block.get("correctIndex").and_then(Value::as_u64) == answer.as_u64(),
        "true_false" => block.get("answer").and_then(Value::as_bool).is_some_and(|a| Some(a) == answer.as_bool()),
        "multiple_response" => {
            let set = |v: Option<&Value>| -> Option<BTreeSet<u64>> {
                v.and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_u64).collect())
            };
            match (set(block.get("correctIndexes")), set(Some(answer))) {
                (Some(expected), Some(given)) => !expected.is_empty() && expected == given,
                _ => false,
            }
        }
        _ => false,
    }
}

/// The screens as a learner may see them: the answers of questions removed.
pub fn learner_view(screens: &[Value]) -> Vec<Value> {
    let mut screens = screens.to_vec();
    for screen in &mut screens {
        if let Some(Value::Array(blocks)) = screen.get_mut("blocks") {
            for block in blocks.iter_mut().filter_map(Value::as_object_mut) {
                block.remove("correctIndex");
                block.remove("correctIndexes");
                if block.get("type").and_then(Value::as_str) == Some("true_false") {
                    block.remove("answer");
                }
            }
        }
    }
    screens
}

/// Ids already used by the screens and blocks of a course.
pub fn used_ids(screens: &[Value]) -> HashSet<String> {
    let mut ids: HashSet<String> =
        screens.iter().filter_map(|s| s.get("id").and_then(Value::as_str)).map(str::to_owned).collect();
    ids.extend(blocks(screens).filter_map(|b| b.get("id").and_then(Value::as_str)).map(str::to_owned));
    ids
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(screens: Value) -> Result<Vec<Value>, Vec<crate::issues::Issue>> {
        let mut issues = Issues::default();
        let out = validate_screens(&screens, &["screens".to_owned()], &mut issues);
        if issues.is_empty() { Ok(out) } else { Err(issues.into_vec()) }
    }

    fn paths(issues: &[crate::issues::Issue]) -> Vec<(String, &'static str)> {
        issues.iter().map(|i| (i.path.join("."), i.code)).collect()
    }

    #[test]
    fn assigns_ids_and_keeps_unknown_fields() {
        let out = check(json!([{ "title": "Intro", "blocks": [{ "type": "text", "text": "hi", "colour": "red" }] }]))
            .unwrap();
        let block = &out[0]["blocks"][0];
        assert!(out[0]["id"].as_str().unwrap().starts_with("scr_"));
        assert!(block["id"].as_str().unwrap().starts_with("blk_"));
        assert_eq!(block["colour"], "red", "a misspelled field is stored");
    }

    #[test]
    fn duplicate_ids_are_replaced() {
        let out = check(json!([{ "id": "a", "blocks": [{ "id": "a", "type": "divider" }] }])).unwrap();
        assert_eq!(out[0]["id"], "a");
        assert_ne!(out[0]["blocks"][0]["id"], "a");
    }

    #[test]
    fn block_rules_name_the_wrong_field() {
        let cards = |n: usize| (0..n).map(|i| json!({ "front": format!("card {i}") })).collect::<Vec<_>>();
        let cases = [
            (json!({ "type": "stack", "stackCards": cards(10) }), None),
            (json!({ "type": "stack", "stackCards": cards(11) }), Some(("screens.0.blocks.0.stackCards", "too_big"))),
            (json!({ "type": "stack", "stackCards": [] }), Some(("screens.0.blocks.0.stackCards", "too_small"))),
            (
                json!({ "type": "stack", "stackCards": [{ "back": "x" }] }),
                Some(("screens.0.blocks.0.stackCards.0.front", "required")),
            ),
            (json!({ "type": "poem" }), Some(("screens.0.blocks.0.type", "invalid_value"))),
            (json!({ "text": "x" }), Some(("screens.0.blocks.0.type", "required"))),
            (json!({ "type": "text" }), Some(("screens.0.blocks.0.text", "required"))),
            (json!({ "type": "text", "text": 3 }), Some(("screens.0.blocks.0.text", "invalid_type"))),
            (json!({ "type": "image", "url": "ftp://x" }), Some(("screens.0.blocks.0.url", "invalid_value"))),
            (
                json!({ "type": "multiple_choice", "question": "q", "options": ["a", "b"], "correctIndex": 2 }),
                Some(("screens.0.blocks.0.correctIndex", "invalid_value")),
            ),
            (
                json!({ "type": "multiple_choice", "question": "q", "options": ["a"], "correctIndex": 0 }),
                Some(("screens.0.blocks.0.options", "too_small")),
            ),
            (
                json!({ "type": "multiple_response", "question": "q", "options": ["a", "b"], "correctIndexes": [1, 1] }),
                Some(("screens.0.blocks.0.correctIndexes", "invalid_value")),
            ),
            (json!({ "type": "true_false", "statement": "s" }), Some(("screens.0.blocks.0.answer", "required"))),
            (json!({ "type": "list", "items": ["a", 2] }), Some(("screens.0.blocks.0.items.1", "invalid_type"))),
        ];
        for (block, expected) in cases {
            let result = check(json!([{ "blocks": [block.clone()] }]));
            match expected {
                None => assert!(result.is_ok(), "{block}: {result:?}"),
                Some((path, code)) => {
                    let issues = result.unwrap_err();
                    assert_eq!(paths(&issues), vec![(path.to_owned(), code)], "{block}");
                }
            }
        }
    }

    #[test]
    fn screen_and_block_counts_are_bounded() {
        let screens = vec![json!({}); MAX_SCREENS + 1];
        assert_eq!(paths(&check(Value::Array(screens)).unwrap_err()), vec![("screens".to_owned(), "too_big")]);
        let blocks = vec![json!({ "type": "divider" }); MAX_BLOCKS_PER_SCREEN + 1];
        assert_eq!(
            paths(&check(json!([{ "blocks": blocks }])).unwrap_err()),
            vec![("screens.0.blocks".to_owned(), "too_big")]
        );
    }

    fn quiz() -> Vec<Value> {
        check(json!([{ "blocks": [
            { "id": "q1", "type": "multiple_choice", "question": "?", "options": ["a", "b", "c"], "correctIndex": 1 },
            { "id": "q2", "type": "true_false", "statement": "s", "answer": false },
            { "id": "q3", "type": "multiple_response", "question": "?", "options": ["a", "b", "c"], "correctIndexes": [0, 2] },
            { "id": "q4", "type": "multiple_choice", "question": "?", "options": ["a", "b"], "correctIndex": 0 },
            { "type": "text", "text": "not scored" },
        ]}]))
        .unwrap()
    }

    #[test]
    fn grading_scores_scored_blocks_only() {
        let answers = json!({ "q1": 1, "q2": false, "q3": [2, 0], "q4": 1, "zz": 0 });
        let grade = grade(&quiz(), answers.as_object().unwrap(), Some(80));
        assert_eq!((grade.correct, grade.scored, grade.score, grade.passed), (3, 4, Some(75.0), false));
        let grade = super::grade(&quiz(), answers.as_object().unwrap(), Some(75));
        assert!(grade.passed);
        let grade = super::grade(&quiz(), &Map::new(), None);
        assert_eq!((grade.score, grade.passed), (Some(0.0), true), "no passing score: any completion passes");
    }

    #[test]
    fn no_scored_blocks_gives_a_null_score_not_zero() {
        let screens = check(json!([{ "blocks": [{ "type": "text", "text": "hi" }] }])).unwrap();
        let grade = grade(&screens, &Map::new(), Some(50));
        assert_eq!(grade.score, None);
        assert!(grade.passed);
        assert!(!has_scored_blocks(&screens));
    }

    #[test]
    fn learner_view_hides_answers() {
        let view = learner_view(&quiz());
        let text = serde_json::to_string(&view).unwrap();
        assert!(!text.contains("correctIndex") && !text.contains("\"answer\""));
        assert_eq!(view[0]["blocks"][0]["options"][1], "b");
    }

    fn sco(id: &str, mastery: Option<f64>) -> Value {
        json!({ "id": id, "type": "scorm", "packageId": "pkg_1", "launch": "sco/index.html?x=1", "scormVersion": "1.2", "masteryScore": mastery })
    }

    #[test]
    fn scorm_blocks_are_checked() {
        assert!(check(json!([{ "blocks": [sco("a", Some(80.0))] }])).is_ok());
        let bad = json!([{ "blocks": [
            { "type": "scorm", "packageId": "crs_1", "launch": "../x.html", "scormVersion": "3" },
            { "type": "scorm", "packageId": "pkg_1", "launch": "https://evil.example/a.html", "scormVersion": "2004", "masteryScore": 101 },
            { "type": "scorm" },
        ] }]);
        let found = paths(&check(bad).unwrap_err());
        assert_eq!(
            found,
            [
                ("screens.0.blocks.0.packageId".to_owned(), "invalid_value"),
                ("screens.0.blocks.0.launch".to_owned(), "invalid_value"),
                ("screens.0.blocks.0.scormVersion".to_owned(), "invalid_value"),
                ("screens.0.blocks.1.launch".to_owned(), "invalid_value"),
                ("screens.0.blocks.1.masteryScore".to_owned(), "invalid_value"),
                ("screens.0.blocks.2.packageId".to_owned(), "required"),
                ("screens.0.blocks.2.launch".to_owned(), "required"),
                ("screens.0.blocks.2.scormVersion".to_owned(), "required"),
            ]
        );
        for path in ["a/%2e%2e/b.html", "/abs.html", "a\\b.html", ""] {
            assert!(!is_package_path(path), "{path}");
        }
    }

    #[test]
    fn sco_reports_of_both_editions_are_graded() {
        let screens = vec![
            json!({ "id": "s", "blocks": [sco("a", Some(80.0)), sco("b", None), { "id": "q", "type": "true_false", "statement": "x", "answer": true }] }),
        ];
        let scorm12 =
            json!({ "cmi.core.lesson_status": "passed", "cmi.core.score.raw": "80", "cmi.suspend_data": "page=3" });
        let scorm2004 =
            json!({ "cmi.completion_status": "completed", "cmi.success_status": "unknown", "cmi.score.scaled": "0.5" });
        let answers = json!({ "a": scorm12, "b": scorm2004, "q": true });
        let g = grade(&screens, answers.as_object().unwrap(), Some(70));
        // (0.8 + 0.5 + 1) / 3 = 76.67%
        assert_eq!((g.score, g.scored, g.correct, g.passed), (Some(76.67), 3, 1, true));
        assert_eq!(
            g.scorm["a"],
            json!({ "completionStatus": "completed", "successStatus": "passed", "score": 80.0, "location": null, "suspendData": "page=3" })
        );
        // A SCO that failed, or never completed, fails the attempt at any score.
        let failed = json!({ "a": { "cmi.core.lesson_status": "failed", "cmi.core.score.raw": "100" }, "b": scorm2004, "q": true });
        assert!(!grade(&screens, failed.as_object().unwrap(), None).passed);
        let unfinished = json!({ "a": scorm12, "q": true });
        let g = grade(&screens, unfinished.as_object().unwrap(), None);
        assert!(!g.passed, "b never reported");
        // A SCO without a mastery score and without a reported score is not scored.
        assert_eq!((g.scored, g.score), (2, Some(90.0)));
        // A raw score in its own range; a scaled score below 0 counts as 0.
        let ranged = ScoReport::read(&json!({ "cmi.score.raw": "15", "cmi.score.min": "10", "cmi.score.max": "20" }));
        assert_eq!(ranged.score, Some(0.5));
        assert_eq!(ScoReport::read(&json!({ "cmi.score.scaled": "-0.5" })).score, Some(0.0));
        assert_eq!(ScoReport::read(&json!({ "cmi.score.scaled": "7" })).score, None, "out of range is not a score");
        assert_eq!(ScoReport::read(&json!("junk")), ScoReport::default());
    }
}
