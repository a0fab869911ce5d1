//! Themes, certificate templates, translations, collections and webhooks:
//! small JSON documents with a few checked fields each. Unknown fields are
//! stored without effect, like everywhere else in the service.

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use crate::courses::ListRequest;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, child, code};
use crate::model::{Access, ListItem, Resource, ResourceKind};
use crate::plans::Feature;
use crate::store::{Bind, RESOURCE_COLUMNS, ResourceRow};
use crate::{Courses, content};

/// Where a webhook's signing secret is kept inside its document; never
/// returned after creation.
pub const WEBHOOK_SECRET_FIELD: &str = "_signingSecret";

/// The events a webhook may subscribe to.
pub const WEBHOOK_EVENTS: [&str; 4] =
    ["course.published", "completion.created", "certificate.issued", "identity.created"];

const fn feature(kind: ResourceKind) -> Option<Feature> {
    match kind {
        ResourceKind::Theme => Some(Feature::Themes),
        ResourceKind::CertificateTemplate => Some(Feature::CertificateTemplates),
        ResourceKind::Translation => Some(Feature::Translations),
        ResourceKind::Collection | ResourceKind::Webhook => None,
    }
}

fn string_field(body: &Map<String, Value>, name: &str, required: bool, max: usize, issues: &mut Issues) {
    match body.get(name) {
        Some(Value::String(s)) if s.trim().is_empty() && required => {
            issues.push(code::TOO_SMALL, &[], Some(name), format!("{name} must not be empty"));
        }
        Some(Value::String(s)) if s.chars().count() > max => {
            issues.push(code::TOO_BIG, &[], Some(name), format!("{name} is at most {max} characters"));
        }
        Some(Value::String(_)) => {}
        None | Some(Value::Null) if !required => {}
        None | Some(Value::Null) => issues.push(code::REQUIRED, &[], Some(name), format!("{name} is required")),
        Some(_) => issues.push(code::INVALID_TYPE, &[], Some(name), format!("{name} must be a string")),
    }
}

