//! The daemon against the fake server (`ics_fake_server`): logins, whole games,
//! offers, flags, dropped connections, idle logout, server shutdown, garbage on the
//! wire, refused moves, engine faults. Real time throughout (the engine is in the
//! loop); most games limit the engine by nodes so they take seconds.

use crate::ics_fake_server::{FakeConfig, FakeServer, FakeStats, OPP};
use kibitzer::bot::brain::Fault;
use kibitzer::bot::{BotEvent, ControlMsg, Daemon, Exit, GameReport};
use kibitzer::chess::Color;
use std::path::PathBuf;
use std::time::Duration;

pub(crate) fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kibitzer-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) fn settings(
    port: u16,
    dir: &std::path::Path,
    extra: &[&str],
) -> kibitzer::settings::Settings {
    let mut cli: Vec<String> = vec![
        "ics.server=127.0.0.1".into(),
        format!("ics.port={port}"),
        "ics.server_type=lasker".into(),
        "ics.handle=botone".into(),
        "ics.timeseal=off".into(),
        format!("records.dir={}", dir.display()),
        format!("bot.noplay_file={}", dir.join("noplay").display()),
        "bot.seeks=1 0 u m".into(),
        "hash=4M".into(),
        "ponder=off".into(),
        "sn=1500".into(),
        "ics.reconnect_min=0.2".into(),
        "ics.reconnect_max=1".into(),
        "log=on".into(),
        "bot.first_move_timeout=30".into(),
    ];
    cli.extend(extra.iter().map(|s| s.to_string()));
    kibitzer::settings::load(None, [("KIBITZER_PASSWORD", "onepass")], &cli).expect("test settings")
}

struct Run {
    srv: FakeServer,
    handle: tokio::task::JoinHandle<Exit>,
    control: kibitzer::bot::Control,
    events: tokio::sync::broadcast::Receiver<BotEvent>,
    dir: PathBuf,
}

async fn start(
    name: &str,
    cfg: FakeConfig,
    extra: &[&str],
    tweak: impl FnOnce(&mut Daemon),
) -> Run {
    // The fake ICC: the same test against ICC's units (`ics_fake_icc`).
    let icc = cfg.icc;
    let srv = FakeServer::start(cfg).await;
    let dir = temp_dir(&format!("{name}{}", if icc { "-icc" } else { "" }));
    let mut all: Vec<&str> = extra.to_vec();
    if icc {
        all.push("ics.server_type=icc");
    }
    let mut d = Daemon::new(settings(srv.port, &dir, &all));
    tweak(&mut d);
    let control = d.control();
    let events = d.subscribe();
    let handle = tokio::spawn(d.run());
    Run {
        srv,
        handle,
        control,
        events,
        dir,
    }
}

