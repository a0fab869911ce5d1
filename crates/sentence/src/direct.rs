//! Products of tokens straight from the 8-bit codes, in integers.
//!
//! A question is a dozen tokens. Through the general product, each matrix
//! is widened to floats and packed again by the matrix library to be read
//! by those few tokens only. With the vector paths below, a document's
//! sections (batches of up to 256 tokens) are multiplied here too. Here the codes are widened to 16-bit integers
//! as they are read and multiplied with every token while they are in
//! registers or the first-level cache. The tokens are 16-bit integers too,
//! each scaled to ±[`TOKEN_RANGE`]: a product of two such numbers and the
//! sum of a row of them fit 32 bits exactly, and x86's `pmaddwd`
//! multiplies and adds 16 (AVX2) or 32 (AVX-512) pairs an instruction,
//! against 8 or 16 floats. Integer sums are the same in any order, so
//! every path gives the same sums.
//!
//! On x86-64 the CPU's widest path is chosen at run time: AVX-512 with
//! VNNI (whose `vpdpwssd` multiplies, adds pairs and accumulates in one
//! instruction: Ice Lake, Zen 4 and later), then AVX2, each written with
//! intrinsics ([`x86`]); any other CPU runs the plain loop ([`portable`])
//! the compiler vectorises for its baseline.

/// The largest magnitude of a token's numbers once scaled: with codes in
/// ±127, a product is under 2^20 and a row of 1,536 of them sums under
/// 2^31.
const TOKEN_RANGE: f32 = 8_191.0;

/// Tokens (rows of `cols` numbers) scaled to 16-bit integers, each
/// with the scale that undoes it. Scaled once for all the products that
/// read the same tokens (a layer's query, key and value).
pub(crate) struct Tokens {
    cols: usize,
    values: Vec<i16>,
    scales: Vec<f32>,
}

impl Tokens {
    pub(crate) fn new(x: &[f32], cols: usize) -> Self {
        let mut scales = Vec::with_capacity(x.len() / cols.max(1));
        let mut values = Vec::with_capacity(x.len());
        if cols > 0 {
            for row in x.chunks_exact(cols) {
                scales.push(crate::to_integers(row, TOKEN_RANGE, &mut values));
            }
        }
        Self { cols, values, scales }
    }

    pub(crate) fn cols(&self) -> usize {
        self.cols
    }

    pub(crate) fn count(&self) -> usize {
        self.scales.len()
    }
}

/// Whether [`products`] takes one of the paths written with intrinsics
/// on this CPU, rather than the plain loop: every CPU with AVX-512 VNNI
/// has AVX2 too.
pub(crate) fn vectorised() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `out[t][j] = Σₖ x[t][k] · codes[j][k]` for the tokens and the rows of
/// `codes` (each as long as a token); `out` is `tokens × rows`. Scales and
/// biases are the caller's.
pub(crate) fn products(codes: &[u8], tokens: &Tokens, out: &mut [f32]) {
    if tokens.cols == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vnni") {
            // SAFETY: the function needs AVX-512F, AVX-512BW and
            // AVX-512 VNNI, which the CPU was just found to have
            // (AVX-512BW implies AVX-512F).
            #[allow(unsafe_code)]
            unsafe {
                x86::products_avx512(codes, tokens, out);
            }
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the function needs AVX2, which the CPU was just found
            // to have.
            #[allow(unsafe_code)]
            unsafe {
                x86::products_avx2(codes, tokens, out);
            }
            return;
        }
    }
    portable(codes, tokens, out);
}

/// GELU of every number, in the CPU's widest registers: the compiler
/// vectorises [`crate::gelu`] for 4 numbers at once on x86-64's baseline,
/// 8 with AVX2 and 16 with AVX-512.
pub(crate) fn gelu_in_place(values: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the function needs AVX-512F, which the CPU was just
            // found to have.
            #[allow(unsafe_code)]
            unsafe {
                x86::gelu_avx512(values);
            }
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the function needs AVX2 and FMA, which the CPU was
            // just found to have.
            #[allow(unsafe_code)]
            unsafe {
                x86::gelu_avx2(values);
            }
            return;
        }
    }
    gelu_each(values);
}

#[inline(always)]
fn gelu_each(values: &mut [f32]) {
    for value in values {
        *value = crate::gelu(*value);
    }
}

