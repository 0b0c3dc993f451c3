//! The game controller: the one front-end-independent owner of a game. It owns the
//! position with its full key history (repetitions), the moves played with their SAN
//! and time, both clocks (read from the injectable `Clock`), the time control and
//! search limits (`level`, `st`, `sd`, `sn`), the result (mate, stalemate, 50 moves,
//! threefold repetition, insufficient material, resignation, agreement), the engine
//! and its state (idle, thinking, pondering, analysing, observing), the move-source
//! chain (book hook, then tables hook, then the search) and the resign/draw policy.
//! It loads the endgame tables `egtpath` names, hands them to the engine and the
//! tables hook, and keeps what to tell the user about them (`take_notes`, `egtb`).
//!
//! The console, xboard, UCI and the ICS daemon all drive games through it and keep no
//! copy of the game state. It leaves text, sockets and stdin/stdout to them: a search
//! is started with the front end's `EventSink`, and when it ends the controller keeps
//! the result and calls the front end's `notify` callback, so the front end's own
//! loop (never the search thread) collects it with `take_finished`.

pub mod book_keeper;
pub mod clock;
pub mod hooks;
mod search;
pub mod tables;

pub use clock::Clocks;
pub use hooks::{
    BookAnswer, BookHook, BookOverride, ClassRules, DefaultPolicy, GameOver, OpponentClass, Policy,
    TablePolicy, TableResign, TablesHook,
};
pub use tables::SyzygyHook;

use crate::chess::{Board, Color, Move, MoveError};
use crate::engine::time::{Clock, SystemClock};
use crate::engine::{
    ClockLimits, EngineHandle, EventSink, SearchConfig, SearchEvent, SearchLimits, SearchResult,
    Searcher,
};
use crate::options::{Options, Source, TimeControl};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use thiserror::Error;

/// What the engine is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineState {
    Idle,
    /// Searching for its own move.
    Thinking,
    /// Searching on the opponent's time, on the expected reply.
    Pondering,
    /// Searching the current position without end (`analyze`).
    Analysing,
    /// Analysing a game it does not play (ICS `observe`).
    Observing,
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    WhiteWins,
    BlackWins,
    Draw,
    /// Ended without a result (`*`).
    Unfinished,
}

impl Outcome {
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::Unfinished => "*",
        }
    }

    pub fn win_for(c: Color) -> Outcome {
        match c {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }

    pub fn parse(text: &str) -> Option<Outcome> {
        Some(match text {
            "1-0" => Outcome::WhiteWins,
            "0-1" => Outcome::BlackWins,
            "1/2-1/2" | "½-½" => Outcome::Draw,
            "*" => Outcome::Unfinished,
            _ => return None,
        })
    }
}

/// The result with its reason (`White mates`, `Draw by repetition`...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameResult {
    pub outcome: Outcome,
    pub reason: String,
}

impl std::fmt::Display for GameResult {
    /// xboard's form: `1-0 {White mates}`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {{{}}}", self.outcome.pgn(), self.reason)
    }
}

/// A move of the game.
#[derive(Clone, Debug)]
pub struct PlayedMove {
    pub mv: Move,
    pub san: String,
    pub side: Color,
    /// Time the mover's clock ran for it.
    pub time: Duration,
    /// The engine's score (its own side's view) when it played the move.
    pub score: Option<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("'{0}' is not a legal move here")]
    Illegal(String),
    #[error("no move to take back")]
    NothingToUndo,
    #[error("bad position: {0}")]
    Position(String),
}

/// What the engine does with a finished search for its own move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineAction {
    /// Play this move (already made on the board); `offer_draw` asks the front end to
    /// offer a draw with it.
    Move {
        mv: Move,
        san: String,
        offer_draw: bool,
    },
    /// Resign (the result is set).
    Resign,
    /// No legal move: the game is over (the result is set).
    None,
}

/// What an opponent's move did to a ponder search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PonderOutcome {
    /// Not pondering.
    NotPondering,
    /// The expected move: the ponder search goes on as a normal search.
    Hit,
    /// Another move: the ponder search was stopped; start a new one.
    Miss,
}

