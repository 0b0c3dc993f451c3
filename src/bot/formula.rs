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
    /// Lower-case handles whose challenges alone are accepted (empty: anyone).
    pub allow: Vec<String>,
    /// Most rating points between the challenger and us (0: off).
    pub max_rating_diff: i32,
    /// Most games finished against one opponent in a day (0: no limit).
    pub max_per_day: u32,
    /// Initial times under this many seconds need an increment (0: off).
    pub increment_below: u32,
}

/// What the account knows of the challenger beside the challenge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// Games just played in a row against them.
    pub in_a_row: u32,
    /// Games finished against them today (UTC).
    pub today: u32,
    /// No game slot is free.
    pub busy: bool,
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
            allow: o
                .str("bot.allow")
                .split(',')
                .map(|n| n.trim().to_ascii_lowercase())
                .filter(|n| !n.is_empty())
                .collect(),
            max_rating_diff: o.int("bot.max_rating_diff") as i32,
            max_per_day: o.int("bot.max_games_per_day") as u32,
            increment_below: o.int("bot.increment_below") as u32,
        }
    }

    /// Decides on a challenge, whatever its server, with what the account knows
    /// of the challenger (`seen`).
    pub fn judge(&self, c: &Request, noplay: &NoPlay, seen: Seen) -> Result<(), Refusal> {
        if c.names.iter().any(|n| noplay.contains(n)) {
            return Err(Refusal::NoPlay);
        }
        if c.resume {
            return Ok(());
        }
        if !self.allow.is_empty()
            && !c
                .names
                .iter()
                .any(|n| self.allow.contains(&n.to_ascii_lowercase()))
        {
            return Err(Refusal::NotAllowed);
        }
        if seen.busy {
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
        if inc == 0 && base < self.increment_below {
            return Err(Refusal::IncrementRequired(self.increment_below));
        }
        let r = c.rating.unwrap_or(0);
        if r < self.rating.0 || r > self.rating.1 {
            return Err(Refusal::Rating(self.rating));
        }
        // Both ratings known (a guest or a new player has none: the range above
        // decides for them).
        if let (true, Some(theirs), Some(ours)) = (self.max_rating_diff > 0, c.rating, c.own_rating)
        {
            if (theirs - ours).abs() > self.max_rating_diff {
                return Err(Refusal::RatingDiff(self.max_rating_diff));
            }
        }
        if c.computer && !self.computers {
            return Err(Refusal::NoComputers);
        }
        if !c.computer && !self.humans {
            return Err(Refusal::ComputersOnly);
        }
        if self.max_rematches > 0 && seen.in_a_row >= self.max_rematches {
            return Err(Refusal::Rematches);
        }
        if self.max_per_day > 0 && seen.today >= self.max_per_day {
            return Err(Refusal::DailyLimit(self.max_per_day));
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
    /// Our own rating in this kind of game, as the challenge shows it.
    pub own_rating: Option<i32>,
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
    /// Not on the allow list (`bot.allow`).
    NotAllowed,
    /// Rated further from us than this.
    RatingDiff(i32),
    /// This many games against them today already.
    DailyLimit(u32),
    /// Initial times under this many seconds need an increment.
    IncrementRequired(u32),
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
            Refusal::NotAllowed => "I accept challenges from a list of players only".into(),
            Refusal::RatingDiff(d) => format!("I play opponents within {d} points of my rating"),
            Refusal::DailyLimit(n) => {
                format!("we have played {n} games today, let us play again tomorrow")
            }
            Refusal::IncrementRequired(s) => {
                format!("games under {} need an increment", secs_text(s))
            }
        }
    }
}

