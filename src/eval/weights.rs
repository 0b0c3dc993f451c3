//! The tunable weights of the evaluation, in centipawns, as (middle game, end game)
//! pairs (`i32` where a term is middle game only). `src/eval/params.rs` lists them for
//! the tuner, which writes this file (`kibitzer tune run ... --write`); a hand edit is
//! fine, the next tuning starts from it.
//!
//! Origin: produced by `kibitzer tune` (1200 epochs of Adam, rate 1, L2 1e-8) from 1143945
//! quiet positions (masters30.txt); K = 0.7911, mean squared error 0.095523 -> 0.092232.

use super::score::{s, S};

/// Material per piece type (pawn, knight, bishop, rook, queen, king).
#[rustfmt::skip]
pub const MATERIAL: [S; 6] = [
    s(56, 130), s(305, 340), s(315, 362), s(455, 588), s(986, 1044), s(0, 0),
];

/// The side to move's bonus.
pub const TEMPO: S = s(12, 6);

/// Piece-square values of the pawn, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_PAWN: [S; 64] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    s(10, 24), s(16, 32), s(22, 34), s(27, 31), s(26, 33), s(23, 34), s(14, 29), s(10, 29),
    s(11, 22), s(5, 26), s(8, 19), s(29, 24), s(25, 23), s(27, 28), s(11, 24), s(7, 31),
    s(4, 32), s(0, 10), s(-10, 11), s(7, 3), s(25, 0), s(16, 14), s(9, 10), s(6, 13),
    s(-1, 7), s(-7, 17), s(0, -2), s(5, -5), s(12, -6), s(12, -6), s(3, 4), s(1, -3),
    s(-17, 1), s(-7, 4), s(-16, -8), s(-10, -7), s(-3, 0), s(-1, 1), s(-3, 1), s(-19, -12),
    s(-4, 8), s(-5, 11), s(-7, 6), s(1, -2), s(1, 17), s(7, 15), s(10, 1), s(-21, -8),
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
];

/// Piece-square values of the knight, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KNIGHT: [S; 64] = [
    s(-53, -41), s(-29, -23), s(-19, -13), s(-14, -10), s(-15, -9), s(-20, -13), s(-30, -25), s(-51, -39),
    s(-22, -20), s(-10, -9), s(3, 0), s(9, 9), s(9, 5), s(4, 1), s(-7, -8), s(-24, -23),
    s(-12, -12), s(3, -3), s(17, 11), s(28, 14), s(18, 14), s(19, 11), s(7, 0), s(-13, -14),
    s(-3, -6), s(-10, 1), s(10, 8), s(15, 19), s(1, 18), s(17, 17), s(10, 6), s(-5, -7),
    s(-18, -11), s(4, 6), s(4, 10), s(1, 13), s(13, 15), s(15, 15), s(11, 7), s(-3, -8),
    s(-19, -19), s(-17, -4), s(-12, 2), s(10, 12), s(13, 15), s(1, -2), s(5, -3), s(-8, -13),
    s(-25, -25), s(-13, -8), s(-7, -6), s(-12, -6), s(-4, -3), s(-9, -5), s(-10, -11), s(-16, -25),
    s(-46, -39), s(-22, -28), s(-29, -20), s(-9, -7), s(-6, -6), s(-22, -18), s(-19, -24), s(-45, -39),
];

/// Piece-square values of the bishop, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_BISHOP: [S; 64] = [
    s(-17, -13), s(-10, -10), s(-10, -4), s(-11, -3), s(-10, -3), s(-11, -8), s(-8, -8), s(-16, -13),
    s(-7, -8), s(-4, -2), s(1, 2), s(1, 4), s(-1, 1), s(-1, -1), s(-5, -3), s(-11, -8),
    s(-3, -3), s(6, 1), s(7, 2), s(8, 5), s(9, 7), s(11, 7), s(6, 4), s(3, 0),
    s(-5, -3), s(2, 4), s(3, 8), s(18, 11), s(6, 8), s(16, 11), s(3, 5), s(-6, -4),
    s(3, -3), s(5, 2), s(1, 11), s(15, 9), s(18, 11), s(-3, 3), s(-3, 1), s(12, -5),
    s(-5, -10), s(13, 4), s(9, 8), s(2, 5), s(5, 15), s(3, 1), s(12, -4), s(1, -3),
    s(6, -6), s(-6, -12), s(13, 1), s(-11, 6), s(-9, 2), s(4, -4), s(19, -3), s(-5, -11),
    s(-16, -15), s(5, -7), s(-12, -9), s(-15, -6), s(-11, -2), s(-10, -4), s(-9, -10), s(-18, -14),
];

