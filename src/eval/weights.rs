//! The tunable weights of the evaluation, in centipawns, as (middle game, end game)
//! pairs (`i32` where a term is middle game only). `src/eval/params.rs` lists them for
//! the tuner, which writes this file (`kibitzer tune run ... --write`); a hand edit is
//! fine, the next tuning starts from it.
//!
//! Origin: produced by `kibitzer tune` (300 epochs of Adam, rate 1, L2 1e-8) from 1147888
//! quiet positions (masters30.txt); K = 0.8578, mean squared error 0.091208 -> 0.090883.

use super::score::{s, S};

/// Material per piece type (pawn, knight, bishop, rook, queen, king).
#[rustfmt::skip]
pub const MATERIAL: [S; 6] = [
    s(60, 136), s(272, 388), s(273, 400), s(395, 652), s(988, 1098), s(0, 0),
];

/// The side to move's bonus.
pub const TEMPO: S = s(11, 11);

/// Piece-square values of the pawn, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_PAWN: [S; 64] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    s(5, 13), s(15, 35), s(22, 40), s(33, 33), s(28, 39), s(29, 42), s(12, 28), s(6, 29),
    s(22, 23), s(1, 35), s(2, 20), s(40, 26), s(33, 26), s(43, 34), s(16, 30), s(6, 45),
    s(4, 42), s(0, 11), s(-15, 9), s(-3, -4), s(17, -8), s(18, 8), s(15, 4), s(10, 9),
    s(-3, 10), s(-8, 19), s(-4, -7), s(0, -12), s(12, -16), s(12, -14), s(6, -1), s(3, -10),
    s(-21, 7), s(-13, 7), s(-16, -9), s(-16, -11), s(-7, -1), s(-1, -2), s(-5, -3), s(-21, -16),
    s(-7, 14), s(-8, 17), s(-5, 9), s(8, -5), s(-1, 26), s(9, 14), s(9, 1), s(-20, -11),
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
];

/// Piece-square values of the knight, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KNIGHT: [S; 64] = [
    s(-60, -43), s(-27, -19), s(-17, -11), s(-12, -9), s(-16, -7), s(-20, -11), s(-30, -25), s(-52, -37),
    s(-18, -11), s(-9, -9), s(6, 2), s(16, 18), s(15, 9), s(10, 5), s(-3, -4), s(-22, -19),
    s(-8, -7), s(-1, -5), s(22, 12), s(33, 9), s(14, 14), s(28, 13), s(7, 3), s(-11, -12),
    s(7, -3), s(-15, 0), s(7, 1), s(10, 21), s(-14, 23), s(10, 21), s(8, 5), s(-2, -3),
    s(-16, -10), s(9, 10), s(4, 8), s(-3, 12), s(12, 15), s(16, 16), s(23, 11), s(3, -4),
    s(-23, -24), s(-25, -7), s(-22, -3), s(0, 9), s(2, 13), s(-11, -10), s(-2, -8), s(1, -12),
    s(-26, -25), s(-17, -4), s(-14, -11), s(-19, -8), s(-10, -8), s(-17, -8), s(-8, -12), s(-14, -25),
    s(-48, -35), s(-21, -27), s(-41, -23), s(1, 0), s(3, 0), s(-26, -18), s(-16, -22), s(-43, -37),
];

/// Piece-square values of the bishop, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_BISHOP: [S; 64] = [
    s(-21, -15), s(-14, -12), s(-10, 0), s(-13, -1), s(-11, -1), s(-13, -10), s(-8, -8), s(-18, -15),
    s(-6, -6), s(-14, -2), s(3, 6), s(3, 10), s(-2, 1), s(-3, -3), s(-17, -6), s(-16, -8),
    s(4, 2), s(10, 3), s(3, -4), s(8, 4), s(13, 8), s(15, 8), s(10, 10), s(4, 9),
    s(-3, 0), s(6, 11), s(0, 12), s(20, 8), s(1, 9), s(28, 14), s(7, 11), s(-8, -4),
    s(14, -2), s(10, 4), s(1, 16), s(16, 8), s(23, 13), s(-1, 7), s(-6, 3), s(26, -7),
    s(-5, -14), s(14, 5), s(-5, 4), s(0, 5), s(1, 22), s(-8, -7), s(14, -8), s(1, 1),
    s(7, -6), s(-17, -25), s(13, 1), s(-12, 13), s(-7, 2), s(4, -6), s(2, -12), s(-9, -15),
    s(-22, -21), s(11, -8), s(-11, -3), s(-18, -3), s(-10, 5), s(-14, 3), s(-13, -12), s(-24, -18),
];

