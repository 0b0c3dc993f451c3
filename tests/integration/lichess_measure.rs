//! The measurement against the fake Lichess (ignored by default):
//! `KIBITZER_LICHESS_MEASURE=50,10` games at 1+0 and at 3+2 (the default), the
//! opponent moving at once, one game at a time; reports illegal moves, time
//! forfeits, games that ended without a result, the smallest clock kept, the
//! response time from a `gameState` to our move, and requests per minute while
//! idle and while playing.
//!
//! `cargo test --test integration lichess_measure -- --ignored --nocapture`
//! (`KIBITZER_LICHESS_MEASURE_SN=1`: a one-node search, every move at once).

use crate::lichess::Bot;
use crate::lichess_fake_server::{ChallengeSpec, FakeConfig};
use kibitzer::chess::Color;
use std::time::Duration;

fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: plays 60 games (KIBITZER_LICHESS_MEASURE=n1,n3 for fewer)"]
async fn lichess_measure() {
    let counts = std::env::var("KIBITZER_LICHESS_MEASURE").unwrap_or_else(|_| "50,10".into());
    let mut it = counts
        .split(',')
        .map(|x| x.trim().parse::<usize>().unwrap_or(0));
    let (n1, n3) = (it.next().unwrap_or(50), it.next().unwrap_or(10));
    let cfg = FakeConfig {
        opponent_delay: Duration::ZERO,
        ..FakeConfig::default()
    };
    // The engine thinks by its clock (no node limit), without pondering;
    // `KIBITZER_LICHESS_MEASURE_SN=1` makes every move instant (the bridge's and
    // the network's own share of the response time).
    let sn = format!(
        "sn={}",
        std::env::var("KIBITZER_LICHESS_MEASURE_SN").unwrap_or_else(|_| "0".into())
    );
    let mut bot = Bot::start(
        cfg,
        "lichess-measure",
        &[&sn, "hash=16M", "bot.max_rematches=0"],
    )
    .await;
    // Idle: a minute with nothing to play.
    let idle = Duration::from_secs(60);
    let t0 = tokio::time::Instant::now();
    let before = bot.fake.with(|s, _| s.requests.len());
    tokio::time::sleep(idle).await;
    let idle_requests = bot.fake.with(|s, _| s.requests.len()) - before;
    let idle_per_min = idle_requests as f64 * 60.0 / t0.elapsed().as_secs_f64();
    let play_start = tokio::time::Instant::now();
    let play_before = bot.fake.with(|s, _| s.requests.len());
    let mut lines = Vec::new();
    for (label, n, limit, inc) in [("1+0", n1, 60, 0), ("3+2", n3, 180, 2)] {
        let (mut forfeits, mut unfinished, mut no_start) = (0, 0, 0);
        let mut min_clock = i64::MAX;
        let mut responses = Vec::new();
        let mut first_moves = Vec::new();
        let (mut wins, mut draws, mut losses) = (0, 0, 0);
        for i in 0..n {
            let id = format!("m{label}{i}").replace('+', "x");
            let color = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            bot.fake
                .challenge(ChallengeSpec::standard(&id, limit, inc, color));
            let r = bot
                .game_ended(Duration::from_secs(limit as u64 * 4 + 120))
                .await;
            let ours = if color == Color::White { "1-0" } else { "0-1" };
            match r.result.as_str() {
                "1/2-1/2" => draws += 1,
                x if x == ours => wins += 1,
                "*" => unfinished += 1,
                _ => losses += 1,
            }
            bot.fake.with(|_, games| {
                let g = games.iter().find(|g| g.id == id).unwrap();
                if g.status == "outoftime" && g.winner != Some(color) {
                    forfeits += 1;
                }
                if g.no_start == Some(color) {
                    no_start += 1;
                }
                min_clock =
                    min_clock.min(g.bot_clock_after.iter().copied().min().unwrap_or(i64::MAX));
                if let Some(f) = g.responses.first() {
                    first_moves.push(*f);
                }
                responses.extend(g.responses.iter().skip(1).copied());
            });
        }
        let illegal = bot.fake.with(|s, _| s.illegal);
        let line = format!(
            "{label}: {n} games (+{wins} ={draws} -{losses}, {unfinished} without result), illegal moves {illegal} (all so far), time forfeits {forfeits}, first-move aborts {no_start}, smallest clock kept {} ms, gameState->move median {:.1} ms, p95 {:.1} ms, max {:.1} ms over {} moves (first moves: median {:.1} ms, max {:.1} ms)",
            if min_clock == i64::MAX { -1 } else { min_clock },
            percentile(&mut responses, 0.5),
            percentile(&mut responses, 0.95),
            percentile(&mut responses, 1.0),
            responses.len(),
            percentile(&mut first_moves, 0.5),
            percentile(&mut first_moves, 1.0),
        );
        eprintln!("{line}");
        assert_eq!(forfeits, 0, "{line}");
        assert_eq!(no_start, 0, "{line}");
        lines.push(line);
    }
    let play_requests = bot.fake.with(|s, _| s.requests.len()) - play_before;
    let play_min = play_start.elapsed().as_secs_f64() / 60.0;
    let summary = format!(
        "requests per minute: idle {idle_per_min:.1} ({idle_requests} in {:.0} s), in play {:.1} ({play_requests} in {play_min:.1} min)",
        idle.as_secs_f64(),
        play_requests as f64 / play_min
    );
    eprintln!("{summary}");
    bot.fake.with(|s, _| {
        assert_eq!(s.illegal, 0, "{lines:?}");
        assert_eq!(s.rate_limited, 0);
    });
    bot.stop().await;
}

