//! The fault soak (issue 46): one daemon plays game after game against the fake
//! FICS server (lasker dialect, rated games, 1 0) while a fault is injected into
//! each game in turn: the link cut mid-move, a server restart, the opponent's link
//! dropping and the opponent returning, a shutdown countdown, a burst of garbage
//! lines 10 ms apart, a full disk under the records, a configuration reload
//! (SIGHUP's path) and the engine's thread panicking. After the games it checks
//! what an operator leaving the bot alone for months needs: no game stuck, none
//! lost on time or by an illegal move, every finished game recorded exactly once
//! and in order, nothing left in progress or held back, the learning files
//! readable, and memory and file descriptors flat.
//!
//! CI plays one round of the faults (`soak_one_round_of_every_fault`); the long
//! run is a measurement: `KIBITZER_SOAK_GAMES=500 cargo test --test integration
//! soak_measure -- --ignored --nocapture` (`KIBITZER_SOAK_ICC=1`: against the fake
//! ICC; `KIBITZER_SOAK_FAULTS=LinkCut,Reload`: only those faults).

use crate::daemon::{settings, temp_dir};
use crate::ics_fake_server::{FakeConfig, FakeServer, FakeStats, OPP};
use kibitzer::bot::brain::Fault as EngineFault;
use kibitzer::bot::{BotEvent, ControlMsg, Daemon};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    None,
    LinkCut,
    ServerRestart,
    OpponentLeavesAndReturns,
    ShutdownCountdown,
    GarbageBurst,
    DiskFull,
    Reload,
    EnginePanic,
}

const CYCLE: [Fault; 9] = [
    Fault::None,
    Fault::LinkCut,
    Fault::ServerRestart,
    Fault::OpponentLeavesAndReturns,
    Fault::ShutdownCountdown,
    Fault::GarbageBurst,
    Fault::DiskFull,
    Fault::Reload,
    Fault::EnginePanic,
];

/// The engine thread panics when asked to think at this ply of an EnginePanic game.
const PANIC_PLY: usize = 12;

#[derive(Debug, Default)]
struct Report {
    games: usize,
    faults: BTreeMap<String, usize>,
    stuck: Vec<usize>,
    results: BTreeMap<String, usize>,
    our_losses: BTreeMap<String, usize>,
    /// Games we lost that had an engine fault (for comparison with the losses of
    /// the other games: the opponent sometimes simply wins).
    lost_after_faults: usize,
    /// Games we resigned because of engine faults (`bot.max_faults` of them): lost
    /// through our fault.
    resigned_for_faults: usize,
    engine_faults: u32,
    time_losses: usize,
    illegal: usize,
    fake_finished: Vec<String>,
    records: Vec<String>,
    in_progress_left: usize,
    held_back: usize,
    learning_files: Vec<(String, u64)>,
    learning_problems: usize,
    disk_full_possible: bool,
    rss_kb: (u64, u64),
    fds: (usize, usize),
    logins: usize,
    elapsed: Duration,
}

pub(crate) fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

pub(crate) fn fd_count() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count())
}

