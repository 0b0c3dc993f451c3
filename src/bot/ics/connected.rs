//! One connected stretch of the ICS account: the loop that reads the server's
//! events, routes a game's events to its adapter (and so to its task through the
//! port), renders the tasks' port commands, answers challenges by the formula on
//! the account's slots (a slot is freed at the result, not when the task has
//! finished writing its records), starts and finishes games, keeps the link alive,
//! observes, and decides when the stretch ends (our shutdown, a lost connection, a
//! kick by the server).

use super::adapter::IcsGame;
use super::*;
use crate::bot::formula::{Refusal, Request, Seen};
use crate::bot::play::port::{GameCommand, GameInput};
use crate::bot::status::LiveGame;
use crate::ics::{Incoming, ServerCommand, ServerProfile};
use tracing::debug;

/// One of our games on this connection: its adapter and setup.
pub(super) struct Game {
    pub(super) adapter: IcsGame,
    pub(super) setup: GameSetup,
}

/// Our games on this connection, by number.
pub(super) type Games = HashMap<u32, Game>;

/// The game still being played (its result not yet seen), if any.
pub(super) fn live(games: &Games) -> Option<&Game> {
    games.values().find(|g| !g.adapter.ended)
}

/// An ICS challenge as the formula reads it.
fn request(c: &Challenge) -> Request {
    Request {
        names: vec![c.challenger.clone()],
        rating: c.challenger_rating,
        own_rating: c.receiver_rating,
        rated: c.rated,
        standard_chess: matches!(
            c.kind.as_str(),
            "blitz" | "lightning" | "standard" | "bullet" | "rapid" | "untimed"
        ),
        standard_start: true,
        clock: Some((c.minutes * 60, c.increment)),
        computer: c.computer,
        resume: c.adjourned,
    }
}

async fn sleep_until(t: Option<Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(tokio::time::Instant::from_std(t)).await,
        None => std::future::pending().await,
    }
}

