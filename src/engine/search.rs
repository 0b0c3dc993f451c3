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

use super::events::{Bound, EventSink, SearchEvent, SearchInfo, SearchResult};
use super::limits::{SearchConfig, SearchLimits};
use super::movepick::{cont_idx, ContIdx, Histories, MovePicker, CONT_NONE};
use super::time::{soft_scale, Clock, TimeBudget};
use super::tt::{TranspositionTable, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER};
use crate::chess::{Board, Color, Move, MoveList, PieceType, Rank};
use crate::egtb::{Tablebase, Wdl};
use crate::eval::{Evaluator, PIECE_VALUES};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub const MATE: i32 = 32000;
pub const MATE_IN_MAX: i32 = MATE - 1000;
pub const INF: i32 = 32001;
pub const MAX_PLY: usize = 120;
/// A table win `ply` plies from the root scores `TB_WIN - ply`: above every
/// evaluation, below every mate score (the search still looks for the mate).
pub const TB_WIN: i32 = MATE_IN_MAX - 1;
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

/// Integer natural logarithm times 1024 (no floating point touches node counts).
const fn ln1024(x: u64) -> i64 {
    if x <= 1 {
        return 0;
    }
    let ip = 63 - x.leading_zeros() as u64;
    // y = x / 2^ip in Q32, in [1, 2).
    let mut y: u128 = ((x as u128) << 32) >> ip;
    let mut frac: u64 = 0;
    let mut i = 0;
    while i < 12 {
        y = (y * y) >> 32;
        if y >= (2u128 << 32) {
            y >>= 1;
            frac |= 1 << (11 - i);
        }
        i += 1;
    }
    let log2_q12 = (ip << 12) | frac; // log2(x) * 4096
                                      // ln(x) = log2(x) * ln 2; ln 2 ~ 2839 / 4096.
    ((log2_q12 as i64) * 2839 / 4096) / 4
}

const fn lmr_table() -> [[u8; 64]; 64] {
    let mut t = [[0u8; 64]; 64];
    let mut d = 1;
    while d < 64 {
        let mut m = 1;
        while m < 64 {
            // 0.75 + ln(d) ln(m) / 2.25, in 1/1024 units.
            let v =
                (768 * 1024 + ln1024(d as u64) * ln1024(m as u64) * 1024 / 2304) / (1024 * 1024);
            t[d][m] = if v > 60 { 60 } else { v as u8 };
            m += 1;
        }
        d += 1;
    }
    t
}

static LMR: [[u8; 64]; 64] = lmr_table();

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

/// A quiescence node's result so far: best score, lower window bound, best move.
struct QBest {
    score: i32,
    alpha: i32,
    mv: Move,
}

/// What a quiescence move did to its node.
enum QStep {
    Next,
    Cutoff,
    Stopped,
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

