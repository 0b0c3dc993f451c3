//! One connected session of the daemon: the event loop that reads the server's
//! lines and tells, starts and finishes games, answers challenges and owners, and
//! decides when the session ends (our shutdown, a lost connection, a kick by the server).

use super::*;

impl Daemon {
    pub(super) async fn session(
        &mut self,
        mut conn: Connection,
        cfg: &ConnectConfig,
        st: &mut State,
    ) -> SessionEnd {
        conn.setup(cfg);
        let w = conn.writer.clone();
        let handle = conn.handle.clone();
        let kind = cfg.kind;
        let mut slot: Option<Slot> = None;
        // The login banner (opponents with adjourned games) first: resuming a game
        // comes before seeking a new one.
        for (ev, at) in std::mem::take(&mut conn.early) {
            if let Some(end) = self.on_event(ev, at, &w, &handle, kind, &cfg.host, st, &mut slot) {
                return end;
            }
        }
        st.observer.guest = owner::is_guest(&handle);
        st.observer.start(&w);
        self.seek_all(&w, st);
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        let mut keepalive_sent: Option<Instant> = None;
        let mut watchdog_last = Instant::now();
        let watchdog = sd_notify::watchdog_enabled().map(|d| d / 2);
        loop {
            tokio::select! {
                inc = conn.events.recv() => {
                    let (ev, at) = match inc {
                        None => return self.lost(&mut slot, "the reader ended".into()),
                        Some(Incoming::Closed(why)) => return self.lost(&mut slot, why),
                        Some(Incoming::Event(ev, at)) => (ev, at),
                    };
                    if let Some(end) = self.on_event(ev, at, &w, &handle, kind, &cfg.host, st, &mut slot) {
                        return end;
                    }
                }
                m = self.control_rx.recv() => match m {
                    Some(ControlMsg::Shutdown) if !st.draining => {
                        info!("shutting down: no new games; the game in progress is played out (signal again to quit at once)");
                        notify(&[sd_notify::NotifyState::Stopping]);
                        st.draining = true;
                        self.status.update(|s| s.link.draining = true);
                        w.send(&ServerCommand::Unseek);
                        match &slot {
                            Some(s) => {
                                let _ = s.tx.send(GameInput::Drain { adjourn: st.opts.bool("bot.adjourn_on_shutdown") });
                            }
                            None => {
                                w.send(&ServerCommand::Quit);
                                return SessionEnd::Quit;
                            }
                        }
                    }
                    Some(ControlMsg::Reload) => {
                        self.reload_settings(st, slot.is_some());
                        if slot.is_none() {
                            self.seek_all(&w, st);
                        }
                    }
                    _ => {
                        info!("quitting at once");
                        w.send(&ServerCommand::Quit);
                        if let Some(s) = slot.take() {
                            s.handle.abort();
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        return SessionEnd::Quit;
                    }
                },
                a = st.observer.recv() => {
                    if let Some(a) = a {
                        st.observer.on_analysis(a, &w);
                        self.publish_observed(st);
                    }
                }
                res = join_game(&mut slot) => {
                    let s = slot.take().expect("a game was running");
                    match res {
                        Ok(out) => {
                            let lost = out.end.is_none();
                            self.finish_game(out, &w, st).await;
                            if lost {
                                continue;
                            }
                            if st.draining {
                                info!("game over; quitting as asked");
                                w.send(&ServerCommand::Quit);
                                tokio::time::sleep(Duration::from_millis(100)).await;
                                return SessionEnd::Quit;
                            }
                            self.seek_all(&w, st);
                            for name in std::mem::take(&mut st.resume) {
                                w.send(&ServerCommand::Match(name));
                            }
                        }
                        Err(e) => {
                            error!(game = s.game, "the game task failed: {e}");
                            self.emit(BotEvent::GamePanicked { game: s.game });
                            let n = st.panics.entry(s.game).or_insert(0);
                            *n += 1;
                            if *n >= st.opts.int("bot.max_faults") as u32 {
                                w.send(&ServerCommand::Resign);
                            } else {
                                w.send(&ServerCommand::Abort);
                            }
                            // Play on (if the game goes on) from a fresh task that re-synchronises.
                            let mut setup = s.setup.clone();
                            setup.continuing = true;
                            setup.fresh = false;
                            let mut ns = self.start_game(setup, &w, st);
                            ns.game = s.game;
                            slot = Some(ns);
                            w.send(&ServerCommand::Refresh);
                        }
                    }
                }
                _ = tick.tick() => {
                    let now = Instant::now();
                    st.observer.tick(now, &w);
                    let keepalive = st.opts.duration("ics.keepalive");
                    if now.duration_since(w.last_sent()) >= keepalive && keepalive > Duration::ZERO {
                        debug!("keepalive");
                        w.send(&ServerCommand::Operator(
                            st.opts.str("ics.keepalive_command").to_string(),
                        ));
                        keepalive_sent = Some(now);
                    }
                    let mut healthy = true;
                    if let Some(k) = keepalive_sent {
                        if conn.last_input() > k {
                            keepalive_sent = None;
                        } else {
                            healthy = false;
                            if now.duration_since(k) >= st.opts.duration("ics.dead_link") {
                                return self.lost(&mut slot, "no answer to the keepalive (dead link)".into());
                            }
                        }
                    }
                    let up = healthy && w.is_open();
                    self.status.update_if(|s| {
                        let changed = s.link.healthy != up;
                        s.link.healthy = up;
                        changed
                    });
                    if let Some(period) = watchdog {
                        if healthy && w.is_open() && now.duration_since(watchdog_last) >= period {
                            notify(&[sd_notify::NotifyState::Watchdog]);
                            watchdog_last = now;
                        }
                    }
                }
            }
        }
    }

    /// A tell: an owner's command, or a polite refusal (once per handle per ten
    /// minutes, so nobody can make the bot spam).
    fn on_tell(
        &self,
        from: &str,
        text: &str,
        unregistered: bool,
        w: &Writer,
        st: &mut State,
        slot: &mut Option<Slot>,
    ) {
        let reply = |t: String| w.send(&ServerCommand::Tell(from.to_string(), t));
        self.status.update(|s| s.counters.tells_received += 1);
        let Some(level) = st.owners.level(from, unregistered) else {
            self.status.update(|s| s.counters.tells_refused += 1);
            let key = from.to_ascii_lowercase();
            let now = Instant::now();
            if st
                .refused
                .get(&key)
                .is_some_and(|t| now.duration_since(*t) < Duration::from_secs(600))
            {
                return;
            }
            st.refused.insert(key, now);
            if st.refused.len() > 10_000 {
                st.refused.clear();
            }
            info!(from, unregistered, "tell from a non-owner: {text}");
            reply(if unregistered || owner::is_guest(from) {
                "Sorry, I take commands only from my registered owners.".into()
            } else {
                "Sorry, I take commands only from my owners.".into()
            });
            return;
        };
        let cmd = match OwnerCommand::parse(text) {
            Ok(c) => c,
            Err(e) => return reply(format!("Sorry, {e}.")),
        };
        if cmd.needs() > level {
            self.status.update(|s| s.counters.tells_refused += 1);
            info!(from, %level, ?cmd, "owner command refused: needs {}", cmd.needs());
            return reply(format!(
                "Sorry, that needs the {} level, you are {level}.",
                cmd.needs()
            ));
        }
        info!(from, %level, ?cmd, "owner command");
        let set = |st: &mut State, name: &str, value: &str| -> Result<(), String> {
            st.opts
                .set_from(Source::Runtime, name, value)
                .map_err(|e| e.to_string())?;
            st.observer.configure(&st.opts);
            if let Some(s) = slot.as_ref() {
                let mut o = s.setup.opts.clone();
                let _ = o.set_from(Source::Runtime, name, value);
                let _ = s.tx.send(GameInput::Options(Box::new(o)));
            }
            Ok(())
        };
        let in_game = slot.is_some();
        let answer: String = match cmd {
            OwnerCommand::Help => owner::HELP.to_string(),
            OwnerCommand::Status => {
                let game = match slot.as_ref() {
                    Some(s) => format!(
                        "playing game {} against {} ({:?})",
                        s.game, s.setup.opponent, s.setup.class
                    ),
                    None => "not playing".into(),
                };
                format!(
                    "{game}, observing {:?}, whisper {} kibitz {} noise {}, mode {}, operator {} min{}",
                    st.observer.watching(),
                    st.opts.int("whisper"),
                    st.opts.int("kibitz"),
                    st.opts.int("noise"),
                    st.opts.text("mode"),
                    st.opts.int("operator"),
                    if st.draining { ", shutting down" } else { "" }
                )
            }
            OwnerCommand::List { args, .. } => match st.lists.command(&args) {
                Ok(r) => r,
                Err(e) => format!("Sorry, {e}."),
            },
            OwnerCommand::Seek => {
                if in_game {
                    "I seek again after this game.".into()
                } else if tournament(&st.opts) {
                    "No seeking in tournament mode.".into()
                } else {
                    self.seek_all(w, st);
                    "Seeking.".into()
                }
            }
            OwnerCommand::Unseek => {
                w.send(&ServerCommand::Unseek);
                "Seeks removed.".into()
            }
            OwnerCommand::Whisper(n) => match set(st, "whisper", &n.to_string()) {
                Ok(()) => format!("whisper {n}"),
                Err(e) => e,
            },
            OwnerCommand::Kibitz(n) => match set(st, "kibitz", &n.to_string()) {
                Ok(()) => format!("kibitz {n}"),
                Err(e) => e,
            },
            OwnerCommand::Noise(n) => match set(st, "noise", &n.to_string()) {
                Ok(()) => format!("noise {n}"),
                Err(e) => e,
            },
            OwnerCommand::Mode(m) => match set(st, "mode", &m) {
                Ok(()) => {
                    if m == "tournament" {
                        w.send(&ServerCommand::Unseek);
                    }
                    format!("mode {m}")
                }
                Err(e) => e,
            },
            OwnerCommand::Operator(m) => match set(st, "operator", &m.to_string()) {
                Ok(()) => format!("operator {m} minutes"),
                Err(e) => e,
            },
            OwnerCommand::Observe(what) => match Target::parse(&what) {
                Ok(t) => {
                    st.observer.add(t, w);
                    format!("observing {what}")
                }
                Err(e) => format!("Sorry, {e}."),
            },
            OwnerCommand::Unobserve(t) => match Target::parse(&t) {
                Ok(t) => {
                    st.observer.remove(&t, w);
                    "done".into()
                }
                Err(e) => format!("Sorry, {e}."),
            },
            OwnerCommand::Resign | OwnerCommand::Abort | OwnerCommand::Draw => {
                if !in_game {
                    "I am not playing.".into()
                } else {
                    let (c, what) = match cmd {
                        OwnerCommand::Resign => (ServerCommand::Resign, "resigned"),
                        OwnerCommand::Abort => (ServerCommand::Abort, "abort asked"),
                        _ => (ServerCommand::Draw, "draw offered"),
                    };
                    w.send(&c);
                    what.into()
                }
            }
            OwnerCommand::SoftQuit => {
                let _ = self.control_tx.send(ControlMsg::Shutdown);
                if in_game {
                    "Quitting after this game.".into()
                } else {
                    "Quitting.".into()
                }
            }
        };
        reply(answer);
    }

    fn lost(&self, slot: &mut Option<Slot>, why: String) -> SessionEnd {
        if let Some(s) = slot.take() {
            info!(
                game = s.game,
                opponent = %s.setup.opponent,
                "game cut off with the connection: its record stays in progress until the game is resumed or a new game with this opponent starts"
            );
            let _ = s.tx.send(GameInput::ConnectionLost);
            // The task ends on its own; its engine is dropped with it.
        }
        SessionEnd::Lost(why)
    }

    #[allow(clippy::too_many_arguments)]
    fn on_event(
        &self,
        ev: ServerEvent,
        at: Instant,
        w: &Writer,
        handle: &str,
        kind: ServerKind,
        host: &str,
        st: &mut State,
        slot: &mut Option<Slot>,
    ) -> Option<SessionEnd> {
        let forward = |slot: &Option<Slot>, ev: ServerEvent| {
            if let Some(s) = slot {
                let _ = s.tx.send(GameInput::Event(ev, at));
            }
        };
        match ev {
            ServerEvent::Style12(ref s) if s.our_color(handle).is_some() => {
                if slot.as_ref().is_some_and(|sl| sl.game == s.game) {
                    forward(slot, ev);
                } else if slot.is_none() {
                    // A game we did not see start (resumed after a restart).
                    let setup = self.game_setup(
                        st,
                        s.game,
                        &s.white.clone(),
                        &s.black.clone(),
                        handle,
                        true,
                        kind,
                        host,
                    );
                    *slot = Some(self.start_game(setup, w, st));
                    forward(slot, ev);
                }
            }
            ServerEvent::Style12(ref s) => {
                st.observer.on_board(s, w);
                self.publish_observed(st);
                self.hooks.event(&ev, w);
            }
            ServerEvent::ObservationEnded { game } => {
                st.observer.end(game, "the server ended it");
                self.publish_observed(st);
            }
            ServerEvent::Tell {
                ref from,
                ref text,
                unregistered,
            } => {
                self.on_tell(from, text, unregistered, w, st, slot);
                self.hooks.event(&ev, w);
            }
            ServerEvent::Creating { .. } => st.creating = Some(ev),
            ServerEvent::GameStart {
                game,
                ref white,
                ref black,
                continuing,
                ..
            } if white.eq_ignore_ascii_case(handle) || black.eq_ignore_ascii_case(handle) => {
                if slot.as_ref().is_some_and(|s| s.game == game) {
                    return None;
                }
                if let Some(old) = slot.take() {
                    let _ = old.tx.send(GameInput::ConnectionLost);
                }
                let setup = self.game_setup(st, game, white, black, handle, continuing, kind, host);
                *slot = Some(self.start_game(setup, w, st));
            }
            ServerEvent::GameEnd(ref e) => {
                if slot.as_ref().is_some_and(|s| s.game == e.game) {
                    forward(slot, ev);
                } else {
                    st.observer.end(e.game, &e.reason);
                    self.publish_observed(st);
                }
            }
            ServerEvent::GameMoves(_)
            | ServerEvent::IllegalMove { .. }
            | ServerEvent::NotYourMove
            | ServerEvent::DrawOffer { .. }
            | ServerEvent::AbortRequest { .. }
            | ServerEvent::AdjournRequest { .. }
            | ServerEvent::TakebackRequest { .. }
            | ServerEvent::FlagRefused
            | ServerEvent::OfferDeclined { .. } => {
                if slot.is_some() {
                    forward(slot, ev);
                } else {
                    self.hooks.event(&ev, w);
                }
            }
            ServerEvent::Challenge(c) => {
                if c.computer {
                    st.computers.insert(c.challenger.to_ascii_lowercase());
                }
                let in_a_row = if st.streak.0.eq_ignore_ascii_case(&c.challenger) {
                    st.streak.1
                } else {
                    0
                };
                let mut verdict = st.formula.judge(&c, &st.noplay, in_a_row, slot.is_some());
                if st.draining {
                    verdict = Verdict::Decline("I am shutting down".into());
                }
                let verdict = self.hooks.challenge(&c, verdict);
                info!(challenger = %c.challenger, ?verdict, "challenge: {}", c.line.trim());
                match &verdict {
                    Verdict::Accept => w.send(&ServerCommand::Accept(Some(c.challenger.clone()))),
                    Verdict::Decline(why) => {
                        w.send(&ServerCommand::Decline(Some(c.challenger.clone())));
                        if st.opts.bool("bot.polite") {
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
            ServerEvent::AdjournedOpponentOnline { names } => {
                for n in names {
                    if st.noplay.contains(&n) {
                        continue;
                    }
                    if slot.is_none() && !st.draining {
                        info!(opponent = %n, "resuming our adjourned game");
                        w.send(&ServerCommand::Match(n));
                    } else if !st.resume.contains(&n) {
                        st.resume.push(n);
                    }
                }
            }
            ServerEvent::AutoLogout => warn!("the server announces an idle logout"),
            ServerEvent::Shutdown { in_secs } => warn!(?in_secs, "the server is shutting down"),
            ServerEvent::Kicked => {
                if let Some(s) = slot.take() {
                    let _ = s.tx.send(GameInput::ConnectionLost);
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
                self.hooks.event(&ev, w);
            }
            ServerEvent::Unknown(ref l) => {
                debug!("unhandled: {l}");
                self.hooks.event(&ev, w);
            }
            ev => self.hooks.event(&ev, w),
        }
        None
    }
}