/// Piece-square values of the rook, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_ROOK: [S; 64] = [
    s(15, 13), s(15, 17), s(11, 14), s(18, 11), s(16, 14), s(8, 7), s(12, 13), s(10, 11),
    s(5, 9), s(3, 4), s(13, 9), s(28, 6), s(16, 1), s(18, 5), s(16, 6), s(21, 5),
    s(12, 20), s(15, 23), s(7, 18), s(15, 10), s(21, 8), s(19, 8), s(9, 16), s(-5, 17),
    s(-7, 22), s(11, 21), s(1, 17), s(15, 12), s(-2, 3), s(3, 10), s(-1, 10), s(3, 9),
    s(-24, 15), s(-3, 9), s(-13, 3), s(-3, 0), s(-13, -1), s(-12, 10), s(-5, 10), s(1, 1),
    s(-39, -4), s(-11, 0), s(-17, 3), s(5, -14), s(-5, -7), s(13, -4), s(9, -4), s(8, -6),
    s(-37, -2), s(-18, -16), s(-5, -3), s(-17, -4), s(-4, -24), s(-16, -19), s(-2, -16), s(-19, -17),
    s(-24, -2), s(-14, -16), s(-16, 2), s(2, -16), s(3, -28), s(-8, -9), s(0, -19), s(-18, -19),
];

/// Piece-square values of the queen, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_QUEEN: [S; 64] = [
    s(-12, -14), s(-6, -8), s(-8, -7), s(0, -3), s(-4, -5), s(-5, -8), s(-7, -6), s(-9, -14),
    s(-18, -9), s(-22, -4), s(4, 9), s(2, 6), s(-6, 3), s(7, 7), s(-15, -2), s(3, -5),
    s(0, -7), s(5, 7), s(-9, 6), s(-5, 15), s(7, 14), s(14, 15), s(3, 7), s(-2, -2),
    s(4, 0), s(0, 8), s(-6, 7), s(-12, 13), s(1, 20), s(0, 12), s(-5, 5), s(4, -2),
    s(-5, -5), s(-5, 8), s(-3, -3), s(-6, 23), s(-4, 13), s(8, 12), s(7, 1), s(14, -2),
    s(8, -7), s(-2, -7), s(1, 13), s(-10, 10), s(2, 5), s(3, 8), s(12, -4), s(1, -10),
    s(-15, -11), s(-4, -2), s(2, -8), s(2, -5), s(5, -8), s(5, -4), s(-5, -11), s(-24, -16),
    s(-9, -18), s(-7, -11), s(-7, -22), s(-3, -4), s(17, -18), s(-17, -23), s(-13, -15), s(-11, -17),
];

/// Piece-square values of the king, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KING: [S; 64] = [
    s(-60, -50), s(-60, -27), s(-60, -17), s(-60, -12), s(-60, -12), s(-60, -20), s(-60, -27), s(-60, -50),
    s(-50, -28), s(-47, 5), s(-47, 13), s(-48, 16), s(-50, 14), s(-50, 11), s(-50, 2), s(-50, -23),
    s(-45, -12), s(-42, 24), s(-42, 33), s(-42, 35), s(-42, 37), s(-42, 38), s(-42, 24), s(-43, -7),
    s(-38, -5), s(-37, 29), s(-38, 35), s(-42, 40), s(-43, 45), s(-35, 41), s(-36, 27), s(-39, 0),
    s(-31, -15), s(-31, 12), s(-31, 28), s(-37, 29), s(-39, 33), s(-31, 29), s(-29, 19), s(-38, -23),
    s(-14, -20), s(-9, 8), s(-16, 13), s(-33, 10), s(-21, 16), s(-19, 2), s(-9, -6), s(-28, -47),
    s(10, -41), s(6, -18), s(0, -16), s(-14, -9), s(-17, -12), s(-14, -20), s(6, -38), s(-27, -53),
    s(-3, -68), s(35, -42), s(14, -27), s(-14, -33), s(-17, -43), s(-20, -34), s(12, -51), s(-1, -102),
];

