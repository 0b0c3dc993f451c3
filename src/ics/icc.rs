//! ICC's level-2 units -> `ServerEvent`s. Where ICC's messages mean what FICS's do
//! (a challenge, a tell, a game's start or end, an offer) they are the same events;
//! a game itself is ICC's own: ICC does not send boards, it says a game started
//! (`DG_MY_GAME_STARTED`, `DG_STARTED_OBSERVING`), where it starts
//! (`DG_POSITION_BEGIN` and the moves that follow), each move (`DG_SEND_MOVES`,
//! algebraic and Smith notation, time and clock) and each clock in milliseconds
//! (`DG_MSEC`). This module keeps every game it is told about, replays the moves
//! with the move generator and gives the game as a `GamePosition` (start, moves,
//! clocks in ms) after each move; it never builds a FICS board. A move that does
//! not fit the board it keeps (or a unit that cannot be read) is an `Unknown` event
//! naming the problem; nothing here panics.
//!
//! Inside a level-1 unit (`^Y[ ... ^Y]`) the position after a move is held until
//! the unit closes or another unit arrives, so a `DG_MSEC` that follows the move (the
//! mover's clock after the increment) is in the position the daemon sees.

use super::datagram::{Datagram, DgError};
use super::event::{Challenge, GameEnd, GamePosition, Relation, ServerEvent};
use crate::chess::{Board, Color, Move};
use std::collections::{HashMap, HashSet};

/// The level-2 units the daemon uses (ICC's numbers).
pub mod dg {
    pub const WHO_AM_I: u16 = 0;
    pub const MY_GAME_STARTED: u16 = 15;
    pub const MY_GAME_RESULT: u16 = 16;
    pub const STARTED_OBSERVING: u16 = 18;
    pub const STOP_OBSERVING: u16 = 19;
    pub const OFFERS_IN_MY_GAME: u16 = 21;
    pub const SEND_MOVES: u16 = 24;
    pub const KIBITZ: u16 = 26;
    pub const MATCH: u16 = 29;
    pub const MATCH_REMOVED: u16 = 30;
    pub const PERSONAL_TELL: u16 = 31;
    pub const MOVE_ALGEBRAIC: u16 = 33;
    pub const MOVE_SMITH: u16 = 34;
    pub const MOVE_TIME: u16 = 35;
    pub const MOVE_CLOCK: u16 = 36;
    pub const ISOLATED_BOARD: u16 = 40;
    pub const REFRESH: u16 = 41;
    pub const ILLEGAL_MOVE: u16 = 42;
    pub const MY_RELATION_TO_GAME: u16 = 43;
    pub const SEEK: u16 = 50;
    pub const SEEK_REMOVED: u16 = 51;
    pub const MSEC: u16 = 56;
    pub const NOTIFY_ARRIVED: u16 = 64;
    pub const LOGIN_FAILED: u16 = 69;
    pub const MY_GAME_CHANGE: u16 = 100;
    pub const POSITION_BEGIN: u16 = 101;

    /// Turned on at login. With `MOVE_ALGEBRAIC`, `MOVE_SMITH`, `MOVE_TIME` and
    /// `MOVE_CLOCK` all on, a move in `SEND_MOVES` reads: game, algebraic, Smith,
    /// seconds used, seconds left.
    pub const WANTED: &[u16] = &[
        WHO_AM_I,
        MY_GAME_STARTED,
        MY_GAME_RESULT,
        STARTED_OBSERVING,
        STOP_OBSERVING,
        OFFERS_IN_MY_GAME,
        SEND_MOVES,
        KIBITZ,
        MATCH,
        MATCH_REMOVED,
        PERSONAL_TELL,
        MOVE_ALGEBRAIC,
        MOVE_SMITH,
        MOVE_TIME,
        MOVE_CLOCK,
        REFRESH,
        ILLEGAL_MOVE,
        MY_RELATION_TO_GAME,
        MSEC,
        NOTIFY_ARRIVED,
        LOGIN_FAILED,
        POSITION_BEGIN,
    ];

