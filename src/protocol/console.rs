//! The Crafty-style console: the `White(1): ` prompt, moves in SAN or coordinates
//! (the engine answers for the other side and ponders), and every command of Crafty's
//! manual (`../shared/spec/crafty-reference.md`), declared once in `COMMANDS`: the
//! table the loop dispatches through is the one `help` and the error lines are
//! generated from. Settings are options of the one option table (`hash 64M`,
//! `hash=64M`, `sd 8`, `display nomovenum`); any option also works as `name value`.
//!
//! Input is read on the session's reader thread, so a move, `?` (move now) or any
//! command is taken while the engine thinks. Before the first prompt the start-up file
//! (`.kibitzerrc`, see `find_rc`) is run, lines as typed up to a line `exit`; `input
//! <file>` does the same at any time. `log on` writes `log.nnn` (everything printed)
//! and `game.nnn` (the game as PGN, rewritten after every move) per game. `read`,
//! `reada`, `savegame`, `savepos`, `edit`, `reset`, `force <move>` and the clocks work
//! on the game controller's game; `annotate`/`annotateh` and `test` call the tools
//! (`tools::annotate`, `tools::epdtest`) with a progress bar on a terminal.
//!
//! The console keeps only what a front end needs beyond the game: the PGN tags, the
//! line of moves taken back (so `reset` can go forward again), the editor, the log
//! files. Analysis lines are `format`'s, scores from White's point of view. `xboard`
//! or `protover` switches to xboard, `uci` to UCI, so GUIs and match runners can start
//! the plain binary.

use super::{emit, emit_all, emit_raw, split_command, Exit, Input, Protocol, Session};
use crate::chess::pgn::PgnGame;
use crate::chess::{Board, Color, Move, Piece, PieceType, Square};
use crate::engine::{EventSink, SearchEvent, SearchResult};
use crate::format::{Display, Printer};
use crate::game::{EngineAction, EngineState, Finished, Outcome, PonderOutcome};
use crate::options::{front, lookup, Kind, Source, TABLE};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The name of the start-up file.
pub const RC_NAME: &str = ".kibitzerrc";

/// Nested `input` files deeper than this are refused (a file that reads itself).
const MAX_SCRIPT_DEPTH: usize = 8;

/// The start-up file: `.kibitzerrc` in `cwd`, else in `home`.
pub fn find_rc(cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    std::iter::once(cwd)
        .chain(home)
        .map(|d| d.join(RC_NAME))
        .find(|p| p.is_file())
}

/// Reads a command file: its lines up to (not including) a line `exit`.
pub fn read_script(path: &Path) -> Result<Vec<String>, String> {
    // A binary file given by mistake is refused, never run line by line.
    Ok(crate::text::read(path)?
        .lines()
        .map(|l| l.trim_end_matches('\r').to_string())
        .take_while(|l| l.trim() != "exit")
        .collect())
}

type Res = Result<(), String>;
type Handler = fn(&mut Con, &str, &str) -> Res;

/// One console command: its names (the first is the one `help` shows first), the
/// syntax of its arguments (empty: it takes none), its help, and the option it sets
/// when it is a setting.
pub struct Command {
    pub names: &'static [&'static str],
    pub args: &'static str,
    pub help: &'static str,
    pub option: Option<&'static str>,
    run: Handler,
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

// ----- state -------------------------------------------------------------------------

type LogSlot = Arc<Mutex<Option<std::fs::File>>>;

/// Output that also goes to the log file while one is open.
struct Tee {
    inner: Box<dyn Write + Send>,
    log: LogSlot,
}

impl Write for Tee {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if let Some(f) = self.log.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            let _ = f.write_all(&buf[..n]);
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(f) = self.log.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            let _ = f.flush();
        }
        self.inner.flush()
    }
}

#[derive(Default)]
struct Logs {
    /// The log file named with `log on <file>` (kept for the next games).
    explicit: Option<String>,
    log_path: Option<PathBuf>,
    game_path: Option<PathBuf>,
    /// The game file's last contents (written only when they change).
    written: String,
}

/// The board editor's state (`edit`).
struct Editor {
    squares: [Option<Piece>; 64],
    colour: Color,
}

struct State {
    analyze: bool,
    /// "No book" was said.
    said_no_book: bool,
    /// Force mode: moves are made for both sides; the engine waits for `go`.
    force: bool,
    /// `search <move>` is running.
    search_only: Option<Move>,
    engine_offered_draw: bool,
    ansi: bool,
    /// Tags set with `pgn` or read with `read`.
    tags: Vec<(String, String)>,
    /// The game's line as far as it is known (moves taken back stay until another
    /// move is played), from `line_start`.
    line: Vec<Move>,
    line_start: String,
    edit: Option<Editor>,
    /// `read`/`reada` from the keyboard: (append, text so far).
    reading: Option<(bool, String)>,
    log: LogSlot,
    logs: Logs,
    script_depth: usize,
    exit: Option<Exit>,
    /// Bumped whenever a search starts (a timer only stops its own search).
    generation: Arc<AtomicU64>,
}

/// The console: the session and what the console keeps besides it.
struct Con<'a> {
    s: &'a mut Session,
    st: State,
}

/// Runs the console until `quit`/`end`, the end of input, or a protocol switch.
pub fn run(s: &mut Session) -> Exit {
    let log: LogSlot = Arc::new(Mutex::new(None));
    {
        let mut w = s.out.lock().unwrap_or_else(|e| e.into_inner());
        let inner = std::mem::replace(&mut *w, Box::new(std::io::sink()));
        *w = Box::new(Tee {
            inner,
            log: Arc::clone(&log),
        });
    }
    let mut c = Con {
        s,
        st: State {
            analyze: false,
            said_no_book: false,
            force: false,
            search_only: None,
            engine_offered_draw: false,
            ansi: false,
            tags: Vec::new(),
            line: Vec::new(),
            line_start: String::new(),
            edit: None,
            reading: None,
            log,
            logs: Logs::default(),
            script_depth: 0,
            exit: None,
            generation: Arc::new(AtomicU64::new(0)),
        },
    };
    c.sync();
    if c.s.options.bool("log") {
        if let Err(e) = c.log_open(None) {
            c.emit(&format!("log: {e}"));
        }
    }
    let mut first = true;
    if c.s.interactive {
        c.start_up();
        if let Some(e) = c.st.exit.take() {
            return c.leave(e);
        }
        c.prompt();
    }
    loop {
        match c.s.next_input() {
            Input::Eof => {
                // A script piped in: let a move search finish first.
                if c.s.game.search_ends_by_itself() {
                    if let Some(f) = c.s.game.wait_finished() {
                        let _ = c.s.sender().send(Input::Eof);
                        c.handle_finished(f);
                        continue;
                    }
                }
                c.s.game.abort_search();
                return c.leave(Exit::Quit);
            }
            Input::Wake => c.finished(),
            Input::Line(line) => {
                c.log_input(&line);
                let (word, _) = split_command(&line);
                if first {
                    first = false;
                    // The first command decides the protocol for GUIs and match runners.
                    if matches!(word, "uci" | "xboard" | "protover") {
                        c.run_rc_muted();
                        let p = if word == "uci" {
                            Protocol::Uci
                        } else {
                            Protocol::Xboard
                        };
                        return c.leave(Exit::Switch(p, line));
                    }
                    if !c.s.interactive {
                        c.start_up();
                    }
                }
                if c.st.exit.is_none() {
                    c.line(&line);
                    c.sync();
                }
                if let Some(e) = c.st.exit.take() {
                    return c.leave(e);
                }
                if c.s.game.state() != EngineState::Thinking {
                    c.prompt();
                }
            }
        }
    }
}