/// A pawn with an own pawn in front of it on its file.
pub const DOUBLED: S = s(2, -31);

/// A pawn with no own pawn on the adjacent files.
pub const ISOLATED: S = s(-2, -7);

/// Extra for an isolated pawn with no enemy pawn in front.
pub const ISOLATED_OPEN: S = s(-7, -5);

/// A backward pawn (no neighbour level or behind, stop square held).
pub const BACKWARD: S = s(0, -10);

/// Extra for a backward pawn with no enemy pawn in front.
pub const BACKWARD_OPEN: S = s(-8, -5);

/// A defended or side-by-side pawn, by relative rank.
#[rustfmt::skip]
pub const CONNECTED: [S; 8] = [
    s(0, 0), s(0, 1), s(15, 17), s(5, 9), s(18, 20), s(44, 44), s(48, 51), s(0, 0),
];

/// Extra for a pawn with a neighbour beside it, by relative rank.
#[rustfmt::skip]
pub const PHALANX: [S; 8] = [
    s(0, 0), s(-2, 1), s(-4, -10), s(6, -1), s(4, 16), s(17, 22), s(22, 22), s(0, 0),
];

/// A candidate passed pawn (half-open file, enough helpers), by relative rank.
#[rustfmt::skip]
pub const CANDIDATE: [S; 8] = [
    s(0, 0), s(-1, -1), s(-4, 1), s(5, 26), s(9, 19), s(43, 53), s(0, 0), s(0, 0),
];

/// Own pawn nearest in front of the king on a file, by ranks ahead (5: none); middle game.
#[rustfmt::skip]
pub const SHIELD: [i32; 6] = [
    4, -7, -12, -27, -22, -27,
];

/// Extra for no own pawn on the king's own file; middle game.
pub const SHIELD_OPEN_KING_FILE: i32 = -10;

/// Nearest enemy pawn on a shelter file, by ranks ahead of the king; middle game.
#[rustfmt::skip]
pub const STORM: [i32; 8] = [
    20, 27, -13, -13, -5, -3, -4, 0,
];

/// The same when an own pawn blocks it; middle game.
#[rustfmt::skip]
pub const STORM_BLOCKED: [i32; 8] = [
    0, -4, -24, -8, 1, -7, -4, 0,
];

/// King danger by attack units (subtracted from the attacked side).
#[rustfmt::skip]
pub const KING_DANGER: [S; 64] = [
    s(0, 0), s(0, 0), s(3, 4), s(3, 7), s(3, 7), s(3, 7), s(8, 7), s(10, 7),
    s(10, 7), s(12, 15), s(24, 15), s(24, 25), s(24, 27), s(32, 27), s(32, 27), s(47, 27),
    s(71, 27), s(94, 27), s(115, 27), s(134, 27), s(156, 27), s(173, 27), s(195, 27), s(211, 28),
    s(234, 29), s(256, 33), s(275, 37), s(292, 37), s(315, 41), s(339, 45), s(360, 45), s(386, 49),
    s(410, 52), s(435, 54), s(462, 57), s(490, 61), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
];

/// A knight near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_KNIGHT: [S; 8] = [
    s(0, 0), s(24, -3), s(32, -6), s(3, 24), s(-17, 26), s(-13, 14), s(-20, 12), s(-26, 1),
];

