use axum::http::StatusCode;
use courses_core::Plan;
use serde_json::{Value, json};

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

/// A SCORM package as another authoring tool makes one, in the shape of
/// ADL's content examples: the manifest, a launch page whose script finds
/// the runtime, sets a score and completion, commits and finishes, a shared
/// script and an image. `deflated` as most tools write it.
pub fn adl_package(version: &str) -> Vec<u8> {
    use std::io::Write as _;
    let (schema, namespace, scorm_type, sequencing) = if version == "1.2" {
        ("1.2", "http://www.adlnet.org/xsd/adlcp_rootv1p2", "scormtype", "<adlcp:masteryscore>70</adlcp:masteryscore>")
    } else {
        (
            "2004 4th Edition",
            "http://www.adlnet.org/xsd/adlcp_v1p3",
            "scormType",
            "<imsss:sequencing><imsss:objectives><imsss:primaryObjective objectiveID=\"p\" satisfiedByMeasure=\"true\"><imsss:minNormalizedMeasure>0.7</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives></imsss:sequencing>",
        )
    };
    let manifest = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.scorm.golfsamples" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="{namespace}" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>{schema}</schemaversion></metadata>
  <organizations default="golf_sample_default_org">
    <organization identifier="golf_sample_default_org">
      <title>Golf Explained - Run-time Basic Calls</title>
      <item identifier="item_1" identifierref="resource_1" parameters="?content=playing">
        <title>Playing the Game</title>
        {sequencing}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="resource_1" type="webcontent" adlcp:{scorm_type}="sco" href="shared/launchpage.html">
      <file href="shared/launchpage.html"/><file href="shared/scormfunctions.js"/><file href="shared/golf.svg"/>
    </resource>
  </resources>
</manifest>"#
    );
    // The ADL examples' API discovery: the window, then its parents.
    let functions = r#"
var API = null;
function findAPI(win, name) { var tries = 0; while (!win[name] && win.parent && win.parent != win && tries < 7) { tries++; win = win.parent; } return win[name] || null; }
"#;
    let page = r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Playing the Game</title><script src="scormfunctions.js"></script></head>
<body><h1>Playing the Game</h1><img src="golf.svg" alt="a golf ball"><p id="status">loading</p>
<button id="pass" type="button">I have read it</button>
<script>
  var v2004 = EDITION === '2004';
  var api = findAPI(window, v2004 ? 'API_1484_11' : 'API');
  document.getElementById('status').textContent = api ? 'connected' : 'no runtime';
  if (api) {
    if (v2004) { api.Initialize(''); } else { api.LMSInitialize(''); }
    var resumed = v2004 ? api.GetValue('cmi.suspend_data') : api.LMSGetValue('cmi.suspend_data');
    document.getElementById('status').textContent = 'connected' + (resumed ? ' resumed ' + resumed : '');
  }
  document.getElementById('pass').onclick = function () {
    if (v2004) {
      api.SetValue('cmi.score.raw', '85'); api.SetValue('cmi.score.min', '0'); api.SetValue('cmi.score.max', '100');
      api.SetValue('cmi.score.scaled', '0.85'); api.SetValue('cmi.completion_status', 'completed');
      api.SetValue('cmi.suspend_data', 'hole=18'); api.SetValue('cmi.exit', 'suspend');
      api.Commit(''); api.Terminate('');
    } else {
      api.LMSSetValue('cmi.core.score.raw', '85'); api.LMSSetValue('cmi.core.lesson_status', 'completed');
      api.LMSSetValue('cmi.suspend_data', 'hole=18'); api.LMSSetValue('cmi.core.exit', 'suspend');
      api.LMSCommit(''); api.LMSFinish('');
    }
    document.getElementById('status').textContent = 'finished';
  };
