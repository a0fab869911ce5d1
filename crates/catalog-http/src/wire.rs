//! Spotify's object shapes, built from domain types.
//!
//! Every field of Spotify's schema is emitted, with `null`, `[]`, `""` or
//! `{}` where the catalog has no value: strict clients (tekore's models,
//! rspotify's serde types) reject a missing key but accept a null. `null` is
//! used only where the schema allows it (or Spotify itself answers it);
//! a string the schema does not let be null is `""`. The exceptions are
//! what Spotify itself leaves out when it does not apply: `restrictions`,
//! `linked_from`, and the `external_ids` the catalog does not know.

use catalog_core::audio::{AudioAnalysis, AudioFeatures};
use catalog_core::markets::Markets;
use catalog_core::player::{Device, NowPlaying};
use catalog_core::{
    Album, Artist, ArtistRef, Episode, ItemKind, Playable, Playlist, PlaylistItem, Show, Track, User, Window,
};
use kernel::Timestamp;
use serde_json::{Value, json};

use crate::extract::Query;

/// Builds wire objects with absolute links on the catalog's public origin.
#[derive(Clone, Copy, Debug)]
pub struct Wire<'a> {
    pub base: &'a str,
    /// The configured markets: every item's `available_markets`.
    pub markets: &'a Markets,
    /// The request's `market` (upper case), which decides `is_playable`.
    pub market: Option<&'a str>,
    /// Signs `preview_url`s (without I/O: the `Auth` extractor loaded the key).
    pub catalog: &'a catalog_core::Catalog,
}

pub fn iso(at: Timestamp) -> String {
    // Spotify's timestamps carry whole seconds: 2026-01-01T00:00:00Z.
    let s = at.to_rfc3339();
    match s.split_once('.') {
        Some((head, _)) => format!("{head}Z"),
        None => s,
    }
}

