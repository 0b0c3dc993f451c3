//! Games, tags and files: the PGN of the game, reading games and move lists, the
//! `log.nnn`/`game.nnn` files, and the commands that read or write files (`input`,
//! `log`, `newlog`, `ls`, `read`, `savegame`, `savepos`, `pgn`, `tags`).

use super::*;

impl Con<'_> {
    // ----- games, tags and files --------------------------------------------------

    /// The game as PGN with the tags (`pgn`, `read`, or defaults).
    pub(super) fn game_pgn(&self) -> PgnGame {
        let g = &self.s.game;
        let mut p = PgnGame::new(g.start_position().clone());
        let mut b = g.start_position().clone();
        for m in g.moves() {
            p.push_move(&b, m.mv);
            b.make_move(m.mv);
        }
        p.result = g.result().map_or("*", |r| r.outcome.pgn()).to_string();
        if let (Some(r), Some(last)) = (g.result(), p.moves.last_mut()) {
            last.comment = Some(r.reason.clone());
        }
        let opp = if g.opponent().name.is_empty() {
            "?".to_string()
        } else {
            g.opponent().name.clone()
        };
        let engine = format!("kibitzer {}", env!("CARGO_PKG_VERSION"));
        let (white, black) = match g.engine_side() {
            Some(Color::White) => (engine, opp),
            Some(Color::Black) => (opp, engine),
            None => ("?".to_string(), "?".to_string()),
        };
        p.set_tag("Event", "kibitzer console game");
        p.set_tag("Site", "?");
        p.set_tag("Date", &today());
        p.set_tag("Round", "-");
        p.set_tag("White", &white);
        p.set_tag("Black", &black);
        for (k, v) in &self.st.tags {
            if k != "Result" && k != "FEN" && k != "SetUp" {
                p.set_tag(k, v);
            }
        }
        p
    }

    /// Loads a game (PGN or a move list): `read` replaces the game (its tags become
    /// the game's), `reada` adds the moves to the current game.
    pub(super) fn load_game(&mut self, text: &str, append: bool, source: &str) -> Res {
        self.s.game.abort_search();
        self.st.analyze = false;
        let src = if append {
            let body: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with('['))
                .collect();
            format!(
                "[SetUp \"1\"]\n[FEN \"{}\"]\n\n{}\n",
                self.s.game.board().to_fen(),
                body.join("\n")
            )
        } else {
            text.to_string()
        };
        let mut games = crate::chess::pgn::read_all(&src);
        if games.is_empty() {
            return Err(format!("no game in {source}"));
        }
        let n = games.len();
        let g = games.remove(0).map_err(|e| format!("{source}: {e}"))?;
        if !append {
            self.s.game.set_position(g.start.clone());
            // The file's tags replace those of the same name.
            for (k, v) in g.tags.iter().filter(|(k, _)| k != "FEN" && k != "SetUp") {
                match self.st.tags.iter_mut().find(|(n, _)| n == k) {
                    Some(t) => t.1 = v.clone(),
                    None => self.st.tags.push((k.clone(), v.clone())),
                }
            }
        }
        for m in &g.moves {
            self.s.game.make_move(m.mv).map_err(|e| e.to_string())?;
        }
        let side = self.s.game.side_to_move();
        self.emit(&format!(
            "{} {} move(s) from {source}{}; {} to move ({}({}))",
            if append { "added" } else { "read" },
            g.moves.len(),
            if n > 1 {
                format!(" (the first of {n} games)")
            } else {
                String::new()
            },
            side.name(),
            side.name(),
            self.s.game.move_number()
        ));
        Ok(())
    }

    pub(super) fn log_input(&self, line: &str) {
        if let Some(f) = self
            .st
            .log
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_mut()
        {
            let _ = writeln!(f, "{line}");
            let _ = f.flush();
        }
    }

    pub(super) fn log_dir(&self) -> PathBuf {
        let d = self.s.options.str("logpath").trim();
        PathBuf::from(if d.is_empty() { "." } else { d })
    }

    /// Opens a new pair of files: `log.nnn` (or `file`) and `game.nnn`.
    pub(super) fn log_open(&mut self, file: Option<&str>) -> Res {
        self.log_close();
        let dir = self.log_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut n = 1u32;
        while n < 999_999
            && (dir.join(format!("log.{n:03}")).exists()
                || dir.join(format!("game.{n:03}")).exists())
        {
            n += 1;
        }
        let log_path = match file {
            Some(f) => PathBuf::from(f),
            None => dir.join(format!("log.{n:03}")),
        };
        let game_path = dir.join(format!("game.{n:03}"));
        let f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log_path)
            .map_err(|e| format!("{}: {e}", log_path.display()))?;
        *self.st.log.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
        self.st.logs = Logs {
            explicit: file.map(String::from),
            log_path: Some(log_path),
            game_path: Some(game_path),
            written: String::new(),
        };
        self.write_game_file();
        Ok(())
    }

    pub(super) fn log_close(&mut self) {
        self.write_game_file();
        if let Some(mut f) = self.st.log.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = f.flush();
        }
        self.st.logs = Logs::default();
    }

    /// Rewrites `game.nnn` when the game changed (a crash loses nothing).
    pub(super) fn write_game_file(&mut self) {
        let Some(path) = self.st.logs.game_path.clone() else {
            return;
        };
        let text = self.game_pgn().to_pgn();
        if text == self.st.logs.written {
            return;
        }
        match crate::learn::safe::atomic_write(&path, text.as_bytes()) {
            Ok(()) => self.st.logs.written = text,
            Err(e) => {
                self.st.logs.written = text;
                self.emit(&format!("log: cannot write {}: {e}", path.display()));
            }
        }
    }
}

