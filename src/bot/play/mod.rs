//! One task per game, whatever the server: it hears the game through its port
//! (`port::GameEvent`: positions with every move and both clocks in ms, offers,
//! refusals, the end), drives the game controller on the brain thread, and answers
//! with `port::GameCommand`s (our move, offers and answers, talk, resignation,
//! aborts, draw claims). It knows no server and no wire format: the account's
//! adapter does. The server's positions are the truth: our move list follows them,
//! a move that does not fit is never guessed (the task asks for the position again),
//! and our move is re-checked against the position before it goes out. Our own
//! timing is monotonic (`Instant`); the move overhead adapts to what the server
//! really charges. If the engine does not answer in time the task sends a legal move
//! itself and starts a fresh engine.

use super::brain::{Brain, BrainCmd, BrainEvent, Fault};
use super::talk::{Channel as TalkChannel, Levels, Talk, Thought, Venue};
use crate::chess::{Board, Color, Move};
use crate::game::{Opponent, OpponentClass};
use crate::options::{Options, Source};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{debug, error, info, warn};

mod engine_events;
mod game_events;
pub mod port;
mod record;
use port::{Channel, End, GameCommand, GameEvent, GameInput, Offer, PortTx, Position};
pub use record::pgn_date;
use record::Recorder;

/// What starts a game task.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The game's number in the daemon (the server's on an ICS).
    pub game: u32,
    /// The account that plays it (`ics`, `lichess`): the label of its status
    /// entry, counters and metrics.
    pub account: String,
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
    /// A resumed (adjourned) game, or one picked up in progress.
    pub continuing: bool,
    /// The server has just created this game: a record still in progress for these
    /// players is of an earlier game the server dropped, and is retired. False for
    /// resumed games and for games picked up by id.
    pub fresh: bool,
    /// The server's name, for the record's `Event` tag.
    pub server: String,
    /// The record's `Site` tag: the server, or the game's own page.
    pub site: String,
    /// The server flags by itself.
    pub autoflag: bool,
    pub opts: Options,
    pub fault: Option<Fault>,
    /// The opponent's policy class (lists, computer titles).
    pub class: OpponentClass,
    /// The server showed the opponent as a computer.
    pub computer: bool,
    /// Where the game's state is published (the status page).
    pub status: super::status::StatusTx,
    /// Where an external engine reports its health (the daemon's board).
    pub engines: crate::external::HealthBoard,
    /// Takebacks the opponent may have in this game (0: none).
    pub max_takebacks: u32,
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
    /// Position received -> move sent, for each of our moves, ms, with whether the
    /// move came at once (book, tables, a single reply).
    pub reactions: Vec<(f64, bool)>,
    pub faults: u32,
    pub overhead_ms: u64,
    pub resyncs: u32,
}

/// How a game task ended.
pub struct GameOutcome {
    pub setup: GameSetup,
    /// The result; `None` when the account lost the server first.
    pub end: Option<End>,
    pub plies: usize,
    /// Moves the opponent made.
    pub opponent_moves: usize,
    /// We left the game (dropped the link) because the opponent never moved: it
    /// counts as an aborted game of theirs.
    pub left: bool,
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
    port: PortTx,
    brain: Option<Brain>,
    start: Board,
    moves: Vec<Move>,
    board: Board,
    last: Option<Box<Position>>,
    last_at: Instant,
    thinking: Option<Thinking>,
    pending: Option<Pending>,
    retried_ply: Option<usize>,
    last_info: Option<(usize, Vec<Move>)>,
    last_score: Option<i32>,
    /// What we thought of each of our moves (by ply), for the record.
    evals: Vec<Option<record::MoveEval>>,
    /// The evaluations of a resumed game's earlier moves, read back from its record
    /// in progress (by ply, with the move), until the position shows those moves.
    restored: Vec<(Move, Option<record::MoveEval>)>,
    clk: Vec<Option<i64>>,
    overhead: Overhead,
    draw_claimed: Option<usize>,
    flag_at: Option<Instant>,
    flags_sent: u32,
    first_move_deadline: Option<Instant>,
    /// Against an opponent who never makes a first move: the step taken and when
    /// the next is due (abort asked -> adjourn asked -> left -> resigned).
    stall: Option<(Stall, Instant)>,
    /// A takeback accepted on our turn: no move of ours until the server's
    /// shorter move list comes, or until this instant (it may never come: the
    /// opponent can withdraw the request before our answer reaches the server).
    takeback_hold: Option<Instant>,
    /// We left the game because the opponent never moved.
    left: bool,
    abort_sent: bool,
    /// Takebacks granted in this game.
    takebacks: u32,
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

/// The steps against an opponent who never makes a first move, each taken when the
/// one before has not ended the game within `bot.stall_step`: where abort needs the
/// opponent's agreement (lasker, ICC) the game would otherwise hold the bot until
/// they log out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stall {
    AbortAsked,
    AdjournAsked,
    Left,
}

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

