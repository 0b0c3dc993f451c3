//! The piece-square lookup built from the diagrams of `weights.rs`: one table per
//! colour, so the evaluation never flips a square at run time.

use super::params::psqt_index;
use super::score::S;
use super::weights::*;
use crate::chess::{Color, Square};

/// The diagrams in piece-type order (pawn, knight, bishop, rook, queen, king).
pub const DIAGRAMS: [&[S; 64]; 6] = [
    &PSQT_PAWN,
    &PSQT_KNIGHT,
    &PSQT_BISHOP,
    &PSQT_ROOK,
    &PSQT_QUEEN,
    &PSQT_KING,
];

const fn build() -> [[[S; 64]; 6]; 2] {
    let mut out = [[[S::ZERO; 64]; 6]; 2];
    let mut k = 0;
    while k < 6 {
        let mut sq = 0;
        while sq < 64 {
            out[0][k][sq] = DIAGRAMS[k][psqt_index(0, sq)];
            out[1][k][sq] = DIAGRAMS[k][psqt_index(1, sq)];
            sq += 1;
        }
        k += 1;
    }
    out
}

static PSQT: [[[S; 64]; 6]; 2] = build();

/// Piece-square value of a piece of `c` and type index `kind` on `sq`.
#[inline(always)]
pub fn psqt(c: Color, kind: usize, sq: Square) -> S {
    PSQT[c.index()][kind][sq.index()]
}
