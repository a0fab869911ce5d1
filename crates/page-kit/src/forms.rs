//! Posted forms and their errors, and multipart uploads.
//!
//! One form-error pattern: `macros.html`'s `errors(form)` shows a summary of
//! [`Form::view`]'s errors, and `field`/`area` show each beside its input.
//! Values are kept on re-render; passwords and the CSRF token never are.

use std::collections::HashMap;
use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// The fields of a form as posted, with its errors when it is re-rendered.
#[derive(Debug, Default)]
pub struct Form {
    pub values: HashMap<String, String>,
    /// Each error with the field it belongs to (none: the whole form).
    pub errors: Vec<(Option<String>, String)>,
}

impl Form {
    /// A form from an `application/x-www-form-urlencoded` body; an
    /// unreadable body is an empty form.
    #[must_use]
    pub fn parse(body: &[u8]) -> Self {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_bytes(body).unwrap_or_default();
        Self { values: pairs.into_iter().collect(), errors: Vec::new() }
    }

    /// The value of `name`, empty when absent.
    #[must_use]
    pub fn get(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    /// Whether the checkbox `name` was ticked.
    #[must_use]
    pub fn checked(&self, name: &str) -> bool {
        matches!(self.get(name), "on" | "true" | "1" | "yes")
    }

    /// The form with `message` beside `field` (or for the whole form).
    #[must_use]
    pub fn with_message(mut self, field: Option<&str>, message: impl Into<String>) -> Self {
        self.errors.push((field.map(str::to_owned), message.into()));
        self
    }

    /// Whether nothing is wrong with the form.
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Values without secrets, for re-rendering.
    #[must_use]
    pub fn view(&self) -> Value {
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

/// Reads a form body (at most 1 MiB: a larger one is answered 413), with
/// the request's headers and peer address.
///
/// # Errors
/// The 413 answer for a body over the limit.
pub async fn read_form(request: Request) -> Result<(HeaderMap, Option<ConnectInfo<SocketAddr>>, Form), Response> {
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().cloned();
    let (parts, body) = request.into_parts();
    let bytes = platform::http::read_body_limited(&parts.headers, body, platform::http::DEFAULT_BODY_LIMIT)
        .await
        .map_err(|_| (StatusCode::PAYLOAD_TOO_LARGE, "the form is larger than 1 MiB").into_response())?;
    Ok((parts.headers, peer, Form::parse(&bytes)))
}

/// A file upload's fields: short text fields, and the one file.
#[derive(Debug, Default)]
pub struct Upload {
    pub texts: HashMap<String, String>,
    pub file: Option<Vec<u8>>,
    /// The name the browser gave the file (at most 200 characters).
    pub file_name: Option<String>,
}

impl Upload {
    /// The text field `name`, empty when absent.
    #[must_use]
    pub fn text(&self, name: &str) -> &str {
        self.texts.get(name).map_or("", String::as_str)
    }
}

/// Text fields of an upload are cut at this many characters.
const UPLOAD_TEXT_CHARS: usize = 200;
/// At most this many text fields of an upload are kept.
const UPLOAD_TEXT_FIELDS: usize = 16;

/// Reads a multipart upload: the field `file_field` streams and is refused
/// as soon as it passes `limit` bytes (`too_large` says so); other fields
/// are short texts.
///
/// # Errors
/// A sentence for the person uploading: not multipart, unreadable, too large.
pub async fn read_upload(request: Request, file_field: &str, limit: usize, too_large: &str) -> Result<Upload, String> {
    let mut multipart = <axum::extract::Multipart as axum::extract::FromRequest<()>>::from_request(request, &())
        .await
        .map_err(|_| "Send the file as a form upload (multipart/form-data).".to_owned())?;
    let unreadable = |e: axum::extract::multipart::MultipartError| format!("The upload could not be read: {e}");
    let mut upload = Upload::default();
    while let Some(mut field) = multipart.next_field().await.map_err(unreadable)? {
        let Some(name) = field.name().map(str::to_owned) else { continue };
        if name == file_field {
            upload.file_name = field.file_name().map(|n| n.chars().take(200).collect());
            let mut bytes = Vec::new();
            while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
                if bytes.len() + chunk.len() > limit {
                    return Err(too_large.to_owned());
                }
                bytes.extend_from_slice(&chunk);
            }
            upload.file = Some(bytes);
        } else if upload.texts.len() < UPLOAD_TEXT_FIELDS {
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn errors_are_listed_and_placed_beside_their_field() {
        let form = Form::parse(b"name=").with_message(Some("name"), "Give it a name.").with_message(None, "Nope.");
        assert!(!form.is_valid());
        let view = form.view();
        assert_eq!(view["field_errors"]["name"], "Give it a name.");
        assert_eq!(view["errors"][1]["message"], "Nope.");
        assert_eq!(view["errors"][1]["field"], Value::Null);
    }
}
