//! The fault soak against the fake Lichess (issue 46): one daemon with a Lichess
//! account plays game after game at 1+0 while a fault is injected into each game
//! in turn: the game stream cut by a TCP reset mid-line, the game stream silent
//! with the connection open (longer than the dead-stream limit), the event stream
//! ending, the opponent leaving (the win claimed), a full disk under the records, a
//! configuration reload (SIGHUP's path) and the engine's thread panicking. Then the
//! same checks as the ICS soak (`soak.rs`): no game stuck, none lost on time or by
//! an illegal move, every finished game recorded once and in order, nothing left in
//! progress or held back, the learning files readable, file descriptors flat.
//!
//! CI plays one round (`soak_lichess_one_round`); the long run is a measurement:
//! `KIBITZER_SOAK_GAMES=100 cargo test --test integration soak_lichess_measure --
//! --ignored --nocapture`.

use crate::lichess::settings;
use crate::lichess_fake_server::{ChallengeSpec, Cut, FakeConfig, FakeLichess, StreamCut, TOKEN};
use crate::soak::{fd_count, fill_disk, mount_tmpfs, rss_kb, umount, Checks};
use kibitzer::bot::brain::Fault as EngineFault;
use kibitzer::bot::{BotEvent, ControlMsg, Daemon};
use kibitzer::chess::Color;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    None,
    StreamReset,
    StreamSilence,
    EventStreamEnds,
    OpponentLeaves,
    DiskFull,
    Reload,
    EnginePanic,
}

const CYCLE: [Fault; 8] = [
    Fault::None,
    Fault::StreamReset,
    Fault::StreamSilence,
    Fault::EventStreamEnds,
    Fault::OpponentLeaves,
    Fault::DiskFull,
    Fault::Reload,
    Fault::EnginePanic,
];

/// The engine thread panics when asked to think at this ply (we have White).
const PANIC_PLY: usize = 12;

#[derive(Debug, Default)]
struct Report {
    games: usize,
    faults: BTreeMap<String, usize>,
    stuck: Vec<usize>,
    /// The fake's end of each game (`status winner`).
    endings: BTreeMap<String, usize>,
    time_losses: usize,
    illegal: usize,
    engine_faults: u32,
    resigned_for_faults: usize,
    /// Finished games as `<id> <result>`, in the fake's order and in the records.
    fake_results: Vec<String>,
    records: Vec<String>,
    in_progress_left: usize,
    held_back: usize,
    learning_problems: usize,
    disk_full_possible: bool,
    streams_opened: usize,
    rss_kb: (u64, u64),
    fds: (usize, usize),
    elapsed: Duration,
}

fn result_of(status: &str, winner: Option<Color>) -> Option<String> {
    match (status, winner) {
        ("started" | "created", _) | ("aborted", _) => None,
        (_, Some(Color::White)) => Some("1-0".into()),
        (_, Some(Color::Black)) => Some("0-1".into()),
        _ => Some("1/2-1/2".into()),
    }
}

fn finished(fake: &FakeLichess) -> usize {
    fake.with(|_, g| g.iter().filter(|g| g.status != "started").count())
}