impl Account {
    pub(super) async fn connected(
        &mut self,
        mut conn: Connection,
        cfg: &ConnectConfig,
    ) -> SessionEnd {
        conn.setup(cfg);
        let w = conn.writer.clone();
        let handle = conn.handle.clone();
        let kind = cfg.kind;
        let unit = ServerProfile::new(kind).clock_unit;
        let mut games: Games = HashMap::new();
        // The login banner (opponents with adjourned games) first: resuming a game
        // comes before seeking a new one.
        for (ev, at) in std::mem::take(&mut conn.early) {
            if let Some(end) = self.on_event(ev, at, &w, &handle, kind, unit, &cfg.host, &mut games)
            {
                return end;
            }
        }
        self.st.observer.guest = super::owner::is_guest(&handle);
        self.st.observer.engines = self.ctx.frame.engines.clone();
        self.st.observer.start(&w);
        self.seek_all(&w);
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut keepalive_sent: Option<Instant> = None;
        let mut engine_was_down = false;
        loop {
            let adapter_wake = games.values().filter_map(|g| g.adapter.next_timer()).min();
            tokio::select! {
                inc = conn.events.recv() => {
                    let (ev, at) = match inc {
                        None => return self.lost(&mut games, "the reader ended".into()),
                        Some(Incoming::Closed(why)) => return self.lost(&mut games, why),
                        Some(Incoming::Event(ev, at)) => (ev, at),
                    };
                    if let Some(end) = self.on_event(ev, at, &w, &handle, kind, unit, &cfg.host, &mut games) {
                        return end;
                    }
                }
                Some((n, c)) = self.port_rx.recv() => {
                    if let Some(end) = self.port_command(n, c, &mut games, &w) {
                        return end;
                    }
                }
                Some(end) = self.tasks.join_next(), if !self.tasks.is_empty() => {
                    // What the ended task said last (its farewell) is in the port
                    // already: it goes out before the game leaves `games`.
                    while let Ok((n, c)) = self.port_rx.try_recv() {
                        if let Some(end) = self.port_command(n, c, &mut games, &w) {
                            return end;
                        }
                    }
                    if let Ok(end) = end {
                        self.task_ended(end, Some((&mut games, &w))).await;
                    }
                    if self.st.draining && live(&games).is_none() && self.tasks.is_empty() {
                        info!("games over; quitting as asked");
                        w.send(&ServerCommand::Quit);
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        return SessionEnd::Quit;
                    }
                }
                _ = sleep_until(adapter_wake) => {
                    let now = Instant::now();
                    for g in games.values_mut() {
                        g.adapter.on_timer(now);
                    }
                }
                changed = self.ctx.stop.changed() => match super::super::requested(changed, &self.ctx.stop) {
                    Stop::Run => {}
                    Stop::Drain if !self.st.draining => {
                        self.st.draining = true;
                        self.set_state(|a| a.draining = true);
                        w.send(&ServerCommand::Unseek);
                        if live(&games).is_none() && self.tasks.is_empty() {
                            w.send(&ServerCommand::Quit);
                            return SessionEnd::Quit;
                        }
                        let adjourn = self.st.opts.bool("bot.adjourn_on_shutdown");
                        for g in games.values().filter(|g| !g.adapter.ended) {
                            let _ = g.adapter.tx.send(GameInput::Drain { adjourn });
                        }
                    }
                    Stop::Drain => {}
                    Stop::Quit => {
                        w.send(&ServerCommand::Quit);
                        self.tasks.abort_all();
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        return SessionEnd::Quit;
                    }
                },
                r = self.ctx.settings.changed() => {
                    if r.is_ok() {
                        self.take_reload();
                        if live(&games).is_none() {
                            self.seek_all(&w);
                        }
                    }
                }
                a = self.st.observer.recv() => {
                    if let Some(a) = a {
                        self.st.observer.on_analysis(a, &w);
                        self.publish_observed();
                    }
                }
                _ = tick.tick() => {
                    let now = Instant::now();
                    self.ctx.beat.beat();
                    // No seeking while the external engine is down; again once it
                    // answers.
                    let down = self.ctx.frame.engines.down();
                    if down.is_some() != engine_was_down {
                        engine_was_down = down.is_some();
                        match down {
                            Some(why) => {
                                warn!("the engine is down ({why}): no seeking until it answers");
                                w.send(&ServerCommand::Unseek);
                            }
                            None => {
                                info!("the engine answers again: seeking");
                                if live(&games).is_none() {
                                    self.seek_all(&w);
                                }
                            }
                        }
                    } else if down.is_none() && self.st.seek_owed.load(std::sync::atomic::Ordering::Relaxed) && live(&games).is_none() {
                        // Down and up again between two ticks, with a seek due.
                        self.seek_all(&w);
                    }
                    self.st.observer.tick(now, &w);
                    let keepalive = self.st.opts.duration("ics.keepalive");
                    if now.duration_since(w.last_sent()) >= keepalive && keepalive > Duration::ZERO {
                        debug!("keepalive");
                        w.send(&ServerCommand::Operator(
                            self.st.opts.str("ics.keepalive_command").to_string(),
                        ));
                        keepalive_sent = Some(now);
                    }
                    let mut healthy = true;
                    if let Some(k) = keepalive_sent {
                        if conn.last_input() > k {
                            keepalive_sent = None;
                        } else {
                            healthy = false;
                            if now.duration_since(k) >= self.st.opts.duration("ics.dead_link") {
                                return self.lost(&mut games, "no answer to the keepalive (dead link)".into());
                            }
                        }
                    }
                    let up = healthy && w.is_open();
                    self.status().update_if(|s| match s.account_mut(ACCOUNT) {
                        Some(a) if a.healthy != up => {
                            a.healthy = up;
                            true
                        }
                        _ => false,
                    });
                }
            }
        }
    }

    /// Starts the task of a game of ours.
    fn start_game(
        &mut self,
        setup: GameSetup,
        unit: Option<crate::ics::ClockUnit>,
        games: &mut Games,
    ) {
        self.st.observer.pause(true);
        let number = setup.game;
        self.st
            .slots
            .start(&number.to_string(), Some(&setup.opponent));
        let live = LiveGame::of(&setup);
        let running = self.ctx.frame.start_game(
            setup.clone(),
            self.port.for_game(number),
            self.st.brain.take(),
            live,
        );
        let handle = running.handle;
        self.tasks.spawn(async move { (number, handle.await) });
        let adapter = IcsGame::new(number, &setup.opponent, unit, running.tx);
        games.insert(number, Game { adapter, setup });
    }

