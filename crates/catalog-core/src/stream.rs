//! Streaming a track's audio file: signed links and HTTP byte ranges.
//!
//! A browser's `<audio>` element cannot send an `Authorization` header, so
//! a device is given a link to each track that carries its own proof: the
//! track id and an expiry signed with HMAC-SHA256 under a key the store
//! keeps (created on first use, shared by every node). A link is valid for
//! an hour or a little more (expiries are rounded up to ten minutes so that
//! repeated deliveries give the same link); devices get fresh links with
//! every playback state they read.

use std::path::PathBuf;

use hmac::{Hmac, Mac as _};
use platform::crypto::{constant_time_eq, random_token};
use sha2::Sha256;

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult};

/// How long a stream link lasts at least, in seconds.
pub const LINK_TTL_SECS: i64 = 3_600;
const LINK_ROUNDING_SECS: i64 = 600;

/// A signed link's query: `expires` (unix seconds) and `signature`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamLink {
    pub expires: i64,
    pub signature: String,
}

/// A track file ready to be served.
#[derive(Clone, Debug)]
pub struct StreamFile {
    pub path: PathBuf,
    pub mime: String,
    pub duration_ms: u64,
    /// Set when a browser cannot play the file and ffmpeg is installed: the
    /// file is then sent as MP3 encoded on the fly (see [`crate::transcode`]).
    pub transcode: Option<crate::transcode::Ffmpeg>,
}

/// The answer to a `Range` header over a body of `len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteRange {
    /// No range (or one the server ignores, as RFC 9110 allows): 200 and the whole body.
    Full,
    /// 206 with the bytes `start..=end`.
    Partial { start: u64, end: u64 },
    /// 416: no byte of the range exists.
    Unsatisfiable,
}

/// Reads a `Range` header. Single ranges are served (`a-b`, `a-`, `-n`);
/// a header that does not parse, another unit, or several ranges are
/// ignored and the whole body is sent, which RFC 9110 allows.
pub fn byte_range(header: Option<&str>, len: u64) -> ByteRange {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else { return ByteRange::Full };
    if spec.contains(',') {
        return ByteRange::Full;
    }
    let Some((first, last)) = spec.trim().split_once('-') else { return ByteRange::Full };
    let number = |s: &str| -> Option<u64> {
        let s = s.trim();
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) { None } else { s.parse().ok() }
    };
    match (first.trim().is_empty(), number(first), number(last)) {
        // `-n`: the last n bytes.
        (true, _, Some(n)) => {
            if n == 0 || len == 0 {
                ByteRange::Unsatisfiable
            } else {
                ByteRange::Partial { start: len - n.min(len), end: len - 1 }
            }
        }
        (false, Some(start), None) if last.trim().is_empty() => {
            if start >= len {
                ByteRange::Unsatisfiable
            } else {
                ByteRange::Partial { start, end: len - 1 }
            }
        }
        (false, Some(start), Some(end)) if start <= end => {
            if start >= len {
                ByteRange::Unsatisfiable
            } else {
                ByteRange::Partial { start, end: end.min(len - 1) }
            }
        }
        _ => ByteRange::Full,
    }
}

fn sign(key: &[u8], track_id: &str, expires: i64) -> CatalogResult<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|e| CatalogError::Internal(format!("hmac key: {e}")))?;
    mac.update(format!("{track_id}.{expires}").as_bytes());
    Ok(hex::encode(mac.finalize().into_bytes()))
}

impl Catalog {
    pub(crate) async fn stream_key(&self) -> CatalogResult<&[u8]> {
        let key = self
            .stream_key
            .get_or_try_init(|| async { self.store.secret("stream-link-key", &random_token(32)).await })
            .await?;
        Ok(key.as_bytes())
    }

    /// A link to `track_id`'s audio valid for at least [`LINK_TTL_SECS`].
    pub async fn stream_link(&self, track_id: &str) -> CatalogResult<StreamLink> {
        let now = self.clock.now().as_millis() / 1000;
        let expires = (now + LINK_TTL_SECS).div_euclid(LINK_ROUNDING_SECS) * LINK_ROUNDING_SECS + LINK_ROUNDING_SECS;
        let signature = sign(self.stream_key().await?, track_id, expires)?;
        Ok(StreamLink { expires, signature })
    }

    /// Checks a stream link and names the file behind it.
    pub async fn open_stream(&self, track_id: &str, link: &StreamLink) -> CatalogResult<StreamFile> {
        let expected = sign(self.stream_key().await?, track_id, link.expires)?;
        if !constant_time_eq(expected.as_bytes(), link.signature.as_bytes()) {
            return Err(CatalogError::Forbidden("the stream link is not valid".to_owned()));
        }
        if link.expires < self.clock.now().as_millis() / 1000 {
            return Err(CatalogError::Forbidden("the stream link expired".to_owned()));
        }
        let file = self.store.track_file(track_id).await?.ok_or(CatalogError::NotFound("track"))?;
        let transcode = self.ffmpeg().filter(|_| crate::transcode::needs_transcoding(&file.mime)).cloned();
        Ok(StreamFile {
            path: PathBuf::from(file.path),
            mime: file.mime,
            duration_ms: u64::try_from(file.duration_ms).unwrap_or(0),
            transcode,
        })
    }
}

/// A stream link's signature, for tests elsewhere in the crate.
#[cfg(test)]
pub(crate) fn tests_sign(key: &[u8], track_id: &str, expires: i64) -> String {
    sign(key, track_id, expires).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_rfc_9110() {
        let r = |h: &str| byte_range(Some(h), 1000);
        assert_eq!(byte_range(None, 1000), ByteRange::Full);
        assert_eq!(r("bytes=0-99"), ByteRange::Partial { start: 0, end: 99 });
        assert_eq!(r("bytes=990-2000"), ByteRange::Partial { start: 990, end: 999 });
        assert_eq!(r("bytes=500-"), ByteRange::Partial { start: 500, end: 999 });
        assert_eq!(r("bytes=-100"), ByteRange::Partial { start: 900, end: 999 });
        assert_eq!(r("bytes=-5000"), ByteRange::Partial { start: 0, end: 999 });
        assert_eq!(r("bytes=1000-"), ByteRange::Unsatisfiable);
        assert_eq!(r("bytes=1000-1001"), ByteRange::Unsatisfiable);
        assert_eq!(r("bytes=-0"), ByteRange::Unsatisfiable);
        // Ignored: bad syntax, other units, several ranges, reversed bounds.
        assert_eq!(r("bytes=abc"), ByteRange::Full);
        assert_eq!(r("items=0-1"), ByteRange::Full);
        assert_eq!(r("bytes=0-1,5-6"), ByteRange::Full);
        assert_eq!(r("bytes=9-3"), ByteRange::Full);
        assert_eq!(r("bytes=+1-2"), ByteRange::Full);
        assert_eq!(byte_range(Some("bytes=0-"), 0), ByteRange::Unsatisfiable);
    }

    #[test]
    fn signatures_bind_the_track_and_the_expiry() {
        let a = sign(b"key", "track", 100).unwrap();
        assert_eq!(a, sign(b"key", "track", 100).unwrap());
        assert_ne!(a, sign(b"key", "track", 101).unwrap());
        assert_ne!(a, sign(b"key", "other", 100).unwrap());
        assert_ne!(a, sign(b"other key", "track", 100).unwrap());
    }
}
