//! make/unmake exactness and incremental keys over random playouts, null moves, staged
//! generation, and `is_legal` against generation for every 16-bit move value.

use crate::common::{perft_positions, random_game, random_positions, Rng};
use kibitzer::chess::{Board, Color, GenType, Move, MoveList, PieceType, Square};

/// Everything observable about a position that make/unmake must restore.
fn snapshot(b: &Board) -> (Board, u64, u64, String, usize) {
    (b.clone(), b.key(), b.pawn_key(), b.to_fen(), b.ply_count())
}

fn assert_restored(b: &Board, snap: &(Board, u64, u64, String, usize), what: &str) {
    assert_eq!(*b, snap.0, "{what}: board differs");
    assert_eq!(b.key(), snap.1, "{what}: key differs");
    assert_eq!(b.pawn_key(), snap.2, "{what}: pawn key differs");
    assert_eq!(b.to_fen(), snap.3, "{what}: FEN differs");
    assert_eq!(b.ply_count(), snap.4, "{what}: history length differs");
}

#[test]
fn make_unmake_restores_board_and_keys_over_random_playouts() {
    let mut rng = Rng::new(0x6d61_6b65);
    let start = Board::startpos();
    let mut positions = 0usize;
    let mut moves_checked = 0usize;
    let mut nulls = 0usize;
    for game in 0..40 {
        let end = random_game(&start, &mut rng, 2000, |b| {
            positions += 1;
            b.check_consistency()
                .unwrap_or_else(|e| panic!("game {game}: {e} in {}", b.to_fen()));
            let snap = snapshot(b);
            let list = b.legal_moves();
            for &m in list.iter() {
                b.make_move(m);
                if let Err(e) = b.check_consistency() {
                    panic!("game {game}: after {m} from {}: {e}", snap.3);
                }
                assert_eq!(b.key(), b.compute_key());
                assert_eq!(b.pawn_key(), b.compute_pawn_key());
                assert_eq!(b.last_move(), Some(m));
                assert_ne!(b.side_to_move(), snap.0.side_to_move());
                b.unmake_move();
                assert_restored(b, &snap, &format!("game {game}: {m} from {}", snap.3));
                moves_checked += 1;
            }
            if !b.in_check() {
                b.make_null_move();
                b.check_consistency().unwrap();
                assert_eq!(b.side_to_move(), !snap.0.side_to_move());
                assert_eq!(b.ep_square(), None);
                assert_eq!(b.key(), b.compute_key());
                assert_eq!(b.pawn_key(), snap.2);
                assert_eq!(b.repetition_count(), 0);
                b.unmake_null_move();
                assert_restored(b, &snap, &format!("game {game}: null move in {}", snap.3));
                nulls += 1;
            }
        });
        // Unwind the whole game and compare with the start.
        let mut b = end;
        let n = b.ply_count();
        let played: Vec<Move> = b.moves_played().collect();
        assert_eq!(played.len(), n);
        let mut replay = start.clone();
        let mut fens = vec![replay.to_fen()];
        for &m in &played {
            replay.make_move(m);
            fens.push(replay.to_fen());
        }
        assert_eq!(replay, b);
        for i in (0..n).rev() {
            b.unmake_move();
            assert_eq!(b.to_fen(), fens[i], "game {game}: unwinding to ply {i}");
        }
        assert_eq!(b, start);
        assert_eq!(b.key(), start.key());
        // Nothing left to take back: unmake is a no-op.
        b.unmake_move();
        assert_eq!(b, start);
    }
    println!(
        "make/unmake: {positions} positions, {moves_checked} moves, {nulls} null moves checked"
    );
    assert!(positions > 5_000 && moves_checked > 100_000);
}

