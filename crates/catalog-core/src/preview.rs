//! `preview_url`: 30 seconds of a track, as Spotify's previews are.
//!
//! A preview link is `/preview/{track id}?signature=...`, signed with the
//! key of the stream links over the track id alone, so it does not expire
//! and is the same in every answer (clients cache it, as they cache
//! Spotify's); only whoever was given the link by the API can play it, and
//! it plays 30 seconds, not the track. The window starts a third into the
//! track (a whole track when it is shorter than 30 seconds), nearer the
//! middle than an intro, never running past the end.
//!
//! Where the track allows: a PCM WAV file is cut exactly (its header is
//! rewritten for the window), an MP3 file by bytes (decoders find the next
//! frame); any other format is encoded to MP3 by `ffmpeg` when one is
//! installed, and has no preview (`preview_url: null`) otherwise.

use std::io::{Read as _, SeekFrom};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac as _};
use platform::crypto::constant_time_eq;
use sha2::Sha256;

use crate::Catalog;
use crate::error::{CatalogError, CatalogResult};
use crate::transcode::Ffmpeg;

/// A preview's length.
pub const PREVIEW_MS: u64 = 30_000;

/// Where a preview starts and how long it lasts, for a track of `duration_ms`.
pub fn window(duration_ms: u64) -> (u64, u64) {
    if duration_ms <= PREVIEW_MS {
        return (0, duration_ms);
    }
    ((duration_ms / 3).min(duration_ms - PREVIEW_MS), PREVIEW_MS)
}

/// Whether a file of `mime` can be cut to a preview without ffmpeg.
pub fn cut_without_ffmpeg(mime: &str) -> bool {
    matches!(mime, "audio/wav" | "audio/mpeg")
}

pub fn signature(key: &[u8], track_id: &str) -> CatalogResult<String> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).map_err(|e| CatalogError::Internal(format!("hmac key: {e}")))?;
    mac.update(format!("preview.{track_id}").as_bytes());
    Ok(hex::encode(mac.finalize().into_bytes()))
}

/// How a preview's bytes are made.
#[derive(Clone, Debug)]
pub enum PreviewSource {
    /// A new WAV header, then `len` bytes of the file from `offset`.
    Wav { header: Vec<u8>, offset: u64, len: u64 },
    /// `len` bytes of an MP3 file from `offset`.
    Bytes { offset: u64, len: u64, mime: String },
    /// Encoded by ffmpeg from `start_ms` for `len_ms`, as
    /// [`crate::transcode::TRANSCODED_MIME`].
    Transcode { ffmpeg: Ffmpeg, start_ms: u64, len_ms: u64 },
}

/// A preview ready to be served.
#[derive(Clone, Debug)]
pub struct PreviewFile {
    pub path: PathBuf,
    pub source: PreviewSource,
}

/// The parts of a PCM WAV file a cut needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WavLayout {
    /// The `fmt ` chunk's body.
    pub fmt: Vec<u8>,
    pub data_offset: u64,
    pub data_len: u64,
    pub byte_rate: u64,
    pub block_align: u64,
}

