//! What this binary's own decoders and the browser cannot handle goes
//! through `ffmpeg`, an optional dependency found on the `PATH`:
//!
//! - **decoding for analysis**: symphonia reads MP3, FLAC, WAV, AIFF, Ogg
//!   Vorbis, AAC and ALAC; Opus and WavPack are decoded by ffmpeg (mono,
//!   22,050 Hz, 32-bit float) when it is installed, and otherwise imported
//!   with their tags and length but without audio features;
//! - **streaming**: browsers cannot play AIFF, WavPack or ALAC (Safari aside),
//!   so those are sent as MP3 at a constant 192 kbit/s, encoded on the fly.
//!   At a constant bitrate a byte offset is a time offset, so HTTP ranges
//!   still work: a range starting at byte `b` is encoded from second
//!   `b / 24,000`, and MP3 decoders find the next frame on their own.
//!
//! Without ffmpeg those files stream as they are, which Safari plays.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::audio::Pcm;
use crate::error::{CatalogError, CatalogResult};

/// The content type recorded for an MP4 file holding Apple Lossless.
pub const ALAC_MIME: &str = "audio/mp4; codecs=\"alac\"";
/// Bytes per second of the transcoded stream (192 kbit/s).
pub const TRANSCODED_BYTES_PER_SEC: u64 = 24_000;
/// The content type of the transcoded stream.
pub const TRANSCODED_MIME: &str = "audio/mpeg";
/// The sample rate audio is decoded at for analysis.
const ANALYSIS_RATE: u32 = 22_050;

/// Whether a browser cannot play files of this content type, so they are
/// streamed transcoded when ffmpeg is installed.
pub fn needs_transcoding(mime: &str) -> bool {
    matches!(mime, "audio/aiff" | "audio/wavpack") || mime == ALAC_MIME
}

/// The length of the transcoded stream of a track of `duration_ms`.
pub const fn transcoded_len(duration_ms: u64) -> u64 {
    (duration_ms * TRANSCODED_BYTES_PER_SEC).div_ceil(1_000)
}

/// The second a transcoded stream starting at byte `offset` starts from.
pub fn start_second(offset: u64) -> f64 {
    offset as f64 / TRANSCODED_BYTES_PER_SEC as f64
}

/// An `ffmpeg` executable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ffmpeg {
    program: PathBuf,
}

impl Ffmpeg {
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self { program: program.into() }
    }

    /// The first `ffmpeg` in the directories of `path` (the value of `PATH`),
    /// if any is an executable file.
    pub fn find_in(path: &std::ffi::OsStr) -> Option<Self> {
        std::env::split_paths(path)
            .map(|dir| dir.join("ffmpeg"))
            .find(|candidate| is_executable(candidate))
            .map(Self::new)
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    /// Decodes up to `max_seconds` of `path` to mono samples for analysis.
    pub fn decode_mono(&self, path: &Path, max_seconds: usize) -> CatalogResult<Pcm> {
        let output = Command::new(&self.program)
            .args(["-nostdin", "-v", "error", "-i"])
            .arg(path)
            .args(["-t", &max_seconds.to_string(), "-vn", "-ac", "1", "-ar", &ANALYSIS_RATE.to_string()])
            .args(["-f", "f32le", "-"])
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| CatalogError::Audio(format!("{}: ffmpeg could not run: {e}", path.display())))?;
        if !output.status.success() {
            let reason = String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or("").to_owned();
            return Err(CatalogError::Audio(format!("{}: ffmpeg could not decode it: {reason}", path.display())));
        }
        let samples: Vec<f32> = output
            .stdout
            .chunks_exact(4)
            .map(|b| {
                f32::from_le_bytes([
                    b.first().copied().unwrap_or(0),
                    b.get(1).copied().unwrap_or(0),
                    b.get(2).copied().unwrap_or(0),
                    b.get(3).copied().unwrap_or(0),
                ])
            })
            .collect();
        if samples.is_empty() {
            return Err(CatalogError::Audio(format!("{}: ffmpeg decoded no audio", path.display())));
        }
        let duration_ms = samples.len() as u64 * 1_000 / u64::from(ANALYSIS_RATE);
        Ok(Pcm { samples, rate: ANALYSIS_RATE, duration_ms })
    }

    /// The command that encodes `path` as constant-bitrate MP3 from
    /// `start_second` on (for `seconds`, else to the end), written to its
    /// standard output.
    pub fn mp3_command(&self, path: &Path, start_second: f64, seconds: Option<f64>) -> Command {
        let mut command = Command::new(&self.program);
        command.args(["-nostdin", "-v", "error"]);
        if start_second > 0.0 {
            // Before `-i`: a fast seek in the input.
            command.args(["-ss", &format!("{start_second:.3}")]);
        }
        command.arg("-i").arg(path);
        if let Some(seconds) = seconds {
            command.args(["-t", &format!("{seconds:.3}")]);
        }
        command
            .args(["-vn", "-map_metadata", "-1", "-c:a", "libmp3lame", "-b:a", "192k", "-ar", "44100"])
            // No ID3 tag or Xing header: the stream is frames only, so byte
            // offsets map to time.
            .args(["-id3v2_version", "0", "-write_xing", "0", "-f", "mp3", "-"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        command
    }
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browsers_get_lossless_apple_aiff_and_wavpack_transcoded() {
        assert!(needs_transcoding("audio/aiff"));
        assert!(needs_transcoding("audio/wavpack"));
        assert!(needs_transcoding(ALAC_MIME));
        for plain in ["audio/mpeg", "audio/flac", "audio/wav", "audio/ogg", "audio/mp4", "audio/aac"] {
            assert!(!needs_transcoding(plain), "{plain}");
        }
    }

    #[test]
    fn byte_offsets_are_time_offsets_at_a_constant_bitrate() {
        assert_eq!(transcoded_len(1_000), 24_000);
        assert_eq!(transcoded_len(1), 24);
        assert_eq!(transcoded_len(0), 0);
        assert!((start_second(48_000) - 2.0).abs() < 1e-9);
        assert!((start_second(12_000) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn ffmpeg_is_looked_up_on_the_path() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Ffmpeg::find_in(dir.path().as_os_str()), None);
        let fake = dir.path().join("ffmpeg");
        std::fs::write(&fake, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            assert_eq!(Ffmpeg::find_in(dir.path().as_os_str()), None, "not executable yet");
            std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let paths = std::env::join_paths([Path::new("/nonexistent"), dir.path()]).unwrap();
        assert_eq!(Ffmpeg::find_in(&paths).map(|f| f.program().to_owned()), Some(fake));
    }
}
