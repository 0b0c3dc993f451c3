//! HTTPS to Lichess: one HTTP/1.1 connection per request (hyper's client over
//! rustls, or plain TCP for a local test server), the personal API token as a
//! bearer token (never logged), JSON answers, ndjson streams with the keep-alive
//! empty lines skipped, and the rate limit: after an HTTP 429 no request at all
//! leaves for `RATE_LIMIT_WAIT`. Errors name the request and what went wrong.

use crate::net::Secret;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncWrite};
use tracing::{debug, warn};

/// How long every request waits after an HTTP 429 (Lichess asks for a minute).
pub const RATE_LIMIT_WAIT: Duration = Duration::from_secs(60);

/// The longest line of a stream and the longest answer read.
const MAX_BODY: usize = 1 << 20;

/// A stream silent this long is taken for a dead connection: Lichess sends an
/// empty keep-alive line about every 7 seconds, so this is nearly three missed.
pub const STREAM_IDLE: Duration = Duration::from_secs(20);

#[derive(Debug, Error)]
pub enum HttpError {
    #[error("lichess.url '{0}' is not an http(s)://host[:port] address")]
    BadUrl(String),
    #[error("{what}: cannot connect to {addr}: {error}")]
    Connect {
        what: String,
        addr: String,
        error: String,
    },
    #[error("{what}: TLS: {error}")]
    Tls { what: String, error: String },
    #[error("{what}: no answer within {secs} s")]
    Timeout { what: String, secs: u64 },
    #[error("{what}: HTTP: {error}")]
    Http { what: String, error: String },
    #[error("{what}: the token was refused (HTTP 401): check the token's file or KIBITZER_LICHESS_TOKEN, and that it has the bot:play scope")]
    Unauthorized { what: String },
    #[error("{what}: rate limited (HTTP 429): no request for {} s", RATE_LIMIT_WAIT.as_secs())]
    RateLimited { what: String },
    #[error("{what}: HTTP {status}: {body}")]
    Status {
        what: String,
        status: u16,
        body: String,
    },
    #[error("{what}: the answer is longer than {MAX_BODY} bytes")]
    TooLong { what: String },
    #[error("{what}: the answer is not UTF-8")]
    NotText { what: String },
}

impl HttpError {
    /// An error that asks for the request to be dropped, not retried (bad
    /// token, a refused request).
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            HttpError::Unauthorized { .. } | HttpError::BadUrl(_) | HttpError::Status { .. }
        )
    }
}

/// Where Lichess is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl {
    pub tls: bool,
    pub host: String,
    pub port: u16,
}

impl BaseUrl {
    /// `https://lichess.org`, `http://127.0.0.1:8080` (a trailing `/` is allowed).
    pub fn parse(text: &str) -> Result<BaseUrl, HttpError> {
        let bad = || HttpError::BadUrl(text.to_string());
        let t = text.trim().trim_end_matches('/');
        let (tls, rest) = if let Some(r) = t.strip_prefix("https://") {
            (true, r)
        } else if let Some(r) = t.strip_prefix("http://") {
            (false, r)
        } else {
            return Err(bad());
        };
        if rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
            return Err(bad());
        }
        let (host, port) = match rest.rsplit_once(':') {
            Some((h, p)) => (h, p.parse::<u16>().map_err(|_| bad())?),
            None => (rest, if tls { 443 } else { 80 }),
        };
        if host.is_empty() {
            return Err(bad());
        }
        Ok(BaseUrl {
            tls,
            host: host.to_string(),
            port,
        })
    }

    fn host_header(&self) -> String {
        match (self.tls, self.port) {
            (true, 443) | (false, 80) => self.host.clone(),
            _ => format!("{}:{}", self.host, self.port),
        }
    }
}

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// A Lichess client; cheap to clone (the rate-limit gate and counters are shared).
#[derive(Clone)]
pub struct Client {
    base: BaseUrl,
    token: Secret,
    tls: Option<tokio_rustls::TlsConnector>,
    timeout: Duration,
    /// No request leaves before this instant (after a 429).
    gate: Arc<Mutex<Option<tokio::time::Instant>>>,
    requests: Arc<AtomicU64>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base)
            .field("token", &self.token)
            .finish()
    }
}

