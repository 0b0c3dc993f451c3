//! What the game task does with its engine's reports: iterations and best-move
//! changes become talk, the move is played, resignations and draw answers go to the
//! server; and its faults: an engine that does not answer in time gets a stop, then a
//! fallback move is played; a fault in the first plies (`bot.abort_plies`) asks to
//! abort the game, too many faults resign it.

use super::*;

impl Task {
    /// Talk about the search for our move at `ply` (an iteration, or a change inside
    /// one); reports of other searches (pondering, stale ones) say nothing.
    pub(super) fn think_aloud(
        &mut self,
        ply: usize,
        t: Thought,
        change: Option<crate::bot::talk::Change>,
    ) {
        let ours = ply == self.ply() && self.thinking.as_ref().is_some_and(|x| x.ply == ply);
        if !ours || self.talk.levels.silent() {
            return;
        }
        let now = Instant::now();
        let lines = match change {
            None => self.talk.iteration(&self.board, &t, now),
            Some(k) => self.talk.change(&self.board, k, &t, now),
        };
        self.say(lines);
    }

    /// Sends talk lines in our own game.
    pub(super) fn say(&mut self, lines: Vec<(TalkChannel, String)>) {
        for (ch, text) in lines {
            self.log.push(format!("said: {text}"));
            self.s.status.game(self.s.game, |g| g.said(&text));
            self.send(GameCommand::Say(
                match ch {
                    TalkChannel::Whisper => Channel::Whisper,
                    TalkChannel::Kibitz => Channel::Kibitz,
                },
                text,
            ));
        }
    }

    pub(super) fn fault(&mut self, what: &str) {
        self.stats.faults += 1;
        self.s.status.update(|st| st.engine.healthy = false);
        error!(
            game = self.s.game,
            faults = self.stats.faults,
            "engine fault: {what}"
        );
        self.log.push(format!("engine fault: {what}"));
        if self.stats.faults >= self.max_faults {
            error!(game = self.s.game, "too many engine faults: resigning");
            self.send(GameCommand::Resign);
        } else if !self.abort_sent && self.ply() < self.abort_plies {
            // Early in the game an abort costs nobody anything; later the opponent
            // would only decline it (the fault is ours to carry, and the game goes on
            // with the fallback or the restarted engine).
            self.send(GameCommand::Abort);
            self.abort_sent = true;
        }
    }

