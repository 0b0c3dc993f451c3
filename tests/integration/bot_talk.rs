//! Talk: each whisper/kibitz level and noise value gives exactly the lines of the
//! Bot issue, on the right channel for the venue, cut and rate-limited.

use kibitzer::bot::talk::{cut, Change, Channel, Levels, Talk, Thought, Venue};
use kibitzer::chess::Board;
use kibitzer::engine::MATE;
use std::time::{Duration, Instant};

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap()
}

fn thought(b: &Board, score: i32, nodes: u64, pv: &[&str]) -> Thought {
    let mut c = b.clone();
    let mut moves = Vec::new();
    for m in pv {
        let mv = c.parse_move(m).unwrap();
        c.make_move(mv);
        moves.push(mv);
    }
    Thought {
        depth: 12,
        score,
        nodes,
        time: Duration::from_millis(100),
        pv: moves,
    }
}

fn talk(whisper: u8, kibitz: u8, noise: u64, venue: Venue) -> Talk {
    Talk::new(
        Levels {
            whisper,
            kibitz,
            noise,
        },
        venue,
        200,
        100,
    )
}

fn texts(v: Vec<(Channel, String)>) -> Vec<String> {
    v.into_iter().map(|(_, t)| t).collect()
}

#[test]
fn each_level_says_exactly_its_lines() {
    let b = Board::startpos();
    let t = thought(&b, 23, 1_150_000, &["e4", "e5", "Nf3"]);
    let now = Instant::now();
    type Expected<'a> = (u8, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>);
    let expect: [Expected; 7] = [
        (0, vec![], vec![], vec![]),
        (1, vec![], vec![], vec![]),
        (
            2,
            vec!["ply=12 eval=+0.23 nps=11.5M time=0.10"],
            vec![],
            vec![],
        ),
        (
            3,
            vec!["ply=12 eval=+0.23 nps=11.5M time=0.10 | 1. e4 e5 2. Nf3"],
            vec![],
            vec![],
        ),
        (
            4,
            vec!["ply=12 eval=+0.23 nps=11.5M time=0.10 | 1. e4 e5 2. Nf3"],
            vec![],
            vec![],
        ),
        (
            5,
            vec!["ply=12 eval=+0.23 nps=11.5M time=0.10 | 1. e4 e5 2. Nf3"],
            vec!["d12-> 0.10 +0.23 1. e4 e5 2. Nf3"],
            vec![],
        ),
        (
            6,
            vec!["ply=12 eval=+0.23 nps=11.5M time=0.10 | 1. e4 e5 2. Nf3"],
            vec!["d12-> 0.10 +0.23 1. e4 e5 2. Nf3"],
            vec![
                "d12 0.10 +0.23 1. e4 e5 2. Nf3",
                "d12++ 0.10 1. e4",
                "d12-- 0.10 1. e4",
            ],
        ),
    ];
    for (level, moved, iter, changes) in expect {
        let mut k = talk(level, 0, 0, Venue::Own);
        // A line at most every 0.6 s (a hundred a minute): each call a second later.
        let mut s = 0;
        let mut at = || {
            s += 1;
            now + Duration::from_secs(s)
        };
        assert_eq!(
            texts(k.moved(&b, &t, None, at())),
            moved,
            "level {level} summary"
        );
        assert_eq!(
            texts(k.iteration(&b, &t, at())),
            iter,
            "level {level} iteration"
        );
        let mut got = Vec::new();
        for c in [Change::NewBest, Change::FailHigh, Change::FailLow] {
            got.extend(texts(k.change(&b, c, &t, at())));
        }
        assert_eq!(got, changes, "level {level} changes");
        // Book moves from level 4 on.
        let book = texts(k.moved(&b, &t, Some("e4 45%, d4 35%"), at()));
        if level >= 4 {
            assert_eq!(book, vec!["book: e4 45%, d4 35%"]);
        } else {
            assert!(book.is_empty(), "level {level}: {book:?}");
        }
    }
}

#[test]
fn mates_are_announced_once_from_level_one() {
    let b = Board::startpos();
    let now = Instant::now();
    let mut k = talk(1, 0, 0, Venue::Own);
    // White (to move) mates in 5, then in 4: one announcement.
    let t5 = thought(&b, MATE - 9, 1000, &["e4"]);
    assert_eq!(texts(k.iteration(&b, &t5, now)), vec!["White mates in 5"]);
    let t4 = thought(&b, MATE - 7, 1000, &["e4"]);
    assert!(k.iteration(&b, &t4, now).is_empty());
    // Black to move being mated: White's view again.
    let bb = board("4k3/8/8/8/8/8/8/4K2R b K - 0 1");
    let mut k = talk(1, 0, 0, Venue::Own);
    let t = thought(&bb, -(MATE - 6), 1000, &["Kd7"]);
    assert_eq!(texts(k.moved(&bb, &t, None, now)), vec!["White mates in 3"]);
    // A normal score says nothing at level 1.
    let t = thought(&b, 40, 1000, &["e4"]);
    assert!(k.moved(&b, &t, None, now).is_empty());
}

#[test]
fn scores_are_whites_view_and_pvs_carry_black_move_numbers() {
    let b = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    let t = thought(&b, 50, 5_000, &["e5", "Nf3", "Nc6"]);
    let mut k = talk(5, 0, 0, Venue::Own);
    assert_eq!(
        texts(k.iteration(&b, &t, Instant::now())),
        vec!["d12-> 0.10 -0.50 1. ... e5 2. Nf3 Nc6"]
    );
}

