//! The one option table. Every setting (hash, threads, ponder, level, noise, resign,
//! book width, ...) is declared once in `TABLE` with its type, range, default, help,
//! the front ends that expose it and its UCI name where that differs. UCI `option`
//! lines, xboard `feature option="..."` strings, console `help`, configuration keys and
//! environment variable names are all derived from it.
//!
//! Values are layered by where they came from: `Default < ConfigFile < Environment <
//! CommandLine < Runtime`. A value set from a lower layer never hides one from a higher
//! layer (setting `hash` in the config file after `--set hash=...` on the command line
//! changes nothing visible). Errors name the option, the bad value and what is allowed.
//!
//! This module owns the syntax of values (sizes `64M`, times `2.5`/`1:30`, time
//! controls `40 5 0`/`60/30/sd/30`) and nothing else: applying a value to the engine
//! or a game is the game controller's and the front ends' business. Loading a
//! configuration file (the `config` crate) is `settings`'s, which feeds
//! `set_from(Source::ConfigFile, ...)`; the daemon's keys (`ics.*`, `bot.*`,
//! `records.*`) are declared here like every other option.

use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// Where a value came from; later variants win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    Default = 0,
    ConfigFile = 1,
    Environment = 2,
    CommandLine = 3,
    Runtime = 4,
}

impl Source {
    pub const ALL: [Source; 5] = [
        Source::Default,
        Source::ConfigFile,
        Source::Environment,
        Source::CommandLine,
        Source::Runtime,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Source::Default => "default",
            Source::ConfigFile => "config file",
            Source::Environment => "environment",
            Source::CommandLine => "command line",
            Source::Runtime => "runtime",
        }
    }
}

/// The type of an option, with its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `on`/`off`, `true`/`false`, `1`/`0`, `yes`/`no`.
    Bool,
    /// A whole number in `min..=max`.
    Int { min: i64, max: i64 },
    /// Bytes, written `nnn`, `nnnK`, `nnnM` or `nnnG`; UCI and xboard show megabytes.
    Size { min: u64, max: u64 },
    /// A time, written in seconds (`2.5`) or `mm:ss`; stored in milliseconds.
    Time { max_ms: u64 },
    /// A time control: `level` form `<moves> <minutes|mm:ss> <increment>` or Crafty's
    /// `time` form `60/30/sd/30`, `sd/15`, `sd/2/12`.
    Level,
    /// Free text.
    Str,
    /// One of a fixed list of words.
    Enum(&'static [&'static str]),
    /// An action (UCI `Clear Hash`); it holds no value.
    Button,
}

/// Which front ends show an option (bit set).
pub mod front {
    pub const UCI: u8 = 1;
    pub const XBOARD: u8 = 2;
    pub const CONSOLE: u8 = 4;
    pub const CONFIG: u8 = 8;
    pub const ALL: u8 = UCI | XBOARD | CONSOLE | CONFIG;
    /// Console and configuration only (the protocols have their own commands).
    pub const LOCAL: u8 = CONSOLE | CONFIG;
    /// Everything but UCI (game play settings a UCI GUI manages itself).
    pub const NOT_UCI: u8 = XBOARD | CONSOLE | CONFIG;
}

/// One declared option.
#[derive(Debug)]
pub struct Spec {
    /// Canonical name: console command, configuration key (`evaluation.kscale` is key
    /// `kscale` of table `[evaluation]`), and xboard option name.
    pub name: &'static str,
    /// Other names the console and configuration accept (`mt`, `smpmt`).
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub default: &'static str,
    pub help: &'static str,
    /// `front::*` bits.
    pub fronts: u8,
    /// UCI name where it differs from `name`.
    pub uci_name: Option<&'static str>,
}

impl Spec {
    pub fn uci_name(&self) -> &'static str {
        self.uci_name.unwrap_or(self.name)
    }

    pub fn shown_in(&self, f: u8) -> bool {
        self.fronts & f != 0
    }

    /// The environment variable that sets this option: `KIBITZER_` and the name in
    /// upper case with dots as underscores (`KIBITZER_EVALUATION_KSCALE`).
    pub fn env_var(&self) -> String {
        format!(
            "KIBITZER_{}",
            self.name.to_ascii_uppercase().replace('.', "_")
        )
    }

    /// The configuration key (dots separate tables).
    pub fn config_key(&self) -> &'static str {
        self.name
    }

    /// What values are allowed, in words.
    pub fn expected(&self) -> String {
        match self.kind {
            Kind::Bool => "on or off".into(),
            Kind::Int { min, max } => format!("a whole number in {min}..={max}"),
            Kind::Size { min, max } => {
                format!("a size like 64M or 512K, {}..={}", fmt_size(min), fmt_size(max))
            }
            Kind::Time { max_ms } => format!(
                "seconds (2.5) or mm:ss, at most {} s",
                max_ms / 1000
            ),
            Kind::Level => {
                "a time control: <moves> <minutes or mm:ss> <increment s> (0 moves: whole game), or 60/30/sd/30, sd/15, sd/2/12".into()
            }
            Kind::Str => "any text".into(),
            Kind::Enum(words) => format!("one of {}", words.join(", ")),
            Kind::Button => "no value (an action)".into(),
        }
    }

    fn type_word(&self) -> &'static str {
        match self.kind {
            Kind::Bool => "bool",
            Kind::Int { .. } => "int",
            Kind::Size { .. } => "size",
            Kind::Time { .. } => "time",
            Kind::Level => "level",
            Kind::Str => "string",
            Kind::Enum(_) => "enum",
            Kind::Button => "button",
        }
    }
}

const MB: u64 = 1 << 20;

