//! Commands that are not front ends: `perft`, `perf`, `test` (EPD suites).

pub mod epdtest;
pub mod perft;