    /// A game task ended: the finish path, or (a panic) a fresh task for the game
    /// while it goes on.
    pub(super) async fn task_ended(
        &mut self,
        (number, r): TaskEnd,
        conn: Option<(&mut Games, &Writer)>,
    ) {
        match r {
            Ok(out) => {
                let opts = self.st.opts.clone();
                let brain = self
                    .ctx
                    .frame
                    .finish(
                        out,
                        &self.st.archive,
                        &mut self.st.opponents,
                        &mut self.st.noplay,
                        &opts,
                    )
                    .await;
                if self.st.brain.is_none() {
                    self.st.brain = brain;
                }
                if let Some((games, _)) = conn {
                    games.remove(&number);
                    if live(games).is_none() {
                        self.st.observer.pause(false);
                    }
                }
                self.st.slots.end(&number.to_string());
            }
            Err(e) if e.is_cancelled() => self.st.slots.end(&number.to_string()),
            Err(e) => {
                error!(game = number, "the game task failed: {e}");
                self.emit(BotEvent::GamePanicked { game: number });
                let n = self.st.panics.entry(number).or_insert(0);
                *n += 1;
                let resign = *n >= self.st.opts.int("bot.max_faults") as u32;
                let Some((games, w)) = conn else {
                    self.st.slots.end(&number.to_string());
                    return;
                };
                w.send(&if resign {
                    ServerCommand::Resign
                } else {
                    ServerCommand::Abort
                });
                let Some(g) = games.get_mut(&number).filter(|g| !g.adapter.ended) else {
                    games.remove(&number);
                    self.st.slots.end(&number.to_string());
                    return;
                };
                // Play on (if the game goes on) from a fresh task that re-synchronises.
                let mut setup = g.setup.clone();
                setup.continuing = true;
                setup.fresh = false;
                let running = self.ctx.frame.start_game(
                    setup,
                    self.port.for_game(number),
                    None,
                    LiveGame::of(&g.setup),
                );
                g.adapter.tx = running.tx;
                let handle = running.handle;
                self.tasks.spawn(async move { (number, handle.await) });
                w.send(&ServerCommand::Refresh);
            }
        }
    }

    /// A command of a game's task, to the game's adapter; `Some` ends the session.
    fn port_command(
        &mut self,
        n: u32,
        c: GameCommand,
        games: &mut Games,
        w: &Writer,
    ) -> Option<SessionEnd> {
        match games.get_mut(&n) {
            Some(g) if c == GameCommand::Leave => {
                if !g.adapter.ended {
                    // The server adjourns (both registered) or aborts a game
                    // whose player's link drops: the only way out of a game
                    // the opponent never started and will not abort.
                    let who = g.setup.opponent.clone();
                    self.st.left.insert(who.to_ascii_lowercase());
                    let why = format!("left game {n}: {who} never made a first move");
                    return Some(SessionEnd::Left(self.lost(games, why).why()));
                }
            }
            Some(g) => g.adapter.command(c, w),
            None => debug!(
                game = n,
                ?c,
                "a command of a game no longer on this connection"
            ),
        }
        None
    }

    fn lost(&mut self, games: &mut Games, why: String) -> SessionEnd {
        for (n, g) in games.drain() {
            if !g.adapter.ended {
                info!(
                    game = n,
                    opponent = %g.setup.opponent,
                    "game cut off with the connection: its record stays in progress until the game is resumed or a new game with this opponent starts"
                );
            }
            let _ = g.adapter.tx.send(GameInput::ConnectionLost);
        }
        SessionEnd::Lost(why)
    }

