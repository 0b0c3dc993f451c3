//! Every number of the evaluation, in centipawns, as (middle game, end game) pairs.
//! These are kibitzer's own hand-set values, in the spirit of a Crafty-class engine;
//! the piece-square tables are written as diagrams seen from White (rank 8 on top).

use super::score::{s, S};
use crate::chess::{Color, Square};

/// Piece values in centipawns (pawn, knight, bishop, rook, queen, king), middle-game
/// flavoured; for the search's delta pruning and move ordering. The king is 0.
pub const PIECE_VALUES: [i32; 6] = [100, 325, 335, 500, 975, 0];

/// Material per piece type.
pub const MATERIAL: [S; 6] = [
    s(100, 120),
    s(325, 320),
    s(335, 335),
    s(500, 540),
    s(975, 1010),
    s(0, 0),
];

/// Game phase: knights and bishops 1, rooks 2, queens 4; 24 is the full middle game.
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const PHASE_MAX: i32 = 24;

pub const TEMPO: S = s(12, 6);

// ----- piece-square tables (White's view, rank 8 first) ---------------------------

#[rustfmt::skip]
const PAWN_MG: [i32; 64] = [
      0,   0,   0,   0,   0,   0,   0,   0,
     12,  16,  20,  24,  24,  20,  16,  12,
      4,   8,  12,  18,  18,  12,   8,   4,
      0,   3,   8,  16,  16,   8,   3,   0,
     -2,   0,   6,  14,  14,   6,   0,  -2,
     -3,  -1,   3,   6,   6,   3,  -1,  -3,
     -4,  -2,  -1,  -8,  -8,  -1,  -2,  -4,
      0,   0,   0,   0,   0,   0,   0,   0,
];
#[rustfmt::skip]
const PAWN_EG: [i32; 64] = [
      0,   0,   0,   0,   0,   0,   0,   0,
     30,  30,  30,  30,  30,  30,  30,  30,
     20,  20,  20,  20,  20,  20,  20,  20,
     12,  12,  12,  12,  12,  12,  12,  12,
      6,   6,   6,   6,   6,   6,   6,   6,
      2,   2,   2,   2,   2,   2,   2,   2,
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   0,   0,   0,   0,   0,   0,   0,
];
#[rustfmt::skip]
const KNIGHT_MG: [i32; 64] = [
    -50, -30, -20, -15, -15, -20, -30, -50,
    -25, -10,   0,   5,   5,   0, -10, -25,
    -15,   5,  12,  18,  18,  12,   5, -15,
    -10,   5,  15,  20,  20,  15,   5, -10,
    -12,   0,  12,  16,  16,  12,   0, -12,
    -18,  -2,   8,  10,  10,   8,  -2, -18,
    -25, -12,  -4,   0,   0,  -4, -12, -25,
    -45, -22, -18, -15, -15, -18, -22, -45,
];
#[rustfmt::skip]
const KNIGHT_EG: [i32; 64] = [
    -40, -25, -15, -10, -10, -15, -25, -40,
    -25, -10,  -2,   3,   3,  -2, -10, -25,
    -15,  -2,   8,  12,  12,   8,  -2, -15,
    -10,   3,  12,  16,  16,  12,   3, -10,
    -10,   3,  12,  16,  16,  12,   3, -10,
    -15,  -2,   8,  12,  12,   8,  -2, -15,
    -25, -10,  -2,   3,   3,  -2, -10, -25,
    -40, -25, -15, -10, -10, -15, -25, -40,
];
#[rustfmt::skip]
const BISHOP_MG: [i32; 64] = [
    -15,  -8, -10, -10, -10, -10,  -8, -15,
     -8,   0,   0,   0,   0,   0,   0,  -8,
     -6,   4,   6,   6,   6,   6,   4,  -6,
     -4,   6,   6,  10,  10,   6,   6,  -4,
     -4,   4,  10,  12,  12,  10,   4,  -4,
     -2,   8,   8,   8,   8,   8,   8,  -2,
     -4,  10,   4,   4,   4,   4,  10,  -4,
    -15,  -6,  -8,  -8,  -8,  -8,  -6, -15,
];
#[rustfmt::skip]
const BISHOP_EG: [i32; 64] = [
    -12,  -8,  -6,  -4,  -4,  -6,  -8, -12,
     -8,  -2,   0,   2,   2,   0,  -2,  -8,
     -6,   0,   4,   6,   6,   4,   0,  -6,
     -4,   2,   6,   8,   8,   6,   2,  -4,
     -4,   2,   6,   8,   8,   6,   2,  -4,
     -6,   0,   4,   6,   6,   4,   0,  -6,
     -8,  -2,   0,   2,   2,   0,  -2,  -8,
    -12,  -8,  -6,  -4,  -4,  -6,  -8, -12,
];
#[rustfmt::skip]
const ROOK_MG: [i32; 64] = [
      4,   6,   8,  10,  10,   8,   6,   4,
     12,  16,  18,  20,  20,  18,  16,  12,
     -4,   0,   2,   4,   4,   2,   0,  -4,
     -6,  -2,   0,   2,   2,   0,  -2,  -6,
     -6,  -2,   0,   2,   2,   0,  -2,  -6,
     -6,  -2,   0,   2,   2,   0,  -2,  -6,
     -8,  -4,   0,   2,   2,   0,  -4,  -8,
     -4,  -2,   2,   6,   6,   4,  -2,  -4,
];
#[rustfmt::skip]
const ROOK_EG: [i32; 64] = [
      4,   4,   4,   4,   4,   4,   4,   4,
      8,  10,  10,  10,  10,  10,  10,   8,
      0,   0,   0,   0,   0,   0,   0,   0,
     -2,   0,   0,   0,   0,   0,   0,  -2,
     -2,   0,   0,   0,   0,   0,   0,  -2,
     -2,   0,   0,   0,   0,   0,   0,  -2,
     -4,  -2,  -2,  -2,  -2,  -2,  -2,  -4,
     -4,  -2,   0,   0,   0,   0,  -2,  -4,
];
#[rustfmt::skip]
const QUEEN_MG: [i32; 64] = [
    -15, -10,  -8,  -5,  -5,  -8, -10, -15,
    -10,  -5,   0,   0,   0,   0,  -5, -10,
     -8,   0,   3,   4,   4,   3,   0,  -8,
     -5,   0,   4,   5,   5,   4,   0,  -5,
     -5,   0,   4,   5,   5,   4,   0,  -5,
     -8,   2,   3,   3,   3,   3,   0,  -8,
    -10,  -2,   2,   2,   2,   0,  -2, -10,
    -15, -10,  -6,   0,  -4,  -8, -10, -15,
];
#[rustfmt::skip]
const QUEEN_EG: [i32; 64] = [
    -20, -12, -10,  -6,  -6, -10, -12, -20,
    -12,  -4,   0,   2,   2,   0,  -4, -12,
    -10,   0,   6,   8,   8,   6,   0, -10,
     -6,   2,   8,  12,  12,   8,   2,  -6,
     -6,   2,   8,  12,  12,   8,   2,  -6,
    -10,   0,   6,   8,   8,   6,   0, -10,
    -12,  -4,   0,   2,   2,   0,  -4, -12,
    -20, -12, -10,  -6,  -6, -10, -12, -20,
];
#[rustfmt::skip]
const KING_MG: [i32; 64] = [
    -60, -60, -60, -60, -60, -60, -60, -60,
    -50, -50, -50, -50, -50, -50, -50, -50,
    -45, -45, -45, -45, -45, -45, -45, -45,
    -40, -40, -40, -45, -45, -40, -40, -40,
    -30, -35, -35, -40, -40, -35, -35, -30,
    -15, -20, -25, -30, -30, -25, -20, -15,
      5,   5, -10, -20, -20, -10,   5,   5,
     20,  30,  10, -10,   0,  -5,  30,  20,
];
#[rustfmt::skip]
const KING_EG: [i32; 64] = [
    -50, -30, -20, -15, -15, -20, -30, -50,
    -25,  -5,   5,  10,  10,   5,  -5, -25,
    -15,   8,  20,  25,  25,  20,   8, -15,
    -12,  10,  25,  32,  32,  25,  10, -12,
    -15,   5,  20,  28,  28,  20,   5, -15,
    -20,  -2,  10,  15,  15,  10,  -2, -20,
    -30, -12,  -2,   2,   2,  -2, -12, -30,
    -50, -35, -25, -20, -20, -25, -35, -50,
];

