//! Searches and moves: the engine thinking, pondering and analysing, the lines it
//! prints (through `format`), its moves, move-now, and the user's moves.

use super::*;

impl Con<'_> {
    // ----- searches and moves -----------------------------------------------------

    pub(super) fn printer(&self) -> EventSink {
        let out = Arc::clone(&self.s.out);
        let printer = Mutex::new(Printer::new(
            self.s.game.board().clone(),
            Display::from_options(&self.s.options),
        ));
        Arc::new(move |e: &SearchEvent| {
            let lines = printer.lock().unwrap_or_else(|e| e.into_inner()).event(e);
            emit_all(&out, &lines);
        })
    }

    pub(super) fn bump(&self) {
        self.st.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The engine searches for its move in the current position.
    pub(super) fn think(&mut self) {
        self.st.search_only = None;
        if !self.st.said_no_book {
            self.st.said_no_book = true;
            if self.s.game.book_mut().is_none() {
                self.emit("no opening book (set bookpath, or `book create <pgn> <maxply>`): playing from move 1");
            }
        }
        if let Some(r) = self.s.game.result() {
            let r = r.to_string();
            self.emit(&format!("game over: {r}"));
            return;
        }
        self.bump();
        let sink = self.printer();
        self.s.game.think(sink);
    }

    pub(super) fn analyse(&mut self) {
        self.st.search_only = None;
        self.bump();
        let sink = self.printer();
        self.s.game.analyse(sink, false);
    }

    /// A search has ended (the loop was woken).
    pub(super) fn finished(&mut self) {
        if let Some(f) = self.s.game.take_finished() {
            let thinking = f.state == EngineState::Thinking;
            self.handle_finished(f);
            self.sync();
            if thinking && self.s.game.state() != EngineState::Thinking {
                self.prompt();
            }
        }
    }

    pub(super) fn handle_finished(&mut self, f: Finished) {
        if let Some(mv) = self.st.search_only.take() {
            self.search_done(mv, &f.result);
            return;
        }
        if f.state != EngineState::Thinking || self.st.analyze {
            return;
        }
        self.play_finished(f);
    }

    pub(super) fn search_done(&mut self, mv: Move, r: &SearchResult) {
        let b = self.s.game.board();
        let white = match b.side_to_move() {
            Color::White => r.score,
            Color::Black => -r.score,
        };
        let pv = crate::format::legal_prefix(b, &r.pv);
        let line = format!(
            "search {}: {} (depth {}) {}",
            if b.is_legal(mv) {
                b.san(mv)
            } else {
                mv.to_string()
            },
            crate::format::score(white),
            r.depth,
            crate::format::pv(b, pv, true)
        );
        self.emit(line.trim_end());
    }

    /// Shows what the book had to say (moves considered, learning, files).
    pub(super) fn book_notes(&mut self) {
        let mut notes = std::mem::take(&mut self.s.book_notes);
        if let Some(b) = self.s.game.book_mut() {
            notes.extend(b.take_notes());
        }
        self.emit_all(&notes);
    }

    pub(super) fn play_finished(&mut self, f: Finished) {
        let side = self.s.game.side_to_move();
        let number = u32::from(self.s.game.move_number());
        if let Some(e) = &f.result.error {
            self.emit(&format!("search error: {e}"));
        }
        self.book_notes();
        let action = self.s.game.engine_move(&f.result);
        self.book_notes();
        match action {
            EngineAction::Move {
                san, offer_draw, ..
            } => {
                let san = if self.st.ansi {
                    format!("\x1b[1m{san}\x1b[0m")
                } else {
                    san
                };
                let bell = if self.s.options.bool("alarm") {
                    "\x07"
                } else {
                    ""
                };
                self.emit(&format!("{}({number}): {san}{bell}", side.name()));
                if self.s.options.bool("display.time") {
                    let c = self.s.game.clocks();
                    self.emit(&format!(
                        "clock: White {}  Black {}",
                        crate::format::time(c.left(Color::White)),
                        crate::format::time(c.left(Color::Black))
                    ));
                }
                self.st.engine_offered_draw = offer_draw;
                if offer_draw {
                    self.emit("kibitzer offers a draw (`draw` accepts)");
                }
                if let Some(r) = self.s.game.result() {
                    let r = r.to_string();
                    self.emit(&r);
                } else if self.s.game.ponder_enabled() {
                    self.bump();
                    self.s.game.start_pondering(Arc::new(|_: &SearchEvent| {}));
                }
            }
            EngineAction::Resign => {
                let r = self.s.game.result().map(|r| r.to_string());
                self.emit(&format!("{} resigns", side.name()));
                if let Some(r) = r {
                    self.emit(&r);
                }
            }
            EngineAction::None => {
                if let Some(r) = self.s.game.result() {
                    let r = r.to_string();
                    self.emit(&r);
                }
            }
        }
    }

    pub(super) fn user_move(&mut self, text: &str) {
        let number = u32::from(self.s.game.move_number());
        let text = match strip_move_number(text, number, self.s.game.side_to_move()) {
            Ok(t) => t,
            Err(e) => {
                self.emit(&format!("'{text}': {e}"));
                return;
            }
        };
        let mv = match self.s.game.parse_move(text) {
            Ok(m) => m,
            Err(e) => {
                let shown = crate::protocol::uci::echo(text);
                let why = if shown.len() < text.len() {
                    String::new()
                } else {
                    format!(" ({e})")
                };
                self.emit(&format!(
                    "'{shown}': not a command, and not a move here{why}; `help` lists the commands"
                ));
                return;
            }
        };
        if self.s.game.state() == EngineState::Thinking {
            self.emit("the engine is thinking on its move (`?` makes it move now)");
            return;
        }
        if self.s.game.result().is_some() && !self.st.analyze {
            self.emit("the game is over (`new` starts another)");
            return;
        }
        let side = self.s.game.side_to_move();
        if self.s.options.bool("flag")
            && !self.st.analyze
            && !self.st.force
            && self.s.options.duration("st").is_zero()
            && self.s.game.clocks().left(side).is_zero()
        {
            self.s.game.set_result(
                Outcome::win_for(!side),
                &format!("{} forfeits on time", side.name()),
            );
            let r = self
                .s
                .game
                .result()
                .map(|r| r.to_string())
                .unwrap_or_default();
            self.emit(&format!("kibitzer claims a win on time: {r}"));
            return;
        }
        self.st.engine_offered_draw = false;
        match self.s.game.opponent_move(mv) {
            Ok(PonderOutcome::Hit) => {}
            Ok(_) => {
                if self.st.analyze {
                    self.analyse();
                    return;
                }
                if let Some(r) = self.s.game.result() {
                    let r = r.to_string();
                    self.emit(&r);
                    self.book_notes();
                    return;
                }
                if self.st.force {
                    return;
                }
                // The engine answers for the other side.
                let side = self.s.game.side_to_move();
                self.s.game.set_engine_side(Some(side));
                self.think();
            }
            Err(e) => self.emit(&e.to_string()),
        }
    }

    /// After every command: the known line of moves and the game file.
    pub(super) fn sync(&mut self) {
        let start = self.s.game.start_position().to_fen();
        let played: Vec<Move> = self.s.game.moves().iter().map(|m| m.mv).collect();
        if start != self.st.line_start || !self.st.line.starts_with(&played) {
            self.st.line_start = start;
            self.st.line = played;
        }
        self.write_game_file();
    }

    pub(super) fn restart_analysis(&mut self) {
        if self.st.analyze {
            self.analyse();
        }
    }
}

/// A move typed with its number in front, as people write them (`1. e4`, `12... Bd7`,
/// `1.e4`): the move without the number, or why the number does not fit (another move
/// number, or `12.` for Black's move). Text without a number is returned as it is.
pub(super) fn strip_move_number(text: &str, number: u32, side: Color) -> Result<&str, String> {
    let t = text.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let dots = t[digits..].bytes().take_while(|&b| b == b'.').count();
    if digits == 0 || dots == 0 {
        return Ok(text);
    }
    let rest = t[digits + dots..].trim_start();
    // `12. ... Bd7` as the PV lines print Black's moves.
    let (rest, dots) = match rest.strip_prefix("...") {
        Some(r) => (r.trim_start(), dots + 3),
        None => (rest, dots),
    };
    if rest.is_empty() {
        return Err("a move number without a move".into());
    }
    let given: u32 = t[..digits].parse().unwrap_or(0);
    let black = dots >= 3;
    let here = match side {
        Color::White => format!("{number}."),
        Color::Black => format!("{number}..."),
    };
    if given != number || black != (side == Color::Black) {
        return Err(format!("the move here is {here} ({} to move)", side.name()));
    }
    Ok(rest)
}
