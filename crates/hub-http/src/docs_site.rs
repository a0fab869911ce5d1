//! `/docs/<slug>[/<version>]/...`: the hosted docs pages, their assets,
//! `/widget.js` and the widget's `embed.json`.
//!
//! Per request: the project's docs view (one query for the project, one for
//! its versions, one for its settings), the prepared document (parsed once
//! per content hash and kept), and the page (rendered once per document
//! hash, settings fingerprint and page, and kept). Private projects answer
//! 404 here exactly like missing ones: there is no browser session for
//! members yet, and a token in the URL would leak through logs and
//! referrers.

use std::collections::HashMap;
use std::hash::{Hash as _, Hasher as _};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use docs_render::{Chrome, Page, Site};
use hub_core::docs::{DocsClosed, DocsSite, DocsVersion};
use hub_core::{Feature, Hub};

use crate::error::{ApiError, Code};
use crate::extract::QueryParams;
use platform::document_cache::DocumentCache;

/// Prepared documents kept in memory per node: at most this many, built
/// from at most [`SITE_CACHE_SOURCE_BYTES`] of descriptions.
const SITE_CACHE: usize = 32;
/// A prepared document holds about five and a half times its description
/// (GitHub's 13 MB REST description: about 70 MB), so about 270 MB.
const SITE_CACHE_SOURCE_BYTES: usize = 48 * 1024 * 1024;
/// Rendered pages kept in memory per node.
const PAGE_CACHE: usize = 4096;
/// Content-Security-Policy of every docs page: scripts and styles only from
/// the hub (the theme's `<style>` and layout attributes are inline), images
/// from anywhere (owner logos), requests anywhere (Try-It).
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: http: data:; connect-src *; form-action 'self'; base-uri 'none'; frame-ancestors 'self'";
/// Content-Security-Policy of the pages with a credential form (a docs
/// password, a member sign-in): never framed, so no one can dress them up.
const CREDENTIAL_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Shared state of the docs routes.
pub struct DocsServer {
    hub: Hub,
    /// Prepared documents: concurrent first requests (and the preparation
    /// after a push) wait for a single parse.
    sites: DocumentCache<Site>,
    /// Rendered pages as `Bytes`: a hit is answered without copying the page.
    pages: Mutex<HashMap<(String, u64, String), bytes::Bytes>>,
    /// Bytes held by `pages`: the cache is bounded by size, not entries.
    page_bytes: std::sync::atomic::AtomicUsize,
    /// Every password and token check: per client address and per project
    /// (or token).
    logins: platform::throttle::SignInThrottle,
    relays: platform::throttle::Throttle<std::net::IpAddr>,
    outbound: platform::outbound::Outbound,
    web: crate::WebConfig,
}

/// Password attempts per project per minute (per node).
pub const LOGINS_PER_MINUTE: u32 = 10;
/// Password and token attempts per client address per minute (per node).
pub const LOGINS_PER_IP_PER_MINUTE: u32 = 20;
/// Rendered page bytes kept per node.
const PAGE_CACHE_BYTES: usize = 64 * 1024 * 1024;
/// Try-It relays per client address per minute (per node).
pub const RELAYS_PER_MINUTE: u32 = 30;

impl std::fmt::Debug for DocsServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocsServer").finish_non_exhaustive()
    }
}

impl DocsServer {
    #[must_use]
    pub fn new(hub: Hub, outbound: platform::outbound::Outbound, web: crate::WebConfig) -> Self {
        Self {
            hub,
            sites: DocumentCache::new(SITE_CACHE, SITE_CACHE_SOURCE_BYTES),
            pages: Mutex::new(HashMap::new()),
            page_bytes: std::sync::atomic::AtomicUsize::new(0),
            logins: platform::throttle::SignInThrottle::shared_with(
                &web.limiter,
                "docs.login",
                LOGINS_PER_IP_PER_MINUTE,
                LOGINS_PER_MINUTE,
            ),
            relays: platform::throttle::Throttle::shared(&web.limiter, "docs.relay", RELAYS_PER_MINUTE),
            outbound,
            web,
        }
    }