</script></body></html>"#;
    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="4"/></svg>"#;
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in [
        ("imsmanifest.xml", manifest.as_bytes()),
        ("shared/launchpage.html", page.replace("EDITION", &format!("'{version}'")).as_bytes()),
        ("shared/scormfunctions.js", functions.as_bytes()),
        ("shared/golf.svg", &svg[..]),
    ] {
        writer.start_file(name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

on_both_stores!(packages_of_other_tools_play_their_scos);

async fn packages_of_other_tools_play_their_scos(app: TestApp) {
    use axum::http::Method;
    let (_, key) = app.workspace(Plan::Scale).await;
    let import = |zip: Vec<u8>| {
        let app = &app;
        let key = key.clone();
        async move { app.send(Method::POST, "/v1/courses/import/scorm", Some(&key), Some(zip.into())).await }
    };
    for version in ["1.2", "2004"] {
        let created = import(adl_package(version)).await;
        assert_eq!(created.status, StatusCode::CREATED, "{version}: {}", created.text());
        let course = created.json();
        assert_eq!(course["sourceKind"], "scorm_package");
        assert_eq!(course["title"], "Golf Explained - Run-time Basic Calls");
        assert_eq!(course["passingScore"], 70, "the mastery score becomes the passing score");
        let block = &course["screens"][0]["blocks"][0];
        assert_eq!(
            (block["type"].as_str(), block["scormVersion"].as_str(), block["launch"].as_str()),
            (Some("scorm"), Some(version), Some("shared/launchpage.html?content=playing"))
        );
        let (course_id, block_id) = (course["id"].as_str().unwrap(), block["id"].as_str().unwrap());
        let package = block["packageId"].as_str().unwrap();
        let file = |path: &str| {
            let app = &app;
            let url = format!("/v1/embed/scorm/{package}/{path}");
            async move { app.send(Method::GET, &url, None, None).await }
        };
        // A draft's files answer like missing ones.
        assert_eq!(file("shared/launchpage.html").await.status, StatusCode::NOT_FOUND);
        assert_eq!(
            app.post(&format!("/v1/courses/{course_id}/publish"), &key, &json!({})).await.status,
            StatusCode::OK
        );

        let page = file("shared/launchpage.html").await;
        assert_eq!(page.status, StatusCode::OK);
        assert_eq!(page.headers["content-type"], "text/html");
        let csp = page.headers["content-security-policy"].to_str().unwrap();
        assert!(csp.starts_with("sandbox allow-scripts") && !csp.contains("allow-same-origin"), "{csp}");
        assert_eq!(page.headers["x-content-type-options"], "nosniff");
        assert_eq!(page.headers["access-control-allow-origin"], "*");
        assert!(
            page.headers.get("set-cookie").is_none() && page.headers.get("access-control-allow-credentials").is_none()
        );
        assert!(
            page.text().contains("<head><script src=\"/v1/embed/scorm-runtime.js\"></script><meta charset"),
            "the runtime comes first: {}",
            page.text()
        );
        let script = file("shared/scormfunctions.js").await;
        assert_eq!(script.headers["content-type"], "text/javascript; charset=utf-8");
        assert!(script.text().contains("function findAPI") && !script.text().contains("scorm-runtime"));
        assert_eq!(file("shared/golf.svg").await.headers["content-type"], "image/svg+xml");
        for missing in ["shared/nope.html", "imsmanifest.xml/..", "../../etc/passwd", "shared/%2e%2e/imsmanifest.xml"] {
            let answer = file(missing).await;
            assert_eq!(answer.status, StatusCode::NOT_FOUND, "{missing}");
            assert_eq!(answer.error(), "not_found");
        }
        let runtime = app.send(Method::GET, "/v1/embed/scorm-runtime.js", None, None).await;
        assert_eq!(runtime.status, StatusCode::OK);
        assert!(runtime.text().contains("LMSInitialize") && runtime.text().contains("API_1484_11"));

        // The learner's commits are kept and handed back on the next opening.
        let link = app.embed_link(&key, course_id, "golfer").await;
        let session =
            app.send(Method::GET, &link.replace(course_id, &format!("{course_id}/session")), None, None).await;
        let session = session.json();
        assert_eq!(session["scormState"], json!({}));
        let view = session["viewId"].as_str().unwrap();
        let cmi = if version == "1.2" {
            json!({ "cmi.core.lesson_status": "completed", "cmi.core.score.raw": "85", "cmi.suspend_data": "hole=18", "cmi.core.exit": "suspend", "cmi.interactions.0.id": "dropped" })
        } else {
            json!({ "cmi.completion_status": "completed", "cmi.success_status": "passed", "cmi.score.scaled": "0.85", "cmi.suspend_data": "hole=18", "cmi.exit": "suspend" })
        };
        let saved = app
            .send(
                Method::POST,
                &format!("/v1/embed/views/{view}/scorm"),
                None,
                Some(json!({ "blockId": block_id, "data": cmi }).to_string().into()),
            )
            .await;
        assert_eq!(saved.status, StatusCode::NO_CONTENT, "{}", saved.text());
        let wrong = app
            .send(
                Method::POST,
                &format!("/v1/embed/views/{view}/scorm"),
                None,
                Some(json!({ "blockId": "nope", "data": {} }).to_string().into()),
            )
            .await;
        assert_eq!(wrong.issue_paths(), vec!["blockId"]);
        let again =
            app.send(Method::GET, &link.replace(course_id, &format!("{course_id}/session")), None, None).await.json();
        assert_eq!(again["scormState"][block_id]["cmi.suspend_data"], "hole=18", "{again}");
        assert!(again["scormState"][block_id].get("cmi.interactions.0.id").is_none(), "only the kept elements");

        // The player's completion carries the SCO's report: score, status and suspend data.
        let view = again["viewId"].as_str().unwrap();
        let done = app
            .send(
                Method::POST,
                &format!("/v1/embed/views/{view}/completion"),
                None,
                Some(json!({ "answers": { block_id: cmi } }).to_string().into()),
            )
            .await;
        assert_eq!(done.status, StatusCode::CREATED, "{}", done.text());
        let listed = app.get("/v1/completions?limit=100", &key).await.json();
        let mine: Vec<&Value> =
            listed["data"].as_array().unwrap().iter().filter(|c| c["courseId"] == course_id).collect();
        assert_eq!(mine.len(), 1);
        assert_eq!((mine[0]["score"].as_f64(), mine[0]["passed"].as_bool()), (Some(85.0), Some(true)));
        assert_eq!(mine[0]["scorm"][block_id]["suspendData"], "hole=18");
        assert_eq!(mine[0]["scorm"][block_id]["completionStatus"], "completed");
    }

    // Such a course is not exported again as a package of ours.
    let course = app.get("/v1/courses", &key).await.json()["data"][0].clone();
    let export = app.get(&format!("/v1/courses/{}/scorm", course["id"].as_str().unwrap()), &key).await;
    assert_eq!((export.status, export.issue_paths()), (StatusCode::BAD_REQUEST, vec!["screens".to_owned()]));

    // A package whose item launches a file it does not hold names the item.
    let broken = courses_core::scorm::zip_stored(&[(
        "imsmanifest.xml",
        b"<manifest><metadata><schemaversion>1.2</schemaversion></metadata><organizations><organization><item identifier=\"lost\" identifierref=\"r\"/></organization></organizations><resources><resource identifier=\"r\" href=\"gone.html\"/></resources></manifest>".to_vec(),
    )]);
    let refused = import(broken).await;
    assert_eq!(refused.status, StatusCode::BAD_REQUEST);
    assert_eq!(refused.issue_paths(), vec!["imsmanifest.xml.lost"]);
    // Below Scale the import answers 403 before reading the package.
    let (_, build) = app.workspace(Plan::Build).await;
    let gated = app.send(Method::POST, "/v1/courses/import/scorm", Some(&build), Some(adl_package("1.2").into())).await;
    assert_eq!(gated.error(), "plan_required");
}
