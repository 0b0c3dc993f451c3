//! `BookKeeper`: the game controller's book hook. It answers book positions from the
//! main book, the steering book, a Polyglot book and a Crafty book (selection in
//! `select.rs`; statistics come from the first of main, Polyglot, Crafty that has the
//! move, flags from all of them, play percentages from the steering book), follows
//! the game (which book moves were played and where there was a choice, the engine's
//! scores after the book) and, when the game ends, hands what it teaches to `learn`.

use super::{BookAnswer, BookHook, BookOverride, Game, GameOver, Outcome};
use crate::book::bookfile::{BookFile, BookKind, MoveStats};
use crate::book::crafty::CraftyBook;
use crate::book::key::{encode_move, polyglot_key};
use crate::book::polyglot::PolyglotBook;
use crate::book::select::{select, Candidate, SelectParams, Selection, Weights};
use crate::book::{BOOK_FILE, STEERING_FILE};
use crate::chess::{Board, Color, Move};
use crate::engine::SearchResult;
use crate::learn::{
    self, bits, BookRecord, BookStep, Delta, FileError, ImportReport, Learner, Lesson,
    MoveLearning, PositionEntry, PositionRecord,
};
use crate::options::Options;
use std::path::{Path, PathBuf};

/// Where the books are and how to use them (from the option table).
#[derive(Clone, Debug, PartialEq)]
pub struct BookConfig {
    /// `bookpath`: directory of `book.bin`, `books.bin` and the learning files.
    pub dir: Option<PathBuf>,
    /// `ownbook`: play from the book at all.
    pub enabled: bool,
    /// `book.polyglot`: a Polyglot book used as another source.
    pub polyglot: Option<PathBuf>,
    /// `book.crafty`: a Crafty `book.bin` used as another source.
    pub crafty: Option<PathBuf>,
    pub params: SelectParams,
    /// `learn` bits (1 book, 2 position, 4 result).
    pub learn: u8,
    /// Position learning: a drop of at least this many centipawns...
    pub trigger: i32,
    /// ... from a score above this one.
    pub cutoff: i32,
    /// Look only (`book show`): no file is renamed, removed or written; a broken file
    /// is reported and left as it is.
    pub read_only: bool,
}

impl Default for BookConfig {
    fn default() -> Self {
        BookConfig {
            dir: None,
            enabled: true,
            polyglot: None,
            crafty: None,
            params: SelectParams::default(),
            learn: bits::ALL,
            trigger: 33,
            cutoff: -200,
            read_only: false,
        }
    }
}

fn path_option(opts: &Options, name: &str) -> Option<PathBuf> {
    let s = opts.str(name).trim();
    (!s.is_empty()).then(|| PathBuf::from(s))
}

impl BookConfig {
    pub fn from_options(opts: &Options) -> BookConfig {
        let pct = |n: &str| opts.int(n) as f64 / 100.0;
        BookConfig {
            dir: path_option(opts, "bookpath"),
            enabled: opts.bool("ownbook"),
            polyglot: path_option(opts, "book.polyglot"),
            crafty: path_option(opts, "book.crafty"),
            params: SelectParams {
                width: opts.int("book.width").max(1) as usize,
                random: opts.int("book.random").clamp(0, 4) as u8,
                weights: Weights {
                    freq: pct("bookw.freq"),
                    ratio: pct("bookw.ratio"),
                    eval: pct("bookw.eval"),
                    learn: pct("bookw.learn"),
                },
            },
            learn: opts.int("learn").clamp(0, 7) as u8,
            trigger: opts.int("learn.trigger") as i32,
            cutoff: opts.int("learn.cutoff") as i32,
            read_only: false,
        }
    }

    fn same_files(&self, o: &BookConfig) -> bool {
        self.dir == o.dir && self.polyglot == o.polyglot && self.crafty == o.crafty
    }
}

