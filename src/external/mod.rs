//! External engines: any UCI or xboard (CECP v2) engine process behind the same
//! interface as the built-in engine (`engine::Searcher`), so the game controller,
//! the daemon's game task, talk, the window, the logs and the resign and draw
//! policy work with it unchanged. `engine.command` (empty: the built-in engine),
//! `engine.args`, `engine.dir`, `engine.protocol`, `engine.options` configure it.
//!
//! One driver thread per engine (`driver`) owns the process: it writes the protocol's lines,
//! reads the engine's through a reader thread (standard error goes to the log, every
//! line cut at a limit), turns `info`/thinking lines into `SearchEvent`s and the
//! best move into `SearchEvent::Done`. An engine never costs a game by itself: its
//! move is checked against our board, and an illegal or missing move, a crash, a
//! hang past `stop` plus a margin, garbage or a handshake that does not come are
//! each answered with the best legal move the engine last reported, or else a quick
//! move of the built-in engine, logged, and the process is started again for the
//! next search. Restarts in a row are counted (`health`) and spaced out.

mod driver;
pub mod protocol;

use crate::chess::{Board, Move};
use crate::egtb::Tablebase;
use crate::engine::{EventSink, SearchConfig, SearchLimits, Searcher};
use crate::options::Options;
use driver::Driver;
use protocol::{Identity, Protocol};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A line an engine writes longer than this is cut (and logged as cut).
pub const MAX_LINE: usize = 4096;
/// How long `bestmove` may take after `stop` before the engine counts as hung.
pub const STOP_MARGIN: Duration = Duration::from_millis(150);

/// How to run an external engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalConfig {
    pub command: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub protocol: Protocol,
    /// Options set after the handshake (UCI `setoption`, xboard `option`).
    pub options: Vec<(String, String)>,
    /// The handshake must be over within this.
    pub start_timeout: Duration,
    /// Let the engine ponder (UCI `go ponder`; xboard `hard`).
    pub ponder: bool,
}

/// `name = value, name = value` (also `;` between pairs).
pub fn parse_option_pairs(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for item in text
        .split([',', ';'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let Some((k, v)) = item.split_once('=') else {
            return Err(format!(
                "option {} has no `=` (write name = value)",
                out.len() + 1
            ));
        };
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() || k.chars().any(|c| c.is_control()) || v.chars().any(|c| c.is_control()) {
            return Err(format!("option {} is not name = value", out.len() + 1));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

impl ExternalConfig {
    /// The external engine the options name; `None`: the built-in engine.
    pub fn from_options(o: &Options) -> Option<Result<ExternalConfig, String>> {
        let command = o.str("engine.command").trim().to_string();
        if command.is_empty() {
            return None;
        }
        Some((|| {
            let protocol = Protocol::parse(o.str("engine.protocol"))
                .ok_or_else(|| "engine.protocol is uci or xboard".to_string())?;
            let options = parse_option_pairs(o.str("engine.options"))?;
            let dir = match o.str("engine.dir").trim() {
                "" => None,
                d => Some(PathBuf::from(d)),
            };
            Ok(ExternalConfig {
                command,
                args: o
                    .str("engine.args")
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
                dir,
                protocol,
                options,
                start_timeout: o.duration("engine.start_timeout"),
                ponder: o.bool("ponder"),
            })
        })())
    }
}

/// How an engine is doing, for the window and `/healthz`.
#[derive(Clone, Debug, Default)]
pub struct Health {
    pub healthy: bool,
    /// Restarts since it was last healthy (a crash loop counts up).
    pub restarts_in_a_row: u32,
    pub last_fault: Option<String>,
}

/// The health of the external engines of one daemon (its games' and its
/// observer's), by engine: read by the daemon for the window, `/healthz` and the
/// accounts (which take no new game while an engine is down).
#[derive(Clone, Default)]
pub struct HealthBoard(Arc<Mutex<Vec<(u64, Health)>>>);

static NEXT_DRIVER: AtomicU32 = AtomicU32::new(1);

impl std::fmt::Debug for HealthBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HealthBoard")
    }
}

impl HealthBoard {
    fn register(&self, id: u64, h: Health) {
        let mut r = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match r.iter_mut().find(|(i, _)| *i == id) {
            Some(e) => e.1 = h,
            None => r.push((id, h)),
        }
    }

    fn unregister(&self, id: u64) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|(i, _)| *i != id);
    }

    /// The engines' health together (`None`: no external engine runs): healthy
    /// when every one is; the longest crash loop and a fault.
    pub fn now(&self) -> Option<Health> {
        let r = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if r.is_empty() {
            return None;
        }
        Some(Health {
            healthy: r.iter().all(|(_, h)| h.healthy),
            restarts_in_a_row: r
                .iter()
                .map(|(_, h)| h.restarts_in_a_row)
                .max()
                .unwrap_or(0),
            last_fault: r
                .iter()
                .filter(|(_, h)| !h.healthy)
                .find_map(|(_, h)| h.last_fault.clone()),
        })
    }

    /// Why no new game should start now (an engine is down), if so.
    pub fn down(&self) -> Option<String> {
        self.now().filter(|h| !h.healthy).map(|h| {
            h.last_fault
                .unwrap_or_else(|| "the engine does not answer".into())
        })
    }
}

