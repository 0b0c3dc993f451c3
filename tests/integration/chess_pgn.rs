//! PGN: every file of `../shared/data/pgn/` (the first 2000 games of masters.pgn), the
//! quirks they carry, results consistent with the final positions, write/read round
//! trips, and errors that name the game and line and let reading go on.

use crate::common::{data, read_data};
use kibitzer::chess::pgn::{read_all, PgnError, PgnGame, PgnReader};
use kibitzer::chess::{Board, Color};
use std::io::BufReader;

const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];

fn games_of(rel: &str) -> Vec<Result<PgnGame, PgnError>> {
    read_all(&read_data(rel))
}

fn ok_games(rel: &str) -> Vec<PgnGame> {
    games_of(rel)
        .into_iter()
        .map(|g| g.unwrap_or_else(|e| panic!("{rel}: {e}")))
        .collect()
}

/// The result agrees with the final position and the Result tag; returns how the game
/// ended on the board ("mate", "stalemate", ...) if it did.
fn check_result(g: &PgnGame, what: &str) -> Option<&'static str> {
    assert!(
        matches!(g.result.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*"),
        "{what}: result {}",
        g.result
    );
    if let Some(tag) = g.tag("Result") {
        assert_eq!(
            tag, g.result,
            "{what}: Result tag and movetext result differ"
        );
    }
    if let Some(n) = g.tag("PlyCount").and_then(|n| n.parse::<usize>().ok()) {
        assert_eq!(g.moves.len(), n, "{what}: PlyCount");
    }
    let end = g.end_position();
    end.check_consistency().unwrap();
    if end.is_checkmate() {
        let winner = match end.side_to_move() {
            Color::White => "0-1",
            Color::Black => "1-0",
        };
        assert_eq!(g.result, winner, "{what}: ends in mate");
        return Some("checkmate");
    }
    if end.is_stalemate() || end.is_insufficient_material() {
        assert_eq!(g.result, "1/2-1/2", "{what}: ends in a dead position");
        return Some("dead position");
    }
    if end.is_threefold_repetition() {
        assert_ne!(g.result, "*", "{what}");
        return Some("threefold repetition");
    }
    None
}

/// Writes the game, reads it back and compares; checks the layout of the text.
fn check_round_trip(g: &PgnGame, what: &str) {
    let text = g.to_pgn();
    let lines: Vec<&str> = text.lines().collect();
    for (i, name) in ROSTER.iter().enumerate() {
        assert!(
            lines[i].starts_with(&format!("[{name} \"")),
            "{what}: line {} is {:?}, expected the {name} tag",
            i + 1,
            lines[i]
        );
    }
    for l in &lines {
        assert!(l.chars().count() <= 79, "{what}: line too long: {l:?}");
    }
    assert!(text.ends_with("\n\n"));
    let back = read_all(&text);
    assert_eq!(back.len(), 1, "{what}: {text}");
    let h = back
        .into_iter()
        .next()
        .unwrap()
        .unwrap_or_else(|e| panic!("{what}: reading back: {e}\n{text}"));
    assert_eq!(h.result, g.result, "{what}");
    assert_eq!(h.start, g.start, "{what}");
    let a: Vec<_> = g.moves.iter().map(|m| m.mv).collect();
    let b: Vec<_> = h.moves.iter().map(|m| m.mv).collect();
    assert_eq!(a, b, "{what}: moves differ");
    for (x, y) in g.moves.iter().zip(&h.moves) {
        assert_eq!(x.nags, y.nags, "{what}: NAGs of {}", x.san);
        assert_eq!(
            x.comment.as_deref().map(normalise),
            y.comment.as_deref().map(normalise),
            "{what}: comment after {}",
            x.san
        );
    }
    assert_eq!(
        g.intro.as_deref().map(normalise),
        h.intro.as_deref().map(normalise)
    );
    // Every tag survives (the roster may gain '?' placeholders; SetUp/FEN are rewritten
    // from the start position).
    for (name, value) in &g.tags {
        if name == "SetUp" || name == "FEN" {
            continue;
        }
        assert_eq!(h.tag(name), Some(value.as_str()), "{what}: tag {name}");
    }
    for name in ROSTER {
        assert!(
            h.tag(name).is_some(),
            "{what}: {name} missing after writing"
        );
    }
    assert_eq!(h.tag("Result"), Some(g.result.as_str()));
    // Writing again gives the same text.
    assert_eq!(h.to_pgn(), text, "{what}: second write differs");
}

