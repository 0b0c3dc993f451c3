//! What the real lasker server showed and the fake now copies (issue 13): `;` as a
//! command separator (an attack through every owner level and reply path), a search
//! left running after an adjournment (measured as the daemon process's CPU time),
//! flag danger in long games without increment against an opponent that flags at
//! zero, observed-game talk on a server without `xwhisper`, a followed player
//! looked for again, a server without timeseal, and wrapped tells.

use crate::daemon::{settings, temp_dir};
use crate::ics_fake_server::{FakeConfig, FakeServer, FakeStats, DROPPED_BY_SHUTDOWN, OPP};
use kibitzer::bot::{ControlMsg, Daemon, Exit};
use std::time::Duration;

struct Run {
    srv: FakeServer,
    handle: tokio::task::JoinHandle<Exit>,
    control: kibitzer::bot::Control,
    dir: std::path::PathBuf,
}

async fn start(name: &str, cfg: FakeConfig, extra: &[&str]) -> Run {
    let srv = FakeServer::start(cfg).await;
    let dir = temp_dir(name);
    let d = Daemon::new(settings(srv.port, &dir, extra));
    let control = d.control();
    let handle = tokio::spawn(d.run());
    Run {
        srv,
        handle,
        control,
        dir,
    }
}

impl Run {
    async fn quit(self) -> (FakeStats, Exit) {
        self.control.send(ControlMsg::Quit);
        let exit = tokio::time::timeout(Duration::from_secs(20), self.handle)
            .await
            .expect("daemon stops")
            .expect("no panic");
        let _ = std::fs::remove_dir_all(&self.dir);
        (self.srv.stats(), exit)
    }

