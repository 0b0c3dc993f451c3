//! UCI: `uci`, `isready` (answered at once, also during a search), `setoption` for
//! every option the table exposes to UCI (Hash, Threads, Ponder, Move Overhead, Clear
//! Hash, MultiPV and the engine's knobs), `ucinewgame`, `position startpos|fen ...
//! moves ...`, `go` with wtime/btime/winc/binc/movestogo/depth/nodes/movetime/mate/
//! infinite/ponder/searchmoves, `ponderhit`, `stop`, `quit`; and the usual extras
//! `d` (board and FEN) and `eval` (score breakdown).
//!
//! `info` lines carry depth, seldepth, multipv, score cp/mate with lowerbound/
//! upperbound (from the side to move, as the protocol says), nodes, nps, hashfull,
//! time and pv. Every `go` gets exactly one `bestmove`, also after `stop` and when
//! a new command arrives while a search runs. The position and search live in the
//! game controller; this loop only translates.

use super::{emit, split_command, Exit, Input, Output, Protocol, Session};
use crate::chess::{Board, Color};
use crate::engine::{Bound, ClockLimits, EventSink, SearchEvent, SearchInfo, SearchLimits};
use crate::game::{EngineState, Finished};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// At most this many characters of what the GUI sent are echoed in an `info string`.
pub const ECHO_MAX: usize = 200;

/// Text the GUI sent, made safe to echo: control characters as `?`, cut after
/// `ECHO_MAX` characters with `...` (a megabyte of garbage is not sent back whole).
pub fn echo(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(ECHO_MAX)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().nth(ECHO_MAX).is_some() {
        out.push_str("...");
    }
    out
}

/// The engine's name and version as `id name` gives it.
pub fn engine_name() -> String {
    format!("kibitzer {}", env!("CARGO_PKG_VERSION"))
}

/// `score cp 23`, `score mate -3`, with ` lowerbound`/` upperbound`.
pub fn score_text(stm_cp: i32, bound: Bound) -> String {
    let mut s = match crate::engine::mate_in(stm_cp) {
        Some(n) => format!("score mate {n}"),
        None => format!("score cp {stm_cp}"),
    };
    match bound {
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
        Bound::Exact => {}
    }
    s
}

/// One `info` line for a search snapshot of `root` (the PV is cut at the first move
/// that is not legal).
pub fn info_line(i: &SearchInfo, root: &Board) -> String {
    let mut s = format!(
        "info depth {} seldepth {} multipv {} {} nodes {} nps {} hashfull {} time {}",
        i.depth,
        i.seldepth.max(i.depth),
        i.multipv,
        score_text(i.score, i.bound),
        i.nodes,
        i.nps(),
        i.hashfull,
        i.time.as_millis()
    );
    if i.tb_hits > 0 {
        s.push_str(&format!(" tbhits {}", i.tb_hits));
    }
    let pv = crate::format::legal_prefix(root, &i.pv);
    if !pv.is_empty() {
        s.push_str(" pv");
        for m in pv {
            s.push(' ');
            s.push_str(&m.to_string());
        }
    }
    s
}

fn sink(out: &Output, root: &Board) -> EventSink {
    let out = Arc::clone(out);
    let root = root.clone();
    let start = Instant::now();
    // The last first-line snapshot printed, so the final answer can be shown when it
    // differs (Lazy SMP may pick a helper thread's move whose PV was never printed;
    // match runners expect `bestmove` to start the last PV).
    let last: std::sync::Mutex<Option<SearchInfo>> = std::sync::Mutex::new(None);
    Arc::new(move |e: &SearchEvent| match e {
        SearchEvent::Iteration(i)
        | SearchEvent::NewBest(i)
        | SearchEvent::FailHigh(i)
        | SearchEvent::FailLow(i) => {
            emit(&out, &info_line(i, &root));
            if i.multipv == 1 {
                *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(i.clone());
            }
        }
        SearchEvent::Done(r) => {
            let last = last.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(prev) = last {
                if !r.best.is_null()
                    && r.pv.first() == Some(&r.best)
                    && prev.pv.first() != Some(&r.best)
                {
                    // The last snapshot (multipv 1, hashfull, tbhits) with the answer.
                    let fin = SearchInfo {
                        depth: r.depth.max(1),
                        seldepth: prev.seldepth.max(r.depth),
                        score: r.score,
                        bound: Bound::Exact,
                        nodes: r.nodes.max(prev.nodes),
                        time: r.time.max(prev.time),
                        pv: r.pv.clone(),
                        ..prev
                    };
                    emit(&out, &info_line(&fin, &root));
                }
            }
        }
        SearchEvent::CurrMove { depth, mv, number } if start.elapsed() > Duration::from_secs(3) => {
            emit(
                &out,
                &format!("info depth {depth} currmove {mv} currmovenumber {number}"),
            );
        }
        _ => {}
    })
}

