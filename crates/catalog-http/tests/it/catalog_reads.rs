use axum::http::StatusCode;
use serde_json::Value;

use crate::on_both_stores;
use crate::support::{ALBUM_KEYS, ARTIST_KEYS, BASE, PAGING_KEYS, TRACK_KEYS, TestApp, has_keys};

on_both_stores!(
    objects_paging_and_id_limits,
    search_with_field_filters,
    search_index_follows_rescans,
    audio_features_analysis_and_recommendations
);

async fn objects_paging_and_id_limits(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let ids = app.track_ids(&token).await;
    assert_eq!(ids.len(), 8);
    assert!(ids.iter().all(|id| id.len() == 22 && id.chars().all(|c| c.is_ascii_alphanumeric())));

    // A full track: every key of Spotify's schema, links on our origin.
    let track = app.get(&format!("/v1/tracks/{}", ids[0]), &token).await;
    assert_eq!(track.status, StatusCode::OK);
    let track = track.json();
    has_keys(&track, TRACK_KEYS);
    assert_eq!(track["uri"], format!("spotify:track:{}", ids[0]));
    assert_eq!(track["href"], format!("{BASE}/v1/tracks/{}", ids[0]));
    assert!(track["external_urls"]["spotify"].as_str().unwrap().starts_with(BASE));
    assert!(track["duration_ms"].as_u64().unwrap() >= 3900);
    has_keys(
        &track["album"],
        &["album_type", "artists", "images", "release_date", "release_date_precision", "total_tracks"],
    );

    // Several ids keep their order, with null for unknown ones; a trailing slash is the same route.
    let unknown = "0000000000000000000000";
    let several = app.get(&format!("/v1/tracks/?ids={},{unknown},{}", ids[1], ids[2]), &token).await.json();
    let list = several["tracks"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["id"], ids[1].as_str());
    assert!(list[1].is_null());
    let too_many = vec![ids[0].clone(); 51].join(",");
    app.get(&format!("/v1/tracks?ids={too_many}"), &token).await.spotify_error(400);
    app.get(&format!("/v1/tracks/{unknown}"), &token).await.spotify_error(404);
    app.get("/v1/tracks/not-an-id!", &token).await.spotify_error(400);

    // The album with its tracks paged; the album's artist and their albums.
    // "First Light" has three tracks.
    let dawn = app.get("/v1/search?q=dawn&type=track", &token).await.json();
    let album_id = dawn["tracks"]["items"][0]["album"]["id"].as_str().unwrap().to_owned();
    let album = app.get(&format!("/v1/albums/{album_id}"), &token).await.json();
    has_keys(&album, ALBUM_KEYS);
    has_keys(&album["tracks"], PAGING_KEYS);
    assert_eq!(album["tracks"]["total"], album["total_tracks"]);
    let albums = vec![album_id.clone(); 21].join(",");
    app.get(&format!("/v1/albums?ids={albums}"), &token).await.spotify_error(400);
    let page = app.get(&format!("/v1/albums/{album_id}/tracks?limit=1&offset=1"), &token).await.json();
    has_keys(&page, PAGING_KEYS);
    assert_eq!(page["items"].as_array().unwrap().len(), 1);
    assert_eq!(page["limit"], 1);
    assert_eq!(page["offset"], 1);
    assert_eq!(page["previous"], format!("{BASE}/v1/albums/{album_id}/tracks?offset=0&limit=1"));
    assert_eq!(page["next"], format!("{BASE}/v1/albums/{album_id}/tracks?offset=2&limit=1"));
    let last = app.get(&format!("/v1/albums/{album_id}/tracks?limit=1&offset=2"), &token).await.json();
    assert!(last["next"].is_null());
    app.get(&format!("/v1/albums/{album_id}/tracks?limit=51"), &token).await.spotify_error(400);

    let artist_id = track["artists"][0]["id"].as_str().unwrap().to_owned();
    let artist = app.get(&format!("/v1/artists/{artist_id}"), &token).await.json();
    has_keys(&artist, ARTIST_KEYS);
    assert!(artist["followers"]["href"].is_null());
    let artist_albums = app.get(&format!("/v1/artists/{artist_id}/albums"), &token).await.json();
    assert_eq!(artist_albums["items"][0]["album_group"], "album");
    let top = app.get(&format!("/v1/artists/{artist_id}/top-tracks?market=US"), &token).await.json();
    assert!(!top["tracks"].as_array().unwrap().is_empty());
    let several_artists = app.get(&format!("/v1/artists?ids={artist_id}"), &token).await.json();
    assert_eq!(several_artists["artists"][0]["id"], artist_id.as_str());
    let related = app.get(&format!("/v1/artists/{artist_id}/related-artists"), &token).await;
    assert_eq!(related.status, StatusCode::OK);

    // Browse, genres and markets.
    let releases = app.get("/v1/browse/new-releases?limit=2", &token).await.json();
    has_keys(&releases["albums"], PAGING_KEYS);
    assert_eq!(releases["albums"]["total"], 3);
    assert_eq!(releases["albums"]["items"][0]["release_date"], "2024");
    let genres = app.get("/v1/recommendations/available-genre-seeds", &token).await.json();
    assert_eq!(genres["genres"], serde_json::json!(["electronic", "jazz", "rock"]));
    let categories = app.get("/v1/browse/categories", &token).await.json();
    assert_eq!(categories["categories"]["items"][0]["id"], "electronic");
    assert_eq!(app.get("/v1/markets", &token).await.json()["markets"], serde_json::json!(["US"]));
    assert_eq!(app.get("/v1/shows?ids=abc,def", &token).await.json()["shows"], serde_json::json!([null, null]));
}