/// The measurement of recovering streams (ignored by default): 20 games at
/// 1+0, the game stream cut by a TCP reset in every 5th game and by 70 s of silence
/// once; reports time forfeits, games stuck (a slot never freed: the next challenge
/// declined), and the time from each cut to the stream open again (median, max).
///
/// `cargo test --test integration lichess_cuts_measure -- --ignored --nocapture`
/// (`KIBITZER_LICHESS_MEASURE=n` for another number of games).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: plays 20 games at 1+0 with cut streams"]
async fn lichess_cuts_measure() {
    use crate::lichess_fake_server::{Cut, StreamCut};
    let n: usize = std::env::var("KIBITZER_LICHESS_MEASURE")
        .ok()
        .and_then(|v| v.split(',').next()?.trim().parse().ok())
        .unwrap_or(20);
    let mut cuts: Vec<StreamCut> = (0..n)
        .filter(|i| i % 5 == 4)
        .map(|game| StreamCut {
            game,
            after_states: 9,
            kind: Cut::Reset,
        })
        .collect();
    cuts.push(StreamCut {
        game: 2,
        after_states: 13,
        kind: Cut::Silence(Duration::from_secs(70)),
    });
    let cfg = FakeConfig {
        opponent_delay: Duration::from_millis(100),
        stream_cuts: cuts,
        ..FakeConfig::default()
    };
    let mut bot = Bot::start(
        cfg,
        "lichess-cuts-measure",
        &["hash=16M", "bot.max_rematches=0"],
    )
    .await;
    let (mut forfeits, mut unfinished, mut results) = (0, 0, Vec::new());
    for i in 0..n {
        let id = format!("cut{i}");
        let color = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        bot.fake
            .challenge(ChallengeSpec::standard(&id, 60, 0, color));
        let r = bot.game_ended(Duration::from_secs(400)).await;
        results.push(r.result.clone());
        if r.result == "*" || r.result.is_empty() {
            unfinished += 1;
        }
        bot.fake.with(|_, games| {
            let g = games.iter().find(|g| g.id == id).unwrap();
            if g.status == "outoftime" && g.winner != Some(color) {
                forfeits += 1;
            }
        });
    }
    let (declined, recover, cut_count, illegal) = bot.fake.with(|s, games| {
        let mut rec: Vec<f64> = Vec::new();
        let mut cuts = 0;
        for g in games {
            for c in &g.cut_at {
                cuts += 1;
                if let Some(t) = g.opened_at.iter().find(|t| *t > c) {
                    rec.push(t.duration_since(*c).as_secs_f64() * 1000.0);
                }
            }
        }
        (s.declined.len(), rec, cuts, s.illegal)
    });
    let mut recover = recover;
    let line = format!(
        "{n} games at 1+0: results {results:?}; time forfeits {forfeits}, unfinished {unfinished}, challenges declined (stuck slots) {declined}, illegal moves {illegal}; {cut_count} cuts, {} recovered, time to the stream open again: median {:.0} ms, max {:.0} ms",
        recover.len(),
        percentile(&mut recover, 0.5),
        percentile(&mut recover, 1.0),
    );
    eprintln!("{line}");
    assert_eq!(forfeits, 0, "{line}");
    assert_eq!(declined, 0, "{line}");
    assert_eq!(recover.len(), cut_count, "{line}");
    bot.stop().await;
}
