//! `svc catalog scan DIR`: tags with lofty, decoding and analysis with
//! symphonia and [`crate::audio`], grouping into albums and artists.
//!
//! Rescans are incremental: a file whose size and modification time are
//! unchanged (and that was analysed) is skipped; tracks whose files vanished
//! from under the scanned directory are removed, then empty albums and
//! artists.

use std::path::{Path, PathBuf};

use lofty::file::{AudioFile as _, TaggedFileExt as _};
use lofty::tag::{Accessor as _, ItemKey};

use crate::Catalog;
use crate::audio;
use crate::error::CatalogResult;
use crate::ids::derived_id;
use crate::store::{AlbumUpsert, EpisodeUpsert, ShowUpsert, TrackUpsert};

/// What the scan imports: what ffmpeg encodes for a self-hosted library
/// (MP3, FLAC, WAV, Ogg Vorbis and Opus, M4A with AAC or ALAC, AIFF, WavPack).
const AUDIO_EXTENSIONS: &[&str] =
    &["mp3", "flac", "wav", "ogg", "oga", "opus", "m4a", "m4b", "mp4", "aac", "aif", "aiff", "aifc", "wv"];

/// Audio formats the scan recognises but cannot read: each is reported in
/// the summary, never skipped silently.
const UNSUPPORTED_AUDIO: &[&str] = &["ape", "wma", "dsf", "dff", "mka", "mpc", "tta", "ac3", "amr", "caf", "au", "ra"];

/// At most this many problems are listed in a summary (all are counted).
pub const MAX_LISTED_PROBLEMS: usize = 1_000;

/// A file the scan could not fully read. (Serialised only to keep the
/// administration page's scan in the store, never as a wire type.)
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScanProblem {
    pub path: String,
    /// What went wrong, in a sentence (`unsupported audio format .ape`).
    pub problem: String,
    /// Whether the file was still imported (its tags were read but its
    /// audio could not be decoded for analysis).
    pub imported: bool,
}

/// Progress of a scan, reported after each file. (Serialised only to keep
/// the administration page's scan in the store.)
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScanProgress {
    pub done: usize,
    pub total: usize,
    pub added: usize,
    pub unchanged: usize,
    pub failed: usize,
    pub removed: usize,
    pub current: Option<String>,
    /// Files that failed or were imported without analysis, the first
    /// [`MAX_LISTED_PROBLEMS`] of them.
    pub problems: Vec<ScanProblem>,
}

impl ScanProgress {
    fn report(&mut self, path: &str, problem: String, imported: bool) {
        if self.problems.len() < MAX_LISTED_PROBLEMS {
            self.problems.push(ScanProblem { path: path.to_owned(), problem, imported });
        }
    }
}

/// How a file went.
enum Outcome {
    Unchanged,
    /// Imported; `Some(reason)` when its audio could not be analysed.
    Imported(Option<String>),
}

/// What the tags (or, lacking them, the path) say about a file.
#[derive(Clone, Debug, Default)]
pub struct FileTags {
    pub title: Option<String>,
    pub artist: Option<String>,
    pub album_artist: Option<String>,
    pub album: Option<String>,
    pub genre: Option<String>,
    pub date: Option<String>,
    pub label: Option<String>,
    pub isrc: Option<String>,
    pub comment: Option<String>,
    pub track: Option<u32>,
    pub disc: Option<u32>,
    pub duration_ms: Option<u64>,
    pub picture: Option<(String, Vec<u8>)>,
    /// A parental-advisory tag marks the recording explicit.
    pub explicit: bool,
    /// Whether lofty could read the file at all (else the defaults above).
    pub readable: bool,
    /// An MP4 file holding Apple Lossless.
    pub alac: bool,
}

fn clean(s: Option<impl AsRef<str>>) -> Option<String> {
    s.map(|s| s.as_ref().replace('\0', "").trim().to_owned()).filter(|s| !s.is_empty())
}

