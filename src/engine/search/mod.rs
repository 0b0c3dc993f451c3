//! The search: iterative deepening with aspiration windows over a principal variation
//! search, quiescence search, the transposition table, null move (with verification
//! deep in the tree), late move reductions from an integer table, futility, reverse
//! futility, late-move and SEE pruning, singular and Crafty's extensions (check, one
//! reply, recapture, passed pawn push, mate threat; at most one ply per node), mate
//! distance pruning, and draws by repetition, the 50-move rule and insufficient
//! material scored with `drawscore`.
//!
//! One `Worker` per thread; threads share only the transposition table, the stop
//! flag and node counters (Lazy SMP). Nothing here allocates once a search has
//! started, except the principal variations copied into events.
//!
//! This file holds the worker, its per-search set-up and the helpers the parts share;
//! `iterate` the root loop, `negamax` one node of the main search, `qsearch` the
//! quiescence search, `reductions` the integer tables.

use super::events::{Bound, EventSink, SearchEvent, SearchInfo, SearchResult};
use super::limits::{SearchConfig, SearchLimits};
use super::movepick::{cont_idx, ContIdx, CorrKeys, Histories, MovePicker, CONT_NONE};
use super::time::{node_share_scale, soft_scale, Clock, TimeBudget};
use super::tt::{TranspositionTable, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER};
use crate::chess::{Board, Color, Move, MoveList, PieceType, Rank};
use crate::egtb::{Tablebase, Wdl};
use crate::eval::{Evaluator, PIECE_VALUES};
use crate::nnue::AccumulatorStack;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

mod iterate;
mod negamax;
mod qsearch;
mod reductions;

pub const MATE: i32 = 32000;
pub const MATE_IN_MAX: i32 = MATE - 1000;
pub const INF: i32 = 32001;
pub const MAX_PLY: usize = 120;
/// A table win `ply` plies from the root scores `TB_WIN - ply`: above every
/// evaluation, below every mate score (the search still looks for the mate).
pub const TB_WIN: i32 = MATE_IN_MAX - 1;

/// The mate distance in moves of a score from the side to move's view: `Some(n)`,
/// n > 0 when the side to move mates in n, n < 0 when it is mated in -n; `None` for
/// a score that is not a mate. The one reading of mate scores (analysis text, UCI,
/// xboard, the resign policy, records).
pub fn mate_in(stm_cp: i32) -> Option<i32> {
    if stm_cp >= MATE_IN_MAX {
        Some((MATE - stm_cp + 1) / 2)
    } else if stm_cp <= -MATE_IN_MAX {
        Some(-((MATE + stm_cp + 1) / 2))
    } else {
        None
    }
}
const NO_EVAL: i32 = -INF;
/// Frames below ply 0, so `si - 4` is always a valid stack index.
const STACK_OFFSET: usize = 4;

/// State shared by all threads of one engine.
pub struct Shared {
    /// Set to end the search (by the engine itself or from outside).
    pub stop: AtomicBool,
    /// Set only from outside (`EngineHandle::stop`): also ends a finished ponder or
    /// infinite search that is waiting to report.
    pub abort: AtomicBool,
    /// True while the search is a ponder search (no time limits yet).
    pub pondering: AtomicBool,
    /// Nodes of all threads (published every few thousand nodes).
    pub nodes: AtomicU64,
    /// Endgame table probes that answered (all threads).
    pub tb_hits: AtomicU64,
}

impl Default for Shared {
    fn default() -> Self {
        Shared {
            stop: AtomicBool::new(false),
            abort: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            tb_hits: AtomicU64::new(0),
        }
    }
}
/// Per-ply search state.
#[derive(Clone, Copy)]
struct Frame {
    static_eval: i32,
    killers: [Move; 2],
    excluded: Move,
    /// Continuation index of the move made at this ply.
    cont: ContIdx,
    /// The move made at this ply.
    mv: Move,
    /// Square of a capture made at this ply (for recapture extensions).
    capture_to: Option<crate::chess::Square>,
    /// Double extensions on the path from the root to this node.
    double_exts: u8,
}

