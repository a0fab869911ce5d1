//! Certificates rendered as a one-page PDF (landscape A4) with the standard
//! Helvetica fonts, written by hand: the format needs a few objects and a
//! cross-reference table, not a layout engine. Text outside Latin-1 is
//! replaced by `?` because the standard fonts use WinAnsi encoding.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::model::IssuedCertificate;

const WIDTH: f64 = 842.0;
const HEIGHT: f64 = 595.0;

/// Bytes of a PDF string literal: Latin-1, with `\`, `(` and `)` escaped.
fn pdf_text(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 2);
    out.push(b'(');
    for ch in text.chars().filter(|c| !c.is_control()) {
        let byte = u8::try_from(u32::from(ch)).unwrap_or(b'?');
        if matches!(byte, b'\\' | b'(' | b')') {
            out.push(b'\\');
        }
        out.push(byte);
    }
    out.push(b')');
    out
}

/// Advance widths (thousandths of the font size) of Helvetica's printable
/// ASCII characters, space to `~`, from the font's Adobe metrics.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, // 0 to ?
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, // @ to O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, // P to _
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, // ` to o
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, // p to ~
];
/// The same for Helvetica-Bold.
const HELVETICA_BOLD: [u16; 95] = [
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // space to /
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // 0 to ?
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // @ to O
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // P to _
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // ` to o
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, // p to ~
];
/// Width used for Latin-1 letters beyond ASCII (most accented letters are
/// their base letter's width; this is the common one).
const OTHER_WIDTH: u16 = 556;

/// The fonts of the page: `F1` Helvetica, `F2` Helvetica-Bold.
#[derive(Clone, Copy)]
enum Font {
    Regular,
    Bold,
}

impl Font {
    const fn name(self) -> &'static str {
        match self {
            Self::Regular => "F1",
            Self::Bold => "F2",
        }
    }

    const fn widths(self) -> &'static [u16; 95] {
        match self {
            Self::Regular => &HELVETICA,
            Self::Bold => &HELVETICA_BOLD,
        }
    }
}

/// The printed width of `text` at `size` points: the sum of the font's
/// advance widths of the characters `pdf_text` writes.
fn text_width(text: &str, font: Font, size: f64) -> f64 {
    let widths = font.widths();
    let units: u64 = text
        .chars()
        .filter(|c| !c.is_control())
        .map(|c| {
            let code = u32::from(c);
            let index = usize::try_from(code.wrapping_sub(32)).unwrap_or(usize::MAX);
            match widths.get(index) {
                Some(w) => u64::from(*w),
                // Latin-1 beyond ASCII keeps its letter; anything else is `?`.
                None if code <= 0xFF => u64::from(OTHER_WIDTH),
                // `?` (code 63) is at index 31.
                None => u64::from(widths.get(31).copied().unwrap_or(OTHER_WIDTH)),
            }
        })
        .sum();
    #[expect(clippy::cast_precision_loss, reason = "a line's units are far below 2^52")]
    let units = units as f64;
    units * size / 1000.0
}

/// Left and right margin inside the page's frame.
const MARGIN: f64 = 60.0;

/// Where a line starts and at what size it prints: centred on the page,
/// its size reduced (down to 40 % of `size`) so a long name or title fits
/// between the margins.
fn placement(text: &str, font: Font, size: f64) -> (f64, f64) {
    let room = WIDTH - 2.0 * MARGIN;
    let natural = text_width(text, font, size);
    let size = if natural > room { (size * room / natural).max(size * 0.4) } else { size };
    let x = ((WIDTH - text_width(text, font, size)) / 2.0).max(MARGIN / 2.0);
    (x, size)
}

fn centred(content: &mut Vec<u8>, font: Font, size: f64, y: f64, text: &str) {
    let (x, size) = placement(text, font, size);
    let mut line = format!("BT /{} {size:.2} Tf {x:.2} {y:.1} Td ", font.name()).into_bytes();
    line.extend(pdf_text(text));
    line.extend(b" Tj ET\n");
    content.extend(line);
}

/// Replaces `{{learner}}`, `{{course}}`, `{{score}}` and `{{date}}`.
fn fill(template: &str, cert: &IssuedCertificate, score: &str, date: &str) -> String {
    template
        .replace("{{learner}}", &cert.learner_name)
        .replace("{{course}}", &cert.course_title)
        .replace("{{score}}", score)
        .replace("{{date}}", date)
}

