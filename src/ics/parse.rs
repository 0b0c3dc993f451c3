//! Server lines -> typed `ServerEvent`s. Every line gives an event: what is not
//! recognised is `Unknown` (logged at debug by the caller), and no input makes the
//! parser panic (property-tested). Multi-line answers (`moves`, the list of players
//! with adjourned games) are collected by `LineParser`, which keeps that little
//! state between lines.

use crate::chess::{Board, Color};
use std::time::Duration;

/// One style-12 board line, all fields kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Style12 {
    /// Ranks 8 to 1, files a to h: `-` empty, `PNBRQK` White, `pnbrqk` Black.
    pub ranks: [[u8; 8]; 8],
    pub side_to_move: Color,
    /// File (0-7) of a pawn that just made a double push; `None` for -1 and for the
    /// garbage some servers send after castling.
    pub double_push: Option<u8>,
    /// White short, White long, Black short, Black long.
    pub castling: [bool; 4],
    /// Plies since the last irreversible move (the 50-move counter).
    pub irreversible: u32,
    pub game: u32,
    pub white: String,
    pub black: String,
    /// 1: we move now; -1: the opponent moves; 0: observing a played game (our turn
    /// never comes); 2/-2/-3: examining, observing, isolated position.
    pub relation: i32,
    /// Initial time in minutes and increment in seconds.
    pub initial_minutes: u32,
    pub increment_secs: u32,
    pub white_strength: i32,
    pub black_strength: i32,
    /// Clocks as sent: seconds, or milliseconds when the server honours `iset ms 1`
    /// (see `ClockUnit`). May be negative.
    pub white_clock: i64,
    pub black_clock: i64,
    /// Full move number of the move about to be made.
    pub move_number: u32,
    /// The last move in the server's verbose form (`P/e2-e4`, `o-o`), `none` at start.
    pub verbose_move: String,
    /// Time the last move took, as sent (`(0:00)` or `(0:01.234)`).
    pub move_time: String,
    /// The last move in SAN, `none` at start.
    pub pretty_move: String,
    /// Board shown from Black's side.
    pub flip: bool,
    /// Whether the clock runs (field 31); absent on old servers.
    pub ticking: Option<bool>,
    /// Lag in milliseconds (FICS's 33rd field).
    pub lag_ms: Option<u64>,
}

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

/// Units of the style-12 clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockUnit {
    Seconds,
    Millis,
}

impl ClockUnit {
    /// A clock value in this unit as a duration (negative values read as zero).
    pub fn duration(self, v: i64) -> Duration {
        let v = v.max(0) as u64;
        match self {
            ClockUnit::Seconds => Duration::from_secs(v),
            ClockUnit::Millis => Duration::from_millis(v),
        }
    }

