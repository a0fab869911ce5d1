//! The dashboard: server-rendered pages under `/app` where people sign up,
//! sign in and do everything the API does, through the same `Hub` use cases
//! with `Source::Dashboard` (so the role gate, plan gates and audit rows are
//! the API's).
//!
//! Conventions every page follows (see docs/dashboard.md):
//! - one layout (`layout.html`) and one set of components (`macros.html`);
//! - a GET renders; a POST checks the session and the CSRF token, calls one
//!   use case, and redirects with a flash message (post/redirect/get), or
//!   re-renders its form with a 422 and the errors (summary plus field);
//! - destructive actions ask first (a confirmation page, or a typed name);
//! - a strict CSP without inline scripts or styles, `frame-ancestors 'none'`,
//!   `no-store` and `no-referrer` on every page;
//! - a stranger's project answers 404, a viewer's forbidden action 403.

#![allow(
    clippy::result_large_err,
    reason = "a refusal is a finished page (redirect, 403, form errors), built once on the refusal path"
)]

mod account;
mod auth;
mod builder;
mod endpoints;
mod override_form;
mod projects;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::{ConnectInfo, Path, Request};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use hub_core::sessions::SessionInfo;
use hub_core::{Hub, HubError, Principal};
use minijinja::Environment;
use serde::Serialize;
use serde_json::{Value, json};

use crate::WebConfig;

/// The session cookie (before the `__Host-` prefix over https); the docs
/// read it too, so members see their private docs.
pub const SESSION_COOKIE: &str = "svc_session";
/// The one-shot message shown by the next page.
pub(crate) const FLASH_COOKIE: &str = "svc_flash";
/// Every dashboard page: scripts, styles and images only from this origin,
/// no inline code, no framing.
const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const CSS: &str = include_str!("../../assets/app.css");
const JS: &str = include_str!("../../assets/app.js");

/// Shared state of the dashboard's handlers.
pub struct Dashboard {
    hub: Hub,
    web: WebConfig,
    /// The docs pages' cached parses (the builder lists a version's endpoints from them).
    docs: Arc<crate::docs_site::DocsServer>,
    /// Password checks, per client address and per account.
    signins: platform::throttle::SignInThrottle,
    /// Mail-sending forms (sign-up, resend, reset), per client address.
    mails: platform::throttle::Throttle<IpAddr>,
}

impl std::fmt::Debug for Dashboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dashboard").finish_non_exhaustive()
    }
}

/// Mail-sending form posts per client address per minute.
const MAILS_PER_IP_PER_MINUTE: u32 = 10;

type Dash = axum::extract::State<Arc<Dashboard>>;

