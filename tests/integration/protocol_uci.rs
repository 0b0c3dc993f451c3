//! UCI sessions scripted in-process: handshake and options, isready during a search,
//! stop, pondering (ponderhit, stop while pondering, time counted after ponderhit),
//! mates reported as `score mate N`, searchmoves, MultiPV, positions without moves.

use crate::session::{test_options, Driver};
use kibitzer::chess::Board;
use kibitzer::engine::time::ManualClock;
use kibitzer::options::{front, Kind, TABLE};
use kibitzer::protocol::Protocol;
use std::sync::Arc;
use std::time::Duration;

fn bestmove(d: &mut Driver) -> String {
    d.expect_prefix("bestmove")
}

/// The move of a `bestmove` line, checked legal in `board`.
fn legal_best(line: &str, board: &Board) -> String {
    let mv = line
        .split_whitespace()
        .nth(1)
        .expect("bestmove has a move")
        .to_string();
    assert!(
        board.parse_uci(&mv).is_ok(),
        "{mv} is not legal in {board:?}"
    );
    mv
}

#[test]
fn handshake_lists_every_uci_option_and_answers_readyok() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("uci");
    d.expect_prefix("id name kibitzer");
    d.expect_prefix("id author");
    d.expect_prefix("uciok");
    let lines = d.lines();
    for spec in TABLE.iter().filter(|s| s.shown_in(front::UCI)) {
        let head = format!("option name {} type ", spec.uci_name());
        assert!(
            lines.iter().any(|l| l.starts_with(&head)),
            "{head} missing: {lines:?}"
        );
    }
    // The standard ones with their standard types.
    for want in [
        "option name Hash type spin",
        "option name Threads type spin",
        "option name Ponder type check",
        "option name Move Overhead type spin",
        "option name Clear Hash type button",
        "option name MultiPV type spin",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(want)), "{want}");
    }
    d.send("isready");
    d.expect_prefix("readyok");
}

#[test]
fn every_uci_option_is_settable_and_shows_its_new_value() {
    let mut d = Driver::start(Protocol::Uci);
    let mut expected = Vec::new();
    for spec in TABLE.iter().filter(|s| s.shown_in(front::UCI)) {
        let name = spec.uci_name();
        let (value, shown) = match spec.kind {
            Kind::Bool => ("true".to_string(), "default true".to_string()),
            Kind::Int { min, max } => {
                let v = if spec.default == max.to_string() {
                    min
                } else {
                    max.min(min + 1)
                };
                (v.to_string(), format!("default {v} "))
            }
            Kind::Size { min, .. } => {
                let mb = (min >> 20) + 1;
                (mb.to_string(), format!("default {mb} "))
            }
            Kind::Str => ("/tmp/none".to_string(), "default /tmp/none".to_string()),
            Kind::Button => (String::new(), String::new()),
            _ => continue,
        };
        if spec.name == "threads" {
            continue; // Keep the test on one thread; set below.
        }
        if value.is_empty() {
            d.send(&format!("setoption name {name}"));
        } else {
            d.send(&format!("setoption name {name} value {value}"));
            expected.push((format!("option name {name} type "), shown));
        }
    }
    d.send("setoption name Threads value 2");
    expected.push(("option name Threads type ".into(), "default 2 ".into()));
    d.send("uci");
    d.expect_prefix("uciok");
    d.send("isready");
    d.expect_prefix("readyok");
    let lines = d.lines();
    // The second listing (after the settings) shows the current values as defaults.
    let second: Vec<&String> = lines
        .iter()
        .skip_while(|l| !l.starts_with("id name"))
        .collect();
    for (head, shown) in expected {
        let l = second
            .iter()
            .find(|l| l.starts_with(&head))
            .unwrap_or_else(|| panic!("{head} not listed"));
        assert!(l.contains(&shown), "{l} should contain '{shown}'");
    }
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("info string") && l.contains("option")),
        "{lines:?}"
    );
    // A bad value is refused with a message naming option, value and range.
    d.send("setoption name Hash value 0");
    let e = d.expect_prefix("info string");
    assert!(
        e.contains("hash") && e.contains('0') && e.contains("1M..="),
        "{e}"
    );
}

