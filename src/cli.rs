//! The `kibitzer` binary's command line (clap): the global options, the subcommands
//! and their arguments. `main.rs` runs them.

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "kibitzer",
    version,
    about = "A chess-server bot with its own Crafty-class engine"
)]
pub(crate) struct Cli {
    /// Set an option before starting (`--set hash=256M`, repeatable); `help` at the
    /// console lists them. Environment variables `KIBITZER_<NAME>` set them too, with
    /// lower precedence.
    #[arg(long = "set", short = 'o', value_name = "NAME=VALUE", global = true)]
    pub(crate) set: Vec<String>,
    #[command(flatten)]
    pub(crate) rc: RcArgs,
    /// The daemon logs more: -v debug (with the wire transcript), -vv trace
    /// (records.log_level).
    #[arg(short = 'v', long = "verbose", action = clap::ArgAction::Count, global = true)]
    pub(crate) verbose: u8,
    /// The daemon logs only warnings and errors.
    #[arg(short = 'q', long = "quiet", global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Without a subcommand kibitzer starts the console, which switches to UCI on
    /// `uci` and to xboard on `xboard`/`protover`.
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
}

/// The console's start-up file options (only the console reads a start-up file).
#[derive(clap::Args, Clone, Default)]
pub(crate) struct RcArgs {
    /// The console's start-up file (commands as typed, up to a line `exit`); by
    /// default `.kibitzerrc` in the working directory, else in the home directory.
    #[arg(long, value_name = "FILE")]
    pub(crate) rc: Option<std::path::PathBuf>,
    /// Start the console without a start-up file.
    #[arg(long, conflicts_with = "rc")]
    pub(crate) no_rc: bool,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// The ICS daemon: log in to a chess server and play unattended (alias `ics`).
    #[command(alias = "ics")]
    Daemon {
        /// Configuration file (TOML); default config/kibitzer.toml when it exists.
        #[arg(long, short = 'c', value_name = "FILE", env = "KIBITZER_CONFIG")]
        config: Option<std::path::PathBuf>,
        /// Server host (ics.server).
        #[arg(long)]
        server: Option<String>,
        /// Server port (ics.port).
        #[arg(long)]
        port: Option<u16>,
        /// Login name (ics.handle); `guest` for a guest account.
        #[arg(long)]
        handle: Option<String>,
        /// File whose first line is the password (ics.password_file).
        #[arg(long, value_name = "FILE")]
        password_file: Option<String>,
        /// Print every configuration key with its default and help, then exit.
        #[arg(long)]
        keys: bool,
        /// Check the configuration and exit.
        #[arg(long)]
        check: bool,
    },
    /// The Crafty-style console (the default without a subcommand).
    Console {
        #[command(flatten)]
        rc: RcArgs,
    },
    /// Speak UCI on stdin/stdout.
    Uci,
    /// Speak xboard/CECP v2 on stdin/stdout.
    Xboard,
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
        /// With --suite: deepest depth whose listed count is at most this many nodes
        /// (default: no limit, the deepest listed depth).
        #[arg(long, value_name = "N")]
        max_nodes: Option<u64>,
        /// With --suite: take every n-th position only.
        #[arg(long, default_value_t = 1)]
        every: usize,
    },
    /// Search the bench positions to a fixed depth; prints the node signature.
    Bench {
        /// Depth (default: the depth the committed signature was made with).
        depth: Option<i32>,
        /// Measure speed with this many threads instead (fixed time per position;
        /// node counts then vary from run to run).
        #[arg(long)]
        threads: Option<usize>,
        /// With --threads: milliseconds per position.
        #[arg(long, default_value_t = 2000)]
        movetime: u64,
        /// With --threads: number of positions.
        #[arg(long, default_value_t = 12)]
        positions: usize,
    },
    /// Run a test suite (EPD `bm`/`am`/`id`, or Crafty's title/setboard/solution).
    Test {
        /// Suite file.
        file: std::path::PathBuf,
        /// Seconds per position (default 1).
        st: Option<f64>,
        /// Depth limit instead of time.
        #[arg(long)]
        depth: Option<i32>,
        /// Node limit instead of time.
        #[arg(long)]
        nodes: Option<u64>,
        /// Stop a position early once the solution held this many iterations.
        #[arg(long)]
        early_exit: Option<u32>,
        /// Search threads [default: 1, or `--set threads=N`].
        #[arg(long)]
        threads: Option<usize>,
        /// Hash table size in MB [default: 64, or `--set hash=SIZE`].
        #[arg(long)]
        hash: Option<usize>,
    },
    /// Analyse one position and print each iteration (scores from White's side).
    Analyze {
        /// Position (FEN); the start position if omitted.
        fen: Vec<String>,
        /// Stop after this depth (plies); without --depth and --time the search runs
        /// until interrupted.
        #[arg(long)]
        depth: Option<i32>,
        /// Stop after this many seconds.
        #[arg(long)]
        time: Option<f64>,
        /// Search threads [default: 1, or `--set threads=N`].
        #[arg(long)]
        threads: Option<usize>,
        /// Hash table size in MB [default: 64, or `--set hash=SIZE`].
        #[arg(long)]
        hash: Option<usize>,
    },
    /// Crafty's `perf`: move generations per second and generate+make+unmake per second.
    Perf {
        /// Seconds per measurement.
        #[arg(long, default_value_t = 2.0)]
        seconds: f64,
    },
    /// The opening book: create, export, show, time lookups.
    Book {
        #[command(subcommand)]
        action: BookAction,
    },
    /// The steering book.
    Books {
        #[command(subcommand)]
        action: BooksAction,
    },
    /// The evaluation tuner: extract training positions, fit the weights.
    Tune {
        #[command(subcommand)]
        action: TuneAction,
    },
    /// Training positions for a learned evaluation from self-play (README "datagen").
    Datagen {
        /// Positions the file should hold (a second run on the same file goes on).
        #[arg(long)]
        positions: u64,
        /// Output file (32 bytes a position; appended to).
        #[arg(long)]
        out: std::path::PathBuf,
        #[command(flatten)]
        play: PlayArgs,
        /// Positions scored further from 0 than this (centipawns) are left out.
        #[arg(long, default_value_t = 2000)]
        max_score: i32,
    },
    /// Trains the learned evaluation on datagen's positions (README "train").
    Train(TrainArgs),
    /// Games of the engine against itself at a node budget (tuning data), as PGN.
    Selfplay {
        /// Number of games (openings are played in pairs).
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Output PGN file.
        #[arg(long)]
        out: std::path::PathBuf,
        #[command(flatten)]
        play: PlayArgs,
    },
}

