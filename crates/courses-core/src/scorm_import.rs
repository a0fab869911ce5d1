//! SCORM import: reads a package (zip, up to 100 MB) without extracting it
//! to disk. Entry names are checked (no absolute paths, no `..`, no
//! backslashes: zip-slip), entry count and total declared size are capped
//! (zip bombs), `imsmanifest.xml` must sit at the root and name a SCORM 1.2
//! or 2004 schema version. Packages exported by this service carry
//! `course.json` and come back as an editable draft course; their entries
//! are stored, so no decompression is needed. Compressed third-party
//! packages are refused with an issue naming the entry.

use serde_json::{Map, Value};

use crate::Courses;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, code};
use crate::model::{Access, Course};
use crate::plans::Feature;

pub const MAX_PACKAGE_BYTES: usize = 100 * 1024 * 1024;
pub const MAX_ENTRIES: usize = 10_000;
pub const MAX_TOTAL_UNCOMPRESSED: u64 = 500 * 1024 * 1024;

#[derive(Debug)]
struct Entry {
    name: String,
    method: u16,
    compressed: u64,
    uncompressed: u64,
    local_offset: usize,
}

/// `len` bytes at `at`, or `None` past the end (never panics on overflow).
fn slice(data: &[u8], at: usize, len: usize) -> Option<&[u8]> {
    data.get(at..at.checked_add(len)?)
}

fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    slice(data, at, 2).and_then(|b| b.try_into().ok()).map(u16::from_le_bytes)
}

fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    slice(data, at, 4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
}

fn bad(message: impl Into<String>) -> CoursesError {
    CoursesError::field(&["package"], code::INVALID_VALUE, message)
}

fn safe_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && !name.contains('\\')
        && !name.contains('\0')
        && !name.split('/').any(|part| part == "..")
        && name.get(1..2).is_none_or(|c| c != ":")
}

/// The central directory of a zip, checked.
fn entries(zip: &[u8]) -> CoursesResult<Vec<Entry>> {
    let search_from = zip.len().saturating_sub(22 + 65_535);
    let eocd = (search_from..zip.len().saturating_sub(21))
        .rev()
        .find(|&at| slice(zip, at, 4) == Some(b"PK\x05\x06"))
        .ok_or_else(|| bad("the package is not a zip file"))?;
    let count = usize::from(u16_at(zip, eocd + 10).unwrap_or(0));
    if count > MAX_ENTRIES {
        return Err(bad(format!("the package has more than {MAX_ENTRIES} entries")));
    }
    let mut at = usize::try_from(u32_at(zip, eocd + 16).unwrap_or(0)).unwrap_or(usize::MAX);
    let mut out = Vec::with_capacity(count);
    let mut total: u64 = 0;
    for _ in 0..count {
        if slice(zip, at, 4) != Some(b"PK\x01\x02") {
            return Err(bad("the zip's central directory is damaged"));
        }
        let field =
            |off: usize| u16_at(zip, at.saturating_add(off)).map(usize::from).ok_or_else(|| bad("truncated zip entry"));
        let method = u16_at(zip, at.saturating_add(10)).unwrap_or(0);
        let compressed = u64::from(u32_at(zip, at.saturating_add(20)).unwrap_or(0));
        let uncompressed = u64::from(u32_at(zip, at.saturating_add(24)).unwrap_or(0));
        let (name_len, extra_len, comment_len) = (field(28)?, field(30)?, field(32)?);
        let local_offset = usize::try_from(u32_at(zip, at.saturating_add(42)).unwrap_or(0)).unwrap_or(usize::MAX);
        let name = slice(zip, at.saturating_add(46), name_len)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .ok_or_else(|| bad("truncated zip entry name"))?;
        if !safe_name(&name) {
            return Err(CoursesError::field(
                &["package", &name],
                code::INVALID_VALUE,
                "entry names must be relative paths inside the package",
            ));
        }
        total = total.saturating_add(uncompressed);
        if total > MAX_TOTAL_UNCOMPRESSED || (compressed > 0 && uncompressed / compressed > 1_000) {
            return Err(bad("the package expands beyond the allowed size (possible zip bomb)"));
        }
        out.push(Entry { name, method, compressed, uncompressed, local_offset });
        at = at.saturating_add(46 + name_len + extra_len + comment_len);
    }
    Ok(out)
}

