//! SCORM import: reads a package (zip, up to 100 MB, entries stored or
//! deflated) in memory without extracting it to disk. Entry names are
//! checked (no absolute paths, no `..`, no backslashes, no drive letters:
//! zip-slip), the entry count, the declared total size and each entry's
//! expansion ratio are capped, and every read is bounded by the declared
//! size, so a header that lies about its size cannot expand further (zip
//! bombs). `imsmanifest.xml` must sit at the root and name a SCORM 1.2 or
//! 2004 schema version. Packages exported by this service carry
//! `course.json` and come back as an editable draft course.
//!
//! Any other conformant package (one made by another authoring tool) becomes
//! a course that plays its original SCOs: the manifest is read by
//! [`crate::scorm_manifest`], every file of the package is stored as a
//! content-addressed blob, and each launchable item of the default
//! organization becomes a screen with one `scorm` block naming the package
//! and the path it launches. The learner player serves those files from an
//! opaque-origin sandbox and gives them the SCORM runtime API.

use std::collections::HashSet;
use std::io::{Cursor, Read as _};

use bytes::Bytes;
use serde_json::{Map, Value, json};
use zip::ZipArchive;

use crate::error::{CoursesError, CoursesResult};
use crate::issues::{Issues, code};
use crate::model::{Access, Course, CourseStatus};
use crate::plans::Feature;
use crate::scorm_manifest::{self, Manifest};
use crate::store::{ScormFile, ScormPackage};
use crate::{Courses, content};

/// The seed's 100 MB, in decimal megabytes as the seed means them.
pub const MAX_PACKAGE_BYTES: usize = 100_000_000;
pub const MAX_ENTRIES: usize = 10_000;
pub const MAX_TOTAL_UNCOMPRESSED: u64 = 500_000_000;
/// The largest expansion of one entry (uncompressed / compressed).
pub const MAX_RATIO: u64 = 1_000;
/// The largest single entry read (a manifest, `course.json`, or one file of
/// a package stored for playing).
pub const MAX_ENTRY_READ: u64 = 50_000_000;

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

type Archive<'a> = ZipArchive<Cursor<&'a [u8]>>;

/// The entry count the end-of-central-directory record declares (ZIP64's
/// when the classic field is saturated), read before the directory itself is
/// parsed, so a package declaring millions of entries is refused without
/// allocating for them.
fn declared_entries(zip: &[u8]) -> Option<u64> {
    let from = zip.len().saturating_sub(22 + 65_535);
    let eocd = (from..zip.len().saturating_sub(21)).rev().find(|&at| zip.get(at..at + 4) == Some(b"PK\x05\x06"))?;
    let count = u16::from_le_bytes(zip.get(eocd + 10..eocd + 12)?.try_into().ok()?);
    if count != u16::MAX {
        return Some(u64::from(count));
    }
    // The ZIP64 locator sits just before the classic record.
    let locator = eocd.checked_sub(20)?;
    if zip.get(locator..locator + 4) != Some(b"PK\x06\x07") {
        return Some(u64::from(count));
    }
    let record = usize::try_from(u64::from_le_bytes(zip.get(locator + 8..locator + 16)?.try_into().ok()?)).ok()?;
    if zip.get(record..record.checked_add(4)?) != Some(b"PK\x06\x06") {
        return None;
    }
    Some(u64::from_le_bytes(zip.get(record.checked_add(32)?..record.checked_add(40)?)?.try_into().ok()?))
}

