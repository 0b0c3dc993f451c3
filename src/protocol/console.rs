//! The Crafty-style console (minimal; the Console issue completes it): the
//! `White(1): ` prompt, moves in SAN or coordinates (the engine answers for the other
//! side), `go`/`move`, `new`, `setboard`, `display`, `score`, `help`, `analyze`,
//! `back`, `history`, `info`, `egtb`, `perft`, `ponder on|off|<move>`, `level`, `time`,
//! `extensions`, `evaluation`, the book and learning commands (`book create`, `books
//! create`, `book width|random|on|off|polyglot|export`, `bookw`, `show book`, `learn`,
//! `import`), `quit`/`end`, and every option of the table as `name value` or
//! `name=value` (`hash=64M`, `mt=2`, `sd 8`, `noise 0`). `xboard` or
//! `protover` switches to xboard, `uci` to UCI, so GUIs and match runners can start
//! the plain binary.
//!
//! Analysis lines are Crafty's (`format`), scores from White's point of view, shown
//! as the `display` and `noise` options allow. The game is the game controller's.

use super::{emit_all, emit_raw, split_command, Exit, Input, Output, Protocol, Session};
use crate::engine::{EventSink, SearchEvent};
use crate::format::{Display, Printer};
use crate::game::{EngineAction, EngineState, PonderOutcome};
use crate::options::{front, lookup, Source, TABLE};
use std::sync::{Arc, Mutex};

/// The commands the console knows besides the options (for `help` and errors).
pub const COMMANDS: &[(&str, &str)] = &[
    (
        "<move>",
        "play a move (e4, Nf3, O-O, e2e4); the engine answers",
    ),
    ("go | move", "the engine plays the side to move"),
    ("?", "move now (while the engine thinks)"),
    ("new", "new game; the engine plays Black"),
    ("setboard <fen>", "set up a position"),
    (
        "display [<flag>|no<flag>]",
        "show the board, or turn a display flag on/off",
    ),
    ("score", "static evaluation, term by term"),
    (
        "analyze",
        "analyse without end; moves and `back` restart it, `exit` leaves",
    ),
    ("back [n]", "take back n plies (default 1)"),
    ("history", "the moves so far"),
    (
        "info",
        "every setting with its value and where it came from",
    ),
    (
        "egtb",
        "the endgame tables found (egtpath/tbpath) and the largest complete set",
    ),
    (
        "perft <depth>",
        "count the legal move tree of the current position",
    ),
    (
        "ponder on|off|<move>",
        "think on the opponent's time (on the given move)",
    ),
    (
        "level <moves> <minutes> <inc>",
        "time control (0 moves: whole game)",
    ),
    (
        "time 60/30/sd/30 | sd/15 | sd/2/12",
        "time control, Crafty's form",
    ),
    (
        "extensions [<name> <plies>]",
        "show or set incheck, onerep, recapture, pushpp, mate",
    ),
    (
        "evaluation [<knob> <value>]",
        "show or set asymmetry, bscale, kscale, tropism, pscale, ppscale",
    ),
    (
        "book create <pgn> <maxply> [minplay] [wpct]",
        "build book.bin in bookpath from the first maxply plies of every game",
    ),
    (
        "books create <pgn> <maxply>",
        "build the steering book books.bin (!, ?, {play nn%})",
    ),
    (
        "book width <n> | random <0-4> | on | off",
        "how many ranked book moves to keep; how to choose; use the book or not",
    ),
    (
        "book polyglot|crafty <file> | export <file>",
        "use a Polyglot or Crafty book as another source; write ours as a Polyglot book",
    ),
    (
        "bookw freq|ratio|eval|learn <0..1>",
        "weights of the book move ranking",
    ),
    (
        "show book",
        "every book move of this position with its numbers",
    ),
    (
        "learn <n>",
        "learning bits: 1 book, 2 position, 4 result (7 all, 0 off)",
    ),
    (
        "import <file> [clear]",
        "read a book.lrn or position.lrn file into the learning files",
    ),
    (
        "<option> <value> | <option>=<value>",
        "set any option (help lists them)",
    ),
    ("help [<command|option>]", "this list"),
    ("xboard | uci", "switch protocol"),
    ("quit | end", "leave"),
];