/// Piece-square values of the rook, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_ROOK: [S; 64] = [
    s(10, 10), s(10, 10), s(10, 8), s(13, 7), s(12, 8), s(8, 5), s(8, 7), s(6, 7),
    s(10, 10), s(10, 7), s(16, 10), s(23, 9), s(18, 6), s(18, 8), s(16, 8), s(15, 7),
    s(6, 15), s(9, 14), s(8, 11), s(12, 7), s(12, 5), s(9, 5), s(4, 7), s(-2, 8),
    s(-3, 12), s(5, 11), s(2, 9), s(10, 7), s(0, 1), s(2, 5), s(-1, 4), s(-1, 4),
    s(-13, 5), s(-2, 4), s(-7, -1), s(0, -1), s(-7, -4), s(-5, 4), s(-3, 3), s(-3, 0),
    s(-22, -5), s(-6, -1), s(-10, -1), s(2, -7), s(-3, -5), s(8, 0), s(5, 0), s(2, -2),
    s(-24, -6), s(-11, -11), s(-3, -5), s(-8, -6), s(-2, -14), s(-10, -11), s(-3, -7), s(-12, -9),
    s(-19, -2), s(-10, -12), s(-9, 1), s(8, -10), s(5, -16), s(-2, -4), s(2, -8), s(-12, -11),
];

/// Piece-square values of the queen, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_QUEEN: [S; 64] = [
    s(-14, -18), s(-8, -10), s(-8, -9), s(-3, -5), s(-4, -5), s(-7, -9), s(-9, -10), s(-13, -18),
    s(-13, -11), s(-14, -5), s(3, 4), s(2, 4), s(-2, 3), s(3, 3), s(-8, -3), s(-5, -9),
    s(-5, -9), s(2, 3), s(-1, 6), s(2, 11), s(6, 11), s(9, 11), s(3, 3), s(-1, -6),
    s(-2, -4), s(-1, 4), s(-2, 7), s(-2, 13), s(5, 16), s(3, 10), s(-2, 3), s(0, -4),
    s(-8, -6), s(-3, 4), s(-2, 4), s(0, 17), s(-1, 12), s(7, 11), s(3, 2), s(6, -3),
    s(1, -8), s(-2, -3), s(3, 9), s(-7, 8), s(2, 7), s(5, 7), s(8, 0), s(-4, -10),
    s(-14, -12), s(-3, -4), s(3, -4), s(1, -2), s(5, -3), s(1, -2), s(-5, -7), s(-15, -14),
    s(-14, -20), s(-8, -12), s(-7, -15), s(-1, -7), s(7, -10), s(-15, -16), s(-11, -13), s(-14, -19),
];

/// Piece-square values of the king, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KING: [S; 64] = [
    s(-60, -50), s(-60, -29), s(-60, -19), s(-60, -14), s(-60, -14), s(-60, -20), s(-60, -29), s(-60, -50),
    s(-50, -26), s(-49, -1), s(-49, 8), s(-49, 12), s(-50, 12), s(-50, 7), s(-50, -2), s(-50, -24),
    s(-45, -14), s(-44, 14), s(-44, 25), s(-44, 29), s(-44, 29), s(-44, 27), s(-44, 14), s(-44, -12),
    s(-39, -9), s(-39, 18), s(-39, 30), s(-44, 36), s(-44, 38), s(-38, 32), s(-38, 18), s(-39, -7),
    s(-30, -15), s(-33, 8), s(-33, 25), s(-39, 30), s(-39, 32), s(-33, 26), s(-32, 12), s(-32, -17),
    s(-14, -20), s(-16, 3), s(-22, 12), s(-31, 13), s(-26, 18), s(-22, 7), s(-15, -1), s(-20, -32),
    s(8, -33), s(6, -14), s(-7, -9), s(-18, -4), s(-19, -7), s(-13, -13), s(7, -25), s(-14, -42),
    s(12, -56), s(39, -34), s(20, -23), s(-12, -26), s(-12, -33), s(-14, -30), s(22, -42), s(7, -77),
];

/// A pawn with an own pawn in front of it on its file.
pub const DOUBLED: S = s(-6, -27);

