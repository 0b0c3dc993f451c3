//! kibitzer's binary book file (`book.bin`, and `books.bin` for the steering book).
//!
//! All numbers are little-endian; the layout does not depend on the machine.
//!
//! ```text
//! header (64 bytes)
//!   0  magic        8 bytes  "KIBBOOK" 0x1A
//!   8  version      u16      1
//!  10  kind         u8       0 = book built from games, 1 = steering book
//!  11  key kind     u8       1 = Polyglot Random64 keys (see key.rs)
//!  12  positions    u32      entries in the position index
//!  16  moves        u32      move records
//!  20  max ply      u16      creation parameters, for `show book` and the curious
//!  22  reserved     u16      0
//!  24  min played   u32
//!  28  wpct         u32
//!  32  games        u64      games the book was built from
//!  40  created      u64      Unix seconds
//!  48  body CRC     u32      CRC-32 of every byte after the header
//!  52  reserved     8 bytes  0
//!  60  header CRC   u32      CRC-32 of bytes 0..60
//! move records (24 bytes each), grouped by position in index order, by move code
//! within a position
//!   0  move         u16      book move code (key.rs)
//!   2  flags        u8       0x01 ??, 0x02 ?, 0x04 =, 0x08 !, 0x10 !!
//!   3  play         u8       {play nn%}: 1..=100, 0 = none
//!   4  learned      i16      learned value in centipawns for the side that moved
//!                            (as built; learning later goes to the overlay log)
//!   6  reserved     u16      0
//!   8  games        u32      games in which the move was played
//!  12  wins         u32      ... won by the side that played it
//!  16  draws        u32
//!  20  losses       u32
//! position index (16 bytes each), sorted by key, keys unique
//!   0  key          u64      Polyglot key of the position before the move
//!   8  first move   u32      index of its first move record
//!  12  count        u16      number of move records
//!  14  reserved     u16      0
//! ```
//!
//! A book is read into memory once, checked (both CRCs, sizes, index order), and
//! probed by binary search over the index: a lookup touches about twenty index entries
//! and the position's move records, well under a microsecond.
//!
//! Books are only ever written whole, under a temporary name, fsynced and renamed
//! into place (`BookWriter`), so a reader sees the old book or the new one. What is
//! learned while playing never rewrites a book: it goes to the learning overlay
//! (`learn`).

use crate::learn::safe::{crc32, AtomicFile, Context, Crc32, FileError};
use std::fs::{self, File};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"KIBBOOK\x1a";
pub const VERSION: u16 = 1;
pub const HEADER: usize = 64;
pub const MOVE_RECORD: usize = 24;
pub const INDEX_RECORD: usize = 16;
/// Key kind: Polyglot keys.
pub const KEY_POLYGLOT: u8 = 1;

/// Move flags, as written after a move in PGN.
pub mod flags {
    /// `??`: never play.
    pub const BLUNDER: u8 = 0x01;
    /// `?`: do not play.
    pub const MISTAKE: u8 = 0x02;
    /// `=`: drawish.
    pub const DRAWISH: u8 = 0x04;
    /// `!`: play this (or another `!` move).
    pub const GOOD: u8 = 0x08;
    /// `!!`: always play.
    pub const BRILLIANT: u8 = 0x10;
    pub const BAD: u8 = BLUNDER | MISTAKE;
    pub const PREFERRED: u8 = GOOD | BRILLIANT;

    /// The flag of a PGN annotation glyph (`$1` `!`, `$2` `?`, `$3` `!!`, `$4` `??`,
    /// `$10` `=`); others carry none.
    pub fn from_nag(nag: u8) -> u8 {
        match nag {
            1 => GOOD,
            2 => MISTAKE,
            3 => BRILLIANT,
            4 => BLUNDER,
            10 => DRAWISH,
            _ => 0,
        }
    }

    /// `!!`, `!`, `=`, `?`, `??` (the strongest one), or empty.
    pub fn text(f: u8) -> &'static str {
        if f & BLUNDER != 0 {
            "??"
        } else if f & MISTAKE != 0 {
            "?"
        } else if f & BRILLIANT != 0 {
            "!!"
        } else if f & GOOD != 0 {
            "!"
        } else if f & DRAWISH != 0 {
            "="
        } else {
            ""
        }
    }
}