/// A book move the engine chose (or a set it searched among), as recorded.
#[derive(Clone, Debug)]
struct Played {
    ply: usize,
    key: u64,
    /// The moves it could be (one, or the searched set).
    moves: Vec<Move>,
    choices: usize,
}

/// A search of the engine's: where, its score and depth.
#[derive(Clone, Copy, Debug)]
struct Searched {
    ply: usize,
    engine_key: u64,
    score: i32,
    depth: i32,
}

/// The book hook.
pub struct BookKeeper {
    config: BookConfig,
    main: Option<BookFile>,
    steering: Option<BookFile>,
    polyglot: Option<PolyglotBook>,
    crafty: Option<CraftyBook>,
    learner: Option<Learner>,
    rng: u64,
    evaluator: Option<crate::eval::Evaluator>,
    played: Vec<Played>,
    searches: Vec<Searched>,
    pending: Vec<(PositionEntry, Board, Move)>,
    notes: Vec<String>,
    /// Files found at the last load that could not be used (broken, unsupported).
    problems: usize,
}

impl std::fmt::Debug for BookKeeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookKeeper")
            .field("config", &self.config)
            .field("main", &self.main)
            .field("steering", &self.steering)
            .field("polyglot", &self.polyglot)
            .finish()
    }
}

fn seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (t ^ (std::process::id() as u64) << 32) | 1
}

/// Loads a book file if it exists; problems become notes and count in `problems`. A
/// broken file (bad checksum, cut short) is set aside unless `read_only`; one of
/// another version is left alone.
fn load_book(
    path: &Path,
    read_only: bool,
    notes: &mut Vec<String>,
    problems: &mut usize,
) -> Option<BookFile> {
    if !path.exists() {
        return None;
    }
    match BookFile::open(path) {
        Ok(b) => Some(b),
        Err(e @ FileError::Broken { .. }) if !read_only => {
            *problems += 1;
            match learn::safe::set_aside(path) {
                Ok(to) => notes.push(format!("{e}; set aside as {}", to.display())),
                Err(e2) => notes.push(format!("{e}; could not set it aside: {e2}")),
            }
            None
        }
        Err(e @ FileError::Broken { .. }) => {
            *problems += 1;
            notes.push(format!("{e}; left as it is"));
            None
        }
        Err(e) => {
            *problems += 1;
            notes.push(e.to_string());
            None
        }
    }
}

impl BookKeeper {
    /// Opens the books and learning files the configuration names; what is missing or
    /// broken is said in the notes (`take_notes`).
    pub fn open(config: BookConfig) -> BookKeeper {
        let mut k = BookKeeper {
            config,
            main: None,
            steering: None,
            polyglot: None,
            crafty: None,
            learner: None,
            rng: seed(),
            evaluator: None,
            played: Vec::new(),
            searches: Vec::new(),
            pending: Vec::new(),
            notes: Vec::new(),
            problems: 0,
        };
        k.reload();
        k
    }