    /// The `level2settings=` bit string for `WANTED` (bit n: unit n).
    pub fn settings() -> String {
        let top = WANTED.iter().copied().max().unwrap_or(0) as usize;
        (0..=top)
            .map(|i| {
                if WANTED.contains(&(i as u16)) {
                    '1'
                } else {
                    '0'
                }
            })
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    Playing(Color),
    Observing,
    Examining,
}

#[derive(Clone, Debug)]
struct View {
    number: u32,
    white: String,
    black: String,
    minutes: u32,
    inc: u32,
    rel: Rel,
    start: Board,
    board: Board,
    moves: Vec<Move>,
    times: Vec<Option<i64>>,
    clock: [i64; 2],
    running: [Option<bool>; 2],
    /// Moves still to come after `DG_POSITION_BEGIN`.
    to_follow: usize,
    /// The position waits for the end of the level-1 unit (see the module text).
    held: bool,
    /// A `DG_REFRESH` was answered with the position and nothing moved since: a
    /// second one (`refresh` and `refresh N` sent together) gives nothing, so the
    /// game task does not see the same position twice.
    refreshed: bool,
}

impl View {
    /// The game as the daemon reads it: start, moves, clocks.
    fn position(&self) -> GamePosition {
        let stm = self.board.side_to_move();
        GamePosition {
            game: self.number,
            white: self.white.clone(),
            black: self.black.clone(),
            relation: match self.rel {
                Rel::Playing(c) => Relation::Playing(c),
                Rel::Observing => Relation::Observing,
                Rel::Examining => Relation::Examining,
            },
            start_fen: self.start.to_fen(),
            moves: self.moves.clone(),
            times_ms: self.times.clone(),
            clock_ms: self.clock,
            running: self.running[stm.index()].unwrap_or(self.moves.len() >= 2)
                && !matches!(self.rel, Rel::Examining),
            initial_minutes: self.minutes,
            increment_secs: self.inc,
        }
    }

    fn event(&self) -> ServerEvent {
        ServerEvent::Position(Box::new(self.position()))
    }
}

/// The state kept between units.
#[derive(Debug, Default)]
pub struct IccState {
    me: String,
    games: HashMap<u32, View>,
    /// Offers as last seen per game (the eight fields of `DG_OFFERS_IN_MY_GAME`).
    offers: HashMap<u32, [u32; 8]>,
    /// Opponents whose challenge resumes an adjourned game.
    resuming: HashSet<String>,
}

/// A Smith move (`e2e4`, `e4g5p`, `f7g8nQ`, `e1g1c`) as coordinates (`f7g8q`).
fn smith_to_uci(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 4 || !s.is_ascii() {
        return None;
    }
    let mut out = s[..4].to_string();
    if let Some(&p) = b[4..].iter().find(|c| b"NBRQ".contains(c)) {
        out.push(p.to_ascii_lowercase() as char);
    }
    Some(out)
}

fn color_of(word: &str) -> Option<Color> {
    match word {
        "W" | "w" => Some(Color::White),
        "B" | "b" => Some(Color::Black),
        _ => None,
    }
}

/// The kind of game as the formula knows kinds: a wild number other than 0 is a
/// variant; plain chess keeps ICC's `Bullet`/`Blitz`/`Standard`, and its other
/// rating types (`5-minute`, `1-minute`, `15-minute`...) are named by the time
/// control (FICS's limits: under 3 minutes bullet, under 15 blitz).
fn game_kind(wild: u32, rating_type: &str, minutes: u32, inc: u32) -> String {
    if wild != 0 {
        return "wild".into();
    }
    let t = rating_type.to_ascii_lowercase();
    if matches!(t.as_str(), "bullet" | "blitz" | "standard") {
        return t;
    }
    let secs = minutes
        .saturating_mul(60)
        .saturating_add(inc.saturating_mul(40));
    if secs < 180 {
        "bullet".into()
    } else if secs < 900 {
        "blitz".into()
    } else {
        "standard".into()
    }
}

fn rating(r: &str) -> Option<i32> {
    r.parse().ok().filter(|&x| x > 0)
}

impl IccState {
    pub fn new() -> IccState {
        IccState::default()
    }

    /// Boards held for the end of a level-1 unit, now.
    pub fn flush(&mut self, out: &mut Vec<ServerEvent>) {
        let mut held: Vec<u32> = self
            .games
            .values()
            .filter(|v| v.held)
            .map(|v| v.number)
            .collect();
        held.sort_unstable();
        for g in held {
            self.flush_game(g, out);
        }
    }

