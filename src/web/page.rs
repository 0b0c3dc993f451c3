//! The status page: one self-contained HTML document (styles and script inline, no
//! outside resources) whose sections (connection, games in progress, observed games,
//! results, engine) are rendered here from a `Status`, first into the page and then,
//! as they change, into server-sent events that the page's script swaps in. Boards and
//! the evaluation graph are `crate::svg`'s drawings (the ones `annotateh` writes);
//! clocks and "ago" times count on in the browser between events.

use super::api::RATING_POINTS;
use crate::bot::history::{self, Results, Tally};
use crate::bot::status::{unix_ms, AccountState, LiveGame, ObservedGame, Search, Status};
use crate::chess::{Board, Move, Square};
use crate::svg::{board_svg, escape, graph_svg};
use std::fmt::Write;

/// The page's sections, in order: (element id, heading).
pub const SECTIONS: [(&str, &str); 5] = [
    ("accounts", "Accounts"),
    ("games", "Games in progress"),
    ("observed", "Observed games"),
    ("results", "Results"),
    ("engine", "Engine"),
];

/// Percent-encodes a query value.
pub fn url_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `2024-06-13 12:34:56 UTC`.
pub fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// A clock: `0:58`, `1:02:03`.
pub fn clock(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// A time with a live "ago" beside it.
fn when(ms: u64) -> String {
    format!(
        "{} <span class=\"ago\" data-ms=\"{ms}\"></span>",
        escape(&utc(ms))
    )
}

fn rating(r: Option<i32>) -> String {
    r.filter(|&r| r > 0)
        .map_or(String::new(), |r| format!(" ({r})"))
}

/// One section by its id.
pub fn section(id: &str, s: &Status) -> String {
    match id {
        "accounts" => accounts(s),
        "games" => games(s),
        "observed" => observed(s),
        "results" => results(&s.results),
        _ => engine(s),
    }
}

/// The accounts section: each account's server, state (with why it is down and
/// when it tries again), lag and overhead.
pub fn accounts(s: &Status) -> String {
    let mut h = String::new();
    if s.accounts.is_empty() {
        h.push_str("<p>no account started yet</p>");
    }
    for a in &s.accounts {
        let _ = write!(
            h,
            "<h3 class=\"account\" data-account=\"{name}\">{name}</h3><table class=\"facts\">",
            name = escape(&a.name)
        );
        let mut row = |k: &str, v: String| {
            let _ = write!(h, "<tr><th>{k}</th><td>{v}</td></tr>");
        };
        let port = if a.port == 0 {
            String::new()
        } else {
            format!(":{}", a.port)
        };
        row(
            "Server",
            format!(
                "{}{port} <small>({})</small>",
                escape(&a.server),
                escape(&a.server_type)
            ),
        );
        row("Handle", escape(&a.handle));
        let id = format!("state-{}", escape(&a.name));
        let state = match (a.state, a.healthy) {
            (AccountState::LoggedIn, true) => {
                format!("<span class=\"ok\" id=\"{id}\">connected</span>")
            }
            (AccountState::LoggedIn, false) => {
                format!("<span class=\"warn\" id=\"{id}\">connected, not answering</span>")
            }
            (AccountState::Connecting, _) => {
                format!("<span class=\"warn\" id=\"{id}\">connecting</span>")
            }
            (AccountState::BackingOff, _) => {
                format!("<span class=\"bad\" id=\"{id}\">disconnected</span>")
            }
            (AccountState::Stopped, _) => {
                format!("<span class=\"bad\" id=\"{id}\">stopped</span>")
            }
        };
        row(
            "State",
            format!(
                "{state}{}",
                if a.draining {
                    " <span class=\"warn\">shutting down</span>"
                } else {
                    ""
                }
            ),
        );
        if !a.queued.is_empty() {
            row("Waiting to play", escape(&a.queued.join(", ")));
        }
        if !a.connected {
            if let Some(why) = &a.reason {
                row("Why", format!("<span class=\"why\">{}</span>", escape(why)));
            }
            if let Some(t) = a.next_try_unix_ms {
                row(
                    "Next try",
                    format!(
                        "{} <span class=\"until\" data-ms=\"{t}\"></span>",
                        escape(&utc(t))
                    ),
                );
            }
        }
        match (a.logged_in_since_unix_ms, a.disconnected_since_unix_ms) {
            (Some(t), _) => row("Logged in since", when(t)),
            (None, Some(t)) => row("Disconnected since", when(t)),
            _ => row("Logged in since", "not yet".into()),
        }
        row(
            "Last reconnect",
            match &a.last_reconnect {
                Some(r) => format!("{} after: {}", when(r.at_unix_ms), escape(&r.why)),
                None => "none".into(),
            },
        );
        row(
            "Lag",
            a.lag_ms
                .map_or("not measured yet".into(), |ms| format!("{ms} ms")),
        );
        row(
            "Move overhead",
            a.overhead_ms.map_or("not measured yet".into(), |ms| {
                format!("{ms} ms (adaptive)")
            }),
        );
        h.push_str("</table>");
    }
    let _ = write!(
        h,
        "<table class=\"facts\"><tr><th>Running since</th><td>{}</td></tr></table>",
        when(s.started_unix_ms)
    );
    h
}

fn search_facts(sr: &Option<Search>) -> String {
    match sr {
        None => "<p class=\"search\">no search yet</p>".into(),
        Some(x) => format!(
            "<table class=\"search\"><tr><th>Depth</th><td class=\"depth\">{}</td><th>Score</th><td class=\"score\">{}</td><th>Speed</th><td class=\"nps\">{} nps</td></tr></table><p class=\"pv\">{}</p>",
            x.depth,
            escape(&x.score),
            crate::format::count(x.nps),
            escape(&x.pv)
        ),
    }
}

fn board_of(fen: &str, last: Option<&str>) -> String {
    let Ok(b) = Board::from_fen(fen) else {
        return format!("<p class=\"bad\">unreadable position {}</p>", escape(fen));
    };
    let mv = last.and_then(|u| {
        let from = Square::parse(u.get(0..2)?)?;
        let to = Square::parse(u.get(2..4)?)?;
        Some(Move::new(from, to, 0))
    });
    board_svg(&b, mv, None)
}

fn talk_list(lines: &[String]) -> String {
    if lines.is_empty() {
        return "<ul class=\"talk\"><li class=\"none\">nothing said</li></ul>".into();
    }
    let mut h = String::from("<ul class=\"talk\">");
    for l in lines.iter().rev().take(8) {
        let _ = write!(h, "<li>{}</li>", escape(l));
    }
    h.push_str("</ul>");
    h
}

/// A game in progress. The clocks are drawn as they stood when the board came
/// (`data-at`); the page's script counts the running one down from there, so the
/// section changes only when the game does.
fn live_game(g: &LiveGame) -> String {
    let running = |side: &str| g.running.as_deref() == Some(side);
    let clock_el = |side: &str, name: &str, r: Option<i32>, ms: i64| {
        format!(
            "<div class=\"player {side}\"><span class=\"name\">{}{}</span> <span class=\"clock {side}{}\" data-ms=\"{ms}\" data-at=\"{}\" data-running=\"{}\">{}</span></div>",
            escape(name),
            rating(r),
            if running(side) { " running" } else { "" },
            g.board_unix_ms,
            running(side) as u8,
            clock(ms)
        )
    };
    let last = match &g.last_move {
        Some(m) => format!(
            "<p>Last move: <b class=\"last-move\">{}</b> (ply {})</p>",
            escape(&m.san),
            g.ply
        ),
        None => "<p>No move yet</p>".into(),
    };
    let graph = if g.evals.is_empty() {
        String::new()
    } else {
        let points: Vec<(String, i32)> = g.evals.iter().map(|e| (e.label.clone(), e.cp)).collect();
        format!("<div class=\"graph\">{}</div>", graph_svg(&points))
    };
    format!(
        "<article class=\"game\" data-game=\"{n}\" data-fen=\"{fen}\"><h3>{title}: {w}{wr} \u{2013} {b}{br} <small>{tc} {rated} {kind}</small></h3>\
<p class=\"opponent\">Opponent <b>{opp}</b>{or} <span class=\"class\">{class}</span>; we play {color}</p>\
<div class=\"row\"><div class=\"board\">{board}</div><div class=\"side\">{top}{bottom}{last}<h4>Engine</h4>{search}<h4>Said</h4>{talk}</div></div>{graph}</article>",
        n = g.game,
        title = game_title(g),
        fen = escape(&g.fen),
        w = escape(&g.white),
        wr = rating(g.white_rating),
        b = escape(&g.black),
        br = rating(g.black_rating),
        tc = escape(&g.time_control),
        rated = if g.rated { "rated" } else { "unrated" },
        kind = escape(&g.kind),
        opp = escape(&g.opponent),
        or = rating(g.opponent_rating),
        class = escape(&g.class),
        color = escape(&g.our_color),
        board = board_of(&g.fen, g.last_move.as_ref().map(|m| m.uci.as_str())),
        top = clock_el("black", &g.black, g.black_rating, g.black_ms),
        bottom = clock_el("white", &g.white, g.white_rating, g.white_ms),
        search = search_facts(&g.search),
        talk = talk_list(&g.talk),
    )
}

/// `Game 12`, or the game's unique name, linked to its page when it has one.
fn game_title(g: &LiveGame) -> String {
    let name = if g.name.is_empty() {
        format!("Game {}", g.game)
    } else {
        format!("Game {}", escape(&g.name))
    };
    match &g.url {
        Some(u) if u.starts_with("https://") || u.starts_with("http://") => {
            format!("<a href=\"{}\" rel=\"noopener\">{name}</a>", escape(u))
        }
        _ => name,
    }
}

/// Our games in progress.
pub fn games(s: &Status) -> String {
    if s.games.is_empty() {
        return "<p class=\"none\">No game in progress.</p>".into();
    }
    s.games.iter().map(live_game).collect()
}

fn observed_game(g: &ObservedGame) -> String {
    format!(
        "<article class=\"game observed\" data-game=\"{n}\" data-fen=\"{fen}\"><h3>{kind} {n}: {w} \u{2013} {b}</h3><div class=\"row\"><div class=\"board small\">{board}</div><div class=\"side\"><h4>Analysis</h4>{search}<h4>Said</h4>{talk}</div></div></article>",
        n = g.game,
        fen = escape(&g.fen),
        kind = if g.relay { "Relay" } else { "Game" },
        w = escape(&g.white),
        b = escape(&g.black),
        board = board_of(&g.fen, None),
        search = search_facts(&g.search),
        talk = talk_list(&g.talk),
    )
}

/// Observed games and relays.
pub fn observed(s: &Status) -> String {
    if s.observed.is_empty() {
        return "<p class=\"none\">Not observing.</p>".into();
    }
    s.observed.iter().map(observed_game).collect()
}

fn tally_table(id: &str, title: &str, t: &[Tally]) -> String {
    let mut h = format!(
        "<table class=\"tally\" id=\"{id}\"><caption>{title}</caption><tr><th>Class</th><th>Time</th><th>W</th><th>L</th><th>D</th><th>Other</th></tr>"
    );
    if t.is_empty() {
        h.push_str("<tr><td colspan=\"6\" class=\"none\">no games</td></tr>");
    }
    for x in t {
        let _ = write!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&x.class),
            escape(&x.time_control),
            x.wins,
            x.losses,
            x.draws,
            x.other
        );
    }
    h.push_str("</table>");
    h
}

