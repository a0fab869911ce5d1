//! Playlists: create, change details, add, remove, replace and reorder
//! items, cover images, and who may do what.
//!
//! Each edit of the items bumps the playlist's version inside the
//! transaction that rewrites them; `snapshot_id` is that version, encoded.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult};
use crate::model::{Playlist, PlaylistItem, Slice, Window};
use crate::store::{PlaylistDetails, PlaylistItemRow, PlaylistRow};

/// Largest cover image accepted (Spotify's limit on the decoded JPEG).
pub const MAX_COVER_BYTES: usize = 256 * 1024;
/// Items one request may add.
pub const MAX_ITEMS_PER_REQUEST: usize = 100;
/// Items a playlist may hold.
pub const MAX_PLAYLIST_ITEMS: usize = 10_000;

pub fn snapshot_id(version: i64) -> String {
    URL_SAFE_NO_PAD.encode(format!("snapshot:{version}"))
}

/// The version a `snapshot_id` names, when it is one of ours.
pub fn snapshot_version(snapshot: &str) -> Option<i64> {
    let raw = URL_SAFE_NO_PAD.decode(snapshot.trim()).ok()?;
    let text = std::str::from_utf8(&raw).ok()?;
    text.strip_prefix("snapshot:")?.parse::<i64>().ok().filter(|v| *v >= 1)
}

/// A change names the snapshot it was made against: it must be a version
/// this playlist has had (`1..=current`). An older one is accepted, as
/// Spotify does: positions are then checked against the current items.
pub fn check_snapshot(snapshot: Option<&str>, current: i64) -> CatalogResult<()> {
    match snapshot.filter(|s| !s.is_empty()) {
        None => Ok(()),
        Some(s) => match snapshot_version(s) {
            Some(v) if v <= current => Ok(()),
            _ => Err(CatalogError::invalid("Invalid snapshot_id")),
        },
    }
}

/// One removal: every occurrence of `track_id`, or only those at `positions`
/// (each of which must hold that track).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    pub track_id: String,
    pub positions: Option<Vec<usize>>,
}

/// Removes items from a list of track ids, as Spotify defines it.
pub fn remove_items<T>(items: Vec<T>, removals: &[Removal], track_of: impl Fn(&T) -> &str) -> CatalogResult<Vec<T>> {
    for removal in removals {
        for &position in removal.positions.iter().flatten() {
            if items.get(position).map(&track_of) != Some(removal.track_id.as_str()) {
                return Err(CatalogError::invalid(format!(
                    "Could not remove tracks: the item at position {position} is not spotify:track:{}",
                    removal.track_id
                )));
            }
        }
    }
    Ok(items
        .into_iter()
        .enumerate()
        .filter(|(i, item)| {
            !removals.iter().any(|r| r.track_id == track_of(item) && r.positions.as_ref().is_none_or(|p| p.contains(i)))
        })
        .map(|(_, item)| item)
        .collect())
}

/// A reorder: move `range_length` items from `range_start` to before
/// `insert_before` (positions in the list before the move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reorder {
    pub range_start: usize,
    pub insert_before: usize,
    pub range_length: usize,
}

/// Applies a reorder to a list, as Spotify defines it.
pub fn reorder<T>(mut items: Vec<T>, r: Reorder) -> CatalogResult<Vec<T>> {
    let len = items.len();
    if r.range_length == 0 || r.range_start >= len || r.range_start + r.range_length > len {
        return Err(CatalogError::invalid("range_start and range_length must lie within the playlist"));
    }
    if r.insert_before > len {
        return Err(CatalogError::invalid("insert_before must lie within the playlist"));
    }
    if (r.range_start..=r.range_start + r.range_length).contains(&r.insert_before) {
        return Ok(items);
    }
    let moved: Vec<T> = items.drain(r.range_start..r.range_start + r.range_length).collect();
    let at = if r.insert_before > r.range_start { r.insert_before - r.range_length } else { r.insert_before };
    let tail = items.split_off(at);
    items.extend(moved);
    items.extend(tail);
    Ok(items)
}

