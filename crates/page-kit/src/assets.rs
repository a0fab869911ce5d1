//! The pages' stylesheet and script, served by each service under its own
//! prefix with a content fingerprint, so browsers may cache them for a year.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The one stylesheet: custom properties as tokens, the components, dark
/// mode from `prefers-color-scheme`, one column under 640 px.
pub const APP_CSS: &str = include_str!("../assets/app.css");
/// The enhancements: every page works without it.
pub const APP_JS: &str = include_str!("../assets/app.js");

/// One file served under the assets prefix.
#[derive(Clone, Copy, Debug)]
pub struct Asset {
    pub name: &'static str,
    pub body: &'static str,
    pub content_type: &'static str,
}

/// The files of a service's pages: the kit's stylesheet and script, and any
/// the service adds (an icon), with one fingerprint over them all.
#[derive(Clone, Debug)]
pub struct Assets {
    files: Vec<Asset>,
    version: String,
}

impl Assets {
    /// `app.css`, `app.js` and `extra`.
    #[must_use]
    pub fn new(extra: &[Asset]) -> Self {
        let mut files = vec![
            Asset { name: "app.css", body: APP_CSS, content_type: "text/css; charset=utf-8" },
            Asset { name: "app.js", body: APP_JS, content_type: "text/javascript; charset=utf-8" },
        ];
        files.extend_from_slice(extra);
        let mut all = String::with_capacity(files.iter().map(|f| f.body.len()).sum());
        for file in &files {
            all.push_str(file.body);
        }
        let version = platform::crypto::sha256_hex(all.as_bytes()).chars().take(12).collect();
        Self { files, version }
    }

    /// A short fingerprint of the files: their URLs carry it (`?v=`), so
    /// they change when a file does.
    #[must_use]
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The answer to a request for `name` under the prefix: the file with a
    /// year of caching, or 404.
    #[must_use]
    pub fn serve(&self, name: &str) -> Response {
        let Some(file) = self.files.iter().find(|f| f.name == name) else {
            return StatusCode::NOT_FOUND.into_response();
        };
        (
            [
                (header::CONTENT_TYPE, file.content_type),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            ],
            file.body,
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_served_with_a_year_of_caching_and_others_are_not_found() {
        let assets = Assets::new(&[Asset { name: "icon.svg", body: "<svg/>", content_type: "image/svg+xml" }]);
        let css = assets.serve("app.css");
        assert_eq!(css.status(), StatusCode::OK);
        assert_eq!(css.headers()[header::CONTENT_TYPE], "text/css; charset=utf-8");
        assert_eq!(css.headers()[header::CACHE_CONTROL], "public, max-age=31536000, immutable");
        assert_eq!(assets.serve("icon.svg").headers()[header::CONTENT_TYPE], "image/svg+xml");
        assert_eq!(assets.serve("../secret").status(), StatusCode::NOT_FOUND);
        assert_eq!(assets.version().len(), 12);
        assert_ne!(assets.version(), Assets::new(&[]).version(), "every file counts in the fingerprint");
    }
}
