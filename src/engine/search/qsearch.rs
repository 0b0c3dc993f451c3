//! The quiescence search: captures and queen promotions (all evasions in check),
//! with delta and SEE pruning, and quiet checks at its first ply.

use super::*;

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

impl Worker {
    /// Quiescence search: captures and queen promotions with SEE and delta pruning;
    /// all evasions when in check.
    pub(super) fn qsearch(
        &mut self,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
        qdepth: i32,
    ) -> i32 {
        if !self.enter_node(ply, pv_node) {
            return 0;
        }
        let in_check = self.board.in_check();
        if let Some(score) = self.settled_score(ply, in_check) {
            return score;
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
                _ => self.static_eval(),
            };
            static_eval = self.correct(&CorrKeys::of(&self.board), raw_eval);
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
        self.make(m);
        self.tt().prefetch(self.board.key());
        let v = -self.qsearch(-beta, -node.alpha, ply + 1, pv_node, qdepth + 1);
        self.unmake();
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
}