fn prompt(s: &Session) {
    let side = s.game.side_to_move();
    emit_raw(
        &s.out,
        &format!("{}({}): ", side.name(), s.game.move_number()),
    );
}

fn printer_sink(out: &Output, s: &Session) -> EventSink {
    let out = Arc::clone(out);
    let printer = Mutex::new(Printer::new(
        s.game.board().clone(),
        Display::from_options(&s.options),
    ));
    Arc::new(move |e: &SearchEvent| {
        let lines = printer.lock().unwrap_or_else(|e| e.into_inner()).event(e);
        emit_all(&out, &lines);
    })
}

fn silent_sink() -> EventSink {
    Arc::new(|_: &SearchEvent| {})
}

struct State {
    analyze: bool,
    /// "No book" was said.
    said_no_book: bool,
}

/// Runs the console until `quit`/`end`, the end of input, or a protocol switch.
pub fn run(s: &mut Session) -> Exit {
    let mut st = State {
        analyze: false,
        said_no_book: false,
    };
    let mut first = true;
    if s.interactive {
        prompt(s);
    }
    loop {
        let input = s.next_input();
        match input {
            Input::Eof => {
                // A script piped in: let a move search finish first.
                if s.game.search_ends_by_itself() {
                    if let Some(f) = s.game.wait_finished() {
                        let _ = s.sender().send(Input::Eof);
                        play_finished(s, f);
                        continue;
                    }
                }
                s.game.abort_search();
                return Exit::Quit;
            }
            Input::Wake => finished(s, &mut st),
            Input::Line(line) => {
                let (cmd, _) = split_command(&line);
                // The first command decides the protocol for GUIs and match runners.
                if cmd == "uci" {
                    s.game.abort_search();
                    return Exit::Switch(Protocol::Uci, line);
                }
                if cmd == "xboard" || (cmd == "protover" && first) {
                    s.game.abort_search();
                    return Exit::Switch(Protocol::Xboard, line);
                }
                first = false;
                s.flush_notes();
                if let Some(exit) = command(s, &mut st, &line) {
                    return exit;
                }
                if s.game.state() != EngineState::Thinking {
                    prompt(s);
                }
            }
        }
    }
}

fn finished(s: &mut Session, st: &mut State) {
    let Some(f) = s.game.take_finished() else {
        return;
    };
    if f.state != EngineState::Thinking || st.analyze {
        return;
    }
    play_finished(s, f);
    prompt(s);
}

/// Shows what the book had to say (moves considered, learning, files).
fn book_notes(s: &mut Session) {
    let mut notes = std::mem::take(&mut s.book_notes);
    if let Some(b) = s.game.book_mut() {
        notes.extend(b.take_notes());
    }
    emit_all(&s.out, &notes);
}

fn play_finished(s: &mut Session, f: crate::game::Finished) {
    let side = s.game.side_to_move();
    let number = s.game.move_number();
    if let Some(e) = &f.result.error {
        s.emit(&format!("search error: {e}"));
    }
    book_notes(s);
    let action = s.game.engine_move(&f.result);
    book_notes(s);
    match action {
        EngineAction::Move {
            san, offer_draw, ..
        } => {
            s.emit(&format!("{}({number}): {san}", side.name()));
            if s.options.bool("display.time") {
                let c = s.game.clocks();
                s.emit(&format!(
                    "clock: White {}  Black {}",
                    crate::format::time(c.left(crate::chess::Color::White)),
                    crate::format::time(c.left(crate::chess::Color::Black))
                ));
            }
            if offer_draw {
                s.emit("kibitzer offers a draw");
            }
            if let Some(r) = s.game.result() {
                s.emit(&r.to_string());
            } else if s.game.ponder_enabled() {
                s.game.start_pondering(silent_sink());
            }
        }
        EngineAction::Resign => s.emit(&format!("{} resigns", side.name())),
        EngineAction::None => {
            if let Some(r) = s.game.result() {
                s.emit(&r.to_string());
            }
        }
    }
}