    fn flush_game(&mut self, game: u32, out: &mut Vec<ServerEvent>) {
        if let Some(v) = self.games.get_mut(&game) {
            if v.held {
                v.held = false;
                out.push(v.event());
            }
        }
    }

    /// One unit's body; `in_unit`: inside a level-1 unit (boards may wait for its
    /// end, see `flush`).
    pub fn datagram(&mut self, body: &str, in_unit: bool) -> Vec<ServerEvent> {
        let mut out = Vec::new();
        let d = match Datagram::parse(body) {
            Ok(d) => d,
            Err(e) => {
                self.flush(&mut out);
                out.push(ServerEvent::Unknown(format!("ICC: {e}")));
                return out;
            }
        };
        // A board held for a DG_MSEC goes out before anything else about any game.
        if d.number != dg::MSEC {
            self.flush(&mut out);
        }
        if let Err(e) = self.apply(&d, in_unit, &mut out) {
            out.push(ServerEvent::Unknown(format!("ICC: {e}")));
        }
        out
    }

    fn apply(
        &mut self,
        d: &Datagram,
        in_unit: bool,
        out: &mut Vec<ServerEvent>,
    ) -> Result<(), DgError> {
        use ServerEvent as E;
        match d.number {
            dg::WHO_AM_I => {
                self.me = d.req(0)?.to_string();
                out.push(E::SessionStarted {
                    handle: self.me.clone(),
                });
            }
            dg::LOGIN_FAILED => {
                let code: u32 = d.num(0)?;
                let why = d.text(1).to_string();
                out.push(match code {
                    11 | 9 => E::InvalidPassword,
                    14 => E::NameInUse,
                    5 => E::RegisteredName {
                        name: why.split_whitespace().next().unwrap_or("").to_string(),
                    },
                    2..=4 | 7 | 12 => E::BadName { why },
                    _ => E::Unknown(format!("ICC login: {why}")),
                });
            }
            dg::MY_GAME_STARTED
            | dg::STARTED_OBSERVING
            | dg::ISOLATED_BOARD
            | dg::MY_GAME_CHANGE => self.started(d, out)?,
            dg::POSITION_BEGIN => {
                let game: u32 = d.num(0)?;
                let fen = d.text(1).trim();
                let n: usize = d.num_or(2, 0);
                let Some(v) = self.games.get_mut(&game) else {
                    return Ok(());
                };
                let start = if fen.is_empty() {
                    Board::startpos()
                } else {
                    Board::from_fen(fen).map_err(|_| DgError::Field {
                        number: d.number,
                        index: 1,
                        what: "not a FEN position",
                    })?
                };
                v.start = start.clone();
                v.board = start;
                v.moves.clear();
                v.times.clear();
                v.to_follow = n.min(2000);
                v.refreshed = false;
                if v.to_follow == 0 {
                    out.push(v.event());
                }
            }
            dg::SEND_MOVES => {
                let game: u32 = d.num(0)?;
                let Some(v) = self.games.get_mut(&game) else {
                    return Ok(());
                };
                let (alg, smith) = (d.text(1), d.text(2));
                let m = smith_to_uci(smith)
                    .and_then(|u| v.board.parse_uci(&u).ok())
                    .or_else(|| v.board.parse_move(alg).ok());
                let Some(m) = m else {
                    out.push(E::Unknown(format!(
                        "ICC: game {game}: the move '{alg}' ({smith}) does not fit the board {}",
                        v.board.to_fen()
                    )));
                    return Ok(());
                };
                let mover = v.board.side_to_move();
                v.refreshed = false;
                v.board.make_move(m);
                v.moves.push(m);
                v.times
                    .push(d.num::<i64>(3).ok().map(|s| s.saturating_mul(1000)));
                if let Ok(secs) = d.num::<i64>(4) {
                    v.clock[mover.index()] = secs.saturating_mul(1000);
                }
                if v.to_follow > 0 {
                    v.to_follow -= 1;
                    if v.to_follow == 0 {
                        out.push(v.event());
                    }
                } else if in_unit {
                    v.held = true;
                } else {
                    out.push(v.event());
                }
            }
            dg::MSEC => {
                let game: u32 = d.num(0)?;
                let color = color_of(d.req(1)?).ok_or(DgError::Field {
                    number: d.number,
                    index: 1,
                    what: "not W or B",
                })?;
                let ms: i64 = d.num(2)?;
                let running = d.num::<u8>(3).ok().map(|r| r == 1);
                if let Some(v) = self.games.get_mut(&game) {
                    v.clock[color.index()] = ms;
                    if running.is_some() {
                        v.running[color.index()] = running;
                    }
                }
            }
            dg::REFRESH => {
                let game: u32 = d.num(0)?;
                if let Some(v) = self.games.get_mut(&game) {
                    if v.to_follow == 0 && !v.refreshed {
                        out.push(v.event());
                        v.refreshed = true;
                    }
                }
            }
            dg::MY_GAME_RESULT => {
                let game: u32 = d.num(0)?;
                let score = d.text(3);
                let descr = d.text(4);
                let (white, black) = match self.games.get(&game) {
                    Some(v) => (v.white.clone(), v.black.clone()),
                    None => (String::new(), String::new()),
                };
                // "Black resigns" -> "bottwo resigns", as FICS words it.
                let mut reason = descr.to_string();
                if let Some(rest) = descr.strip_prefix("White ") {
                    if !white.is_empty() {
                        reason = format!("{white} {rest}");
                    }
                } else if let Some(rest) = descr.strip_prefix("Black ") {
                    if !black.is_empty() {
                        reason = format!("{black} {rest}");
                    }
                }
                let result = match score {
                    "1-0" | "0-1" | "1/2-1/2" => score.to_string(),
                    _ => "*".to_string(),
                };
                let observed = self
                    .games
                    .get(&game)
                    .is_some_and(|v| !matches!(v.rel, Rel::Playing(_)));
                self.games.remove(&game);
                self.offers.remove(&game);
                out.push(E::GameEnd(GameEnd {
                    game,
                    white,
                    black,
                    reason,
                    result,
                }));
                if observed {
                    out.push(E::ObservationEnded { game });
                }
            }
            dg::MY_RELATION_TO_GAME => {
                let game: u32 = d.num(0)?;
                let sym = d.req(1)?;
                if sym == "X" {
                    if let Some(v) = self.games.remove(&game) {
                        self.offers.remove(&game);
                        if !matches!(v.rel, Rel::Playing(_)) {
                            out.push(E::ObservationEnded { game });
                        }
                    }
                } else if let Some(v) = self.games.get_mut(&game) {
                    v.rel = match sym {
                        "PW" => Rel::Playing(Color::White),
                        "PB" => Rel::Playing(Color::Black),
                        "E" => Rel::Examining,
                        _ => Rel::Observing,
                    };
                }
            }
            dg::STOP_OBSERVING => {
                let game: u32 = d.num(0)?;
                if self.games.remove(&game).is_some() {
                    out.push(E::ObservationEnded { game });
                }
            }
            dg::OFFERS_IN_MY_GAME => self.offers(d, out)?,
            dg::ILLEGAL_MOVE => {
                let mv = d.text(1);
                let reason: u32 = d.num_or(2, 2);
                out.push(if reason == 4 {
                    E::NotYourMove
                } else {
                    E::IllegalMove {
                        text: format!("Illegal move ({mv})."),
                    }
                });
            }
            dg::MATCH => self.challenge(d, out)?,
            dg::PERSONAL_TELL => {
                let from = d.req(0)?.to_string();
                let titles = d.text(1);
                let text = d.text(2).to_string();
                let kind: u32 = d.num_or(3, 1);
                out.push(if kind == 0 {
                    E::Say { from, text }
                } else {
                    let unregistered = titles.split_whitespace().any(|t| t == "U")
                        || super::parse::is_guest(&from);
                    E::Tell {
                        from,
                        text,
                        unregistered,
                    }
                });
            }
            dg::KIBITZ => {
                let from = d.req(1)?.to_string();
                let text = d.text(4).to_string();
                out.push(if d.num_or::<u8>(3, 1) == 1 {
                    E::Kibitz { from, text }
                } else {
                    E::Whisper { from, text }
                });
            }
            dg::SEEK => out.push(E::SeekAd {
                line: d.fields.join(" "),
            }),
            dg::SEEK_REMOVED => out.push(E::SeekRemoved),
            _ => out.push(E::Unknown(format!(
                "ICC DG {}: {}",
                d.number,
                d.fields.join(" ")
            ))),
        }
        Ok(())
    }

