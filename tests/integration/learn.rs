//! Learning: a lost game marks the line and the next game varies; book learning
//! spreads the reduced score over the book choices; position learning stores sharp
//! drops and preloads them; `.lrn` export then import into an empty directory
//! reproduces the values; broken files are set aside, torn records dropped, the lock
//! keeps writers apart; the game controller calls the hooks; and a child process
//! writing books and learning files, SIGKILLed at random moments over a hundred
//! times, never leaves an unreadable file.

use crate::book::TempDir;
use crate::common::Rng;
use crate::session::test_options;
use kibitzer::book::bookfile::BookFile;
use kibitzer::book::{create_book, encode_move, polyglot_key, CreateOptions};
use kibitzer::chess::{Board, Color, Move};
use kibitzer::engine::{EventSink, SearchResult};
use kibitzer::game::book_keeper::{BookConfig, BookKeeper};
use kibitzer::game::{
    BookAnswer, BookHook, BookOverride, Game, GameOver, GameResult, Opponent, Outcome, PlayedMove,
};
use kibitzer::learn::safe::{self, FileLock};
use kibitzer::learn::{self, lrn, Learned, Learner, Overlay, PositionStore};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Two choices at the start (1. e4, 1. d4), one reply each, two choices again, then
/// single moves.
fn choice_book(dir: &Path) {
    let mut text = String::new();
    for line in [
        "e4 e5 Nf3 Nc6 Bb5 a6",
        "e4 e5 Bc4 Nf6 d3 Be7",
        "d4 d5 c4 e6 Nc3 Nf6",
        "d4 d5 Nf3 Nf6 c4 e6",
    ] {
        for _ in 0..4 {
            text.push_str(&format!("[Result \"1-0\"]\n\n{line} 1-0\n\n"));
        }
    }
    create_book(
        std::io::Cursor::new(text.into_bytes()),
        None,
        &dir.join(kibitzer::book::BOOK_FILE),
        &CreateOptions::book(20, 1, 0),
        &mut |_| {},
        &mut |s| panic!("{s:?}"),
    )
    .unwrap();
}

fn keeper(dir: &Path, seed: u64) -> BookKeeper {
    let mut k = BookKeeper::open(BookConfig {
        dir: Some(dir.to_path_buf()),
        ..Default::default()
    });
    k.set_seed(seed);
    let notes = k.take_notes();
    assert!(notes.is_empty(), "{notes:?}");
    k
}

fn result(mv: Move, score: i32, depth: i32, side: Color) -> SearchResult {
    SearchResult {
        best: mv,
        ponder: None,
        score,
        depth,
        nodes: 1,
        time: Duration::ZERO,
        pv: vec![mv],
        root_side: side,
        error: None,
    }
}

fn played(b: &Board, mv: Move, score: Option<i32>) -> PlayedMove {
    PlayedMove {
        mv,
        san: b.san(mv),
        side: b.side_to_move(),
        time: Duration::ZERO,
        score,
    }
}

/// Plays a game with the keeper as White: book moves while it has them (Black
/// answers from the book line), then searches with these scores (Black plays its
/// first legal move), then the result.
fn play_game(
    k: &mut BookKeeper,
    scores: &[i32],
    outcome: Outcome,
    reason: &str,
) -> (Vec<PlayedMove>, Vec<Move>) {
    let mut b = Board::startpos();
    let mut moves = Vec::new();
    let mut book_moves = Vec::new();
    let mut in_book = true;
    let mut s = scores.iter();
    while moves.len() < 60 {
        if b.side_to_move() == Color::White {
            let ans = if in_book {
                k.answer(&b, BookOverride::default())
            } else {
                BookAnswer::Out
            };
            let (mv, score) = match ans {
                BookAnswer::Play(m) => {
                    book_moves.push(m);
                    (m, 0)
                }
                _ => {
                    in_book = false;
                    let Some(&sc) = s.next() else { break };
                    let Some(&m) = b.legal_moves().as_slice().first() else {
                        break;
                    };
                    k.after_search(&b, &result(m, sc, 12, Color::White));
                    (m, sc)
                }
            };
            moves.push(played(&b, mv, Some(score)));
            b.make_move(mv);
        } else {
            // Black: the book's move if any, else the first legal one.
            let cands = k.candidates(&b);
            let Some(m) = cands
                .first()
                .map(|c| c.mv)
                .or_else(|| b.legal_moves().as_slice().first().copied())
            else {
                break;
            };
            moves.push(played(&b, m, None));
            b.make_move(m);
        }
    }
    let start = Board::startpos();
    let res = GameResult {
        outcome,
        reason: reason.into(),
    };
    k.game_over(&GameOver {
        start: &start,
        moves: &moves,
        result: &res,
        engine: Color::White,
        opponent: &Opponent::default(),
    });
    (moves, book_moves)
}

