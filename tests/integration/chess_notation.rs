//! Move notation in and out (SAN, coordinate, the server's verbose forms) and FEN: what
//! is accepted, what it resolves to, and the errors for what is not.

use kibitzer::chess::{Board, FenError, MoveError, Square, START_FEN};

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Resolves `text` with `parse_san` and returns the move as UCI.
fn san(b: &Board, text: &str) -> String {
    b.parse_san(text)
        .unwrap_or_else(|e| panic!("'{text}' in {}: {e}", b.to_fen()))
        .to_uci()
}

fn san_err(b: &Board, text: &str) -> MoveError {
    match b.parse_san(text) {
        Ok(m) => panic!("'{text}' in {} resolved to {m}", b.to_fen()),
        Err(e) => e,
    }
}

/// SAN out of the move given as UCI.
fn san_out(b: &Board, uci: &str) -> String {
    b.san(b.parse_uci(uci).unwrap())
}

// ----- SAN in ------------------------------------------------------------------------

#[test]
fn san_in_is_lenient() {
    let b = Board::startpos();
    for text in [
        "Nf3", "Nf3+", "Nf3#", "Nf3!?", "Nf3?!", "Nf3!!", "Nf3??", "Ngf3", "N1f3", "Ng1f3",
        "Ng1-f3", "Ng1xf3", " Nf3 ",
    ] {
        assert_eq!(san(&b, text), "g1f3", "{text}");
    }
    assert_eq!(san(&b, "e4"), "e2e4");
    assert_eq!(san(&b, "e2e4"), "e2e4");
    assert_eq!(san(&b, "Pe4"), "e2e4");

    // Castling in all spellings.
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    for text in ["O-O", "0-0", "o-o", "O-O+"] {
        assert_eq!(san(&b, text), "e1g1", "{text}");
    }
    for text in ["O-O-O", "0-0-0", "o-o-o", "O-O-O!"] {
        assert_eq!(san(&b, text), "e1c1", "{text}");
    }
    let m = b.parse_san("O-O").unwrap();
    assert!(m.is_castle());

    // Promotions.
    let b = board("3r4/4Pk2/8/8/8/8/8/4K3 w - - 0 1");
    for text in ["e8=Q", "e8Q", "e8=Q+", "e8(Q)", "e8/Q", "e7e8Q"] {
        assert_eq!(san(&b, text), "e7e8q", "{text}");
    }
    assert_eq!(san(&b, "e8=N"), "e7e8n");
    assert_eq!(san(&b, "e8N"), "e7e8n");
    assert_eq!(san(&b, "e8=B"), "e7e8b");
    assert_eq!(san(&b, "e8b"), "e7e8b");
    for text in ["exd8=N+", "exd8N", "exd8=N", "ed8=N", "xd8=N"] {
        assert_eq!(san(&b, text), "e7d8n", "{text}");
    }
    assert_eq!(san(&b, "exd8=Q"), "e7d8q");
}