pub(super) fn cmd_input(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a file".into());
    }
    let lines = read_script(Path::new(rest))?;
    c.run_script(&lines);
    Ok(())
}

pub(super) fn cmd_log(c: &mut Con, _: &str, rest: &str) -> Res {
    let (what, file) = split_command(rest);
    match what {
        "" => {
            let l = match (&c.st.logs.log_path, &c.st.logs.game_path) {
                (Some(l), Some(g)) => format!("logging to {} and {}", l.display(), g.display()),
                _ => "logging off".to_string(),
            };
            c.emit(&l);
            Ok(())
        }
        "on" => {
            c.set_quietly("log", "on");
            c.log_open((!file.is_empty()).then_some(file))?;
            let l = format!(
                "log on: {} and {}",
                c.st.logs
                    .log_path
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string()),
                c.st.logs
                    .game_path
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            );
            c.emit(&l);
            Ok(())
        }
        "off" => {
            if !file.is_empty() {
                return Err(format!("unexpected '{file}' after off"));
            }
            c.log_close();
            c.set_quietly("log", "off");
            c.emit("log off");
            Ok(())
        }
        n => {
            let n: usize = n
                .parse()
                .map_err(|_| format!("'{n}' is not on, off or a number of lines"))?;
            let path = if file.is_empty() {
                c.st.logs
                    .log_path
                    .clone()
                    .ok_or("no log is open (`log on`, or name a file)")?
            } else {
                PathBuf::from(file)
            };
            let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let text = String::from_utf8_lossy(&bytes);
            let lines: Vec<String> = text.lines().map(String::from).collect();
            let from = lines.len().saturating_sub(n);
            c.emit_all(&lines[from..]);
            Ok(())
        }
    }
}

pub(super) fn cmd_ls(c: &mut Con, _: &str, rest: &str) -> Res {
    let (dir, pattern) = match rest.rsplit_once('/') {
        Some((d, p)) => (if d.is_empty() { "/" } else { d }, p),
        None => (".", rest),
    };
    let pattern: Vec<char> = if pattern.is_empty() { "*" } else { pattern }
        .chars()
        .collect();
    let rd = std::fs::read_dir(dir).map_err(|e| format!("{dir}: {e}"))?;
    let mut names: Vec<String> = rd
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| glob_match(&pattern, &n.chars().collect::<Vec<_>>()))
        .filter(|n| !n.starts_with('.') || pattern.first() == Some(&'.'))
        .collect();
    names.sort();
    if names.is_empty() {
        c.emit(&format!("ls: nothing matches '{rest}'"));
    } else {
        c.emit_all(&names);
    }
    Ok(())
}

