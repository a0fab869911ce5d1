//! Spotify fidelity (issue 31, item 5): playlist search, category
//! playlists, markets, `explicit`, recently-played paging, related
//! artists, a creator's follow of their playlist, and bare-array bodies.

use axum::http::{Method, StatusCode};
use catalog_core::markets::Markets;
use kernel::Clock as _;
use serde_json::{Value, json};

use crate::on_both_stores;
use crate::support::{TestApp, has_keys};

on_both_stores!(
    playlists_are_searched_and_followed_by_their_creator,
    category_playlists_hold_their_genre,
    markets_come_from_configuration,
    explicit_comes_from_the_advisory_tag,
    recently_played_pages_by_cursor_with_the_whole_total,
    related_artists_rank_sessions_above_sound,
    library_routes_take_a_bare_array_of_ids,
    playlists_hold_podcast_episodes,
    previews_are_thirty_seconds_of_the_track,
);

const ALL: &str = "user-library-read user-library-modify user-follow-read user-follow-modify playlist-read-private \
                   playlist-modify-private playlist-modify-public user-top-read user-read-recently-played";

/// The id of the demo track named `name`.
async fn track_named(app: &TestApp, token: &str, name: &str) -> Value {
    let found =
        app.get(&format!("/v1/search?q=track:%22{}%22&type=track", name.replace(' ', "%20")), token).await.json();
    let item = found["tracks"]["items"].as_array().unwrap().iter().find(|t| t["name"] == name).cloned();
    item.unwrap_or_else(|| panic!("no track {name}: {found}"))
}

async fn create(app: &TestApp, token: &str, body: &Value) -> String {
    let created = app.send_json(Method::POST, "/v1/me/playlists", token, body).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    created.json()["id"].as_str().unwrap().to_owned()
}

async fn playlists_are_searched_and_followed_by_their_creator(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let night =
        create(&app, &token, &json!({ "name": "Night Drive", "description": "late synths", "public": true })).await;
    let secret = create(&app, &token, &json!({ "name": "Secret Night", "public": false })).await;
    create(&app, &token, &json!({ "name": "Morning Run", "public": true })).await;

    // Only public playlists are found, by name or description, from the index.
    let found = app.get("/v1/search?q=night&type=playlist", &token).await.json();
    assert_eq!(found["playlists"]["total"], 1, "{found}");
    assert_eq!(found["playlists"]["items"][0]["id"], night.as_str());
    assert_eq!(found["playlists"]["items"][0]["type"], "playlist");
    let by_description = app.get("/v1/search?q=synth&type=playlist", &token).await.json();
    assert_eq!(by_description["playlists"]["items"][0]["id"], night.as_str());
    let partial = app.get("/v1/search?q=orni&type=playlist,track", &token).await.json();
    assert_eq!(partial["playlists"]["items"][0]["name"], "Morning Run");
    assert_eq!(app.get("/v1/search?q=night%20year:2020&type=playlist", &token).await.json()["playlists"]["total"], 0);
    // A rename is searchable at once; the old name is not.
    let renamed =
        app.send_json(Method::PUT, &format!("/v1/playlists/{night}"), &token, &json!({ "name": "Dusk Cruise" })).await;
    assert_eq!(renamed.status, StatusCode::OK);
    assert_eq!(app.get("/v1/search?q=cruise&type=playlist", &token).await.json()["playlists"]["total"], 1);
    assert_eq!(app.get("/v1/search?q=night&type=playlist", &token).await.json()["playlists"]["total"], 0);

    // The creator follows what they create; followers count others only.
    let me = app.get("/v1/me", &token).await.json()["id"].as_str().unwrap().to_owned();
    let contains = app.get(&format!("/v1/playlists/{night}/followers/contains?ids={me}"), &token).await.json();
    assert_eq!(contains, json!([true]));
    assert_eq!(app.get(&format!("/v1/playlists/{night}"), &token).await.json()["followers"]["total"], 0);
    assert_eq!(app.get("/v1/me/playlists", &token).await.json()["total"], 3);
    let other = app.user_token("grace", ALL).await;
    assert_eq!(
        app.request(Method::PUT, &format!("/v1/playlists/{night}/followers"), Some(&other), None).await.status,
        StatusCode::OK
    );
    assert_eq!(app.get(&format!("/v1/playlists/{night}"), &token).await.json()["followers"]["total"], 1);
    // The owner's unfollow (Spotify's delete) takes it off their list only.
    let gone = app.request(Method::DELETE, &format!("/v1/playlists/{secret}/followers"), Some(&token), None).await;
    assert_eq!(gone.status, StatusCode::OK);
    let mine = app.get("/v1/me/playlists", &token).await.json();
    assert_eq!(mine["total"], 2);
    assert!(mine["items"].as_array().unwrap().iter().all(|p| p["id"] != secret.as_str()), "{mine}");
    app.request(Method::DELETE, &format!("/v1/playlists/{night}/followers"), Some(&token), None).await;
    assert_eq!(app.get("/v1/me/playlists", &token).await.json()["total"], 1);
    assert_eq!(app.get("/v1/me/playlists", &other).await.json()["items"][0]["id"], night.as_str());
}

