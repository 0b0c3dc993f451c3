//! `EngineHandle`: the engine's only API. It owns a transposition table, a set of
//! search workers (one per thread, kept between searches) and the shared stop and
//! ponder flags. `go` starts a search on its own OS threads and returns at once;
//! events arrive through the sink given to `go`, ending with `SearchEvent::Done`.
//! Several handles may exist at once, each with its own table and threads.
//!
//! A panic inside the search is caught here: the search ends with a legal fallback
//! move and `SearchResult::error` set, and the handle stays usable.

use super::events::{EventSink, SearchEvent, SearchResult};
use super::limits::{SearchConfig, SearchLimits};
use super::search::{Shared, ThreadResult, Worker};
use super::time::{allocate, Clock, SystemClock};
use super::tt::TranspositionTable;
use crate::chess::{Board, Move};
use crate::egtb::Tablebase;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;

/// Default pawn hash per thread.
pub const DEFAULT_PAWN_HASH: usize = 1 << 20;

struct Inner {
    tt: RwLock<TranspositionTable>,
    workers: Mutex<Vec<Worker>>,
    shared: Arc<Shared>,
    clock: Arc<dyn Clock>,
    pawn_hash: Mutex<usize>,
    /// Endgame tables the searches probe (none by default).
    tables: Mutex<Option<Arc<dyn Tablebase>>>,
}

