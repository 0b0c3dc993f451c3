//! Which challenges to accept, on every server: a formula over the challenge
//! (`Request`: rated or not, time and increment ranges, the challenger's rating,
//! computer or human, standard chess only), the noplay list, the free slots and the
//! rematch limit. Our own adjourned games are always resumed. A decline carries its
//! `Refusal`: a few words for a polite tell on an ICS, Lichess's decline reason
//! there.

use crate::options::Options;
use std::collections::HashSet;
use std::path::PathBuf;

/// The decision on a challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Decline(String),
}

/// As the log says it: `accepted`, `declined: <why>`.
impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Accept => f.write_str("accepted"),
            Verdict::Decline(why) => write!(f, "declined: {why}"),
        }
    }
}

/// Opponents never played (lower-case handles), kept in a file.
#[derive(Clone, Debug, Default)]
pub struct NoPlay {
    pub path: Option<PathBuf>,
    names: HashSet<String>,
}

impl NoPlay {
    /// Reads the list (a missing file is an empty list). `#` starts a comment.
    pub fn load(path: Option<PathBuf>) -> NoPlay {
        let mut names = HashSet::new();
        if let Some(p) = &path {
            if let Ok(text) = std::fs::read_to_string(p) {
                for line in text.lines() {
                    let n = line.split('#').next().unwrap_or("").trim();
                    if !n.is_empty() {
                        names.insert(n.to_ascii_lowercase());
                    }
                }
            }
        }
        NoPlay { path, names }
    }

    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(&name.to_ascii_lowercase())
    }

    /// Adds a name and appends it to the file.
    pub fn add(&mut self, name: &str, why: &str) -> std::io::Result<()> {
        if !self.names.insert(name.to_ascii_lowercase()) {
            return Ok(());
        }
        if let Some(p) = &self.path {
            use std::io::Write;
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)?;
            }
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)?;
            writeln!(f, "{name} # {why}")?;
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The accept formula, read from the options.
#[derive(Clone, Debug)]
pub struct Formula {
    pub accept: bool,
    pub rated: String,
    pub time: (u32, u32),
    pub inc: (u32, u32),
    pub rating: (i32, i32),
    pub humans: bool,
    pub computers: bool,
    pub max_rematches: u32,
}

impl Formula {
    pub fn from_options(o: &Options) -> Formula {
        Formula {
            accept: o.bool("bot.accept"),
            rated: o.str("bot.rated").to_string(),
            time: (o.int("bot.min_time") as u32, o.int("bot.max_time") as u32),
            inc: (o.int("bot.min_inc") as u32, o.int("bot.max_inc") as u32),
            rating: (
                o.int("bot.min_rating") as i32,
                o.int("bot.max_rating") as i32,
            ),
            humans: o.bool("bot.humans"),
            computers: o.bool("bot.computers"),
            max_rematches: o.int("bot.max_rematches") as u32,
        }
    }

    /// Decides on a challenge, whatever its server; `in_a_row`: games just
    /// played in a row against this player; `busy`: no slot is free.
    pub fn judge(
        &self,
        c: &Request,
        noplay: &NoPlay,
        in_a_row: u32,
        busy: bool,
    ) -> Result<(), Refusal> {
        if c.names.iter().any(|n| noplay.contains(n)) {
            return Err(Refusal::NoPlay);
        }
        if c.resume {
            return Ok(());
        }
        if busy {
            return Err(Refusal::Busy);
        }
        if !self.accept {
            return Err(Refusal::NotAccepting);
        }
        if !c.standard_chess {
            return Err(Refusal::Variant);
        }
        if !c.standard_start {
            return Err(Refusal::SetUpPosition);
        }
        let Some((base, inc)) = c.clock else {
            return Err(Refusal::Untimed);
        };
        match (self.rated.as_str(), c.rated) {
            ("rated", false) => return Err(Refusal::RatedOnly),
            ("unrated", true) => return Err(Refusal::UnratedOnly),
            _ => {}
        }
        if base < self.time.0 * 60 {
            return Err(Refusal::TooFast(self.time));
        }
        if base > self.time.1 * 60 {
            return Err(Refusal::TooSlow(self.time));
        }
        if inc < self.inc.0 || inc > self.inc.1 {
            return Err(Refusal::Increment(self.inc));
        }
        if base == 0 && inc == 0 {
            return Err(Refusal::Untimed);
        }
        let r = c.rating.unwrap_or(0);
        if r < self.rating.0 || r > self.rating.1 {
            return Err(Refusal::Rating(self.rating));
        }
        if c.computer && !self.computers {
            return Err(Refusal::NoComputers);
        }
        if !c.computer && !self.humans {
            return Err(Refusal::ComputersOnly);
        }
        if self.max_rematches > 0 && in_a_row >= self.max_rematches {
            return Err(Refusal::Rematches);
        }
        Ok(())
    }
}

/// A challenge as the formula reads it, from any server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The challenger's names (handle; on Lichess its id and its name), for the
    /// noplay list.
    pub names: Vec<String>,
    pub rating: Option<i32>,
    pub rated: bool,
    /// Standard chess (no variant).
    pub standard_chess: bool,
    /// From the standard start position.
    pub standard_start: bool,
    /// Initial time and increment in seconds; `None` for a game without a clock
    /// (correspondence, unlimited).
    pub clock: Option<(u32, u32)>,
    /// The challenger is a computer (the server's title, or our C list).
    pub computer: bool,
    /// Our own adjourned game: always resumed (unless the opponent is on the
    /// noplay list).
    pub resume: bool,
}

/// Why a challenge is declined: said politely on an ICS (`text`), mapped to the
/// server's own reasons on Lichess.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    NoPlay,
    Busy,
    NotAccepting,
    ShuttingDown,
    /// The external engine is being started again after faults.
    EngineDown,
    Variant,
    SetUpPosition,
    Untimed,
    RatedOnly,
    UnratedOnly,
    /// The initial time is under the range (minutes).
    TooFast((u32, u32)),
    /// The initial time is over the range (minutes).
    TooSlow((u32, u32)),
    /// The increment is outside the range (seconds).
    Increment((u32, u32)),
    Rating((i32, i32)),
    NoComputers,
    ComputersOnly,
    Rematches,
}

impl Refusal {
    /// The reason in a few words, for a polite tell.
    pub fn text(self) -> String {
        match self {
            Refusal::NoPlay => "you are on my noplay list".into(),
            Refusal::Busy => "I am playing a game, try again later".into(),
            Refusal::NotAccepting => "I am not accepting challenges now".into(),
            Refusal::ShuttingDown => "I am shutting down".into(),
            Refusal::EngineDown => "my engine is being restarted, try again in a minute".into(),
            Refusal::Variant => "I play standard chess only".into(),
            Refusal::SetUpPosition => "I play from the standard start only".into(),
            Refusal::Untimed => "I do not play untimed games".into(),
            Refusal::RatedOnly => "I play rated games only".into(),
            Refusal::UnratedOnly => "I play unrated games only".into(),
            Refusal::TooFast((a, b)) | Refusal::TooSlow((a, b)) => {
                format!("I play {a}-{b} minute games")
            }
            Refusal::Increment((a, b)) => format!("I play increments of {a}-{b} seconds"),
            Refusal::Rating((a, b)) => format!("I play opponents rated {a}-{b}"),
            Refusal::NoComputers => "I do not play computers".into(),
            Refusal::ComputersOnly => "I play computers only".into(),
            Refusal::Rematches => {
                "we have played enough games in a row, let others have a turn".into()
            }
        }
    }
}