/// Opens the zip and checks every entry of its central directory.
fn open(zip: &[u8]) -> CoursesResult<Archive<'_>> {
    if declared_entries(zip).is_some_and(|n| n > MAX_ENTRIES as u64) {
        return Err(bad(format!("the package has more than {MAX_ENTRIES} entries")));
    }
    let mut archive =
        ZipArchive::new(Cursor::new(zip)).map_err(|e| bad(format!("the package is not a readable zip file ({e})")))?;
    if archive.len() > MAX_ENTRIES {
        return Err(bad(format!("the package has more than {MAX_ENTRIES} entries")));
    }
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let entry =
            archive.by_index_raw(index).map_err(|e| bad(format!("the zip's central directory is damaged ({e})")))?;
        let name = entry.name().map_err(|_| bad("an entry name is not valid text"))?.into_owned();
        if !safe_name(&name) {
            return Err(CoursesError::field(
                &["package", &name],
                code::INVALID_VALUE,
                "entry names must be relative paths inside the package",
            ));
        }
        if !matches!(entry.compression(), zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated) {
            return Err(CoursesError::field(
                &["package", &name],
                code::INVALID_VALUE,
                "entries must be stored or deflated (the methods every LMS reads)",
            ));
        }
        let (size, compressed) = (entry.size(), entry.compressed_size());
        total = total.saturating_add(size);
        if total > MAX_TOTAL_UNCOMPRESSED || size > compressed.max(1).saturating_mul(MAX_RATIO) {
            return Err(bad("the package expands beyond the allowed size (possible zip bomb)"));
        }
    }
    Ok(archive)
}

/// One entry's bytes, reading at most its declared size (plus one byte to
/// notice a lie) and at most [`MAX_ENTRY_READ`].
fn read_entry(archive: &mut Archive<'_>, name: &str) -> CoursesResult<Vec<u8>> {
    let entry = archive.by_name(name).map_err(|e| {
        CoursesError::field(&["package", name], code::INVALID_VALUE, format!("the entry cannot be read ({e})"))
    })?;
    let declared = entry.size();
    if declared > MAX_ENTRY_READ {
        return Err(CoursesError::field(
            &["package", name],
            code::TOO_BIG,
            format!("the entry is larger than {MAX_ENTRY_READ} bytes"),
        ));
    }
    let mut out = Vec::with_capacity(usize::try_from(declared).unwrap_or(0));
    entry.take(declared.saturating_add(1)).read_to_end(&mut out).map_err(|e| {
        CoursesError::field(&["package", name], code::INVALID_VALUE, format!("the entry is damaged ({e})"))
    })?;
    if u64::try_from(out.len()).unwrap_or(u64::MAX) != declared {
        return Err(bad("an entry expands beyond its declared size (possible zip bomb)"));
    }
    Ok(out)
}

/// What a package is.
#[derive(Debug)]
pub enum Package {
    /// Exported by this service: the course document, editable again.
    Ours(Map<String, Value>),
    /// Made by another tool: its manifest; the course plays its SCOs.
    Foreign(Manifest),
}

/// Reads a package's manifest (and `course.json` when it is one of ours).
pub fn inspect(zip: &[u8]) -> CoursesResult<Package> {
    let mut archive = open(zip)?;
    if archive.index_for_name("imsmanifest.xml").is_none() {
        return Err(CoursesError::field(
            &["imsmanifest.xml"],
            code::REQUIRED,
            "imsmanifest.xml must be at the root of the package",
        ));
    }
    let manifest_entry = archive.by_name("imsmanifest.xml").map(|e| e.size()).unwrap_or(0);
    if manifest_entry > scorm_manifest::MAX_MANIFEST_BYTES as u64 {
        return Err(CoursesError::field(
            &["imsmanifest.xml"],
            code::TOO_BIG,
            format!("the manifest is larger than {} bytes", scorm_manifest::MAX_MANIFEST_BYTES),
        ));
    }
    let manifest = String::from_utf8_lossy(&read_entry(&mut archive, "imsmanifest.xml")?).into_owned();
    if archive.index_for_name("course.json").is_some() {
        return ours(&mut archive, &manifest).map(Package::Ours);
    }
    let parsed = scorm_manifest::parse(&manifest)
        .map_err(|e| CoursesError::field(&["imsmanifest.xml", &e.at], code::INVALID_VALUE, e.message))?;
    let names: HashSet<String> =
        archive.file_names().filter_map(Result::ok).map(std::borrow::Cow::into_owned).collect();
    let mut issues = Issues::default();
    for item in &parsed.items {
        if !names.contains(&item.file) {
            issues.push(
                code::UNKNOWN_REFERENCE,
                &["imsmanifest.xml".to_owned()],
                Some(&item.identifier),
                format!("the item launches {:?}, which is not in the package", item.file),
            );
        }
    }
    issues.finish(Package::Foreign(parsed))
}

