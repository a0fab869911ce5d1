//! A sentence encoder in the binary: all-MiniLM-L6-v2 (BERT's encoder, 6
//! layers 384 wide, mean-pooled to one unit vector per text), so the docs
//! search knows that "how many calls do I have left" is the rate limit with
//! no model service to run.
//!
//! `pack.py` builds `minilm.bin` from the model's published weights: the
//! embedding tables in 4 bits a number (NF4), the layers' matrices in 8
//! bits a number with one scale per row, norms and biases as floats
//! (17 MB). Nothing is unpacked into memory of its own: the layers'
//! matrices stay 8-bit in the binary's pages (which the kernel may share
//! and take back) and are multiplied from their codes in integers
//! ([`direct`]); only a CPU without AVX2 widens a matrix to floats, into
//! one buffer of the encoding thread for its product (2.4 MB at most),
//! for batches of more than 32 tokens. The word table is read a row at a
//! time.
//!
//! Work is bounded: a text is read up to [`MAX_TEXT_CHARS`] characters and
//! [`MAX_TOKENS`] tokens, and texts are encoded in batches of at most
//! [`BATCH_TOKENS`] tokens (the products' memory). A question of a dozen
//! words takes 2 to 4 ms on one core with AVX-512; a document's thousand
//! sections take tens of seconds, which is why the hub encodes them in
//! the background.

mod direct;
mod wordpiece;

use std::sync::OnceLock;

use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, s};

pub use wordpiece::WordPiece;

/// Numbers in a vector.
pub const WIDTH: usize = 384;
/// Tokens of a text read at most, `[CLS]` and `[SEP]` included (what the
/// model was trained on is 128 to 256).
pub const MAX_TOKENS: usize = 128;
/// Characters of a text read at most (past them no text of 128 tokens
/// goes on).
pub const MAX_TEXT_CHARS: usize = 2_000;
/// Tokens encoded in one batch at most: a batch's activations take some
/// 15 KB a token (a few MB at 256), and batches of 512 or 2,048 tokens
/// were faster by 1 to 5 % at most.
pub const BATCH_TOKENS: usize = 256;
/// Batches of at most this many tokens (a question's) are multiplied
/// straight from the codes, in integers ([`direct`]), on every CPU. Larger
/// ones too where [`direct::vectorised`] (x86-64 with AVX2), which is as fast as the matrix library's floats with AVX2 and
/// 1.6 times as fast with AVX-512 VNNI; elsewhere in floats through the
/// matrix library, which beats the plain loop once a widened matrix
/// serves many tokens.
const DIRECT_TOKENS: usize = 32;

static PACKED: &[u8] = include_bytes!("minilm.bin");

/// The name of the model in the binary.
pub const BUILTIN_NAME: &str = "all-MiniLM-L6-v2";

/// The packed weights of the model in the binary (`pack.py`'s output), for
/// a fingerprint of the vectors it gives: vectors kept by one build are
/// reused by another only when the weights are the same.
#[must_use]
pub fn builtin_weights() -> &'static [u8] {
    PACKED
}

/// Appends `values` to `out` as 16-bit integers within ±`range` (at most
/// 32,767), the largest magnitude scaled to `range`, and returns the step
/// that turns them back (`value ≈ integer · step`): 1 when the values are
/// all zero or one is not finite. Each value is within half a step. The
/// question's products ([`direct`]) and the hub's closeness of a question
/// to a document's sections use it, so both sums are of integers.
pub fn to_integers(values: &[f32], range: f32, out: &mut Vec<i16>) -> f32 {
    let largest = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let step = if largest > 0.0 && largest.is_finite() { largest / range } else { 1.0 };
    let inverse = 1.0 / step;
    let start = out.len();
    out.resize(start + values.len(), 0);
    for (slot, v) in out.iter_mut().skip(start).zip(values) {
        let scaled = (v * inverse).clamp(-range, range);
        let scaled = if scaled.is_nan() { 0.0 } else { scaled };
        #[allow(clippy::cast_possible_truncation)]
        let whole = nearest_whole(scaled) as i16;
        *slot = whole;
    }
    step
}

