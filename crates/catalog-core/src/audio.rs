//! Audio features and audio analysis computed from the decoded signal.
//!
//! The pipeline (all deterministic: fixed frame sizes, no randomness):
//! 1. decode with symphonia, mix down to mono, keep at most
//!    [`MAX_ANALYSED_SECONDS`] and halve the rate while it is above 32 kHz;
//! 2. a short-time Fourier transform (2048-sample Hann frames, hop 512);
//! 3. an onset-strength envelope from positive spectral flux of the log
//!    magnitude; its autocorrelation over 60-200 BPM, weighted towards
//!    120 BPM to settle octave errors, gives the tempo, refined by parabolic
//!    interpolation; the beat phase maximises the envelope on the beat grid;
//! 4. a chroma vector (spectral energy per pitch class, 55 Hz-5 kHz)
//!    correlated with the Krumhansl-Kessler major and minor profiles gives
//!    key and mode, with the correlation as confidence;
//! 5. loudness is the RMS level in dBFS (no K-weighting); the perceptual
//!    fields (energy, danceability, valence, acousticness, speechiness,
//!    instrumentalness, liveness) are documented heuristics over these
//!    measurements, not trained models.

use std::path::Path;

use realfft::RealFftPlanner;
use serde::{Deserialize, Serialize};

use crate::error::CatalogError;

pub const FRAME: usize = 2048;
pub const HOP: usize = 512;
pub const MAX_ANALYSED_SECONDS: usize = 300;

/// Decoded mono audio.
#[derive(Clone, Debug)]
pub struct Pcm {
    pub samples: Vec<f32>,
    pub rate: u32,
    /// Duration of the whole file (the analysed part may be shorter).
    pub duration_ms: u64,
}

/// Spotify's audio-features fields this catalog computes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AudioFeatures {
    pub acousticness: f64,
    pub danceability: f64,
    pub duration_ms: u64,
    pub energy: f64,
    pub instrumentalness: f64,
    pub key: i32,
    pub liveness: f64,
    pub loudness: f64,
    pub mode: i32,
    pub speechiness: f64,
    pub tempo: f64,
    pub time_signature: i32,
    pub valence: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimeInterval {
    pub start: f64,
    pub duration: f64,
    pub confidence: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub start: f64,
    pub duration: f64,
    pub confidence: f64,
    pub loudness: f64,
    pub tempo: f64,
    pub tempo_confidence: f64,
    pub key: i32,
    pub key_confidence: f64,
    pub mode: i32,
    pub mode_confidence: f64,
    pub time_signature: i32,
    pub time_signature_confidence: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    pub start: f64,
    pub duration: f64,
    pub confidence: f64,
    pub loudness_start: f64,
    pub loudness_max: f64,
    pub loudness_max_time: f64,
    pub loudness_end: f64,
    pub pitches: Vec<f64>,
    pub timbre: Vec<f64>,
}

/// The track-level summary and time structure of an audio analysis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AudioAnalysis {
    pub num_samples: u64,
    pub duration: f64,
    pub analysis_sample_rate: u32,
    pub end_of_fade_in: f64,
    pub start_of_fade_out: f64,
    pub loudness: f64,
    pub tempo: f64,
    pub tempo_confidence: f64,
    pub time_signature: i32,
    pub time_signature_confidence: f64,
    pub key: i32,
    pub key_confidence: f64,
    pub mode: i32,
    pub mode_confidence: f64,
    pub bars: Vec<TimeInterval>,
    pub beats: Vec<TimeInterval>,
    pub tatums: Vec<TimeInterval>,
    pub sections: Vec<Section>,
    pub segments: Vec<Segment>,
}