/// A search that ended, as the front end's loop collects it.
#[derive(Clone, Debug)]
pub struct Finished {
    /// What the engine was doing (a ponder search that was hit reports `Thinking`).
    pub state: EngineState,
    pub result: SearchResult,
    /// The search came from the book or the tables, not the engine.
    pub from_hook: bool,
}

/// What the front end knows about the opponent (xboard `name`, `rating`,
/// `computer`, `ics`; the ICS daemon's game start). Lists and PGN tags use it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Opponent {
    pub name: String,
    pub rating: Option<i32>,
    pub own_rating: Option<i32>,
    pub computer: bool,
    /// The server the game is played on (xboard `ics`), empty for none.
    pub server: String,
    /// The policy class (from the opponent lists; `Normal` when on none).
    pub class: OpponentClass,
}

type Notify = Arc<dyn Fn() + Send + Sync>;
type Slot = Arc<Mutex<Option<(u64, SearchResult, bool)>>>;

/// One game and the engine that plays or analyses it.
pub struct Game {
    engine: Arc<dyn Searcher>,
    clock: Arc<dyn Clock>,
    start: Board,
    board: Board,
    moves: Vec<PlayedMove>,
    clocks: Clocks,
    st: Option<Duration>,
    sd: Option<i32>,
    sn: Option<u64>,
    result: Option<GameResult>,
    state: EngineState,
    /// The side the engine plays; `None`: force mode (plays neither).
    engine_side: Option<Color>,
    config: SearchConfig,
    ponder: bool,
    /// `ponder <move>`: the move to ponder on next instead of the search's guess.
    ponder_override: Option<Move>,
    /// The expected reply of the last engine move.
    expected_reply: Option<Move>,
    /// The move the running ponder search assumed.
    pondering_on: Option<Move>,
    book: Option<Box<dyn BookHook>>,
    tables: Option<Box<dyn TablesHook>>,
    policy: Box<dyn Policy>,
    /// What table verdicts do (resign, draw offers), from the options.
    table_policy: TablePolicy,
    /// The engine's scores, one per engine move (its own view).
    scores: Vec<i32>,
    last_score: Option<i32>,
    /// The score of the engine's last move when a search chose it (`None` after a
    /// book or table move, and before the first search): what a draw offer is
    /// judged on.
    searched_score: Option<i32>,
    search_id: u64,
    /// The current search ends by itself (not infinite, not a ponder search).
    bounded: bool,
    slot: Slot,
    notify: Option<Notify>,
    applied: (usize, usize, usize),
    opponent: Opponent,
    /// `drawscore` as set, before the policy's class adjustment.
    global_draw_score: i32,
    /// The running search only chooses among book moves (`book random 0`).
    book_search: bool,
    /// The search just collected came from a hook or a book search (not learned from).
    last_hooked: bool,
    /// The book hook was told about this game's result.
    result_reported: bool,
    /// Score of the engine move being made (`engine_move` -> `make_move`).
    move_score: Option<i32>,
    /// The `egtpath` the tables were last loaded from (`None`: never configured).
    egt_path: Option<String>,
    /// The `evaluation.net` last applied (`None` before the first `configure`).
    net_spec: Option<String>,
    /// What `egtb` reports about the tables loaded.
    tables_report: Vec<String>,
    /// `cache` as last applied.
    cache_applied: Option<u64>,
    /// Messages for the user (tables found or not); front ends print them.
    notes: Vec<String>,
}

impl Game {
    /// A game from the start position with the engine as Black, options at `opts`,
    /// time from the system clock.
    pub fn new(opts: &Options) -> Game {
        Game::with_clock(opts, Arc::new(SystemClock::default()))
    }

    /// As `new`, reading time (clocks and search limits) from `clock`.
    pub fn with_clock(opts: &Options, clock: Arc<dyn Clock>) -> Game {
        let hash = opts.size("hash");
        let threads = opts.int("threads") as usize;
        let engine = EngineHandle::with_clock(hash, threads, Arc::clone(&clock));
        Game::with_searcher(opts, clock, Arc::new(engine))
    }