#[test]
fn a_lost_game_marks_the_line_and_the_next_game_varies() {
    let dir = TempDir::new("lost");
    choice_book(dir.path());
    let mut o = test_options();
    o.set("bookpath", &dir.path().to_string_lossy()).unwrap();
    let mut g = Game::new(&o);
    kibitzer::game::book_keeper::install(&mut g, &o);
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    g.set_notify(Arc::new(move || {
        let _ = tx.lock().unwrap().send(());
    }));
    let sink: EventSink = Arc::new(|_| {});
    let engine_plays = |g: &mut Game| {
        g.think(sink.clone());
        let f = loop {
            if let Some(f) = g.take_finished() {
                break f;
            }
            rx.recv_timeout(Duration::from_secs(60)).unwrap();
        };
        assert!(f.from_hook);
        g.engine_move(&f.result);
        f.result.best
    };
    g.set_engine_side(Some(Color::White));
    let first = engine_plays(&mut g);
    let reply = if Board::startpos().san(first) == "e4" {
        "e5"
    } else {
        "d5"
    };
    let m = g.parse_move(reply).unwrap();
    g.make_move(m).unwrap();
    let second = engine_plays(&mut g);
    g.set_result(Outcome::BlackWins, "White resigns");
    let notes = kibitzer::game::book_keeper::keeper(&mut g)
        .unwrap()
        .take_notes()
        .join("\n");
    assert!(notes.contains("will not be played again"), "{notes}");
    // The last choice (the second book move) is marked, the first is not.
    let start = Board::startpos();
    let mut after = start.clone();
    after.make_move(first);
    after.make_move(m);
    let k = kibitzer::game::book_keeper::keeper(&mut g).unwrap();
    let l = k.learner().unwrap();
    assert!(
        l.learned(polyglot_key(&after), encode_move(second))
            .unwrap()
            .never
    );
    assert!(l
        .learned(polyglot_key(&start), encode_move(first))
        .is_none());
    let lrn = std::fs::read_to_string(dir.path().join(Learner::BOOK_LRN)).unwrap();
    assert!(
        lrn.contains("never") && lrn.contains("[Learn \"book\"]"),
        "{lrn}"
    );
    // Next games: the same line never comes back.
    for _ in 0..30 {
        g.new_game();
        g.set_engine_side(Some(Color::White));
        let f = engine_plays(&mut g);
        if f != first {
            continue;
        }
        let m = g.parse_move(reply).unwrap();
        g.make_move(m).unwrap();
        let s = engine_plays(&mut g);
        assert_ne!(s, second, "the lost line was played again");
    }
}

#[test]
fn book_learning_spreads_the_reduced_score_over_the_choices() {
    let dir = TempDir::new("spread");
    choice_book(dir.path());
    let mut k = keeper(dir.path(), 5);
    // Ten searches after the book: the score falls and never recovers.
    let scores = [20, 10, -50, -60, -80, -90, -100, -120, -130, -140, -150];
    let (moves, book_moves) = play_game(&mut k, &scores, Outcome::Draw, "Draw by repetition");
    assert_eq!(book_moves.len(), 3, "{moves:?}");
    let (value, depth) = learn::reduce_scores(&scores.map(|s| (s, 12))).unwrap();
    assert_eq!(value, -140);
    let v = learn::weigh(value, depth, 0);
    assert_eq!(v, -84);
    let l = k.learner().unwrap();
    let start = Board::startpos();
    let mut b = start.clone();
    let mut got = Vec::new();
    for pm in &moves[..5] {
        got.push(l.learned(polyglot_key(&b), encode_move(pm.mv)));
        b.make_move(pm.mv);
    }
    // Two choices: half the value at the first, all of it at the second, each then
    // strengthened by the draw; the single book move learns nothing.
    assert_eq!(
        got,
        vec![
            Some(Learned {
                value: v / 2 + learn::DRAW_BONUS,
                count: 2,
                never: false
            }),
            None,
            Some(Learned {
                value: v + learn::DRAW_BONUS,
                count: 2,
                never: false
            }),
            None,
            None,
        ]
    );
    // The drop from 10 to -50 was learned as a position, and is preloaded.
    assert_eq!(l.positions().len(), 1);
    assert_eq!(l.positions().entries()[0].score, -50);
    assert_eq!(k.preload(&start).len(), 1);
    let text = std::fs::read_to_string(dir.path().join(Learner::POSITION_LRN)).unwrap();
    assert!(
        text.contains("score -50 depth 12") && text.contains("[FEN "),
        "{text}"
    );
    // Learned values steer the choice: -84 at the second choice demotes it.
    let mut b = start.clone();
    for pm in &moves[..2] {
        b.make_move(pm.mv);
    }
    let sel = k.selection(&b, BookOverride::default()).unwrap();
    let c = sel.candidates.iter().find(|c| c.mv == moves[2].mv).unwrap();
    assert_eq!(c.learned, v + learn::DRAW_BONUS);
}