/// Decodes a file to mono PCM with symphonia.
pub fn decode(path: &Path) -> Result<Pcm, CatalogError> {
    use symphonia::core::codecs::audio::AudioDecoderOptions;
    use symphonia::core::formats::probe::Hint;
    use symphonia::core::formats::{FormatOptions, TrackType};
    use symphonia::core::io::MediaSourceStream;
    use symphonia::core::meta::MetadataOptions;

    let audio_err = |e: &dyn std::fmt::Display| CatalogError::Audio(format!("{}: {e}", path.display()));
    let file = std::fs::File::open(path)?;
    let mss = MediaSourceStream::new(Box::new(file), Default::default());
    let mut hint = Hint::new();
    if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
        hint.with_extension(ext);
    }
    let mut format = symphonia::default::get_probe()
        .probe(&hint, mss, FormatOptions::default(), MetadataOptions::default())
        .map_err(|e| audio_err(&e))?;
    let track = format.default_track(TrackType::Audio).ok_or_else(|| audio_err(&"no audio track"))?;
    let track_id = track.id;
    let params = track
        .codec_params
        .as_ref()
        .and_then(|p| p.audio())
        .ok_or_else(|| audio_err(&"no audio codec parameters"))?
        .clone();
    let mut decoder = symphonia::default::get_codecs()
        .make_audio_decoder(&params, &AudioDecoderOptions::default())
        .map_err(|e| audio_err(&e))?;
    let mut mono: Vec<f32> = Vec::new();
    let mut rate = params.sample_rate.unwrap_or(44_100);
    let mut frames_total: u64 = 0;
    let mut interleaved: Vec<f32> = Vec::new();
    loop {
        let packet = match format.next_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            Err(symphonia::core::errors::Error::IoError(_)) => break,
            Err(e) => return Err(audio_err(&e)),
        };
        if packet.track_id != track_id {
            continue;
        }
        let buf = match decoder.decode(&packet) {
            Ok(buf) => buf,
            Err(symphonia::core::errors::Error::DecodeError(_)) => continue,
            Err(e) => return Err(audio_err(&e)),
        };
        rate = buf.spec().rate();
        let channels = buf.spec().channels().count().max(1);
        interleaved.clear();
        buf.copy_to_vec_interleaved(&mut interleaved);
        let frames = interleaved.len() / channels;
        frames_total += frames as u64;
        let keep = (MAX_ANALYSED_SECONDS * rate as usize).saturating_sub(mono.len());
        let gain = 1.0 / channels as f32;
        for frame in interleaved.chunks_exact(channels).take(keep) {
            mono.push(frame.iter().sum::<f32>() * gain);
        }
    }
    if rate == 0 {
        return Err(audio_err(&"sample rate is zero"));
    }
    let duration_ms = frames_total * 1000 / u64::from(rate);
    while rate > 32_000 {
        mono = mono.chunks(2).map(|pair| pair.iter().sum::<f32>() / pair.len() as f32).collect();
        rate /= 2;
    }
    Ok(Pcm { samples: mono, rate, duration_ms })
}

/// Krumhansl-Kessler key profiles, tonic first.
const MAJOR_PROFILE: [f64; 12] = [6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88];
const MINOR_PROFILE: [f64; 12] = [6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17];

fn db(x: f64) -> f64 {
    if x <= 1e-10 { -60.0 } else { (20.0 * x.log10()).max(-60.0) }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len()) as f64;
    if n == 0.0 {
        return 0.0;
    }
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut num, mut da, mut dbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        num += (x - ma) * (y - mb);
        da += (x - ma).powi(2);
        dbb += (y - mb).powi(2);
    }
    if da == 0.0 || dbb == 0.0 { 0.0 } else { num / (da.sqrt() * dbb.sqrt()) }
}

/// Key (pitch class), mode (1 major) and confidence from a chroma vector.
pub fn estimate_key(chroma: &[f64; 12]) -> (i32, i32, f64) {
    let mut best = (0_i32, 1_i32, f64::MIN);
    for tonic in 0..12 {
        let rotated: Vec<f64> = (0..12).map(|i| chroma.get((i + tonic) % 12).copied().unwrap_or(0.0)).collect();
        for (mode, profile) in [(1, &MAJOR_PROFILE), (0, &MINOR_PROFILE)] {
            let r = pearson(&rotated, profile);
            if r > best.2 {
                best = (i32::try_from(tonic).unwrap_or(0), mode, r);
            }
        }
    }
    if chroma.iter().all(|c| *c <= 0.0) {
        return (-1, 1, 0.0);
    }
    (best.0, best.1, best.2.clamp(0.0, 1.0))
}

