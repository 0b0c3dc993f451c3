//! The Lichess account against the fake Lichess (`lichess_fake_server`): whole
//! games to a result through the daemon (`lichess.enabled`, `ics.enabled = off`),
//! challenges declined with Lichess's reasons, a non-BOT account and a bad token
//! refused, the minute's wait after an HTTP 429 (tokio's paused clock), and the
//! event parsers on arbitrary input.

use crate::lichess_fake_server::{ChallengeSpec, FakeConfig, FakeLichess, TOKEN};
use kibitzer::bot::{BotEvent, ControlMsg, Daemon, Exit};
use kibitzer::chess::Color;
use kibitzer::lichess::{HttpError, Lichess, LichessError};
use proptest::prelude::*;
use std::path::Path;
use std::time::Duration;

/// Waits (up to 20 s) for the daemon to open its event stream on the fake.
async fn event_stream_opened(fake: &FakeLichess) -> bool {
    fake.wait_for(Duration::from_secs(20), |s, _| {
        s.requests.iter().any(|r| r.1 == "/api/stream/event")
    })
    .await
}

pub(crate) fn settings(
    url: &str,
    dir: &Path,
    token: &str,
    extra: &[&str],
) -> kibitzer::settings::Settings {
    let mut cli: Vec<String> = vec![
        "ics.enabled=off".into(),
        "lichess.enabled=on".into(),
        format!("lichess.url={url}"),
        format!("records.dir={}", dir.display()),
        format!("bot.noplay_file={}", dir.join("noplay").display()),
        format!("bot.lists={}", dir.join("lists").display()),
        "hash=4M".into(),
        "ponder=off".into(),
        "sn=1500".into(),
        "ics.reconnect_min=0.2".into(),
        "ics.reconnect_max=1".into(),
        "bot.min_time=1".into(),
        "bot.max_time=10".into(),
    ];
    cli.extend(extra.iter().map(|s| s.to_string()));
    kibitzer::settings::load(None, [("KIBITZER_LICHESS_TOKEN", token)], &cli)
        .expect("test settings")
}

/// A daemon with a Lichess account on the fake Lichess, its event stream open.
pub(crate) struct Bot {
    pub fake: FakeLichess,
    pub dir: std::path::PathBuf,
    pub events: tokio::sync::broadcast::Receiver<BotEvent>,
    pub control: kibitzer::bot::Control,
    pub handle: tokio::task::JoinHandle<Exit>,
    pub status: tokio::sync::watch::Receiver<kibitzer::bot::status::Status>,
}

impl Bot {
    pub async fn start(cfg: FakeConfig, name: &str, extra: &[&str]) -> Bot {
        let fake = FakeLichess::start(cfg).await;
        let dir = crate::daemon::temp_dir(name);
        let d = Daemon::new(settings(&fake.url(), &dir, TOKEN, extra));
        let events = d.subscribe();
        let control = d.control();
        let status = d.status();
        let handle = tokio::spawn(d.run());
        assert!(
            event_stream_opened(&fake).await,
            "the event stream is opened"
        );
        Bot {
            fake,
            dir,
            events,
            control,
            handle,
            status,
        }
    }

    /// The next game to end (a panic naming the games when none does).
    pub async fn game_ended(&mut self, limit: Duration) -> kibitzer::bot::GameReport {
        match events_until(&mut self.events, limit, |e| {
            matches!(e, BotEvent::GameEnded(_))
        })
        .await
        {
            Some(BotEvent::GameEnded(r)) => *r,
            _ => panic!(
                "a game ends: {:?}",
                self.fake.with(|s, g| (
                    s.declined.clone(),
                    g.iter()
                        .map(|g| (g.id.clone(), g.moves.len(), g.status.clone()))
                        .collect::<Vec<_>>()
                ))
            ),
        }
    }

