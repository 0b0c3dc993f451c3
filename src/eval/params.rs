//! The registry of tunable weights: every constant of `weights.rs` by name, shape and
//! place in one flat vector, so the tuner can read them, trace how often each one
//! fires (`trace.rs`) and write the file back (`tools/tune/write.rs`). Adding a weight
//! means adding it to `weights.rs`, to the list below and to the evaluation with its
//! `Tracer::add` beside it; the trace test catches a forgotten one.

use super::score::{s, S};
use super::weights;

/// How a weight is laid out, and which halves the tuner may change.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    /// One (mg, eg) pair.
    Scalar,
    /// A list of pairs.
    Array,
    /// 64 pairs written as a board diagram from White's side, rank 8 first.
    Psqt,
    /// One middle-game-only number.
    MgScalar,
    /// A list of middle-game-only numbers.
    MgArray,
}

impl Shape {
    /// Whether only the middle-game half exists.
    pub const fn mg_only(self) -> bool {
        matches!(self, Shape::MgScalar | Shape::MgArray)
    }
}

/// One named weight.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub name: &'static str,
    pub shape: Shape,
    pub len: usize,
    pub doc: &'static str,
}

/// A constant of `weights.rs` as flat pairs.
pub trait Flat {
    const LEN: usize;
    fn flat(&self) -> Vec<S>;
}

impl Flat for S {
    const LEN: usize = 1;
    fn flat(&self) -> Vec<S> {
        vec![*self]
    }
}

impl Flat for i32 {
    const LEN: usize = 1;
    fn flat(&self) -> Vec<S> {
        vec![s(*self, 0)]
    }
}

impl<const N: usize> Flat for [S; N] {
    const LEN: usize = N;
    fn flat(&self) -> Vec<S> {
        self.to_vec()
    }
}

impl<const N: usize> Flat for [i32; N] {
    const LEN: usize = N;
    fn flat(&self) -> Vec<S> {
        self.iter().map(|&v| s(v, 0)).collect()
    }
}

const fn len_of<T: Flat>(_: &T) -> usize {
    T::LEN
}

macro_rules! registry {
    ($( $name:ident : $shape:ident = $doc:literal ;)*) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[derive(Clone, Copy)]
        enum Id { $($name),* }

        /// Every tunable weight, in the order of the flat vector (and of `weights.rs`).
        pub const PARAMS: &[Param] = &[
            $( Param {
                name: stringify!($name),
                shape: Shape::$shape,
                len: len_of(&weights::$name),
                doc: $doc,
            }, )*
        ];

        const fn offset(id: Id) -> usize {
            let mut i = 0;
            let mut o = 0;
            while i < id as usize {
                o += PARAMS[i].len;
                i += 1;
            }
            o
        }

        /// Where each weight starts in the flat vector.
        #[allow(dead_code)]
        pub mod ix {
            $( pub const $name: usize = super::offset(super::Id::$name); )*
        }

        /// The weights as compiled in, flattened in registry order.
        pub fn current() -> Vec<S> {
            let mut v = Vec::with_capacity(NUM_PARAMS);
            $( v.extend(Flat::flat(&weights::$name)); )*
            v
        }
    };
}

