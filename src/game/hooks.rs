//! The hooks a game consults besides the search: an opening book (which also learns
//! from the game: `book::BookKeeper`) and endgame tables, and the resign/draw policy
//! with a default that follows Crafty (`resign N`, `drawscore`).

use super::{GameResult, Opponent, PlayedMove};
use crate::chess::{Board, Color, Move};
use crate::engine::SearchResult;
use crate::options::Options;

/// What the book says about a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BookAnswer {
    /// Play this move.
    Play(Move),
    /// `book random 0`: search these moves briefly (a tenth of the normal time) and
    /// play the best of them.
    Search(Vec<Move>),
    /// Not a book position: go on to the tables and the search.
    Out,
}

/// Per-call overrides of the book's width and randomness (the policy's choice per
/// opponent class).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BookOverride {
    pub width: Option<usize>,
    pub random: Option<u8>,
}

/// A game that has ended, as learning sees it.
pub struct GameOver<'a> {
    pub start: &'a Board,
    pub moves: &'a [PlayedMove],
    pub result: &'a GameResult,
    /// The side the engine played.
    pub engine: Color,
    pub opponent: &'a Opponent,
}

/// An opening book: a move for this position, or `None` to go on to the tables and
/// the search. The other methods have do-nothing defaults; a learning book uses them
/// to follow the game.
pub trait BookHook: Send {
    fn probe(&mut self, board: &Board) -> Option<Move>;

    /// The answer for the engine's move, with the policy's overrides (defaults to
    /// `probe`).
    fn answer(&mut self, board: &Board, _over: BookOverride) -> BookAnswer {
        match self.probe(board) {
            Some(m) => BookAnswer::Play(m),
            None => BookAnswer::Out,
        }
    }

    /// Positions to store in the transposition table before a search of `board`
    /// (position learning): `(key, score for the side to move, depth)`.
    fn preload(&mut self, _board: &Board) -> &[(u64, i32, i32)] {
        &[]
    }

    /// The engine is about to play the result of its own search (not a book or
    /// tables move) in `board`.
    fn after_search(&mut self, _board: &Board, _result: &SearchResult) {}

    /// The game has a result (called once per game, if the engine played in it).
    fn game_over(&mut self, _game: &GameOver<'_>) {}

    /// A new game starts.
    fn new_game(&mut self) {}

    /// Messages for the operator (book moves considered, learning done, files set
    /// aside).
    fn take_notes(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Access to the concrete book (front ends' `book` commands).
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
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
    /// Book width and randomness for this opponent (per-class policy); none by
    /// default.
    fn book_override(&mut self, _opponent: &Opponent) -> BookOverride {
        BookOverride::default()
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
