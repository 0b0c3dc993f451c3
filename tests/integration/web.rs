//! The operator's window against the daemon on the fake server: `/api/status` during
//! a game, the PGN link after it, metrics that move as games end, results read from
//! the PGN records, `/healthz` while the link is down, the token on a non-loopback
//! bind, bad and oversized requests, the connection limit, the live feeds (WebSocket
//! and event stream). The page in a real browser is `web_browser`.

use crate::ics_fake_server::{FakeConfig, FakeServer, FakeStats};
use kibitzer::bot::status::StatusTx;
use kibitzer::bot::{ControlMsg, Daemon, Exit};
use kibitzer::chess::Board;
use kibitzer::web::{self, WebConfig, WebServer};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::PathBuf;
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

pub(crate) struct Live {
    pub srv: FakeServer,
    handle: tokio::task::JoinHandle<Exit>,
    control: kibitzer::bot::Control,
    web: WebServer,
    pub dir: PathBuf,
}

/// The daemon on a fake server with its window on a free loopback port; `seed`:
/// files written into its records directory first.
pub(crate) async fn start_live(
    name: &str,
    cfg: FakeConfig,
    extra: &[&str],
    seed: &[(&str, &str)],
) -> Live {
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
    pub fn addr(&self) -> SocketAddr {
        self.web.local_addr()
    }

    pub async fn stop(self) -> FakeStats {
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
    pub async fn wait_status(&self, secs: u64, what: &str, f: impl Fn(&Value) -> bool) -> Value {
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
pub(crate) fn metric(text: &str, series: &str) -> Option<f64> {
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
    assert_eq!(v["accounts"][0]["name"], "ics");
    assert_eq!(v["accounts"][0]["connected"], true);
    assert_eq!(v["accounts"][0]["state"], "logged_in");
    assert_eq!(v["accounts"][0]["handle"], "botone");
    assert_eq!(get(a, "/healthz").await.code, 200);

    // Before the end: moves counted, no game finished.
    let m = get(a, "/metrics").await;
    assert_eq!(m.code, 200);
    assert!(m.head.contains("openmetrics-text"), "{}", m.head);
    assert!(metric(&m.body, "kibitzer_moves_sent_total").unwrap() >= 3.0);
    // The version and the process, as operators' dashboards expect them.
    assert!(
        m.body.contains(&format!(
            "kibitzer_build_info{{version=\"{}\",commit=\"",
            env!("CARGO_PKG_VERSION")
        )),
        "{}",
        m.body
    );
    assert!(metric(&m.body, "process_resident_memory_bytes").unwrap() > 1e6);
    assert!(metric(&m.body, "process_open_fds").unwrap() >= 3.0);
    assert!(metric(&m.body, "process_cpu_seconds_total").unwrap() > 0.0);
    assert!(metric(&m.body, "process_start_time_seconds").unwrap() > 1.6e9);
    assert!(
        !m.body.contains("kibitzer_games_total{"),
        "no finished game yet:\n{}",
        m.body
    );
    assert_eq!(
        metric(&m.body, "kibitzer_connected{account=\"ics\"}"),
        Some(1.0)
    );

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
    let series =
        format!("kibitzer_games_total{{account=\"ics\",result=\"{outcome}\",class=\"normal\"}}");
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
    assert!(down.body.contains("ics account"), "{}", down.body);
    let m = get(a, "/metrics").await.body;
    assert_eq!(metric(&m, "kibitzer_connected{account=\"ics\"}"), Some(0.0));
    assert_eq!(metric(&m, "kibitzer_healthy"), Some(0.0));
    let v = status_json(a).await;
    assert_eq!(v["accounts"][0]["connected"], false);
    assert!(
        v["accounts"][0]["reason"]
            .as_str()
            .is_some_and(|w| !w.is_empty()),
        "why it is down: {v:#}"
    );
    assert!(v["games"].as_array().unwrap().is_empty());
    // Back after the reconnect delay, saying why it reconnected.
    let v = r
        .wait_status(20, "the reconnect", |v| {
            v["accounts"][0]["connected"] == true
        })
        .await;
    assert_eq!(get(a, "/healthz").await.code, 200);
    assert!(
        v["accounts"][0]["last_reconnect"]["why"]
            .as_str()
            .is_some_and(|w| !w.is_empty()),
        "{v:#}"
    );
    assert_eq!(v["accounts"][0]["reconnects"], 1);
    let m = get(a, "/metrics").await.body;
    assert_eq!(
        metric(&m, "kibitzer_reconnects_total{account=\"ics\"}"),
        Some(1.0)
    );
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
    // A probe without the token gets the health check's status, and no reason.
    let probe = get(a, "/healthz").await;
    assert_eq!(probe.code, 503, "{}", probe.head);
    assert_eq!(probe.body, "unhealthy\n");
    assert_eq!(get(a, "/healthz?token=wrong").await.body, "unhealthy\n");
    assert_ne!(
        get_bearer(a, "/healthz", "s3cret").await.body,
        "unhealthy\n"
    );
    for path in ["/", "/api/status", "/metrics", "/games/1.pgn", "/ws"] {
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
    assert!(first["accounts"].as_str().unwrap().contains("no account"));
    tx.update(|s| {
        let mut a = kibitzer::bot::status::AccountStatus::new("ics", "x", 5000, "fics", "me");
        a.logged_in("me");
        s.accounts.push(a);
    });
    let next: Value = serde_json::from_str(&ws_text(&mut ws).await.unwrap()).unwrap();
    assert!(
        next["accounts"].as_str().unwrap().contains(">connected<"),
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