const fn build_psqt() -> [[[S; 64]; 6]; 2] {
    let tables: [(&[i32; 64], &[i32; 64]); 6] = [
        (&PAWN_MG, &PAWN_EG),
        (&KNIGHT_MG, &KNIGHT_EG),
        (&BISHOP_MG, &BISHOP_EG),
        (&ROOK_MG, &ROOK_EG),
        (&QUEEN_MG, &QUEEN_EG),
        (&KING_MG, &KING_EG),
    ];
    let mut out = [[[S::ZERO; 64]; 6]; 2];
    let mut k = 0;
    while k < 6 {
        let (mg, eg) = tables[k];
        let mut sq = 0;
        while sq < 64 {
            // The diagrams list rank 8 first, so a White square's row is flipped;
            // Black sees the board the other way round, which undoes the flip.
            let w = sq ^ 56;
            out[0][k][sq] = s(mg[w], eg[w]);
            out[1][k][sq] = s(mg[sq], eg[sq]);
            sq += 1;
        }
        k += 1;
    }
    out
}

static PSQT: [[[S; 64]; 6]; 2] = build_psqt();

/// Piece-square value of a piece of `c` and type index `kind` on `sq`.
#[inline(always)]
pub fn psqt(c: Color, kind: usize, sq: Square) -> S {
    PSQT[c.index()][kind][sq.index()]
}

