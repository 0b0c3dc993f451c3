//! Position keys and move codes of the book files.
//!
//! Every book kibitzer writes or reads is keyed by the Polyglot Zobrist key: the
//! published Random64 constants (`random64.rs`), so our books do not change when the
//! engine's own hash keys do, and Polyglot books and ours share one lookup. Polyglot's
//! en-passant rule applies: the en-passant file is hashed only when a pawn of the side
//! to move stands next to the double-pushed pawn (whether the capture is legal does not
//! matter).
//!
//! Book move code (16 bits, ours): bits 0-5 from square, 6-11 to square (a1 = 0, h8 =
//! 63), 12-14 promotion piece (0 none, 1 knight, 2 bishop, 3 rook, 4 queen), bit 15 set
//! for castling, whose to-square is the king's destination (`e1g1`). Polyglot's own
//! move code is converted on the way in and out (`polyglot.rs`).

use super::random64::RANDOM64;
use crate::chess::attacks::pawn_attacks;
use crate::chess::{Board, Color, Move, PieceType, Square};

const CASTLE_BASE: usize = 768;
const EP_BASE: usize = 772;
const TURN: usize = 780;

/// The Polyglot key of a position.
pub fn polyglot_key(board: &Board) -> u64 {
    let mut key = 0u64;
    for color in Color::ALL {
        for kind in PieceType::ALL {
            // Polyglot's piece order: black pawn, white pawn, black knight, ...
            let pk = 2 * kind.index() + usize::from(color == Color::White);
            for sq in board.pieces(color, kind) {
                key ^= RANDOM64[64 * pk + sq.index()];
            }
        }
    }
    let c = board.castling();
    for (i, bit) in [1u8, 2, 4, 8].into_iter().enumerate() {
        // Ours: 1 = white king side, 2 = white queen side, 4/8 black; Polyglot's
        // order is the same.
        if c.has(bit) {
            key ^= RANDOM64[CASTLE_BASE + i];
        }
    }
    if let Some(ep) = polyglot_ep_square(board) {
        key ^= RANDOM64[EP_BASE + ep.file().index()];
    }
    if board.side_to_move() == Color::White {
        key ^= RANDOM64[TURN];
    }
    key
}

/// The en-passant square as Polyglot hashes it: the square behind a pawn that has
/// just been pushed two squares, when a pawn of the side to move could capture it.
/// Our board keeps the square only when the capture is legal; the last move recovers
/// it otherwise (a position set up from a FEN whose only en-passant capture is illegal
/// is the one case where the keys can differ from Polyglot's).
fn polyglot_ep_square(board: &Board) -> Option<Square> {
    let ep = board.ep_square().or_else(|| {
        let m = board.last_move()?;
        if !m.is_double_push() {
            return None;
        }
        Some(Square::from_index((m.from() as u8 + m.to() as u8) / 2))
    })?;
    let us = board.side_to_move();
    // Squares from which a pawn of ours attacks `ep`: the pawn attacks of the other
    // colour from `ep`.
    let capturers = pawn_attacks(!us, ep) & board.pieces(us, PieceType::Pawn);
    capturers.not_empty().then_some(ep)
}

/// Castling flag of a book move code.
pub const CASTLE_FLAG: u16 = 1 << 15;

/// The book code of a move (see the module comment).
pub fn encode_move(m: Move) -> u16 {
    let promo = match m.promotion_piece() {
        Some(PieceType::Knight) => 1,
        Some(PieceType::Bishop) => 2,
        Some(PieceType::Rook) => 3,
        Some(PieceType::Queen) => 4,
        _ => 0,
    };
    let castle = if m.is_castle() { CASTLE_FLAG } else { 0 };
    m.from() as u16 | (m.to() as u16) << 6 | promo << 12 | castle
}

/// The legal move of `board` with this book code, if any.
pub fn decode_move(board: &Board, code: u16) -> Option<Move> {
    board
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| encode_move(m) == code)
}

/// The code in coordinate notation without a board (`e2e4`, `e7e8q`; castling as
/// the king's move, `e1g1`).
pub fn code_to_uci(code: u16) -> String {
    let from = Square::from_index((code & 63) as u8);
    let to = Square::from_index(((code >> 6) & 63) as u8);
    let promo = match (code >> 12) & 7 {
        1 => "n",
        2 => "b",
        3 => "r",
        4 => "q",
        _ => "",
    };
    format!("{from}{to}{promo}")
}

#[cfg(test)]
mod tests {
    use super::*;

    // Keys from the Polyglot specification's test positions.
    #[test]
    fn keys_of_the_specification_positions() {
        let cases = [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0x463b96181691fc9c,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                0x823c9b50fd114196,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
                0x0756b94461c50fb0,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
                0x662fafb965db29d4,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22a48b5a8e47ff78,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3",
                0x652a607ca3f242c1,
            ),
            (
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4",
                0x00fdd303c946bdd9,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                0x3c8123ea7b067637,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
                0x5c3f9b829b279560,
            ),
        ];
        for (fen, want) in cases {
            let b = Board::from_fen(fen).unwrap();
            assert_eq!(polyglot_key(&b), want, "{fen}");
        }
    }

    #[test]
    fn move_codes_round_trip() {
        let b = Board::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        for &m in b.legal_moves().iter() {
            assert_eq!(decode_move(&b, encode_move(m)), Some(m));
        }
        let castle = b.parse_move("O-O").unwrap();
        assert_eq!(code_to_uci(encode_move(castle)), "e1g1");
        assert_ne!(encode_move(castle) & CASTLE_FLAG, 0);
    }
}
