//! Crafty-style analysis text: the `depth  time  score  variation` lines (`N->` for
//! a finished iteration, `++` for a fail high, `--` for a fail low), scores from
//! White's point of view in pawns (`+0.23`, `Mat05`, `-Mat03`), principal variations
//! in SAN with move numbers (`12. ... Nxe4 13. Bxe4 h6`), the summary line
//! (`time: 15.60  mat:1  n:246565  nps:15927`), and time and node units. Used by the
//! console and later by annotate and whisper/kibitz.
//!
//! It decides nothing: the `display` and `noise` options say what is shown, and the
//! front ends write the text where it belongs. The UCI `info` and xboard thinking
//! lines follow their protocols (scores from the side to move) and live with them.

use crate::chess::{Board, Color, Move, PieceType};
use crate::engine::{mate_in, SearchEvent, SearchInfo, SearchResult};
use crate::options::Options;
use std::time::Duration;

/// A score in pawns from White's point of view, the way Crafty prints it: `+0.23`,
/// `-1.50`, `0.00`; mates as `Mat05` (White mates in 5) or `-Mat03` (Black mates in 3).
pub fn score(white_cp: i32) -> String {
    if let Some(n) = mate_in(white_cp) {
        let sign = if n < 0 { "-" } else { "" };
        return format!("{sign}Mat{:02}", n.abs());
    }
    if white_cp == 0 {
        return "0.00".into();
    }
    let sign = if white_cp < 0 { '-' } else { '+' };
    let a = white_cp.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// Time as Crafty prints it: `12.92` under a minute, `1:05` under an hour, then
/// `1:02:03`.
pub fn time(d: Duration) -> String {
    let cs = d.as_millis() / 10;
    let s = cs / 100;
    if s < 60 {
        format!("{}.{:02}", s, cs % 100)
    } else if s < 3600 {
        format!("{}:{:02}", s / 60, s % 60)
    } else {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    }
}

/// A count in short units: `950`, `12.3K`, `4.56M`, `1.23G`.
pub fn count(n: u64) -> String {
    let f = n as f64;
    if n < 10_000 {
        format!("{n}")
    } else if n < 10_000_000 {
        format!("{:.1}K", f / 1e3)
    } else if n < 1_000_000_000 {
        format!("{:.2}M", f / 1e6)
    } else {
        format!("{:.2}G", f / 1e9)
    }
}

/// A principal variation in SAN from `board`; with `numbers`, move numbers as in
/// `12. ... Nxe4 13. Bxe4 h6`. Stops at the first move that is not legal.
pub fn pv(board: &Board, moves: &[Move], numbers: bool) -> String {
    let mut b = board.clone();
    let mut out = String::new();
    for (i, &m) in moves.iter().enumerate() {
        if !b.is_legal(m) {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        if numbers {
            let n = b.fullmove_number();
            match b.side_to_move() {
                Color::White => out.push_str(&format!("{n}. ")),
                Color::Black if i == 0 => out.push_str(&format!("{n}. ... ")),
                Color::Black => {}
            }
        }
        out.push_str(&b.san(m));
        b.make_move(m);
    }
    out
}

/// The longest legal prefix of a principal variation played from `board` (a PV read
/// back from the transposition table can end in moves of another position).
pub fn legal_prefix<'a>(board: &Board, moves: &'a [Move]) -> &'a [Move] {
    let mut b = board.clone();
    for (i, &m) in moves.iter().enumerate() {
        if !b.is_legal(m) {
            return &moves[..i];
        }
        b.make_move(m);
    }
    moves
}

/// Material balance in pawns from White's point of view (1, 3, 3, 5, 9).
pub fn material(board: &Board) -> i32 {
    let v = [1, 3, 3, 5, 9];
    let kinds = [
        PieceType::Pawn,
        PieceType::Knight,
        PieceType::Bishop,
        PieceType::Rook,
        PieceType::Queen,
    ];
    kinds
        .iter()
        .zip(v)
        .map(|(&k, v)| {
            v * (board.pieces(Color::White, k).count() as i32
                - board.pieces(Color::Black, k).count() as i32)
        })
        .sum()
}

/// What the `display` and `noise` options let through.
#[derive(Clone, Debug)]
pub struct Display {
    pub time: bool,
    pub changes: bool,
    pub variation: bool,
    pub stats: bool,
    pub extstats: bool,
    pub movenum: bool,
    pub moves: bool,
    pub general: bool,
    /// Nodes before any analysis line is shown.
    pub noise: u64,
}

impl Default for Display {
    fn default() -> Self {
        Display::from_options(&Options::new())
    }
}

impl Display {
    pub fn from_options(o: &Options) -> Display {
        Display {
            time: o.bool("display.time"),
            changes: o.bool("display.changes"),
            variation: o.bool("display.variation"),
            stats: o.bool("display.stats"),
            extstats: o.bool("display.extstats"),
            movenum: o.bool("display.movenum"),
            moves: o.bool("display.moves"),
            general: o.bool("display.general"),
            noise: o.int("noise").max(0) as u64,
        }
    }
}

/// The column header printed before the first analysis line of a search.
pub const HEADER: &str = "depth   time  score   variation (1)";

/// The kind of an analysis line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A finished iteration: `N->`.
    Iteration,
    /// A new best move inside an iteration.
    NewBest,
    /// Fail high: `++` in the score column.
    FailHigh,
    /// Fail low: `--` in the score column.
    FailLow,
}

