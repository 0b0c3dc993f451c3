//! Endgame tables (`../shared/data/syzygy`, every 3- and 4-piece table): WDL and DTZ
//! against values python-chess computed (`tests/data/syzygy_probes.txt`, random
//! placements, en passant positions, high halfmove clocks), probing without
//! allocation, the WDL probe in the search (wins as bounds, cursed wins as near-draws),
//! conversions at a fixed node budget against a defender playing the tables' best
//! moves within the 50-move rule (KBNK, KRKP, KQKR, KQKR after 80 half-moves, a KRKQ
//! draw held by the rule), the resign/draw/swindle policy, the options in UCI, xboard
//! and the console, and nothing changed when the directory is absent.

use crate::session::{test_options, Driver};
use kibitzer::chess::{Board, Color, Move};
use kibitzer::egtb::{self, Outcome, Tablebase, Wdl};
use kibitzer::engine::search::TB_WIN;
use kibitzer::engine::{EngineHandle, SearchConfig, SearchEvent, SearchLimits};
use kibitzer::game::{EngineAction, Game};
use kibitzer::protocol::Protocol;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

// ----- an allocator that counts this thread's allocations while asked to ----------

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

fn note_alloc() {
    let _ = COUNTING.try_with(|on| {
        if on.get() {
            let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        }
    });
}

// SAFETY: forwards every call to the system allocator unchanged; it only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        note_alloc();
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(p, l, n) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> u64 {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|on| on.set(true));
    f();
    COUNTING.with(|on| on.set(false));
    COUNT.with(|c| c.get())
}

// ----- helpers ---------------------------------------------------------------------

fn tb_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/syzygy")
}

fn tables() -> Arc<dyn Tablebase> {
    static TABLES: OnceLock<Arc<dyn Tablebase>> = OnceLock::new();
    Arc::clone(TABLES.get_or_init(|| {
        let loaded = egtb::load(tb_dir().to_str().expect("utf-8 path"));
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        loaded.tablebase().expect("tables in ../shared/data/syzygy")
    }))
}

struct Probe {
    fen: String,
    wdl: i32,
    dtz: i32,
    verdict: char,
}

fn probes() -> Vec<Probe> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy_probes.txt");
    let text = std::fs::read_to_string(&path).expect("tests/data/syzygy_probes.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('|').map(str::trim).collect();
            Probe {
                fen: f[0].to_string(),
                wdl: f[1].parse().unwrap(),
                dtz: f[2].parse().unwrap(),
                verdict: f[3].chars().next().unwrap(),
            }
        })
        .collect()
}

fn outcome_char(o: Outcome) -> char {
    match o {
        Outcome::Win => 'W',
        Outcome::Draw => 'D',
        Outcome::Loss => 'L',
    }
}

// ----- the prober ------------------------------------------------------------------

#[test]
fn wdl_dtz_and_results_match_python_chess() {
    let tb = tables();
    assert_eq!(tb.max_pieces(), 4);
    let probes = probes();
    assert!(probes.len() >= 300, "{} positions", probes.len());
    let mut ep = 0;
    let mut clocked = 0;
    for p in &probes {
        let mut b = Board::from_fen(&p.fen).unwrap_or_else(|e| panic!("{}: {e}", p.fen));
        ep += b.ep_square().is_some() as usize;
        clocked += (b.halfmove_clock() > 0) as usize;
        assert_eq!(
            tb.probe_wdl(&b).map(Wdl::to_i32),
            Some(p.wdl),
            "WDL of {}",
            p.fen
        );
        let dtz = tb.probe_dtz(&b).expect("DTZ");
        assert_eq!(dtz.plies, p.dtz, "DTZ of {}", p.fen);
        if p.verdict != '?' {
            let (o, _) = egtb::outcome_of(&*tb, &b).expect("in the tables");
            assert_eq!(outcome_char(o), p.verdict, "result of {}", p.fen);
            // The root ranking agrees with the position's own DTZ.
            let r = egtb::rank_root(&*tb, &mut b, 7).expect("ranked");
            assert_eq!(
                outcome_char(r.outcome()),
                p.verdict,
                "root result of {}",
                p.fen
            );
            assert_eq!(b.to_fen(), Board::from_fen(&p.fen).unwrap().to_fen());
        }
    }
    assert!(
        ep >= 10 && clocked >= 30,
        "{ep} en passant, {clocked} with a clock"
    );
}

