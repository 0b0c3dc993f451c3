//! The console's command table: every command's names, argument syntax, help and
//! handler (or the option it sets), in the order Crafty's manual lists them. `help`,
//! the usage in error lines and dispatch all come from it.

use super::*;

/// One console command: its names (the first is the one `help` shows first), the
/// syntax of its arguments (empty: it takes none), its help, and the option it sets
/// when it is a setting.
pub struct Command {
    pub names: &'static [&'static str],
    pub args: &'static str,
    pub help: &'static str,
    pub option: Option<&'static str>,
    pub(super) run: Handler,
}

impl Command {
    pub fn name(&self) -> &'static str {
        self.names[0]
    }

    /// `smpmt|mt <threads>`.
    pub fn usage(&self) -> String {
        let names = self.names.join("|");
        if self.args.is_empty() {
            names
        } else {
            format!("{names} {}", self.args)
        }
    }

    pub fn takes_args(&self) -> bool {
        !self.args.is_empty()
    }
}

const fn cmd(
    names: &'static [&'static str],
    args: &'static str,
    help: &'static str,
    run: Handler,
) -> Command {
    Command {
        names,
        args,
        help,
        option: None,
        run,
    }
}

const fn opt(
    names: &'static [&'static str],
    args: &'static str,
    option: &'static str,
    help: &'static str,
) -> Command {
    Command {
        names,
        args,
        help,
        option: Some(option),
        run: cmd_option,
    }
}

