//! The game controller: clocks on a manual clock, time controls and the limits fed to
//! the time manager, result detection (mate, stalemate, repetition, 50 moves,
//! insufficient material), undo/remove, the engine state machine, pondering hit and
//! miss, the book/tables hooks and the resign/draw policy.

use crate::session::test_options;
use kibitzer::chess::{Board, Color, Move};
use kibitzer::engine::time::{allocate, ManualClock};
use kibitzer::engine::{EventSink, SearchEvent};
use kibitzer::game::{
    BookHook, DefaultPolicy, EngineAction, EngineState, Game, Outcome, Policy, PonderOutcome,
    TablesHook,
};
use kibitzer::options::Options;
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn game_with(opts: &Options) -> (Game, Arc<ManualClock>, Receiver<()>) {
    let clock = Arc::new(ManualClock::default());
    let mut g = Game::with_clock(opts, clock.clone());
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    g.set_notify(Arc::new(move || {
        let _ = tx.lock().unwrap().send(());
    }));
    (g, clock, rx)
}

fn game() -> (Game, Arc<ManualClock>, Receiver<()>) {
    game_with(&test_options())
}

fn quiet() -> EventSink {
    Arc::new(|_: &SearchEvent| {})
}

fn wait(g: &mut Game, rx: &Receiver<()>) -> kibitzer::game::Finished {
    loop {
        rx.recv_timeout(Duration::from_secs(60))
            .expect("search ends");
        if let Some(f) = g.take_finished() {
            return f;
        }
    }
}