    /// The client's address, as the trusted proxies let it be known.
    fn client_ip(&self, request: &axum::extract::Request) -> Option<std::net::IpAddr> {
        let peer = request.extensions().get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.ip());
        platform::net::client_ip(&self.web.proxies, peer, request.headers())
    }

    async fn site(&self, version: &DocsVersion) -> Result<Arc<Site>, ApiError> {
        self.site_of(&version.spec_sha256).await
    }

    /// Prepares a freshly pushed document in the background, so that not
    /// even the first docs page after a push pays the parse.
    pub fn prepare(self: &Arc<Self>, spec_sha256: String) {
        let server = self.clone();
        tokio::spawn(async move {
            if let Err(err) = server.site_of(&spec_sha256).await {
                tracing::debug!(error = ?err, "preparing a pushed document for the docs failed");
            }
        });
    }

    /// The endpoints of a stored document as owner-written markdown keys
    /// them (`GET /pets/{id}`, `query user`), each with its summary: what
    /// the docs builder lists. The parse is the docs pages' own, cached.
    pub(crate) async fn endpoints(&self, spec_sha256: &str) -> Result<Vec<(String, String)>, ApiError> {
        let site = self.site_of(spec_sha256).await?;
        let spec = site.spec();
        let mut out: Vec<(String, String)> = spec
            .operations
            .iter()
            .map(|op| (format!("{} {}", op.method, op.path), op.summary.clone().unwrap_or_default()))
            .collect();
        if let Some(model) = &spec.graphql {
            for (kind, fields) in
                [("query", &model.queries), ("mutation", &model.mutations), ("subscription", &model.subscriptions)]
            {
                out.extend(fields.iter().map(|field| {
                    let summary = field
                        .description
                        .as_deref()
                        .map(|d| docs_render::markdown::first_line(d, 120))
                        .unwrap_or_default();
                    (format!("{kind} {}", field.name), summary)
                }));
            }
        }
        Ok(out)
    }

    /// The parsed description of a stored document (cached), for the MCP tools.
    pub(crate) async fn site_for(&self, spec_sha256: &str) -> Result<Arc<Site>, ApiError> {
        self.site_of(spec_sha256).await
    }

    async fn site_of(&self, spec_sha256: &str) -> Result<Arc<Site>, ApiError> {
        self.sites
            .get_or_build(spec_sha256, || async {
                let document = self.hub.docs_document(spec_sha256).await?;
                let source_bytes = document.len();
                let site = tokio::task::spawn_blocking(move || spec::parse(&document).map(Site::new))
                    .await
                    .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("docs parse task failed: {e}"))))?
                    .map_err(|e| {
                        ApiError::from(hub_core::HubError::Internal(format!("stored spec does not parse: {e}")))
                    })?;
                Ok((site, source_bytes))
            })
            .await
    }
}

/// Set by [`host_routing`] on requests that arrived through a project's
/// custom domain (and removed from every incoming request first, so a
/// client cannot set it).
const CUSTOM_DOMAIN_HEADER: &str = "x-svc-custom-domain";

/// Where a request found the project: `/docs/<slug>`, or the root of its
/// custom domain.
fn base_path(headers: &HeaderMap, slug: &str) -> String {
    if headers.contains_key(CUSTOM_DOMAIN_HEADER) { String::new() } else { format!("/docs/{slug}") }
}

/// State of the Host routing: the hub and the docs router. Cloned for
/// every request that passes a middleware holding it, so one `Arc`.
#[derive(Clone)]
pub struct Domains(std::sync::Arc<DomainsInner>);

struct DomainsInner {
    hub: Hub,
    docs: axum::Router,
    /// The hub's and the mock's public host names: never custom domains.
    own_hosts: Vec<String>,
}

impl std::fmt::Debug for Domains {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Domains").finish_non_exhaustive()
    }
}

impl Domains {
    #[must_use]
    pub fn new(hub: Hub, docs: axum::Router, own_urls: &[&str]) -> Self {
        let own_hosts = own_urls
            .iter()
            .filter_map(|url| url::Url::parse(url).ok())
            .filter_map(|url| url.host_str().map(str::to_ascii_lowercase))
            .collect();
        Self(std::sync::Arc::new(DomainsInner { hub, docs, own_hosts }))
    }

    /// One indexed query; only requests outside the hub's own prefixes
    /// (`/api/`, `/mock/`, `/docs/`, ...) on a named host ask it, so a
    /// verification or a downgrade applies at once without a cache.
    async fn slug_for(&self, host: &str) -> Option<String> {
        match self.0.hub.project_for_domain(host).await {
            Ok(slug) => slug,
            Err(err) => {
                tracing::warn!(error = %err, "custom domain lookup failed");
                None
            }
        }
    }
}

/// The host a request names, without port or trailing dot, when it is a
/// name that could be a custom domain (not an address, not one of ours).
fn foreign_host(domains: &Domains, headers: &HeaderMap) -> Option<String> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok())?;
    // An IPv4 address with its port, or an IPv6 literal: the common case
    // of every request that does not come through a name.
    if host.starts_with('[') || host.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b':') {
        return None;
    }
    let name = host
        .rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(host, |(name, _)| name)
        .trim_end_matches('.');
    // Addresses and single labels never are; decided before allocating.
    if !name.contains('.') || name.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let name = name.to_ascii_lowercase();
    (!domains.0.own_hosts.contains(&name)).then_some(name)
}

/// Whether a request reached the hub through a verified custom domain:
/// such a host serves docs only (the hosted mock asks). Addresses and the
/// hub's own host names (every benchmark and most deployments) answer
/// without a lookup.
pub(crate) async fn is_custom_domain(domains: &Domains, headers: &HeaderMap) -> bool {
    match foreign_host(domains, headers) {
        Some(host) => domains.slug_for(&host).await.is_some(),
        None => false,
    }
}