/// Every option kibitzer has.
pub static TABLE: &[Spec] = &[
    // ----- engine ------------------------------------------------------------------
    Spec {
        name: "hash",
        aliases: &[],
        kind: Kind::Size { min: MB, max: 64 << 30 },
        default: "64M",
        help: "transposition table size (nnnK, nnnM, nnnG); xboard sets it with `memory`",
        fronts: front::UCI | front::LOCAL,
        uci_name: Some("Hash"),
    },
    Spec {
        name: "hashp",
        aliases: &["pawn_hash"],
        kind: Kind::Size { min: MB, max: 1 << 30 },
        default: "1M",
        help: "pawn/king hash size, per search thread",
        fronts: front::ALL,
        uci_name: Some("Pawn Hash"),
    },
    Spec {
        name: "threads",
        aliases: &["mt", "smpmt"],
        kind: Kind::Int { min: 1, max: 512 },
        default: "1",
        help: "search threads (Lazy SMP); xboard sets it with `cores`",
        fronts: front::UCI | front::LOCAL,
        uci_name: Some("Threads"),
    },
    Spec {
        name: "smpmin",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 64 },
        default: "1",
        help: "depth from which helper threads join the search",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "smpmax",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 64 },
        default: "64",
        help: "Crafty's deepest split depth; Lazy SMP threads share no split points, so it has no effect (accepted for Crafty's rc files)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ponder",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "think on the opponent's time; the console also takes `ponder <move>`, xboard uses hard/easy",
        fronts: front::UCI | front::LOCAL,
        uci_name: Some("Ponder"),
    },
    Spec {
        name: "multipv",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 256 },
        default: "1",
        help: "number of principal variations searched and reported",
        fronts: front::ALL,
        uci_name: Some("MultiPV"),
    },
    Spec {
        name: "move_overhead",
        aliases: &["overhead"],
        kind: Kind::Int { min: 0, max: 10_000 },
        default: "50",
        help: "milliseconds kept back on every move for communication lag",
        fronts: front::ALL,
        uci_name: Some("Move Overhead"),
    },
    Spec {
        name: "clear_hash",
        aliases: &[],
        kind: Kind::Button,
        default: "",
        help: "clear the transposition table",
        fronts: front::UCI | front::XBOARD | front::CONSOLE,
        uci_name: Some("Clear Hash"),
    },
    Spec {
        name: "drawscore",
        aliases: &[],
        kind: Kind::Int { min: -1000, max: 1000 },
        default: "0",
        help: "value of a draw for the engine in centipawns (negative avoids draws)",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "extensions.incheck",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1 },
        default: "1",
        help: "check extension, plies",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "extensions.onerep",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1 },
        default: "1",
        help: "one-reply extension, plies",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "extensions.recapture",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1 },
        default: "0",
        help: "recapture extension, plies",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "extensions.pushpp",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1 },
        default: "1",
        help: "passed pawn push extension, plies",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "extensions.mate",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1 },
        default: "0",
        help: "mate threat extension, plies",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "evaluation.asymmetry",
        aliases: &[],
        kind: Kind::Int { min: -100, max: 100 },
        default: "0",
        help: "scale the opponent's king safety by +-% (as seen by the engine)",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "evaluation.bscale",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "100",
        help: "blocked pawns, %",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "evaluation.kscale",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "100",
        help: "king safety, %",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "evaluation.tropism",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "100",
        help: "king tropism, %",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "evaluation.pscale",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "100",
        help: "pawn structure, %",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "evaluation.ppscale",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "100",
        help: "passed pawns, %",
        fronts: front::ALL,
        uci_name: None,
    },
    // ----- time --------------------------------------------------------------------
    Spec {
        name: "level",
        aliases: &[],
        kind: Kind::Level,
        // A 5-minute game with 3 s a move: the first reply at a terminal comes in
        // seconds, as Crafty's does (60 moves in 60 minutes took 48 s for `e4`).
        default: "0 5 3",
        help: "time control: <moves> <minutes> <increment s>; `time 60/30/sd/30` sets it too",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "st",
        aliases: &[],
        kind: Kind::Time { max_ms: 86_400_000 },
        default: "0",
        help: "fixed time per move (seconds or mm:ss; 0 = use the time control)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "sd",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 100 },
        default: "0",
        help: "depth limit in plies, also for pondering (0 = none)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "sn",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1_000_000_000_000_000 },
        default: "0",
        help: "node limit per search (0 = none)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "usage",
        aliases: &[],
        kind: Kind::Int { min: -90, max: 400 },
        default: "0",
        help: "+-% on the computed time per move",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "operator",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 600 },
        default: "0",
        help: "minutes of the clock reserved for the tournament operator, never used",
        fronts: front::ALL,
        uci_name: None,
    },
    // ----- game policy -------------------------------------------------------------
    Spec {
        name: "resign",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 30 },
        default: "9",
        help: "resign when the score stays below -N pawns for resign_count moves (0 = never)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "resign_count",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 20 },
        default: "5",
        help: "moves in a row the score must stay below -resign before resigning",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "mode",
        aliases: &[],
        kind: Kind::Enum(&["normal", "tournament"]),
        default: "normal",
        help: "tournament: obey computer-chess rules (the operator does only what the program asks)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "flag",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "claim a win on time when the opponent's clock has run out (console: checked when the opponent moves)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    // ----- output ------------------------------------------------------------------
    Spec {
        name: "alarm",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "ring the terminal bell when the engine moves",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "noise",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 2_000_000_000 },
        default: "100000",
        help: "print no console analysis (or whisper/kibitz) until this many nodes are searched",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "display.time",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "show both clocks after each engine move",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.changes",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "show new best moves, fail highs (++) and fail lows (--) inside an iteration",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.variation",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "show the principal variation of each finished iteration (N->)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.stats",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "show the summary line (time, nodes, nps) after each search",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.extstats",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "add depth, selective depth and hash use to the summary line",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.movenum",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "move numbers in principal variations (12. ... Nxe4 13. Bxe4)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.moves",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "show each root move as it is searched",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "display.general",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "show informational messages",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "whisper",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 6 },
        default: "0",
        help: "whisper verbosity 0-6 on a chess server: 1 mates, 2 a summary after each move, 3 with the PV, 4 with book moves, 5 every iteration, 6 every PV change",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "kibitz",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 6 },
        default: "0",
        help: "kibitz verbosity 0-6 on a chess server (levels as whisper; in live games of others the bot only whispers)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    // ----- book, tables, learning, logs -----------------------------------------------
    Spec {
        name: "bookpath",
        aliases: &["book_path"],
        kind: Kind::Str,
        default: "",
        help: "directory of book.bin, books.bin and the learning files; empty: no book",
        fronts: front::ALL,
        uci_name: Some("BookPath"),
    },
    Spec {
        name: "ownbook",
        aliases: &["own_book"],
        kind: Kind::Bool,
        default: "on",
        help: "play book moves (`book off` turns the book off)",
        fronts: front::ALL,
        uci_name: Some("OwnBook"),
    },
    Spec {
        name: "book.polyglot",
        aliases: &["polyglot_book"],
        kind: Kind::Str,
        default: "",
        help: "a Polyglot .bin book used as another book source",
        fronts: front::LOCAL | front::XBOARD,
        uci_name: None,
    },
    Spec {
        name: "book.crafty",
        aliases: &["crafty_book"],
        kind: Kind::Str,
        default: "",
        help: "a Crafty book.bin used as another book source (Crafty users keep their books)",
        fronts: front::LOCAL | front::XBOARD,
        uci_name: None,
    },
    Spec {
        name: "book.width",
        aliases: &["book_width", "bookwidth"],
        kind: Kind::Int { min: 1, max: 100 },
        default: "5",
        help: "keep the best N book moves",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "book.random",
        aliases: &["book_random", "bookrandom"],
        kind: Kind::Int { min: 0, max: 4 },
        default: "1",
        help: "book move choice: 0 search the book moves briefly, 1 bookw mix, 2 frequency, 3 win ratio, 4 learned value",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "bookw.freq",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 100 },
        default: "100",
        help: "book ranking weight of how often a move was played, percent (`bookw freq 1.0`)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bookw.ratio",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 100 },
        default: "0",
        help: "book ranking weight of a move's score in the games, percent",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bookw.eval",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 100 },
        default: "0",
        help: "book ranking weight of the static evaluation after a move, percent",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bookw.learn",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 100 },
        default: "50",
        help: "book ranking weight of the learned value, percent",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "egtpath",
        aliases: &["tbpath", "syzygypath"],
        kind: Kind::Str,
        default: "",
        help: "Syzygy table directories separated by ':' (';' on Windows); empty: no tables; xboard sets it with `egtpath syzygy <dir>`, `egtb` reports what was found",
        fronts: front::UCI | front::LOCAL,
        uci_name: Some("SyzygyPath"),
    },
    Spec {
        name: "egtlimit",
        aliases: &["tblimit"],
        kind: Kind::Int { min: 0, max: 7 },
        default: "7",
        help: "probe the tables only in positions with at most this many pieces (0 = never)",
        fronts: front::ALL,
        uci_name: Some("SyzygyProbeLimit"),
    },
    Spec {
        name: "egtdepth",
        aliases: &["tbdepth"],
        kind: Kind::Int { min: 1, max: 100 },
        default: "1",
        help: "remaining depth from which positions with as many pieces as the largest tables are probed in the search",
        fronts: front::ALL,
        uci_name: Some("SyzygyProbeDepth"),
    },
    Spec {
        name: "egtresign",
        aliases: &["tbresign"],
        kind: Kind::Enum(&["never", "easy", "always"]),
        default: "easy",
        help: "resign a table-lost position (when resign is not 0): easy = except against a human in an ending listed in egthard",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "egthard",
        aliases: &["tbhard"],
        kind: Kind::Str,
        default: "KBNvK KQvKR KQvKBB KQvKBN KQvKNN KBBvKN KRBvKR KRNvKR KQPvKQ",
        help: "endings a human may not know how to win (winner first, separated by spaces or commas); egtresign easy plays them out",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "egtdraw",
        aliases: &["tbdraw"],
        kind: Kind::Bool,
        default: "on",
        help: "offer a draw in a table-drawn position (a server draw is offered or claimed by rule, never claimed from tables)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "swindle",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "in a drawn or lost table position against a lower-rated opponent, play the move that leaves the fewest replies keeping their result",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "cache",
        aliases: &["egtcache"],
        kind: Kind::Size { min: 0, max: 1 << 30 },
        default: "0",
        help: "Crafty's table cache; it has no effect: Syzygy tables are memory-mapped and the operating system caches them",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "learn",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 7 },
        default: "7",
        help: "learning bitmask: 1 book, 2 position, 4 result; 0 off",
        fronts: front::ALL,
        uci_name: None,
    },
    Spec {
        name: "learn.trigger",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 3000 },
        default: "33",
        help: "position learning: a score drop of at least this many centipawns from the previous move...",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "learn.cutoff",
        aliases: &[],
        kind: Kind::Int { min: -3000, max: 3000 },
        default: "-200",
        help: "... from a previous score above this one (centipawns) stores the position",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "log",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "per-game log files of what the engine thought (the ICS daemon writes them to records.dir)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    // ----- ICS daemon (config file [ics], [bot], [records]) ---------------------------
    Spec {
        name: "ics.server",
        aliases: &[],
        kind: Kind::Str,
        default: "freechess.org",
        help: "chess server host name",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.port",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 65535 },
        default: "5000",
        help: "chess server port",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.server_type",
        aliases: &[],
        kind: Kind::Enum(&["auto", "fics", "icc", "lasker"]),
        default: "auto",
        help: "server family (auto: by host name; other hosts are treated as lasker/FICS clones); icc speaks ICC's level-2 protocol, tested against a fake ICC only",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.handle",
        aliases: &[],
        kind: Kind::Str,
        default: "guest",
        help: "login name; `guest` logs in as a guest (unrated games only)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.password_file",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "file holding the password (first line); else the environment variable KIBITZER_PASSWORD; never on the command line",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.timeseal",
        aliases: &[],
        kind: Kind::Enum(&["off", "v1", "v2"]),
        default: "v2",
        help: "built-in timeseal: v2 (TIMESEAL2, answers [G] pings), v1 (TIMESTAMP) or off",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.tls",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "connect through TLS (rustls, web PKI roots)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.connect_timeout",
        aliases: &[],
        kind: Kind::Time { max_ms: 600_000 },
        default: "20",
        help: "seconds to wait for the TCP (and TLS) connection",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.login_timeout",
        aliases: &[],
        kind: Kind::Time { max_ms: 600_000 },
        default: "60",
        help: "seconds the login dialogue may take",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.keepalive",
        aliases: &[],
        kind: Kind::Time { max_ms: 86_400_000 },
        default: "1500",
        help: "idle seconds before a harmless keepalive command (servers log idle players out after 60 minutes)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.keepalive_command",
        aliases: &[],
        kind: Kind::Str,
        default: "date",
        help: "the keepalive command",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.dead_link",
        aliases: &[],
        kind: Kind::Time { max_ms: 86_400_000 },
        default: "90",
        help: "seconds without an answer to a keepalive before the link counts as dead",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.reconnect_min",
        aliases: &[],
        kind: Kind::Time { max_ms: 3_600_000 },
        default: "2",
        help: "first reconnect delay in seconds (doubles each failure, with jitter)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.reconnect_max",
        aliases: &[],
        kind: Kind::Time { max_ms: 86_400_000 },
        default: "300",
        help: "longest reconnect delay in seconds",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.interface",
        aliases: &[],
        kind: Kind::Str,
        default: "kibitzer",
        help: "`set interface` text (the version is appended)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.finger",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "finger notes, separated by `|` (at most 10)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "ics.max_line",
        aliases: &[],
        kind: Kind::Int { min: 256, max: 1_048_576 },
        default: "16384",
        help: "longest server line kept in bytes; longer ones are dropped with a warning",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.seeks",
        aliases: &[],
        kind: Kind::Str,
        default: "3 0 u m, 5 2 u m",
        help: "seeks posted after login and after each game, separated by commas (`seek` arguments; m = manual, so challenges pass the formula); empty = none",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.accept",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "accept challenges that pass the formula (off: decline all but our adjourned games)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.rated",
        aliases: &[],
        kind: Kind::Enum(&["both", "rated", "unrated"]),
        default: "both",
        help: "which challenges to accept by rating type",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.min_time",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "1",
        help: "shortest initial time accepted, minutes",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.max_time",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "30",
        help: "longest initial time accepted, minutes",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.min_inc",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "0",
        help: "smallest increment accepted, seconds",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.max_inc",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "20",
        help: "largest increment accepted, seconds",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.min_rating",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 4000 },
        default: "0",
        help: "lowest opponent rating accepted (unrated opponents count as 0)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.max_rating",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 4000 },
        default: "4000",
        help: "highest opponent rating accepted",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.humans",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "accept challenges from humans",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.computers",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "accept challenges from computers (handles with the (C) title)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.max_rematches",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "3",
        help: "games in a row against the same opponent before declining (0 = no limit)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.noplay_file",
        aliases: &[],
        kind: Kind::Str,
        default: "lists/noplay",
        help: "opponents never played, one handle a line; repeat aborters are appended",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.aborts_to_noplay",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 100 },
        default: "3",
        help: "aborted games in a row by the same opponent before adding them to the noplay list (0 = never)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.abort_plies",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 40 },
        default: "2",
        help: "accept an abort request only while fewer than this many plies are played",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.first_move_timeout",
        aliases: &[],
        kind: Kind::Time { max_ms: 3_600_000 },
        default: "60",
        help: "seconds to wait for the opponent's first move before aborting",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.adjourn_on_shutdown",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "on the first SIGTERM, ask the opponent to adjourn (the game is finished if they decline)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.polite",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "say in a tell why a challenge, takeback or adjournment is declined",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.min_overhead",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 10_000 },
        default: "100",
        help: "smallest move overhead in milliseconds (adapts upwards from what the server charges)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.max_overhead",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 30_000 },
        default: "3000",
        help: "largest adaptive move overhead in milliseconds",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.max_faults",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 100 },
        default: "3",
        help: "engine faults (panic, no answer) in one game before resigning it",
        fronts: front::LOCAL,
        uci_name: None,
    },
    // ----- bot behaviour: talk, lists, class policy, owners, observing ---------------
    Spec {
        name: "policy.normal",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "rules for opponents on no list: resign=<pawns> count=<moves> width=<n> random=<0-4> drawscore=<cp> accept=on|off offer=on|off kibitz=<0-6> whisper=<0-6> (a rule left out keeps the global option)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "policy.im",
        aliases: &[],
        kind: Kind::Str,
        default: "resign=6 width=3",
        help: "rules for opponents on lists/IM (see policy.normal)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "policy.gm",
        aliases: &[],
        kind: Kind::Str,
        default: "resign=3 width=3",
        help: "rules for opponents on lists/GM (see policy.normal)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "policy.computer",
        aliases: &[],
        kind: Kind::Str,
        default: "width=2",
        help: "rules for computers: lists/C and handles with the (C) title (see policy.normal)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "policy.special",
        aliases: &[],
        kind: Kind::Str,
        default: "drawscore=-25",
        help: "rules for opponents on lists/S, special scoring: a negative drawscore is contempt (see policy.normal)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "policy.autokibitz",
        aliases: &[],
        kind: Kind::Str,
        default: "kibitz=2",
        help: "talk with opponents on lists/AK: kibitz=<0-6> whisper=<0-6> (only the talk rules count)",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "policy.draw_offer_moves",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 200 },
        default: "10",
        help: "offer a draw at most once every this many of our moves",
        fronts: front::NOT_UCI,
        uci_name: None,
    },
    Spec {
        name: "talk.max_length",
        aliases: &[],
        kind: Kind::Int { min: 40, max: 1000 },
        default: "200",
        help: "longest whisper/kibitz line; longer ones are cut at a word",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "talk.per_minute",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 120 },
        default: "12",
        help: "most whisper/kibitz lines per game in any minute (the rest are dropped: server spam limits)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "talk.greeting",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "said to the opponent when a game starts (empty: nothing)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "talk.farewell",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "said to the opponent when a game ends (empty: nothing)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.lists",
        aliases: &[],
        kind: Kind::Str,
        default: "lists",
        help: "directory of the opponent lists GM, IM, C, AK and S",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.owners",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "registered handles that may command the bot by tell, with a level: \"alice:admin, bob:operator, carol:viewer\"",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.observe",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "games, players or relay handles to observe and analyse: \"12, player:hikaru, relay:ROBOadmin\"",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.observe_slice",
        aliases: &[],
        kind: Kind::Time { max_ms: 3_600_000 },
        default: "10",
        help: "analysis time per observed game before the next one's turn (several games are analysed in turn)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.observe_while_playing",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "keep analysing observed games while playing one (on its own engine threads)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "bot.observe_retry",
        aliases: &[],
        kind: Kind::Time { max_ms: 3_600_000 },
        default: "60",
        help: "how often to look again for a followed player's or relay's next game",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "records.dir",
        aliases: &[],
        kind: Kind::Str,
        default: "records",
        help: "directory for the PGN file, per-game logs and the instance lock",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "records.pgn",
        aliases: &[],
        kind: Kind::Str,
        default: "games.pgn",
        help: "PGN file every game is appended to (in records.dir); empty = none",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "records.pgn_max_mb",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 100_000 },
        default: "64",
        help: "rotate the PGN file past this many megabytes",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "records.pgn_keep",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1000 },
        default: "5",
        help: "rotated PGN files kept",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "records.logs_keep",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 1_000_000 },
        default: "1000",
        help: "per-game engine logs kept (see `log`); older ones are deleted",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "records.log_level",
        aliases: &[],
        kind: Kind::Enum(&["error", "warn", "info", "debug", "trace"]),
        default: "info",
        help: "daemon log level (debug adds the wire transcript); RUST_LOG overrides",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "web.listen",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "address of the daemon's read-only status page and metrics (`127.0.0.1:8088`); empty: off; an address other than loopback needs a token (web.token_file or KIBITZER_WEB_TOKEN)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "web.token_file",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "file holding the status page's access token (first line); else the environment variable KIBITZER_WEB_TOKEN; sent as `Authorization: Bearer <token>` or `?token=<token>`",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "web.max_connections",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 1024 },
        default: "32",
        help: "connections the status page serves at once; more are answered 503 and closed",
        fronts: front::LOCAL,
        uci_name: None,
    },
    // ----- Lichess (config file [lichess]) ------------------------------------------
    Spec {
        name: "ics.enabled",
        aliases: &[],
        kind: Kind::Bool,
        default: "on",
        help: "play on the ICS server of [ics]; off with lichess.enabled for a Lichess-only daemon",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.enabled",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "also play on Lichess with a BOT account (token in lichess.token_file or KIBITZER_LICHESS_TOKEN)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.url",
        aliases: &[],
        kind: Kind::Str,
        default: "https://lichess.org",
        help: "the Lichess server (http:// only for a local test server)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.token_file",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "file holding the Lichess API token (first line, scope bot:play); else the environment variable KIBITZER_LICHESS_TOKEN",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.concurrency",
        aliases: &[],
        kind: Kind::Int { min: 1, max: 8 },
        default: "1",
        help: "Lichess games at once, each with its own engine; more challenges are declined with `later`",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.matchmaking",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "challenge online bots (lichess.challenge_*) while a game slot is free",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.challenge_interval",
        aliases: &[],
        kind: Kind::Time { max_ms: 86_400_000 },
        default: "300",
        help: "seconds between our challenges (at least 10; doubled after each refusal in a row, up to 16 times)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.challenge_tc",
        aliases: &[],
        kind: Kind::Str,
        default: "1+0 3+2",
        help: "time controls offered in turn, minutes+increment (0.5+0, 1+0, 3+2 ...)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.challenge_min_rating",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 4000 },
        default: "0",
        help: "challenge bots rated at least this for the time control",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.challenge_max_rating",
        aliases: &[],
        kind: Kind::Int { min: 0, max: 4000 },
        default: "4000",
        help: "challenge bots rated at most this for the time control",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.challenge_rated",
        aliases: &[],
        kind: Kind::Bool,
        default: "off",
        help: "our challenges are rated",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "lichess.challenge_block",
        aliases: &[],
        kind: Kind::Str,
        default: "",
        help: "bots never challenged (names separated by spaces or commas; the noplay list counts too)",
        fronts: front::LOCAL,
        uci_name: None,
    },
    Spec {
        name: "logpath",
        aliases: &["log_path"],
        kind: Kind::Str,
        default: "",
        help: "directory of the console's log.nnn and game.nnn files; empty: the working directory",
        fronts: front::LOCAL,
        uci_name: None,
    },
];

