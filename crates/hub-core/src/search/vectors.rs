//! The search model: a vector for each word stem, so a question and an
//! operation that share no word can still mean the same thing ("bands that
//! sound like Radiohead" and "Get an artist's related artists"), with no
//! model service to run. `examples/search-model.rs` builds the table
//! (`vectors.bin`, in the binary): GloVe's public-domain word vectors,
//! averaged per stem, each stem weighted by how rarely the operations of
//! thousands of public API descriptions use it.
//!
//! A text's vector is the weighted mean of its stems' vectors; two texts
//! are as close as the cosine of theirs.

use std::collections::HashMap;
use std::sync::OnceLock;

static TABLE: &[u8] = include_bytes!("vectors.bin");

/// Dimensions of every vector.
pub const DIMS: usize = 100;

/// A stem's unit vector (quantised, 127 is 1) and its weight (0 to 1).
struct Entry {
    vector: &'static [u8],
    weight: f32,
}

fn table() -> &'static HashMap<&'static str, Entry> {
    static PARSED: OnceLock<HashMap<&'static str, Entry>> = OnceLock::new();
    PARSED.get_or_init(|| parse(TABLE).unwrap_or_default())
}

/// Reads the table (see `examples/search-model.rs` for its layout); `None`
/// when it is not one (a build without the model searches by words alone).
fn parse(bytes: &'static [u8]) -> Option<HashMap<&'static str, Entry>> {
    let rest = bytes.strip_prefix(b"SVEC1")?;
    let dims = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let count = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
    if dims != DIMS {
        return None;
    }
    let mut at = 8;
    let mut table = HashMap::with_capacity(count);
    for _ in 0..count {
        let len = usize::from(*rest.get(at)?);
        let stem = std::str::from_utf8(rest.get(at + 1..at + 1 + len)?).ok()?;
        let weight = f32::from(*rest.get(at + 1 + len)?) / 255.0;
        let vector = rest.get(at + 2 + len..at + 2 + len + dims)?;
        table.insert(stem, Entry { vector, weight });
        at += 2 + len + dims;
    }
    Some(table)
}

/// The unit vector of stems weighed by the model (and by `weight` for
/// each), or `None` when the model knows none of them.
pub fn embed<'a>(stems: impl IntoIterator<Item = (&'a str, f32)>) -> Option<Vec<f32>> {
    let table = table();
    let mut sum = vec![0f32; DIMS];
    let mut any = false;
    for (stem, weight) in stems {
        let Some(entry) = table.get(stem) else { continue };
        let scale = entry.weight * weight / 127.0;
        for (total, x) in sum.iter_mut().zip(entry.vector) {
            *total += scale * f32::from(*x as i8);
        }
        any = true;
    }
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
    (any && norm > 0.0).then(|| sum.into_iter().map(|x| x / norm).collect())
}

/// A stem's quantised unit vector, when the model knows it.
pub fn vector(stem: &str) -> Option<&'static [u8]> {
    table().get(stem).map(|e| e.vector)
}

/// The cosine of two quantised unit vectors.
pub fn similarity(a: &[u8], b: &[u8]) -> f32 {
    let dot: i32 = a.iter().zip(b).map(|(x, y)| i32::from(*x as i8) * i32::from(*y as i8)).sum();
    dot as f32 / (127.0 * 127.0)
}

/// The cosine of two unit vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(words: &str) -> Option<Vec<f32>> {
        let stems: Vec<String> = words.split(' ').map(crate::search::stem).collect();
        embed(stems.iter().map(|s| (s.as_str(), 1.0)))
    }

    #[test]
    fn the_table_reads() {
        assert!(table().len() > 50_000, "{} stems", table().len());
        assert!(table().values().all(|e| e.vector.len() == DIMS && e.weight > 0.0 && e.weight <= 1.0));
        assert!(parse(b"not a table").is_none());
        assert!(parse(b"SVEC1\x64\0\0\0\x05\0\0\0\x03ab").is_none(), "a cut table is refused");
    }

    #[test]
    fn words_of_one_meaning_are_closer_than_others() {
        let (Some(song), Some(track), Some(invoice)) = (text("song"), text("track"), text("invoice")) else {
            panic!("common words have vectors");
        };
        let (near, far) = (cosine(&song, &track), cosine(&song, &invoice));
        assert!(near > far + 0.1, "song~track {near}, song~invoice {far}");
        let (Some(bands), Some(artists), Some(payments)) = (text("bands music"), text("artists"), text("payments"))
        else {
            panic!("common words have vectors");
        };
        assert!(cosine(&bands, &artists) > cosine(&bands, &payments));
        assert!(text("zyzzyvaqq").is_none());
    }
}
