//! The front ends that talk to a person or a GUI through text: the console (Crafty's
//! commands and `White(1): ` prompt), xboard/CECP v2 and UCI. Each is a thin loop over
//! the game controller (`game`) and the option table (`options`); none keeps game
//! state of its own.
//!
//! Shared plumbing lives here: commands are read on a reader thread from any `BufRead`
//! and queued with the search-finished wake-ups, so the loop answers `isready`,
//! `stop`, `?` and `.` while the engine thinks; output goes to one shared writer that
//! search threads may also write to. Tests drive whole sessions in-process this way.
//! Sockets, tokio and search internals belong elsewhere.

pub mod console;
pub mod uci;
pub mod xboard;

use crate::engine::time::{Clock, SystemClock};
use crate::game::Game;
use crate::options::Options;
use std::io::{BufRead, Write};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// The shared output: front ends and search threads write whole lines to it.
pub type Output = Arc<Mutex<Box<dyn Write + Send>>>;

/// Wraps a writer (stdout, a test buffer) as an `Output`.
pub fn output(w: impl Write + Send + 'static) -> Output {
    Arc::new(Mutex::new(Box::new(w)))
}

/// Writes one line and flushes. Output errors (a closed pipe) are ignored: the reader
/// sees the end of input and the loop ends.
pub fn emit(out: &Output, line: &str) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

/// Writes several lines under one lock.
pub fn emit_all(out: &Output, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    for l in lines {
        let _ = writeln!(w, "{l}");
    }
    let _ = w.flush();
}

/// Writes text without a newline (prompts).
pub fn emit_raw(out: &Output, text: &str) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = write!(w, "{text}");
    let _ = w.flush();
}

/// What the loop receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A line of input (without the line end).
    Line(String),
    /// A search has ended: collect it with `Game::take_finished`.
    Wake,
    /// The input has ended.
    Eof,
    /// Ctrl-C (SIGINT) at the console: the first stops a search, a second within a
    /// second quits after saving the game. UCI and xboard ignore it (xboard is told
    /// `sigint=0`).
    Interrupt,
}

/// The protocol a loop speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Console,
    Uci,
    Xboard,
}

/// How a loop ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Quit,
    /// Switch to another protocol; the line that asked for it is handed over.
    Switch(Protocol, String),
}

/// One front-end session: input queue, output, options and the game.
pub struct Session {
    pub out: Output,
    /// The protocol being spoken (how notes are printed).
    pub protocol: Protocol,
    /// A person types at a terminal: the console shows its prompt from the start
    /// (a GUI or match runner sees nothing before its first command).
    pub interactive: bool,
    pub options: Options,
    pub game: Game,
    rx: Receiver<Input>,
    tx: Sender<Input>,
    pending: std::collections::VecDeque<Input>,
    /// Book messages (loading problems, book moves, learning) for the console.
    pub book_notes: Vec<String>,
    /// The console's start-up file (`.kibitzerrc`), run once before its first
    /// command; `None`: none (the binary looks for one, in-process sessions do not).
    pub rc: Option<std::path::PathBuf>,
}

impl Session {
    /// A session reading `input` on a reader thread, time from the system clock.
    pub fn new<R: BufRead + Send + 'static>(input: R, out: Output, options: Options) -> Session {
        Session::with_clock(input, out, options, Arc::new(SystemClock::default()))
    }

    /// As `new`, with an injected clock (tests).
    pub fn with_clock<R: BufRead + Send + 'static>(
        input: R,
        out: Output,
        options: Options,
        clock: Arc<dyn Clock>,
    ) -> Session {
        let (tx, rx) = channel();
        spawn_reader(input, tx.clone());
        let mut game = Game::with_clock(&options, clock);
        let book_notes = crate::game::book_keeper::install(&mut game, &options);
        let wake = Mutex::new(tx.clone());
        game.set_notify(Arc::new(move || {
            let _ = wake
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .send(Input::Wake);
        }));
        Session {
            out,
            protocol: Protocol::Console,
            interactive: false,
            options,
            game,
            rx,
            tx,
            pending: Default::default(),
            book_notes,
            rc: None,
        }
    }

    /// The next input (blocks); `Eof` once the input has ended.
    pub fn next_input(&mut self) -> Input {
        if let Some(i) = self.pending.pop_front() {
            return i;
        }
        self.rx.recv().unwrap_or(Input::Eof)
    }

    /// Makes `line` the next input read (used when switching protocols).
    pub fn push_front(&mut self, line: String) {
        self.pending.push_front(Input::Line(line));
    }

    /// A sender that queues input as if it had been read (wake-ups, tests).
    pub fn sender(&self) -> Sender<Input> {
        self.tx.clone()
    }

    pub fn emit(&self, line: &str) {
        emit(&self.out, line);
    }

    /// Applies the options to the game after a change, and prints what the game has
    /// to say about it (tables found or not).
    pub fn apply_options(&mut self) {
        self.game.configure(&self.options);
        let notes = crate::game::book_keeper::install(&mut self.game, &self.options);
        self.book_notes.extend(notes);
        // Only the console shows them; keep the newest for the others.
        let n = self.book_notes.len();
        if n > 100 {
            self.book_notes.drain(..n - 100);
        }
        self.flush_notes();
    }

    /// Prints the game's notes the way the protocol shows messages: plain on the
    /// console, `info string` in UCI, `#` comments in xboard.
    pub fn flush_notes(&mut self) {
        let prefix = match self.protocol {
            Protocol::Console => "",
            Protocol::Uci => "info string ",
            Protocol::Xboard => "# ",
        };
        let notes: Vec<String> = self
            .game
            .take_notes()
            .into_iter()
            .map(|n| format!("{prefix}{n}"))
            .collect();
        emit_all(&self.out, &notes);
    }
}

/// Reads lines on a thread and queues them; `Eof` at the end of input.
pub fn spawn_reader<R: BufRead + Send + 'static>(mut input: R, tx: Sender<Input>) {
    std::thread::Builder::new()
        .name("input".into())
        .spawn(move || {
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match input.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = tx.send(Input::Eof);
                        return;
                    }
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf);
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        if tx.send(Input::Line(line)).is_err() {
                            return;
                        }
                    }
                }
            }
        })
        .expect("spawn input thread");
}

/// Runs a session starting in `first`, following protocol switches (the console
/// hands over to UCI on `uci` and to xboard on `xboard`/`protover`).
pub fn run(session: &mut Session, first: Protocol) {
    let mut proto = first;
    loop {
        session.protocol = proto;
        let exit = match proto {
            Protocol::Console => console::run(session),
            Protocol::Uci => uci::run(session),
            Protocol::Xboard => xboard::run(session),
        };
        match exit {
            Exit::Quit => break,
            Exit::Switch(p, line) => {
                proto = p;
                session.push_front(line);
            }
        }
    }
    session.game.abort_search();
}

/// Splits a command line into its first word and the rest (trimmed).
pub fn split_command(line: &str) -> (&str, &str) {
    let t = line.trim();
    match t.find(char::is_whitespace) {
        Some(i) => (&t[..i], t[i..].trim()),
        None => (t, ""),
    }
}
