//! The fake server's side of one connection: lines in (timeseal or plain), the
//! login, replies in the server's dialect, the adjournment of a game whose link drops.

use super::*;

/// Reads one line (up to `\n`), handling timeseal when the client uses it.
pub(super) async fn read_line(
    sock: &mut tokio::net::tcp::OwnedReadHalf,
    buf: &mut Vec<u8>,
) -> Option<Vec<u8>> {
    loop {
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = buf.drain(..=i).collect();
            line.pop();
            while line.last() == Some(&b'\r') {
                line.pop();
            }
            return Some(line);
        }
        let mut chunk = [0u8; 4096];
        match sock.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

pub(super) async fn connection(
    sock: TcpStream,
    world: Arc<Mutex<World>>,
    engine: Arc<EngineHandle>,
) {
    let (mut rd, mut wr) = sock.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        while let Some(b) = rx.recv().await {
            if b.is_empty() {
                let _ = wr.shutdown().await;
                return;
            }
            if wr.write_all(&b).await.is_err() {
                return;
            }
        }
    });
    let icc_mode = {
        let mut w = world.lock().unwrap();
        w.stats.connections += 1;
        w.cfg.icc
    };
    let _ = tx.send(
        if icc_mode { icc::BANNER } else { BANNER }
            .as_bytes()
            .to_vec(),
    );
    let mut buf = Vec::new();
    let mut seal = false;
    let mut first = true;
    let mut handle = String::new();
    let mut state = 0; // 0 login, 1 password, 2 guest return, 3 logged in
    let mut last_input = Instant::now();
    loop {
        let idle = world.lock().unwrap().cfg.idle_logout;
        let line = match idle {
            Some(d) if state == 3 => {
                let wait = d.saturating_sub(last_input.elapsed());
                match tokio::time::timeout(wait, read_line(&mut rd, &mut buf)).await {
                    Ok(l) => l,
                    Err(_) => {
                        let _ = tx.send(lines("\n**** Auto-logout because you were idle more than 60 minutes. ****\n\nThank you for using a Free (GNU) Internet Chess server.\n"));
                        let _ = tx.send(Vec::new());
                        break;
                    }
                }
            }
            _ => read_line(&mut rd, &mut buf).await,
        };
        let Some(raw) = line else { break };
        last_input = Instant::now();
        let mut stamp = None;
        let no_seal = world.lock().unwrap().cfg.no_timeseal;
        let text = if first && raw.len() > 12 && !no_seal {
            match timeseal::decode(&raw) {
                Some((t, s)) => {
                    seal = true;
                    first = false;
                    let _ = t;
                    let _ = s;
                    continue;
                }
                None => String::from_utf8_lossy(&raw).into_owned(),
            }
        } else if seal {
            match timeseal::decode(&raw) {
                Some((t, s)) => {
                    stamp = Some(s);
                    t
                }
                None => String::from_utf8_lossy(&raw).into_owned(),
            }
        } else {
            String::from_utf8_lossy(&raw).into_owned()
        };
        first = false;
        if seal && (text == "\u{2}9" || text == "9") {
            let mut w = world.lock().unwrap();
            w.stats.pings_answered += 1;
            if let Some(g) = w.game.as_mut() {
                g.stamp_since = stamp;
            }
            continue;
        }
        let text = text.trim().to_string();
        if icc_mode && state < 3 {
            // ICC: `level1=`/`level2settings=` at the prompt, then the name; guests
            // and unregistered names enter at once; a refused password is
            // DG_LOGIN_FAILED.
            let mut w = world.lock().unwrap();
            if state == 0 && (text.starts_with("level1=") || text.starts_with("level2settings=")) {
                w.stats.login_lines.push(text.clone());
                let _ = tx.send(lines("login: "));
                continue;
            }
            if state == 0 {
                if w.cfg.users.iter().any(|(u, _)| u == &text) {
                    handle = text.clone();
                    let _ = tx.send(lines("password: "));
                    state = 1;
                    continue;
                }
                handle = if text.eq_ignore_ascii_case("guest") || text.is_empty() {
                    "guest2345".to_string()
                } else {
                    text.clone()
                };
            } else {
                let ok = w.cfg.users.iter().any(|(u, p)| u == &handle && p == &text);
                if !ok {
                    let f = icc::d(
                        kibitzer::ics::icc::dg::LOGIN_FAILED,
                        &["11", "Invalid password."],
                    );
                    let _ = tx.send(lines(&format!("{f}\nInvalid password.\nlogin: ")));
                    state = 0;
                    continue;
                }
            }
            drop(w);
            state = 3;
            login(&world, &handle, &tx);
            continue;
        }
        match state {
            0 => {
                let name = text.clone();
                let w = world.lock().unwrap();
                if name.eq_ignore_ascii_case("guest") {
                    handle = "GuestABCD".into();
                    let _ = tx.send(lines(&format!("\nCreated temporary login '{handle}'\n\n\"{handle}\" is not a registered name.  You may play unrated games as a guest.\n\nPress return to enter the FICS as \"{handle}\":")));
                    state = 2;
                } else if w.cfg.users.iter().any(|(u, _)| u == &name) {
                    handle = name.clone();
                    let _ = tx.send(b"\xff\xfb\x01".to_vec());
                    let _ = tx.send(lines(&format!("\n\"{name}\" is a registered name.  If it is yours, type the password.\nIf not, just hit return to try another name.\n\npassword: ")));
                    state = 1;
                } else if !name.chars().all(|c| c.is_ascii_alphabetic()) {
                    // What lasker answers to a name with anything but letters (a
                    // timeseal hello included).
                    let _ = tx.send(lines("\nSorry, names can only consist of lower and upper case letters.  Try again.\n\nIf you are not a registered player enter the login name \"guest\"\nlogin: "));
                } else if name.len() < 3 {
                    let _ = tx.send(lines("\nA name should be at least three characters long!  Try again.\n\nIf you are not a registered player enter the login name \"guest\"\nlogin: "));
                } else {
                    handle = name.clone();
                    let _ = tx.send(lines(&format!("\n\"{name}\" is not a registered name.  You may play unrated games as a guest.\n\nPress return to enter the FICS as \"{name}\":")));
                    state = 2;
                }
            }
            1 => {
                let ok = world
                    .lock()
                    .unwrap()
                    .cfg
                    .users
                    .iter()
                    .any(|(u, p)| u == &handle && p == &text);
                let _ = tx.send(b"\xff\xfc\x01".to_vec());
                if ok {
                    state = 3;
                    login(&world, &handle, &tx);
                } else {
                    let _ = tx.send(lines("\n**** Invalid password! ****\n\n\nIf you are not a registered player enter the login name \"guest\"\nlogin: "));
                    state = 0;
                }
            }
            2 => {
                state = 3;
                login(&world, &handle, &tx);
            }
            _ => {
                // The server splits every line on `;` unless it starts with `$`
                // (one `$` is taken off): each part is a command of its own.
                let parts: Vec<String> = match text.strip_prefix('$') {
                    Some(t) => vec![t.to_string()],
                    None => text.split(';').map(|p| p.trim().to_string()).collect(),
                };
                let mut quit = false;
                for part in parts {
                    if command(&world, &engine, &handle, &part, stamp, &tx) {
                        quit = true;
                        break;
                    }
                }
                if quit {
                    break;
                }
            }
        }
    }
    // Connection gone: adjourn a game in progress.
    let mut w = world.lock().unwrap();
    if w.bot
        .as_ref()
        .is_some_and(|b| b.0 == handle && b.1.same_channel(&tx))
    {
        w.bot = None;
        if let Some(g) = w.game.take() {
            w.adjourned = Some(g);
        }
    }
}

