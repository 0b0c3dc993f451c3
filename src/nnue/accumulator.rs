//! The accumulators along the search's line: one per ply, each made from its
//! parent by the move's few changed inputs (a stack allocated once, no allocation
//! while searching).

use super::{feature, simd, Accumulator, Network, HIDDEN};
use crate::chess::{Board, Color, Move, Piece, PieceType, Square};
use std::sync::Arc;

/// The inputs one move changes: at most two pieces leave a square and two arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Delta {
    /// (piece index 0-11, square index)
    pub removed: [(u8, u8); 2],
    pub n_removed: u8,
    pub added: [(u8, u8); 2],
    pub n_added: u8,
}

impl Delta {
    fn remove(&mut self, p: Piece, sq: Square) {
        self.removed[self.n_removed as usize] = (p.index() as u8, sq.index() as u8);
        self.n_removed += 1;
    }

    fn add(&mut self, p: Piece, sq: Square) {
        self.added[self.n_added as usize] = (p.index() as u8, sq.index() as u8);
        self.n_added += 1;
    }

    /// What `m`, legal on `board`, changes (read before it is made).
    pub fn of(board: &Board, m: Move) -> Delta {
        let mut d = Delta::default();
        let (from, to) = (m.from(), m.to());
        let Some(piece) = board.piece_at(from) else {
            return d;
        };
        let us = piece.color();
        if m.is_castle() {
            let (rf, rt) = Board::castle_rook_squares(to);
            let rook = Piece::new(us, PieceType::Rook);
            d.remove(piece, from);
            d.remove(rook, rf);
            d.add(piece, to);
            d.add(rook, rt);
        } else if m.is_en_passant() {
            d.remove(piece, from);
            d.remove(
                Piece::new(!us, PieceType::Pawn),
                Square::new(to.file(), from.rank()),
            );
            d.add(piece, to);
        } else {
            d.remove(piece, from);
            if let Some(cap) = board.piece_at(to) {
                d.remove(cap, to);
            }
            let arrives = m.promotion_piece().map_or(piece, |k| Piece::new(us, k));
            d.add(arrives, to);
        }
        d
    }
}

/// Accumulators for the positions of the line being searched. A move only notes
/// what it changes; the accumulator is brought up to date when its position is
/// evaluated (a position whose evaluation comes from the hash table never pays
/// for it), from the nearest one above it that is.
pub struct AccumulatorStack {
    net: Arc<Network>,
    entries: Vec<Entry>,
    top: usize,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    acc: Accumulator,
    /// What the move into this position changed (empty for a null move).
    delta: Delta,
    /// `acc` is up to date.
    computed: bool,
}

/// Plies the stack holds before it grows (more than any search line).
const DEPTH: usize = 320;

impl AccumulatorStack {
    pub fn new(net: Arc<Network>) -> AccumulatorStack {
        AccumulatorStack {
            net,
            entries: vec![Entry::default(); DEPTH],
            top: 0,
        }
    }

    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// Starts a line at `board` (computed from scratch).
    pub fn reset(&mut self, board: &Board) {
        self.top = 0;
        self.entries[0].acc = self.net.refresh(board);
        self.entries[0].computed = true;
    }

    /// The move `m` is about to be made on `board`.
    #[inline]
    pub fn push(&mut self, board: &Board, m: Move) {
        self.grow();
        self.top += 1;
        let e = &mut self.entries[self.top];
        e.delta = Delta::of(board, m);
        e.computed = false;
    }

    /// A null move is about to be made: the pieces stay where they are.
    #[inline]
    pub fn push_null(&mut self) {
        self.grow();
        self.top += 1;
        let e = &mut self.entries[self.top];
        e.delta = Delta::default();
        e.computed = false;
    }

    /// The last move (or null move) is taken back.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.top > 0, "accumulator stack underflow");
        self.top = self.top.saturating_sub(1);
    }

    #[inline(always)]
    fn grow(&mut self) {
        if self.top + 1 >= self.entries.len() {
            self.entries.push(Entry::default());
        }
    }

    /// Brings the current accumulator up to date.
    #[inline]
    fn update(&mut self) {
        if self.entries[self.top].computed {
            return;
        }
        let mut from = self.top;
        while !self.entries[from].computed {
            from -= 1; // entry 0 is always computed
        }
        for i in from + 1..=self.top {
            let (done, rest) = self.entries.split_at_mut(i);
            let (src, dst) = (&done[i - 1].acc, &mut rest[0]);
            let d = dst.delta;
            let row = |p: u8, sq: u8, persp: Color| {
                let f = feature(persp, p as usize, sq as usize);
                &self.net.ft_w[f * HIDDEN..(f + 1) * HIDDEN]
            };
            for (h, persp) in [Color::White, Color::Black].into_iter().enumerate() {
                let mut adds: [&[i16]; 2] = [&[]; 2];
                let mut subs: [&[i16]; 2] = [&[]; 2];
                for (slot, &(p, sq)) in adds.iter_mut().zip(&d.added[..d.n_added as usize]) {
                    *slot = row(p, sq, persp);
                }
                for (slot, &(p, sq)) in subs.iter_mut().zip(&d.removed[..d.n_removed as usize]) {
                    *slot = row(p, sq, persp);
                }
                simd::update(
                    &mut dst.acc.v[h],
                    &src.v[h],
                    &adds[..d.n_added as usize],
                    &subs[..d.n_removed as usize],
                );
            }
            dst.computed = true;
        }
    }

    /// The evaluation of the line's current position for `stm`, the side to move,
    /// with `pieces` on the board.
    #[inline]
    pub fn evaluate(&mut self, stm: Color, pieces: u32) -> i32 {
        self.update();
        self.net.output(&self.entries[self.top].acc, stm, pieces)
    }

    /// The current accumulator, brought up to date (for the tests).
    pub fn current(&mut self) -> &Accumulator {
        self.update();
        &self.entries[self.top].acc
    }
}
