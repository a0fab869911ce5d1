//! BERT's uncased WordPiece tokenizer, as the Hugging Face `tokenizers`
//! library runs it for all-MiniLM-L6-v2 (`BertNormalizer` with lowercase
//! and accents stripped, `BertPreTokenizer`, `WordPiece` with `##`
//! continuations, `[CLS] ... [SEP]`). Written here because the
//! `tokenizers` crate brings a regex engine, rayon and a dozen more crates
//! for what, for this one vocabulary, is the hundred lines below;
//! `tests/reference.rs` checks the ids against that library's, for text
//! with accents, punctuation, CJK and words past the vocabulary.

use std::collections::HashMap;

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// Characters of a word past which it is one unknown token.
const MAX_WORD_CHARS: usize = 100;

/// A vocabulary and the ids of its special tokens.
#[derive(Debug)]
pub struct WordPiece {
    /// Pieces that start a word.
    ids: HashMap<&'static str, u32>,
    /// Pieces that go on with a word, without their `##`, so a lookup
    /// needs no string of its own.
    continuations: HashMap<&'static str, u32>,
    unknown: u32,
    start: u32,
    end: u32,
}

impl WordPiece {
    /// The vocabulary of `tokens`, one id per line's place; `None` when a
    /// special token is missing.
    pub fn new(tokens: &'static str) -> Option<Self> {
        let mut ids = HashMap::new();
        let mut continuations = HashMap::new();
        for (id, token) in tokens.split('\n').enumerate() {
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            match token.strip_prefix("##") {
                Some(piece) => continuations.insert(piece, id),
                None => ids.insert(token, id),
            };
        }
        Some(Self {
            unknown: *ids.get("[UNK]")?,
            start: *ids.get("[CLS]")?,
            end: *ids.get("[SEP]")?,
            ids,
            continuations,
        })
    }

    /// Tokens in the vocabulary.
    pub fn tokens(&self) -> usize {
        self.ids.len() + self.continuations.len()
    }

    /// The ids of `text` between `[CLS]` and `[SEP]`, at most `max` in all.
    pub fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let mut ids = vec![self.start];
        let room = max.saturating_sub(1);
        'words: for word in words(text) {
            for id in self.pieces(&word) {
                if ids.len() >= room {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.end);
        ids
    }

    /// A word's pieces, longest first from its start; one unknown token
    /// when some part of it is in no piece.
    fn pieces(&self, word: &str) -> Vec<u32> {
        if word.chars().count() > MAX_WORD_CHARS {
            return vec![self.unknown];
        }
        let mut pieces = Vec::new();
        let mut rest = word;
        let mut continued = false;
        while !rest.is_empty() {
            let mut found = None;
            let table = if continued { &self.continuations } else { &self.ids };
            // Char boundaries from the longest prefix down.
            for end in rest.char_indices().rev().map(|(at, c)| at + c.len_utf8()) {
                let Some(prefix) = rest.get(..end) else { continue };
                if let Some(id) = table.get(prefix) {
                    found = Some((*id, end));
                    break;
                }
            }
            let Some((id, end)) = found else { return vec![self.unknown] };
            pieces.push(id);
            rest = rest.get(end..).unwrap_or("");
            continued = true;
        }
        pieces
    }
}

/// The words of `text` after BERT's normalisation: control characters
/// dropped, CJK ideographs and punctuation each a word of their own,
/// lowercase, accents stripped.
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, words: &mut Vec<String>| {
        if !current.is_empty() {
            words.push(std::mem::take(current));
        }
    };
    let normalised: String = text.chars().flat_map(char::to_lowercase).collect::<String>().nfd().collect();
    for c in normalised.chars() {
        if c == '\0' || c == '\u{fffd}' || (is_control(c) && !c.is_whitespace()) {
            continue;
        }
        if get_general_category(c) == GeneralCategory::NonspacingMark {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut current, &mut words);
        } else if is_punctuation(c) || is_cjk(c) {
            flush(&mut current, &mut words);
            words.push(c.to_string());
        } else {
            current.push(c);
        }
    }
    flush(&mut current, &mut words);
    words
}

fn is_control(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control | GeneralCategory::Format | GeneralCategory::PrivateUse | GeneralCategory::Unassigned
    )
}

/// ASCII's symbols count as punctuation too (`$`, `^`, `` ` ``), as in BERT.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii_punctuation() {
        return true;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::ClosePunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::OtherPunctuation
            | GeneralCategory::OpenPunctuation
    )
}

/// The CJK Unified Ideographs blocks BERT spaces out (not Hiragana,
/// Katakana or Hangul).
fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab() -> WordPiece {
        let tokens = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##want\n##ed\nwant\n,\nrun\n##ning\ncafe";
        WordPiece::new(tokens).unwrap()
    }

    #[test]
    fn splits_words_into_the_longest_pieces() {
        let v = vocab();
        assert_eq!(v.encode("unwanted, running", 128), vec![2, 4, 5, 6, 8, 9, 10, 3]);
    }

    #[test]
    fn a_word_with_an_unknown_part_is_one_unknown_token() {
        let v = vocab();
        assert_eq!(v.encode("unwantedx want", 128), vec![2, 1, 7, 3]);
    }

    #[test]
    fn lowercases_and_strips_accents() {
        let v = vocab();
        assert_eq!(v.encode("CAFÉ", 128), vec![2, 11, 3]);
    }

    #[test]
    fn stops_at_the_limit_and_still_ends() {
        let v = vocab();
        assert_eq!(v.encode("want want want want", 4), vec![2, 7, 7, 3]);
    }

    #[test]
    fn punctuation_and_ideographs_are_words_of_their_own() {
        assert_eq!(words("a,b 東京"), vec!["a", ",", "b", "東", "京"]);
    }
}