/// What is known about one move of one position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveStats {
    /// Book move code (`key::encode_move`).
    pub code: u16,
    pub flags: u8,
    /// `{play nn%}`: 1..=100, 0 = none.
    pub play: u8,
    pub learned: i16,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl MoveStats {
    fn read(b: &[u8]) -> MoveStats {
        MoveStats {
            code: u16::from_le_bytes([b[0], b[1]]),
            flags: b[2],
            play: b[3],
            learned: i16::from_le_bytes([b[4], b[5]]),
            games: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
            wins: u32::from_le_bytes([b[12], b[13], b[14], b[15]]),
            draws: u32::from_le_bytes([b[16], b[17], b[18], b[19]]),
            losses: u32::from_le_bytes([b[20], b[21], b[22], b[23]]),
        }
    }

    fn write(&self) -> [u8; MOVE_RECORD] {
        let mut b = [0u8; MOVE_RECORD];
        b[0..2].copy_from_slice(&self.code.to_le_bytes());
        b[2] = self.flags;
        b[3] = self.play;
        b[4..6].copy_from_slice(&self.learned.to_le_bytes());
        b[8..12].copy_from_slice(&self.games.to_le_bytes());
        b[12..16].copy_from_slice(&self.wins.to_le_bytes());
        b[16..20].copy_from_slice(&self.draws.to_le_bytes());
        b[20..24].copy_from_slice(&self.losses.to_le_bytes());
        b
    }

    /// Adds another record of the same move (counts add, flags merge, the larger
    /// play percentage wins).
    pub fn merge(&mut self, o: &MoveStats) {
        self.flags |= o.flags;
        self.play = self.play.max(o.play);
        self.games = self.games.saturating_add(o.games);
        self.wins = self.wins.saturating_add(o.wins);
        self.draws = self.draws.saturating_add(o.draws);
        self.losses = self.losses.saturating_add(o.losses);
    }
}

/// Which kind of book a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookKind {
    /// Built from games with `book create`.
    Games,
    /// The steering book (`books create`).
    Steering,
}

/// The header fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub kind: BookKind,
    pub positions: u32,
    pub moves: u32,
    pub max_ply: u16,
    pub min_played: u32,
    pub wpct: u32,
    pub games: u64,
    pub created: u64,
}

impl Header {
    fn encode(&self, body_crc: u32) -> [u8; HEADER] {
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&VERSION.to_le_bytes());
        h[10] = match self.kind {
            BookKind::Games => 0,
            BookKind::Steering => 1,
        };
        h[11] = KEY_POLYGLOT;
        h[12..16].copy_from_slice(&self.positions.to_le_bytes());
        h[16..20].copy_from_slice(&self.moves.to_le_bytes());
        h[20..22].copy_from_slice(&self.max_ply.to_le_bytes());
        h[24..28].copy_from_slice(&self.min_played.to_le_bytes());
        h[28..32].copy_from_slice(&self.wpct.to_le_bytes());
        h[32..40].copy_from_slice(&self.games.to_le_bytes());
        h[40..48].copy_from_slice(&self.created.to_le_bytes());
        h[48..52].copy_from_slice(&body_crc.to_le_bytes());
        let c = crc32(&h[..60]);
        h[60..64].copy_from_slice(&c.to_le_bytes());
        h
    }

    fn decode(path: &Path, h: &[u8]) -> Result<(Header, u32), FileError> {
        if h.len() < HEADER {
            return Err(FileError::broken(
                path,
                format!("{} bytes, shorter than a book header", h.len()),
            ));
        }
        if h[0..8] != MAGIC {
            return Err(FileError::Unsupported {
                path: path.to_path_buf(),
                reason: "not a kibitzer book (use `book polyglot` for Polyglot books)".into(),
            });
        }
        let u16_at = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]);
        let u32_at = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().expect("8 bytes"));
        if crc32(&h[..60]) != u32_at(60) {
            return Err(FileError::broken(path, "the header fails its checksum"));
        }
        let version = u16_at(8);
        if version != VERSION || h[11] != KEY_POLYGLOT {
            return Err(FileError::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "book version {version} key kind {} (this kibitzer reads version {VERSION})",
                    h[11]
                ),
            });
        }
        let kind = match h[10] {
            0 => BookKind::Games,
            1 => BookKind::Steering,
            k => return Err(FileError::broken(path, format!("unknown book kind {k}"))),
        };
        Ok((
            Header {
                kind,
                positions: u32_at(12),
                moves: u32_at(16),
                max_ply: u16_at(20),
                min_played: u32_at(24),
                wpct: u32_at(28),
                games: u64_at(32),
                created: u64_at(40),
            },
            u32_at(48),
        ))
    }
}

