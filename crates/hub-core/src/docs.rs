//! Hosted docs: what a public docs page may see of a project, branding,
//! theme tokens, the docs customization (header, watermark) and
//! per-endpoint markdown behind the role gate (audited), and docs search.
//!
//! Rules kept here (and nowhere else):
//! - Private projects are closed to the public docs routes exactly like a
//!   missing project; password-protected ones need the docs password.
//! - Branding and theme tokens need [`Feature::Branding`], the header and
//!   per-endpoint markdown [`Feature::DocsBuilder`], removing the 'Powered
//!   by' badge [`Feature::RemoveWatermark`] (all Pro and up). Stored values
//!   survive a downgrade and apply again after an upgrade; while the plan
//!   lacks the feature they are kept but not applied.

use kernel::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Hub;
use crate::audit::{AuditAction, AuditDraft};
use crate::error::{HubError, HubResult};
use crate::model::{Principal, Source};
use crate::names::{HttpUrl, Label};
use crate::plans::{Feature, Plan};
use crate::roles::Action;

/// Header buttons at most (seed limits table).
pub const MAX_HEADER_BUTTONS: usize = 6;
/// Plain-text header links at most (seed limits table).
pub const MAX_HEADER_LINKS: usize = 8;
/// Characters of a button or link label, and of the header title.
pub const MAX_HEADER_TEXT_CHARS: usize = 60;
/// Characters of one piece of per-endpoint markdown.
pub const MAX_ENDPOINT_MARKDOWN_CHARS: usize = 20_000;
/// Characters of an endpoint key (`GET /pets/{id}`, `query book`).
pub const MAX_ENDPOINT_CHARS: usize = 512;
/// Largest corner radius, in pixels.
pub const MAX_RADIUS_PX: u32 = 48;
/// Search hits returned at most.
pub const MAX_SEARCH_HITS: i64 = 30;

/// Logo, accent colour and favicon (stored on the project row).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Branding {
    pub logo_url: Option<String>,
    /// Legacy single colour: the primary of both themes until theme tokens
    /// are set.
    pub accent_color: Option<String>,
    pub favicon_url: Option<String>,
}

/// Colours of one theme.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Palette {
    pub primary: Option<String>,
    pub background: Option<String>,
    pub foreground: Option<String>,
    pub muted: Option<String>,
    pub border: Option<String>,
    pub card: Option<String>,
}

/// Theme tokens: a palette per theme, a shared radius, an optional lock.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThemeTokens {
    pub light: Palette,
    pub dark: Palette,
    pub radius: Option<u32>,
    /// `light` or `dark`.
    pub lock: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderButton {
    pub label: String,
    pub url: String,
    pub variant: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderLink {
    pub label: String,
    pub url: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocsHeader {
    pub logo_url: Option<String>,
    pub title: Option<String>,
    pub buttons: Vec<HeaderButton>,
    pub links: Vec<HeaderLink>,
    pub search: bool,
}

/// The docs customization of a project (one per project).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Customization {
    pub header: DocsHeader,
    /// Hide the 'Powered by' badge (paid plans only).
    pub remove_watermark: bool,
}

/// Owner-written markdown around one endpoint of one version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, sqlx::FromRow)]
pub struct EndpointMarkdown {
    #[serde(rename = "version")]
    pub version_label: String,
    pub endpoint: String,
    pub intro: Option<String>,
    pub extras: Option<String>,
}

/// A version a docs page can show.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct DocsVersion {
    pub label: String,
    pub spec_sha256: String,
    pub spec_format: String,
    pub is_default: bool,
    pub is_preview: bool,
    pub base_url: Option<String>,
}

/// Everything a public docs page needs to know about a project, with the
/// plan gates already applied.
#[derive(Clone, Debug)]
pub struct DocsSite {
    pub project_id: String,
    /// The account whose plan and AI quotas the project uses.
    pub owner_id: String,
    pub slug: String,
    pub name: String,
    pub base_url: Option<String>,
    pub owner_plan: Plan,
    /// Active, unexpired versions: the default first, then the newest.
    pub versions: Vec<DocsVersion>,
    /// Applied branding (empty when the plan lacks it).
    pub branding: Branding,
    /// Applied theme: the tokens, else the legacy accent colour as both
    /// primaries; `None` when the plan lacks branding or nothing is set.
    pub theme: Option<ThemeTokens>,
    /// Applied header (default when the plan lacks the docs builder).
    pub header: DocsHeader,
    pub show_badge: bool,
    /// Whether the hosted mock answers for this project (public projects;
    /// a password-protected one with the docs session).
    pub mock_open: bool,
    /// Opened by a member or a docs password rather than for anyone: pages
    /// must not be kept by shared caches.
    pub restricted: bool,
}

/// What a docs visitor presents. Everything is optional: a public project
/// needs none of it.
#[derive(Clone, Copy, Debug, Default)]
pub struct DocsVisitor<'a> {
    /// The project's docs-password session cookie.
    pub password_session: Option<&'a str>,
    /// A member session cookie from the docs sign-in (see [`Hub::member_signin`]).
    pub member_session: Option<&'a str>,
    /// An `Authorization` header carrying a personal access token.
    pub authorization: Option<&'a str>,
    /// The dashboard's session cookie: a signed-in member reads the
    /// private docs of their projects without a second sign-in.
    pub dashboard_session: Option<&'a str>,
}

impl DocsSite {
    /// The version named `label`, or the default when `None`.
    pub fn version(&self, label: Option<&str>) -> Option<&DocsVersion> {
        match label {
            Some(label) => self.versions.iter().find(|v| v.label == label),
            None => self.versions.iter().find(|v| v.is_default).or_else(|| self.versions.first()),
        }
    }
}

