//! `kibitzer daemon`: the options checked, the log opened, the daemon run.

use anyhow::Result;

/// `daemon --check` with an external engine: starts it, completes the handshake,
/// lists its name, author and options, and refuses an `engine.options` name it does
/// not offer.
fn check_engine(o: &kibitzer::options::Options) -> Result<(), String> {
    use kibitzer::external::{ExternalConfig, ExternalEngine};
    let cfg = match ExternalConfig::from_options(o) {
        None => return Ok(()),
        Some(Err(e)) => return Err(format!("engine: {e}")),
        Some(Ok(c)) => c,
    };
    let limit = cfg.start_timeout;
    let e = ExternalEngine::start(cfg.clone());
    let t = std::time::Instant::now();
    let id = loop {
        if let Some(id) = e.identity() {
            break id;
        }
        if t.elapsed() > limit || !e.health().healthy {
            let why = e
                .health()
                .last_fault
                .unwrap_or_else(|| format!("no handshake within {:.0} s", limit.as_secs_f64()));
            return Err(format!(
                "engine.command `{}`: {why}; fix: check the program, its arguments and engine.protocol",
                cfg.command
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    println!(
        "engine: {} by {} ({}), {} options: {}",
        id.name,
        if id.author.is_empty() {
            "?"
        } else {
            &id.author
        },
        cfg.protocol.name(),
        id.options.len(),
        id.options
            .iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let missing: Vec<&str> = cfg
        .options
        .iter()
        .filter(|(k, _)| id.option(k).is_none())
        .map(|(k, _)| k.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "engine.options: {} offers no option {}; fix: use one of the options listed above",
            id.name,
            missing.join(", ")
        ));
    }
    Ok(())
}

pub(crate) fn print_keys() {
    use kibitzer::options::{front, TABLE};
    for s in TABLE.iter().filter(|s| s.shown_in(front::CONFIG)) {
        println!(
            "{:<28} default {:<18} env {:<34} {}; {}",
            s.name,
            format!("\"{}\"", s.default),
            s.env_var(),
            s.help,
            s.expected()
        );
    }
}

fn init_logging(o: &kibitzer::options::Options) -> Result<(), String> {
    use tracing_subscriber::fmt::writer::MakeWriterExt;
    use tracing_subscriber::EnvFilter;
    let level = o.str("records.log_level");
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        // The wire transcript only at debug and below.
        let wire = if matches!(level, "debug" | "trace") {
            "debug"
        } else {
            "off"
        };
        EnvFilter::new(format!("{level},kibitzer::wire={wire}"))
    });
    // Under systemd the journal adds its own timestamps and has no colours.
    let journal =
        std::env::var_os("JOURNAL_STREAM").is_some() || std::env::var_os("INVOCATION_ID").is_some();
    let file = match o.str("records.log_file").trim() {
        "" => None,
        f => Some(
            kibitzer::logfile::RotatingFile::open(
                std::path::Path::new(f),
                o.int("records.log_max") as u64 * 1024 * 1024,
                o.int("records.log_keep") as usize,
            )
            .map_err(|e| format!("records.log_file {f}: {e}"))?,
        ),
    };
    let ansi = file.is_none() && !journal && std::io::IsTerminal::is_terminal(&std::io::stderr());
    match file {
        Some(f) => {
            let b = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr.and(std::sync::Mutex::new(f)))
                .with_ansi(false);
            b.init();
        }
        None => {
            let b = tracing_subscriber::fmt()
                .with_env_filter(filter)
                .with_writer(std::io::stderr)
                .with_ansi(ansi);
            if journal {
                b.without_time().init();
            } else {
                b.init();
            }
        }
    }
    Ok(())
}

