//! Pawn structure and the pawn/king hash (`hashp=`). An entry is keyed by the board's
//! pawn key and holds what depends on the pawns alone: each side's structure score
//! (doubled, isolated, backward, connected, candidate pawns), its passed pawns, pawn
//! attacks and attack spans (for outposts), half-open files and space; plus, per
//! side, what depends on the king square as well (shelter/storm score, distance to
//! the nearest pawn, a pawnless king flank) for the last king square and castling
//! rights seen, recomputed only when the king moves. The table belongs to one
//! `Evaluator` (one per search thread), so no locking.

use super::params::ix;
use super::score::S;
use super::tables::*;
use super::trace::{NoTrace, Tracer};
use super::weights::*;
use crate::chess::attacks::{pawn_attacks, pawn_attacks_bb};
use crate::chess::{Bitboard, Board, CastleRights, Color, PieceType, Square};

const NO_SHELTER: u16 = u16::MAX;

/// What the evaluation keeps about one pawn structure.
#[derive(Clone, Copy, Debug)]
pub struct PawnEntry {
    pub key: u64,
    /// Structure score of each side, from that side's point of view (unscaled).
    pub score: [S; 2],
    pub passed: [Bitboard; 2],
    pub attacks: [Bitboard; 2],
    /// Every square a side's pawns attack now or could attack after advancing.
    pub spans: [Bitboard; 2],
    /// Bit f set: no pawn of that side on file f.
    pub half_open: [u8; 2],
    /// King square | castling bits << 6 the shelter below belongs to.
    shelter_key: [u16; 2],
    /// Middle-game shelter/storm score of each side's king (from its own view).
    pub shelter: [i32; 2],
    /// Distance from each side's king to the nearest pawn of either colour; 0 when
    /// there are no pawns. Kept with the shelter (same king square).
    pub king_pawn_distance: [u8; 2],
    /// No pawn of either colour on the flank of each side's king.
    pub pawnless_flank: [bool; 2],
    /// Space count of each side (see [`space`]).
    pub space: [u8; 2],
}

impl PawnEntry {
    /// Structure of the given pawns, computed from scratch.
    pub fn compute(key: u64, white: Bitboard, black: Bitboard) -> PawnEntry {
        let pawns = [white, black];
        let attacks = [
            pawn_attacks_bb(Color::White, white),
            pawn_attacks_bb(Color::Black, black),
        ];
        let mut e = PawnEntry {
            key,
            score: [S::ZERO; 2],
            passed: [Bitboard::EMPTY; 2],
            attacks,
            spans: [
                fill_forward(Color::White, attacks[0]),
                fill_forward(Color::Black, attacks[1]),
            ],
            half_open: [0; 2],
            shelter_key: [NO_SHELTER; 2],
            shelter: [0; 2],
            king_pawn_distance: [0; 2],
            pawnless_flank: [false; 2],
            space: [0; 2],
        };
        for c in Color::ALL {
            let (score, passed) = structure(c, pawns[c.index()], pawns[(!c).index()], &mut NoTrace);
            e.score[c.index()] = score;
            e.passed[c.index()] = passed;
            let mut half_open = 0u8;
            for f in 0..8 {
                if (pawns[c.index()] & file_bb(f)).is_empty() {
                    half_open |= 1 << f;
                }
            }
            e.half_open[c.index()] = half_open;
            e.space[c.index()] = space(c, pawns[c.index()], attacks[(!c).index()]);
        }
        e
    }
}

/// Space of `c`: the squares of its own half of the centre files (ranks 2 to 4 from
/// its side) free of its own pawns `us` and of enemy pawn attacks; those behind its
/// own pawns count twice.
fn space(c: Color, us: Bitboard, their_attacks: Bitboard) -> u8 {
    let area = SPACE_FILES & ranks_up_to(c, 3) & !ranks_up_to(c, 0);
    let safe = area & !us & !their_attacks;
    (safe.count() + (safe & fill_forward(!c, us)).count()) as u8
}

