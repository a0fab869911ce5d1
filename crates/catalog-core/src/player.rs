//! The player: devices (programs of a user that play audio and speak the
//! device protocol), Spotify's player commands acting on the active device,
//! and what a device is told to do.
//!
//! Each user's playback is one versioned document in the store
//! ([`crate::playback::Playback`]); a command is a read-modify-write that
//! only lands if the version it read is still current, so commands from
//! any node serialise without locks, on SQLite and PostgreSQL alike. A
//! device waits for a version newer than the one it applied: a command on
//! the same node wakes it at once, one on another node within
//! [`POLL_INTERVAL`].

use std::time::Duration;

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult, PlayerFailure};
use crate::ids::{ItemKind, ItemUri, random_id};
use crate::model::{Playable, Track, Window};
use crate::playback::{Item, Playback, Repeat};
use crate::store::DeviceRow;

/// A device not heard from for this long is offline (not listed, not active).
pub const ONLINE_MS: i64 = 60_000;
/// How often a waiting device re-reads the store for changes made on other nodes.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);
/// The longest a device may wait for a change in one request.
pub const MAX_WAIT: Duration = Duration::from_secs(30);
/// At most this many items are loaded by one play, and queued.
pub const MAX_ITEMS: usize = 1_000;
/// Spotify's device types (tekore checks `type` against this list).
pub const DEVICE_TYPES: &[&str] = &[
    "Computer",
    "Tablet",
    "Smartphone",
    "Speaker",
    "TV",
    "AVR",
    "STB",
    "AudioDongle",
    "GameConsole",
    "CastVideo",
    "CastAudio",
    "Automobile",
    "Unknown",
];

/// A device as the player routes show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub id: String,
    pub name: String,
    pub device_type: String,
    pub volume_percent: u32,
    pub supports_volume: bool,
    pub is_active: bool,
}

impl Device {
    fn of_row(row: DeviceRow, active: Option<&str>) -> Self {
        Self {
            is_active: active == Some(row.id.as_str()),
            id: row.id,
            name: row.name,
            device_type: row.device_type,
            volume_percent: u32::try_from(row.volume_percent.clamp(0, 100)).unwrap_or(0),
            supports_volume: row.supports_volume,
        }
    }
}

/// Where `offset` starts playback in a context or a list of URIs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Offset {
    Position(u64),
    Uri(ItemUri),
}

/// The body of `PUT /me/player/play`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayRequest {
    pub context_uri: Option<ItemUri>,
    pub uris: Vec<ItemUri>,
    pub offset: Option<Offset>,
    pub position_ms: Option<u64>,
}

/// The playback as the player routes read it.
#[derive(Clone, Debug)]
pub struct NowPlaying {
    pub state: Playback,
    pub device: Device,
    pub item: Option<Playable>,
    pub progress_ms: u64,
}

/// What a device is told: the whole playback, whether it is the active
/// device, and the version to wait beyond next time.
#[derive(Clone, Debug)]
pub struct DeviceView {
    pub version: i64,
    pub device: Device,
    pub state: Playback,
    pub item: Option<Playable>,
    pub progress_ms: u64,
    pub server_time: i64,
}

/// What a device reports about the item it plays.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceReport {
    /// The item the report is about; a report about another item than the
    /// current one is stale and ignored.
    pub track_id: String,
    pub progress_ms: u64,
    /// The item played to its end.
    pub ended: bool,
}

fn item_of(playable: &Playable) -> Item {
    Item { id: playable.id().to_owned(), duration_ms: playable.duration_ms() }
}

fn tracks(tracks: Vec<Track>) -> Vec<Playable> {
    tracks.into_iter().map(Playable::Track).collect()
}

/// A device type from Spotify's list, in any case; `Computer` when absent.
pub fn device_type(raw: Option<&str>) -> CatalogResult<&'static str> {
    let Some(raw) = raw.map(str::trim).filter(|t| !t.is_empty()) else { return Ok("Computer") };
    DEVICE_TYPES
        .iter()
        .find(|t| t.eq_ignore_ascii_case(raw))
        .copied()
        .ok_or_else(|| CatalogError::invalid(format!("type must be one of {}", DEVICE_TYPES.join(", "))))
}

impl Catalog {
    fn now_ms(&self) -> i64 {
        self.clock.now().as_millis()
    }

