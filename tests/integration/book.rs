//! The opening book: Polyglot keys against python-chess, books built from the master
//! games (counts checked against an independent count, filters, the sorted-run merge)
//! and from every shared PGN file, the steering book's `!`, `?` and `{play nn%}`,
//! selection statistics against the configured weights (chi-square, fixed seed),
//! width and randomness overrides through the policy hook, Polyglot export read back
//! as python-chess reads it, broken books set aside, and the console commands.

use crate::common::data;
use crate::session::{test_options, Driver};
use kibitzer::book::bookfile::{flags, BookFile, MoveStats};
use kibitzer::book::polyglot::{self, PolyglotBook};
use kibitzer::book::{
    create_book, encode_move, polyglot_key, CreateOptions, SelectParams, Weights,
};
use kibitzer::chess::pgn::PgnReader;
use kibitzer::chess::{Board, Move};
use kibitzer::game::book_keeper::{BookConfig, BookKeeper};
use kibitzer::game::{BookAnswer, BookHook, BookOverride, Game, Opponent, Policy};
use kibitzer::protocol::Protocol;
use std::collections::HashMap;
use std::io::{BufReader, Cursor};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = std::env::temp_dir().join(format!(
            "kibitzer-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The first `n` games of the master games as PGN text.
fn first_masters(n: usize) -> String {
    let f = std::fs::File::open(data("pgn/masters.pgn")).unwrap();
    PgnReader::new(BufReader::new(f))
        .take(n)
        .map(|g| g.unwrap().to_pgn())
        .collect()
}

fn build(text: &str, out: &Path, opts: &CreateOptions) -> kibitzer::book::CreateReport {
    create_book(
        Cursor::new(text.as_bytes().to_vec()),
        Some(text.len() as u64),
        out,
        opts,
        &mut |_| {},
        &mut |s| panic!("skipped {s:?}"),
    )
    .unwrap()
}

fn play_line(line: &str) -> Board {
    let mut b = Board::startpos();
    for w in line.split_whitespace() {
        let m = b.parse_move(w).unwrap_or_else(|e| panic!("{w}: {e}"));
        b.make_move(m);
    }
    b
}

/// Chi-square statistic of observed counts against expected probabilities.
fn chi_square(observed: &[u64], probs: &[f64]) -> f64 {
    let n: u64 = observed.iter().sum();
    observed
        .iter()
        .zip(probs)
        .map(|(&o, &p)| {
            let e = p * n as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum()
}

/// Critical chi-square values at p = 0.001 by degrees of freedom 1..=6.
const CHI_999: [f64; 6] = [10.83, 13.82, 16.27, 18.47, 20.52, 22.46];

#[test]
fn polyglot_keys_match_python_chess() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/polyglot_keys.txt"),
    )
    .unwrap();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split('|').collect();
        let mut b = Board::from_fen(f[0]).unwrap();
        for u in f[1].split_whitespace() {
            let m = b.parse_uci(u).unwrap_or_else(|e| panic!("{u}: {e}"));
            b.make_move(m);
        }
        let want = u64::from_str_radix(f[2], 16).unwrap();
        assert_eq!(polyglot_key(&b), want, "{line}");
        n += 1;
    }
    assert!(n >= 40);
}

#[test]
fn book_from_master_games_counts_every_first_move() {
    let text = first_masters(3000);
    let dir = TempDir::new("masters");
    let path = dir.path().join("book.bin");
    let rep = build(&text, &path, &CreateOptions::book(24, 1, 0));
    assert_eq!(rep.games_used, 3000);
    let book = BookFile::open(&path).unwrap();
    assert_eq!(book.header().games, 3000);
    assert_eq!(book.moves_stored() as u32, rep.header.moves);
    // An independent count of the first moves, with results from the mover's side.
    let mut count: HashMap<Move, (u32, u32, u32)> = HashMap::new();
    for g in kibitzer::chess::pgn::read_all(&text) {
        let g = g.unwrap();
        let e = count.entry(g.moves[0].mv).or_default();
        match g.result.as_str() {
            "1-0" => e.0 += 1,
            "1/2-1/2" => e.1 += 1,
            _ => e.2 += 1,
        }
    }
    let start = Board::startpos();
    let stored: Vec<MoveStats> = book.lookup(polyglot_key(&start)).collect();
    assert_eq!(stored.len(), count.len());
    for (m, (w, d, l)) in &count {
        let s = stored
            .iter()
            .find(|s| s.code == encode_move(*m))
            .unwrap_or_else(|| panic!("{m} missing"));
        assert_eq!(
            (s.wins, s.draws, s.losses, s.games),
            (*w, *d, *l, w + d + l),
            "{m}"
        );
    }
    // Black's replies are counted from Black's side.
    let after = play_line("e4");
    let c5 = book
        .lookup(polyglot_key(&after))
        .find(|s| s.code == encode_move(after.parse_move("c5").unwrap()))
        .unwrap();
    assert!(c5.games > 100 && c5.wins + c5.draws + c5.losses == c5.games);

    // The filters: played in at least 5 games, winning at least as often as losing.
    let fpath = dir.path().join("filtered.bin");
    let frep = build(&text, &fpath, &CreateOptions::book(24, 5, 100));
    assert!(frep.dropped_min_played > 0 && frep.dropped_wpct > 0);
    let filtered = BookFile::open(&fpath).unwrap();
    for (_, moves) in filtered.iter() {
        for m in moves {
            assert!(m.games >= 5 && m.wins >= m.losses, "{m:?}");
        }
    }

    // Sorted runs on disk merge to the same book as counting in memory.
    let mpath = dir.path().join("merged.bin");
    let mut small = CreateOptions::book(24, 1, 0);
    small.memory = 256 << 10;
    let mrep = build(&text, &mpath, &small);
    assert!(mrep.runs > 1, "{} runs", mrep.runs);
    let merged = BookFile::open(&mpath).unwrap();
    assert!(book.iter().eq(merged.iter()));
    // No temporary files are left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
}

#[test]
fn books_from_every_shared_pgn_file_and_skips_are_reported() {
    let dir = TempDir::new("shared-pgn");
    let mut built = 0;
    for e in std::fs::read_dir(data("pgn")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name == "masters.pgn" {
            continue;
        }
        let mut skipped = Vec::new();
        let out = dir.path().join(format!("{name}.bin"));
        let r = kibitzer::book::create_book_from_file(
            &p,
            &out,
            &CreateOptions::book(40, 1, 0),
            &mut |_| {},
            &mut |s| skipped.push(s.clone()),
        );
        for s in &skipped {
            assert!(s.game >= 1 && !s.reason.is_empty(), "{name}: {s:?}");
        }
        match r {
            Ok(rep) => {
                built += 1;
                // Games cut after maxply are reported but counted as used.
                let left_out = skipped.iter().filter(|s| s.kept_plies.is_none()).count();
                assert_eq!(rep.games_skipped as usize, left_out, "{name}");
                let b = BookFile::open(&out).unwrap();
                assert!(b.positions() > 0, "{name}");
            }
            Err(e) => assert!(!skipped.is_empty(), "{name}: {e} with nothing skipped"),
        }
        if name.starts_with("antichess") || name.contains("-zh-") {
            assert!(
                skipped.iter().any(|s| s.reason.contains("variant")),
                "{name}: {skipped:?}"
            );
        }
    }
    assert!(built >= 6, "{built} books");
    // A cut-off file: the last game is incomplete and is either skipped or counted
    // with what it has; nothing panics.
    let text = first_masters(50);
    let cut = &text.as_bytes()[..text.len() - 200];
    let mut skipped = 0;
    let r = create_book(
        Cursor::new(cut.to_vec()),
        None,
        &dir.path().join("cut.bin"),
        &CreateOptions::book(20, 1, 0),
        &mut |_| {},
        &mut |_| skipped += 1,
    )
    .unwrap();
    assert_eq!(r.games_used + skipped, 50);
}

fn keeper_for(dir: &Path, params: SelectParams, seed: u64) -> BookKeeper {
    let mut k = BookKeeper::open(BookConfig {
        dir: Some(dir.to_path_buf()),
        params,
        ..Default::default()
    });
    k.set_seed(seed);
    k
}

fn steering(dir: &Path, file: &str) {
    let r = kibitzer::book::create_book_from_file(
        &data(file),
        &dir.join(kibitzer::book::STEERING_FILE),
        &CreateOptions::steering(30),
        &mut |_| {},
        &mut |s| panic!("{s:?}"),
    )
    .unwrap();
    assert!(r.header.moves > 10);
}

fn draws(k: &mut BookKeeper, b: &Board, n: usize, over: BookOverride) -> HashMap<String, u64> {
    let mut seen = HashMap::new();
    for _ in 0..n {
        match k.answer(b, over) {
            BookAnswer::Play(m) => *seen.entry(b.san(m)).or_default() += 1,
            other => panic!("{other:?}"),
        }
    }
    seen
}

#[test]
fn steering_book_play_percentages_flags_and_question_marks() {
    let dir = TempDir::new("steering");
    steering(dir.path(), "crafty/start.pgn");
    let mut k = keeper_for(dir.path(), SelectParams::default(), 7);
    // {play 40%} e4, {play 30%} d4 and f4.
    let start = Board::startpos();
    let sel = k.selection(&start, BookOverride::default()).unwrap();
    assert!(sel.by_play);
    let n = 20_000;
    let seen = draws(&mut k, &start, n, BookOverride::default());
    let obs = [seen["e4"], seen["d4"], seen["f4"]];
    assert_eq!(obs.iter().sum::<u64>(), n as u64, "{seen:?}");
    let chi = chi_square(&obs, &[0.4, 0.3, 0.3]);
    assert!(chi < CHI_999[1], "chi-square {chi}: {seen:?}");
    // Width does not cut {play nn%} moves.
    let seen = draws(
        &mut k,
        &start,
        2000,
        BookOverride {
            width: Some(1),
            random: None,
        },
    );
    assert_eq!(seen.len(), 3, "{seen:?}");
    // 1. d4 d5: only c4 has a play percentage; Qd3? is removed.
    let b = play_line("d4 d5");
    let sel = k.selection(&b, BookOverride::default()).unwrap();
    let kept: Vec<&str> = sel.kept().iter().map(|c| c.san.as_str()).collect();
    assert_eq!(kept, ["c4"]);
    let qd3 = sel.candidates.iter().find(|c| c.san == "Qd3").unwrap();
    assert_eq!(qd3.flags & flags::MISTAKE, flags::MISTAKE);
    assert!(qd3.dropped.unwrap().starts_with('?'));
    // A lone `?` move: no book move at all.
    let b = play_line("e4 Nf6 e5 Nd5 d4 d6 Nf3 dxe5 Nxe5 Nd7");
    let sel = k.selection(&b, BookOverride::default()).unwrap();
    assert_eq!(sel.kept, 0);
    assert_eq!(k.answer(&b, BookOverride::default()), BookAnswer::Out);
    let shown = k.show(&b, BookOverride::default()).join("\n");
    assert!(
        shown.contains("Nxf7") && shown.contains("dropped: ?"),
        "{shown}"
    );
}

#[test]
fn exclamation_moves_are_the_only_ones_played() {
    let dir = TempDir::new("bang");
    let text = "[Site \"\"]\ne4 e5 Nf3! Nc6\n\n[Site \"\"]\ne4 e5 Bc4 Nf6\n\n[Site \"\"]\ne4 e5 Nc3\n\n[Site \"\"]\ne4 e5 d4!! exd4\n\n[Site \"\"]\nd4 d5 c4 e6\n\n[Site \"\"]\nd4 d5 Nf3!\n\n";
    let steer = dir.path().join(kibitzer::book::STEERING_FILE);
    build(text, &steer, &CreateOptions::steering(10));
    let mut k = keeper_for(dir.path(), SelectParams::default(), 3);
    // `!!` beats `!`.
    let seen = draws(&mut k, &play_line("e4 e5"), 200, BookOverride::default());
    assert_eq!(seen.keys().collect::<Vec<_>>(), ["d4"]);
    let seen = draws(&mut k, &play_line("d4 d5"), 200, BookOverride::default());
    assert_eq!(seen.keys().collect::<Vec<_>>(), ["Nf3"]);
    // Without flags every move of the steering book is a candidate.
    let seen = draws(&mut k, &play_line("e4"), 200, BookOverride::default());
    assert_eq!(seen.keys().collect::<Vec<_>>(), ["e5"]);
}

/// A book whose start position has 1. e4 (60 games), 1. d4 (30), 1. c4 (10),
/// 1. b3 (5 games, all lost) and 1. g4 (2 games, 1 win 1 loss).
fn designed_book(dir: &Path) {
    let mut text = String::new();
    let mut add = |mv: &str, res: &str, n: usize| {
        for _ in 0..n {
            text.push_str(&format!("[Result \"{res}\"]\n\n1. {mv} {res}\n\n"));
        }
    };
    add("e4", "1-0", 30);
    add("e4", "1/2-1/2", 20);
    add("e4", "0-1", 10);
    add("d4", "1-0", 10);
    add("d4", "1/2-1/2", 15);
    add("d4", "0-1", 5);
    add("c4", "1-0", 2);
    add("c4", "1/2-1/2", 8);
    add("b3", "0-1", 5);
    add("g4", "1-0", 1);
    add("g4", "0-1", 1);
    build(
        &text,
        &dir.join(kibitzer::book::BOOK_FILE),
        &CreateOptions::book(4, 1, 0),
    );
}

#[test]
fn selection_statistics_match_the_weights() {
    let dir = TempDir::new("chi");
    designed_book(dir.path());
    let start = Board::startpos();
    let freq_only = SelectParams {
        width: 5,
        random: 1,
        weights: Weights {
            freq: 1.0,
            ratio: 0.0,
            eval: 0.0,
            learn: 0.0,
        },
    };
    let mut k = keeper_for(dir.path(), freq_only, 11);
    let sel = k.selection(&start, BookOverride::default()).unwrap();
    let b3 = sel.candidates.iter().find(|c| c.san == "b3").unwrap();
    assert_eq!(b3.dropped, Some("never won a game"));
    // Values 1 + 1000 x games / 60.
    let v = |g: f64| 1.0 + 1000.0 * g / 60.0;
    let total = v(60.0) + v(30.0) + v(10.0) + v(2.0);
    let probs = [
        v(60.0) / total,
        v(30.0) / total,
        v(10.0) / total,
        v(2.0) / total,
    ];
    for (san, p) in ["e4", "d4", "c4", "g4"].iter().zip(probs) {
        let c = sel.candidates.iter().find(|c| c.san == *san).unwrap();
        assert!((c.prob - p).abs() < 1e-9, "{san}: {} vs {p}", c.prob);
    }
    let n = 30_000;
    let seen = draws(&mut k, &start, n, BookOverride::default());
    let obs: Vec<u64> = ["e4", "d4", "c4", "g4"]
        .iter()
        .map(|s| seen.get(*s).copied().unwrap_or(0))
        .collect();
    assert_eq!(obs.iter().sum::<u64>(), n as u64, "{seen:?}");
    let chi = chi_square(&obs, &probs);
    assert!(chi < CHI_999[2], "chi-square {chi}: {seen:?}");

    // The ratio weight alone: 1 + 1000 x score fraction.
    let mut k = keeper_for(
        dir.path(),
        SelectParams {
            weights: Weights {
                freq: 0.0,
                ratio: 1.0,
                eval: 0.0,
                learn: 0.0,
            },
            ..freq_only
        },
        12,
    );
    let s = |w: f64, d: f64, g: f64| 1.0 + 1000.0 * (w + d / 2.0) / g;
    let vals = [
        s(30.0, 20.0, 60.0),
        s(10.0, 15.0, 30.0),
        s(2.0, 8.0, 10.0),
        s(1.0, 0.0, 2.0),
    ];
    let t: f64 = vals.iter().sum();
    let probs: Vec<f64> = vals.iter().map(|v| v / t).collect();
    let seen = draws(&mut k, &start, n, BookOverride::default());
    let obs: Vec<u64> = ["e4", "d4", "c4", "g4"]
        .iter()
        .map(|s| seen.get(*s).copied().unwrap_or(0))
        .collect();
    let chi = chi_square(&obs, &probs);
    assert!(chi < CHI_999[2], "ratio: chi-square {chi}: {seen:?}");

    // book random 2: proportional to games; width 2 keeps e4 and d4.
    let over = BookOverride {
        width: Some(2),
        random: Some(2),
    };
    let seen = draws(&mut k, &start, n, over);
    let obs = [seen["e4"], seen["d4"]];
    assert_eq!(seen.len(), 2, "{seen:?}");
    let chi = chi_square(&obs, &[60.0 / 90.0, 30.0 / 90.0]);
    assert!(chi < CHI_999[0], "random 2: chi-square {chi}: {seen:?}");
    // book random 3: ((wins + 1) / (losses + 1))^2.
    let over = BookOverride {
        width: Some(5),
        random: Some(3),
    };
    let r = |w: f64, l: f64| ((w + 1.0) / (l + 1.0)).powi(2);
    let vals = [r(30.0, 10.0), r(10.0, 5.0), r(2.0, 0.0), r(1.0, 1.0)];
    let t: f64 = vals.iter().sum();
    let probs: Vec<f64> = vals.iter().map(|v| v / t).collect();
    let seen = draws(&mut k, &start, n, over);
    let obs: Vec<u64> = ["e4", "d4", "c4", "g4"]
        .iter()
        .map(|s| seen.get(*s).copied().unwrap_or(0))
        .collect();
    let chi = chi_square(&obs, &probs);
    assert!(chi < CHI_999[2], "random 3: chi-square {chi}: {seen:?}");
    // book random 0: the kept moves (ranked here by the ratio weight) are searched
    // instead.
    match k.answer(
        &start,
        BookOverride {
            width: Some(3),
            random: Some(0),
        },
    ) {
        BookAnswer::Search(moves) => {
            let sans: Vec<String> = moves.iter().map(|&m| start.san(m)).collect();
            assert_eq!(sans, ["e4", "c4", "d4"]);
        }
        other => panic!("{other:?}"),
    }
}

/// A policy that narrows the book against computers (the bot's per-class policy).
struct ClassPolicy;

impl Policy for ClassPolicy {
    fn resign(&mut self, _: &[i32]) -> bool {
        false
    }
    fn accept_draw(&mut self, _: i32) -> bool {
        false
    }
    fn book_override(&mut self, o: &Opponent) -> BookOverride {
        if o.computer {
            BookOverride {
                width: Some(1),
                random: Some(2),
            }
        } else if o.name == "searcher" {
            BookOverride {
                width: Some(2),
                random: Some(0),
            }
        } else {
            BookOverride::default()
        }
    }
}

#[test]
fn width_and_random_obey_the_class_overrides() {
    let dir = TempDir::new("class");
    designed_book(dir.path());
    let mut o = test_options();
    o.set("bookpath", &dir.path().to_string_lossy()).unwrap();
    o.set("sd", "3").unwrap();
    let mut g = Game::new(&o);
    let notes = kibitzer::game::book_keeper::install(&mut g, &o);
    assert!(notes.is_empty(), "{notes:?}");
    g.set_policy(Box::new(ClassPolicy));
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    g.set_notify(Arc::new(move || {
        let _ = tx.lock().unwrap().send(());
    }));
    let sink: kibitzer::engine::EventSink = Arc::new(|_| {});
    let first_moves = |g: &mut Game, n: usize| {
        let mut seen: HashMap<String, u64> = HashMap::new();
        for _ in 0..n {
            g.think(sink.clone());
            let f = loop {
                if let Some(f) = g.take_finished() {
                    break f;
                }
                rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
            };
            *seen.entry(g.board().san(f.result.best)).or_default() += 1;
        }
        seen
    };
    g.opponent_mut().computer = true;
    let seen = first_moves(&mut g, 100);
    assert_eq!(seen.keys().collect::<Vec<_>>(), ["e4"], "{seen:?}");
    g.opponent_mut().computer = false;
    let seen = first_moves(&mut g, 300);
    assert!(seen.len() >= 3, "{seen:?}");
    // random 0 through the policy: the game searches e4 and d4 only.
    g.opponent_mut().name = "searcher".into();
    let seen = first_moves(&mut g, 3);
    assert!(seen.keys().all(|m| m == "e4" || m == "d4"), "{seen:?}");
}

#[test]
fn polyglot_export_reads_back_as_python_chess_reads_it() {
    let expected = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/polyglot_export.txt"),
    )
    .unwrap();
    let dir = TempDir::new("export");
    let book_path = dir.path().join("book.bin");
    build(
        &first_masters(300),
        &book_path,
        &CreateOptions::book(12, 1, 0),
    );
    let book = BookFile::open(&book_path).unwrap();
    let poly_path = dir.path().join("poly.bin");
    let n = polyglot::export(&book, &poly_path).unwrap();
    assert!(n > 0);
    let pg = PolyglotBook::open(&poly_path).unwrap();
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.is_empty()) {
        let (moves, want) = line.split_once('|').unwrap();
        let mut b = Board::startpos();
        for u in moves.split_whitespace() {
            let m = b.parse_uci(u).unwrap();
            b.make_move(m);
        }
        let got: Vec<String> = pg
            .lookup(polyglot_key(&b))
            .map(|e| {
                let m = polyglot::decode(&b, e.mv).expect("a legal move");
                format!("{}:{}", m.to_uci(), e.weight)
            })
            .collect();
        assert_eq!(got.join(" "), want, "after '{moves}'");
        checked += 1;
    }
    assert!(checked > 20);
    // Polyglot books are a source like ours: the same moves with weights as games.
    let mut k = BookKeeper::open(BookConfig {
        polyglot: Some(poly_path.clone()),
        ..Default::default()
    });
    let start = Board::startpos();
    let c = k.candidates(&start);
    let e4 = c.iter().find(|c| c.san == "e4").unwrap();
    let s = book
        .lookup(polyglot_key(&start))
        .find(|s| s.code == e4.stats.code)
        .unwrap();
    assert_eq!(e4.stats.games, 2 * s.wins + s.draws);
}