/// Distance from `ksq` to the nearest of `pawns`, 0 when there are none.
fn nearest_pawn(ksq: Square, pawns: Bitboard) -> u8 {
    pawns
        .into_iter()
        .map(|p| distance(ksq, p))
        .min()
        .unwrap_or(0) as u8
}

/// Structure score of `c`'s pawns `us` against the enemy pawns `them`, and the set of
/// `c`'s passed pawns; each weight used is reported to `tr`.
pub fn structure<T: Tracer>(c: Color, us: Bitboard, them: Bitboard, tr: &mut T) -> (S, Bitboard) {
    let mut score = S::ZERO;
    let mut passed = Bitboard::EMPTY;
    let their_attacks = pawn_attacks_bb(!c, them);
    for sq in us {
        let f = sq.file().index();
        let r = rel_rank(c, sq);
        let front = forward_file(c, sq);
        let opposed = (them & front).not_empty();
        let neighbours = us & adjacent_files(f);
        let phalanx = neighbours & rank_bb(sq.rank().index());
        let supported = neighbours & pawn_attacks(!c, sq);
        let is_passed = (them & passed_mask(c, sq)).is_empty() && (us & front).is_empty();

        if (us & front).not_empty() {
            score += DOUBLED;
            tr.add(c, ix::DOUBLED, 1);
        }
        if is_passed {
            passed = passed.with(sq);
        }
        if neighbours.is_empty() {
            score += ISOLATED;
            tr.add(c, ix::ISOLATED, 1);
            if !opposed {
                score += ISOLATED_OPEN;
                tr.add(c, ix::ISOLATED_OPEN, 1);
            }
        } else if !is_passed {
            // Backward: no neighbour level with or behind it, and its stop square is
            // held by an enemy pawn.
            let stop = push_square(c, sq);
            let behind = neighbours & ranks_up_to(c, r);
            if behind.is_empty() && (their_attacks | them).contains(stop) {
                score += BACKWARD;
                tr.add(c, ix::BACKWARD, 1);
                if !opposed {
                    score += BACKWARD_OPEN;
                    tr.add(c, ix::BACKWARD_OPEN, 1);
                }
            }
        }
        if supported.not_empty() || phalanx.not_empty() {
            score += CONNECTED[r];
            tr.add(c, ix::CONNECTED + r, 1);
            if phalanx.not_empty() {
                score += PHALANX[r];
                tr.add(c, ix::PHALANX + r, 1);
            }
        }
        if !is_passed && !opposed {
            // Candidate: on a half-open file with at least as many helpers (own pawns
            // on the adjacent files, not ahead of it) as sentries (enemy pawns on the
            // adjacent files ahead of it).
            let sentries = them & passed_mask(c, sq);
            let helpers = neighbours & ranks_up_to(c, r);
            if helpers.count() >= sentries.count() {
                score += CANDIDATE[r];
                tr.add(c, ix::CANDIDATE + r, 1);
            }
        }
    }
    (score, passed)
}

/// Shelter and storm for `c`'s king on `ksq` (middle game, from `c`'s view); each
/// weight used is reported to `tr`.
fn shelter_at<T: Tracer>(c: Color, ksq: Square, us: Bitboard, them: Bitboard, tr: &mut T) -> i32 {
    let kr = rel_rank(c, ksq);
    let kf = ksq.file().index();
    let center = kf.clamp(1, 6);
    let in_front = ranks_from(c, kr);
    let mut score = 0;
    for f in center - 1..=center + 1 {
        let ours = us & file_bb(f) & in_front;
        let theirs = them & file_bb(f) & in_front;
        let our_rank = if ours.is_empty() {
            None
        } else {
            Some(nearest(c, ours))
        };
        match our_rank {
            Some(r) => {
                score += SHIELD[(r - kr).min(4)];
                tr.add(c, ix::SHIELD + (r - kr).min(4), 1);
            }
            None => {
                score += SHIELD[5];
                tr.add(c, ix::SHIELD + 5, 1);
                if f == kf {
                    score += SHIELD_OPEN_KING_FILE;
                    tr.add(c, ix::SHIELD_OPEN_KING_FILE, 1);
                }
            }
        }
        if theirs.not_empty() {
            let their_rank = nearest(c, theirs);
            let dist = (their_rank - kr).min(7);
            let blocked = our_rank.is_some_and(|r| r + 1 == their_rank);
            if blocked {
                score += STORM_BLOCKED[dist];
                tr.add(c, ix::STORM_BLOCKED + dist, 1);
            } else {
                score += STORM[dist];
                tr.add(c, ix::STORM + dist, 1);
            }
        }
    }
    score
}