/// Reads tags and embedded artwork; a file without tags yields defaults.
pub fn read_tags(path: &Path) -> FileTags {
    let Ok(tagged) = lofty::read_from_path(path) else {
        return FileTags::default();
    };
    let readable = true;
    let alac = tagged.file_type() == lofty::file::FileType::Mp4 && mp4_is_alac(path);
    let duration_ms = u64::try_from(tagged.properties().duration().as_millis()).ok().filter(|d| *d > 0);
    // The advisory may sit in any of a file's tags (a WAV's ID3 chunk beside
    // its INFO list), so every tag is asked.
    let explicit = tagged.tags().iter().any(tag_is_explicit) || native_advisory(path).unwrap_or(false);
    // The primary tag, unless it names no title and another tag does (a WAV
    // whose ID3 chunk holds only an advisory while INFO holds the rest).
    let titled = |t: &&lofty::tag::Tag| t.title().is_some();
    let Some(tag) = tagged
        .primary_tag()
        .filter(titled)
        .or_else(|| tagged.tags().iter().find(titled))
        .or_else(|| tagged.primary_tag().or_else(|| tagged.first_tag()))
    else {
        return FileTags { duration_ms, explicit, readable, alac, ..FileTags::default() };
    };
    let picture = tag.pictures().first().map(|p| {
        let mime = p.mime_type().map_or_else(|| "image/jpeg".to_owned(), |m| m.as_str().to_owned());
        (mime, p.data().to_vec())
    });
    FileTags {
        title: clean(tag.title()),
        artist: clean(tag.artist()),
        album_artist: clean(tag.get_string(ItemKey::AlbumArtist)),
        album: clean(tag.album()),
        genre: clean(tag.genre()),
        date: clean(tag.get_string(ItemKey::RecordingDate).or_else(|| tag.get_string(ItemKey::Year))),
        label: clean(tag.get_string(ItemKey::Label).or_else(|| tag.get_string(ItemKey::Publisher))),
        isrc: clean(tag.get_string(ItemKey::Isrc)),
        comment: clean(tag.comment()),
        track: tag.track(),
        disc: tag.disk(),
        duration_ms,
        picture,
        explicit,
        readable,
        alac,
    }
}

/// Whether an MP4 file's audio is Apple Lossless (the generic properties
/// do not say which codec an MP4 holds).
fn mp4_is_alac(path: &Path) -> bool {
    use lofty::file::AudioFile as _;
    let options = lofty::config::ParseOptions::new().read_tags(false).read_cover_art(false);
    std::fs::File::open(path)
        .ok()
        .and_then(|mut f| lofty::mp4::Mp4File::read_from(&mut f, options).ok())
        .is_some_and(|f| f.properties().codec() == Some(lofty::mp4::Mp4Codec::ALAC))
}

/// Whether `tag` holds iTunes' advisory saying "explicit" (lofty maps ID3's
/// `TXXX:ITUNESADVISORY` and MP4's `rtng` to one key).
fn tag_is_explicit(tag: &lofty::tag::Tag) -> bool {
    tag.get_string(ItemKey::ParentalAdvisory).and_then(|v| advisory_is_explicit("ITUNESADVISORY", v)).unwrap_or(false)
}

/// Advisory fields lofty's generic tag leaves out: `ITUNESADVISORY` or
/// `EXPLICIT` in Vorbis comments (FLAC, Ogg Vorbis, Opus) and APE tags
/// (WavPack), read from the format's own tag.
fn native_advisory(path: &Path) -> Option<bool> {
    use lofty::config::ParseOptions;
    use lofty::file::AudioFile as _;
    const KEYS: [&str; 2] = ["ITUNESADVISORY", "EXPLICIT"];
    let vorbis = |c: &lofty::ogg::tag::VorbisComments| {
        KEYS.iter().find_map(|k| c.get(k).and_then(|v| advisory_is_explicit(k, v)))
    };
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase)?;
    let open = || std::fs::File::open(path).ok();
    let options = || ParseOptions::new().read_properties(false).read_cover_art(false);
    match ext.as_str() {
        "flac" => lofty::flac::FlacFile::read_from(&mut open()?, options()).ok()?.vorbis_comments().and_then(vorbis),
        "ogg" | "oga" | "opus" => match lofty::ogg::VorbisFile::read_from(&mut open()?, options()) {
            Ok(file) => vorbis(file.vorbis_comments()),
            Err(_) => vorbis(lofty::ogg::OpusFile::read_from(&mut open()?, options()).ok()?.vorbis_comments()),
        },
        "wv" => lofty::wavpack::WavPackFile::read_from(&mut open()?, options()).ok()?.ape().and_then(|tag| {
            KEYS.iter()
                .find_map(|k| tag.get(k).and_then(|item| item.value().text()).and_then(|v| advisory_is_explicit(k, v)))
        }),
        _ => None,
    }
}

