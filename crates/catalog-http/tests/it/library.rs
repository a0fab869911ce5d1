use axum::http::{Method, StatusCode};
use base64::Engine as _;
use serde_json::json;

use crate::on_both_stores;
use crate::support::{PAGING_KEYS, TestApp, has_keys};

on_both_stores!(saved_items_on_old_and_new_routes, follows_history_and_top_items, playlists_edit_reorder_and_cover);

const ALL: &str = "user-library-read user-library-modify user-follow-read user-follow-modify playlist-read-private \
                   playlist-modify-private playlist-modify-public ugc-image-upload user-top-read user-read-recently-played";

async fn saved_items_on_old_and_new_routes(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let ids = app.track_ids(&token).await;
    // tekore's route: PUT /me/tracks?ids=
    let saved = app.request(Method::PUT, &format!("/v1/me/tracks?ids={},{}", ids[0], ids[1]), Some(&token), None).await;
    assert_eq!(saved.status, StatusCode::OK);
    // The JSON body form.
    let body_save = app.send_json(Method::PUT, "/v1/me/tracks", &token, &json!({ "ids": [ids[2]] })).await;
    assert_eq!(body_save.status, StatusCode::OK);
    let contains = app.get(&format!("/v1/me/tracks/contains?ids={},{}", ids[0], ids[3]), &token).await.json();
    assert_eq!(contains, json!([true, false]));
    let page = app.get("/v1/me/tracks?limit=2", &token).await.json();
    has_keys(&page, PAGING_KEYS);
    assert_eq!(page["total"], 3);
    has_keys(&page["items"][0], &["added_at", "track"]);
    assert!(page["items"][0]["added_at"].as_str().unwrap().ends_with('Z'));
    // spotipy's route: /me/library?uris=
    let uri = format!("spotify:track:{}", ids[3]);
    assert_eq!(
        app.request(Method::PUT, &format!("/v1/me/library?uris={uri}"), Some(&token), None).await.status,
        StatusCode::OK
    );
    let both = app.get(&format!("/v1/me/library/contains?uris={uri},spotify:track:{}", ids[4]), &token).await.json();
    assert_eq!(both, json!([true, false]));
    assert_eq!(
        app.request(Method::DELETE, &format!("/v1/me/library?uris={uri}"), Some(&token), None).await.status,
        StatusCode::OK
    );
    assert_eq!(app.get(&format!("/v1/me/tracks/contains?ids={}", ids[3]), &token).await.json(), json!([false]));
    app.request(Method::DELETE, &format!("/v1/me/tracks?ids={}", ids[0]), Some(&token), None).await;
    assert_eq!(app.get("/v1/me/tracks", &token).await.json()["total"], 2);
    // Albums, and the 20-id query limit.
    let album =
        app.get(&format!("/v1/tracks/{}", ids[0]), &token).await.json()["album"]["id"].as_str().unwrap().to_owned();
    app.request(Method::PUT, &format!("/v1/me/albums?ids={album}"), Some(&token), None).await;
    let albums = app.get("/v1/me/albums", &token).await.json();
    assert_eq!(albums["items"][0]["album"]["id"], album.as_str());
    let twenty_one = vec![album.clone(); 21].join(",");
    app.get(&format!("/v1/me/albums/contains?ids={twenty_one}"), &token).await.spotify_error(400);
    // Unknown ids are refused; empty kinds page empty.
    app.request(Method::PUT, "/v1/me/tracks?ids=0000000000000000000000", Some(&token), None).await.spotify_error(404);
    assert_eq!(app.get("/v1/me/shows", &token).await.json()["total"], 0);
    let forty_one = vec![uri.clone(); 41].join(",");
    app.request(Method::PUT, &format!("/v1/me/library?uris={forty_one}"), Some(&token), None).await.spotify_error(400);
}

