//! `Move` (16 bits: from, to, 4-bit kind) and `MoveList`, a fixed-capacity list that
//! never allocates.

use super::types::{PieceType, Square};
use std::fmt;
use std::mem::MaybeUninit;

/// A move: bits 0-5 from, 6-11 to, 12-15 kind. `Move::NULL` (all zero) is the null
/// move; it is never produced by move generation (a1a1 is not a move).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(pub u16);

/// The four kind bits of a move.
pub mod kind {
    pub const QUIET: u16 = 0;
    pub const DOUBLE_PUSH: u16 = 1;
    pub const KING_CASTLE: u16 = 2;
    pub const QUEEN_CASTLE: u16 = 3;
    pub const CAPTURE: u16 = 4;
    pub const EN_PASSANT: u16 = 5;
    /// Promotion flag; the low two bits give the piece (N, B, R, Q).
    pub const PROMOTION: u16 = 8;
    pub const PROMO_CAPTURE: u16 = 12;
}

impl Move {
    pub const NULL: Move = Move(0);

    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: u16) -> Move {
        Move(from as u16 | (to as u16) << 6 | kind << 12)
    }

    /// A promotion to `piece` (knight to queen), capturing or not.
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, piece: PieceType, capture: bool) -> Move {
        let base = if capture {
            kind::PROMO_CAPTURE
        } else {
            kind::PROMOTION
        };
        Move::new(from, to, base | (piece as u16 - 1))
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index((self.0 & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index(((self.0 >> 6) & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> u16 {
        self.0 >> 12
    }

    #[inline(always)]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }

    /// Captures, including en passant and capturing promotions.
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.0 & (kind::CAPTURE << 12) != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & (kind::PROMOTION << 12) != 0
    }

    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.kind() == kind::EN_PASSANT
    }

    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        matches!(self.kind(), kind::KING_CASTLE | kind::QUEEN_CASTLE)
    }

    #[inline(always)]
    pub const fn is_double_push(self) -> bool {
        self.kind() == kind::DOUBLE_PUSH
    }

    /// Neither a capture nor a promotion.
    #[inline(always)]
    pub const fn is_quiet(self) -> bool {
        self.0 & ((kind::CAPTURE | kind::PROMOTION) << 12) == 0
    }

    /// The promotion piece, if this is a promotion.
    #[inline(always)]
    pub const fn promotion_piece(self) -> Option<PieceType> {
        if self.is_promotion() {
            Some(PieceType::ALL[((self.0 >> 12) & 3) as usize + 1])
        } else {
            None
        }
    }

    /// Coordinate notation (`e2e4`, `e7e8q`, `e1g1` for castling, `0000` for null).
    pub fn to_uci(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_null() {
            return f.write_str("0000");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(p) = self.promotion_piece() {
            write!(f, "{}", p.upper_char().to_ascii_lowercase())?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({self}, kind {})", self.kind())
    }
}

/// Capacity of a move list: the most legal moves known in any position is 218.
pub const MAX_MOVES: usize = 256;

/// A fixed-capacity list of moves.
///
/// The storage is left uninitialised: a search builds a list at every node, and
/// zeroing 256 entries each time cost more than filling the few that are used.
/// Only the first `len` entries (at most `MAX_MOVES`) are ever read, and `push`
/// writes them in order, so every entry read has been written.
#[derive(Clone)]
pub struct MoveList {
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveList {
    #[inline(always)]
    pub const fn new() -> MoveList {
        MoveList {
            moves: [const { MaybeUninit::uninit() }; MAX_MOVES],
            len: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        debug_assert!(self.len < MAX_MOVES);
        // The capacity exceeds the largest legal move count, so this never overflows;
        // the mask keeps even a broken caller memory-safe.
        self.moves[self.len & (MAX_MOVES - 1)] = MaybeUninit::new(m);
        self.len += 1;
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Number of entries written: `len`, or the whole capacity after a wrap-around.
    #[inline(always)]
    fn filled(&self) -> usize {
        self.len.min(MAX_MOVES)
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: `push` writes index `len & (MAX_MOVES - 1)` before incrementing
        // `len`, so the first `filled()` entries are initialised; `Move` is `Copy`
        // and `MaybeUninit<Move>` has `Move`'s layout.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.filled()) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        let n = self.filled();
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), n) }
    }

    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
}

impl std::ops::Index<usize> for MoveList {
    type Output = Move;
    fn index(&self, i: usize) -> &Move {
        &self.as_slice()[i]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.iter().map(|m| m.to_string()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_list_reads_back_what_was_pushed() {
        let mut list = MoveList::new();
        assert!(list.is_empty());
        assert_eq!(list.as_slice(), &[] as &[Move]);
        let moves: Vec<Move> = (0..200u16)
            .map(|i| {
                Move::new(
                    Square::from_index((i % 64) as u8),
                    Square::from_index(((i * 7 + 1) % 64) as u8),
                    (i / 64) % 4,
                )
            })
            .collect();
        for &m in &moves {
            list.push(m);
        }
        assert_eq!(list.len(), 200);
        assert_eq!(list.as_slice(), moves.as_slice());
        assert_eq!(list[137], moves[137]);
        list.as_mut_slice().swap(0, 199);
        assert_eq!(list[0], moves[199]);
        assert!(list.contains(moves[5]));
        let copy = list.clone();
        list.clear();
        assert!(list.is_empty() && list.iter().next().is_none());
        assert_eq!(copy.len(), 200);
        assert_eq!(copy[0], moves[199]);
        list.push(moves[3]);
        assert_eq!(list.as_slice(), &[moves[3]]);
    }
}
