//! The `kibitzer` binary: a thin clap layer over the library.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use kibitzer::chess::Board;
use std::io::{BufReader, Write};

#[derive(Parser)]
#[command(
    name = "kibitzer",
    version,
    about = "A chess-server bot with its own Crafty-class engine"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree (bulk counting at the last ply).
    Perft {
        /// Depth in plies.
        depth: Option<u32>,
        /// Position (FEN); the start position if omitted.
        fen: Vec<String>,
        /// Print the node count under each root move.
        #[arg(long)]
        divide: bool,
        /// Run every position of an EPD perft suite (`;D5 4865609` fields) instead.
        #[arg(long, value_name = "EPD")]
        suite: Option<std::path::PathBuf>,
        /// With --suite: deepest depth whose listed count is at most this many nodes.
        #[arg(long, default_value_t = u64::MAX)]
        max_nodes: u64,
        /// With --suite: take every n-th position only.
        #[arg(long, default_value_t = 1)]
        every: usize,
    },
    /// Crafty's `perf`: move generations per second and generate+make+unmake per second.
    Perf {
        /// Seconds per measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match cli.command {
        Command::Perft {
            depth,
            fen,
            divide,
            suite,
            max_nodes,
            every,
        } => {
            if let Some(path) = suite {
                let f = std::fs::File::open(&path)
                    .with_context(|| format!("cannot open {}", path.display()))?;
                let results = kibitzer::tools::perft::run_suite(
                    BufReader::new(f),
                    max_nodes,
                    every,
                    &mut out,
                )?;
                if results.iter().any(|r| r.got != r.expected) {
                    std::process::exit(1);
                }
                return Ok(());
            }
            let depth = depth.context("perft needs a depth (or --suite <file>)")?;
            let mut board = if fen.is_empty() {
                Board::startpos()
            } else {
                let text = fen.join(" ");
                Board::from_fen(&text).with_context(|| format!("bad FEN '{text}'"))?
            };
            kibitzer::tools::perft::run_perft(&mut board, depth, divide, &mut out)?;
        }
        Command::Perf { seconds } => {
            kibitzer::tools::perft::run_perf(seconds, &mut out)?;
        }
    }
    out.flush()?;
    Ok(())
}
