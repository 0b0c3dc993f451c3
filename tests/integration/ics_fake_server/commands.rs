//! The commands the fake server understands from the bot, and the games they start.

use super::*;

/// Starts a game with the opponent (from the bot's acceptance).
pub(super) fn create_game(w: &mut World, bot: &str) {
    let opp_color = w.cfg.opp_color.unwrap_or(if w.games_started % 2 == 0 {
        Color::Black
    } else {
        Color::White
    });
    let (white, black) = if opp_color == Color::White {
        (OPP.to_string(), bot.to_string())
    } else {
        (bot.to_string(), OPP.to_string())
    };
    w.games_started += 1;
    let num = w.next_num;
    let ms = w.cfg.clock_ms.unwrap_or(w.cfg.minutes as i64 * 60_000);
    let start = match w.cfg.start_fen {
        Some(f) => Board::from_fen(f).expect("fake start position"),
        None => Board::startpos(),
    };
    w.game = Some(Game::new(num, &white, &black, start, ms));
    let (m, i) = (w.cfg.minutes, w.cfg.inc);
    let kind = if m * 60 + i * 40 < 180 {
        "lightning"
    } else {
        "blitz"
    };
    if w.cfg.icc {
        let u = icc::unit(
            icc::CN_ACCEPT,
            "*",
            &w.icc_started(w.game.as_ref().unwrap(), bot),
        );
        w.send(&u);
        return;
    }
    let r = w.rated_word();
    w.send(&format!("\nCreating: {white} (----) {black} (----) {r} {kind} {m} {i}\n\n{{Game {num} ({white} vs. {black}) Creating {r} {kind} match.}}\n"));
    w.send_board(bot);
}

pub(super) fn challenge(w: &mut World, bot: &str) {
    if w.game.is_some()
        || w.challenge_pending
        || w.games_started >= w.cfg.games
        || w.adjourned.is_some()
    {
        return;
    }
    w.challenge_pending = true;
    if w.cfg.icc {
        let u = icc::unit(icc::CN_MATCH, OPP, &w.icc_match(bot));
        w.send(&u);
        return;
    }
    let (m, i) = (w.cfg.minutes, w.cfg.inc);
    let kind = if m * 60 + i * 40 < 180 {
        "lightning"
    } else {
        "blitz"
    };
    let r = w.rated_word();
    w.send(&format!("\nChallenge: {OPP} (1500) {bot} (----) {r} {kind} {m} {i}.\nYou can \"accept\" or \"decline\", or propose different parameters.\n{PROMPT}"));
}

