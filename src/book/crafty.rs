//! Crafty's own `book.bin` (Crafty 25), read as another book source, so that Crafty
//! users keep their books.
//!
//! The file (all numbers little-endian): an index of 32,768 `i32` file offsets, one
//! per cluster (-1 or 0: empty), and at each offset a cluster: an `i32` count and that
//! many 16-byte entries: key (u64), status and games (u32: flags in the top byte,
//! `0x80` White won a game, `0x40` a game was drawn, `0x20` Black won one, `0x10`
//! `!!`, `0x08` `!`, `0x04` `=`, `0x02` `?`, `0x01` `??`; games played in the low 24
//! bits), learned value (f32, pawns).
//!
//! Crafty stores positions after a move, not moves: the key of a book move is the
//! Crafty hash of the position it leads to, complemented when Black made the move,
//! with its top 16 bits replaced by those of the position before the move; the top 15
//! bits of that one pick the cluster. Crafty's hash (its `data.c` constants in
//! `crafty_random.rs`) XORs `randoms[colour][piece][square]` over the pieces,
//! `castle_random[wing][colour]` for every castling right *lost*, and
//! `enpassant_random[square]` when a pawn has just advanced two squares next to an
//! enemy pawn; the side to move is not hashed.
//!
//! Crafty keeps no win/draw/loss counts, only whether each result occurred: a move
//! counts as won once (so it survives the zero-win rule) when its side won a game.

use super::bookfile::MoveStats;
use super::crafty_random::{CASTLE_RANDOM, ENPASSANT_RANDOM, RANDOMS};
use super::key::encode_move;
use crate::chess::{Board, Color, Move, PieceType, Square};
use crate::learn::safe::{Context, FileError};
use std::path::{Path, PathBuf};

const INDEX: usize = 32_768;
const ENTRY: usize = 16;
const TOP16: u64 = 0xFFFF << 48;

fn piece_number(k: PieceType) -> usize {
    k.index() + 1
}

/// Crafty's hash key of a position.
pub fn crafty_key(board: &Board) -> u64 {
    let mut key = 0u64;
    for color in Color::ALL {
        let c = usize::from(color == Color::White);
        for kind in PieceType::ALL {
            for sq in board.pieces(color, kind) {
                key ^= RANDOMS[c][piece_number(kind)][sq.index()];
            }
        }
    }
    let rights = board.castling();
    for color in Color::ALL {
        let c = usize::from(color == Color::White);
        if !rights.has(crate::chess::CastleRights::king_side(color)) {
            key ^= CASTLE_RANDOM[0][c];
        }
        if !rights.has(crate::chess::CastleRights::queen_side(color)) {
            key ^= CASTLE_RANDOM[1][c];
        }
    }
    if let Some(m) = board.last_move().filter(|m| m.is_double_push()) {
        let to = m.to();
        let enemy = board.side_to_move();
        let beside = [to.try_step(-1, 0), to.try_step(1, 0)];
        if beside
            .iter()
            .flatten()
            .any(|&s| board.pieces(enemy, PieceType::Pawn).contains(s))
        {
            let ep = Square::from_index((m.from() as u8 + m.to() as u8) / 2);
            key ^= ENPASSANT_RANDOM[ep.index()];
        }
    }
    key
}

/// The key Crafty's book stores for `mv` played in `board`.
pub fn book_key(board: &Board, mv: Move) -> u64 {
    let parent = crafty_key(board);
    let white_moved = board.side_to_move() == Color::White;
    let mut b = board.clone();
    b.make_move(mv);
    let child = crafty_key(&b);
    let k = if white_moved { child } else { !child };
    (k & !TOP16) | (parent & TOP16)
}

/// A Crafty book in memory.
pub struct CraftyBook {
    data: Vec<u8>,
    path: PathBuf,
}

impl std::fmt::Debug for CraftyBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CraftyBook({})", self.path.display())
    }
}

fn i32_at(d: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}

impl CraftyBook {
    pub fn open(path: &Path) -> Result<CraftyBook, FileError> {
        let data = std::fs::read(path).at(path)?;
        CraftyBook::from_bytes(path, data)
    }

