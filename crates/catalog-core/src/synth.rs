//! Audio the project synthesises itself: test signals with known tempo and
//! key, and the small demo library a fresh catalog starts with (free to
//! ship because nothing in it was recorded).

use std::io::Write as _;
use std::path::Path;

const TAU: f32 = std::f32::consts::TAU;

fn midi_hz(note: i32) -> f32 {
    440.0 * 2_f32.powf((note as f32 - 69.0) / 12.0)
}

/// Short decaying noise-free clicks (a 1 kHz burst) at `bpm`, starting at 0.
pub fn click_track(bpm: f64, seconds: f64, rate: u32) -> Vec<f32> {
    let len = (seconds * f64::from(rate)) as usize;
    let period = 60.0 / bpm * f64::from(rate);
    let mut out = vec![0.0_f32; len];
    let click_len = (0.02 * f64::from(rate)) as usize;
    let mut beat = 0.0;
    while (beat as usize) < len {
        let start = beat as usize;
        for i in 0..click_len {
            if let Some(slot) = out.get_mut(start + i) {
                let t = i as f32 / rate as f32;
                *slot += 0.8 * (TAU * 1000.0 * t).sin() * (-t * 200.0).exp();
            }
        }
        beat += period;
    }
    out
}

/// A sustained chord of MIDI notes, each with a few decaying harmonics.
pub fn chord(notes: &[i32], seconds: f64, rate: u32) -> Vec<f32> {
    let len = (seconds * f64::from(rate)) as usize;
    let gain = 0.25 / notes.len().max(1) as f32;
    (0..len)
        .map(|i| {
            let t = i as f32 / rate as f32;
            notes
                .iter()
                .map(|n| {
                    let f = midi_hz(*n);
                    (1..=3).map(|h| (TAU * f * h as f32 * t).sin() / h as f32).sum::<f32>()
                })
                .sum::<f32>()
                * gain
        })
        .collect()
}

/// What one demo track is.
#[derive(Clone, Debug)]
pub struct SongSpec {
    pub artist: &'static str,
    pub album: &'static str,
    pub title: &'static str,
    pub genre: &'static str,
    pub year: u32,
    pub track: u32,
    pub bpm: f64,
    /// MIDI note of the tonic (60 = C4).
    pub tonic: i32,
    pub major: bool,
    pub seconds: f64,
    pub rate: u32,
}

/// Artist, album, title, genre, year, track number, BPM, tonic, major.
type DemoRow = (&'static str, &'static str, &'static str, &'static str, u32, u32, f64, i32, bool);

const DEMO: &[DemoRow] = &[
    ("Sine Collective", "First Light", "Dawn Oscillator", "electronic", 2024, 1, 120.0, 57, true),
    ("Sine Collective", "First Light", "Square Horizon", "electronic", 2024, 2, 128.0, 62, false),
    ("Sine Collective", "First Light", "Low Pass Morning", "electronic", 2024, 3, 100.0, 60, true),
    ("The Harmonics", "Overtones", "Fifth Avenue", "rock", 2022, 1, 140.0, 64, true),
    ("The Harmonics", "Overtones", "Minor Detour", "rock", 2022, 2, 90.0, 57, false),
    ("The Harmonics", "Overtones", "Root Position", "rock", 2022, 3, 110.0, 55, true),
    ("Metronome Trio", "Steady State", "Ninety Beats", "jazz", 2020, 1, 90.0, 65, true),
    ("Metronome Trio", "Steady State", "Blue Pulse", "jazz", 2020, 2, 96.0, 62, false),
];

impl SongSpec {
    /// The `i`-th demo track (wrapping around the list).
    pub fn demo(i: usize) -> Self {
        let d = DEMO.get(i % DEMO.len()).copied().unwrap_or((
            "Demo",
            "Demo",
            "Demo",
            "electronic",
            2024,
            1,
            120.0,
            57,
            true,
        ));
        Self {
            artist: d.0,
            album: d.1,
            title: d.2,
            genre: d.3,
            year: d.4,
            track: d.5,
            bpm: d.6,
            tonic: d.7,
            major: d.8,
            seconds: 16.0,
            rate: 22_050,
        }
    }

    pub const fn demo_count() -> usize {
        DEMO.len()
    }
}

/// A short piece: a kick on every beat over I-IV-V-I (or i-iv-v-i) chords
/// in the song's key, one chord per bar of four beats.
pub fn song(spec: &SongSpec) -> Vec<f32> {
    let rate = spec.rate;
    let len = (spec.seconds * f64::from(rate)) as usize;
    let third = if spec.major { 4 } else { 3 };
    let progression = [0, 5, 7, 0];
    let beat = 60.0 / spec.bpm;
    let bar = beat * 4.0;
    let clicks = click_track(spec.bpm, spec.seconds, rate);
    (0..len)
        .map(|i| {
            let t = i as f64 / f64::from(rate);
            let step = progression.get(((t / bar) as usize) % progression.len()).copied().unwrap_or(0);
            let root = spec.tonic + step;
            // The tonic chord keeps the song's mode; IV and V follow it too.
            let notes = [root, root + third, root + 7, root - 12];
            let tt = t as f32;
            let pad: f32 = notes
                .iter()
                .map(|n| {
                    let f = midi_hz(*n);
                    (1..=3).map(|h| (TAU * f * h as f32 * tt).sin() / h as f32).sum::<f32>()
                })
                .sum::<f32>()
                * 0.06;
            pad + clicks.get(i).copied().unwrap_or(0.0) * 0.6
        })
        .collect()
}

