//! Zobrist keys, generated at compile time from a fixed seed (splitmix64), so keys are
//! identical on every machine and in every build.

use super::types::{Color, Piece, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

pub(crate) struct Keys {
    pub piece: [[u64; 64]; 12],
    pub castle: [u64; 16],
    pub ep_file: [u64; 8],
    pub side: u64,
}

const fn make_keys() -> Keys {
    let mut state = 0x4B49_4249_545A_4552u64;
    let mut piece = [[0u64; 64]; 12];
    let mut p = 0;
    while p < 12 {
        let mut s = 0;
        while s < 64 {
            let (ns, v) = splitmix(state);
            state = ns;
            piece[p][s] = v;
            s += 1;
        }
        p += 1;
    }
    // Castling: one key per right; a set of rights hashes as the XOR of its members,
    // so a change of rights is one XOR of old ^ new.
    let mut single = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let (ns, v) = splitmix(state);
        state = ns;
        single[i] = v;
        i += 1;
    }
    let mut castle = [0u64; 16];
    let mut m = 0;
    while m < 16 {
        let mut k = 0u64;
        let mut b = 0;
        while b < 4 {
            if m & (1 << b) != 0 {
                k ^= single[b];
            }
            b += 1;
        }
        castle[m] = k;
        m += 1;
    }
    let mut ep_file = [0u64; 8];
    let mut f = 0;
    while f < 8 {
        let (ns, v) = splitmix(state);
        state = ns;
        ep_file[f] = v;
        f += 1;
    }
    let (_, side) = splitmix(state);
    Keys {
        piece,
        castle,
        ep_file,
        side,
    }
}

pub(crate) static KEYS: Keys = make_keys();

#[inline(always)]
pub fn piece_key(p: Piece, sq: Square) -> u64 {
    KEYS.piece[p.index()][sq.index()]
}

#[inline(always)]
pub fn castle_key(rights: u8) -> u64 {
    KEYS.castle[(rights & 15) as usize]
}

#[inline(always)]
pub fn ep_key(sq: Square) -> u64 {
    KEYS.ep_file[sq.file().index()]
}

#[inline(always)]
pub fn side_key() -> u64 {
    KEYS.side
}

/// Key of the side to move: zero for White.
#[inline(always)]
pub fn color_key(c: Color) -> u64 {
    match c {
        Color::White => 0,
        Color::Black => KEYS.side,
    }
}
