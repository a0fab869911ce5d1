//! Every route of the Spotify Web API OpenAPI description, called through
//! the real router, with each JSON answer validated against the matching
//! response schema by a JSON Schema validator (`mock`'s conversion of
//! OpenAPI 3.0 schemas: `nullable` becomes a type list, components are
//! registered once). A second check walks the schema and the answer
//! together: every property Spotify's schema declares must be present
//! (with `null` when the catalog has no value), as strict clients expect.
//!
//! The description lives beside the checkout in
//! `../shared/specs/openapi3/spotify-web-api.fixed.yml`; without it the
//! scenario says so and passes.

use std::collections::BTreeSet;
use std::path::PathBuf;

use axum::http::Method;
use base64::Engine as _;
use mock::schema::{SchemaSet, issues};
use serde_json::{Value, json};
use spec::Spec;

use crate::on_both_stores;
use crate::support::TestApp;

on_both_stores!(every_route_answers_in_spotify_schema);

const SCOPES: &str = "user-library-read user-library-modify user-follow-read user-follow-modify playlist-read-private \
                      playlist-read-collaborative playlist-modify-private playlist-modify-public ugc-image-upload \
                      user-top-read user-read-recently-played user-read-playback-state user-modify-playback-state \
                      user-read-currently-playing user-read-private user-read-email user-read-playback-position streaming";

/// Routes whose answer is not one the description documents, with the
/// status they give. Empty: every route answers as documented.
const UNDOCUMENTED: &[&str] = &[];

/// Where the description is stricter than Spotify's own answers, which
/// clients rely on: (operation, the start of the issue, why it is kept).
const ACCEPTED: &[(&str, &str, &str)] = &[
    // Spotify's reference: "If an object is not found, a null value is returned
    // in the appropriate position"; the description's items are not nullable.
    ("GET /shows 200", "body.shows.0: null", "null for an unknown id"),
    ("GET /episodes 200", "body.episodes.0: null", "null for an unknown id"),
    ("GET /audiobooks 200", "body.audiobooks.0: null", "null for an unknown id"),
    ("GET /chapters 200", "body.chapters.0: null", "null for an unknown id"),
    // The last page of a cursor-paged list has no next page and no cursor:
    // Spotify answers null and spotipy's `next()` stops on it.
    ("GET /me/following 200", "body.artists.next: null", "end of the list"),
    ("GET /me/following 200", "body.artists.cursors.after: null", "end of the list"),
    ("GET /me/following 200", "body.artists.cursors.before: null", "end of the list"),
    ("GET /me/player/recently-played 200", "body.next: null", "end of the list"),
    // A play outside a playlist or album has no context (tekore: `context: Context = None`).
    ("GET /me/player/recently-played 200", "body.items.0.context: null", "a play without a context"),
];

/// Operations checked against Spotify's official description instead of
/// the community-fixed one, where the two disagree and Spotify's own answers
/// follow the official one (docs/decisions.md, "Saved audiobooks").
const FROM_OFFICIAL: &[&str] = &["GET /me/audiobooks"];

/// Properties Spotify itself leaves out when they do not apply; the
/// description declares them without allowing null.
const OMITTED_WHEN_NOT_APPLICABLE: &[&str] =
    &["restrictions", "linked_from", "external_ids.isrc", "external_ids.ean", "external_ids.upc"];

fn description() -> Option<Spec> {
    description_named("spotify-web-api.fixed.yml")
}

fn description_named(file: &str) -> Option<Spec> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/specs/openapi3").join(file);
    match std::fs::read(&path) {
        Ok(bytes) => Some(spec::parse(&bytes).expect("the Spotify description parses")),
        Err(_) => {
            eprintln!("skipping the Spotify schema check: ../shared/specs/openapi3/{file} is not beside the checkout");
            None
        }
    }
}

/// The operation whose path template matches `path` (without `/v1` and query).
fn operation<'a>(spec: &'a Spec, method: &Method, path: &str) -> Option<&'a spec::Operation> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    spec.operations.iter().find(|op| {
        let template: Vec<&str> = op.path.trim_matches('/').split('/').collect();
        op.method.as_str().eq_ignore_ascii_case(method.as_str())
            && template.len() == segments.len()
            && template.iter().zip(&segments).all(|(t, s)| t.starts_with('{') || t == s)
    })
}

