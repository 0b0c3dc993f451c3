//! The tunable weights of the evaluation, in centipawns, as (middle game, end game)
//! pairs (`i32` where a term is middle game only). `src/eval/params.rs` lists them for
//! the tuner, which writes this file (`kibitzer tune run ... --write`); a hand edit is
//! fine, the next tuning starts from it.
//!
//! Origin: kibitzer's own hand-set values, before any tuning.

use super::score::{s, S};

/// Material per piece type (pawn, knight, bishop, rook, queen, king).
#[rustfmt::skip]
pub const MATERIAL: [S; 6] = [
    s(100, 120), s(325, 320), s(335, 335), s(500, 540), s(975, 1010), s(0, 0),
];

/// The side to move's bonus.
pub const TEMPO: S = s(12, 6);

/// Piece-square values of the pawn, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_PAWN: [S; 64] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    s(12, 30), s(16, 30), s(20, 30), s(24, 30), s(24, 30), s(20, 30), s(16, 30), s(12, 30),
    s(4, 20), s(8, 20), s(12, 20), s(18, 20), s(18, 20), s(12, 20), s(8, 20), s(4, 20),
    s(0, 12), s(3, 12), s(8, 12), s(16, 12), s(16, 12), s(8, 12), s(3, 12), s(0, 12),
    s(-2, 6), s(0, 6), s(6, 6), s(14, 6), s(14, 6), s(6, 6), s(0, 6), s(-2, 6),
    s(-3, 2), s(-1, 2), s(3, 2), s(6, 2), s(6, 2), s(3, 2), s(-1, 2), s(-3, 2),
    s(-4, 0), s(-2, 0), s(-1, 0), s(-8, 0), s(-8, 0), s(-1, 0), s(-2, 0), s(-4, 0),
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
];

/// Piece-square values of the knight, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KNIGHT: [S; 64] = [
    s(-50, -40), s(-30, -25), s(-20, -15), s(-15, -10), s(-15, -10), s(-20, -15), s(-30, -25), s(-50, -40),
    s(-25, -25), s(-10, -10), s(0, -2), s(5, 3), s(5, 3), s(0, -2), s(-10, -10), s(-25, -25),
    s(-15, -15), s(5, -2), s(12, 8), s(18, 12), s(18, 12), s(12, 8), s(5, -2), s(-15, -15),
    s(-10, -10), s(5, 3), s(15, 12), s(20, 16), s(20, 16), s(15, 12), s(5, 3), s(-10, -10),
    s(-12, -10), s(0, 3), s(12, 12), s(16, 16), s(16, 16), s(12, 12), s(0, 3), s(-12, -10),
    s(-18, -15), s(-2, -2), s(8, 8), s(10, 12), s(10, 12), s(8, 8), s(-2, -2), s(-18, -15),
    s(-25, -25), s(-12, -10), s(-4, -2), s(0, 3), s(0, 3), s(-4, -2), s(-12, -10), s(-25, -25),
    s(-45, -40), s(-22, -25), s(-18, -15), s(-15, -10), s(-15, -10), s(-18, -15), s(-22, -25), s(-45, -40),
];

/// Piece-square values of the bishop, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_BISHOP: [S; 64] = [
    s(-15, -12), s(-8, -8), s(-10, -6), s(-10, -4), s(-10, -4), s(-10, -6), s(-8, -8), s(-15, -12),
    s(-8, -8), s(0, -2), s(0, 0), s(0, 2), s(0, 2), s(0, 0), s(0, -2), s(-8, -8),
    s(-6, -6), s(4, 0), s(6, 4), s(6, 6), s(6, 6), s(6, 4), s(4, 0), s(-6, -6),
    s(-4, -4), s(6, 2), s(6, 6), s(10, 8), s(10, 8), s(6, 6), s(6, 2), s(-4, -4),
    s(-4, -4), s(4, 2), s(10, 6), s(12, 8), s(12, 8), s(10, 6), s(4, 2), s(-4, -4),
    s(-2, -6), s(8, 0), s(8, 4), s(8, 6), s(8, 6), s(8, 4), s(8, 0), s(-2, -6),
    s(-4, -8), s(10, -2), s(4, 0), s(4, 2), s(4, 2), s(4, 0), s(10, -2), s(-4, -8),
    s(-15, -12), s(-6, -8), s(-8, -6), s(-8, -4), s(-8, -4), s(-8, -6), s(-6, -8), s(-15, -12),
];

