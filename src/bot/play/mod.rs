//! One task per game: it bridges the server's events for that game, the game
//! controller on the brain thread, and the wire. The server's style-12 boards are
//! the truth; our move list is checked against them and rebuilt from `moves <game>`
//! whenever they disagree (and after `Illegal move.`, a resume or a restart), never
//! guessed. Our move is re-checked against the server's position before it is sent.
//! Clocks come from style 12; our own timing is monotonic (`Instant`); the move
//! overhead adapts to what the server really charges. If the engine does not answer
//! in time the task sends a legal move itself and starts a fresh engine.

use super::brain::{Brain, BrainCmd, BrainEvent, Fault};
use super::talk::{Channel, Levels, Talk, Thought, Venue};
use crate::chess::{Board, Color, Move};
use crate::game::{Opponent, OpponentClass};
use crate::ics::{
    move_text, ClockUnit, GameEnd, GameMoves, ServerCommand, ServerEvent, Style12, Writer,
};
use crate::options::{Options, Source};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{debug, error, info, warn};

mod engine_events;
mod record;
pub use record::pgn_date;
use record::Recorder;

/// What starts a game task.
#[derive(Clone, Debug)]
pub struct GameSetup {
    pub game: u32,
    pub white: String,
    pub black: String,
    pub our_color: Color,
    pub opponent: String,
    pub white_rating: Option<i32>,
    pub black_rating: Option<i32>,
    pub rated: bool,
    pub kind: String,
    /// Initial time in seconds (a Lichess game may start with half a minute).
    pub initial_secs: u32,
    pub increment: u32,
    /// A resumed (adjourned) game.
    pub continuing: bool,
    /// The ICS server has just created this game (its `Creating` line): a record
    /// still in progress for these players is of an earlier game the server dropped,
    /// and is retired. False for resumed games and Lichess's (picked up by id).
    pub fresh: bool,
    pub server: String,
    pub clock_unit: Option<ClockUnit>,
    /// The server flags by itself.
    pub autoflag: bool,
    pub opts: Options,
    pub fault: Option<Fault>,
    /// The opponent's policy class (lists, `(C)` titles).
    pub class: OpponentClass,
    /// The server showed the opponent's computer title.
    pub computer: bool,
    /// Where the game's state is published (the status page).
    pub status: super::status::StatusTx,
    /// Say no to a draw offer the policy does not accept (Lichess shows an offer
    /// until it is answered; on an ICS it lapses with the next move).
    pub decline_draws: bool,
}

/// Input to a game task from the supervisor.
#[derive(Debug)]
pub enum GameInput {
    Event(ServerEvent, Instant),
    /// The first SIGTERM: finish (or ask to adjourn, when configured).
    Drain {
        adjourn: bool,
    },
    /// The connection is gone.
    ConnectionLost,
    /// New options (an owner's `kibitz 3`, `mode tournament`, `operator 10`).
    Options(Box<Options>),
}

/// Figures a game leaves behind for the measurements.
#[derive(Clone, Debug, Default)]
pub struct GameStats {
    /// Moves we sent that the server refused.
    pub illegal_replies: u32,
    /// Engine moves caught by our own legality re-check.
    pub illegal_caught: u32,
    /// Smallest clock we kept after one of our moves, in ms.
    pub min_reserve_ms: Option<i64>,
    /// Board received -> move sent, for each of our moves, ms, with whether the move
    /// came at once (book, tables, a single reply).
    pub reactions: Vec<(f64, bool)>,
    pub faults: u32,
    pub overhead_ms: u64,
    pub resyncs: u32,
}

/// How a game task ended.
pub struct GameOutcome {
    pub setup: GameSetup,
    /// `1-0`, `0-1`, `1/2-1/2`, `*`; `None` when the connection went first.
    pub end: Option<GameEnd>,
    pub plies: usize,
    /// Moves the opponent made.
    pub opponent_moves: usize,
    pub pgn: Option<String>,
    pub log: Vec<String>,
    pub stats: GameStats,
    /// The engine, to reuse (absent when it had to be abandoned).
    pub brain: Option<Brain>,
}

