//! The opening book: kibitzer's binary book format and its lookup (`bookfile.rs`, the
//! layout documented there), building books from PGN (`book create`, and `books
//! create` for the small steering book with `!`, `?` and `{play nn%}`: `create.rs`),
//! Polyglot books read as an extra source and written on export (`polyglot.rs`),
//! Crafty's own `book.bin` read as an extra source (`crafty.rs`), the choice of a move
//! (`select.rs`: width, `book random`, `bookw` weights). The game controller's book
//! hook that uses them and feeds the game to learning is `game::book_keeper`.
//!
//! Keys are Polyglot's (`key.rs`), so they never change with the engine's own hash
//! keys. It does no searching and no network; a search among book moves (`book random
//! 0`) is asked of the game controller through the hook.

pub mod bookfile;
pub mod crafty;
mod crafty_random;
pub mod create;
pub mod key;
pub mod polyglot;
mod random64;
pub mod select;
pub mod tools;

pub use bookfile::{flags, BookFile, BookKind, MoveStats};
pub use create::{
    create_book, create_book_from_file, CreateOptions, CreateReport, Progress, Skipped,
};
pub use key::{decode_move, encode_move, polyglot_key};
pub use polyglot::PolyglotBook;
pub use select::{Candidate, SelectParams, Selection, Weights};

/// The main book's file name in the book directory.
pub const BOOK_FILE: &str = "book.bin";
/// The steering book's.
pub const STEERING_FILE: &str = "books.bin";
