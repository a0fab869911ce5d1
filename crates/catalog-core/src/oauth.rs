//! OAuth 2.0 as Spotify clients speak it: registered apps, users who log in
//! on `/authorize`, authorization codes (with or without PKCE), refresh
//! tokens and client credentials.
//!
//! Client secrets, codes, access and refresh tokens are stored only as
//! SHA-256 hashes; passwords with argon2id (on the blocking pool, behind the
//! sign-in throttle).
//!
//! Refresh tokens rotate on every use. Every token descended from one code
//! is a *family*: presenting a token that was already rotated (a copy
//! someone kept) or replaying the code revokes the whole family, access
//! tokens included. Families end after [`REFRESH_IDLE_SECS`] unused and
//! [`REFRESH_ABSOLUTE_SECS`] after the code. A family begun with the
//! client's secret needs the secret on every refresh; a family begun with
//! PKCE alone (a public client) refreshes with the client id.

use std::net::IpAddr;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kernel::Secret;
use platform::crypto::{constant_time_eq, random_token, sha256_hex};
use sha2::{Digest as _, Sha256};

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult, OAuthErrorKind, TokenRejection};
use crate::ids::derived_id;
use crate::limits::{MarketParam, parse_market};
use crate::model::{Access, App, IssuedToken, User};
use crate::scopes::Scopes;
use crate::store::{AppRow, GrantExpiry, IssuedGrant, RefreshRow, TokenRow, UserKey};

pub const ACCESS_TOKEN_TTL_SECS: u64 = 3600;
pub const CODE_TTL_MS: i64 = 10 * 60 * 1000;
/// A refresh-token family unused this long ends (90 days).
pub const REFRESH_IDLE_SECS: i64 = 90 * 24 * 3600;
/// A refresh-token family ends this long after its code, however used (180 days).
pub const REFRESH_ABSOLUTE_SECS: i64 = 180 * 24 * 3600;
/// Used codes are kept this long past their expiry to recognise replays.
const USED_CODE_KEEP_MS: i64 = 24 * 3600 * 1000;
/// The client id of the web player the catalog serves at `/player`.
pub const WEB_PLAYER_CLIENT_ID: &str = "catalog-web-player";

/// A request to `/api/token`, with client credentials from the Basic
/// header or the body already merged in.
#[derive(Clone, Debug, Default)]
pub struct TokenRequest {
    pub grant_type: String,
    pub code: Option<String>,
    pub redirect_uri: Option<String>,
    pub code_verifier: Option<String>,
    pub refresh_token: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub scope: Option<String>,
}

/// What `/authorize` was asked for, once validated.
#[derive(Clone, Debug)]
pub struct AuthorizeRequest {
    pub app: App,
    pub redirect_uri: String,
    pub scopes: Scopes,
    pub code_challenge: Option<String>,
}

fn invalid_request(message: impl Into<String>) -> CatalogError {
    CatalogError::oauth(OAuthErrorKind::InvalidRequest, message)
}

