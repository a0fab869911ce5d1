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

/// An opaque colour, channels 0 to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Rgb([f64; 3]);

impl Rgb {
    /// A hex colour; alpha is composed over `under`.
    fn parse(value: &str, under: Self) -> Option<Self> {
        if !is_colour(value) {
            return None;
        }
        let hex = value.get(1..)?;
        let digits: Vec<u8> = hex.bytes().map(|b| (b as char).to_digit(16).map_or(0, |d| d as u8)).collect();
        let channel = |i: usize| -> f64 {
            match digits.len() {
                3 | 4 => digits.get(i).map_or(0.0, |d| f64::from(d * 17) / 255.0),
                _ => {
                    let hi = digits.get(2 * i).copied().unwrap_or(0);
                    let lo = digits.get(2 * i + 1).copied().unwrap_or(0);
                    f64::from(hi * 16 + lo) / 255.0
                }
            }
        };
        let alpha = if matches!(digits.len(), 4 | 8) { channel(3) } else { 1.0 };
        let colour = Self([channel(0), channel(1), channel(2)]);
        Some(colour.mix(under, 1.0 - alpha))
    }

    /// `self` moved `t` (0 to 1) of the way to `other`.
    fn mix(self, other: Self, t: f64) -> Self {
        let [a, b, c] = self.0;
        let [x, y, z] = other.0;
        Self([a + (x - a) * t, b + (y - b) * t, c + (z - c) * t])
    }

