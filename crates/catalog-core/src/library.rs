//! Reading the catalog: tracks, albums, artists, search, audio data and
//! recommendations, and each user's saved library and follows.

use std::collections::{BTreeSet, HashMap};

use kernel::Timestamp;

use crate::Catalog;
use crate::audio::{AudioAnalysis, AudioFeatures};
use crate::error::{CatalogError, CatalogResult};
use crate::ids::ItemKind;
use crate::model::{Album, Artist, Play, Saved, Slice, Track, Window};
use crate::search::SearchQuery;
use crate::store::SearchKind;

/// Bounds of one recommendation attribute (`min_*`, `max_*`, `target_*`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tunable {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub target: Option<f64>,
}

/// The seeds and tunables of `/recommendations`.
#[derive(Clone, Debug, Default)]
pub struct RecommendationRequest {
    pub seed_artists: Vec<String>,
    pub seed_tracks: Vec<String>,
    pub seed_genres: Vec<String>,
    pub tunables: HashMap<String, Tunable>,
    pub limit: usize,
}

/// One seed with the pool sizes Spotify reports.
#[derive(Clone, Debug)]
pub struct RecommendationSeed {
    pub kind: &'static str,
    pub id: String,
    pub initial_pool_size: u64,
    pub after_filtering_size: u64,
}

/// The feature fields that `/recommendations` can tune.
pub const TUNABLE_FIELDS: &[&str] = &[
    "acousticness",
    "danceability",
    "duration_ms",
    "energy",
    "instrumentalness",
    "key",
    "liveness",
    "loudness",
    "mode",
    "popularity",
    "speechiness",
    "tempo",
    "time_signature",
    "valence",
];

fn feature_value(f: &AudioFeatures, popularity: u32, field: &str) -> Option<f64> {
    Some(match field {
        "acousticness" => f.acousticness,
        "danceability" => f.danceability,
        "duration_ms" => f.duration_ms as f64,
        "energy" => f.energy,
        "instrumentalness" => f.instrumentalness,
        "key" => f64::from(f.key),
        "liveness" => f.liveness,
        "loudness" => f.loudness,
        "mode" => f64::from(f.mode),
        "popularity" => f64::from(popularity),
        "speechiness" => f.speechiness,
        "tempo" => f.tempo,
        "time_signature" => f64::from(f.time_signature),
        "valence" => f.valence,
        _ => return None,
    })
}

/// `short_term` (4 weeks), `medium_term` (6 months) or `long_term` (1 year).
pub fn time_range_start(now: Timestamp, range: &str) -> CatalogResult<Timestamp> {
    let days = match range {
        "short_term" => 28,
        "medium_term" => 182,
        "long_term" => 365,
        other => return Err(CatalogError::invalid(format!("invalid time_range {other:?}"))),
    };
    Ok(now.plus_days(-days))
}

/// A page of the listening history, newest first.
#[derive(Clone, Debug)]
pub struct History {
    pub plays: Vec<Play>,
    /// Every play the cursor (`after` or `before`) selects, not only this page.
    pub total: u64,
    /// Whether plays older than this page's oldest exist (a `next` page).
    pub older: bool,
}

impl Catalog {
    pub async fn track(&self, id: &str) -> CatalogResult<Track> {
        self.store.tracks(&[id.to_owned()]).await?.into_iter().flatten().next().ok_or(CatalogError::NotFound("track"))
    }

    pub async fn tracks(&self, ids: &[String]) -> CatalogResult<Vec<Option<Track>>> {
        Ok(self.store.tracks(ids).await?)
    }

    pub async fn album(&self, id: &str) -> CatalogResult<Album> {
        self.store.albums(&[id.to_owned()]).await?.into_iter().flatten().next().ok_or(CatalogError::NotFound("album"))
    }

    pub async fn albums(&self, ids: &[String]) -> CatalogResult<Vec<Option<Album>>> {
        Ok(self.store.albums(ids).await?)
    }

    pub async fn artist(&self, id: &str) -> CatalogResult<Artist> {
        self.store.artists(&[id.to_owned()]).await?.into_iter().flatten().next().ok_or(CatalogError::NotFound("artist"))
    }