/// A bishop near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_BISHOP: [S; 8] = [
    s(0, 0), s(-9, 3), s(20, 12), s(-1, 9), s(-12, 12), s(-11, 8), s(-19, 13), s(-14, 7),
];

/// A rook near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_ROOK: [S; 8] = [
    s(0, 0), s(27, 28), s(11, 3), s(0, 12), s(-23, 15), s(-33, 15), s(-31, 15), s(-33, 22),
];

/// A queen near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_QUEEN: [S; 8] = [
    s(0, 0), s(14, 0), s(38, 45), s(-2, 43), s(-10, 25), s(-1, 5), s(4, -15), s(3, -17),
];

/// Mobility of a knight by safe squares reached.
#[rustfmt::skip]
pub const MOB_KNIGHT: [S; 9] = [
    s(-51, -48), s(-37, -37), s(-20, -22), s(-11, 1), s(-4, 12), s(7, 26), s(10, 35), s(12, 42),
    s(21, 31),
];

/// Mobility of a bishop by safe squares reached.
#[rustfmt::skip]
pub const MOB_BISHOP: [S; 14] = [
    s(-38, -53), s(-20, -33), s(-10, -21), s(-2, 4), s(0, 14), s(6, 23), s(9, 33), s(13, 39),
    s(18, 43), s(17, 47), s(21, 42), s(40, 44), s(35, 39), s(36, 41),
];

/// Mobility of a rook by safe squares reached.
#[rustfmt::skip]
pub const MOB_ROOK: [S; 15] = [
    s(-23, -43), s(-22, -34), s(-17, -2), s(-15, 5), s(-11, 17), s(-11, 28), s(-9, 40), s(0, 39),
    s(1, 46), s(7, 50), s(10, 51), s(3, 59), s(28, 49), s(23, 53), s(29, 58),
];

/// Mobility of a queen by safe squares reached.
#[rustfmt::skip]
pub const MOB_QUEEN: [S; 28] = [
    s(-15, -30), s(-10, -20), s(-6, -12), s(-20, -11), s(-15, -6), s(-8, -7), s(-4, -8), s(0, -11),
    s(-1, 7), s(1, 9), s(4, 28), s(7, 25), s(9, 30), s(11, 35), s(16, 35), s(19, 35),
    s(21, 36), s(28, 39), s(21, 40), s(18, 38), s(22, 39), s(21, 33), s(18, 33), s(16, 32),
    s(16, 32), s(16, 32), s(17, 33), s(17, 33),
];

/// A knight on an outpost.
pub const KNIGHT_OUTPOST: S = s(9, 10);

/// A knight on an outpost defended by a pawn.
pub const KNIGHT_OUTPOST_SUPPORTED: S = s(13, 13);

/// A bishop on an outpost defended by a pawn.
pub const BISHOP_OUTPOST_SUPPORTED: S = s(34, 13);

/// Both bishops.
pub const BISHOP_PAIR: S = s(23, 103);

/// A rook on an open file.
pub const ROOK_OPEN_FILE: S = s(27, 10);

/// A rook on a half-open file.
pub const ROOK_HALF_OPEN_FILE: S = s(14, 7);

/// A rook on the seventh rank.
pub const ROOK_SEVENTH: S = s(-1, 16);

/// A rook shut in by its own king.
pub const ROOK_TRAPPED: S = s(-34, -13);

/// Own d/e pawn on its second rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN: S = s(-2, -2);

/// Own d/e pawn on its third rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN_3: S = s(3, -3);

/// Per bishop: each own blocked pawn on the bishop's square colour.
pub const BAD_BISHOP_PAWN: S = s(-5, -18);

/// An enemy piece attacked by a pawn.
pub const THREAT_BY_PAWN: S = s(40, 48);

/// An enemy pawn, knight, bishop, rook or queen attacked by a minor piece (pawns and minors only when no enemy pawn defends them).
#[rustfmt::skip]
pub const THREAT_BY_MINOR: [S; 5] = [
    s(-1, 19), s(17, 32), s(16, 8), s(33, 23), s(27, 23),
];