#[test]
fn isready_is_answered_during_a_search_and_stop_gives_bestmove() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos moves e2e4 e7e5");
    d.send("go infinite");
    d.expect_prefix("info depth 3");
    d.send("isready");
    d.expect_prefix("readyok");
    assert!(!d.pending().iter().any(|l| l.starts_with("bestmove")));
    d.expect_none_for(
        Duration::from_millis(100),
        "bestmove during go infinite",
        |l| l.starts_with("bestmove"),
    );
    d.send("stop");
    let b = bestmove(&mut d);
    let mut board = Board::startpos();
    for m in ["e2e4", "e7e5"] {
        let mv = board.parse_uci(m).unwrap();
        board.make_move(mv);
    }
    legal_best(&b, &board);
    // Only one bestmove per go.
    d.send("isready");
    d.expect_prefix("readyok");
    let n = d
        .lines()
        .iter()
        .filter(|l| l.starts_with("bestmove"))
        .count();
    assert_eq!(n, 1);
}

#[test]
fn info_lines_carry_every_field_and_pv_is_legal() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos");
    d.send("go depth 6");
    let b = bestmove(&mut d);
    let board = Board::startpos();
    legal_best(&b, &board);
    let infos: Vec<String> = d
        .lines()
        .into_iter()
        .filter(|l| l.starts_with("info depth") && l.contains(" pv "))
        .collect();
    assert!(!infos.is_empty());
    for l in &infos {
        for f in [
            " seldepth ",
            " multipv ",
            " score ",
            " nodes ",
            " nps ",
            " hashfull ",
            " time ",
            " pv ",
        ] {
            assert!(l.contains(f), "{l} lacks {f}");
        }
        // The PV plays legally from the root.
        let pv = l.split(" pv ").nth(1).unwrap();
        let mut b2 = board.clone();
        for m in pv.split_whitespace() {
            let mv = b2.parse_uci(m).unwrap_or_else(|e| panic!("{l}: {e}"));
            b2.make_move(mv);
        }
    }
    assert!(infos.iter().any(|l| l.starts_with("info depth 6 ")));
}

#[test]
fn mates_in_two_and_three_are_reported_as_score_mate() {
    let mut d = Driver::start(Protocol::Uci);
    // WAC.001: Qg6 fxg6 Nxg6#... mate in 2.
    d.send("position fen 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1");
    d.send("go depth 8");
    let b = bestmove(&mut d);
    assert!(b.starts_with("bestmove g3g6"), "{b}");
    assert!(
        d.lines().iter().any(|l| l.contains("score mate 2 ")),
        "{:?}",
        d.lines()
    );
    // WAC.050: mate in 3.
    d.send("ucinewgame");
    d.send("position fen k4r2/1R4pb/1pQp1n1p/3P4/5p1P/3P2P1/r1q1R2K/8 w - - 0 1");
    d.send("go depth 8");
    bestmove(&mut d);
    assert!(
        d.lines().iter().any(|l| l.contains("score mate 3 ")),
        "{:?}",
        d.lines()
    );
    // The side being mated sees a negative mate: after Qg6 in WAC.001, Black is mated in 2... or 1.
    d.send("position fen 2rr3k/pp3pp1/1nnqbNQp/3pN3/2pP4/2P5/PPB4P/R4RK1 b - - 0 1");
    d.send("go depth 6");
    bestmove(&mut d);
    let last = d
        .lines()
        .into_iter()
        .rev()
        .find(|l| l.starts_with("info depth 6 "))
        .unwrap();
    assert!(last.contains("score mate -"), "{last}");
}

#[test]
fn go_mate_stops_once_the_mate_is_found() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position fen 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1");
    d.send("go mate 2");
    let b = bestmove(&mut d);
    assert!(b.starts_with("bestmove g3g6"), "{b}");
}

#[test]
fn positions_without_a_move_answer_0000() {
    let mut d = Driver::start(Protocol::Uci);
    // Stalemate.
    d.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    d.send("go depth 3");
    assert_eq!(bestmove(&mut d), "bestmove 0000");
    // Checkmated.
    d.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    d.send("go depth 3");
    assert_eq!(bestmove(&mut d), "bestmove 0000");
}

#[test]
fn searchmoves_nodes_movetime_and_multipv() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos");
    d.send("go depth 4 searchmoves a2a3 h2h3");
    let b = bestmove(&mut d);
    assert!(
        b.starts_with("bestmove a2a3") || b.starts_with("bestmove h2h3"),
        "{b}"
    );
    d.send("go nodes 3000");
    let b = bestmove(&mut d);
    legal_best(&b, &Board::startpos());
    d.send("go movetime 30");
    let b = bestmove(&mut d);
    legal_best(&b, &Board::startpos());
    d.send("setoption name MultiPV value 3");
    d.send("go depth 4");
    bestmove(&mut d);
    let lines = d.lines();
    for k in 1..=3 {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info depth 4 ") && l.contains(&format!(" multipv {k} "))),
            "multipv {k}"
        );
    }
}