/// The `bestmove` line for a finished search of `board`.
pub fn bestmove_line(board: &Board, f: &Finished) -> String {
    let r = &f.result;
    if r.best.is_null() || !board.is_legal(r.best) {
        // No legal move (or a position changed under the search): say so the UCI way.
        let fallback = board.legal_moves().iter().next().copied();
        return match fallback {
            Some(m) if !r.best.is_null() => format!("bestmove {m}"),
            _ => "bestmove 0000".into(),
        };
    }
    let mut s = format!("bestmove {}", r.best);
    if let Some(p) = r.ponder {
        let mut b = board.clone();
        b.make_move(r.best);
        if b.is_legal(p) {
            s.push_str(&format!(" ponder {p}"));
        }
    }
    s
}

fn report(s: &mut Session, f: Finished) {
    let line = bestmove_line(s.game.board(), &f);
    if let Some(e) = &f.result.error {
        s.emit(&format!("info string search error: {e}"));
    }
    s.emit(&line);
}

/// Loop state: a search that ended while the GUI still waits for `ponderhit` or
/// `stop` (a ponder search or `go infinite` that stopped by itself, e.g. on a single
/// legal move) keeps its `bestmove` until then, as the protocol requires.
#[derive(Default)]
pub struct State {
    held: Option<Finished>,
    /// The current search is `go infinite`.
    infinite: bool,
}

/// Stops a running search, waits for it and sends its `bestmove` (every `go` gets one).
fn finish_running(s: &mut Session, st: &mut State) {
    if let Some(f) = st.held.take() {
        report(s, f);
    }
    if let Some(f) = s.game.stop_and_wait() {
        report(s, f);
    }
}

fn collect(s: &mut Session, st: &mut State) {
    if let Some(f) = s.game.take_finished() {
        if f.state == EngineState::Pondering || (f.state == EngineState::Thinking && st.infinite) {
            st.held = Some(f);
        } else {
            report(s, f);
        }
    }
}

/// Runs the UCI loop until `quit` or the end of input.
pub fn run(s: &mut Session) -> Exit {
    let mut st = State::default();
    loop {
        match s.next_input() {
            Input::Eof => {
                // Input ended (a script piped in): finish a search that ends by
                // itself, stop the others, and report either way.
                if let Some(f) = st.held.take() {
                    report(s, f);
                }
                if let Some(f) = s.game.wait_finished() {
                    report(s, f);
                }
                return Exit::Quit;
            }
            Input::Wake => collect(s, &mut st),
            Input::Interrupt => {}
            Input::Line(line) => {
                if let Some(exit) = command(s, &mut st, &line) {
                    return exit;
                }
            }
        }
    }
}