/// Why a project's docs are not shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocsClosed {
    /// Absent or private: answered exactly like a missing project.
    NotFound,
    /// Password-protected and no valid docs session was presented.
    PasswordRequired,
}

/// One search hit.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct SearchHit {
    pub target: String,
    pub title: String,
    pub body: String,
}

/// One searchable section of a document, as the renderer extracts them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchSection {
    pub target: String,
    pub title: String,
    pub body: String,
}

fn field_error(field: impl Into<String>, message: impl Into<String>) -> HubError {
    HubError::InvalidField { field: field.into(), message: message.into() }
}

fn object<'a>(value: &'a Value, field: &str, allowed: &[&str]) -> HubResult<&'a Map<String, Value>> {
    let map = value.as_object().ok_or_else(|| field_error(field, "must be a JSON object"))?;
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        let name = if field.is_empty() { unknown.clone() } else { format!("{field}.{unknown}") };
        return Err(field_error(name, format!("unknown field; allowed: {}", allowed.join(", "))));
    }
    Ok(map)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() { name.to_owned() } else { format!("{prefix}.{name}") }
}

fn opt_string<'a>(map: &'a Map<String, Value>, prefix: &str, name: &str) -> HubResult<Option<&'a str>> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(field_error(join(prefix, name), "must be a string or null")),
    }
}

fn url(map: &Map<String, Value>, prefix: &str, name: &str) -> HubResult<Option<String>> {
    opt_string(map, prefix, name)?
        .map(|raw| {
            HttpUrl::parse("url", raw)
                .map(|u| u.as_str().to_owned())
                .map_err(|_| field_error(join(prefix, name), "must be an absolute http or https URL"))
        })
        .transpose()
}

/// `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`.
pub fn is_colour(value: &str) -> bool {
    let Some(hex) = value.strip_prefix('#') else { return false };
    matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

fn colour(map: &Map<String, Value>, prefix: &str, name: &str) -> HubResult<Option<String>> {
    opt_string(map, prefix, name)?
        .map(|raw| {
            let raw = raw.trim();
            if is_colour(raw) {
                Ok(raw.to_ascii_lowercase())
            } else {
                Err(field_error(join(prefix, name), "must be a hex colour: #rgb, #rgba, #rrggbb or #rrggbbaa"))
            }
        })
        .transpose()
}

fn text(map: &Map<String, Value>, prefix: &str, name: &str, max: usize, required: bool) -> HubResult<Option<String>> {
    let value = opt_string(map, prefix, name)?.map(str::trim);
    match value {
        None if required => Err(field_error(join(prefix, name), "is required")),
        None => Ok(None),
        Some(text) if text.chars().count() > max => {
            Err(field_error(join(prefix, name), format!("must be at most {max} characters")))
        }
        Some(text) if text.chars().any(char::is_control) => {
            Err(field_error(join(prefix, name), "must not contain control characters"))
        }
        Some(text) => Ok(Some(text.to_owned())),
    }
}

/// A non-negative integer, written `12` or `12.0` (JSON Schema's
/// `integer` admits both).
fn integral(value: &Value) -> Option<u64> {
    value.as_u64().or_else(|| {
        value.as_f64().filter(|f| f.fract() == 0.0 && (0.0..9.0e15).contains(f)).map(|f| {
            #[expect(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "integral, 0 to 2^53")]
            let n = f as u64;
            n
        })
    })
}

fn boolean(map: &Map<String, Value>, prefix: &str, name: &str) -> HubResult<bool> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(field_error(join(prefix, name), "must be true or false")),
    }
}

fn array<'a>(map: &'a Map<String, Value>, prefix: &str, name: &str, max: usize) -> HubResult<&'a [Value]> {
    match map.get(name) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) if items.len() > max => {
            Err(field_error(join(prefix, name), format!("at most {max} are allowed (got {})", items.len())))
        }
        Some(Value::Array(items)) => Ok(items.as_slice()),
        Some(_) => Err(field_error(join(prefix, name), "must be an array")),
    }
}

impl Branding {
    /// Parses a branding body: `logo_url`, `accent_color`, `favicon_url`.
    pub fn parse(body: &Value) -> HubResult<Self> {
        let map = object(body, "", &["logo_url", "accent_color", "favicon_url"])?;
        Ok(Self {
            logo_url: url(map, "", "logo_url")?,
            accent_color: colour(map, "", "accent_color")?,
            favicon_url: url(map, "", "favicon_url")?,
        })
    }
}

impl Palette {
    fn parse(value: &Value, prefix: &str) -> HubResult<Self> {
        let map = object(value, prefix, &["primary", "background", "foreground", "muted", "border", "card"])?;
        Ok(Self {
            primary: colour(map, prefix, "primary")?,
            background: colour(map, prefix, "background")?,
            foreground: colour(map, prefix, "foreground")?,
            muted: colour(map, prefix, "muted")?,
            border: colour(map, prefix, "border")?,
            card: colour(map, prefix, "card")?,
        })
    }
}

impl ThemeTokens {
    /// Parses theme tokens: `light` and `dark` palettes, `radius`, `lock`.
    pub fn parse(body: &Value) -> HubResult<Self> {
        let map = object(body, "", &["light", "dark", "radius", "lock"])?;
        let palette = |name: &str| match map.get(name) {
            None | Some(Value::Null) => Ok(Palette::default()),
            Some(value) => Palette::parse(value, name),
        };
        let radius = match map.get("radius") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                integral(value)
                    .and_then(|r| u32::try_from(r).ok())
                    .filter(|r| *r <= MAX_RADIUS_PX)
                    .ok_or_else(|| field_error("radius", format!("must be an integer from 0 to {MAX_RADIUS_PX}")))?,
            ),
        };
        let lock = match opt_string(map, "", "lock")? {
            None => None,
            Some(lock @ ("light" | "dark")) => Some(lock.to_owned()),
            Some(_) => return Err(field_error("lock", "must be light, dark or null")),
        };
        Ok(Self { light: palette("light")?, dark: palette("dark")?, radius, lock })
    }
}

