//! Move notation resolved against a board: coordinate (`e2e4`, `e7e8q`), the forms chess
//! servers send (`P/e2-e4`, `o-o`, `e7e8=Q`, `P/g7-h8` without its piece), and SAN in
//! (lenient: `Nf3+`, `0-0`, `e8=Q`, `e8Q`, `Ng1f3`, redundant disambiguation) and out
//! (minimal disambiguation, `+`, `#`). Every parser returns a legal move or an error
//! naming the text and why it was refused; none panics on any input.

use super::attacks::piece_attacks;
use super::board::Board;
use super::moves::{Move, MoveList};
use super::types::*;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    #[error("'{text}' is not a move in any notation kibitzer reads")]
    Syntax { text: String },
    #[error("'{text}' is illegal here: {why}")]
    Illegal { text: String, why: String },
    #[error("'{text}' is ambiguous: it could be {candidates}")]
    Ambiguous { text: String, candidates: String },
    #[error("'{text}' promotes but names no piece (add =Q, =R, =B or =N)")]
    PromotionMissing { text: String },
    #[error(
        "'{text}' is a promotion whose piece the server did not say; take it from the SAN field"
    )]
    PromotionUnknown { text: String },
}

fn illegal(text: &str, why: impl Into<String>) -> MoveError {
    MoveError::Illegal {
        text: text.to_string(),
        why: why.into(),
    }
}

fn syntax(text: &str) -> MoveError {
    MoveError::Syntax {
        text: text.to_string(),
    }
}

fn promo_from_char(c: char) -> Option<PieceType> {
    match c.to_ascii_uppercase() {
        'N' => Some(PieceType::Knight),
        'B' => Some(PieceType::Bishop),
        'R' => Some(PieceType::Rook),
        'Q' => Some(PieceType::Queen),
        _ => None,
    }
}

/// Strips check, mate and annotation suffixes (`+`, `#`, `!`, `?`, `e.p.`).
fn strip_suffixes(s: &str) -> &str {
    let mut s = s.trim();
    loop {
        let before = s.len();
        for suffix in ["e.p.", "ep", "+", "#", "!", "?"] {
            if let Some(rest) = s.strip_suffix(suffix) {
                // "ep" only as a suffix after a square, never a whole move.
                if suffix == "ep" && rest.len() < 2 {
                    continue;
                }
                s = rest.trim_end();
            }
        }
        if s.len() == before {
            return s;
        }
    }
}

impl Board {
    /// Resolves a move given in coordinate notation (`e2e4`, `e7e8q`, `e1g1`; castling
    /// also as king-takes-rook `e1h1`).
    pub fn parse_uci(&self, text: &str) -> Result<Move, MoveError> {
        let t = text.trim();
        let b = t.as_bytes();
        if !(4..=5).contains(&b.len()) || !t.is_ascii() {
            return Err(syntax(text));
        }
        let from = Square::parse(&t[0..2]).ok_or_else(|| syntax(text))?;
        let to = Square::parse(&t[2..4]).ok_or_else(|| syntax(text))?;
        let promo = match b.get(4) {
            None => None,
            Some(&c) => Some(promo_from_char(c as char).ok_or_else(|| syntax(text))?),
        };
        self.resolve_coordinates(text, from, to, promo, false)
    }