/// Comments are free text: compare them with runs of white space collapsed.
fn normalise(c: &str) -> String {
    c.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn pgn_standard_files_read_completely() {
    // (file, games, moves of each game, result of each game)
    let expect: [(&str, usize, &[usize], &[&str]); 6] = [
        (
            "pgn/kasparov-deep-blue-1997.pgn",
            6,
            &[89, 89, 95, 111, 98, 37],
            &["1-0", "1-0", "1/2-1/2", "1/2-1/2", "1/2-1/2", "1-0"],
        ),
        ("pgn/molinari-bordais-1979.pgn", 1, &[10], &["0-1"]),
        ("pgn/nepomniachtchi-liren-game1.pgn", 1, &[97], &["1/2-1/2"]),
        ("pgn/stockfish-learning.pgn", 1, &[154], &["1-0"]),
        ("pgn/chessbase-empty-line.pgn", 1, &[134], &["0-1"]),
        ("pgn/uci-moves.pgn", 1, &[113], &["1/2-1/2"]),
    ];
    for (f, n, moves, results) in expect {
        let games = ok_games(f);
        assert_eq!(games.len(), n, "{f}");
        for (i, g) in games.iter().enumerate() {
            let what = format!("{f} game {}", i + 1);
            assert_eq!(g.moves.len(), moves[i], "{what}");
            assert_eq!(g.result, results[i], "{what}");
            check_result(g, &what);
            check_round_trip(g, &what);
        }
    }

    // Molinari-Bordais ends in mate: 5...Nd3#.
    let g = &ok_games("pgn/molinari-bordais-1979.pgn")[0];
    let end = g.end_position();
    assert!(end.is_checkmate() && end.side_to_move() == Color::White);
    assert_eq!(g.moves.last().unwrap().san, "Nd3#");
    assert_eq!(check_result(g, "molinari"), Some("checkmate"));

    // Kasparov-Deep Blue 1997, game 6 ends 19.c4 1-0; game 1 ends 45.g7.
    let games = ok_games("pgn/kasparov-deep-blue-1997.pgn");
    assert_eq!(games[0].tag("White"), Some("Garry Kasparov"));
    assert_eq!(games[1].tag("White"), Some("Deep Blue (Computer)"));
    assert_eq!(
        games[5].end_position().to_fen(),
        "r1k4r/p2nb1p1/2b4p/1p1n1p2/2PP4/3Q1NB1/1P3PPP/R5K1 b - - 0 19"
    );
    assert_eq!(games[5].moves.last().unwrap().san, "c4");
    assert_eq!(
        games[0].end_position().to_fen(),
        "4r3/6P1/2p2P1k/1p6/pP2p1R1/P1B5/2P2K2/3r4 b - - 0 45"
    );

    // The adjudicated engine game ends with a check that is not mate; comments kept.
    let g = &ok_games("pgn/stockfish-learning.pgn")[0];
    let end = g.end_position();
    assert!(end.in_check() && !end.is_checkmate());
    assert_eq!(g.moves[0].comment.as_deref(), Some("book"));
    assert_eq!(
        g.moves.last().unwrap().comment.as_deref(),
        Some("-8.11/24 5.0s, White wins by adjudication")
    );
    assert_eq!(g.tag("Termination"), Some("adjudication"));

    // Empty line between the tags (ChessBase): all tags and moves read.
    let g = &ok_games("pgn/chessbase-empty-line.pgn")[0];
    assert_eq!(g.tag("Event"), Some("AlphaZero vs. Stockfish"));
    assert_eq!(g.tag("Date"), Some("2017.12.04"));
    assert_eq!(g.tag("BlackFideId"), Some("deepmind"));
    assert_eq!(g.tags.len(), 11);
    assert_eq!(g.moves.last().unwrap().san, "Bd6");

    // Coordinate moves in the movetext.
    let g = &ok_games("pgn/uci-moves.pgn")[0];
    assert_eq!(g.moves[0].san, "g1f3");
    assert_eq!(g.moves[0].mv.to_uci(), "g1f3");
    let castle = g.moves.iter().find(|m| m.san == "e1c1").expect("e1c1");
    assert!(castle.mv.is_castle());
    assert_eq!(g.tag("White"), Some("Aristarch 4.50"));
}

#[test]
fn pgn_utf8_bom() {
    let bytes = std::fs::read(data("pgn/utf8-bom.pgn")).unwrap();
    assert!(bytes.starts_with(&[0xEF, 0xBB, 0xBF]), "the file has a BOM");
    // Through the streaming reader, from the file itself.
    let file = std::fs::File::open(data("pgn/utf8-bom.pgn")).unwrap();
    let games: Vec<_> = PgnReader::new(BufReader::new(file))
        .map(|g| g.unwrap())
        .collect();
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].tags[0], ("Event".to_string(), "A".to_string()));
    assert_eq!(games[1].tag("Event"), Some("B"));
    for g in &games {
        assert!(g.moves.is_empty());
        assert_eq!(g.result, "*");
        assert_eq!(g.tag("White"), Some("White vs 1...c5"));
        assert_eq!(g.tags.len(), 10);
        check_round_trip(g, "utf8-bom");
    }
}