fn play(g: &mut Game, moves: &[&str]) {
    for m in moves {
        let mv = g.parse_move(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        g.make_move(mv).unwrap();
    }
}

fn opts(pairs: &[(&str, &str)]) -> Options {
    let mut o = test_options();
    for (k, v) in pairs {
        o.set(k, v).unwrap();
    }
    o
}

// ----- clocks and time controls ---------------------------------------------------------

#[test]
fn clocks_run_for_the_side_to_move_only() {
    let (mut g, clock, _rx) = game_with(&opts(&[("level", "40 5 0")]));
    assert_eq!(g.clocks().left(Color::White), Duration::from_secs(300));
    clock.advance(Duration::from_secs(10));
    assert_eq!(g.clocks().left(Color::White), Duration::from_secs(290));
    assert_eq!(g.clocks().left(Color::Black), Duration::from_secs(300));
    play(&mut g, &["e4"]);
    assert_eq!(g.moves()[0].time, Duration::from_secs(10));
    clock.advance(Duration::from_secs(3));
    assert_eq!(g.clocks().left(Color::White), Duration::from_secs(290));
    assert_eq!(g.clocks().left(Color::Black), Duration::from_secs(297));
    play(&mut g, &["e5"]);
    assert_eq!(g.clocks().left(Color::Black), Duration::from_secs(297));
    assert_eq!(g.clocks().moves_to_go(Color::White), Some(39));
    assert_eq!(g.clocks().moves_to_go(Color::Black), Some(39));
}

#[test]
fn increments_and_period_ends_add_time() {
    // Fischer: 1 minute + 2 s.
    let (mut g, clock, _rx) = game_with(&opts(&[("level", "0 1 2")]));
    clock.advance(Duration::from_secs(5));
    play(&mut g, &["d4"]);
    assert_eq!(g.clocks().left(Color::White), Duration::from_secs(57));
    assert_eq!(g.clocks().moves_to_go(Color::White), None);
    // Two moves in a minute, repeating: the third move starts a fresh minute.
    let (mut g, clock, _rx) = game_with(&opts(&[("level", "2 1 0")]));
    clock.advance(Duration::from_secs(20));
    play(&mut g, &["d4", "d5"]);
    assert_eq!(g.clocks().moves_to_go(Color::White), Some(1));
    clock.advance(Duration::from_secs(20));
    play(&mut g, &["c4"]);
    assert_eq!(g.clocks().left(Color::White), Duration::from_secs(80));
    assert_eq!(g.clocks().moves_to_go(Color::White), Some(2));
    // Crafty's `time 2/1/sd/5`: after two moves, five minutes for the rest.
    let (mut g, _clock, _rx) = game_with(&opts(&[("level", "2/1/sd/5")]));
    play(&mut g, &["d4", "d5", "c4", "e6"]);
    assert_eq!(g.clocks().left(Color::White), Duration::from_secs(360));
    assert_eq!(g.clocks().moves_to_go(Color::White), None);
}

#[test]
fn limits_follow_st_sd_sn_and_the_clock() {
    let (mut g, clock, _rx) = game_with(&opts(&[("level", "40 10 3")]));
    clock.advance(Duration::from_secs(30));
    let l = g.limits_for(Color::White);
    let c = l.clock.expect("clock limits");
    assert_eq!(c.time_left, Duration::from_secs(570));
    assert_eq!(c.increment, Duration::from_secs(3));
    assert_eq!(c.moves_to_go, Some(40));
    assert!(l.movetime.is_none() && l.depth.is_none() && l.nodes.is_none());
    let o = opts(&[("st", "2.5"), ("sd", "7"), ("sn", "5000")]);
    g.configure(&o);
    let l = g.limits_for(Color::White);
    assert_eq!(l.movetime, Some(Duration::from_millis(2500)));
    assert!(l.clock.is_none());
    assert_eq!((l.depth, l.nodes), (Some(7), Some(5000)));
}

#[test]
fn the_time_manager_never_touches_the_reserve_or_overhead() {
    // Property over many clock states built by the controller itself.
    for (level, operator) in [
        ("0 1 0", "0"),
        ("40 5 0", "0"),
        ("0 2 1", "0"),
        ("0 15 0", "10"),
        ("5 1 0", "0"),
    ] {
        let o = opts(&[
            ("level", level),
            ("operator", operator),
            ("move_overhead", "100"),
        ]);
        let (mut g, clock, _rx) = game_with(&o);
        let mut left_checked = 0;
        for i in 0..60u64 {
            let side = g.side_to_move();
            let l = g.limits_for(side);
            let budget = allocate(&l, g.config()).expect("timed");
            let c = l.clock.unwrap();
            let usable = c
                .time_left
                .saturating_sub(g.config().operator_reserve)
                .saturating_sub(g.config().move_overhead)
                .max(Duration::from_millis(1));
            assert!(
                budget.soft <= budget.hard && budget.hard <= usable,
                "{level}: {budget:?} vs {usable:?}"
            );
            left_checked += 1;
            // Spend a varying share of the budget, then move.
            clock.advance(budget.soft * ((i % 3) as u32 + 1) / 3);
            let mv = g.board().legal_moves().iter().next().copied().unwrap();
            g.make_move(mv).unwrap();
            if g.result().is_some() {
                break;
            }
        }
        assert!(left_checked > 10);
    }
}

// ----- results ------------------------------------------------------------------------------

#[test]
fn mate_and_stalemate_end_the_game() {
    let (mut g, _c, _rx) = game();
    play(&mut g, &["f3", "e5", "g4", "Qh4#"]);
    let r = g.result().expect("mate");
    assert_eq!(r.outcome, Outcome::BlackWins);
    assert_eq!(r.to_string(), "0-1 {Black mates}");
    assert_eq!(g.moves().last().unwrap().san, "Qh4#");
    // Stalemate by the last move.
    g.set_fen("7k/8/7K/6Q1/8/8/8/8 w - - 0 1").unwrap();
    assert!(g.result().is_none());
    play(&mut g, &["Qg6"]);
    assert_eq!(g.result().unwrap().outcome, Outcome::Draw);
    assert_eq!(g.result().unwrap().reason, "Stalemate");
}

#[test]
fn threefold_repetition_fifty_moves_and_bare_kings_are_draws() {
    let (mut g, _c, _rx) = game();
    play(&mut g, &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]);
    assert!(g.result().is_none(), "only two occurrences so far");
    play(&mut g, &["Ng8"]);
    assert_eq!(g.result().unwrap().reason, "Draw by repetition");

    g.set_fen("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80").unwrap();
    assert!(g.result().is_none());
    play(&mut g, &["Ra2"]);
    assert_eq!(g.result().unwrap().reason, "Fifty move rule");
    // A pawn move resets the count.
    g.set_fen("4k3/8/8/8/8/8/4P3/R3K3 w - - 99 80").unwrap();
    play(&mut g, &["e4"]);
    assert!(g.result().is_none());

    g.set_fen("4k3/8/8/8/8/8/3n4/4K3 w - - 0 1").unwrap();
    play(&mut g, &["Kxd2"]);
    assert_eq!(g.result().unwrap().reason, "Insufficient material");
}

#[test]
fn undo_and_remove_take_back_moves_and_results() {
    let (mut g, _c, _rx) = game();
    play(&mut g, &["f3", "e5", "g4", "Qh4#"]);
    g.undo().unwrap();
    assert!(g.result().is_none());
    assert_eq!(g.moves().len(), 3);
    assert_eq!(g.side_to_move(), Color::Black);
    g.remove().unwrap();
    assert_eq!(g.moves().len(), 1);
    assert_eq!(g.side_to_move(), Color::Black);
    let mut b = Board::startpos();
    let f3 = b.parse_uci("f2f3").unwrap();
    b.make_move(f3);
    assert_eq!(g.board(), &b);
    assert!(g.remove().is_err());
    g.undo().unwrap();
    assert!(g.undo().is_err());
    assert_eq!(g.board(), &Board::startpos());
}

