//! Meaning from an operator's embeddings model (`SVC_LLM_EMBEDDING_MODEL`),
//! fused with the word engine's ranking: what a sentence-level model knows
//! ("how many calls do I have left" is the rate limit) that words and word
//! vectors do not.
//!
//! Each section is one text (its title with identifiers split, then the
//! start of its description), embedded once per document; a question is
//! embedded when asked. The fused order is reciprocal-rank fusion of the
//! engine's ranking and the sections' closeness to the question, so a
//! section either ranks high finds its place, and the engine's reading of
//! methods and paths is kept where the model has no opinion. This module
//! does no I/O: `crate::semantic` asks the model.

use super::Candidate;

/// Characters of a section's description its text takes (its summary and
/// the start of what follows say what it does).
pub const DESCRIPTION_CHARS: usize = 300;

/// How many of the sections closest to the question join the fusion.
pub const CLOSEST: usize = 100;

/// Reciprocal-rank fusion's constant: a rank `r` counts `1 / (K + r)`.
const K: f32 = 10.0;

/// What the model's ranking counts against the engine's (1).
const MODEL_WEIGHT: f32 = 1.5;

/// The text a section is embedded as: `GET /repos/{owner}/{repo}/issues:
/// List repository issues. ...`, identifiers split where people would
/// read them apart (`listPets` is `list Pets`).
#[must_use]
pub fn section_text(section: &Candidate) -> String {
    let body: String = section.body.split_whitespace().collect::<Vec<_>>().join(" ");
    let description: String = body.chars().take(DESCRIPTION_CHARS).collect();
    format!("{}: {}", split_identifiers(&section.title), description)
}

/// `listPetsByOwner` as `list Pets By Owner`, `pull_requests` as
/// `pull requests`.
fn split_identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous: Option<char> = None;
    for c in text.chars() {
        if c.is_uppercase() && previous.is_some_and(char::is_lowercase) {
            out.push(' ');
        }
        out.push(if c == '_' { ' ' } else { c });
        previous = Some(c);
    }
    out
}

/// The sections' vectors of one document, each scaled to unit length and
/// kept as bytes with one scale per section (a quarter of the memory of
/// floats; the cosines move by well under a hundredth, less than any two
/// sections' closeness differs by in a ranking).
#[derive(Debug)]
pub struct Meanings {
    width: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl Meanings {
    /// The meanings of vectors of one width, `None` for none or for
    /// vectors of different widths.
    #[must_use]
    pub fn new(vectors: &[Vec<f32>]) -> Option<Self> {
        let width = vectors.first()?.len();
        if width == 0 || vectors.iter().any(|v| v.len() != width) {
            return None;
        }
        let mut codes = Vec::with_capacity(width * vectors.len());
        let mut scales = Vec::with_capacity(vectors.len());
        for vector in vectors {
            let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
            let largest = vector.iter().fold(0f32, |m, x| m.max(x.abs()));
            if norm <= f32::EPSILON || largest <= f32::EPSILON {
                codes.extend(std::iter::repeat_n(0, width));
                scales.push(0.0);
                continue;
            }
            // x / norm == code * scale, code in -127..=127.
            let scale = largest / norm / 127.0;
            codes.extend(vector.iter().map(|x| (x / norm / scale).round().clamp(-127.0, 127.0) as i8));
            scales.push(scale);
        }
        Some(Self { width, codes, scales })
    }

    /// The meanings as bytes to keep (`docs_search_vectors`): each
    /// section's codes, then each section's scale as little-endian `f32`.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(self.codes.len() + self.scales.len() * 4);
        bytes.extend(self.codes.iter().map(|c| c.to_le_bytes()[0]));
        for scale in &self.scales {
            bytes.extend_from_slice(&scale.to_le_bytes());
        }
        bytes
    }