struct Thinking {
    ply: usize,
    board_at: Instant,
    deadline: Instant,
    stop_sent: bool,
}

struct Pending {
    ply: usize,
    board_at: Instant,
    sent: Instant,
    our_clock_before_ms: i64,
}

/// Adapts the move overhead from what the server charges beyond our own thinking.
#[derive(Clone, Debug)]
pub struct Overhead {
    pub min: Duration,
    pub max: Duration,
    estimate_ms: f64,
}

impl Overhead {
    pub fn new(min: Duration, max: Duration) -> Overhead {
        Overhead {
            min,
            max,
            estimate_ms: min.as_millis() as f64,
        }
    }

    /// A sample: the server charged `charged_ms` for a move we measured at
    /// `measured_ms`; `coarse`: the clocks are whole seconds (noisy samples).
    pub fn sample(&mut self, charged_ms: i64, measured_ms: i64, coarse: bool) {
        let excess = (charged_ms - measured_ms).clamp(0, self.max.as_millis() as i64) as f64;
        let alpha = if coarse { 0.1 } else { 0.3 };
        // Rise fast, fall slowly: running out of time is worse than thinking less.
        let a = if excess > self.estimate_ms {
            alpha * 2.0
        } else {
            alpha / 2.0
        };
        self.estimate_ms += a * (excess - self.estimate_ms);
    }

    pub fn current(&self) -> Duration {
        Duration::from_millis((self.estimate_ms * 1.25) as u64 + 20).clamp(self.min, self.max)
    }
}

struct Task {
    s: GameSetup,
    writer: Writer,
    brain: Option<Brain>,
    start: Board,
    moves: Vec<Move>,
    board: Board,
    last: Option<Box<Style12>>,
    last_at: Instant,
    unit: ClockUnit,
    awaiting_moves: Option<Instant>,
    thinking: Option<Thinking>,
    pending: Option<Pending>,
    retried_ply: Option<usize>,
    last_info: Option<(usize, Vec<Move>)>,
    last_score: Option<i32>,
    evals: Vec<Option<(i32, i32)>>,
    clk: Vec<Option<i64>>,
    overhead: Overhead,
    draw_claimed: Option<usize>,
    flag_at: Option<Instant>,
    flags_sent: u32,
    first_move_deadline: Option<Instant>,
    abort_sent: bool,
    draining: bool,
    log: Vec<String>,
    stats: GameStats,
    max_faults: u32,
    abort_plies: usize,
    polite: bool,
    talk: Talk,
    tournament: bool,
    archive: super::archive::Archive,
    saved_ply: Option<usize>,
    recorder: Option<Recorder>,
}

const FAR: Duration = Duration::from_secs(86_400);

/// Sets `level` in `opts` to a game's own time control (sudden death, or with an
/// increment), so the engine reasons with the server's clock rules and not with the
/// console's default. Returns false, and leaves `level` as it was, when the control
/// is unknown (neither time nor increment).
pub fn set_game_level(opts: &mut Options, initial_secs: u64, increment_secs: u64) -> bool {
    if initial_secs == 0 && increment_secs == 0 {
        return false;
    }
    let level = format!(
        "0 {}:{:02} {increment_secs}",
        initial_secs / 60,
        initial_secs % 60
    );
    opts.set_from(Source::Runtime, "level", &level).is_ok()
}

fn placement_side_equal(b: &Board, s: &Style12) -> bool {
    let fen = b.to_fen();
    let mut it = fen.split(' ');
    let placement = it.next().unwrap_or("");
    let side = it.next().unwrap_or("");
    placement == s.placement()
        && side
            == if s.side_to_move == Color::White {
                "w"
            } else {
                "b"
            }
}

