//! Typed commands -> the text a server reads, rendered by the server's profile. This
//! is the one place where anything reaches the wire, so it is where text from outside
//! (tells, handles, PGN tags, finger notes, greetings, PVs) is made harmless:
//!
//! - Free text (what is told, whispered, kibitzed, said, a variable's value) loses
//!   control characters and non-ASCII characters, the profile's command separator
//!   (`;` on FICS-lineage servers, which split every input line on it) becomes `,`,
//!   and it is cut to the profile's length limit. No free text can start a second
//!   command.
//! - Words (handles, variable names, seek parameters, moves, observe targets) must
//!   be words: letters, digits and `_-=+:/.`; anything else is refused with an error
//!   and nothing is sent.
//!
//! Moves are written in a form every FICS-lineage server accepts: coordinates
//! (`e2e4`), castling as `O-O`/`O-O-O`, and promotions as `e7e8=Q` (lasker rejects
//! `b2a1n`).

use super::server::ServerProfile;
use crate::chess::{Board, Move};
use thiserror::Error;

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
    /// `set <n> <text>`: finger note n (1-10).
    FingerNote(u8, String),
    Tell(String, String),
    Whisper(String),
    Kibitz(String),
    /// To the observers of a game we observe (`xwhisper <game> <text>` where the
    /// server has it, else `whisper <text>`, which reaches the game we observe).
    XWhisper(u32, String),
    /// To the players and observers of a game we observe (`xkibitz`, or `kibitz`).
    XKibitz(u32, String),
    /// `say <text>`: to the opponent of our current or last game.
    Say(String),
    /// `observe <game|handle>`.
    Observe(String),
    /// `unobserve <game>`.
    Unobserve(u32),
    /// A line the operator configured (the keepalive command): one command, its
    /// words kept, free text neutralised like any other.
    Operator(String),
    Quit,
}

/// Why a command was not sent.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RenderError {
    #[error(
        "{what} '{value}' is not a word the server accepts (letters, digits and _-=+:/. only)"
    )]
    BadWord { what: &'static str, value: String },
    #[error("finger note number {0} is outside 1-10")]
    BadNote(u8),
    #[error("a {0}-byte command line is longer than the server takes")]
    TooLong(usize),
}

/// A word (handle, variable name, seek parameter, move, game number, target).
pub fn valid_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 40
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-=+:/.".contains(c))
}

fn word<'a>(what: &'static str, s: &'a str) -> Result<&'a str, RenderError> {
    if valid_word(s) {
        Ok(s)
    } else {
        Err(RenderError::BadWord {
            what,
            value: printable(s, 40),
        })
    }
}

/// Text for our own messages (errors, logs): control characters shown as `?`, at
/// most `max` characters.
pub fn printable(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().count() > max {
        out.push_str("...");
    }
    out
}

