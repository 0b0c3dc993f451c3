//! The per-term table behind the `score` command: each term's middle-game and
//! end-game values for White and for Black (each from its own side's view, knobs
//! applied), their difference tapered to one number from White's point of view, and
//! the phase, the drawish-ending scale and the final score.

use super::constants::PHASE_MAX;
use super::score::S;
use super::{EvalParams, SCALE_MAX};
use crate::chess::Color;
use std::fmt;

/// The evaluation terms, in the order `score` prints them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
#[repr(usize)]
pub enum Term {
    Material,
    PieceSquares,
    Pawns,
    PassedPawns,
    Knights,
    Bishops,
    Rooks,
    BlockedPawns,
    Mobility,
    KingSafety,
    Tropism,
    Threats,
    MopUp,
    Tempo,
}

pub const NUM_TERMS: usize = 14;

impl Term {
    pub const ALL: [Term; NUM_TERMS] = [
        Term::Material,
        Term::PieceSquares,
        Term::Pawns,
        Term::PassedPawns,
        Term::Knights,
        Term::Bishops,
        Term::Rooks,
        Term::BlockedPawns,
        Term::Mobility,
        Term::KingSafety,
        Term::Tropism,
        Term::Threats,
        Term::MopUp,
        Term::Tempo,
    ];

    pub const fn name(self) -> &'static str {
        TERM_NAMES[self as usize]
    }
}

/// Display names of the terms, indexed by `Term as usize`.
pub const TERM_NAMES: [&str; NUM_TERMS] = [
    "material",
    "piece squares",
    "pawns",
    "passed pawns",
    "knights",
    "bishops",
    "rooks",
    "blocked pawns",
    "mobility",
    "king safety",
    "tropism",
    "threats",
    "mop-up",
    "tempo",
];

/// One line of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TermRow {
    pub term: Term,
    /// White's value of the term, from White's point of view.
    pub white: S,
    /// Black's value of the term, from Black's point of view.
    pub black: S,
    /// `white - black` tapered by the game phase (White's point of view).
    pub total: i32,
}

impl TermRow {
    pub fn name(&self) -> &'static str {
        self.term.name()
    }

    /// `white - black`, untapered.
    pub fn diff(&self) -> S {
        self.white - self.black
    }
}

/// The evaluation of one position, term by term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakdown {
    pub rows: [TermRow; NUM_TERMS],
    /// Game phase, `PHASE_MAX` (all pieces on) down to 0 (pawns and kings).
    pub phase: i32,
    /// Sum of every term (White minus Black), untapered.
    pub total: S,
    /// `total` tapered, before the drawish-ending scale.
    pub tapered: i32,
    /// Drawish-ending scale out of `SCALE_MAX`.
    pub scale: i32,
    /// The final score from White's point of view.
    pub score: i32,
    pub side_to_move: Color,
    pub params: EvalParams,
}

impl Breakdown {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        t: &[[S; 2]; NUM_TERMS],
        phase: i32,
        total: S,
        tapered: i32,
        scale: i32,
        score: i32,
        side_to_move: Color,
        params: EvalParams,
    ) -> Breakdown {
        let rows = Term::ALL.map(|term| {
            let [white, black] = t[term as usize];
            TermRow {
                term,
                white,
                black,
                total: (white - black).taper(phase, PHASE_MAX),
            }
        });
        Breakdown {
            rows,
            phase,
            total,
            tapered,
            scale,
            score,
            side_to_move,
            params,
        }
    }

    /// The row of one term.
    pub fn row(&self, term: Term) -> &TermRow {
        &self.rows[term as usize]
    }

    /// The final score from the side to move's point of view (what `evaluate` gives).
    pub fn stm_score(&self) -> i32 {
        match self.side_to_move {
            Color::White => self.score,
            Color::Black => -self.score,
        }
    }
}

/// Centipawns as pawns with two decimals, integer arithmetic only.
fn pawns(cp: i32) -> String {
    let sign = if cp < 0 { "-" } else { "" };
    let a = cp.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

impl fmt::Display for Breakdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{:<14} {:>15}  {:>15}  {:>15}  {:>7}",
            "", "White", "Black", "White - Black", ""
        )?;
        writeln!(
            f,
            "{:<14} {:>7} {:>7}  {:>7} {:>7}  {:>7} {:>7}  {:>7}",
            "term", "mg", "eg", "mg", "eg", "mg", "eg", "total"
        )?;
        for r in &self.rows {
            let d = r.diff();
            writeln!(
                f,
                "{:<14} {:>7} {:>7}  {:>7} {:>7}  {:>7} {:>7}  {:>7}",
                r.name(),
                pawns(r.white.mg),
                pawns(r.white.eg),
                pawns(r.black.mg),
                pawns(r.black.eg),
                pawns(d.mg),
                pawns(d.eg),
                pawns(r.total)
            )?;
        }
        writeln!(
            f,
            "{:<14} {:>15}  {:>15}  {:>7} {:>7}  {:>7}",
            "sum",
            "",
            "",
            pawns(self.total.mg),
            pawns(self.total.eg),
            pawns(self.tapered)
        )?;
        writeln!(
            f,
            "phase {}/{} (middle game {}%), draw scale {}/{}",
            self.phase,
            PHASE_MAX,
            self.phase * 100 / PHASE_MAX,
            self.scale,
            SCALE_MAX
        )?;
        let p = &self.params;
        writeln!(
            f,
            "knobs: asymmetry {} bscale {} kscale {} tropism {} pscale {} ppscale {}",
            p.asymmetry, p.bscale, p.kscale, p.tropism, p.pscale, p.ppscale
        )?;
        write!(
            f,
            "score {} (White's point of view; {} for {} to move)",
            pawns(self.score),
            pawns(self.stm_score()),
            self.side_to_move.name()
        )
    }
}