impl Default for Frame {
    fn default() -> Self {
        Frame {
            static_eval: NO_EVAL,
            killers: [Move::NULL; 2],
            excluded: Move::NULL,
            cont: CONT_NONE,
            mv: Move::NULL,
            capture_to: None,
            double_exts: 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub prev_score: i32,
    pub pv: Vec<Move>,
    pub seldepth: i32,
    pub nodes: u64,
}

/// What one thread contributes to the final choice.
#[derive(Clone, Debug)]
pub struct ThreadResult {
    pub depth: i32,
    pub score: i32,
    pub pv: Vec<Move>,
}

/// One search thread.
pub struct Worker {
    pub id: usize,
    pub board: Board,
    pub eval: Evaluator,
    /// The net's accumulators along the line (with `evaluation.net` only).
    nnue: Option<AccumulatorStack>,
    pub hist: Histories,
    stack: Vec<Frame>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 2],
    pub root_moves: Vec<RootMove>,
    root_ply: usize,
    pv_idx: usize,
    pub nodes: u64,
    nodes_published: u64,
    seldepth: i32,
    completed_depth: i32,
    null_min_ply: usize,
    stopped: bool,
    // Set per search.
    config: SearchConfig,
    limits: SearchLimits,
    budget: Option<TimeBudget>,
    start: Duration,
    soft_stop_at: Option<Duration>,
    clock: Option<Arc<dyn Clock>>,
    shared: Option<Arc<Shared>>,
    sink: Option<EventSink>,
    tt_ptr: *const TranspositionTable,
    /// Endgame tables (none: no probes at all; see `set_tablebase`).
    tb: Option<Arc<dyn Tablebase>>,
}

// SAFETY: `tt_ptr` points to the table owned by the engine handle, which holds a read
// lock on it for the whole search (the only time the pointer is dereferenced); the
// table itself is `Sync` (atomics only).
unsafe impl Send for Worker {}

impl Worker {
    pub fn new(id: usize, pawn_hash_bytes: usize) -> Worker {
        Worker {
            id,
            board: Board::startpos(),
            eval: Evaluator::new(pawn_hash_bytes),
            nnue: None,
            hist: Histories::new(),
            stack: vec![Frame::default(); MAX_PLY + 2 * STACK_OFFSET + 4],
            pv: vec![[Move::NULL; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: [0; MAX_PLY + 2],
            root_moves: Vec::with_capacity(256),
            root_ply: 0,
            pv_idx: 0,
            nodes: 0,
            nodes_published: 0,
            seldepth: 0,
            completed_depth: 0,
            null_min_ply: 0,
            stopped: false,
            config: SearchConfig::default(),
            limits: SearchLimits::default(),
            budget: None,
            start: Duration::ZERO,
            soft_stop_at: None,
            clock: None,
            shared: None,
            sink: None,
            tt_ptr: std::ptr::null(),
            tb: None,
        }
    }

    /// Endgame tables for the searches from now on (`None`: no probes).
    pub fn set_tablebase(&mut self, tb: Option<Arc<dyn Tablebase>>) {
        self.tb = tb;
    }

    /// Clears everything learned from earlier games (histories, pawn hash).
    pub fn new_game(&mut self) {
        self.hist.clear();
        self.eval.clear();
    }

    #[inline(always)]
    fn tt(&self) -> &TranspositionTable {
        // SAFETY: set in `prepare` from a reference the caller keeps alive (under a
        // read lock) until the search has returned; never null while searching.
        unsafe { &*self.tt_ptr }
    }

    #[inline(always)]
    fn shared(&self) -> &Shared {
        self.shared.as_deref().expect("search prepared")
    }

    fn elapsed(&self) -> Duration {
        self.clock
            .as_ref()
            .map_or(Duration::ZERO, |c| c.now().saturating_sub(self.start))
    }

    /// Sets a worker up for a search of `board`.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        board: &Board,
        limits: &SearchLimits,
        config: &SearchConfig,
        budget: Option<TimeBudget>,
        start: Duration,
        clock: Arc<dyn Clock>,
        shared: Arc<Shared>,
        sink: Option<EventSink>,
        tt: &TranspositionTable,
    ) {
        self.board = board.clone();
        self.root_ply = self.board.ply_count();
        self.limits = limits.clone();
        self.config = config.clone();
        self.eval.set_params(config.eval);
        self.eval.set_engine_color(Some(board.side_to_move()));
        match &config.net {
            Some(net) => {
                if !self
                    .nnue
                    .as_ref()
                    .is_some_and(|s| Arc::ptr_eq(s.net(), net))
                {
                    self.nnue = Some(AccumulatorStack::new(net.clone()));
                }
                if let Some(s) = self.nnue.as_mut() {
                    s.reset(&self.board);
                }
            }
            None => self.nnue = None,
        }
        self.budget = budget;
        self.start = start;
        self.soft_stop_at = budget.map(|b| b.soft);
        self.clock = Some(clock);
        self.shared = Some(shared);
        self.sink = sink;
        self.tt_ptr = tt as *const TranspositionTable;
        self.nodes = 0;
        self.nodes_published = 0;
        self.seldepth = 0;
        self.completed_depth = 0;
        self.stopped = false;
        self.null_min_ply = 0;
        for f in self.stack.iter_mut() {
            *f = Frame::default();
        }
        let legal = self.board.legal_moves();
        self.root_moves.clear();
        for &m in legal.iter() {
            if limits.searchmoves.is_empty() || limits.searchmoves.contains(&m) {
                self.root_moves.push(RootMove {
                    mv: m,
                    score: -INF,
                    prev_score: -INF,
                    pv: vec![m],
                    seldepth: 0,
                    nodes: 0,
                });
            }
        }
        self.filter_root_moves_by_tables();
    }

    /// egtb: at a table position only the root moves that keep the table result
    /// under the 50-move rule (given the halfmove clock) are searched, fastest
    /// conversion first; the search chooses among them. Nothing changes without
    /// tables, outside them, or when none of the moves to search would be kept.
    fn filter_root_moves_by_tables(&mut self) {
        let Some(tb) = self.tb.clone() else {
            return;
        };
        let limit = self.config.tb_probe_limit;
        let Some(ranking) = crate::egtb::rank_root(&*tb, &mut self.board, limit) else {
            return;
        };
        if self.id == 0 {
            self.shared()
                .tb_hits
                .fetch_add(ranking.probes, Ordering::Relaxed);
        }
        if self.root_moves.iter().any(|rm| ranking.keeps(rm.mv)) {
            self.root_moves.retain(|rm| ranking.keeps(rm.mv));
            self.root_moves
                .sort_by_key(|rm| std::cmp::Reverse(ranking.rank_of(rm.mv)));
        }
    }

    /// egtb: the WDL probe of a node reached by a capture or pawn move (so the
    /// table's verdict, cursed and blessed included, is exact for the 50-move rule),
    /// without castling rights, within the piece limit and, at the largest tables'
    /// piece count, the probe depth. Returns the score and its bound: a win is a lower
    /// bound, a loss an upper bound (the actual mate may still be found); cursed wins
    /// and blessed losses are near-draws.
    fn probe_tables(&self, depth: i32, ply: usize) -> Option<(i32, u8)> {
        let tb = self.tb.as_deref()?;
        if self.board.halfmove_clock() != 0 {
            return None;
        }
        let pieces = self.board.occupied().count();
        let cardinality = self.config.tb_probe_limit.min(tb.max_pieces());
        if pieces > cardinality || (pieces == cardinality && depth < self.config.tb_probe_depth) {
            return None;
        }
        let wdl = tb.probe_wdl(&self.board)?;
        self.shared().tb_hits.fetch_add(1, Ordering::Relaxed);
        let draw = self.draw_score(ply);
        Some(match wdl {
            Wdl::Win => (TB_WIN - ply as i32, BOUND_LOWER),
            Wdl::CursedWin => (draw + 1, BOUND_EXACT),
            Wdl::Draw => (draw, BOUND_EXACT),
            Wdl::BlessedLoss => (draw - 1, BOUND_EXACT),
            Wdl::Loss => (-TB_WIN + ply as i32, BOUND_UPPER),
        })
    }

    /// Releases per-search references.
    pub fn finish(&mut self) {
        self.tt_ptr = std::ptr::null();
        self.sink = None;
        self.shared = None;
    }

    fn emit(&self, e: SearchEvent) {
        if self.id == 0 {
            if let Some(s) = &self.sink {
                s(&e);
            }
        }
    }

    fn total_nodes(&self) -> u64 {
        self.shared().nodes.load(Ordering::Relaxed) + (self.nodes - self.nodes_published)
    }

    fn info(&self, depth: i32, rm_index: usize, bound: Bound) -> SearchInfo {
        let rm = &self.root_moves[rm_index];
        let score = if rm.score == -INF {
            rm.prev_score
        } else {
            rm.score
        };
        SearchInfo {
            depth,
            seldepth: rm.seldepth.max(self.seldepth),
            multipv: rm_index + 1,
            score,
            bound,
            nodes: self.total_nodes(),
            time: self.elapsed(),
            hashfull: self.tt().hashfull(),
            tb_hits: self.shared().tb_hits.load(Ordering::Relaxed),
            pv: rm.pv.clone(),
            root_side: self.board.side_to_move(),
        }
    }

    /// Checks the clock, node limit and stop flag (main thread) or the stop flag
    /// (helpers). Called every 1024 nodes.
    fn check_limits(&mut self) {
        let delta = self.nodes - self.nodes_published;
        self.shared().nodes.fetch_add(delta, Ordering::Relaxed);
        self.nodes_published = self.nodes;
        let shared = self.shared();
        if shared.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.id != 0 {
            return;
        }
        if let Some(n) = self.limits.nodes {
            if self.nodes >= n {
                self.stop_all();
                return;
            }
        }
        if shared.pondering.load(Ordering::Relaxed) {
            return;
        }
        if let Some(b) = self.budget {
            // Never stop before depth 1 has a move.
            if self.completed_depth >= 1 && self.elapsed() >= b.hard {
                self.stop_all();
            }
        }
    }

    fn stop_all(&mut self) {
        self.stopped = true;
        self.shared().stop.store(true, Ordering::Relaxed);
    }

    /// Counts a node, polls the clock now and then, and starts the node's PV empty,
    /// so a parent never copies a stale line from an earlier sibling searched with a
    /// null window. False when the search has been stopped.
    #[inline(always)]
    fn enter_node(&mut self, ply: usize, pv_node: bool) -> bool {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_limits();
        }
        if self.stopped {
            return false;
        }
        self.pv_len[ply] = ply;
        if pv_node && ply as i32 > self.seldepth {
            self.seldepth = ply as i32;
        }
        true
    }