impl ServerProfile {
    /// Free text made harmless for this server: printable ASCII only, the command
    /// separator replaced, at most `max_text` bytes.
    pub fn neutralise(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len().min(self.max_text));
        for c in text.chars() {
            if out.len() >= self.max_text {
                break;
            }
            let c = if Some(c) == self.separator {
                ','
            } else if c.is_ascii_graphic() || c == ' ' {
                c
            } else if c.is_whitespace() || c.is_control() {
                ' '
            } else {
                '?'
            };
            out.push(c);
        }
        out.trim_end().to_string()
    }

    /// The line to send for `cmd` (without a newline). `missing` says which commands
    /// this server turned out not to have (`xwhisper: Command not found.`).
    pub fn render(
        &self,
        cmd: &ServerCommand,
        missing: &dyn Fn(&str) -> bool,
    ) -> Result<String, RenderError> {
        use ServerCommand as C;
        let t = |s: &str| self.neutralise(s);
        let has = |c: &str| self.has_command(c) && !missing(c);
        let line = match cmd {
            C::Move(m) => word("move", m)?.to_string(),
            C::Accept(None) => "accept".into(),
            C::Accept(Some(w)) => format!("accept {}", word("handle", w)?),
            C::Decline(None) => "decline".into(),
            C::Decline(Some(w)) => format!("decline {}", word("handle", w)?),
            C::Draw => "draw".into(),
            C::Abort => "abort".into(),
            C::Adjourn => "adjourn".into(),
            C::Resign => "resign".into(),
            C::Flag => "flag".into(),
            C::Seek(s) => {
                let mut line = String::from("seek");
                for w in s.split_whitespace() {
                    line.push(' ');
                    line.push_str(word("seek parameter", w)?);
                }
                line
            }
            C::Unseek => "unseek".into(),
            // ICC: the move list comes from the units already read; `refresh`
            // makes the server confirm the game (DG_REFRESH) and the parser answers
            // with its board and move list.
            C::Moves(g) if self.kind == super::server::ServerKind::Icc => format!("refresh {g}"),
            C::Moves(g) => format!("moves {g}"),
            C::Refresh => "refresh".into(),
            C::Match(p) => format!("match {}", word("handle", p)?),
            C::Set(k, v) => format!("set {} {}", word("variable", k)?, t(v)),
            C::Iset(k, v) if has("iset") => format!("iset {} {}", word("variable", k)?, t(v)),
            C::Iset(k, v) => format!("set {} {}", word("variable", k)?, t(v)),
            C::FingerNote(n, v) => {
                if !(1..=10).contains(n) {
                    return Err(RenderError::BadNote(*n));
                }
                format!("set {n} {}", t(v))
            }
            C::Tell(who, text) => format!("tell {} {}", word("handle", who)?, t(text)),
            C::Whisper(s) => format!("whisper {}", t(s)),
            C::Kibitz(s) => format!("kibitz {}", t(s)),
            C::XWhisper(g, s) if has("xwhisper") => format!("xwhisper {g} {}", t(s)),
            C::XWhisper(_, s) => format!("whisper {}", t(s)),
            C::XKibitz(g, s) if has("xkibitz") => format!("xkibitz {g} {}", t(s)),
            C::XKibitz(_, s) => format!("kibitz {}", t(s)),
            C::Say(s) => format!("say {}", t(s)),
            C::Observe(w) => format!("observe {}", word("observe target", w)?),
            C::Unobserve(g) => format!("unobserve {g}"),
            C::Operator(line) => {
                let line = line.trim();
                let (w, rest) = line.split_once(' ').unwrap_or((line, ""));
                let w = word("command", w)?;
                if rest.trim().is_empty() {
                    w.to_string()
                } else {
                    format!("{w} {}", t(rest.trim()))
                }
            }
            C::Quit => "quit".into(),
        };
        // Free text is cut to `max_text`; words are not, so a line of long words
        // (a seek list, a handle) could pass what the server reads as one line.
        if line.len() > self.max_text + 64 {
            return Err(RenderError::TooLong(line.len()));
        }
        Ok(line)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ics::ServerKind;

    fn none(_: &str) -> bool {
        false
    }

    #[test]
    fn free_text_cannot_start_a_second_command() {
        for kind in [ServerKind::Fics, ServerKind::Lasker, ServerKind::Icc] {
            let p = ServerProfile::new(kind);
            for payload in [
                "x;resign;",
                "a;date",
                "ply=14; eval=+0.57; pv e4",
                "hi\nresign",
                "hi\r\nresign",
                "\u{0}resign",
                "caf\u{e9};quit",
            ] {
                for cmd in [
                    ServerCommand::Tell("alice".into(), payload.into()),
                    ServerCommand::Whisper(payload.into()),
                    ServerCommand::Kibitz(payload.into()),
                    ServerCommand::XWhisper(3, payload.into()),
                    ServerCommand::XKibitz(3, payload.into()),
                    ServerCommand::Say(payload.into()),
                    ServerCommand::FingerNote(2, payload.into()),
                    ServerCommand::Set("formula".into(), payload.into()),
                    ServerCommand::Operator(format!("date {payload}")),
                ] {
                    let line = p.render(&cmd, &none).unwrap();
                    assert!(!line.contains(';'), "{kind:?} {cmd:?} -> {line:?}");
                    assert!(
                        line.chars().all(|c| c.is_ascii_graphic() || c == ' '),
                        "{kind:?} {cmd:?} -> {line:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn words_from_outside_are_refused_not_sent() {
        let p = ServerProfile::new(ServerKind::Lasker);
        for bad in ["bob;resign", "bob resign", "", "bob\nresign", "b\u{e9}b"] {
            for cmd in [
                ServerCommand::Tell(bad.into(), "hi".into()),
                ServerCommand::Match(bad.into()),
                ServerCommand::Accept(Some(bad.into())),
                ServerCommand::Decline(Some(bad.into())),
                ServerCommand::Observe(bad.into()),
                ServerCommand::Move(bad.into()),
                ServerCommand::Seek(format!("3 0 {bad}")),
                ServerCommand::Operator(format!("{bad} x")),
            ] {
                let multi_word = matches!(cmd, ServerCommand::Seek(_) | ServerCommand::Operator(_));
                if multi_word && bad.split_whitespace().all(valid_word) {
                    continue; // words separated by white space are words there
                }
                assert!(p.render(&cmd, &none).is_err(), "{cmd:?} was rendered");
            }
        }
        assert!(p
            .render(&ServerCommand::FingerNote(11, "x".into()), &none)
            .is_err());
    }

    #[test]
    fn text_is_cut_to_the_limit_and_kept_readable() {
        let p = ServerProfile::new(ServerKind::Fics);
        let long = "x".repeat(5000);
        let line = p
            .render(&ServerCommand::Tell("bob".into(), long), &none)
            .unwrap();
        assert!(line.len() <= p.max_text + 20, "{}", line.len());
        assert_eq!(
            p.render(&ServerCommand::Whisper("ply=14; eval=+0.57".into()), &none)
                .unwrap(),
            "whisper ply=14, eval=+0.57"
        );
        assert_eq!(
            p.render(&ServerCommand::Seek("3 0 u m f".into()), &none)
                .unwrap(),
            "seek 3 0 u m f"
        );
    }

    #[test]
    fn observed_talk_uses_what_the_server_has() {
        let lasker = ServerProfile::new(ServerKind::Lasker);
        let fics = ServerProfile::new(ServerKind::Fics);
        let w = ServerCommand::XWhisper(7, "d10 +0.31".into());
        let k = ServerCommand::XKibitz(7, "d10 +0.31".into());
        assert_eq!(lasker.render(&w, &none).unwrap(), "whisper d10 +0.31");
        assert_eq!(lasker.render(&k, &none).unwrap(), "kibitz d10 +0.31");
        assert_eq!(fics.render(&w, &none).unwrap(), "xwhisper 7 d10 +0.31");
        // A server that answered `xkibitz: Command not found.` gets `kibitz`.
        let missing = |c: &str| c == "xkibitz";
        assert_eq!(fics.render(&k, &missing).unwrap(), "kibitz d10 +0.31");
        assert!(!lasker.observe_talk_is_per_game() && fics.observe_talk_is_per_game());
    }
}
