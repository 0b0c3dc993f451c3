//! The hooks a game consults besides the search: an opening book (which also learns
//! from the game: `book_keeper::BookKeeper`) and endgame tables (`tables::SyzygyHook` once
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
    /// The opponent of the game (its class chooses the rules), before every decision.
    fn set_opponent(&mut self, _opponent: &Opponent) {}
    /// A new game starts.
    fn new_game(&mut self) {}
    /// The search's draw score for this opponent (centipawns, the engine's view).
    fn draw_score(&self, global: i32) -> i32 {
        global
    }
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

/// The classes of opponent the policy treats differently: the lists `GM`, `IM`, `C`
/// (computers, also recognised from the server's `(C)` title) and `S` (special
/// scoring). The auto-kibitz list `AK` changes only what the bot says, not the policy.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OpponentClass {
    #[default]
    Normal,
    Im,
    Gm,
    Computer,
    Special,
}

impl OpponentClass {
    pub const ALL: [OpponentClass; 5] = [
        OpponentClass::Normal,
        OpponentClass::Im,
        OpponentClass::Gm,
        OpponentClass::Computer,
        OpponentClass::Special,
    ];

    /// The option holding the class's rules: `policy.<key>`.
    pub fn key(self) -> &'static str {
        match self {
            OpponentClass::Normal => "normal",
            OpponentClass::Im => "im",
            OpponentClass::Gm => "gm",
            OpponentClass::Computer => "computer",
            OpponentClass::Special => "special",
        }
    }

    pub fn option(self) -> String {
        format!("policy.{}", self.key())
    }
}

/// One class's rules in the policy table (`policy.gm = "resign=3 width=3"`); a rule
/// left out keeps the global option (`resign`, `resign_count`, `book.width`,
/// `book.random`, `drawscore`, `whisper`, `kibitz`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassRules {
    /// Pawns; 0 never resigns.
    pub resign: Option<i32>,
    pub resign_count: Option<usize>,
    pub book_width: Option<usize>,
    pub book_random: Option<u8>,
    /// Centipawns, the engine's view: the search's draw score (contempt when negative)
    /// and the score at or below which an offered draw is accepted.
    pub draw_score: Option<i32>,
    /// Accept draw offers at all.
    pub accept_draws: Option<bool>,
    /// Offer draws at all.
    pub offer_draws: Option<bool>,
    pub kibitz: Option<u8>,
    pub whisper: Option<u8>,
}

impl ClassRules {
    /// The words `ClassRules::parse` accepts, for error messages and help.
    pub const SYNTAX: &'static str = "words resign=<pawns 0-30> count=<moves 1-20> width=<1-100> random=<0-4> drawscore=<cp> accept=on|off offer=on|off kibitz=<0-6> whisper=<0-6>";

    /// Reads `resign=3 count=5 width=3 random=1 drawscore=-20 accept=on offer=off
    /// kibitz=2 whisper=0` (any subset, any order, separated by spaces or commas).
    pub fn parse(text: &str) -> Result<ClassRules, String> {
        let mut r = ClassRules::default();
        for word in text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
        {
            let Some((k, v)) = word.split_once('=') else {
                return Err(format!("'{word}' is not name=value"));
            };
            let int = |lo: i64, hi: i64| -> Result<i64, String> {
                v.parse::<i64>()
                    .ok()
                    .filter(|n| (lo..=hi).contains(n))
                    .ok_or_else(|| format!("{k}={v}: expected a whole number from {lo} to {hi}"))
            };
            let flag = || -> Result<bool, String> {
                match v.to_ascii_lowercase().as_str() {
                    "on" | "true" | "yes" | "1" => Ok(true),
                    "off" | "false" | "no" | "0" => Ok(false),
                    _ => Err(format!("{k}={v}: expected on or off")),
                }
            };
            match k.to_ascii_lowercase().as_str() {
                "resign" => r.resign = Some(int(0, 30)? as i32),
                "count" | "resign_count" => r.resign_count = Some(int(1, 20)? as usize),
                "width" => r.book_width = Some(int(1, 100)? as usize),
                "random" => r.book_random = Some(int(0, 4)? as u8),
                "drawscore" => r.draw_score = Some(int(-1000, 1000)? as i32),
                "accept" => r.accept_draws = Some(flag()?),
                "offer" => r.offer_draws = Some(flag()?),
                "kibitz" => r.kibitz = Some(int(0, 6)? as u8),
                "whisper" => r.whisper = Some(int(0, 6)? as u8),
                _ => return Err(format!("unknown rule '{k}'")),
            }
        }
        Ok(r)
    }

    /// The rules of `class` from the options (an unreadable entry counts as empty:
    /// the settings loader refuses it before a game starts).
    pub fn from_options(opts: &Options, class: OpponentClass) -> ClassRules {
        ClassRules::parse(opts.str(&class.option())).unwrap_or_default()
    }
}

