//! The studio: the pages where people author, at `/` of the courses
//! service, built on the page kit (`page-kit`) like the hub's dashboard.
//!
//! Every action calls one `courses_core::Courses` use case with the
//! signed-in member's access, so the plan gates and the role's scope are
//! the API's. A GET renders; a POST checks the session and the CSRF token
//! (bound to the session), calls one use case and redirects with a flash
//! message, or re-renders its form with a 422. A refusal becomes a page
//! through [`Studio::error_page`], whose status comes from the API's one
//! error registry (`crate::error`).

#![allow(
    clippy::result_large_err,
    reason = "a refusal is a finished page (redirect, 403, form errors), built once on the refusal path"
)]

mod auth;
mod certificates;
mod courses;
mod generate;
mod learners;
mod media;
mod screens;
mod settings;
mod themes;
mod translations;
mod webhooks;

use std::net::{IpAddr, SocketAddr};
use std::sync::OnceLock;

use axum::Router;
use axum::extract::{ConnectInfo, Path, Request};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use courses_core::CoursesError;
use courses_core::members::SignedIn;
use page_kit::{Flash, Form, PageState, Pages};
use platform::web::{CookiePolicy, Csrf};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;

/// The studio's session cookie (before the `__Host-` prefix over https).
/// Its own name: the hub's pages may share the host on another port, and
/// cookies do not tell ports apart.
pub const SESSION_COOKIE: &str = "svc_studio_session";
const CSRF_COOKIE: &str = "svc_studio_csrf";
const FLASH_COOKIE: &str = "svc_studio_flash";
/// Where the page kit's assets are served.
const ASSETS_PREFIX: &str = "/_studio";
/// Sessions' cookie lifetime: the session itself ends sooner when unused.
const SESSION_COOKIE_SECS: i64 = courses_core::members::SESSION_ABSOLUTE_DAYS * 24 * 3600;
/// Mail-sending forms (sign-up, invitations) per client address per minute.
const MAILS_PER_IP_PER_MINUTE: u32 = 10;

/// The studio's web settings and throttles.
#[derive(Debug)]
pub struct StudioWeb {
    cookies: CookiePolicy,
    csrf: Csrf,
    /// Password checks, per client address and per address signing in.
    signins: platform::throttle::SignInThrottle,
    /// Forms that create accounts or send mail, per client address.
    mails: platform::throttle::Throttle<IpAddr>,
}

impl StudioWeb {
    /// Settings for the studio at `public_url` with `key` as the secret key.
    #[must_use]
    pub fn new(public_url: &str, key: &platform::secrets::SecretKey) -> Self {
        let cookies = CookiePolicy::for_public_url(public_url);
        Self {
            csrf: Csrf::new(key, cookies.clone()).with_cookie_name(CSRF_COOKIE).bound_to_session(SESSION_COOKIE),
            cookies,
            signins: platform::throttle::SignInThrottle::default(),
            mails: platform::throttle::Throttle::per_minute(MAILS_PER_IP_PER_MINUTE),
        }
    }

    /// The same settings with the throttles counted through `limiter`.
    #[must_use]
    pub fn with_limiter(&self, limiter: &platform::limiter::Limiter) -> Self {
        Self {
            cookies: self.cookies.clone(),
            csrf: self.csrf.clone(),
            signins: platform::throttle::SignInThrottle::shared(limiter, "studio.signin"),
            mails: platform::throttle::Throttle::shared(limiter, "studio.mails", MAILS_PER_IP_PER_MINUTE),
        }
    }
}

impl Default for StudioWeb {
    /// Plain-HTTP cookies and a random key: tests and local development.
    fn default() -> Self {
        Self::new("http://127.0.0.1", &platform::secrets::SecretKey::generate())
    }
}

type St = axum::extract::State<AppState>;

