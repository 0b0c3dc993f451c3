//! Named positions for the rules that break move generators and game-end detection,
//! each with exact expectations.

use crate::common::uci_set;
use kibitzer::chess::{Board, Color, Move, MoveError, Square};

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn assert_moves(fen: &str, expected: &[&str]) -> Board {
    let b = board(fen);
    let mut exp: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    exp.sort();
    assert_eq!(uci_set(&b), exp, "legal moves of {fen}");
    b
}

fn uci(b: &Board, text: &str) -> Move {
    b.parse_uci(text)
        .unwrap_or_else(|e| panic!("{text} in {}: {e}", b.to_fen()))
}

fn play(b: &mut Board, moves: &str) {
    for san in moves.split_whitespace() {
        let m = b
            .parse_san(san)
            .unwrap_or_else(|e| panic!("{san} in {}: {e}", b.to_fen()));
        b.make_move(m);
        b.check_consistency().unwrap();
    }
}

/// The same position given without the en-passant square has the same key and FEN.
fn assert_ep_dropped(fen: &str, fen_without: &str) {
    let b = board(fen);
    let c = board(fen_without);
    assert_eq!(b.ep_square(), None, "{fen}");
    assert_eq!(b.to_fen(), fen_without);
    assert_eq!(b.key(), c.key());
    assert_eq!(b, c);
}

// ----- en passant ------------------------------------------------------------------

#[test]
fn en_passant_exposing_the_king_on_the_rank_is_illegal() {
    // b5xc6 would take both pawns off the fifth rank: the rook on h5 then hits a5.
    let fen = "8/8/8/KPp4r/8/8/8/6k1 w - c6 0 1";
    let b = assert_moves(fen, &["a5a4", "a5a6", "a5b6", "b5b6"]);
    assert_ep_dropped(fen, "8/8/8/KPp4r/8/8/8/6k1 w - - 0 1");
    let err = b.parse_uci("b5c6").unwrap_err();
    assert!(matches!(err, MoveError::Illegal { .. }), "{err}");
    assert!(err.to_string().contains("b5c6"), "{err}");
    assert!(b.parse_san("bxc6").is_err());

    // The same with Black capturing, king and rook swapped sides.
    let fen = "8/8/8/8/R4pPk/8/8/4K3 b - g3 0 1";
    assert_moves(fen, &["f4f3", "h4g3", "h4g4", "h4g5", "h4h3"]);
    assert_ep_dropped(fen, "8/8/8/8/R4pPk/8/8/4K3 b - - 0 1");

    // Reached by a move rather than set up: after g2-g4 no en-passant square is kept.
    let mut b = board("8/8/8/8/R4p1k/8/6P1/4K3 w - - 0 1");
    let k0 = b.key();
    b.make_move(uci(&b, "g2g4"));
    assert_eq!(b.ep_square(), None);
    assert_eq!(b.to_fen(), "8/8/8/8/R4pPk/8/8/4K3 b - - 0 1");
    assert_eq!(b.key(), b.compute_key());
    b.unmake_move();
    assert_eq!(b.key(), k0);
}

