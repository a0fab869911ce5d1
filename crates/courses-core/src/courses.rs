//! Courses, their screens and blocks: create, read, update, delete, publish,
//! reorder and duplicate. Every change to a course's content is one
//! read-modify-write under the course's row lock.

use std::collections::HashSet;

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::Courses;
use crate::content::{self, validate_block, validate_screen, validate_screens};
use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, code};
use crate::model::{Access, Course, CourseStatus, ListItem, ResourceKind};
use crate::store::{Bind, COURSE_COLUMNS, CourseRow};

/// Course fields the service reads; others are stored without effect.
const SETTINGS: [(&str, &[&str]); 4] = [
    ("navigation", &["default", "hidden"]),
    ("quizFeedback", &["deferred", "immediate"]),
    ("direction", &["ltr", "rtl"]),
    ("retry", &["allowed", "never"]),
];
/// Fields the service computes; sent back by clients, they are ignored.
const READ_ONLY: [&str; 7] = ["id", "workspaceId", "sourceKind", "createdAt", "updatedAt", "publishedAt", "object"];

/// `limit` (default 50, no maximum) and `offset` of a list request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListRequest {
    pub limit: u64,
    pub offset: u64,
}

impl ListRequest {
    pub const DEFAULT_LIMIT: u64 = 50;

    pub fn new(limit: Option<u64>, offset: Option<u64>) -> Self {
        Self { limit: limit.unwrap_or(Self::DEFAULT_LIMIT), offset: offset.unwrap_or(0) }
    }
}

/// The validated fields of a course body.
#[derive(Debug, Default)]
struct CourseFields {
    title: Option<String>,
    status: Option<CourseStatus>,
    passing_score: Option<Option<i64>>,
    theme_id: Option<Option<String>>,
    certificate_id: Option<Option<String>>,
    settings: Map<String, Value>,
    screens: Option<Vec<Value>>,
    extra: Map<String, Value>,
}

fn nullable_id(body: &Map<String, Value>, name: &str, issues: &mut Issues) -> Option<Option<String>> {
    match body.get(name) {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::String(s)) if !s.trim().is_empty() => Some(Some(s.trim().to_owned())),
        Some(_) => {
            issues.push(code::INVALID_TYPE, &[], Some(name), format!("{name} must be an id or null"));
            None
        }
    }
}