async fn search_with_field_filters(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let names = |body: &Value, key: &str| -> Vec<String> {
        body[key]["items"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap().to_owned()).collect()
    };
    let body = app.get("/v1/search?q=dawn&type=track,album,artist,playlist", &token).await.json();
    assert_eq!(names(&body, "tracks"), vec!["Dawn Oscillator"]);
    for key in ["tracks", "albums", "artists", "playlists"] {
        has_keys(&body[key], PAGING_KEYS);
    }
    let body = app.get("/v1/search?q=artist:%22the%20harmonics%22&type=track&limit=10", &token).await.json();
    assert_eq!(body["tracks"]["total"], 3);
    let body = app.get("/v1/search?q=year:2020-2022&type=album", &token).await.json();
    assert_eq!(names(&body, "albums"), vec!["Overtones", "Steady State"]);
    let body = app.get("/v1/search?q=genre:jazz&type=artist", &token).await.json();
    assert_eq!(names(&body, "artists"), vec!["Metronome Trio"]);
    let body = app.get("/v1/search?q=album:overtones%20minor&type=track", &token).await.json();
    assert_eq!(names(&body, "tracks"), vec!["Minor Detour"]);
    // Paging keeps the query and wraps the next page the same way.
    let body = app.get("/v1/search?q=e&type=track&limit=2", &token).await.json();
    let next = body["tracks"]["next"].as_str().unwrap().to_owned();
    assert!(next.contains("q=e") && next.contains("type=track") && next.contains("offset=2"), "{next}");
    let page2 = app.get(next.trim_start_matches(BASE), &token).await.json();
    assert_eq!(page2["tracks"]["offset"], 2);
    app.get("/v1/search?q=x&type=nope", &token).await.spotify_error(400);
    app.get("/v1/search?type=track", &token).await.spotify_error(400);
}