async fn category_playlists_hold_their_genre(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let electronic = track_named(&app, &token, "Dawn Oscillator").await;
    let jazz = track_named(&app, &token, "Blue Pulse").await;
    let jazz_two = track_named(&app, &token, "Ninety Beats").await;
    let synths = create(&app, &token, &json!({ "name": "Synths", "public": true })).await;
    let mixed = create(&app, &token, &json!({ "name": "Mixed", "public": true })).await;
    let club = create(&app, &token, &json!({ "name": "Jazz Club", "public": true })).await;
    let hidden = create(&app, &token, &json!({ "name": "Hidden Jazz", "public": false })).await;
    let add = |id: String, uris: Vec<&Value>| {
        let uris: Vec<String> = uris.iter().map(|t| t["uri"].as_str().unwrap().to_owned()).collect();
        let (app, token) = (&app, &token);
        async move {
            let added = app
                .send_json(Method::POST, &format!("/v1/playlists/{id}/items"), token, &json!({ "uris": uris }))
                .await;
            assert_eq!(added.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&added.body));
        }
    };
    add(synths.clone(), vec![&electronic]).await;
    add(mixed.clone(), vec![&electronic, &jazz]).await;
    add(club.clone(), vec![&jazz, &jazz_two]).await;
    add(hidden.clone(), vec![&jazz]).await;

    let ids = |body: &Value| -> Vec<String> {
        body["playlists"]["items"].as_array().unwrap().iter().map(|p| p["id"].as_str().unwrap().to_owned()).collect()
    };
    // Most of the genre's tracks first; private playlists never.
    let jazz_lists = app.get("/v1/browse/categories/jazz/playlists", &token).await.json();
    assert_eq!(ids(&jazz_lists), vec![club.clone(), mixed.clone()], "{jazz_lists}");
    assert_eq!(jazz_lists["playlists"]["total"], 2);
    assert_eq!(jazz_lists["message"], "Jazz");
    let electronic_lists = app.get("/v1/browse/categories/electronic/playlists", &token).await.json();
    let mut got = ids(&electronic_lists);
    got.sort();
    let mut want = vec![synths.clone(), mixed.clone()];
    want.sort();
    assert_eq!(got, want);
    assert_eq!(app.get("/v1/browse/categories/rock/playlists", &token).await.json()["playlists"]["total"], 0);
    app.get("/v1/browse/categories/polka/playlists", &token).await.spotify_error(404);

    // The operator's curated playlists come first, in their order.
    app.catalog.set_category_playlists("Jazz", std::slice::from_ref(&mixed)).await.unwrap();
    let curated = app.get("/v1/browse/categories/jazz/playlists", &token).await.json();
    assert_eq!(ids(&curated), vec![mixed.clone(), club.clone()], "{curated}");
    assert_eq!(curated["playlists"]["total"], 2);
    let for_rock = [club.clone(), synths.clone()];
    app.catalog.set_category_playlists("rock", &for_rock).await.unwrap();
    let rock = app.get("/v1/browse/categories/rock/playlists?limit=1&offset=1", &token).await.json();
    assert_eq!(ids(&rock), vec![synths.clone()], "curated order, paged");
    assert_eq!(rock["playlists"]["total"], 2);
    assert_eq!(app.catalog.curated_category_playlists("rock").await.unwrap(), for_rock.to_vec());
    // Refused, changing nothing: a private playlist, a repeat, an unknown category.
    let refused = app.catalog.set_category_playlists("rock", std::slice::from_ref(&hidden)).await;
    assert!(matches!(refused, Err(catalog_core::CatalogError::Invalid(_))), "{refused:?}");
    let twice = app.catalog.set_category_playlists("rock", &[club.clone(), club.clone()]).await;
    assert!(matches!(twice, Err(catalog_core::CatalogError::Invalid(_))), "{twice:?}");
    let unknown = app.catalog.set_category_playlists("polka", std::slice::from_ref(&club)).await;
    assert!(matches!(unknown, Err(catalog_core::CatalogError::NotFound(_))), "{unknown:?}");
    assert_eq!(app.catalog.curated_category_playlists("rock").await.unwrap(), for_rock.to_vec());
    // A curated playlist made private leaves the list; clearing empties it.
    let private =
        app.send_json(Method::PUT, &format!("/v1/playlists/{synths}"), &token, &json!({ "public": false })).await;
    assert_eq!(private.status, StatusCode::OK);
    assert_eq!(ids(&app.get("/v1/browse/categories/rock/playlists", &token).await.json()), vec![club.clone()]);
    app.catalog.set_category_playlists("rock", &[]).await.unwrap();
    assert_eq!(app.get("/v1/browse/categories/rock/playlists", &token).await.json()["playlists"]["total"], 0);
}