impl Customization {
    /// Parses a customization body: `header` and `remove_watermark`.
    pub fn parse(body: &Value) -> HubResult<Self> {
        let map = object(body, "", &["header", "remove_watermark"])?;
        let header = match map.get("header") {
            None | Some(Value::Null) => DocsHeader::default(),
            Some(value) => {
                let h = object(value, "header", &["logo_url", "title", "buttons", "links", "search"])?;
                let mut buttons = Vec::new();
                for (i, item) in array(h, "header", "buttons", MAX_HEADER_BUTTONS)?.iter().enumerate() {
                    let prefix = format!("header.buttons[{i}]");
                    let b = object(item, &prefix, &["label", "url", "variant"])?;
                    let variant = opt_string(b, &prefix, "variant")?.unwrap_or("solid");
                    if !matches!(variant, "solid" | "outline" | "ghost") {
                        return Err(field_error(join(&prefix, "variant"), "must be solid, outline or ghost"));
                    }
                    buttons.push(HeaderButton {
                        label: text(b, &prefix, "label", MAX_HEADER_TEXT_CHARS, true)?.unwrap_or_default(),
                        url: url(b, &prefix, "url")?.ok_or_else(|| field_error(join(&prefix, "url"), "is required"))?,
                        variant: variant.to_owned(),
                    });
                }
                let mut links = Vec::new();
                for (i, item) in array(h, "header", "links", MAX_HEADER_LINKS)?.iter().enumerate() {
                    let prefix = format!("header.links[{i}]");
                    let l = object(item, &prefix, &["label", "url"])?;
                    links.push(HeaderLink {
                        label: text(l, &prefix, "label", MAX_HEADER_TEXT_CHARS, true)?.unwrap_or_default(),
                        url: url(l, &prefix, "url")?.ok_or_else(|| field_error(join(&prefix, "url"), "is required"))?,
                    });
                }
                DocsHeader {
                    logo_url: url(h, "header", "logo_url")?,
                    title: text(h, "header", "title", MAX_HEADER_TEXT_CHARS, false)?,
                    buttons,
                    links,
                    search: boolean(h, "header", "search")?,
                }
            }
        };
        Ok(Self { header, remove_watermark: boolean(map, "", "remove_watermark")? })
    }
}

impl EndpointMarkdown {
    /// Parses `{version, endpoint, intro, extras}`.
    pub fn parse(body: &Value) -> HubResult<Self> {
        let map = object(body, "", &["version", "endpoint", "intro", "extras"])?;
        let version = opt_string(map, "", "version")?.ok_or_else(|| field_error("version", "is required"))?;
        let version = Label::parse(version).map_err(|_| field_error("version", "is not a valid version label"))?;
        let endpoint = text(map, "", "endpoint", MAX_ENDPOINT_CHARS, true)?.unwrap_or_default();
        let markdown = |name: &str| -> HubResult<Option<String>> {
            match opt_string(map, "", name)? {
                Some(text) if text.chars().count() > MAX_ENDPOINT_MARKDOWN_CHARS => {
                    Err(field_error(name, format!("must be at most {MAX_ENDPOINT_MARKDOWN_CHARS} characters")))
                }
                other => Ok(other.map(str::to_owned)),
            }
        };
        Ok(Self {
            version_label: version.as_str().to_owned(),
            endpoint: normalise_endpoint(&endpoint),
            intro: markdown("intro")?,
            extras: markdown("extras")?,
        })
    }
}

/// `get  /pets` → `GET /pets`; GraphQL keys (`query book`) are kept.
fn normalise_endpoint(raw: &str) -> String {
    let mut parts = raw.split_whitespace();
    let first = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.collect();
    let head = if spec::HttpMethod::from_key(first).is_some() { first.to_ascii_uppercase() } else { first.to_owned() };
    std::iter::once(head.as_str()).chain(rest).collect::<Vec<_>>().join(" ")
}

/// What the stored settings look like when applied under `plan`.
pub fn apply(
    plan: Plan,
    branding: &Branding,
    theme: Option<&ThemeTokens>,
    customization: Option<&Customization>,
) -> (Branding, Option<ThemeTokens>, DocsHeader, bool) {
    let branded = plan.allows(Feature::Branding);
    let applied_branding = if branded { branding.clone() } else { Branding::default() };
    let applied_theme = if branded {
        theme.cloned().or_else(|| {
            branding.accent_color.as_ref().map(|accent| ThemeTokens {
                light: Palette { primary: Some(accent.clone()), ..Palette::default() },
                dark: Palette { primary: Some(accent.clone()), ..Palette::default() },
                ..ThemeTokens::default()
            })
        })
    } else {
        None
    };
    let header = if plan.allows(Feature::DocsBuilder) {
        customization.map(|c| c.header.clone()).unwrap_or_default()
    } else {
        DocsHeader::default()
    };
    let show_badge = !(plan.allows(Feature::RemoveWatermark) && customization.is_some_and(|c| c.remove_watermark));
    (applied_branding, applied_theme, header, show_badge)
}

/// A full-text query made safe for both engines: words only, each quoted
/// (SQLite FTS5) or joined with `&` (PostgreSQL `to_tsquery`).
pub fn search_terms(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .take(8)
        .map(|w| w.chars().take(64).collect::<String>().to_lowercase())
        .collect()
}

