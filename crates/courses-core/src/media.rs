//! Media a workspace uploads in the studio: images, audio and video up to
//! 25 MB, fonts up to 5 MB (decimal megabytes, as every limit of the
//! seed). The type is read from the file's first bytes, never from its
//! name or the browser's word; anything not recognised is refused (SVG
//! included: it can carry script). The bytes are a content-addressed blob;
//! a row names it for the workspace.

use bytes::Bytes;
use kernel::Timestamp;

use crate::Courses;
use crate::content;
use crate::error::{CoursesError, CoursesResult};
use crate::issues::code;
use crate::model::Access;

/// Images, audio and video: 25 MB.
pub const MEDIA_LIMIT: u64 = 25_000_000;
/// Fonts: 5 MB.
pub const FONT_LIMIT: u64 = 5_000_000;
/// A file name is kept to this many characters.
const MAX_NAME_CHARS: usize = 200;
/// The studio lists this many files, newest first.
pub const LIST_LIMIT: i64 = 200;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
    Video,
    Font,
}

impl MediaKind {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::Audio => "audio",
            Self::Video => "video",
            Self::Font => "font",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "image" => Some(Self::Image),
            "audio" => Some(Self::Audio),
            "video" => Some(Self::Video),
            "font" => Some(Self::Font),
            _ => None,
        }
    }

    /// The largest file of this kind, in bytes.
    pub const fn limit(self) -> u64 {
        match self {
            Self::Font => FONT_LIMIT,
            _ => MEDIA_LIMIT,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Media {
    pub id: String,
    pub workspace_id: String,
    pub sha256: String,
    pub kind: MediaKind,
    pub content_type: String,
    pub name: String,
    pub size: u64,
    pub created_at: Timestamp,
}

impl Media {
    /// Where the file is served.
    pub fn path(&self) -> String {
        format!("/v1/embed/media/{}", self.id)
    }
}

/// The kind and media type of a file, read from its first bytes.
pub fn sniff(bytes: &[u8]) -> Option<(MediaKind, &'static str)> {
    let at = |range: std::ops::Range<usize>| bytes.get(range).unwrap_or_default();
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    let found = if starts(b"\x89PNG\r\n\x1a\n") {
        (MediaKind::Image, "image/png")
    } else if starts(b"\xFF\xD8\xFF") {
        (MediaKind::Image, "image/jpeg")
    } else if starts(b"GIF87a") || starts(b"GIF89a") {
        (MediaKind::Image, "image/gif")
    } else if starts(b"RIFF") && at(8..12) == b"WEBP" {
        (MediaKind::Image, "image/webp")
    } else if starts(b"RIFF") && at(8..12) == b"WAVE" {
        (MediaKind::Audio, "audio/wav")
    } else if starts(b"ID3") || [b"\xFF\xFB", b"\xFF\xF3", b"\xFF\xF2", b"\xFF\xFA"].iter().any(|m| starts(*m)) {
        (MediaKind::Audio, "audio/mpeg")
    } else if starts(b"OggS") {
        (MediaKind::Audio, "audio/ogg")
    } else if starts(b"fLaC") {
        (MediaKind::Audio, "audio/flac")
    } else if at(4..8) == b"ftyp" {
        // ISO media: M4A is audio, the other brands video.
        if at(8..11) == b"M4A" { (MediaKind::Audio, "audio/mp4") } else { (MediaKind::Video, "video/mp4") }
    } else if starts(b"\x1A\x45\xDF\xA3") {
        (MediaKind::Video, "video/webm")
    } else if starts(b"wOF2") {
        (MediaKind::Font, "font/woff2")
    } else if starts(b"wOFF") {
        (MediaKind::Font, "font/woff")
    } else if starts(b"\x00\x01\x00\x00") || starts(b"true") {
        (MediaKind::Font, "font/ttf")
    } else if starts(b"OTTO") {
        (MediaKind::Font, "font/otf")
    } else {
        return None;
    };
    Some(found)
}

/// A file name as it is kept: no control characters, trimmed, at most 200
/// characters, `upload` when nothing is left.
fn clean_name(name: &str) -> String {
    let name: String = name.chars().filter(|c| !c.is_control()).take(MAX_NAME_CHARS).collect();
    let name = name.trim();
    if name.is_empty() { "upload".to_owned() } else { name.to_owned() }
}

/// Checks an upload: its kind, and its size against that kind's limit.
pub fn check_upload(bytes: &[u8]) -> CoursesResult<(MediaKind, &'static str)> {
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size > MEDIA_LIMIT {
        return Err(CoursesError::TooLarge { what: "the upload", limit: MEDIA_LIMIT });
    }
    if bytes.is_empty() {
        return Err(CoursesError::field(&["file"], code::REQUIRED, "choose a file to upload"));
    }
    let (kind, content_type) = sniff(bytes).ok_or_else(|| {
        CoursesError::field(
            &["file"],
            code::INVALID_VALUE,
            "this file is not an image (PNG, JPEG, GIF, WebP), audio (MP3, M4A, Ogg, WAV, FLAC), video (MP4, WebM) or font (WOFF2, WOFF, TTF, OTF)",
        )
    })?;
    if size > kind.limit() {
        return Err(CoursesError::TooLarge { what: "a font", limit: kind.limit() });
    }
    Ok((kind, content_type))
}

impl Courses {
    /// Stores an uploaded file for the workspace (the caller may write).
    pub async fn upload_media(&self, access: &Access, name: &str, bytes: Vec<u8>) -> CoursesResult<Media> {
        let (kind, content_type) = check_upload(&bytes)?;
        let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        let sha256 = self
            .blobs
            .put(Bytes::from(bytes))
            .await
            .map_err(|e| CoursesError::Internal(format!("storing an upload failed: {e}")))?;
        let media = Media {
            id: content::new_id("med"),
            workspace_id: access.workspace.id.clone(),
            sha256,
            kind,
            content_type: content_type.to_owned(),
            name: clean_name(name),
            size,
            created_at: self.clock.now(),
        };
        self.store.insert_media(&media).await?;
        Ok(media)
    }

    /// The workspace's media, newest first.
    pub async fn media_list(&self, access: &Access) -> CoursesResult<Vec<Media>> {
        Ok(self.store.media_of(&access.workspace.id, LIST_LIMIT).await?)
    }

    /// A file for the public route: anyone with its id (an unguessable
    /// random id) reads it, as learners of any course that shows it do.
    pub async fn media_file(&self, id: &str) -> CoursesResult<(Media, Bytes)> {
        let media = self.store.media_by_id(id).await?.ok_or(CoursesError::not_found("file"))?;
        let bytes = self
            .blobs
            .get(&media.sha256)
            .await
            .map_err(|e| CoursesError::Internal(format!("reading an upload failed: {e}")))?
            .ok_or_else(|| CoursesError::Internal(format!("the blob of {id} is missing")))?;
        Ok((media, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_read_from_the_bytes() {
        type Sniffed = Option<(MediaKind, &'static str)>;
        let cases: [(&[u8], Sniffed); 12] = [
            (b"\x89PNG\r\n\x1a\n....", Some((MediaKind::Image, "image/png"))),
            (b"\xFF\xD8\xFF\xE0", Some((MediaKind::Image, "image/jpeg"))),
            (b"GIF89a", Some((MediaKind::Image, "image/gif"))),
            (b"RIFF\0\0\0\0WEBPVP8 ", Some((MediaKind::Image, "image/webp"))),
            (b"RIFF\0\0\0\0WAVEfmt ", Some((MediaKind::Audio, "audio/wav"))),
            (b"ID3\x04", Some((MediaKind::Audio, "audio/mpeg"))),
            (b"\0\0\0\x20ftypisom", Some((MediaKind::Video, "video/mp4"))),
            (b"\0\0\0\x20ftypM4A ", Some((MediaKind::Audio, "audio/mp4"))),
            (b"\x1A\x45\xDF\xA3", Some((MediaKind::Video, "video/webm"))),
            (b"wOF2\0\x01", Some((MediaKind::Font, "font/woff2"))),
            (b"<svg onload=alert(1)>", None),
            (b"<html><script>", None),
        ];
        for (bytes, expected) in cases {
            assert_eq!(sniff(bytes), expected, "{:?}", String::from_utf8_lossy(bytes));
        }
        assert_eq!(sniff(b"\x00\x01\x00\x00\x00\x0a"), Some((MediaKind::Font, "font/ttf")));
        assert_eq!(sniff(b"OTTO"), Some((MediaKind::Font, "font/otf")));
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn limits_are_decimal_megabytes_per_kind() {
        let mut image = vec![0_u8; 25_000_000];
        image[..8].copy_from_slice(b"\x89PNG\r\n\x1a\n");
        assert!(check_upload(&image).is_ok(), "exactly 25,000,000 bytes is allowed");
        image.push(0);
        assert!(matches!(check_upload(&image), Err(CoursesError::TooLarge { limit: 25_000_000, .. })));
        let mut font = vec![0_u8; 5_000_000];
        font[..4].copy_from_slice(b"wOF2");
        assert!(check_upload(&font).is_ok(), "exactly 5,000,000 bytes is allowed");
        font.push(0);
        assert!(matches!(check_upload(&font), Err(CoursesError::TooLarge { limit: 5_000_000, .. })));
        let Err(CoursesError::Invalid { issues, .. }) = check_upload(b"<svg/>") else { panic!("svg is refused") };
        assert_eq!(issues[0].path, vec!["file".to_owned()]);
        assert!(check_upload(b"").is_err());
    }

    #[test]
    fn names_are_kept_clean_and_short() {
        assert_eq!(clean_name(" map\u{0}.png "), "map.png");
        assert_eq!(clean_name("\n"), "upload");
        assert_eq!(clean_name(&"a".repeat(300)).len(), 200);
    }
}
