//! Typed events a search emits. Front ends format them (console, xboard, UCI, whisper);
//! the engine never prints.

use crate::chess::{Color, Move};
use std::time::Duration;

/// Whether a score is exact or a bound from an aspiration window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (fail high, `++`).
    Lower,
    /// The true score is at most this (fail low, `--`).
    Upper,
}

/// A snapshot of the search at one point (scores from the side to move at the root).
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: i32,
    pub seldepth: i32,
    /// 1-based principal variation number (MultiPV).
    pub multipv: usize,
    pub score: i32,
    pub bound: Bound,
    pub nodes: u64,
    pub time: Duration,
    pub hashfull: u32,
    pub tb_hits: u64,
    pub pv: Vec<Move>,
    /// Side to move at the root, so front ends can print White-relative scores.
    pub root_side: Color,
}

impl SearchInfo {
    pub fn nps(&self) -> u64 {
        (self.nodes * 1000)
            .checked_div(self.time.as_millis() as u64)
            .unwrap_or(0)
    }

    /// The score from White's point of view.
    pub fn white_score(&self) -> i32 {
        match self.root_side {
            Color::White => self.score,
            Color::Black => -self.score,
        }
    }
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// The move to play (`Move::NULL` only when there is no legal move).
    pub best: Move,
    /// The expected reply, to ponder on.
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
    pub root_side: Color,
    /// Set when the search thread panicked and a fallback move was chosen.
    pub error: Option<String>,
}

/// Everything a search reports while it runs.
#[derive(Clone, Debug)]
pub enum SearchEvent {
    /// An iteration finished (`N->`).
    Iteration(SearchInfo),
    /// A new best move inside an iteration.
    NewBest(SearchInfo),
    /// The aspiration window failed high (`++`).
    FailHigh(SearchInfo),
    /// The aspiration window failed low (`--`).
    FailLow(SearchInfo),
    /// The root move being searched (UCI currmove).
    CurrMove { depth: i32, mv: Move, number: usize },
    /// The search finished; the last event of every search.
    Done(SearchResult),
}

/// Receives events; front ends supply one per search.
pub type EventSink = std::sync::Arc<dyn Fn(&SearchEvent) + Send + Sync>;