fn parse_course(body: &Map<String, Value>, creating: bool) -> CoursesResult<CourseFields> {
    let mut issues = Issues::default();
    let mut fields = CourseFields::default();
    match body.get("title") {
        Some(Value::String(t)) if t.trim().is_empty() => {
            issues.push(code::TOO_SMALL, &[], Some("title"), "title must not be empty");
        }
        Some(Value::String(t)) if t.chars().count() > content::MAX_TITLE_CHARS => {
            issues.push(
                code::TOO_BIG,
                &[],
                Some("title"),
                format!("title is at most {} characters", content::MAX_TITLE_CHARS),
            );
        }
        Some(Value::String(t)) => fields.title = Some(t.trim().to_owned()),
        None if creating => issues.push(code::REQUIRED, &[], Some("title"), "title is required"),
        None => {}
        Some(_) => issues.push(code::INVALID_TYPE, &[], Some("title"), "title must be a string"),
    }
    match body.get("status") {
        None => {}
        Some(Value::String(s)) if CourseStatus::parse(s).is_some() => fields.status = CourseStatus::parse(s),
        Some(_) => issues.push(code::INVALID_VALUE, &[], Some("status"), "status must be \"draft\" or \"published\""),
    }
    match body.get("passingScore") {
        None => {}
        Some(Value::Null) => fields.passing_score = Some(None),
        Some(Value::Number(n)) if n.as_i64().is_some_and(|n| (0..=100).contains(&n)) => {
            fields.passing_score = Some(n.as_i64());
        }
        Some(_) => issues.push(
            code::INVALID_VALUE,
            &[],
            Some("passingScore"),
            "passingScore must be an integer percentage from 0 to 100, or null",
        ),
    }
    fields.theme_id = nullable_id(body, "themeId", &mut issues);
    fields.certificate_id = nullable_id(body, "certificateId", &mut issues);
    for (name, allowed) in SETTINGS {
        match body.get(name) {
            None => {}
            Some(Value::String(v)) if allowed.contains(&v.as_str()) => {
                fields.settings.insert(name.to_owned(), Value::String(v.clone()));
            }
            Some(_) => issues.push(
                code::INVALID_VALUE,
                &[],
                Some(name),
                format!(
                    "{name} must be one of {}",
                    allowed.iter().map(|a| format!("\"{a}\"")).collect::<Vec<_>>().join(", ")
                ),
            ),
        }
    }
    match body.get("description") {
        None => {}
        Some(Value::Null) => {
            fields.settings.insert("description".to_owned(), Value::Null);
        }
        Some(Value::String(d)) if d.chars().count() <= content::MAX_TEXT_CHARS => {
            fields.settings.insert("description".to_owned(), Value::String(d.clone()));
        }
        Some(_) => issues.push(
            code::INVALID_TYPE,
            &[],
            Some("description"),
            "description must be a string of at most 20000 characters",
        ),
    }
    if let Some(screens) = body.get("screens") {
        fields.screens = Some(validate_screens(screens, &["screens".to_owned()], &mut issues));
    }
    const KNOWN: [&str; 11] = [
        "title",
        "status",
        "passingScore",
        "themeId",
        "certificateId",
        "navigation",
        "quizFeedback",
        "direction",
        "retry",
        "description",
        "screens",
    ];
    for (key, value) in body {
        if !KNOWN.contains(&key.as_str()) && !READ_ONLY.contains(&key.as_str()) {
            fields.extra.insert(key.clone(), value.clone());
        }
    }
    issues.finish(fields)
}

fn apply(course: &mut Course, fields: CourseFields, now: kernel::Timestamp) {
    if let Some(title) = fields.title {
        course.title = title;
    }
    if let Some(status) = fields.status {
        set_status(course, status, now);
    }
    if let Some(p) = fields.passing_score {
        course.passing_score = p;
    }
    if let Some(t) = fields.theme_id {
        course.theme_id = t;
    }
    if let Some(c) = fields.certificate_id {
        course.certificate_id = c;
    }
    course.settings.extend(fields.settings);
    if let Some(screens) = fields.screens {
        course.screens = screens;
    }
    course.extra.extend(fields.extra);
}

fn set_status(course: &mut Course, status: CourseStatus, now: kernel::Timestamp) {
    if status == CourseStatus::Published && course.status != CourseStatus::Published {
        course.published_at = Some(now);
    }
    course.status = status;
}

fn find_screen<'a>(course: &'a mut Course, screen_id: &str) -> CoursesResult<(usize, &'a mut Map<String, Value>)> {
    course
        .screens
        .iter_mut()
        .enumerate()
        .find_map(|(i, s)| match s {
            Value::Object(map) if map.get("id").and_then(Value::as_str) == Some(screen_id) => Some((i, map)),
            _ => None,
        })
        .ok_or(CoursesError::not_found("screen"))
}

fn screen_blocks(screen: &mut Map<String, Value>) -> &mut Vec<Value> {
    let entry = screen.entry("blocks").or_insert_with(|| Value::Array(Vec::new()));
    if !entry.is_array() {
        *entry = Value::Array(Vec::new());
    }
    match entry {
        Value::Array(blocks) => blocks,
        _ => unreachable!("just made an array"),
    }
}