    /// As `with_clock`, searching with `engine` (the built-in engine, or an
    /// external one: `crate::external`).
    pub fn with_searcher(opts: &Options, clock: Arc<dyn Clock>, engine: Arc<dyn Searcher>) -> Game {
        let hash = opts.size("hash");
        let threads = opts.int("threads") as usize;
        let hashp = opts.size("hashp");
        engine.set_pawn_hash(hashp);
        let mut g = Game {
            engine,
            clocks: Clocks::new(Arc::clone(&clock), opts.level()),
            clock,
            start: Board::startpos(),
            board: Board::startpos(),
            moves: Vec::new(),
            st: None,
            sd: None,
            sn: None,
            result: None,
            state: EngineState::Idle,
            engine_side: Some(Color::Black),
            config: SearchConfig::default(),
            ponder: false,
            ponder_override: None,
            expected_reply: None,
            pondering_on: None,
            book: None,
            tables: None,
            policy: Box::new(DefaultPolicy::default()),
            table_policy: TablePolicy::default(),
            scores: Vec::new(),
            last_score: None,
            searched_score: None,
            search_id: 0,
            bounded: false,
            slot: Arc::new(Mutex::new(None)),
            notify: None,
            applied: (hash, threads, hashp),
            opponent: Opponent::default(),
            global_draw_score: 0,
            book_search: false,
            last_hooked: false,
            result_reported: false,
            move_score: None,
            egt_path: None,
            net_spec: None,
            tables_report: Vec::new(),
            cache_applied: None,
            notes: Vec::new(),
        };
        g.configure(opts);
        g.clocks.reset(opts.level());
        g.clocks.start(Color::White);
        g
    }

    // ----- configuration --------------------------------------------------------------

    /// Applies the options: engine sizes (only when changed), search settings, time
    /// control limits, policy.
    pub fn configure(&mut self, opts: &Options) {
        let sizes = (
            opts.size("hash"),
            opts.int("threads") as usize,
            opts.size("hashp"),
        );
        if sizes != self.applied {
            if sizes.0 != self.applied.0 {
                self.engine.set_hash(sizes.0);
            }
            if sizes.1 != self.applied.1 {
                self.engine.set_threads(sizes.1);
            }
            if sizes.2 != self.applied.2 {
                self.engine.set_pawn_hash(sizes.2);
            }
            self.applied = sizes;
        }
        let net_result = apply_search_options(&mut self.config, opts);
        // The net and its scale: either changed is said (the scale only with a net).
        let spec = match opts.str("evaluation.net").trim() {
            "" => String::new(),
            net => format!("{net} at {}%", opts.int("evaluation.netscale")),
        };
        if self.net_spec.as_deref() != Some(spec.as_str()) {
            let first = self.net_spec.is_none();
            self.net_spec = Some(spec);
            // At the start the default net goes without saying; a net or a scale
            // that was set is said (and, later, any change).
            let by_default = ["evaluation.net", "evaluation.netscale"]
                .iter()
                .all(|n| opts.source(n) == Some(Source::Default));
            match (&net_result, &self.config.net) {
                (Err(e), _) => self.notes.push(e.clone()),
                (Ok(()), Some(_)) if first && by_default => {}
                (Ok(()), Some(n)) => self.notes.push(format!(
                    "evaluation: the net {} ({} hidden)",
                    n.source,
                    crate::nnue::HIDDEN
                )),
                (Ok(()), None) if !first => self.notes.push("evaluation: handcrafted".into()),
                _ => {}
            }
        }
        self.ponder = self.config.ponder;
        let st = opts.duration("st");
        self.st = (!st.is_zero()).then_some(st);
        let sd = opts.int("sd") as i32;
        self.sd = (sd > 0).then_some(sd);
        let sn = opts.int("sn") as u64;
        self.sn = (sn > 0).then_some(sn);
        let tc = opts.level();
        if tc != self.clocks.time_control() {
            self.clocks.set_time_control(tc);
        }
        let path = opts.str("egtpath").to_string();
        if self.egt_path.as_deref() != Some(path.as_str()) {
            self.load_tables(&path);
        }
        if let Some(t) = self.tables.as_mut() {
            t.configure(opts);
        }
        let cache = opts.size("cache") as u64;
        let shown = self.cache_applied.is_some() || opts.source("cache") != Some(Source::Default);
        if self.cache_applied != Some(cache) && shown {
            self.notes.push(
                "cache: no effect, Syzygy tables are memory-mapped and the operating system caches them"
                    .into(),
            );
        }
        self.cache_applied = Some(cache);
        self.table_policy.configure(opts);
        self.policy.configure(opts);
        self.global_draw_score = opts.int("drawscore") as i32;
        self.apply_opponent();
    }

