//! The game port: everything a game task hears and says, in game terms only. A
//! server's adapter (`bot::ics::adapter` for FICS, lasker and ICC; `bot::lichess::
//! adapter` for Lichess) turns that server's own messages into `GameEvent`s and the
//! task's `GameCommand`s into that server's commands; no wire format crosses the
//! port, and no adapter builds another server's format.
//!
//! The adapter owes the task whole positions: where the game started and every
//! move since, with both clocks in milliseconds. Reconciling what the server sends
//! (FICS's style-12 boards, ICC's moves, Lichess's move lists) with that, and asking
//! the server again when it cannot (`moves`, `refresh`, a reopened stream), is the
//! adapter's work; the task never guesses a move.

use crate::chess::{Board, Color, Move};
use std::time::{Duration, Instant};

/// A position as the server gives it.
#[derive(Clone, Debug)]
pub struct Position {
    /// Where the game began (the standard start unless the server said otherwise).
    pub start: Board,
    /// Every move since, in order.
    pub moves: Vec<Move>,
    /// Both clocks when the position arrived, ms, indexed by `Color::index`.
    pub clock_ms: [i64; 2],
    /// The side to move's clock runs (false before the first moves on some
    /// servers, and in an examined or paused game).
    pub ticking: bool,
    /// What each side gets back after a move, ms (none for a side that berserked).
    pub increment_ms: [i64; 2],
    /// The server's clocks are whole seconds: the lag samples are coarse.
    pub coarse: bool,
    /// The mover's clock after each move, where the server listed it (a resumed
    /// game's earlier moves); may be shorter than `moves`.
    pub clocks_after: Vec<Option<i64>>,
    /// The game's time control as the server states it with the position
    /// (initial seconds, increment seconds), when it does.
    pub control: Option<(u32, u32)>,
}

impl Position {
    /// The position reached.
    pub fn board(&self) -> Board {
        let mut b = self.start.clone();
        for &m in &self.moves {
            b.make_move(m);
        }
        b
    }

    pub fn clock(&self, side: Color) -> i64 {
        self.clock_ms[side.index()]
    }
}

/// What the opponent offers or asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    Draw,
    Abort,
    Adjourn,
    Takeback,
}

/// How a game ended, in the server's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct End {
    /// `1-0`, `0-1`, `1/2-1/2` or `*` (aborted, adjourned).
    pub result: String,
    /// `bottwo resigns`, `Game drawn by mutual agreement`, `Game adjourned by ...`.
    pub reason: String,
}

/// What a game task hears.
#[derive(Clone, Debug)]
pub enum GameEvent {
    /// The game's position now (after a move, a takeback, a refresh, a resume).
    Position(Box<Position>),
    /// The opponent offers or asks.
    Offer(Offer),
    /// The server refused our last move (illegal, not our turn); the adapter has
    /// asked the server for the position again.
    MoveRefused(String),
    /// Our flag was refused: the opponent's clock has not run out.
    FlagRefused,
    /// The game is over.
    End(End),
}

/// Where talk goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// The spectators (ICS `whisper`, Lichess's spectator room).
    Whisper,
    /// Players and spectators (ICS `kibitz`, both Lichess rooms).
    Kibitz,
    /// The opponent (ICS `say`, Lichess's player room).
    Opponent,
}

/// What a game task says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameCommand {
    /// Our move, legal in the position of the last `GameEvent::Position`.
    Move(Move),
    OfferDraw,
    /// Accept (true) or decline (false) what the opponent offered.
    Answer(Offer, bool),
    Resign,
    Abort,
    Adjourn,
    /// Leave the game without the opponent's agreement, where the server has a way
    /// (an ICS account drops its link: lasker and ICC adjourn or abort a game whose
    /// player is gone); elsewhere nothing, and the task resigns a step later. Sent
    /// only against an opponent who never made a first move and agreed to neither
    /// an abort nor an adjournment.
    Leave,
    /// Claim a draw by rule (threefold repetition, fifty moves).
    ClaimDraw,
    /// The opponent's time is up (where the server does not flag by itself).
    Flag,
    Say(Channel, String),
    /// Send the whole position again: ours and the server's disagree.
    Resync,
}

/// What reaches a game task from its account.
#[derive(Debug)]
pub enum GameInput {
    /// A game event and when it arrived (the clocks run from there).
    Event(GameEvent, Instant),
    /// The first SIGTERM: finish (or ask to adjourn, when configured).
    Drain { adjourn: bool },
    /// The account lost the game's server (connection, stream): the task ends, the
    /// record stays in progress.
    ConnectionLost,
    /// New options (an owner's `kibitz 3`, `mode tournament`, `operator 10`).
    Options(Box<crate::options::Options>),
    /// The opponent asks for this long more before their first move (Lichess's
    /// `!wait`): our abort waits.
    WaitForFirstMove(Duration),
}

/// The task's side of the port: its commands out, tagged with its game's number so
/// one account can read the commands of several tasks (a game that has just ended
/// still says goodbye while the next one starts). Never blocks; a command sent after
/// the account is gone is dropped.
#[derive(Clone, Debug)]
pub struct PortTx {
    game: u32,
    tx: tokio::sync::mpsc::UnboundedSender<(u32, GameCommand)>,
}

/// The adapter's side: the tasks' commands with their game numbers.
pub type PortRx = tokio::sync::mpsc::UnboundedReceiver<(u32, GameCommand)>;

impl PortTx {
    /// A channel for the tasks of one account (or one game).
    pub fn channel() -> (PortSender, PortRx) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        (PortSender { tx }, rx)
    }

    pub fn send(&self, c: GameCommand) {
        let _ = self.tx.send((self.game, c));
    }
}

/// Makes the `PortTx` of each game of an account.
#[derive(Clone, Debug)]
pub struct PortSender {
    tx: tokio::sync::mpsc::UnboundedSender<(u32, GameCommand)>,
}

impl PortSender {
    pub fn for_game(&self, game: u32) -> PortTx {
        PortTx {
            game,
            tx: self.tx.clone(),
        }
    }
}