/// The draft course body a package exported by this service carries.
fn ours(archive: &mut Archive<'_>, manifest: &str) -> CoursesResult<Map<String, Value>> {
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
    match serde_json::from_slice::<Value>(&read_entry(archive, "course.json")?) {
        Ok(Value::Object(mut map)) => {
            map.remove("sourceKind");
            map.remove("exportedFrom");
            Ok(map)
        }
        _ => Err(CoursesError::field(&["course.json"], code::INVALID_VALUE, "course.json is not a course object")),
    }
}

/// The draft course body a package exported by this service describes
/// (refused for packages of other tools, which have no course document).
pub fn course_from_package(zip: &[u8]) -> CoursesResult<Map<String, Value>> {
    match inspect(zip)? {
        Package::Ours(body) => Ok(body),
        Package::Foreign(_) => Err(CoursesError::field(
            &["course.json"],
            code::REQUIRED,
            "the package was made by another tool: it imports as a course that plays its SCOs",
        )),
    }
}

/// The course a foreign package becomes: one screen per launchable item,
/// each with one `scorm` block. The passing score is the highest mastery
/// score the manifest gives (rounded up), so the course passes only when
/// every scored SCO could have passed on its own terms.
pub fn foreign_course_body(manifest: &Manifest, package_id: &str) -> Map<String, Value> {
    let screens: Vec<Value> = manifest
        .items
        .iter()
        .map(|item| {
            json!({
                "title": item.title,
                "blocks": [{
                    "type": "scorm",
                    "title": item.title,
                    "packageId": package_id,
                    "launch": item.launch,
                    "scormVersion": manifest.version.as_str(),
                    "scormType": item.scorm_type.as_str(),
                    "scormItem": item.identifier,
                    "masteryScore": item.mastery_score,
                    "launchData": item.launch_data,
                    "completionThreshold": item.completion_threshold,
                }],
            })
        })
        .collect();
    let passing = manifest
        .items
        .iter()
        .filter_map(|i| i.mastery_score)
        .fold(None, |best: Option<f64>, m| Some(best.map_or(m, |b| b.max(m))))
        .map(|m| m.ceil().clamp(0.0, 100.0));
    let mut body = Map::new();
    body.insert("title".to_owned(), Value::String(manifest.title.clone()));
    body.insert("passingScore".to_owned(), passing.map_or(Value::Null, |p| json!(p as i64)));
    body.insert("screens".to_owned(), Value::Array(screens));
    body
}

impl Courses {
    /// Imports a SCORM package as a draft course (Scale and up over the API):
    /// our own export becomes editable screens again; any other package
    /// becomes a course that plays its SCOs.
    pub async fn import_scorm(&self, access: &Access, zip: &[u8]) -> CoursesResult<Course> {
        self.require(access, Feature::ScormApi)?;
        if zip.len() > MAX_PACKAGE_BYTES {
            return Err(CoursesError::TooLarge { what: "the SCORM package", limit: MAX_PACKAGE_BYTES as u64 });
        }
        match inspect(zip)? {
            Package::Ours(body) => self.create_course_from(access, &body, "scorm").await,
            Package::Foreign(manifest) => self.import_foreign(access, zip, &manifest).await,
        }
    }