    /// Re-reads every file (after `book create`, `import`, or a new `bookpath`).
    pub fn reload(&mut self) {
        let mut notes = Vec::new();
        let mut problems = 0;
        let read_only = self.config.read_only;
        self.main = None;
        self.steering = None;
        self.learner = None;
        if let Some(dir) = self.config.dir.clone() {
            if !dir.is_dir() {
                problems += 1;
                notes.push(format!(
                    "bookpath {}: {}; no book, no learning",
                    dir.display(),
                    if dir.exists() {
                        "not a directory"
                    } else {
                        "no such directory"
                    }
                ));
            } else {
                let stale = if read_only {
                    0
                } else {
                    learn::safe::remove_stale_temps(&dir)
                };
                if stale > 0 {
                    notes.push(format!(
                        "{}: removed {stale} temporary files left by interrupted writers",
                        dir.display()
                    ));
                }
                let (main, steering) = (dir.join(BOOK_FILE), dir.join(STEERING_FILE));
                self.main = load_book(&main, read_only, &mut notes, &mut problems);
                self.steering = load_book(&steering, read_only, &mut notes, &mut problems);
                let mut l = if read_only {
                    Learner::open_read_only(&dir)
                } else {
                    Learner::open(&dir)
                };
                problems += l.problems();
                notes.extend(l.take_notes());
                self.learner = Some(l);
                if self.main.is_none() {
                    notes.push(format!(
                        "no book {}: playing from move 1 (`book create <pgn> <maxply>` builds one)",
                        dir.join(BOOK_FILE).display()
                    ));
                }
            }
        }
        self.polyglot = None;
        if let Some(p) = self.config.polyglot.clone() {
            match PolyglotBook::open(&p) {
                Ok(b) => self.polyglot = Some(b),
                Err(e) => {
                    problems += 1;
                    notes.push(format!("{e}; the Polyglot book is not used"));
                }
            }
        }
        self.crafty = None;
        if let Some(p) = self.config.crafty.clone() {
            match CraftyBook::open(&p) {
                Ok(b) => self.crafty = Some(b),
                Err(e) => {
                    problems += 1;
                    notes.push(format!("{e}; the Crafty book is not used"));
                }
            }
        }
        self.problems = problems;
        self.notes.extend(notes);
    }

    /// Applies new settings; files are re-read only when their names changed.
    pub fn configure(&mut self, config: BookConfig) {
        let reload = !self.config.same_files(&config);
        self.config = config;
        if reload {
            self.reload();
        }
    }

    pub fn config(&self) -> &BookConfig {
        &self.config
    }

    /// A fixed random seed (tests, reproducible matches).
    pub fn set_seed(&mut self, seed: u64) {
        self.rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    }

    pub fn main_book(&self) -> Option<&BookFile> {
        self.main.as_ref()
    }

    pub fn steering_book(&self) -> Option<&BookFile> {
        self.steering.as_ref()
    }

    pub fn learner(&self) -> Option<&Learner> {
        self.learner.as_ref()
    }

    /// How many files the last load found but could not use (a broken or
    /// unsupported book or learning file, a bookpath that is not a directory).
    pub fn problems(&self) -> usize {
        self.problems
    }

    pub fn has_book(&self) -> bool {
        self.main.is_some()
            || self.steering.is_some()
            || self.polyglot.is_some()
            || self.crafty.is_some()
    }