/// [`Courses::draft_screen`] on a course in memory.
fn draft_into(
    course: &mut Course,
    screen_id: &str,
    block_id: Option<&str>,
    body: &Map<String, Value>,
) -> CoursesResult<(usize, Value)> {
    let mut seen = content::used_ids(&course.screens);
    let (at, screen) = find_screen(course, screen_id)?;
    let blocks = screen_blocks(screen);
    let (merged, slot) = match block_id {
        Some(block_id) => {
            seen.remove(block_id);
            let i = blocks
                .iter()
                .position(|b| b.get("id").and_then(Value::as_str) == Some(block_id))
                .ok_or(CoursesError::not_found("block"))?;
            let mut merged = blocks.get(i).and_then(Value::as_object).cloned().unwrap_or_default();
            merged.extend(body.iter().filter(|(k, _)| *k != "id").map(|(k, v)| (k.clone(), v.clone())));
            (merged, Some(i))
        }
        None => (body.clone(), None),
    };
    let mut issues = Issues::default();
    let block = validate_block(&Value::Object(merged), &[], &mut seen, &mut issues);
    issues.finish(())?;
    match slot.and_then(|i| blocks.get_mut(i)) {
        Some(slot) => *slot = block,
        None => blocks.push(block),
    }
    let screen = content::learner_view(std::slice::from_ref(&Value::Object(screen.clone())));
    Ok((at, screen.into_iter().next().unwrap_or(Value::Null)))
}

fn position(body: &Map<String, Value>, len: usize) -> CoursesResult<usize> {
    match body.get("position") {
        None | Some(Value::Null) => Ok(len),
        Some(Value::Number(n)) => match n.as_u64().and_then(|p| usize::try_from(p).ok()) {
            Some(p) if p <= len => Ok(p),
            _ => Err(CoursesError::field(
                &["position"],
                code::INVALID_VALUE,
                format!("position must be from 0 to {len}"),
            )),
        },
        Some(_) => Err(CoursesError::field(&["position"], code::INVALID_TYPE, "position must be an integer")),
    }
}

fn without_position(body: &Map<String, Value>) -> Value {
    let mut body = body.clone();
    body.remove("position");
    Value::Object(body)
}

/// Gives every screen and block of `value` a fresh id.
fn refresh_ids(value: &mut Value, prefix: &str) {
    if let Value::Object(map) = value {
        map.insert("id".to_owned(), Value::String(content::new_id(prefix)));
        if let Some(Value::Array(blocks)) = map.get_mut("blocks") {
            for block in blocks {
                refresh_ids(block, "blk");
            }
        }
    }
}

impl Courses {
    /// Checks that a body's themeId and certificateId name objects of the
    /// caller's workspace: another workspace's id is `invalid_request`.
    async fn check_references(
        &self,
        access: &Access,
        theme: Option<&Option<String>>,
        cert: Option<&Option<String>>,
    ) -> CoursesResult<()> {
        // Naming a theme or a template is using the feature: below its plan
        // it answers 403 like the feature's own routes (clearing one with
        // null is always allowed).
        if matches!(theme, Some(Some(_))) {
            self.require(access, crate::plans::Feature::Themes)?;
        }
        if matches!(cert, Some(Some(_))) {
            self.require(access, crate::plans::Feature::CertificateTemplates)?;
        }
        let mut issues = Issues::default();
        for (field, kind, id) in
            [("themeId", ResourceKind::Theme, theme), ("certificateId", ResourceKind::CertificateTemplate, cert)]
        {
            if let Some(Some(id)) = id
                && self.store.resource(&access.workspace.id, kind, id).await?.is_none()
            {
                issues.push(
                    code::UNKNOWN_REFERENCE,
                    &[],
                    Some(field),
                    format!("{field} {id:?} is not a {} of this workspace", kind.noun()),
                );
            }
        }
        issues.finish(())
    }

    pub async fn create_course(&self, access: &Access, body: &Map<String, Value>) -> CoursesResult<Course> {
        self.create_course_from(access, body, "manual").await
    }

    pub async fn create_course_from(
        &self,
        access: &Access,
        body: &Map<String, Value>,
        source_kind: &str,
    ) -> CoursesResult<Course> {
        let course = self.new_course(access, body, source_kind).await?;
        self.store.insert_course(&course).await?;
        Ok(course)
    }