/// The studio's routes.
pub fn router() -> Router<AppState> {
    let c = "/courses/{id}";
    Router::new()
        .route("/", get(courses::home))
        .route("/_studio/{file}", get(asset))
        .route("/signup", get(auth::signup_form).post(auth::signup))
        .route("/signin", get(auth::signin_form).post(auth::signin))
        .route("/signout", post(auth::signout))
        .route("/verify", get(auth::verify_form).post(auth::verify))
        .route("/workspace", post(auth::switch_workspace))
        .route("/reset", get(auth::reset_form).post(auth::reset_request))
        .route("/reset/new", get(auth::reset_new_form).post(auth::reset_new))
        .route("/invitations/{secret}", get(auth::invitation_form).post(auth::accept_invitation))
        .route("/learners", get(learners::show))
        .route("/learners/preview", post(learners::preview))
        .route("/learners/import", post(learners::import))
        .route("/issued-certificates/{file}", get(learners::certificate_pdf))
        .route("/themes", get(themes::show).post(themes::create))
        .route("/certificates", get(certificates::show).post(certificates::create))
        .route("/certificates/preview", post(certificates::preview))
        .route("/certificates/{id}", get(certificates::edit).post(certificates::save))
        .route("/certificates/{id}/delete", post(certificates::delete))
        .route("/webhooks", get(webhooks::show).post(webhooks::create))
        .route("/webhooks/{id}", get(webhooks::detail))
        .route("/webhooks/{id}/{action}", post(webhooks::action))
        .route(
            "/media",
            get(media::show).post(media::upload).layer(axum::extract::DefaultBodyLimit::max(media::BODY_LIMIT)),
        )
        .route("/settings", get(settings::show))
        .route("/settings/invitations", post(settings::invite))
        .route("/settings/workspaces", post(settings::new_workspace))
        .route("/courses", post(courses::create))
        .route("/generate", get(generate::show).post(generate::create))
        .route(
            "/generate/source",
            post(generate::read_source).layer(axum::extract::DefaultBodyLimit::max(generate::BODY_LIMIT)),
        )
        .route(&format!("{c}/status"), post(courses::set_status))
        .route(&format!("{c}/screens"), post(courses::add_screen))
        .route(&format!("{c}/scorm"), get(courses::export_scorm))
        .route(&format!("{c}/preview"), get(courses::preview))
        .route(&format!("{c}/translations"), get(translations::show).post(translations::save))
        .route(c, get(courses::show).post(screens::update_course))
        .route(&format!("{c}/blocks"), post(screens::add_block))
        .route(&format!("{c}/blocks/new"), get(screens::new_block))
        .route(&format!("{c}/draft"), post(screens::draft))
        .route(&format!("{c}/screen-order"), post(screens::screen_order))
        .route(&format!("{c}/embed-link"), post(screens::embed_link))
        .route(&format!("{c}/screens/{{screen}}/{{action}}"), post(screens::screen_action))
        .route(&format!("{c}/screens/{{screen}}/blocks/{{block}}/delete"), post(screens::delete_block))
        .route(&format!("{c}/screens/{{screen}}/blocks/{{block}}"), get(screens::edit_block).post(screens::save_block))
}

/// The studio's pages: the kit's layout and components, and its own
/// templates.
fn pages() -> &'static Pages {
    static PAGES: OnceLock<Pages> = OnceLock::new();
    PAGES.get_or_init(|| {
        Pages::new(
            "svc courses",
            ASSETS_PREFIX,
            page_kit::Assets::new(&[page_kit::assets::Asset {
                name: "studio.js",
                body: include_str!("../assets/studio.js"),
                content_type: "text/javascript; charset=utf-8",
            }]),
            &[
                ("layout.html", include_str!("../../templates/studio/layout.html")),
                ("error.html", include_str!("../../templates/studio/error.html")),
                ("welcome.html", include_str!("../../templates/studio/welcome.html")),
                ("signup.html", include_str!("../../templates/studio/signup.html")),
                ("signin.html", include_str!("../../templates/studio/signin.html")),
                ("invitation.html", include_str!("../../templates/studio/invitation.html")),
                ("reset.html", include_str!("../../templates/studio/reset.html")),
                ("reset_new.html", include_str!("../../templates/studio/reset_new.html")),
                ("check_mail.html", include_str!("../../templates/studio/check_mail.html")),
                ("courses.html", include_str!("../../templates/studio/courses.html")),
                ("course.html", include_str!("../../templates/studio/course.html")),
                ("settings.html", include_str!("../../templates/studio/settings.html")),
                ("learners.html", include_str!("../../templates/studio/learners.html")),
                ("block.html", include_str!("../../templates/studio/block.html")),
                ("themes.html", include_str!("../../templates/studio/themes.html")),
                ("media.html", include_str!("../../templates/studio/media.html")),
                ("certificates.html", include_str!("../../templates/studio/certificates.html")),
                ("webhooks.html", include_str!("../../templates/studio/webhooks.html")),
                ("webhook.html", include_str!("../../templates/studio/webhook.html")),
                ("verify.html", include_str!("../../templates/studio/verify.html")),
                ("translations.html", include_str!("../../templates/studio/translations.html")),
                ("generate.html", include_str!("../../templates/studio/generate.html")),
            ],
        )
    })
}