// ----- pawn structure (cached in the pawn hash) --------------------------------------

pub const DOUBLED: S = s(-12, -24);
pub const ISOLATED: S = s(-10, -14);
pub const ISOLATED_OPEN: S = s(-10, -4);
pub const BACKWARD: S = s(-8, -10);
pub const BACKWARD_OPEN: S = s(-8, -2);
/// Connected (defended or side by side) pawns, by relative rank.
pub const CONNECTED: [S; 8] = [
    s(0, 0),
    s(4, 0),
    s(6, 3),
    s(9, 6),
    s(16, 14),
    s(28, 26),
    s(45, 45),
    s(0, 0),
];
/// Candidate passed pawns (half-open file, enough helpers), by relative rank.
pub const CANDIDATE: [S; 8] = [
    s(0, 0),
    s(4, 6),
    s(5, 9),
    s(9, 15),
    s(16, 26),
    s(28, 44),
    s(0, 0),
    s(0, 0),
];

// ----- king shelter and storm (mg, per file of the king and its neighbours) ---------

/// Own pawn nearest in front of the king on a file, by ranks ahead of the king
/// (0 and 1: right beside or in front); index 5 = no pawn on that file.
pub const SHIELD: [i32; 6] = [0, 0, -8, -20, -28, -35];
/// Extra penalty for no own pawn at all on the king's own file.
pub const SHIELD_OPEN_KING_FILE: i32 = -15;
/// Nearest enemy pawn on the file, by ranks ahead of the king; unblocked / blocked.
pub const STORM: [i32; 8] = [0, -5, -28, -16, -6, 0, 0, 0];
pub const STORM_BLOCKED: [i32; 8] = [0, 0, -6, -4, 0, 0, 0, 0];

// ----- king attack (attack units -> centipawns) ------------------------------------

/// Attack weight of a piece type hitting the king zone.
pub const ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];
/// Units for a safe check by a piece type.
pub const SAFE_CHECK: [i32; 6] = [0, 4, 3, 5, 6, 0];
pub const KING_DANGER_SIZE: usize = 64;

const fn king_danger_table() -> [i32; KING_DANGER_SIZE] {
    let mut t = [0i32; KING_DANGER_SIZE];
    let mut i = 0;
    while i < KING_DANGER_SIZE {
        let v = (i * i * 2 / 5) as i32;
        t[i] = if v > 500 { 500 } else { v };
        i += 1;
    }
    t
}