impl Con<'_> {
    fn emit(&self, line: &str) {
        emit(&self.s.out, line);
    }

    /// The game's notes (tables loaded or missing, `cache` without effect), once each.
    fn flush_notes(&mut self) {
        let notes = self.s.game.take_notes();
        self.emit_all(&notes);
    }

    fn emit_all(&self, lines: &[String]) {
        emit_all(&self.s.out, lines);
    }

    fn emit_text(&self, text: &str) {
        let lines: Vec<String> = text.lines().map(String::from).collect();
        self.emit_all(&lines);
    }

    fn prompt(&self) {
        let side = self.s.game.side_to_move();
        emit_raw(
            &self.s.out,
            &format!("{}({}): ", side.name(), self.s.game.move_number()),
        );
    }

    /// Ends the console: stops the engine for good on quit, closes the log files.
    fn leave(&mut self, e: Exit) -> Exit {
        if e == Exit::Quit {
            self.s.game.abort_search();
            if let Some(p) = self.st.logs.game_path.clone() {
                self.sync();
                self.emit(&format!(
                    "game saved in {} (`read {}` resumes it)",
                    p.display(),
                    p.display()
                ));
            }
        }
        self.log_close();
        e
    }

    // ----- start-up and input files -----------------------------------------------

    /// Before the first command: what the book directory holds (or why not), the
    /// start-up file, then the time control the engine will play at.
    fn start_up(&mut self) {
        self.book_notes();
        self.run_rc();
        if self.st.exit.is_none() {
            self.emit(&format!(
                "level {} (moves, minutes, increment in seconds; `level`, `st` or `sd` change it)",
                self.s.options.text("level")
            ));
        }
    }

    fn run_rc(&mut self) {
        let Some(path) = self.s.rc.take() else { return };
        match read_script(&path) {
            Ok(lines) => self.run_script(&lines),
            Err(e) => self.emit(&format!("start-up file {e}")),
        }
    }

    /// The start-up file's settings for a session that switches protocol at once:
    /// nothing it prints may reach the GUI.
    fn run_rc_muted(&mut self) {
        if self.s.rc.is_none() {
            return;
        }
        let saved = std::mem::replace(&mut self.s.out, super::output(std::io::sink()));
        self.run_rc();
        self.s.game.abort_search();
        self.st.analyze = false;
        self.s.out = saved;
    }

    /// Runs command lines as if typed; a move search started by one line ends
    /// before the next line runs.
    fn run_script(&mut self, lines: &[String]) {
        if self.st.script_depth >= MAX_SCRIPT_DEPTH {
            self.emit("input: files nested too deeply (a file that reads itself?)");
            return;
        }
        self.st.script_depth += 1;
        for l in lines {
            if self.st.exit.is_some() {
                break;
            }
            if self.s.game.search_ends_by_itself() {
                if let Some(f) = self.s.game.wait_finished() {
                    self.handle_finished(f);
                }
            }
            self.line(l);
            self.sync();
        }
        self.st.script_depth -= 1;
    }

    // ----- dispatch ---------------------------------------------------------------

    /// One line as typed.
    fn line(&mut self, line: &str) {
        self.flush_notes();
        let line = line.trim();
        if self.st.edit.is_some() {
            self.edit_tokens(line);
            return;
        }
        if let Some((append, text)) = self.st.reading.as_mut() {
            if line == "exit" || line == "end" {
                let (append, text) = (*append, std::mem::take(text));
                self.st.reading = None;
                if let Err(e) = self.load_game(&text, append, "the keyboard") {
                    self.emit(&format!("read: {e}"));
                }
            } else {
                text.push_str(line);
                text.push('\n');
            }
            return;
        }
        // `name=value` settings (`hash=64M`, `mt=2`, `tbpath=/tables`).
        if let Some((name, value)) = line.split_once('=') {
            if !name.contains(' ') && lookup(name).is_some() {
                if let Err(e) = self.set_option(name, value) {
                    self.emit(&e);
                }
                return;
            }
        }
        let (word, rest) = split_command(line);
        if word.is_empty() {
            return;
        }
        if let Some(c) = find_command(word) {
            let name = word.to_ascii_lowercase();
            let r = if !c.takes_args() && !rest.is_empty() {
                Err(format!("takes no arguments (got '{rest}')"))
            } else {
                (c.run)(self, &name, rest)
            };
            if let Err(why) = r {
                self.emit(&format!("{name}: {why}; usage: {}", c.usage()));
            }
            return;
        }
        // Any other option of the table: `name value`, alone its value.
        if let Some(spec) = lookup(word).filter(|sp| sp.shown_in(front::CONSOLE)) {
            if rest.is_empty() && spec.kind != Kind::Button {
                self.emit(&self.s.options.describe(spec));
            } else if let Err(e) = self.set_option(word, rest) {
                self.emit(&e);
            }
            return;
        }
        self.user_move(line);
    }

    /// Sets an option and applies it; prints `name value`.
    fn set_option(&mut self, name: &str, value: &str) -> Res {
        let spec = self
            .s
            .options
            .set_from(Source::Runtime, name, value)
            .map_err(|e| e.to_string())?;
        if spec.name == "clear_hash" {
            self.s.game.clear_hash();
            self.emit("hash table cleared");
            return Ok(());
        }
        self.s.apply_options();
        if let Some(v) = self.s.options.value(spec.name) {
            self.emit(&format!("{} {v}", spec.name));
        }
        self.book_notes();
        Ok(())
    }

    /// Sets an option without a word (internal changes).
    fn set_quietly(&mut self, name: &str, value: &str) {
        if self
            .s
            .options
            .set_from(Source::Runtime, name, value)
            .is_ok()
        {
            self.s.apply_options();
        }
    }

    // ----- searches and moves -----------------------------------------------------

    fn printer(&self) -> EventSink {
        let out = Arc::clone(&self.s.out);
        let printer = Mutex::new(Printer::new(
            self.s.game.board().clone(),
            Display::from_options(&self.s.options),
        ));
        Arc::new(move |e: &SearchEvent| {
            let lines = printer.lock().unwrap_or_else(|e| e.into_inner()).event(e);
            emit_all(&out, &lines);
        })
    }

    fn bump(&self) {
        self.st.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The engine searches for its move in the current position.
    fn think(&mut self) {
        self.st.search_only = None;
        if !self.st.said_no_book {
            self.st.said_no_book = true;
            if self.s.game.book_mut().is_none() {
                self.emit("no opening book (set bookpath, or `book create <pgn> <maxply>`): playing from move 1");
            }
        }
        if let Some(r) = self.s.game.result() {
            let r = r.to_string();
            self.emit(&format!("game over: {r}"));
            return;
        }
        self.bump();
        let sink = self.printer();
        self.s.game.think(sink);
    }

    fn analyse(&mut self) {
        self.st.search_only = None;
        self.bump();
        let sink = self.printer();
        self.s.game.analyse(sink, false);
    }

    /// A search has ended (the loop was woken).
    fn finished(&mut self) {
        if let Some(f) = self.s.game.take_finished() {
            let thinking = f.state == EngineState::Thinking;
            self.handle_finished(f);
            self.sync();
            if thinking && self.s.game.state() != EngineState::Thinking {
                self.prompt();
            }
        }
    }

    fn handle_finished(&mut self, f: Finished) {
        if let Some(mv) = self.st.search_only.take() {
            self.search_done(mv, &f.result);
            return;
        }
        if f.state != EngineState::Thinking || self.st.analyze {
            return;
        }
        self.play_finished(f);
    }

    fn search_done(&mut self, mv: Move, r: &SearchResult) {
        let b = self.s.game.board();
        let white = match b.side_to_move() {
            Color::White => r.score,
            Color::Black => -r.score,
        };
        let pv = crate::format::legal_prefix(b, &r.pv);
        let line = format!(
            "search {}: {} (depth {}) {}",
            if b.is_legal(mv) {
                b.san(mv)
            } else {
                mv.to_string()
            },
            crate::format::score(white),
            r.depth,
            crate::format::pv(b, pv, true)
        );
        self.emit(line.trim_end());
    }

    /// Shows what the book had to say (moves considered, learning, files).
    fn book_notes(&mut self) {
        let mut notes = std::mem::take(&mut self.s.book_notes);
        if let Some(b) = self.s.game.book_mut() {
            notes.extend(b.take_notes());
        }
        self.emit_all(&notes);
    }

    fn play_finished(&mut self, f: Finished) {
        let side = self.s.game.side_to_move();
        let number = self.s.game.move_number();
        if let Some(e) = &f.result.error {
            self.emit(&format!("search error: {e}"));
        }
        self.book_notes();
        let action = self.s.game.engine_move(&f.result);
        self.book_notes();
        match action {
            EngineAction::Move {
                san, offer_draw, ..
            } => {
                let san = if self.st.ansi {
                    format!("\x1b[1m{san}\x1b[0m")
                } else {
                    san
                };
                let bell = if self.s.options.bool("alarm") {
                    "\x07"
                } else {
                    ""
                };
                self.emit(&format!("{}({number}): {san}{bell}", side.name()));
                if self.s.options.bool("display.time") {
                    let c = self.s.game.clocks();
                    self.emit(&format!(
                        "clock: White {}  Black {}",
                        crate::format::time(c.left(Color::White)),
                        crate::format::time(c.left(Color::Black))
                    ));
                }
                self.st.engine_offered_draw = offer_draw;
                if offer_draw {
                    self.emit("kibitzer offers a draw (`draw` accepts)");
                }
                if let Some(r) = self.s.game.result() {
                    let r = r.to_string();
                    self.emit(&r);
                } else if self.s.game.ponder_enabled() {
                    self.bump();
                    self.s.game.start_pondering(Arc::new(|_: &SearchEvent| {}));
                }
            }
            EngineAction::Resign => {
                let r = self.s.game.result().map(|r| r.to_string());
                self.emit(&format!("{} resigns", side.name()));
                if let Some(r) = r {
                    self.emit(&r);
                }
            }
            EngineAction::None => {
                if let Some(r) = self.s.game.result() {
                    let r = r.to_string();
                    self.emit(&r);
                }
            }
        }
    }

    fn user_move(&mut self, text: &str) {
        let mv = match self.s.game.parse_move(text) {
            Ok(m) => m,
            Err(e) => {
                self.emit(&format!(
                    "'{text}': not a command, and not a move here ({e}); `help` lists the commands"
                ));
                return;
            }
        };
        if self.s.game.state() == EngineState::Thinking {
            self.emit("the engine is thinking on its move (`?` makes it move now)");
            return;
        }
        if self.s.game.result().is_some() && !self.st.analyze {
            self.emit("the game is over (`new` starts another)");
            return;
        }
        let side = self.s.game.side_to_move();
        if self.s.options.bool("flag")
            && !self.st.analyze
            && !self.st.force
            && self.s.options.duration("st").is_zero()
            && self.s.game.clocks().left(side).is_zero()
        {
            self.s.game.set_result(
                Outcome::win_for(!side),
                &format!("{} forfeits on time", side.name()),
            );
            let r = self
                .s
                .game
                .result()
                .map(|r| r.to_string())
                .unwrap_or_default();
            self.emit(&format!("kibitzer claims a win on time: {r}"));
            return;
        }
        self.st.engine_offered_draw = false;
        match self.s.game.opponent_move(mv) {
            Ok(PonderOutcome::Hit) => {}
            Ok(_) => {
                if self.st.analyze {
                    self.analyse();
                    return;
                }
                if let Some(r) = self.s.game.result() {
                    let r = r.to_string();
                    self.emit(&r);
                    self.book_notes();
                    return;
                }
                if self.st.force {
                    return;
                }
                // The engine answers for the other side.
                let side = self.s.game.side_to_move();
                self.s.game.set_engine_side(Some(side));
                self.think();
            }
            Err(e) => self.emit(&e.to_string()),
        }
    }

    /// After every command: the known line of moves and the game file.
    fn sync(&mut self) {
        let start = self.s.game.start_position().to_fen();
        let played: Vec<Move> = self.s.game.moves().iter().map(|m| m.mv).collect();
        if start != self.st.line_start || !self.st.line.starts_with(&played) {
            self.st.line_start = start;
            self.st.line = played;
        }
        self.write_game_file();
    }

    fn restart_analysis(&mut self) {
        if self.st.analyze {
            self.analyse();
        }
    }

    // ----- games, tags and files --------------------------------------------------

    /// The game as PGN with the tags (`pgn`, `read`, or defaults).
    fn game_pgn(&self) -> PgnGame {
        let g = &self.s.game;
        let mut p = PgnGame::new(g.start_position().clone());
        let mut b = g.start_position().clone();
        for m in g.moves() {
            p.push_move(&b, m.mv);
            b.make_move(m.mv);
        }
        p.result = g.result().map_or("*", |r| r.outcome.pgn()).to_string();
        if let (Some(r), Some(last)) = (g.result(), p.moves.last_mut()) {
            last.comment = Some(r.reason.clone());
        }
        let opp = if g.opponent().name.is_empty() {
            "?".to_string()
        } else {
            g.opponent().name.clone()
        };
        let engine = format!("kibitzer {}", env!("CARGO_PKG_VERSION"));
        let (white, black) = match g.engine_side() {
            Some(Color::White) => (engine, opp),
            Some(Color::Black) => (opp, engine),
            None => ("?".to_string(), "?".to_string()),
        };
        p.set_tag("Event", "kibitzer console game");
        p.set_tag("Site", "?");
        p.set_tag("Date", &today());
        p.set_tag("Round", "-");
        p.set_tag("White", &white);
        p.set_tag("Black", &black);
        for (k, v) in &self.st.tags {
            if k != "Result" && k != "FEN" && k != "SetUp" {
                p.set_tag(k, v);
            }
        }
        p
    }

    /// Loads a game (PGN or a move list): `read` replaces the game (its tags become
    /// the game's), `reada` adds the moves to the current game.
    fn load_game(&mut self, text: &str, append: bool, source: &str) -> Res {
        self.s.game.abort_search();
        self.st.analyze = false;
        let src = if append {
            let body: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with('['))
                .collect();
            format!(
                "[SetUp \"1\"]\n[FEN \"{}\"]\n\n{}\n",
                self.s.game.board().to_fen(),
                body.join("\n")
            )
        } else {
            text.to_string()
        };
        let mut games = crate::chess::pgn::read_all(&src);
        if games.is_empty() {
            return Err(format!("no game in {source}"));
        }
        let n = games.len();
        let g = games.remove(0).map_err(|e| format!("{source}: {e}"))?;
        if !append {
            self.s.game.set_position(g.start.clone());
            // The file's tags replace those of the same name.
            for (k, v) in g.tags.iter().filter(|(k, _)| k != "FEN" && k != "SetUp") {
                match self.st.tags.iter_mut().find(|(n, _)| n == k) {
                    Some(t) => t.1 = v.clone(),
                    None => self.st.tags.push((k.clone(), v.clone())),
                }
            }
        }
        for m in &g.moves {
            self.s.game.make_move(m.mv).map_err(|e| e.to_string())?;
        }
        let side = self.s.game.side_to_move();
        self.emit(&format!(
            "{} {} move(s) from {source}{}; {} to move ({}({}))",
            if append { "added" } else { "read" },
            g.moves.len(),
            if n > 1 {
                format!(" (the first of {n} games)")
            } else {
                String::new()
            },
            side.name(),
            side.name(),
            self.s.game.move_number()
        ));
        Ok(())
    }

    fn log_input(&self, line: &str) {
        if let Some(f) = self
            .st
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            let _ = writeln!(f, "{line}");
            let _ = f.flush();
        }
    }

    fn log_dir(&self) -> PathBuf {
        let d = self.s.options.str("logpath").trim();
        PathBuf::from(if d.is_empty() { "." } else { d })
    }

    /// Opens a new pair of files: `log.nnn` (or `file`) and `game.nnn`.
    fn log_open(&mut self, file: Option<&str>) -> Res {
        self.log_close();
        let dir = self.log_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut n = 1u32;
        while n < 999_999
            && (dir.join(format!("log.{n:03}")).exists()
                || dir.join(format!("game.{n:03}")).exists())
        {
            n += 1;
        }
        let log_path = match file {
            Some(f) => PathBuf::from(f),
            None => dir.join(format!("log.{n:03}")),
        };
        let game_path = dir.join(format!("game.{n:03}"));
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| format!("{}: {e}", log_path.display()))?;
        *self.st.log.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
        self.st.logs = Logs {
            explicit: file.map(String::from),
            log_path: Some(log_path),
            game_path: Some(game_path),
            written: String::new(),
        };
        self.write_game_file();
        Ok(())
    }

    fn log_close(&mut self) {
        self.write_game_file();
        if let Some(mut f) = self.st.log.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = f.flush();
        }
        self.st.logs = Logs::default();
    }

    /// Rewrites `game.nnn` when the game changed (a crash loses nothing).
    fn write_game_file(&mut self) {
        let Some(path) = self.st.logs.game_path.clone() else {
            return;
        };
        let text = self.game_pgn().to_pgn();
        if text == self.st.logs.written {
            return;
        }
        match crate::learn::safe::atomic_write(&path, text.as_bytes()) {
            Ok(()) => self.st.logs.written = text,
            Err(e) => {
                self.st.logs.written = text;
                self.emit(&format!("log: cannot write {}: {e}", path.display()));
            }
        }
    }

    // ----- board editor -----------------------------------------------------------

    fn edit_tokens(&mut self, line: &str) {
        for tok in line.split_whitespace() {
            let Some(ed) = self.st.edit.as_mut() else {
                return;
            };
            match tok {
                "#" => ed.squares = [None; 64],
                "c" | "C" => ed.colour = !ed.colour,
                "." => {
                    self.edit_done();
                    return;
                }
                _ => {
                    let mut ch = tok.chars();
                    let kind = ch.next().and_then(PieceType::from_char);
                    let sq = Square::parse(ch.as_str());
                    match (kind, sq) {
                        (Some(k), Some(sq)) => {
                            ed.squares[sq.index()] = Some(Piece::new(ed.colour, k))
                        }
                        _ => {
                            let c = ed.colour.name();
                            self.emit(&format!(
                                "edit: '{tok}' is not a piece and a square; expected a piece and a square (qa3), #, c or . (placing {c} pieces)"
                            ));
                        }
                    }
                }
            }
        }
    }

    fn edit_done(&mut self) {
        let Some(ed) = self.st.edit.take() else {
            return;
        };
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match ed.squares[rank * 8 + file] {
                    Some(p) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        // Castling rights where king and rook stand on their squares.
        let at = |s: &str, c: char| {
            Square::parse(s)
                .and_then(|sq| ed.squares[sq.index()])
                .is_some_and(|p| p.fen_char() == c)
        };
        let mut castle = String::new();
        if at("e1", 'K') && at("h1", 'R') {
            castle.push('K');
        }
        if at("e1", 'K') && at("a1", 'R') {
            castle.push('Q');
        }
        if at("e8", 'k') && at("h8", 'r') {
            castle.push('k');
        }
        if at("e8", 'k') && at("a8", 'r') {
            castle.push('q');
        }
        if castle.is_empty() {
            castle.push('-');
        }
        let stm = self.s.game.side_to_move().char();
        let fen = format!("{fen} {stm} {castle} - 0 {}", self.s.game.move_number());
        match self.s.game.set_fen(&fen) {
            Ok(()) => {
                self.emit(&format!("edit: {fen}"));
                self.restart_analysis();
            }
            Err(e) => self.emit(&format!("edit: {e}; the position is unchanged")),
        }
    }
}

