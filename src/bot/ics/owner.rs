//! Owners' commands by tell. `bot.owners` names registered handles with a level:
//! `viewer` may ask (`status`, `help`, `list GM`), `operator` may also steer the games
//! (`seek`, `unseek`, `whisper 3`, `kibitz 3`, `noise N`, `observe 12`, `unobserve 12`,
//! `resign`, `abort`, `draw`, `mode tournament`, `operator 10`), `admin` may also
//! edit the lists (`list GM +x`) and stop the daemon (`softquit`). Guests and
//! unregistered handles are never owners; anyone else gets a polite refusal. The
//! words are parsed into `OwnerCommand`s: nothing an owner types reaches a shell or the
//! server unparsed.

use std::fmt;

/// Permission levels, lowest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Viewer,
    Operator,
    Admin,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_lowercase().as_str() {
            "viewer" => Some(Level::Viewer),
            "operator" => Some(Level::Operator),
            "admin" => Some(Level::Admin),
            _ => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Viewer => "viewer",
            Level::Operator => "operator",
            Level::Admin => "admin",
        })
    }
}

/// The owners from `bot.owners` (`alice:admin, bob:operator`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Owners {
    list: Vec<(String, Level)>,
}

pub use crate::ics::parse::is_guest;

impl Owners {
    pub fn parse(text: &str) -> Result<Owners, String> {
        let mut list = Vec::new();
        for item in text
            .split([',', ';'])
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            let (name, level) = item.split_once(':').unwrap_or((item, "viewer"));
            let name = name.trim();
            if !crate::bot::lists::valid_handle(name) {
                return Err(format!("'{name}' is not a handle"));
            }
            if is_guest(name) {
                return Err(format!(
                    "'{name}' is a guest name; owners must be registered"
                ));
            }
            let Some(level) = Level::parse(level) else {
                return Err(format!(
                    "'{}' is not a level (admin, operator or viewer)",
                    level.trim()
                ));
            };
            list.push((name.to_ascii_lowercase(), level));
        }
        Ok(Owners { list })
    }

    /// The level of `handle`, if an owner. `unregistered`: the server marked the
    /// teller as a guest or unregistered (`(U)`), which no configuration overrides.
    pub fn level(&self, handle: &str, unregistered: bool) -> Option<Level> {
        if unregistered || is_guest(handle) {
            return None;
        }
        let h = handle.to_ascii_lowercase();
        self.list.iter().find(|(n, _)| *n == h).map(|(_, l)| *l)
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// A command an owner may give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnerCommand {
    Help,
    Status,
    /// `list <NAME>` shows, with `+x`/`-x` edits.
    List {
        args: String,
        edits: bool,
    },
    Seek,
    Unseek,
    Whisper(u8),
    Kibitz(u8),
    Noise(u64),
    Observe(String),
    Unobserve(String),
    Resign,
    Abort,
    Draw,
    Mode(String),
    Operator(u32),
    SoftQuit,
}

impl OwnerCommand {
    /// The level needed.
    pub fn needs(&self) -> Level {
        use OwnerCommand as C;
        match self {
            C::Help | C::Status => Level::Viewer,
            C::List { edits: false, .. } => Level::Viewer,
            C::List { edits: true, .. } | C::SoftQuit => Level::Admin,
            _ => Level::Operator,
        }
    }

    /// Reads an owner's tell.
    pub fn parse(text: &str) -> Result<OwnerCommand, String> {
        use OwnerCommand as C;
        let text = text.trim();
        let (word, rest) = match text.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim()),
            None => (text, ""),
        };
        let level = |what: &str| -> Result<u8, String> {
            rest.parse::<u8>()
                .ok()
                .filter(|n| *n <= 6)
                .ok_or_else(|| format!("{what} takes a level from 0 to 6"))
        };
        let target = |what: &str| -> Result<String, String> {
            let ok = !rest.is_empty()
                && rest.len() <= 40
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_-:".contains(c));
            if ok {
                Ok(rest.to_string())
            } else {
                Err(format!(
                    "{what} takes a game number, player:<handle> or relay:<handle>"
                ))
            }
        };
        let bare = |c: OwnerCommand| -> Result<OwnerCommand, String> {
            if rest.is_empty() {
                Ok(c)
            } else {
                Err("that command takes nothing after it".into())
            }
        };
        Ok(match word.to_ascii_lowercase().as_str() {
            "help" => bare(C::Help)?,
            "status" => bare(C::Status)?,
            "list" => {
                if rest.is_empty() {
                    return Err("list takes GM, IM, C, AK or S and +name/-name".into());
                }
                C::List {
                    args: rest.to_string(),
                    edits: rest.split_whitespace().count() > 1,
                }
            }
            "seek" => bare(C::Seek)?,
            "unseek" => bare(C::Unseek)?,
            "whisper" => C::Whisper(level("whisper")?),
            "kibitz" => C::Kibitz(level("kibitz")?),
            "noise" => C::Noise(
                rest.parse()
                    .map_err(|_| "noise takes a number of nodes".to_string())?,
            ),
            "observe" => C::Observe(target("observe")?),
            "unobserve" => C::Unobserve(target("unobserve")?),
            "resign" => bare(C::Resign)?,
            "abort" => bare(C::Abort)?,
            "draw" => bare(C::Draw)?,
            "mode" => match rest {
                "normal" | "tournament" => C::Mode(rest.to_string()),
                _ => return Err("mode takes normal or tournament".into()),
            },
            "operator" => C::Operator(
                rest.parse::<u32>()
                    .ok()
                    .filter(|m| *m <= 600)
                    .ok_or_else(|| "operator takes minutes from 0 to 600".to_string())?,
            ),
            "softquit" => bare(C::SoftQuit)?,
            "" => return Err("say `help` for the commands".into()),
            // The teller's word is not echoed: it could carry anything.
            _ => return Err("that is not a command, say `help`".into()),
        })
    }
}

/// The help line sent by tell.
pub const HELP: &str = "commands: status, help, list <GM|IM|C|AK|S> [+name -name], seek, unseek, whisper <0-6>, kibitz <0-6>, noise <nodes>, observe <game|player:x|relay:x>, unobserve <...>, resign, abort, draw, mode normal|tournament, operator <minutes>, softquit";