/// Handles one UCI command; `Some` ends the loop.
pub fn command(s: &mut Session, st: &mut State, line: &str) -> Option<Exit> {
    let (cmd, rest) = split_command(line);
    match cmd {
        "" => {}
        "uci" => {
            s.emit(&format!("id name {}", engine_name()));
            s.emit("id author the kibitzer developers");
            for l in s.options.uci_lines() {
                s.emit(&l);
            }
            s.emit("uciok");
            s.flush_notes();
        }
        "isready" => s.emit("readyok"),
        "debug" | "register" => {}
        "setoption" => setoption(s, rest),
        "ucinewgame" => {
            finish_running(s, st);
            s.game.new_game();
            s.game.set_engine_side(None);
        }
        "position" => {
            finish_running(s, st);
            position(s, rest);
        }
        "go" => {
            finish_running(s, st);
            st.infinite = go(s, rest);
        }
        // Stopping takes a moment (the search looks at the flag every few thousand
        // nodes); waiting for it here keeps the order of bestmove lines simple.
        "stop" => finish_running(s, st),
        "ponderhit" => {
            st.infinite = false;
            match st.held.take() {
                Some(f) => report(s, f),
                None => s.game.ponderhit(),
            }
        }
        "quit" => {
            s.game.abort_search();
            return Some(Exit::Quit);
        }
        "d" => {
            s.emit(&s.game.board().diagram());
            s.emit(&format!("Fen: {}", s.game.board().to_fen()));
            s.emit(&format!("Key: {:016x}", s.game.board().key()));
        }
        "eval" => {
            let mut ev = crate::eval::Evaluator::new(1 << 16);
            ev.set_params(s.game.config().eval);
            let mut text = ev.breakdown(s.game.board()).to_string();
            if let Some(net) = s.game.config().net.clone() {
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                text.push_str(&crate::nnue::score_lines(&net, &mut ev, s.game.board()));
            }
            for l in text.lines() {
                s.emit(l);
            }
        }
        "xboard" => return Some(Exit::Switch(Protocol::Xboard, line.to_string())),
        _ => s.emit(&format!(
            "info string unknown command: {}",
            echo(line.trim())
        )),
    }
    None
}

fn setoption(s: &mut Session, rest: &str) {
    // setoption name <id with spaces> [value <x>]
    let Some(body) = rest.strip_prefix("name") else {
        s.emit("info string setoption: expected 'setoption name <id> [value <x>]'");
        return;
    };
    let body = body.trim();
    let (name, value) = match body.find(" value") {
        Some(i) if body[i + 6..].is_empty() || body[i + 6..].starts_with(' ') => {
            (body[..i].trim(), body[i + 6..].trim())
        }
        _ => (body, ""),
    };
    match s.options.set_uci(name, value) {
        Ok(spec) => {
            if spec.name == "clear_hash" {
                s.game.clear_hash();
            } else {
                s.apply_options();
            }
        }
        Err(e) => s.emit(&format!("info string {}", echo(&e.to_string()))),
    }
}

fn position(s: &mut Session, rest: &str) {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let moves_at = words
        .iter()
        .position(|&w| w == "moves")
        .unwrap_or(words.len());
    let board = match words.first() {
        Some(&"startpos") => Board::startpos(),
        Some(&"fen") => {
            let fen = words[1..moves_at].join(" ");
            match Board::from_fen(&fen) {
                Ok(b) => b,
                Err(e) => {
                    s.emit(&format!("info string bad FEN '{}': {e}", echo(&fen)));
                    return;
                }
            }
        }
        _ => {
            s.emit("info string position: expected 'startpos' or 'fen <fen>', then 'moves ...'");
            return;
        }
    };
    s.game.set_position(board);
    for w in words.iter().skip(moves_at + 1) {
        let mv = match s.game.board().parse_uci(w) {
            Ok(m) => m,
            Err(e) => {
                s.emit(&format!(
                    "info string position: {}; stopped before it",
                    echo(&e.to_string())
                ));
                return;
            }
        };
        if let Err(e) = s.game.make_move(mv) {
            s.emit(&format!("info string position: {e}"));
            return;
        }
    }
}

/// A `go` command read: the limits for the side to move and what the engine chose
/// where the command left something out (each said in an `info string`).
#[derive(Debug, Clone)]
pub struct Go {
    pub limits: SearchLimits,
    pub notes: Vec<String>,
}

/// The search time when a `go` gives clock times but none for the side to move.
pub const MISSING_CLOCK_MOVETIME: Duration = Duration::from_secs(1);