/// Today as a PGN date (`2024.05.17`, UTC).
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, m, d) = crate::learn::safe::civil_date((secs / 86_400) as i64);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Minutes (`30`, `2.5`) or `h:mm`.
fn parse_clock_minutes(t: &str) -> Result<Duration, String> {
    let bad = || format!("'{t}' is not minutes or h:mm");
    if let Some((h, m)) = t.split_once(':') {
        let h: u64 = h.parse().map_err(|_| bad())?;
        let m: u64 = m.parse().map_err(|_| bad())?;
        if m >= 60 {
            return Err(bad());
        }
        return Ok(Duration::from_secs(h * 3600 + m * 60));
    }
    let m: f64 = t.parse().map_err(|_| bad())?;
    if !(0.0..=100_000.0).contains(&m) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(m * 60.0))
}

/// `*` and `?` wildcards.
fn glob_match(pattern: &[char], name: &[char]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some('*'), _) => {
            glob_match(&pattern[1..], name) || (!name.is_empty() && glob_match(pattern, &name[1..]))
        }
        (Some('?'), Some(_)) => glob_match(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => glob_match(&pattern[1..], &name[1..]),
        _ => false,
    }
}

fn on_off(t: &str) -> Result<bool, String> {
    match t.to_ascii_lowercase().as_str() {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected on or off, got '{t}'")),
    }
}