fn think(s: &mut Session, st: &mut State) {
    if !st.said_no_book {
        st.said_no_book = true;
        if s.game.book_mut().is_none() {
            s.emit("no opening book (set bookpath, or `book create <pgn> <maxply>`): playing from move 1");
        }
    }
    if s.game.result().is_some() {
        if let Some(r) = s.game.result() {
            s.emit(&format!("game over: {r}"));
        }
        return;
    }
    let sink = printer_sink(&s.out, s);
    s.game.think(sink);
}

fn analyse(s: &mut Session) {
    let sink = printer_sink(&s.out, s);
    s.game.analyse(sink, false);
}

fn set_option(s: &mut Session, name: &str, value: &str) -> bool {
    match s.options.set_from(Source::Runtime, name, value) {
        Ok(spec) => {
            if spec.name == "clear_hash" {
                s.game.clear_hash();
            } else {
                s.apply_options();
                if let Some(v) = s.options.value(spec.name) {
                    s.emit(&format!("{} {v}", spec.name));
                }
                book_notes(s);
            }
            true
        }
        Err(e) => {
            s.emit(&e.to_string());
            false
        }
    }
}

/// Handles one console line; `Some` ends the loop.
fn command(s: &mut Session, st: &mut State, line: &str) -> Option<Exit> {
    let line = line.trim();
    // `name=value` settings (`hash=64M`, `mt=2`).
    if let Some((name, value)) = line.split_once('=') {
        if !name.contains(' ') && lookup(name).is_some() {
            set_option(s, name, value);
            return None;
        }
    }
    let (cmd, rest) = split_command(line);
    match cmd {
        "" => {}
        "quit" | "end" => {
            s.game.abort_search();
            return Some(Exit::Quit);
        }
        "?" => {
            if s.game.state() == EngineState::Thinking {
                s.game.stop();
            }
        }
        "go" | "move" => {
            st.analyze = false;
            s.game.abort_search();
            let side = s.game.side_to_move();
            s.game.set_engine_side(Some(side));
            think(s, st);
        }
        "new" => {
            st.analyze = false;
            s.game.new_game();
        }
        "setboard" => match s.game.set_fen(rest) {
            Ok(()) => {
                if st.analyze {
                    analyse(s);
                }
            }
            Err(e) => s.emit(&e.to_string()),
        },
        "display" => display(s, rest),
        "score" => {
            let mut ev = crate::eval::Evaluator::new(1 << 16);
            ev.set_params(s.game.config().eval);
            let text = ev.breakdown(s.game.board()).to_string();
            emit_all(&s.out, &text.lines().map(String::from).collect::<Vec<_>>());
        }
        "analyze" | "analyse" => {
            st.analyze = true;
            s.game.set_engine_side(None);
            analyse(s);
        }
        "exit" => {
            if st.analyze {
                st.analyze = false;
                s.game.abort_search();
            }
        }
        "back" => {
            let n: usize = if rest.is_empty() {
                1
            } else {
                rest.parse().unwrap_or(0)
            };
            if n == 0 {
                s.emit(&format!("back: '{rest}' is not a number of plies"));
            }
            for _ in 0..n {
                if let Err(e) = s.game.undo() {
                    s.emit(&e.to_string());
                    break;
                }
            }
            if st.analyze {
                analyse(s);
            }
        }
        "history" => {
            let text = s.game.movetext();
            emit_all(&s.out, &text.lines().map(String::from).collect::<Vec<_>>());
        }
        "info" => {
            let l = s.options.help_lines();
            emit_all(&s.out, &l);
        }
        "egtb" => {
            let l = s.game.tables_report();
            emit_all(&s.out, &l);
        }
        "help" => help(s, rest),
        "perft" => match rest.parse::<u32>() {
            Ok(d) if d <= 8 => {
                let mut b = s.game.board().clone();
                let mut buf = Vec::new();
                let _ = crate::tools::perft::run_perft(&mut b, d, false, &mut buf);
                let text = String::from_utf8_lossy(&buf);
                emit_all(&s.out, &text.lines().map(String::from).collect::<Vec<_>>());
            }
            _ => s.emit(&format!("perft: expected a depth 0..=8, got '{rest}'")),
        },
        "ponder" => ponder(s, rest),
        "level" => {
            if set_option(s, "level", rest) {
                set_option(s, "st", "0");
                reset_clocks(s);
            }
        }
        "time" => {
            let w = rest.to_ascii_lowercase();
            if w == "cpu" || w == "elapsed" {
                s.emit("time: kibitzer always measures elapsed time");
            } else if set_option(s, "level", rest) {
                set_option(s, "st", "0");
                reset_clocks(s);
            }
        }
        "extensions" | "evaluation" => group(s, cmd, rest),
        "book" => book_command(s, rest),
        "books" => match split_command(rest) {
            ("create", args) => book_create(s, args, true),
            _ => s.emit("books: expected `books create <pgn> <maxply>`"),
        },
        "bookw" => bookw(s, rest),
        "show" => match rest {
            "book" => {
                let b = s.game.board().clone();
                let lines = match crate::book::keeper::keeper(&mut s.game) {
                    Some(k) => k.show(&b, Default::default()),
                    None => vec![
                        "no book loaded (set bookpath, or `book create <pgn> <maxply>`)".into(),
                    ],
                };
                emit_all(&s.out, &lines);
            }
            _ => s.emit("show: expected `show book`"),
        },
        "import" => import(s, rest),
        "xboard" | "protover" => return Some(Exit::Switch(Protocol::Xboard, line.to_string())),
        "uci" => return Some(Exit::Switch(Protocol::Uci, line.to_string())),
        _ => {
            if let Some(spec) = lookup(cmd).filter(|sp| sp.shown_in(front::CONSOLE)) {
                if rest.is_empty() && spec.kind != crate::options::Kind::Button {
                    s.emit(&s.options.describe(spec));
                } else {
                    set_option(s, cmd, rest);
                }
                return None;
            }
            user_move(s, st, line);
        }
    }
    None
}

