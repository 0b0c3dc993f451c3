//! The operator's window: a small read-only HTTP server (hyper, on the daemon's
//! tokio runtime) serving the live status page (`/`, updated by server-sent events
//! from `/events`), the same facts as JSON (`/api/status`), Prometheus metrics
//! (`/metrics`), a health check (`/healthz`) and the PGN of recent games
//! (`/games/<n>.pgn`).
//!
//! It only reads: the bot publishes its `Status` on a `watch` channel and this module
//! clones the latest value when it needs one, so no request can make a game task or
//! the server reader wait. Nothing here commands the bot. A slow or hostile client is
//! bounded: connections beyond `web.max_connections` get 503 and are closed, request
//! heads are limited in size and must arrive within a timeout, bodies are refused,
//! every answer but the event stream has a deadline, and an event stream sends only
//! the newest state (never a backlog) and ends after a while (the browser reconnects).
//! Bad requests get a 4xx answer naming the problem.
//!
//! Layout: `page` renders the HTML, `metrics` the Prometheus text, `api` the JSON;
//! this file is the server, the routing and the access check.

mod api;
mod feed;
mod metrics;
mod page;
mod ws;

use crate::bot::status::Status;
use crate::settings::Settings;
use bytes::Bytes;
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tracing::{debug, info, warn};

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// The longest request target accepted (`414` beyond).
const MAX_URI: usize = 2048;
/// The largest request head hyper buffers (`431` beyond).
const MAX_HEAD: usize = 16 * 1024;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct WebConfig {
    pub listen: SocketAddr,
    /// Required on every request when set (bearer token or `?token=`).
    pub token: Option<String>,
    pub max_connections: usize,
    /// A request head must arrive within this.
    pub head_timeout: Duration,
    /// Every answer but the event stream must be ready within this.
    pub answer_timeout: Duration,
    /// An event stream ends after this (the page's EventSource reconnects).
    pub stream_lifetime: Duration,
    /// The page is re-rendered for the live feeds at most once per this interval
    /// (the newest state; every feed shares the rendering).
    pub min_interval: Duration,
}

impl WebConfig {
    /// From the daemon's settings: `None` when `web.listen` is empty. The settings
    /// loader has already refused a bad address and an open bind without a token.
    pub fn from_settings(s: &Settings) -> Result<Option<WebConfig>, String> {
        let o = &s.options;
        let Some(listen) = crate::settings::web_listen(o, s.web_token.is_some())? else {
            return Ok(None);
        };
        Ok(Some(WebConfig {
            listen,
            token: s.web_token.as_ref().map(|t| t.expose().to_string()),
            max_connections: o.int("web.max_connections").max(1) as usize,
            ..WebConfig::new(listen)
        }))
    }

    /// Defaults for `listen` (no token).
    pub fn new(listen: SocketAddr) -> WebConfig {
        WebConfig {
            listen,
            token: None,
            max_connections: 32,
            head_timeout: Duration::from_secs(5),
            answer_timeout: Duration::from_secs(10),
            stream_lifetime: Duration::from_secs(300),
            min_interval: Duration::from_millis(100),
        }
    }
}

/// What every connection shares.
struct Shared {
    cfg: WebConfig,
    status: watch::Receiver<Status>,
    metrics: metrics::Metrics,
    /// Live feeds open (WebSocket and event streams).
    clients: Arc<AtomicUsize>,
    /// The page's sections, rendered once per change for every feed.
    rendered: watch::Receiver<Arc<feed::Rendered>>,
}

/// Counts a live feed while it exists.
struct Feed(Arc<AtomicUsize>);

