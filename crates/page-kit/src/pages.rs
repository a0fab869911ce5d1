//! Rendering a page: the templates (the kit's `base.html` and `macros.html`
//! and a service's own), the context every page shares, and the strict
//! headers every page carries.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use minijinja::Environment;
use platform::web::{CookiePolicy, Csrf};
use serde_json::{Value, json};

use crate::assets::Assets;
use crate::flash::Flash;

/// Every page: scripts, styles and images only from its own origin, no
/// inline code, frames only of its own origin, and never framed itself.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The kit's own templates, present in every service's environment.
const KIT_TEMPLATES: [(&str, &str); 2] =
    [("base.html", include_str!("../templates/base.html")), ("macros.html", include_str!("../templates/macros.html"))];

/// The headers of every page: the CSP above, `nosniff`, no referrer, no
/// framing, and `no-store` when the page is private.
pub fn page_headers(headers: &mut HeaderMap, private: bool) {
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(PAGE_CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if private {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

/// One service's pages: its product name, where its assets are served, and
/// its templates beside the kit's.
#[derive(Debug)]
pub struct Pages {
    env: Environment<'static>,
    assets: Assets,
    product: &'static str,
    asset_prefix: &'static str,
}

impl Pages {
    /// Pages of `product` whose assets are served under `asset_prefix`
    /// (`/_app`, no trailing slash), with the service's `templates`. A
    /// template that does not compile is logged and left out (its pages
    /// answer 500; a unit test of the service compiles them all).
    #[must_use]
    pub fn new(
        product: &'static str,
        asset_prefix: &'static str,
        assets: Assets,
        templates: &[(&'static str, &'static str)],
    ) -> Self {
        let mut env = Environment::new();
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        for (name, source) in KIT_TEMPLATES.iter().chain(templates) {
            if let Err(err) = env.add_template(name, source) {
                tracing::error!(template = name, error = %err, "a page template does not compile");
            }
        }
        Self { env, assets, product, asset_prefix }
    }

    /// The template environment.
    #[must_use]
    pub const fn environment(&self) -> &Environment<'static> {
        &self.env
    }

    /// The assets served under the prefix.
    #[must_use]
    pub const fn assets(&self) -> &Assets {
        &self.assets
    }

    /// Renders `template` with `context` (to which `product`, `assets` and
    /// `asset_version` are added), with the page headers and `set_cookies`.
    #[must_use]
    pub fn render(&self, status: StatusCode, template: &str, context: Value, set_cookies: &[String]) -> Response {
        let mut context = context;
        if let Some(map) = context.as_object_mut() {
            map.insert("product".into(), json!(self.product));
            map.insert("assets".into(), json!(self.asset_prefix));
            map.insert("asset_version".into(), json!(self.assets.version()));
        }
        let html = self.env.get_template(template).and_then(|t| t.render(minijinja::Value::from_serialize(&context)));
        let mut response = match html {
            Ok(html) => (status, axum::response::Html(html)).into_response(),
            Err(err) => {
                tracing::error!(template, error = %err, "a page did not render");
                (StatusCode::INTERNAL_SERVER_ERROR, "the page could not be rendered").into_response()
            }
        };
        page_headers(response.headers_mut(), true);
        for cookie in set_cookies {
            if let Ok(value) = HeaderValue::from_str(cookie) {
                response.headers_mut().append(header::SET_COOKIE, value);
            }
        }
        response
    }
}

/// What every page of one request shares apart from who is signed in: the
/// CSRF token for its forms, the flash message to show once, and the cookies
/// to set (a new CSRF cookie, the flash cleared).
#[derive(Debug, Default)]
pub struct PageState {
    pub csrf: String,
    pub flash: Option<Flash>,
    pub set_cookies: Vec<String>,
}

impl PageState {
    /// The state of a request: a CSRF token (issuing its cookie when
    /// missing) and the flash message in the cookie `flash_cookie`, cleared.
    #[must_use]
    pub fn begin(csrf: &Csrf, cookies: &CookiePolicy, headers: &HeaderMap, flash_cookie: &str) -> Self {
        let issue = csrf.issue(headers);
        let mut set_cookies: Vec<String> = issue.set_cookie.into_iter().collect();
        let flash = Flash::read(cookies, headers, flash_cookie);
        if flash.is_some() {
            set_cookies.push(cookies.clear(flash_cookie));
        }
        Self { csrf: issue.token, flash, set_cookies }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"{% extends "base.html" %}{% import "macros.html" as ui %}{% block title %}Hello{% endblock %}
{% block main %}<h1>Hello</h1>{{ ui.errors(form) }}{{ ui.field(form, "name", "Name", attrs='spellcheck="false" min="1"') }}{% endblock %}"#;

    #[test]
    fn a_page_has_the_layout_the_form_errors_and_the_strict_headers() {
        let pages = Pages::new("svc test", "/_t", Assets::new(&[]), &[("page.html", PAGE)]);
        let form = crate::Form::parse(b"name=x%3Cb%3E").with_message(Some("name"), "Too short.");
        let response = pages.render(
            StatusCode::UNPROCESSABLE_ENTITY,
            "page.html",
            json!({ "form": form.view(), "flash": { "kind": "success", "text": "Done" } }),
            &["a=b".to_owned()],
        );
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(response.headers()[header::CONTENT_SECURITY_POLICY], PAGE_CSP);
        assert_eq!(response.headers()[header::CACHE_CONTROL], "no-store");
        assert_eq!(response.headers()[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(response.headers()[header::SET_COOKIE], "a=b");
        let body = futures_body(response);
        assert!(body.starts_with("<!doctype html>"), "{body}");
        assert!(body.contains("<title>Hello · svc test</title>"));
        assert!(body.contains(&format!("href=\"/_t/app.css?v={}\"", pages.assets().version())));
        assert!(body.contains("role=\"status\">Done</div>"));
        assert!(body.contains("role=\"alert\""), "the error summary: {body}");
        assert!(body.contains("aria-invalid=\"true\""));
        assert!(body.contains("x&lt;b&gt;"), "values are kept, escaped: {body}");
        assert!(body.contains(" spellcheck=\"false\" min=\"1\">"), "a template's extra attributes are markup: {body}");
    }

    fn futures_body(response: Response) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let bytes = runtime
            .block_on(http_body_util::BodyExt::collect(response.into_body()))
            .map(http_body_util::Collected::to_bytes)
            .unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }
}