/// A typed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    /// Bytes.
    Size(u64),
    /// Milliseconds.
    Millis(u64),
    Level(TimeControl),
    Str(String),
    Button,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => f.write_str(if *b { "on" } else { "off" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Size(s) => f.write_str(&fmt_size(*s)),
            Value::Millis(ms) => {
                if ms % 1000 == 0 {
                    write!(f, "{}", ms / 1000)
                } else {
                    write!(f, "{}.{:03}", ms / 1000, ms % 1000)
                }
            }
            Value::Level(tc) => write!(f, "{tc}"),
            Value::Str(s) => f.write_str(s),
            Value::Button => Ok(()),
        }
    }
}

/// Why a value was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    #[error("unknown option '{name}' (`help` lists them)")]
    Unknown { name: String },
    #[error("option {name}: '{value}' is not valid: expected {expected}")]
    Invalid {
        name: String,
        value: String,
        expected: String,
    },
    #[error("option {name}: {value} is out of range: expected {expected}")]
    OutOfRange {
        name: String,
        value: String,
        expected: String,
    },
    #[error("option {name} cannot be set from the {source_name}")]
    NotSettable {
        name: String,
        source_name: &'static str,
    },
}

/// A time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeControl {
    /// Moves per period; 0 = the whole game (sudden death).
    pub moves: u32,
    /// Time per period.
    pub base: Duration,
    /// Fischer increment per move.
    pub inc: Duration,
    /// A secondary control after the first period: (moves, time); moves 0 = sudden
    /// death (`time 60/30/sd/30`).
    pub then: Option<(u32, Duration)>,
}

