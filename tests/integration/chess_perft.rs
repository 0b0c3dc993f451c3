//! Perft: every position of the perft suites in `../shared/data/perft/` (a sample of
//! perft_marcel.epd) at the deepest listed depth whose node count fits the budget.
//!
//! Positions where even the shallowest listed count is over the budget are checked
//! against shakmaty's perft at the deepest depth that fits instead (one position of
//! perft_whittington.epd at the default budget). `KIBITZER_PERFT_BUDGET` overrides the
//! budget, e.g. for a full run.

use crate::common::{epd_fen_text, epd_lines, read_data, shakmaty_position};
use kibitzer::chess::perft::{perft, perft_divide};
use kibitzer::chess::Board;
use kibitzer::tools::perft::{perft_targets, run_suite};
use std::time::Instant;

/// Most leaf nodes counted for one position.
const DEFAULT_BUDGET: u64 = 100_000_000;

/// One line in this many of perft_marcel.epd is run.
const MARCEL_EVERY: usize = 20;

fn budget() -> u64 {
    std::env::var("KIBITZER_PERFT_BUDGET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_BUDGET)
}

/// Runs the chosen lines of a suite; returns (positions, nodes). Panics listing every
/// mismatch.
fn run_file(name: &str, rel: &str, keep: impl Fn(usize) -> bool) -> (usize, u64) {
    let budget = budget();
    let start = Instant::now();
    let mut positions = 0usize;
    let mut nodes = 0u64;
    let mut cross_checked = 0usize;
    let mut failures = Vec::new();
    for (i, l) in epd_lines(rel).into_iter().enumerate() {
        if !keep(i) {
            continue;
        }
        let targets = perft_targets(&l.epd);
        assert!(!targets.is_empty(), "{rel}:{}: no Dn fields", l.line);
        let mut b = l.epd.board.clone();
        let before = b.clone();
        positions += 1;
        match targets.iter().rev().find(|(_, n)| *n <= budget) {
            Some(&(depth, expected)) => {
                let got = perft(&mut b, depth);
                nodes += got;
                if got != expected {
                    failures.push(format!(
                        "{rel}:{} depth {depth}: expected {expected}, got {got} ({})",
                        l.line, l.text
                    ));
                }
            }
            None => {
                // Every listed count is over the budget: compare with shakmaty at the
                // deepest depth whose count fits.
                let pos = shakmaty_position(&epd_fen_text(&l.text)).unwrap();
                let mut depth = 1;
                let mut got = perft(&mut b, 1);
                loop {
                    let next = perft(&mut b, depth + 1);
                    if next > budget / 4 || depth + 1 >= targets[0].0 {
                        break;
                    }
                    depth += 1;
                    got = next;
                }
                let expected = shakmaty::perft(&pos, depth);
                nodes += got;
                cross_checked += 1;
                if got != expected {
                    failures.push(format!(
                        "{rel}:{} depth {depth}: shakmaty counts {expected}, we count {got}",
                        l.line
                    ));
                }
            }
        }
        assert_eq!(b, before, "{rel}:{}: perft changed the board", l.line);
        assert_eq!(b.key(), before.key());
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "perft {name}: {positions} positions, {nodes} nodes ({cross_checked} cross-checked \
         with shakmaty below the listed depth), budget {budget}, {secs:.1} s, {:.0} Mnps",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    assert!(
        failures.is_empty(),
        "{} perft mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(positions > 0);
    (positions, nodes)
}

#[test]
fn perft_start_position_shallow_depths() {
    // The classic numbers, and divide sums to the total.
    let mut b = Board::startpos();
    let expected = [1u64, 20, 400, 8902, 197_281, 4_865_609];
    for (d, &n) in expected.iter().enumerate() {
        assert_eq!(perft(&mut b, d as u32), n, "start position depth {d}");
    }
    let div = perft_divide(&mut b, 4);
    assert_eq!(div.len(), 20);
    assert_eq!(div.iter().map(|(_, n)| n).sum::<u64>(), 197_281);
    let e2e4 = div.iter().find(|(m, _)| m.to_uci() == "e2e4").unwrap();
    assert_eq!(e2e4.1, 13_160);
    assert_eq!(b, Board::startpos());
}

#[test]
fn perft_run_suite_reports_results() {
    // The `kibitzer perft --suite` code path, on the shallow positions of perftsuite.epd.
    let text = read_data("perft/perftsuite.epd");
    let mut out = Vec::new();
    let results = run_suite(std::io::Cursor::new(text), 10_000, 1, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(results.len(), 127, "{out}");
    assert!(results.iter().all(|r| r.got == r.expected), "{out}");
    assert!(out.contains("127 positions, 0 mismatches"), "{out}");
    // A wrong count is reported as a mismatch.
    let bad = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 16\n";
    let mut out = Vec::new();
    let results = run_suite(std::io::Cursor::new(bad), 10_000, 1, &mut out).unwrap();
    assert_eq!((results[0].expected, results[0].got), (16, 15));
    assert!(String::from_utf8(out).unwrap().contains("MISMATCH line 1"));
}

#[test]
fn perft_suite_sunfish() {
    run_file("perftsuite.epd", "perft/perftsuite.epd", |_| true);
}

#[test]
fn perft_suite_double_checks() {
    run_file(
        "perft_double_checks.epd",
        "perft/perft_double_checks.epd",
        |_| true,
    );
}

#[test]
fn perft_suite_whittington() {
    run_file(
        "perft_whittington.epd",
        "perft/perft_whittington.epd",
        |_| true,
    );
}

// perft_marcel.epd: every 20th position, in three interleaved parts so they run in
// parallel.
#[test]
fn perft_suite_marcel_sample_part1() {
    run_file("perft_marcel.epd (1/3)", "perft/perft_marcel.epd", |i| {
        i % MARCEL_EVERY == 0 && (i / MARCEL_EVERY) % 3 == 0
    });
}

#[test]
fn perft_suite_marcel_sample_part2() {
    run_file("perft_marcel.epd (2/3)", "perft/perft_marcel.epd", |i| {
        i % MARCEL_EVERY == 0 && (i / MARCEL_EVERY) % 3 == 1
    });
}

#[test]
fn perft_suite_marcel_sample_part3() {
    run_file("perft_marcel.epd (3/3)", "perft/perft_marcel.epd", |i| {
        i % MARCEL_EVERY == 0 && (i / MARCEL_EVERY) % 3 == 2
    });
}
