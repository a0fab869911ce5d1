//! Cookies and forms for pages served to browsers: the cookie attributes
//! every service uses, and CSRF tokens for cookie-authenticated forms.
//!
//! `Secure` and the `__Host-` name prefix follow the configured public URL
//! (https or not), never a request header a client could send. CSRF tokens
//! are the signed double-submit pattern bound to the session: a random value
//! in a cookie, and in the form the HMAC of that value and of the browser's
//! session cookie (when it has one) under a key derived from the secret key.
//! A site that can plant cookies (a sibling subdomain on plain HTTP) cannot
//! mint the HMAC, and a pair it took from its own browser does not pass
//! with another person's session, whose secret it does not know.

use axum::http::HeaderMap;
use axum::http::header;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::secrets::SecretKey;

/// How cookies are written for one public origin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CookiePolicy {
    secure: bool,
}

impl CookiePolicy {
    /// Secure cookies when the public URL is https.
    #[must_use]
    pub fn for_public_url(public_url: &str) -> Self {
        Self { secure: public_url.trim().to_ascii_lowercase().starts_with("https://") }
    }

    #[must_use]
    pub const fn is_secure(&self) -> bool {
        self.secure
    }

    /// The name a cookie carries on the wire: `__Host-<name>` over https
    /// (bound to this host, path `/`, no `Domain`), `<name>` otherwise.
    #[must_use]
    pub fn name(&self, name: &str) -> String {
        if self.secure { format!("__Host-{name}") } else { name.to_owned() }
    }

    /// A `Set-Cookie` value: HttpOnly, SameSite=Lax, `Path=/`, `Secure` over https.
    #[must_use]
    pub fn set(&self, name: &str, value: &str, max_age_secs: i64) -> String {
        format!(
            "{}={value}; Path=/; Max-Age={}; HttpOnly; SameSite=Lax{}",
            self.name(name),
            max_age_secs.max(0),
            if self.secure { "; Secure" } else { "" }
        )
    }

    /// A `Set-Cookie` value that removes the cookie.
    #[must_use]
    pub fn clear(&self, name: &str) -> String {
        self.set(name, "", 0)
    }

    /// The value of the cookie `name` (by its wire name) in a request.
    #[must_use]
    pub fn get<'a>(&self, headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
        cookie(headers, &self.name(name))
    }
}

/// The value of the cookie named exactly `name`.
#[must_use]
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// Removes from `headers` every cookie whose name `is_ours` claims, keeping
/// the others (a tenant's API may use cookies of its own). Every `Cookie`
/// header is rewritten, as HTTP/2 clients send one per cookie; a header
/// left empty is dropped. Returns how many cookies were removed.
pub fn remove_cookies(headers: &mut HeaderMap, is_ours: impl Fn(&str) -> bool) -> usize {
    if !headers.contains_key(header::COOKIE) {
        return 0;
    }
    let mut removed = 0;
    let mut kept: Vec<String> = Vec::new();
    for value in headers.get_all(header::COOKIE) {
        // A header that is not text cannot be parsed into pairs, so no pair
        // of it can be judged ours or not: it is dropped whole.
        let Ok(text) = value.to_str() else {
            removed += 1;
            continue;
        };
        for pair in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name).trim();
            if is_ours(name) {
                removed += 1;
            } else {
                kept.push(pair.to_owned());
            }
        }
    }
    if removed == 0 {
        return 0;
    }
    headers.remove(header::COOKIE);
    if !kept.is_empty()
        && let Ok(value) = axum::http::HeaderValue::from_str(&kept.join("; "))
    {
        headers.insert(header::COOKIE, value);
    }
    removed
}

/// A cookie name without the `__Host-` prefix the policy adds over https.
#[must_use]
pub fn unprefixed(name: &str) -> &str {
    name.strip_prefix("__Host-").unwrap_or(name)
}

