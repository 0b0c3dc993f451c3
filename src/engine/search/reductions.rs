//! Integer tables of the search: late move reductions by depth and move number, and
//! the history bonus by depth.

/// Integer natural logarithm times 1024 (no floating point touches node counts).
const fn ln1024(x: u64) -> i64 {
    if x <= 1 {
        return 0;
    }
    let ip = 63 - x.leading_zeros() as u64;
    // y = x / 2^ip in Q32, in [1, 2).
    let mut y: u128 = ((x as u128) << 32) >> ip;
    let mut frac: u64 = 0;
    let mut i = 0;
    while i < 12 {
        y = (y * y) >> 32;
        if y >= (2u128 << 32) {
            y >>= 1;
            frac |= 1 << (11 - i);
        }
        i += 1;
    }
    let log2_q12 = (ip << 12) | frac; // log2(x) * 4096
                                      // ln(x) = log2(x) * ln 2; ln 2 ~ 2839 / 4096.
    ((log2_q12 as i64) * 2839 / 4096) / 4
}

const fn lmr_table() -> [[u8; 64]; 64] {
    let mut t = [[0u8; 64]; 64];
    let mut d = 1;
    while d < 64 {
        let mut m = 1;
        while m < 64 {
            // 0.75 + ln(d) ln(m) / 2.25, in 1/1024 units.
            let v =
                (768 * 1024 + ln1024(d as u64) * ln1024(m as u64) * 1024 / 2304) / (1024 * 1024);
            t[d][m] = if v > 60 { 60 } else { v as u8 };
            m += 1;
        }
        d += 1;
    }
    t
}

pub(super) static LMR: [[u8; 64]; 64] = lmr_table();

#[inline]
pub(super) fn stat_bonus(depth: i32) -> i32 {
    (170 * depth - 120).min(1800)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_log_and_reductions() {
        assert_eq!(ln1024(1), 0);
        // ln 2 = 0.693, ln 10 = 2.303, ln 100 = 4.605 (times 1024).
        assert!((ln1024(2) - 710).abs() <= 3);
        assert!((ln1024(10) - 2358).abs() <= 4);
        assert!((ln1024(100) - 4716).abs() <= 6);
        assert_eq!(LMR[1][1], 0);
        assert!(LMR[10][20] >= 2 && LMR[10][20] <= 4);
        assert!(LMR[63][63] > LMR[10][10]);
    }
}