// ----- the engine -----------------------------------------------------------------------------

#[test]
fn think_then_play_goes_through_the_states() {
    let (mut g, _c, rx) = game_with(&opts(&[("sd", "4")]));
    assert_eq!(g.state(), EngineState::Idle);
    play(&mut g, &["e4"]);
    assert!(g.engine_to_move(), "the engine plays Black by default");
    g.think(quiet());
    assert_eq!(g.state(), EngineState::Thinking);
    let f = wait(&mut g, &rx);
    assert_eq!(f.state, EngineState::Thinking);
    assert_eq!(g.state(), EngineState::Idle);
    assert_eq!(f.result.depth, 4);
    match g.engine_move(&f.result) {
        EngineAction::Move { mv, .. } => assert_eq!(g.board().last_move(), Some(mv)),
        a => panic!("{a:?}"),
    }
    assert_eq!(g.moves().len(), 2);
    assert!(g.moves()[1].score.is_some());
    // Analysis and observing.
    g.analyse(quiet(), false);
    assert_eq!(g.state(), EngineState::Analysing);
    g.stop();
    assert_eq!(wait(&mut g, &rx).state, EngineState::Analysing);
    g.analyse(quiet(), true);
    assert_eq!(g.state(), EngineState::Observing);
    g.abort_search();
    assert_eq!(g.state(), EngineState::Idle);
}

#[test]
fn pondering_hit_continues_and_miss_restarts() {
    let o = opts(&[("sd", "3"), ("ponder", "on")]);
    let (mut g, _c, rx) = game_with(&o);
    play(&mut g, &["e4"]);
    g.think(quiet());
    let f = wait(&mut g, &rx);
    let expected = f.result.ponder.expect("a ponder move");
    g.engine_move(&f.result);
    assert_eq!(g.start_pondering(quiet()), Some(expected));
    assert_eq!(g.state(), EngineState::Pondering);
    // The depth-3 ponder search finishes but waits for the opponent's move.
    assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
    assert_eq!(g.opponent_move(expected).unwrap(), PonderOutcome::Hit);
    assert_eq!(g.state(), EngineState::Thinking);
    let f = wait(&mut g, &rx);
    assert_eq!(f.state, EngineState::Thinking);
    assert!(
        g.board().is_legal(f.result.best),
        "the answer is for the position after the hit"
    );
    g.engine_move(&f.result);

    // A miss: ponder on the expected move, the opponent plays another.
    let expected = g.start_pondering(quiet()).expect("pondering");
    let other: Move = g
        .board()
        .legal_moves()
        .iter()
        .copied()
        .find(|&m| m != expected)
        .unwrap();
    assert_eq!(g.opponent_move(other).unwrap(), PonderOutcome::Miss);
    assert_eq!(g.state(), EngineState::Idle);
    assert_eq!(g.board().last_move(), Some(other));
    g.think(quiet());
    let f = wait(&mut g, &rx);
    assert!(g.board().is_legal(f.result.best));
}

#[test]
fn ponder_move_can_be_chosen() {
    let (mut g, _c, rx) = game_with(&opts(&[("sd", "2"), ("ponder", "on")]));
    play(&mut g, &["d4"]);
    g.think(quiet());
    let f = wait(&mut g, &rx);
    g.engine_move(&f.result);
    let mv = g.parse_move("a3").unwrap();
    g.set_ponder_move(Some(mv));
    assert_eq!(g.expected_reply(), Some(mv));
    assert_eq!(g.start_pondering(quiet()), Some(mv));
    assert_eq!(g.pondering_on(), Some(mv));
    g.abort_search();
}