#[test]
fn probing_does_not_allocate() {
    let tb = tables();
    let boards: Vec<Board> = probes()
        .iter()
        .map(|p| Board::from_fen(&p.fen).unwrap())
        .collect();
    let mut sum = 0;
    let n = allocations(|| {
        for b in &boards {
            sum += tb.probe_wdl(b).map_or(9, Wdl::to_i32);
        }
    });
    assert_eq!(n, 0, "WDL probes allocated {n} times");
    let n = allocations(|| {
        for b in &boards {
            sum += tb.probe_dtz(b).map_or(9, |d| d.plies);
        }
    });
    let n2 = allocations(|| {
        for b in &boards {
            sum += tb.probe_dtz(b).map_or(9, |d| d.plies);
        }
    });
    assert_eq!((n, n2), (0, 0), "DTZ probes allocated");
    assert_ne!(sum, 0);
}

#[test]
fn missing_or_empty_directories_are_reported_and_nothing_is_loaded() {
    let loaded = egtb::load("/nonexistent/kibitzer-tables");
    assert!(loaded.tables.is_none());
    assert_eq!(loaded.problems.len(), 1, "{:?}", loaded.problems);
    assert!(loaded.problems[0].contains("/nonexistent/kibitzer-tables"));
    let empty = egtb::load(env!("CARGO_MANIFEST_DIR"));
    assert!(empty.tables.is_none());
    assert!(
        empty.problems[0].contains("no Syzygy tables"),
        "{:?}",
        empty.problems
    );
    // A good directory next to a missing one: the good one is used.
    let both = format!("/nonexistent/x:{}", tb_dir().display());
    let loaded = egtb::load(&both);
    assert_eq!(loaded.problems.len(), 1);
    assert!(loaded.tables.is_some());
    assert!(
        loaded.summary.contains("largest complete set: 4-piece"),
        "{}",
        loaded.summary
    );
    assert!(egtb::load("").tables.is_none());
}

// ----- the search ------------------------------------------------------------------

/// Tables that answer `wdl` for White to move (and the opposite for Black) in every
/// position of at most four pieces, and know no DTZ (so the root is never filtered).
struct Fake(Wdl);

impl Tablebase for Fake {
    fn max_pieces(&self) -> u32 {
        4
    }
    fn probe_wdl(&self, b: &Board) -> Option<Wdl> {
        if b.occupied().count() > 4 {
            return None;
        }
        let v = self.0.to_i32();
        Wdl::from_i32(if b.side_to_move() == Color::White {
            v
        } else {
            -v
        })
    }
    fn probe_dtz(&self, _: &Board) -> Option<egtb::Dtz> {
        None
    }
}

fn search(
    engine: &EngineHandle,
    fen: &str,
    limits: SearchLimits,
) -> (kibitzer::engine::SearchResult, u64) {
    let board = Board::from_fen(fen).unwrap();
    let hits = Arc::new(Mutex::new(0u64));
    let h = Arc::clone(&hits);
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    engine.new_game();
    engine.go(
        &board,
        limits,
        SearchConfig::default(),
        Arc::new(move |e: &SearchEvent| match e {
            SearchEvent::Iteration(i) => *h.lock().unwrap() = i.tb_hits,
            SearchEvent::Done(r) => {
                let _ = tx.lock().unwrap().send(r.clone());
            }
            _ => {}
        }),
    );
    let r = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("search ends");
    engine.wait();
    let n = *hits.lock().unwrap();
    (r, n)
}

#[test]
fn search_scores_table_wins_as_bounds_and_cursed_wins_as_near_draws() {
    // Five pieces (more than the tables): only the capture reaches the tables.
    let fen = "6k1/r6p/8/8/3Q4/8/8/3K4 w - - 0 1";
    let engine = EngineHandle::new(16 << 20, 1);
    let (plain, hits) = search(&engine, fen, SearchLimits::depth(6));
    assert_eq!(hits, 0);
    assert!(plain.score < 2000);

    engine.set_tablebases(Some(tables()));
    let (r, hits) = search(&engine, fen, SearchLimits::depth(6));
    assert_eq!(r.best.to_string(), "d4a7");
    assert!(
        r.score > TB_WIN - 100 && r.score < kibitzer::engine::MATE_IN_MAX,
        "{}",
        r.score
    );
    assert!(hits > 0);

    engine.set_tablebases(Some(Arc::new(Fake(Wdl::Win))));
    let (r, _) = search(&engine, fen, SearchLimits::depth(6));
    assert_eq!(r.best.to_string(), "d4a7");
    engine.set_tablebases(Some(Arc::new(Fake(Wdl::CursedWin))));
    let (r, _) = search(&engine, fen, SearchLimits::depth(6));
    assert_ne!(
        r.best.to_string(),
        "d4a7",
        "a cursed win is worth a draw, not a queen"
    );
    assert!(r.score > 100, "{}", r.score);
    // Table wins are lower bounds: the capture reaches a table win, and the search
    // still finds the mate behind it.
    engine.set_tablebases(Some(tables()));
    let (r, hits) = search(
        &engine,
        "7Q/8/6p1/8/8/5K2/1r6/6k1 w - - 0 1",
        SearchLimits::depth(8),
    );
    assert!(hits > 0);
    assert_eq!(r.score, kibitzer::engine::MATE - 3, "mate in 2 expected");
}