async fn markets_come_from_configuration(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let track = track_named(&app, &token, "Dawn Oscillator").await;
    let id = track["id"].as_str().unwrap().to_owned();
    // The default: one market.
    assert_eq!(app.get("/v1/markets", &token).await.json()["markets"], json!(["US"]));
    assert_eq!(track["available_markets"], json!(["US"]));
    assert_eq!(app.get(&format!("/v1/tracks/{id}?market=DE"), &token).await.json()["is_playable"], false);

    let app = app.with_markets(Markets::parse("de,FR").unwrap());
    let token = app.token_for("ada", ALL).await;
    assert_eq!(app.get("/v1/markets", &token).await.json()["markets"], json!(["DE", "FR"]));
    let in_de = app.get(&format!("/v1/tracks/{id}?market=DE"), &token).await.json();
    assert_eq!(in_de["available_markets"], json!(["DE", "FR"]));
    assert_eq!(in_de["album"]["available_markets"], json!(["DE", "FR"]));
    assert_eq!(in_de["is_playable"], true);
    assert!(in_de.get("restrictions").is_none(), "{in_de}");
    let in_us = app.get(&format!("/v1/tracks/{id}?market=us"), &token).await.json();
    assert_eq!(in_us["is_playable"], false);
    assert_eq!(in_us["restrictions"]["reason"], "market");
    assert_eq!(in_us["album"]["is_playable"], false);
    // Search and album pages follow the market too.
    let searched = app.get("/v1/search?q=dawn&type=track&market=US", &token).await.json();
    assert_eq!(searched["tracks"]["items"][0]["is_playable"], false);
    let album = track["album"]["id"].as_str().unwrap();
    let tracks = app.get(&format!("/v1/albums/{album}/tracks?market=FR"), &token).await.json();
    assert_eq!(tracks["items"][0]["is_playable"], true);
    // A user created under this configuration lives in its first market.
    let fresh = app.user_token("linus", ALL).await;
    assert_eq!(app.get("/v1/me", &fresh).await.json()["country"], "DE");
    assert_eq!(app.get(&format!("/v1/tracks/{id}?market=from_token"), &fresh).await.json()["is_playable"], true);
    app.get(&format!("/v1/tracks/{id}?market=DEU"), &token).await.spotify_error(400);
}

async fn explicit_comes_from_the_advisory_tag(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let explicit = track_named(&app, &token, catalog_core::synth::EXPLICIT_DEMO_TITLE).await;
    assert_eq!(explicit["explicit"], true, "{explicit}");
    let clean = track_named(&app, &token, "Dawn Oscillator").await;
    assert_eq!(clean["explicit"], false);
    // The advisory survives rescans and reaches every shape of the track.
    let album = explicit["album"]["id"].as_str().unwrap();
    let listed = app.get(&format!("/v1/albums/{album}/tracks"), &token).await.json();
    let flags: Vec<(String, bool)> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t["explicit"].as_bool().unwrap()))
        .collect();
    assert!(flags.contains(&(catalog_core::synth::EXPLICIT_DEMO_TITLE.to_owned(), true)), "{flags:?}");
    assert_eq!(flags.iter().filter(|(_, e)| *e).count(), 1, "{flags:?}");
}

