//! Endgame tables: optional Syzygy probing behind the `Tablebase` trait. No tables
//! configured (or none found) means `None` everywhere and play goes on as before.
//!
//! This module owns reading the tables (`syzygy`, over the `shakmaty-syzygy` crate with
//! memory-mapped files), what a table value means for a game under the 50-move rule
//! (`root`: the result of a position given its halfmove clock, the ranking of the root
//! moves that the search chooses among, the swindle choice), and which table sets are
//! complete (`sets`). The search decides where to probe (WDL after zeroing moves, DTZ
//! at the root); the game controller decides what to do with a verdict (resign, offer
//! a draw). Nothing here touches search internals.
//!
//! Probing never allocates: every WDL table is opened when the tables are loaded, and
//! a probe converts the board from bitboards into a stack value.

pub mod root;
pub mod sets;
pub mod syzygy;

use crate::chess::Board;
use std::sync::Arc;

pub use root::{outcome_of, rank_root, swindle_move, verdict, Outcome, RootRanking, Verdict};
pub use syzygy::SyzygyTables;

/// Win/draw/loss for the side to move, as the tables give it for a position reached by
/// a capture or pawn move (halfmove clock 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss = -2,
    /// Lost, but the 50-move rule saves the side to move.
    BlessedLoss = -1,
    Draw = 0,
    /// Won, but not within the 50-move rule.
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    /// From python-chess's and the tables' integer form (-2..=2).
    pub fn from_i32(v: i32) -> Option<Wdl> {
        Some(match v {
            -2 => Wdl::Loss,
            -1 => Wdl::BlessedLoss,
            0 => Wdl::Draw,
            1 => Wdl::CursedWin,
            2 => Wdl::Win,
            _ => return None,
        })
    }

    pub fn to_i32(self) -> i32 {
        self as i32
    }
}

/// Distance to zeroing (DTZ50'') for the side to move: plies until a capture, pawn
/// move or mate that keeps the result, positive when winning, negative when losing,
/// 0 for a draw. Beyond +-100 the result is cursed or blessed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dtz {
    pub plies: i32,
    /// The table stores this value rounded: the true distance may be one ply more.
    pub rounded: bool,
}

/// Endgame tables the engine and the game can probe. Implementations are shared by all
/// search threads.
pub trait Tablebase: Send + Sync {
    /// The most pieces (kings included) of any table loaded.
    fn max_pieces(&self) -> u32;
    /// WDL of `board` as if it had just been reached by a capture or pawn move. `None`
    /// when the position is not in the tables (too many pieces, castling rights, a
    /// table missing or unreadable). Never allocates.
    fn probe_wdl(&self, board: &Board) -> Option<Wdl>;
    /// DTZ of `board` (`None` as for `probe_wdl`; needs the DTZ tables too).
    fn probe_dtz(&self, board: &Board) -> Option<Dtz>;
}

/// True when `board` may be looked up at all: at most `limit` pieces, no castling
/// rights left.
#[inline]
pub fn probeable(board: &Board, limit: u32) -> bool {
    board.occupied().count() <= limit && board.castling().0 == 0
}

/// Tables found on a table path, and what to tell the user about them.
pub struct Loaded {
    /// `None` when no table was found.
    pub tables: Option<Arc<SyzygyTables>>,
    /// One line for `egtb`: files found and the largest complete set.
    pub summary: String,
    /// Directories that are missing or unreadable, tables that cannot be opened.
    pub problems: Vec<String>,
}

impl Loaded {
    /// The tables as the engine takes them.
    pub fn tablebase(&self) -> Option<Arc<dyn Tablebase>> {
        self.tables
            .as_ref()
            .map(|t| Arc::clone(t) as Arc<dyn Tablebase>)
    }
}

/// Loads the Syzygy tables of every directory in `path` (separated as the platform
/// separates `PATH`: `:` on Unix, `;` on Windows). An empty path loads nothing and
/// reports nothing.
pub fn load(path: &str) -> Loaded {
    let path = path.trim();
    if path.is_empty() {
        return Loaded {
            tables: None,
            summary: "no Syzygy tables (set egtpath or tbpath to a directory of them)".into(),
            problems: Vec::new(),
        };
    }
    let dirs: Vec<std::path::PathBuf> = std::env::split_paths(path)
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    SyzygyTables::open(&dirs)
}