/// A pawn with no own pawn on the adjacent files.
pub const ISOLATED: S = s(-2, -12);

/// Extra for an isolated pawn with no enemy pawn in front.
pub const ISOLATED_OPEN: S = s(-11, -1);

/// A backward pawn (no neighbour level or behind, stop square held).
pub const BACKWARD: S = s(-3, -13);

/// Extra for a backward pawn with no enemy pawn in front.
pub const BACKWARD_OPEN: S = s(-10, -1);

/// A defended or side-by-side pawn, by relative rank.
#[rustfmt::skip]
pub const CONNECTED: [S; 8] = [
    s(0, 0), s(0, 2), s(12, 17), s(3, 6), s(20, 18), s(39, 36), s(46, 47), s(0, 0),
];

/// Extra for a pawn with a neighbour beside it, by relative rank.
#[rustfmt::skip]
pub const PHALANX: [S; 8] = [
    s(0, 0), s(-2, 2), s(-4, -10), s(9, -1), s(6, 11), s(15, 16), s(22, 22), s(0, 0),
];

/// A candidate passed pawn (half-open file, enough helpers), by relative rank.
#[rustfmt::skip]
pub const CANDIDATE: [S; 8] = [
    s(0, 0), s(-3, 3), s(-6, 4), s(5, 22), s(9, 20), s(34, 48), s(0, 0), s(0, 0),
];

/// Own pawn nearest in front of the king on a file, by ranks ahead (5: none); middle game.
#[rustfmt::skip]
pub const SHIELD: [i32; 6] = [
    7, -6, -14, -28, -22, -27,
];

/// Extra for no own pawn on the king's own file; middle game.
pub const SHIELD_OPEN_KING_FILE: i32 = -11;

/// Nearest enemy pawn on a shelter file, by ranks ahead of the king; middle game.
#[rustfmt::skip]
pub const STORM: [i32; 8] = [
    9, 12, -17, -16, -6, -5, -4, 0,
];

/// The same when an own pawn blocks it; middle game.
#[rustfmt::skip]
pub const STORM_BLOCKED: [i32; 8] = [
    0, -2, -26, -9, -2, -4, 2, 0,
];

/// King danger by attack units (subtracted from the attacked side).
#[rustfmt::skip]
pub const KING_DANGER: [S; 64] = [
    s(0, 0), s(0, 0), s(3, 4), s(3, 4), s(5, 5), s(5, 5), s(11, 6), s(19, 6),
    s(19, 12), s(20, 12), s(32, 13), s(38, 18), s(44, 18), s(63, 18), s(74, 18), s(87, 18),
    s(104, 18), s(120, 18), s(129, 19), s(147, 21), s(163, 22), s(182, 27), s(198, 27), s(212, 27),
    s(233, 28), s(255, 33), s(273, 35), s(291, 36), s(314, 40), s(337, 43), s(360, 45), s(386, 49),
    s(410, 52), s(435, 54), s(462, 57), s(490, 61), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
];

/// A knight near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_KNIGHT: [S; 8] = [
    s(0, 0), s(18, -1), s(23, -1), s(9, 15), s(-9, 10), s(-6, 2), s(-9, -1), s(-10, -5),
];

/// A bishop near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_BISHOP: [S; 8] = [
    s(0, 0), s(1, 0), s(19, 8), s(1, 5), s(-7, 6), s(-3, 3), s(-11, 5), s(-4, 0),
];

/// A rook near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_ROOK: [S; 8] = [
    s(0, 0), s(19, 17), s(15, 8), s(11, 8), s(-10, 6), s(-17, 1), s(-20, 1), s(-21, 6),
];

/// A queen near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_QUEEN: [S; 8] = [
    s(0, 0), s(14, 0), s(37, 25), s(5, 20), s(-9, 11), s(-3, 0), s(1, -13), s(0, -10),
];

/// Mobility of a knight by safe squares reached.
#[rustfmt::skip]
pub const MOB_KNIGHT: [S; 9] = [
    s(-43, -46), s(-33, -35), s(-18, -24), s(-9, -7), s(-2, 4), s(10, 17), s(14, 26), s(17, 31),
    s(24, 25),
];

/// Mobility of a bishop by safe squares reached.
#[rustfmt::skip]
pub const MOB_BISHOP: [S; 14] = [
    s(-38, -46), s(-22, -32), s(-12, -23), s(-2, -4), s(4, 8), s(12, 19), s(17, 28), s(21, 34),
    s(25, 38), s(26, 41), s(29, 38), s(37, 41), s(35, 39), s(36, 41),
];

