//! The game controller's searches: the limits from the clock or `st`/`sd`/`sn`, the
//! move-source chain (book, then tables, then the search), thinking, pondering and
//! analysing on the front end's sink, stopping, and turning a finished search into
//! the move, resignation or draw offer the game plays.

use super::*;

impl Game {
    /// The search limits for `side` to move now: `st` or the clock, plus `sd`/`sn`.
    pub fn limits_for(&self, side: Color) -> SearchLimits {
        let mut l = SearchLimits {
            depth: self.sd,
            nodes: self.sn,
            game_ply: 2 * (self.board.fullmove_number() as u32).saturating_sub(1)
                + (self.board.side_to_move() == Color::Black) as u32,
            ..Default::default()
        };
        if let Some(st) = self.st {
            l.movetime = Some(st);
        } else {
            l.clock = Some(ClockLimits {
                time_left: self.clocks.left(side),
                increment: self.clocks.time_control().inc,
                moves_to_go: self.clocks.moves_to_go(side),
                opponent_left: Some(self.clocks.left(!side)),
            });
        }
        l
    }

    pub(super) fn wrap_sink(&mut self, sink: EventSink) -> EventSink {
        self.search_id += 1;
        let id = self.search_id;
        let slot = Arc::clone(&self.slot);
        let notify = self.notify.clone();
        Arc::new(move |e: &SearchEvent| {
            sink(e);
            if let SearchEvent::Done(r) = e {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((id, r.clone(), false));
                if let Some(n) = &notify {
                    n();
                }
            }
        })
    }

