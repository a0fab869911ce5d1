//! Learners: identities (created and deleted in bulk), completions graded
//! from answers, issued certificates, and the public embed through which
//! learners open published courses.

use std::collections::HashSet;

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::courses::ListRequest;
use crate::error::{CoursesError, CoursesResult, Suspension};
use crate::issues::{Issues, child, code};
use crate::model::{
    Access, Completion, Course, CourseStatus, Identity, IssuedCertificate, ListItem, Resource, ResourceKind,
};
use crate::plans::Feature;
use crate::store::{
    Bind, CERTIFICATE_COLUMNS, COMPLETION_COLUMNS, CertificateRow, CompletionRow, IDENTITY_COLUMNS, IdentityRow,
    IdentityUpsert, Table, View,
};
use crate::store::{Delivery, ViewAllowance};
use crate::{Courses, content, plans};

/// How long a view's id records the learner's answers after the opening:
/// a day, for a course taken in one sitting; older ids (views opened from
/// unsigned links before signed links existed included) answer 404.
pub const VIEW_TTL_MS: i64 = 24 * 3600 * 1000;

/// Learners per call of the bulk routes (a batch size, not a quota).
pub const BULK_LIMIT: usize = 500;

fn optional_string(
    item: &Map<String, Value>,
    name: &str,
    max: usize,
    path: &[String],
    issues: &mut Issues,
) -> Option<String> {
    match item.get(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.chars().count() <= max => Some(s.trim().to_owned()).filter(|s| !s.is_empty()),
        Some(Value::String(_)) => {
            issues.push(code::TOO_BIG, path, Some(name), format!("{name} is at most {max} characters"));
            None
        }
        Some(_) => {
            issues.push(code::INVALID_TYPE, path, Some(name), format!("{name} must be a string"));
            None
        }
    }
}

pub(crate) fn parse_identities(body: &Map<String, Value>) -> CoursesResult<Vec<IdentityUpsert>> {
    let root = vec!["identities".to_owned()];
    let items = match body.get("identities") {
        Some(Value::Array(items)) if items.len() > BULK_LIMIT => {
            return Err(CoursesError::field(
                &["identities"],
                code::TOO_BIG,
                format!("at most {BULK_LIMIT} identities per call"),
            ));
        }
        Some(Value::Array(items)) if items.is_empty() => {
            return Err(CoursesError::field(&["identities"], code::TOO_SMALL, "identities must not be empty"));
        }
        Some(Value::Array(items)) => items,
        Some(_) => return Err(CoursesError::field(&["identities"], code::INVALID_TYPE, "identities must be an array")),
        None => return Err(CoursesError::field(&["identities"], code::REQUIRED, "identities is required")),
    };
    let mut issues = Issues::default();
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = child(&root, i);
        let Value::Object(item) = item else {
            issues.push(code::INVALID_TYPE, &path, None, "an identity must be an object");
            continue;
        };
        let external_id = match item.get("externalId") {
            Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= 200 => s.trim().to_owned(),
            Some(Value::String(_)) => {
                issues.push(code::INVALID_VALUE, &path, Some("externalId"), "externalId must have 1 to 200 characters");
                continue;
            }
            Some(_) => {
                issues.push(code::INVALID_TYPE, &path, Some("externalId"), "externalId must be a string");
                continue;
            }
            None => {
                issues.push(code::REQUIRED, &path, Some("externalId"), "externalId is required");
                continue;
            }
        };
        if !seen.insert(external_id.clone()) {
            issues.push(code::DUPLICATE, &path, Some("externalId"), "externalId appears twice in this call");
        }
        let email = optional_string(item, "email", 320, &path, &mut issues);
        if email.as_deref().is_some_and(|e| !e.contains('@')) {
            issues.push(code::INVALID_VALUE, &path, Some("email"), "email must be an email address");
        }
        let name = optional_string(item, "name", 200, &path, &mut issues);
        let extra = item
            .iter()
            .filter(|(k, _)| {
                !["id", "externalId", "email", "name", "createdAt", "updatedAt", "workspaceId"].contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.push(IdentityUpsert { id: content::new_id("idn"), external_id, email, name, extra });
    }
    issues.finish(out)
}

fn parse_answers(body: &Map<String, Value>) -> CoursesResult<Map<String, Value>> {
    match body.get("answers") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(answers)) => Ok(answers.clone()),
        Some(_) => Err(CoursesError::field(
            &["answers"],
            code::INVALID_TYPE,
            "answers must be an object of block id to answer",
        )),
    }
}

