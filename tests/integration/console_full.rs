//! The full console, driven as a user would: a whole game against the engine (with
//! pondering and log files), takebacks (`back`, `reset`, `force`), `setboard`, `edit`,
//! `white`/`black`, game files (`savegame`, `read`, `reada`, `savepos`/`in`),
//! `search`, `test` on Bratko-Kopec, `help` from the command table, a one-line error
//! for bad arguments to every command, and the start-up file through the real binary
//! with piped standard input. Searches are limited by depth, never by time.

use crate::common::{data, Rng};
use crate::session::{test_options, Driver};
use kibitzer::chess::pgn::read_all;
use kibitzer::chess::{Board, Color};
use kibitzer::options::{lookup, Kind};
use kibitzer::protocol::console::{COMMANDS, RC_NAME};
use kibitzer::protocol::Protocol;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh, empty directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kibitzer-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn console() -> Driver {
    Driver::start(Protocol::Console)
}

/// The line without the console's own prompts in front: with piped input nothing
/// ends the prompt `White(8): ` when the engine answers before printing anything (a
/// ponder hit on a finished search), so its move line follows on the same line.
fn after_prompts(l: &str) -> &str {
    let mut s = l;
    while let Some(rest) = ["White(", "Black("].iter().find_map(|p| s.strip_prefix(p)) {
        match rest.find("): ") {
            Some(i) if rest[..i].bytes().all(|b| b.is_ascii_digit()) => {
                let next = &rest[i + 3..];
                if !(next.starts_with("White(") || next.starts_with("Black(")) {
                    break;
                }
                s = next;
            }
            _ => break,
        }
    }
    s
}

/// Waits for the engine's move line `Black(3): Nf6` and returns the move text.
fn engine_move(d: &mut Driver, side: Color, number: u16) -> String {
    let prefix = format!("{}({number}): ", side.name());
    let l = d.expect(&prefix.clone(), move |l| {
        let l = after_prompts(l);
        l.starts_with(&prefix) && l.split_whitespace().count() == 2
    });
    after_prompts(&l)
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string()
}

#[test]
fn prompts_before_a_move_line_are_skipped() {
    assert_eq!(after_prompts("White(8): Black(8): Ne5"), "Black(8): Ne5");
    assert_eq!(after_prompts("Black(8): Ne5"), "Black(8): Ne5");
    assert_eq!(
        after_prompts("White(9): depth   time"),
        "White(9): depth   time"
    );
}

fn fen_of(d: &mut Driver) -> String {
    d.send("display");
    let l = d.expect_prefix("fen ");
    l["fen ".len()..].to_string()
}

fn over(b: &Board) -> bool {
    crate::common::game_over(b)
}