/// Writes 16-bit mono PCM WAV with a RIFF `LIST/INFO` tag chunk.
pub fn write_wav(path: &Path, samples: &[f32], rate: u32, tags: &[(&str, String)]) -> std::io::Result<()> {
    let mut info = Vec::new();
    info.extend_from_slice(b"INFO");
    for (id, value) in tags {
        let mut text = value.clone().into_bytes();
        text.push(0);
        if text.len() % 2 == 1 {
            text.push(0);
        }
        info.extend_from_slice(id.as_bytes());
        info.extend_from_slice(&u32::try_from(text.len()).unwrap_or(0).to_le_bytes());
        info.extend_from_slice(&text);
    }
    let data_len = u32::try_from(samples.len() * 2).unwrap_or(u32::MAX);
    let info_len = u32::try_from(info.len()).unwrap_or(0);
    let mut out = Vec::with_capacity(samples.len() * 2 + info.len() + 64);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(4 + 24 + 8 + data_len + 8 + info_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16_u32.to_le_bytes());
    out.extend_from_slice(&1_u16.to_le_bytes());
    out.extend_from_slice(&1_u16.to_le_bytes());
    out.extend_from_slice(&rate.to_le_bytes());
    out.extend_from_slice(&(rate * 2).to_le_bytes());
    out.extend_from_slice(&2_u16.to_le_bytes());
    out.extend_from_slice(&16_u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for s in samples {
        let v = (s.clamp(-1.0, 1.0) * 32_767.0) as i16;
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(b"LIST");
    out.extend_from_slice(&info_len.to_le_bytes());
    out.extend_from_slice(&info);
    let mut file = std::fs::File::create(path)?;
    file.write_all(&out)
}

/// The demo track tagged explicit, so a client sees `explicit: true` on a
/// fresh catalog.
pub const EXPLICIT_DEMO_TITLE: &str = "Minor Detour";

/// Adds an ID3v2 chunk holding iTunes' parental advisory (`TXXX:ITUNESADVISORY`
/// = 1) to a WAV file, beside its INFO list, as taggers such as Mp3tag do.
pub fn mark_explicit(path: &Path) -> std::io::Result<()> {
    use lofty::config::WriteOptions;
    use lofty::tag::{ItemKey, Tag, TagExt as _, TagType};
    let mut tag = Tag::new(TagType::Id3v2);
    tag.insert_text(ItemKey::ParentalAdvisory, "1".to_owned());
    tag.save_to_path(path, WriteOptions::default()).map_err(std::io::Error::other)
}

/// Writes the demo library under `dir` (one folder per artist and album).
pub fn write_demo_library(dir: &Path) -> std::io::Result<usize> {
    write_library(dir, SongSpec::demo(0).seconds)
}

/// The demo library with tracks of `seconds` each (tests use short ones).
pub fn write_library(dir: &Path, seconds: f64) -> std::io::Result<usize> {
    for i in 0..SongSpec::demo_count() {
        let spec = SongSpec { seconds, ..SongSpec::demo(i) };
        let folder = dir.join(spec.artist).join(spec.album);
        std::fs::create_dir_all(&folder)?;
        let path = folder.join(format!("{:02} {}.wav", spec.track, spec.title));
        let tags = [
            ("INAM", spec.title.to_owned()),
            ("IART", spec.artist.to_owned()),
            ("IPRD", spec.album.to_owned()),
            ("IGNR", spec.genre.to_owned()),
            ("ICRD", spec.year.to_string()),
            ("ITRK", spec.track.to_string()),
        ];
        write_wav(&path, &song(&spec), spec.rate, &tags)?;
        if spec.title == EXPLICIT_DEMO_TITLE {
            mark_explicit(&path)?;
        }
    }
    Ok(SongSpec::demo_count() + write_spoken(dir, seconds)?)
}

/// The spoken-word part of the demo library, by the folder convention of
/// [`crate::spoken`]: one show with two episodes, one audiobook with two
/// chapters.
pub const DEMO_SPOKEN: &[(&str, &str, &str, u32)] = &[
    ("Podcasts/Signal Hour", "Pilot: What Is a Sine Wave", "2025-01-06", 1),
    ("Podcasts/Signal Hour", "Harmonics Explained", "2025-01-13", 2),
    ("Audiobooks/Ada Byron - Notes on the Engine", "The Engine", "2023", 1),
    ("Audiobooks/Ada Byron - Notes on the Engine", "Of Numbers and Notes", "2023", 2),
];

fn write_spoken(dir: &Path, seconds: f64) -> std::io::Result<usize> {
    let rate = 22_050;
    for (i, (folder, title, date, number)) in DEMO_SPOKEN.iter().enumerate() {
        let folder = dir.join(folder);
        std::fs::create_dir_all(&folder)?;
        let path = folder.join(format!("{number:02} {title}.wav"));
        let podcast = folder.parent().and_then(|p| p.file_name()).is_some_and(|n| n == "Podcasts");
        let mut tags = vec![
            ("INAM", (*title).to_owned()),
            ("ICRD", (*date).to_owned()),
            ("ITRK", number.to_string()),
            ("ICMT", format!("A synthesised {} of the demo library.", if podcast { "episode" } else { "chapter" })),
        ];
        if podcast {
            tags.push(("IART", "Demo Radio".to_owned()));
        }
        // A quiet drone stands in for a voice.
        let tonic = 48 + i32::try_from(i).unwrap_or(0) * 2;
        let samples: Vec<f32> = chord(&[tonic, tonic + 7], seconds, rate).iter().map(|s| s * 0.5).collect();
        write_wav(&path, &samples, rate, &tags)?;
    }
    Ok(DEMO_SPOKEN.len())
}
