//! `kibitzer selfplay`: games of the engine against itself at a fixed node budget,
//! for tuning data. Each opening (a game prefix from an openings PGN, or random legal
//! plies from the start position) is played twice; every move's node budget is
//! jittered by +-20 %, so the two games differ. Games end by mate, stalemate, the draw
//! rules, or adjudication: a score of at
//! least `WIN_SCORE` for one side on `WIN_PLIES` plies running, or within `DRAW_SCORE`
//! of zero for `DRAW_PLIES` plies after `DRAW_FROM` plies.

use super::tune::Rng;
use crate::chess::pgn::{PgnGame, PgnReader};
use crate::chess::{Board, Color};
use crate::engine::{EngineHandle, SearchConfig, SearchLimits, SearchResult};
use anyhow::{bail, Context, Result};
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

const WIN_SCORE: i32 = 1000;
const WIN_PLIES: usize = 6;
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: usize = 12;
const DRAW_FROM: usize = 80;
const MAX_PLIES: usize = 500;

/// Settings of a self-play run.
#[derive(Clone, Debug)]
pub struct SelfplayOptions {
    pub games: usize,
    pub nodes: u64,
    /// Openings PGN; without it, `random_plies` random legal plies.
    pub openings: Option<PathBuf>,
    pub random_plies: usize,
    pub threads: usize,
    pub seed: u64,
    pub hash_mb: usize,
    /// The evaluation both sides play with (`None`: the handcrafted one).
    pub net: Option<std::sync::Arc<crate::nnue::Network>>,
}

/// Totals of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfplayStats {
    pub games: usize,
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
    pub adjudicated: usize,
    pub plies: usize,
}

/// The opening positions (as move lists from their start) of an openings PGN.
fn read_openings(path: &Path) -> Result<Vec<PgnGame>> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut reader = PgnReader::new(BufReader::new(f));
    let mut v = Vec::new();
    while let Some(g) = reader.next_game() {
        match g {
            Ok(g) => v.push(g),
            Err(e) => eprintln!("{}: {e} (skipped)", path.display()),
        }
    }
    if v.is_empty() {
        bail!("{}: no openings", path.display());
    }
    Ok(v)
}

fn random_opening(rng: &mut Rng, plies: usize) -> PgnGame {
    loop {
        let mut b = Board::startpos();
        let mut g = PgnGame::new(b.clone());
        let mut ok = true;
        for _ in 0..plies {
            let moves = b.legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            let m = moves.as_slice()[rng.below(moves.len())];
            g.push_move(&b, m);
            b.make_move(m);
        }
        if ok && b.has_legal_move() {
            return g;
        }
    }
}

/// The games of a run: the openings, drawn up front (so the games do not depend
/// on thread timing) and played in pairs, one game after another to whoever asks.
pub struct Games {
    openings: Vec<PgnGame>,
    book: Vec<PgnGame>,
    random_plies: usize,
    nodes: u64,
    seed: u64,
    net: Option<std::sync::Arc<crate::nnue::Network>>,
    next: AtomicUsize,
}

/// Openings drawn up front; an endless run (`datagen`) draws more as it goes.
const FIRST_OPENINGS: usize = 4096;

impl Games {
    pub fn new(opts: &SelfplayOptions) -> Result<Games> {
        let mut rng = Rng::new(opts.seed);
        let book = match &opts.openings {
            Some(p) => read_openings(p)?,
            None => Vec::new(),
        };
        let pairs = opts.games.div_ceil(2).min(FIRST_OPENINGS);
        let openings: Vec<PgnGame> = (0..pairs)
            .map(|_| draw_opening(&book, &mut rng, opts.random_plies))
            .collect();
        Ok(Games {
            openings,
            book,
            random_plies: opts.random_plies,
            nodes: opts.nodes,
            seed: opts.seed,
            net: opts.net.clone(),
            next: AtomicUsize::new(0),
        })
    }

    /// The number of the next game.
    fn take(&self) -> usize {
        self.next.fetch_add(1, Ordering::SeqCst)
    }

    /// Plays game `n` on `engine`; `searched` sees every position the engine
    /// searched in it (not the opening's) with the search's result. Returns the
    /// game and whether it was adjudicated.
    pub fn play(
        &self,
        engine: &EngineHandle,
        n: usize,
        searched: &mut dyn FnMut(&Board, &SearchResult),
    ) -> (PgnGame, bool) {
        let opening = match self.openings.get(n / 2) {
            Some(o) => o.clone(),
            None => {
                // Past the first batch: both games of a pair share their opening.
                let mut rng = Rng::new(self.seed ^ ((n / 2) as u64).wrapping_mul(0x5851_F42D));
                draw_opening(&self.book, &mut rng, self.random_plies)
            }
        };
        let mut rng = Rng::new(self.seed ^ (n as u64).wrapping_mul(0x2545_F491));
        play(
            engine,
            &opening,
            self.nodes,
            self.net.clone(),
            &mut rng,
            n,
            searched,
        )
    }