#[test]
fn without_tables_or_with_a_missing_directory_the_search_is_unchanged() {
    let fens = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "k7/7Q/8/8/6r1/8/8/3K4 w - - 0 1",
        "6k1/r6p/8/8/3Q4/8/8/3K4 w - - 0 1",
    ];
    let plain = EngineHandle::new(16 << 20, 1);
    let mut opts = test_options();
    opts.set("hash", "16M").unwrap();
    opts.set("egtpath", "/nonexistent/kibitzer-tables").unwrap();
    let mut g = Game::new(&opts);
    let notes = g.take_notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(g.engine().tablebases().is_none());
    for fen in fens {
        let b = Board::from_fen(fen).unwrap();
        plain.new_game();
        g.engine().new_game();
        let a = plain.search_sync(&b, SearchLimits::depth(7), g.config().clone());
        let c = g
            .engine()
            .search_sync(&b, SearchLimits::depth(7), g.config().clone());
        assert_eq!(
            (a.nodes, a.best, a.score),
            (c.nodes, c.best, c.score),
            "{fen}"
        );
    }
    // Reported once: configuring again with the same path says nothing.
    g.configure(&opts);
    assert!(g.take_notes().is_empty());
}

// ----- conversions against table-perfect defence -------------------------------------

#[derive(Debug, PartialEq, Eq)]
enum End {
    Mate(Color),
    FiftyMoves,
    Repetition,
    Other(String),
}

/// Plays `fen` out: the engine (`nodes` per move, tables on) for `engine_side`, the
/// tables' best move (fastest win, slowest loss) for the other side.
fn play_out(fen: &str, engine_side: Color, nodes: u64) -> (End, usize) {
    let tb = tables();
    let engine = EngineHandle::new(16 << 20, 1);
    engine.set_tablebases(Some(Arc::clone(&tb)));
    let mut board = Board::from_fen(fen).unwrap();
    for ply in 0..400 {
        if !board.has_legal_move() {
            return if board.in_check() {
                (End::Mate(!board.side_to_move()), ply)
            } else {
                (End::Other("stalemate".into()), ply)
            };
        }
        if board.is_fifty_move_draw() {
            return (End::FiftyMoves, ply);
        }
        if board.is_threefold_repetition() {
            return (End::Repetition, ply);
        }
        if board.is_insufficient_material() {
            return (End::Other("insufficient material".into()), ply);
        }
        let mv: Move = if board.side_to_move() == engine_side {
            let r = engine.search_sync(&board, SearchLimits::nodes(nodes), SearchConfig::default());
            assert!(board.is_legal(r.best), "{} in {}", r.best, board.to_fen());
            r.best
        } else {
            egtb::rank_root(&*tb, &mut board, 7)
                .expect("in the tables")
                .best()
                .mv
        };
        board.make_move(mv);
    }
    (End::Other("move limit".into()), 400)
}

#[test]
fn converts_kbnk_within_the_fifty_move_rule() {
    // DTZ 56: 28 moves of table-perfect defence before the mate.
    let (end, plies) = play_out("k7/8/8/8/8/5N2/3B4/7K w - - 0 1", Color::White, 6000);
    assert_eq!(end, End::Mate(Color::White), "after {plies} plies");
    assert!(plies <= 100);
}

#[test]
fn converts_krkp_and_kqkr() {
    let (end, _) = play_out("7K/R7/1p6/8/2k5/8/8/8 w - - 0 1", Color::White, 6000);
    assert_eq!(end, End::Mate(Color::White));
    // DTZ 59 to win the rook, then the mate.
    let (end, _) = play_out("8/7Q/8/8/3r4/1k6/8/K7 w - - 0 1", Color::White, 6000);
    assert_eq!(end, End::Mate(Color::White));
}

