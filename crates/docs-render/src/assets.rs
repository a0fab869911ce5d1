//! The static files every docs page loads, compiled into the binary and
//! served by the hub itself (no CDN: the docs work in an air-gapped network).

/// Where the hub serves them.
pub const BASE: &str = "/_docs";

pub const CSS: &str = include_str!("../assets/docs.css");
/// Progressive enhancement: Try-It, sample tabs, copy buttons, theme toggle.
pub const JS: &str = include_str!("../assets/docs.js");
/// The embeddable Try-It widget (`/widget.js`).
pub const WIDGET_JS: &str = include_str!("../assets/widget.js");
pub const ICON_SVG: &str = include_str!("../assets/icon.svg");

/// Changes whenever an asset changes (cache-busting query of asset URLs).
pub const VERSION: u64 = fnv(CSS) ^ fnv(JS).rotate_left(21) ^ fnv(ICON_SVG).rotate_left(42);

/// FNV-1a, at compile time.
const fn fnv(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        #[expect(clippy::indexing_slicing, reason = "i < len is checked by the loop")]
        let byte = bytes[i];
        hash ^= byte as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// An asset by file name: its content type and body.
#[must_use]
pub fn get(name: &str) -> Option<(&'static str, &'static str)> {
    match name {
        "docs.css" => Some(("text/css; charset=utf-8", CSS)),
        "docs.js" => Some(("text/javascript; charset=utf-8", JS)),
        "widget.js" => Some(("text/javascript; charset=utf-8", WIDGET_JS)),
        "icon.svg" => Some(("image/svg+xml", ICON_SVG)),
        _ => None,
    }
}