    /// Tells the policy the opponent (its class) and takes its draw score for the search.
    fn apply_opponent(&mut self) {
        self.policy.set_opponent(&self.opponent);
        self.config.draw_score = self.policy.draw_score(self.global_draw_score);
    }

    /// Loads the endgame tables of `path` for the engine and the tables hook (none
    /// for an empty path); a missing or unreadable directory is reported once, in
    /// the notes, and play goes on with whatever was found.
    fn load_tables(&mut self, path: &str) {
        let first = self.egt_path.is_none();
        self.egt_path = Some(path.to_string());
        self.abort_search();
        let loaded = crate::egtb::load(path);
        let tb = loaded.tablebase();
        self.engine.set_tablebases(tb.clone());
        self.tables = tb.map(|t| Box::new(SyzygyHook::new(t)) as Box<dyn TablesHook>);
        self.tables_report = loaded.problems.clone();
        self.tables_report.push(loaded.summary.clone());
        if path.trim().is_empty() {
            if !first {
                self.notes.push("Syzygy tables: off".into());
            }
            return;
        }
        for p in &loaded.problems {
            self.notes.push(format!("Syzygy tables: {p}"));
        }
        if loaded.tables.is_some() {
            self.notes.push(loaded.summary);
        } else {
            self.notes
                .push("no Syzygy tables loaded; playing on without them".into());
        }
    }

    /// Messages for the user since the last call (tables loaded or not found, `cache`
    /// without effect); each is given once.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// What `egtb` prints: problems found when loading, then the tables found and the
    /// largest complete set.
    pub fn tables_report(&self) -> Vec<String> {
        if self.tables_report.is_empty() {
            vec!["no Syzygy tables (set egtpath or tbpath to a directory of them)".into()]
        } else {
            self.tables_report.clone()
        }
    }

    /// The tables' verdict on the current position, if it is in the tables.
    pub fn table_verdict(&mut self) -> Option<crate::egtb::Verdict> {
        let board = &self.board;
        self.tables.as_mut().and_then(|t| t.verdict(board))
    }

    pub fn set_book(&mut self, book: Option<Box<dyn BookHook>>) {
        self.book = book;
    }

    /// The book hook, if any (for front ends' `book` commands and its messages).
    pub fn book_mut(&mut self) -> Option<&mut (dyn BookHook + 'static)> {
        self.book.as_deref_mut()
    }

    pub fn set_tables(&mut self, tables: Option<Box<dyn TablesHook>>) {
        self.tables = tables;
    }

    pub fn set_policy(&mut self, policy: Box<dyn Policy>) {
        self.policy = policy;
        self.apply_opponent();
    }

    /// The callback run (on the search thread) when a search has ended; the front
    /// end's loop then calls `take_finished`.
    pub fn set_notify(&mut self, notify: Notify) {
        self.notify = Some(notify);
    }

