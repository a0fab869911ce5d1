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

/// Approximate width of Helvetica text, to centre lines.
fn approx_width(text: &str, size: f64) -> f64 {
    #[expect(clippy::cast_precision_loss, reason = "line lengths are small")]
    let chars = text.chars().count() as f64;
    chars * size * 0.52
}

fn centred(content: &mut Vec<u8>, font: &str, size: f64, y: f64, text: &str) {
    let x = ((WIDTH - approx_width(text, size)) / 2.0).max(36.0);
    let mut line = format!("BT /{font} {size} Tf {x:.1} {y:.1} Td ").into_bytes();
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
    centred(&mut content, "F2", 34.0, 440.0, &title);
    centred(&mut content, "F1", 16.0, 380.0, "This certifies that");
    centred(&mut content, "F2", 28.0, 330.0, &cert.learner_name);
    centred(&mut content, "F1", 16.0, 280.0, &body);
    centred(&mut content, "F2", 22.0, 235.0, &cert.course_title);
    let mut footer = format!("Issued {date}");
    if cert.score.is_some() {
        let _ = write!(footer, "  -  Score {score}");
    }
    centred(&mut content, "F1", 12.0, 150.0, &footer);
    centred(&mut content, "F1", 9.0, 60.0, &format!("Certificate {}", cert.id));

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
    fn templates_fill_placeholders() {
        let template = serde_json::json!({ "title": "Award for {{course}}", "body": "scored {{score}}" });
        let pdf = render_certificate(&cert(), template.as_object());
        let text = String::from_utf8_lossy(&pdf);
        assert!(text.contains("(Award for Safety 101)") && text.contains("(scored 87.5%)"));
    }
}
