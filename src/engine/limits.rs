//! What a search is asked to do (`SearchLimits`) and the engine settings that shape
//! how it searches (`SearchConfig`).

use crate::chess::Move;
use crate::eval::EvalParams;
use std::time::Duration;

/// The clock situation for a timed search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockLimits {
    /// Our remaining time.
    pub time_left: Duration,
    /// Our increment per move.
    pub increment: Duration,
    /// Moves until the next time control; `None` for sudden death (with or without
    /// increment).
    pub moves_to_go: Option<u32>,
    /// The opponent's remaining time, where it is known (an external engine is
    /// told it; the built-in engine's time manager does not use it).
    pub opponent_left: Option<Duration>,
}

/// What to search and when to stop.
#[derive(Clone, Debug, Default)]
pub struct SearchLimits {
    /// Stop after completing this depth.
    pub depth: Option<i32>,
    /// Stop after about this many nodes (checked every few hundred nodes).
    pub nodes: Option<u64>,
    /// Fixed time per move.
    pub movetime: Option<Duration>,
    /// Clock-based time allocation.
    pub clock: Option<ClockLimits>,
    /// Stop when a mate in this many moves (or fewer) is found.
    pub mate: Option<i32>,
    /// Search until told to stop.
    pub infinite: bool,
    /// Start as a ponder search: no time limit until `ponderhit`.
    pub ponder: bool,
    /// Search only these root moves (empty: all).
    pub searchmoves: Vec<Move>,
    /// Game ply (for time allocation in sudden death).
    pub game_ply: u32,
}

impl SearchLimits {
    pub fn depth(d: i32) -> SearchLimits {
        SearchLimits {
            depth: Some(d),
            ..Default::default()
        }
    }

    pub fn nodes(n: u64) -> SearchLimits {
        SearchLimits {
            nodes: Some(n),
            ..Default::default()
        }
    }

    pub fn movetime(t: Duration) -> SearchLimits {
        SearchLimits {
            movetime: Some(t),
            ..Default::default()
        }
    }

    /// True when the search has a clock to respect (a single legal move is then played
    /// at once).
    pub fn is_timed(&self) -> bool {
        !self.infinite && (self.clock.is_some() || self.movetime.is_some())
    }
}

/// Search extensions in whole plies (0 = off, 1 = on); at most one ply per node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extensions {
    pub check: i32,
    pub one_reply: i32,
    pub recapture: i32,
    pub passed_pawn: i32,
    pub mate_threat: i32,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions {
            check: 1,
            one_reply: 1,
            recapture: 0,
            passed_pawn: 1,
            mate_threat: 0,
        }
    }
}

impl Extensions {
    /// Crafty's names: `incheck`, `onerep`, `recapture`, `pushpp`, `mate`.
    pub const NAMES: [&'static str; 5] = ["incheck", "onerep", "recapture", "pushpp", "mate"];

    pub fn set(&mut self, name: &str, value: i32) -> Result<(), String> {
        if !(0..=1).contains(&value) {
            return Err(format!(
                "extension value {value} out of range: extensions are whole plies, 0 (off) or 1 (on)"
            ));
        }
        match name {
            "incheck" | "check" => self.check = value,
            "onerep" => self.one_reply = value,
            "recapture" => self.recapture = value,
            "pushpp" => self.passed_pawn = value,
            "mate" => self.mate_threat = value,
            _ => {
                return Err(format!(
                    "unknown extension '{name}': expected one of {}",
                    Self::NAMES.join(", ")
                ))
            }
        }
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<i32> {
        Some(match name {
            "incheck" | "check" => self.check,
            "onerep" => self.one_reply,
            "recapture" => self.recapture,
            "pushpp" => self.passed_pawn,
            "mate" => self.mate_threat,
            _ => return None,
        })
    }
}

/// Engine settings that influence the search (not what to search).
#[derive(Clone, Debug)]
pub struct SearchConfig {
    /// Value of a draw for the side to move at the root, in centipawns (Crafty's
    /// `drawscore`; negative avoids draws).
    pub draw_score: i32,
    pub extensions: Extensions,
    /// Number of principal variations to report (UCI MultiPV).
    pub multipv: usize,
    /// Time kept back on every move for communication and the GUI.
    pub move_overhead: Duration,
    /// Time reserved for a tournament operator; never used.
    pub operator_reserve: Duration,
    /// Percentage adjustment of the computed time per move (Crafty's `usage`).
    pub usage: i32,
    /// Pondering is on (the time allocation may be a little more generous).
    pub ponder: bool,
    /// Depth from which helper threads join the search (`smpmin`).
    pub smp_min_depth: i32,
    pub eval: EvalParams,
    /// The learned evaluation (`evaluation.net`); `None`: the handcrafted one.
    pub net: Option<std::sync::Arc<crate::nnue::Network>>,
    /// Search quiet checking moves at the first quiescence ply.
    pub qsearch_checks: bool,
    /// Endgame tables: probe positions with at most this many pieces (0: never),
    /// UCI `SyzygyProbeLimit`.
    pub tb_probe_limit: u32,
    /// Endgame tables: probe positions with as many pieces as the largest tables only
    /// this deep or deeper (UCI `SyzygyProbeDepth`); fewer pieces are probed at any
    /// depth.
    pub tb_probe_depth: i32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            draw_score: 0,
            extensions: Extensions::default(),
            multipv: 1,
            move_overhead: Duration::from_millis(50),
            operator_reserve: Duration::ZERO,
            usage: 0,
            ponder: false,
            smp_min_depth: 1,
            eval: EvalParams::default(),
            net: None,
            qsearch_checks: true,
            tb_probe_limit: 7,
            tb_probe_depth: 1,
        }
    }
}