/// Search runs on a full-text index (FTS5 trigram tables on SQLite, pg_trgm
/// GIN indexes on PostgreSQL) that stays in step with rescans, and keeps
/// substring matching inside words.
async fn search_index_follows_rescans(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let names = |body: &Value, key: &str| -> Vec<String> {
        body[key]["items"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap().to_owned()).collect()
    };
    let db = app.catalog.db().clone();
    match &db {
        platform::Db::Sqlite(pool) => {
            let plan: Vec<(i64, i64, i64, String)> =
                sqlx::query_as(r#"EXPLAIN QUERY PLAN SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH '"scill"'"#)
                    .fetch_all(pool)
                    .await
                    .unwrap();
            assert!(plan.iter().any(|row| row.3.contains("VIRTUAL TABLE INDEX")), "{plan:?}");
            // Tracks carry their artists' names, so an `artist:` filter is a
            // column of the same index.
            let plan: Vec<(i64, i64, i64, String)> = sqlx::query_as(
                r#"EXPLAIN QUERY PLAN SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH 'artist_text : "tronom"'"#,
            )
            .fetch_all(pool)
            .await
            .unwrap();
            assert!(plan.iter().any(|row| row.3.contains("VIRTUAL TABLE INDEX")), "{plan:?}");
        }
        platform::Db::Postgres(pool) => {
            let indexes: Vec<(String,)> = sqlx::query_as(
                "SELECT indexname::text FROM pg_indexes WHERE indexdef LIKE '%gin_trgm_ops%' ORDER BY 1",
            )
            .fetch_all(pool)
            .await
            .unwrap();
            let names: Vec<&str> = indexes.iter().map(|(n,)| n.as_str()).collect();
            assert_eq!(
                names,
                [
                    "albums_search_trgm",
                    "artists_name_trgm",
                    "episodes_search_trgm",
                    "playlists_search_trgm",
                    "shows_search_trgm",
                    "tracks_artist_trgm",
                    "tracks_search_trgm"
                ],
                "{}",
                app.backend
            );
        }
    }
    // Inside a word, across the name, album and artist.
    let body = app.get("/v1/search?q=scill%20light%20sine&type=track,album,artist", &token).await.json();
    assert_eq!(names(&body, "tracks"), vec!["Dawn Oscillator"]);
    let body = app.get("/v1/search?q=armon&type=artist", &token).await.json();
    assert_eq!(names(&body, "artists"), vec!["The Harmonics"]);
    let body = app.get("/v1/search?q=artist:tronom%20ninety&type=track", &token).await.json();
    assert_eq!(names(&body, "tracks"), vec!["Ninety Beats"]);

    // A file that is gone leaves the index with its track.
    let library = app.library();
    let gone = walk(&library).into_iter().find(|p| p.to_string_lossy().contains("Dawn Oscillator")).unwrap();
    std::fs::remove_file(&gone).unwrap();
    let summary = app.catalog.scan(&library, |_| {}).await.unwrap();
    assert_eq!(summary.removed, 1);
    let body = app.get("/v1/search?q=oscillator&type=track", &token).await.json();
    assert_eq!(body["tracks"]["total"], 0, "{body}");
    // A new file (a copy of "Blue Pulse", tags and all) enters it.
    let source = walk(&library).into_iter().find(|p| p.to_string_lossy().contains("Blue Pulse")).unwrap();
    std::fs::copy(&source, gone.with_file_name("09 Copy.wav")).unwrap();
    assert_eq!(app.catalog.scan(&library, |_| {}).await.unwrap().added, 1);
    let body = app.get("/v1/search?q=lue%20puls&type=track", &token).await.json();
    assert_eq!(body["tracks"]["total"], 2, "{body}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out.sort();
    out
}

async fn audio_features_analysis_and_recommendations(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let ids = app.track_ids(&token).await;
    // "Ninety Beats": 90 BPM in F major (tonic MIDI 65).
    let body = app.get("/v1/search?q=track:%22ninety%20beats%22&type=track", &token).await.json();
    let id = body["tracks"]["items"][0]["id"].as_str().unwrap().to_owned();
    let features = app.get(&format!("/v1/audio-features/{id}"), &token).await.json();
    has_keys(
        &features,
        &[
            "acousticness",
            "analysis_url",
            "danceability",
            "duration_ms",
            "energy",
            "id",
            "instrumentalness",
            "key",
            "liveness",
            "loudness",
            "mode",
            "speechiness",
            "tempo",
            "time_signature",
            "track_href",
            "type",
            "uri",
            "valence",
        ],
    );
    assert!((features["tempo"].as_f64().unwrap() - 90.0).abs() < 2.0, "{features}");
    assert_eq!(features["key"], 5, "{features}");
    assert_eq!(features["mode"], 1);
    let several = app.get(&format!("/v1/audio-features/?ids={},{}", ids[0], ids[1]), &token).await.json();
    assert_eq!(several["audio_features"].as_array().unwrap().len(), 2);
    let hundred_one = vec![ids[0].clone(); 101].join(",");
    app.get(&format!("/v1/audio-features?ids={hundred_one}"), &token).await.spotify_error(400);

    let analysis = app.get(&format!("/v1/audio-analysis/{id}"), &token).await.json();
    has_keys(&analysis, &["meta", "track", "bars", "beats", "sections", "segments", "tatums"]);
    has_keys(&analysis["track"], &["num_samples", "duration", "tempo", "key", "mode", "codestring", "rhythm_version"]);
    let beats = analysis["beats"].as_array().unwrap();
    assert!(beats.len() >= 5, "{}", beats.len());
    let gap = beats[2]["start"].as_f64().unwrap() - beats[1]["start"].as_f64().unwrap();
    assert!((gap - 60.0 / 90.0).abs() < 0.03, "{gap}");
    assert_eq!(analysis["segments"][0]["pitches"].as_array().unwrap().len(), 12);

    // Recommendations honour min/max bounds and leave the seed out.
    let recs = app.get(&format!("/v1/recommendations?seed_tracks={id}&min_tempo=100&limit=10"), &token).await.json();
    let tracks = recs["tracks"].as_array().unwrap();
    assert!(!tracks.is_empty());
    assert!(tracks.iter().all(|t| t["id"] != id.as_str()));
    for t in tracks {
        let f = app.get(&format!("/v1/audio-features/{}", t["id"].as_str().unwrap()), &token).await.json();
        assert!(f["tempo"].as_f64().unwrap() >= 100.0, "{f}");
    }
    has_keys(&recs["seeds"][0], &["afterFilteringSize", "afterRelinkingSize", "href", "id", "initialPoolSize", "type"]);
    let by_genre = app.get("/v1/recommendations?seed_genres=jazz&target_tempo=90&limit=1", &token).await.json();
    assert_eq!(by_genre["tracks"].as_array().unwrap().len(), 1);
    app.get("/v1/recommendations", &token).await.spotify_error(400);
}

on_both_stores!(search_pages_many_matches_in_name_order);

/// A word matching many items (more than the point where SQLite pages by
/// walking the name index) pages in name order with the right total, alone
/// and with a filter; a rare word and no match page as before.
async fn search_pages_many_matches_in_name_order(app: TestApp) {
    use catalog_core::store::{AlbumUpsert, TrackUpsert};
    let n: u64 = 1_100;
    let artist = ("Many Walkers".to_owned(), catalog_core::ids::derived_id("artist", "many walkers"));
    let walk = |k: u64| TrackUpsert {
        track_id: catalog_core::ids::derived_id("track", &format!("walk-{k}")),
        album: AlbumUpsert {
            id: catalog_core::ids::derived_id("album", "walks"),
            key: "many walkers\u{1f}walks".to_owned(),
            name: "Walks".to_owned(),
            album_type: "album".to_owned(),
            release_date: "2001".to_owned(),
            release_date_precision: "year".to_owned(),
            label: None,
            genres: Vec::new(),
            artists: vec![(artist.1.clone(), artist.0.clone())],
            image: None,
        },
        artists: vec![(artist.1.clone(), artist.0.clone())],
        name: format!("Walk {k:04}"),
        disc_number: 1,
        track_number: u32::try_from(k).unwrap(),
        duration_ms: 1_000,
        explicit: false,
        isrc: None,
        genre: None,
        year: Some(2001),
        path: format!("/nowhere/walk-{k}.wav"),
        file_size: 1,
        file_mtime: 0,
        mime: "audio/wav".to_owned(),
        features: None,
        analysis: None,
        now: crate::support::START,
    };
    for i in 0..n {
        // Inserted out of name order, so the order comes from the query.
        app.catalog.store().upsert_track(&walk((i * 7) % n)).await.unwrap();
    }
    let token = app.user_token("ada", "").await;
    let names = |body: &Value| -> Vec<String> {
        body["tracks"]["items"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap().to_owned()).collect()
    };
    for q in ["walk", "walk%20many", "walk%20artist:walkers", "alk%20year:2001"] {
        let body = app.get(&format!("/v1/search?q={q}&type=track&limit=20&offset=1000"), &token).await.json();
        assert_eq!(body["tracks"]["total"], n, "{q}: {body}");
        let expected: Vec<String> = (1000..1020).map(|k| format!("Walk {k:04}")).collect();
        assert_eq!(names(&body), expected, "{q}");
        let last = app.get(&format!("/v1/search?q={q}&type=track&limit=20&offset=1090"), &token).await.json();
        assert_eq!(names(&last).len(), 10, "{q}");
        assert!(last["tracks"]["next"].is_null(), "{q}");
    }
    let past = app.get("/v1/search?q=walk&type=track&offset=1100&limit=5", &token).await.json();
    assert_eq!((past["tracks"]["total"].as_u64(), names(&past).len()), (Some(n), 0));
    let rare = app.get("/v1/search?q=walk%201099&type=track", &token).await.json();
    assert_eq!(names(&rare), ["Walk 1099"]);
    let none = app.get("/v1/search?q=nowalkhere&type=track,album,artist", &token).await.json();
    assert_eq!(none["tracks"]["total"], 0);
    assert_eq!(none["albums"]["total"], 0);
    // The demo's tracks still search as before alongside.
    let dawn = app.get("/v1/search?q=dawn&type=track", &token).await.json();
    assert_eq!(names(&dawn), ["Dawn Oscillator"]);
    // A track of two artists: an `artist:` filter matches either name, but
    // not a phrase spanning the two.
    let duet = TrackUpsert {
        track_id: catalog_core::ids::derived_id("track", "duet"),
        name: "Duet".to_owned(),
        path: "/nowhere/duet.wav".to_owned(),
        artists: vec![
            (catalog_core::ids::derived_id("artist", "ada north"), "Ada North".to_owned()),
            (catalog_core::ids::derived_id("artist", "wind band"), "Wind Band".to_owned()),
        ],
        ..walk(0)
    };
    app.catalog.store().upsert_track(&duet).await.unwrap();
    for (q, total) in [
        ("artist:north", 1),
        ("artist:%22wind%20band%22", 1),
        ("artist:%22north%20wind%22", 0),
        ("duet%20artist:walkers", 0),
    ] {
        let body = app.get(&format!("/v1/search?q={q}&type=track"), &token).await.json();
        assert_eq!(body["tracks"]["total"], total, "{q}: {body}");
    }
}
