//! `annotate` and `annotateh` at the console on a real game
//! (`../shared/data/pgn/molinari-bordais-1979.pgn`, where 5. g3?? allows Nd3#):
//! comments only where the played move loses more than the margin, colour, player
//! name and move-range selection, analysis of moves given in the file, and the HTML
//! page: one SVG board per comment with arrows for the played and the better move, one
//! evaluation-graph point per annotated move. Searches are limited by depth.

use crate::common::data;
use crate::session::Driver;
use kibitzer::chess::pgn::{read_all, PgnGame};
use kibitzer::protocol::Protocol;
use std::path::PathBuf;

fn temp_copy(name: &str, text: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kibitzer-annotate-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("game.pgn");
    std::fs::write(&p, text).unwrap();
    p
}

fn molinari() -> String {
    std::fs::read_to_string(data("pgn/molinari-bordais-1979.pgn")).unwrap()
}

fn can(p: &std::path::Path) -> PgnGame {
    let text = std::fs::read_to_string(p.with_extension("pgn.can")).unwrap();
    read_all(&text).remove(0).unwrap()
}

/// A score as the comments print it, in centipawns (mates far out).
fn cp(s: &str) -> i32 {
    let (neg, t) = match s.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, s.trim_start_matches('+')),
    };
    let v = match t.strip_prefix("Mat") {
        Some(n) => 100_000 - n.parse::<i32>().unwrap(),
        None => (t.parse::<f64>().unwrap() * 100.0).round() as i32,
    };
    if neg {
        -v
    } else {
        v
    }
}

/// `-Mat01 (4:+0.32 5. d3 e6 ...)` -> (real, depth, best).
fn parse_comment(c: &str) -> (i32, i32, i32) {
    let (real, rest) = c.split_once(" (").unwrap();
    let (depth, rest) = rest.split_once(':').unwrap();
    let best = rest
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches(')');
    (cp(real), depth.parse().unwrap(), cp(best))
}

#[test]
fn comments_where_the_played_move_loses_more_than_the_margin() {
    let p = temp_copy("margin", &molinari());
    let mut d = Driver::start(Protocol::Console);
    d.send(&format!("annotate {} w 1-999 1.0 d4", p.display()));
    let l = d.expect_prefix("annotate: ");
    assert!(l.contains("1 game(s), 5 move(s) searched"), "{l}");
    let g = can(&p);
    assert_eq!(g.tag("White"), Some("Molinari"));
    assert_eq!(g.moves.len(), 10);
    let mut comments = 0;
    for (i, m) in g.moves.iter().enumerate() {
        let Some(c) = &m.comment else { continue };
        comments += 1;
        assert_eq!(i % 2, 0, "only White's moves: {c}");
        let (real, depth, best) = parse_comment(c);
        assert!(depth >= 1);
        assert!(best - real > 100, "move {i}: {c}");
    }
    let g3 = g.moves[8].comment.as_deref().expect("5. g3 is commented");
    assert!(g3.starts_with("-Mat01 ("), "{g3}");
    assert!(l.contains(&format!("{comments} comment(s)")), "{l}");

    // By name, a move range, and a name both players match.
    d.send(&format!("annotate {} Bordais 3-4 0.5 d3", p.display()));
    d.expect_contains("annotate: 1 game(s), 2 move(s) searched");
    let g = can(&p);
    assert!(g.moves.iter().step_by(2).all(|m| m.comment.is_none()));
    d.send(&format!("annotate {} o 1-999 0.5 d3", p.display()));
    d.expect_contains("'o' matches both players' names");
    d.send(&format!("annotate {} w 1-999 x d3", p.display()));
    d.expect_contains("annotate: margin: 'x' is not a number of pawns; usage: annotate");
    let _ = std::fs::remove_dir_all(p.parent().unwrap());
}