// ----- the commands ------------------------------------------------------------------

/// A command that is an option: alone its value, else sets it.
fn cmd_option(c: &mut Con, name: &str, rest: &str) -> Res {
    let cmd = find_command(name).expect("dispatched from the table");
    let option = cmd.option.expect("option commands name their option");
    let spec = lookup(option).expect("the option is declared");
    if rest.is_empty() {
        c.emit(&c.s.options.describe(spec));
        return Ok(());
    }
    c.set_option(option, rest).map_err(|e| {
        e.strip_prefix(&format!("option {}: ", spec.name))
            .unwrap_or(&e)
            .to_string()
    })
}

/// `bookpath`, `logpath`, `tbpath`: directories that must exist (several separated
/// by `:` for the tables).
fn cmd_path(c: &mut Con, name: &str, rest: &str) -> Res {
    if !rest.is_empty() {
        let dirs: Vec<&str> = if name == "tbpath" {
            rest.split(':').filter(|d| !d.is_empty()).collect()
        } else {
            vec![rest]
        };
        if let Some(d) = dirs.iter().find(|d| !Path::new(d).is_dir()) {
            return Err(format!("'{d}' is not a directory"));
        }
    }
    cmd_option(c, name, rest)
}

fn cmd_move_now(c: &mut Con, _: &str, _: &str) -> Res {
    if c.s.game.state() == EngineState::Thinking {
        c.s.game.stop();
    }
    Ok(())
}

fn cmd_analyze(c: &mut Con, _: &str, _: &str) -> Res {
    c.st.analyze = true;
    c.s.game.set_engine_side(None);
    c.analyse();
    Ok(())
}

fn cmd_annotate(c: &mut Con, name: &str, rest: &str) -> Res {
    use crate::tools::annotate::{annotate, Request};
    use crate::tools::progress::Progress;
    use std::cell::RefCell;
    let req = Request::parse(rest, name == "annotateh")?;
    c.s.game.abort_search();
    c.st.analyze = false;
    c.bump();
    let engine = Arc::clone(c.s.game.engine());
    let mut config = c.s.game.config().clone();
    config.move_overhead = Duration::ZERO;
    config.multipv = 1;
    let interactive = c.s.interactive;
    let bar: RefCell<Option<Progress>> = RefCell::new(None);
    let out = Arc::clone(&c.s.out);
    c.emit(&format!(
        "annotating {} ({})",
        req.file.display(),
        req.limit
    ));
    let r = annotate(
        &engine,
        &config,
        &req,
        &mut |done, total| {
            let mut b = bar.borrow_mut();
            let p = b.get_or_insert_with(|| Progress::on_terminal(name, total, interactive));
            p.set(done);
        },
        &mut |line| {
            if let Some(p) = bar.borrow_mut().as_mut() {
                p.clear_line();
            }
            emit(&out, line);
        },
    );
    if let Some(mut p) = bar.borrow_mut().take() {
        p.finish();
    }
    engine.new_game();
    let report = r?;
    c.emit(&report.summary());
    Ok(())
}

fn cmd_ansi(c: &mut Con, _: &str, rest: &str) -> Res {
    c.st.ansi = on_off(rest)?;
    c.emit(&format!("ansi {}", if c.st.ansi { "on" } else { "off" }));
    Ok(())
}

fn cmd_back(c: &mut Con, _: &str, rest: &str) -> Res {
    let n: usize = if rest.is_empty() {
        1
    } else {
        rest.parse()
            .ok()
            .filter(|&n| n >= 1)
            .ok_or_else(|| format!("'{rest}' is not a number of plies"))?
    };
    if c.s.game.moves().is_empty() {
        return Err("no move to take back".into());
    }
    for _ in 0..n {
        if c.s.game.undo().is_err() {
            break;
        }
    }
    c.restart_analysis();
    Ok(())
}

fn cmd_side(c: &mut Con, name: &str, _: &str) -> Res {
    let want = if name == "white" {
        Color::White
    } else {
        Color::Black
    };
    if c.s.game.side_to_move() != want {
        let fen = c.s.game.board().to_fen();
        let f: Vec<&str> = fen.split_whitespace().collect();
        let flipped = format!(
            "{} {} {} - {} {}",
            f[0],
            want.char(),
            f[2],
            f.get(4).unwrap_or(&"0"),
            f.get(5).unwrap_or(&"1")
        );
        let b = Board::from_fen(&flipped)
            .map_err(|e| format!("cannot give the move to {}: {e}", want.name()))?;
        c.s.game.set_position(b);
    }
    c.st.force = false;
    c.s.game.set_engine_side(Some(!want));
    c.emit(&format!(
        "{} to move; kibitzer plays {}",
        want.name(),
        (!want).name()
    ));
    c.restart_analysis();
    Ok(())
}

fn cmd_book(c: &mut Con, _: &str, rest: &str) -> Res {
    let (sub, args) = split_command(rest);
    match sub {
        "create" => book_create(c, args, false),
        "width" => c.set_option("book.width", args),
        "random" => c.set_option("book.random", args),
        "on" | "off" => c.set_option("ownbook", sub),
        "polyglot" => c.set_option("book.polyglot", args),
        "crafty" => c.set_option("book.crafty", args),
        "export" => {
            if args.is_empty() {
                return Err("export needs a file name for the Polyglot book".into());
            }
            let msg = match crate::book::keeper::keeper(&mut c.s.game).and_then(|k| k.main_book()) {
                Some(b) => match crate::book::polyglot::export(b, Path::new(args)) {
                    Ok(n) => format!("{args}: {n} Polyglot entries written"),
                    Err(e) => format!("book export: {e}"),
                },
                None => "book export: no book loaded".into(),
            };
            c.emit(&msg);
            Ok(())
        }
        "" => {
            let lines = match crate::book::keeper::keeper(&mut c.s.game) {
                Some(k) => book_info(k),
                None => {
                    vec!["no book loaded (set bookpath, or `book create <pgn> <maxply>`)".into()]
                }
            };
            c.emit_all(&lines);
            Ok(())
        }
        _ => Err(format!("unknown subcommand '{sub}'")),
    }
}

fn cmd_books(c: &mut Con, _: &str, rest: &str) -> Res {
    match split_command(rest) {
        ("create", args) => book_create(c, args, true),
        ("", _) => Err("expected a subcommand".into()),
        (sub, _) => Err(format!("unknown subcommand '{sub}'")),
    }
}

/// The book directory (`bookpath`), or the current directory (then made the
/// `bookpath`) when none is set.
fn book_dir(c: &mut Con) -> PathBuf {
    let dir = c.s.options.str("bookpath").trim().to_string();
    if dir.is_empty() {
        let _ = c.set_option("bookpath", ".");
        PathBuf::from(".")
    } else {
        PathBuf::from(dir)
    }
}

/// Re-reads the book files after they changed.
fn reload_book(c: &mut Con) {
    match crate::book::keeper::keeper(&mut c.s.game) {
        Some(k) => k.reload(),
        None => {
            let notes = crate::book::install(&mut c.s.game, &c.s.options);
            c.s.book_notes.extend(notes);
        }
    }
    c.book_notes();
}

fn book_info(k: &crate::book::BookKeeper) -> Vec<String> {
    let mut out = Vec::new();
    for b in [k.main_book(), k.steering_book()].into_iter().flatten() {
        let h = b.header();
        out.push(format!(
            "{} {}: {} positions, {} moves from {} games (max ply {}, min played {}, wpct {})",
            crate::book::keeper::kind_name(b.kind()),
            b.path().display(),
            h.positions,
            h.moves,
            h.games,
            h.max_ply,
            h.min_played,
            h.wpct
        ));
    }
    if let Some(l) = k.learner() {
        out.push(format!(
            "learning in {}: {} book moves learned, {} positions",
            l.dir().display(),
            l.overlay().len(),
            l.positions().len()
        ));
    }
    if out.is_empty() {
        out.push("no book loaded".into());
    }
    out
}