    /// The meanings of `sections` vectors `width` wide that
    /// [`Self::to_bytes`] wrote; `None` when the bytes are not of that
    /// shape or hold a scale that is not a finite, non-negative number.
    #[must_use]
    pub fn from_bytes(bytes: &[u8], sections: usize, width: usize) -> Option<Self> {
        let codes_len = sections.checked_mul(width)?;
        if width == 0 || sections == 0 || bytes.len() != codes_len.checked_add(sections.checked_mul(4)?)? {
            return None;
        }
        let (codes, scales) = bytes.split_at(codes_len);
        let codes: Vec<i8> = codes.iter().map(|b| i8::from_le_bytes([*b])).collect();
        let scales: Vec<f32> = scales
            .chunks_exact(4)
            .map(|b| <[u8; 4]>::try_from(b).ok().map(f32::from_le_bytes))
            .collect::<Option<_>>()?;
        if scales.iter().any(|s| !s.is_finite() || *s < 0.0) {
            return None;
        }
        Some(Self { width, codes, scales })
    }

    /// How many sections it holds.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.scales.len()
    }

    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// The width of its vectors.
    #[must_use]
    pub const fn width(&self) -> usize {
        self.width
    }

    /// Roughly the memory it holds.
    #[must_use]
    pub const fn bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4 + 64
    }

    /// Each section's cosine to `question` (a vector of the same model),
    /// or `None` when the widths differ.
    #[must_use]
    pub fn closeness(&self, question: &[f32]) -> Option<Vec<f32>> {
        if question.len() != self.width {
            return None;
        }
        let norm = question.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm <= f32::EPSILON {
            return None;
        }
        // The question in 16-bit integers too, each number within half a
        // step of 1/8,191 of its largest: a dot product with the codes is
        // then a sum of integers, exact in any order, which the compiler
        // spreads over vector registers (a sum of floats it must add one
        // after another: 0.7 ms for GitHub's 2,192 sections).
        if !question.iter().all(|x| x.is_finite()) {
            return None;
        }
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let range = QUESTION_RANGE.min((f64::from(i32::MAX) / (127.0 * self.width as f64)).floor() as f32);
        let mut scaled = Vec::with_capacity(question.len());
        let step = sentence::to_integers(question, range, &mut scaled);
        let unit = step / norm;
        Some(
            self.codes
                .chunks_exact(self.width)
                .zip(&self.scales)
                .map(|(codes, scale)| {
                    let dot: i32 = codes.iter().zip(&scaled).map(|(&c, &q)| i32::from(c) * i32::from(q)).sum();
                    #[allow(clippy::cast_precision_loss)]
                    let dot = dot as f32;
                    dot * unit * scale
                })
                .collect(),
        )
    }
}

/// The largest magnitude of a question's numbers once scaled to integers,
/// for vectors up to 2,048 wide: with codes in ±127, a sum of products
/// stays under 2^31. Wider vectors are scaled to less.
const QUESTION_RANGE: f32 = 8_191.0;