/// The move from `b` that reaches the style-12 position, if exactly one does.
pub fn find_move(b: &Board, s: &Style12) -> Option<Move> {
    let mut found = None;
    for &m in b.legal_moves().iter() {
        let mut c = b.clone();
        c.make_move(m);
        if placement_side_equal(&c, s) {
            if found.is_some() {
                return None;
            }
            found = Some(m);
        }
    }
    found
}

impl Task {
    fn send(&self, c: ServerCommand) {
        self.writer.send(&c);
    }

    fn ply(&self) -> usize {
        self.moves.len()
    }

    fn our_turn(&self) -> bool {
        self.board.side_to_move() == self.s.our_color
    }

    fn clock_ms(&self, side: Color) -> i64 {
        match &self.last {
            Some(s) => self.unit.millis(s.clock(side)),
            None => self.s.initial_secs as i64 * 1000,
        }
    }

    /// Our time left now (the clock runs from the board's arrival).
    fn left_now_ms(&self, side: Color) -> i64 {
        let base = self.clock_ms(side);
        if self.board.side_to_move() == side {
            base - self.last_at.elapsed().as_millis() as i64
        } else {
            base
        }
    }

    fn brain_position(&mut self, think: bool) {
        let Some(b) = &self.brain else { return };
        let w = self
            .unit
            .duration(self.last.as_ref().map_or(0, |s| s.white_clock));
        let bl = self
            .unit
            .duration(self.last.as_ref().map_or(0, |s| s.black_clock));
        b.send(BrainCmd::Position {
            start: Box::new(self.start.clone()),
            moves: self.moves.clone(),
            white: w,
            black: bl,
            overhead: self.overhead.current(),
            think,
        });
    }

    fn new_brain(&mut self) {
        if let Some(old) = self.brain.take() {
            old.abandon();
        }
        let b = Brain::spawn(&self.s.opts, None);
        b.send(BrainCmd::NewGame {
            opts: Box::new(self.s.opts.clone()),
            side: self.s.our_color,
            opponent: self.opponent_info(),
        });
        self.brain = Some(b);
    }

    fn opponent_info(&self) -> Opponent {
        let (rating, own) = match self.s.our_color {
            Color::White => (self.s.black_rating, self.s.white_rating),
            Color::Black => (self.s.white_rating, self.s.black_rating),
        };
        Opponent {
            name: self.s.opponent.clone(),
            rating,
            own_rating: own,
            computer: self.s.computer || self.s.class == OpponentClass::Computer,
            server: self.s.server.clone(),
            class: self.s.class,
        }
    }

    /// Starts thinking if it is our move and we are not already.
    fn maybe_think(&mut self, board_at: Instant) {
        if !self.our_turn() || !self.board.has_legal_move() || self.awaiting_moves.is_some() {
            return;
        }
        if self.thinking.as_ref().is_some_and(|t| t.ply == self.ply()) {
            return;
        }
        let left = self.left_now_ms(self.s.our_color).max(0);
        let soft = left * 45 / 100 + 300;
        let cap = (left - 700).max(left / 2);
        let budget = soft.min(cap).max(30) as u64;
        self.thinking = Some(Thinking {
            ply: self.ply(),
            board_at,
            deadline: Instant::now() + Duration::from_millis(budget),
            stop_sent: false,
        });
        self.brain_position(true);
    }

    /// The board states the game's time control. A resumed game announces itself
    /// (`{Game 1 (..) Continuing ..}`) before its `Creating:` line, and a game seen
    /// first by its board has no announcement at all: the game then started with an
    /// unknown control, and the engine would have planned with the console's default
    /// (an increment this game does not have). The board's control wins.
    fn adopt_board_time_control(&mut self, s: &Style12) {
        let (m, i) = (s.initial_minutes, s.increment_secs);
        if (m, i) == (0, 0) || (m * 60, i) == (self.s.initial_secs, self.s.increment) {
            return;
        }
        info!(
            game = self.s.game,
            "time control from the board: {m} {i} (the announcement gave {} s + {} s)",
            self.s.initial_secs,
            self.s.increment
        );
        self.s.initial_secs = m * 60;
        self.s.increment = i;
        if set_game_level(&mut self.s.opts, self.s.initial_secs as u64, i as u64) {
            if let Some(b) = &self.brain {
                b.send(BrainCmd::Configure(Box::new(self.s.opts.clone())));
            }
        }
    }