/// Our rating after each rated game, as a line.
pub fn rating_svg(points: &[(u64, i32)]) -> String {
    let (w, h) = (640.0, 160.0);
    let (left, right, top, bottom) = (44.0, 10.0, 10.0, 24.0);
    let mut s = format!(
        "<svg class=\"rating\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"rating history\">\
<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#ccc\"/>",
        w - left - right,
        h - top - bottom
    );
    if points.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" fill=\"#777\">no rated games yet</text></svg>",
            w / 2.0,
            h / 2.0
        );
        return s;
    }
    let lo = points.iter().map(|p| p.1).min().unwrap_or(0) - 10;
    let hi = points.iter().map(|p| p.1).max().unwrap_or(0) + 10;
    let span = (hi - lo).max(1) as f64;
    let step = (w - left - right) / (points.len().max(2) - 1) as f64;
    let y = |r: i32| top + (hi - r) as f64 / span * (h - top - bottom);
    for r in [hi - 10, lo + 10] {
        let _ = write!(
            s,
            "<text class=\"y-label\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\" fill=\"#555\">{r}</text>",
            left - 4.0,
            y(r) + 3.5
        );
    }
    let coords: Vec<String> = points
        .iter()
        .enumerate()
        .map(|(i, &(_, r))| format!("{:.1},{:.1}", left + i as f64 * step, y(r)))
        .collect();
    if coords.len() > 1 {
        let _ = write!(
            s,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#2c3e50\" stroke-width=\"1.5\"/>",
            coords.join(" ")
        );
    }
    for (c, &(n, r)) in coords.iter().zip(points) {
        let (x, yy) = c.split_once(',').unwrap_or(("0", "0"));
        let _ = write!(
            s,
            "<circle class=\"point\" cx=\"{x}\" cy=\"{yy}\" r=\"2.5\" fill=\"#2980b9\"><title>game {n}: {r}</title></circle>"
        );
    }
    let _ = write!(
        s,
        "<text x=\"{left}\" y=\"{:.1}\" font-size=\"10\" fill=\"#555\">our rating after each of the last {} rated games</text></svg>",
        h - 6.0,
        points.len()
    );
    s
}

