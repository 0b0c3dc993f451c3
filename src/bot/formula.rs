//! Which challenges to accept: a formula over the challenge (rated or not, time and
//! increment ranges, the challenger's rating, computer or human, standard chess
//! only), the noplay list and the rematch limit. Our own adjourned games are always
//! resumed. Declines carry a short reason for a polite tell.

use crate::ics::Challenge;
use crate::options::Options;
use std::collections::HashSet;
use std::path::PathBuf;

/// The decision on a challenge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Accept,
    Decline(String),
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

    /// Decides on `c`; `in_a_row`: games just played in a row against this player.
    pub fn judge(&self, c: &Challenge, noplay: &NoPlay, in_a_row: u32, busy: bool) -> Verdict {
        let no = |s: &str| Verdict::Decline(s.to_string());
        if noplay.contains(&c.challenger) {
            return no("you are on my noplay list");
        }
        if c.adjourned {
            return Verdict::Accept;
        }
        if busy {
            return no("I am playing a game, try again later");
        }
        if !self.accept {
            return no("I am not accepting challenges now");
        }
        let standard = matches!(
            c.kind.as_str(),
            "blitz" | "lightning" | "standard" | "bullet" | "rapid" | "untimed"
        );
        if !standard {
            return no("I play standard chess only");
        }
        match (self.rated.as_str(), c.rated) {
            ("rated", false) => return no("I play rated games only"),
            ("unrated", true) => return no("I play unrated games only"),
            _ => {}
        }
        if c.minutes < self.time.0 || c.minutes > self.time.1 {
            return Verdict::Decline(format!(
                "I play {}-{} minute games",
                self.time.0, self.time.1
            ));
        }
        if c.increment < self.inc.0 || c.increment > self.inc.1 {
            return Verdict::Decline(format!(
                "I play increments of {}-{} seconds",
                self.inc.0, self.inc.1
            ));
        }
        if c.minutes == 0 && c.increment == 0 {
            return no("I do not play untimed games");
        }
        let r = c.challenger_rating.unwrap_or(0);
        if r < self.rating.0 || r > self.rating.1 {
            return Verdict::Decline(format!(
                "I play opponents rated {}-{}",
                self.rating.0, self.rating.1
            ));
        }
        if c.computer && !self.computers {
            return no("I do not play computers");
        }
        if !c.computer && !self.humans {
            return no("I play computers only");
        }
        if self.max_rematches > 0 && in_a_row >= self.max_rematches {
            return no("we have played enough games in a row, let others have a turn");
        }
        Verdict::Accept
    }
}
