//! kibitzer: a chess-server bot with its own Crafty-class engine.
//!
//! Layout (dependencies point one way):
//! - `chess`: types, bitboards, attack tables, board, move generation, SEE, FEN,
//!   notation, EPD, PGN, perft.
//! - `eval`: the handcrafted evaluation and its pawn hash.
//! - `nnue`: the learned evaluation (net file, accumulators, SIMD copies), used by
//!   `engine` when `evaluation.net` names a net.
//! - `egtb`: optional Syzygy endgame tables behind a trait (WDL in the search, DTZ at
//!   the root, the verdict for the resign/draw policy); none configured, none probed.
//! - `engine`: search, transposition table, time manager, SMP, `EngineHandle`.
//! - `book`: the opening book (format, `book create`, steering book, Polyglot, move
//!   choice).
//! - `learn`: book, position and result learning, `.lrn` records, crash-safe files.
//! - `game`: the game controller every front end drives (moves, clocks, result,
//!   engine state, book/tables hooks, resign/draw policy); `game::book_keeper` is
//!   the book hook (the books of `book`, learning through `learn`).
//! - `options`: the one option table with layered sources (file < environment <
//!   command line < runtime); UCI options, xboard features and help derive from it.
//! - `format`: Crafty-style analysis text (scores from White, PVs with move numbers).
//! - `protocol`: the console, xboard and UCI front ends over `game` and `options`.
//! - `text`: text files as the commands read them (UTF-8 or Latin-1, binaries
//!   refused) and control characters escaped in messages.
//! - `net`: what every server connection shares (`Secret`, `Backoff`).
//! - `ics`: the FICS-lineage and ICC wire: transport, codec, typed events and
//!   commands rendered by the server's profile, login; no game decisions.
//! - `lichess`: the Lichess BOT API (HTTPS client, ndjson streams, typed events,
//!   the 429 gate); the daemon's `bot::lichess` plays through it.
//! - `settings`: the daemon's layered configuration into the option table.
//! - `bot`: the daemon: accounts as siblings (`bot::ics`, `bot::lichess`, one
//!   adapter each to the game port), one game life for all (`bot::life`), the game
//!   task behind its port (`bot::play`), talk, lists, owners, observing, status.
//! - `svg`: the SVG drawings pages share (board diagram, evaluation graph).
//! - `web`: the daemon's read-only status page, JSON, metrics and health check
//!   (reads the bot's published `Status`; commands nothing).
//! - `tools`: command implementations that are not a front end (perft, perf, test
//!   suites, annotate with its HTML and SVG output, the progress bar).

pub mod book;
pub mod bot;
pub mod chess;
pub mod egtb;
pub mod engine;
pub mod eval;
pub mod external;
pub mod format;
pub mod game;
pub mod ics;
pub mod learn;
pub mod lichess;
pub mod logfile;
pub mod net;
pub mod nnue;
pub mod options;
pub mod protocol;
pub mod settings;
pub mod svg;
pub mod text;
pub mod tools;
pub mod web;
