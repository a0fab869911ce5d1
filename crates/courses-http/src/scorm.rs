//! The files of imported SCORM packages, served to the learner player, and
//! the SCORM runtime script added to their HTML pages.
//!
//! A package is tenant content that must run its own script, so every file
//! is answered with `Content-Security-Policy: sandbox allow-scripts ...`
//! without `allow-same-origin` (the player's frame carries the same
//! sandbox): the browser gives the SCO an opaque origin, so it can read no
//! cookie, storage or response of this service's origin and cannot script
//! the player. It still loads its own files (relative URLs; `fetch` and XHR
//! get `Access-Control-Allow-Origin: *`, without credentials) and talks to
//! the player only by `postMessage`. Nothing here sets a cookie.

use axum::extract::{Path, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::AppState;
use crate::error::ApiError;

/// The sandbox of a package's documents (the player's frame has the same
/// tokens): scripts, forms, pop-ups, dialogs and downloads, never the
/// service's origin.
pub const SANDBOX: &str = "allow-scripts allow-forms allow-popups allow-modals allow-downloads";

/// The runtime the HTML pages of a package get (see the script's header).
pub const RUNTIME_JS: &str = include_str!("assets/scorm-runtime.js");

/// Where the runtime is served (static, so pages of every package share
/// one cached copy).
pub const RUNTIME_PATH: &str = "/v1/embed/scorm-runtime.js";

/// The tag inserted into each HTML page of a package.
const RUNTIME_TAG: &[u8] = b"<script src=\"/v1/embed/scorm-runtime.js\"></script>";

/// `GET /v1/embed/scorm/{packageId}/{path}`: one file of a package whose
/// course is published.
pub async fn file(
    State(s): State<AppState>,
    Path((package, path)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let bytes = s.courses.scorm_file(&package, &path).await?;
    let kind = content_type(&path);
    let body = if kind.starts_with("text/html") { with_runtime(&bytes) } else { bytes.to_vec() };
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    sandbox_headers(headers);
    Ok(response)
}

/// `GET /v1/embed/media/{mediaId}`: a file uploaded in the studio, typed by
/// its bytes, with the tenant-content headers of package files.
pub async fn media(State(s): State<AppState>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let (media, bytes) = s.courses.media_file(&id).await?;
    let mut response = (StatusCode::OK, bytes).into_response();
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(&media.content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    sandbox_headers(headers);
    Ok(response)
}

/// `GET /v1/embed/scorm-runtime.js`.
pub async fn runtime() -> Response {
    let mut response = (StatusCode::OK, RUNTIME_JS).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/javascript; charset=utf-8"));
    sandbox_headers(headers);
    response
}

pub(crate) fn sandbox_headers(headers: &mut axum::http::HeaderMap) {
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads; object-src 'none'",
        ),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // The sandboxed frame is another origin: it may read its own files
    // (never with credentials) and embed them.
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    headers.insert(HeaderName::from_static("cross-origin-resource-policy"), HeaderValue::from_static("cross-origin"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
}

/// The page with the runtime's script tag right after `<head ...>` (else
/// after `<html ...>`, else first), found in the bytes so a page in any
/// ASCII-compatible encoding stays intact.
pub fn with_runtime(page: &[u8]) -> Vec<u8> {
    let at = tag_end(page, b"<head").or_else(|| tag_end(page, b"<html")).unwrap_or(0);
    let mut out = Vec::with_capacity(page.len() + RUNTIME_TAG.len());
    out.extend_from_slice(page.get(..at).unwrap_or_default());
    out.extend_from_slice(RUNTIME_TAG);
    out.extend_from_slice(page.get(at..).unwrap_or_default());
    out
}

/// The index just past the `>` of the first tag named `name` (ASCII
/// case-insensitive; `<header>` is not `<head>`).
fn tag_end(page: &[u8], name: &[u8]) -> Option<usize> {
    let lower: Vec<u8> = page.iter().take(64 * 1024).map(u8::to_ascii_lowercase).collect();
    let mut from = 0;
    while let Some(found) = lower.get(from..)?.windows(name.len()).position(|w| w == name) {
        let start = from + found;
        let next = lower.get(start + name.len()).copied();
        if matches!(next, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/')) {
            let close = lower.get(start..)?.iter().position(|&b| b == b'>')?;
            return Some(start + close + 1);
        }
        from = start + 1;
    }
    None
}

/// The media type of a package file by its extension; unknown types are
/// bytes (and `nosniff` stops a browser from guessing otherwise).
pub fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit('/').next().and_then(|name| name.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        // No charset: a page declares its own (many older packages are not UTF-8).
        Some("html" | "htm") => "text/html",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("xml" | "xsd") => "application/xml",
        Some("txt") => "text/plain; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("mp4" | "m4v") => "video/mp4",
        Some("webm") => "video/webm",
        Some("mp3") => "audio/mpeg",
        Some("m4a") => "audio/mp4",
        Some("ogg") => "audio/ogg",
        Some("wav") => "audio/wav",
        Some("vtt") => "text/vtt; charset=utf-8",
        Some("woff") => "font/woff",
        Some("woff2") => "font/woff2",
        Some("ttf") => "font/ttf",
        Some("otf") => "font/otf",
        Some("pdf") => "application/pdf",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_goes_into_the_head() {
        let page = b"<!doctype html><HTML lang=en><Head data-x='1'><title>t</title></head><body><header>h</header></body></html>";
        let out = String::from_utf8(with_runtime(page)).unwrap_or_default();
        assert!(out.starts_with("<!doctype html><HTML lang=en><Head data-x='1'><script src=\"/v1/embed/scorm-runtime.js\"></script><title>"), "{out}");
        let no_head = String::from_utf8(with_runtime(b"<header>x</header><p>")).unwrap_or_default();
        assert!(no_head.starts_with("<script src"), "{no_head}");
        let latin1 = with_runtime(b"<head>\xe9t\xe9");
        assert!(latin1.ends_with(b"</script>\xe9t\xe9"), "bytes outside UTF-8 are kept");
    }

    #[test]
    fn types_follow_extensions() {
        assert_eq!(content_type("a/B.HTML"), "text/html");
        assert_eq!(content_type("lib/x.min.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("dir.v2/noext"), "application/octet-stream");
        assert_eq!(content_type("font.woff2"), "font/woff2");
    }
}