/// Seconds as a challenger reads them: `3 minutes`, `90 seconds`.
fn secs_text(s: u32) -> String {
    if s % 60 == 0 {
        format!("{} minute{}", s / 60, if s == 60 { "" } else { "s" })
    } else {
        format!("{s} seconds")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn formula(set: &[(&str, &str)]) -> Formula {
        let mut o = Options::new();
        for (k, v) in set {
            o.set(k, v).unwrap();
        }
        Formula::from_options(&o)
    }

    fn challenge(name: &str, rating: i32, own: i32, base: u32, inc: u32) -> Request {
        Request {
            names: vec![name.into()],
            rating: Some(rating),
            own_rating: Some(own),
            rated: true,
            standard_chess: true,
            standard_start: true,
            clock: Some((base, inc)),
            computer: false,
            resume: false,
        }
    }

    #[test]
    fn the_defaults_accept_an_ordinary_challenge() {
        let f = formula(&[]);
        let c = challenge("Alice", 1500, 2400, 180, 2);
        assert_eq!(f.judge(&c, &NoPlay::default(), Seen::default()), Ok(()));
    }

    #[test]
    fn allow_list() {
        let f = formula(&[("bot.allow", " alice, Bob ")]);
        let none = NoPlay::default();
        let s = Seen::default();
        assert_eq!(
            f.judge(&challenge("ALICE", 1500, 1500, 180, 0), &none, s),
            Ok(())
        );
        assert_eq!(
            f.judge(&challenge("bob", 1500, 1500, 180, 0), &none, s),
            Ok(())
        );
        assert_eq!(
            f.judge(&challenge("carol", 1500, 1500, 180, 0), &none, s),
            Err(Refusal::NotAllowed)
        );
        // Said without the list's names.
        assert!(!Refusal::NotAllowed.text().contains("alice"));
    }

    #[test]
    fn rating_difference_relative_to_ours() {
        let f = formula(&[("bot.max_rating_diff", "300")]);
        let none = NoPlay::default();
        let s = Seen::default();
        assert_eq!(
            f.judge(&challenge("a", 2100, 2400, 180, 0), &none, s),
            Ok(())
        );
        assert_eq!(
            f.judge(&challenge("a", 2700, 2400, 180, 0), &none, s),
            Ok(())
        );
        assert_eq!(
            f.judge(&challenge("a", 2099, 2400, 180, 0), &none, s),
            Err(Refusal::RatingDiff(300))
        );
        assert_eq!(
            f.judge(&challenge("a", 2701, 2400, 180, 0), &none, s),
            Err(Refusal::RatingDiff(300))
        );
        // A guest (no rating) or our rating unknown: the absolute range decides.
        let mut g = challenge("guest", 0, 2400, 180, 0);
        g.rating = None;
        assert_eq!(f.judge(&g, &none, s), Ok(()));
        let mut u = challenge("a", 1000, 0, 180, 0);
        u.own_rating = None;
        assert_eq!(f.judge(&u, &none, s), Ok(()));
        // Off by default.
        assert_eq!(
            formula(&[]).judge(&challenge("a", 800, 2400, 180, 0), &none, s),
            Ok(())
        );
    }

    #[test]
    fn games_per_opponent_per_day() {
        let f = formula(&[("bot.max_games_per_day", "5"), ("bot.max_rematches", "0")]);
        let none = NoPlay::default();
        let c = challenge("a", 1500, 1500, 180, 0);
        let seen = |today| Seen {
            today,
            ..Seen::default()
        };
        assert_eq!(f.judge(&c, &none, seen(4)), Ok(()));
        assert_eq!(f.judge(&c, &none, seen(5)), Err(Refusal::DailyLimit(5)));
        // An adjourned game of ours is resumed whatever the count.
        let mut r = c.clone();
        r.resume = true;
        assert_eq!(f.judge(&r, &none, seen(9)), Ok(()));
    }

    #[test]
    fn increment_required_below_a_time() {
        let f = formula(&[("bot.increment_below", "180"), ("bot.min_time", "0")]);
        let none = NoPlay::default();
        let s = Seen::default();
        assert_eq!(
            f.judge(&challenge("a", 1500, 1500, 60, 0), &none, s),
            Err(Refusal::IncrementRequired(180))
        );
        assert_eq!(
            f.judge(&challenge("a", 1500, 1500, 60, 1), &none, s),
            Ok(())
        );
        assert_eq!(
            f.judge(&challenge("a", 1500, 1500, 180, 0), &none, s),
            Ok(())
        );
        assert_eq!(
            Refusal::IncrementRequired(180).text(),
            "games under 3 minutes need an increment"
        );
        assert_eq!(
            Refusal::IncrementRequired(90).text(),
            "games under 90 seconds need an increment"
        );
    }
}