    fn started(&mut self, d: &Datagram, out: &mut Vec<ServerEvent>) -> Result<(), DgError> {
        use ServerEvent as E;
        let game: u32 = d.num(0)?;
        let white = d.req(1)?.to_string();
        let black = d.req(2)?.to_string();
        let wild: u32 = d.num_or(3, 0);
        let rated = d.text(5) == "1";
        let minutes: u32 = d.num_or(6, 0);
        let inc: u32 = d.num_or(7, 0);
        let kind = game_kind(wild, d.text(4), minutes, inc);
        let played = d.text(10) != "0";
        let (wr, br) = (rating(d.text(12)), rating(d.text(13)));
        let rel = match d.number {
            dg::MY_GAME_STARTED | dg::MY_GAME_CHANGE if played => {
                if white.eq_ignore_ascii_case(&self.me) {
                    Rel::Playing(Color::White)
                } else if black.eq_ignore_ascii_case(&self.me) {
                    Rel::Playing(Color::Black)
                } else {
                    Rel::Observing
                }
            }
            dg::MY_GAME_STARTED | dg::MY_GAME_CHANGE => Rel::Examining,
            _ if played => Rel::Observing,
            _ => Rel::Examining,
        };
        let ms = minutes as i64 * 60_000;
        let (start, board, moves, times, clock) = match self.games.get(&game) {
            // A changed game (or a repeated start) keeps its moves.
            Some(v) if v.white == white && v.black == black => (
                v.start.clone(),
                v.board.clone(),
                v.moves.clone(),
                v.times.clone(),
                v.clock,
            ),
            _ => (
                Board::startpos(),
                Board::startpos(),
                Vec::new(),
                Vec::new(),
                [ms, ms],
            ),
        };
        let known = self.games.contains_key(&game);
        self.games.insert(
            game,
            View {
                number: game,
                white: white.clone(),
                black: black.clone(),
                minutes,
                inc,
                rel,
                start,
                board,
                moves,
                times,
                clock,
                running: [None, None],
                to_follow: 0,
                held: false,
                refreshed: false,
            },
        );
        match rel {
            Rel::Playing(_) if !known || d.number == dg::MY_GAME_STARTED => {
                let opp = if white.eq_ignore_ascii_case(&self.me) {
                    &black
                } else {
                    &white
                };
                let continuing = self.resuming.remove(&opp.to_ascii_lowercase());
                let rated_word = if rated { "rated" } else { "unrated" };
                out.push(E::Creating {
                    white: white.clone(),
                    black: black.clone(),
                    white_rating: wr,
                    black_rating: br,
                    rated,
                    kind: kind.clone(),
                    minutes,
                    increment: inc,
                });
                out.push(E::GameStart {
                    game,
                    white,
                    black,
                    continuing,
                    description: format!(
                        "{} {rated_word} {kind} match.",
                        if continuing { "Continuing" } else { "Creating" }
                    ),
                });
            }
            Rel::Observing | Rel::Examining if d.number != dg::ISOLATED_BOARD => {
                out.push(E::Observing { game })
            }
            _ => {}
        }
        Ok(())
    }

