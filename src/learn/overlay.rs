//! The book's learning overlay: what book and result learning found out about book
//! moves, kept beside the book in an append-only log (`book.learn`) so that learning
//! never rewrites the book file.
//!
//! Log format (`safe.rs` logs): header magic `KIBLEARN`, version 1, 24-byte records:
//!
//! ```text
//!  0 key     u64  Polyglot key of the position
//!  8 move    u16  book move code
//! 10 kind    u8   1 = set the entry, 0xFF = forget everything before this record
//! 11 flags   u8   1 = never play again (result learning)
//! 12 value   i32  learned value, centipawns, for the side that moves
//! 16 count   u32  how many times the value was updated
//! 20 CRC-32 of bytes 0..20
//! ```
//!
//! Records carry whole values, not increments, so replaying the log is idempotent and
//! the last record for a move is its state. Replay happens at start and, before every
//! write, from where the last read stopped, so two processes taking turns under the
//! lock see each other's learning.

use super::safe::{self, FileError, LogFormat};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub const FORMAT: LogFormat = LogFormat {
    magic: *b"KIBLEARN",
    version: 1,
    record: 24,
};

const KIND_SET: u8 = 1;
const KIND_CLEAR: u8 = 0xFF;
const FLAG_NEVER: u8 = 1;

/// What was learned about one book move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Learned {
    /// Centipawns for the side that plays the move.
    pub value: i32,
    pub count: u32,
    /// Result learning: lost with it; never play it again.
    pub never: bool,
}

/// A change to the overlay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delta {
    /// Book learning: blend a value in (the first value is taken as is, later ones
    /// are averaged with what is there).
    Learn { key: u64, code: u16, value: i32 },
    /// Result learning after a win or draw: add to the value (capped at +-300).
    Strengthen { key: u64, code: u16, bonus: i32 },
    /// Result learning after a loss: never play the move again.
    Never { key: u64, code: u16 },
}

/// Largest learned value (centipawns either way).
pub const MAX_VALUE: i32 = 300;

impl Delta {
    pub fn target(&self) -> (u64, u16) {
        match *self {
            Delta::Learn { key, code, .. }
            | Delta::Strengthen { key, code, .. }
            | Delta::Never { key, code } => (key, code),
        }
    }

    /// The entry after applying this change to `old`.
    pub fn apply(&self, old: Learned) -> Learned {
        let mut n = old;
        match *self {
            Delta::Learn { value, .. } => {
                let v = value.clamp(-MAX_VALUE, MAX_VALUE);
                n.value = if old.count == 0 && old.value == 0 {
                    v
                } else {
                    (old.value + v) / 2
                };
                n.count = old.count.saturating_add(1);
            }
            Delta::Strengthen { bonus, .. } => {
                n.value = (old.value + bonus).clamp(-MAX_VALUE, MAX_VALUE);
                n.count = old.count.saturating_add(1);
            }
            Delta::Never { .. } => n.never = true,
        }
        n
    }
}

fn encode(kind: u8, key: u64, code: u16, l: &Learned) -> Vec<u8> {
    let mut p = [0u8; 20];
    p[0..8].copy_from_slice(&key.to_le_bytes());
    p[8..10].copy_from_slice(&code.to_le_bytes());
    p[10] = kind;
    p[11] = if l.never { FLAG_NEVER } else { 0 };
    p[12..16].copy_from_slice(&l.value.to_le_bytes());
    p[16..20].copy_from_slice(&l.count.to_le_bytes());
    FORMAT.seal(&p)
}

/// The overlay in memory, following its log file.
#[derive(Debug)]
pub struct Overlay {
    path: PathBuf,
    map: HashMap<(u64, u16), Learned>,
    /// Where reading stopped (end of the intact records).
    offset: u64,
    /// Which file that offset is in (another process may have set it aside and
    /// started a new one).
    identity: Option<(u64, u64)>,
}

fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

impl Overlay {
    /// An overlay for `path`, empty until the file exists.
    pub fn new(path: &Path) -> Overlay {
        Overlay {
            path: path.to_path_buf(),
            map: HashMap::new(),
            offset: 0,
            identity: None,
        }
    }

    /// Reads the log (if there is one). A torn last record is ignored (and cut off
    /// at the next write); a damaged one elsewhere is an error (the caller sets the
    /// file aside).
    pub fn load(path: &Path) -> Result<(Overlay, usize), FileError> {
        let mut o = Overlay::new(path);
        let torn = o.refresh()?;
        Ok((o, torn))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Applies records appended since the last read (by this or another process);
    /// returns the size of a torn tail, if any.
    pub fn refresh(&mut self) -> Result<usize, FileError> {
        if !self.path.exists() {
            self.map.clear();
            self.offset = 0;
            return Ok(0);
        }
        let meta = std::fs::metadata(&self.path).map_err(|e| FileError::io(&self.path, e))?;
        let id = identity(&meta);
        if meta.len() < self.offset || id != self.identity {
            // Another file than the one read so far: read it from the start.
            self.map.clear();
            self.offset = 0;
            self.identity = id;
        }
        let r = safe::read_log(&self.path, &FORMAT, self.offset)?;
        for p in &r.records {
            let key = u64::from_le_bytes(p[0..8].try_into().expect("8 bytes"));
            let code = u16::from_le_bytes([p[8], p[9]]);
            match p[10] {
                KIND_CLEAR => self.map.clear(),
                KIND_SET => {
                    let l = Learned {
                        never: p[11] & FLAG_NEVER != 0,
                        value: i32::from_le_bytes(p[12..16].try_into().expect("4 bytes")),
                        count: u32::from_le_bytes(p[16..20].try_into().expect("4 bytes")),
                    };
                    self.map.insert((key, code), l);
                }
                k => {
                    return Err(FileError::broken(
                        &self.path,
                        format!("unknown record kind {k}"),
                    ))
                }
            }
        }
        self.offset = r.good_len;
        Ok(r.torn_tail)
    }

    pub fn get(&self, key: u64, code: u16) -> Option<Learned> {
        self.map.get(&(key, code)).copied()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Every entry (unordered).
    pub fn entries(&self) -> impl Iterator<Item = ((u64, u16), Learned)> + '_ {
        self.map.iter().map(|(k, v)| (*k, *v))
    }

    /// Applies changes and appends them to the log in one write (call with the
    /// learning lock held). `clear` forgets everything first. Returns the new
    /// entries, one per change.
    pub fn commit(&mut self, clear: bool, deltas: &[Delta]) -> Result<Vec<Learned>, FileError> {
        safe::create_log(&self.path, &FORMAT)?;
        self.refresh()?;
        let mut bytes = Vec::with_capacity((deltas.len() + 1) * FORMAT.record);
        if clear {
            bytes.extend(encode(KIND_CLEAR, 0, 0, &Learned::default()));
            self.map.clear();
        }
        let mut out = Vec::with_capacity(deltas.len());
        for d in deltas {
            let (key, code) = d.target();
            let old = self.get(key, code).unwrap_or_default();
            let new = d.apply(old);
            self.map.insert((key, code), new);
            bytes.extend(encode(KIND_SET, key, code, &new));
            out.push(new);
        }
        if !bytes.is_empty() {
            self.offset =
                safe::append_log(&self.path, self.offset.max(safe::LOG_HEADER as u64), &bytes)?;
        }
        Ok(out)
    }
}
