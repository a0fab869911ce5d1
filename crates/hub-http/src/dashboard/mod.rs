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
mod inboxes;
mod monitoring;
mod override_form;
mod projects;
mod team;
mod workbench;

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::{ConnectInfo, Path, Request};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use hub_core::sessions::SessionInfo;
use hub_core::{Hub, HubError, Principal};
use page_kit::{Flash, Form, PageState, Pages, encode, read_form, read_upload, when};
use serde_json::{Value, json};

use crate::WebConfig;

/// The session cookie (before the `__Host-` prefix over https); the docs
/// read it too, so members see their private docs.
pub const SESSION_COOKIE: &str = "svc_session";
/// The one-shot message shown by the next page.
pub(crate) const FLASH_COOKIE: &str = "svc_flash";
/// Where the page kit's assets (and the hub's icon) are served.
const ASSETS_PREFIX: &str = "/_app";

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
        signins: platform::throttle::SignInThrottle::shared(&web.limiter, "dashboard.signin"),
        mails: platform::throttle::Throttle::shared(&web.limiter, "dashboard.mails", MAILS_PER_IP_PER_MINUTE),
        hub,
        web,
        docs,
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
        .route(&format!("{p}/requests"), get(workbench::list).post(workbench::create))
        .route(&format!("{p}/requests/new"), get(workbench::new_form))
        .route(&format!("{p}/requests/export.json"), get(workbench::export))
        .route(&format!("{p}/requests/import"), post(workbench::import))
        .route(&format!("{p}/requests/{{id}}"), get(workbench::show))
        .route(&format!("{p}/requests/{{id}}/{{action}}"), post(workbench::action))
        .route(&format!("{p}/environments"), get(workbench::environments).post(workbench::environment_create))
        .route(&format!("{p}/environments/{{id}}"), get(workbench::environment))
        .route(&format!("{p}/environments/{{id}}/{{action}}"), post(workbench::environment_action))
        .route(&format!("{p}/monitoring"), get(monitoring::tab))
        .route(&format!("{p}/monitoring/credentials"), post(monitoring::credential))
        .route(&format!("{p}/monitoring/{{id}}"), get(monitoring::monitor).post(monitoring::save))
        .route("/status/{slug}", get(monitoring::status_page))
        .route("/status/{slug}/{version}", get(monitoring::status_version_page))
        .route(&format!("{p}/access"), get(team::project_access))
        .route(&format!("{p}/access/{{id}}"), post(team::set_project_access))
        .route("/app/inboxes", get(inboxes::list).post(inboxes::create))
        .route("/app/inboxes/verify", get(inboxes::verifier))
        .route("/app/inboxes/{id}", get(inboxes::inbox))
        .route("/app/inboxes/{id}/settings", get(inboxes::settings).post(inboxes::action_settings))
        .route("/app/inboxes/{id}/live", get(inboxes::live))
        .route("/app/inboxes/{id}/{action}", post(inboxes::action))
        .route("/app/team", get(team::team))
        .route("/app/team/invite", post(team::invite))
        .route("/app/team/leave/{account}", post(team::leave))
        .route("/app/team/{id}/{action}", post(team::member_action))
        .route("/app/invitations/{secret}", get(team::invitation))
        .route("/app/invitations/{secret}/{action}", post(team::invitation_action))
        .route("/app/audit", get(team::audit))
        .route("/app/audit/export.csv", get(team::audit_export))
        .route("/app/audit/settings", get(team::audit_settings).post(team::save_audit_settings))
        .route("/app/audit/webhook/test", post(team::test_audit_webhook))
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

/// The dashboard's pages: the page kit's layout and components, and the
/// hub's own templates and icon.
fn pages() -> &'static Pages {
    static PAGES: OnceLock<Pages> = OnceLock::new();
    PAGES.get_or_init(|| {
        let icon = page_kit::assets::Asset {
            name: "icon.svg",
            body: docs_render::assets::ICON_SVG,
            content_type: "image/svg+xml",
        };
        let verify = page_kit::assets::Asset {
            name: "verify.js",
            body: include_str!("../../assets/verify.js"),
            content_type: "text/javascript; charset=utf-8",
        };
        let mut templates = vec![
            ("layout.html", include_str!("../../templates/dashboard/layout.html")),
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
            ("team.html", include_str!("../../templates/dashboard/team.html")),
            ("invitation.html", include_str!("../../templates/dashboard/invitation.html")),
            ("project_access.html", include_str!("../../templates/dashboard/project_access.html")),
            ("audit.html", include_str!("../../templates/dashboard/audit.html")),
            ("audit_settings.html", include_str!("../../templates/dashboard/audit_settings.html")),
        ];
        templates.extend(monitoring::TEMPLATES);
        templates.extend(inboxes::TEMPLATES);
        templates.extend(workbench::TEMPLATES);
        templates.push(("inbox_fields.html", include_str!("../../templates/dashboard/inbox_fields.html")));
        Pages::new("svc hub", ASSETS_PREFIX, page_kit::Assets::new(&[icon, verify]), &templates)
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
    pages().assets().serve(&file)
}

/// The signed-in person of a request.
#[derive(Clone, Debug)]
pub(crate) struct Me {
    principal: Principal,
    session: SessionInfo,
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

/// A use case's refusal shown on the form that caused it.
pub(crate) trait FormErrors {
    /// The form with `error` beside its field (or for the whole form).
    fn with_error(self, error: &HubError) -> Self;
}

impl FormErrors for Form {
    fn with_error(self, error: &HubError) -> Self {
        let field = match error {
            HubError::Validation { field: Some(field), .. } => Some((*field).to_owned()),
            HubError::InvalidField { field, .. } => Some(field.clone()),
            _ => None,
        };
        let message = match error {
            HubError::InvalidField { message, .. } => message.clone(),
            other => other.to_string(),
        };
        self.with_message(field.as_deref(), message)
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
        let PageState { csrf, flash, set_cookies } =
            PageState::begin(&self.web.csrf, &self.web.cookies, headers, FLASH_COOKIE);
        Ok(Ctx { me, csrf, flash, set_cookies })
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
            "signup": self.hub.accounts_config().signup.as_str(),
        });
        if let (Some(target), Value::Object(extra)) = (context.as_object_mut(), page) {
            target.extend(extra);
        }
        pages().render(status, template, context, &ctx.set_cookies)
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
        Flash::redirect(&self.web.cookies, FLASH_COOKIE, to, kind, text)
    }
}

/// Where to go after signing in: only a path of the dashboard.
fn safe_next(next: &str) -> &str {
    page_kit::safe_next(next, "/app")
}

/// The client's address, through the trusted proxies.
fn client_ip(web: &WebConfig, request_headers: &HeaderMap, peer: Option<&ConnectInfo<SocketAddr>>) -> Option<IpAddr> {
    peer.map(|info| web.proxies.client_ip(info.0.ip(), request_headers))
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
        let env = pages().environment();
        for name in ["layout.html", "signup.html", "signin.html", "projects.html", "project.html", "account.html"] {
            assert!(env.get_template(name).is_ok(), "{name}");
        }
        assert_eq!(env.templates().count(), 44, "the hub's 42 and the kit's base and macros");
    }
}