/// Tallies, the last games with their PGN links, the rating history.
/// Links carry no token here: the page's script adds the one the page came with.
pub fn results(r: &Results) -> String {
    let today = history::today();
    let mut h = String::from("<div class=\"tallies\">");
    h.push_str(&tally_table("tally-today", "Today", &r.tally(Some(today))));
    h.push_str(&tally_table(
        "tally-week",
        "This week",
        &r.tally(Some(history::week_start(today))),
    ));
    h.push_str(&tally_table("tally-all", "All time", &r.tally(None)));
    h.push_str("</div>");
    h.push_str("<table id=\"recent\"><caption>Last games</caption><tr><th>#</th><th>Date</th><th>White</th><th>Black</th><th>Result</th><th>Opponent</th><th>Time</th><th>Ending</th><th>PGN</th></tr>");
    let mut any = false;
    for g in r.recent(history::RECENT) {
        any = true;
        let link = if g.pgn.is_some() {
            format!("<a class=\"pgn\" href=\"/games/{}.pgn\">pgn</a>", g.n)
        } else {
            String::new()
        };
        let _ = write!(
            h,
            "<tr class=\"{}\" data-n=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"result\">{}</td><td>{} <small>{}</small></td><td>{}</td><td>{}</td><td>{link}</td></tr>",
            g.outcome.name(),
            g.n,
            g.n,
            escape(&g.date),
            escape(&g.white),
            escape(&g.black),
            escape(&g.result),
            escape(&g.opponent),
            escape(&g.class),
            escape(&g.time_control),
            escape(&g.termination),
        );
    }
    if !any {
        h.push_str("<tr><td colspan=\"9\" class=\"none\">no games yet</td></tr>");
    }
    h.push_str("</table><h4>Rating</h4>");
    h.push_str(&rating_svg(&r.rating_history(RATING_POINTS)));
    h
}

