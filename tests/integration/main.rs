//! Integration tests: one binary, so the suite links once. Test data is read from
//! `../shared/data` relative to the repository root.

mod common;

mod chess_differential;
mod chess_fuzz;
mod chess_movegen;
mod chess_notation;
mod chess_perft;
mod chess_pgn;
mod chess_rules;
mod egtb;
mod engine_search;
mod external;
mod fuzz_corpus;

mod session;
mod soak;
mod soak_lichess;

mod annotate;
mod cli;
mod console;
mod console_full;
mod game;
mod options;
mod protocol_fuzz;
mod protocol_uci;
mod protocol_xboard;

mod accounts;
mod book;
mod bot_daemon;
mod bot_policy;
mod bot_talk;
mod daemon;
mod icc;
mod ics_codec;
mod ics_fake_server;
mod ics_parse;
mod ics_real_server;
mod learn;
mod lichess;
mod lichess_fake_server;
mod lichess_measure;
mod web;
mod web_browser;
