//! Server differences, all in one place. FICS (freechess.org) is the reference;
//! the lasker 2.2.x server (a FICS descendant, the one the shared transcripts were
//! recorded on) lacks some variables; ICC speaks a FICS-like dialect with its own
//! prompt and is untested. What a server does not know it answers with an error
//! line, which the session logs and ignores, so sending a setting a server lacks is
//! harmless.

use crate::ics::command::ServerCommand;
use crate::ics::parse::ClockUnit;
use std::time::Duration;

/// Which server family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    Fics,
    /// Internet Chess Club. Untested.
    Icc,
    /// lasker 2.2.x chessd and other FICS clones.
    Lasker,
}

impl ServerKind {
    /// From the configuration word (`auto` decides by host name).
    pub fn from_config(word: &str, host: &str) -> ServerKind {
        match word.trim().to_ascii_lowercase().as_str() {
            "fics" => ServerKind::Fics,
            "icc" => ServerKind::Icc,
            "lasker" => ServerKind::Lasker,
            _ => {
                let h = host.to_ascii_lowercase();
                if h.ends_with("freechess.org") {
                    ServerKind::Fics
                } else if h.ends_with("chessclub.com") {
                    ServerKind::Icc
                } else {
                    ServerKind::Lasker
                }
            }
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ServerKind::Fics => "FICS",
            ServerKind::Icc => "ICC",
            ServerKind::Lasker => "lasker",
        }
    }
}

/// What the daemon needs to know about a server.
#[derive(Clone, Debug)]
pub struct ServerProfile {
    pub kind: ServerKind,
    /// The shell prompt.
    pub prompt: &'static str,
    /// The login name that asks for a guest account.
    pub guest_login: &'static str,
    /// The server flags a player whose time runs out by itself.
    pub autoflag: bool,
    /// How the style-12 clocks are counted after our set-up (`iset ms 1`).
    pub clock_unit: Option<ClockUnit>,
    /// The server logs idle players out after this long.
    pub idle_logout: Duration,
    /// The character that separates commands on one input line (`;` on every
    /// FICS-lineage server): never sent inside free text.
    pub separator: Option<char>,
    /// The longest free text sent in one command, in bytes.
    pub max_text: usize,
    /// Commands this server does not have (it answers `Command not found.`).
    pub lacks: &'static [&'static str],
    /// The server reads FICS timeseal (ICC has a timestamp protocol of its own,
    /// which kibitzer does not speak: there the connection is plain).
    pub timeseal: bool,
}

impl ServerProfile {
    pub fn new(kind: ServerKind) -> ServerProfile {
        match kind {
            ServerKind::Fics => ServerProfile {
                kind,
                prompt: "fics% ",
                guest_login: "guest",
                autoflag: true,
                clock_unit: Some(ClockUnit::Millis),
                idle_logout: Duration::from_secs(60 * 60),
                separator: Some(';'),
                max_text: 400,
                lacks: &[],
                timeseal: true,
            },
            ServerKind::Icc => ServerProfile {
                kind,
                prompt: "aics% ",
                guest_login: "guest",
                // Not known to end a game on time by itself: we send `flag`.
                autoflag: false,
                // Boards are built from DG_MSEC: milliseconds.
                clock_unit: Some(ClockUnit::Millis),
                idle_logout: Duration::from_secs(60 * 60),
                // `;` is kept out of free text as on FICS (harmless if ICC does not
                // split lines there).
                separator: Some(';'),
                max_text: 400,
                // Talk reaches the primary observed game only.
                lacks: &["xwhisper", "xkibitz", "iset"],
                timeseal: false,
            },
            ServerKind::Lasker => ServerProfile {
                kind,
                prompt: "fics% ",
                guest_login: "guest",
                // lasker has no autoflag variable: we send `flag`.
                autoflag: false,
                // `iset ms 1` is accepted but clocks stay in seconds.
                clock_unit: Some(ClockUnit::Seconds),
                idle_logout: Duration::from_secs(60 * 60),
                separator: Some(';'),
                max_text: 400,
                // Seen on lasker 2.2.x: `xwhisper: Command not found.`
                lacks: &["xwhisper", "xkibitz"],
                timeseal: true,
            },
        }
    }