/// What a parental-advisory tag says: `Some(true)` for explicit,
/// `Some(false)` for clean or inoffensive, `None` when `key` is no advisory.
/// iTunes writes `ITUNESADVISORY` (ID3 `TXXX`, Vorbis, APE) and `rtng` (MP4)
/// as 1 explicit, 2 clean, 0 none; other taggers write `EXPLICIT` as a flag.
pub fn advisory_is_explicit(key: &str, value: &str) -> Option<bool> {
    let key = key.trim().to_ascii_uppercase();
    let key = key.strip_prefix("TXXX:").unwrap_or(&key);
    if !matches!(key, "ITUNESADVISORY" | "EXPLICIT" | "RTNG" | "ADVISORY" | "PARENTAL_ADVISORY") {
        return None;
    }
    let value = value.trim().trim_end_matches('\0').to_ascii_lowercase();
    Some(matches!(value.as_str(), "1" | "4" | "true" | "yes" | "explicit" | "e"))
}

/// `YYYY`, `YYYY-MM` or `YYYY-MM-DD` and its precision, from a tag date.
pub fn release_date(raw: Option<&str>) -> (String, &'static str) {
    let Some(raw) = raw else {
        return ("0000".to_owned(), "year");
    };
    let digits: Vec<&str> = raw.split(['-', '/', 'T', ' ']).collect();
    let year = digits.first().filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()));
    let two = |s: Option<&&str>| {
        s.and_then(|v| v.parse::<u32>().ok()).filter(|v| (1..=31).contains(v)).map(|v| format!("{v:02}"))
    };
    match (year, two(digits.get(1)), two(digits.get(2))) {
        (Some(y), Some(m), Some(d)) => (format!("{y}-{m}-{d}"), "day"),
        (Some(y), Some(m), None) => (format!("{y}-{m}"), "month"),
        (Some(y), _, _) => ((*y).to_owned(), "year"),
        (None, _, _) => ("0000".to_owned(), "year"),
    }
}

/// Splits "A feat. B", "A; B", "A / B" into artist names.
pub fn split_artists(raw: &str) -> Vec<String> {
    let mut names = vec![raw.to_owned()];
    for sep in [";", " / ", " feat. ", " ft. ", " featuring "] {
        names = names.iter().flat_map(|n| n.split(sep).map(str::to_owned).collect::<Vec<_>>()).collect();
    }
    let mut out: Vec<String> = names.into_iter().map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()).collect();
    out.dedup();
    out
}

/// A title from a file name: `01 - Dawn` is "Dawn".
fn title_of(stem: &str) -> String {
    stem.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ' || c == '-' || c == '.').to_owned()
}

/// Collects the audio files under `dir` into `out`, and the audio files of
/// formats the scan cannot read into `unsupported`.
fn collect_files(dir: &Path, out: &mut Vec<PathBuf>, unsupported: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.filter_map(Result::ok).collect();
    entries.sort_by_key(std::fs::DirEntry::path);
    for entry in entries {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).unwrap_or_default();
        if kind.is_dir() {
            collect_files(&path, out, unsupported)?;
        } else if kind.is_file() && AUDIO_EXTENSIONS.contains(&ext.as_str()) {
            out.push(path);
        } else if kind.is_file() && UNSUPPORTED_AUDIO.contains(&ext.as_str()) {
            unsupported.push(path);
        }
    }
    Ok(())
}

/// The content type a file is served with; `alac` marks an MP4 holding
/// Apple Lossless (which browsers other than Safari cannot play).
fn mime_of(path: &Path, alac: bool) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("mp3") => "audio/mpeg",
        Some("flac") => "audio/flac",
        Some("wav") => "audio/wav",
        Some("ogg" | "oga" | "opus") => "audio/ogg",
        Some("m4a" | "m4b" | "mp4") if alac => crate::transcode::ALAC_MIME,
        Some("m4a" | "m4b" | "mp4") => "audio/mp4",
        Some("aac") => "audio/aac",
        Some("aif" | "aiff" | "aifc") => "audio/aiff",
        Some("wv") => "audio/wavpack",
        _ => "application/octet-stream",
    }
}

