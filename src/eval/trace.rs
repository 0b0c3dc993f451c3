//! The evaluation's trace for the tuner: for one position, how many times each weight
//! of `params.rs` fired for White minus for Black, plus the parts no weight explains
//! (mop-up, the pawn race), the phase and the drawish-ending scale. From these the
//! evaluation is a linear function of the weights, tapered and scaled:
//! `trace.evaluate(&weights)` equals `Evaluator::evaluate` from White's side exactly
//! (with the knobs at their defaults), which `tests.rs` checks over many positions.

use super::constants::PHASE_MAX;
use super::params::NUM_PARAMS;
use super::score::S;
use super::{MAX_EVAL, SCALE_MAX};
use crate::chess::Color;

/// Where the evaluation reports each weight it uses. The search's evaluation uses
/// `NoTrace`, whose methods compile to nothing.
pub trait Tracer {
    /// Whether anything is recorded (false only for `NoTrace`).
    const ON: bool;
    /// Weight `ix` (flat index) counted `n` times for side `c`.
    fn add(&mut self, c: Color, ix: usize, n: i32);
    /// A value for side `c` that no weight explains.
    fn constant(&mut self, c: Color, v: S);
}

/// The tracer of the playing evaluation: does nothing.
pub struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn add(&mut self, _: Color, _: usize, _: i32) {}
    #[inline(always)]
    fn constant(&mut self, _: Color, _: S) {}
}

/// A position's trace, dense while it is collected.
#[derive(Clone, Debug)]
pub struct EvalTrace {
    /// Coefficient of every weight: White's count minus Black's.
    pub coef: Vec<i32>,
    /// The unexplained part, White minus Black.
    pub constant: S,
    /// Game phase, 0 (end game) ..= `PHASE_MAX` (middle game).
    pub phase: i32,
    /// Drawish-ending scale, out of `SCALE_MAX`, for the side the evaluation favoured.
    pub scale: i32,
}

impl Default for EvalTrace {
    fn default() -> Self {
        EvalTrace {
            coef: vec![0; NUM_PARAMS],
            constant: S::ZERO,
            phase: 0,
            scale: SCALE_MAX,
        }
    }
}

impl Tracer for EvalTrace {
    const ON: bool = true;
    #[inline]
    fn add(&mut self, c: Color, ix: usize, n: i32) {
        match c {
            Color::White => self.coef[ix] += n,
            Color::Black => self.coef[ix] -= n,
        }
    }
    #[inline]
    fn constant(&mut self, c: Color, v: S) {
        match c {
            Color::White => self.constant += v,
            Color::Black => self.constant -= v,
        }
    }
}

impl EvalTrace {
    /// The untapered sum for the given flat weights.
    pub fn total(&self, weights: &[S]) -> S {
        self.coef
            .iter()
            .zip(weights)
            .fold(self.constant, |acc, (&n, &w)| acc + w * n)
    }

    /// The integer evaluation from White's side for the given flat weights, with the
    /// evaluator's own arithmetic.
    pub fn evaluate(&self, weights: &[S]) -> i32 {
        let tapered = self.total(weights).taper(self.phase, PHASE_MAX);
        (tapered * self.scale / SCALE_MAX).clamp(-MAX_EVAL, MAX_EVAL)
    }

    /// The weights that fired, as (flat index, coefficient) pairs.
    pub fn sparse(&self) -> Vec<(u16, i16)> {
        self.coef
            .iter()
            .enumerate()
            .filter(|(_, &n)| n != 0)
            .map(|(i, &n)| (i as u16, n.clamp(i16::MIN as i32, i16::MAX as i32) as i16))
            .collect()
    }
}