    pub async fn artists(&self, ids: &[String]) -> CatalogResult<Vec<Option<Artist>>> {
        Ok(self.store.artists(ids).await?)
    }

    async fn hydrate_tracks(&self, ids: Slice<String>) -> CatalogResult<Slice<Track>> {
        let tracks = self.store.tracks(&ids.items).await?;
        Ok(Slice { items: tracks.into_iter().flatten().collect(), total: ids.total })
    }

    async fn hydrate_albums(&self, ids: Slice<String>) -> CatalogResult<Slice<Album>> {
        let albums = self.store.albums(&ids.items).await?;
        Ok(Slice { items: albums.into_iter().flatten().collect(), total: ids.total })
    }

    pub async fn album_tracks(&self, id: &str, window: Window) -> CatalogResult<Slice<Track>> {
        self.album(id).await?;
        let ids = self.store.album_track_ids(id, window).await?;
        self.hydrate_tracks(ids).await
    }

    pub async fn artist_albums(&self, id: &str, window: Window) -> CatalogResult<Slice<Album>> {
        self.artist(id).await?;
        let ids = self.store.artist_album_ids(id, window).await?;
        self.hydrate_albums(ids).await
    }

    /// Up to ten of the artist's tracks, most played first.
    pub async fn artist_top_tracks(&self, id: &str) -> CatalogResult<Vec<Track>> {
        self.artist(id).await?;
        let ids = self.store.artist_top_track_ids(id, 10).await?;
        Ok(self.store.tracks(&ids).await?.into_iter().flatten().collect())
    }

    /// Artists sharing the most genres with `id` (at most 20).
    /// Artists related to `id` by shared genres, by `user`'s listening
    /// sessions (when a user calls) and by sound; see [`crate::related`].
    pub async fn related_artists(&self, id: &str, user: Option<&str>) -> CatalogResult<Vec<Artist>> {
        let artist = self.artist(id).await?;
        let others = self.store.artist_genres().await?;
        let sessions = match user {
            Some(user) => {
                let plays = self.store.played_artists(user, crate::related::SESSION_PLAYS).await?;
                crate::related::sessions_with(id, &plays)
            }
            None => HashMap::new(),
        };
        let mut per_artist: HashMap<String, Vec<AudioFeatures>> = HashMap::new();
        for (artist_id, json) in self.store.artist_features().await? {
            if let Ok(f) = serde_json::from_str::<AudioFeatures>(&json) {
                per_artist.entry(artist_id).or_default().push(f);
            }
        }
        let sounds: HashMap<String, [f64; 5]> =
            per_artist.iter().filter_map(|(a, fs)| crate::related::sound_of(fs).map(|s| (a.clone(), s))).collect();
        let target = crate::related::Target { id, genres: &artist.genres, sound: sounds.get(id).copied() };
        let ids = crate::related::rank(&target, &others, &sessions, &sounds);
        Ok(self.store.artists(&ids).await?.into_iter().flatten().collect())
    }

    pub async fn search_tracks(&self, q: &SearchQuery, window: Window) -> CatalogResult<Slice<Track>> {
        let ids = self.store.search_ids(SearchKind::Track, q, window).await?;
        self.hydrate_tracks(ids).await
    }

    pub async fn search_albums(&self, q: &SearchQuery, window: Window) -> CatalogResult<Slice<Album>> {
        let ids = self.store.search_ids(SearchKind::Album, q, window).await?;
        self.hydrate_albums(ids).await
    }

    pub async fn search_artists(&self, q: &SearchQuery, window: Window) -> CatalogResult<Slice<Artist>> {
        let ids = self.store.search_ids(SearchKind::Artist, q, window).await?;
        let artists = self.store.artists(&ids.items).await?;
        Ok(Slice { items: artists.into_iter().flatten().collect(), total: ids.total })
    }

    pub async fn new_releases(&self, window: Window) -> CatalogResult<Slice<Album>> {
        let ids = self.store.new_release_ids(window).await?;
        self.hydrate_albums(ids).await
    }

    /// Genre seeds: every genre of the library, lowercased and sorted.
    pub async fn genre_seeds(&self) -> CatalogResult<Vec<String>> {
        let mut set = BTreeSet::new();
        for (_, genres) in self.store.artist_genres().await? {
            set.extend(genres.into_iter().map(|g| g.to_lowercase()));
        }
        Ok(set.into_iter().collect())
    }