impl Wire<'_> {
    fn available_markets(&self) -> Value {
        json!(self.markets.codes())
    }

    fn is_playable(&self) -> bool {
        self.markets.is_playable(self.market)
    }

    /// Adds Spotify's `restrictions` (reason `market`) to an object that is
    /// not playable in the request's market; Spotify leaves the key out
    /// otherwise.
    fn restrict(&self, mut v: Value) -> Value {
        if !self.is_playable()
            && let Some(map) = v.as_object_mut()
        {
            map.insert("restrictions".to_owned(), json!({ "reason": "market" }));
        }
        v
    }

    /// 30 seconds of the track (`/preview/{id}`), or null where its format
    /// cannot be cut without an ffmpeg that is not installed.
    fn preview_url(&self, t: &Track) -> Value {
        self.catalog
            .preview_signature(&t.id, &t.mime)
            .map_or(Value::Null, |sig| json!(format!("{}/preview/{}?signature={sig}", self.base, t.id)))
    }

    fn href(&self, plural: &str, id: &str) -> String {
        format!("{}/v1/{plural}/{id}", self.base)
    }

    fn external(&self, kind: &str, id: &str) -> Value {
        json!({ "spotify": format!("{}/{kind}/{id}", self.base) })
    }

    pub fn images(&self, image_id: Option<&str>) -> Value {
        match image_id {
            Some(id) => json!([{ "url": format!("{}/images/{id}", self.base), "height": null, "width": null }]),
            None => json!([]),
        }
    }

    pub fn artist_simple(&self, a: &ArtistRef) -> Value {
        json!({
            "external_urls": self.external("artist", &a.id),
            "href": self.href("artists", &a.id),
            "id": a.id,
            "name": a.name,
            "type": "artist",
            "uri": format!("spotify:artist:{}", a.id),
        })
    }

    pub fn artist(&self, a: &Artist) -> Value {
        json!({
            "external_urls": self.external("artist", &a.id),
            "followers": { "href": null, "total": a.followers },
            "genres": a.genres,
            "href": self.href("artists", &a.id),
            "id": a.id,
            "images": self.images(a.image_id.as_deref()),
            "name": a.name,
            "popularity": a.popularity,
            "type": "artist",
            "uri": format!("spotify:artist:{}", a.id),
        })
    }

    pub fn album_simple(&self, a: &Album) -> Value {
        self.restrict(json!({
            "album_type": a.album_type,
            "total_tracks": a.total_tracks,
            "available_markets": self.available_markets(),
            "external_urls": self.external("album", &a.id),
            "href": self.href("albums", &a.id),
            "id": a.id,
            "images": self.images(a.image_id.as_deref()),
            "name": a.name,
            "release_date": a.release_date,
            "release_date_precision": a.release_date_precision,
            "type": "album",
            "uri": format!("spotify:album:{}", a.id),
            "artists": a.artists.iter().map(|r| self.artist_simple(r)).collect::<Vec<_>>(),
            "is_playable": self.is_playable(),
        }))
    }

    /// An album in an artist's discography, with `album_group`.
    pub fn album_of_artist(&self, a: &Album, artist_id: &str) -> Value {
        let mut v = self.album_simple(a);
        let group = if a.artists.iter().any(|r| r.id == artist_id) { a.album_type.as_str() } else { "appears_on" };
        if let Some(map) = v.as_object_mut() {
            map.insert("album_group".to_owned(), json!(group));
        }
        v
    }

    pub fn album(&self, a: &Album, tracks: Value) -> Value {
        let mut v = self.album_simple(a);
        if let Some(map) = v.as_object_mut() {
            map.insert("tracks".to_owned(), tracks);
            map.insert(
                "copyrights".to_owned(),
                json!(a.label.as_ref().map(|l| vec![json!({"text": l, "type": "P"})]).unwrap_or_default()),
            );
            map.insert("external_ids".to_owned(), json!({}));
            map.insert("genres".to_owned(), json!(a.genres));
            map.insert("label".to_owned(), json!(a.label.as_deref().unwrap_or("")));
            map.insert("popularity".to_owned(), json!(a.popularity));
        }
        v
    }

    pub fn track_simple(&self, t: &Track) -> Value {
        self.restrict(json!({
            "artists": t.artists.iter().map(|r| self.artist_simple(r)).collect::<Vec<_>>(),
            "available_markets": self.available_markets(),
            "disc_number": t.disc_number,
            "duration_ms": t.duration_ms,
            "explicit": t.explicit,
            "external_urls": self.external("track", &t.id),
            "href": self.href("tracks", &t.id),
            "id": t.id,
            "is_playable": self.is_playable(),
            "name": t.name,
            "preview_url": self.preview_url(t),
            "track_number": t.track_number,
            "type": "track",
            "uri": format!("spotify:track:{}", t.id),
            "is_local": false,
        }))
    }

    pub fn track(&self, t: &Track) -> Value {
        let mut v = self.track_simple(t);
        if let Some(map) = v.as_object_mut() {
            map.insert("album".to_owned(), self.album_simple(&t.album));
            let ids = t.isrc.as_ref().map_or_else(|| json!({}), |isrc| json!({ "isrc": isrc }));
            map.insert("external_ids".to_owned(), ids);
            map.insert("popularity".to_owned(), json!(t.popularity));
        }
        v
    }

    pub fn user_public(&self, u: &User) -> Value {
        json!({
            "display_name": u.display_name,
            "external_urls": self.external("user", &u.id),
            "followers": { "href": null, "total": u.followers },
            "href": self.href("users", &u.id),
            "id": u.id,
            "images": [],
            "type": "user",
            "uri": format!("spotify:user:{}", u.id),
        })
    }

    pub fn user_private(&self, u: &User) -> Value {
        let mut v = self.user_public(u);
        if let Some(map) = v.as_object_mut() {
            map.insert("account_id".to_owned(), json!(u.id));
            map.insert("country".to_owned(), json!(u.country));
            map.insert("email".to_owned(), json!(format!("{}@catalog.invalid", u.username)));
            map.insert("explicit_content".to_owned(), json!({ "filter_enabled": false, "filter_locked": false }));
            map.insert("product".to_owned(), json!("premium"));
        }
        v
    }

    pub fn playlist_simple(&self, p: &Playlist) -> Value {
        let items_ref = json!({ "href": format!("{}/items", self.href("playlists", &p.id)), "total": p.total_items });
        let tracks_ref = json!({ "href": format!("{}/tracks", self.href("playlists", &p.id)), "total": p.total_items });
        json!({
            "collaborative": p.collaborative,
            "description": p.description.clone().unwrap_or_default(),
            "external_urls": self.external("playlist", &p.id),
            "href": self.href("playlists", &p.id),
            "id": p.id,
            "images": self.images(p.image_id.as_deref()),
            "name": p.name,
            "owner": self.user_public(&p.owner),
            "primary_color": null,
            "public": p.public,
            "snapshot_id": p.snapshot_id,
            "tracks": tracks_ref,
            "items": items_ref,
            "type": "playlist",
            "uri": format!("spotify:playlist:{}", p.id),
        })
    }

    pub fn playlist(&self, p: &Playlist, items: &Value) -> Value {
        let mut v = self.playlist_simple(p);
        if let Some(map) = v.as_object_mut() {
            map.insert("followers".to_owned(), json!({ "href": null, "total": p.followers }));
            map.insert("tracks".to_owned(), items.clone());
            map.insert("items".to_owned(), items.clone());
        }
        v
    }

    /// A playlist item: `track` (and `item`) is a full track or a full
    /// episode object, each with Spotify's legacy `track`/`episode` flags.
    pub fn playlist_item(&self, item: &PlaylistItem) -> Value {
        let episode = matches!(item.item, Playable::Episode(_));
        let mut track = self.playable(&item.item);
        if let Some(map) = track.as_object_mut() {
            map.insert("episode".to_owned(), json!(episode));
            map.insert("track".to_owned(), json!(!episode));
        }
        json!({
            "added_at": iso(item.added_at),
            "added_by": {
                "external_urls": self.external("user", &item.added_by),
                "followers": { "href": null, "total": 0 },
                "href": self.href("users", &item.added_by),
                "id": item.added_by,
                "type": "user",
                "uri": format!("spotify:user:{}", item.added_by),
            },
            "is_local": false,
            "primary_color": null,
            "video_thumbnail": { "url": null },
            "track": track.clone(),
            "item": track,
        })
    }

    pub fn saved(&self, added_at: Timestamp, key: &str, item: Value) -> Value {
        json!({ "added_at": iso(added_at), key: item })
    }

    pub fn features(&self, id: &str, f: &AudioFeatures) -> Value {
        json!({
            "acousticness": f.acousticness,
            "analysis_url": format!("{}/v1/audio-analysis/{id}", self.base),
            "danceability": f.danceability,
            "duration_ms": f.duration_ms,
            "energy": f.energy,
            "id": id,
            "instrumentalness": f.instrumentalness,
            "key": f.key,
            "liveness": f.liveness,
            "loudness": f.loudness,
            "mode": f.mode,
            "speechiness": f.speechiness,
            "tempo": f.tempo,
            "time_signature": f.time_signature,
            "track_href": self.href("tracks", id),
            "type": "audio_features",
            "uri": format!("spotify:track:{id}"),
            "valence": f.valence,
        })
    }

    pub fn analysis(&self, a: &AudioAnalysis, analysed_at: Timestamp) -> Value {
        json!({
            "meta": {
                "analyzer_version": "catalog-1",
                "platform": "rust",
                "detailed_status": "OK",
                "status_code": 0,
                "timestamp": analysed_at.as_millis() / 1000,
                "analysis_time": 0.0,
                "input_process": "symphonia",
            },
            "track": {
                "num_samples": a.num_samples,
                "duration": a.duration,
                "sample_md5": "",
                "offset_seconds": 0,
                "window_seconds": 0,
                "analysis_sample_rate": a.analysis_sample_rate,
                "analysis_channels": 1,
                "end_of_fade_in": a.end_of_fade_in,
                "start_of_fade_out": a.start_of_fade_out,
                "loudness": a.loudness,
                "tempo": a.tempo,
                "tempo_confidence": a.tempo_confidence,
                "time_signature": a.time_signature,
                "time_signature_confidence": a.time_signature_confidence,
                "key": a.key,
                "key_confidence": a.key_confidence,
                "mode": a.mode,
                "mode_confidence": a.mode_confidence,
                "codestring": "",
                "code_version": 0.0,
                "echoprintstring": "",
                "echoprint_version": 0.0,
                "synchstring": "",
                "synch_version": 0.0,
                "rhythmstring": "",
                "rhythm_version": 0.0,
            },
            "bars": a.bars,
            "beats": a.beats,
            "sections": a.sections,
            "segments": a.segments,
            "tatums": a.tatums,
        })
    }

    pub fn device(&self, d: &Device) -> Value {
        json!({
            "id": d.id,
            "is_active": d.is_active,
            "is_private_session": false,
            "is_restricted": false,
            "name": d.name,
            "type": d.device_type,
            "volume_percent": d.volume_percent,
            "supports_volume": d.supports_volume,
        })
    }

    /// A context object for `spotify:<type>:<id>`, or `null` without one.
    pub fn context(&self, uri: Option<&str>) -> Value {
        let Some(uri) = uri else { return Value::Null };
        let mut parts = uri.rsplitn(2, ':');
        let id = parts.next().unwrap_or("");
        let kind = parts.next().and_then(|rest| rest.rsplit(':').next()).unwrap_or("");
        json!({
            "type": kind,
            "href": self.href(&format!("{kind}s"), id),
            "external_urls": self.external(kind, id),
            "uri": uri,
        })
    }

    /// `CurrentlyPlayingObject`, and with `device` the
    /// `CurrentlyPlayingContextObject` of `GET /me/player`.
    pub fn playback(&self, now: &NowPlaying, device: bool) -> Value {
        let s = &now.state;
        let has_item = now.item.is_some();
        let disallows = json!({
            "interrupting_playback": false,
            "pausing": !s.is_playing,
            "resuming": s.is_playing || !has_item,
            "seeking": !has_item,
            "skipping_next": !has_item,
            "skipping_prev": !has_item,
            "toggling_repeat_context": false,
            "toggling_shuffle": false,
            "toggling_repeat_track": false,
            "transferring_playback": false,
        });
        // Spotify answers `actions: {disallows: {...}}` (tekore requires
        // `disallows`); the description declares the flags on `actions`
        // itself. Both are sent.
        let mut actions = disallows.clone();
        if let Some(map) = actions.as_object_mut() {
            map.insert("disallows".to_owned(), disallows);
        }
        let mut v = json!({
            "context": self.context(s.context_uri.as_deref()),
            "timestamp": s.changed_at,
            "progress_ms": if has_item { json!(now.progress_ms) } else { Value::Null },
            "is_playing": s.is_playing,
            "item": now.item.as_ref().map(|p| self.playable(p)),
            "currently_playing_type": match &now.item {
                Some(Playable::Track(_)) => "track",
                Some(Playable::Episode(_)) => "episode",
                None => "unknown",
            },
            "actions": actions,
        });
        if let (true, Some(map)) = (device, v.as_object_mut()) {
            map.insert("device".to_owned(), self.device(&now.device));
            map.insert("repeat_state".to_owned(), json!(s.repeat.as_str()));
            map.insert("shuffle_state".to_owned(), json!(s.shuffle));
            map.insert("smart_shuffle".to_owned(), json!(false));
        }
        v
    }

    /// An offset paging object whose `next`/`previous` repeat every query
    /// parameter of the request with only `offset` (and `limit`) changed.
    pub fn paging(&self, query: &Query, items: Vec<Value>, window: Window, total: u64) -> Value {
        let link = |offset: u64| -> String {
            let mut pairs: Vec<(String, String)> =
                query.pairs.iter().filter(|(k, _)| k != "offset" && k != "limit").cloned().collect();
            pairs.push(("offset".to_owned(), offset.to_string()));
            pairs.push(("limit".to_owned(), window.limit.to_string()));
            let qs = serde_urlencoded::to_string(&pairs).unwrap_or_default();
            format!("{}{}?{qs}", self.base, query.path)
        };
        let limit = u64::from(window.limit);
        let next = (window.offset + limit < total).then(|| link(window.offset + limit));
        let previous = (window.offset > 0).then(|| link(window.offset.saturating_sub(limit)));
        json!({
            "href": link(window.offset),
            "items": items,
            "limit": window.limit,
            "next": next,
            "offset": window.offset,
            "previous": previous,
            "total": total,
        })
    }
}