fn valid_username(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Redirect URIs must be absolute: `https://...`, `http://` (for loopback
/// and development) or an app's own scheme (`myapp://callback`).
pub(crate) fn valid_redirect_uri(uri: &str) -> bool {
    match uri.split_once("://") {
        Some((scheme, rest)) => {
            !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
                && !rest.is_empty()
                && !uri.contains('#')
                && !uri.chars().any(char::is_whitespace)
        }
        None => false,
    }
}

fn invalid_grant(message: impl Into<String>) -> CatalogError {
    CatalogError::oauth(OAuthErrorKind::InvalidGrant, message)
}

fn password_error(e: platform::passwords::PasswordError) -> CatalogError {
    CatalogError::Internal(e.to_string())
}

/// S256 PKCE: base64url(SHA-256(verifier)) without padding.
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

impl Catalog {
    /// Registers an OAuth client; the secret is returned once.
    pub async fn create_app(&self, name: &str, redirect_uris: &[String]) -> CatalogResult<(App, Secret<String>)> {
        let name = name.trim();
        if name.is_empty() || name.len() > 200 {
            return Err(CatalogError::invalid("the app name must be 1 to 200 characters"));
        }
        if redirect_uris.is_empty() {
            return Err(CatalogError::invalid("an app needs at least one redirect uri"));
        }
        if let Some(bad) = redirect_uris.iter().find(|u| !valid_redirect_uri(u)) {
            return Err(CatalogError::invalid(format!("invalid redirect uri {bad:?}")));
        }
        let client_id = hex::encode(uuid::Uuid::new_v4().as_bytes());
        let secret = hex::encode(uuid::Uuid::new_v4().as_bytes());
        let row = AppRow {
            client_id: client_id.clone(),
            name: name.to_owned(),
            secret_hash: sha256_hex(secret.as_bytes()),
            redirect_uris: serde_json::to_string(redirect_uris).unwrap_or_else(|_| "[]".to_owned()),
            owner_id: None,
            flows: crate::apps::Flow::ALL_STORED.to_owned(),
            created_at: self.clock.now().as_millis(),
        };
        self.store.insert_app(&row, self.clock.now()).await?;
        Ok((App { client_id, name: row.name, redirect_uris: redirect_uris.to_vec() }, Secret::new(secret)))
    }

    /// Creates a listener account; a random password is made when none is given.
    pub async fn create_user(
        &self,
        name: &str,
        password: Option<Secret<String>>,
    ) -> CatalogResult<(User, Secret<String>)> {
        let username = name.trim();
        if !valid_username(username) {
            return Err(CatalogError::invalid("a user name is 1 to 64 letters, digits, '.', '_' or '-'"));
        }
        let password = password.unwrap_or_else(|| Secret::new(random_token(12)));
        if password.expose().len() < 8 {
            return Err(CatalogError::invalid("the password must have at least 8 characters"));
        }
        let user = User {
            id: derived_id("user", &username.to_lowercase()),
            username: username.to_owned(),
            display_name: username.to_owned(),
            country: self.markets.first().to_owned(),
            followers: 0,
            created_at: self.clock.now(),
        };
        let hash = self.passwords.hash(password.expose()).await.map_err(password_error)?;
        self.store.insert_user(&user, &hash).await.map_err(|e| match e {
            kernel::StoreError::Conflict(_) => CatalogError::Conflict(format!("the user name {username:?} is taken")),
            other => other.into(),
        })?;
        Ok((user, password))
    }

    pub async fn user(&self, id: &str) -> CatalogResult<User> {
        self.store
            .user_by(UserKey::Id, id)
            .await?
            .map(crate::store::UserRow::into_user)
            .ok_or(CatalogError::NotFound("user"))
    }

    /// Checks a login from `ip` (when known); the same error for an unknown
    /// name and a wrong password, in the same time (an unknown name is
    /// checked against a dummy hash). Every attempt first passes the
    /// per-address and per-account throttle: 429 with a wait past it.
    pub async fn login(&self, username: &str, password: &str, ip: Option<IpAddr>) -> CatalogResult<User> {
        let username = username.trim();
        self.signin
            .check(ip, username)
            .await
            .map_err(|wait| CatalogError::RateLimited { retry_after_secs: wait.secs })?;
        let row = if valid_username(username) { self.store.user_by(UserKey::Username, username).await? } else { None };
        let stored = row.as_ref().map(|r| r.password_hash.as_str());
        let matches = self.passwords.verify(password, stored).await.map_err(password_error)?;
        match row {
            // Said only to someone who knows the password.
            Some(row) if matches && row.disabled => {
                Err(CatalogError::Forbidden("this account is disabled: ask the catalog's operator".to_owned()))
            }
            Some(row) if matches => Ok(row.into_user()),
            _ => Err(CatalogError::Forbidden("wrong user name or password".to_owned())),
        }
    }

    /// The web player's own OAuth client (a public client: it logs in with
    /// PKCE), registered on first use with `redirect_uri` (the player page
    /// on the origin it was reached through) added to its redirect URIs.
    pub async fn web_player_app(&self, redirect_uri: &str) -> CatalogResult<String> {
        if !valid_redirect_uri(redirect_uri) {
            return Err(CatalogError::invalid(format!("invalid redirect uri {redirect_uri:?}")));
        }
        let row = match self.store.app(WEB_PLAYER_CLIENT_ID).await? {
            Some(row) => row,
            None => {
                let row = AppRow {
                    client_id: WEB_PLAYER_CLIENT_ID.to_owned(),
                    name: "Web player".to_owned(),
                    // Nobody knows this secret: the player uses PKCE.
                    secret_hash: sha256_hex(random_token(32).as_bytes()),
                    redirect_uris: "[]".to_owned(),
                    owner_id: None,
                    flows: crate::apps::Flow::Pkce.as_str().to_owned(),
                    created_at: self.clock.now().as_millis(),
                };
                match self.store.insert_app(&row, self.clock.now()).await {
                    Ok(()) | Err(kernel::StoreError::Conflict(_)) => {}
                    Err(e) => return Err(e.into()),
                }
                self.app_row(WEB_PLAYER_CLIENT_ID).await?
            }
        };
        let mut uris: Vec<String> = serde_json::from_str(&row.redirect_uris).unwrap_or_default();
        if !uris.iter().any(|u| u == redirect_uri) {
            uris.push(redirect_uri.to_owned());
            let json = serde_json::to_string(&uris).unwrap_or_else(|_| "[]".to_owned());
            self.store.set_app_redirect_uris(WEB_PLAYER_CLIENT_ID, &json).await?;
        }
        Ok(WEB_PLAYER_CLIENT_ID.to_owned())
    }

    pub(crate) async fn app_row(&self, client_id: &str) -> CatalogResult<AppRow> {
        self.store
            .app(client_id)
            .await?
            .ok_or_else(|| CatalogError::oauth(OAuthErrorKind::InvalidClient, "Invalid client"))
    }

    /// Validates the parameters of `/authorize`. Errors here are shown to
    /// the user, never redirected (the redirect target is not trusted yet).
    pub async fn check_authorize(
        &self,
        client_id: &str,
        redirect_uri: &str,
        response_type: &str,
        scope: &str,
        code_challenge: Option<&str>,
        code_challenge_method: Option<&str>,
    ) -> CatalogResult<AuthorizeRequest> {
        let row = self.app_row(client_id).await?;
        let uris: Vec<String> = serde_json::from_str(&row.redirect_uris).unwrap_or_default();
        if !uris.iter().any(|u| u == redirect_uri) {
            return Err(invalid_request("Invalid redirect URI"));
        }
        if response_type != "code" {
            return Err(CatalogError::oauth(OAuthErrorKind::UnauthorizedClient, "response_type must be code"));
        }
        let scopes = Scopes::parse(scope)?;
        let code_challenge = match (code_challenge.filter(|c| !c.is_empty()), code_challenge_method) {
            (Some(c), Some("S256") | None) if (43..=128).contains(&c.len()) => Some(c.to_owned()),
            (Some(_), Some("S256") | None) => {
                return Err(invalid_request("code_challenge must be 43 to 128 characters"));
            }
            (Some(_), Some(_)) => return Err(invalid_request("code_challenge_method must be S256")),
            (None, _) => None,
        };
        Ok(AuthorizeRequest {
            app: App { client_id: row.client_id, name: row.name, redirect_uris: uris },
            redirect_uri: redirect_uri.to_owned(),
            scopes,
            code_challenge,
        })
    }

    /// Issues a one-time authorization code for a logged-in user.
    pub async fn issue_code(&self, request: &AuthorizeRequest, user: &User) -> CatalogResult<Secret<String>> {
        let code = random_token(32);
        let row = crate::store::CodeRow {
            client_id: request.app.client_id.clone(),
            user_id: user.id.clone(),
            redirect_uri: request.redirect_uri.clone(),
            scope: request.scopes.to_header(),
            code_challenge: request.code_challenge.clone(),
            expires_at: self.clock.now().plus_millis(CODE_TTL_MS).as_millis(),
            used_at: None,
            family_id: None,
        };
        self.store.insert_code(&sha256_hex(code.as_bytes()), &row).await?;
        Ok(Secret::new(code))
    }

    /// Checks the client's secret; `Ok(false)` when no secret was sent.
    async fn authenticate_client(&self, request: &TokenRequest) -> CatalogResult<(AppRow, bool)> {
        let client_id = request.client_id.as_deref().ok_or_else(|| invalid_request("client_id is required"))?;
        let row = self.app_row(client_id).await?;
        match request.client_secret.as_deref() {
            Some(secret) => {
                if constant_time_eq(sha256_hex(secret.as_bytes()).as_bytes(), row.secret_hash.as_bytes()) {
                    Ok((row, true))
                } else {
                    Err(CatalogError::oauth(OAuthErrorKind::InvalidClient, "Invalid client secret"))
                }
            }
            None => Ok((row, false)),
        }
    }

    fn access_expiry(&self) -> i64 {
        self.clock.now().plus_millis(i64::try_from(ACCESS_TOKEN_TTL_SECS * 1000).unwrap_or(0)).as_millis()
    }

    /// A refresh token and an access token of `refresh`'s family, ready to
    /// be written together; returns them with the plaintext tokens.
    fn grant(&self, refresh: RefreshRow, scopes: &Scopes) -> (IssuedGrant, IssuedToken) {
        let (refresh_token, access_token) = (random_token(32), random_token(32));
        let access = TokenRow {
            client_id: refresh.client_id.clone(),
            user_id: Some(refresh.user_id.clone()),
            scope: scopes.to_header(),
            expires_at: self.access_expiry(),
            family_id: Some(refresh.family_id.clone()),
        };
        let grant = IssuedGrant {
            now: self.clock.now().as_millis(),
            refresh_hash: sha256_hex(refresh_token.as_bytes()),
            refresh,
            access_hash: sha256_hex(access_token.as_bytes()),
            access,
        };
        let issued = IssuedToken {
            access_token,
            expires_in: ACCESS_TOKEN_TTL_SECS,
            scope: scopes.clone(),
            refresh_token: Some(refresh_token),
        };
        (grant, issued)
    }

    /// Revokes a family and says so in the log (a replay or a reuse means a
    /// code or token leaked).
    async fn revoke_family(&self, family_id: &str, client_id: &str, why: &str) -> CatalogResult<()> {
        tracing::warn!(client_id, why, "revoking every token of an OAuth grant");
        Ok(self.store.revoke_family(family_id).await?)
    }

    /// The authorization code grant. Every check (the client, its secret
    /// or PKCE verifier, the redirect URI, the expiry) runs before the code
    /// is consumed, so a failed attempt leaves it to its rightful owner; a
    /// code presented after it was used revokes what it issued.
    async fn exchange_code(&self, request: &TokenRequest) -> CatalogResult<IssuedToken> {
        let code = request.code.as_deref().ok_or_else(|| invalid_request("code is required"))?;
        let code_hash = sha256_hex(code.as_bytes());
        let grant = self.store.code(&code_hash).await?.ok_or_else(|| invalid_grant("Invalid authorization code"))?;
        if grant.used_at.is_some() {
            if let Some(family) = grant.family_id.as_deref() {
                self.revoke_family(family, &grant.client_id, "authorization code replayed").await?;
            }
            return Err(invalid_grant("Invalid authorization code"));
        }
        let (app, secret_checked) = self.authenticate_client(request).await?;
        crate::apps::Flow::require(
            &app,
            if secret_checked { crate::apps::Flow::AuthorizationCode } else { crate::apps::Flow::Pkce },
        )?;
        if grant.client_id != app.client_id || grant.expires_at <= self.clock.now().as_millis() {
            return Err(invalid_grant("Invalid authorization code"));
        }
        if request.redirect_uri.as_deref() != Some(grant.redirect_uri.as_str()) {
            return Err(invalid_grant("Invalid redirect URI"));
        }
        match (&grant.code_challenge, request.code_verifier.as_deref()) {
            (Some(challenge), Some(verifier)) => {
                if !constant_time_eq(pkce_challenge(verifier).as_bytes(), challenge.as_bytes()) {
                    return Err(invalid_grant("code_verifier was incorrect"));
                }
            }
            (Some(_), None) => return Err(invalid_request("code_verifier required")),
            (None, _) if !secret_checked => {
                return Err(CatalogError::oauth(OAuthErrorKind::InvalidClient, "Invalid client secret"));
            }
            (None, _) => {}
        }
        let now = self.clock.now().as_millis();
        let scopes = Scopes::from_stored(&grant.scope);
        let family = RefreshRow {
            client_id: app.client_id.clone(),
            user_id: grant.user_id.clone(),
            scope: grant.scope.clone(),
            family_id: random_token(16),
            family_created_at: now,
            last_used_at: now,
            rotated_at: None,
            pkce: grant.code_challenge.is_some(),
            confidential: secret_checked,
        };
        let (rows, issued) = self.grant(family, &scopes);
        if !self.store.redeem_code(&code_hash, &rows).await? {
            // Another exchange of the same code won a race: a replay too.
            if let Some(family) = self.store.code(&code_hash).await?.and_then(|c| c.family_id) {
                self.revoke_family(&family, &app.client_id, "authorization code replayed").await?;
            }
            return Err(invalid_grant("Invalid authorization code"));
        }
        Ok(issued)
    }

    /// The refresh token grant: the client proves itself as the family
    /// demands, a rotated token revokes the family, an idle or old family
    /// has ended, and the answer carries the next refresh token.
    async fn refresh(&self, request: &TokenRequest) -> CatalogResult<IssuedToken> {
        let token =
            request.refresh_token.as_deref().ok_or_else(|| invalid_request("refresh_token must be supplied"))?;
        let token_hash = sha256_hex(token.as_bytes());
        let row = self.store.refresh_token(&token_hash).await?.ok_or_else(|| invalid_grant("Invalid refresh token"))?;
        let (app, secret_checked) = self.authenticate_client(request).await?;
        if app.client_id != row.client_id {
            return Err(invalid_grant("Invalid refresh token"));
        }
        if !secret_checked && (row.confidential || !row.pkce) {
            return Err(CatalogError::oauth(
                OAuthErrorKind::InvalidClient,
                "client authentication is required to refresh this token",
            ));
        }
        if row.rotated_at.is_some() {
            self.revoke_family(&row.family_id, &row.client_id, "rotated refresh token reused").await?;
            return Err(invalid_grant("Refresh token was already used; every token of this grant is revoked"));
        }
        let now = self.clock.now().as_millis();
        if row.last_used_at.saturating_add(REFRESH_IDLE_SECS * 1000) <= now
            || row.family_created_at.saturating_add(REFRESH_ABSOLUTE_SECS * 1000) <= now
        {
            self.store.revoke_family(&row.family_id).await?;
            return Err(invalid_grant("Refresh token expired"));
        }
        let mut scopes = Scopes::from_stored(&row.scope);
        if let Some(asked) = request.scope.as_deref().filter(|s| !s.trim().is_empty()) {
            let asked = Scopes::parse(asked)?;
            if !scopes.covers(&asked) {
                return Err(CatalogError::oauth(OAuthErrorKind::InvalidScope, "scope exceeds the original grant"));
            }
            scopes = asked;
        }
        // The successor keeps the family's full scope; only this access
        // token is narrowed.
        let next = RefreshRow { last_used_at: now, rotated_at: None, ..row };
        let (family_id, client_id) = (next.family_id.clone(), next.client_id.clone());
        let (rows, issued) = self.grant(next, &scopes);
        if !self.store.rotate_refresh_token(&token_hash, &rows).await? {
            // A concurrent refresh with the same token rotated it first.
            self.revoke_family(&family_id, &client_id, "rotated refresh token reused").await?;
            return Err(invalid_grant("Refresh token was already used; every token of this grant is revoked"));
        }
        Ok(issued)
    }

    /// The token endpoint: authorization code, refresh token and client
    /// credentials grants.
    pub async fn token(&self, request: &TokenRequest) -> CatalogResult<IssuedToken> {
        match request.grant_type.as_str() {
            "authorization_code" => self.exchange_code(request).await,
            "refresh_token" => self.refresh(request).await,
            "client_credentials" => {
                let (app, secret_checked) = self.authenticate_client(request).await?;
                if !secret_checked {
                    return Err(CatalogError::oauth(OAuthErrorKind::InvalidClient, "Invalid client secret"));
                }
                crate::apps::Flow::require(&app, crate::apps::Flow::ClientCredentials)?;
                let access = random_token(32);
                let row = TokenRow {
                    client_id: app.client_id,
                    user_id: None,
                    scope: String::new(),
                    expires_at: self.access_expiry(),
                    family_id: None,
                };
                self.store.insert_access_token(&sha256_hex(access.as_bytes()), &row).await?;
                Ok(IssuedToken {
                    access_token: access,
                    expires_in: ACCESS_TOKEN_TTL_SECS,
                    scope: Scopes::default(),
                    refresh_token: None,
                })
            }
            "" => Err(invalid_request("grant_type must be supplied")),
            other => Err(CatalogError::oauth(
                OAuthErrorKind::UnsupportedGrantType,
                format!("unsupported grant_type {other:?}"),
            )),
        }
    }

    /// Removes expired access tokens, ended refresh-token families and old
    /// codes (the scheduled pruning job), and prunes the sign-in throttle.
    pub async fn prune_grants(&self) -> CatalogResult<u64> {
        let now = self.clock.now();
        let at = now.as_millis();
        let expiry = GrantExpiry {
            idle_before: at.saturating_sub(REFRESH_IDLE_SECS * 1000),
            started_before: at.saturating_sub(REFRESH_ABSOLUTE_SECS * 1000),
            codes_before: at.saturating_sub(USED_CODE_KEEP_MS),
        };
        self.signin.prune();
        Ok(self.store.prune_tokens(now, &expiry).await?)
    }

    /// Resolves the caller from an `Authorization` header value.
    pub async fn authenticate(&self, authorization: Option<&str>) -> CatalogResult<Access> {
        let header = authorization.ok_or(CatalogError::Unauthorized(TokenRejection::Missing))?;
        let token = header
            .strip_prefix("Bearer ")
            .or_else(|| header.strip_prefix("bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or(CatalogError::Unauthorized(TokenRejection::Invalid))?;
        let row = self
            .store
            .access_token(&sha256_hex(token.as_bytes()))
            .await?
            .ok_or(CatalogError::Unauthorized(TokenRejection::Invalid))?;
        if row.expires_at <= self.clock.now().as_millis() {
            return Err(CatalogError::Unauthorized(TokenRejection::Expired));
        }
        Ok(Access {
            client_id: row.client_id,
            user_id: row.user_id,
            scopes: Scopes::from_stored(&row.scope),
            market: None,
        })
    }

    /// Everything a Web API call passes before its handler: the token
    /// ([`Self::authenticate`]), the app's rate limit, and the `market`
    /// parameter (validated; `from_token` resolved to the user's country).
    pub async fn admit(&self, authorization: Option<&str>, market: Option<&str>) -> CatalogResult<Access> {
        let mut access = self.authenticate(authorization).await?;
        self.limiter.check(&access.client_id, self.clock.now()).await?;
        access.market = match market.filter(|m| !m.is_empty()).map(parse_market).transpose()? {
            None => None,
            Some(MarketParam::Code(code)) => Some(code),
            Some(MarketParam::FromToken) => match access.user_id.as_deref() {
                Some(user) => Some(self.user(user).await?.country),
                None => None,
            },
        };
        Ok(access)
    }
}

impl Access {
    /// The calling user, when the token carries every scope in `needed`.
    pub fn user(&self, needed: &[&str]) -> CatalogResult<&str> {
        let user = self
            .user_id
            .as_deref()
            .ok_or_else(|| CatalogError::Forbidden("this route needs a user's token, not an app token".to_owned()))?;
        if needed.iter().all(|s| self.scopes.contains(s)) { Ok(user) } else { Err(CatalogError::InsufficientScope) }
    }

    /// The calling user when the token may read playback positions
    /// (`user-read-playback-position`, for episodes' `resume_point`).
    pub fn position_reader(&self) -> Option<&str> {
        self.user_id.as_deref().filter(|_| self.scopes.contains("user-read-playback-position"))
    }

    /// The calling user when any one of `any_of` is granted.
    pub fn user_any(&self, any_of: &[&str]) -> CatalogResult<&str> {
        let user = self.user(&[])?;
        if any_of.iter().any(|s| self.scopes.contains(s)) { Ok(user) } else { Err(CatalogError::InsufficientScope) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_is_unpadded_base64url_of_sha256() {
        // Computed independently with Python's hashlib and base64.
        assert_eq!(
            pkce_challenge("a-verifier-of-forty-three-characters-long-x"),
            "WWqut2KZnmXcQSo7BDLuoYJeZRujCNs1IsrRNl-YWzo"
        );
    }

    #[test]
    fn redirect_uris_and_usernames_are_checked() {
        assert!(valid_redirect_uri("http://127.0.0.1:9090/callback"));
        assert!(valid_redirect_uri("myapp://cb"));
        assert!(!valid_redirect_uri("/relative"));
        assert!(!valid_redirect_uri("http://x/#frag"));
        assert!(valid_username("ada.l_1"));
        assert!(!valid_username("no spaces"));
        assert!(!valid_username(""));
    }
}