fn book_create(c: &mut Con, args: &str, steering: bool) -> Res {
    use crate::book::{create_book_from_file, CreateOptions};
    let w: Vec<&str> = args.split_whitespace().collect();
    let num = |i: usize, default: u32| -> Option<u32> {
        match w.get(i) {
            Some(t) => t.parse().ok(),
            None => Some(default),
        }
    };
    let (Some(pgn), Some(max_ply), Some(min_played), Some(wpct)) =
        (w.first(), num(1, 0), num(2, 1), num(3, 0))
    else {
        return Err("create needs a PGN file and numbers".into());
    };
    if max_ply == 0 || w.len() > if steering { 2 } else { 4 } {
        return Err("create needs a PGN file and maxply of at least 1".into());
    }
    let opts = if steering {
        CreateOptions::steering(max_ply)
    } else {
        CreateOptions::book(max_ply, min_played, wpct)
    };
    let dir = book_dir(c);
    let out = dir.join(if steering {
        crate::book::STEERING_FILE
    } else {
        crate::book::BOOK_FILE
    });
    let o = Arc::clone(&c.s.out);
    let mut last = std::time::Instant::now();
    let mut skipped = 0usize;
    let o2 = Arc::clone(&c.s.out);
    let r = create_book_from_file(
        Path::new(pgn),
        &out,
        &opts,
        &mut |p| {
            if last.elapsed() >= Duration::from_secs(5) {
                last = std::time::Instant::now();
                emit(&o, &p.line());
            }
        },
        &mut |sk| {
            skipped += 1;
            if skipped <= 20 {
                emit(&o2, &sk.message());
            } else if skipped == 21 {
                emit(&o2, "(more skipped games are only counted)");
            }
        },
    );
    match r {
        Ok(rep) => {
            c.emit_all(&rep.summary(&out));
            reload_book(c);
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// `bookw freq 0.7`: weights are fractions at the console, percentages in the table.
fn cmd_bookw(c: &mut Con, _: &str, rest: &str) -> Res {
    let (which, value) = split_command(rest);
    if !matches!(which, "freq" | "ratio" | "eval" | "learn") {
        return Err(format!("'{which}' is not freq, ratio, eval or learn"));
    }
    let name = format!("bookw.{which}");
    if value.is_empty() {
        let pct = c.s.options.int(&name);
        c.emit(&format!("bookw {which} {:.2}", pct as f64 / 100.0));
        return Ok(());
    }
    match value.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => {
            c.set_option(&name, &format!("{}", (v * 100.0).round() as i64))
        }
        _ => Err(format!("'{value}' is not a weight in 0..1")),
    }
}

fn cmd_clock(c: &mut Con, _: &str, rest: &str) -> Res {
    let w: Vec<&str> = rest.split_whitespace().collect();
    if w.len() != 2 {
        return Err("expected the engine's and the opponent's time".into());
    }
    let ours = parse_clock_minutes(w[0])?;
    let theirs = parse_clock_minutes(w[1])?;
    let engine =
        c.s.game
            .engine_side()
            .unwrap_or_else(|| c.s.game.side_to_move());
    let clocks = c.s.game.clocks_mut();
    clocks.set_left(engine, ours);
    clocks.set_left(!engine, theirs);
    show_clocks(c);
    Ok(())
}

fn show_clocks(c: &Con) {
    let k = c.s.game.clocks();
    c.emit(&format!(
        "clock: White {}  Black {}",
        crate::format::time(k.left(Color::White)),
        crate::format::time(k.left(Color::Black))
    ));
}

fn cmd_computer(c: &mut Con, _: &str, _: &str) -> Res {
    c.s.game.opponent_mut().computer = true;
    c.emit("the opponent is a computer");
    Ok(())
}

fn cmd_display(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        let mut lines: Vec<String> =
            c.s.game
                .board()
                .diagram()
                .lines()
                .map(String::from)
                .collect();
        lines.push(format!("fen {}", c.s.game.board().to_fen()));
        c.emit_all(&lines);
        return Ok(());
    }
    let kind = match rest {
        "pawn" | "pawns" => Some(PieceType::Pawn),
        "knight" | "knights" => Some(PieceType::Knight),
        "bishop" | "bishops" => Some(PieceType::Bishop),
        "rook" | "rooks" => Some(PieceType::Rook),
        "queen" | "queens" => Some(PieceType::Queen),
        "king" | "kings" => Some(PieceType::King),
        _ => None,
    };
    if let Some(k) = kind {
        let lines = piece_squares(c, k);
        c.emit_all(&lines);
        return Ok(());
    }
    let (on, flag) = match rest.strip_prefix("no") {
        Some(f) => ("off", f),
        None => ("on", rest),
    };
    let name = format!("display.{flag}");
    if lookup(&name).is_some() {
        c.set_option(&name, on)
    } else {
        Err(format!("unknown flag '{rest}'"))
    }
}

/// The square values of a white piece: its piece-square term on each square with
/// only the two kings on the board (Black to move), middle game and end game.
fn piece_squares(c: &Con, kind: PieceType) -> Vec<String> {
    use crate::eval::{Evaluator, Term};
    let mut ev = Evaluator::new(1 << 16);
    ev.set_params(c.s.game.config().eval);
    let sq = |s: &str| Square::parse(s).expect("square");
    let far_from = |t: Square, choices: &[&str]| {
        choices
            .iter()
            .map(|s| sq(s))
            .find(|&k| {
                k != t
                    && ((k.file().index() as i32 - t.file().index() as i32).abs() > 1
                        || (k.rank().index() as i32 - t.rank().index() as i32).abs() > 1)
            })
            .expect("a free square")
    };
    let psq = |ev: &mut Evaluator, pieces: &[(Square, char)]| -> Option<crate::eval::S> {
        let mut grid = [None; 64];
        for &(s, ch) in pieces {
            grid[s.index()] = Some(ch);
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match grid[rank * 8 + file] {
                    Some(ch) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(ch);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        let b = Board::from_fen(&format!("{fen} b - - 0 1")).ok()?;
        Some(ev.breakdown(&b).row(Term::PieceSquares).white)
    };
    let mut mg = vec![String::new(); 8];
    let mut eg = vec![String::new(); 8];
    for rank in (0..8).rev() {
        for file in 0..8 {
            let t = Square::from_index((rank * 8 + file) as u8);
            let v = if kind == PieceType::King {
                let bk = far_from(t, &["e8", "a8", "h8", "a1", "h1"]);
                psq(&mut ev, &[(t, 'K'), (bk, 'k')])
            } else if kind == PieceType::Pawn && (rank == 0 || rank == 7) {
                None
            } else {
                let wk = far_from(t, &["e1", "a1", "h1", "a8"]);
                let bk = far_from(t, &["e8", "h8", "a8", "h1"]);
                let bk = if bk == wk { sq("d8") } else { bk };
                let with = psq(&mut ev, &[(wk, 'K'), (bk, 'k'), (t, kind.upper_char())]);
                let without = psq(&mut ev, &[(wk, 'K'), (bk, 'k')]);
                with.zip(without).map(|(a, b)| a - b)
            };
            let r = 7 - rank;
            match v {
                Some(v) => {
                    mg[r].push_str(&format!("{:>5}", v.mg));
                    eg[r].push_str(&format!("{:>5}", v.eg));
                }
                None => {
                    mg[r].push_str("    .");
                    eg[r].push_str("    .");
                }
            }
        }
    }
    let name = format!("{kind:?}").to_ascii_lowercase();
    let mut out = vec![format!(
        "white {name}: piece-square values in centipawns (Black's mirror them)"
    )];
    out.push(format!("   {:<40}   {}", "middle game", "end game"));
    for r in 0..8 {
        out.push(format!("{}  {}   {}", 8 - r, mg[r], eg[r]));
    }
    out.push(format!(
        "   {}   {}",
        "    a    b    c    d    e    f    g    h", "    a    b    c    d    e    f    g    h"
    ));
    out
}

fn cmd_draw(c: &mut Con, _: &str, _: &str) -> Res {
    if c.s.game.result().is_some() {
        return Err("the game is over".into());
    }
    if c.st.engine_offered_draw || c.s.game.draw_offered() {
        let how = if c.st.engine_offered_draw {
            "the draw offer is accepted"
        } else {
            "kibitzer accepts the draw"
        };
        c.s.game.set_result(Outcome::Draw, "Draw by agreement");
        c.st.engine_offered_draw = false;
        let r = c.s.game.result().map(|r| r.to_string()).unwrap_or_default();
        c.emit(&format!("{how}: {r}"));
    } else {
        c.emit("kibitzer declines the draw");
    }
    Ok(())
}

fn cmd_echo(c: &mut Con, _: &str, rest: &str) -> Res {
    c.emit(rest);
    Ok(())
}

fn cmd_edit(c: &mut Con, _: &str, rest: &str) -> Res {
    c.s.game.abort_search();
    let mut squares = [None; 64];
    for sq in Square::all() {
        squares[sq.index()] = c.s.game.board().piece_at(sq);
    }
    c.st.edit = Some(Editor {
        squares,
        colour: Color::White,
    });
    c.emit("edit: pieces and squares (qa3), # clears the board, c switches to Black, . leaves");
    c.edit_tokens(rest);
    Ok(())
}

fn cmd_egtb(c: &mut Con, _: &str, _: &str) -> Res {
    let report = c.s.game.tables_report();
    c.emit_all(&report);
    Ok(())
}

fn cmd_quit(c: &mut Con, _: &str, _: &str) -> Res {
    c.st.exit = Some(Exit::Quit);
    Ok(())
}

/// `extensions incheck 1`, `evaluation kscale 120`; alone, the current values.
fn cmd_group(c: &mut Con, group: &str, rest: &str) -> Res {
    let (name, value) = split_command(rest);
    let names: Vec<&str> = TABLE
        .iter()
        .filter_map(|sp| sp.name.strip_prefix(&format!("{group}.")))
        .collect();
    if name.is_empty() {
        let mut lines: Vec<String> = names
            .iter()
            .map(|n| {
                let full = format!("{group}.{n}");
                format!("{full} {}", c.s.options.text(&full))
            })
            .collect();
        if group == "evaluation" {
            lines.extend(
                c.s.game
                    .config()
                    .eval
                    .king_safety_table()
                    .lines()
                    .map(String::from),
            );
        }
        c.emit_all(&lines);
        return Ok(());
    }
    if !names.contains(&name) {
        return Err(format!("unknown '{name}', not one of {}", names.join(", ")));
    }
    let full = format!("{group}.{name}");
    if value.is_empty() {
        c.emit(&format!("{full} {}", c.s.options.text(&full)));
        Ok(())
    } else {
        c.set_option(&full, value)?;
        if group == "evaluation" {
            let t = c.s.game.config().eval.king_safety_table();
            c.emit_text(&t);
        }
        Ok(())
    }
}

fn cmd_exit(c: &mut Con, _: &str, _: &str) -> Res {
    if c.st.analyze {
        c.st.analyze = false;
        c.s.game.abort_search();
    }
    Ok(())
}

fn cmd_force(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        c.s.game.abort_search();
        c.st.force = true;
        c.st.analyze = false;
        c.s.game.set_engine_side(None);
        c.emit("force mode: moves are made for both sides; `go` lets the engine play");
        return Ok(());
    }
    let engine = c.s.game.engine_side();
    let engine_moved =
        c.s.game
            .moves()
            .last()
            .is_some_and(|m| m.score.is_some() || Some(m.side) == engine);
    if !engine_moved {
        return Err("the last move is not the engine's".into());
    }
    let mut before = c.s.game.board().clone();
    before.unmake_move();
    let mv = before
        .parse_move(rest)
        .map_err(|e| format!("'{rest}' is not a legal move there ({e})"))?;
    c.s.game.undo().map_err(|e| e.to_string())?;
    let side = c.s.game.side_to_move();
    let number = c.s.game.move_number();
    let san = c.s.game.board().san(mv);
    c.s.game.make_move(mv).map_err(|e| e.to_string())?;
    c.emit(&format!("{}({number}): {san} (forced)", side.name()));
    if let Some(r) = c.s.game.result() {
        let r = r.to_string();
        c.emit(&r);
    }
    Ok(())
}

fn cmd_go(c: &mut Con, _: &str, _: &str) -> Res {
    c.st.analyze = false;
    c.st.force = false;
    c.s.game.abort_search();
    let side = c.s.game.side_to_move();
    c.s.game.set_engine_side(Some(side));
    c.think();
    Ok(())
}

fn cmd_help(c: &mut Con, _: &str, rest: &str) -> Res {
    if !rest.is_empty() {
        if let Some(cmd) = find_command(rest) {
            let mut lines = vec![format!("{}: {}", cmd.usage(), cmd.help)];
            if let Some(spec) = cmd.option.and_then(lookup) {
                lines.push(format!("  option {}", c.s.options.describe(spec)));
            }
            c.emit_all(&lines);
            return Ok(());
        }
        if let Some(spec) = lookup(rest) {
            c.emit(&c.s.options.describe(spec));
            return Ok(());
        }
        return Err(format!("no command or option '{rest}'"));
    }
    let mut lines =
        vec!["moves: type them in SAN or coordinates (e4, Nf3, O-O, e7e5, e7e8q)".to_string()];
    lines.push("commands:".to_string());
    for cmd in COMMANDS {
        let u = cmd.usage();
        if u.len() > 34 {
            lines.push(format!("  {u}"));
            lines.push(format!("  {:<34} {}", "", cmd.help));
        } else {
            lines.push(format!("  {u:<34} {}", cmd.help));
        }
    }
    lines.push("options (name = value [source]); set with `name value` or `name=value`:".into());
    lines.extend(
        c.s.options
            .help_lines()
            .into_iter()
            .map(|l| format!("  {l}")),
    );
    c.emit_all(&lines);
    Ok(())
}

fn cmd_history(c: &mut Con, _: &str, _: &str) -> Res {
    let text = c.s.game.movetext();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('[') && !l.trim().is_empty())
        .map(String::from)
        .collect();
    c.emit_all(&lines);
    Ok(())
}

fn cmd_import(c: &mut Con, _: &str, rest: &str) -> Res {
    let (file, opt) = split_command(rest);
    if file.is_empty() || !(opt.is_empty() || opt == "clear") {
        return Err(format!(
            "expected a file and optionally clear, got '{rest}'"
        ));
    }
    if crate::book::keeper::keeper(&mut c.s.game).is_none() {
        book_dir(c);
        reload_book(c);
    }
    let msg = match crate::book::keeper::keeper(&mut c.s.game) {
        Some(k) => match k.import(Path::new(file), opt == "clear") {
            Ok(r) => {
                let mut m = format!(
                    "{file}: {} book records ({} changes), {} positions imported{}",
                    r.book_records,
                    r.deltas,
                    r.position_records,
                    if opt == "clear" {
                        " (earlier learning cleared)"
                    } else {
                        ""
                    }
                );
                for p in r.problems.iter().take(10) {
                    m.push_str(&format!("\n  {p}"));
                }
                m
            }
            Err(e) => format!("import: {e}"),
        },
        None => "import: no book directory to learn into (set bookpath)".into(),
    };
    c.emit_text(&msg);
    Ok(())
}

fn cmd_info(c: &mut Con, _: &str, _: &str) -> Res {
    let mut l = c.s.options.help_lines();
    let g = &c.s.game;
    l.push(format!(
        "game: {} to move, move {}, kibitzer plays {}{}, opponent {}{}",
        g.side_to_move().name(),
        g.move_number(),
        g.engine_side().map_or("neither side", |s| s.name()),
        if c.st.force { " (force mode)" } else { "" },
        if g.opponent().name.is_empty() {
            "unnamed"
        } else {
            &g.opponent().name
        },
        if g.opponent().computer {
            " (a computer)"
        } else {
            ""
        }
    ));
    l.push(match &c.st.logs.log_path {
        Some(p) => format!(
            "logging to {} and {}",
            p.display(),
            c.st.logs
                .game_path
                .as_ref()
                .map_or(String::new(), |g| g.display().to_string())
        ),
        None => "logging off".into(),
    });
    c.emit_all(&l);
    Ok(())
}

fn cmd_input(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a file".into());
    }
    let lines = read_script(Path::new(rest))?;
    c.run_script(&lines);
    Ok(())
}

