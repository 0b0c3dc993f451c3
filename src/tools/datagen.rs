//! `kibitzer datagen`: training positions for a learned evaluation, from the
//! engine's own self-play games at a fixed node budget (the games of `selfplay`:
//! openings from a PGN or random plies, adjudication). Each position our search
//! scored is kept unless it is in check, its best move is a capture or a
//! promotion (a tactical position: its score says little of the quiet evaluation),
//! or its score is past `max_score`. The game's result is added when it ends, and
//! the game's positions are appended together, so a run stopped at any moment
//! (Ctrl-C, a crash) loses at most the games in play; the next run with the same
//! file goes on to its target.
//!
//! The file is a sequence of 32-byte records (no header), little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0-7 | occupancy bitboard (bit 0 = a1, bit 63 = h8) |
//! | 8-23 | the pieces in occupancy order, lowest square first, one per nibble (low nibble first): 0-5 White pawn, knight, bishop, rook, queen, king; 6-11 the same for Black |
//! | 24-25 | the search's score in centipawns, White's view (i16) |
//! | 26 | the game's result: 0 Black won, 1 draw, 2 White won |
//! | 27 | side to move: 0 White, 1 Black |
//! | 28-29 | ply of the game (u16) |
//! | 30-31 | reserved, 0 |

use super::selfplay::{self, SelfplayOptions};
use crate::chess::{Board, Color, Piece, Square};
use anyhow::{bail, Context, Result};
use std::io::{Seek, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

/// Bytes per position.
pub const RECORD: usize = 32;

/// One training position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub board: Board,
    /// The search's score, White's view, centipawns.
    pub score: i16,
    /// 0 Black won, 1 draw, 2 White won.
    pub result: u8,
    pub ply: u16,
}

impl Sample {
    pub fn encode(&self) -> [u8; RECORD] {
        let mut out = [0u8; RECORD];
        let mut occ = 0u64;
        let mut nib = 0usize;
        for i in 0..64u8 {
            if let Some(p) = self.board.piece_at(Square::from_index(i)) {
                occ |= 1 << i;
                if nib < 32 {
                    out[8 + nib / 2] |= (p as u8) << (4 * (nib % 2));
                }
                nib += 1;
            }
        }
        out[0..8].copy_from_slice(&occ.to_le_bytes());
        out[24..26].copy_from_slice(&self.score.to_le_bytes());
        out[26] = self.result;
        out[27] = (self.board.side_to_move() == Color::Black) as u8;
        out[28..30].copy_from_slice(&self.ply.to_le_bytes());
        out
    }

    /// The position of a record (no castling rights, no en-passant square: what an
    /// evaluation reads), or what is wrong with it.
    pub fn decode(rec: &[u8]) -> Result<Sample, String> {
        if rec.len() != RECORD {
            return Err(format!("a record is {RECORD} bytes, not {}", rec.len()));
        }
        let occ = u64::from_le_bytes(rec[0..8].try_into().expect("8 bytes"));
        if occ.count_ones() > 32 {
            return Err(format!("{} pieces (at most 32)", occ.count_ones()));
        }
        let mut squares: [Option<Piece>; 64] = [None; 64];
        let mut nib = 0usize;
        for (i, sq) in squares.iter_mut().enumerate() {
            if occ & (1 << i) != 0 {
                let code = (rec[8 + nib / 2] >> (4 * (nib % 2))) & 15;
                *sq = Some(
                    *Piece::ALL
                        .get(code as usize)
                        .ok_or_else(|| format!("piece code {code} (0-11)"))?,
                );
                nib += 1;
            }
        }
        let fen = crate::chess::fen::placement(&squares);
        let stm = match rec[27] {
            0 => "w",
            1 => "b",
            x => return Err(format!("side to move {x} (0 or 1)")),
        };
        let result = rec[26];
        if result > 2 {
            return Err(format!("result {result} (0, 1 or 2)"));
        }
        let board = Board::from_fen(&format!("{fen} {stm} - - 0 1"))
            .map_err(|e| format!("not a position: {e}"))?;
        Ok(Sample {
            board,
            score: i16::from_le_bytes([rec[24], rec[25]]),
            result,
            ply: u16::from_le_bytes([rec[28], rec[29]]),
        })
    }
}

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct DatagenOptions {
    /// Positions the file should hold at the end (counting those already in it).
    pub positions: u64,
    /// The games (their `games` is not read: the run plays until the target).
    pub play: SelfplayOptions,
    /// Positions scored further than this from 0 (centipawns) are left out.
    pub max_score: i32,
}