#[test]
fn debian_polyglot_book_if_installed() {
    // Development check: Debian's gnuchess-book, read as python-chess reads it
    // (`chess.polyglot.open_reader(...).find_all(chess.Board())`).
    let p = Path::new("/usr/share/games/gnuchess/book.bin");
    if !p.exists() {
        eprintln!("skipped: {} is not installed", p.display());
        return;
    }
    let pg = PolyglotBook::open(p).unwrap();
    let start = Board::startpos();
    let got: Vec<String> = pg
        .lookup(polyglot_key(&start))
        .map(|e| {
            format!(
                "{}:{}",
                polyglot::decode(&start, e.mv).unwrap().to_uci(),
                e.weight
            )
        })
        .collect();
    assert_eq!(
        got[..4],
        ["e2e4:12135", "d2d4:11257", "g1f3:3745", "c2c4:3294"],
        "{got:?}"
    );
}

#[test]
fn a_broken_book_is_reported_and_set_aside() {
    let dir = TempDir::new("broken-book");
    designed_book(dir.path());
    let path = dir.path().join(kibitzer::book::BOOK_FILE);
    let mut bytes = std::fs::read(&path).unwrap();
    let len = bytes.len();
    bytes.truncate(len - 7);
    std::fs::write(&path, &bytes).unwrap();
    let mut k = keeper_for(dir.path(), SelectParams::default(), 1);
    let notes = k.take_notes().join("\n");
    assert!(
        notes.contains("cut short") && notes.contains("set aside"),
        "{notes}"
    );
    assert!(!path.exists());
    assert!(std::fs::read_dir(dir.path()).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .contains(".broken-")));
    assert!(k.main_book().is_none());
}

