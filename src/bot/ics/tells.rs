//! Tells to the ICS account: an owner's command (by level, parsed into an
//! `OwnerCommand`; nothing an owner types reaches the server unparsed), or a polite
//! refusal, once per handle per ten minutes so nobody can make the bot spam.

use super::connected::{live, Games};
use super::observe::Target;
use super::owner::{self, OwnerCommand};
use super::*;
use crate::bot::play::port::GameInput;
use crate::bot::ControlMsg;
use crate::ics::ServerCommand;

impl Account {
    /// A tell: an owner's command, or a polite refusal (once per handle per ten
    /// minutes, so nobody can make the bot spam).
    pub(super) fn on_tell(
        &mut self,
        from: &str,
        text: &str,
        unregistered: bool,
        w: &Writer,
        games: &Games,
    ) {
        let status = self.status().clone();
        let control = self.ctx.control.clone();
        let st = &mut self.st;
        let slot = live(games);
        let reply = |t: String| w.send(&ServerCommand::Tell(from.to_string(), t));
        status.update(|s| s.counters.tells_received += 1);
        let Some(level) = st.owners.level(from, unregistered) else {
            status.update(|s| s.counters.tells_refused += 1);
            let key = from.to_ascii_lowercase();
            let now = Instant::now();
            if st
                .refused
                .get(&key)
                .is_some_and(|t| now.duration_since(*t) < Duration::from_secs(600))
            {
                return;
            }
            st.refused.insert(key, now);
            if st.refused.len() > 10_000 {
                st.refused.clear();
            }
            info!(from, unregistered, "tell from a non-owner: {text}");
            reply(if unregistered || owner::is_guest(from) {
                "Sorry, I take commands only from my registered owners.".into()
            } else {
                "Sorry, I take commands only from my owners.".into()
            });
            return;
        };
        let cmd = match OwnerCommand::parse(text) {
            Ok(c) => c,
            Err(e) => return reply(format!("Sorry, {e}.")),
        };
        if cmd.needs() > level {
            status.update(|s| s.counters.tells_refused += 1);
            info!(from, %level, ?cmd, "owner command refused: needs {}", cmd.needs());
            return reply(format!(
                "Sorry, that needs the {} level, you are {level}.",
                cmd.needs()
            ));
        }
        info!(from, %level, ?cmd, "owner command");
        let set = |st: &mut State, name: &str, value: &str| -> Result<(), String> {
            st.opts
                .set_from(Source::Runtime, name, value)
                .map_err(|e| e.to_string())?;
            st.observer.configure(&st.opts);
            if let Some(s) = slot.as_ref() {
                let mut o = s.setup.opts.clone();
                let _ = o.set_from(Source::Runtime, name, value);
                let _ = s.adapter.tx.send(GameInput::Options(Box::new(o)));
            }
            Ok(())
        };
        let in_game = slot.is_some();
        let answer: String = match cmd {
            OwnerCommand::Help => owner::HELP.to_string(),
            OwnerCommand::Status => {
                let game = match slot.as_ref() {
                    Some(s) => format!(
                        "playing game {} against {} ({:?})",
                        s.setup.game, s.setup.opponent, s.setup.class
                    ),
                    None => "not playing".into(),
                };
                format!(
                    "{game}, observing {:?}, whisper {} kibitz {} noise {}, mode {}, operator {} min{}",
                    st.observer.watching(),
                    st.opts.int("whisper"),
                    st.opts.int("kibitz"),
                    st.opts.int("noise"),
                    st.opts.text("mode"),
                    st.opts.int("operator"),
                    if st.draining { ", shutting down" } else { "" }
                )
            }
            OwnerCommand::List { args, .. } => match st.lists.command(&args) {
                Ok(r) => r,
                Err(e) => format!("Sorry, {e}."),
            },
            OwnerCommand::Seek => {
                if in_game {
                    "I seek again after this game.".into()
                } else if tournament(&st.opts) {
                    "No seeking in tournament mode.".into()
                } else {
                    seek(w, st);
                    "Seeking.".into()
                }
            }
            OwnerCommand::Unseek => {
                w.send(&ServerCommand::Unseek);
                "Seeks removed.".into()
            }
            OwnerCommand::Whisper(n) => match set(st, "whisper", &n.to_string()) {
                Ok(()) => format!("whisper {n}"),
                Err(e) => e,
            },
            OwnerCommand::Kibitz(n) => match set(st, "kibitz", &n.to_string()) {
                Ok(()) => format!("kibitz {n}"),
                Err(e) => e,
            },
            OwnerCommand::Noise(n) => match set(st, "noise", &n.to_string()) {
                Ok(()) => format!("noise {n}"),
                Err(e) => e,
            },
            OwnerCommand::Mode(m) => match set(st, "mode", &m) {
                Ok(()) => {
                    if m == "tournament" {
                        w.send(&ServerCommand::Unseek);
                    }
                    format!("mode {m}")
                }
                Err(e) => e,
            },
            OwnerCommand::Operator(m) => match set(st, "operator", &m.to_string()) {
                Ok(()) => format!("operator {m} minutes"),
                Err(e) => e,
            },
            OwnerCommand::Observe(what) => match Target::parse(&what) {
                Ok(t) => {
                    st.observer.add(t, w);
                    format!("observing {what}")
                }
                Err(e) => format!("Sorry, {e}."),
            },
            OwnerCommand::Unobserve(t) => match Target::parse(&t) {
                Ok(t) => {
                    st.observer.remove(&t, w);
                    "done".into()
                }
                Err(e) => format!("Sorry, {e}."),
            },
            OwnerCommand::Resign | OwnerCommand::Abort | OwnerCommand::Draw => {
                if !in_game {
                    "I am not playing.".into()
                } else {
                    let (c, what) = match cmd {
                        OwnerCommand::Resign => (ServerCommand::Resign, "resigned"),
                        OwnerCommand::Abort => (ServerCommand::Abort, "abort asked"),
                        _ => (ServerCommand::Draw, "draw offered"),
                    };
                    w.send(&c);
                    what.into()
                }
            }
            OwnerCommand::SoftQuit => {
                control.send(ControlMsg::Shutdown);
                if in_game {
                    "Quitting after this game.".into()
                } else {
                    "Quitting.".into()
                }
            }
        };
        reply(answer);
    }
}
