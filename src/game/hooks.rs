//! The hooks a game consults besides the search: an opening book (which also learns
//! from the game: `book::BookKeeper`) and endgame tables (`tables::SyzygyHook` once
//! `egtpath` is set), and the resign/draw policy with a default that follows Crafty
//! (`resign N`, `drawscore`) and, in table positions, the tables' `TablePolicy`
//! (`egtresign`, `egthard`, `egtdraw`).

use super::{GameResult, Opponent, PlayedMove};
use crate::chess::{Board, Color, Move};
use crate::egtb::{Outcome, Verdict};
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
/// centipawns or a mate score), or `None` to let the search choose (the search itself
/// keeps to the moves that keep the table result when the engine has the tables).
pub trait TablesHook: Send {
    fn probe_root(&mut self, board: &Board) -> Option<(Move, i32)>;
    /// What the tables say about `board` (the engine to move), for the policy.
    fn verdict(&mut self, _board: &Board) -> Option<Verdict> {
        None
    }
    /// Called with every option change.
    fn configure(&mut self, _opts: &Options) {}
    /// The opponent of the game, before each `probe_root`.
    fn set_opponent(&mut self, _opponent: &Opponent) {}
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
    /// In a table position (engine to move): resign? Replaces `resign` there; by
    /// default the game's table policy decides.
    fn resign_by_tables(
        &mut self,
        verdict: &Verdict,
        opponent: &Opponent,
        tables: &TablePolicy,
    ) -> bool {
        tables.resign(verdict, opponent)
    }
    /// In a table position: offer a draw with the move? Replaces `offer_draw` there.
    fn offer_draw_by_tables(&mut self, verdict: &Verdict, tables: &mut TablePolicy) -> bool {
        tables.offer_draw(verdict)
    }
    /// In a table position the opponent offers a draw: accept? Replaces
    /// `accept_draw` there.
    fn accept_draw_by_tables(&mut self, verdict: &Verdict, tables: &TablePolicy) -> bool {
        tables.accept_draw(verdict)
    }
}

/// When a table-lost position is resigned (`egtresign`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableResign {
    Never,
    /// Except against a human in an ending of `TablePolicy::hard_endings`.
    Easy,
    Always,
}

/// `KBNvK`, `kbnk`, `KBN v K` all become `KBNK`.
fn ending_key(text: &str) -> String {
    text.chars()
        .filter(|c| c.is_ascii_alphabetic() && *c != 'v' && *c != 'V')
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Crafty's policy: resign when the score has stayed below `-resign` pawns for
/// `resign_count` moves in a row (never when `resign` is 0); accept a draw when the
/// score is not above the draw score; offer one when the search has seen exactly the
/// draw score (a forced draw) for five moves in a row. In table positions it follows
/// the game's `TablePolicy`.
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

/// What the tables' verdict does in a game, from the options: a lost position is
/// resigned at once (when `resign` is not 0, as `egtresign` says: by default not
/// against a human who still has to win one of the `egthard` endings); a drawn one is
/// offered as a draw (`egtdraw`) on entering it and every tenth move after; an offered
/// draw is accepted unless the tables say won.
#[derive(Clone, Debug)]
pub struct TablePolicy {
    /// Pawns (`resign`); 0 = never resign.
    pub resign: i32,
    pub table_resign: TableResign,
    /// Endings (winner first, `KBNvK`) a human may not know how to win.
    pub hard_endings: Vec<String>,
    pub draw_offer: bool,
    /// Engine moves in a row in a table-drawn position.
    drawn_moves: usize,
}

impl Default for TablePolicy {
    fn default() -> Self {
        TablePolicy {
            resign: 9,
            table_resign: TableResign::Easy,
            hard_endings: ["KBNvK", "KQvKR"].iter().map(|s| s.to_string()).collect(),
            draw_offer: true,
            drawn_moves: 0,
        }
    }
}

impl TablePolicy {
    pub fn configure(&mut self, opts: &Options) {
        self.resign = opts.int("resign") as i32;
        self.table_resign = match opts.text("egtresign").as_str() {
            "never" => TableResign::Never,
            "always" => TableResign::Always,
            _ => TableResign::Easy,
        };
        self.hard_endings = opts
            .str("egthard")
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(String::from)
            .collect();
        self.draw_offer = opts.bool("egtdraw");
    }

    /// True when `ending` (winner first) is one of the hard endings.
    pub fn is_hard(&self, ending: &str) -> bool {
        let key = ending_key(ending);
        self.hard_endings.iter().any(|h| ending_key(h) == key)
    }

    /// Resign this table position?
    pub fn resign(&self, verdict: &Verdict, opponent: &Opponent) -> bool {
        if self.resign == 0 || verdict.outcome != Outcome::Loss {
            return false;
        }
        match self.table_resign {
            TableResign::Never => false,
            TableResign::Always => true,
            TableResign::Easy => opponent.computer || !self.is_hard(&verdict.ending()),
        }
    }

    /// Offer a draw with the move in this table position? (Counts the moves.)
    pub fn offer_draw(&mut self, verdict: &Verdict) -> bool {
        if verdict.outcome != Outcome::Draw {
            self.drawn_moves = 0;
            return false;
        }
        self.drawn_moves += 1;
        self.draw_offer && self.drawn_moves % 10 == 1
    }

    /// Accept a draw offered in this table position?
    pub fn accept_draw(&self, verdict: &Verdict) -> bool {
        verdict.outcome != Outcome::Win
    }

    /// A new game: no draw offered yet.
    pub fn new_game(&mut self) {
        self.drawn_moves = 0;
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
