//! Move ordering: the history tables and the staged move picker.
//!
//! Order in the main search: hash move, good captures (SEE >= 0; MVV-LVA plus capture
//! history), killers, counter move, quiet moves by history, then bad captures and
//! underpromotions. In check every legal move is generated at once and scored. Moves
//! from the table, killers and counter moves are checked with `Board::is_legal` before
//! they are returned; generated moves are legal by construction.

use crate::chess::moves::MAX_MOVES;
use crate::chess::{Board, Color, GenType, Move, MoveList, Piece, PieceType};
use crate::eval::PIECE_VALUES;
use std::mem::MaybeUninit;

pub const HIST_MAX: i32 = 16384;

/// History tables of one search thread (allocated once, never in search).
pub struct Histories {
    /// Butterfly history: [colour][from * 64 + to].
    main: Vec<i16>,
    /// Capture history: [piece][to][captured kind].
    capture: Vec<i16>,
    /// Continuation history: [previous piece * 64 + previous to][piece * 64 + to].
    cont: Vec<i16>,
    /// Counter moves: [previous piece * 64 + previous to].
    counter: Vec<Move>,
    /// Corrections of the static evaluation, the running means of (search score -
    /// static evaluation) in 1/256 centipawn: [table][side to move][key slot], where
    /// table 0 is keyed by the pawns, tables 1 and 2 by White's and Black's other
    /// pieces (see `CorrKeys`).
    corr: Vec<i16>,
}

/// Slots per colour in each correction table.
const CORR_SLOTS: usize = 16384;
/// Correction tables: pawns, White's pieces, Black's pieces.
const CORR_TABLES: usize = 3;

/// The keys of one position in the correction tables, with its side to move.
#[derive(Clone, Copy, Debug)]
pub struct CorrKeys {
    side: usize,
    keys: [u64; CORR_TABLES],
}

impl CorrKeys {
    pub fn of(board: &Board) -> CorrKeys {
        CorrKeys {
            side: board.side_to_move().index(),
            keys: [
                board.pawn_key(),
                board.non_pawn_key(Color::White),
                board.non_pawn_key(Color::Black),
            ],
        }
    }
}
/// Fixed-point unit of correction entries (1/256 centipawn).
const CORR_GRAIN: i32 = 256;
/// Largest correction, 96 centipawns.
const CORR_LIMIT: i32 = 96 * CORR_GRAIN;

impl Default for Histories {
    fn default() -> Self {
        Self::new()
    }
}

/// Index of a (piece, square) pair in continuation tables; `CONT_NONE` for none.
pub type ContIdx = usize;
pub const CONT_NONE: ContIdx = 768;

#[inline(always)]
pub fn cont_idx(p: Piece, to: crate::chess::Square) -> ContIdx {
    p.index() * 64 + to.index()
}

#[inline(always)]
fn gravity(entry: &mut i16, bonus: i32) {
    let b = bonus.clamp(-HIST_MAX, HIST_MAX);
    let v = *entry as i32;
    *entry = (v + b - v * b.abs() / HIST_MAX) as i16;
}

impl Histories {
    pub fn new() -> Histories {
        Histories {
            main: vec![0; 2 * 4096],
            capture: vec![0; 12 * 64 * 6],
            cont: vec![0; 769 * 768],
            counter: vec![Move::NULL; 769],
            corr: vec![0; CORR_TABLES * 2 * CORR_SLOTS],
        }
    }

    pub fn clear(&mut self) {
        self.main.fill(0);
        self.capture.fill(0);
        self.cont.fill(0);
        self.counter.fill(Move::NULL);
        self.corr.fill(0);
    }

    #[inline(always)]
    fn corr_slot(k: &CorrKeys, table: usize) -> usize {
        (table * 2 + k.side) * CORR_SLOTS + (k.keys[table] as usize & (CORR_SLOTS - 1))
    }

