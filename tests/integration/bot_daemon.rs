//! The bot behaviour against the fake server: talk in our own games (levels, noise,
//! the AK list, greetings), owners' commands and their permissions, list edits that
//! persist across a restart, observing a live game (whispers only, after noise,
//! stopping at its end), following an examined broadcast that jumps between
//! positions, and a whole tournament-mode game that keeps the operator's reserve and
//! sends nothing unasked.

use crate::daemon::on_both;
use crate::ics_fake_server::{FakeConfig, FakeServer, FakeStats};
use kibitzer::bot::{ControlMsg, Daemon, Exit};
use kibitzer::chess::{Board, Color};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn temp_dir(name: &str, icc: bool) -> PathBuf {
    let d = crate::daemon::temp_dir(&format!("bot-{name}{}", if icc { "-icc" } else { "" }));
    std::fs::create_dir_all(d.join("lists")).unwrap();
    d
}

/// The daemon tests' settings, with the lists in the test's directory, no seeks (the
/// opponent challenges when told), three owners and `extra` last.
fn settings(port: u16, dir: &Path, extra: &[&str]) -> kibitzer::settings::Settings {
    let lists = format!("bot.lists={}", dir.join("lists").display());
    let mut all = vec![
        lists.as_str(),
        "bot.seeks=",
        "sn=3000",
        "log=off",
        "bot.owners=alice:admin, bob:viewer, olga:operator",
    ];
    all.extend_from_slice(extra);
    crate::daemon::settings(port, dir, &all)
}

struct Run {
    srv: FakeServer,
    handle: tokio::task::JoinHandle<Exit>,
    control: kibitzer::bot::Control,
}

async fn start(srv: FakeServer, dir: &Path, extra: &[&str]) -> Run {
    let mut all = extra.to_vec();
    if srv.is_icc() {
        all.push("ics.server_type=icc");
    }
    let d = Daemon::new(settings(srv.port, dir, &all));
    let control = d.control();
    let handle = tokio::spawn(d.run());
    let r = Run {
        srv,
        handle,
        control,
    };
    assert!(
        r.srv
            .wait_for(Duration::from_secs(20), |s| s
                .commands
                .iter()
                .any(|c| c == "set bell 0"))
            .await,
        "logged in"
    );
    r
}

impl Run {
    async fn stop(self) -> (FakeStats, Exit) {
        self.control.send(ControlMsg::Quit);
        let exit = tokio::time::timeout(Duration::from_secs(20), self.handle)
            .await
            .expect("daemon stops")
            .expect("no panic");
        (self.srv.stats(), exit)
    }

    fn tell(&self, from: &str, text: &str) {
        self.srv.tell(from, text);
    }

    fn commands(&self) -> Vec<String> {
        self.srv.stats().commands
    }

    async fn wait_command(&self, secs: u64, f: impl Fn(&str) -> bool) -> bool {
        self.srv
            .wait_for(Duration::from_secs(secs), |s| {
                s.commands.iter().any(|c| f(c))
            })
            .await
    }
}

/// A style-12 line for `fen` in game `game` (relation: 0 observing, -2 examined).
pub(crate) fn style12(fen: &str, game: u32, relation: i32, white: &str, black: &str) -> String {
    let b = Board::from_fen(fen).unwrap();
    let f: Vec<&str> = fen.split(' ').collect();
    let ranks: Vec<String> = f[0]
        .split('/')
        .map(|r| {
            r.chars()
                .map(|c| match c.to_digit(10) {
                    Some(n) => "-".repeat(n as usize),
                    None => c.to_string(),
                })
                .collect()
        })
        .collect();
    let side = if b.side_to_move() == Color::White {
        "W"
    } else {
        "B"
    };
    let c = |x: char| if f[2].contains(x) { 1 } else { 0 };
    format!(
        "\n<12> {} {side} -1 {} {} {} {} 0 {game} {white} {black} {relation} 3 0 39 39 180 180 {} none (0:00) none 0 0\nfics% ",
        ranks.join(" "),
        c('K'),
        c('Q'),
        c('k'),
        c('q'),
        b.fullmove_number()
    )
}

fn count(cmds: &[String], prefix: &str) -> usize {
    cmds.iter().filter(|c| c.starts_with(prefix)).count()
}

on_both!(
    own_game_talk_follows_levels_noise_and_the_ak_list,
    icc_own_game_talk_follows_levels_noise_and_the_ak_list,
    own_game_talk_follows_levels_noise_and_the_ak_list_on
);