impl Catalog {
    async fn playlist_of_row(&self, row: PlaylistRow) -> CatalogResult<Playlist> {
        let owner = self.user(&row.owner_id).await?;
        Ok(Playlist {
            id: row.id,
            owner,
            name: row.name,
            description: row.description,
            public: row.public,
            collaborative: row.collaborative,
            snapshot_id: snapshot_id(row.version),
            image_id: row.image_id,
            total_items: u64::try_from(row.total_items).unwrap_or(0),
            followers: u64::try_from(row.followers).unwrap_or(0),
        })
    }

    /// A playlist `viewer` may see: public ones, their own, and
    /// collaborative ones they follow.
    pub async fn playlist(&self, id: &str, viewer: Option<&str>) -> CatalogResult<Playlist> {
        let row = self.store.playlist(id).await?.ok_or(CatalogError::NotFound("playlist"))?;
        if !row.public && viewer != Some(row.owner_id.as_str()) {
            let follows = match viewer {
                Some(v) => self
                    .contains(v, crate::ItemKind::Playlist, &[id.to_owned()])
                    .await?
                    .first()
                    .copied()
                    .unwrap_or(false),
                None => false,
            };
            if !follows {
                return Err(CatalogError::NotFound("playlist"));
            }
        }
        self.playlist_of_row(row).await
    }

    /// A playlist `user` may edit: their own, or a collaborative one.
    async fn editable(&self, id: &str, user_id: &str) -> CatalogResult<PlaylistRow> {
        let row = self.store.playlist(id).await?.ok_or(CatalogError::NotFound("playlist"))?;
        if row.owner_id == user_id || row.collaborative {
            Ok(row)
        } else {
            Err(CatalogError::Forbidden("you may not edit this playlist".to_owned()))
        }
    }

    pub async fn create_playlist(
        &self,
        owner_id: &str,
        name: &str,
        description: Option<String>,
        public: bool,
        collaborative: bool,
    ) -> CatalogResult<Playlist> {
        let name = name.trim();
        if name.is_empty() || name.len() > 300 {
            return Err(CatalogError::invalid("the playlist name must be 1 to 300 characters"));
        }
        if collaborative && public {
            return Err(CatalogError::invalid("a collaborative playlist must not be public"));
        }
        let row = PlaylistRow {
            id: crate::ids::random_id(),
            owner_id: owner_id.to_owned(),
            name: name.to_owned(),
            description,
            public,
            collaborative,
            version: 1,
            image_id: None,
            total_items: 0,
            followers: 0,
        };
        self.store.insert_playlist(&row, self.clock.now()).await?;
        self.playlist(&row.id, Some(owner_id)).await
    }

    pub async fn change_playlist(&self, id: &str, user_id: &str, details: PlaylistDetails) -> CatalogResult<()> {
        let row = self.store.playlist(id).await?.ok_or(CatalogError::NotFound("playlist"))?;
        if row.owner_id != user_id {
            return Err(CatalogError::Forbidden("only the owner may change a playlist's details".to_owned()));
        }
        if details.name.as_ref().is_some_and(|name| name.trim().is_empty()) {
            return Err(CatalogError::invalid("the playlist name must not be empty"));
        }
        let public = details.public.unwrap_or(row.public);
        let collaborative = details.collaborative.unwrap_or(row.collaborative);
        if public && collaborative {
            return Err(CatalogError::invalid("a collaborative playlist must not be public"));
        }
        Ok(self.store.update_playlist(id, &details, self.clock.now()).await?)
    }

    pub async fn playlists_of(
        &self,
        user_id: &str,
        viewer: Option<&str>,
        window: Window,
    ) -> CatalogResult<Slice<Playlist>> {
        self.user(user_id).await?;
        let rows = self.store.playlists_of(user_id, viewer != Some(user_id), window).await?;
        let mut items = Vec::with_capacity(rows.items.len());
        for row in rows.items {
            items.push(self.playlist_of_row(row).await?);
        }
        Ok(Slice { items, total: rows.total })
    }

    pub async fn public_playlists(&self, window: Window) -> CatalogResult<Slice<Playlist>> {
        let rows = self.store.public_playlists(window).await?;
        let mut items = Vec::with_capacity(rows.items.len());
        for row in rows.items {
            items.push(self.playlist_of_row(row).await?);
        }
        Ok(Slice { items, total: rows.total })
    }

