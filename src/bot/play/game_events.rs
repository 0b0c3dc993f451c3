//! What the game task does with what happens to it from outside the engine: the
//! server's events (positions, offers and their answers, refusals, the end, talk)
//! and its own timers (the engine's deadline, the flag to claim, the steps against
//! an opponent who never makes a first move).

use super::*;

impl Task {
    pub(super) fn on_event(&mut self, ev: GameEvent, at: Instant) -> Option<End> {
        match ev {
            GameEvent::Position(p) => self.on_position(p, at),
            GameEvent::End(e) => return Some(e),
            GameEvent::MoveRefused(text) if self.pending.is_some() => {
                self.pending = None;
                self.stats.illegal_replies += 1;
                self.s
                    .status
                    .update(|st| st.counters.illegal_move_replies += 1);
                error!(game = self.s.game, "the server refused our move: {text}");
                self.resync("our move was refused");
            }
            GameEvent::MoveRefused(text) => {
                debug!(
                    game = self.s.game,
                    "a refusal with no move of ours pending: {text}"
                )
            }
            GameEvent::Offer(Offer::Draw) => {
                if let Some(b) = &self.brain {
                    b.send(BrainCmd::DrawOffered);
                }
            }
            GameEvent::Offer(Offer::Abort) => {
                if self.ply() < self.abort_plies || self.stats.faults > 0 {
                    info!(game = self.s.game, "accepting the abort request");
                    self.send(GameCommand::Answer(Offer::Abort, true));
                } else {
                    debug!(
                        game = self.s.game,
                        "abort request declined (game under way)"
                    );
                }
            }
            GameEvent::Offer(Offer::Adjourn) => {
                if self.draining && self.s.opts.bool("bot.adjourn_on_shutdown") {
                    self.send(GameCommand::Answer(Offer::Adjourn, true));
                } else {
                    self.send(GameCommand::Answer(Offer::Adjourn, false));
                    if self.polite {
                        self.send(GameCommand::Say(
                            Channel::Opponent,
                            "Sorry, I play my games to the end.".into(),
                        ));
                    }
                }
            }
            GameEvent::Offer(Offer::Takeback)
                if self.takebacks < self.s.max_takebacks && self.pending.is_some() =>
            {
                // Our move is on its way: the request was for the position before
                // it, and the server drops it when our move arrives. An answer now
                // could reach the server after that, where it would be a takeback
                // request of our own.
                debug!(
                    game = self.s.game,
                    "takeback request while our move is on its way: left unanswered"
                );
            }
            GameEvent::Offer(Offer::Takeback) if self.takebacks < self.s.max_takebacks => {
                self.takebacks += 1;
                if self.our_turn() {
                    // The search's move must not cross our answer on the way.
                    self.thinking = None;
                    if let Some(b) = &self.brain {
                        b.send(BrainCmd::Stop);
                    }
                    // At most 2 s, and a tenth of our time.
                    let left = self.left_now_ms(self.s.our_color).max(0) as u64;
                    let hold = Duration::from_millis((left / 10).min(2000));
                    self.takeback_hold = Some(Instant::now() + hold);
                }
                info!(
                    game = self.s.game,
                    n = self.takebacks,
                    max = self.s.max_takebacks,
                    "accepting the takeback request"
                );
                self.log.push(format!(
                    "takeback {} of {} accepted",
                    self.takebacks, self.s.max_takebacks
                ));
                // The search goes on until the server's shorter move list comes.
                self.send(GameCommand::Answer(Offer::Takeback, true));
            }
            GameEvent::Offer(Offer::Takeback) => {
                self.send(GameCommand::Answer(Offer::Takeback, false));
                if self.polite {
                    let text = if self.s.max_takebacks > 0 {
                        "Sorry, no more takebacks in this game."
                    } else {
                        "Sorry, no takebacks."
                    };
                    self.send(GameCommand::Say(Channel::Opponent, text.into()));
                }
            }
            GameEvent::FlagRefused => {
                self.flag_at = self
                    .flag_at
                    .map(|_| Instant::now() + Duration::from_millis(500));
            }
        }
        None
    }

    pub(super) fn next_timer(&self) -> Instant {
        let mut t = Instant::now() + FAR;
        if let Some(th) = &self.thinking {
            t = t.min(th.deadline);
        }
        if let Some(f) = self.flag_at {
            t = t.min(f);
        }
        if let Some(f) = self.first_move_deadline {
            t = t.min(f);
        }
        if let Some((_, f)) = self.stall {
            t = t.min(f);
        }
        if let Some(h) = self.takeback_hold {
            t = t.min(h);
        }
        t
    }

    pub(super) fn on_timer(&mut self) {
        let now = Instant::now();
        if self.takeback_hold.is_some_and(|h| now >= h) {
            warn!(
                game = self.s.game,
                "the takeback we accepted did not come: playing on"
            );
            self.takeback_hold = None;
            self.maybe_think(self.last_at);
        }
        if self.thinking.as_ref().is_some_and(|t| now >= t.deadline) {
            self.on_deadline();
        }
        if self.flag_at.is_some_and(|f| now >= f) {
            if !self.our_turn() && self.flags_sent < 20 {
                debug!(game = self.s.game, "opponent's time is up: flag");
                self.send(GameCommand::Flag);
                self.flags_sent += 1;
                self.flag_at = Some(now + Duration::from_secs(1));
            } else {
                self.flag_at = None;
            }
        }
        if self.first_move_deadline.is_some_and(|f| now >= f) {
            self.first_move_deadline = None;
            if !self.opponent_has_moved() && !self.abort_sent {
                info!(game = self.s.game, "the opponent does not move: aborting");
                self.send(GameCommand::Abort);
                self.abort_sent = true;
                self.stall = Some((Stall::AbortAsked, now + self.stall_step()));
            }
        }
        if let Some((step, _)) = self.stall.filter(|&(_, at)| now >= at) {
            self.stall = None;
            if !self.opponent_has_moved() {
                self.next_stall_step(step, now);
            }
        }
    }

    pub(super) fn stall_step(&self) -> Duration {
        self.s.opts.duration("bot.stall_step")
    }

    /// The opponent has still not moved after `done`: the next step.
    pub(super) fn next_stall_step(&mut self, done: Stall, now: Instant) {
        let next = match done {
            Stall::AbortAsked => {
                warn!(
                    game = self.s.game,
                    opponent = %self.s.opponent,
                    "the opponent neither moves nor agrees to abort: asking to adjourn"
                );
                self.send(GameCommand::Adjourn);
                Stall::AdjournAsked
            }
            Stall::AdjournAsked => {
                warn!(
                    game = self.s.game,
                    opponent = %self.s.opponent,
                    "the opponent neither moves nor agrees to adjourn: leaving the game"
                );
                self.log
                    .push("left the game: the opponent never made a first move".into());
                self.left = true;
                self.send(GameCommand::Leave);
                Stall::Left
            }
            Stall::Left => {
                warn!(
                    game = self.s.game,
                    "the game could not be left and the opponent still does not move: resigning"
                );
                self.send(GameCommand::Resign);
                return;
            }
        };
        self.stall = Some((next, now + self.stall_step()));
    }
}
