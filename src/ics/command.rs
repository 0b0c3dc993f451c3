//! Typed commands -> the text a server reads. Moves are written in a form every
//! FICS-lineage server accepts: coordinates (`e2e4`), castling as `O-O`/`O-O-O`, and
//! promotions as `e7e8=Q` (lasker rejects `b2a1n`).

use crate::chess::{Board, Move};

/// What the daemon tells a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerCommand {
    /// A move in wire form (see `move_text`).
    Move(String),
    /// `accept` (the pending offer, or the one from this player).
    Accept(Option<String>),
    Decline(Option<String>),
    /// Offer or claim a draw, or accept the opponent's offer.
    Draw,
    Abort,
    Adjourn,
    Resign,
    Flag,
    /// `seek 3 0 u m` (the words after `seek`).
    Seek(String),
    Unseek,
    /// `moves <game>`.
    Moves(u32),
    Refresh,
    /// `match <player>` (resumes an adjourned game with them).
    Match(String),
    Set(String, String),
    Iset(String, String),
    Tell(String, String),
    Whisper(String),
    Kibitz(String),
    /// `xwhisper <game> <text>`: to the observers of a game we observe.
    XWhisper(u32, String),
    /// `xkibitz <game> <text>`: to the players and observers of a game we observe.
    XKibitz(u32, String),
    /// `say <text>`: to the opponent of our current or last game.
    Say(String),
    /// Any other line, sent as it is.
    Raw(String),
    Quit,
}

impl ServerCommand {
    /// The line to send (without a newline).
    pub fn text(&self) -> String {
        use ServerCommand as C;
        let clean = |s: &str| -> String {
            s.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect()
        };
        match self {
            C::Move(m) => clean(m),
            C::Accept(None) => "accept".into(),
            C::Accept(Some(w)) => format!("accept {}", clean(w)),
            C::Decline(None) => "decline".into(),
            C::Decline(Some(w)) => format!("decline {}", clean(w)),
            C::Draw => "draw".into(),
            C::Abort => "abort".into(),
            C::Adjourn => "adjourn".into(),
            C::Resign => "resign".into(),
            C::Flag => "flag".into(),
            C::Seek(s) => format!("seek {}", clean(s)),
            C::Unseek => "unseek".into(),
            C::Moves(g) => format!("moves {g}"),
            C::Refresh => "refresh".into(),
            C::Match(p) => format!("match {}", clean(p)),
            C::Set(k, v) => format!("set {} {}", clean(k), clean(v)),
            C::Iset(k, v) => format!("iset {} {}", clean(k), clean(v)),
            C::Tell(who, text) => format!("tell {} {}", clean(who), clean(text)),
            C::Whisper(t) => format!("whisper {}", clean(t)),
            C::Kibitz(t) => format!("kibitz {}", clean(t)),
            C::XWhisper(g, t) => format!("xwhisper {g} {}", clean(t)),
            C::XKibitz(g, t) => format!("xkibitz {g} {}", clean(t)),
            C::Say(t) => format!("say {}", clean(t)),
            C::Raw(t) => clean(t),
            C::Quit => "quit".into(),
        }
    }
}

/// A legal move of `board` in the wire form every server accepts.
pub fn move_text(board: &Board, mv: Move) -> String {
    if mv.is_castle() {
        let san = board.san_without_check(mv);
        return san;
    }
    let mut s = format!("{}{}", mv.from(), mv.to());
    if let Some(p) = mv.promotion_piece() {
        s.push('=');
        s.push(p.upper_char());
    }
    s
}