/// Host routing: a request whose Host is a verified custom domain is served
/// that project's docs at the root (`/`, `/<version>`, `/<version>/op/..`);
/// the assets, the widget, the mock, the API and `/docs/...` keep their paths.
pub async fn host_routing(
    State(domains): State<Domains>,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    request.headers_mut().remove(CUSTOM_DOMAIN_HEADER);
    let path = request.uri().path().to_owned();
    // The docs' own assets and pages pass straight through on every host.
    let docs_paths = ["/_docs/", "/widget.js", "/docs/"].iter().any(|prefix| path.starts_with(prefix));
    if docs_paths {
        return next.run(request).await;
    }
    // The hub's own host names, addresses and single-label names pass
    // without a lookup.
    let Some(host) = foreign_host(&domains, request.headers()) else {
        return next.run(request).await;
    };
    let hub_paths =
        ["/mock/", "/healthz", "/readyz", "/metrics", "/api/"].iter().any(|prefix| path.starts_with(prefix));
    let Some(slug) = domains.slug_for(&host).await else { return next.run(request).await };
    if hub_paths {
        // A custom domain serves its docs and nothing else: not the API,
        // and never the mock, whose tenant-written answers must not share
        // an origin with the docs' password and member cookies.
        return ApiError::new(Code::NotFound, "a custom domain serves its project's docs only").into_response();
    }

    let rewritten = match request.uri().query() {
        Some(query) => format!("/docs/{slug}{}?{query}", path.trim_end_matches('/')),
        None => format!("/docs/{slug}{}", path.trim_end_matches('/')),
    };
    let Ok(uri) = rewritten.parse::<axum::http::Uri>() else { return next.run(request).await };
    *request.uri_mut() = uri;
    request.headers_mut().insert(CUSTOM_DOMAIN_HEADER, HeaderValue::from_static("1"));
    match tower::ServiceExt::oneshot(domains.0.docs.clone(), request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// The name of the cookie that carries a project's docs session (before the
/// `__Host-` prefix). Its path is `/`, so the project's mock at
/// `/mock/<slug>` receives it too when the mock shares the hub's origin.
pub fn session_cookie_name(slug: &str) -> String {
    format!("{SESSION_COOKIE_PREFIX}{slug}")
}

/// The start of every docs password session's cookie name.
pub const SESSION_COOKIE_PREFIX: &str = "svc_docs_session_";

/// The docs session a request presents for `slug`, if any.
pub fn session_cookie(cookies: &platform::web::CookiePolicy, headers: &HeaderMap, slug: &str) -> Option<String> {
    cookies.get(headers, &session_cookie_name(slug)).map(str::to_owned)
}

fn password_required(slug: &str) -> ApiError {
    ApiError::new(Code::PasswordRequired, "These docs are password-protected. Enter the password to open them.")
        .with_details(serde_json::json!({ "login_action": format!("/docs/{slug}/_login") }))
}

/// The cookie of a member's docs session (see `/docs/_signin`).
pub const MEMBER_COOKIE: &str = "svc_docs_member";

async fn open(server: &DocsServer, slug: &str, headers: &HeaderMap) -> Result<DocsSite, ApiError> {
    let session = session_cookie(&server.web.cookies, headers, slug);
    let visitor = hub_core::docs::DocsVisitor {
        password_session: session.as_deref(),
        member_session: server.web.cookies.get(headers, MEMBER_COOKIE),
        authorization: headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()),
        dashboard_session: server.web.cookies.get(headers, crate::dashboard::SESSION_COOKIE),
    };
    match server.hub.docs_site(slug, visitor).await? {
        Ok(site) => Ok(site),
        Err(DocsClosed::NotFound) => {
            // The same answer for a missing and a private project; the
            // sign-in link is on every such page, so it tells nothing.
            let next = format!("/docs/{slug}");
            Err(ApiError::new(Code::NotFound, "project not found").with_details(
                serde_json::json!({ "signin": format!("/docs/_signin?next={}", docs_render::encode(&next)) }),
            ))
        }
        Err(DocsClosed::PasswordRequired) => Err(password_required(slug)),
    }
}

/// Only docs pages are valid places to return to after a sign-in.
fn safe_next(next: Option<&str>) -> String {
    match next {
        Some(next)
            if next.starts_with("/docs/")
                && !next.contains("//")
                && !next.contains('\\')
                && next.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            next.to_owned()
        }
        _ => "/docs/".to_owned(),
    }
}

/// `GET /docs/_signin?next=/docs/<slug>`: the member sign-in form.
pub async fn signin_form(State(server): State<Arc<DocsServer>>, headers: HeaderMap, query: QueryParams) -> Response {
    let csrf = server.web.csrf.issue(&headers);
    let page = docs_render::signin_page(&safe_next(query.get("next")), None, &csrf.token);
    credential_page(StatusCode::OK, page, csrf.set_cookie.as_deref())
}

/// A page with a credential form: never cached, never framed, with the
/// CSRF cookie when the browser had none.
fn credential_page(status: StatusCode, page: String, set_cookie: Option<&str>) -> Response {
    let mut response = (status, page).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CREDENTIAL_CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    if let Some(cookie) = set_cookie.and_then(|c| HeaderValue::from_str(c).ok()) {
        headers.append(header::SET_COOKIE, cookie);
    }
    response
}

/// Largest form body of the sign-in, sign-out and password forms.
const FORM_LIMIT: usize = 16 * 1024;

/// A posted form's fields (the last value of each name wins), read within
/// [`FORM_LIMIT`].
async fn form_fields(headers: &HeaderMap, body: axum::body::Body) -> Result<Vec<(String, String)>, ApiError> {
    let body = platform::http::read_body_limited(headers, body, FORM_LIMIT)
        .await
        .map_err(|e| ApiError::new(Code::PayloadTooLarge, e.to_string()))?;
    Ok(serde_urlencoded::from_bytes(&body).unwrap_or_default())
}

fn field<'a>(form: &'a [(String, String)], name: &str) -> Option<&'a str> {
    form.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The answer to a form posted without this browser's CSRF token.
fn csrf_refused() -> ApiError {
    ApiError::new(
        Code::Forbidden,
        "this form has expired or did not come from this site; reload the page and submit it again",
    )
}

