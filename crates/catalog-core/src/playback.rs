//! One user's playback state and its transitions, as pure functions over
//! a value (no I/O, no clock: the caller passes `now` in milliseconds).
//!
//! The state is what Spotify's player routes read and change: what is
//! loaded (a context's tracks or a list of URIs, in context order, and the
//! play order over them, shuffled or not), the user's queue, whether it is
//! playing, the progress at an instant, repeat, shuffle and the active
//! device's volume. `player` stores it as one versioned JSON document and
//! delivers it to devices.

use rand::Rng;
use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};

/// Going back within this much of a track's start goes to the previous
/// track; later, it restarts the current one (as Spotify's clients do).
pub const PREVIOUS_RESTARTS_AFTER_MS: u64 = 3_000;

/// `repeat_state`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Repeat {
    #[default]
    Off,
    Track,
    Context,
}

impl Repeat {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "off" => Some(Self::Off),
            "track" => Some(Self::Track),
            "context" => Some(Self::Context),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Track => "track",
            Self::Context => "context",
        }
    }
}

/// A playable item with what the transitions need to know of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    pub id: String,
    pub duration_ms: u64,
}

/// One user's playback.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Playback {
    /// The active device, if any.
    pub device_id: Option<String>,
    /// `spotify:album:...`, `spotify:playlist:...` or `spotify:artist:...`;
    /// `None` when a list of URIs was played.
    pub context_uri: Option<String>,
    /// The loaded items in context order.
    pub items: Vec<Item>,
    /// The play order: indexes into `items` (a permutation when shuffled).
    pub order: Vec<usize>,
    /// Where in `order` playback is.
    pub position: usize,
    /// A queued item playing now in place of the context item.
    pub queued_current: Option<Item>,
    /// Items added to the queue, played before the context goes on.
    pub queue: Vec<Item>,
    pub is_playing: bool,
    /// The progress at `progress_at` (epoch milliseconds).
    pub progress_ms: u64,
    pub progress_at: i64,
    pub repeat: Repeat,
    pub shuffle: bool,
    pub volume_percent: u32,
    /// Whether the current play is already in the listening history.
    pub recorded: bool,
    /// When a command last changed the state (Spotify's `timestamp`).
    pub changed_at: i64,
}

fn elapsed(since: i64, now: i64) -> u64 {
    u64::try_from(now.saturating_sub(since)).unwrap_or(0)
}

impl Playback {
    /// The item playing (or paused) now.
    pub fn current(&self) -> Option<&Item> {
        if let Some(item) = &self.queued_current {
            return Some(item);
        }
        let index = *self.order.get(self.position)?;
        self.items.get(index)
    }

    /// The progress at `now`: it runs on while playing, up to the item's end.
    pub fn progress(&self, now: i64) -> u64 {
        let duration = self.current().map_or(0, |i| i.duration_ms);
        let progress = if self.is_playing {
            self.progress_ms.saturating_add(elapsed(self.progress_at, now))
        } else {
            self.progress_ms
        };
        progress.min(duration)
    }

    fn restart(&mut self, now: i64) {
        self.progress_ms = 0;
        self.progress_at = now;
        self.recorded = false;
    }

    /// Loads `items` (a context or a list of URIs) and plays from
    /// `start` (an index into `items`) at `position_ms`.
    pub fn load(
        &mut self,
        context_uri: Option<String>,
        items: Vec<Item>,
        start: usize,
        position_ms: u64,
        now: i64,
        rng: &mut impl Rng,
    ) {
        let start = start.min(items.len().saturating_sub(1));
        self.context_uri = context_uri;
        self.order = (0..items.len()).collect();
        self.items = items;
        self.position = start;
        self.queued_current = None;
        if self.shuffle {
            self.shuffle_from_current(rng);
        }
        self.restart(now);
        self.is_playing = self.current().is_some();
        self.seek(position_ms, now);
    }

    pub fn resume(&mut self, now: i64) {
        if self.current().is_some() && !self.is_playing {
            self.progress_at = now;
            self.is_playing = true;
        }
    }

