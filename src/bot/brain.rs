//! The engine side of a game: one OS thread that owns the game controller (`Game`,
//! and through it the `EngineHandle`) and talks to the async game task through
//! channels only, so the network never waits on the engine. The task sends the
//! server's position as a full move list; the thread brings the controller there
//! (one new move keeps a ponder search, anything else rebuilds the history), thinks
//! when it is our move, ponders after our move, and reports iterations and moves.
//!
//! A panic on this thread is caught and reported (`BrainEvent::Died`); a thread that
//! stops answering is abandoned by the task and a fresh one started.

use crate::chess::{Board, Color, Move};
use crate::engine::{EventSink, SearchEvent};
use crate::game::{EngineAction, EngineState, Game, Opponent};
use crate::options::Options;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The game controller for an engine thread: searching with the external engine
/// `engine.command` names (a process of its own), else with the built-in engine.
pub fn new_game(opts: &Options, engines: &crate::external::HealthBoard) -> Game {
    match crate::external::ExternalConfig::from_options(opts) {
        None => Game::new(opts),
        Some(Ok(cfg)) => {
            let engine = crate::external::ExternalEngine::start_on(cfg, engines.clone());
            Game::with_searcher(
                opts,
                Arc::new(crate::engine::time::SystemClock::default()),
                Arc::new(engine),
            )
        }
        Some(Err(e)) => {
            tracing::error!("engine.command: {e}; playing with the built-in engine");
            Game::new(opts)
        }
    }
}

/// Installs kibitzer's book (and learning) in `game`, unless an external engine
/// plays every move (`engine.book = off`).
fn install_book(game: &mut Game, opts: &Options) {
    if !opts.str("engine.command").trim().is_empty() && !opts.bool("engine.book") {
        return;
    }
    for n in crate::game::book_keeper::install(game, opts) {
        tracing::info!("{n}");
    }
}

/// Faults to inject (the test suite uses them to check the daemon survives them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The search thread panics while searching at this ply (the engine catches it
    /// and answers with a fallback move and an error).
    SearchPanic { ply: usize },
    /// The brain thread panics when asked to think at this ply.
    BrainPanic { ply: usize },
    /// The engine ignores `stop` and never answers at this ply.
    Hang { ply: usize },
}

/// What the game task asks.
pub enum BrainCmd {
    NewGame {
        opts: Box<Options>,
        side: Color,
        opponent: Opponent,
        /// The fault injected in this game (tests).
        fault: Option<Fault>,
    },
    /// The position as the server has it; `think`: search now (it is our move).
    Position {
        start: Box<Board>,
        moves: Vec<Move>,
        white: Duration,
        black: Duration,
        overhead: Duration,
        think: bool,
    },
    /// The opponent offers a draw: answer with `DrawAnswer`.
    DrawOffered,
    /// New options mid-game (talk, mode, operator reserve): the controller is
    /// reconfigured (engine sizes wait for the next game).
    Configure(Box<Options>),
    /// The game's result as the server announced it (`1-0`, `0-1`, `1/2-1/2`), for
    /// learning.
    Result { result: String, reason: String },
    /// Stop the current search (its move still comes).
    Stop,
    /// The game is over (a result, an adjournment, an abort, a lost connection):
    /// stop every search at once and stay idle until the next `NewGame`; a search
    /// that ends after this plays nothing and starts no pondering.
    GameOver,
    /// Stop everything and end the thread.
    Quit,
    #[doc(hidden)]
    SearchDone,
}

/// What the brain reports.
#[derive(Clone, Debug)]
pub enum BrainEvent {
    /// A finished iteration of the search for our move at `ply`.
    Info {
        ply: usize,
        depth: i32,
        score: i32,
        nodes: u64,
        time: Duration,
        pv: Vec<Move>,
    },
    /// Inside an iteration of the search for our move: a new best move, a fail high
    /// or a fail low (talk level 6).
    Change {
        ply: usize,
        kind: crate::bot::talk::Change,
        depth: i32,
        score: i32,
        nodes: u64,
        time: Duration,
        pv: Vec<Move>,
    },
    /// Our move at `ply` (already made in the controller) in the position with
    /// this Zobrist `key` (a takeback can bring back the same ply in another one).
    Move {
        ply: usize,
        key: u64,
        mv: Move,
        score: i32,
        depth: i32,
        nodes: u64,
        time: Duration,
        pv: Vec<Move>,
        offer_draw: bool,
        from_hook: bool,
        /// The book's candidates with their chances (`e4 45%, d4 35%`) when the move
        /// came from the book.
        book: Option<String>,
        error: Option<String>,
    },
    /// The policy resigns at `ply`.
    Resign {
        ply: usize,
        score: i32,
    },
    DrawAnswer {
        accept: bool,
        score: i32,
    },
    /// The thread died (a panic), with the message.
    Died(String),
}