fn cmd_level(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        c.emit(&format!("level {}", c.s.options.text("level")));
        return Ok(());
    }
    set_level(c, rest)
}

fn set_level(c: &mut Con, tc: &str) -> Res {
    c.set_option("level", tc)
        .map_err(|e| e.strip_prefix("option level: ").unwrap_or(&e).to_string())?;
    c.set_option("st", "0")?;
    let tc = c.s.options.level();
    c.s.game.clocks_mut().reset(tc);
    Ok(())
}

fn cmd_list(c: &mut Con, _: &str, rest: &str) -> Res {
    let dir = std::path::PathBuf::from(c.s.options.str("bot.lists").trim());
    let mut lists = crate::bot::lists::Lists::load(&dir);
    let report = lists.command(rest)?;
    c.emit(&report);
    Ok(())
}

fn cmd_log(c: &mut Con, _: &str, rest: &str) -> Res {
    let (what, file) = split_command(rest);
    match what {
        "" => {
            let l = match (&c.st.logs.log_path, &c.st.logs.game_path) {
                (Some(l), Some(g)) => format!("logging to {} and {}", l.display(), g.display()),
                _ => "logging off".to_string(),
            };
            c.emit(&l);
            Ok(())
        }
        "on" => {
            c.set_quietly("log", "on");
            c.log_open((!file.is_empty()).then_some(file))?;
            let l = format!(
                "log on: {} and {}",
                c.st.logs
                    .log_path
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string()),
                c.st.logs
                    .game_path
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            );
            c.emit(&l);
            Ok(())
        }
        "off" => {
            if !file.is_empty() {
                return Err(format!("unexpected '{file}' after off"));
            }
            c.log_close();
            c.set_quietly("log", "off");
            c.emit("log off");
            Ok(())
        }
        n => {
            let n: usize = n
                .parse()
                .map_err(|_| format!("'{n}' is not on, off or a number of lines"))?;
            let path = if file.is_empty() {
                c.st.logs
                    .log_path
                    .clone()
                    .ok_or("no log is open (`log on`, or name a file)")?
            } else {
                PathBuf::from(file)
            };
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<String> = text.lines().map(String::from).collect();
            let from = lines.len().saturating_sub(n);
            c.emit_all(&lines[from..]);
            Ok(())
        }
    }
}