    fn request_moves(&mut self, why: &str) {
        if self.awaiting_moves.is_none() {
            info!(game = self.s.game, "re-synchronising from `moves`: {why}");
            self.stats.resyncs += 1;
            self.send(ServerCommand::Moves(self.s.game));
            self.awaiting_moves = Some(Instant::now());
        }
    }

    fn on_board(&mut self, s: Box<Style12>, at: Instant) {
        if self.last.is_none() {
            self.adopt_board_time_control(&s);
        }
        if self.last.is_none() && self.s.clock_unit.is_none() {
            self.unit = crate::ics::server::guess_clock_unit(
                s.initial_minutes,
                s.white_clock,
                s.black_clock,
            );
        }
        let mut known = placement_side_equal(&self.board, &s)
            && self.ply() as u32 == s.ply().saturating_sub(self.start_ply());
        if !known {
            if let Some(m) = find_move(&self.board, &s) {
                self.board.make_move(m);
                self.moves.push(m);
                known = true;
                if self.board.side_to_move() == self.s.our_color {
                    // The opponent moved.
                    self.first_move_deadline = None;
                } else if let Some(p) = self.pending.take() {
                    self.our_move_echoed(p, &s);
                }
            }
        }
        // The clock of the side that just moved, for %clk.
        let mover = !s.side_to_move;
        if !self.moves.is_empty() {
            let idx = self.moves.len() - 1;
            if self.clk.len() <= idx {
                self.clk.resize(idx + 1, None);
            }
            self.clk[idx] = Some(self.unit.millis(s.clock(mover)));
        }
        self.last = Some(s);
        self.last_at = at;
        self.publish_board();
        if !known {
            self.request_moves("the server's board is not the one our move list gives");
            return;
        }
        self.after_position(at);
    }

    /// The board, clocks and last move for the status page.
    fn publish_board(&self) {
        let Some(s) = self.last.as_ref() else { return };
        let last_move = super::status::LastMove::of(&self.start, &self.moves);
        let fen = self.board.to_fen();
        let ply = self.ply();
        let (wms, bms) = (
            self.unit.millis(s.white_clock),
            self.unit.millis(s.black_clock),
        );
        let ticking = s.ticking.unwrap_or(true) && !self.moves.is_empty();
        let running = ticking.then(|| super::status::color_name(s.side_to_move).to_string());
        let board_unix_ms =
            super::status::unix_ms().saturating_sub(self.last_at.elapsed().as_millis() as u64);
        self.s.status.game(self.s.game, |g| {
            g.fen = fen;
            g.ply = ply;
            g.last_move = last_move;
            g.white_ms = wms;
            g.black_ms = bms;
            g.running = running;
            g.board_unix_ms = board_unix_ms;
        });
    }

    fn start_ply(&self) -> u32 {
        let b = &self.start;
        2 * (b.fullmove_number() as u32).saturating_sub(1)
            + (b.side_to_move() == Color::Black) as u32
    }

    fn our_move_echoed(&mut self, p: Pending, s: &Style12) {
        let after = self.unit.millis(s.clock(self.s.our_color));
        let charged = p.our_clock_before_ms - after + s.increment_secs as i64 * 1000;
        let measured = p.sent.duration_since(p.board_at).as_millis() as i64;
        self.overhead
            .sample(charged, measured, self.unit == ClockUnit::Seconds);
        self.stats.overhead_ms = self.overhead.current().as_millis() as u64;
        let overhead = self.stats.overhead_ms;
        self.s.status.update(|st| {
            st.link.lag_ms = Some(charged - measured);
            st.link.overhead_ms = Some(overhead);
        });
        self.stats.min_reserve_ms = Some(self.stats.min_reserve_ms.map_or(after, |m| m.min(after)));
        debug!(
            game = self.s.game,
            ply = p.ply,
            charged,
            measured,
            "move charged"
        );
    }