async fn asset(Path(file): Path<String>) -> Response {
    pages().assets().serve(&file)
}

/// What every page of one request shares.
struct Ctx {
    me: Option<SignedIn>,
    /// The signed-in person's workspaces `(id, name, role)`, for the
    /// header's switcher (shown when there are several).
    workspaces: Vec<(String, String, String)>,
    page: PageState,
}

/// A signed-in action's posted form, its session and CSRF token checked.
struct Posted {
    ctx: Ctx,
    me: SignedIn,
    form: Form,
}

impl AppState {
    async fn studio_ctx(&self, headers: &HeaderMap) -> Result<Ctx, CoursesError> {
        let web = &self.studio;
        let me = match web.cookies.get(headers, SESSION_COOKIE) {
            Some(secret) => self.courses.signed_in(secret).await?,
            None => None,
        };
        let workspaces = match &me {
            Some(me) => self.courses.my_workspaces(me).await?,
            None => Vec::new(),
        };
        Ok(Ctx { me, workspaces, page: PageState::begin(&web.csrf, &web.cookies, headers, FLASH_COOKIE) })
    }

    /// The context of a page that needs a session; a browser without one
    /// is sent to sign in.
    async fn studio_signed_in(&self, headers: &HeaderMap) -> Result<(Ctx, SignedIn), Response> {
        let ctx = self.studio_ctx(headers).await.map_err(|e| self.error_page(None, e))?;
        match ctx.me.clone() {
            Some(me) => Ok((ctx, me)),
            None => Err(Redirect::to("/signin").into_response()),
        }
    }

    /// Reads a posted form and checks its session and CSRF token.
    async fn studio_posted(&self, request: Request) -> Result<Posted, Response> {
        let (headers, _, form) = page_kit::read_form(request).await?;
        let (ctx, me) = self.studio_signed_in(&headers).await?;
        self.check_csrf(&headers, &form)?;
        Ok(Posted { ctx, me, form })
    }

    /// [`AppState::studio_posted`] for a change: a viewer gets the 403
    /// page before anything is read further (`me.access` may then write).
    async fn studio_writer(&self, request: Request) -> Result<Posted, Response> {
        let posted = self.studio_posted(request).await?;
        if let Err(e) = posted.me.writer() {
            return Err(self.error_page(Some(&posted.ctx), e));
        }
        Ok(posted)
    }

    fn check_csrf(&self, headers: &HeaderMap, form: &Form) -> Result<(), Response> {
        if self.studio.csrf.verify(headers, Some(form.get(platform::web::CSRF_FIELD))) {
            Ok(())
        } else {
            Err(self.message(
                StatusCode::FORBIDDEN,
                "This form has expired",
                "The page was open too long, or it came from somewhere else. Go back, reload the page and try again.",
            ))
        }
    }

    /// Renders `template` in the studio's layout.
    fn render(&self, ctx: &Ctx, status: StatusCode, template: &str, nav: &str, page: Value) -> Response {
        let me = ctx.me.as_ref().map(|me| {
            json!({
                "email": me.member.email,
                "name": me.member.display_name,
                "role": me.member.role.as_str(),
                "can_write": me.member.role.can_write(),
                "workspace": me.access.workspace.name,
                "workspace_id": me.access.workspace.id,
                "plan": me.access.workspace.plan.as_str(),
                "workspaces": ctx
                    .workspaces
                    .iter()
                    .map(|(id, name, role)| json!({ "id": id, "name": name, "role": role }))
                    .collect::<Vec<_>>(),
            })
        });
        let signup_open = self.courses.members_config().signup == courses_core::members::SignupMode::Open;
        let mut context = json!({
            "me": me,
            "csrf": ctx.page.csrf,
            "flash": ctx.page.flash,
            "nav": nav,
            "signup_open": signup_open,
        });
        if let (Some(target), Value::Object(extra)) = (context.as_object_mut(), page) {
            target.extend(extra);
        }
        pages().render(status, template, context, &ctx.page.set_cookies)
    }

