//! kibitzer: a chess-server bot with its own Crafty-class engine.
//!
//! Layout (dependencies point one way):
//! - `chess`: types, bitboards, attack tables, board, move generation, SEE, FEN,
//!   notation, EPD, PGN, perft.
//! - `eval`: handcrafted tapered evaluation, pawn/king hash, Crafty's knobs, the
//!   `score` breakdown.
//! - `tools`: command implementations that are not a front end (perft, perf).

pub mod chess;
pub mod eval;
pub mod tools;
