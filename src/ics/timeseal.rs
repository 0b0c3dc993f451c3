//! FICS timeseal, built in: every line the client sends carries the client's own
//! timestamp, so the server charges thinking time as the client measured it and not
//! the network's lag. The client announces itself with an encoded hello whose first
//! word picks the version: `TIMESTAMP|` (timeseal 1) or `TIMESEAL2|` (timeseal 2,
//! whose server pings with `[G]\0` and expects an encoded `\x02 9` reply at once).
//!
//! Encoding of one line (written from the server-side decoder's definition): append
//! `\x18<timestamp>\x19`, pad with `1` to a multiple of 12 bytes, swap bytes 0/11,
//! 2/9 and 4/7 of every 12-byte block, then for byte `i` compute
//! `((b | 0x80) ^ KEY[(i + offset) % 50]) - 32`, append `0x80 | offset` and a
//! newline. Every encoded byte lies in `0x60..=0xDF`, so nothing in it can be read
//! as a line end or a telnet command.

/// The key of the scrambling (from the protocol's definition; not a secret).
pub const KEY: &[u8; 50] = b"Timestamp (FICS) v1.0 - programmed by Henrik Gram.";

/// Which timeseal the client speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V1,
    V2,
}

impl Version {
    pub fn parse(text: &str) -> Option<Option<Version>> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "off" | "no" | "0" | "false" | "none" => None,
            "v1" | "1" | "timestamp" => Some(Version::V1),
            "v2" | "2" | "on" | "true" | "yes" | "timeseal2" => Some(Version::V2),
            _ => return None,
        })
    }
}

/// The hello line (before encoding) that announces `version`.
pub fn hello(version: Version, client: &str) -> String {
    let client: String = client
        .chars()
        .filter(|c| c.is_ascii_graphic() && *c != '|')
        .collect();
    match version {
        Version::V1 => format!("TIMESTAMP|{client}|kibitzer|"),
        Version::V2 => format!("TIMESEAL2|{client}|kibitzer|"),
    }
}

/// The reply to a timeseal 2 ping, before encoding.
pub const PING_REPLY: &str = "\u{2}9";

/// Encodes one line (without its newline) stamped with `timestamp` (milliseconds on
/// the client's clock), scrambled from `offset` (0..=127, any value works). The
/// result ends with a newline and is ready to be written.
pub fn encode(line: &str, timestamp: u32, offset: u8) -> Vec<u8> {
    let offset = offset & 0x7f;
    let mut buf: Vec<u8> = line.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    buf.push(0x18);
    buf.extend_from_slice(timestamp.to_string().as_bytes());
    buf.push(0x19);
    while buf.len() % 12 != 0 {
        buf.push(b'1');
    }
    for block in buf.chunks_exact_mut(12) {
        block.swap(0, 11);
        block.swap(2, 9);
        block.swap(4, 7);
    }
    for (i, b) in buf.iter_mut().enumerate() {
        let k = KEY[(i + offset as usize) % KEY.len()];
        *b = ((*b | 0x80) ^ k).wrapping_sub(32);
    }
    buf.push(0x80 | offset);
    buf.push(b'\n');
    buf
}

/// Decodes one encoded line (without its newline), the way a server does: the text
/// and the timestamp, or `None` when it is not timeseal data. Used by the test
/// suite's fake server and to check the encoder.
pub fn decode(data: &[u8]) -> Option<(String, u32)> {
    let (&last, body) = data.split_last()?;
    if body.is_empty() || body.len() % 12 != 0 {
        return None;
    }
    let offset = (last & 0x7f) as usize;
    let mut buf: Vec<u8> = body
        .iter()
        .enumerate()
        .map(|(i, &b)| (b.wrapping_add(32) ^ KEY[(i + offset) % KEY.len()]) & 0x7f)
        .collect();
    for block in buf.chunks_exact_mut(12) {
        block.swap(0, 11);
        block.swap(2, 9);
        block.swap(4, 7);
    }
    let start = buf.iter().position(|&b| b == 0x18)?;
    let end = start + 1 + buf[start + 1..].iter().position(|&b| b == 0x19)?;
    let stamp: u32 = std::str::from_utf8(&buf[start + 1..end])
        .ok()?
        .parse()
        .ok()?;
    if buf[end + 1..].iter().any(|&b| b != b'1') {
        return None;
    }
    Some((String::from_utf8_lossy(&buf[..start]).into_owned(), stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_byte_range() {
        for (i, text) in ["", "e2e4", "tell foo hello there, how are you?", "\u{2}9"]
            .iter()
            .enumerate()
        {
            let enc = encode(text, 123_456 + i as u32, (i * 37) as u8);
            assert_eq!(*enc.last().unwrap(), b'\n');
            let body = &enc[..enc.len() - 1];
            assert!(body[..body.len() - 1]
                .iter()
                .all(|&b| (0x60..=0xdf).contains(&b)));
            assert_eq!(decode(body), Some((text.to_string(), 123_456 + i as u32)));
        }
    }
}
