//! Playlists: create, change details, add, remove, replace and reorder
//! items, cover images, and who may do what.
//!
//! Who may do what: a public playlist is readable by every token; a
//! non-public one only by its owner and (when collaborative) its
//! collaborators, and only with `playlist-read-private` (or
//! `playlist-read-collaborative` for a collaborative one); to anyone else
//! it does not exist (404). Items are edited by the owner and
//! collaborators, with `playlist-modify-public` for a public playlist and
//! `playlist-modify-private` otherwise; details and collaborators by the
//! owner alone.
//!
//! Each edit of the items bumps the playlist's version inside the
//! transaction that rewrites them; `snapshot_id` is that version, encoded.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult};
use crate::ids::{ItemKind, ItemUri};
use crate::model::{Access, Playable, Playlist, PlaylistItem, Slice, Window};
use crate::scopes::Scopes;
use crate::store::{PlaylistDetails, PlaylistItemRow, PlaylistRow};

/// Largest cover image accepted (Spotify's limit on the decoded JPEG).
pub const MAX_COVER_BYTES: usize = 256 * 1024;
/// Items one request may add.
pub const MAX_ITEMS_PER_REQUEST: usize = 100;
/// Items a playlist may hold.
pub const MAX_PLAYLIST_ITEMS: usize = 10_000;
/// Playlists an operator may curate for one browse category.
pub const MAX_CURATED: usize = 50;

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

/// One removal: every occurrence of the track or episode `item_id`, or
/// only those at `positions` (each of which must hold that item).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removal {
    pub item_id: String,
    pub positions: Option<Vec<usize>>,
}