#[test]
fn san_in_disambiguation() {
    // Knights on b1 and f3 both reach d2.
    let b = board("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!(san(&b, "Nbd2"), "b1d2");
    assert_eq!(san(&b, "Nfd2"), "f3d2");
    assert_eq!(san(&b, "N1d2"), "b1d2");
    assert_eq!(san(&b, "N3d2"), "f3d2");
    assert_eq!(san(&b, "Nb1d2"), "b1d2");
    assert_eq!(san(&b, "Nf3-d2"), "f3d2");
    // Unambiguous moves with redundant disambiguation.
    assert_eq!(san(&b, "Nbc3"), "b1c3");
    assert_eq!(san(&b, "Nb1c3"), "b1c3");
    match san_err(&b, "Nd2") {
        MoveError::Ambiguous { text, candidates } => {
            assert_eq!(text, "Nd2");
            assert_eq!(candidates, "Nbd2 or Nfd2");
        }
        e => panic!("{e:?}"),
    }
    let e = san_err(&b, "Nd2");
    assert!(e.to_string().contains("ambiguous") && e.to_string().contains("Nbd2"));
    // Disambiguation that matches nothing.
    assert!(matches!(san_err(&b, "Ncd2"), MoveError::Illegal { .. }));
}

#[test]
fn san_in_errors_name_the_move_and_the_reason() {
    let b = Board::startpos();
    let e = san_err(&b, "Nf4");
    assert!(matches!(e, MoveError::Illegal { .. }));
    let s = e.to_string();
    assert!(
        s.contains("'Nf4'") && s.contains("no knight of White can move to f4"),
        "{s}"
    );
    let e = san_err(&b, "Qxd7");
    assert!(e.to_string().contains("Qxd7"), "{e}");
    let e = san_err(&b, "e5");
    assert!(e.to_string().contains("pawn"), "{e}");
    // A piece the side does not have.
    let b2 = board("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let e = san_err(&b2, "Qd4");
    assert!(e.to_string().contains("White has no queen"), "{e}");
    // In check, a move that does not answer it.
    let b3 = board("4k3/8/8/8/8/8/4r3/R3K3 w Q - 0 1");
    let e = san_err(&b3, "Ra8+");
    assert!(e.to_string().contains("in check"), "{e}");
    let e = san_err(&b3, "O-O-O");
    assert!(e.to_string().contains("out of check"), "{e}");
    // No castling rights.
    let b4 = board("4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
    let e = san_err(&b4, "O-O");
    assert!(e.to_string().contains("no right to castle"), "{e}");
    // Missing promotion piece.
    let b5 = board("3r4/4Pk2/8/8/8/8/8/4K3 w - - 0 1");
    for text in ["e8", "exd8", "e8+"] {
        match san_err(&b5, text) {
            MoveError::PromotionMissing { text: t } => assert_eq!(t, text),
            e => panic!("{text}: {e:?}"),
        }
    }
    assert!(san_err(&b5, "e8").to_string().contains("=Q"));
    // A promotion piece on a move that is not a promotion.
    let e = san_err(&board("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"), "e4=Q");
    assert!(e.to_string().contains("not a promotion"), "{e}");
    // Not a king promotion.
    assert!(b5.parse_san("e8=K").is_err());
    // Syntax errors.
    for text in [
        "", "  ", "--", "Z0", "0000", "Nf", "N", "xx", "Nz9", "e9", "Kd2d3d4", "é4",
    ] {
        assert!(
            matches!(b.parse_san(text), Err(MoveError::Syntax { .. })),
            "'{text}': {:?}",
            b.parse_san(text)
        );
    }
}

// ----- SAN out -----------------------------------------------------------------------------

#[test]
fn san_out_minimal_disambiguation_and_marks() {
    // By file.
    let b = board("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    assert_eq!(san_out(&b, "b1d2"), "Nbd2");
    assert_eq!(san_out(&b, "f3d2"), "Nfd2");
    assert_eq!(san_out(&b, "b1c3"), "Nc3");
    // By rank.
    let b = board("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1");
    assert_eq!(san_out(&b, "a1a3"), "R1a3");
    assert_eq!(san_out(&b, "a5a3"), "R5a3");
    assert_eq!(san_out(&b, "a1b1"), "Rb1");
    // By both.
    let b = board("4k3/8/8/8/8/2Q5/8/Q1Q1K3 w - - 0 1");
    assert_eq!(san_out(&b, "a1b2"), "Qab2");
    assert_eq!(san_out(&b, "c1b2"), "Qc1b2");
    assert_eq!(san_out(&b, "c3b2"), "Q3b2");
    for (uci, text) in [("a1b2", "Qab2"), ("c1b2", "Qc1b2"), ("c3b2", "Q3b2")] {
        assert_eq!(san(&b, text), uci);
    }
    // A pinned piece does not count for disambiguation.
    let b = board("4k3/4r3/8/1N6/8/8/4N3/4K3 w - - 0 1");
    assert_eq!(san_out(&b, "b5d4"), "Nd4");
    assert_eq!(san(&b, "Nd4"), "b5d4");
    // Captures, checks, mates.
    let b = board("4k3/8/8/3p4/4P3/8/8/4K2R w K - 0 1");
    assert_eq!(san_out(&b, "e4d5"), "exd5");
    assert_eq!(san_out(&b, "h1h8"), "Rh8+");
    assert_eq!(san_out(&b, "e1g1"), "O-O");
    let b = board("6k1/5ppp/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(san_out(&b, "a1a8"), "Ra8#");
    assert_eq!(san_out(&b, "e1c1"), "O-O-O");
    let b = board("5k2/5ppp/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(san_out(&b, "e1c1"), "O-O-O");
    let b = board("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(san_out(&b, "e1c1"), "O-O-O+");
    // King moves are never disambiguated; en passant is a pawn capture.
    let b = board("8/4k3/8/3pP3/8/8/8/4K3 w - d6 0 1");
    assert_eq!(san_out(&b, "e5d6"), "exd6+");
    assert_eq!(san_out(&b, "e1d2"), "Kd2");
    // Verbose out.
    let b = board("4k3/1P6/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(b.verbose(b.parse_uci("b7b8n").unwrap()), "P/b7-b8=N");
    assert_eq!(b.verbose(b.parse_uci("e1c1").unwrap()), "o-o-o");
    assert_eq!(b.verbose(b.parse_uci("a1a5").unwrap()), "R/a1-a5");
}

// ----- coordinate and server forms -----------------------------------------------------------

#[test]
fn coordinate_moves() {
    let b = Board::startpos();
    let m = b.parse_uci("e2e4").unwrap();
    assert!(m.is_double_push());
    assert_eq!(m.to_uci(), "e2e4");
    assert_eq!(b.parse_move("e2e4").unwrap(), m);
    assert_eq!(b.parse_uci(" g1f3 ").unwrap().to_uci(), "g1f3");

    let b = board("3r4/4Pk2/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(b.parse_uci("e7e8q").unwrap().to_uci(), "e7e8q");
    assert_eq!(b.parse_uci("e7d8n").unwrap().to_uci(), "e7d8n");
    assert_eq!(b.parse_uci("e7e8Q").unwrap().to_uci(), "e7e8q");
    assert!(matches!(
        b.parse_uci("e7e8"),
        Err(MoveError::PromotionMissing { .. })
    ));
    assert!(matches!(
        b.parse_uci("e7e8k"),
        Err(MoveError::Syntax { .. })
    ));

    // Castling as the king's move and as king-takes-rook.
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let oo = b.parse_uci("e1g1").unwrap();
    assert!(oo.is_castle());
    assert_eq!(b.parse_uci("e1h1").unwrap(), oo);
    assert_eq!(b.parse_uci("e1a1").unwrap(), b.parse_uci("e1c1").unwrap());
    assert_eq!(b.parse_move("e1h1").unwrap(), oo);
    let bb = board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(bb.parse_uci("e8h8").unwrap(), bb.parse_uci("e8g8").unwrap());
    // Without the right, king-takes-rook is just illegal.
    let b = board("4k3/8/8/8/8/8/8/4K2R w - - 0 1");
    assert!(matches!(
        b.parse_uci("e1h1"),
        Err(MoveError::Illegal { .. })
    ));

    // Errors name the move and the reason.
    let b = Board::startpos();
    let e = b.parse_uci("e3e4").unwrap_err();
    assert!(e.to_string().contains("e3e4") && e.to_string().contains("no piece on e3"));
    let e = b.parse_uci("e7e5").unwrap_err();
    assert!(e.to_string().contains("Black's"), "{e}");
    let e = b.parse_uci("e2e5").unwrap_err();
    assert!(
        e.to_string().contains("pawn on e2 cannot move to e5"),
        "{e}"
    );
    let e = b.parse_uci("f1c4").unwrap_err();
    assert!(
        e.to_string().contains("bishop on f1 cannot move to c4"),
        "{e}"
    );
    let pinned = board("4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
    let e = pinned.parse_uci("e2d3").unwrap_err();
    assert!(e.to_string().contains("leave the king in check"), "{e}");
    let e = pinned.parse_uci("e1e2").unwrap_err();
    assert!(matches!(e, MoveError::Illegal { .. }));
    let checked = board("4k3/8/8/8/8/8/4r3/R3K3 w Q - 0 1");
    let e = checked.parse_uci("a1a2").unwrap_err();
    assert!(e.to_string().contains("in check"), "{e}");
    for text in ["", "e2", "e2e", "e2e4qq", "i2i4", "e0e1", "e2e4x", "é2e4"] {
        assert!(
            matches!(b.parse_uci(text), Err(MoveError::Syntax { .. })),
            "'{text}'"
        );
    }
}

#[test]
fn server_verbose_forms() {
    let b = Board::startpos();
    assert_eq!(b.parse_verbose("P/e2-e4").unwrap().to_uci(), "e2e4");
    assert_eq!(b.parse_verbose("N/g1-f3").unwrap().to_uci(), "g1f3");
    assert_eq!(b.parse_move("P/e2-e4").unwrap().to_uci(), "e2e4");
    // Wrong piece letter.
    let e = b.parse_verbose("B/g1-f3").unwrap_err();
    assert!(e.to_string().contains("knight, not a bishop"), "{e}");
    assert!(matches!(
        b.parse_verbose("e2-e4"),
        Err(MoveError::Syntax { .. })
    ));
    assert!(matches!(
        b.parse_verbose("X/e2-e4"),
        Err(MoveError::Syntax { .. })
    ));
    assert!(matches!(
        b.parse_verbose("P/e2e4"),
        Err(MoveError::Syntax { .. })
    ));

    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(b.parse_verbose("o-o").unwrap().to_uci(), "e1g1");
    assert_eq!(b.parse_verbose("o-o-o").unwrap().to_uci(), "e1c1");
    assert_eq!(b.parse_move("o-o-o").unwrap().to_uci(), "e1c1");
    assert_eq!(b.parse_verbose("R/a1xa8").unwrap().to_uci(), "a1a8");
    // Castling written as the king's move, to its square or onto the rook.
    assert_eq!(
        b.parse_verbose("K/e1-g1").unwrap(),
        b.parse_verbose("o-o").unwrap()
    );
    assert_eq!(
        b.parse_verbose("K/e1-a1").unwrap(),
        b.parse_verbose("o-o-o").unwrap()
    );
    let bb = board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert_eq!(bb.parse_verbose("o-o").unwrap().to_uci(), "e8g8");
    assert_eq!(bb.parse_verbose("o-o-o").unwrap().to_uci(), "e8c8");

    // Promotion with and without the piece: never assume a queen.
    let b = board("4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(b.parse_verbose("P/g7-g8=Q").unwrap().to_uci(), "g7g8q");
    assert_eq!(b.parse_verbose("P/g7-h8=N").unwrap().to_uci(), "g7h8n");
    for text in ["P/g7-h8", "P/g7-g8"] {
        match b.parse_verbose(text) {
            Err(MoveError::PromotionUnknown { text: t }) => assert_eq!(t, text),
            other => panic!("{text}: {other:?}"),
        }
        assert!(matches!(
            b.parse_move(text),
            Err(MoveError::PromotionUnknown { .. })
        ));
    }
    let b = board("k7/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(b.parse_verbose("P/e7-e8=Q").unwrap().to_uci(), "e7e8q");
    // Black promotes too.
    let b = board("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
    assert!(matches!(
        b.parse_verbose("P/a2-a1"),
        Err(MoveError::PromotionUnknown { .. })
    ));
    assert_eq!(b.parse_verbose("P/a2-a1=R").unwrap().to_uci(), "a2a1r");
}

#[test]
fn parse_move_accepts_every_notation() {
    let b = board("r3k2r/8/8/8/8/8/4P3/R3K2R w KQkq - 0 1");
    for (text, uci) in [
        ("e2e4", "e2e4"),
        ("e4", "e2e4"),
        ("P/e2-e4", "e2e4"),
        ("O-O", "e1g1"),
        ("o-o-o", "e1c1"),
        ("e1h1", "e1g1"),
        ("Rxa8+", "a1a8"),
        ("Ra1xa8", "a1a8"),
    ] {
        assert_eq!(
            b.parse_move(text).map(|m| m.to_uci()),
            Ok(uci.to_string()),
            "{text}"
        );
    }
    assert!(b.parse_move("Qd4").is_err());
}

// ----- FEN -------------------------------------------------------------------------------------

#[test]
fn fen_errors_name_the_problem() {
    type Check = fn(&FenError) -> bool;
    let cases: Vec<(&str, Check)> = vec![
        ("", |e| matches!(e, FenError::Empty)),
        ("   ", |e| matches!(e, FenError::Empty)),
        ("8/8/8/8/8/8/8 w - - 0 1", |e| {
            matches!(e, FenError::WrongRankCount(7))
        }),
        ("8/8/8/8/8/8/8/8/8 w - - 0 1", |e| {
            matches!(e, FenError::WrongRankCount(9))
        }),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
            |e| matches!(e, FenError::BadPieceLetter { ch: 'X', rank: 1 }),
        ),
        ("4k3/8/8/9/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::BadPieceLetter { ch: '9', rank: 5 })
        }),
        ("4k3/8/8/0p7/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::BadPieceLetter { ch: '0', .. })
        }),
        ("4k3/8/8/8/8/8/8/4K3p w - - 0 1", |e| {
            matches!(
                e,
                FenError::RankTooLong {
                    rank: 1,
                    squares: 9
                }
            )
        }),
        ("4k3/8/8/44p/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::RankTooLong { rank: 5, .. })
        }),
        ("4k3/8/8/7/8/8/8/4K3 w - - 0 1", |e| {
            matches!(
                e,
                FenError::RankTooShort {
                    rank: 5,
                    squares: 7
                }
            )
        }),
        ("4k3/8/8/8/8/8/8/ w - - 0 1", |e| {
            matches!(
                e,
                FenError::RankTooShort {
                    rank: 1,
                    squares: 0
                }
            )
        }),
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", |e| {
            matches!(e, FenError::NoKing("White"))
        }),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::NoKing("Black"))
        }),
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", |e| {
            matches!(e, FenError::TooManyKings("White"))
        }),
        ("4k2k/8/8/8/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::TooManyKings("Black"))
        }),
        ("4k3/8/QQQQQQQQ/QQQQQQQQ/8/8/8/4K3 w - - 0 1", |e| {
            matches!(
                e,
                FenError::TooManyPieces {
                    color: "White",
                    count: 17
                }
            )
        }),
        ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::PawnOnBackRank(Square::H8))
        }),
        ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", |e| {
            matches!(e, FenError::PawnOnBackRank(Square::A1))
        }),
        (
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
            |e| matches!(e, FenError::BadSideToMove(s) if s == "x"),
        ),
        ("4k3/8/8/8/8/8/8/4K3 white - - 0 1", |e| {
            matches!(e, FenError::BadSideToMove(_))
        }),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w KX - 0 1",
            |e| matches!(e, FenError::BadCastling(s) if s == "KX"),
        ),
        ("r3k2r/8/8/8/8/8/8/R3K2R w KK - 0 1", |e| {
            matches!(e, FenError::BadCastling(_))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", |e| {
            matches!(
                e,
                FenError::CastlingWithoutPieces {
                    right: 'K',
                    what: "rook"
                }
            )
        }),
        ("4k3/8/8/8/8/8/8/3K3R w K - 0 1", |e| {
            matches!(
                e,
                FenError::CastlingWithoutPieces {
                    right: 'K',
                    what: "king"
                }
            )
        }),
        ("4k2r/8/8/8/8/8/8/4K3 w q - 0 1", |e| {
            matches!(
                e,
                FenError::CastlingWithoutPieces {
                    right: 'q',
                    what: "rook"
                }
            )
        }),
        (
            "4k3/8/8/8/8/8/8/4K3 w - e9 0 1",
            |e| matches!(e, FenError::BadEnPassant(s) if s == "e9"),
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - x 0 1", |e| {
            matches!(e, FenError::BadEnPassant(_))
        }),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - d3 0 1", |e| {
            matches!(
                e,
                FenError::ImpossibleEnPassant {
                    square: Square::D3,
                    ..
                }
            )
        }),
        (
            "4k3/8/8/4P3/8/8/8/4K3 w - d6 0 1",
            |e| matches!(e, FenError::ImpossibleEnPassant { square: Square::D6, why } if why.contains("no pawn")),
        ),
        (
            "4k3/3n4/8/3pP3/8/8/8/4K3 w - d6 0 1",
            |e| matches!(e, FenError::ImpossibleEnPassant { why, .. } if why.contains("not empty")),
        ),
        ("4k3/8/8/8/3Pp3/8/8/4K3 w - d3 0 1", |e| {
            matches!(e, FenError::ImpossibleEnPassant { .. })
        }),
        ("4k2R/8/8/8/8/8/8/4K3 w - - 0 1", |e| {
            matches!(e, FenError::OpponentInCheck("Black"))
        }),
        ("4k3/8/8/8/8/8/8/r3K3 b - - 0 1", |e| {
            matches!(e, FenError::OpponentInCheck("White"))
        }),
        ("4k3/8/8/8/8/5n2/3p4/r3K3 w - - 0 1", |e| {
            matches!(e, FenError::ImpossibleCheck(3))
        }),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - x 1",
            |e| matches!(e, FenError::BadHalfmove(s) if s == "x"),
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", |e| {
            matches!(e, FenError::BadHalfmove(_))
        }),
        ("4k3/8/8/8/8/8/8/4K3 w - - 20000 1", |e| {
            matches!(e, FenError::BadHalfmove(_))
        }),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 y",
            |e| matches!(e, FenError::BadFullmove(s) if s == "y"),
        ),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 99999", |e| {
            matches!(e, FenError::BadFullmove(_))
        }),
        (
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
            |e| matches!(e, FenError::TrailingText(s) if s == "extra"),
        ),
    ];
    for (fen, ok) in cases {
        match Board::from_fen(fen) {
            Err(e) => {
                assert!(ok(&e), "'{fen}' gave {e:?}");
                assert!(!e.to_string().is_empty());
            }
            Ok(b) => panic!("'{fen}' was accepted as {}", b.to_fen()),
        }
    }
    // Messages say what is wrong.
    let e = Board::from_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1").unwrap_err();
    assert_eq!(
        e.to_string(),
        "castling right 'K' but the rook is not in place"
    );
    let e = Board::from_fen("4k2R/8/8/8/8/8/8/4K3 w - - 0 1").unwrap_err();
    assert_eq!(e.to_string(), "the side not to move (Black) is in check");
}