#[test]
fn moves_given_in_the_file_are_analysed() {
    let text = molinari()
        .replace("3. Ne2", "3. Ne2 {Nf3}")
        .replace("5. g3", "5. g3 (5. d3 Nf6)");
    let p = temp_copy("alternatives", &text);
    let mut d = Driver::start(Protocol::Console);
    d.send(&format!("annotate {} w 1-999 5 d3", p.display()));
    d.expect_contains("annotate: 1 game(s), 5 move(s) searched");
    let g = can(&p);
    let third = g.moves[4]
        .comment
        .as_deref()
        .expect("3. Ne2 has the Nf3 analysis");
    assert!(third.contains("Nf3: "), "{third}");
    let fifth = g.moves[8].comment.as_deref().unwrap();
    assert!(
        fifth.starts_with("-Mat01 (") && fifth.contains("; d3: "),
        "{fifth}"
    );
    let _ = std::fs::remove_dir_all(p.parent().unwrap());
}

#[test]
fn annotateh_draws_a_board_per_comment_and_a_graph_point_per_move() {
    let p = temp_copy("html", &molinari());
    let mut d = Driver::start(Protocol::Console);
    // A negative margin comments every move.
    d.send(&format!("annotateh {} wb 1-999 -1 d3", p.display()));
    let l = d.expect_prefix("annotate: ");
    assert!(
        l.contains("10 move(s) searched, 10 comment(s)") && l.contains(".html"),
        "{l}"
    );
    let html = std::fs::read_to_string(p.with_extension("pgn.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert!(
        !html.contains("<img") && !html.contains("src="),
        "self-contained"
    );
    assert_eq!(html.matches("<svg class=\"board\"").count(), 10);
    assert_eq!(html.matches("<svg class=\"graph\"").count(), 1);
    assert_eq!(html.matches("class=\"point\"").count(), 10);
    assert_eq!(html.matches("class=\"arrow played\"").count(), 10);
    // 5. g3: the move played and the better move as arrows, in the same diagram.
    let board = html
        .split("<svg class=\"board\"")
        .find(|b| b.contains("data-from=\"g2\" data-to=\"g3\""))
        .expect("the diagram of 5. g3");
    let board = &board[..board.find("</svg>").unwrap()];
    assert!(board.contains("class=\"arrow played\""), "{board}");
    assert!(board.contains("class=\"arrow best\""), "{board}");
    assert_eq!(board.matches("class=\"piece\"").count(), 32);

    // With a margin: as many boards as comments, a point for every annotated move.
    d.send(&format!("annotateh {} w 1-999 1.0 d4", p.display()));
    d.expect_contains("annotate: 1 game(s), 5 move(s) searched");
    let g = can(&p);
    let comments = g.moves.iter().filter(|m| m.comment.is_some()).count();
    assert!(comments >= 1);
    let html = std::fs::read_to_string(p.with_extension("pgn.html")).unwrap();
    assert_eq!(html.matches("<svg class=\"board\"").count(), comments);
    assert_eq!(html.matches("class=\"point\"").count(), 5);
    assert_eq!(html.matches("class=\"arrow best\"").count(), comments);
    let _ = std::fs::remove_dir_all(p.parent().unwrap());
}

/// An unreadable move (ChessBase's `Z0` null move) no longer costs the whole game:
/// the moves before it are annotated and the console says where it stopped.
#[test]
fn a_game_with_an_unreadable_move_is_annotated_up_to_it() {
    let text = molinari().replace("5. g3", "5. Z0");
    let p = temp_copy("null-move", &text);
    let mut d = Driver::start(Protocol::Console);
    d.send(&format!("annotate {} w 1-999 5 d3", p.display()));
    d.expect_contains("annotated up to ply 8, then stopped");
    d.expect_contains("annotate: 1 game(s), 4 move(s) searched");
    let g = can(&p);
    assert_eq!(g.moves.len(), 8);
    let _ = std::fs::remove_dir_all(p.parent().unwrap());
}
