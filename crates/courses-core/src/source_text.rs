//! The source text an author gives the course generator as a file: a PDF
//! (its text extracted) or a Markdown or plain text file (UTF-8). The text
//! is what the built-in writer segments, summarises and asks questions
//! from (`offline_writer`), or what a model is told to teach.

use crate::error::{CoursesError, CoursesResult};
use crate::issues::code;
use crate::offline_writer::MAX_SOURCE_CHARS;

/// The largest source file read: a PDF of a few hundred pages.
pub const MAX_SOURCE_FILE_BYTES: usize = 25_000_000;

/// The text of a source file, and whether it was cut to the generator's
/// [`MAX_SOURCE_CHARS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    pub text: String,
    pub truncated: bool,
}

fn refused(message: &str) -> CoursesError {
    CoursesError::field(&["file"], code::INVALID_VALUE, message)
}

/// Whitespace tidied the way the writer reads paragraphs: lines trimmed,
/// runs of blank lines kept as one, at most [`MAX_SOURCE_CHARS`].
fn tidy(text: &str) -> SourceText {
    let mut out = String::new();
    let mut blank = false;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            blank = !out.is_empty();
            continue;
        }
        if blank {
            out.push_str("\n\n");
            blank = false;
        } else if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line.trim_start_matches('\u{feff}'));
    }
    let truncated = out.chars().count() > MAX_SOURCE_CHARS;
    if truncated {
        out = out.chars().take(MAX_SOURCE_CHARS).collect();
    }
    SourceText { text: out, truncated }
}

/// The text of a PDF (`%PDF-`) or of a UTF-8 text file. Blocking (a PDF is
/// parsed in memory): call it off the async threads. A PDF the parser
/// cannot read, one without text (scanned pages), and a file that is
/// neither are refused with a sentence for the author.
///
/// # Errors
/// `invalid_request` at `file`.
pub fn read(bytes: &[u8]) -> CoursesResult<SourceText> {
    if bytes.len() > MAX_SOURCE_FILE_BYTES {
        return Err(CoursesError::TooLarge { what: "a source file", limit: MAX_SOURCE_FILE_BYTES as u64 });
    }
    let text = if bytes.starts_with(b"%PDF-") {
        // The parser is not ours: a malformed file must not take the
        // request's thread down with it.
        let owned = bytes.to_vec();
        let extracted = std::panic::catch_unwind(move || pdf_extract::extract_text_from_mem(&owned))
            .map_err(|_| refused("this PDF could not be read"))?
            .map_err(|_| refused("this PDF could not be read"))?;
        if extracted.trim().is_empty() {
            return Err(refused(
                "this PDF has no text to read (scanned pages are images); give a PDF with text, or Markdown",
            ));
        }
        extracted
    } else {
        let text =
            std::str::from_utf8(bytes).map_err(|_| refused("give a PDF, or a Markdown or plain text file in UTF-8"))?;
        if text.contains('\0') {
            return Err(refused("give a PDF, or a Markdown or plain text file in UTF-8"));
        }
        text.to_owned()
    };
    let tidied = tidy(&text);
    if tidied.text.is_empty() {
        return Err(refused("the file has no text"));
    }
    Ok(tidied)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_read_as_it_is_with_blank_lines_tidied() {
        let read = read("\u{feff}# Brakes\r\n\r\n\r\nCheck them   \nbefore each shift.\n".as_bytes()).unwrap();
        assert_eq!(
            read,
            SourceText { text: "# Brakes\n\nCheck them\nbefore each shift.".to_owned(), truncated: false }
        );
        let long = "word ".repeat(MAX_SOURCE_CHARS);
        let cut = super::read(long.as_bytes()).unwrap();
        assert!(cut.truncated && cut.text.chars().count() == MAX_SOURCE_CHARS);
    }

    #[test]
    fn a_pdfs_text_is_extracted() {
        // A certificate from this crate's own renderer is a PDF with text.
        let cert = crate::model::IssuedCertificate {
            id: "cert_1".into(),
            workspace_id: "ws".into(),
            course_id: "crs".into(),
            identity_id: "idn".into(),
            completion_id: "cmp".into(),
            template_id: None,
            learner_name: "Grace Hopper".into(),
            course_title: "Forklift safety".into(),
            score: None,
            issued_at: kernel::Timestamp::from_millis(0),
        };
        let pdf = crate::pdf::render_certificate(&cert, None, crate::pdf::Look::default());
        let read = read(&pdf).unwrap();
        assert!(read.text.contains("Grace Hopper") && read.text.contains("Forklift safety"), "{read:?}");
    }

    #[test]
    fn other_files_are_refused_with_a_reason() {
        for (bytes, why) in [
            (&b"\x89PNG\r\n\x1a\n\0\0"[..], "in UTF-8"),
            (b"%PDF-1.4\ngarbage that is not a pdf", "could not be read"),
            (b"  \n\n ", "no text"),
        ] {
            let Err(CoursesError::Invalid { issues, .. }) = read(bytes) else { panic!("{bytes:?} accepted") };
            assert!(issues[0].message.contains(why), "{bytes:?}: {}", issues[0].message);
        }
    }
}
