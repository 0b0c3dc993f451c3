//! Text files as the commands that read them (`input`, `read`, `book create`) expect
//! them: UTF-8, or Latin-1 where a file is not UTF-8, and nothing else. A binary file
//! (an executable given by mistake) is refused with one line instead of being run or
//! parsed, and text echoed in a message never carries raw control bytes.
//!
//! Tolerated: NUL bytes at the end of a line (some EPD files have them), tabs, form
//! feeds and a DOS end-of-file mark (`^Z`).

use std::borrow::Cow;
use std::path::Path;

/// Why bytes are not text: the offset of the first offending byte and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotText {
    pub offset: usize,
    pub byte: u8,
}

impl std::fmt::Display for NotText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not a text file (byte 0x{:02x} at offset {}; a binary file?)",
            self.byte, self.offset
        )
    }
}

/// A control byte no text file has (NUL only where it does not end a line).
fn bad_control(bytes: &[u8], i: usize) -> bool {
    match bytes[i] {
        b'\t' | b'\n' | b'\r' | 0x0c | 0x1a => false,
        0 => !matches!(bytes.get(i + 1), None | Some(0 | b'\r' | b'\n')),
        b => b < 0x20 || b == 0x7f,
    }
}

/// The first offending byte of `bytes`, if they are not text. Bytes that are not
/// UTF-8 are read as Latin-1, where 0x80..=0x9f are control characters too.
pub fn check(bytes: &[u8]) -> Result<(), NotText> {
    let utf8 = std::str::from_utf8(bytes).is_ok();
    for i in 0..bytes.len() {
        let b = bytes[i];
        if bad_control(bytes, i) || (!utf8 && (0x80..=0x9f).contains(&b)) {
            return Err(NotText { offset: i, byte: b });
        }
    }
    Ok(())
}

/// `bytes` as text (UTF-8, else Latin-1), or why they are not text.
pub fn decode(bytes: &[u8]) -> Result<Cow<'_, str>, NotText> {
    check(bytes)?;
    Ok(match std::str::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| b as char).collect()),
    })
}

/// Reads a text file; the error is one line naming the file.
pub fn read(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    decode(&bytes)
        .map(Cow::into_owned)
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Checks the start of a file that is read as a stream (`book create` on a large
/// PGN): refuses it when its first 64 KB are not text.
pub fn check_start(path: &Path) -> Result<(), String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(1 << 16);
    std::fs::File::open(path)
        .and_then(|f| f.take(1 << 16).read_to_end(&mut head))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // A multi-byte character cut at the end of the sample is still UTF-8.
    let valid = match std::str::from_utf8(&head) {
        Ok(_) => head.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => head.len(),
    };
    check(&head[..valid]).map_err(|e| format!("{}: {e}", path.display()))
}

/// Text made safe to print: control characters shown as `\u{..}` escapes, cut after
/// `max` characters with `...`.
pub fn printable(text: &str, max: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max {
            out.push_str("...");
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_latin1_and_binary() {
        assert_eq!(
            decode(b"e4 e5\r\n\tNf3\x0c\n").unwrap(),
            "e4 e5\r\n\tNf3\x0c\n"
        );
        assert_eq!(decode("Réti".as_bytes()).unwrap(), "Réti");
        // Latin-1: é as one byte.
        assert_eq!(decode(b"R\xe9ti").unwrap(), "Réti");
        // NUL at line ends (EPD files), not elsewhere.
        assert!(decode(b"8/8 w - -\0\n8/8 b - -\0").is_ok());
        assert_eq!(
            decode(b"\x7fELF\x02\x01\x01\0\0\0").unwrap_err(),
            NotText {
                offset: 0,
                byte: 0x7f
            }
        );
        assert_eq!(decode(b"ab\0cd").unwrap_err().offset, 2);
        assert_eq!(decode(b"ab\x1b[2J").unwrap_err().byte, 0x1b);
        // Not UTF-8 and a C1 control: not Latin-1 text either.
        assert_eq!(decode(b"a\x85b\xff").unwrap_err().byte, 0x85);
    }

    #[test]
    fn printable_escapes_and_cuts() {
        assert_eq!(printable("a\x1bb\0", 10), "a\\u{1b}b\\u{0}");
        assert_eq!(printable("abcdef", 3), "abc...");
        assert_eq!(printable("abc", 3), "abc");
    }
}