/// Every console command, alphabetically as Crafty's manual lists them.
pub static COMMANDS: &[Command] = &[
    cmd(&["?"], "", "move now (while the engine thinks on its move)", cmd_move_now),
    opt(&["alarm"], "on|off", "alarm", "ring the terminal bell when the engine moves"),
    cmd(
        &["analyze", "analyse"],
        "",
        "analyse the position without end; moves and `back` restart it, `exit` leaves",
        cmd_analyze,
    ),
    cmd(
        &["annotate"],
        crate::tools::annotate::USAGE,
        "annotate the games of a PGN file into <file>.can: a comment where the best move beats the played one by more than margin pawns (negative: every move); moves given as (move) or {move} are searched too",
        cmd_annotate,
    ),
    cmd(
        &["annotateh"],
        crate::tools::annotate::USAGE,
        "as annotate, and also <file>.html: an SVG board for every comment (played move and better move as arrows) and an evaluation graph",
        cmd_annotate,
    ),
    cmd(&["ansi"], "on|off", "show the engine's moves in bold (ANSI terminals)", cmd_ansi),
    cmd(&["back"], "[<plies>]", "take back plies (default 1); restarts analysis", cmd_back),
    cmd(
        &["black"],
        "",
        "Black to move in this position; the engine plays White",
        cmd_side,
    ),
    cmd(
        &["book"],
        "create <pgn> <maxply> [minplay] [wpct] | width <n> | random <0-4> | on | off | polyglot <file> | crafty <file> | export <file>",
        "build or configure the opening book; alone: what is loaded",
        cmd_book,
    ),
    Command {
        names: &["bookpath"],
        args: "<dir>",
        help: "directory of book.bin, books.bin and the learning files",
        option: Some("bookpath"),
        run: cmd_path,
    },
    cmd(
        &["books"],
        "create <pgn> <maxply>",
        "build the steering book books.bin (!, ?, {play nn%})",
        cmd_books,
    ),
    cmd(
        &["bookw"],
        "freq|ratio|eval|learn <0..1>",
        "weights of the book move ranking",
        cmd_bookw,
    ),
    opt(
        &["cache"],
        "<size>",
        "cache",
        "endgame table cache (nK, nM): no effect, the Syzygy tables are memory-mapped",
    ),
    cmd(
        &["clock"],
        "<engine minutes|h:mm> <opponent minutes|h:mm>",
        "set the time left of the engine and of its opponent (next search)",
        cmd_clock,
    ),
    cmd(
        &["computer"],
        "",
        "the opponent is a computer (book choice, lists)",
        cmd_computer,
    ),
    cmd(
        &["display"],
        "[<flag>|no<flag>|pawn|knight|bishop|rook|queen|king]",
        "show the board; turn an output flag on or off (time, changes, variation, stats, extstats, movenum, moves, general); or show a piece's square values",
        cmd_display,
    ),
    cmd(
        &["draw"],
        "",
        "offer a draw (accepted when the engine's score is not above the draw score) or accept the engine's offer",
        cmd_draw,
    ),
    opt(
        &["drawscore"],
        "<centipawns>",
        "drawscore",
        "value of a draw for the engine (negative avoids draws)",
    ),
    cmd(&["echo"], "<text>", "print the text", cmd_echo),
    cmd(
        &["edit"],
        "[tokens]",
        "board editor: # clears, qa3 puts a queen of the current colour on a3, c switches to Black, . leaves",
        cmd_edit,
    ),
    cmd(
        &["egtb"],
        "",
        "look for endgame tables on tbpath and report the largest class found (probing belongs to the tables)",
        cmd_egtb,
    ),
    cmd(
        &["end", "quit"],
        "",
        "leave kibitzer (a logged game can be resumed with `read game.nnn`)",
        cmd_quit,
    ),
    cmd(
        &["evaluation"],
        "[asymmetry|bscale|kscale|tropism|pscale|ppscale <value>]",
        "show or set the evaluation knobs (and the king safety table)",
        cmd_group,
    ),
    cmd(
        &["exit"],
        "",
        "leave analysis (in a start-up or input file: end of the file)",
        cmd_exit,
    ),
    cmd(
        &["extensions"],
        "[incheck|onerep|pushpp|recapture|mate <0|1>]",
        "show or set the search extensions (plies)",
        cmd_group,
    ),
    opt(
        &["flag"],
        "on|off",
        "flag",
        "claim a win on time when the opponent's clock has run out",
    ),
    cmd(
        &["force"],
        "[<move>]",
        "with a move: take back the engine's last move and play this one instead; alone: force mode (moves are made for both sides until `go`)",
        cmd_force,
    ),
    cmd(
        &["go", "move"],
        "",
        "the engine plays the side to move",
        cmd_go,
    ),
    opt(
        &["hash"],
        "<size>",
        "hash",
        "transposition table size (nnnK, nnnM)",
    ),
    opt(&["hashp"], "<size>", "hashp", "pawn/king hash size"),
    cmd(&["help"], "[<command>]", "the commands, or one command", cmd_help),
    cmd(&["history"], "", "the moves of the game", cmd_history),
    cmd(
        &["import"],
        "<file> [clear]",
        "read a book.lrn or position.lrn file into the learning files",
        cmd_import,
    ),
    cmd(
        &["info"],
        "",
        "every setting with its value and where it came from",
        cmd_info,
    ),
    cmd(
        &["input", "in"],
        "<file>",
        "run the commands of a file up to a line `exit` (reads what savepos wrote)",
        cmd_input,
    ),
    opt(
        &["kibitz"],
        "<0-6>",
        "kibitz",
        "kibitz verbosity 0-6 on a chess server (the ICS daemon talks; the console does not)",
    ),
    opt(
        &["learn"],
        "<0-7>",
        "learn",
        "learning bits: 1 book, 2 position, 4 result (7 all, 0 off)",
    ),
    cmd(
        &["level"],
        "<moves> <minutes> <increment>",
        "time control (0 moves: the whole game); resets both clocks",
        cmd_level,
    ),
    cmd(
        &["list"],
        "GM|IM|C|AK|S [+name|-name ...]",
        "show or edit an opponent list (the file <bot.lists>/<CLASS>, saved atomically; the ICS daemon classifies opponents by them)",
        cmd_list,
    ),
    cmd(
        &["log"],
        "on|off|<n> [file]",
        "per-game log.nnn (everything printed) and game.nnn (the moves) in logpath; <n>: the last n lines of the log (or of the file)",
        cmd_log,
    ),
    Command {
        names: &["logpath"],
        args: "<dir>",
        help: "directory of log.nnn and game.nnn",
        option: Some("logpath"),
        run: cmd_path,
    },
    cmd(&["ls"], "[<pattern>]", "list files (* and ? match)", cmd_ls),
    opt(
        &["mode"],
        "normal|tournament",
        "mode",
        "tournament: obey computer-chess rules",
    ),
    cmd(
        &["name"],
        "<name>",
        "the opponent's name (PGN tags, lists)",
        cmd_name,
    ),
    cmd(
        &["new"],
        "",
        "new game, the engine plays Black (new log files when logging)",
        cmd_new,
    ),
    cmd(
        &["newlog"],
        "",
        "new game and new log.nnn/game.nnn files",
        cmd_newlog,
    ),
    opt(
        &["noise"],
        "<nodes>",
        "noise",
        "print no analysis until this many nodes are searched",
    ),
    opt(
        &["operator"],
        "<minutes>",
        "operator",
        "minutes of the clock kept for the operator, never used",
    ),
    cmd(
        &["perf"],
        "[<seconds>]",
        "move generator speed: generations and generate+make+unmake per second",
        cmd_perf,
    ),
    cmd(
        &["perft"],
        "<depth>",
        "count the legal move tree of the position (depth 0-8)",
        cmd_perft,
    ),
    cmd(
        &["pgn"],
        "<tag> <value>",
        "set a PGN tag for savegame and game.nnn (Event, Site, Round, Date yyyy.mm.dd, White, WhiteElo, Black, BlackElo, Result)",
        cmd_pgn,
    ),
    cmd(
        &["ponder"],
        "on|off|<move>",
        "think on the opponent's time (on this move)",
        cmd_ponder,
    ),
    cmd(
        &["read"],
        "[<file>]",
        "read a game (PGN or a plain move list; from the keyboard up to `exit` without a file)",
        cmd_read,
    ),
    cmd(
        &["reada"],
        "[<file>]",
        "as read, adding the moves to the current game",
        cmd_read,
    ),
    cmd(
        &["reset"],
        "<move number>",
        "go back (or forward again) to this move, same side to move",
        cmd_reset,
    ),
    opt(
        &["resign"],
        "<pawns>",
        "resign",
        "resign when the score stays below -pawns for several moves (0 never)",
    ),
    cmd(&["savegame"], "<file>", "write the game as PGN", cmd_savegame),
    cmd(
        &["savepos"],
        "<file>",
        "write the position as a `setboard` line (read back with `in <file>`)",
        cmd_savepos,
    ),
    cmd(&["score"], "", "static evaluation, term by term", cmd_score),
    opt(
        &["sd"],
        "<plies>",
        "sd",
        "depth limit (also for pondering and analysis); 0 none",
    ),
    cmd(
        &["search"],
        "<move>",
        "search only this move and show its score (nothing is played)",
        cmd_search,
    ),
    cmd(
        &["settc"],
        "<moves> <engine minutes|h:mm> <opponent minutes|h:mm>",
        "restore the time control after setboard: moves to the next control and both clocks",
        cmd_settc,
    ),
    cmd(&["setboard"], "<fen>", "set up a position", cmd_setboard),
    cmd(
        &["show"],
        "book",
        "every book move of this position with its numbers",
        cmd_show,
    ),
    opt(
        &["smpmax"],
        "<depth>",
        "smpmax",
        "Crafty's deepest split depth (no effect with Lazy SMP)",
    ),
    opt(
        &["smpmin"],
        "<depth>",
        "smpmin",
        "depth from which helper threads join the search",
    ),
    opt(&["smpmt", "mt"], "<threads>", "threads", "search threads"),
    opt(
        &["sn"],
        "<nodes>",
        "sn",
        "node limit per search; 0 none",
    ),
    opt(
        &["st"],
        "<seconds|mm:ss>",
        "st",
        "fixed time per move; 0 uses the time control",
    ),
    opt(
        &["swindle"],
        "on|off",
        "swindle",
        "in a drawn or lost table position against a weaker opponent, keep the table result with the move that leaves the fewest good replies",
    ),
    cmd(&["tags"], "", "the PGN tags of the game", cmd_tags),
    Command {
        names: &["tbpath"],
        args: "<dir[:dir...]>",
        help: "Syzygy endgame table directories, separated by `:` (same as egtpath); `egtb` reports them",
        option: Some("egtpath"),
        run: cmd_path,
    },
    cmd(
        &["test"],
        "<file> [<n>]",
        "run an EPD or Crafty test suite with the st/sd/sn limits; with n, a position ends once the solution held n iterations; summary table at the end",
        cmd_test,
    ),
    cmd(
        &["time"],
        "cpu|elapsed|<moves>/<minutes>[/<moves>/<minutes>][/<increment>]",
        "time control, Crafty's form (time 60/30/sd/30, time sd/15, time sd/2/12)",
        cmd_time,
    ),
    cmd(
        &["trace"],
        "<n>",
        "search trace: 0 off; 1 or more shows each root move as it is searched (the only level kibitzer traces)",
        cmd_trace,
    ),
    cmd(&["uci"], "", "switch to the UCI protocol", cmd_uci),
    opt(
        &["usage"],
        "<percent>",
        "usage",
        "+-% on the computed time per move",
    ),
    opt(
        &["whisper"],
        "<0-6>",
        "whisper",
        "whisper verbosity 0-6 on a chess server: 1 mates, 2 summary, 3 PV, 4 book, 5 iterations, 6 PV changes",
    ),
    cmd(
        &["white"],
        "",
        "White to move in this position; the engine plays Black",
        cmd_side,
    ),
    cmd(&["xboard"], "", "switch to the xboard protocol", cmd_xboard),
];

/// The command named `word` (any of its names, lower case).
pub fn find_command(word: &str) -> Option<&'static Command> {
    let w = word.to_ascii_lowercase();
    COMMANDS.iter().find(|c| c.names.contains(&w.as_str()))
}