/// An enemy pawn, knight, bishop, rook or queen attacked by a rook (all but the queen only when no enemy pawn defends them).
#[rustfmt::skip]
pub const THREAT_BY_ROOK: [S; 5] = [
    s(-4, 25), s(10, 27), s(13, 23), s(-4, 1), s(30, 10),
];

/// An enemy pawn or piece attacked by the king and not defended.
pub const THREAT_BY_KING: S = s(12, 31);

/// An enemy piece a safe pawn push would attack.
pub const THREAT_PAWN_PUSH: S = s(13, 18);

/// An enemy piece attacked and not defended.
pub const HANGING: S = s(6, 11);

/// Per square of the king zone the enemy attacks and only the king or queen defends.
pub const KING_WEAK_SQUARE: S = s(-10, -2);

/// Per square from which an enemy knight, bishop, rook or queen can give a safe check.
#[rustfmt::skip]
pub const SAFE_CHECK_SQUARES: [S; 6] = [
    s(0, 0), s(-25, -14), s(-2, -33), s(-20, -19), s(2, -30), s(0, 0),
];

/// A knight or bishop with an own pawn right in front of it.
pub const MINOR_BEHIND_PAWN: S = s(10, 2);

/// A bishop seeing both centre squares of a long diagonal past the pawns.
pub const BISHOP_LONG_DIAGONAL: S = s(19, 7);

/// A rook on the file of an enemy queen.
pub const ROOK_ON_QUEEN_FILE: S = s(5, -6);

/// Per square of the own half of files c-f not attacked by enemy pawns nor taken by own pawns (squares behind own pawns count twice).
pub const SPACE: S = s(3, 0);

/// Per knight, per own pawn more than five (fewer count negative).
pub const KNIGHT_PAWNS: S = s(0, 6);

/// Per rook, per own pawn more than five (fewer count negative).
pub const ROOK_PAWNS: S = s(-12, -4);

/// The king's distance to the nearest pawn of either colour.
#[rustfmt::skip]
pub const KING_PAWN_DISTANCE: [S; 8] = [
    s(0, 0), s(5, 5), s(-3, 5), s(0, 1), s(0, -4), s(-1, -5), s(0, -1), s(0, 0),
];

/// A king on a flank without pawns.
pub const PAWNLESS_FLANK: S = s(-4, -22);

/// An own rook behind a passed pawn on its file.
pub const ROOK_BEHIND_PASSER: S = s(9, 10);

/// A passed pawn, by relative rank.
#[rustfmt::skip]
pub const PASSED: [S; 8] = [
    s(0, 0), s(3, 13), s(0, 24), s(4, 39), s(35, 66), s(60, 99), s(97, 153), s(0, 0),
];

/// Per square of the enemy king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_THEIRS: [S; 8] = [
    s(0, 0), s(6, -2), s(-9, 7), s(-1, 19), s(8, 24), s(2, 43), s(22, 45), s(0, 0),
];

/// Per square of the own king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_OWN: [S; 8] = [
    s(0, 0), s(-7, 1), s(5, -7), s(1, -17), s(-6, -18), s(-2, -25), s(3, -28), s(0, 0),
];

/// No enemy piece or attack on the path to promotion, by rank.
#[rustfmt::skip]
pub const PASSED_FREE_PATH: [S; 8] = [
    s(0, 0), s(-2, 17), s(-5, 11), s(-4, 17), s(0, 25), s(16, 42), s(20, 48), s(0, 0),
];

/// The stop square free and safe (rest of the path not), by rank.
#[rustfmt::skip]
pub const PASSED_SAFE_PUSH: [S; 8] = [
    s(0, 0), s(10, 4), s(6, -7), s(1, 3), s(3, 16), s(15, 19), s(7, 21), s(0, 0),
];

/// A passed pawn with a passed neighbour next to it, by rank.
#[rustfmt::skip]
pub const PASSED_CONNECTED: [S; 8] = [
    s(4, 8), s(-5, -10), s(-7, -2), s(-9, 12), s(9, 6), s(23, 31), s(28, 52), s(4, 8),
];
