//! What the bot says about its analysis, as Crafty did on ICC: `whisper <n>` and
//! `kibitz <n>`, n = 0..6.
//!
//! | level | said |
//! |---|---|
//! | 1 | mate announcements (`White mates in 5`) |
//! | 2 | a summary after each move (`ply=18 eval=+0.23 nps=11.5M time=1.01`; no `;`, which FICS-lineage servers
//! take as a command separator) |
//! | 3 | the summary with the PV (`...; time=1.01; 12. ... Nxe4 13. Bxe4 h6`) |
//! | 4 | book moves with their percentages (`book: e4 45%, d4 35%`) |
//! | 5 | every finished iteration (`d18-> 1.01 +0.23 1. Rae1 f5 2. Nf3`) |
//! | 6 | every new best move, fail high (`d18++`) and fail low (`d18--`) |
//!
//! Scores are White's point of view, PVs carry move numbers; an iteration that changes
//! neither score nor PV is not said again. Nothing from a search is
//! said before it has examined `noise` nodes. A line goes to `kibitz` when the kibitz
//! level reaches its level, else to `whisper` when the whisper level does. Where the bot
//! may talk depends on the game (`Venue`): in its own games and in relayed broadcasts
//! both; in live games between other players only whispers (kibitzing analysis to the
//! players would be computer assistance), so there the higher of the two levels
//! applies to whispers. Lines are cut at a word to the server's limit and at most
//! `per_minute` lines go out per game in any minute, spread over it: at most one per
//! `60 s / per_minute` (finished iterations, level 5, on a clock of their own that a
//! new position resets; every other line but mate announcements on another), so a
//! burst of moves cannot spend the minute in a few seconds; the rest are dropped and
//! counted.
//!
//! This module only decides and formats; the game task and the observer send the
//! lines (`whisper`/`kibitz` in our own game, `xwhisper`/`xkibitz` in observed ones).

use crate::chess::{Board, Color, Move};
use crate::format;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Where a line goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channel {
    /// Observers only.
    Whisper,
    /// Players and observers.
    Kibitz,
}

/// The kind of game the bot talks in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Venue {
    /// Its own game: it only reveals its own thoughts.
    Own,
    /// A live game between two other players on the server: whispers only.
    Live,
    /// A relayed (examined) broadcast whose players are not on the server.
    Relay,
}

/// The talk settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Levels {
    pub whisper: u8,
    pub kibitz: u8,
    pub noise: u64,
}

impl Levels {
    pub fn from_options(o: &crate::options::Options) -> Levels {
        Levels {
            whisper: o.int("whisper").clamp(0, 6) as u8,
            kibitz: o.int("kibitz").clamp(0, 6) as u8,
            noise: o.int("noise").max(0) as u64,
        }
    }

    pub fn silent(&self) -> bool {
        self.whisper == 0 && self.kibitz == 0
    }
}

/// A search's state as talk sees it: the score from the side to move of `root`.
#[derive(Clone, Debug)]
pub struct Thought {
    pub depth: i32,
    pub score: i32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

/// Inside an iteration (level 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    NewBest,
    FailHigh,
    FailLow,
}

/// One game's talk.
#[derive(Clone, Debug)]
pub struct Talk {
    pub levels: Levels,
    pub venue: Venue,
    pub max_len: usize,
    pub per_minute: usize,
    sent: VecDeque<Instant>,
    /// When the last iteration line went out (they are spread over the minute).
    last_iteration_at: Option<Instant>,
    /// When the last other line (summary, book, change; not a mate) went out.
    last_line_at: Option<Instant>,
    iteration_root: Option<u64>,
    /// Lines dropped by the rate limit.
    pub dropped: u64,
    /// The last mate announced (White's view, in moves; negative: Black mates).
    mate_said: Option<i32>,
    /// Score and PV of the last iteration said: a deeper iteration that changes
    /// neither is not repeated (a found mate would otherwise be said at every depth).
    last_iteration: Option<(i32, Vec<Move>)>,
}

/// Nodes per second in short units: `950`, `11.5K`, `11.5M`.
pub fn nps_text(nodes: u64, time: Duration) -> String {
    let ms = time.as_millis().max(1) as u64;
    let nps = nodes.saturating_mul(1000) / ms;
    if nps >= 1_000_000 {
        format!("{:.1}M", nps as f64 / 1e6)
    } else if nps >= 1_000 {
        format!("{:.1}K", nps as f64 / 1e3)
    } else {
        nps.to_string()
    }
}

/// `text` cut to `max` bytes at a word boundary (never inside a character).
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.rfind(' ') {
        Some(i) if i > max / 2 => head[..i].trim_end().to_string(),
        _ => head.to_string(),
    }
}

