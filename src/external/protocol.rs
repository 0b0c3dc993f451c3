//! The two engine protocols as text: what we write to an engine and how we read
//! what it writes back (UCI: `id`, `option`, `uciok`, `readyok`, `info`,
//! `bestmove`; xboard/CECP v2: `feature`, thinking output, `move`). Pure functions
//! over lines: no process, no clock; the driver (`super`) does the talking.

use crate::chess::{Board, Color, Move};
use crate::engine::{Bound, SearchInfo, SearchLimits, MATE};
use std::time::Duration;

/// Which protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Uci,
    Xboard,
}

impl Protocol {
    /// The protocol's name as operators write it.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Uci => "UCI",
            Protocol::Xboard => "xboard",
        }
    }

    pub fn parse(word: &str) -> Option<Protocol> {
        match word.trim().to_ascii_lowercase().as_str() {
            "uci" => Some(Protocol::Uci),
            "xboard" | "cecp" | "winboard" => Some(Protocol::Xboard),
            _ => None,
        }
    }
}

/// An option an engine offers (UCI `option name ... type ...`, xboard
/// `feature option="..."`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    pub name: String,
    /// `spin`, `check`, `combo`, `string`, `button`, `filename`...
    pub kind: String,
    pub default: String,
}

/// What an engine says about itself during the handshake.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub author: String,
    pub options: Vec<EngineOption>,
    /// xboard: `feature setboard=1`, `usermove=1`, `san=0`, `ping=1`...
    pub features: Vec<(String, String)>,
}