async fn own_game_talk_follows_levels_noise_and_the_ak_list_on(icc: bool) {
    let dir = temp_dir("owntalk", icc);
    std::fs::write(dir.join("lists/GM"), "bottwo\n").unwrap();
    std::fs::write(dir.join("lists/AK"), "bottwo\n").unwrap();
    let srv = FakeServer::start(FakeConfig {
        icc,
        max_plies: 16,
        ..Default::default()
    })
    .await;
    let r = start(
        srv,
        &dir,
        &[
            "whisper=5",
            "kibitz=0",
            "noise=0",
            "policy.autokibitz=kibitz=3",
            "talk.per_minute=120",
            "talk.greeting=Hello, good luck",
            "talk.farewell=Thanks for the game",
        ],
    )
    .await;
    r.srv.challenge_now();
    assert!(r.wait_command(20, |c| c.starts_with("kibitz ply=")).await);
    r.tell("bob", "status");
    assert!(
        r.wait_command(10, |c| c.starts_with("tell bob playing game")
            && c.contains("against bottwo (Gm)"))
            .await,
        "{:?}",
        r.commands()
    );
    let stats = r.srv.wait_results(1, Duration::from_secs(60)).await;
    assert_eq!(stats.results.len(), 1);
    assert!(r.wait_command(5, |c| c == "say Thanks for the game").await);
    let (s, _) = r.stop().await;
    let c = &s.commands;
    assert!(c.contains(&"say Hello, good luck".to_string()), "{c:?}");
    // The AK list turned kibitz on at 3: the summary with its PV goes to kibitz;
    // iterations (level 5) are whispered.
    let kib: Vec<&String> = c.iter().filter(|x| x.starts_with("kibitz ")).collect();
    assert!(!kib.is_empty());
    for k in &kib {
        let ok = k.starts_with("kibitz ply=")
            && k.contains(" eval=")
            && k.contains(" nps=")
            && k.contains(" time=")
            && !k.contains(';')
            && k.split(" | ").nth(1).is_some_and(|pv| pv.contains(". "))
            || k.starts_with("kibitz White mates")
            || k.starts_with("kibitz Black mates");
        assert!(ok, "{k}");
    }
    let wh: Vec<&String> = c.iter().filter(|x| x.starts_with("whisper ")).collect();
    assert!(
        wh.iter()
            .any(|w| w.starts_with("whisper d") && w.contains("-> ")),
        "{wh:?}"
    );
    assert!(
        !wh.iter().any(|w| w.contains("ply=")),
        "summaries go to kibitz: {wh:?}"
    );
    assert_eq!(s.illegal_moves, 0);

    // The same game with a noise level no search of 3000 nodes reaches: silence.
    let srv = FakeServer::start(FakeConfig {
        icc,
        max_plies: 10,
        ..Default::default()
    })
    .await;
    let r = start(srv, &dir, &["whisper=6", "kibitz=6", "noise=1000000"]).await;
    r.srv.challenge_now();
    let stats = r.srv.wait_results(1, Duration::from_secs(60)).await;
    assert_eq!(stats.results.len(), 1);
    let (s, _) = r.stop().await;
    assert_eq!(count(&s.commands, "whisper"), 0, "{:?}", s.commands);
    assert_eq!(count(&s.commands, "kibitz"), 0, "{:?}", s.commands);
    let _ = std::fs::remove_dir_all(&dir);
}

on_both!(
    owner_commands_obey_permissions_refuse_guests_and_lists_persist,
    icc_owner_commands_obey_permissions_refuse_guests_and_lists_persist,
    owner_commands_obey_permissions_refuse_guests_and_lists_persist_on
);