    /// A uniform number in [0, 1) (xorshift64*).
    fn random(&mut self) -> f64 {
        let mut x = self.rng;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.rng = x;
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The candidates of a position, before selection: legal moves found in any book,
    /// with their statistics and what was learned about them.
    pub fn candidates(&mut self, board: &Board) -> Vec<Candidate> {
        let key = polyglot_key(board);
        let main: Vec<MoveStats> = self
            .main
            .as_ref()
            .map_or(Vec::new(), |b| b.lookup(key).collect());
        let steer: Vec<MoveStats> = self
            .steering
            .as_ref()
            .map_or(Vec::new(), |b| b.lookup(key).collect());
        let poly = self
            .polyglot
            .as_ref()
            .map_or(Vec::new(), |b| b.stats(board, key));
        let crafty = self.crafty.as_ref().map_or(Vec::new(), |b| b.stats(board));
        if main.is_empty() && steer.is_empty() && poly.is_empty() && crafty.is_empty() {
            return Vec::new();
        }
        let use_eval = self.config.params.weights.eval > 0.0 && self.config.params.random <= 1;
        let mut out = Vec::new();
        for &m in board.legal_moves().iter() {
            let code = encode_move(m);
            let mut c = Candidate::new(board, m);
            if let Some(s) = main.iter().find(|s| s.code == code) {
                c.stats = *s;
                c.learned = s.learned as i32;
                c.in_book = true;
            } else if let Some((_, s)) = poly.iter().find(|(pm, _)| *pm == m) {
                c.stats = *s;
                c.in_book = true;
            } else if let Some((_, s)) = crafty.iter().find(|(cm, _)| *cm == m) {
                c.stats = *s;
                c.learned = s.learned as i32;
                c.in_book = true;
            }
            // Flags of every source count.
            for (cm, s) in &crafty {
                if *cm == m {
                    c.stats.flags |= s.flags;
                }
            }
            if let Some(s) = steer.iter().find(|s| s.code == code) {
                c.stats.flags |= s.flags;
                c.stats.play = c.stats.play.max(s.play);
                c.in_steering = true;
            }
            if !c.in_book && !c.in_steering {
                continue;
            }
            if let Some(l) = self.learner.as_ref().and_then(|l| l.learned(key, code)) {
                c.learned = l.value;
                c.never = l.never;
            }
            if use_eval {
                let ev = self
                    .evaluator
                    .get_or_insert_with(|| crate::eval::Evaluator::new(1 << 16));
                let mut b = board.clone();
                b.make_move(m);
                c.eval = Some(-ev.evaluate(&b));
            }
            out.push(c);
        }
        out
    }

    fn params(&self, over: BookOverride) -> SelectParams {
        let mut p = self.config.params;
        if let Some(w) = over.width {
            p.width = w.max(1);
        }
        if let Some(r) = over.random {
            p.random = r.min(4);
        }
        p
    }

    /// The selection for a position (`None`: not in any book).
    pub fn selection(&mut self, board: &Board, over: BookOverride) -> Option<Selection> {
        let cands = self.candidates(board);
        if cands.is_empty() {
            return None;
        }
        Some(select(cands, &self.params(over)))
    }

    /// `show book`: every candidate with its numbers.
    pub fn show(&mut self, board: &Board, over: BookOverride) -> Vec<String> {
        if !self.has_book() {
            return vec![match &self.config.dir {
                Some(d) => format!(
                    "no usable book in {} (`book create <pgn> <maxply>` builds one)",
                    d.display()
                ),
                None => "no book loaded (set bookpath, or `book create <pgn> <maxply>`)".into(),
            }];
        }
        let p = self.params(over);
        match self.selection(board, over) {
            Some(s) => s.show(&p),
            None => vec!["not a book position".into()],
        }
    }

    /// `import <file> [clear]`.
    pub fn import(&mut self, file: &Path, clear: bool) -> Result<ImportReport, FileError> {
        let Some(l) = self.learner.as_mut() else {
            return Err(FileError::Unsupported {
                path: file.to_path_buf(),
                reason: "no bookpath set: there is nowhere to learn into".into(),
            });
        };
        l.import(file, clear, &polyglot_key, &encode_move)
    }

    fn note_choice(&mut self, board: &Board, sel: &Selection, mv: Option<Move>) {
        let list: Vec<String> = sel
            .kept()
            .iter()
            .map(|c| format!("{} {:.0}%", c.san, 100.0 * c.prob))
            .collect();
        let what = match mv {
            Some(m) => format!("book move {}", board.san(m)),
            None => "searching the book moves".to_string(),
        };
        self.note(format!("book moves {{{}}}: {what}", list.join(", ")));
    }

    // ----- learning -------------------------------------------------------------------

    /// Commits pending position learning (a game abandoned without a result).
    fn flush_pending(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let lesson = Lesson {
            positions: self
                .pending
                .drain(..)
                .map(|(e, b, m)| {
                    (
                        e,
                        PositionRecord {
                            tags: Vec::new(),
                            result: "*".into(),
                            board: b,
                            best: m,
                            score: e.score,
                            depth: e.depth,
                        },
                    )
                })
                .collect(),
            ..Default::default()
        };
        self.commit(&lesson);
    }

    fn commit(&mut self, lesson: &Lesson) {
        if let Some(l) = self.learner.as_mut() {
            if let Err(e) = l.commit(lesson) {
                self.notes.push(format!("learning not saved: {e}"));
            }
            let n = l.take_notes();
            self.notes.extend(n);
        }
    }

    /// What a finished game teaches (see `learn`).
    pub fn lesson(&mut self, g: &GameOver<'_>) -> Lesson {
        let mut lesson = Lesson::default();
        let mask = self.config.learn;
        // Replay the game: keys per ply, to check what was recorded against it.
        let mut b = g.start.clone();
        let mut keys = Vec::with_capacity(g.moves.len());
        for m in g.moves {
            keys.push((polyglot_key(&b), b.key()));
            b.make_move(m.mv);
        }
        let played_at = |ply: usize| g.moves.get(ply).map(|m| m.mv);
        let mut steps = Vec::new();
        for p in &self.played {
            let Some(mv) = played_at(p.ply) else { continue };
            if keys[p.ply].0 != p.key || g.moves[p.ply].side != g.engine || !p.moves.contains(&mv) {
                continue;
            }
            steps.push(BookStep {
                ply: p.ply,
                key: p.key,
                code: encode_move(mv),
                choices: p.choices,
            });
        }
        steps.sort_by_key(|s| s.ply);
        steps.dedup_by_key(|s| s.ply);
        let last_book_ply = steps.last().map(|s| s.ply);
        let searches: Vec<(i32, i32)> = self
            .searches
            .iter()
            .filter(|s| {
                s.ply < keys.len()
                    && keys[s.ply].1 == s.engine_key
                    && last_book_ply.is_some_and(|p| s.ply > p)
            })
            .map(|s| (s.score, s.depth))
            .collect();
        let mover = |ply: usize| g.moves.get(ply).map(|m| m.mv);
        let mut per_move: Vec<Vec<MoveLearning>> = vec![Vec::new(); steps.len()];
        let rating_difference = match (g.opponent.rating, g.opponent.own_rating) {
            (Some(o), Some(us)) => o - us,
            _ => 0,
        };
        // Book learning.
        let mut reduced = None;
        if mask & bits::BOOK != 0 {
            if let Some((value, depth)) = learn::reduce_scores(&searches) {
                let v = learn::weigh(value, depth, rating_difference);
                reduced = Some((v, depth));
                for (i, share) in learn::spread(&steps, v) {
                    let s = steps[i];
                    lesson.deltas.push(Delta::Learn {
                        key: s.key,
                        code: s.code,
                        value: share,
                    });
                    per_move[i].push(MoveLearning::Learn(share));
                }
            }
        }
        // Result learning.
        if mask & bits::RESULT != 0 && !steps.is_empty() {
            let won = g.result.outcome == Outcome::win_for(g.engine);
            let lost = g.result.outcome == Outcome::win_for(!g.engine);
            let last_score = self.searches.last().map(|s| s.score);
            if lost && learn::loss_counts(&g.result.reason, last_score) {
                if let Some(i) = steps.iter().rposition(|s| s.choices > 1) {
                    lesson.deltas.push(Delta::Never {
                        key: steps[i].key,
                        code: steps[i].code,
                    });
                    per_move[i].push(MoveLearning::Never);
                }
            } else if won || g.result.outcome == Outcome::Draw {
                let bonus = if won {
                    learn::WIN_BONUS
                } else {
                    learn::DRAW_BONUS
                };
                for (i, s) in steps.iter().enumerate().filter(|(_, s)| s.choices > 1) {
                    lesson.deltas.push(Delta::Strengthen {
                        key: s.key,
                        code: s.code,
                        bonus,
                    });
                    per_move[i].push(MoveLearning::Strengthen(bonus));
                }
            }
        }
        let tags = game_tags(g);
        if !lesson.deltas.is_empty() {
            let last = steps.last().map_or(0, |s| s.ply);
            let mut moves = Vec::new();
            for ply in 0..=last {
                let Some(m) = mover(ply) else { break };
                let ls = steps
                    .iter()
                    .position(|s| s.ply == ply)
                    .map(|i| per_move[i].clone())
                    .unwrap_or_default();
                moves.push((m, ls));
            }
            let (value, depth) = reduced.unwrap_or((0, 0));
            lesson.book_record = Some(BookRecord {
                tags: tags.clone(),
                result: g.result.outcome.pgn().to_string(),
                value,
                depth,
                rating_difference,
                start: g.start.clone(),
                moves,
            });
        }
        // Position learning.
        if mask & bits::POSITION != 0 {
            for (e, board, best) in self.pending.drain(..) {
                lesson.positions.push((
                    e,
                    PositionRecord {
                        tags: tags.clone(),
                        result: g.result.outcome.pgn().to_string(),
                        board,
                        best,
                        score: e.score,
                        depth: e.depth,
                    },
                ));
            }
        }
        self.pending.clear();
        lesson
    }

    /// Keeps a message for `take_notes` (the newest hundred, for front ends that never
    /// collect them).
    fn note(&mut self, text: String) {
        if self.notes.len() >= 100 {
            self.notes.remove(0);
        }
        self.notes.push(text);
    }

    /// A move at `ply` is being chosen: what was recorded at this ply or later
    /// belongs to a line that was taken back or to an earlier game.
    fn forget_from(&mut self, ply: usize) {
        self.played.retain(|p| p.ply < ply);
        self.searches.retain(|s| s.ply < ply);
    }

    fn reset_game(&mut self) {
        self.played.clear();
        self.searches.clear();
        self.pending.clear();
    }
}

fn game_tags(g: &GameOver<'_>) -> Vec<(String, String)> {
    let us = "kibitzer".to_string();
    let them = if g.opponent.name.is_empty() {
        "?".to_string()
    } else {
        g.opponent.name.clone()
    };
    let (white, black, welo, belo) = match g.engine {
        Color::White => (us, them, g.opponent.own_rating, g.opponent.rating),
        Color::Black => (them, us, g.opponent.rating, g.opponent.own_rating),
    };
    let mut tags = vec![
        (
            "Site".to_string(),
            if g.opponent.server.is_empty() {
                "?".into()
            } else {
                g.opponent.server.clone()
            },
        ),
        ("Date".to_string(), today()),
        ("White".to_string(), white),
        ("Black".to_string(), black),
    ];
    if let Some(r) = welo {
        tags.push(("WhiteElo".into(), r.to_string()));
    }
    if let Some(r) = belo {
        tags.push(("BlackElo".into(), r.to_string()));
    }
    tags.push(("Termination".into(), g.result.reason.clone()));
    tags
}

/// Today's date as PGN writes it (UTC).
fn today() -> String {
    let days = (crate::book::bookfile::now_secs() / 86_400) as i64;
    let (y, m, d) = learn::safe::civil_date(days);
    format!("{y:04}.{m:02}.{d:02}")
}

impl BookHook for BookKeeper {
    fn probe(&mut self, board: &Board) -> Option<Move> {
        match self.answer(board, BookOverride::default()) {
            BookAnswer::Play(m) => Some(m),
            _ => None,
        }
    }

