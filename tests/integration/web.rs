//! The operator's window against the daemon on the fake server: `/api/status` during
//! a game, the PGN link after it, metrics that move as games end, `/healthz` while
//! the link is down, the token on a non-loopback bind, bad and oversized requests,
//! the connection limit, the live feeds (WebSocket and event stream), and the page in
//! a real browser (headless Chromium: the rendered board, clocks, PV and results, and
//! a screenshot).

use crate::ics_fake_server::{FakeConfig, FakeServer, FakeStats};
use kibitzer::bot::status::StatusTx;
use kibitzer::bot::{ControlMsg, Daemon, Exit};
use kibitzer::chess::Board;
use kibitzer::web::{self, WebConfig, WebServer};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

// ----- a small HTTP and WebSocket client ---------------------------------------------

pub(crate) struct Http {
    pub code: u16,
    pub head: String,
    pub body: String,
}

/// Sends raw bytes, reads the answer to the end (the server closes: `Connection:
/// close`, or it refused the request).
pub(crate) async fn raw(addr: SocketAddr, bytes: &[u8]) -> Http {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let _ = s.write_all(bytes).await;
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf)).await;
    let text = String::from_utf8_lossy(&buf).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Http {
        code,
        head: head.to_string(),
        body: body.to_string(),
    }
}

pub(crate) async fn get(addr: SocketAddr, path: &str) -> Http {
    raw(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .await
}

async fn get_bearer(addr: SocketAddr, path: &str, token: &str) -> Http {
    raw(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer {token}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
    .await
}

pub(crate) async fn status_json(addr: SocketAddr) -> Value {
    let r = get(addr, "/api/status").await;
    assert_eq!(r.code, 200, "{}", r.head);
    serde_json::from_str(&r.body).expect("JSON")
}

/// Opens a WebSocket: the answer's head and the stream.
pub(crate) async fn ws_open(addr: SocketAddr, path: &str) -> (String, TcpStream) {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut b).await.unwrap_or(0) == 0 {
            break;
        }
        head.push(b[0]);
    }
    (String::from_utf8_lossy(&head).to_string(), s)
}

/// The next text frame from the server (pings skipped); `None` on close or end.
pub(crate) async fn ws_text(s: &mut TcpStream) -> Option<String> {
    loop {
        let mut h = [0u8; 2];
        s.read_exact(&mut h).await.ok()?;
        let mut len = (h[1] & 0x7f) as u64;
        if len == 126 {
            let mut l = [0u8; 2];
            s.read_exact(&mut l).await.ok()?;
            len = u16::from_be_bytes(l) as u64;
        } else if len == 127 {
            let mut l = [0u8; 8];
            s.read_exact(&mut l).await.ok()?;
            len = u64::from_be_bytes(l);
        }
        assert_eq!(h[1] & 0x80, 0, "server frames are not masked");
        let mut p = vec![0u8; len as usize];
        s.read_exact(&mut p).await.ok()?;
        match h[0] & 0x0f {
            0x1 => return Some(String::from_utf8(p).unwrap()),
            0x8 => return None,
            _ => continue,
        }
    }
}