fn reset_clocks(s: &mut Session) {
    let tc = s.options.level();
    s.game.clocks_mut().reset(tc);
}

fn user_move(s: &mut Session, st: &mut State, text: &str) {
    let mv = match s.game.parse_move(text) {
        Ok(m) => m,
        Err(e) => {
            s.emit(&format!(
                "'{text}': not a command, and not a move here ({e}); `help` lists the commands"
            ));
            return;
        }
    };
    if s.game.state() == EngineState::Thinking {
        s.emit("the engine is thinking on its move (`?` makes it move now)");
        return;
    }
    if s.game.result().is_some() && !st.analyze {
        s.emit("the game is over (`new` starts another)");
        return;
    }
    match s.game.opponent_move(mv) {
        Ok(PonderOutcome::Hit) => {}
        Ok(_) => {
            if st.analyze {
                analyse(s);
                return;
            }
            if let Some(r) = s.game.result() {
                s.emit(&r.to_string());
                book_notes(s);
                return;
            }
            // The engine answers for the other side.
            let side = s.game.side_to_move();
            s.game.set_engine_side(Some(side));
            think(s, st);
        }
        Err(e) => s.emit(&e.to_string()),
    }
}

/// The book directory (`bookpath`), or the current directory (then made the
/// `bookpath`) when none is set.
fn book_dir(s: &mut Session) -> std::path::PathBuf {
    let dir = s.options.str("bookpath").trim().to_string();
    if dir.is_empty() {
        set_option(s, "bookpath", ".");
        std::path::PathBuf::from(".")
    } else {
        std::path::PathBuf::from(dir)
    }
}

/// Re-reads the book files after they changed.
fn reload_book(s: &mut Session) {
    match crate::book::keeper::keeper(&mut s.game) {
        Some(k) => k.reload(),
        None => {
            let notes = crate::book::install(&mut s.game, &s.options);
            s.book_notes.extend(notes);
        }
    }
    book_notes(s);
}