    pub async fn playlist_items(
        &self,
        id: &str,
        viewer: Option<&str>,
        window: Window,
    ) -> CatalogResult<Slice<PlaylistItem>> {
        self.playlist(id, viewer).await?;
        let rows = self.store.playlist_items(id, window).await?;
        let ids: Vec<String> = rows.items.iter().map(|r| r.track_id.clone()).collect();
        let tracks = self.store.tracks(&ids).await?;
        let items = rows
            .items
            .into_iter()
            .zip(tracks)
            .filter_map(|(row, track)| {
                track.map(|track| PlaylistItem {
                    added_at: kernel::Timestamp::from_millis(row.added_at),
                    added_by: row.added_by,
                    track,
                })
            })
            .collect();
        Ok(Slice { items, total: rows.total })
    }

    async fn check_tracks(&self, track_ids: &[String]) -> CatalogResult<()> {
        if self.store.tracks(track_ids).await?.iter().any(Option::is_none) {
            return Err(CatalogError::invalid("Payload contains a non-existing ID"));
        }
        Ok(())
    }

    /// Adds tracks at `position` (the end when `None`); returns the snapshot.
    pub async fn add_playlist_items(
        &self,
        id: &str,
        user_id: &str,
        track_ids: &[String],
        position: Option<usize>,
    ) -> CatalogResult<String> {
        if track_ids.is_empty() || track_ids.len() > MAX_ITEMS_PER_REQUEST {
            return Err(CatalogError::invalid(format!("add 1 to {MAX_ITEMS_PER_REQUEST} items per request")));
        }
        self.editable(id, user_id).await?;
        self.check_tracks(track_ids).await?;
        let now = self.clock.now();
        let new: Vec<PlaylistItemRow> = track_ids
            .iter()
            .map(|t| PlaylistItemRow { track_id: t.clone(), added_by: user_id.to_owned(), added_at: now.as_millis() })
            .collect();
        let version = self
            .store
            .edit_playlist_items(id, now, move |_, mut items| {
                if items.len() + new.len() > MAX_PLAYLIST_ITEMS {
                    return Err(CatalogError::invalid(format!("a playlist holds at most {MAX_PLAYLIST_ITEMS} items")));
                }
                let at = position.unwrap_or(items.len());
                if at > items.len() {
                    return Err(CatalogError::invalid("position is past the end of the playlist"));
                }
                let tail = items.split_off(at);
                items.extend(new);
                items.extend(tail);
                Ok(items)
            })
            .await?;
        Ok(snapshot_id(version))
    }

    /// Removes every occurrence of the tracks (or only the given positions),
    /// against `snapshot` when given.
    pub async fn remove_playlist_items(
        &self,
        id: &str,
        user_id: &str,
        removals: &[Removal],
        snapshot: Option<&str>,
    ) -> CatalogResult<String> {
        if removals.is_empty() || removals.len() > MAX_ITEMS_PER_REQUEST {
            return Err(CatalogError::invalid(format!("remove 1 to {MAX_ITEMS_PER_REQUEST} items per request")));
        }
        self.editable(id, user_id).await?;
        let removals = removals.to_vec();
        let snapshot = snapshot.map(str::to_owned);
        let version = self
            .store
            .edit_playlist_items(id, self.clock.now(), move |current, items| {
                check_snapshot(snapshot.as_deref(), current)?;
                remove_items(items, &removals, |item| item.track_id.as_str())
            })
            .await?;
        Ok(snapshot_id(version))
    }

    /// Replaces all items with `track_ids`.
    pub async fn replace_playlist_items(&self, id: &str, user_id: &str, track_ids: &[String]) -> CatalogResult<String> {
        if track_ids.len() > MAX_ITEMS_PER_REQUEST {
            return Err(CatalogError::invalid(format!("at most {MAX_ITEMS_PER_REQUEST} items per request")));
        }
        self.editable(id, user_id).await?;
        self.check_tracks(track_ids).await?;
        let now = self.clock.now();
        let new: Vec<PlaylistItemRow> = track_ids
            .iter()
            .map(|t| PlaylistItemRow { track_id: t.clone(), added_by: user_id.to_owned(), added_at: now.as_millis() })
            .collect();
        let version = self.store.edit_playlist_items(id, now, move |_, _| Ok(new)).await?;
        Ok(snapshot_id(version))
    }

