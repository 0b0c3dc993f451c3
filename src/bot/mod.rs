//! The daemon. Its frame (this file) runs the accounts as siblings: the ICS account
//! of `[ics]` (FICS, lasker or ICC: `ics`) and the Lichess account of `[lichess]`
//! (`lichess`), each with its own supervisor that connects, logs in, backs off and
//! reports the same account state to one status; one shutdown signal reaches all
//! (the first SIGTERM/SIGINT stops new games and lets the games in progress finish,
//! the second quits at once; SIGHUP reloads the configuration and lists); systemd
//! hears READY and WATCHDOG for all of them together.
//!
//! Every game, whatever its server, lives the same life (`life`): a slot taken at
//! accept and freed at the result, one task per game behind the game port (`play`),
//! with the engine on a thread of its own (`brain`), and one finish path (records,
//! ledger, counters, metrics). The accounts own the wire: each maps its server's
//! messages to the port in one adapter (`ics::adapter`, `lichess::adapter`).
//!
//! The bot behaviour beside it, the same for every account: `talk` (whisper/kibitz
//! levels and noise), `lists` (GM/IM/C/AK/S), `formula` (which challenges to accept,
//! with the reason of a refusal), `archive` (PGN records, game logs, the instance
//! lock), `history` (the results ledger) and `status` (what the operator's window
//! reads: `Daemon::status`). Observing broadcasts and owners' commands by tell are
//! the ICS account's (`ics::observe`, `ics::owner`). `mode tournament` turns off
//! seeking and everything list-based and leaves resigning, draws and aborts to the
//! operator.

pub mod archive;
pub mod brain;
pub mod formula;
pub mod history;
pub mod ics;
pub mod lichess;
pub mod life;
pub mod lists;
pub mod play;
pub mod status;
pub mod talk;

use crate::chess::Color;
use crate::options::Options;
use crate::settings::{KeyCheck, Settings, SettingsError};
use brain::Fault;
use formula::Verdict;
use ics::observe::Target;
use play::{GameOutcome, GameStats};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, watch};
use tracing::{error, info, warn};

/// The daemon's checks of its own keys, for the settings loader (which must not
/// import the bot): `kibitzer daemon`, `--check` and SIGHUP reloads use them.
pub const KEY_CHECKS: &[KeyCheck] = &[
    KeyCheck {
        key: "bot.owners",
        check: |o| ics::owner::Owners::parse(o.str("bot.owners")).map(|_| ()),
        fix: "list registered handles with a level, for example \"alice:admin, bob:operator, carol:viewer\"",
    },
    KeyCheck {
        key: "bot.observe",
        check: |o| Target::parse_list(o.str("bot.observe")).map(|_| ()),
        fix: "list game numbers, player:<handle> or relay:<handle>, for example \"12, player:hikaru\"",
    },
    KeyCheck {
        key: "engine.options",
        check: |o| crate::external::parse_option_pairs(o.str("engine.options")).map(|_| ()),
        fix: "write name = value pairs separated by commas, for example \"Hash = 256, Threads = 2\"",
    },
    KeyCheck {
        key: "lichess.matchmaking",
        check: |o| {
            if o.bool("lichess.enabled") && o.bool("lichess.matchmaking") {
                lichess::matchmaking::Config::from_options(o).map(|_| ())
            } else {
                Ok(())
            }
        },
        fix: "write time controls as minutes+increment (1+0 3+2) and a rating range with min <= max",
    },
];

/// The daemon's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    Failure = 1,
    /// Bad configuration.
    Config = 2,
    /// The server refused the credentials: restarting cannot help.
    Credentials = 3,
    /// The (unregistered) name is in use, or another session kicked us out.
    NameInUse = 4,
    /// Another instance runs for this account.
    Locked = 5,
}

/// Requests to a running daemon (what the signals do).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControlMsg {
    /// First SIGTERM/SIGINT: stop seeking, finish the games, then quit.
    Shutdown,
    /// Quit at once.
    Quit,
    /// SIGHUP: reload configuration and lists.
    Reload,
}

#[derive(Clone)]
pub struct Control {
    tx: mpsc::UnboundedSender<ControlMsg>,
}

impl Control {
    pub fn send(&self, m: ControlMsg) {
        let _ = self.tx.send(m);
    }
}

/// What the frame asks of every account (one signal for all).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Run,
    /// Accept nothing new, finish the games in progress, then end.
    Drain,
    /// End now (games in progress are left to the server).
    Quit,
}

/// The frame's request after `changed()` on the stop channel (a closed channel is
/// `Quit`).
pub fn requested(
    changed: Result<(), watch::error::RecvError>,
    stop: &watch::Receiver<Stop>,
) -> Stop {
    match changed {
        Ok(()) => *stop.borrow(),
        Err(_) => Stop::Quit,
    }
}