#[test]
fn null_move_sequences() {
    // Null moves drop a legal en-passant square and restore it on unmake.
    let mut b = Board::from_fen("4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1").unwrap();
    assert_eq!(b.ep_square(), Some(Square::E3));
    let snap = snapshot(&b);
    b.make_null_move();
    assert_eq!(b.to_fen(), "4k3/8/8/8/4Pp2/8/8/4K3 w - - 1 2");
    assert_eq!(b.key(), b.compute_key());
    b.make_null_move();
    assert_eq!(b.to_fen(), "4k3/8/8/8/4Pp2/8/8/4K3 b - - 2 2");
    // Same placement, same side, but the en-passant right is gone: a different key.
    assert_ne!(b.key(), snap.1);
    assert_eq!(b.repetition_count(), 0);
    b.unmake_null_move();
    b.unmake_null_move();
    assert_restored(&b, &snap, "two null moves");
    // Null move then a real move and back.
    let mut b = Board::startpos();
    let snap = snapshot(&b);
    b.make_null_move();
    assert_eq!(b.side_to_move(), Color::Black);
    let m = b.parse_san("e5").unwrap();
    b.make_move(m);
    b.check_consistency().unwrap();
    b.unmake_move();
    b.unmake_null_move();
    assert_restored(&b, &snap, "null + e5");
}

fn is_capture_on_board(b: &Board, m: Move) -> bool {
    m.is_en_passant()
        || b.piece_at(m.to())
            .is_some_and(|p| p.color() != b.side_to_move())
}

/// Checks the staged generation of one position; returns the number of moves.
fn check_stages(b: &Board, what: &str) -> usize {
    let mut all = MoveList::new();
    b.generate_moves(GenType::All, &mut all);
    let mut caps = MoveList::new();
    b.generate_moves(GenType::Captures, &mut caps);
    let mut quiets = MoveList::new();
    b.generate_moves(GenType::Quiets, &mut quiets);

    let mut a: Vec<u16> = all.iter().map(|m| m.0).collect();
    a.sort_unstable();
    let before = a.len();
    a.dedup();
    assert_eq!(a.len(), before, "{what}: All has duplicates");
    let mut union: Vec<u16> = caps.iter().chain(quiets.iter()).map(|m| m.0).collect();
    union.sort_unstable();
    assert_eq!(union, a, "{what}: Captures + Quiets != All");
    assert_eq!(b.legal_moves().len(), all.len());
    assert_eq!(b.count_legal_moves(), all.len());
    assert_eq!(b.has_legal_move(), !all.is_empty());

    for &m in caps.iter() {
        assert!(
            m.is_capture() || m.is_promotion(),
            "{what}: {m:?} in Captures"
        );
    }
    for &m in quiets.iter() {
        assert!(m.is_quiet(), "{what}: {m:?} in Quiets");
    }
    // Flags agree with the board.
    for &m in all.iter() {
        assert_eq!(m.is_capture(), is_capture_on_board(b, m), "{what}: {m:?}");
        let piece = b.piece_at(m.from()).expect("a piece on the from square");
        assert_eq!(piece.color(), b.side_to_move());
        let last = m.to().rank() == b.side_to_move().relative_rank(kibitzer::chess::Rank::R8);
        assert_eq!(
            m.is_promotion(),
            piece.kind() == PieceType::Pawn && last,
            "{what}: {m:?}"
        );
        assert_eq!(
            m.is_castle(),
            piece.kind() == PieceType::King && {
                let d = m.from().index() as i32 - m.to().index() as i32;
                d.abs() == 2
            }
        );
    }
    all.len()
}

/// `is_legal(Move(u))` for every u16 equals membership in the legal move list.
fn check_is_legal_exhaustive(b: &Board, what: &str) {
    let mut legal = vec![false; 1 << 16];
    for &m in b.legal_moves().iter() {
        legal[m.0 as usize] = true;
    }
    for u in 0..=u16::MAX {
        let m = Move(u);
        let got = b.is_legal(m);
        if got != legal[u as usize] {
            panic!(
                "{what}: is_legal({m:?}) = {got}, but generation says {} ({})",
                legal[u as usize],
                b.to_fen()
            );
        }
    }
}

#[test]
fn staged_generation_and_is_legal_on_random_positions() {
    let positions = random_positions(0x7374_6167, 30, 4);
    let mut moves = 0;
    for (i, b) in positions.iter().enumerate() {
        moves += check_stages(b, &format!("random position {i}"));
        check_is_legal_exhaustive(b, &format!("random position {i}"));
    }
    println!(
        "staged generation + is_legal x 65536: {} random positions, {moves} moves",
        positions.len()
    );
    assert!(positions.len() > 1_500, "{}", positions.len());
}