    pub(super) fn on_brain(&mut self, ev: BrainEvent) {
        match ev {
            BrainEvent::Info {
                ply,
                depth,
                score,
                nodes,
                time,
                pv,
            } => {
                let t = Thought {
                    depth,
                    score,
                    nodes,
                    time,
                    pv: pv.clone(),
                };
                self.think_aloud(ply, t, None);
                if depth >= 1 && ply == self.ply() && self.our_turn() {
                    let facts = crate::bot::status::Search::new(
                        &self.board,
                        depth,
                        score,
                        nodes,
                        time,
                        &pv,
                    );
                    self.s.status.game(self.s.game, |g| g.search = Some(facts));
                }
                // Only the search for the move at the current ply is logged: a
                // ponder search's PV starts from a position not on the board yet
                // (its move numbers were one off and its PV often empty).
                if depth >= 1 && ply == self.ply() && !pv.is_empty() {
                    let root = self.board.clone();
                    let side_score = if self.s.our_color == Color::White {
                        score
                    } else {
                        -score
                    };
                    self.log.push(format!(
                        "ply {ply:>3} depth {depth:>2} score {} nodes {nodes} time {:.2} pv {}",
                        crate::format::score(side_score),
                        time.as_secs_f64(),
                        crate::format::pv(&root, crate::format::legal_prefix(&root, &pv), true)
                    ));
                }
                self.last_info = Some((ply, pv));
            }
            BrainEvent::Change {
                ply,
                kind,
                depth,
                score,
                nodes,
                time,
                pv,
            } => {
                let t = Thought {
                    depth,
                    score,
                    nodes,
                    time,
                    pv,
                };
                self.think_aloud(ply, t, Some(kind));
            }
            BrainEvent::Move {
                ply,
                key,
                mv,
                score,
                depth,
                nodes,
                time,
                pv,
                offer_draw,
                from_hook,
                book,
                error,
            } => {
                let Some(t) = self.thinking.as_ref() else {
                    return;
                };
                if t.ply != ply || ply != self.ply() || !self.our_turn() || key != self.board.key()
                {
                    debug!(game = self.s.game, ply, "stale engine move ignored");
                    return;
                }
                let board_at = t.board_at;
                if let Some(e) = error {
                    self.fault(&e);
                }
                let mv = if self.board.is_legal(mv) {
                    mv
                } else {
                    self.stats.illegal_caught += 1;
                    error!(game = self.s.game, %mv, "the engine's move is not legal in the server's position");
                    if self.retried_ply != Some(ply) {
                        self.retried_ply = Some(ply);
                        self.thinking = None;
                        self.maybe_think(board_at);
                        return;
                    }
                    match self.fallback_move() {
                        Some(m) => m,
                        None => return,
                    }
                };
                self.last_score = Some(score);
                if self.evals.len() <= ply {
                    self.evals.resize(ply + 1, None);
                }
                self.evals[ply] = Some(record::MoveEval {
                    score,
                    depth,
                    book: from_hook && book.is_some(),
                });
                let facts =
                    crate::bot::status::Search::new(&self.board, depth, score, nodes, time, &pv);
                let point = crate::bot::status::EvalPoint::of(&self.board, mv, facts.score_cp);
                let game = self.s.game;
                self.s.status.update(|st| st.our_move(game, point, facts));
                let line = format!(
                    "ply {ply:>3} played {} score {} depth {depth} nodes {nodes} time {:.2}{}",
                    self.board.san(mv),
                    crate::format::score(if self.s.our_color == Color::White {
                        score
                    } else {
                        -score
                    }),
                    time.as_secs_f64(),
                    if from_hook { " (book/tables)" } else { "" }
                );
                // One line per move of ours at info level (what lichess-bot users
                // read), the same in the game's own log.
                info!(
                    game = self.s.game,
                    "{}",
                    line.split_whitespace().collect::<Vec<_>>().join(" ")
                );
                self.log.push(line);
                let single = self.board.legal_moves().len() == 1;
                let root = self.board.clone();
                self.play(mv, board_at, from_hook || single);
                if offer_draw && !self.tournament {
                    self.send(GameCommand::OfferDraw);
                }
                if !self.talk.levels.silent() {
                    let t = Thought {
                        depth: if from_hook && book.is_none() {
                            depth.max(1)
                        } else {
                            depth
                        },
                        score,
                        nodes,
                        time,
                        pv: if pv.first() == Some(&mv) {
                            pv
                        } else {
                            vec![mv]
                        },
                    };
                    let lines = self.talk.moved(&root, &t, book.as_deref(), Instant::now());
                    self.say(lines);
                }
            }
            BrainEvent::Resign { ply, score } => {
                if ply == self.ply() && self.our_turn() && !self.tournament {
                    info!(game = self.s.game, score, "resigning");
                    self.log
                        .push(format!("resigned at ply {ply}, score {score}"));
                    self.send(GameCommand::Resign);
                    self.thinking = None;
                }
            }
            BrainEvent::DrawAnswer { accept, score } => {
                if accept && !self.tournament {
                    info!(game = self.s.game, score, "accepting the draw offer");
                    self.send(GameCommand::Answer(Offer::Draw, true));
                } else {
                    debug!(game = self.s.game, score, "draw offer not accepted");
                    self.send(GameCommand::Answer(Offer::Draw, false));
                }
            }
            BrainEvent::Died(msg) => {
                self.fault(&format!("engine thread panicked: {msg}"));
                self.new_brain();
                if self.our_turn() {
                    self.thinking = None;
                    self.maybe_think(self.last_at);
                } else {
                    self.brain_position(false);
                }
            }
        }
    }

    /// The engine did not answer in time.
    pub(super) fn on_deadline(&mut self) {
        let Some(t) = self.thinking.as_mut() else {
            return;
        };
        if !t.stop_sent {
            t.stop_sent = true;
            t.deadline = Instant::now() + Duration::from_millis(250);
            if let Some(b) = &self.brain {
                b.send(BrainCmd::Stop);
            }
            return;
        }
        let board_at = t.board_at;
        warn!(game = self.s.game, "the engine did not answer in time");
        let mv = self.fallback_move();
        self.fault("no answer to stop");
        if let Some(m) = mv {
            self.play(m, board_at, false);
        }
        self.new_brain();
        self.brain_position(false);
    }
}