impl Hub {
    /// What `/docs/<slug>` may show this visitor. A public project is open
    /// to anyone; a password-protected one to a valid docs session; a
    /// private one only to its members (who also skip the password), and to
    /// everyone else it is exactly a missing project.
    pub async fn docs_site(&self, slug: &str, visitor: DocsVisitor<'_>) -> HubResult<Result<DocsSite, DocsClosed>> {
        let Some(row) = self.store.docs_project(slug).await? else { return Ok(Err(DocsClosed::NotFound)) };
        let member = if !row.is_public || row.password_hash.is_some() {
            self.docs_member(&row.slug, visitor).await?
        } else {
            false
        };
        if !row.is_public && !member {
            return Ok(Err(DocsClosed::NotFound));
        }
        if let Some(hash) = &row.password_hash
            && !member
            && !visitor.password_session.is_some_and(|s| session_valid(hash, &row.id, s, self.clock.now()))
        {
            return Ok(Err(DocsClosed::PasswordRequired));
        }
        let restricted = !row.is_public || row.password_hash.is_some();
        let mock_open = row.is_public;
        let owner_plan: Plan = row.owner_plan.parse().unwrap_or(Plan::Free);
        let versions = self.store.docs_versions(&row.id, self.clock.now()).await?;
        let (theme, customization) = self.store.docs_settings(&row.id).await?;
        let branding: Branding = serde_json::from_str(&row.branding).unwrap_or_default();
        let (branding, theme, header, show_badge) =
            apply(owner_plan, &branding, theme.as_ref(), customization.as_ref());
        Ok(Ok(DocsSite {
            project_id: row.id,
            owner_id: row.owner_id,
            slug: row.slug,
            name: row.name,
            base_url: row.base_url,
            owner_plan,
            versions,
            branding,
            theme,
            header,
            show_badge,
            mock_open,
            restricted,
        }))
    }

    /// Per-endpoint markdown of one version, for rendering.
    pub async fn docs_endpoint_markdown(&self, project_id: &str, label: &str) -> HubResult<Vec<EndpointMarkdown>> {
        self.store.endpoint_markdown(project_id, Some(label)).await
    }

    /// The stored document of a version, by content hash.
    pub async fn docs_document(&self, sha256: &str) -> HubResult<bytes::Bytes> {
        self.mock_document(sha256).await
    }

