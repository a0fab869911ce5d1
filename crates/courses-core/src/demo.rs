//! The demo a new user sees on an empty store: a Scale workspace, a key and
//! a published course with a quiz, so the API and the player answer at once.

use kernel::Secret;
use serde_json::json;

use crate::Courses;
use crate::error::CoursesResult;
use crate::model::{Access, CourseStatus};
use crate::plans::Plan;

pub struct Demo {
    pub workspace_id: String,
    pub key: Secret<String>,
    pub course_id: String,
    /// A signed player link for the learner `demo` (a path; valid 90 days).
    pub player_path: String,
}

impl Courses {
    /// Creates the demo when the store has no workspace; `None` otherwise.
    pub async fn seed_demo_if_empty(&self) -> CoursesResult<Option<Demo>> {
        if self.store.count_workspaces().await? > 0 {
            return Ok(None);
        }
        let ws = self.create_workspace("Demo workspace", Plan::Scale).await?;
        let (info, key) = self.create_key(&ws.id, "demo", false).await?;
        let access = Access { workspace: ws.clone(), key_id: info.id, read_only: false };
        let body = json!({
            "title": "Welcome to courses",
            "passingScore": 50,
            "screens": [
                { "title": "What this is", "blocks": [
                    { "type": "heading", "text": "A course served by your own svc" },
                    { "type": "text", "text": "Courses are made of screens, and screens of blocks. This one was created on an empty store so you can try the player, the API and certificates right away." },
                    { "type": "stack", "stackCards": [
                        { "front": "Author", "back": "POST /v1/courses with screens and blocks, or POST /v1/generate from a prompt." },
                        { "front": "Publish", "back": "POST /v1/courses/{id}/publish, then mint signed learner links with POST /v1/courses/{id}/embed-links." },
                        { "front": "Track", "back": "GET /v1/completions and /v1/issued-certificates." }
                    ] }
                ] },
                { "title": "Quick check", "blocks": [
                    { "type": "multiple_choice", "question": "Where does a learner open a published course?", "options": ["/v1/courses", "/v1/embed/{id}", "/healthz"], "correctIndex": 1 },
                    { "type": "true_false", "statement": "A draft course's embed link answers 404.", "answer": true }
                ] }
            ]
        });
        let body = body.as_object().cloned().unwrap_or_default();
        let course = self.create_course(&access, &body).await?;
        self.set_course_status(&access, &course.id, CourseStatus::Published).await?;
        let mut mint = serde_json::Map::new();
        mint.insert("externalId".to_owned(), json!("demo"));
        mint.insert("expiresInSeconds".to_owned(), json!(crate::embed_links::MAX_TTL_SECS));
        let link = self.mint_embed_link(&access, &course.id, &mint).await?;
        Ok(Some(Demo { workspace_id: ws.id, key, course_id: course.id, player_path: link.path }))
    }
}
