//! `book create` and `books create`: a book file from a PGN stream.
//!
//! The first `max_ply` plies of every game are counted per position and move: games,
//! wins, draws and losses from the side that moved, the flags written after the move
//! (`!!`, `!`, `=` as `$10`, `?`, `??`) and a `{play nn%}` comment after it. The main
//! book needs a result for every game it counts (games without one are skipped and
//! reported); the steering book does not. After counting, the main book drops moves
//! played in fewer than `min_played` games and moves whose wins fall short of `wpct`
//! percent of their losses (`wpct` 100: a move must win at least as often as it
//! loses); the steering book keeps every move.
//!
//! Memory stays bounded however large the input: counts gather in a hash map until it
//! reaches the memory budget, then go to disk as a sorted run; the runs are merged at
//! the end. The book is written under a temporary name and renamed into place.

use super::bookfile::{flags, now_secs, BookKind, BookWriter, Header, MoveStats};
use super::key::{encode_move, polyglot_key};
use crate::chess::pgn::PgnReader;
use crate::chess::Color;
use crate::learn::safe::{Context, FileError};
use std::cell::Cell;
use std::collections::{BinaryHeap, HashMap};
use std::fs::{self, File};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Parameters of `book create` / `books create`.
#[derive(Clone, Debug)]
pub struct CreateOptions {
    pub kind: BookKind,
    /// Plies of each game to store.
    pub max_ply: u32,
    /// Moves played in fewer games are dropped (main book).
    pub min_played: u32,
    /// Moves must win at least `wpct`% as many games as they lose (main book; 0 keeps
    /// all).
    pub wpct: u32,
    /// Memory for counting before a sorted run goes to disk, in bytes.
    pub memory: usize,
}

impl CreateOptions {
    /// `book create <pgn> <maxply> [minplay] [wpct]`.
    pub fn book(max_ply: u32, min_played: u32, wpct: u32) -> CreateOptions {
        CreateOptions {
            kind: BookKind::Games,
            max_ply,
            min_played: min_played.max(1),
            wpct,
            memory: 256 << 20,
        }
    }

    /// `books create <pgn> <maxply>`.
    pub fn steering(max_ply: u32) -> CreateOptions {
        CreateOptions {
            kind: BookKind::Steering,
            max_ply,
            min_played: 1,
            wpct: 0,
            memory: 64 << 20,
        }
    }
}

/// How far reading has got.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub games: u64,
    pub bytes: u64,
    /// Input size, when known (a file): for the ETA.
    pub total: Option<u64>,
    pub elapsed: Duration,
}

impl Progress {
    /// One status line: `12,345 games  2,345 games/s  3.1 MB/s  41%  ETA 0:12`.
    pub fn line(&self) -> String {
        let s = self.elapsed.as_secs_f64().max(1e-9);
        let mut l = format!(
            "{} games  {:.0} games/s  {:.1} MB/s",
            self.games,
            self.games as f64 / s,
            self.bytes as f64 / s / 1e6
        );
        if let Some(t) = self.total.filter(|&t| t > 0) {
            let frac = (self.bytes as f64 / t as f64).min(1.0);
            let eta = if frac > 0.0 { s / frac - s } else { 0.0 };
            let bar = (frac * 20.0) as usize;
            l.push_str(&format!(
                "  [{}{}] {:.0}%  ETA {}:{:02}",
                "#".repeat(bar),
                ".".repeat(20 - bar),
                frac * 100.0,
                eta as u64 / 60,
                eta as u64 % 60
            ));
        }
        l
    }
}

/// A game left out, with its number in the file and why; or, with `kept_plies`, a
/// game with an unreadable move after `maxply` whose first plies were counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub game: usize,
    pub reason: String,
    pub kept_plies: Option<u32>,
}

impl Skipped {
    /// The line to show: `skipped game 5: ...` or `game 5: ...; its first 30 plies
    /// are used`, control characters escaped.
    pub fn message(&self) -> String {
        let reason = crate::text::printable(&self.reason, 200);
        match self.kept_plies {
            None => format!("skipped game {}: {reason}", self.game),
            Some(n) => format!(
                "game {}: {reason}; the {n} plies before it (within maxply) are used",
                self.game
            ),
        }
    }
}

/// What a creation did.
#[derive(Clone, Debug)]
pub struct CreateReport {
    pub games_read: u64,
    pub games_used: u64,
    pub games_skipped: u64,
    /// Plies counted (at most `max_ply` per game).
    pub plies: u64,
    pub bytes: u64,
    /// Sorted runs written to disk (0: everything fitted in memory).
    pub runs: usize,
    pub dropped_min_played: u64,
    pub dropped_wpct: u64,
    pub header: Header,
    pub file_size: u64,
    pub elapsed: Duration,
}

