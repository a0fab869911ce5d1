//! The flash message: a short-lived cookie set by a redirect (post,
//! redirect, get) that the next page shows once and clears.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Redirect, Response};
use platform::web::CookiePolicy;
use serde::Serialize;

/// The longest message kept, in characters.
const MAX_CHARS: usize = 300;
/// A flash cookie lives this long: enough for the redirect it rides on.
const MAX_AGE_SECS: i64 = 60;

/// A flash message: `success`, `info` or `error`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Flash {
    pub kind: String,
    pub text: String,
}

impl Flash {
    /// The message in the cookie `name` of a request, if any (an unknown
    /// kind reads as `info`, the text is cut at 300 characters).
    #[must_use]
    pub fn read(cookies: &CookiePolicy, headers: &HeaderMap, name: &str) -> Option<Self> {
        let raw = cookies.get(headers, name)?;
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw).ok()?;
        let kind = pairs.iter().find(|(k, _)| k == "k").map(|(_, v)| v.clone())?;
        let text = pairs.iter().find(|(k, _)| k == "t").map(|(_, v)| v.chars().take(MAX_CHARS).collect())?;
        let kind = if matches!(kind.as_str(), "success" | "info" | "error") { kind } else { "info".to_owned() };
        Some(Self { kind, text })
    }

    /// A redirect to `to` that carries a message to the next page in the
    /// cookie `name`.
    #[must_use]
    pub fn redirect(cookies: &CookiePolicy, name: &str, to: &str, kind: &str, text: &str) -> Response {
        let value = serde_urlencoded::to_string([("k", kind), ("t", text)]).unwrap_or_default();
        let mut response = Redirect::to(to).into_response();
        if let Ok(cookie) = HeaderValue::from_str(&cookies.set(name, &value, MAX_AGE_SECS)) {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_carries_the_message_that_the_next_page_reads() {
        let cookies = CookiePolicy::for_public_url("http://127.0.0.1");
        let response = Flash::redirect(&cookies, "x_flash", "/next", "success", "Saved; all of it");
        let set = response.headers()[header::SET_COOKIE].to_str().unwrap_or_default().to_owned();
        let pair = set.split(';').next().unwrap_or_default().to_owned();
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_str(&pair).unwrap_or(HeaderValue::from_static("")));
        let flash = Flash::read(&cookies, &headers, "x_flash");
        assert_eq!(flash, Some(Flash { kind: "success".into(), text: "Saved; all of it".into() }));
    }

    #[test]
    fn an_unknown_kind_reads_as_info() {
        let cookies = CookiePolicy::for_public_url("http://127.0.0.1");
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, HeaderValue::from_static("x_flash=k=evil&t=hi"));
        assert_eq!(Flash::read(&cookies, &headers, "x_flash").map(|f| f.kind), Some("info".to_owned()));
    }
}