/// `kibitzer train`'s settings.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct TrainArgs {
    /// Training data files (datagen's 32-byte records); more than one may be given.
    #[arg(long, required = true, num_args = 1..)]
    pub(crate) data: Vec<std::path::PathBuf>,
    /// The net file written after every epoch (a checkpoint `<out>.ckpt` beside
    /// it: a second run with the same output goes on from it).
    #[arg(long)]
    pub(crate) out: std::path::PathBuf,
    /// Epochs to reach (counting those of a checkpoint).
    #[arg(long, default_value_t = 20)]
    pub(crate) epochs: usize,
    /// Positions per batch.
    #[arg(long, default_value_t = 16384)]
    pub(crate) batch: usize,
    /// Adam's learning rate (times --lr-drop after --lr-drop-at of the epochs).
    #[arg(long, default_value_t = 0.001)]
    pub(crate) lr: f32,
    #[arg(long, default_value_t = 0.1)]
    pub(crate) lr_drop: f32,
    #[arg(long, default_value_t = 0.75)]
    pub(crate) lr_drop_at: f32,
    /// Weight of the search's score against the game's result (0-1; 1: the score
    /// alone, which measured best on our first data).
    #[arg(long, default_value_t = 1.0)]
    pub(crate) lambda: f32,
    /// The result term's scale in centipawns (sigmoid(net / K) against the
    /// result); without it, fitted on the data where --lambda is below 1.
    #[arg(long)]
    pub(crate) result_scale: Option<f32>,
    /// Threads sharing each batch.
    #[arg(long, default_value_t = 2)]
    pub(crate) threads: usize,
    /// Seed for the first weights and the shuffles.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Train a net to add to the handcrafted evaluation (what it misses) rather
    /// than one to take its place; the net file says which it is.
    #[arg(long, conflicts_with = "on_material")]
    pub(crate) on_handcrafted: bool,
    /// Train a net to add to the handcrafted evaluation's material, piece squares,
    /// pawn structure and tempo (cheap to compute beside the whole evaluation).
    #[arg(long)]
    pub(crate) on_material: bool,
    /// The net file's output layer times this percentage (the trained net's
    /// corrections shrunk; the checkpoint keeps them whole): the same command
    /// with another value rewrites a finished run's net without training.
    #[arg(long, default_value_t = 100)]
    pub(crate) output_scale: u32,
    /// Start from this net's weights rather than random ones (a net of the same
    /// kind: alone, --on-handcrafted or --on-material), e.g. a committed net
    /// trained further on new data; a new run (no checkpoint beside --out).
    #[arg(long)]
    pub(crate) init: Option<std::path::PathBuf>,
}

