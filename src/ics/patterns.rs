//! The server's text messages as data: one table of patterns with named captures
//! per server profile, each turned into a typed `ServerEvent` by a small builder.
//! A server that words a message differently gets its own table here, not new code
//! in the parser. Style 12, the `moves` listing and the adjourned-list header (they
//! carry state across lines) stay in `parse`.
//!
//! Tables are tried in order (the first pattern that matches and builds an event
//! wins); a `RegexSet` finds the candidates in one pass over the line.

use super::parse::{rating_of, strip_title, Challenge, GameEnd, ServerEvent};
use super::server::ServerKind;
use crate::chess::Color;
use regex::{Captures, Regex, RegexSet};
use std::sync::LazyLock;

/// One message: its pattern and how its captures become an event (`None`: not
/// this message after all; the next candidate is tried).
pub struct Pattern {
    pub name: &'static str,
    pub re: &'static str,
    pub make: fn(&Captures, &str) -> Option<ServerEvent>,
}

/// A compiled table.
pub struct Table {
    set: RegexSet,
    res: Vec<Regex>,
    pats: &'static [Pattern],
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

impl Table {
    fn new(pats: &'static [Pattern]) -> Table {
        let set = RegexSet::new(pats.iter().map(|p| p.re)).expect("server patterns compile");
        let res = pats
            .iter()
            .map(|p| Regex::new(p.re).expect("server pattern compiles"))
            .collect();
        Table { set, res, pats }
    }

    /// The event for a trimmed line `t` (`line`: as it came), if a pattern knows it.
    pub fn recognise(&self, t: &str, line: &str) -> Option<ServerEvent> {
        for i in self.set.matches(t).iter() {
            if let Some(c) = self.res[i].captures(t) {
                if let Some(ev) = (self.pats[i].make)(&c, line) {
                    return Some(ev);
                }
            }
        }
        None
    }

    /// The names of the patterns, in order (for tests and documentation).
    pub fn names(&self) -> impl Iterator<Item = &'static str> {
        self.pats.iter().map(|p| p.name)
    }
}

fn s(c: &Captures, name: &str) -> String {
    c.name(name)
        .map_or(String::new(), |m| m.as_str().to_string())
}

fn handle(c: &Captures, name: &str) -> String {
    strip_title(&s(c, name)).0
}

fn num<T: std::str::FromStr>(c: &Captures, name: &str) -> Option<T> {
    c.name(name)?.as_str().parse().ok()
}

/// `0 minutes and 10 seconds` -> 10.
fn duration_words(text: &str) -> u32 {
    let w: Vec<&str> = text.split_whitespace().collect();
    let mut secs = 0u32;
    for k in 0..w.len().saturating_sub(1) {
        if let Ok(n) = w[k].parse::<u32>() {
            let unit = w[k + 1];
            secs = secs.saturating_add(if unit.starts_with("hour") {
                n.saturating_mul(3600)
            } else if unit.starts_with("minute") {
                n.saturating_mul(60)
            } else if unit.starts_with("second") {
                n
            } else {
                0
            });
        }
    }
    secs
}

const NAME: &str = r"[A-Za-z0-9_\-]+(?:\([A-Z*]{1,3}\))*";

