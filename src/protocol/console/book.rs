//! The opening book at the console: `book`, `books`, `bookw`, `import`, building a
//! book from a PGN file and reporting what is loaded.

use super::*;

pub(super) fn cmd_book(c: &mut Con, _: &str, rest: &str) -> Res {
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
            let msg =
                match crate::game::book_keeper::keeper(&mut c.s.game).and_then(|k| k.main_book()) {
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
            let lines = match crate::game::book_keeper::keeper(&mut c.s.game) {
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

pub(super) fn cmd_books(c: &mut Con, _: &str, rest: &str) -> Res {
    match split_command(rest) {
        ("create", args) => book_create(c, args, true),
        ("", _) => Err("expected a subcommand".into()),
        (sub, _) => Err(format!("unknown subcommand '{sub}'")),
    }
}

/// The book directory (`bookpath`), or the current directory (then made the
/// `bookpath`) when none is set.
pub(super) fn book_dir(c: &mut Con) -> PathBuf {
    let dir = c.s.options.str("bookpath").trim().to_string();
    if dir.is_empty() {
        let _ = c.set_option("bookpath", ".");
        PathBuf::from(".")
    } else {
        PathBuf::from(dir)
    }
}

/// Re-reads the book files after they changed.
pub(super) fn reload_book(c: &mut Con) {
    match crate::game::book_keeper::keeper(&mut c.s.game) {
        Some(k) => k.reload(),
        None => {
            let notes = crate::game::book_keeper::install(&mut c.s.game, &c.s.options);
            c.s.book_notes.extend(notes);
        }
    }
    c.book_notes();
}

pub(super) fn book_info(k: &crate::game::book_keeper::BookKeeper) -> Vec<String> {
    let mut out = Vec::new();
    for b in [k.main_book(), k.steering_book()].into_iter().flatten() {
        let h = b.header();
        out.push(format!(
            "{} {}: {} positions, {} moves from {} games (max ply {}, min played {}, wpct {})",
            crate::game::book_keeper::kind_name(b.kind()),
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

pub(super) fn book_create(c: &mut Con, args: &str, steering: bool) -> Res {
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
pub(super) fn cmd_bookw(c: &mut Con, _: &str, rest: &str) -> Res {
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

pub(super) fn cmd_import(c: &mut Con, _: &str, rest: &str) -> Res {
    let (file, opt) = split_command(rest);
    if file.is_empty() || !(opt.is_empty() || opt == "clear") {
        return Err(format!(
            "expected a file and optionally clear, got '{rest}'"
        ));
    }
    if crate::game::book_keeper::keeper(&mut c.s.game).is_none() {
        book_dir(c);
        reload_book(c);
    }
    let msg = match crate::game::book_keeper::keeper(&mut c.s.game) {
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
