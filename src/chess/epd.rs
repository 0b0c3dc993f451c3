//! EPD lines: a position (four FEN fields, optionally the two clocks) followed by
//! operations `opcode operand...;`. Used by perft suites (`;D5 4865609`), test suites
//! (`bm Qg6; id "WAC.001";`) and anything else that stores positions with data.

use super::board::Board;
use super::fen::FenError;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EpdError {
    #[error("EPD line has fewer than four position fields")]
    TooShort,
    #[error("bad position: {0}")]
    Fen(#[from] FenError),
    #[error("unterminated string in operation '{0}'")]
    Unterminated(String),
}

/// One EPD record.
#[derive(Debug, Clone)]
pub struct Epd {
    pub board: Board,
    /// Operations in order: opcode and operands (quotes removed from strings).
    pub ops: Vec<(String, Vec<String>)>,
}

impl Epd {
    /// Parses one line. Comments (`#` at the start) and blank lines are the caller's
    /// business.
    pub fn parse(line: &str) -> Result<Epd, EpdError> {
        let line = line.trim();
        // Position part: up to the first ';' or the first operation.
        let mut fields = Vec::new();
        let mut rest = line;
        for _ in 0..4 {
            rest = rest.trim_start();
            let end = rest
                .find(|c: char| c.is_whitespace() || c == ';')
                .unwrap_or(rest.len());
            if end == 0 {
                return Err(EpdError::TooShort);
            }
            fields.push(&rest[..end]);
            rest = &rest[end..];
        }
        // Optional clocks: up to two integers.
        for _ in 0..2 {
            let r = rest.trim_start();
            let end = r
                .find(|c: char| c.is_whitespace() || c == ';')
                .unwrap_or(r.len());
            if end > 0 && r[..end].bytes().all(|b| b.is_ascii_digit()) {
                fields.push(&r[..end]);
                rest = &r[end..];
            } else {
                break;
            }
        }
        let board = Board::from_fen(&fields.join(" "))?;
        let ops = parse_ops(rest)?;
        Ok(Epd { board, ops })
    }

    /// Operands of the first operation named `opcode`.
    pub fn op(&self, opcode: &str) -> Option<&[String]> {
        self.ops
            .iter()
            .find(|(o, _)| o == opcode)
            .map(|(_, v)| v.as_slice())
    }

    /// The first operand of `opcode`, if any.
    pub fn op_str(&self, opcode: &str) -> Option<&str> {
        self.op(opcode).and_then(|v| v.first()).map(|s| s.as_str())
    }
}

fn parse_ops(text: &str) -> Result<Vec<(String, Vec<String>)>, EpdError> {
    let mut ops = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut cur = String::new();
    let flush_token = |cur: &mut String, tokens: &mut Vec<String>| {
        if !cur.is_empty() {
            tokens.push(std::mem::take(cur));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                flush_token(&mut cur, &mut tokens);
                let mut s = String::new();
                let mut closed = false;
                for c2 in chars.by_ref() {
                    if c2 == '"' {
                        closed = true;
                        break;
                    }
                    s.push(c2);
                }
                if !closed {
                    return Err(EpdError::Unterminated(s));
                }
                tokens.push(s);
            }
            ';' => {
                flush_token(&mut cur, &mut tokens);
                if !tokens.is_empty() {
                    let op = tokens.remove(0);
                    ops.push((op, std::mem::take(&mut tokens)));
                }
            }
            c if c.is_whitespace() || c.is_control() => flush_token(&mut cur, &mut tokens),
            c => cur.push(c),
        }
    }
    flush_token(&mut cur, &mut tokens);
    if !tokens.is_empty() {
        let op = tokens.remove(0);
        ops.push((op, tokens));
    }
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perft_and_test_suite_forms() {
        let e = Epd::parse("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66").unwrap();
        assert_eq!(e.op_str("D2"), Some("66"));
        let e = Epd::parse("8/5kpp/8/8/1p3P2/6PP/r3KP2/1R1q4 w - -  0 1; D4 23441 ").unwrap();
        assert_eq!(e.op_str("D4"), Some("23441"));
        let e = Epd::parse(
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#,
        )
        .unwrap();
        assert_eq!(e.op_str("bm"), Some("Qg6"));
        assert_eq!(e.op_str("id"), Some("WAC.001"));
        assert!(Epd::parse("8/8 w").is_err());
    }
}