impl TrainArgs {
    pub(crate) fn options(&self) -> kibitzer::tools::train::TrainOptions {
        kibitzer::tools::train::TrainOptions {
            data: self.data.clone(),
            out: self.out.clone(),
            epochs: self.epochs,
            batch: self.batch,
            lr: self.lr,
            lr_drop: self.lr_drop,
            lr_drop_at: self.lr_drop_at,
            lambda: self.lambda,
            result_scale: self.result_scale,
            output_scale: self.output_scale,
            init: self.init.clone(),
            base: if self.on_handcrafted {
                kibitzer::nnue::Base::Handcrafted
            } else if self.on_material {
                kibitzer::nnue::Base::Material
            } else {
                kibitzer::nnue::Base::Alone
            },
            threads: self.threads,
            seed: self.seed,
            ..Default::default()
        }
    }
}

/// How `selfplay` and `datagen` play their games.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct PlayArgs {
    /// Nodes per move (jittered by +-20 %).
    #[arg(long, default_value_t = 5000)]
    pub(crate) nodes: u64,
    /// Openings PGN (e.g. 8moves_v3.pgn); without it, random plies.
    #[arg(long)]
    pub(crate) openings: Option<std::path::PathBuf>,
    /// Random plies from the start position when no openings file is given.
    #[arg(long, default_value_t = 8)]
    pub(crate) random_plies: usize,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 2)]
    pub(crate) threads: usize,
    /// Seed for openings and budgets.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Hash per game in MB.
    #[arg(long, default_value_t = 16)]
    pub(crate) hash: usize,
    /// The net both sides play with (a file of `kibitzer train`); without it, the
    /// handcrafted evaluation.
    #[arg(long)]
    pub(crate) net: Option<String>,
    /// The net's output layer times this percentage (as `evaluation.netscale`;
    /// 10-200).
    #[arg(long, default_value_t = 100, requires = "net",
          value_parser = clap::value_parser!(i64).range(
              *kibitzer::nnue::SCALE_RANGE.start()..=*kibitzer::nnue::SCALE_RANGE.end()))]
    pub(crate) net_scale: i64,
}

impl PlayArgs {
    /// The games' settings (`games` of them; the net read here).
    pub(crate) fn options(
        &self,
        games: usize,
    ) -> anyhow::Result<kibitzer::tools::selfplay::SelfplayOptions> {
        let net = match &self.net {
            Some(spec) => {
                kibitzer::nnue::Network::cached(spec, self.net_scale).map_err(anyhow::Error::msg)?
            }
            None => None,
        };
        Ok(kibitzer::tools::selfplay::SelfplayOptions {
            games,
            nodes: self.nodes,
            openings: self.openings.clone(),
            random_plies: self.random_plies,
            threads: self.threads,
            seed: self.seed,
            hash_mb: self.hash,
            net,
        })
    }
}