/// `#rgb` or `#rrggbb`.
pub fn is_hex_colour(text: &str) -> bool {
    text.strip_prefix('#').is_some_and(|hex| matches!(hex.len(), 3 | 6) && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl Courses {
    pub(crate) fn gate(&self, access: &Access, kind: ResourceKind) -> CoursesResult<()> {
        feature(kind).map_or(Ok(()), |f| self.require(access, f))
    }

    /// Checks the merged document of a resource (creating or updating).
    pub(crate) async fn check_resource(
        &self,
        access: &Access,
        kind: ResourceKind,
        doc: &Map<String, Value>,
    ) -> CoursesResult<()> {
        let mut issues = Issues::default();
        match kind {
            ResourceKind::Theme | ResourceKind::Collection | ResourceKind::CertificateTemplate => {
                string_field(doc, "name", true, 200, &mut issues);
            }
            ResourceKind::Translation => {
                string_field(doc, "locale", true, 35, &mut issues);
                string_field(doc, "courseId", true, 100, &mut issues);
                if !matches!(doc.get("strings"), None | Some(Value::Object(_))) {
                    issues.push(code::INVALID_TYPE, &[], Some("strings"), "strings must be an object");
                }
            }
            ResourceKind::Webhook => {
                match doc.get("url").and_then(Value::as_str) {
                    Some(u) if u.starts_with("https://") || u.starts_with("http://") => {
                        // An address the sender would refuse is refused now;
                        // host names are judged by their addresses at send time.
                        if let Err(err) = self.outbound.precheck(u) {
                            issues.push(code::INVALID_VALUE, &[], Some("url"), err.to_string());
                        }
                    }
                    Some(_) => issues.push(code::INVALID_VALUE, &[], Some("url"), "url must be an http or https URL"),
                    None => issues.push(code::REQUIRED, &[], Some("url"), "url is required"),
                }
                match doc.get("events") {
                    Some(Value::Array(events)) if !events.is_empty() => {
                        for (i, e) in events.iter().enumerate() {
                            if !e.as_str().is_some_and(|e| WEBHOOK_EVENTS.contains(&e)) {
                                issues.push(
                                    code::INVALID_VALUE,
                                    &child(&["events".to_owned()], i),
                                    None,
                                    format!("events are {}", WEBHOOK_EVENTS.join(", ")),
                                );
                            }
                        }
                    }
                    _ => issues.push(
                        code::REQUIRED,
                        &[],
                        Some("events"),
                        format!("events must list one or more of {}", WEBHOOK_EVENTS.join(", ")),
                    ),
                }
            }
        }
        if kind == ResourceKind::Theme {
            // The player and the exports put it into a stylesheet: only a
            // colour may go there.
            match doc.get("accentColor") {
                None | Some(Value::Null) => {}
                Some(Value::String(c)) if is_hex_colour(c) => {}
                Some(_) => issues.push(
                    code::INVALID_VALUE,
                    &[],
                    Some("accentColor"),
                    "accentColor is a colour such as #2f4f8f (# and 3 or 6 hexadecimal digits)",
                ),
            }
        }
        if kind == ResourceKind::CertificateTemplate {
            string_field(doc, "title", false, 200, &mut issues);
            string_field(doc, "body", false, 2000, &mut issues);
        }
        issues.finish(())?;
        // References must stay inside the workspace.
        let mut issues = Issues::default();
        if kind == ResourceKind::Translation
            && let Some(id) = doc.get("courseId").and_then(Value::as_str)
            && self.store.course(&access.workspace.id, id).await?.is_none()
        {
            issues.push(code::UNKNOWN_REFERENCE, &[], Some("courseId"), "courseId is not a course of this workspace");
        }
        if kind == ResourceKind::Theme {
            // A theme's font and logo are files the workspace uploaded, of
            // the right kind.
            for (field, wanted) in
                [("fontMediaId", crate::media::MediaKind::Font), ("logoMediaId", crate::media::MediaKind::Image)]
            {
                match doc.get(field) {
                    None | Some(Value::Null) => {}
                    Some(Value::String(id)) => {
                        let found = self.store.media_by_id(id).await?;
                        if !found.is_some_and(|m| m.workspace_id == access.workspace.id && m.kind == wanted) {
                            issues.push(
                                code::UNKNOWN_REFERENCE,
                                &[],
                                Some(field),
                                format!("{field} is not an uploaded {} of this workspace", wanted.as_str()),
                            );
                        }
                    }
                    Some(_) => issues.push(code::INVALID_TYPE, &[], Some(field), format!("{field} must be a media id")),
                }
            }
        }
        if kind == ResourceKind::Collection {
            match doc.get("courseIds") {
                None | Some(Value::Null) => {}
                Some(Value::Array(ids)) => {
                    for (i, id) in ids.iter().enumerate() {
                        let known = match id.as_str() {
                            Some(id) => self.store.course(&access.workspace.id, id).await?.is_some(),
                            None => false,
                        };
                        if !known {
                            issues.push(
                                code::UNKNOWN_REFERENCE,
                                &child(&["courseIds".to_owned()], i),
                                None,
                                "not a course of this workspace",
                            );
                        }
                    }
                }
                Some(_) => {
                    issues.push(code::INVALID_TYPE, &[], Some("courseIds"), "courseIds must be an array of course ids")
                }
            }
        }
        issues.finish(())
    }

    /// Creates a resource. A webhook's signing secret is returned here only.
    pub async fn create_resource(
        &self,
        access: &Access,
        kind: ResourceKind,
        body: &Map<String, Value>,
    ) -> CoursesResult<(Resource, Option<String>)> {
        self.gate(access, kind)?;
        let mut data = body.clone();
        for key in
            ["id", "createdAt", "updatedAt", "workspaceId", WEBHOOK_SECRET_FIELD, crate::webhooks::WEBHOOK_SIGNING_KEY]
        {
            data.remove(key);
        }
        self.check_resource(access, kind, &data).await?;
        let secret = (kind == ResourceKind::Webhook).then(crate::webhooks::new_secret);
        if let Some((_, key)) = &secret {
            // Sealed at rest: the service must read it back to sign, so it
            // cannot be hashed; the plaintext is returned only in this answer.
            data.insert(crate::webhooks::WEBHOOK_SIGNING_KEY.to_owned(), Value::String(self.seal_signing_key(key)));
        }
        let secret = secret.map(|(s, _)| s);
        let now = self.clock.now();
        let resource = Resource {
            id: content::new_id(kind.id_prefix()),
            workspace_id: access.workspace.id.clone(),
            kind,
            data,
            created_at: now,
            updated_at: now,
        };
        self.store.insert_resource(&resource).await?;
        Ok((resource, secret))
    }

    pub async fn resource(&self, access: &Access, kind: ResourceKind, id: &str) -> CoursesResult<Resource> {
        self.gate(access, kind)?;
        self.store.resource(&access.workspace.id, kind, id).await?.ok_or(CoursesError::not_found(kind.noun()))
    }

    pub fn list_resources(
        &self,
        access: &Access,
        kind: ResourceKind,
        page: ListRequest,
    ) -> CoursesResult<mpsc::Receiver<ListItem<Resource>>> {
        self.gate(access, kind)?;
        Ok(self.store.stream::<ResourceRow, Resource>(
            format!("SELECT {RESOURCE_COLUMNS} FROM resources WHERE workspace_id = $1 AND kind = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4"),
            vec![Bind::Text(access.workspace.id.clone()), Bind::Text(kind.as_str().to_owned())],
            page.limit,
            page.offset,
        ))
    }

    /// Merges `body` into the resource (a `null` removes a field).
    pub async fn update_resource(
        &self,
        access: &Access,
        kind: ResourceKind,
        id: &str,
        body: &Map<String, Value>,
    ) -> CoursesResult<Resource> {
        let mut resource = self.resource(access, kind, id).await?;
        for (k, v) in body {
            if [
                "id",
                "createdAt",
                "updatedAt",
                "workspaceId",
                WEBHOOK_SECRET_FIELD,
                crate::webhooks::WEBHOOK_SIGNING_KEY,
            ]
            .contains(&k.as_str())
            {
                continue;
            }
            if v.is_null() {
                resource.data.remove(k);
            } else {
                resource.data.insert(k.clone(), v.clone());
            }
        }
        self.check_resource(access, kind, &resource.data).await?;
        resource.updated_at = self.clock.now();
        self.store.update_resource(&resource).await?;
        Ok(resource)
    }

    pub async fn delete_resource(&self, access: &Access, kind: ResourceKind, id: &str) -> CoursesResult<()> {
        self.gate(access, kind)?;
        if self.store.delete_resource(&access.workspace.id, kind, id).await? {
            Ok(())
        } else {
            Err(CoursesError::not_found(kind.noun()))
        }
    }
}