impl Client {
    pub fn new(base: BaseUrl, token: Secret, timeout: Duration) -> Result<Client, HttpError> {
        let tls = if base.tls {
            let mut roots = rustls::RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| HttpError::Tls {
                    what: "TLS set-up".into(),
                    error: e.to_string(),
                })?
                .with_root_certificates(roots)
                .with_no_client_auth();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Some(tokio_rustls::TlsConnector::from(Arc::new(config)))
        } else {
            None
        };
        Ok(Client {
            base,
            token,
            tls,
            timeout,
            gate: Arc::new(Mutex::new(None)),
            requests: Arc::new(AtomicU64::new(0)),
        })
    }

    pub fn base(&self) -> &BaseUrl {
        &self.base
    }

    /// Requests sent so far (all clones together).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Waits while a 429 holds every request back.
    async fn pass_gate(&self) {
        loop {
            let until = *self.gate.lock().unwrap_or_else(|e| e.into_inner());
            match until {
                Some(t) if tokio::time::Instant::now() < t => tokio::time::sleep_until(t).await,
                _ => return,
            }
        }
    }

    fn close_gate(&self) {
        let until = tokio::time::Instant::now() + RATE_LIMIT_WAIT;
        let mut g = self.gate.lock().unwrap_or_else(|e| e.into_inner());
        *g = Some(g.map_or(until, |t| t.max(until)));
    }

    async fn connect(&self, what: &str) -> Result<Box<dyn Io>, HttpError> {
        let addr = format!("{}:{}", self.base.host, self.base.port);
        let secs = self.timeout.as_secs();
        let tcp = tokio::time::timeout(self.timeout, tokio::net::TcpStream::connect(&addr))
            .await
            .map_err(|_| HttpError::Timeout {
                what: what.to_string(),
                secs,
            })?
            .map_err(|e| HttpError::Connect {
                what: what.to_string(),
                addr: addr.clone(),
                error: e.to_string(),
            })?;
        let _ = tcp.set_nodelay(true);
        let Some(connector) = &self.tls else {
            return Ok(Box::new(tcp));
        };
        let tls_err = |e: String| HttpError::Tls {
            what: what.to_string(),
            error: e,
        };
        let name = rustls::pki_types::ServerName::try_from(self.base.host.clone())
            .map_err(|e| tls_err(e.to_string()))?;
        let stream = tokio::time::timeout(self.timeout, connector.connect(name, tcp))
            .await
            .map_err(|_| HttpError::Timeout {
                what: what.to_string(),
                secs,
            })?
            .map_err(|e| tls_err(e.to_string()))?;
        Ok(Box::new(stream))
    }

    /// Sends one request; a success status gives the body, anything else an error
    /// (a 429 also closes the gate for every request).
    async fn request(
        &self,
        method: Method,
        path: &str,
        form: Option<String>,
        accept: &str,
    ) -> Result<Incoming, HttpError> {
        let what = format!("{method} {path}");
        self.pass_gate().await;
        self.requests.fetch_add(1, Ordering::Relaxed);
        let io = self.connect(&what).await?;
        let http = |e: hyper::Error| HttpError::Http {
            what: what.clone(),
            error: e.to_string(),
        };
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io))
            .await
            .map_err(http)?;
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                debug!("lichess connection ended: {e}");
            }
        });
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(hyper::header::HOST, self.base.host_header())
            .header(
                hyper::header::USER_AGENT,
                concat!("kibitzer/", env!("CARGO_PKG_VERSION")),
            )
            .header(hyper::header::ACCEPT, accept)
            .header(
                hyper::header::AUTHORIZATION,
                format!("Bearer {}", self.token.expose()),
            );
        if form.is_some() {
            req = req.header(
                hyper::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            );
        }
        let req = req
            .body(Full::new(Bytes::from(form.unwrap_or_default())))
            .map_err(|e| HttpError::Http {
                what: what.clone(),
                error: e.to_string(),
            })?;
        let resp = tokio::time::timeout(self.timeout, sender.send_request(req))
            .await
            .map_err(|_| HttpError::Timeout {
                what: what.clone(),
                secs: self.timeout.as_secs(),
            })?
            .map_err(http)?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp.into_body());
        }
        if status == StatusCode::TOO_MANY_REQUESTS {
            self.close_gate();
            warn!(
                "{what}: HTTP 429, waiting {} s before any request",
                RATE_LIMIT_WAIT.as_secs()
            );
            return Err(HttpError::RateLimited { what });
        }
        if status == StatusCode::UNAUTHORIZED {
            return Err(HttpError::Unauthorized { what });
        }
        let body = read_all(resp.into_body(), &what, self.timeout)
            .await
            .unwrap_or_default();
        let body: String = body.chars().take(300).collect();
        Err(HttpError::Status {
            what,
            status: status.as_u16(),
            body,
        })
    }

    /// `GET path`, the whole answer as text.
    pub async fn get_text(&self, path: &str) -> Result<String, HttpError> {
        let body = self
            .request(Method::GET, path, None, "application/json")
            .await?;
        read_all(body, &format!("GET {path}"), self.timeout).await
    }

    /// `POST path` with form fields, the answer read and dropped.
    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Result<(), HttpError> {
        let body = (!form.is_empty()).then(|| encode_form(form));
        let resp = self
            .request(Method::POST, path, body, "application/json")
            .await?;
        read_all(resp, &format!("POST {path}"), self.timeout).await?;
        Ok(())
    }

    /// `POST path` with form fields, the answer as text.
    pub async fn post_text(&self, path: &str, form: &[(&str, &str)]) -> Result<String, HttpError> {
        let body = (!form.is_empty()).then(|| encode_form(form));
        let resp = self
            .request(Method::POST, path, body, "application/json")
            .await?;
        read_all(resp, &format!("POST {path}"), self.timeout).await
    }

    /// `GET path` as an ndjson stream.
    pub async fn stream(&self, path: &str) -> Result<Ndjson, HttpError> {
        let body = self
            .request(Method::GET, path, None, "application/x-ndjson")
            .await?;
        Ok(Ndjson {
            what: format!("GET {path}"),
            body,
            buf: Vec::new(),
            done: false,
            idle: STREAM_IDLE,
        })
    }
}