#[test]
fn a_high_halfmove_clock_is_converted_or_held_by_the_rule() {
    // 80 half-moves played, DTZ 15: the win still fits.
    let (end, _) = play_out("r7/7k/8/6Q1/5K2/8/8/8 w - - 80 41", Color::White, 6000);
    assert_eq!(end, End::Mate(Color::White));
    // The engine defends KR against KQ after 80 half-moves: lost at a clock of 0 (DTZ
    // 40), drawn now if it keeps the win beyond the 50-move rule. Any draw will do:
    // the rule, a repetition, or bare kings once queen and rook have come off.
    let (end, plies) = play_out("1K6/4k3/8/8/8/3Q4/7r/8 b - - 80 41", Color::Black, 6000);
    assert!(
        end == End::FiftyMoves
            || end == End::Repetition
            || end == End::Other("insufficient material".into()),
        "{end:?} after {plies} plies"
    );
}

// ----- policy ------------------------------------------------------------------------

fn table_game(extra: &[(&str, &str)]) -> Game {
    let mut o = test_options();
    o.set("egtpath", tb_dir().to_str().unwrap()).unwrap();
    o.set("sn", "3000").unwrap();
    o.set("st", "0").unwrap();
    for (k, v) in extra {
        o.set(k, v).unwrap();
    }
    let mut g = Game::new(&o);
    let notes = g.take_notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("largest complete set: 4-piece")),
        "{notes:?}"
    );
    g
}

fn engine_reply(g: &mut Game) -> (EngineAction, bool) {
    g.set_engine_side(Some(g.side_to_move()));
    g.think(Arc::new(|_: &SearchEvent| {}));
    g.engine().wait();
    let f = g.take_finished().expect("a finished search");
    let from_hook = f.from_hook;
    (g.engine_move(&f.result), from_hook)
}

#[test]
fn lost_table_positions_are_resigned_except_hard_endings_against_humans() {
    let lost = "1K6/4k3/8/8/8/3Q4/7r/8 b - - 0 1";
    let mut g = table_game(&[]);
    g.opponent_mut().computer = true;
    g.set_fen(lost).unwrap();
    assert_eq!(g.table_verdict().map(|v| v.ending()), Some("KQvKR".into()));
    assert_eq!(engine_reply(&mut g).0, EngineAction::Resign);

    // A human must still show the KQ v KR technique.
    let mut g = table_game(&[]);
    g.set_fen(lost).unwrap();
    assert!(matches!(engine_reply(&mut g).0, EngineAction::Move { .. }));
    let mut g = table_game(&[("egtresign", "always")]);
    g.set_fen(lost).unwrap();
    assert_eq!(engine_reply(&mut g).0, EngineAction::Resign);
    let mut g = table_game(&[("resign", "0")]);
    g.opponent_mut().computer = true;
    g.set_fen(lost).unwrap();
    assert!(matches!(engine_reply(&mut g).0, EngineAction::Move { .. }));
}

#[test]
fn drawn_table_positions_are_offered_as_draws_and_swindled_against_weaker_players() {
    let drawn = "8/3k4/8/8/8/2R5/7r/K7 w - - 0 1";
    let mut g = table_game(&[]);
    g.set_fen(drawn).unwrap();
    assert_eq!(g.table_verdict().map(|v| v.outcome), Some(Outcome::Draw));
    assert!(g.draw_offered());
    match engine_reply(&mut g).0 {
        EngineAction::Move { offer_draw, .. } => assert!(offer_draw),
        a => panic!("{a:?}"),
    }
    // A won position: no draw accepted.
    g.set_fen("k7/7Q/8/8/6r1/8/8/3K4 w - - 0 1").unwrap();
    assert!(!g.draw_offered());

    // The swindle: among the drawing moves, the one that leaves the fewest safe replies.
    let board = Board::from_fen(drawn).unwrap();
    let swindle = egtb::swindle_move(&*tables(), &board, 7).expect("a move with traps");
    let mut g = table_game(&[]);
    g.opponent_mut().rating = Some(1500);
    g.opponent_mut().own_rating = Some(2200);
    g.set_fen(drawn).unwrap();
    let (action, from_hook) = engine_reply(&mut g);
    assert!(from_hook);
    match action {
        EngineAction::Move { mv, .. } => assert_eq!(mv, swindle),
        a => panic!("{a:?}"),
    }
    let mut g = table_game(&[("swindle", "off")]);
    g.opponent_mut().rating = Some(1500);
    g.opponent_mut().own_rating = Some(2200);
    g.set_fen(drawn).unwrap();
    assert!(!engine_reply(&mut g).1);
}