impl Feed {
    fn new(c: &Arc<AtomicUsize>) -> Feed {
        c.fetch_add(1, Ordering::Relaxed);
        Feed(Arc::clone(c))
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A running server; dropping it stops accepting (open streams end on their own).
pub struct WebServer {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
    renderer: tokio::task::JoinHandle<()>,
}

impl WebServer {
    /// The bound address (the port chosen when `listen` had port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.task.abort();
        self.renderer.abort();
    }
}

/// Binds and starts serving; an error (address in use, no permission) names the
/// address.
pub async fn start(cfg: WebConfig, status: watch::Receiver<Status>) -> std::io::Result<WebServer> {
    let listener = TcpListener::bind(cfg.listen).await.map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot listen on {}: {e}", cfg.listen))
    })?;
    let addr = listener.local_addr()?;
    info!(%addr, token = cfg.token.is_some(), "status page listening");
    let sem = Arc::new(Semaphore::new(cfg.max_connections));
    let clients = Arc::new(AtomicUsize::new(0));
    let (rendered, renderer) = feed::spawn_renderer(status.clone(), cfg.min_interval);
    let shared = Arc::new(Shared {
        rendered,
        metrics: metrics::Metrics::new(status.clone(), Arc::clone(&clients)),
        cfg,
        status,
        clients,
    });
    let task = tokio::spawn(accept_loop(listener, sem, shared));
    Ok(WebServer {
        addr,
        task,
        renderer,
    })
}

async fn accept_loop(listener: TcpListener, sem: Arc<Semaphore>, shared: Arc<Shared>) {
    loop {
        let (sock, peer) = match listener.accept().await {
            Ok(x) => x,
            Err(e) => {
                // Out of file descriptors and the like: wait rather than spin.
                warn!("status page: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        };
        let _ = sock.set_nodelay(true);
        let Ok(permit) = sem.clone().try_acquire_owned() else {
            debug!(%peer, "status page: too many connections");
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let mut sock = sock;
                let busy = b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n\r\ntoo many connections\n";
                let _ = tokio::time::timeout(Duration::from_secs(1), sock.write_all(busy)).await;
            });
            continue;
        };
        let sh = Arc::clone(&shared);
        let head_timeout = shared.cfg.head_timeout;
        let max_life = shared.cfg.stream_lifetime + Duration::from_secs(30);
        tokio::spawn(async move {
            // Held by the connection and by a WebSocket it upgrades to.
            let permit = Arc::new(permit);
            let svc = hyper::service::service_fn(move |req| {
                let sh = Arc::clone(&sh);
                let permit = Arc::clone(&permit);
                async move { Ok::<_, Infallible>(answer(req, &sh, permit).await) }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(head_timeout)
                // A client may shut its side after the request and wait for
                // the answer (HTTP/1.1 allows it; scripts and tools do).
                .half_close(true)
                .max_buf_size(MAX_HEAD)
                .serve_connection(TokioIo::new(sock), svc)
                .with_upgrades();
            // No connection outlives a feed's lifetime by much (an event stream
            // whose reader stopped reading is never polled to its own end).
            match tokio::time::timeout(max_life, conn).await {
                Ok(Err(e)) => debug!(%peer, "status page connection: {e}"),
                Err(_) => debug!(%peer, "status page connection closed: too old"),
                Ok(Ok(())) => {}
            }
        });
    }
}

fn full(body: impl Into<Bytes>) -> Body {
    Full::new(body.into()).boxed_unsync()
}

/// A plain-text answer.
fn text(code: StatusCode, body: impl Into<String>) -> Response<Body> {
    let mut r = Response::new(full(body.into()));
    *r.status_mut() = code;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    r
}

fn with_type(body: impl Into<Bytes>, kind: &'static str) -> Response<Body> {
    let mut r = Response::new(full(body));
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Decodes `%XX` and `+` in a query component.
fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent-encoding in '{s}'"))?;
                out.push(hex);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{s}' is not UTF-8 once decoded"))
}

/// The query's `name=value` pairs.
pub(crate) fn parse_query(q: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let Some(q) = q else { return Ok(Vec::new()) };
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            Ok((percent_decode(k)?, percent_decode(v)?))
        })
        .collect()
}

/// Compares without an early exit, so the time taken says nothing about the token.
fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut diff = (a.len() != b.len()) as u8;
    for i in 0..a.len().max(b.len()) {
        diff |= a.get(i).copied().unwrap_or(0) ^ b.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

/// The token a request carries (`Authorization: Bearer`, else `?token=`).
fn given_token<'a>(req: &'a Request<Incoming>, query: &'a [(String, String)]) -> Option<&'a str> {
    if let Some(v) = req.headers().get(header::AUTHORIZATION) {
        if let Some(t) = v.to_str().ok().and_then(|v| v.strip_prefix("Bearer ")) {
            return Some(t.trim());
        }
    }
    query
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str())
}

async fn answer(
    req: Request<Incoming>,
    sh: &Shared,
    permit: Arc<tokio::sync::OwnedSemaphorePermit>,
) -> Response<Body> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = text(
            StatusCode::METHOD_NOT_ALLOWED,
            format!(
                "{} is not allowed: this server is read-only\n",
                req.method()
            ),
        );
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return r;
    }
    let has_body = req.headers().contains_key(header::TRANSFER_ENCODING)
        || req
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    if has_body {
        return text(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request bodies are not accepted\n",
        );
    }
    let target_len = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target_len > MAX_URI {
        return text(
            StatusCode::URI_TOO_LONG,
            format!("the request target is {target_len} bytes; at most {MAX_URI}\n"),
        );
    }
    let query = match parse_query(req.uri().query()) {
        Ok(q) => q,
        Err(e) => return text(StatusCode::BAD_REQUEST, format!("bad query: {e}\n")),
    };
    if let Some(want) = &sh.cfg.token {
        if !given_token(&req, &query).is_some_and(|t| same_secret(t, want)) {
            // A load balancer's probe has no token: it gets the health check's
            // status and a bare word, nothing else (the reasons need the token).
            if req.uri().path() == "/healthz" {
                let mut r = healthz(&snapshot(sh));
                if r.status() != StatusCode::OK {
                    r = text(r.status(), "unhealthy\n");
                }
                return r;
            }
            let mut r = text(
                StatusCode::UNAUTHORIZED,
                "a token is required: Authorization: Bearer <token>, or ?token=<token>\n",
            );
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"kibitzer\""),
            );
            return r;
        }
    }
    // The page's links carry the token the way it came.
    let token_query = query
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| format!("?token={}", page::url_encode(v)))
        .unwrap_or_default();
    let path = req.uri().path().to_string();
    if path == "/events" {
        return events(sh);
    }
    if path == "/ws" {
        return websocket(req, sh, permit);
    }
    let work = async {
        match path.as_str() {
            "/" | "/index.html" => with_type(
                page::page(&snapshot(sh), &token_query),
                "text/html; charset=utf-8",
            ),
            "/api/status" => with_type(api::json(&snapshot(sh)), "application/json"),
            "/metrics" => with_type(sh.metrics.render(), metrics::CONTENT_TYPE),
            "/healthz" => healthz(&snapshot(sh)),
            p if p.starts_with("/games/") => pgn(sh, p),
            "/favicon.ico" => text(StatusCode::NOT_FOUND, "no icon\n"),
            p => text(
                StatusCode::NOT_FOUND,
                format!(
                    "no page {}: try /, /api/status, /metrics, /healthz or /games/<n>.pgn\n",
                    crate::text::printable(p, 200)
                ),
            ),
        }
    };
    match tokio::time::timeout(sh.cfg.answer_timeout, work).await {
        Ok(r) => r,
        Err(_) => text(StatusCode::SERVICE_UNAVAILABLE, "timed out\n"),
    }
}