#[test]
fn pgn_variants_are_refused_and_reading_goes_on() {
    let cases = [
        ("pgn/antichess-programfox.pgn", 2, "antichess"),
        (
            "pgn/knightvuillaume-jannlee-zh-lichess.pgn",
            1,
            "crazyhouse",
        ),
        ("pgn/saturs-jannlee-zh-lichess.pgn", 1, "crazyhouse"),
        ("pgn/cutechess-fischerrandom.pgn", 4, "fischerandom"),
    ];
    for (f, n, variant) in cases {
        let games = games_of(f);
        assert_eq!(games.len(), n, "{f}: every game is seen");
        for (i, g) in games.iter().enumerate() {
            let e = g
                .as_ref()
                .err()
                .unwrap_or_else(|| panic!("{f}: game {} read", i + 1));
            assert_eq!(e.game, i + 1, "{f}");
            assert!(e.line >= 1);
            let msg = e.to_string();
            assert!(msg.contains(variant), "{f}: {msg}");
            assert!(msg.contains(&format!("game {}", i + 1)), "{f}: {msg}");
        }
    }
    // The games after the refused ones are found at their lines.
    let games = games_of("pgn/cutechess-fischerrandom.pgn");
    let lines: Vec<usize> = games.iter().map(|g| g.as_ref().unwrap_err().line).collect();
    let text = read_data("pgn/cutechess-fischerrandom.pgn");
    for &l in &lines {
        let at = text.lines().nth(l - 1).unwrap();
        assert!(at.starts_with("[Event"), "line {l}: {at}");
    }
    // A variant game in the middle of standard games.
    let text = format!(
        "{}\n{}\n{}",
        "[Event \"one\"]\n\n1. e4 e5 1-0\n",
        read_data("pgn/saturs-jannlee-zh-lichess.pgn"),
        "[Event \"three\"]\n\n1. d4 d5 0-1\n"
    );
    let games = read_all(&text);
    assert_eq!(games.len(), 3);
    assert_eq!(games[0].as_ref().unwrap().tag("Event"), Some("one"));
    let e = games[1].as_ref().unwrap_err();
    assert_eq!((e.game, e.line), (2, 5));
    assert!(e.reason.contains("crazyhouse"), "{e}");
    let g = games[2].as_ref().unwrap();
    assert_eq!(g.tag("Event"), Some("three"));
    assert_eq!(g.moves.len(), 2);
    assert_eq!(g.result, "0-1");
}

