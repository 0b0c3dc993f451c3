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
//!
//! This file holds the start-up file, the console's state, the input loop and the
//! dispatch of a line; `table` the command table; `play` searches and moves; `files`
//! games, tags, log and game files; `editor` the board editor and set-up commands;
//! `book` the book commands; `analysis` the analysis commands; `commands` the rest.

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

mod analysis;
mod book;
mod commands;
mod editor;
mod files;
mod play;
mod table;

use analysis::*;
use book::*;
use commands::*;
use editor::*;
use files::*;
pub use table::{find_command, Command, COMMANDS};

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
    /// When the last Ctrl-C came.
    interrupted: Option<std::time::Instant>,
}

/// The console: the session and what the console keeps besides it.
struct Con<'a> {
    s: &'a mut Session,
    st: State,
}

/// Runs the console until `quit`/`end`, the end of input, or a protocol switch.
/// The longest console line read as a command (a PGN movetext pasted on one line
/// fits; a megabyte of garbage does not).
pub const LINE_MAX: usize = 16_384;

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
            interrupted: None,
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
            Input::Interrupt => {
                if let Some(e) = c.interrupt() {
                    return c.leave(e);
                }
            }
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
                let long = line.len() > LINE_MAX && line.chars().count() > LINE_MAX;
                if long {
                    // A paste gone wrong: one short line back, not the paste twice.
                    c.emit(&format!(
                        "input line of {} characters ignored (at most {LINE_MAX}): '{}'",
                        line.chars().count(),
                        crate::protocol::uci::echo(&line)
                    ));
                } else if c.st.exit.is_none() {
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

    /// Ctrl-C: a search in progress stops (as Crafty's interrupt does); a second
    /// Ctrl-C within a second, or one with nothing to stop, quits after saving the
    /// game (to the game log when logging, else to a PGN file named here).
    fn interrupt(&mut self) -> Option<Exit> {
        let now = std::time::Instant::now();
        let again = self
            .st
            .interrupted
            .is_some_and(|t| now.duration_since(t) < std::time::Duration::from_secs(1));
        self.st.interrupted = Some(now);
        let searching = self.s.game.state() != EngineState::Idle;
        if searching && !again {
            self.s.game.abort_search();
            self.st.analyze = false;
            self.emit(
                "interrupted: search stopped (Ctrl-C again within a second quits, saving the game)",
            );
            self.prompt();
            return None;
        }
        if !again && !self.s.game.moves().is_empty() {
            self.emit("Ctrl-C again within a second quits, saving the game (or type `quit`)");
            return None;
        }
        self.s.game.abort_search();
        if self.st.logs.game_path.is_none() && !self.s.game.moves().is_empty() {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let name = format!("kibitzer-interrupted-{secs}.pgn");
            match std::fs::write(&name, self.game_pgn().to_pgn()) {
                Ok(()) => self.emit(&format!(
                    "game saved in {name} ({} moves; `read {name}` resumes it)",
                    self.s.game.moves().len()
                )),
                Err(e) => self.emit(&format!("cannot save the game in {name}: {e}")),
            }
        }
        Some(Exit::Quit)
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
    fn moves_typed_with_their_number() {
        use super::play::strip_move_number;
        assert_eq!(strip_move_number("1. e4", 1, Color::White), Ok("e4"));
        assert_eq!(strip_move_number("1.e4", 1, Color::White), Ok("e4"));
        assert_eq!(strip_move_number("12... Bd7", 12, Color::Black), Ok("Bd7"));
        assert_eq!(
            strip_move_number("12. ... Bd7", 12, Color::Black),
            Ok("Bd7")
        );
        assert_eq!(strip_move_number("e4", 1, Color::White), Ok("e4"));
        assert_eq!(strip_move_number("e2e4", 1, Color::White), Ok("e2e4"));
        let e = strip_move_number("5. e4", 1, Color::White).unwrap_err();
        assert!(e.contains("the move here is 1."), "{e}");
        let e = strip_move_number("3. Nf6", 3, Color::Black).unwrap_err();
        assert!(e.contains("3..."), "{e}");
        assert!(strip_move_number("4.", 4, Color::White).is_err());
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