/// Middle-game king danger in centipawns by attack units; the end-game part is an
/// eighth of it.
pub static KING_DANGER: [i32; KING_DANGER_SIZE] = king_danger_table();

// ----- tropism (mg, by king distance 0..7) ------------------------------------------

pub const TROPISM: [[i32; 8]; 6] = [
    [0; 8],
    [0, 12, 10, 7, 4, 2, 0, 0],
    [0, 6, 5, 3, 2, 1, 0, 0],
    [0, 8, 6, 4, 2, 1, 0, 0],
    [0, 14, 10, 6, 3, 1, 0, 0],
    [0; 8],
];

// ----- mobility (squares not held by own pawns or king, not hit by enemy pawns) ------

#[rustfmt::skip]
pub const MOB_KNIGHT: [S; 9] = [
    s(-38, -45), s(-25, -30), s(-12, -15), s(-4, -5), s(2, 3),
    s(8, 10), s(13, 15), s(17, 18), s(20, 20),
];
#[rustfmt::skip]
pub const MOB_BISHOP: [S; 14] = [
    s(-30, -40), s(-18, -24), s(-8, -12), s(0, -2), s(6, 6), s(12, 13), s(17, 19),
    s(21, 24), s(25, 28), s(28, 32), s(31, 35), s(33, 37), s(35, 39), s(36, 40),
];
#[rustfmt::skip]
pub const MOB_ROOK: [S; 15] = [
    s(-20, -40), s(-12, -25), s(-6, -12), s(-2, -2), s(1, 6), s(4, 14), s(7, 21), s(10, 27),
    s(12, 33), s(14, 38), s(16, 42), s(17, 46), s(18, 49), s(19, 51), s(20, 53),
];
#[rustfmt::skip]
pub const MOB_QUEEN: [S; 28] = [
    s(-15, -30), s(-10, -20), s(-6, -12), s(-3, -6), s(-1, -2), s(0, 1), s(2, 4),
    s(3, 7), s(4, 10), s(5, 12), s(6, 14), s(7, 16), s(8, 18), s(9, 20),
    s(10, 22), s(11, 23), s(12, 24), s(12, 25), s(13, 26), s(13, 27), s(14, 28),
    s(14, 29), s(15, 30), s(15, 31), s(16, 32), s(16, 32), s(17, 33), s(17, 33),
];

// ----- pieces -----------------------------------------------------------------------

pub const KNIGHT_OUTPOST: S = s(12, 6);
pub const KNIGHT_OUTPOST_SUPPORTED: S = s(28, 12);
pub const BISHOP_OUTPOST_SUPPORTED: S = s(14, 5);
pub const BISHOP_PAIR: S = s(30, 55);
pub const ROOK_OPEN_FILE: S = s(38, 14);
pub const ROOK_HALF_OPEN_FILE: S = s(18, 8);
pub const ROOK_SEVENTH: S = s(22, 36);
pub const ROOK_TRAPPED: S = s(-40, -8);

// ----- blocked pawns (bscale) -----------------------------------------------------------

/// Own d/e pawn still on its second rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN: S = s(-22, 0);
/// Own d/e pawn on its third rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN_3: S = s(-8, 0);
/// Per bishop: each own blocked pawn standing on the bishop's square colour.
pub const BAD_BISHOP_PAWN: S = s(-4, -7);

// ----- passed pawns (ppscale) -------------------------------------------------------

pub const PASSED: [S; 8] = [
    s(0, 0),
    s(5, 10),
    s(8, 15),
    s(16, 28),
    s(30, 50),
    s(55, 85),
    s(90, 135),
    s(0, 0),
];
/// Multiplier by relative rank for the king-distance and free-path terms.
pub const PASSED_RANK_FACTOR: [i32; 8] = [0, 0, 0, 1, 3, 5, 7, 0];
pub const UNSTOPPABLE: i32 = 600;

// ----- threats ------------------------------------------------------------------------

pub const THREAT_BY_PAWN: S = s(45, 35);
pub const THREAT_MINOR_ON_MAJOR: S = s(25, 20);
pub const HANGING: S = s(18, 12);
