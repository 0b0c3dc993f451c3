//! The tunable weights of the evaluation, in centipawns, as (middle game, end game)
//! pairs (`i32` where a term is middle game only). `src/eval/params.rs` lists them for
//! the tuner, which writes this file (`kibitzer tune run ... --write`); a hand edit is
//! fine, the next tuning starts from it.
//!
//! Origin: produced by `kibitzer tune` (300 epochs of Adam, rate 1, L2 1e-8) from 1712630
//! quiet positions (masters30.txt, sp30.txt, sp2_30.txt); K = 1.0757, mean squared error 0.093789 -> 0.093575.
//! masters30.txt: `kibitzer tune extract ../shared/data/pgn/masters.pgn --per-game 30
//! --seed 2` (1,148,098 positions); sp30.txt: `kibitzer tune extract --per-game 30 --seed 3`
//! of 10,400 games of `kibitzer selfplay --nodes 5000 --openings 8moves_v3.pgn` (seeds 11
//! and 12) played with the weights tuned on masters30.txt alone (261,660 positions);
//! sp2_30.txt: the same extraction (`--seed 4`) of 12,000 self-play games (`--seed 21`)
//! played with the weights tuned on masters30.txt and sp30.txt (302,872 positions).

use super::score::{s, S};

/// Material per piece type (pawn, knight, bishop, rook, queen, king).
#[rustfmt::skip]
pub const MATERIAL: [S; 6] = [
    s(57, 130), s(272, 419), s(269, 430), s(379, 699), s(991, 1159), s(0, 0),
];

/// The side to move's bonus.
pub const TEMPO: S = s(10, 11);

/// Piece-square values of the pawn, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_PAWN: [S; 64] = [
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
    s(3, 11), s(13, 38), s(21, 41), s(35, 33), s(29, 43), s(33, 45), s(12, 27), s(5, 29),
    s(25, 25), s(0, 41), s(3, 26), s(41, 23), s(37, 26), s(52, 32), s(20, 33), s(4, 43),
    s(0, 35), s(-9, 11), s(-11, 6), s(-2, -5), s(12, -8), s(19, 1), s(8, -1), s(8, 7),
    s(-5, 8), s(-8, 18), s(-3, -7), s(3, -12), s(11, -15), s(9, -12), s(0, -1), s(0, -11),
    s(-19, 10), s(-17, 8), s(-13, -8), s(-13, -7), s(-6, -2), s(-4, -3), s(-6, -5), s(-13, -13),
    s(-9, 18), s(-7, 16), s(-4, 5), s(4, -7), s(-1, 21), s(11, 11), s(7, 4), s(-13, -7),
    s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0), s(0, 0),
];

/// Piece-square values of the knight, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KNIGHT: [S; 64] = [
    s(-67, -47), s(-26, -15), s(-16, -10), s(-11, -9), s(-17, -5), s(-20, -9), s(-30, -25), s(-52, -37),
    s(-18, -6), s(-8, -9), s(7, 1), s(19, 21), s(17, 9), s(14, 7), s(-1, -2), s(-20, -15),
    s(-4, -4), s(-2, -5), s(19, 6), s(28, 3), s(11, 16), s(33, 14), s(7, 5), s(-11, -12),
    s(7, -4), s(-14, -1), s(7, 2), s(8, 23), s(-14, 24), s(5, 19), s(-2, 6), s(3, 1),
    s(-7, -9), s(8, 8), s(1, 8), s(-2, 14), s(13, 18), s(11, 17), s(24, 11), s(4, -2),
    s(-20, -24), s(-24, -9), s(-20, -8), s(-7, 7), s(-2, 11), s(-12, -13), s(-6, -9), s(0, -16),
    s(-28, -25), s(-18, 0), s(-17, -13), s(-17, -7), s(-10, -6), s(-16, -11), s(-7, -12), s(-16, -24),
    s(-49, -32), s(-16, -22), s(-39, -20), s(0, 5), s(2, 1), s(-21, -17), s(-14, -22), s(-41, -36),
];

