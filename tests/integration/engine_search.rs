//! Engine: bench signature, mates, draws, table behaviour through the public API.

use kibitzer::chess::Board;
use kibitzer::engine::{EngineHandle, SearchConfig, SearchLimits, MATE, MATE_IN_MAX};

/// The committed bench signature must match: a changed node count means search or
/// evaluation changed, and the commit must say so (`Bench: N`) and update `bench.sig`.
/// It is the bench of the default options, as `kibitzer bench` prints it: the
/// built-in net at its default scale, on top of the handcrafted evaluation (so a
/// change to either shows).
#[test]
fn bench_signature_matches_committed_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bench.sig");
    let expected: u64 = std::fs::read_to_string(&path)
        .expect("bench.sig exists")
        .trim()
        .parse()
        .expect("bench.sig holds a number");
    let defaults = kibitzer::options::Options::new();
    let net = kibitzer::nnue::Network::cached(
        defaults.str("evaluation.net"),
        defaults.int("evaluation.netscale"),
    )
    .unwrap();
    assert!(net.is_some(), "the default evaluation is the built-in net");
    let mut sink = Vec::new();
    let (nodes, _) =
        kibitzer::engine::bench::run_bench(kibitzer::engine::bench::BENCH_DEPTH, net, &mut sink)
            .unwrap();
    assert_eq!(
        nodes, expected,
        "bench signature changed: update bench.sig and put `Bench: {nodes}` in the commit message"
    );
}

fn search(fen: &str, depth: i32) -> kibitzer::engine::SearchResult {
    let engine = EngineHandle::new(8 << 20, 1);
    let board = Board::from_fen(fen).unwrap();
    engine.search_sync(&board, SearchLimits::depth(depth), SearchConfig::default())
}

#[test]
fn finds_mates_and_reports_distance() {
    // Mate in 2 (WAC.001): Qg6 fxg6 Nxg6#.
    let r = search(
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        12,
    );
    assert_eq!(r.best.to_string(), "g3g6");
    assert_eq!(r.score, MATE - 3);
    // Back-rank mate in 1.
    let r = search("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", 4);
    assert_eq!(r.best.to_string(), "a1a8");
    assert_eq!(r.score, MATE - 1);
    // Mated side sees the mate coming.
    let r = search("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", 4);
    assert!(r.score <= -MATE_IN_MAX || r.best.to_string() == "g8h8" || r.score < 0);
}

#[test]
fn no_legal_moves_gives_null_move_and_terminal_score() {
    // Stalemate: black to move, no moves.
    let r = search("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3);
    assert!(r.best.is_null());
    assert_eq!(r.score, 0);
    // Checkmated.
    let r = search("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", 3);
    assert!(r.best.is_null());
    assert_eq!(r.score, -MATE);
}

#[test]
fn draw_score_steers_repetition_and_fifty_move_rule() {
    // 50-move rule: the clock is at 99; any non-zeroing move draws. White is a
    // rook up, so with draw score 0 the engine must prefer a capture or pawn move;
    // here there is none, so the score is the draw score.
    let board = Board::from_fen("7k/8/8/8/8/8/8/R6K w - - 99 80").unwrap();
    let engine = EngineHandle::new(8 << 20, 1);
    let r = engine.search_sync(&board, SearchLimits::depth(6), SearchConfig::default());
    assert_eq!(r.score, 0, "every move draws by the 50-move rule");
    let cfg = SearchConfig {
        draw_score: 50,
        ..Default::default()
    };
    let r = engine.search_sync(&board, SearchLimits::depth(6), cfg);
    assert_eq!(r.score, 50);
    // A mate delivered on the hundredth ply stands.
    let board = Board::from_fen("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 99 80").unwrap();
    let r = engine.search_sync(&board, SearchLimits::depth(4), SearchConfig::default());
    assert_eq!(r.score, MATE - 1);
}

#[test]
fn single_legal_move_is_played_at_once_in_timed_play() {
    let board = Board::from_fen("7k/8/8/8/8/8/r7/K6r w - - 0 1").unwrap();
    assert_eq!(board.legal_moves().len(), 1);
    let engine = EngineHandle::new(8 << 20, 1);
    let limits = SearchLimits {
        clock: Some(kibitzer::engine::ClockLimits {
            time_left: std::time::Duration::from_secs(600),
            increment: std::time::Duration::ZERO,
            moves_to_go: None,
            opponent_left: None,
        }),
        ..Default::default()
    };
    let r = engine.search_sync(&board, limits, SearchConfig::default());
    assert_eq!(r.best.to_string(), "a1a2");
    assert!(r.depth <= 1, "searched to depth {}", r.depth);
}

#[test]
fn node_limit_and_threads() {
    let board = Board::startpos();
    let engine = EngineHandle::new(8 << 20, 2);
    let r = engine.search_sync(
        &board,
        SearchLimits::nodes(200_000),
        SearchConfig::default(),
    );
    assert!(board.is_legal(r.best));
    assert!(r.nodes >= 200_000 && r.nodes < 2_000_000, "{}", r.nodes);
    engine.set_threads(1);
    let r = engine.search_sync(&board, SearchLimits::nodes(50_000), SearchConfig::default());
    assert!(board.is_legal(r.best));
}