/// Magnitude spectra of the signal, one per hop.
fn spectrogram(samples: &[f32]) -> Vec<Vec<f32>> {
    let mut planner = RealFftPlanner::<f32>::new();
    let fft = planner.plan_fft_forward(FRAME);
    let window: Vec<f32> =
        (0..FRAME).map(|i| 0.5 - 0.5 * (2.0 * std::f32::consts::PI * i as f32 / FRAME as f32).cos()).collect();
    let mut input = fft.make_input_vec();
    let mut output = fft.make_output_vec();
    let mut frames = Vec::new();
    let mut start = 0;
    while start + FRAME <= samples.len().max(FRAME) {
        for (i, slot) in input.iter_mut().enumerate() {
            let s = samples.get(start + i).copied().unwrap_or(0.0);
            *slot = s * window.get(i).copied().unwrap_or(0.0);
        }
        if fft.process(&mut input, &mut output).is_err() {
            break;
        }
        frames.push(output.iter().map(|c| c.norm()).collect());
        start += HOP;
        if samples.len() < FRAME {
            break;
        }
    }
    frames
}

/// Computes features and analysis from decoded audio.
pub fn analyze(pcm: &Pcm) -> (AudioFeatures, AudioAnalysis) {
    let rate = f64::from(pcm.rate.max(1));
    let hop_s = HOP as f64 / rate;
    // The log-flux of a frame rises when an onset enters the end of its
    // window, so an onset at frame f happened about this much after the
    // frame's start.
    let latency = (FRAME - HOP / 2) as f64 / rate;
    let spec = spectrogram(&pcm.samples);
    let bins = FRAME / 2 + 1;
    let bin_hz = rate / FRAME as f64;

    // Frame RMS (time domain) for loudness curves.
    let frame_rms: Vec<f64> = (0..spec.len())
        .map(|f| {
            let start = f * HOP;
            let end = (start + FRAME).min(pcm.samples.len());
            let slice = pcm.samples.get(start..end).unwrap_or(&[]);
            if slice.is_empty() {
                0.0
            } else {
                (slice.iter().map(|s| f64::from(*s).powi(2)).sum::<f64>() / slice.len() as f64).sqrt()
            }
        })
        .collect();
    let total_rms = if pcm.samples.is_empty() {
        0.0
    } else {
        (pcm.samples.iter().map(|s| f64::from(*s).powi(2)).sum::<f64>() / pcm.samples.len() as f64).sqrt()
    };
    let loudness = db(total_rms);

    // Onset envelope: positive log-magnitude flux.
    let mut onset = vec![0.0_f64; spec.len()];
    for f in 1..spec.len() {
        if let (Some(cur), Some(prev), Some(slot)) = (spec.get(f), spec.get(f - 1), onset.get_mut(f)) {
            *slot = cur.iter().zip(prev).map(|(c, p)| (f64::from(*c).ln_1p() - f64::from(*p).ln_1p()).max(0.0)).sum();
        }
    }
    let mean_onset = onset.iter().sum::<f64>() / onset.len().max(1) as f64;
    let centered: Vec<f64> = onset.iter().map(|o| o - mean_onset).collect();

    // Tempo by autocorrelation over 60-200 BPM.
    let min_lag = ((60.0 / 200.0) / hop_s).floor().max(1.0) as usize;
    let max_lag = (1.0 / hop_s).ceil() as usize;
    let ac = |lag: usize| -> f64 { centered.iter().zip(centered.iter().skip(lag)).map(|(a, b)| a * b).sum::<f64>() };
    let ac0 = ac(0).max(1e-12);
    let mut best_lag = 0_usize;
    let mut best_score = f64::MIN;
    let acs: Vec<f64> = (0..=max_lag + 1).map(ac).collect();
    for lag in min_lag..=max_lag.min(centered.len().saturating_sub(1)) {
        let bpm = 60.0 / (lag as f64 * hop_s);
        let weight = (-0.5 * ((bpm / 120.0).log2() / 1.0).powi(2)).exp();
        let score = acs.get(lag).copied().unwrap_or(0.0) * weight;
        if score > best_score {
            best_score = score;
            best_lag = lag;
        }
    }
    let (tempo, tempo_confidence, period_frames) = if best_lag == 0 {
        (0.0, 0.0, 0.0)
    } else {
        let y0 = acs.get(best_lag - 1).copied().unwrap_or(0.0);
        let y1 = acs.get(best_lag).copied().unwrap_or(0.0);
        let y2 = acs.get(best_lag + 1).copied().unwrap_or(0.0);
        let denom = y0 - 2.0 * y1 + y2;
        let shift = if denom.abs() > 1e-12 { (0.5 * (y0 - y2) / denom).clamp(-0.5, 0.5) } else { 0.0 };
        let period = best_lag as f64 + shift;
        (60.0 / (period * hop_s), (y1 / ac0).clamp(0.0, 1.0), period)
    };

    // Beat phase: the offset whose grid collects the most onset strength.
    let mut beats_s: Vec<f64> = Vec::new();
    if period_frames > 0.0 {
        let mut best_phase = 0.0;
        let mut best_sum = f64::MIN;
        let steps = period_frames.ceil() as usize;
        for phase in 0..steps {
            let mut sum = 0.0;
            let mut t = phase as f64;
            while (t.round() as usize) < onset.len() {
                sum += onset.get(t.round() as usize).copied().unwrap_or(0.0);
                t += period_frames;
            }
            if sum > best_sum {
                best_sum = sum;
                best_phase = phase as f64;
            }
        }
        // Beats go on before the first full period and up to the end.
        let mut t = latency + best_phase * hop_s;
        let period_s = period_frames * hop_s;
        while t - period_s >= -0.02 {
            t -= period_s;
        }
        let end = pcm.samples.len() as f64 / rate;
        while t < end {
            beats_s.push(t.max(0.0));
            t += period_s;
        }
    }
    let beat_len = if tempo > 0.0 { 60.0 / tempo } else { 0.0 };
    let beat_strength = |t: f64| -> f64 {
        let f = ((t - latency) / hop_s).round().max(0.0) as usize;
        let peak = onset.iter().copied().fold(0.0, f64::max).max(1e-12);
        (onset.get(f).copied().unwrap_or(0.0) / peak).clamp(0.0, 1.0)
    };
    let beats: Vec<TimeInterval> = beats_s
        .iter()
        .map(|&start| TimeInterval {
            start: round3(start),
            duration: round3(beat_len),
            confidence: round3(beat_strength(start)),
        })
        .collect();
    let tatums: Vec<TimeInterval> = beats
        .iter()
        .flat_map(|b| {
            let half = b.duration / 2.0;
            [
                TimeInterval { start: b.start, duration: round3(half), confidence: b.confidence },
                TimeInterval {
                    start: round3(b.start + half),
                    duration: round3(half),
                    confidence: round3(b.confidence / 2.0),
                },
            ]
        })
        .collect();
    let time_signature = 4;
    let bars: Vec<TimeInterval> = beats
        .chunks(4)
        .map(|chunk| TimeInterval {
            start: chunk.first().map_or(0.0, |b| b.start),
            duration: round3(chunk.iter().map(|b| b.duration).sum()),
            confidence: round3(chunk.first().map_or(0.0, |b| b.confidence)),
        })
        .collect();

    // Chroma over 55 Hz - 5 kHz.
    let pitch_class = |bin: usize| -> Option<usize> {
        let hz = bin as f64 * bin_hz;
        if !(55.0..=5000.0).contains(&hz) {
            return None;
        }
        let midi = 69.0 + 12.0 * (hz / 440.0).log2();
        Some((midi.round() as i64).rem_euclid(12) as usize)
    };
    let classes: Vec<Option<usize>> = (0..bins).map(pitch_class).collect();
    let chroma_of = |frames: &[Vec<f32>]| -> [f64; 12] {
        let mut chroma = [0.0; 12];
        for frame in frames {
            for (bin, mag) in frame.iter().enumerate() {
                if let Some(Some(pc)) = classes.get(bin)
                    && let Some(slot) = chroma.get_mut(*pc)
                {
                    *slot += f64::from(*mag).powi(2);
                }
            }
        }
        chroma
    };
    let chroma = chroma_of(&spec);
    let (key, mode, key_confidence) = estimate_key(&chroma);

    // Spectral shape: centroid, flatness, zero crossings.
    let mut centroid_sum = 0.0;
    let mut flatness_sum = 0.0;
    let mut counted = 0.0;
    for frame in &spec {
        let energy: f64 = frame.iter().map(|m| f64::from(*m)).sum();
        if energy <= 1e-6 {
            continue;
        }
        let centroid: f64 =
            frame.iter().enumerate().map(|(i, m)| i as f64 * bin_hz * f64::from(*m)).sum::<f64>() / energy;
        let n = frame.len() as f64;
        let log_mean = frame.iter().map(|m| (f64::from(*m) + 1e-10).ln()).sum::<f64>() / n;
        let flatness = log_mean.exp() / (energy / n);
        centroid_sum += centroid;
        flatness_sum += flatness;
        counted += 1.0;
    }
    let centroid = if counted > 0.0 { centroid_sum / counted } else { 0.0 };
    let flatness = if counted > 0.0 { flatness_sum / counted } else { 0.0 };
    let zero_crossings = pcm.samples.windows(2).filter(|w| matches!(w, [a, b] if (*a >= 0.0) != (*b >= 0.0))).count();
    let zcr = zero_crossings as f64 / pcm.samples.len().max(1) as f64;
    let silent_frames = frame_rms.iter().filter(|r| db(**r) < -45.0).count() as f64 / frame_rms.len().max(1) as f64;

    let loud01 = ((loudness + 60.0) / 60.0).clamp(0.0, 1.0);
    let onset_rate = (mean_onset / (bins as f64 * 0.02)).clamp(0.0, 1.0);
    let brightness = (centroid / 4000.0).clamp(0.0, 1.0);
    let energy = round3((0.5 * loud01 + 0.3 * onset_rate + 0.2 * brightness).clamp(0.0, 1.0));
    let tempo_fit = (-0.5 * ((tempo.max(1.0) / 120.0).log2() / 0.5).powi(2)).exp();
    let danceability = round3((0.5 * tempo_confidence + 0.3 * tempo_fit + 0.2 * (1.0 - silent_frames)).clamp(0.0, 1.0));
    let valence =
        round3((0.4 * f64::from(mode) + 0.3 * brightness + 0.3 * (tempo / 200.0).clamp(0.0, 1.0)).clamp(0.0, 1.0));
    let acousticness = round3((1.0 - (0.6 * flatness.clamp(0.0, 1.0) * 4.0 + 0.4 * brightness)).clamp(0.0, 1.0));
    let speechiness = round3(((silent_frames * 1.5) * (zcr * 10.0).clamp(0.0, 1.0) + 0.02).clamp(0.0, 1.0));
    let instrumentalness = round3((1.0 - speechiness * 1.2).clamp(0.0, 1.0));
    let liveness = 0.1;

    let duration = pcm.duration_ms as f64 / 1000.0;
    let analysed = pcm.samples.len() as f64 / rate;
    let threshold = db(total_rms) - 20.0;
    let end_of_fade_in = frame_rms.iter().position(|r| db(*r) > threshold).map_or(0.0, |f| f as f64 * hop_s);
    let start_of_fade_out =
        frame_rms.iter().rposition(|r| db(*r) > threshold).map_or(analysed, |f| (f + 1) as f64 * hop_s);

    let segments = segments(&onset, &spec, &frame_rms, &classes, hop_s, analysed, bin_hz, latency);
    let sections = sections(&spec, &frame_rms, hop_s, analysed, &chroma_of, tempo, tempo_confidence);

    let features = AudioFeatures {
        acousticness,
        danceability,
        duration_ms: pcm.duration_ms,
        energy,
        instrumentalness,
        key,
        liveness,
        loudness: round3(loudness),
        mode,
        speechiness,
        tempo: round3(tempo),
        time_signature,
        valence,
    };
    let analysis = AudioAnalysis {
        num_samples: pcm.duration_ms * u64::from(pcm.rate) / 1000,
        duration: round3(duration),
        analysis_sample_rate: pcm.rate,
        end_of_fade_in: round3(end_of_fade_in),
        start_of_fade_out: round3(start_of_fade_out.min(duration.max(analysed))),
        loudness: round3(loudness),
        tempo: round3(tempo),
        tempo_confidence: round3(tempo_confidence),
        time_signature,
        time_signature_confidence: 0.5,
        key: key.max(0),
        key_confidence: round3(key_confidence),
        mode,
        mode_confidence: round3(key_confidence),
        bars,
        beats,
        tatums,
        sections,
        segments,
    };
    (features, analysis)
}

