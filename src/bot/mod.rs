//! The ICS daemon. The supervisor owns the connection life cycle (connect, log in,
//! set up, keep alive, reconnect with backoff and jitter), finds games (seeks,
//! challenge formula, resuming adjourned games), starts one task per game
//! (`play::run`) and hands it the engine (`brain`), records finished games
//! (`archive`), and shuts down gracefully: the first SIGTERM/SIGINT stops seeking and
//! lets the game in progress finish, the second quits at once; SIGHUP reloads the
//! configuration and lists (engine sizes change only between games).
//!
//! The bot behaviour lives beside it: `talk` (whisper/kibitz levels and noise, used by
//! the game task and the observer), `lists` (GM/IM/C/AK/S, classifying opponents for
//! the game controller's one policy), `observe` (analysing observed games and
//! broadcasts on an engine of its own) and `owner` (owners' commands by tell, with
//! permissions). `mode tournament` turns off seeking and everything list-based and
//! leaves resigning, draws and aborts to the operator.
//!
//! Extension points for behaviour built on top:
//! `Hooks` sees every challenge verdict and every server event the supervisor does
//! not consume itself, with the writer to answer; `Daemon::subscribe` streams
//! `BotEvent`s; `Daemon::status` is the latest `status::Status` (connection, games in
//! progress, observed games, results, counters), read by the operator's window.

pub mod archive;
pub mod brain;
pub mod formula;
pub mod history;
pub mod lichess;
pub mod lists;
pub mod observe;
pub mod owner;
pub mod play;
mod session;
pub mod status;
pub mod talk;

use crate::chess::Color;
use crate::ics::connection::{ConnectConfig, Connection, Incoming, LoginError};
use crate::ics::timeseal::Version;
use crate::ics::{Backoff, Challenge, ServerCommand, ServerEvent, ServerKind, Writer};
use crate::options::{Options, Source};
use crate::settings::{KeyCheck, Settings, SettingsError};

