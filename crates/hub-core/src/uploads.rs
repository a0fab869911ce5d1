//! Per-project upload tokens: the credential a CI job uses to push specs of
//! one project without a personal access token.
//!
//! The token (`svc_` without `pat_`) is minted on rotation, shown once and
//! stored as a SHA-256 hash on the project row; it is never part of a project
//! response. A push with it acts as the project's owner and can create and
//! replace versions, but not previews (those stay with personal tokens, as
//! the command-line tool's routing rule says).

use kernel::Secret;
use platform::crypto::constant_time_eq;

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult, TokenRejection};
use crate::model::{Principal, Source};
use crate::roles::Action;
use crate::tokens::{hash_upload_bearer, mint_upload_token};
use crate::versions::{PushOutcome, PushVersion};

impl Hub {
    /// Mints a new upload token for the project, replacing the previous one.
    pub async fn rotate_upload_token(
        &self,
        principal: &Principal,
        slug: &str,
        source: Source,
    ) -> HubResult<Secret<String>> {
        let found = self.authorize_project(principal, slug, Action::RotateUploadToken).await?;
        let minted = mint_upload_token();
        let audit = self.audit_row(
            &found.project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::UploadTokenRotated, "project", &found.project.id)
                .project(&found.project.id)
                .meta("display", minted.display.as_str()),
        );
        self.store
            .set_upload_token_hash(
                &found.project.id,
                &minted.hash,
                &principal.user_id,
                self.clock.now(),
                audit.as_ref(),
            )
            .await?;
        Ok(minted.plaintext)
    }

    /// Checks an upload token against the project `slug`; the result is the
    /// only way to call [`Hub::push_with_upload_token`].
    pub async fn authenticate_upload(&self, slug: &str, authorization: Option<&str>) -> HubResult<UploadCaller> {
        let presented = hash_upload_bearer(authorization).map_err(HubError::InvalidToken)?;
        let (owner, stored) =
            self.store.upload_credentials(slug).await?.ok_or(HubError::InvalidToken(TokenRejection::Unknown))?;
        if stored.is_some_and(|hash| constant_time_eq(hash.as_bytes(), presented.as_bytes())) {
            Ok(UploadCaller { owner, slug: slug.to_owned() })
        } else {
            Err(HubError::InvalidToken(TokenRejection::Unknown))
        }
    }

    /// Pushes a spec as the owner of the project the upload token belongs to.
    pub async fn push_with_upload_token(&self, caller: &UploadCaller, push: PushVersion) -> HubResult<PushOutcome> {
        if push.preview {
            return Err(HubError::validation(
                "preview",
                "previews need a personal access token (svc_pat_...); upload tokens push regular versions",
            ));
        }
        self.push_version(&caller.owner, &caller.slug, push, Source::Api).await
    }
}

impl UploadCaller {
    /// The project owner this token acts as.
    pub const fn owner(&self) -> &Principal {
        &self.owner
    }
}

/// A request authenticated by a project's upload token.
#[derive(Debug, Clone)]
pub struct UploadCaller {
    owner: Principal,
    slug: String,
}