/// One command from the bot; true to close the connection.
pub(super) fn command(
    world: &Arc<Mutex<World>>,
    engine: &Arc<EngineHandle>,
    bot: &str,
    text: &str,
    stamp: Option<u32>,
    tx: &mpsc::UnboundedSender<Vec<u8>>,
) -> bool {
    let mut w = world.lock().unwrap();
    w.stats.commands.push(text.to_string());
    let word = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let arg = text
        .split_once(' ')
        .map(|x| x.1.trim().to_string())
        .unwrap_or_default();
    match word.as_str() {
        "" => reply_to(w.cfg.icc, tx, ""),
        "set" => {
            let var = arg.split_whitespace().next().unwrap_or("");
            let msg = match var {
                "style" => "Style 12 set.".to_string(),
                "bell" => "Bell off.".into(),
                "seek" => "You will not hear ads.".into(),
                "width" => {
                    let n = arg
                        .split_whitespace()
                        .nth(1)
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(79);
                    w.width = n;
                    format!("Width set to {n}.")
                }
                "interface" | "level1" | "sshout" => String::new(),
                "shout" | "cshout" | "pin" | "gin" | "open" => "Set.".into(),
                n if n.parse::<u8>().is_ok_and(|n| (1..=10).contains(&n)) => {
                    format!("Plan line {n} changed.")
                }
                v => format!("No such variable name {v}."),
            };
            reply_to(w.cfg.icc, tx, &msg);
        }
        "iset" => {
            let var = arg.split_whitespace().next().unwrap_or("");
            match var {
                "ms" | "startpos" | "lock" => reply_to(w.cfg.icc, tx, &format!("{var} set")),
                v => reply_to(w.cfg.icc, tx, &format!("No such ivariable \"{v}\".")),
            }
        }
        "seek" => {
            reply_to(w.cfg.icc, tx, &format!("  0    0 {bot:<18} {}", arg));
            challenge(&mut w, bot);
        }
        "set-2" => reply_to(w.cfg.icc, tx, ""),
        "unseek" => reply_to(w.cfg.icc, tx, "Ads removed: 0"),
        "accept" => {
            if w.challenge_pending && w.game.is_none() {
                w.challenge_pending = false;
                reply_to(
                    w.cfg.icc,
                    tx,
                    &format!("You accept the challenge of {OPP}."),
                );
                create_game(&mut w, bot);
                drop(w);
                opponent_turn(world, engine, bot);
                return false;
            }
            reply_to(w.cfg.icc, tx, "You have no offers to accept.");
        }
        "decline" => {
            w.stats.declined.push(arg.clone());
            w.challenge_pending = false;
            reply_to(w.cfg.icc, tx, &format!("You decline the offer from {arg}."));
        }
        "match" => {
            if arg.starts_with(OPP) && w.adjourned.is_some() && w.game.is_none() {
                let mut g = w.adjourned.take().unwrap();
                g.num = w.next_num + 1;
                w.next_num += 1;
                g.turn_since = Instant::now();
                let (white, black, num) = (g.white.clone(), g.black.clone(), g.num);
                w.game = Some(g);
                if w.cfg.icc {
                    let u = icc::unit(
                        icc::CN_MATCH,
                        "*",
                        &w.icc_started(w.game.as_ref().unwrap(), bot),
                    );
                    w.send(&u);
                    drop(w);
                    opponent_turn(world, engine, bot);
                    return false;
                }
                w.send(&format!("Issuing: {bot} (----) {OPP} (----) unrated wild 1 0 Loaded from blitz/0 (adjourned).\n{PROMPT}\n{OPP} accepts your challenge.\n{PROMPT}{{Game {num} ({white} vs. {black}) Continuing {r} blitz match.}}\n\nCreating: {white} (0) {black} (0) {r} blitz {} {}\n\n{{Game {num} ({white} vs. {black}) Continuing {r} blitz match.}}\n", w.cfg.minutes, w.cfg.inc, r = w.rated_word()));
                w.send_board(bot);
                drop(w);
                opponent_turn(world, engine, bot);
                return false;
            }
            reply_to(
                w.cfg.icc,
                tx,
                &format!("No user named \"{arg}\" is logged in."),
            );
        }
        "moves" => {
            let out = match w.game.as_ref() {
                Some(g) => w.movelist(g),
                None => format!("You are not playing or examining a game.\n{PROMPT}"),
            };
            w.send(&out);
        }
        "refresh" if w.cfg.icc => match w.game.as_ref() {
            Some(g) => {
                let u = icc::d(kibitzer::ics::icc::dg::REFRESH, &[&g.num.to_string()]);
                w.send(&icc::unit(0, "*", &u));
            }
            None => reply_to(
                true,
                tx,
                "You aren't playing, examining, or observing a game.",
            ),
        },
        "refresh" => {
            if w.game.is_some() {
                w.send_board(bot);
            } else {
                reply_to(
                    w.cfg.icc,
                    tx,
                    "You are not playing, examining, or observing a game.",
                );
            }
        }
        "draw" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            if w.cfg.refuse_draw_claims {
                reply(
                    tx,
                    &format!("Draw request sent.\n\n{OPP} declines draw request."),
                );
            } else if g.board.is_threefold_repetition() {
                w.end_game("Game drawn by repetition", "1/2-1/2");
            } else if g.board.is_fifty_move_draw() {
                w.end_game("Game drawn by the 50 move rule", "1/2-1/2");
            } else if g.offered || w.cfg.opp_accepts_draws {
                w.end_game("Game drawn by mutual agreement", "1/2-1/2");
            } else {
                reply(
                    tx,
                    &format!("Draw request sent.\n\n{OPP} declines draw request."),
                );
            }
        }
        "abort" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            if g.abort_asked
                || w.cfg.opp_accepts_abort
                || (g.ply() < 1 && !w.cfg.abort_needs_agreement)
            {
                w.end_game("Game aborted by mutual agreement", "*");
            } else {
                reply_to(w.cfg.icc, tx, "Abort request sent.");
            }
        }
        "adjourn" => reply_to(w.cfg.icc, tx, "Adjourn request sent."),
        "resign" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            let res = if g.white == bot { "0-1" } else { "1-0" };
            w.end_game(&format!("{bot} resigns"), res);
        }
        "flag" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            let side = g.board.side_to_move();
            let left = g.clock[side.index()] - g.turn_since.elapsed().as_millis() as i64;
            if g.ply() < 2 && !w.cfg.icc {
                // lasker's com_flag: the first moves are not timed.
                reply(
                    tx,
                    "You cannot flag before both players have moved.\nUse abort instead.",
                );
            } else if side != g.bot_color(bot) && left <= 0 {
                let res = if side == Color::White { "0-1" } else { "1-0" };
                w.end_game(&format!("{OPP} forfeits on time"), res);
            } else {
                reply_to(w.cfg.icc, tx, "Your opponent is not out of time!");
            }
        }
        "quit" => {
            if w.game.is_some() {
                reply_to(w.cfg.icc, tx, "You can't quit while you are playing a game.\nType 'resign' to resign the game, or you can request an abort with 'abort'.");
            } else {
                let _ = tx.send(lines(
                    "\nThank you for using a Free (GNU) Internet Chess server.\n",
                ));
                let _ = tx.send(Vec::new());
                return true;
            }
        }
        // lasker has no xwhisper/xkibitz (FICS has them).
        "xwhisper" | "xkibitz" if !w.cfg.fics_mode || w.cfg.icc => {
            w.stats.not_found.push(text.to_string());
            reply_to(w.cfg.icc, tx, &format!("{word}: Command not found."))
        }
        "whisper" | "kibitz" | "xwhisper" | "xkibitz" | "say" => {
            reply_to(w.cfg.icc, tx, &format!("{word}ed to 1."))
        }
        "observe" => {
            let target = arg.split_whitespace().next().unwrap_or("").to_string();
            if w.cfg
                .observable
                .iter()
                .any(|o| o.eq_ignore_ascii_case(&target))
            {
                if w.cfg.icc {
                    let start = Board::startpos().to_fen();
                    let u = icc::observed(&start, 99, 0, &target, "rival");
                    w.send(&icc::unit(0, "*", &u));
                    return false;
                }
                reply_to(w.cfg.icc, tx, "You are now observing game 99.");
            } else if target.parse::<u32>().is_ok() {
                reply_to(w.cfg.icc, tx, "There is no such game.");
            } else {
                reply_to(
                    w.cfg.icc,
                    tx,
                    &format!("No user named \"{target}\" is logged in."),
                );
            }
        }
        "unobserve" => reply_to(w.cfg.icc, tx, "You are not observing any games."),
        "date" | "finger" | "games" | "who" => reply_to(w.cfg.icc, tx, &format!("({word} output)")),
        "tell" => reply(
            tx,
            &format!("(told {})", arg.split_whitespace().next().unwrap_or("")),
        ),
        _ => {
            // A move?
            let Some(g) = w.game.as_ref() else {
                w.stats.not_found.push(text.to_string());
                reply_to(w.cfg.icc, tx, &format!("{word}: Command not found."));
                return false;
            };
            let bot_side = g.bot_color(bot);
            // lasker rejects `b2a1n`.
            let lasker_bad = text.len() == 5
                && text.as_bytes()[4].is_ascii_lowercase()
                && text.as_bytes()[1].is_ascii_digit();
            let parsed = if lasker_bad {
                Err(())
            } else {
                g.board.parse_move(text).map_err(|_| ())
            };
            let Ok(m) = parsed else {
                if text.len() <= 8
                    && text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && text.chars().any(|c| c.is_ascii_digit())
                {
                    w.stats.illegal_moves += 1;
                    if w.cfg.icc {
                        let num = w.game.as_ref().map_or(0, |g| g.num).to_string();
                        let u = icc::d(kibitzer::ics::icc::dg::ILLEGAL_MOVE, &[&num, text, "2"]);
                        w.send(&icc::unit(1, "*", &format!("{u}Illegal move ({text}).\n")));
                        return false;
                    }
                    reply_to(w.cfg.icc, tx, "Illegal move.");
                } else {
                    w.stats.not_found.push(text.to_string());
                    reply_to(w.cfg.icc, tx, &format!("{word}: Command not found."));
                }
                return false;
            };
            if g.board.side_to_move() != bot_side {
                if w.cfg.icc {
                    let u = icc::d(
                        kibitzer::ics::icc::dg::ILLEGAL_MOVE,
                        &[&g.num.to_string(), text, "4"],
                    );
                    w.send(&icc::unit(1, "*", &format!("{u}It is not your move.\n")));
                    return false;
                }
                reply_to(w.cfg.icc, tx, "It is not your move.");
                return false;
            }
            if w.cfg.illegal_reply_at == Some(g.ply()) && !g.illegal_done {
                w.game.as_mut().unwrap().illegal_done = true;
                if w.cfg.icc {
                    let num = w.game.as_ref().unwrap().num.to_string();
                    let u = icc::d(kibitzer::ics::icc::dg::ILLEGAL_MOVE, &[&num, text, "2"]);
                    w.send(&icc::unit(1, "*", &format!("{u}Illegal move ({text}).\n")));
                    return false;
                }
                reply_to(w.cfg.icc, tx, "Illegal move.");
                return false;
            }
            let g = w.game.as_ref().unwrap();
            let mut charge = g.turn_since.elapsed().as_millis() as i64;
            if let (Some(a), Some(b)) = (g.stamp_since, stamp) {
                charge = b.wrapping_sub(a) as i64;
            } else {
                let jitter = w.cfg.jitter.as_millis() as u64;
                let j = if jitter > 0 {
                    w.rand() % (jitter + 1)
                } else {
                    0
                };
                charge += w.cfg.lag.as_millis() as i64 + j as i64;
            }
            if !w.apply(m, charge) {
                w.stats.bot_time_losses += 1;
                let name = bot.to_string();
                let res = if bot_side == Color::White {
                    "0-1"
                } else {
                    "1-0"
                };
                w.end_game(&format!("{name} forfeits on time"), res);
                return false;
            }
            let left = w.game.as_ref().unwrap().clock[bot_side.index()];
            w.stats.min_bot_reserve_ms =
                Some(w.stats.min_bot_reserve_ms.map_or(left, |x| x.min(left)));
            if w.cfg.icc {
                w.send_board(bot);
            }
            if w.check_end() {
                return false;
            }
            if !w.cfg.icc {
                w.send_board(bot);
            }
            let ply = w.game.as_ref().unwrap().ply();
            if w.cfg.drop_at.is_some_and(|p| ply >= p) {
                w.cfg.drop_at = None;
                let g = w.game.take().unwrap();
                w.adjourned = Some(g);
                w.bot = None;
                let _ = tx.send(Vec::new());
                return true;
            }
            if w.cfg.shutdown_at.is_some_and(|p| ply >= p) && w.cfg.shutdown_countdown.is_some() {
                // The real server's countdown: announced now, down when it runs out.
                w.cfg.shutdown_at = None;
                let secs = w.cfg.shutdown_countdown.take().unwrap();
                w.send(&format!("\n\n    **** Server shutdown ordered by admin. ****\n    **** Server going down in {} minutes and {} seconds. ****\n\n{PROMPT}", secs / 60, secs % 60));
                let world = Arc::clone(world);
                let tx = tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_secs(secs)).await;
                    let mut w = world.lock().unwrap();
                    let mut line =
                        String::from("\n\n    **** Server shutdown ordered by admin. ****\n\n");
                    if let Some(g) = w.game.take() {
                        if w.cfg.rated {
                            line.push_str(&format!("{{Game {} ({} vs. {}) Game adjourned by mutual agreement}} *\nNo ratings adjustment done.\n{PROMPT}\n", g.num, g.white, g.black));
                            w.stats.results.push((
                                "*".into(),
                                "adjourned by shutdown".into(),
                                g.ply(),
                            ));
                            w.adjourned = Some(g);
                        } else {
                            w.stats
                                .results
                                .push(("*".into(), DROPPED_BY_SHUTDOWN.into(), g.ply()));
                        }
                    }
                    line.push_str("    **** Server shutting down immediately. ****\n\nLogging you out.\n\nThank you for using a Free (GNU) Internet Chess server.\n");
                    w.send(&line);
                    w.down_until = Some(Instant::now() + w.cfg.down_for);
                    w.bot = None;
                    let _ = tx.send(Vec::new());
                });
            }
            if w.cfg.shutdown_at.is_some_and(|p| ply >= p) {
                w.cfg.shutdown_at = None;
                let g = w.game.take().unwrap();
                let ended = if w.cfg.rated {
                    format!("{{Game {} ({} vs. {}) Game adjourned by mutual agreement}} *\nNo ratings adjustment done.\n{PROMPT}\n", g.num, g.white, g.black)
                } else {
                    String::new()
                };
                let line = format!("\n\n    **** Server shutdown ordered by admin. ****\n\n    **** We are going down because: testing shutdown. ****\n\n{ended}    **** Server shutting down immediately. ****\n\nLogging you out.\n\nThank you for using a Free (GNU) Internet Chess server.\n");
                if w.cfg.rated {
                    w.adjourned = Some(g);
                } else {
                    w.stats
                        .results
                        .push(("*".into(), DROPPED_BY_SHUTDOWN.into(), g.ply()));
                }
                w.send(&line);
                w.down_until = Some(Instant::now() + w.cfg.down_for);
                w.bot = None;
                let _ = tx.send(Vec::new());
                return true;
            }
            drop(w);
            opponent_turn(world, engine, bot);
        }
    }
    false
}