/// A small tmpfs under the records, so a full disk can be made and undone.
pub(crate) fn mount_tmpfs(dir: &Path) -> bool {
    std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub(crate) fn umount(dir: &Path) {
    let _ = std::process::Command::new("umount").arg(dir).status();
}

/// Fills the file system of `dir` to the last byte.
pub(crate) fn fill_disk(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("filler");
    if let Ok(mut f) = std::fs::File::create(&path) {
        let chunk = vec![0u8; 64 * 1024];
        while f.write_all(&chunk).is_ok() {}
        let small = [0u8; 512];
        while f.write_all(&small).is_ok() {}
        while f.write_all(&[0]).is_ok() {}
    }
    path
}

/// Lines no server sends: overlong, binary, telnet commands, broken boards and
/// game lines, bells, glued prompts.
fn garbage(i: usize) -> Vec<u8> {
    let mut v: Vec<u8> = Vec::new();
    match i % 8 {
        0 => v.extend(std::iter::repeat_n(b'x', 9000)),
        1 => v.extend([0xff, 0xfb, 0x01, 0x00, 0x80, 0xfe, 0xc3, 0x28, 0xff, 0xff]),
        2 => v.extend(b"<12> rnbqkbnr pppppppp -------- zz 7 1 1 1 1 0 1"),
        3 => v.extend(b"{Game 1 (botone vs. "),
        4 => v.extend(b"\x07\x07\x07fics% fics% fics% Challenge: "),
        5 => v.extend("Ünïcödé ☃ \u{202e} tell botone resign".as_bytes()),
        6 => v.extend(b"\\   a continuation with nothing before it"),
        _ => v.extend(b"Creating: nobody (9999) botone (----) rated blitz 9999999999999 0"),
    }
    v.extend(b"\n\r");
    v
}

fn finished(s: &FakeStats) -> usize {
    s.results.iter().filter(|r| r.0 != "*").count()
}

async fn soak(name: &str, games: usize, max_plies: usize, icc: bool) -> Report {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .try_init();
    }
    // KIBITZER_SOAK_FAULTS=LinkCut,Reload: only these faults, in turn.
    let only: Vec<Fault> = std::env::var("KIBITZER_SOAK_FAULTS")
        .map(|v| {
            CYCLE
                .iter()
                .copied()
                .filter(|f| v.split(',').any(|w| w.trim() == format!("{f:?}")))
                .collect()
        })
        .unwrap_or_default();
    let mut cycle: Vec<Fault> = if only.is_empty() {
        CYCLE.to_vec()
    } else {
        only
    };
    if icc {
        // The fake ICC has no arrival notification: an opponent who left does not
        // come back to resume.
        cycle.retain(|&f| f != Fault::OpponentLeavesAndReturns);
    }
    let started = Instant::now();
    let srv = FakeServer::start(FakeConfig {
        games: 0,
        icc,
        rated: true,
        max_plies,
        down_for: Duration::from_secs(1),
        ..Default::default()
    })
    .await;
    let dir = temp_dir(&format!("soak-{name}"));
    let records = dir.join("records");
    std::fs::create_dir_all(&records).unwrap();
    let disk_full_possible = mount_tmpfs(&records);
    let book = records.join("book");
    std::fs::create_dir_all(&book).unwrap();
    let mut extra: Vec<String> = vec![
        format!("records.dir={}", records.display()),
        format!("bookpath={}", book.display()),
        "learn=7".into(),
        // One opponent for the whole soak.
        "bot.max_rematches=0".into(),
    ];
    if icc {
        extra.push("ics.server_type=icc".into());
    }
    let port = srv.port;
    let mk = {
        let dir = dir.clone();
        let extra = extra.clone();
        move || {
            let e: Vec<&str> = extra.iter().map(String::as_str).collect();
            settings(port, &dir, &e)
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
    let mut our: Vec<kibitzer::bot::GameReport> = Vec::new();
    let drain = |events: &mut tokio::sync::broadcast::Receiver<BotEvent>,
                 our: &mut Vec<kibitzer::bot::GameReport>,
                 started: &mut usize| {
        while let Ok(e) = events.try_recv() {
            match e {
                BotEvent::GameEnded(g) => our.push(*g),
                BotEvent::GameStarted { .. } => *started += 1,
                _ => {}
            }
        }
    };
    let mut starts = 0usize;
    for k in 0..games {
        let fault = cycle[k % cycle.len()];
        *r.faults.entry(format!("{fault:?}")).or_default() += 1;
        switch.store(fault == Fault::EnginePanic, Ordering::SeqCst);
        let ply = 8 + (k * 7) % 9;
        srv.set_config(|c| {
            c.games = k + 1;
            c.drop_at = None;
            c.shutdown_at = None;
            c.shutdown_countdown = None;
            c.opp_disconnect_at = None;
            c.opp_return_after = None;
            // The engine panics when it thinks at an even ply: it has White.
            c.opp_color = (fault == Fault::EnginePanic).then_some(kibitzer::chess::Color::Black);
            match fault {
                Fault::LinkCut => c.drop_at = Some(ply),
                Fault::ServerRestart => c.shutdown_at = Some(ply),
                Fault::ShutdownCountdown => {
                    c.shutdown_at = Some(ply);
                    c.shutdown_countdown = Some(2);
                }
                Fault::OpponentLeavesAndReturns => {
                    c.opp_disconnect_at = Some(ply);
                    c.opp_return_after = Some(Duration::from_millis(700));
                }
                _ => {}
            }
        });
        let before = finished(&srv.stats());
        srv.challenge_now();
        // The game starts (the bot may be logging in again after the last fault).
        let t0 = Instant::now();
        let start_before = starts;
        let mut asked = Instant::now();
        while starts == start_before && t0.elapsed() < Duration::from_secs(60) {
            if asked.elapsed() > Duration::from_secs(1) {
                srv.challenge_now();
                asked = Instant::now();
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            drain(&mut events, &mut our, &mut starts);
        }
        let mut filler = None;
        match fault {
            Fault::GarbageBurst => {
                tokio::time::sleep(Duration::from_millis(500)).await;
                for i in 0..60 {
                    srv.inject(&garbage(i));
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
            Fault::DiskFull if disk_full_possible => {
                tokio::time::sleep(Duration::from_millis(300)).await;
                filler = Some(fill_disk(&records));
            }
            Fault::Reload => {
                for _ in 0..2 {
                    tokio::time::sleep(Duration::from_millis(600)).await;
                    control.send(ControlMsg::Reload);
                }
            }
            _ => {}
        }
        let done = srv
            .wait_for(Duration::from_secs(180), |s| finished(s) > before)
            .await;
        if let Some(f) = filler {
            // Still full while the record of the result is written: it must be
            // held back, not lost.
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let _ = std::fs::remove_file(f);
        }
        if !done {
            r.stuck.push(k);
            let st = srv.stats();
            eprintln!(
                "soak: game {k} ({fault:?}) did not finish: started {}, logins {}, last result {:?}",
                starts > start_before,
                st.logins,
                st.results.last()
            );
            break;
        }
        drain(&mut events, &mut our, &mut starts);
        r.games += 1;
        if k == cycle.len() - 1 || (games < cycle.len() && k == 0) {
            r.rss_kb.0 = rss_kb();
            r.fds.0 = fd_count();
        }
        if (k + 1) % 50 == 0 {
            eprintln!(
                "soak: {} games, {:.0} s, rss {} kB, fds {}",
                k + 1,
                started.elapsed().as_secs_f64(),
                rss_kb(),
                fd_count()
            );
        }
    }
    // Records are written just after the result: let the last one land.
    tokio::time::sleep(Duration::from_millis(500)).await;
    r.rss_kb.1 = rss_kb();
    r.fds.1 = fd_count();
    control.send(ControlMsg::Shutdown);
    let _ = tokio::time::timeout(Duration::from_secs(30), handle).await;
    drain(&mut events, &mut our, &mut starts);
    let stats = srv.stats();
    r.logins = stats.logins;
    r.time_losses = stats.bot_time_losses;
    r.illegal = stats.illegal_moves
        + our
            .iter()
            .map(|g| g.stats.illegal_replies as usize)
            .sum::<usize>();
    for (res, reason, _) in &stats.results {
        *r.results
            .entry(format!("{res} {}", short(reason)))
            .or_default() += 1;
    }
    r.fake_finished = stats
        .results
        .iter()
        .filter(|x| x.0 != "*")
        .map(|x| x.0.clone())
        .collect();
    r.engine_faults = our.iter().map(|g| g.stats.faults).sum();
    for g in our
        .iter()
        .filter(|g| !g.result.is_empty() && g.result != "*")
    {
        let lost = matches!(
            (g.result.as_str(), g.our_color),
            ("0-1", kibitzer::chess::Color::White) | ("1-0", kibitzer::chess::Color::Black)
        );
        if lost {
            *r.our_losses.entry(short(&g.reason)).or_default() += 1;
            if g.stats.faults > 0 {
                r.lost_after_faults += 1;
            }
            if g.stats.faults >= 3 {
                r.resigned_for_faults += 1;
            }
        }
    }
    let pgn = std::fs::read_to_string(records.join("games.pgn")).unwrap_or_default();
    r.records = kibitzer::chess::pgn::read_all(&pgn)
        .into_iter()
        .filter_map(|g| g.ok())
        .map(|g| g.tag("Result").unwrap_or("?").to_string())
        .collect();
    r.in_progress_left = std::fs::read_dir(records.join("in-progress")).map_or(0, |d| d.count());
    r.held_back = kibitzer::bot::archive::Archive::pending();
    if let Ok(d) = std::fs::read_dir(&book) {
        for e in d.flatten() {
            let len = e.metadata().map_or(0, |m| m.len());
            r.learning_files
                .push((e.file_name().to_string_lossy().into_owned(), len));
        }
    }
    r.learning_problems = kibitzer::learn::Learner::open_read_only(&book).problems();
    r.elapsed = started.elapsed();
    if disk_full_possible {
        umount(&records);
    }
    let _ = std::fs::remove_dir_all(&dir);
    r
}

/// The reason without the players' names (`OPP resigns` -> `resigns`).
fn short(reason: &str) -> String {
    reason
        .replace(OPP, "opp")
        .replace("botone", "bot")
        .chars()
        .take(60)
        .collect()
}

/// What every soak checks after its games.
pub(crate) struct Checks<'a> {
    pub stuck: &'a [usize],
    pub time_losses: usize,
    pub illegal: usize,
    pub resigned_for_faults: usize,
    /// Engine faults seen, and the panics injected.
    pub engine_faults: u32,
    pub panics: u32,
    /// The finished games as recorded, and as the server finished them.
    pub records: &'a [String],
    pub finished: &'a [String],
    pub in_progress_left: usize,
    pub held_back: usize,
    pub learning_problems: usize,
    pub disk_full_possible: bool,
    pub fds: (usize, usize),
}

impl Checks<'_> {
    pub(crate) fn assert(&self) {
        if !self.disk_full_possible {
            eprintln!(
                "soak: no tmpfs could be mounted here: the DiskFull games ran without a full disk"
            );
        }
        assert!(
            self.stuck.is_empty(),
            "games that never finished: {:?}",
            self.stuck
        );
        assert_eq!(self.time_losses, 0, "lost on time");
        assert_eq!(self.illegal, 0, "illegal moves");
        assert_eq!(
            self.resigned_for_faults, 0,
            "games resigned for engine faults"
        );
        assert!(
            self.engine_faults >= self.panics,
            "every EnginePanic game had its panic: {} of {}",
            self.engine_faults,
            self.panics
        );
        assert_eq!(
            self.records, self.finished,
            "every finished game recorded once, in order (none lost, none duplicated)"
        );
        assert_eq!(self.in_progress_left, 0, "records left in progress");
        assert_eq!(self.held_back, 0, "records held back by the full disk");
        assert_eq!(
            self.learning_problems, 0,
            "learning files that do not verify"
        );
        assert!(
            self.fds.1 <= self.fds.0 + 8,
            "file descriptors grew: {:?}",
            self.fds
        );
    }
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
        finished: &r.fake_finished,
        in_progress_left: r.in_progress_left,
        held_back: r.held_back,
        learning_problems: r.learning_problems,
        disk_full_possible: r.disk_full_possible,
        fds: r.fds,
    }
    .assert();
}

/// One round of every fault (about a minute): CI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_one_round_of_every_fault() {
    let r = soak("round", CYCLE.len(), 70, false).await;
    assert_eq!(r.games, CYCLE.len());
    check(&r);
}

/// The same against the fake ICC (level-1 and level-2 units).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soak_one_round_of_every_fault_icc() {
    let r = soak("round-icc", CYCLE.len() - 1, 70, true).await;
    assert_eq!(r.games, CYCLE.len() - 1);
    check(&r);
}

/// The long soak: `KIBITZER_SOAK_GAMES` games (default 500).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn soak_measure() {
    let n = std::env::var("KIBITZER_SOAK_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let icc = std::env::var_os("KIBITZER_SOAK_ICC").is_some();
    let r = soak(if icc { "measure-icc" } else { "measure" }, n, 400, icc).await;
    check(&r);
    eprintln!(
        "soak: {} games in {:.0} s; rss {} -> {} kB; fds {} -> {}; logins {}",
        r.games,
        r.elapsed.as_secs_f64(),
        r.rss_kb.0,
        r.rss_kb.1,
        r.fds.0,
        r.fds.1,
        r.logins
    );
}
