//! The ICS adapter of one game: the server's messages about it become port events,
//! the game task's port commands become `ServerCommand`s.
//!
//! FICS and lasker send boards (style 12), not moves: the adapter keeps the game's
//! move list and checks each board against it: the same position, or one legal move
//! further (found by trying every legal move). A board that fits neither (a
//! takeback, a resume, a board we missed) is not guessed: the adapter asks the
//! server for the move list (`moves <game>`) and gives the task the position once
//! the listing reaches the board; without a listing within three seconds it plays
//! on from the board alone. ICC sends moves and clocks (`GamePosition`), which go to
//! the task as they are. Clocks reach the task in milliseconds.

use super::super::play::port::{Channel, End, GameCommand, GameEvent, GameInput, Offer, Position};
use crate::chess::{Board, Color, Move};
use crate::ics::{
    move_text, ClockUnit, GameEnd, GameMoves, GamePosition, ServerCommand, ServerEvent, Style12,
    Writer,
};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{error, info, warn};

/// How long to wait for a `moves` listing before playing on from the board.
const MOVES_WAIT: Duration = Duration::from_secs(3);

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

/// One game of ours on an ICS, between the server and its task.
pub struct IcsGame {
    pub number: u32,
    opponent: String,
    /// The clock unit of the server's boards (from its profile, else guessed from
    /// the first board).
    unit: Option<ClockUnit>,
    start: Board,
    moves: Vec<Move>,
    board: Board,
    /// The mover's clock after each move, where a listing gave it.
    clocks_after: Vec<Option<i64>>,
    last: Option<Box<Style12>>,
    last_at: Instant,
    /// A `moves` listing asked for, and when.
    awaiting_moves: Option<Instant>,
    /// To the task.
    pub tx: mpsc::UnboundedSender<GameInput>,
    /// The result was forwarded: the game's slot is free.
    pub ended: bool,
}

impl IcsGame {
    pub fn new(
        number: u32,
        opponent: &str,
        unit: Option<ClockUnit>,
        tx: mpsc::UnboundedSender<GameInput>,
    ) -> IcsGame {
        IcsGame {
            number,
            opponent: opponent.to_string(),
            unit,
            start: Board::startpos(),
            moves: Vec::new(),
            board: Board::startpos(),
            clocks_after: Vec::new(),
            last: None,
            last_at: Instant::now(),
            awaiting_moves: None,
            tx,
            ended: false,
        }
    }

    fn to_task(&self, ev: GameEvent, at: Instant) {
        let _ = self.tx.send(GameInput::Event(ev, at));
    }

    fn position_of(&self, s: &Style12) -> Position {
        let unit = self.unit.unwrap_or(ClockUnit::Seconds);
        let inc = s.increment_secs as i64 * 1000;
        Position {
            start: self.start.clone(),
            moves: self.moves.clone(),
            clock_ms: [unit.millis(s.white_clock), unit.millis(s.black_clock)],
            ticking: s.ticking.unwrap_or(true),
            increment_ms: [inc, inc],
            coarse: unit == ClockUnit::Seconds,
            clocks_after: self.clocks_after.clone(),
            control: Some((s.initial_minutes * 60, s.increment_secs)),
        }
    }

    fn send_position(&self, s: &Style12, at: Instant) {
        self.to_task(GameEvent::Position(Box::new(self.position_of(s))), at);
    }

    fn request_moves(&mut self, w: &Writer, why: &str) {
        if self.awaiting_moves.is_none() {
            info!(game = self.number, "re-synchronising from `moves`: {why}");
            w.send(&ServerCommand::Moves(self.number));
            self.awaiting_moves = Some(Instant::now());
        }
    }