/// A copy of the newest status (the lock is held only for the clone).
fn snapshot(sh: &Shared) -> Status {
    sh.status.borrow().clone()
}

/// 200 when every account is logged in with a live link and the engine answers
/// (`Status::health`); 503 otherwise, saying why.
fn healthz(s: &Status) -> Response<Body> {
    let problem = s.health().err();
    match problem {
        None => text(StatusCode::OK, "ok\n"),
        Some(p) => text(StatusCode::SERVICE_UNAVAILABLE, format!("{p}\n")),
    }
}

/// `/games/<n>.pgn`: the record of one of the newest games.
fn pgn(sh: &Shared, path: &str) -> Response<Body> {
    let n = path
        .strip_prefix("/games/")
        .and_then(|p| p.strip_suffix(".pgn"))
        .and_then(|n| n.parse::<u64>().ok());
    let Some(n) = n else {
        return text(
            StatusCode::BAD_REQUEST,
            "a game is named by its number: /games/<n>.pgn\n",
        );
    };
    let results = Arc::clone(&sh.status.borrow().results);
    match results.pgn(n) {
        Some(t) => with_type(t.to_string(), "application/x-chess-pgn; charset=utf-8"),
        None => text(
            StatusCode::NOT_FOUND,
            format!("no record of game {n} kept (the page lists the last games)\n"),
        ),
    }
}