/// The policy: Crafty's rules, per opponent class. Resign when the score has stayed
/// below `-resign` pawns for `resign_count` moves in a row (never when `resign` is 0,
/// never while the score is a mate still more than `RESIGN_MATE_MOVES` moves away);
/// accept a draw when the score is not above the draw score; offer one when the
/// search has seen exactly the draw score (a forced draw) for five moves in a row, at
/// most once every `policy.draw_offer_moves` moves. The class table (`policy.*`)
/// overrides these per class of opponent, and the book's width and randomness. In
/// tournament mode (`mode tournament`) the program resigns, offers and accepts
/// nothing by itself and the class table is ignored: the operator decides. In table
/// positions it follows the game's `TablePolicy`.
#[derive(Clone, Debug)]
pub struct DefaultPolicy {
    /// Pawns; 0 = never resign.
    pub resign: i32,
    pub resign_count: usize,
    /// Centipawns.
    pub draw_score: i32,
    /// Engine moves between two draw offers.
    pub offer_every: usize,
    pub accept_draws: bool,
    pub offer_draws: bool,
    pub tournament: bool,
    /// The class table, and the class of the current opponent.
    pub classes: Vec<(OpponentClass, ClassRules)>,
    pub class: OpponentClass,
    /// The global values the class rules override.
    base: (i32, usize, i32),
    /// Move number (`scores.len()`) of the last draw offer.
    last_offer: Option<usize>,
}

/// The policy never resigns while being mated further away than this (the opponent
/// still has to find it).
pub const RESIGN_MATE_MOVES: i32 = 5;

impl Default for DefaultPolicy {
    fn default() -> Self {
        DefaultPolicy {
            resign: 9,
            resign_count: 5,
            draw_score: 0,
            offer_every: 10,
            accept_draws: true,
            offer_draws: true,
            tournament: false,
            classes: Vec::new(),
            class: OpponentClass::Normal,
            base: (9, 5, 0),
            last_offer: None,
        }
    }
}

impl DefaultPolicy {
    fn rules(&self) -> ClassRules {
        if self.tournament {
            return ClassRules::default();
        }
        self.classes
            .iter()
            .find(|(c, _)| *c == self.class)
            .map(|(_, r)| r.clone())
            .unwrap_or_default()
    }

    /// Applies the current class's rules over the global values.
    fn apply(&mut self) {
        let r = self.rules();
        let (resign, count, draw) = self.base;
        self.resign = r.resign.unwrap_or(resign);
        self.resign_count = r.resign_count.unwrap_or(count).max(1);
        self.draw_score = r.draw_score.unwrap_or(draw);
        self.accept_draws = r.accept_draws.unwrap_or(true);
        self.offer_draws = r.offer_draws.unwrap_or(true);
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
        self.base = (
            opts.int("resign") as i32,
            opts.int("resign_count").max(1) as usize,
            opts.int("drawscore") as i32,
        );
        self.offer_every = opts.int("policy.draw_offer_moves").max(1) as usize;
        self.tournament = opts.text("mode") == "tournament";
        self.classes = OpponentClass::ALL
            .iter()
            .map(|&c| (c, ClassRules::from_options(opts, c)))
            .collect();
        self.apply();
    }

    fn set_opponent(&mut self, opponent: &Opponent) {
        // xboard `computer` or a `(C)` title: the computer class unless a list says more.
        let class = match opponent.class {
            OpponentClass::Normal if opponent.computer => OpponentClass::Computer,
            c => c,
        };
        if self.class != class {
            self.class = class;
            self.apply();
        }
    }

    fn new_game(&mut self) {
        self.last_offer = None;
    }

    fn draw_score(&self, _global: i32) -> i32 {
        self.draw_score
    }

    fn resign(&mut self, scores: &[i32]) -> bool {
        if self.tournament || self.resign <= 0 || scores.len() < self.resign_count {
            return false;
        }
        let last = scores[scores.len() - 1];
        if crate::engine::mate_in(last).is_some_and(|n| n < 0 && -n > RESIGN_MATE_MOVES) {
            return false;
        }
        scores[scores.len() - self.resign_count..]
            .iter()
            .all(|&s| s < -self.resign * 100)
    }

    fn accept_draw(&mut self, score: i32) -> bool {
        !self.tournament && self.accept_draws && score <= self.draw_score
    }

    fn offer_draw(&mut self, scores: &[i32]) -> bool {
        const N: usize = 5;
        if self.tournament || !self.offer_draws {
            return false;
        }
        let n = scores.len();
        let drawn = n >= N && scores[n - N..].iter().all(|&s| s == self.draw_score);
        if !drawn || self.last_offer.is_some_and(|l| n < l + self.offer_every) {
            return false;
        }
        self.last_offer = Some(n);
        true
    }

    fn book_override(&mut self, opponent: &Opponent) -> BookOverride {
        self.set_opponent(opponent);
        let r = self.rules();
        BookOverride {
            width: r.book_width,
            random: r.book_random,
        }
    }

    fn resign_by_tables(
        &mut self,
        verdict: &Verdict,
        opponent: &Opponent,
        tables: &TablePolicy,
    ) -> bool {
        !self.tournament && self.resign > 0 && tables.resign(verdict, opponent)
    }

    fn offer_draw_by_tables(&mut self, verdict: &Verdict, tables: &mut TablePolicy) -> bool {
        let offer = tables.offer_draw(verdict);
        !self.tournament && self.offer_draws && offer
    }

    fn accept_draw_by_tables(&mut self, verdict: &Verdict, tables: &TablePolicy) -> bool {
        !self.tournament && self.accept_draws && tables.accept_draw(verdict)
    }
}