async fn recently_played_pages_by_cursor_with_the_whole_total(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let ids = app.track_ids(&token).await;
    let me = app.get("/v1/me", &token).await.json()["id"].as_str().unwrap().to_owned();
    let mut at = Vec::new();
    for id in ids.iter().take(5) {
        app.clock.advance_millis(60_000);
        app.catalog.record_play(&me, id, None).await.unwrap();
        at.push(app.clock.now().as_millis());
    }
    let played = |body: &Value| -> Vec<String> {
        body["items"].as_array().unwrap().iter().map(|i| i["track"]["id"].as_str().unwrap().to_owned()).collect()
    };
    let first = app.get("/v1/me/player/recently-played?limit=2", &token).await.json();
    has_keys(&first, &["href", "items", "limit", "next", "cursors", "total"]);
    assert_eq!(first["total"], 5, "the whole history, not the page");
    assert_eq!(played(&first), vec![ids[4].clone(), ids[3].clone()]);
    assert_eq!(first["cursors"]["after"], at[4].to_string());
    assert_eq!(first["cursors"]["before"], at[3].to_string());
    let next = first["next"].as_str().unwrap();
    assert!(next.ends_with(&format!("before={}&limit=2", at[3])), "{next}");
    let second = app.get(next.trim_start_matches(crate::support::BASE), &token).await.json();
    assert_eq!(played(&second), vec![ids[2].clone(), ids[1].clone()]);
    assert_eq!(second["total"], 3, "plays before the cursor");
    let last = app.get(second["next"].as_str().unwrap().trim_start_matches(crate::support::BASE), &token).await.json();
    assert_eq!(played(&last), vec![ids[0].clone()]);
    assert_eq!(last["next"], Value::Null, "nothing older");
    // `after` reads the plays right after the cursor, newest first.
    let after = app.get(&format!("/v1/me/player/recently-played?limit=2&after={}", at[1]), &token).await.json();
    assert_eq!(played(&after), vec![ids[3].clone(), ids[2].clone()]);
    assert_eq!(after["total"], 3);
    app.get("/v1/me/player/recently-played?after=1&before=2", &token).await.spotify_error(400);
}

async fn related_artists_rank_sessions_above_sound(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let sine = track_named(&app, &token, "Dawn Oscillator").await;
    let trio = track_named(&app, &token, "Ninety Beats").await;
    let harmonics = track_named(&app, &token, "Fifth Avenue").await;
    let artist = |t: &Value| t["artists"][0]["id"].as_str().unwrap().to_owned();
    let (sine_id, trio_id, harmonics_id) = (artist(&sine), artist(&trio), artist(&harmonics));
    let related = |body: Value| -> Vec<String> {
        body["artists"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|a| a["id"].as_str().unwrap().to_owned())
            .collect()
    };
    // The demo artists share no genre: with no plays, sound alone relates them.
    let by_sound = related(app.get(&format!("/v1/artists/{sine_id}/related-artists"), &token).await.json());
    assert_eq!(by_sound.len(), 2, "{by_sound:?}");
    assert!(!by_sound.contains(&sine_id));
    // A session of the Sine Collective beside the Metronome Trio, twice:
    // the trio ranks first for this listener, whatever the sound says.
    let me = app.get("/v1/me", &token).await.json()["id"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        app.clock.advance_millis(3 * 3_600_000);
        app.catalog.record_play(&me, sine["id"].as_str().unwrap(), None).await.unwrap();
        app.clock.advance_millis(4 * 60_000);
        app.catalog.record_play(&me, trio["id"].as_str().unwrap(), None).await.unwrap();
    }
    // (Hours passed: a fresh token.)
    let token = app.token_for("ada", ALL).await;
    let for_ada = related(app.get(&format!("/v1/artists/{sine_id}/related-artists"), &token).await.json());
    assert_eq!(for_ada, vec![trio_id.clone(), harmonics_id.clone()]);
    // Another listener's sessions are theirs alone.
    let other = app.user_token("grace", ALL).await;
    assert_eq!(related(app.get(&format!("/v1/artists/{sine_id}/related-artists"), &other).await.json()), by_sound);
    // Two Harmonics sessions with the collective outrank the trio's.
    for _ in 0..3 {
        app.clock.advance_millis(3 * 3_600_000);
        app.catalog.record_play(&me, harmonics["id"].as_str().unwrap(), None).await.unwrap();
        app.clock.advance_millis(60_000);
        app.catalog.record_play(&me, sine["id"].as_str().unwrap(), None).await.unwrap();
    }
    let token = app.token_for("ada", ALL).await;
    let again = related(app.get(&format!("/v1/artists/{sine_id}/related-artists"), &token).await.json());
    assert_eq!(again, vec![harmonics_id, trio_id]);
}