    /// Stores every file of a foreign package as a blob, one entry at a time
    /// (each read bounded as on inspection), then the course and the
    /// package's file table in one transaction. Blobs of a failed import
    /// stay unreferenced; content addressing makes a retry reuse them.
    async fn import_foreign(&self, access: &Access, zip: &[u8], manifest: &Manifest) -> CoursesResult<Course> {
        let package_id = content::new_id("pkg");
        let course = self.new_course(access, &foreign_course_body(manifest, &package_id), "scorm_package").await?;
        let mut archive = open(zip)?;
        let names: Vec<String> = archive
            .file_names()
            .filter_map(Result::ok)
            .map(std::borrow::Cow::into_owned)
            .filter(|name| !name.ends_with('/'))
            .collect();
        let mut files = Vec::with_capacity(names.len());
        for name in names {
            let data = read_entry(&mut archive, &name)?;
            let size = i64::try_from(data.len()).unwrap_or(i64::MAX);
            let sha256 = self
                .blobs
                .put(Bytes::from(data))
                .await
                .map_err(|e| CoursesError::Internal(format!("storing a package file failed: {e}")))?;
            files.push(ScormFile { path: name, sha256, size });
        }
        let package = ScormPackage { id: package_id, version: manifest.version.as_str().to_owned() };
        self.store.insert_course_with_package(&course, &package, &files).await?;
        Ok(course)
    }

    /// A file of an imported package, for the learner player: only while
    /// the course it belongs to is published and its workspace in good
    /// standing (anything else answers like a missing file).
    pub async fn scorm_file(&self, package_id: &str, path: &str) -> CoursesResult<Bytes> {
        let missing = || CoursesError::not_found("file");
        let owner = self.store.scorm_file(package_id, path).await?.ok_or_else(missing)?;
        let course = self.store.course(&owner.workspace_id, &owner.course_id).await?.ok_or_else(missing)?;
        if course.status != CourseStatus::Published {
            return Err(missing());
        }
        let workspace = self.workspace(&owner.workspace_id).await?;
        self.check_standing(&workspace, self.clock.now()).await?;
        self.blobs
            .get(&owner.sha256)
            .await
            .map_err(|e| CoursesError::Internal(format!("reading a package file failed: {e}")))?
            .ok_or_else(|| CoursesError::Internal(format!("the blob of {package_id}/{path} is missing")))
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
        assert_eq!(paths, ["imsmanifest.xml.schemaversion"]);
        assert!(course_from_package(b"not a zip").is_err());
    }

    const FOREIGN: &[u8] = br#"<manifest xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"><metadata><schemaversion>1.2</schemaversion></metadata>
      <organizations default="o"><organization identifier="o"><title>Tool course</title>
        <item identifier="one" identifierref="r1"><title>One</title><adlcp:masteryscore>72.5</adlcp:masteryscore></item>
        <item identifier="two" identifierref="r2"><title>Two</title></item>
      </organization></organizations>
      <resources><resource identifier="r1" adlcp:scormtype="sco" href="sco/one.html"/><resource identifier="r2" adlcp:scormtype="sco" href="sco/two.html"/></resources></manifest>"#;

    #[test]
    fn packages_of_other_tools_become_courses_that_play_their_scos() {
        let zip =
            deflated(&[("imsmanifest.xml", FOREIGN), ("sco/one.html", b"<html></html>"), ("sco/two.html", b"<p>")]);
        let Ok(Package::Foreign(manifest)) = inspect(&zip) else { panic!("not read as a foreign package") };
        let body = foreign_course_body(&manifest, "pkg_1");
        assert_eq!((body["title"].as_str(), body["passingScore"].as_i64()), (Some("Tool course"), Some(73)));
        let block = &body["screens"][0]["blocks"][0];
        assert_eq!(
            (
                block["type"].as_str(),
                block["launch"].as_str(),
                block["scormVersion"].as_str(),
                block["packageId"].as_str()
            ),
            (Some("scorm"), Some("sco/one.html"), Some("1.2"), Some("pkg_1"))
        );
        // The body passes the API's own validation.
        let mut issues = Issues::default();
        crate::content::validate_screens(&body["screens"], &["screens".to_owned()], &mut issues);
        assert!(issues.is_empty(), "{:?}", issues.into_vec());
        // A launch file missing from the zip is named.
        let zip = deflated(&[("imsmanifest.xml", FOREIGN), ("sco/one.html", b"<html></html>")]);
        let Err(CoursesError::Invalid { issues, .. }) = inspect(&zip) else { panic!("accepted a missing SCO") };
        assert_eq!(issues[0].path, ["imsmanifest.xml", "two"]);
        // Without course.json the editable import says what the package is.
        let zip = deflated(&[("imsmanifest.xml", FOREIGN), ("sco/one.html", b"x"), ("sco/two.html", b"y")]);
        assert!(course_from_package(&zip).is_err());
    }