async fn soak(name: &str, games: usize) -> Report {
    let started = Instant::now();
    let fake = FakeLichess::start(FakeConfig {
        opponent_resigns_after: Some(20),
        gone_claim_s: 2,
        ..FakeConfig::default()
    })
    .await;
    let dir = crate::daemon::temp_dir(&format!("soak-lichess-{name}"));
    let records = dir.join("records");
    std::fs::create_dir_all(&records).unwrap();
    let disk_full_possible = mount_tmpfs(&records);
    let book = records.join("book");
    std::fs::create_dir_all(&book).unwrap();
    let extra: Vec<String> = vec![
        format!("records.dir={}", records.display()),
        format!("bookpath={}", book.display()),
        "learn=7".into(),
        "bot.max_rematches=0".into(),
    ];
    let url = fake.url();
    let mk = {
        let (dir, extra, url) = (dir.clone(), extra.clone(), url.clone());
        move || {
            let e: Vec<&str> = extra.iter().map(String::as_str).collect();
            settings(&url, &dir, TOKEN, &e)
        }
    };
    let mut d = Daemon::new(mk());
    let switch = Arc::new(AtomicBool::new(false));
    d.fault = Some(EngineFault::BrainPanic { ply: PANIC_PLY });
    d.fault_on = Some(switch.clone());
    d.set_reloader(Box::new(move || Ok(mk())));
    let control = d.control();
    let mut events = d.subscribe();
    let handle = tokio::spawn(d.run());
    let mut r = Report {
        disk_full_possible,
        ..Default::default()
    };
    let mut reports: Vec<kibitzer::bot::GameReport> = Vec::new();
    let drain = |events: &mut tokio::sync::broadcast::Receiver<BotEvent>,
                 reports: &mut Vec<kibitzer::bot::GameReport>| {
        while let Ok(e) = events.try_recv() {
            if let BotEvent::GameEnded(g) = e {
                reports.push(*g);
            }
        }
    };
    for k in 0..games {
        let fault = CYCLE[k % CYCLE.len()];
        *r.faults.entry(format!("{fault:?}")).or_default() += 1;
        switch.store(fault == Fault::EnginePanic, Ordering::SeqCst);
        let after_states = 6 + (k * 5) % 9;
        fake.set_config(|c| {
            c.opponent_leaves_after = (fault == Fault::OpponentLeaves).then_some(5 + k % 5);
            let cut = match fault {
                Fault::StreamReset => Some(Cut::Reset),
                Fault::StreamSilence => Some(Cut::Silence(Duration::from_secs(15))),
                _ => None,
            };
            if let Some(kind) = cut {
                c.stream_cuts.push(StreamCut {
                    game: k,
                    after_states,
                    kind,
                });
            }
        });
        let before = finished(&fake);
        let id = format!("s{k}");
        // The event stream may be opening again after the last fault: the fake
        // lists open challenges to every stream opened later.
        fake.challenge(ChallengeSpec::standard(&id, 60, 0, Color::White));
        let t0 = Instant::now();
        while fake.with(|_, g| g.len()) <= k && t0.elapsed() < Duration::from_secs(60) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let mut filler = None;
        match fault {
            Fault::EventStreamEnds => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                fake.drop_event_streams();
            }
            Fault::DiskFull if disk_full_possible => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                filler = Some(fill_disk(&records));
            }
            Fault::Reload => {
                for _ in 0..2 {
                    tokio::time::sleep(Duration::from_millis(400)).await;
                    control.send(ControlMsg::Reload);
                }
            }
            _ => {}
        }
        let t0 = Instant::now();
        while finished(&fake) <= before && t0.elapsed() < Duration::from_secs(120) {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let done = finished(&fake) > before;
        // The record of the result is written just after it: with the disk still
        // full it must be held back, not lost.
        tokio::time::sleep(Duration::from_millis(if filler.is_some() {
            1500
        } else {
            300
        }))
        .await;
        if let Some(f) = filler {
            let _ = std::fs::remove_file(f);
        }
        drain(&mut events, &mut reports);
        if !done {
            r.stuck.push(k);
            eprintln!(
                "soak: game {k} ({fault:?}) did not finish: {:?}",
                fake.with(|_, g| g.last().map(|g| (g.moves.len(), g.status.clone())))
            );
            break;
        }
        r.games += 1;
        if k == CYCLE.len() - 1 || (games < CYCLE.len() && k == 0) {
            r.rss_kb.0 = rss_kb();
            r.fds.0 = fd_count();
        }
        if (k + 1) % 25 == 0 {
            eprintln!(
                "soak: {} games, {:.0} s, rss {} kB, fds {}",
                k + 1,
                started.elapsed().as_secs_f64(),
                rss_kb(),
                fd_count()
            );
        }
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    r.rss_kb.1 = rss_kb();
    r.fds.1 = fd_count();
    control.send(ControlMsg::Shutdown);
    let _ = tokio::time::timeout(Duration::from_secs(30), handle).await;
    drain(&mut events, &mut reports);
    fake.with(|s, g| {
        r.illegal = s.illegal;
        for game in g {
            *r.endings
                .entry(format!(
                    "{} {}",
                    game.status,
                    match game.winner {
                        Some(c) if c == game.bot_color => "bot",
                        Some(_) => "opponent",
                        None => "-",
                    }
                ))
                .or_default() += 1;
            if game.status == "outoftime" && game.winner != Some(game.bot_color) {
                r.time_losses += 1;
            }
            if let Some(res) = result_of(&game.status, game.winner) {
                r.fake_results.push(format!("{} {res}", game.id));
            }
            r.streams_opened += game.streams_opened;
        }
    });
    r.engine_faults = reports.iter().map(|g| g.stats.faults).sum();
    r.resigned_for_faults = reports
        .iter()
        .filter(|g| g.stats.faults >= 3 && g.reason.contains("resign"))
        .count();
    let pgn = std::fs::read_to_string(records.join("games.pgn")).unwrap_or_default();
    r.records = kibitzer::chess::pgn::read_all(&pgn)
        .into_iter()
        .filter_map(|g| g.ok())
        .map(|g| {
            let site = g.tag("Site").unwrap_or("?");
            let id = site.rsplit('/').next().unwrap_or(site);
            format!("{id} {}", g.tag("Result").unwrap_or("?"))
        })
        .collect();
    r.in_progress_left = std::fs::read_dir(records.join("in-progress")).map_or(0, |d| d.count());
    r.held_back = kibitzer::bot::archive::Archive::pending();
    r.learning_problems = kibitzer::learn::Learner::open_read_only(&book).problems();
    r.elapsed = started.elapsed();
    if disk_full_possible {
        umount(&records);
    }
    let _ = std::fs::remove_dir_all(&dir);
    r
}