    /// Lines sent at the first `login:` prompt, before the name: on ICC, level 1
    /// (units bracketed, no prompt) and the level-2 units the daemon reads, so the
    /// login itself is answered in units (`DG_WHO_AM_I`, `DG_LOGIN_FAILED`).
    pub fn login_preamble(&self) -> Vec<String> {
        match self.kind {
            ServerKind::Icc => vec![
                "level1=1".into(),
                format!("level2settings={}", super::icc::dg::settings()),
            ],
            _ => Vec::new(),
        }
    }

    /// Whether this server has `cmd` (as far as its profile knows).
    pub fn has_command(&self, cmd: &str) -> bool {
        !self.lacks.contains(&cmd)
    }

    /// True when talk about an observed game can name the game (`xwhisper`); else a
    /// plain `whisper` reaches the one game we observe, so talk about more than one
    /// observed game at a time would go astray.
    pub fn observe_talk_is_per_game(&self) -> bool {
        self.has_command("xwhisper") && self.has_command("xkibitz")
    }

    /// The session set-up sent right after login. `finger` lines become finger notes.
    pub fn setup_commands(&self, interface: &str, finger: &[String]) -> Vec<ServerCommand> {
        let mut c: Vec<String> = Vec::new();
        match self.kind {
            ServerKind::Icc => {
                // Boards come as level-2 units (see `icc`): no style 12; the units
                // asked for at login are asked for again (`set-2`), which also
                // re-sends the games in progress after a reconnect.
                c.push("set level1 1".into());
                for n in super::icc::dg::WANTED {
                    c.push(format!("set-2 {n} 1"));
                }
                c.push("set width 240".into());
                c.push("set bell 0".into());
                c.push("set seek 0".into());
                c.push("set shout 0".into());
                c.push("set sshout 0".into());
                c.push("set open 1".into());
            }
            _ => {
                c.push("set style 12".into());
                // FICS knows nowrap; lasker does not (and answers "No such ivariable").
                if self.kind == ServerKind::Fics {
                    c.push("iset nowrap 1".into());
                }
                c.push("set width 240".into());
                c.push("iset ms 1".into());
                c.push("iset startpos 1".into());
                c.push("set bell 0".into());
                c.push("set seek 0".into());
                if self.kind == ServerKind::Fics {
                    c.push("set autoflag 1".into());
                }
                c.push("set shout 0".into());
                c.push("set cshout 0".into());
                c.push("set pin 0".into());
                c.push("set gin 0".into());
                c.push("set open 1".into());
            }
        }
        let mut out: Vec<ServerCommand> = c
            .iter()
            .map(|l| {
                let mut w = l.split(' ');
                let (set, k, v) = (w.next(), w.next(), w.next());
                match set {
                    Some("set-2") => ServerCommand::Operator(l.clone()),
                    Some("iset") => {
                        ServerCommand::Iset(k.unwrap_or("").into(), v.unwrap_or("").into())
                    }
                    _ => ServerCommand::Set(k.unwrap_or("").into(), v.unwrap_or("").into()),
                }
            })
            .collect();
        if !interface.is_empty() {
            out.push(ServerCommand::Set("interface".into(), interface.into()));
        }
        for (i, note) in finger.iter().take(10).enumerate() {
            out.push(ServerCommand::FingerNote(i as u8 + 1, note.clone()));
        }
        out
    }
}

/// The clock unit of a game: what the server profile says, else guessed from the
/// first board (`initial` minutes against the clock values).
pub fn guess_clock_unit(initial_minutes: u32, white: i64, black: i64) -> ClockUnit {
    let secs = initial_minutes as i64 * 60;
    let top = white.max(black);
    if (secs > 0 && top >= secs * 100) || (secs == 0 && top > 1000) {
        ClockUnit::Millis
    } else {
        ClockUnit::Seconds
    }
}