/// A masked client frame.
pub(crate) fn ws_frame(opcode: u8, payload: &[u8]) -> Vec<u8> {
    assert!(payload.len() < 126);
    let mask = [7u8, 1, 8, 3];
    let mut f = vec![0x80 | opcode, 0x80 | payload.len() as u8];
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

// ----- the daemon with its window ----------------------------------------------------

struct Live {
    srv: FakeServer,
    handle: tokio::task::JoinHandle<Exit>,
    control: kibitzer::bot::Control,
    web: WebServer,
    dir: PathBuf,
}

/// The daemon on a fake server with its window on a free loopback port; `seed`:
/// files written into its records directory first.
async fn start_live(name: &str, cfg: FakeConfig, extra: &[&str], seed: &[(&str, &str)]) -> Live {
    let srv = FakeServer::start(cfg).await;
    let dir = crate::daemon::temp_dir(&format!("web-{name}"));
    for (file, text) in seed {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let d = Daemon::new(crate::daemon::settings(srv.port, &dir, extra));
    let web = web::start(WebConfig::new("127.0.0.1:0".parse().unwrap()), d.status())
        .await
        .expect("web server");
    let control = d.control();
    let handle = tokio::spawn(d.run());
    Live {
        srv,
        handle,
        control,
        web,
        dir,
    }
}

impl Live {
    fn addr(&self) -> SocketAddr {
        self.web.local_addr()
    }

    async fn stop(self) -> FakeStats {
        self.control.send(ControlMsg::Quit);
        let exit = tokio::time::timeout(Duration::from_secs(20), self.handle)
            .await
            .expect("daemon stops")
            .expect("no panic");
        assert_eq!(exit, Exit::Ok);
        let _ = std::fs::remove_dir_all(&self.dir);
        self.srv.stats()
    }

    /// Polls `/api/status` until `f` holds; the status that did.
    async fn wait_status(&self, secs: u64, what: &str, f: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + Duration::from_secs(secs);
        loop {
            let v = status_json(self.addr()).await;
            if f(&v) {
                return v;
            }
            assert!(Instant::now() < end, "timed out waiting for {what}: {v:#}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// The value of a metric line `name{labels} value` (exact name and labels).
fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

fn our_outcome(result: &str, pgn: &str) -> &'static str {
    let white_is_us = pgn.contains("[White \"botone\"]");
    match (result, white_is_us) {
        ("1-0", true) | ("0-1", false) => "win",
        ("1-0", false) | ("0-1", true) => "loss",
        ("1/2-1/2", _) => "draw",
        _ => "aborted",
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn status_json_pgn_link_and_metrics_follow_a_game() {
    let cfg = FakeConfig {
        max_plies: 24,
        ..Default::default()
    };
    let r = start_live("game", cfg, &[], &[]).await;
    let a = r.addr();
    let v = r
        .wait_status(30, "a game with a search", |v| {
            let g = &v["games"][0];
            g["ply"].as_u64().unwrap_or(0) >= 6 && g["search"]["pv"].is_string()
        })
        .await;
    let g = &v["games"][0];
    assert_eq!(g["opponent"], "bottwo");
    assert_eq!(g["class"], "normal");
    assert_eq!(g["time_control"], "1+0");
    assert!(Board::from_fen(g["fen"].as_str().unwrap()).is_ok(), "{g}");
    assert!(g["white_ms"].as_i64().unwrap() > 0 && g["black_ms"].as_i64().unwrap() > 0);
    assert!(g["last_move"]["san"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    let pv = g["search"]["pv"].as_str().unwrap();
    assert!(pv.contains(". "), "move numbers in the PV: {pv}");
    assert!(g["search"]["depth"].as_i64().unwrap() >= 1);
    assert_eq!(v["link"]["connected"], true);
    assert_eq!(v["link"]["handle"], "botone");
    assert_eq!(get(a, "/healthz").await.code, 200);

    // Before the end: moves counted, no game finished.
    let m = get(a, "/metrics").await;
    assert_eq!(m.code, 200);
    assert!(m.head.contains("openmetrics-text"), "{}", m.head);
    assert!(metric(&m.body, "kibitzer_moves_sent_total").unwrap() >= 3.0);
    assert!(
        !m.body.contains("kibitzer_games_total{"),
        "no finished game yet:\n{}",
        m.body
    );
    assert_eq!(metric(&m.body, "kibitzer_connected"), Some(1.0));

    let stats = r.srv.wait_results(1, Duration::from_secs(60)).await;
    let (result, _, _) = stats.results[0].clone();
    let v = r
        .wait_status(20, "the result in the ledger", |v| {
            v["results"]["recent"][0]["pgn"].is_string()
                && v["games"].as_array().unwrap().is_empty()
        })
        .await;
    let row = &v["results"]["recent"][0];
    assert_eq!(row["result"], result.as_str());
    assert_eq!(row["n"], 1);
    let link = row["pgn"].as_str().unwrap();
    assert_eq!(link, "/games/1.pgn");
    let p = get(a, link).await;
    assert_eq!(p.code, 200, "{}", p.head);
    assert!(p.head.contains("application/x-chess-pgn"));
    assert!(
        p.body.contains(&format!("[Result \"{result}\"]")),
        "{}",
        p.body
    );
    assert!(p.body.contains("%clk"));
    // The same record the daemon appended to its PGN file.
    let file = std::fs::read_to_string(r.dir.join("games.pgn")).unwrap();
    assert_eq!(file.trim(), p.body.trim());
    assert_eq!(get(a, "/games/2.pgn").await.code, 404);

    // After the end: the game counted by our result and the class.
    let m = get(a, "/metrics").await.body;
    let outcome = our_outcome(&result, &p.body);
    let series = format!("kibitzer_games_total{{result=\"{outcome}\",class=\"normal\"}}");
    assert_eq!(metric(&m, &series), Some(1.0), "{series} in\n{m}");
    let sent = metric(&m, "kibitzer_moves_sent_total").unwrap();
    assert_eq!(metric(&m, "kibitzer_time_left_seconds_count"), Some(sent));
    assert!(metric(&m, "kibitzer_search_depth").unwrap() >= 1.0);
    assert!(metric(&m, "kibitzer_engine_nps").unwrap() > 0.0);
    let tally = &v["results"]["all_time"][0];
    assert_eq!(tally["class"], "normal");
    let s = r.stop().await;
    assert_eq!(s.illegal_moves, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_are_read_from_the_pgn_records_at_start() {
    let game = |white: &str, black: &str, result: &str, welo: u32, belo: u32| {
        format!(
            "[Event \"x\"]\n[Date \"2020.01.0{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[WhiteElo \"{welo}\"]\n[BlackElo \"{belo}\"]\n[TimeControl \"180+0\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n",
            welo % 7 + 1
        )
    };
    let old = game("botone", "gmkasparov", "0-1", 1500, 2800);
    let mut cur = game("bottwo", "botone", "1/2-1/2", 1400, 1510);
    cur.push_str(&game("someone", "else", "1-0", 1, 2));
    let cfg = FakeConfig {
        games: 0,
        ..Default::default()
    };
    let r = start_live(
        "history",
        cfg,
        &["bot.seeks="],
        &[("games.pgn.1", old.as_str()), ("games.pgn", cur.as_str())],
    )
    .await;
    let v = r
        .wait_status(20, "the ledger", |v| v["results"]["games"] == 2)
        .await;
    let res = &v["results"];
    assert_eq!(res["recent"][0]["n"], 2, "newest first: {res:#}");
    assert_eq!(res["recent"][0]["outcome"], "draw");
    assert_eq!(res["recent"][1]["opponent"], "gmkasparov");
    assert_eq!(res["recent"][1]["outcome"], "loss");
    assert_eq!(res["recent"][1]["time_control"], "3+0");
    assert_eq!(
        res["rating_history"],
        serde_json::json!([[1, 1500], [2, 1510]])
    );
    assert_eq!(res["today"].as_array().unwrap().len(), 0, "games of 2020");
    let all: u64 = res["all_time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["losses"].as_u64().unwrap() + t["draws"].as_u64().unwrap())
        .sum();
    assert_eq!(all, 2);
    let p = get(r.addr(), "/games/1.pgn").await;
    assert_eq!(p.code, 200);
    assert_eq!(p.body.trim(), old.trim());
    let page = get(r.addr(), "/").await.body;
    assert!(
        page.contains("<a class=\"pgn\" href=\"/games/2.pgn\">"),
        "{page}"
    );
    assert!(page.contains("aria-label=\"rating history\""));
    r.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_is_503_while_the_link_is_down() {
    let cfg = FakeConfig {
        drop_at: Some(6),
        max_plies: 16,
        ..Default::default()
    };
    let r = start_live(
        "health",
        cfg,
        &["ics.reconnect_min=2", "ics.reconnect_max=2"],
        &[],
    )
    .await;
    let a = r.addr();
    let end = Instant::now() + Duration::from_secs(20);
    while get(a, "/healthz").await.code != 200 {
        assert!(Instant::now() < end, "never healthy");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The fake server drops the link after ply 6.
    let end = Instant::now() + Duration::from_secs(30);
    let down = loop {
        let h = get(a, "/healthz").await;
        if h.code != 200 {
            break h;
        }
        assert!(Instant::now() < end, "the link never went down");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(down.code, 503);
    assert!(down.body.contains("not connected"), "{}", down.body);
    let m = get(a, "/metrics").await.body;
    assert_eq!(metric(&m, "kibitzer_connected"), Some(0.0));
    assert_eq!(metric(&m, "kibitzer_healthy"), Some(0.0));
    let v = status_json(a).await;
    assert_eq!(v["link"]["connected"], false);
    assert!(v["games"].as_array().unwrap().is_empty());
    // Back after the reconnect delay, saying why it reconnected.
    let v = r
        .wait_status(20, "the reconnect", |v| v["link"]["connected"] == true)
        .await;
    assert_eq!(get(a, "/healthz").await.code, 200);
    assert!(
        v["link"]["last_reconnect"]["why"]
            .as_str()
            .is_some_and(|w| !w.is_empty()),
        "{v:#}"
    );
    assert_eq!(v["counters"]["reconnects"], 1);
    let m = get(a, "/metrics").await.body;
    assert_eq!(metric(&m, "kibitzer_reconnects_total"), Some(1.0));
    r.stop().await;
}

fn web_settings(
    env: &[(&str, &str)],
    cli: &[&str],
) -> Result<kibitzer::settings::Settings, kibitzer::settings::SettingsError> {
    let cli: Vec<String> = cli.iter().map(|s| s.to_string()).collect();
    kibitzer::settings::load(None, env.iter().copied(), &cli)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_non_loopback_bind_needs_a_token_and_gets_401_without_it() {
    // Refused at start, naming the key and the fix.
    let e = web_settings(&[], &["web.listen=0.0.0.0:0"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("web.listen") && e.contains("token"), "{e}");
    assert!(e.contains("KIBITZER_WEB_TOKEN"), "{e}");
    let e = web_settings(&[("KIBITZER_WEB_LISTEN", "somewhere")], &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("KIBITZER_WEB_LISTEN") && e.contains("'somewhere'"),
        "{e}"
    );
    let e = web_settings(&[], &["web.token=x"]).unwrap_err().to_string();
    assert!(e.contains("visible to every user"), "{e}");
    let e = web_settings(&[], &["web.token_file=/nonexistent/token"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("web.token_file") && e.contains("/nonexistent/token"),
        "{e}"
    );
    let dir = crate::daemon::temp_dir("web-config");
    let toml = dir.join("k.toml");
    std::fs::write(&toml, "[web]\nlisten = \"127.0.0.1:0\"\ntoken = \"x\"\n").unwrap();
    let e = kibitzer::settings::load(Some(&toml), std::iter::empty::<(String, String)>(), &[])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("web.token") && e.contains("KIBITZER_WEB_TOKEN"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Loopback needs none; off by default.
    let s = web_settings(&[], &["web.listen=127.0.0.1:0"]).unwrap();
    assert!(WebConfig::from_settings(&s)
        .unwrap()
        .unwrap()
        .token
        .is_none());
    let s = web_settings(&[], &[]).unwrap();
    assert!(WebConfig::from_settings(&s).unwrap().is_none());
    // A token from a file.
    let dir = crate::daemon::temp_dir("web-token");
    std::fs::write(dir.join("token"), "filesecret\n").unwrap();
    let f = format!("web.token_file={}", dir.join("token").display());
    let s = web_settings(&[], &["web.listen=0.0.0.0:0", &f]).unwrap();
    assert_eq!(
        WebConfig::from_settings(&s)
            .unwrap()
            .unwrap()
            .token
            .as_deref(),
        Some("filesecret")
    );
    let _ = std::fs::remove_dir_all(&dir);

    let s = web_settings(
        &[("KIBITZER_WEB_TOKEN", "s3cret")],
        &["web.listen=0.0.0.0:0"],
    )
    .unwrap();
    let cfg = WebConfig::from_settings(&s).unwrap().unwrap();
    assert!(!cfg.listen.ip().is_loopback());
    let tx = StatusTx::new();
    let server = web::start(cfg, tx.subscribe()).await.unwrap();
    let a: SocketAddr = format!("127.0.0.1:{}", server.local_addr().port())
        .parse()
        .unwrap();
    for path in [
        "/",
        "/api/status",
        "/metrics",
        "/healthz",
        "/games/1.pgn",
        "/ws",
    ] {
        let r = get(a, path).await;
        assert_eq!(r.code, 401, "{path}: {}", r.head);
        assert!(
            r.head.contains("WWW-Authenticate: Bearer")
                || r.head.contains("www-authenticate: Bearer"),
            "{}",
            r.head
        );
    }
    assert_eq!(get_bearer(a, "/api/status", "wrong").await.code, 401);
    assert_eq!(get(a, "/api/status?token=s3cre").await.code, 401);
    assert_eq!(get_bearer(a, "/api/status", "s3cret").await.code, 200);
    let page = get(a, "/?token=s3cret").await;
    assert_eq!(page.code, 200);
    assert!(page.body.contains("href=\"/api/status?token=s3cret\""));
    let (head, _ws) = ws_open(a, "/ws?token=s3cret").await;
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_4xx_and_limits_hold() {
    let tx = StatusTx::new();
    let cfg = WebConfig {
        max_connections: 3,
        head_timeout: Duration::from_millis(300),
        ..WebConfig::new("127.0.0.1:0".parse().unwrap())
    };
    let server = web::start(cfg, tx.subscribe()).await.unwrap();
    let a = server.local_addr();
    let big = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    assert_eq!(raw(a, big.as_bytes()).await.code, 431);
    let long = format!("/{}", "a".repeat(3000));
    let r = get(a, &long).await;
    assert_eq!(r.code, 414, "{}", r.head);
    assert_eq!(raw(a, b"BLAH\r\n\r\n").await.code, 400);
    assert_eq!(
        raw(
            a,
            b"GET / HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n"
        )
        .await
        .code,
        400
    );
    let post = raw(
        a,
        b"POST /api/status HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
    )
    .await;
    assert_eq!(post.code, 405);
    assert!(post.body.contains("read-only"));
    let body = raw(
        a,
        b"GET /api/status HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\nConnection: close\r\n\r\nxx",
    )
    .await;
    assert_eq!(body.code, 413);
    let r = get(a, "/?token=%zz").await;
    assert_eq!(r.code, 400);
    assert!(r.body.contains("percent"), "{}", r.body);
    let r = get(a, "/nope").await;
    assert_eq!(r.code, 404);
    assert!(r.body.contains("/api/status"));
    assert_eq!(get(a, "/games/x.pgn").await.code, 400);
    assert_eq!(get(a, "/games/5.pgn").await.code, 404);
    assert_eq!(get(a, "/ws").await.code, 400);
    // A head that never ends is cut off.
    let t = Instant::now();
    let mut s = TcpStream::connect(a).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut buf)).await;
    assert!(
        t.elapsed() < Duration::from_secs(3),
        "a slow head holds the connection {:?}",
        t.elapsed()
    );

    // The live feeds: the current state at once, then each change.
    let (head, mut ws) = ws_open(a, "/ws").await;
    assert!(
        head.starts_with("HTTP/1.1 101") && head.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
        "{head}"
    );
    let first: Value = serde_json::from_str(&ws_text(&mut ws).await.unwrap()).unwrap();
    assert!(first["link"].as_str().unwrap().contains("disconnected"));
    tx.update(|s| {
        s.link.connected = true;
        s.link.healthy = true;
    });
    let next: Value = serde_json::from_str(&ws_text(&mut ws).await.unwrap()).unwrap();
    assert!(
        next["link"].as_str().unwrap().contains(">connected<"),
        "{next}"
    );
    assert!(
        next.get("results").is_none(),
        "unchanged sections are not sent again"
    );
    // A ping is answered, a data frame closes the stream.
    ws.write_all(&ws_frame(0x9, b"hi")).await.unwrap();
    let mut pong = [0u8; 4];
    ws.read_exact(&mut pong).await.unwrap();
    assert_eq!(pong, [0x8A, 2, b'h', b'i']);
    ws.write_all(&ws_frame(0x1, b"do something")).await.unwrap();
    assert!(ws_text(&mut ws).await.is_none(), "closed");
    drop(ws);
    // The connection limit: three feeds held, a fourth connection is refused with 503.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let (head, ws) = ws_open(a, "/ws").await;
        assert!(head.starts_with("HTTP/1.1 101"), "{head}");
        held.push(ws);
    }
    let r = get(a, "/healthz").await;
    assert_eq!(r.code, 503);
    assert!(r.body.contains("too many connections"), "{}", r.body);
    held.pop();
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A place is free again; the server is alive after all of the above.
    let r = get(a, "/healthz").await;
    assert_eq!(r.code, 503);
    assert!(r.body.contains("engine"), "{}", r.body);
    drop(held);
    // The event stream, for scripts.
    let mut s = TcpStream::connect(a).await.unwrap();
    s.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let mut b = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("\n\n")
        || !String::from_utf8_lossy(&got).contains("data: ")
    {
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut b))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0);
        got.extend_from_slice(&b[..n]);
    }
    let text = String::from_utf8_lossy(&got).to_string();
    assert!(
        text.contains("text/event-stream") && text.contains("event: status"),
        "{text}"
    );
    drop(s);
}

// ----- the page in a real browser ------------------------------------------------------

/// Chromium's command, or `None` (and a note) when it is not installed; in CI (`CI`
/// set) a missing browser fails the test.
fn chromium(test: &str) -> Option<String> {
    for c in ["chromium", "chromium-browser", "google-chrome"] {
        let ok = std::process::Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Some(c.to_string());
        }
    }
    if std::env::var_os("CI").is_some() {
        panic!("{test}: Chromium is not installed; .ci/run installs it with `apt-get install -y chromium`, and this test needs a real browser");
    }
    eprintln!(
        "{test}: skipped: Chromium is not installed (`apt-get install chromium`); in CI this fails"
    );
    None
}

/// Runs headless Chromium on `url` with `what` (`--dump-dom` or `--screenshot=...`);
/// its standard output.
pub(crate) async fn headless(chromium: &str, profile: &Path, url: &str, what: &str) -> String {
    let args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-dev-shm-usage".into(),
        "--no-first-run".into(),
        "--hide-scrollbars".into(),
        "--window-size=1280,1400".into(),
        format!("--user-data-dir={}", profile.display()),
        "--virtual-time-budget=2000".into(),
        what.to_string(),
        url.to_string(),
    ];
    let c = chromium.to_string();
    let out = tokio::time::timeout(
        Duration::from_secs(90),
        tokio::task::spawn_blocking(move || std::process::Command::new(c).args(&args).output()),
    )
    .await
    .expect("chromium finishes")
    .unwrap()
    .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// The pieces a FEN places, as `square=letter`, sorted.
fn fen_pieces(fen: &str) -> Vec<String> {
    let mut v = Vec::new();
    for (i, rank) in fen.split(' ').next().unwrap().split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => file += n as u8,
                None => {
                    v.push(format!("{}{}={c}", (b'a' + file) as char, 8 - i));
                    file += 1;
                }
            }
        }
    }
    v.sort();
    v
}

/// The pieces drawn on a rendered board, as `square=letter`, sorted.
fn dom_pieces(html: &str) -> Vec<String> {
    let re = regex::Regex::new(r#"data-sq="([a-h][1-8])" data-piece="([PNBRQKpnbrqk])""#).unwrap();
    let mut v: Vec<String> = re
        .captures_iter(html)
        .map(|c| format!("{}={}", &c[1], &c[2]))
        .collect();
    v.sort();
    v
}

/// The text of the first element whose opening tag contains `marker`.
fn text_of<'a>(html: &'a str, marker: &str) -> Option<&'a str> {
    let i = html.find(marker)?;
    let rest = &html[i..];
    let start = rest.find('>')? + 1;
    let end = rest[start..].find('<')?;
    Some(&rest[start..start + end])
}

fn png_is_not_blank(path: &Path) -> (u32, u32, usize) {
    let file = std::fs::File::open(path).expect("screenshot written");
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let bytes = &buf[..info.buffer_size()];
    let px = info.color_type.samples();
    let mut colours = std::collections::HashSet::new();
    for p in bytes.chunks(px).step_by(7) {
        colours.insert(p.to_vec());
        if colours.len() > 1000 {
            break;
        }
    }
    (info.width, info.height, colours.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_renders_the_live_page() {
    let Some(chromium) = chromium("chromium_renders_the_live_page") else {
        return;
    };
    // The opponent stops moving at ply 8 with 12 s on its clock: the position holds
    // while the browser looks, then the bot flags it and the game ends.
    let cfg = FakeConfig {
        clock_ms: Some(12_000),
        opp_stall_at: Some(8),
        ..Default::default()
    };
    let r = start_live("browser", cfg, &[], &[]).await;
    let url = format!("http://{}/", r.addr());
    let v = r
        .wait_status(40, "the stalled position", |v| {
            let g = &v["games"][0];
            let fen = g["fen"].as_str().unwrap_or("");
            let our = if g["our_color"] == "white" {
                " w "
            } else {
                " b "
            };
            g["ply"].as_u64().unwrap_or(0) >= 8
                && !fen.contains(our)
                && g["search"]["pv"].is_string()
        })
        .await;
    let g = v["games"][0].clone();
    let profile = r.dir.join("chromium-profile");
    let dom = headless(&chromium, &profile, &url, "--dump-dom").await;
    let after = status_json(r.addr()).await;
    assert_eq!(after["games"][0]["fen"], g["fen"], "the position held");
    // The live feed ran: the script replaced the sections and says so.
    assert!(
        dom.contains("id=\"live\" class=\"ok\">live<"),
        "not live:\n{dom}"
    );
    assert!(dom.contains("data-seq=\""), "no event applied");
    // The board shows the current position.
    let fen = g["fen"].as_str().unwrap();
    assert!(dom.contains(&format!("data-fen=\"{fen}\"")), "{dom}");
    assert_eq!(dom_pieces(&dom), fen_pieces(fen));
    // Both clocks, the opponent's running.
    let clock_re = regex::Regex::new(r"^\d+:\d\d$").unwrap();
    let white = text_of(&dom, "class=\"clock white").expect("white clock");
    let black = text_of(&dom, "class=\"clock black").expect("black clock");
    assert!(
        clock_re.is_match(white) && clock_re.is_match(black),
        "{white} {black}"
    );
    let theirs = if g["our_color"] == "white" {
        "black"
    } else {
        "white"
    };
    assert!(dom.contains(&format!("class=\"clock {theirs} running\"")));
    // The PV of our last search, with move numbers.
    let pv = text_of(&dom, "class=\"pv\"").expect("a PV");
    assert_eq!(pv, g["search"]["pv"].as_str().unwrap());
    assert!(pv.contains(". "), "{pv}");
    assert!(dom.contains("Opponent <b>bottwo</b>"));
    // A screenshot in the test's directory: a real picture, not a blank page.
    let shot = r.dir.join("page.png");
    headless(
        &chromium,
        &profile,
        &url,
        &format!("--screenshot={}", shot.display()),
    )
    .await;
    // KIBITZER_SCREENSHOT=<file> keeps a copy (the test's directory is removed).
    if let Some(keep) = std::env::var_os("KIBITZER_SCREENSHOT") {
        std::fs::copy(&shot, keep).expect("copy the screenshot");
    }
    let (w, h, colours) = png_is_not_blank(&shot);
    assert!(w >= 800 && h >= 600, "{w}x{h}");
    assert!(colours > 20, "a blank screenshot: {colours} colours");

    // The bot flags the stalled opponent; the result table shows the game.
    let stats = r.srv.wait_results(1, Duration::from_secs(40)).await;
    let (result, _, _) = stats.results.first().cloned().expect("a result");
    r.wait_status(20, "the result", |v| v["results"]["recent"][0]["n"] == 1)
        .await;
    let dom = headless(&chromium, &profile, &url, "--dump-dom").await;
    assert!(dom.contains("No game in progress."), "{dom}");
    let row_at = dom.find("data-n=\"1\"").expect("the game in the results");
    let row = &dom[row_at..];
    assert_eq!(text_of(row, "class=\"result\""), Some(result.as_str()));
    assert!(row.contains("href=\"/games/1.pgn\""));
    let all = &dom[dom.find("id=\"tally-all\"").expect("all-time table")..];
    assert!(
        all.contains("<td>normal</td><td>0.2+0</td>")
            || all.contains("<td>normal</td><td>1+0</td>"),
        "{all}"
    );
    r.stop().await;
}

// ----- the measurement ----------------------------------------------------------------

/// A masked client text frame of any length.
fn ws_client_text(payload: &[u8]) -> Vec<u8> {
    let mask = [3u8, 1, 4, 1];
    let mut f = vec![0x81];
    match payload.len() {
        n if n < 126 => f.push(0x80 | n as u8),
        n if n <= u16::MAX as usize => {
            f.push(0x80 | 126);
            f.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            f.push(0x80 | 127);
            f.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    f.extend_from_slice(&mask);
    f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    f
}

/// Evaluates `expr` in the page of a Chromium started with
/// `--remote-debugging-port=0` (its port read from the profile), by the DevTools
/// protocol; the value as text.
async fn devtools_eval(profile: &Path, expr: &str) -> Option<String> {
    let port_file = std::fs::read_to_string(profile.join("DevToolsActivePort")).ok()?;
    let port: u16 = port_file.lines().next()?.trim().parse().ok()?;
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().ok()?;
    let list = raw(
        addr,
        format!("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
    .await;
    let targets: Value = serde_json::from_str(&list.body).ok()?;
    let url = targets.as_array()?.iter().find(|t| t["type"] == "page")?["webSocketDebuggerUrl"]
        .as_str()?
        .to_string();
    let path = &url[url.find("/devtools")?..];
    let mut s = TcpStream::connect(addr).await.ok()?;
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    s.write_all(req.as_bytes()).await.ok()?;
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut b).await.ok()? == 0 {
            return None;
        }
        head.push(b[0]);
    }
    let cmd = serde_json::json!({
        "id": 1,
        "method": "Runtime.evaluate",
        "params": {"expression": expr, "returnByValue": true}
    })
    .to_string();
    s.write_all(&ws_client_text(cmd.as_bytes())).await.ok()?;
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws_text(&mut s))
            .await
            .ok()??;
        let v: Value = serde_json::from_str(&msg).ok()?;
        if v["id"] == 1 {
            return v["result"]["result"]["value"].as_str().map(str::to_string);
        }
    }
}

struct Series {
    reactions: Vec<f64>,
    idle_cpu_percent: f64,
    rss_mb: u64,
    page_latency: Option<String>,
    clients: f64,
}

/// Three games at a node limit of 1 (every move instant), with or without the web
/// server and `browsers` headless Chromium pages open on it (real time, no virtual
/// clock); then 10 s idle with them still connected.
async fn series(name: &str, web_on: bool, browsers: usize, light: usize, chromium: &str) -> Series {
    let srv = FakeServer::start(FakeConfig {
        games: 3,
        max_plies: 40,
        ..Default::default()
    })
    .await;
    let dir = crate::daemon::temp_dir(&format!("web-measure-{name}"));
    let d = Daemon::new(crate::daemon::settings(srv.port, &dir, &["sn=1"]));
    let mut events = d.subscribe();
    let web = if web_on {
        Some(
            web::start(WebConfig::new("127.0.0.1:0".parse().unwrap()), d.status())
                .await
                .unwrap(),
        )
    } else {
        None
    };
    let control = d.control();
    let handle = tokio::spawn(d.run());
    let mut children = Vec::new();
    if let Some(w) = &web {
        let url = format!("http://{}/", w.local_addr());
        for i in 0..browsers {
            let profile = dir.join(format!("browser-{i}"));
            let child = std::process::Command::new(chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--no-first-run",
                    "--remote-debugging-port=0",
                    &format!("--user-data-dir={}", profile.display()),
                    &url,
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("chromium starts");
            children.push((child, profile));
        }
        // Light clients: WebSocket readers that render nothing.
        for _ in 0..light {
            let a = w.local_addr();
            tokio::spawn(async move {
                let (_, mut s) = ws_open(a, "/ws").await;
                while ws_text(&mut s).await.is_some() {}
            });
        }
        let end = Instant::now() + Duration::from_secs(60);
        loop {
            let m = get(w.local_addr(), "/metrics").await.body;
            if metric(&m, "kibitzer_web_clients") == Some((browsers + light) as f64) {
                break;
            }
            assert!(Instant::now() < end, "the browsers did not connect:\n{m}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    srv.wait_results(3, Duration::from_secs(120)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let mut reactions = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let kibitzer::bot::BotEvent::GameEnded(r) = e {
            reactions.extend(r.stats.reactions.iter().map(|x| x.0));
        }
    }
    // Idle, the browsers still connected.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let c0 = crate::daemon::proc_cpu_secs();
    tokio::time::sleep(Duration::from_secs(10)).await;
    let c1 = crate::daemon::proc_cpu_secs();
    let rss_mb = crate::daemon::proc_rss_kb() / 1024;
    let clients = match &web {
        Some(w) => metric(
            &get(w.local_addr(), "/metrics").await.body,
            "kibitzer_web_clients",
        )
        .unwrap_or(0.0),
        None => 0.0,
    };
    let page_latency = match children.first() {
        Some((_, profile)) => {
            devtools_eval(
                profile,
                "JSON.stringify(document.getElementById('page-latency').dataset)",
            )
            .await
        }
        None => None,
    };
    for (mut c, _) in children {
        let _ = c.kill();
        let _ = c.wait();
    }
    control.send(ControlMsg::Quit);
    let _ = tokio::time::timeout(Duration::from_secs(20), handle).await;
    drop(web);
    let _ = std::fs::remove_dir_all(&dir);
    reactions.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Series {
        reactions,
        idle_cpu_percent: (c1 - c0) / 10.0 * 100.0,
        rss_mb,
        page_latency,
        clients,
    }
}

/// The issue's measurement: reaction time from a style-12 board to an instant move
/// without and with the web server (5 Chromium pages open on it during the games),
/// the page's own update latency after a move, and the process's RSS and idle CPU
/// with the 5 browsers connected. Run:
/// `cargo test --test integration measure_web -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_web() {
    let chromium = chromium("measure_web").expect("chromium is needed");
    let off = series("off", false, 0, 0, &chromium).await;
    let light = series("light", true, 0, 5, &chromium).await;
    let on = series("on", true, 5, 0, &chromium).await;
    let row = |name: &str, s: &Series| {
        let r = &s.reactions;
        println!(
            "{name}: {} moves, reaction board -> instant move median {:.3} ms, 90% {:.3} ms, max {:.3} ms; idle CPU {:.2}% of a core, RSS {} MB, feeds connected {}",
            r.len(),
            r[r.len() / 2],
            r[r.len() * 9 / 10],
            r[r.len() - 1],
            s.idle_cpu_percent,
            s.rss_mb,
            s.clients
        );
    };
    row("web off", &off);
    row("web on, 5 WebSocket readers", &light);
    row("web on, 5 Chromium pages", &on);
    println!(
        "page update latency (board at the daemon -> page updated, measured by the page): {}",
        on.page_latency.as_deref().unwrap_or("not read")
    );
}