fn check(r: &Report) {
    eprintln!("soak report: {r:#?}");
    Checks {
        stuck: &r.stuck,
        time_losses: r.time_losses,
        illegal: r.illegal,
        resigned_for_faults: r.resigned_for_faults,
        engine_faults: r.engine_faults,
        panics: r.faults.get("EnginePanic").copied().unwrap_or(0) as u32,
        records: &r.records,
        finished: &r.fake_results,
        in_progress_left: r.in_progress_left,
        held_back: r.held_back,
        learning_problems: r.learning_problems,
        disk_full_possible: r.disk_full_possible,
        fds: r.fds,
    }
    .assert();
}

/// One round of every fault: CI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_lichess_one_round() {
    let r = soak("round", CYCLE.len()).await;
    assert_eq!(r.games, CYCLE.len());
    check(&r);
}

/// The long soak: `KIBITZER_SOAK_GAMES` games (default 100).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn soak_lichess_measure() {
    let n = std::env::var("KIBITZER_SOAK_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let r = soak("measure", n).await;
    check(&r);
    eprintln!(
        "soak: {} games in {:.0} s; rss {} -> {} kB; fds {} -> {}",
        r.games,
        r.elapsed.as_secs_f64(),
        r.rss_kb.0,
        r.rss_kb.1,
        r.fds.0,
        r.fds.1
    );
}

/// The daemon's own memory over many games: the daemon as a child process (the
/// `kibitzer` binary, Lichess account only) against the fake Lichess in this
/// process, so the fake's bookkeeping does not count. Prints the child's RSS after
/// every 25 games. `KIBITZER_SOAK_GAMES` games (default 200):
/// `cargo test --test integration soak_lichess_child_memory -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn soak_lichess_child_memory() {
    let n: usize = std::env::var("KIBITZER_SOAK_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let fake = FakeLichess::start(FakeConfig {
        opponent_resigns_after: Some(20),
        ..FakeConfig::default()
    })
    .await;
    let dir = crate::daemon::temp_dir("lichess-child-memory");
    let set = |kv: String| ["--set".to_string(), kv];
    let mut args: Vec<String> = vec!["daemon".into()];
    for kv in [
        "ics.enabled=off".to_string(),
        "lichess.enabled=on".into(),
        format!("lichess.url={}", fake.url()),
        format!("records.dir={}", dir.join("records").display()),
        format!("bookpath={}", dir.join("book").display()),
        format!("bot.noplay_file={}", dir.join("noplay").display()),
        format!("bot.lists={}", dir.join("lists").display()),
        "hash=4M".into(),
        "ponder=off".into(),
        "sn=1500".into(),
        "bot.max_rematches=0".into(),
        "learn=7".into(),
    ] {
        args.extend(set(kv));
    }
    std::fs::create_dir_all(dir.join("book")).unwrap();
    let log = dir.join("daemon.log");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kibitzer"))
        .args(&args)
        .env("KIBITZER_LICHESS_TOKEN", TOKEN)
        // This test's own variable is no option of the daemon's.
        .env_remove("KIBITZER_SOAK_GAMES")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .expect("the daemon starts");
    let pid = child.id();
    let rss = || {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    let fds = || std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
    let mut samples = Vec::new();
    for k in 0..n {
        fake.challenge(ChallengeSpec::standard(
            &format!("m{k}"),
            60,
            0,
            Color::White,
        ));
        let t0 = Instant::now();
        while fake.with(|_, g| g.iter().filter(|g| g.status != "started").count()) <= k {
            let exited = child.try_wait().ok().flatten().is_some();
            if exited || t0.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                panic!(
                    "game {k} did not finish (daemon exited: {exited}); its log ends:\n{}",
                    tail.join("\n")
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if (k + 1) % 25 == 0 || k == 4 {
            tokio::time::sleep(Duration::from_millis(300)).await;
            samples.push((k + 1, rss(), fds()));
            eprintln!(
                "child memory: {} games, rss {} kB, fds {}",
                k + 1,
                rss(),
                fds()
            );
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("child memory samples (games, rss kB, fds): {samples:?}");
}
