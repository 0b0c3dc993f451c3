//! The tunable weights of the evaluation, in centipawns, as (middle game, end game)
//! pairs (`i32` where a term is middle game only). `src/eval/params.rs` lists them for
//! the tuner, which writes this file (`kibitzer tune run ... --write`); a hand edit is
//! fine, the next tuning starts from it.
//!
//! Origin: produced by `kibitzer tune` (300 epochs of Adam, rate 1, L2 1e-8) from 1409758
//! quiet positions (masters30.txt, sp30.txt); K = 0.9737, mean squared error 0.092907 -> 0.092530.
//! masters30.txt: `kibitzer tune extract ../shared/data/pgn/masters.pgn --per-game 30
//! --seed 2` (1,148,098 positions); sp30.txt: `kibitzer tune extract --per-game 30 --seed 3`
//! of 10,400 games of `kibitzer selfplay --nodes 5000 --openings 8moves_v3.pgn` (seeds 11
//! and 12) played by the engine with the previous weights (261,660 positions).

use super::score::{s, S};

/// Material per piece type (pawn, knight, bishop, rook, queen, king).
#[rustfmt::skip]
pub const MATERIAL: [S; 6] = [
    s(59, 133), s(273, 408), s(271, 419), s(386, 681), s(991, 1131), s(0, 0),
];

/// The side to move's bonus.
pub const TEMPO: S = s(10, 11);

/// Piece-square values of the pawn, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_PAWN: [S; 64] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    s(4, 11), s(14, 37), s(21, 41), s(34, 33), s(29, 42), s(31, 44), s(12, 27), s(5, 29),
    s(25, 25), s(1, 39), s(2, 23), s(41, 24), s(37, 27), s(48, 33), s(18, 31), s(6, 46),
    s(1, 40), s(-5, 12), s(-14, 7), s(-3, -5), s(15, -9), s(21, 6), s(12, 0), s(8, 6),
    s(-4, 8), s(-8, 18), s(-3, -7), s(1, -13), s(11, -16), s(10, -13), s(4, -1), s(2, -11),
    s(-20, 9), s(-16, 7), s(-15, -11), s(-14, -10), s(-8, -3), s(-4, -3), s(-6, -3), s(-17, -14),
    s(-10, 18), s(-8, 18), s(-4, 6), s(7, -5), s(-2, 21), s(10, 11), s(8, 5), s(-16, -8),
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
];

/// Piece-square values of the knight, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KNIGHT: [S; 64] = [
    s(-64, -45), s(-26, -17), s(-16, -10), s(-12, -9), s(-17, -6), s(-20, -10), s(-30, -25), s(-52, -37),
    s(-17, -8), s(-9, -8), s(6, 2), s(18, 21), s(17, 9), s(12, 6), s(-2, -3), s(-21, -17),
    s(-6, -5), s(-1, -5), s(21, 10), s(32, 6), s(13, 15), s(31, 13), s(7, 4), s(-11, -12),
    s(7, -4), s(-14, -1), s(7, 1), s(8, 22), s(-14, 25), s(6, 20), s(2, 5), s(1, -1),
    s(-11, -9), s(9, 10), s(1, 8), s(-2, 13), s(12, 16), s(15, 17), s(25, 12), s(3, -3),
    s(-21, -23), s(-24, -9), s(-22, -6), s(-5, 8), s(-1, 12), s(-11, -13), s(-5, -9), s(2, -14),
    s(-28, -25), s(-18, -2), s(-16, -12), s(-18, -8), s(-10, -6), s(-18, -10), s(-7, -12), s(-14, -25),
    s(-49, -33), s(-19, -24), s(-41, -22), s(1, 3), s(3, 1), s(-24, -18), s(-13, -22), s(-42, -36),
];