/// One analysis line: ` 6->   15.59  +2.23   6. Ne5 Qg2 7. Ng6 h5`.
pub fn line(mark: Mark, info: &SearchInfo, root: &Board, movenum: bool) -> String {
    let depth = match mark {
        Mark::Iteration => format!("{:>3}->", info.depth),
        _ => format!("{:>3}  ", info.depth),
    };
    let sc = match mark {
        Mark::FailHigh => "++".to_string(),
        Mark::FailLow => "--".to_string(),
        _ => score(info.white_score()),
    };
    // A fail high or low shows only the move being re-searched.
    let moves = match mark {
        Mark::FailHigh | Mark::FailLow => &info.pv[..info.pv.len().min(1)],
        _ => &info.pv[..],
    };
    let mpv = if info.multipv > 1 {
        format!("({}) ", info.multipv)
    } else {
        String::new()
    };
    format!(
        "{depth} {:>7} {:>7}   {mpv}{}",
        time(info.time),
        sc,
        pv(root, moves, movenum)
    )
}

/// The summary after a search: `time: 15.60  mat:1  n:246565  nps:15927`, with
/// `extstats` also depth and the search's error if any.
pub fn summary(r: &SearchResult, root: &Board, ext: bool) -> String {
    let ms = r.time.as_millis() as u64;
    let nps = (r.nodes * 1000).checked_div(ms).unwrap_or(0);
    let mut s = format!(
        "time: {}  mat:{}  n:{}  nps:{}",
        time(r.time),
        material(root),
        r.nodes,
        nps
    );
    if ext {
        s.push_str(&format!("  depth:{}", r.depth));
    }
    if let Some(e) = &r.error {
        s.push_str(&format!("  error: {e}"));
    }
    s
}

/// Turns search events into Crafty-style lines for `root` (the searched position),
/// as the `display` and `noise` options allow. Keeps whether the header was printed.
pub struct Printer {
    pub root: Board,
    pub display: Display,
    header_done: bool,
}

impl Printer {
    pub fn new(root: Board, display: Display) -> Printer {
        Printer {
            root,
            display,
            header_done: false,
        }
    }

    /// The lines this event prints (possibly none).
    pub fn event(&mut self, e: &SearchEvent) -> Vec<String> {
        let d = &self.display;
        let (mark, info) = match e {
            SearchEvent::Iteration(i) if d.variation => (Mark::Iteration, i),
            SearchEvent::NewBest(i) if d.changes && d.variation => (Mark::NewBest, i),
            SearchEvent::FailHigh(i) if d.changes => (Mark::FailHigh, i),
            SearchEvent::FailLow(i) if d.changes => (Mark::FailLow, i),
            SearchEvent::CurrMove { depth, mv, number } if d.moves => {
                let san = if self.root.is_legal(*mv) {
                    self.root.san(*mv)
                } else {
                    mv.to_string()
                };
                return vec![format!("{depth:>3}   searching {number}. {san}")];
            }
            SearchEvent::Done(r) if d.stats => {
                return if self.header_done || r.nodes >= d.noise {
                    vec![summary(r, &self.root, d.extstats)]
                } else {
                    vec![]
                };
            }
            _ => return vec![],
        };
        if info.nodes < d.noise {
            return vec![];
        }
        let mut out = Vec::new();
        if !self.header_done {
            self.header_done = true;
            out.push(HEADER.to_string());
        }
        out.push(line(mark, info, &self.root, d.movenum));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MATE;

    #[test]
    fn scores_as_crafty_prints_them() {
        assert_eq!(score(23), "+0.23");
        assert_eq!(score(-150), "-1.50");
        assert_eq!(score(0), "0.00");
        assert_eq!(score(MATE - 9), "Mat05");
        assert_eq!(score(-(MATE - 5)), "-Mat03");
        assert_eq!(mate_in(MATE - 3), Some(2));
        assert_eq!(mate_in(-(MATE - 4)), Some(-2));
        assert_eq!(mate_in(50), None);
    }

    #[test]
    fn times_and_counts() {
        assert_eq!(time(Duration::from_millis(15_600)), "15.60");
        assert_eq!(time(Duration::from_secs(65)), "1:05");
        assert_eq!(time(Duration::from_secs(3723)), "1:02:03");
        assert_eq!(count(950), "950");
        assert_eq!(count(12_345), "12.3K");
        assert_eq!(count(4_560_000_000), "4.56G");
    }

    #[test]
    fn pv_with_move_numbers() {
        let b = Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
            .unwrap();
        // Resolve each move on the board it is played on.
        let mut bb = b.clone();
        let mut moves = Vec::new();
        for t in ["f1b5", "a7a6", "b5a4"] {
            let m = bb.parse_uci(t).unwrap();
            bb.make_move(m);
            moves.push(m);
        }
        assert_eq!(pv(&b, &moves, true), "3. Bb5 a6 4. Ba4");
        assert_eq!(pv(&bb, &[], true), "");
        let mut b2 = b.clone();
        b2.make_move(moves[0]);
        assert_eq!(pv(&b2, &moves[1..], true), "3. ... a6 4. Ba4");
        assert_eq!(pv(&b2, &moves[1..], false), "a6 Ba4");
    }
}