fn required_id(body: &Map<String, Value>, name: &str) -> CoursesResult<String> {
    match body.get(name) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_owned()),
        Some(_) => Err(CoursesError::field(&[name], code::INVALID_TYPE, format!("{name} must be an id"))),
        None => Err(CoursesError::field(&[name], code::REQUIRED, format!("{name} is required"))),
    }
}

/// What the public embed hands the learner player.
#[derive(Clone, Debug)]
pub struct EmbedSession {
    /// The capability for the learner's completion and certificate; `None`
    /// for an anonymous preview, which records nothing.
    pub view_id: Option<String>,
    pub course: Course,
    /// The screens without the answers of questions.
    pub screens: Vec<Value>,
    pub identity: Option<Identity>,
    pub theme: Option<Resource>,
    /// The course title in the learner's language.
    pub title: String,
    /// The locale of the translation applied, if any.
    pub locale: Option<String>,
    /// The player's own words in that language (`ui.*` strings).
    pub ui: Map<String, Value>,
    /// What the course's SCOs saved for this learner before (block id to
    /// runtime data), so a SCO resumes where it was left.
    pub scorm_state: Map<String, Value>,
}

/// Runtime elements the player may save for a SCO, and how long each may be
/// (SCORM 2004's sizes: suspend data 64,000 characters, location 1,000).
const SCORM_STATE_ELEMENTS: [(&str, usize); 16] = [
    ("cmi.core.lesson_status", 32),
    ("cmi.core.lesson_location", 1_000),
    ("cmi.core.score.raw", 32),
    ("cmi.core.score.min", 32),
    ("cmi.core.score.max", 32),
    ("cmi.core.exit", 32),
    ("cmi.suspend_data", content::MAX_SUSPEND_DATA_CHARS),
    ("cmi.completion_status", 32),
    ("cmi.success_status", 32),
    ("cmi.location", 1_000),
    ("cmi.score.scaled", 32),
    ("cmi.score.raw", 32),
    ("cmi.score.min", 32),
    ("cmi.score.max", 32),
    ("cmi.exit", 32),
    ("cmi.progress_measure", 32),
];

/// The runtime data of one SCO as saved: only the elements above, strings
/// within their sizes.
fn scorm_state(data: Option<&Value>) -> CoursesResult<Map<String, Value>> {
    let Some(Value::Object(data)) = data else {
        return Err(CoursesError::field(&["data"], code::INVALID_TYPE, "data must be an object of cmi elements"));
    };
    if data.len() > SCORM_STATE_ELEMENTS.len() {
        return Err(CoursesError::field(
            &["data"],
            code::TOO_BIG,
            format!("data holds at most {} elements", SCORM_STATE_ELEMENTS.len()),
        ));
    }
    let mut issues = Issues::default();
    let mut out = Map::new();
    for (name, value) in data {
        let Some((_, max)) = SCORM_STATE_ELEMENTS.iter().find(|(n, _)| n == name) else { continue };
        match value {
            Value::String(v) if v.chars().count() <= *max => {
                out.insert(name.clone(), value.clone());
            }
            Value::String(_) => {
                issues.push(
                    code::TOO_BIG,
                    &["data".to_owned()],
                    Some(name),
                    format!("{name} is at most {max} characters"),
                );
            }
            _ => issues.push(code::INVALID_TYPE, &["data".to_owned()], Some(name), format!("{name} must be a string")),
        }
    }
    issues.finish(out)
}

impl Courses {
    // ---- identities ----

    /// Creates or updates (by `externalId`) up to 500 identities in one call.
    pub async fn bulk_upsert_identities(
        &self,
        access: &Access,
        body: &Map<String, Value>,
    ) -> CoursesResult<(Vec<Identity>, usize)> {
        let batch = parse_identities(body)?;
        let messages = self.identity_messages(&access.workspace.id, &batch).await?;
        let (stored, created) =
            self.store.upsert_identities(&access.workspace.id, &batch, &messages, self.clock.now()).await?;
        Ok((stored, created))
    }

