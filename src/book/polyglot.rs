//! Polyglot books: reading them as an additional source (Debian's `gnuchess-book`
//! installs one as `/usr/share/games/gnuchess/book.bin`) and exporting ours.
//!
//! A Polyglot book is a sorted array of 16-byte big-endian entries: key (u64, the
//! Random64 key of `key.rs`), move (u16), weight (u16), learn (u32). The move packs
//! the to-square in bits 0-5, the from-square in bits 6-11 and a promotion piece in
//! bits 12-14 (1 knight .. 4 queen); castling is written as the king taking its own
//! rook (`e1h1`, `e1a1`, `e8h8`, `e8a8`).

use super::bookfile::{flags, BookFile, BookKind, MoveStats};
use super::key::{encode_move, CASTLE_FLAG};
use crate::chess::{Board, Move, PieceType, Square};
use crate::learn::safe::{AtomicFile, Context, FileError};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const ENTRY: usize = 16;

/// One entry of a Polyglot book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub mv: u16,
    pub weight: u16,
    pub learn: u32,
}

impl Entry {
    fn read(b: &[u8]) -> Entry {
        Entry {
            key: u64::from_be_bytes(b[0..8].try_into().expect("8 bytes")),
            mv: u16::from_be_bytes([b[8], b[9]]),
            weight: u16::from_be_bytes([b[10], b[11]]),
            learn: u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
        }
    }

    fn write(&self) -> [u8; ENTRY] {
        let mut b = [0u8; ENTRY];
        b[0..8].copy_from_slice(&self.key.to_be_bytes());
        b[8..10].copy_from_slice(&self.mv.to_be_bytes());
        b[10..12].copy_from_slice(&self.weight.to_be_bytes());
        b[12..16].copy_from_slice(&self.learn.to_be_bytes());
        b
    }
}

fn promo_bits(p: Option<PieceType>) -> u16 {
    match p {
        Some(PieceType::Knight) => 1,
        Some(PieceType::Bishop) => 2,
        Some(PieceType::Rook) => 3,
        Some(PieceType::Queen) => 4,
        _ => 0,
    }
}

/// Polyglot's code of one of our moves (castling as king takes rook).
pub fn polyglot_move(m: Move) -> u16 {
    let from = m.from();
    let mut to = m.to();
    if m.is_castle() {
        let rook_file = if to.index() > from.index() { 7 } else { 0 };
        to = Square::from_index((from.index() / 8 * 8 + rook_file) as u8);
    }
    to as u16 | (from as u16) << 6 | promo_bits(m.promotion_piece()) << 12
}

/// Polyglot's code of one of our book move codes (no board needed: the castling bit
/// says which king moves are castling).
pub fn polyglot_from_code(code: u16) -> u16 {
    let from = code & 63;
    let mut to = (code >> 6) & 63;
    if code & CASTLE_FLAG != 0 {
        to = from / 8 * 8 + if to > from { 7 } else { 0 };
    }
    to | from << 6 | ((code >> 12) & 7) << 12
}

/// The legal move of `board` that a Polyglot move code stands for.
pub fn decode(board: &Board, mv: u16) -> Option<Move> {
    board
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| polyglot_move(m) == mv)
}

/// A Polyglot book in memory.
pub struct PolyglotBook {
    data: Vec<u8>,
    path: PathBuf,
}

impl std::fmt::Debug for PolyglotBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "PolyglotBook({}, {} entries)",
            self.path.display(),
            self.len()
        )
    }
}

impl PolyglotBook {
    pub fn open(path: &Path) -> Result<PolyglotBook, FileError> {
        let data = std::fs::read(path).at(path)?;
        PolyglotBook::from_bytes(path, data)
    }

