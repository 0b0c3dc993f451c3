//! The console's other commands: settings, clocks, the game (new, back, reset,
//! force, go, draw), help and info, and the protocol switches.

use super::*;

/// A command that is an option: alone its value, else sets it.
pub(super) fn cmd_option(c: &mut Con, name: &str, rest: &str) -> Res {
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
pub(super) fn cmd_path(c: &mut Con, name: &str, rest: &str) -> Res {
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

pub(super) fn cmd_move_now(c: &mut Con, _: &str, _: &str) -> Res {
    if c.s.game.state() == EngineState::Thinking {
        c.s.game.stop();
    }
    Ok(())
}

pub(super) fn cmd_ansi(c: &mut Con, _: &str, rest: &str) -> Res {
    c.st.ansi = on_off(rest)?;
    c.emit(&format!("ansi {}", if c.st.ansi { "on" } else { "off" }));
    Ok(())
}

pub(super) fn cmd_back(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_clock(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn show_clocks(c: &Con) {
    let k = c.s.game.clocks();
    c.emit(&format!(
        "clock: White {}  Black {}",
        crate::format::time(k.left(Color::White)),
        crate::format::time(k.left(Color::Black))
    ));
}

pub(super) fn cmd_computer(c: &mut Con, _: &str, _: &str) -> Res {
    c.s.game.opponent_mut().computer = true;
    c.emit("the opponent is a computer");
    Ok(())
}

pub(super) fn cmd_draw(c: &mut Con, _: &str, _: &str) -> Res {
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

pub(super) fn cmd_echo(c: &mut Con, _: &str, rest: &str) -> Res {
    c.emit(rest);
    Ok(())
}

pub(super) fn cmd_egtb(c: &mut Con, _: &str, _: &str) -> Res {
    let report = c.s.game.tables_report();
    c.emit_all(&report);
    Ok(())
}

pub(super) fn cmd_quit(c: &mut Con, _: &str, _: &str) -> Res {
    c.st.exit = Some(Exit::Quit);
    Ok(())
}

/// `extensions incheck 1`, `evaluation kscale 120`; alone, the current values.
pub(super) fn cmd_group(c: &mut Con, group: &str, rest: &str) -> Res {
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

pub(super) fn cmd_exit(c: &mut Con, _: &str, _: &str) -> Res {
    if c.st.analyze {
        c.st.analyze = false;
        c.s.game.abort_search();
    }
    Ok(())
}

pub(super) fn cmd_force(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_go(c: &mut Con, _: &str, _: &str) -> Res {
    c.st.analyze = false;
    c.st.force = false;
    c.s.game.abort_search();
    let side = c.s.game.side_to_move();
    c.s.game.set_engine_side(Some(side));
    c.think();
    Ok(())
}

pub(super) fn cmd_help(c: &mut Con, _: &str, rest: &str) -> Res {
    if !rest.is_empty() && rest != "all" {
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
    if rest.is_empty() {
        // An overview that fits a screen; `help all` is the whole table.
        let mut lines = vec![
            "moves: type them in SAN or coordinates (e4, Nf3, O-O, e7e5, e7e8q)".to_string(),
            "commands by topic (`help <command>` for one, `help all` for every command and option):"
                .to_string(),
        ];
        let mut listed: Vec<&str> = Vec::new();
        for (topic, names) in HELP_TOPICS {
            listed.extend_from_slice(names);
            lines.push(format!("  {topic:<10} {}", names.join(" ")));
        }
        let other: Vec<&str> = COMMANDS
            .iter()
            .map(|c| c.names[0])
            .filter(|n| !listed.contains(n))
            .collect();
        if !other.is_empty() {
            lines.push(format!("  {:<10} {}", "other", other.join(" ")));
        }
        lines.push(format!(
            "options: {} of them; `help all` lists them with their values, `help <option>` one",
            c.s.options.help_lines().len()
        ));
        c.emit_all(&lines);
        return Ok(());
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

/// The overview `help` prints: the commands by topic (a command not named here is
/// listed under "other", so a new one is never hidden).
const HELP_TOPICS: &[(&str, &[&str])] = &[
    (
        "play",
        &[
            "new", "go", "force", "?", "back", "white", "black", "resign", "draw", "flag", "end",
            "exit",
        ],
    ),
    (
        "time",
        &[
            "level", "time", "st", "sd", "sn", "settc", "clock", "ponder", "usage",
        ],
    ),
    (
        "position",
        &[
            "setboard", "edit", "display", "show", "history", "score", "tags", "reset",
        ],
    ),
    (
        "analysis",
        &[
            "analyze",
            "annotate",
            "annotateh",
            "search",
            "test",
            "perft",
            "perf",
            "trace",
        ],
    ),
    (
        "files",
        &[
            "read", "reada", "savegame", "savepos", "pgn", "input", "import", "log", "newlog",
            "logpath", "ls",
        ],
    ),
    ("book", &["book", "books", "bookw", "bookpath", "learn"]),
    (
        "engine",
        &[
            "hash",
            "hashp",
            "cache",
            "egtb",
            "tbpath",
            "smpmt",
            "smpmin",
            "smpmax",
            "evaluation",
            "extensions",
            "drawscore",
            "swindle",
        ],
    ),
    (
        "talk",
        &[
            "whisper", "kibitz", "noise", "name", "computer", "list", "mode", "operator",
        ],
    ),
    (
        "protocol",
        &["uci", "xboard", "ansi", "echo", "alarm", "info", "help"],
    ),
];
pub(super) fn cmd_history(c: &mut Con, _: &str, _: &str) -> Res {
    let text = c.s.game.movetext();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with('[') && !l.trim().is_empty())
        .map(String::from)
        .collect();
    c.emit_all(&lines);
    Ok(())
}

pub(super) fn cmd_info(c: &mut Con, _: &str, _: &str) -> Res {
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

pub(super) fn cmd_level(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        c.emit(&format!("level {}", c.s.options.text("level")));
        return Ok(());
    }
    set_level(c, rest)
}

pub(super) fn set_level(c: &mut Con, tc: &str) -> Res {
    c.set_option("level", tc)
        .map_err(|e| e.strip_prefix("option level: ").unwrap_or(&e).to_string())?;
    c.set_option("st", "0")?;
    let tc = c.s.options.level();
    c.s.game.clocks_mut().reset(tc);
    Ok(())
}

pub(super) fn cmd_list(c: &mut Con, _: &str, rest: &str) -> Res {
    let dir = std::path::PathBuf::from(c.s.options.str("bot.lists").trim());
    let mut lists = crate::bot::lists::Lists::load(&dir);
    let report = lists.command(rest)?;
    // At the console (the operator's own terminal) the file is named too.
    match rest.split_whitespace().next().and_then(|l| lists.path(l)) {
        Some(p) => c.emit(&format!("{report} (file {})", p.display())),
        None => c.emit(&report),
    }
    Ok(())
}

pub(super) fn cmd_name(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a name".into());
    }
    c.s.game.opponent_mut().name = rest.to_string();
    c.emit(&format!("opponent: {rest}"));
    Ok(())
}

pub(super) fn new_game(c: &mut Con) {
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

pub(super) fn cmd_new(c: &mut Con, _: &str, _: &str) -> Res {
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

pub(super) fn cmd_ponder(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_reset(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_settc(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_show(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest != "book" {
        return Err(format!("'{rest}' is not book"));
    }
    let b = c.s.game.board().clone();
    let lines = match crate::game::book_keeper::keeper(&mut c.s.game) {
        Some(k) => k.show(&b, Default::default()),
        None => vec!["no book loaded (set bookpath, or `book create <pgn> <maxply>`)".into()],
    };
    c.emit_all(&lines);
    Ok(())
}

pub(super) fn cmd_time(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_trace(c: &mut Con, _: &str, rest: &str) -> Res {
    let n: u32 = rest
        .parse()
        .map_err(|_| format!("'{rest}' is not a trace depth"))?;
    c.set_option("display.moves", if n > 0 { "on" } else { "off" })?;
    if n > 1 {
        c.emit("trace: only the root moves are traced (ply 1)");
    }
    Ok(())
}

pub(super) fn cmd_uci(c: &mut Con, _: &str, _: &str) -> Res {
    c.s.game.abort_search();
    c.st.exit = Some(Exit::Switch(Protocol::Uci, "uci".into()));
    Ok(())
}

pub(super) fn cmd_xboard(c: &mut Con, _: &str, _: &str) -> Res {
    c.s.game.abort_search();
    c.st.exit = Some(Exit::Switch(Protocol::Xboard, "xboard".into()));
    Ok(())
}
