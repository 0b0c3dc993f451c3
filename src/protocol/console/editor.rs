//! The board editor (`edit`) and the commands that set up a position (`setboard`,
//! `white`/`black`).

use super::*;

impl Con<'_> {
    // ----- board editor -----------------------------------------------------------

    pub(super) fn edit_tokens(&mut self, line: &str) {
        for tok in line.split_whitespace() {
            let Some(ed) = self.st.edit.as_mut() else {
                return;
            };
            match tok {
                "#" => ed.squares = [None; 64],
                "c" | "C" => ed.colour = !ed.colour,
                "." => {
                    self.edit_done();
                    return;
                }
                _ => {
                    let mut ch = tok.chars();
                    let kind = ch.next().and_then(PieceType::from_char);
                    let sq = Square::parse(ch.as_str());
                    match (kind, sq) {
                        (Some(k), Some(sq)) => {
                            ed.squares[sq.index()] = Some(Piece::new(ed.colour, k))
                        }
                        _ => {
                            let c = ed.colour.name();
                            self.emit(&format!(
                                "edit: '{tok}' is not a piece and a square; expected a piece and a square (qa3), #, c or . (placing {c} pieces)"
                            ));
                        }
                    }
                }
            }
        }
    }

    pub(super) fn edit_done(&mut self) {
        let Some(ed) = self.st.edit.take() else {
            return;
        };
        let fen = crate::chess::fen::placement(&ed.squares);
        // Castling rights where king and rook stand on their squares.
        let at = |s: &str, c: char| {
            Square::parse(s)
                .and_then(|sq| ed.squares[sq.index()])
                .is_some_and(|p| p.fen_char() == c)
        };
        let mut castle = String::new();
        if at("e1", 'K') && at("h1", 'R') {
            castle.push('K');
        }
        if at("e1", 'K') && at("a1", 'R') {
            castle.push('Q');
        }
        if at("e8", 'k') && at("h8", 'r') {
            castle.push('k');
        }
        if at("e8", 'k') && at("a8", 'r') {
            castle.push('q');
        }
        if castle.is_empty() {
            castle.push('-');
        }
        let stm = self.s.game.side_to_move().char();
        let fen = format!("{fen} {stm} {castle} - 0 {}", self.s.game.move_number());
        match self.s.game.set_fen(&fen) {
            Ok(()) => {
                self.emit(&format!("edit: {fen}"));
                self.restart_analysis();
            }
            Err(e) => self.emit(&format!("edit: {e}; the position is unchanged")),
        }
    }
}

pub(super) fn cmd_edit(c: &mut Con, _: &str, rest: &str) -> Res {
    c.s.game.abort_search();
    let mut squares = [None; 64];
    for sq in Square::all() {
        squares[sq.index()] = c.s.game.board().piece_at(sq);
    }
    c.st.edit = Some(Editor {
        squares,
        colour: Color::White,
    });
    c.emit("edit: pieces and squares (qa3), # clears the board, c switches to Black, . leaves");
    c.edit_tokens(rest);
    Ok(())
}

pub(super) fn cmd_setboard(c: &mut Con, _: &str, rest: &str) -> Res {
    c.s.game.set_fen(rest).map_err(|e| e.to_string())?;
    c.restart_analysis();
    Ok(())
}

pub(super) fn cmd_side(c: &mut Con, name: &str, _: &str) -> Res {
    let want = if name == "white" {
        Color::White
    } else {
        Color::Black
    };
    if c.s.game.side_to_move() != want {
        let fen = c.s.game.board().to_fen();
        let f: Vec<&str> = fen.split_whitespace().collect();
        let flipped = format!(
            "{} {} {} - {} {}",
            f[0],
            want.char(),
            f[2],
            f.get(4).unwrap_or(&"0"),
            f.get(5).unwrap_or(&"1")
        );
        let b = Board::from_fen(&flipped)
            .map_err(|e| format!("cannot give the move to {}: {e}", want.name()))?;
        c.s.game.set_position(b);
    }
    c.st.force = false;
    c.s.game.set_engine_side(Some(!want));
    c.emit(&format!(
        "{} to move; kibitzer plays {}",
        want.name(),
        (!want).name()
    ));
    c.restart_analysis();
    Ok(())
}