    pub fn from_bytes(path: &Path, data: Vec<u8>) -> Result<PolyglotBook, FileError> {
        if data.len() % ENTRY != 0 {
            return Err(FileError::broken(
                path,
                format!(
                    "{} bytes is not a whole number of 16-byte Polyglot entries",
                    data.len()
                ),
            ));
        }
        let book = PolyglotBook {
            data,
            path: path.to_path_buf(),
        };
        for i in 1..book.len() {
            if book.key_at(i - 1) > book.key_at(i) {
                return Err(FileError::broken(
                    path,
                    format!("entries not sorted by key at entry {i}: not a Polyglot book"),
                ));
            }
        }
        Ok(book)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn len(&self) -> usize {
        self.data.len() / ENTRY
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    fn key_at(&self, i: usize) -> u64 {
        u64::from_be_bytes(
            self.data[i * ENTRY..i * ENTRY + 8]
                .try_into()
                .expect("8 bytes"),
        )
    }

    /// The entries of a position.
    pub fn lookup(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo..self.len())
            .take_while(move |&i| self.key_at(i) == key)
            .map(move |i| Entry::read(&self.data[i * ENTRY..(i + 1) * ENTRY]))
    }

    /// Every entry in file order.
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.len()).map(move |i| Entry::read(&self.data[i * ENTRY..(i + 1) * ENTRY]))
    }

    /// The entries of a position as book moves: the weight counts as games played
    /// and won (Polyglot keeps no results), so the move is neither dropped as a
    /// zero-win move nor favoured over others by its ratio.
    pub fn stats(&self, board: &Board, key: u64) -> Vec<(Move, MoveStats)> {
        self.lookup(key)
            .filter_map(|e| {
                let m = decode(board, e.mv)?;
                Some((
                    m,
                    MoveStats {
                        code: encode_move(m),
                        games: e.weight as u32,
                        wins: e.weight as u32,
                        ..Default::default()
                    },
                ))
            })
            .collect()
    }
}

/// The Polyglot weight of one of our moves before scaling: 2 x wins + draws for a
/// book built from games (the usual Polyglot convention), the play percentage (or 1)
/// for the steering book; `?` and `??` moves get none and are left out.
pub fn raw_weight(kind: BookKind, m: &MoveStats) -> u64 {
    if m.flags & flags::BAD != 0 {
        return 0;
    }
    match kind {
        BookKind::Games => 2 * m.wins as u64 + m.draws as u64,
        BookKind::Steering => (m.play as u64).max(1),
    }
}

/// Writes `book` as a Polyglot book: entries sorted by key, by weight (highest first)
/// within a key, weights scaled into 16 bits per position. Returns the entry count.
pub fn export(book: &BookFile, out: &Path) -> Result<usize, FileError> {
    let mut f = AtomicFile::create(out)?;
    let tmp = f.tmp_path().to_path_buf();
    let mut n = 0;
    for (key, moves) in book.iter() {
        let mut es: Vec<(u64, u16)> = moves
            .iter()
            .map(|m| (raw_weight(book.kind(), m), polyglot_from_code(m.code)))
            .filter(|&(w, _)| w > 0)
            .collect();
        let max = es.iter().map(|e| e.0).max().unwrap_or(0);
        for e in &mut es {
            if max > u16::MAX as u64 {
                e.0 = (e.0 * u16::MAX as u64).div_ceil(max);
            }
        }
        es.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (w, mv) in es {
            let e = Entry {
                key,
                mv,
                weight: w as u16,
                learn: 0,
            };
            f.write_all(&e.write()).at(&tmp)?;
            n += 1;
        }
    }
    f.commit()?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn castling_is_king_takes_rook() {
        let b = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        let oo = b.parse_move("O-O").unwrap();
        let ooo = b.parse_move("O-O-O").unwrap();
        // e1h1: to h1 = 7, from e1 = 4.
        assert_eq!(polyglot_move(oo), 7 | 4 << 6);
        assert_eq!(polyglot_move(ooo), 4 << 6);
        assert_eq!(polyglot_from_code(encode_move(oo)), polyglot_move(oo));
        assert_eq!(decode(&b, polyglot_move(ooo)), Some(ooo));
        let p = Board::from_fen("8/1P2k3/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        let q = p.parse_move("b8=Q").unwrap();
        assert_eq!(polyglot_from_code(encode_move(q)), polyglot_move(q));
        assert_eq!(polyglot_move(q) >> 12, 4);
    }
}
