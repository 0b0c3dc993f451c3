//! The readable, shareable learning records: `book.lrn` and `position.lrn`. Both are
//! PGN files (any PGN tool reads them), one record per game, appended after every game
//! and read back by `import`, which tells the two kinds apart.
//!
//! A book learning record is the game's tags, a `[Learn "book"]` tag, the reduced
//! value as the first comment `{value depth rating_difference}`, and the book line
//! with what each move received: `{learn N}` (book learning), `{strengthen N}` (a won
//! or drawn game), `{never}` (result learning after a loss), several in one comment:
//!
//! ```text
//! [Event "ICS rated blitz"] ... [Result "0-1"]
//! [Learn "book"]
//! {-120 14 -85} 1. e4 c5 2. Nf3 {learn -60} d6 3. d4 {learn -120 never} 0-1
//! ```
//!
//! A position learning record is the game's tags, `[Learn "position"]`, the position
//! as a `FEN` tag, and the best move with `{score S depth D}`:
//!
//! ```text
//! [Event "?"] ... [Learn "position"] [SetUp "1"] [FEN "r1bq1rk1/..."]
//! 14. Nf3 {score -85 depth 12} *
//! ```
//!
//! Records have no blank line inside (the tags run straight into the movetext), end
//! with one, and are appended in one write; a record a crash cut short is dropped
//! (see `safe::append_text`).

use crate::chess::pgn::{PgnGame, PgnMove, PgnReader};
use crate::chess::{Board, Move};

/// Tags copied from the game into a record.
pub type Tags = Vec<(String, String)>;

/// What one book move of a record received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLearning {
    Learn(i32),
    Strengthen(i32),
    Never,
}

/// A book learning record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookRecord {
    pub tags: Tags,
    pub result: String,
    pub value: i32,
    pub depth: i32,
    pub rating_difference: i32,
    pub start: Board,
    /// The line from the start, each move with what it received.
    pub moves: Vec<(Move, Vec<MoveLearning>)>,
}

/// A position learning record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionRecord {
    pub tags: Tags,
    pub result: String,
    pub board: Board,
    pub best: Move,
    pub score: i32,
    pub depth: i32,
}

/// A record read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    Book(BookRecord),
    Position(PositionRecord),
}

fn game_with(tags: &Tags, kind: &str, start: Board, result: &str) -> PgnGame {
    let mut g = PgnGame::new(start);
    for (n, v) in tags {
        if !matches!(n.as_str(), "FEN" | "SetUp" | "Learn" | "Result") {
            g.set_tag(n, &v.replace(['\n', '\r'], " "));
        }
    }
    g.set_tag("Learn", kind);
    g.result = result.to_string();
    g
}

impl BookRecord {
    pub fn to_pgn(&self) -> String {
        let mut g = game_with(&self.tags, "book", self.start.clone(), &self.result);
        g.intro = Some(format!(
            "{} {} {}",
            self.value, self.depth, self.rating_difference
        ));
        let mut b = self.start.clone();
        for (m, ls) in &self.moves {
            let words: Vec<String> = ls
                .iter()
                .map(|l| match l {
                    MoveLearning::Learn(v) => format!("learn {v}"),
                    MoveLearning::Strengthen(v) => format!("strengthen {v}"),
                    MoveLearning::Never => "never".to_string(),
                })
                .collect();
            g.moves.push(PgnMove {
                mv: *m,
                san: b.san(*m),
                nags: Vec::new(),
                comment: (!words.is_empty()).then(|| words.join(" ")),
            });
            b.make_move(*m);
        }
        one_block(g.to_pgn())
    }
}

/// A record with no blank line inside (tags run straight into the movetext, which
/// PGN readers accept), so that the blank line that ends it marks a complete record.
fn one_block(text: String) -> String {
    text.replacen("]\n\n", "]\n", 1)
}

impl PositionRecord {
    pub fn to_pgn(&self) -> String {
        let mut g = game_with(&self.tags, "position", self.board.clone(), &self.result);
        g.moves.push(PgnMove {
            mv: self.best,
            san: self.board.san(self.best),
            nags: Vec::new(),
            comment: Some(format!("score {} depth {}", self.score, self.depth)),
        });
        one_block(g.to_pgn())
    }
}

fn ints(text: &str) -> Option<Vec<i32>> {
    text.split_whitespace().map(|w| w.parse().ok()).collect()
}