    /// Quits the daemon (it must stop cleanly) and removes the directory.
    pub async fn stop(self) {
        self.control.send(ControlMsg::Quit);
        let exit = tokio::time::timeout(Duration::from_secs(20), self.handle)
            .await
            .expect("the daemon stops")
            .expect("no panic");
        assert_eq!(exit, Exit::Ok);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The status once `f` holds of it, or as it stands after `limit` (the page
/// follows the games a moment behind the servers).
pub(crate) async fn status_until(
    rx: &tokio::sync::watch::Receiver<kibitzer::bot::status::Status>,
    limit: Duration,
    f: impl Fn(&kibitzer::bot::status::Status) -> bool,
) -> kibitzer::bot::status::Status {
    let mut rx = rx.clone();
    let _ = tokio::time::timeout(limit, rx.wait_for(|s| f(s))).await;
    let st = rx.borrow().clone();
    st
}

pub(crate) async fn events_until(
    rx: &mut tokio::sync::broadcast::Receiver<BotEvent>,
    limit: Duration,
    mut f: impl FnMut(&BotEvent) -> bool,
) -> Option<BotEvent> {
    let end = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(end, rx.recv()).await {
            Ok(Ok(e)) if f(&e) => return Some(e),
            Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
            _ => return None,
        }
    }
}

/// Two whole games (the bot White, then Black) at 1+0 and 1+1 against the
/// scripted opponent, each to a result: every move legal, no time lost, the
/// records written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_full_games_to_a_result() {
    let mut bot = Bot::start(FakeConfig::default(), "lichess-games", &[]).await;
    for (id, limit, inc, color) in [("c1", 60, 0, Color::White), ("c2", 60, 1, Color::Black)] {
        bot.fake
            .challenge(ChallengeSpec::standard(id, limit, inc, color));
        let r = bot.game_ended(Duration::from_secs(240)).await;
        assert_eq!(r.our_color, color);
        assert!(
            ["1-0", "0-1", "1/2-1/2"].contains(&r.result.as_str()),
            "a result: {r:?}"
        );
        assert!(r.plies >= 2, "moves were played: {r:?}");
        assert!(
            !r.reason.contains("forfeits on time")
                || r.result == if color == Color::White { "1-0" } else { "0-1" },
            "we did not lose on time: {r:?}"
        );
        bot.fake.with(|s, games| {
            let g = games.iter().find(|g| g.id == id).expect("the game");
            assert_eq!(s.illegal, 0, "no illegal or out-of-turn move");
            assert_ne!(g.status, "started");
            assert_eq!(g.moves.len(), r.plies, "our move list is the server's");
            let min = g.bot_clock_after.iter().min().copied().unwrap_or(0);
            let med = {
                let mut v = g.responses.clone();
                v.sort_by(f64::total_cmp);
                v.get(v.len() / 2).copied().unwrap_or(0.0)
            };
            eprintln!(
                "lichess game {id}: {} plies, {} {} ({}), smallest clock kept {min} ms, response median {med:.1} ms",
                g.moves.len(),
                r.result,
                g.status,
                r.reason
            );
            assert!(min > 0, "our clock never ran out");
        });
    }
    let pgn = std::fs::read_to_string(bot.dir.join("games.pgn")).unwrap_or_default();
    assert_eq!(pgn.matches("[Event ").count(), 2, "two records: {pgn}");
    assert!(pgn.contains("[White \"KibBot\"]") && pgn.contains("[Black \"KibBot\"]"));
    bot.stop().await;
}

/// Two games at once (`lichess.concurrency = 2`), each with its own engine, and
/// every game stream cut once mid-game: the bridge opens it again, catches up
/// from `gameFull` and plays both games to a result with legal moves only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_two_games_at_once_and_dropped_streams() {
    let cfg = FakeConfig {
        drop_game_streams_after: Some(9),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-two", &["lichess.concurrency=2"]).await;
    bot.fake
        .challenge(ChallengeSpec::standard("d1", 60, 0, Color::White));
    bot.fake
        .challenge(ChallengeSpec::standard("d2", 60, 0, Color::Black));
    let mut ended = Vec::new();
    while ended.len() < 2 {
        ended.push(bot.game_ended(Duration::from_secs(240)).await);
    }
    bot.fake.with(|s, games| {
        assert_eq!(s.accepted.len(), 2, "both accepted: {:?}", s.declined);
        assert_eq!(s.illegal, 0);
        for g in games {
            assert_ne!(g.status, "started");
            assert!(
                g.streams_opened >= 2,
                "{}: the stream was opened again",
                g.id
            );
            let r = ended
                .iter()
                .find(|r| r.our_color == g.bot_color)
                .expect("a report");
            assert_eq!(r.plies, g.moves.len(), "{}: {r:?}", g.id);
            assert!(
                ["1-0", "0-1", "1/2-1/2"].contains(&r.result.as_str()),
                "{r:?}"
            );
        }
    });
    bot.stop().await;
}

/// Challenges outside the formula are declined with Lichess's reason keys; one
/// inside it is accepted, and the opponent resigning ends the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_challenges_declined_with_reasons() {
    let cfg = FakeConfig {
        opponent_resigns_after: Some(3),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-decline",
        &["bot.rated=unrated", "bot.computers=off", "bot.max_inc=5"],
    )
    .await;
    let fake = bot.fake.clone();
    let spec = |id: &str| ChallengeSpec::standard(id, 120, 0, Color::White);
    let cases = [
        (
            ChallengeSpec {
                variant: "chess960".into(),
                ..spec("v1")
            },
            "variant",
        ),
        (
            ChallengeSpec {
                limit_s: 30,
                ..spec("f1")
            },
            "tooFast",
        ),
        (
            ChallengeSpec {
                limit_s: 1800,
                ..spec("s1")
            },
            "tooSlow",
        ),
        (
            ChallengeSpec {
                increment_s: 30,
                ..spec("t1")
            },
            "timeControl",
        ),
        (
            ChallengeSpec {
                rated: true,
                ..spec("r1")
            },
            "casual",
        ),
        (
            ChallengeSpec {
                challenger_title: Some("BOT".into()),
                ..spec("b1")
            },
            "noBot",
        ),
    ];
    for (c, _) in &cases {
        fake.challenge(c.clone());
    }
    fake.challenge(spec("ok1"));
    assert!(
        fake.wait_for(Duration::from_secs(30), |s, _| s.declined.len()
            == cases.len()
            && s.accepted.len() == 1)
            .await,
        "every challenge answered: {:?}",
        fake.with(|s, _| (s.declined.clone(), s.accepted.clone()))
    );
    fake.with(|s, _| {
        for (c, want) in &cases {
            let got = s
                .declined
                .iter()
                .find(|d| d.0 == c.id)
                .map(|d| d.1.as_str());
            assert_eq!(got, Some(*want), "challenge {}", c.id);
        }
        assert_eq!(s.accepted, vec!["ok1".to_string()]);
    });
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert_eq!(
        (r.result.as_str(), r.reason.as_str()),
        ("1-0", "Opponent resigns")
    );
    bot.stop().await;
}