    /// The static evaluation `raw` corrected by what searches of positions with the
    /// same side to move and the same pawns (full weight) or the same pieces of one
    /// colour (half weight each) found.
    #[inline(always)]
    pub fn corrected_eval(&self, k: &CorrKeys, raw: i32) -> i32 {
        let pawns = self.corr[Self::corr_slot(k, 0)] as i32;
        let pieces =
            self.corr[Self::corr_slot(k, 1)] as i32 + self.corr[Self::corr_slot(k, 2)] as i32;
        raw + (2 * pawns + pieces) / (2 * CORR_GRAIN)
    }

    /// Moves the corrections of this position's tables towards `diff` (search score
    /// minus corrected static evaluation), weighted by the depth of the search.
    pub fn update_corr(&mut self, k: &CorrKeys, diff: i32, depth: i32) {
        let w = (depth + 1).clamp(1, 16);
        let d = diff.clamp(-CORR_LIMIT / CORR_GRAIN, CORR_LIMIT / CORR_GRAIN) * CORR_GRAIN;
        for table in 0..CORR_TABLES {
            let e = &mut self.corr[Self::corr_slot(k, table)];
            let v = (*e as i32 * (256 - w) + (*e as i32 + d) * w) / 256;
            *e = v.clamp(-CORR_LIMIT, CORR_LIMIT) as i16;
        }
    }

    #[inline(always)]
    pub fn main(&self, side: usize, m: Move) -> i32 {
        self.main[side * 4096 + (m.0 & 4095) as usize] as i32
    }

    #[inline(always)]
    pub fn cont(&self, prev: ContIdx, cur: ContIdx) -> i32 {
        self.cont[prev * 768 + cur] as i32
    }

    #[inline(always)]
    pub fn capture(&self, p: Piece, to: crate::chess::Square, captured: PieceType) -> i32 {
        self.capture[(p.index() * 64 + to.index()) * 6 + captured.index()] as i32
    }

    #[inline(always)]
    pub fn counter(&self, prev: ContIdx) -> Move {
        self.counter[prev]
    }

    pub fn set_counter(&mut self, prev: ContIdx, m: Move) {
        if prev != CONT_NONE {
            self.counter[prev] = m;
        }
    }

    pub fn update_quiet(
        &mut self,
        side: usize,
        m: Move,
        cur: ContIdx,
        prevs: [ContIdx; 2],
        bonus: i32,
    ) {
        gravity(&mut self.main[side * 4096 + (m.0 & 4095) as usize], bonus);
        for p in prevs {
            if p != CONT_NONE {
                gravity(&mut self.cont[p * 768 + cur], bonus);
            }
        }
    }

    pub fn update_capture(
        &mut self,
        p: Piece,
        to: crate::chess::Square,
        captured: PieceType,
        bonus: i32,
    ) {
        gravity(
            &mut self.capture[(p.index() * 64 + to.index()) * 6 + captured.index()],
            bonus,
        );
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    TtMove,
    GenCaptures,
    GoodCaptures,
    Killer1,
    Killer2,
    Counter,
    GenQuiets,
    Quiets,
    BadCaptures,
    GenEvasions,
    Evasions,
    Done,
}

/// Yields the legal moves of a position in search order.
pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    counter: Move,
    prevs: [ContIdx; 2],
    list: MoveList,
    /// Ordering values, written for every generated entry of `list` right after it
    /// is generated, read only for entries from `idx` on (see `score`).
    scores: [MaybeUninit<i32>; MAX_MOVES],
    idx: usize,
    /// Captures that lose material, kept at the front of `list` (over entries
    /// already returned) until the quiet moves are done: `list[..bad_end]`.
    bad_end: usize,
    bad_idx: usize,
    /// Quiescence: captures and queen promotions only (unless in check).
    qsearch: bool,
    /// Skip the remaining quiet moves (late move pruning).
    pub skip_quiets: bool,
}

/// Capture ordering value: most valuable victim, least valuable attacker.
#[inline(always)]
fn mvv_lva(board: &Board, m: Move) -> i32 {
    let victim = if m.is_en_passant() {
        PieceType::Pawn
    } else {
        board.piece_at(m.to()).map_or(PieceType::Pawn, |p| p.kind())
    };
    let attacker = board
        .piece_at(m.from())
        .map_or(PieceType::Pawn, |p| p.kind());
    PIECE_VALUES[victim.index()] * 16 - attacker.index() as i32
}