/// The handle the game task holds.
pub struct Brain {
    tx: std_mpsc::Sender<BrainCmd>,
    pub events: mpsc::UnboundedReceiver<BrainEvent>,
    thread: Option<std::thread::JoinHandle<()>>,
    busy: Arc<AtomicBool>,
}

impl Brain {
    /// Starts a brain with the engine sized by `opts` (hash, threads), or the
    /// external engine they name (its health reported on `engines`).
    pub fn spawn(
        opts: &Options,
        fault: Option<Fault>,
        engines: crate::external::HealthBoard,
    ) -> Brain {
        let (tx, rx) = std_mpsc::channel::<BrainCmd>();
        let (etx, erx) = mpsc::unbounded_channel();
        let opts = opts.clone();
        let tx2 = tx.clone();
        let busy = Arc::new(AtomicBool::new(false));
        let busy2 = Arc::clone(&busy);
        let thread = std::thread::Builder::new()
            .name("brain".into())
            .spawn(move || {
                let etx2 = etx.clone();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                    run(opts, rx, tx2, etx, fault, busy2, engines)
                }));
                if let Err(p) = r {
                    let msg = p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown panic".into());
                    let _ = etx2.send(BrainEvent::Died(msg));
                }
            })
            .expect("spawn brain thread");
        Brain {
            tx,
            events: erx,
            thread: Some(thread),
            busy,
        }
    }

    pub fn send(&self, cmd: BrainCmd) {
        let _ = self.tx.send(cmd);
    }

    /// Asks the thread to end and detaches it (it may be stuck in the engine).
    pub fn abandon(mut self) {
        let _ = self.tx.send(BrainCmd::Quit);
        self.thread.take();
    }

    /// True while the engine searches (thinking or pondering), as of the last
    /// command the thread handled.
    pub fn is_searching(&self) -> bool {
        self.busy.load(Ordering::SeqCst)
    }

    /// True while the thread runs.
    pub fn is_alive(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }
}

impl Drop for Brain {
    fn drop(&mut self) {
        let _ = self.tx.send(BrainCmd::Quit);
    }
}

struct State {
    game: Game,
    etx: mpsc::UnboundedSender<BrainEvent>,
    fault: Option<Fault>,
    /// Ply of the search for our move in progress.
    ply: Arc<Mutex<usize>>,
    /// A game is in progress (between `NewGame` and `GameOver`).
    live: bool,
    /// Shared with the handle: the engine is searching (thinking or pondering).
    busy: Arc<AtomicBool>,
}

fn sink(st: &State) -> EventSink {
    let etx = st.etx.clone();
    let ply = Arc::clone(&st.ply);
    let panic_at = match st.fault {
        Some(Fault::SearchPanic { ply }) => Some(ply),
        _ => None,
    };
    Arc::new(move |e: &SearchEvent| {
        let p = *ply.lock().unwrap_or_else(|e| e.into_inner());
        use crate::bot::talk::Change;
        let (kind, i) = match e {
            SearchEvent::Iteration(i) => {
                if panic_at == Some(p) && i.depth >= 2 {
                    panic!("injected search fault at ply {p}");
                }
                let _ = etx.send(BrainEvent::Info {
                    ply: p,
                    depth: i.depth,
                    score: i.score,
                    nodes: i.nodes,
                    time: i.time,
                    pv: i.pv.clone(),
                });
                return;
            }
            SearchEvent::NewBest(i) => (Change::NewBest, i),
            SearchEvent::FailHigh(i) => (Change::FailHigh, i),
            SearchEvent::FailLow(i) => (Change::FailLow, i),
            _ => return,
        };
        let _ = etx.send(BrainEvent::Change {
            ply: p,
            kind,
            depth: i.depth,
            score: i.score,
            nodes: i.nodes,
            time: i.time,
            pv: i.pv.clone(),
        });
    })
}

fn same_start(a: &Board, b: &Board) -> bool {
    a.to_fen() == b.to_fen()
}

