//! `kibitzer test <file> [st]`: runs a test suite and prints `solved X/Y`.
//!
//! Reads standard EPD (`bm`, `am`, `id`) and Crafty's format (`title`, `setboard
//! <fen>`, `solution <moves>` where a move ending in `?` is an anti-solution, `end`).
//! Each position is searched with a fresh table; with `early_exit = n` a search stops
//! once the solution has been the best move for n iterations in a row. The binary's
//! `test` prints a line per position; the console's `test <file> [n]` shows a progress
//! bar and then `summary_table`.

use crate::chess::epd::Epd;
use crate::chess::{Board, Move};
use crate::engine::{EngineHandle, EventSink, SearchConfig, SearchEvent, SearchLimits};
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One test position.
#[derive(Debug, Clone)]
pub struct TestPosition {
    pub id: String,
    pub board: Board,
    /// Best moves (any of them solves the position).
    pub best: Vec<Move>,
    /// Avoid moves (none of them may be played).
    pub avoid: Vec<Move>,
}

/// Outcome of one position.
#[derive(Debug, Clone)]
pub struct TestOutcome {
    pub id: String,
    pub solved: bool,
    pub played: Move,
    pub time: Duration,
    pub nodes: u64,
    pub depth: i32,
}

fn resolve_moves(board: &Board, words: &[String], line: usize) -> Result<Vec<Move>, String> {
    words
        .iter()
        .map(|w| {
            board
                .parse_move(w.trim_end_matches(['?', '!']))
                .map_err(|e| format!("line {line}: {e}"))
        })
        .collect()
}

/// Parses a suite in EPD or Crafty's format.
pub fn parse_suite(text: &str) -> Result<Vec<TestPosition>, String> {
    let mut out = Vec::new();
    let mut title = String::new();
    let mut crafty_board: Option<Board> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = i + 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(t) = line.strip_prefix("title") {
            title = t.trim().to_string();
            continue;
        }
        if let Some(f) = line.strip_prefix("setboard") {
            crafty_board = Some(Board::from_fen(f.trim()).map_err(|e| format!("line {n}: {e}"))?);
            continue;
        }
        if let Some(sol) = line.strip_prefix("solution") {
            let board = crafty_board
                .take()
                .ok_or_else(|| format!("line {n}: 'solution' without a preceding 'setboard'"))?;
            let mut best = Vec::new();
            let mut avoid = Vec::new();
            for w in sol.split_whitespace() {
                let m = board
                    .parse_move(w.trim_end_matches('?'))
                    .map_err(|e| format!("line {n}: {e}"))?;
                if w.ends_with('?') {
                    avoid.push(m);
                } else {
                    best.push(m);
                }
            }
            out.push(TestPosition {
                id: if title.is_empty() {
                    format!("#{}", out.len() + 1)
                } else {
                    title.clone()
                },
                board,
                best,
                avoid,
            });
            continue;
        }
        if line == "end" {
            continue;
        }
        let epd = Epd::parse(line).map_err(|e| format!("line {n}: {e}"))?;
        let best = match epd.op("bm") {
            Some(w) => resolve_moves(&epd.board, w, n)?,
            None => Vec::new(),
        };
        let avoid = match epd.op("am") {
            Some(w) => resolve_moves(&epd.board, w, n)?,
            None => Vec::new(),
        };
        if best.is_empty() && avoid.is_empty() {
            return Err(format!("line {n}: position has neither 'bm' nor 'am'"));
        }
        out.push(TestPosition {
            id: epd
                .op_str("id")
                .map_or_else(|| format!("#{}", out.len() + 1), str::to_string),
            board: epd.board,
            best,
            avoid,
        });
    }
    Ok(out)
}

fn correct(p: &TestPosition, m: Move) -> bool {
    (p.best.is_empty() || p.best.contains(&m)) && !p.avoid.contains(&m)
}