async fn library_routes_take_a_bare_array_of_ids(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let ids = app.track_ids(&token).await;
    let body = |list: &[&String]| ("application/json", serde_json::to_vec(&list).unwrap());
    let saved = app.request(Method::PUT, "/v1/me/tracks", Some(&token), Some(body(&[&ids[0], &ids[1]]))).await;
    assert_eq!(saved.status, StatusCode::OK, "{}", String::from_utf8_lossy(&saved.body));
    let contains =
        app.get(&format!("/v1/me/tracks/contains?ids={},{},{}", ids[0], ids[1], ids[2]), &token).await.json();
    assert_eq!(contains, json!([true, true, false]));
    let removed = app.request(Method::DELETE, "/v1/me/tracks", Some(&token), Some(body(&[&ids[0]]))).await;
    assert_eq!(removed.status, StatusCode::OK);
    assert_eq!(app.get("/v1/me/tracks", &token).await.json()["total"], 1);
    // A bare array of something else is a clear 400, and nothing changes.
    let bad =
        app.request(Method::PUT, "/v1/me/tracks", Some(&token), Some(("application/json", b"[1, 2]".to_vec()))).await;
    bad.spotify_error(400);
    let empty =
        app.request(Method::PUT, "/v1/me/albums", Some(&token), Some(("application/json", b"[]".to_vec()))).await;
    empty.spotify_error(400);
    assert_eq!(app.get("/v1/me/tracks", &token).await.json()["total"], 1);
}

