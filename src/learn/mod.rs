//! Learning from every game: book learning, position learning and result learning,
//! the shareable `.lrn` records and their import, and the crash-safe files behind
//! them. This module owns the files and the rules; which moves were book moves and
//! which positions were searched is told to it by the book's game hook
//! (`game::book_keeper::BookKeeper`), so it depends on nothing but the chess core.
//!
//! Files, all in the book directory (`bookpath`):
//!
//! | file | what | written |
//! |---|---|---|
//! | `book.learn` | learned values and result marks of book moves (overlay.rs) | append-only log, checksummed records |
//! | `book.lrn` | readable book learning records (lrn.rs) | appended, one write per game |
//! | `position.bin` | up to 65,536 learned positions (position.rs) | replaced whole: temp file, fsync, rename |
//! | `position.lrn` | readable position learning records | appended |
//! | `learn.lock` | advisory lock held while any of the above is written | |
//!
//! Book learning: the scores of the first ten searches after leaving the book are
//! reduced to one value (the best one if the score held up to the last search, the
//! worst one if it never recovered, else the average), weighted by the search depth
//! (full weight from depth 20) and the rating difference (a good score against a
//! stronger opponent, or a bad one against a weaker, counts up to 1.5 times; the
//! other way down to half), capped at +-3 pawns, and spread over the book moves where
//! there was a choice: the last choice receives the whole value, the one before
//! (n-1)/n of it, and so on. A move's learned value is the first value it receives,
//! then the average of what it had and what it receives.
//!
//! Result learning: after a loss (mated, resigned, or out of time with a losing
//! score) the move at the last book choice of the line is marked never to be played
//! again; a win adds 20 centipawns and a draw 5 to every choice move of the line.
//!
//! Position learning: when the engine's score falls by at least `trigger`
//! centipawns from its previous move while the previous score was above `cutoff`,
//! the position is stored with the new score, its depth and the best move; every
//! search preloads the stored positions into the transposition table.
//!
//! Never losing data: see `safe.rs`. A file found broken at start is renamed aside
//! (`name.broken-<time>`) and reported, and learning starts that file afresh.

pub mod lrn;
pub mod overlay;
pub mod position;
pub mod safe;

pub use lrn::{BookRecord, MoveLearning, PositionRecord, Record};
pub use overlay::{Delta, Learned, Overlay};
pub use position::{PositionEntry, PositionStore};
pub use safe::FileError;

use crate::chess::{Board, Move};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `learn` bits.
pub mod bits {
    pub const BOOK: u8 = 1;
    pub const POSITION: u8 = 2;
    pub const RESULT: u8 = 4;
    pub const ALL: u8 = 7;
}

/// Searches after leaving the book that book learning looks at.
pub const BOOK_LEARN_SEARCHES: usize = 10;
/// Result learning's bonus for the choice moves of a won game.
pub const WIN_BONUS: i32 = 20;
/// ... and of a drawn one.
pub const DRAW_BONUS: i32 = 5;
/// How long a writer waits for another process's lock.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// A book move the engine played: where, which, and how many moves it could have
/// chosen from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookStep {
    /// Index of the move in the game.
    pub ply: usize,
    /// Polyglot key of the position.
    pub key: u64,
    /// Book move code.
    pub code: u16,
    /// Candidates left after selection (more than one: a choice).
    pub choices: usize,
}

/// Reduces the (score, depth) of the searches after the book to one (value, depth):
/// the best score if it held (the last is within 30 centipawns of it), the worst if
/// the score never recovered (the last is within 30 of it), else the average; the
/// depth is the average depth.
pub fn reduce_scores(searches: &[(i32, i32)]) -> Option<(i32, i32)> {
    let s = &searches[..searches.len().min(BOOK_LEARN_SEARCHES)];
    let last = s.last()?.0;
    let best = s.iter().map(|x| x.0).max()?;
    let worst = s.iter().map(|x| x.0).min()?;
    let avg = s.iter().map(|x| x.0 as i64).sum::<i64>() / s.len() as i64;
    let depth = (s.iter().map(|x| x.1 as i64).sum::<i64>() / s.len() as i64) as i32;
    let value = if last >= best - 30 {
        best
    } else if last <= worst + 30 {
        worst
    } else {
        avg as i32
    };
    Some((value, depth))
}