impl Task {
    fn send(&self, c: GameCommand) {
        self.port.send(c);
    }

    fn ply(&self) -> usize {
        self.moves.len()
    }

    fn our_turn(&self) -> bool {
        self.board.side_to_move() == self.s.our_color
    }

    fn clock_ms(&self, side: Color) -> i64 {
        match &self.last {
            Some(p) => p.clock(side),
            None => self.s.initial_secs as i64 * 1000,
        }
    }

    /// Our time left now (the clock runs from the position's arrival).
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
        let ms = |side: Color| Duration::from_millis(self.clock_ms(side).max(0) as u64);
        b.send(BrainCmd::Position {
            start: Box::new(self.start.clone()),
            moves: self.moves.clone(),
            white: ms(Color::White),
            black: ms(Color::Black),
            overhead: self.overhead.current(),
            think,
        });
    }

    fn new_brain(&mut self) {
        if let Some(old) = self.brain.take() {
            old.abandon();
        }
        // A replacement engine has no injected fault: it struck once.
        let b = Brain::spawn(&self.s.opts, None, self.s.engines.clone());
        b.send(BrainCmd::NewGame {
            opts: Box::new(self.s.opts.clone()),
            side: self.s.our_color,
            opponent: self.opponent_info(),
            fault: None,
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

    /// Starts thinking if it is our move and we are not already (nor is our move
    /// for this position on its way: a position repeated before the server has our
    /// move, a refresh, must not make us move twice).
    fn maybe_think(&mut self, board_at: Instant) {
        if !self.our_turn() || !self.board.has_legal_move() {
            return;
        }
        if self.takeback_hold.is_some_and(|t| Instant::now() < t) {
            return;
        }
        if self.pending.as_ref().is_some_and(|p| p.ply == self.ply()) {
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

    /// The position states the game's time control. A resumed game may announce
    /// itself before its control is known, and a game picked up by its position has
    /// no announcement at all: the engine would have planned with the console's
    /// default. The position's control wins.
    fn adopt_time_control(&mut self, p: &Position) {
        let Some((initial, inc)) = p.control else {
            return;
        };
        if (initial, inc) == (0, 0) || (initial, inc) == (self.s.initial_secs, self.s.increment) {
            return;
        }
        info!(
            game = self.s.game,
            "time control from the position: {initial} s + {inc} s (the announcement gave {} s + {} s)",
            self.s.initial_secs,
            self.s.increment
        );
        self.s.initial_secs = initial;
        self.s.increment = inc;
        if set_game_level(&mut self.s.opts, initial as u64, inc as u64) {
            if let Some(b) = &self.brain {
                b.send(BrainCmd::Configure(Box::new(self.s.opts.clone())));
            }
        }
    }

    /// Asks the adapter for the whole position again.
    fn resync(&mut self, why: &str) {
        info!(game = self.s.game, "asking for the position again: {why}");
        self.stats.resyncs += 1;
        self.send(GameCommand::Resync);
    }

    fn on_position(&mut self, p: Box<Position>, at: Instant) {
        if p.moves != self.moves {
            self.takeback_hold = None;
        }
        if self.last.is_none() {
            self.adopt_time_control(&p);
        }
        let same_start = p.start.to_fen() == self.start.to_fen();
        let kept = if same_start {
            self.moves
                .iter()
                .zip(&p.moves)
                .take_while(|(a, b)| a == b)
                .count()
        } else {
            0
        };
        if same_start && kept == self.moves.len() {
            // The game went on (or nothing changed): the new moves, one by one.
            for i in kept..p.moves.len() {
                let m = p.moves[i];
                if !self.board.is_legal(m) {
                    error!(game = self.s.game, ply = i, %m, "the server's move does not fit our board");
                    self.last = Some(p);
                    self.last_at = at;
                    self.resync("a move that does not fit our board");
                    return;
                }
                let mover = self.board.side_to_move();
                self.board.make_move(m);
                self.moves.push(m);
                if mover != self.s.our_color {
                    self.first_move_deadline = None;
                    self.stall = None;
                } else if let Some(pend) = self.pending.take() {
                    if pend.ply == i {
                        self.our_move_echoed(pend, &p);
                    }
                }
                let clock = if i + 1 == p.moves.len() {
                    Some(p.clock(mover))
                } else {
                    p.clocks_after.get(i).copied().flatten()
                };
                if self.clk.len() <= i {
                    self.clk.resize(i + 1, None);
                }
                if clock.is_some() {
                    self.clk[i] = clock;
                }
            }
        } else {
            // A takeback, a resume, a correction: the server's list replaces ours.
            let board = p.board();
            info!(
                game = self.s.game,
                ours = self.moves.len(),
                theirs = p.moves.len(),
                kept,
                "the server's move list replaces ours"
            );
            self.start = p.start.clone();
            self.moves = p.moves.clone();
            self.board = board;
            self.clk.truncate(kept);
            self.evals.truncate(kept);
            if self
                .pending
                .as_ref()
                .is_some_and(|x| x.ply < self.moves.len())
            {
                self.pending = None;
            }
            self.thinking = None;
            // Clocks of the moves we did not see: as listed, else from the move
            // times, the initial time and the increment.
            self.clk.resize(self.moves.len(), None);
            for (i, c) in p.clocks_after.iter().enumerate().take(self.moves.len()) {
                if self.clk[i].is_none() {
                    self.clk[i] = *c;
                }
            }
            if let Some(last) = self.moves.len().checked_sub(1) {
                let mover = !self.board.side_to_move();
                self.clk[last] = Some(p.clock(mover));
            }
        }
        self.apply_restored();
        self.last = Some(p);
        self.last_at = at;
        self.publish_board();
        self.after_position(at);
    }

    /// A resumed game: our evaluations of the moves before the interruption, read
    /// from its record, for the plies where the server's moves are the recorded
    /// ones (once used, forgotten).
    fn apply_restored(&mut self) {
        if self.restored.is_empty() || self.moves.is_empty() {
            return;
        }
        if self.evals.len() < self.moves.len() {
            self.evals.resize(self.moves.len(), None);
        }
        for (i, (m, e)) in self.restored.iter().enumerate().take(self.moves.len()) {
            if *m != self.moves[i] {
                break;
            }
            if self.evals[i].is_none() {
                self.evals[i] = *e;
            }
        }
        self.restored.clear();
    }

    /// The board, clocks and last move for the status page.
    fn publish_board(&self) {
        let Some(p) = self.last.as_ref() else { return };
        let last_move = super::status::LastMove::of(&self.start, &self.moves);
        let fen = self.board.to_fen();
        let ply = self.ply();
        let (wms, bms) = (p.clock(Color::White), p.clock(Color::Black));
        let ticking = p.ticking && !self.moves.is_empty();
        let running =
            ticking.then(|| super::status::color_name(self.board.side_to_move()).to_string());
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

    fn our_move_echoed(&mut self, p: Pending, pos: &Position) {
        let our = self.s.our_color;
        let after = pos.clock(our);
        let charged = p.our_clock_before_ms - after + pos.increment_ms[our.index()];
        let measured = p.sent.duration_since(p.board_at).as_millis() as i64;
        self.overhead.sample(charged, measured, pos.coarse);
        self.stats.overhead_ms = self.overhead.current().as_millis() as u64;
        let overhead = self.stats.overhead_ms;
        let account = self.s.account.clone();
        self.s.status.update(|st| {
            if let Some(a) = st.account_mut(&account) {
                a.lag_ms = Some(charged - measured);
                a.overhead_ms = Some(overhead);
            }
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
        // Draw claims: the servers do not end these games by themselves.
        if !self.tournament
            && (self.board.is_threefold_repetition() || self.board.is_fifty_move_draw())
            && self.draw_claimed != Some(ply)
            && self.last_score.unwrap_or(0) <= self.s.opts.int("drawscore") as i32
        {
            info!(
                game = self.s.game,
                "claiming a draw (repetition or 50 moves)"
            );
            self.send(GameCommand::ClaimDraw);
            self.draw_claimed = Some(ply);
        }
        if self.our_turn() {
            self.flag_at = None;
            self.maybe_think(at);
        } else {
            self.brain_position(false);
            // The opponent's clock: flag when it runs out if the server does not.
            let left = self.clock_ms(!self.s.our_color);
            let ticking = self.last.as_ref().is_none_or(|p| p.ticking);
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
        let text = self.board.san(mv);
        let before = self.left_now_ms(self.s.our_color);
        self.send(GameCommand::Move(mv));
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

    /// Says the texts of options `to_opponent` and `to_spectators` (empty:
    /// nothing), with `{me}`, `{opponent}` and `{engine}` filled in.
    fn greet(&mut self, to_opponent: &str, to_spectators: &str) {
        let me = match self.s.our_color {
            Color::White => self.s.white.clone(),
            Color::Black => self.s.black.clone(),
        };
        let engine = crate::bot::talk::engine_name(&self.s.opts);
        for (key, channel) in [
            (to_opponent, Channel::Opponent),
            (to_spectators, Channel::Whisper),
        ] {
            let text =
                crate::bot::talk::fill(self.s.opts.str(key).trim(), &me, &self.s.opponent, &engine);
            if !text.is_empty() {
                self.s.status.game(self.s.game, |g| g.said(&text));
                self.send(GameCommand::Say(channel, text));
            }
        }
    }
}

async fn brain_recv(b: &mut Option<Brain>) -> Option<BrainEvent> {
    match b.as_mut() {
        Some(b) => b.events.recv().await,
        None => std::future::pending().await,
    }
}

/// Runs one game to its end (or until the account loses the game's server).
pub async fn run(
    setup: GameSetup,
    port: PortTx,
    brain: Option<Brain>,
    mut input: mpsc::UnboundedReceiver<GameInput>,
) -> GameOutcome {
    let opts = setup.opts.clone();
    let mut t = Task {
        port,
        brain,
        start: Board::startpos(),
        moves: Vec::new(),
        board: Board::startpos(),
        last: None,
        last_at: Instant::now(),
        thinking: None,
        pending: None,
        retried_ply: None,
        last_info: None,
        last_score: None,
        evals: Vec::new(),
        restored: Vec::new(),
        clk: Vec::new(),
        overhead: Overhead::new(
            Duration::from_millis(opts.int("bot.min_overhead") as u64),
            Duration::from_millis(opts.int("bot.max_overhead") as u64),
        ),
        draw_claimed: None,
        flag_at: None,
        flags_sent: 0,
        first_move_deadline: None,
        stall: None,
        takeback_hold: None,
        left: false,
        abort_sent: false,
        takebacks: 0,
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
            fault: t.s.fault,
        }),
        _ => {
            let fault = t.s.fault;
            let b = Brain::spawn(&opts, fault, t.s.engines.clone());
            b.send(BrainCmd::NewGame {
                opts: Box::new(opts.clone()),
                side: t.s.our_color,
                opponent: t.opponent_info(),
                fault: t.s.fault,
            });
            t.brain = Some(b);
        }
    }
    info!(game = t.s.game, account = %t.s.account, white = %t.s.white, black = %t.s.black, class = ?t.s.class, "game started");
    if !t.s.continuing && !t.tournament {
        t.greet("talk.greeting", "talk.greeting_spectators");
    }
    if t.s.fresh {
        // A new game: a record still in progress for these players is of a game the
        // server dropped; it is retired before this game's record can replace it.
        record::retire_stale_record(t.archive.clone(), &t.s).await;
    } else if t.s.continuing {
        t.restored = record::restore_evals(t.archive.clone(), &t.s).await;
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
                Some(GameInput::WaitForFirstMove(d)) => {
                    if let Some(at) = t.first_move_deadline.as_mut() {
                        *at = (*at).max(Instant::now() + d);
                        info!(game = t.s.game, secs = d.as_secs(), "the abort waits for the opponent's first move");
                    }
                }
                Some(GameInput::Drain { adjourn }) => {
                    t.draining = true;
                    if adjourn {
                        t.send(GameCommand::Adjourn);
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
    if end.is_some() && !t.tournament {
        t.greet("talk.farewell", "talk.farewell_spectators");
    }
    if let Some(r) = t.recorder.take() {
        r.finish().await;
    }
    // The record: final, or (adjourned, connection lost) in progress.
    let pgn = Some(match end.as_ref() {
        Some(e) => t.pgn(e),
        None => t.pgn(&End {
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
        left: t.left,
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