fn read_stored<'a>(zip: &'a [u8], entry: &Entry) -> CoursesResult<&'a [u8]> {
    if entry.method != 0 || entry.compressed != entry.uncompressed {
        return Err(CoursesError::field(
            &["package", &entry.name],
            code::INVALID_VALUE,
            "compressed entries cannot be read yet; re-export the package without compression",
        ));
    }
    let at = entry.local_offset;
    if slice(zip, at, 4) != Some(b"PK\x03\x04") {
        return Err(bad("a zip entry header is damaged"));
    }
    let name_len = usize::from(u16_at(zip, at.saturating_add(26)).unwrap_or(0));
    let extra_len = usize::from(u16_at(zip, at.saturating_add(28)).unwrap_or(0));
    let start = at.saturating_add(30 + name_len + extra_len);
    let len = usize::try_from(entry.uncompressed).unwrap_or(usize::MAX);
    slice(zip, start, len).ok_or_else(|| bad("a zip entry is truncated"))
}

/// The draft course body a package describes.
pub fn course_from_package(zip: &[u8]) -> CoursesResult<Map<String, Value>> {
    let entries = entries(zip)?;
    let manifest = entries.iter().find(|e| e.name == "imsmanifest.xml").ok_or_else(|| {
        CoursesError::field(&["imsmanifest.xml"], code::REQUIRED, "imsmanifest.xml must be at the root of the package")
    })?;
    let manifest = String::from_utf8_lossy(read_stored(zip, manifest)?).into_owned();
    let mut issues = Issues::default();
    let path = ["imsmanifest.xml".to_owned()];
    if !manifest.contains("<manifest") {
        issues.push(code::INVALID_VALUE, &path, Some("manifest"), "the manifest has no <manifest> element");
    }
    let version = manifest
        .split("<schemaversion>")
        .nth(1)
        .and_then(|rest| rest.split("</schemaversion>").next())
        .map(str::trim)
        .unwrap_or_default();
    if !(version == "1.2" || version.starts_with("2004") || version.starts_with("CAM 1.3")) {
        issues.push(code::INVALID_VALUE, &path, Some("schemaversion"), "schemaversion must be 1.2 or 2004");
    }
    if !manifest.contains("<resource") {
        issues.push(code::REQUIRED, &path, Some("resources"), "the manifest lists no resource");
    }
    issues.finish(())?;
    let document = entries.iter().find(|e| e.name == "course.json").ok_or_else(|| {
        CoursesError::field(
            &["course.json"],
            code::REQUIRED,
            "only packages exported by this service (with course.json) can be imported as editable courses",
        )
    })?;
    match serde_json::from_slice::<Value>(read_stored(zip, document)?) {
        Ok(Value::Object(mut map)) => {
            map.remove("sourceKind");
            map.remove("exportedFrom");
            Ok(map)
        }
        _ => Err(CoursesError::field(&["course.json"], code::INVALID_VALUE, "course.json is not a course object")),
    }
}

impl Courses {
    /// Imports a SCORM package as a draft course (Scale and up over the API).
    pub async fn import_scorm(&self, access: &Access, zip: &[u8]) -> CoursesResult<Course> {
        self.require(access, Feature::ScormApi)?;
        if zip.len() > MAX_PACKAGE_BYTES {
            return Err(CoursesError::TooLarge { what: "the SCORM package", limit: MAX_PACKAGE_BYTES as u64 });
        }
        let body = course_from_package(zip)?;
        self.create_course_from(access, &body, "scorm").await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scorm::zip_stored;

    #[test]
    fn zip_slip_names_are_refused() {
        for name in ["../evil.html", "/etc/passwd", "a/../../b", "c:\\x", "dir\\file"] {
            let zip = zip_stored(&[(name, b"x".to_vec())]);
            let Err(CoursesError::Invalid { issues, .. }) = course_from_package(&zip) else { panic!("{name}") };
            assert_eq!(issues[0].path, vec!["package".to_owned(), name.to_owned()], "{name}");
        }
    }

    #[test]
    fn manifests_are_checked() {
        let zip = zip_stored(&[("index.html", b"x".to_vec())]);
        let Err(CoursesError::Invalid { issues, .. }) = course_from_package(&zip) else { panic!() };
        assert_eq!(issues[0].path, vec!["imsmanifest.xml".to_owned()]);
        let zip = zip_stored(&[("imsmanifest.xml", b"<manifest><schemaversion>9</schemaversion></manifest>".to_vec())]);
        let Err(CoursesError::Invalid { issues, .. }) = course_from_package(&zip) else { panic!() };
        let paths: Vec<String> = issues.iter().map(|i| i.path.join(".")).collect();
        assert_eq!(paths, ["imsmanifest.xml.schemaversion", "imsmanifest.xml.resources"]);
        assert!(course_from_package(b"not a zip").is_err());
    }
}