/// A book file in memory.
pub struct BookFile {
    data: Vec<u8>,
    header: Header,
    path: PathBuf,
    index_at: usize,
}

impl std::fmt::Debug for BookFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "BookFile({}, {:?})", self.path.display(), self.header)
    }
}

impl BookFile {
    /// Reads and checks a book file.
    pub fn open(path: &Path) -> Result<BookFile, FileError> {
        let data = fs::read(path).at(path)?;
        BookFile::from_bytes(path, data)
    }

    /// Checks a book image (`path` names it in errors).
    pub fn from_bytes(path: &Path, data: Vec<u8>) -> Result<BookFile, FileError> {
        let (header, body_crc) = Header::decode(path, &data)?;
        let moves = header.moves as usize;
        let positions = header.positions as usize;
        let want = HEADER + moves * MOVE_RECORD + positions * INDEX_RECORD;
        if data.len() != want {
            return Err(FileError::broken(
                path,
                format!(
                    "{} bytes, but the header promises {positions} positions and {moves} moves ({want} bytes): cut short or overwritten",
                    data.len()
                ),
            ));
        }
        if crc32(&data[HEADER..]) != body_crc {
            return Err(FileError::broken(path, "the body fails its checksum"));
        }
        let book = BookFile {
            index_at: HEADER + moves * MOVE_RECORD,
            data,
            header,
            path: path.to_path_buf(),
        };
        // The index must be sorted and point inside the move records.
        let mut last = None;
        for i in 0..positions {
            let (key, first, count) = book.index_entry(i);
            if last.is_some_and(|k| k >= key) {
                return Err(FileError::broken(
                    path,
                    format!("position index not sorted at entry {i}"),
                ));
            }
            if first as usize + count as usize > moves || count == 0 {
                return Err(FileError::broken(
                    path,
                    format!("position index entry {i} points outside the move records"),
                ));
            }
            last = Some(key);
        }
        Ok(book)
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn kind(&self) -> BookKind {
        self.header.kind
    }

    pub fn positions(&self) -> usize {
        self.header.positions as usize
    }

    pub fn moves_stored(&self) -> usize {
        self.header.moves as usize
    }

    /// File size in bytes.
    pub fn size(&self) -> usize {
        self.data.len()
    }

    fn index_entry(&self, i: usize) -> (u64, u32, u16) {
        let b = &self.data[self.index_at + i * INDEX_RECORD..][..INDEX_RECORD];
        (
            u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            u16::from_le_bytes([b[12], b[13]]),
        )
    }

    fn key_at(&self, i: usize) -> u64 {
        let at = self.index_at + i * INDEX_RECORD;
        u64::from_le_bytes(self.data[at..at + 8].try_into().expect("8 bytes"))
    }

    /// The moves stored for a position, in move-code order.
    pub fn lookup(&self, key: u64) -> impl Iterator<Item = MoveStats> + '_ {
        let (mut lo, mut hi) = (0usize, self.positions());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let range = if lo < self.positions() && self.key_at(lo) == key {
            let (_, first, count) = self.index_entry(lo);
            first as usize..first as usize + count as usize
        } else {
            0..0
        };
        range.map(move |i| MoveStats::read(&self.data[HEADER + i * MOVE_RECORD..][..MOVE_RECORD]))
    }

    /// Is the position in the book?
    pub fn contains(&self, key: u64) -> bool {
        self.lookup(key).next().is_some()
    }

    /// Every position with its moves, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, Vec<MoveStats>)> + '_ {
        (0..self.positions()).map(move |i| {
            let (key, first, count) = self.index_entry(i);
            let moves = (first as usize..first as usize + count as usize)
                .map(|j| MoveStats::read(&self.data[HEADER + j * MOVE_RECORD..][..MOVE_RECORD]))
                .collect();
            (key, moves)
        })
    }
}

/// Writes a book file: positions in ascending key order, each with its moves. The
/// index goes to a side file while the moves stream out, so memory stays bounded
/// however large the book is; `finish` joins them, fills in the header and renames
/// the result into place.
pub struct BookWriter {
    out: AtomicFile,
    index: BufWriter<File>,
    index_path: PathBuf,
    _remove_index: RemoveOnDrop,
    header: Header,
    crc: Crc32,
    last_key: Option<u64>,
}

