//! The hooks a game consults besides the search: an opening book and endgame tables
//! (filled by later issues; none by default), and the resign/draw policy with a
//! default that follows Crafty (`resign N`, `drawscore`).

use crate::chess::{Board, Move};
use crate::options::Options;

/// An opening book: a move for this position, or `None` to go on to the tables and
/// the search.
pub trait BookHook: Send {
    fn probe(&mut self, board: &Board) -> Option<Move>;
}

/// Endgame tables at the root: the move to play with its score (side to move,
/// centipawns or a mate score), or `None`.
pub trait TablesHook: Send {
    fn probe_root(&mut self, board: &Board) -> Option<(Move, i32)>;
}

/// When the engine gives up, offers or accepts a draw. Scores are the engine's own
/// search scores (from its side), oldest first, one per engine move.
pub trait Policy: Send {
    /// Called with every option change.
    fn configure(&mut self, _opts: &Options) {}
    /// True to resign instead of playing the move just found.
    fn resign(&mut self, scores: &[i32]) -> bool;
    /// The opponent offers a draw; `score` is the engine's latest score (0 if none).
    fn accept_draw(&mut self, score: i32) -> bool;
    /// True to offer a draw along with the move just found.
    fn offer_draw(&mut self, _scores: &[i32]) -> bool {
        false
    }
}

/// Crafty's policy: resign when the score has stayed below `-resign` pawns for
/// `resign_count` moves in a row (never when `resign` is 0); accept a draw when the
/// score is not above the draw score; offer one when the search has seen exactly the
/// draw score (a forced draw) for five moves in a row.
#[derive(Clone, Debug)]
pub struct DefaultPolicy {
    /// Pawns; 0 = never resign.
    pub resign: i32,
    pub resign_count: usize,
    /// Centipawns.
    pub draw_score: i32,
}

impl Default for DefaultPolicy {
    fn default() -> Self {
        DefaultPolicy {
            resign: 9,
            resign_count: 5,
            draw_score: 0,
        }
    }
}

impl Policy for DefaultPolicy {
    fn configure(&mut self, opts: &Options) {
        self.resign = opts.int("resign") as i32;
        self.resign_count = opts.int("resign_count").max(1) as usize;
        self.draw_score = opts.int("drawscore") as i32;
    }

    fn resign(&mut self, scores: &[i32]) -> bool {
        self.resign > 0
            && scores.len() >= self.resign_count
            && scores[scores.len() - self.resign_count..]
                .iter()
                .all(|&s| s < -self.resign * 100)
    }

    fn accept_draw(&mut self, score: i32) -> bool {
        score <= self.draw_score
    }

    fn offer_draw(&mut self, scores: &[i32]) -> bool {
        const N: usize = 5;
        scores.len() >= N
            && scores[scores.len() - N..]
                .iter()
                .all(|&s| s == self.draw_score)
    }
}
