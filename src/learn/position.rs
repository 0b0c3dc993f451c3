//! Position learning's store, `position.bin`: at most 65,536 positions whose search
//! score dropped sharply, replaced first in, first out, preloaded into the
//! transposition table before every search.
//!
//! File format (little-endian), always replaced whole (temporary file, fsync, rename):
//!
//! ```text
//! header (32 bytes)
//!   0 magic        8 bytes "KIBPOS" 0x1A 0x00
//!   8 version      u16     1
//!  10 reserved     u16     0
//!  12 count        u32     entries that follow
//!  16 next         u32     the entry the next new position replaces once full
//!  20 key check    u32     low 32 bits of the engine's key of the start position:
//!                          entries hold the engine's keys, which a build with other
//!                          keys could not use
//!  24 body CRC     u32     CRC-32 of the entries
//!  28 header CRC   u32     CRC-32 of bytes 0..28
//! entries (16 bytes each)
//!   0 key          u64     the engine's Zobrist key of the position
//!   8 score        i32     centipawns (or a mate score) for the side to move
//!  12 depth        u8      search depth of the score
//!  13 reserved     u8      0
//!  14 move         u16     best move, book move code
//! ```

use super::safe::{self, crc32, FileError};
use crate::chess::Board;
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"KIBPOS\x1a\0";
pub const VERSION: u16 = 1;
pub const HEADER: usize = 32;
pub const ENTRY: usize = 16;
/// Most positions kept.
pub const CAPACITY: usize = 65_536;

/// One learned position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionEntry {
    /// The engine's key (`Board::key`).
    pub key: u64,
    /// Side to move's view.
    pub score: i32,
    pub depth: i32,
    /// Best move, book move code.
    pub code: u16,
}

/// The engine's start-position key, low 32 bits: entries made by a build with other
/// keys are useless to this one.
pub fn key_check() -> u32 {
    Board::startpos().key() as u32
}

/// The store in memory.
#[derive(Clone, Debug)]
pub struct PositionStore {
    path: PathBuf,
    entries: Vec<PositionEntry>,
    next: usize,
    capacity: usize,
}

impl PositionStore {
    pub fn new(path: &Path) -> PositionStore {
        PositionStore {
            path: path.to_path_buf(),
            entries: Vec::new(),
            next: 0,
            capacity: CAPACITY,
        }
    }

    /// Smaller capacity (tests).
    pub fn with_capacity(mut self, capacity: usize) -> PositionStore {
        self.capacity = capacity.clamp(1, CAPACITY);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn entries(&self) -> &[PositionEntry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Reads `path` (an empty store if there is none).
    pub fn load(path: &Path) -> Result<PositionStore, FileError> {
        let mut s = PositionStore::new(path);
        s.reload()?;
        Ok(s)
    }

    /// Re-reads the file (another process may have written it).
    pub fn reload(&mut self) -> Result<(), FileError> {
        let path = self.path.clone();
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.entries.clear();
                self.next = 0;
                return Ok(());
            }
            Err(e) => return Err(FileError::io(&path, e)),
        };
        if data.len() < HEADER {
            return Err(FileError::broken(&path, "shorter than its header"));
        }
        let u32_at = |i: usize| u32::from_le_bytes(data[i..i + 4].try_into().expect("4 bytes"));
        if data[0..8] != MAGIC {
            return Err(FileError::broken(&path, "not a position learning file"));
        }
        if crc32(&data[..28]) != u32_at(28) {
            return Err(FileError::broken(&path, "the header fails its checksum"));
        }
        let version = u16::from_le_bytes([data[8], data[9]]);
        if version != VERSION {
            return Err(FileError::broken(
                &path,
                format!("version {version} (this kibitzer reads {VERSION})"),
            ));
        }
        let count = u32_at(12) as usize;
        let next = u32_at(16) as usize;
        if data.len() != HEADER + count * ENTRY || count > CAPACITY {
            return Err(FileError::broken(
                &path,
                format!("{} bytes for {count} entries: cut short", data.len()),
            ));
        }
        if crc32(&data[HEADER..]) != u32_at(24) {
            return Err(FileError::broken(&path, "the entries fail their checksum"));
        }
        if u32_at(20) != key_check() {
            return Err(FileError::broken(
                &path,
                "written by a build with other hash keys (`import position.lrn` rebuilds it)",
            ));
        }
        self.entries = data[HEADER..]
            .chunks_exact(ENTRY)
            .map(|b| PositionEntry {
                key: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
                score: i32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
                depth: b[12] as i32,
                code: u16::from_le_bytes([b[14], b[15]]),
            })
            .collect();
        self.next = if count == 0 { 0 } else { next % count.max(1) };
        Ok(())
    }

    /// Adds a position (replacing an entry with the same key, else the oldest once
    /// full).
    pub fn add(&mut self, e: PositionEntry) {
        if let Some(old) = self.entries.iter_mut().find(|x| x.key == e.key) {
            *old = e;
            return;
        }
        if self.entries.len() < self.capacity {
            self.entries.push(e);
            if self.entries.len() == self.capacity {
                self.next = 0;
            }
        } else {
            let n = self.next % self.entries.len();
            self.entries[n] = e;
            self.next = (n + 1) % self.entries.len();
        }
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.next = 0;
    }

    /// The file image.
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(self.entries.len() * ENTRY);
        for e in &self.entries {
            body.extend_from_slice(&e.key.to_le_bytes());
            body.extend_from_slice(&e.score.to_le_bytes());
            body.push(e.depth.clamp(0, 255) as u8);
            body.push(0);
            body.extend_from_slice(&e.code.to_le_bytes());
        }
        let mut h = [0u8; HEADER];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..10].copy_from_slice(&VERSION.to_le_bytes());
        h[12..16].copy_from_slice(&(self.entries.len() as u32).to_le_bytes());
        h[16..20].copy_from_slice(&(self.next as u32).to_le_bytes());
        h[20..24].copy_from_slice(&key_check().to_le_bytes());
        h[24..28].copy_from_slice(&crc32(&body).to_le_bytes());
        let c = crc32(&h[..28]);
        h[28..32].copy_from_slice(&c.to_le_bytes());
        let mut out = h.to_vec();
        out.extend(body);
        out
    }

    /// Writes the file crash-safely.
    pub fn save(&self) -> Result<(), FileError> {
        safe::atomic_write(&self.path, &self.encode())
    }

    /// `(key, score, depth)` for `EngineHandle::preload`.
    pub fn preload_entries(&self) -> Vec<(u64, i32, i32)> {
        self.entries
            .iter()
            .map(|e| (e.key, e.score, e.depth))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_replaces_the_oldest_and_round_trips() {
        let dir = std::env::temp_dir().join(format!("kbz-pos-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("position.bin");
        let mut s = PositionStore::new(&path).with_capacity(3);
        for k in 1..=5u64 {
            s.add(PositionEntry {
                key: k,
                score: -(k as i32),
                depth: 10,
                code: 7,
            });
        }
        let keys: Vec<u64> = s.entries().iter().map(|e| e.key).collect();
        assert_eq!(keys, vec![4, 5, 3]);
        s.save().unwrap();
        let t = PositionStore::load(&path).unwrap().with_capacity(3);
        assert_eq!(t.entries(), s.entries());
        let mut t = t;
        t.add(PositionEntry {
            key: 6,
            score: 0,
            depth: 1,
            code: 0,
        });
        let keys: Vec<u64> = t.entries().iter().map(|e| e.key).collect();
        assert_eq!(keys, vec![4, 5, 6]);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[40] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(PositionStore::load(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
