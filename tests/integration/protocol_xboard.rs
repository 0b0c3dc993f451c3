//! xboard/CECP v2 sessions scripted in-process: features, moves, ping ordering, `?`,
//! thinking output from the side to move, time/otim in centiseconds, undo/remove,
//! analyze with `.` and exit, pondering with hint, draw offers, results and options.

use crate::session::{test_options, Driver};
use kibitzer::chess::Board;
use kibitzer::engine::time::ManualClock;
use kibitzer::options::{front, Kind, TABLE};
use kibitzer::protocol::Protocol;
use std::sync::Arc;
use std::time::Duration;

fn start() -> Driver {
    let mut d = Driver::start(Protocol::Xboard);
    d.send("xboard");
    d.send("protover 2");
    d.expect_prefix("feature done=1");
    d
}

fn engine_move(d: &mut Driver) -> String {
    let l = d.expect_prefix("move ");
    l["move ".len()..].trim().to_string()
}

#[test]
fn features_and_options_are_announced() {
    let d = start();
    let lines = d.lines();
    let all = lines.join("\n");
    for f in [
        "ping=1",
        "setboard=1",
        "usermove=1",
        "time=1",
        "analyze=1",
        "colors=0",
        "playother=1",
        "memory=1",
        "smp=1",
        "sigint=0",
        "sigterm=0",
        "egt=\"syzygy\"",
        "variants=\"normal\"",
        "myname=\"kibitzer",
    ] {
        assert!(all.contains(f), "{f} missing:\n{all}");
    }
    assert_eq!(lines.first().map(String::as_str), Some("feature done=0"));
    assert_eq!(lines.last().map(String::as_str), Some("feature done=1"));
    for spec in TABLE.iter().filter(|s| s.shown_in(front::XBOARD)) {
        let head = format!("feature option=\"{} -", spec.name);
        assert!(lines.iter().any(|l| l.starts_with(&head)), "{head} missing");
    }
}

#[test]
fn plays_legal_moves_as_black_and_white() {
    let mut d = start();
    d.send("new");
    d.send("sd 4");
    d.send("usermove e2e4");
    let mv = engine_move(&mut d);
    let mut b = Board::startpos();
    let e4 = b.parse_uci("e2e4").unwrap();
    b.make_move(e4);
    let m = b.parse_uci(&mv).unwrap_or_else(|e| panic!("{mv}: {e}"));
    b.make_move(m);
    // Thinking output: depth score time(cs) nodes pv.
    let post = d
        .lines()
        .into_iter()
        .find(|l| l.starts_with("4 "))
        .expect("post line at depth 4");
    let f: Vec<&str> = post.split_whitespace().collect();
    assert!(
        f.len() >= 5
            && f[1].parse::<i32>().is_ok()
            && f[2].parse::<u64>().is_ok()
            && f[3].parse::<u64>().is_ok(),
        "{post}"
    );
    // force + go: the engine takes White.
    d.send("new");
    d.send("sd 3");
    d.send("go");
    let mv = engine_move(&mut d);
    Board::startpos().parse_uci(&mv).unwrap();
    // An illegal move is refused.
    d.send("usermove e2e5");
    d.expect_prefix("Illegal move: e2e5");
}

#[test]
fn ping_while_thinking_is_answered_after_the_move_and_question_mark_moves_now() {
    let mut d = start();
    d.send("new");
    d.send("sd 60");
    d.send("go");
    d.expect_prefix("5 ");
    d.send("ping 7");
    d.expect_none_for(Duration::from_millis(100), "pong before the move", |l| {
        l.starts_with("pong")
    });
    d.send("?");
    let mv = engine_move(&mut d);
    Board::startpos().parse_uci(&mv).unwrap();
    d.expect_prefix("pong 7");
    // When idle, at once.
    d.send("force");
    d.send("ping 8");
    d.expect_prefix("pong 8");
}