fn book_command(s: &mut Session, rest: &str) {
    let (sub, args) = split_command(rest);
    match sub {
        "create" => book_create(s, args, false),
        "width" => {
            set_option(s, "book.width", args);
        }
        "random" => {
            set_option(s, "book.random", args);
        }
        "on" | "off" => {
            set_option(s, "ownbook", sub);
        }
        "polyglot" => {
            set_option(s, "book.polyglot", args);
        }
        "crafty" => {
            set_option(s, "book.crafty", args);
        }
        "export" => {
            if args.is_empty() {
                s.emit("book export: expected a file name for the Polyglot book");
                return;
            }
            let msg = match crate::book::keeper::keeper(&mut s.game).and_then(|k| k.main_book()) {
                Some(b) => match crate::book::polyglot::export(b, std::path::Path::new(args)) {
                    Ok(n) => format!("{args}: {n} Polyglot entries written"),
                    Err(e) => format!("book export: {e}"),
                },
                None => "book export: no book loaded".into(),
            };
            s.emit(&msg);
        }
        "" => {
            let lines = match crate::book::keeper::keeper(&mut s.game) {
                Some(k) => book_info(k),
                None => {
                    vec!["no book loaded (set bookpath, or `book create <pgn> <maxply>`)".into()]
                }
            };
            emit_all(&s.out, &lines);
        }
        _ => s.emit(&format!(
            "book: unknown '{sub}'; expected create, width, random, on, off, polyglot, crafty or export"
        )),
    }
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

fn book_create(s: &mut Session, args: &str, steering: bool) {
    use crate::book::{create_book_from_file, CreateOptions};
    let w: Vec<&str> = args.split_whitespace().collect();
    let usage = if steering {
        "books create <pgn> <maxply>"
    } else {
        "book create <pgn> <maxply> [minplay] [wpct]"
    };
    let num = |i: usize, default: u32| -> Option<u32> {
        match w.get(i) {
            Some(t) => t.parse().ok(),
            None => Some(default),
        }
    };
    let (Some(pgn), Some(max_ply), Some(min_played), Some(wpct)) =
        (w.first(), num(1, 0), num(2, 1), num(3, 0))
    else {
        s.emit(&format!("expected `{usage}`"));
        return;
    };
    if max_ply == 0 || w.len() > if steering { 2 } else { 4 } {
        s.emit(&format!("expected `{usage}` (maxply at least 1)"));
        return;
    }
    let opts = if steering {
        CreateOptions::steering(max_ply)
    } else {
        CreateOptions::book(max_ply, min_played, wpct)
    };
    let dir = book_dir(s);
    let out = dir.join(if steering {
        crate::book::STEERING_FILE
    } else {
        crate::book::BOOK_FILE
    });
    let o = std::sync::Arc::clone(&s.out);
    let mut last = std::time::Instant::now();
    let mut skipped = 0usize;
    let o2 = std::sync::Arc::clone(&s.out);
    let r = create_book_from_file(
        std::path::Path::new(pgn),
        &out,
        &opts,
        &mut |p| {
            if last.elapsed() >= std::time::Duration::from_secs(5) {
                last = std::time::Instant::now();
                super::emit(&o, &p.line());
            }
        },
        &mut |sk| {
            skipped += 1;
            if skipped <= 20 {
                super::emit(&o2, &format!("skipped game {}: {}", sk.game, sk.reason));
            } else if skipped == 21 {
                super::emit(&o2, "(more skipped games are only counted)");
            }
        },
    );
    match r {
        Ok(rep) => {
            emit_all(&s.out, &rep.summary(&out));
            reload_book(s);
        }
        Err(e) => s.emit(&format!(
            "{}: {e}",
            if steering {
                "books create"
            } else {
                "book create"
            }
        )),
    }
}

/// `bookw freq 0.7`: weights are fractions at the console, percentages in the table.
fn bookw(s: &mut Session, rest: &str) {
    let (which, value) = split_command(rest);
    if !matches!(which, "freq" | "ratio" | "eval" | "learn") {
        s.emit("bookw: expected freq, ratio, eval or learn and a weight 0..1");
        return;
    }
    let name = format!("bookw.{which}");
    if value.is_empty() {
        let pct = s.options.int(&name);
        s.emit(&format!("bookw {which} {:.2}", pct as f64 / 100.0));
        return;
    }
    match value.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => {
            set_option(s, &name, &format!("{}", (v * 100.0).round() as i64));
        }
        _ => s.emit(&format!("bookw {which}: '{value}' is not a weight in 0..1")),
    }
}