impl Run {
    async fn finish(self, timeout: Duration) -> (FakeStats, Vec<BotEvent>, Exit) {
        self.control.send(ControlMsg::Shutdown);
        let exit = tokio::time::timeout(timeout, self.handle)
            .await
            .expect("daemon stops")
            .expect("no panic");
        let mut evs = Vec::new();
        let mut rx = self.events;
        while let Ok(e) = rx.try_recv() {
            evs.push(e);
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        (self.srv.stats(), evs, exit)
    }
}

fn reports(evs: &[BotEvent]) -> Vec<GameReport> {
    evs.iter()
        .filter_map(|e| match e {
            BotEvent::GameEnded(r) => Some((**r).clone()),
            _ => None,
        })
        .collect()
}

/// One test body against both fakes: FICS-lineage (`$fics`) and ICC (`$icc`).
macro_rules! on_both {
    ($fics:ident, $icc:ident, $body:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $fics() {
            $body(false).await
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $icc() {
            $body(true).await
        }
    };
}
pub(crate) use on_both;

/// The command that re-synchronises a game: `moves N` (FICS), `refresh N` (ICC).
pub(crate) fn resync_prefix(icc: bool) -> &'static str {
    if icc {
        "refresh "
    } else {
        "moves "
    }
}

/// FICS re-synchronises a resumed game from `moves`; ICC's resume brings the
/// moves with it (nothing to ask).
fn assert_resumed_from_moves(stats: &FakeStats, icc: bool) {
    if !icc {
        assert!(
            stats
                .commands
                .iter()
                .any(|c| c.starts_with(resync_prefix(icc))),
            "re-synchronised from moves: {stats:?}"
        );
    }
}

fn assert_clean(s: &FakeStats) {
    assert_eq!(s.illegal_moves, 0, "illegal moves sent: {s:?}");
    assert_eq!(s.bot_time_losses, 0, "time forfeits: {s:?}");
}

on_both!(
    guest_login_and_a_game_to_the_end,
    icc_guest_login_and_a_game_to_the_end,
    guest_game
);

async fn guest_game(icc: bool) {
    let cfg = FakeConfig {
        max_plies: 40,
        icc,
        ..Default::default()
    };
    let r = start("guest", cfg, &["ics.handle=guest"], |_| {}).await;
    let stats = r.srv.wait_results(1, Duration::from_secs(60)).await;
    let pgn_path = r.dir.join("games.pgn");
    // The daemon appends the game after the server announced the result, then
    // writes the game's log: wait for both.
    let mut pgn = String::new();
    let mut logs = 0;
    for _ in 0..200 {
        pgn = std::fs::read_to_string(&pgn_path).unwrap_or_default();
        logs = std::fs::read_dir(r.dir.join("logs"))
            .map(|d| d.count())
            .unwrap_or(0);
        if logs >= 1
            && stats
                .results
                .first()
                .is_some_and(|(res, _, _)| pgn.contains(res.as_str()))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (stats2, evs, exit) = r.finish(Duration::from_secs(20)).await;
    assert_eq!(exit, Exit::Ok);
    assert_eq!(stats.results.len(), 1, "{stats:?}");
    assert_clean(&stats2);
    let guest = if icc { "guest2345" } else { "GuestABCD" };
    assert!(evs
        .iter()
        .any(|e| matches!(e, BotEvent::LoggedIn { handle } if handle == guest)));
    assert!(
        pgn.contains("[White \"") && pgn.contains("[TimeControl \"60+0\"]") && pgn.contains("%clk"),
        "{pgn}"
    );
    assert!(
        pgn.contains(&stats.results[0].0),
        "result in the PGN: {pgn}"
    );
    assert!(logs >= 1, "a per-game log");
    // The session set-up went out.
    let setup: &[&str] = if icc {
        &[
            "set level1 1",
            "set-2 24 1",
            "set-2 56 1",
            "set-2 101 1",
            "set width 240",
            "set bell 0",
            "set seek 0",
            "seek 1 0 u m",
        ]
    } else {
        &[
            "set style 12",
            "set width 240",
            "iset ms 1",
            "set bell 0",
            "set seek 0",
            "seek 1 0 u m",
        ]
    };
    if icc {
        // Level 1 and the level-2 units were asked for before the name.
        assert!(
            stats2.login_lines.iter().any(|l| l == "level1=1")
                && stats2
                    .login_lines
                    .iter()
                    .any(|l| l.starts_with("level2settings=") && l.len() > 100),
            "{:?}",
            stats2.login_lines
        );
        assert!(!stats2
            .commands
            .iter()
            .any(|c| c.starts_with("iset") || c == "set style 12"));
    }
    for &c in setup {
        assert!(
            stats2.commands.iter().any(|x| x == c),
            "missing {c}: {:?}",
            stats2.commands
        );
    }
}

on_both!(
    registered_login_with_a_bad_password_exits_with_the_credentials_code,
    icc_registered_login_with_a_bad_password_exits_with_the_credentials_code,
    bad_password
);

async fn bad_password(icc: bool) {
    let srv = FakeServer::start(FakeConfig {
        icc,
        ..Default::default()
    })
    .await;
    let dir = temp_dir(if icc { "badpw-icc" } else { "badpw" });
    let s = kibitzer::settings::load(
        None,
        [("KIBITZER_PASSWORD", "wrong")],
        &[
            "ics.server=127.0.0.1".into(),
            format!("ics.port={}", srv.port),
            "ics.handle=botone".into(),
            "ics.timeseal=off".into(),
            format!("ics.server_type={}", if icc { "icc" } else { "auto" }),
            format!("records.dir={}", dir.display()),
        ],
    )
    .unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(20), Daemon::new(s).run())
        .await
        .unwrap();
    assert_eq!(exit, Exit::Credentials);
    assert_eq!(srv.stats().logins, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_clock_game_with_timeseal_lag_and_jitter() {
    // No node limit: the time manager plays a 1 0 game against the referee's clock,
    // the moves stamped by timeseal, the server adding lag for the unsealed login.
    let cfg = FakeConfig {
        max_plies: 24,
        lag: Duration::from_millis(80),
        jitter: Duration::from_millis(60),
        fics_mode: true,
        ..Default::default()
    };
    let r = start(
        "realclock",
        cfg,
        &[
            "sn=0",
            "ics.timeseal=v2",
            "ics.server_type=fics",
            "ponder=on",
        ],
        |_| {},
    )
    .await;
    r.srv.wait_results(1, Duration::from_secs(90)).await;
    let (stats, evs, _) = r.finish(Duration::from_secs(20)).await;
    assert_eq!(stats.results.len(), 1, "{stats:?}");
    assert_clean(&stats);
    assert!(stats.pings_answered > 0, "timeseal pings answered");
    let rep = &reports(&evs)[0];
    assert!(
        rep.stats.min_reserve_ms.unwrap_or(0) > 20_000,
        "reserve {:?}",
        rep.stats.min_reserve_ms
    );
}

on_both!(
    resignation_draw_agreement_and_abort,
    icc_resignation_draw_agreement_and_abort,
    offers
);

async fn offers(icc: bool) {
    // One game at a time: the next is allowed (and challenged) only once the test
    // has set it up, so a quick re-seek cannot start it with the old settings.
    let cfg = FakeConfig {
        icc,
        games: 1,
        opp_resign_at: Some(8),
        max_plies: 60,
        ..Default::default()
    };
    let r = start("offers", cfg, &["drawscore=1000"], |_| {}).await;
    let s = r.srv.wait_results(1, Duration::from_secs(40)).await;
    assert!(s.results[0].1.contains("resigns"), "{s:?}");
    // Next game, from a level middlegame at move 30 (offers are judged from move
    // 20, on a searched score): the opponent offers a draw; with drawscore 1000 the
    // bot accepts.
    r.srv.set_config(|c| {
        c.opp_resign_at = None;
        c.opp_offer_draw_at = Some(4);
        c.start_fen = Some("r1bq1rk1/pp2bppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/R1BQ1RK1 w - - 0 30");
        c.games = 2;
    });
    r.srv.challenge_now();
    let s = r.srv.wait_results(2, Duration::from_secs(40)).await;
    assert!(s.results[1].1.contains("mutual agreement"), "{s:?}");
    // Then an abort request on the first move is accepted, a takeback declined.
    r.srv.set_config(|c| {
        c.opp_offer_draw_at = None;
        c.start_fen = None;
        c.opp_abort_request_at = Some(1);
        c.opp_color = Some(Color::White);
        c.games = 3;
    });
    r.srv.challenge_now();
    let s = r.srv.wait_results(3, Duration::from_secs(40)).await;
    assert!(s.results[2].1.contains("aborted"), "{s:?}");
    let (stats, _, _) = r.finish(Duration::from_secs(20)).await;
    assert_clean(&stats);
}

on_both!(takeback_declined, icc_takeback_declined, takeback);

async fn takeback(icc: bool) {
    let cfg = FakeConfig {
        icc,
        opp_takeback_at: Some(2),
        opp_resign_at: Some(8),
        ..Default::default()
    };
    let r = start("takeback", cfg, &[], |_| {}).await;
    r.srv.wait_results(1, Duration::from_secs(40)).await;
    let (stats, _, _) = r.finish(Duration::from_secs(20)).await;
    assert!(
        stats.declined.iter().any(|d| d == OPP),
        "takeback declined: {stats:?}"
    );
    assert_clean(&stats);
}

on_both!(
    resumed_game_rebuilt_from_moves_and_draw_claimed_by_repetition,
    icc_resumed_game_rebuilt_from_moves_and_draw_claimed_by_repetition,
    resumed_claim
);

async fn resumed_claim(icc: bool) {
    // An adjourned game waits: 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1; the opponent
    // answers 4... Ng8, the start position's third occurrence. Only the whole move
    // list knows that (FICS: rebuilt from `moves`; ICC sends the moves themselves),
    // and the bot claims the draw.
    let cfg = FakeConfig {
        adjourned_moves: vec!["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"],
        opp_book: vec!["Nf6", "Ng8", "Nf6", "Ng8"],
        games: 0,
        icc,
        ..Default::default()
    };
    let r = start("claim", cfg, &[], |_| {}).await;
    let s = r.srv.wait_results(1, Duration::from_secs(40)).await;
    // The record is appended after the server's result.
    let mut pgn = String::new();
    for _ in 0..200 {
        pgn = std::fs::read_to_string(r.dir.join("games.pgn")).unwrap_or_default();
        if pgn.contains("[Result \"1/2-1/2\"]") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (stats, _, _) = r.finish(Duration::from_secs(20)).await;
    assert!(
        stats.commands.iter().any(|c| c == &format!("match {OPP}")),
        "{stats:?}"
    );
    assert_resumed_from_moves(&stats, icc);
    assert!(s.results[0].1.contains("repetition"), "{s:?}");
    assert_clean(&stats);
    // The resumed game announces itself before its `Creating:` line: its time
    // control (1 0, no increment) still comes from the server, not the console's
    // default level, which has an increment (issue of a real lasker game: 3-4 s a
    // move spent from 25 s left).
    assert!(pgn.contains("[TimeControl \"60+0\"]"), "{pgn}");
}

on_both!(
    opponent_runs_out_of_time_and_is_flagged,
    icc_opponent_runs_out_of_time_and_is_flagged,
    flagged
);

async fn flagged(icc: bool) {
    let cfg = FakeConfig {
        icc,
        clock_ms: Some(4_000),
        opp_stall_at: Some(3),
        ..Default::default()
    };
    let r = start("flag", cfg, &[], |_| {}).await;
    let s = r.srv.wait_results(1, Duration::from_secs(30)).await;
    let (stats, _, _) = r.finish(Duration::from_secs(20)).await;
    assert!(
        s.results[0].1.contains(&format!("{OPP} forfeits on time")),
        "{s:?}"
    );
    assert!(stats.commands.iter().any(|c| c == "flag"));
    assert_clean(&stats);
}

on_both!(
    opponent_who_never_moves_is_left_after_abort_and_adjourn_are_refused,
    icc_opponent_who_never_moves_is_left_after_abort_and_adjourn_are_refused,
    never_moves
);

/// lasker: `abort` needs the opponent's agreement even before the first move, and
/// the clock has not started, so an opponent who never moves would hold the bot
/// until they log out. The bot asks to abort, then to adjourn, then drops its link
/// (the server adjourns the game), logs in again without resuming that game, and
/// counts the opponent as an aborter (here one is enough for the noplay list).
async fn never_moves(icc: bool) {
    let cfg = FakeConfig {
        icc,
        opp_stall_at: Some(0),
        abort_needs_agreement: true,
        ..Default::default()
    };
    let r = start(
        "never-moves",
        cfg,
        &[
            "bot.first_move_timeout=1",
            "bot.stall_step=1",
            "bot.aborts_to_noplay=1",
        ],
        |_| {},
    )
    .await;
    assert!(
        r.srv
            .wait_for(Duration::from_secs(40), |s| s.logins >= 2)
            .await,
        "the bot left and logged in again: {:?}",
        r.srv.stats()
    );
    // Time to (wrongly) resume the adjourned game or resign.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let noplay = std::fs::read_to_string(r.dir.join("noplay")).unwrap_or_default();
    let (stats, _, _) = r.finish(Duration::from_secs(20)).await;
    let pos = |w: &str| stats.commands.iter().position(|c| c == w);
    let (abort, adjourn) = (pos("abort"), pos("adjourn"));
    assert!(
        abort.is_some() && abort < adjourn,
        "abort, then adjourn: {:?}",
        stats.commands
    );
    assert!(
        pos("resign").is_none(),
        "left, not resigned: {:?}",
        stats.commands
    );
    assert!(
        !stats.commands.iter().any(|c| c.starts_with("match")),
        "the game we left is not resumed: {:?}",
        stats.commands
    );
    assert_eq!(stats.logins, 2, "{stats:?}");
    assert!(
        noplay
            .to_ascii_lowercase()
            .contains(&OPP.to_ascii_lowercase()),
        "the opponent counts as an aborter: {noplay:?}"
    );
    assert_eq!(stats.bot_time_losses, 0);
}

on_both!(
    dropped_connection_reconnect_resync_and_resume,
    icc_dropped_connection_reconnect_resync_and_resume,
    dropped
);

async fn dropped(icc: bool) {
    let cfg = FakeConfig {
        icc,
        drop_at: Some(6),
        opp_resign_at: Some(14),
        ..Default::default()
    };
    let r = start("drop", cfg, &[], |_| {}).await;
    let s = r.srv.wait_results(1, Duration::from_secs(60)).await;
    // The record keeps what we thought of every move of ours, those before the
    // interruption too (they were lost with the first game task).
    let mut pgn = String::new();
    for _ in 0..200 {
        pgn = std::fs::read_to_string(r.dir.join("games.pgn")).unwrap_or_default();
        if pgn.contains("resigns") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let records = kibitzer::chess::pgn::read_all(&pgn);
    assert_eq!(records.len(), 1, "one record for the resumed game: {pgn}");
    let g = records
        .into_iter()
        .next()
        .expect("a record")
        .expect("it reads");
    let first = if g.tag("White") == Some("botone") {
        0
    } else {
        1
    };
    let ours: Vec<_> = g.moves.iter().skip(first).step_by(2).collect();
    assert!(ours.len() >= 6, "{pgn}");
    for (i, m) in ours.iter().enumerate() {
        let c = m.comment.as_deref().unwrap_or("");
        assert!(
            c.contains("[%eval ") || c.contains("book"),
            "our move {} has its evaluation: {pgn}",
            i + 1
        );
        assert!(c.contains("[%clk "), "{pgn}");
    }
    let (stats, evs, _) = r.finish(Duration::from_secs(20)).await;
    assert!(stats.logins >= 2, "{stats:?}");
    assert!(s.results[0].1.contains("resigns"), "{s:?}");
    assert!(
        stats.commands.iter().any(|c| c == &format!("match {OPP}")),
        "resumed by match"
    );
    assert_resumed_from_moves(&stats, icc);
    assert!(evs
        .iter()
        .any(|e| matches!(e, BotEvent::Disconnected { .. })));
    assert_clean(&stats);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_shutdown_then_resume_after_restart() {
    // Rated: lasker adjourns only rated games at a shutdown.
    let cfg = FakeConfig {
        rated: true,
        shutdown_at: Some(4),
        down_for: Duration::from_millis(1500),
        opp_resign_at: Some(12),
        ..Default::default()
    };
    let r = start("shutdown", cfg, &[], |_| {}).await;
    let s = r.srv.wait_results(1, Duration::from_secs(60)).await;
    let (stats, _, _) = r.finish(Duration::from_secs(20)).await;
    assert!(stats.logins >= 2 && stats.connections >= 2, "{stats:?}");
    assert!(s.results[0].1.contains("resigns"), "{s:?}");
    assert_clean(&stats);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_logout_reconnects_and_keepalive_prevents_it() {
    let cfg = FakeConfig {
        games: 0,
        idle_logout: Some(Duration::from_millis(2000)),
        ..Default::default()
    };
    let r = start("idle", cfg, &["ics.keepalive=3600", "bot.seeks="], |_| {}).await;
    let ok = r
        .srv
        .wait_for(Duration::from_secs(15), |s| s.logins >= 2)
        .await;
    let _ = r.finish(Duration::from_secs(10)).await;
    assert!(ok, "logged in again after the idle logout");
    let cfg = FakeConfig {
        games: 0,
        idle_logout: Some(Duration::from_millis(2000)),
        ..Default::default()
    };
    let r = start(
        "keepalive",
        cfg,
        &["ics.keepalive=0.3", "bot.seeks="],
        |_| {},
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (stats, _, _) = r.finish(Duration::from_secs(10)).await;
    assert_eq!(stats.logins, 1, "{stats:?}");
    assert!(stats.commands.iter().any(|c| c == "date"));
}

on_both!(
    garbage_refused_move_and_a_wrong_board_are_survived,
    icc_garbage_refused_move_and_a_wrong_move_are_survived,
    garbage
);

async fn garbage(icc: bool) {
    let cfg = FakeConfig {
        icc,
        garbage: true,
        illegal_reply_at: Some(4),
        bad_board_at: Some(7),
        opp_resign_at: Some(16),
        ..Default::default()
    };
    let r = start("garbage", cfg, &[], |_| {}).await;
    let s = r.srv.wait_results(1, Duration::from_secs(60)).await;
    let (stats, evs, _) = r.finish(Duration::from_secs(20)).await;
    assert!(s.results[0].1.contains("resigns"), "{s:?}");
    assert!(
        stats
            .commands
            .iter()
            .filter(|c| c.starts_with(if icc { "refresh" } else { "moves " }))
            .count()
            >= if icc { 1 } else { 2 },
        "{:?}",
        stats.commands
    );
    let rep = &reports(&evs)[0];
    assert_eq!(rep.stats.illegal_replies, 1);
    assert_clean(&stats);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_panic_and_game_task_panic_keep_the_daemon_playing() {
    let cfg = FakeConfig {
        games: 2,
        opp_resign_at: Some(14),
        ..Default::default()
    };
    let r = start("panic", cfg, &[], |d| {
        d.fault = Some(Fault::SearchPanic { ply: 5 });
        d.task_panic_game = Some(1);
    })
    .await;
    let s = r.srv.wait_results(2, Duration::from_secs(60)).await;
    let (stats, evs, _) = r.finish(Duration::from_secs(20)).await;
    assert_eq!(s.results.len(), 2, "{s:?}");
    assert!(evs
        .iter()
        .any(|e| matches!(e, BotEvent::GamePanicked { game: 1 })));
    assert!(
        reports(&evs).iter().any(|r| r.stats.faults >= 1),
        "the search panic was caught"
    );
    assert!(s.results.iter().any(|r| r.1.contains("resigns")), "{s:?}");
    // The second game's fault at ply 5, past bot.abort_plies: no abort request
    // the opponent could only decline (the first game, whose task panicked at its
    // start, is aborted).
    let second = stats
        .commands
        .iter()
        .rposition(|c| c.starts_with("accept"))
        .unwrap();
    assert!(
        !stats.commands[second..].iter().any(|c| c == "abort"),
        "{:?}",
        stats.commands
    );
    assert_clean(&stats);
    assert_eq!(stats.logins, 1, "stayed connected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_that_ignores_stop_is_replaced() {
    let cfg = FakeConfig {
        clock_ms: Some(8_000),
        opp_resign_at: Some(14),
        ..Default::default()
    };
    let r = start("hang", cfg, &[], |d| d.fault = Some(Fault::Hang { ply: 4 })).await;
    let s = r.srv.wait_results(1, Duration::from_secs(40)).await;
    let (stats, evs, _) = r.finish(Duration::from_secs(20)).await;
    assert!(s.results[0].1.contains("resigns"), "{s:?}");
    let rep = &reports(&evs)[0];
    assert!(rep.stats.faults >= 1, "{:?}", rep.stats);
    assert_clean(&stats);
}

pub(crate) fn proc_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

pub(crate) fn proc_cpu_secs() -> f64 {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = s.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let t = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (t(11) + t(12)) / 100.0
}

async fn series(
    name: &str,
    games: usize,
    minutes: u32,
    inc: u32,
    max_plies: usize,
    icc: bool,
) -> (FakeStats, Vec<GameReport>, usize) {
    series_with(name, games, minutes, inc, max_plies, icc, &[]).await
}

/// `series` with `extra` settings (an external engine's, for one).
pub(crate) async fn series_with(
    name: &str,
    games: usize,
    minutes: u32,
    inc: u32,
    max_plies: usize,
    icc: bool,
    extra: &[&str],
) -> (FakeStats, Vec<GameReport>, usize) {
    if games == 0 {
        return (FakeStats::default(), Vec::new(), 0);
    }
    let cfg = FakeConfig {
        games,
        minutes,
        inc,
        max_plies,
        opp_think: Duration::from_millis(50),
        opp_nodes: 2000,
        icc,
        ..Default::default()
    };
    let seek = format!("bot.seeks={minutes} {inc} u m");
    let mut all = vec![
        "sn=0",
        "ponder=on",
        "hash=16M",
        &seek,
        "bot.max_rematches=0",
    ];
    all.extend_from_slice(extra);
    let r = start(name, cfg, &all, |_| {}).await;
    let limit = Duration::from_secs(games as u64 * (minutes as u64 * 120 + inc as u64 * 120 + 30));
    let s = r.srv.wait_results(games, limit).await;
    let (stats, evs, _) = r.finish(Duration::from_secs(60)).await;
    let panics = evs
        .iter()
        .filter(|e| matches!(e, BotEvent::GamePanicked { .. }))
        .count();
    assert_eq!(s.results.len(), games);
    (stats, reports(&evs), panics)
}

pub(crate) fn summary(label: &str, stats: &FakeStats, reps: &[GameReport], panics: usize) {
    let faults: u32 = reps.iter().map(|r| r.stats.faults).sum();
    let illegal_caught: u32 = reps.iter().map(|r| r.stats.illegal_caught).sum();
    let mut react: Vec<f64> = reps
        .iter()
        .flat_map(|r| r.stats.reactions.iter().map(|x| x.0))
        .collect();
    react.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let mut results: HashMap<String, usize> = HashMap::new();
    for r in &stats.results {
        *results.entry(r.0.clone()).or_default() += 1;
    }
    println!(
        "{label}: games {} results {:?} | illegal moves sent {} (caught before sending {}) | time forfeits {} | crashes: task panics {}, engine faults {} | smallest reserve {:.1} s | think time per move min {:.1} ms median {:.0} ms max {:.0} ms | overhead at end {:?} ms",
        stats.results.len(),
        results,
        stats.illegal_moves,
        illegal_caught,
        stats.bot_time_losses,
        panics,
        faults,
        stats.min_bot_reserve_ms.unwrap_or(0) as f64 / 1000.0,
        react.first().copied().unwrap_or(0.0),
        react.get(react.len() / 2).copied().unwrap_or(0.0),
        react.last().copied().unwrap_or(0.0),
        reps.iter().map(|r| r.stats.overhead_ms).collect::<Vec<_>>(),
    );
}

use std::collections::HashMap;

/// Reaction to the board: a node limit of 1 makes every move instant, so the time
/// from a board's arrival to our move on the wire is the daemon's own share.
async fn measure_reaction(label: &str, icc: bool) {
    measure_reaction_with(label, icc, &[]).await
}

/// `measure_reaction` with `extra` settings (an external engine's, for one).
pub(crate) async fn measure_reaction_with(label: &str, icc: bool, extra: &[&str]) {
    let cfg = FakeConfig {
        games: 3,
        max_plies: 40,
        icc,
        ..Default::default()
    };
    let tag = if icc { "icc-react" } else { "react" };
    let mut all = vec!["sn=1"];
    all.extend_from_slice(extra);
    let r = start(tag, cfg, &all, |_| {}).await;
    r.srv.wait_results(3, Duration::from_secs(60)).await;
    let (_, evs, _) = r.finish(Duration::from_secs(20)).await;
    let mut react: Vec<f64> = reports(&evs)
        .iter()
        .flat_map(|r| r.stats.reactions.iter().map(|x| x.0))
        .collect();
    react.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{label}reaction board -> instant move: {} moves, median {:.2} ms, 90% {:.2} ms, max {:.2} ms",
        react.len(),
        react[react.len() / 2],
        react[react.len() * 9 / 10],
        react[react.len() - 1]
    );
}

/// The measurement of the issue: 50 games at 1 0 and 10 at 2 12 against the fake
/// server's engine (adjudicated as draws after 60 and 30 plies), run side by side;
/// then the reaction time to a board with an instant move, and the process's memory
/// and CPU use idle. Run: `cargo test --test integration measure_daemon -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_daemon() {
    // KIBITZER_MEASURE_SERIES="a,b": games at 1 0 and at 2 12 (default 50,10).
    let counts: Vec<usize> = std::env::var("KIBITZER_MEASURE_SERIES")
        .unwrap_or_else(|_| "50,10".into())
        .split(',')
        .map(|x| x.trim().parse().unwrap_or(0))
        .collect();
    let (n1, n2) = (
        counts.first().copied().unwrap_or(50),
        counts.get(1).copied().unwrap_or(10),
    );
    let rss0 = proc_rss_kb();
    let t0 = std::time::Instant::now();
    if n1 + n2 > 0 {
        let (a, b) = tokio::join!(
            series("m10", n1, 1, 0, 60, false),
            series("m212", n2, 2, 12, 30, false)
        );
        summary(&format!("{n1} x 1 0"), &a.0, &a.1, a.2);
        summary(&format!("{n2} x 2 12"), &b.0, &b.1, b.2);
        println!("series wall time {:.0} s", t0.elapsed().as_secs_f64());
        for (s, _, p) in [&a, &b] {
            assert_clean(s);
            assert_eq!(*p, 0);
        }
    }
    measure_reaction("", false).await;
    // Idle: logged in, no games, for 10 s.
    let cfg = FakeConfig {
        games: 0,
        ..Default::default()
    };
    let r = start("idle-measure", cfg, &["bot.seeks=", "hash=64M"], |_| {}).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (c0, m0) = (proc_cpu_secs(), proc_rss_kb());
    tokio::time::sleep(Duration::from_secs(10)).await;
    let (c1, m1) = (proc_cpu_secs(), proc_rss_kb());
    let _ = r.finish(Duration::from_secs(10)).await;
    println!(
        "test process (daemon + fake server): RSS at start {} MB, after the series {} MB, idle {} -> {} MB; idle CPU {:.2}% of one core",
        rss0 / 1024,
        m0 / 1024,
        m0 / 1024,
        m1 / 1024,
        (c1 - c0) / 10.0 * 100.0
    );
}

/// The measurement against the fake ICC (its units, its clock): 50 games
/// at 1 0 and 10 at 2 12 side by side, then the reaction to an instant move. Run:
/// `cargo test --test integration measure_daemon_icc -- --ignored --nocapture`
/// (`KIBITZER_MEASURE_SERIES="a,b"` for other counts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_daemon_icc() {
    let counts: Vec<usize> = std::env::var("KIBITZER_MEASURE_SERIES")
        .unwrap_or_else(|_| "50,10".into())
        .split(',')
        .map(|x| x.trim().parse().unwrap_or(0))
        .collect();
    let (n1, n2) = (
        counts.first().copied().unwrap_or(50),
        counts.get(1).copied().unwrap_or(10),
    );
    let t0 = std::time::Instant::now();
    let (a, b) = tokio::join!(
        series("icc-m10", n1, 1, 0, 60, true),
        series("icc-m212", n2, 2, 12, 30, true)
    );
    summary(&format!("ICC {n1} x 1 0"), &a.0, &a.1, a.2);
    summary(&format!("ICC {n2} x 2 12"), &b.0, &b.1, b.2);
    println!("series wall time {:.0} s", t0.elapsed().as_secs_f64());
    measure_reaction("ICC ", true).await;
    for (s, _, p) in [&a, &b] {
        assert_clean(s);
        assert_eq!(*p, 0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn first_shutdown_finishes_the_game_then_quits() {
    let cfg = FakeConfig {
        games: 3,
        opp_resign_at: Some(12),
        opp_think: Duration::from_millis(60),
        ..Default::default()
    };
    let r = start("drain", cfg, &[], |_| {}).await;
    // The game is under way once the bot (White) has moved after accepting.
    let under_way = |s: &FakeStats| {
        s.commands
            .iter()
            .skip_while(|c| *c != "accept bottwo")
            .count()
            >= 2
    };
    assert!(r.srv.wait_for(Duration::from_secs(20), under_way).await);
    r.control.send(ControlMsg::Shutdown);
    let exit = tokio::time::timeout(Duration::from_secs(40), r.handle)
        .await
        .unwrap()
        .unwrap();
    let s = r.srv.stats();
    assert_eq!(exit, Exit::Ok);
    assert_eq!(s.results.len(), 1, "the game was played out: {s:?}");
    assert!(s.results[0].1.contains("resigns"), "{s:?}");
    assert_eq!(
        s.commands
            .iter()
            .filter(|c| c.starts_with("accept"))
            .count(),
        1,
        "no new game"
    );
    assert!(s.commands.iter().any(|c| c == "unseek"));
    assert_eq!(s.commands.last().map(String::as_str), Some("quit"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reload_lock_and_configuration_errors() {
    let cfg = FakeConfig {
        games: 0,
        ..Default::default()
    };
    let r = start("reload", cfg, &[], |_| {}).await;
    let srv_port = r.srv.port;
    assert!(
        r.srv
            .wait_for(Duration::from_secs(10), |s| s.logins == 1)
            .await
    );
    // A second instance for the same account and records directory is refused.
    let second = Daemon::new(settings(srv_port, &r.dir, &[]));
    let exit = tokio::time::timeout(Duration::from_secs(5), second.run())
        .await
        .unwrap();
    assert_eq!(exit, Exit::Locked);
    let _ = r.finish(Duration::from_secs(10)).await;

    // SIGHUP: the new configuration's seeks are posted.
    let srv = FakeServer::start(FakeConfig {
        games: 0,
        ..Default::default()
    })
    .await;
    let dir = temp_dir("reload2");
    let mut d = Daemon::new(settings(srv.port, &dir, &[]));
    let (port, dir2) = (srv.port, dir.clone());
    d.set_reloader(Box::new(move || {
        Ok(settings(port, &dir2, &["bot.seeks=2 1 u m"]))
    }));
    let control = d.control();
    let h = tokio::spawn(d.run());
    assert!(
        srv.wait_for(Duration::from_secs(10), |s| s
            .commands
            .iter()
            .any(|c| c == "seek 1 0 u m"))
            .await
    );
    control.send(ControlMsg::Reload);
    assert!(
        srv.wait_for(Duration::from_secs(10), |s| s
            .commands
            .iter()
            .any(|c| c == "seek 2 1 u m"))
            .await
    );
    control.send(ControlMsg::Shutdown);
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(10), h)
            .await
            .unwrap()
            .unwrap(),
        Exit::Ok
    );
    let _ = std::fs::remove_dir_all(&dir);

    // Configuration errors name the key, the file and the fix.
    let bad = temp_dir("badcfg").join("bad.toml");
    std::fs::write(&bad, "[ics]\nport = 70000\n").unwrap();
    let e = kibitzer::settings::load(Some(&bad), std::iter::empty::<(String, String)>(), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.toml")
            && e.contains("ics.port")
            && e.contains("70000")
            && e.contains("fix: use a whole number in 1..=65535"),
        "{e}"
    );
    std::fs::write(&bad, "[bot]\nseeks = [\"fast please\"]\n").unwrap();
    let e = kibitzer::settings::load(Some(&bad), std::iter::empty::<(String, String)>(), &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("bot.seeks") && e.contains("fix:"), "{e}");
    std::fs::write(&bad, "[ics]\nsevrer = \"x\"\n").unwrap();
    let e = kibitzer::settings::load(Some(&bad), std::iter::empty::<(String, String)>(), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("ics.sevrer") && e.contains("no such setting"),
        "{e}"
    );
    let e = kibitzer::settings::load(
        None,
        std::iter::empty::<(String, String)>(),
        &["password=x".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("command line"), "{e}");
    let e = kibitzer::settings::load(
        None,
        [
            ("KIBITZER_BOT_MIN_TIME", "9"),
            ("KIBITZER_BOT_MAX_TIME", "3"),
        ],
        &[],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("bot.min_time") && e.contains("environment"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(bad.parent().unwrap());

    // The shipped configuration: a guest on freechess.org seeking unrated games,
    // environment over file, command line over environment, password from a file.
    let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/kibitzer.toml");
    let s = kibitzer::settings::load(
        Some(&shipped),
        [("KIBITZER_ICS_PORT", "5001")],
        &["threads=2".to_string()],
    )
    .unwrap();
    let o = &s.options;
    assert_eq!(o.str("ics.server"), "freechess.org");
    assert_eq!(o.str("ics.handle"), "guest");
    assert_eq!(o.int("ics.port"), 5001);
    assert_eq!(o.int("threads"), 2);
    assert!(kibitzer::settings::seeks(o)
        .iter()
        .all(|s| s.contains(" u ")));
    assert!(s.password.is_none());
    let pw = temp_dir("pw").join("pw");
    std::fs::write(&pw, "sekrit\n").unwrap();
    let s = kibitzer::settings::load(
        None,
        std::iter::empty::<(String, String)>(),
        &[format!("ics.password_file={}", pw.display())],
    )
    .unwrap();
    assert_eq!(s.password.as_ref().map(|p| p.expose()), Some("sekrit"));
    assert!(
        !format!("{:?}", s.password).contains("sekrit"),
        "never printed"
    );
    let _ = std::fs::remove_dir_all(pw.parent().unwrap());
}