impl CreateReport {
    pub fn summary(&self, path: &Path) -> Vec<String> {
        let s = self.elapsed.as_secs_f64().max(1e-9);
        let per_move = if self.header.moves > 0 {
            self.file_size as f64 / self.header.moves as f64
        } else {
            0.0
        };
        vec![
            format!(
                "{}: {} positions, {} moves, {} bytes ({per_move:.1} bytes per move)",
                path.display(),
                self.header.positions,
                self.header.moves,
                self.file_size
            ),
            format!(
                "{} games read, {} used, {} skipped; {} plies counted; {} moves dropped (played too rarely), {} (lose too often)",
                self.games_read,
                self.games_used,
                self.games_skipped,
                self.plies,
                self.dropped_min_played,
                self.dropped_wpct
            ),
            format!(
                "{:.2} s: {:.0} games/s, {:.1} MB/s{}",
                s,
                self.games_read as f64 / s,
                self.bytes as f64 / s / 1e6,
                if self.runs > 0 {
                    format!(" ({} sorted runs merged)", self.runs)
                } else {
                    String::new()
                }
            ),
        ]
    }
}

/// Why a creation failed.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{0}: no usable game (nothing to store)")]
    Empty(PathBuf),
    /// The input is not a text file (a binary given by mistake).
    #[error("{0}")]
    NotText(String),
}

// ----- counting ---------------------------------------------------------------------

/// The keys are Zobrist keys already: mixing them again is wasted time.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 ^= i;
    }
    fn write_u16(&mut self, i: u16) {
        self.0 ^= (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type Counts = HashMap<(u64, u16), MoveStats, BuildHasherDefault<KeyHasher>>;

/// Bytes one counted move costs in the map (key, value, table overhead).
const ENTRY_COST: usize = 48;
/// One run record on disk: key and the move record.
const RUN_RECORD: usize = 8 + 24;

struct CountingReader<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Temporary run files, removed when dropped.
struct Runs {
    paths: Vec<PathBuf>,
}

impl Drop for Runs {
    fn drop(&mut self) {
        for p in &self.paths {
            let _ = fs::remove_file(p);
        }
    }
}

fn run_record(key: u64, m: &MoveStats) -> [u8; RUN_RECORD] {
    let mut b = [0u8; RUN_RECORD];
    b[0..8].copy_from_slice(&key.to_le_bytes());
    b[8..10].copy_from_slice(&m.code.to_le_bytes());
    b[10] = m.flags;
    b[11] = m.play;
    b[16..20].copy_from_slice(&m.games.to_le_bytes());
    b[20..24].copy_from_slice(&m.wins.to_le_bytes());
    b[24..28].copy_from_slice(&m.draws.to_le_bytes());
    b[28..32].copy_from_slice(&m.losses.to_le_bytes());
    b
}

fn read_run_record(b: &[u8; RUN_RECORD]) -> (u64, MoveStats) {
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (
        u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
        MoveStats {
            code: u16::from_le_bytes([b[8], b[9]]),
            flags: b[10],
            play: b[11],
            learned: 0,
            games: u32_at(16),
            wins: u32_at(20),
            draws: u32_at(24),
            losses: u32_at(28),
        },
    )
}

fn sorted(counts: &mut Counts) -> Vec<(u64, MoveStats)> {
    let mut v: Vec<(u64, MoveStats)> = counts.drain().map(|((k, _), m)| (k, m)).collect();
    v.sort_unstable_by_key(|(k, m)| (*k, m.code));
    v
}

fn spill(counts: &mut Counts, runs: &mut Runs, out: &Path) -> Result<(), FileError> {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "book".into());
    let path = out.with_file_name(format!(
        ".{name}.run{}.{}",
        runs.paths.len(),
        std::process::id()
    ));
    runs.paths.push(path.clone());
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&path).at(&path)?);
    for (k, m) in sorted(counts) {
        w.write_all(&run_record(k, &m)).at(&path)?;
    }
    w.flush().at(&path)?;
    Ok(())
}

/// `{play 40%}` -> 40 (1..=100).
pub fn play_percent(comment: &str) -> Option<u8> {
    let lower = comment.to_ascii_lowercase();
    let at = lower.find("play")?;
    let rest = lower[at + 4..].trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let after = rest[digits.len()..].trim_start();
    if digits.is_empty() || !after.starts_with('%') {
        return None;
    }
    digits.parse::<u32>().ok().map(|p| p.clamp(1, 100) as u8)
}