fn throttled(refused: platform::throttle::RetryAfter) -> ApiError {
    hub_core::HubError::RateLimited { limit: refused.per_minute, retry_after_secs: refused.secs }.into()
}

/// `POST /docs/_signin` (form: `token`, `next`, `csrf_token`): checks a
/// personal access token and sets the member session cookie. Attempts are
/// limited per client address and per token.
pub async fn signin(State(server): State<Arc<DocsServer>>, request: axum::extract::Request) -> Response {
    let ip = server.client_ip(&request);
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let form = match form_fields(&headers, body).await {
        Ok(form) => form,
        Err(error) => return error.into_html_response(),
    };
    let next = safe_next(field(&form, "next"));
    if !server.web.csrf.verify(&headers, field(&form, platform::web::CSRF_FIELD)) {
        return csrf_refused().into_html_response();
    }
    let token = field(&form, "token").unwrap_or("");
    // The token's public prefix is its account key; the whole token never
    // becomes a map key.
    let account: String = format!("token:{}", token.chars().take(16).collect::<String>());
    if let Err(refused) = server.logins.check(ip, &account).await {
        return throttled(refused).into_html_response();
    }
    match server.hub.member_signin(token).await {
        Ok((value, expires)) => {
            let max_age = (expires.as_millis() - server.hub.clock().now().as_millis()).max(0) / 1000;
            let cookie = server.web.cookies.set(MEMBER_COOKIE, &value, max_age);
            see_other(&next, Some(&cookie))
        }
        Err(hub_core::HubError::InvalidToken(_)) => {
            let csrf = server.web.csrf.issue(&headers);
            credential_page(
                StatusCode::UNAUTHORIZED,
                docs_render::signin_page(
                    &next,
                    Some("That token is not valid (unknown, revoked or expired)."),
                    &csrf.token,
                ),
                csrf.set_cookie.as_deref(),
            )
        }
        Err(error) => ApiError::from(error).into_html_response(),
    }
}

/// `GET /docs/_signout`: a one-button form, since a sign-out is a
/// cookie-authenticated change and carries a CSRF token like any other.
pub async fn signout_form(State(server): State<Arc<DocsServer>>, headers: HeaderMap) -> Response {
    let csrf = server.web.csrf.issue(&headers);
    credential_page(StatusCode::OK, docs_render::signout_page(&csrf.token), csrf.set_cookie.as_deref())
}

/// `POST /docs/_signout` (form: `csrf_token`): ends the member session in
/// this browser.
pub async fn signout(State(server): State<Arc<DocsServer>>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let form = match form_fields(&parts.headers, body).await {
        Ok(form) => form,
        Err(error) => return error.into_html_response(),
    };
    if !server.web.csrf.verify(&parts.headers, field(&form, platform::web::CSRF_FIELD)) {
        return csrf_refused().into_html_response();
    }
    see_other("/docs/_signin", Some(&server.web.cookies.clear(MEMBER_COOKIE)))
}

fn see_other(location: &str, cookie: Option<&str>) -> Response {
    let mut response = (StatusCode::SEE_OTHER, "").into_response();
    if let Ok(location) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    if let Some(cookie) = cookie.and_then(|c| HeaderValue::from_str(c).ok()) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// `POST /docs/<slug>/_login` (form: `password`, `next`, `csrf_token`):
/// checks the docs password and sets the session cookie. Attempts are
/// limited per client address and per project.
pub async fn login(
    State(server): State<Arc<DocsServer>>,
    Path(slug): Path<String>,
    request: axum::extract::Request,
) -> Response {
    let ip = server.client_ip(&request);
    let (parts, body) = request.into_parts();
    let headers = parts.headers;
    let form = match form_fields(&headers, body).await {
        Ok(form) => form,
        Err(error) => return error.into_html_response(),
    };
    let home = format!("/docs/{slug}");
    let next = field(&form, "next")
        .filter(|n| *n == home || n.starts_with(&format!("{home}/")))
        .filter(|n| n.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or(&home)
        .to_owned();
    if !server.web.csrf.verify(&headers, field(&form, platform::web::CSRF_FIELD)) {
        return password_page(
            &server,
            &headers,
            password_required(&slug)
                .with_message("This form has expired or did not come from this site; enter the password again."),
        );
    }
    if let Err(refused) = server.logins.check(ip, &format!("project:{slug}")).await {
        return throttled(refused).into_html_response();
    }
    match server.hub.docs_login(&slug, field(&form, "password").unwrap_or("")).await {
        Ok(Some((value, expires))) => {
            let max_age = (expires.as_millis() - server.hub.clock().now().as_millis()) / 1000;
            let cookie = server.web.cookies.set(&session_cookie_name(&slug), &value, max_age);
            see_other(&next, Some(&cookie))
        }
        Ok(None) => {
            password_page(&server, &headers, password_required(&slug).with_message("Wrong password; try again."))
        }
        Err(error) => ApiError::from(error).into_html_response(),
    }
}

/// The password form of a protected project, with this browser's CSRF token.
fn password_page(server: &DocsServer, headers: &HeaderMap, error: ApiError) -> Response {
    let csrf = server.web.csrf.issue(headers);
    let mut response = error.into_html_response_with_csrf(Some(&csrf.token));
    let response_headers = response.headers_mut();
    response_headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CREDENTIAL_CSP));
    if let Some(cookie) = csrf.set_cookie.as_deref().and_then(|c| HeaderValue::from_str(c).ok()) {
        response_headers.append(header::SET_COOKIE, cookie);
    }
    response
}