fn overlay_map(l: &Learner) -> Vec<((u64, u16), Learned)> {
    let mut v: Vec<_> = l.overlay().entries().collect();
    v.sort_by_key(|e| e.0);
    v
}

#[test]
fn lrn_export_then_import_into_an_empty_directory_reproduces_the_values() {
    let dir = TempDir::new("export-lrn");
    choice_book(dir.path());
    let mut k = keeper(dir.path(), 9);
    let games: [(&[i32], Outcome, &str); 5] = [
        (&[30, 40, 50, 60], Outcome::WhiteWins, "Black resigns"),
        (&[0, -100, -90, -200], Outcome::BlackWins, "Black mates"),
        (&[10, 10, 12, 15], Outcome::Draw, "Draw by agreement"),
        (
            &[90, 20, -40, -200, -300],
            Outcome::BlackWins,
            "White forfeits on time",
        ),
        (&[5, 80, 70, 75, 77, 71], Outcome::WhiteWins, "White mates"),
    ];
    for (scores, outcome, reason) in games {
        play_game(&mut k, scores, outcome, reason);
        k.new_game();
    }
    let a = k.learner().unwrap();
    assert!(a.overlay().len() >= 2 && !a.positions().is_empty());
    let empty = TempDir::new("import-lrn");
    let mut b = BookKeeper::open(BookConfig {
        dir: Some(empty.path().to_path_buf()),
        ..Default::default()
    });
    let r = b
        .import(&dir.path().join(Learner::BOOK_LRN), false)
        .unwrap();
    assert_eq!(r.book_records, 5, "{r:?}");
    assert!(r.problems.is_empty(), "{r:?}");
    let r = b
        .import(&dir.path().join(Learner::POSITION_LRN), false)
        .unwrap();
    assert!(r.position_records > 0 && r.problems.is_empty(), "{r:?}");
    let bl = b.learner().unwrap();
    assert_eq!(overlay_map(a), overlay_map(bl));
    assert_eq!(a.positions().entries(), bl.positions().entries());
    // Importing again with `clear` gives the same values, not doubled ones.
    b.import(&dir.path().join(Learner::BOOK_LRN), true).unwrap();
    assert_eq!(overlay_map(a), overlay_map(b.learner().unwrap()));
    // And a fresh reader of the files sees the same as the writer.
    let reread = Learner::open(empty.path());
    assert_eq!(overlay_map(&reread), overlay_map(b.learner().unwrap()));
}