/// Removes items from a list of item ids, as Spotify defines it.
pub fn remove_items<T>(items: Vec<T>, removals: &[Removal], track_of: impl Fn(&T) -> &str) -> CatalogResult<Vec<T>> {
    for removal in removals {
        for &position in removal.positions.iter().flatten() {
            if items.get(position).map(&track_of) != Some(removal.item_id.as_str()) {
                return Err(CatalogError::invalid(format!(
                    "Could not remove tracks: the item at position {position} is not {}",
                    removal.item_id
                )));
            }
        }
    }
    Ok(items
        .into_iter()
        .enumerate()
        .filter(|(i, item)| {
            !removals.iter().any(|r| r.item_id == track_of(item) && r.positions.as_ref().is_none_or(|p| p.contains(i)))
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
    // The numbers come from a request body: an end past `usize::MAX` must
    // be refused, not overflow.
    let end = r.range_start.checked_add(r.range_length).filter(|end| *end <= len);
    let Some(end) = end.filter(|_| r.range_length > 0 && r.range_start < len) else {
        return Err(CatalogError::invalid("range_start and range_length must lie within the playlist"));
    };
    if r.insert_before > len {
        return Err(CatalogError::invalid("insert_before must lie within the playlist"));
    }
    if (r.range_start..=end).contains(&r.insert_before) {
        return Ok(items);
    }
    let moved: Vec<T> = items.drain(r.range_start..end).collect();
    let at = if r.insert_before > r.range_start { r.insert_before - r.range_length } else { r.insert_before };
    let tail = items.split_off(at);
    items.extend(moved);
    items.extend(tail);
    Ok(items)
}

/// The scope an edit of `row` needs: Spotify asks `playlist-modify-public`
/// for a public playlist and `playlist-modify-private` for any other.
const fn modify_scope(row: &PlaylistRow) -> &'static str {
    if row.public { "playlist-modify-public" } else { "playlist-modify-private" }
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

    /// The playlist's row when `user` may see it: public, or theirs, or
    /// collaborative with them as a collaborator. With `scopes`, a
    /// non-public playlist also needs the token's read scope.
    async fn readable_row(&self, id: &str, user: Option<&str>, scopes: Option<&Scopes>) -> CatalogResult<PlaylistRow> {
        let row = self.store.playlist(id).await?.ok_or(CatalogError::NotFound("playlist"))?;
        if row.public {
            return Ok(row);
        }
        let Some(user) = user else { return Err(CatalogError::NotFound("playlist")) };
        if !self.is_member(&row, user).await? {
            return Err(CatalogError::NotFound("playlist"));
        }
        if let Some(scopes) = scopes {
            let granted = scopes.contains("playlist-read-private")
                || (row.collaborative && scopes.contains("playlist-read-collaborative"));
            if !granted {
                return Err(CatalogError::InsufficientScope);
            }
        }
        Ok(row)
    }

    /// The owner, or a collaborator of a collaborative playlist.
    async fn is_member(&self, row: &PlaylistRow, user: &str) -> CatalogResult<bool> {
        Ok(row.owner_id == user || (row.collaborative && self.store.is_collaborator(&row.id, user).await?))
    }

    /// A playlist as the caller may see it (see the module's rules).
    pub async fn playlist(&self, id: &str, access: &Access) -> CatalogResult<Playlist> {
        let row = self.readable_row(id, access.user_id.as_deref(), Some(&access.scopes)).await?;
        self.playlist_of_row(row).await
    }

    /// The playlist's row when the caller may edit its items: the owner or
    /// a collaborator, holding the modify scope its visibility asks for.
    async fn editable(&self, id: &str, access: &Access) -> CatalogResult<PlaylistRow> {
        let user = access.user(&[])?;
        let row = self.readable_row(id, Some(user), None).await?;
        if !self.is_member(&row, user).await? {
            return Err(CatalogError::Forbidden("you may not edit this playlist".to_owned()));
        }
        if !access.scopes.contains(modify_scope(&row)) {
            return Err(CatalogError::InsufficientScope);
        }
        Ok(row)
    }

    /// The playlist's row when the caller owns it, with the modify scope.
    async fn owned(&self, id: &str, access: &Access) -> CatalogResult<PlaylistRow> {
        let user = access.user(&[])?;
        let row = self.readable_row(id, Some(user), None).await?;
        if row.owner_id != user {
            return Err(CatalogError::Forbidden("only the owner may change a playlist's details".to_owned()));
        }
        if !access.scopes.contains(modify_scope(&row)) {
            return Err(CatalogError::InsufficientScope);
        }
        Ok(row)
    }

    /// Follows a playlist: any public one, a non-public one only as its
    /// owner or a collaborator.
    pub async fn follow_playlist(&self, access: &Access, id: &str) -> CatalogResult<()> {
        let user = access.user(&[])?;
        self.readable_row(id, Some(user), None).await?;
        self.save(user, crate::ItemKind::Playlist, &[id.to_owned()]).await
    }

    /// Whether each of `users` follows the playlist, when the caller may see it.
    pub async fn playlist_followed_by(&self, access: &Access, id: &str, users: &[String]) -> CatalogResult<Vec<bool>> {
        self.readable_row(id, access.user_id.as_deref(), Some(&access.scopes)).await?;
        let mut out = Vec::with_capacity(users.len());
        for user in users {
            out.push(
                self.contains(user, crate::ItemKind::Playlist, &[id.to_owned()])
                    .await?
                    .first()
                    .copied()
                    .unwrap_or(false),
            );
        }
        Ok(out)
    }

    /// The collaborators of a playlist the caller owns.
    pub async fn playlist_collaborators(&self, access: &Access, id: &str) -> CatalogResult<Vec<String>> {
        let row = self.owned(id, access).await?;
        Ok(self.store.collaborators(&row.id).await?)
    }

    /// Adds or removes collaborators of a collaborative playlist the caller owns.
    pub async fn change_collaborators(
        &self,
        access: &Access,
        id: &str,
        user_ids: &[String],
        add: bool,
    ) -> CatalogResult<()> {
        let row = self.owned(id, access).await?;
        if user_ids.is_empty() || user_ids.len() > 50 {
            return Err(CatalogError::invalid("name 1 to 50 user ids"));
        }
        if add {
            if !row.collaborative {
                return Err(CatalogError::invalid("only a collaborative playlist has collaborators"));
            }
            for user in user_ids {
                self.user(user).await?;
            }
            Ok(self.store.add_collaborators(&row.id, user_ids, self.clock.now()).await?)
        } else {
            Ok(self.store.remove_collaborators(&row.id, user_ids).await?)
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
        let row = self.store.playlist(&row.id).await?.ok_or(CatalogError::NotFound("playlist"))?;
        self.playlist_of_row(row).await
    }

    pub async fn change_playlist(&self, id: &str, access: &Access, details: PlaylistDetails) -> CatalogResult<()> {
        let row = self.owned(id, access).await?;
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

    /// A user's playlists (owned and followed). Non-public ones are listed
    /// only to that user, with `playlist-read-private`.
    pub async fn playlists_of(&self, user_id: &str, access: &Access, window: Window) -> CatalogResult<Slice<Playlist>> {
        self.user(user_id).await?;
        let own = access.user_id.as_deref() == Some(user_id) && access.scopes.contains("playlist-read-private");
        let rows = self.store.playlists_of(user_id, !own, window).await?;
        let mut items = Vec::with_capacity(rows.items.len());
        for row in rows.items {
            items.push(self.playlist_of_row(row).await?);
        }
        Ok(Slice { items, total: rows.total })
    }

    /// Public playlists matching a search, by name (see `Store::search_playlist_ids`).
    pub async fn search_playlists(
        &self,
        q: &crate::search::SearchQuery,
        window: Window,
    ) -> CatalogResult<Slice<Playlist>> {
        let ids = self.store.search_playlist_ids(q, window).await?;
        let mut items = Vec::with_capacity(ids.items.len());
        for id in &ids.items {
            if let Some(row) = self.store.playlist(id).await? {
                items.push(self.playlist_of_row(row).await?);
            }
        }
        Ok(Slice { items, total: ids.total })
    }

    /// A browse category's playlists (a category is one of the library's
    /// genres): the operator's curated ones first, then the public
    /// playlists holding its tracks.
    pub async fn category_playlists(&self, category: &str, window: Window) -> CatalogResult<Slice<Playlist>> {
        let rows = self.store.category_playlists(&category.to_lowercase(), window).await?;
        let mut items = Vec::with_capacity(rows.items.len());
        for row in rows.items {
            items.push(self.playlist_of_row(row).await?);
        }
        Ok(Slice { items, total: rows.total })
    }

    /// The operator's use case: curates `category`'s playlists (replacing
    /// its list; empty clears it). The category must be one of the library's
    /// genres, and each playlist public; at most [`MAX_CURATED`], no repeats.
    pub async fn set_category_playlists(&self, category: &str, playlist_ids: &[String]) -> CatalogResult<()> {
        let category = category.trim().to_lowercase();
        if !self.genre_seeds().await?.contains(&category) {
            return Err(CatalogError::NotFound("category"));
        }
        if playlist_ids.len() > MAX_CURATED {
            return Err(CatalogError::invalid(format!("a category holds at most {MAX_CURATED} curated playlists")));
        }
        let mut seen = std::collections::HashSet::new();
        for id in playlist_ids {
            if !seen.insert(id.as_str()) {
                return Err(CatalogError::invalid(format!("playlist {id} is named twice")));
            }
            match self.store.playlist(id).await? {
                Some(row) if row.public => {}
                Some(_) => return Err(CatalogError::invalid(format!("playlist {id} is not public"))),
                None => return Err(CatalogError::NotFound("playlist")),
            }
        }
        Ok(self.store.set_category_playlists(&category, playlist_ids).await?)
    }

    /// The playlists the operator curated for `category`, in order.
    pub async fn curated_category_playlists(&self, category: &str) -> CatalogResult<Vec<String>> {
        Ok(self.store.curated_playlist_ids(&category.trim().to_lowercase()).await?)
    }

    pub async fn public_playlists(&self, window: Window) -> CatalogResult<Slice<Playlist>> {
        let rows = self.store.public_playlists(window).await?;
        let mut items = Vec::with_capacity(rows.items.len());
        for row in rows.items {
            items.push(self.playlist_of_row(row).await?);
        }
        Ok(Slice { items, total: rows.total })
    }

    /// A page of the items, when the caller may read the playlist.
    pub async fn playlist_items(
        &self,
        id: &str,
        access: &Access,
        window: Window,
    ) -> CatalogResult<Slice<PlaylistItem>> {
        self.readable_row(id, access.user_id.as_deref(), Some(&access.scopes)).await?;
        self.items_page(id, window).await
    }

    /// The items as the player reads them for `user_id` (who must be able
    /// to see the playlist; the player's own scopes allow playing it).
    pub async fn playlist_items_for_player(
        &self,
        id: &str,
        user_id: &str,
        window: Window,
    ) -> CatalogResult<Slice<PlaylistItem>> {
        self.readable_row(id, Some(user_id), None).await?;
        self.items_page(id, window).await
    }

    async fn items_page(&self, id: &str, window: Window) -> CatalogResult<Slice<PlaylistItem>> {
        let rows = self.store.playlist_items(id, window).await?;
        let track_ids: Vec<String> = rows.items.iter().filter_map(|r| r.track_id.clone()).collect();
        let episode_ids: Vec<String> = rows.items.iter().filter_map(|r| r.episode_id.clone()).collect();
        let tracks: std::collections::HashMap<String, crate::model::Track> =
            self.store.tracks(&track_ids).await?.into_iter().flatten().map(|t| (t.id.clone(), t)).collect();
        let episodes: std::collections::HashMap<String, crate::model::Episode> =
            self.store.episodes(&episode_ids).await?.into_iter().flatten().map(|e| (e.id.clone(), e)).collect();
        let items = rows
            .items
            .into_iter()
            .filter_map(|row| {
                // Cloned, not taken: an item may appear several times.
                let item = match (&row.track_id, &row.episode_id) {
                    (Some(t), _) => tracks.get(t).cloned().map(Playable::Track),
                    (None, Some(e)) => episodes.get(e).cloned().map(Playable::Episode),
                    (None, None) => None,
                }?;
                Some(PlaylistItem {
                    added_at: kernel::Timestamp::from_millis(row.added_at),
                    added_by: row.added_by,
                    item,
                })
            })
            .collect();
        Ok(Slice { items, total: rows.total })
    }

    /// The rows for `items` (tracks and podcast episodes that exist),
    /// added by `user_id` at `at`.
    async fn item_rows(&self, items: &[ItemUri], user_id: &str, at: i64) -> CatalogResult<Vec<PlaylistItemRow>> {
        let missing = || CatalogError::invalid("Payload contains a non-existing ID");
        let mut rows = Vec::with_capacity(items.len());
        for uri in items {
            let (track_id, episode_id) = match uri.kind {
                ItemKind::Track => {
                    self.store
                        .tracks(std::slice::from_ref(&uri.id))
                        .await?
                        .into_iter()
                        .flatten()
                        .next()
                        .ok_or_else(missing)?;
                    (Some(uri.id.clone()), None)
                }
                // Spotify's playlists hold podcast episodes, not audiobook chapters.
                ItemKind::Episode => {
                    let found = self.store.episodes(std::slice::from_ref(&uri.id)).await?.into_iter().flatten().next();
                    if !found.is_some_and(|e| e.kind() == ItemKind::Episode) {
                        return Err(missing());
                    }
                    (None, Some(uri.id.clone()))
                }
                other => {
                    return Err(CatalogError::invalid(format!(
                        "only track and episode uris can be added to a playlist, not {}",
                        other.as_str()
                    )));
                }
            };
            rows.push(PlaylistItemRow { track_id, episode_id, added_by: user_id.to_owned(), added_at: at });
        }
        Ok(rows)
    }

    /// Adds tracks and episodes at `position` (the end when `None`);
    /// returns the snapshot.
    pub async fn add_playlist_items(
        &self,
        id: &str,
        access: &Access,
        items: &[ItemUri],
        position: Option<usize>,
    ) -> CatalogResult<String> {
        if items.is_empty() || items.len() > MAX_ITEMS_PER_REQUEST {
            return Err(CatalogError::invalid(format!("add 1 to {MAX_ITEMS_PER_REQUEST} items per request")));
        }
        self.editable(id, access).await?;
        let user_id = access.user(&[])?.to_owned();
        let now = self.clock.now();
        let new = self.item_rows(items, &user_id, now.as_millis()).await?;
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
        access: &Access,
        removals: &[Removal],
        snapshot: Option<&str>,
    ) -> CatalogResult<String> {
        if removals.is_empty() || removals.len() > MAX_ITEMS_PER_REQUEST {
            return Err(CatalogError::invalid(format!("remove 1 to {MAX_ITEMS_PER_REQUEST} items per request")));
        }
        self.editable(id, access).await?;
        let removals = removals.to_vec();
        let snapshot = snapshot.map(str::to_owned);
        let version = self
            .store
            .edit_playlist_items(id, self.clock.now(), move |current, items| {
                check_snapshot(snapshot.as_deref(), current)?;
                remove_items(items, &removals, PlaylistItemRow::item_id)
            })
            .await?;
        Ok(snapshot_id(version))
    }

    /// Replaces all items with `items` (tracks and episodes).
    pub async fn replace_playlist_items(&self, id: &str, access: &Access, items: &[ItemUri]) -> CatalogResult<String> {
        if items.len() > MAX_ITEMS_PER_REQUEST {
            return Err(CatalogError::invalid(format!("at most {MAX_ITEMS_PER_REQUEST} items per request")));
        }
        self.editable(id, access).await?;
        let user_id = access.user(&[])?.to_owned();
        let now = self.clock.now();
        let new = self.item_rows(items, &user_id, now.as_millis()).await?;
        let version = self.store.edit_playlist_items(id, now, move |_, _| Ok(new)).await?;
        Ok(snapshot_id(version))
    }

    /// Reorders items, against `snapshot` when given.
    pub async fn reorder_playlist_items(
        &self,
        id: &str,
        access: &Access,
        r: Reorder,
        snapshot: Option<&str>,
    ) -> CatalogResult<String> {
        self.editable(id, access).await?;
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
    pub async fn set_playlist_cover(&self, id: &str, access: &Access, jpeg: &[u8]) -> CatalogResult<()> {
        self.editable(id, access).await?;
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
        let rm = |t: &str, p: Option<Vec<usize>>| Removal { item_id: t.to_owned(), positions: p };
        assert_eq!(remove_items(list(), &[rm("a", None)], |s| s).unwrap(), vec!["b", "c"]);
        assert_eq!(remove_items(list(), &[rm("a", Some(vec![2]))], |s| s).unwrap(), vec!["a", "b", "c"]);
        let err = remove_items(list(), &[rm("a", Some(vec![1]))], |s| s).unwrap_err();
        assert!(err.to_string().contains("position 1"), "{err}");
        assert!(remove_items(list(), &[rm("c", Some(vec![9]))], |s| s).is_err());
    }
}