/// One line saying what the daemon will do: server, handle, configuration file, book
/// and learning directory, records directory.
fn start_line(s: &kibitzer::settings::Settings) -> String {
    let o = &s.options;
    let handle = o.str("ics.handle");
    let login = if kibitzer::ics::parse::is_guest(handle) {
        format!("{handle} (guest)")
    } else {
        handle.to_string()
    };
    let book = match o.str("bookpath").trim() {
        "" => "no book or learning (bookpath not set)".to_string(),
        d => {
            let dir = std::path::Path::new(d);
            let other = ["book.polyglot", "book.crafty"]
                .iter()
                .find(|k| !o.str(k).trim().is_empty());
            if dir.join("book.bin").is_file() {
                format!("book and learning in {d}")
            } else if let Some(k) = other {
                format!("no book.bin in {d} (the {k} book is used; learning there)")
            } else {
                format!(
                    "NO OPENING BOOK: {} does not exist, so the engine plays from move 1 \
                     (build one: kibitzer book create <games.pgn> 40 5 --out {}); learning in {d}",
                    dir.join("book.bin").display(),
                    dir.join("book.bin").display()
                )
            }
        }
    };
    let mut accounts = Vec::new();
    if o.bool("ics.enabled") {
        accounts.push(format!(
            "{}:{} as {login}",
            o.str("ics.server"),
            o.int("ics.port")
        ));
    }
    if o.bool("lichess.enabled") {
        accounts.push(format!("Lichess at {}", o.str("lichess.url").trim()));
    }
    format!(
        "kibitzer daemon: {}; config {}; {book}; records in {}",
        accounts.join(" and "),
        s.file
            .as_ref()
            .map_or("none (defaults)".to_string(), |p| p.display().to_string()),
        o.str("records.dir")
    )
}

/// Runs the daemon; returns the process exit status.
pub(crate) fn daemon(
    config: Option<std::path::PathBuf>,
    set: &[String],
    flags: &[(&str, String)],
    check: bool,
) -> i32 {
    use kibitzer::bot::{ControlMsg, Daemon, Exit};
    let config = config.or_else(|| {
        let p = std::path::PathBuf::from("config/kibitzer.toml");
        p.exists().then_some(p)
    });
    let load = |config: Option<&std::path::Path>| {
        kibitzer::settings::load_checked(
            config,
            std::env::vars(),
            set,
            flags,
            kibitzer::bot::KEY_CHECKS,
        )
    };
    let settings = match load(config.as_deref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("kibitzer: configuration: {e}");
            return Exit::Config as i32;
        }
    };
    if check {
        if let Err(e) = kibitzer::settings::check_login(&settings) {
            eprintln!("kibitzer: configuration: {e}");
            return Exit::Config as i32;
        }
        println!(
            "configuration OK{}",
            config
                .as_ref()
                .map(|p| format!(" ({})", p.display()))
                .unwrap_or_default()
        );
        println!("{}", start_line(&settings));
        if let Err(e) = check_engine(&settings.options) {
            eprintln!("kibitzer: configuration: {e}");
            return Exit::Config as i32;
        }
        return 0;
    }
    eprintln!("{}", start_line(&settings));
    // The status page (web.listen): its address and token were checked with the rest.
    let web = match kibitzer::web::WebConfig::from_settings(&settings) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("kibitzer: configuration: web.listen: {e}");
            return Exit::Config as i32;
        }
    };
    if let Err(e) = init_logging(&settings.options) {
        eprintln!("kibitzer: configuration: {e}");
        return Exit::Config as i32;
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kibitzer: cannot start the runtime: {e}");
            return Exit::Failure as i32;
        }
    };
    let set = set.to_vec();
    let flags: Vec<(String, String)> = flags
        .iter()
        .map(|(f, p)| (f.to_string(), p.clone()))
        .collect();
    let file = config.clone();
    rt.block_on(async move {
        let mut d = Daemon::new(settings);
        d.set_reloader(Box::new(move || {
            let flags: Vec<(&str, String)> =
                flags.iter().map(|(f, p)| (f.as_str(), p.clone())).collect();
            kibitzer::settings::load_checked(
                file.as_deref(),
                std::env::vars(),
                &set,
                &flags,
                kibitzer::bot::KEY_CHECKS,
            )
        }));
        let _web = match web {
            Some(cfg) => match kibitzer::web::start(cfg, d.status()).await {
                Ok(server) => Some(server),
                Err(e) => {
                    eprintln!("kibitzer: status page: {e}");
                    return Exit::Failure as i32;
                }
            },
            None => None,
        };
        let control = d.control();
        tokio::spawn(async move {
            use tokio::signal::unix::{signal, SignalKind};
            let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
                signal(SignalKind::terminate()),
                signal(SignalKind::interrupt()),
                signal(SignalKind::hangup()),
            ) else {
                tracing::error!("cannot install signal handlers");
                return;
            };
            let mut stops = 0;
            loop {
                tokio::select! {
                    _ = term.recv() => stops += 1,
                    _ = int.recv() => stops += 1,
                    _ = hup.recv() => { control.send(ControlMsg::Reload); continue; }
                }
                control.send(if stops == 1 {
                    ControlMsg::Shutdown
                } else {
                    ControlMsg::Quit
                });
            }
        });
        d.run().await as i32
    })
}