#[test]
fn console_book_commands() {
    let dir = TempDir::new("console");
    let mut d = Driver::start(Protocol::Console);
    d.send(&format!("bookpath {}", dir.path().display()));
    d.expect_contains("playing from move 1");
    d.send(&format!(
        "books create {} 30",
        data("crafty/start.pgn").display()
    ));
    d.expect_contains("books.bin:");
    d.send("show book");
    d.expect_contains("book moves: ");
    let l = d.expect_contains("  e4 ");
    assert!(l.contains("40%"), "{l}");
    d.send("bookw freq 0.5");
    d.expect_contains("bookw.freq 50");
    d.send("bookw freq");
    d.expect_contains("bookw freq 0.50");
    d.send("book width 3");
    d.expect_contains("book.width 3");
    d.send("book random 4");
    d.expect_contains("book.random 4");
    d.send("sd 2");
    d.send("go");
    d.expect_contains("book moves {");
    let mv = d.expect_prefix("White(1): ");
    assert!(["e4", "d4", "f4"].iter().any(|m| mv.ends_with(m)), "{mv}");
    d.send(&format!(
        "book create {} 20",
        data("pgn/kasparov-deep-blue-1997.pgn").display()
    ));
    d.expect_contains("book.bin:");
    d.send("book");
    d.expect_contains("positions");
    d.send("book off");
    d.expect_contains("ownbook off");
    d.send("learn 3");
    d.expect_contains("learn 3");
    d.send("import /nonexistent.lrn");
    d.expect_contains("import: ");
}