pub fn render_certificate(cert: &IssuedCertificate, template: Option<&Map<String, Value>>) -> Vec<u8> {
    let field = |name: &str| template.and_then(|t| t.get(name)).and_then(Value::as_str);
    let date = cert.issued_at.to_rfc3339().chars().take(10).collect::<String>();
    let score = cert.score.map_or_else(|| "not scored".to_owned(), |s| format!("{s}%"));
    let title = fill(field("title").unwrap_or("Certificate of Completion"), cert, &score, &date);
    let body = fill(field("body").unwrap_or("has successfully completed"), cert, &score, &date);

    let mut content = Vec::new();
    content.extend(format!("0.2 0.3 0.5 RG 4 w 24 24 {:.0} {:.0} re S\n", WIDTH - 48.0, HEIGHT - 48.0).into_bytes());
    content.extend(b"0 g\n");
    centred(&mut content, Font::Bold, 34.0, 440.0, &title);
    centred(&mut content, Font::Regular, 16.0, 380.0, "This certifies that");
    centred(&mut content, Font::Bold, 28.0, 330.0, &cert.learner_name);
    centred(&mut content, Font::Regular, 16.0, 280.0, &body);
    centred(&mut content, Font::Bold, 22.0, 235.0, &cert.course_title);
    let mut footer = format!("Issued {date}");
    if cert.score.is_some() {
        let _ = write!(footer, "  -  Score {score}");
    }
    centred(&mut content, Font::Regular, 12.0, 150.0, &footer);
    centred(&mut content, Font::Regular, 9.0, 60.0, &format!("Certificate {}", cert.id));

    let objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {WIDTH:.0} {HEIGHT:.0}] /Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>"
        )
        .into_bytes(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_vec(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>".to_vec(),
        {
            let mut stream = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
            stream.extend(&content);
            stream.extend(b"\nendstream");
            stream
        },
    ];
    let mut pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, object) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n", i + 1).into_bytes());
        pdf.extend(object);
        pdf.extend(b"\nendobj\n");
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).into_bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").into_bytes());
    }
    pdf.extend(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).into_bytes(),
    );
    pdf
}

#[cfg(test)]
mod tests {
    use kernel::Timestamp;

    use super::*;

    fn cert() -> IssuedCertificate {
        IssuedCertificate {
            id: "cert_1".into(),
            workspace_id: "ws".into(),
            course_id: "crs".into(),
            identity_id: "idn".into(),
            completion_id: "cmp".into(),
            template_id: None,
            learner_name: "Ada (Lovelace)".into(),
            course_title: "Safety 101".into(),
            score: Some(87.5),
            issued_at: Timestamp::from_millis(1_795_305_600_000),
        }
    }

    #[test]
    fn renders_a_pdf_with_escaped_text_and_a_valid_xref() {
        let pdf = render_certificate(&cert(), None);
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.starts_with("%PDF-1.4"));
        assert!(text.contains("(Ada \\(Lovelace\\))"));
        assert!(text.contains("Score 87.5%"));
        let startxref: usize = text.rsplit("startxref\n").next().unwrap().lines().next().unwrap().parse().unwrap();
        assert!(pdf[startxref..].starts_with(b"xref"), "startxref points at the table");
    }

    #[test]
    fn lines_are_centred_by_the_fonts_own_widths() {
        // "Ada" in Helvetica-Bold: 722 + 611 + 556 thousandths of the size.
        let width = text_width("Ada", Font::Bold, 28.0);
        assert!((width - 1889.0 * 28.0 / 1000.0).abs() < 1e-9);
        let (x, size) = placement("Ada", Font::Bold, 28.0);
        assert!((size - 28.0).abs() < f64::EPSILON);
        assert!((x + width / 2.0 - WIDTH / 2.0).abs() < 1e-9, "the line's middle is the page's");
        // Narrow and wide letters of the same count centre differently.
        let (narrow, _) = placement("iiii", Font::Regular, 16.0);
        let (wide, _) = placement("WWWW", Font::Regular, 16.0);
        assert!(narrow > wide + 20.0, "half the 46-point difference in width");
        // A name too long for the page prints smaller, still centred and
        // inside the margins.
        let long = "Maximiliana Wolfeschlegelsteinhausenbergerdorff of Lower Saxony";
        let (x, size) = placement(long, Font::Bold, 28.0);
        assert!(size < 28.0 && x >= MARGIN - 1e-6);
        let right = x + text_width(long, Font::Bold, size);
        assert!((x - (WIDTH - right)).abs() < 1e-6, "equal room on both sides");
    }

    #[test]
    fn the_learners_name_is_written_centred() {
        let pdf = render_certificate(&cert(), None);
        let text = String::from_utf8_lossy(&pdf);
        let (x, size) = placement("Ada (Lovelace)", Font::Bold, 28.0);
        assert!(text.contains(&format!("BT /F2 {size:.2} Tf {x:.2} 330.0 Td (Ada \\(Lovelace\\)) Tj ET")), "{text}");
    }

    #[test]
    fn templates_fill_placeholders() {
        let template = serde_json::json!({ "title": "Award for {{course}}", "body": "scored {{score}}" });
        let pdf = render_certificate(&cert(), template.as_object());
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("(Award for Safety 101)") && text.contains("(scored 87.5%)"));
    }
}
