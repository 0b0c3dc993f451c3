//! Server lines -> typed `ServerEvent`s. Every line gives an event: what is not
//! recognised is `Unknown` (logged at debug by the caller), and no input makes the
//! parser panic (property-tested). Multi-line answers (`moves`, the list of players
//! with adjourned games) are collected by `LineParser`, which keeps that little
//! state between lines.

pub use super::event::{Challenge, ClockUnit, GameEnd, GameMoves, ServerEvent, Style12};
use crate::chess::{Board, Color};

impl Style12 {
    /// The position part of a style-12 board (pieces, side to move, double push,
    /// castling, counters) taken from `board`; the game's other fields empty, for a
    /// server that sends moves rather than boards (ICC, Lichess) to fill in.
    pub fn from_board(board: &Board) -> Style12 {
        let fen = board.to_fen();
        let mut f = fen.split(' ');
        let mut ranks = [[b'-'; 8]; 8];
        for (r, row) in f.next().unwrap_or("").split('/').take(8).enumerate() {
            let mut file = 0usize;
            for c in row.bytes() {
                if c.is_ascii_digit() {
                    file += (c - b'0') as usize;
                } else if file < 8 {
                    ranks[r][file] = c;
                    file += 1;
                }
            }
        }
        let _side = f.next();
        let castle = f.next().unwrap_or("-");
        let ep = f.next().unwrap_or("-");
        Style12 {
            ranks,
            side_to_move: board.side_to_move(),
            double_push: ep.bytes().next().filter(|_| ep != "-").map(|b| b - b'a'),
            castling: [
                castle.contains('K'),
                castle.contains('Q'),
                castle.contains('k'),
                castle.contains('q'),
            ],
            irreversible: board.halfmove_clock() as u32,
            game: 0,
            white: String::new(),
            black: String::new(),
            relation: 0,
            initial_minutes: 0,
            increment_secs: 0,
            white_strength: 0,
            black_strength: 0,
            white_clock: 0,
            black_clock: 0,
            move_number: board.fullmove_number() as u32,
            verbose_move: "none".into(),
            move_time: "(0:00)".into(),
            pretty_move: "none".into(),
            flip: false,
            ticking: None,
            lag_ms: None,
        }
    }
}

impl Style12 {
    /// Parses a `<12> ...` line (32 or 33 fields).
    pub fn parse(line: &str) -> Option<Style12> {
        let rest = line.trim_start().strip_prefix("<12>")?;
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() < 30 {
            return None;
        }
        let mut ranks = [[b'-'; 8]; 8];
        for (r, row) in ranks.iter_mut().enumerate() {
            let b = f[r].as_bytes();
            if b.len() != 8 {
                return None;
            }
            for (c, &ch) in b.iter().enumerate() {
                if !matches!(
                    ch,
                    b'-' | b'P'
                        | b'N'
                        | b'B'
                        | b'R'
                        | b'Q'
                        | b'K'
                        | b'p'
                        | b'n'
                        | b'b'
                        | b'r'
                        | b'q'
                        | b'k'
                ) {
                    return None;
                }
                row[c] = ch;
            }
        }
        let side_to_move = match f[8] {
            "W" => Color::White,
            "B" => Color::Black,
            _ => return None,
        };
        let dp: i64 = f[9].parse().ok()?;
        let double_push = (0..=7).contains(&dp).then_some(dp as u8);
        let flag = |s: &str| -> Option<bool> {
            match s {
                "1" => Some(true),
                "0" => Some(false),
                _ => None,
            }
        };
        let castling = [flag(f[10])?, flag(f[11])?, flag(f[12])?, flag(f[13])?];
        Some(Style12 {
            ranks,
            side_to_move,
            double_push,
            castling,
            irreversible: f[14].parse().ok()?,
            game: f[15].parse().ok()?,
            white: f[16].to_string(),
            black: f[17].to_string(),
            relation: f[18].parse().ok()?,
            initial_minutes: f[19].parse().ok()?,
            increment_secs: f[20].parse().ok()?,
            white_strength: f[21].parse().ok()?,
            black_strength: f[22].parse().ok()?,
            white_clock: f[23].parse().ok()?,
            black_clock: f[24].parse().ok()?,
            move_number: f[25].parse().ok()?,
            verbose_move: f[26].to_string(),
            move_time: f[27].to_string(),
            pretty_move: f[28].to_string(),
            flip: flag(f[29])?,
            ticking: f.get(30).and_then(|s| flag(s)),
            lag_ms: f.get(31).and_then(|s| s.parse().ok()),
        })
    }
}