#[test]
fn mate_scores_are_100000_plus_moves_from_the_side_to_move() {
    let mut d = start();
    d.send("new");
    d.send("force");
    d.send("setboard 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1");
    d.send("sd 8");
    d.send("go");
    assert_eq!(engine_move(&mut d), "g3g6");
    assert!(
        d.lines().iter().any(|l| l.starts_with("8 100002 ")),
        "{:?}",
        d.lines()
    );
    // Black to move and winning: the score is positive (side to move).
    d.send("new");
    d.send("force");
    d.send("setboard 4k3/8/8/8/8/8/3q4/K7 b - - 0 1");
    d.send("sd 4");
    d.send("go");
    engine_move(&mut d);
    let post = d
        .lines()
        .into_iter()
        .rev()
        .find(|l| l.starts_with("4 "))
        .unwrap();
    let score: i32 = post.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(score > 500, "{post}");
}

#[test]
fn time_and_otim_are_centiseconds() {
    let clock = Arc::new(ManualClock::default());
    let mut d = Driver::start_with(Protocol::Xboard, test_options(), Some(clock.clone()));
    d.send("protover 2");
    d.expect_prefix("feature done=1");
    d.send("new");
    d.send("level 0 10 0");
    // 1000 s on the clock: 5 s is well inside the budget.
    d.send("time 100000");
    d.send("otim 100000");
    d.send("usermove e2e4");
    d.expect_prefix("4 ");
    clock.advance(Duration::from_secs(5));
    d.expect_none_for(Duration::from_millis(150), "a move with 995 s left", |l| {
        l.starts_with("move")
    });
    d.send("?");
    engine_move(&mut d);
    // 1 s on the clock: after 5 s the engine must have moved.
    d.send("time 100");
    d.send("otim 100000");
    d.send("usermove d2d4");
    d.expect_prefix("3 ");
    clock.advance(Duration::from_secs(5));
    engine_move(&mut d);
}

#[test]
fn undo_and_remove_take_moves_back() {
    let mut d = start();
    d.send("new");
    d.send("force");
    d.send("usermove g1f3");
    d.send("usermove g8f6");
    d.send("remove");
    // Both moves are gone: g1f3 is legal again.
    d.send("usermove g1f3");
    d.send("undo");
    d.send("usermove g1f3");
    d.send("ping 1");
    d.expect_prefix("pong 1");
    assert!(
        !d.lines()
            .iter()
            .any(|l| l.starts_with("Illegal") || l.starts_with("Error")),
        "{:?}",
        d.lines()
    );
    // Nothing left to take back is an error, not a crash.
    d.send("new");
    d.send("force");
    d.send("remove");
    d.expect_prefix("Error");
}

#[test]
fn analyze_reports_restarts_on_moves_and_exits() {
    let mut d = start();
    d.send("new");
    d.send("post");
    d.send("analyze");
    d.expect_prefix("3 ");
    d.send(".");
    let stat = d.expect_prefix("stat01:");
    assert_eq!(stat.split_whitespace().count(), 7, "{stat}");
    d.send("usermove e2e4");
    d.send("undo");
    d.send("usermove d2d4");
    d.expect_prefix("3 ");
    d.send("exit");
    d.send("ping 3");
    d.expect_prefix("pong 3");
    // Analysis never plays a move.
    d.expect_none_for(Duration::from_millis(50), "a move in analysis", |l| {
        l.starts_with("move")
    });
    assert!(!d.lines().iter().any(|l| l.starts_with("move")));
}

#[test]
fn pondering_hint_hit_and_easy() {
    let mut d = start();
    d.send("new");
    d.send("hard");
    d.send("sd 4");
    d.send("usermove e2e4");
    let mut b = Board::startpos();
    let e4 = b.parse_uci("e2e4").unwrap();
    b.make_move(e4);
    let m = engine_move(&mut d);
    let m = b.parse_uci(&m).unwrap();
    b.make_move(m);
    d.send("hint");
    let hint = d.expect_prefix("Hint: ");
    let reply = hint["Hint: ".len()..].trim().to_string();
    // The ponder search is finished at depth 4 but holds its move until the hit.
    d.expect_none_for(Duration::from_millis(150), "a move while pondering", |l| {
        l.starts_with("move")
    });
    d.send(&format!("usermove {reply}"));
    let r = b.parse_uci(&reply).unwrap();
    b.make_move(r);
    let m = engine_move(&mut d);
    let m = b.parse_uci(&m).unwrap();
    b.make_move(m);
    // easy: no pondering after the next move.
    d.send("easy");
    let next = b.legal_moves().iter().next().copied().unwrap();
    d.send(&format!("usermove {next}"));
    engine_move(&mut d);
    d.send("ping 2");
    d.expect_prefix("pong 2");
}