/// The whole number nearest `x` (to even at a half), for `|x| < 2²²`, in
/// float and integer arithmetic alone: `x` plus 1.5 · 2²³ lies between
/// 2²³ and 2²⁴, where floats are the whole numbers, so the sum is `x`
/// rounded, and its bits less those of 1.5 · 2²³ are that whole number.
/// `f32::round` and a float's `as` conversion are a call and branches on
/// x86-64's baseline (no SSE4.1); this the compiler vectorises. With them,
/// scaling took a seventh of a question's time.
#[inline(always)]
fn nearest_whole(x: f32) -> i32 {
    (x + ROUNDING).to_bits().wrapping_sub(ROUNDING.to_bits()).cast_signed()
}

const ROUNDING: f32 = 12_582_912.0;

/// NF4's sixteen levels (QLoRA's "normal float"), as `pack.py` has them.
const NF4: [f32; 16] = [
    -1.0,
    -0.696_192_8,
    -0.525_073_05,
    -0.394_917_5,
    -0.284_441_38,
    -0.184_773_43,
    -0.091_050_036,
    0.0,
    0.079_580_3,
    0.160_930_2,
    0.246_112_3,
    0.337_915_24,
    0.440_709_83,
    0.562_617,
    0.722_956_84,
    1.0,
];

const LAYER_NORM_EPSILON: f32 = 1e-12;

#[derive(Debug, Clone, thiserror::Error)]
pub enum SentenceError {
    #[error("the packed sentence model is malformed: {0}")]
    Malformed(&'static str),
}

/// See the crate documentation.
#[derive(Debug)]
pub struct Encoder {
    vocab: WordPiece,
    heads: usize,
    words: Nf4Table,
    positions: Array2<f32>,
    token_type: Array1<f32>,
    norm: Norm,
    layers: Vec<Layer>,
}

#[derive(Debug)]
struct Norm {
    weight: Array1<f32>,
    bias: Array1<f32>,
}

/// `x · weightᵀ + bias`, weight `(out, in)` kept as 8-bit codes with one
/// scale per row: `weight[j][k] == codes[j][k] * scales[j]`.
#[derive(Debug)]
struct Linear {
    rows: usize,
    cols: usize,
    codes: &'static [u8],
    scales: Array1<f32>,
    bias: Array1<f32>,
}

#[derive(Debug)]
struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    up: Linear,
    down: Linear,
    out_norm: Norm,
}

/// A packed table read a row at a time.
#[derive(Debug)]
struct Nf4Table {
    rows: usize,
    cols: usize,
    group: usize,
    scales: &'static [u8],
    nibbles: &'static [u8],
}

impl Nf4Table {
    fn row(&self, row: usize) -> Option<Vec<f32>> {
        if row >= self.rows {
            return None;
        }
        let groups = self.cols / self.group;
        let scales = self.scales.get(row * groups * 2..(row + 1) * groups * 2)?;
        let nibbles = self.nibbles.get(row * self.cols / 2..(row + 1) * self.cols / 2)?;
        let mut out = Vec::with_capacity(self.cols);
        for (i, byte) in nibbles.iter().enumerate() {
            let group = i * 2 / self.group;
            let bytes = scales.get(group * 2..group * 2 + 2)?;
            let scale = half::f16::from_le_bytes([*bytes.first()?, *bytes.get(1)?]).to_f32();
            for code in [byte & 0x0f, byte >> 4] {
                out.push(NF4.get(usize::from(code)).copied().unwrap_or(0.0) * scale);
            }
        }
        Some(out)
    }
}