/// Piece-square values of the bishop, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_BISHOP: [S; 64] = [
    s(-22, -16), s(-15, -12), s(-10, 2), s(-13, 1), s(-11, 0), s(-14, -11), s(-8, -8), s(-19, -16),
    s(-5, -4), s(-19, -2), s(1, 8), s(4, 12), s(-4, 1), s(-3, -2), s(-22, -8), s(-18, -8),
    s(6, 4), s(13, 5), s(0, -7), s(8, 4), s(14, 8), s(16, 7), s(8, 12), s(4, 12),
    s(-5, 1), s(5, 12), s(1, 14), s(20, 7), s(3, 10), s(29, 14), s(7, 11), s(-8, -4),
    s(14, -4), s(10, 7), s(4, 18), s(19, 9), s(22, 13), s(1, 7), s(-5, 4), s(27, -8),
    s(-5, -12), s(15, 4), s(-7, 4), s(1, 5), s(2, 23), s(-11, -8), s(16, -9), s(2, 3),
    s(7, -5), s(-15, -28), s(13, -2), s(-11, 13), s(-7, 3), s(3, -6), s(1, -14), s(-8, -17),
    s(-22, -22), s(14, -9), s(-11, -1), s(-17, -1), s(-9, 8), s(-16, 4), s(-14, -13), s(-27, -20),
];

/// Piece-square values of the rook, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_ROOK: [S; 64] = [
    s(16, 14), s(18, 20), s(12, 18), s(19, 12), s(18, 17), s(8, 10), s(14, 16), s(12, 13),
    s(2, 8), s(3, 4), s(13, 9), s(31, 5), s(17, 1), s(19, 6), s(17, 7), s(23, 5),
    s(11, 18), s(14, 22), s(6, 20), s(15, 8), s(24, 10), s(22, 9), s(11, 19), s(-7, 21),
    s(-10, 22), s(11, 20), s(1, 20), s(12, 10), s(-3, 3), s(2, 11), s(-1, 13), s(5, 11),
    s(-29, 16), s(-5, 10), s(-14, 5), s(-6, 2), s(-12, 2), s(-15, 12), s(-4, 12), s(-2, -1),
    s(-39, 0), s(-12, 2), s(-17, 5), s(5, -14), s(-2, -8), s(13, -5), s(11, -7), s(9, -8),
    s(-38, 0), s(-20, -15), s(-5, -2), s(-19, -4), s(-2, -25), s(-16, -19), s(-2, -21), s(-23, -21),
    s(-23, -1), s(-14, -15), s(-17, 1), s(-1, -18), s(2, -29), s(-8, -11), s(1, -23), s(-17, -22),
];

/// Piece-square values of the queen, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_QUEEN: [S; 64] = [
    s(-11, -12), s(-4, -6), s(-8, -6), s(2, -2), s(-5, -6), s(-5, -8), s(-6, -4), s(-7, -12),
    s(-19, -7), s(-25, -3), s(3, 10), s(3, 7), s(-8, 4), s(9, 10), s(-18, -1), s(6, -3),
    s(1, -6), s(5, 8), s(-13, 6), s(-9, 17), s(8, 16), s(15, 16), s(3, 8), s(-2, 0),
    s(3, 1), s(0, 10), s(-9, 8), s(-14, 14), s(-1, 21), s(1, 13), s(-5, 6), s(5, -3),
    s(-3, -5), s(-5, 10), s(-1, -6), s(-10, 26), s(-6, 13), s(7, 12), s(8, 0), s(14, -3),
    s(5, -7), s(-1, -9), s(-3, 13), s(-10, 11), s(2, 5), s(4, 9), s(13, -5), s(2, -10),
    s(-13, -10), s(-4, -1), s(4, -9), s(5, -4), s(7, -7), s(7, -5), s(-4, -12), s(-27, -17),
    s(-8, -18), s(-7, -11), s(-4, -24), s(-2, -2), s(17, -19), s(-15, -25), s(-14, -16), s(-9, -16),
];

