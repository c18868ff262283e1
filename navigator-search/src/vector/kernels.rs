//! The arithmetic of exact similarity: dot products summed in independent lanes (so the
//! compiler vectorises them), norms, and a cache prefetch hint.

/// 1 / the Euclidean norm of `v`, or 0 when it is zero or not finite.
pub(super) fn inverse_norm(v: &[f32]) -> f32 {
    inverse_of_root(dot(v, v))
}

/// 1 / √`square`, or 0 when that is zero or not finite.
pub(super) fn inverse_of_root(square: f32) -> f32 {
    let n = square.sqrt();
    if n > 0.0 && n.is_finite() {
        1.0 / n
    } else {
        0.0
    }
}

/// `a · b` and `b · b` in one pass over `b` (a vector read from the file has no stored norm).
pub(super) fn dot_and_square(a: &[f32], b: &[f32]) -> (f32, f32) {
    let (mut ab, mut bb) = ([0f32; 16], [0f32; 16]);
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let (mut tail_ab, mut tail_bb) = (0f32, 0f32);
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        tail_ab += x * y;
        tail_bb += y * y;
    }
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            ab[i] += x[i] * y[i];
            bb[i] += y[i] * y[i];
        }
    }
    (
        ab.iter().sum::<f32>() + tail_ab,
        bb.iter().sum::<f32>() + tail_bb,
    )
}

/// The dot product, summed in 16 independent lanes so the compiler can vectorise it.
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 16];
    let (ca, cb) = (a.chunks_exact(16), b.chunks_exact(16));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..16 {
            lanes[i] += x[i] * y[i];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// Asks the processor to start loading the `len` bytes at `at` into its caches: a hint that
/// never faults, whatever the address (nothing on other architectures).
pub(super) fn prefetch(at: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    for offset in (0..len).step_by(64) {
        // SAFETY: a prefetch reads nothing the program sees and never faults.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                at.wrapping_add(offset).cast(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (at, len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_one_pass_product_and_square_match_plain_sums() {
        // 37 = two blocks of 16 and a tail of 5.
        let a: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..37).map(|i| (i as f32 * 0.11).cos() - 0.4).collect();
        let (ab, bb) = dot_and_square(&a, &b);
        let plain = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        assert!((ab - plain(&a, &b)).abs() < 1e-4, "{ab}");
        assert!((bb - plain(&b, &b)).abs() < 1e-4, "{bb}");
        assert_eq!(inverse_of_root(0.0), 0.0);
        assert_eq!(inverse_of_root(f32::INFINITY), 0.0);
        assert!((inverse_of_root(4.0) - 0.5).abs() < 1e-7);
    }
}
