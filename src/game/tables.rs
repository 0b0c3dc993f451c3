//! The tables hook over `egtb`: the verdict the resign and draw policy reads, and the
//! swindle move (`swindle on`) in a drawn or lost table position against a
//! lower-rated opponent. In every other table position it returns no move, so the
//! search plays, keeping to the moves that keep the table result.

use super::hooks::TablesHook;
use super::Opponent;
use crate::chess::{Board, Move};
use crate::egtb::{self, Tablebase, Verdict};
use crate::engine::search::TB_WIN;
use crate::options::Options;
use std::sync::Arc;

/// Syzygy tables as the game consults them.
pub struct SyzygyHook {
    tables: Arc<dyn Tablebase>,
    limit: u32,
    swindle: bool,
    opponent: Opponent,
}

impl SyzygyHook {
    pub fn new(tables: Arc<dyn Tablebase>) -> SyzygyHook {
        SyzygyHook {
            tables,
            limit: 7,
            swindle: true,
            opponent: Opponent::default(),
        }
    }

    /// A lower-rated opponent (both ratings known): worth setting problems for.
    fn opponent_is_weaker(&self) -> bool {
        matches!(
            (self.opponent.rating, self.opponent.own_rating),
            (Some(theirs), Some(ours)) if theirs < ours
        )
    }
}

impl TablesHook for SyzygyHook {
    fn probe_root(&mut self, board: &Board) -> Option<(Move, i32)> {
        if !self.swindle || !self.opponent_is_weaker() {
            return None;
        }
        let mv = egtb::swindle_move(&*self.tables, board, self.limit)?;
        let v = egtb::root::verdict(&*self.tables, board, self.limit)?;
        let score = match v.outcome {
            egtb::Outcome::Loss => -TB_WIN,
            _ => 0,
        };
        Some((mv, score))
    }

    fn verdict(&mut self, board: &Board) -> Option<Verdict> {
        egtb::root::verdict(&*self.tables, board, self.limit)
    }

    fn configure(&mut self, opts: &Options) {
        self.limit = opts.int("egtlimit") as u32;
        self.swindle = opts.bool("swindle");
    }

    fn set_opponent(&mut self, opponent: &Opponent) {
        self.opponent = opponent.clone();
    }
}
