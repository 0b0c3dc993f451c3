//! Book tools that are not play: timing lookups (`kibitzer book bench`) and the
//! crash test's writer (`kibitzer book torture`, hidden), which writes books and
//! learning files in a loop until it is killed.

use super::bookfile::BookFile;
use super::create::{create_book, CreateOptions};
use super::key::{encode_move, polyglot_key};
use super::select::{select, Candidate, SelectParams};
use crate::chess::pgn::PgnReader;
use crate::chess::{Board, Move};
use crate::learn::{
    BookRecord, Delta, FileError, Learner, Lesson, MoveLearning, PositionEntry, PositionRecord,
};
use std::io::BufRead;
use std::path::Path;
use std::time::{Duration, Instant};

/// Lookup timing over the positions of the first `plies` plies of `games` games.
pub fn bench_lookups(book: &BookFile, pgn: impl BufRead, games: usize, plies: usize) -> String {
    let mut boards = Vec::new();
    for g in PgnReader::new(pgn).take(games).flatten() {
        let mut b = g.start.clone();
        for m in g.moves.iter().take(plies) {
            boards.push(b.clone());
            b.make_move(m.mv);
        }
    }
    if boards.is_empty() {
        return "no positions to probe".into();
    }
    // Key + binary search + reading the moves.
    let start = Instant::now();
    let mut rounds = 0u64;
    let (mut hits, mut moves) = (0u64, 0u64);
    while rounds == 0 || start.elapsed() < Duration::from_secs(1) {
        for b in &boards {
            let n = book.lookup(polyglot_key(b)).count() as u64;
            hits += u64::from(n > 0);
            moves += n;
        }
        rounds += 1;
    }
    let probes = rounds * boards.len() as u64;
    let lookup_us = start.elapsed().as_secs_f64() * 1e6 / probes as f64;
    // The whole choice: legal moves, codes, candidates, selection.
    let start = Instant::now();
    let mut n = 0u64;
    let params = SelectParams::default();
    while n == 0 || start.elapsed() < Duration::from_secs(1) {
        for b in &boards {
            let key = polyglot_key(b);
            let stats: Vec<_> = book.lookup(key).collect();
            if stats.is_empty() {
                n += 1;
                continue;
            }
            let cands: Vec<Candidate> = b
                .legal_moves()
                .iter()
                .filter_map(|&m| {
                    let code = encode_move(m);
                    stats.iter().find(|s| s.code == code).map(|s| {
                        let mut c = Candidate::new(b, m);
                        c.stats = *s;
                        c.in_book = true;
                        c
                    })
                })
                .collect();
            std::hint::black_box(select(cands, &params));
            n += 1;
        }
    }
    let select_us = start.elapsed().as_secs_f64() * 1e6 / n as f64;
    format!(
        "{} positions ({} in book, {:.1} moves each), {} rounds: lookup (key + search + moves) {:.3} us per probe; full choice (legal moves, SAN, selection) {:.2} us per position",
        boards.len(),
        hits / rounds,
        moves as f64 / hits.max(1) as f64,
        rounds,
        lookup_us,
        select_us
    )
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn random_line(rng: &mut Rng, plies: usize) -> (Board, Vec<Move>) {
    let start = Board::startpos();
    let mut b = start.clone();
    let mut line = Vec::new();
    for _ in 0..plies {
        let moves = b.legal_moves();
        if moves.is_empty() {
            break;
        }
        // Few distinct openings, so positions repeat across games.
        let m = moves.as_slice()[rng.below(moves.len().min(3))];
        line.push(m);
        b.make_move(m);
    }
    (start, line)
}

fn random_pgn(rng: &mut Rng, games: usize) -> String {
    let mut text = String::new();
    for _ in 0..games {
        let plies = 4 + rng.below(16);
        let (start, line) = random_line(rng, plies);
        let mut g = crate::chess::pgn::PgnGame::new(start.clone());
        let mut b = start;
        for &m in &line {
            g.push_move(&b, m);
            b.make_move(m);
        }
        g.result = ["1-0", "0-1", "1/2-1/2"][rng.below(3)].into();
        text.push_str(&g.to_pgn());
    }
    text
}

/// Writes books and learning files in `dir` in a loop until killed (the crash test
/// kills it at random moments and then checks every file is readable).
pub fn torture(dir: &Path, seed: u64) -> Result<(), FileError> {
    std::fs::create_dir_all(dir).map_err(|e| FileError::io(dir, e))?;
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    loop {
        match rng.below(4) {
            0 | 1 => {
                let steering = rng.below(2) == 1;
                let games = 20 + rng.below(200);
                let text = random_pgn(&mut rng, games);
                let (name, opts) = if steering {
                    (super::STEERING_FILE, CreateOptions::steering(12))
                } else {
                    let mut o = CreateOptions::book(16, 1, 0);
                    // Small runs: exercise the merge of sorted runs too.
                    o.memory = 64 << 10;
                    (super::BOOK_FILE, o)
                };
                let r = create_book(
                    std::io::Cursor::new(text.into_bytes()),
                    None,
                    &dir.join(name),
                    &opts,
                    &mut |_| {},
                    &mut |_| {},
                );
                if let Err(e) = r {
                    eprintln!("torture: {e}");
                }
            }
            2 => {
                let mut l = Learner::open(dir);
                let (start, line) = random_line(&mut rng, 12);
                let mut b = start.clone();
                let mut moves = Vec::new();
                let mut deltas = Vec::new();
                for &m in &line {
                    let key = polyglot_key(&b);
                    let code = encode_move(m);
                    let v = rng.below(601) as i32 - 300;
                    let ls = match rng.below(4) {
                        0 => {
                            deltas.push(Delta::Learn {
                                key,
                                code,
                                value: v,
                            });
                            vec![MoveLearning::Learn(v)]
                        }
                        1 => {
                            deltas.push(Delta::Never { key, code });
                            vec![MoveLearning::Never]
                        }
                        2 => {
                            deltas.push(Delta::Strengthen {
                                key,
                                code,
                                bonus: 20,
                            });
                            vec![MoveLearning::Strengthen(20)]
                        }
                        _ => vec![],
                    };
                    moves.push((m, ls));
                    b.make_move(m);
                }
                let mut positions = Vec::new();
                for _ in 0..rng.below(4) {
                    let plies = 6 + rng.below(10);
                    let (_, pl) = random_line(&mut rng, plies);
                    let mut pb = Board::startpos();
                    for &m in &pl {
                        pb.make_move(m);
                    }
                    let Some(&best) = pb.legal_moves().as_slice().first() else {
                        continue;
                    };
                    let e = PositionEntry {
                        key: pb.key(),
                        score: rng.below(400) as i32 - 200,
                        depth: 10,
                        code: encode_move(best),
                    };
                    positions.push((
                        e,
                        PositionRecord {
                            tags: Vec::new(),
                            result: "*".into(),
                            board: pb,
                            best,
                            score: e.score,
                            depth: e.depth,
                        },
                    ));
                }
                let lesson = Lesson {
                    deltas,
                    book_record: Some(BookRecord {
                        tags: vec![("White".into(), "torture".into())],
                        result: "0-1".into(),
                        value: -50,
                        depth: 12,
                        rating_difference: 0,
                        start,
                        moves,
                    }),
                    positions,
                };
                if let Err(e) = l.commit(&lesson) {
                    eprintln!("torture: {e}");
                }
            }
            _ => {
                let mut l = Learner::open(dir);
                let lrn = dir.join(Learner::BOOK_LRN);
                if lrn.exists() {
                    if let Err(e) = l.import(&lrn, rng.below(2) == 0, &polyglot_key, &encode_move) {
                        eprintln!("torture: {e}");
                    }
                }
            }
        }
    }
}
