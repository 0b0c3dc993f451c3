//! `kibitzer book`, `books` and `tune`: the book and learning tools.

use super::{options, parse_fen};
use crate::cli::{BookAction, TuneAction};
use anyhow::{Context, Result};
use kibitzer::chess::Board;
use std::io::{BufReader, Write};

/// `kibitzer tune ...`.
pub(crate) fn tune(action: TuneAction, out: &mut dyn Write) -> Result<()> {
    use kibitzer::tools::tune;
    match action {
        TuneAction::Extract {
            pgn,
            out: path,
            skip,
            per_game,
            seed,
        } => {
            let opts = tune::extract::ExtractOptions {
                skip_plies: skip,
                per_game,
                seed,
            };
            let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
            let stats = tune::extract::extract(&pgn, &path, &opts, &mut |g| {
                if tty {
                    eprint!("\r{g} games\x1b[K");
                }
            })?;
            if tty {
                eprintln!();
            }
            let mut total = 0;
            for (src, s) in &stats {
                writeln!(
                    out,
                    "{}: {} games ({} skipped), {} positions sampled, {} in check, {} duplicates, {} written",
                    src.display(),
                    s.games,
                    s.games_skipped,
                    s.sampled,
                    s.in_check,
                    s.duplicates,
                    s.written
                )?;
                total += s.written;
            }
            writeln!(out, "{total} positions written to {}", path.display())?;
        }
        TuneAction::Run {
            positions,
            epochs,
            rate,
            k,
            l2,
            state,
            save_every,
            report_every,
            threads,
            write,
        } => {
            if !(rate.is_finite() && rate > 0.0) {
                anyhow::bail!("--rate {rate}: must be a positive number of centipawns");
            }
            if !(l2.is_finite() && l2 >= 0.0) {
                anyhow::bail!("--l2 {l2}: must be zero or a positive number");
            }
            let threads = threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            let opts = tune::RunOptions {
                positions,
                epochs,
                adam: tune::fit::Adam {
                    rate,
                    l2,
                    ..Default::default()
                },
                k,
                state,
                save_every,
                report_every,
                threads,
                write,
            };
            tune::run(&opts, out)?;
        }
        TuneAction::Write { out: path } => {
            let origin = tune::write::origin_of(kibitzer::eval::params::SOURCE)
                .unwrap_or_else(|| "Origin: the weights compiled into this kibitzer.".into());
            tune::write_weights(&path, &kibitzer::eval::params::current(), &origin)?;
            writeln!(out, "wrote {}", path.display())?;
        }
    }
    Ok(())
}

/// `kibitzer book create` / `books create` with a progress line on a terminal.
pub(crate) fn create(
    pgn: &std::path::Path,
    out: &std::path::Path,
    opts: &kibitzer::book::CreateOptions,
) -> Result<()> {
    // Checked before reading a PGN of 52,000 games, not after.
    if opts.max_ply == 0 {
        anyhow::bail!(
            "maxply 0: no ply of any game would go into the book (give 1 or more, e.g. 20)"
        );
    }
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !parent.is_dir() {
        anyhow::bail!(
            "--out {}: the directory {} does not exist",
            out.display(),
            parent.display()
        );
    }
    if !pgn.is_file() {
        anyhow::bail!(
            "{}: {}",
            pgn.display(),
            if pgn.exists() {
                "not a file"
            } else {
                "no such file"
            }
        );
    }
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut err = std::io::stderr();
    let mut skipped = 0u64;
    let r = kibitzer::book::create_book_from_file(
        pgn,
        out,
        opts,
        &mut |p| {
            if tty {
                let _ = write!(err, "\r{}\x1b[K", p.line());
                let _ = err.flush();
            }
        },
        &mut |s| {
            skipped += 1;
            if tty {
                eprint!("\r\x1b[K");
            }
            eprintln!("{}", s.message());
        },
    );
    if tty {
        eprintln!();
    }
    let r = r?;
    let mut stdout = std::io::stdout();
    for l in r.summary(out) {
        writeln!(stdout, "{l}")?;
    }
    Ok(())
}

pub(crate) fn book(action: BookAction, set: &[String], out: &mut impl Write) -> Result<()> {
    use kibitzer::book::{BookFile, CreateOptions};
    use kibitzer::game::book_keeper::{BookConfig, BookKeeper};
    match action {
        BookAction::Create {
            pgn,
            maxply,
            minplay,
            wpct,
            out: file,
            memory,
        } => {
            let mut opts = CreateOptions::book(maxply, minplay, wpct);
            opts.memory = memory.max(1) << 20;
            create(&pgn, &file, &opts)?;
        }
        BookAction::Export { book, out: file } => {
            let b = BookFile::open(&book)?;
            let n = kibitzer::book::polyglot::export(&b, &file)?;
            writeln!(out, "{}: {n} Polyglot entries", file.display())?;
        }
        BookAction::Show {
            dir,
            fen,
            polyglot,
            crafty,
        } => {
            let opts = options(set)?;
            let board = if fen.is_empty() {
                Board::startpos()
            } else {
                parse_fen(&fen.join(" "))?
            };
            if !dir.is_dir() {
                let what = if dir.exists() {
                    "not a directory (give the book directory, the bookpath)"
                } else {
                    "no such directory"
                };
                anyhow::bail!("book show {}: {what}", dir.display());
            }
            // A query: nothing on disk changes, a broken file is only reported.
            let mut config = BookConfig::from_options(&opts);
            config.dir = Some(dir.clone());
            config.polyglot = polyglot.or(config.polyglot);
            config.crafty = crafty.or(config.crafty);
            config.read_only = true;
            let mut k = BookKeeper::open(config);
            for n in kibitzer::game::BookHook::take_notes(&mut k) {
                writeln!(out, "{n}")?;
            }
            if k.problems() > 0 {
                anyhow::bail!(
                    "book show {}: {} file(s) could not be read (see above); nothing was changed",
                    dir.display(),
                    k.problems()
                );
            }
            if !k.has_book() {
                anyhow::bail!(
                    "book show {}: no book there (`kibitzer book create <pgn> <maxply> --out {}`)",
                    dir.display(),
                    dir.join(kibitzer::book::BOOK_FILE).display()
                );
            }
            for l in k.show(&board, Default::default()) {
                writeln!(out, "{l}")?;
            }
        }
        BookAction::Bench {
            book,
            pgn,
            games,
            plies,
        } => {
            let b = BookFile::open(&book)?;
            let f = std::fs::File::open(&pgn)
                .with_context(|| format!("cannot open {}", pgn.display()))?;
            let r = kibitzer::book::tools::bench_lookups(&b, BufReader::new(f), games, plies);
            writeln!(out, "{r}")?;
        }
        BookAction::Torture { dir, seed } => kibitzer::book::tools::torture(&dir, seed)?,
    }
    Ok(())
}