#[test]
fn en_passant_resolves_a_check_by_the_double_pushed_pawn() {
    // d2-d4+ checks the king on c5; e4xd3 takes the checking pawn.
    let fen = "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1";
    let mut b = assert_moves(
        fen,
        &[
            "c5b4", "c5b5", "c5b6", "c5c4", "c5c6", "c5d4", "c5d5", "c5d6", "e4d3",
        ],
    );
    assert!(b.in_check());
    assert_eq!(b.checkers().count(), 1);
    assert_eq!(b.ep_square(), Some(Square::D3));
    assert_eq!(b.to_fen(), fen);
    let m = uci(&b, "e4d3");
    assert!(m.is_en_passant() && m.is_capture());
    assert_eq!(b.san(m), "exd3");
    assert_eq!(b.parse_san("exd3").unwrap(), m);
    assert_eq!(b.parse_san("exd3 e.p.").unwrap(), m);
    b.make_move(m);
    assert_eq!(b.to_fen(), "8/8/8/2k5/8/3p4/8/4K3 w - - 0 2");
    assert_eq!(b.last_captured().map(|p| p.fen_char()), Some('P'));
    b.check_consistency().unwrap();
    b.unmake_move();
    assert_eq!(b, board(fen));

    // c2-c4 discovers a check from the bishop on b1: d4xc3 leaves it standing.
    let fen = "8/7k/8/8/2Pp4/8/8/1B2K3 b - c3 0 1";
    assert_moves(fen, &["d4d3", "h7g7", "h7g8", "h7h6", "h7h8"]);
    assert_ep_dropped(fen, "8/7k/8/8/2Pp4/8/8/1B2K3 b - - 0 1");

    // A knight check cannot be answered by en passant.
    let fen = "8/8/8/8/2Pp4/1N6/8/2k1K3 b - c3 0 1";
    let b = board(fen);
    assert!(b.in_check());
    assert_eq!(b.ep_square(), None);
    assert!(!uci_set(&b).contains(&"d4c3".to_string()));
}

#[test]
fn en_passant_with_a_diagonally_pinned_pawn() {
    // The e4 pawn is pinned by the bishop on h1 against the king on b7.
    // e4xd3 leaves the diagonal: illegal, and the square is dropped.
    let fen = "8/1k6/8/8/3Pp3/8/8/4K2B b - d3 0 1";
    assert_moves(
        fen,
        &[
            "b7a6", "b7a7", "b7a8", "b7b6", "b7b8", "b7c6", "b7c7", "b7c8",
        ],
    );
    assert_ep_dropped(fen, "8/1k6/8/8/3Pp3/8/8/4K2B b - - 0 1");
    // e4xf3 stays on the diagonal: legal.
    let fen = "8/1k6/8/8/4pP2/8/8/4K2B b - f3 0 1";
    let b = assert_moves(
        fen,
        &[
            "b7a6", "b7a7", "b7a8", "b7b6", "b7b8", "b7c6", "b7c7", "b7c8", "e4f3",
        ],
    );
    assert_eq!(b.to_fen(), fen);
    assert!(b.is_legal(uci(&b, "e4f3")));
}

// ----- castling ----------------------------------------------------------------------