    pub(super) fn finish_from_hook(&mut self, sink: EventSink, mv: Move, score: i32) {
        let r = SearchResult {
            best: mv,
            ponder: None,
            score,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: vec![mv],
            root_side: self.board.side_to_move(),
            error: None,
        };
        let wrapped = self.wrap_sink(sink);
        wrapped(&SearchEvent::Done(r));
        if let Some(s) = self.slot.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            s.2 = true;
        }
    }

    /// The engine searches for its move in the current position with the game's
    /// limits: book, then tables, then the search.
    pub fn think(&mut self, sink: EventSink) {
        let limits = self.limits_for(self.board.side_to_move());
        self.think_with(limits, sink, true);
    }

    /// Searches the current position with explicit limits (UCI `go`). With `hooks`,
    /// the book and the tables are consulted first. `limits.ponder` starts a ponder
    /// search (state `Pondering` until `ponderhit`).
    pub fn think_with(&mut self, limits: SearchLimits, sink: EventSink, hooks: bool) {
        self.abort_search();
        self.apply_opponent();
        let pondering = limits.ponder;
        self.state = if pondering {
            EngineState::Pondering
        } else {
            EngineState::Thinking
        };
        self.pondering_on = if pondering {
            self.board.last_move()
        } else {
            None
        };
        let plain = !pondering && !limits.infinite && limits.searchmoves.is_empty();
        let mut limits = limits;
        self.book_search = false;
        if hooks && plain && self.board.has_legal_move() {
            let over = self.policy.book_override(&self.opponent);
            let answer = self
                .book
                .as_mut()
                .map_or(BookAnswer::Out, |b| b.answer(&self.board, over));
            match answer {
                BookAnswer::Play(mv) if self.board.is_legal(mv) => {
                    self.finish_from_hook(sink, mv, 0);
                    return;
                }
                BookAnswer::Search(moves) => {
                    let moves: Vec<Move> = moves
                        .into_iter()
                        .filter(|&m| self.board.is_legal(m))
                        .collect();
                    if moves.len() == 1 {
                        self.finish_from_hook(sink, moves[0], 0);
                        return;
                    }
                    if !moves.is_empty() {
                        limits = book_search_limits(limits, moves);
                        self.book_search = true;
                    }
                }
                _ => {}
            }
            if !self.book_search {
                let (board, opponent) = (&self.board, &self.opponent);
                if let Some((mv, score)) = self.tables.as_mut().and_then(|t| {
                    t.set_opponent(opponent);
                    t.probe_root(board)
                }) {
                    if self.board.is_legal(mv) {
                        self.finish_from_hook(sink, mv, score);
                        return;
                    }
                }
            }
        }
        self.bounded = !limits.infinite;
        let wrapped = self.wrap_sink(sink);
        preload(&mut self.book, self.engine.as_ref(), &self.board);
        self.engine
            .go(&self.board, limits, self.config.clone(), wrapped);
    }

    /// True while a search runs that will end by itself (a timed or limited search for
    /// a move, not analysis and not a ponder search before `ponderhit`).
    pub fn search_ends_by_itself(&self) -> bool {
        self.state == EngineState::Thinking && self.bounded
    }

    /// Waits for a search that ends by itself and returns it (see
    /// `search_ends_by_itself`); other searches are stopped first.
    pub fn wait_finished(&mut self) -> Option<Finished> {
        if self.state == EngineState::Idle {
            return None;
        }
        if !self.search_ends_by_itself() {
            self.engine.stop();
        }
        self.engine.wait();
        self.take_finished()
    }

    /// After the engine's move: ponders on the expected reply if pondering is on and
    /// the game goes on. Returns the move pondered on.
    pub fn start_pondering(&mut self, sink: EventSink) -> Option<Move> {
        if !self.ponder || self.result.is_some() || self.state != EngineState::Idle {
            return None;
        }
        let mv = self.ponder_override.take().or(self.expected_reply)?;
        if !self.board.is_legal(mv) {
            return None;
        }
        let engine_side = !self.board.side_to_move();
        let mut b = self.board.clone();
        b.make_move(mv);
        if !b.has_legal_move() {
            return None;
        }
        let mut limits = self.limits_for(engine_side);
        limits.ponder = true;
        let wrapped = self.wrap_sink(sink);
        self.state = EngineState::Pondering;
        self.bounded = true;
        self.pondering_on = Some(mv);
        self.book_search = false;
        preload(&mut self.book, self.engine.as_ref(), &b);
        self.engine.go(&b, limits, self.config.clone(), wrapped);
        Some(mv)
    }

    /// UCI `ponderhit`: the ponder search becomes a normal search.
    pub fn ponderhit(&mut self) {
        if self.state == EngineState::Pondering {
            self.engine.ponderhit();
            self.state = EngineState::Thinking;
            self.pondering_on = None;
        }
    }

    /// Analyses the current position without end (`analyze`); `observing` marks a
    /// game the engine does not play.
    pub fn analyse(&mut self, sink: EventSink, observing: bool) {
        self.abort_search();
        if !self.board.has_legal_move() {
            return;
        }
        let limits = SearchLimits {
            infinite: true,
            depth: self.sd,
            ..Default::default()
        };
        let wrapped = self.wrap_sink(sink);
        self.bounded = false;
        self.state = if observing {
            EngineState::Observing
        } else {
            EngineState::Analysing
        };
        self.pondering_on = None;
        self.book_search = false;
        preload(&mut self.book, self.engine.as_ref(), &self.board);
        self.engine
            .go(&self.board, limits, self.config.clone(), wrapped);
    }

    /// Asks the running search to stop (its result is collected as usual).
    pub fn stop(&self) {
        self.engine.stop();
    }

    /// Collects the search that has ended, if it is the current one.
    pub fn take_finished(&mut self) -> Option<Finished> {
        let taken = self.slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (id, result, from_hook) = taken?;
        if id != self.search_id || self.state == EngineState::Idle {
            return None;
        }
        let state = self.state;
        self.state = EngineState::Idle;
        self.pondering_on = None;
        if state == EngineState::Thinking {
            self.last_score = Some(result.score);
        }
        self.last_hooked = from_hook || self.book_search;
        self.book_search = false;
        Some(Finished {
            state,
            result,
            from_hook,
        })
    }

    /// Stops the search and waits for it; returns its result (if it is the current
    /// search and was not collected yet).
    pub fn stop_and_wait(&mut self) -> Option<Finished> {
        if self.state == EngineState::Idle {
            return None;
        }
        self.engine.stop();
        self.engine.wait();
        self.take_finished()
    }

    /// Stops any search and drops its result.
    pub fn abort_search(&mut self) {
        if self.state != EngineState::Idle {
            self.engine.stop();
            self.engine.wait();
            let _ = self.take_finished();
            self.state = EngineState::Idle;
            self.pondering_on = None;
        }
    }

    /// Plays the move of a finished search for the engine: the resign policy first,
    /// then the move (with its score), the draw-offer policy, and the expected reply
    /// kept for pondering.
    pub fn engine_move(&mut self, r: &SearchResult) -> EngineAction {
        if r.best.is_null() || !self.board.is_legal(r.best) {
            if self.result.is_none() {
                self.result = self.detect_result();
                self.report_result();
            }
            return EngineAction::None;
        }
        let side = self.board.side_to_move();
        self.apply_opponent();
        self.scores.push(r.score);
        self.last_score = Some(r.score);
        let hooked = std::mem::take(&mut self.last_hooked);
        self.searched_score = (!hooked).then_some(r.score);
        if !hooked {
            if let Some(b) = self.book.as_mut() {
                b.after_search(&self.board, r);
            }
        }
        // In a table position the tables decide about resigning and offering a draw.
        let verdict = self.table_verdict();
        let resign = match &verdict {
            Some(v) => self
                .policy
                .resign_by_tables(v, &self.opponent, &self.table_policy),
            None => self.policy.resign(&self.scores),
        };
        if resign {
            self.abort_search();
            self.result = Some(GameResult {
                outcome: Outcome::win_for(!side),
                reason: format!("{} resigns", side.name()),
            });
            self.report_result();
            return EngineAction::Resign;
        }
        let offer_draw = match &verdict {
            Some(v) => self.policy.offer_draw_by_tables(v, &mut self.table_policy),
            None => self.policy.offer_draw(&self.scores),
        };
        let san = self.board.san(r.best);
        self.move_score = Some(r.score);
        self.make_move(r.best).expect("checked legal");
        if let Some(m) = self.moves.last_mut() {
            m.score = Some(r.score);
        }
        self.expected_reply = r.ponder.filter(|&p| self.board.is_legal(p));
        EngineAction::Move {
            mv: r.best,
            san,
            offer_draw,
        }
    }
}

/// Position learning: the book hook's positions go into the transposition table
/// before a search starts (and so before its helper threads).
fn preload(book: &mut Option<Box<dyn BookHook>>, engine: &dyn Searcher, board: &Board) {
    if let Some(b) = book.as_mut() {
        let entries = b.preload(board);
        if !entries.is_empty() {
            engine.preload(entries);
        }
    }
}

/// `book random 0`: the book's candidates searched for about a tenth of the time a
/// normal search would take.
fn book_search_limits(mut l: SearchLimits, moves: Vec<Move>) -> SearchLimits {
    const MIN: Duration = Duration::from_millis(20);
    if let Some(t) = l.movetime {
        l.movetime = Some((t / 10).max(MIN));
    } else if let Some(c) = l.clock.take() {
        let per_move = c.time_left / c.moves_to_go.unwrap_or(30).max(1) + c.increment;
        l.movetime = Some((per_move / 10).max(MIN).min(c.time_left / 4));
    }
    l.searchmoves = moves;
    l
}