fn cmd_ls(c: &mut Con, _: &str, rest: &str) -> Res {
    let (dir, pattern) = match rest.rsplit_once('/') {
        Some((d, p)) => (if d.is_empty() { "/" } else { d }, p),
        None => (".", rest),
    };
    let pattern: Vec<char> = if pattern.is_empty() { "*" } else { pattern }
        .chars()
        .collect();
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{dir}: {e}"))?;
    let mut names: Vec<String> = rd
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| glob_match(&pattern, &n.chars().collect::<Vec<_>>()))
        .filter(|n| !n.starts_with('.') || pattern.first() == Some(&'.'))
        .collect();
    names.sort();
    if names.is_empty() {
        c.emit(&format!("ls: nothing matches '{rest}'"));
    } else {
        c.emit_all(&names);
    }
    Ok(())
}

fn cmd_name(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a name".into());
    }
    c.s.game.opponent_mut().name = rest.to_string();
    c.emit(&format!("opponent: {rest}"));
    Ok(())
}

fn new_game(c: &mut Con) {
    c.st.analyze = false;
    c.st.force = false;
    c.st.search_only = None;
    c.st.engine_offered_draw = false;
    c.st.tags.retain(|(k, _)| {
        !matches!(
            k.as_str(),
            "White" | "Black" | "WhiteElo" | "BlackElo" | "Result"
        )
    });
    c.s.game.new_game();
}

fn cmd_new(c: &mut Con, _: &str, _: &str) -> Res {
    let had_moves = !c.s.game.moves().is_empty();
    let logging = c.st.logs.log_path.is_some();
    let explicit = c.st.logs.explicit.clone();
    // One pair of files per game: the finished game's file is complete first.
    let next = logging && had_moves;
    if next {
        c.log_close();
    }
    new_game(c);
    if next {
        c.log_open(explicit.as_deref())?;
    }
    Ok(())
}

fn cmd_newlog(c: &mut Con, _: &str, _: &str) -> Res {
    c.log_close();
    new_game(c);
    c.set_quietly("log", "on");
    c.log_open(None)?;
    let l = format!(
        "new game; logging to {}",
        c.st.logs
            .log_path
            .as_ref()
            .map_or(String::new(), |p| p.display().to_string())
    );
    c.emit(&l);
    Ok(())
}

fn cmd_perf(c: &mut Con, _: &str, rest: &str) -> Res {
    let secs: f64 = if rest.is_empty() {
        1.0
    } else {
        rest.parse()
            .ok()
            .filter(|s: &f64| (0.01..=60.0).contains(s))
            .ok_or_else(|| format!("'{rest}' is not seconds in 0.01..=60"))?
    };
    c.s.game.abort_search();
    let mut buf = Vec::new();
    crate::tools::perft::run_perf(secs, &mut buf).map_err(|e| e.to_string())?;
    c.emit_text(&String::from_utf8_lossy(&buf));
    Ok(())
}

fn cmd_perft(c: &mut Con, _: &str, rest: &str) -> Res {
    match rest.parse::<u32>() {
        Ok(d) if d <= 8 => {
            let mut b = c.s.game.board().clone();
            let mut buf = Vec::new();
            let _ = crate::tools::perft::run_perft(&mut b, d, false, &mut buf);
            c.emit_text(&String::from_utf8_lossy(&buf));
            Ok(())
        }
        _ => Err(format!("'{rest}' is not a depth 0..=8")),
    }
}

fn cmd_pgn(c: &mut Con, _: &str, rest: &str) -> Res {
    let (tag, value) = split_command(rest);
    if tag.is_empty() || value.is_empty() {
        return Err("expected a tag and a value".into());
    }
    if !tag
        .chars()
        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
    {
        return Err(format!("'{tag}' is not a tag name"));
    }
    let value = value.trim_matches('"');
    let known = [
        "Event", "Site", "Round", "Date", "White", "WhiteElo", "Black", "BlackElo", "Result",
    ];
    let tag = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(tag))
        .map_or(tag.to_string(), |k| k.to_string());
    check_tag(&tag, value)?;
    match c.st.tags.iter_mut().find(|(k, _)| *k == tag) {
        Some(t) => t.1 = value.to_string(),
        None => c.st.tags.push((tag.clone(), value.to_string())),
    }
    c.emit(&format!("[{tag} \"{value}\"]"));
    Ok(())
}

/// The values the known tags allow.
fn check_tag(tag: &str, value: &str) -> Res {
    let date_ok = || {
        value.len() == 10
            && value.chars().enumerate().all(|(i, ch)| {
                if i == 4 || i == 7 {
                    ch == '.'
                } else {
                    ch.is_ascii_digit() || ch == '?'
                }
            })
    };
    let rating_ok = || value.chars().all(|ch| ch.is_ascii_digit()) || value == "-" || value == "?";
    match tag {
        "Date" if !date_ok() => Err(format!("Date '{value}' is not yyyy.mm.dd")),
        "Result" if Outcome::parse(value).is_none() => {
            Err(format!("Result '{value}' is not 1-0, 0-1, 1/2-1/2 or *"))
        }
        "WhiteElo" | "BlackElo" if !rating_ok() => Err(format!("{tag} '{value}' is not a rating")),
        _ => Ok(()),
    }
}

fn cmd_ponder(c: &mut Con, _: &str, rest: &str) -> Res {
    match rest.to_ascii_lowercase().as_str() {
        "" => {
            c.emit(&format!("ponder {}", c.s.options.text("ponder")));
            Ok(())
        }
        "on" | "off" => {
            c.set_option("ponder", rest)?;
            if rest.eq_ignore_ascii_case("off") && c.s.game.state() == EngineState::Pondering {
                c.s.game.abort_search();
            }
            Ok(())
        }
        _ => {
            let mv =
                c.s.game
                    .parse_move(rest)
                    .map_err(|e| format!("'{rest}' is not on, off or a legal move ({e})"))?;
            c.s.game.set_ponder_move(Some(mv));
            if c.s.game.state() == EngineState::Pondering {
                c.s.game.abort_search();
                c.s.game.set_ponder_move(Some(mv));
                c.bump();
                c.s.game.start_pondering(Arc::new(|_: &SearchEvent| {}));
            }
            let san = c.s.game.board().san(mv);
            c.emit(&format!("ponder move {san}"));
            Ok(())
        }
    }
}

fn cmd_read(c: &mut Con, name: &str, rest: &str) -> Res {
    let append = name == "reada";
    if rest.is_empty() {
        c.s.game.abort_search();
        c.st.reading = Some((append, String::new()));
        c.emit("type the moves (PGN or a move list), then `exit`");
        return Ok(());
    }
    let text = crate::text::read(Path::new(rest))?;
    c.load_game(&text, append, rest)
}

fn cmd_reset(c: &mut Con, _: &str, rest: &str) -> Res {
    let n: i64 = rest
        .parse()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| format!("'{rest}' is not a move number"))?;
    let start = c.s.game.start_position();
    let first = start.fullmove_number() as i64;
    let first_black = (start.side_to_move() == Color::Black) as i64;
    let black = (c.s.game.side_to_move() == Color::Black) as i64;
    let target = (n - first) * 2 + black - first_black;
    if target < 0 {
        return Err(format!("move {n} is before the game's first move"));
    }
    let target = target as usize;
    let cur = c.s.game.moves().len();
    if target > c.st.line.len() {
        return Err(format!(
            "the game only goes to ply {} (move {})",
            c.st.line.len(),
            first + (c.st.line.len() as i64 + first_black) / 2
        ));
    }
    c.s.game.abort_search();
    if target < cur {
        for _ in target..cur {
            c.s.game.undo().map_err(|e| e.to_string())?;
        }
    } else {
        for i in cur..target {
            let mv = c.st.line[i];
            c.s.game.make_move(mv).map_err(|e| e.to_string())?;
        }
    }
    c.restart_analysis();
    Ok(())
}

fn cmd_savegame(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a file".into());
    }
    let text = c.game_pgn().to_pgn();
    std::fs::write(rest, text).map_err(|e| format!("{rest}: {e}"))?;
    c.emit(&format!(
        "game saved in {rest} ({} moves)",
        c.s.game.moves().len()
    ));
    Ok(())
}

fn cmd_savepos(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a file".into());
    }
    let fen = c.s.game.board().to_fen();
    std::fs::write(rest, format!("setboard {fen}\n")).map_err(|e| format!("{rest}: {e}"))?;
    c.emit(&format!("position saved in {rest} (`in {rest}` reads it)"));
    Ok(())
}