    fn after_position(&mut self, at: Instant) {
        self.save_in_progress();
        let ply = self.ply();
        if self.thinking.as_ref().is_some_and(|t| t.ply != ply) {
            self.thinking = None;
        }
        // Draw claims: the server does not end these games by itself.
        if !self.tournament
            && (self.board.is_threefold_repetition() || self.board.is_fifty_move_draw())
            && self.draw_claimed != Some(ply)
            && self.last_score.unwrap_or(0) <= self.s.opts.int("drawscore") as i32
        {
            info!(
                game = self.s.game,
                "claiming a draw (repetition or 50 moves)"
            );
            self.send(ServerCommand::Draw);
            self.draw_claimed = Some(ply);
        }
        if self.our_turn() {
            self.flag_at = None;
            self.maybe_think(at);
        } else {
            self.brain_position(false);
            // The opponent's clock: flag when it runs out if the server does not.
            let opp = !self.s.our_color;
            let left = self.clock_ms(opp);
            let ticking = self.last.as_ref().and_then(|s| s.ticking).unwrap_or(true);
            if !self.s.autoflag && ticking {
                self.flag_at = Some(at + Duration::from_millis(left.max(0) as u64 + 300));
            }
            if self.first_move_deadline.is_none()
                && !self.opponent_has_moved()
                && !self.abort_sent
                && !self.tournament
            {
                self.first_move_deadline =
                    Some(at + self.s.opts.duration("bot.first_move_timeout"));
            }
        }
    }

    fn opponent_has_moved(&self) -> bool {
        let start_side = self.start.side_to_move();
        let opp = !self.s.our_color;
        let n = self.moves.len();
        if start_side == opp {
            n >= 1
        } else {
            n >= 2
        }
    }

    fn on_movelist(&mut self, ml: GameMoves, at: Instant) {
        if self.awaiting_moves.take().is_none() {
            return;
        }
        let mut b = Board::startpos();
        let mut list = Vec::new();
        let mut ok = true;
        for san in &ml.moves {
            match b.parse_move(san) {
                Ok(m) => {
                    b.make_move(m);
                    list.push(m);
                }
                Err(e) => {
                    warn!(game = self.s.game, "move list: cannot read '{san}': {e}");
                    ok = false;
                    break;
                }
            }
        }
        let Some(s) = self.last.clone() else { return };
        if ok && !placement_side_equal(&b, &s) {
            if let Some(m) = find_move(&b, &s) {
                b.make_move(m);
                list.push(m);
            } else {
                ok = false;
            }
        }
        if ok {
            // Clocks for the plies we did not see (a resumed game): from the listed
            // move times, the initial time and the increment.
            let mut clock = [self.s.initial_secs as i64 * 1000; 2];
            let inc = self.s.increment as i64 * 1000;
            for (i, t) in ml.times.iter().enumerate().take(list.len()) {
                let side = i % 2;
                clock[side] = clock[side] - t.unwrap_or(0) + inc;
                if self.clk.len() <= i {
                    self.clk.resize(i + 1, None);
                }
                if self.clk[i].is_none() && t.is_some() {
                    self.clk[i] = Some(clock[side].max(0));
                }
            }
            self.start = Board::startpos();
            self.moves = list;
            self.board = b;
        } else if let Some(board) = s.board() {
            error!(game = self.s.game, "move list does not reach the server's board; playing on from the board alone (repetitions before it are unknown)");
            self.start = board.clone();
            self.moves.clear();
            self.board = board;
        }
        if self
            .pending
            .as_ref()
            .is_some_and(|p| p.ply < self.moves.len())
        {
            self.pending = None;
        }
        self.thinking = None;
        self.after_position(at);
    }