    /// Iterative deepening. Returns this thread's final result.
    pub fn iterative_deepening(&mut self) -> ThreadResult {
        let max_depth = self
            .limits
            .depth
            .unwrap_or(MAX_PLY as i32 - 4)
            .clamp(1, MAX_PLY as i32 - 4);
        if self.root_moves.is_empty() {
            let score = if self.board.in_check() {
                -MATE
            } else {
                self.draw_score(0)
            };
            return ThreadResult {
                depth: 0,
                score,
                pv: Vec::new(),
            };
        }
        let multipv = self.config.multipv.clamp(1, self.root_moves.len());
        let mut best_changes: u32 = 0;
        let mut stable: u32 = 0;
        let mut last_best = Move::NULL;
        let mut last_score = -INF;
        // Only a position with one legal move, not a search restricted to one move.
        let timed_single = self.limits.is_timed()
            && self.root_moves.len() == 1
            && self.limits.searchmoves.is_empty();

        let mut depth = 1;
        while depth <= max_depth {
            // Lazy SMP: helpers skip some depths so threads spread over the tree.
            // Helpers join from `smp_min_depth`; odd helpers skip even depths.
            if self.id > 0
                && depth > 1
                && (depth < self.config.smp_min_depth
                    || (self.id % 2 == 1 && depth > 2 && depth % 2 == 0))
            {
                depth += 1;
                continue;
            }
            for rm in self.root_moves.iter_mut() {
                rm.prev_score = rm.score;
            }
            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.seldepth = 0;
                let prev = self.root_moves[pv_idx].prev_score;
                let mut delta = 18;
                let (mut alpha, mut beta) = if depth >= 4 && prev > -INF {
                    ((prev - delta).max(-INF), (prev + delta).min(INF))
                } else {
                    (-INF, INF)
                };
                loop {
                    let score = self.negamax(alpha, beta, depth, 0, false, true);
                    // Stable sort keeps the order of moves with equal (unsearched) scores.
                    self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                    if self.stopped {
                        break;
                    }
                    if score <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (score - delta).max(-INF);
                        if self.id == 0 && pv_idx == 0 {
                            self.emit(SearchEvent::FailLow(self.info(depth, pv_idx, Bound::Upper)));
                            // A fail low is a reason to think longer.
                            best_changes += 1;
                        }
                    } else if score >= beta {
                        beta = (score + delta).min(INF);
                        if self.id == 0 && pv_idx == 0 {
                            self.emit(SearchEvent::FailHigh(self.info(
                                depth,
                                pv_idx,
                                Bound::Lower,
                            )));
                        }
                    } else {
                        break;
                    }
                    delta += delta;
                    if delta > 600 || score.abs() >= MATE_IN_MAX {
                        alpha = -INF;
                        beta = INF;
                    }
                }
                self.root_moves[..=pv_idx].sort_by_key(|rm| std::cmp::Reverse(rm.score));
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            self.completed_depth = depth;
            if self.id == 0 {
                for i in 0..multipv {
                    self.emit(SearchEvent::Iteration(self.info(depth, i, Bound::Exact)));
                }
            }
            // Time management at iteration boundaries (main thread).
            let best = self.root_moves[0].mv;
            let score = self.root_moves[0].score;
            if best != last_best {
                if last_best != Move::NULL {
                    best_changes += 1;
                }
                stable = 0;
            } else {
                stable += 1;
            }
            let drop = if last_score > -INF {
                last_score - score
            } else {
                0
            };
            last_best = best;
            last_score = score;
            if self.id == 0 {
                if let Some(m) = self.limits.mate {
                    if score >= MATE - 2 * m {
                        self.stop_all();
                        break;
                    }
                }
                let pondering = self.shared().pondering.load(Ordering::Relaxed);
                if timed_single && !pondering {
                    self.stop_all();
                    break;
                }
                if let (Some(b), false) = (self.budget.filter(|b| !b.fixed), pondering) {
                    let scale = soft_scale(best_changes, drop, stable);
                    let soft = Duration::from_micros((b.soft.as_micros() as u64) * scale / 100)
                        .min(b.hard);
                    self.soft_stop_at = Some(soft);
                    // Do not start an iteration that cannot finish in time.
                    if self.elapsed() >= soft * 6 / 10 {
                        self.stop_all();
                        break;
                    }
                }
                // A forced mate found: no need to go on in timed play.
                if self.limits.is_timed() && score.abs() >= MATE_IN_MAX && depth >= 10 && !pondering
                {
                    let mate_ply = MATE - score.abs();
                    if depth > 2 * mate_ply + 4 {
                        self.stop_all();
                        break;
                    }
                }
            }
            best_changes = best_changes * 3 / 4;
            depth += 1;
        }
        ThreadResult {
            depth: self.completed_depth,
            score: if self.root_moves[0].score == -INF {
                self.root_moves[0].prev_score
            } else {
                self.root_moves[0].score
            },
            pv: self.root_moves[0].pv.clone(),
        }
    }

    /// The static evaluation `raw` with the correction history applied, kept clear of
    /// mate scores.
    #[inline(always)]
    fn correct(&self, side: usize, pawn_key: u64, raw: i32) -> i32 {
        self.hist
            .corrected_eval(side, pawn_key, raw)
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

    /// The principal variation search.
    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        cut_node: bool,
        pv_node: bool,
    ) -> i32 {
        let root = ply == 0;
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, pv_node, 0);
        }
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_limits();
        }
        if self.stopped {
            return 0;
        }
        // Every node starts with an empty PV, so a parent never copies a stale line
        // from an earlier sibling searched with a null window.
        self.pv_len[ply] = ply;
        if pv_node && ply as i32 > self.seldepth {
            self.seldepth = ply as i32;
        }
        let in_check = self.board.in_check();
        if !root {
            if self.board.is_repetition(self.root_ply) || self.board.is_insufficient_material() {
                return self.draw_score(ply);
            }
            if self.board.halfmove_clock() >= 100 {
                if !in_check || self.board.has_legal_move() {
                    return self.draw_score(ply);
                }
                return -MATE + ply as i32;
            }
            if ply >= MAX_PLY - 2 {
                return if in_check {
                    0
                } else {
                    self.eval.evaluate(&self.board)
                };
            }
            // Mate distance pruning.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let si = ply + STACK_OFFSET;
        let excluded = self.stack[si].excluded;
        self.stack[si + 2].killers = [Move::NULL; 2];

        // Transposition table.
        let key = self.board.key();
        let hit = if excluded.is_null() {
            self.tt().probe(key, ply)
        } else {
            None
        };
        let tt_move = if root {
            self.root_moves[self.pv_idx].mv
        } else {
            hit.map_or(Move::NULL, |h| h.mv)
        };
        let tt_pv = pv_node || hit.is_some_and(|h| h.pv);
        if let Some(h) = hit {
            if !pv_node
                && h.depth >= depth
                && (h.bound == BOUND_EXACT
                    || (h.bound == BOUND_LOWER && h.score >= beta)
                    || (h.bound == BOUND_UPPER && h.score <= alpha))
            {
                // Reward a quiet hash move that still cuts.
                if h.score >= beta
                    && !h.mv.is_null()
                    && h.mv.is_quiet()
                    && self.board.is_legal(h.mv)
                {
                    let bonus = stat_bonus(depth);
                    let side = self.board.side_to_move().index();
                    let cur = self
                        .board
                        .piece_at(h.mv.from())
                        .map_or(CONT_NONE, |p| cont_idx(p, h.mv.to()));
                    let prevs = self.prevs(si);
                    self.hist.update_quiet(side, h.mv, cur, prevs, bonus);
                }
                if self.board.halfmove_clock() < 90 {
                    return h.score;
                }
            }
        }

        // egtb: endgame table probe below the root (see `probe_tables`). A bound that
        // does not cut limits what this node may return (PV nodes search on).
        let (mut tb_floor, mut tb_cap) = (-INF, INF);
        if !root && excluded.is_null() && self.tb.is_some() {
            if let Some((v, bound)) = self.probe_tables(depth, ply) {
                if bound == BOUND_EXACT
                    || (bound == BOUND_LOWER && v >= beta)
                    || (bound == BOUND_UPPER && v <= alpha)
                {
                    let d = (depth + 6).min(MAX_PLY as i32 - 1);
                    self.tt()
                        .store(key, ply, Move::NULL, v, NO_EVAL, d, bound, tt_pv);
                    return v;
                }
                if pv_node && bound == BOUND_LOWER {
                    tb_floor = v;
                    alpha = alpha.max(v);
                } else if pv_node {
                    tb_cap = v;
                }
            }
        }

        // Static evaluation: `raw_eval` is the evaluator's (kept in the table),
        // `static_eval` that corrected by the pawn-structure correction history.
        let side = self.board.side_to_move().index();
        let pawn_key = self.board.pawn_key();
        let (raw_eval, static_eval, eval) = if in_check {
            (NO_EVAL, NO_EVAL, NO_EVAL)
        } else if let Some(h) = hit {
            let raw = if h.eval != NO_EVAL && h.eval.abs() < MATE_IN_MAX {
                h.eval
            } else {
                self.eval.evaluate(&self.board)
            };
            let se = self.correct(side, pawn_key, raw);
            let mut e = se;
            if h.score.abs() < MATE_IN_MAX
                && (h.bound == BOUND_EXACT
                    || (h.bound == BOUND_LOWER && h.score > se)
                    || (h.bound == BOUND_UPPER && h.score < se))
            {
                e = h.score;
            }
            (raw, se, e)
        } else if !excluded.is_null() {
            let se = self.stack[si].static_eval;
            (se, se, se)
        } else {
            let raw = self.eval.evaluate(&self.board);
            let se = self.correct(side, pawn_key, raw);
            (raw, se, se)
        };
        self.stack[si].static_eval = static_eval;
        let improving = !in_check
            && ((self.stack[si - 2].static_eval != NO_EVAL
                && static_eval > self.stack[si - 2].static_eval)
                || (self.stack[si - 2].static_eval == NO_EVAL
                    && self.stack[si - 4].static_eval != NO_EVAL
                    && static_eval > self.stack[si - 4].static_eval));

        let mut mate_threat = false;
        if !pv_node && !in_check && excluded.is_null() {
            // Reverse futility pruning.
            if depth <= 8
                && eval.abs() < MATE_IN_MAX
                && eval - 85 * (depth - improving as i32) >= beta
            {
                return (eval + beta) / 2;
            }
            // No razoring: dropping to the quiescence search a few plies from the
            // horizon lost quiet tactical shots (WAC at 2 M nodes: 291 without it and
            // a wider move-count limit, 287 before).
            // Null move.
            if depth >= 3
                && eval >= beta
                && static_eval >= beta - 20 * depth + 150
                && !self.stack[si - 1].mv.is_null()
                && ply >= self.null_min_ply
                && self.has_non_pawn_material()
                && beta > -MATE_IN_MAX
            {
                let r = 3 + depth / 4 + ((eval - beta) / 200).min(3);
                self.stack[si].mv = Move::NULL;
                self.stack[si].cont = CONT_NONE;
                self.stack[si].capture_to = None;
                self.stack[si + 1].double_exts = self.stack[si].double_exts;
                self.board.make_null_move();
                let v = -self.negamax(-beta, -beta + 1, depth - r, ply + 1, !cut_node, false);
                self.board.unmake_null_move();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    let v = if v >= MATE_IN_MAX { beta } else { v };
                    if depth < 12 {
                        return v;
                    }
                    // Verification search where zugzwang may be hiding.
                    self.null_min_ply = ply + (3 * (depth - r) / 4) as usize;
                    let v2 = self.negamax(beta - 1, beta, depth - r, ply, false, false);
                    self.null_min_ply = 0;
                    if v2 >= beta {
                        return v;
                    }
                } else if v <= -MATE_IN_MAX {
                    mate_threat = true;
                }
            }
        }

        // Internal iterative reduction: no hash move where one was expected.
        if !root && depth >= 4 && tt_move.is_null() && (pv_node || cut_node) {
            depth -= 1;
        }

        let prevs = self.prevs(si);
        let killers = self.stack[si].killers;
        let mut picker = if root {
            MovePicker::new(&self.board, Move::NULL, [Move::NULL; 2], prevs, &self.hist)
        } else {
            MovePicker::new(&self.board, tt_move, killers, prevs, &self.hist)
        };
        let us = self.board.side_to_move();

        let mut best = -INF;
        let mut best_move = Move::NULL;
        let mut moves_searched = 0i32;
        let mut quiets_tried = [Move::NULL; 64];
        let mut n_quiets = 0usize;
        let mut captures_tried = [Move::NULL; 32];
        let mut n_captures = 0usize;
        let mut root_index = 0usize;
        let legal_count = if in_check && self.config.extensions.one_reply > 0 && !root {
            self.board.count_legal_moves()
        } else {
            2
        };
        // Move-count pruning of quiet moves near the horizon (late move pruning).
        let lmp_limit = (5 + depth * depth) / (2 - improving as i32);
        let check_info = self.board.check_info();
        let prev_capture_to = self.stack[si - 1].capture_to;

        loop {
            let m = if root {
                // Root: moves in the order of the last iteration, from pv_idx on.
                let idx = self.pv_idx + root_index;
                if idx >= self.root_moves.len() {
                    break;
                }
                root_index += 1;
                self.root_moves[idx].mv
            } else {
                match picker.next(&self.board, &self.hist) {
                    Some(m) => m,
                    None => break,
                }
            };
            if m == excluded {
                continue;
            }
            let is_capture = m.is_capture();
            let quiet = m.is_quiet();
            let gives_check = self.board.gives_check_fast(&check_info, m);
            let moving = self.board.piece_at(m.from());
            let cur = moving.map_or(CONT_NONE, |p| cont_idx(p, m.to()));
            let hist_score = if quiet {
                self.hist.main(side, m)
                    + if prevs[0] != CONT_NONE {
                        self.hist.cont(prevs[0], cur)
                    } else {
                        0
                    }
                    + if prevs[1] != CONT_NONE {
                        self.hist.cont(prevs[1], cur)
                    } else {
                        0
                    }
            } else {
                0
            };

            if root && self.id == 0 && self.elapsed() > Duration::from_secs(3) {
                self.emit(SearchEvent::CurrMove {
                    depth,
                    mv: m,
                    number: self.pv_idx + root_index,
                });
            }

            // Pruning of late, hopeless moves.
            if !root && best > -MATE_IN_MAX && self.has_non_pawn_material() {
                if quiet && !gives_check {
                    if moves_searched >= lmp_limit && depth <= 8 {
                        picker.skip_quiets = true;
                        continue;
                    }
                    let lmr_depth = (depth
                        - 1
                        - LMR[depth.min(63) as usize][(moves_searched + 1).min(63) as usize]
                            as i32)
                        .max(0);
                    if !in_check
                        && lmr_depth <= 8
                        && static_eval != NO_EVAL
                        && static_eval + 90 + 100 * lmr_depth <= alpha
                        && hist_score < 6000
                    {
                        continue;
                    }
                    if lmr_depth <= 6 && hist_score < -3000 * depth {
                        continue;
                    }
                    if lmr_depth <= 8 && !self.board.see_ge(m, -25 * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else if depth <= 6 && !gives_check && !self.board.see_ge(m, -90 * depth) {
                    continue;
                }
            }

            // Extensions: one ply, two for a clearly singular move, minus one for a hash
            // move that is not singular while another move also beats beta.
            let mut ext = 0;
            if !root && (ply as i32) < 2 * self.completed_depth.max(depth) + 8 {
                if depth >= 8
                    && m == tt_move
                    && excluded.is_null()
                    && hit.is_some_and(|h| {
                        h.bound != BOUND_UPPER
                            && h.depth >= depth - 3
                            && h.score.abs() < MATE_IN_MAX
                    })
                {
                    let h = hit.expect("checked above");
                    let sbeta = h.score - 2 * depth;
                    self.stack[si].excluded = m;
                    let v = self.negamax(sbeta - 1, sbeta, (depth - 1) / 2, ply, cut_node, false);
                    self.stack[si].excluded = Move::NULL;
                    if self.stopped {
                        return 0;
                    }
                    if v < sbeta {
                        // Singular; by a wide margin outside PV nodes, two plies
                        // (a few times per path at most).
                        ext = 1;
                        if !pv_node && v < sbeta - 20 && self.stack[si].double_exts < 6 {
                            ext = 2;
                        }
                    } else if sbeta >= beta {
                        // Multi-cut: several moves beat beta.
                        return sbeta;
                    } else if h.score >= beta {
                        // Another move also beats the singular bound, and the hash
                        // move was expected to cut: search it less deep.
                        ext = -1;
                    }
                }
                let ex = &self.config.extensions;
                if ext == 0 && gives_check && ex.check > 0 && self.board.see_ge(m, 0) {
                    ext = 1;
                }
                if ext == 0 && in_check && ex.one_reply > 0 && legal_count == 1 {
                    ext = 1;
                }
                if ext == 0
                    && ex.recapture > 0
                    && is_capture
                    && prev_capture_to == Some(m.to())
                    && self.board.see_ge(m, 0)
                {
                    ext = 1;
                }
                if ext == 0 && ex.passed_pawn > 0 {
                    if let Some(p) = moving {
                        if p.kind() == PieceType::Pawn
                            && m.to().rank() == us.relative_rank(Rank::R7)
                            && self.board.see_ge(m, 0)
                        {
                            ext = 1;
                        }
                    }
                }
                if ext == 0 && mate_threat && ex.mate_threat > 0 && pv_node {
                    ext = 1;
                }
            }

            // Make the move.
            self.stack[si].mv = m;
            self.stack[si].cont = cur;
            self.stack[si].capture_to = if is_capture { Some(m.to()) } else { None };
            self.stack[si + 1].double_exts = self.stack[si].double_exts + (ext >= 2) as u8;
            let nodes_before = self.nodes;
            self.board.make_move(m);
            self.tt().prefetch(self.board.key());
            moves_searched += 1;
            let new_depth = depth - 1 + ext;

            let mut v;
            if moves_searched == 1 {
                v = -self.negamax(
                    -beta,
                    -alpha,
                    new_depth,
                    ply + 1,
                    !pv_node && !cut_node,
                    pv_node,
                );
            } else {
                // Late move reductions.
                let mut r = 0;
                if depth >= 3 && moves_searched > 1 + 2 * (root as i32) && (quiet || !tt_pv) {
                    r = LMR[depth.min(63) as usize][moves_searched.min(63) as usize] as i32;
                    if !pv_node {
                        r += 1;
                    }
                    if cut_node {
                        r += 1;
                    }
                    if tt_pv {
                        r -= 1;
                    }
                    if improving {
                        r -= 1;
                    }
                    if gives_check {
                        r -= 1;
                    }
                    if quiet {
                        if m == killers[0] || m == killers[1] {
                            r -= 1;
                        }
                        r -= hist_score / 8000;
                    } else {
                        r -= 1;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                v = -self.negamax(-alpha - 1, -alpha, new_depth - r, ply + 1, true, false);
                if v > alpha && r > 0 {
                    v = -self.negamax(-alpha - 1, -alpha, new_depth, ply + 1, !cut_node, false);
                }
                if pv_node && v > alpha && (root || v < beta) {
                    v = -self.negamax(-beta, -alpha, new_depth, ply + 1, false, true);
                }
            }
            self.board.unmake_move();
            if self.stopped {
                return 0;
            }

            if root {
                let idx = self.pv_idx + root_index - 1;
                let seldepth = self.seldepth;
                let rm_nodes = self.nodes - nodes_before;
                let first = moves_searched == 1;
                if first || v > alpha {
                    let pv_len = self.pv_len[1].max(1);
                    let rm = &mut self.root_moves[idx];
                    rm.score = v;
                    rm.seldepth = seldepth;
                    rm.pv.clear();
                    rm.pv.push(m);
                    for i in 1..pv_len {
                        rm.pv.push(self.pv[1][i]);
                    }
                    rm.nodes += rm_nodes;
                    if !first
                        && v > alpha
                        && v < beta
                        && self.id == 0
                        && depth > 1
                        && self.pv_idx == 0
                    {
                        // Move the new best to the front and report it.
                        // Moves after it keep their places, so `root_index` still
                        // points at the next unsearched move.
                        self.root_moves[self.pv_idx..=idx].rotate_right(1);
                        self.emit(SearchEvent::NewBest(self.info(
                            depth,
                            self.pv_idx,
                            Bound::Exact,
                        )));
                    }
                } else {
                    self.root_moves[idx].score = -INF;
                    self.root_moves[idx].nodes += rm_nodes;
                }
            }

            if v > best {
                best = v;
                if v > alpha {
                    best_move = m;
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
            if m != best_move {
                if quiet && n_quiets < quiets_tried.len() {
                    quiets_tried[n_quiets] = m;
                    n_quiets += 1;
                } else if is_capture && n_captures < captures_tried.len() {
                    captures_tried[n_captures] = m;
                    n_captures += 1;
                }
            }
        }

        if moves_searched == 0 {
            if !excluded.is_null() {
                return alpha;
            }
            // No legal move searched: mate or stalemate (pruning never skips all
            // moves, since pruning needs a searched move first).
            return if in_check {
                -MATE + ply as i32
            } else {
                self.draw_score(ply)
            };
        }

        // History updates on a cutoff.
        if best >= beta && !best_move.is_null() {
            let bonus = stat_bonus(depth);
            if best_move.is_quiet() {
                let k = &mut self.stack[si].killers;
                if k[0] != best_move {
                    k[1] = k[0];
                    k[0] = best_move;
                }
                let cur = self
                    .board
                    .piece_at(best_move.from())
                    .map_or(CONT_NONE, |p| cont_idx(p, best_move.to()));
                self.hist.update_quiet(side, best_move, cur, prevs, bonus);
                self.hist.set_counter(prevs[0], best_move);
                for &q in &quiets_tried[..n_quiets] {
                    let c = self
                        .board
                        .piece_at(q.from())
                        .map_or(CONT_NONE, |p| cont_idx(p, q.to()));
                    self.hist.update_quiet(side, q, c, prevs, -bonus);
                }
            } else if best_move.is_capture() && !best_move.is_en_passant() {
                if let (Some(p), Some(v)) = (
                    self.board.piece_at(best_move.from()),
                    self.board.piece_at(best_move.to()),
                ) {
                    self.hist.update_capture(p, best_move.to(), v.kind(), bonus);
                }
            }
            for &c in &captures_tried[..n_captures] {
                if c.is_en_passant() {
                    continue;
                }
                if let (Some(p), Some(v)) =
                    (self.board.piece_at(c.from()), self.board.piece_at(c.to()))
                {
                    self.hist.update_capture(p, c.to(), v.kind(), -bonus);
                }
            }
        }

        // egtb: keep the result within the table's bound.
        best = best.max(tb_floor).min(tb_cap);

        if excluded.is_null() && !(root && self.pv_idx > 0) {
            let bound = if best >= beta {
                BOUND_LOWER
            } else if pv_node && !best_move.is_null() {
                BOUND_EXACT
            } else {
                BOUND_UPPER
            };
            self.tt()
                .store(key, ply, best_move, best, raw_eval, depth, bound, tt_pv);
            // Correction history: learn how far the static evaluation of this pawn
            // structure is from what the search found, when the bound says so and
            // the best move was quiet.
            if !in_check
                && !root
                && best.abs() < MATE_IN_MAX
                && (best_move.is_null() || best_move.is_quiet())
                && !(bound == BOUND_LOWER && best <= static_eval)
                && !(bound == BOUND_UPPER && best >= static_eval)
            {
                self.hist
                    .update_corr(side, pawn_key, best - static_eval, depth);
            }
        }
        best
    }

    /// Quiescence search: captures and queen promotions with SEE and delta pruning;
    /// all evasions when in check.
    fn qsearch(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        qdepth: i32,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.check_limits();
        }
        if self.stopped {
            return 0;
        }
        self.pv_len[ply] = ply;
        if pv_node && ply as i32 > self.seldepth {
            self.seldepth = ply as i32;
        }
        if self.board.is_repetition(self.root_ply) || self.board.is_insufficient_material() {
            return self.draw_score(ply);
        }
        let in_check = self.board.in_check();
        if self.board.halfmove_clock() >= 100 {
            if !in_check || self.board.has_legal_move() {
                return self.draw_score(ply);
            }
            return -MATE + ply as i32;
        }
        if ply >= MAX_PLY - 2 {
            return if in_check {
                0
            } else {
                self.eval.evaluate(&self.board)
            };
        }
        let key = self.board.key();
        let hit = self.tt().probe(key, ply);
        if let Some(h) = hit {
            if !pv_node
                && (h.bound == BOUND_EXACT
                    || (h.bound == BOUND_LOWER && h.score >= beta)
                    || (h.bound == BOUND_UPPER && h.score <= alpha))
            {
                return h.score;
            }
        }
        let si = ply + STACK_OFFSET;
        let mut best;
        let static_eval;
        let raw_eval;
        if in_check {
            best = -INF;
            static_eval = NO_EVAL;
            raw_eval = NO_EVAL;
        } else {
            raw_eval = match hit {
                Some(h) if h.eval != NO_EVAL && h.eval.abs() < MATE_IN_MAX => h.eval,
                _ => self.eval.evaluate(&self.board),
            };
            let side = self.board.side_to_move().index();
            static_eval = self.correct(side, self.board.pawn_key(), raw_eval);
            best = static_eval;
            if let Some(h) = hit {
                if h.score.abs() < MATE_IN_MAX
                    && (h.bound == BOUND_EXACT
                        || (h.bound == BOUND_LOWER && h.score > best)
                        || (h.bound == BOUND_UPPER && h.score < best))
                {
                    best = h.score;
                }
            }
            if best >= beta {
                if hit.is_none() {
                    self.tt()
                        .store(key, ply, Move::NULL, best, raw_eval, -1, BOUND_LOWER, false);
                }
                return best;
            }
            if best > alpha {
                alpha = best;
            }
        }
        self.stack[si].static_eval = static_eval;
        let prevs = self.prevs(si);
        let mut picker = MovePicker::new_qsearch(
            &self.board,
            hit.map_or(Move::NULL, |h| h.mv),
            prevs,
            &self.hist,
        );
        let mut node = QBest {
            score: best,
            alpha,
            mv: Move::NULL,
        };
        let mut searched = 0;
        let futility_base = if in_check { NO_EVAL } else { static_eval + 180 };
        let check_info = self.board.check_info();
        while let Some(m) = picker.next(&self.board, &self.hist) {
            if !in_check && node.score > -MATE_IN_MAX {
                // Delta pruning: even winning the piece cannot reach alpha.
                if m.is_capture()
                    && !m.is_promotion()
                    && !self.board.gives_check_fast(&check_info, m)
                {
                    let victim = if m.is_en_passant() {
                        PieceType::Pawn
                    } else {
                        self.board
                            .piece_at(m.to())
                            .map_or(PieceType::Pawn, |p| p.kind())
                    };
                    if futility_base + PIECE_VALUES[victim.index()] <= node.alpha {
                        node.score = node.score.max(futility_base + PIECE_VALUES[victim.index()]);
                        continue;
                    }
                }
                if !self.board.see_ge(m, 0) {
                    continue;
                }
            }
            searched += 1;
            match self.qsearch_move(m, si, ply, pv_node, qdepth, beta, &mut node) {
                QStep::Stopped => return 0,
                QStep::Cutoff => break,
                QStep::Next => {}
            }
        }
        if in_check && searched == 0 {
            return -MATE + ply as i32;
        }
        // First quiescence ply: quiet checks that do not lose material too.
        if !in_check && qdepth == 0 && node.score < beta && self.config.qsearch_checks {
            let mut quiets = MoveList::new();
            self.board
                .generate_moves(crate::chess::GenType::Quiets, &mut quiets);
            for &m in quiets.iter() {
                if !self.board.gives_check_fast(&check_info, m) || !self.board.see_ge(m, 0) {
                    continue;
                }
                match self.qsearch_move(m, si, ply, pv_node, qdepth, beta, &mut node) {
                    QStep::Stopped => return 0,
                    QStep::Cutoff => break,
                    QStep::Next => {}
                }
            }
        }
        let bound = if node.score >= beta {
            BOUND_LOWER
        } else {
            BOUND_UPPER
        };
        self.tt()
            .store(key, ply, node.mv, node.score, raw_eval, 0, bound, false);
        node.score
    }

    /// One move of the quiescence search at stack index `si`: made, searched, unmade,
    /// and its value taken into `node` (best score, window, best move and PV).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn qsearch_move(
        &mut self,
        m: Move,
        si: usize,
        ply: usize,
        pv_node: bool,
        qdepth: i32,
        beta: i32,
        node: &mut QBest,
    ) -> QStep {
        let cur = self
            .board
            .piece_at(m.from())
            .map_or(CONT_NONE, |p| cont_idx(p, m.to()));
        self.stack[si].mv = m;
        self.stack[si].cont = cur;
        self.stack[si].capture_to = if m.is_capture() { Some(m.to()) } else { None };
        self.board.make_move(m);
        self.tt().prefetch(self.board.key());
        let v = -self.qsearch(-beta, -node.alpha, ply + 1, pv_node, qdepth + 1);
        self.board.unmake_move();
        if self.stopped {
            return QStep::Stopped;
        }
        if v > node.score {
            node.score = v;
            if v > node.alpha {
                node.mv = m;
                if pv_node {
                    self.update_pv(ply, m);
                }
                if v >= beta {
                    return QStep::Cutoff;
                }
                node.alpha = v;
            }
        }
        QStep::Next
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

#[inline]
fn stat_bonus(depth: i32) -> i32 {
    (170 * depth - 120).min(1800)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_log_and_reductions() {
        assert_eq!(ln1024(1), 0);
        // ln 2 = 0.693, ln 10 = 2.303, ln 100 = 4.605 (times 1024).
        assert!((ln1024(2) - 710).abs() <= 3);
        assert!((ln1024(10) - 2358).abs() <= 4);
        assert!((ln1024(100) - 4716).abs() <= 6);
        assert_eq!(LMR[1][1], 0);
        assert!(LMR[10][20] >= 2 && LMR[10][20] <= 4);
        assert!(LMR[63][63] > LMR[10][10]);
    }
}