#[test]
fn a_full_game_with_pondering_and_log_files() {
    let dir = temp_dir("game");
    let mut d = console();
    d.send("sd 3");
    d.send("ponder on");
    d.send("display notime");
    d.send(&format!("logpath {}", dir.display()));
    d.send("log on");
    d.expect_contains("log on: ");
    d.send("name Tester");
    let mut b = Board::startpos();
    let mut rng = Rng::new(7);
    let mut plies = 0;
    while !over(&b) && plies < 400 {
        // Our move: a random one, alternately in SAN and in coordinates.
        let mut moves: Vec<_> = b.legal_moves().iter().copied().collect();
        moves.sort();
        let mv = moves[rng.below(moves.len())];
        let text = if plies % 4 == 0 {
            mv.to_uci()
        } else {
            b.san(mv)
        };
        d.send(&text);
        b.make_move(mv);
        plies += 1;
        if over(&b) {
            break;
        }
        let (side, number) = (b.side_to_move(), b.fullmove_number());
        let reply = engine_move(&mut d, side, number);
        let m = b
            .parse_move(&reply)
            .unwrap_or_else(|e| panic!("{reply}: {e}"));
        b.make_move(m);
        plies += 1;
    }
    assert!(over(&b), "the game did not end in {plies} plies");
    let result = d.expect("a result", |l| {
        ["1-0 {", "0-1 {", "1/2-1/2 {"]
            .iter()
            .any(|r| l.contains(r))
    });
    // The game file follows the game (written before the next prompt); the log has
    // what was printed.
    d.send("echo synced");
    d.expect_contains("synced");
    let game = std::fs::read_to_string(dir.join("game.001")).unwrap();
    let g = read_all(&game).remove(0).unwrap();
    assert_eq!(g.moves.len(), plies, "{game}");
    assert_eq!(g.end_position().to_fen(), b.to_fen());
    assert!(game.contains("[Black \"kibitzer") && game.contains("[White \"Tester\"]"));
    assert!(result.contains(&g.result), "{result} / {}", g.result);
    let log = std::fs::read_to_string(dir.join("log.001")).unwrap();
    assert!(log.contains("depth   time  score   variation (1)"));
    assert!(log.contains("Black(1): "));
    d.send("log 1");
    d.send("savegame");
    d.expect_contains("savegame: expected a file");
    let saved = dir.join("saved.pgn");
    d.send(&format!("savegame {}", saved.display()));
    d.expect_contains("game saved in");
    let g2 = read_all(&std::fs::read_to_string(&saved).unwrap())
        .remove(0)
        .unwrap();
    assert_eq!(g2.moves.len(), plies);
    // A new game opens a new pair of files; the old game can be read back.
    d.send("new");
    d.send("log");
    d.expect_contains("game.002");
    d.send(&format!("read {}", dir.join("game.001").display()));
    d.expect_contains(&format!("read {plies} move(s)"));
    assert_eq!(fen_of(&mut d), b.to_fen());
    let out = d.finish();
    assert!(
        out.iter()
            .any(|l| l.contains("game saved in") && l.contains("game.002")),
        "{out:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn takebacks_reset_and_force() {
    let mut d = console();
    d.send("force e4");
    d.expect_contains("force: the last move is not the engine's");
    d.send("sd 2");
    d.send("e4");
    let x = engine_move(&mut d, Color::Black, 1);
    d.send("d4");
    let y = engine_move(&mut d, Color::Black, 2);
    d.expect_contains("White(3): ");
    let mut b = Board::startpos();
    for m in ["e4", &x, "d4", &y] {
        let mv = b.parse_move(m).unwrap();
        b.make_move(mv);
    }
    let after_y = b.to_fen();
    d.send("back 2");
    d.send("back x");
    d.expect_contains("back: 'x' is not a number of plies; usage: back [<plies>]");
    let mut b1 = Board::startpos();
    for m in ["e4", &x] {
        let mv = b1.parse_move(m).unwrap();
        b1.make_move(mv);
    }
    assert_eq!(fen_of(&mut d), b1.to_fen());
    // Forward again to move 3 (White to move), back to the start, and errors.
    d.send("reset 3");
    assert_eq!(fen_of(&mut d), after_y);
    d.send("reset 1");
    assert_eq!(fen_of(&mut d), Board::startpos().to_fen());
    d.send("reset 9");
    d.expect_contains("reset: the game only goes to ply 4");
    d.send("reset 2");
    assert_eq!(fen_of(&mut d), b1.to_fen());
    // `force <move>`: the engine's last move is replaced.
    let mut b2 = Board::startpos();
    let e4 = b2.parse_move("e4").unwrap();
    b2.make_move(e4);
    let other = ["c5", "e5", "Nf6"]
        .into_iter()
        .find(|m| b2.parse_move(m).unwrap() != b2.parse_move(&x).unwrap())
        .unwrap();
    d.send(&format!("force {other}"));
    d.expect_contains(&format!("Black(1): {other} (forced)"));
    let mv = b2.parse_move(other).unwrap();
    b2.make_move(mv);
    assert_eq!(fen_of(&mut d), b2.to_fen());
    // Another move forgets the line taken back; a move after a takeback is answered.
    d.send("reset 3");
    d.expect_contains("reset: the game only goes to ply 2");
    d.send("Nf3");
    engine_move(&mut d, Color::Black, 2);
    // Force mode: moves for both sides, nothing answered until `go`.
    d.send("new");
    d.send("force");
    d.send("e4");
    d.send("e5");
    d.send("history");
    d.expect_contains("1. e4 e5");
    d.send("go");
    engine_move(&mut d, Color::White, 2);
}

#[test]
fn setboard_edit_and_side_to_move() {
    let mut d = console();
    let fen = "4k3/8/8/8/8/8/3q4/K7 b - - 0 1";
    d.send(&format!("setboard {fen}"));
    assert_eq!(fen_of(&mut d), fen);
    d.send("setboard garbage");
    let e = d.expect_contains("setboard: ");
    assert!(e.contains("usage: setboard <fen>"), "{e}");
    // `white` hands the move to White in the same position.
    d.send("setboard 4k3/8/8/8/8/8/8/R3K3 b - - 0 1");
    d.send("white");
    d.expect_contains("White to move; kibitzer plays Black");
    assert_eq!(fen_of(&mut d), "4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    d.send("black");
    assert_eq!(fen_of(&mut d), "4k3/8/8/8/8/8/8/R3K3 b - - 0 1");
    // The editor, one token or many per line.
    d.send("new");
    d.send("edit");
    d.expect_contains("edit: pieces and squares");
    d.send("#");
    d.send("ke1 qd1");
    d.send("zz9");
    d.expect_contains("edit: 'zz9' is not a piece and a square; expected");
    d.send("c");
    d.send("ke8");
    d.send(".");
    assert_eq!(fen_of(&mut d), "4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    d.send("edit # ke1 ra1 rh1 c ke8 ph7 .");
    assert_eq!(fen_of(&mut d), "4k3/7p/8/8/8/8/8/R3K2R w KQ - 0 1");
    // A position without kings is refused and the board stays.
    d.send("edit # qa3 .");
    d.expect_contains("the position is unchanged");
    assert_eq!(fen_of(&mut d), "4k3/7p/8/8/8/8/8/R3K2R w KQ - 0 1");
    // The engine plays from an edited position.
    d.send("sd 3");
    d.send("go");
    engine_move(&mut d, Color::White, 1);
}

#[test]
fn game_files_tags_and_search() {
    let dir = temp_dir("files");
    let mut d = console();
    d.send("pgn Event Club Championship");
    d.expect_contains("[Event \"Club Championship\"]");
    d.send("pgn Date 2024.05.17");
    d.send("pgn Date soon");
    d.expect_contains("pgn: Date 'soon' is not yyyy.mm.dd");
    // A plain move list, coordinates and SAN mixed.
    let list = dir.join("moves.txt");
    std::fs::write(&list, "e2e4 e7e5\nNf3 Nc6\n").unwrap();
    d.send(&format!("read {}", list.display()));
    d.expect_contains("read 4 move(s)");
    let more = dir.join("more.txt");
    std::fs::write(&more, "3. Bb5 a6\n").unwrap();
    d.send(&format!("reada {}", more.display()));
    d.expect_contains("added 2 move(s)");
    d.send("history");
    d.expect_contains("3. Bb5 a6");
    d.send("tags");
    d.expect_contains("[Event \"Club Championship\"]");
    d.expect_contains("[Date \"2024.05.17\"]");
    // Moves from the keyboard.
    d.send("reada");
    d.send("Ba4");
    d.send("Nf6");
    d.send("exit");
    d.expect_contains("added 2 move(s) from the keyboard");
    let game = dir.join("ruy.pgn");
    d.send(&format!("savegame {}", game.display()));
    d.expect_contains("game saved in");
    let g = read_all(&std::fs::read_to_string(&game).unwrap())
        .remove(0)
        .unwrap();
    assert_eq!(g.moves.len(), 8);
    assert_eq!(g.tag("Event"), Some("Club Championship"));
    // savepos / in.
    let pos = dir.join("ruy.pos");
    d.send(&format!("savepos {}", pos.display()));
    let fen = fen_of(&mut d);
    d.send("new");
    d.send(&format!("in {}", pos.display()));
    assert_eq!(fen_of(&mut d), fen);
    // A game from a PGN file with tags; `search` shows a move's score, plays nothing.
    d.send(&format!(
        "read {}",
        data("pgn/molinari-bordais-1979.pgn").display()
    ));
    d.expect_contains("read 10 move(s)");
    d.send("reset 5");
    d.send("tags");
    d.expect_contains("[White \"Molinari\"]");
    d.send("sd 4");
    d.send("search g3");
    let l = d.expect_prefix("search g3: ");
    assert!(l.contains("-Mat01"), "{l}");
    d.send("search Kd1");
    d.expect_contains("search: 'Kd1' is not a legal move here");
    assert_eq!(
        fen_of(&mut d),
        "r1bqkb1r/pp1ppppp/5n2/2p5/1nP1P3/2N5/PP1PNPPP/R1BQKB1R w KQkq - 5 5"
    );
    // Analysis restarts on moves and `back`, `exit` leaves it.
    d.send("analyze");
    d.expect_contains("  4->");
    d.send("g3");
    d.expect_contains("5. ... Nd3#");
    d.send("back");
    d.send("exit");
    d.send("ls *.pgn");
    d.send(&format!("ls {}/*.t?t", dir.display()));
    d.expect_contains("more.txt");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn test_runs_bratko_kopec_with_a_summary_table() {
    let mut d = console();
    d.send("sd 4");
    d.send(&format!(
        "test {} 2",
        data("epd/bratko-kopec.epd").display()
    ));
    d.expect_contains("24 positions, a position ends once its solution held 2 iterations");
    d.expect_contains("position       result");
    let total = d.expect_prefix("total ");
    let summary = d.expect_prefix("solved ");
    let solved: usize = summary
        .split_whitespace()
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(summary.contains("/24"), "{summary}");
    assert!(total.contains(&format!("{solved}/24")), "{total}");
    let rows = d
        .lines()
        .iter()
        .filter(|l| l.contains(" solved ") || l.contains(" MISSED "))
        .count();
    assert_eq!(rows, 24, "{}", d.text());
    let solved_rows = d.lines().iter().filter(|l| l.contains(" solved ")).count();
    assert_eq!(solved_rows, solved);
}

#[test]
fn help_comes_from_the_command_table() {
    let mut d = console();
    // `help` is a one-screen overview by topic naming every command.
    d.send("help");
    d.expect_contains("`help all` lists them");
    let all = d.lines();
    let from = all
        .iter()
        .rposition(|l| l.contains("commands by topic"))
        .expect("the overview");
    let to = all
        .iter()
        .rposition(|l| l.contains("`help all` lists them"))
        .unwrap();
    assert!(to - from < 30, "{:?}", &all[from..=to]);
    let overview = all[from..=to].join("\n");
    for c in COMMANDS {
        assert!(
            overview.split_whitespace().any(|w| w == c.names[0]),
            "the overview does not name {}",
            c.names[0]
        );
    }
    assert!(
        !overview.contains("  other "),
        "a command without a topic: {overview}"
    );
    d.send("help all");
    d.expect_contains("commands:");
    let text = d.expect_contains("options (name = value");
    assert!(text.contains("options"));
    let lines = d.lines();
    for c in COMMANDS {
        assert!(
            lines.iter().any(|l| l.trim_start().starts_with(&c.usage())),
            "help does not list {}",
            c.usage()
        );
    }
    d.send("help annotate");
    d.expect_contains("annotate <file> <w|b|wb|name>");
    d.send("help sd");
    d.expect_contains("option sd ");
    d.send("help mt");
    d.expect_contains("smpmt|mt <threads>: search threads");
    d.send("help nosuch");
    d.expect_contains("help: no command or option 'nosuch'; usage: help [<command>]");
}

/// Arguments each command refuses (commands without arguments get one they must
/// refuse; option commands get a value of the wrong type).
fn bad_arguments(name: &str, option: Option<&str>, dir: &Path) -> Option<String> {
    let missing = dir.join("missing").display().to_string();
    Some(match name {
        "echo" => return None, // prints any text
        "annotate" | "annotateh" => "game.pgn w".into(),
        "ansi" => "maybe".into(),
        "back" => "x".into(),
        "book" => "frobnicate".into(),
        "books" => "destroy".into(),
        "bookw" => "speed 1".into(),
        "clock" => "x".into(),
        "display" => "frobnicate".into(),
        "edit" => "zz9 .".into(),
        "evaluation" | "extensions" => "nosuch 1".into(),
        "force" => "Ke8".into(),
        "help" => "nosuch".into(),
        "import" => "a b c".into(),
        "input" | "in" | "read" | "reada" => missing,
        "level" => "x y z".into(),
        "list" => "XX".into(),
        "log" => "maybe".into(),
        "ls" => format!("{missing}/*"),
        "name" => String::new(),
        "perf" => "x".into(),
        "perft" => "99".into(),
        "pgn" => "Date soon".into(),
        "ponder" => "maybe".into(),
        "reset" => "0".into(),
        "savegame" | "savepos" => format!("{missing}/x"),
        "search" => "Ke8".into(),
        "settc" => "x".into(),
        "setboard" => "garbage".into(),
        "show" => "moves".into(),
        "test" => missing,
        "time" => "soon".into(),
        "trace" => "x".into(),
        _ => match option.and_then(lookup).map(|s| s.kind) {
            Some(Kind::Bool) | Some(Kind::Enum(_)) => "maybe".into(),
            Some(Kind::Int { .. }) | Some(Kind::Time { .. }) | Some(Kind::Level) => "x".into(),
            Some(Kind::Size { .. }) => "lots".into(),
            Some(Kind::Str) => missing,
            Some(k) => panic!("{name}: no bad value for {k:?}"),
            None => panic!("{name} takes arguments: give it bad ones here"),
        },
    })
}

#[test]
fn every_command_refuses_bad_arguments_in_one_line() {
    let dir = temp_dir("errors");
    let mut d = console();
    let mut sent = Vec::new();
    for c in COMMANDS {
        for &name in c.names {
            let args = if c.takes_args() {
                match bad_arguments(name, c.option, &dir) {
                    Some(a) => a,
                    None => continue,
                }
            } else {
                "bogus".to_string()
            };
            let line = format!("{name} {args}");
            d.send(line.trim());
            let want = format!("{name}: ");
            let e = d.expect(&want.clone(), move |l| {
                l.contains(&want) && (l.contains("usage:") || l.contains("expected"))
            });
            let e = &e[e.find(&format!("{name}: ")).unwrap()..];
            if !c.takes_args() {
                assert!(e.contains("takes no arguments"), "{e}");
            }
            assert!(
                e.contains("usage:") || e.contains("expected"),
                "{name}: the error does not say what was expected: {e}"
            );
            if name != "edit" {
                assert!(e.ends_with(&c.usage()), "{name}: {e}");
            }
            sent.push(name);
        }
    }
    // Nothing of that changed the game.
    d.send("display");
    d.expect_contains("fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let names: usize = COMMANDS.iter().map(|c| c.names.len()).sum();
    assert_eq!(sent.len(), names - 1, "every name but echo");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs the binary with piped input in `cwd` with `HOME` set; returns its output.
fn kibitzer(cwd: &Path, home: &Path, args: &[&str], input: &str) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kibitzer"))
        .args(["--set", "hash=8M", "--set", "noise=0"])
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("KIBITZER_HASH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kibitzer");
    // A run that fails at start (`--rc /nonexistent/rc`) may exit before reading:
    // the pipe is then closed, which is not this test's failure.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

#[test]
fn the_start_up_file_through_the_binary() {
    let base = temp_dir("rc");
    let (cwd, home) = (base.join("cwd"), base.join("home"));
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        cwd.join(RC_NAME),
        "sd 3\necho rc-here\nsetboard 4k3/8/8/8/8/8/8/R3K3 w - - 0 1\nexit\necho not-reached\n",
    )
    .unwrap();
    std::fs::write(home.join(RC_NAME), "echo rc-home\n").unwrap();
    // The working directory's file first, lines up to `exit`, before the first command.
    let (ok, out) = kibitzer(&cwd, &home, &[], "display\nquit\n");
    assert!(ok, "{out}");
    assert!(out.contains("sd 3") && out.contains("rc-here"), "{out}");
    assert!(
        !out.contains("not-reached") && !out.contains("rc-home"),
        "{out}"
    );
    assert!(out.contains("fen 4k3/8/8/8/8/8/8/R3K3 w - - 0 1"), "{out}");
    assert!(out.find("rc-here") < out.find("fen 4k3"), "{out}");
    // Then the home directory's; `--rc` names one; `--no-rc` runs none.
    std::fs::remove_file(cwd.join(RC_NAME)).unwrap();
    let (_, out) = kibitzer(&cwd, &home, &[], "quit\n");
    assert!(out.contains("rc-home"), "{out}");
    let other = base.join("other.rc");
    std::fs::write(&other, "echo rc-other\nsd 2\n").unwrap();
    let (_, out) = kibitzer(&cwd, &home, &["--rc", other.to_str().unwrap()], "go\n");
    assert!(
        out.contains("rc-other") && !out.contains("rc-home"),
        "{out}"
    );
    assert!(out.contains("White(1): "), "the engine played: {out}");
    let (_, out) = kibitzer(&cwd, &home, &["--no-rc"], "echo typed\nquit\n");
    assert!(out.contains("typed") && !out.contains("rc-home"), "{out}");
    let (ok, out) = kibitzer(&cwd, &home, &["--rc", "/nonexistent/rc"], "quit\n");
    assert!(!ok && out.contains("--rc"), "{out}");
    // A GUI that starts with `uci` sees nothing of the file.
    let (_, out) = kibitzer(&cwd, &home, &[], "uci\nquit\n");
    assert!(out.contains("uciok") && !out.contains("rc-home"), "{out}");
    // Lists are files under lists/ in the working directory.
    let (_, out) = kibitzer(
        &cwd,
        &home,
        &["--no-rc"],
        "list GM +Carlsen +nobody -nobody
quit
",
    );
    assert!(out.contains("list GM: carlsen (file lists/GM)"), "{out}");
    assert_eq!(
        std::fs::read_to_string(cwd.join("lists/GM")).unwrap(),
        "carlsen\n"
    );
    // `input` runs a file the same way.
    let script = base.join("script");
    std::fs::write(&script, "echo from-input\nexit\necho after-exit\n").unwrap();
    let (_, out) = kibitzer(
        &cwd,
        &home,
        &["--no-rc"],
        &format!("input {}\nquit\n", script.display()),
    );
    assert!(
        out.contains("from-input") && !out.contains("after-exit"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn clocks_draws_and_settings() {
    let clock = std::sync::Arc::new(kibitzer::engine::time::ManualClock::default());
    let mut d = Driver::start_with(Protocol::Console, test_options(), Some(clock));
    d.send("level 40 5 0");
    // The engine plays Black in a new game: its clock first.
    d.send("clock 30 1:00");
    d.expect_contains("clock: White 1:00:00  Black 30:00");
    d.send("settc 10 2 3");
    d.expect_contains("clock: White 3:00  Black 2:00");
    // An offer before move 20, with no search behind it: declined, and the game
    // goes on.
    d.send("draw");
    d.expect_contains("kibitzer declines the draw");
    d.send("force");
    d.send("e4");
    d.expect_contains("Black(1)");
    d.send("new");
    d.send("computer");
    d.expect_contains("the opponent is a computer");
    d.send("display knight");
    d.expect_contains("white knight: piece-square values");
    d.send("trace 1");
    d.expect_contains("display.moves on");
    d.send("whisper 3");
    d.expect_contains("whisper 3");
    d.send("swindle off");
    d.expect_contains("swindle off");
    d.send("cache=2M");
    d.expect_contains("cache 2M");
    d.send(&format!("tbpath {}", data("syzygy").display()));
    d.send("egtb");
    d.expect_contains("largest complete set: 4-piece");
    d.send("mt 1");
    d.expect_contains("threads 1");
    d.send("alarm on");
    d.expect_contains("alarm on");
    d.send("info");
    d.expect_contains("kibitzer plays Black");
}
