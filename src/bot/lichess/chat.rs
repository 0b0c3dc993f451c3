//! The game chat of a Lichess game: the lines that come in are never trusted
//! (cut to Lichess's 140 characters, control and formatting characters removed,
//! logged only in that form), and a few commands from the opponent or the
//! spectators are answered, politely and rate-limited: `!help`, `!eval`, `!name`.
//! The evaluation goes to the spectators; the opponent gets it only when the bot
//! already kibitzes its thoughts to them (the `kibitz` level).

use super::super::status::Search;
use crate::lichess::Room;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The longest chat line Lichess keeps.
pub const MAX_LINE: usize = 140;

/// Answers at most this often in one game...
const MIN_GAP: Duration = Duration::from_secs(2);
/// ...and at most this many within a minute.
const PER_MINUTE: usize = 6;

/// A chat line as it may be logged or shown: no control or bidi-formatting
/// characters, runs of white space made one space, at most `MAX_LINE` characters.
pub fn sanitize(text: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        // Control characters and the Unicode format class that can reorder or hide text.
        if c.is_control()
            || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
        {
            continue;
        }
        let needed = 1 + space as usize;
        if n + needed > MAX_LINE {
            break;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
        n += needed;
    }
    out
}

/// A chat command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Help,
    Eval,
    Name,
    /// A word after `!` that is not a command.
    Unknown,
}

/// The command a (sanitised) line starts with, if any.
pub fn command(line: &str) -> Option<Command> {
    let word = line.strip_prefix('!')?.split(' ').next().unwrap_or("");
    if word.is_empty() || word.len() > 20 {
        return None;
    }
    Some(match word.to_ascii_lowercase().as_str() {
        "help" | "commands" => Command::Help,
        "eval" | "evaluation" => Command::Eval,
        "name" | "engine" => Command::Name,
        _ => Command::Unknown,
    })
}

/// The answers of one game: how often they may go.
#[derive(Debug, Default)]
pub struct Limiter {
    sent: VecDeque<Instant>,
}

impl Limiter {
    /// True (and counted) when an answer may go now.
    pub fn allow(&mut self, now: Instant) -> bool {
        while self
            .sent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60))
        {
            self.sent.pop_front();
        }
        let too_soon = self
            .sent
            .back()
            .is_some_and(|t| now.duration_since(*t) < MIN_GAP);
        if too_soon || self.sent.len() >= PER_MINUTE {
            return false;
        }
        self.sent.push_back(now);
        true
    }
}

/// The answer to `cmd` asked in `room`; `search` is our latest search in this
/// game, `kibitz` whether the opponent already hears our thoughts.
pub fn answer(cmd: Command, room: Room, search: Option<&Search>, kibitz: bool) -> String {
    let text = match cmd {
        Command::Help => "Commands: !eval (my evaluation), !name (who I am), !help.".to_string(),
        Command::Name => format!(
            "I am kibitzer {}, a chess engine written in Rust, playing with my own search and book.",
            env!("CARGO_PKG_VERSION")
        ),
        Command::Eval if room == Room::Player && !kibitz => {
            "Sorry, I keep my evaluation to myself while we play; good luck!".to_string()
        }
        Command::Eval => match search {
            Some(s) => format!(
                "Evaluation {} (White's view) at depth {}: {}",
                s.score, s.depth, s.pv
            ),
            None => "I have not searched a position in this game yet.".to_string(),
        },
        Command::Unknown => "I do not know that command; try !help.".to_string(),
    };
    text.chars().take(MAX_LINE).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_cleaned_and_cut() {
        assert_eq!(sanitize("  hi\u{7}\tthere\n\n  you "), "hi there you");
        assert_eq!(sanitize("a\u{202e}b\u{200b}c"), "abc");
        let long = "x".repeat(1000);
        assert_eq!(sanitize(&long).chars().count(), MAX_LINE);
        let spaced = "x ".repeat(1000);
        assert_eq!(
            sanitize(&spaced).chars().count(),
            MAX_LINE - 1,
            "no trailing space"
        );
        assert_eq!(sanitize(""), "");
    }

    #[test]
    fn commands() {
        assert_eq!(command("!help"), Some(Command::Help));
        assert_eq!(command("!EVAL please"), Some(Command::Eval));
        assert_eq!(command("!name"), Some(Command::Name));
        assert_eq!(command("!xyz"), Some(Command::Unknown));
        assert_eq!(command("hello !help"), None);
        assert_eq!(command("!"), None);
        assert_eq!(command(&format!("!{}", "a".repeat(30))), None);
    }

    #[test]
    fn answers_are_rate_limited() {
        let mut l = Limiter::default();
        let t = Instant::now();
        assert!(l.allow(t));
        assert!(!l.allow(t + Duration::from_secs(1)), "too soon");
        let mut n = 1;
        for i in 1..20 {
            if l.allow(t + Duration::from_secs(3 * i)) {
                n += 1;
            }
        }
        // 0..57 s: one answer per 3 s would be 20; the minute allows 6.
        assert_eq!(n, PER_MINUTE, "6 a minute");
        assert!(
            l.allow(t + Duration::from_secs(61)),
            "the first one left the minute"
        );
    }

    #[test]
    fn eval_to_the_opponent_only_when_kibitzing() {
        let s = Search {
            depth: 12,
            score_cp: 35,
            score: "+0.35".into(),
            pv: "1. e4 e5".into(),
            nodes: 1,
            nps: 1,
            time_ms: 1,
        };
        let a = answer(Command::Eval, Room::Spectator, Some(&s), false);
        assert!(a.contains("+0.35") && a.contains("depth 12"), "{a}");
        let a = answer(Command::Eval, Room::Player, Some(&s), false);
        assert!(a.starts_with("Sorry"), "{a}");
        let a = answer(Command::Eval, Room::Player, Some(&s), true);
        assert!(a.contains("+0.35"), "{a}");
        assert!(answer(Command::Name, Room::Player, None, false).contains("kibitzer"));
    }
}