    /// Creates or updates one identity.
    pub async fn upsert_identity(&self, access: &Access, body: &Map<String, Value>) -> CoursesResult<(Identity, bool)> {
        let mut wrapped = Map::new();
        wrapped.insert("identities".to_owned(), Value::Array(vec![Value::Object(body.clone())]));
        let batch = parse_identities(&wrapped).map_err(|err| match err {
            CoursesError::Invalid { issues, .. } => CoursesError::invalid(
                issues
                    .into_iter()
                    .map(|mut i| {
                        i.path.drain(..2.min(i.path.len()));
                        i
                    })
                    .collect(),
            ),
            other => other,
        })?;
        let messages = self.identity_messages(&access.workspace.id, &batch).await?;
        let (mut stored, created) =
            self.store.upsert_identities(&access.workspace.id, &batch, &messages, self.clock.now()).await?;
        let identity = stored.pop().ok_or_else(|| CoursesError::Internal("upsert returned no row".to_owned()))?;
        Ok((identity, created == 1))
    }

    /// The `identity.created` messages of each identity of a batch, written
    /// only for those the store creates (in the same transaction).
    pub(crate) async fn identity_messages(
        &self,
        workspace_id: &str,
        batch: &[IdentityUpsert],
    ) -> CoursesResult<Vec<Vec<Delivery>>> {
        let outbox = self.outbox(workspace_id, "identity.created").await?;
        if outbox.is_empty() {
            return Ok(Vec::new());
        }
        Ok(batch
            .iter()
            .map(|item| {
                outbox.messages(&serde_json::json!({ "id": item.id, "externalId": item.external_id, "email": item.email, "name": item.name }))
            })
            .collect())
    }

    /// Deletes up to 500 identities by id or `externalId`.
    pub async fn bulk_delete_identities(&self, access: &Access, body: &Map<String, Value>) -> CoursesResult<u64> {
        let ids = match body.get("ids") {
            Some(Value::Array(ids)) if ids.len() > BULK_LIMIT => {
                return Err(CoursesError::field(
                    &["ids"],
                    code::TOO_BIG,
                    format!("at most {BULK_LIMIT} identities per call"),
                ));
            }
            Some(Value::Array(ids)) if ids.is_empty() => {
                return Err(CoursesError::field(&["ids"], code::TOO_SMALL, "ids must not be empty"));
            }
            Some(Value::Array(ids)) => ids,
            Some(_) => return Err(CoursesError::field(&["ids"], code::INVALID_TYPE, "ids must be an array")),
            None => {
                return Err(CoursesError::field(
                    &["ids"],
                    code::REQUIRED,
                    "ids (identity ids or externalIds) is required",
                ));
            }
        };
        let mut issues = Issues::default();
        let keys: Vec<String> = ids
            .iter()
            .enumerate()
            .filter_map(|(i, id)| {
                let key = id.as_str().map(str::to_owned);
                if key.is_none() {
                    issues.push(code::INVALID_TYPE, &child(&["ids".to_owned()], i), None, "each id must be a string");
                }
                key
            })
            .collect();
        issues.finish(())?;
        Ok(self.store.delete_identities(&access.workspace.id, &keys).await?)
    }

    pub async fn identity(&self, access: &Access, id: &str) -> CoursesResult<Identity> {
        self.store.identity(&access.workspace.id, id).await?.ok_or(CoursesError::not_found("identity"))
    }

