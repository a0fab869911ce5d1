//! The demo account a fresh hub starts with, so a new user sees real docs,
//! a real token and a real version history within seconds.

use std::sync::Arc;

use kernel::Secret;

use crate::Hub;
use crate::error::HubResult;
use crate::model::Source;
use crate::plans::Plan;
use crate::projects::CreateProject;
use crate::versions::PushVersion;

pub const DEMO_EMAIL: &str = "demo@example.com";
pub const DEMO_PROJECT_SLUG: &str = "bookshelf";
/// The demo project's spec: written for this project, shipped in the binary.
pub const DEMO_SPEC: &str = include_str!("../demo/bookshelf.openapi.yaml");

/// Credentials of a freshly seeded demo account, printed once by `svc serve`.
pub struct DemoAccount {
    pub email: String,
    pub password: Secret<String>,
    pub token: Secret<String>,
    pub project_slug: String,
}

impl Hub {
    /// Seeds the demo account when the store has no users yet; returns its
    /// credentials, or `None` when the store was not empty.
    pub async fn seed_demo_if_empty(&self) -> HubResult<Option<DemoAccount>> {
        if self.store.user_count().await? > 0 {
            return Ok(None);
        }
        let password = Secret::new(platform::crypto::random_token(12));
        let user = self.create_user(DEMO_EMAIL, Plan::Business, Some(&password)).await?;
        let (_, token) = self.create_token(DEMO_EMAIL, "demo", None, Source::System).await?;
        let principal =
            crate::Principal { user_id: user.id, email: user.email.clone(), plan: user.plan, token_id: None };
        let project = self
            .create_project(
                &principal,
                CreateProject {
                    name: "Bookshelf".to_owned(),
                    slug: Some(DEMO_PROJECT_SLUG.to_owned()),
                    is_public: Some(true),
                    base_url: Some("https://bookshelf.example.com/v1".to_owned()),
                },
                Source::System,
            )
            .await?;
        self.push_version(
            &principal,
            &project.slug,
            PushVersion {
                label: Some("1.0.0".to_owned()),
                make_default: true,
                preview: false,
                pr: None,
                commit: None,
                branch: None,
                body: Arc::from(DEMO_SPEC.as_bytes()),
            },
            Source::System,
        )
        .await?;
        Ok(Some(DemoAccount { email: user.email, password, token, project_slug: project.slug }))
    }
}