/// Builds a book from `input` into `out`. `total` (the input size, when known) gives
/// the ETA; `progress` is called about four times a second and at the end, `skipped`
/// for every game left out.
pub fn create_book<R: Read>(
    input: R,
    total: Option<u64>,
    out: &Path,
    opts: &CreateOptions,
    progress: &mut dyn FnMut(&Progress),
    skipped: &mut dyn FnMut(&Skipped),
) -> Result<CreateReport, CreateError> {
    let start = Instant::now();
    let bytes = Rc::new(Cell::new(0u64));
    let reader = BufReader::with_capacity(
        1 << 20,
        CountingReader {
            inner: input,
            count: Rc::clone(&bytes),
        },
    );
    let mut pgn = PgnReader::new(reader);
    let limit = (opts.memory / ENTRY_COST).max(1024);
    let mut counts: Counts = HashMap::with_capacity_and_hasher(
        limit.min(1 << 20),
        BuildHasherDefault::<KeyHasher>::default(),
    );
    let mut runs = Runs { paths: Vec::new() };
    let (mut read, mut used, mut skips, mut plies) = (0u64, 0u64, 0u64, 0u64);
    let mut last_report = Instant::now();
    let steering = opts.kind == BookKind::Steering;
    while let Some(next) = pgn.next_game() {
        read += 1;
        let game = match next {
            Ok(g) => g,
            Err(e) => {
                // A move that cannot be read beyond maxply spoils nothing counted.
                let reason = format!("line {}: {}", e.line, e.reason);
                match pgn.take_partial() {
                    Some(g) if g.moves.len() >= opts.max_ply as usize => {
                        skipped(&Skipped {
                            game: e.game,
                            reason,
                            kept_plies: Some(opts.max_ply),
                        });
                        g
                    }
                    _ => {
                        skips += 1;
                        skipped(&Skipped {
                            game: e.game,
                            reason,
                            kept_plies: None,
                        });
                        continue;
                    }
                }
            }
        };
        // Scores from White's side: 2 win, 1 draw, 0 loss; None unknown.
        let white = match game.result.as_str() {
            "1-0" => Some(2u8),
            "0-1" => Some(0),
            "1/2-1/2" => Some(1),
            _ => None,
        };
        if white.is_none() && !steering {
            skips += 1;
            skipped(&Skipped {
                game: pgn.games_read(),
                reason: "no result (1-0, 0-1 or 1/2-1/2) to count".into(),
                kept_plies: None,
            });
            continue;
        }
        if game.moves.is_empty() {
            continue;
        }
        used += 1;
        let mut board = game.start.clone();
        for pm in game.moves.iter().take(opts.max_ply as usize) {
            let key = polyglot_key(&board);
            let code = encode_move(pm.mv);
            let mut f = 0;
            for &n in &pm.nags {
                f |= flags::from_nag(n);
            }
            let play = pm.comment.as_deref().and_then(play_percent).unwrap_or(0);
            let mover_score = white.map(|w| match board.side_to_move() {
                Color::White => w,
                Color::Black => 2 - w,
            });
            let add = MoveStats {
                code,
                flags: f,
                play,
                learned: 0,
                games: 1,
                wins: u32::from(mover_score == Some(2)),
                draws: u32::from(mover_score == Some(1)),
                losses: u32::from(mover_score == Some(0)),
            };
            counts
                .entry((key, code))
                .and_modify(|m| m.merge(&add))
                .or_insert(add);
            board.make_move(pm.mv);
            plies += 1;
        }
        if counts.len() >= limit {
            spill(&mut counts, &mut runs, out)?;
        }
        if last_report.elapsed() >= Duration::from_millis(250) {
            last_report = Instant::now();
            progress(&Progress {
                games: read,
                bytes: bytes.get(),
                total,
                elapsed: start.elapsed(),
            });
        }
    }
    progress(&Progress {
        games: read,
        bytes: bytes.get(),
        total,
        elapsed: start.elapsed(),
    });
    if used == 0 {
        return Err(CreateError::Empty(out.to_path_buf()));
    }
    let header = Header {
        kind: opts.kind,
        positions: 0,
        moves: 0,
        max_ply: opts.max_ply.min(u16::MAX as u32) as u16,
        min_played: opts.min_played,
        wpct: opts.wpct,
        games: used,
        created: now_secs(),
    };
    let mut g = Grouper {
        writer: BookWriter::create(out, header)?,
        group: Vec::new(),
        key: None,
        filter: (!steering).then_some((opts.min_played, opts.wpct)),
        dropped: (0, 0),
    };
    let nruns = runs.paths.len();
    if runs.paths.is_empty() {
        for (k, m) in sorted(&mut counts) {
            g.add(k, m)?;
        }
    } else {
        if !counts.is_empty() {
            spill(&mut counts, &mut runs, out)?;
        }
        drop(counts);
        merge_runs(&runs.paths, &mut |k, m| g.add(k, m))?;
    }
    g.flush()?;
    let dropped = g.dropped;
    let writer = g.writer;
    let header = writer.finish()?;
    let file_size = fs::metadata(out).at(out)?.len();
    Ok(CreateReport {
        games_read: read,
        games_used: used,
        games_skipped: skips,
        plies,
        bytes: bytes.get(),
        runs: nruns,
        dropped_min_played: dropped.0,
        dropped_wpct: dropped.1,
        header,
        file_size,
        elapsed: start.elapsed(),
    })
}