/// Piece-square values of the bishop, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_BISHOP: [S; 64] = [
    s(-23, -17), s(-16, -11), s(-10, 4), s(-14, 2), s(-11, 1), s(-15, -11), s(-8, -8), s(-19, -17),
    s(-6, -3), s(-22, -2), s(0, 10), s(4, 13), s(-5, 2), s(-4, -1), s(-27, -10), s(-20, -8),
    s(6, 4), s(15, 7), s(-4, -10), s(8, 4), s(15, 8), s(18, 7), s(6, 12), s(3, 14),
    s(-5, 2), s(5, 13), s(5, 14), s(21, 8), s(6, 11), s(28, 13), s(6, 11), s(-8, -3),
    s(13, -5), s(9, 7), s(4, 18), s(22, 10), s(22, 14), s(4, 8), s(-5, 6), s(24, -10),
    s(-4, -11), s(15, 3), s(-7, 3), s(1, 5), s(3, 22), s(-12, -8), s(18, -9), s(3, 3),
    s(7, -5), s(-12, -30), s(12, -5), s(-9, 13), s(-8, 4), s(2, -6), s(-1, -14), s(-7, -19),
    s(-20, -22), s(14, -10), s(-9, 1), s(-16, 0), s(-9, 9), s(-19, 4), s(-13, -14), s(-28, -21),
];

/// Piece-square values of the rook, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_ROOK: [S; 64] = [
    s(16, 14), s(20, 22), s(13, 20), s(20, 13), s(19, 20), s(8, 13), s(17, 20), s(14, 15),
    s(0, 7), s(2, 6), s(13, 10), s(34, 5), s(17, 1), s(20, 7), s(18, 8), s(25, 5),
    s(8, 15), s(12, 21), s(4, 20), s(14, 7), s(27, 11), s(25, 10), s(11, 20), s(-10, 24),
    s(-13, 22), s(11, 20), s(0, 21), s(8, 8), s(-3, 5), s(2, 13), s(-1, 14), s(6, 11),
    s(-30, 18), s(-7, 12), s(-15, 7), s(-8, 4), s(-13, 3), s(-18, 14), s(-3, 13), s(-3, -3),
    s(-39, 3), s(-13, 1), s(-17, 6), s(5, -14), s(1, -10), s(11, -7), s(14, -10), s(9, -11),
    s(-39, 0), s(-19, -14), s(-9, -2), s(-18, -4), s(0, -24), s(-15, -20), s(-2, -24), s(-26, -25),
    s(-23, -4), s(-14, -14), s(-18, 0), s(-2, -18), s(3, -28), s(-8, -12), s(1, -26), s(-16, -24),
];

/// Piece-square values of the queen, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_QUEEN: [S; 64] = [
    s(-10, -10), s(-2, -4), s(-8, -5), s(3, -1), s(-6, -7), s(-5, -8), s(-5, -2), s(-5, -10),
    s(-19, -4), s(-26, -1), s(1, 11), s(3, 8), s(-11, 4), s(9, 12), s(-21, 0), s(11, -1),
    s(2, -5), s(4, 9), s(-16, 6), s(-12, 18), s(9, 17), s(16, 16), s(3, 9), s(-3, 1),
    s(0, 2), s(0, 12), s(-12, 8), s(-16, 15), s(-3, 21), s(0, 13), s(-4, 7), s(7, -4),
    s(-2, -5), s(-6, 12), s(0, -8), s(-12, 28), s(-7, 13), s(6, 12), s(9, -1), s(11, -3),
    s(3, -8), s(-1, -10), s(-4, 14), s(-11, 10), s(3, 4), s(6, 10), s(13, -5), s(3, -10),
    s(-12, -9), s(-4, 0), s(5, -11), s(6, -5), s(7, -6), s(8, -7), s(-3, -13), s(-28, -17),
    s(-6, -17), s(-5, -10), s(-3, -25), s(-1, -1), s(18, -21), s(-11, -27), s(-15, -17), s(-7, -15),
];