impl Catalog {
    /// Imports every audio file under `dir`, calling `progress` after each.
    pub async fn scan(&self, dir: &Path, mut progress: impl FnMut(&ScanProgress)) -> CatalogResult<ScanProgress> {
        let root = std::fs::canonicalize(dir)?;
        let mut files = Vec::new();
        let mut unsupported = Vec::new();
        collect_files(&root, &mut files, &mut unsupported)?;
        let mut state = ScanProgress { total: files.len() + unsupported.len(), ..ScanProgress::default() };
        let mut seen = std::collections::HashSet::new();
        for path in unsupported {
            let shown = path.display().to_string();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_ascii_lowercase();
            tracing::warn!(path = %shown, "unsupported audio format");
            state.report(&shown, format!("unsupported audio format .{ext}"), false);
            state.failed += 1;
            state.done += 1;
            state.current = Some(shown);
            progress(&state);
        }
        for path in files {
            let shown = path.display().to_string();
            seen.insert(shown.clone());
            match self.scan_file(&path).await {
                Ok(Outcome::Imported(None)) => state.added += 1,
                Ok(Outcome::Imported(Some(reason))) => {
                    state.added += 1;
                    state.report(&shown, format!("imported without audio features: {reason}"), true);
                }
                Ok(Outcome::Unchanged) => state.unchanged += 1,
                Err(err) => {
                    tracing::warn!(path = %path.display(), error = %err, "file skipped");
                    state.report(&shown, err.to_string(), false);
                    state.failed += 1;
                }
            }
            state.current = Some(shown);
            state.done += 1;
            progress(&state);
        }
        let prefix = root.display().to_string();
        let gone: Vec<String> = self
            .store
            .paths_under(&prefix)
            .await?
            .into_iter()
            .filter(|(_, p)| !seen.contains(p))
            .map(|(id, _)| id)
            .collect();
        state.removed = gone.len();
        if !gone.is_empty() {
            self.store.remove_tracks(&gone).await?;
        }
        if state.added > 0 || state.removed > 0 {
            self.store.optimize_search_index().await?;
        }
        state.current = None;
        Ok(state)
    }