/// The name of the CSRF cookie (before the `__Host-` prefix).
pub const CSRF_COOKIE: &str = "csrf";
/// The name of the form field that carries the token.
pub const CSRF_FIELD: &str = "csrf_token";
const CSRF_COOKIE_MAX_AGE: i64 = 60 * 60 * 24;

/// Issues and checks CSRF tokens.
#[derive(Clone)]
pub struct Csrf {
    key: [u8; 32],
    cookies: CookiePolicy,
    /// The session cookie whose value every token is bound to, when the
    /// browser sends one.
    session_cookie: Option<&'static str>,
    /// The nonce cookie's name (before the `__Host-` prefix).
    cookie_name: &'static str,
}

impl std::fmt::Debug for Csrf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Csrf").field("cookies", &self.cookies).finish_non_exhaustive()
    }
}

/// A token to put in a form, and the cookie to set when the browser had none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsrfIssue {
    pub token: String,
    pub set_cookie: Option<String>,
}

impl Csrf {
    #[must_use]
    pub fn new(key: &SecretKey, cookies: CookiePolicy) -> Self {
        Self { key: key.derive("csrf"), cookies, session_cookie: None, cookie_name: CSRF_COOKIE }
    }

    /// The same tokens with the nonce in the cookie `name` (a service that
    /// names all its cookies alike).
    #[must_use]
    pub const fn with_cookie_name(mut self, name: &'static str) -> Self {
        self.cookie_name = name;
        self
    }

    /// The same tokens bound to the value of the session cookie `name`
    /// (before the `__Host-` prefix): a token issued to one session does
    /// not pass with another.
    #[must_use]
    pub const fn bound_to_session(mut self, name: &'static str) -> Self {
        self.session_cookie = Some(name);
        self
    }

