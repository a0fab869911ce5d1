//! The player end to end: a fake device speaking the device protocol,
//! Spotify's player routes acting on it, plays reported back into the
//! listening history, delivery across two nodes of one store, the audio
//! stream with byte ranges, and the web player page.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use http_body_util::BodyExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::on_both_stores;
use crate::support::{BASE, TestApp, TestResponse, has_keys};

on_both_stores!(
    commands_act_on_the_active_device,
    a_device_follows_commands_and_reports_plays,
    a_command_reaches_a_device_waiting_on_another_node,
    streams_serve_byte_ranges_behind_signed_links,
);

const SCOPES: &str = "streaming user-read-playback-state user-modify-playback-state user-read-currently-playing \
                      user-read-recently-played user-top-read";

/// A device speaking the protocol through the router, as a program would.
pub struct FakeDevice {
    pub id: String,
    token: String,
}

impl FakeDevice {
    pub async fn register(app: &TestApp, token: &str, name: &str) -> Self {
        let answer =
            app.send_json(Method::POST, "/connect/devices", token, &json!({ "name": name, "type": "speaker" })).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", String::from_utf8_lossy(&answer.body));
        let device = answer.json();
        has_keys(
            &device,
            &[
                "id",
                "is_active",
                "is_private_session",
                "is_restricted",
                "name",
                "type",
                "volume_percent",
                "supports_volume",
            ],
        );
        assert_eq!(device["type"], "Speaker");
        Self { id: device["id"].as_str().unwrap().to_owned(), token: token.to_owned() }
    }

    /// The playback as the device sees it now.
    pub async fn view(&self, app: &TestApp) -> Value {
        let answer = app.get(&format!("/connect/devices/{}/state", self.id), &self.token).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", String::from_utf8_lossy(&answer.body));
        answer.json()
    }

    pub async fn report(&self, app: &TestApp, track_id: &str, progress_ms: u64, ended: bool) {
        let body = json!({ "track_id": track_id, "progress_ms": progress_ms, "ended": ended });
        let answer =
            app.send_json(Method::PUT, &format!("/connect/devices/{}/state", self.id), &self.token, &body).await;
        assert_eq!(answer.status, StatusCode::NO_CONTENT, "{}", String::from_utf8_lossy(&answer.body));
    }
}

fn player_error(answer: &TestResponse, status: u16, reason: &str) {
    assert_eq!(answer.status.as_u16(), status, "{}", String::from_utf8_lossy(&answer.body));
    let body = answer.json();
    assert_eq!(body["error"]["status"], status, "{body}");
    assert_eq!(body["error"]["reason"], reason, "{body}");
}

async fn command(app: &TestApp, method: Method, path: &str, token: &str, body: &Value) -> TestResponse {
    app.send_json(method, path, token, body).await
}

async fn ok(app: &TestApp, method: Method, path: &str, token: &str, body: &Value) {
    let answer = command(app, method, path, token, body).await;
    assert_eq!(answer.status, StatusCode::NO_CONTENT, "{path}: {}", String::from_utf8_lossy(&answer.body));
}

async fn playing(app: &TestApp, token: &str) -> Value {
    let answer = app.get("/v1/me/player", token).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", String::from_utf8_lossy(&answer.body));
    answer.json()
}

/// The demo album with three tracks (in album order).
async fn album_of_three(app: &TestApp, token: &str) -> (String, Vec<String>) {
    let found = app.get("/v1/search?q=dawn&type=track", token).await.json();
    let album = found["tracks"]["items"][0]["album"]["id"].as_str().unwrap().to_owned();
    let tracks = app.get(&format!("/v1/albums/{album}/tracks"), token).await.json();
    let ids: Vec<String> =
        tracks["items"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_owned()).collect();
    assert_eq!(ids.len(), 3);
    (album, ids)
}