    /// The PGN file once it holds `n` records (or after 5 s), and the records still
    /// in progress.
    async fn records(&self, n: usize) -> (String, Vec<std::path::PathBuf>) {
        let mut pgn = String::new();
        for _ in 0..100 {
            pgn = std::fs::read_to_string(self.dir.join("games.pgn")).unwrap_or_default();
            if pgn.matches("[Result").count() >= n {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let in_progress = std::fs::read_dir(self.dir.join("in-progress"))
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        (pgn, in_progress)
    }

    async fn logged_in(&self) -> bool {
        self.srv
            .wait_for(Duration::from_secs(20), |s| {
                s.commands.iter().any(|c| c == "set style 12")
            })
            .await
    }
}

/// Commands that, arriving at the server, would mean an injection worked.
const FORBIDDEN: [&str; 9] = [
    "resign", "date", "abort", "quit", "adjourn", "finger", "games", "who", "draw",
];

/// Every owner level, a non-owner and a guest send payloads built to break out of
/// the reply (the parse error used to echo the word), during a live game. The fake
/// splits lines on `;` as lasker does; nothing but our own commands may arrive.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_tell_can_make_the_server_run_a_command() {
    let cfg = FakeConfig {
        minutes: 10,
        opp_think: Duration::from_millis(300),
        max_plies: 400,
        ..Default::default()
    };
    let r = start(
        "inject",
        cfg,
        &[
            "bot.seeks=",
            "bot.owners=alice:admin, bob:viewer, olga:operator",
            "whisper=2",
            "kibitz=3",
            "noise=0",
            "sn=20000",
        ],
    )
    .await;
    assert!(r.logged_in().await);
    r.srv.challenge_now();
    assert!(
        r.srv
            .wait_for(Duration::from_secs(20), |s| s
                .commands
                .iter()
                .any(|c| c == &format!("accept {OPP}")))
            .await
    );
    let payloads = [
        "x;resign;",
        "x;date;",
        "status;resign",
        "help;abort",
        "list GM;resign",
        "list GM +eve;resign",
        "list GM -eve;date",
        "observe 1;resign",
        "unobserve 1;resign",
        "whisper 9;resign",
        "kibitz x;resign",
        "noise x;resign",
        "mode x;resign",
        "operator ;resign",
        "$resign",
        "x\\;resign",
        ";resign",
        "resign ;date",
        "draw;resign",
        "seek;finger",
        "list GM +a;b;resign",
        "status ;who",
    ];
    let tellers = ["alice", "olga", "bob", "mallory", "GuestXYZ(U)", "trent(U)"];
    let mut sent = 0;
    for (i, p) in payloads.iter().enumerate() {
        for t in tellers {
            // Non-owners are answered once per handle: give each payload its own.
            let from = if t == "mallory" {
                format!("mallory{}", (b'a' + i as u8) as char)
            } else {
                t.to_string()
            };
            r.srv.tell(&from, p);
            sent += 1;
        }
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    // Replies to all of them, then a quiet moment for anything delayed.
    assert!(
        r.srv
            .wait_for(Duration::from_secs(10), |s| s
                .commands
                .iter()
                .filter(|c| c.starts_with("tell "))
                .count()
                >= payloads.len() * 3)
            .await
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let s = r.srv.stats();
    let _ = r.quit().await;
    let bad: Vec<&String> = s
        .commands
        .iter()
        .filter(|c| {
            let w = c.split_whitespace().next().unwrap_or("");
            FORBIDDEN.contains(&w.to_ascii_lowercase().as_str())
        })
        .collect();
    assert!(bad.is_empty(), "{sent} payloads; injected: {bad:?}");
    assert!(
        s.not_found.is_empty(),
        "lines the server could not run: {:?}",
        s.not_found
    );
    // The game was not ended by any of it.
    assert!(
        !s.results.iter().any(|r| r.1.contains("resign")),
        "{:?}",
        s.results
    );
    assert!(
        !s.commands.iter().any(|c| c.contains(';')),
        "{:?}",
        s.commands
    );
}

/// The talk formats carry no `;`: a level-2/3 summary reaches the server whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn talk_in_our_games_arrives_whole() {
    // The bot plays Black and ponders: the per-game engine log must number the PVs
    // of its own searches right (`3... Nf6` at ply 5) and log no ponder search.
    let cfg = FakeConfig {
        max_plies: 16,
        opp_color: Some(kibitzer::chess::Color::White),
        opp_think: Duration::from_millis(150),
        ..Default::default()
    };
    let r = start(
        "talkwhole",
        cfg,
        &[
            "bot.seeks=",
            "whisper=3",
            "kibitz=2",
            "noise=0",
            "ponder=on",
            "log=on",
        ],
    )
    .await;
    assert!(r.logged_in().await);
    r.srv.challenge_now();
    let _ = r.srv.wait_results(1, Duration::from_secs(60)).await;
    let mut log = String::new();
    for _ in 0..100 {
        if let Ok(d) = std::fs::read_dir(r.dir.join("logs")) {
            for e in d.flatten() {
                log = std::fs::read_to_string(e.path()).unwrap_or_default();
            }
        }
        if !log.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (s, _) = r.quit().await;
    let mut checked = 0;
    for line in log.lines().filter(|l| l.contains(" pv ")) {
        let ply: usize = line
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        let pv = line.split(" pv ").nth(1).unwrap_or("");
        let want = if ply % 2 == 1 {
            format!("{}. ... ", ply / 2 + 1)
        } else {
            format!("{}. ", ply / 2 + 1)
        };
        assert!(pv.starts_with(&want), "ply {ply}: {line}");
        checked += 1;
    }
    assert!(checked > 0, "{log}");
    assert!(
        s.commands.iter().any(|c| c.starts_with("whisper ply=")),
        "{:?}",
        s.commands
    );
    assert!(s.not_found.is_empty(), "{:?}", s.not_found);
}

/// CPU time (user + system) of a process, from /proc.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let tail = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = tail.split_whitespace().collect();
    // Fields 14 and 15 of the file; after the `)` they are the 12th and 13th.
    let ticks: u64 = f.get(11).and_then(|x| x.parse().ok()).unwrap_or(0)
        + f.get(12).and_then(|x| x.parse().ok()).unwrap_or(0);
    // Clock ticks per second: 100 on Linux.
    Duration::from_millis(ticks * 10)
}

/// The opponent's link drops while the daemon thinks on its move: the game is
/// adjourned, and the engine must go idle (no search, no pondering). Measured on the
/// daemon binary as a process of its own: its CPU time over 3 s after the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adjourned_game_leaves_the_engine_idle() {
    let srv = FakeServer::start(FakeConfig {
        minutes: 10,
        opp_disconnect_at: Some(2),
        opp_disconnect_after: Duration::from_millis(1500),
        opp_color: Some(kibitzer::chess::Color::Black),
        ..Default::default()
    })
    .await;
    let dir = temp_dir("idle");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kibitzer"))
        .arg("daemon")
        .args([
            "--set",
            "ics.server=127.0.0.1",
            "--set",
            &format!("ics.port={}", srv.port),
            "--set",
            "ics.server_type=lasker",
            "--set",
            "ics.handle=botone",
            "--set",
            "ics.timeseal=off",
            "--set",
            &format!("records.dir={}", dir.display()),
            "--set",
            &format!("bot.noplay_file={}", dir.join("noplay").display()),
            "--set",
            "bot.seeks=10 0 u m",
            "--set",
            "hash=8M",
            "--set",
            "ponder=on",
            "--set",
            "log=off",
        ])
        .env("KIBITZER_PASSWORD", "onepass")
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the daemon");
    let pid = child.id();
    let adjourned = srv
        .wait_for(Duration::from_secs(40), |s| {
            s.results.iter().any(|r| r.1 == "adjourned")
        })
        .await;
    // Let a stopped search's move arrive (and, before the fix, its ponder start).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = cpu_time(pid);
    tokio::time::sleep(Duration::from_secs(3)).await;
    let used = cpu_time(pid).saturating_sub(before);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(adjourned, "{:?}", srv.stats());
    assert!(
        srv.stats().commands.iter().any(|c| c.starts_with("e2e4")
            || c.len() <= 6 && c.chars().nth(1).is_some_and(|d| d.is_ascii_digit())),
        "the daemon played its first move: {:?}",
        srv.stats().commands
    );
    assert!(
        used < Duration::from_millis(400),
        "the daemon used {used:?} of CPU in 3 s after the game was adjourned"
    );
}

/// A long game without increment on a whole-second server, against an opponent
/// that flags the instant the bot's clock reaches zero: no time forfeit, and the
/// clock keeps a floor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_game_without_increment_is_not_lost_on_time() {
    // A fortress (pawns locked on a4-g5, kings that cannot cross, bishops that
    // cannot reach a pawn) and no draw
    // claims granted: the game runs to 300 plies, 150 moves of the bot in 8 s.
    let cfg = FakeConfig {
        minutes: 1,
        clock_ms: Some(8_000),
        inc: 0,
        max_plies: 300,
        start_fen: Some("4k3/2b5/8/p1p1p1p1/P1P1P1P1/8/4B3/4K3 w - - 0 1"),
        refuse_draw_claims: true,
        opp_think: Duration::from_millis(5),
        opp_nodes: 60,
        lag: Duration::from_millis(3),
        jitter: Duration::from_millis(4),
        ..Default::default()
    };
    let r = start(
        "floor",
        cfg,
        &["bot.seeks=", "sn=0", "ponder=off", "resign=0"],
    )
    .await;
    assert!(r.logged_in().await);
    r.srv.challenge_now();
    let res = r.srv.wait_results(1, Duration::from_secs(120)).await;
    let (s, _) = r.quit().await;
    assert_eq!(res.results.len(), 1, "{res:?}");
    assert_eq!(s.bot_time_losses, 0, "lost on time: {:?}", s.results);
    assert_eq!(s.illegal_moves, 0);
    let plies = res.results[0].2;
    let reserve = s.min_bot_reserve_ms.unwrap_or(0);
    eprintln!("{plies} plies, smallest clock after a move {reserve} ms");
    assert!(reserve > 0, "the clock reached {reserve} ms");
}

