//! Commands that are not front ends: `perft`, `perf`.

pub mod perft;