    pub async fn audio_features(&self, ids: &[String]) -> CatalogResult<Vec<Option<(String, AudioFeatures)>>> {
        let map = self.store.features(ids).await?;
        Ok(ids
            .iter()
            .map(|id| map.get(id).and_then(|raw| serde_json::from_str(raw).ok()).map(|f| (id.clone(), f)))
            .collect())
    }

    pub async fn audio_analysis(&self, id: &str) -> CatalogResult<AudioAnalysis> {
        let raw = self.store.analysis(id).await?.ok_or(CatalogError::NotFound("analysis"))?;
        serde_json::from_str(&raw).map_err(|e| CatalogError::Internal(format!("stored analysis is unreadable: {e}")))
    }

    /// Tracks near the seeds' features that satisfy every `min_*`/`max_*`
    /// bound, ranked by distance to the `target_*` values and to the seeds'
    /// mean features; seed tracks themselves are left out.
    pub async fn recommendations(
        &self,
        request: &RecommendationRequest,
    ) -> CatalogResult<(Vec<Track>, Vec<RecommendationSeed>)> {
        let seeds = request.seed_artists.len() + request.seed_tracks.len() + request.seed_genres.len();
        if seeds == 0 {
            return Err(CatalogError::invalid(
                "at least one seed (seed_artists, seed_tracks or seed_genres) is required",
            ));
        }
        if seeds > 5 {
            return Err(CatalogError::invalid("at most 5 seeds in total"));
        }
        let all = self.store.all_features().await?;
        let features: HashMap<String, AudioFeatures> =
            all.into_iter().filter_map(|(id, raw)| serde_json::from_str(&raw).ok().map(|f| (id, f))).collect();
        let mut pool: BTreeSet<String> = BTreeSet::new();
        let mut seed_info = Vec::new();
        let mut seed_vectors: Vec<&AudioFeatures> = Vec::new();
        for id in &request.seed_tracks {
            self.track(id).await?;
            if let Some(f) = features.get(id) {
                seed_vectors.push(f);
            }
            seed_info.push(RecommendationSeed {
                kind: "TRACK",
                id: id.clone(),
                initial_pool_size: features.len() as u64,
                after_filtering_size: 0,
            });
        }
        for id in &request.seed_artists {
            let seed = self.artist(id).await?;
            let theirs = self.store.tracks_of_artists(std::slice::from_ref(id)).await?;
            seed_vectors.extend(theirs.iter().filter_map(|t| features.get(t)));
            // Artists sharing a genre with the seed rank higher.
            pool.extend(
                self.store
                    .artist_genres()
                    .await?
                    .into_iter()
                    .filter(|(other, genres)| other != id && genres.iter().any(|g| seed.genres.contains(g)))
                    .map(|(other, _)| other),
            );
            seed_info.push(RecommendationSeed {
                kind: "ARTIST",
                id: id.clone(),
                initial_pool_size: features.len() as u64,
                after_filtering_size: 0,
            });
        }
        let genre_tracks = self.store.track_genres().await?;
        for genre in &request.seed_genres {
            let g = genre.to_lowercase();
            seed_vectors.extend(genre_tracks.iter().filter(|(_, tg)| *tg == g).filter_map(|(t, _)| features.get(t)));
            seed_info.push(RecommendationSeed {
                kind: "GENRE",
                id: genre.clone(),
                initial_pool_size: features.len() as u64,
                after_filtering_size: 0,
            });
        }
        let ids: Vec<String> = features.keys().filter(|id| !request.seed_tracks.contains(id)).cloned().collect();
        let tracks: Vec<Track> = self.store.tracks(&ids).await?.into_iter().flatten().collect();
        let fields = ["acousticness", "danceability", "energy", "instrumentalness", "valence", "speechiness"];
        let mean = |field: &str| -> Option<f64> {
            let values: Vec<f64> = seed_vectors.iter().filter_map(|f| feature_value(f, 0, field)).collect();
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let seed_tempo = mean("tempo");
        let mut scored: Vec<(f64, Track)> = tracks
            .into_iter()
            .filter_map(|track| {
                let f = features.get(&track.id)?;
                for (field, tune) in &request.tunables {
                    let v = feature_value(f, track.popularity, field)?;
                    if tune.min.is_some_and(|m| v < m) || tune.max.is_some_and(|m| v > m) {
                        return None;
                    }
                }
                let mut distance = 0.0;
                for field in fields {
                    if let (Some(m), Some(v)) = (mean(field), feature_value(f, track.popularity, field)) {
                        distance += (m - v).powi(2);
                    }
                }
                if let Some(t) = seed_tempo {
                    distance += ((t - f.tempo) / 100.0).powi(2);
                }
                for (field, tune) in &request.tunables {
                    if let (Some(target), Some(v)) = (tune.target, feature_value(f, track.popularity, field)) {
                        let scale = match field.as_str() {
                            "tempo" => 100.0,
                            "loudness" => 60.0,
                            "duration_ms" => 300_000.0,
                            "popularity" => 100.0,
                            "key" => 11.0,
                            _ => 1.0,
                        };
                        distance += 2.0 * ((target - v) / scale).powi(2);
                    }
                }
                if track.artists.iter().any(|a| request.seed_artists.contains(&a.id) || pool.contains(&a.id)) {
                    distance *= 0.5;
                }
                Some((distance, track))
            })
            .collect();
        scored.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
        let after = scored.len() as u64;
        for seed in &mut seed_info {
            seed.after_filtering_size = after;
        }
        Ok((scored.into_iter().take(request.limit.clamp(1, 100)).map(|(_, t)| t).collect(), seed_info))
    }

    // ----- the user's library ---------------------------------------------

    /// Checks that every id names an existing item of `kind`.
    async fn ensure_exist(&self, kind: ItemKind, ids: &[String]) -> CatalogResult<()> {
        let missing = match kind {
            ItemKind::Track => self.store.tracks(ids).await?.iter().any(Option::is_none),
            ItemKind::Album => self.store.albums(ids).await?.iter().any(Option::is_none),
            ItemKind::Artist => self.store.artists(ids).await?.iter().any(Option::is_none),
            ItemKind::Playlist => {
                let mut any = false;
                for id in ids {
                    any |= self.store.playlist(id).await?.is_none();
                }
                any
            }
            ItemKind::User => {
                let mut any = false;
                for id in ids {
                    any |= self.store.user_by(crate::store::UserKey::Id, id).await?.is_none();
                }
                any
            }
            ItemKind::Show | ItemKind::Episode | ItemKind::Audiobook | ItemKind::Chapter => {
                !self.spoken_exist(kind, ids).await?
            }
        };
        if missing { Err(CatalogError::NotFound("item")) } else { Ok(()) }
    }

    /// Saves (or follows) items; saving twice keeps the first date.
    pub async fn save(&self, user_id: &str, kind: ItemKind, ids: &[String]) -> CatalogResult<()> {
        self.ensure_exist(kind, ids).await?;
        Ok(self.store.save_items(user_id, kind.as_str(), ids, self.clock.now()).await?)
    }

    pub async fn unsave(&self, user_id: &str, kind: ItemKind, ids: &[String]) -> CatalogResult<()> {
        Ok(self.store.remove_items(user_id, kind.as_str(), ids).await?)
    }

    pub async fn contains(&self, user_id: &str, kind: ItemKind, ids: &[String]) -> CatalogResult<Vec<bool>> {
        Ok(self.store.contains_items(user_id, kind.as_str(), ids).await?)
    }

    pub async fn saved_tracks(&self, user_id: &str, window: Window) -> CatalogResult<Slice<Saved<Track>>> {
        let page = self.store.saved_ids(user_id, "track", window).await?;
        let ids: Vec<String> = page.items.iter().map(|(id, _)| id.clone()).collect();
        let tracks = self.store.tracks(&ids).await?;
        Ok(Slice {
            items: page
                .items
                .iter()
                .zip(tracks)
                .filter_map(|((_, at), t)| t.map(|item| Saved { added_at: *at, item }))
                .collect(),
            total: page.total,
        })
    }

    pub async fn saved_albums(&self, user_id: &str, window: Window) -> CatalogResult<Slice<Saved<Album>>> {
        let page = self.store.saved_ids(user_id, "album", window).await?;
        let ids: Vec<String> = page.items.iter().map(|(id, _)| id.clone()).collect();
        let albums = self.store.albums(&ids).await?;
        Ok(Slice {
            items: page
                .items
                .iter()
                .zip(albums)
                .filter_map(|((_, at), a)| a.map(|item| Saved { added_at: *at, item }))
                .collect(),
            total: page.total,
        })
    }

    /// Followed artists after the cursor `after` (an artist id), by id.
    pub async fn followed_artists(
        &self,
        user_id: &str,
        after: Option<&str>,
        limit: u32,
    ) -> CatalogResult<(Vec<Artist>, u64)> {
        let (ids, total) = self.store.followed_artist_ids(user_id, after, limit).await?;
        Ok((self.store.artists(&ids).await?.into_iter().flatten().collect(), total))
    }

    // ----- listening history ---------------------------------------------

    /// Records that the user listened to a track (the player calls this).
    pub async fn record_play(&self, user_id: &str, track_id: &str, context_uri: Option<&str>) -> CatalogResult<()> {
        self.track(track_id).await?;
        Ok(self.store.insert_play(user_id, track_id, self.clock.now(), context_uri).await?)
    }

    pub async fn recently_played(
        &self,
        user_id: &str,
        after: Option<i64>,
        before: Option<i64>,
        limit: u32,
    ) -> CatalogResult<History> {
        if after.is_some() && before.is_some() {
            return Err(CatalogError::invalid("only one of after and before may be given"));
        }
        let rows = self.store.plays(user_id, after, before, limit).await?;
        // `total` counts every play the cursor selects, not the page.
        let total = self.store.count_plays(user_id, after, before).await?;
        let older = match rows.last() {
            Some(oldest) => self.store.count_plays(user_id, None, Some(oldest.played_at)).await? > 0,
            None => false,
        };
        let ids: Vec<String> = rows.iter().map(|r| r.track_id.clone()).collect();
        let tracks = self.store.tracks(&ids).await?;
        let plays = rows
            .into_iter()
            .zip(tracks)
            .filter_map(|(row, track)| {
                track.map(|track| Play {
                    played_at: Timestamp::from_millis(row.played_at),
                    context_uri: row.context_uri,
                    track,
                })
            })
            .collect();
        Ok(History { plays, total, older })
    }

    pub async fn top_tracks(&self, user_id: &str, range: &str, window: Window) -> CatalogResult<Slice<Track>> {
        let since = time_range_start(self.clock.now(), range)?;
        let counts = self.store.top_track_ids(user_id, since).await?;
        let total = counts.len() as u64;
        let ids: Vec<String> = counts
            .into_iter()
            .skip(usize::try_from(window.offset).unwrap_or(usize::MAX))
            .take(window.limit as usize)
            .map(|(id, _)| id)
            .collect();
        Ok(Slice { items: self.store.tracks(&ids).await?.into_iter().flatten().collect(), total })
    }

    pub async fn top_artists(&self, user_id: &str, range: &str, window: Window) -> CatalogResult<Slice<Artist>> {
        let since = time_range_start(self.clock.now(), range)?;
        let counts = self.store.top_track_ids(user_id, since).await?;
        let ids: Vec<String> = counts.iter().map(|(id, _)| id.clone()).collect();
        let tracks = self.store.tracks(&ids).await?;
        let mut per_artist: HashMap<String, i64> = HashMap::new();
        for ((_, n), track) in counts.iter().zip(tracks) {
            for artist in track.map(|t| t.artists).unwrap_or_default() {
                *per_artist.entry(artist.id).or_default() += n;
            }
        }
        let mut ranked: Vec<(String, i64)> = per_artist.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let total = ranked.len() as u64;
        let ids: Vec<String> = ranked
            .into_iter()
            .skip(usize::try_from(window.offset).unwrap_or(usize::MAX))
            .take(window.limit as usize)
            .map(|(id, _)| id)
            .collect();
        Ok(Slice { items: self.store.artists(&ids).await?.into_iter().flatten().collect(), total })
    }
}