fn cmd_score(c: &mut Con, _: &str, _: &str) -> Res {
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    ev.set_params(c.s.game.config().eval);
    let text = ev.breakdown(c.s.game.board()).to_string();
    c.emit_text(&text);
    Ok(())
}

fn cmd_search(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a move".into());
    }
    let mv =
        c.s.game
            .parse_move(rest)
            .map_err(|e| format!("'{rest}' is not a legal move here ({e})"))?;
    c.s.game.abort_search();
    c.st.analyze = false;
    let mut limits = c.s.game.limits_for(c.s.game.side_to_move());
    let mut timer = None;
    if limits.depth.is_some() || limits.nodes.is_some() {
        limits.movetime = None;
        limits.clock = None;
    } else {
        // A timed search of a single root move would stop after one iteration:
        // search without end and stop it when its time is up.
        timer = crate::engine::time::allocate(&limits, c.s.game.config()).map(|b| b.soft);
        limits.movetime = None;
        limits.clock = None;
        limits.infinite = true;
    }
    limits.searchmoves = vec![mv];
    c.bump();
    let sink = c.printer();
    c.s.game.think_with(limits, sink, false);
    c.st.search_only = Some(mv);
    if let Some(t) = timer {
        let generation = Arc::clone(&c.st.generation);
        let mine = generation.load(Ordering::SeqCst);
        let engine = Arc::clone(c.s.game.engine());
        std::thread::spawn(move || {
            std::thread::sleep(t);
            if generation.load(Ordering::SeqCst) == mine {
                engine.stop();
            }
        });
    }
    Ok(())
}

fn cmd_settc(c: &mut Con, _: &str, rest: &str) -> Res {
    let w: Vec<&str> = rest.split_whitespace().collect();
    if w.len() != 3 {
        return Err("expected moves to the next control and both clocks".into());
    }
    let moves: u32 = w[0]
        .parse()
        .map_err(|_| format!("'{}' is not a number of moves", w[0]))?;
    let ours = parse_clock_minutes(w[1])?;
    let theirs = parse_clock_minutes(w[2])?;
    let engine =
        c.s.game
            .engine_side()
            .unwrap_or_else(|| c.s.game.side_to_move());
    let clocks = c.s.game.clocks_mut();
    clocks.set_moves_to_go(engine, moves);
    clocks.set_moves_to_go(!engine, moves);
    clocks.set_left(engine, ours);
    clocks.set_left(!engine, theirs);
    show_clocks(c);
    Ok(())
}

fn cmd_setboard(c: &mut Con, _: &str, rest: &str) -> Res {
    c.s.game.set_fen(rest).map_err(|e| e.to_string())?;
    c.restart_analysis();
    Ok(())
}

fn cmd_show(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest != "book" {
        return Err(format!("'{rest}' is not book"));
    }
    let b = c.s.game.board().clone();
    let lines = match crate::book::keeper::keeper(&mut c.s.game) {
        Some(k) => k.show(&b, Default::default()),
        None => vec!["no book loaded (set bookpath, or `book create <pgn> <maxply>`)".into()],
    };
    c.emit_all(&lines);
    Ok(())
}

fn cmd_tags(c: &mut Con, _: &str, _: &str) -> Res {
    let p = c.game_pgn();
    let text = p.to_pgn();
    let lines: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with('['))
        .map(String::from)
        .collect();
    c.emit_all(&lines);
    Ok(())
}

fn cmd_test(c: &mut Con, _: &str, rest: &str) -> Res {
    use crate::engine::SearchLimits;
    use crate::tools::epdtest::{parse_suite, run_positions, summary_table};
    use crate::tools::progress::Progress;
    let (file, n) = split_command(rest);
    if file.is_empty() {
        return Err("expected a file".into());
    }
    let early = if n.is_empty() {
        None
    } else {
        Some(
            n.parse::<u32>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("'{n}' is not a number of iterations"))?,
        )
    };
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let positions =
        parse_suite(&String::from_utf8_lossy(&bytes)).map_err(|e| format!("{file}: {e}"))?;
    if positions.is_empty() {
        return Err(format!("{file}: no positions"));
    }
    let o = &c.s.options;
    let (st, sd, sn) = (o.duration("st"), o.int("sd"), o.int("sn"));
    let limits = SearchLimits {
        movetime: (!st.is_zero()).then_some(st),
        depth: (sd > 0).then_some(sd as i32),
        nodes: (sn > 0).then_some(sn as u64),
        ..Default::default()
    };
    let limits = if limits.movetime.is_none() && limits.depth.is_none() && limits.nodes.is_none() {
        c.emit("test: no st, sd or sn set: 10 seconds per position");
        SearchLimits::movetime(Duration::from_secs(10))
    } else {
        limits
    };
    c.s.game.abort_search();
    c.st.analyze = false;
    c.bump();
    let engine = Arc::clone(c.s.game.engine());
    let mut config = c.s.game.config().clone();
    config.move_overhead = Duration::ZERO;
    config.multipv = 1;
    c.emit(&format!(
        "test {file}: {} positions{}",
        positions.len(),
        early.map_or(String::new(), |n| format!(
            ", a position ends once its solution held {n} iterations"
        ))
    ));
    let mut bar = Progress::on_terminal("test", positions.len() as u64, c.s.interactive);
    let results = run_positions(
        &engine,
        &positions,
        &limits,
        &config,
        early,
        &mut |i, _, _| bar.set(i as u64 + 1),
    );
    bar.finish();
    engine.new_game();
    c.emit_all(&summary_table(&positions, &results));
    Ok(())
}

fn cmd_time(c: &mut Con, _: &str, rest: &str) -> Res {
    let w = rest.to_ascii_lowercase();
    if rest.is_empty() {
        c.emit(&format!("level {}", c.s.options.text("level")));
        return Ok(());
    }
    if w == "cpu" || w == "elapsed" {
        c.emit("time: kibitzer always measures elapsed time");
        return Ok(());
    }
    if !rest.contains('/') {
        return Err(format!("'{rest}' is not cpu, elapsed or moves/minutes"));
    }
    set_level(c, rest)
}

fn cmd_trace(c: &mut Con, _: &str, rest: &str) -> Res {
    let n: u32 = rest
        .parse()
        .map_err(|_| format!("'{rest}' is not a trace depth"))?;
    c.set_option("display.moves", if n > 0 { "on" } else { "off" })?;
    if n > 1 {
        c.emit("trace: only the root moves are traced (ply 1)");
    }
    Ok(())
}

fn cmd_uci(c: &mut Con, _: &str, _: &str) -> Res {
    c.s.game.abort_search();
    c.st.exit = Some(Exit::Switch(Protocol::Uci, "uci".into()));
    Ok(())
}

fn cmd_xboard(c: &mut Con, _: &str, _: &str) -> Res {
    c.s.game.abort_search();
    c.st.exit = Some(Exit::Switch(Protocol::Xboard, "xboard".into()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learn::safe::civil_date;

    #[test]
    fn every_command_name_is_unique_and_options_exist() {
        let mut seen = std::collections::HashSet::new();
        for c in COMMANDS {
            for n in c.names {
                assert!(seen.insert(*n), "{n} twice");
                assert_eq!(n.to_ascii_lowercase(), *n);
            }
            if let Some(o) = c.option {
                assert!(lookup(o).is_some(), "{o} is not an option");
            }
        }
    }

    #[test]
    fn dates_globs_and_clocks() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(19_723), (2024, 1, 1));
        assert_eq!(civil_date(19_782), (2024, 2, 29));
        let g = |p: &str, n: &str| {
            glob_match(
                &p.chars().collect::<Vec<_>>(),
                &n.chars().collect::<Vec<_>>(),
            )
        };
        assert!(g("*.pgn", "a.pgn") && g("game.0??", "game.001") && !g("*.pgn", "a.epd"));
        assert_eq!(
            parse_clock_minutes("1:30").unwrap(),
            Duration::from_secs(5400)
        );
        assert_eq!(
            parse_clock_minutes("2.5").unwrap(),
            Duration::from_secs(150)
        );
        assert!(parse_clock_minutes("x").is_err());
    }

    #[test]
    fn the_rc_file_is_found_in_the_working_directory_first() {
        let base = std::env::temp_dir().join(format!("kibitzer-rc-{}", std::process::id()));
        let (cwd, home) = (base.join("cwd"), base.join("home"));
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        assert_eq!(find_rc(&cwd, Some(&home)), None);
        std::fs::write(home.join(RC_NAME), "sd 3\nexit\nsd 4\n").unwrap();
        assert_eq!(find_rc(&cwd, Some(&home)), Some(home.join(RC_NAME)));
        std::fs::write(cwd.join(RC_NAME), "sd 5\n").unwrap();
        assert_eq!(find_rc(&cwd, Some(&home)), Some(cwd.join(RC_NAME)));
        assert_eq!(read_script(&home.join(RC_NAME)).unwrap(), vec!["sd 3"]);
        let _ = std::fs::remove_dir_all(&base);
    }
}