/// Piece-square values of the king, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KING: [S; 64] = [
    s(-60, -51), s(-60, -26), s(-60, -16), s(-60, -11), s(-60, -12), s(-60, -20), s(-60, -26), s(-60, -50),
    s(-50, -30), s(-46, 8), s(-46, 15), s(-48, 18), s(-50, 15), s(-50, 13), s(-50, 4), s(-50, -22),
    s(-45, -12), s(-41, 28), s(-41, 37), s(-41, 38), s(-41, 40), s(-41, 43), s(-41, 29), s(-43, -4),
    s(-38, -4), s(-37, 32), s(-38, 37), s(-42, 41), s(-43, 46), s(-34, 42), s(-36, 29), s(-39, 2),
    s(-31, -15), s(-30, 12), s(-30, 28), s(-36, 27), s(-40, 31), s(-30, 28), s(-29, 18), s(-40, -23),
    s(-15, -23), s(-7, 7), s(-15, 11), s(-33, 10), s(-18, 14), s(-17, 0), s(-8, -9), s(-30, -48),
    s(10, -45), s(3, -23), s(2, -17), s(-14, -11), s(-16, -12), s(-13, -21), s(6, -37), s(-27, -53),
    s(-9, -73), s(31, -45), s(12, -31), s(-14, -36), s(-21, -44), s(-24, -33), s(11, -52), s(0, -105),
];

/// A pawn with an own pawn in front of it on its file.
pub const DOUBLED: S = s(3, -28);

/// A pawn with no own pawn on the adjacent files.
pub const ISOLATED: S = s(-1, -7);

/// Extra for an isolated pawn with no enemy pawn in front.
pub const ISOLATED_OPEN: S = s(-8, -6);

/// A backward pawn (no neighbour level or behind, stop square held).
pub const BACKWARD: S = s(2, -8);

/// Extra for a backward pawn with no enemy pawn in front.
pub const BACKWARD_OPEN: S = s(-9, -9);

/// A defended or side-by-side pawn, by relative rank.
#[rustfmt::skip]
pub const CONNECTED: [S; 8] = [
    s(0, 0), s(1, 0), s(15, 14), s(6, 9), s(17, 20), s(43, 43), s(48, 53), s(0, 0),
];

/// Extra for a pawn with a neighbour beside it, by relative rank.
#[rustfmt::skip]
pub const PHALANX: [S; 8] = [
    s(0, 0), s(-1, 0), s(-4, -8), s(5, 0), s(5, 18), s(18, 25), s(22, 22), s(0, 0),
];

/// A candidate passed pawn (half-open file, enough helpers), by relative rank.
#[rustfmt::skip]
pub const CANDIDATE: [S; 8] = [
    s(0, 0), s(0, -4), s(-1, 1), s(4, 26), s(10, 21), s(45, 55), s(0, 0), s(0, 0),
];

/// Own pawn nearest in front of the king on a file, by ranks ahead (5: none); middle game.
#[rustfmt::skip]
pub const SHIELD: [i32; 6] = [
    3, -8, -12, -26, -21, -27,
];

/// Extra for no own pawn on the king's own file; middle game.
pub const SHIELD_OPEN_KING_FILE: i32 = -7;

/// Nearest enemy pawn on a shelter file, by ranks ahead of the king; middle game.
#[rustfmt::skip]
pub const STORM: [i32; 8] = [
    23, 30, -12, -11, -2, -1, 0, 0,
];

/// The same when an own pawn blocks it; middle game.
#[rustfmt::skip]
pub const STORM_BLOCKED: [i32; 8] = [
    0, -5, -21, -5, 2, -6, -5, 0,
];

/// King danger by attack units (subtracted from the attacked side).
#[rustfmt::skip]
pub const KING_DANGER: [S; 64] = [
    s(0, 0), s(0, 0), s(3, 3), s(3, 7), s(3, 7), s(3, 7), s(5, 7), s(5, 7),
    s(5, 7), s(10, 12), s(18, 12), s(18, 27), s(18, 28), s(23, 28), s(23, 28), s(38, 29),
    s(59, 29), s(83, 29), s(104, 29), s(123, 29), s(149, 29), s(168, 29), s(190, 29), s(209, 29),
    s(233, 29), s(255, 32), s(275, 38), s(292, 38), s(316, 41), s(339, 45), s(360, 45), s(386, 49),
    s(410, 52), s(435, 54), s(462, 57), s(490, 61), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
];

/// A knight near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_KNIGHT: [S; 8] = [
    s(0, 0), s(27, -1), s(34, -6), s(1, 25), s(-17, 29), s(-13, 19), s(-20, 17), s(-28, 6),
];