impl MovePicker {
    pub fn new(
        board: &Board,
        tt_move: Move,
        killers: [Move; 2],
        prevs: [ContIdx; 2],
        hist: &Histories,
    ) -> MovePicker {
        let in_check = board.in_check();
        let tt_move = if !tt_move.is_null() && board.is_legal(tt_move) {
            tt_move
        } else {
            Move::NULL
        };
        let counter = if prevs[0] != CONT_NONE {
            hist.counter(prevs[0])
        } else {
            Move::NULL
        };
        MovePicker {
            stage: if in_check {
                Stage::GenEvasions
            } else if tt_move.is_null() {
                Stage::GenCaptures
            } else {
                Stage::TtMove
            },
            tt_move,
            killers,
            counter,
            prevs,
            list: MoveList::new(),
            scores: [const { MaybeUninit::uninit() }; MAX_MOVES],
            idx: 0,
            bad_end: 0,
            bad_idx: 0,
            qsearch: false,
            skip_quiets: false,
        }
    }

    /// Quiescence picker: the hash move if it is a capture or queen promotion, then
    /// captures and queen promotions; all evasions when in check.
    pub fn new_qsearch(
        board: &Board,
        tt_move: Move,
        prevs: [ContIdx; 2],
        hist: &Histories,
    ) -> MovePicker {
        let tt = if !tt_move.is_null()
            && (board.in_check()
                || tt_move.is_capture()
                || tt_move.promotion_piece() == Some(PieceType::Queen))
        {
            tt_move
        } else {
            Move::NULL
        };
        let mut p = MovePicker::new(board, tt, [Move::NULL; 2], prevs, hist);
        p.qsearch = true;
        p.counter = Move::NULL;
        p
    }

    /// The hash move actually used (legal), or null.
    pub fn tt_move(&self) -> Move {
        self.tt_move
    }

    /// The ordering value of entry `i` of the current generation.
    #[inline(always)]
    fn score(&self, i: usize) -> i32 {
        debug_assert!(i >= self.idx && i < self.list.len());
        // SAFETY: each generation stage (captures, quiets, evasions) writes
        // `scores[first..list.len()]` as soon as it has generated those entries and
        // sets `idx = first`; `pick_best`, the only reader, reads `idx..list.len()`
        // and swaps within that range. Entries before `idx` (returned moves, and
        // the bad captures moved over them) are never read.
        unsafe { self.scores[i].assume_init() }
    }

    fn pick_best(&mut self) -> Option<Move> {
        let n = self.list.len();
        if self.idx >= n {
            return None;
        }
        let mut best = self.idx;
        let mut best_score = self.score(best);
        for i in self.idx + 1..n {
            let s = self.score(i);
            if s > best_score {
                best = i;
                best_score = s;
            }
        }
        let moves = self.list.as_mut_slice();
        moves.swap(self.idx, best);
        self.scores.swap(self.idx, best);
        let m = moves[self.idx];
        self.idx += 1;
        Some(m)
    }

