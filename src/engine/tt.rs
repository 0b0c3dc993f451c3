//! The transposition table, shared by all search threads through atomics only.
//!
//! Each entry is two `AtomicU64`s: the packed data and `key ^ data`. A reader accepts
//! an entry only when `stored_key ^ data == key`, so an entry torn by two threads
//! writing at once is rejected instead of being misread (Hyatt's lockless hashing).
//! Entries sit in buckets of four (one 64-byte cache line); replacement prefers the
//! same position, then empty slots, then the shallowest or oldest entry. Mate scores
//! are stored relative to the node (distance from the node, not from the root) and
//! converted back on reading.

use crate::chess::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

pub const BOUND_NONE: u8 = 0;
pub const BOUND_UPPER: u8 = 1;
pub const BOUND_LOWER: u8 = 2;
pub const BOUND_EXACT: u8 = 3;

/// Scores at or beyond this are mates (see `search::MATE`).
const MATE_BOUND: i32 = super::search::MATE_IN_MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: u8,
    pub pv: bool,
}

#[derive(Default)]
struct Entry {
    check: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket {
    entries: [Entry; 4],
}

pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    age: AtomicU8,
}

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | pv 1 | age 5
fn pack(mv: Move, score: i32, eval: i32, depth: i32, bound: u8, pv: bool, age: u8) -> u64 {
    (mv.0 as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | (((depth.clamp(-1, 254) + 1) as u8 as u64) << 48)
        | (((bound & 3) as u64) << 56)
        | ((pv as u64) << 58)
        | (((age & 31) as u64) << 59)
}

fn unpack(d: u64) -> (TtHit, u8) {
    (
        TtHit {
            mv: Move(d as u16),
            score: (d >> 16) as u16 as i16 as i32,
            eval: (d >> 32) as u16 as i16 as i32,
            depth: ((d >> 48) as u8) as i32 - 1,
            bound: ((d >> 56) & 3) as u8,
            pv: (d >> 58) & 1 != 0,
        },
        ((d >> 59) & 31) as u8,
    )
}

/// Converts a score from "relative to the root" to "relative to this node".
#[inline]
pub fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Converts a stored score back to "relative to the root" at `ply`.
#[inline]
pub fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl TranspositionTable {
    /// A table of (at most) `bytes` bytes, rounded down to a power-of-two bucket count.
    pub fn new(bytes: usize) -> TranspositionTable {
        let mut t = TranspositionTable {
            buckets: Vec::new(),
            age: AtomicU8::new(0),
        };
        t.resize(bytes);
        t
    }

    /// Resizes (and clears) the table to at most `bytes`; when that much memory
    /// cannot be had, halves the size until it can. Returns the size in bytes.
    pub fn resize(&mut self, bytes: usize) -> usize {
        let n = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut n = 1usize << (usize::BITS - 1 - n.leading_zeros());
        self.buckets = Vec::new();
        while n > 1 && self.buckets.try_reserve_exact(n).is_err() {
            n /= 2;
        }
        self.buckets.resize_with(n, Bucket::default);
        self.size_bytes()
    }

    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    pub fn clear(&self) {
        for b in &self.buckets {
            for e in &b.entries {
                e.check.store(0, Ordering::Relaxed);
                e.data.store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: entries from earlier searches become replaceable first.
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store(a.wrapping_add(1) & 31, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto the table without a modulo.
        let idx = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[idx]
    }

    /// Hints the CPU to load the bucket of `key`.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: prefetching is a hint with no memory effects; `p` points into
            // our own allocation.
            unsafe { std::arch::x86_64::_mm_prefetch(p, std::arch::x86_64::_MM_HINT_T0) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks up `key`; scores are converted back to be relative to the root at `ply`.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> Option<TtHit> {
        let b = self.bucket(key);
        for e in &b.entries {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            if check ^ data == key && data != 0 {
                let (mut hit, _) = unpack(data);
                hit.score = score_from_tt(hit.score, ply);
                return Some(hit);
            }
        }
        None
    }

    /// Stores a result. `score` is relative to the root at `ply`.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Move,
        score: i32,
        eval: i32,
        depth: i32,
        bound: u8,
        pv: bool,
    ) {
        let age = self.age.load(Ordering::Relaxed);
        let b = self.bucket(key);
        let mut victim = &b.entries[0];
        let mut victim_value = i32::MAX;
        for e in &b.entries {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.check.load(Ordering::Relaxed);
            if data == 0 || check ^ data == key {
                victim = e;
                if data != 0 && check ^ data == key {
                    let (old, _) = unpack(data);
                    // Keep a deeper exact entry of the same position, and keep the
                    // old move if the new result has none.
                    if bound != BOUND_EXACT && old.depth > depth + 3 {
                        return;
                    }
                    let mv = if mv.is_null() { old.mv } else { mv };
                    let d = pack(mv, score_to_tt(score, ply), eval, depth, bound, pv, age);
                    e.data.store(d, Ordering::Relaxed);
                    e.check.store(key ^ d, Ordering::Relaxed);
                    return;
                }
                break;
            }
            let (old, old_age) = unpack(data);
            let age_diff = (age.wrapping_sub(old_age) & 31) as i32;
            let value = old.depth - 8 * age_diff;
            if value < victim_value {
                victim_value = value;
                victim = e;
            }
        }
        let d = pack(mv, score_to_tt(score, ply), eval, depth, bound, pv, age);
        victim.data.store(d, Ordering::Relaxed);
        victim.check.store(key ^ d, Ordering::Relaxed);
    }

    /// Permille of the first 1000 entries used in the current search (UCI hashfull).
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let mut used = 0u32;
        let mut seen = 0;
        'outer: for b in &self.buckets {
            for e in &b.entries {
                let d = e.data.load(Ordering::Relaxed);
                if d != 0 && unpack(d).1 == age {
                    used += 1;
                }
                seen += 1;
                if seen >= 1000 {
                    break 'outer;
                }
            }
        }
        (used * 1000).checked_div(seen).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1 << 16);
        let m = Move::new(Square::E2, Square::E4, 1);
        tt.store(0x1234_5678_9ABC_DEF0, 3, m, -250, 17, 9, BOUND_LOWER, true);
        let hit = tt.probe(0x1234_5678_9ABC_DEF0, 3).unwrap();
        assert_eq!(hit.mv, m);
        assert_eq!(hit.score, -250);
        assert_eq!(hit.eval, 17);
        assert_eq!(hit.depth, 9);
        assert_eq!(hit.bound, BOUND_LOWER);
        assert!(hit.pv);
        assert!(tt.probe(0x1234_5678_9ABC_DEF1, 3).is_none());
    }

    #[test]
    fn mate_scores_are_relative_to_the_node() {
        let tt = TranspositionTable::new(1 << 16);
        let mate_in_5_from_root = super::super::search::MATE - 5;
        // Stored at ply 3 (mate 2 plies from that node), read back at ply 7.
        tt.store(
            42,
            3,
            Move::NULL,
            mate_in_5_from_root,
            0,
            4,
            BOUND_EXACT,
            false,
        );
        assert_eq!(tt.probe(42, 3).unwrap().score, mate_in_5_from_root);
        assert_eq!(
            tt.probe(42, 7).unwrap().score,
            super::super::search::MATE - 9
        );
        let mated = -super::super::search::MATE + 6;
        tt.store(43, 2, Move::NULL, mated, 0, 4, BOUND_EXACT, false);
        assert_eq!(
            tt.probe(43, 0).unwrap().score,
            -super::super::search::MATE + 4
        );
    }

    #[test]
    fn torn_entries_are_rejected() {
        let tt = TranspositionTable::new(1 << 12);
        tt.store(99, 0, Move::NULL, 10, 0, 5, BOUND_EXACT, false);
        // Corrupt the data word as a racing writer would.
        let b = tt.bucket(99);
        for e in &b.entries {
            if e.data.load(Ordering::Relaxed) != 0 {
                e.data.fetch_xor(1 << 20, Ordering::Relaxed);
            }
        }
        assert!(tt.probe(99, 0).is_none());
    }
}
