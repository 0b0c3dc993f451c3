//! The binary's subcommands as a user runs them: exit status, what is printed on
//! stdout and stderr, and that nothing hangs.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one run of the binary left.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `kibitzer args` with `input` on stdin and the environment changes in `env`
/// (an empty value removes the variable); fails the test if it runs past `limit`.
pub fn run_with(args: &[&str], input: &str, env: &[(&str, &str)], limit: Duration) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kibitzer"));
    cmd.args(args)
        .env_remove("KIBITZER_HASH")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        if v.is_empty() {
            cmd.env_remove(k);
        } else {
            cmd.env(k, v);
        }
    }
    let mut child = cmd.spawn().expect("run kibitzer");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let e = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = String::from_utf8_lossy(&o.join().unwrap()).into_owned();
            panic!("kibitzer {args:?} ran past {limit:?}; printed:\n{stdout}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = feeder.join();
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&o.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&e.join().unwrap()).into_owned(),
    }
}

pub fn run(args: &[&str]) -> Run {
    run_with(args, "", &[], Duration::from_secs(60))
}

const MATED: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
const STALEMATE: &str = "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1";

#[test]
fn analyze_names_mate_and_stalemate_and_exits() {
    let limit = Duration::from_secs(20);
    for extra in [&[][..], &["--depth", "3"], &["--time", "0.5"]] {
        let mut args = vec!["analyze", MATED];
        args.extend_from_slice(extra);
        let r = run_with(&args, "", &[], limit);
        assert!(r.ok(), "{r}");
        assert_eq!(
            r.stdout.trim(),
            "checkmate: White is mated, Black wins",
            "{r}"
        );
        let mut args = vec!["analyze", STALEMATE];
        args.extend_from_slice(extra);
        let r = run_with(&args, "", &[], limit);
        assert!(r.ok(), "{r}");
        assert!(r.stdout.trim().starts_with("stalemate"), "{r}");
        assert!(!r.stdout.contains("0000"), "{r}");
    }
}

#[test]
fn analyze_prints_the_consoles_crafty_lines() {
    // Black to move: move numbers `1. ...`, signed scores from White's side.
    let fen = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
    let r = run(&["analyze", fen, "--depth", "5"]);
    assert!(r.ok(), "{r}");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], kibitzer::format::HEADER, "{r}");
    let five = lines
        .iter()
        .find(|l| l.starts_with("  5->"))
        .unwrap_or_else(|| panic!("no depth 5 line: {r}"));
    let fields: Vec<&str> = five.split_whitespace().collect();
    let score = fields[2];
    assert!(
        score == "0.00" || score.starts_with('+') || score.starts_with('-'),
        "{five}"
    );
    assert_eq!(fields[3..5], ["1.", "..."], "{five}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("time: ") && l.contains("nps:")),
        "{r}"
    );
    let last = lines.last().unwrap();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert!(
        words.len() == 4 && words[0] == "best" && words[2] == "ponder",
        "{last}"
    );
    assert!(
        !r.stdout.contains("Some(") && !r.stdout.contains("None"),
        "{r}"
    );
}

/// A fresh empty directory for one test.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kibitzer-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `suite.epd` in `dir`, holding `text`.
fn suite_file(dir: &std::path::Path, text: &str) -> std::path::PathBuf {
    let suite = dir.join("suite.epd");
    std::fs::write(&suite, text).unwrap();
    suite
}