fn white_score(root: &Board, stm: i32) -> i32 {
    if root.side_to_move() == Color::White {
        stm
    } else {
        -stm
    }
}

impl Talk {
    pub fn new(levels: Levels, venue: Venue, max_len: usize, per_minute: usize) -> Talk {
        Talk {
            levels,
            venue,
            max_len: max_len.max(40),
            per_minute: per_minute.max(1),
            sent: VecDeque::new(),
            last_iteration_at: None,
            last_line_at: None,
            iteration_root: None,
            dropped: 0,
            mate_said: None,
            last_iteration: None,
        }
    }

    pub fn from_options(o: &crate::options::Options, levels: Levels, venue: Venue) -> Talk {
        Talk::new(
            levels,
            venue,
            o.int("talk.max_length") as usize,
            o.int("talk.per_minute") as usize,
        )
    }

    /// The channel for a line of `level`, or `None` when the levels say nothing.
    pub fn channel(&self, level: u8) -> Option<Channel> {
        let (w, k) = (self.levels.whisper, self.levels.kibitz);
        match self.venue {
            Venue::Live => (w.max(k) >= level).then_some(Channel::Whisper),
            Venue::Own | Venue::Relay => {
                if k >= level {
                    Some(Channel::Kibitz)
                } else if w >= level {
                    Some(Channel::Whisper)
                } else {
                    None
                }
            }
        }
    }

    /// Passes a line through the levels, the length cut and the rate limit.
    fn say(&mut self, level: u8, text: String, now: Instant) -> Option<(Channel, String)> {
        let ch = self.channel(level)?;
        while self
            .sent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= Duration::from_secs(60))
        {
            self.sent.pop_front();
        }
        if self.sent.len() >= self.per_minute {
            self.dropped += 1;
            return None;
        }
        // Spread the budget: a line at most once per 60 s / per_minute, so the
        // shallow iterations of the first second, or a burst of moves in a blitz
        // broadcast, cannot spend the minute; the next line after the gap is about a
        // deeper search or a later move. Finished iterations (level 5) keep a clock
        // of their own (a new position's first one is not held back); mate
        // announcements only count against the minute.
        let gap = Duration::from_secs(60) / self.per_minute as u32;
        let last = match level {
            1 => None,
            5 => Some(&mut self.last_iteration_at),
            _ => Some(&mut self.last_line_at),
        };
        if let Some(last) = last {
            if last.is_some_and(|t| now.duration_since(t) < gap) {
                self.dropped += 1;
                return None;
            }
            *last = Some(now);
        }
        self.sent.push_back(now);
        Some((ch, cut(&text, self.max_len)))
    }

    fn noisy(&self, t: &Thought) -> bool {
        t.nodes < self.levels.noise
    }

    /// Level 1: a mate the search sees, announced once (again when it changes side
    /// or distance grows into a different mate).
    fn mate(&mut self, root: &Board, t: &Thought, now: Instant, out: &mut Vec<(Channel, String)>) {
        let white = white_score(root, t.score);
        let Some(m) = crate::engine::mate_in(white) else {
            self.mate_said = None;
            return;
        };
        // `mate_in` of a White-view score: positive White mates, negative Black mates.
        let moves = m.abs();
        let winner = if white > 0 { "White" } else { "Black" };
        let key = if white > 0 { moves } else { -moves };
        let same_side = self.mate_said.is_some_and(|s| (s > 0) == (key > 0));
        if same_side && self.mate_said.is_some_and(|s| s.abs() >= moves) {
            // The same mate, counting down: already announced.
            self.mate_said = Some(key);
            return;
        }
        self.mate_said = Some(key);
        if let Some(l) = self.say(1, format!("{winner} mates in {moves}"), now) {
            out.push(l);
        }
    }

    /// After the bot's move (or the end of an observed position's analysis): the
    /// mate announcement and the level 2/3 summary; `book`: the book's candidates
    /// (`e4 45%, d4 35%`) when the move came from the book (level 4).
    pub fn moved(
        &mut self,
        root: &Board,
        t: &Thought,
        book: Option<&str>,
        now: Instant,
    ) -> Vec<(Channel, String)> {
        let mut out = Vec::new();
        if let Some(b) = book {
            if let Some(l) = self.say(4, format!("book: {b}"), now) {
                out.push(l);
            }
            return out;
        }
        if t.depth <= 0 || self.noisy(t) {
            return out;
        }
        self.mate(root, t, now, &mut out);
        let mut line = format!(
            "ply={} eval={} nps={} time={}",
            t.depth,
            format::score(white_score(root, t.score)),
            nps_text(t.nodes, t.time),
            format::time(t.time)
        );
        let level = if self.channel(3).is_some() && !t.pv.is_empty() {
            line.push_str(" | ");
            line.push_str(&format::pv(root, &t.pv, true));
            3
        } else {
            2
        };
        if let Some(l) = self.say(level, line, now) {
            out.push(l);
        }
        out
    }

    /// A finished iteration: the mate announcement, and at level 5 the line
    /// `d18-> 1.01 +0.23 1. Rae1 f5 2. Nf3`.
    pub fn iteration(&mut self, root: &Board, t: &Thought, now: Instant) -> Vec<(Channel, String)> {
        let mut out = Vec::new();
        if self.noisy(t) || t.pv.is_empty() {
            return out;
        }
        self.mate(root, t, now, &mut out);
        if self.iteration_root != Some(root.key()) {
            // A new position: its first iteration is not held back by the gap.
            self.iteration_root = Some(root.key());
            self.last_iteration_at = None;
        }
        let this = (t.score, t.pv.clone());
        if self.last_iteration.as_ref() == Some(&this) {
            return out;
        }
        self.last_iteration = Some(this);
        let line = format!(
            "d{}-> {} {} {}",
            t.depth,
            format::time(t.time),
            format::score(white_score(root, t.score)),
            format::pv(root, &t.pv, true)
        );
        if let Some(l) = self.say(5, line, now) {
            out.push(l);
        }
        out
    }

    /// Inside an iteration (level 6): a new best move (`d18 1.01 +0.23 1. Rae1 f5`),
    /// a fail high (`d18++ 1.01 1. Rae1`) or a fail low (`d18-- 1.01 1. Rae1`).
    pub fn change(
        &mut self,
        root: &Board,
        kind: Change,
        t: &Thought,
        now: Instant,
    ) -> Vec<(Channel, String)> {
        let mut out = Vec::new();
        if self.noisy(t) || t.pv.is_empty() || self.channel(6).is_none() {
            return out;
        }
        let line = match kind {
            Change::NewBest => format!(
                "d{} {} {} {}",
                t.depth,
                format::time(t.time),
                format::score(white_score(root, t.score)),
                format::pv(root, &t.pv, true)
            ),
            Change::FailHigh | Change::FailLow => format!(
                "d{}{} {} {}",
                t.depth,
                if kind == Change::FailHigh { "++" } else { "--" },
                format::time(t.time),
                format::pv(root, &t.pv[..1], true)
            ),
        };
        if let Some(l) = self.say(6, line, now) {
            out.push(l);
        }
        out
    }
}