    fn answer(&mut self, board: &Board, over: BookOverride) -> BookAnswer {
        if !self.config.enabled || !self.has_book() {
            return BookAnswer::Out;
        }
        let Some(sel) = self.selection(board, over) else {
            return BookAnswer::Out;
        };
        if sel.kept == 0 {
            self.note("book: every book move was ruled out; searching".into());
            return BookAnswer::Out;
        }
        let ply = board.ply_count();
        self.forget_from(ply);
        let key = polyglot_key(board);
        if sel.search {
            let moves: Vec<Move> = sel.kept().iter().map(|c| c.mv).collect();
            self.note_choice(board, &sel, None);
            self.played.push(Played {
                ply,
                key,
                choices: moves.len(),
                moves: moves.clone(),
            });
            return BookAnswer::Search(moves);
        }
        let r = self.random();
        let Some(mv) = sel.pick(r) else {
            return BookAnswer::Out;
        };
        self.note_choice(board, &sel, Some(mv));
        self.played.push(Played {
            ply,
            key,
            moves: vec![mv],
            choices: sel.kept,
        });
        BookAnswer::Play(mv)
    }

    fn preload(&mut self, _board: &Board) -> &[(u64, i32, i32)] {
        match &self.learner {
            Some(l) if self.config.learn & bits::POSITION != 0 => l.preload(),
            _ => &[],
        }
    }