    fn offers(&mut self, d: &Datagram, out: &mut Vec<ServerEvent>) -> Result<(), DgError> {
        use ServerEvent as E;
        let game: u32 = d.num(0)?;
        let mut now = [0u32; 8];
        for (i, x) in now.iter_mut().enumerate() {
            *x = d.num_or(i + 1, 0);
        }
        let before = self.offers.insert(game, now).unwrap_or([0; 8]);
        let Some(v) = self.games.get(&game) else {
            return Ok(());
        };
        let Rel::Playing(us) = v.rel else {
            return Ok(());
        };
        // Fields: wdraw bdraw wadjourn badjourn wabort babort wtakeback btakeback.
        let them = if us == Color::White { 1 } else { 0 };
        let from = if us == Color::White {
            v.black.clone()
        } else {
            v.white.clone()
        };
        let new = |k: usize| now[k + them] > 0 && now[k + them] != before[k + them];
        if new(0) {
            out.push(E::DrawOffer { from: from.clone() });
        }
        if new(2) {
            out.push(E::AdjournRequest { from: from.clone() });
        }
        if new(4) {
            out.push(E::AbortRequest { from: from.clone() });
        }
        if new(6) {
            out.push(E::TakebackRequest {
                from,
                plies: now[6 + them],
            });
        }
        Ok(())
    }

