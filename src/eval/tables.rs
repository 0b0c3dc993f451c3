//! Square-set tables the evaluation needs, all computed at compile time: files and
//! their neighbours, the squares in front of a pawn, passed-pawn masks, and small
//! geometric helpers (distances, relative ranks, fills).

use crate::chess::{Bitboard, Color, Square};

/// The four centre squares d4, e4, d5, e5.
pub const CENTER: Bitboard = Bitboard(0x0000_0018_1800_0000);
/// The long diagonals a1-h8 and h1-a8.
pub const LONG_DIAGONALS: Bitboard = Bitboard(0x8142_2418_1824_4281);
/// Files c to f, where space counts.
pub const SPACE_FILES: Bitboard = Bitboard(0x3C3C_3C3C_3C3C_3C3C);

/// Files a to d and e to h.
const QUEEN_FLANK: Bitboard = Bitboard(0x0F0F_0F0F_0F0F_0F0F);
const KING_SIDE_FLANK: Bitboard = Bitboard(0xF0F0_F0F0_F0F0_F0F0);

/// The flank of a king by its file: files a-d, c-f (the space files) or e-h.
pub const KING_FLANK: [Bitboard; 8] = [
    QUEEN_FLANK,
    QUEEN_FLANK,
    QUEEN_FLANK,
    SPACE_FILES,
    SPACE_FILES,
    KING_SIDE_FLANK,
    KING_SIDE_FLANK,
    KING_SIDE_FLANK,
];

pub const FILE_A: u64 = 0x0101_0101_0101_0101;

/// Every square of file `f` (0 = a).
#[inline(always)]
pub const fn file_bb(f: usize) -> Bitboard {
    Bitboard(FILE_A << f)
}

/// Every square of rank `r` (0 = first rank).
#[inline(always)]
pub const fn rank_bb(r: usize) -> Bitboard {
    Bitboard(0xFFu64 << (8 * r))
}

const fn adjacent_files_table() -> [u64; 8] {
    let mut t = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        let mut m = 0u64;
        if f > 0 {
            m |= FILE_A << (f - 1);
        }
        if f < 7 {
            m |= FILE_A << (f + 1);
        }
        t[f] = m;
        f += 1;
    }
    t
}

static ADJACENT_FILES: [u64; 8] = adjacent_files_table();

/// The files next to file `f` (not `f` itself).
#[inline(always)]
pub fn adjacent_files(f: usize) -> Bitboard {
    Bitboard(ADJACENT_FILES[f])
}

/// Squares on the same file strictly in front of each square, per colour.
const fn forward_file_table() -> [[u64; 64]; 2] {
    let mut t = [[0u64; 64]; 2];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = (sq % 8, sq / 8);
        let mut rr = r + 1;
        while rr < 8 {
            t[0][sq] |= 1u64 << (rr * 8 + f);
            rr += 1;
        }
        let mut rr = 0;
        while rr < r {
            t[1][sq] |= 1u64 << (rr * 8 + f);
            rr += 1;
        }
        sq += 1;
    }
    t
}

static FORWARD_FILE: [[u64; 64]; 2] = forward_file_table();

/// Squares strictly in front of `sq` on its file, from `c`'s point of view.
#[inline(always)]
pub fn forward_file(c: Color, sq: Square) -> Bitboard {
    Bitboard(FORWARD_FILE[c.index()][sq.index()])
}

const fn passed_mask_table() -> [[u64; 64]; 2] {
    let ff = forward_file_table();
    let adj = adjacent_files_table();
    let mut t = [[0u64; 64]; 2];
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let front = ff[c][sq];
            // The same ranks as `front`, spread over the adjacent files.
            let mut spread = front;
            let f = sq % 8;
            if f > 0 {
                spread |= front >> 1;
            }
            if f < 7 {
                spread |= front << 1;
            }
            t[c][sq] = spread & (adj[f] | (FILE_A << f));
            sq += 1;
        }
        c += 1;
    }
    t
}

static PASSED_MASK: [[u64; 64]; 2] = passed_mask_table();

/// Squares on the pawn's file and both neighbouring files strictly in front of `sq`:
/// a pawn of `c` there is passed when no enemy pawn stands in this set.
#[inline(always)]
pub fn passed_mask(c: Color, sq: Square) -> Bitboard {
    Bitboard(PASSED_MASK[c.index()][sq.index()])
}