    /// Reorders items, against `snapshot` when given.
    pub async fn reorder_playlist_items(
        &self,
        id: &str,
        user_id: &str,
        r: Reorder,
        snapshot: Option<&str>,
    ) -> CatalogResult<String> {
        self.editable(id, user_id).await?;
        let snapshot = snapshot.map(str::to_owned);
        let version = self
            .store
            .edit_playlist_items(id, self.clock.now(), move |current, items| {
                check_snapshot(snapshot.as_deref(), current)?;
                reorder(items, r)
            })
            .await?;
        Ok(snapshot_id(version))
    }

    /// Sets a custom cover from a JPEG (already base64-decoded).
    pub async fn set_playlist_cover(&self, id: &str, user_id: &str, jpeg: &[u8]) -> CatalogResult<()> {
        self.editable(id, user_id).await?;
        if jpeg.len() > MAX_COVER_BYTES {
            return Err(CatalogError::invalid("the image exceeds 256 KB"));
        }
        if !jpeg.starts_with(&[0xFF, 0xD8, 0xFF]) {
            return Err(CatalogError::invalid("the image must be a JPEG"));
        }
        let image_id = crate::ids::derived_id("image", &platform::crypto::sha256_hex(jpeg));
        Ok(self.store.set_playlist_image(id, &image_id, "image/jpeg", jpeg).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(range_start: usize, insert_before: usize, range_length: usize) -> Reorder {
        Reorder { range_start, insert_before, range_length }
    }

    #[test]
    fn reorders_as_spotify_documents() {
        let list = || vec!['a', 'b', 'c', 'd', 'e'];
        // Spotify's examples: move the first item to the end, and items 3-4 to the front.
        assert_eq!(reorder(list(), r(0, 5, 1)).unwrap(), vec!['b', 'c', 'd', 'e', 'a']);
        assert_eq!(reorder(list(), r(2, 0, 2)).unwrap(), vec!['c', 'd', 'a', 'b', 'e']);
        assert_eq!(reorder(list(), r(1, 4, 2)).unwrap(), vec!['a', 'd', 'b', 'c', 'e']);
        assert_eq!(reorder(list(), r(1, 2, 1)).unwrap(), list());
        assert!(reorder(list(), r(4, 0, 2)).is_err());
        assert!(reorder(list(), r(0, 6, 1)).is_err());
        assert!(reorder(list(), r(0, 1, 0)).is_err());
    }

    #[test]
    fn snapshots_differ_per_version() {
        assert_ne!(snapshot_id(1), snapshot_id(2));
        assert_eq!(snapshot_version(&snapshot_id(7)), Some(7));
    }

    #[test]
    fn a_snapshot_must_be_one_the_playlist_has_had() {
        assert!(check_snapshot(None, 3).is_ok());
        assert!(check_snapshot(Some(""), 3).is_ok());
        assert!(check_snapshot(Some(&snapshot_id(3)), 3).is_ok());
        assert!(check_snapshot(Some(&snapshot_id(1)), 3).is_ok(), "an older snapshot is accepted");
        for bad in [snapshot_id(4), snapshot_id(0), "not-a-snapshot".to_owned(), "c25hcHNob3Q6eA".to_owned()] {
            assert!(matches!(check_snapshot(Some(&bad), 3), Err(CatalogError::Invalid(_))), "{bad}");
        }
    }

    #[test]
    fn removals_by_track_or_checked_positions() {
        let list = || vec!["a", "b", "a", "c"];
        let rm = |t: &str, p: Option<Vec<usize>>| Removal { track_id: t.to_owned(), positions: p };
        assert_eq!(remove_items(list(), &[rm("a", None)], |s| s).unwrap(), vec!["b", "c"]);
        assert_eq!(remove_items(list(), &[rm("a", Some(vec![2]))], |s| s).unwrap(), vec!["a", "b", "c"]);
        let err = remove_items(list(), &[rm("a", Some(vec![1]))], |s| s).unwrap_err();
        assert!(err.to_string().contains("position 1"), "{err}");
        assert!(remove_items(list(), &[rm("c", Some(vec![9]))], |s| s).is_err());
    }
}