    pub fn engine(&self) -> &Arc<dyn Searcher> {
        &self.engine
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    pub fn config_mut(&mut self) -> &mut SearchConfig {
        &mut self.config
    }

    // ----- state ----------------------------------------------------------------------

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn start_position(&self) -> &Board {
        &self.start
    }

    pub fn moves(&self) -> &[PlayedMove] {
        &self.moves
    }

    pub fn state(&self) -> EngineState {
        self.state
    }

    pub fn result(&self) -> Option<&GameResult> {
        self.result.as_ref()
    }

    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    pub fn engine_side(&self) -> Option<Color> {
        self.engine_side
    }

    /// The side the engine plays (`None`: force mode, it plays neither).
    pub fn set_engine_side(&mut self, side: Option<Color>) {
        self.engine_side = side;
    }

    /// True when it is the engine's turn in a game that is not over.
    pub fn engine_to_move(&self) -> bool {
        self.result.is_none() && self.engine_side == Some(self.board.side_to_move())
    }

    pub fn opponent(&self) -> &Opponent {
        &self.opponent
    }

    pub fn opponent_mut(&mut self) -> &mut Opponent {
        &mut self.opponent
    }

    pub fn clocks(&self) -> &Clocks {
        &self.clocks
    }

    pub fn clocks_mut(&mut self) -> &mut Clocks {
        &mut self.clocks
    }

    pub fn ponder_enabled(&self) -> bool {
        self.ponder
    }

    /// The move the engine expects in reply to its last move (xboard `hint`).
    pub fn expected_reply(&self) -> Option<Move> {
        self.ponder_override.or(self.expected_reply)
    }

    /// `ponder <move>`: ponder on this move next time (it must be legal then).
    pub fn set_ponder_move(&mut self, mv: Option<Move>) {
        self.ponder_override = mv;
    }

    pub fn pondering_on(&self) -> Option<Move> {
        self.pondering_on
    }

    /// The engine's latest score from its own side (policy input).
    pub fn last_score(&self) -> Option<i32> {
        self.last_score
    }

    /// The engine's scores, one per engine move.
    pub fn engine_scores(&self) -> &[i32] {
        &self.scores
    }

    /// The full move number and side to move, for prompts (`White(1): `).
    pub fn move_number(&self) -> u16 {
        self.board.fullmove_number()
    }

    // ----- positions and moves -------------------------------------------------------

    /// A new game from the start position: the engine plays Black, the clocks are
    /// reset to the time control, the engine forgets earlier games.
    pub fn new_game(&mut self) {
        self.abort_search();
        self.engine.new_game();
        if let Some(b) = self.book.as_mut() {
            b.new_game();
        }
        self.set_position(Board::startpos());
        self.engine_side = Some(Color::Black);
        self.scores.clear();
        self.last_score = None;
        self.searched_score = None;
        self.table_policy.new_game();
        self.policy.new_game();
        let tc = self.clocks.time_control();
        self.clocks.reset(tc);
        self.clocks.start(Color::White);
    }

    /// Sets up a position (`setboard`, UCI `position`); the moves list starts empty.
    /// Any search is stopped and its result dropped.
    pub fn set_position(&mut self, board: Board) {
        self.abort_search();
        let mut board = board;
        board.clear_history();
        self.start = board.clone();
        self.board = board;
        self.moves.clear();
        self.expected_reply = None;
        self.ponder_override = None;
        self.result = self.detect_result();
        self.result_reported = self.result.is_some();
        let side = self.board.side_to_move();
        if self.clocks.running().is_some() {
            self.clocks.start(side);
        }
    }

    /// `setboard <fen>`.
    pub fn set_fen(&mut self, fen: &str) -> Result<(), GameError> {
        let b = Board::from_fen(fen).map_err(|e| GameError::Position(e.to_string()))?;
        self.set_position(b);
        Ok(())
    }

    /// Resolves a move typed in any notation (SAN or coordinates).
    pub fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        Ok(self.board.parse_move(text)?)
    }

    /// Makes a move on the board: records it with its SAN and time, runs the clocks,
    /// detects the result. Does not touch a running search (see `opponent_move`).
    pub fn make_move(&mut self, mv: Move) -> Result<(), GameError> {
        if !self.board.is_legal(mv) {
            return Err(GameError::Illegal(mv.to_string()));
        }
        let side = self.board.side_to_move();
        let san = self.board.san(mv);
        let time = self.clocks.moved(side);
        self.board.make_move(mv);
        self.moves.push(PlayedMove {
            mv,
            san,
            side,
            time,
            score: self.move_score.take(),
        });
        self.result = self.detect_result();
        self.report_result();
        Ok(())
    }