    #[allow(clippy::too_many_arguments)]
    fn on_event(
        &mut self,
        ev: ServerEvent,
        at: Instant,
        w: &Writer,
        handle: &str,
        kind: ServerKind,
        unit: Option<crate::ics::ClockUnit>,
        host: &str,
        games: &mut Games,
    ) -> Option<SessionEnd> {
        let hooks = self.ctx.hooks.clone();
        // Our game's board or position: the game (or one we did not see start,
        // resumed after a restart).
        let ours = match &ev {
            ServerEvent::Style12(s) => s
                .our_color(handle)
                .map(|_| (s.game, s.white.clone(), s.black.clone())),
            ServerEvent::Position(p) => matches!(p.relation, crate::ics::Relation::Playing(_))
                .then(|| (p.game, p.white.clone(), p.black.clone())),
            _ => None,
        };
        if let Some((number, white, black)) = ours {
            if !games.contains_key(&number) {
                if live(games).is_some() {
                    debug!(
                        game = number,
                        "a board of another game of ours while one is live: ignored"
                    );
                    return None;
                }
                let setup = self.game_setup(number, &white, &black, handle, true, kind, host);
                self.start_game(setup, unit, games);
            }
            if let Some(g) = games.get_mut(&number) {
                g.adapter.on_event(ev, at, w);
            }
            return None;
        }
        let live_number = live(games).map(|g| g.setup.game);
        match ev {
            ServerEvent::Style12(ref s) => {
                if let Some(seen) = super::observe::Seen::of_style12(s) {
                    self.st.observer.on_board(seen, w);
                    self.publish_observed();
                }
                hooks.event(&ev, w);
            }
            ServerEvent::Position(ref p) => {
                if let Some(seen) = super::observe::Seen::of_position(p) {
                    self.st.observer.on_board(seen, w);
                    self.publish_observed();
                }
                hooks.event(&ev, w);
            }
            ServerEvent::ObservationEnded { game } => {
                self.st.observer.end(game, "the server ended it");
                self.publish_observed();
            }
            ServerEvent::Tell {
                ref from,
                ref text,
                unregistered,
            } => {
                self.on_tell(from, text, unregistered, w, games);
                hooks.event(&ev, w);
            }
            ServerEvent::Creating { .. } => self.st.creating = Some(ev),
            ServerEvent::GameStart {
                game,
                ref white,
                ref black,
                continuing,
                ..
            } if white.eq_ignore_ascii_case(handle) || black.eq_ignore_ascii_case(handle) => {
                if games.contains_key(&game) {
                    return None;
                }
                // A game still live that the server replaced (it never told us its
                // end): its task ends, its record stays in progress.
                let stale: Vec<u32> = games
                    .iter()
                    .filter(|(_, g)| !g.adapter.ended)
                    .map(|(n, _)| *n)
                    .collect();
                for n in stale {
                    if let Some(g) = games.remove(&n) {
                        let _ = g.adapter.tx.send(GameInput::ConnectionLost);
                    }
                }
                let opponent = if white.eq_ignore_ascii_case(handle) {
                    black
                } else {
                    white
                };
                let resumed = self.st.resuming.remove(&opponent.to_ascii_lowercase());
                let setup = self.game_setup(
                    game,
                    white,
                    black,
                    handle,
                    continuing || resumed,
                    kind,
                    host,
                );
                self.start_game(setup, unit, games);
            }
            ServerEvent::GameEnd(ref e) if games.contains_key(&e.game) => {
                let number = e.game;
                let g = games.get_mut(&number).expect("checked");
                if !g.adapter.ended && g.adapter.on_event(ev, at, w) {
                    self.after_result(number, w, games);
                }
            }
            ServerEvent::GameEnd(ref e) => {
                self.st.observer.end(e.game, &e.reason);
                self.publish_observed();
            }
            ServerEvent::GameMoves(ref ml) => {
                let target = match ml.game.or(live_number) {
                    Some(n) => games.get_mut(&n),
                    None => None,
                };
                match target {
                    Some(g) => {
                        g.adapter.on_event(ev, at, w);
                    }
                    None => hooks.event(&ev, w),
                }
            }
            ServerEvent::IllegalMove { .. }
            | ServerEvent::NotYourMove
            | ServerEvent::DrawOffer { .. }
            | ServerEvent::AbortRequest { .. }
            | ServerEvent::AdjournRequest { .. }
            | ServerEvent::TakebackRequest { .. }
            | ServerEvent::FlagRefused
            | ServerEvent::OfferDeclined { .. } => {
                match live_number.and_then(|n| games.get_mut(&n)) {
                    Some(g) => {
                        g.adapter.on_event(ev, at, w);
                    }
                    None => hooks.event(&ev, w),
                }
            }
            ServerEvent::Challenge(c) => self.on_challenge(c, w),
            ServerEvent::AdjournedOpponentOnline { names } => {
                for n in names {
                    if self.st.noplay.contains(&n) {
                        continue;
                    }
                    if self.st.left.contains(&n.to_ascii_lowercase()) {
                        info!(opponent = %n, "not resuming the game we left: they never made a first move");
                        continue;
                    }
                    if live(games).is_none() && !self.st.draining {
                        info!(opponent = %n, "resuming our adjourned game");
                        self.st.resuming.insert(n.to_ascii_lowercase());
                        w.send(&ServerCommand::Match(n));
                    } else if !self.st.resume.contains(&n) {
                        self.st.resume.push(n);
                    }
                }
            }
            ServerEvent::AutoLogout => warn!("the server announces an idle logout"),
            ServerEvent::Shutdown { in_secs } => warn!(?in_secs, "the server is shutting down"),
            ServerEvent::Kicked => {
                for (_, g) in games.drain() {
                    let _ = g.adapter.tx.send(GameInput::ConnectionLost);
                }
                return Some(SessionEnd::Kicked);
            }
            ServerEvent::NoSuchVariable { ref name } => {
                debug!("the server lacks the setting {name}")
            }
            ServerEvent::CommandNotFound { ref command } => {
                // Noticed once per command: the writer stops using it where it has
                // another way (`xwhisper` -> `whisper`); anything else is logged.
                let word = command.trim().to_ascii_lowercase();
                if crate::ics::command::valid_word(&word) && w.note_missing(&word) {
                    warn!(
                        "the server does not know the command '{word}' (Command not found.); {}",
                        if word.starts_with('x') {
                            "talk falls back to the plain command"
                        } else {
                            "not used again where there is another way"
                        }
                    );
                }
                hooks.event(&ev, w);
            }
            ServerEvent::Unknown(ref l) => {
                debug!("unhandled: {l}");
                hooks.event(&ev, w);
            }
            ev => hooks.event(&ev, w),
        }
        None
    }