#[test]
fn broken_files_are_set_aside_and_torn_records_dropped() {
    let dir = TempDir::new("broken");
    choice_book(dir.path());
    let mut k = keeper(dir.path(), 2);
    play_game(&mut k, &[10, -60, -70], Outcome::BlackWins, "Black mates");
    play_game(&mut k, &[10, 20, 30], Outcome::WhiteWins, "White mates");
    drop(k);
    let overlay = dir.path().join(Learner::OVERLAY);
    let good = std::fs::read(&overlay).unwrap();
    let records = (good.len() - safe::LOG_HEADER) / 24;
    assert!(records >= 2);
    // A torn last record (a crash in mid-append) is ignored, then cut off.
    let mut torn = good.clone();
    torn.extend_from_slice(&[1, 2, 3, 4, 5, 6, 7]);
    std::fs::write(&overlay, &torn).unwrap();
    let (o, t) = Overlay::load(&overlay).unwrap();
    assert_eq!(t, 7);
    let before = o.len();
    let mut l = Learner::open(dir.path());
    assert!(l.take_notes().join(" ").contains("incomplete last record"));
    l.commit(&learn::Lesson {
        deltas: vec![learn::Delta::Never { key: 1, code: 2 }],
        ..Default::default()
    })
    .unwrap();
    assert_eq!(
        std::fs::metadata(&overlay).unwrap().len() as usize,
        good.len() + 24
    );
    assert_eq!(Overlay::load(&overlay).unwrap().0.len(), before + 1);
    // A damaged record in the middle: the file is set aside, learning starts afresh.
    let mut bad = std::fs::read(&overlay).unwrap();
    bad[safe::LOG_HEADER + 5] ^= 0x40;
    std::fs::write(&overlay, &bad).unwrap();
    let mut l = Learner::open(dir.path());
    let notes = l.take_notes().join("\n");
    assert!(
        notes.contains("checksum") && notes.contains("set aside"),
        "{notes}"
    );
    assert!(l.overlay().is_empty() && !overlay.exists());
    // position.bin with garbage.
    let pos = dir.path().join(Learner::POSITIONS);
    std::fs::write(&pos, b"KIBPOS\x1a\0 certainly not a position file").unwrap();
    let mut l = Learner::open(dir.path());
    assert!(l.take_notes().join("\n").contains("set aside"));
    assert!(!pos.exists());
    let aside = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains(".broken-")
        })
        .count();
    assert_eq!(aside, 2);
    // A torn record at the end of book.lrn is dropped before the next append.
    let lrn_path = dir.path().join(Learner::BOOK_LRN);
    let mut text = std::fs::read(&lrn_path).unwrap();
    let clean = text.len();
    text.extend_from_slice(b"[Event \"cut\"]\n{-5 3 0} 1. e4 {lea");
    std::fs::write(&lrn_path, &text).unwrap();
    let mut k = keeper_allowing_notes(dir.path());
    play_game(&mut k, &[0, -100, -200], Outcome::BlackWins, "Black mates");
    let notes = k.take_notes().join("\n");
    assert!(
        notes.contains("dropped an incomplete last record"),
        "{notes}"
    );
    let text = std::fs::read_to_string(&lrn_path).unwrap();
    assert!(text.len() > clean && !text.contains("\"cut\""));
    let (recs, problems) = lrn::parse(&text);
    assert!(problems.is_empty() && recs.len() >= 3, "{problems:?}");
}

fn keeper_allowing_notes(dir: &Path) -> BookKeeper {
    let mut k = BookKeeper::open(BookConfig {
        dir: Some(dir.to_path_buf()),
        ..Default::default()
    });
    k.set_seed(4);
    k
}

#[test]
fn the_lock_keeps_writers_apart() {
    let dir = TempDir::new("lock");
    let path = dir.path().join(Learner::LOCK);
    let first = FileLock::acquire(&path, Duration::ZERO).unwrap();
    let e = FileLock::acquire(&path, Duration::from_millis(30))
        .err()
        .expect("locked");
    assert!(e.to_string().contains("locked"), "{e}");
    // A writer waits for the holder, then writes.
    let holder = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        drop(first);
    });
    let t = Instant::now();
    let mut l = Learner::open(dir.path());
    l.commit(&learn::Lesson {
        deltas: vec![learn::Delta::Learn {
            key: 9,
            code: 9,
            value: 50,
        }],
        ..Default::default()
    })
    .unwrap();
    assert!(t.elapsed() >= Duration::from_millis(150));
    holder.join().unwrap();
    assert_eq!(Learner::open(dir.path()).learned(9, 9).unwrap().value, 50);
}

/// A book hook that only counts what the game controller tells it.
#[derive(Default)]
struct Counting {
    calls: Arc<Mutex<Vec<String>>>,
    entries: Vec<(u64, i32, i32)>,
}