impl BookWriter {
    pub fn create(path: &Path, header: Header) -> Result<BookWriter, FileError> {
        let mut out = AtomicFile::create(path)?;
        let tmp = out.tmp_path().to_path_buf();
        out.writer().write_all(&[0u8; HEADER]).at(&tmp)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let index_path = path.with_file_name(format!(".{name}.idx.{}", std::process::id()));
        let index = BufWriter::with_capacity(
            1 << 20,
            File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(&index_path)
                .at(&index_path)?,
        );
        Ok(BookWriter {
            out,
            index,
            _remove_index: RemoveOnDrop(index_path.clone()),
            index_path,
            header: Header {
                positions: 0,
                moves: 0,
                ..header
            },
            crc: Crc32::new(),
            last_key: None,
        })
    }

    /// Adds a position (keys strictly ascending) with its moves (empty: skipped).
    pub fn push(&mut self, key: u64, moves: &[MoveStats]) -> Result<(), FileError> {
        if moves.is_empty() {
            return Ok(());
        }
        assert!(
            self.last_key.is_none_or(|k| k < key),
            "book positions must be written in ascending key order"
        );
        self.last_key = Some(key);
        let count = moves.len().min(u16::MAX as usize);
        let tmp = self.out.tmp_path().to_path_buf();
        let mut e = [0u8; INDEX_RECORD];
        e[0..8].copy_from_slice(&key.to_le_bytes());
        e[8..12].copy_from_slice(&self.header.moves.to_le_bytes());
        e[12..14].copy_from_slice(&(count as u16).to_le_bytes());
        self.index.write_all(&e).at(&self.index_path)?;
        for m in &moves[..count] {
            let b = m.write();
            self.crc.update(&b);
            self.out.writer().write_all(&b).at(&tmp)?;
        }
        self.header.moves = self
            .header
            .moves
            .checked_add(count as u32)
            .ok_or_else(|| FileError::broken(&tmp, "more than 4 billion book moves"))?;
        self.header.positions += 1;
        Ok(())
    }

    /// Completes the file and moves it into place; returns the header written.
    pub fn finish(mut self) -> Result<Header, FileError> {
        let tmp = self.out.tmp_path().to_path_buf();
        self.index.flush().at(&self.index_path)?;
        let mut idx = self.index.get_ref().try_clone().at(&self.index_path)?;
        idx.seek(SeekFrom::Start(0)).at(&self.index_path)?;
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = idx.read(&mut buf).at(&self.index_path)?;
            if n == 0 {
                break;
            }
            self.crc.update(&buf[..n]);
            self.out.writer().write_all(&buf[..n]).at(&tmp)?;
        }
        let h = self.header.encode(self.crc.finish());
        let w = self.out.writer();
        w.seek(SeekFrom::Start(0)).at(&tmp)?;
        w.write_all(&h).at(&tmp)?;
        self.out.commit()?;
        Ok(self.header)
    }
}

/// The index side file, removed when dropped.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Seconds since the Unix epoch (for headers).
pub fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            kind: BookKind::Games,
            positions: 0,
            moves: 0,
            max_ply: 10,
            min_played: 1,
            wpct: 0,
            games: 3,
            created: 0,
        }
    }

    #[test]
    fn write_then_read_back_and_detect_damage() {
        let dir = std::env::temp_dir().join(format!("kbz-fmt-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.bin");
        let mut w = BookWriter::create(&path, header()).unwrap();
        let a = MoveStats {
            code: 796,
            games: 3,
            wins: 2,
            losses: 1,
            ..Default::default()
        };
        let b = MoveStats {
            code: 1,
            flags: flags::GOOD,
            play: 40,
            ..Default::default()
        };
        w.push(5, &[a]).unwrap();
        w.push(9, &[b, a]).unwrap();
        let h = w.finish().unwrap();
        assert_eq!((h.positions, h.moves), (2, 3));
        let book = BookFile::open(&path).unwrap();
        assert_eq!(book.lookup(5).collect::<Vec<_>>(), vec![a]);
        assert_eq!(book.lookup(9).collect::<Vec<_>>(), vec![b, a]);
        assert_eq!(book.lookup(7).count(), 0);
        assert_eq!(book.lookup(u64::MAX).count(), 0);
        // Every single-byte change is caught.
        let data = fs::read(&path).unwrap();
        for i in 0..data.len() {
            let mut d = data.clone();
            d[i] ^= 0x20;
            assert!(BookFile::from_bytes(&path, d).is_err(), "byte {i}");
        }
        // So is a file cut short.
        assert!(BookFile::from_bytes(&path, data[..data.len() - 1].to_vec()).is_err());
        fs::remove_dir_all(&dir).unwrap();
    }
}
