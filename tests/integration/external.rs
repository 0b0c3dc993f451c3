//! External engines (issue 45) behind the same interface as the built-in engine:
//! Debian's `stockfish` (UCI) and `fairymax` (xboard) answer searches with legal
//! moves and report their thinking; a misbehaving engine (`tests/data/
//! misbehaving_engine.py`, stockfish behind a proxy that crashes, hangs, answers an
//! illegal move, prints garbage or starts slowly) never leaves a search without a
//! legal move, and is started again. `.ci/run` installs the engines; without them
//! these tests say so and pass, except in CI, where they fail.

use kibitzer::chess::Board;
use kibitzer::engine::{
    EventSink, SearchConfig, SearchEvent, SearchLimits, SearchResult, Searcher,
};
use kibitzer::external::protocol::Protocol;
use kibitzer::external::{ExternalConfig, ExternalEngine};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The program `name` on PATH or in Debian's /usr/games; `None` (and a note, or a
/// failure in CI) when it is not installed.
pub(crate) fn engine_program(name: &str) -> Option<String> {
    for dir in std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .chain(["/usr/games"])
    {
        let p = std::path::Path::new(dir).join(name);
        if p.is_file() {
            return Some(p.display().to_string());
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!("{name} is not installed; .ci/run installs it (apt-get install -y {name})");
    }
    eprintln!("skipped: {name} is not installed (apt-get install {name})");
    None
}

/// The misbehaving engine with `args` (needs stockfish and python3).
pub(crate) fn misbehaving(args: &[&str]) -> Option<ExternalConfig> {
    engine_program("stockfish")?;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/misbehaving_engine.py")
        .display()
        .to_string();
    let mut a = vec![script];
    a.extend(args.iter().map(|s| s.to_string()));
    Some(config("python3", a, Protocol::Uci))
}

fn config(command: &str, args: Vec<String>, protocol: Protocol) -> ExternalConfig {
    ExternalConfig {
        command: command.to_string(),
        args,
        dir: None,
        protocol,
        options: vec![("Hash".into(), "16".into()), ("Threads".into(), "1".into())],
        start_timeout: Duration::from_secs(10),
        ponder: false,
    }
}

/// Runs a search; with `stop_after`, stops it then. The result and the events.
fn search(
    e: &ExternalEngine,
    board: &Board,
    limits: SearchLimits,
    stop_after: Option<Duration>,
) -> (SearchResult, Vec<SearchEvent>) {
    let events: Arc<Mutex<Vec<SearchEvent>>> = Arc::default();
    let ev2 = Arc::clone(&events);
    let sink: EventSink = Arc::new(move |e: &SearchEvent| ev2.lock().unwrap().push(e.clone()));
    e.go(board, limits, SearchConfig::default(), sink);
    if let Some(d) = stop_after {
        std::thread::sleep(d);
        e.stop();
    }
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let last = events.lock().unwrap().last().cloned();
        if let Some(SearchEvent::Done(r)) = last {
            e.wait();
            let all = events.lock().unwrap().clone();
            return (r, all);
        }
        assert!(Instant::now() < end, "the search ends");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn after(moves: &[&str]) -> Board {
    let mut b = Board::startpos();
    for m in moves {
        let mv = b.parse_move(m).unwrap();
        b.make_move(mv);
    }
    b
}

#[test]
fn stockfish_over_uci_plays_legal_moves_and_reports_its_search() {
    let Some(sf) = engine_program("stockfish") else {
        return;
    };
    let e = ExternalEngine::start(config(&sf, vec![], Protocol::Uci));
    let b = after(&["e4", "e5", "Nf3"]);
    let (r, evs) = search(&e, &b, SearchLimits::depth(10), None);
    assert!(b.is_legal(r.best), "{r:?}");
    assert!(r.depth >= 8 && r.nodes > 0, "{r:?}");
    let id = e.identity().expect("the handshake is over");
    assert!(id.name.starts_with("Stockfish"), "{id:?}");
    assert!(id.option("Hash").is_some() && id.option("Threads").is_some());
    assert!(evs
        .iter()
        .any(|e| matches!(e, SearchEvent::Iteration(i) if i.depth >= 5 && !i.pv.is_empty())));
    assert!(e.health().healthy);
    // A mate it sees is a mate in our scale.
    let m = Board::from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1").unwrap();
    let (r, _) = search(&e, &m, SearchLimits::depth(6), None);
    assert_eq!(kibitzer::engine::mate_in(r.score), Some(1), "{r:?}");
    // A timed search that is stopped answers at once.
    let (r, _) = search(
        &e,
        &b,
        SearchLimits {
            infinite: true,
            ..Default::default()
        },
        Some(Duration::from_millis(300)),
    );
    assert!(r.best.is_null() || b.is_legal(r.best), "{r:?}");
}

/// A ponder search the opponent's move missed is stopped and a new search starts
/// at once (as the game does): the stopped search's `bestmove`, which the engine
/// sends after the new `go`, is not taken for the new search's answer (here it
/// would be a White move in a position where Black moves: an "illegal move" and
/// a restart).
#[test]
fn the_answer_to_a_stopped_ponder_search_is_not_the_next_search_s() {
    let Some(sf) = engine_program("stockfish") else {
        return;
    };
    let e = ExternalEngine::start(config(&sf, vec![], Protocol::Uci));
    let (r, _) = search(&e, &Board::startpos(), SearchLimits::depth(6), None);
    assert!(!r.best.is_null());
    for round in 0..3 {
        let ponder_on = after(&["e4", "e5", "Nf3"]);
        let sink: EventSink = Arc::new(|_: &SearchEvent| {});
        e.go(
            &ponder_on,
            SearchLimits {
                ponder: true,
                infinite: true,
                ..Default::default()
            },
            SearchConfig::default(),
            sink,
        );
        std::thread::sleep(Duration::from_millis(100));
        e.stop();
        // The opponent played something else: White to move here.
        let b = after(&["e4", "e5", "Bc4", "Nc6"]);
        let (r, evs) = search(&e, &b, SearchLimits::depth(8), None);
        assert!(b.is_legal(r.best), "round {round}: {r:?}");
        assert!(r.error.is_none(), "round {round}: {r:?}");
        for ev in &evs {
            if let SearchEvent::Iteration(i) = ev {
                assert_eq!(i.pv.first().map(|m| b.is_legal(*m)), Some(true), "{i:?}");
            }
        }
        let h = e.health();
        assert!(
            h.healthy && h.restarts_in_a_row == 0,
            "round {round}: {h:?}"
        );
    }
}

#[test]
fn fairymax_over_xboard_plays_legal_moves_from_the_moves_played() {
    let Some(fm) = engine_program("fairymax") else {
        return;
    };
    let mut c = config(&fm, vec![], Protocol::Xboard);
    c.options.clear();
    let e = ExternalEngine::start(c);
    let b = after(&["d4", "d5", "c4"]);
    let (r, evs) = search(
        &e,
        &b,
        SearchLimits::movetime(Duration::from_millis(500)),
        None,
    );
    assert!(b.is_legal(r.best), "{r:?}");
    assert!(
        evs.iter().any(|e| matches!(e, SearchEvent::Iteration(_))),
        "thinking output read: {evs:?}"
    );
    assert_eq!(e.identity().unwrap().name, "Fairy-Max 5.0b");
    // Again, Black's move now.
    let b2 = after(&["d4", "d5", "c4", "e6"]);
    let (r, _) = search(
        &e,
        &b2,
        SearchLimits::movetime(Duration::from_millis(300)),
        None,
    );
    assert!(b2.is_legal(r.best), "{r:?}");
}

#[test]
fn a_crashing_engine_still_gives_a_legal_move_and_is_started_again() {
    let Some(c) = misbehaving(&["crash_at=2"]) else {
        return;
    };
    let e = ExternalEngine::start(c);
    let b = after(&["e4"]);
    let (r1, _) = search(&e, &b, SearchLimits::depth(6), None);
    assert!(b.is_legal(r1.best));
    // The second search crashes the engine: a legal move all the same.
    let (r2, _) = search(&e, &b, SearchLimits::depth(6), None);
    assert!(b.is_legal(r2.best), "{r2:?}");
    assert!(r2.error.is_none(), "not the game's error: {r2:?}");
    let h = e.health();
    assert!(h.restarts_in_a_row >= 1 && !h.healthy, "{h:?}");
    assert!(h.last_fault.unwrap().contains("ended"));
    // The engine was started again and answers (healthy once more).
    let (r3, _) = search(&e, &b, SearchLimits::depth(6), None);
    assert!(b.is_legal(r3.best));
    assert!(e.health().healthy, "{:?}", e.health());
}

#[test]
fn an_illegal_move_garbage_and_a_hang_are_survived() {
    let Some(c) = misbehaving(&["illegal_at=1"]) else {
        return;
    };
    let e = ExternalEngine::start(c);
    let b = after(&["e4", "c5"]);
    let (r, _) = search(&e, &b, SearchLimits::depth(6), None);
    assert!(b.is_legal(r.best), "the engine's a1a8 was replaced: {r:?}");
    assert!(e.health().last_fault.unwrap().contains("not legal"));
    drop(e);

    let c = misbehaving(&["garbage"]).unwrap();
    let e = ExternalEngine::start(c);
    let (r, _) = search(&e, &b, SearchLimits::depth(8), None);
    assert!(b.is_legal(r.best), "{r:?}");
    drop(e);

    // It never answers, not even `stop`: a legal move within the margin.
    let c = misbehaving(&["hang_at=1"]).unwrap();
    let e = ExternalEngine::start(c);
    let t = Instant::now();
    let (r, _) = search(
        &e,
        &b,
        SearchLimits::movetime(Duration::from_secs(20)),
        Some(Duration::from_millis(500)),
    );
    assert!(b.is_legal(r.best), "{r:?}");
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "answered soon after stop: {:?}",
        t.elapsed()
    );
    assert!(e.health().last_fault.unwrap().contains("stop"));
}

#[test]
fn a_slow_start_is_waited_for_within_the_limit_and_else_replaced() {
    let Some(mut c) = misbehaving(&["slow_start=2"]) else {
        return;
    };
    let e = ExternalEngine::start(c.clone());
    let b = after(&["d4"]);
    let (r, _) = search(&e, &b, SearchLimits::depth(6), None);
    assert!(
        b.is_legal(r.best) && r.depth >= 1,
        "answered after the slow handshake: {r:?}"
    );
    assert!(e.health().healthy);
    drop(e);
    // The game cannot wait: stopped before the handshake is over, the move is ours.
    c.start_timeout = Duration::from_secs(10);
    let e = ExternalEngine::start(c);
    let (r, _) = search(
        &e,
        &b,
        SearchLimits::depth(6),
        Some(Duration::from_millis(300)),
    );
    assert!(b.is_legal(r.best), "{r:?}");
}

/// The daemon's settings for an external engine (`engine.command` and its options).
fn engine_settings(program: &str, args: &str) -> Vec<String> {
    vec![
        format!("engine.command={program}"),
        format!("engine.args={args}"),
        "engine.protocol=uci".into(),
        "engine.options=Hash=16, Threads=1".into(),
        "engine.book=off".into(),
    ]
}

/// One game on the fake FICS or ICC server with `extra` settings: the fake's stats.
async fn ics_game(name: &str, icc: bool, extra: &[String]) -> crate::ics_fake_server::FakeStats {
    ics_game_with(name, icc, extra, Default::default(), |_| {})
        .await
        .0
}

/// `ics_game` on a fake set up by `cfg` (`icc` is set here); `at_end` sees the
/// daemon's status after the result (and 3 s more): the fake's stats, then
/// the stats again after those 3 s.
async fn ics_game_with(
    name: &str,
    icc: bool,
    extra: &[String],
    cfg: crate::ics_fake_server::FakeConfig,
    at_end: impl FnOnce(&kibitzer::bot::status::Status),
) -> (
    crate::ics_fake_server::FakeStats,
    crate::ics_fake_server::FakeStats,
) {
    use crate::ics_fake_server::{FakeConfig, FakeServer};
    use kibitzer::bot::{ControlMsg, Daemon};
    let srv = FakeServer::start(FakeConfig {
        icc,
        opp_resign_at: cfg.opp_resign_at.or(Some(30)),
        ..cfg
    })
    .await;
    let dir = crate::daemon::temp_dir(&format!("{name}-{}", if icc { "icc" } else { "fics" }));
    let mut all: Vec<&str> = extra.iter().map(String::as_str).collect();
    if icc {
        all.push("ics.server_type=icc");
    }
    let d = Daemon::new(crate::daemon::settings(srv.port, &dir, &all));
    let status = d.status();
    let control = d.control();
    let handle = tokio::spawn(d.run());
    let s = srv.wait_results(1, Duration::from_secs(120)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    at_end(&status.borrow());
    let later = srv.stats();
    control.send(ControlMsg::Quit);
    let _ = tokio::time::timeout(Duration::from_secs(20), handle).await;
    let _ = std::fs::remove_dir_all(&dir);
    (s, later)
}

/// `program` over `protocol` plays for the daemon on the FICS, ICC and Lichess
/// fakes: whole games to a result, every move legal, no time lost.
async fn plays_on_every_server(program: &str, protocol: &str) {
    let mut extra = engine_settings(program, "");
    extra[2] = format!("engine.protocol={protocol}");
    if protocol == "xboard" {
        extra[3] = "engine.options=".into();
    }
    for icc in [false, true] {
        let s = ics_game(&format!("external-{protocol}"), icc, &extra).await;
        assert_eq!(s.results.len(), 1, "{program} icc {icc}: {s:?}");
        assert_eq!(
            (s.illegal_moves, s.bot_time_losses),
            (0, 0),
            "{program} icc {icc}: {s:?}"
        );
    }
    use crate::lichess_fake_server::{ChallengeSpec, FakeConfig};
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let mut bot = crate::lichess::Bot::start(
        FakeConfig {
            opponent_resigns_after: Some(15),
            ..FakeConfig::default()
        },
        &format!("external-lichess-{protocol}"),
        &extra,
    )
    .await;
    bot.fake.challenge(ChallengeSpec::standard(
        "ext1",
        60,
        0,
        kibitzer::chess::Color::Black,
    ));
    let r = bot.game_ended(Duration::from_secs(120)).await;
    assert_eq!(r.result, "0-1", "{program}: {r:?}");
    bot.fake.with(|s, g| {
        assert_eq!(s.illegal, 0, "{program}");
        assert!(g[0].bot_clock_after.iter().all(|&c| c > 0), "{program}");
    });
    bot.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stockfish_plays_on_every_server() {
    if let Some(sf) = engine_program("stockfish") {
        plays_on_every_server(&sf, "uci").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairymax_plays_on_every_server() {
    if let Some(fm) = engine_program("fairymax") {
        plays_on_every_server(&fm, "xboard").await;
    }
}

/// An engine that crashes at every 4th move of each of its lives still finishes
/// its game on the FICS fake: no illegal move, no time lost, the game to a result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashing_engine_does_not_cost_the_game() {
    let Some(c) = misbehaving(&["crash_at=4"]) else {
        return;
    };
    let extra = engine_settings("python3", &c.args.join(" "));
    let s = ics_game("external-crash", false, &extra).await;
    assert_eq!(s.results.len(), 1, "{s:?}");
    assert!(
        s.results[0].1.contains("resigns"),
        "played to the end: {s:?}"
    );
    assert_eq!((s.illegal_moves, s.bot_time_losses), (0, 0), "{s:?}");
}

/// `daemon --check` starts the engine, completes the handshake and lists its
/// name, author and options; an option it does not offer, or a program that does
/// not start, is a configuration error naming it.
#[test]
fn daemon_check_lists_the_engine_and_refuses_an_option_it_lacks() {
    let Some(sf) = engine_program("stockfish") else {
        return;
    };
    use crate::cli::run_with;
    let env = [("KIBITZER_PASSWORD", "")];
    let base = ["daemon", "--check", "--set", "ics.server=127.0.0.1"];
    let run = |extra: &[String]| {
        let mut args: Vec<&str> = base.to_vec();
        for e in extra {
            args.push("--set");
            args.push(e);
        }
        run_with(&args, "", &env, Duration::from_secs(60))
    };
    let ok = run(&[
        format!("engine.command={sf}"),
        "engine.options=Hash = 32, Threads = 1".into(),
    ]);
    assert!(ok.ok(), "{ok}");
    assert!(ok.stdout.contains("engine: Stockfish"), "{ok}");
    assert!(
        ok.stdout.contains("SyzygyPath") && ok.stdout.contains("the Stockfish developers"),
        "{ok}"
    );
    let bad = run(&[
        format!("engine.command={sf}"),
        "engine.options=Bogus = 1".into(),
    ]);
    assert_eq!(bad.code, Some(2), "{bad}");
    assert!(bad.stderr.contains("no option Bogus"), "{bad}");
    let missing = run(&["engine.command=/nonexistent/engine".into()]);
    assert_eq!(missing.code, Some(2), "{missing}");
    assert!(missing.stderr.contains("/nonexistent/engine"), "{missing}");
}

/// A crash loop: an engine that crashes whenever it is asked for a move never
/// answers the probe after its restarts. Its game still ends with no illegal move
/// and no time lost (quick moves of our own); then the account declines the
/// opponent's rematch ("being restarted"), seeks no more, and the status (the
/// window, `/healthz`) names the engine's fault.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_loop_stops_the_seeking_and_the_status_says_so() {
    let Some(c) = misbehaving(&["crash_at=1"]) else {
        return;
    };
    let extra = engine_settings("python3", &c.args.join(" "));
    let cfg = crate::ics_fake_server::FakeConfig {
        games: 2,
        opp_resign_at: Some(16),
        rematch_after: Some(Duration::from_millis(500)),
        ..Default::default()
    };
    let mut health = Ok(());
    let (s, later) = ics_game_with("external-loop", false, &extra, cfg, |st| {
        health = st.health();
    })
    .await;
    assert_eq!(s.results.len(), 1, "{s:?}");
    assert_eq!((s.illegal_moves, s.bot_time_losses), (0, 0), "{s:?}");
    let after = &later.commands[s.commands.len()..];
    assert!(
        after.iter().any(|c| c.starts_with("decline")),
        "the rematch is declined: {after:?}"
    );
    assert!(
        after
            .iter()
            .any(|c| c.starts_with("tell") && c.contains("being restarted")),
        "the opponent is told why: {after:?}"
    );
    assert!(
        !after.iter().any(|c| c.starts_with("seek")),
        "no seeking while the engine is down: {after:?}"
    );
    let why = health.expect_err("unhealthy while the engine is down");
    assert!(why.contains("engine fault"), "{why}");
}

/// The measurement: 20 games at 1 0 on the FICS fake with Stockfish behind
/// kibitzer, the same with the misbehaving engine crashing at every 10th move, and
/// the reaction to a board with a 1-node search, the built-in engine and Stockfish
/// side by side. Run: `cargo test --test integration measure_external -- --ignored
/// --nocapture` (`KIBITZER_MEASURE_SERIES=n` for another number of games).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_external() {
    use crate::daemon::{measure_reaction_with, series_with, summary};
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_writer(std::io::stderr)
            .try_init();
    }
    let Some(sf) = engine_program("stockfish") else {
        return;
    };
    let log = std::env::temp_dir().join(format!("kibitzer-crashes-{}", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let crash_log = format!("crash_log={}", log.display());
    let Some(c) = misbehaving(&["crash_at=10", &crash_log]) else {
        return;
    };
    let n: usize = std::env::var("KIBITZER_MEASURE_SERIES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(20);
    let sf_settings = engine_settings(&sf, "");
    let sf_extra: Vec<&str> = sf_settings.iter().map(String::as_str).collect();
    let crash_settings = engine_settings("python3", &c.args.join(" "));
    let crash_extra: Vec<&str> = crash_settings.iter().map(String::as_str).collect();
    if std::env::var_os("KIBITZER_MEASURE_NO_STOCKFISH").is_none() {
        let a = series_with("ext-sf", n, 1, 0, 60, false, &sf_extra).await;
        summary(&format!("stockfish {n} x 1 0"), &a.0, &a.1, a.2);
    }
    let b = series_with("ext-crash", n, 1, 0, 60, false, &crash_extra).await;
    summary(&format!("crash every 10th move {n} x 1 0"), &b.0, &b.1, b.2);
    let crashes = std::fs::read_to_string(&log).map_or(0, |t| t.lines().count());
    println!("the misbehaving engine crashed {crashes} times");
    measure_reaction_with("built-in: ", false, &[]).await;
    measure_reaction_with("stockfish: ", false, &sf_extra).await;
    measure_reaction_with("built-in again: ", false, &[]).await;
}