    /// The score of a node that needs no search: a draw by repetition, by material or
    /// by the fifty-move rule (a mate on the hundredth half-move still counts), or the
    /// static value at the ply limit.
    #[inline(always)]
    fn settled_score(&mut self, ply: usize, in_check: bool) -> Option<i32> {
        if self.board.is_repetition(self.root_ply) || self.board.is_insufficient_material() {
            return Some(self.draw_score(ply));
        }
        if self.board.halfmove_clock() >= 100 {
            if !in_check || self.board.has_legal_move() {
                return Some(self.draw_score(ply));
            }
            return Some(-MATE + ply as i32);
        }
        if ply >= MAX_PLY - 2 {
            return Some(if in_check { 0 } else { self.static_eval() });
        }
        None
    }

    /// Makes a move on the board and the net's accumulators.
    #[inline(always)]
    fn make(&mut self, m: Move) {
        if let Some(s) = self.nnue.as_mut() {
            s.push(&self.board, m);
        }
        self.board.make_move(m);
    }

    #[inline(always)]
    fn unmake(&mut self) {
        self.board.unmake_move();
        if let Some(s) = self.nnue.as_mut() {
            s.pop();
        }
    }

    #[inline(always)]
    fn make_null(&mut self) {
        if let Some(s) = self.nnue.as_mut() {
            s.push_null();
        }
        self.board.make_null_move();
    }