pub(super) fn cmd_newlog(c: &mut Con, _: &str, _: &str) -> Res {
    c.log_close();
    new_game(c);
    c.set_quietly("log", "on");
    c.log_open(None)?;
    let l = format!(
        "new game; logging to {}",
        c.st.logs
            .log_path
            .as_ref()
            .map_or(String::new(), |p| p.display().to_string())
    );
    c.emit(&l);
    Ok(())
}

pub(super) fn cmd_pgn(c: &mut Con, _: &str, rest: &str) -> Res {
    let (tag, value) = split_command(rest);
    if tag.is_empty() || value.is_empty() {
        return Err("expected a tag and a value".into());
    }
    if !tag
        .chars()
        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
    {
        return Err(format!("'{tag}' is not a tag name"));
    }
    let value = value.trim_matches('"');
    let known = [
        "Event", "Site", "Round", "Date", "White", "WhiteElo", "Black", "BlackElo", "Result",
    ];
    let tag = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(tag))
        .map_or(tag.to_string(), |k| k.to_string());
    check_tag(&tag, value)?;
    match c.st.tags.iter_mut().find(|(k, _)| *k == tag) {
        Some(t) => t.1 = value.to_string(),
        None => c.st.tags.push((tag.clone(), value.to_string())),
    }
    c.emit(&format!("[{tag} \"{value}\"]"));
    Ok(())
}

/// The values the known tags allow.
pub(super) fn check_tag(tag: &str, value: &str) -> Res {
    let date_ok = || {
        value.len() == 10
            && value.chars().enumerate().all(|(i, ch)| {
                if i == 4 || i == 7 {
                    ch == '.'
                } else {
                    ch.is_ascii_digit() || ch == '?'
                }
            })
    };
    let rating_ok = || value.chars().all(|ch| ch.is_ascii_digit()) || value == "-" || value == "?";
    match tag {
        "Date" if !date_ok() => Err(format!("Date '{value}' is not yyyy.mm.dd")),
        "Result" if Outcome::parse(value).is_none() => {
            Err(format!("Result '{value}' is not 1-0, 0-1, 1/2-1/2 or *"))
        }
        "WhiteElo" | "BlackElo" if !rating_ok() => Err(format!("{tag} '{value}' is not a rating")),
        _ => Ok(()),
    }
}

pub(super) fn cmd_read(c: &mut Con, name: &str, rest: &str) -> Res {
    let append = name == "reada";
    if rest.is_empty() {
        c.s.game.abort_search();
        c.st.reading = Some((append, String::new()));
        c.emit("type the moves (PGN or a move list), then `exit`");
        return Ok(());
    }
    let text = crate::text::read(Path::new(rest))?;
    c.load_game(&text, append, rest)
}

pub(super) fn cmd_savegame(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a file".into());
    }
    let text = c.game_pgn().to_pgn();
    std::fs::write(rest, text).map_err(|e| format!("{rest}: {e}"))?;
    c.emit(&format!(
        "game saved in {rest} ({} moves)",
        c.s.game.moves().len()
    ));
    Ok(())
}

pub(super) fn cmd_savepos(c: &mut Con, _: &str, rest: &str) -> Res {
    if rest.is_empty() {
        return Err("expected a file".into());
    }
    let fen = c.s.game.board().to_fen();
    std::fs::write(rest, format!("setboard {fen}\n")).map_err(|e| format!("{rest}: {e}"))?;
    c.emit(&format!("position saved in {rest} (`in {rest}` reads it)"));
    Ok(())
}

pub(super) fn cmd_tags(c: &mut Con, _: &str, _: &str) -> Res {
    let p = c.game_pgn();
    let text = p.to_pgn();
    let lines: Vec<String> = text
        .lines()
        .take_while(|l| l.starts_with('['))
        .map(String::from)
        .collect();
    c.emit_all(&lines);
    Ok(())
}