/// On lasker, talk about an observed game goes out as plain whisper/kibitz (the
/// server has no xwhisper); a server that answers `Command not found.` to xwhisper
/// is noticed and the plain command used from then on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn observed_talk_uses_what_the_server_has() {
    let cfg = FakeConfig {
        fics_mode: false,
        ..Default::default()
    };
    // The FICS profile tries xwhisper first; the fake (lasker) refuses it.
    let r = start(
        "xtalk",
        cfg,
        &[
            "ics.server_type=fics",
            "bot.seeks=",
            "bot.observe=77",
            "whisper=5",
            "noise=0",
            "sn=0",
            "talk.per_minute=120",
        ],
    )
    .await;
    assert!(r.logged_in().await);
    assert!(
        r.srv
            .wait_for(Duration::from_secs(10), |s| s
                .commands
                .iter()
                .any(|c| c == "observe 77"))
            .await
    );
    r.srv.inject(
        crate::bot_daemon::style12(crate::bot_daemon::MIDGAME, 77, 0, "alpha", "beta").as_bytes(),
    );
    assert!(
        r.srv
            .wait_for(Duration::from_secs(30), |s| s
                .commands
                .iter()
                .any(|c| c.starts_with("whisper d")))
            .await,
        "{:?}",
        r.srv.stats().commands
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (s, _) = r.quit().await;
    let first_plain = s
        .commands
        .iter()
        .position(|c| c.starts_with("whisper d"))
        .expect("a plain whisper");
    assert!(
        !s.commands[first_plain..]
            .iter()
            .any(|c| c.starts_with("xwhisper")),
        "xwhisper kept being sent after Command not found: {:?}",
        s.commands
    );
    assert!(s.not_found.iter().any(|c| c.starts_with("xwhisper")));
}