registry! {
    MATERIAL: Array = "Material per piece type (pawn, knight, bishop, rook, queen, king).";
    TEMPO: Scalar = "The side to move's bonus.";
    PSQT_PAWN: Psqt = "Piece-square values of the pawn, as a diagram seen from White (rank 8 first).";
    PSQT_KNIGHT: Psqt = "Piece-square values of the knight, as a diagram seen from White (rank 8 first).";
    PSQT_BISHOP: Psqt = "Piece-square values of the bishop, as a diagram seen from White (rank 8 first).";
    PSQT_ROOK: Psqt = "Piece-square values of the rook, as a diagram seen from White (rank 8 first).";
    PSQT_QUEEN: Psqt = "Piece-square values of the queen, as a diagram seen from White (rank 8 first).";
    PSQT_KING: Psqt = "Piece-square values of the king, as a diagram seen from White (rank 8 first).";
    DOUBLED: Scalar = "A pawn with an own pawn in front of it on its file.";
    ISOLATED: Scalar = "A pawn with no own pawn on the adjacent files.";
    ISOLATED_OPEN: Scalar = "Extra for an isolated pawn with no enemy pawn in front.";
    BACKWARD: Scalar = "A backward pawn (no neighbour level or behind, stop square held).";
    BACKWARD_OPEN: Scalar = "Extra for a backward pawn with no enemy pawn in front.";
    CONNECTED: Array = "A defended or side-by-side pawn, by relative rank.";
    PHALANX: Array = "Extra for a pawn with a neighbour beside it, by relative rank.";
    CANDIDATE: Array = "A candidate passed pawn (half-open file, enough helpers), by relative rank.";
    SHIELD: MgArray = "Own pawn nearest in front of the king on a file, by ranks ahead (5: none); middle game.";
    SHIELD_OPEN_KING_FILE: MgScalar = "Extra for no own pawn on the king's own file; middle game.";
    STORM: MgArray = "Nearest enemy pawn on a shelter file, by ranks ahead of the king; middle game.";
    STORM_BLOCKED: MgArray = "The same when an own pawn blocks it; middle game.";
    KING_DANGER: Array = "King danger by attack units (subtracted from the attacked side).";
    TROPISM_KNIGHT: Array = "A knight near the enemy king, by king distance.";
    TROPISM_BISHOP: Array = "A bishop near the enemy king, by king distance.";
    TROPISM_ROOK: Array = "A rook near the enemy king, by king distance.";
    TROPISM_QUEEN: Array = "A queen near the enemy king, by king distance.";
    MOB_KNIGHT: Array = "Mobility of a knight by safe squares reached.";
    MOB_BISHOP: Array = "Mobility of a bishop by safe squares reached.";
    MOB_ROOK: Array = "Mobility of a rook by safe squares reached.";
    MOB_QUEEN: Array = "Mobility of a queen by safe squares reached.";
    KNIGHT_OUTPOST: Scalar = "A knight on an outpost.";
    KNIGHT_OUTPOST_SUPPORTED: Scalar = "A knight on an outpost defended by a pawn.";
    BISHOP_OUTPOST_SUPPORTED: Scalar = "A bishop on an outpost defended by a pawn.";
    BISHOP_PAIR: Scalar = "Both bishops.";
    ROOK_OPEN_FILE: Scalar = "A rook on an open file.";
    ROOK_HALF_OPEN_FILE: Scalar = "A rook on a half-open file.";
    ROOK_SEVENTH: Scalar = "A rook on the seventh rank.";
    ROOK_TRAPPED: Scalar = "A rook shut in by its own king.";
    BLOCKED_CENTER_PAWN: Scalar = "Own d/e pawn on its second rank with the square in front occupied.";
    BLOCKED_CENTER_PAWN_3: Scalar = "Own d/e pawn on its third rank with the square in front occupied.";
    BAD_BISHOP_PAWN: Scalar = "Per bishop: each own blocked pawn on the bishop's square colour.";
    THREAT_BY_PAWN: Scalar = "An enemy piece attacked by a pawn.";
    THREAT_BY_MINOR: Array = "An enemy pawn, knight, bishop, rook or queen attacked by a minor piece (pawns and minors only when no enemy pawn defends them).";
    THREAT_BY_ROOK: Array = "An enemy pawn, knight, bishop, rook or queen attacked by a rook (all but the queen only when no enemy pawn defends them).";
    THREAT_BY_KING: Scalar = "An enemy pawn or piece attacked by the king and not defended.";
    THREAT_PAWN_PUSH: Scalar = "An enemy piece a safe pawn push would attack.";
    HANGING: Scalar = "An enemy piece attacked and not defended.";
    KING_WEAK_SQUARE: Scalar = "Per square of the king zone the enemy attacks and only the king or queen defends.";
    SAFE_CHECK_SQUARES: Array = "Per square from which an enemy knight, bishop, rook or queen can give a safe check.";
    MINOR_BEHIND_PAWN: Scalar = "A knight or bishop with an own pawn right in front of it.";
    BISHOP_LONG_DIAGONAL: Scalar = "A bishop seeing both centre squares of a long diagonal past the pawns.";
    ROOK_ON_QUEEN_FILE: Scalar = "A rook on the file of an enemy queen.";
    SPACE: Scalar = "Per square of the own half of files c-f not attacked by enemy pawns nor taken by own pawns (squares behind own pawns count twice).";
    KNIGHT_PAWNS: Scalar = "Per knight, per own pawn more than five (fewer count negative).";
    ROOK_PAWNS: Scalar = "Per rook, per own pawn more than five (fewer count negative).";
    KING_PAWN_DISTANCE: Array = "The king's distance to the nearest pawn of either colour.";
    PAWNLESS_FLANK: Scalar = "A king on a flank without pawns.";
    ROOK_BEHIND_PASSER: Scalar = "An own rook behind a passed pawn on its file.";
    PASSED: Array = "A passed pawn, by relative rank.";
    PASSED_KING_THEIRS: Array = "Per square of the enemy king's distance (at most 5) to the stop square, by rank.";
    PASSED_KING_OWN: Array = "Per square of the own king's distance (at most 5) to the stop square, by rank.";
    PASSED_FREE_PATH: Array = "No enemy piece or attack on the path to promotion, by rank.";
    PASSED_SAFE_PUSH: Array = "The stop square free and safe (rest of the path not), by rank.";
    PASSED_CONNECTED: Array = "A passed pawn with a passed neighbour next to it, by rank.";
}