/// Collects the sorted moves of one position, filters them and writes the position.
struct Grouper {
    writer: BookWriter,
    group: Vec<MoveStats>,
    key: Option<u64>,
    /// (min_played, wpct) for the main book.
    filter: Option<(u32, u32)>,
    dropped: (u64, u64),
}

impl Grouper {
    fn add(&mut self, key: u64, m: MoveStats) -> Result<(), FileError> {
        if self.key != Some(key) {
            self.flush()?;
            self.key = Some(key);
        }
        if let Some((min_played, wpct)) = self.filter {
            if m.games < min_played {
                self.dropped.0 += 1;
                return Ok(());
            }
            if (m.wins as u64) * 100 < (m.losses as u64) * wpct as u64 {
                self.dropped.1 += 1;
                return Ok(());
            }
        }
        self.group.push(m);
        Ok(())
    }

    fn flush(&mut self) -> Result<(), FileError> {
        if let Some(k) = self.key.take() {
            self.writer.push(k, &self.group)?;
        }
        self.group.clear();
        Ok(())
    }
}

/// K-way merge of sorted runs, adding up records of the same position and move.
fn merge_runs(
    paths: &[PathBuf],
    emit: &mut dyn FnMut(u64, MoveStats) -> Result<(), FileError>,
) -> Result<(), FileError> {
    let mut readers = Vec::new();
    for p in paths {
        readers.push((
            BufReader::with_capacity(1 << 18, File::open(p).at(p)?),
            p.clone(),
        ));
    }
    let mut next = |i: usize| -> Result<Option<(u64, MoveStats)>, FileError> {
        let (r, p) = &mut readers[i];
        let mut b = [0u8; RUN_RECORD];
        if r.fill_buf().at(p)?.is_empty() {
            return Ok(None);
        }
        r.read_exact(&mut b).at(p)?;
        Ok(Some(read_run_record(&b)))
    };
    let mut heap = BinaryHeap::new();
    let mut heads = Vec::new();
    for i in 0..paths.len() {
        let h = next(i)?;
        if let Some((k, m)) = h {
            heap.push(std::cmp::Reverse((k, m.code, i)));
        }
        heads.push(h);
    }
    let mut cur: Option<(u64, MoveStats)> = None;
    while let Some(std::cmp::Reverse((k, code, i))) = heap.pop() {
        let (_, m) = heads[i].take().expect("head present");
        match &mut cur {
            Some((ck, cm)) if *ck == k && cm.code == code => cm.merge(&m),
            _ => {
                if let Some((ck, cm)) = cur.take() {
                    emit(ck, cm)?;
                }
                cur = Some((k, m));
            }
        }
        let h = next(i)?;
        if let Some((k2, m2)) = h {
            heap.push(std::cmp::Reverse((k2, m2.code, i)));
        }
        heads[i] = h;
    }
    if let Some((ck, cm)) = cur {
        emit(ck, cm)?;
    }
    Ok(())
}

/// `book create` on a file: opens it, knows its size for the ETA.
pub fn create_book_from_file(
    pgn: &Path,
    out: &Path,
    opts: &CreateOptions,
    progress: &mut dyn FnMut(&Progress),
    skipped: &mut dyn FnMut(&Skipped),
) -> Result<CreateReport, CreateError> {
    crate::text::check_start(pgn).map_err(CreateError::NotText)?;
    let f = File::open(pgn).at(pgn)?;
    let total = f.metadata().ok().map(|m| m.len());
    create_book(f, total, out, opts, progress, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn play_comments() {
        assert_eq!(play_percent("play 40%"), Some(40));
        assert_eq!(play_percent("Play 100 %"), Some(100));
        assert_eq!(play_percent("play 0%"), Some(1));
        assert_eq!(play_percent("player 40"), None);
        assert_eq!(play_percent("a good move"), None);
    }
}