/// `/ws`: the upgrade, then the feed on a task of its own (holding the connection's
/// place among `max_connections`).
fn websocket(
    req: Request<Incoming>,
    sh: &Shared,
    permit: Arc<tokio::sync::OwnedSemaphorePermit>,
) -> Response<Body> {
    let answer = match ws::handshake(&req) {
        Ok(a) => a,
        Err((code, why)) => return text(code, why),
    };
    let rx = sh.rendered.clone();
    let lifetime = sh.cfg.stream_lifetime;
    let feed = Feed::new(&sh.clients);
    tokio::spawn(async move {
        let _permit = permit;
        let _feed = feed;
        match hyper::upgrade::on(req).await {
            Ok(up) => ws::serve(TokioIo::new(up), rx, lifetime).await,
            Err(e) => debug!("status page: the WebSocket upgrade failed: {e}"),
        }
    });
    answer.map(|()| full(Bytes::new()))
}

/// The event stream: the page's sections as they change (the newest rendering
/// only), a comment every 15 s to keep proxies open, ending after
/// `stream_lifetime` (an EventSource reconnects).
fn events(sh: &Shared) -> Response<Body> {
    struct Stream {
        rx: watch::Receiver<Arc<feed::Rendered>>,
        cursor: feed::Cursor,
        first: bool,
        end: Instant,
        _feed: Feed,
    }
    let st = Stream {
        rx: sh.rendered.clone(),
        cursor: feed::Cursor::default(),
        first: true,
        end: Instant::now() + sh.cfg.stream_lifetime,
        _feed: Feed::new(&sh.clients),
    };
    let stream = futures_util::stream::unfold(st, |mut st| async move {
        loop {
            if !st.first {
                let ping = tokio::time::sleep(Duration::from_secs(15));
                tokio::select! {
                    r = st.rx.changed() => r.ok()?,
                    _ = ping => {
                        let f = Frame::data(Bytes::from_static(b": ping\n\n"));
                        return Some((Ok::<_, Infallible>(f), st));
                    }
                }
                if Instant::now() >= st.end {
                    return None;
                }
            }
            st.first = false;
            let r = Arc::clone(&st.rx.borrow_and_update());
            if let Some(data) = st.cursor.event(&r) {
                let f = Frame::data(Bytes::from(format!(
                    "retry: 1000\nevent: status\ndata: {data}\n\n"
                )));
                return Some((Ok(f), st));
            }
        }
    });
    let mut r = Response::new(StreamBody::new(stream).boxed_unsync());
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_decode_and_bad_escapes_are_errors() {
        let q = parse_query(Some("token=a%2Bb+c&x=&y")).unwrap();
        assert_eq!(q[0], ("token".into(), "a+b c".into()));
        assert_eq!(q[1], ("x".into(), "".into()));
        assert_eq!(q[2], ("y".into(), "".into()));
        assert!(parse_query(Some("token=%zz"))
            .unwrap_err()
            .contains("percent"));
        assert!(parse_query(Some("token=%ff"))
            .unwrap_err()
            .contains("UTF-8"));
        assert!(parse_query(Some("t=%4")).is_err());
    }

    #[test]
    fn secrets_compare_by_content() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
        assert!(!same_secret("", "a"));
    }

    #[test]
    fn health_needs_link_and_engine() {
        let mut s = Status::default();
        assert_eq!(healthz(&s).status(), StatusCode::SERVICE_UNAVAILABLE);
        let mut ics = crate::bot::status::AccountStatus::new("ics", "x", 5000, "fics", "a");
        ics.logged_in("a");
        s.accounts.push(ics);
        let mut li = crate::bot::status::AccountStatus::new("lichess", "y", 443, "lichess", "b");
        li.backing_off("HTTP 502", std::time::Duration::from_secs(30));
        s.accounts.push(li);
        s.engine.healthy = true;
        let r = healthz(&s);
        assert_eq!(
            r.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "every account counts"
        );
        s.accounts[1].logged_in("b");
        assert_eq!(healthz(&s).status(), StatusCode::OK);
        s.accounts[0].healthy = false;
        assert_eq!(healthz(&s).status(), StatusCode::SERVICE_UNAVAILABLE);
        s.accounts[0].healthy = true;
        s.engine.healthy = false;
        assert_eq!(healthz(&s).status(), StatusCode::SERVICE_UNAVAILABLE);
    }
}