/// Weights a reduced value by depth and rating difference (opponent minus us) and
/// caps it at +-300.
pub fn weigh(value: i32, depth: i32, rating_difference: i32) -> i32 {
    let d = depth.clamp(1, 20) as f64 / 20.0;
    let r = rating_difference as f64 / 800.0;
    let rating = if value >= 0 { 1.0 + r } else { 1.0 - r }.clamp(0.5, 1.5);
    let v = (value.clamp(-3000, 3000) as f64 * d * rating).round() as i32;
    v.clamp(-overlay::MAX_VALUE, overlay::MAX_VALUE)
}

/// Shares of `value` for the choice steps of a line: `(step index, share)`, the last
/// choice the whole value, the one before (n-1)/n of it...
pub fn spread(steps: &[BookStep], value: i32) -> Vec<(usize, i32)> {
    let choices: Vec<usize> = (0..steps.len()).filter(|&i| steps[i].choices > 1).collect();
    let n = choices.len() as i64;
    choices
        .iter()
        .enumerate()
        .map(|(j, &i)| (i, (value as i64 * (j as i64 + 1) / n) as i32))
        .collect()
}

/// Does this loss teach result learning? Mates and resignations do, and losses on
/// time when the engine's last score was losing; disconnections and aborts do not.
pub fn loss_counts(reason: &str, last_score: Option<i32>) -> bool {
    let r = reason.to_ascii_lowercase();
    if ["disconnect", "abort", "adjourn"]
        .iter()
        .any(|w| r.contains(w))
    {
        return false;
    }
    if r.contains("time") || r.contains("flag") {
        return last_score.is_some_and(|s| s < 0);
    }
    true
}

/// What one game teaches, ready to be written.
#[derive(Clone, Debug, Default)]
pub struct Lesson {
    pub deltas: Vec<Delta>,
    pub book_record: Option<BookRecord>,
    pub positions: Vec<(PositionEntry, PositionRecord)>,
}

impl Lesson {
    pub fn is_empty(&self) -> bool {
        self.deltas.is_empty() && self.book_record.is_none() && self.positions.is_empty()
    }
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub book_records: usize,
    pub position_records: usize,
    pub deltas: usize,
    pub problems: Vec<String>,
}

/// The learning files of one book directory.
#[derive(Debug)]
pub struct Learner {
    dir: PathBuf,
    overlay: Overlay,
    positions: PositionStore,
    preload: Vec<(u64, i32, i32)>,
    notes: Vec<String>,
    problems: usize,
}

impl Learner {
    pub const OVERLAY: &'static str = "book.learn";
    pub const BOOK_LRN: &'static str = "book.lrn";
    pub const POSITIONS: &'static str = "position.bin";
    pub const POSITION_LRN: &'static str = "position.lrn";
    pub const LOCK: &'static str = "learn.lock";

    /// Opens the learning files of `dir`. A broken file is set aside and reported
    /// (`take_notes`); learning then starts it afresh.
    pub fn open(dir: &Path) -> Learner {
        Learner::open_with(dir, false)
    }

    /// As `open`, changing nothing on disk: a broken file is reported and left as it
    /// is (`book show`).
    pub fn open_read_only(dir: &Path) -> Learner {
        Learner::open_with(dir, true)
    }

    fn open_with(dir: &Path, read_only: bool) -> Learner {
        let mut notes = Vec::new();
        let mut problems = 0;
        let op = dir.join(Self::OVERLAY);
        let overlay = match Overlay::load(&op) {
            Ok((o, torn)) => {
                if torn > 0 {
                    notes.push(format!(
                        "{}: an incomplete last record ({torn} bytes, from a crash) is ignored",
                        op.display()
                    ));
                }
                o
            }
            Err(e) => {
                problems += 1;
                notes.push(set_aside_note(&op, &e, read_only));
                Overlay::new(&op)
            }
        };
        let pp = dir.join(Self::POSITIONS);
        let positions = match PositionStore::load(&pp) {
            Ok(p) => p,
            Err(e) => {
                problems += 1;
                notes.push(set_aside_note(&pp, &e, read_only));
                PositionStore::new(&pp)
            }
        };
        let preload = positions.preload_entries();
        Learner {
            dir: dir.to_path_buf(),
            overlay,
            positions,
            preload,
            notes,
            problems,
        }
    }