    /// Finds the legal move from `from` to `to` with the given promotion piece, or
    /// explains why there is none. `promo_unknown` marks server moves whose promotion
    /// piece was left out.
    fn resolve_coordinates(
        &self,
        text: &str,
        from: Square,
        mut to: Square,
        promo: Option<PieceType>,
        promo_unknown: bool,
    ) -> Result<Move, MoveError> {
        let us = self.side_to_move();
        let Some(piece) = self.piece_at(from) else {
            return Err(illegal(text, format!("there is no piece on {from}")));
        };
        if piece.color() != us {
            return Err(illegal(
                text,
                format!(
                    "the piece on {from} is {}'s and it is {} to move",
                    piece.color().name(),
                    us.name()
                ),
            ));
        }
        // King-takes-rook castling (e1h1, e1a1) as some GUIs and servers write it.
        if piece.kind() == PieceType::King
            && self.piece_at(to) == Some(Piece::new(us, PieceType::Rook))
            && from == Square::E1.relative(us)
        {
            if to == Square::H1.relative(us) {
                to = Square::G1.relative(us);
            } else if to == Square::A1.relative(us) {
                to = Square::C1.relative(us);
            }
        }
        let moves = self.legal_moves();
        let mut found: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| m.from() == from && m.to() == to)
            .collect();
        if found.is_empty() {
            let reachable = match piece.kind() {
                PieceType::Pawn => true,
                k => piece_attacks(k, from, self.occupied()).contains(to),
            };
            let why = if self.in_check() {
                format!("{} is in check and this does not answer it", us.name())
            } else if reachable && piece.kind() != PieceType::Pawn {
                "it would leave the king in check".to_string()
            } else {
                format!(
                    "the {} on {from} cannot move to {to}",
                    piece_name(piece.kind())
                )
            };
            return Err(illegal(text, why));
        }
        if found.len() > 1 {
            // Only promotions give several moves for one from/to pair.
            if promo_unknown {
                return Err(MoveError::PromotionUnknown {
                    text: text.to_string(),
                });
            }
            let Some(p) = promo else {
                return Err(MoveError::PromotionMissing {
                    text: text.to_string(),
                });
            };
            found.retain(|m| m.promotion_piece() == Some(p));
            return found
                .first()
                .copied()
                .ok_or_else(|| illegal(text, "a pawn cannot promote to that piece"));
        }
        let m = found[0];
        if promo.is_some() && !m.is_promotion() {
            return Err(illegal(
                text,
                "names a promotion piece but is not a promotion",
            ));
        }
        Ok(m)
    }

    /// Resolves a move in the verbose form servers put in style-12 lines: `P/e2-e4`,
    /// `N/g1-f3`, `P/e7-e8=Q`, `o-o`, `o-o-o`. A promotion without its piece
    /// (`P/g7-h8`, as some servers write it) gives `MoveError::PromotionUnknown`.
    pub fn parse_verbose(&self, text: &str) -> Result<Move, MoveError> {
        let t = strip_suffixes(text);
        match t {
            "o-o" | "O-O" | "0-0" => return self.parse_castle(text, true),
            "o-o-o" | "O-O-O" | "0-0-0" => return self.parse_castle(text, false),
            _ => {}
        }
        if !t.is_ascii() {
            return Err(syntax(text));
        }
        let (kind, rest) = match t.split_once('/') {
            Some((p, rest)) if p.len() == 1 => (
                PieceType::from_char(p.chars().next().unwrap_or(' '))
                    .ok_or_else(|| syntax(text))?,
                rest,
            ),
            _ => return Err(syntax(text)),
        };
        let (squares, promo) = match rest.split_once('=') {
            Some((sq, p)) => {
                let mut pc = p.chars();
                let c = pc.next().ok_or_else(|| syntax(text))?;
                if pc.next().is_some() {
                    return Err(syntax(text));
                }
                (sq, Some(promo_from_char(c).ok_or_else(|| syntax(text))?))
            }
            None => (rest, None),
        };
        let (from, to) = squares
            .split_once('-')
            .or_else(|| squares.split_once('x'))
            .ok_or_else(|| syntax(text))?;
        let from = Square::parse(from).ok_or_else(|| syntax(text))?;
        let to = Square::parse(to).ok_or_else(|| syntax(text))?;
        if let Some(p) = self.piece_at(from) {
            if p.kind() != kind && p.color() == self.side_to_move() {
                return Err(illegal(
                    text,
                    format!(
                        "the piece on {from} is a {}, not a {}",
                        piece_name(p.kind()),
                        piece_name(kind)
                    ),
                ));
            }
        }
        self.resolve_coordinates(text, from, to, promo, promo.is_none())
    }

    fn parse_castle(&self, text: &str, king_side: bool) -> Result<Move, MoveError> {
        let us = self.side_to_move();
        let to = if king_side { Square::G1 } else { Square::C1 }.relative(us);
        let from = Square::E1.relative(us);
        self.legal_moves()
            .iter()
            .copied()
            .find(|m| m.is_castle() && m.from() == from && m.to() == to)
            .ok_or_else(|| {
                let side = if king_side { "king" } else { "queen" };
                let right = if king_side {
                    CastleRights::king_side(us)
                } else {
                    CastleRights::queen_side(us)
                };
                if !self.castling().has(right) {
                    illegal(
                        text,
                        format!("{} has no right to castle on the {side} side", us.name()),
                    )
                } else if self.in_check() {
                    illegal(text, "cannot castle out of check")
                } else {
                    illegal(text, "the squares between are occupied or attacked")
                }
            })
    }

    /// Resolves a move in Standard Algebraic Notation, leniently: check and annotation
    /// suffixes, `0-0`, `e8Q` and `e8=Q`, redundant or full disambiguation (`Ng1f3`),
    /// `x` anywhere it makes sense.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let t = strip_suffixes(text);
        match t {
            "O-O" | "0-0" | "o-o" => return self.parse_castle(text, true),
            "O-O-O" | "0-0-0" | "o-o-o" => return self.parse_castle(text, false),
            "" | "--" | "Z0" | "0000" => return Err(syntax(text)),
            _ => {}
        }
        if !t.is_ascii() || t.len() > 10 {
            return Err(syntax(text));
        }
        let mut chars: Vec<char> = t
            .chars()
            .filter(|&c| c != 'x' && c != '-' && c != ':')
            .collect();
        // Piece letter (upper case; a lower-case letter is a file).
        let kind = match chars.first() {
            Some(&c) if "NBRQK".contains(c) => {
                chars.remove(0);
                PieceType::from_char(c).unwrap_or(PieceType::Pawn)
            }
            Some('P') => {
                chars.remove(0);
                PieceType::Pawn
            }
            _ => PieceType::Pawn,
        };
        // Promotion suffix: `=Q`, `Q`, `(Q)`, `/Q`.
        if chars.last() == Some(&')') {
            chars.pop();
        }
        let mut promo = None;
        if let Some(&last) = chars.last() {
            if let Some(p) = promo_from_char(last) {
                // A trailing lower-case 'b' after a rank digit is a bishop promotion;
                // anything else must be upper case or follow '='.
                let prev = chars.len().checked_sub(2).map(|i| chars[i]);
                let explicit = matches!(prev, Some('=') | Some('/') | Some('('));
                if last.is_ascii_uppercase() || explicit || matches!(prev, Some('1'..='8')) {
                    promo = Some(p);
                    chars.pop();
                    if explicit {
                        chars.pop();
                    }
                }
            }
        }
        chars.retain(|&c| c != '=' && c != '(' && c != ')' && c != '/');
        if chars.len() < 2 {
            return Err(syntax(text));
        }
        let to_str: String = chars[chars.len() - 2..].iter().collect();
        let to = Square::parse(&to_str).ok_or_else(|| syntax(text))?;
        let mut from_file = None;
        let mut from_rank = None;
        for &c in &chars[..chars.len() - 2] {
            if let Some(f) = File::from_char(c) {
                if from_file.is_some() {
                    return Err(syntax(text));
                }
                from_file = Some(f);
            } else if let Some(r) = Rank::from_char(c) {
                if from_rank.is_some() {
                    return Err(syntax(text));
                }
                from_rank = Some(r);
            } else {
                return Err(syntax(text));
            }
        }
        if promo.is_some() && kind != PieceType::Pawn {
            return Err(syntax(text));
        }
        let us = self.side_to_move();
        let moves = self.legal_moves();
        let mut cands: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| {
                m.to() == to
                    && self.piece_at(m.from()).map(|p| p.kind()) == Some(kind)
                    && from_file.is_none_or(|f| m.from().file() == f)
                    && from_rank.is_none_or(|r| m.from().rank() == r)
            })
            .collect();
        if cands.is_empty() {
            let who = self.pieces(us, kind);
            let why = if who.is_empty() {
                format!("{} has no {}", us.name(), piece_name(kind))
            } else if self.in_check() {
                format!("{} is in check and this does not answer it", us.name())
            } else {
                format!("no {} of {} can move to {to}", piece_name(kind), us.name())
            };
            return Err(illegal(text, why));
        }
        if cands.iter().any(|m| m.is_promotion()) {
            let Some(p) = promo else {
                return Err(MoveError::PromotionMissing {
                    text: text.to_string(),
                });
            };
            cands.retain(|m| m.promotion_piece() == Some(p));
        } else if promo.is_some() {
            return Err(illegal(
                text,
                "names a promotion piece but is not a promotion",
            ));
        }
        match cands.len() {
            1 => Ok(cands[0]),
            0 => Err(illegal(text, "a pawn cannot promote to that piece")),
            _ => Err(MoveError::Ambiguous {
                text: text.to_string(),
                candidates: cands
                    .iter()
                    .map(|m| self.san(*m))
                    .collect::<Vec<_>>()
                    .join(" or "),
            }),
        }
    }

    /// Resolves a move in any notation kibitzer reads: coordinate, server verbose, or
    /// SAN. The error is the one from the notation the text looks most like.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let t = text.trim();
        if t.contains('/') && !t.contains('(') {
            return self.parse_verbose(t);
        }
        let looks_coord = t.len() >= 4
            && t.is_ascii()
            && Square::parse(&t[0..2]).is_some()
            && Square::parse(&t[2..4]).is_some();
        if looks_coord {
            match self.parse_uci(t) {
                Ok(m) => return Ok(m),
                Err(e @ MoveError::Syntax { .. }) => {
                    return self.parse_san(t).map_err(|_| e);
                }
                Err(e) => return Err(e),
            }
        }
        self.parse_san(t)
    }

    /// SAN of a legal move: minimal disambiguation, `=Q` for promotions, `+`/`#`.
    pub fn san(&self, m: Move) -> String {
        let mut s = self.san_without_check(m);
        let mut b = self.clone();
        b.make_move(m);
        if b.in_check() {
            s.push(if b.has_legal_move() { '+' } else { '#' });
        }
        s
    }

    /// SAN without the check or mate suffix.
    pub fn san_without_check(&self, m: Move) -> String {
        if m.is_castle() {
            return if m.to().file() == File::G {
                "O-O".into()
            } else {
                "O-O-O".into()
            };
        }
        let from = m.from();
        let to = m.to();
        let Some(piece) = self.piece_at(from) else {
            return m.to_uci();
        };
        let mut s = String::with_capacity(8);
        if piece.kind() == PieceType::Pawn {
            if m.is_capture() {
                s.push(from.file().char());
                s.push('x');
            }
            s.push_str(&to.to_string());
            if let Some(p) = m.promotion_piece() {
                s.push('=');
                s.push(p.upper_char());
            }
            return s;
        }
        s.push(piece.kind().upper_char());
        if piece.kind() != PieceType::King {
            let mut list = MoveList::new();
            self.generate::<true, true>(&mut list);
            let others: Vec<Square> = list
                .iter()
                .filter(|o| {
                    o.to() == to && o.from() != from && self.piece_at(o.from()) == Some(piece)
                })
                .map(|o| o.from())
                .collect();
            if !others.is_empty() {
                if others.iter().all(|o| o.file() != from.file()) {
                    s.push(from.file().char());
                } else if others.iter().all(|o| o.rank() != from.rank()) {
                    s.push(from.rank().char());
                } else {
                    s.push_str(&from.to_string());
                }
            }
        }
        if m.is_capture() {
            s.push('x');
        }
        s.push_str(&to.to_string());
        s
    }

    /// The server's verbose form of a move (`P/e2-e4`, `o-o`, `P/e7-e8=Q`).
    pub fn verbose(&self, m: Move) -> String {
        if m.is_castle() {
            return if m.to().file() == File::G {
                "o-o".into()
            } else {
                "o-o-o".into()
            };
        }
        let kind = self
            .piece_at(m.from())
            .map_or(PieceType::Pawn, |p| p.kind());
        let mut s = format!("{}/{}-{}", kind.upper_char(), m.from(), m.to());
        if let Some(p) = m.promotion_piece() {
            s.push('=');
            s.push(p.upper_char());
        }
        s
    }
}

/// English name of a piece type.
pub fn piece_name(k: PieceType) -> &'static str {
    match k {
        PieceType::Pawn => "pawn",
        PieceType::Knight => "knight",
        PieceType::Bishop => "bishop",
        PieceType::Rook => "rook",
        PieceType::Queen => "queen",
        PieceType::King => "king",
    }
}