/// Properties the schema declares that `instance` lacks, as dotted paths.
fn missing_keys(spec: &Spec, schema: &Value, instance: &Value, at: &str, out: &mut Vec<String>, depth: usize) {
    if depth > 24 {
        return;
    }
    let Some(schema) = spec.resolve_value(schema) else { return };
    if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
        for part in parts {
            missing_keys(spec, part, instance, at, out, depth + 1);
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            // The branch whose `type` enum names the instance's `type`.
            let kind = instance.get("type").cloned().unwrap_or(Value::Null);
            let chosen = branches.iter().find(|b| {
                let b = spec.resolve_value(b).unwrap_or(b);
                let declared = b.pointer("/properties/type/enum").or_else(|| {
                    b.get("allOf")?
                        .as_array()?
                        .iter()
                        .find_map(|p| spec.resolve_value(p)?.pointer("/properties/type/enum"))
                });
                declared.and_then(Value::as_array).is_some_and(|e| e.contains(&kind))
            });
            if let Some(branch) = chosen {
                missing_keys(spec, branch, instance, at, out, depth + 1);
            }
        }
    }
    match instance {
        Value::Object(map) => {
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    match map.get(name) {
                        None if !OMITTED_WHEN_NOT_APPLICABLE.iter().any(|o| format!("{at}.{name}").ends_with(o)) => {
                            out.push(format!("{at}.{name}"));
                        }
                        None => {}
                        Some(child) => missing_keys(spec, sub, child, &format!("{at}.{name}"), out, depth + 1),
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(sub) = schema.get("items") {
                for (i, item) in items.iter().enumerate().take(3) {
                    missing_keys(spec, sub, item, &format!("{at}[{i}]"), out, depth + 1);
                }
            }
        }
        _ => {}
    }
}

struct Checker {
    spec: Spec,
    set: SchemaSet,
    /// The official description, for [`FROM_OFFICIAL`].
    official: (Spec, SchemaSet),
    called: BTreeSet<String>,
    undocumented: BTreeSet<String>,
    problems: Vec<String>,
}

impl Checker {
    async fn call(
        &mut self,
        app: &TestApp,
        method: Method,
        url: &str,
        token: &str,
        body: Option<(&str, Vec<u8>)>,
    ) -> Value {
        let response = app.request(method.clone(), url, Some(token), body).await;
        let path = url.split('?').next().unwrap_or(url).trim_start_matches("/v1");
        let Some(op) = operation(&self.spec, &method, path) else {
            self.problems.push(format!("{method} {path}: no operation of the description matches"));
            return Value::Null;
        };
        let name = format!("{} {}", method, op.path);
        self.called.insert(name.clone());
        let status = response.status.as_u16();
        assert!(status < 500, "{name}: {status} {}", String::from_utf8_lossy(&response.body));
        let Some(documented) = op.responses.get(&status.to_string()) else {
            self.undocumented.insert(format!("{name} {status}"));
            if status >= 400 {
                // Still Spotify's error object.
                let body = response.json();
                if body["error"]["status"] != status || !body["error"]["message"].is_string() {
                    self.problems.push(format!("{name} {status}: not Spotify's error object: {body}"));
                }
                return body;
            }
            return if response.body.is_empty() { Value::Null } else { response.json() };
        };
        let (spec, set, documented) = if FROM_OFFICIAL.contains(&name.as_str()) {
            let official = operation(&self.official.0, &method, path)
                .and_then(|op| op.responses.get(&status.to_string()))
                .expect("the official description documents this answer");
            (&self.official.0, &self.official.1, official)
        } else {
            (&self.spec, &self.set, documented)
        };
        let Some(schema) = documented.content.get("application/json").and_then(|m| m.schema.as_ref()) else {
            if !response.body.is_empty() && status != 202 && status != 201 && status != 200 {
                self.problems.push(format!("{name} {status}: a body where the description has none"));
            }
            return if response.body.is_empty() { Value::Null } else { response.json() };
        };
        let body = response.json();
        let validator = set.validator(spec, schema).expect("the response schema compiles");
        let operation = format!("{name} {status}");
        for issue in issues(&validator, &body, "body") {
            let text: String = format!("{}: {}", issue.path, issue.message).chars().take(300).collect();
            if !ACCEPTED.iter().any(|(op, start, _)| *op == operation && text.starts_with(start)) {
                self.problems.push(format!("{operation}: {text}"));
            }
        }
        let mut missing = Vec::new();
        missing_keys(spec, schema, &body, "body", &mut missing, 0);
        for key in missing {
            self.problems.push(format!("{name} {status}: missing {key}"));
        }
        body
    }