#[test]
fn castling_through_out_of_and_into_check() {
    // Through check: f1 is attacked.
    let b = board("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let moves = uci_set(&b);
    assert!(moves.contains(&"e1c1".into()) && !moves.contains(&"e1g1".into()));
    let err = b.parse_san("O-O").unwrap_err();
    assert!(err.to_string().contains("attacked"), "{err}");
    assert_eq!(b.parse_san("O-O-O").unwrap(), uci(&b, "e1c1"));

    // Into check: g1 is attacked.
    let b = board("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let moves = uci_set(&b);
    assert!(moves.contains(&"e1c1".into()) && !moves.contains(&"e1g1".into()));

    // b1 attacked does not matter: the king does not cross it.
    let b = assert_moves(
        "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        &[
            "a1a2", "a1a3", "a1a4", "a1a5", "a1a6", "a1a7", "a1a8", "a1b1", "a1c1", "a1d1", "e1c1",
            "e1d1", "e1d2", "e1e2", "e1f1", "e1f2", "e1g1", "h1f1", "h1g1", "h1h2", "h1h3", "h1h4",
            "h1h5", "h1h6", "h1h7", "h1h8",
        ],
    );
    assert_eq!(b.san(uci(&b, "e1c1")), "O-O-O");
    assert_eq!(b.san(uci(&b, "e1g1")), "O-O");

    // Out of check: no castling at all.
    let b = assert_moves(
        "4k3/8/8/4r3/8/8/8/R3K2R w KQ - 0 1",
        &["e1d1", "e1d2", "e1f1", "e1f2"],
    );
    let err = b.parse_san("O-O").unwrap_err();
    assert!(err.to_string().contains("out of check"), "{err}");

    // Black, through check on d8.
    let b = board("r3k2r/8/8/8/8/8/8/3RK3 b kq - 0 1");
    let moves = uci_set(&b);
    assert!(moves.contains(&"e8g8".into()) && !moves.contains(&"e8c8".into()));
}

#[test]
fn castling_with_pieces_between() {
    let b = board("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
    assert!(uci_set(&b).iter().all(|m| m != "e1g1" && m != "e1c1"));
    // Only b1 occupied: queen side is blocked, king side is free.
    let b = board("4k3/8/8/8/8/8/8/RN2K2R w KQ - 0 1");
    let moves = uci_set(&b);
    assert!(moves.contains(&"e1g1".into()) && !moves.contains(&"e1c1".into()));
    // A piece of the other side in between blocks too.
    let b = board("4k3/8/8/8/8/8/8/R2bK2R w KQ - 0 1");
    let moves = uci_set(&b);
    assert!(!moves.contains(&"e1c1".into()));
}

#[test]
fn castling_rights_are_lost_by_rook_capture_and_moves() {
    // Nxh1 takes White's king-side rook: the K right goes.
    let mut b = board("r3k2r/8/8/8/8/6n1/8/R3K2R b KQkq - 0 1");
    b.make_move(uci(&b, "g3h1"));
    assert_eq!(b.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2n w Qkq - 0 2");
    assert_eq!(b.key(), board(&b.to_fen()).key());
    b.check_consistency().unwrap();
    assert!(!uci_set(&b).contains(&"e1g1".into()));
    assert!(uci_set(&b).contains(&"e1c1".into()));
    b.unmake_move();
    assert_eq!(b.to_fen(), "r3k2r/8/8/8/8/6n1/8/R3K2R b KQkq - 0 1");

    // Rxa8+ takes a rook and moves one: both queen-side rights go.
    let mut b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    b.make_move(uci(&b, "a1a8"));
    assert_eq!(b.to_fen(), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    b.check_consistency().unwrap();

    // A rook move, and a king move.
    let mut b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play(&mut b, "Rb1 Kd8");
    assert_eq!(b.to_fen(), "r2k3r/8/8/8/8/8/8/1R2K2R w K - 2 2");
    // Moving the rook back does not restore the right.
    play(&mut b, "Ra1 Ke8");
    assert_eq!(b.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R w K - 4 3");
    assert_ne!(b.key(), board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").key());
}

// ----- promotion -----------------------------------------------------------------------

#[test]
fn promotion_with_capture_and_underpromotion() {
    let b = assert_moves(
        "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        &[
            "b7a8b", "b7a8n", "b7a8q", "b7a8r", "b7b8b", "b7b8n", "b7b8q", "b7b8r", "e1d1", "e1d2",
            "e1e2", "e1f1", "e1f2",
        ],
    );
    let m = uci(&b, "b7a8n");
    assert!(m.is_capture() && m.is_promotion());
    assert_eq!(b.san(m), "bxa8=N");
    assert_eq!(b.san(uci(&b, "b7b8q")), "b8=Q+");
    assert_eq!(b.san(uci(&b, "b7a8q")), "bxa8=Q+");
    assert_eq!(b.san(uci(&b, "b7b8r")), "b8=R+");
    assert_eq!(b.san(uci(&b, "b7b8b")), "b8=B");
    let mut c = b.clone();
    c.make_move(m);
    assert_eq!(c.to_fen(), "N3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(c.pawn_key(), c.compute_pawn_key());
    c.check_consistency().unwrap();
    c.unmake_move();
    assert_eq!(c, b);

    // Knight underpromotion gives check where the queen would not.
    let b = board("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(b.san(uci(&b, "e7e8n")), "e8=N+");
    assert_eq!(b.san(uci(&b, "e7e8q")), "e8=Q");

    // Black promotes on the first rank.
    let b = board("4k3/8/8/8/8/8/6p1/4K2R b K - 0 1");
    assert_eq!(b.san(uci(&b, "g2h1q")), "gxh1=Q+");
    let mut c = b.clone();
    c.make_move(uci(&c, "g2h1r"));
    assert_eq!(c.to_fen(), "4k3/8/8/8/8/8/8/4K2r w - - 0 2");
}

// ----- checks -------------------------------------------------------------------------

#[test]
fn double_check_allows_only_king_moves() {
    // Rook e8 and knight d3 both check; Bxd3 would answer only one of them.
    let b = assert_moves("4r2k/8/8/8/8/3n4/8/4KB2 w - - 0 1", &["e1d1", "e1d2"]);
    assert_eq!(b.checkers().count(), 2);
    assert!(b.parse_san("Bxd3").is_err());
    assert!(!b.is_legal(Move::new(Square::F1, Square::D3, 4)));
    // Reached by a discovered double check: the rook on e1 and the knight on f6.
    let mut b = board("4k3/6b1/8/8/4N3/8/8/3KR3 w - - 0 1");
    let m = b.parse_san("Nf6").unwrap();
    assert_eq!(b.san(m), "Nf6+");
    b.make_move(m);
    assert_eq!(b.checkers().count(), 2);
    assert_eq!(uci_set(&b), ["e8d8", "e8f7", "e8f8"]);
    assert!(b.parse_san("Bxf6").is_err());
    // Nc5 discovers only the rook's check; then the bishop may interpose.
    let mut b = board("4k3/6b1/8/8/4N3/8/8/3KR3 w - - 0 1");
    play(&mut b, "Nc5+");
    assert_eq!(b.checkers().count(), 1);
    assert!(uci_set(&b).contains(&"g7e5".to_string()));
}

#[test]
fn stalemate_and_checkmate() {
    let b = assert_moves("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", &[]);
    assert!(b.is_stalemate() && !b.is_checkmate() && !b.in_check());
    assert!(!b.is_fifty_move_draw());

    // Fool's mate.
    let mut b = Board::startpos();
    play(&mut b, "f3 e5 g4");
    let m = b.parse_san("Qh4").unwrap();
    assert_eq!(b.san(m), "Qh4#");
    b.make_move(m);
    assert!(b.is_checkmate() && !b.is_stalemate());
    assert!(b.legal_moves().is_empty());
    assert_eq!(
        b.to_fen(),
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    );

    // Smothered mate.
    let b = board("6rk/6pp/7N/8/8/8/8/6K1 b - - 0 1");
    assert!(!b.is_checkmate());
    let b = board("6rk/5Npp/8/8/8/8/8/6K1 b - - 0 1");
    assert!(b.is_checkmate());

    let b = Board::startpos();
    assert!(!b.is_checkmate() && !b.is_stalemate());
}

// ----- draws ----------------------------------------------------------------------------

#[test]
fn fifty_move_rule() {
    let mut b = board("7k/8/8/8/8/8/8/R6K w - - 99 80");
    assert!(!b.is_fifty_move_draw());
    play(&mut b, "Ra2");
    assert_eq!(b.halfmove_clock(), 100);
    assert!(b.is_fifty_move_draw());
    b.unmake_move();
    assert!(!b.is_fifty_move_draw());
    // A capture or a pawn move resets the clock.
    let mut b = board("7k/8/8/8/8/8/p7/R6K w - - 99 80");
    play(&mut b, "Rxa2");
    assert_eq!(b.halfmove_clock(), 0);
    assert!(!b.is_fifty_move_draw());
    let mut b = board("7k/8/8/8/8/8/P7/R6K w - - 99 80");
    play(&mut b, "a3");
    assert!(!b.is_fifty_move_draw());

    // Mate on the hundredth ply stands: no draw.
    let mut b = board("7k/8/6K1/8/8/8/8/R7 w - - 99 80");
    let m = b.parse_san("Ra8").unwrap();
    assert_eq!(b.san(m), "Ra8#");
    b.make_move(m);
    assert_eq!(b.halfmove_clock(), 100);
    assert!(b.is_checkmate());
    assert!(!b.is_fifty_move_draw());

    // Check on the hundredth ply that is not mate: draw.
    let mut b = board("7k/8/8/8/8/8/8/R5K1 w - - 99 80");
    play(&mut b, "Ra8+");
    assert!(b.in_check() && !b.is_checkmate());
    assert!(b.is_fifty_move_draw());

    // Set up with the clock already at 100.
    assert!(board("7k/8/8/8/8/8/8/R6K b - - 100 80").is_fifty_move_draw());
    assert!(board("7k/8/8/8/8/8/8/R6K b - - 150 80").is_fifty_move_draw());
}

#[test]
fn threefold_repetition() {
    let mut b = Board::startpos();
    assert_eq!(b.repetition_count(), 0);
    play(&mut b, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(b.repetition_count(), 1);
    assert!(!b.is_threefold_repetition());
    play(&mut b, "Nf3");
    assert_eq!(b.repetition_count(), 1);
    play(&mut b, "Nf6 Ng1");
    assert_eq!(b.repetition_count(), 1);
    assert!(!b.is_threefold_repetition());
    play(&mut b, "Ng8");
    assert_eq!(b.repetition_count(), 2);
    assert!(b.is_threefold_repetition());
    // Taking the last move back undoes it.
    b.unmake_move();
    assert!(!b.is_threefold_repetition());
    play(&mut b, "Ng8");
    assert!(b.is_threefold_repetition());
    // A pawn move makes everything before it unrepeatable.
    play(&mut b, "e4");
    assert_eq!(b.repetition_count(), 0);

    // The position after 1.e4 has no en-passant square (no capture is possible), so
    // coming back to it later is a repetition.
    let mut b = Board::startpos();
    play(&mut b, "e4 Nf6 Nf3 Ng8 Ng1");
    assert_eq!(b.repetition_count(), 1);
    // Where en passant was possible, the same placement later is a new position.
    let mut b = board("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1");
    play(&mut b, "e4");
    let with_ep = b.key();
    assert_eq!(b.ep_square(), Some(Square::E3));
    play(&mut b, "Kd8 Kd2 Ke8 Ke1");
    assert_ne!(b.key(), with_ep);
    assert_eq!(b.repetition_count(), 0);
    play(&mut b, "Kd8 Kd2 Ke8 Ke1");
    assert_eq!(b.repetition_count(), 1);

    // Same placement, other side to move: not a repetition.
    let mut b = board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    play(&mut b, "Ra2 Kd8 Ra1 Ke8");
    assert_eq!(b.repetition_count(), 1);
    let mut b = board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    play(&mut b, "Ra2 Kd8 Ra3 Ke8 Ra1");
    assert_eq!(b.repetition_count(), 0);
}

#[test]
fn insufficient_material() {
    let dead = [
        ("K v K", "8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        ("KN v K", "8/8/8/4k3/8/8/8/4KN2 w - - 0 1"),
        ("K v KN", "8/8/8/4k3/8/8/8/1n2K3 b - - 0 1"),
        ("KB v K", "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1"),
        ("KB v KB same colour", "5b2/8/8/4k3/8/8/8/2B1K3 w - - 0 1"),
        ("KBB v KB all dark", "5b2/8/4k3/8/8/8/8/B1B1K3 w - - 0 1"),
    ];
    for (name, fen) in dead {
        assert!(board(fen).is_insufficient_material(), "{name}: {fen}");
    }
    let alive = [
        ("KNN v K", "8/8/8/4k3/8/8/8/1N2KN2 w - - 0 1"),
        (
            "KB v KB opposite colours",
            "2b5/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
        ),
        ("KB v KN", "2n5/8/8/4k3/8/8/8/2B1K3 w - - 0 1"),
        ("KN v KN", "2n5/8/8/4k3/8/8/8/1N2K3 w - - 0 1"),
        ("KP v K", "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1"),
        ("K v KP", "8/8/8/4k3/8/8/p7/4K3 w - - 0 1"),
        ("KB v KP", "8/p7/8/4k3/8/8/8/2B1K3 w - - 0 1"),
        ("KR v K", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"),
        ("KQ v K", "8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1"),
        ("start", kibitzer::chess::START_FEN),
    ];
    for (name, fen) in alive {
        assert!(!board(fen).is_insufficient_material(), "{name}: {fen}");
    }
    // Reached by a capture.
    let mut b = board("8/8/8/4k3/8/8/3r4/2B1K3 w - - 0 1");
    assert!(!b.is_insufficient_material());
    play(&mut b, "Bxd2");
    assert!(b.is_insufficient_material());
}

#[test]
fn is_legal_on_named_positions() {
    // Moves that look plausible but are not legal here.
    let b = board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let castle = uci(&b, "e1g1");
    assert!(b.is_legal(castle));
    assert!(
        !b.is_legal(Move::new(Square::E1, Square::G1, 0)),
        "castle as quiet"
    );
    assert!(
        !b.is_legal(Move::new(Square::E1, Square::C1, 2)),
        "wrong castle kind"
    );
    assert!(!b.is_legal(Move::NULL));
    assert!(
        !b.is_legal(Move::new(Square::A1, Square::A8, 4)),
        "capture of nothing"
    );
    let b = board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert!(b.is_legal(Move::new(Square::E2, Square::E4, 1)));
    assert!(
        !b.is_legal(Move::new(Square::E2, Square::E4, 0)),
        "double push as quiet"
    );
    assert!(!b.is_legal(Move::new(Square::E2, Square::E3, 1)));
}

/// Each colour's non-pawn key follows that colour's pieces alone: pawn moves leave
/// both unchanged, a piece move changes its own side's, a capture of a piece the
/// other side's, a promotion the promoting side's, and transposed move orders agree.
#[test]
fn non_pawn_keys_follow_each_colours_pieces() {
    let keys = |b: &Board| (b.non_pawn_key(Color::White), b.non_pawn_key(Color::Black));
    let mut b = Board::startpos();
    let start = keys(&b);
    assert_ne!(start.0, start.1);
    play(&mut b, "e4 e5");
    assert_eq!(keys(&b), start, "pawn moves");
    play(&mut b, "Nf3");
    assert_ne!(keys(&b).0, start.0, "a white knight move");
    assert_eq!(keys(&b).1, start.1, "a white knight move");
    let mut c = Board::startpos();
    play(&mut c, "Nf3 e5 e4");
    assert_eq!(keys(&c), keys(&b), "the same pieces by another order");
    assert_ne!(c.pawn_key(), Board::startpos().pawn_key());

    let mut b = board("4k3/8/8/8/8/2n5/8/R3K3 w - - 0 1");
    let before = keys(&b);
    play(&mut b, "Kd2");
    assert_eq!(keys(&b).1, before.1, "a king move");
    play(&mut b, "Nb5");
    let mut d = b.clone();
    play(&mut d, "Ra5 Kd8 Rxb5");
    assert_eq!(
        d.non_pawn_key(Color::Black),
        board("3k4/8/8/8/8/8/8/K7 b - - 0 1").non_pawn_key(Color::Black),
        "a capture removes the knight from Black's key"
    );

    let mut b = board("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    let black = b.non_pawn_key(Color::Black);
    play(&mut b, "b8=Q+");
    assert_eq!(
        b.non_pawn_key(Color::White),
        board("1Q2k3/8/8/8/8/8/8/4K3 b - - 0 1").non_pawn_key(Color::White),
        "the promoted queen joins White's key"
    );
    assert_eq!(b.non_pawn_key(Color::Black), black);
}
