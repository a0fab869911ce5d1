//! Spotify-style identifiers: 22-character base62 ids and `spotify:<type>:<id>` URIs.
//!
//! Clients validate ids as base62 (spotipy, rspotify and tekore all check),
//! so every id the catalog mints is 22 base62 characters: content ids are
//! derived from a hash of what identifies the item (stable across rescans
//! and databases), minted ids (playlists) from random bytes.

use sha2::{Digest as _, Sha256};

use crate::error::CatalogError;

const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
pub const ID_LEN: usize = 22;

/// Encodes the first 16 bytes of `bytes` as 22 base62 characters.
fn base62_of(bytes: &[u8]) -> String {
    let mut buf = [0_u8; 16];
    for (slot, byte) in buf.iter_mut().zip(bytes) {
        *slot = *byte;
    }
    let mut n = u128::from_be_bytes(buf);
    let mut out = vec![b'0'; ID_LEN];
    for slot in out.iter_mut().rev() {
        let digit = usize::try_from(n % 62).unwrap_or(0);
        *slot = ALPHABET.get(digit).copied().unwrap_or(b'0');
        n /= 62;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A stable id for the item identified by `kind` and `key`.
pub fn derived_id(kind: &str, key: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(kind.as_bytes());
    hasher.update([0]);
    hasher.update(key.as_bytes());
    base62_of(&hasher.finalize())
}

/// A fresh random id.
pub fn random_id() -> String {
    base62_of(uuid::Uuid::new_v4().as_bytes())
}

/// Whether `id` looks like an id this catalog could have minted.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// The kinds of item a URI can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Track,
    Album,
    Artist,
    Playlist,
    Show,
    Episode,
    Audiobook,
    Chapter,
    User,
}

impl ItemKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Track => "track",
            Self::Album => "album",
            Self::Artist => "artist",
            Self::Playlist => "playlist",
            Self::Show => "show",
            Self::Episode => "episode",
            Self::Audiobook => "audiobook",
            Self::Chapter => "chapter",
            Self::User => "user",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "track" => Self::Track,
            "album" => Self::Album,
            "artist" => Self::Artist,
            "playlist" => Self::Playlist,
            "show" => Self::Show,
            "episode" => Self::Episode,
            "audiobook" => Self::Audiobook,
            "chapter" => Self::Chapter,
            "user" => Self::User,
            _ => return None,
        })
    }
}

/// A parsed `spotify:<type>:<id>` URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemUri {
    pub kind: ItemKind,
    pub id: String,
}

impl ItemUri {
    /// Parses `spotify:<type>:<id>` (and the legacy `spotify:user:<u>:playlist:<id>`).
    pub fn parse(uri: &str) -> Result<Self, CatalogError> {
        let invalid = || CatalogError::invalid(format!("invalid uri {uri:?}"));
        let parts: Vec<&str> = uri.trim().split(':').collect();
        let (kind, id) = match parts.as_slice() {
            ["spotify", kind, id] => (*kind, *id),
            ["spotify", "user", _, "playlist", id] => ("playlist", *id),
            _ => return Err(invalid()),
        };
        let kind = ItemKind::parse(kind).ok_or_else(invalid)?;
        if kind != ItemKind::User && !is_valid_id(id) {
            return Err(invalid());
        }
        Ok(Self { kind, id: id.to_owned() })
    }

    pub fn to_uri(&self) -> String {
        format!("spotify:{}:{}", self.kind.as_str(), self.id)
    }
}

/// Accepts a bare id, a `spotify:<kind>:<id>` URI or an open URL
/// (`https://host/<kind>/<id>`), as clients send all three.
pub fn parse_id(input: &str, kind: ItemKind) -> Result<String, CatalogError> {
    let input = input.trim();
    let id = if let Some(rest) = input.strip_prefix("spotify:") {
        let uri = ItemUri::parse(&format!("spotify:{rest}"))?;
        if uri.kind != kind {
            return Err(CatalogError::invalid(format!("expected a {} uri, got {input:?}", kind.as_str())));
        }
        uri.id
    } else if input.contains("://") {
        let path = input.split('?').next().unwrap_or(input);
        path.rsplit('/').next().unwrap_or(path).to_owned()
    } else {
        input.to_owned()
    };
    if is_valid_id(&id) { Ok(id) } else { Err(CatalogError::invalid(format!("invalid id {input:?}"))) }
}

/// Splits a comma-separated `ids` parameter, refusing more than `max`.
pub fn parse_id_list(raw: &str, kind: ItemKind, max: usize) -> Result<Vec<String>, CatalogError> {
    let ids: Vec<String> =
        raw.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| parse_id(s, kind)).collect::<Result<_, _>>()?;
    if ids.is_empty() {
        return Err(CatalogError::invalid("ids must name at least one id"));
    }
    if ids.len() > max {
        return Err(CatalogError::invalid(format!("too many ids requested: at most {max}")));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_22_base62_characters_and_stable() {
        let a = derived_id("track", "x.flac");
        assert_eq!(a.len(), ID_LEN);
        assert!(is_valid_id(&a));
        assert_eq!(a, derived_id("track", "x.flac"));
        assert_ne!(a, derived_id("album", "x.flac"));
        assert_ne!(random_id(), random_id());
    }

    #[test]
    fn uris_ids_and_urls_parse() {
        let id = derived_id("track", "a");
        assert_eq!(parse_id(&id, ItemKind::Track).unwrap(), id);
        assert_eq!(parse_id(&format!("spotify:track:{id}"), ItemKind::Track).unwrap(), id);
        assert_eq!(parse_id(&format!("http://h/track/{id}?si=1"), ItemKind::Track).unwrap(), id);
        assert!(parse_id(&format!("spotify:album:{id}"), ItemKind::Track).is_err());
        assert!(parse_id("not-an-id!", ItemKind::Track).is_err());
        assert_eq!(ItemUri::parse("spotify:user:bob:playlist:abc").unwrap().kind, ItemKind::Playlist);
        assert!(ItemUri::parse("spotify:track").is_err());
    }

    #[test]
    fn id_lists_enforce_their_maximum() {
        let ids = [derived_id("t", "1"), derived_id("t", "2"), derived_id("t", "3")].join(",");
        assert_eq!(parse_id_list(&ids, ItemKind::Track, 3).unwrap().len(), 3);
        assert!(parse_id_list(&ids, ItemKind::Track, 2).is_err());
        assert!(parse_id_list("", ItemKind::Track, 2).is_err());
    }
}
