//! Iterative deepening at the root: aspiration windows around the last score, the
//! Lazy SMP depth schedule of helper threads, and the time decisions taken between
//! iterations (soft limit scaled by the best move's stability).

use super::*;

impl Worker {
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
                    // The best move's share of this thread's nodes: a move that
                    // took nearly all the effort needs less time, a contested one more.
                    let mut scale = soft_scale(best_changes, drop, stable);
                    if depth >= 6 {
                        scale =
                            scale * node_share_scale(self.root_moves[0].nodes, self.nodes) / 100;
                    }
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
}