impl Encoder {
    /// The model in the binary, unpacked on first use.
    pub fn builtin() -> Result<&'static Self, SentenceError> {
        static MODEL: OnceLock<Result<Encoder, SentenceError>> = OnceLock::new();
        MODEL.get_or_init(|| Self::parse(PACKED)).as_ref().map_err(Clone::clone)
    }

    /// Reads a model in `pack.py`'s layout.
    pub fn parse(bytes: &'static [u8]) -> Result<Self, SentenceError> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(8)? != b"SVCSENT1" {
            return Err(SentenceError::Malformed("not a packed sentence model"));
        }
        let [vocab_size, width, layers, heads, intermediate, positions, group] =
            [(); 7].map(|()| reader.u32().map(|n| n as usize));
        let (vocab_size, width, layers, heads, intermediate, positions, group) =
            (vocab_size?, width?, layers?, heads?, intermediate?, positions?, group?);
        if width != WIDTH
            || heads == 0
            || !width.is_multiple_of(heads)
            || positions < MAX_TOKENS
            || group == 0
            || !group.is_multiple_of(2)
        {
            return Err(SentenceError::Malformed("its shape is not this encoder's"));
        }
        let words_len = reader.u32()? as usize;
        let tokens = std::str::from_utf8(reader.take(words_len)?)
            .map_err(|_| SentenceError::Malformed("its vocabulary is not UTF-8"))?;
        let vocab = WordPiece::new(tokens).ok_or(SentenceError::Malformed("its vocabulary lacks a special token"))?;
        if vocab.tokens() != vocab_size {
            return Err(SentenceError::Malformed("its vocabulary is not the size it says"));
        }
        let words = reader.table(vocab_size, width, group)?;
        let positions = reader.table(positions, width, group)?;
        let positions = Array2::from_shape_vec(
            (positions.rows, width),
            (0..positions.rows).filter_map(|r| positions.row(r)).flatten().collect(),
        )
        .map_err(|_| SentenceError::Malformed("its position table is short"))?;
        let token_type = reader.vector(width)?;
        let norm = reader.norm(width)?;
        let mut stack = Vec::with_capacity(layers);
        for _ in 0..layers {
            let query = reader.linear(width, width)?;
            let key = reader.linear(width, width)?;
            let value = reader.linear(width, width)?;
            let attention_out = reader.linear(width, width)?;
            let up = reader.linear(intermediate, width)?;
            let down = reader.linear(width, intermediate)?;
            let attention_norm = reader.norm(width)?;
            let out_norm = reader.norm(width)?;
            stack.push(Layer { query, key, value, attention_out, attention_norm, up, down, out_norm });
        }
        if reader.at != bytes.len() {
            return Err(SentenceError::Malformed("it has bytes past its last tensor"));
        }
        Ok(Self { vocab, heads, words, positions, token_type, norm, layers: stack })
    }

    /// The token ids of `text` as the model reads it.
    #[must_use]
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let text: String = text.chars().take(MAX_TEXT_CHARS).collect();
        self.vocab.encode(&text, MAX_TOKENS)
    }

    /// The unit vector of each text, in order ([`WIDTH`] numbers each).
    #[must_use]
    pub fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Vec<Vec<f32>> {
        let tokenized: Vec<Vec<u32>> = texts.iter().map(|t| self.tokenize(t.as_ref())).collect();
        // Shortest first, so a batch holds texts of like lengths.
        let mut order: Vec<usize> = (0..tokenized.len()).collect();
        order.sort_by_key(|&i| tokenized.get(i).map_or(0, Vec::len));
        let mut out = vec![Vec::new(); tokenized.len()];
        let mut batch: Vec<usize> = Vec::new();
        let mut batch_tokens = 0;
        for i in order {
            let len = tokenized.get(i).map_or(0, Vec::len);
            if !batch.is_empty() && batch_tokens + len > BATCH_TOKENS {
                self.run_batch(&batch, &tokenized, &mut out);
                batch.clear();
                batch_tokens = 0;
            }
            batch.push(i);
            batch_tokens += len;
        }
        if !batch.is_empty() {
            self.run_batch(&batch, &tokenized, &mut out);
        }
        // The widened matrix is this call's: a thread that encodes now and
        // then (the blocking pool's) does not hold 2.4 MB between calls.
        WIDENED.with_borrow_mut(|widened| *widened = Vec::new());
        out
    }

    fn run_batch(&self, batch: &[usize], tokenized: &[Vec<u32>], out: &mut [Vec<f32>]) {
        let sequences: Vec<&[u32]> = batch.iter().filter_map(|&i| tokenized.get(i).map(Vec::as_slice)).collect();
        for (&i, vector) in batch.iter().zip(self.forward(&sequences)) {
            if let Some(slot) = out.get_mut(i) {
                *slot = vector;
            }
        }
    }

    /// The mean-pooled, unit-length output of each sequence. Sequences are
    /// stacked into one matrix of tokens for the layers' products; only
    /// attention looks at each sequence alone, so nothing is padded.
    fn forward(&self, sequences: &[&[u32]]) -> Vec<Vec<f32>> {
        let total: usize = sequences.iter().map(|s| s.len()).sum();
        let mut x = Array2::<f32>::zeros((total, WIDTH));
        let mut row = 0;
        for sequence in sequences {
            for (position, &id) in sequence.iter().enumerate() {
                let word = self.words.row(id as usize).unwrap_or_else(|| vec![0.0; WIDTH]);
                let mut target = x.row_mut(row);
                target.assign(&ArrayView1::from(&word));
                target += &self.positions.row(position.min(self.positions.nrows() - 1));
                target += &self.token_type;
                row += 1;
            }
        }
        layer_norm(&mut x, &self.norm);
        for layer in &self.layers {
            x = self.layer(layer, x, sequences);
        }
        let mut vectors = Vec::with_capacity(sequences.len());
        let mut start = 0;
        for sequence in sequences {
            let rows = x.slice(s![start..start + sequence.len(), ..]);
            start += sequence.len();
            let mean = rows.mean_axis(Axis(0)).unwrap_or_else(|| Array1::zeros(WIDTH));
            let norm = mean.dot(&mean).sqrt().max(1e-9);
            vectors.push(mean.iter().map(|v| v / norm).collect());
        }
        vectors
    }

    fn layer(&self, layer: &Layer, x: Array2<f32>, sequences: &[&[u32]]) -> Array2<f32> {
        let input = Input::new(&x);
        let query = layer.query.apply_to(&input);
        let key = layer.key.apply_to(&input);
        let value = layer.value.apply_to(&input);
        let head = WIDTH / self.heads;
        let scale = 1.0 / (head as f32).sqrt();
        let mut attended = Array2::<f32>::zeros(x.raw_dim());
        let mut start = 0;
        for sequence in sequences {
            let rows = start..start + sequence.len();
            start += sequence.len();
            for h in 0..self.heads {
                let cols = h * head..(h + 1) * head;
                let q = query.slice(s![rows.clone(), cols.clone()]);
                let k = key.slice(s![rows.clone(), cols.clone()]);
                let v = value.slice(s![rows.clone(), cols.clone()]);
                let mut scores = q.dot(&k.t());
                for mut row in scores.rows_mut() {
                    let largest = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
                    row.mapv_inplace(|v| exp((v - largest) * scale));
                    let sum = row.sum().max(f32::MIN_POSITIVE);
                    row.mapv_inplace(|v| v / sum);
                }
                attended.slice_mut(s![rows.clone(), cols]).assign(&scores.dot(&v));
            }
        }
        let mut x = layer.attention_out.apply(&attended) + &x;
        layer_norm(&mut x, &layer.attention_norm);
        let mut hidden = layer.up.apply(&x);
        match hidden.as_slice_mut() {
            Some(values) => direct::gelu_in_place(values),
            None => hidden.mapv_inplace(gelu),
        }
        let mut out = layer.down.apply(&hidden) + &x;
        layer_norm(&mut out, &layer.out_norm);
        out
    }
}