    /// How many learning files could not be read when this was opened.
    pub fn problems(&self) -> usize {
        self.problems
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Messages for the operator (files set aside, torn records dropped).
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    pub fn learned(&self, key: u64, code: u16) -> Option<Learned> {
        self.overlay.get(key, code)
    }

    pub fn overlay(&self) -> &Overlay {
        &self.overlay
    }

    pub fn positions(&self) -> &PositionStore {
        &self.positions
    }

    /// `(key, score, depth)` of the learned positions, for the transposition table.
    pub fn preload(&self) -> &[(u64, i32, i32)] {
        &self.preload
    }

    fn lock(&self) -> Result<safe::FileLock, FileError> {
        safe::FileLock::acquire(&self.path(Self::LOCK), LOCK_WAIT)
    }

    /// Writes what a game taught (under the lock; each file crash-safely).
    pub fn commit(&mut self, lesson: &Lesson) -> Result<(), FileError> {
        if lesson.is_empty() {
            return Ok(());
        }
        let _lock = self.lock()?;
        if !lesson.deltas.is_empty() {
            self.check_overlay();
            self.overlay.commit(false, &lesson.deltas)?;
        }
        if let Some(r) = &lesson.book_record {
            self.append_lrn(Self::BOOK_LRN, &r.to_pgn())?;
        }
        if !lesson.positions.is_empty() {
            self.reload_positions()?;
            let mut text = String::new();
            for (e, r) in &lesson.positions {
                self.positions.add(*e);
                text.push_str(&r.to_pgn());
            }
            self.positions.save()?;
            self.preload = self.positions.preload_entries();
            self.append_lrn(Self::POSITION_LRN, &text)?;
        }
        Ok(())
    }

    fn reload_positions(&mut self) -> Result<(), FileError> {
        if let Err(e) = self.positions.reload() {
            let p = self.positions.path().to_path_buf();
            self.notes.push(set_aside_note(&p, &e, false));
            self.positions = PositionStore::new(&p);
        }
        Ok(())
    }

    fn append_lrn(&mut self, name: &str, text: &str) -> Result<(), FileError> {
        let p = self.path(name);
        let torn = safe::append_text(&p, text)?;
        if torn > 0 {
            self.notes.push(format!(
                "{}: dropped an incomplete last record ({torn} bytes, from a crash)",
                p.display()
            ));
        }
        Ok(())
    }

    /// Follows the overlay log; a log found broken is set aside (and learning starts
    /// it afresh).
    fn check_overlay(&mut self) {
        if let Err(e) = self.overlay.refresh() {
            let p = self.overlay.path().to_path_buf();
            self.notes.push(set_aside_note(&p, &e, false));
            self.overlay = Overlay::new(&p);
        }
    }

    /// Re-reads the learning files (another process may have learned).
    pub fn refresh(&mut self) {
        self.check_overlay();
        let _ = self.reload_positions();
        self.preload = self.positions.preload_entries();
    }

    /// `import <file> [clear]`: reads a book or position `.lrn` file (either kind,
    /// detected per record) into the learning files. `clear` forgets what was learned
    /// before, for the kinds the file holds. `key` and `code` give the book's key of
    /// a position and code of a move.
    pub fn import(
        &mut self,
        file: &Path,
        clear: bool,
        key: &dyn Fn(&Board) -> u64,
        code: &dyn Fn(Move) -> u16,
    ) -> Result<ImportReport, FileError> {
        let bytes = std::fs::read(file).map_err(|e| FileError::io(file, e))?;
        let good = safe::clean_text_len(&bytes);
        let text = String::from_utf8_lossy(&bytes[..good]);
        let (records, mut problems) = lrn::parse(&text);
        if good < bytes.len() {
            problems.push(format!(
                "an incomplete last record ({} bytes) was ignored",
                bytes.len() - good
            ));
        }
        let mut report = ImportReport {
            problems,
            ..Default::default()
        };
        let mut deltas = Vec::new();
        let mut positions = Vec::new();
        for r in &records {
            match r {
                Record::Book(b) => {
                    report.book_records += 1;
                    let mut board = b.start.clone();
                    for (m, ls) in &b.moves {
                        if !board.is_legal(*m) {
                            break;
                        }
                        let (k, c) = (key(&board), code(*m));
                        for l in ls {
                            deltas.push(match *l {
                                MoveLearning::Learn(value) => Delta::Learn {
                                    key: k,
                                    code: c,
                                    value,
                                },
                                MoveLearning::Strengthen(bonus) => Delta::Strengthen {
                                    key: k,
                                    code: c,
                                    bonus,
                                },
                                MoveLearning::Never => Delta::Never { key: k, code: c },
                            });
                        }
                        board.make_move(*m);
                    }
                }
                Record::Position(p) => {
                    report.position_records += 1;
                    positions.push(PositionEntry {
                        key: p.board.key(),
                        score: p.score,
                        depth: p.depth,
                        code: code(p.best),
                    });
                }
            }
        }
        report.deltas = deltas.len();
        let _lock = self.lock()?;
        self.check_overlay();
        if report.book_records > 0 || (clear && report.position_records == 0) {
            self.overlay.commit(clear, &deltas)?;
        }
        if report.position_records > 0 {
            self.reload_positions()?;
            if clear {
                self.positions.clear();
            }
            for e in positions {
                self.positions.add(e);
            }
            self.positions.save()?;
            self.preload = self.positions.preload_entries();
        }
        Ok(report)
    }
}

/// Sets a broken file aside and says so (or says why it could not).
fn set_aside_note(path: &Path, e: &FileError, read_only: bool) -> String {
    match e {
        FileError::Broken { .. } if read_only => format!("{e}; left as it is"),
        FileError::Broken { .. } => match safe::set_aside(path) {
            Ok(to) => format!("{e}; set aside as {} and started afresh", to.display()),
            Err(e2) => format!("{e}; could not set it aside: {e2}"),
        },
        _ => format!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_best_worst_average() {
        // Held: ends near the best.
        assert_eq!(
            reduce_scores(&[(10, 8), (50, 10), (40, 12)]),
            Some((50, 10))
        );
        // Never recovered: ends near the worst.
        assert_eq!(
            reduce_scores(&[(10, 8), (-80, 10), (-70, 12)]),
            Some((-80, 10))
        );
        // In between: the average.
        assert_eq!(
            reduce_scores(&[(100, 10), (-100, 10), (0, 10)]),
            Some((0, 10))
        );
        assert_eq!(reduce_scores(&[]), None);
    }

    #[test]
    fn weighing_and_spreading() {
        assert_eq!(weigh(100, 20, 0), 100);
        assert_eq!(weigh(100, 10, 0), 50);
        assert_eq!(weigh(100, 20, 400), 150);
        assert_eq!(weigh(-100, 20, 400), -50);
        assert_eq!(weigh(-1000, 30, -800), -300);
        let step = |choices| BookStep {
            ply: 0,
            key: 0,
            code: 0,
            choices,
        };
        let steps = [step(3), step(1), step(2), step(1)];
        assert_eq!(spread(&steps, -90), vec![(0, -45), (2, -90)]);
        assert!(spread(&[step(1)], 50).is_empty());
    }

    #[test]
    fn which_losses_count() {
        assert!(loss_counts("White mates", Some(-900)));
        assert!(loss_counts("Black resigns", None));
        assert!(loss_counts("Black forfeits on time", Some(-150)));
        assert!(!loss_counts("Black forfeits on time", Some(40)));
        assert!(!loss_counts("Black disconnected", Some(-500)));
    }
}
