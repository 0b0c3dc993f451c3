//! The `kibitzer` binary: a thin clap layer over the library.

use anyhow::{Context, Result};
use clap::Parser;
use kibitzer::chess::Board;
use std::io::{BufReader, Write};

mod book_cmd;
mod cli;
mod daemon_cmd;
use book_cmd::{book, create, tune};
use cli::{BooksAction, Cli, Command, RcArgs};
use daemon_cmd::{daemon, print_keys};

/// Runs `on_each` on a thread of its own at every Ctrl-C (SIGINT) until it returns
/// false: the console takes it as input, the long-running tools say where they
/// stopped.
fn on_ctrl_c(mut on_each: impl FnMut() -> bool + Send + 'static) {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        else {
            return;
        };
        rt.block_on(async {
            while tokio::signal::ctrl_c().await.is_ok() {
                if !on_each() {
                    break;
                }
            }
        });
    });
}

/// On Ctrl-C print `text` on standard error and exit with status 130, for the
/// long-running tools that have nothing to save.
fn interrupt_message(text: &'static str) {
    on_ctrl_c(move || {
        let _ = std::io::stdout().flush();
        eprintln!("\n{text}");
        std::process::exit(130)
    });
}

/// The option table with the environment and the command line applied.
fn options(set: &[String]) -> Result<kibitzer::options::Options> {
    use kibitzer::options::{Options, Source};
    let mut o = Options::new();
    // The same rule for both sources: a bad value is fatal and names where it came
    // from (`KIBITZER_HASH=abc` as `--set hash=1X`).
    let mut errors: Vec<String> = o
        .load_env(std::env::vars())
        .into_iter()
        .map(|(k, e)| format!("environment variable {k}: {e}"))
        .collect();
    for e in o.load_pairs(Source::CommandLine, set.iter().map(String::as_str)) {
        errors.push(format!("--set: {e}"));
    }
    if !errors.is_empty() {
        anyhow::bail!("{}", errors.join("\nkibitzer: "));
    }
    Ok(o)
}

fn front_end(first: kibitzer::protocol::Protocol, set: &[String], rc: &RcArgs) -> Result<()> {
    use kibitzer::protocol::{console, output, run, Protocol, Session};
    let opts = options(set)?;
    // The console's start-up file: --rc, else .kibitzerrc here, else at home.
    let rc = match &rc.rc {
        Some(f) => {
            console::read_script(f).map_err(|e| anyhow::anyhow!("--rc: {e}"))?;
            Some(f.clone())
        }
        None if rc.no_rc || first != Protocol::Console => None,
        None => {
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            console::find_rc(std::path::Path::new("."), home.as_deref())
        }
    };
    let input = BufReader::new(std::io::stdin());
    let mut session = Session::new(input, output(std::io::stdout()), opts);
    session.rc = rc;
    session.interactive = std::io::IsTerminal::is_terminal(&std::io::stdin());
    if first == Protocol::Console {
        // Ctrl-C reaches the console as input (stop the search; twice: save, quit).
        let tx = session.sender();
        on_ctrl_c(move || tx.send(kibitzer::protocol::Input::Interrupt).is_ok());
    }
    run(&mut session, first);
    Ok(())
}

/// Runs the command; a user error is one message on standard error (its causes on
/// the same line, each said once; never a backtrace, whatever `RUST_BACKTRACE` says)
/// and exit status 1. Output cut short by a closed pipe (`| head`) ends quietly.
fn main() {
    let code = match run() {
        Ok(()) => 0,
        Err(e) if closed_pipe(&e) => 141,
        Err(e) => {
            eprintln!("kibitzer: {}", error_text(&e));
            1
        }
    };
    let _ = std::io::stdout().flush();
    std::process::exit(code);
}

/// The error and its causes, `a: b: c`, leaving out a cause whose text is already
/// part of the message (an io error wrapped with its path would be said twice).
fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let s = cause.to_string();
        if s.is_empty() || text.contains(&s) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&s);
    }
    text
}

