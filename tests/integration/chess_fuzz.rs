//! Property tests: no parser panics on any input, whatever a parser accepts is usable
//! (a consistent board, a legal move, a game that writes and reads back), and FEN
//! round-trips for positions of random games.

use crate::common::{random_move, Rng};
use kibitzer::chess::epd::Epd;
use kibitzer::chess::perft::perft;
use kibitzer::chess::pgn::{read_all, PgnGame, PgnReader};
use kibitzer::chess::{Board, START_FEN};
use proptest::prelude::*;

const CASES: u32 = 2000;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: CASES,
        ..ProptestConfig::default()
    }
}

/// Valid FENs to mutate and boards to parse moves on.
const FENS: [&str; 6] = [
    START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "3r4/4Pk2/8/8/8/8/8/4K3 w - - 0 1",
    "4k2r/6P1/8/8/8/8/p7/R3K2R b KQk - 0 1",
    "4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1",
];

/// An accepted FEN gives a board that is consistent, writes a FEN that reads back to
/// the same board, and has a working move generator.
fn check_accepted(b: &Board) {
    b.check_consistency().unwrap();
    let fen = b.to_fen();
    let c = Board::from_fen(&fen).unwrap_or_else(|e| panic!("{fen} does not read back: {e}"));
    assert_eq!(&c, b, "{fen}");
    let mut d = b.clone();
    let n = perft(&mut d, 2);
    assert_eq!(&d, b);
    assert_eq!(b.legal_moves().is_empty(), n == 0);
}

/// Every parser returns a legal move or an error, on a few boards.
fn check_move_parsers(text: &str) {
    for fen in FENS {
        let b = Board::from_fen(fen).unwrap();
        let legal = b.legal_moves();
        for m in [
            b.parse_san(text),
            b.parse_uci(text),
            b.parse_verbose(text),
            b.parse_move(text),
        ]
        .into_iter()
        .flatten()
        {
            assert!(legal.contains(m), "'{text}' gave {m:?}, not legal in {fen}");
            assert!(b.is_legal(m));
        }
    }
}

/// Every game the reader accepts has a consistent end position and survives writing
/// and reading back.
fn check_pgn(text: &str) {
    for g in read_all(text).into_iter().flatten() {
        let end = g.end_position();
        end.check_consistency().unwrap();
        let out = g.to_pgn();
        let back = read_all(&out);
        assert_eq!(back.len(), 1, "{out}");
        let h = back[0]
            .as_ref()
            .unwrap_or_else(|e| panic!("written game does not read back: {e}\n{out}"));
        let a: Vec<_> = g.moves.iter().map(|m| m.mv).collect();
        let b: Vec<_> = h.moves.iter().map(|m| m.mv).collect();
        assert_eq!(a, b, "{out}");
        assert_eq!(g.result, h.result);
    }
}