    /// Tells the book hook (learning) about the result, once per game, when the
    /// engine played in the game.
    fn report_result(&mut self) {
        if self.result_reported {
            return;
        }
        let (Some(result), Some(book)) = (self.result.as_ref(), self.book.as_mut()) else {
            return;
        };
        let Some(engine) = self
            .moves
            .iter()
            .find(|m| m.score.is_some())
            .map(|m| m.side)
        else {
            return;
        };
        self.result_reported = true;
        book.game_over(&GameOver {
            start: &self.start,
            moves: &self.moves,
            result,
            engine,
            opponent: &self.opponent,
        });
    }

    /// The opponent (or the user) moves. A ponder search on this move goes on as a
    /// normal search (`Hit`); on another move it is stopped (`Miss`) and the caller
    /// starts a new one. Analysis is stopped; the caller restarts it.
    pub fn opponent_move(&mut self, mv: Move) -> Result<PonderOutcome, GameError> {
        if !self.board.is_legal(mv) {
            return Err(GameError::Illegal(mv.to_string()));
        }
        let outcome = match self.state {
            EngineState::Pondering if self.pondering_on == Some(mv) => {
                self.engine.ponderhit();
                self.state = EngineState::Thinking;
                self.pondering_on = None;
                PonderOutcome::Hit
            }
            EngineState::Pondering => {
                self.abort_search();
                PonderOutcome::Miss
            }
            EngineState::Idle => PonderOutcome::NotPondering,
            _ => {
                self.abort_search();
                PonderOutcome::NotPondering
            }
        };
        self.make_move(mv)?;
        if outcome == PonderOutcome::Hit && self.result.is_some() {
            self.abort_search();
        }
        Ok(outcome)
    }

    /// Takes back one ply (stops any search).
    pub fn undo(&mut self) -> Result<(), GameError> {
        if self.moves.is_empty() {
            return Err(GameError::NothingToUndo);
        }
        self.abort_search();
        let m = self.moves.pop().expect("checked");
        self.board.unmake_move();
        self.clocks.unmoved(m.side);
        if m.score.is_some() {
            self.scores.pop();
        }
        self.result = self.detect_result();
        self.expected_reply = None;
        Ok(())
    }

    /// Takes back the last move of each side (xboard `remove`).
    pub fn remove(&mut self) -> Result<(), GameError> {
        if self.moves.len() < 2 {
            return Err(GameError::NothingToUndo);
        }
        self.undo()?;
        self.undo()
    }

    /// The result the position itself decides, if any.
    pub fn detect_result(&self) -> Option<GameResult> {
        let b = &self.board;
        let (outcome, reason) = if !b.has_legal_move() {
            if b.in_check() {
                let winner = !b.side_to_move();
                (Outcome::win_for(winner), format!("{} mates", winner.name()))
            } else {
                (Outcome::Draw, "Stalemate".to_string())
            }
        } else if b.is_insufficient_material() {
            (Outcome::Draw, "Insufficient material".into())
        } else if b.is_fifty_move_draw() {
            (Outcome::Draw, "Fifty move rule".into())
        } else if b.is_threefold_repetition() {
            (Outcome::Draw, "Draw by repetition".into())
        } else {
            return None;
        };
        Some(GameResult { outcome, reason })
    }

    /// Ends the game with a result from outside (xboard `result`, a resignation,
    /// a draw by agreement, a flag). Any search is stopped.
    pub fn set_result(&mut self, outcome: Outcome, reason: &str) {
        self.abort_search();
        self.result = Some(GameResult {
            outcome,
            reason: reason.to_string(),
        });
        self.report_result();
    }

    /// Clears a result set from outside, keeping what the position decides.
    pub fn clear_result(&mut self) {
        self.result = self.detect_result();
    }

    /// Draw offers are judged only from this move on (unless the position is a dead
    /// draw): an early offer meets no settled score.
    pub const DRAW_OFFERS_FROM_MOVE: u16 = 20;