/// Turns server lines into events; keeps the state of multi-line answers.
#[derive(Debug, Default)]
pub struct LineParser {
    movelist: Option<GameMoves>,
    /// Lines since the move list header (a broken listing is given up).
    movelist_lines: usize,
    adjourned_names_next: bool,
    /// The server's table of messages (`None`: FICS's).
    table: Option<&'static super::patterns::Table>,
    /// ICC: the games and offers its level-2 units told of (`None` elsewhere).
    icc: Option<super::icc::IccState>,
    /// ICC: level-1 units open now.
    units: u32,
}

/// True for a handle the server gives guests (`GuestABCD`).
pub fn is_guest(handle: &str) -> bool {
    handle.len() >= 5 && handle.is_char_boundary(5) && handle[..5].eq_ignore_ascii_case("guest")
}

pub(crate) fn strip_title(name: &str) -> (String, bool) {
    // Handles may carry titles: `Name(C)`, `Name(GM)(TM)`.
    let mut computer = false;
    let base = match name.find('(') {
        Some(i) => {
            computer = name[i..].contains("(C)");
            &name[..i]
        }
        None => name,
    };
    (base.to_string(), computer)
}

pub(crate) fn rating_of(text: &str) -> Option<i32> {
    let t = text.trim_matches(|c| c == '(' || c == ')');
    let t = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    t.parse().ok().filter(|&r| r > 0)
}

impl LineParser {
    pub fn new() -> LineParser {
        LineParser::default()
    }

    /// A parser that reads `kind`'s wording of its messages.
    pub fn for_server(kind: super::server::ServerKind) -> LineParser {
        LineParser {
            table: Some(super::patterns::table(kind)),
            icc: (kind == super::server::ServerKind::Icc).then(super::icc::IccState::new),
            ..Default::default()
        }
    }

    /// ICC: one level-2 unit (its body); elsewhere an unknown line.
    pub fn datagram(&mut self, body: &str) -> Vec<ServerEvent> {
        let in_unit = self.units > 0;
        match self.icc.as_mut() {
            Some(st) => st.datagram(body, in_unit),
            None => vec![ServerEvent::Unknown(body.replace('\u{19}', "^Y"))],
        }
    }

    /// ICC: a level-2 unit cut short.
    pub fn bad_datagram(&mut self, body: &str) -> Vec<ServerEvent> {
        let mut out = Vec::new();
        if let Some(st) = self.icc.as_mut() {
            st.flush(&mut out);
        }
        let shown: String = body
            .chars()
            .take(80)
            .map(|c| if c.is_control() { '?' } else { c })
            .collect();
        out.push(ServerEvent::Unknown(format!(
            "ICC: datagram cut short: {shown}"
        )));
        out
    }

    /// ICC: a level-1 unit opens.
    pub fn unit_start(&mut self) {
        self.units = (self.units + 1).min(8);
    }

    /// ICC: a level-1 unit closes: boards held for it go out.
    pub fn unit_end(&mut self) -> Vec<ServerEvent> {
        self.units = self.units.saturating_sub(1);
        let mut out = Vec::new();
        if let Some(st) = self.icc.as_mut() {
            st.flush(&mut out);
        }
        out
    }

    /// A prompt item: login/password prompts, guest entry, or the shell prompt.
    pub fn prompt(&mut self, text: &str) -> ServerEvent {
        let t = text.trim();
        if t.starts_with("login:") {
            return ServerEvent::LoginPrompt;
        }
        if t.starts_with("password:") {
            return ServerEvent::PasswordPrompt;
        }
        if t.starts_with("Press return to enter") {
            let name = t.split('"').nth(1).unwrap_or("").to_string();
            return ServerEvent::GuestPrompt { name };
        }
        ServerEvent::Prompt
    }