/// `import <file> [clear]`.
fn import(s: &mut Session, rest: &str) {
    let (file, opt) = split_command(rest);
    if file.is_empty() || !(opt.is_empty() || opt == "clear") {
        s.emit("import: expected `import <file> [clear]`");
        return;
    }
    if crate::book::keeper::keeper(&mut s.game).is_none() {
        book_dir(s);
        reload_book(s);
    }
    let msg = match crate::book::keeper::keeper(&mut s.game) {
        Some(k) => match k.import(std::path::Path::new(file), opt == "clear") {
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
    emit_all(&s.out, &msg.lines().map(String::from).collect::<Vec<_>>());
}

fn ponder(s: &mut Session, rest: &str) {
    match rest.to_ascii_lowercase().as_str() {
        "" => s.emit(&format!("ponder {}", s.options.text("ponder"))),
        "on" | "off" => {
            set_option(s, "ponder", rest);
            if rest.eq_ignore_ascii_case("off") && s.game.state() == EngineState::Pondering {
                s.game.abort_search();
            }
        }
        _ => match s.game.parse_move(rest) {
            Ok(mv) => {
                s.game.set_ponder_move(Some(mv));
                if s.game.state() == EngineState::Pondering {
                    s.game.abort_search();
                    s.game.set_ponder_move(Some(mv));
                    s.game.start_pondering(silent_sink());
                }
                s.emit(&format!("ponder move {}", s.game.board().san(mv)));
            }
            Err(e) => s.emit(&format!("ponder: expected on, off or a legal move ({e})")),
        },
    }
}

fn display(s: &mut Session, rest: &str) {
    if rest.is_empty() {
        let mut lines: Vec<String> = s.game.board().diagram().lines().map(String::from).collect();
        lines.push(format!("fen {}", s.game.board().to_fen()));
        emit_all(&s.out, &lines);
        return;
    }
    let (on, flag) = match rest.strip_prefix("no") {
        Some(f) => ("off", f),
        None => ("on", rest),
    };
    let name = format!("display.{flag}");
    if lookup(&name).is_some() {
        set_option(s, &name, on);
    } else {
        let flags: Vec<&str> = TABLE
            .iter()
            .filter_map(|sp| sp.name.strip_prefix("display."))
            .collect();
        s.emit(&format!(
            "display: unknown flag '{rest}'; expected one of {} (or no<flag>)",
            flags.join(", ")
        ));
    }
}

/// `extensions incheck 1`, `evaluation kscale 120`; alone, the current values.
fn group(s: &mut Session, group: &str, rest: &str) {
    let (name, value) = split_command(rest);
    if name.is_empty() {
        let mut lines: Vec<String> = TABLE
            .iter()
            .filter(|sp| sp.name.starts_with(&format!("{group}.")))
            .map(|sp| format!("{} {}", sp.name, s.options.text(sp.name)))
            .collect();
        if group == "evaluation" {
            lines.extend(
                s.game
                    .config()
                    .eval
                    .king_safety_table()
                    .lines()
                    .map(String::from),
            );
        }
        emit_all(&s.out, &lines);
        return;
    }
    let full = format!("{group}.{name}");
    if lookup(&full).is_none() {
        let names: Vec<&str> = TABLE
            .iter()
            .filter_map(|sp| sp.name.strip_prefix(&format!("{group}.")))
            .collect();
        s.emit(&format!(
            "{group}: unknown '{name}'; expected one of {}",
            names.join(", ")
        ));
        return;
    }
    if value.is_empty() {
        s.emit(&format!("{full} {}", s.options.text(&full)));
    } else {
        set_option(s, &full, value);
    }
}

fn help(s: &mut Session, rest: &str) {
    if !rest.is_empty() {
        if let Some(spec) = lookup(rest) {
            s.emit(&s.options.describe(spec));
            return;
        }
        if let Some((c, h)) = COMMANDS
            .iter()
            .find(|(c, _)| c.split([' ', '|']).next() == Some(rest))
        {
            s.emit(&format!("{c}: {h}"));
            return;
        }
        s.emit(&format!("help: no command or option '{rest}'"));
        return;
    }
    let mut lines = vec!["commands:".to_string()];
    lines.extend(COMMANDS.iter().map(|(c, h)| format!("  {c:<36} {h}")));
    lines.push("options (name = value [source]):".into());
    lines.extend(s.options.help_lines().into_iter().map(|l| format!("  {l}")));
    emit_all(&s.out, &lines);
}