#[test]
fn draw_offers_follow_drawscore_and_result_ends_the_game() {
    let mut d = start();
    d.send("new");
    d.send("option drawscore=-50");
    d.send("draw");
    d.send("ping 1");
    d.expect_prefix("pong 1");
    assert!(!d.lines().iter().any(|l| l == "offer draw"));
    // Before move 20 and before any search: declined whatever the draw score.
    d.send("option drawscore=1000");
    d.send("draw");
    d.send("ping 2");
    d.expect_prefix("pong 2");
    assert!(!d.lines().iter().any(|l| l == "offer draw"));
    // At move 30, after the engine's own search: the draw score decides.
    d.send("force");
    d.send("setboard r1bq1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 0 30");
    d.send("sd 3");
    d.send("go");
    d.expect_prefix("move ");
    d.send("draw");
    d.expect_prefix("offer draw");
    // result stops the thinking engine; no move follows.
    d.send("new");
    d.send("sd 60");
    d.send("go");
    d.expect_prefix("4 ");
    d.send("result 1/2-1/2 {Draw by agreement}");
    d.send("ping 3");
    d.expect_prefix("pong 3");
    d.expect_none_for(Duration::from_millis(50), "a move after result", |l| {
        l.starts_with("move")
    });
}

#[test]
fn every_xboard_option_is_settable_and_listed_with_its_value() {
    let mut d = start();
    let mut expected = Vec::new();
    for spec in TABLE.iter().filter(|s| s.shown_in(front::XBOARD)) {
        let (value, shown) = match spec.kind {
            Kind::Bool => ("1".to_string(), format!("{} -check 1", spec.name)),
            Kind::Int { min, max } => {
                let v = if spec.default == max.to_string() {
                    min
                } else {
                    max.min(min + 1)
                };
                (v.to_string(), format!("{} -spin {v} ", spec.name))
            }
            Kind::Size { min, .. } => {
                let mb = (min >> 20) + 1;
                (mb.to_string(), format!("{} -spin {mb} ", spec.name))
            }
            Kind::Enum(words) => {
                let w = words.last().unwrap();
                (w.to_string(), format!("*{w}"))
            }
            Kind::Button => {
                d.send(&format!("option {}", spec.name));
                continue;
            }
            _ => continue,
        };
        d.send(&format!("option {}={value}", spec.name));
        expected.push((format!("feature option=\"{} -", spec.name), shown));
    }
    // memory, cores and egtpath set the table's hash, threads and egtpath.
    d.send("memory 3");
    d.send("cores 2");
    d.send("egtpath syzygy /tmp/tb");
    d.send("protover 2");
    d.expect_prefix("feature done=0");
    d.expect_prefix("feature done=1");
    let lines = d.lines();
    assert!(!lines.iter().any(|l| l.starts_with("Error")), "{lines:?}");
    let second: Vec<&String> = lines
        .iter()
        .skip(1)
        .skip_while(|l| !l.starts_with("feature done=0"))
        .collect();
    for (head, shown) in expected {
        let l = second
            .iter()
            .find(|l| l.starts_with(&head))
            .unwrap_or_else(|| panic!("{head}"));
        assert!(l.contains(&shown), "{l} should contain {shown}");
    }
    d.send("option nosuch=1");
    d.expect_prefix("Error");
}

#[test]
fn variants_and_unknown_commands_are_refused_politely() {
    let mut d = start();
    d.send("variant crazyhouse");
    d.expect_contains("Error (unsupported variant)");
    d.send("frobnicate 3");
    d.expect_prefix("Error (unknown command): frobnicate 3");
    d.send("setboard not a fen");
    d.expect_contains("Illegal position");
}
