//! The rules every call passes: the per-app rate limit (429 with
//! `Retry-After` in whole seconds), the `market` parameter (and its
//! `country` alias, and `from_token`), and `snapshot_id` on playlist changes.

use axum::http::{Method, StatusCode};
use catalog_core::limits::RateLimit;
use catalog_http::AppState;
use serde_json::json;

use crate::on_both_stores;
use crate::support::{BASE, TestApp};

on_both_stores!(rate_limit_per_app_with_retry_after, market_codes_and_from_token, snapshot_ids_on_item_changes);

async fn rate_limit_per_app_with_retry_after(mut app: TestApp) {
    let limited = app.catalog.clone().with_rate_limit(RateLimit { requests: 3, window_secs: 30 });
    app.router = catalog_http::router(AppState::new(limited, BASE));
    let first = app.user_token("ada", "").await;
    let second = app.user_token("bob", "").await;
    for _ in 0..3 {
        assert_eq!(app.get("/v1/markets", &first).await.status, StatusCode::OK);
    }
    app.clock.advance_millis(10_400);
    let refused = app.get("/v1/markets", &first).await;
    assert_eq!(refused.spotify_error(429), "API rate limit exceeded");
    // Whole seconds, rounded up: 19.6 s are left of the window.
    assert_eq!(refused.headers["retry-after"], "20");
    // The budget is per app: another app's token still passes.
    assert_eq!(app.get("/v1/markets", &second).await.status, StatusCode::OK);
    // The token endpoint is not counted.
    let (client_id, secret, _) = app.app_and_user("cy").await;
    for _ in 0..4 {
        let token = app.form("/api/token", &[("grant_type", "client_credentials")], Some((&client_id, &secret))).await;
        assert_eq!(token.status, StatusCode::OK);
    }
    // When the window has ended the app may call again.
    app.clock.advance_millis(19_600);
    let again = app.get("/v1/markets", &first).await;
    assert_eq!(again.status, StatusCode::OK, "{}", String::from_utf8_lossy(&again.body));
    assert_eq!(again.json()["markets"], json!(["US"]));
}

async fn market_codes_and_from_token(app: TestApp) {
    let token = app.user_token("ada", "").await;
    let ids = app.track_ids(&token).await;
    let one = &ids[0];
    // Any valid code is accepted; an item is playable only in the configured
    // markets (one, `US`, by default; see `fidelity::markets_come_from_configuration`).
    for (query, playable) in [
        ("market=US", true),
        ("market=se", false),
        ("country=DE", false),
        ("market=from_token", true),
        ("market=", true),
    ] {
        let found = app.get(&format!("/v1/tracks/{one}?{query}"), &token).await;
        assert_eq!(found.status, StatusCode::OK, "{query}: {}", String::from_utf8_lossy(&found.body));
        assert_eq!(found.json()["id"], one.as_str());
        assert_eq!(found.json()["is_playable"], playable, "{query}");
    }
    for query in ["market=USA", "country=1x", "market=from-token"] {
        let refused = app.get(&format!("/v1/tracks/{one}?{query}"), &token).await;
        assert_eq!(refused.spotify_error(400), "Invalid market code", "{query}");
    }
    // Paging links keep the market.
    let page = app.get("/v1/search?q=a&type=track&limit=2&market=from_token", &token).await.json();
    assert!(page["tracks"]["next"].as_str().unwrap().contains("market=from_token"), "{page}");
    // An app token has no user: `from_token` names no market and is ignored.
    let (client_id, secret, _) = app.app_and_user("bob").await;
    let cc = app.form("/api/token", &[("grant_type", "client_credentials")], Some((&client_id, &secret))).await.json();
    let app_token = cc["access_token"].as_str().unwrap();
    let found = app.get(&format!("/v1/tracks/{one}?market=from_token"), app_token).await;
    assert_eq!(found.status, StatusCode::OK);
}

async fn snapshot_ids_on_item_changes(app: TestApp) {
    let token = app.user_token("ada", "playlist-modify-private playlist-read-private").await;
    let ids = app.track_ids(&token).await;
    let playlist = app
        .send_json(Method::POST, "/v1/me/playlists", &token, &json!({ "name": "Snap", "public": false }))
        .await
        .json();
    let id = playlist["id"].as_str().unwrap().to_owned();
    let created = playlist["snapshot_id"].as_str().unwrap().to_owned();
    let uris: Vec<String> = ids.iter().take(3).map(|i| format!("spotify:track:{i}")).collect();
    let path = format!("/v1/playlists/{id}/items");
    let added =
        app.send_json(Method::POST, &path, &token, &json!({ "uris": [uris[0], uris[1], uris[0], uris[2]] })).await;
    let current = added.json()["snapshot_id"].as_str().unwrap().to_owned();
    let order = |app_items: serde_json::Value| -> Vec<String> {
        app_items["items"].as_array().unwrap().iter().map(|i| i["track"]["uri"].as_str().unwrap().to_owned()).collect()
    };

    // A snapshot the playlist never had is refused, and nothing changes.
    let future = catalog_core::playlists::snapshot_id(99);
    for snapshot in [future.as_str(), "bm90LWEtc25hcHNob3Q"] {
        let refused = app
            .send_json(
                Method::PUT,
                &path,
                &token,
                &json!({ "range_start": 0, "insert_before": 4, "snapshot_id": snapshot }),
            )
            .await;
        assert_eq!(refused.spotify_error(400), "Invalid snapshot_id");
        let refused = app
            .send_json(Method::DELETE, &path, &token, &json!({ "items": [{"uri": uris[0]}], "snapshot_id": snapshot }))
            .await;
        assert_eq!(refused.spotify_error(400), "Invalid snapshot_id");
    }
    assert_eq!(
        order(app.get(&path, &token).await.json()),
        vec![uris[0].clone(), uris[1].clone(), uris[0].clone(), uris[2].clone()]
    );

    // Positions must hold the named item.
    let wrong = app
        .send_json(
            Method::DELETE,
            &path,
            &token,
            &json!({ "tracks": [{"uri": uris[0], "positions": [1]}], "snapshot_id": current }),
        )
        .await;
    assert!(wrong.spotify_error(400).contains("position 1"));

    // The current snapshot works, and so does an older one (as Spotify
    // accepts): positions are then read against the current items.
    let removed = app
        .send_json(
            Method::DELETE,
            &path,
            &token,
            &json!({ "items": [{"uri": uris[0], "positions": [2]}], "snapshot_id": current }),
        )
        .await;
    assert_eq!(removed.status, StatusCode::OK);
    let after_remove = removed.json()["snapshot_id"].as_str().unwrap().to_owned();
    assert_ne!(after_remove, current);
    assert_eq!(order(app.get(&path, &token).await.json()), vec![uris[0].clone(), uris[1].clone(), uris[2].clone()]);
    let moved = app
        .send_json(Method::PUT, &path, &token, &json!({ "range_start": 2, "insert_before": 0, "snapshot_id": created }))
        .await;
    assert_eq!(moved.status, StatusCode::OK, "{}", String::from_utf8_lossy(&moved.body));
    assert_eq!(order(app.get(&path, &token).await.json()), vec![uris[2].clone(), uris[0].clone(), uris[1].clone()]);
    assert_eq!(
        app.get(&format!("/v1/playlists/{id}"), &token).await.json()["snapshot_id"],
        moved.json()["snapshot_id"]
    );
}