    #[inline(always)]
    fn unmake_null(&mut self) {
        self.board.unmake_null_move();
        if let Some(s) = self.nnue.as_mut() {
            s.pop();
        }
    }

    /// The static evaluation for the side to move: the net's (`evaluation.net`,
    /// composed with the handcrafted evaluation by `nnue::compose`), else the
    /// handcrafted one.
    #[inline(always)]
    fn static_eval(&mut self) -> i32 {
        match self.nnue.as_mut() {
            None => self.eval.evaluate(&self.board),
            Some(s) => {
                let raw = s.evaluate(self.board.side_to_move(), self.board.occupied().count());
                let base = s.net().base;
                crate::nnue::compose(base, raw, &mut self.eval, &self.board).value
            }
        }
    }

    #[inline(always)]
    fn draw_score(&self, ply: usize) -> i32 {
        // The draw score is the engine's (root side's) value of a draw.
        let d = self.config.draw_score;
        if ply % 2 == 0 {
            d
        } else {
            -d
        }
    }

    /// The static evaluation `raw` with the correction history applied, kept clear of
    /// mate scores.
    #[inline(always)]
    fn correct(&self, keys: &CorrKeys, raw: i32) -> i32 {
        self.hist
            .corrected_eval(keys, raw)
            .clamp(-MATE_IN_MAX + 1, MATE_IN_MAX - 1)
    }

