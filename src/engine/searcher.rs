//! `Searcher`: what the game controller needs of an engine, so the built-in engine
//! (`EngineHandle`) and an external UCI/xboard engine process (`crate::external`)
//! sit behind the same interface. `go` returns at once; the events of the search
//! arrive through its sink and end with `SearchEvent::Done`.

use super::events::{EventSink, SearchEvent, SearchResult};
use super::limits::{SearchConfig, SearchLimits};
use crate::chess::Board;
use crate::egtb::Tablebase;
use std::sync::Arc;

pub trait Searcher: Send + Sync {
    /// Starts a search of `board` (its move history is the game's: repetitions, and
    /// for an external engine the moves it is told). Any search still running is
    /// stopped first.
    fn go(&self, board: &Board, limits: SearchLimits, config: SearchConfig, sink: EventSink);
    /// Asks the running search to stop; `Done` follows.
    fn stop(&self);
    /// The expected move was played: the ponder search becomes a normal one.
    fn ponderhit(&self);
    /// Blocks until the current search (if any) has finished.
    fn wait(&self);
    fn is_searching(&self) -> bool;
    /// Forgets earlier games.
    fn new_game(&self);
    fn clear_hash(&self);
    fn set_threads(&self, n: usize);
    fn threads(&self) -> usize;
    /// Resizes the hash; returns the size in use.
    fn set_hash(&self, bytes: usize) -> usize;
    fn hash_bytes(&self) -> usize;
    fn set_pawn_hash(&self, bytes: usize);
    fn set_tablebases(&self, tables: Option<Arc<dyn Tablebase>>);
    fn tablebases(&self) -> Option<Arc<dyn Tablebase>>;
    /// Positions with known scores, stored before a search (position learning);
    /// an engine that cannot take them ignores them.
    fn preload(&self, entries: &[(u64, i32, i32)]);
    /// A short name for logs and the window (`kibitzer`, `Stockfish 15.1`).
    fn name(&self) -> String;

    /// Runs a search to completion and returns its result (tools and tests).
    fn search_sync(
        &self,
        board: &Board,
        limits: SearchLimits,
        config: SearchConfig,
    ) -> SearchResult {
        let (tx, rx) = std::sync::mpsc::channel();
        let tx = std::sync::Mutex::new(tx);
        let sink: EventSink = Arc::new(move |e: &SearchEvent| {
            if let SearchEvent::Done(r) = e {
                let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send(r.clone());
            }
        });
        self.go(board, limits, config, sink);
        let r = rx.recv();
        self.wait();
        r.unwrap_or_else(|_| SearchResult {
            best: crate::chess::Move::NULL,
            ponder: None,
            score: 0,
            depth: 0,
            nodes: 0,
            time: std::time::Duration::ZERO,
            pv: Vec::new(),
            root_side: board.side_to_move(),
            error: Some("the search ended without a result".into()),
        })
    }
}

impl Searcher for super::EngineHandle {
    fn go(&self, board: &Board, limits: SearchLimits, config: SearchConfig, sink: EventSink) {
        super::EngineHandle::go(self, board, limits, config, sink)
    }
    fn stop(&self) {
        super::EngineHandle::stop(self)
    }
    fn ponderhit(&self) {
        super::EngineHandle::ponderhit(self)
    }
    fn wait(&self) {
        super::EngineHandle::wait(self)
    }
    fn is_searching(&self) -> bool {
        super::EngineHandle::is_searching(self)
    }
    fn new_game(&self) {
        super::EngineHandle::new_game(self)
    }
    fn clear_hash(&self) {
        super::EngineHandle::clear_hash(self)
    }
    fn set_threads(&self, n: usize) {
        super::EngineHandle::set_threads(self, n)
    }
    fn threads(&self) -> usize {
        super::EngineHandle::threads(self)
    }
    fn set_hash(&self, bytes: usize) -> usize {
        super::EngineHandle::set_hash(self, bytes)
    }
    fn hash_bytes(&self) -> usize {
        super::EngineHandle::hash_bytes(self)
    }
    fn set_pawn_hash(&self, bytes: usize) {
        super::EngineHandle::set_pawn_hash(self, bytes)
    }
    fn set_tablebases(&self, tables: Option<Arc<dyn Tablebase>>) {
        super::EngineHandle::set_tablebases(self, tables)
    }
    fn tablebases(&self) -> Option<Arc<dyn Tablebase>> {
        super::EngineHandle::tablebases(self)
    }
    fn preload(&self, entries: &[(u64, i32, i32)]) {
        super::EngineHandle::preload(self, entries)
    }
    fn name(&self) -> String {
        format!("kibitzer {}", env!("CARGO_PKG_VERSION"))
    }
}