/// Parses `go` parameters into limits for the side to move. A value that is not a
/// whole number, or a negative time or count, is an error: no search starts.
pub fn parse_go(board: &Board, rest: &str) -> Result<Go, String> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut l = SearchLimits {
        game_ply: 2 * (board.fullmove_number() as u32).saturating_sub(1)
            + (board.side_to_move() == Color::Black) as u32,
        ..Default::default()
    };
    let (mut wtime, mut btime, mut winc, mut binc, mut mtg) = (None, None, None, None, None);
    let mut i = 0;
    let num = |i: usize| -> Result<i64, String> {
        let value = words
            .get(i + 1)
            .ok_or_else(|| format!("go {}: missing value", words[i]))?;
        let n = value.parse::<i64>().map_err(|_| {
            format!(
                "go {}: '{}' is not a whole number; no search",
                words[i],
                echo(value)
            )
        })?;
        if n < 0 {
            return Err(format!("go {}: {n} is negative; no search", words[i]));
        }
        Ok(n)
    };
    while i < words.len() {
        match words[i] {
            "wtime" => wtime = Some(num(i)?),
            "btime" => btime = Some(num(i)?),
            "winc" => winc = Some(num(i)?),
            "binc" => binc = Some(num(i)?),
            "movestogo" => mtg = Some(num(i)?),
            "depth" => l.depth = Some(num(i)?.clamp(1, 1000) as i32),
            "nodes" => l.nodes = Some(num(i)?.max(1) as u64),
            "movetime" => l.movetime = Some(Duration::from_millis(num(i)?.max(1) as u64)),
            "mate" => l.mate = Some(num(i)?.max(1) as i32),
            "infinite" => {
                l.infinite = true;
                i += 1;
                continue;
            }
            "ponder" => {
                l.ponder = true;
                i += 1;
                continue;
            }
            "searchmoves" => {
                i += 1;
                while i < words.len() {
                    match board.parse_uci(words[i]) {
                        Ok(m) => l.searchmoves.push(m),
                        Err(_) => break,
                    }
                    i += 1;
                }
                continue;
            }
            "perft" => return Err("go perft is not supported; use `kibitzer perft`".into()),
            _ => {
                // Unknown tokens are skipped, as the protocol asks.
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    let mut notes = Vec::new();
    let side = board.side_to_move();
    let (time, inc, time_word) = match side {
        Color::White => (wtime, winc, "wtime"),
        Color::Black => (btime, binc, "btime"),
    };
    match time {
        Some(t) => {
            l.clock = Some(ClockLimits {
                time_left: Duration::from_millis(t as u64),
                increment: Duration::from_millis(inc.unwrap_or(0) as u64),
                moves_to_go: mtg.filter(|&m| m > 0).map(|m| m as u32),
                opponent_left: match side {
                    Color::White => btime,
                    Color::Black => wtime,
                }
                .map(|t| Duration::from_millis(t as u64)),
            });
        }
        None if (wtime.is_some() || btime.is_some() || winc.is_some() || binc.is_some())
            && l.movetime.is_none()
            && l.depth.is_none()
            && l.nodes.is_none()
            && l.mate.is_none()
            && !l.infinite =>
        {
            // Clock times, but not the mover's: a short fixed search, never one that
            // runs until `stop`.
            l.movetime = Some(MISSING_CLOCK_MOVETIME);
            notes.push(format!(
                "go: no {time_word} for {} to move; searching {} ms",
                side.name(),
                MISSING_CLOCK_MOVETIME.as_millis()
            ));
        }
        None => {}
    }
    Ok(Go { limits: l, notes })
}

/// Starts the search; returns whether it is `go infinite`. An invalid `go` is
/// answered with an `info string` and starts nothing.
fn go(s: &mut Session, rest: &str) -> bool {
    let Go { limits, notes } = match parse_go(s.game.board(), rest) {
        Ok(g) => g,
        Err(e) => {
            s.emit(&format!("info string {e}"));
            return false;
        }
    };
    for n in notes {
        s.emit(&format!("info string {n}"));
    }
    // Keep the game's clocks in step with the GUI's.
    let words: Vec<&str> = rest.split_whitespace().collect();
    for (k, c) in [("wtime", Color::White), ("btime", Color::Black)] {
        if let Some(p) = words.iter().position(|&w| w == k) {
            if let Some(Ok(ms)) = words.get(p + 1).map(|v| v.parse::<i64>()) {
                s.game
                    .clocks_mut()
                    .set_left(c, Duration::from_millis(ms.max(0) as u64));
            }
        }
    }
    let infinite = limits.infinite;
    let sink = sink(&s.out, s.game.board());
    s.game.think_with(limits, sink, true);
    infinite
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SearchResult;
    use std::io::Write;
    use std::sync::Mutex;

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);
    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn line(board: &Board, moves: &[&str]) -> Vec<crate::chess::Move> {
        let mut b = board.clone();
        moves
            .iter()
            .map(|t| {
                let m = b.parse_uci(t).unwrap();
                b.make_move(m);
                m
            })
            .collect()
    }

    fn info(board: &Board, pv: &[&str], depth: i32) -> SearchInfo {
        SearchInfo {
            depth,
            seldepth: depth + 3,
            multipv: 1,
            score: 20,
            bound: Bound::Exact,
            nodes: 1000,
            time: Duration::from_millis(10),
            hashfull: 7,
            tb_hits: 0,
            pv: line(board, pv),
            root_side: Color::White,
        }
    }

    fn done(board: &Board, pv: &[&str]) -> SearchResult {
        let pv = line(board, pv);
        SearchResult {
            best: pv[0],
            ponder: None,
            score: 35,
            depth: 9,
            nodes: 5000,
            time: Duration::from_millis(20),
            pv,
            root_side: Color::White,
            error: None,
        }
    }

    /// A final answer whose move was never the first move of a printed PV (a helper
    /// thread's result) gets its own complete info line; one that was, gets none.
    #[test]
    fn echoed_text_is_cut_and_has_no_control_characters() {
        let long = "x".repeat(1 << 20);
        let e = echo(&long);
        assert_eq!(e.len(), ECHO_MAX + 3);
        assert!(e.ends_with("..."));
        assert_eq!(echo("ab\x07c\x1b[2J"), "ab?c?[2J");
        assert_eq!(echo("short"), "short");
    }

    #[test]
    fn go_values_are_checked_and_a_missing_own_clock_gets_a_default() {
        let white = Board::startpos();
        for bad in ["wtime -5", "depth abc", "movetime", "nodes -1 depth 3"] {
            let e = parse_go(&white, bad).unwrap_err();
            assert!(
                e.contains("no search") || e.contains("missing"),
                "{bad}: {e}"
            );
        }
        let g = parse_go(&white, "wtime 1000 btime 900 winc 10").unwrap();
        assert!(g.notes.is_empty());
        assert_eq!(
            g.limits.clock.unwrap().time_left,
            Duration::from_millis(1000)
        );
        let black =
            Board::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        let g = parse_go(&black, "wtime 1000").unwrap();
        assert!(g.limits.clock.is_none());
        assert_eq!(g.limits.movetime, Some(MISSING_CLOCK_MOVETIME));
        assert!(g.notes[0].contains("no btime"), "{:?}", g.notes);
        // A limit given explicitly is kept.
        let g = parse_go(&black, "wtime 1000 depth 3").unwrap();
        assert_eq!((g.limits.depth, g.limits.movetime), (Some(3), None));
        assert!(g.notes.is_empty());
    }

    #[test]
    fn final_pv_printed_when_the_answer_differs() {
        let board = Board::startpos();
        let buf = Buf::default();
        let s = sink(&super::super::output(buf.clone()), &board);
        s(&SearchEvent::Iteration(info(&board, &["e2e4", "e7e5"], 8)));
        s(&SearchEvent::Done(done(&board, &["d2d4", "d7d5"])));
        s(&SearchEvent::Iteration(info(&board, &["e2e4", "e7e5"], 8)));
        s(&SearchEvent::Done(done(&board, &["e2e4", "c7c5"])));
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(
            lines[1],
            "info depth 9 seldepth 11 multipv 1 score cp 35 nodes 5000 nps 250000 hashfull 7 time 20 pv d2d4 d7d5"
        );
    }
}