async fn commands_act_on_the_active_device(app: TestApp) {
    let token = app.user_token("ada", SCOPES).await;
    let (album, ids) = album_of_three(&app, &token).await;

    // No device: reads are empty, commands fail as Spotify's do.
    assert_eq!(app.get("/v1/me/player", &token).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get("/v1/me/player/currently-playing", &token).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get("/v1/me/player/devices", &token).await.json(), json!({ "devices": [] }));
    player_error(&command(&app, Method::PUT, "/v1/me/player/pause", &token, &json!({})).await, 404, "NO_ACTIVE_DEVICE");
    // Registering a device needs the `streaming` scope.
    let narrow = app.token_for("ada", "user-read-playback-state").await;
    app.send_json(Method::POST, "/connect/devices", &narrow, &json!({ "name": "x" })).await.spotify_error(403);
    app.send_json(Method::POST, "/connect/devices", &token, &json!({ "name": "x", "type": "toaster" }))
        .await
        .spotify_error(400);

    let device = FakeDevice::register(&app, &token, "Kitchen").await;
    let devices = app.get("/v1/me/player/devices", &token).await.json();
    assert_eq!(devices["devices"][0]["is_active"], false);
    // A device exists but none is active yet.
    player_error(&command(&app, Method::POST, "/v1/me/player/next", &token, &json!({})).await, 404, "NO_ACTIVE_DEVICE");
    // An unknown device is 404 without a reason.
    command(&app, Method::PUT, "/v1/me/player", &token, &json!({ "device_ids": ["0000000000000000000000"] }))
        .await
        .spotify_error(404);
    command(&app, Method::PUT, "/v1/me/player", &token, &json!({ "device_ids": [] })).await.spotify_error(400);

    ok(&app, Method::PUT, "/v1/me/player", &token, &json!({ "device_ids": [device.id] })).await;
    let state = playing(&app, &token).await;
    assert_eq!(state["device"]["id"], device.id.as_str());
    assert_eq!(state["device"]["is_active"], true);
    assert_eq!(state["item"], Value::Null);
    // Nothing loaded: resuming is refused with a reason from Spotify's list.
    player_error(&command(&app, Method::PUT, "/v1/me/player/play", &token, &json!({})).await, 403, "UNKNOWN");

    // Play the album from its second track.
    let body =
        json!({ "context_uri": format!("spotify:album:{album}"), "offset": { "position": 1 }, "position_ms": 500 });
    ok(&app, Method::PUT, "/v1/me/player/play", &token, &body).await;
    let state = playing(&app, &token).await;
    has_keys(
        &state,
        &[
            "device",
            "repeat_state",
            "shuffle_state",
            "context",
            "timestamp",
            "progress_ms",
            "is_playing",
            "item",
            "currently_playing_type",
            "actions",
        ],
    );
    assert_eq!(state["item"]["id"], ids[1].as_str());
    assert_eq!(state["context"]["uri"], format!("spotify:album:{album}"));
    assert_eq!(state["is_playing"], true);
    assert_eq!(state["progress_ms"], 500);
    app.clock.advance_millis(1_000);
    assert_eq!(app.get("/v1/me/player/currently-playing", &token).await.json()["progress_ms"], 1_500);

    ok(&app, Method::PUT, "/v1/me/player/pause", &token, &json!({})).await;
    app.clock.advance_millis(1_000);
    let state = playing(&app, &token).await;
    assert_eq!((state["is_playing"].clone(), state["progress_ms"].clone()), (json!(false), json!(1_500)));
    ok(&app, Method::PUT, "/v1/me/player/play", &token, &json!({})).await;
    assert_eq!(playing(&app, &token).await["is_playing"], true);

    ok(&app, Method::POST, "/v1/me/player/next", &token, &json!({})).await;
    assert_eq!(playing(&app, &token).await["item"]["id"], ids[2].as_str());
    ok(&app, Method::POST, "/v1/me/player/previous", &token, &json!({})).await;
    assert_eq!(playing(&app, &token).await["item"]["id"], ids[1].as_str());
    ok(&app, Method::PUT, "/v1/me/player/seek?position_ms=2000", &token, &json!({})).await;
    assert_eq!(playing(&app, &token).await["progress_ms"], 2_000);
    // Past the end: the next track.
    ok(&app, Method::PUT, "/v1/me/player/seek?position_ms=999999", &token, &json!({})).await;
    assert_eq!(playing(&app, &token).await["item"]["id"], ids[2].as_str());
    command(&app, Method::PUT, "/v1/me/player/seek?position_ms=-1", &token, &json!({})).await.spotify_error(400);
    command(&app, Method::PUT, "/v1/me/player/seek", &token, &json!({})).await.spotify_error(400);

    command(&app, Method::PUT, "/v1/me/player/repeat?state=all", &token, &json!({})).await.spotify_error(400);
    ok(&app, Method::PUT, "/v1/me/player/repeat?state=context", &token, &json!({})).await;
    command(&app, Method::PUT, "/v1/me/player/shuffle?state=yes", &token, &json!({})).await.spotify_error(400);
    ok(&app, Method::PUT, "/v1/me/player/shuffle?state=true", &token, &json!({})).await;
    command(&app, Method::PUT, "/v1/me/player/volume?volume_percent=101", &token, &json!({})).await.spotify_error(400);
    ok(&app, Method::PUT, "/v1/me/player/volume?volume_percent=40", &token, &json!({})).await;
    let state = playing(&app, &token).await;
    assert_eq!(state["repeat_state"], "context");
    assert_eq!(state["shuffle_state"], true);
    assert_eq!(state["device"]["volume_percent"], 40);
    assert_eq!(state["item"]["id"], ids[2].as_str(), "shuffling keeps the current track");

    // The queue plays before the context goes on.
    let queued = format!("spotify:track:{}", ids[0]);
    ok(&app, Method::POST, &format!("/v1/me/player/queue?uri={queued}"), &token, &json!({})).await;
    let queue = app.get("/v1/me/player/queue", &token).await.json();
    assert_eq!(queue["currently_playing"]["id"], ids[2].as_str());
    assert_eq!(queue["queue"][0]["id"], ids[0].as_str());
    command(&app, Method::POST, "/v1/me/player/queue?uri=spotify:album:x", &token, &json!({})).await.spotify_error(400);
    ok(&app, Method::POST, "/v1/me/player/next", &token, &json!({})).await;
    assert_eq!(playing(&app, &token).await["item"]["id"], ids[0].as_str());

    // A list of URIs with an offset by URI; no context then.
    let uris: Vec<String> = ids.iter().map(|i| format!("spotify:track:{i}")).collect();
    ok(&app, Method::PUT, "/v1/me/player/shuffle?state=false", &token, &json!({})).await;
    let body = json!({ "uris": uris, "offset": { "uri": uris[2] } });
    ok(&app, Method::PUT, "/v1/me/player/play", &token, &body).await;
    let state = playing(&app, &token).await;
    assert_eq!(state["item"]["id"], ids[2].as_str());
    assert_eq!(state["context"], Value::Null);
    let both = json!({ "uris": [uris[0]], "context_uri": format!("spotify:album:{album}") });
    command(&app, Method::PUT, "/v1/me/player/play", &token, &both).await.spotify_error(400);
    let past = json!({ "context_uri": format!("spotify:album:{album}"), "offset": { "position": 3 } });
    command(&app, Method::PUT, "/v1/me/player/play", &token, &past).await.spotify_error(400);
    command(
        &app,
        Method::PUT,
        "/v1/me/player/play",
        &token,
        &json!({ "uris": ["spotify:track:0000000000000000000000"] }),
    )
    .await
    .spotify_error(404);
    command(&app, Method::PUT, "/v1/me/player/play", &token, &json!({ "uris": "nope" })).await.spotify_error(400);

    // A device that stops polling goes offline: no active device any more.
    app.clock.advance_millis(61_000);
    assert_eq!(app.get("/v1/me/player", &token).await.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get("/v1/me/player/devices", &token).await.json(), json!({ "devices": [] }));
    player_error(&command(&app, Method::PUT, "/v1/me/player/pause", &token, &json!({})).await, 404, "NO_ACTIVE_DEVICE");
    // Polling brings it back.
    device.view(&app).await;
    assert_eq!(playing(&app, &token).await["device"]["id"], device.id.as_str());
    let unregister = app.request(Method::DELETE, &format!("/connect/devices/{}", device.id), Some(&token), None).await;
    assert_eq!(unregister.status, StatusCode::NO_CONTENT);
    assert_eq!(app.get("/v1/me/player", &token).await.status, StatusCode::NO_CONTENT);
}