async fn follows_history_and_top_items(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let ids = app.track_ids(&token).await;
    let track = app.get(&format!("/v1/tracks/{}", ids[0]), &token).await.json();
    let artist = track["artists"][0]["id"].as_str().unwrap().to_owned();
    let follow =
        app.request(Method::PUT, &format!("/v1/me/following?type=artist&ids={artist}"), Some(&token), None).await;
    assert_eq!(follow.status, StatusCode::NO_CONTENT);
    let followed = app.get("/v1/me/following?type=artist&limit=1", &token).await.json();
    has_keys(&followed["artists"], &["href", "items", "limit", "next", "cursors", "total"]);
    assert_eq!(followed["artists"]["items"][0]["id"], artist.as_str());
    assert_eq!(followed["artists"]["total"], 1);
    assert_eq!(app.get(&format!("/v1/artists/{artist}"), &token).await.json()["followers"]["total"], 1);
    assert_eq!(
        app.get(&format!("/v1/me/following/contains?type=artist&ids={artist}"), &token).await.json(),
        json!([true])
    );

    // Listening history (recorded by the player) feeds recent plays and top items.
    let me = app.get("/v1/me", &token).await.json()["id"].as_str().unwrap().to_owned();
    for (i, id) in [&ids[0], &ids[1], &ids[0]].iter().enumerate() {
        app.clock.advance_millis(60_000);
        app.catalog.record_play(&me, id, if i == 0 { Some("spotify:album:abc") } else { None }).await.unwrap();
    }
    let recent = app.get("/v1/me/player/recently-played?limit=2", &token).await.json();
    assert_eq!(recent["items"].as_array().unwrap().len(), 2);
    assert_eq!(recent["items"][0]["track"]["id"], ids[0].as_str());
    let before = recent["cursors"]["before"].as_str().unwrap().to_owned();
    let older = app.get(&format!("/v1/me/player/recently-played?before={before}"), &token).await.json();
    assert_eq!(older["items"].as_array().unwrap().len(), 1);
    assert_eq!(older["items"][0]["context"]["uri"], "spotify:album:abc");
    let top = app.get("/v1/me/top/tracks?time_range=short_term", &token).await.json();
    has_keys(&top, PAGING_KEYS);
    assert_eq!(top["items"][0]["id"], ids[0].as_str());
    assert_eq!(top["total"], 2);
    let top_artists = app.get("/v1/me/top/artists", &token).await.json();
    assert!(top_artists["total"].as_u64().unwrap() >= 1);
    app.get("/v1/me/top/tracks?time_range=forever", &token).await.spotify_error(400);
    app.clock.advance_days(30);
    let token = app.token_for("ada", ALL).await;
    assert_eq!(app.get("/v1/me/top/tracks?time_range=short_term", &token).await.json()["total"], 0);
}