#[test]
fn a_new_go_while_searching_first_answers_the_old_one() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos");
    d.send("go infinite");
    d.expect_prefix("info depth 2");
    d.send("position startpos moves e2e4");
    d.send("go depth 3");
    let first = bestmove(&mut d);
    legal_best(&first, &Board::startpos());
    let second = bestmove(&mut d);
    let mut b = Board::startpos();
    let e4 = b.parse_uci("e2e4").unwrap();
    b.make_move(e4);
    legal_best(&second, &b);
}

#[test]
fn ponder_waits_for_ponderhit_then_answers() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("setoption name Ponder value true");
    d.send("position startpos moves e2e4 e7e5");
    // Even a finished depth-limited ponder search waits for ponderhit.
    d.send("go ponder depth 4 wtime 100000 btime 100000");
    d.expect_prefix("info depth 4 ");
    d.send("isready");
    d.expect_prefix("readyok");
    d.expect_none_for(
        Duration::from_millis(150),
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
    );
    d.send("ponderhit");
    bestmove(&mut d);
}

#[test]
fn a_ponder_search_that_ends_early_still_waits_for_ponderhit() {
    let mut d = Driver::start(Protocol::Uci);
    // One legal move (Kg8): a timed search ends at once, but not before ponderhit.
    d.send("position fen 7k/8/6K1/8/8/8/8/R7 b - - 0 1");
    d.send("go ponder wtime 10000 btime 10000");
    d.expect_prefix("info depth 1 ");
    d.expect_none_for(
        Duration::from_millis(200),
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
    );
    d.send("ponderhit");
    assert!(bestmove(&mut d).starts_with("bestmove h8g8"));
    // The same with stop.
    d.send("go ponder wtime 10000 btime 10000");
    d.expect_prefix("info depth 1 ");
    d.expect_none_for(
        Duration::from_millis(100),
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
    );
    d.send("stop");
    assert!(bestmove(&mut d).starts_with("bestmove h8g8"));
}

#[test]
fn stop_while_pondering_gives_a_bestmove() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos moves d2d4");
    d.send("go ponder wtime 60000 btime 60000");
    d.expect_prefix("info depth 2");
    d.send("stop");
    let b = bestmove(&mut d);
    let mut board = Board::startpos();
    let mv = board.parse_uci("d2d4").unwrap();
    board.make_move(mv);
    legal_best(&b, &board);
}

#[test]
fn ponderhit_counts_the_time_already_spent() {
    // With a manual clock the search only stops on time when the clock moves.
    let clock = Arc::new(ManualClock::default());
    let mut d = Driver::start_with(Protocol::Uci, test_options(), Some(clock.clone()));
    d.send("position startpos moves e2e4");
    d.send("go ponder wtime 10000 btime 10000");
    d.expect_prefix("info depth 3");
    // Far past any budget for 10 s, but pondering has no limit...
    clock.advance(Duration::from_secs(20));
    d.expect_none_for(
        Duration::from_millis(150),
        "bestmove while pondering",
        |l| l.starts_with("bestmove"),
    );
    // ...until ponderhit: then the time spent counts and the move comes at once.
    d.send("ponderhit");
    bestmove(&mut d);
}

#[test]
fn clock_limits_stop_a_search_when_the_time_is_used() {
    let clock = Arc::new(ManualClock::default());
    let mut d = Driver::start_with(Protocol::Uci, test_options(), Some(clock.clone()));
    d.send("position startpos");
    d.send("go wtime 1000 btime 1000 winc 0 binc 0");
    d.expect_prefix("info depth 4");
    d.expect_none_for(
        Duration::from_millis(100),
        "bestmove before time is up",
        |l| l.starts_with("bestmove"),
    );
    clock.advance(Duration::from_secs(2));
    bestmove(&mut d);
}

#[test]
fn unknown_commands_and_bad_positions_are_reported_not_fatal() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("frobnicate");
    d.expect_contains("info string unknown command: frobnicate");
    d.send("position fen not a fen");
    d.expect_contains("info string bad FEN");
    d.send("position startpos moves e2e4 e2e4");
    d.expect_contains("info string position:");
    d.send("ucinewgame");
    d.send("setoption name Clear Hash");
    d.send("isready");
    d.expect_prefix("readyok");
    // ucinewgame went back to the start position.
    d.send("go depth 2");
    let b = bestmove(&mut d);
    legal_best(&b, &Board::startpos());
}

#[test]
fn quit_ends_the_session_during_a_search() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("go infinite");
    d.expect_prefix("info depth 2");
    d.send("quit");
    let lines = d.finish();
    assert!(lines.iter().any(|l| l.starts_with("info depth 2")));
}