struct FixedBook(&'static str);
impl BookHook for FixedBook {
    fn probe(&mut self, board: &Board) -> Option<Move> {
        board.parse_uci(self.0).ok()
    }
}

struct FixedTables;
impl TablesHook for FixedTables {
    fn probe_root(&mut self, board: &Board) -> Option<(Move, i32)> {
        board.legal_moves().iter().next().map(|&m| (m, 123))
    }
}

#[test]
fn book_then_tables_then_search() {
    let (mut g, _c, rx) = game_with(&opts(&[("sd", "2")]));
    g.set_book(Some(Box::new(FixedBook("e2e4"))));
    g.set_tables(Some(Box::new(FixedTables)));
    g.set_engine_side(Some(Color::White));
    g.think(quiet());
    let f = wait(&mut g, &rx);
    assert!(f.from_hook);
    assert_eq!(f.result.best.to_string(), "e2e4");
    g.engine_move(&f.result);
    // No book move for Black here: the tables answer.
    g.set_engine_side(Some(Color::Black));
    g.think(quiet());
    let f = wait(&mut g, &rx);
    assert!(f.from_hook);
    assert_eq!(f.result.score, 123);
    // Without hooks, the search.
    g.set_book(None);
    g.set_tables(None);
    g.think(quiet());
    let f = wait(&mut g, &rx);
    assert!(!f.from_hook);
    assert_eq!(f.result.depth, 2);
}

#[test]
fn default_policy_resigns_after_n_bad_scores_and_accepts_draws_by_drawscore() {
    let mut p = DefaultPolicy::default();
    assert_eq!((p.resign, p.resign_count, p.draw_score), (9, 5, 0));
    assert!(!p.resign(&[-1000; 4]));
    assert!(p.resign(&[0, -1000, -1000, -1000, -1000, -1000]));
    assert!(!p.resign(&[-1000, -1000, -1000, -1000, -800]));
    assert!(p.accept_draw(0) && p.accept_draw(-30) && !p.accept_draw(10));
    // Never while being mated far away; yes when the mate is near.
    let mated_in = |m: i32| -(kibitzer::engine::MATE - 2 * m);
    assert!(!p.resign(&[mated_in(12); 6]));
    assert!(p.resign(&[mated_in(3); 6]));
    p.resign = 0;
    assert!(!p.resign(&[-30000; 10]));
    assert!(p.offer_draw(&[0; 5]) && !p.offer_draw(&[0, 0, 0, 0, 1]));
    // Not again before offer_every more moves.
    assert!(!p.offer_draw(&[0; 6]) && !p.offer_draw(&[0; 14]));
    assert!(p.offer_draw(&[0; 15]));
}

#[test]
fn the_engine_resigns_a_lost_game_through_the_policy() {
    // Queen down with nothing to show for it; resign at -1 pawn after one move.
    let (mut g, _c, rx) = game_with(&opts(&[
        ("sd", "3"),
        ("resign", "1"),
        ("resign_count", "1"),
    ]));
    g.set_fen("4k3/8/8/8/8/8/3q4/K7 w - - 0 1").unwrap();
    g.set_engine_side(Some(Color::White));
    g.think(quiet());
    let f = wait(&mut g, &rx);
    assert_eq!(g.engine_move(&f.result), EngineAction::Resign);
    let r = g.result().unwrap();
    assert_eq!(r.outcome, Outcome::BlackWins);
    assert_eq!(r.reason, "White resigns");
    // Draw offers follow the draw score of a real search, from move 20.
    let (mut g, _c, rx) = game_with(&opts(&[("drawscore", "-50"), ("sd", "3")]));
    g.set_fen("4k3/pppr4/8/8/8/8/PPPR4/4K3 w - - 0 40").unwrap();
    g.set_engine_side(Some(Color::White));
    assert!(!g.draw_offered(), "no search yet: nothing to judge by");
    g.configure(&opts(&[("drawscore", "500"), ("sd", "3")]));
    assert!(!g.draw_offered(), "still no search");
    g.think(quiet());
    let f = wait(&mut g, &rx);
    assert!(
        f.result.score.abs() < 300,
        "rooks and pawns, level: {}",
        f.result.score
    );
    g.engine_move(&f.result);
    assert!(g.draw_offered(), "a searched score under the draw score");
    g.configure(&opts(&[("drawscore", "-500"), ("sd", "3")]));
    assert!(!g.draw_offered(), "a searched score above it");
    // Before move 20 an offer is declined whatever the score, unless the position
    // is a dead draw.
    let (mut g, _c, rx) = game_with(&opts(&[("drawscore", "500"), ("sd", "3")]));
    g.set_fen("4k3/pppr4/8/8/8/8/PPPR4/4K3 w - - 0 12").unwrap();
    g.set_engine_side(Some(Color::White));
    g.think(quiet());
    let f = wait(&mut g, &rx);
    g.engine_move(&f.result);
    assert!(!g.draw_offered(), "move 12");
    g.set_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 3").unwrap();
    assert!(g.draw_offered(), "bare kings: a dead draw");
}

#[test]
fn options_reach_the_engine_config() {
    let o = opts(&[
        ("drawscore", "-20"),
        ("extensions.recapture", "1"),
        ("evaluation.kscale", "150"),
        ("multipv", "2"),
        ("move_overhead", "250"),
        ("operator", "3"),
        ("usage", "25"),
        ("threads", "2"),
        ("hash", "4M"),
    ]);
    let (g, _c, _rx) = game_with(&o);
    let c = g.config();
    assert_eq!(c.draw_score, -20);
    assert_eq!(c.extensions.recapture, 1);
    assert_eq!(c.eval.kscale, 150);
    assert_eq!(c.multipv, 2);
    assert_eq!(c.move_overhead, Duration::from_millis(250));
    assert_eq!(c.operator_reserve, Duration::from_secs(180));
    assert_eq!(c.usage, 25);
    assert_eq!(g.engine().threads(), 2);
    assert!(g.engine().hash_bytes() <= 4 << 20);
}
