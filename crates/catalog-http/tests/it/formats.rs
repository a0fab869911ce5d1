//! Every format self-hosters keep (issue 31, item 4): Opus, AIFF, WavPack
//! and ALAC are scanned with their tags, length and audio features; a file
//! the scan cannot read is named in its summary; what a browser cannot
//! play streams as MP3 encoded by ffmpeg, with byte ranges.
//!
//! The files are made from a demo track by `ffmpeg`, which this scenario
//! needs on the `PATH` (Debian: `apt-get install ffmpeg`); without it the
//! scenario says so and passes.

use axum::http::{Method, Request, StatusCode};
use catalog_core::transcode::{self, Ffmpeg};
use serde_json::Value;

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(other_formats_scan_and_stream);

/// (file name, ffmpeg arguments after the inputs, whether it embeds the
/// cover: ffmpeg's AIFF and MP4 muxers take one, its WavPack and Ogg ones not)
const FORMATS: &[(&str, &[&str], bool)] = &[
    ("Keep/Formats/01 Aiff Song.aiff", &["-write_id3v2", "1"], true),
    ("Keep/Formats/02 Wavpack Song.wv", &["-metadata", "EXPLICIT=1"], false),
    ("Keep/Formats/03 Opus Song.opus", &["-c:a", "libopus", "-metadata", "ITUNESADVISORY=1"], false),
    ("Keep/Formats/04 Alac Song.m4a", &["-c:a", "alac"], true),
];

fn ffmpeg() -> Option<Ffmpeg> {
    let found = std::env::var_os("PATH").and_then(|path| Ffmpeg::find_in(&path));
    if found.is_none() {
        eprintln!("skipping the other-formats scenario: no ffmpeg on the PATH (Debian: apt-get install ffmpeg)");
    }
    found
}