pub(super) fn login(world: &Arc<Mutex<World>>, handle: &str, tx: &mpsc::UnboundedSender<Vec<u8>>) {
    let mut w = world.lock().unwrap();
    w.stats.logins += 1;
    w.bot = Some((handle.to_string(), tx.clone()));
    // A server drops the offers to a player who left: a challenge made before the
    // last link went down (and maybe accepted on it, too late) is gone.
    w.challenge_pending = false;
    w.width = 79;
    if w.cfg.icc {
        let titles = if kibitzer::ics::parse::is_guest(handle) {
            "U"
        } else {
            "C"
        };
        let mut body = icc::d(kibitzer::ics::icc::dg::WHO_AM_I, &[handle, titles]);
        if w.adjourned.is_some() {
            body.push_str(&format!(
                "\n1 player, who has an adjourned game with you, is online:\n{OPP}\n"
            ));
        }
        let _ = tx.send(lines(&icc::unit(icc::CN_LOGIN, "$LoggingIn$", &body)));
        return;
    }
    // lasker lists the opponents with adjourned games inside the banner, before the
    // first prompt (a bell after the colon, two spaces after the name).
    let adjourned = if w.adjourned.is_some() {
        format!("1 player, who has an adjourned game with you, is online:\x07\n{OPP}  \n\n")
    } else {
        String::new()
    };
    let _ = tx.send(lines(&format!("__________________________________________________________________________\nDo 'help' for a list of the commands that are available.\n__________________________________________________________________________\n\n\n{adjourned}\nfics% ")));
}

pub(super) fn reply(tx: &mpsc::UnboundedSender<Vec<u8>>, text: &str) {
    let _ = tx.send(lines(&format!("{text}\n{PROMPT}")));
}

/// A reply in the server's dialect (ICC: a level-1 unit, no prompt).
pub(super) fn reply_to(icc_mode: bool, tx: &mpsc::UnboundedSender<Vec<u8>>, text: &str) {
    if icc_mode {
        let _ = tx.send(lines(&icc::unit(0, "*", &format!("{text}\n"))));
    } else {
        reply(tx, text);
    }
}