/// The candidates of a `book moves {e4 45%, d4 35%}: book move e4` note, if it is one.
pub fn book_note(note: &str) -> Option<String> {
    let rest = note.strip_prefix("book moves {")?;
    let (list, _) = rest.split_once('}')?;
    Some(list.to_string())
}

/// The engine's name for greetings: the external engine's program file name
/// (`engine.command`), else our own name and version.
pub fn engine_name(opts: &crate::options::Options) -> String {
    let cmd = opts.str("engine.command").trim();
    match std::path::Path::new(cmd).file_name() {
        Some(f) if !cmd.is_empty() => f.to_string_lossy().into_owned(),
        _ => format!("kibitzer {}", env!("CARGO_PKG_VERSION")),
    }
}

/// A greeting or farewell with `{me}`, `{opponent}` and `{engine}` filled in (in
/// one pass: a name is never read as a placeholder); any other `{...}` stays.
pub fn fill(text: &str, me: &str, opponent: &str, engine: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let hit = [("{me}", me), ("{opponent}", opponent), ("{engine}", engine)]
            .into_iter()
            .find(|(k, _)| tail.starts_with(k));
        match hit {
            Some((k, v)) => {
                out.push_str(v);
                rest = &tail[k.len()..];
            }
            None => {
                out.push('{');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod greeting_tests {
    use super::*;

    #[test]
    fn greetings_fill_their_placeholders_once() {
        assert_eq!(
            fill(
                "Hi {opponent}, I am {me} ({engine}). {x} {",
                "Kib",
                "Bob",
                "kibitzer 0.1.0"
            ),
            "Hi Bob, I am Kib (kibitzer 0.1.0). {x} {"
        );
        assert_eq!(
            fill("{me}", "{opponent}", "Bob", "e"),
            "{opponent}",
            "one pass"
        );
        let mut o = crate::options::Options::new();
        assert!(engine_name(&o).starts_with("kibitzer "));
        o.set("engine.command", "/usr/games/stockfish").unwrap();
        assert_eq!(engine_name(&o), "stockfish");
    }
}