/// The engine's configuration and what it learned.
pub fn engine(s: &Status) -> String {
    let e = &s.engine;
    let c = &s.counters;
    let learning = match &e.learning {
        Some(l) => format!(
            "book {} moves, {} positions, {} result records",
            l.book, l.position, l.results
        ),
        None => "off (no bookpath)".into(),
    };
    let program = match &e.external {
        Some(cmd) => format!("<tr><th>Engine</th><td>external: {}</td></tr>", escape(cmd)),
        None => "<tr><th>Engine</th><td>built-in</td></tr>".to_string(),
    };
    let state = if e.healthy {
        "<span class=\"ok\">healthy</span>".to_string()
    } else {
        format!(
            "<span class=\"bad\">fault: {}</span>",
            escape(
                e.fault
                    .as_deref()
                    .unwrap_or("did not answer its last search")
            )
        )
    };
    format!(
        "<table class=\"facts\">{program}<tr><th>Threads</th><td>{}</td></tr><tr><th>Hash</th><td>{} MB</td></tr><tr><th>Ponder</th><td>{}</td></tr><tr><th>Book</th><td>{}</td></tr><tr><th>Tables</th><td>{}</td></tr><tr><th>Learning</th><td>{}</td></tr><tr><th>Last search</th><td>depth {}, {} nps</td></tr><tr><th>State</th><td>{}</td></tr></table>",
        e.threads,
        e.hash_mb,
        if e.ponder { "on" } else { "off" },
        escape(&e.book),
        escape(&e.tables),
        learning,
        c.search_depth,
        crate::format::count(c.engine_nps),
        state
    )
}

