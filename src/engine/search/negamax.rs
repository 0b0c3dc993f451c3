//! The principal variation search of one node: draws and mate distance, the
//! transposition table and endgame tables, static evaluation with its correction,
//! reverse futility and null move pruning, then the moves in the picker's order with
//! their pruning, extensions and late move reductions, and the history updates.

use super::reductions::{stat_bonus, LMR};
use super::*;

impl Worker {
    /// The principal variation search.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax(
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
        if !self.enter_node(ply, pv_node) {
            return 0;
        }
        let in_check = self.board.in_check();
        if !root {
            if let Some(score) = self.settled_score(ply, in_check) {
                return score;
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
        // `static_eval` that corrected by the correction histories.
        let side = self.board.side_to_move().index();
        let corr_keys = CorrKeys::of(&self.board);
        let (raw_eval, static_eval, eval) = if in_check {
            (NO_EVAL, NO_EVAL, NO_EVAL)
        } else if let Some(h) = hit {
            let raw = if h.eval != NO_EVAL && h.eval.abs() < MATE_IN_MAX {
                h.eval
            } else {
                self.static_eval()
            };
            let se = self.correct(&corr_keys, raw);
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
            let raw = self.static_eval();
            let se = self.correct(&corr_keys, raw);
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
            // Razoring: far below alpha a few plies from the horizon, let the
            // quiescence search confirm the fail-low.
            if depth <= 3 && eval + 220 * depth < alpha {
                let v = self.qsearch(alpha - 1, alpha, ply, false, 0);
                if v < alpha {
                    return v;
                }
            }
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
                self.make_null();
                let v = -self.negamax(-beta, -beta + 1, depth - r, ply + 1, !cut_node, false);
                self.unmake_null();
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
        let lmp_limit = (3 + depth * depth) / (2 - improving as i32);
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
                // Crafty's mate threat extension (off by default): the null move found
                // that passing gets mated. Null moves are tried only outside PV nodes,
                // so that is where it can fire.
                if ext == 0 && mate_threat && ex.mate_threat > 0 {
                    ext = 1;
                }
            }

            // Make the move.
            self.stack[si].mv = m;
            self.stack[si].cont = cur;
            self.stack[si].capture_to = if is_capture { Some(m.to()) } else { None };
            self.stack[si + 1].double_exts = self.stack[si].double_exts + (ext >= 2) as u8;
            let nodes_before = self.nodes;
            self.make(m);
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
            self.unmake();
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
            // Correction history: learn how far the static evaluation of these pawns
            // and pieces is from what the search found, when the bound says so and
            // the best move was quiet.
            if !in_check
                && !root
                && best.abs() < MATE_IN_MAX
                && (best_move.is_null() || best_move.is_quiet())
                && !(bound == BOUND_LOWER && best <= static_eval)
                && !(bound == BOUND_UPPER && best >= static_eval)
            {
                self.hist.update_corr(&corr_keys, best - static_eval, depth);
            }
        }
        best
    }
}
