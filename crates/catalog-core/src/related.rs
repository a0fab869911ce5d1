//! Related artists: ranked by what the library and the listener say about
//! them, with no trained model. Three signals, strongest first:
//!
//! 1. genres shared with the artist (each counts 2);
//! 2. listening sessions of the calling user in which both were played (each
//!    counts 1): plays with less than [`SESSION_GAP_MS`] between neighbours
//!    form a session, so an artist played around the same time is related;
//! 3. sound: the distance between the artists' mean audio features, which
//!    orders the rest (and the ties), so a library whose artists share no
//!    genre and no session still answers.
//!
//! The ranking is a pure function with unit tests; the use case in
//! `library.rs` gathers its inputs from the store.

use std::collections::{BTreeSet, HashMap};

use crate::audio::AudioFeatures;

/// Plays further apart than this start a new listening session.
pub const SESSION_GAP_MS: i64 = 30 * 60 * 1000;
/// At most this many related artists (Spotify answers up to 20).
pub const MAX_RELATED: usize = 20;
/// The user's most recent plays read for sessions.
pub const SESSION_PLAYS: u32 = 5_000;

/// How many sessions of `plays` (each `(played_at ms, artist id)`, in any
/// order) hold `target` together with each other artist.
pub fn sessions_with(target: &str, plays: &[(i64, String)]) -> HashMap<String, usize> {
    let mut sorted: Vec<&(i64, String)> = plays.iter().collect();
    sorted.sort_by_key(|(at, _)| *at);
    let mut out: HashMap<String, usize> = HashMap::new();
    let mut session: BTreeSet<&str> = BTreeSet::new();
    let mut last: Option<i64> = None;
    let mut close = |session: &mut BTreeSet<&str>| {
        if session.contains(target) {
            for other in session.iter().filter(|a| **a != target) {
                *out.entry((*other).to_owned()).or_default() += 1;
            }
        }
        session.clear();
    };
    for (at, artist) in sorted {
        if last.is_some_and(|l| at.saturating_sub(l) > SESSION_GAP_MS) {
            close(&mut session);
        }
        session.insert(artist.as_str());
        last = Some(*at);
    }
    close(&mut session);
    out
}

/// The point an artist's sound is summarised as: the mean of its tracks'
/// perceptual features, with tempo scaled to the same 0-1 range.
pub fn sound_of<'a>(features: impl IntoIterator<Item = &'a AudioFeatures>) -> Option<[f64; 5]> {
    let mut sum = [0.0; 5];
    let mut n = 0.0;
    for f in features {
        let v = [f.danceability, f.energy, f.valence, f.acousticness, (f.tempo / 200.0).clamp(0.0, 1.0)];
        for (s, x) in sum.iter_mut().zip(v) {
            *s += x;
        }
        n += 1.0;
    }
    (n > 0.0).then(|| sum.map(|s| s / n))
}

/// What is known about the artist asked about.
#[derive(Clone, Debug, Default)]
pub struct Target<'a> {
    pub id: &'a str,
    pub genres: &'a [String],
    pub sound: Option<[f64; 5]>,
}

/// Ranks `others` (every artist with its genres) against `target`: the
/// score of shared genres and shared sessions first, then the closest
/// sound, then the id for a stable order; at most [`MAX_RELATED`] ids.
pub fn rank(
    target: &Target<'_>,
    others: &[(String, Vec<String>)],
    sessions: &HashMap<String, usize>,
    sounds: &HashMap<String, [f64; 5]>,
) -> Vec<String> {
    let mine: BTreeSet<&String> = target.genres.iter().collect();
    let distance = |id: &str| -> f64 {
        match (target.sound, sounds.get(id)) {
            (Some(a), Some(b)) => a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>().sqrt(),
            // An artist without analysed tracks sorts after every measured one.
            _ => f64::INFINITY,
        }
    };
    let mut scored: Vec<(usize, f64, &str)> = others
        .iter()
        .filter(|(id, _)| id != target.id)
        .map(|(id, genres)| {
            let shared = genres.iter().filter(|g| mine.contains(g)).count();
            let together = sessions.get(id).copied().unwrap_or(0);
            (2 * shared + together, distance(id), id.as_str())
        })
        // Related by nothing at all (no genre, no session, no sound): left out.
        .filter(|(score, d, _)| *score > 0 || d.is_finite())
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.total_cmp(&b.1)).then_with(|| a.2.cmp(b.2)));
    scored.into_iter().take(MAX_RELATED).map(|(_, _, id)| id.to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plays(list: &[(i64, &str)]) -> Vec<(i64, String)> {
        list.iter().map(|(t, a)| (*t, (*a).to_owned())).collect()
    }

    #[test]
    fn sessions_split_on_half_an_hour_of_silence() {
        let min = 60_000;
        let history = plays(&[
            (0, "a"),
            (3 * min, "b"),
            (5 * min, "c"),
            // 40 minutes later: a new session with a and b only.
            (45 * min, "a"),
            (47 * min, "b"),
            // A session without a counts for nobody.
            (200 * min, "c"),
            (201 * min, "d"),
        ]);
        let counted = sessions_with("a", &history);
        assert_eq!(counted.get("b"), Some(&2));
        assert_eq!(counted.get("c"), Some(&1));
        assert_eq!(counted.get("d"), None);
        assert_eq!(counted.get("a"), None, "an artist is not related to itself");
    }

    #[test]
    fn genres_then_sessions_then_sound() {
        let genres = vec!["rock".to_owned()];
        let others = vec![
            ("a".to_owned(), genres.clone()),
            ("near".to_owned(), vec!["jazz".to_owned()]),
            ("far".to_owned(), vec!["pop".to_owned()]),
            ("played".to_owned(), vec![]),
            ("rocker".to_owned(), genres.clone()),
            ("silent".to_owned(), vec![]),
        ];
        let sessions = HashMap::from([("played".to_owned(), 1)]);
        let sounds = HashMap::from([
            ("near".to_owned(), [0.5; 5]),
            ("far".to_owned(), [0.9; 5]),
            ("played".to_owned(), [0.9; 5]),
            ("rocker".to_owned(), [0.9; 5]),
        ]);
        let target = Target { id: "a", genres: &genres, sound: Some([0.5; 5]) };
        // rocker: one genre (2); played: one session (1); near and far by sound;
        // silent shares nothing and has no sound.
        assert_eq!(rank(&target, &others, &sessions, &sounds), ["rocker", "played", "near", "far"]);
        // Two more sessions lift the played artist above the shared genre.
        let sessions = HashMap::from([("played".to_owned(), 3)]);
        assert_eq!(rank(&target, &others, &sessions, &sounds)[0], "played");
    }

    #[test]
    fn sound_is_the_mean_of_the_tracks() {
        let f = |energy: f64| AudioFeatures { energy, tempo: 100.0, ..AudioFeatures::default() };
        let sound = sound_of([&f(0.2), &f(0.6)]).unwrap();
        assert!((sound[1] - 0.4).abs() < 1e-9);
        assert!((sound[4] - 0.5).abs() < 1e-9);
        assert!(sound_of([]).is_none());
    }
}
