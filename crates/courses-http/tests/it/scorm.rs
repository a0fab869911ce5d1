use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::Value;

use crate::on_both_stores;
use crate::support::{TestApp, quiz_course};

on_both_stores!(scorm_export_over_the_api_needs_scale);

/// The stored entries of a zip written without compression.
fn entries(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while zip.len() >= at + 30 && zip[at..at + 4] == *b"PK\x03\x04" {
        assert_eq!(u16::from_le_bytes([zip[at + 8], zip[at + 9]]), 0, "stored");
        let size = u32::from_le_bytes(zip[at + 18..at + 22].try_into().unwrap()) as usize;
        let name_len = u16::from_le_bytes([zip[at + 26], zip[at + 27]]) as usize;
        let extra = u16::from_le_bytes([zip[at + 28], zip[at + 29]]) as usize;
        let name = String::from_utf8(zip[at + 30..at + 30 + name_len].to_vec()).unwrap();
        let start = at + 30 + name_len + extra;
        out.push((name, zip[start..start + size].to_vec()));
        at = start + size;
    }
    out
}

async fn scorm_export_over_the_api_needs_scale(app: TestApp) {
    let (_, build) = app.workspace(Plan::Build).await;
    let course = app.course(&build, &quiz_course(Some(50))).await;
    let refused = app.get(&format!("/v1/courses/{}/scorm", course["id"].as_str().unwrap()), &build).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert_eq!(refused.error(), "plan_required");

    let (_, key) = app.workspace(Plan::Scale).await;
    let course = app.course(&key, &quiz_course(Some(50))).await;
    let id = course["id"].as_str().unwrap();
    for (version, schema) in
        [("1.2", "<schemaversion>1.2</schemaversion>"), ("2004", "<schemaversion>2004 4th Edition</schemaversion>")]
    {
        let response = app.get(&format!("/v1/courses/{id}/scorm?version={version}"), &key).await;
        assert_eq!(response.status, StatusCode::OK, "{}", response.text());
        assert_eq!(response.headers["content-type"], "application/zip");
        let files = entries(&response.body);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["imsmanifest.xml", "index.html", "course.json"], "manifest at the zip root");
        let manifest = String::from_utf8(files[0].1.clone()).unwrap();
        assert!(manifest.contains(schema) && manifest.contains("href=\"index.html\""));
        let player = String::from_utf8(files[1].1.clone()).unwrap();
        assert!(player.contains(if version == "2004" { "API_1484_11" } else { "LMSInitialize" }));
        let doc: Value = serde_json::from_slice(&files[2].1).unwrap();
        assert_eq!(doc["screens"], course["screens"], "the package carries the course for re-import");
    }
    let bad = app.get(&format!("/v1/courses/{id}/scorm?version=3"), &key).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.issue_paths(), vec!["version"]);
}

on_both_stores!(csv_import_up_to_2000_rows);

async fn csv_import_up_to_2000_rows(app: TestApp) {
    let (_, key) = app.workspace(Plan::Build).await;
    let header = "screen,type,text,options,correct\n";
    let csv = format!(
        "{header}Intro,text,\"Welcome, everyone\",,\nQuiz,multiple_choice,Pick,a|b,1\nQuiz,true_false,Water is wet,,true\n"
    );
    let send = |body: String| {
        let app = &app;
        let key = key.clone();
        async move {
            app.send(axum::http::Method::POST, "/v1/courses/import/csv?title=Imported", Some(&key), Some(body.into()))
                .await
        }
    };
    let created = send(csv).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.text());
    let course = created.json();
    assert_eq!(
        (course["title"].clone(), course["sourceKind"].clone()),
        (serde_json::json!("Imported"), serde_json::json!("csv"))
    );
    assert_eq!(course["screens"][0]["blocks"][0]["text"], "Welcome, everyone");
    assert_eq!(course["screens"][1]["blocks"][0]["correctIndex"], 1);

    let rows = |n: usize| (0..n).map(|i| format!("S{},text,row {i},,\n", i / 100)).collect::<String>();
    let full = send(format!("{header}{}", rows(2000))).await;
    assert_eq!(full.status, StatusCode::CREATED, "2,000 data rows are allowed");
    assert_eq!(full.json()["screens"].as_array().unwrap().len(), 20);
    let over = send(format!("{header}{}", rows(2001))).await;
    assert_eq!(over.status, StatusCode::BAD_REQUEST);
    assert_eq!(over.issue_paths(), vec!["rows"]);
    let bad = send(format!("{header}S,multiple_choice,Q,a|b,7\n")).await;
    assert_eq!(bad.issue_paths(), vec!["screens.0.blocks.0.correctIndex"]);
}