/// Piece-square values of the king, as a diagram seen from White (rank 8 first).
#[rustfmt::skip]
pub const PSQT_KING: [S; 64] = [
    s(-60, -52), s(-60, -25), s(-60, -15), s(-60, -11), s(-60, -12), s(-60, -20), s(-60, -25), s(-60, -50),
    s(-50, -32), s(-46, 10), s(-45, 17), s(-48, 19), s(-50, 16), s(-49, 15), s(-50, 7), s(-50, -21),
    s(-45, -11), s(-40, 31), s(-40, 40), s(-41, 39), s(-40, 42), s(-40, 48), s(-40, 34), s(-43, -2),
    s(-38, -3), s(-37, 35), s(-38, 38), s(-42, 40), s(-43, 46), s(-34, 42), s(-36, 29), s(-39, 3),
    s(-31, -15), s(-30, 10), s(-29, 26), s(-36, 23), s(-41, 27), s(-30, 26), s(-29, 16), s(-42, -23),
    s(-17, -26), s(-5, 4), s(-14, 9), s(-32, 10), s(-15, 11), s(-16, -1), s(-6, -9), s(-30, -45),
    s(10, -49), s(1, -25), s(4, -18), s(-13, -11), s(-15, -13), s(-12, -21), s(2, -36), s(-24, -51),
    s(-13, -77), s(24, -48), s(11, -32), s(-13, -36), s(-22, -45), s(-27, -33), s(10, -54), s(1, -103),
];

/// A pawn with an own pawn in front of it on its file.
pub const DOUBLED: S = s(3, -25);

/// A pawn with no own pawn on the adjacent files.
pub const ISOLATED: S = s(-2, -7);

/// Extra for an isolated pawn with no enemy pawn in front.
pub const ISOLATED_OPEN: S = s(-6, -7);

/// A backward pawn (no neighbour level or behind, stop square held).
pub const BACKWARD: S = s(2, -6);

/// Extra for a backward pawn with no enemy pawn in front.
pub const BACKWARD_OPEN: S = s(-10, -10);

/// A defended or side-by-side pawn, by relative rank.
#[rustfmt::skip]
pub const CONNECTED: [S; 8] = [
    s(0, 0), s(1, 1), s(14, 13), s(7, 8), s(18, 19), s(41, 44), s(48, 53), s(0, 0),
];

/// Extra for a pawn with a neighbour beside it, by relative rank.
#[rustfmt::skip]
pub const PHALANX: [S; 8] = [
    s(0, 0), s(-1, 1), s(-3, -8), s(4, 1), s(4, 18), s(19, 28), s(22, 22), s(0, 0),
];

/// A candidate passed pawn (half-open file, enough helpers), by relative rank.
#[rustfmt::skip]
pub const CANDIDATE: [S; 8] = [
    s(0, 0), s(-1, -4), s(-1, 1), s(4, 24), s(9, 22), s(45, 56), s(0, 0), s(0, 0),
];

/// Own pawn nearest in front of the king on a file, by ranks ahead (5: none); middle game.
#[rustfmt::skip]
pub const SHIELD: [i32; 6] = [
    3, -7, -12, -26, -21, -28,
];

/// Extra for no own pawn on the king's own file; middle game.
pub const SHIELD_OPEN_KING_FILE: i32 = -9;

/// Nearest enemy pawn on a shelter file, by ranks ahead of the king; middle game.
#[rustfmt::skip]
pub const STORM: [i32; 8] = [
    26, 32, -12, -10, 0, 2, 2, 0,
];

/// The same when an own pawn blocks it; middle game.
#[rustfmt::skip]
pub const STORM_BLOCKED: [i32; 8] = [
    0, -5, -19, -4, 4, -5, -6, 0,
];

/// King danger by attack units (subtracted from the attacked side).
#[rustfmt::skip]
pub const KING_DANGER: [S; 64] = [
    s(0, 0), s(0, 0), s(2, 2), s(2, 4), s(2, 4), s(2, 4), s(2, 4), s(2, 4),
    s(4, 4), s(11, 9), s(11, 13), s(11, 28), s(12, 29), s(15, 30), s(20, 30), s(35, 32),
    s(54, 32), s(78, 32), s(96, 32), s(118, 32), s(141, 32), s(163, 32), s(188, 32), s(206, 32),
    s(233, 32), s(255, 33), s(274, 38), s(293, 38), s(317, 41), s(339, 45), s(360, 45), s(386, 49),
    s(410, 52), s(435, 54), s(462, 57), s(490, 61), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
    s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62), s(500, 62),
];

/// A knight near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_KNIGHT: [S; 8] = [
    s(0, 0), s(28, 0), s(33, -4), s(1, 25), s(-17, 30), s(-13, 21), s(-21, 18), s(-29, 10),
];