#[test]
fn pgn_null_move_is_refused_with_its_place() {
    // anastasian-lewis.pgn has a null move ("Z0") at 41...: kibitzer does not read null
    // moves; the error says which game, line and move.
    let games = games_of("pgn/anastasian-lewis.pgn");
    assert_eq!(games.len(), 1);
    let e = games[0].as_ref().unwrap_err();
    assert_eq!((e.game, e.line), (1, 20));
    assert!(e.reason.contains("41...") && e.reason.contains("Z0"), "{e}");
}

#[test]
fn pgn_masters_first_2000_games() {
    let file = std::fs::File::open(data("pgn/masters.pgn")).unwrap();
    let mut reader = PgnReader::new(BufReader::with_capacity(1 << 16, file));
    let mut n = 0;
    let mut moves = 0;
    let mut endings = std::collections::BTreeMap::new();
    let mut results = std::collections::BTreeMap::new();
    while n < 2000 {
        let g = reader
            .next()
            .expect("masters.pgn has more than 2000 games")
            .unwrap_or_else(|e| panic!("masters.pgn: {e}"));
        n += 1;
        let what = format!("masters.pgn game {n}");
        assert_ne!(g.result, "*", "{what}: masters games have definite results");
        for name in ROSTER {
            assert!(g.tag(name).is_some(), "{what}: no {name} tag");
        }
        if let Some(e) = check_result(&g, &what) {
            *endings.entry(e).or_insert(0) += 1;
        }
        *results.entry(g.result.clone()).or_insert(0) += 1;
        moves += g.moves.len();
        if n % 10 == 0 {
            check_round_trip(&g, &what);
        }
    }
    assert_eq!(reader.games_read(), 2000);
    println!("masters.pgn: {n} games, {moves} moves, results {results:?}, ended on the board: {endings:?}");
    assert!(endings.get("checkmate").copied().unwrap_or(0) > 0);
    assert_eq!(results.len(), 3);
}

// ----- reader behaviour on constructed input -----------------------------------------

const GOOD1: &str = "[Event \"g1\"]\n[Site \"?\"]\n[Date \"2024.01.01\"]\n[Round \"1\"]\n\
[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";
const BROKEN: &str = "[Event \"g2\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6\n3. Bb5 Ke5 4. O-O *\n";
const GOOD3: &str = "[Event \"g3\"]\n[Result \"1/2-1/2\"]\n\n1. d4 d5 1/2-1/2\n";

#[test]
fn pgn_broken_game_in_the_middle_is_skipped() {
    let text = format!("{GOOD1}\n{BROKEN}\n{GOOD3}");
    let games = read_all(&text);
    assert_eq!(games.len(), 3);
    let g1 = games[0].as_ref().unwrap();
    assert_eq!(g1.moves.len(), 7);
    assert!(g1.end_position().is_checkmate());
    assert_eq!(check_result(g1, "g1"), Some("checkmate"));
    let e = games[1].as_ref().unwrap_err();
    assert_eq!(e.game, 2);
    // GOOD1 has 9 lines, then a blank line and the broken game: its second move line
    // is line 15.
    assert_eq!(e.line, 15, "{e}");
    assert!(e.reason.contains("3...") && e.reason.contains("Ke5"), "{e}");
    assert!(e.to_string().starts_with("game 2 (line 15): "), "{e}");
    let g3 = games[2].as_ref().unwrap();
    assert_eq!(g3.tag("Event"), Some("g3"));
    assert_eq!(g3.moves.len(), 2);
    assert_eq!(g3.result, "1/2-1/2");

    // Errors of other kinds, each followed by a good game.
    for (bad, needle) in [
        (
            "[Event \"x\"]\n[FEN \"8/8/8 w - - 0 1\"]\n\n1. e4 *\n",
            "bad FEN",
        ),
        ("[Event \"x\"\n\n1. e4 *\n", "Event"),
        (
            "[Event \"x\"]\n\n1. e4 {never closed\n",
            "comment never closed",
        ),
        ("[Event \"x\"]\n\n1. e4 e5 2. Qxf7 *\n", "Qxf7"),
        ("[Event \"x\"]\n\n1. e4 e5 2. e5e6 *\n", "e5e6"),
    ] {
        let text = format!("{bad}\n{GOOD3}");
        let games = read_all(&text);
        let e = games[0].as_ref().unwrap_err();
        assert_eq!(e.game, 1);
        assert!(e.to_string().contains(needle), "{needle}: {e}");
        if needle != "comment never closed" {
            assert_eq!(games.len(), 2, "{needle}");
            assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("g3"));
        }
    }
}