impl TimeControl {
    /// The moves and time of period `n` (0-based).
    pub fn period(&self, n: u32) -> (u32, Duration) {
        if n == 0 {
            (self.moves, self.base)
        } else {
            self.then.unwrap_or((self.moves, self.base))
        }
    }

    /// Parses the `level` form `<moves> <minutes|mm:ss> <increment s>` (increment
    /// optional) or Crafty's `time` form (`60/30/sd/30`, `sd/15`, `sd/2/12`).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let t = text.trim();
        if t.contains('/') {
            return Self::parse_slashes(t);
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        if !(2..=3).contains(&words.len()) {
            return Err("expected <moves> <minutes or mm:ss> [<increment s>]".into());
        }
        let moves: u32 = words[0]
            .parse()
            .map_err(|_| format!("'{}' is not a number of moves", words[0]))?;
        let base = parse_minutes(words[1])?;
        let inc = match words.get(2) {
            Some(w) => parse_seconds(w)?,
            None => Duration::ZERO,
        };
        if base.is_zero() && inc.is_zero() {
            return Err("a time control needs time or an increment".into());
        }
        Ok(TimeControl {
            moves,
            base,
            inc,
            then: None,
        })
    }

    fn parse_slashes(t: &str) -> Result<TimeControl, String> {
        let parts: Vec<&str> = t.split('/').map(str::trim).collect();
        let moves_of = |w: &str| -> Result<u32, String> {
            if w.eq_ignore_ascii_case("sd") {
                Ok(0)
            } else {
                w.parse()
                    .map_err(|_| format!("'{w}' is not a number of moves or sd"))
            }
        };
        let (moves, base) = (
            moves_of(parts[0])?,
            parse_minutes(parts.get(1).copied().unwrap_or(""))?,
        );
        let mut tc = TimeControl {
            moves,
            base,
            inc: Duration::ZERO,
            then: None,
        };
        match parts.len() {
            2 => {}
            3 if moves == 0 => tc.inc = parse_seconds(parts[2])?,
            3 => tc.then = Some((0, parse_minutes(parts[2])?)),
            4 => tc.then = Some((moves_of(parts[2])?, parse_minutes(parts[3])?)),
            5 => {
                tc.then = Some((moves_of(parts[2])?, parse_minutes(parts[3])?));
                tc.inc = parse_seconds(parts[4])?;
            }
            _ => return Err("expected nmoves/ntime[/nmoves/ntime][/increment]".into()),
        }
        Ok(tc)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mins = |d: Duration| {
            let s = d.as_secs();
            if s % 60 == 0 {
                format!("{}", s / 60)
            } else {
                format!("{}:{:02}", s / 60, s % 60)
            }
        };
        let secs = |d: Duration| {
            let ms = d.as_millis();
            if ms % 1000 == 0 {
                format!("{}", ms / 1000)
            } else {
                format!("{}.{:03}", ms / 1000, ms % 1000)
            }
        };
        match self.then {
            None => write!(f, "{} {} {}", self.moves, mins(self.base), secs(self.inc)),
            Some((m2, b2)) => {
                let mv = |m: u32| {
                    if m == 0 {
                        "sd".to_string()
                    } else {
                        m.to_string()
                    }
                };
                write!(
                    f,
                    "{}/{}/{}/{}",
                    mv(self.moves),
                    mins(self.base),
                    mv(m2),
                    mins(b2)
                )?;
                if !self.inc.is_zero() {
                    write!(f, "/{}", secs(self.inc))?;
                }
                Ok(())
            }
        }
    }
}

