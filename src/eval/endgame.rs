//! Known drawish endings and the bare-king mop-up. `scale` returns how much of the
//! stronger side's advantage survives (out of `SCALE_MAX`): no mating material, two
//! knights, a pawnless edge of less than a rook, bishop and wrong rook pawn, a lone
//! rook pawn with the defending king in the corner, opposite-coloured bishops, one
//! pawn up with equal pieces.

use super::constants::PIECE_VALUES;
use super::tables::*;
use crate::chess::{Bitboard, Board, Color, PieceType, Square};

pub const SCALE_MAX: i32 = 128;

/// Material of one side in counts and non-pawn value.
#[derive(Clone, Copy, Default, Debug)]
pub struct Material {
    pub count: [u32; 6],
    pub npm: i32,
}

impl Material {
    pub fn of(board: &Board, c: Color) -> Material {
        let mut m = Material::default();
        for k in PieceType::ALL {
            m.count[k.index()] = board.pieces(c, k).count();
        }
        m.npm = (1..5)
            .map(|k| m.count[k] as i32 * PIECE_VALUES[k])
            .sum::<i32>();
        m
    }

    #[inline(always)]
    fn pawns(&self) -> u32 {
        self.count[0]
    }

    #[inline(always)]
    fn only(&self, kind: usize, n: u32) -> bool {
        (1..5).all(|k| self.count[k] == if k == kind { n } else { 0 })
    }
}

/// Scale factor (0..=`SCALE_MAX`) for the advantage of `strong`.
pub fn scale(board: &Board, strong: Color, mat: &[Material; 2]) -> i32 {
    let weak = !strong;
    let s = &mat[strong.index()];
    let w = &mat[weak.index()];
    let bishop = PIECE_VALUES[PieceType::Bishop.index()];
    let rook = PIECE_VALUES[PieceType::Rook.index()];

    if s.pawns() == 0 {
        // Nothing or a lone minor cannot mate.
        if s.npm <= bishop {
            return 0;
        }
        let weak_bare = w.pawns() == 0 && w.npm == 0;
        if s.only(1, 2) {
            return if weak_bare { 0 } else { 16 };
        }
        if s.count[2] >= 2 && s.only(2, s.count[2]) {
            let b = board.pieces(strong, PieceType::Bishop);
            if (b & Bitboard::DARK_SQUARES).is_empty() || (b & Bitboard::LIGHT_SQUARES).is_empty() {
                return if weak_bare { 0 } else { 8 };
            }
        }
        // A pawnless edge of less than a rook rarely wins (queen against no queen
        // aside).
        if s.npm - w.npm < rook && !(s.count[4] > 0 && w.count[4] == 0) {
            return 16;
        }
        return SCALE_MAX;
    }

    // Rook pawns only, with at most a bishop that does not control the queening
    // square, and the defending king at the corner.
    let pawns = board.pieces(strong, PieceType::Pawn);
    for f in [0usize, 7] {
        if (pawns & !file_bb(f)).is_empty() {
            let promo = Square::new(
                crate::chess::File::ALL[f],
                strong.relative_rank(crate::chess::Rank::R8),
            );
            let wrong_bishop = s.only(2, 1)
                && board.pieces(strong, PieceType::Bishop).lsb().is_dark() != promo.is_dark();
            if (s.npm == 0 || wrong_bishop) && distance(board.king_square(weak), promo) <= 1 {
                return 0;
            }
        }
    }

    // Opposite-coloured bishops.
    if s.count[2] == 1 && w.count[2] == 1 {
        let sb = board.pieces(strong, PieceType::Bishop).lsb();
        let wb = board.pieces(weak, PieceType::Bishop).lsb();
        if sb.is_dark() != wb.is_dark() {
            if s.only(2, 1) && w.only(2, 1) {
                let diff = s.pawns() as i32 - w.pawns() as i32;
                return match diff {
                    i32::MIN..=1 => 32,
                    2 => 64,
                    _ => 96,
                };
            }
            // Same other pieces on both sides.
            if s.count[1] == w.count[1] && s.count[3] == w.count[3] && s.count[4] == w.count[4] {
                return 100;
            }
        }
    }

    // One pawn against none with equal pieces (KRP v KR, KQP v KQ, ...).
    if s.pawns() == 1 && w.pawns() == 0 && s.npm == w.npm && s.npm > 0 {
        return 80;
    }
    SCALE_MAX
}

/// Bonus (end game) for `strong` driving a bare king to the edge and approaching it;
/// with bishop and knight, towards a corner of the bishop's colour.
pub fn mop_up(board: &Board, strong: Color, mat: &[Material; 2]) -> i32 {
    let weak = !strong;
    let s = &mat[strong.index()];
    let w = &mat[weak.index()];
    if w.pawns() != 0 || w.npm != 0 || s.npm < PIECE_VALUES[PieceType::Rook.index()] {
        return 0;
    }
    let wk = board.king_square(weak);
    let sk = board.king_square(strong);
    let edge = if s.pawns() == 0 && s.count[1] == 1 && s.only_bn() {
        let dark = board.pieces(strong, PieceType::Bishop).lsb().is_dark();
        let corners = if dark {
            [Square::A1, Square::H8]
        } else {
            [Square::H1, Square::A8]
        };
        // 0 in the right corner .. 7 far from it, mapped onto 0..=6 like the centre
        // distance below (times two).
        (7 - distance(wk, corners[0]).min(distance(wk, corners[1]))) * 2
    } else {
        center_distance(wk) * 4
    };
    edge * 3 + (7 - distance(sk, wk)) * 4
}

impl Material {
    /// Exactly one bishop and one knight, nothing else but pawns.
    fn only_bn(&self) -> bool {
        self.count[1] == 1 && self.count[2] == 1 && self.count[3] == 0 && self.count[4] == 0
    }
}
