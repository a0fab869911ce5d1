//! The developer page's use cases: a listener registers OAuth apps of their
//! own (a name, redirect URIs, the flows it may use), sees them with their
//! client ids, rotates an app's secret (the new one is shown once: only its
//! hash is kept, and the old one stops working at once) and deletes an app
//! (its codes and tokens go with it). Another listener's app is unknown to
//! them, exactly like a missing one. Apps the operator made with
//! `svc catalog app create` have no owner and appear on no developer page.

use kernel::{Secret, Timestamp};
use platform::crypto::sha256_hex;

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult, OAuthErrorKind};
use crate::oauth::valid_redirect_uri;
use crate::store::AppRow;

/// At most this many apps per listener.
pub const MAX_APPS_PER_USER: usize = 25;
/// At most this many redirect URIs per app.
pub const MAX_REDIRECT_URIS: usize = 10;

/// An OAuth flow an app may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Authorization code, the client authenticated with its secret.
    AuthorizationCode,
    /// Authorization code with PKCE and no secret (a public client).
    Pkce,
    /// Client credentials: catalog reads without a user.
    ClientCredentials,
}

impl Flow {
    pub const ALL: [Self; 3] = [Self::AuthorizationCode, Self::Pkce, Self::ClientCredentials];
    /// What apps made before flows were recorded may use: everything.
    pub const ALL_STORED: &'static str = "authorization_code,pkce,client_credentials";

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AuthorizationCode => "authorization_code",
            Self::Pkce => "pkce",
            Self::ClientCredentials => "client_credentials",
        }
    }

    pub fn parse(s: &str) -> CatalogResult<Self> {
        Self::ALL.into_iter().find(|f| f.as_str() == s).ok_or_else(|| {
            CatalogError::invalid(format!(
                "unknown flow {s:?}: the flows are authorization_code, pkce and client_credentials"
            ))
        })
    }

    fn stored(flows: &[Self]) -> String {
        Self::ALL.into_iter().filter(|f| flows.contains(f)).map(Self::as_str).collect::<Vec<_>>().join(",")
    }

    fn of(row: &AppRow) -> Vec<Self> {
        row.flows.split(',').filter_map(|f| Self::parse(f.trim()).ok()).collect()
    }

    /// Refuses a token request in a flow the app was not registered for.
    pub(crate) fn require(app: &AppRow, flow: Self) -> CatalogResult<()> {
        if Self::of(app).contains(&flow) {
            Ok(())
        } else {
            Err(CatalogError::oauth(
                OAuthErrorKind::UnauthorizedClient,
                format!("this app may not use the {} flow", flow.as_str()),
            ))
        }
    }
}

/// An app as its owner sees it (never its secret).
#[derive(Clone, Debug)]
pub struct DeveloperApp {
    pub client_id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub flows: Vec<Flow>,
    pub created_at: Timestamp,
}

impl From<AppRow> for DeveloperApp {
    fn from(row: AppRow) -> Self {
        Self {
            flows: Flow::of(&row),
            redirect_uris: serde_json::from_str(&row.redirect_uris).unwrap_or_default(),
            client_id: row.client_id,
            name: row.name,
            created_at: Timestamp::from_millis(row.created_at),
        }
    }
}

/// What the developer page's form asks for.
#[derive(Clone, Debug)]
pub struct NewApp {
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub flows: Vec<Flow>,
}

impl NewApp {
    /// The trimmed name and redirect URIs, once every rule holds: a name of
    /// 1 to 100 characters, at least one flow, a redirect URI for the
    /// authorization code flows, at most [`MAX_REDIRECT_URIS`] valid ones.
    fn validated(&self) -> CatalogResult<(String, Vec<String>)> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(CatalogError::invalid("the app name must be 1 to 100 characters"));
        }
        let uris: Vec<String> =
            self.redirect_uris.iter().map(|u| u.trim().to_owned()).filter(|u| !u.is_empty()).collect();
        if self.flows.is_empty() {
            return Err(CatalogError::invalid("choose at least one flow"));
        }
        let needs_redirect = self.flows.iter().any(|f| *f != Flow::ClientCredentials);
        if needs_redirect && uris.is_empty() {
            return Err(CatalogError::invalid("the authorization code flows need at least one redirect uri"));
        }
        if uris.len() > MAX_REDIRECT_URIS {
            return Err(CatalogError::invalid(format!("at most {MAX_REDIRECT_URIS} redirect uris")));
        }
        if let Some(bad) = uris.iter().find(|u| !valid_redirect_uri(u) || u.len() > 500) {
            return Err(CatalogError::invalid(format!("invalid redirect uri {bad:?}")));
        }
        Ok((name.to_owned(), uris))
    }
}

impl Catalog {
    /// The apps `user_id` made, oldest first.
    pub async fn developer_apps(&self, user_id: &str) -> CatalogResult<Vec<DeveloperApp>> {
        Ok(self.store.apps_of(user_id).await?.into_iter().map(DeveloperApp::from).collect())
    }

