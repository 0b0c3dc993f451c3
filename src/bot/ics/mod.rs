//! The ICS account (FICS, lasker or ICC): its supervisor connects, logs in, keeps
//! the link alive and reconnects with backoff and jitter, reporting the account's
//! state (connecting, logged in, backing off with the reason and the next try,
//! stopped) to the status. While connected (`connected`) it finds games (seeks, the
//! challenge formula, resuming adjourned games), answers owners' tells (`tells`),
//! observes, and runs each game's task through the ICS adapter (`adapter`), which
//! maps the server's boards and messages to the game port and back.
//!
//! `Hooks` is the extension point of this account: it sees every challenge verdict
//! and every server event the account does not consume, with the writer to answer.

pub mod adapter;
mod connected;
pub mod observe;
pub mod owner;
mod tells;

use super::archive::Archive;
use super::brain::Brain;
use super::formula::{Formula, NoPlay, Verdict};
use super::life::{Opponents, Slots};
use super::lists::Lists;
use super::play::port::{PortRx, PortSender, PortTx};
use super::play::{GameOutcome, GameSetup};
use super::status::{AccountStatus, StatusTx};
use super::{AccountCtx, BotEvent, Exit, Stop};
use crate::chess::Color;
use crate::ics::connection::{ConnectConfig, Connection, LoginError};
use crate::ics::timeseal::Version;
use crate::ics::{Backoff, Challenge, ServerEvent, ServerKind, Writer};
use crate::options::{Options, Source};
use crate::settings::Settings;
use observe::Observer;
use owner::Owners;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tracing::{error, info, info_span, warn, Instrument};

/// The account's name in the status, the games and the metrics.
pub const ACCOUNT: &str = "ics";

/// Hooks for the behaviour built on the ICS account.
pub trait Hooks: Send + Sync {
    /// May change the formula's verdict on a challenge.
    fn challenge(&self, _c: &Challenge, verdict: Verdict) -> Verdict {
        verdict
    }
    /// A server event the account did not consume (tells, kibitzes, observed
    /// boards, unknown lines).
    fn event(&self, _ev: &ServerEvent, _writer: &Writer) {}
}

pub struct NoHooks;
impl Hooks for NoHooks {}

/// The connection settings from the options.
pub fn connect_config(o: &Options, password: Option<crate::net::Secret>) -> ConnectConfig {
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

fn lists_dir(o: &Options) -> PathBuf {
    PathBuf::from(o.str("bot.lists").trim())
}

fn tournament(o: &Options) -> bool {
    o.text("mode") == "tournament"
}

/// Seeks as configured (not while shutting down or in tournament mode).
fn seek(w: &Writer, st: &State) {
    if st.draining || tournament(&st.opts) {
        return;
    }
    w.send(&crate::ics::ServerCommand::Unseek);
    for s in crate::settings::seeks(&st.opts) {
        w.send(&crate::ics::ServerCommand::Seek(s));
    }
}

/// How a connected stretch ended.
enum SessionEnd {
    Quit,
    Lost(String),
    Kicked,
    /// We dropped the link to leave a game the opponent never started.
    Left(String),
}

impl SessionEnd {
    fn why(self) -> String {
        match self {
            SessionEnd::Lost(w) | SessionEnd::Left(w) => w,
            SessionEnd::Quit => "quit".into(),
            SessionEnd::Kicked => "kicked".into(),
        }
    }
}

/// The account's state across connections.
struct State {
    opts: Options,
    password: Option<crate::net::Secret>,
    formula: Formula,
    noplay: NoPlay,
    archive: Archive,
    brain: Option<Brain>,
    draining: bool,
    slots: Slots,
    opponents: Opponents,
    /// Panics per game number in this session.
    panics: HashMap<u32, u32>,
    creating: Option<ServerEvent>,
    /// Opponents whose adjourned games wait for a free slot.
    resume: Vec<String>,
    /// Opponents we sent `match` to resume our adjourned game with (lower case):
    /// their next game is a resumed one, whether or not the server says
    /// `Continuing` (ICC's game start does not).
    resuming: std::collections::HashSet<String>,
    /// Opponents (lower case) whose game we left because they never made a first
    /// move: their adjourned game is not resumed by us.
    left: std::collections::HashSet<String>,
    lists: Lists,
    owners: Owners,
    observer: Observer,
    /// Handles the server showed with the computer title `(C)`.
    computers: std::collections::HashSet<String>,
    /// A seek was due while the external engine was down: made when it answers
    /// again (the connected loop's tick), however short the fault was.
    seek_owed: std::sync::atomic::AtomicBool,
    /// When each non-owner was last refused (one refusal per handle per 10 minutes).
    refused: HashMap<String, Instant>,
}

impl State {
    fn new(s: &Settings) -> State {
        let opts = s.options.clone();
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
            password: s.password.clone(),
            opts,
            brain: None,
            draining: false,
            slots: Slots::new(1),
            opponents: Opponents::default(),
            panics: HashMap::new(),
            creating: None,
            resume: Vec::new(),
            resuming: Default::default(),
            left: Default::default(),
            computers: Default::default(),
            seek_owed: Default::default(),
            refused: HashMap::new(),
        }
    }

    /// New settings (SIGHUP): everything but the engine of a game in progress.
    fn reload(&mut self, s: &Settings) {
        let noplay_path = match s.options.str("bot.noplay_file") {
            "" => None,
            p => Some(PathBuf::from(p)),
        };
        self.formula = Formula::from_options(&s.options);
        self.noplay = NoPlay::load(noplay_path);
        self.archive = Archive::from_options(&s.options);
        self.lists = Lists::load(&lists_dir(&s.options));
        self.owners = Owners::parse(s.options.str("bot.owners")).unwrap_or_default();
        self.observer.configure(&s.options);
        self.opts = s.options.clone();
        self.password = s.password.clone();
    }
}