/// Mobility of a rook by safe squares reached.
#[rustfmt::skip]
pub const MOB_ROOK: [S; 15] = [
    s(-21, -41), s(-18, -31), s(-16, -12), s(-12, -4), s(-7, 5), s(-7, 19), s(-3, 29), s(7, 31),
    s(9, 40), s(16, 46), s(18, 49), s(12, 54), s(27, 52), s(22, 53), s(25, 59),
];

/// Mobility of a queen by safe squares reached.
#[rustfmt::skip]
pub const MOB_QUEEN: [S; 28] = [
    s(-15, -30), s(-10, -20), s(-6, -12), s(-11, -8), s(-10, -4), s(-7, -3), s(-5, -2), s(-1, -2),
    s(-1, 7), s(2, 8), s(5, 19), s(9, 19), s(10, 23), s(13, 26), s(17, 27), s(19, 29),
    s(19, 30), s(22, 32), s(18, 32), s(16, 32), s(18, 33), s(17, 31), s(16, 31), s(16, 32),
    s(16, 32), s(16, 32), s(17, 33), s(17, 33),
];

/// A knight on an outpost.
pub const KNIGHT_OUTPOST: S = s(16, 12);

/// A knight on an outpost defended by a pawn.
pub const KNIGHT_OUTPOST_SUPPORTED: S = s(22, 18);

/// A bishop on an outpost defended by a pawn.
pub const BISHOP_OUTPOST_SUPPORTED: S = s(33, 13);

/// Both bishops.
pub const BISHOP_PAIR: S = s(32, 86);

/// A rook on an open file.
pub const ROOK_OPEN_FILE: S = s(29, 13);

/// A rook on a half-open file.
pub const ROOK_HALF_OPEN_FILE: S = s(14, 17);

/// A rook on the seventh rank.
pub const ROOK_SEVENTH: S = s(12, 31);

/// A rook shut in by its own king.
pub const ROOK_TRAPPED: S = s(-40, -11);

/// Own d/e pawn on its second rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN: S = s(-11, 1);

/// Own d/e pawn on its third rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN_3: S = s(-1, -1);

/// Per bishop: each own blocked pawn on the bishop's square colour.
pub const BAD_BISHOP_PAWN: S = s(-8, -21);

/// An enemy piece attacked by a pawn.
pub const THREAT_BY_PAWN: S = s(39, 37);

/// An enemy rook or queen attacked by a minor piece.
pub const THREAT_MINOR_ON_MAJOR: S = s(29, 21);

/// An enemy piece attacked and not defended.
pub const HANGING: S = s(12, 17);

/// A passed pawn, by relative rank.
#[rustfmt::skip]
pub const PASSED: [S; 8] = [
    s(0, 0), s(5, 11), s(4, 18), s(12, 33), s(33, 59), s(58, 92), s(93, 141), s(0, 0),
];

/// Per square of the enemy king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_THEIRS: [S; 8] = [
    s(0, 0), s(4, 1), s(-7, 6), s(1, 18), s(7, 25), s(6, 38), s(19, 38), s(0, 0),
];

/// Per square of the own king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_OWN: [S; 8] = [
    s(0, 0), s(-7, 0), s(-1, -5), s(-4, -15), s(-4, -16), s(0, -18), s(4, -20), s(0, 0),
];

/// No enemy piece or attack on the path to promotion, by rank.
#[rustfmt::skip]
pub const PASSED_FREE_PATH: [S; 8] = [
    s(0, 0), s(0, 7), s(-1, 6), s(1, 12), s(4, 21), s(12, 35), s(16, 44), s(0, 0),
];

/// The stop square free and safe (rest of the path not), by rank.
#[rustfmt::skip]
pub const PASSED_SAFE_PUSH: [S; 8] = [
    s(0, 0), s(6, 4), s(3, -1), s(2, 5), s(3, 13), s(9, 18), s(7, 21), s(0, 0),
];

/// A passed pawn with a passed neighbour next to it, by rank.
#[rustfmt::skip]
pub const PASSED_CONNECTED: [S; 8] = [
    s(4, 8), s(-3, -2), s(-3, 2), s(-1, 11), s(10, 17), s(21, 36), s(26, 50), s(4, 8),
];
