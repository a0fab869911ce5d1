//! Products of a few tokens straight from the 8-bit codes, in integers.
//!
//! A question is a dozen tokens. Through the general product, each matrix
//! is widened to floats and packed again by the matrix library to be read
//! by those few tokens only. Here each row of codes is widened to 16-bit
//! integers into a buffer the size of one row, kept in the first-level
//! cache, and multiplied with every token while it is there. The tokens
//! are 16-bit integers too, each scaled to ±[`TOKEN_RANGE`]: a product of
//! two such numbers and the sum of a row of them fit 32 bits exactly, and
//! x86's `pmaddwd` multiplies and adds 8 (SSE2), 16 (AVX2) or 32
//! (AVX-512) pairs an instruction, against 4, 8 or 16 floats. Integer sums
//! are the same in any order, so the compiler spreads them over registers
//! as it likes, where float sums must be spread by hand.
//!
//! The loop is plain Rust that the compiler vectorises. It is compiled
//! three times: for any x86-64 (SSE2), and, chosen at run time, for CPUs
//! with AVX2 and with AVX-512BW. The `multiversion` crate would write the
//! same three functions and the same checks; these are a dozen lines with
//! one `unsafe` call each, where the crate brings a procedural macro.

/// The largest magnitude of a token's numbers once scaled: with codes in
/// ±127, a product is under 2^20 and a row of 1,536 of them sums under
/// 2^31.
const TOKEN_RANGE: f32 = 8_191.0;

/// `out[t][j] = Σₖ x[t][k] · codes[j][k]` for the rows of `x` (each `cols`
/// long) and the rows of `codes`; `out` is `tokens × rows`. Scales and
/// biases are the caller's.
pub(crate) fn products(codes: &[u8], cols: usize, x: &[f32], out: &mut [f32]) {
    if cols == 0 {
        return;
    }
    let (tokens, scales) = scaled(x, cols);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the function needs AVX-512BW, which the CPU was just
            // found to have.
            #[allow(unsafe_code)]
            unsafe {
                kernel_avx512(codes, cols, &tokens, &scales, out);
            }
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the function needs AVX2, which the CPU was just found
            // to have.
            #[allow(unsafe_code)]
            unsafe {
                kernel_avx2(codes, cols, &tokens, &scales, out);
            }
            return;
        }
    }
    kernel(codes, cols, &tokens, &scales, out);
}

/// Each token (`cols` numbers of `x`) scaled to 16-bit integers, with
/// the scale that undoes it.
fn scaled(x: &[f32], cols: usize) -> (Vec<i16>, Vec<f32>) {
    let mut scales = Vec::with_capacity(x.len() / cols.max(1));
    let mut tokens = Vec::with_capacity(x.len());
    for row in x.chunks_exact(cols) {
        scales.push(crate::to_integers(row, TOKEN_RANGE, &mut tokens));
    }
    (tokens, scales)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx2")]
fn kernel_avx512(codes: &[u8], cols: usize, tokens: &[i16], scales: &[f32], out: &mut [f32]) {
    kernel(codes, cols, tokens, scales, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn kernel_avx2(codes: &[u8], cols: usize, tokens: &[i16], scales: &[f32], out: &mut [f32]) {
    kernel(codes, cols, tokens, scales, out);
}

#[inline(always)]
fn kernel(codes: &[u8], cols: usize, tokens: &[i16], scales: &[f32], out: &mut [f32]) {
    let rows = codes.len() / cols;
    let mut widened = vec![0i16; cols];
    for (j, code_row) in codes.chunks_exact(cols).enumerate() {
        for (w, &c) in widened.iter_mut().zip(code_row) {
            *w = i16::from(c.cast_signed());
        }
        for (t, (token, scale)) in tokens.chunks_exact(cols).zip(scales).enumerate() {
            let sum: i32 = widened.iter().zip(token).map(|(&a, &b)| i32::from(a) * i32::from(b)).sum();
            if let Some(slot) = out.get_mut(t * rows + j) {
                #[allow(clippy::cast_precision_loss)]
                let sum = sum as f32;
                *slot = sum * scale;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the sum written out in floats, for widths with and without
    /// a tail past a register, and tokens of every size.
    #[test]
    fn products_equal_the_sums_written_out() {
        for cols in [2, 16, 40, 384, 1536] {
            let rows = 7;
            let codes: Vec<u8> = (0..rows * cols).map(|i| ((i * 37 + 11) % 256) as u8).collect();
            for tokens in [1, 3, 9] {
                let x: Vec<f32> = (0..tokens * cols)
                    .map(|i| (((i * 13) % 29) as f32 / 7.0 - 2.0) * 10f32.powi((i % 3) as i32))
                    .collect();
                let mut out = vec![f32::NAN; tokens * rows];
                products(&codes, cols, &x, &mut out);
                // The code for any x86-64 gives what this CPU's gives.
                let (scaled_tokens, scales) = scaled(&x, cols);
                let mut portable = vec![f32::NAN; tokens * rows];
                kernel(&codes, cols, &scaled_tokens, &scales, &mut portable);
                assert_eq!(portable, out);
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
        products(&codes, 1536, &x, &mut out);
        assert_eq!(out[0], 0.0);
        // f32::MAX times -127 times 1,536 is past f32's range: infinity,
        // never a wrapped integer's sign.
        assert!(out[1] == f32::NEG_INFINITY, "{}", out[1]);
    }
}