    pub async fn branding(&self, principal: &Principal, slug: &str) -> HubResult<Branding> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        Ok(serde_json::from_value(found.project.branding).unwrap_or_default())
    }

    /// Replaces the branding (Pro and up), audited as `BRANDING_UPDATED`.
    pub async fn update_branding(
        &self,
        principal: &Principal,
        slug: &str,
        body: &Value,
        source: Source,
    ) -> HubResult<Branding> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        require(found.owner_plan, Feature::Branding)?;
        let branding = Branding::parse(body)?;
        let json = serde_json::to_string(&branding).map_err(|e| HubError::Internal(e.to_string()))?;
        let project = &found.project;
        let audit = self.audit_row(
            &project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::BrandingUpdated, "project", &project.id).project(&project.id),
        );
        self.store.set_branding(&project.id, &json, self.clock.now(), audit.as_ref()).await?;
        Ok(branding)
    }

    pub async fn theme(&self, principal: &Principal, slug: &str) -> HubResult<Option<ThemeTokens>> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        Ok(self.store.docs_settings(&found.project.id).await?.0)
    }

    /// Replaces the theme tokens (Pro and up), audited as `THEME_UPDATED`.
    pub async fn update_theme(
        &self,
        principal: &Principal,
        slug: &str,
        body: &Value,
        source: Source,
    ) -> HubResult<ThemeTokens> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        require(found.owner_plan, Feature::Branding)?;
        let theme = ThemeTokens::parse(body)?;
        let json = serde_json::to_string(&theme).map_err(|e| HubError::Internal(e.to_string()))?;
        let project = &found.project;
        let audit = self.audit_row(
            &project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::ThemeUpdated, "project", &project.id).project(&project.id),
        );
        self.store.set_docs_setting(&project.id, "theme", &json, self.clock.now(), audit.as_ref()).await?;
        Ok(theme)
    }

    /// Checks theme tokens as [`Hub::update_theme`] would save them (same
    /// role and plan gates, same validation), without saving: the docs
    /// builder's live preview of unsaved changes.
    pub async fn preview_theme(&self, principal: &Principal, slug: &str, body: &Value) -> HubResult<ThemeTokens> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        require(found.owner_plan, Feature::Branding)?;
        ThemeTokens::parse(body)
    }

    pub async fn customization(&self, principal: &Principal, slug: &str) -> HubResult<Customization> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        Ok(self.store.docs_settings(&found.project.id).await?.1.unwrap_or_default())
    }

    /// Replaces the docs customization (Pro and up), audited as
    /// `CUSTOMIZATION_UPDATED`.
    pub async fn update_customization(
        &self,
        principal: &Principal,
        slug: &str,
        body: &Value,
        source: Source,
    ) -> HubResult<Customization> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        require(found.owner_plan, Feature::DocsBuilder)?;
        let customization = Customization::parse(body)?;
        if customization.remove_watermark {
            require(found.owner_plan, Feature::RemoveWatermark)?;
        }
        let json = serde_json::to_string(&customization).map_err(|e| HubError::Internal(e.to_string()))?;
        let project = &found.project;
        let audit = self.audit_row(
            &project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CustomizationUpdated, "project", &project.id)
                .project(&project.id)
                .meta("part", "header"),
        );
        self.store.set_docs_setting(&project.id, "customization", &json, self.clock.now(), audit.as_ref()).await?;
        Ok(customization)
    }

    pub async fn list_endpoint_markdown(
        &self,
        principal: &Principal,
        slug: &str,
        version: Option<&str>,
    ) -> HubResult<Vec<EndpointMarkdown>> {
        let found = self.authorize_project(principal, slug, Action::ViewProject).await?;
        let version = version.map(crate::names::Label::parse).transpose()?;
        self.store.endpoint_markdown(&found.project.id, version.as_ref().map(crate::names::Label::as_str)).await
    }

    /// Sets (or, with neither intro nor extras, removes) the markdown of one
    /// endpoint of one version (Pro and up), audited as
    /// `CUSTOMIZATION_UPDATED`. The markdown is stored as written and
    /// sanitised when rendered.
    pub async fn put_endpoint_markdown(
        &self,
        principal: &Principal,
        slug: &str,
        body: &Value,
        source: Source,
    ) -> HubResult<Option<EndpointMarkdown>> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        require(found.owner_plan, Feature::DocsBuilder)?;
        let entry = EndpointMarkdown::parse(body)?;
        let project = &found.project;
        let audit = self.audit_row(
            &project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::CustomizationUpdated, "project", &project.id)
                .project(&project.id)
                .meta("part", "endpoint_markdown")
                .meta("version", entry.version_label.as_str())
                .meta("endpoint", entry.endpoint.as_str()),
        );
        let keep = entry.intro.is_some() || entry.extras.is_some();
        self.store.put_endpoint_markdown(&project.id, &entry, keep, self.clock.now(), audit.as_ref()).await?;
        Ok(keep.then_some(entry))
    }

    /// Whether the docs search of document `spec_sha256` ranks as it will
    /// from now on: its sections' vectors are ready, or no sentence model
    /// re-ranks (benchmarks and tests wait on it after a first search).
    #[must_use]
    pub fn docs_search_settled(&self, spec_sha256: &str) -> bool {
        self.semantic.as_ref().is_none_or(|semantic| semantic.ready(spec_sha256))
    }

    /// Full-text search over one document's sections, re-ranked by the
    /// sentence model once the sections' vectors are ready. The sections
    /// are indexed on the first search of a document, or when it is
    /// pushed with a model configured (`sections` is called only then).
    pub async fn docs_search(
        &self,
        spec_sha256: &str,
        query: &str,
        sections: impl FnOnce() -> Vec<SearchSection>,
    ) -> HubResult<Vec<SearchHit>> {
        if search_terms(query).is_empty() {
            return Ok(Vec::new());
        }
        let index = self.search_index(spec_sha256, sections).await?;
        let mut ranked = index.positions(query, crate::search::CANDIDATES);
        if let Some(semantic) = self.semantic.as_ref().filter(|_| !index.is_empty()) {
            self.start_embedding(spec_sha256, &index);
            if let Some(fused) = semantic.rerank(spec_sha256, &index, query, &ranked, crate::search::CANDIDATES).await {
                ranked = fused;
            }
        }
        let sections = index.sections();
        Ok(ranked
            .into_iter()
            .filter_map(|n| sections.get(n))
            .take(usize::try_from(MAX_SEARCH_HITS).unwrap_or(20))
            .map(|c| SearchHit { target: c.target.clone(), title: c.title.clone(), body: c.body.clone() })
            .collect())
    }

    /// Prepares the search of a document just pushed, off the request
    /// path, when a sentence model is configured: its sections are
    /// indexed and embedded now rather than on its first search, which
    /// would otherwise rank by words alone for the tens of seconds a large
    /// document takes. Without a model nothing is done (indexing alone
    /// takes a first search milliseconds). At most
    /// [`PREPARED_AT_ONCE`] documents are prepared at once per node; a push
    /// finding none free leaves its document to its first search, so a
    /// burst of pushes holds no more documents in waiting than that.
    pub(crate) fn prepare_docs_search(&self, spec_sha256: &str, spec: spec::Spec) {
        if self.semantic.is_none() || self.docs_search_settled(spec_sha256) {
            return;
        }
        let Ok(turn) = self.preparing.clone().try_acquire_owned() else {
            tracing::debug!(document = %spec_sha256, "other documents are being prepared; this one waits for its first search");
            return;
        };
        let (hub, key) = (self.clone(), spec_sha256.to_owned());
        // Not tracked as the hub's background work, like the embedding it
        // starts: work cut short by a shutdown is done on a first search.
        tokio::spawn(async move {
            let sections =
                match tokio::task::spawn_blocking(move || search_sections(&docs_render::Site::new(spec))).await {
                    Ok(sections) => sections,
                    Err(error) => {
                        tracing::warn!(%error, document = %key, "the document's search sections could not be built");
                        return;
                    }
                };
            match hub.search_index(&key, move || sections).await {
                Ok(index) if !index.is_empty() => hub.embed(&key, index).await,
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, document = %key, "the document's search could not be indexed"),
            }
            drop(turn);
        });
    }

    /// The word index of document `spec_sha256`: this node's, the store's,
    /// or built from `sections` and stored.
    async fn search_index(
        &self,
        spec_sha256: &str,
        sections: impl FnOnce() -> Vec<SearchSection>,
    ) -> HubResult<std::sync::Arc<crate::search::DocumentIndex>> {
        if let Some(index) = self.search_indexes.get(spec_sha256) {
            return Ok(index);
        }
        if !self.store.docs_indexed(spec_sha256).await? {
            let sections = sections();
            self.store.index_docs(spec_sha256, &sections, self.clock.now()).await?;
        }
        let rows = self.store.docs_sections(spec_sha256).await?;
        Ok(self.search_indexes.insert(spec_sha256, rows))
    }

    /// Starts embedding the sections of `index` in the background, unless
    /// this node already has (or is making) their vectors.
    fn start_embedding(&self, spec_sha256: &str, index: &std::sync::Arc<crate::search::DocumentIndex>) {
        if self.semantic.as_ref().is_some_and(|semantic| semantic.claim(spec_sha256)) {
            // Not tracked as the hub's background work: an embedding cut
            // short by a shutdown is simply started again.
            let (hub, key, index) = (self.clone(), spec_sha256.to_owned(), index.clone());
            tokio::spawn(async move { hub.embed_claimed(&key, &index).await });
        }
    }

    /// Embeds the sections of `index`, unless this node already has (or
    /// is making) their vectors.
    async fn embed(&self, spec_sha256: &str, index: std::sync::Arc<crate::search::DocumentIndex>) {
        if self.semantic.as_ref().is_some_and(|semantic| semantic.claim(spec_sha256)) {
            self.embed_claimed(spec_sha256, &index).await;
        }
    }

    async fn embed_claimed(&self, spec_sha256: &str, index: &crate::search::DocumentIndex) {
        let Some(semantic) = self.semantic.as_ref() else { return };
        if let Err(error) = semantic.build(spec_sha256, index, &self.store, self.clock.now()).await {
            tracing::warn!(%error, model = semantic.model(), document = %spec_sha256, "the document's sections could not be embedded; searching it by words alone");
        }
    }
}