    /// Registers a device of `user_id`; it is online from now on while it
    /// keeps polling.
    pub async fn register_device(
        &self,
        user_id: &str,
        name: &str,
        kind: Option<&str>,
        supports_volume: bool,
    ) -> CatalogResult<Device> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(CatalogError::invalid("a device name is 1 to 100 characters"));
        }
        let row = DeviceRow {
            id: random_id(),
            user_id: user_id.to_owned(),
            name: name.to_owned(),
            device_type: device_type(kind)?.to_owned(),
            volume_percent: 100,
            supports_volume,
            last_seen: self.now_ms(),
        };
        self.store.insert_device(&row, self.clock.now()).await?;
        Ok(Device::of_row(row, None))
    }

    /// The user's device `id` (online or not).
    async fn own_device(&self, user_id: &str, id: &str) -> CatalogResult<DeviceRow> {
        self.store
            .device(id)
            .await?
            .filter(|d| d.user_id == user_id)
            .ok_or(CatalogError::Player(PlayerFailure::DeviceNotFound))
    }

    fn online(&self, device: &DeviceRow) -> bool {
        device.last_seen >= self.now_ms() - ONLINE_MS
    }

    /// Removes a device; if it was active, playback stops with no active device.
    pub async fn unregister_device(&self, user_id: &str, id: &str) -> CatalogResult<()> {
        self.own_device(user_id, id).await?;
        self.store.delete_device(id).await?;
        self.change(user_id, true, |s, now| {
            if s.device_id.as_deref() == Some(id) {
                s.pause(now);
                s.device_id = None;
            }
            Ok(())
        })
        .await
    }

    /// The user's online devices.
    pub async fn devices(&self, user_id: &str) -> CatalogResult<Vec<Device>> {
        let (state, _) = self.load_playback(user_id).await?;
        let rows = self.store.devices_seen(user_id, self.now_ms() - ONLINE_MS).await?;
        Ok(rows.into_iter().map(|r| Device::of_row(r, state.device_id.as_deref())).collect())
    }

    async fn load_playback(&self, user_id: &str) -> CatalogResult<(Playback, i64)> {
        match self.store.playback(user_id).await? {
            Some(row) => {
                let state = serde_json::from_str(&row.state)
                    .map_err(|e| CatalogError::Internal(format!("stored playback does not parse: {e}")))?;
                Ok((state, row.version))
            }
            None => Ok((Playback::default(), 0)),
        }
    }

    /// Applies `f` to the user's playback and stores the result if nobody
    /// changed it meanwhile (else reads again and retries). `bump` wakes the
    /// user's devices; progress reports do not need to.
    async fn change<T>(
        &self,
        user_id: &str,
        bump: bool,
        mut f: impl FnMut(&mut Playback, i64) -> CatalogResult<T>,
    ) -> CatalogResult<T> {
        for _ in 0..16 {
            let (mut state, version) = self.load_playback(user_id).await?;
            let before = state.clone();
            let now = self.now_ms();
            let out = f(&mut state, now)?;
            if state == before {
                return Ok(out);
            }
            if bump {
                state.changed_at = now;
            }
            let json = serde_json::to_string(&state)
                .map_err(|e| CatalogError::Internal(format!("playback does not serialise: {e}")))?;
            if self.store.write_playback(user_id, &json, version, bump, self.clock.now()).await? {
                if bump {
                    self.player_signal.notify_waiters();
                }
                return Ok(out);
            }
        }
        Err(kernel::StoreError::Busy("the playback kept changing under this command".to_owned()).into())
    }

    /// The device a command acts on: `device_id` (which then becomes the
    /// active device) or the active one.
    async fn target(&self, user_id: &str, device_id: Option<&str>) -> CatalogResult<DeviceRow> {
        match device_id.filter(|d| !d.is_empty()) {
            Some(id) => {
                let device = self.own_device(user_id, id).await?;
                if self.online(&device) { Ok(device) } else { Err(CatalogError::Player(PlayerFailure::DeviceNotFound)) }
            }
            None => {
                let (state, _) = self.load_playback(user_id).await?;
                let no_device = CatalogError::Player(PlayerFailure::NoActiveDevice);
                let id = state.device_id.ok_or(no_device)?;
                match self.store.device(&id).await? {
                    Some(device) if self.online(&device) => Ok(device),
                    _ => Err(CatalogError::Player(PlayerFailure::NoActiveDevice)),
                }
            }
        }
    }

    /// Runs a command on the target device's playback.
    async fn command<T>(
        &self,
        user_id: &str,
        device_id: Option<&str>,
        mut f: impl FnMut(&mut Playback, i64) -> CatalogResult<T>,
    ) -> CatalogResult<T> {
        let device = self.target(user_id, device_id).await?;
        let volume = u32::try_from(device.volume_percent.clamp(0, 100)).unwrap_or(100);
        self.change(user_id, true, |s, now| {
            if s.device_id.as_deref() != Some(device.id.as_str()) {
                if device_id.is_none() {
                    return Err(CatalogError::Player(PlayerFailure::NoActiveDevice));
                }
                s.device_id = Some(device.id.clone());
                s.volume_percent = volume;
            }
            f(s, now)
        })
        .await
    }

    /// `PUT /me/player`: makes `device_id` the active device; `play`
    /// resumes there, otherwise the playback keeps its state.
    pub async fn transfer(&self, user_id: &str, device_ids: &[String], play: Option<bool>) -> CatalogResult<()> {
        let [device_id] = device_ids else {
            return Err(CatalogError::invalid("device_ids must name exactly one device"));
        };
        self.command(user_id, Some(device_id), |s, now| {
            if play == Some(true) {
                s.resume(now);
            }
            Ok(())
        })
        .await
    }

    /// The tracks a context plays, in order.
    async fn context_items(&self, user_id: &str, uri: &ItemUri) -> CatalogResult<Vec<Playable>> {
        let all = Window::new(u32::try_from(MAX_ITEMS).unwrap_or(u32::MAX), 0);
        match uri.kind {
            ItemKind::Album => {
                self.album(&uri.id).await?;
                Ok(tracks(self.album_tracks(&uri.id, all).await?.items))
            }
            ItemKind::Playlist => Ok(self
                .playlist_items_for_player(&uri.id, user_id, all)
                .await?
                .items
                .into_iter()
                .map(|i| i.item)
                .collect()),
            ItemKind::Artist => {
                self.artist(&uri.id).await?;
                Ok(tracks(self.artist_top_tracks(&uri.id).await?))
            }
            // A show's episodes or an audiobook's chapters, in order.
            ItemKind::Show | ItemKind::Audiobook => {
                Ok(self.show_episodes(uri.kind, &uri.id, all).await?.items.into_iter().map(Playable::Episode).collect())
            }
            _ => Err(CatalogError::invalid(
                "context_uri must name an album, an artist, a playlist, a show or an audiobook",
            )),
        }
    }

    /// Tracks, episodes and chapters (`spotify:episode:` or
    /// `spotify:chapter:`) by URI, in order.
    async fn items_of_uris(&self, uris: &[ItemUri]) -> CatalogResult<Vec<Playable>> {
        if uris.len() > MAX_ITEMS {
            return Err(CatalogError::invalid(format!("at most {MAX_ITEMS} uris")));
        }
        let mut out = Vec::with_capacity(uris.len());
        for uri in uris {
            out.push(match uri.kind {
                ItemKind::Track => Playable::Track(self.track(&uri.id).await?),
                ItemKind::Episode | ItemKind::Chapter => Playable::Episode(self.any_episode(&uri.id).await?),
                _ => {
                    return Err(CatalogError::invalid(format!(
                        "{} is not a track, episode or chapter uri",
                        uri.to_uri()
                    )));
                }
            });
        }
        Ok(out)
    }

    /// An episode or a chapter (Spotify names both `spotify:episode:`).
    async fn any_episode(&self, id: &str) -> CatalogResult<crate::model::Episode> {
        self.store
            .episodes(&[id.to_owned()])
            .await?
            .into_iter()
            .flatten()
            .next()
            .ok_or(CatalogError::NotFound("episode"))
    }

    /// `PUT /me/player/play`: plays a context or a list of track URIs from
    /// `offset` at `position_ms`, or resumes what is loaded.
    pub async fn play(&self, user_id: &str, device_id: Option<&str>, request: PlayRequest) -> CatalogResult<()> {
        if request.context_uri.is_some() && !request.uris.is_empty() {
            return Err(CatalogError::invalid("give context_uri or uris, not both"));
        }
        let loaded = match &request.context_uri {
            Some(uri) => Some((Some(uri.to_uri()), self.context_items(user_id, uri).await?)),
            None if !request.uris.is_empty() => Some((None, self.items_of_uris(&request.uris).await?)),
            None => None,
        };
        let Some((context, tracks)) = loaded else {
            if request.offset.is_some() {
                return Err(CatalogError::invalid("offset needs a context_uri or uris"));
            }
            return self
                .command(user_id, device_id, |s, now| {
                    if s.current().is_none() {
                        return Err(CatalogError::Player(PlayerFailure::NothingLoaded));
                    }
                    if let Some(ms) = request.position_ms {
                        s.seek(ms, now);
                    }
                    s.resume(now);
                    Ok(())
                })
                .await;
        };
        if tracks.is_empty() {
            return Err(CatalogError::invalid("the context has nothing to play"));
        }
        let start = match &request.offset {
            None => 0,
            Some(Offset::Position(p)) => usize::try_from(*p)
                .ok()
                .filter(|p| *p < tracks.len())
                .ok_or_else(|| CatalogError::invalid("offset.position is past the end of the context"))?,
            Some(Offset::Uri(uri)) => tracks
                .iter()
                .position(|t| t.id() == uri.id)
                .ok_or_else(|| CatalogError::invalid("offset.uri is not in the context"))?,
        };
        let items: Vec<Item> = tracks.iter().take(MAX_ITEMS).map(item_of).collect();
        self.command(user_id, device_id, |s, now| {
            s.load(context.clone(), items.clone(), start, request.position_ms.unwrap_or(0), now, &mut rand::rng());
            Ok(())
        })
        .await
    }

    pub async fn pause(&self, user_id: &str, device_id: Option<&str>) -> CatalogResult<()> {
        self.command(user_id, device_id, |s, now| {
            s.pause(now);
            Ok(())
        })
        .await
    }

    fn loaded(s: &Playback) -> CatalogResult<()> {
        if s.current().is_some() { Ok(()) } else { Err(CatalogError::Player(PlayerFailure::NothingLoaded)) }
    }

    pub async fn skip_next(&self, user_id: &str, device_id: Option<&str>) -> CatalogResult<()> {
        self.command(user_id, device_id, |s, now| {
            Self::loaded(s)?;
            s.next(false, now);
            Ok(())
        })
        .await
    }

    pub async fn skip_previous(&self, user_id: &str, device_id: Option<&str>) -> CatalogResult<()> {
        self.command(user_id, device_id, |s, now| {
            Self::loaded(s)?;
            s.previous(now);
            Ok(())
        })
        .await
    }

    pub async fn seek(&self, user_id: &str, device_id: Option<&str>, position_ms: u64) -> CatalogResult<()> {
        self.command(user_id, device_id, |s, now| {
            Self::loaded(s)?;
            s.seek(position_ms, now);
            Ok(())
        })
        .await
    }

    pub async fn set_repeat(&self, user_id: &str, device_id: Option<&str>, repeat: Repeat) -> CatalogResult<()> {
        self.command(user_id, device_id, |s, _| {
            s.repeat = repeat;
            Ok(())
        })
        .await
    }

    pub async fn set_shuffle(&self, user_id: &str, device_id: Option<&str>, on: bool) -> CatalogResult<()> {
        self.command(user_id, device_id, |s, _| {
            s.set_shuffle(on, &mut rand::rng());
            Ok(())
        })
        .await
    }

    pub async fn set_volume(&self, user_id: &str, device_id: Option<&str>, percent: u32) -> CatalogResult<()> {
        let device = self.target(user_id, device_id).await?;
        if !device.supports_volume {
            return Err(CatalogError::Player(PlayerFailure::VolumeControlDisallowed));
        }
        let percent = percent.min(100);
        self.store.set_device_volume(&device.id, i64::from(percent)).await?;
        self.command(user_id, device_id, |s, _| {
            s.volume_percent = percent;
            Ok(())
        })
        .await
    }

    /// `POST /me/player/queue`: plays `uri` after the current item (and
    /// after what was queued before it).
    pub async fn enqueue(&self, user_id: &str, device_id: Option<&str>, uri: &ItemUri) -> CatalogResult<()> {
        let found = self.items_of_uris(std::slice::from_ref(uri)).await?;
        let items: Vec<Item> = found.iter().map(item_of).collect();
        self.command(user_id, device_id, |s, _| {
            if s.queue.len() >= MAX_ITEMS {
                return Err(CatalogError::invalid(format!("the queue holds at most {MAX_ITEMS} items")));
            }
            s.queue.extend(items.iter().cloned());
            Ok(())
        })
        .await
    }

    /// The track, episode or chapter behind a playback item (ids of the
    /// kinds never collide: each is derived under its kind).
    async fn playable_of(&self, item: Option<&Item>) -> CatalogResult<Option<Playable>> {
        let Some(item) = item else { return Ok(None) };
        let id = std::slice::from_ref(&item.id);
        if let Some(track) = self.store.tracks(id).await?.into_iter().flatten().next() {
            return Ok(Some(Playable::Track(track)));
        }
        Ok(self.store.episodes(id).await?.into_iter().flatten().next().map(Playable::Episode))
    }

    /// The playback on the active device; `None` when no device is active.
    pub async fn now_playing(&self, user_id: &str) -> CatalogResult<Option<NowPlaying>> {
        let (state, _) = self.load_playback(user_id).await?;
        let Some(device_id) = state.device_id.as_deref() else { return Ok(None) };
        let Some(row) = self.store.device(device_id).await?.filter(|d| self.online(d)) else { return Ok(None) };
        let device = Device::of_row(row, Some(device_id));
        let item = self.playable_of(state.current()).await?;
        let progress_ms = state.progress(self.now_ms());
        Ok(Some(NowPlaying { state, device, item, progress_ms }))
    }

    /// `GET /me/player/queue`: the current track and up to 20 that follow.
    pub async fn queue(&self, user_id: &str) -> CatalogResult<(Option<Playable>, Vec<Playable>)> {
        let Some(now) = self.now_playing(user_id).await? else { return Ok((None, Vec::new())) };
        let mut next = Vec::new();
        for item in now.state.up_next(20) {
            next.extend(self.playable_of(Some(item)).await?);
        }
        Ok((now.item, next))
    }

    /// The device protocol's read: waits up to `wait` (at most
    /// [`MAX_WAIT`]) for the playback to pass version `after`, then
    /// answers the playback as this device should apply it. Each call
    /// keeps the device online.
    pub async fn device_view(
        &self,
        user_id: &str,
        device_id: &str,
        after: i64,
        wait: Duration,
    ) -> CatalogResult<DeviceView> {
        self.own_device(user_id, device_id).await?;
        self.store.touch_device(device_id, self.clock.now()).await?;
        let deadline = tokio::time::Instant::now() + wait.min(MAX_WAIT);
        loop {
            let notified = self.player_signal.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.store.playback_version(user_id).await? > after {
                break;
            }
            let now = tokio::time::Instant::now();
            if now >= deadline {
                break;
            }
            let nap = POLL_INTERVAL.min(deadline - now);
            // Woken at once by a command on this node; commands on other
            // nodes are seen at the next poll of the store.
            let _ = tokio::time::timeout(nap, notified).await;
        }
        let (state, version) = self.load_playback(user_id).await?;
        let row = self.own_device(user_id, device_id).await?;
        let device = Device::of_row(row, state.device_id.as_deref());
        let item = if device.is_active { self.playable_of(state.current()).await? } else { None };
        let now = self.now_ms();
        Ok(DeviceView { version, progress_ms: state.progress(now), device, state, item, server_time: now })
    }

    /// The device protocol's write: the active device reports where it is
    /// in the current item, or that the item ended (playback then moves on
    /// as `repeat` and the queue say). A play enters the listening history
    /// once heard for 30 seconds (or half of a shorter item) or to its end.
    pub async fn device_report(&self, user_id: &str, device_id: &str, report: &DeviceReport) -> CatalogResult<()> {
        self.own_device(user_id, device_id).await?;
        self.store.touch_device(device_id, self.clock.now()).await?;
        let heard = self
            .change(user_id, report.ended, |s, now| {
                let current = s.current().map(|i| i.id.clone());
                if s.device_id.as_deref() != Some(device_id) || current.as_deref() != Some(report.track_id.as_str()) {
                    return Ok((false, None));
                }
                s.progress_ms = report.progress_ms;
                s.progress_at = now;
                let heard = (!s.recorded && (report.ended || s.heard_enough(now)))
                    .then(|| (report.track_id.clone(), s.context_uri.clone()));
                if heard.is_some() {
                    s.recorded = true;
                }
                if report.ended {
                    s.next(true, now);
                }
                Ok((true, heard))
            })
            .await?;
        let (accepted, heard) = heard;
        if accepted {
            // Episodes and chapters keep the user's position (`resume_point`).
            self.record_position(user_id, &report.track_id, report.progress_ms, report.ended).await?;
        }
        if let Some((track_id, context)) = heard
            && self.store.tracks(std::slice::from_ref(&track_id)).await?.iter().flatten().next().is_some()
        {
            // The listening history holds tracks (as Spotify's does).
            self.record_play(user_id, &track_id, context.as_deref()).await?;
        }
        Ok(())
    }
}