/// Piece-square values of the rook, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_ROOK: [S; 64] = [
    s(4, 4), s(6, 4), s(8, 4), s(10, 4), s(10, 4), s(8, 4), s(6, 4), s(4, 4),
    s(12, 8), s(16, 10), s(18, 10), s(20, 10), s(20, 10), s(18, 10), s(16, 10), s(12, 8),
    s(-4, 0), s(0, 0), s(2, 0), s(4, 0), s(4, 0), s(2, 0), s(0, 0), s(-4, 0),
    s(-6, -2), s(-2, 0), s(0, 0), s(2, 0), s(2, 0), s(0, 0), s(-2, 0), s(-6, -2),
    s(-6, -2), s(-2, 0), s(0, 0), s(2, 0), s(2, 0), s(0, 0), s(-2, 0), s(-6, -2),
    s(-6, -2), s(-2, 0), s(0, 0), s(2, 0), s(2, 0), s(0, 0), s(-2, 0), s(-6, -2),
    s(-8, -4), s(-4, -2), s(0, -2), s(2, -2), s(2, -2), s(0, -2), s(-4, -2), s(-8, -4),
    s(-4, -4), s(-2, -2), s(2, 0), s(6, 0), s(6, 0), s(4, 0), s(-2, -2), s(-4, -4),
];

/// Piece-square values of the queen, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_QUEEN: [S; 64] = [
    s(-15, -20), s(-10, -12), s(-8, -10), s(-5, -6), s(-5, -6), s(-8, -10), s(-10, -12), s(-15, -20),
    s(-10, -12), s(-5, -4), s(0, 0), s(0, 2), s(0, 2), s(0, 0), s(-5, -4), s(-10, -12),
    s(-8, -10), s(0, 0), s(3, 6), s(4, 8), s(4, 8), s(3, 6), s(0, 0), s(-8, -10),
    s(-5, -6), s(0, 2), s(4, 8), s(5, 12), s(5, 12), s(4, 8), s(0, 2), s(-5, -6),
    s(-5, -6), s(0, 2), s(4, 8), s(5, 12), s(5, 12), s(4, 8), s(0, 2), s(-5, -6),
    s(-8, -10), s(2, 0), s(3, 6), s(3, 8), s(3, 8), s(3, 6), s(0, 0), s(-8, -10),
    s(-10, -12), s(-2, -4), s(2, 0), s(2, 2), s(2, 2), s(0, 0), s(-2, -4), s(-10, -12),
    s(-15, -20), s(-10, -12), s(-6, -10), s(0, -6), s(-4, -6), s(-8, -10), s(-10, -12), s(-15, -20),
];

/// Piece-square values of the king, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KING: [S; 64] = [
    s(-60, -50), s(-60, -30), s(-60, -20), s(-60, -15), s(-60, -15), s(-60, -20), s(-60, -30), s(-60, -50),
    s(-50, -25), s(-50, -5), s(-50, 5), s(-50, 10), s(-50, 10), s(-50, 5), s(-50, -5), s(-50, -25),
    s(-45, -15), s(-45, 8), s(-45, 20), s(-45, 25), s(-45, 25), s(-45, 20), s(-45, 8), s(-45, -15),
    s(-40, -12), s(-40, 10), s(-40, 25), s(-45, 32), s(-45, 32), s(-40, 25), s(-40, 10), s(-40, -12),
    s(-30, -15), s(-35, 5), s(-35, 20), s(-40, 28), s(-40, 28), s(-35, 20), s(-35, 5), s(-30, -15),
    s(-15, -20), s(-20, -2), s(-25, 10), s(-30, 15), s(-30, 15), s(-25, 10), s(-20, -2), s(-15, -20),
    s(5, -30), s(5, -12), s(-10, -2), s(-20, 2), s(-20, 2), s(-10, -2), s(5, -12), s(5, -30),
    s(20, -50), s(30, -35), s(10, -25), s(-10, -20), s(0, -20), s(-5, -25), s(30, -35), s(20, -50),
];

/// A pawn with an own pawn in front of it on its file.
pub const DOUBLED: S = s(-12, -24);

