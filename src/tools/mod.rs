//! Commands that are not front ends: `perft`, `perf`, `test` (EPD suites),
//! `annotate` (text and HTML), and the progress bar they share.

pub mod annotate;
pub mod datagen;
pub mod epdtest;
pub mod perft;
pub mod progress;
pub mod selfplay;
pub mod train;
pub mod tune;
