//! `kibitzer perft` (single position, divide, or a whole EPD suite) and `kibitzer perf`
//! (Crafty's move generator speed test).

use crate::chess::epd::Epd;
use crate::chess::perft::{perft, perft_divide};
use crate::chess::{Board, MoveList};
use std::io::{BufRead, Write};
use std::time::Instant;

/// The deepest `kibitzer perft` depth (the console's `perft` stops at 8).
pub const MAX_DEPTH: u32 = 12;

/// Result of one suite position.
#[derive(Debug, Clone)]
pub struct SuiteResult {
    pub line: usize,
    pub fen: String,
    pub depth: u32,
    pub expected: u64,
    pub got: u64,
}

/// Perft of one position, printing nodes, time and speed (and the divide if asked).
pub fn run_perft(
    board: &mut Board,
    depth: u32,
    divide: bool,
    out: &mut impl Write,
) -> std::io::Result<u64> {
    let start = Instant::now();
    let total = if divide {
        let mut total = 0;
        for (m, n) in perft_divide(board, depth) {
            writeln!(out, "{m}: {n}")?;
            total += n;
        }
        total
    } else {
        perft(board, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "perft {depth}: {total} nodes, {:.3} s, {:.1} Mnps",
        secs,
        total as f64 / secs.max(1e-9) / 1e6
    )?;
    Ok(total)
}

/// The `(depth, nodes)` pairs of an EPD perft line (`D5 4865609` operations).
pub fn perft_targets(epd: &Epd) -> Vec<(u32, u64)> {
    let mut v: Vec<(u32, u64)> = epd
        .ops
        .iter()
        .filter_map(|(op, args)| {
            let d = op.strip_prefix('D')?.parse().ok()?;
            let n = args.first()?.parse().ok()?;
            Some((d, n))
        })
        .collect();
    v.sort();
    v
}

/// Runs every position of an EPD perft suite at the deepest listed depth whose node
/// count is at most `max_nodes` (and at least the shallowest listed depth). Returns the
/// results; mismatches are printed as they happen.
pub fn run_suite(
    reader: impl BufRead,
    max_nodes: u64,
    every: usize,
    out: &mut impl Write,
) -> anyhow::Result<Vec<SuiteResult>> {
    let mut results = Vec::new();
    let start = Instant::now();
    let mut total_nodes = 0u64;
    for (i, line) in reader.lines().enumerate() {
        let line = line?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || i % every.max(1) != 0 {
            continue;
        }
        let epd = Epd::parse(t).map_err(|e| anyhow::anyhow!("line {}: {e}", i + 1))?;
        let targets = perft_targets(&epd);
        let Some(&(d, n)) = targets
            .iter()
            .rev()
            .find(|(_, n)| *n <= max_nodes)
            .or(targets.first())
        else {
            continue;
        };
        let mut b = epd.board.clone();
        let got = perft(&mut b, d);
        total_nodes += got;
        if got != n {
            writeln!(
                out,
                "MISMATCH line {}: {} depth {d}: expected {n}, got {got}",
                i + 1,
                epd.board.to_fen()
            )?;
        }
        results.push(SuiteResult {
            line: i + 1,
            fen: epd.board.to_fen(),
            depth: d,
            expected: n,
            got,
        });
    }
    let secs = start.elapsed().as_secs_f64();
    let bad = results.iter().filter(|r| r.got != r.expected).count();
    writeln!(
        out,
        "{} positions, {} mismatches, {total_nodes} nodes, {secs:.1} s, {:.1} Mnps",
        results.len(),
        bad,
        total_nodes as f64 / secs.max(1e-9) / 1e6
    )?;
    Ok(results)
}

/// Crafty's `perf`: move generations per second, and generate + make + unmake of every
/// move per second, over a fixed set of middle-game positions.
pub fn run_perf(seconds: f64, out: &mut impl Write) -> std::io::Result<()> {
    const FENS: [&str; 4] = [
        crate::chess::START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ];
    let boards: Vec<Board> = FENS
        .iter()
        .map(|f| Board::from_fen(f).expect("valid"))
        .collect();
    let mut list = MoveList::new();

    let start = Instant::now();
    let mut gens = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..10_000 {
            for b in &boards {
                list.clear();
                b.generate_moves(crate::chess::GenType::All, &mut list);
                gens += 1;
            }
        }
    }
    let gen_secs = start.elapsed().as_secs_f64();

    let mut boards = boards;
    let start = Instant::now();
    let mut moves = 0u64;
    while start.elapsed().as_secs_f64() < seconds {
        for _ in 0..2_000 {
            for b in boards.iter_mut() {
                list.clear();
                b.generate_moves(crate::chess::GenType::All, &mut list);
                for &m in list.iter() {
                    b.make_move(m);
                    b.unmake_move();
                }
                moves += list.len() as u64;
            }
        }
    }
    let mm_secs = start.elapsed().as_secs_f64();
    writeln!(
        out,
        "generated {gens} move lists in {gen_secs:.2} s: {:.0} generations/sec",
        gens as f64 / gen_secs
    )?;
    writeln!(
        out,
        "generated/made/unmade {moves} moves in {mm_secs:.2} s: {:.0} moves/sec",
        moves as f64 / mm_secs
    )?;
    Ok(())
}