#[test]
fn test_prints_aligned_rows_and_refuses_an_empty_suite() {
    let dir = temp_dir("suite");
    let suite = suite_file(
        &dir,
        "4k3/8/8/8/8/8/8/R3K3 w - - bm Ra8+; id \"a long position name here\";\n\
         2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"m2\";\n",
    );
    let r = run(&["test", suite.to_str().unwrap(), "--depth", "3"]);
    assert!(r.ok(), "{r}");
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].starts_with("position "), "{r}");
    // Header and rows: the result column after the longest id, one line length.
    let col = "a long position name here".len() + 1;
    for l in &lines[..3] {
        assert_eq!(&l[col - 1..col], " ", "{r}");
        assert_ne!(&l[col..col + 1], " ", "{r}");
        assert_eq!(l.len(), lines[0].len(), "{r}");
    }
    assert!(
        lines[3].starts_with("solved ") && lines[3].contains("/2"),
        "{r}"
    );
    // Empty, comment-only and unreadable suites are errors naming the file.
    let empty = dir.join("empty.epd");
    std::fs::write(&empty, "# nothing here\n\n").unwrap();
    for f in [empty.clone(), dir.join("missing.epd")] {
        let r = run(&["test", f.to_str().unwrap(), "--depth", "1"]);
        assert!(!r.ok(), "{r}");
        assert!(r.stderr.contains(f.to_str().unwrap()), "{r}");
        assert!(!r.stdout.contains("solved 0/0"), "{r}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The node count of `test`'s summary (`solved 2/2  time ...  nodes N  nps ...`) or of
/// `analyze`'s last iteration (`... n:N  nps:...`).
fn nodes_of(r: &Run) -> u64 {
    for l in r.stdout.lines().rev() {
        let mut words = l.split_whitespace();
        while let Some(w) = words.next() {
            if w == "nodes" {
                return words.next().unwrap().parse().unwrap();
            }
            if let Some(n) = w.strip_prefix("n:") {
                return n.parse().unwrap();
            }
        }
    }
    panic!("no node count in\n{r}");
}

#[test]
fn test_and_analyze_search_with_the_knobs_set_on_the_command_line() {
    let dir = temp_dir("knobs");
    let suite = suite_file(
        &dir,
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"m2\";\n\
         r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - bm Bxc6; id \"p2\";\n\
         r4q1k/p2bR1rp/2p2Q1N/5p2/5p2/2P5/PP3PPP/R5K1 w - - bm Rf7; id \"WAC.008\";\n",
    );
    let suite = suite.to_str().unwrap();
    // Depth-limited with one thread: the node count is the same on every run, so a
    // knob that reaches the search changes it, and one that does not leaves it.
    let plain = run(&["test", suite, "--depth", "9"]);
    assert!(plain.ok(), "{plain}");
    let again = run(&["test", suite, "--depth", "9"]);
    assert_eq!(nodes_of(&plain), nodes_of(&again), "{plain}\n{again}");
    for knob in [
        "extensions.incheck=0",
        "extensions.mate=1",
        "evaluation.kscale=50",
    ] {
        let r = run(&["test", suite, "--depth", "9", "--set", knob]);
        assert!(r.ok(), "{r}");
        assert_ne!(
            nodes_of(&r),
            nodes_of(&plain),
            "--set {knob} had no effect\n{r}"
        );
    }
    let fen = "r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1";
    let a = run(&["analyze", fen, "--depth", "6"]);
    let b = run(&[
        "analyze",
        fen,
        "--depth",
        "6",
        "--set",
        "extensions.incheck=0",
    ]);
    assert!(a.ok() && b.ok(), "{a}\n{b}");
    assert_ne!(nodes_of(&a), nodes_of(&b), "{a}\n{b}");
    // A bad knob names itself; nothing is searched.
    let r = run(&[
        "test",
        suite,
        "--depth",
        "3",
        "--set",
        "extensions.incheck=7",
    ]);
    assert!(!r.ok(), "{r}");
    assert!(r.stderr.contains("incheck"), "{r}");
    assert!(!r.stdout.contains("solved"), "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small PGN with results (book create counts only games with one).
const GAMES: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n\
[Event \"b\"]\n[Result \"0-1\"]\n\n1. d4 d5 2. c4 e6 0-1\n";

#[test]
fn user_errors_are_one_message_without_a_backtrace() {
    let dir = temp_dir("errors");
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "").unwrap();
    let games = dir.join("games.pgn");
    std::fs::write(&games, GAMES).unwrap();
    let out = dir.join("out.bin");
    let (empty, games, out) = (
        empty.to_str().unwrap(),
        games.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let dir_s = dir.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["--set", "foo=1"], "unknown option 'foo'"),
        (vec!["--set", "hash=1X"], "'1X'"),
        (
            vec!["analyze", "garbage"],
            "bad FEN 'garbage': the board has 1 rank;",
        ),
        (
            vec!["book", "create", empty, "30", "--out", out],
            "no usable game",
        ),
        (
            vec!["book", "create", "/nonexistent/g.pgn", "30", "--out", out],
            "/nonexistent/g.pgn: no such file",
        ),
        (
            vec![
                "book",
                "create",
                games,
                "30",
                "--out",
                "/nonexistent-dir/b.bin",
            ],
            "--out /nonexistent-dir/b.bin: the directory /nonexistent-dir does not exist",
        ),
        (vec!["book", "show", dir_s, "garbage"], "bad FEN 'garbage'"),
    ];
    let env = [("RUST_BACKTRACE", "1"), ("RUST_LIB_BACKTRACE", "1")];
    for (args, want) in cases {
        let r = run_with(&args, "", &env, Duration::from_secs(60));
        assert_eq!(r.code, Some(1), "{args:?}: {r}");
        assert!(r.stderr.contains(want), "{args:?}: {r}");
        let error_lines: Vec<&str> = r
            .stderr
            .lines()
            .filter(|l| l.starts_with("kibitzer: "))
            .collect();
        assert_eq!(error_lines.len(), 1, "{args:?}: {r}");
        assert_eq!(r.stderr.lines().last(), error_lines.last().copied(), "{r}");
        for bad in ["backtrace", "Backtrace", "Caused by", ".tmp.", "panicked"] {
            assert!(!r.stderr.contains(bad), "{args:?}: {r}");
        }
        assert!(r.stderr.matches("(os error").count() <= 1, "{args:?}: {r}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Builds `dir/book.bin` from `GAMES` and returns its bytes.
fn make_book(dir: &std::path::Path) -> Vec<u8> {
    let pgn = dir.join("games.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let book = dir.join("book.bin");
    let r = run(&[
        "book",
        "create",
        pgn.to_str().unwrap(),
        "30",
        "--out",
        book.to_str().unwrap(),
    ]);
    assert!(r.ok(), "{r}");
    std::fs::read(&book).unwrap()
}

fn set_aside_files(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".broken-"))
        .collect()
}

#[test]
fn book_show_only_looks_and_fails_on_a_broken_or_missing_book() {
    let dir = temp_dir("show");
    let good = make_book(&dir);
    let d = dir.to_str().unwrap();
    let r = run(&["book", "show", d]);
    assert!(r.ok(), "{r}");
    assert!(r.stdout.contains("e4") && r.stdout.contains("d4"), "{r}");
    // A broken book: reported, exit 1, the file left exactly as it was.
    let mut broken = good.clone();
    let n = broken.len();
    broken[n - 3] ^= 0xff;
    std::fs::write(dir.join("book.bin"), &broken).unwrap();
    let r = run(&["book", "show", d]);
    assert_eq!(r.code, Some(1), "{r}");
    assert!(r.stdout.contains("left as it is"), "{r}");
    assert!(r.stderr.contains("nothing was changed"), "{r}");
    assert_eq!(std::fs::read(dir.join("book.bin")).unwrap(), broken);
    assert!(
        set_aside_files(&dir).is_empty(),
        "{:?}",
        set_aside_files(&dir)
    );
    // No such directory, a file instead of a directory, a directory without a book.
    let file = dir.join("games.pgn");
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for (arg, want) in [
        ("/nonexistent/books", "no such directory"),
        (file.to_str().unwrap(), "not a directory"),
        (empty.to_str().unwrap(), "no book there"),
    ] {
        let r = run(&["book", "show", arg]);
        assert_eq!(r.code, Some(1), "{arg}: {r}");
        assert!(r.stderr.contains(want), "{arg}: {r}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_console_reports_a_broken_book_at_start_and_sets_it_aside_with_a_utc_time() {
    let dir = temp_dir("console-book");
    let mut book = make_book(&dir);
    let n = book.len();
    book[n - 3] ^= 0xff;
    std::fs::write(dir.join("book.bin"), &book).unwrap();
    let bookpath = format!("bookpath={}", dir.display());
    let r = run_with(
        &["--no-rc", "--set", "hash=8M", "--set", &bookpath],
        "echo first-command\nquit\n",
        &[],
        Duration::from_secs(30),
    );
    let out = &r.stdout;
    let note = out
        .find("fails its checksum")
        .unwrap_or_else(|| panic!("no note: {r}"));
    assert!(note < out.find("first-command").unwrap(), "{r}");
    let aside = set_aside_files(&dir);
    assert_eq!(aside.len(), 1, "{aside:?}");
    let stamp = aside[0].strip_prefix("book.bin.broken-").unwrap();
    // 20261201T213000Z
    assert_eq!(stamp.len(), 16, "{stamp}");
    assert!(
        stamp[..8].bytes().all(|b| b.is_ascii_digit())
            && &stamp[8..9] == "T"
            && stamp[9..15].bytes().all(|b| b.is_ascii_digit())
            && stamp.ends_with('Z'),
        "{stamp}"
    );
    assert!(out.contains(&aside[0]), "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn binary_files_are_refused_with_one_clean_line() {
    let dir = temp_dir("binary");
    let bin = dir.join("prog");
    // Looks like an executable, with a command line inside.
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\n".to_vec();
    bytes.extend_from_slice(b"echo pwned\nquit\n\x1b[2J\0\x01\x02");
    std::fs::write(&bin, &bytes).unwrap();
    let b = bin.to_str().unwrap();
    let r = run_with(
        &["--no-rc", "--set", "hash=8M"],
        &format!("in {b}\nread {b}\necho still-here\nquit\n"),
        &[],
        Duration::from_secs(30),
    );
    assert!(!r.stdout.contains("pwned"), "{r}");
    assert_eq!(r.stdout.matches("not a text file").count(), 2, "{r}");
    assert!(r.stdout.contains("still-here"), "{r}");
    let r = run(&[
        "book",
        "create",
        b,
        "30",
        "--out",
        dir.join("b.bin").to_str().unwrap(),
    ]);
    assert_eq!(r.code, Some(1), "{r}");
    assert!(r.stderr.contains("not a text file"), "{r}");
    assert_eq!(r.stderr.lines().count(), 1, "{r}");
    for text in [&r.stdout, &r.stderr] {
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "{text:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn book_create_keeps_the_plies_before_an_unreadable_move_beyond_maxply() {
    let dir = temp_dir("partial");
    let pgn = dir.join("g.pgn");
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Z0 a6 1-0\n\n\
         [Result \"0-1\"]\n\n1. d4 Z0 2. c4 0-1\n",
    )
    .unwrap();
    let out = dir.join("b.bin");
    let r = run(&[
        "book",
        "create",
        pgn.to_str().unwrap(),
        "4",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(r.ok(), "{r}");
    assert!(
        r.stderr.contains("game 1: line 3: move 3.: 'Z0'")
            && r.stderr
                .contains("the 4 plies before it (within maxply) are used"),
        "{r}"
    );
    assert!(r.stderr.contains("skipped game 2:"), "{r}");
    assert!(
        r.stdout
            .contains("2 games read, 1 used, 1 skipped; 4 plies"),
        "{r}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_console_says_its_level_and_answers_a_first_move_in_seconds() {
    let start = std::time::Instant::now();
    let r = run_with(
        &["--no-rc", "--set", "hash=16M"],
        "e4\n",
        &[],
        Duration::from_secs(120),
    );
    let took = start.elapsed();
    assert!(r.ok(), "{r}");
    let level = r
        .stdout
        .find("level 0 5 3")
        .unwrap_or_else(|| panic!("{r}"));
    let reply = r.stdout.find("Black(1): ").unwrap_or_else(|| panic!("{r}"));
    assert!(level < reply, "{r}");
    // The engine's first reply with the default level (the input ends after `e4`,
    // so the process ends once the engine has moved).
    assert!(took < Duration::from_secs(30), "first reply took {took:?}");
}

#[test]
fn daemon_check_reports_every_problem_and_names_its_source() {
    let dir = temp_dir("check");
    let cfg = dir.join("k.toml");
    std::fs::write(
        &cfg,
        "hash = true\n[ics]\nport = 70000\nsevrer = \"x\"\n[bot]\nmin_time = 9\nmax_time = 3\n",
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    let no_pw = [("KIBITZER_PASSWORD", "")];
    let r = run_with(
        &["daemon", "--check", "--config", c],
        "",
        &no_pw,
        Duration::from_secs(30),
    );
    assert_eq!(r.code, Some(2), "{r}");
    for want in [
        "4 problems",
        "key `hash`: 'true' is not accepted",
        "ics.port",
        "ics.sevrer",
        "bot.min_time",
    ] {
        assert!(r.stderr.contains(want), "{want}: {r}");
    }
    assert!(!r.stderr.contains("'on'"), "{r}");
    // A flag is named as the flag; the environment as the variable.
    let ok = dir.join("ok.toml");
    std::fs::write(&ok, "[ics]\nserver = \"127.0.0.1\"\n").unwrap();
    let o = ok.to_str().unwrap();
    let r = run_with(
        &["daemon", "--check", "--config", o, "--port", "0"],
        "",
        &no_pw,
        Duration::from_secs(30),
    );
    assert_eq!(r.code, Some(2), "{r}");
    assert!(
        r.stderr.contains("command line --port: key `ics.port`"),
        "{r}"
    );
    assert!(!r.stderr.contains("--set"), "{r}");
    let r = run_with(
        &["daemon", "--check", "--config", o],
        "",
        &[("KIBITZER_HASH", "abc"), ("KIBITZER_PASSWORD", "")],
        Duration::from_secs(30),
    );
    assert_eq!(r.code, Some(2), "{r}");
    assert!(
        r.stderr.contains("environment variable KIBITZER_HASH"),
        "{r}"
    );
    // Handles a server refuses, and a registered one without a password.
    for (handle, want) in [
        ("bad name!", "not a handle a server accepts"),
        ("alice", "no password is given"),
    ] {
        let r = run_with(
            &["daemon", "--check", "--config", o, "--handle", handle],
            "",
            &no_pw,
            Duration::from_secs(30),
        );
        assert_eq!(r.code, Some(2), "{handle}: {r}");
        assert!(r.stderr.contains(want), "{handle}: {r}");
    }
    // A good configuration: OK, and the line the daemon prints at start.
    let r = run_with(
        &[
            "daemon",
            "--check",
            "--config",
            o,
            "--set",
            "bookpath=/srv/books",
        ],
        "",
        &no_pw,
        Duration::from_secs(30),
    );
    assert!(r.ok(), "{r}");
    let line = r
        .stdout
        .lines()
        .find(|l| l.starts_with("kibitzer daemon: "))
        .unwrap_or_else(|| panic!("{r}"));
    for want in [
        "127.0.0.1:5000",
        "as guest",
        o,
        "/srv/books",
        "records in records",
    ] {
        assert!(line.contains(want), "{want}: {line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_environment_value_is_as_fatal_as_a_bad_set() {
    let r = run_with(
        &["--no-rc"],
        "quit\n",
        &[("KIBITZER_HASH", "abc")],
        Duration::from_secs(30),
    );
    assert_eq!(r.code, Some(1), "{r}");
    assert!(
        r.stderr.contains("environment variable KIBITZER_HASH") && r.stderr.contains("'abc'"),
        "{r}"
    );
    assert!(!r.stdout.contains("White(1)"), "{r}");
}

/// The secrets the README tells operators to set, the configuration file's path and
/// the test harness's own variables are not options for any command; a misspelt
/// option is still an error that names the variable.
#[test]
fn secrets_and_harness_variables_are_not_options_for_any_command() {
    let dir = temp_dir("envvars");
    let cfg = dir.join("k.toml");
    std::fs::write(&cfg, "[ics]\nserver = \"127.0.0.1\"\n").unwrap();
    let env = [
        ("KIBITZER_LICHESS_TOKEN", "lip_secret_abc"),
        ("KIBITZER_WEB_TOKEN", "web-secret-xyz"),
        ("KIBITZER_SCREENSHOT", "/tmp/page.png"),
        ("KIBITZER_MEASURE_SERIES", "1,1"),
        ("KIBITZER_CONFIG", cfg.to_str().unwrap()),
        ("KIBITZER_PASSWORD", ""),
    ];
    let uci = run_with(&["uci"], "uci\nquit\n", &env, Duration::from_secs(30));
    assert!(uci.ok() && uci.stdout.contains("uciok"), "{uci}");
    let console = run_with(&["--no-rc"], "quit\n", &env, Duration::from_secs(30));
    assert!(console.ok(), "{console}");
    let check = run_with(&["daemon", "--check"], "", &env, Duration::from_secs(30));
    assert!(check.ok(), "{check}");
    let perft = run_with(&["perft", "2"], "", &env, Duration::from_secs(30));
    assert!(perft.ok() && perft.stdout.contains("400"), "{perft}");
    for r in [&uci, &console, &check, &perft] {
        assert!(!r.stderr.contains("unknown option"), "{r}");
        for secret in ["lip_secret_abc", "web-secret-xyz"] {
            assert!(
                !r.stdout.contains(secret) && !r.stderr.contains(secret),
                "{r}"
            );
        }
    }
    // A variable that looks like an option and is not one keeps its clear error.
    let mut bad = env.to_vec();
    bad.push(("KIBITZER_HAHS", "64M"));
    for args in [&["uci"][..], &["daemon", "--check"][..]] {
        let r = run_with(args, "uci\nquit\n", &bad, Duration::from_secs(30));
        assert!(!r.ok(), "{args:?}: {r}");
        assert!(r.stderr.contains("KIBITZER_HAHS"), "{args:?}: {r}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `perft 99` ran forever in silence: now a clear error; a deep count prints each
/// depth as it finishes; Ctrl-C says where it stopped; and `perft`/`bench` refuse a
/// bad `--set` or environment value like every other command.
#[test]
fn perft_is_capped_shows_progress_and_tools_refuse_bad_options() {
    let t = Duration::from_secs(60);
    let deep = run_with(&["perft", "99"], "", &[], t);
    assert_eq!(deep.code, Some(1), "{deep}");
    assert!(
        deep.stderr.contains("perft depth 99: give 1 to 12"),
        "{deep}"
    );
    let p = run_with(&["perft", "3"], "", &[], t);
    assert!(p.ok(), "{p}");
    let lines: Vec<&str> = p.stdout.lines().collect();
    assert!(lines[0].starts_with("perft 1: 20 nodes"), "{p}");
    assert!(lines[1].starts_with("perft 2: 400 nodes"), "{p}");
    assert!(lines[2].starts_with("perft 3: 8902 nodes"), "{p}");
    for args in [&["perft", "2"][..], &["bench", "1"][..]] {
        let mut a = vec!["--set", "hash=1X"];
        a.extend_from_slice(args);
        let r = run_with(&a, "", &[], t);
        assert_eq!(r.code, Some(1), "{r}");
        assert!(r.stderr.contains("--set: option hash: '1X'"), "{r}");
        let r = run_with(args, "", &[("KIBITZER_HASH", "abc")], t);
        assert_eq!(r.code, Some(1), "{r}");
        assert!(r.stderr.contains("KIBITZER_HASH"), "{r}");
    }
    // Ctrl-C during a long count.
    let child = Command::new(env!("CARGO_BIN_EXE_kibitzer"))
        .args(["perft", "12"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("perft: interrupted"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("perft 4: 197281 nodes"));
}

/// Bad input at the door: a directory or a binary file given as the configuration
/// is named as such (no raw bytes on the terminal), and a 3 MB line pasted at the
/// console comes back as one short line, not twice in full.
#[test]
fn bad_config_files_and_huge_console_lines_get_short_clear_answers() {
    let t = Duration::from_secs(60);
    let dir = std::env::temp_dir();
    let d = run_with(
        &["daemon", "--check", "--config", dir.to_str().unwrap()],
        "",
        &[],
        t,
    );
    assert_ne!(d.code, Some(0), "{d}");
    assert!(
        d.stderr
            .contains("is a directory, not a configuration file"),
        "{d}"
    );
    let bin = run_with(
        &[
            "daemon",
            "--check",
            "--config",
            env!("CARGO_BIN_EXE_kibitzer"),
        ],
        "",
        &[],
        t,
    );
    assert_ne!(bin.code, Some(0), "{bin}");
    assert!(bin.stderr.contains("not a text file"), "{bin}");
    assert!(bin.stderr.len() < 400, "{bin}");
    assert!(!bin.stderr.contains('\u{7f}'), "{bin}");
    let huge = format!("{}\nquit\n", "x".repeat(3_000_000));
    let c = run_with(&["console", "--no-rc"], &huge, &[], t);
    assert!(c.ok(), "exit {:?}", c.code);
    assert!(c.stdout.len() < 2_000, "{} bytes back", c.stdout.len());
    assert!(c
        .stdout
        .contains("input line of 3000000 characters ignored"));
}

/// `book create` checks what it can before reading a large PGN: maxply 0 (an empty
/// book), an --out directory that does not exist, a PGN that is not there.
#[test]
fn book_create_refuses_hopeless_arguments_at_once() {
    let t = Duration::from_secs(30);
    let pgn = std::env::temp_dir().join(format!("kib-bc-{}.pgn", std::process::id()));
    std::fs::write(&pgn, "[Result \"1-0\"]\n\n1. e4 e5 1-0\n").unwrap();
    let p = pgn.to_str().unwrap();
    let zero = run_with(&["book", "create", p, "0"], "", &[], t);
    assert_eq!(zero.code, Some(1), "{zero}");
    assert!(zero.stderr.contains("maxply 0"), "{zero}");
    let missing = run_with(
        &[
            "book",
            "create",
            p,
            "20",
            "--out",
            "/nonexistent-kib/book.bin",
        ],
        "",
        &[],
        t,
    );
    assert_eq!(missing.code, Some(1), "{missing}");
    assert!(
        missing.stderr.contains("/nonexistent-kib does not exist"),
        "{missing}"
    );
    let nopgn = run_with(
        &["book", "create", "/nonexistent-kib.pgn", "20"],
        "",
        &[],
        t,
    );
    assert_eq!(nopgn.code, Some(1), "{nopgn}");
    assert!(nopgn.stderr.contains("no such file"), "{nopgn}");
    let _ = std::fs::remove_file(&pgn);
}

/// The first run has no book.bin: `daemon --check` says so (and where it looked)
/// instead of "book and learning in book"; with a book.bin it says the book is there.
#[test]
fn daemon_check_says_when_there_is_no_opening_book() {
    let t = Duration::from_secs(30);
    let dir = std::env::temp_dir().join(format!("kib-nobook-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let set = format!("bookpath={}", dir.display());
    let r = run_with(&["daemon", "--check", "--set", &set], "", &[], t);
    assert!(r.ok(), "{r}");
    assert!(r.stdout.contains("NO OPENING BOOK"), "{r}");
    assert!(
        r.stdout
            .contains(&format!("{}", dir.join("book.bin").display())),
        "{r}"
    );
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n").unwrap();
    let out = dir.join("book.bin");
    let b = run_with(
        &[
            "book",
            "create",
            pgn.to_str().unwrap(),
            "10",
            "--out",
            out.to_str().unwrap(),
        ],
        "",
        &[],
        t,
    );
    assert!(b.ok(), "{b}");
    let r = run_with(&["daemon", "--check", "--set", &set], "", &[], t);
    assert!(r.stdout.contains("book and learning in"), "{r}");
    assert!(!r.stdout.contains("NO OPENING BOOK"), "{r}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-C at the console: the first stops the engine's search and the console goes
/// on; two within a second quit after saving the game to a PGN file it names.
#[test]
fn console_ctrl_c_stops_the_search_then_quits_saving_the_game() {
    let dir = std::env::temp_dir().join(format!("kib-ctrlc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_kibitzer"))
        .args(["console", "--no-rc"])
        .current_dir(&dir)
        .env_remove("KIBITZER_HASH")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"st 60\ne4\n").unwrap();
    stdin.flush().unwrap();
    let int = |pid: u32| {
        let _ = Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status();
    };
    std::thread::sleep(Duration::from_millis(1500));
    int(child.id());
    std::thread::sleep(Duration::from_millis(1500));
    // Still there after the first: it answers a command.
    stdin.write_all(b"echo still here\n").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(Duration::from_millis(500));
    int(child.id());
    std::thread::sleep(Duration::from_millis(200));
    int(child.id());
    let t0 = Instant::now();
    let out = loop {
        if let Some(_s) = child.try_wait().unwrap() {
            break child.wait_with_output().unwrap();
        }
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("the console did not quit on a double Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    drop(stdin);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("interrupted: search stopped"), "{text}");
    assert!(text.contains("still here"), "{text}");
    assert!(
        text.contains("game saved in kibitzer-interrupted-"),
        "{text}"
    );
    let saved: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".pgn"))
        .collect();
    assert_eq!(saved.len(), 1);
    let pgn = std::fs::read_to_string(saved[0].path()).unwrap();
    assert!(pgn.contains("1. e4"), "{pgn}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `records.log_file` writes the daemon's log to a file as well (for operators
/// without journald), and `-q` keeps only warnings and errors.
#[test]
fn the_daemon_log_goes_to_a_file_and_q_quiets_it() {
    let dir = std::env::temp_dir().join(format!("kib-logfile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let log = dir.join("logs").join("kibitzer.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_kibitzer"))
        .args([
            "-q",
            "daemon",
            "--set",
            "ics.server=127.0.0.1",
            "--set",
            "ics.port=1",
        ])
        .arg("--set")
        .arg(format!("records.log_file={}", log.display()))
        .arg("--set")
        .arg(format!("records.dir={}", dir.join("rec").display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let _ = child.kill();
    let _ = child.wait();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        text.contains("WARN") && text.contains("cannot log in"),
        "{text}"
    );
    assert!(!text.contains(" INFO "), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "no colour codes in the file: {text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kibitzer datagen`: whole 32-byte records of legal positions, none in check, the
/// scores within the bound, results and sides as the game had them; a second run
/// goes on to the new target (the records before kept as they were) and cuts a
/// partial record off first; a bad budget is refused.
#[test]
fn datagen_writes_filtered_positions_and_resumes() {
    use kibitzer::tools::datagen::{Sample, RECORD};
    let dir = temp_dir("datagen");
    let out = dir.join("data.kbd");
    let o = out.to_str().unwrap();
    fn args<'a>(n: &'a str, o: &'a str) -> Vec<&'a str> {
        vec![
            "datagen",
            "--positions",
            n,
            "--nodes",
            "400",
            "--threads",
            "1",
            "--out",
            o,
            "--max-score",
            "1500",
        ]
    }
    let r = run_with(&args("200", o), "", &[], Duration::from_secs(120));
    assert_eq!(r.code, Some(0), "{r}");
    assert!(r.stdout.contains("(0 before"), "{r}");
    let first = std::fs::read(&out).unwrap();
    assert_eq!(first.len() % RECORD, 0);
    assert!(first.len() / RECORD >= 200, "{}", first.len() / RECORD);
    let mut results = std::collections::BTreeSet::new();
    for rec in first.chunks(RECORD) {
        let s = Sample::decode(rec).expect("a valid record");
        assert!(!s.board.in_check(), "{}", s.board.to_fen());
        assert!(s.board.has_legal_move(), "{}", s.board.to_fen());
        assert!(s.score.abs() <= 1500, "{}", s.score);
        results.insert(s.result);
    }
    assert!(results.iter().all(|&x| x <= 2));
    // Killed mid-write: a partial record at the end is cut, then the run goes on.
    let mut f = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
    std::io::Write::write_all(&mut f, &[1, 2, 3, 4, 5]).unwrap();
    drop(f);
    let r = run_with(&args("400", o), "", &[], Duration::from_secs(120));
    assert_eq!(r.code, Some(0), "{r}");
    assert!(r.stdout.contains("cut a partial record of 5 bytes"), "{r}");
    let second = std::fs::read(&out).unwrap();
    assert_eq!(second.len() % RECORD, 0);
    assert!(second.len() / RECORD >= 400);
    assert_eq!(
        &second[..first.len()],
        &first[..],
        "the first run's records kept"
    );
    // Already there: nothing to do.
    let r = run_with(&args("100", o), "", &[], Duration::from_secs(60));
    assert!(r.stdout.contains("0 positions from 0 games"), "{r}");
    let r = run(&["datagen", "--positions", "10", "--nodes", "0", "--out", o]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("--nodes 0"), "{r}");
}

/// The learned evaluation from end to end: `datagen`, `train` (epochs reported,
/// the net and its checkpoint written, a second run goes on from it), then the
/// net in play: `bench` with it is repeatable and differs from the handcrafted
/// bench, `score` shows the net under the handcrafted table, and a net that cannot
/// be read is named.
/// The number ending the first line of `text` that holds `label` (NaN if none).
fn last_number_on(text: &str, label: &str) -> f64 {
    let line = text.lines().find(|l| l.contains(label)).unwrap_or("");
    line.rsplit(' ')
        .next()
        .unwrap_or("")
        .parse()
        .unwrap_or(f64::NAN)
}

#[test]
fn datagen_train_and_the_net_in_the_engine() {
    let dir = temp_dir("train");
    let data = dir.join("data.kbd");
    let net = dir.join("net.knn");
    let (d, n) = (data.to_str().unwrap(), net.to_str().unwrap());
    let r = run_with(
        &[
            "datagen",
            "--positions",
            "800",
            "--nodes",
            "300",
            "--threads",
            "1",
            "--out",
            d,
        ],
        "",
        &[],
        Duration::from_secs(120),
    );
    assert_eq!(r.code, Some(0), "{r}");
    let train = |epochs: &str| {
        run_with(
            &[
                "train", "--data", d, "--out", n, "--epochs", epochs, "--batch", "128",
            ],
            "",
            &[],
            Duration::from_secs(120),
        )
    };
    let r = train("2");
    assert_eq!(r.code, Some(0), "{r}");
    assert!(r.stdout.contains("0 malformed records"), "{r}");
    assert!(
        r.stdout.contains("epoch   1  train loss") && r.stdout.contains("epoch   2  train loss"),
        "{r}"
    );
    assert_eq!(
        std::fs::metadata(&net).unwrap().len() as usize,
        kibitzer::nnue::FILE_BYTES
    );
    let r = train("3");
    assert!(r.stdout.contains("going on from"), "{r}");
    assert!(
        !r.stdout.contains("epoch   2 ") && r.stdout.contains("epoch   3  train loss"),
        "{r}"
    );
    let set = format!("evaluation.net={n}");
    let bench = |with_net: bool| {
        let mut args = vec!["--set", "evaluation.net=off", "bench", "5"];
        if with_net {
            args = vec!["--set", &set, "bench", "5"];
        }
        let r = run_with(&args, "", &[], Duration::from_secs(120));
        assert_eq!(r.code, Some(0), "{r}");
        r.stdout
            .lines()
            .last()
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let (a, b, hce) = (bench(true), bench(true), bench(false));
    assert_eq!(a, b, "the same nodes every run with the net");
    // Every SIMD copy the CPU runs searches the same tree.
    for level in ["scalar", "sse4.1", "avx2"] {
        let r = run_with(
            &["--set", &set, "bench", "5"],
            "",
            &[("KBZ_NNUE_SIMD", level)],
            Duration::from_secs(120),
        );
        assert!(r.stdout.starts_with("position"), "{r}");
        assert!(
            r.stdout
                .lines()
                .last()
                .unwrap()
                .starts_with(&format!("{a} nodes")),
            "{level}: {r}"
        );
    }
    assert_ne!(
        a, hce,
        "the net searches otherwise than the handcrafted evaluation"
    );
    let r = run_with(
        &["--set", &set, "--set", "evaluation.netscale=100", "--no-rc"],
        "score\nquit\n",
        &[],
        Duration::from_secs(30),
    );
    assert!(
        r.stdout.contains("White's point of view")
            && r.stdout
                .contains(&format!("net {n} ({} hidden)", kibitzer::nnue::HIDDEN))
            && r.stdout
                .contains("knobs' share of the handcrafted terms: +0.00"),
        "{r}"
    );
    // The next round's data: games played with the net.
    let data2 = dir.join("data2.kbd");
    let r = run_with(
        &[
            "datagen",
            "--positions",
            "100",
            "--nodes",
            "300",
            "--threads",
            "1",
            "--net",
            n,
            "--out",
            data2.to_str().unwrap(),
        ],
        "",
        &[],
        Duration::from_secs(120),
    );
    assert_eq!(r.code, Some(0), "{r}");
    assert!(std::fs::metadata(&data2).unwrap().len() >= 100 * 32, "{r}");
    let r = run(&["datagen", "--positions", "10", "--net", d, "--out", d]);
    assert!(r.stderr.contains("not a kibitzer net file"), "{r}");
    // A scale out of range is named by the argument given.
    let r = run(&[
        "datagen",
        "--positions",
        "10",
        "--net",
        n,
        "--net-scale",
        "300",
        "--out",
        d,
    ]);
    assert_ne!(r.code, Some(0), "{r}");
    assert!(
        r.stderr.contains("--net-scale") && r.stderr.contains("300"),
        "{r}"
    );
    assert!(train("3")
        .stdout
        .contains("handcrafted evaluation's validation loss"));
    // A net on the handcrafted evaluation: trained with --on-handcrafted, said so
    // by `score`, added to the handcrafted value; the checkpoint of a net alone is
    // not resumed as one.
    let on = dir.join("on.knn");
    let on_hce = |out: &str| {
        run_with(
            &[
                "train",
                "--data",
                d,
                "--out",
                out,
                "--epochs",
                "1",
                "--batch",
                "128",
                "--on-handcrafted",
            ],
            "",
            &[],
            Duration::from_secs(120),
        )
    };
    let r = on_hce(n);
    assert_ne!(r.code, Some(0));
    assert!(
        r.stderr
            .contains("a checkpoint of a net alone; this run trains a net on the handcrafted"),
        "{r}"
    );
    let r = on_hce(on.to_str().unwrap());
    assert_eq!(r.code, Some(0), "{r}");
    let r = run_with(
        &[
            "--set",
            &format!("evaluation.net={}", on.display()),
            "--no-rc",
        ],
        "score\nquit\n",
        &[],
        Duration::from_secs(30),
    );
    let pawns = |label: &str| last_number_on(&r.stdout, label);
    let (net_v, hce_v, sum) = (
        pawns("hidden, on the handcrafted evaluation):"),
        pawns("handcrafted evaluation (with the knobs):"),
        pawns("evaluation (net + handcrafted, White's view):"),
    );
    assert!(
        (net_v + hce_v - sum).abs() < 0.015,
        "net {net_v} + handcrafted {hce_v} = {sum}: {r}"
    );
    // A net on the handcrafted material: trained with --on-material (not with
    // --on-handcrafted too), said so by `score`, the sum shown.
    let r = run(&[
        "train",
        "--data",
        d,
        "--out",
        "x.knn",
        "--on-material",
        "--on-handcrafted",
    ]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("--on-material"), "{r}");
    let mat = dir.join("mat.knn");
    let r = run_with(
        &[
            "train",
            "--data",
            d,
            "--out",
            mat.to_str().unwrap(),
            "--epochs",
            "1",
            "--batch",
            "128",
            "--on-material",
        ],
        "",
        &[],
        Duration::from_secs(120),
    );
    assert_eq!(r.code, Some(0), "{r}");
    assert!(
        r.stdout
            .contains("its material, piece squares and pawns alone"),
        "{r}"
    );
    let r = run_with(
        &[
            "--set",
            &format!("evaluation.net={}", mat.display()),
            "--no-rc",
        ],
        "score\nquit\n",
        &[],
        Duration::from_secs(30),
    );
    let pawns = |label: &str| last_number_on(&r.stdout, label);
    let (net_v, base_v, sum) = (
        pawns("hidden, on the handcrafted material, piece squares and pawns):"),
        pawns("and the knobs' share:"),
        pawns("evaluation (net + those, White's view):"),
    );
    assert!(
        (net_v + base_v - sum).abs() < 0.015,
        "net {net_v} + base {base_v} = {sum}: {r}"
    );
    let r = run(&["--set", "evaluation.net=/nonexistent/x.knn", "bench", "3"]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("cannot read /nonexistent/x.knn"), "{r}");
    let r = run(&["--set", &format!("evaluation.net={d}"), "bench", "3"]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("not a kibitzer net file"), "{r}");
    // `builtin`: the committed net, built into the program (no file needed).
    let r = run_with(
        &["--set", "evaluation.net=builtin", "--no-rc"],
        "score\nquit\n",
        &[],
        Duration::from_secs(30),
    );
    assert!(
        r.stdout.contains(&format!(
            "net builtin (nets/kibitzer.knn of this build) at {}% ({} hidden, on the",
            kibitzer::options::Options::new().int("evaluation.netscale"),
            kibitzer::nnue::HIDDEN
        )),
        "{r}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