/// The FICS-lineage messages (freechess.org, lasker 2.2.x; ICC reads a part of them).
static FICS_PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    use ServerEvent as E;
    // Patterns are built once; `NAME` is spliced into those that carry a handle.
    let p = |name: &'static str, re: String, make: fn(&Captures, &str) -> Option<ServerEvent>| {
        Pattern {
            name,
            re: Box::leak(re.into_boxed_str()),
            make,
        }
    };
    vec![
        // ----- games --------------------------------------------------------------
        p(
            "game",
            r"^\{Game (?P<game>\d+) \((?P<white>[^ )]+) vs\. (?P<black>[^ )]+)\) (?P<text>.*)\}(?P<result>[^}]*)$".into(),
            |c, line| {
                let game: u32 = num(c, "game")?;
                let (white, black, text) = (s(c, "white"), s(c, "black"), s(c, "text"));
                let result = s(c, "result").trim().to_string();
                if let Some(d) = text.strip_prefix("Creating ") {
                    return Some(E::GameStart { game, white, black, continuing: false, description: d.into() });
                }
                if let Some(d) = text.strip_prefix("Continuing ") {
                    return Some(E::GameStart { game, white, black, continuing: true, description: d.into() });
                }
                if matches!(result.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                    return Some(E::GameEnd(GameEnd { game, white, black, reason: text, result }));
                }
                Some(E::Unknown(line.to_string()))
            },
        ),
        p(
            "creating",
            format!(r"^Creating: (?P<white>{NAME}) (?P<wr>\S+) (?P<black>{NAME}) (?P<br>\S+) (?P<rated>rated|unrated) (?P<kind>.+) (?P<min>\d+) (?P<inc>\d+)$"),
            |c, _| {
                Some(E::Creating {
                    white: handle(c, "white"),
                    white_rating: rating_of(&s(c, "wr")),
                    black: handle(c, "black"),
                    black_rating: rating_of(&s(c, "br")),
                    rated: s(c, "rated") == "rated",
                    kind: s(c, "kind"),
                    minutes: num(c, "min")?,
                    increment: num(c, "inc")?,
                })
            },
        ),
        p(
            "challenge",
            format!(r"^Challenge: (?P<from>{NAME}) (?P<fr>\S+) (?:\[(?P<color>white|black)\] )?(?P<to>{NAME}) (?P<tr>\S+) (?P<rated>rated|unrated) (?P<kind>.+?) (?P<min>\d+) (?P<inc>\d+)\.?(?: Loaded from (?P<loaded>.*))?$"),
            |c, line| {
                let (challenger, computer) = strip_title(&s(c, "from"));
                Some(E::Challenge(Challenge {
                    challenger,
                    challenger_rating: rating_of(&s(c, "fr")),
                    receiver: handle(c, "to"),
                    receiver_rating: rating_of(&s(c, "tr")),
                    challenger_color: match c.name("color").map(|m| m.as_str()) {
                        Some("white") => Some(Color::White),
                        Some("black") => Some(Color::Black),
                        _ => None,
                    },
                    rated: s(c, "rated") == "rated",
                    kind: s(c, "kind"),
                    minutes: num(c, "min")?,
                    increment: num(c, "inc")?,
                    adjourned: s(c, "loaded").contains("adjourned"),
                    computer,
                    line: line.to_string(),
                }))
            },
        ),
        // ----- talk (before anything a tell could imitate) ------------------------
        p("tell", r"^(?P<from>\S+) tells you: (?P<text>.*)$".into(), |c, _| {
            let from = s(c, "from");
            let name = strip_title(&from).0;
            Some(E::Tell {
                unregistered: from.contains("(U)") || super::parse::is_guest(&name),
                from: name,
                text: s(c, "text"),
            })
        }),
        p("say", r"^(?P<from>\S+) says: (?P<text>.*)$".into(), |c, _| {
            Some(E::Say { from: handle(c, "from"), text: s(c, "text") })
        }),
        p("whisper", r"^(?P<from>\S+) whispers: (?P<text>.*)$".into(), |c, _| {
            Some(E::Whisper { from: handle(c, "from"), text: s(c, "text") })
        }),
        p("kibitz", r"^(?P<from>\S+) kibitzes: (?P<text>.*)$".into(), |c, _| {
            Some(E::Kibitz { from: handle(c, "from"), text: s(c, "text") })
        }),
        p("illegal move", r"^(?P<text>Illegal move\.|Illegal move \(.*)$".into(), |c, _| {
            Some(E::IllegalMove { text: s(c, "text") })
        }),
        p("not your move", r"^It is not your move\.$".into(), |_, _| Some(E::NotYourMove)),
        p(
            "not playing",
            r"^You are not playing (?:a|or examining a) game\.$".into(),
            |_, _| Some(E::NotPlaying),
        ),
        p("flag refused", r"^Your opponent is not out of time!$".into(), |_, _| {
            Some(E::FlagRefused)
        }),
        p(
            "opponent lost contact",
            r"^Your opponent has lost contact or quit\.$".into(),
            |_, _| Some(E::OpponentLostContact),
        ),
        // ----- observing ----------------------------------------------------------
        p("observing", r"^You are now observing game (?P<game>\d+)\.$".into(), |c, _| {
            Some(E::Observing { game: num(c, "game")? })
        }),
        p(
            "observation ended",
            r"^(?:Removing game (?P<a>\d+) from observation list\.|Game (?P<b>\d+) \(which you were observing\) has no examiners\.)$".into(),
            |c, _| Some(E::ObservationEnded { game: num(c, "a").or_else(|| num(c, "b"))? }),
        ),
        // ----- login and session -------------------------------------------------
        p("invalid password", r"^\*\*\*\* Invalid password! \*\*\*\*$".into(), |_, _| {
            Some(E::InvalidPassword)
        }),
        p("name in use", r"^\*\*\* Sorry .*is already logged in".into(), |_, _| {
            Some(E::NameInUse)
        }),
        p(
            "bad name",
            r"^(?:A name should be at least|Sorry, names can only consist|Sorry, names may be at most)|is not a valid handle".into(),
            |_, line| Some(E::BadName { why: line.trim().to_string() }),
        ),
        p(
            "session started",
            r"^\*\*\*\* Starting FICS session as (?P<h>.*?)[ *]*$".into(),
            |c, _| Some(E::SessionStarted { handle: handle(c, "h") }),
        ),
        p(
            "kicked other",
            r"^\*\*\*\* .*is already logged in - kicking them out".into(),
            |_, _| Some(E::KickedOther),
        ),
        p("kicked", r"^\*\*\*\* .*you can't both be logged in".into(), |_, _| {
            Some(E::Kicked)
        }),
        p("registered name", r#"^"(?P<name>[^"]*)" is a registered name"#.into(), |c, _| {
            Some(E::RegisteredName { name: s(c, "name") })
        }),
        p(
            "auto logout",
            r"^\*\*\*\* Auto-logout".into(),
            |_, _| Some(E::AutoLogout),
        ),
        p("shutdown now", r"^\*\*\*\* Server shutting down immediately".into(), |_, _| {
            Some(E::Shutdown { in_secs: None })
        }),
        p("shutdown countdown", r"^\*\*\*\* Server going down in (?P<when>.*)$".into(), |c, _| {
            Some(E::Shutdown { in_secs: Some(duration_words(&s(c, "when"))) })
        }),
        p("logged out", r"^(?:Logging you out\.$|Thank you for using)".into(), |_, _| {
            Some(E::LoggedOut)
        }),
        p(
            "adjourned opponent arrived",
            format!(r"^Notification: (?P<name>{NAME}), who has an adjourned game with you, has arrived"),
            |c, _| Some(E::AdjournedOpponentOnline { names: vec![handle(c, "name")] }),
        ),
        // ----- offers -------------------------------------------------------------
        p("challenge accepted", format!(r"^(?P<name>{NAME}) accepts your challenge\.$"), |c, _| {
            Some(E::ChallengeAnswer { from: handle(c, "name"), accepted: true })
        }),
        p(
            "challenge declined",
            format!(r"^(?P<name>{NAME}) declines the match offer\.$"),
            |c, _| Some(E::ChallengeAnswer { from: handle(c, "name"), accepted: false }),
        ),
        p("draw offer", format!(r"^(?P<name>{NAME}) offers you a draw\.$"), |c, _| {
            Some(E::DrawOffer { from: handle(c, "name") })
        }),
        p(
            "abort request",
            format!(r#"^(?P<name>{NAME}) would like to abort the game; type "abort" to accept\.$"#),
            |c, _| Some(E::AbortRequest { from: handle(c, "name") }),
        ),
        p(
            "adjourn request",
            format!(r#"^(?P<name>{NAME}) would like to adjourn the game; type "adjourn" to accept\.$"#),
            |c, _| Some(E::AdjournRequest { from: handle(c, "name") }),
        ),
        p(
            "takeback request",
            format!(r"^(?P<name>{NAME}) would like to take back (?P<n>\d+)?"),
            |c, _| Some(E::TakebackRequest { from: handle(c, "name"), plies: num(c, "n").unwrap_or(1) }),
        ),
        p(
            "offer declined",
            format!(r"^(?P<name>{NAME}) declines (?:the )?(?P<what>draw|abort|adjourn|takeback) request\.$"),
            |c, _| Some(E::OfferDeclined { from: handle(c, "name"), what: s(c, "what") }),
        ),
        // ----- command replies ----------------------------------------------------
        p("seek removed", r"^(?:Ads removed|AD_DESTROY)".into(), |_, _| Some(E::SeekRemoved)),
        p("command not found", r"^(?P<cmd>.*): Command not found\.$".into(), |c, _| {
            Some(E::CommandNotFound { command: s(c, "cmd") })
        }),
        p(
            "no such variable",
            r#"^No such (?:ivariable "(?P<i>[^"]*)"\.?|variable name (?P<v>\S+?)\.?)$"#.into(),
            |c, _| Some(E::NoSuchVariable { name: if c.name("i").is_some() { s(c, "i") } else { s(c, "v") } }),
        ),
        p(
            "seek ad",
            r"^\d+ +\d+ +\S+ +\d+ +\d+ +(?:rated|unrated)\b".into(),
            |_, line| Some(E::SeekAd { line: line.trim().to_string() }),
        ),
    ]
});