/// Handle to one engine instance.
pub struct EngineHandle {
    inner: Arc<Inner>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl EngineHandle {
    /// An engine with `hash_bytes` of transposition table and `threads` search threads.
    pub fn new(hash_bytes: usize, threads: usize) -> EngineHandle {
        EngineHandle::with_clock(hash_bytes, threads, Arc::new(SystemClock::default()))
    }

    /// As `new`, reading time from `clock`.
    pub fn with_clock(hash_bytes: usize, threads: usize, clock: Arc<dyn Clock>) -> EngineHandle {
        let threads = threads.max(1);
        let workers = (0..threads)
            .map(|i| Worker::new(i, DEFAULT_PAWN_HASH))
            .collect();
        EngineHandle {
            inner: Arc::new(Inner {
                tt: RwLock::new(TranspositionTable::new(hash_bytes)),
                workers: Mutex::new(workers),
                shared: Arc::new(Shared::default()),
                clock,
                pawn_hash: Mutex::new(DEFAULT_PAWN_HASH),
                tables: Mutex::new(None),
            }),
            thread: Mutex::new(None),
        }
    }

    /// Starts a search of `board` (whose move history is used for repetitions).
    /// Any search still running is stopped first. Returns at once.
    pub fn go(&self, board: &Board, limits: SearchLimits, config: SearchConfig, sink: EventSink) {
        self.stop();
        self.wait();
        let inner = Arc::clone(&self.inner);
        inner.shared.stop.store(false, Ordering::SeqCst);
        inner.shared.abort.store(false, Ordering::SeqCst);
        inner
            .shared
            .pondering
            .store(limits.ponder, Ordering::SeqCst);
        inner.shared.nodes.store(0, Ordering::SeqCst);
        inner.shared.tb_hits.store(0, Ordering::SeqCst);
        let start = inner.clock.now();
        let board = board.clone();
        let handle = std::thread::Builder::new()
            .name("search-main".into())
            .stack_size(32 << 20)
            .spawn(move || {
                let result = run_search(&inner, &board, &limits, &config, start, &sink);
                sink(&SearchEvent::Done(result));
            })
            .expect("spawn search thread");
        *self.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
    }

    /// Asks the running search to stop; `Done` follows shortly.
    pub fn stop(&self) {
        self.inner.shared.pondering.store(false, Ordering::SeqCst);
        self.inner.shared.abort.store(true, Ordering::SeqCst);
        self.inner.shared.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: the ponder search becomes a normal
    /// timed search, counting the time already spent.
    pub fn ponderhit(&self) {
        self.inner.shared.pondering.store(false, Ordering::SeqCst);
    }

    /// Blocks until the current search (if any) has finished.
    pub fn wait(&self) {
        let h = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = h {
            let _ = h.join();
        }
    }

    /// True while a search runs.
    pub fn is_searching(&self) -> bool {
        self.thread
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|h| !h.is_finished())
    }

    /// Forgets everything about earlier games: table, histories, pawn hashes.
    pub fn new_game(&self) {
        self.stop();
        self.wait();
        self.inner
            .tt
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        for w in self
            .inner
            .workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter_mut()
        {
            w.new_game();
        }
    }

    /// Clears the transposition table only.
    pub fn clear_hash(&self) {
        self.stop();
        self.wait();
        self.inner
            .tt
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Number of search threads (applies from the next search).
    pub fn set_threads(&self, n: usize) {
        self.stop();
        self.wait();
        let n = n.clamp(1, 512);
        let ph = *self
            .inner
            .pawn_hash
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut ws = self.inner.workers.lock().unwrap_or_else(|e| e.into_inner());
        ws.truncate(n);
        while ws.len() < n {
            let id = ws.len();
            ws.push(Worker::new(id, ph));
        }
    }

    pub fn threads(&self) -> usize {
        self.inner
            .workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    /// Resizes the transposition table (clears it). Returns the size actually
    /// allocated, smaller than asked when the memory is not available.
    pub fn set_hash(&self, bytes: usize) -> usize {
        self.stop();
        self.wait();
        self.inner
            .tt
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .resize(bytes)
    }

    pub fn hash_bytes(&self) -> usize {
        self.inner
            .tt
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .size_bytes()
    }

    /// Resizes each thread's pawn hash.
    pub fn set_pawn_hash(&self, bytes: usize) {
        self.stop();
        self.wait();
        *self
            .inner
            .pawn_hash
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = bytes;
        for w in self
            .inner
            .workers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter_mut()
        {
            w.eval.resize_pawn_hash(bytes);
        }
    }

    /// Endgame tables for the searches from the next one on (`None`: no probes, the
    /// search is exactly what it is without tables).
    pub fn set_tablebases(&self, tables: Option<Arc<dyn Tablebase>>) {
        self.stop();
        self.wait();
        *self.inner.tables.lock().unwrap_or_else(|e| e.into_inner()) = tables;
    }

    /// The endgame tables the searches probe, if any.
    pub fn tablebases(&self) -> Option<Arc<dyn Tablebase>> {
        self.inner
            .tables
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Stores positions with known scores in the table before a search (position
    /// learning): `(key, score from the side to move, depth)`.
    pub fn preload(&self, entries: &[(u64, i32, i32)]) {
        let tt = self.inner.tt.read().unwrap_or_else(|e| e.into_inner());
        for &(key, score, depth) in entries {
            tt.store(
                key,
                0,
                Move::NULL,
                score,
                score,
                depth,
                super::tt::BOUND_EXACT,
                false,
            );
        }
    }

    /// Runs a search to completion on the calling thread's behalf and returns the
    /// result (convenience for tools and tests).
    pub fn search_sync(
        &self,
        board: &Board,
        limits: SearchLimits,
        config: SearchConfig,
    ) -> SearchResult {
        // The one implementation is the `Searcher` trait's.
        <Self as super::Searcher>::search_sync(self, board, limits, config)
    }
}

impl Drop for EngineHandle {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

fn fallback(board: &Board, error: String) -> SearchResult {
    let best = board
        .legal_moves()
        .iter()
        .next()
        .copied()
        .unwrap_or(Move::NULL);
    SearchResult {
        best,
        ponder: None,
        score: 0,
        depth: 0,
        nodes: 0,
        time: Default::default(),
        pv: if best.is_null() { vec![] } else { vec![best] },
        root_side: board.side_to_move(),
        error: Some(error),
    }
}

fn run_search(
    inner: &Arc<Inner>,
    board: &Board,
    limits: &SearchLimits,
    config: &SearchConfig,
    start: std::time::Duration,
    sink: &EventSink,
) -> SearchResult {
    let mut workers_guard = inner.workers.lock().unwrap_or_else(|e| e.into_inner());
    let mut workers: Vec<Worker> = std::mem::take(&mut *workers_guard);
    drop(workers_guard);
    if workers.is_empty() {
        workers.push(Worker::new(0, DEFAULT_PAWN_HASH));
    }
    let n_workers = workers.len();
    let tt = inner.tt.read().unwrap_or_else(|e| e.into_inner());
    tt.new_search();
    let budget = allocate(limits, config);
    let tables = inner
        .tables
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();

    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        for w in workers.iter_mut() {
            w.set_tablebase(tables.clone());
            w.prepare(
                board,
                limits,
                config,
                budget,
                start,
                Arc::clone(&inner.clock),
                Arc::clone(&inner.shared),
                if w.id == 0 {
                    Some(Arc::clone(sink))
                } else {
                    None
                },
                &tt,
            );
        }
        let results: Vec<ThreadResult> = std::thread::scope(|s| {
            let (main, helpers) = workers.split_first_mut().expect("one worker");
            let handles: Vec<_> = helpers
                .iter_mut()
                .map(|w| {
                    std::thread::Builder::new()
                        .name(format!("search-{}", w.id))
                        .stack_size(32 << 20)
                        .spawn_scoped(s, move || {
                            let r = w.iterative_deepening();
                            w.publish_nodes();
                            r
                        })
                        .expect("spawn helper thread")
                })
                .collect();
            let main_result = main.iterative_deepening();
            // Pondering or infinite analysis: the answer waits for stop/ponderhit.
            // The search may have ended by itself (depth, mate, a single reply); the
            // answer still waits until the front end says stop or ponderhit.
            while (limits.infinite || inner.shared.pondering.load(Ordering::SeqCst))
                && !inner.shared.abort.load(Ordering::SeqCst)
            {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            inner.shared.stop.store(true, Ordering::SeqCst);
            main.publish_nodes();
            let mut all = vec![main_result];
            for h in handles {
                match h.join() {
                    Ok(r) => all.push(r),
                    Err(p) => std::panic::resume_unwind(p),
                }
            }
            all
        });
        // Prefer the main thread; a helper that completed a deeper iteration with a
        // better score wins.
        let mut chosen = 0;
        for (i, r) in results.iter().enumerate().skip(1) {
            let c = &results[chosen];
            if !r.pv.is_empty() && r.depth > c.depth && r.score > c.score {
                chosen = i;
            }
        }
        let r = &results[chosen];
        let main = &mut workers[0];
        let best = r.pv.first().copied().unwrap_or(Move::NULL);
        let ponder = main.ponder_move(best, &r.pv);
        main.result(best, r.score, r.depth, r.pv.clone(), ponder)
    }));

    let result = match outcome {
        Ok(r) if !r.best.is_null() || board.legal_moves().is_empty() => r,
        Ok(_) => fallback(board, "search returned no move".into()),
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            // Workers may be in any state: rebuild them.
            let ph = *inner.pawn_hash.lock().unwrap_or_else(|e| e.into_inner());
            workers = (0..n_workers).map(|i| Worker::new(i, ph)).collect();
            fallback(board, format!("search panicked: {msg}"))
        }
    };
    for w in workers.iter_mut() {
        w.finish();
    }
    drop(tt);
    *inner.workers.lock().unwrap_or_else(|e| e.into_inner()) = workers;
    result
}