#[test]
fn fen_round_trips_and_lenient_forms() {
    for fen in [
        START_FEN,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1",
        "7k/8/8/8/8/8/8/K7 b - - 99 200",
        "r3k3/8/8/8/8/8/8/4K2R w Kq - 3 40",
    ] {
        let b = board(fen);
        assert_eq!(b.to_fen(), fen);
        assert_eq!(board(&b.to_fen()), b);
        assert_eq!(b.key(), b.compute_key());
    }
    // Lenient input: missing clocks, extra spaces, upper-case side to move.
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(b.to_fen(), START_FEN);
    let b = board("  rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR   w  KQkq  -  0  1 ");
    assert_eq!(b.to_fen(), START_FEN);
    // Placement alone: White to move, no rights, no en passant.
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
    assert_eq!(
        b.to_fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
    );
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1");
    assert_eq!(b.to_fen(), START_FEN);
    // Castling letters in any order.
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1");
    assert_eq!(b.to_fen(), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    // Fullmove 0 is read as 1.
    assert!(board("4k3/8/8/8/8/8/8/4K3 w - - 0 0")
        .to_fen()
        .ends_with(" 0 1"));
    // A plausible en-passant square that allows no capture is dropped.
    let b = board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_eq!(
        b.to_fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(
        b.key(),
        board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").key()
    );
    // The diagram shows the pieces.
    let d = Board::startpos().diagram();
    assert!(d.contains("8  r n b q k b n r") && d.contains("1  R N B Q K B N R"));
}

#[test]
fn epd_lines() {
    use kibitzer::chess::epd::{Epd, EpdError};
    let e = Epd::parse(
        r#"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5; id "test 1"; c0 "a; b";"#,
    )
    .unwrap();
    assert_eq!(e.op_str("bm"), Some("Bb5"));
    assert_eq!(e.op_str("id"), Some("test 1"));
    assert_eq!(e.op_str("c0"), Some("a; b"));
    assert_eq!(e.board.fullmove_number(), 1);
    let e = Epd::parse("4k3/8/8/8/8/8/8/4K2R w K - 5 30 ;D1 15\0").unwrap();
    assert_eq!(e.board.halfmove_clock(), 5);
    assert_eq!(e.op_str("D1"), Some("15"));
    assert!(matches!(Epd::parse(""), Err(EpdError::TooShort)));
    assert!(matches!(
        Epd::parse("4k3/8/8/8/8/8/8/4K3 w -"),
        Err(EpdError::TooShort)
    ));
    assert!(matches!(
        Epd::parse("4k3/8/8/8/8/8/8/4K3 w - - id \"open"),
        Err(EpdError::Unterminated(_))
    ));
    assert!(matches!(
        Epd::parse("4k3/8/8/8/8/8/8/4KK2 w - - id x;"),
        Err(EpdError::Fen(FenError::TooManyKings(_)))
    ));
    // The WAC and Bratko-Kopec suites parse completely.
    for f in ["epd/wac.epd", "epd/bratko-kopec.epd"] {
        let text = crate::common::read_data(f);
        let mut n = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let e = Epd::parse(line).unwrap_or_else(|err| panic!("{f}: {err}: {line}"));
            let bm = e.op_str("bm").or(e.op_str("am")).expect("bm or am");
            // Every best move is legal SAN in its position.
            for m in e.op("bm").unwrap_or_default() {
                e.board
                    .parse_san(m)
                    .unwrap_or_else(|err| panic!("{f}: bm {m} in {line}: {err}"));
            }
            assert!(!bm.is_empty());
            n += 1;
        }
        assert!(n >= 24, "{f}: {n}");
    }
}