    /// The opponent offers a draw. In a table position the tables decide; in a dead
    /// draw (insufficient material, a repetition or fifty moves to claim) the policy
    /// accepts unless it never accepts; otherwise only a real search's score counts
    /// (never a book move's, never before the first search) and only from move 20.
    pub fn draw_offered(&mut self) -> bool {
        self.apply_opponent();
        if let Some(mut v) = self.table_verdict() {
            // The verdict is the side to move's; the offer is answered for the engine.
            if self
                .engine_side
                .is_some_and(|c| c != self.board.side_to_move())
            {
                v = v.flipped();
            }
            return self.policy.accept_draw_by_tables(&v, &self.table_policy);
        }
        let b = &self.board;
        if b.is_insufficient_material() || b.is_threefold_repetition() || b.is_fifty_move_draw() {
            return self.policy.accept_draw(-crate::engine::MATE_IN_MAX);
        }
        if b.fullmove_number() < Self::DRAW_OFFERS_FROM_MOVE {
            return false;
        }
        match self.searched_score {
            Some(s) => self.policy.accept_draw(s),
            None => false,
        }
    }

    /// Clears the transposition table.
    pub fn clear_hash(&mut self) {
        self.abort_search();
        self.engine.clear_hash();
    }

    /// The game so far as PGN movetext with the result (`1. e4 e5 2. Nf3 *`).
    pub fn movetext(&self) -> String {
        let mut pgn = crate::chess::pgn::PgnGame::new(self.start.clone());
        let mut b = self.start.clone();
        for m in &self.moves {
            pgn.push_move(&b, m.mv);
            b.make_move(m.mv);
        }
        pgn.result = self
            .result
            .as_ref()
            .map_or("*", |r| r.outcome.pgn())
            .to_string();
        pgn.to_pgn()
    }

    /// Reads the clock (for front ends that time things the same way the game does).
    pub fn now(&self) -> Duration {
        self.clock.now()
    }

    /// The time control in force.
    pub fn time_control(&self) -> TimeControl {
        self.clocks.time_control()
    }
}

impl Drop for Game {
    fn drop(&mut self) {
        self.engine.stop();
        self.engine.wait();
    }
}

/// Sets the search's own settings from the options: draw score, Crafty's
/// `extensions` and `evaluation` knobs, MultiPV, move overhead, operator reserve,
/// `usage`, `smpmin`, pondering and the endgame-table probe limits. The game applies it
/// at every `configure`; `kibitzer test` and `kibitzer analyze` apply it to the
/// options given with `--set` and the environment, so a knob changes what they search
/// as it does in play.
///
/// A net that cannot be read leaves the handcrafted evaluation playing and is
/// returned as the error (after every other setting is applied).
pub fn apply_search_options(c: &mut SearchConfig, opts: &Options) -> Result<(), String> {
    c.draw_score = opts.int("drawscore") as i32;
    for name in crate::engine::Extensions::NAMES {
        let _ = c
            .extensions
            .set(name, opts.int(&format!("extensions.{name}")) as i32);
    }
    for name in crate::eval::EvalParams::NAMES {
        let _ = c
            .eval
            .set(name, opts.int(&format!("evaluation.{name}")) as i32);
    }
    c.multipv = opts.int("multipv") as usize;
    c.move_overhead = opts.duration("move_overhead");
    c.operator_reserve = Duration::from_secs(opts.int("operator") as u64 * 60);
    c.usage = opts.int("usage") as i32;
    c.smp_min_depth = opts.int("smpmin") as i32;
    c.ponder = opts.bool("ponder");
    c.tb_probe_limit = opts.int("egtlimit") as u32;
    c.tb_probe_depth = opts.int("egtdepth") as i32;
    match crate::nnue::Network::cached(opts.str("evaluation.net"), opts.int("evaluation.netscale"))
    {
        Ok(net) => {
            c.net = net;
            Ok(())
        }
        Err(e) => {
            c.net = None;
            Err(format!("{e}; the handcrafted evaluation plays"))
        }
    }
}