/// A bishop near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_BISHOP: [S; 8] = [
    s(0, 0), s(-14, 12), s(16, 15), s(-1, 12), s(-11, 16), s(-10, 13), s(-15, 16), s(-14, 12),
];

/// A rook near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_ROOK: [S; 8] = [
    s(0, 0), s(30, 30), s(3, 8), s(-8, 17), s(-27, 23), s(-38, 25), s(-29, 24), s(-30, 30),
];

/// A queen near the enemy king, by king distance.
#[rustfmt::skip]
pub const TROPISM_QUEEN: [S; 8] = [
    s(0, 0), s(14, 0), s(35, 58), s(-1, 55), s(-5, 37), s(1, 18), s(3, -5), s(3, -15),
];

/// Mobility of a knight by safe squares reached.
#[rustfmt::skip]
pub const MOB_KNIGHT: [S; 9] = [
    s(-54, -50), s(-35, -37), s(-17, -14), s(-9, 6), s(-2, 17), s(7, 30), s(9, 37), s(9, 45),
    s(17, 36),
];

/// Mobility of a bishop by safe squares reached.
#[rustfmt::skip]
pub const MOB_BISHOP: [S; 14] = [
    s(-33, -59), s(-15, -26), s(-6, -10), s(-1, 11), s(1, 22), s(7, 27), s(9, 36), s(11, 40),
    s(14, 42), s(13, 46), s(16, 42), s(36, 42), s(33, 37), s(36, 41),
];

/// Mobility of a rook by safe squares reached.
#[rustfmt::skip]
pub const MOB_ROOK: [S; 15] = [
    s(-28, -46), s(-21, -31), s(-15, 7), s(-14, 16), s(-11, 26), s(-10, 32), s(-9, 44), s(-2, 42),
    s(-1, 48), s(3, 52), s(6, 53), s(0, 60), s(24, 51), s(23, 54), s(32, 56),
];

/// Mobility of a queen by safe squares reached.
#[rustfmt::skip]
pub const MOB_QUEEN: [S; 28] = [
    s(-15, -30), s(-11, -20), s(-8, -12), s(-24, -13), s(-14, -8), s(-5, -11), s(-2, -11), s(1, -13),
    s(1, 9), s(3, 14), s(4, 32), s(7, 32), s(7, 37), s(9, 42), s(14, 43), s(18, 43),
    s(17, 43), s(28, 44), s(21, 45), s(21, 43), s(25, 42), s(25, 35), s(20, 34), s(16, 32),
    s(15, 32), s(16, 32), s(17, 33), s(17, 33),
];

/// A knight on an outpost.
pub const KNIGHT_OUTPOST: S = s(5, 4);

/// A knight on an outpost defended by a pawn.
pub const KNIGHT_OUTPOST_SUPPORTED: S = s(10, 8);

/// A bishop on an outpost defended by a pawn.
pub const BISHOP_OUTPOST_SUPPORTED: S = s(28, 12);

/// Both bishops.
pub const BISHOP_PAIR: S = s(19, 91);

/// A rook on an open file.
pub const ROOK_OPEN_FILE: S = s(25, 7);

/// A rook on a half-open file.
pub const ROOK_HALF_OPEN_FILE: S = s(13, 6);

/// A rook on the seventh rank.
pub const ROOK_SEVENTH: S = s(-5, 14);

/// A rook shut in by its own king.
pub const ROOK_TRAPPED: S = s(-30, -14);

/// Own d/e pawn on its second rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN: S = s(0, -4);

/// Own d/e pawn on its third rank with the square in front occupied.
pub const BLOCKED_CENTER_PAWN_3: S = s(2, -3);

/// Per bishop: each own blocked pawn on the bishop's square colour.
pub const BAD_BISHOP_PAWN: S = s(-3, -17);

/// An enemy piece attacked by a pawn.
pub const THREAT_BY_PAWN: S = s(38, 52);

/// An enemy pawn, knight, bishop, rook or queen attacked by a minor piece (pawns and minors only when no enemy pawn defends them).
#[rustfmt::skip]
pub const THREAT_BY_MINOR: [S; 5] = [
    s(-2, 18), s(12, 40), s(16, 12), s(34, 22), s(24, 25),
];