/// A finished game, as reported on the event stream.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub game: u32,
    /// The account that played it (`ics`, `lichess`).
    pub account: String,
    pub white: String,
    pub black: String,
    pub our_color: Color,
    /// `1-0`, `0-1`, `1/2-1/2`, `*`; empty when the connection was lost first.
    pub result: String,
    pub reason: String,
    pub plies: usize,
    pub stats: GameStats,
}

impl GameReport {
    /// The report of a finished game task (any account).
    pub fn new(out: GameOutcome, result: String, reason: String) -> GameReport {
        GameReport {
            game: out.setup.game,
            account: out.setup.account,
            white: out.setup.white,
            black: out.setup.black,
            our_color: out.setup.our_color,
            result,
            reason,
            plies: out.plies,
            stats: out.stats,
        }
    }
}

/// What the daemon tells its subscribers.
#[derive(Clone, Debug)]
pub enum BotEvent {
    LoggedIn {
        handle: String,
    },
    Disconnected {
        why: String,
    },
    GameStarted {
        game: u32,
        opponent: String,
    },
    GameEnded(Box<GameReport>),
    Challenge {
        challenger: String,
        verdict: Verdict,
    },
    /// A game task panicked (the daemon stays connected).
    GamePanicked {
        game: u32,
    },
    Stopping,
}

type Reloader = Box<dyn Fn() -> Result<Settings, SettingsError> + Send + Sync>;

/// Each account's last sign of life (its loop turns at least every few seconds):
/// the watchdog is fed only while every account's loop turns.
#[derive(Clone, Default)]
pub struct Heartbeats(Arc<std::sync::Mutex<HashMap<String, Arc<AtomicU64>>>>);

impl Heartbeats {
    /// The beat of the account `name`.
    pub fn beat_of(&self, name: &str) -> Beat {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let b = m
            .entry(name.to_string())
            .or_insert_with(|| Arc::new(AtomicU64::new(status::unix_ms())))
            .clone();
        Beat(b)
    }

    /// The oldest beat (ms since the epoch); `None` with no account.
    fn oldest(&self) -> Option<u64> {
        let m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        m.values().map(|b| b.load(Ordering::Relaxed)).min()
    }
}

/// One account's heartbeat.
#[derive(Clone)]
pub struct Beat(Arc<AtomicU64>);

impl Beat {
    pub fn beat(&self) {
        self.0.store(status::unix_ms(), Ordering::Relaxed);
    }
}

/// What an account is handed at start.
#[derive(Clone)]
pub struct AccountCtx {
    pub frame: life::Frame,
    /// The settings, replaced on SIGHUP.
    pub settings: watch::Receiver<Arc<Settings>>,
    pub stop: watch::Receiver<Stop>,
    pub ledger: life::Ledger,
    pub beat: Beat,
    /// To ask the frame for a shutdown (an owner's `softquit`).
    pub control: Control,
    pub hooks: Arc<dyn ics::Hooks>,
}

/// The daemon.
pub struct Daemon {
    settings: Settings,
    reload: Option<Reloader>,
    hooks: Arc<dyn ics::Hooks>,
    events: broadcast::Sender<BotEvent>,
    control_tx: mpsc::UnboundedSender<ControlMsg>,
    control_rx: mpsc::UnboundedReceiver<ControlMsg>,
    /// Fault injection for tests.
    pub fault: Option<Fault>,
    /// Only in the games that start while this is on (a soak switches it per
    /// game); in every game when `None`.
    pub fault_on: Option<Arc<AtomicBool>>,
    /// Panic once in the task of this game number (tests).
    pub task_panic_game: Option<u32>,
    task_panicked: Arc<AtomicBool>,
    status: status::StatusTx,
}

/// The engine's configuration as the status page shows it.
fn engine_facts(o: &Options) -> status::EngineFacts {
    let book = match o.str("bookpath").trim() {
        "" => match (o.str("book.polyglot").trim(), o.str("book.crafty").trim()) {
            ("", "") => "none".to_string(),
            (p, "") => format!("Polyglot {p}"),
            (_, c) => format!("Crafty {c}"),
        },
        d => {
            let bin = std::path::Path::new(d).join("book.bin");
            if bin.exists() {
                format!("{}", bin.display())
            } else {
                format!("{d} (no book.bin)")
            }
        }
    };
    let tables = match o.str("egtpath").trim() {
        "" => "none".to_string(),
        dirs => {
            let n: usize = dirs
                .split(':')
                .filter_map(|d| std::fs::read_dir(d).ok())
                .map(|rd| {
                    rd.filter_map(|e| e.ok())
                        .filter(|e| e.file_name().to_string_lossy().ends_with(".rtbw"))
                        .count()
                })
                .sum();
            format!("Syzygy in {dirs} ({n} WDL files)")
        }
    };
    status::EngineFacts {
        threads: o.int("threads"),
        hash_mb: (o.size("hash") >> 20) as u64,
        ponder: o.bool("ponder"),
        healthy: true,
        fault: None,
        external: Some(o.str("engine.command").trim().to_string()).filter(|c| !c.is_empty()),
        book,
        tables,
        learning: None,
    }
}