    /// Imports one file, unless it is unchanged since the last scan.
    async fn scan_file(&self, path: &Path) -> CatalogResult<Outcome> {
        let meta = std::fs::metadata(path)?;
        let size = meta.len();
        let mtime = meta
            .modified()
            .ok()
            .and_then(|m| m.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_millis()).ok())
            .unwrap_or(0);
        let path_str = path.display().to_string();
        if let Some(state) = self.store.file_state(&path_str).await?
            && state.has_features
            && state.file_size == i64::try_from(size).unwrap_or(-1)
            && state.file_mtime == mtime
        {
            return Ok(Outcome::Unchanged);
        }
        let owned = path.to_owned();
        let tags = tokio::task::spawn_blocking(move || read_tags(&owned))
            .await
            .map_err(|e| crate::error::CatalogError::Internal(e.to_string()))?;
        let folders: Vec<&str> =
            path.parent().map(|p| p.components().filter_map(|c| c.as_os_str().to_str()).collect()).unwrap_or_default();
        if let Some(spoken) = crate::spoken::classify(&folders, &tags) {
            if !tags.readable {
                return Err(crate::error::CatalogError::Audio(format!(
                    "{path_str}: the tags and container cannot be read"
                )));
            }
            self.store.upsert_episode(&self.episode_upsert(path, &path_str, size, mtime, &tags, spoken)).await?;
            return Ok(Outcome::Imported(None));
        }
        let owned = path.to_owned();
        let ffmpeg = self.ffmpeg.clone();
        let decoded = tokio::task::spawn_blocking(move || {
            // symphonia first; ffmpeg (when installed) for what it cannot decode (Opus, WavPack).
            let pcm = audio::decode(&owned).or_else(|err| match ffmpeg.as_deref() {
                Some(ffmpeg) => ffmpeg.decode_mono(&owned, audio::MAX_ANALYSED_SECONDS).map_err(|_| err),
                None => Err(err),
            });
            pcm.map(|pcm| (pcm.duration_ms, audio::analyze(&pcm)))
        })
        .await
        .map_err(|e| crate::error::CatalogError::Internal(e.to_string()))?;
        let (duration_ms, features, analysis, not_analysed) = match decoded {
            Ok((d, (f, a))) => {
                // ffmpeg's decode stops at the analysed part; the container knows the whole.
                let d = tags.duration_ms.filter(|t| *t > d).unwrap_or(d);
                (d, serde_json::to_string(&f).ok(), serde_json::to_string(&a).ok(), None)
            }
            // Neither the tags nor the audio: nothing of this file can be shown.
            Err(err) if !tags.readable => return Err(err),
            Err(err) => {
                tracing::warn!(path = %path_str, error = %err, "not analysed");
                (tags.duration_ms.unwrap_or(0), None, None, Some(err.to_string()))
            }
        };
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("Unknown").to_owned();
        let parent =
            |n: usize| path.ancestors().nth(n).and_then(|p| p.file_name()).and_then(|s| s.to_str()).map(str::to_owned);
        let title = tags.title.clone().unwrap_or_else(|| title_of(&stem));
        let artist_raw = tags.artist.clone().or_else(|| parent(2)).unwrap_or_else(|| "Unknown Artist".to_owned());
        let album_name = tags.album.clone().or_else(|| parent(1)).unwrap_or_else(|| "Unknown Album".to_owned());
        let album_artist_raw = tags.album_artist.clone().unwrap_or_else(|| artist_raw.clone());
        let to_pairs = |raw: &str| -> Vec<(String, String)> {
            split_artists(raw).into_iter().map(|n| (derived_id("artist", &n.to_lowercase()), n)).collect()
        };
        let artists = to_pairs(&artist_raw);
        let album_artists = to_pairs(&album_artist_raw);
        // PostgreSQL's TEXT cannot hold NUL, so the separator is the unit separator.
        let album_key = format!("{}\u{1f}{}", album_artist_raw.to_lowercase(), album_name.to_lowercase());
        let (release_date, precision) = release_date(tags.date.as_deref());
        let image = tags
            .picture
            .clone()
            .map(|(mime, data)| (derived_id("image", &platform::crypto::sha256_hex(&data)), mime, data));
        let upsert = TrackUpsert {
            track_id: derived_id("track", &path_str),
            album: AlbumUpsert {
                id: derived_id("album", &album_key),
                key: album_key,
                name: album_name,
                album_type: "album".to_owned(),
                release_date: release_date.clone(),
                release_date_precision: precision.to_owned(),
                label: tags.label.clone(),
                genres: tags.genre.iter().map(|g| g.to_lowercase()).collect(),
                artists: album_artists,
                image,
            },
            artists,
            name: title,
            disc_number: tags.disc.unwrap_or(1),
            track_number: tags.track.unwrap_or(1),
            duration_ms,
            explicit: tags.explicit,
            isrc: tags.isrc.clone(),
            genre: tags.genre.clone(),
            year: release_date.get(..4).and_then(|y| y.parse().ok()).filter(|y| *y > 0),
            path: path_str,
            file_size: size,
            file_mtime: mtime,
            mime: mime_of(path, tags.alac).to_owned(),
            features,
            analysis,
            now: self.clock.now(),
        };
        self.store.upsert_track(&upsert).await?;
        Ok(Outcome::Imported(not_analysed))
    }

    /// What to store for a spoken-word file: it is not decoded (its length
    /// comes from the container), only its tags and path are read.
    fn episode_upsert(
        &self,
        path: &Path,
        path_str: &str,
        size: u64,
        mtime: i64,
        tags: &FileTags,
        spoken: crate::spoken::SpokenFile,
    ) -> EpisodeUpsert {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("Unknown");
        let leading: String = stem.chars().take_while(char::is_ascii_digit).collect();
        let name = tags.title.clone().unwrap_or_else(|| title_of(stem));
        let number = tags.track.or_else(|| leading.parse().ok()).unwrap_or(0);
        let (release_date, precision) = release_date(tags.date.as_deref());
        let key = format!("{}\u{1f}{}", spoken.kind.as_str(), spoken.collection.to_lowercase());
        EpisodeUpsert {
            id: derived_id(crate::spoken::item_kind_of(spoken.kind).as_str(), path_str),
            show: ShowUpsert {
                id: derived_id(spoken.kind.as_str(), &key),
                kind: spoken.kind.as_str().to_owned(),
                key,
                name: spoken.collection,
                publisher: spoken.publisher,
                image: tags
                    .picture
                    .clone()
                    .map(|(mime, data)| (derived_id("image", &platform::crypto::sha256_hex(&data)), mime, data)),
            },
            name,
            number,
            duration_ms: tags.duration_ms.unwrap_or(0),
            release_date,
            release_date_precision: precision.to_owned(),
            description: tags.comment.clone().unwrap_or_default(),
            path: path_str.to_owned(),
            file_size: size,
            file_mtime: mtime,
            mime: mime_of(path, tags.alac).to_owned(),
            now: self.clock.now(),
        }
    }

    /// Fills an empty catalog with the synthesised demo library, written
    /// under `<data_dir>/demo-library`. Returns the number of tracks added.
    pub async fn seed_demo_if_empty(&self, data_dir: &Path) -> CatalogResult<Option<usize>> {
        if self.store.track_count().await? > 0 {
            return Ok(None);
        }
        let dir = data_dir.join("demo-library");
        let target = dir.clone();
        tokio::task::spawn_blocking(move || crate::synth::write_demo_library(&target))
            .await
            .map_err(|e| crate::error::CatalogError::Internal(e.to_string()))??;
        let done = self.scan(&dir, |_| {}).await?;
        Ok(Some(done.added))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_dates_keep_their_precision() {
        assert_eq!(release_date(Some("1999")), ("1999".to_owned(), "year"));
        assert_eq!(release_date(Some("1999-03")), ("1999-03".to_owned(), "month"));
        assert_eq!(release_date(Some("1999-03-07T10:00")), ("1999-03-07".to_owned(), "day"));
        assert_eq!(release_date(Some("n/a")), ("0000".to_owned(), "year"));
        assert_eq!(release_date(None), ("0000".to_owned(), "year"));
    }

    #[test]
    fn parental_advisories_mark_explicit() {
        for (key, value) in [("ITUNESADVISORY", "1"), ("TXXX:ITUNESADVISORY", "1"), ("explicit", "yes"), ("rtng", "1")]
        {
            assert_eq!(advisory_is_explicit(key, value), Some(true), "{key}={value}");
        }
        for (key, value) in [("ITUNESADVISORY", "2"), ("ITUNESADVISORY", "0"), ("EXPLICIT", "0"), ("EXPLICIT", "no")] {
            assert_eq!(advisory_is_explicit(key, value), Some(false), "{key}={value}");
        }
        assert_eq!(advisory_is_explicit("COMMENT", "1"), None);
    }

    #[test]
    fn artist_credits_split() {
        assert_eq!(split_artists("A feat. B; C"), vec!["A", "B", "C"]);
        assert_eq!(split_artists("AC/DC"), vec!["AC/DC"]);
    }

    #[test]
    fn demo_wav_tags_read_back_through_lofty() {
        let dir = tempfile::tempdir().unwrap();
        crate::synth::write_demo_library(dir.path()).unwrap();
        let spec = crate::synth::SongSpec::demo(0);
        let path = dir.path().join(spec.artist).join(spec.album).join(format!("01 {}.wav", spec.title));
        let tags = read_tags(&path);
        assert_eq!(tags.title.as_deref(), Some(spec.title));
        assert_eq!(tags.artist.as_deref(), Some(spec.artist));
        assert_eq!(tags.album.as_deref(), Some(spec.album));
        assert_eq!(tags.track, Some(1));
        assert!(!tags.explicit);
        // The explicit demo track: its ID3 chunk holds only the advisory,
        // its INFO list the rest, and both are read.
        let explicit =
            dir.path().join("The Harmonics/Overtones").join(format!("02 {}.wav", crate::synth::EXPLICIT_DEMO_TITLE));
        let marked = read_tags(&explicit);
        assert!(marked.explicit);
        assert_eq!(marked.title.as_deref(), Some(crate::synth::EXPLICIT_DEMO_TITLE));
        assert_eq!(marked.artist.as_deref(), Some("The Harmonics"));
        let pcm = crate::audio::decode(&path).unwrap();
        assert_eq!(pcm.rate, spec.rate);
        assert!((pcm.duration_ms as f64 - spec.seconds * 1000.0).abs() < 50.0);
    }
}
