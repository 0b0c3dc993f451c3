//! ICC level-2 units ("datagrams", DGs): the fields inside one `^Y( ... ^Y)`, as the
//! codec hands them over (the delimiters already taken off). ICC's published
//! description of its formats (`formats.txt`) defines the shape: a decimal DG
//! number, then blank-separated fields; a field with blanks is quoted in `{...}`
//! (never containing braces), and any text that may contain braces (tells,
//! kibitzes, explanations) in `^Y{ ... ^Y}`. Fields after the ones a reader expects
//! are ignored (the server may add fields over time).
//!
//! Reading never panics: a unit that cannot be read is a `DgError` naming the
//! problem. `encode` writes the same shape (the fake ICC server in the tests, and
//! round-trip property tests).

use thiserror::Error;

/// Control-Y, the byte that opens ICC's level-1 and level-2 delimiters.
pub const CTRL_Y: u8 = 0x19;

/// One level-2 unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram {
    pub number: u16,
    pub fields: Vec<String>,
}

/// Why a unit could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DgError {
    #[error("empty datagram")]
    Empty,
    #[error("datagram number '{0}' is not a number")]
    BadNumber(String),
    #[error("datagram {number}: a quoted field is not closed")]
    Unclosed { number: u16 },
    #[error("datagram {number}: field {index} is missing or malformed ({what})")]
    Field {
        number: u16,
        index: usize,
        what: &'static str,
    },
    #[error("datagram cut short: {0}")]
    Truncated(String),
}

impl Datagram {
    /// Reads the body of a unit (what lies between `^Y(` and `^Y)`).
    pub fn parse(body: &str) -> Result<Datagram, DgError> {
        let b = body.as_bytes();
        let mut i = 0;
        let skip_ws = |i: &mut usize| {
            while *i < b.len() && (b[*i] as char).is_ascii_whitespace() {
                *i += 1;
            }
        };
        skip_ws(&mut i);
        let start = i;
        while i < b.len() && !(b[i] as char).is_ascii_whitespace() {
            i += 1;
        }
        let word = &body[start..i];
        if word.is_empty() {
            return Err(DgError::Empty);
        }
        let number: u16 = word
            .parse()
            .map_err(|_| DgError::BadNumber(word.chars().take(20).collect()))?;
        let mut fields = Vec::new();
        loop {
            skip_ws(&mut i);
            if i >= b.len() {
                break;
            }
            if b[i] == CTRL_Y && b.get(i + 1) == Some(&b'{') {
                let from = i + 2;
                let mut j = from;
                while j + 1 < b.len() && !(b[j] == CTRL_Y && b[j + 1] == b'}') {
                    j += 1;
                }
                if j + 1 >= b.len() {
                    return Err(DgError::Unclosed { number });
                }
                fields.push(body[from..j].to_string());
                i = j + 2;
            } else if b[i] == b'{' {
                let from = i + 1;
                let Some(len) = body[from..].find('}') else {
                    return Err(DgError::Unclosed { number });
                };
                fields.push(body[from..from + len].to_string());
                i = from + len + 1;
            } else {
                let from = i;
                while i < b.len() && !(b[i] as char).is_ascii_whitespace() {
                    i += 1;
                }
                fields.push(body[from..i].to_string());
            }
        }
        Ok(Datagram { number, fields })
    }

    /// Field `i` as text ("" when absent).
    pub fn text(&self, i: usize) -> &str {
        self.fields.get(i).map_or("", |s| s.as_str())
    }

    /// Field `i`, which must be present.
    pub fn req(&self, i: usize) -> Result<&str, DgError> {
        self.fields
            .get(i)
            .map(|s| s.as_str())
            .ok_or(DgError::Field {
                number: self.number,
                index: i,
                what: "missing",
            })
    }

    /// Field `i` as a number.
    pub fn num<T: std::str::FromStr>(&self, i: usize) -> Result<T, DgError> {
        self.req(i)?.trim().parse().map_err(|_| DgError::Field {
            number: self.number,
            index: i,
            what: "not a number",
        })
    }

    /// Field `i` as a number, or `default` when absent or unreadable.
    pub fn num_or<T: std::str::FromStr>(&self, i: usize, default: T) -> T {
        self.num(i).unwrap_or(default)
    }
}

/// Writes a unit the way the server does: `^Y(N f1 {f 2} ^Y{text^Y}^Y)`. Empty
/// fields and fields with blanks are quoted with braces, fields with braces with
/// `^Y{ ^Y}`; control-Y itself cannot be carried and is dropped.
pub fn encode(number: u16, fields: &[&str]) -> String {
    let mut s = format!("\u{19}({number}");
    for f in fields {
        let f: String = f.chars().filter(|&c| c != '\u{19}').collect();
        s.push(' ');
        if f.contains('{') || f.contains('}') {
            s.push_str("\u{19}{");
            s.push_str(&f);
            s.push_str("\u{19}}");
        } else if f.is_empty() || f.chars().any(|c| c.is_ascii_whitespace()) {
            s.push('{');
            s.push_str(&f);
            s.push('}');
        } else {
            s.push_str(&f);
        }
    }
    s.push_str("\u{19})");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_plain_braced_and_control_y_quoted() {
        let d = Datagram::parse("31 alice {C TD} \u{19}{hi {there}; resign\u{19}} 1 {} trailing")
            .unwrap();
        assert_eq!(d.number, 31);
        assert_eq!(
            d.fields,
            vec!["alice", "C TD", "hi {there}; resign", "1", "", "trailing"]
        );
        assert_eq!(d.text(9), "");
        assert!(d.num::<u32>(0).is_err());
        assert_eq!(d.num::<u32>(3).unwrap(), 1);
    }

    #[test]
    fn broken_units_are_errors_that_name_the_problem() {
        assert_eq!(Datagram::parse(""), Err(DgError::Empty));
        assert!(matches!(
            Datagram::parse("x1 a"),
            Err(DgError::BadNumber(_))
        ));
        assert_eq!(
            Datagram::parse("31 bob {C"),
            Err(DgError::Unclosed { number: 31 })
        );
        assert_eq!(
            Datagram::parse("31 bob \u{19}{never closed"),
            Err(DgError::Unclosed { number: 31 })
        );
        let e = Datagram::parse("24 7").unwrap().num::<i64>(3).unwrap_err();
        assert!(e.to_string().contains("field 3"), "{e}");
    }

    #[test]
    fn encode_round_trips() {
        let fields = ["bob", "", "two words", "a}b", "{x}", "plain"];
        let s = encode(31, &fields);
        let body = s
            .strip_prefix("\u{19}(")
            .and_then(|x| x.strip_suffix("\u{19})"))
            .unwrap();
        assert_eq!(Datagram::parse(body).unwrap().fields, fields);
    }
}