const STYLE: &str = "body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f4f2;color:#222}\
header{background:#2c3e50;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:baseline}\
header h1{font-size:18px;margin:0}#live{font-size:12px;opacity:.8}\
main{padding:8px 16px;display:grid;gap:12px}section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px 12px}\
h2{font-size:16px;margin:4px 0 8px}h3{font-size:15px;margin:4px 0}h4{font-size:13px;margin:8px 0 2px;color:#555}\
.row{display:flex;gap:16px;flex-wrap:wrap}.board svg{flex:none}.board.small svg{width:240px;height:240px}.side{flex:1;min-width:260px}\
.player{display:flex;justify-content:space-between;max-width:360px;font-size:15px}\
.clock{font:600 20px ui-monospace,monospace;padding:0 6px;border-radius:4px;background:#eee}.clock.running{background:#ffe08a}\
.pv{font-family:ui-monospace,monospace;word-break:break-word}.talk{margin:0;padding-left:18px;font-size:12px;color:#444}\
table{border-collapse:collapse}th,td{padding:2px 8px;text-align:left;vertical-align:top}.facts th{color:#555;font-weight:500}\
.tallies{display:flex;gap:16px;flex-wrap:wrap}.tally caption,#recent caption{text-align:left;font-weight:600}.tally td,.tally th{text-align:right}\
#recent{margin-top:8px}#recent tr.win td.result{color:#1e8449}#recent tr.loss td.result{color:#c0392b}\
.ok{color:#1e8449}.warn{color:#b9770e}.bad{color:#c0392b}.none{color:#777}footer{padding:4px 16px 12px;font-size:12px;color:#666}";

