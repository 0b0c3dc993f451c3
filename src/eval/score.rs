//! `S`: a middle-game / end-game pair of centipawn values, the unit every term of the
//! evaluation is written in. Tapering into one value happens once, at the end.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A (middle game, end game) pair in centipawns.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug, Hash)]
pub struct S {
    pub mg: i32,
    pub eg: i32,
}

/// Shorthand constructor, usable in constant tables.
#[inline(always)]
pub const fn s(mg: i32, eg: i32) -> S {
    S { mg, eg }
}

impl S {
    pub const ZERO: S = s(0, 0);

    /// Both halves multiplied by `pct` / 100, truncating towards zero (so scaling a
    /// value and its negation gives exact negations: the evaluation stays symmetric).
    #[inline(always)]
    pub const fn percent(self, pct: i32) -> S {
        s(self.mg * pct / 100, self.eg * pct / 100)
    }

    /// The tapered value for `phase` in 0..=`max` (`max` = pure middle game).
    #[inline(always)]
    pub const fn taper(self, phase: i32, max: i32) -> i32 {
        (self.mg * phase + self.eg * (max - phase)) / max
    }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        s(self.mg + o.mg, self.eg + o.eg)
    }
}

impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        s(self.mg - o.mg, self.eg - o.eg)
    }
}

impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        s(-self.mg, -self.eg)
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, k: i32) -> S {
        s(self.mg * k, self.eg * k)
    }
}