impl BookHook for Counting {
    fn probe(&mut self, _: &Board) -> Option<Move> {
        None
    }
    fn preload(&mut self, b: &Board) -> &[(u64, i32, i32)] {
        self.calls.lock().unwrap().push("preload".into());
        self.entries = vec![(b.key() ^ 1, 7, 3)];
        &self.entries
    }
    fn after_search(&mut self, _: &Board, r: &SearchResult) {
        self.calls
            .lock()
            .unwrap()
            .push(format!("after_search {}", r.depth));
    }
    fn game_over(&mut self, g: &GameOver<'_>) {
        self.calls.lock().unwrap().push(format!(
            "game_over {} {:?} {}",
            g.result.outcome.pgn(),
            g.engine,
            g.moves.len()
        ));
    }
    fn new_game(&mut self) {
        self.calls.lock().unwrap().push("new_game".into());
    }
}

#[test]
fn the_game_controller_calls_the_learning_hooks() {
    let mut o = test_options();
    o.set("sd", "2").unwrap();
    let mut g = Game::new(&o);
    let hook = Counting::default();
    let calls = Arc::clone(&hook.calls);
    g.set_book(Some(Box::new(hook)));
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    g.set_notify(Arc::new(move || {
        let _ = tx.lock().unwrap().send(());
    }));
    // The engine plays Black's first move (one search), then resigns.
    let mv = g.parse_move("f3").unwrap();
    g.make_move(mv).unwrap();
    g.set_engine_side(Some(Color::Black));
    g.think(Arc::new(|_| {}));
    let f = loop {
        if let Some(f) = g.take_finished() {
            break f;
        }
        rx.recv_timeout(Duration::from_secs(60)).unwrap();
    };
    g.engine_move(&f.result);
    g.set_result(Outcome::WhiteWins, "Black resigns");
    g.set_result(Outcome::WhiteWins, "Black resigns");
    g.new_game();
    let c = calls.lock().unwrap().clone();
    assert_eq!(
        c,
        vec![
            "preload".to_string(),
            "after_search 2".into(),
            "game_over 1-0 Black 2".into(),
            "new_game".into()
        ]
    );
}

fn check_files(dir: &Path) -> usize {
    let mut checked = 0;
    for name in [kibitzer::book::BOOK_FILE, kibitzer::book::STEERING_FILE] {
        let p = dir.join(name);
        if p.exists() {
            BookFile::open(&p).unwrap_or_else(|e| panic!("{e}"));
            checked += 1;
        }
    }
    let p = dir.join(Learner::OVERLAY);
    if p.exists() {
        Overlay::load(&p).unwrap_or_else(|e| panic!("{e}"));
        checked += 1;
    }
    let p = dir.join(Learner::POSITIONS);
    if p.exists() {
        PositionStore::load(&p).unwrap_or_else(|e| panic!("{e}"));
        checked += 1;
    }
    for name in [Learner::BOOK_LRN, Learner::POSITION_LRN] {
        let p = dir.join(name);
        if p.exists() {
            let bytes = std::fs::read(&p).unwrap();
            let good = safe::clean_text_len(&bytes);
            let (_, problems) = lrn::parse(&String::from_utf8_lossy(&bytes[..good]));
            assert!(problems.is_empty(), "{}: {problems:?}", p.display());
            checked += 1;
        }
    }
    checked
}

#[test]
fn sigkill_at_random_moments_never_leaves_an_unreadable_file() {
    let exe = env!("CARGO_BIN_EXE_kibitzer");
    let dir = TempDir::new("sigkill");
    let mut rng = Rng::new(2024);
    let start = Instant::now();
    let mut kills = 0;
    let mut round = 0u64;
    while kills < 120 {
        round += 1;
        // Now and then two writers at once, to exercise the lock.
        let n = if round % 8 == 0 { 2 } else { 1 };
        let mut children: Vec<_> = (0..n)
            .map(|i| {
                std::process::Command::new(exe)
                    .args(["book", "torture"])
                    .arg(dir.path())
                    .arg((round * 2 + i).to_string())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                    .unwrap()
            })
            .collect();
        std::thread::sleep(Duration::from_millis(3 + rng.below(80) as u64));
        for c in &mut children {
            let _ = c.kill();
            c.wait().unwrap();
            kills += 1;
        }
        check_files(dir.path());
    }
    let checked = check_files(dir.path());
    assert!(checked >= 5, "only {checked} files were ever written");
    // Opening the directory clears what the killed writers left half-written.
    let mut k = BookKeeper::open(BookConfig {
        dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    });
    let notes = k.take_notes().join("\n");
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(left.is_empty(), "{left:?} ({notes})");
    assert!(k.main_book().is_some() && k.learner().is_some());
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "{:?}",
        start.elapsed()
    );
}