impl Identity {
    pub fn option(&self, name: &str) -> Option<&EngineOption> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    pub fn feature(&self, name: &str) -> Option<&str> {
        self.features
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One line of the handshake (`None`: not a handshake line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handshake {
    Name(String),
    Author(String),
    Option(EngineOption),
    /// `uciok`, or xboard's `feature done=1`.
    Done,
    /// xboard `feature k=v ...` (not `done`).
    Features(Vec<(String, String)>),
    /// `readyok` / xboard `pong N`.
    Ready,
}

/// A UCI handshake line.
pub fn uci_handshake(line: &str) -> Option<Handshake> {
    let line = line.trim();
    if line == "uciok" {
        return Some(Handshake::Done);
    }
    if line == "readyok" {
        return Some(Handshake::Ready);
    }
    if let Some(rest) = line.strip_prefix("id name ") {
        return Some(Handshake::Name(rest.trim().to_string()));
    }
    if let Some(rest) = line.strip_prefix("id author ") {
        return Some(Handshake::Author(rest.trim().to_string()));
    }
    let rest = line.strip_prefix("option name ")?;
    // The name runs to ` type `; the rest is keyword/value pairs.
    let (name, rest) = rest.split_once(" type ")?;
    let mut words = rest.split_whitespace();
    let kind = words.next().unwrap_or("").to_string();
    let mut default = String::new();
    let mut it = rest.split(" default ");
    it.next();
    if let Some(d) = it.next() {
        default = d
            .split(" min ")
            .next()
            .unwrap_or("")
            .split(" max ")
            .next()
            .unwrap_or("")
            .split(" var ")
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
    }
    Some(Handshake::Option(EngineOption {
        name: name.trim().to_string(),
        kind,
        default,
    }))
}

/// The pairs of an xboard `feature` line (values in quotes may hold spaces).
pub fn xboard_features(line: &str) -> Option<Vec<(String, String)>> {
    let rest = line.trim().strip_prefix("feature ")?;
    let mut out = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
        if key.is_empty() {
            break;
        }
        let value: String = if chars.peek() == Some(&'"') {
            chars.next();
            chars.by_ref().take_while(|&c| c != '"').collect()
        } else {
            chars.by_ref().take_while(|c| !c.is_whitespace()).collect()
        };
        out.push((key.trim().to_string(), value));
    }
    Some(out)
}

/// An xboard handshake line.
pub fn xboard_handshake(line: &str) -> Option<Handshake> {
    let t = line.trim();
    if t.starts_with("pong") {
        return Some(Handshake::Ready);
    }
    let f = xboard_features(t)?;
    if f.iter().any(|(k, v)| k == "done" && v == "1") {
        return Some(Handshake::Done);
    }
    Some(Handshake::Features(f))
}

/// The options named by xboard `feature option="Name -spin 64 1 1024"`.
pub fn xboard_options(features: &[(String, String)]) -> Vec<EngineOption> {
    features
        .iter()
        .filter(|(k, _)| k == "option")
        .filter_map(|(_, v)| {
            let (name, rest) = v.split_once(" -")?;
            let mut w = rest.split_whitespace();
            let kind = w.next().unwrap_or("").to_string();
            Some(EngineOption {
                name: name.trim().to_string(),
                kind,
                default: w.next().unwrap_or("").to_string(),
            })
        })
        .collect()
}

/// Text for one line to the engine: a line end or another control character in
/// an option's name or value (from the configuration) cannot start a second
/// command.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The UCI line that sets an option.
pub fn uci_setoption(name: &str, value: &str) -> String {
    let (name, value) = (one_line(name), one_line(value));
    if value.is_empty() {
        format!("setoption name {name}")
    } else {
        format!("setoption name {name} value {value}")
    }
}

/// The xboard line that sets an option.
pub fn xboard_option(name: &str, value: &str) -> String {
    format!("option {}={}", one_line(name), one_line(value))
}

/// The UCI `position` line for the game so far.
pub fn uci_position(start: &Board, moves: &[Move]) -> String {
    let mut s = if start.to_fen() == Board::startpos().to_fen() {
        "position startpos".to_string()
    } else {
        format!("position fen {}", start.to_fen())
    };
    if !moves.is_empty() {
        s.push_str(" moves");
        for m in moves {
            s.push(' ');
            s.push_str(&m.to_uci());
        }
    }
    s
}

/// The UCI `go` line for `limits`, with `overhead` taken off the clock (our lag to
/// the server is ours to pay).
pub fn uci_go(limits: &SearchLimits, overhead: Duration, side: Color) -> String {
    let mut s = String::from("go");
    if limits.ponder {
        s.push_str(" ponder");
    }
    if limits.infinite {
        s.push_str(" infinite");
        return s;
    }
    if let Some(c) = &limits.clock {
        let ms = |d: Duration| d.as_millis() as u64;
        let left = ms(c.time_left.saturating_sub(overhead)).max(1);
        let inc = ms(c.increment);
        // The opponent's clock as the server gave it (ours where it is unknown);
        // both increments are the game's.
        let theirs = c.opponent_left.map_or(left, |t| ms(t).max(1));
        let (w, b) = match side {
            Color::White => (left, theirs),
            Color::Black => (theirs, left),
        };
        s.push_str(&format!(" wtime {w} btime {b} winc {inc} binc {inc}"));
        if let Some(n) = c.moves_to_go.filter(|&n| n > 0) {
            s.push_str(&format!(" movestogo {n}"));
        }
    }
    if let Some(t) = limits.movetime {
        s.push_str(&format!(
            " movetime {}",
            (t.saturating_sub(overhead).as_millis() as u64).max(1)
        ));
    }
    if let Some(d) = limits.depth {
        s.push_str(&format!(" depth {d}"));
    }
    if let Some(n) = limits.nodes {
        s.push_str(&format!(" nodes {n}"));
    }
    if s == "go" {
        s.push_str(" infinite");
    }
    s
}

/// A UCI `info` line as a search report of the root `root` (`None`: no score or no
/// depth, e.g. `info string`, `info currmove`). Moves of the PV that are not legal
/// are cut off there; scores are the side to move's, mates in our mate scale.
pub fn uci_info(line: &str, root: &Board) -> Option<SearchInfo> {
    let mut w = line.split_whitespace();
    if w.next()? != "info" {
        return None;
    }
    let mut info = SearchInfo {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        score: 0,
        bound: Bound::Exact,
        nodes: 0,
        time: Duration::ZERO,
        hashfull: 0,
        tb_hits: 0,
        pv: Vec::new(),
        root_side: root.side_to_move(),
    };
    let (mut has_depth, mut has_score) = (false, false);
    let num = |w: Option<&str>| w.and_then(|x| x.parse::<i64>().ok());
    while let Some(k) = w.next() {
        match k {
            "depth" => {
                info.depth = num(w.next())? as i32;
                has_depth = true;
            }
            "seldepth" => info.seldepth = num(w.next()).unwrap_or(0) as i32,
            "multipv" => info.multipv = num(w.next()).unwrap_or(1).max(1) as usize,
            "nodes" => info.nodes = num(w.next()).unwrap_or(0).max(0) as u64,
            "time" => info.time = Duration::from_millis(num(w.next()).unwrap_or(0).max(0) as u64),
            "hashfull" => info.hashfull = num(w.next()).unwrap_or(0).max(0) as u32,
            "tbhits" => info.tb_hits = num(w.next()).unwrap_or(0).max(0) as u64,
            "nps" | "currmovenumber" | "cpuload" => {
                w.next();
            }
            "currmove" | "refutation" | "currline" => {
                // Not a report of the search: a line about one move.
                return None;
            }
            "string" => return None,
            "score" => {
                match w.next()? {
                    "cp" => info.score = (num(w.next())? as i32).clamp(-MATE + 1000, MATE - 1000),
                    "mate" => {
                        // Mate distances past 500 moves are nonsense: kept in range.
                        let n = num(w.next())?.clamp(-500, 500) as i32;
                        info.score = if n > 0 {
                            MATE - (2 * n - 1)
                        } else {
                            -MATE + (-2 * n)
                        };
                    }
                    _ => return None,
                }
                has_score = true;
            }
            "lowerbound" => info.bound = Bound::Lower,
            "upperbound" => info.bound = Bound::Upper,
            "pv" => {
                // A second `pv` in one line starts again from the root.
                info.pv.clear();
                let mut b = root.clone();
                for t in w.by_ref() {
                    match b.parse_uci(t) {
                        Ok(m) => {
                            b.make_move(m);
                            info.pv.push(m);
                        }
                        Err(_) => break,
                    }
                }
            }
            _ => {}
        }
    }
    (has_depth && has_score).then_some(info)
}

/// `bestmove e2e4 ponder e7e5` -> the two moves as text (`None`: not a bestmove
/// line). `(none)` and `0000` are no move.
pub fn uci_bestmove(line: &str) -> Option<(String, Option<String>)> {
    let mut w = line.split_whitespace();
    if w.next()? != "bestmove" {
        return None;
    }
    let best = w.next().unwrap_or("").to_string();
    let ponder = match (w.next(), w.next()) {
        (Some("ponder"), Some(p)) => Some(p.to_string()),
        _ => None,
    };
    Some((best, ponder))
}

/// An xboard thinking line `depth score time(cs) nodes pv...` (`None`: not one).
/// Scores are centipawns from the side to move, `100000 + N` a mate in N.
pub fn xboard_thinking(line: &str, root: &Board) -> Option<SearchInfo> {
    let mut w = line.split_whitespace();
    let depth: i32 = w.next()?.trim_end_matches(['.', '&']).parse().ok()?;
    let score: i64 = w.next()?.parse().ok()?;
    let cs: u64 = w.next()?.parse().ok()?;
    let nodes: u64 = w.next()?.parse().ok()?;
    // Mate distances past 500 moves are nonsense: kept in range.
    let score = if score >= 100_000 {
        MATE - (2 * (score - 100_000).clamp(1, 500) as i32 - 1)
    } else if score <= -100_000 {
        -MATE + 2 * (-(score.max(-1_000_000)) - 100_000).clamp(0, 500) as i32
    } else {
        (score as i32).clamp(-MATE + 1000, MATE - 1000)
    };
    let mut b = root.clone();
    let mut pv = Vec::new();
    for t in w {
        let t = t.trim_end_matches(['!', '?', '+', '#']);
        if t.chars().next().is_some_and(|c| c.is_ascii_digit()) && t.ends_with('.') {
            continue; // move numbers
        }
        match b.parse_move(t) {
            Ok(m) => {
                b.make_move(m);
                pv.push(m);
            }
            Err(_) => break,
        }
    }
    Some(SearchInfo {
        depth,
        seldepth: depth,
        multipv: 1,
        score,
        bound: Bound::Exact,
        nodes,
        time: Duration::from_millis(cs.saturating_mul(10)),
        hashfull: 0,
        tb_hits: 0,
        pv,
        root_side: root.side_to_move(),
    })
}

/// xboard `move e2e4` (also `move e7e8q`, SAN with `san=1`): the move text.
pub fn xboard_move(line: &str) -> Option<String> {
    let t = line.trim();
    let rest = t
        .strip_prefix("move ")
        .or_else(|| t.strip_prefix("My move is: "))
        .or_else(|| t.strip_prefix("my move is "))?;
    Some(rest.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ClockLimits;

    #[test]
    fn uci_handshake_lines() {
        assert_eq!(
            uci_handshake("id name Stockfish 15.1"),
            Some(Handshake::Name("Stockfish 15.1".into()))
        );
        assert_eq!(
            uci_handshake("option name Hash type spin default 16 min 1 max 33554432"),
            Some(Handshake::Option(EngineOption {
                name: "Hash".into(),
                kind: "spin".into(),
                default: "16".into()
            }))
        );
        assert_eq!(
            uci_handshake("option name Syzygy Path type string default <empty>"),
            Some(Handshake::Option(EngineOption {
                name: "Syzygy Path".into(),
                kind: "string".into(),
                default: "<empty>".into()
            }))
        );
        assert_eq!(uci_handshake("uciok"), Some(Handshake::Done));
        assert_eq!(uci_handshake("garbage"), None);
    }

    #[test]
    fn uci_info_and_bestmove() {
        let b = Board::startpos();
        let i = uci_info(
            "info depth 12 seldepth 18 multipv 1 score cp -23 upperbound nodes 123456 nps 999 hashfull 42 tbhits 3 time 250 pv e2e4 e7e5 zz",
            &b,
        )
        .unwrap();
        assert_eq!(
            (i.depth, i.seldepth, i.score, i.nodes),
            (12, 18, -23, 123_456)
        );
        assert_eq!((i.bound, i.hashfull, i.tb_hits), (Bound::Upper, 42, 3));
        assert_eq!(i.time, Duration::from_millis(250));
        assert_eq!(
            i.pv.len(),
            2,
            "the PV is cut at the first move that is not legal"
        );
        let m = uci_info("info depth 9 score mate 3 pv e2e4", &b).unwrap();
        assert_eq!(crate::engine::mate_in(m.score), Some(3));
        let m = uci_info("info depth 9 score mate -2", &b).unwrap();
        assert_eq!(crate::engine::mate_in(m.score), Some(-2));
        assert!(uci_info("info string hello", &b).is_none());
        assert!(uci_info("info depth 5 currmove e2e4 currmovenumber 1", &b).is_none());
        assert!(uci_info("info nodes 5", &b).is_none());
        assert_eq!(
            uci_bestmove("bestmove e2e4 ponder e7e5"),
            Some(("e2e4".into(), Some("e7e5".into())))
        );
        assert_eq!(
            uci_bestmove("bestmove (none)"),
            Some(("(none)".into(), None))
        );
        assert!(uci_bestmove("bestmovex").is_none());
    }

    #[test]
    fn uci_position_and_go() {
        let b = Board::startpos();
        let e4 = b.parse_move("e4").unwrap();
        assert_eq!(uci_position(&b, &[e4]), "position startpos moves e2e4");
        let l = SearchLimits {
            clock: Some(ClockLimits {
                time_left: Duration::from_millis(60_000),
                increment: Duration::from_millis(1000),
                moves_to_go: None,
                opponent_left: Some(Duration::from_millis(42_000)),
            }),
            ..Default::default()
        };
        assert_eq!(
            uci_go(&l, Duration::from_millis(100), Color::White),
            "go wtime 59900 btime 42000 winc 1000 binc 1000"
        );
        assert_eq!(
            uci_go(&l, Duration::from_millis(100), Color::Black),
            "go wtime 42000 btime 59900 winc 1000 binc 1000"
        );
        let p = SearchLimits {
            ponder: true,
            ..l.clone()
        };
        assert!(uci_go(&p, Duration::ZERO, Color::White).starts_with("go ponder wtime"));
        assert_eq!(
            uci_go(&SearchLimits::depth(7), Duration::ZERO, Color::White),
            "go depth 7"
        );
        assert_eq!(
            uci_go(&SearchLimits::default(), Duration::ZERO, Color::White),
            "go infinite"
        );
    }

    #[test]
    fn xboard_lines() {
        let f = xboard_features(r#"feature setboard=1 usermove=1 myname="Fairy-Max 5.0b" done=0"#)
            .unwrap();
        assert_eq!(f[2], ("myname".into(), "Fairy-Max 5.0b".into()));
        assert_eq!(xboard_handshake("feature done=1"), Some(Handshake::Done));
        let o = xboard_options(&[("option".into(), "Resign -check 0".into())]);
        assert_eq!(o[0].name, "Resign");
        let b = Board::startpos();
        let t = xboard_thinking(" 7  25 120 12345 e2e4 e7e5 Ng1f3 <hash> Bf1c4", &b).unwrap();
        assert_eq!((t.depth, t.score, t.nodes), (7, 25, 12_345));
        assert_eq!(t.time, Duration::from_millis(1200));
        assert_eq!(
            t.pv.len(),
            3,
            "the pv stops at the first word that is no move"
        );
        let m = xboard_thinking("9 100003 50 10 e2e4", &b).unwrap();
        assert_eq!(crate::engine::mate_in(m.score), Some(3));
        assert!(xboard_thinking("hello world", &b).is_none());
        assert_eq!(xboard_move("move e2e4"), Some("e2e4".into()));
        assert_eq!(xboard_move("tellics say hi"), None);
    }
}
