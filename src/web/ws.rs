//! `/ws`: the page's live feed as a WebSocket (RFC 6455), server to browser only.
//! The server sends the same JSON events as `/events` (the changed sections) as text
//! frames, the newest state only and at most one per interval, a ping every 15 s,
//! and a close frame when the stream's lifetime is over (the page reconnects). What
//! the browser sends is read only to answer pings and closes: any data frame, a
//! frame over 125 bytes, an unmasked frame or a fragment closes the connection. A
//! write that does not finish within 10 s (a client that stopped reading) ends it.
//!
//! The page uses this rather than `/events` because a browser's pending event-stream
//! request keeps a headless browser's virtual clock from running, where a WebSocket
//! does not (the test suite renders the page that way).

use super::feed::{Cursor, Rendered};
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::watch;

const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Standard base64 with padding.
pub fn base64(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The `Sec-WebSocket-Accept` answer to a key.
pub fn accept_key(key: &str) -> String {
    let d = ring::digest::digest(
        &ring::digest::SHA1_FOR_LEGACY_USE_ONLY,
        format!("{}{GUID}", key.trim()).as_bytes(),
    );
    base64(d.as_ref())
}

/// A frame header and payload from the server (never masked).
fn frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(payload.len() + 10);
    f.push(0x80 | opcode);
    match payload.len() {
        n if n < 126 => f.push(n as u8),
        n if n <= u16::MAX as usize => {
            f.push(126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    f.extend_from_slice(payload);
    f
}

/// What the browser sent.
#[derive(Debug, PartialEq, Eq)]
pub enum Incoming {
    Ping(Vec<u8>),
    Pong,
    Close,
    /// Anything this server does not take (data, fragments, unmasked or long
    /// frames), with the close code to answer.
    Refused(u16),
}

/// Reads one client frame (control frames only are expected).
pub async fn read_frame<R: AsyncRead + Unpin>(r: &mut R) -> std::io::Result<Incoming> {
    let mut h = [0u8; 2];
    r.read_exact(&mut h).await?;
    let fin = h[0] & 0x80 != 0;
    let opcode = h[0] & 0x0f;
    let masked = h[1] & 0x80 != 0;
    let len = (h[1] & 0x7f) as usize;
    if !masked {
        return Ok(Incoming::Refused(1002));
    }
    if len > 125 || !fin {
        return Ok(Incoming::Refused(1009));
    }
    let mut mask = [0u8; 4];
    r.read_exact(&mut mask).await?;
    let mut payload = vec![0u8; len];
    r.read_exact(&mut payload).await?;
    for (i, b) in payload.iter_mut().enumerate() {
        *b ^= mask[i % 4];
    }
    Ok(match opcode {
        0x8 => Incoming::Close,
        0x9 => Incoming::Ping(payload),
        0xA => Incoming::Pong,
        _ => Incoming::Refused(1003),
    })
}

/// Checks the upgrade request; the 101 answer and the key, or a 4xx answer.
pub fn handshake<B>(req: &Request<B>) -> Result<Response<()>, (StatusCode, String)> {
    let h = req.headers();
    let has = |name: header::HeaderName, word: &str| {
        h.get_all(name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.split(',').any(|p| p.trim().eq_ignore_ascii_case(word)))
        })
    };
    if !has(header::UPGRADE, "websocket") || !has(header::CONNECTION, "upgrade") {
        return Err((
            StatusCode::BAD_REQUEST,
            "/ws is a WebSocket: send Upgrade: websocket and Connection: Upgrade\n".into(),
        ));
    }
    if h.get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v.as_bytes() != b"13")
    {
        return Err((
            StatusCode::UPGRADE_REQUIRED,
            "only WebSocket version 13 is spoken\n".into(),
        ));
    }
    let key = h
        .get(header::SEC_WEBSOCKET_KEY)
        .and_then(|v| v.to_str().ok())
        .filter(|k| k.len() == 24)
        .ok_or((
            StatusCode::BAD_REQUEST,
            "Sec-WebSocket-Key is missing or not 16 bytes in base64\n".to_string(),
        ))?;
    let mut r = Response::new(());
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let hs = r.headers_mut();
    hs.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    hs.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    let accept = HeaderValue::from_str(&accept_key(key))
        .map_err(|_| (StatusCode::BAD_REQUEST, "bad key\n".to_string()))?;
    hs.insert(header::SEC_WEBSOCKET_ACCEPT, accept);
    Ok(r)
}