fn run(
    opts: Options,
    rx: std_mpsc::Receiver<BrainCmd>,
    tx: std_mpsc::Sender<BrainCmd>,
    etx: mpsc::UnboundedSender<BrainEvent>,
    fault: Option<Fault>,
    busy: Arc<AtomicBool>,
    engines: crate::external::HealthBoard,
) {
    let mut game = new_game(&opts, &engines);
    install_book(&mut game, &opts);
    let notify_tx = Mutex::new(tx);
    game.set_notify(Arc::new(move || {
        let _ = notify_tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(BrainCmd::SearchDone);
    }));
    let mut st = State {
        game,
        etx,
        fault,
        ply: Arc::new(Mutex::new(0)),
        live: false,
        busy,
    };
    while let Ok(cmd) = rx.recv() {
        match cmd {
            BrainCmd::GameOver => {
                st.live = false;
                st.game.abort_search();
            }
            BrainCmd::Quit => break,
            BrainCmd::NewGame {
                opts,
                side,
                opponent,
                fault,
            } => {
                st.fault = fault;
                st.game.abort_search();
                st.game.configure(&opts);
                install_book(&mut st.game, &opts);
                st.game.new_game();
                st.game.set_engine_side(Some(side));
                *st.game.opponent_mut() = opponent;
                st.live = true;
            }
            BrainCmd::Configure(opts) => st.game.configure(&opts),
            BrainCmd::Result { result, reason } => {
                if let Some(o) = crate::game::Outcome::parse(&result) {
                    st.game.set_result(o, &reason);
                }
                for n in st.game.take_notes() {
                    tracing::info!("{n}");
                }
            }
            BrainCmd::Stop => st.game.stop(),
            BrainCmd::DrawOffered => {
                let accept = st.game.draw_offered();
                let score = st.game.last_score().unwrap_or(0);
                let _ = st.etx.send(BrainEvent::DrawAnswer { accept, score });
            }
            BrainCmd::SearchDone => finished(&mut st),
            BrainCmd::Position {
                start,
                moves,
                white,
                black,
                overhead,
                think,
            } => {
                if st.live {
                    position(&mut st, &start, &moves, white, black, overhead, think);
                }
            }
        }
        st.busy
            .store(st.game.state() != EngineState::Idle, Ordering::SeqCst);
    }
    st.game.abort_search();
    st.busy.store(false, Ordering::SeqCst);
}

#[allow(clippy::too_many_arguments)]
fn position(
    st: &mut State,
    start: &Board,
    moves: &[Move],
    white: Duration,
    black: Duration,
    overhead: Duration,
    think: bool,
) {
    let cur: Vec<Move> = st.game.moves().iter().map(|m| m.mv).collect();
    let mut incremental = false;
    if same_start(st.game.start_position(), start) {
        if cur.as_slice() == moves {
            incremental = true;
        } else if moves.len() == cur.len() + 1 && moves[..cur.len()] == cur[..] {
            incremental = st.game.opponent_move(moves[cur.len()]).is_ok();
        }
    }
    if !incremental {
        st.game.set_position(start.clone());
        for &m in moves {
            if st.game.make_move(m).is_err() {
                break;
            }
        }
    }
    {
        let c = st.game.clocks_mut();
        c.set_left(Color::White, white);
        c.set_left(Color::Black, black);
    }
    let side = st.game.side_to_move();
    st.game.clocks_mut().start(side);
    st.game.config_mut().move_overhead = overhead;
    st.game.clear_result();
    // A repetition or the 50-move rule ends nothing on a server until claimed, so
    // the controller's own result does not stop us from playing on.
    let our_turn = st.game.engine_side() == Some(side) && st.game.board().has_legal_move();
    if !think || !our_turn {
        return;
    }
    let ply = moves.len();
    *st.ply.lock().unwrap_or_else(|e| e.into_inner()) = ply;
    match st.fault {
        Some(Fault::BrainPanic { ply: p }) if p == ply => {
            panic!("injected brain fault at ply {ply}")
        }
        Some(Fault::Hang { ply: p }) if p == ply => {
            // An engine that ignores `stop`: nothing answers for a long while.
            std::thread::sleep(Duration::from_secs(3600));
            return;
        }
        _ => {}
    }
    if st.game.state() == EngineState::Thinking {
        // A ponder hit: the search goes on and answers by itself.
        return;
    }
    let s = sink(st);
    st.game.think(s);
}

fn finished(st: &mut State) {
    let Some(f) = st.game.take_finished() else {
        return;
    };
    if f.state != EngineState::Thinking || !st.live {
        return;
    }
    let ply = st.game.moves().len();
    let key = st.game.board().key();
    let r = f.result;
    match st.game.engine_move(&r) {
        EngineAction::Move { mv, offer_draw, .. } => {
            let mut book = None;
            for n in st.game.take_notes() {
                match crate::bot::talk::book_note(&n) {
                    Some(b) if f.from_hook => book = Some(b),
                    _ => tracing::debug!("{n}"),
                }
            }
            let _ = st.etx.send(BrainEvent::Move {
                book,
                ply,
                key,
                mv,
                score: r.score,
                depth: r.depth,
                nodes: r.nodes,
                time: r.time,
                pv: r.pv.clone(),
                offer_draw,
                from_hook: f.from_hook,
                error: r.error.clone(),
            });
            if st.game.ponder_enabled() {
                *st.ply.lock().unwrap_or_else(|e| e.into_inner()) = ply + 2;
                let s = sink(st);
                st.game.start_pondering(s);
            }
        }
        EngineAction::Resign => {
            let _ = st.etx.send(BrainEvent::Resign {
                ply,
                score: r.score,
            });
        }
        EngineAction::None => {}
    }
}