    /// One complete line.
    pub fn line(&mut self, line: &str) -> ServerEvent {
        if let Some(ev) = self.movelist_line(line) {
            return ev;
        }
        if self.adjourned_names_next {
            self.adjourned_names_next = false;
            let names: Vec<String> = line
                .split_whitespace()
                .map(|n| strip_title(n).0)
                .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric()))
                .collect();
            if !names.is_empty() {
                return ServerEvent::AdjournedOpponentOnline { names };
            }
        }
        parse_line(line, self)
    }

    fn movelist_line(&mut self, line: &str) -> Option<ServerEvent> {
        let ml = self.movelist.as_mut()?;
        self.movelist_lines += 1;
        let t = line.trim();
        if self.movelist_lines > 400 {
            self.movelist = None;
            return None;
        }
        if t.starts_with('{') && !t.starts_with("{Game ") {
            // `{Still in progress} *` or the result: the listing ends.
            let done = self.movelist.take().expect("checked");
            return Some(ServerEvent::GameMoves(done));
        }
        if t.starts_with("Move ") || t.starts_with("----") || t.contains("initial time") {
            if t.contains("initial time") || t.starts_with("Move ") {
                ml.standard_start = true;
            }
            return Some(ServerEvent::Unknown(line.to_string()));
        }
        let mut words = t.split_whitespace();
        if let Some(first) = words.next() {
            if first.ends_with('.')
                && first[..first.len() - 1].chars().all(|c| c.is_ascii_digit())
                && first.len() > 1
            {
                for w in words {
                    if w.starts_with('(') || w.ends_with(')') {
                        if ml.times.len() + 1 == ml.moves.len() {
                            ml.times.push(move_time_ms(w));
                        }
                        continue;
                    }
                    while ml.times.len() < ml.moves.len() {
                        ml.times.push(None);
                    }
                    ml.moves.push(w.to_string());
                }
                return Some(ServerEvent::Unknown(line.to_string()));
            }
        }
        None
    }
}

/// `(0:03)`, `(1:02.345)`, `(1:02:03)` -> milliseconds.
fn move_time_ms(w: &str) -> Option<i64> {
    let t = w.trim_start_matches('(').trim_end_matches(')');
    let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
    let mut secs: i64 = 0;
    for part in whole.split(':') {
        secs = secs
            .checked_mul(60)?
            .checked_add(part.parse::<i64>().ok()?)?;
    }
    let ms: i64 = if frac.is_empty() {
        0
    } else {
        let f: String = frac.chars().take(3).collect();
        f.parse::<i64>().ok()? * 10i64.pow(3 - f.len() as u32)
    };
    secs.checked_mul(1000)?.checked_add(ms)
}

fn after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    line.strip_prefix(prefix)
}

fn parse_line(line: &str, p: &mut LineParser) -> ServerEvent {
    use ServerEvent as E;
    let t = line.trim();
    if t.starts_with("<12>") {
        return match Style12::parse(t) {
            Some(s) => E::Style12(Box::new(s)),
            None => E::Unknown(line.to_string()),
        };
    }
    // Lines that start a multi-line answer (they set the parser's state).
    if let Some(rest) = after(t, "Movelist for game ") {
        let game = rest.trim_end_matches(':').parse().ok();
        p.movelist = Some(GameMoves {
            game,
            ..Default::default()
        });
        p.movelist_lines = 0;
        return E::Unknown(line.to_string());
    }
    if t.contains(") vs. ") && t.contains(" --- ") && !t.starts_with('{') {
        // Move list header: `botone (UNR) vs. bottwo (UNR) --- Sat Apr 20, ...`.
        let w: Vec<&str> = t.split_whitespace().collect();
        if w.len() >= 5 && w[2] == "vs." {
            let game = p.movelist.as_ref().and_then(|m| m.game);
            p.movelist = Some(GameMoves {
                game,
                white: strip_title(w[0]).0,
                black: strip_title(w[3]).0,
                ..Default::default()
            });
            p.movelist_lines = 0;
            return E::Unknown(line.to_string());
        }
    }
    if !t.contains(" tells you: ")
        && (t.contains("who has an adjourned game with you, is online:")
            || t.contains("who have an adjourned game with you, are online:"))
    {
        p.adjourned_names_next = true;
        return E::Unknown(line.to_string());
    }
    // Everything else: the server profile's table of messages.
    p.table
        .unwrap_or_else(|| super::patterns::table(super::server::ServerKind::Fics))
        .recognise(t, line)
        .unwrap_or_else(|| E::Unknown(line.to_string()))
}