/// The daemon's checks of its own keys, for the settings loader (which must not
/// import the bot): `kibitzer daemon`, `--check` and SIGHUP reloads use them.
pub const KEY_CHECKS: &[KeyCheck] = &[
    KeyCheck {
        key: "bot.owners",
        check: |o| owner::Owners::parse(o.str("bot.owners")).map(|_| ()),
        fix: "list registered handles with a level, for example \"alice:admin, bob:operator, carol:viewer\"",
    },
    KeyCheck {
        key: "bot.observe",
        check: |o| Target::parse_list(o.str("bot.observe")).map(|_| ()),
        fix: "list game numbers, player:<handle> or relay:<handle>, for example \"12, player:hikaru\"",
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
use archive::Archive;
use brain::{Brain, Fault};
use formula::{Formula, NoPlay, Verdict};
use lists::Lists;
use observe::{Observer, Target};
use owner::{OwnerCommand, Owners};
use play::{GameInput, GameOutcome, GameSetup, GameStats};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use tracing::{debug, error, info, info_span, warn, Instrument};

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
    /// First SIGTERM/SIGINT: stop seeking, finish the game, then quit.
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

/// A finished game, as reported on the event stream.
#[derive(Clone, Debug)]
pub struct GameReport {
    pub game: u32,
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
    /// The report of a finished game task (FICS, ICC and Lichess alike).
    pub fn new(out: GameOutcome, result: String, reason: String) -> GameReport {
        GameReport {
            game: out.setup.game,
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

/// Hooks for the behaviour built on top of the daemon.
pub trait Hooks: Send + Sync {
    /// May change the formula's verdict on a challenge.
    fn challenge(&self, _c: &Challenge, verdict: Verdict) -> Verdict {
        verdict
    }
    /// A server event the supervisor did not consume (tells, kibitzes, observed
    /// boards, unknown lines).
    fn event(&self, _ev: &ServerEvent, _writer: &Writer) {}
}

struct NoHooks;
impl Hooks for NoHooks {}

type Reloader = Box<dyn Fn() -> Result<Settings, SettingsError> + Send + Sync>;

/// The daemon.
pub struct Daemon {
    settings: Settings,
    reload: Option<Reloader>,
    hooks: Arc<dyn Hooks>,
    events: broadcast::Sender<BotEvent>,
    control_tx: mpsc::UnboundedSender<ControlMsg>,
    control_rx: mpsc::UnboundedReceiver<ControlMsg>,
    /// Fault injection for tests.
    pub fault: Option<Fault>,
    /// Panic once in the task of this game number (tests).
    pub task_panic_game: Option<u32>,
    task_panicked: Arc<std::sync::atomic::AtomicBool>,
    status: status::StatusTx,
}

struct Slot {
    game: u32,
    setup: GameSetup,
    tx: mpsc::UnboundedSender<GameInput>,
    handle: JoinHandle<GameOutcome>,
}

enum SessionEnd {
    Quit,
    Lost(String),
    Kicked,
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
        book,
        tables,
        learning: None,
    }
}

/// What the learning files of `bookpath` hold (blocking: reads the files).
fn learning_counts(bookpath: &str) -> Option<status::LearningCounts> {
    if bookpath.is_empty() {
        return None;
    }
    let dir = std::path::Path::new(bookpath);
    let l = crate::learn::Learner::open_read_only(dir);
    let results = std::fs::read_to_string(dir.join(crate::learn::Learner::BOOK_LRN))
        .map(|t| t.lines().filter(|l| l.starts_with("[Event ")).count())
        .unwrap_or(0);
    Some(status::LearningCounts {
        book: l.overlay().len(),
        position: l.positions().len(),
        results,
    })
}

/// The connection settings from the options.
pub fn connect_config(o: &Options, password: Option<crate::ics::Secret>) -> ConnectConfig {
    let host = o.str("ics.server").trim().to_string();
    ConnectConfig {
        kind: ServerKind::from_config(o.str("ics.server_type"), &host),
        host,
        port: o.int("ics.port") as u16,
        tls: o.bool("ics.tls"),
        timeseal: Version::parse(o.str("ics.timeseal")).flatten(),
        connect_timeout: o.duration("ics.connect_timeout"),
        login_timeout: o.duration("ics.login_timeout"),
        max_line: o.int("ics.max_line") as usize,
        handle: o.str("ics.handle").trim().to_string(),
        password,
        interface: format!("{} {}", o.str("ics.interface"), env!("CARGO_PKG_VERSION")),
        finger: o
            .str("ics.finger")
            .split('|')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
    }
}

fn notify(state: &[sd_notify::NotifyState]) {
    let _ = sd_notify::notify(state);
}

async fn join_game(slot: &mut Option<Slot>) -> Result<GameOutcome, tokio::task::JoinError> {
    match slot.as_mut() {
        Some(s) => (&mut s.handle).await,
        None => std::future::pending().await,
    }
}

struct State {
    opts: Options,
    password: Option<crate::ics::Secret>,
    formula: Formula,
    noplay: NoPlay,
    archive: Archive,
    brain: Option<Brain>,
    draining: bool,
    /// Opponent of the last games and how many in a row.
    streak: (String, u32),
    /// Aborted games in a row per opponent.
    aborts: HashMap<String, u32>,
    /// Panics per game number in this session.
    panics: HashMap<u32, u32>,
    creating: Option<ServerEvent>,
    resume: Vec<String>,
    lists: Lists,
    owners: Owners,
    observer: Observer,
    /// Handles the server showed with the computer title `(C)`.
    computers: std::collections::HashSet<String>,
    /// When each non-owner was last refused (one refusal per handle per 10 minutes).
    refused: HashMap<String, Instant>,
}

fn lists_dir(o: &Options) -> PathBuf {
    PathBuf::from(o.str("bot.lists").trim())
}

fn tournament(o: &Options) -> bool {
    o.text("mode") == "tournament"
}

impl State {
    fn new(opts: Options, password: Option<crate::ics::Secret>) -> State {
        let noplay_path = match opts.str("bot.noplay_file") {
            "" => None,
            p => Some(PathBuf::from(p)),
        };
        State {
            lists: Lists::load(&lists_dir(&opts)),
            owners: Owners::parse(opts.str("bot.owners")).unwrap_or_default(),
            observer: Observer::new(&opts),
            formula: Formula::from_options(&opts),
            noplay: NoPlay::load(noplay_path),
            archive: Archive::from_options(&opts),
            opts,
            password,
            brain: None,
            draining: false,
            streak: (String::new(), 0),
            aborts: HashMap::new(),
            panics: HashMap::new(),
            creating: None,
            resume: Vec::new(),
            computers: Default::default(),
            refused: HashMap::new(),
        }
    }
}

impl Daemon {
    pub fn new(settings: Settings) -> Daemon {
        let (control_tx, control_rx) = mpsc::unbounded_channel();
        let (events, _) = broadcast::channel(256);
        Daemon {
            settings,
            reload: None,
            hooks: Arc::new(NoHooks),
            events,
            control_tx,
            control_rx,
            fault: None,
            task_panic_game: None,
            task_panicked: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            status: status::StatusTx::new(),
        }
    }

    /// The daemon's status as it changes (read-only: nothing read here commands the
    /// bot).
    pub fn status(&self) -> tokio::sync::watch::Receiver<status::Status> {
        self.status.subscribe()
    }

    /// How SIGHUP gets new settings.
    pub fn set_reloader(&mut self, f: Reloader) {
        self.reload = Some(f);
    }

    pub fn set_hooks(&mut self, hooks: Arc<dyn Hooks>) {
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

    fn emit(&self, e: BotEvent) {
        let _ = self.events.send(e);
    }

    /// Runs until told to quit (or the credentials are refused): the ICS account of
    /// `[ics]` (unless `ics.enabled` is off) and, with `lichess.enabled`, the Lichess
    /// account beside it; the signals reach both.
    pub async fn run(mut self) -> Exit {
        let o = self.settings.options.clone();
        if !o.bool("lichess.enabled") {
            return self.run_ics().await;
        }
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(lichess::Stop::Run);
        let stop_tx = Arc::new(stop_tx);
        let account = tokio::spawn(lichess::run(
            self.settings.clone(),
            self.events.clone(),
            self.status.clone(),
            stop_rx,
        ));
        let ics = o.bool("ics.enabled");
        let (fwd_tx, fwd_rx) = mpsc::unbounded_channel();
        let mut signals = std::mem::replace(&mut self.control_rx, fwd_rx);
        let stop = stop_tx.clone();
        tokio::spawn(async move {
            while let Some(m) = signals.recv().await {
                if let Some(s) = lichess::Stop::of(m) {
                    stop.send_replace(s);
                }
                if ics {
                    let _ = fwd_tx.send(m);
                }
            }
        });
        let ics_exit = if ics { self.run_ics().await } else { Exit::Ok };
        if ics_exit != Exit::Ok {
            stop_tx.send_replace(lichess::Stop::Quit);
        }
        let lichess_exit = account.await.unwrap_or(Exit::Failure);
        if ics_exit != Exit::Ok {
            ics_exit
        } else {
            lichess_exit
        }
    }

    /// The ICS account.
    async fn run_ics(&mut self) -> Exit {
        let o = self.settings.options.clone();
        let cfg = connect_config(&o, self.settings.password.clone());
        let archive = Archive::from_options(&o);
        let _lock = match archive::lock_instance(&archive.dir, &cfg.host, &cfg.handle) {
            Ok(f) => f,
            Err(e) => {
                error!("{e}");
                return Exit::Locked;
            }
        };
        let mut st = State::new(o.clone(), self.settings.password.clone());
        self.publish_start(&cfg, &st);
        let mut backoff = Backoff::new(
            o.duration("ics.reconnect_min"),
            o.duration("ics.reconnect_max"),
        );
        let mut name_in_use = 0;
        let mut ready_sent = false;
        let mut timeseal_refused = false;
        // Why the last session ended (reported at the next login).
        let mut lost_why: Option<String> = None;
        loop {
            let mut cfg = connect_config(&st.opts, st.password.clone());
            if timeseal_refused {
                cfg.timeseal = None;
            }
            let span = info_span!("connection", server = %cfg.host, port = cfg.port);
            let attempt = async {
                let mut conn = Connection::open(&cfg).await?;
                conn.login(&cfg).await?;
                Ok::<Connection, LoginError>(conn)
            }
            .instrument(span.clone())
            .await;
            let delay = match attempt {
                Ok(conn) => {
                    name_in_use = 0;
                    if !ready_sent {
                        notify(&[sd_notify::NotifyState::Ready]);
                        ready_sent = true;
                    }
                    notify(&[sd_notify::NotifyState::Status(&format!(
                        "logged in as {} on {}",
                        conn.handle, cfg.host
                    ))]);
                    self.emit(BotEvent::LoggedIn {
                        handle: conn.handle.clone(),
                    });
                    let handle = conn.handle.clone();
                    let why = lost_why.take();
                    self.status.update(|s| {
                        s.link.connected = true;
                        s.link.healthy = true;
                        s.link.handle = handle;
                        s.link.logged_in_since_unix_ms = Some(status::unix_ms());
                        s.link.disconnected_since_unix_ms = None;
                        if let Some(why) = why {
                            s.counters.reconnects += 1;
                            s.link.last_reconnect = Some(status::Reconnect {
                                at_unix_ms: status::unix_ms(),
                                why,
                            });
                        }
                    });
                    let started = Instant::now();
                    let end = self.session(conn, &cfg, &mut st).instrument(span).await;
                    let why = match &end {
                        SessionEnd::Quit => "quit".to_string(),
                        SessionEnd::Lost(why) => why.clone(),
                        SessionEnd::Kicked => "another session logged in with our name".into(),
                    };
                    lost_why = Some(why);
                    self.status.update(|s| {
                        s.link.connected = false;
                        s.link.healthy = false;
                        s.link.logged_in_since_unix_ms = None;
                        s.link.disconnected_since_unix_ms = Some(status::unix_ms());
                        // The Lichess account's games go on.
                        s.games.retain(|g| g.site == "lichess");
                        s.observed.clear();
                    });
                    if started.elapsed() > Duration::from_secs(60) {
                        backoff.reset();
                    }
                    match end {
                        SessionEnd::Quit => {
                            notify(&[sd_notify::NotifyState::Stopping]);
                            self.emit(BotEvent::Stopping);
                            return Exit::Ok;
                        }
                        SessionEnd::Lost(why) => {
                            warn!("connection lost: {why}");
                            self.emit(BotEvent::Disconnected { why });
                            backoff.next_delay()
                        }
                        SessionEnd::Kicked => {
                            warn!("another session logged in with our name; waiting before trying again");
                            self.emit(BotEvent::Disconnected {
                                why: "kicked".into(),
                            });
                            backoff.max
                        }
                    }
                }
                Err(e) if e.is_credentials() => {
                    error!("login failed: {e}");
                    return Exit::Credentials;
                }
                Err(e @ LoginError::NoTimeseal { .. }) if !timeseal_refused => {
                    warn!("{e}; trying again without timeseal");
                    timeseal_refused = true;
                    backoff.min
                }
                Err(LoginError::NameInUse(n)) => {
                    name_in_use += 1;
                    warn!("the name {n} is in use");
                    if name_in_use >= 5 {
                        error!("the name {n} stayed in use; giving up");
                        return Exit::NameInUse;
                    }
                    backoff.next_delay()
                }
                Err(e) => {
                    warn!("cannot log in: {e}");
                    backoff.next_delay()
                }
            };
            if st.draining {
                return Exit::Ok;
            }
            notify(&[sd_notify::NotifyState::Status(&format!(
                "reconnecting in {:.0} s",
                delay.as_secs_f64()
            ))]);
            info!("reconnecting in {:.1} s", delay.as_secs_f64());
            let sleep = tokio::time::sleep(delay);
            tokio::pin!(sleep);
            loop {
                tokio::select! {
                    _ = &mut sleep => break,
                    m = self.control_rx.recv() => match m {
                        Some(ControlMsg::Reload) => self.reload_settings(&mut st, false),
                        _ => return Exit::Ok,
                    }
                }
            }
        }
    }

    /// The facts known at start (server, engine) and, read off the async threads,
    /// the results ledger from the PGN files and the learning counts.
    fn publish_start(&self, cfg: &ConnectConfig, st: &State) {
        let o = &st.opts;
        let facts = engine_facts(o);
        let (server, port, kind, handle) = (
            cfg.host.clone(),
            cfg.port,
            format!("{:?}", cfg.kind).to_ascii_lowercase(),
            cfg.handle.clone(),
        );
        self.status.update(|s| {
            s.link.server = server;
            s.link.port = port;
            s.link.server_type = kind;
            s.link.handle = handle;
            s.engine = facts;
            s.engine.healthy = true;
        });
        let files = st
            .archive
            .pgn
            .as_ref()
            .map(|p| history::archive_files(p, st.archive.pgn_keep))
            .unwrap_or_default();
        let lists = lists_dir(o);
        let handle = cfg.handle.clone();
        let bookpath = o.str("bookpath").trim().to_string();
        let tx = self.status.clone();
        // Off the async threads and without holding up the login: a big archive
        // takes a moment. Games that end meanwhile are kept, after the old ones.
        tokio::task::spawn_blocking(move || {
            let lists = Lists::load(&lists);
            let classify = |name: &str| status::class_name(lists.classify(name, false)).to_string();
            let mut results = history::Results::load(&files, &handle, &classify);
            let learning = learning_counts(&bookpath);
            info!(
                games = results.rows.len(),
                "results read from the PGN records"
            );
            tx.update(|s| {
                for row in &s.results.rows {
                    if let Some(p) = &row.pgn {
                        let who = match row.our_color {
                            Color::White => row.white.clone(),
                            Color::Black => row.black.clone(),
                        };
                        results.add_record(p, &who, &|_| row.class.clone());
                    }
                }
                s.results = Arc::new(results);
                s.engine.learning = learning;
            });
        });
    }

    /// A finished game: the counters, the results ledger, the learning counts.
    async fn record_result(
        &self,
        out: &GameOutcome,
        result: &str,
        reason: &str,
        opts: &crate::options::Options,
    ) {
        let su = &out.setup;
        let class = status::class_name(su.class).to_string();
        let finished = out
            .end
            .as_ref()
            .is_some_and(|e| archive::termination(&e.reason, &e.result) != "unterminated");
        let outcome = if out.end.is_none() {
            "lost".to_string()
        } else if !finished {
            "adjourned".to_string()
        } else {
            history::Outcome::of(result, su.our_color)
                .name()
                .to_string()
        };
        let forfeit = finished && archive::termination(reason, result) == "time forfeit";
        let lost_on_time =
            forfeit && history::Outcome::of(result, su.our_color) == history::Outcome::Loss;
        let won_on_time =
            forfeit && history::Outcome::of(result, su.our_color) == history::Outcome::Win;
        let pgn = out.pgn.clone().filter(|_| finished);
        let handle = match su.our_color {
            Color::White => su.white.clone(),
            Color::Black => su.black.clone(),
        };
        let game = su.game;
        self.status.update(|s| {
            s.games.retain(|g| g.game != game);
            *s.counters
                .games
                .entry(outcome)
                .or_default()
                .entry(class.clone())
                .or_insert(0) += 1;
            s.counters.time_forfeits_us += lost_on_time as u64;
            s.counters.time_forfeits_opponent += won_on_time as u64;
            if let Some(p) = &pgn {
                let mut r = (*s.results).clone();
                r.add_record(p, &handle, &|_| class.clone());
                s.results = Arc::new(r);
            }
        });
        if finished {
            let bookpath = opts.str("bookpath").trim().to_string();
            if let Ok(learning) =
                tokio::task::spawn_blocking(move || learning_counts(&bookpath)).await
            {
                self.status.update_if(|s| {
                    let changed = s.engine.learning != learning;
                    s.engine.learning = learning;
                    changed
                });
            }
        }
    }

    /// The observed games, after the observer changed.
    fn publish_observed(&self, st: &State) {
        let observed = st.observer.snapshot();
        self.status.update(|s| s.observed = observed);
    }

    fn reload_settings(&mut self, st: &mut State, in_game: bool) {
        let Some(f) = &self.reload else {
            info!("SIGHUP: no configuration file to reload");
            return;
        };
        match f() {
            Ok(s) => {
                info!(
                    "configuration reloaded{}",
                    if in_game {
                        " (engine sizes apply after this game)"
                    } else {
                        ""
                    }
                );
                let noplay_path = match s.options.str("bot.noplay_file") {
                    "" => None,
                    p => Some(PathBuf::from(p)),
                };
                st.formula = Formula::from_options(&s.options);
                st.noplay = NoPlay::load(noplay_path);
                st.archive = Archive::from_options(&s.options);
                st.lists = Lists::load(&lists_dir(&s.options));
                st.owners = Owners::parse(s.options.str("bot.owners")).unwrap_or_default();
                st.observer.configure(&s.options);
                st.opts = s.options;
                st.password = s.password;
            }
            Err(e) => error!("reload failed, keeping the old configuration: {e}"),
        }
    }

    fn seek_all(&self, w: &Writer, st: &State) {
        if st.draining || tournament(&st.opts) {
            return;
        }
        w.send(&ServerCommand::Unseek);
        for s in crate::settings::seeks(&st.opts) {
            w.send(&ServerCommand::Seek(s));
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn game_setup(
        &self,
        st: &State,
        game: u32,
        white: &str,
        black: &str,
        handle: &str,
        continuing: bool,
        kind: ServerKind,
        host: &str,
    ) -> GameSetup {
        let our_color = if white.eq_ignore_ascii_case(handle) {
            Color::White
        } else {
            Color::Black
        };
        let opponent = if our_color == Color::White {
            black
        } else {
            white
        }
        .to_string();
        let (mut wr, mut br, mut rated, mut gkind, mut minutes, mut inc) =
            (None, None, false, String::from("unknown"), 0, 0);
        if let Some(ServerEvent::Creating {
            white: cw,
            black: cb,
            white_rating,
            black_rating,
            rated: r,
            kind: k,
            minutes: m,
            increment: i,
        }) = &st.creating
        {
            if cw.eq_ignore_ascii_case(white) && cb.eq_ignore_ascii_case(black) {
                wr = *white_rating;
                br = *black_rating;
                rated = *r;
                gkind = k.clone();
                minutes = *m;
                inc = *i;
            }
        }
        let mut opts = st.opts.clone();
        // Unknown here for a resumed game, whose `Creating:` line comes after its
        // start: the game task takes the control from the first board.
        play::set_game_level(&mut opts, minutes as u64 * 60, inc as u64);
        // The opponent's class and talk (nothing list-based in tournament mode).
        let computer = st.computers.contains(&opponent.to_ascii_lowercase());
        let class = if tournament(&st.opts) {
            crate::game::OpponentClass::Normal
        } else {
            st.lists.classify(&opponent, computer)
        };
        if !tournament(&st.opts) {
            let mut rules = vec![crate::game::ClassRules::from_options(&st.opts, class)];
            if st.lists.auto_kibitz(&opponent) {
                rules.push(
                    crate::game::ClassRules::parse(st.opts.str("policy.autokibitz"))
                        .unwrap_or_default(),
                );
            }
            for r in rules {
                for (name, v) in [("kibitz", r.kibitz), ("whisper", r.whisper)] {
                    if let Some(v) = v {
                        let now = opts.int(name);
                        let _ =
                            opts.set_from(Source::Runtime, name, &(now.max(v as i64)).to_string());
                    }
                }
            }
        }
        let profile = crate::ics::ServerProfile::new(kind);
        GameSetup {
            game,
            white: white.to_string(),
            black: black.to_string(),
            our_color,
            opponent,
            white_rating: wr,
            black_rating: br,
            rated,
            kind: gkind,
            initial_secs: minutes * 60,
            increment: inc,
            continuing,
            fresh: !continuing,
            server: host.to_string(),
            clock_unit: profile.clock_unit,
            autoflag: profile.autoflag,
            opts,
            fault: self.fault,
            class,
            computer,
            status: self.status.clone(),
            decline_draws: false,
        }
    }

    fn start_game(&self, setup: GameSetup, w: &Writer, st: &mut State) -> Slot {
        st.observer.pause(true);
        let (tx, rx) = mpsc::unbounded_channel();
        let brain = st.brain.take();
        let span =
            info_span!("game", game = setup.game, white = %setup.white, black = %setup.black);
        let panic_now = self.task_panic_game == Some(setup.game)
            && !self
                .task_panicked
                .swap(true, std::sync::atomic::Ordering::SeqCst);
        let s2 = setup.clone();
        let w2 = w.clone();
        let handle = tokio::spawn(
            async move {
                if panic_now {
                    panic!("injected game task fault");
                }
                play::run(s2, w2, brain, rx).await
            }
            .instrument(span),
        );
        self.emit(BotEvent::GameStarted {
            game: setup.game,
            opponent: setup.opponent.clone(),
        });
        let live = status::LiveGame::of(&setup);
        self.status.update(|s| {
            s.games.retain(|g| g.game != live.game);
            s.games.push(live);
        });
        Slot {
            game: setup.game,
            setup,
            tx,
            handle,
        }
    }

    async fn finish_game(&self, mut out: GameOutcome, w: &Writer, st: &mut State) {
        st.brain = out.brain.take();
        st.observer.pause(false);
        let opp = out.setup.opponent.clone();
        let (result, reason) = match &out.end {
            Some(e) => (e.result.clone(), e.reason.clone()),
            None => (String::new(), "connection lost".into()),
        };
        {
            // The record: appended once the game has really ended; an adjourned game
            // (or one cut off with the connection) stays in progress until resumed.
            let archive = st.archive.clone();
            let pgn = out.pgn.clone();
            let finished = out
                .end
                .as_ref()
                .is_some_and(|e| archive::termination(&e.reason, &e.result) != "unterminated");
            let (white, black) = (out.setup.white.clone(), out.setup.black.clone());
            let _ = tokio::task::spawn_blocking(move || {
                let r = archive.record(&white, &black, pgn.as_deref(), finished);
                if let Err(e) = r {
                    error!("cannot write the game record: {e}");
                }
            })
            .await;
        }
        if out.end.is_some() {
            // Records.
            let archive = st.archive.clone();
            let log = out.log.clone();
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let name = format!(
                "game-{}-{secs}-{}-{}.log",
                play::pgn_date().replace('.', ""),
                out.setup.game,
                opp.to_ascii_lowercase()
            );
            let _ = tokio::task::spawn_blocking(move || {
                if let Err(e) = archive.write_log(&name, &log) {
                    error!("cannot write the game log: {e}");
                }
            })
            .await;
            // Rematch streak.
            if st.streak.0.eq_ignore_ascii_case(&opp) {
                st.streak.1 += 1;
            } else {
                st.streak = (opp.clone(), 1);
            }
            // Repeat aborters.
            let aborted = result == "*"
                && reason.to_ascii_lowercase().contains("abort")
                && out.opponent_moves == 0;
            let key = opp.to_ascii_lowercase();
            if aborted {
                let n = st.aborts.entry(key.clone()).or_insert(0);
                *n += 1;
                let limit = st.opts.int("bot.aborts_to_noplay") as u32;
                if limit > 0 && *n >= limit {
                    warn!(opponent = %opp, "repeat aborter: added to the noplay list");
                    if let Err(e) = st.noplay.add(&opp, "repeat aborter") {
                        error!("cannot write the noplay list: {e}");
                    }
                }
            } else {
                st.aborts.remove(&key);
            }
        }
        self.record_result(&out, &result, &reason, &st.opts).await;
        self.emit(BotEvent::GameEnded(Box::new(GameReport::new(
            out, result, reason,
        ))));
        let _ = w;
    }
}