/// A game task's end, with its number.
type TaskEnd = (u32, Result<GameOutcome, tokio::task::JoinError>);

/// The ICS account's supervisor.
struct Account {
    ctx: AccountCtx,
    st: State,
    /// The game tasks, across connections (a task cut off with its connection
    /// ends on its own and still goes through the finish path).
    tasks: tokio::task::JoinSet<TaskEnd>,
    /// The tasks' port commands, tagged with their game numbers.
    port: PortSender,
    port_rx: PortRx,
}

impl Account {
    fn status(&self) -> &StatusTx {
        &self.ctx.frame.status
    }

    fn set_state(&self, f: impl FnOnce(&mut AccountStatus)) {
        self.status().update(|s| {
            if let Some(a) = s.account_mut(ACCOUNT) {
                f(a);
            }
        });
    }

    fn emit(&self, e: BotEvent) {
        self.ctx.frame.emit(e);
    }

    /// Applies the frame's new settings (after `settings.changed()`).
    fn take_reload(&mut self) {
        let s = self.ctx.settings.borrow_and_update().clone();
        self.st.reload(&s);
    }

    /// The setup of a game that starts (or that we see for the first time).
    #[allow(clippy::too_many_arguments)]
    fn game_setup(
        &self,
        game: u32,
        white: &str,
        black: &str,
        handle: &str,
        continuing: bool,
        kind: ServerKind,
        host: &str,
    ) -> GameSetup {
        let st = &self.st;
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
        // start: the game task takes the control from the first position.
        super::play::set_game_level(&mut opts, minutes as u64 * 60, inc as u64);
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
            account: ACCOUNT.to_string(),
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
            site: host.to_string(),
            autoflag: profile.autoflag,
            opts,
            fault: self.ctx.frame.fault_now(),
            class,
            computer,
            status: self.status().clone(),
            engines: self.ctx.frame.engines.clone(),
            max_takebacks: 0,
        }
    }

    fn seek_all(&self, w: &Writer) {
        // No seeks while the external engine is down: the connected loop seeks
        // when it answers again.
        if self.ctx.frame.engines.down().is_none() {
            self.st
                .seek_owed
                .store(false, std::sync::atomic::Ordering::Relaxed);
            seek(w, &self.st);
        } else {
            self.st
                .seek_owed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The observed games, after the observer changed.
    fn publish_observed(&self) {
        let observed = self.st.observer.snapshot();
        self.status().update(|s| s.observed = observed);
    }

    /// Waits `delay` before the next try; the exit status when the account ends
    /// meanwhile.
    async fn wait(&mut self, delay: Duration) -> Option<Exit> {
        let sleep = tokio::time::sleep(delay);
        tokio::pin!(sleep);
        let mut beat = tokio::time::interval(Duration::from_secs(5));
        loop {
            tokio::select! {
                _ = &mut sleep => return None,
                _ = beat.tick() => self.ctx.beat.beat(),
                Some(end) = self.tasks.join_next(), if !self.tasks.is_empty() => {
                    if let Ok(end) = end {
                        self.task_ended(end, None).await;
                    }
                }
                // Commands of tasks whose connection is gone go nowhere.
                Some(_) = self.port_rx.recv() => {}
                changed = self.ctx.stop.changed() => {
                    if super::requested(changed, &self.ctx.stop) != Stop::Run {
                        return Some(Exit::Ok);
                    }
                }
                r = self.ctx.settings.changed() => {
                    if r.is_ok() {
                        self.take_reload();
                    }
                }
            }
        }
    }

    async fn run(&mut self) -> Exit {
        let o = self.st.opts.clone();
        let cfg = connect_config(&o, self.st.password.clone());
        let _lock =
            match super::archive::lock_instance(&self.st.archive.dir, &cfg.host, &cfg.handle) {
                Ok(f) => f,
                Err(e) => {
                    error!("{e}");
                    self.set_state(|a| a.stopped(&e.to_string()));
                    return Exit::Locked;
                }
            };
        let mut backoff = Backoff::new(
            o.duration("ics.reconnect_min"),
            o.duration("ics.reconnect_max"),
        );
        let mut name_in_use = 0;
        let mut timeseal_refused = false;
        loop {
            if *self.ctx.stop.borrow() != Stop::Run {
                self.set_state(|a| a.stopped("shutdown"));
                return Exit::Ok;
            }
            self.ctx.beat.beat();
            let mut cfg = connect_config(&self.st.opts, self.st.password.clone());
            if timeseal_refused {
                cfg.timeseal = None;
            }
            self.set_state(|a| a.connecting());
            let span = info_span!("connection", server = %cfg.host, port = cfg.port);
            let attempt = async {
                let mut conn = Connection::open(&cfg).await?;
                conn.login(&cfg).await?;
                Ok::<Connection, LoginError>(conn)
            }
            .instrument(span.clone());
            let attempt = tokio::select! {
                a = attempt => a,
                changed = self.ctx.stop.changed() => {
                    if super::requested(changed, &self.ctx.stop) != Stop::Run {
                        self.set_state(|a| a.stopped("shutdown"));
                        return Exit::Ok;
                    }
                    continue;
                }
            };
            let (delay, why) = match attempt {
                Ok(conn) => {
                    name_in_use = 0;
                    self.emit(BotEvent::LoggedIn {
                        handle: conn.handle.clone(),
                    });
                    self.ctx.ledger.add_handle(&conn.handle);
                    let handle = conn.handle.clone();
                    self.set_state(|a| a.logged_in(&handle));
                    let started = Instant::now();
                    let end = self.connected(conn, &cfg).instrument(span).await;
                    self.st.slots.forget_accepts();
                    self.status().update(|s| {
                        s.games.retain(|g| g.site != ACCOUNT);
                        s.observed.clear();
                    });
                    if started.elapsed() > Duration::from_secs(60) {
                        backoff.reset();
                    }
                    match end {
                        SessionEnd::Quit => {
                            self.set_state(|a| a.stopped("shutdown"));
                            return Exit::Ok;
                        }
                        SessionEnd::Lost(why) => {
                            warn!("connection lost: {why}");
                            self.emit(BotEvent::Disconnected { why: why.clone() });
                            (backoff.next_delay(), why)
                        }
                        SessionEnd::Left(why) => {
                            warn!("{why}: logging in again");
                            self.emit(BotEvent::Disconnected { why: why.clone() });
                            (backoff.min, why)
                        }
                        SessionEnd::Kicked => {
                            warn!("another session logged in with our name; waiting before trying again");
                            self.emit(BotEvent::Disconnected {
                                why: "kicked".into(),
                            });
                            (
                                backoff.max,
                                "another session logged in with our name".to_string(),
                            )
                        }
                    }
                }
                Err(e) if e.is_credentials() => {
                    error!("login failed: {e}");
                    self.set_state(|a| a.stopped(&format!("login refused: {e}")));
                    return Exit::Credentials;
                }
                Err(e @ LoginError::NoTimeseal { .. }) if !timeseal_refused => {
                    warn!("{e}; trying again without timeseal");
                    timeseal_refused = true;
                    (backoff.min, e.to_string())
                }
                Err(LoginError::NameInUse(n)) => {
                    name_in_use += 1;
                    warn!("the name {n} is in use");
                    if name_in_use >= 5 {
                        error!("the name {n} stayed in use; giving up");
                        self.set_state(|a| a.stopped(&format!("the name {n} stayed in use")));
                        return Exit::NameInUse;
                    }
                    (backoff.next_delay(), format!("the name {n} is in use"))
                }
                Err(e) => {
                    warn!("cannot log in: {e}");
                    (backoff.next_delay(), format!("cannot log in: {e}"))
                }
            };
            if self.st.draining {
                self.set_state(|a| a.stopped("shutdown"));
                return Exit::Ok;
            }
            info!("reconnecting in {:.1} s", delay.as_secs_f64());
            self.set_state(|a| a.backing_off(&why, delay));
            if let Some(exit) = self.wait(delay).await {
                self.set_state(|a| a.stopped("shutdown"));
                return exit;
            }
        }
    }
}

/// Runs the ICS account until the frame stops it or the server refuses it for good.
pub async fn run(ctx: AccountCtx) -> Exit {
    let settings = ctx.settings.borrow().clone();
    let o = &settings.options;
    let cfg = connect_config(o, None);
    ctx.frame.status.update(|s| {
        s.set_account(AccountStatus::new(
            ACCOUNT,
            &cfg.host,
            cfg.port,
            &format!("{:?}", cfg.kind).to_ascii_lowercase(),
            &cfg.handle,
        ))
    });
    let (port, port_rx) = PortTx::channel();
    let mut a = Account {
        st: State::new(&settings),
        ctx,
        tasks: tokio::task::JoinSet::new(),
        port,
        port_rx,
    };
    a.run().await
}