// ----- front ends --------------------------------------------------------------------

#[test]
fn uci_syzygy_options_report_the_tables_and_count_tb_hits() {
    let dir = tb_dir().display().to_string();
    let mut d = Driver::start(Protocol::Uci);
    d.send("uci");
    d.expect_contains("option name SyzygyProbeLimit type spin default 7 min 0 max 7");
    d.expect_prefix("uciok");
    d.send("setoption name SyzygyPath value /nonexistent/kibitzer-tables");
    d.expect_contains("info string Syzygy tables: table directory '/nonexistent/kibitzer-tables'");
    d.expect_contains("info string no Syzygy tables loaded; playing on without them");
    d.send(&format!("setoption name SyzygyPath value {dir}"));
    d.expect_contains("info string Syzygy tables: 35 WDL and 35 DTZ files, up to 4 pieces, largest complete set: 4-piece");
    d.send("position fen k7/7Q/8/8/6r1/8/8/3K4 w - - 0 1");
    d.send("go nodes 4000");
    d.expect(" tbhits ", |l| {
        l.starts_with("info depth") && l.contains(" tbhits ")
    });
    d.expect_prefix("bestmove");
    d.send("setoption name SyzygyPath value <empty>");
    d.expect_contains("info string Syzygy tables: off");
    d.send("isready");
    d.expect_prefix("readyok");
}

#[test]
fn console_and_xboard_set_the_path_and_report_the_tables() {
    let dir = tb_dir().display().to_string();
    let mut d = Driver::start(Protocol::Console);
    d.send("tbpath=/nonexistent/kibitzer-tables");
    d.expect_contains("Syzygy tables: table directory '/nonexistent/kibitzer-tables'");
    d.send("egtb");
    d.expect_contains("no Syzygy tables");
    d.send(&format!("tbpath {dir}"));
    d.expect_contains("largest complete set: 4-piece");
    d.send("egtb");
    d.expect_contains("Syzygy tables: 35 WDL and 35 DTZ files");
    d.send("cache=32M");
    d.expect_contains("cache: no effect");
    d.send("egtlimit 3");
    d.expect_contains("egtlimit 3");

    let mut d = Driver::start(Protocol::Xboard);
    d.send("xboard");
    d.send("protover 2");
    d.expect_contains("egt=\"syzygy\"");
    d.expect_contains("done=1");
    d.send(&format!("egtpath syzygy {dir}"));
    d.expect_contains("# Syzygy tables: 35 WDL and 35 DTZ files");
}

/// Probe speed through the engine's trait (our board converted from bitboards):
/// `cargo test --test integration egtb::probe_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn probe_speed() {
    let tb = tables();
    let boards: Vec<Board> = probes()
        .iter()
        .map(|p| Board::from_fen(&p.fen).unwrap())
        .collect();
    for _ in 0..2 {
        let t = std::time::Instant::now();
        let mut n = 0u64;
        while t.elapsed() < Duration::from_secs(1) {
            for b in &boards {
                n += tb.probe_wdl(b).is_some() as u64;
            }
        }
        let wdl = n as f64 / t.elapsed().as_secs_f64();
        let t = std::time::Instant::now();
        let mut n = 0u64;
        while t.elapsed() < Duration::from_secs(1) {
            for b in &boards {
                n += tb.probe_dtz(b).is_some() as u64;
            }
        }
        let dtz = n as f64 / t.elapsed().as_secs_f64();
        eprintln!("WDL {wdl:.0} probes/s, DTZ {dtz:.0} probes/s");
    }
    // A five-piece position whose captures reach the tables: speed with and without.
    let engine = EngineHandle::new(64 << 20, 1);
    for tables in [None, Some(tables())] {
        let on = tables.is_some();
        engine.set_tablebases(tables);
        for fen in [
            "6k1/r6p/8/8/3Q4/8/8/3K4 w - - 0 1",
            "8/5k2/3p4/8/3R4/8/2K1r3/8 w - - 0 1",
        ] {
            let t = std::time::Instant::now();
            let (r, hits) = search(&engine, fen, SearchLimits::nodes(2_000_000));
            let nps = r.nodes as f64 / t.elapsed().as_secs_f64();
            eprintln!(
                "tables {on}: {fen}: {nps:.0} nps, {hits} tbhits, score {}",
                r.score
            );
        }
    }
}