    /// A new draft course from a body, validated like the API's, not yet stored.
    pub(crate) async fn new_course(
        &self,
        access: &Access,
        body: &Map<String, Value>,
        source_kind: &str,
    ) -> CoursesResult<Course> {
        let fields = parse_course(body, true)?;
        self.check_references(access, fields.theme_id.as_ref(), fields.certificate_id.as_ref()).await?;
        let now = self.clock.now();
        let mut course = Course {
            id: content::new_id("crs"),
            workspace_id: access.workspace.id.clone(),
            title: String::new(),
            status: CourseStatus::Draft,
            passing_score: None,
            theme_id: None,
            certificate_id: None,
            source_kind: source_kind.to_owned(),
            settings: Map::new(),
            screens: Vec::new(),
            extra: Map::new(),
            published_at: None,
            created_at: now,
            updated_at: now,
        };
        course.settings.insert("navigation".to_owned(), Value::String("default".to_owned()));
        course.settings.insert("quizFeedback".to_owned(), Value::String("deferred".to_owned()));
        course.settings.insert("direction".to_owned(), Value::String("ltr".to_owned()));
        course.settings.insert("retry".to_owned(), Value::String("allowed".to_owned()));
        apply(&mut course, fields, now);
        Ok(course)
    }

    pub async fn course(&self, access: &Access, id: &str) -> CoursesResult<Course> {
        self.store.course(&access.workspace.id, id).await?.ok_or(CoursesError::not_found("course"))
    }

    pub fn list_courses(&self, access: &Access, page: ListRequest) -> mpsc::Receiver<ListItem<Course>> {
        self.store.stream::<CourseRow, Course>(
            format!("SELECT {COURSE_COLUMNS} FROM courses WHERE workspace_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3"),
            vec![Bind::Text(access.workspace.id.clone())],
            page.limit,
            page.offset,
        )
    }

    /// Changes the fields present in `body` (`screens` replaces them all).
    pub async fn update_course(&self, access: &Access, id: &str, body: &Map<String, Value>) -> CoursesResult<Course> {
        let fields = parse_course(body, false)?;
        self.check_references(access, fields.theme_id.as_ref(), fields.certificate_id.as_ref()).await?;
        let now = self.clock.now();
        let (course, ()) = self
            .store
            .modify_course(&access.workspace.id, id, now, |course| {
                apply(course, fields, now);
                Ok(())
            })
            .await?;
        Ok(course)
    }

    pub async fn set_course_status(&self, access: &Access, id: &str, status: CourseStatus) -> CoursesResult<Course> {
        let outbox = self.outbox(&access.workspace.id, "course.published").await?;
        let now = self.clock.now();
        let (course, _) = self
            .store
            .modify_course_emitting(&access.workspace.id, id, now, |course| {
                let was = course.status;
                set_status(course, status, now);
                // `course.published` commits with the change it reports.
                let messages = if was != CourseStatus::Published && course.status == CourseStatus::Published {
                    outbox.messages(&serde_json::json!({ "id": course.id, "title": course.title, "status": "published", "publishedAt": course.published_at.map(|t| t.to_rfc3339()) }))
                } else {
                    Vec::new()
                };
                Ok((was, messages))
            })
            .await?;
        Ok(course)
    }