/// An enemy pawn, knight, bishop, rook or queen attacked by a rook (all but the queen only when no enemy pawn defends them).
#[rustfmt::skip]
pub const THREAT_BY_ROOK: [S; 5] = [
    s(-4, 24), s(9, 32), s(15, 31), s(-3, 5), s(39, 14),
];

/// An enemy pawn or piece attacked by the king and not defended.
pub const THREAT_BY_KING: S = s(17, 38);

/// An enemy piece a safe pawn push would attack.
pub const THREAT_PAWN_PUSH: S = s(11, 19);

/// An enemy piece attacked and not defended.
pub const HANGING: S = s(8, 3);

/// Per square of the king zone the enemy attacks and only the king or queen defends.
pub const KING_WEAK_SQUARE: S = s(-10, 0);

/// Per square from which an enemy knight, bishop, rook or queen can give a safe check.
#[rustfmt::skip]
pub const SAFE_CHECK_SQUARES: [S; 6] = [
    s(0, 0), s(-38, -9), s(-4, -36), s(-26, -16), s(1, -28), s(0, 0),
];

/// A knight or bishop with an own pawn right in front of it.
pub const MINOR_BEHIND_PAWN: S = s(9, 2);

/// A bishop seeing both centre squares of a long diagonal past the pawns.
pub const BISHOP_LONG_DIAGONAL: S = s(21, 12);

/// A rook on the file of an enemy queen.
pub const ROOK_ON_QUEEN_FILE: S = s(7, -8);

/// Per square of the own half of files c-f not attacked by enemy pawns nor taken by own pawns (squares behind own pawns count twice).
pub const SPACE: S = s(2, -1);

/// Per knight, per own pawn more than five (fewer count negative).
pub const KNIGHT_PAWNS: S = s(0, 6);

/// Per rook, per own pawn more than five (fewer count negative).
pub const ROOK_PAWNS: S = s(-7, -3);

/// The king's distance to the nearest pawn of either colour.
#[rustfmt::skip]
pub const KING_PAWN_DISTANCE: [S; 8] = [
    s(0, 0), s(5, 12), s(-2, 12), s(-1, 8), s(2, -8), s(-2, -16), s(0, -6), s(0, 0),
];

/// A king on a flank without pawns.
pub const PAWNLESS_FLANK: S = s(-6, -55);

/// An own rook behind a passed pawn on its file.
pub const ROOK_BEHIND_PASSER: S = s(11, 13);

/// A passed pawn, by relative rank.
#[rustfmt::skip]
pub const PASSED: [S; 8] = [
    s(0, 0), s(1, 19), s(-10, 27), s(-5, 43), s(37, 67), s(61, 98), s(99, 160), s(0, 0),
];

/// Per square of the enemy king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_THEIRS: [S; 8] = [
    s(0, 0), s(2, -2), s(-9, 5), s(-2, 16), s(2, 24), s(0, 44), s(15, 53), s(0, 0),
];

/// Per square of the own king's distance (at most 5) to the stop square, by rank.
#[rustfmt::skip]
pub const PASSED_KING_OWN: [S; 8] = [
    s(0, 0), s(-5, 0), s(9, -7), s(2, -14), s(-4, -17), s(-5, -27), s(-2, -35), s(0, 0),
];

/// No enemy piece or attack on the path to promotion, by rank.
#[rustfmt::skip]
pub const PASSED_FREE_PATH: [S; 8] = [
    s(0, 0), s(-6, 23), s(-12, 15), s(-12, 21), s(-5, 33), s(20, 48), s(24, 48), s(0, 0),
];

/// The stop square free and safe (rest of the path not), by rank.
#[rustfmt::skip]
pub const PASSED_SAFE_PUSH: [S; 8] = [
    s(0, 0), s(7, 1), s(7, -7), s(2, 1), s(3, 14), s(20, 21), s(7, 21), s(0, 0),
];

/// A passed pawn with a passed neighbour next to it, by rank.
#[rustfmt::skip]
pub const PASSED_CONNECTED: [S; 8] = [
    s(4, 8), s(3, -15), s(-8, -3), s(-15, 15), s(9, 6), s(22, 25), s(28, 53), s(4, 8),
];