async fn chrome(
    server: &DocsServer,
    headers: &HeaderMap,
    site: &DocsSite,
    version: &DocsVersion,
    with_markdown: bool,
) -> Result<Chrome, ApiError> {
    let endpoint_markdown = if with_markdown && site.owner_plan.allows(Feature::DocsBuilder) {
        server
            .hub
            .docs_endpoint_markdown(&site.project_id, &version.label)
            .await?
            .into_iter()
            .map(|m| (m.endpoint, docs_render::EndpointMarkdown { intro: m.intro, extras: m.extras }))
            .collect()
    } else {
        std::collections::BTreeMap::new()
    };
    let theme = site.theme.as_ref().map(render_theme);
    Ok(Chrome {
        project_name: site.name.clone(),
        base: base_path(headers, &site.slug),
        asset_base: docs_render::assets::BASE.to_owned(),
        versions: site
            .versions
            .iter()
            .filter(|v| !v.is_preview || v.label == version.label)
            .map(|v| docs_render::VersionLink {
                label: v.label.clone(),
                is_default: v.is_default,
                is_preview: v.is_preview,
            })
            .collect(),
        label: version.label.clone(),
        base_url: version.base_url.clone().or_else(|| site.base_url.clone()),
        mock_url: site
            .mock_open
            .then(|| format!("{}/{}@{}", server.web.mock_base(), site.slug, docs_render::encode(&version.label))),
        save_url: site
            .owner_plan
            .allows(Feature::SavedRequests)
            .then(|| format!("{}/app/p/{}/requests/new", server.web.public_url.trim_end_matches('/'), site.slug)),
        logo_url: site.branding.logo_url.clone(),
        favicon_url: site.branding.favicon_url.clone(),
        theme,
        header: docs_render::Header {
            logo_url: site.header.logo_url.clone(),
            title: site.header.title.clone(),
            buttons: site
                .header
                .buttons
                .iter()
                .map(|b| docs_render::HeaderButton {
                    label: b.label.clone(),
                    url: b.url.clone(),
                    variant: b.variant.clone(),
                })
                .collect(),
            links: site
                .header
                .links
                .iter()
                .map(|l| docs_render::HeaderLink { label: l.label.clone(), url: l.url.clone() })
                .collect(),
            search: site.header.search,
        },
        show_badge: site.show_badge,
        endpoint_markdown,
        search: None,
        // AI search on every plan (Free counts 5 a month), the chat drawer
        // where the plan has chat tokens.
        assistant: docs_render::Assistant { ask: true, chat: site.owner_plan.allows(Feature::DocsChat) },
    })
}

/// Saved (or, in the builder's preview, unsaved) theme tokens as the
/// renderer takes them.
pub(crate) fn render_theme(t: &hub_core::docs::ThemeTokens) -> docs_render::Theme {
    docs_render::Theme { light: palette(&t.light), dark: palette(&t.dark), radius: t.radius, lock: t.lock.clone() }
}

fn palette(p: &hub_core::docs::Palette) -> docs_render::Palette {
    docs_render::Palette {
        primary: p.primary.clone(),
        background: p.background.clone(),
        foreground: p.foreground.clone(),
        muted: p.muted.clone(),
        border: p.border.clone(),
        card: p.card.clone(),
    }
}

fn fingerprint(chrome: &Chrome) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(chrome).unwrap_or_default().hash(&mut hasher);
    hasher.finish()
}

/// A docs page. Pages of private or password-protected projects are
/// `private, no-store`, so no shared cache keeps what a member or a
/// password opened.
fn html(body: bytes::Bytes, restricted: bool) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    let cache = if restricted { "private, no-store" } else { "no-cache" };
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin"));
    response
}

/// Which page a route asks for, owned (it outlives the request's borrows).
#[derive(Clone, Debug)]
enum Wanted {
    Overview,
    Operation(String),
    Tag(String),
    Schemas,
    Schema(String),
    Type(String),
    Field(String, String),
}

impl Wanted {
    fn key(&self) -> String {
        match self {
            Self::Overview => "overview".to_owned(),
            Self::Operation(k) => format!("op/{k}"),
            Self::Tag(k) => format!("tag/{k}"),
            Self::Schemas => "schemas".to_owned(),
            Self::Schema(k) => format!("schema/{k}"),
            Self::Type(k) => format!("type/{k}"),
            Self::Field(kind, name) => format!("field/{kind}/{name}"),
        }
    }

    fn page(&self) -> Page<'_> {
        match self {
            Self::Overview => Page::Overview,
            Self::Operation(k) => Page::Operation(k),
            Self::Tag(k) => Page::Tag(k),
            Self::Schemas => Page::Schemas,
            Self::Schema(k) => Page::Schema(k),
            Self::Type(k) => Page::Type(k),
            Self::Field(kind, name) => Page::Field(kind, name),
        }
    }
}