    async fn get(&mut self, app: &TestApp, url: &str, token: &str) -> Value {
        self.call(app, Method::GET, url, token, None).await
    }

    async fn send(&mut self, app: &TestApp, method: Method, url: &str, token: &str, body: &Value) -> Value {
        self.call(app, method, url, token, Some(("application/json", body.to_string().into_bytes()))).await
    }
}

async fn every_route_answers_in_spotify_schema(app: TestApp) {
    let Some(spec) = description() else { return };
    let set = SchemaSet::new(&spec);
    let official =
        description_named("spotify-web-api.official.yml").expect("the official description sits beside the fixed one");
    let official = {
        let set = SchemaSet::new(&official);
        (official, set)
    };
    let mut c =
        Checker { spec, set, official, called: BTreeSet::new(), undocumented: BTreeSet::new(), problems: Vec::new() };
    let token = app.user_token("ada", SCOPES).await;
    let me = app.get("/v1/me", &token).await.json()["id"].as_str().unwrap().to_owned();
    let t = app.track_ids(&token).await;
    let track = c.get(&app, &format!("/v1/tracks/{}", t[0]), &token).await;
    let album = track["album"]["id"].as_str().unwrap().to_owned();
    let artist = track["artists"][0]["id"].as_str().unwrap().to_owned();
    let missing_id = "0000000000000000000000";
    let uri = |i: usize| format!("spotify:track:{}", t[i]);

    // Catalog reads.
    c.get(&app, &format!("/v1/tracks?ids={},{}", t[0], t[1]), &token).await;
    c.get(&app, &format!("/v1/albums/{album}"), &token).await;
    c.get(&app, &format!("/v1/albums?ids={album}"), &token).await;
    c.get(&app, &format!("/v1/albums/{album}/tracks"), &token).await;
    c.get(&app, &format!("/v1/artists/{artist}"), &token).await;
    c.get(&app, &format!("/v1/artists?ids={artist}"), &token).await;
    c.get(&app, &format!("/v1/artists/{artist}/albums"), &token).await;
    c.get(&app, &format!("/v1/artists/{artist}/top-tracks?market=US"), &token).await;
    c.get(&app, &format!("/v1/artists/{artist}/related-artists"), &token).await;
    c.get(&app, "/v1/search?q=a&type=track,album,artist,playlist,show,episode,audiobook", &token).await;
    c.get(&app, "/v1/browse/new-releases", &token).await;
    c.get(&app, "/v1/browse/featured-playlists", &token).await;
    let categories = c.get(&app, "/v1/browse/categories", &token).await;
    let category = categories["categories"]["items"][0]["id"].as_str().unwrap().to_owned();
    c.get(&app, &format!("/v1/browse/categories/{category}"), &token).await;
    c.get(&app, &format!("/v1/browse/categories/{category}/playlists"), &token).await;
    c.get(&app, "/v1/markets", &token).await;
    c.get(&app, "/v1/recommendations/available-genre-seeds", &token).await;
    c.get(&app, &format!("/v1/audio-features?ids={},{}", t[0], t[1]), &token).await;
    c.get(&app, &format!("/v1/audio-features/{}", t[0]), &token).await;
    c.get(&app, &format!("/v1/audio-analysis/{}", t[0]), &token).await;
    c.get(&app, &format!("/v1/recommendations?seed_tracks={}&limit=3", t[0]), &token).await;
    // Podcasts and audiobooks: the demo's show and audiobook; an unknown id
    // first in each several-id lookup answers null.
    let found =
        c.get(&app, "/v1/search?q=signal&type=track,album,artist,playlist,show,episode,audiobook", &token).await;
    let show = found["shows"]["items"][0]["id"].as_str().unwrap().to_owned();
    let found =
        c.get(&app, "/v1/search?q=engine&type=track,album,artist,playlist,show,episode,audiobook", &token).await;
    let book = found["audiobooks"]["items"][0]["id"].as_str().unwrap().to_owned();
    let mut spoken = Vec::new();
    for (kind, id, items, item_kind) in
        [("shows", &show, "episodes", "episodes"), ("audiobooks", &book, "chapters", "chapters")]
    {
        c.get(&app, &format!("/v1/{kind}/{id}"), &token).await;
        c.get(&app, &format!("/v1/{kind}?ids={missing_id},{id}"), &token).await;
        let page = c.get(&app, &format!("/v1/{kind}/{id}/{items}?limit=1"), &token).await;
        let item = page["items"][0]["id"].as_str().unwrap().to_owned();
        c.get(&app, &format!("/v1/{item_kind}/{item}"), &token).await;
        c.get(&app, &format!("/v1/{item_kind}?ids={missing_id},{item}"), &token).await;
        spoken.push((kind, id.clone()));
        if item_kind == "episodes" {
            spoken.push(("episodes", item));
        }
    }
    // The user and the library.
    c.get(&app, "/v1/me", &token).await;
    c.get(&app, &format!("/v1/users/{me}"), &token).await;
    c.send(&app, Method::PUT, &format!("/v1/me/tracks?ids={}", t[0]), &token, &json!({})).await;
    c.send(&app, Method::PUT, &format!("/v1/me/albums?ids={album}"), &token, &json!({})).await;
    c.get(&app, "/v1/me/tracks", &token).await;
    c.get(&app, "/v1/me/albums", &token).await;
    c.get(&app, &format!("/v1/me/tracks/contains?ids={}", t[0]), &token).await;
    c.get(&app, &format!("/v1/me/albums/contains?ids={album}"), &token).await;
    c.send(&app, Method::DELETE, &format!("/v1/me/tracks?ids={}", t[0]), &token, &json!({})).await;
    c.send(&app, Method::DELETE, &format!("/v1/me/albums?ids={album}"), &token, &json!({})).await;
    for (kind, id) in &spoken {
        c.send(&app, Method::PUT, &format!("/v1/me/{kind}?ids={id}"), &token, &json!({})).await;
        c.get(&app, &format!("/v1/me/{kind}"), &token).await;
        c.get(&app, &format!("/v1/me/{kind}/contains?ids={id},{missing_id}"), &token).await;
        c.send(&app, Method::DELETE, &format!("/v1/me/{kind}?ids={id}"), &token, &json!({})).await;
    }
    c.send(&app, Method::PUT, &format!("/v1/me/library?uris={}", uri(1)), &token, &json!({})).await;
    c.get(&app, &format!("/v1/me/library/contains?uris={}", uri(1)), &token).await;
    c.send(&app, Method::DELETE, &format!("/v1/me/library?uris={}", uri(1)), &token, &json!({})).await;
    c.send(&app, Method::PUT, &format!("/v1/me/following?type=artist&ids={artist}"), &token, &json!({})).await;
    c.get(&app, "/v1/me/following?type=artist", &token).await;
    c.get(&app, &format!("/v1/me/following/contains?type=artist&ids={artist}"), &token).await;
    c.send(&app, Method::DELETE, &format!("/v1/me/following?type=artist&ids={artist}"), &token, &json!({})).await;

    // Playlists.
    let created = c.send(&app, Method::POST, "/v1/me/playlists", &token, &json!({ "name": "Checked" })).await;
    let pl = created["id"].as_str().unwrap().to_owned();
    c.send(&app, Method::POST, &format!("/v1/users/{me}/playlists"), &token, &json!({ "name": "Second" })).await;
    c.send(&app, Method::PUT, &format!("/v1/playlists/{pl}"), &token, &json!({ "description": "all routes" })).await;
    for route in ["items", "tracks"] {
        let items = format!("/v1/playlists/{pl}/{route}");
        c.send(&app, Method::POST, &items, &token, &json!({ "uris": [uri(0), uri(1), uri(2)] })).await;
        c.get(&app, &items, &token).await;
        c.send(&app, Method::PUT, &items, &token, &json!({ "range_start": 0, "insert_before": 2 })).await;
        c.send(&app, Method::DELETE, &items, &token, &json!({ "tracks": [{ "uri": uri(2) }] })).await;
    }
    c.get(&app, &format!("/v1/playlists/{pl}"), &token).await;
    c.get(&app, "/v1/me/playlists", &token).await;
    c.get(&app, &format!("/v1/users/{me}/playlists"), &token).await;
    let jpeg = [0xFF_u8, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F', b'I', b'F'];
    let b64 = base64::engine::general_purpose::STANDARD.encode(jpeg).into_bytes();
    c.call(&app, Method::PUT, &format!("/v1/playlists/{pl}/images"), &token, Some(("image/jpeg", b64))).await;
    c.get(&app, &format!("/v1/playlists/{pl}/images"), &token).await;
    c.send(&app, Method::PUT, &format!("/v1/playlists/{pl}/followers"), &token, &json!({})).await;
    c.get(&app, &format!("/v1/playlists/{pl}/followers/contains?ids={me}"), &token).await;
    c.send(&app, Method::DELETE, &format!("/v1/playlists/{pl}/followers"), &token, &json!({})).await;

    // Listening history and the player.
    app.catalog.record_play(&me, &t[0], None).await.unwrap();
    c.get(&app, "/v1/me/top/tracks", &token).await;
    c.get(&app, "/v1/me/top/artists", &token).await;
    c.get(&app, "/v1/me/player/recently-played", &token).await;
    // Nothing playing yet: 204, as documented.
    c.get(&app, "/v1/me/player", &token).await;
    // A device (the protocol is the catalog's own, outside the description).
    let device = app.send_json(Method::POST, "/connect/devices", &token, &json!({ "name": "Checker" })).await.json();
    let device = device["id"].as_str().unwrap().to_owned();
    c.send(&app, Method::PUT, "/v1/me/player", &token, &json!({ "device_ids": [device] })).await;
    let context = json!({ "context_uri": format!("spotify:album:{album}"), "offset": { "position": 0 } });
    c.send(&app, Method::PUT, "/v1/me/player/play", &token, &context).await;
    c.send(&app, Method::POST, &format!("/v1/me/player/queue?uri={}", uri(1)), &token, &json!({})).await;
    c.get(&app, "/v1/me/player", &token).await;
    c.get(&app, "/v1/me/player/currently-playing", &token).await;
    c.get(&app, "/v1/me/player/devices", &token).await;
    c.get(&app, "/v1/me/player/queue", &token).await;
    c.send(&app, Method::PUT, "/v1/me/player/pause", &token, &json!({})).await;
    c.send(&app, Method::POST, "/v1/me/player/next", &token, &json!({})).await;
    c.send(&app, Method::POST, "/v1/me/player/previous", &token, &json!({})).await;
    c.send(&app, Method::PUT, "/v1/me/player/seek?position_ms=1000", &token, &json!({})).await;
    c.send(&app, Method::PUT, "/v1/me/player/repeat?state=off", &token, &json!({})).await;
    c.send(&app, Method::PUT, "/v1/me/player/volume?volume_percent=50", &token, &json!({})).await;
    c.send(&app, Method::PUT, "/v1/me/player/shuffle?state=true", &token, &json!({})).await;
    c.send(&app, Method::PUT, "/v1/me/player/play", &token, &json!({ "uris": [uri(0)] })).await;

    let all: BTreeSet<String> =
        c.spec.operations.iter().map(|op| format!("{} {}", op.method.as_str().to_uppercase(), op.path)).collect();
    let uncalled: Vec<&String> = all.difference(&c.called).collect();
    assert!(uncalled.is_empty(), "operations never called: {uncalled:#?}");
    assert!(
        c.problems.is_empty(),
        "{} answers do not match Spotify's schema:\n{}",
        c.problems.len(),
        c.problems.join("\n")
    );
    let undocumented: Vec<&str> = c.undocumented.iter().map(String::as_str).collect();
    assert_eq!(undocumented, UNDOCUMENTED, "answers with a status the description does not document");
}