async fn a_device_follows_commands_and_reports_plays(app: TestApp) {
    let token = app.user_token("ada", SCOPES).await;
    let (album, ids) = album_of_three(&app, &token).await;
    let device = FakeDevice::register(&app, &token, "Fake").await;
    let idle = device.view(&app).await;
    assert_eq!((idle["is_active"].clone(), idle["item"].clone()), (json!(false), Value::Null));

    ok(
        &app,
        Method::PUT,
        &format!("/v1/me/player/play?device_id={}", device.id),
        &token,
        &json!({ "context_uri": format!("spotify:album:{album}") }),
    )
    .await;
    let view = device.view(&app).await;
    assert_eq!(view["is_active"], true);
    assert_eq!(view["is_playing"], true);
    assert_eq!(view["item"]["id"], ids[0].as_str());
    assert!(view["item"]["stream_url"].as_str().unwrap().starts_with(&format!("{BASE}/stream/{}", ids[0])));
    let version = view["version"].as_i64().unwrap();

    // A waiting device gets a command within a second.
    let router = app.router.clone();
    let (id, bearer) = (device.id.clone(), token.clone());
    let waiting = tokio::spawn(async move {
        let request = Request::get(format!("/connect/devices/{id}/state?after={version}&wait=10"))
            .header("authorization", format!("Bearer {bearer}"))
            .body(Body::empty())
            .unwrap();
        let answer = router.oneshot(request).await.unwrap();
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        (Instant::now(), serde_json::from_slice::<Value>(&body).unwrap())
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let sent = Instant::now();
    ok(&app, Method::PUT, "/v1/me/player/pause", &token, &json!({})).await;
    let (arrived, paused) = waiting.await.unwrap();
    assert!(
        arrived.duration_since(sent) < Duration::from_secs(1),
        "delivered after {:?}",
        arrived.duration_since(sent)
    );
    assert_eq!(paused["is_playing"], false);
    assert!(paused["version"].as_i64().unwrap() > version);
    // Nothing new: a wait of 0 answers at once with the same version.
    let again =
        app.get(&format!("/connect/devices/{}/state?after={}&wait=0", device.id, paused["version"]), &token).await;
    assert_eq!(again.json()["version"], paused["version"]);
    app.get(&format!("/connect/devices/{}/state?wait=99", device.id), &token).await.spotify_error(400);

    // Reports: progress moves the server's position; half of a short track
    // counts as a play; the end moves on and the history fills.
    ok(&app, Method::PUT, "/v1/me/player/play", &token, &json!({})).await;
    device.report(&app, &ids[0], 1_000, false).await;
    assert_eq!(playing(&app, &token).await["progress_ms"], 1_000);
    assert_eq!(app.get("/v1/me/player/recently-played", &token).await.json()["items"], json!([]));
    device.report(&app, &ids[0], 2_500, false).await;
    let recent = app.get("/v1/me/player/recently-played", &token).await.json();
    assert_eq!(recent["items"][0]["track"]["id"], ids[0].as_str());
    assert_eq!(recent["items"][0]["context"]["uri"], format!("spotify:album:{album}"));
    app.clock.advance_millis(2_000);
    device.report(&app, &ids[0], 4_000, true).await;
    assert_eq!(
        app.get("/v1/me/player/recently-played", &token).await.json()["items"].as_array().unwrap().len(),
        1,
        "one play per listen"
    );
    let view = device.view(&app).await;
    assert_eq!(view["item"]["id"], ids[1].as_str());
    assert_eq!(view["progress_ms"], 0);
    // A stale report (about another track) changes nothing.
    device.report(&app, &ids[0], 3_000, true).await;
    assert_eq!(device.view(&app).await["item"]["id"], ids[1].as_str());
    app.clock.advance_millis(1_000);
    device.report(&app, &ids[1], 4_000, true).await;
    let top = app.get("/v1/me/top/tracks?time_range=short_term", &token).await.json();
    assert_eq!(top["total"], 2);
    // Reports from a device that is not active are ignored.
    let other = FakeDevice::register(&app, &token, "Other").await;
    other.report(&app, &ids[2], 4_000, true).await;
    assert_eq!(playing(&app, &token).await["item"]["id"], ids[2].as_str());
    // Another user's device is not yours.
    let eve = app.user_token("eve", SCOPES).await;
    app.get(&format!("/connect/devices/{}/state", device.id), &eve).await.spotify_error(404);
    command(&app, Method::PUT, "/v1/me/player", &eve, &json!({ "device_ids": [device.id] })).await.spotify_error(404);
}

async fn a_command_reaches_a_device_waiting_on_another_node(app: TestApp) {
    let token = app.user_token("ada", SCOPES).await;
    let (album, _) = album_of_three(&app, &token).await;
    let device = FakeDevice::register(&app, &token, "Far away").await;
    ok(&app, Method::PUT, "/v1/me/player", &token, &json!({ "device_ids": [device.id] })).await;
    let version = device.view(&app).await["version"].as_i64().unwrap();
    // A second node: its own catalog (and wake-up signal) over the same store.
    let other = catalog_core::Catalog::new(app.catalog.db().clone(), std::sync::Arc::new(app.clock.clone()));
    let other_router = catalog_http::router(catalog_http::AppState::new(other, BASE));
    let (id, bearer) = (device.id.clone(), token.clone());
    let waiting = tokio::spawn(async move {
        let request = Request::get(format!("/connect/devices/{id}/state?after={version}&wait=10"))
            .header("authorization", format!("Bearer {bearer}"))
            .body(Body::empty())
            .unwrap();
        let answer = other_router.oneshot(request).await.unwrap();
        let body = answer.into_body().collect().await.unwrap().to_bytes();
        (Instant::now(), serde_json::from_slice::<Value>(&body).unwrap())
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let sent = Instant::now();
    ok(&app, Method::PUT, "/v1/me/player/play", &token, &json!({ "context_uri": format!("spotify:album:{album}") }))
        .await;
    let (arrived, view) = waiting.await.unwrap();
    assert!(
        arrived.duration_since(sent) < Duration::from_secs(1),
        "delivered after {:?}",
        arrived.duration_since(sent)
    );
    assert_eq!(view["is_playing"], true);
}

async fn raw(app: &TestApp, path: &str, range: Option<&str>) -> TestResponse {
    let mut request = Request::get(path);
    if let Some(range) = range {
        request = request.header("range", range);
    }
    let answer = app.router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let status = answer.status();
    let headers = answer.headers().clone();
    let body = answer.into_body().collect().await.unwrap().to_bytes();
    TestResponse { status, headers, body }
}

async fn streams_serve_byte_ranges_behind_signed_links(app: TestApp) {
    let token = app.user_token("ada", SCOPES).await;
    let ids = app.track_ids(&token).await;
    let device = FakeDevice::register(&app, &token, "Streamer").await;
    let body = json!({ "uris": [format!("spotify:track:{}", ids[0])] });
    ok(&app, Method::PUT, &format!("/v1/me/player/play?device_id={}", device.id), &token, &body).await;
    let url = device.view(&app).await["item"]["stream_url"].as_str().unwrap().to_owned();
    let path = url.strip_prefix(BASE).unwrap().to_owned();

    let whole = raw(&app, &path, None).await;
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.headers["content-type"], "audio/wav");
    assert_eq!(whole.headers["accept-ranges"], "bytes");
    let len = whole.body.len();
    assert_eq!(whole.headers["content-length"], len.to_string().as_str());
    assert_eq!(&whole.body[..4], b"RIFF");

    let first = raw(&app, &path, Some("bytes=0-3")).await;
    assert_eq!(first.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(&first.body[..], b"RIFF");
    assert_eq!(first.headers["content-range"], format!("bytes 0-3/{len}").as_str());
    assert_eq!(first.headers["content-length"], "4");
    let suffix = raw(&app, &path, Some("bytes=-10")).await;
    assert_eq!(suffix.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(suffix.body, whole.body.slice(len - 10..));
    assert_eq!(suffix.headers["content-range"], format!("bytes {}-{}/{len}", len - 10, len - 1).as_str());
    let open = raw(&app, &path, Some("bytes=8-")).await;
    assert_eq!(open.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(open.body, whole.body.slice(8..));
    assert_eq!(&open.body[..4], b"WAVE");
    let past = raw(&app, &path, Some(&format!("bytes={len}-"))).await;
    assert_eq!(past.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(past.headers["content-range"], format!("bytes */{len}").as_str());
    assert_eq!(past.json()["error"]["status"], 416);
    // An unparsable range is ignored: the whole file.
    assert_eq!(raw(&app, &path, Some("bytes=x-y")).await.status, StatusCode::OK);

    // The link proves itself: another track, another expiry, no signature, or too late.
    let other_track = path.replace(&ids[0], &ids[1]);
    raw(&app, &other_track, None).await.spotify_error(403);
    let (head, query) = path.split_once('?').unwrap();
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap();
    let expires: i64 = pairs.iter().find(|(k, _)| k == "expires").unwrap().1.parse().unwrap();
    let signature = &pairs.iter().find(|(k, _)| k == "signature").unwrap().1;
    raw(&app, &format!("{head}?expires={}&signature={signature}", expires + 600), None).await.spotify_error(403);
    raw(&app, head, None).await.spotify_error(403);
    app.clock.advance_millis(2 * 3_600_000);
    raw(&app, &path, None).await.spotify_error(403);
}