/// An account without the BOT title is refused with how to upgrade it, and the
/// daemon stops with the credentials status without upgrading anything; a wrong
/// token is refused the same way.
#[tokio::test]
async fn lichess_refuses_a_non_bot_account_and_a_bad_token() {
    let fake = FakeLichess::start(FakeConfig {
        title: None,
        ..FakeConfig::default()
    })
    .await;
    let api = Lichess::new(
        &fake.url(),
        kibitzer::ics::Secret::new(TOKEN),
        Duration::from_secs(5),
    )
    .unwrap();
    let e = api.bot_account().await.unwrap_err();
    assert!(matches!(e, LichessError::NotBot { .. }), "{e}");
    assert!(e.to_string().contains("api/bot/account/upgrade"), "{e}");
    let dir = crate::daemon::temp_dir("lichess-notbot");
    let exit = tokio::time::timeout(
        Duration::from_secs(20),
        Daemon::new(settings(&fake.url(), &dir, TOKEN, &[])).run(),
    )
    .await
    .expect("stops");
    assert_eq!(exit, Exit::Credentials);
    let exit = tokio::time::timeout(
        Duration::from_secs(20),
        Daemon::new(settings(&fake.url(), &dir, "lip_wrong", &[])).run(),
    )
    .await
    .expect("stops");
    assert_eq!(exit, Exit::Credentials);
    fake.with(|s, _| {
        assert!(s.unauthorized >= 1);
        assert!(
            s.requests.iter().all(|r| !r.1.contains("upgrade")),
            "never upgrades"
        );
    });
    let bad = Lichess::new(
        &fake.url(),
        kibitzer::ics::Secret::new("nope"),
        Duration::from_secs(5),
    )
    .unwrap();
    let e = bad.account().await.unwrap_err();
    assert!(
        matches!(e, LichessError::Http(HttpError::Unauthorized { .. })),
        "{e}"
    );
    assert!(
        !e.to_string().contains("nope"),
        "the token is never shown: {e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// After an HTTP 429 no request leaves for a minute (tokio's paused clock: the
/// wait is measured, not slept).
#[tokio::test(start_paused = true)]
async fn lichess_waits_a_minute_after_429() {
    let fake = FakeLichess::start(FakeConfig {
        burst: 2,
        ..FakeConfig::default()
    })
    .await;
    let api = Lichess::new(
        &fake.url(),
        kibitzer::ics::Secret::new(TOKEN),
        Duration::from_secs(5),
    )
    .unwrap();
    api.account().await.unwrap();
    api.account().await.unwrap();
    let e = api.account().await.unwrap_err();
    assert!(
        matches!(e, LichessError::Http(HttpError::RateLimited { .. })),
        "{e}"
    );
    let before = tokio::time::Instant::now();
    let sent = api.client.requests();
    // The next request (any, from any clone) waits out the minute, then succeeds.
    let again = api.clone();
    again.account().await.unwrap();
    let waited = before.elapsed();
    assert!(waited >= Duration::from_secs(60), "waited {waited:?}");
    assert_eq!(
        api.client.requests(),
        sent + 1,
        "one request, after the wait"
    );
    fake.with(|s, _| {
        assert_eq!(s.rate_limited, 1);
        assert_eq!(s.requests.len(), 4);
    });
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-zA-Z]{0,10}".prop_map(serde_json::Value::from),
        prop_oneof![
            Just("challenge"),
            Just("gameStart"),
            Just("gameFinish"),
            Just("gameFull"),
            Just("gameState"),
            Just("chatLine"),
            Just("opponentGone"),
            Just("standard")
        ]
        .prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("type".to_string()),
                        Just("challenge".to_string()),
                        Just("game".to_string()),
                        Just("state".to_string()),
                        Just("id".to_string()),
                        Just("moves".to_string()),
                        Just("wtime".to_string()),
                        Just("nowPlaying".to_string()),
                        Just("gameId".to_string()),
                        Just("username".to_string()),
                        Just("perfs".to_string()),
                        Just("expiration".to_string()),
                        "[a-z]{1,6}"
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| serde_json::Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Every parser gives a value or an error naming what it read, never a panic.
    #[test]
    fn lichess_parsers_never_panic(v in json_value(), s in ".{0,200}") {
        for text in [v.to_string(), s] {
            let _ = kibitzer::lichess::parse_event(&text);
            let _ = kibitzer::lichess::parse_game_event(&text);
            if let Err(e) = kibitzer::lichess::parse_account(&text) {
                prop_assert!(e.to_string().starts_with("the account"));
            }
            if let Err(e) = kibitzer::lichess::parse_playing(&text) {
                prop_assert!(e.to_string().starts_with("the games in progress"));
            }
            if let Err(e) = kibitzer::lichess::parse_online_user(&text) {
                prop_assert!(e.to_string().starts_with("an online bot"));
            }
            if let Err(e) = kibitzer::lichess::event::parse_challenge_id(&text) {
                prop_assert!(e.to_string().starts_with("the challenge made"));
            }
        }
    }

    /// Chat lines from the server, whatever they hold, come out short and clean.
    #[test]
    fn lichess_chat_lines_are_cleaned(s in "\\PC{0,300}", c in prop::collection::vec(any::<char>(), 0..300)) {
        for text in [s, c.into_iter().collect::<String>()] {
            let clean = kibitzer::bot::lichess::chat::sanitize(&text);
            prop_assert!(clean.chars().count() <= kibitzer::bot::lichess::chat::MAX_LINE);
            let bad = clean.chars().any(|ch| ch.is_control() || ch == '\u{202e}');
            prop_assert!(!bad, "control characters left in {:?}", clean);
            prop_assert!(!clean.starts_with(' ') && !clean.ends_with(' '));
            let _ = kibitzer::bot::lichess::chat::command(&clean);
        }
    }
}

/// The token is never a setting: refused on the command line, required when
/// Lichess is on, read from its file (first line) and never printed.
#[test]
fn lichess_token_only_from_a_file_or_the_environment() {
    let none = std::iter::empty::<(String, String)>();
    let e = kibitzer::settings::load(None, none, &["lichess.token=lip_x".to_string()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("lichess.token") && !e.contains("lip_x"), "{e}");
    let e = kibitzer::settings::load(
        None,
        std::iter::empty::<(String, String)>(),
        &["lichess.enabled=on".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("no Lichess API token"), "{e}");
    let dir = crate::daemon::temp_dir("lichess-token");
    let f = dir.join("token");
    std::fs::write(&f, "lip_secret\n").unwrap();
    let s = kibitzer::settings::load(
        None,
        std::iter::empty::<(String, String)>(),
        &[
            "lichess.enabled=on".to_string(),
            format!("lichess.token_file={}", f.display()),
        ],
    )
    .unwrap();
    let t = s.lichess_token.expect("the token");
    assert_eq!(t.expose(), "lip_secret");
    assert!(!format!("{t:?}").contains("lip_secret"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// One daemon, two accounts: a FICS game (the fake ICS server's opponent answers
/// the bot's seek) and a Lichess game at the same time, each to a result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_and_fics_in_one_daemon() {
    use crate::ics_fake_server::{FakeConfig as IcsConfig, FakeServer};
    let ics = FakeServer::start(IcsConfig {
        games: 1,
        ..IcsConfig::default()
    })
    .await;
    let fake = FakeLichess::start(FakeConfig::default()).await;
    let dir = crate::daemon::temp_dir("lichess-both");
    let token = dir.join("lichess.token");
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    let s = crate::daemon::settings(
        ics.port,
        &dir,
        &[
            "lichess.enabled=on",
            &format!("lichess.url={}", fake.url()),
            &format!("lichess.token_file={}", token.display()),
        ],
    );
    let d = Daemon::new(s);
    let mut events = d.subscribe();
    let control = d.control();
    let status = d.status();
    let handle = tokio::spawn(d.run());
    assert!(
        event_stream_opened(&fake).await,
        "the Lichess event stream is opened"
    );
    fake.challenge(ChallengeSpec::standard("both1", 60, 0, Color::White));
    let mut ended = Vec::new();
    while ended.len() < 2 {
        match events_until(&mut events, Duration::from_secs(240), |e| {
            matches!(e, BotEvent::GameEnded(_))
        })
        .await
        {
            Some(BotEvent::GameEnded(r)) => ended.push(r),
            _ => panic!("both games end: {ended:?} {:?}", ics.stats().results),
        }
    }
    let lichess: Vec<_> = ended.iter().filter(|r| r.game > 1_000_000).collect();
    assert_eq!(
        lichess.len(),
        1,
        "one Lichess game, one FICS game: {ended:?}"
    );
    let mut accounts: Vec<&str> = ended.iter().map(|r| r.account.as_str()).collect();
    accounts.sort();
    assert_eq!(accounts, ["ics", "lichess"]);
    // Both accounts on the status, each logged in; both games counted under their
    // account and in the results.
    let st = status_until(&status, Duration::from_secs(5), |s| {
        s.results.rows.len() == 2
    })
    .await;
    let mut names: Vec<&str> = st.accounts.iter().map(|a| a.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["ics", "lichess"]);
    assert!(st.health().is_ok(), "{:?}", st.health());
    assert_eq!(st.results.rows.len(), 2, "both games in the results");
    for a in ["ics", "lichess"] {
        let n: u64 = st.counters.games[a].values().flat_map(|c| c.values()).sum();
        assert_eq!(n, 1, "{a}: {:?}", st.counters.games);
    }
    for r in &ended {
        assert!(
            ["1-0", "0-1", "1/2-1/2"].contains(&r.result.as_str()),
            "{r:?}"
        );
    }
    assert!(ics.stats().logins >= 1 && ics.stats().illegal_moves == 0);
    fake.with(|s, _| assert_eq!(s.illegal, 0));
    control.send(ControlMsg::Quit);
    let exit = tokio::time::timeout(Duration::from_secs(20), handle)
        .await
        .expect("stops")
        .expect("no panic");
    assert_eq!(exit, Exit::Ok);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first-move rule and berserk: the fake aborts a game whose side to move
/// has not made its first move within 3 s (and says so in `expiration`), and the
/// bot's side has berserked (30 s instead of 60, no increment). The bot makes
/// its first move in time with either colour, keeps time on the halved clock and
/// reaches a result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_first_move_rule_and_berserk() {
    let cfg = FakeConfig {
        first_move_limit: Duration::from_secs(3),
        bot_berserks: true,
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-berserk", &[]).await;
    for (id, color) in [("k1", Color::White), ("k2", Color::Black)] {
        bot.fake
            .challenge(ChallengeSpec::standard(id, 60, 2, color));
        let r = bot.game_ended(Duration::from_secs(240)).await;
        bot.fake.with(|s, games| {
            let g = games.iter().find(|g| g.id == id).unwrap();
            assert_eq!(g.no_start, None, "{id}: the first move came in time");
            assert_eq!(s.illegal, 0);
            assert_eq!(g.initial, 60_000);
            let first = g.responses.first().copied().unwrap_or(f64::MAX);
            assert!(first < 3000.0, "{id}: first move after {first} ms");
            let min = g.bot_clock_after.iter().min().copied().unwrap_or(0);
            assert!(min > 0, "{id}: our clock never ran out");
            // No increment for us: the clock only goes down.
            assert!(
                g.bot_clock_after.windows(2).all(|w| w[1] <= w[0]),
                "{id}: no increment after berserk: {:?}",
                g.bot_clock_after
            );
            assert!(
                g.bot_clock_after.first().is_some_and(|&c| c <= 30_000),
                "{id}: the halved clock"
            );
            eprintln!(
                "berserk {id}: {} plies, {} ({}), first move {first:.0} ms, smallest clock {min} ms",
                g.moves.len(),
                r.result,
                r.reason
            );
        });
        let lost_on_time = r.reason.contains("forfeits on time")
            && r.result == if color == Color::White { "0-1" } else { "1-0" };
        assert!(!lost_on_time, "{r:?}");
        assert!(r.plies >= 2, "{r:?}");
    }
    // The records carry the clock the bot played with, in whole seconds (half a
    // minute is not "0").
    let pgn = std::fs::read_to_string(bot.dir.join("games.pgn")).unwrap_or_default();
    assert_eq!(pgn.matches("[TimeControl \"30+0\"]").count(), 2, "{pgn}");
    bot.stop().await;
}

/// An opponent that never moves: the bot (White) plays its first move, waits
/// `bot.first_move_timeout` and aborts the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_aborts_when_the_opponent_never_moves() {
    let cfg = FakeConfig {
        opponent_never_moves: true,
        first_move_limit: Duration::from_secs(60),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-abort", &["bot.first_move_timeout=2"]).await;
    bot.fake
        .challenge(ChallengeSpec::standard("a1", 60, 0, Color::White));
    let r = bot.game_ended(Duration::from_secs(30)).await;
    assert_eq!((r.result.as_str(), r.plies), ("*", 1), "{r:?}");
    bot.fake.with(|s, games| {
        assert_eq!(games[0].status, "aborted");
        assert_eq!(games[0].no_start, None, "aborted by us, not by the rule");
        assert!(s.requests.iter().any(|r| r.1.ends_with("/abort")));
    });
    bot.stop().await;
}

/// The opponent leaves after three moves (`opponentGone`, claim in 2 s): the bot
/// claims the win once the time is up, and wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_claims_victory_when_the_opponent_leaves() {
    let cfg = FakeConfig {
        opponent_leaves_after: Some(3),
        gone_claim_s: 2,
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-gone", &[]).await;
    bot.fake
        .challenge(ChallengeSpec::standard("o1", 120, 0, Color::White));
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert_eq!(r.result, "1-0", "{r:?}");
    bot.fake.with(|s, games| {
        let g = &games[0];
        assert_eq!(
            (g.status.as_str(), g.claims),
            ("timeout", 1),
            "one claim, in time"
        );
        let claim = s
            .requests
            .iter()
            .find(|r| r.1.ends_with("/claim-victory"))
            .expect("a claim");
        assert_eq!(claim.3, 200, "not claimed too early");
    });
    bot.stop().await;
}

/// Chat and offers: the greeting and farewell go to the player room; chat
/// commands are answered in their room (the evaluation to spectators only, the
/// opponent politely refused), a flood is rate-limited, junk is not answered; a
/// takeback request is declined and a draw offer answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_chat_commands_greeting_and_offers() {
    let cfg = FakeConfig {
        opponent_delay: Duration::from_millis(2000),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-chat",
        &[
            "talk.greeting=Hello {opponent}, good luck!",
            "talk.farewell=Thank you for the game.",
            "talk.greeting_spectators=Welcome: {me} against {opponent}, played by {engine}.",
            "talk.farewell_spectators=Thanks for watching {me}.",
            "kibitz=0",
            "whisper=0",
        ],
    )
    .await;
    let fake = bot.fake.clone();
    fake.challenge(ChallengeSpec::standard("t1", 180, 0, Color::White));
    assert!(
        fake.wait_for(Duration::from_secs(20), |_, g| g
            .first()
            .is_some_and(|g| g.moves.len() >= 2))
            .await
    );
    {
        // The status page lists the game under its unique name, with its link.
        let st = status_until(&bot.status, Duration::from_secs(10), |s| {
            s.games.iter().any(|g| g.site == "lichess" && g.ply >= 2)
        })
        .await;
        let g = st
            .games
            .iter()
            .find(|g| g.site == "lichess")
            .expect("the Lichess game on the status page");
        assert_eq!(g.name, "lichess/t1");
        assert_eq!(
            g.url.as_deref(),
            Some(format!("{}/t1", fake.url()).as_str())
        );
        assert_eq!(
            (g.our_color.as_str(), g.opponent.as_str()),
            ("white", "Opponent")
        );
        assert!(g.ply >= 2, "the board follows the game: {}", g.ply);
    }
    fake.chat_line("t1", "player", "Opponent", "!help");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    fake.chat_line("t1", "spectator", "Watcher", "!EVAL");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    fake.chat_line("t1", "player", "Opponent", "!eval");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    // A flood within the rate limit's gap: one answer at most.
    for _ in 0..5 {
        fake.chat_line("t1", "spectator", "Watcher", "!name\u{7}\u{202e}");
    }
    fake.chat_line("t1", "player", "Opponent", "hello there");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    {
        // What the bot said shows on the page: the greeting and the answers.
        let st = bot.status.borrow().clone();
        let g = st.games.iter().find(|g| g.site == "lichess").unwrap();
        assert!(
            g.talk.iter().any(|t| t == "Hello Opponent, good luck!"),
            "{:?}",
            g.talk
        );
        assert!(
            g.talk.iter().any(|t| t.starts_with("Commands: !eval")),
            "{:?}",
            g.talk
        );
    }
    let game = |s: &crate::lichess_fake_server::Stats, g: &[crate::lichess_fake_server::Game]| {
        format!(
            "{} {} {:?} {:?}",
            g[0].status,
            g[0].moves.len(),
            g[0].answers,
            s.chats
        )
    };
    fake.offer("t1", "takeback");
    assert!(
        fake.wait_for(Duration::from_secs(10), |_, g| g[0]
            .answers
            .iter()
            .any(|a| a == "takeback/no"))
            .await,
        "the takeback is declined: {}",
        fake.with(game)
    );
    // A draw offer is answered by the engine's view of the position. An offer
    // that meets our move on its way is declined by that move (as on Lichess: the
    // server drops it, and the bot then sends no answer), so the opponent offers
    // again until one is answered.
    let mut answered = false;
    for _ in 0..6 {
        if fake.with(|_, g| g[0].status != "started") {
            break;
        }
        fake.offer("t1", "draw");
        if fake
            .wait_for(Duration::from_secs(5), |_, g| {
                g[0].answers.iter().any(|a| a.starts_with("draw/"))
            })
            .await
        {
            answered = true;
            break;
        }
    }
    assert!(answered, "the draw offer is answered: {}", fake.with(game));
    fake.opponent_resigns("t1");
    let r = bot.game_ended(Duration::from_secs(120)).await;
    assert_ne!(r.result, "*", "{r:?}");
    assert!(
        status_until(&bot.status, Duration::from_secs(5), |s| s.games.is_empty())
            .await
            .games
            .is_empty(),
        "the game leaves the status page when it ends"
    );
    assert!(
        fake.wait_for(Duration::from_secs(5), |s, _| s
            .chats
            .iter()
            .any(|c| c.1.contains("Thank")))
            .await,
        "the farewell"
    );
    fake.with(|s, _| {
        let said = |room: &str, what: &str| {
            s.chats
                .iter()
                .filter(|c| c.0 == room && c.1.contains(what))
                .count()
        };
        eprintln!("chat: {:?}", s.chats);
        assert_eq!(
            said("player", "Hello+Opponent%2C+good+luck"),
            1,
            "the greeting"
        );
        assert_eq!(
            said(
                "spectator",
                "Welcome%3A+KibBot+against+Opponent%2C+played+by+kibitzer+"
            ),
            1,
            "the spectators' greeting"
        );
        assert_eq!(
            said("spectator", "Thanks+for+watching+KibBot."),
            1,
            "the spectators' farewell"
        );
        assert_eq!(said("player", "Thank+you+for+the+game"), 1, "the farewell");
        assert_eq!(said("player", "Commands%3A"), 1, "!help answered");
        assert_eq!(said("spectator", "Evaluation+"), 1, "!eval to spectators");
        assert_eq!(
            said("player", "keep+my+evaluation"),
            1,
            "!eval refused to the opponent"
        );
        assert_eq!(
            said("spectator", "I+am+kibitzer"),
            1,
            "five !name in a burst: one answer"
        );
        assert_eq!(said("player", "no+takebacks"), 1, "the takeback refused");
        assert_eq!(s.chats.len(), 9, "nothing else: {:?}", s.chats);
    });
    bot.stop().await;
}

/// The challenge filters through the Lichess account: the allow list, the rating
/// difference from our own rating (the challenge's `destUser`), the increment
/// required below a time, and the games per opponent per day (from the ledger:
/// after one finished game the same opponent is declined `later`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_challenge_filters() {
    let cfg = FakeConfig {
        opponent_resigns_after: Some(2),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-filters",
        &[
            "bot.allow=Opponent, Friend",
            "bot.max_rating_diff=300",
            "bot.increment_below=180",
            "bot.max_games_per_day=1",
            "bot.min_time=0",
        ],
    )
    .await;
    let fake = bot.fake.clone();
    let from = |id: &str, who: &str, rating: i32, base: u32, inc: u32| ChallengeSpec {
        challenger: who.into(),
        challenger_rating: rating,
        ..ChallengeSpec::standard(id, base, inc, Color::White)
    };
    let cases = [
        (from("c1", "Stranger", 1900, 180, 0), "generic"),
        (from("c2", "Friend", 1500, 180, 0), "generic"),
        (from("c3", "Friend", 1800, 60, 0), "timeControl"),
    ];
    for (c, _) in &cases {
        fake.challenge(c.clone());
    }
    assert!(
        fake.wait_for(Duration::from_secs(20), |s, _| s.declined.len() == 3)
            .await
    );
    // Inside every filter: played (the fake's games are all against "Opponent").
    fake.challenge(from("ok1", "Opponent", 1800, 60, 1));
    let r = bot.game_ended(Duration::from_secs(120)).await;
    assert_eq!(r.result, "1-0", "{r:?}");
    // The same opponent again today: declined for the day.
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Another player just after: accepted (so the slot was free, and `later`
    // above was the day's limit, not a busy slot).
    fake.challenge(from("again", "Opponent", 1800, 60, 1));
    fake.challenge(from("ok2", "Friend", 1800, 60, 1));
    assert!(
        fake.wait_for(Duration::from_secs(20), |s, _| s.declined.len() == 4
            && s.accepted.len() == 2)
            .await
    );
    fake.with(|s, _| {
        for (c, want) in &cases {
            let got = s
                .declined
                .iter()
                .find(|d| d.0 == c.id)
                .map(|d| d.1.as_str());
            assert_eq!(got, Some(*want), "challenge {}", c.id);
        }
        assert_eq!(
            s.declined
                .iter()
                .find(|d| d.0 == "again")
                .map(|d| d.1.as_str()),
            Some("later")
        );
        assert_eq!(s.accepted, ["ok1", "ok2"]);
    });
    bot.stop().await;
}

/// `!wait` from the opponent before their first move holds off our abort (at
/// `bot.first_move_timeout`, 2 s here) for a minute; they move and the game is
/// played. The answer says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_wait_holds_off_the_abort() {
    let cfg = FakeConfig {
        opponent_never_moves: true,
        opponent_resigns_after: Some(2),
        first_move_limit: Duration::from_secs(60),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-wait", &["bot.first_move_timeout=2"]).await;
    let fake = bot.fake.clone();
    fake.challenge(ChallengeSpec::standard("w1", 60, 0, Color::White));
    assert!(
        fake.wait_for(Duration::from_secs(20), |_, g| g
            .first()
            .is_some_and(|g| g.moves.len() == 1))
            .await
    );
    fake.chat_line("w1", "player", "Opponent", "!wait");
    tokio::time::sleep(Duration::from_secs(5)).await;
    fake.with(|s, g| {
        assert_eq!(g[0].status, "started", "not aborted");
        assert!(!s.requests.iter().any(|r| r.1.ends_with("/abort")));
        assert!(
            s.chats
                .iter()
                .any(|c| c.0 == "player" && c.1.contains("I+will+wait+60+seconds")),
            "{:?}",
            s.chats
        );
    });
    fake.opponent_starts("w1");
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert_eq!(r.result, "1-0", "played out: {r:?}");
    bot.stop().await;
}

/// With every slot busy, challenges inside the formula wait in a queue of
/// `lichess.queue` (2): the next is declined `later`; `!queue` names who waits;
/// a withdrawn challenge leaves the queue; each game's end accepts the next.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_challenges_queue_while_busy() {
    let cfg = FakeConfig {
        opponent_delay: Duration::from_millis(800),
        opponent_resigns_after: Some(6),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-queue",
        &["lichess.concurrency=1", "lichess.queue=2"],
    )
    .await;
    let fake = bot.fake.clone();
    let from = |id: &str, who: &str| ChallengeSpec {
        challenger: who.into(),
        ..ChallengeSpec::standard(id, 60, 0, Color::White)
    };
    fake.challenge(from("q0", "Alice"));
    assert!(
        fake.wait_for(Duration::from_secs(20), |_, g| g
            .first()
            .is_some_and(|g| g.moves.len() >= 2))
            .await
    );
    fake.challenge(from("q1", "Bob"));
    fake.challenge(from("q2", "Carol"));
    fake.challenge(from("q3", "Dave"));
    assert!(
        fake.wait_for(Duration::from_secs(10), |s, _| s.declined.len() == 1)
            .await
    );
    fake.chat_line("q0", "spectator", "Watcher", "!queue");
    assert!(
        fake.wait_for(Duration::from_secs(10), |s, _| s
            .chats
            .iter()
            .any(|c| c.1.contains("Waiting+to+play+me%3A+Bob%2C+Carol.")))
            .await,
        "{:?}",
        fake.with(|s, _| s.chats.clone())
    );
    {
        // The operator sees who waits (JSON and page read the account's entry).
        let st = bot.status.borrow().clone();
        let a = st.accounts.iter().find(|a| a.name == "lichess").unwrap();
        assert_eq!(a.queued, ["Bob", "Carol"]);
    }
    fake.withdraw("q2");
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert_eq!(r.result, "1-0", "{r:?}");
    let r = bot.game_ended(Duration::from_secs(60)).await;
    assert_eq!(r.result, "1-0", "the queued game is played: {r:?}");
    fake.with(|s, g| {
        assert_eq!(s.accepted, ["q0", "q1"], "Carol withdrew");
        assert_eq!(s.declined, [("q3".to_string(), "later".to_string())]);
        assert_eq!(g.len(), 2);
    });
    bot.stop().await;
}

/// Takebacks (`lichess.max_takebacks=2`): a request on our turn takes back one
/// ply (the search's move is held back so it cannot cross our answer), one on
/// the opponent's turn two; a third request is declined. The game goes on with
/// legal moves only, and nothing of ours asks for a takeback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_takebacks_granted_up_to_the_limit() {
    let cfg = FakeConfig {
        opponent_delay: Duration::from_millis(1500),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-takeback", &["lichess.max_takebacks=2"]).await;
    let fake = bot.fake.clone();
    fake.challenge(ChallengeSpec::standard("tb", 600, 0, Color::White));
    let state = |s: &crate::lichess_fake_server::Stats, g: &[crate::lichess_fake_server::Game]| {
        format!(
            "{} {} {:?} illegal {}",
            g[0].status,
            g[0].moves.len(),
            g[0].answers,
            s.illegal
        )
    };
    // The opponent's turn (our move made): two plies go.
    assert!(
        fake.wait_for(Duration::from_secs(30), |_, g| g.first().is_some_and(|g| g
            .moves
            .len()
            >= 3
            && g.moves.len() % 2 == 1))
            .await
    );
    fake.offer("tb", "takeback");
    assert!(
        fake.wait_for(Duration::from_secs(10), |_, g| g[0]
            .answers
            .iter()
            .any(|a| a == "takeback/yes"))
            .await,
        "the first takeback is granted: {}",
        fake.with(state)
    );
    let after = fake.with(|_, g| g[0].takebacks);
    assert_eq!(after, 1, "{}", fake.with(state));
    // Our turn (the opponent just moved): one ply goes. The request comes with
    // the opponent's move (our turn lasts only as long as our 1500-node search,
    // too short to aim at from outside); one that still crosses our move on its
    // way is dropped, as Lichess drops a standing offer at a move, and asked again.
    let mut granted = false;
    for _ in 0..4 {
        fake.takeback_after_next_move("tb");
        if fake
            .wait_for(Duration::from_secs(8), |_, g| g[0].takebacks == 2)
            .await
        {
            granted = true;
            break;
        }
    }
    let before = fake.with(|_, g| g[0].moves.len());
    assert!(
        granted,
        "the second takeback is granted: {}",
        fake.with(state)
    );
    fake.with(|_, g| assert_eq!(g[0].took_back, [2, 1], "double, then single"));
    // A third, on the opponent's turn (which lasts its 1.5 s): declined, politely.
    assert!(
        fake.wait_for(Duration::from_secs(30), |_, g| g[0].moves.len() > before
            && g[0].moves.len() % 2 == 1)
            .await
    );
    fake.offer("tb", "takeback");
    assert!(
        fake.wait_for(Duration::from_secs(10), |_, g| g[0]
            .answers
            .iter()
            .any(|a| a == "takeback/no"))
            .await,
        "the third is declined: {}",
        fake.with(state)
    );
    fake.opponent_resigns("tb");
    let r = bot.game_ended(Duration::from_secs(180)).await;
    assert_eq!(r.result, "1-0", "the opponent resigns in the end: {r:?}");
    fake.with(|s, g| {
        assert_eq!(s.illegal, 0, "no illegal move: {}", state(s, g));
        assert!(
            !g[0].answers.iter().any(|a| a == "takeback/propose"),
            "no takeback asked by us: {:?}",
            g[0].answers
        );
        assert_eq!(g[0].takebacks, 2);
        assert!(
            s.chats.iter().any(|c| c.1.contains("no+more+takebacks")),
            "{:?}",
            s.chats
        );
    });
    // The record holds the moves as played in the end.
    let pgn = std::fs::read_to_string(bot.dir.join("games.pgn")).unwrap_or_default();
    let n = fake.with(|_, g| g[0].moves.len());
    assert!(pgn.contains("1-0"), "{pgn}");
    assert!(
        pgn.contains(&format!("{}.", n.div_ceil(2))),
        "the record has all {n} plies: {pgn}"
    );
    bot.stop().await;
}

/// A game in progress when the daemon starts is picked up from
/// `/api/account/playing` and played to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_picks_up_a_game_in_progress() {
    let mut bot = Bot::start(FakeConfig::default(), "lichess-pickup", &[]).await;
    let fake = bot.fake.clone();
    fake.challenge(ChallengeSpec::standard("p1", 180, 2, Color::White));
    assert!(
        fake.wait_for(Duration::from_secs(20), |_, g| g
            .first()
            .is_some_and(|g| g.moves.len() >= 6))
            .await
    );
    // The daemon goes away mid-game; the game goes on on the server.
    bot.control.send(ControlMsg::Quit);
    let _ = tokio::time::timeout(Duration::from_secs(20), &mut bot.handle).await;
    let ply = fake.with(|_, g| g[0].moves.len());
    let d = Daemon::new(settings(&fake.url(), &bot.dir, TOKEN, &[]));
    let mut events = d.subscribe();
    let control = d.control();
    let handle = tokio::spawn(d.run());
    let r = match events_until(&mut events, Duration::from_secs(240), |e| {
        matches!(e, BotEvent::GameEnded(_))
    })
    .await
    {
        Some(BotEvent::GameEnded(r)) => r,
        _ => panic!("the game picked up ends"),
    };
    assert_ne!(r.result, "*", "{r:?}");
    fake.with(|s, g| {
        assert!(g[0].moves.len() > ply, "moves after the restart");
        assert_ne!(g[0].status, "started");
        assert!(s.requests.iter().any(|r| r.1 == "/api/account/playing"));
        assert_eq!(s.illegal, 0);
    });
    control.send(ControlMsg::Quit);
    let exit = tokio::time::timeout(Duration::from_secs(20), handle)
        .await
        .expect("stops")
        .expect("no panic");
    assert_eq!(exit, Exit::Ok);
    let _ = std::fs::remove_dir_all(&bot.dir);
}

/// Matchmaking: online bots in the rating range are challenged in turn (the
/// blocked one and those out of range never); a decline backs off from that bot;
/// an accepted challenge becomes a game played to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_matchmaking_challenges_online_bots() {
    let cfg = FakeConfig {
        online_bots: vec![
            ("Declines".into(), 2000, 2000),
            ("Accepts".into(), 2050, 2050),
            ("TooStrong".into(), 3000, 3000),
            ("Blocked".into(), 2000, 2000),
        ],
        accept: vec!["Accepts".into()],
        decline: vec!["Declines".into()],
        opponent_resigns_after: Some(2),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-mm",
        &[
            "lichess.matchmaking=on",
            "lichess.challenge_interval=10",
            "lichess.challenge_tc=1+0",
            "lichess.challenge_min_rating=1500",
            "lichess.challenge_max_rating=2500",
            "lichess.challenge_block=blocked",
        ],
    )
    .await;
    let r = bot.game_ended(Duration::from_secs(120)).await;
    assert_eq!(r.result, "1-0", "{r:?}");
    // Then the bot not yet asked (it declines), then, the decliner left alone, the
    // one that accepted again.
    assert!(
        bot.fake
            .wait_for(Duration::from_secs(120), |s, _| s.our_challenges.len() >= 3)
            .await,
        "three challenges: {:?}",
        bot.fake.with(|s, _| s.our_challenges.clone())
    );
    bot.fake.with(|s, _| {
        let who: Vec<&str> = s.our_challenges.iter().map(|c| c.0.as_str()).collect();
        assert_eq!(&who[..3], ["Accepts", "Declines", "Accepts"], "{who:?}");
        assert!(s.our_challenges.iter().all(|c| (c.1, c.2) == (60, 0)));
        assert_eq!(s.rate_limited, 0);
        let gap = |a: &str, b: &str| {
            let t = |p: &str| {
                s.requests
                    .iter()
                    .filter(|r| r.1 == "/api/challenge/".to_string() + p)
                    .map(|r| r.4)
                    .collect::<Vec<_>>()
            };
            (t(a), t(b))
        };
        let (acc, dec) = gap("Accepts", "Declines");
        assert!(
            acc[1].duration_since(dec[0]) >= Duration::from_secs(19),
            "the interval doubled after the decline"
        );
    });
    bot.stop().await;
}

/// Network lag: the fake holds each of our moves 250 ms before it takes it (and
/// charges our clock for it); the move overhead, measured from the clocks as on
/// FICS, rises from its 100 ms floor to cover the lag, and no time is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lichess_move_overhead_follows_the_lag() {
    let cfg = FakeConfig {
        move_lag: Duration::from_millis(250),
        opponent_resigns_after: Some(14),
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(cfg, "lichess-lag", &["bot.min_overhead=100"]).await;
    bot.fake
        .challenge(ChallengeSpec::standard("l1", 120, 0, Color::White));
    let r = bot.game_ended(Duration::from_secs(120)).await;
    assert_eq!(r.result, "1-0", "{r:?}");
    assert!(
        r.stats.overhead_ms >= 200,
        "the overhead covers the 250 ms lag: {} ms",
        r.stats.overhead_ms
    );
    bot.fake.with(|s, g| {
        assert_eq!(s.illegal, 0);
        assert!(g[0].bot_clock_after.iter().all(|&c| c > 0));
    });
    bot.stop().await;
}