    fn after_search(&mut self, board: &Board, r: &SearchResult) {
        let ply = board.ply_count();
        self.forget_from(ply);
        let prev = self.searches.iter().rev().find(|s| s.ply < ply).copied();
        self.searches.push(Searched {
            ply,
            engine_key: board.key(),
            score: r.score,
            depth: r.depth,
        });
        if self.config.learn & bits::POSITION == 0 || self.learner.is_none() || r.best.is_null() {
            return;
        }
        if let Some(p) = prev {
            if p.score - r.score >= self.config.trigger
                && p.score > self.config.cutoff
                && self.pending.len() < 1000
            {
                self.pending.push((
                    PositionEntry {
                        key: board.key(),
                        score: r.score,
                        depth: r.depth,
                        code: encode_move(r.best),
                    },
                    board.clone(),
                    r.best,
                ));
            }
        }
    }

    fn game_over(&mut self, g: &GameOver<'_>) {
        if self.learner.is_none() || self.config.learn == 0 {
            self.reset_game();
            return;
        }
        let lesson = self.lesson(g);
        if !lesson.is_empty() {
            let mut what = Vec::new();
            let learned = lesson
                .deltas
                .iter()
                .filter(|d| matches!(d, Delta::Learn { .. }))
                .count();
            if learned > 0 {
                let v = lesson.book_record.as_ref().map_or(0, |r| r.value);
                what.push(format!("book learning {v:+} over {learned} choices"));
            }
            if lesson
                .deltas
                .iter()
                .any(|d| matches!(d, Delta::Never { .. }))
            {
                what.push("the last book choice will not be played again".into());
            }
            let strengthened = lesson
                .deltas
                .iter()
                .filter(|d| matches!(d, Delta::Strengthen { .. }))
                .count();
            if strengthened > 0 {
                what.push(format!("{strengthened} book choices strengthened"));
            }
            if !lesson.positions.is_empty() {
                what.push(format!("{} positions learned", lesson.positions.len()));
            }
            self.commit(&lesson);
            self.note(format!("learning: {}", what.join("; ")));
        }
        self.reset_game();
    }

