//! Fuzzing on stable Rust: the parsers of untrusted input never panic and
//! answer within a time bound, whatever the bytes. Each property runs 256
//! cases; `SVC_TEST_LONG=1` runs 20,000.
//!
//! Memory is bounded by construction (the importer refuses entries that
//! expand more than 1,000 times or past their declared size, and reads at
//! most 50 MB per entry); the properties check the time bound, which a
//! runaway allocation would also break.

use std::io::Write as _;
use std::time::{Duration, Instant};

use courses_core::csv_import::{course_from_csv, parse_csv};
use courses_core::embed_links::{EmbedParams, sign, verify};
use courses_core::scorm_import::inspect as course_from_package;
use proptest::prelude::*;

fn cases() -> u32 {
    if std::env::var("SVC_TEST_LONG").is_ok_and(|v| v == "1") { 20_000 } else { 256 }
}

/// Each input is handled well within this (debug builds included).
const BOUND: Duration = Duration::from_secs(2);

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    assert!(started.elapsed() < BOUND, "{what} took {:?}", started.elapsed());
    out
}

/// A manifest of another tool's package (ADL's SCORM 1.2 examples' shape).
const FOREIGN_MANIFEST: &str = r#"<manifest identifier="m" xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"><metadata><schemaversion>1.2</schemaversion></metadata><organizations default="o"><organization identifier="o"><title>Golf</title><item identifier="i1" identifierref="r1" parameters="?a=1"><title>One</title><adlcp:masteryscore>80</adlcp:masteryscore></item><item identifier="f"><title>Folder</title><item identifier="i2" identifierref="r2"/></item></organization></organizations><resources xml:base="content/"><resource identifier="r1" adlcp:scormtype="sco" href="a/one.html"/><resource identifier="r2" adlcp:scormtype="asset" xml:base="b/" href="two%20x.html"/></resources></manifest>"#;

const MANIFEST: &[u8] = b"<manifest><metadata><schemaversion>2004 4th Edition</schemaversion></metadata><resources><resource href=\"index.html\"/></resources></manifest>";

fn package(method: zip::CompressionMethod) -> Vec<u8> {
    let course = serde_json::json!({ "title": "Seed", "screens": [{ "title": "One", "blocks": [
        { "type": "text", "text": "hello" },
        { "type": "multiple_choice", "question": "q", "options": ["a", "b"], "correctIndex": 1 },
    ] }] });
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, data) in [("imsmanifest.xml", MANIFEST.to_vec()), ("course.json", course.to_string().into_bytes())] {
        writer.start_file(name, options).unwrap();
        writer.write_all(&data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

fn mutate(seed: &[u8], edits: &[(usize, u8)]) -> Vec<u8> {
    let mut bytes = seed.to_vec();
    for (at, byte) in edits {
        if bytes.is_empty() {
            bytes.push(*byte);
            continue;
        }
        let at = at % bytes.len();
        match byte % 3 {
            0 => bytes[at] = *byte,
            1 => {
                bytes.remove(at);
            }
            _ => bytes.insert(at, *byte),
        }
    }
    bytes
}

const CSV: &str = "screen,type,text,options,correct\n1,text,Hello,,\n1,multiple_choice,Pick,a|b|c,2\n2,true_false,\"Quoted, \"\"text\"\"\",,true\n2,stack,Cards,front::back|x::y,\n";

#[test]
fn the_seeds_are_valid() {
    assert!(course_from_package(&package(zip::CompressionMethod::Stored)).is_ok());
    assert!(course_from_package(&package(zip::CompressionMethod::Deflated)).is_ok());
    assert!(course_from_csv("t", CSV).is_ok());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_packages_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = timed("a package", || course_from_package(&bytes));
    }

    #[test]
    fn mutated_packages_never_panic(
        deflated in any::<bool>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..16),
    ) {
        let method = if deflated { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
        let bytes = mutate(&package(method), &edits);
        let _ = timed("a mutated package", || course_from_package(&bytes));
    }

    #[test]
    fn arbitrary_csv_never_panics(text in "\\PC{0,600}") {
        let _ = timed("a CSV", || parse_csv(&text));
        let _ = timed("a CSV course", || course_from_csv("t", &text));
    }

    #[test]
    fn mutated_csv_never_panics(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..24)) {
        let bytes = mutate(CSV.as_bytes(), &edits);
        let text = String::from_utf8_lossy(&bytes);
        let _ = timed("a mutated CSV", || course_from_csv("t", &text));
    }

    #[test]
    fn embed_links_verify_only_their_own_signature(
        learner in "\\PC{0,300}",
        expires in "\\PC{0,20}",
        signature in "[0-9a-fA-Fz]{0,70}",
        course in "[a-z_0-9]{1,40}",
        now in any::<i64>(),
    ) {
        let key = b"0123456789abcdef0123456789abcdef";
        let params = EmbedParams { learner: Some(learner.clone()), expires: Some(expires.clone()), signature: Some(signature) };
        // Arbitrary text never passes and never panics...
        let forged = timed("a forged link", || verify(key, &course, &params, now));
        prop_assert!(forged.is_err() || learner.is_empty());
        // ...while the genuine signature of the same fields passes until it expires.
        if let Ok(at) = expires.parse::<i64>() && !learner.is_empty() && learner.chars().count() <= 200 && expires.len() <= 12 {
            let genuine = EmbedParams { signature: Some(sign(key, &course, &learner, at)), ..params };
            let verdict = verify(key, &course, &genuine, now);
            prop_assert_eq!(verdict.is_ok(), at > now);
        }
    }

    #[test]
    fn the_offline_writer_always_writes_a_valid_course(
        prompt in "\\PC{1,300}",
        source in proptest::option::of("(\\PC{0,80}[.!?\\n#-]){0,40}"),
        target in 1_usize..=20,
    ) {
        let (_, screens) = timed("a course", || courses_core::offline_writer::write(&prompt, source.as_deref(), target));
        prop_assert_eq!(screens.len(), target);
        let mut issues = courses_core::issues::Issues::default();
        let stored = courses_core::content::validate_screens(&serde_json::Value::Array(screens), &["screens".to_owned()], &mut issues);
        prop_assert!(issues.is_empty(), "{:?}", issues.into_vec());
        prop_assert!(courses_core::content::has_scored_blocks(&stored));
    }

    #[test]
    fn arbitrary_manifests_never_panic(text in "\\PC{0,800}") {
        let _ = timed("a manifest", || courses_core::scorm_manifest::parse(&text));
    }

    #[test]
    fn mutated_manifests_never_panic(edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..24)) {
        let bytes = mutate(FOREIGN_MANIFEST.as_bytes(), &edits);
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(manifest) = timed("a mutated manifest", || courses_core::scorm_manifest::parse(&text)) {
            // Whatever the manifest says, a launch path never leaves the package.
            for item in manifest.items {
                prop_assert!(!item.file.split('/').any(|p| p == ".." || p.is_empty()) && !item.file.starts_with('/'), "{}", item.file);
                prop_assert!(courses_core::content::is_package_path(&item.file), "{}", item.file);
            }
        }
    }

    #[test]
    fn authorization_headers_never_panic(header in "\\PC{0,200}") {
        let _ = courses_core::keys::hash_bearer(Some(&header));
    }
}
