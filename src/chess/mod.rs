//! The chess core: types, bitboards, attack tables, the board with make/unmake and
//! incremental keys, legal move generation, static exchange evaluation, FEN, move
//! notation, EPD and PGN, and perft. No allocation in the hot paths (move generation,
//! make/unmake), no evaluation, no search, no I/O beyond the readers' `BufRead`.

pub mod attacks;
pub mod bitboard;
pub mod board;
pub mod epd;
pub mod fen;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod pgn;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::{Board, START_FEN};
pub use fen::FenError;
pub use movegen::{CheckInfo, GenType};
pub use moves::{Move, MoveList};
pub use notation::MoveError;
pub use types::{CastleRights, Color, File, Piece, PieceType, Rank, Square};