/// A pawn with no own pawn on the adjacent files.
pub const ISOLATED: S = s(-10, -14);

/// Extra for an isolated pawn with no enemy pawn in front.
pub const ISOLATED_OPEN: S = s(-10, -4);

/// A backward pawn (no neighbour level or behind, stop square held).
pub const BACKWARD: S = s(-8, -10);

/// Extra for a backward pawn with no enemy pawn in front.
pub const BACKWARD_OPEN: S = s(-8, -2);

/// A defended or side-by-side pawn, by relative rank.
#[rustfmt::skip]
pub const CONNECTED: [S; 8] = [
    s(0, 0), s(4, 0), s(6, 3), s(9, 6), s(16, 14), s(28, 26), s(45, 45), s(0, 0),
];

/// Extra for a pawn with a neighbour beside it, by relative rank.
#[rustfmt::skip]
pub const PHALANX: [S; 8] = [
    s(0, 0), s(2, 0), s(3, 1), s(4, 3), s(8, 7), s(14, 13), s(22, 22), s(0, 0),
];

/// A candidate passed pawn (half-open file, enough helpers), by relative rank.
#[rustfmt::skip]
pub const CANDIDATE: [S; 8] = [
    s(0, 0), s(4, 6), s(5, 9), s(9, 15), s(16, 26), s(28, 44), s(0, 0), s(0, 0),
];

/// Own pawn nearest in front of the king on a file, by ranks ahead (5: none); middle game.
#[rustfmt::skip]
pub const SHIELD: [i32; 6] = [
    0, 0, -8, -20, -28, -35,
];

/// Extra for no own pawn on the king's own file; middle game.
pub const SHIELD_OPEN_KING_FILE: i32 = -15;

/// Nearest enemy pawn on a shelter file, by ranks ahead of the king; middle game.
#[rustfmt::skip]
pub const STORM: [i32; 8] = [
    0, -5, -28, -16, -6, 0, 0, 0,
];

/// The same when an own pawn blocks it; middle game.
#[rustfmt::skip]
pub const STORM_BLOCKED: [i32; 8] = [
    0, 0, -6, -4, 0, 0, 0, 0,
];

/// King danger by attack units (subtracted from the attacked side).
#[rustfmt::skip]
pub const KING_DANGER: [S; 64] = [
    s(0, 0), s(0, 0), s(1, 0), s(3, 0), s(6, 0), s(10, 1), s(14, 1), s(19, 2),
    s(25, 3), s(32, 4), s(40, 5), s(48, 6), s(57, 7), s(67, 8), s(78, 9), s(90, 11),
    s(102, 12), s(115, 14), s(129, 16), s(144, 18), s(160, 20), s(176, 22), s(193, 24), s(211, 26),
    s(230, 28), s(250, 31), s(270, 33), s(291, 36), s(313, 39), s(336, 42), s(360, 45), s(384, 48),
    s(409, 51), s(435, 54), s(462, 57), s(490, 61), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
];

/// A knight near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_KNIGHT: [S; 8] = [
    s(0, 0), s(12, 0), s(10, 0), s(7, 0), s(4, 0), s(2, 0), s(0, 0), s(0, 0),
];

/// A bishop near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_BISHOP: [S; 8] = [
    s(0, 0), s(6, 0), s(5, 0), s(3, 0), s(2, 0), s(1, 0), s(0, 0), s(0, 0),
];

/// A rook near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_ROOK: [S; 8] = [
    s(0, 0), s(8, 0), s(6, 0), s(4, 0), s(2, 0), s(1, 0), s(0, 0), s(0, 0),
];

/// A queen near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_QUEEN: [S; 8] = [
    s(0, 0), s(14, 0), s(10, 0), s(6, 0), s(3, 0), s(1, 0), s(0, 0), s(0, 0),
];

/// Mobility of a knight by safe squares reached.
#[rustfmt::skip]
pub const MOB_KNIGHT: [S; 9] = [
    s(-38, -45), s(-25, -30), s(-12, -15), s(-4, -5), s(2, 3), s(8, 10), s(13, 15), s(17, 18),
    s(20, 20),
];