#[test]
fn pgn_movetext_quirks() {
    let text = "[Event \"q\"]\n\n{intro} 1.e4 $1 {best by test} (1.d4 d5 (1...Nf6 2.c4) 2.c4) \
        1...e5!? 2.Nf3 ?! Nc6 3.Bb5 a6 ; rest of line ignored\n4.Ba4 Nf6 5.O-O+ Be7\n% an escaped line 6.Qxf7\n\
        6.Re1 b5 7.Bb3 d6 8.c3 O-O 9.h3 1/2-1/2\n";
    let games = read_all(text);
    assert_eq!(games.len(), 1);
    let g = games[0].as_ref().unwrap();
    let sans: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
    assert_eq!(
        sans,
        [
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O+", "Be7", "Re1", "b5", "Bb3",
            "d6", "c3", "O-O", "h3"
        ]
    );
    assert_eq!(g.intro.as_deref(), Some("intro"));
    assert_eq!(g.moves[0].nags, [1]);
    assert_eq!(g.moves[0].comment.as_deref(), Some("best by test"));
    assert_eq!(g.moves[1].nags, [5]);
    assert_eq!(g.moves[2].nags, [6]);
    assert_eq!(g.result, "1/2-1/2");
    check_round_trip(g, "quirks");

    // A game without a result, followed directly by the next game's tags.
    let text = "[Event \"a\"]\n\n1. e4 e5\n[Event \"b\"]\n\n1. d4 *\n";
    let games = read_all(text);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].as_ref().unwrap().moves.len(), 2);
    assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("b"));
    // Movetext without tags; ½-½ result.
    let games = read_all("1. f3 e5 2. g4 Qh4# 0-1\n\n1. e4 ½-½\n");
    assert_eq!(games.len(), 2);
    let g = games[0].as_ref().unwrap();
    assert!(g.end_position().is_checkmate());
    assert_eq!(g.result, "0-1");
    assert_eq!(games[1].as_ref().unwrap().result, "1/2-1/2");
    // Escaped quotes in tags round-trip.
    let g = read_all("[Event \"say \\\"hi\\\" \\\\ bye\"]\n\n*\n")
        .remove(0)
        .unwrap();
    assert_eq!(g.tag("Event"), Some("say \"hi\" \\ bye"));
    check_round_trip(&g, "escaped tag");
}