    fn fallback_move(&self) -> Option<Move> {
        if let Some((ply, pv)) = &self.last_info {
            if *ply == self.ply() {
                if let Some(&m) = pv.first() {
                    if self.board.is_legal(m) {
                        return Some(m);
                    }
                }
            }
        }
        let moves = self.board.legal_moves();
        moves.iter().copied().max_by_key(|&m| self.board.see(m))
    }

    fn play(&mut self, mv: Move, board_at: Instant, instant: bool) {
        let text = move_text(&self.board, mv);
        let before = self.left_now_ms(self.s.our_color);
        self.send(ServerCommand::Move(text.clone()));
        let now = Instant::now();
        let ms = now.duration_since(board_at).as_secs_f64() * 1000.0;
        self.stats.reactions.push((ms, instant));
        self.s.status.update(|st| {
            st.counters.moves_sent += 1;
            st.counters.time_left.observe(before.max(0) as f64 / 1000.0);
        });
        self.pending = Some(Pending {
            ply: self.ply(),
            board_at,
            sent: now,
            our_clock_before_ms: self.clock_ms(self.s.our_color),
        });
        debug!(game = self.s.game, mv = %text, ms, left = before, "sent move");
        self.thinking = None;
    }

    fn next_timer(&self) -> Instant {
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
        if let Some(a) = self.awaiting_moves {
            t = t.min(a + Duration::from_secs(3));
        }
        t
    }

    fn on_timer(&mut self) {
        let now = Instant::now();
        if self.thinking.as_ref().is_some_and(|t| now >= t.deadline) {
            self.on_deadline();
        }
        if self.flag_at.is_some_and(|f| now >= f) {
            if !self.our_turn() && self.flags_sent < 20 {
                debug!(game = self.s.game, "opponent's time is up: flag");
                self.send(ServerCommand::Flag);
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
                self.send(ServerCommand::Abort);
                self.abort_sent = true;
            }
        }
        if let Some(a) = self.awaiting_moves {
            if now >= a + Duration::from_secs(3) {
                // No move list came: play on from the board alone rather than lose on time.
                self.awaiting_moves = None;
                if let Some(s) = self.last.clone() {
                    if let Some(board) = s.board() {
                        error!(
                            game = self.s.game,
                            "no move list from the server; playing on from its board"
                        );
                        self.start = board.clone();
                        self.moves.clear();
                        self.board = board;
                        self.thinking = None;
                        self.after_position(self.last_at);
                    }
                }
            }
        }
    }

    fn on_event(&mut self, ev: ServerEvent, at: Instant) -> Option<GameEnd> {
        match ev {
            ServerEvent::Style12(s) if s.game == self.s.game => self.on_board(s, at),
            ServerEvent::GameMoves(ml) => self.on_movelist(ml, at),
            ServerEvent::GameEnd(e) if e.game == self.s.game => return Some(e),
            ServerEvent::IllegalMove { text } if self.pending.is_some() => {
                self.pending = None;
                self.stats.illegal_replies += 1;
                self.s
                    .status
                    .update(|st| st.counters.illegal_move_replies += 1);
                error!(game = self.s.game, "the server refused our move: {text}");
                self.send(ServerCommand::Refresh);
                self.request_moves("our move was refused");
            }
            ServerEvent::NotYourMove if self.pending.is_some() => {
                self.pending = None;
                warn!(game = self.s.game, "the server says it is not our move");
                self.send(ServerCommand::Refresh);
                self.request_moves("not our move");
            }
            ServerEvent::DrawOffer { from } if from.eq_ignore_ascii_case(&self.s.opponent) => {
                if let Some(b) = &self.brain {
                    b.send(BrainCmd::DrawOffered);
                }
            }
            ServerEvent::AbortRequest { from } if from.eq_ignore_ascii_case(&self.s.opponent) => {
                if self.ply() < self.abort_plies || self.stats.faults > 0 {
                    info!(game = self.s.game, "accepting the abort request");
                    self.send(ServerCommand::Abort);
                } else {
                    debug!(
                        game = self.s.game,
                        "abort request declined (game under way)"
                    );
                }
            }
            ServerEvent::AdjournRequest { from } if from.eq_ignore_ascii_case(&self.s.opponent) => {
                if self.draining && self.s.opts.bool("bot.adjourn_on_shutdown") {
                    self.send(ServerCommand::Adjourn);
                } else {
                    self.send(ServerCommand::Decline(Some(from.clone())));
                    if self.polite {
                        self.send(ServerCommand::Tell(
                            from,
                            "Sorry, I play my games to the end.".into(),
                        ));
                    }
                }
            }
            ServerEvent::TakebackRequest { from, .. }
                if from.eq_ignore_ascii_case(&self.s.opponent) =>
            {
                self.send(ServerCommand::Decline(Some(from.clone())));
                if self.polite {
                    self.send(ServerCommand::Tell(from, "Sorry, no takebacks.".into()));
                }
            }
            ServerEvent::FlagRefused => {
                self.flag_at = self
                    .flag_at
                    .map(|_| Instant::now() + Duration::from_millis(500));
            }
            _ => {}
        }
        None
    }
}