const SCRIPT: &str = r#"(function(){
var q=document.body.getAttribute('data-token')||'';
var ids=['link','games','observed','results','engine'];
var skew=(+document.body.getAttribute('data-now')||Date.now())-Date.now();var lat=[];var lastBoard=0;var fresh=true;
function pad(n){return (n<10?'0':'')+n;}
function fmt(ms){var s=Math.floor(Math.max(ms,0)/1000),h=Math.floor(s/3600),m=Math.floor(s/60)%60;s=s%60;return h?h+':'+pad(m)+':'+pad(s):m+':'+pad(s);}
function ago(ms){var s=Math.max(0,Math.round((Date.now()+skew-ms)/1000));if(s<60)return '('+s+' s ago)';if(s<3600)return '('+Math.floor(s/60)+' min ago)';if(s<86400)return '('+Math.floor(s/3600)+' h ago)';return '('+Math.floor(s/86400)+' d ago)';}
function tick(){var now=Date.now()+skew;
document.querySelectorAll('.clock').forEach(function(c){var ms=+c.getAttribute('data-ms');if(c.getAttribute('data-running')==='1')ms-=now-(+c.getAttribute('data-at'));c.textContent=fmt(ms);});
document.querySelectorAll('.ago').forEach(function(a){a.textContent=ago(+a.getAttribute('data-ms'));});
document.querySelectorAll('.until').forEach(function(a){var s=Math.max(0,Math.round((+a.getAttribute('data-ms')-Date.now()-skew)/1000));a.textContent='(in '+s+' s)';});}
function links(){if(!q)return;document.querySelectorAll('a.pgn').forEach(function(a){var h=a.getAttribute('href');if(h.indexOf('token=')<0)a.setAttribute('href',h+q);});}
function show(d){ids.forEach(function(k){if(typeof d[k]==='string'){document.getElementById(k).innerHTML=d[k];}});links();
if(d.sent_ms)skew=d.sent_ms-Date.now();tick();document.body.setAttribute('data-seq',d.seq);
if(fresh){fresh=false;lastBoard=d.board_ms||0;}
if(d.board_ms&&d.board_ms!==lastBoard){lastBoard=d.board_ms;lat.push(Date.now()-d.board_ms);if(lat.length>500)lat.shift();
var s=lat.slice().sort(function(a,b){return a-b;});var p=document.getElementById('page-latency');
p.setAttribute('data-n',s.length);p.setAttribute('data-median',s[Math.floor(s.length/2)]);p.setAttribute('data-max',s[s.length-1]);
p.textContent='page updated '+lat[lat.length-1]+' ms after the last board (median '+s[Math.floor(s.length/2)]+' ms, max '+s[s.length-1]+' ms over '+s.length+')';}}
var live=document.getElementById('live');
function connect(){fresh=true;var ws=new WebSocket((location.protocol==='https:'?'wss://':'ws://')+location.host+'/ws'+q);
ws.onmessage=function(e){show(JSON.parse(e.data));live.textContent='live';live.className='ok';};
ws.onclose=function(){live.textContent='reconnecting';live.className='warn';setTimeout(connect,1000);};}
if(window.WebSocket)connect();
setInterval(tick,250);tick();links();})();"#;