/// Reads the browser's frames until a ping (its payload) or the end (`None`: a
/// close, an error, or a frame refused); gives the reader back.
async fn next_ping<R: AsyncRead + Unpin>(mut rd: R) -> (Option<Vec<u8>>, R) {
    loop {
        match read_frame(&mut rd).await {
            Ok(Incoming::Ping(p)) => return (Some(p), rd),
            Ok(Incoming::Pong) => continue,
            _ => return (None, rd),
        }
    }
}

async fn send<W: AsyncWrite + Unpin>(w: &mut W, bytes: &[u8]) -> bool {
    matches!(
        tokio::time::timeout(WRITE_TIMEOUT, w.write_all(bytes)).await,
        Ok(Ok(()))
    )
}

/// Serves one upgraded connection until the client leaves, the lifetime ends or a
/// write stalls.
pub async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    io: S,
    mut rx: watch::Receiver<Arc<Rendered>>,
    lifetime: Duration,
) {
    let (rd, mut wr) = tokio::io::split(io);
    let end = Instant::now() + lifetime;
    let mut cursor = Cursor::default();
    // The current state at once.
    let r = Arc::clone(&rx.borrow_and_update());
    if let Some(e) = cursor.event(&r) {
        if !send(&mut wr, &frame(0x1, e.as_bytes())).await {
            return;
        }
    }
    let mut reading = Box::pin(next_ping(rd));
    loop {
        tokio::select! {
            changed = rx.changed() => {
                if changed.is_err() {
                    let _ = send(&mut wr, &frame(0x8, &1001u16.to_be_bytes())).await;
                    return;
                }
                let r = Arc::clone(&rx.borrow_and_update());
                if let Some(e) = cursor.event(&r) {
                    if !send(&mut wr, &frame(0x1, e.as_bytes())).await {
                        return;
                    }
                }
            }
            (ping, rd) = &mut reading => match ping {
                Some(p) => {
                    if !send(&mut wr, &frame(0xA, &p)).await {
                        return;
                    }
                    reading = Box::pin(next_ping(rd));
                }
                None => {
                    let _ = send(&mut wr, &frame(0x8, &1000u16.to_be_bytes())).await;
                    return;
                }
            },
            _ = tokio::time::sleep(Duration::from_secs(15)) => {
                if !send(&mut wr, &frame(0x9, b"")).await {
                    return;
                }
            }
            _ = tokio::time::sleep_until(end.into()) => {
                let _ = send(&mut wr, &frame(0x8, &1001u16.to_be_bytes())).await;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_the_rfc_example_key() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        // RFC 6455, section 1.3.
        assert_eq!(
            accept_key("dGhlIHNhbXBsZSBub25jZQ=="),
            "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
        );
    }

    #[test]
    fn frames_have_the_right_length_forms() {
        assert_eq!(frame(0x1, b"hi"), vec![0x81, 2, b'h', b'i']);
        let f = frame(0x1, &[0u8; 300]);
        assert_eq!(&f[..4], &[0x81, 126, 1, 44]);
        let f = frame(0x1, &[0u8; 70_000]);
        assert_eq!(f[1], 127);
        assert_eq!(f.len(), 70_000 + 10);
    }

    #[tokio::test]
    async fn client_frames_are_unmasked_and_data_is_refused() {
        // A masked ping with payload "ab", mask 1 2 3 4.
        let bytes = [0x89u8, 0x82, 1, 2, 3, 4, b'a' ^ 1, b'b' ^ 2];
        let mut r = &bytes[..];
        assert_eq!(
            read_frame(&mut r).await.unwrap(),
            Incoming::Ping(b"ab".to_vec())
        );
        let unmasked = [0x89u8, 0x00];
        assert_eq!(
            read_frame(&mut &unmasked[..]).await.unwrap(),
            Incoming::Refused(1002)
        );
        let text = [0x81u8, 0x80, 0, 0, 0, 0];
        assert_eq!(
            read_frame(&mut &text[..]).await.unwrap(),
            Incoming::Refused(1003)
        );
        let long = [0x82u8, 0xFE, 1, 0];
        assert_eq!(
            read_frame(&mut &long[..]).await.unwrap(),
            Incoming::Refused(1009)
        );
        let close = [0x88u8, 0x80, 0, 0, 0, 0];
        assert_eq!(read_frame(&mut &close[..]).await.unwrap(), Incoming::Close);
    }
}