/// The engine's ranking (`engine`, places of sections, best first) fused
/// with the sections' closeness to the question: every section of either
/// list scores `1 / (K + rank)` for its engine rank and
/// [`MODEL_WEIGHT`]` / (K + rank)` for its rank among the [`CLOSEST`]
/// sections nearest the question; best first, at most `limit`. Ties keep
/// the engine's order. Where the engine found nothing (no word of the
/// question is in the document), only sections at least `floor` close
/// join: a question about nothing the document holds finds nothing.
#[must_use]
pub fn fuse(engine: &[usize], closeness: &[f32], floor: f32, limit: usize) -> Vec<usize> {
    let floor = if engine.is_empty() { floor } else { f32::MIN };
    let mut nearest: Vec<usize> =
        (0..closeness.len()).filter(|n| closeness.get(*n).is_some_and(|c| *c >= floor)).collect();
    let closer = |a: &usize, b: &usize| {
        let (x, y) = (closeness.get(*a).copied().unwrap_or(0.0), closeness.get(*b).copied().unwrap_or(0.0));
        y.total_cmp(&x).then(a.cmp(b))
    };
    // The order is total, so the closest `CLOSEST` picked first and then
    // sorted are the first `CLOSEST` of the whole list sorted, without
    // sorting the thousands of others.
    if nearest.len() > CLOSEST {
        nearest.select_nth_unstable_by(CLOSEST, closer);
        nearest.truncate(CLOSEST);
    }
    nearest.sort_by(closer);
    let mut scores: std::collections::HashMap<usize, (f32, usize)> = std::collections::HashMap::new();
    for (rank, &n) in engine.iter().enumerate() {
        let entry = scores.entry(n).or_insert((0.0, rank));
        entry.0 += 1.0 / (K + rank as f32 + 1.0);
    }
    for (rank, &n) in nearest.iter().enumerate() {
        let entry = scores.entry(n).or_insert((0.0, engine.len() + rank));
        entry.0 += MODEL_WEIGHT / (K + rank as f32 + 1.0);
    }
    let mut fused: Vec<(usize, f32, usize)> = scores.into_iter().map(|(n, (score, order))| (n, score, order)).collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    fused.into_iter().take(limit).map(|(n, _, _)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sections_text_is_its_title_and_the_start_of_its_description() {
        let section = Candidate {
            target: "op/listPets".into(),
            title: "GET /pets/{pet_id}/listByOwner".into(),
            body: format!("List pets\n\nof  an owner {}", "x".repeat(1000)),
            title_terms: String::new(),
            terms: String::new(),
        };
        let text = section_text(&section);
        assert!(text.starts_with("GET /pets/{pet id}/list By Owner: List pets of an owner x"), "{text}");
        assert_eq!(text.chars().count(), "GET /pets/{pet id}/list By Owner: ".len() + DESCRIPTION_CHARS);
    }

    #[test]
    fn bytes_keep_the_cosines() {
        let vectors = vec![vec![3.0, 4.0, 0.0], vec![0.0, 0.0, 2.0], vec![-1.0, 0.1, 0.2], vec![0.0, 0.0, 0.0]];
        let meanings = Meanings::new(&vectors).unwrap_or_else(|| unreachable!("one width"));
        assert_eq!((meanings.len(), meanings.width()), (4, 3));
        let question = [0.6, 0.8, 0.0];
        let close = meanings.closeness(&question).unwrap_or_default();
        let exact = |v: &[f32]| {
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            if n == 0.0 { 0.0 } else { v.iter().zip(question).map(|(a, b)| a * b).sum::<f32>() / n }
        };
        for (got, vector) in close.iter().zip(&vectors) {
            assert!((got - exact(vector)).abs() < 0.01, "{got} against {}", exact(vector));
        }
        assert!(meanings.closeness(&[1.0, 0.0]).is_none(), "another width");
        assert!(meanings.closeness(&[0.0, 0.0, 0.0]).is_none(), "no direction");
        assert!(Meanings::new(&[vec![1.0], vec![1.0, 2.0]]).is_none());
        // Kept as bytes and read back, the cosines are the same; bytes of
        // another shape or with a broken scale are refused.
        let bytes = meanings.to_bytes();
        assert_eq!(bytes.len(), 4 * 3 + 4 * 4);
        let back = Meanings::from_bytes(&bytes, 4, 3).unwrap_or_else(|| unreachable!("its own bytes"));
        assert_eq!(back.closeness(&question), meanings.closeness(&question));
        assert!(Meanings::from_bytes(&bytes, 3, 4).is_none(), "another shape");
        assert!(Meanings::from_bytes(&bytes[1..], 4, 3).is_none(), "cut short");
        assert!(Meanings::from_bytes(&[], 0, 3).is_none(), "nothing");
        assert!(Meanings::from_bytes(&bytes, usize::MAX, 2).is_none(), "no overflow");
        let mut broken = bytes.clone();
        broken[12..16].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(Meanings::from_bytes(&broken, 4, 3).is_none(), "a scale that is no number");
        assert!(Meanings::new(&[]).is_none());
    }

    /// Against cosines in floats, for the built-in model's width and for
    /// an operator's model's wider vectors (the question scaled to less so
    /// the integer sums cannot overflow), with numbers at both extremes.
    #[test]
    fn closeness_in_integers_is_the_cosine() {
        for width in [384, 3_072, 40_000] {
            let vector = |seed: usize| -> Vec<f32> {
                (0..width).map(|i| (((i * 7919 + seed * 104_729) % 2_001) as f32 - 1_000.0) / 1_000.0).collect()
            };
            let mut vectors: Vec<Vec<f32>> = (1..6).map(vector).collect();
            vectors.push(vec![1.0; width]);
            let meanings = Meanings::new(&vectors).unwrap();
            let mut question = vector(9);
            question[0] = 50.0;
            let close = meanings.closeness(&question).unwrap();
            let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            for (got, v) in close.iter().zip(&vectors) {
                let exact = v.iter().zip(&question).map(|(a, b)| a * b).sum::<f32>() / norm(v) / norm(&question);
                assert!((got - exact).abs() < 0.02, "width {width}: {got} against {exact}");
            }
            let same = meanings.closeness(&vectors[5]).unwrap();
            assert!((same[5] - 1.0).abs() < 0.01, "width {width}: {}", same[5]);
        }
        let meanings = Meanings::new(&[vec![1.0, 0.0]]).unwrap();
        assert!(meanings.closeness(&[f32::INFINITY, 0.0]).is_none(), "not a vector");
    }

    #[test]
    fn fusion_lets_either_ranking_lift_a_section() {
        // The engine ranks 0 to 9; the model finds 20 (which the engine
        // missed) closest, agrees that 0 is close, and finds 21 to 29
        // somewhat close.
        let mut closeness = vec![0.0f32; 30];
        closeness[20] = 0.9;
        closeness[0] = 0.85;
        for (n, close) in closeness.iter_mut().enumerate().skip(21) {
            *close = 0.5 - n as f32 / 100.0;
        }
        let engine: Vec<usize> = (0..10).collect();
        let fused = fuse(&engine, &closeness, 0.0, 30);
        let at = |n: usize| fused.iter().position(|x| *x == n).unwrap_or(usize::MAX);
        assert_eq!(fused[0], 0, "agreed first: {fused:?}");
        assert!(at(20) < at(3), "the model's own find passes the engine's weaker ones: {fused:?}");
        assert!(at(1) < at(21), "the engine's second stays above the model's lesser finds: {fused:?}");
        assert_eq!(fuse(&engine, &closeness, 0.0, 5).len(), 5, "the limit holds");
        // Where the two agree, the order stays.
        assert_eq!(fuse(&[2, 0, 1], &[0.5, 0.1, 0.9], 0.0, 3), [2, 0, 1]);
        // Where the engine found nothing, the model brings only what is
        // above the floor; beside the engine's finds, its nearest whatever
        // their closeness.
        assert!(fuse(&[], &[0.1, 0.2, 0.15], 0.3, 10).is_empty());
        assert_eq!(fuse(&[], &[0.1, 0.35, 0.15], 0.3, 10), [1]);
        assert_eq!(fuse(&[0], &[0.1, 0.2, 0.15], 0.3, 10), [0, 1, 2]);
    }

    #[test]
    fn the_closest_are_those_of_the_whole_list_sorted() {
        // Thousands of sections, many with equal closeness: the model's
        // list alone (no engine) is its `CLOSEST` nearest, ties by place.
        let closeness: Vec<f32> = (0..3_000).map(|n| ((n * 7_919) % 613) as f32 / 613.0).collect();
        let mut sorted: Vec<usize> = (0..closeness.len()).collect();
        sorted.sort_by(|a, b| closeness[*b].total_cmp(&closeness[*a]).then(a.cmp(b)));
        sorted.truncate(CLOSEST);
        assert_eq!(fuse(&[], &closeness, f32::MIN, 3_000), sorted);
    }
}
