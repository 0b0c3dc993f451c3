//! SVG drawings shared by the pages kibitzer writes (`annotateh`'s HTML and the
//! daemon's status page): a board diagram with arrows, an evaluation graph with a
//! pawn scale, and HTML escaping. Pure functions of their input: no I/O, no state.

use crate::chess::{Board, Color, Move, PieceType, Square};
use crate::engine::MATE_IN_MAX;
use crate::format;

/// Escapes text for HTML element content and attribute values.
pub fn escape(t: &str) -> String {
    let mut s = String::with_capacity(t.len());
    for c in t.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

const SQ: f64 = 40.0;
const EDGE: f64 = 20.0;

/// Centre of a square on the diagram (White at the bottom).
fn centre(sq: Square) -> (f64, f64) {
    let f = sq.file().index() as f64;
    let r = sq.rank().index() as f64;
    (EDGE + f * SQ + SQ / 2.0, EDGE + (7.0 - r) * SQ + SQ / 2.0)
}

fn glyph(kind: PieceType) -> char {
    // The solid set for both colours: filled white or black, outlined.
    match kind {
        PieceType::King => '\u{265A}',
        PieceType::Queen => '\u{265B}',
        PieceType::Rook => '\u{265C}',
        PieceType::Bishop => '\u{265D}',
        PieceType::Knight => '\u{265E}',
        PieceType::Pawn => '\u{265F}',
    }
}

/// An arrow from one square's centre to another's, the head drawn as a polygon (no
/// marker ids, so any number of diagrams share a page).
fn arrow(class: &str, from: Square, to: Square, colour: &str) -> String {
    let (x1, y1) = centre(from);
    let (x2, y2) = centre(to);
    let (dx, dy) = (x2 - x1, y2 - y1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let head = 14.0;
    let (bx, by) = (x2 - ux * head, y2 - uy * head);
    let (px, py) = (-uy * 8.0, ux * 8.0);
    format!(
        "<g class=\"arrow {class}\" data-from=\"{from}\" data-to=\"{to}\" opacity=\"0.8\">\
<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{bx:.1}\" y2=\"{by:.1}\" stroke=\"{colour}\" stroke-width=\"6\" stroke-linecap=\"round\"/>\
<polygon points=\"{x2:.1},{y2:.1} {:.1},{:.1} {:.1},{:.1}\" fill=\"{colour}\"/></g>",
        bx + px,
        by + py,
        bx - px,
        by - py
    )
}

/// An SVG diagram of `board` (White at the bottom) with the played move (red) and the
/// better move (green) as arrows. Each piece carries its square and FEN letter
/// (`data-sq="e4" data-piece="P"`), so a page's pieces can be read back.
pub fn board_svg(board: &Board, played: Option<Move>, better: Option<Move>) -> String {
    let size = EDGE * 2.0 + SQ * 8.0;
    let mut s = format!(
        "<svg class=\"board\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {size} {size}\" width=\"{size}\" height=\"{size}\" role=\"img\" aria-label=\"{}\">",
        escape(&board.to_fen())
    );
    for sq in Square::all() {
        let f = sq.file().index() as f64;
        let r = sq.rank().index() as f64;
        let fill = if sq.is_dark() { "#b58863" } else { "#f0d9b5" };
        s.push_str(&format!(
            "<rect x=\"{}\" y=\"{}\" width=\"{SQ}\" height=\"{SQ}\" fill=\"{fill}\"/>",
            EDGE + f * SQ,
            EDGE + (7.0 - r) * SQ
        ));
    }
    for i in 0..8 {
        let file = (b'a' + i as u8) as char;
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">{file}</text>",
            EDGE + i as f64 * SQ + SQ / 2.0,
            size - 5.0
        ));
        s.push_str(&format!(
            "<text x=\"10\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
            EDGE + (7 - i) as f64 * SQ + SQ / 2.0 + 4.0,
            i + 1
        ));
    }
    for sq in Square::all() {
        if let Some(p) = board.piece_at(sq) {
            let (x, y) = centre(sq);
            let (fill, stroke) = match p.color() {
                Color::White => ("#fff", "#000"),
                Color::Black => ("#000", "#fff"),
            };
            s.push_str(&format!(
                "<text class=\"piece\" data-sq=\"{sq}\" data-piece=\"{}\" x=\"{x:.1}\" y=\"{:.1}\" font-size=\"34\" text-anchor=\"middle\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"0.8\">{}</text>",
                p.fen_char(),
                y + 12.0,
                glyph(p.kind())
            ));
        }
    }
    if let Some(m) = played {
        s.push_str(&arrow("played", m.from(), m.to(), "#c0392b"));
    }
    if let Some(m) = better {
        s.push_str(&arrow("best", m.from(), m.to(), "#27ae60"));
    }
    s.push_str("</svg>");
    s
}

/// Scores shown on the graph are clipped to +-6 pawns (mates at the edge).
const GRAPH_CLIP: i32 = 600;