/// Mobility of a bishop by safe squares reached.
#[rustfmt::skip]
pub const MOB_BISHOP: [S; 14] = [
    s(-30, -40), s(-18, -24), s(-8, -12), s(0, -2), s(6, 6), s(12, 13), s(17, 19), s(21, 24),
    s(25, 28), s(28, 32), s(31, 35), s(33, 37), s(35, 39), s(36, 40),
];

/// Mobility of a rook by safe squares reached.
#[rustfmt::skip]
pub const MOB_ROOK: [S; 15] = [
    s(-20, -40), s(-12, -25), s(-6, -12), s(-2, -2), s(1, 6), s(4, 14), s(7, 21), s(10, 27),
    s(12, 33), s(14, 38), s(16, 42), s(17, 46), s(18, 49), s(19, 51), s(20, 53),
];

/// Mobility of a queen by safe squares reached.
#[rustfmt::skip]
pub const MOB_QUEEN: [S; 28] = [
    s(-15, -30), s(-10, -20), s(-6, -12), s(-3, -6), s(-1, -2), s(0, 1), s(2, 4), s(3, 7),
    s(4, 10), s(5, 12), s(6, 14), s(7, 16), s(8, 18), s(9, 20), s(10, 22), s(11, 23),
    s(12, 24), s(12, 25), s(13, 26), s(13, 27), s(14, 28), s(14, 29), s(15, 30), s(15, 31),
    s(16, 32), s(16, 32), s(17, 33), s(17, 33),
];

/// A knight on an outpost.
pub const KNIGHT_OUTPOST: S = s(12, 6);

/// A knight on an outpost defended by a pawn.
pub const KNIGHT_OUTPOST_SUPPORTED: S = s(28, 12);

/// A bishop on an outpost defended by a pawn.
pub const BISHOP_OUTPOST_SUPPORTED: S = s(14, 5);

/// Both bishops.
pub const BISHOP_PAIR: S = s(30, 55);

/// A rook on an open file.
pub const ROOK_OPEN_FILE: S = s(38, 14);

/// A rook on a half-open file.
pub const ROOK_HALF_OPEN_FILE: S = s(18, 8);

/// A rook on the seventh rank.
pub const ROOK_SEVENTH: S = s(22, 36);

/// A rook shut in by its own king.
pub const ROOK_TRAPPED: S = s(-40, -8);

/// Own d/e pawn on its second rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN: S = s(-22, 0);

/// Own d/e pawn on its third rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN_3: S = s(-8, 0);

/// Per bishop: each own blocked pawn on the bishop's square colour.
pub const BAD_BISHOP_PAWN: S = s(-4, -7);

/// An enemy piece attacked by a pawn.
pub const THREAT_BY_PAWN: S = s(45, 35);

/// An enemy rook or queen attacked by a minor piece.
pub const THREAT_MINOR_ON_MAJOR: S = s(25, 20);

/// An enemy piece attacked and not defended.
pub const HANGING: S = s(18, 12);

/// A passed pawn, by relative rank.
#[rustfmt::skip]
pub const PASSED: [S; 8] = [
    s(0, 0), s(5, 10), s(8, 15), s(16, 28), s(30, 50), s(55, 85), s(90, 135), s(0, 0),
];

/// Per square of the enemy king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_THEIRS: [S; 8] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, 3), s(0, 9), s(0, 15), s(0, 21), s(0, 0),
];

/// Per square of the own king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_OWN: [S; 8] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, -1), s(0, -3), s(0, -5), s(0, -7), s(0, 0),
];

/// No enemy piece or attack on the path to promotion, by rank.
#[rustfmt::skip]
pub const PASSED_FREE_PATH: [S; 8] = [
    s(0, 0), s(0, 0), s(0, 0), s(2, 6), s(6, 18), s(10, 30), s(14, 42), s(0, 0),
];

/// The stop square free and safe (rest of the path not), by rank.
#[rustfmt::skip]
pub const PASSED_SAFE_PUSH: [S; 8] = [
    s(0, 0), s(0, 0), s(0, 0), s(1, 3), s(3, 9), s(5, 15), s(7, 21), s(0, 0),
];

/// A passed pawn with a passed neighbour next to it, by rank.
#[rustfmt::skip]
pub const PASSED_CONNECTED: [S; 8] = [
    s(4, 8), s(4, 8), s(4, 8), s(7, 14), s(13, 26), s(19, 38), s(25, 50), s(4, 8),
];