async fn read_all(mut body: Incoming, what: &str, timeout: Duration) -> Result<String, HttpError> {
    let mut buf = Vec::new();
    loop {
        let frame = tokio::time::timeout(timeout, body.frame())
            .await
            .map_err(|_| HttpError::Timeout {
                what: what.to_string(),
                secs: timeout.as_secs(),
            })?;
        match frame {
            None => break,
            Some(Err(e)) => {
                return Err(HttpError::Http {
                    what: what.to_string(),
                    error: e.to_string(),
                })
            }
            Some(Ok(f)) => {
                if let Ok(d) = f.into_data() {
                    buf.extend_from_slice(&d);
                    if buf.len() > MAX_BODY {
                        return Err(HttpError::TooLong {
                            what: what.to_string(),
                        });
                    }
                }
            }
        }
    }
    String::from_utf8(buf).map_err(|_| HttpError::NotText {
        what: what.to_string(),
    })
}

/// `application/x-www-form-urlencoded`.
pub fn encode_form(fields: &[(&str, &str)]) -> String {
    fn enc(s: &str, out: &mut String) {
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    out.push(b as char)
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
    }
    let mut out = String::new();
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        enc(k, &mut out);
        out.push('=');
        enc(v, &mut out);
    }
    out
}

/// A newline-delimited JSON stream: one line at a time, empty (keep-alive) lines
/// skipped.
pub struct Ndjson {
    what: String,
    body: Incoming,
    buf: Vec<u8>,
    done: bool,
    /// Silence longer than this ends the stream with an error.
    idle: Duration,
}

impl Ndjson {
    /// Silence longer than `idle` ends the stream with `HttpError::Timeout`
    /// (`STREAM_IDLE` unless set).
    pub fn set_idle(&mut self, idle: Duration) {
        self.idle = idle;
    }

    /// The next non-empty line; `None` when the stream ends.
    pub async fn next_line(&mut self) -> Option<Result<String, HttpError>> {
        loop {
            if let Some(i) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=i).collect();
                let text = match String::from_utf8(line) {
                    Ok(t) => t,
                    Err(_) => {
                        return Some(Err(HttpError::NotText {
                            what: self.what.clone(),
                        }))
                    }
                };
                if text.trim().is_empty() {
                    continue;
                }
                return Some(Ok(text.trim().to_string()));
            }
            if self.done {
                if self.buf.iter().all(u8::is_ascii_whitespace) {
                    return None;
                }
                self.buf.push(b'\n');
                continue;
            }
            if self.buf.len() > MAX_BODY {
                self.done = true;
                self.buf.clear();
                return Some(Err(HttpError::TooLong {
                    what: self.what.clone(),
                }));
            }
            let frame = match tokio::time::timeout(self.idle, self.body.frame()).await {
                Ok(f) => f,
                Err(_) => {
                    self.done = true;
                    self.buf.clear();
                    return Some(Err(HttpError::Timeout {
                        what: self.what.clone(),
                        secs: self.idle.as_secs(),
                    }));
                }
            };
            match frame {
                None => self.done = true,
                Some(Err(e)) => {
                    self.done = true;
                    self.buf.clear();
                    return Some(Err(HttpError::Http {
                        what: self.what.clone(),
                        error: e.to_string(),
                    }));
                }
                Some(Ok(f)) => {
                    if let Ok(d) = f.into_data() {
                        self.buf.extend_from_slice(&d);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls() {
        let b = BaseUrl::parse("https://lichess.org/").unwrap();
        assert_eq!((b.tls, b.host.as_str(), b.port), (true, "lichess.org", 443));
        let b = BaseUrl::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!(
            (b.tls, b.port, b.host_header()),
            (false, 8080, "127.0.0.1:8080".into())
        );
        for bad in [
            "lichess.org",
            "ftp://x",
            "https://",
            "https://a/b",
            "http://h:port",
        ] {
            assert!(BaseUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn forms() {
        assert_eq!(
            encode_form(&[("room", "player"), ("text", "Good game & thanks!")]),
            "room=player&text=Good+game+%26+thanks%21"
        );
    }
}