async fn owner_commands_obey_permissions_refuse_guests_and_lists_persist_on(icc: bool) {
    let dir = temp_dir("owners", icc);
    let srv = FakeServer::start(FakeConfig {
        icc,
        ..Default::default()
    })
    .await;
    let r = start(srv, &dir, &["noise=5000"]).await;
    r.tell("bob", "kibitz 3");
    r.tell("GuestXYZ(U)", "status");
    r.tell("mallory", "resign");
    r.tell("mallory", "resign");
    r.tell("alice", "kibitz 3");
    r.tell("alice", "list GM +Magnus");
    r.tell("bob", "list GM +x");
    r.tell("olga", "observe 5");
    r.tell("olga", "frobnicate");
    r.tell("bob", "status");
    assert!(
        r.wait_command(10, |c| c.starts_with("tell bob not playing"))
            .await,
        "{:?}",
        r.commands()
    );
    let c = r.commands();
    let has = |s: &str| c.iter().any(|x| x == s);
    assert!(
        has("tell bob Sorry, that needs the operator level, you are viewer."),
        "{c:?}"
    );
    assert!(
        has("tell GuestXYZ Sorry, I take commands only from my registered owners."),
        "{c:?}"
    );
    assert_eq!(
        count(
            &c,
            "tell mallory Sorry, I take commands only from my owners."
        ),
        1,
        "one refusal per handle: {c:?}"
    );
    assert!(!has("resign"), "{c:?}");
    assert!(has("tell alice kibitz 3"), "{c:?}");
    assert!(c.iter().any(|x| x == "tell alice list GM: magnus"), "{c:?}");
    assert!(
        has("tell bob Sorry, that needs the admin level, you are viewer."),
        "{c:?}"
    );
    assert!(has("observe 5") && has("tell olga observing 5"), "{c:?}");
    assert!(
        c.iter()
            .any(|x| x.starts_with("tell olga Sorry, that is not a command")),
        "{c:?}"
    );
    assert!(
        c.iter()
            .any(|x| x.starts_with("tell bob not playing") && x.contains("kibitz 3 noise 5000")),
        "{c:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("lists/GM")).unwrap(),
        "magnus\n"
    );
    // softquit from the admin ends the daemon.
    r.tell("alice", "softquit");
    let exit = tokio::time::timeout(Duration::from_secs(20), r.handle)
        .await
        .expect("softquit stops the daemon")
        .unwrap();
    assert_eq!(exit, Exit::Ok);

    // After a restart the list is read back.
    let srv = FakeServer::start(FakeConfig {
        icc,
        ..Default::default()
    })
    .await;
    let r = start(srv, &dir, &[]).await;
    r.tell("bob", "list GM");
    assert!(
        r.wait_command(10, |c| c == "tell bob list GM: magnus")
            .await,
        "{:?}",
        r.commands()
    );
    let _ = r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

pub(crate) const MIDGAME: &str =
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

on_both!(
    an_observed_live_game_gets_whispers_after_noise_until_it_ends,
    icc_an_observed_live_game_gets_whispers_after_noise_until_it_ends,
    an_observed_live_game_gets_whispers_after_noise_until_it_ends_on
);

async fn an_observed_live_game_gets_whispers_after_noise_until_it_ends_on(icc: bool) {
    let dir = temp_dir("observe", icc);
    let srv = FakeServer::start(FakeConfig {
        icc,
        ..Default::default()
    })
    .await;
    let r = start(
        srv,
        &dir,
        &[
            "bot.observe=77",
            "whisper=0",
            "kibitz=5",
            "noise=2000000000",
            "sn=0",
            "talk.per_minute=120",
        ],
    )
    .await;
    assert!(r.wait_command(5, |c| c == "observe 77").await);
    r.srv.observed(MIDGAME, 77, 0, "alpha", "beta");
    // Others talk in the game: read (ICC: DG_KIBITZ), nothing answered.
    r.srv.kibitz(77, "carol", "what a {move}; resign", true);
    r.srv.kibitz(77, "dave", "hmm", false);
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(count(&r.commands(), "whisper d"), 0, "noise not reached");
    r.tell("olga", "noise 20000");
    assert!(
        r.wait_command(30, |c| c.starts_with("whisper d")).await,
        "{:?}",
        r.commands()
    );
    // lasker and ICC have no xwhisper: a plain whisper reaches the one game observed.
    assert_eq!(count(&r.commands(), "xwhisper"), 0);
    assert!(!r
        .commands()
        .iter()
        .any(|c| c.contains("resign") || c.contains("carol")));
    // A live game of others: never kibitzed.
    assert_eq!(count(&r.commands(), "kibitz"), 0);
    r.srv
        .observed_end(77, "alpha", "beta", "alpha resigns", "0-1");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let n = count(&r.commands(), "whisper d");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        count(&r.commands(), "whisper d"),
        n,
        "talk stops at the end"
    );
    let _ = r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

on_both!(
    an_examined_broadcast_that_jumps_is_followed,
    icc_an_examined_broadcast_that_jumps_is_followed,
    an_examined_broadcast_that_jumps_is_followed_on
);

async fn an_examined_broadcast_that_jumps_is_followed_on(icc: bool) {
    let dir = temp_dir("relay", icc);
    let srv = FakeServer::start(FakeConfig {
        icc,
        ..Default::default()
    })
    .await;
    let r = start(
        srv,
        &dir,
        &["kibitz=5", "noise=0", "sn=0", "talk.per_minute=120"],
    )
    .await;
    let start_fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    r.srv.observed(start_fen, 88, -2, "Carlsen", "Caruana");
    assert!(r.wait_command(20, |c| c.starts_with("kibitz d")).await);
    // The relay jumps to a new set-up: a mate in one.
    r.srv.observed(
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 30",
        88,
        -2,
        "Carlsen",
        "Caruana",
    );
    assert!(
        r.wait_command(20, |c| c == "kibitz White mates in 1").await,
        "{:?}",
        r.commands()
    );
    assert!(
        r.wait_command(20, |c| c.starts_with("kibitz d") && c.contains("Rd8#"))
            .await
    );
    // ... and back to an opening position.
    r.srv.observed(MIDGAME, 88, -2, "Carlsen", "Caruana");
    let before = count(&r.commands(), "kibitz d");
    assert!(
        r.srv
            .wait_for(Duration::from_secs(20), |s| count(&s.commands, "kibitz d")
                > before + 1)
            .await,
        "{:?}",
        r.commands()
    );
    assert_eq!(
        count(&r.commands(), "whisper"),
        0,
        "a relay may be kibitzed"
    );
    r.srv.examined_gone(88);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let n = count(&r.commands(), "kibitz d");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(count(&r.commands(), "kibitz d"), n, "examining ended");
    let _ = r.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

on_both!(
    a_tournament_game_keeps_the_operator_reserve_and_sends_nothing_unasked,
    icc_a_tournament_game_keeps_the_operator_reserve_and_sends_nothing_unasked,
    a_tournament_game_keeps_the_operator_reserve_and_sends_nothing_unasked_on
);

async fn a_tournament_game_keeps_the_operator_reserve_and_sends_nothing_unasked_on(icc: bool) {
    let dir = temp_dir("tournament", icc);
    let srv = FakeServer::start(FakeConfig {
        icc,
        minutes: 2,
        clock_ms: Some(75_000),
        max_plies: 30,
        opp_offer_draw_at: Some(8),
        ..Default::default()
    })
    .await;
    let r = start(
        srv,
        &dir,
        &[
            "mode=tournament",
            "operator=1",
            "sn=0",
            "bot.seeks=2 0 u",
            "resign=1",
            "resign_count=1",
        ],
    )
    .await;
    r.srv.challenge_now();
    let stats = r.srv.wait_results(1, Duration::from_secs(90)).await;
    let (s, _) = r.stop().await;
    assert_eq!(stats.results.len(), 1, "{stats:?}");
    assert_eq!(s.bot_time_losses, 0);
    assert_eq!(s.illegal_moves, 0);
    let reserve = s.min_bot_reserve_ms.expect("the bot moved");
    assert!(
        reserve >= 60_000,
        "operator reserve touched: {reserve} ms left"
    );
    for c in &s.commands {
        let w = c.split_whitespace().next().unwrap_or("");
        assert!(
            !matches!(w, "draw" | "resign" | "abort" | "seek" | "say"),
            "unasked: {c}"
        );
    }
    assert!(
        s.commands.iter().any(|c| c == "accept bottwo"),
        "{:?}",
        s.commands
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tell longer than the server's line width arrives wrapped (a first line, then
/// continuation lines that start with a backslash): the daemon joins it back into one
/// tell, so an owner's long `list` edit is read whole, not cut at the first line
/// with the rest taken for an unknown line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrapped_tell_is_read_whole() {
    let dir = temp_dir("wrapped-tell", false);
    let srv = FakeServer::start(FakeConfig::default()).await;
    let r = start(srv, &dir, &[]).await;
    // Short names, so the reply (cut at the server's 400 characters) holds them all.
    let names: Vec<String> = (0..60).map(|i| format!("n{i:02}")).collect();
    let adds: Vec<String> = names.iter().map(|n| format!("+{n}")).collect();
    let text = format!("list GM {}", adds.join(" "));
    assert!(text.len() > 240, "longer than the line width the bot sets");
    r.tell("alice", &text);
    let want = format!("tell alice list GM: {}", names.join(" "));
    assert!(
        r.wait_command(10, |c| c == want).await,
        "every name of the wrapped tell: {:?}",
        r.commands()
            .iter()
            .filter(|c| c.starts_with("tell alice"))
            .collect::<Vec<_>>()
    );
    let (_, exit) = r.stop().await;
    assert_eq!(exit, Exit::Ok);
    let _ = std::fs::remove_dir_all(&dir);
}
