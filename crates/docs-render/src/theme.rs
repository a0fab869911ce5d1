//! Theme tokens as CSS custom properties. The hub validates tokens when they
//! are saved; this module checks them again as it writes the `<style>`
//! block, so nothing but a colour or a length can ever reach it.

use serde::{Deserialize, Serialize};

/// Colours of one theme (light or dark). `None` keeps the default.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Palette {
    pub primary: Option<String>,
    pub background: Option<String>,
    pub foreground: Option<String>,
    pub muted: Option<String>,
    pub border: Option<String>,
    pub card: Option<String>,
}

/// The theme applied to a project's docs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct Theme {
    pub light: Palette,
    pub dark: Palette,
    /// Shared corner radius in pixels.
    pub radius: Option<u32>,
    /// `light` or `dark`: the docs use only that theme.
    pub lock: Option<String>,
}

/// `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa`.
#[must_use]
pub fn is_colour(value: &str) -> bool {
    let Some(hex) = value.strip_prefix('#') else { return false };
    matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit())
}

fn declarations(palette: &Palette) -> String {
    let mut out = String::new();
    for (name, value) in [
        ("primary", &palette.primary),
        ("bg", &palette.background),
        ("fg", &palette.foreground),
        ("muted", &palette.muted),
        ("border", &palette.border),
        ("card", &palette.card),
    ] {
        if let Some(value) = value.as_deref().filter(|v| is_colour(v)) {
            out.push_str(&format!("--{name}:{value};"));
        }
    }
    out
}

/// The `<style>` content for `theme` (empty when it sets nothing).
#[must_use]
pub fn css(theme: &Theme) -> String {
    let mut out = String::new();
    let light = declarations(&theme.light);
    let dark = declarations(&theme.dark);
    if let Some(radius) = theme.radius.filter(|r| *r <= 48) {
        out.push_str(&format!(":root{{--radius:{radius}px;}}"));
    }
    if !light.is_empty() {
        out.push_str(&format!(":root{{{light}}}"));
    }
    if !dark.is_empty() {
        out.push_str(&format!(
            "@media (prefers-color-scheme: dark){{:root:not([data-theme=light]){{{dark}}}}}:root[data-theme=dark]{{{dark}}}"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_colours_reach_the_stylesheet() {
        let theme = Theme {
            light: Palette {
                primary: Some("#ff0000".into()),
                background: Some("red;}</style><script>alert(1)</script>".into()),
                ..Palette::default()
            },
            dark: Palette { primary: Some("#0f0".into()), ..Palette::default() },
            radius: Some(6),
            lock: None,
        };
        let css = css(&theme);
        assert!(css.contains("--primary:#ff0000;"), "{css}");
        assert!(css.contains("--radius:6px;"), "{css}");
        assert!(css.contains("[data-theme=dark]{--primary:#0f0;}"), "{css}");
        assert!(!css.contains("script") && !css.contains("red"), "{css}");
        assert!(is_colour("#abcd") && !is_colour("#abcde") && !is_colour("blue"));
    }
}