#[derive(Subcommand)]
pub(crate) enum TuneAction {
    /// Quiet training positions from games with results, one `<FEN> | <result>` a line.
    Extract {
        /// PGN files (games without a result are skipped).
        #[arg(required = true)]
        pgn: Vec<std::path::PathBuf>,
        /// Output file.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Plies skipped at the start of each game.
        #[arg(long, default_value_t = 16)]
        skip: usize,
        /// Positions sampled per game at most.
        #[arg(long, default_value_t = 10)]
        per_game: usize,
        /// Sampling seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Fit K, then every weight by Adam; print the error per epoch.
    Run {
        /// Positions files from `tune extract`.
        #[arg(required = true)]
        positions: Vec<std::path::PathBuf>,
        /// Epochs to run (more after a resume).
        #[arg(long, default_value_t = 500)]
        epochs: u64,
        /// Adam's step size in centipawns.
        #[arg(long, default_value_t = 1.0)]
        rate: f64,
        /// Use this K instead of fitting it.
        #[arg(long)]
        k: Option<f64>,
        /// L2 penalty per weight towards its starting value (per centipawn squared).
        #[arg(long, default_value_t = 1e-8)]
        l2: f64,
        /// Checkpoint: resumed from when it exists, saved as the run goes.
        #[arg(long)]
        state: Option<std::path::PathBuf>,
        /// Save the checkpoint every this many epochs.
        #[arg(long, default_value_t = 10)]
        save_every: u64,
        /// Print the error every this many epochs.
        #[arg(long, default_value_t = 10)]
        report_every: u64,
        /// Threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Write the tuned weights to this file (src/eval/weights.rs).
        #[arg(long)]
        write: Option<std::path::PathBuf>,
    },
    /// Write the compiled-in weights in the tuner's layout (e.g. to diff a tuning).
    Write {
        /// Output file.
        out: std::path::PathBuf,
    },
}

#[derive(Subcommand)]
pub(crate) enum BookAction {
    /// Build a book from the first MAXPLY plies of every game of a PGN file.
    Create {
        /// The PGN file of games to read.
        pgn: std::path::PathBuf,
        /// Plies of each game that go into the book.
        maxply: u32,
        /// Drop moves played in fewer games.
        #[arg(default_value_t = 1)]
        minplay: u32,
        /// Drop moves whose wins fall short of this percentage of their losses.
        #[arg(default_value_t = 0)]
        wpct: u32,
        /// The book file to write.
        #[arg(long, value_name = "FILE", default_value = "book.bin")]
        out: std::path::PathBuf,
        /// Memory for counting before sorted runs go to disk, in MB.
        #[arg(long, default_value_t = 256)]
        memory: usize,
    },
    /// Write a book as a Polyglot book.
    Export {
        /// The book to read (a book.bin made by `book create`).
        book: std::path::PathBuf,
        /// The Polyglot book to write.
        out: std::path::PathBuf,
    },
    /// The book moves of a position (the start position if no FEN), with the numbers
    /// the choice uses.
    Show {
        /// The book directory (book.bin, books.bin, learning files).
        dir: std::path::PathBuf,
        /// The position (FEN); the start position if omitted.
        fen: Vec<String>,
        /// A Polyglot book as another source.
        #[arg(long)]
        polyglot: Option<std::path::PathBuf>,
        /// A Crafty book.bin as another source.
        #[arg(long)]
        crafty: Option<std::path::PathBuf>,
    },
    /// Time lookups: every position of the first plies of the games of a PGN file.
    Bench {
        /// The book to time (a book.bin made by `book create`).
        book: std::path::PathBuf,
        /// The PGN file whose positions are looked up.
        pgn: std::path::PathBuf,
        /// Games of the PGN file to read.
        #[arg(long, default_value_t = 2000)]
        games: usize,
        /// Plies of each game to look up.
        #[arg(long, default_value_t = 30)]
        plies: usize,
    },
    /// Test helper: write books and learning files in DIR in a loop until killed.
    #[command(hide = true)]
    Torture { dir: std::path::PathBuf, seed: u64 },
}

#[derive(Subcommand)]
pub(crate) enum BooksAction {
    /// Build the steering book (`!`, `?`, `{play nn%}`) from a PGN file.
    Create {
        /// The PGN file with the steering moves and their marks.
        pgn: std::path::PathBuf,
        /// Plies of each game that go into the book.
        maxply: u32,
        /// The steering book file to write.
        #[arg(long, value_name = "FILE", default_value = "books.bin")]
        out: std::path::PathBuf,
    },
}