/// Minutes (`5`, `0.5`) or `mm:ss`.
fn parse_minutes(w: &str) -> Result<Duration, String> {
    if let Some((m, s)) = w.split_once(':') {
        let m: u64 = m
            .parse()
            .map_err(|_| format!("'{w}' is not minutes or mm:ss"))?;
        let s: u64 = s
            .parse()
            .map_err(|_| format!("'{w}' is not minutes or mm:ss"))?;
        return Ok(Duration::from_secs(m * 60 + s));
    }
    let m: f64 = w
        .parse()
        .map_err(|_| format!("'{w}' is not minutes or mm:ss"))?;
    if !(0.0..=100_000.0).contains(&m) {
        return Err(format!("'{w}' minutes is out of range"));
    }
    Ok(Duration::from_millis((m * 60_000.0).round() as u64))
}

/// Seconds (`2`, `0.5`) or `mm:ss`.
pub fn parse_seconds(w: &str) -> Result<Duration, String> {
    if let Some((m, s)) = w.split_once(':') {
        let m: u64 = m
            .parse()
            .map_err(|_| format!("'{w}' is not seconds or mm:ss"))?;
        let s: f64 = s
            .parse()
            .map_err(|_| format!("'{w}' is not seconds or mm:ss"))?;
        if !(0.0..60.0).contains(&s) {
            return Err(format!("'{w}': seconds must be below 60"));
        }
        return Ok(Duration::from_millis(
            m * 60_000 + (s * 1000.0).round() as u64,
        ));
    }
    let s: f64 = w
        .parse()
        .map_err(|_| format!("'{w}' is not seconds or mm:ss"))?;
    if !(0.0..=10_000_000.0).contains(&s) {
        return Err(format!("'{w}' seconds is out of range"));
    }
    Ok(Duration::from_millis((s * 1000.0).round() as u64))
}