    /// Checks that every cluster the index points to lies inside the file.
    pub fn from_bytes(path: &Path, data: Vec<u8>) -> Result<CraftyBook, FileError> {
        if data.len() < INDEX * 4 {
            return Err(FileError::broken(path, "shorter than a Crafty book index"));
        }
        for i in 0..INDEX {
            let off = i32_at(&data, i * 4).unwrap_or(-1);
            if off <= 0 {
                continue;
            }
            let off = off as usize;
            let n = i32_at(&data, off).ok_or_else(|| {
                FileError::broken(path, format!("cluster {i} lies outside the file"))
            })?;
            if n < 0 || off + 4 + n as usize * ENTRY > data.len() {
                return Err(FileError::broken(
                    path,
                    format!("cluster {i} ({n} entries) runs past the end: not a Crafty book"),
                ));
            }
        }
        Ok(CraftyBook {
            data,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Positions stored (entries of every cluster).
    pub fn entries(&self) -> usize {
        (0..INDEX)
            .filter_map(|i| {
                let off = i32_at(&self.data, i * 4)?;
                (off > 0).then(|| i32_at(&self.data, off as usize).unwrap_or(0) as usize)
            })
            .sum()
    }

    fn cluster(&self, parent: u64) -> &[u8] {
        let i = (parent >> 49) as usize;
        let off = i32_at(&self.data, i * 4).unwrap_or(-1);
        if off <= 0 {
            return &[];
        }
        let off = off as usize;
        let n = i32_at(&self.data, off).unwrap_or(0).max(0) as usize;
        &self.data[off + 4..off + 4 + n * ENTRY]
    }

    /// The book moves of a position with what Crafty knows about them.
    pub fn stats(&self, board: &Board) -> Vec<(Move, MoveStats)> {
        let cluster = self.cluster(crafty_key(board));
        if cluster.is_empty() {
            return Vec::new();
        }
        let white = board.side_to_move() == Color::White;
        let mut out = Vec::new();
        for &m in board.legal_moves().iter() {
            let key = book_key(board, m);
            let Some(e) = cluster
                .chunks_exact(ENTRY)
                .find(|e| u64::from_le_bytes(e[0..8].try_into().expect("8 bytes")) == key)
            else {
                continue;
            };
            let status = u32::from_le_bytes(e[8..12].try_into().expect("4 bytes"));
            let learn = f32::from_le_bytes(e[12..16].try_into().expect("4 bytes"));
            let flags = (status >> 24) as u8;
            let games = status & 0x00FF_FFFF;
            let (won, lost) = if white {
                (flags & 0x80 != 0, flags & 0x20 != 0)
            } else {
                (flags & 0x20 != 0, flags & 0x80 != 0)
            };
            out.push((
                m,
                MoveStats {
                    code: encode_move(m),
                    flags: flags & 0x1F,
                    play: 0,
                    learned: (learn * 100.0).clamp(-30000.0, 30000.0) as i16,
                    games,
                    wins: u32::from(won),
                    draws: u32::from(flags & 0x40 != 0),
                    losses: u32::from(lost),
                },
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crafty_book_lines_are_found() {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/crafty/book.bin");
        let b = CraftyBook::open(&p).unwrap();
        assert_eq!(b.entries(), 90_131);
        let start = Board::startpos();
        let s = b.stats(&start);
        let games = |san: &str| {
            s.iter()
                .find(|(m, _)| start.san(*m) == san)
                .map(|(_, st)| st.games)
        };
        assert_eq!(games("e4"), Some(34_162));
        assert_eq!(games("d4"), Some(27_764));
        // Castling, a lost castling right and an en-passant square (3... e5 next to
        // d5) all hash as Crafty hashes them: every move of these lines is found.
        for line in [
            "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3",
            "d4 Nf6 c4 c5 d5 e5 Nc3 d6 e4 Be7",
            "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6 f3",
        ] {
            let mut b2 = start.clone();
            for san in line.split_whitespace() {
                let m = b2.parse_move(san).unwrap();
                assert!(b.stats(&b2).iter().any(|(x, _)| *x == m), "{line}: {san}");
                b2.make_move(m);
            }
        }
    }
}