/// Podcasts and audiobooks.
impl Wire<'_> {
    fn copyrights(publisher: &str) -> Value {
        if publisher.is_empty() { json!([]) } else { json!([{ "text": publisher, "type": "P" }]) }
    }

    /// `SimplifiedShowObject` or `SimplifiedAudiobookObject`, as the show's kind says.
    pub fn show_simple(&self, s: &Show) -> Value {
        let kind = s.kind.as_str();
        let plural = format!("{kind}s");
        let mut v = json!({
            "available_markets": self.available_markets(),
            "copyrights": Self::copyrights(&s.publisher),
            "description": s.description,
            "html_description": html_escape(&s.description),
            "explicit": false,
            "external_urls": self.external(kind, &s.id),
            "href": self.href(&plural, &s.id),
            "id": s.id,
            "images": self.images(s.image_id.as_deref()),
            "languages": [],
            "media_type": "audio",
            "name": s.name,
            "publisher": s.publisher,
            "type": kind,
            "uri": format!("spotify:{kind}:{}", s.id),
        });
        if let Some(map) = v.as_object_mut() {
            if s.kind == ItemKind::Audiobook {
                let author = if s.publisher.is_empty() { json!([]) } else { json!([{ "name": s.publisher }]) };
                map.insert("authors".to_owned(), author);
                map.insert("narrators".to_owned(), json!([]));
                map.insert("edition".to_owned(), json!(""));
                map.insert("total_chapters".to_owned(), json!(s.total));
            } else {
                map.insert("is_externally_hosted".to_owned(), json!(false));
                map.insert("total_episodes".to_owned(), json!(s.total));
            }
        }
        v
    }

    /// `ShowObject` (with `episodes`) or `AudiobookObject` (with `chapters`).
    pub fn show(&self, s: &Show, items: Value) -> Value {
        let mut v = self.show_simple(s);
        let key = if s.kind == ItemKind::Audiobook { "chapters" } else { "episodes" };
        if let Some(map) = v.as_object_mut() {
            map.insert(key.to_owned(), items);
        }
        v
    }

    /// `SimplifiedEpisodeObject` or `SimplifiedChapterObject`.
    pub fn episode_simple(&self, e: &Episode) -> Value {
        let kind = e.kind().as_str();
        // Spotify types a chapter as an episode (its description allows only
        // `"episode"`), with a `spotify:episode:` URI; its href stays
        // under /chapters, where it is looked up.
        let spotify_kind = "episode";
        let mut v = json!({
            "audio_preview_url": null,
            "description": e.description,
            "html_description": html_escape(&e.description),
            "duration_ms": e.duration_ms,
            "explicit": false,
            "external_urls": self.external(spotify_kind, &e.id),
            "href": self.href(&format!("{kind}s"), &e.id),
            "id": e.id,
            "images": self.images(e.show.image_id.as_deref()),
            "is_playable": self.is_playable(),
            "languages": [],
            "name": e.name,
            "release_date": e.release_date,
            "release_date_precision": e.release_date_precision,
            "resume_point": { "fully_played": e.fully_played, "resume_position_ms": e.resume_position_ms },
            "type": spotify_kind,
            "uri": format!("spotify:{spotify_kind}:{}", e.id),
        });
        if let Some(map) = v.as_object_mut() {
            if e.kind() == ItemKind::Chapter {
                map.insert("chapter_number".to_owned(), json!(e.number));
                // Chapters list markets; episodes do not (Spotify's schemas).
                map.insert("available_markets".to_owned(), self.available_markets());
            } else {
                map.insert("is_externally_hosted".to_owned(), json!(false));
                map.insert("language".to_owned(), json!(""));
            }
        }
        self.restrict(v)
    }

    /// A track's or an episode's full object (what the player plays).
    pub fn playable(&self, p: &Playable) -> Value {
        match p {
            Playable::Track(t) => self.track(t),
            Playable::Episode(e) => self.episode(e),
        }
    }

    /// `EpisodeObject` (with `show`) or `ChapterObject` (with `audiobook`).
    pub fn episode(&self, e: &Episode) -> Value {
        let mut v = self.episode_simple(e);
        if let Some(map) = v.as_object_mut() {
            map.insert(e.show.kind.as_str().to_owned(), self.show_simple(&e.show));
        }
        v
    }
}

/// Plain text as HTML (`html_description`).
fn html_escape(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let escaped = text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    format!("<p>{escaped}</p>")
}