/// `bot.observe = player:X` while X is not logged in: looked for again every
/// `bot.observe_retry`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_player_not_logged_in_is_looked_for_again() {
    let r = start(
        "retry",
        FakeConfig::default(),
        &[
            "bot.seeks=",
            "bot.observe=player:Carol",
            "bot.observe_retry=1",
        ],
    )
    .await;
    assert!(r.logged_in().await);
    let again = r
        .srv
        .wait_for(Duration::from_secs(6), |s| {
            s.commands.iter().filter(|c| *c == "observe Carol").count() >= 3
        })
        .await;
    let (s, _) = r.quit().await;
    assert!(again, "{:?}", s.commands);
}

/// A server without timeseal takes the hello for a login name: the daemon says so
/// and logs in without timeseal instead of giving up on "the name".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_timeseal_is_detected() {
    let r = start(
        "noseal",
        FakeConfig {
            no_timeseal: true,
            ..Default::default()
        },
        &["ics.timeseal=v2", "bot.seeks="],
    )
    .await;
    let ok = r.logged_in().await;
    let done = r.handle.is_finished();
    let (s, exit) = r.quit().await;
    assert!(ok && !done, "{exit:?} {s:?}");
    assert_eq!(s.logins, 1);
}

/// A long tell wrapped by the server (`\   ` continuation lines) reaches the owner
/// command parser whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrapped_tell_is_read_whole() {
    let r = start(
        "wrapped",
        FakeConfig::default(),
        &["bot.seeks=", "bot.owners=alice:admin"],
    )
    .await;
    assert!(r.logged_in().await);
    // After `set width 240` the server wraps at 240: a list edit with many names
    // comes in two lines.
    let names: Vec<String> = (0..61).map(|i| format!("+p{i:02}")).collect();
    r.srv.tell("alice", &format!("list GM {}", names.join(" ")));
    let ok = r
        .srv
        .wait_for(Duration::from_secs(10), |s| {
            s.commands
                .iter()
                .any(|c| c.starts_with("tell alice") && c.contains("p60"))
        })
        .await;
    let (s, _) = r.quit().await;
    assert!(ok, "{:?}", s.commands);
}

/// A game adjourned by a server shutdown (announced with a countdown, as lasker
/// does) and resumed after the restart is recorded once, when it ends, with PGN
/// termination values, a clock comment on every ply (those before the shutdown
/// rebuilt from `moves`), and no in-progress record left behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adjourned_and_resumed_game_is_recorded_once() {
    let cfg = FakeConfig {
        rated: true,
        shutdown_at: Some(4),
        shutdown_countdown: Some(1),
        down_for: Duration::from_millis(1500),
        // The game goes on through the countdown: about six plies in the second.
        opp_think: Duration::from_millis(150),
        opp_resign_at: Some(24),
        ..Default::default()
    };
    let r = start("record", cfg, &[]).await;
    let s = r.srv.wait_results(2, Duration::from_secs(60)).await;
    assert_eq!(s.results.len(), 2, "{s:?}");
    assert!(s.results[1].1.contains("resigns"), "{s:?}");
    let (pgn, in_progress) = r.records(1).await;
    let (stats, _) = r.quit().await;
    assert_eq!(stats.bot_time_losses, 0);
    assert_eq!(pgn.matches("[Event ").count(), 1, "{pgn}");
    assert!(pgn.contains("[Termination \"normal\"]"), "{pgn}");
    assert!(
        pgn.contains("[TerminationDetails \"bottwo resigns\"]"),
        "{pgn}"
    );
    let plies = s.results[1].2;
    assert!(
        pgn.matches("[%clk").count() >= plies,
        "{plies} plies: {pgn}"
    );
    assert!(in_progress.is_empty(), "{in_progress:?}");
}