async fn page(
    server: &DocsServer,
    headers: &HeaderMap,
    slug: &str,
    label: Option<&str>,
    wanted: Wanted,
) -> Result<Response, ApiError> {
    let site = open(server, slug, headers).await?;
    let version = version_of(&site, label)?;
    let prepared = server.site(version).await?;
    let with_markdown = matches!(wanted, Wanted::Operation(_) | Wanted::Field(..))
        || (matches!(wanted, Wanted::Overview) && prepared.spec().graphql.is_some());
    let chrome = chrome(server, headers, &site, version, with_markdown).await?;
    let key = (version.spec_sha256.clone(), fingerprint(&chrome), wanted.key());
    if let Some(hit) = server.pages.lock().ok().and_then(|p| p.get(&key).cloned()) {
        return Ok(html(hit, site.restricted));
    }
    let rendered = tokio::task::spawn_blocking(move || docs_render::try_render(&prepared, &chrome, wanted.page()))
        .await
        .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("docs render task failed: {e}"))))?
        .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("docs template failed: {e}"))))?
        .ok_or_else(|| ApiError::new(Code::NotFound, "no such page in these docs"))?;
    let rendered = bytes::Bytes::from(rendered);
    if let Ok(mut pages) = server.pages.lock() {
        use std::sync::atomic::Ordering;
        if pages.len() >= PAGE_CACHE || server.page_bytes.load(Ordering::Relaxed) + rendered.len() > PAGE_CACHE_BYTES {
            pages.clear();
            server.page_bytes.store(0, Ordering::Relaxed);
        }
        server.page_bytes.fetch_add(rendered.len(), Ordering::Relaxed);
        pages.insert(key, rendered.clone());
    }
    Ok(html(rendered, site.restricted))
}

fn respond(server: &DocsServer, headers: &HeaderMap, result: Result<Response, ApiError>) -> Response {
    match result {
        Ok(response) => response,
        Err(error) if error.code() == Code::PasswordRequired => password_page(server, headers, error),
        Err(error) => error.into_html_response(),
    }
}

pub async fn overview(State(server): State<Arc<DocsServer>>, Path(slug): Path<String>, headers: HeaderMap) -> Response {
    respond(&server, &headers, page(&server, &headers, &slug, None, Wanted::Overview).await)
}

pub async fn version_overview(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Overview).await)
}

/// `/docs/<slug>/<version>/openapi`: the version's description as it was
/// pushed (OpenAPI or Swagger JSON or YAML, or the GraphQL schema), as a
/// download.
pub async fn download(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, download_inner(&server, &headers, &slug, &label).await)
}

async fn download_inner(
    server: &DocsServer,
    headers: &HeaderMap,
    slug: &str,
    label: &str,
) -> Result<Response, ApiError> {
    let site = open(server, slug, headers).await?;
    let version = site.version(Some(label)).ok_or_else(|| ApiError::new(Code::NotFound, "version not found"))?;
    let prepared = server.site(version).await?;
    let document = server.hub.docs_document(&version.spec_sha256).await?;
    let (extension, content_type) = match prepared.spec().format {
        spec::SpecFormat::GraphQl => ("graphql", "application/graphql; charset=utf-8"),
        _ if document.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') => ("json", "application/json"),
        _ => ("yaml", "application/yaml; charset=utf-8"),
    };
    // Slugs and labels are plain names; anything else is dropped from the
    // file name.
    let file: String = format!("{slug}-{label}.{extension}")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    let mut response = (StatusCode::OK, document).into_response();
    let out = response.headers_mut();
    out.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{file}\"")) {
        out.insert(header::CONTENT_DISPOSITION, value);
    }
    let cache = if site.restricted { "private, no-store" } else { "no-cache" };
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    out.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    Ok(response)
}

pub async fn operation(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label, key)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(key) = key.strip_suffix(".md") {
        let what = Markdown::Operation(key.to_owned());
        return respond(&server, &headers, markdown(&server, &headers, &slug, Some(&label), what).await);
    }
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Operation(key)).await)
}

/// The version a page asks for (the default without a label), or 404.
fn version_of<'s>(site: &'s DocsSite, label: Option<&str>) -> Result<&'s DocsVersion, ApiError> {
    site.version(label).ok_or_else(|| match label {
        Some(label) => ApiError::new(Code::NotFound, format!("version `{label}` not found")),
        None => ApiError::new(Code::NotFound, "this project has no published version yet"),
    })
}

/// A page for assistants: `llms.txt`, or the Markdown beside a page.
enum Markdown {
    Index,
    /// By the page's key (`op/<key>`).
    Operation(String),
    Schema(String),
}

/// `/docs/<slug>/llms.txt` (the default version) and
/// `/docs/<slug>/<version>/llms.txt`.
pub async fn llms_txt(State(server): State<Arc<DocsServer>>, Path(slug): Path<String>, headers: HeaderMap) -> Response {
    respond(&server, &headers, markdown(&server, &headers, &slug, None, Markdown::Index).await)
}

pub async fn version_llms_txt(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, markdown(&server, &headers, &slug, Some(&label), Markdown::Index).await)
}