#[test]
fn garbage_is_echoed_cut_and_without_control_bytes() {
    let mut d = Driver::start(Protocol::Uci);
    let garbage = format!("\x1b[2J{}", "z".repeat(1 << 20));
    d.send(&garbage);
    let e = d.expect_prefix("info string unknown command:");
    assert!(e.len() < 300, "{} characters echoed", e.len());
    assert!(e.ends_with("..."), "{e}");
    assert!(!e.contains('\x1b'), "{e:?}");
    d.send(&format!("position fen {}", "q".repeat(100_000)));
    let e = d.expect_prefix("info string bad FEN");
    assert!(e.len() < 400, "{} characters echoed", e.len());
    d.send("isready");
    d.expect_prefix("readyok");
}

#[test]
fn an_invalid_go_reports_the_error_and_starts_no_search() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos");
    for bad in ["go wtime -5 btime 1000", "go depth abc", "go movetime"] {
        d.send(bad);
        let e = d.expect_prefix("info string go");
        assert!(
            e.contains("no search") || e.contains("missing value"),
            "{bad}: {e}"
        );
        d.send("isready");
        d.expect_prefix("readyok");
        d.expect_none_for(Duration::from_millis(200), "a search", |l| {
            l.starts_with("info depth") || l.starts_with("bestmove")
        });
    }
    // A valid go afterwards searches as usual.
    d.send("go depth 2");
    let b = bestmove(&mut d);
    legal_best(&b, &Board::startpos());
}

#[test]
fn a_go_without_the_movers_clock_is_a_short_search_and_says_so() {
    let mut d = Driver::start(Protocol::Uci);
    d.send("position startpos moves e2e4");
    let start = std::time::Instant::now();
    d.send("go wtime 1000");
    let note = d.expect_prefix("info string go:");
    assert!(note.contains("no btime"), "{note}");
    let b = bestmove(&mut d);
    let mut board = Board::startpos();
    board.make_move(board.parse_uci("e2e4").unwrap());
    legal_best(&b, &board);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

/// `EvalFile` (our `evaluation.net`): a file that cannot be read is named and the
/// handcrafted evaluation plays on; a net is taken and searched with, and `eval`
/// shows it under the handcrafted table.
#[test]
fn evalfile_takes_a_net_and_names_a_bad_one() {
    use kibitzer::nnue::{Network, BUCKETS, HIDDEN, INPUTS};
    let dir = std::env::temp_dir().join(format!("kbz-uci-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A small net of our own: each piece worth its count of its own weight.
    let net = Network {
        ft_w: (0..INPUTS * HIDDEN)
            .map(|i| ((i / HIDDEN) % 6 * 10 + (i / HIDDEN) / 384 * 3) as i16)
            .collect(),
        ft_b: vec![5; HIDDEN],
        out_w: (0..BUCKETS * 2 * HIDDEN)
            .map(|i| if i % (2 * HIDDEN) < HIDDEN { 3 } else { -3 })
            .collect(),
        out_b: vec![0; BUCKETS],
        base: kibitzer::nnue::Base::Alone,
        out_pct: 100,
        source: String::new(),
    };
    let path = dir.join("t.knn");
    std::fs::write(&path, net.to_bytes()).unwrap();
    let mut d = Driver::start(Protocol::Uci);
    d.send("uci");
    d.expect_prefix("uciok");
    // The net's output whole (the default scale is the built-in net's).
    d.send("setoption name EvalFileScale value 100");
    d.send("setoption name EvalFile value /nonexistent/n.knn");
    d.send("isready");
    let l = d.expect_contains("cannot read /nonexistent/n.knn");
    assert!(l.contains("the handcrafted evaluation plays"), "{l}");
    d.expect_prefix("readyok");
    d.send(&format!("setoption name EvalFile value {}", path.display()));
    d.send("isready");
    d.expect_contains("evaluation: the net");
    d.expect_prefix("readyok");
    d.send("position startpos moves e2e4");
    d.send("eval");
    d.expect_contains(&format!("net {} ({HIDDEN} hidden)", path.display()));
    // `EvalFileScale` (our `evaluation.netscale`): the net's output at 50 %.
    d.send("setoption name EvalFileScale value 50");
    d.send("isready");
    d.expect_contains("evaluation: the net");
    d.expect_prefix("readyok");
    d.send("eval");
    d.expect_contains(&format!("net {} at 50% ({HIDDEN} hidden)", path.display()));
    d.send("go depth 4");
    legal_best(&bestmove(&mut d), &{
        let mut b = Board::startpos();
        b.make_move(b.parse_uci("e2e4").unwrap());
        b
    });
    let _ = std::fs::remove_dir_all(&dir);
}
