//! The net's inner loops, in three copies chosen at run time: AVX2, SSE4.1 and
//! plain Rust. All integer, with the same wrapping rules, so each copy gives the
//! same result bit for bit (tested in `tests.rs`), and the bench signature is the
//! same on every CPU.

use super::QA;

/// Which copy runs here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Scalar,
    Sse41,
    Avx2,
}

impl Level {
    /// The copy in use: the best this CPU runs, or a lesser one named by the
    /// environment variable `KBZ_NNUE_SIMD` (`scalar`, `sse4.1`, `avx2`; outside the
    /// `KIBITZER_` names, which are options), so
    /// the copies can be compared on one machine (the bench must not change).
    /// Decided once.
    #[inline(always)]
    pub fn detect() -> Level {
        static CHOSEN: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let best = *Level::available().last().expect("scalar is always there");
            match std::env::var("KBZ_NNUE_SIMD").ok().as_deref() {
                Some("scalar") => Level::Scalar,
                Some("sse4.1") if best != Level::Scalar => Level::Sse41,
                _ => best,
            }
        })
    }

    /// The copies this CPU can run (for the tests).
    pub fn available() -> Vec<Level> {
        let mut v = vec![Level::Scalar];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("sse4.1") {
                v.push(Level::Sse41);
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                v.push(Level::Avx2);
            }
        }
        v
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Sse41 => "sse4.1",
            Level::Avx2 => "avx2",
        }
    }
}

/// `acc += w`, element by element (wrapping), in place: for a refresh from
/// scratch (rare in a search), where no parent is read.
#[inline]
pub fn add(acc: &mut [i16], w: &[i16]) {
    for (a, &b) in acc.iter_mut().zip(w) {
        *a = a.wrapping_add(b);
    }
}

