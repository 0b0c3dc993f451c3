//! Analysis commands: `analyze`, `search`, `score`, `display <piece>`, `perf`,
//! `perft`, `annotate`/`annotateh` and `test`.

use super::*;

pub(super) fn cmd_analyze(c: &mut Con, _: &str, _: &str) -> Res {
    c.st.analyze = true;
    c.s.game.set_engine_side(None);
    c.analyse();
    Ok(())
}

pub(super) fn cmd_annotate(c: &mut Con, name: &str, rest: &str) -> Res {
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
        engine.as_ref(),
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

pub(super) fn cmd_display(c: &mut Con, _: &str, rest: &str) -> Res {
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
pub(super) fn piece_squares(c: &Con, kind: PieceType) -> Vec<String> {
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

pub(super) fn cmd_perf(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_perft(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_score(c: &mut Con, _: &str, _: &str) -> Res {
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    ev.set_params(c.s.game.config().eval);
    let mut text = ev.breakdown(c.s.game.board()).to_string();
    if let Some(net) = c.s.game.config().net.clone() {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&crate::nnue::score_lines(&net, &mut ev, c.s.game.board()));
    }
    c.emit_text(&text);
    Ok(())
}

pub(super) fn cmd_search(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_test(c: &mut Con, _: &str, rest: &str) -> Res {
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
        engine.as_ref(),
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
