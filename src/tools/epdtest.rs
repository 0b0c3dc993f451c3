//! `kibitzer test <file> [st]`: runs a test suite; a row per position, then `solved X/Y`.
//!
//! Reads standard EPD (`bm`, `am`, `id`) and Crafty's format (`title`, `setboard
//! <fen>`, `solution <moves>` where a move ending in `?` is an anti-solution, `end`).
//! Each position is searched with a fresh table; with `early_exit = n` a search stops
//! once the solution has been the best move for n iterations in a row. The binary's
//! `test` prints an aligned row per position under a progress bar; the console's
//! `test <file> [n]` shows a progress bar and then `summary_table`.

use crate::chess::epd::Epd;
use crate::chess::{Board, Move};
use crate::engine::{EventSink, SearchConfig, SearchEvent, SearchLimits, Searcher};
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
    engine: &dyn Searcher,
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
    engine: &dyn Searcher,
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

/// Column widths of a suite's rows: the longest id (at least 14 characters) and the
/// longest written solution.
struct Columns {
    id: usize,
    solution: usize,
}

/// SAN moves; used for the positions' solutions (`Nf3 Nc3`, `not Bxh7`).
fn solution(p: &TestPosition) -> String {
    let mut words: Vec<String> = p.best.iter().map(|&m| p.board.san(m)).collect();
    words.extend(p.avoid.iter().map(|&m| format!("not {}", p.board.san(m))));
    words.join(" ")
}

impl Columns {
    fn of(positions: &[TestPosition]) -> Columns {
        Columns {
            id: positions
                .iter()
                .map(|p| p.id.chars().count())
                .chain([14])
                .max()
                .unwrap_or(14),
            solution: positions
                .iter()
                .map(|p| solution(p).chars().count())
                .chain(["solution".len()])
                .max()
                .unwrap_or(8),
        }
    }

    /// `id result move [solution] depth time nodes`, padded to the widths.
    fn row(&self, cells: [&str; 7], with_solution: bool) -> String {
        let [id, result, mv, sol, depth, time, nodes] = cells;
        let sol = if with_solution {
            format!(" {sol:<w$}", w = self.solution)
        } else {
            String::new()
        };
        let line = format!(
            "{id:<iw$} {result:<7} {mv:<9}{sol} {depth:>5} {time:>9} {nodes:>12}",
            iw = self.id
        );
        line.trim_end().to_string()
    }

    fn header(&self, with_solution: bool) -> String {
        let cells = [
            "position", "result", "move", "solution", "depth", "time", "nodes",
        ];
        self.row(cells, with_solution)
    }

    fn outcome(&self, p: &TestPosition, r: &TestOutcome, with_solution: bool) -> String {
        let san = if p.board.is_legal(r.played) {
            p.board.san(r.played)
        } else {
            "-".to_string()
        };
        self.row(
            [
                &r.id,
                if r.solved { "solved" } else { "MISSED" },
                &san,
                &solution(p),
                &r.depth.to_string(),
                &crate::format::time(r.time),
                &r.nodes.to_string(),
            ],
            with_solution,
        )
    }
}

/// `solved 3/4  time 4.00  nodes 1234  nps 308`, and `missed: id...` when any.
fn totals(results: &[TestOutcome]) -> Vec<String> {
    let solved = results.iter().filter(|r| r.solved).count();
    let total_nodes: u64 = results.iter().map(|r| r.nodes).sum();
    let total_time: Duration = results.iter().map(|r| r.time).sum();
    let mut out = vec![format!(
        "solved {solved}/{}  time {}  nodes {total_nodes}  nps {}",
        results.len(),
        crate::format::time(total_time),
        total_nodes * 1000 / (total_time.as_millis().max(1) as u64)
    )];
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

/// The summary table of a run: one row per position (result, move played, depth,
/// time, nodes) and a total row with the number solved, the time and the nodes.
pub fn summary_table(positions: &[TestPosition], results: &[TestOutcome]) -> Vec<String> {
    let cols = Columns::of(positions);
    let mut out = vec![cols.header(false)];
    for (p, r) in positions.iter().zip(results) {
        out.push(cols.outcome(p, r, false));
    }
    let solved = results.iter().filter(|r| r.solved).count();
    let total_nodes: u64 = results.iter().map(|r| r.nodes).sum();
    let total_time: Duration = results.iter().map(|r| r.time).sum();
    out.push(cols.row(
        [
            "total",
            &format!("{solved}/{}", results.len()),
            "",
            "",
            "",
            &crate::format::time(total_time),
            &total_nodes.to_string(),
        ],
        false,
    ));
    out.extend(totals(results));
    out
}

/// Runs a whole suite, printing a header, one row per position as it finishes (the
/// solution written out; columns aligned over the whole suite) and the totals, with
/// `bar` advanced after each position (cleared around each row).
pub fn run_suite(
    engine: &dyn Searcher,
    positions: &[TestPosition],
    limits: &SearchLimits,
    config: &SearchConfig,
    early_exit: Option<u32>,
    bar: &mut crate::tools::progress::Progress,
    out: &mut dyn Write,
) -> std::io::Result<Vec<TestOutcome>> {
    let cols = Columns::of(positions);
    writeln!(out, "{}", cols.header(true))?;
    out.flush()?;
    let mut results = Vec::new();
    for p in positions {
        let r = run_position(engine, p, limits, config, early_exit);
        bar.clear_line();
        writeln!(out, "{}", cols.outcome(p, &r, true))?;
        out.flush()?;
        results.push(r);
        bar.inc();
    }
    bar.finish();
    for l in totals(&results) {
        writeln!(out, "{l}")?;
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::progress::Progress;

    fn suite() -> Vec<TestPosition> {
        let text = "\
4k3/8/8/8/8/8/8/R3K3 w - - bm Ra8+; id \"a rather long position name\";
4k3/8/8/8/8/8/8/R3K3 w - - am Kd1; id \"short\";
";
        parse_suite(text).unwrap()
    }

    /// The result column starts at `col`: a space before it, a letter there.
    fn starts_at(l: &str, col: usize) -> bool {
        &l[col - 1..col] == " " && l[col..].starts_with(|c: char| c.is_ascii_alphanumeric())
    }

    #[test]
    fn rows_are_aligned_and_the_bar_follows_the_positions() {
        let positions = suite();
        let engine = crate::engine::EngineHandle::new(1 << 20, 1);
        let limits = SearchLimits {
            depth: Some(2),
            ..Default::default()
        };
        let mut bar = Progress::new("test", positions.len() as u64, false);
        let mut out = Vec::new();
        let results = run_suite(
            &engine,
            &positions,
            &limits,
            &SearchConfig::default(),
            None,
            &mut bar,
            &mut out,
        )
        .unwrap();
        assert_eq!(bar.done(), 2);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("position "), "{text}");
        assert!(lines[1].contains("Ra8+"), "{text}");
        assert!(lines[2].contains("not Kd1"), "{text}");
        // The result column starts at the same place in the header and every row,
        // after the longest id, and every line ends at the same column (the right-
        // aligned nodes): each column has one width.
        let col = "a rather long position name".len() + 1;
        for l in &lines[..3] {
            assert!(starts_at(l, col), "{text}");
            assert_eq!(l.len(), lines[0].len(), "{text}");
        }
        assert!(lines[3].starts_with("solved "), "{text}");
        assert_eq!(results.len(), 2);
        let table = summary_table(&positions, &results);
        for l in &table[..4] {
            assert!(starts_at(l, col), "{table:#?}");
            assert_eq!(l.len(), table[0].len(), "{table:#?}");
        }
    }
}