/// Runs one position.
pub fn run_position(
    engine: &EngineHandle,
    p: &TestPosition,
    limits: &SearchLimits,
    config: &SearchConfig,
    early_exit: Option<u32>,
) -> TestOutcome {
    engine.new_game();
    let state = Arc::new(Mutex::new((0u32, Move::NULL)));
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    let pos = p.clone();
    let st = Arc::clone(&state);
    let stop_flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sf = Arc::clone(&stop_flag);
    let sink: EventSink = Arc::new(move |e: &SearchEvent| match e {
        SearchEvent::Iteration(info) => {
            if let Some(&m) = info.pv.first() {
                let mut s = st.lock().unwrap_or_else(|e| e.into_inner());
                s.0 = if correct(&pos, m) { s.0 + 1 } else { 0 };
                s.1 = m;
                if let Some(n) = early_exit {
                    if s.0 >= n {
                        sf.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            }
        }
        SearchEvent::Done(r) => {
            let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send(r.clone());
        }
        _ => {}
    });
    let start = Instant::now();
    engine.go(&p.board, limits.clone(), config.clone(), sink);
    let result = loop {
        if stop_flag.load(std::sync::atomic::Ordering::SeqCst) {
            engine.stop();
        }
        match rx.recv_timeout(Duration::from_millis(2)) {
            Ok(r) => break r,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(_) => panic!("search ended without a result"),
        }
    };
    engine.wait();
    TestOutcome {
        id: p.id.clone(),
        solved: correct(p, result.best),
        played: result.best,
        time: start.elapsed(),
        nodes: result.nodes,
        depth: result.depth,
    }
}

/// Runs every position of a suite, calling `each` after each one with its number
/// (0-based) and outcome (progress bars, per-position lines).
pub fn run_positions(
    engine: &EngineHandle,
    positions: &[TestPosition],
    limits: &SearchLimits,
    config: &SearchConfig,
    early_exit: Option<u32>,
    each: &mut dyn FnMut(usize, &TestPosition, &TestOutcome),
) -> Vec<TestOutcome> {
    let mut results = Vec::with_capacity(positions.len());
    for (i, p) in positions.iter().enumerate() {
        let r = run_position(engine, p, limits, config, early_exit);
        each(i, p, &r);
        results.push(r);
    }
    results
}

/// The summary table of a run: one row per position (result, move played, depth,
/// time, nodes) and a total row with the number solved, the time and the nodes.
pub fn summary_table(positions: &[TestPosition], results: &[TestOutcome]) -> Vec<String> {
    let mut out = vec![format!(
        "{:<14} {:<7} {:<9} {:>5} {:>9} {:>12}",
        "position", "result", "move", "depth", "time", "nodes"
    )];
    let mut total_nodes = 0u64;
    let mut total_time = Duration::ZERO;
    for (p, r) in positions.iter().zip(results) {
        let san = if p.board.is_legal(r.played) {
            p.board.san(r.played)
        } else {
            "-".to_string()
        };
        out.push(format!(
            "{:<14} {:<7} {:<9} {:>5} {:>9} {:>12}",
            r.id,
            if r.solved { "solved" } else { "MISSED" },
            san,
            r.depth,
            crate::format::time(r.time),
            r.nodes
        ));
        total_nodes += r.nodes;
        total_time += r.time;
    }
    let solved = results.iter().filter(|r| r.solved).count();
    out.push(format!(
        "{:<14} {:<7} {:<9} {:>5} {:>9} {:>12}",
        "total",
        format!("{solved}/{}", results.len()),
        "",
        "",
        crate::format::time(total_time),
        total_nodes
    ));
    out.push(format!(
        "solved {solved}/{}  time {}  nodes {total_nodes}  nps {}",
        results.len(),
        crate::format::time(total_time),
        total_nodes * 1000 / (total_time.as_millis().max(1) as u64)
    ));
    let missed: Vec<&str> = results
        .iter()
        .filter(|r| !r.solved)
        .map(|r| r.id.as_str())
        .collect();
    if !missed.is_empty() {
        out.push(format!("missed: {}", missed.join(" ")));
    }
    out
}

/// Runs a whole suite, printing one line per position and a summary.
pub fn run_suite(
    engine: &EngineHandle,
    positions: &[TestPosition],
    limits: &SearchLimits,
    config: &SearchConfig,
    early_exit: Option<u32>,
    out: &mut dyn Write,
) -> std::io::Result<Vec<TestOutcome>> {
    let mut results = Vec::new();
    let mut total_nodes = 0u64;
    let mut total_time = Duration::ZERO;
    for p in positions {
        let r = run_position(engine, p, limits, config, early_exit);
        let san = p.board.san(r.played);
        let want: Vec<String> = p.best.iter().map(|&m| p.board.san(m)).collect();
        let avoid: Vec<String> = p.avoid.iter().map(|&m| p.board.san(m)).collect();
        writeln!(
            out,
            "{:<12} {:<7} {:<8} want {}{}  d{} {:.2}s {} nodes",
            r.id,
            if r.solved { "solved" } else { "MISSED" },
            san,
            want.join(" "),
            if avoid.is_empty() {
                String::new()
            } else {
                format!(" avoid {}", avoid.join(" "))
            },
            r.depth,
            r.time.as_secs_f64(),
            r.nodes
        )?;
        total_nodes += r.nodes;
        total_time += r.time;
        results.push(r);
    }
    let solved = results.iter().filter(|r| r.solved).count();
    writeln!(
        out,
        "solved {solved}/{}  time {:.1}s  nodes {total_nodes}  nps {}",
        results.len(),
        total_time.as_secs_f64(),
        total_nodes * 1000 / (total_time.as_millis().max(1) as u64)
    )?;
    let missed: Vec<&str> = results
        .iter()
        .filter(|r| !r.solved)
        .map(|r| r.id.as_str())
        .collect();
    if !missed.is_empty() {
        writeln!(out, "missed: {}", missed.join(" "))?;
    }
    Ok(results)
}