#[test]
fn noise_keeps_everything_quiet_below_its_node_count() {
    let b = Board::startpos();
    let now = Instant::now();
    for (nodes, said) in [(99_999u64, false), (100_000, true), (5_000_000, true)] {
        let mut k = talk(6, 0, 100_000, Venue::Own);
        let t = thought(&b, MATE - 3, nodes, &["e4"]);
        let mut all = k.moved(&b, &t, None, now);
        all.extend(k.iteration(&b, &t, now + Duration::from_secs(1)));
        all.extend(k.change(&b, Change::FailHigh, &t, now + Duration::from_secs(2)));
        assert_eq!(!all.is_empty(), said, "nodes {nodes}: {all:?}");
        if said {
            assert_eq!(all.len(), 4, "mate, summary, iteration, fail high: {all:?}");
        }
    }
}

#[test]
fn channels_follow_the_levels_and_the_venue() {
    let b = Board::startpos();
    let t = thought(&b, 10, 10_000, &["e4"]);
    let now = Instant::now();
    // Own game: the summary (level 3) to kibitz, the iteration (5) only whispered.
    let mut k = talk(5, 3, 0, Venue::Own);
    assert_eq!(k.moved(&b, &t, None, now)[0].0, Channel::Kibitz);
    assert_eq!(k.iteration(&b, &t, now)[0].0, Channel::Whisper);
    // A live game of others: whispers only, at the higher of the two levels.
    let mut k = talk(0, 5, 0, Venue::Live);
    assert_eq!(k.iteration(&b, &t, now)[0].0, Channel::Whisper);
    assert_eq!(k.channel(1), Some(Channel::Whisper));
    // A relay: kibitz is fine.
    let mut k = talk(0, 5, 0, Venue::Relay);
    assert_eq!(k.iteration(&b, &t, now)[0].0, Channel::Kibitz);
}

#[test]
fn lines_are_cut_at_a_word_and_rate_limited_per_minute() {
    assert_eq!(cut("abc def ghi", 100), "abc def ghi");
    assert_eq!(cut("abcdef ghijkl mnopqr", 15), "abcdef ghijkl");
    assert_eq!(cut("ééééé", 3).len(), 2);
    let b = Board::startpos();
    let t = thought(
        &b,
        10,
        10_000,
        &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"],
    );
    let mut k = Talk::new(
        Levels {
            whisper: 5,
            kibitz: 0,
            noise: 0,
        },
        Venue::Own,
        40,
        3,
    );
    let t0 = Instant::now();
    // Three a minute: one every 20 s at most.
    for (i, secs) in [0u64, 21, 42, 50, 55].into_iter().enumerate() {
        let mut t = t.clone();
        t.score += i as i32;
        let l = k.iteration(&b, &t, t0 + Duration::from_secs(secs));
        if i < 3 {
            assert!(l[0].1.len() <= 40, "{l:?}");
        } else {
            assert!(l.is_empty(), "line {i} is over the limit");
        }
    }
    assert_eq!(k.dropped, 2);
    // A minute after the first lines, and 20 s after the last, room again.
    let mut t9 = t.clone();
    t9.score = 99;
    assert_eq!(k.iteration(&b, &t9, t0 + Duration::from_secs(63)).len(), 1);
    // An iteration that only goes deeper is not repeated.
    let mut deeper = t9.clone();
    deeper.depth += 1;
    assert!(k
        .iteration(&b, &deeper, t0 + Duration::from_secs(90))
        .is_empty());
}

#[test]
fn the_talk_budget_is_spread_over_the_minute() {
    // Twelve a minute, and a search that reports an iteration every 100 ms: the
    // first second does not spend the minute; the lines come about 5 s apart.
    let b = Board::startpos();
    let mut k = Talk::new(
        Levels {
            whisper: 5,
            kibitz: 0,
            noise: 0,
        },
        Venue::Own,
        200,
        12,
    );
    let t0 = Instant::now();
    let mut at = Vec::new();
    for i in 0..600u64 {
        let mut t = thought(&b, i as i32, 10_000, &["e4", "e5", "Nf3"]);
        t.depth = 1 + i as i32;
        let now = t0 + Duration::from_millis(i * 100);
        if !k.iteration(&b, &t, now).is_empty() {
            at.push(i * 100);
        }
    }
    assert!(at.iter().filter(|&&ms| ms < 1_500).count() <= 1, "{at:?}");
    assert!((11..=12).contains(&at.len()), "{at:?}");
    for w in at.windows(2) {
        assert!(w[1] - w[0] >= 5_000, "{at:?}");
    }
}

/// Observing a blitz broadcast at level 3: a summary after every move, moves half a
/// second apart. The lines are spread over the minute (at most one per 5 s with
/// twelve a minute), not spent in the first seconds (seen on lasker: 12 lines in
/// 8 s, then 52 s of silence).
#[test]
fn move_summaries_are_spread_over_the_minute_too() {
    let b = Board::startpos();
    let mut k = Talk::new(
        Levels {
            whisper: 3,
            kibitz: 0,
            noise: 0,
        },
        Venue::Live,
        200,
        12,
    );
    let t0 = Instant::now();
    let mut at = Vec::new();
    for i in 0..120u64 {
        let mut t = thought(&b, i as i32, 10_000, &["e4", "e5", "Nf3"]);
        t.depth = 8;
        let now = t0 + Duration::from_millis(i * 500);
        if !k.moved(&b, &t, None, now).is_empty() {
            at.push(i * 500);
        }
    }
    assert!(at.iter().filter(|&&ms| ms < 8_000).count() <= 2, "{at:?}");
    assert!((11..=12).contains(&at.len()), "{at:?}");
    for w in at.windows(2) {
        assert!(w[1] - w[0] >= 5_000, "{at:?}");
    }
}