/// The products in plain Rust, for any CPU: the compiler vectorises the
/// integer sums for the baseline of the target (SSE2 on x86-64).
fn portable(codes: &[u8], tokens: &Tokens, out: &mut [f32]) {
    let cols = tokens.cols;
    let rows = codes.len() / cols;
    let mut widened = vec![0i16; cols];
    for (j, code_row) in codes.chunks_exact(cols).enumerate() {
        for (w, &c) in widened.iter_mut().zip(code_row) {
            *w = i16::from(c.cast_signed());
        }
        for (t, (token, &scale)) in tokens.values.chunks_exact(cols).zip(&tokens.scales).enumerate() {
            let sum: i32 = widened.iter().zip(token).map(|(&a, &b)| i32::from(a) * i32::from(b)).sum();
            store(out, t * rows + j, sum, scale);
        }
    }
}

fn store(out: &mut [f32], at: usize, sum: i32, scale: f32) {
    if let Some(slot) = out.get_mut(at) {
        #[allow(clippy::cast_precision_loss)]
        let sum = sum as f32;
        *slot = sum * scale;
    }
}

/// The products with x86's vector instructions, written with intrinsics
/// because the compiler, left to vectorise [`portable`], keeps to 256-bit
/// registers on AVX-512 CPUs and reloads both operands for every
/// multiply-add. Here a block of [`x86::ROWS`] rows of codes meets a block
/// of up to [`x86::TOKENS`] tokens: each register's worth of a row's codes
/// (32 for AVX-512, 16 for AVX2) is widened to 16-bit integers once per
/// token block and multiplied with every token of the block, the sums of
/// all the block's pairs staying in registers, so a chunk of a token is
/// loaded once for four rows and a chunk of a row once for each block of
/// tokens.
///
/// Integer sums are the same in any order, so these give exactly what
/// [`portable`] gives (tested).
#[cfg(target_arch = "x86_64")]
mod x86 {
    #![allow(unsafe_code)]
    // The blocks index arrays and slices of chunks whose lengths the
    // functions check first (`chunks` below); `get` in the innermost loop
    // would add a branch to every multiply-add.
    #![allow(clippy::indexing_slicing)]

    use std::arch::x86_64::{
        __m128i, __m256i, __m512i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_shuffle_epi32,
        _mm256_add_epi32, _mm256_castsi256_si128, _mm256_cvtepi8_epi16, _mm256_extracti128_si256, _mm256_loadu_si256,
        _mm256_madd_epi16, _mm256_setzero_si256, _mm512_cvtepi8_epi16, _mm512_dpwssd_epi32, _mm512_loadu_si512,
        _mm512_reduce_add_epi32, _mm512_setzero_si512,
    };

    use super::{Tokens, gelu_each, store};