    /// Registers an app owned by `user_id`; its secret is returned once.
    pub async fn create_developer_app(
        &self,
        user_id: &str,
        app: &NewApp,
    ) -> CatalogResult<(DeveloperApp, Secret<String>)> {
        let (name, uris) = app.validated()?;
        if self.store.apps_of(user_id).await?.len() >= MAX_APPS_PER_USER {
            return Err(CatalogError::invalid(format!("at most {MAX_APPS_PER_USER} apps per listener")));
        }
        let secret = hex::encode(uuid::Uuid::new_v4().as_bytes());
        let row = AppRow {
            client_id: hex::encode(uuid::Uuid::new_v4().as_bytes()),
            name,
            secret_hash: sha256_hex(secret.as_bytes()),
            redirect_uris: serde_json::to_string(&uris).unwrap_or_else(|_| "[]".to_owned()),
            owner_id: Some(user_id.to_owned()),
            flows: Flow::stored(&app.flows),
            created_at: self.clock.now().as_millis(),
        };
        self.store.insert_app(&row, self.clock.now()).await?;
        Ok((DeveloperApp::from(row), Secret::new(secret)))
    }

    /// Changes the name, redirect URIs and flows of `user_id`'s app, checked
    /// as on creation; its secret, codes and tokens stay. A flow taken away
    /// refuses the app's next token request in it; a redirect URI taken
    /// away refuses the next authorization that names it.
    pub async fn update_developer_app(
        &self,
        user_id: &str,
        client_id: &str,
        app: &NewApp,
    ) -> CatalogResult<DeveloperApp> {
        let (name, uris) = app.validated()?;
        let uris_json = serde_json::to_string(&uris).unwrap_or_else(|_| "[]".to_owned());
        if !self.store.update_app(client_id, user_id, &name, &uris_json, &Flow::stored(&app.flows)).await? {
            return Err(CatalogError::NotFound("app"));
        }
        self.store.app(client_id).await?.map(DeveloperApp::from).ok_or(CatalogError::NotFound("app"))
    }

    /// How much of its rate limit `client_id` has spent (across nodes when
    /// the limiter is shared, else on this node).
    pub async fn app_rate_usage(&self, client_id: &str) -> crate::limits::RateUsage {
        self.limiter.usage(client_id, self.clock.now()).await
    }

    /// A new secret for `user_id`'s app, returned once; the old one stops
    /// working at once (tokens already issued stay valid).
    pub async fn rotate_app_secret(&self, user_id: &str, client_id: &str) -> CatalogResult<Secret<String>> {
        let secret = hex::encode(uuid::Uuid::new_v4().as_bytes());
        if self.store.set_app_secret(client_id, user_id, &sha256_hex(secret.as_bytes())).await? {
            Ok(Secret::new(secret))
        } else {
            Err(CatalogError::NotFound("app"))
        }
    }

    /// Deletes `user_id`'s app with every code and token issued to it.
    pub async fn delete_developer_app(&self, user_id: &str, client_id: &str) -> CatalogResult<()> {
        if self.store.delete_app(client_id, user_id).await? { Ok(()) } else { Err(CatalogError::NotFound("app")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app(name: &str, uris: &[&str], flows: &[Flow]) -> NewApp {
        NewApp {
            name: name.to_owned(),
            redirect_uris: uris.iter().map(|u| (*u).to_owned()).collect(),
            flows: flows.to_vec(),
        }
    }

    #[test]
    fn an_app_is_checked_before_it_is_made_or_changed() {
        let ok = app("  Night radio ", &[" http://127.0.0.1:8765/callback ", ""], &[Flow::Pkce]);
        assert_eq!(
            ok.validated().unwrap(),
            ("Night radio".to_owned(), vec!["http://127.0.0.1:8765/callback".to_owned()])
        );
        // Client credentials alone need no redirect URI.
        assert_eq!(app("Reader", &[], &[Flow::ClientCredentials]).validated().unwrap().1, Vec::<String>::new());
        let refused = |a: NewApp| a.validated().unwrap_err().to_string();
        assert!(refused(app(" ", &[], &[Flow::ClientCredentials])).contains("1 to 100 characters"));
        assert!(refused(app(&"n".repeat(101), &[], &[Flow::ClientCredentials])).contains("1 to 100 characters"));
        assert!(refused(app("A", &["http://127.0.0.1/cb"], &[])).contains("at least one flow"));
        assert!(refused(app("A", &[], &[Flow::AuthorizationCode])).contains("at least one redirect uri"));
        assert!(refused(app("A", &["not a uri"], &[Flow::Pkce])).contains("invalid redirect uri"));
        let many: Vec<String> = (0..11).map(|i| format!("http://127.0.0.1/cb{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(refused(app("A", &many, &[Flow::Pkce])).contains("at most 10 redirect uris"));
    }
}