fn notify(state: &[sd_notify::NotifyState]) {
    let _ = sd_notify::notify(state);
}

impl Daemon {
    pub fn new(settings: Settings) -> Daemon {
        let (control_tx, control_rx) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(256);
        Daemon {
            settings,
            reload: None,
            hooks: Arc::new(ics::NoHooks),
            events,
            control_tx,
            control_rx,
            fault: None,
            fault_on: None,
            task_panic_game: None,
            task_panicked: Arc::new(AtomicBool::new(false)),
            status: status::StatusTx::new(),
        }
    }

    /// The daemon's status as it changes (read-only: nothing read here commands the
    /// bot).
    pub fn status(&self) -> watch::Receiver<status::Status> {
        self.status.subscribe()
    }

    /// How SIGHUP gets new settings.
    pub fn set_reloader(&mut self, f: Reloader) {
        self.reload = Some(f);
    }

    /// Hooks for behaviour built on the ICS account (challenge verdicts, server
    /// events it does not consume).
    pub fn set_hooks(&mut self, hooks: Arc<dyn ics::Hooks>) {
        self.hooks = hooks;
    }

    pub fn control(&self) -> Control {
        Control {
            tx: self.control_tx.clone(),
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<BotEvent> {
        self.events.subscribe()
    }

    /// Runs until told to quit, or until an account ends with a refusal that
    /// restarting cannot mend (credentials, a lock, the configuration): then the
    /// other accounts are stopped too and that is the exit status.
    pub async fn run(mut self) -> Exit {
        let o = self.settings.options.clone();
        let names: Vec<&str> = [
            (o.bool("ics.enabled"), "ics"),
            (o.bool("lichess.enabled"), "lichess"),
        ]
        .into_iter()
        .filter_map(|(on, n)| on.then_some(n))
        .collect();
        if names.is_empty() {
            error!("no account is enabled (ics.enabled and lichess.enabled are both off)");
            return Exit::Config;
        }
        let facts = engine_facts(&o);
        self.status.update(|s| s.engine = facts);
        let (stop_tx, stop_rx) = watch::channel(Stop::Run);
        let (settings_tx, settings_rx) = watch::channel(Arc::new(self.settings.clone()));
        let frame = life::Frame {
            status: self.status.clone(),
            events: self.events.clone(),
            engines: crate::external::HealthBoard::default(),
            fault: self.fault,
            fault_on: self.fault_on.clone(),
            task_panic_game: self.task_panic_game,
            task_panicked: self.task_panicked.clone(),
        };
        let archive = archive::Archive::from_options(&o);
        let ics_handle = o.str("ics.handle").trim().to_string();
        let ledger = life::Ledger::start(
            &self.status,
            &archive,
            if names.contains(&"ics") {
                vec![ics_handle]
            } else {
                Vec::new()
            },
            std::path::PathBuf::from(o.str("bot.lists").trim()),
            o.str("bookpath").trim().to_string(),
        );
        let beats = Heartbeats::default();
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<(&'static str, Exit)>();
        for name in &names {
            let ctx = AccountCtx {
                frame: frame.clone(),
                settings: settings_rx.clone(),
                stop: stop_rx.clone(),
                ledger: ledger.clone(),
                beat: beats.beat_of(name),
                control: self.control(),
                hooks: self.hooks.clone(),
            };
            let done = done_tx.clone();
            match *name {
                "ics" => {
                    tokio::spawn(async move {
                        let exit = ics::run(ctx).await;
                        let _ = done.send(("ics", exit));
                    });
                }
                _ => {
                    tokio::spawn(async move {
                        let exit = lichess::run(ctx).await;
                        let _ = done.send(("lichess", exit));
                    });
                }
            }
        }
        // The external engines' health, into the status (the window, /healthz).
        let st = self.status.clone();
        let engines = frame.engines.clone();
        let engine_health = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            loop {
                tick.tick().await;
                let Some(h) = engines.now() else {
                    continue;
                };
                st.update_if(|s| {
                    let fault = (!h.healthy).then(|| h.last_fault.clone()).flatten();
                    let changed = s.engine.healthy != h.healthy || s.engine.fault != fault;
                    s.engine.healthy = h.healthy;
                    s.engine.fault = fault;
                    changed
                });
            }
        });
        let health = tokio::spawn(systemd_health(self.status.subscribe(), beats, names.len()));
        let mut running = names.len();
        let mut exit = Exit::Ok;
        while running > 0 {
            tokio::select! {
                m = self.control_rx.recv() => match m {
                    Some(ControlMsg::Shutdown) if *stop_tx.borrow() == Stop::Run => {
                        info!("shutting down: no new games; the games in progress are played out (signal again to quit at once)");
                        notify(&[sd_notify::NotifyState::Stopping]);
                        stop_tx.send_replace(Stop::Drain);
                    }
                    Some(ControlMsg::Reload) => match &self.reload {
                        None => info!("SIGHUP: no configuration file to reload"),
                        Some(f) => match f() {
                            Ok(s) => {
                                info!("configuration reloaded (engine sizes apply from the next game)");
                                settings_tx.send_replace(Arc::new(s));
                            }
                            Err(e) => error!("reload failed, keeping the old configuration: {e}"),
                        },
                    },
                    _ => {
                        info!("quitting at once");
                        stop_tx.send_replace(Stop::Quit);
                    }
                },
                Some((name, e)) = done_rx.recv() => {
                    running -= 1;
                    info!(account = name, exit = ?e, "account ended");
                    if e != Exit::Ok {
                        if exit == Exit::Ok {
                            exit = e;
                        }
                        if running > 0 {
                            warn!(account = name, "an account cannot go on: stopping the others");
                            stop_tx.send_replace(Stop::Quit);
                        }
                    }
                }
            }
        }
        health.abort();
        engine_health.abort();
        archive::Archive::from_options(&o).log_unwritten();
        notify(&[sd_notify::NotifyState::Stopping]);
        let _ = self.events.send(BotEvent::Stopping);
        exit
    }
}

/// READY, WATCHDOG and STATUS for systemd, for every account together. READY once
/// each account has tried (logged in, or backing off after a failure); WATCHDOG
/// while every account's loop turns (its heartbeat is fresh) and none is stuck
/// logged in on a link that does not answer (an account waiting to reconnect is not
/// stuck: a server outage must not get the daemon killed, with another server's
/// games in progress); STATUS says where each account stands.
async fn systemd_health(
    mut rx: watch::Receiver<status::Status>,
    beats: Heartbeats,
    accounts: usize,
) {
    let watchdog = sd_notify::watchdog_enabled();
    let period = watchdog.map_or(Duration::from_secs(30), |d| {
        (d / 2).max(Duration::from_secs(1))
    });
    let mut ready = false;
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut last_ping = tokio::time::Instant::now();
    let mut last_text = String::new();
    let mut unhealthy_since: HashMap<String, u64> = HashMap::new();
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            r = rx.changed() => if r.is_err() { return; },
        }
        let s = rx.borrow_and_update().clone();
        let now = status::unix_ms();
        let tried = s.accounts.len() >= accounts
            && s.accounts.iter().all(|a| {
                a.state != status::AccountState::Connecting
                    || a.failed_attempts > 0
                    || a.reconnects > 0
            });
        if tried && !ready {
            notify(&[sd_notify::NotifyState::Ready]);
            ready = true;
        }
        let text: Vec<String> = s
            .accounts
            .iter()
            .map(|a| match (&a.reason, a.connected) {
                (_, true) => format!("{}: logged in as {} on {}", a.name, a.handle, a.server),
                (Some(r), false) => format!("{}: {} ({r})", a.name, a.state.name()),
                (None, false) => format!("{}: {}", a.name, a.state.name()),
            })
            .collect();
        let text = text.join("; ");
        if text != last_text {
            notify(&[sd_notify::NotifyState::Status(&text)]);
            last_text = text;
        }
        // An account logged in whose link has not answered for a while is stuck.
        for a in &s.accounts {
            if a.connected && !a.healthy {
                unhealthy_since.entry(a.name.clone()).or_insert(now);
            } else {
                unhealthy_since.remove(&a.name);
            }
        }
        let stuck = unhealthy_since
            .values()
            .any(|&t| now.saturating_sub(t) > 120_000);
        let beating = beats
            .oldest()
            .is_some_and(|t| now.saturating_sub(t) < 60_000);
        if watchdog.is_some() && ready && beating && !stuck && last_ping.elapsed() >= period {
            notify(&[sd_notify::NotifyState::Watchdog]);
            last_ping = tokio::time::Instant::now();
        }
    }
}