thread_local! {
    /// The matrix being multiplied, widened to floats: one per encoding
    /// thread, as large as the largest matrix (1536 × 384).
    static WIDENED: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A product's input: tokens scaled to integers once for every product
/// that reads them ([`direct`]), or, for a batch past [`DIRECT_TOKENS`] on
/// a CPU without a vector path, the floats for the widened matrix.
enum Input<'a> {
    Integers(direct::Tokens),
    Floats(&'a Array2<f32>),
}

impl<'a> Input<'a> {
    fn new(x: &'a Array2<f32>) -> Self {
        if x.nrows() <= DIRECT_TOKENS || direct::vectorised() {
            let x = x.as_standard_layout();
            if let Some(values) = x.as_slice() {
                return Self::Integers(direct::Tokens::new(values, x.ncols()));
            }
        }
        Self::Floats(x)
    }
}

impl Linear {
    /// `x · weightᵀ + bias`, from the codes ([`direct`]) or through the
    /// widened matrix as [`Input`] chooses.
    fn apply(&self, x: &Array2<f32>) -> Array2<f32> {
        self.apply_to(&Input::new(x))
    }

    fn apply_to(&self, input: &Input<'_>) -> Array2<f32> {
        match input {
            Input::Integers(tokens) => self.apply_direct(tokens),
            Input::Floats(x) => self.apply_widened(x),
        }
    }

    /// The codes are widened without their scales, and each output column
    /// is scaled after the product (row `j` of the weight is column `j` of
    /// the output), so the widening is a plain conversion the compiler
    /// vectorises. Widening per product keeps 43 MB of floats out of the
    /// process.
    fn apply_widened(&self, x: &Array2<f32>) -> Array2<f32> {
        WIDENED.with_borrow_mut(|widened| {
            widened.clear();
            widened.extend(self.codes.iter().map(|&c| f32::from(c.cast_signed())));
            let Ok(weight) = ArrayView2::from_shape((self.rows, self.cols), widened.as_slice()) else {
                // The reader checked the shape; a mismatch here is no model.
                return Array2::zeros((x.nrows(), self.rows));
            };
            let mut out = x.dot(&weight.t());
            out *= &self.scales;
            out += &self.bias;
            out
        })
    }

    /// The same product from the codes, for tokens in integers (see
    /// [`direct`]).
    fn apply_direct(&self, tokens: &direct::Tokens) -> Array2<f32> {
        let mut out = Array2::<f32>::zeros((tokens.count(), self.rows));
        // Tokens of another width are no input of this layer's: zeros, as
        // the widened product answers for a shape the reader let through.
        if tokens.cols() == self.cols
            && let Some(output) = out.as_slice_mut()
        {
            direct::products(self.codes, tokens, output);
        }
        out *= &self.scales;
        out += &self.bias;
        out
    }
}

fn layer_norm(x: &mut Array2<f32>, norm: &Norm) {
    for mut row in x.rows_mut() {
        let n = row.len() as f32;
        let mean = row.sum() / n;
        let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
        let inverse = 1.0 / (variance + LAYER_NORM_EPSILON).sqrt();
        row.mapv_inplace(|v| (v - mean) * inverse);
        row *= &norm.weight;
        row += &norm.bias;
    }
}

/// GELU as BERT defines it, `x · Φ(x)`, with the error function of
/// Abramowitz and Stegun's 7.1.26 (within 1.5e-7): the standard library
/// has no `erf`, and `tanh`, of GELU's other form, took 40 % of the
/// encoder's time. Branch-free with [`exp`], so the compiler applies it
/// to several numbers at once.
#[inline(always)]
pub(crate) fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

#[inline(always)]
fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [0.254_829_6, -0.284_496_74, 1.421_413_8, -1.453_152, 1.061_405_4];
    let sign = x.signum();
    let x = x.abs();
    let t = 1.0 / (1.0 + P * x);
    let polynomial = A.iter().rev().fold(0.0, |sum, a| (sum + a) * t);
    sign * (1.0 - polynomial * exp(-x * x))
}

