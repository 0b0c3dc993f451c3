//! The Crafty-style console (minimal; the Console issue completes it): the
//! `White(1): ` prompt, moves in SAN or coordinates (the engine answers for the other
//! side), `go`/`move`, `new`, `setboard`, `display`, `score`, `help`, `analyze`,
//! `back`, `history`, `info`, `egtb`, `perft`, `ponder on|off|<move>`, `level`, `time`,
//! `extensions`, `evaluation`, `quit`/`end`, and every option of the table as `name
//! value` or `name=value` (`hash=64M`, `mt=2`, `sd 8`, `noise 0`). `xboard` or
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
}

/// Runs the console until `quit`/`end`, the end of input, or a protocol switch.
pub fn run(s: &mut Session) -> Exit {
    let mut st = State { analyze: false };
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

fn play_finished(s: &mut Session, f: crate::game::Finished) {
    let side = s.game.side_to_move();
    let number = s.game.move_number();
    if let Some(e) = &f.result.error {
        s.emit(&format!("search error: {e}"));
    }
    match s.game.engine_move(&f.result) {
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

fn think(s: &mut Session) {
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
            think(s);
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
                return;
            }
            // The engine answers for the other side.
            let side = s.game.side_to_move();
            s.game.set_engine_side(Some(side));
            think(s);
        }
        Err(e) => s.emit(&e.to_string()),
    }
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