/// Pieces of PGN to build plausible and implausible games from.
const PGN_PIECES: [&str; 40] = [
    "[Event \"x\"]\n",
    "[White \"a \\\"b\\\"\"]\n",
    "[Result \"1-0\"]\n",
    "[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n",
    "[FEN \"8/8 w\"]\n",
    "[Variant \"Crazyhouse\"]\n",
    "[SetUp \"1\"]",
    "[Bad",
    "\n",
    "\n\n",
    " ",
    "1.",
    "1...",
    "2.",
    "e4",
    "e5",
    "Nf3",
    "Nc6",
    "d4",
    "exd4",
    "O-O",
    "Ke2",
    "e8=Q",
    "e2e4",
    "P/e2-e4",
    "{",
    "}",
    "{comment}",
    "(",
    ")",
    "$1",
    "!?",
    ";",
    "%",
    "1-0",
    "*",
    "1/2-1/2",
    "½-½",
    "\u{feff}",
    "Z0",
];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fen_parser_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(b) = Board::from_fen(&text) {
            check_accepted(&b);
        }
    }

    #[test]
    fn fen_parser_never_panics_on_strings(text in any::<String>()) {
        if let Ok(b) = Board::from_fen(&text) {
            check_accepted(&b);
        }
    }

    #[test]
    fn fen_parser_on_fen_like_text(
        text in "[rnbqkpRNBQKP0-9/]{0,70}( [wbWx]( [KQkq-]{1,5}( [a-h1-8-]{1,2}( [0-9-]{1,3}( [0-9]{1,4})?)?)?)?)?"
    ) {
        if let Ok(b) = Board::from_fen(&text) {
            check_accepted(&b);
        }
    }

    #[test]
    fn fen_parser_on_mutated_fens(
        which in 0..FENS.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, "[rnbqkpRNBQKP1-8/ wbKQkqa-h-]"), 1..4)
    ) {
        let mut chars: Vec<char> = FENS[which].chars().collect();
        for (at, op, c) in edits {
            let c = c.chars().next().unwrap_or(' ');
            match op {
                0 if !chars.is_empty() => { let i = at.index(chars.len()); chars[i] = c; }
                1 => { let i = at.index(chars.len() + 1); chars.insert(i, c); }
                _ if !chars.is_empty() => { let i = at.index(chars.len()); chars.remove(i); }
                _ => {}
            }
        }
        let text: String = chars.into_iter().collect();
        if let Ok(b) = Board::from_fen(&text) {
            check_accepted(&b);
        }
    }

    #[test]
    fn epd_parser_never_panics(text in any::<String>(), which in 0..FENS.len(), ops in "[ -~]{0,60}") {
        if let Ok(e) = Epd::parse(&text) {
            e.board.check_consistency().unwrap();
        }
        let line = format!("{} {ops}", FENS[which]);
        if let Ok(e) = Epd::parse(&line) {
            e.board.check_consistency().unwrap();
            let _ = e.op_str("id");
        }
    }

    #[test]
    fn move_parsers_never_panic_on_strings(text in any::<String>()) {
        check_move_parsers(&text);
    }

    #[test]
    fn move_parsers_on_move_like_text(text in "[a-hNBRQKPnbrqkpxX=+#!?oO0/()1-9 .:-]{0,12}") {
        check_move_parsers(&text);
    }

    #[test]
    fn pgn_reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        // Through the streaming reader on raw bytes (invalid UTF-8 included)...
        let games: Vec<_> = PgnReader::new(std::io::Cursor::new(bytes.clone())).collect();
        // ...and through read_all on the lossy text.
        let text = String::from_utf8_lossy(&bytes);
        prop_assert_eq!(games.len(), read_all(&text).len());
    }

    #[test]
    fn pgn_reader_on_pgn_like_text(pieces in prop::collection::vec(
        (0..PGN_PIECES.len(), prop::bool::ANY), 0..60)
    ) {
        let mut text = String::new();
        for (i, space) in pieces {
            text.push_str(PGN_PIECES[i]);
            if space {
                text.push(' ');
            }
        }
        check_pgn(&text);
    }

    #[test]
    fn pgn_reader_on_random_games(seed in any::<u64>(), plies in 0usize..120) {
        // A real game with a random tail of junk, written by us and read back.
        let mut rng = Rng::new(seed);
        let mut b = Board::startpos();
        let mut text = String::from("[Event \"r\"]\n\n");
        for _ in 0..plies {
            let Some(m) = random_move(&b, &mut rng) else { break };
            if b.side_to_move() == kibitzer::chess::Color::White {
                text.push_str(&format!("{}. ", b.fullmove_number()));
            }
            text.push_str(&b.san(m));
            text.push(' ');
            b.make_move(m);
        }
        text.push('*');
        let games = read_all(&text);
        prop_assert_eq!(games.len(), 1);
        let g = games[0].as_ref().unwrap();
        prop_assert_eq!(&g.end_position(), &b);
        check_pgn(&text);
    }

    #[test]
    fn pgn_write_read_round_trip_with_comments_and_nags(
        seed in any::<u64>(),
        plies in 0usize..80,
        notes in prop::collection::vec((any::<prop::sample::Index>(), "[ -|~]{0,40}", prop::option::of(any::<u8>())), 0..12),
        intro in prop::option::of("[ -|~]{0,30}"),
    ) {
        let mut rng = Rng::new(seed);
        let mut b = Board::startpos();
        let mut g = PgnGame::new(b.clone());
        for _ in 0..plies {
            let Some(m) = random_move(&b, &mut rng) else { break };
            g.push_move(&b, m);
            b.make_move(m);
        }
        if !g.moves.is_empty() {
            for (at, comment, nag) in notes {
                let i = at.index(g.moves.len());
                g.moves[i].comment = Some(comment);
                g.moves[i].nags.extend(nag);
            }
        }
        g.intro = intro;
        let out = g.to_pgn();
        for l in out.lines() {
            prop_assert!(l.len() <= 79 || !l.contains(' '), "line too long: {:?}", l);
        }
        let back = read_all(&out);
        prop_assert_eq!(back.len(), 1);
        let h = back[0].as_ref().map_err(|e| TestCaseError::fail(format!("{e}\n{out}")))?;
        let norm = |c: &Option<String>| c.as_deref().map(|c| c.split_whitespace().collect::<Vec<_>>().join(" "));
        prop_assert_eq!(g.moves.len(), h.moves.len());
        for (x, y) in g.moves.iter().zip(&h.moves) {
            prop_assert_eq!(x.mv, y.mv);
            prop_assert_eq!(&x.nags, &y.nags);
            prop_assert_eq!(norm(&x.comment), norm(&y.comment), "{}", out);
        }
        prop_assert_eq!(norm(&g.intro), norm(&h.intro));
        // Reading trims comments; after one round trip the text is a fixed point.
        let out2 = h.to_pgn();
        let again = read_all(&out2);
        prop_assert_eq!(again[0].as_ref().unwrap().to_pgn(), out2);
    }

    #[test]
    fn fen_round_trip_of_random_playouts(seed in any::<u64>(), plies in 0usize..400) {
        let mut rng = Rng::new(seed);
        let mut b = Board::startpos();
        for _ in 0..plies {
            let Some(m) = random_move(&b, &mut rng) else { break };
            b.make_move(m);
        }
        let fen = b.to_fen();
        let c = Board::from_fen(&fen).unwrap();
        prop_assert_eq!(&c, &b);
        prop_assert_eq!(c.key(), b.key());
        prop_assert_eq!(c.pawn_key(), b.pawn_key());
        prop_assert_eq!(c.to_fen(), fen);
    }
}