on_both_stores!(scorm_reimport_reproduces_the_course_and_large_packages_are_413);

async fn scorm_reimport_reproduces_the_course_and_large_packages_are_413(app: TestApp) {
    let (_, key) = app.workspace(Plan::Scale).await;
    let course = app.course(&key, &quiz_course(Some(50))).await;
    let id = course["id"].as_str().unwrap();
    let post_zip = |bytes: Vec<u8>| {
        let app = &app;
        let key = key.clone();
        async move { app.send(axum::http::Method::POST, "/v1/courses/import/scorm", Some(&key), Some(bytes.into())).await }
    };
    for version in ["1.2", "2004"] {
        let zip = app.get(&format!("/v1/courses/{id}/scorm?version={version}"), &key).await.body.to_vec();
        let imported = post_zip(zip).await;
        assert_eq!(imported.status, StatusCode::CREATED, "{}", imported.text());
        let imported = imported.json();
        assert_ne!(imported["id"], course["id"]);
        assert_eq!(imported["sourceKind"], "scorm");
        for field in ["title", "passingScore", "screens", "navigation", "quizFeedback"] {
            assert_eq!(imported[field], course[field], "{field} survives the round trip");
        }
    }
    // The same package deflated, as other tools write it, imports too.
    let exported = app.get(&format!("/v1/courses/{id}/scorm?version=2004"), &key).await.body.to_vec();
    let deflated = imported_deflated(&exported);
    assert!(deflated.len() < exported.len(), "compressed");
    let imported = post_zip(deflated).await;
    assert_eq!(imported.status, StatusCode::CREATED, "{}", imported.text());
    assert_eq!(imported.json()["screens"], course["screens"]);
    // Zip-slip and zip-bomb packages are refused with issues.
    let slip = post_zip(courses_core::scorm::zip_stored(&[("../../etc/cron.d/x", b"x".to_vec())])).await;
    assert_eq!(slip.status, StatusCode::BAD_REQUEST);
    assert_eq!(slip.issue_paths(), vec!["package.../../etc/cron.d/x"]);
    let bomb = post_zip(declared_size(&exported, "course.json", 400_000_000)).await;
    assert_eq!(bomb.status, StatusCode::BAD_REQUEST);
    assert!(bomb.json()["message"].as_str().unwrap().contains("zip bomb"), "{}", bomb.text());

    let bad = post_zip(b"PK not really".to_vec()).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert_eq!(bad.error(), "invalid_request");
    let no_manifest = post_zip(courses_core::scorm::zip_stored(&[("index.html", b"x".to_vec())])).await;
    assert_eq!(no_manifest.issue_paths(), vec!["imsmanifest.xml"]);

    let too_big = vec![0_u8; courses_core::scorm_import::MAX_PACKAGE_BYTES + 1];
    let refused = post_zip(too_big).await;
    assert_eq!(refused.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(refused.error(), "payload_too_large");
    let (_, build) = app.workspace(Plan::Build).await;
    for size in [10, courses_core::scorm_import::MAX_PACKAGE_BYTES + 1] {
        let body = vec![0_u8; size];
        let gated =
            app.send(axum::http::Method::POST, "/v1/courses/import/scorm", Some(&build), Some(body.into())).await;
        assert_eq!(gated.status, StatusCode::FORBIDDEN, "the plan gate answers first, at any size");
        assert_eq!(gated.error(), "plan_required");
    }
}

/// Every entry of `zip` again, deflated.
fn imported_deflated(zip: &[u8]) -> Vec<u8> {
    use std::io::{Read as _, Write as _};
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.name().unwrap().into_owned();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        writer.start_file(name, options).unwrap();
        writer.write_all(&data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

/// `zip` with the central directory's uncompressed size of `name` patched.
fn declared_size(zip: &[u8], name: &str, size: u32) -> Vec<u8> {
    let mut out = zip.to_vec();
    let mut at = 0;
    while let Some(found) = out[at..].windows(4).position(|w| w == b"PK\x01\x02") {
        let header = at + found;
        let name_len = u16::from_le_bytes([out[header + 28], out[header + 29]]) as usize;
        if &out[header + 46..header + 46 + name_len] == name.as_bytes() {
            out[header + 24..header + 28].copy_from_slice(&size.to_le_bytes());
            return out;
        }
        at = header + 4;
    }
    panic!("{name} not found")
}