/// The dashboard's routes.
pub fn router(hub: Hub, web: WebConfig, docs: Arc<crate::docs_site::DocsServer>) -> Router {
    let state = Arc::new(Dashboard {
        hub,
        web,
        docs,
        signins: platform::throttle::SignInThrottle::default(),
        mails: platform::throttle::Throttle::per_minute(MAILS_PER_IP_PER_MINUTE),
    });
    let p = "/app/p/{slug}";
    Router::new()
        .route("/", get(root))
        .route("/_app/{file}", get(asset))
        .route("/app/signup", get(auth::signup_form).post(auth::signup))
        .route("/app/signin", get(auth::signin_form).post(auth::signin))
        .route("/app/signout", post(auth::signout))
        .route("/app/verify", get(auth::verify_form).post(auth::verify))
        .route("/app/verify/resend", post(auth::resend))
        .route("/app/reset", get(auth::reset_form).post(auth::reset_request))
        .route("/app/reset/new", get(auth::reset_new_form).post(auth::reset_new))
        .route("/app", get(projects::list))
        .route("/app/new", get(projects::new_form).post(projects::create))
        .route(p, get(projects::show))
        .route(&format!("{p}/versions"), post(projects::upload))
        .route(&format!("{p}/versions/{{label}}/{{action}}"), post(projects::version_action))
        .route(&format!("{p}/settings"), get(projects::settings).post(projects::update))
        .route(&format!("{p}/delete"), post(projects::delete))
        .route(&format!("{p}/upload-token"), post(projects::rotate_upload_token))
        .route(&format!("{p}/mcp-token"), post(projects::rotate_mcp_token))
        .route(&format!("{p}/diff"), get(projects::diff))
        .route(&format!("{p}/diff.md"), get(projects::diff_markdown))
        .route(&format!("{p}/docs"), get(builder::docs))
        .route(&format!("{p}/docs/{{part}}"), post(builder::docs_save))
        .route(&format!("{p}/docs/theme/preview"), post(builder::theme_preview))
        .route(&format!("{p}/docs/endpoints"), get(endpoints::list).post(endpoints::save))
        .route(&format!("{p}/docs/endpoints/edit"), get(endpoints::edit))
        .route(&format!("{p}/docs/endpoints/preview"), post(endpoints::preview))
        .route(&format!("{p}/mock"), get(builder::mock))
        .route(&format!("{p}/mock/settings"), post(builder::mock_settings))
        .route(&format!("{p}/mock/overrides"), post(builder::override_save))
        .route(&format!("{p}/mock/overrides/new"), get(builder::override_new))
        .route(&format!("{p}/mock/overrides/{{id}}"), get(builder::override_edit).post(builder::override_save))
        .route(&format!("{p}/mock/overrides/{{id}}/{{action}}"), post(builder::override_action))
        .route(&format!("{p}/mock/export"), get(builder::overrides_export))
        .route(&format!("{p}/mock/import"), post(builder::overrides_import))
        .route(&format!("{p}/sdks"), get(projects::sdks))
        .route(&format!("{p}/sdks/{{language}}"), get(projects::sdk_download))
        .route("/app/tokens", get(account::tokens).post(account::create_token))
        .route("/app/tokens/{id}/revoke", post(account::revoke_token))
        .route("/app/account", get(account::show))
        .route("/app/account/profile", post(account::profile))
        .route("/app/account/password", post(account::password))
        .route("/app/account/plan", post(account::plan))
        .route("/app/account/sessions/{id}/revoke", post(account::revoke_session))
        .route("/app/account/signout-everywhere", post(account::signout_everywhere))
        .with_state(state)
}

fn environment() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        for (name, source) in [
            ("layout.html", include_str!("../../templates/dashboard/layout.html")),
            ("macros.html", include_str!("../../templates/dashboard/macros.html")),
            ("message.html", include_str!("../../templates/dashboard/message.html")),
            ("error.html", include_str!("../../templates/dashboard/error.html")),
            ("confirm.html", include_str!("../../templates/dashboard/confirm.html")),
            ("signup.html", include_str!("../../templates/dashboard/signup.html")),
            ("signin.html", include_str!("../../templates/dashboard/signin.html")),
            ("reset.html", include_str!("../../templates/dashboard/reset.html")),
            ("reset_new.html", include_str!("../../templates/dashboard/reset_new.html")),
            ("projects.html", include_str!("../../templates/dashboard/projects.html")),
            ("project_new.html", include_str!("../../templates/dashboard/project_new.html")),
            ("project_nav.html", include_str!("../../templates/dashboard/project_nav.html")),
            ("project.html", include_str!("../../templates/dashboard/project.html")),
            ("project_settings.html", include_str!("../../templates/dashboard/project_settings.html")),
            ("diff.html", include_str!("../../templates/dashboard/diff.html")),
            ("sdks.html", include_str!("../../templates/dashboard/sdks.html")),
            ("project_docs.html", include_str!("../../templates/dashboard/project_docs.html")),
            ("project_mock.html", include_str!("../../templates/dashboard/project_mock.html")),
            ("override_edit.html", include_str!("../../templates/dashboard/override_edit.html")),
            ("project_endpoints.html", include_str!("../../templates/dashboard/project_endpoints.html")),
            ("endpoint_edit.html", include_str!("../../templates/dashboard/endpoint_edit.html")),
            ("tokens.html", include_str!("../../templates/dashboard/tokens.html")),
            ("account.html", include_str!("../../templates/dashboard/account.html")),
        ] {
            if let Err(err) = env.add_template(name, source) {
                tracing::error!(template = name, error = %err, "a dashboard template does not compile");
            }
        }
        env
    })
}