/// Totals of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatagenStats {
    /// Positions in the file before this run.
    pub before: u64,
    /// Positions written by this run, and games played.
    pub written: u64,
    pub games: u64,
    /// Searched positions left out by the filters.
    pub in_check: u64,
    pub tactical: u64,
    pub decided: u64,
    /// A partial record cut from the end of the file (a run killed mid-write).
    pub cut_bytes: u64,
}

/// Makes positions until `out` holds `opts.positions`; `progress` gets the
/// positions in the file so far. `stop` ends the run after the games in play.
pub fn datagen(
    opts: &DatagenOptions,
    out: &Path,
    stop: &AtomicBool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<DatagenStats> {
    if opts.play.nodes == 0 {
        bail!("--nodes 0: every move needs a search");
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(out)
        .with_context(|| format!("opening {}", out.display()))?;
    let len = file.metadata()?.len();
    let whole = len - len % RECORD as u64;
    let stats = DatagenStats {
        before: whole / RECORD as u64,
        cut_bytes: len - whole,
        ..Default::default()
    };
    if stats.cut_bytes > 0 {
        file.set_len(whole)
            .with_context(|| format!("cutting the partial record of {}", out.display()))?;
        file.seek(std::io::SeekFrom::End(0))?;
    }
    let have = AtomicU64::new(stats.before);
    progress(stats.before);
    if stats.before >= opts.positions {
        return Ok(stats);
    }
    let sink = Mutex::new((file, stats.clone()));
    // Another seed for every resumption: a resumed run plays other games.
    let seed = opts.play.seed ^ stats.before.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let sp = SelfplayOptions {
        games: usize::MAX,
        seed,
        ..opts.play.clone()
    };
    let games = selfplay::Games::new(&sp)?;
    std::thread::scope(|scope| -> Result<()> {
        let handles: Vec<_> = (0..opts.play.threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<()> {
                    let engine = crate::engine::EngineHandle::new(opts.play.hash_mb << 20, 1);
                    while !stop.load(Ordering::SeqCst)
                        && have.load(Ordering::SeqCst) < opts.positions
                    {
                        let mut kept: Vec<Sample> = Vec::new();
                        let mut left_out = (0u64, 0u64, 0u64);
                        let (game, _) = games.play_next(&engine, &mut |board, r| {
                            if board.in_check() {
                                left_out.0 += 1;
                            } else if !r.best.is_quiet() {
                                left_out.1 += 1;
                            } else if r.score.abs() > opts.max_score {
                                left_out.2 += 1;
                            } else {
                                let white = if board.side_to_move() == Color::White {
                                    r.score
                                } else {
                                    -r.score
                                };
                                kept.push(Sample {
                                    board: board.clone(),
                                    score: white as i16,
                                    result: 1,
                                    ply: board_ply(board),
                                });
                            }
                        });
                        let result = match game.result.as_str() {
                            "1-0" => 2,
                            "0-1" => 0,
                            _ => 1,
                        };
                        let mut bytes = Vec::with_capacity(kept.len() * RECORD);
                        for s in &mut kept {
                            s.result = result;
                            bytes.extend_from_slice(&s.encode());
                        }
                        let mut guard = sink.lock().unwrap_or_else(|e| e.into_inner());
                        let (f, st) = &mut *guard;
                        // One write per game: whole records, whole games.
                        f.write_all(&bytes)?;
                        st.written += kept.len() as u64;
                        st.games += 1;
                        st.in_check += left_out.0;
                        st.tactical += left_out.1;
                        st.decided += left_out.2;
                        let now =
                            have.fetch_add(kept.len() as u64, Ordering::SeqCst) + kept.len() as u64;
                        progress(now);
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().expect("datagen thread")?;
        }
        Ok(())
    })?;
    let (f, stats) = sink.into_inner().unwrap_or_else(|e| e.into_inner());
    f.sync_all()?;
    Ok(stats)
}

fn board_ply(b: &Board) -> u16 {
    let full = b.fullmove_number().max(1);
    (full - 1) * 2 + (b.side_to_move() == Color::Black) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            "8/8/4k3/8/2P5/8/4K3/8 b - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
        ] {
            let s = Sample {
                board: Board::from_fen(fen).unwrap(),
                score: -123,
                result: 2,
                ply: 41,
            };
            let rec = s.encode();
            assert_eq!(Sample::decode(&rec).unwrap(), s, "{fen}");
        }
        let mut bad = Sample {
            board: Board::startpos(),
            score: 0,
            result: 1,
            ply: 0,
        }
        .encode();
        bad[26] = 7;
        assert!(Sample::decode(&bad).unwrap_err().contains("result 7"));
        bad[26] = 1;
        bad[8] = 0xff;
        assert!(Sample::decode(&bad).unwrap_err().contains("piece code 15"));
        assert!(Sample::decode(&bad[..10]).unwrap_err().contains("32 bytes"));
    }
}