async fn playlists_edit_reorder_and_cover(app: TestApp) {
    let token = app.user_token("ada", ALL).await;
    let ids = app.track_ids(&token).await;
    let me = app.get("/v1/me", &token).await.json()["id"].as_str().unwrap().to_owned();
    // Both creation routes answer 201 with the full playlist.
    let created =
        app.send_json(Method::POST, "/v1/me/playlists", &token, &json!({ "name": "Mix", "public": false })).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&created.body));
    let playlist = created.json();
    has_keys(
        &playlist,
        &[
            "collaborative",
            "description",
            "external_urls",
            "followers",
            "href",
            "id",
            "images",
            "name",
            "owner",
            "public",
            "snapshot_id",
            "tracks",
            "items",
            "type",
            "uri",
            "primary_color",
        ],
    );
    let id = playlist["id"].as_str().unwrap().to_owned();
    let other =
        app.send_json(Method::POST, &format!("/v1/users/{me}/playlists"), &token, &json!({ "name": "Other" })).await;
    assert_eq!(other.status, StatusCode::CREATED);

    // Add (201 with a snapshot), on the new and the deprecated route.
    let uris: Vec<String> = ids.iter().take(4).map(|i| format!("spotify:track:{i}")).collect();
    let added =
        app.send_json(Method::POST, &format!("/v1/playlists/{id}/items"), &token, &json!({ "uris": uris[..3] })).await;
    assert_eq!(added.status, StatusCode::CREATED);
    let snap1 = added.json()["snapshot_id"].as_str().unwrap().to_owned();
    let added = app
        .send_json(
            Method::POST,
            &format!("/v1/playlists/{id}/tracks?position=0"),
            &token,
            &json!({ "uris": [uris[3]] }),
        )
        .await;
    assert_ne!(added.json()["snapshot_id"].as_str().unwrap(), snap1);
    let order = |body: &serde_json::Value| -> Vec<String> {
        body["items"].as_array().unwrap().iter().map(|i| i["track"]["id"].as_str().unwrap().to_owned()).collect()
    };
    let items = app.get(&format!("/v1/playlists/{id}/items"), &token).await.json();
    assert_eq!(order(&items), vec![ids[3].clone(), ids[0].clone(), ids[1].clone(), ids[2].clone()]);
    has_keys(
        &items["items"][0],
        &["added_at", "added_by", "is_local", "primary_color", "video_thumbnail", "track", "item"],
    );
    assert_eq!(items["items"][0]["track"]["track"], true);
    assert_eq!(items["items"][0]["track"]["episode"], false);

    // Reorder: move the first item to the end.
    let moved = app
        .send_json(
            Method::PUT,
            &format!("/v1/playlists/{id}/items"),
            &token,
            &json!({ "range_start": 0, "insert_before": 4 }),
        )
        .await;
    assert_eq!(moved.status, StatusCode::OK);
    let items = app.get(&format!("/v1/playlists/{id}/tracks"), &token).await.json();
    assert_eq!(order(&items), vec![ids[0].clone(), ids[1].clone(), ids[2].clone(), ids[3].clone()]);
    // Remove (spotipy's body key is items, tekore's is tracks).
    app.send_json(
        Method::DELETE,
        &format!("/v1/playlists/{id}/items"),
        &token,
        &json!({ "items": [{ "uri": uris[1] }] }),
    )
    .await;
    app.send_json(
        Method::DELETE,
        &format!("/v1/playlists/{id}/tracks"),
        &token,
        &json!({ "tracks": [{ "uri": uris[2] }] }),
    )
    .await;
    let items = app.get(&format!("/v1/playlists/{id}/items"), &token).await.json();
    assert_eq!(order(&items), vec![ids[0].clone(), ids[3].clone()]);
    // Replace.
    app.send_json(Method::PUT, &format!("/v1/playlists/{id}/items"), &token, &json!({ "uris": [uris[2]] })).await;
    assert_eq!(app.get(&format!("/v1/playlists/{id}"), &token).await.json()["tracks"]["total"], 1);

    // Details, listing, follows, cover.
    let changed = app
        .send_json(
            Method::PUT,
            &format!("/v1/playlists/{id}"),
            &token,
            &json!({ "name": "Renamed", "description": "d" }),
        )
        .await;
    assert_eq!(changed.status, StatusCode::OK);
    let mine = app.get("/v1/me/playlists", &token).await.json();
    assert_eq!(mine["total"], 2);
    let listed = mine["items"].as_array().unwrap().iter().find(|p| p["id"] == id.as_str()).unwrap().clone();
    assert_eq!(listed["name"], "Renamed");
    has_keys(&listed["tracks"], &["href", "total"]);
    has_keys(&listed["items"], &["href", "total"]);
    let jpeg = [0xFF_u8, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F'];
    let b64 = base64::engine::general_purpose::STANDARD.encode(jpeg);
    let cover = app
        .request(
            Method::PUT,
            &format!("/v1/playlists/{id}/images"),
            Some(&token),
            Some(("image/jpeg", b64.into_bytes())),
        )
        .await;
    assert_eq!(cover.status, StatusCode::ACCEPTED);
    let images = app.get(&format!("/v1/playlists/{id}/images"), &token).await.json();
    let url = images[0]["url"].as_str().unwrap().to_owned();
    let fetched = app.request(Method::GET, url.trim_start_matches(crate::support::BASE), None, None).await;
    assert_eq!(&fetched.body[..], &jpeg[..]);
    // A JPEG over 256 KB: its base64 passes the route's body limit (413)...
    let too_big = base64::engine::general_purpose::STANDARD.encode(vec![0xFF_u8; 300 * 1024]);
    let refused = app
        .request(
            Method::PUT,
            &format!("/v1/playlists/{id}/images"),
            Some(&token),
            Some(("image/jpeg", too_big.into_bytes())),
        )
        .await
        .spotify_error(413);
    assert_eq!(refused, "Request body too large: at most 368640 bytes");
    // ...and one a little over 256 KB within it is refused by the decoded size (400).
    let just_over = base64::engine::general_purpose::STANDARD.encode(vec![0xFF_u8; 257 * 1024]);
    let refused = app
        .request(
            Method::PUT,
            &format!("/v1/playlists/{id}/images"),
            Some(&token),
            Some(("image/jpeg", just_over.into_bytes())),
        )
        .await
        .spotify_error(400);
    assert_eq!(refused, "the image exceeds 256 KB");

    // Another user: cannot see the private playlist, cannot edit; can follow a public one.
    let bo = app.user_token("bo", ALL).await;
    app.get(&format!("/v1/playlists/{id}"), &bo).await.spotify_error(404);
    let public_id = other.json()["id"].as_str().unwrap().to_owned();
    app.send_json(Method::POST, &format!("/v1/playlists/{public_id}/items"), &bo, &json!({ "uris": [uris[0]] }))
        .await
        .spotify_error(403);
    assert_eq!(
        app.request(Method::PUT, &format!("/v1/playlists/{public_id}/followers"), Some(&bo), None).await.status,
        StatusCode::OK
    );
    let bo_id = app.get("/v1/me", &bo).await.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(
        app.get(&format!("/v1/playlists/{public_id}/followers/contains?ids={bo_id}"), &bo).await.json(),
        json!([true])
    );
    assert_eq!(app.get("/v1/me/playlists", &bo).await.json()["total"], 1);
    let featured = app.get("/v1/browse/featured-playlists", &bo).await.json();
    assert_eq!(featured["playlists"]["items"][0]["id"], public_id.as_str());
}
