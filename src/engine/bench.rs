//! `kibitzer bench`: every position of `BENCH_FENS` searched to a fixed depth with one
//! thread and a 16 MB table, table and histories cleared before each position. Prints
//! the nodes of each position and a last line `<N> nodes <M> nps`; N is the signature of
//! the search and evaluation, committed in `bench.sig` and checked by the test suite.

use super::handle::EngineHandle;
use super::limits::{SearchConfig, SearchLimits};
use crate::chess::Board;
use std::io::Write;
use std::time::Instant;

include!("bench_positions.rs");

/// Depth used by `kibitzer bench` and the signature test.
pub const BENCH_DEPTH: i32 = 11;

/// Runs the bench with the handcrafted evaluation, or with `net`; returns (total
/// nodes, nodes per second).
pub fn run_bench(
    depth: i32,
    net: Option<std::sync::Arc<crate::nnue::Network>>,
    out: &mut dyn Write,
) -> std::io::Result<(u64, u64)> {
    let engine = EngineHandle::new(16 << 20, 1);
    let config = SearchConfig {
        net,
        ..SearchConfig::default()
    };
    let start = Instant::now();
    let mut total = 0u64;
    for (i, fen) in BENCH_FENS.iter().enumerate() {
        let board = Board::from_fen(fen).expect("bench positions are valid");
        engine.new_game();
        let r = engine.search_sync(&board, SearchLimits::depth(depth), config.clone());
        writeln!(
            out,
            "position {:2}: {:>10} nodes  best {}",
            i + 1,
            r.nodes,
            r.best
        )?;
        total += r.nodes;
    }
    let ms = start.elapsed().as_millis().max(1) as u64;
    let nps = total * 1000 / ms;
    writeln!(out, "{total} nodes {nps} nps")?;
    Ok((total, nps))
}

/// Speed with several threads: the first `positions` bench positions, each searched
/// for `movetime` with `threads` threads and a `hash_mb` table cleared before each.
/// Returns (total nodes, nodes per second, average completed depth). Node counts with
/// more than one thread vary from run to run.
pub fn run_smp_bench(
    threads: usize,
    movetime: std::time::Duration,
    positions: usize,
    hash_mb: usize,
    out: &mut dyn Write,
) -> std::io::Result<(u64, u64, f64)> {
    let engine = EngineHandle::new(hash_mb << 20, threads);
    let config = SearchConfig {
        move_overhead: std::time::Duration::ZERO,
        ..Default::default()
    };
    let start = Instant::now();
    let mut total = 0u64;
    let mut depths = 0i64;
    let n = positions.clamp(1, BENCH_FENS.len());
    for (i, fen) in BENCH_FENS.iter().take(n).enumerate() {
        let board = Board::from_fen(fen).expect("bench positions are valid");
        engine.new_game();
        let r = engine.search_sync(&board, SearchLimits::movetime(movetime), config.clone());
        writeln!(
            out,
            "position {:2}: {:>10} nodes  depth {:2}  best {}",
            i + 1,
            r.nodes,
            r.depth,
            r.best
        )?;
        total += r.nodes;
        depths += r.depth as i64;
    }
    let ms = start.elapsed().as_millis().max(1) as u64;
    let nps = total * 1000 / ms;
    let avg_depth = depths as f64 / n as f64;
    writeln!(
        out,
        "{threads} threads: {total} nodes {nps} nps, average depth {avg_depth:.2}"
    )?;
    Ok((total, nps, avg_depth))
}