#[test]
fn pgn_set_up_position_and_writing() {
    // A game from a FEN with Black to move.
    let text = "[Event \"e\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 30\"]\n\n\
        30... Kd7 31. e4 Ke6 32. Ke2 *\n";
    let g = read_all(text).remove(0).unwrap();
    assert_eq!(g.moves.len(), 4);
    assert_eq!(g.start.to_fen(), "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30");
    let out = g.to_pgn();
    assert!(out.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 30\"]"));
    assert!(out.contains("30... Kd7 31. e4 Ke6 32. Ke2 *"), "{out}");
    check_round_trip(&g, "set-up");

    // A game built in code, long enough to wrap, with comments and NAGs.
    let mut b = Board::startpos();
    let mut g = PgnGame::new(b.clone());
    g.set_tag("White", "Kibitzer");
    g.set_tag("Black", "Someone");
    g.set_tag("Annotator", "test");
    g.set_tag("White", "kibitzer");
    for san in "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 \
        c4 c6 cxb5 axb5 Nc3 Bb7 Bg5 b4 Nb1 h6 Bh4 c5 dxe5 Nxe4 Bxe7 Qxe7 exd6 Qf6 Nbd2 Nxd6"
        .split_whitespace()
    {
        let m = b.parse_san(san).unwrap();
        g.push_move(&b, m);
        b.make_move(m);
    }
    g.moves[4].nags.push(3);
    g.moves[8].comment = Some(
        "a long comment that will have to be wrapped over more than \
        one line of the output because it goes on and on"
            .into(),
    );
    g.result = "1-0".into();
    let out = g.to_pgn();
    assert!(out.starts_with(
        "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n\
         [White \"kibitzer\"]\n[Black \"Someone\"]\n[Result \"1-0\"]\n[Annotator \"test\"]\n\n"
    ));
    assert!(out.contains("3. Bb5 $3 a6"), "{out}");
    assert!(out.contains("5... Be7"), "a number after a comment: {out}");
    assert!(out.lines().count() > 12);
    check_round_trip(&g, "built");
    assert_eq!(g.end_position(), b);
}

#[test]
fn pgn_comment_lines_starting_with_percent_read_back() {
    // The writer wraps comments at any word, so a comment line may start with '%'; the
    // reader must not take it for an escape line (that lost the rest of the comment and
    // its closing brace, and the game with it).
    let b = Board::startpos();
    let mut g = PgnGame::new(b.clone());
    let m = b.parse_san("e4").unwrap();
    g.push_move(&b, m);
    let words: Vec<String> = (0..40).map(|i| format!("%w{i}")).collect();
    g.moves[0].comment = Some(words.join(" "));
    let out = g.to_pgn();
    assert!(out.lines().any(|l| l.starts_with('%')), "{out}");
    check_round_trip(&g, "percent comment");
    // Outside comments a '%' line is still an escape.
    let games = read_all("1. e4\n% 1... e5 is not read\ne6 *\n");
    let g = games[0].as_ref().unwrap();
    assert_eq!(g.moves.len(), 2);
    assert_eq!(g.moves[1].san, "e6");
}

#[test]
fn pgn_tags_after_an_empty_line_are_checked_like_the_others() {
    // ChessBase leaves empty lines in the tag section (chessbase-empty-line.pgn). A FEN
    // or Variant tag after such a line must still set up or refuse the game.
    let text = "[Event \"x\"]\n\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n\
        1. e4 Kd7 *\n";
    let g = read_all(text).remove(0).unwrap();
    assert_eq!(g.start.to_fen(), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    assert_eq!(g.end_position().to_fen(), "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2");
    check_round_trip(&g, "late FEN");

    let text = "[Event \"x\"]\n\n[Variant \"Crazyhouse\"]\n\n1. e4 *\n\n[Event \"y\"]\n\n1. d4 *\n";
    let games = read_all(text);
    assert_eq!(games.len(), 2);
    let e = games[0].as_ref().unwrap_err();
    assert_eq!((e.game, e.line), (1, 3));
    assert!(e.reason.contains("crazyhouse"), "{e}");
    assert_eq!(games[1].as_ref().unwrap().tag("Event"), Some("y"));

    let text = "[Event \"x\"]\n\n[FEN \"8/8 w\"]\n\n1. e4 *\n";
    let e = read_all(text).remove(0).unwrap_err();
    assert!(e.reason.contains("bad FEN"), "{e}");
}