    #[target_feature(enable = "avx512f")]
    pub(super) fn gelu_avx512(values: &mut [f32]) {
        gelu_each(values);
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn gelu_avx2(values: &mut [f32]) {
        gelu_each(values);
    }

    /// Rows of codes in a block.
    pub(super) const ROWS: usize = 4;
    /// Tokens in a block: with [`ROWS`], 16 sums in registers for AVX-512
    /// (32 registers), and 8 for AVX2 (16 registers), beside the rows and
    /// a token.
    pub(super) const TOKENS: usize = 4;
    const TOKENS_AVX2: usize = 2;

    /// The chunks of `N` numbers of each of the rows `first..first + R`
    /// of `values` (rows of `cols`), all of the same count; none when a row
    /// is missing.
    fn chunks<T, const N: usize, const R: usize>(values: &[T], first: usize, cols: usize) -> Option<[&[[T; N]]; R]> {
        let mut rows = [&[][..]; R];
        for (r, slot) in rows.iter_mut().enumerate() {
            let row = values.get((first + r) * cols..(first + r + 1) * cols)?;
            *slot = row.as_chunks::<N>().0;
        }
        Some(rows)
    }

    /// What is left of each row past its whole chunks, summed in plain
    /// integers (empty for the model's widths, 384 and 1,536).
    fn tail_sum(codes: &[u8], token: &[i16], from: usize) -> i32 {
        codes.iter().zip(token).skip(from).map(|(&c, &x)| i32::from(c.cast_signed()) * i32::from(x)).sum()
    }

    /// Runs `block` over the row blocks and token blocks, blocks of fewer
    /// rows or tokens at the ends, and stores the scaled sums.
    #[inline(always)]
    fn each_block(
        codes: &[u8],
        tokens: &Tokens,
        out: &mut [f32],
        token_block: usize,
        mut block: impl FnMut(usize, usize, usize, usize, &mut [[i32; TOKENS]; ROWS]) -> bool,
    ) {
        let cols = tokens.cols;
        let rows = codes.len() / cols;
        let count = tokens.count();
        let mut sums = [[0i32; TOKENS]; ROWS];
        let mut j = 0;
        while j < rows {
            let r = if rows - j >= ROWS { ROWS } else { 1 };
            let mut t = 0;
            while t < count {
                let n = (count - t).min(token_block);
                if !block(j, r, t, n, &mut sums) {
                    return;
                }
                for (dr, row_sums) in sums.iter().take(r).enumerate() {
                    for (dt, &sum) in row_sums.iter().take(n).enumerate() {
                        let scale = tokens.scales.get(t + dt).copied().unwrap_or_default();
                        store(out, (t + dt) * rows + j + dr, sum, scale);
                    }
                }
                t += n;
            }
            j += r;
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) fn products_avx512(codes: &[u8], tokens: &Tokens, out: &mut [f32]) {
        each_block(codes, tokens, out, TOKENS, |j, r, t, n, sums| {
            let done = match (r, n) {
                (ROWS, 4) => block512::<ROWS, 4>(codes, tokens, j, t, sums),
                (ROWS, 3) => block512::<ROWS, 3>(codes, tokens, j, t, sums),
                (ROWS, 2) => block512::<ROWS, 2>(codes, tokens, j, t, sums),
                (ROWS, _) => block512::<ROWS, 1>(codes, tokens, j, t, sums),
                (_, 4) => block512::<1, 4>(codes, tokens, j, t, sums),
                (_, 3) => block512::<1, 3>(codes, tokens, j, t, sums),
                (_, 2) => block512::<1, 2>(codes, tokens, j, t, sums),
                (_, _) => block512::<1, 1>(codes, tokens, j, t, sums),
            };
            done.is_some()
        });
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn products_avx2(codes: &[u8], tokens: &Tokens, out: &mut [f32]) {
        each_block(codes, tokens, out, TOKENS_AVX2, |j, r, t, n, sums| {
            let done = match (r, n) {
                (ROWS, 2) => block256::<ROWS, 2>(codes, tokens, j, t, sums),
                (ROWS, _) => block256::<ROWS, 1>(codes, tokens, j, t, sums),
                (_, 2) => block256::<1, 2>(codes, tokens, j, t, sums),
                (_, _) => block256::<1, 1>(codes, tokens, j, t, sums),
            };
            done.is_some()
        });
    }

    /// A block function: the sums of rows `j..j + R` with tokens
    /// `t..t + T`, into `sums`, with registers of `$lanes` 16-bit numbers,
    /// `$widen` reading a register's worth of codes, `$load` of a token's
    /// numbers, `$multiply_add` adding their products to a sum and `$sum`
    /// adding up a register. A macro because the two paths differ only in
    /// these, and `target_feature` functions cannot be trait methods.
    macro_rules! block {
        ($name:ident, $features:literal, $lanes:literal, $zero:path, $widen:path, $load:path, $multiply_add:path, $sum:path) => {
            #[target_feature(enable = $features)]
            fn $name<const R: usize, const T: usize>(
                codes: &[u8],
                tokens: &Tokens,
                j: usize,
                t: usize,
                sums: &mut [[i32; TOKENS]; ROWS],
            ) -> Option<()> {
                let cols = tokens.cols;
                let rows = chunks::<u8, $lanes, R>(codes, j, cols)?;
                let xs = chunks::<i16, $lanes, T>(&tokens.values, t, cols)?;
                let n = cols / $lanes;
                let mut acc = [[$zero(); T]; R];
                for k in 0..n {
                    let mut w = [$zero(); R];
                    for r in 0..R {
                        w[r] = $widen(&rows[r][k]);
                    }
                    for i in 0..T {
                        let x = $load(&xs[i][k]);
                        for r in 0..R {
                            acc[r][i] = $multiply_add(acc[r][i], w[r], x);
                        }
                    }
                }
                for r in 0..R {
                    for i in 0..T {
                        let code_row = codes.get((j + r) * cols..(j + r + 1) * cols)?;
                        let token = tokens.values.get((t + i) * cols..(t + i + 1) * cols)?;
                        sums[r][i] = $sum(acc[r][i]) + tail_sum(code_row, token, n * $lanes);
                    }
                }
                Some(())
            }
        };
    }

    block!(
        block512,
        "avx512f,avx512bw,avx512vnni",
        32,
        _mm512_setzero_si512,
        widen512,
        load512,
        _mm512_dpwssd_epi32,
        _mm512_reduce_add_epi32
    );
    block!(block256, "avx2", 16, _mm256_setzero_si256, widen256, load256, multiply_add256, reduce256);

    #[target_feature(enable = "avx512f,avx512bw")]
    fn widen512(codes: &[u8; 32]) -> __m512i {
        // SAFETY: the array is the 32 bytes read.
        _mm512_cvtepi8_epi16(unsafe { _mm256_loadu_si256(codes.as_ptr().cast::<__m256i>()) })
    }

    #[target_feature(enable = "avx512f")]
    fn load512(token: &[i16; 32]) -> __m512i {
        // SAFETY: the array is the 64 bytes read.
        unsafe { _mm512_loadu_si512(token.as_ptr().cast::<__m512i>()) }
    }

    #[target_feature(enable = "avx2")]
    fn widen256(codes: &[u8; 16]) -> __m256i {
        // SAFETY: the array is the 16 bytes read.
        _mm256_cvtepi8_epi16(unsafe { _mm_loadu_si128(codes.as_ptr().cast::<__m128i>()) })
    }

    #[target_feature(enable = "avx2")]
    fn load256(token: &[i16; 16]) -> __m256i {
        // SAFETY: the array is the 32 bytes read.
        unsafe { _mm256_loadu_si256(token.as_ptr().cast::<__m256i>()) }
    }

    /// AVX2 has no `vpdpwssd`: a multiply-add of pairs, then an add.
    #[target_feature(enable = "avx2")]
    fn multiply_add256(sum: __m256i, a: __m256i, b: __m256i) -> __m256i {
        _mm256_add_epi32(sum, _mm256_madd_epi16(a, b))
    }

    /// The sum of a register's eight 32-bit integers.
    #[target_feature(enable = "avx2")]
    fn reduce256(v: __m256i) -> i32 {
        let half = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let quarter = _mm_add_epi32(half, _mm_shuffle_epi32::<0b01_00_11_10>(half));
        let eighth = _mm_add_epi32(quarter, _mm_shuffle_epi32::<0b10_11_00_01>(quarter));
        _mm_cvtsi128_si32(eighth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The products by every path this CPU can take but the one
    /// [`products`] chooses: the plain loop and, on an AVX-512 CPU, AVX2's.
    fn other_paths(codes: &[u8], scaled: &Tokens, len: usize) -> Vec<Vec<f32>> {
        let mut plain = vec![f32::NAN; len];
        portable(codes, scaled, &mut plain);
        let mut paths = vec![plain];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            let mut avx2 = vec![f32::NAN; len];
            // SAFETY: the CPU was just found to have AVX2.
            #[allow(unsafe_code)]
            unsafe {
                x86::products_avx2(codes, scaled, &mut avx2);
            }
            paths.push(avx2);
        }
        paths
    }

    /// Against the sum written out in floats, for widths with and without
    /// a tail past a register, whole and partial blocks of rows and of
    /// tokens.
    #[test]
    fn products_equal_the_sums_written_out() {
        for (cols, rows) in [(2, 7), (16, 1), (40, 7), (384, 8), (1536, 7)] {
            let codes: Vec<u8> = (0..rows * cols).map(|i| ((i * 37 + 11) % 256) as u8).collect();
            for tokens in [1, 3, 4, 9, 32] {
                let x: Vec<f32> = (0..tokens * cols)
                    .map(|i| (((i * 13) % 29) as f32 / 7.0 - 2.0) * 10f32.powi((i % 3) as i32))
                    .collect();
                let mut out = vec![f32::NAN; tokens * rows];
                let scaled = Tokens::new(&x, cols);
                products(&codes, &scaled, &mut out);
                // Every path gives the same sums.
                for other in other_paths(&codes, &scaled, tokens * rows) {
                    assert_eq!(other, out, "cols {cols}, rows {rows}, tokens {tokens}");
                }
                for t in 0..tokens {
                    let largest = x[t * cols..(t + 1) * cols].iter().fold(0.0f32, |m, v| m.max(v.abs()));
                    for j in 0..rows {
                        let expected: f32 =
                            (0..cols).map(|k| x[t * cols + k] * f32::from(codes[j * cols + k].cast_signed())).sum();
                        let got = out[t * rows + j];
                        // Each number is within half a step of 1/8191 of
                        // the token's largest; the errors add up as a walk.
                        let bound = largest / TOKEN_RANGE * 127.0 * (cols as f32).sqrt() * 2.0 + 1e-3;
                        assert!(
                            (got - expected).abs() <= bound,
                            "cols {cols}, tokens {tokens}, ({t}, {j}): {got} against {expected}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_token_of_zeros_or_of_the_largest_numbers_stays_in_range() {
        let codes = vec![0x81u8; 1536]; // -127 everywhere
        let mut out = [f32::NAN; 2];
        let x: Vec<f32> = std::iter::repeat_n(0.0, 1536).chain(std::iter::repeat_n(f32::MAX, 1536)).collect();
        products(&codes, &Tokens::new(&x, 1536), &mut out);
        assert_eq!(out[0], 0.0);
        // f32::MAX times -127 times 1,536 is past f32's range: infinity,
        // never a wrapped integer's sign.
        assert!(out[1] == f32::NEG_INFINITY, "{}", out[1]);
    }
}
