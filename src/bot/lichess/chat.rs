//! The game chat of a Lichess game: the lines that come in are never trusted
//! (cut to Lichess's 140 characters, control and formatting characters removed,
//! logged only in that form), and a few commands from the opponent or the
//! spectators are answered, politely and rate-limited: `!help`, `!eval`, `!name`,
//! `!wait` (the opponent asks for a minute more before we abort a game they have
//! not started) and `!queue` (the challengers waiting for a free slot).
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
    Wait,
    Queue,
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
        "wait" => Command::Wait,
        "queue" => Command::Queue,
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

/// How long `!wait` holds off our abort.
pub const WAIT: Duration = Duration::from_secs(60);

/// What an answer may tell.
#[derive(Clone, Copy, Debug, Default)]
pub struct Context<'a> {
    /// Our latest search in this game.
    pub search: Option<&'a Search>,
    /// The opponent already hears our thoughts (the `kibitz` level).
    pub kibitz: bool,
    /// The opponent has not made a first move (we would abort the game).
    pub before_their_first_move: bool,
    /// Challenges are queued (`lichess.queue` above 0), and who waits.
    pub queue_on: bool,
    pub queue: &'a [String],
}

/// The answer to `cmd` asked in `room`.
pub fn answer(cmd: Command, room: Room, cx: Context) -> String {
    let (search, kibitz) = (cx.search, cx.kibitz);
    let text = match cmd {
        Command::Help => "Commands: !eval (my evaluation), !name (who I am), !wait (a minute more for your first move), !queue (challengers waiting), !help.".to_string(),
        Command::Wait if room != Room::Player => "Only my opponent can ask me to wait.".to_string(),
        Command::Wait if cx.before_their_first_move => format!(
            "I will wait {} seconds more for your first move.",
            WAIT.as_secs()
        ),
        Command::Wait => "The game is under way: nothing to wait for.".to_string(),
        Command::Queue if !cx.queue_on => {
            "I do not keep a queue: challenge me when this game is over.".to_string()
        }
        Command::Queue if cx.queue.is_empty() => "Nobody is waiting to play me.".to_string(),
        Command::Queue => format!("Waiting to play me: {}.", cx.queue.join(", ")),
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
        let cx = |kibitz| Context {
            search: Some(&s),
            kibitz,
            ..Context::default()
        };
        let a = answer(Command::Eval, Room::Spectator, cx(false));
        assert!(a.contains("+0.35") && a.contains("depth 12"), "{a}");
        let a = answer(Command::Eval, Room::Player, cx(false));
        assert!(a.starts_with("Sorry"), "{a}");
        let a = answer(Command::Eval, Room::Player, cx(true));
        assert!(a.contains("+0.35"), "{a}");
        assert!(answer(Command::Name, Room::Player, Context::default()).contains("kibitzer"));
    }

    #[test]
    fn wait_and_queue() {
        assert_eq!(command("!wait"), Some(Command::Wait));
        assert_eq!(command("!Queue"), Some(Command::Queue));
        let before = Context {
            before_their_first_move: true,
            ..Context::default()
        };
        assert!(answer(Command::Wait, Room::Player, before).contains("60 seconds"));
        assert!(answer(Command::Wait, Room::Spectator, before).starts_with("Only my opponent"));
        assert!(answer(Command::Wait, Room::Player, Context::default()).contains("under way"));
        let off = answer(Command::Queue, Room::Spectator, Context::default());
        assert!(off.contains("do not keep a queue"), "{off}");
        let q = ["alice".to_string(), "bob".to_string()];
        let on = Context {
            queue_on: true,
            queue: &q,
            ..Context::default()
        };
        assert_eq!(
            answer(Command::Queue, Room::Player, on),
            "Waiting to play me: alice, bob."
        );
        let empty = Context {
            queue_on: true,
            ..Context::default()
        };
        assert!(answer(Command::Queue, Room::Player, empty).starts_with("Nobody"));
        let help = answer(Command::Help, Room::Player, Context::default());
        assert!(help.contains("!wait") && help.contains("!queue"), "{help}");
        assert!(help.chars().count() <= MAX_LINE);
    }
}