    fn challenge(&mut self, d: &Datagram, out: &mut Vec<ServerEvent>) -> Result<(), DgError> {
        // challenger rating annotation titles receiver rating annotation titles wild
        // rating-type rated adjourned c-time c-inc r-time r-inc color-request ...
        let challenger = d.req(0)?.to_string();
        let receiver = d.req(4)?.to_string();
        if !receiver.eq_ignore_ascii_case(&self.me) || challenger.eq_ignore_ascii_case(&self.me) {
            return Ok(());
        }
        let titles = d.text(3);
        let wild: u32 = d.num_or(8, 0);
        let adjourned = d.text(11) == "1";
        if adjourned {
            self.resuming.insert(challenger.to_ascii_lowercase());
        }
        let minutes: u32 = d.num(12)?;
        let increment: u32 = d.num(13)?;
        let kind = game_kind(wild, d.text(9), minutes, increment);
        let color = match d.num_or::<i32>(16, -1) {
            1 => Some(Color::White),
            0 => Some(Color::Black),
            _ => None,
        };
        out.push(ServerEvent::Challenge(Challenge {
            challenger_rating: rating(d.text(1)),
            receiver_rating: rating(d.text(5)),
            receiver,
            challenger_color: color,
            rated: d.text(10) == "1",
            kind,
            minutes,
            increment,
            adjourned,
            computer: titles.split_whitespace().any(|t| t == "C"),
            line: format!("ICC match request: {}", d.fields.join(" ")),
            challenger,
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ics::datagram::encode;

    fn body(s: &str) -> String {
        s.strip_prefix("\u{19}(")
            .and_then(|x| x.strip_suffix("\u{19})"))
            .unwrap()
            .to_string()
    }

    fn feed(st: &mut IccState, n: u16, f: &[&str], in_unit: bool) -> Vec<ServerEvent> {
        st.datagram(&body(&encode(n, f)), in_unit)
    }

    fn started(st: &mut IccState) -> Vec<ServerEvent> {
        feed(st, dg::WHO_AM_I, &["botone", ""], false);
        feed(
            st,
            dg::MY_GAME_STARTED,
            &[
                "7", "botone", "bottwo", "0", "Blitz", "1", "3", "2", "3", "2", "1", "", "1800",
                "1750", "123", "C", "", "0", "0", "0", "", "0",
            ],
            false,
        )
    }

    #[test]
    fn a_game_start_then_moves_give_positions_in_milliseconds() {
        let mut st = IccState::new();
        let ev = started(&mut st);
        assert!(
            matches!(&ev[0], ServerEvent::Creating { rated: true, minutes: 3, increment: 2, white_rating: Some(1800), kind, .. } if kind == "blitz")
        );
        assert!(matches!(
            &ev[1],
            ServerEvent::GameStart {
                game: 7,
                continuing: false,
                ..
            }
        ));
        let ev = feed(&mut st, dg::POSITION_BEGIN, &["7", "", "0"], false);
        let ServerEvent::Position(s) = &ev[0] else {
            panic!("{ev:?}")
        };
        assert!(s.moves.is_empty() && s.clock_ms[0] == 180_000);
        assert_eq!(s.relation, Relation::Playing(Color::White));
        assert_eq!(s.start_fen, Board::startpos().to_fen());
        // Inside a level-1 unit the board waits for the mover's DG_MSEC.
        let ev = feed(
            &mut st,
            dg::SEND_MOVES,
            &["7", "e4", "e2e4", "2", "179"],
            true,
        );
        assert!(ev.is_empty(), "{ev:?}");
        let ev = feed(&mut st, dg::MSEC, &["7", "W", "179876", "0"], true);
        assert!(ev.is_empty(), "{ev:?}");
        let mut ev = Vec::new();
        st.flush(&mut ev);
        let ServerEvent::Position(s) = &ev[0] else {
            panic!("{ev:?}")
        };
        assert_eq!(s.clock_ms[0], 179_876);
        assert_eq!(s.moves.len(), 1);
        assert_eq!(s.board().unwrap().side_to_move(), Color::Black);
        assert_eq!(s.times_ms, vec![Some(2000)]);
        // Outside a unit: at once, with the clock the move carries.
        let ev = feed(
            &mut st,
            dg::SEND_MOVES,
            &["7", "e5", "e7e5", "3", "177"],
            false,
        );
        let ServerEvent::Position(s) = &ev[0] else {
            panic!("{ev:?}")
        };
        assert_eq!((s.clock_ms[1], s.moves.len()), (177_000, 2));
        assert!(s.board().is_some());
        // A refresh gives the position once; the second of a pair, nothing.
        let ev = feed(&mut st, dg::REFRESH, &["7"], false);
        assert!(matches!(&ev[..], [ServerEvent::Position(p)] if p.moves.len() == 2));
        let ev = feed(&mut st, dg::REFRESH, &["7"], false);
        assert!(ev.is_empty(), "{ev:?}");
    }

    #[test]
    fn results_offers_tells_and_bad_moves() {
        let mut st = IccState::new();
        started(&mut st);
        feed(&mut st, dg::POSITION_BEGIN, &["7", "", "0"], false);
        let ev = feed(
            &mut st,
            dg::OFFERS_IN_MY_GAME,
            &["7", "0", "1", "0", "0", "0", "0", "0", "0"],
            false,
        );
        assert_eq!(
            ev,
            vec![ServerEvent::DrawOffer {
                from: "bottwo".into()
            }]
        );
        // Our own offer is not the opponent's.
        let ev = feed(
            &mut st,
            dg::OFFERS_IN_MY_GAME,
            &["7", "1", "1", "0", "0", "0", "0", "0", "0"],
            false,
        );
        assert!(ev.is_empty());
        let ev = feed(
            &mut st,
            dg::SEND_MOVES,
            &["7", "Ke2", "e1e2", "0", "0"],
            false,
        );
        assert!(matches!(&ev[0], ServerEvent::Unknown(t) if t.contains("does not fit")));
        let ev = feed(
            &mut st,
            dg::PERSONAL_TELL,
            &["alice", "", "status; resign", "1"],
            false,
        );
        assert_eq!(
            ev,
            vec![ServerEvent::Tell {
                from: "alice".into(),
                text: "status; resign".into(),
                unregistered: false
            }]
        );
        let ev = feed(&mut st, dg::ILLEGAL_MOVE, &["7", "e2e5", "2"], false);
        assert!(matches!(&ev[0], ServerEvent::IllegalMove { .. }));
        let ev = feed(
            &mut st,
            dg::MY_GAME_RESULT,
            &["7", "0", "Res", "1-0", "Black resigns", "C20"],
            false,
        );
        assert!(
            matches!(&ev[0], ServerEvent::GameEnd(e) if e.reason == "bottwo resigns" && e.result == "1-0")
        );
        let ev = st.datagram("24 x", false);
        assert!(matches!(&ev[0], ServerEvent::Unknown(t) if t.contains("field 0")));
    }

    #[test]
    fn challenges_and_settings() {
        let mut st = IccState::new();
        feed(&mut st, dg::WHO_AM_I, &["botone", ""], false);
        let ev = feed(
            &mut st,
            dg::MATCH,
            &[
                "Fritz", "2500", "2", "C", "botone", "0", "0", "", "0", "Bullet", "0", "0", "1",
                "0", "1", "0", "1", "{}",
            ],
            false,
        );
        let ServerEvent::Challenge(c) = &ev[0] else {
            panic!("{ev:?}")
        };
        assert!(c.computer && !c.rated && c.challenger == "Fritz" && c.kind == "bullet");
        assert_eq!(game_kind(0, "5-minute", 5, 0), "blitz");
        assert_eq!(game_kind(0, "45-minute", 45, 45), "standard");
        assert_eq!(game_kind(22, "Chess960", 5, 0), "wild");
        assert_eq!(
            (c.minutes, c.increment, c.challenger_color),
            (1, 0, Some(Color::White))
        );
        let bits = dg::settings();
        assert_eq!(bits.len(), 102);
        assert!(
            bits.starts_with('1') && bits.as_bytes()[24] == b'1' && bits.as_bytes()[25] == b'0'
        );
    }
}
