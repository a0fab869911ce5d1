//! The catalog's domain types. They are not wire types: `catalog-http`
//! turns them into Spotify's JSON objects.

use kernel::Timestamp;

use crate::scopes::Scopes;

/// An artist as it appears inside albums and tracks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArtistRef {
    pub id: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Artist {
    pub id: String,
    pub name: String,
    pub genres: Vec<String>,
    /// The artwork of the artist's most recent album, used as the artist image.
    pub image_id: Option<String>,
    pub followers: u64,
    pub popularity: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Album {
    pub id: String,
    pub name: String,
    /// `album`, `single`, `compilation` or `ep`.
    pub album_type: String,
    pub release_date: String,
    /// `year`, `month` or `day`.
    pub release_date_precision: String,
    pub label: Option<String>,
    pub genres: Vec<String>,
    pub image_id: Option<String>,
    pub artists: Vec<ArtistRef>,
    pub total_tracks: u32,
    pub popularity: u32,
    pub created_at: Timestamp,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    pub id: String,
    pub name: String,
    pub album: Album,
    pub artists: Vec<ArtistRef>,
    pub disc_number: u32,
    pub track_number: u32,
    pub duration_ms: u64,
    pub explicit: bool,
    pub isrc: Option<String>,
    /// The file's content type (what it streams as, and whether it has a preview).
    pub mime: String,
    pub popularity: u32,
}

/// A user of this catalog (a listener who logs in on `/authorize`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub id: String,
    pub username: String,
    pub display_name: String,
    pub country: String,
    pub followers: u64,
    pub created_at: Timestamp,
}

/// A registered OAuth client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct App {
    pub client_id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
}

/// Who is calling, as established from a bearer token.
#[derive(Clone, Debug)]
pub struct Access {
    pub client_id: String,
    /// `None` for a client-credentials token, which may read only the catalog.
    pub user_id: Option<String>,
    pub scopes: Scopes,
    /// The call's `market` (or `country`), upper case; `from_token` is
    /// resolved to the user's country. `None` when none was given (or
    /// `from_token` with an app token, which has no user).
    pub market: Option<String>,
}

/// What `/api/token` hands out.
#[derive(Clone, Debug)]
pub struct IssuedToken {
    pub access_token: String,
    pub expires_in: u64,
    pub scope: Scopes,
    pub refresh_token: Option<String>,
}

/// One page of a list, with the total of the whole list.
#[derive(Clone, Debug)]
pub struct Slice<T> {
    pub items: Vec<T>,
    pub total: u64,
}

impl<T> Slice<T> {
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Slice<U> {
        Slice { items: self.items.into_iter().map(f).collect(), total: self.total }
    }
}

/// A validated page request: `limit` within the route's bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub limit: u32,
    pub offset: u64,
}

impl Window {
    pub const fn new(limit: u32, offset: u64) -> Self {
        Self { limit, offset }
    }
}

/// An item saved to a user's library.
#[derive(Clone, Debug)]
pub struct Saved<T> {
    pub added_at: Timestamp,
    pub item: T,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Playlist {
    pub id: String,
    pub owner: User,
    pub name: String,
    pub description: Option<String>,
    pub public: bool,
    pub collaborative: bool,
    pub snapshot_id: String,
    pub image_id: Option<String>,
    pub total_items: u64,
    pub followers: u64,
}

#[derive(Clone, Debug)]
pub struct PlaylistItem {
    pub added_at: Timestamp,
    pub added_by: String,
    /// A track, or a podcast episode (Spotify lets playlists hold both).
    pub item: Playable,
}

#[derive(Clone, Debug)]
pub struct Play {
    pub played_at: Timestamp,
    pub context_uri: Option<String>,
    pub track: Track,
}

/// A stored image (album artwork or playlist cover).
#[derive(Clone, Debug)]
pub struct Image {
    pub id: String,
    pub mime: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
}

/// A podcast show or an audiobook: the two are one kind of collection of
/// spoken-word files, told apart by `kind`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Show {
    pub id: String,
    /// [`ItemKind::Show`](crate::ItemKind::Show) or [`ItemKind::Audiobook`](crate::ItemKind::Audiobook).
    pub kind: crate::ItemKind,
    pub name: String,
    /// The show's publisher, or the audiobook's author.
    pub publisher: String,
    pub description: String,
    pub image_id: Option<String>,
    /// Episodes (or chapters) in the library.
    pub total: u32,
}

/// An episode of a show, or a chapter of an audiobook (as its show's kind says).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    pub id: String,
    pub show: Show,
    pub name: String,
    /// The episode or chapter number (from the track tag or the file name).
    pub number: u32,
    pub duration_ms: u64,
    pub release_date: String,
    pub release_date_precision: String,
    pub description: String,
    /// The reading user's position in it (0 and not fully played until
    /// [`Catalog::with_resume_points`](crate::Catalog::with_resume_points) fills it).
    pub resume_position_ms: u64,
    pub fully_played: bool,
}

impl Episode {
    /// `Episode` for a show's episode, `Chapter` for an audiobook's chapter.
    pub fn kind(&self) -> crate::ItemKind {
        if self.show.kind == crate::ItemKind::Audiobook { crate::ItemKind::Chapter } else { crate::ItemKind::Episode }
    }
}

/// What the player plays: a track, or an episode or chapter.
#[derive(Clone, Debug)]
pub enum Playable {
    Track(Track),
    Episode(Episode),
}

impl Playable {
    pub fn id(&self) -> &str {
        match self {
            Self::Track(t) => &t.id,
            Self::Episode(e) => &e.id,
        }
    }

    pub const fn duration_ms(&self) -> u64 {
        match self {
            Self::Track(t) => t.duration_ms,
            Self::Episode(e) => e.duration_ms,
        }
    }
}