    pub fn pause(&mut self, now: i64) {
        if self.is_playing {
            self.progress_ms = self.progress(now);
            self.progress_at = now;
            self.is_playing = false;
        }
    }

    /// Moves to the next item: the queue first, then the context. At the
    /// end of the context playback stops at its start, unless repeating
    /// the context. `natural` is an item that played to its end, which
    /// repeats under `repeat = track`; a skip never does.
    pub fn next(&mut self, natural: bool, now: i64) {
        if natural && self.repeat == Repeat::Track && self.current().is_some() {
            self.restart(now);
            return;
        }
        self.restart(now);
        if !self.queue.is_empty() {
            self.queued_current = Some(self.queue.remove(0));
            return;
        }
        self.queued_current = None;
        if self.position + 1 < self.order.len() {
            self.position += 1;
        } else {
            self.position = 0;
            if self.repeat == Repeat::Off {
                self.is_playing = false;
            }
        }
        if self.current().is_none() {
            self.is_playing = false;
        }
    }

    /// Restarts the item, or (near its start) goes to the previous one.
    pub fn previous(&mut self, now: i64) {
        let restart_only = self.progress(now) > PREVIOUS_RESTARTS_AFTER_MS
            || (self.queued_current.is_none() && self.position == 0 && self.repeat != Repeat::Context);
        if !restart_only && self.queued_current.take().is_none() {
            self.position = match self.position.checked_sub(1) {
                Some(p) => p,
                None => self.order.len().saturating_sub(1),
            };
        }
        self.restart(now);
    }

    /// Seeks within the current item; past its end, moves to the next.
    pub fn seek(&mut self, position_ms: u64, now: i64) {
        let Some(duration) = self.current().map(|i| i.duration_ms) else { return };
        if position_ms >= duration && duration > 0 {
            self.next(false, now);
            return;
        }
        self.progress_ms = position_ms;
        self.progress_at = now;
    }

    /// Shuffle on: the current item stays and the rest follow in random
    /// order. Off: context order, from the current item.
    pub fn set_shuffle(&mut self, on: bool, rng: &mut impl Rng) {
        if on {
            self.shuffle_from_current(rng);
        } else {
            self.position = self.order.get(self.position).copied().unwrap_or(0);
            self.order = (0..self.items.len()).collect();
        }
        self.shuffle = on;
    }

    fn shuffle_from_current(&mut self, rng: &mut impl Rng) {
        let current = self.order.get(self.position).copied();
        let mut rest: Vec<usize> = (0..self.items.len()).filter(|i| Some(*i) != current).collect();
        rest.shuffle(rng);
        self.order = current.into_iter().chain(rest).collect();
        self.position = 0;
    }

    /// What plays after the current item: the queue, then the rest of the
    /// context in play order (wrapping around when repeating the context).
    pub fn up_next(&self, limit: usize) -> Vec<&Item> {
        let mut out: Vec<&Item> = self.queue.iter().take(limit).collect();
        let n = self.order.len();
        let remaining =
            if self.repeat == Repeat::Context { n.saturating_sub(1) } else { n.saturating_sub(self.position + 1) };
        let mut step = 1;
        while out.len() < limit && step <= remaining {
            if let Some(item) = self.order.get((self.position + step) % n.max(1)).and_then(|i| self.items.get(*i)) {
                out.push(item);
            }
            step += 1;
        }
        out
    }