/// A short fingerprint of the assets: their URLs change when they do, so
/// browsers may cache them for a year.
fn asset_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut all = String::with_capacity(CSS.len() + JS.len());
        all.push_str(CSS);
        all.push_str(JS);
        all.push_str(docs_render::assets::ICON_SVG);
        platform::crypto::sha256_hex(all.as_bytes()).chars().take(12).collect()
    })
}

/// The hub's own root leads to the dashboard; any other host name that
/// reaches it (a custom domain not verified yet) finds nothing.
async fn root(axum::extract::State(d): Dash, headers: HeaderMap) -> Response {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default();
    let name =
        host.rsplit_once(':').filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit())).map_or(host, |(n, _)| n);
    let own = d.web.public_url.split("://").nth(1).unwrap_or_default().split(['/', ':']).next().unwrap_or_default();
    let ours = name.is_empty()
        || name.eq_ignore_ascii_case(own)
        || name.eq_ignore_ascii_case("localhost")
        || name.trim_matches(['[', ']']).parse::<IpAddr>().is_ok();
    if ours {
        Redirect::to("/app").into_response()
    } else {
        crate::error::ApiError::new(crate::error::Code::NotFound, "no such route").into_response()
    }
}

async fn asset(Path(file): Path<String>) -> Response {
    let (body, content_type) = match file.as_str() {
        "app.css" => (CSS, "text/css; charset=utf-8"),
        "app.js" => (JS, "text/javascript; charset=utf-8"),
        "icon.svg" => (docs_render::assets::ICON_SVG, "image/svg+xml"),
        _ => return StatusCode::NOT_FOUND.into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

/// The signed-in person of a request.
#[derive(Clone, Debug)]
pub(crate) struct Me {
    principal: Principal,
    session: SessionInfo,
}

/// A flash message: `success`, `info` or `error`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
struct Flash {
    kind: String,
    text: String,
}

/// What every page of one request shares: who is signed in, the CSRF token
/// for its forms, the flash message, and the cookies to set.
struct Ctx {
    me: Option<Me>,
    csrf: String,
    flash: Option<Flash>,
    set_cookies: Vec<String>,
}

/// A signed-in action's posted form, its session and CSRF token checked.
pub(crate) struct Posted {
    ctx: Ctx,
    me: Me,
    form: Form,
    /// The client's address, for the throttles of password checks.
    ip: Option<IpAddr>,
}

/// The fields of a form as posted, with its errors when it is re-rendered.
#[derive(Debug, Default)]
pub(crate) struct Form {
    values: HashMap<String, String>,
    errors: Vec<(Option<String>, String)>,
}

impl Form {
    fn parse(body: &[u8]) -> Self {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body).unwrap_or_default();
        Self { values: pairs.into_iter().collect(), errors: Vec::new() }
    }

    fn get(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    fn checked(&self, name: &str) -> bool {
        matches!(self.get(name), "on" | "true" | "1" | "yes")
    }

    /// A form that shows `error` (from a use case) beside its field.
    fn with_error(mut self, error: &HubError) -> Self {
        let field = match error {
            HubError::Validation { field: Some(field), .. } => Some((*field).to_owned()),
            HubError::InvalidField { field, .. } => Some(field.clone()),
            _ => None,
        };
        let message = match error {
            HubError::InvalidField { message, .. } => message.clone(),
            other => other.to_string(),
        };
        self.errors.push((field, message));
        self
    }

    fn with_message(mut self, field: Option<&str>, message: impl Into<String>) -> Self {
        self.errors.push((field.map(str::to_owned), message.into()));
        self
    }

    /// Values without secrets, for re-rendering.
    fn view(&self) -> Value {
        let values: serde_json::Map<String, Value> = self
            .values
            .iter()
            .filter(|(k, _)| !k.contains("password") && k.as_str() != platform::web::CSRF_FIELD)
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        let field_errors: serde_json::Map<String, Value> = self
            .errors
            .iter()
            .filter_map(|(field, message)| field.as_ref().map(|f| (f.clone(), Value::String(message.clone()))))
            .collect();
        let errors: Vec<Value> =
            self.errors.iter().map(|(field, message)| json!({ "field": field, "message": message })).collect();
        json!({ "values": values, "errors": errors, "field_errors": field_errors })
    }
}

impl Dashboard {
    /// The context of a request: its session (when live), a CSRF token and
    /// the flash message to show once.
    async fn ctx(&self, headers: &HeaderMap) -> Result<Ctx, HubError> {
        let me = match self.web.cookies.get(headers, SESSION_COOKIE) {
            Some(secret) => self.hub.session(secret).await?.map(|(principal, session)| Me { principal, session }),
            None => None,
        };
        let issue = self.web.csrf.issue(headers);
        let mut set_cookies: Vec<String> = issue.set_cookie.into_iter().collect();
        let flash = self.web.cookies.get(headers, FLASH_COOKIE).and_then(|raw| {
            let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw).ok()?;
            let kind = pairs.iter().find(|(k, _)| k == "k").map(|(_, v)| v.clone())?;
            let text = pairs.iter().find(|(k, _)| k == "t").map(|(_, v)| v.chars().take(300).collect())?;
            let kind = if matches!(kind.as_str(), "success" | "info" | "error") { kind } else { "info".to_owned() };
            Some(Flash { kind, text })
        });
        if flash.is_some() {
            set_cookies.push(self.web.cookies.clear(FLASH_COOKIE));
        }
        Ok(Ctx { me, csrf: issue.token, flash, set_cookies })
    }

    /// The context of a page that needs a session; a browser without one
    /// is sent to sign in and brought back after.
    async fn signed_in(&self, headers: &HeaderMap, back_to: &str) -> Result<(Ctx, Me), Response> {
        let ctx = self.ctx(headers).await.map_err(|e| self.error_page(None, &e))?;
        match ctx.me.clone() {
            Some(me) => Ok((ctx, me)),
            None => Err(Redirect::to(&format!("/app/signin?next={}", encode(back_to))).into_response()),
        }
    }

    /// The preamble of an upload: the session, the CSRF token (in the
    /// query, so it is checked before the body) and the role gate, all
    /// before a byte of the body is read.
    async fn upload_gate(
        &self,
        headers: &HeaderMap,
        back_to: &str,
        csrf_token: &str,
        slug: &str,
        action: hub_core::Action,
    ) -> Result<(Ctx, Me), Response> {
        let (ctx, me) = self.signed_in(headers, back_to).await?;
        self.check_csrf(headers, Some(csrf_token))?;
        if let Err(e) = self.hub.authorize_project(&me.principal, slug, action).await {
            return Err(self.error_page(Some(&ctx), &e));
        }
        Ok((ctx, me))
    }

    /// Reads a posted form and checks its session and CSRF token: the
    /// preamble of every signed-in action.
    async fn posted(&self, request: Request) -> Result<Posted, Response> {
        let (headers, peer, form) = read_form(request).await?;
        let (ctx, me) = self.signed_in(&headers, "/app").await?;
        self.check_csrf(&headers, Some(form.get(platform::web::CSRF_FIELD)))?;
        let ip = client_ip(&self.web, &headers, peer.as_ref());
        Ok(Posted { ctx, me, form, ip })
    }

    fn check_csrf(&self, headers: &HeaderMap, token: Option<&str>) -> Result<(), Response> {
        if self.web.csrf.verify(headers, token) {
            Ok(())
        } else {
            Err(self.message(
                StatusCode::FORBIDDEN,
                "This form has expired",
                "The page was open too long, or it came from somewhere else. Go back, reload the page and try again.",
            ))
        }
    }

    /// Renders `template` in the layout.
    fn render(&self, ctx: &Ctx, status: StatusCode, template: &str, nav: &str, page: Value) -> Response {
        let me = ctx.me.as_ref().map(|me| json!({ "email": me.principal.email, "plan": me.principal.plan.as_str() }));
        let mut context = json!({
            "me": me,
            "csrf": ctx.csrf,
            "flash": ctx.flash,
            "nav": nav,
            "asset_version": asset_version(),
            "signup": self.hub.accounts_config().signup.as_str(),
        });
        if let (Some(target), Value::Object(extra)) = (context.as_object_mut(), page) {
            target.extend(extra);
        }
        let html =
            environment().get_template(template).and_then(|t| t.render(minijinja::Value::from_serialize(&context)));
        let mut response = match html {
            Ok(html) => (status, axum::response::Html(html)).into_response(),
            Err(err) => {
                tracing::error!(template, error = %err, "a dashboard page did not render");
                (StatusCode::INTERNAL_SERVER_ERROR, "the page could not be rendered").into_response()
            }
        };
        page_headers(response.headers_mut(), true);
        for cookie in &ctx.set_cookies {
            if let Ok(value) = HeaderValue::from_str(cookie) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
        }
        response
    }

    /// A page with a heading and a sentence (errors, refusals, notices).
    fn message(&self, status: StatusCode, heading: &str, message: &str) -> Response {
        let ctx = Ctx { me: None, csrf: String::new(), flash: None, set_cookies: Vec::new() };
        self.render(&ctx, status, "error.html", "", json!({ "heading": heading, "message": message }))
    }

    /// The page for a use case's refusal: 404 for what the caller cannot
    /// see, 403 for what their role forbids, 402 for a plan gate.
    fn error_page(&self, ctx: Option<&Ctx>, error: &HubError) -> Response {
        let (status, heading, message) = match error {
            HubError::NotFound { .. } => {
                (StatusCode::NOT_FOUND, "Not found", "There is nothing here, or it is not shared with you.".to_owned())
            }
            HubError::Forbidden { .. } => (StatusCode::FORBIDDEN, "Not allowed", error.to_string()),
            HubError::PlanRequired { .. }
            | HubError::ProjectLimitReached { .. }
            | HubError::SeatLimitReached { .. } => (StatusCode::PAYMENT_REQUIRED, "Upgrade needed", error.to_string()),
            HubError::RateLimited { .. } => (StatusCode::TOO_MANY_REQUESTS, "Slow down", error.to_string()),
            HubError::Validation { .. } | HubError::InvalidField { .. } | HubError::InvalidSpec(_) => {
                (StatusCode::BAD_REQUEST, "That did not work", error.to_string())
            }
            HubError::Conflict { .. } => (StatusCode::CONFLICT, "That did not work", error.to_string()),
            _ => {
                tracing::error!(error = %error, "a dashboard action failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "Something went wrong",
                    "The hub could not finish this. Try again; if it keeps failing, tell its operator.".to_owned(),
                )
            }
        };
        let page = json!({ "heading": heading, "message": message });
        match ctx {
            Some(ctx) => self.render(ctx, status, "error.html", "", page),
            None => {
                let bare = Ctx { me: None, csrf: String::new(), flash: None, set_cookies: Vec::new() };
                self.render(&bare, status, "error.html", "", page)
            }
        }
    }

    /// A redirect that carries a flash message to the next page.
    fn redirect_with(&self, to: &str, kind: &str, text: &str) -> Response {
        let value = serde_urlencoded::to_string([("k", kind), ("t", text)]).unwrap_or_default();
        let mut response = Redirect::to(to).into_response();
        if let Ok(cookie) = HeaderValue::from_str(&self.web.cookies.set(FLASH_COOKIE, &value, 60)) {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
        response
    }
}

/// The headers of every dashboard page.
fn page_headers(headers: &mut HeaderMap, private: bool) {
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if private {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

fn encode(text: &str) -> String {
    serde_urlencoded::to_string([("v", text)]).map(|s| s.trim_start_matches("v=").to_owned()).unwrap_or_default()
}

/// Where to go after signing in: only a path on this origin.
fn safe_next(next: &str) -> &str {
    // Only visible ASCII: a control character or a space could not be a
    // `Location` header, and anything else would be sent percent-encoded.
    let plain = next.bytes().all(|b| b.is_ascii_graphic());
    if plain && next.starts_with("/app") && !next.starts_with("//") && !next.contains('\\') { next } else { "/app" }
}

/// The client's address, through the trusted proxies.
fn client_ip(web: &WebConfig, request_headers: &HeaderMap, peer: Option<&ConnectInfo<SocketAddr>>) -> Option<IpAddr> {
    peer.map(|info| web.proxies.client_ip(info.0.ip(), request_headers))
}

/// A timestamp as people read it: `2026-11-24 16:05 UTC`.
fn when(at: kernel::Timestamp) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(at.as_millis())
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}

/// A file upload's fields: short text fields, and the one file.
pub(crate) struct Upload {
    texts: HashMap<String, String>,
    file: Option<Vec<u8>>,
}

impl Upload {
    fn text(&self, name: &str) -> &str {
        self.texts.get(name).map_or("", String::as_str)
    }
}

/// Text fields of an upload are cut at this many characters.
const UPLOAD_TEXT_CHARS: usize = 200;

/// Reads a multipart upload: the field `file_field` streams and is refused
/// as soon as it passes `limit` bytes (`too_large` says so); other fields
/// are short texts. Errors are sentences for the person uploading.
async fn read_upload(request: Request, file_field: &str, limit: usize, too_large: &str) -> Result<Upload, String> {
    let mut multipart = <axum::extract::Multipart as axum::extract::FromRequest<()>>::from_request(request, &())
        .await
        .map_err(|_| "Send the file as a form upload (multipart/form-data).".to_owned())?;
    let unreadable = |e: axum::extract::multipart::MultipartError| format!("The upload could not be read: {e}");
    let mut upload = Upload { texts: HashMap::new(), file: None };
    while let Some(mut field) = multipart.next_field().await.map_err(unreadable)? {
        let Some(name) = field.name().map(str::to_owned) else { continue };
        if name == file_field {
            let mut bytes = Vec::new();
            while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
                if bytes.len() + chunk.len() > limit {
                    return Err(too_large.to_owned());
                }
                bytes.extend_from_slice(&chunk);
            }
            upload.file = Some(bytes);
        } else if upload.texts.len() < 16 {
            let mut text = String::new();
            while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
                text.push_str(&String::from_utf8_lossy(&chunk));
                if text.len() > UPLOAD_TEXT_CHARS * 4 {
                    break;
                }
            }
            upload.texts.insert(name, text.chars().take(UPLOAD_TEXT_CHARS).collect());
        }
    }
    Ok(upload)
}

/// Reads a form body (the router's 1 MiB limit applies).
async fn read_form(request: Request) -> Result<(HeaderMap, Option<ConnectInfo<SocketAddr>>, Form), Response> {
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().cloned();
    let (parts, body) = request.into_parts();
    let bytes = platform::http::read_body_limited(&parts.headers, body, platform::http::DEFAULT_BODY_LIMIT)
        .await
        .map_err(|_| (StatusCode::PAYLOAD_TOO_LARGE, "the form is larger than 1 MiB").into_response())?;
    Ok((parts.headers, peer, Form::parse(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_the_dashboard_are_followed_after_sign_in() {
        assert_eq!(safe_next("/app/p/books"), "/app/p/books");
        assert_eq!(safe_next("https://evil.example/app"), "/app");
        assert_eq!(safe_next("//evil.example"), "/app");
        assert_eq!(safe_next("/app\\@evil"), "/app");
        assert_eq!(safe_next("/docs/x"), "/app");
        assert_eq!(safe_next("/app/p/x\r\nSet-Cookie: a=1"), "/app", "control characters");
        assert_eq!(safe_next("/app/\u{7f}"), "/app");
        assert_eq!(safe_next("/app/p/caf\u{e9}"), "/app", "unencoded non-ASCII");
        assert_eq!(safe_next("/app/p/a%20b?x=1"), "/app/p/a%20b?x=1");
    }

    #[test]
    fn every_template_compiles() {
        let env = environment();
        for name in ["layout.html", "signup.html", "signin.html", "projects.html", "project.html", "account.html"] {
            assert!(env.get_template(name).is_ok(), "{name}");
        }
        assert_eq!(env.templates().count(), 23);
    }

    #[test]
    fn form_views_never_echo_passwords_or_the_csrf_token() {
        let form = Form::parse(b"email=a%40b.c&password=hunter22&current_password=x&csrf_token=t&name=Pets");
        let view = form.view();
        assert_eq!(view["values"]["email"], "a@b.c");
        assert_eq!(view["values"]["name"], "Pets");
        assert!(view["values"].get("password").is_none());
        assert!(view["values"].get("current_password").is_none());
        assert!(view["values"].get("csrf_token").is_none());
    }
}