/// `e^x` within a few millionths (relative), branch-free: `2^n · 2^f` with `n` whole,
/// `2^f` by its Taylor series to the 6th power (`|f| ≤ ½`), and `2^n` put
/// in the exponent bits. The standard library's is a call the compiler
/// cannot spread over several numbers; attention and GELU take 100
/// million of them for a thousand sections.
#[inline(always)]
fn exp(x: f32) -> f32 {
    // (ln 2)^k / k!
    const C: [f32; 6] =
        [std::f32::consts::LN_2, 0.240_226_5, 0.055_504_11, 0.009_618_129, 0.001_333_355_8, 0.000_154_035_3];
    let y = x.clamp(-87.0, 88.0) * std::f32::consts::LOG2_E;
    let n = nearest_whole(y);
    #[allow(clippy::cast_precision_loss)]
    let f = y - n as f32;
    let power = 1.0 + f * C.iter().rev().fold(0.0, |sum, c| sum * f + c);
    // `n` is within -126..=127 after the clamp: a normal float's exponent.
    let bits = (n + 127).cast_unsigned() << 23;
    power * f32::from_bits(bits)
}

/// Reads `pack.py`'s layout.
struct Reader {
    bytes: &'static [u8],
    at: usize,
}

impl Reader {
    fn take(&mut self, n: usize) -> Result<&'static [u8], SentenceError> {
        let bytes: &'static [u8] = self.bytes;
        let end = self.at.checked_add(n).ok_or(SentenceError::Malformed("it ends early"))?;
        let taken = bytes.get(self.at..end).ok_or(SentenceError::Malformed("it ends early"))?;
        self.at += n;
        Ok(taken)
    }

    fn u32(&mut self) -> Result<u32, SentenceError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes(bytes.try_into().map_err(|_| SentenceError::Malformed("it ends early"))?))
    }

    /// A tensor's kind and shape, checked against what is expected.
    fn header(&mut self, kind: u8, rows: usize, cols: usize) -> Result<(), SentenceError> {
        let found = *self.take(1)?.first().ok_or(SentenceError::Malformed("it ends early"))?;
        let (r, c) = (self.u32()? as usize, self.u32()? as usize);
        if found != kind || r != rows || c != cols {
            return Err(SentenceError::Malformed("a tensor is not of the kind or shape expected"));
        }
        Ok(())
    }

    fn floats(&mut self, n: usize) -> Result<Vec<f32>, SentenceError> {
        Ok(self.take(n * 4)?.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4]))).collect())
    }

    fn vector(&mut self, width: usize) -> Result<Array1<f32>, SentenceError> {
        self.header(0, 1, width)?;
        Ok(Array1::from(self.floats(width)?))
    }

    fn norm(&mut self, width: usize) -> Result<Norm, SentenceError> {
        Ok(Norm { weight: self.vector(width)?, bias: self.vector(width)? })
    }

    fn table(&mut self, rows: usize, cols: usize, group: usize) -> Result<Nf4Table, SentenceError> {
        if !cols.is_multiple_of(group) {
            return Err(SentenceError::Malformed("a table's rows do not split into groups"));
        }
        self.header(2, rows, cols)?;
        let scales = self.take(rows * cols / group * 2)?;
        let nibbles = self.take(rows * cols / 2)?;
        Ok(Nf4Table { rows, cols, group, scales, nibbles })
    }

    fn linear(&mut self, rows: usize, cols: usize) -> Result<Linear, SentenceError> {
        self.header(1, rows, cols)?;
        let scales = Array1::from(self.floats(rows)?);
        let codes = self.take(rows.checked_mul(cols).ok_or(SentenceError::Malformed("a matrix is too large"))?)?;
        Ok(Linear { rows, cols, codes, scales, bias: self.vector(rows)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_model_reads_and_embeds_to_unit_vectors() {
        let model = Encoder::builtin().unwrap();
        let vectors = model.embed(&["how many calls do I have left", ""]);
        assert_eq!(vectors.len(), 2);
        for v in &vectors {
            assert_eq!(v.len(), WIDTH);
            let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-3, "{norm}");
        }
        // The thread keeps no widened matrix between calls.
        assert_eq!(WIDENED.with_borrow(Vec::capacity), 0);
    }

    #[test]
    fn a_product_of_packed_codes_equals_the_widened_matrix() {
        // weight = codes * scale per row: [[1, -2], [3, 0]] * [0.5, 2].
        let codes: &'static [u8] = &[1, 254, 3, 0];
        let linear = Linear {
            rows: 2,
            cols: 2,
            codes,
            scales: Array1::from(vec![0.5, 2.0]),
            bias: Array1::from(vec![0.25, -1.0]),
        };
        let x = Array2::from_shape_vec((2, 2), vec![1.0, 1.0, 2.0, -1.0]).unwrap();
        // [1, 1] · [[0.5, -1], [6, 0]]ᵀ + bias = [-0.5 + 0.25, 6 - 1]
        let expected = Array2::from_shape_vec((2, 2), vec![-0.25, 5.0, 2.25, 11.0]).unwrap();
        assert_eq!(linear.apply_widened(&x), expected);
        // In integers, each token's numbers are within 1/16382 of its largest.
        for (a, b) in linear.apply_direct(&direct::Tokens::new(x.as_slice().unwrap(), 2)).iter().zip(&expected) {
            assert!((a - b).abs() < 1e-3, "{a} against {b}");
        }
    }

    #[test]
    fn a_question_s_products_equal_a_batch_s() {
        let model = Encoder::builtin().unwrap();
        let up = &model.layers[0].up;
        let x = Array2::from_shape_fn((DIRECT_TOKENS, WIDTH), |(t, k)| ((t * 31 + k * 7) % 23) as f32 / 11.0 - 1.0);
        let direct = up.apply_direct(&direct::Tokens::new(x.as_slice().unwrap(), WIDTH));
        let widened = up.apply_widened(&x);
        assert_eq!(direct.dim(), (DIRECT_TOKENS, up.rows));
        let largest = widened.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        for (a, b) in direct.iter().zip(&widened) {
            assert!((a - b).abs() <= 1e-3 * largest, "{a} against {b} (largest {largest})");
        }
    }

    #[test]
    fn a_long_text_stops_at_the_token_limit() {
        let model = Encoder::builtin().unwrap();
        let long = "rate limit ".repeat(10_000);
        assert_eq!(model.tokenize(&long).len(), MAX_TOKENS);
    }

    #[test]
    fn erf_is_within_its_bound() {
        // Values of erf to 7 places.
        for (x, expected) in
            [(0.0, 0.0), (0.5, 0.520_499_9), (1.0, 0.842_700_8), (-2.0, -0.995_322_3), (3.5, 0.999_999_3)]
        {
            assert!((erf(x) - expected).abs() < 1e-6, "erf({x}) = {}", erf(x));
        }
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
        for x in [-80.0f32, -20.0, -1.5, -0.3, 0.0, 0.7, 1.0, 10.0] {
            let relative = (exp(x) - x.exp()).abs() / x.exp();
            assert!(relative < 5e-6, "exp({x}): {} against {}", exp(x), x.exp());
        }
        assert!(gelu(-10.0).abs() < 1e-6);
        // In the CPU's widest registers, the same numbers as one at a time
        // (37 numbers: whole registers and a tail).
        let values: Vec<f32> = (0..37).map(|i| i as f32 / 4.0 - 4.5).collect();
        let mut wide = values.clone();
        direct::gelu_in_place(&mut wide);
        assert_eq!(wide, values.iter().map(|&v| gelu(v)).collect::<Vec<_>>());
    }

    #[test]
    fn scaling_to_integers_rounds_to_the_nearest_and_stays_in_range() {
        for (x, whole) in
            [(0.0, 0), (0.4, 0), (0.6, 1), (-0.6, -1), (2.5, 2), (3.5, 4), (-8191.2, -8191), (32_767.0, 32_767)]
        {
            assert_eq!(nearest_whole(x), whole, "{x}");
        }
        let mut out = vec![7];
        let step = to_integers(&[1.0, -0.5, 0.25, f32::NAN, 0.0], 8_191.0, &mut out);
        assert_eq!(step, 1.0 / 8_191.0);
        // Appended after what was there; a NaN is 0; the largest is the range.
        assert_eq!(out, [7, 8_191, -4_096, 2_048, 0, 0]);
        let mut out = Vec::new();
        assert_eq!(to_integers(&[f32::INFINITY, 3.0, -40_000.0], 32_767.0, &mut out), 1.0);
        assert_eq!(out, [32_767, 3, -32_767]);
        // The exponential at both ends of its clamp stays finite and close.
        for x in [-87.0f32, 88.0] {
            assert!((exp(x) - x.exp()).abs() / x.exp() < 5e-6, "exp({x}) = {}", exp(x));
        }
    }

    #[test]
    fn bytes_that_are_not_a_model_are_refused() {
        assert!(Encoder::parse(b"SVCSENT1\x01\x00").is_err());
        assert!(Encoder::parse(b"not a model at all").is_err());
        let cut: &'static [u8] = PACKED.get(..PACKED.len() / 2).unwrap();
        assert!(Encoder::parse(cut).is_err());
    }
}