    /// Plays the next game (see `play`).
    pub fn play_next(
        &self,
        engine: &EngineHandle,
        searched: &mut dyn FnMut(&Board, &SearchResult),
    ) -> (PgnGame, bool) {
        let n = self.take();
        self.play(engine, n, searched)
    }
}

fn draw_opening(book: &[PgnGame], rng: &mut Rng, plies: usize) -> PgnGame {
    if book.is_empty() {
        random_opening(rng, plies)
    } else {
        book[rng.below(book.len())].clone()
    }
}

/// Plays `opts.games` games and writes them to `out` as PGN; `progress` gets the
/// games finished so far.
pub fn selfplay(
    opts: &SelfplayOptions,
    out: &Path,
    progress: &(dyn Fn(&SelfplayStats) + Sync),
) -> Result<SelfplayStats> {
    let games = Games::new(opts)?;
    let file = std::fs::File::create(out).with_context(|| format!("creating {}", out.display()))?;
    let sink = Mutex::new((std::io::BufWriter::new(file), SelfplayStats::default()));
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = (0..opts.threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    let engine = EngineHandle::new(opts.hash_mb << 20, 1);
                    loop {
                        let n = games.take();
                        if n >= opts.games {
                            return Ok(());
                        }
                        let (game, adjudicated) = games.play(&engine, n, &mut |_, _| {});
                        let mut guard = sink.lock().unwrap_or_else(|e| e.into_inner());
                        let (w, stats) = &mut *guard;
                        write!(w, "{}\n\n", game.to_pgn())?;
                        stats.games += 1;
                        stats.plies += game.moves.len();
                        stats.adjudicated += usize::from(adjudicated);
                        match game.result.as_str() {
                            "1-0" => stats.white_wins += 1,
                            "0-1" => stats.black_wins += 1,
                            _ => stats.draws += 1,
                        }
                        progress(stats);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("self-play thread")?;
        }
        Ok(())
    })?;
    let (mut w, stats) = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    w.flush()?;
    Ok(stats)
}

/// One game from `opening`; returns it and whether it was adjudicated.
fn play(
    engine: &EngineHandle,
    opening: &PgnGame,
    nodes: u64,
    net: Option<std::sync::Arc<crate::nnue::Network>>,
    rng: &mut Rng,
    number: usize,
    searched: &mut dyn FnMut(&Board, &SearchResult),
) -> (PgnGame, bool) {
    let mut board = opening.start.clone();
    let mut game = PgnGame::new(board.clone());
    for m in &opening.moves {
        game.push_move(&board, m.mv);
        board.make_move(m.mv);
    }
    game.set_tag("Event", "kibitzer selfplay");
    game.set_tag("Round", &(number + 1).to_string());
    game.set_tag("White", "kibitzer");
    game.set_tag("Black", "kibitzer");
    engine.new_game();
    let config = SearchConfig {
        move_overhead: std::time::Duration::ZERO,
        net,
        ..Default::default()
    };
    let mut win_run = (Color::White, 0usize);
    let mut draw_run = 0usize;
    let (result, adjudicated) = loop {
        if !board.has_legal_move() {
            break if board.in_check() {
                (
                    if board.side_to_move() == Color::White {
                        "0-1"
                    } else {
                        "1-0"
                    },
                    false,
                )
            } else {
                ("1/2-1/2", false)
            };
        }
        if board.is_threefold_repetition()
            || board.is_fifty_move_draw()
            || board.is_insufficient_material()
        {
            break ("1/2-1/2", false);
        }
        if game.moves.len() >= MAX_PLIES {
            break ("1/2-1/2", true);
        }
        // +-20 % on the budget, so paired games and repeated openings diverge.
        let budget = nodes * (80 + rng.below(41) as u64) / 100;
        let r = engine.search_sync(&board, SearchLimits::nodes(budget.max(1)), config.clone());
        if r.best.is_null() {
            break ("1/2-1/2", false);
        }
        searched(&board, &r);
        let white_score = if board.side_to_move() == Color::White {
            r.score
        } else {
            -r.score
        };
        if white_score.abs() >= WIN_SCORE {
            let side = if white_score > 0 {
                Color::White
            } else {
                Color::Black
            };
            win_run = if win_run.0 == side {
                (side, win_run.1 + 1)
            } else {
                (side, 1)
            };
        } else {
            win_run.1 = 0;
        }
        if game.moves.len() >= DRAW_FROM && white_score.abs() <= DRAW_SCORE {
            draw_run += 1;
        } else {
            draw_run = 0;
        }
        game.push_move(&board, r.best);
        board.make_move(r.best);
        if win_run.1 >= WIN_PLIES {
            break (
                if win_run.0 == Color::White {
                    "1-0"
                } else {
                    "0-1"
                },
                true,
            );
        }
        if draw_run >= DRAW_PLIES {
            break ("1/2-1/2", true);
        }
    };
    game.result = result.to_string();
    game.set_tag("Result", result);
    (game, adjudicated)
}