    fn new_game(&mut self) {
        self.flush_pending();
        self.reset_game();
        if let Some(l) = self.learner.as_mut() {
            l.refresh();
            let n = l.take_notes();
            self.notes.extend(n);
        }
    }

    fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

impl Drop for BookKeeper {
    fn drop(&mut self) {
        self.flush_pending();
    }
}

/// The `BookKeeper` installed in a game, if it is one.
pub fn keeper(game: &mut Game) -> Option<&mut BookKeeper> {
    game.book_mut()?.as_any_mut()?.downcast_mut::<BookKeeper>()
}

/// Installs or reconfigures the game's `BookKeeper` from the options (`bookpath`,
/// `ownbook`, `book.*`, `bookw.*`, `learn*`). Nothing is installed while neither a
/// book directory nor a Polyglot book is set; a book hook of another kind is left in
/// place. Returns the messages to show.
pub fn install(game: &mut Game, opts: &Options) -> Vec<String> {
    let config = BookConfig::from_options(opts);
    if let Some(k) = keeper(game) {
        k.configure(config);
        return k.take_notes();
    }
    if game.book_mut().is_some()
        || (config.dir.is_none() && config.polyglot.is_none() && config.crafty.is_none())
    {
        return Vec::new();
    }
    let mut k = BookKeeper::open(config);
    let notes = k.take_notes();
    game.set_book(Some(Box::new(k)));
    notes
}

/// Kind word for messages.
pub fn kind_name(k: BookKind) -> &'static str {
    match k {
        BookKind::Games => "book",
        BookKind::Steering => "steering book",
    }
}