    pub async fn delete_identity(&self, access: &Access, id: &str) -> CoursesResult<()> {
        if self.store.delete_by_id(Table::Identities, &access.workspace.id, id).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found("identity"))
        }
    }

    pub fn list_identities(&self, access: &Access, page: ListRequest) -> mpsc::Receiver<ListItem<Identity>> {
        self.store.stream::<IdentityRow, Identity>(
            format!("SELECT {IDENTITY_COLUMNS} FROM identities WHERE workspace_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3"),
            vec![Bind::Text(access.workspace.id.clone())],
            page.limit,
            page.offset,
        )
    }

    // ---- completions ----

    /// Grades `answers` against the course and records the completion.
    async fn complete(
        &self,
        course: &Course,
        identity_id: &str,
        answers: Map<String, Value>,
    ) -> CoursesResult<Completion> {
        let grade = content::grade(&course.screens, &answers, course.passing_score);
        let completion = Completion {
            id: content::new_id("cmp"),
            workspace_id: course.workspace_id.clone(),
            course_id: course.id.clone(),
            identity_id: identity_id.to_owned(),
            score: grade.score,
            passed: grade.passed,
            scorm: (!grade.scorm.is_empty()).then_some(grade.scorm),
            created_at: self.clock.now(),
        };
        let data = serde_json::json!({
            "id": completion.id, "courseId": completion.course_id, "identityId": completion.identity_id,
            "score": completion.score, "passed": completion.passed, "completedAt": completion.created_at.to_rfc3339(),
            "scorm": completion.scorm,
        });
        let messages = self.outbox(&completion.workspace_id, "completion.created").await?.messages(&data);
        self.store.insert_completion(&completion, &answers, &messages).await?;
        Ok(completion)
    }

    /// `POST /completions`: `{courseId, identityId, answers}`.
    pub async fn record_completion(&self, access: &Access, body: &Map<String, Value>) -> CoursesResult<Completion> {
        let course_id = required_id(body, "courseId")?;
        let identity_id = required_id(body, "identityId")?;
        let answers = parse_answers(body)?;
        let mut issues = Issues::default();
        let course = self.store.course(&access.workspace.id, &course_id).await?;
        if course.is_none() {
            issues.push(code::UNKNOWN_REFERENCE, &[], Some("courseId"), "courseId is not a course of this workspace");
        }
        if self.store.identity(&access.workspace.id, &identity_id).await?.is_none() {
            issues.push(
                code::UNKNOWN_REFERENCE,
                &[],
                Some("identityId"),
                "identityId is not an identity of this workspace",
            );
        }
        let course = issues.finish(course)?.ok_or(CoursesError::not_found("course"))?;
        self.complete(&course, &identity_id, answers).await
    }

    pub async fn completion(&self, access: &Access, id: &str) -> CoursesResult<Completion> {
        self.store.completion(&access.workspace.id, id).await?.ok_or(CoursesError::not_found("completion"))
    }

    pub async fn delete_completion(&self, access: &Access, id: &str) -> CoursesResult<()> {
        if self.store.delete_by_id(Table::Completions, &access.workspace.id, id).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found("completion"))
        }
    }

    pub fn list_completions(&self, access: &Access, page: ListRequest) -> mpsc::Receiver<ListItem<Completion>> {
        self.store.stream::<CompletionRow, Completion>(
            format!("SELECT {COMPLETION_COLUMNS} FROM completions WHERE workspace_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3"),
            vec![Bind::Text(access.workspace.id.clone())],
            page.limit,
            page.offset,
        )
    }

    // ---- certificates ----

    /// Issues the learner's certificate for a course (one per learner and
    /// course: asking again returns the first). Refused when the learner's
    /// best completion does not meet the course's passing score.
    async fn issue(&self, course: &Course, identity: &Identity) -> CoursesResult<(IssuedCertificate, bool)> {
        let best = self
            .store
            .best_completion(&course.workspace_id, &course.id, &identity.id)
            .await?
            .ok_or(CoursesError::NotCompleted)?;
        if !best.passed {
            return Err(CoursesError::PassingScoreNotMet {
                score: best.score,
                passing: course.passing_score.unwrap_or(0),
            });
        }
        let cert = IssuedCertificate {
            id: content::new_id("cert"),
            workspace_id: course.workspace_id.clone(),
            course_id: course.id.clone(),
            identity_id: identity.id.clone(),
            completion_id: best.id,
            template_id: course.certificate_id.clone(),
            learner_name: identity
                .name
                .clone()
                .or_else(|| identity.email.clone())
                .unwrap_or_else(|| identity.external_id.clone()),
            course_title: course.title.clone(),
            score: best.score,
            issued_at: self.clock.now(),
        };
        let data = serde_json::json!({
            "id": cert.id, "courseId": cert.course_id, "identityId": cert.identity_id, "learnerName": cert.learner_name,
            "score": cert.score, "issuedAt": cert.issued_at.to_rfc3339(),
        });
        let messages = self.outbox(&cert.workspace_id, "certificate.issued").await?.messages(&data);
        // The messages are written only with a new certificate.
        let (cert, is_new) = self.store.issue_certificate(&cert, &messages).await?;
        Ok((cert, is_new))
    }

    /// `POST /issued-certificates`: `{courseId, identityId}`.
    pub async fn issue_certificate(
        &self,
        access: &Access,
        body: &Map<String, Value>,
    ) -> CoursesResult<(IssuedCertificate, bool)> {
        let course_id = required_id(body, "courseId")?;
        let identity_id = required_id(body, "identityId")?;
        let course = self.store.course(&access.workspace.id, &course_id).await?;
        let identity = self.store.identity(&access.workspace.id, &identity_id).await?;
        let mut issues = Issues::default();
        if course.is_none() {
            issues.push(code::UNKNOWN_REFERENCE, &[], Some("courseId"), "courseId is not a course of this workspace");
        }
        if identity.is_none() {
            issues.push(
                code::UNKNOWN_REFERENCE,
                &[],
                Some("identityId"),
                "identityId is not an identity of this workspace",
            );
        }
        issues.finish(())?;
        match (course, identity) {
            (Some(course), Some(identity)) => self.issue(&course, &identity).await,
            _ => Err(CoursesError::not_found("course")),
        }
    }

    pub async fn certificate(&self, access: &Access, id: &str) -> CoursesResult<IssuedCertificate> {
        self.store.certificate(&access.workspace.id, id).await?.ok_or(CoursesError::not_found("issued certificate"))
    }

    pub async fn delete_certificate(&self, access: &Access, id: &str) -> CoursesResult<()> {
        if self.store.delete_by_id(Table::Certificates, &access.workspace.id, id).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found("issued certificate"))
        }
    }

    pub fn list_certificates(&self, access: &Access, page: ListRequest) -> mpsc::Receiver<ListItem<IssuedCertificate>> {
        self.store.stream::<CertificateRow, IssuedCertificate>(
            format!("SELECT {CERTIFICATE_COLUMNS} FROM issued_certificates WHERE workspace_id = $1 ORDER BY issued_at, id LIMIT $2 OFFSET $3"),
            vec![Bind::Text(access.workspace.id.clone())],
            page.limit,
            page.offset,
        )
    }

    /// The certificate rendered as a PDF from its template (or the built-in
    /// design), in the font, logo and accent colour of its course's theme.
    /// Templates and themes apply only while the workspace's plan has them;
    /// below it the built-in design is used, and both return on upgrade.
    pub async fn certificate_pdf(&self, cert: &IssuedCertificate) -> CoursesResult<Vec<u8>> {
        let plan = self.workspace(&cert.workspace_id).await?.plan;
        let template = match &cert.template_id {
            Some(id) if plan.allows(Feature::CertificateTemplates) => {
                self.store.resource(&cert.workspace_id, ResourceKind::CertificateTemplate, id).await?
            }
            _ => None,
        };
        let course = self.store.course(&cert.workspace_id, &cert.course_id).await?;
        let theme = self.certificate_theme(&cert.workspace_id, plan, course.as_ref()).await?;
        let files = self.certificate_files(&cert.workspace_id, theme.as_ref()).await?;
        let look = files.look(theme.as_ref());
        Ok(crate::pdf::render_certificate(cert, template.as_ref().map(|t| &t.data), look))
    }

    /// The font and logo files a theme names, for its certificates.
    async fn certificate_files(
        &self,
        workspace_id: &str,
        theme: Option<&crate::Resource>,
    ) -> CoursesResult<ThemeFiles> {
        let Some(theme) = theme else { return Ok(ThemeFiles::default()) };
        Ok(ThemeFiles {
            font: self.theme_file(workspace_id, theme, "fontMediaId").await?.map(|(_, b)| b),
            logo: self.theme_file(workspace_id, theme, "logoMediaId").await?.map(|(_, b)| b),
        })
    }

    /// The theme a course gives its certificates: its own, while the plan
    /// has themes.
    async fn certificate_theme(
        &self,
        workspace_id: &str,
        plan: crate::Plan,
        course: Option<&Course>,
    ) -> CoursesResult<Option<crate::Resource>> {
        match course.and_then(|c| c.theme_id.as_deref()) {
            Some(id) if plan.allows(Feature::Themes) => {
                Ok(self.store.resource(workspace_id, ResourceKind::Theme, id).await?)
            }
            _ => Ok(None),
        }
    }

    /// The certificate template editor's preview: `template` (a template's
    /// fields as the editor holds them, saved or not) printed for a sample
    /// certificate of `learner_name` with a score of 92 % today, for
    /// `course_id`'s title and theme when given (else "A sample course"
    /// in the built-in look). Certificate templates are Scale and up, as
    /// over the API; the template's fields are checked by the API's rules.
    pub async fn preview_certificate(
        &self,
        access: &crate::Access,
        template: &Map<String, Value>,
        course_id: Option<&str>,
        learner_name: &str,
    ) -> CoursesResult<Vec<u8>> {
        self.gate(access, ResourceKind::CertificateTemplate)?;
        self.check_resource(access, ResourceKind::CertificateTemplate, template).await?;
        let ws = &access.workspace;
        let course = match course_id {
            Some(id) => Some(self.store.course(&ws.id, id).await?.ok_or(CoursesError::not_found("course"))?),
            None => None,
        };
        let cert = IssuedCertificate {
            id: "cert_preview".to_owned(),
            workspace_id: ws.id.clone(),
            course_id: course.as_ref().map(|c| c.id.clone()).unwrap_or_default(),
            identity_id: String::new(),
            completion_id: String::new(),
            template_id: None,
            learner_name: learner_name.to_owned(),
            course_title: course.as_ref().map_or_else(|| "A sample course".to_owned(), |c| c.title.clone()),
            score: Some(92.0),
            issued_at: self.clock.now(),
        };
        let theme = self.certificate_theme(&ws.id, ws.plan, course.as_ref()).await?;
        let files = self.certificate_files(&ws.id, theme.as_ref()).await?;
        let look = files.look(theme.as_ref());
        Ok(crate::pdf::render_certificate(&cert, Some(template), look))
    }

    // ---- the public embed ----

    /// Opens a published course: for the learner a signed link names,
    /// counts one course view (each opening counts) and hands out the view
    /// id that records their completion; for a link without a learner (an
    /// anonymous preview), records nothing and counts one view per visitor
    /// (`client`) per UTC day. A draft answers exactly like a missing
    /// course; a learner without a valid signature is refused.
    ///
    /// With `locale`, a translation of the course for that language (Scale
    /// and up) is applied to what the learner sees.
    pub async fn open_embed(
        &self,
        course_id: &str,
        link: &crate::embed_links::EmbedParams,
        locale: Option<&str>,
        client: Option<std::net::IpAddr>,
    ) -> CoursesResult<EmbedSession> {
        let course = self
            .store
            .course_by_id(course_id)
            .await?
            .filter(|c| c.status == CourseStatus::Published)
            .ok_or(CoursesError::not_found("course"))?;
        let ws = self.store.workspace(&course.workspace_id).await?.ok_or(CoursesError::not_found("course"))?;
        let now = self.clock.now();
        self.check_standing(&ws, now).await?;
        let trimmed = crate::embed_links::EmbedParams {
            learner: link.learner.as_deref().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned),
            ..link.clone()
        };
        let learner = match self.verified_learner(&ws.id, &course.id, &trimmed).await? {
            Some(external_id) => parse_identities(
                &serde_json::json!({ "identities": [{ "externalId": external_id }] })
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            )?
            .pop(),
            None => None,
        };
        let month = plans::month_of(now);
        let cap = ws.plan.hard_capped().then(|| ws.plan.course_views());
        let allowance_used = || {
            CoursesError::Suspended(Suspension::AllowanceUsed {
                plan: ws.plan,
                allowance: ws.plan.course_views(),
                month: month.clone(),
                resets_at: plans::next_month_start(now),
            })
        };
        let (view_id, identity) = match &learner {
            Some(item) => {
                let messages = self.identity_messages(&ws.id, std::slice::from_ref(item)).await?;
                let view_id = format!("view_{}", platform::crypto::random_token(24));
                let opening = View { workspace_id: ws.id.clone(), course_id: course.id.clone(), identity_id: None };
                let Some(identity) = self
                    .store
                    .open_view(
                        &view_id,
                        &opening,
                        Some(item),
                        messages.first().map_or(&[][..], Vec::as_slice),
                        ViewAllowance { month: &month, cap },
                        now,
                    )
                    .await?
                else {
                    return Err(allowance_used());
                };
                (Some(view_id), identity)
            }
            None => {
                let day = Self::day_of(now);
                let visitor = self.preview_visitor(client, &day);
                if self
                    .store
                    .open_preview(&ws.id, &course.id, &visitor, &day, ViewAllowance { month: &month, cap }, now)
                    .await?
                    .is_none()
                {
                    return Err(allowance_used());
                }
                (None, None)
            }
        };
        self.session_of(&ws, course, locale, view_id, identity).await
    }

    /// The studio's preview of a course, draft or published, as the learner
    /// player shows it: a member of the workspace sees it, nothing is
    /// recorded and no course view is counted (the seed counts openings by
    /// learners).
    pub async fn studio_preview(
        &self,
        me: &crate::members::SignedIn,
        course_id: &str,
        locale: Option<&str>,
    ) -> CoursesResult<EmbedSession> {
        let course = self.course(&me.access, course_id).await?;
        self.session_of(&me.access.workspace, course, locale, None, None).await
    }

    /// What the player gets for `course` in `ws`: its screens without the
    /// answers, with the theme and the translation the plan allows.
    async fn session_of(
        &self,
        ws: &crate::model::Workspace,
        course: Course,
        locale: Option<&str>,
        view_id: Option<String>,
        identity: Option<Identity>,
    ) -> CoursesResult<EmbedSession> {
        // Themes and translations apply only while the plan has them: after
        // a downgrade the original course shows, never a partly themed or
        // partly translated one, and both return on upgrade (nothing is
        // deleted).
        let theme = match &course.theme_id {
            Some(id) if ws.plan.allows(Feature::Themes) => self.store.resource(&ws.id, ResourceKind::Theme, id).await?,
            _ => None,
        };
        let translation = match locale.map(str::trim).filter(|l| !l.is_empty()) {
            Some(locale) if ws.plan.allows(Feature::Translations) => {
                let all = self.store.resources_of_kind(&ws.id, ResourceKind::Translation).await?;
                crate::translate::pick(&all, &course.id, locale).cloned()
            }
            _ => None,
        };
        let strings = translation
            .as_ref()
            .and_then(|t| t.data.get("strings"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let (title, screens) = crate::translate::apply(&course.title, &course.screens, &strings);
        let screens = content::learner_view(&screens);
        Ok(EmbedSession {
            view_id,
            title,
            locale: translation.as_ref().and_then(|t| t.data.get("locale")).and_then(Value::as_str).map(str::to_owned),
            ui: crate::translate::ui_strings(&strings),
            scorm_state: match &identity {
                Some(identity) => self.store.scorm_state(&course.id, &identity.id).await?,
                None => Map::new(),
            },
            course,
            screens,
            identity,
            theme,
        })
    }

    async fn view_context(&self, view_id: &str) -> CoursesResult<(Course, Identity)> {
        let view = self
            .store
            .view(view_id, self.clock.now().plus_millis(-VIEW_TTL_MS))
            .await?
            .ok_or(CoursesError::not_found("course view"))?;
        let course =
            self.store.course(&view.workspace_id, &view.course_id).await?.ok_or(CoursesError::not_found("course"))?;
        let identity_id = view.identity_id.ok_or_else(|| {
            CoursesError::field(
                &["learner"],
                code::REQUIRED,
                "this is an anonymous preview; open the course with a signed learner link to record completions",
            )
        })?;
        let identity =
            self.store.identity(&view.workspace_id, &identity_id).await?.ok_or(CoursesError::not_found("identity"))?;
        Ok((course, identity))
    }

    /// Immediate feedback for one question of a view's course.
    pub async fn check_view_answer(&self, view_id: &str, body: &Map<String, Value>) -> CoursesResult<bool> {
        let view = self
            .store
            .view(view_id, self.clock.now().plus_millis(-VIEW_TTL_MS))
            .await?
            .ok_or(CoursesError::not_found("course view"))?;
        let course =
            self.store.course(&view.workspace_id, &view.course_id).await?.ok_or(CoursesError::not_found("course"))?;
        // Answers are checked one by one only where the course gives
        // immediate feedback; elsewhere this would reveal them.
        if course.settings.get("quizFeedback").and_then(Value::as_str) != Some("immediate") {
            return Err(CoursesError::not_found("immediate feedback for this course"));
        }
        let block_id = required_id(body, "blockId")?;
        let answer = body.get("answer").cloned().unwrap_or(Value::Null);
        content::check_answer(&course.screens, &block_id, &answer).ok_or(CoursesError::not_found("question"))
    }

    /// The player's completion: graded on the server from the answers,
    /// with the review of each question for the results screen (the right
    /// answers reach the browser only once the attempt is recorded). A
    /// course whose `retry` setting is `never` records one attempt per
    /// learner; the API's `POST /completions` is the operator's and is not
    /// bound by it.
    pub async fn complete_view(
        &self,
        view_id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<(Completion, Vec<Value>)> {
        let (course, identity) = self.view_context(view_id).await?;
        let answers = parse_answers(body)?;
        if !course.allows_retry()
            && self.store.best_completion(&course.workspace_id, &course.id, &identity.id).await?.is_some()
        {
            return Err(CoursesError::RetryNotAllowed);
        }
        let review = content::review(&course.screens, &answers);
        Ok((self.complete(&course, &identity.id, answers).await?, review))
    }

    /// Saves what a SCO of the view's course committed (`{blockId, data}`),
    /// so the learner resumes there on their next opening.
    pub async fn save_view_scorm_state(&self, view_id: &str, body: &Map<String, Value>) -> CoursesResult<()> {
        let (course, identity) = self.view_context(view_id).await?;
        let block_id = required_id(body, "blockId")?;
        let is_sco = content::blocks(&course.screens).any(|b| {
            b.get("id").and_then(Value::as_str) == Some(block_id.as_str())
                && b.get("type").and_then(Value::as_str) == Some("scorm")
        });
        if !is_sco {
            return Err(CoursesError::field(
                &["blockId"],
                code::UNKNOWN_REFERENCE,
                "blockId is not a SCORM block of this course",
            ));
        }
        let data = scorm_state(body.get("data"))?;
        let now = self.clock.now();
        Ok(self.store.save_scorm_state(&course.workspace_id, &course.id, &identity.id, &block_id, &data, now).await?)
    }

    /// The player's certificate request for the learner of a view.
    pub async fn certificate_for_view(&self, view_id: &str) -> CoursesResult<(IssuedCertificate, bool)> {
        let (course, identity) = self.view_context(view_id).await?;
        self.issue(&course, &identity).await
    }
}

/// The bytes of a theme's font and logo, read for a certificate.
#[derive(Default)]
struct ThemeFiles {
    font: Option<bytes::Bytes>,
    logo: Option<bytes::Bytes>,
}

impl ThemeFiles {
    fn look<'a>(&'a self, theme: Option<&'a crate::Resource>) -> crate::pdf::Look<'a> {
        crate::pdf::Look {
            font: self.font.as_deref(),
            logo: self.logo.as_deref(),
            accent: theme.and_then(|t| t.data.get("accentColor")).and_then(Value::as_str),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn bulk_batches_are_bounded_and_checked() {
        let many: Vec<Value> = (0..=BULK_LIMIT).map(|i| json!({ "externalId": format!("u{i}") })).collect();
        let err = parse_identities(json!({ "identities": many }).as_object().unwrap()).unwrap_err();
        let CoursesError::Invalid { issues, .. } = err else { panic!() };
        assert_eq!((issues[0].code, issues[0].path.clone()), ("too_big", vec!["identities".to_owned()]));
        let ok: Vec<Value> = (0..BULK_LIMIT).map(|i| json!({ "externalId": format!("u{i}") })).collect();
        assert_eq!(parse_identities(json!({ "identities": ok }).as_object().unwrap()).unwrap().len(), BULK_LIMIT);
        let err = parse_identities(
            json!({ "identities": [{ "externalId": "a" }, { "externalId": "a" }, { "email": "x" }] })
                .as_object()
                .unwrap(),
        )
        .unwrap_err();
        let CoursesError::Invalid { issues, .. } = err else { panic!() };
        let paths: Vec<String> = issues.iter().map(|i| i.path.join(".")).collect();
        assert_eq!(paths, ["identities.1.externalId", "identities.2.externalId"]);
    }

    #[test]
    fn saved_scorm_state_keeps_known_elements_within_their_sizes() {
        let saved = scorm_state(Some(
            &json!({ "cmi.suspend_data": "p=3", "cmi.core.lesson_status": "incomplete", "cmi.interactions.0.id": "q" }),
        ))
        .unwrap();
        assert_eq!(Value::Object(saved), json!({ "cmi.suspend_data": "p=3", "cmi.core.lesson_status": "incomplete" }));
        let long = "x".repeat(content::MAX_SUSPEND_DATA_CHARS + 1);
        let Err(CoursesError::Invalid { issues, .. }) =
            scorm_state(Some(&json!({ "cmi.suspend_data": long, "cmi.location": 3 })))
        else {
            panic!()
        };
        let found: Vec<(String, &str)> = issues.iter().map(|i| (i.path.join("."), i.code)).collect();
        assert_eq!(
            found,
            [("data.cmi.suspend_data".to_owned(), "too_big"), ("data.cmi.location".to_owned(), "invalid_type")]
        );
        assert!(scorm_state(Some(&json!("x"))).is_err() && scorm_state(None).is_err());
        let many: Map<String, Value> = (0..17).map(|i| (format!("cmi.x{i}"), json!("v"))).collect();
        assert!(scorm_state(Some(&Value::Object(many))).is_err(), "at most 16 elements, as documented");
    }
}