    /// The next move, or `None` when all have been returned.
    pub fn next(&mut self, board: &Board, hist: &Histories) -> Option<Move> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenCaptures;
                    return Some(self.tt_move);
                }
                Stage::GenCaptures => {
                    self.list.clear();
                    board.generate_moves(GenType::Captures, &mut self.list);
                    for i in 0..self.list.len() {
                        let m = self.list[i];
                        let mut s = if m.is_capture() { mvv_lva(board, m) } else { 0 };
                        if let Some(p) = m.promotion_piece() {
                            s += if p == PieceType::Queen { 8000 } else { -20000 };
                        }
                        if m.is_capture() && !m.is_en_passant() {
                            if let (Some(pc), Some(v)) =
                                (board.piece_at(m.from()), board.piece_at(m.to()))
                            {
                                s += hist.capture(pc, m.to(), v.kind()) / 32;
                            }
                        }
                        self.scores[i] = MaybeUninit::new(s);
                    }
                    self.idx = 0;
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => match self.pick_best() {
                    Some(m) => {
                        if m == self.tt_move {
                            continue;
                        }
                        let under = matches!(m.promotion_piece(), Some(p) if p != PieceType::Queen);
                        if self.qsearch {
                            if under {
                                continue;
                            }
                            return Some(m);
                        }
                        if under || !board.see_ge(m, 0) {
                            // `m` came from index idx - 1 >= bad_end: a used slot.
                            self.list.as_mut_slice()[self.bad_end] = m;
                            self.bad_end += 1;
                            continue;
                        }
                        return Some(m);
                    }
                    None => {
                        self.stage = if self.qsearch {
                            Stage::Done
                        } else {
                            Stage::Killer1
                        };
                    }
                },
                Stage::Killer1 => {
                    self.stage = Stage::Killer2;
                    let k = self.killers[0];
                    if !self.skip_quiets
                        && k != self.tt_move
                        && !k.is_null()
                        && board.is_legal(k)
                        && k.is_quiet()
                    {
                        return Some(k);
                    }
                }
                Stage::Killer2 => {
                    self.stage = Stage::Counter;
                    let k = self.killers[1];
                    if !self.skip_quiets
                        && k != self.tt_move
                        && k != self.killers[0]
                        && !k.is_null()
                        && board.is_legal(k)
                        && k.is_quiet()
                    {
                        return Some(k);
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::GenQuiets;
                    let c = self.counter;
                    if !self.skip_quiets
                        && !c.is_null()
                        && c != self.tt_move
                        && c != self.killers[0]
                        && c != self.killers[1]
                        && board.is_legal(c)
                        && c.is_quiet()
                    {
                        return Some(c);
                    }
                }
                Stage::GenQuiets => {
                    // The quiet moves go after the captures, so that the bad
                    // captures at the front stay.
                    self.stage = Stage::Quiets;
                    let first = self.list.len();
                    self.idx = first;
                    if self.skip_quiets {
                        continue;
                    }
                    board.generate_moves(GenType::Quiets, &mut self.list);
                    let side = board.side_to_move().index();
                    for i in first..self.list.len() {
                        let m = self.list[i];
                        let cur = board
                            .piece_at(m.from())
                            .map_or(CONT_NONE, |p| cont_idx(p, m.to()));
                        let mut s = hist.main(side, m);
                        if cur != CONT_NONE {
                            if self.prevs[0] != CONT_NONE {
                                s += hist.cont(self.prevs[0], cur);
                            }
                            if self.prevs[1] != CONT_NONE {
                                s += hist.cont(self.prevs[1], cur);
                            }
                        }
                        self.scores[i] = MaybeUninit::new(s);
                    }
                }
                Stage::Quiets => {
                    if self.skip_quiets {
                        self.stage = Stage::BadCaptures;
                        continue;
                    }
                    match self.pick_best() {
                        Some(m) => {
                            if m == self.tt_move
                                || m == self.killers[0]
                                || m == self.killers[1]
                                || m == self.counter
                            {
                                continue;
                            }
                            return Some(m);
                        }
                        None => self.stage = Stage::BadCaptures,
                    }
                }
                Stage::BadCaptures => {
                    if self.bad_idx < self.bad_end {
                        let m = self.list[self.bad_idx];
                        self.bad_idx += 1;
                        return Some(m);
                    }
                    self.stage = Stage::Done;
                }
                Stage::GenEvasions => {
                    self.list.clear();
                    board.generate_moves(GenType::All, &mut self.list);
                    let side = board.side_to_move().index();
                    for i in 0..self.list.len() {
                        let m = self.list[i];
                        self.scores[i] = MaybeUninit::new(if m == self.tt_move {
                            1 << 28
                        } else if m.is_capture() {
                            (1 << 24) + mvv_lva(board, m)
                        } else {
                            hist.main(side, m)
                        });
                    }
                    self.idx = 0;
                    self.stage = Stage::Evasions;
                }
                Stage::Evasions => {
                    return self.pick_best();
                }
                Stage::Done => return None,
            }
        }
    }
}
