//! FEN in and out, with validation that names what is wrong.
//!
//! Parsing is lenient where no information is lost (EPD-style FENs without clocks,
//! extra spaces) and strict about anything that would make an impossible position.
//! An en-passant square that is plausible but allows no legal capture is accepted and
//! dropped, so the key matches the same position given without it.

use super::bitboard::Bitboard;
use super::board::Board;
use super::types::*;
use super::zobrist;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    #[error("FEN is empty")]
    Empty,
    #[error("the board has {0} rank{s}; expected 8 separated by '/'", s = if *.0 == 1 { "" } else { "s" })]
    WrongRankCount(usize),
    #[error("bad piece letter '{ch}' in rank {rank}")]
    BadPieceLetter { ch: char, rank: usize },
    #[error("rank {rank} is too long ({squares} squares)")]
    RankTooLong { rank: usize, squares: usize },
    #[error("rank {rank} is too short ({squares} squares)")]
    RankTooShort { rank: usize, squares: usize },
    #[error("{0} has no king")]
    NoKing(&'static str),
    #[error("{0} has more than one king")]
    TooManyKings(&'static str),
    #[error("{color} has too many pieces ({count})")]
    TooManyPieces { color: &'static str, count: u32 },
    #[error("pawn on the first or last rank ({0})")]
    PawnOnBackRank(Square),
    #[error("side to move must be 'w' or 'b', found '{0}'")]
    BadSideToMove(String),
    #[error("bad castling field '{0}'")]
    BadCastling(String),
    #[error("castling right '{right}' but the {what} is not in place")]
    CastlingWithoutPieces { right: char, what: &'static str },
    #[error("bad en-passant field '{0}'")]
    BadEnPassant(String),
    #[error("impossible en-passant square {square}: {why}")]
    ImpossibleEnPassant { square: Square, why: &'static str },
    #[error("the side not to move ({0}) is in check")]
    OpponentInCheck(&'static str),
    #[error("impossible check: the side to move is attacked by {0} pieces")]
    ImpossibleCheck(u32),
    #[error("bad halfmove clock '{0}'")]
    BadHalfmove(String),
    #[error("bad fullmove number '{0}'")]
    BadFullmove(String),
    #[error("unexpected text after the FEN: '{0}'")]
    TrailingText(String),
}

impl Board {
    /// Parses a FEN (or the first four fields of an EPD line). Clocks may be omitted.
    pub fn from_fen(fen: &str) -> Result<Board, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.is_empty() {
            return Err(FenError::Empty);
        }
        if fields.len() > 6 {
            return Err(FenError::TrailingText(fields[6..].join(" ")));
        }
        let mut b = Board::empty();

        // Placement.
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(FenError::WrongRankCount(ranks.len()));
        }
        for (i, rank_str) in ranks.iter().enumerate() {
            let rank = 7 - i;
            let rank_no = rank + 1;
            let mut file = 0usize;
            for ch in rank_str.chars() {
                if let Some(d) = ch.to_digit(10) {
                    if d == 0 || d > 8 {
                        return Err(FenError::BadPieceLetter { ch, rank: rank_no });
                    }
                    file += d as usize;
                } else {
                    let piece = Piece::from_fen_char(ch)
                        .filter(|_| ch.is_ascii())
                        .ok_or(FenError::BadPieceLetter { ch, rank: rank_no })?;
                    if file >= 8 {
                        return Err(FenError::RankTooLong {
                            rank: rank_no,
                            squares: file + 1,
                        });
                    }
                    b.put_piece(piece, Square::from_index((rank * 8 + file) as u8));
                    file += 1;
                }
                if file > 8 {
                    return Err(FenError::RankTooLong {
                        rank: rank_no,
                        squares: file,
                    });
                }
            }
            if file < 8 {
                return Err(FenError::RankTooShort {
                    rank: rank_no,
                    squares: file,
                });
            }
        }
        for c in Color::ALL {
            let kings = b.pieces(c, PieceType::King);
            match kings.count() {
                0 => return Err(FenError::NoKing(c.name())),
                1 => b.king_sq[c.index()] = kings.lsb(),
                _ => return Err(FenError::TooManyKings(c.name())),
            }
            let count = b.color_bb(c).count();
            if count > 16 {
                return Err(FenError::TooManyPieces {
                    color: c.name(),
                    count,
                });
            }
        }
        let back = Bitboard::rank(Rank::R1) | Bitboard::rank(Rank::R8);
        if let Some(sq) = (b.kind_bb(PieceType::Pawn) & back).into_iter().next() {
            return Err(FenError::PawnOnBackRank(sq));
        }

        // Side to move.
        b.side = match fields.get(1).copied().unwrap_or("w") {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => return Err(FenError::BadSideToMove(other.to_string())),
        };

        // Castling.
        let cf = fields.get(2).copied().unwrap_or("-");
        let mut rights = 0u8;
        if cf != "-" {
            for ch in cf.chars() {
                let (bit, color, rook_sq) = match ch {
                    'K' => (CastleRights::WHITE_KING, Color::White, Square::H1),
                    'Q' => (CastleRights::WHITE_QUEEN, Color::White, Square::A1),
                    'k' => (CastleRights::BLACK_KING, Color::Black, Square::H8),
                    'q' => (CastleRights::BLACK_QUEEN, Color::Black, Square::A8),
                    _ => return Err(FenError::BadCastling(cf.to_string())),
                };
                if rights & bit != 0 {
                    return Err(FenError::BadCastling(cf.to_string()));
                }
                let king_home = Square::E1.relative(color);
                if b.piece_at(king_home) != Some(Piece::new(color, PieceType::King)) {
                    return Err(FenError::CastlingWithoutPieces {
                        right: ch,
                        what: "king",
                    });
                }
                if b.piece_at(rook_sq) != Some(Piece::new(color, PieceType::Rook)) {
                    return Err(FenError::CastlingWithoutPieces {
                        right: ch,
                        what: "rook",
                    });
                }
                rights |= bit;
            }
        }
        b.castling = CastleRights(rights);

        // Clocks.
        if let Some(h) = fields.get(4) {
            b.halfmove = h
                .parse::<u16>()
                .ok()
                .filter(|&v| v <= 10_000)
                .ok_or_else(|| FenError::BadHalfmove(h.to_string()))?;
        }
        if let Some(f) = fields.get(5) {
            let v = f
                .parse::<u16>()
                .ok()
                .filter(|&v| v <= 10_000)
                .ok_or_else(|| FenError::BadFullmove(f.to_string()))?;
            b.fullmove = v.max(1);
        }

        // Checks: the side not to move must not be in check; at most two checkers.
        let us = b.side;
        let them = !us;
        if b.is_attacked(b.king_sq[them.index()], us, b.occupied()) {
            return Err(FenError::OpponentInCheck(them.name()));
        }
        b.update_check_info();
        if b.checkers.count() > 2 {
            return Err(FenError::ImpossibleCheck(b.checkers.count()));
        }

        // En passant.
        let ef = fields.get(3).copied().unwrap_or("-");
        if ef != "-" {
            let square = Square::parse(ef).ok_or_else(|| FenError::BadEnPassant(ef.into()))?;
            let expected_rank = match us {
                Color::White => Rank::R6,
                Color::Black => Rank::R3,
            };
            if square.rank() != expected_rank {
                return Err(FenError::ImpossibleEnPassant {
                    square,
                    why: "not on the rank behind a pawn that just moved two squares",
                });
            }
            let pawn_sq = square.try_step(0, -us.sign()).unwrap_or(square);
            let origin = square.try_step(0, us.sign()).unwrap_or(square);
            if b.piece_at(pawn_sq) != Some(Piece::new(them, PieceType::Pawn)) {
                return Err(FenError::ImpossibleEnPassant {
                    square,
                    why: "no pawn that could just have moved two squares",
                });
            }
            if b.piece_at(square).is_some() || b.piece_at(origin).is_some() {
                return Err(FenError::ImpossibleEnPassant {
                    square,
                    why: "the squares the pawn passed are not empty",
                });
            }
            if b.ep_capture_possible(square) {
                b.ep = Some(square);
            }
        }

        b.key = b.compute_key();
        b.pawn_key = b.compute_pawn_key();
        b.non_pawn_keys = b.compute_non_pawn_keys();
        Ok(b)
    }

    /// FEN of the position. The en-passant square is written only when a capture
    /// there is legal.
    pub fn to_fen(&self) -> String {
        let mut s = String::with_capacity(90);
        s.push_str(&placement(&self.mailbox));
        s.push(' ');
        s.push(self.side.char());
        s.push(' ');
        s.push_str(&self.castling.to_fen());
        s.push(' ');
        match self.ep {
            Some(sq) => s.push_str(&sq.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(" {} {}", self.halfmove, self.fullmove));
        s
    }

    /// The key this position would have with the other side to move (used by tests).
    pub fn key_with_side_flipped(&self) -> u64 {
        self.key ^ zobrist::side_key()
    }

    /// A multi-line diagram of the board (White at the bottom), for the console and
    /// debugging.
    pub fn diagram(&self) -> String {
        let mut s = String::new();
        for rank in (0..8).rev() {
            s.push_str(&format!("{} ", rank + 1));
            for file in 0..8 {
                let sq = Square::from_index(rank * 8 + file);
                let c = self.piece_at(sq).map_or('.', |p| p.fen_char());
                s.push(' ');
                s.push(c);
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h\n");
        s
    }
}

/// The first field of a FEN: the pieces of `squares` (a1 = 0 .. h8 = 63), rank 8
/// first.
pub fn placement(squares: &[Option<Piece>; 64]) -> String {
    let mut s = String::with_capacity(72);
    for rank in (0..8).rev() {
        let mut empty = 0u8;
        for file in 0..8 {
            match squares[rank * 8 + file] {
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.fen_char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s
}