    /// Our game `number` has its result: its slot is free at once (a rematch
    /// offered now is judged on a free slot), we seek again and resume what waits.
    fn after_result(&mut self, number: u32, w: &Writer, games: &Games) {
        self.st.slots.end(&number.to_string());
        if self.st.draining {
            return;
        }
        if live(games).is_none() {
            self.seek_all(w);
            for name in std::mem::take(&mut self.st.resume) {
                self.st.resuming.insert(name.to_ascii_lowercase());
                w.send(&ServerCommand::Match(name));
            }
        }
    }

    fn on_challenge(&mut self, c: Challenge, w: &Writer) {
        if c.computer {
            self.st.computers.insert(c.challenger.to_ascii_lowercase());
        }
        let in_a_row = self.st.opponents.in_a_row(&c.challenger);
        let now = Instant::now();
        let busy = !self.st.slots.free(now);
        let judged = if self.st.draining {
            Err(Refusal::ShuttingDown)
        } else if self.ctx.frame.engines.down().is_some() {
            Err(Refusal::EngineDown)
        } else {
            let seen = Seen {
                in_a_row,
                today: self.ctx.frame.status.games_today(&c.challenger),
                busy,
            };
            self.st.formula.judge(&request(&c), &self.st.noplay, seen)
        };
        let verdict = match judged {
            Ok(()) => Verdict::Accept,
            Err(r) => Verdict::Decline(r.text()),
        };
        let verdict = self.ctx.hooks.challenge(&c, verdict);
        info!(challenger = %c.challenger, %verdict, "challenge: {}", c.line.trim());
        match &verdict {
            Verdict::Accept => {
                self.st.slots.accept(&c.challenger, now);
                w.send(&ServerCommand::Accept(Some(c.challenger.clone())))
            }
            Verdict::Decline(why) => {
                w.send(&ServerCommand::Decline(Some(c.challenger.clone())));
                if self.st.opts.bool("bot.polite") {
                    w.send(&ServerCommand::Tell(
                        c.challenger.clone(),
                        format!("Sorry, {why}."),
                    ));
                }
            }
        }
        self.emit(BotEvent::Challenge {
            challenger: c.challenger,
            verdict,
        });
    }
}