    fn sign(&self, nonce: &str, headers: &HeaderMap) -> String {
        let Ok(mut mac) = <Hmac<Sha256> as Mac>::new_from_slice(&self.key) else { return String::new() };
        let session = self.session_cookie.and_then(|name| self.cookies.get(headers, name)).unwrap_or_default();
        // Length-prefixed, so no nonce and session can be shifted into
        // another pair with the same bytes.
        mac.update(&u64::try_from(nonce.len()).unwrap_or(u64::MAX).to_be_bytes());
        mac.update(nonce.as_bytes());
        mac.update(session.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }

    /// The token for a form on a page answering `headers`: bound to the
    /// browser's CSRF cookie, which is created when missing.
    #[must_use]
    pub fn issue(&self, headers: &HeaderMap) -> CsrfIssue {
        match self.cookies.get(headers, self.cookie_name).filter(|n| n.len() >= 16 && n.len() <= 128) {
            Some(nonce) => CsrfIssue { token: self.sign(nonce, headers), set_cookie: None },
            None => {
                let nonce = crate::crypto::random_token(24);
                CsrfIssue {
                    token: self.sign(&nonce, headers),
                    set_cookie: Some(self.cookies.set(self.cookie_name, &nonce, CSRF_COOKIE_MAX_AGE)),
                }
            }
        }
    }

    /// Whether a submitted `token` belongs to the browser that sent `headers`.
    #[must_use]
    pub fn verify(&self, headers: &HeaderMap, token: Option<&str>) -> bool {
        let (Some(nonce), Some(token)) = (self.cookies.get(headers, self.cookie_name), token) else { return false };
        crate::crypto::constant_time_eq(self.sign(nonce, headers).as_bytes(), token.as_bytes())
    }

    #[must_use]
    pub const fn cookies(&self) -> &CookiePolicy {
        &self.cookies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with_cookie(set_cookie: &str) -> HeaderMap {
        let pair = set_cookie.split(';').next().unwrap();
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_str(pair).unwrap());
        h
    }

    #[test]
    fn cookie_attributes_follow_the_public_url() {
        let https = CookiePolicy::for_public_url("https://docs.example.com");
        assert_eq!(https.set("s", "v", 60), "__Host-s=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure");
        let http = CookiePolicy::for_public_url("http://127.0.0.1:8080");
        assert_eq!(http.set("s", "v", 60), "s=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax");
        assert_eq!(http.clear("s"), "s=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax");
    }

    #[test]
    fn csrf_tokens_bind_to_the_browser_cookie_and_the_key() {
        let key = SecretKey::generate();
        let csrf = Csrf::new(&key, CookiePolicy::for_public_url("https://hub.example"));
        let first = csrf.issue(&HeaderMap::new());
        let cookie = first.set_cookie.clone().unwrap();
        assert!(cookie.starts_with("__Host-csrf="));
        let browser = with_cookie(&cookie);
        assert!(csrf.verify(&browser, Some(&first.token)));
        // The same browser gets the same token and no new cookie.
        assert_eq!(csrf.issue(&browser), CsrfIssue { token: first.token.clone(), set_cookie: None });
        assert!(!csrf.verify(&browser, Some("forged")));
        assert!(!csrf.verify(&browser, None));
        assert!(!csrf.verify(&HeaderMap::new(), Some(&first.token)), "no cookie, no pass");
        // A planted cookie with a token from another key does not pass.
        let other = Csrf::new(&SecretKey::generate(), CookiePolicy::for_public_url("https://hub.example"));
        assert!(!other.verify(&browser, Some(&first.token)));
    }

    #[test]
    fn removing_cookies_keeps_the_others_across_every_cookie_header() {
        let mut h = HeaderMap::new();
        h.append(header::COOKIE, HeaderValue::from_static("session=s1; theirs=1; __Host-csrf=n"));
        h.append(header::COOKIE, HeaderValue::from_static("flash=x"));
        h.append(header::COOKIE, HeaderValue::from_static("api_key=k"));
        let ours = |name: &str| matches!(unprefixed(name), "session" | "csrf" | "flash");
        assert_eq!(remove_cookies(&mut h, ours), 3);
        let left: Vec<_> = h.get_all(header::COOKIE).iter().map(|v| v.to_str().unwrap().to_owned()).collect();
        assert_eq!(left, vec!["theirs=1; api_key=k".to_owned()]);
        let mut only_ours = HeaderMap::new();
        only_ours.insert(header::COOKIE, HeaderValue::from_static("session=s1"));
        assert_eq!(remove_cookies(&mut only_ours, ours), 1);
        assert!(only_ours.get(header::COOKIE).is_none(), "nothing left, no header");
        let mut untouched = HeaderMap::new();
        untouched.insert(header::COOKIE, HeaderValue::from_static("a=1;b=2"));
        assert_eq!(remove_cookies(&mut untouched, ours), 0);
        assert_eq!(untouched[header::COOKIE], "a=1;b=2", "left as sent when nothing is ours");
    }

    #[test]
    fn bound_tokens_do_not_pass_with_another_session() {
        let key = SecretKey::generate();
        let csrf = Csrf::new(&key, CookiePolicy::for_public_url("http://hub.example")).bound_to_session("session");
        let cookies = |pairs: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::COOKIE, HeaderValue::from_str(pairs).unwrap());
            h
        };
        // The attacker's own browser: its nonce, its session, its token.
        let attacker = cookies("csrf=nonce-of-the-attacker-0001; session=attacker-secret");
        let token = csrf.issue(&attacker).token;
        assert!(csrf.verify(&attacker, Some(&token)));
        // Planted in the victim's browser beside the victim's session.
        let victim = cookies("csrf=nonce-of-the-attacker-0001; session=victim-secret");
        assert!(!csrf.verify(&victim, Some(&token)), "a planted pair fails with another session");
        // Signed out, the token binds to the nonce alone, and a sign-in
        // changes it.
        let signed_out = cookies("csrf=nonce-of-the-attacker-0001");
        let before = csrf.issue(&signed_out).token;
        assert!(csrf.verify(&signed_out, Some(&before)));
        assert!(!csrf.verify(&attacker, Some(&before)));
    }
}