/// Segments run from one onset peak to the next.
#[expect(clippy::too_many_arguments, reason = "the measurements of one analysis pass, computed once")]
fn segments(
    onset: &[f64],
    spec: &[Vec<f32>],
    frame_rms: &[f64],
    classes: &[Option<usize>],
    hop_s: f64,
    analysed: f64,
    bin_hz: f64,
    latency: f64,
) -> Vec<Segment> {
    let peak = onset.iter().copied().fold(0.0, f64::max).max(1e-12);
    let mut starts = vec![0_usize];
    let min_gap = (0.1 / hop_s).ceil() as usize;
    for f in 1..onset.len().saturating_sub(1) {
        let (prev, cur, next) = (
            onset.get(f - 1).copied().unwrap_or(0.0),
            onset.get(f).copied().unwrap_or(0.0),
            onset.get(f + 1).copied().unwrap_or(0.0),
        );
        if cur > prev && cur >= next && cur > 0.3 * peak && f.saturating_sub(*starts.last().unwrap_or(&0)) >= min_gap {
            starts.push(f);
        }
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([spec.len()]).collect();
    starts
        .iter()
        .zip(ends)
        .filter(|(s, e)| e > *s)
        .map(|(&s, e)| {
            let rms = frame_rms.get(s..e).unwrap_or(&[]);
            let (max_i, max_v) =
                rms.iter().enumerate().fold((0, 0.0), |acc, (i, v)| if *v > acc.1 { (i, *v) } else { acc });
            let mut pitches = [0.0_f64; 12];
            let mut bands = [0.0_f64; 12];
            for frame in spec.get(s..e).unwrap_or(&[]) {
                for (bin, mag) in frame.iter().enumerate() {
                    let energy = f64::from(*mag).powi(2);
                    if let Some(Some(pc)) = classes.get(bin)
                        && let Some(slot) = pitches.get_mut(*pc)
                    {
                        *slot += energy;
                    }
                    // Twelve log-spaced bands from 40 Hz to the Nyquist rate.
                    let hz = (bin as f64 * bin_hz).max(40.0);
                    let band = ((hz / 40.0).log2() / 9.0 * 12.0).floor().clamp(0.0, 11.0) as usize;
                    if let Some(slot) = bands.get_mut(band) {
                        *slot += energy;
                    }
                }
            }
            let pmax = pitches.iter().copied().fold(0.0, f64::max);
            let pitches: Vec<f64> = pitches.iter().map(|p| if pmax > 0.0 { round3(p / pmax) } else { 0.0 }).collect();
            let timbre: Vec<f64> = bands.iter().map(|b| round3(10.0 * (b + 1e-10).log10())).collect();
            let shift = if s == 0 { 0.0 } else { latency };
            let start = (s as f64 * hop_s + shift).min(analysed);
            let end = if e >= spec.len() {
                analysed.max(start)
            } else {
                (e as f64 * hop_s + latency).min(analysed.max(start))
            };
            Segment {
                start: round3(start),
                duration: round3((end - start).max(0.0)),
                confidence: round3((onset.get(s + 1).copied().unwrap_or(0.0) / peak).clamp(0.0, 1.0)),
                loudness_start: round3(db(rms.first().copied().unwrap_or(0.0))),
                loudness_max: round3(db(max_v)),
                loudness_max_time: round3(max_i as f64 * hop_s),
                loudness_end: round3(db(rms.last().copied().unwrap_or(0.0))),
                pitches,
                timbre,
            }
        })
        .collect()
}

/// Sections of about 30 seconds, each with its own loudness and key.
fn sections(
    spec: &[Vec<f32>],
    frame_rms: &[f64],
    hop_s: f64,
    analysed: f64,
    chroma_of: &dyn Fn(&[Vec<f32>]) -> [f64; 12],
    tempo: f64,
    tempo_confidence: f64,
) -> Vec<Section> {
    let per = ((30.0 / hop_s).round() as usize).max(1);
    let count = spec.len().div_ceil(per).max(1);
    (0..count)
        .map(|i| {
            let s = i * per;
            let e = ((i + 1) * per).min(spec.len());
            let rms = frame_rms.get(s..e).unwrap_or(&[]);
            let mean =
                if rms.is_empty() { 0.0 } else { (rms.iter().map(|r| r * r).sum::<f64>() / rms.len() as f64).sqrt() };
            let (key, mode, conf) = estimate_key(&chroma_of(spec.get(s..e).unwrap_or(&[])));
            let start = s as f64 * hop_s;
            let end = if i + 1 == count { analysed } else { e as f64 * hop_s };
            Section {
                start: round3(start),
                duration: round3((end - start).max(0.0)),
                confidence: if i == 0 { 1.0 } else { 0.5 },
                loudness: round3(db(mean)),
                tempo: round3(tempo),
                tempo_confidence: round3(tempo_confidence),
                key: key.max(0),
                key_confidence: round3(conf),
                mode,
                mode_confidence: round3(conf),
                time_signature: 4,
                time_signature_confidence: 0.5,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synth;

    fn pcm(samples: Vec<f32>, rate: u32) -> Pcm {
        let duration_ms = samples.len() as u64 * 1000 / u64::from(rate);
        Pcm { samples, rate, duration_ms }
    }

    #[test]
    fn a_click_track_at_120_bpm_has_tempo_120_and_beats_half_a_second_apart() {
        let rate = 22_050;
        let (features, analysis) = analyze(&pcm(synth::click_track(120.0, 20.0, rate), rate));
        assert!((features.tempo - 120.0).abs() < 2.0, "tempo {}", features.tempo);
        assert!(analysis.beats.len() >= 30, "{} beats", analysis.beats.len());
        for pair in analysis.beats.windows(2) {
            let gap = pair[1].start - pair[0].start;
            assert!((gap - 0.5).abs() < 0.03, "beat gap {gap}");
        }
        assert!(analysis.beats[0].start < 0.05, "first beat at {}", analysis.beats[0].start);
    }

    #[test]
    fn other_tempos_are_found_too() {
        let rate = 22_050;
        for bpm in [90.0, 100.0, 140.0] {
            let (features, _) = analyze(&pcm(synth::click_track(bpm, 20.0, rate), rate));
            assert!((features.tempo - bpm).abs() < 2.0, "{bpm}: {}", features.tempo);
        }
    }

    #[test]
    fn an_a_major_chord_is_key_9_mode_1() {
        let rate = 22_050;
        let (features, _) = analyze(&pcm(synth::chord(&[57, 61, 64], 8.0, rate), rate));
        assert_eq!((features.key, features.mode), (9, 1));
    }

    #[test]
    fn a_minor_chord_is_minor() {
        let rate = 22_050;
        // D minor: D F A.
        let (features, _) = analyze(&pcm(synth::chord(&[62, 65, 69], 8.0, rate), rate));
        assert_eq!((features.key, features.mode), (2, 0));
    }

    #[test]
    fn silence_yields_no_key_and_quiet_loudness() {
        let (features, analysis) = analyze(&pcm(vec![0.0; 22_050 * 3], 22_050));
        assert_eq!(features.key, -1);
        assert!(features.loudness <= -59.0);
        assert!(!analysis.sections.is_empty());
    }

    #[test]
    fn every_value_is_in_its_documented_range() {
        let rate = 22_050;
        let (f, a) = analyze(&pcm(synth::song(&synth::SongSpec::demo(0)), rate));
        for v in [f.acousticness, f.danceability, f.energy, f.instrumentalness, f.liveness, f.speechiness, f.valence] {
            assert!((0.0..=1.0).contains(&v), "{f:?}");
        }
        assert!((-60.0..=0.0).contains(&f.loudness));
        assert!(a.segments.iter().all(|s| s.pitches.len() == 12 && s.timbre.len() == 12));
    }
}
