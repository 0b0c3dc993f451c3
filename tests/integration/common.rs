//! Helpers shared by the integration tests: data paths, a seeded RNG, random games and
//! the positions of the perft suites.

use kibitzer::chess::epd::Epd;
use kibitzer::chess::{Board, Move};
use shakmaty::{fen::Fen, CastlingMode, Chess};
use std::path::{Path, PathBuf};

/// Path of a file under the shared test data (`../shared/data` next to the repository).
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(rel)
}

/// Reads a data file as text (lossily: some files end lines with NUL bytes).
pub fn read_data(rel: &str) -> String {
    let path = data(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// xorshift64*: small, seeded, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Never zero; spread small seeds.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-enough integer in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// Is the game over by the rules (mate, stalemate, dead position, 50 moves, threefold)?
pub fn game_over(b: &Board) -> bool {
    !b.has_legal_move()
        || b.is_insufficient_material()
        || b.is_fifty_move_draw()
        || b.is_threefold_repetition()
}

/// Picks a uniformly random legal move (the list order does not matter: moves are
/// sorted first so the choice depends only on the position and the RNG).
pub fn random_move(b: &Board, rng: &mut Rng) -> Option<Move> {
    let mut moves: Vec<Move> = b.legal_moves().iter().copied().collect();
    if moves.is_empty() {
        return None;
    }
    moves.sort();
    Some(moves[rng.below(moves.len())])
}

/// Plays one random game from `start` to its end (or `max_plies`), calling `visit` on
/// every position reached, the start included, before the move from it is chosen.
pub fn random_game(
    start: &Board,
    rng: &mut Rng,
    max_plies: usize,
    mut visit: impl FnMut(&mut Board),
) -> Board {
    let mut b = start.clone();
    for _ in 0..=max_plies {
        visit(&mut b);
        if game_over(&b) {
            break;
        }
        let Some(m) = random_move(&b, rng) else { break };
        b.make_move(m);
    }
    b
}

/// Positions of random games (`games` games from the start position, every `every`-th
/// position kept).
pub fn random_positions(seed: u64, games: usize, every: usize) -> Vec<Board> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let start = Board::startpos();
    let mut n = 0usize;
    for _ in 0..games {
        random_game(&start, &mut rng, 2000, |b| {
            if n % every == 0 {
                let mut c = b.clone();
                c.clear_history();
                out.push(c);
            }
            n += 1;
        });
    }
    out
}

/// The perft suites, with how many of their lines to sample (1 = every line).
pub const PERFT_FILES: [&str; 4] = [
    "perft/perftsuite.epd",
    "perft/perft_double_checks.epd",
    "perft/perft_whittington.epd",
    "perft/perft_marcel.epd",
];

/// One line of an EPD perft file.
pub struct EpdLine {
    pub line: usize,
    /// The line as written, without trailing NUL or whitespace.
    pub text: String,
    pub epd: Epd,
}

/// Parses every position line of an EPD file (1-based line numbers kept).
pub fn epd_lines(rel: &str) -> Vec<EpdLine> {
    read_data(rel)
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let t = l.trim_matches(|c: char| c.is_whitespace() || c == '\0');
            if t.is_empty() || t.starts_with('#') {
                return None;
            }
            let epd = Epd::parse(l).unwrap_or_else(|e| panic!("{rel}:{}: {e}: {t}", i + 1));
            Some(EpdLine {
                line: i + 1,
                text: t.to_string(),
                epd,
            })
        })
        .collect()
}

/// The FEN part (four fields and optional clocks) of an EPD perft line as written.
pub fn epd_fen_text(text: &str) -> String {
    let pos = text.split(';').next().unwrap_or("");
    let fields: Vec<&str> = pos.split_whitespace().collect();
    let n = fields.len().min(6);
    fields[..n].join(" ")
}

/// Every position of every perft suite (marcel every `marcel_every`-th line).
pub fn perft_positions(marcel_every: usize) -> Vec<(String, Board)> {
    let mut out = Vec::new();
    for f in PERFT_FILES {
        let every = if f.contains("marcel") {
            marcel_every
        } else {
            1
        };
        for (i, l) in epd_lines(f).into_iter().enumerate() {
            if i % every == 0 {
                out.push((format!("{f}:{}", l.line), l.epd.board));
            }
        }
    }
    out
}

/// Sorted UCI strings of the legal moves.
pub fn uci_set(b: &Board) -> Vec<String> {
    let mut v: Vec<String> = b.legal_moves().iter().map(|m| m.to_uci()).collect();
    v.sort();
    v
}

/// The same position in shakmaty. Some suite positions have an en-passant square that
/// allows no capture or two aligned checkers, which shakmaty refuses unless told.
pub fn shakmaty_position(fen: &str) -> Result<Chess, String> {
    let fen: Fen = fen.parse().map_err(|e| format!("{fen}: {e}"))?;
    let mut r = fen.into_position::<Chess>(CastlingMode::Standard);
    if let Err(e) = r {
        r = e.ignore_invalid_ep_square();
    }
    if let Err(e) = r {
        r = e.ignore_impossible_check();
    }
    r.map_err(|e| e.to_string())
}