/// An unrated game in progress at a shutdown vanishes from lasker (only rated games
/// are adjourned; transcript `g_shutdown`): no game line, nothing to resume. Its
/// in-progress record is not overwritten by the next game with the same opponent
/// (colours reversed): it goes to the PGN file as it stood, result `*` and
/// unterminated, before the new game's record; nothing stays in progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unrated_game_dropped_by_a_shutdown_keeps_its_record() {
    let cfg = FakeConfig {
        games: 2,
        shutdown_at: Some(6),
        down_for: Duration::from_millis(1500),
        opp_resign_at: Some(10),
        ..Default::default()
    };
    let r = start("dropped", cfg, &[]).await;
    let s = r.srv.wait_results(2, Duration::from_secs(60)).await;
    assert_eq!(s.results.len(), 2, "{s:?}");
    assert_eq!(s.results[0].1, DROPPED_BY_SHUTDOWN, "{s:?}");
    assert!(s.results[1].1.contains("resigns"), "{s:?}");
    let (pgn, in_progress) = r.records(2).await;
    let (stats, _) = r.quit().await;
    assert_eq!(stats.bot_time_losses, 0);
    let records: Vec<&str> = pgn.split("[Event ").skip(1).collect();
    assert_eq!(records.len(), 2, "{pgn}");
    // The dropped game first, as it stood: botone White, six plies, no result.
    assert!(records[0].contains("[White \"botone\"]"), "{pgn}");
    assert!(records[0].contains("[Result \"*\"]"), "{pgn}");
    assert!(
        records[0].contains("[Termination \"unterminated\"]"),
        "{pgn}"
    );
    assert!(
        records[0].contains(&format!(
            "[TerminationDetails \"{}\"]",
            kibitzer::bot::archive::DROPPED
        )),
        "{pgn}"
    );
    assert!(records[0].contains(" 3. "), "{pgn}");
    // Then the new game, colours reversed, to its end.
    assert!(records[1].contains("[White \"bottwo\"]"), "{pgn}");
    assert!(records[1].contains("[Termination \"normal\"]"), "{pgn}");
    assert!(in_progress.is_empty(), "{in_progress:?}");
}

/// The engine thread of a game, driven directly: a game that ends while it thinks
/// or while it ponders leaves it idle, and a search that ends after the game plays
/// nothing and starts no pondering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_over_leaves_the_engine_idle_while_thinking_or_pondering() {
    use kibitzer::bot::brain::{Brain, BrainCmd, BrainEvent};
    use kibitzer::chess::{Board, Color};
    let mut opts = kibitzer::options::Options::new();
    opts.set("hash", "4M").unwrap();
    opts.set("ponder", "on").unwrap();
    let position = |moves: Vec<kibitzer::chess::Move>, think: bool| BrainCmd::Position {
        start: Box::new(Board::startpos()),
        moves,
        white: Duration::from_secs(600),
        black: Duration::from_secs(600),
        overhead: Duration::from_millis(50),
        think,
    };
    async fn until(b: &Brain, want: bool) -> bool {
        for _ in 0..200 {
            if b.is_searching() == want {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }
    for pondering in [false, true] {
        let mut b = Brain::spawn(&opts, None, kibitzer::external::HealthBoard::default());
        b.send(BrainCmd::NewGame {
            opts: Box::new(opts.clone()),
            side: Color::White,
            opponent: Default::default(),
            fault: None,
        });
        b.send(position(Vec::new(), true));
        assert!(until(&b, true).await, "thinking");
        if pondering {
            // Make it move now: the move comes, then the ponder search starts.
            b.send(BrainCmd::Stop);
            let mv = loop {
                match tokio::time::timeout(Duration::from_secs(10), b.events.recv()).await {
                    Ok(Some(BrainEvent::Move { mv, .. })) => break mv,
                    Ok(Some(_)) => continue,
                    other => panic!("no move: {other:?}"),
                }
            };
            let _ = mv;
            assert!(until(&b, true).await, "pondering");
        }
        b.send(BrainCmd::GameOver);
        assert!(
            until(&b, false).await,
            "idle after the game (pondering: {pondering})"
        );
        // Nothing starts by itself afterwards.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert!(!b.is_searching(), "pondering: {pondering}");
        while let Ok(ev) = b.events.try_recv() {
            assert!(
                !matches!(ev, BrainEvent::Move { .. }) || pondering,
                "a move after the game: {ev:?}"
            );
        }
    }
}
