//! The fake server's own player: real moves from our engine at a low node count,
//! played on a task of its own with the clock running.

use super::*;

pub(super) fn opp_move(
    engine: &EngineHandle,
    board: &Board,
    nodes: u64,
    book: &[&str],
    rng: u64,
) -> Move {
    let n = board.ply_count() / 2;
    if let Some(san) = book.get(n) {
        if let Ok(m) = board.parse_move(san) {
            return m;
        }
    }
    let nodes = nodes + rng % (nodes.max(1));
    let r = engine.search_sync(board, SearchLimits::nodes(nodes), SearchConfig::default());
    r.best
}

/// The opponent's turn: think, then move (on a separate task).
pub(super) fn opponent_turn(world: &Arc<Mutex<World>>, engine: &Arc<EngineHandle>, bot: &str) {
    let (board, think, nodes, book, rng, num) = {
        let mut w = world.lock().unwrap();
        let rng = w.rand();
        let cfg = w.cfg.clone();
        let Some(g) = w.game.as_mut() else { return };
        if g.board.side_to_move() == g.bot_color(bot) {
            return;
        }
        if cfg.opp_stall_at.is_some_and(|p| g.ply() >= p) {
            g.stalled = true;
            return;
        }
        (
            g.board.clone(),
            cfg.opp_think,
            cfg.opp_nodes,
            cfg.opp_book.clone(),
            rng,
            g.num,
        )
    };
    let world = Arc::clone(world);
    let engine = Arc::clone(engine);
    let bot = bot.to_string();
    tokio::spawn(async move {
        tokio::time::sleep(think).await;
        let e2 = Arc::clone(&engine);
        let m = tokio::task::spawn_blocking(move || opp_move(&e2, &board, nodes, &book, rng))
            .await
            .unwrap();
        let mut w = world.lock().unwrap();
        let Some(g) = w.game.as_ref() else { return };
        if g.num != num || g.board.side_to_move() == g.bot_color(&bot) {
            return;
        }
        let ply = g.ply();
        let charge = g.turn_since.elapsed().as_millis() as i64;
        if w.cfg.opp_resign_at.is_some_and(|p| ply >= p) {
            let name = OPP.to_string();
            let res = if g.white == OPP { "0-1" } else { "1-0" };
            w.end_game(&format!("{name} resigns"), res);
            return;
        }
        if !w.apply(m, charge) {
            return; // out of time: the referee ends it
        }
        // ICC sends the move (DG_SEND_MOVES) before the result of the game.
        if w.cfg.icc {
            w.send_board(&bot);
        }
        if w.check_end() {
            return;
        }
        if !w.cfg.icc {
            w.send_board(&bot);
        }
        let ply = w.game.as_ref().unwrap().ply();
        if w.cfg.opp_disconnect_at.is_some_and(|p| ply >= p) {
            // The opponent's link drops while the bot thinks: lasker adjourns at once.
            w.cfg.opp_disconnect_at = None;
            let after = w.cfg.opp_disconnect_after;
            let back = w.cfg.opp_return_after;
            let world = Arc::clone(&world);
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                if let (Some(back), false) = (back, world.lock().unwrap().cfg.icc) {
                    // The opponent logs in again: lasker tells the bot.
                    let world = Arc::clone(&world);
                    tokio::spawn(async move {
                        tokio::time::sleep(back).await;
                        let w = world.lock().unwrap();
                        if w.adjourned.is_some() {
                            w.send(&format!("\nNotification: {OPP}, who has an adjourned game with you, has arrived.\n{PROMPT}"));
                        }
                    });
                }
                let mut w = world.lock().unwrap();
                if let Some(g) = w.game.take() {
                    let line = if w.cfg.icc {
                        let who = if g.white == OPP { "White" } else { "Black" };
                        let t = format!("Game adjourned when {who} disconnected");
                        icc::unit(
                            0,
                            "$server$",
                            &format!(
                                "Your opponent has lost contact or quit.\n{}",
                                w.icc_result(&g, &t, "*")
                            ),
                        )
                    } else {
                        format!("Your opponent has lost contact or quit.\n{{Game {} ({} vs. {}) adjourned}} *\nNo ratings adjustment done.\n{PROMPT}", g.num, g.white, g.black)
                    };
                    w.stats
                        .results
                        .push(("*".into(), "adjourned".into(), g.ply()));
                    w.adjourned = Some(g);
                    w.challenge_pending = false;
                    w.send(&line);
                }
            });
            return;
        }
        if w.cfg.opp_offer_draw_at.is_some_and(|p| ply >= p) && !w.game.as_ref().unwrap().offered {
            w.game.as_mut().unwrap().offered = true;
            let out = if w.cfg.icc {
                icc::unit(0, OPP, &w.icc_offer(w.game.as_ref().unwrap(), &bot, 0))
            } else {
                format!("\n{OPP} offers you a draw.\n{PROMPT}")
            };
            w.send(&out);
        }
        if w.cfg.opp_abort_request_at.is_some_and(|p| ply >= p)
            && !w.game.as_ref().unwrap().abort_asked
        {
            w.game.as_mut().unwrap().abort_asked = true;
            let out = if w.cfg.icc {
                icc::unit(0, OPP, &w.icc_offer(w.game.as_ref().unwrap(), &bot, 4))
            } else {
                format!("\n{OPP} would like to abort the game; type \"abort\" to accept.\n{PROMPT}")
            };
            w.send(&out);
        }
        if w.cfg.opp_takeback_at.is_some_and(|p| ply >= p)
            && !w.game.as_ref().unwrap().takeback_asked
        {
            w.game.as_mut().unwrap().takeback_asked = true;
            let out = if w.cfg.icc {
                icc::unit(0, OPP, &w.icc_offer(w.game.as_ref().unwrap(), &bot, 6))
            } else {
                format!("\n{OPP} would like to take back 1 half move(s).\n{PROMPT}")
            };
            w.send(&out);
        }
    });
}