/// The Markdown renditions (`crate::llms`): who may read them is who may
/// read the page.
async fn markdown(
    server: &DocsServer,
    headers: &HeaderMap,
    slug: &str,
    label: Option<&str>,
    what: Markdown,
) -> Result<Response, ApiError> {
    let site = open(server, slug, headers).await?;
    let version = version_of(&site, label)?;
    let prepared = server.site(version).await?;
    let base = format!("{}/{}", base_path(headers, &site.slug), docs_render::encode(&version.label));
    let text = tokio::task::spawn_blocking(move || {
        let spec = prepared.spec();
        match what {
            Markdown::Index => Some(crate::llms::index(&prepared, &base)),
            Markdown::Operation(key) => prepared.operation(&key).map(|op| crate::llms::operation(spec, op)),
            Markdown::Schema(name) => crate::llms::schema(spec, &name),
        }
    })
    .await
    .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("markdown task failed: {e}"))))?
    .ok_or_else(|| ApiError::new(Code::NotFound, "no such page in these docs"))?;
    let mut response = (StatusCode::OK, text).into_response();
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/markdown; charset=utf-8"));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if site.restricted { "private, no-store" } else { "no-cache" }),
    );
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    Ok(response)
}

pub async fn tag(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label, name)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Tag(name)).await)
}

pub async fn schemas(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Schemas).await)
}

pub async fn schema(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label, name)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(name) = name.strip_suffix(".md") {
        let what = Markdown::Schema(name.to_owned());
        return respond(&server, &headers, markdown(&server, &headers, &slug, Some(&label), what).await);
    }
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Schema(name)).await)
}

pub async fn graphql_type(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label, name)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Type(name)).await)
}

pub async fn graphql_field(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label, kind, name)): Path<(String, String, String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(&server, &headers, page(&server, &headers, &slug, Some(&label), Wanted::Field(kind, name)).await)
}

/// `/docs/<slug>/<version>/search?q=`: full-text search over the version.
/// `&format=json` answers the hits as JSON (the quick-search overlay);
/// `?index=<hash>` answers the version's prebuilt quick-search index.
pub async fn search(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    headers: HeaderMap,
    query: QueryParams,
) -> Response {
    let format = if query.get("index").is_some() {
        SearchFormat::Index
    } else if query.get("format") == Some("json") {
        SearchFormat::Json
    } else {
        SearchFormat::Html
    };
    respond(
        &server,
        &headers,
        search_inner(&server, &headers, &slug, &label, query.get("q").unwrap_or(""), format).await,
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SearchFormat {
    Html,
    Json,
    Index,
}

fn json_response(body: String, cache: &'static str) -> Response {
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    response
}

async fn search_inner(
    server: &DocsServer,
    headers: &HeaderMap,
    slug: &str,
    label: &str,
    q: &str,
    format: SearchFormat,
) -> Result<Response, ApiError> {
    let site = open(server, slug, headers).await?;
    let version = site.version(Some(label)).ok_or_else(|| ApiError::new(Code::NotFound, "version not found"))?;
    let prepared = server.site(version).await?;
    if format == SearchFormat::Index {
        // The URL carries the index's content hash, so a public copy can be
        // kept for long; a restricted project's never leaves the browser.
        let cache = if site.restricted { "private, no-store" } else { "public, max-age=86400" };
        let json = {
            let prepared = prepared.clone();
            tokio::task::spawn_blocking(move || prepared.quick_index().json.clone())
                .await
                .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("docs index task failed: {e}"))))?
        };
        return Ok(json_response(json, cache));
    }
    let q: String = q.chars().take(200).collect();
    let hits = {
        let prepared = prepared.clone();
        server.hub.docs_search(&version.spec_sha256, &q, move || hub_core::docs::search_sections(&prepared)).await?
    };
    if format == SearchFormat::Json {
        let hits: Vec<serde_json::Value> = hits
            .into_iter()
            .take(20)
            .map(|h| serde_json::json!({ "target": h.target, "title": h.title, "snippet": h.body }))
            .collect();
        let cache = if site.restricted { "private, no-store" } else { "no-cache" };
        return Ok(json_response(serde_json::json!({ "query": q, "hits": hits }).to_string(), cache));
    }
    let mut chrome = chrome(server, headers, &site, version, false).await?;
    chrome.search = Some(docs_render::SearchResults {
        query: q,
        hits: hits
            .into_iter()
            .map(|h| docs_render::SearchHit { target: h.target, title: h.title, snippet: h.body })
            .collect(),
    });
    let rendered = tokio::task::spawn_blocking(move || docs_render::try_render(&prepared, &chrome, Page::Search))
        .await
        .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("docs render task failed: {e}"))))?
        .map_err(|e| ApiError::from(hub_core::HubError::Internal(format!("docs template failed: {e}"))))?
        .ok_or_else(|| ApiError::new(Code::NotFound, "no such page in these docs"))?;
    Ok(html(bytes::Bytes::from(rendered), site.restricted))
}

/// `/docs/<slug>/embed.json?operation=<key>[&version=<label>]`: what the
/// widget needs for one operation. Embedding is a Pro feature.
pub async fn embed(
    State(server): State<Arc<DocsServer>>,
    Path(slug): Path<String>,
    headers: HeaderMap,
    query: QueryParams,
) -> Response {
    match embed_inner(&server, &headers, &slug, &query).await {
        Ok(response) => response,
        Err(error) => error.into_response(),
    }
}