/// `dst = src + sum(adds) - sum(subs)`, element by element (wrapping), in one pass
/// (the parent's accumulator is read once and the child's written once), with the
/// copy for `level` (which the CPU must run: see [`Level::available`]).
#[inline]
pub fn update_with(level: Level, dst: &mut [i16], src: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    debug_assert_eq!(dst.len(), src.len());
    debug_assert!(adds.iter().chain(subs).all(|r| r.len() == dst.len()));
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` names a copy the CPU supports (detected or listed).
        Level::Avx2 => unsafe { x86::update_avx2(dst, src, adds, subs) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Level::Sse41 => unsafe { x86::update_sse41(dst, src, adds, subs) },
        _ => update_scalar(dst, src, adds, subs, 0),
    }
}

/// `dst = src + sum(adds) - sum(subs)` with the best copy for this CPU.
#[inline]
pub fn update(dst: &mut [i16], src: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
    update_with(Level::detect(), dst, src, adds, subs)
}

/// The plain copy, from element `from` on (the SIMD copies' tail too).
fn update_scalar(dst: &mut [i16], src: &[i16], adds: &[&[i16]], subs: &[&[i16]], from: usize) {
    for i in from..dst.len() {
        let mut v = src[i];
        for r in adds {
            v = v.wrapping_add(r[i]);
        }
        for r in subs {
            v = v.wrapping_sub(r[i]);
        }
        dst[i] = v;
    }
}

/// `sum(clamp(acc[i], 0, QA) * w[i])` (wrapping `i32`).
#[inline]
pub fn crelu_dot(acc: &[i16], w: &[i16]) -> i32 {
    crelu_dot_with(Level::detect(), acc, w)
}

/// [`crelu_dot`] with the copy for `level`.
#[inline]
pub fn crelu_dot_with(level: Level, acc: &[i16], w: &[i16]) -> i32 {
    debug_assert_eq!(acc.len(), w.len());
    match level {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `level` names a copy the CPU supports.
        Level::Avx2 => unsafe { x86::crelu_dot_avx2(acc, w) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Level::Sse41 => unsafe { x86::crelu_dot_sse41(acc, w) },
        _ => crelu_dot_scalar(acc, w),
    }
}

fn crelu_dot_scalar(acc: &[i16], w: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (&a, &w) in acc.iter().zip(w) {
        let c = (a as i32).clamp(0, QA);
        sum = sum.wrapping_add(c * w as i32);
    }
    sum
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::HIDDEN;
    use super::QA;
    use std::arch::x86_64::*;

    /// One vector of `dst = src + sum(adds) - sum(subs)`: elements `i..i + 16`,
    /// which every slice must hold.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn update_block_avx2(
        dst: &mut [i16],
        src: &[i16],
        adds: &[&[i16]],
        subs: &[&[i16]],
        i: usize,
    ) {
        let mut v = _mm256_loadu_si256(src.as_ptr().add(i) as *const __m256i);
        for r in adds {
            v = _mm256_add_epi16(v, _mm256_loadu_si256(r.as_ptr().add(i) as *const __m256i));
        }
        for r in subs {
            v = _mm256_sub_epi16(v, _mm256_loadu_si256(r.as_ptr().add(i) as *const __m256i));
        }
        _mm256_storeu_si256(dst.as_mut_ptr().add(i) as *mut __m256i, v);
    }

    /// A move's common shapes (one piece moves; one moves and one is taken; castling)
    /// over a whole accumulator half, the row counts fixed so the loop keeps its sums
    /// in registers; `None` for any other shape or length.
    #[target_feature(enable = "avx2")]
    unsafe fn update_avx2_fixed(
        dst: &mut [i16],
        src: &[i16],
        adds: &[&[i16]],
        subs: &[&[i16]],
    ) -> Option<()> {
        #[target_feature(enable = "avx2")]
        unsafe fn rows<const A: usize, const S: usize>(
            dst: &mut [i16],
            src: &[i16],
            adds: [&[i16]; A],
            subs: [&[i16]; S],
        ) {
            let mut i = 0;
            while i < HIDDEN {
                update_block_avx2(dst, src, &adds, &subs, i);
                i += 16;
            }
        }
        let whole = |r: &[i16]| r.len() == HIDDEN;
        if !(whole(dst) && whole(src) && adds.iter().chain(subs).all(|r| whole(r))) {
            return None;
        }
        match (adds, subs) {
            (&[a], &[s]) => rows(dst, src, [a], [s]),
            (&[a], &[s, t]) => rows(dst, src, [a], [s, t]),
            (&[a, b], &[s, t]) => rows(dst, src, [a, b], [s, t]),
            _ => return None,
        }
        Some(())
    }

    /// Any length: the rest past the last whole vector is done plainly.
    #[target_feature(enable = "avx2")]
    pub unsafe fn update_avx2(dst: &mut [i16], src: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
        if update_avx2_fixed(dst, src, adds, subs).is_some() {
            return;
        }
        let n = adds
            .iter()
            .chain(subs)
            .fold(dst.len().min(src.len()), |n, r| n.min(r.len()));
        let mut i = 0;
        while i + 16 <= n {
            update_block_avx2(dst, src, adds, subs, i);
            i += 16;
        }
        super::update_scalar(dst, src, adds, subs, i);
    }

    #[target_feature(enable = "sse4.1")]
    pub unsafe fn update_sse41(dst: &mut [i16], src: &[i16], adds: &[&[i16]], subs: &[&[i16]]) {
        let n = adds
            .iter()
            .chain(subs)
            .fold(dst.len().min(src.len()), |n, r| n.min(r.len()));
        let mut i = 0;
        while i + 8 <= n {
            let mut v = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            for r in adds {
                v = _mm_add_epi16(v, _mm_loadu_si128(r.as_ptr().add(i) as *const __m128i));
            }
            for r in subs {
                v = _mm_sub_epi16(v, _mm_loadu_si128(r.as_ptr().add(i) as *const __m128i));
            }
            _mm_storeu_si128(dst.as_mut_ptr().add(i) as *mut __m128i, v);
            i += 8;
        }
        super::update_scalar(dst, src, adds, subs, i);
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn crelu_dot_avx2(acc: &[i16], w: &[i16]) -> i32 {
        let n = acc.len();
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        let mut i = 0;
        while i + 16 <= n {
            let a = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
            let c = _mm256_min_epi16(_mm256_max_epi16(a, zero), top);
            let wv = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(c, wv));
            i += 16;
        }
        let lo = _mm256_castsi256_si128(sum);
        let hi = _mm256_extracti128_si256(sum, 1);
        let s = _mm_add_epi32(lo, hi);
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
        (_mm_cvtsi128_si32(s)).wrapping_add(super::crelu_dot_scalar(&acc[i..], &w[i..]))
    }

    #[target_feature(enable = "sse4.1")]
    pub unsafe fn crelu_dot_sse41(acc: &[i16], w: &[i16]) -> i32 {
        let n = acc.len();
        let zero = _mm_setzero_si128();
        let top = _mm_set1_epi16(QA as i16);
        let mut sum = _mm_setzero_si128();
        let mut i = 0;
        while i + 8 <= n {
            let a = _mm_loadu_si128(acc.as_ptr().add(i) as *const __m128i);
            let c = _mm_min_epi16(_mm_max_epi16(a, zero), top);
            let wv = _mm_loadu_si128(w.as_ptr().add(i) as *const __m128i);
            sum = _mm_add_epi32(sum, _mm_madd_epi16(c, wv));
            i += 8;
        }
        let s = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0b01_00_11_10));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
        (_mm_cvtsi128_si32(s)).wrapping_add(super::crelu_dot_scalar(&acc[i..], &w[i..]))
    }
}