    /// Milliseconds, sign kept.
    pub fn millis(self, v: i64) -> i64 {
        match self {
            ClockUnit::Seconds => v.saturating_mul(1000),
            ClockUnit::Millis => v,
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

    /// The piece placement field of a FEN.
    pub fn placement(&self) -> String {
        let mut s = String::with_capacity(72);
        for (r, row) in self.ranks.iter().enumerate() {
            let mut empty = 0;
            for &c in row {
                if c == b'-' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(c as char);
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if r < 7 {
                s.push('/');
            }
        }
        s
    }

    /// The position as FEN (castling rights only where king and rook stand on their
    /// squares, an en-passant square only after a double push).
    pub fn fen(&self) -> String {
        let at = |file: usize, rank_from_8: usize| self.ranks[rank_from_8][file];
        let mut castle = String::new();
        if self.castling[0] && at(4, 7) == b'K' && at(7, 7) == b'R' {
            castle.push('K');
        }
        if self.castling[1] && at(4, 7) == b'K' && at(0, 7) == b'R' {
            castle.push('Q');
        }
        if self.castling[2] && at(4, 0) == b'k' && at(7, 0) == b'r' {
            castle.push('k');
        }
        if self.castling[3] && at(4, 0) == b'k' && at(0, 0) == b'r' {
            castle.push('q');
        }
        if castle.is_empty() {
            castle.push('-');
        }
        let ep = match self.double_push {
            Some(f) => {
                let file = (b'a' + f) as char;
                match self.side_to_move {
                    Color::White => format!("{file}6"),
                    Color::Black => format!("{file}3"),
                }
            }
            None => "-".into(),
        };
        format!(
            "{} {} {} {} {} {}",
            self.placement(),
            if self.side_to_move == Color::White {
                "w"
            } else {
                "b"
            },
            castle,
            ep,
            self.irreversible,
            self.move_number.max(1)
        )
    }

    /// The position as a board, if it is a legal chess position.
    pub fn board(&self) -> Option<Board> {
        Board::from_fen(&self.fen()).ok().or_else(|| {
            // A bad en-passant square must not cost the whole position.
            let mut s = self.clone();
            s.double_push = None;
            Board::from_fen(&s.fen()).ok()
        })
    }

    /// Plies played since the start position (from the move number and side).
    pub fn ply(&self) -> u32 {
        2 * self.move_number.saturating_sub(1) + (self.side_to_move == Color::Black) as u32
    }

    /// True when this is the first board of a game from the standard start.
    pub fn is_initial(&self) -> bool {
        self.verbose_move == "none"
            && self.placement() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    }

    /// The colour we play, from the relation and the names (`None`: not our game).
    pub fn our_color(&self, handle: &str) -> Option<Color> {
        if !matches!(self.relation, 1 | -1) {
            return None;
        }
        if self.white.eq_ignore_ascii_case(handle) {
            Some(Color::White)
        } else if self.black.eq_ignore_ascii_case(handle) {
            Some(Color::Black)
        } else if self.relation == 1 {
            Some(self.side_to_move)
        } else {
            Some(!self.side_to_move)
        }
    }

    pub fn clock(&self, side: Color) -> i64 {
        match side {
            Color::White => self.white_clock,
            Color::Black => self.black_clock,
        }
    }
}

/// A match request addressed to us.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub challenger: String,
    /// `None` for `----`/`++++` (unrated or guest).
    pub challenger_rating: Option<i32>,
    pub receiver: String,
    /// The colour the challenger asked for, if any.
    pub challenger_color: Option<Color>,
    pub rated: bool,
    /// `blitz`, `lightning`, `standard`, `untimed`, `wild`, `non-standard`...
    pub kind: String,
    pub minutes: u32,
    pub increment: u32,
    /// Our own adjourned game (`Loaded from ... (adjourned)`).
    pub adjourned: bool,
    /// The challenger's handle carries the computer title `(C)`.
    pub computer: bool,
    pub line: String,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub game: u32,
    pub white: String,
    pub black: String,
    /// The server's words (`bottwo resigns`, `Game drawn by mutual agreement`).
    pub reason: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

/// A game's move list from the `moves` command.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct MoveList {
    pub game: Option<u32>,
    pub white: String,
    pub black: String,
    /// The moves in the server's SAN, in order.
    pub moves: Vec<String>,
    /// The time each move took, in ms, as listed (`(0:03)`, `(1:02.345)`), where
    /// it could be read.
    pub times: Vec<Option<i64>>,
    /// Whether the listing said the game starts from the standard position.
    pub standard_start: bool,
}

/// Everything the daemon can be told by a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    // ----- login ------------------------------------------------------------------
    /// `login:` (the item came as a prompt).
    LoginPrompt,
    PasswordPrompt,
    /// `Press return to enter the server as "GuestXYZW":`.
    GuestPrompt {
        name: String,
    },
    /// `"botone" is a registered name.`
    RegisteredName {
        name: String,
    },
    InvalidPassword,
    /// `*** Sorry newbie is already logged in ***`.
    NameInUse,
    /// The server refused the name itself (too short, bad characters).
    BadName {
        why: String,
    },
    /// `**** Starting FICS session as X ****`.
    SessionStarted {
        handle: String,
    },
    /// `**** X is already logged in - kicking them out. ****` (we kicked ourselves).
    KickedOther,
    /// `**** X has arrived - you can't both be logged in. ****` (we were kicked).
    Kicked,
    /// A shell prompt (`fics% `).
    Prompt,
    // ----- games ------------------------------------------------------------------
    Style12(Box<Style12>),
    /// `Creating: botone (1500) bottwo (----) unrated blitz 2 12`.
    Creating {
        white: String,
        black: String,
        white_rating: Option<i32>,
        black_rating: Option<i32>,
        rated: bool,
        kind: String,
        minutes: u32,
        increment: u32,
    },
    /// `{Game 1 (botone vs. bottwo) Creating unrated blitz match.}` or `Continuing`.
    GameStart {
        game: u32,
        white: String,
        black: String,
        continuing: bool,
        description: String,
    },
    GameEnd(GameEnd),
    MoveList(MoveList),
    IllegalMove {
        text: String,
    },
    NotYourMove,
    NotPlaying,
    // ----- offers -----------------------------------------------------------------
    Challenge(Challenge),
    /// `X accepts your challenge.` / `X declines the match offer.`
    ChallengeAnswer {
        from: String,
        accepted: bool,
    },
    DrawOffer {
        from: String,
    },
    AbortRequest {
        from: String,
    },
    AdjournRequest {
        from: String,
    },
    TakebackRequest {
        from: String,
        plies: u32,
    },
    /// `X declines draw request.` and the like.
    OfferDeclined {
        from: String,
        what: String,
    },
    /// `Your opponent is not out of time!`
    FlagRefused,
    // ----- seeks ------------------------------------------------------------------
    /// A seek ad line of ours or others (`  0    0 botone   2  12 rated   blitz`).
    SeekAd {
        line: String,
    },
    /// `Ads removed: ...`, `AD_DESTROY: ...`.
    SeekRemoved,
    // ----- talk -------------------------------------------------------------------
    Tell {
        from: String,
        text: String,
        /// The teller is a guest or unregistered (`(U)`): never an owner.
        unregistered: bool,
    },
    Say {
        from: String,
        text: String,
    },
    Whisper {
        from: String,
        text: String,
    },
    Kibitz {
        from: String,
        text: String,
    },
    // ----- observing --------------------------------------------------------------
    /// `You are now observing game 12.`
    Observing {
        game: u32,
    },
    /// `Removing game 12 from observation list.`, `Game 12 (which you were observing)
    /// has no examiners.`
    ObservationEnded {
        game: u32,
    },
    // ----- notifications ---------------------------------------------------------
    /// `Notification: X, who has an adjourned game with you, has arrived.` and the
    /// list of such players printed at login.
    AdjournedOpponentOnline {
        names: Vec<String>,
    },
    /// `Your opponent has lost contact or quit.`
    OpponentLostContact,
    /// Idle logout announced (`**** Auto-logout because you were idle ... ****`).
    AutoLogout,
    /// `**** Server going down in 0 minutes and 10 seconds. ****` (None: at once).
    Shutdown {
        in_secs: Option<u32>,
    },
    /// `Logging you out.` / `Thank you for using ...`: the server closes.
    LoggedOut,
    // ----- command replies --------------------------------------------------------
    CommandNotFound {
        command: String,
    },
    /// `No such ivariable "nowrap".` / `No such variable name x.`
    NoSuchVariable {
        name: String,
    },
    Unknown(String),
}

/// Turns server lines into events; keeps the state of multi-line answers.
#[derive(Debug, Default)]
pub struct LineParser {
    movelist: Option<MoveList>,
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
            return Some(ServerEvent::MoveList(done));
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
        p.movelist = Some(MoveList {
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
            p.movelist = Some(MoveList {
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
