//! The status page in a real browser: Debian's headless Chromium renders the page of
//! the daemon on the fake server during a game and after it (the board's pieces, both
//! clocks, the PV, the result table, a screenshot that is not blank), and the
//! window's measurement (`measure_web`, ignored): reaction times with and without
//! the server and five browsers, the page's update latency, memory and idle CPU.

use crate::ics_fake_server::{FakeConfig, FakeServer};
use crate::web::{get, metric, raw, start_live, status_json, ws_open, ws_text};
use kibitzer::bot::{ControlMsg, Daemon};
use kibitzer::web::{self, WebConfig};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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

/// Every account on the page in a real browser, with its state: a daemon whose ICS
/// server cannot be reached (backing off: why, and when it tries again) beside a
/// Lichess account that plays, and a Lichess-only daemon (connected, its engine
/// shown). `KIBITZER_SCREENSHOT_ACCOUNTS=<prefix>` keeps the two screenshots as
/// `<prefix>-both.png` and `<prefix>-lichess.png`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_shows_every_account_with_its_state() {
    use crate::lichess_fake_server::{ChallengeSpec, FakeConfig as LiConfig, FakeLichess, TOKEN};
    let Some(chromium) = chromium("chromium_shows_every_account_with_its_state") else {
        return;
    };
    let fake = FakeLichess::start(LiConfig {
        opponent_delay: Duration::from_millis(400),
        ..LiConfig::default()
    })
    .await;
    // A port nobody listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    for (tag, ics_on) in [("both", true), ("lichess", false)] {
        let dir = crate::daemon::temp_dir(&format!("accounts-page-{tag}"));
        let mut extra = vec![
            format!("ics.enabled={}", if ics_on { "on" } else { "off" }),
            "ics.server=127.0.0.1".to_string(),
            format!("ics.port={closed}"),
            "ics.handle=botone".into(),
            "ics.reconnect_min=30".into(),
            "ics.reconnect_max=60".into(),
        ];
        extra.retain(|e| ics_on || !e.starts_with("ics.server") && !e.starts_with("ics.port"));
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let d = Daemon::new(crate::lichess::settings(&fake.url(), &dir, TOKEN, &extra));
        let w = web::start(WebConfig::new("127.0.0.1:0".parse().unwrap()), d.status())
            .await
            .expect("web");
        let control = d.control();
        let handle = tokio::spawn(d.run());
        let id = format!("page{tag}");
        fake.challenge(ChallengeSpec::standard(
            &id,
            120,
            0,
            kibitzer::chess::Color::White,
        ));
        let a = w.local_addr();
        let end = Instant::now() + Duration::from_secs(40);
        loop {
            let v = status_json(a).await;
            let li = v["accounts"]
                .as_array()
                .and_then(|x| x.iter().find(|a| a["name"] == "lichess").cloned());
            let ics_ready = !ics_on
                || v["accounts"].as_array().is_some_and(|x| {
                    x.iter()
                        .any(|a| a["name"] == "ics" && a["state"] == "backing_off")
                });
            if li.is_some_and(|l| l["state"] == "logged_in")
                && ics_ready
                && v["games"][0]["ply"].as_u64().unwrap_or(0) >= 4
            {
                break;
            }
            assert!(
                Instant::now() < end,
                "both accounts settle: {v:#} {:?}",
                fake.with(|s, g| (s.declined.clone(), s.accepted.clone(), g.len()))
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let url = format!("http://{a}/");
        let profile = dir.join("chromium-profile");
        let dom = headless(&chromium, &profile, &url, "--dump-dom").await;
        assert!(dom.contains("data-account=\"lichess\""), "{dom}");
        assert!(dom.contains("id=\"state-lichess\">connected<"), "{dom}");
        assert!(
            dom.contains("Game lichess/"),
            "the Lichess game is shown: {dom}"
        );
        let health = get(a, "/healthz").await;
        if ics_on {
            assert!(dom.contains("data-account=\"ics\""), "{dom}");
            assert!(dom.contains("id=\"state-ics\">disconnected<"), "{dom}");
            assert!(
                dom.contains("cannot log in"),
                "why the ICS account is down: {dom}"
            );
            assert!(
                dom.contains("class=\"until\""),
                "when it tries again: {dom}"
            );
            assert_eq!(health.code, 503);
            assert!(health.body.contains("ics account"), "{}", health.body);
        } else {
            assert!(!dom.contains("data-account=\"ics\""), "{dom}");
            assert_eq!(health.code, 200, "{}", health.body);
        }
        let shot = dir.join("page.png");
        headless(
            &chromium,
            &profile,
            &url,
            &format!("--screenshot={}", shot.display()),
        )
        .await;
        if let Some(keep) = std::env::var_os("KIBITZER_SCREENSHOT_ACCOUNTS") {
            let keep = format!("{}-{tag}.png", keep.to_string_lossy());
            std::fs::copy(&shot, keep).expect("copy the screenshot");
        }
        let (pw, ph, colours) = png_is_not_blank(&shot);
        assert!(
            pw >= 800 && ph >= 600 && colours > 20,
            "{pw}x{ph} {colours}"
        );
        control.send(ControlMsg::Quit);
        let _ = tokio::time::timeout(Duration::from_secs(20), handle).await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

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