/// A bishop near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_BISHOP: [S; 8] = [
    s(0, 0), s(-12, 7), s(17, 14), s(-1, 10), s(-12, 15), s(-10, 11), s(-16, 16), s(-14, 10),
];

/// A rook near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_ROOK: [S; 8] = [
    s(0, 0), s(29, 30), s(7, 5), s(-5, 15), s(-27, 21), s(-36, 21), s(-29, 20), s(-31, 28),
];

/// A queen near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_QUEEN: [S; 8] = [
    s(0, 0), s(14, 0), s(37, 53), s(-2, 51), s(-7, 32), s(0, 12), s(4, -11), s(4, -16),
];

/// Mobility of a knight by safe squares reached.
#[rustfmt::skip]
pub const MOB_KNIGHT: [S; 9] = [
    s(-53, -49), s(-35, -37), s(-19, -17), s(-9, 4), s(-2, 15), s(7, 28), s(10, 37), s(9, 45),
    s(19, 34),
];

/// Mobility of a bishop by safe squares reached.
#[rustfmt::skip]
pub const MOB_BISHOP: [S; 14] = [
    s(-36, -57), s(-16, -30), s(-7, -15), s(-1, 7), s(1, 19), s(6, 26), s(9, 35), s(12, 40),
    s(15, 43), s(14, 47), s(17, 42), s(39, 44), s(34, 38), s(36, 41),
];

/// Mobility of a rook by safe squares reached.
#[rustfmt::skip]
pub const MOB_ROOK: [S; 15] = [
    s(-24, -44), s(-22, -33), s(-16, 4), s(-14, 12), s(-11, 22), s(-11, 31), s(-9, 43), s(-1, 40),
    s(0, 47), s(4, 52), s(7, 52), s(1, 59), s(27, 49), s(23, 53), s(30, 57),
];

/// Mobility of a queen by safe squares reached.
#[rustfmt::skip]
pub const MOB_QUEEN: [S; 28] = [
    s(-15, -30), s(-11, -20), s(-7, -12), s(-23, -12), s(-15, -7), s(-6, -9), s(-2, -10), s(1, -13),
    s(0, 8), s(2, 12), s(4, 30), s(7, 29), s(7, 34), s(10, 39), s(15, 39), s(19, 39),
    s(19, 39), s(29, 42), s(22, 43), s(20, 41), s(24, 41), s(23, 34), s(19, 34), s(16, 32),
    s(16, 32), s(16, 32), s(17, 33), s(17, 33),
];

/// A knight on an outpost.
pub const KNIGHT_OUTPOST: S = s(6, 7);

/// A knight on an outpost defended by a pawn.
pub const KNIGHT_OUTPOST_SUPPORTED: S = s(11, 10);

/// A bishop on an outpost defended by a pawn.
pub const BISHOP_OUTPOST_SUPPORTED: S = s(31, 12);

/// Both bishops.
pub const BISHOP_PAIR: S = s(21, 99);

/// A rook on an open file.
pub const ROOK_OPEN_FILE: S = s(26, 9);

/// A rook on a half-open file.
pub const ROOK_HALF_OPEN_FILE: S = s(14, 6);

/// A rook on the seventh rank.
pub const ROOK_SEVENTH: S = s(-2, 14);

/// A rook shut in by its own king.
pub const ROOK_TRAPPED: S = s(-29, -13);

/// Own d/e pawn on its second rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN: S = s(-1, -4);

/// Own d/e pawn on its third rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN_3: S = s(3, -3);

/// Per bishop: each own blocked pawn on the bishop's square colour.
pub const BAD_BISHOP_PAWN: S = s(-4, -17);

/// An enemy piece attacked by a pawn.
pub const THREAT_BY_PAWN: S = s(39, 50);

/// An enemy pawn, knight, bishop, rook or queen attacked by a minor piece (pawns and minors only when no enemy pawn defends them).
#[rustfmt::skip]
pub const THREAT_BY_MINOR: [S; 5] = [
    s(-2, 19), s(14, 38), s(17, 10), s(35, 23), s(25, 24),
];