#[test]
fn staged_generation_and_is_legal_on_perft_positions() {
    let positions = perft_positions(5);
    let mut moves = 0;
    let mut in_check = 0;
    for (name, b) in &positions {
        moves += check_stages(b, name);
        check_is_legal_exhaustive(b, name);
        in_check += b.in_check() as usize;
    }
    println!(
        "staged generation + is_legal x 65536: {} perft suite positions ({in_check} in \
         check), {moves} moves",
        positions.len()
    );
    assert!(positions.len() > 1_800 && in_check > 100);
}

#[test]
fn gives_check_and_see_basics() {
    let b = Board::from_fen("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1").unwrap();
    let ra8 = b.parse_san("Ra8").unwrap();
    let rb1 = b.parse_san("Rb1").unwrap();
    let castle = b.parse_san("O-O-O").unwrap();
    assert!(b.gives_check(ra8));
    assert!(!b.gives_check(rb1));
    assert!(!b.gives_check(castle));
    assert_eq!(b.ply_count(), 0);
    // SEE: pawn takes a defended knight, rook takes a pawn defended by a pawn.
    let b = Board::from_fen("4k3/8/2p5/3n4/4P3/8/8/4K2R w - - 0 1").unwrap();
    let exd5 = b.parse_san("exd5").unwrap();
    assert_eq!(b.see(exd5), 320 - 100);
    let b = Board::from_fen("4k3/8/6p1/7p/8/8/8/4K2R w - - 0 1").unwrap();
    let rxh5 = b.parse_san("Rxh5").unwrap();
    assert_eq!(b.see(rxh5), 100 - 500);
    assert!(!b.see_ge(rxh5, 0));
    let b = Board::from_fen("4k3/8/8/7p/8/8/8/4K2R w - - 0 1").unwrap();
    let rxh5 = b.parse_san("Rxh5").unwrap();
    assert_eq!(b.see(rxh5), 100);
}

/// `gives_check` computes checks without making the move; it must agree with making
/// the move and looking, for every legal move (castling, en passant, promotions and
/// discovered checks included).
#[test]
fn gives_check_agrees_with_make_move() {
    let mut positions = random_positions(0x61C4_EC4B, 120, 1);
    positions.extend(perft_positions(40).into_iter().map(|(_, b)| b));
    let mut checks = 0;
    let mut moves = 0;
    for mut b in positions {
        let list = b.legal_moves();
        let ci = b.check_info();
        for &m in list.iter() {
            let predicted = b.gives_check(m);
            assert_eq!(
                predicted,
                b.gives_check_fast(&ci, m),
                "fast path: {} {m}",
                b.to_fen()
            );
            b.make_move(m);
            let actual = b.in_check();
            b.unmake_move();
            assert_eq!(predicted, actual, "{} {m}", b.to_fen());
            checks += actual as usize;
            moves += 1;
        }
    }
    assert!(
        moves > 100_000 && checks > 3_000,
        "{moves} moves, {checks} checks"
    );
}

/// The threshold form of SEE agrees with the full exchange value for every capture
/// and quiet move off the promotion ranks, at thresholds around the value.
#[test]
fn see_ge_agrees_with_see() {
    let mut positions = random_positions(0x5EE5_EE00, 80, 1);
    positions.extend(perft_positions(40).into_iter().map(|(_, b)| b));
    let mut checked = 0;
    for b in positions {
        for &m in b.legal_moves().iter() {
            let r = m.to().rank();
            if m.is_promotion() || r == kibitzer::chess::Rank::R1 || r == kibitzer::chess::Rank::R8
            {
                continue;
            }
            let v = b.see(m);
            for t in [v - 101, v - 1, v, v + 1, v + 99, -300, 0, 250] {
                assert_eq!(
                    b.see_ge(m, t),
                    v >= t,
                    "{} {m} see {v} threshold {t}",
                    b.to_fen()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 50_000, "{checked}");
}