/// `score S depth D` -> (S, D).
fn score_depth(text: &str) -> Option<(i32, i32)> {
    let w: Vec<&str> = text.split_whitespace().collect();
    match w.as_slice() {
        ["score", s, "depth", d, ..] => Some((s.parse().ok()?, d.parse().ok()?)),
        _ => None,
    }
}

fn move_learning(comment: &str) -> Vec<MoveLearning> {
    // Comments of one move arrive joined by spaces: "learn -60 never".
    let w: Vec<&str> = comment.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < w.len() {
        match w[i] {
            "learn" | "strengthen" if i + 1 < w.len() => {
                if let Ok(v) = w[i + 1].parse() {
                    out.push(if w[i] == "learn" {
                        MoveLearning::Learn(v)
                    } else {
                        MoveLearning::Strengthen(v)
                    });
                }
                i += 2;
            }
            "never" => {
                out.push(MoveLearning::Never);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// What a PGN game of a `.lrn` file holds: a book record, a position record, or
/// (`None`) neither.
pub fn classify(g: &PgnGame) -> Option<Record> {
    let kind = g.tag("Learn").map(str::to_ascii_lowercase);
    let tags: Tags = g.tags.clone();
    let position_shaped = g.tag("FEN").is_some()
        && g.moves.len() == 1
        && g.moves[0]
            .comment
            .as_deref()
            .and_then(score_depth)
            .is_some();
    if kind.as_deref() == Some("position") || (kind.is_none() && position_shaped) {
        let m = g.moves.first()?;
        let (score, depth) = m.comment.as_deref().and_then(score_depth)?;
        return Some(Record::Position(PositionRecord {
            tags,
            result: g.result.clone(),
            board: g.start.clone(),
            best: m.mv,
            score,
            depth,
        }));
    }
    let head = ints(g.intro.as_deref()?)?;
    if head.len() != 3 {
        return None;
    }
    Some(Record::Book(BookRecord {
        tags,
        result: g.result.clone(),
        value: head[0],
        depth: head[1],
        rating_difference: head[2],
        start: g.start.clone(),
        moves: g
            .moves
            .iter()
            .map(|m| {
                (
                    m.mv,
                    m.comment.as_deref().map(move_learning).unwrap_or_default(),
                )
            })
            .collect(),
    }))
}

/// Reads every record of a `.lrn` text; unreadable games are reported, not fatal.
pub fn parse(text: &str) -> (Vec<Record>, Vec<String>) {
    let mut records = Vec::new();
    let mut problems = Vec::new();
    for g in PgnReader::new(std::io::Cursor::new(text.as_bytes())) {
        match g {
            Ok(g) => match classify(&g) {
                Some(r) => records.push(r),
                None => {
                    if !g.moves.is_empty() {
                        problems.push("a game without learning data was skipped".into())
                    }
                }
            },
            Err(e) => problems.push(format!("{e}")),
        }
    }
    (records, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let start = Board::startpos();
        let mut b = start.clone();
        let mut moves = Vec::new();
        for (san, l) in [
            ("e4", vec![]),
            ("c5", vec![]),
            ("Nf3", vec![MoveLearning::Learn(-60)]),
            ("d6", vec![]),
            ("d4", vec![MoveLearning::Learn(-120), MoveLearning::Never]),
        ] {
            let m = b.parse_move(san).unwrap();
            b.make_move(m);
            moves.push((m, l));
        }
        let tags = vec![
            ("White".to_string(), "kibitzer".to_string()),
            ("Black".to_string(), "someone".to_string()),
        ];
        let r = BookRecord {
            tags: tags.clone(),
            result: "0-1".into(),
            value: -120,
            depth: 14,
            rating_difference: -85,
            start,
            moves,
        };
        let text = r.to_pgn();
        assert!(text.ends_with("\n\n"), "{text}");
        assert_eq!(text.matches("\n\n").count(), 1, "{text}");
        let p = PositionRecord {
            tags,
            result: "0-1".into(),
            board: b.clone(),
            best: b.parse_move("Nf6").unwrap(),
            score: -85,
            depth: 12,
        };
        let both = format!("{text}{}", p.to_pgn());
        let (recs, problems) = parse(&both);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(recs.len(), 2);
        match &recs[0] {
            Record::Book(got) => {
                assert_eq!(got.value, -120);
                assert_eq!(got.moves, r.moves);
            }
            other => panic!("{other:?}"),
        }
        match &recs[1] {
            Record::Position(got) => {
                assert_eq!((got.score, got.depth, got.best), (-85, 12, p.best));
                assert_eq!(got.board.to_fen(), p.board.to_fen());
            }
            other => panic!("{other:?}"),
        }
    }
}