    pub async fn delete_course(&self, access: &Access, id: &str) -> CoursesResult<()> {
        if self.store.delete_course(&access.workspace.id, id).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found("course"))
        }
    }

    // ---- screens ----

    /// Adds a screen at `position` (default: last). Returns the course, the
    /// screen's index and the screen.
    pub async fn add_screen(
        &self,
        access: &Access,
        course_id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<(usize, Value)> {
        let now = self.clock.now();
        let (_, out) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                if course.screens.len() >= content::MAX_SCREENS {
                    return Err(CoursesError::field(
                        &["screens"],
                        code::TOO_BIG,
                        format!("a course holds at most {} screens", content::MAX_SCREENS),
                    ));
                }
                let at = position(body, course.screens.len())?;
                let mut seen = content::used_ids(&course.screens);
                let mut issues = Issues::default();
                let screen = validate_screen(&without_position(body), &[], &mut seen, &mut issues);
                issues.finish(())?;
                course.screens.insert(at, screen.clone());
                Ok((at, screen))
            })
            .await?;
        Ok(out)
    }

    pub async fn screen(&self, access: &Access, course_id: &str, screen_id: &str) -> CoursesResult<(usize, Value)> {
        let mut course = self.course(access, course_id).await?;
        let (i, screen) = find_screen(&mut course, screen_id)?;
        Ok((i, Value::Object(screen.clone())))
    }

    /// Changes a screen's title, blocks (replaced) or other fields.
    pub async fn update_screen(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<Value> {
        let now = self.clock.now();
        let (_, screen) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let mut seen = content::used_ids(&course.screens);
                let (i, current) = find_screen(course, screen_id)?;
                // The screen's own ids may be reused by its new content.
                seen.remove(screen_id);
                if let Some(Value::Array(blocks)) = current.get("blocks") {
                    for id in blocks.iter().filter_map(|b| b.get("id").and_then(Value::as_str)) {
                        seen.remove(id);
                    }
                }
                let mut merged = current.clone();
                for (k, v) in body {
                    if k != "id" {
                        merged.insert(k.clone(), v.clone());
                    }
                }
                let mut issues = Issues::default();
                let screen = validate_screen(&Value::Object(merged), &[], &mut seen, &mut issues);
                issues.finish(())?;
                if let Some(slot) = course.screens.get_mut(i) {
                    *slot = screen.clone();
                }
                Ok(screen)
            })
            .await?;
        Ok(screen)
    }

    pub async fn delete_screen(&self, access: &Access, course_id: &str, screen_id: &str) -> CoursesResult<()> {
        let now = self.clock.now();
        self.store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let (i, _) = find_screen(course, screen_id)?;
                course.screens.remove(i);
                Ok(())
            })
            .await?;
        Ok(())
    }

    /// Reorders screens: `ordered` must name every screen exactly once.
    pub async fn reorder_screens(&self, access: &Access, course_id: &str, ordered: &[String]) -> CoursesResult<Course> {
        let now = self.clock.now();
        let (course, ()) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let current: Vec<String> = course
                    .screens
                    .iter()
                    .filter_map(|s| s.get("id").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                let given: HashSet<&String> = ordered.iter().collect();
                if ordered.len() != current.len()
                    || given.len() != ordered.len()
                    || !current.iter().all(|id| given.contains(id))
                {
                    return Err(CoursesError::field(
                        &["orderedScreenIds"],
                        code::INVALID_VALUE,
                        "orderedScreenIds must list every screen id of the course exactly once",
                    ));
                }
                let mut screens = std::mem::take(&mut course.screens);
                for id in ordered {
                    if let Some(i) = screens.iter().position(|s| s.get("id").and_then(Value::as_str) == Some(id)) {
                        course.screens.push(screens.remove(i));
                    }
                }
                Ok(())
            })
            .await?;
        Ok(course)
    }

    /// Moves a screen one place earlier (`earlier`) or later, inside one
    /// read-modify-write of the course (the studio's Up and Down buttons, the
    /// keyboard twin of dragging). At either end it stays where it is.
    pub async fn move_screen(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
        earlier: bool,
    ) -> CoursesResult<Course> {
        let now = self.clock.now();
        let (course, ()) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let at = course
                    .screens
                    .iter()
                    .position(|s| s.get("id").and_then(Value::as_str) == Some(screen_id))
                    .ok_or(CoursesError::not_found("screen"))?;
                let to = if earlier { at.checked_sub(1) } else { Some(at + 1).filter(|&i| i < course.screens.len()) };
                if let Some(to) = to {
                    course.screens.swap(at, to);
                }
                Ok(())
            })
            .await?;
        Ok(course)
    }

    /// Copies a screen right after the original; the copy and each of its
    /// blocks get new ids.
    pub async fn duplicate_screen(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
    ) -> CoursesResult<(usize, Value)> {
        let now = self.clock.now();
        let (_, out) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                if course.screens.len() >= content::MAX_SCREENS {
                    return Err(CoursesError::field(
                        &["screens"],
                        code::TOO_BIG,
                        format!("a course holds at most {} screens", content::MAX_SCREENS),
                    ));
                }
                let (i, original) = find_screen(course, screen_id)?;
                let mut copy = Value::Object(original.clone());
                refresh_ids(&mut copy, "scr");
                course.screens.insert(i + 1, copy.clone());
                Ok((i + 1, copy))
            })
            .await?;
        Ok(out)
    }

    // ---- blocks ----

    pub async fn add_block(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<(usize, Value)> {
        let now = self.clock.now();
        let (_, out) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let mut seen = content::used_ids(&course.screens);
                let (_, screen) = find_screen(course, screen_id)?;
                let blocks = screen_blocks(screen);
                if blocks.len() >= content::MAX_BLOCKS_PER_SCREEN {
                    return Err(CoursesError::field(
                        &["blocks"],
                        code::TOO_BIG,
                        format!("a screen holds at most {} blocks", content::MAX_BLOCKS_PER_SCREEN),
                    ));
                }
                let at = position(body, blocks.len())?;
                let mut issues = Issues::default();
                let block = validate_block(&without_position(body), &[], &mut seen, &mut issues);
                issues.finish(())?;
                blocks.insert(at, block.clone());
                Ok((at, block))
            })
            .await?;
        Ok(out)
    }

    /// Changes the fields present in `body`; the whole block is validated again.
    pub async fn update_block(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
        block_id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<Value> {
        let now = self.clock.now();
        let (_, block) = self
            .store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let mut seen = content::used_ids(&course.screens);
                seen.remove(block_id);
                let (_, screen) = find_screen(course, screen_id)?;
                let blocks = screen_blocks(screen);
                let slot = blocks
                    .iter_mut()
                    .find(|b| b.get("id").and_then(Value::as_str) == Some(block_id))
                    .ok_or(CoursesError::not_found("block"))?;
                let mut merged = slot.as_object().cloned().unwrap_or_default();
                for (k, v) in body {
                    if k != "id" {
                        merged.insert(k.clone(), v.clone());
                    }
                }
                let mut issues = Issues::default();
                let block = validate_block(&Value::Object(merged), &[], &mut seen, &mut issues);
                issues.finish(())?;
                *slot = block.clone();
                Ok(block)
            })
            .await?;
        Ok(block)
    }

    /// The studio's live preview of an edit not yet saved: the screen as the
    /// learner player would show it with `body` in place of block
    /// `block_id` (merged, as a save merges) or, without one, added at its
    /// end. Checked by the API's rules; nothing is written. Answers the
    /// screen's position and the screen without the answers.
    pub async fn draft_screen(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
        block_id: Option<&str>,
        body: &Map<String, Value>,
    ) -> CoursesResult<(usize, Value)> {
        let mut course = self.course(access, course_id).await?;
        draft_into(&mut course, screen_id, block_id, body)
    }

    pub async fn delete_block(
        &self,
        access: &Access,
        course_id: &str,
        screen_id: &str,
        block_id: &str,
    ) -> CoursesResult<()> {
        let now = self.clock.now();
        self.store
            .modify_course(&access.workspace.id, course_id, now, |course| {
                let (_, screen) = find_screen(course, screen_id)?;
                let blocks = screen_blocks(screen);
                let i = blocks
                    .iter()
                    .position(|b| b.get("id").and_then(Value::as_str) == Some(block_id))
                    .ok_or(CoursesError::not_found("block"))?;
                blocks.remove(i);
                Ok(())
            })
            .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parse(body: Value, creating: bool) -> CoursesResult<CourseFields> {
        parse_course(body.as_object().unwrap(), creating)
    }

    #[test]
    fn unknown_fields_are_kept_and_read_only_ones_ignored() {
        let fields = parse(json!({ "title": "T", "colour": "red", "id": "x", "createdAt": "y" }), true).unwrap();
        assert_eq!(fields.extra.get("colour"), Some(&json!("red")));
        assert!(!fields.extra.contains_key("id") && !fields.extra.contains_key("createdAt"));
    }

    #[test]
    fn a_draft_shows_the_edit_in_its_screen_without_answers_or_saving() {
        let mut course = test_course();
        course.screens =
            vec![json!({ "id": "s1", "title": "One", "blocks": [{ "id": "b1", "type": "text", "text": "Old" }] })];
        let edit = json!({ "text": "New" });
        let (at, screen) = draft_into(&mut course.clone(), "s1", Some("b1"), edit.as_object().unwrap()).unwrap();
        assert_eq!((at, screen["blocks"][0]["text"].clone()), (0, json!("New")));
        assert_eq!(course.screens[0]["blocks"][0]["text"], "Old", "the course itself is not changed");
        let added = json!({ "type": "multiple_choice", "question": "Q?", "options": ["a", "b"], "correctIndex": 1 });
        let (_, screen) = draft_into(&mut course.clone(), "s1", None, added.as_object().unwrap()).unwrap();
        assert_eq!(screen["blocks"][1]["question"], "Q?");
        assert!(screen["blocks"][1].get("correctIndex").is_none(), "the player never gets answers");
        let wrong = json!({ "text": " " });
        let Err(CoursesError::Invalid { issues, .. }) =
            draft_into(&mut course.clone(), "s1", Some("b1"), wrong.as_object().unwrap())
        else {
            panic!("an empty text is refused as on saving")
        };
        assert_eq!(issues[0].path, vec!["text".to_owned()]);
        assert!(matches!(
            draft_into(&mut course, "s9", None, added.as_object().unwrap()),
            Err(CoursesError::NotFound { .. })
        ));
    }

    fn test_course() -> Course {
        Course {
            id: "crs".into(),
            workspace_id: "ws".into(),
            title: "T".into(),
            status: CourseStatus::Draft,
            passing_score: None,
            theme_id: None,
            certificate_id: None,
            source_kind: "api".into(),
            settings: Map::new(),
            screens: Vec::new(),
            extra: Map::new(),
            published_at: None,
            created_at: kernel::Timestamp::from_millis(0),
            updated_at: kernel::Timestamp::from_millis(0),
        }
    }

    #[test]
    fn retries_are_allowed_unless_the_course_says_never() {
        let mut course = test_course();
        assert!(course.allows_retry(), "a course saved before the setting existed keeps its retry");
        let fields = parse(json!({ "retry": "never" }), false).unwrap();
        apply(&mut course, fields, kernel::Timestamp::from_millis(1));
        assert!(!course.allows_retry());
        let fields = parse(json!({ "retry": "allowed" }), false).unwrap();
        apply(&mut course, fields, kernel::Timestamp::from_millis(2));
        assert!(course.allows_retry());
    }

    #[test]
    fn field_rules_name_the_field() {
        let cases = [
            (json!({}), "title", "required"),
            (json!({ "title": " " }), "title", "too_small"),
            (json!({ "title": "t", "passingScore": 101 }), "passingScore", "invalid_value"),
            (json!({ "title": "t", "passingScore": 50.5 }), "passingScore", "invalid_value"),
            (json!({ "title": "t", "status": "archived" }), "status", "invalid_value"),
            (json!({ "title": "t", "navigation": "sideways" }), "navigation", "invalid_value"),
            (json!({ "title": "t", "retry": "sometimes" }), "retry", "invalid_value"),
            (json!({ "title": "t", "themeId": 4 }), "themeId", "invalid_type"),
        ];
        for (body, field, code) in cases {
            let Err(CoursesError::Invalid { issues, .. }) = parse(body.clone(), true) else {
                panic!("{body} should fail")
            };
            assert_eq!(issues[0].path, vec![field.to_owned()], "{body}");
            assert_eq!(issues[0].code, code, "{body}");
        }
        assert!(parse(json!({ "passingScore": null }), false).is_ok());
    }
}