/// `64M`, `512K`, `1G`, or bytes when not a whole number of K.
pub fn fmt_size(b: u64) -> String {
    if b >= 1 << 30 && b % (1 << 30) == 0 {
        format!("{}G", b >> 30)
    } else if b >= MB && b % MB == 0 {
        format!("{}M", b >> 20)
    } else if b % 1024 == 0 && b > 0 {
        format!("{}K", b >> 10)
    } else {
        format!("{b}")
    }
}

/// Parses `nnn`, `nnnK`, `nnnM`, `nnnG` (also `nnnKB`, `nnnMB`); plain numbers are bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_uppercase();
    let t = t.strip_suffix('B').unwrap_or(&t);
    let (digits, mult) = match t.chars().last()? {
        'K' => (&t[..t.len() - 1], 1u64 << 10),
        'M' => (&t[..t.len() - 1], 1 << 20),
        'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(mult)
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// GUIs keep spin values in 32 bits.
fn spin(v: i64) -> i64 {
    v.clamp(i32::MIN as i64, i32::MAX as i64)
}

/// Makes `Move Overhead`, `move-overhead`, `move.overhead` and `MOVE_OVERHEAD` the same.
fn normalize(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            ' ' | '-' | '.' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Finds an option by canonical name, alias or UCI name (any case; spaces, dashes,
/// dots and underscores alike).
pub fn lookup(name: &str) -> Option<&'static Spec> {
    let n = normalize(name);
    TABLE.iter().find(|s| {
        normalize(s.name) == n
            || s.aliases.iter().any(|a| normalize(a) == n)
            || s.uci_name.is_some_and(|u| normalize(u) == n)
    })
}

/// Parses and checks `text` as a value of `spec`.
pub fn parse_value(spec: &Spec, text: &str) -> Result<Value, OptionError> {
    let t = text.trim();
    let invalid = || OptionError::Invalid {
        name: spec.name.to_string(),
        value: t.to_string(),
        expected: spec.expected(),
    };
    let out_of_range = || OptionError::OutOfRange {
        name: spec.name.to_string(),
        value: t.to_string(),
        expected: spec.expected(),
    };
    Ok(match spec.kind {
        Kind::Bool => Value::Bool(parse_bool(t).ok_or_else(invalid)?),
        Kind::Int { min, max } => {
            let v: i64 = t.parse().map_err(|_| invalid())?;
            if !(min..=max).contains(&v) {
                return Err(out_of_range());
            }
            Value::Int(v)
        }
        Kind::Size { min, max } => {
            let v = parse_size(t).ok_or_else(invalid)?;
            if !(min..=max).contains(&v) {
                return Err(out_of_range());
            }
            Value::Size(v)
        }
        Kind::Time { max_ms } => {
            let d = parse_seconds(t).map_err(|_| invalid())?;
            if d.as_millis() as u64 > max_ms {
                return Err(out_of_range());
            }
            Value::Millis(d.as_millis() as u64)
        }
        Kind::Level => Value::Level(TimeControl::parse(t).map_err(|why| OptionError::Invalid {
            name: spec.name.to_string(),
            value: t.to_string(),
            expected: format!("{} ({why})", spec.expected()),
        })?),
        Kind::Str => Value::Str(t.to_string()),
        Kind::Enum(words) => {
            let w = words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(t))
                .ok_or_else(invalid)?;
            Value::Str(w.to_string())
        }
        Kind::Button => Value::Button,
    })
}

/// The layered option store.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per option (index into `TABLE`), the value set by each source.
    layers: Vec<[Option<Value>; 5]>,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// Every option at its default.
    pub fn new() -> Options {
        let layers = TABLE
            .iter()
            .map(|spec| {
                let mut l: [Option<Value>; 5] = Default::default();
                l[Source::Default as usize] =
                    Some(parse_value(spec, spec.default).expect("defaults in TABLE are valid"));
                l
            })
            .collect();
        Options { layers }
    }

    fn index(name: &str) -> Result<usize, OptionError> {
        let spec = lookup(name).ok_or_else(|| OptionError::Unknown {
            name: name.trim().to_string(),
        })?;
        Ok(TABLE
            .iter()
            .position(|s| std::ptr::eq(s, spec))
            .expect("lookup returns a TABLE entry"))
    }

    /// Sets `name` from `source`. A value from a lower layer is stored but stays hidden
    /// while a higher layer has one. Buttons are accepted (and store nothing) only at
    /// run time; the caller performs the action.
    pub fn set_from(
        &mut self,
        source: Source,
        name: &str,
        value: &str,
    ) -> Result<&'static Spec, OptionError> {
        let i = Self::index(name)?;
        let spec = &TABLE[i];
        if spec.kind == Kind::Button {
            if source != Source::Runtime {
                return Err(OptionError::NotSettable {
                    name: spec.name.to_string(),
                    source_name: source.name(),
                });
            }
            return Ok(spec);
        }
        if source == Source::Default {
            return Err(OptionError::NotSettable {
                name: spec.name.to_string(),
                source_name: source.name(),
            });
        }
        let v = parse_value(spec, value)?;
        self.layers[i][source as usize] = Some(v);
        Ok(spec)
    }

    /// Shorthand for `set_from(Source::Runtime, ...)`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<&'static Spec, OptionError> {
        self.set_from(Source::Runtime, name, value)
    }

    /// Forgets what `source` set for `name` (a lower layer shows through again).
    pub fn unset(&mut self, source: Source, name: &str) -> Result<(), OptionError> {
        let i = Self::index(name)?;
        if source != Source::Default {
            self.layers[i][source as usize] = None;
        }
        Ok(())
    }

    /// The effective value and where it came from.
    pub fn value_with_source(&self, name: &str) -> Option<(&Value, Source)> {
        let i = Self::index(name).ok()?;
        Source::ALL
            .iter()
            .rev()
            .find_map(|&s| self.layers[i][s as usize].as_ref().map(|v| (v, s)))
    }

    pub fn value(&self, name: &str) -> Option<&Value> {
        self.value_with_source(name).map(|(v, _)| v)
    }

    pub fn source(&self, name: &str) -> Option<Source> {
        self.value_with_source(name).map(|(_, s)| s)
    }

    /// The effective value as text (`64M`, `on`, `0 5 3`).
    pub fn text(&self, name: &str) -> String {
        self.value(name).map(|v| v.to_string()).unwrap_or_default()
    }

    fn must(&self, name: &str) -> &Value {
        self.value(name)
            .unwrap_or_else(|| panic!("option '{name}' is not declared in options::TABLE"))
    }

    pub fn bool(&self, name: &str) -> bool {
        matches!(self.must(name), Value::Bool(true))
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.must(name) {
            Value::Int(i) => *i,
            Value::Size(s) => *s as i64,
            Value::Millis(m) => *m as i64,
            Value::Bool(b) => *b as i64,
            _ => 0,
        }
    }

    /// A size option in bytes.
    pub fn size(&self, name: &str) -> usize {
        match self.must(name) {
            Value::Size(s) => *s as usize,
            v => panic!("option '{name}' is not a size: {v:?}"),
        }
    }

    /// A time option (`st`), or an int option taken as milliseconds.
    pub fn duration(&self, name: &str) -> Duration {
        match self.must(name) {
            Value::Millis(m) => Duration::from_millis(*m),
            Value::Int(i) => Duration::from_millis((*i).max(0) as u64),
            v => panic!("option '{name}' is not a time: {v:?}"),
        }
    }

    pub fn str(&self, name: &str) -> &str {
        match self.must(name) {
            Value::Str(s) => s,
            _ => "",
        }
    }

    pub fn level(&self) -> TimeControl {
        match self.must("level") {
            Value::Level(tc) => *tc,
            v => panic!("level is not a time control: {v:?}"),
        }
    }

    /// Sets every option found among `vars` (`KIBITZER_HASH=256M`...) from the
    /// environment layer; returns the errors (unknown names are errors too).
    pub fn load_env<I, K, V>(&mut self, vars: I) -> Vec<OptionError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut errors = Vec::new();
        for (k, v) in vars {
            let Some(name) = k.as_ref().strip_prefix("KIBITZER_") else {
                continue;
            };
            if let Err(e) = self.set_from(Source::Environment, name, v.as_ref()) {
                errors.push(e);
            }
        }
        errors
    }

    /// Sets `name=value` pairs (or `name value`) from one source, e.g. the command
    /// line's `--set` flags; returns the errors.
    pub fn load_pairs<'a>(
        &mut self,
        source: Source,
        pairs: impl IntoIterator<Item = &'a str>,
    ) -> Vec<OptionError> {
        let mut errors = Vec::new();
        for p in pairs {
            let (k, v) = p
                .split_once('=')
                .or_else(|| p.trim().split_once(' '))
                .unwrap_or((p, ""));
            if let Err(e) = self.set_from(source, k.trim(), v.trim()) {
                errors.push(e);
            }
        }
        errors
    }

    // ----- derived listings ---------------------------------------------------------

    /// UCI `option name ... type ...` lines, in table order.
    pub fn uci_lines(&self) -> Vec<String> {
        TABLE
            .iter()
            .filter(|s| s.shown_in(front::UCI))
            .map(|s| {
                let name = s.uci_name();
                let cur = self.value(s.name).expect("declared");
                match s.kind {
                    Kind::Bool => format!(
                        "option name {name} type check default {}",
                        cur == &Value::Bool(true)
                    ),
                    Kind::Int { min, max } => format!(
                        "option name {name} type spin default {cur} min {} max {}",
                        spin(min),
                        spin(max)
                    ),
                    Kind::Size { min, max } => format!(
                        "option name {name} type spin default {} min {} max {}",
                        self.size(s.name) >> 20,
                        min >> 20,
                        max >> 20
                    ),
                    Kind::Time { max_ms } => format!(
                        "option name {name} type spin default {} min 0 max {max_ms}",
                        self.duration(s.name).as_millis()
                    ),
                    Kind::Enum(words) => {
                        let vars: Vec<String> = words.iter().map(|w| format!("var {w}")).collect();
                        format!(
                            "option name {name} type combo default {cur} {}",
                            vars.join(" ")
                        )
                    }
                    Kind::Str | Kind::Level => {
                        let t = cur.to_string();
                        format!(
                            "option name {name} type string default {}",
                            if t.is_empty() { "<empty>".into() } else { t }
                        )
                    }
                    Kind::Button => format!("option name {name} type button"),
                }
            })
            .collect()
    }

    /// Sets an option the way UCI's `setoption` gives it (sizes in megabytes, times
    /// in milliseconds, `<empty>` for an empty string).
    pub fn set_uci(&mut self, name: &str, value: &str) -> Result<&'static Spec, OptionError> {
        let spec = lookup(name).ok_or_else(|| OptionError::Unknown {
            name: name.trim().to_string(),
        })?;
        let v = value.trim();
        let text = match spec.kind {
            Kind::Size { .. } if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) => {
                format!("{v}M")
            }
            Kind::Time { .. } => match v.parse::<u64>() {
                Ok(ms) => format!("{}.{:03}", ms / 1000, ms % 1000),
                Err(_) => v.to_string(),
            },
            Kind::Str if v == "<empty>" => String::new(),
            _ => v.to_string(),
        };
        self.set_from(Source::Runtime, spec.name, &text)
    }

    /// xboard `feature option="..."` values (without the `feature option=` wrapper).
    pub fn xboard_options(&self) -> Vec<String> {
        TABLE
            .iter()
            .filter(|s| s.shown_in(front::XBOARD))
            .map(|s| {
                let name = s.name;
                let cur = self.value(s.name).expect("declared");
                match s.kind {
                    Kind::Bool => format!("{name} -check {}", (cur == &Value::Bool(true)) as u8),
                    Kind::Int { min, max } => {
                        format!("{name} -spin {cur} {} {}", spin(min), spin(max))
                    }
                    Kind::Size { min, max } => format!(
                        "{name} -spin {} {} {}",
                        self.size(s.name) >> 20,
                        min >> 20,
                        max >> 20
                    ),
                    Kind::Time { max_ms } => {
                        format!(
                            "{name} -spin {} 0 {max_ms}",
                            self.duration(s.name).as_millis()
                        )
                    }
                    Kind::Enum(words) => {
                        let vals: Vec<String> = words
                            .iter()
                            .map(|w| {
                                if cur.to_string() == *w {
                                    format!("*{w}")
                                } else {
                                    w.to_string()
                                }
                            })
                            .collect();
                        format!("{name} -combo {}", vals.join(" /// "))
                    }
                    Kind::Str | Kind::Level => format!("{name} -string {cur}"),
                    Kind::Button => format!("{name} -button"),
                }
            })
            .collect()
    }

    /// Sets an option the way xboard's `option NAME=VALUE` gives it (sizes in
    /// megabytes, checks as 0/1).
    pub fn set_xboard(&mut self, name: &str, value: &str) -> Result<&'static Spec, OptionError> {
        // xboard shows the same units as UCI.
        self.set_uci(name, value)
    }

    /// The console's `help` listing of every option: name (aliases), type, current
    /// value, where it came from, help.
    pub fn help_lines(&self) -> Vec<String> {
        TABLE
            .iter()
            .filter(|s| s.shown_in(front::CONSOLE))
            .map(|s| self.describe(s))
            .collect()
    }

    /// One option in a line.
    pub fn describe(&self, s: &Spec) -> String {
        let names = if s.aliases.is_empty() {
            s.name.to_string()
        } else {
            format!("{} ({})", s.name, s.aliases.join(", "))
        };
        let cur = match self.value_with_source(s.name) {
            Some((Value::Button, _)) => String::new(),
            Some((v, src)) => format!(" = {v} [{}]", src.name()),
            None => String::new(),
        };
        format!(
            "{names:<24} {:<6}{cur}  {}; {}",
            s.type_word(),
            s.help,
            s.expected()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_names_are_unique() {
        let o = Options::new();
        for s in TABLE {
            // Every spelling finds this option and no other.
            for n in std::iter::once(s.name)
                .chain(s.aliases.iter().copied())
                .chain(s.uci_name)
            {
                assert!(
                    std::ptr::eq(lookup(n).unwrap(), s),
                    "{n} finds another option"
                );
            }
            assert!(o.value(s.name).is_some());
        }
    }

    #[test]
    fn layers_never_let_a_lower_source_win() {
        let mut o = Options::new();
        o.set_from(Source::CommandLine, "hash", "128M").unwrap();
        o.set_from(Source::ConfigFile, "hash", "16M").unwrap();
        assert_eq!(o.size("hash"), 128 << 20);
        assert_eq!(o.source("hash"), Some(Source::CommandLine));
        o.set("hash", "32M").unwrap();
        assert_eq!(o.size("hash"), 32 << 20);
        o.unset(Source::Runtime, "hash").unwrap();
        o.unset(Source::CommandLine, "hash").unwrap();
        assert_eq!(o.size("hash"), 16 << 20);
        assert_eq!(o.source("hash"), Some(Source::ConfigFile));
    }

    #[test]
    fn errors_name_option_value_and_range() {
        let mut o = Options::new();
        let e = o.set("threads", "1000").unwrap_err().to_string();
        assert!(
            e.contains("threads") && e.contains("1000") && e.contains("1..=512"),
            "{e}"
        );
        let e = o.set("hash", "lots").unwrap_err().to_string();
        assert!(
            e.contains("hash") && e.contains("lots") && e.contains("64M"),
            "{e}"
        );
        let e = o.set("nosuch", "1").unwrap_err().to_string();
        assert!(e.contains("nosuch"), "{e}");
        assert!(o.set_from(Source::ConfigFile, "clear_hash", "").is_err());
    }

    #[test]
    fn aliases_and_spellings() {
        let mut o = Options::new();
        o.set("mt", "3").unwrap();
        assert_eq!(o.int("threads"), 3);
        o.set("Move Overhead", "100").unwrap();
        assert_eq!(o.int("move_overhead"), 100);
        o.set("evaluation_kscale", "120").unwrap();
        assert_eq!(o.int("evaluation.kscale"), 120);
        o.set_uci("Hash", "16").unwrap();
        assert_eq!(o.size("hash"), 16 << 20);
    }

    #[test]
    fn time_controls() {
        let tc = TimeControl::parse("40 5 0").unwrap();
        assert_eq!(
            (tc.moves, tc.base, tc.inc),
            (40, Duration::from_secs(300), Duration::ZERO)
        );
        let tc = TimeControl::parse("0 0:30 0.5").unwrap();
        assert_eq!(
            (tc.moves, tc.base, tc.inc),
            (0, Duration::from_secs(30), Duration::from_millis(500))
        );
        let tc = TimeControl::parse("60/30/sd/30").unwrap();
        assert_eq!(tc.then, Some((0, Duration::from_secs(1800))));
        assert_eq!(tc.to_string(), "60/30/sd/30");
        let tc = TimeControl::parse("sd/2/12").unwrap();
        assert_eq!((tc.moves, tc.inc), (0, Duration::from_secs(12)));
        assert!(TimeControl::parse("40").is_err());
        assert!(TimeControl::parse("x 5 0").is_err());
        assert_eq!(TimeControl::parse("40 5 0").unwrap().to_string(), "40 5 0");
    }

    #[test]
    fn env_and_pairs() {
        let mut o = Options::new();
        let errs = o.load_env([
            ("KIBITZER_HASH", "8M"),
            ("PATH", "/bin"),
            ("KIBITZER_EVALUATION_KSCALE", "90"),
        ]);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(o.size("hash"), 8 << 20);
        assert_eq!(o.int("evaluation.kscale"), 90);
        let errs = o.load_pairs(Source::CommandLine, ["threads=2", "bogus=1"]);
        assert_eq!(errs.len(), 1);
        assert_eq!(o.int("threads"), 2);
    }
}