    fn deflated(entries: &[(&str, &[u8])]) -> Vec<u8> {
        use std::io::Write as _;
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            writer.start_file(*name, options).unwrap();
            writer.write_all(data).unwrap();
        }
        writer.finish().unwrap().into_inner()
    }

    const MANIFEST: &[u8] = b"<manifest><metadata><schemaversion>2004 4th Edition</schemaversion></metadata><resources><resource href=\"index.html\"/></resources></manifest>";

    #[test]
    fn deflated_packages_are_read() {
        let course = serde_json::json!({ "title": "Deflated", "screens": [{ "title": "One", "blocks": [{ "type": "text", "text": "x".repeat(5000) }] }], "sourceKind": "scorm", "exportedFrom": "crs_1" });
        let zip = deflated(&[("imsmanifest.xml", MANIFEST), ("course.json", course.to_string().as_bytes())]);
        assert!(zip.len() < 2000, "the text compressed ({} bytes)", zip.len());
        let body = course_from_package(&zip).unwrap();
        assert_eq!(body["title"], "Deflated");
        assert_eq!(body["screens"][0]["blocks"][0]["text"].as_str().unwrap().len(), 5000);
        assert!(!body.contains_key("sourceKind") && !body.contains_key("exportedFrom"));
    }

    /// The package with course.json's declared (uncompressed) size patched.
    fn with_declared_size(zip: &[u8], size: u32) -> Vec<u8> {
        let mut out = zip.to_vec();
        let central = out.windows(4).rposition(|w| w == b"PK\x01\x02").unwrap();
        assert_eq!(&out[central + 46..central + 57], b"course.json", "course.json is the last central entry");
        out[central + 24..central + 28].copy_from_slice(&size.to_le_bytes());
        out
    }

    #[test]
    fn zip_bombs_are_refused() {
        let honest = deflated(&[("imsmanifest.xml", MANIFEST), ("course.json", b"{\"title\":\"T\",\"screens\":[]}")]);
        assert!(course_from_package(&honest).is_ok());
        // An entry that claims to expand 400 MB from a few bytes.
        let Err(CoursesError::Invalid { message, .. }) = course_from_package(&with_declared_size(&honest, 400_000_000))
        else {
            panic!("accepted a bomb")
        };
        assert!(message.contains("zip bomb"), "{message}");
        // An entry that understates its size: the read stops just past the
        // declared size and the lie is refused.
        let err = course_from_package(&with_declared_size(&honest, 5)).unwrap_err();
        assert!(matches!(err, CoursesError::Invalid { .. }), "{err}");
        // Too many entries.
        let names: Vec<String> = (0..=MAX_ENTRIES).map(|i| format!("f{i}")).collect();
        let many: Vec<(&str, Vec<u8>)> = names.iter().map(|n| (n.as_str(), Vec::new())).collect();
        let many = zip_stored(&many);
        assert_eq!(declared_entries(&many), Some(10_001));
        let Err(CoursesError::Invalid { message, .. }) = course_from_package(&many) else { panic!() };
        assert!(message.contains("more than 10000 entries"), "{message}");
        // A directory that claims 60,000 entries is refused before it is read.
        let mut claims = honest.clone();
        let eocd = claims.len() - 22;
        claims[eocd + 8..eocd + 12].copy_from_slice(&[0x60, 0xea, 0x60, 0xea]);
        let Err(CoursesError::Invalid { message, .. }) = course_from_package(&claims) else { panic!() };
        assert!(message.contains("more than 10000 entries"), "{message}");
    }
}
