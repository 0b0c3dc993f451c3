//! One game life for every account: what the redesign of the daemon (the game
//! port, accounts as siblings) fixed, each against the fakes taught the behaviour
//! first: a challenge right after a result (FICS and ICC), a Lichess game stream
//! cut by a TCP reset and by silence, accepts in flight under `concurrency = 1`,
//! draws by rule claimed with Lichess's claim, and a Lichess-only daemon as the
//! operator sees it (health, the window, the results after a restart).

use crate::daemon::{on_both, settings as ics_settings, temp_dir};
use crate::ics_fake_server::{FakeConfig as IcsConfig, FakeServer, OPP};
use crate::lichess::{events_until, settings as lichess_settings, Bot};
use crate::lichess_fake_server::{ChallengeSpec, Cut, FakeConfig, FakeLichess, StreamCut, TOKEN};
use crate::web::{get, metric, status_json};
use kibitzer::bot::{BotEvent, ControlMsg, Daemon, Exit};
use kibitzer::chess::Color;
use kibitzer::web::{self, WebConfig};
use std::time::Duration;

on_both!(
    fics_rematch_right_after_a_result_is_accepted,
    icc_rematch_right_after_a_result_is_accepted,
    rematch
);

/// The opponent challenges again 10 ms after the result (an automatic rematch),
/// before the bot has written its records: the slot was freed at the result, so
/// the challenge is judged on a free slot and accepted.
async fn rematch(icc: bool) {
    let cfg = IcsConfig {
        icc,
        games: 3,
        opp_resign_at: Some(6),
        rematch_after: Some(Duration::from_millis(10)),
        ..Default::default()
    };
    let srv = FakeServer::start(cfg).await;
    let dir = temp_dir(if icc { "icc-rematch" } else { "rematch" });
    // No seeks: every game after the first comes from the rematch.
    let mut extra = vec!["bot.seeks=", "log=on"];
    if icc {
        extra.push("ics.server_type=icc");
    }
    let d = Daemon::new(ics_settings(srv.port, &dir, &extra));
    let control = d.control();
    let handle = tokio::spawn(d.run());
    assert!(
        srv.wait_for(Duration::from_secs(15), |s| s.logins >= 1)
            .await
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    srv.challenge_now();
    let s = srv.wait_results(3, Duration::from_secs(90)).await;
    control.send(ControlMsg::Quit);
    let _ = tokio::time::timeout(Duration::from_secs(20), handle).await;
    assert_eq!(s.results.len(), 3, "three games in a row: {s:?}");
    assert!(
        s.declined.is_empty(),
        "no rematch declined: {:?} {:?}",
        s.declined,
        s.commands
    );
    assert_eq!(
        s.commands
            .iter()
            .filter(|c| c.as_str() == format!("accept {OPP}"))
            .count(),
        3,
        "{:?}",
        s.commands
    );
    assert_eq!(s.illegal_moves, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 1+0 game whose stream is cut twice: by a TCP reset in the middle of a line,
/// then by silence (no state, no keep-alive, the connection open). Each time the
/// stream is opened again, `gameFull` re-synchronises the game, and the game goes
/// on to a result with legal moves and no time lost. Before the redesign the
/// bridge never reopened a stream that broke (only one that ended cleanly): the
/// game was lost on time and its slot stayed taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_stream_cut_by_a_reset_or_silence_recovers() {
    let cfg = FakeConfig {
        stream_cuts: vec![
            StreamCut {
                game: 0,
                after_states: 6,
                kind: Cut::Reset,
            },
            StreamCut {
                game: 0,
                after_states: 14,
                kind: Cut::Silence(Duration::from_secs(70)),
            },
        ],
        opponent_resigns_after: Some(14),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-cuts", &[]).await;
    bot.fake
        .challenge(ChallengeSpec::standard("cut1", 60, 0, Color::White));
    let r = bot.game_ended(Duration::from_secs(120)).await;
    assert_eq!(r.result, "1-0", "the opponent resigned: {r:?}");
    bot.fake.with(|s, games| {
        let g = &games[0];
        assert_eq!(s.illegal, 0);
        assert_eq!(g.cut_at.len(), 2, "both cuts happened");
        assert!(g.streams_opened >= 3, "opened again after each cut");
        for (i, cut) in g.cut_at.iter().enumerate() {
            let back = g
                .opened_at
                .iter()
                .find(|t| *t > cut)
                .expect("a stream opened after the cut");
            let ms = back.duration_since(*cut).as_millis();
            // A reset is seen at once; silence after the silence limit.
            let limit = if i == 0 { 5_000 } else { 12_000 + 5_000 };
            assert!(ms < limit, "cut {i} recovered in {ms} ms");
            eprintln!("cut {i}: stream open again after {ms} ms");
        }
        assert!(g.bot_clock_after.iter().all(|&c| c > 0), "no time lost");
    });
    // The slot was freed: the next game is accepted and played.
    bot.fake
        .challenge(ChallengeSpec::standard("cut2", 60, 0, Color::Black));
    let r2 = bot.game_ended(Duration::from_secs(120)).await;
    assert_eq!(r2.our_color, Color::Black);
    bot.fake
        .with(|s, _| assert!(s.declined.is_empty(), "{:?}", s.declined));
    bot.stop().await;
}

/// With `lichess.concurrency = 1`, five challenges read while the accept of the
/// first is still in flight (the fake answers accepts late, as while the client
/// waits out a 429): one game, four declined `later`. Before, busy counted only
/// games whose `gameStart` had arrived, and all five were accepted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_concurrency_holds_while_an_accept_is_in_flight() {
    let cfg = FakeConfig {
        accept_delay: Duration::from_millis(1500),
        opponent_resigns_after: Some(3),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-concurrency",
        &["lichess.concurrency=1", "lichess.queue=0"],
    )
    .await;
    for i in 0..5 {
        bot.fake.challenge(ChallengeSpec::standard(
            &format!("q{i}"),
            60,
            0,
            Color::White,
        ));
    }
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert!(!r.result.is_empty(), "{r:?}");
    tokio::time::sleep(Duration::from_secs(2)).await;
    bot.fake.with(|s, games| {
        assert_eq!(s.accepted, vec!["q0".to_string()], "{:?}", s.declined);
        assert_eq!(games.len(), 1);
        let mut declined: Vec<_> = s.declined.iter().map(|d| d.0.clone()).collect();
        declined.sort();
        assert_eq!(declined, vec!["q1", "q2", "q3", "q4"]);
        assert!(
            s.declined.iter().all(|d| d.1 == "later"),
            "{:?}",
            s.declined
        );
    });
    bot.stop().await;
}

/// A game picked up with the start position on the board for the third time
/// (1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8): the bot claims the draw with
/// the API's claim, which ends the game at once. `draw/yes`, what was sent before,
/// is an offer, which the opponent declines.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_draw_by_rule_is_claimed() {
    let cfg = FakeConfig {
        start_moves: vec![
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ],
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-claim", &[]).await;
    bot.fake
        .challenge(ChallengeSpec::standard("rep", 60, 0, Color::White));
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert_eq!(r.result, "1/2-1/2", "{r:?}");
    bot.fake.with(|_, games| {
        let g = &games[0];
        assert!(g.claimed_draw, "claimed: {:?}", g.answers);
        assert_eq!(g.moves.len(), 8, "no move after the claim");
    });
    bot.stop().await;
}

/// A daemon with only a Lichess account and the window on, as an operator sees it:
/// `/healthz` 200 while it plays, the account (its server, handle and state) and
/// the engine on `/api/status`, the game in the results with its PGN (`Site` the
/// game's page), the games metric labelled by account; after a restart the
/// results are read back from the records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_only_daemon_health_window_and_results() {
    let fake = FakeLichess::start(FakeConfig {
        opponent_resigns_after: Some(8),
        opponent_delay: Duration::from_millis(150),
        ..FakeConfig::default()
    })
    .await;
    let dir = temp_dir("lichess-only");
    let start = |fake: &FakeLichess| {
        let d = Daemon::new(lichess_settings(&fake.url(), &dir, TOKEN, &[]));
        let status = d.status();
        let events = d.subscribe();
        let control = d.control();
        (d, status, events, control)
    };
    let (d, status, mut events, control) = start(&fake);
    let w = web::start(WebConfig::new("127.0.0.1:0".parse().unwrap()), status)
        .await
        .expect("web");
    let a = w.local_addr();
    let handle = tokio::spawn(d.run());
    fake.challenge(ChallengeSpec::standard("only1", 60, 0, Color::White));
    // While the game is played.
    assert!(
        fake.wait_for(Duration::from_secs(30), |_, g| g
            .first()
            .is_some_and(|g| g.moves.len() >= 4))
            .await,
        "the game is under way"
    );
    assert_eq!(get(a, "/healthz").await.code, 200, "healthy while playing");
    let v = status_json(a).await;
    let acc = &v["accounts"][0];
    assert_eq!(acc["name"], "lichess", "{v:#}");
    assert_eq!(acc["state"], "logged_in", "{v:#}");
    assert_eq!(acc["handle"], "KibBot", "{v:#}");
    assert_eq!(acc["connected"], true);
    assert_eq!(v["accounts"].as_array().unwrap().len(), 1);
    assert!(v["engine"]["threads"].as_i64().unwrap() >= 1, "{v:#}");
    assert!(v["engine"]["hash_mb"].as_i64().unwrap() >= 1, "{v:#}");
    assert_eq!(v["games"][0]["site"], "lichess");
    let page = get(a, "/").await.body;
    assert!(
        page.contains("KibBot on 127.0.0.1"),
        "the page's header names the account"
    );
    assert!(
        page.contains(">connected<"),
        "the account's state on the page"
    );
    let m = get(a, "/metrics").await.body;
    assert_eq!(
        metric(&m, "kibitzer_connected{account=\"lichess\"}"),
        Some(1.0)
    );
    assert_eq!(metric(&m, "kibitzer_healthy"), Some(1.0));
    // After the game.
    let ended = events_until(&mut events, Duration::from_secs(90), |e| {
        matches!(e, BotEvent::GameEnded(_))
    })
    .await;
    assert!(ended.is_some(), "the game ended");
    let mut v = status_json(a).await;
    for _ in 0..100 {
        if v["results"]["games"] == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        v = status_json(a).await;
    }
    assert_eq!(v["results"]["games"], 1, "{:#}", v["results"]);
    let pgn = get(a, "/games/1.pgn").await;
    assert_eq!(pgn.code, 200);
    assert!(
        pgn.body
            .contains(&format!("[Site \"{}/only1\"]", fake.url())),
        "{}",
        pgn.body
    );
    let m = get(a, "/metrics").await.body;
    assert_eq!(
        metric(
            &m,
            "kibitzer_games_total{account=\"lichess\",result=\"win\",class=\"normal\"}"
        ),
        Some(1.0),
        "{m}"
    );
    control.send(ControlMsg::Quit);
    let exit = tokio::time::timeout(Duration::from_secs(20), handle)
        .await
        .expect("stops")
        .expect("no panic");
    assert_eq!(exit, Exit::Ok);
    drop(w);
    // A restart reads the Lichess game back from the records.
    let (d, status, _, control) = start(&fake);
    let mut rx = status.clone();
    let handle = tokio::spawn(d.run());
    let read = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            if rx.borrow_and_update().results.rows.len() == 1 {
                return;
            }
            let _ = rx.changed().await;
        }
    })
    .await;
    assert!(read.is_ok(), "the game read back after a restart");
    control.send(ControlMsg::Quit);
    let _ = tokio::time::timeout(Duration::from_secs(20), handle).await;
    let _ = std::fs::remove_dir_all(&dir);
}