#[test]
fn crafty_book_is_a_source_too() {
    // Crafty 25.2's own book.bin, with Crafty's steering book on top.
    let dir = TempDir::new("crafty");
    steering(dir.path(), "crafty/start.pgn");
    let mut k = BookKeeper::open(BookConfig {
        dir: Some(dir.path().to_path_buf()),
        crafty: Some(data("crafty/book.bin")),
        ..Default::default()
    });
    k.set_seed(5);
    let start = Board::startpos();
    let c = k.candidates(&start);
    let e4 = c.iter().find(|c| c.san == "e4").unwrap();
    assert_eq!((e4.stats.games, e4.stats.play), (34_162, 40));
    // Without the steering book, Crafty's counts rank the moves.
    let mut k = BookKeeper::open(BookConfig {
        crafty: Some(data("crafty/book.bin")),
        params: SelectParams {
            width: 2,
            ..Default::default()
        },
        ..Default::default()
    });
    k.set_seed(6);
    let seen = draws(&mut k, &start, 500, BookOverride::default());
    let mut moves: Vec<&String> = seen.keys().collect();
    moves.sort();
    assert_eq!(moves, ["d4", "e4"], "{seen:?}");
    let b = play_line("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3");
    assert!(matches!(
        k.answer(&b, BookOverride::default()),
        BookAnswer::Play(_)
    ));
}