    /// A style-12 board of this game.
    fn on_board(&mut self, s: Box<Style12>, at: Instant, w: &Writer) {
        if self.unit.is_none() {
            self.unit = Some(crate::ics::server::guess_clock_unit(
                s.initial_minutes,
                s.white_clock,
                s.black_clock,
            ));
        }
        let start_ply = 2 * (self.start.fullmove_number() as u32).saturating_sub(1)
            + (self.start.side_to_move() == Color::Black) as u32;
        let mut known = placement_side_equal(&self.board, &s)
            && self.moves.len() as u32 == s.ply().saturating_sub(start_ply);
        if !known {
            if let Some(m) = find_move(&self.board, &s) {
                self.board.make_move(m);
                self.moves.push(m);
                known = true;
            }
        }
        self.last = Some(s);
        self.last_at = at;
        if !known {
            self.request_moves(w, "the server's board is not the one our move list gives");
            return;
        }
        if let Some(s) = &self.last {
            self.send_position(s, at);
        }
    }

    /// The `moves` listing we asked for.
    fn on_moves(&mut self, ml: GameMoves, at: Instant) {
        if self.awaiting_moves.take().is_none() {
            return;
        }
        let Some(s) = self.last.clone() else { return };
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
                    warn!(game = self.number, "move list: cannot read '{san}': {e}");
                    ok = false;
                    break;
                }
            }
        }
        if ok && !placement_side_equal(&b, &s) {
            match find_move(&b, &s) {
                Some(m) => {
                    b.make_move(m);
                    list.push(m);
                }
                None => ok = false,
            }
        }
        if ok {
            // The mover's clock after each listed move, from the move times, the
            // initial time and the increment.
            let mut clock = [s.initial_minutes as i64 * 60_000; 2];
            let inc = s.increment_secs as i64 * 1000;
            self.clocks_after = ml
                .times
                .iter()
                .take(list.len())
                .enumerate()
                .map(|(i, t)| {
                    let side = i % 2;
                    clock[side] = clock[side] - t.unwrap_or(0) + inc;
                    t.map(|_| clock[side].max(0))
                })
                .collect();
            self.start = Board::startpos();
            self.moves = list;
            self.board = b;
        } else {
            self.restart_from_board(&s, "the move list does not reach the server's board");
        }
        self.send_position(&s, at);
    }

    fn restart_from_board(&mut self, s: &Style12, why: &str) {
        if let Some(board) = s.board() {
            error!(
                game = self.number,
                "{why}; playing on from the board alone (repetitions before it are unknown)"
            );
            self.start = board.clone();
            self.moves.clear();
            self.clocks_after.clear();
            self.board = board;
        }
    }

    /// An ICC position of this game.
    fn on_position(&mut self, p: &GamePosition, at: Instant) {
        let (Some(start), Some(board)) = (p.start(), p.board()) else {
            error!(
                game = self.number,
                "an ICC position that cannot be replayed: ignored"
            );
            return;
        };
        // The mover's clock after each move, from the move times.
        let mut clock = [p.initial_minutes as i64 * 60_000; 2];
        let inc = p.increment_secs as i64 * 1000;
        let first = start.side_to_move().index();
        self.clocks_after = p
            .times_ms
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let side = (first + i) % 2;
                clock[side] = clock[side] - t.unwrap_or(0) + inc;
                t.map(|_| clock[side].max(0))
            })
            .collect();
        self.start = start;
        self.moves = p.moves.clone();
        self.board = board;
        self.awaiting_moves = None;
        let position = Position {
            start: self.start.clone(),
            moves: self.moves.clone(),
            clock_ms: p.clock_ms,
            ticking: p.running,
            increment_ms: [inc, inc],
            coarse: false,
            clocks_after: self.clocks_after.clone(),
            control: Some((p.initial_minutes * 60, p.increment_secs)),
        };
        self.to_task(GameEvent::Position(Box::new(position)), at);
    }

    /// A server event about this game (the account routes them here); returns true
    /// when it was this game's end.
    pub fn on_event(&mut self, ev: ServerEvent, at: Instant, w: &Writer) -> bool {
        let from_them = |from: &str| from.eq_ignore_ascii_case(&self.opponent);
        match ev {
            ServerEvent::Style12(s) => self.on_board(s, at, w),
            ServerEvent::Position(p) => self.on_position(&p, at),
            ServerEvent::GameMoves(ml) => self.on_moves(ml, at),
            ServerEvent::GameEnd(GameEnd { result, reason, .. }) => {
                self.ended = true;
                self.to_task(GameEvent::End(End { result, reason }), at);
                return true;
            }
            ServerEvent::IllegalMove { text } => self.to_task(GameEvent::MoveRefused(text), at),
            ServerEvent::NotYourMove => {
                self.to_task(GameEvent::MoveRefused("not your move".into()), at)
            }
            ServerEvent::DrawOffer { from } if from_them(&from) => {
                self.to_task(GameEvent::Offer(Offer::Draw), at)
            }
            ServerEvent::AbortRequest { from } if from_them(&from) => {
                self.to_task(GameEvent::Offer(Offer::Abort), at)
            }
            ServerEvent::AdjournRequest { from } if from_them(&from) => {
                self.to_task(GameEvent::Offer(Offer::Adjourn), at)
            }
            ServerEvent::TakebackRequest { from, .. } if from_them(&from) => {
                self.to_task(GameEvent::Offer(Offer::Takeback), at)
            }
            ServerEvent::FlagRefused => self.to_task(GameEvent::FlagRefused, at),
            _ => {}
        }
        false
    }

    /// When the adapter next needs the clock (a listing that does not come).
    pub fn next_timer(&self) -> Option<Instant> {
        self.awaiting_moves.map(|a| a + MOVES_WAIT)
    }

    pub fn on_timer(&mut self, now: Instant) {
        if self.awaiting_moves.is_some_and(|a| now >= a + MOVES_WAIT) {
            // No move list came: play on from the board alone rather than lose on time.
            self.awaiting_moves = None;
            if let Some(s) = self.last.clone() {
                self.restart_from_board(&s, "no move list from the server");
                self.send_position(&s, self.last_at);
            }
        }
    }

    /// A command of the game's task, as the server reads it.
    pub fn command(&mut self, c: GameCommand, w: &Writer) {
        let opp = || Some(self.opponent.clone());
        let cmd = match c {
            GameCommand::Move(m) => {
                if !self.board.is_legal(m) {
                    error!(game = self.number, %m, "our move does not fit the server's board; not sent");
                    self.to_task(
                        GameEvent::MoveRefused(format!("{m} does not fit the board")),
                        Instant::now(),
                    );
                    return;
                }
                ServerCommand::Move(move_text(&self.board, m))
            }
            GameCommand::OfferDraw | GameCommand::ClaimDraw => ServerCommand::Draw,
            GameCommand::Answer(Offer::Draw, true) => ServerCommand::Draw,
            // An offer the opponent made lapses with our next move.
            GameCommand::Answer(Offer::Draw, false) => return,
            GameCommand::Answer(Offer::Abort, true) => ServerCommand::Abort,
            GameCommand::Answer(Offer::Abort, false) => return,
            GameCommand::Answer(Offer::Adjourn, true) => ServerCommand::Adjourn,
            GameCommand::Answer(Offer::Takeback, true) => ServerCommand::Accept(opp()),
            GameCommand::Answer(Offer::Adjourn | Offer::Takeback, false) => {
                ServerCommand::Decline(opp())
            }
            GameCommand::Resign => ServerCommand::Resign,
            GameCommand::Abort => ServerCommand::Abort,
            GameCommand::Adjourn => ServerCommand::Adjourn,
            GameCommand::Flag => ServerCommand::Flag,
            GameCommand::Say(Channel::Whisper, t) => ServerCommand::Whisper(t),
            GameCommand::Say(Channel::Kibitz, t) => ServerCommand::Kibitz(t),
            GameCommand::Say(Channel::Opponent, t) => ServerCommand::Say(t),
            // The account drops its link (see `connected`); nothing to send.
            GameCommand::Leave => return,
            GameCommand::Resync => {
                w.send(&ServerCommand::Refresh);
                self.request_moves(w, "the game task asked");
                return;
            }
        };
        w.send(&cmd);
    }
}