async fn other_formats_scan_and_stream(app: TestApp) {
    let Some(ffmpeg) = ffmpeg() else { return };
    let source = app.library().join("Sine Collective/First Light/01 Dawn Oscillator.wav");
    let dir = app.library().parent().unwrap().join("formats");
    std::fs::create_dir_all(&dir).unwrap();
    // A 16x16 JPEG cover (kept outside the scanned folder).
    let cover = app.library().parent().unwrap().join("cover.jpg");
    let made = std::process::Command::new(ffmpeg.program())
        .args(["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=16x16", "-frames:v", "1"])
        .arg(&cover)
        .status()
        .unwrap();
    assert!(made.success(), "ffmpeg made the cover");
    let cover_bytes = std::fs::read(&cover).unwrap();
    for (name, args, with_cover) in FORMATS {
        let target = dir.join(name);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        let title =
            name.rsplit('/').next().unwrap().trim_end_matches(|c: char| c != '.').trim_end_matches('.')[3..].to_owned();
        let mut command = std::process::Command::new(ffmpeg.program());
        command.args(["-nostdin", "-v", "error", "-y", "-i"]).arg(&source);
        if *with_cover {
            command.arg("-i").arg(&cover).args(["-map", "0:a", "-map", "1:v", "-c:v", "copy"]);
            command.args(["-disposition:v", "attached_pic"]);
        }
        let status = command
            .args(["-metadata", &format!("title={title}"), "-metadata", "artist=Format Band"])
            .args(["-metadata", &format!("album=Kept {title}")])
            .args(*args)
            .arg(&target)
            .status()
            .unwrap();
        assert!(status.success(), "ffmpeg made {name}");
    }
    // A format the scan cannot read, and a file that is no audio at all.
    std::fs::write(dir.join("Keep/Formats/05 Monkey.ape"), b"MAC \x00\x00").unwrap();
    std::fs::write(dir.join("Keep/Formats/06 Broken.flac"), b"this is not a flac file").unwrap();
    std::fs::write(dir.join("Keep/Formats/cover.txt"), b"not audio: not reported").unwrap();

    let app = app.with_ffmpeg(Some(ffmpeg));
    let done = app.catalog.scan(&dir, |_| {}).await.unwrap();
    assert_eq!((done.total, done.added, done.failed), (6, 4, 2), "{done:?}");
    let problems: Vec<(String, String)> =
        done.problems.iter().map(|p| (p.path.rsplit('/').next().unwrap().to_owned(), p.problem.clone())).collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems.iter().any(|(f, p)| f == "05 Monkey.ape" && p.contains("unsupported audio format .ape")),
        "{problems:?}"
    );
    assert!(problems.iter().any(|(f, _)| f == "06 Broken.flac"), "{problems:?}");
    assert!(done.problems.iter().all(|p| !p.imported));

    let token = app.user_token("ada", "").await;
    let found = app.get("/v1/search?q=artist:%22format%20band%22&type=track&limit=10", &token).await.json();
    let tracks = found["tracks"]["items"].as_array().unwrap().clone();
    assert_eq!(tracks.len(), 4, "{found}");
    let by_name = |name: &str| -> Value {
        tracks.iter().find(|t| t["name"] == name).cloned().unwrap_or_else(|| panic!("no {name}: {found}"))
    };
    for (name, explicit) in [("Aiff Song", false), ("Wavpack Song", true), ("Opus Song", true), ("Alac Song", false)] {
        let track = by_name(name);
        assert_eq!(track["album"]["name"], format!("Kept {name}"), "{name}");
        assert_eq!(track["explicit"], explicit, "{name}");
        let ms = track["duration_ms"].as_u64().unwrap();
        assert!((3_900..=4_100).contains(&ms), "{name}: {ms} ms");
        // Analysed: symphonia for AIFF and ALAC, ffmpeg for WavPack and Opus.
        let id = track["id"].as_str().unwrap();
        let features = app.get(&format!("/v1/audio-features/{id}"), &token).await;
        assert_eq!(features.status, StatusCode::OK, "{name}: {}", String::from_utf8_lossy(&features.body));
        let tempo = features.json()["tempo"].as_f64().unwrap();
        assert!((110.0..=130.0).contains(&tempo), "{name}: tempo {tempo}");
    }

    // Embedded artwork becomes the album's image, byte for byte.
    for name in ["Aiff Song", "Alac Song"] {
        let image = by_name(name)["album"]["images"][0]["url"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no image"))
            .to_owned();
        let served = app.request(Method::GET, image.trim_start_matches(crate::support::BASE), None, None).await;
        assert_eq!(served.status, StatusCode::OK, "{name}");
        assert_eq!(served.headers["content-type"], "image/jpeg", "{name}");
        assert_eq!(served.body.as_ref(), cover_bytes.as_slice(), "{name}");
    }

    // AIFF streams as MP3 encoded on the fly, with byte ranges.
    let aiff = by_name("Aiff Song");
    let id = aiff["id"].as_str().unwrap();
    let link = app.catalog.stream_link(id).await.unwrap();
    let url = format!("/stream/{id}?expires={}&signature={}", link.expires, link.signature);
    let whole = app.request(Method::GET, &url, None, None).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.headers["content-type"], "audio/mpeg");
    let len = transcode::transcoded_len(aiff["duration_ms"].as_u64().unwrap());
    assert_eq!(whole.headers["content-length"].to_str().unwrap(), len.to_string());
    assert_eq!(whole.body.len() as u64, len);
    assert!(mp3_frame_at(&whole.body, 0), "the stream starts with an MP3 frame");
    let ranged = app
        .send(Request::get(&url).header("range", "bytes=48000-71999").body(axum::body::Body::empty()).unwrap())
        .await;
    assert_eq!(ranged.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(ranged.headers["content-range"].to_str().unwrap(), format!("bytes 48000-71999/{len}"));
    assert_eq!(ranged.body.len(), 24_000);
    assert!(mp3_frame_at(&ranged.body, 0), "a range is encoded from its second, starting on a frame");
    let past = app
        .send(Request::get(&url).header("range", format!("bytes={len}-")).body(axum::body::Body::empty()).unwrap())
        .await;
    assert_eq!(past.status, StatusCode::RANGE_NOT_SATISFIABLE);
    // Opus plays in browsers: sent as it is.
    let opus = by_name("Opus Song");
    let id = opus["id"].as_str().unwrap();
    let link = app.catalog.stream_link(id).await.unwrap();
    let raw = app
        .request(
            Method::GET,
            &format!("/stream/{id}?expires={}&signature={}", link.expires, link.signature),
            None,
            None,
        )
        .await;
    assert_eq!(raw.headers["content-type"], "audio/ogg");
    assert!(raw.body.starts_with(b"OggS"));
    // A preview of a format that cannot be cut is encoded by ffmpeg (a 4-second
    // track previews whole), and without ffmpeg there is none.
    let preview_url = aiff["preview_url"].as_str().unwrap().trim_start_matches(crate::support::BASE).to_owned();
    let preview = app.request(Method::GET, &preview_url, None, None).await;
    assert_eq!(preview.status, StatusCode::OK);
    assert_eq!(preview.headers["content-type"], "audio/mpeg");
    assert_eq!(preview.body.len() as u64, transcode::transcoded_len(aiff["duration_ms"].as_u64().unwrap()));
    assert!(mp3_frame_at(&preview.body, 0));
    let aiff_id = aiff["id"].as_str().unwrap().to_owned();
    let app = app.with_ffmpeg(None);
    let token = app.token_for("ada", "").await;
    assert_eq!(app.get(&format!("/v1/tracks/{aiff_id}"), &token).await.json()["preview_url"], Value::Null);
}

/// Whether an MPEG audio frame header starts at `at` (11 sync bits).
fn mp3_frame_at(body: &[u8], at: usize) -> bool {
    matches!((body.get(at), body.get(at + 1)), (Some(0xFF), Some(b)) if b & 0xE0 == 0xE0)
}