/// Relative rank of the pawn of `set` nearest to `c`'s first rank.
#[inline(always)]
fn nearest(c: Color, set: Bitboard) -> usize {
    match c {
        Color::White => rel_rank(c, set.lsb()),
        Color::Black => rel_rank(c, set.msb()),
    }
}

/// A king's shelter, taking the better of where it stands and where it could still
/// castle to (`castle`: bit 0 king side, bit 1 queen side); the weights of the square
/// chosen are reported to `tr`.
pub fn shelter<T: Tracer>(
    c: Color,
    ksq: Square,
    castle: u8,
    us: Bitboard,
    them: Bitboard,
    tr: &mut T,
) -> i32 {
    let mut best = (shelter_at(c, ksq, us, them, &mut NoTrace), ksq);
    for (bit, sq) in [(1, Square::G1), (2, Square::C1)] {
        if castle & bit != 0 {
            let sq = sq.relative(c);
            let v = shelter_at(c, sq, us, them, &mut NoTrace);
            if v > best.0 {
                best = (v, sq);
            }
        }
    }
    if T::ON {
        shelter_at(c, best.1, us, them, tr);
    }
    best.0
}

/// The castling bits `shelter` takes for side `c`.
pub fn castle_bits(board: &Board, c: Color) -> u8 {
    let rights = board.castling();
    u8::from(rights.has(CastleRights::king_side(c)))
        | (u8::from(rights.has(CastleRights::queen_side(c))) << 1)
}

/// The pawn/king hash: a power-of-two array of entries, always replaced.
pub struct PawnTable {
    entries: Vec<PawnEntry>,
    mask: usize,
}

/// The fewest entries a table has (`hashp=0` still gets this many).
pub const MIN_ENTRIES: usize = 1024;

impl PawnTable {
    pub fn new(bytes: usize) -> PawnTable {
        let want = (bytes / std::mem::size_of::<PawnEntry>()).max(MIN_ENTRIES);
        // Largest power of two not above `want`.
        let n = 1usize << (usize::BITS - 1 - want.leading_zeros());
        let empty = PawnEntry::compute(0, Bitboard::EMPTY, Bitboard::EMPTY);
        PawnTable {
            entries: vec![empty; n],
            mask: n - 1,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Resets every entry to the (valid) entry of the empty pawn structure.
    pub fn clear(&mut self) {
        let empty = PawnEntry::compute(0, Bitboard::EMPTY, Bitboard::EMPTY);
        self.entries.fill(empty);
    }

    /// The entry for the board's pawns, computed on a miss, with both kings' shelter
    /// up to date.
    #[inline]
    pub fn probe(&mut self, board: &Board) -> &PawnEntry {
        let key = board.pawn_key();
        let idx = (key as usize) & self.mask;
        let white = board.pieces(Color::White, PieceType::Pawn);
        let black = board.pieces(Color::Black, PieceType::Pawn);
        let e = &mut self.entries[idx];
        if e.key != key {
            *e = PawnEntry::compute(key, white, black);
        }
        for c in Color::ALL {
            let ksq = board.king_square(c);
            let castle = castle_bits(board, c);
            let skey = ksq as u16 | (u16::from(castle) << 6);
            if e.shelter_key[c.index()] != skey {
                let (us, them) = match c {
                    Color::White => (white, black),
                    Color::Black => (black, white),
                };
                e.shelter[c.index()] = shelter(c, ksq, castle, us, them, &mut NoTrace);
                e.shelter_key[c.index()] = skey;
                let all = white | black;
                e.king_pawn_distance[c.index()] = nearest_pawn(ksq, all);
                e.pawnless_flank[c.index()] = (all & KING_FLANK[ksq.file().index()]).is_empty();
            }
        }
        e
    }
}