/// An enemy pawn, knight, bishop, rook or queen attacked by a rook (all but the queen only when no enemy pawn defends them).
#[rustfmt::skip]
pub const THREAT_BY_ROOK: [S; 5] = [
    s(-5, 25), s(9, 31), s(15, 28), s(-4, 3), s(36, 13),
];

/// An enemy pawn or piece attacked by the king and not defended.
pub const THREAT_BY_KING: S = s(16, 37);

/// An enemy piece a safe pawn push would attack.
pub const THREAT_PAWN_PUSH: S = s(12, 19);

/// An enemy piece attacked and not defended.
pub const HANGING: S = s(7, 7);

/// Per square of the king zone the enemy attacks and only the king or queen defends.
pub const KING_WEAK_SQUARE: S = s(-10, -1);

/// Per square from which an enemy knight, bishop, rook or queen can give a safe check.
#[rustfmt::skip]
pub const SAFE_CHECK_SQUARES: [S; 6] = [
    s(0, 0), s(-32, -12), s(-1, -36), s(-23, -18), s(5, -33), s(0, 0),
];

/// A knight or bishop with an own pawn right in front of it.
pub const MINOR_BEHIND_PAWN: S = s(9, 3);

/// A bishop seeing both centre squares of a long diagonal past the pawns.
pub const BISHOP_LONG_DIAGONAL: S = s(21, 10);

/// A rook on the file of an enemy queen.
pub const ROOK_ON_QUEEN_FILE: S = s(6, -8);

/// Per square of the own half of files c-f not attacked by enemy pawns nor taken by own pawns (squares behind own pawns count twice).
pub const SPACE: S = s(2, -1);

/// Per knight, per own pawn more than five (fewer count negative).
pub const KNIGHT_PAWNS: S = s(1, 7);

/// Per rook, per own pawn more than five (fewer count negative).
pub const ROOK_PAWNS: S = s(-9, -3);

/// The king's distance to the nearest pawn of either colour.
#[rustfmt::skip]
pub const KING_PAWN_DISTANCE: [S; 8] = [
    s(0, 0), s(5, 9), s(-2, 9), s(-1, 4), s(1, -7), s(-2, -11), s(0, -3), s(0, 0),
];

/// A king on a flank without pawns.
pub const PAWNLESS_FLANK: S = s(-6, -42);

/// An own rook behind a passed pawn on its file.
pub const ROOK_BEHIND_PASSER: S = s(10, 14);

/// A passed pawn, by relative rank.
#[rustfmt::skip]
pub const PASSED: [S; 8] = [
    s(0, 0), s(2, 15), s(-5, 25), s(-1, 42), s(36, 67), s(61, 100), s(98, 158), s(0, 0),
];

/// Per square of the enemy king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_THEIRS: [S; 8] = [
    s(0, 0), s(3, -2), s(-10, 6), s(-2, 18), s(4, 24), s(-1, 44), s(19, 49), s(0, 0),
];

/// Per square of the own king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_OWN: [S; 8] = [
    s(0, 0), s(-5, 1), s(7, -7), s(2, -15), s(-5, -17), s(-3, -27), s(-1, -31), s(0, 0),
];

/// No enemy piece or attack on the path to promotion, by rank.
#[rustfmt::skip]
pub const PASSED_FREE_PATH: [S; 8] = [
    s(0, 0), s(-4, 21), s(-8, 13), s(-8, 19), s(-2, 30), s(18, 45), s(22, 48), s(0, 0),
];

/// The stop square free and safe (rest of the path not), by rank.
#[rustfmt::skip]
pub const PASSED_SAFE_PUSH: [S; 8] = [
    s(0, 0), s(8, 2), s(7, -7), s(1, 2), s(3, 15), s(18, 20), s(7, 21), s(0, 0),
];

/// A passed pawn with a passed neighbour next to it, by rank.
#[rustfmt::skip]
pub const PASSED_CONNECTED: [S; 8] = [
    s(4, 8), s(0, -13), s(-6, -2), s(-13, 13), s(8, 4), s(23, 29), s(28, 53), s(4, 8),
];