    /// A page with a heading and a sentence.
    fn message(&self, status: StatusCode, heading: &str, message: &str) -> Response {
        let ctx = Ctx { me: None, workspaces: Vec::new(), page: PageState::default() };
        self.render(&ctx, status, "error.html", "", json!({ "heading": heading, "message": message }))
    }

    /// The page for a use case's refusal, with the status the API's error
    /// registry gives it (404 for what the caller cannot see, 403 for a
    /// role or plan, 429 with `Retry-After` for a limit).
    fn error_page(&self, ctx: Option<&Ctx>, error: CoursesError) -> Response {
        let api = ApiError::from(error);
        let (status, _) = api.code().status_and_name();
        let heading = match status.as_u16() {
            404 => "Not found",
            403 => "Not allowed",
            402 => "Upgrade needed",
            429 => "Slow down",
            400..=499 => "That did not work",
            _ => "Something went wrong",
        };
        let page = json!({ "heading": heading, "message": api.message() });
        let bare = Ctx { me: None, workspaces: Vec::new(), page: PageState::default() };
        let mut response = self.render(ctx.unwrap_or(&bare), status, "error.html", "", page);
        if let Some(secs) = api.retry_after()
            && let Ok(value) = axum::http::HeaderValue::from_str(&secs.to_string())
        {
            response.headers_mut().insert(axum::http::header::RETRY_AFTER, value);
        }
        response
    }

    /// A redirect that carries a flash message to the next page.
    fn redirect_with(&self, to: &str, kind: &str, text: &str) -> Response {
        Flash::redirect(&self.studio.cookies, FLASH_COOKIE, to, kind, text)
    }

    /// The client's address, through the trusted proxies.
    fn studio_client(&self, headers: &HeaderMap, peer: Option<&ConnectInfo<SocketAddr>>) -> Option<IpAddr> {
        peer.map(|info| self.proxies.client_ip(info.0.ip(), headers))
    }
}

/// A form showing a use case's refusal beside its field: the first segment
/// of each issue's path names the field.
fn form_with_error(form: Form, error: &CoursesError) -> Form {
    match error {
        CoursesError::Invalid { issues, .. } if !issues.is_empty() => issues.iter().fold(form, |form, issue| {
            let field = issue.path.first().map(String::as_str);
            form.with_message(field, capitalise(&issue.message))
        }),
        other => form.with_message(None, capitalise(&other.to_string())),
    }
}

/// [`form_with_error`] with the API's field names turned into the form's
/// (`renames` pairs an API name with a form field's).
fn form_with_error_as(form: Form, error: &CoursesError, renames: &[(&str, &str)]) -> Form {
    let Form { values, errors } = form_with_error(form, error);
    let errors = errors
        .into_iter()
        .map(|(field, message)| {
            // `stackCards.0.front` is shown at the field for `stackCards`.
            let field = field.map(|f| {
                let first = f.split('.').next().unwrap_or_default();
                renames
                    .iter()
                    .find(|(api, _)| *api == f || *api == first)
                    .map_or(f.clone(), |(_, name)| (*name).to_owned())
            });
            (field, message)
        })
        .collect();
    Form { values, errors }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect::<String>() + ".").unwrap_or_default()
}

/// A timestamp in milliseconds as people read it.
fn when_millis(millis: i64) -> String {
    page_kit::when(kernel::Timestamp::from_millis(millis))
}

/// The status of a re-rendered form.
fn form_status(form: &Form) -> StatusCode {
    if form.is_valid() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY }
}

/// A page's answer from a use case: `Ok` renders, `Err` is its error page.
fn page_or_error(state: &AppState, ctx: &Ctx, result: Result<Response, CoursesError>) -> Response {
    result.unwrap_or_else(|e| state.error_page(Some(ctx), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_compiles() {
        let env = pages().environment();
        assert_eq!(env.templates().count(), 24, "the studio's 22 and the kit's base and macros");
        for (name, _) in env.templates() {
            assert!(env.get_template(name).is_ok(), "{name}");
        }
    }

    #[test]
    fn issues_land_beside_their_field() {
        let error = CoursesError::field(&["email"], "invalid_value", "enter an email address");
        let form = form_with_error(Form::default(), &error);
        assert_eq!(form.view()["field_errors"]["email"], "Enter an email address.");
    }
}