/// An SVG graph of the evaluation (White's view) after every annotated move: one
/// point per entry of `points` (label such as `12... Bd7`, score), a pawn scale on
/// the left, move numbers along the bottom and a legend.
pub fn graph_svg(points: &[(String, i32)]) -> String {
    let (w, h) = (640.0, 250.0);
    let (left, right, top, bottom) = (34.0, 12.0, 12.0, 58.0);
    let plot_h = h - top - bottom;
    let mid = top + plot_h / 2.0;
    let n = points.len().max(1);
    let step = (w - left - right) / (n.max(2) - 1) as f64;
    let y_of = |cp: i32| {
        let c = if cp.abs() >= MATE_IN_MAX {
            GRAPH_CLIP * cp.signum()
        } else {
            cp.clamp(-GRAPH_CLIP, GRAPH_CLIP)
        };
        mid - (c as f64 / GRAPH_CLIP as f64) * (plot_h / 2.0)
    };
    let mut s = format!(
        "<svg class=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"evaluation graph\">"
    );
    s.push_str(&format!(
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{plot_h}\" fill=\"#fafafa\" stroke=\"#ccc\"/>",
        w - left - right
    ));
    // The pawn scale: +6, +3, 0, -3, -6 (scores beyond are drawn at the edge).
    let clip = GRAPH_CLIP / 100;
    for pawns in [clip, clip / 2, 0, -clip / 2, -clip] {
        let y = y_of(pawns * 100);
        let dash = if pawns == 0 { "4 3" } else { "1 3" };
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#999\" stroke-dasharray=\"{dash}\"/>\
<text class=\"y-label\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\" fill=\"#555\">{}</text>",
            w - right,
            left - 4.0,
            y + 3.5,
            if pawns > 0 { format!("+{pawns}") } else { pawns.to_string() }
        ));
    }
    let coords: Vec<(f64, f64)> = points
        .iter()
        .enumerate()
        .map(|(i, (_, cp))| (left + i as f64 * step, y_of(*cp)))
        .collect();
    // Move numbers along the bottom: at most about 16 labels, at each label's point.
    let every = n.div_ceil(16).max(1);
    for (i, ((label, _), (x, _))) in points.iter().zip(&coords).enumerate() {
        if i % every != 0 && i + 1 != n {
            continue;
        }
        let number = label.split_whitespace().next().unwrap_or("");
        s.push_str(&format!(
            "<line x1=\"{x:.1}\" y1=\"{0:.1}\" x2=\"{x:.1}\" y2=\"{1:.1}\" stroke=\"#999\"/>\
<text class=\"x-label\" x=\"{x:.1}\" y=\"{2:.1}\" font-size=\"10\" text-anchor=\"middle\" fill=\"#555\">{3}</text>",
            top + plot_h,
            top + plot_h + 4.0,
            top + plot_h + 15.0,
            escape(number)
        ));
    }
    if coords.len() > 1 {
        let line: Vec<String> = coords
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        s.push_str(&format!(
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1.5\"/>",
            line.join(" ")
        ));
    }
    for ((label, cp), (x, y)) in points.iter().zip(&coords) {
        s.push_str(&format!(
            "<circle class=\"point\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\" fill=\"{}\"><title>{} {}</title></circle>",
            if *cp >= 0 { WHITE_BETTER } else { BLACK_BETTER },
            escape(label),
            format::score(*cp)
        ));
    }
    // The legend.
    let ly = h - 14.0;
    s.push_str(&format!(
        "<g class=\"legend\" font-size=\"10\" fill=\"#333\" xml:space=\"preserve\">\
<text x=\"{left}\" y=\"{:.1}\">move </text>\
<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{WHITE_BETTER}\"/><text x=\"{:.1}\" y=\"{ly:.1}\">White better; </text>\
<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{BLACK_BETTER}\"/><text x=\"{:.1}\" y=\"{ly:.1}\">Black better; </text>\
<text x=\"{:.1}\" y=\"{ly:.1}\">scores in pawns, White's view (beyond \u{b1}{clip} at the edge)</text></g>",
        top + plot_h + 28.0,
        left + 3.0,
        ly - 3.5,
        left + 10.0,
        left + 96.0,
        ly - 3.5,
        left + 103.0,
        left + 188.0,
    ));
    s.push_str("</svg>");
    s
}

/// Point colours of the graph.
const WHITE_BETTER: &str = "#2980b9";
const BLACK_BETTER: &str = "#c0392b";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_name_their_square_and_letter() {
        let b = Board::from_fen("4k3/8/8/8/4P3/8/8/4K3 w - - 0 1").unwrap();
        let s = board_svg(&b, None, None);
        assert_eq!(s.matches("class=\"piece\"").count(), 3);
        assert!(s.contains("data-sq=\"e4\" data-piece=\"P\""), "{s}");
        assert!(s.contains("data-sq=\"e8\" data-piece=\"k\""), "{s}");
        assert_eq!(
            escape("<a href='x'>&\""),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;"
        );
    }
}