async fn embed_inner(
    server: &DocsServer,
    headers: &HeaderMap,
    slug: &str,
    query: &QueryParams,
) -> Result<Response, ApiError> {
    let site = open(server, slug, headers).await?;
    if !site.owner_plan.allows(Feature::Embed) {
        return Err(hub_core::HubError::PlanRequired { feature: Feature::Embed, current: site.owner_plan }.into());
    }
    let key = query.get("operation").ok_or_else(|| ApiError::field("operation", "operation is required"))?;
    let version =
        site.version(query.get("version")).ok_or_else(|| ApiError::new(Code::NotFound, "version not found"))?;
    let prepared = server.site(version).await?;
    let chrome = chrome(server, headers, &site, version, false).await?;
    let value = docs_render::embed(&prepared, &chrome, key)
        .ok_or_else(|| ApiError::new(Code::NotFound, format!("operation `{key}` not found")))?;
    let mut response = Json(value).into_response();
    // As every docs route: what a member or a password opened is never
    // kept by a shared cache.
    let cache = if site.restricted { "private, no-store" } else { "no-cache" };
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    Ok(response)
}

/// `POST /docs/<slug>/<version>/_tryit`: the Try-It relay for APIs that do
/// not answer browsers' CORS preflights (see `hub_core::tryit` for the
/// rules). Same visibility as the docs pages; JSON only, so a plain
/// cross-site form cannot use it.
pub async fn relay(
    State(server): State<Arc<DocsServer>>,
    Path((slug, label)): Path<(String, String)>,
    request: axum::extract::Request,
) -> Response {
    let mut response = match relay_inner(&server, &slug, &label, request).await {
        Ok(value) => Json(value).into_response(),
        Err(error) => error.into_response(),
    };
    // A live call's answer, for one visitor: never stored.
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    response
}

async fn relay_inner(
    server: &DocsServer,
    slug: &str,
    label: &str,
    request: axum::extract::Request,
) -> Result<serde_json::Value, ApiError> {
    let ip = server.client_ip(&request).unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    server.relays.check(&ip).await.map_err(throttled)?;
    let (parts, body) = request.into_parts();
    let limit = hub_core::tryit::MAX_BODY_BYTES * 2 + 64 * 1024;
    let body = json_body(&parts.headers, body, limit, "the relay request").await?;
    let site = open(server, slug, &parts.headers).await?;
    let version = site
        .version(Some(label))
        .ok_or_else(|| ApiError::new(Code::NotFound, format!("version `{label}` not found")))?;
    let prepared = server.site(version).await?;
    let chrome = chrome(server, &parts.headers, &site, version, false).await?;
    let bases = docs_render::api_bases(&prepared, &chrome);
    let relayed = hub_core::tryit::RelayRequest::parse(&body, &bases)?;
    Ok(hub_core::tryit::relay(&server.outbound, relayed).await?)
}

/// A version of a project's docs opened for a JSON request of its pages.
pub(crate) struct OpenedDocs {
    pub(crate) site: DocsSite,
    pub(crate) version: DocsVersion,
    pub(crate) prepared: Arc<Site>,
    /// The version's path (`/docs/<slug>/<label>`, or `/<label>` on a
    /// custom domain): page links are relative to it.
    pub(crate) vbase: String,
    /// Who asks: the client address, as the trusted proxies tell it.
    pub(crate) visitor: String,
}

impl DocsServer {
    pub(crate) const fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Opens a version for a JSON request (the Try-It relay's rules: JSON
    /// only, bounded, the pages' visibility) and reads its body.
    pub(crate) async fn open_json(
        &self,
        slug: &str,
        label: &str,
        request: axum::extract::Request,
        limit: usize,
    ) -> Result<(OpenedDocs, serde_json::Value), ApiError> {
        let visitor =
            self.client_ip(&request).map_or_else(|| "unknown".to_owned(), |ip| platform::net::rate_key(ip).to_string());
        let (parts, body) = request.into_parts();
        let body = json_body(&parts.headers, body, limit, "the request").await?;
        let body: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| ApiError::field("body", format!("the body is not JSON: {e}")))?;
        if !body.is_object() {
            return Err(ApiError::field("body", "the body is a JSON object"));
        }
        let site = open(self, slug, &parts.headers).await?;
        let version = site
            .version(Some(label))
            .cloned()
            .ok_or_else(|| ApiError::new(Code::NotFound, format!("version `{label}` not found")))?;
        let prepared = self.site(&version).await?;
        let vbase = format!("{}/{}", base_path(&parts.headers, slug), docs_render::encode(&version.label));
        Ok((OpenedDocs { site, version, prepared, vbase, visitor }, body))
    }
}

/// The body of a JSON request from a docs page (the Try-It relay, the
/// assistant): `application/json` only, so a plain cross-site form cannot
/// send one, and at most `limit` bytes. `what` names the request in the
/// refusals.
async fn json_body(
    headers: &HeaderMap,
    body: axum::body::Body,
    limit: usize,
    what: &str,
) -> Result<bytes::Bytes, ApiError> {
    let json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json")));
    if !json {
        return Err(ApiError::field("content-type", format!("send {what} as application/json")));
    }
    platform::http::read_body_limited(headers, body, limit)
        .await
        .map_err(|_| ApiError::new(Code::PayloadTooLarge, format!("{what} is larger than {limit} bytes")))
}

/// `/_docs/<file>` and `/widget.js`: the assets, compiled in.
pub async fn asset(Path(name): Path<String>) -> Response {
    serve_asset(&name)
}

pub async fn widget() -> Response {
    serve_asset("widget.js")
}

fn serve_asset(name: &str) -> Response {
    match docs_render::assets::get(name) {
        Some((content_type, body)) => {
            let mut response = body.into_response();
            let headers = response.headers_mut();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
            headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
            headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
            response
        }
        None => ApiError::new(Code::NotFound, "no such asset").into_response(),
    }
}