    /// Whether the current play has now been heard long enough to count
    /// as a play: 30 seconds, or half of a shorter item.
    pub fn heard_enough(&self, now: i64) -> bool {
        let Some(item) = self.current() else { return false };
        let needed = (item.duration_ms / 2).min(30_000);
        self.progress(now) >= needed
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng as _;
    use rand::rngs::StdRng;

    use super::*;

    fn items(n: usize) -> Vec<Item> {
        (0..n).map(|i| Item { id: format!("t{i}"), duration_ms: 10_000 }).collect()
    }

    fn loaded(n: usize, start: usize) -> Playback {
        let mut p = Playback::default();
        p.load(Some("spotify:album:a".to_owned()), items(n), start, 0, 0, &mut StdRng::seed_from_u64(1));
        p
    }

    fn current(p: &Playback) -> &str {
        p.current().map_or("", |i| i.id.as_str())
    }

    #[test]
    fn progress_runs_while_playing_and_stops_at_the_end() {
        let mut p = loaded(3, 1);
        assert_eq!(current(&p), "t1");
        assert_eq!(p.progress(4_000), 4_000);
        assert_eq!(p.progress(60_000), 10_000);
        p.pause(5_000);
        assert_eq!(p.progress(9_000), 5_000);
        p.resume(9_000);
        assert_eq!(p.progress(10_000), 6_000);
    }

    #[test]
    fn next_takes_the_queue_first_then_the_context_and_stops_at_its_end() {
        let mut p = loaded(3, 1);
        p.queue.push(Item { id: "q".to_owned(), duration_ms: 5_000 });
        p.next(false, 1);
        assert_eq!(current(&p), "q");
        p.next(false, 2);
        assert_eq!(current(&p), "t2");
        p.next(false, 3);
        assert_eq!(current(&p), "t0");
        assert!(!p.is_playing, "the end of the context stops playback");
    }

    #[test]
    fn repeat_track_repeats_only_a_natural_end_and_repeat_context_wraps() {
        let mut p = loaded(2, 1);
        p.repeat = Repeat::Track;
        p.seek(9_000, 0);
        p.next(true, 1);
        assert_eq!((current(&p), p.progress_ms), ("t1", 0));
        p.next(false, 2);
        assert_eq!(current(&p), "t0");
        p.repeat = Repeat::Context;
        p.position = 1;
        p.next(false, 3);
        assert_eq!(current(&p), "t0");
        assert!(p.is_playing);
    }

    #[test]
    fn previous_restarts_late_in_a_track_and_goes_back_early() {
        let mut p = loaded(3, 2);
        p.seek(5_000, 0);
        p.previous(0);
        assert_eq!((current(&p), p.progress_ms), ("t2", 0));
        p.previous(1_000);
        assert_eq!(current(&p), "t1");
        p.position = 0;
        p.previous(1_000);
        assert_eq!(current(&p), "t0", "the first track restarts without repeat");
    }

    #[test]
    fn seeking_past_the_end_moves_on() {
        let mut p = loaded(2, 0);
        p.seek(3_000, 0);
        assert_eq!(p.progress(0), 3_000);
        p.seek(10_000, 0);
        assert_eq!((current(&p), p.progress_ms), ("t1", 0));
    }

    #[test]
    fn shuffle_keeps_the_current_item_and_plays_each_once() {
        let mut p = loaded(6, 2);
        p.set_shuffle(true, &mut StdRng::seed_from_u64(7));
        assert_eq!(current(&p), "t2");
        let mut order = p.order.clone();
        order.sort_unstable();
        assert_eq!(order, vec![0, 1, 2, 3, 4, 5]);
        p.next(false, 1);
        let now_playing = current(&p).to_owned();
        p.set_shuffle(false, &mut StdRng::seed_from_u64(7));
        assert_eq!(current(&p), now_playing, "unshuffling keeps the current item");
        assert_eq!(p.order, vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn up_next_lists_the_queue_then_the_context() {
        let mut p = loaded(3, 0);
        p.queue.push(Item { id: "q".to_owned(), duration_ms: 1 });
        let ids: Vec<&str> = p.up_next(10).iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["q", "t1", "t2"]);
        p.repeat = Repeat::Context;
        p.position = 2;
        let ids: Vec<&str> = p.up_next(10).iter().map(|i| i.id.as_str()).collect();
        assert_eq!(ids, ["q", "t0", "t1"]);
    }

    #[test]
    fn a_play_counts_after_thirty_seconds_or_half_a_short_item() {
        let p = loaded(1, 0);
        assert!(!p.heard_enough(4_999));
        assert!(p.heard_enough(5_000));
        let mut long = Playback::default();
        long.load(
            None,
            vec![Item { id: "l".to_owned(), duration_ms: 600_000 }],
            0,
            0,
            0,
            &mut StdRng::seed_from_u64(1),
        );
        assert!(!long.heard_enough(29_999));
        assert!(long.heard_enough(30_000));
    }
}