/// Reads a RIFF/WAVE file's chunk list (at most 64 chunks) for its `fmt `
/// and `data` chunks.
pub fn wav_layout(file: &mut (impl std::io::Read + std::io::Seek)) -> Option<WavLayout> {
    let mut head = [0_u8; 12];
    file.read_exact(&mut head).ok()?;
    if head.get(0..4)? != b"RIFF" || head.get(8..12)? != b"WAVE" {
        return None;
    }
    let mut fmt: Option<Vec<u8>> = None;
    let mut at: u64 = 12;
    for _ in 0..64 {
        let mut chunk = [0_u8; 8];
        file.seek(SeekFrom::Start(at)).ok()?;
        file.read_exact(&mut chunk).ok()?;
        let size = u64::from(u32::from_le_bytes(chunk.get(4..8)?.try_into().ok()?));
        match chunk.get(0..4)? {
            b"fmt " if size <= 1024 => {
                let mut body = vec![0_u8; usize::try_from(size).ok()?];
                file.read_exact(&mut body).ok()?;
                fmt = Some(body);
            }
            b"data" => {
                let fmt = fmt?;
                let le16 = |i: usize| -> Option<u64> {
                    Some(u64::from(u16::from_le_bytes(fmt.get(i..i + 2)?.try_into().ok()?)))
                };
                let le32 = |i: usize| -> Option<u64> {
                    Some(u64::from(u32::from_le_bytes(fmt.get(i..i + 4)?.try_into().ok()?)))
                };
                // PCM (1) or IEEE float (3): the samples can be cut anywhere on a frame.
                if !matches!(le16(0)?, 1 | 3) {
                    return None;
                }
                let (byte_rate, block_align) = (le32(8)?, le16(12)?);
                if byte_rate == 0 || block_align == 0 {
                    return None;
                }
                return Some(WavLayout { fmt, data_offset: at + 8, data_len: size, byte_rate, block_align });
            }
            _ => {}
        }
        // Chunks are padded to an even size.
        at = at.checked_add(8)?.checked_add(size + (size & 1))?;
    }
    None
}

/// The header of a WAV file of `data_len` bytes in `layout`'s format.
pub fn wav_header(layout: &WavLayout, data_len: u64) -> Vec<u8> {
    let fmt_len = u32::try_from(layout.fmt.len()).unwrap_or(16);
    let data = u32::try_from(data_len).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(28 + layout.fmt.len());
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(4 + 8 + fmt_len + 8).saturating_add(data).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&fmt_len.to_le_bytes());
    out.extend_from_slice(&layout.fmt);
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data.to_le_bytes());
    out
}

/// The size of an ID3v2 tag at the start of an MP3 file (0 without one).
pub fn id3_len(head: &[u8]) -> u64 {
    match head {
        [b'I', b'D', b'3', _, _, flags, a, b, c, d, ..] => {
            let size = [a, b, c, d].iter().fold(0_u64, |n, byte| (n << 7) | u64::from(**byte & 0x7F));
            let footer = if flags & 0x10 != 0 { 10 } else { 0 };
            10 + size + footer
        }
        _ => 0,
    }
}

fn cut(path: &Path, mime: &str, duration_ms: u64) -> CatalogResult<Option<PreviewSource>> {
    let (start_ms, len_ms) = window(duration_ms);
    let mut file = std::fs::File::open(path)?;
    let file_len = file.metadata()?.len();
    Ok(match mime {
        "audio/wav" => wav_layout(&mut file).map(|layout| {
            let frame = |ms: u64| (ms * layout.byte_rate / 1_000) / layout.block_align * layout.block_align;
            let offset = frame(start_ms).min(layout.data_len);
            let len = frame(len_ms).min(layout.data_len - offset);
            PreviewSource::Wav { header: wav_header(&layout, len), offset: layout.data_offset + offset, len }
        }),
        "audio/mpeg" if duration_ms > 0 => {
            let mut head = [0_u8; 10];
            let read = file.read(&mut head)?;
            let audio_start = id3_len(head.get(..read).unwrap_or_default()).min(file_len);
            let audio = file_len - audio_start;
            let offset = audio_start + audio * start_ms / duration_ms;
            let len = (audio * len_ms / duration_ms).min(file_len - offset);
            Some(PreviewSource::Bytes { offset, len, mime: mime.to_owned() })
        }
        _ => None,
    })
}

impl Catalog {
    /// Loads the key of stream and preview links, so that answers built
    /// without I/O can sign previews ([`Self::preview_signature`]).
    pub async fn warm_link_key(&self) -> CatalogResult<()> {
        self.stream_key().await.map(drop)
    }