async fn playlists_hold_podcast_episodes(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let show = app.get("/v1/search?q=signal&type=show", &token).await.json()["shows"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let episodes = app.get(&format!("/v1/shows/{show}/episodes"), &token).await.json();
    let episode = episodes["items"][0]["id"].as_str().unwrap().to_owned();
    let book = app.get("/v1/search?q=engine&type=audiobook", &token).await.json()["audiobooks"]["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let chapter = app.get(&format!("/v1/audiobooks/{book}/chapters"), &token).await.json()["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let track = track_named(&app, &token, "Dawn Oscillator").await;
    let list = create(&app, &token, &json!({ "name": "Mixed media", "public": false })).await;
    let items_url = format!("/v1/playlists/{list}/items");
    let uris = json!({ "uris": [track["uri"], format!("spotify:episode:{episode}")] });
    let added = app.send_json(Method::POST, &items_url, &token, &uris).await;
    assert_eq!(added.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&added.body));

    // The episode is listed as Spotify lists it: `track` holds the full
    // episode object, flagged `episode: true`.
    let page = app.get(&items_url, &token).await.json();
    assert_eq!(page["total"], 2);
    let (first, second) = (&page["items"][0]["track"], &page["items"][1]["track"]);
    assert_eq!(
        (first["type"].as_str(), first["track"].as_bool(), first["episode"].as_bool()),
        (Some("track"), Some(true), Some(false))
    );
    assert_eq!(second["type"], "episode");
    assert_eq!(second["id"], episode.as_str());
    assert_eq!(second["uri"], format!("spotify:episode:{episode}"));
    assert_eq!((second["track"].as_bool(), second["episode"].as_bool()), (Some(false), Some(true)));
    assert_eq!(second["show"]["id"], show.as_str());
    assert_eq!(page["items"][1]["item"], page["items"][1]["track"]);
    assert_eq!(app.get(&format!("/v1/playlists/{list}"), &token).await.json()["tracks"]["total"], 2);

    // Chapters, other kinds and unknown episodes are refused; nothing changes.
    for uri in [
        format!("spotify:episode:{chapter}"),
        format!("spotify:show:{show}"),
        "spotify:episode:0000000000000000000000".to_owned(),
    ] {
        let refused = app.send_json(Method::POST, &items_url, &token, &json!({ "uris": [uri] })).await;
        refused.spotify_error(400);
    }
    assert_eq!(app.get(&items_url, &token).await.json()["total"], 2);

    // Removed by its URI, and a replacement may hold episodes alone.
    let body = json!({ "items": [{ "uri": format!("spotify:episode:{episode}") }] });
    let removed = app.send_json(Method::DELETE, &items_url, &token, &body).await;
    assert_eq!(removed.status, StatusCode::OK, "{}", String::from_utf8_lossy(&removed.body));
    let left = app.get(&items_url, &token).await.json();
    assert_eq!(left["total"], 1);
    assert_eq!(left["items"][0]["track"]["type"], "track");
    let second_episode = episodes["items"][1]["id"].as_str().unwrap();
    let replaced = app
        .send_json(Method::PUT, &items_url, &token, &json!({ "uris": [format!("spotify:episode:{second_episode}")] }))
        .await;
    assert_eq!(replaced.status, StatusCode::OK, "{}", String::from_utf8_lossy(&replaced.body));
    let now = app.get(&items_url, &token).await.json();
    assert_eq!(now["total"], 1);
    assert_eq!(now["items"][0]["track"]["id"], second_episode);
}

async fn previews_are_thirty_seconds_of_the_track(app: TestApp) {
    // A 40-second track: its preview lasts 30 seconds and ends with the track.
    let spec = catalog_core::synth::SongSpec { seconds: 40.0, ..catalog_core::synth::SongSpec::demo(0) };
    let path = app.library().join("Long Player/Long Album/01 Long Song.wav");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tags =
        [("INAM", "Long Song".to_owned()), ("IART", "Long Player".to_owned()), ("IPRD", "Long Album".to_owned())];
    catalog_core::synth::write_wav(&path, &catalog_core::synth::song(&spec), spec.rate, &tags).unwrap();
    app.catalog.scan(&app.library(), |_| {}).await.unwrap();
    let token = app.user_token("ada", ALL).await;
    let track = track_named(&app, &token, "Long Song").await;
    let url = track["preview_url"].as_str().unwrap_or_else(|| panic!("no preview: {track}")).to_owned();
    assert!(
        url.starts_with(&format!("{}/preview/{}?signature=", crate::support::BASE, track["id"].as_str().unwrap())),
        "{url}"
    );
    // The same link in every answer (clients cache it).
    let again = app.get(&format!("/v1/tracks/{}", track["id"].as_str().unwrap()), &token).await.json();
    assert_eq!(again["preview_url"], url.as_str());

    // No token needed (an <audio> element plays it); a WAV cut with its own header.
    let preview = app.request(Method::GET, url.trim_start_matches(crate::support::BASE), None, None).await;
    assert_eq!(preview.status, StatusCode::OK);
    assert_eq!(preview.headers["content-type"], "audio/wav");
    let layout = catalog_core::preview::wav_layout(&mut std::io::Cursor::new(preview.body.to_vec())).unwrap();
    // 22,050 Hz mono 16-bit: 44,100 bytes a second, 30 seconds.
    assert_eq!((layout.byte_rate, layout.data_len), (44_100, 1_323_000));
    assert_eq!(preview.body.len() as u64, layout.data_offset + layout.data_len);
    let file = std::fs::read(&path).unwrap();
    // A third in (13.3 s) would run past the end, so the window is the last 30 seconds.
    let start = 44 + 10_000 * 44_100 / 1_000;
    let found = file.windows(100).position(|w| w == &preview.body[44..144]);
    assert_eq!(found, Some(start), "the window starts at 10 s (duration {})", track["duration_ms"]);
    // A changed signature, or another track's, is refused.
    let forged = format!("{}0", url.trim_start_matches(crate::support::BASE));
    app.request(Method::GET, &forged, None, None).await.spotify_error(403);
    let other = track_named(&app, &token, "Dawn Oscillator").await;
    let other_url = other["preview_url"].as_str().unwrap().trim_start_matches(crate::support::BASE).to_owned();
    let swapped = other_url.replace(other["id"].as_str().unwrap(), track["id"].as_str().unwrap());
    app.request(Method::GET, &swapped, None, None).await.spotify_error(403);
    // A track shorter than 30 seconds previews whole.
    let short = app.request(Method::GET, &other_url, None, None).await;
    let layout = catalog_core::preview::wav_layout(&mut std::io::Cursor::new(short.body.to_vec())).unwrap();
    assert_eq!(layout.data_len, 4 * 44_100);
}
