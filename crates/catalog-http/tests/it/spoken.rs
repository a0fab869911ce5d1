//! Podcasts and audiobooks: the scan's folder convention, the show,
//! episode, audiobook and chapter routes, search, the user's saved lists,
//! streaming, and rescans.

use axum::http::Method;
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::player::FakeDevice;
use crate::support::{TestApp, has_keys};

on_both_stores!(shows_and_audiobooks_come_from_their_folders);
on_both_stores!(saved_shows_episodes_and_audiobooks);
on_both_stores!(spoken_files_stream_and_follow_rescans);
on_both_stores!(episodes_play_and_keep_a_resume_point);

const MISSING: &str = "0000000000000000000000";

async fn ids(app: &TestApp, token: &str) -> (String, String) {
    let body = app.get("/v1/search?q=signal&type=show", token).await.json();
    let show = body["shows"]["items"][0]["id"].as_str().unwrap().to_owned();
    let body = app.get("/v1/search?q=engine&type=audiobook", token).await.json();
    let book = body["audiobooks"]["items"][0]["id"].as_str().unwrap().to_owned();
    (show, book)
}

async fn shows_and_audiobooks_come_from_their_folders(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let (show, book) = ids(&app, &token).await;

    // The show: named by its folder, publisher from the artist tag, episodes in order.
    let body = app.get(&format!("/v1/shows/{show}"), &token).await.json();
    has_keys(&body, &["available_markets", "copyrights", "description", "html_description", "explicit", "episodes"]);
    assert_eq!(body["name"], "Signal Hour");
    assert_eq!(body["publisher"], "Demo Radio");
    assert_eq!(body["type"], "show");
    assert_eq!(body["total_episodes"], 2);
    let names: Vec<&str> =
        body["episodes"]["items"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Pilot: What Is a Sine Wave", "Harmonics Explained"]);
    let page = app.get(&format!("/v1/shows/{show}/episodes?limit=1&offset=1"), &token).await.json();
    assert_eq!(page["total"], 2);
    assert_eq!(page["items"][0]["name"], "Harmonics Explained");
    assert!(page["next"].is_null() && page["previous"].as_str().unwrap().contains("offset=0"), "{page}");
    let episode = page["items"][0]["id"].as_str().unwrap().to_owned();
    let body = app.get(&format!("/v1/episodes/{episode}"), &token).await.json();
    assert_eq!(body["show"]["id"], show.as_str());
    assert_eq!(body["release_date"], "2025-01-13");
    assert_eq!(body["release_date_precision"], "day");
    assert_eq!(body["uri"], format!("spotify:episode:{episode}"));
    assert!(body["duration_ms"].as_u64().unwrap() > 3_000, "{body}");
    assert_eq!(body["description"], "A synthesised episode of the demo library.");
    assert_eq!(body["html_description"], "<p>A synthesised episode of the demo library.</p>");
    assert_eq!(body["resume_point"], json!({ "fully_played": false, "resume_position_ms": 0 }));

    // The audiobook: `<Author> - <Book>`, chapters numbered from the file names.
    let body = app.get(&format!("/v1/audiobooks/{book}"), &token).await.json();
    assert_eq!(body["name"], "Notes on the Engine");
    assert_eq!(body["authors"], json!([{ "name": "Ada Byron" }]));
    assert_eq!(body["narrators"], json!([]));
    assert_eq!(body["total_chapters"], 2);
    assert_eq!(body["chapters"]["items"][1]["chapter_number"], 2);
    let chapter = body["chapters"]["items"][0]["id"].as_str().unwrap().to_owned();
    let body = app.get(&format!("/v1/chapters/{chapter}"), &token).await.json();
    assert_eq!(body["audiobook"]["id"], book.as_str());
    assert_eq!(body["name"], "The Engine");
    assert_eq!(body["release_date"], "2023");

    // Several ids: in the order asked, null for unknown ids and for ids of the other kind.
    let body = app.get(&format!("/v1/shows?ids={show},{MISSING},{book}"), &token).await.json();
    assert_eq!(body["shows"][0]["id"], show.as_str());
    assert!(body["shows"][0].get("episodes").is_none(), "simplified shows: {body}");
    assert_eq!(body["shows"][1], Value::Null);
    assert_eq!(body["shows"][2], Value::Null);
    let body = app.get(&format!("/v1/audiobooks?ids={book}"), &token).await.json();
    assert_eq!(body["audiobooks"][0]["chapters"]["total"], 2);
    let body = app.get(&format!("/v1/episodes?ids={episode},{chapter}"), &token).await.json();
    assert_eq!(body["episodes"][0]["id"], episode.as_str());
    assert_eq!(body["episodes"][1], Value::Null);
    let body = app.get(&format!("/v1/chapters?ids={chapter}"), &token).await.json();
    assert_eq!(body["chapters"][0]["id"], chapter.as_str());

    // Errors: wrong kind, unknown, bad ids, too many ids.
    app.get(&format!("/v1/audiobooks/{show}"), &token).await.spotify_error(404);
    app.get(&format!("/v1/shows/{MISSING}/episodes"), &token).await.spotify_error(404);
    app.get(&format!("/v1/chapters/{episode}"), &token).await.spotify_error(404);
    app.get("/v1/episodes/not-an-id!", &token).await.spotify_error(400);
    app.get("/v1/shows?ids=", &token).await.spotify_error(400);
    let many = vec![MISSING; 51].join(",");
    app.get(&format!("/v1/chapters?ids={many}"), &token).await.spotify_error(400);
    app.get(&format!("/v1/shows/{show}/episodes?limit=51"), &token).await.spotify_error(400);

    // Search answers shows, episodes and audiobooks from the index; they are not tracks.
    let body = app.get("/v1/search?q=harmonics%20expl&type=track,episode,show,audiobook", &token).await.json();
    assert_eq!(body["tracks"]["total"], 0, "{body}");
    assert_eq!(body["episodes"]["items"][0]["name"], "Harmonics Explained");
    assert_eq!(body["shows"]["total"], 0);
    let body = app.get("/v1/search?q=byron&type=audiobook,show", &token).await.json();
    assert_eq!(body["audiobooks"]["items"][0]["id"], book.as_str());
    assert_eq!(body["shows"]["total"], 0);
    let body = app.get("/v1/search?q=hour%20year:2025&type=episode", &token).await.json();
    assert_eq!(body["episodes"]["total"], 2, "{body}");
    let body = app.get("/v1/search?q=signal%20artist:demo&type=show", &token).await.json();
    assert_eq!(body["shows"]["total"], 0, "a filter shows lack matches nothing");
    let tracks = app.get("/v1/search?q=a&type=track&limit=50", &token).await.json();
    assert_eq!(tracks["tracks"]["total"], catalog_core::synth::SongSpec::demo_count());
}

async fn saved_shows_episodes_and_audiobooks(app: TestApp) {
    let token = app.user_token("ada", "user-library-read user-library-modify").await;
    let (show, book) = ids(&app, &token).await;
    let episodes = app.get(&format!("/v1/shows/{show}/episodes"), &token).await.json();
    let episode = episodes["items"][0]["id"].as_str().unwrap().to_owned();

    let ok = |status: u16| assert_eq!(status, 200);
    ok(app.request(Method::PUT, &format!("/v1/me/shows?ids={show}"), Some(&token), None).await.status.as_u16());
    ok(app.send_json(Method::PUT, "/v1/me/episodes", &token, &json!({ "ids": [episode] })).await.status.as_u16());
    ok(app.request(Method::PUT, &format!("/v1/me/audiobooks?ids={book}"), Some(&token), None).await.status.as_u16());
    // Unknown ids, and ids of the other kind, save nothing.
    app.request(Method::PUT, &format!("/v1/me/shows?ids={book}"), Some(&token), None).await.spotify_error(404);
    app.request(Method::PUT, &format!("/v1/me/episodes?ids={MISSING}"), Some(&token), None).await.spotify_error(404);

    let body = app.get("/v1/me/shows", &token).await.json();
    assert_eq!(body["total"], 1);
    assert_eq!(body["items"][0]["show"]["id"], show.as_str());
    assert!(body["items"][0]["added_at"].as_str().unwrap().ends_with('Z'));
    let body = app.get("/v1/me/episodes", &token).await.json();
    assert_eq!(body["items"][0]["episode"]["show"]["id"], show.as_str());
    // Saved audiobooks are the simplified audiobooks themselves (Spotify's
    // answer and its official description), with no `added_at` wrapper.
    let body = app.get("/v1/me/audiobooks", &token).await.json();
    assert_eq!(body["total"], 1);
    assert_eq!(body["items"][0]["id"], book.as_str());
    assert_eq!(body["items"][0]["type"], "audiobook");
    assert_eq!(body["items"][0]["total_chapters"], 2);
    assert!(body["items"][0].get("added_at").is_none() && body["items"][0].get("chapters").is_none());
    let body = app.get(&format!("/v1/me/shows/contains?ids={show},{MISSING}"), &token).await.json();
    assert_eq!(body, json!([true, false]));

    // The generic library routes take these URIs too.
    let uris = format!("spotify:show:{show},spotify:audiobook:{book},spotify:episode:{episode}");
    let body = app.get(&format!("/v1/me/library/contains?uris={uris}"), &token).await.json();
    assert_eq!(body, json!([true, true, true]));
    ok(app.request(Method::DELETE, &format!("/v1/me/library?uris={uris}"), Some(&token), None).await.status.as_u16());
    let body = app.get(&format!("/v1/me/library/contains?uris={uris}"), &token).await.json();
    assert_eq!(body, json!([false, false, false]));
    ok(app
        .request(Method::PUT, &format!("/v1/me/library?uris=spotify:show:{show}"), Some(&token), None)
        .await
        .status
        .as_u16());
    ok(app.request(Method::DELETE, &format!("/v1/me/shows?ids={show}"), Some(&token), None).await.status.as_u16());
    assert_eq!(app.get("/v1/me/shows", &token).await.json()["total"], 0);

    // Scopes and app tokens.
    let reader = app.token_for("ada", "user-library-modify").await;
    app.get("/v1/me/audiobooks", &reader).await.spotify_error(403);
}

async fn spoken_files_stream_and_follow_rescans(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let (_, book) = ids(&app, &token).await;
    let chapters = app.get(&format!("/v1/audiobooks/{book}/chapters"), &token).await.json();
    let chapter = chapters["items"][0]["id"].as_str().unwrap().to_owned();

    // A chapter streams like a track, behind a signed link.
    let link = app.catalog.stream_link(&chapter).await.unwrap();
    let url = format!("/stream/{chapter}?expires={}&signature={}", link.expires, link.signature);
    let response = app.request(Method::GET, &url, None, None).await;
    assert_eq!(response.status.as_u16(), 200);
    assert_eq!(response.headers["content-type"], "audio/wav");

    // A removed chapter file leaves the audiobook; the last one takes the book with it.
    let folder = app.library().join("Audiobooks").join("Ada Byron - Notes on the Engine");
    std::fs::remove_file(folder.join("01 The Engine.wav")).unwrap();
    let summary = app.catalog.scan(&app.library(), |_| {}).await.unwrap();
    assert_eq!(summary.removed, 1);
    assert_eq!(app.get(&format!("/v1/audiobooks/{book}"), &token).await.json()["total_chapters"], 1);
    app.get(&format!("/v1/chapters/{chapter}"), &token).await.spotify_error(404);
    std::fs::remove_dir_all(&folder).unwrap();
    app.catalog.scan(&app.library(), |_| {}).await.unwrap();
    app.get(&format!("/v1/audiobooks/{book}"), &token).await.spotify_error(404);
    // Unchanged spoken files are skipped on a rescan.
    let again = app.catalog.scan(&app.library(), |_| {}).await.unwrap();
    assert_eq!(again.added, 0);
    assert_eq!(again.unchanged, again.total);
}

async fn episodes_play_and_keep_a_resume_point(app: TestApp) {
    let scopes = "streaming user-read-playback-state user-modify-playback-state user-read-playback-position \
                  user-read-recently-played";
    let token = app.user_token("ada", scopes).await;
    let (show, book) = ids(&app, &token).await;
    let device = FakeDevice::register(&app, &token, "Radio").await;
    let ok = |status: u16| assert_eq!(status, 204);
    ok(app
        .send_json(Method::PUT, "/v1/me/player", &token, &json!({ "device_ids": [device.id] }))
        .await
        .status
        .as_u16());

    // A show is a context: its episodes in order.
    let play = json!({ "context_uri": format!("spotify:show:{show}") });
    ok(app.send_json(Method::PUT, "/v1/me/player/play", &token, &play).await.status.as_u16());
    let view = device.view(&app).await;
    assert_eq!(view["item"]["type"], "episode");
    assert_eq!(view["item"]["name"], "Pilot: What Is a Sine Wave");
    let episode = view["item"]["id"].as_str().unwrap().to_owned();
    assert!(view["item"]["stream_url"].as_str().unwrap().contains(&format!("/stream/{episode}?")), "{view}");
    let state = app.get("/v1/me/player", &token).await.json();
    assert_eq!(state["currently_playing_type"], "episode");
    assert_eq!(state["item"]["show"]["id"], show.as_str());
    assert_eq!(state["context"]["uri"], format!("spotify:show:{show}"));
    let queue = app.get("/v1/me/player/queue", &token).await.json();
    assert_eq!(queue["queue"][0]["name"], "Harmonics Explained");

    // The device's reports become the user's resume point.
    device.report(&app, &episode, 1_500, false).await;
    let body = app.get(&format!("/v1/episodes/{episode}"), &token).await.json();
    assert_eq!(body["resume_point"], json!({ "fully_played": false, "resume_position_ms": 1_500 }));
    // Without user-read-playback-position the point reads as the start.
    let other = app.token_for("ada", "").await;
    let body = app.get(&format!("/v1/episodes/{episode}"), &other).await.json();
    assert_eq!(body["resume_point"]["resume_position_ms"], 0);
    device.report(&app, &episode, 4_000, true).await;
    let body = app.get(&format!("/v1/shows/{show}/episodes"), &token).await.json();
    assert_eq!(body["items"][0]["resume_point"]["fully_played"], true, "{body}");
    assert_eq!(device.view(&app).await["item"]["name"], "Harmonics Explained");
    // Episodes do not enter the listening history of tracks.
    assert_eq!(app.get("/v1/me/player/recently-played", &token).await.json()["items"], json!([]));

    // Chapters play by URI (Spotify names them spotify:episode:) and audiobooks as contexts.
    let chapters = app.get(&format!("/v1/audiobooks/{book}/chapters"), &token).await.json();
    let uri = chapters["items"][1]["uri"].as_str().unwrap().to_owned();
    ok(app.send_json(Method::PUT, "/v1/me/player/play", &token, &json!({ "uris": [uri] })).await.status.as_u16());
    assert_eq!(device.view(&app).await["item"]["name"], "Of Numbers and Notes");
    let play = json!({ "context_uri": format!("spotify:audiobook:{book}"), "offset": { "position": 1 } });
    ok(app.send_json(Method::PUT, "/v1/me/player/play", &token, &play).await.status.as_u16());
    assert_eq!(device.view(&app).await["item"]["audiobook"]["id"], book.as_str());
    let queued = format!("spotify:episode:{episode}");
    ok(app
        .request(Method::POST, &format!("/v1/me/player/queue?uri={queued}"), Some(&token), None)
        .await
        .status
        .as_u16());
    let bad = json!({ "uris": [format!("spotify:show:{show}")] });
    app.send_json(Method::PUT, "/v1/me/player/play", &token, &bad).await.spotify_error(400);
}
