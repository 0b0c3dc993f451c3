//! The console: prompt, moves in SAN and coordinates answered by the engine,
//! Crafty-style analysis with White's scores, every option settable as a command,
//! `help`/`info` listings, one-line errors, and the switch to UCI or xboard.

use crate::session::Driver;
use kibitzer::options::{front, Kind, TABLE};
use kibitzer::protocol::Protocol;

#[test]
fn moves_are_answered_and_the_prompt_follows() {
    let mut d = Driver::start(Protocol::Console);
    d.send("sd 4");
    d.expect_contains("White(1): ");
    d.send("e4");
    // The engine's analysis, its summary and its move.
    d.expect_contains("depth   time  score   variation (1)");
    d.expect_contains("  4->");
    d.expect_contains("time: ");
    let mv = d.expect_prefix("Black(1): ");
    assert!(mv.len() > "Black(1): ".len());
    d.expect_contains("White(2): ");
    // Coordinates work too; illegal input is one line naming the problem.
    d.send("d2d4");
    d.expect_prefix("Black(2): ");
    d.send("Ke8");
    let e = d.expect_contains("'Ke8'");
    assert!(e.contains("help"), "{e}");
    d.send("history");
    d.expect_contains("1. e4");
}

#[test]
fn analysis_is_from_whites_point_of_view_with_move_numbers() {
    let mut d = Driver::start(Protocol::Console);
    // Black to move and a queen up: White's score is negative.
    d.send("setboard 4k3/8/8/8/8/8/3q4/K7 b - - 0 1");
    d.send("sd 4");
    d.send("go");
    let l = d.expect_contains("  4->");
    let score: f64 = l.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(score < -5.0, "{l}");
    assert!(l.contains("1. ..."), "move numbers: {l}");
    d.expect_prefix("Black(1): ");
    // A mate is printed as Crafty does.
    d.send("setboard 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1");
    d.send("sd 8");
    d.send("go");
    d.expect_contains("Mat02");
    d.expect_prefix("White(1): Qg6");
}

#[test]
fn every_console_option_is_settable_and_listed() {
    let mut d = Driver::start(Protocol::Console);
    let mut expected = Vec::new();
    for spec in TABLE.iter().filter(|s| s.shown_in(front::CONSOLE)) {
        let value = match spec.kind {
            Kind::Bool => (if spec.default == "on" { "off" } else { "on" }).to_string(),
            Kind::Int { min, max } => {
                let v = if spec.default == max.to_string() {
                    min
                } else {
                    max.min(min + 1)
                };
                v.to_string()
            }
            Kind::Size { min, .. } => format!("{}M", (min >> 20) + 1),
            Kind::Time { .. } => "2.5".into(),
            Kind::Level => "40 5 0".into(),
            Kind::Str => {
                // Path options must name a directory at the console.
                let dir =
                    std::env::temp_dir().join(format!("kibitzer-opts-{}", std::process::id()));
                std::fs::create_dir_all(&dir).unwrap();
                dir.display().to_string()
            }
            Kind::Enum(words) => words.last().unwrap().to_string(),
            Kind::Button => {
                d.send(spec.name);
                continue;
            }
        };
        // `log on` would write log files in the working directory (see console_full).
        if spec.name == "threads" || spec.name == "log" {
            continue;
        }
        d.send(&format!("{} {value}", spec.name));
        let shown = match spec.kind {
            Kind::Time { .. } => "2.500".to_string(),
            _ => value.clone(),
        };
        d.expect_contains(&format!("{} {shown}", spec.name));
        expected.push((spec.name, shown));
    }
    // Crafty's spellings.
    d.send("hash=16M");
    d.expect_contains("hash 16M");
    d.send("mt=2");
    d.expect_contains("threads 2");
    d.send("smpmt=1");
    d.expect_contains("threads 1");
    d.send("extensions recapture 1");
    d.expect_contains("extensions.recapture 1");
    d.send("evaluation kscale 120");
    d.expect_contains("evaluation.kscale 120");
    d.send("display nomovenum");
    d.expect_contains("display.movenum off");
    d.send("time 60/30/sd/30");
    d.expect_contains("level 60/30/sd/30");
    d.send("info");
    d.expect_contains("[runtime]");
    let info = d.lines();
    for (name, _) in expected {
        assert!(
            info.iter()
                .any(|l| l.starts_with(name) && l.contains("[runtime]")),
            "{name} not listed as set"
        );
    }
    // Errors name the option, the value and what is allowed.
    d.send("threads 9999");
    let e = d.expect_contains("9999");
    assert!(e.contains("threads") && e.contains("1..=512"), "{e}");
    d.send("help");
    d.expect_contains("commands by topic");
    d.expect_contains("options");
    d.send("help hash");
    d.expect_contains("transposition table size");
}

#[test]
fn score_display_perft_and_new() {
    let mut d = Driver::start(Protocol::Console);
    d.send("score");
    d.expect_contains("White's point of view");
    d.send("display");
    d.expect_contains("a b c d e f g h");
    d.send("perft 3");
    d.expect_contains("8902");
    d.send("e4");
    d.send("?");
    d.expect_prefix("Black(1): ");
    d.send("new");
    d.send("display");
    d.expect_contains("fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
}

#[test]
fn analyze_restarts_on_moves_and_back() {
    let mut d = Driver::start(Protocol::Console);
    d.send("analyze");
    d.expect_contains("  3->");
    d.send("e4");
    d.expect_contains("1. ... ");
    d.send("back");
    d.send("exit");
    d.send("display");
    d.expect_contains("fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    // Analysis never plays a move: nothing follows a prompt but commands' output.
    let moved = d
        .lines()
        .into_iter()
        .any(|l| l.starts_with("Black(1): ") && l.split_whitespace().count() == 2);
    assert!(!moved, "{}", d.text());
}

#[test]
fn the_first_command_can_switch_to_uci_or_xboard() {
    let mut d = Driver::start(Protocol::Console);
    d.send("uci");
    d.expect_prefix("uciok");
    d.send("isready");
    d.expect_prefix("readyok");
    assert!(!d.text().contains("White(1)"), "no prompt for a GUI");

    let mut d = Driver::start(Protocol::Console);
    d.send("xboard");
    d.send("protover 2");
    d.expect_prefix("feature done=1");
    d.send("ping 4");
    d.expect_prefix("pong 4");

    // Later on, `xboard` at the prompt switches too.
    let mut d = Driver::start(Protocol::Console);
    d.send("sd 2");
    d.send("xboard");
    d.send("protover 2");
    d.expect_prefix("feature done=1");
}

#[test]
fn book_commands_without_a_subcommand_say_what_is_expected() {
    let mut d = Driver::start(Protocol::Console);
    d.send("books");
    let e = d.expect_contains("books:");
    assert!(
        e.contains("expected a subcommand") && e.contains("usage: books create <pgn> <maxply>"),
        "{e}"
    );
    assert!(!e.contains("unknown ''"), "{e}");
    d.send("books frobnicate");
    let e = d.expect_contains("books:");
    assert!(e.contains("unknown subcommand 'frobnicate'"), "{e}");
}

#[test]
fn a_move_typed_with_its_number_is_played() {
    let mut d = Driver::start(Protocol::Console);
    d.send("sd 2");
    d.send("1. e4");
    d.expect_prefix("Black(1): ");
    d.send("history");
    d.expect_contains("1. e4");
    d.send("7. Nf3");
    let e = d.expect_contains("'7. Nf3'");
    assert!(e.contains("the move here is 2."), "{e}");
}