/// Pushed documents whose search a node prepares at once (each holds its
/// parsed document, then its sections, until they are encoded).
pub const PREPARED_AT_ONCE: usize = 2;

/// The search's sections of a prepared version of the docs: one per
/// operation, webhook, schema and page, as the quick search, the
/// assistant and MCP find them.
#[must_use]
pub fn search_sections(site: &docs_render::Site) -> Vec<SearchSection> {
    site.sections().into_iter().map(|s| SearchSection { target: s.target, title: s.title, body: s.body }).collect()
}

/// The value of a docs session cookie: `<expiry ms>.<HMAC-SHA256 hex>`,
/// keyed by the project's password hash (which holds a random salt no
/// client ever sees), so changing or removing the password ends every
/// session at once and the hub needs no separate signing secret.
pub fn session_value(password_hash: &str, project_id: &str, expires: Timestamp) -> String {
    format!("{}.{}", expires.as_millis(), session_mac(password_hash, project_id, expires.as_millis()))
}

fn session_mac(password_hash: &str, project_id: &str, expires_ms: i64) -> String {
    hmac_hex(password_hash, &format!("docs-session\n{project_id}\n{expires_ms}"))
}

/// HMAC-SHA256 of `message` keyed by `key`, hex; empty if the key is
/// refused (never for HMAC, which takes keys of any length).
fn hmac_hex(key: &str, message: &str) -> String {
    use hmac::Mac as _;
    let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()) else {
        return String::new();
    };
    mac.update(message.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Whether `value` is an unexpired session of this project and password.
pub fn session_valid(password_hash: &str, project_id: &str, value: &str, now: Timestamp) -> bool {
    let Some((expires, mac)) = value.split_once('.') else { return false };
    let Ok(expires_ms) = expires.parse::<i64>() else { return false };
    if expires_ms <= now.as_millis() {
        return false;
    }
    let expected = session_mac(password_hash, project_id, expires_ms);
    !expected.is_empty() && platform::crypto::constant_time_eq(expected.as_bytes(), mac.as_bytes())
}

/// Characters of a docs password at most (at least 8, as for accounts).
pub const MAX_DOCS_PASSWORD_CHARS: usize = 256;

impl Hub {
    /// Sets or (with `None`) removes the password of a project's docs and
    /// mock; audited as `PROJECT_UPDATED` with `fields: ["password"]`.
    pub async fn set_docs_password(
        &self,
        principal: &Principal,
        slug: &str,
        password: Option<&str>,
        source: Source,
    ) -> HubResult<bool> {
        let found = self.authorize_project(principal, slug, Action::UpdateProject).await?;
        let hash = match password {
            Some(p) if p.chars().count() > MAX_DOCS_PASSWORD_CHARS => {
                return Err(HubError::validation(
                    "password",
                    format!("password must be at most {MAX_DOCS_PASSWORD_CHARS} characters"),
                ));
            }
            Some(p) => Some(self.hash_password(p).await?),
            None => None,
        };
        let project = &found.project;
        let audit = self.audit_row(
            &project.owner_id,
            found.owner_plan,
            &principal.user_id,
            source,
            AuditDraft::new(AuditAction::ProjectUpdated, "project", &project.id)
                .project(&project.id)
                .meta("fields", vec!["password"]),
        );
        self.store.set_password_hash(&project.id, hash.as_deref(), self.clock.now(), audit.as_ref()).await?;
        self.mock_changed();
        Ok(hash.is_some())
    }

    /// Checks a docs password; on success returns the session cookie value
    /// and its expiry. `None` for a wrong password, a project without one,
    /// or a project that is not public.
    pub async fn docs_login(&self, slug: &str, password: &str) -> HubResult<Option<(String, Timestamp)>> {
        let row = self.store.docs_project(slug).await?;
        let hash = row.as_ref().and_then(|row| row.password_hash.clone().filter(|_| row.is_public));
        // A project without a password (or none at all) costs the same
        // check as one with, so timing tells nothing.
        if !self.verify_password(password, hash.as_deref()).await? {
            return Ok(None);
        }
        let (Some(row), Some(hash)) = (row, hash) else { return Ok(None) };
        let expires = self.clock.now().plus_millis(DOCS_SESSION_SECONDS * 1000);
        Ok(Some((session_value(&hash, &row.id, expires), expires)))
    }

    /// Whether `session` opens the password-protected project `slug` (the
    /// mock asks this before serving such a project).
    pub async fn docs_session_opens(&self, slug: &str, session: &str) -> HubResult<bool> {
        let Some(row) = self.store.docs_project(slug).await? else { return Ok(false) };
        Ok(row.is_public
            && row.password_hash.as_deref().is_some_and(|h| session_valid(h, &row.id, session, self.clock.now())))
    }
}

impl Hub {
    /// Whether the visitor is a member allowed to view the project `slug`
    /// (the role gate's `ViewProject`), by a personal access token in the
    /// `Authorization` header or a member session cookie. Credentials that
    /// do not resolve simply make the visitor anonymous.
    async fn docs_member(&self, slug: &str, visitor: DocsVisitor<'_>) -> HubResult<bool> {
        let principal = match (visitor.authorization, visitor.member_session) {
            (Some(authorization), _) => match self.authenticate(Some(authorization)).await {
                Ok(principal) => Some(principal),
                Err(HubError::InvalidToken(_)) => None,
                Err(other) => return Err(other),
            },
            (None, Some(session)) => self.member_session_principal(session).await?,
            (None, None) => match visitor.dashboard_session {
                Some(secret) => self.session(secret).await?.map(|(principal, _)| principal),
                None => None,
            },
        };
        let Some(principal) = principal else { return Ok(false) };
        match self.authorize_project(&principal, slug, Action::ViewProject).await {
            Ok(_) => Ok(true),
            Err(HubError::NotFound { .. } | HubError::Forbidden { .. }) => Ok(false),
            Err(other) => Err(other),
        }
    }

    /// Signs a member in to the docs with a personal access token: returns
    /// the member session cookie value and its expiry (at most
    /// [`DOCS_SESSION_SECONDS`], never past the token's own expiry), or an
    /// invalid-token error. The session is bound to the token: revoking or
    /// expiring the token ends it.
    pub async fn member_signin(&self, token: &str) -> HubResult<(String, Timestamp)> {
        let authorization = format!("Bearer {}", token.trim());
        let principal = self.authenticate(Some(&authorization)).await?;
        let token_id = principal.token_id.ok_or(HubError::InvalidToken(crate::error::TokenRejection::Unknown))?;
        let (_, expires_at, token_hash) = self
            .store
            .principal_by_token_id(&token_id)
            .await?
            .ok_or(HubError::InvalidToken(crate::error::TokenRejection::Unknown))?;
        let mut expires = self.clock.now().plus_millis(DOCS_SESSION_SECONDS * 1000);
        if let Some(token_expiry) = expires_at
            && token_expiry < expires
        {
            expires = token_expiry;
        }
        Ok((member_session_value(&token_hash, &token_id, expires), expires))
    }

    /// The member behind a session cookie, if it is valid and its token
    /// still exists and has not expired.
    async fn member_session_principal(&self, value: &str) -> HubResult<Option<Principal>> {
        let Some((token_id, _)) = value.split_once('.') else { return Ok(None) };
        let Some((principal, expires_at, token_hash)) = self.store.principal_by_token_id(token_id).await? else {
            return Ok(None);
        };
        let now = self.clock.now();
        if expires_at.is_some_and(|at| at <= now) || !member_session_valid(&token_hash, value, now) {
            return Ok(None);
        }
        Ok(Some(principal))
    }
}

/// The member session cookie: `<token id>.<expiry ms>.<mac>`, the MAC keyed
/// by the token's stored hash (so a session dies with its token, and the
/// value never contains the token itself).
pub fn member_session_value(token_hash: &str, token_id: &str, expires: Timestamp) -> String {
    let expires_ms = expires.as_millis();
    format!("{token_id}.{expires_ms}.{}", member_session_mac(token_hash, token_id, expires_ms))
}

fn member_session_mac(token_hash: &str, token_id: &str, expires_ms: i64) -> String {
    hmac_hex(token_hash, &format!("docs-member-session\n{token_id}\n{expires_ms}"))
}

/// Whether `value` is an unexpired member session for the token whose
/// stored hash is `token_hash`.
pub fn member_session_valid(token_hash: &str, value: &str, now: Timestamp) -> bool {
    let mut parts = value.splitn(3, '.');
    let (Some(token_id), Some(expires), Some(mac)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let Ok(expires_ms) = expires.parse::<i64>() else { return false };
    if expires_ms <= now.as_millis() {
        return false;
    }
    let expected = member_session_mac(token_hash, token_id, expires_ms);
    !expected.is_empty() && platform::crypto::constant_time_eq(expected.as_bytes(), mac.as_bytes())
}

/// How long the customizations of an account that dropped to Free are kept
/// (seed limits table); resubscribing within it restores them.
pub const CUSTOMIZATION_RETENTION_DAYS: i64 = 14;

impl Hub {
    /// The slug of the project whose docs a request for `host` should
    /// serve: a verified custom domain of a Business account.
    pub async fn project_for_domain(&self, host: &str) -> HubResult<Option<String>> {
        let Ok(domain) = crate::names::Domain::parse(host) else { return Ok(None) };
        Ok(self.store.docs_project_by_domain(domain.as_str()).await?.map(|row| row.slug))
    }

    /// Marks `domain` verified (the operator's step, see docs/docs-pages.md).
    pub async fn verify_custom_domain(&self, domain: &str) -> HubResult<()> {
        let domain = crate::names::Domain::parse(domain)?;
        if self.store.verify_custom_domain(domain.as_str(), self.clock.now()).await? {
            Ok(())
        } else {
            Err(HubError::not_found("project with that custom domain"))
        }
    }

    /// Hard-deletes the customizations of accounts on Free for longer than
    /// the retention period. Run hourly by the scheduler and by
    /// `/api/cron/customizations-prune`; returns the rows removed.
    pub async fn prune_customizations(&self) -> HubResult<u64> {
        let cutoff = self.clock.now().plus_days(-CUSTOMIZATION_RETENTION_DAYS);
        self.store.prune_customizations(cutoff).await
    }
}

fn require(plan: Plan, feature: Feature) -> HubResult<()> {
    if plan.allows(feature) { Ok(()) } else { Err(HubError::PlanRequired { feature, current: plan }) }
}

/// Seconds a docs session cookie stays valid.
pub const DOCS_SESSION_SECONDS: i64 = 7 * 24 * 60 * 60;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn branding_accepts_urls_and_colours_only() {
        let ok = Branding::parse(&json!({"logo_url": "https://acme.example/logo.png", "accent_color": "#FF0000"}));
        assert_eq!(ok.ok().and_then(|b| b.accent_color), Some("#ff0000".to_owned()));
        for (body, field) in [
            (json!({"logo_url": "javascript:alert(1)"}), "logo_url"),
            (json!({"accent_color": "red"}), "accent_color"),
            (json!({"accent_color": "#fff;}</style>"}), "accent_color"),
            (json!({"colour": "#fff"}), "colour"),
        ] {
            match Branding::parse(&body) {
                Err(HubError::InvalidField { field: got, .. }) => assert_eq!(got, field, "{body}"),
                other => panic!("{body}: {other:?}"),
            }
        }
    }

    #[test]
    fn theme_tokens_validate_every_token() {
        let theme = ThemeTokens::parse(&json!({
            "light": {"primary": "#123456", "card": "#fff"},
            "dark": {"background": "#000000"},
            "radius": 6,
            "lock": "dark"
        }));
        assert!(theme.is_ok(), "{theme:?}");
        for body in [
            json!({"light": {"primary": "blue"}}),
            json!({"radius": 100}),
            json!({"radius": -1}),
            json!({"lock": "sepia"}),
            json!({"dark": {"accent": "#fff"}}),
        ] {
            assert!(ThemeTokens::parse(&body).is_err(), "{body}");
        }
    }

    #[test]
    fn customization_limits_buttons_links_and_variants() {
        let button = json!({"label": "Go", "url": "https://a.example", "variant": "outline"});
        let link = json!({"label": "Blog", "url": "https://a.example/blog"});
        let ok = Customization::parse(
            &json!({"header": {"buttons": vec![button.clone(); 6], "links": vec![link.clone(); 8], "search": true}}),
        );
        assert!(ok.is_ok(), "{ok:?}");
        let too_many = Customization::parse(&json!({"header": {"buttons": vec![button.clone(); 7]}}));
        assert!(
            matches!(too_many, Err(HubError::InvalidField { ref field, .. }) if field == "header.buttons"),
            "{too_many:?}"
        );
        let too_many = Customization::parse(&json!({"header": {"links": vec![link; 9]}}));
        assert!(
            matches!(too_many, Err(HubError::InvalidField { ref field, .. }) if field == "header.links"),
            "{too_many:?}"
        );
        let bad = Customization::parse(
            &json!({"header": {"buttons": [{"label": "x", "url": "https://a.example", "variant": "neon"}]}}),
        );
        assert!(
            matches!(bad, Err(HubError::InvalidField { ref field, .. }) if field == "header.buttons[0].variant"),
            "{bad:?}"
        );
        let bad = Customization::parse(&json!({"header": {"links": [{"label": "x", "url": "javascript:alert(1)"}]}}));
        assert!(
            matches!(bad, Err(HubError::InvalidField { ref field, .. }) if field == "header.links[0].url"),
            "{bad:?}"
        );
    }

    #[test]
    fn plans_decide_what_applies() {
        let branding = Branding { accent_color: Some("#ff0000".into()), ..Branding::default() };
        let custom =
            Customization { remove_watermark: true, header: DocsHeader { search: true, ..DocsHeader::default() } };
        let (_, theme, header, badge) = apply(Plan::Free, &branding, None, Some(&custom));
        assert_eq!((theme, header.search, badge), (None, false, true));
        let (_, theme, header, badge) = apply(Plan::Pro, &branding, None, Some(&custom));
        assert_eq!(theme.and_then(|t| t.dark.primary), Some("#ff0000".to_owned()));
        assert_eq!((header.search, badge), (true, false));
        let tokens = ThemeTokens { radius: Some(4), ..ThemeTokens::default() };
        let (_, theme, _, badge) = apply(Plan::Business, &branding, Some(&tokens), None);
        assert_eq!((theme.and_then(|t| t.radius), badge), (Some(4), true));
    }

    #[test]
    fn sessions_are_bound_to_project_password_and_time() {
        let now = Timestamp::from_millis(1_000_000);
        let later = Timestamp::from_millis(2_000_000);
        let member = member_session_value("token-hash", "t1", later);
        assert!(member_session_valid("token-hash", &member, now));
        assert!(!member_session_valid("other-hash", &member, now), "bound to the token");
        assert!(!member_session_valid("token-hash", &member.replacen("t1", "t2", 1), now), "the id is signed");
        assert!(!member_session_valid("token-hash", &member, later), "expired");
        assert!(!member_session_valid("token-hash", "t1.garbage", now));
        let value = session_value("hash-a", "p1", later);
        assert!(session_valid("hash-a", "p1", &value, now));
        assert!(!session_valid("hash-b", "p1", &value, now), "a new password ends sessions");
        assert!(!session_valid("hash-a", "p2", &value, now), "bound to the project");
        assert!(!session_valid("hash-a", "p1", &value, later), "expired");
        let forged = format!("9999999999999.{}", value.split_once('.').map(|(_, m)| m).unwrap_or(""));
        assert!(!session_valid("hash-a", "p1", &forged, now), "the expiry is signed");
        assert!(!session_valid("hash-a", "p1", "garbage", now));
    }

    #[test]
    fn endpoints_and_search_terms_are_normalised() {
        assert_eq!(normalise_endpoint("get   /pets/{id}"), "GET /pets/{id}");
        assert_eq!(normalise_endpoint("query book"), "query book");
        assert_eq!(search_terms("pets \"OR\" NEAR(x) -- drop"), ["pets", "or", "near", "x", "drop"]);
    }
}