    /// WCAG 2 relative luminance.
    fn luminance(self) -> f64 {
        let linear = |c: f64| if c <= 0.039_28 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) };
        let [r, g, b] = self.0;
        0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    }

    /// WCAG 2 contrast ratio (1 to 21).
    fn contrast(self, other: Self) -> f64 {
        let (a, b) = (self.luminance(), other.luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    fn hex(self) -> String {
        let [r, g, b] = self.0.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
        format!("#{r:02x}{g:02x}{b:02x}")
    }
}

/// The default tokens of one scheme, as `docs.css` has them, and its
/// default highlight colours (`p s n b k f c v`).
struct Defaults {
    primary: &'static str,
    background: &'static str,
    foreground: &'static str,
    muted: &'static str,
    card: &'static str,
    highlight: [&'static str; 8],
}

const LIGHT: Defaults = Defaults {
    primary: "#4f46e5",
    background: "#ffffff",
    foreground: "#111827",
    muted: "#6b7280",
    card: "#f9fafb",
    highlight: ["#0550ae", "#0a3069", "#953800", "#8250df", "#cf222e", "#6639ba", "#57606a", "#953800"],
};

const DARK: Defaults = Defaults {
    primary: "#818cf8",
    background: "#0b0f19",
    foreground: "#e5e7eb",
    muted: "#9ca3af",
    card: "#111827",
    highlight: ["#79c0ff", "#a5d6ff", "#ffa657", "#d2a8ff", "#ff7b72", "#d2a8ff", "#8b949e", "#ffa657"],
};

/// WCAG AA for normal text, with a margin for rounding to 8 bits.
const MIN_CONTRAST: f64 = 4.6;

/// The highlight colours (`--hl-*`) of a palette that sets any colour
/// token: keywords take the primary colour, property names the primary
/// moved a third towards the text colour, functions the primary mixed with
/// the default function colour, comments the muted colour; strings,
/// numbers, literals and variables keep their default hues. Each is then
/// moved towards the text colour (or black or white) until it reaches AA
/// contrast on both code backgrounds (`card` in the prose, `background` in
/// the sample pane). `None` when the palette sets no colour.
fn highlight_declarations(palette: &Palette, defaults: &Defaults) -> Option<String> {
    let set = [&palette.primary, &palette.background, &palette.foreground, &palette.muted, &palette.card]
        .into_iter()
        .any(|token| token.as_deref().is_some_and(is_colour));
    if !set {
        return None;
    }
    let white = Rgb([1.0; 3]);
    let base_bg = Rgb::parse(defaults.background, white)?;
    let token = |value: &Option<String>, default: &str, under: Rgb| {
        value.as_deref().and_then(|v| Rgb::parse(v, under)).or_else(|| Rgb::parse(default, under))
    };
    let background = token(&palette.background, defaults.background, base_bg)?;
    let card = token(&palette.card, defaults.card, background)?;
    let foreground = token(&palette.foreground, defaults.foreground, background)?;
    let primary = token(&palette.primary, defaults.primary, background)?;
    let muted = token(&palette.muted, defaults.muted, background)?;
    let default = |i: usize| defaults.highlight.get(i).and_then(|v| Rgb::parse(v, background));
    let colours = [
        ("p", primary.mix(foreground, 1.0 / 3.0)),
        ("s", default(1)?),
        ("n", default(2)?),
        ("b", default(3)?),
        ("k", primary),
        ("f", primary.mix(default(5)?, 0.5)),
        ("c", muted),
        ("v", default(7)?),
    ];
    let worst = |c: Rgb| c.contrast(background).min(c.contrast(card));
    // What to move towards: the text colour when it is readable itself,
    // else black or white, whichever stands out more.
    let black = Rgb([0.0; 3]);
    let target = if worst(foreground) >= MIN_CONTRAST {
        foreground
    } else if worst(black) >= worst(white) {
        black
    } else {
        white
    };
    let mut out = String::new();
    for (class, colour) in colours {
        let readable = (0..=20)
            .map(|step| colour.mix(target, f64::from(step) / 20.0))
            .find(|c| worst(*c) >= MIN_CONTRAST)
            .unwrap_or(target);
        out.push_str(&format!("--hl-{class}:{};", readable.hex()));
    }
    Some(out)
}

/// The `<style>` content for `theme` (empty when it sets nothing).
#[must_use]
pub fn css(theme: &Theme) -> String {
    let mut out = String::new();
    let mut light = declarations(&theme.light);
    let mut dark = declarations(&theme.dark);
    light.push_str(&highlight_declarations(&theme.light, &LIGHT).unwrap_or_default());
    dark.push_str(&highlight_declarations(&theme.dark, &DARK).unwrap_or_default());
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
        assert!(css.contains("[data-theme=dark]{--primary:#0f0;--hl-"), "{css}");
        assert!(!css.contains("script") && !css.contains("red"), "{css}");
        assert!(is_colour("#abcd") && !is_colour("#abcde") && !is_colour("blue"));
    }

    fn variable<'a>(css: &'a str, name: &str) -> Option<&'a str> {
        let start = css.find(&format!("--{name}:"))? + name.len() + 3;
        css.get(start..)?.split(';').next()
    }

    #[test]
    fn highlight_colours_follow_the_tokens_and_stay_readable() {
        // No colour token: the stylesheet's defaults stay.
        assert!(!css(&Theme { radius: Some(4), ..Theme::default() }).contains("--hl-"));
        // A readable primary becomes the keyword colour as it is.
        let theme =
            Theme { light: Palette { primary: Some("#b4005a".into()), ..Palette::default() }, ..Theme::default() };
        let out = css(&theme);
        assert_eq!(variable(&out, "hl-k"), Some("#b4005a"), "{out}");
        assert!(!out.contains("data-theme=dark"), "the dark scheme keeps its defaults: {out}");
        // A pale primary on a custom background is darkened until it reads.
        let theme = Theme {
            light: Palette {
                primary: Some("#ffd84d".into()),
                background: Some("#fffdf5".into()),
                card: Some("#f5f0e0".into()),
                ..Palette::default()
            },
            dark: Palette { primary: Some("#1e3a8a".into()), ..Palette::default() },
            ..Theme::default()
        };
        let out = css(&theme);
        let white = Rgb([1.0; 3]);
        let light_bgs = [Rgb::parse("#fffdf5", white).unwrap(), Rgb::parse("#f5f0e0", white).unwrap()];
        let dark_bgs = [Rgb::parse(DARK.background, white).unwrap(), Rgb::parse(DARK.card, white).unwrap()];
        let (light, dark) = out.split_once("@media").unwrap();
        for class in ["p", "s", "n", "b", "k", "f", "c", "v"] {
            for (block, backgrounds) in [(light, light_bgs), (dark, dark_bgs)] {
                let value = variable(block, &format!("hl-{class}")).unwrap_or_else(|| panic!("{class}: {block}"));
                let colour = Rgb::parse(value, white).unwrap();
                for bg in backgrounds {
                    assert!(colour.contrast(bg) >= 4.5, "{class} {value} on {bg:?}: {}", colour.contrast(bg));
                }
            }
        }
        assert_ne!(variable(light, "hl-k"), Some("#ffd84d"), "{out}");
        // Defaults are the stylesheet's, and AA on their own backgrounds.
        for defaults in [&LIGHT, &DARK] {
            for (class, value) in ["p", "s", "n", "b", "k", "f", "c", "v"].into_iter().zip(defaults.highlight) {
                assert!(crate::assets::CSS.contains(&format!("--hl-{class}:{value}")), "{class} {value}");
                let colour = Rgb::parse(value, white).unwrap();
                for bg in [defaults.background, defaults.card] {
                    assert!(colour.contrast(Rgb::parse(bg, white).unwrap()) >= 4.5, "{value} on {bg}");
                }
                for token in [defaults.background, defaults.card, defaults.foreground, defaults.muted, defaults.primary]
                {
                    assert!(crate::assets::CSS.contains(token), "{token}");
                }
            }
        }
    }
}
