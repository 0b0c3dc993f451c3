//! xboard/CECP v2: `protover 2` gets the feature list (`ping=1 setboard=1 usermove=1
//! time=1 analyze=1 colors=0 playother=1 memory=1 smp=1 egt="syzygy" sigint=0
//! sigterm=0`, one `option=` feature per option the table exposes to xboard, then
//! `done=1`). Commands: new, variant, force, go, playother, white, black, level, st,
//! sd, time/otim (centiseconds), usermove, `?`, ping, draw, result, setboard, hint,
//! bk, undo, remove, hard/easy, post/nopost, analyze with `.` and exit, name, rating,
//! computer, ics, memory, cores, egtpath, option, random, quit.
//!
//! Moves go out as `move e2e4`; thinking output (`post`) is `depth score time nodes
//! pv` with the score from the side to move in centipawns (mates as 100000 + moves,
//! as recent xboard and cutechess read them) and the time in centiseconds. A `ping`
//! that arrives while the engine thinks on its move is answered after the move. The
//! game itself (position, clocks, pondering, result) is the game controller's.

use super::{emit, emit_all, split_command, Exit, Input, Output, Protocol, Session};
use crate::chess::{Color, Move};
use crate::engine::{EventSink, SearchEvent, SearchInfo};
use crate::game::{EngineAction, EngineState, Outcome, PonderOutcome};
use crate::options::Source;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An xboard score: centipawns, or 100000 + N for a mate in N moves (negative when
/// mated).
pub fn score(stm_cp: i32) -> i32 {
    match crate::engine::mate_in(stm_cp) {
        Some(n) if n > 0 => 100_000 + n,
        Some(n) => -100_000 + n,
        None => stm_cp,
    }
}

/// One thinking line: `depth score time(cs) nodes pv`.
pub fn post_line(i: &SearchInfo, root: &crate::chess::Board) -> String {
    format!(
        "{} {} {} {} {}",
        i.depth,
        score(i.score),
        i.time.as_millis() / 10,
        i.nodes,
        crate::format::pv(root, &i.pv, false)
    )
}

/// What `.` reports during analysis.
#[derive(Clone, Debug, Default)]
struct Stat {
    depth: i32,
    nodes: u64,
    time: Duration,
    move_number: usize,
    total: usize,
    mv: Option<Move>,
    best: Option<Move>,
    started: Option<std::time::Instant>,
}

struct State {
    post: bool,
    analyze: bool,
    /// Last `time` and `otim` (engine's and opponent's clocks).
    etime: Option<Duration>,
    otime: Option<Duration>,
    /// `ping`s answered once the engine has moved.
    pongs: Vec<String>,
    stat: Arc<Mutex<Stat>>,
}

fn sink(
    out: &Output,
    root: &crate::chess::Board,
    post: bool,
    stat: &Arc<Mutex<Stat>>,
) -> EventSink {
    let out = Arc::clone(out);
    let root = root.clone();
    let stat = Arc::clone(stat);
    let total = root.count_legal_moves();
    {
        let mut s = stat.lock().unwrap_or_else(|e| e.into_inner());
        *s = Stat {
            total,
            started: Some(std::time::Instant::now()),
            ..Default::default()
        };
    }
    Arc::new(move |e: &SearchEvent| match e {
        SearchEvent::Iteration(i) | SearchEvent::NewBest(i) => {
            {
                let mut s = stat.lock().unwrap_or_else(|e| e.into_inner());
                s.depth = i.depth;
                s.nodes = i.nodes;
                s.time = i.time;
                s.best = i.pv.first().copied();
            }
            if post && i.multipv == 1 {
                emit(&out, &post_line(i, &root));
            }
        }
        SearchEvent::CurrMove { depth, mv, number } => {
            let mut s = stat.lock().unwrap_or_else(|e| e.into_inner());
            s.depth = *depth;
            s.mv = Some(*mv);
            s.move_number = *number;
        }
        _ => {}
    })
}

fn features(s: &Session) -> Vec<String> {
    let mut v = vec![
        "feature done=0".to_string(),
        format!(
            "feature ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=1 sigint=0 sigterm=0 \
             reuse=1 analyze=1 colors=0 ics=1 name=1 pause=0 nps=0 debug=1 memory=1 smp=1 \
             egt=\"syzygy\" variants=\"normal\" myname=\"{}\"",
            super::uci::engine_name()
        ),
    ];
    for o in s.options.xboard_options() {
        v.push(format!("feature option=\"{o}\""));
    }
    v.push("feature done=1".into());
    v
}

/// Runs the xboard loop until `quit` or the end of input.
pub fn run(s: &mut Session) -> Exit {
    let mut st = State {
        post: true,
        analyze: false,
        etime: None,
        otime: None,
        pongs: Vec::new(),
        stat: Arc::new(Mutex::new(Stat::default())),
    };
    loop {
        match s.next_input() {
            Input::Eof => {
                // A script piped in: a search for a move finishes and is played.
                if s.game.search_ends_by_itself() {
                    s.game.engine().wait();
                    finished(s, &mut st);
                }
                s.game.abort_search();
                return Exit::Quit;
            }
            Input::Wake => finished(s, &mut st),
            Input::Interrupt => {}
            Input::Line(line) => {
                if let Some(exit) = command(s, &mut st, &line) {
                    return exit;
                }
            }
        }
    }
}

fn flush_pongs(s: &Session, st: &mut State) {
    let p = std::mem::take(&mut st.pongs);
    emit_all(&s.out, &p);
}

fn finished(s: &mut Session, st: &mut State) {
    let Some(f) = s.game.take_finished() else {
        return;
    };
    if f.state != EngineState::Thinking {
        // A ponder search or analysis that was stopped: nothing to play.
        flush_pongs(s, st);
        return;
    }
    if let Some(e) = &f.result.error {
        s.emit(&format!("# search error: {e}"));
    }
    match s.game.engine_move(&f.result) {
        EngineAction::Move { mv, offer_draw, .. } => {
            s.emit(&format!("move {mv}"));
            if offer_draw {
                s.emit("offer draw");
            }
            if let Some(r) = s.game.result() {
                s.emit(&r.to_string());
            }
        }
        EngineAction::Resign => s.emit("resign"),
        EngineAction::None => {
            if let Some(r) = s.game.result() {
                s.emit(&r.to_string());
            }
        }
    }
    flush_pongs(s, st);
    ponder(s, st);
}

fn ponder(s: &mut Session, st: &mut State) {
    if st.analyze || s.game.engine_side().is_none() || s.game.engine_to_move() {
        return;
    }
    let mut root = s.game.board().clone();
    if let Some(mv) = s.game.expected_reply() {
        if root.is_legal(mv) {
            root.make_move(mv);
        }
    }
    let sink = sink(&s.out, &root, st.post, &st.stat);
    s.game.start_pondering(sink);
}

/// Starts the engine's search for its move if it is on move.
fn think_if_on_move(s: &mut Session, st: &mut State) {
    if st.analyze || !s.game.engine_to_move() || s.game.state() != EngineState::Idle {
        return;
    }
    let side = s.game.side_to_move();
    if let Some(t) = st.etime {
        s.game.clocks_mut().set_left(side, t);
    }
    if let Some(t) = st.otime {
        s.game.clocks_mut().set_left(!side, t);
    }
    let sink = sink(&s.out, s.game.board(), st.post, &st.stat);
    s.game.think(sink);
}

fn analyse(s: &mut Session, st: &mut State) {
    let sink = sink(&s.out, s.game.board(), st.post, &st.stat);
    s.game.analyse(sink, false);
}

fn set_option(s: &mut Session, name: &str, value: &str) {
    match s.options.set_from(Source::Runtime, name, value) {
        Ok(_) => s.apply_options(),
        Err(e) => s.emit(&format!("Error ({e}): {name} {value}")),
    }
}

fn centiseconds(v: &str) -> Option<Duration> {
    v.trim()
        .parse::<i64>()
        .ok()
        .map(|cs| Duration::from_millis(cs.max(0) as u64 * 10))
}

/// Handles one xboard command; `Some` ends the loop.
fn command(s: &mut Session, st: &mut State, line: &str) -> Option<Exit> {
    let (cmd, rest) = split_command(line);
    match cmd {
        "" | "xboard" | "accepted" | "rejected" | "random" | "nps" | "computer_is" => {}
        "protover" => {
            let f = features(s);
            emit_all(&s.out, &f);
            s.flush_notes();
        }
        "new" => {
            st.analyze = false;
            s.game.new_game();
            // `new` removes any depth limit.
            let _ = s.options.set_from(Source::Runtime, "sd", "0");
            s.apply_options();
            st.etime = None;
            st.otime = None;
        }
        "variant" => {
            if rest != "normal" {
                s.emit(&format!("Error (unsupported variant): {rest}"));
            }
        }
        "force" => {
            s.game.abort_search();
            s.game.set_engine_side(None);
        }
        "go" => {
            st.analyze = false;
            s.game.abort_search();
            let side = s.game.side_to_move();
            s.game.set_engine_side(Some(side));
            think_if_on_move(s, st);
        }
        "playother" => {
            s.game.abort_search();
            let side = s.game.side_to_move();
            s.game.set_engine_side(Some(!side));
            ponder(s, st);
        }
        "white" | "black" => {
            s.game.abort_search();
            let engine = if cmd == "white" {
                Color::Black
            } else {
                Color::White
            };
            s.game.set_engine_side(Some(engine));
        }
        "level" => {
            set_option(s, "st", "0");
            set_option(s, "level", rest);
        }
        "st" => set_option(s, "st", rest),
        "sd" => set_option(s, "sd", rest),
        "time" => st.etime = centiseconds(rest),
        "otim" => st.otime = centiseconds(rest),
        "usermove" => user_move(s, st, rest),
        "?" => {
            if s.game.state() == EngineState::Thinking {
                s.game.stop();
            }
        }
        "ping" => {
            let pong = format!("pong {rest}");
            if s.game.state() == EngineState::Thinking && !st.analyze {
                st.pongs.push(pong);
            } else {
                s.emit(&pong);
            }
        }
        "draw" => {
            if s.game.engine_side().is_some() && s.game.draw_offered() {
                s.emit("offer draw");
            }
        }
        "result" => {
            let (res, comment) = split_command(rest);
            let outcome = Outcome::parse(res).unwrap_or(Outcome::Unfinished);
            let reason = comment.trim_start_matches('{').trim_end_matches('}').trim();
            s.game.set_result(outcome, reason);
            st.analyze = false;
        }
        "setboard" => match s.game.set_fen(rest) {
            Ok(()) => {
                if st.analyze {
                    analyse(s, st);
                }
            }
            Err(e) => s.emit(&format!("tellusererror Illegal position: {e}")),
        },
        "edit" => s.emit("Error (not supported, use setboard): edit"),
        "hint" => {
            if let Some(m) = s.game.expected_reply() {
                if s.game.board().is_legal(m) {
                    s.emit(&format!("Hint: {m}"));
                }
            }
        }
        "bk" => emit_all(&s.out, &[" no book moves".to_string(), String::new()]),
        "undo" | "remove" => {
            let r = if cmd == "undo" {
                s.game.undo()
            } else {
                s.game.remove()
            };
            match r {
                Ok(()) => {
                    if st.analyze {
                        analyse(s, st);
                    }
                }
                Err(e) => s.emit(&format!("Error ({e}): {cmd}")),
            }
        }
        "hard" => set_option(s, "ponder", "on"),
        "easy" => {
            set_option(s, "ponder", "off");
            if s.game.state() == EngineState::Pondering {
                s.game.abort_search();
            }
        }
        "post" => st.post = true,
        "nopost" => st.post = false,
        "analyze" => {
            st.analyze = true;
            s.game.set_engine_side(None);
            analyse(s, st);
        }
        "exit" => {
            if st.analyze {
                st.analyze = false;
                s.game.abort_search();
            }
        }
        "." => {
            if st.analyze {
                let stat = st.stat.lock().unwrap_or_else(|e| e.into_inner()).clone();
                let cs = stat.started.map_or(0, |t| t.elapsed().as_millis() / 10);
                let mv = stat
                    .mv
                    .or(stat.best)
                    .filter(|&m| s.game.board().is_legal(m))
                    .map(|m| s.game.board().san(m))
                    .unwrap_or_default();
                let left = stat.total.saturating_sub(stat.move_number);
                s.emit(&format!(
                    "stat01: {cs} {} {} {left} {} {mv}",
                    stat.nodes, stat.depth, stat.total
                ));
            }
        }
        "name" => s.game.opponent_mut().name = rest.to_string(),
        "rating" => {
            let mut w = rest.split_whitespace().map(|v| v.parse::<i32>().ok());
            let own = w.next().flatten();
            let opp = w.next().flatten();
            let o = s.game.opponent_mut();
            o.own_rating = own;
            o.rating = opp;
        }
        "ics" => {
            s.game.opponent_mut().server = if rest == "-" {
                String::new()
            } else {
                rest.to_string()
            }
        }
        "computer" => s.game.opponent_mut().computer = true,
        "memory" => match rest.parse::<u64>() {
            Ok(mb) => set_option(s, "hash", &format!("{}M", mb.max(1))),
            Err(_) => s.emit(&format!("Error (bad memory size): {rest}")),
        },
        "cores" => set_option(s, "threads", rest),
        "egtpath" => {
            let (kind, path) = split_command(rest);
            if kind.eq_ignore_ascii_case("syzygy") {
                set_option(s, "egtpath", path);
            }
        }
        "option" => {
            let (name, value) = rest.split_once('=').unwrap_or((rest, ""));
            match s.options.set_xboard(name.trim(), value.trim()) {
                Ok(spec) if spec.name == "clear_hash" => s.game.clear_hash(),
                Ok(_) => s.apply_options(),
                Err(e) => s.emit(&format!("Error ({e}): option")),
            }
        }
        "quit" => {
            s.game.abort_search();
            return Some(Exit::Quit);
        }
        "uci" => return Some(Exit::Switch(Protocol::Uci, line.to_string())),
        _ => {
            // A bare move (usermove=0 GUIs) is accepted too.
            if s.game.board().parse_uci(cmd).is_ok() && rest.is_empty() {
                user_move(s, st, cmd);
            } else {
                s.emit(&format!("Error (unknown command): {}", line.trim()));
            }
        }
    }
    None
}

fn user_move(s: &mut Session, st: &mut State, text: &str) {
    let mv = match s.game.board().parse_move(text) {
        Ok(m) => m,
        Err(_) => {
            s.emit(&format!("Illegal move: {text}"));
            return;
        }
    };
    // The engine's ponder search knows the opponent's clock as its own is unchanged.
    match s.game.opponent_move(mv) {
        Ok(PonderOutcome::Hit) => {}
        Ok(_) => {
            if st.analyze {
                analyse(s, st);
            } else {
                think_if_on_move(s, st);
            }
        }
        Err(_) => s.emit(&format!("Illegal move: {text}")),
    }
}