    /// Continuation indices of the moves one and two plies before the node at stack
    /// index `si`.
    #[inline(always)]
    fn prevs(&self, si: usize) -> [ContIdx; 2] {
        [self.stack[si - 1].cont, self.stack[si - 2].cont]
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = m;
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    fn has_non_pawn_material(&self) -> bool {
        let us = self.board.side_to_move();
        (self.board.color_bb(us)
            & !(self.board.kind_bb(PieceType::Pawn) | self.board.kind_bb(PieceType::King)))
        .not_empty()
    }

    /// The move to ponder on after `best`: the PV's second move, or the hash move of
    /// the position after `best`.
    pub fn ponder_move(&mut self, best: Move, pv: &[Move]) -> Option<Move> {
        if pv.len() >= 2 && pv[0] == best {
            return Some(pv[1]);
        }
        if best.is_null() {
            return None;
        }
        self.board.make_move(best);
        let m = self
            .tt()
            .probe(self.board.key(), 1)
            .map(|h| h.mv)
            .filter(|&m| !m.is_null() && self.board.is_legal(m));
        self.board.unmake_move();
        m
    }

    /// Builds the final result from the threads' results.
    pub fn result(
        &self,
        best: Move,
        score: i32,
        depth: i32,
        pv: Vec<Move>,
        ponder: Option<Move>,
    ) -> SearchResult {
        SearchResult {
            best,
            ponder,
            score,
            depth,
            nodes: self.total_nodes(),
            time: self.elapsed(),
            pv,
            root_side: self.board.side_to_move(),
            error: None,
        }
    }

    pub fn root_side(&self) -> Color {
        self.board.side_to_move()
    }

    /// Publishes the remaining node count of this worker.
    pub fn publish_nodes(&mut self) {
        if let Some(s) = &self.shared {
            s.nodes
                .fetch_add(self.nodes - self.nodes_published, Ordering::Relaxed);
        }
        self.nodes_published = self.nodes;
    }

    /// Legal moves at the root (for fallbacks).
    pub fn root_legal(&self) -> MoveList {
        self.board.legal_moves()
    }
}