/// Did writing to standard output fail because the reader went away?
fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn run() -> Result<()> {
    let mut cli = Cli::parse();
    // -v/-q: the daemon's log level, above every other source.
    if matches!(cli.command, Some(Command::Daemon { .. })) {
        let level = match (cli.quiet, cli.verbose) {
            (true, _) => Some("warn"),
            (_, 0) => None,
            (_, 1) => Some("debug"),
            _ => Some("trace"),
        };
        if let Some(l) = level {
            cli.set.push(format!("records.log_level={l}"));
        }
    }
    // Not locked: search threads print through their own handles.
    let mut out = std::io::stdout();
    use kibitzer::protocol::Protocol;
    let Some(command) = cli.command.take() else {
        return front_end(Protocol::Console, &cli.set, &cli.rc);
    };
    if cli.rc.rc.is_some() || cli.rc.no_rc {
        let given = if cli.rc.no_rc { "--no-rc" } else { "--rc" };
        if let Command::Console { rc } = &command {
            if rc.rc.is_some() || rc.no_rc {
                anyhow::bail!("{given}: give the start-up file options once");
            }
        } else {
            anyhow::bail!(
                "{given}: only the console reads a start-up file (`kibitzer {given} ...` or \
                 `kibitzer console {given} ...`)"
            );
        }
    }
    // Every command reads the same options: a bad `--set` or KIBITZER_ value is
    // fatal for the tools too (`bench`, `perft`), not silently ignored.
    if !matches!(command, Command::Daemon { .. }) {
        options(&cli.set)?;
    }
    match command {
        Command::Daemon {
            config,
            server,
            port,
            handle,
            password_file,
            keys,
            check,
        } => {
            // The daemon's own flags, after --set, each named in its errors.
            let flags: Vec<(&str, String)> = [
                ("--server", "ics.server", server),
                ("--port", "ics.port", port.map(|p| p.to_string())),
                ("--handle", "ics.handle", handle),
                ("--password-file", "ics.password_file", password_file),
            ]
            .into_iter()
            .filter_map(|(flag, k, v)| v.map(|v| (flag, format!("{k}={v}"))))
            .collect();
            if keys {
                print_keys();
                return Ok(());
            }
            std::process::exit(daemon(config, &cli.set, &flags, check));
        }
        Command::Console { rc } => {
            let rc = if rc.rc.is_some() || rc.no_rc {
                rc
            } else {
                cli.rc.clone()
            };
            return front_end(Protocol::Console, &cli.set, &rc);
        }
        Command::Uci => return front_end(Protocol::Uci, &cli.set, &RcArgs::default()),
        Command::Xboard => return front_end(Protocol::Xboard, &cli.set, &RcArgs::default()),
        Command::Perft {
            depth,
            fen,
            divide,
            suite,
            max_nodes,
            every,
        } => {
            if let Some(path) = suite {
                let f = std::fs::File::open(&path)
                    .with_context(|| format!("cannot open {}", path.display()))?;
                let results = kibitzer::tools::perft::run_suite(
                    BufReader::new(f),
                    max_nodes.unwrap_or(u64::MAX),
                    every,
                    &mut out,
                )?;
                if results.iter().any(|r| r.got != r.expected) {
                    std::process::exit(1);
                }
                return Ok(());
            }
            let depth = depth.context("perft needs a depth (or --suite <file>)")?;
            let max = kibitzer::tools::perft::MAX_DEPTH;
            if depth == 0 || depth > max {
                anyhow::bail!(
                    "perft depth {depth}: give 1 to {max} (the start position has about \
                     6.2e16 leaves at depth 12; each depth costs some 30 times the one before)"
                );
            }
            let mut board = if fen.is_empty() {
                Board::startpos()
            } else {
                parse_fen(&fen.join(" "))?
            };
            // Ctrl-C: say what was finished and stop, rather than vanish.
            interrupt_message("perft: interrupted (the depths above are complete)");
            if divide {
                kibitzer::tools::perft::run_perft(&mut board, depth, true, &mut out)?;
            } else {
                // Each depth as it finishes: a deep count shows progress.
                for d in 1..=depth {
                    kibitzer::tools::perft::run_perft(&mut board, d, false, &mut out)?;
                    out.flush()?;
                }
            }
        }
        Command::Bench {
            depth,
            threads,
            movetime,
            positions,
        } => {
            if let Some(t) = threads {
                kibitzer::engine::bench::run_smp_bench(
                    t,
                    std::time::Duration::from_millis(movetime),
                    positions,
                    64,
                    &mut out,
                )?;
            } else {
                let depth = depth.unwrap_or(kibitzer::engine::bench::BENCH_DEPTH);
                // `--set evaluation.net=<file>`: the bench of that net (at
                // `evaluation.netscale`).
                let opts = options(&cli.set)?;
                let net = kibitzer::nnue::Network::cached(
                    opts.str("evaluation.net"),
                    opts.int("evaluation.netscale"),
                )
                .map_err(anyhow::Error::msg)?;
                kibitzer::engine::bench::run_bench(depth, net, &mut out)?;
            }
        }
        Command::Test {
            file,
            st,
            depth,
            nodes,
            early_exit,
            threads,
            hash,
        } => {
            use kibitzer::engine::{EngineHandle, SearchConfig, SearchLimits};
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let positions = kibitzer::tools::epdtest::parse_suite(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            if positions.is_empty() {
                anyhow::bail!(
                    "{}: no test positions (EPD lines with bm/am, or Crafty's setboard/solution)",
                    file.display()
                );
            }
            let limits = if depth.is_some() || nodes.is_some() {
                SearchLimits {
                    depth,
                    nodes,
                    ..Default::default()
                }
            } else {
                SearchLimits::movetime(std::time::Duration::from_secs_f64(
                    st.unwrap_or(1.0).max(0.001),
                ))
            };
            // The search knobs given with --set (extensions, evaluation, ...) apply;
            // the time per position is all the search's: no move overhead.
            let opts = options(&cli.set)?;
            let mut config = SearchConfig::default();
            kibitzer::game::apply_search_options(&mut config, &opts).map_err(anyhow::Error::msg)?;
            config.move_overhead = std::time::Duration::ZERO;
            let (hash, threads) = search_sizes(&opts, hash, threads);
            let engine = EngineHandle::new(hash, threads);
            let mut bar = kibitzer::tools::progress::Progress::on_terminal(
                "test",
                positions.len() as u64,
                true,
            );
            kibitzer::tools::epdtest::run_suite(
                &engine, &positions, &limits, &config, early_exit, &mut bar, &mut out,
            )?;
        }
        Command::Analyze {
            fen,
            depth,
            time,
            threads,
            hash,
        } => {
            let board = if fen.is_empty() {
                Board::startpos()
            } else {
                parse_fen(&fen.join(" "))?
            };
            let opts = options(&cli.set)?;
            analyze(&board, &opts, depth, time, threads, hash)?;
        }
        Command::Perf { seconds } => {
            kibitzer::tools::perft::run_perf(seconds, &mut out)?;
        }
        Command::Book { action } => book(action, &cli.set, &mut out)?,
        Command::Books {
            action: BooksAction::Create { pgn, maxply, out },
        } => create(&pgn, &out, &kibitzer::book::CreateOptions::steering(maxply))?,
        Command::Tune { action } => tune(action, &mut out)?,
        Command::Datagen {
            positions,
            out: path,
            play,
            max_score,
        } => {
            use kibitzer::tools::datagen::{datagen, DatagenOptions};
            use std::sync::atomic::{AtomicBool, Ordering};
            use std::sync::Arc;
            let opts = DatagenOptions {
                positions,
                play: play.options(usize::MAX)?,
                max_score,
            };
            // Ctrl-C: the games in play are finished and written, then the run ends
            // (a second Ctrl-C quits at once; a run again goes on).
            let stop = Arc::new(AtomicBool::new(false));
            let s2 = stop.clone();
            on_ctrl_c(move || {
                if s2.swap(true, Ordering::SeqCst) {
                    eprintln!(
                        "\ndatagen: quit (the games in play are lost; the file holds whole games)"
                    );
                    std::process::exit(130)
                }
                eprintln!("\ndatagen: finishing the games in play (Ctrl-C again quits at once)");
                true
            });
            let bar = std::sync::Mutex::new(kibitzer::tools::progress::Progress::on_terminal(
                "positions",
                positions,
                true,
            ));
            let started = std::time::Instant::now();
            let stats = datagen(&opts, &path, &stop, &|n| {
                bar.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .set(n.min(positions));
            })?;
            let secs = started.elapsed().as_secs_f64().max(1e-3);
            if bar.lock().unwrap_or_else(|e| e.into_inner()).is_enabled() {
                eprintln!();
            }
            if stats.cut_bytes > 0 {
                writeln!(
                    out,
                    "{}: cut a partial record of {} bytes at the end (an interrupted write)",
                    path.display(),
                    stats.cut_bytes
                )?;
            }
            writeln!(
                out,
                "{} positions from {} games written to {} ({} before, {} now); left out: {} in check, {} tactical best move, {} past {} cp; {:.0} positions/hour",
                stats.written,
                stats.games,
                path.display(),
                stats.before,
                stats.before + stats.written,
                stats.in_check,
                stats.tactical,
                stats.decided,
                max_score,
                stats.written as f64 * 3600.0 / secs
            )?;
        }
        Command::Train(args) => {
            use kibitzer::tools::train::{checkpoint_path, train, Data};
            use std::sync::atomic::{AtomicBool, Ordering};
            use std::sync::Arc;
            let mut opts = args.options();
            kibitzer::tools::train::check_options(&opts)?;
            let (path, epochs) = (args.out.clone(), args.epochs);
            let d = Data::load(&opts.data)?;
            writeln!(
                out,
                "{} positions from {} file(s); {} malformed records skipped, {} bytes of partial records",
                d.len(),
                opts.data.len(),
                d.malformed,
                d.partial_bytes
            )?;
            if opts.lambda < 1.0 && opts.result_scale.is_none() {
                let (k, e) = kibitzer::tools::train::fit_result_scale(&d);
                writeln!(
                    out,
                    "the result's scale fitted on the data: {k} cp (sigmoid(score / {k}) against the results: mean squared error {e:.4})"
                )?;
                opts.result_scale = Some(k);
            }
            writeln!(
                out,
                "the handcrafted evaluation's validation loss: {:.6}",
                kibitzer::tools::train::handcrafted_loss(&opts, &d)
            )?;
            if let (Some(init), false) = (&opts.init, checkpoint_path(&path).exists()) {
                let spec = init.display().to_string();
                let net = kibitzer::nnue::Network::load(&spec).map_err(anyhow::Error::msg)?;
                writeln!(
                    out,
                    "the starting net's ({spec}) validation loss: {:.6}",
                    kibitzer::tools::train::net_loss(&opts, &d, &net)
                )?;
            }
            if opts.base == kibitzer::nnue::Base::Material {
                writeln!(
                    out,
                    "its material, piece squares and pawns alone: {:.6}",
                    kibitzer::tools::train::base_loss(&opts, &d, opts.base)
                )?;
            }
            if checkpoint_path(&path).exists() {
                writeln!(out, "going on from {}", checkpoint_path(&path).display())?;
            }
            let stop = Arc::new(AtomicBool::new(false));
            let s2 = stop.clone();
            on_ctrl_c(move || {
                if s2.swap(true, Ordering::SeqCst) {
                    std::process::exit(130)
                }
                eprintln!(
                    "\ntrain: stopping (the last epoch's checkpoint stands; run again to go on)"
                );
                true
            });
            let bar = std::sync::Mutex::new(kibitzer::tools::progress::Progress::on_terminal(
                "epoch",
                d.len() as u64,
                true,
            ));
            let mut reports = 0;
            train(
                &opts,
                &d,
                &stop,
                &|done, total| {
                    let mut b = bar.lock().unwrap_or_else(|e| e.into_inner());
                    if b.done() > done as u64 {
                        *b = kibitzer::tools::progress::Progress::on_terminal(
                            "epoch",
                            total as u64,
                            true,
                        );
                    }
                    b.set(done as u64);
                },
                &mut |r| {
                    reports += 1;
                    if bar.lock().unwrap_or_else(|e| e.into_inner()).is_enabled() {
                        eprintln!();
                    }
                    let _ = writeln!(
                        out,
                        "epoch {:3}  train loss {:.6}  validation loss {:.6}  quantisation {:.2} cp  {:.1} s  {:.0} positions/s",
                        r.epoch,
                        r.train_loss,
                        r.validation_loss,
                        r.quantisation_cp,
                        r.seconds,
                        r.positions as f64 / r.seconds.max(1e-3)
                    );
                    let _ = out.flush();
                },
            )?;
            if reports == 0 && !stop.load(Ordering::SeqCst) {
                writeln!(
                    out,
                    "{}: already trained to epoch {epochs} (the net written again, output scale {} %)",
                    path.display(),
                    opts.output_scale
                )?;
            }
            writeln!(
                out,
                "net: {} ({} bytes)",
                path.display(),
                kibitzer::nnue::FILE_BYTES
            )?;
        }
        Command::Selfplay {
            games,
            out: path,
            play,
        } => {
            use kibitzer::tools::selfplay::selfplay;
            let opts = play.options(games)?;
            let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
            let stats = selfplay(&opts, &path, &|s| {
                if tty {
                    eprint!("\r{}/{} games\x1b[K", s.games, games);
                }
            })?;
            if tty {
                eprintln!();
            }
            writeln!(
                out,
                "{} games to {}: +{} -{} ={} (White's view), {} adjudicated, {} plies",
                stats.games,
                path.display(),
                stats.white_wins,
                stats.black_wins,
                stats.draws,
                stats.adjudicated,
                stats.plies
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// A FEN from the command line, or an error that names it.
fn parse_fen(text: &str) -> Result<Board> {
    Board::from_fen(text).map_err(|e| anyhow::anyhow!("bad FEN '{text}': {e}"))
}

/// `kibitzer analyze`: the console's analysis lines (`src/format.rs`) for one
/// position, then the summary and `best <move> [ponder <move>]`. A position without a
/// legal move is named (`checkmate`, `stalemate`) instead of searched.
fn analyze(
    board: &Board,
    opts: &kibitzer::options::Options,
    depth: Option<i32>,
    time: Option<f64>,
    threads: Option<usize>,
    hash: Option<usize>,
) -> Result<()> {
    use kibitzer::engine::{EngineHandle, EventSink, SearchConfig, SearchEvent, SearchLimits};
    use kibitzer::format::{Display, Printer};
    if let Some(verdict) = no_move_verdict(board) {
        writeln!(std::io::stdout(), "{verdict}")?;
        return Ok(());
    }
    if let Some(t) = time {
        if !(t.is_finite() && t > 0.0) {
            anyhow::bail!("--time {t}: expected a number of seconds above 0");
        }
    }
    let limits = SearchLimits {
        depth,
        movetime: time.map(std::time::Duration::from_secs_f64),
        infinite: depth.is_none() && time.is_none(),
        ..Default::default()
    };
    // Every line is shown: one position asked for is never noise.
    let mut display = Display::from_options(opts);
    display.noise = 0;
    let printer = std::sync::Mutex::new(Printer::new(board.clone(), display));
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    let sink: EventSink = std::sync::Arc::new(move |e: &SearchEvent| {
        if let Ok(mut p) = printer.lock() {
            let mut out = std::io::stdout().lock();
            for l in p.event(e) {
                let _ = writeln!(out, "{l}");
            }
            let _ = out.flush();
        }
        if let SearchEvent::Done(r) = e {
            let _ = tx.lock().map(|t| t.send(r.clone()));
        }
    });
    let (hash, threads) = search_sizes(opts, hash, threads);
    let engine = EngineHandle::new(hash, threads);
    let mut config = SearchConfig::default();
    kibitzer::game::apply_search_options(&mut config, opts).map_err(anyhow::Error::msg)?;
    engine.go(board, limits, config, sink);
    let r = rx.recv().context("the search ended without a result")?;
    writeln!(std::io::stdout(), "{}", best_line(&r))?;
    Ok(())
}

/// Hash size in bytes and search threads for `test` and `analyze`: `--hash` (MB) and
/// `--threads` when given, else `--set hash=`/`threads=` (or their environment
/// variables) when set, else 64 MB and one thread (the same conditions on every
/// machine, whatever a daemon's defaults are).
fn search_sizes(
    opts: &kibitzer::options::Options,
    hash_mb: Option<usize>,
    threads: Option<usize>,
) -> (usize, usize) {
    use kibitzer::options::Source;
    let given = |name: &str| opts.source(name).is_some_and(|s| s != Source::Default);
    let hash = match hash_mb {
        Some(mb) => mb << 20,
        None if given("hash") => opts.size("hash"),
        None => 64 << 20,
    };
    let threads = match threads {
        Some(n) => n,
        None if given("threads") => opts.int("threads") as usize,
        None => 1,
    };
    (hash, threads.max(1))
}

/// `checkmate` or `stalemate` (with who won) for a position without a legal move.
fn no_move_verdict(board: &Board) -> Option<String> {
    if board.has_legal_move() {
        return None;
    }
    let side = board.side_to_move();
    Some(if board.in_check() {
        format!(
            "checkmate: {} is mated, {} wins",
            side.name(),
            (!side).name()
        )
    } else {
        format!("stalemate: {} has no legal move, a draw", side.name())
    })
}

/// `best d2d4 ponder d7d5` (no `ponder` without an expected reply).
fn best_line(r: &kibitzer::engine::SearchResult) -> String {
    match r.ponder {
        Some(p) => format!("best {} ponder {p}", r.best),
        None => format!("best {}", r.best),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;
    use cli::BookAction;

    /// clap's own consistency checks (unique short and long names, valid defaults and
    /// conflicts) over every subcommand: a clash panics here, not in a user's debug build.
    #[test]
    fn the_command_tree_is_consistent() {
        Cli::command().debug_assert();
    }

    /// `--set` keeps its short `-o` in every subcommand, `--out` has none.
    #[test]
    fn short_o_is_set_everywhere() {
        let cli =
            Cli::try_parse_from(["kibitzer", "book", "create", "g.pgn", "30", "-o", "hash=8M"])
                .unwrap();
        assert_eq!(cli.set, ["hash=8M"]);
        match cli.command {
            Some(Command::Book {
                action: BookAction::Create { out, .. },
            }) => assert_eq!(out, std::path::Path::new("book.bin")),
            _ => panic!("not book create"),
        }
    }

    fn help(args: &[&str]) -> String {
        match Cli::try_parse_from(args) {
            Err(e) => e.render().to_string(),
            Ok(_) => panic!("{args:?} printed no help"),
        }
    }

    #[test]
    fn help_shows_only_what_applies() {
        let daemon = help(&["kibitzer", "daemon", "--help"]);
        assert!(
            !daemon.contains("--rc") && !daemon.contains("--no-rc"),
            "{daemon}"
        );
        let console = help(&["kibitzer", "console", "--help"]);
        assert!(
            console.contains("--rc") && console.contains("--no-rc"),
            "{console}"
        );
        let top = help(&["kibitzer", "--help"]);
        assert!(top.contains("--rc"), "{top}");
        let perft = help(&["kibitzer", "perft", "--help"]);
        assert!(!perft.contains("18446744073709551615"), "{perft}");
        // Every positional argument explains itself.
        for args in [
            &["kibitzer", "book", "create", "--help"][..],
            &["kibitzer", "books", "create", "--help"],
            &["kibitzer", "book", "export", "--help"],
            &["kibitzer", "book", "bench", "--help"],
            &["kibitzer", "book", "show", "--help"],
        ] {
            let h = help(args);
            assert!(h.contains("--out") || !args.contains(&"create"), "{h}");
            let section = h.split("Arguments:").nth(1).expect("arguments");
            let section = section.split("Options:").next().unwrap();
            for l in section
                .lines()
                .filter(|l| l.trim_start().starts_with(['<', '[']))
            {
                let after = l
                    .trim_start()
                    .split_once(['>', ']'])
                    .map(|(_, r)| r.trim_start_matches('.').trim());
                assert!(
                    after.is_some_and(|r| !r.is_empty()),
                    "{args:?}: no help for {l}"
                );
            }
        }
    }

    #[test]
    fn start_up_file_options_only_for_the_console() {
        assert!(Cli::try_parse_from(["kibitzer", "daemon", "--rc", "f"]).is_err());
        assert!(Cli::try_parse_from(["kibitzer", "uci", "--no-rc"]).is_err());
        let cli = Cli::try_parse_from(["kibitzer", "console", "--no-rc"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Console { rc }) if rc.no_rc));
        assert!(Cli::try_parse_from(["kibitzer", "--rc", "f"])
            .unwrap()
            .rc
            .rc
            .is_some());
    }
}