/// All ranks from `c`'s first rank up to and including relative rank `rel` (0..8).
#[inline(always)]
pub fn ranks_up_to(c: Color, rel: usize) -> Bitboard {
    let ranks = if rel >= 7 {
        !0u64
    } else {
        (1u64 << (8 * (rel + 1))) - 1
    };
    match c {
        Color::White => Bitboard(ranks),
        Color::Black => Bitboard(ranks.swap_bytes()),
    }
}

/// All ranks from relative rank `rel` (0..8) up to `c`'s last rank.
#[inline(always)]
pub fn ranks_from(c: Color, rel: usize) -> Bitboard {
    if rel == 0 {
        Bitboard::FULL
    } else {
        !ranks_up_to(c, rel - 1)
    }
}

/// Rank of `sq` seen from `c` (0 = own first rank).
#[inline(always)]
pub const fn rel_rank(c: Color, sq: Square) -> usize {
    (sq as usize >> 3) ^ (7 * c as usize)
}

/// Chebyshev (king-move) distance.
#[inline(always)]
pub fn distance(a: Square, b: Square) -> i32 {
    let df = (a.index() & 7) as i32 - (b.index() & 7) as i32;
    let dr = (a.index() >> 3) as i32 - (b.index() >> 3) as i32;
    df.abs().max(dr.abs())
}

/// The square one step forward for `c` (the caller ensures it is on the board).
#[inline(always)]
pub const fn push_square(c: Color, sq: Square) -> Square {
    match c {
        Color::White => Square::from_index(sq as u8 + 8),
        Color::Black => Square::from_index(sq as u8 - 8),
    }
}

/// One step forward for `c`.
#[inline(always)]
pub const fn forward(c: Color, b: Bitboard) -> Bitboard {
    match c {
        Color::White => b.north(),
        Color::Black => b.south(),
    }
}

/// One step backward for `c`.
#[inline(always)]
pub const fn backward(c: Color, b: Bitboard) -> Bitboard {
    match c {
        Color::White => b.south(),
        Color::Black => b.north(),
    }
}

/// `b` together with every square in front of it (towards `c`'s last rank).
#[inline(always)]
pub const fn fill_forward(c: Color, b: Bitboard) -> Bitboard {
    let mut x = b.0;
    match c {
        Color::White => {
            x |= x << 8;
            x |= x << 16;
            x |= x << 32;
        }
        Color::Black => {
            x |= x >> 8;
            x |= x >> 16;
            x |= x >> 32;
        }
    }
    Bitboard(x)
}

/// Distance of a square from the centre (0 for d4/e4/d5/e5, 3 for the corners).
#[inline(always)]
pub fn center_distance(sq: Square) -> i32 {
    let f = (sq.index() & 7) as i32;
    let r = (sq.index() >> 3) as i32;
    let df = if f < 4 { 3 - f } else { f - 4 };
    let dr = if r < 4 { 3 - r } else { r - 4 };
    df.max(dr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(forward_file(Color::White, Square::E6).count(), 2);
        assert!(forward_file(Color::Black, Square::E6).contains(Square::E1));
        let m = passed_mask(Color::White, Square::E5);
        assert_eq!(m.count(), 9);
        assert!(m.contains(Square::D6) && m.contains(Square::F8) && !m.contains(Square::E5));
        assert_eq!(passed_mask(Color::Black, Square::A3).count(), 4);
        assert_eq!(ranks_up_to(Color::White, 1), rank_bb(0) | rank_bb(1));
        assert_eq!(ranks_up_to(Color::Black, 0), rank_bb(7));
        assert_eq!(ranks_from(Color::Black, 6), rank_bb(0) | rank_bb(1));
        assert_eq!(rel_rank(Color::Black, Square::E7), 1);
        assert_eq!(distance(Square::A1, Square::H8), 7);
        assert_eq!(center_distance(Square::A8), 3);
        assert_eq!(center_distance(Square::E5), 0);
        assert_eq!(
            fill_forward(Color::Black, Bitboard::from_square(Square::C3)),
            Bitboard::from_square(Square::C1)
                | Bitboard::from_square(Square::C2)
                | Bitboard::from_square(Square::C3)
        );
    }
}