/// What the API and the reader threads tell the driver.
enum Msg {
    Go(Box<GoCmd>),
    Stop,
    PonderHit,
    NewGame,
    Quit,
    /// A line from the engine's standard output (process generation, text).
    Line(u64, String),
    /// Its standard output ended (generation, why).
    Eof(u64, String),
}

struct GoCmd {
    start: Board,
    moves: Vec<Move>,
    root: Board,
    limits: SearchLimits,
    overhead: Duration,
    sink: EventSink,
}

struct Shared {
    searching: Mutex<bool>,
    cv: Condvar,
    identity: Mutex<Option<Identity>>,
    healthy: AtomicBool,
    restarts: AtomicU32,
    last_fault: Mutex<Option<String>>,
}

impl Shared {
    fn health(&self) -> Health {
        Health {
            healthy: self.healthy.load(Ordering::SeqCst),
            restarts_in_a_row: self.restarts.load(Ordering::SeqCst),
            last_fault: self
                .last_fault
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        }
    }
}

/// An external engine process behind `Searcher`.
pub struct ExternalEngine {
    tx: mpsc::Sender<Msg>,
    shared: Arc<Shared>,
    cfg: ExternalConfig,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl ExternalEngine {
    /// Starts the engine (the handshake goes on in the background: a search asked
    /// for before it is over waits for it, within its own time).
    pub fn start(cfg: ExternalConfig) -> ExternalEngine {
        ExternalEngine::start_on(cfg, HealthBoard::default())
    }

    /// `start`, reporting its health on `board` (the daemon's).
    pub fn start_on(cfg: ExternalConfig, board: HealthBoard) -> ExternalEngine {
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            searching: Mutex::new(false),
            cv: Condvar::new(),
            identity: Mutex::new(None),
            healthy: AtomicBool::new(true),
            restarts: AtomicU32::new(0),
            last_fault: Mutex::new(None),
        });
        let (c2, s2, tx2) = (cfg.clone(), Arc::clone(&shared), tx.clone());
        let thread = std::thread::Builder::new()
            .name("external-engine".into())
            .spawn(move || Driver::new(c2, s2, tx2, board).run(rx))
            .expect("spawn the external engine's driver");
        ExternalEngine {
            tx,
            shared,
            cfg,
            thread: Mutex::new(Some(thread)),
        }
    }

    /// The engine's name, author and options once the handshake is over.
    pub fn identity(&self) -> Option<Identity> {
        self.shared
            .identity
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn health(&self) -> Health {
        self.shared.health()
    }

    pub fn config(&self) -> &ExternalConfig {
        &self.cfg
    }

    fn send(&self, m: Msg) {
        let _ = self.tx.send(m);
    }
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        self.send(Msg::Quit);
        if let Some(t) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = t.join();
        }
    }
}

/// The start position and the moves of a game board (its history).
fn start_and_moves(board: &Board) -> (Board, Vec<Move>) {
    let moves: Vec<Move> = board.moves_played().collect();
    let mut start = board.clone();
    for _ in &moves {
        start.unmake_move();
    }
    (start, moves)
}

impl Searcher for ExternalEngine {
    fn go(&self, board: &Board, limits: SearchLimits, config: SearchConfig, sink: EventSink) {
        self.stop();
        self.wait();
        *self
            .shared
            .searching
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = true;
        let (start, moves) = start_and_moves(board);
        self.send(Msg::Go(Box::new(GoCmd {
            start,
            moves,
            root: board.clone(),
            limits,
            overhead: config.move_overhead,
            sink,
        })));
    }
    fn stop(&self) {
        self.send(Msg::Stop);
    }
    fn ponderhit(&self) {
        self.send(Msg::PonderHit);
    }
    fn wait(&self) {
        let mut s = self
            .shared
            .searching
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        while *s {
            s = self.shared.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
    fn is_searching(&self) -> bool {
        *self
            .shared
            .searching
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
    fn new_game(&self) {
        self.stop();
        self.wait();
        self.send(Msg::NewGame);
    }
    fn clear_hash(&self) {
        self.stop();
        self.wait();
        self.send(Msg::NewGame);
    }
    fn set_threads(&self, _n: usize) {
        // The engine's own option (`engine.options = "Threads = 4"`).
    }
    fn threads(&self) -> usize {
        self.cfg
            .options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("threads"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1)
    }
    fn set_hash(&self, _bytes: usize) -> usize {
        self.hash_bytes()
    }
    fn hash_bytes(&self) -> usize {
        self.cfg
            .options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("hash"))
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .map_or(0, |mb| mb << 20)
    }
    fn set_pawn_hash(&self, _bytes: usize) {}
    fn set_tablebases(&self, _tables: Option<Arc<dyn Tablebase>>) {}
    fn tablebases(&self) -> Option<Arc<dyn Tablebase>> {
        None
    }
    fn preload(&self, _entries: &[(u64, i32, i32)]) {}
    fn name(&self) -> String {
        self.identity()
            .map(|i| i.name)
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| self.cfg.command.clone())
    }
}