    /// The signature of `track_id`'s preview link, when the link key is
    /// loaded and the track can be previewed (its format is cut here, or
    /// ffmpeg is installed).
    pub fn preview_signature(&self, track_id: &str, mime: &str) -> Option<String> {
        if !cut_without_ffmpeg(mime) && self.ffmpeg().is_none() {
            return None;
        }
        let key = self.stream_key.get()?;
        signature(key.as_bytes(), track_id).ok()
    }

    /// Checks a preview link and says how to make its bytes.
    pub async fn open_preview(&self, track_id: &str, given: &str) -> CatalogResult<PreviewFile> {
        let expected = signature(self.stream_key().await?, track_id)?;
        if !constant_time_eq(expected.as_bytes(), given.as_bytes()) {
            return Err(CatalogError::Forbidden("the preview link is not valid".to_owned()));
        }
        let file = self.store.track_file(track_id).await?.ok_or(CatalogError::NotFound("track"))?;
        let path = PathBuf::from(&file.path);
        let duration_ms = u64::try_from(file.duration_ms).unwrap_or(0);
        let owned = path.clone();
        let mime = file.mime.clone();
        let cut = tokio::task::spawn_blocking(move || cut(&owned, &mime, duration_ms))
            .await
            .map_err(|e| CatalogError::Internal(e.to_string()))??;
        let source = match (cut, self.ffmpeg()) {
            (Some(source), _) => source,
            (None, Some(ffmpeg)) => {
                let (start_ms, len_ms) = window(duration_ms);
                PreviewSource::Transcode { ffmpeg: ffmpeg.clone(), start_ms, len_ms }
            }
            (None, None) => return Err(CatalogError::NotFound("preview")),
        };
        Ok(PreviewFile { path, source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_thirty_seconds_a_third_in() {
        assert_eq!(window(180_000), (60_000, 30_000));
        assert_eq!(window(40_000), (10_000, 30_000));
        assert_eq!(window(31_000), (1_000, 30_000), "never past the end");
        assert_eq!(window(20_000), (0, 20_000), "a short track is its own preview");
    }

    #[test]
    fn a_wav_cut_keeps_its_format() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.wav");
        let samples: Vec<f32> = (0..22_050 * 2).map(|i| (i as f32 / 100.0).sin()).collect();
        crate::synth::write_wav(&path, &samples, 22_050, &[("INAM", "x".to_owned())]).unwrap();
        let layout = wav_layout(&mut std::fs::File::open(&path).unwrap()).unwrap();
        assert_eq!((layout.byte_rate, layout.block_align, layout.data_len), (44_100, 2, 88_200));
        assert_eq!(layout.data_offset, 44);
        let header = wav_header(&layout, 1_000);
        let mut cut = header.clone();
        cut.extend(std::iter::repeat_n(0_u8, 1_000));
        let reread = wav_layout(&mut std::io::Cursor::new(cut)).unwrap();
        assert_eq!((reread.data_len, reread.byte_rate, reread.data_offset), (1_000, 44_100, 44));
        assert!(wav_layout(&mut std::io::Cursor::new(b"RIFF....AVI LIST".to_vec())).is_none());
        assert!(wav_layout(&mut std::io::Cursor::new(Vec::new())).is_none());
    }

    #[test]
    fn id3_tags_are_skipped() {
        assert_eq!(id3_len(b"ID3\x04\x00\x00\x00\x00\x02\x01"), 10 + 257);
        assert_eq!(id3_len(b"\xFF\xFB\x90\x00"), 0);
        assert_eq!(id3_len(b"ID3"), 0);
    }

    #[test]
    fn signatures_bind_the_track() {
        assert_eq!(signature(b"k", "a").unwrap(), signature(b"k", "a").unwrap());
        assert_ne!(signature(b"k", "a").unwrap(), signature(b"k", "b").unwrap());
        assert_ne!(signature(b"k", "a").unwrap(), crate::stream::tests_sign(b"k", "a", 0));
    }
}