/// Length of the flat vector.
pub const NUM_PARAMS: usize = {
    let mut i = 0;
    let mut o = 0;
    while i < PARAMS.len() {
        o += PARAMS[i].len;
        i += 1;
    }
    o
};

/// Index into a diagram (rank 8 first) of square `sq` (a1 = 0) for colour index `ci`:
/// White's row is flipped, Black sees the board the other way round, which undoes it.
pub const fn psqt_index(ci: usize, sq: usize) -> usize {
    if ci == 0 {
        sq ^ 56
    } else {
        sq
    }
}

/// Start of each piece type's diagram in the flat vector.
pub const PSQT_IX: [usize; 6] = [
    ix::PSQT_PAWN,
    ix::PSQT_KNIGHT,
    ix::PSQT_BISHOP,
    ix::PSQT_ROOK,
    ix::PSQT_QUEEN,
    ix::PSQT_KING,
];

/// Start of each piece type's tropism table (pawn and king have none).
pub const TROPISM_IX: [usize; 6] = [
    usize::MAX,
    ix::TROPISM_KNIGHT,
    ix::TROPISM_BISHOP,
    ix::TROPISM_ROOK,
    ix::TROPISM_QUEEN,
    usize::MAX,
];

/// The text of `weights.rs` as compiled in (the tuner keeps its origin lines).
pub const SOURCE: &str = include_str!("weights.rs");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_covers_the_flat_vector() {
        assert_eq!(current().len(), NUM_PARAMS);
        assert_eq!(PARAMS.iter().map(|p| p.len).sum::<usize>(), NUM_PARAMS);
        assert_eq!(ix::MATERIAL, 0);
        assert_eq!(ix::TEMPO, 6);
        assert_eq!(ix::PSQT_KNIGHT - ix::PSQT_PAWN, 64);
        let last = PARAMS.last().unwrap();
        assert_eq!(ix::PASSED_CONNECTED + last.len, NUM_PARAMS);
        // Middle-game-only weights have no end-game half.
        let mut at = 0;
        for p in PARAMS {
            if p.shape.mg_only() {
                assert!(
                    current()[at..at + p.len].iter().all(|v| v.eg == 0),
                    "{}",
                    p.name
                );
            }
            if p.shape == Shape::Psqt {
                assert_eq!(p.len, 64, "{}", p.name);
            }
            at += p.len;
        }
    }
}