/// The whole page, with the current state already in it.
pub fn page(s: &Status, token_query: &str) -> String {
    let mut h = String::with_capacity(32 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>kibitzer: {who}</title><style>{STYLE}</style></head><body data-token=\"{token}\" data-now=\"{now}\"><header><h1>kibitzer {version}</h1><span>{who}</span><span id=\"live\">static</span></header><main>",
        who = escape(
            &s.accounts
                .iter()
                .map(|a| format!("{} on {}", a.handle, a.server))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        token = escape(token_query),
        version = escape(&s.version),
        now = unix_ms(),
    );
    for (id, title) in SECTIONS {
        let body = section(id, s);
        let _ = write!(
            h,
            "<section><h2>{title}</h2><div id=\"{id}\">{body}</div></section>"
        );
    }
    let _ = write!(
        h,
        "</main><footer>Read-only. JSON: <a href=\"/api/status{t}\">/api/status</a>, metrics: <a href=\"/metrics{t}\">/metrics</a>. <span id=\"page-latency\"></span></footer><script>{SCRIPT}</script></body></html>",
        t = escape(token_query)
    );
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::status::{AccountStatus, LastMove, LiveGame};

    #[test]
    fn times_and_clocks() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400_000 + 3_723_000), "2000-02-29 01:02:03 UTC");
        assert_eq!(clock(59_999), "0:59");
        assert_eq!(clock(3_723_000), "1:02:03");
        assert_eq!(clock(-5), "0:00");
        assert_eq!(url_encode("a b&c"), "a%20b%26c");
    }

    #[test]
    fn a_game_shows_board_clocks_pv_and_escapes_names() {
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
        let b = Board::from_fen(fen).unwrap();
        let mut s = Status::default();
        s.games.push(LiveGame {
            game: 5,
            white: "botone".into(),
            black: "<evil>".into(),
            fen: fen.into(),
            last_move: Some(LastMove {
                uci: "e7e5".into(),
                san: "e5".into(),
            }),
            white_ms: 61_000,
            black_ms: 59_000,
            running: Some("white".into()),
            board_unix_ms: unix_ms(),
            search: Some(Search::new(
                &b,
                7,
                25,
                1000,
                std::time::Duration::from_millis(10),
                &[b.parse_move("Nf3").unwrap()],
            )),
            ..Default::default()
        });
        let h = games(&s);
        assert_eq!(h.matches("class=\"piece\"").count(), 32);
        assert!(h.contains("data-sq=\"e5\" data-piece=\"p\""));
        assert!(h.contains("class=\"arrow played\" data-from=\"e7\" data-to=\"e5\""));
        assert!(h.contains("class=\"clock black\" data-ms=\"59000\""), "{h}");
        assert!(h.contains("data-running=\"0\">0:59<"), "{h}");
        assert!(h.contains("class=\"clock white running\""));
        assert!(h.contains("<p class=\"pv\">2. Nf3</p>"), "{h}");
        assert!(h.contains("&lt;evil&gt;") && !h.contains("<evil>"));
    }

    #[test]
    fn games_have_unique_names_and_links() {
        let mut s = Status::default();
        s.games.push(LiveGame {
            game: 1_000_001,
            site: "lichess".into(),
            name: "lichess/AbCd1234".into(),
            url: Some("https://lichess.org/AbCd1234\"><b>".into()),
            fen: Board::startpos().to_fen(),
            ..Default::default()
        });
        s.games.push(LiveGame {
            game: 12,
            site: "ics".into(),
            name: "ics/12".into(),
            url: Some("javascript:alert(1)".into()),
            fen: Board::startpos().to_fen(),
            ..Default::default()
        });
        let h = games(&s);
        assert!(
            h.contains("<a href=\"https://lichess.org/AbCd1234&quot;&gt;&lt;b&gt;\" rel=\"noopener\">Game lichess/AbCd1234</a>"),
            "{h}"
        );
        assert!(h.contains("<h3>Game ics/12:"), "no link but http(s): {h}");
        assert!(!h.contains("javascript:"));
    }

    #[test]
    fn the_challengers_waiting_are_listed_escaped() {
        let mut s = Status::default();
        let mut a = AccountStatus::new("lichess", "lichess.org", 443, "lichess", "KibBot");
        a.queued = vec!["Bob".into(), "<Carol>".into()];
        s.accounts.push(a);
        let p = page(&s, "");
        assert!(p.contains("Waiting to play"), "{p}");
        assert!(p.contains("Bob, &lt;Carol&gt;"), "{p}");
        s.accounts[0].queued.clear();
        assert!(!page(&s, "").contains("Waiting to play"));
    }

    #[test]
    fn the_page_is_self_contained() {
        let p = page(&Status::default(), "?token=a%20b");
        assert!(p.starts_with("<!DOCTYPE html>"));
        assert!(!p.contains("src=\"http") && !p.contains("href=\"http"));
        assert!(!p.contains("<script src") && !p.contains("<link "));
        assert!(p.contains("data-token=\"?token=a%20b\""));
        assert!(p.contains("id=\"recent\""));
    }
}
