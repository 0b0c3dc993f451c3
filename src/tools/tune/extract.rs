//! `kibitzer tune extract`: training positions from games with results. Each game's
//! positions after the opening plies are sampled, positions in check are skipped, the
//! rest are resolved to their quiet leaf (`quiet.rs`), and each distinct leaf is
//! written once as `<FEN> | <result>` (result from White's side: `1-0`, `1/2-1/2`,
//! `0-1`).

use super::quiet::quiet_leaf;
use super::Rng;
use crate::chess::pgn::PgnReader;
use crate::chess::Board;
use crate::eval::Evaluator;
use anyhow::{Context, Result};
use std::collections::HashSet;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// How positions are taken from a game.
#[derive(Clone, Debug)]
pub struct ExtractOptions {
    /// Plies skipped at the start of every game (book moves).
    pub skip_plies: usize,
    /// At most this many positions per game, chosen at random.
    pub per_game: usize,
    /// Seed of the sampling (the same seed gives the same file).
    pub seed: u64,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            skip_plies: 16,
            per_game: 10,
            seed: 1,
        }
    }
}

/// What one source file gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceStats {
    pub games: u64,
    /// Games not read (broken PGN) or without a result.
    pub games_skipped: u64,
    /// Positions sampled.
    pub sampled: u64,
    pub in_check: u64,
    /// Leaves already written (from this or an earlier source).
    pub duplicates: u64,
    pub written: u64,
}

/// A training position's result from White's side.
pub fn parse_result(text: &str) -> Option<f32> {
    match text.trim() {
        "1-0" => Some(1.0),
        "0-1" => Some(0.0),
        "1/2-1/2" => Some(0.5),
        _ => None,
    }
}

fn result_text(r: f32) -> &'static str {
    if r > 0.75 {
        "1-0"
    } else if r < 0.25 {
        "0-1"
    } else {
        "1/2-1/2"
    }
}

/// Extracts from every file in `inputs` into `out`; returns the stats per source.
/// `progress` is called with the games read so far.
pub fn extract(
    inputs: &[PathBuf],
    out: &Path,
    opts: &ExtractOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<(PathBuf, SourceStats)>> {
    let file = std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let mut w = BufWriter::new(file);
    let mut seen = HashSet::new();
    let mut ev = Evaluator::new(1 << 20);
    let mut rng = Rng::new(opts.seed);
    let mut all = Vec::new();
    let mut games_total = 0;
    for path in inputs {
        let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let mut reader = PgnReader::new(BufReader::new(f));
        let mut stats = SourceStats::default();
        while let Some(game) = reader.next_game() {
            stats.games += 1;
            games_total += 1;
            if games_total % 1000 == 0 {
                progress(games_total);
            }
            let Ok(game) = game else {
                stats.games_skipped += 1;
                continue;
            };
            let Some(result) = parse_result(&game.result) else {
                stats.games_skipped += 1;
                continue;
            };
            let mut board = game.start.clone();
            let mut candidates = Vec::new();
            for (i, m) in game.moves.iter().enumerate() {
                if i >= opts.skip_plies {
                    candidates.push(board.clone());
                }
                board.make_move(m.mv);
            }
            rng.shuffle(&mut candidates);
            candidates.truncate(opts.per_game);
            for b in candidates {
                stats.sampled += 1;
                if b.in_check() {
                    stats.in_check += 1;
                    continue;
                }
                let (leaf, _) = quiet_leaf(&b, &mut ev);
                if leaf.in_check() {
                    stats.in_check += 1;
                    continue;
                }
                if !seen.insert(leaf.key()) {
                    stats.duplicates += 1;
                    continue;
                }
                writeln!(w, "{} | {}", leaf.to_fen(), result_text(result))?;
                stats.written += 1;
            }
        }
        all.push((path.clone(), stats));
    }
    w.flush()?;
    Ok(all)
}

/// One training position as read back.
#[derive(Clone, Debug)]
pub struct Sample {
    pub board: Board,
    pub result: f32,
}

/// Reads a positions file; a bad line is an error naming its number.
pub fn read_positions(path: &Path) -> Result<Vec<Sample>> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{}: reading line {}", path.display(), i + 1))?;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(parse_line(&line).with_context(|| format!("{} line {}", path.display(), i + 1))?);
    }
    Ok(out)
}

/// Parses `<FEN> | <result>`.
pub fn parse_line(line: &str) -> Result<Sample> {
    let (fen, result) = line
        .rsplit_once('|')
        .context("expected '<FEN> | <result>'")?;
    let result = parse_result(result)
        .with_context(|| format!("result '{}' is not 1-0, 0-1 or 1/2-1/2", result.trim()))?;
    let board = Board::from_fen(fen.trim()).map_err(|e| anyhow::anyhow!("bad FEN: {e}"))?;
    Ok(Sample { board, result })
}