async fn brain_recv(b: &mut Option<Brain>) -> Option<BrainEvent> {
    match b.as_mut() {
        Some(b) => b.events.recv().await,
        None => std::future::pending().await,
    }
}

/// Runs one game to its end (or until the connection goes).
pub async fn run(
    setup: GameSetup,
    writer: Writer,
    brain: Option<Brain>,
    mut input: mpsc::UnboundedReceiver<GameInput>,
) -> GameOutcome {
    let opts = setup.opts.clone();
    let mut t = Task {
        unit: setup.clock_unit.unwrap_or(ClockUnit::Seconds),
        writer,
        brain,
        start: Board::startpos(),
        moves: Vec::new(),
        board: Board::startpos(),
        last: None,
        last_at: Instant::now(),
        awaiting_moves: None,
        thinking: None,
        pending: None,
        retried_ply: None,
        last_info: None,
        last_score: None,
        evals: Vec::new(),
        clk: Vec::new(),
        overhead: Overhead::new(
            Duration::from_millis(opts.int("bot.min_overhead") as u64),
            Duration::from_millis(opts.int("bot.max_overhead") as u64),
        ),
        draw_claimed: None,
        flag_at: None,
        flags_sent: 0,
        first_move_deadline: None,
        abort_sent: false,
        draining: false,
        log: Vec::new(),
        stats: GameStats::default(),
        max_faults: opts.int("bot.max_faults") as u32,
        abort_plies: opts.int("bot.abort_plies") as usize,
        polite: opts.bool("bot.polite"),
        talk: Talk::from_options(&opts, Levels::from_options(&opts), Venue::Own),
        tournament: opts.text("mode") == "tournament",
        archive: super::archive::Archive::from_options(&opts),
        saved_ply: None,
        recorder: None,
        s: setup,
    };
    match &t.brain {
        Some(b) if b.is_alive() => b.send(BrainCmd::NewGame {
            opts: Box::new(opts.clone()),
            side: t.s.our_color,
            opponent: t.opponent_info(),
        }),
        _ => {
            let fault = t.s.fault;
            let b = Brain::spawn(&opts, fault);
            b.send(BrainCmd::NewGame {
                opts: Box::new(opts.clone()),
                side: t.s.our_color,
                opponent: t.opponent_info(),
            });
            t.brain = Some(b);
        }
    }
    info!(game = t.s.game, white = %t.s.white, black = %t.s.black, class = ?t.s.class, "game started");
    let greeting = opts.str("talk.greeting").trim().to_string();
    if !greeting.is_empty() && !t.s.continuing && !t.tournament {
        t.send(ServerCommand::Say(greeting));
    }
    if t.s.fresh {
        // A new game: a record still in progress for these players is of a game the
        // server dropped; it is retired before this game's record can replace it.
        record::retire_stale_record(t.archive.clone(), &t.s).await;
    }
    let end = loop {
        let wake = tokio::time::Instant::from_std(t.next_timer());
        tokio::select! {
            inp = input.recv() => match inp {
                None | Some(GameInput::ConnectionLost) => break None,
                Some(GameInput::Options(mut o)) => {
                    // The daemon's options carry the console's `level`; this game
                    // keeps its own.
                    set_game_level(&mut o, t.s.initial_secs as u64, t.s.increment as u64);
                    t.talk.levels = Levels::from_options(&o);
                    t.tournament = o.text("mode") == "tournament";
                    if let Some(b) = &t.brain {
                        b.send(BrainCmd::Configure(o.clone()));
                    }
                    t.s.opts = *o;
                }
                Some(GameInput::Drain { adjourn }) => {
                    t.draining = true;
                    if adjourn {
                        t.send(ServerCommand::Adjourn);
                    }
                }
                Some(GameInput::Event(ev, at)) => {
                    if let Some(end) = t.on_event(ev, at) {
                        break Some(end);
                    }
                }
            },
            ev = brain_recv(&mut t.brain) => match ev {
                Some(ev) => t.on_brain(ev),
                None => {
                    t.on_brain(BrainEvent::Died("the engine thread ended".into()));
                }
            },
            _ = tokio::time::sleep_until(wake) => t.on_timer(),
        }
    };
    if let Some(b) = &t.brain {
        // Every way a game ends leaves the engine idle: no search, no pondering.
        b.send(BrainCmd::GameOver);
        if let Some(e) = end.as_ref().filter(|e| e.result != "*") {
            b.send(BrainCmd::Result {
                result: e.result.clone(),
                reason: e.reason.clone(),
            });
        }
    }
    if end.is_some() {
        let farewell = t.s.opts.str("talk.farewell").trim().to_string();
        if !farewell.is_empty() && !t.tournament {
            t.send(ServerCommand::Say(farewell));
        }
    }
    if let Some(r) = t.recorder.take() {
        r.finish().await;
    }
    // The record: final, or (adjourned, connection lost) in progress.
    let pgn = Some(match end.as_ref() {
        Some(e) => t.pgn(e),
        None => t.pgn(&GameEnd {
            game: t.s.game,
            white: t.s.white.clone(),
            black: t.s.black.clone(),
            reason: "connection lost".into(),
            result: "*".into(),
        }),
    });
    if let Some(e) = &end {
        info!(game = t.s.game, result = %e.result, reason = %e.reason, plies = t.moves.len(), "game over");
    }
    let opponent_moves = t.moves.len() / 2
        + (t.moves.len() % 2 == 1 && t.start.side_to_move() != t.s.our_color) as usize;
    GameOutcome {
        end,
        plies: t.moves.len(),
        opponent_moves,
        pgn,
        log: std::mem::take(&mut t.log),
        stats: std::mem::take(&mut t.stats),
        brain: t.brain.take(),
        setup: t.s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_level_is_the_games_own_control_or_left_alone() {
        let mut o = Options::new();
        let default = o.level();
        // Unknown (a resumed game before its Creating: line): nothing changes.
        assert!(!set_game_level(&mut o, 0, 0));
        assert_eq!(o.level(), default);
        // A half-minute game is not "0 minutes".
        assert!(set_game_level(&mut o, 30, 0));
        let tc = o.level();
        assert_eq!(
            (tc.moves, tc.base, tc.inc),
            (0, Duration::from_secs(30), Duration::ZERO)
        );
        // A 0 12 game: no base time, an increment.
        assert!(set_game_level(&mut o, 0, 12));
        let tc = o.level();
        assert_eq!(
            (tc.moves, tc.base, tc.inc),
            (0, Duration::ZERO, Duration::from_secs(12))
        );
        assert!(set_game_level(&mut o, 150, 2));
        assert_eq!(o.level().base, Duration::from_secs(150));
    }
}
