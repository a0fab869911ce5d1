//! Client SDKs of a project's version (Pro and up, 60 requests per minute
//! per project, a budget separate from diffs').

use crate::Hub;
use crate::error::{HubError, HubResult};
use crate::model::Principal;
use crate::plans::{Feature, fixed};
use crate::roles::Action;

pub use sdkgen::Language;

/// A generated SDK: one source file.
#[derive(Debug, Clone)]
pub struct GeneratedSdk {
    /// The label of the version it was generated from.
    pub version: String,
    pub language: Language,
    /// A file name for the download (`petstore.ts`, `petstore.py`).
    pub file_name: String,
    pub source: String,
}

impl Hub {
    /// Generates the SDK of version `label` (the default version when
    /// `None`) in `language`. The same document always gives the same bytes.
    pub async fn generate_sdk(
        &self,
        principal: &Principal,
        slug: &str,
        language: Language,
        label: Option<&str>,
    ) -> HubResult<GeneratedSdk> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        if !found.owner_plan.allows(Feature::Sdks) {
            return Err(HubError::PlanRequired { feature: Feature::Sdks, current: found.owner_plan });
        }
        self.limit_per_project(&found.project.id, "sdk", fixed::SDK_DIFF_REQUESTS_PER_MINUTE).await?;
        let (version, document) = match label {
            Some(label) => self.version_document(principal, slug, label).await?,
            None => self.default_document(principal, slug).await?,
        };
        let limits = self.spec_limits.clone();
        // Parsing and generating for a large document is CPU work: off the async workers.
        let source = tokio::task::spawn_blocking(move || {
            let spec = spec::parse_with(&document, &limits).map_err(HubError::InvalidSpec)?;
            sdkgen::generate(&spec, language).map_err(|e| HubError::validation("version", e.to_string()))
        })
        .await
        .map_err(|e| HubError::Internal(format!("sdk task failed: {e}")))??;
        Ok(GeneratedSdk { version: version.label, language, file_name: language.file_name(slug), source })
    }
}