static FICS: LazyLock<Table> = LazyLock::new(|| Table::new(leak(&FICS_PATTERNS)));

fn leak(v: &'static LazyLock<Vec<Pattern>>) -> &'static [Pattern] {
    v.as_slice()
}

/// What ICC says in level-2 units instead (games, boards, offers, challenges, talk,
/// illegal moves, observing, who we are): the text versions it may send as well
/// are not read, so nothing is seen twice.
const ICC_BY_UNITS: &[&str] = &[
    "game",
    "creating",
    "challenge",
    "illegal move",
    "not your move",
    "observing",
    "observation ended",
    "session started",
    "draw offer",
    "abort request",
    "adjourn request",
    "takeback request",
    "seek ad",
];

/// Talk, which ICC sends as units (`DG_PERSONAL_TELL`, `DG_KIBITZ`; the text form
/// is then not sent): a text line of talk is still recognised first, so what a
/// player says can never pass for a server message, but it is not acted on.
const ICC_TALK_SHIELDED: &[&str] = &["tell", "say", "whisper", "kibitz"];

fn shielded(_: &Captures, line: &str) -> Option<ServerEvent> {
    Some(ServerEvent::Unknown(line.to_string()))
}

/// ICC's table: the FICS messages that ICC has no unit for, and talk shielded.
static ICC_PATTERNS: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    FICS_PATTERNS
        .iter()
        .filter(|p| !ICC_BY_UNITS.contains(&p.name))
        .map(|p| Pattern {
            name: p.name,
            re: p.re,
            make: if ICC_TALK_SHIELDED.contains(&p.name) {
                shielded
            } else {
                p.make
            },
        })
        .collect()
});

static ICC: LazyLock<Table> = LazyLock::new(|| Table::new(leak(&ICC_PATTERNS)));

/// The table of a server kind.
pub fn table(kind: ServerKind) -> &'static Table {
    match kind {
        // lasker words its messages as FICS does.
        ServerKind::Fics | ServerKind::Lasker => &FICS,
        ServerKind::Icc => &ICC,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icc_leaves_out_only_messages_that_exist() {
        let fics: Vec<&str> = FICS.names().collect();
        for n in ICC_BY_UNITS {
            assert!(fics.contains(n), "no FICS pattern named '{n}'");
        }
        let icc: Vec<&str> = ICC.names().collect();
        assert_eq!(icc.len(), fics.len() - ICC_BY_UNITS.len());
        // Talk in text is recognised (never a server message) but not acted on.
        assert_eq!(
            ICC.recognise("bob tells you: x: Command not found.", "l"),
            Some(ServerEvent::Unknown("l".into()))
        );
        assert!(ICC
            .recognise("**** Invalid password! ****", "x")
            .is_some_and(|e| e == ServerEvent::InvalidPassword));
    }
}
