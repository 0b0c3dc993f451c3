//! A fake ICS server for the daemon tests, on 127.0.0.1:0. It speaks what the lasker
//! 2.2.x server spoke in `../shared/data/ics/` (banner, `login:`, `\n\r` line ends,
//! `fics% ` prompts glued to the next message, 32-field style 12 with clocks in
//! seconds, `Challenge:`/`Creating:`/`{Game ...}` lines, `moves` listings) and keeps a
//! real clock: each side is charged from the board being sent to its move arriving
//! (plus configurable lag and jitter; with timeseal, from the client's own stamps),
//! increments are added, and the side whose clock reaches zero loses (the bot's
//! opponent claims at once; the bot must send `flag` unless `autoflag`). Its own
//! player ("bottwo") plays real moves: our engine at a low node count.
//!
//! With `FakeConfig::icc` it speaks ICC instead (`ics_fake_icc`): the same games
//! and clock, told in level-1 and level-2 units.

mod commands;
mod connection;
#[path = "ics_fake_icc.rs"]
mod icc;
mod opponent;

use commands::{challenge, command};
use connection::{connection, reply, reply_to};
use opponent::opponent_turn;

use kibitzer::chess::{Board, Color, Move, PieceType};
use kibitzer::engine::{EngineHandle, SearchConfig, SearchLimits};
use kibitzer::ics::timeseal;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

pub const OPP: &str = "bottwo";
/// The fake's result entry for an unrated game a shutdown made vanish.
pub const DROPPED_BY_SHUTDOWN: &str = "unrated game dropped by the shutdown";

/// What the fake server does.
#[derive(Clone, Debug)]
pub struct FakeConfig {
    /// Registered accounts (name, password).
    pub users: Vec<(String, String)>,
    pub minutes: u32,
    pub inc: u32,
    /// Games the opponent plays before it stops challenging.
    pub games: usize,
    /// Clocks in milliseconds and 33 fields (FICS) instead of seconds and 32 (lasker).
    pub fics_mode: bool,
    pub autoflag: bool,
    /// Extra time charged to the bot per move (network lag), and random jitter on it.
    pub lag: Duration,
    pub jitter: Duration,
    /// The opponent's thinking time per move (its clock is charged) and node count.
    pub opp_think: Duration,
    pub opp_nodes: u64,
    /// Adjudicate a draw after this many plies.
    pub max_plies: usize,
    pub opp_resign_at: Option<usize>,
    pub opp_offer_draw_at: Option<usize>,
    pub opp_accepts_draws: bool,
    pub opp_abort_request_at: Option<usize>,
    pub opp_takeback_at: Option<usize>,
    pub opp_accepts_abort: bool,
    /// The opponent stops moving at this ply (its clock runs out); `Some(0)`: it
    /// never makes a first move.
    pub opp_stall_at: Option<usize>,
    /// lasker's rule: `abort` always needs the opponent's agreement, before the
    /// first move too (`com_abort`); otherwise a game with no move yet is aborted
    /// at once.
    pub abort_needs_agreement: bool,
    /// Drop the bot's connection after this ply (the game is adjourned, resumed on `match`).
    pub drop_at: Option<usize>,
    /// Shut the server down at this ply (adjourn, refuse logins for `down_for`).
    pub shutdown_at: Option<usize>,
    pub down_for: Duration,
    /// Answer the bot's move at this ply with `Illegal move.` once.
    pub illegal_reply_at: Option<usize>,
    /// Send one corrupted board at this ply (a wrong piece), then the right one.
    pub bad_board_at: Option<usize>,
    /// Log idle players out after this long.
    pub idle_logout: Option<Duration>,
    /// Mix garbage into the output: overlong lines, wrapped and glued lines, IAC, BEL.
    pub garbage: bool,
    /// Opening moves the opponent plays (SAN, its own moves only), then the engine.
    pub opp_book: Vec<&'static str>,
    /// The opponent's colour in the next game (alternates when `None`).
    pub opp_color: Option<Color>,
    /// Start both clocks with this many ms instead of the minutes (short tests).
    pub clock_ms: Option<i64>,
    /// An adjourned game (the bot White, these moves played) waiting at start.
    pub adjourned_moves: Vec<&'static str>,
    /// The server has no timeseal decoder (lasker): the hello is read as a login name.
    pub no_timeseal: bool,
    /// The opponent's link drops this long after the board of this ply reaches the
    /// bot (its move to make): the server adjourns the game.
    pub opp_disconnect_at: Option<usize>,
    pub opp_disconnect_after: Duration,
    /// With `opp_disconnect_at`: the opponent logs in again this long after the
    /// adjournment (`Notification: ... has arrived`, FICS text only).
    pub opp_return_after: Option<Duration>,
    /// With `shutdown_at`: announce the shutdown this many seconds ahead, as the
    /// real server's countdown does, and go down when it runs out.
    pub shutdown_countdown: Option<u64>,
    /// Handles `observe` finds playing (game numbers are observable only when listed).
    pub observable: Vec<String>,
    /// New games start from this position instead of the usual one.
    pub start_fen: Option<&'static str>,
    /// Draw claims (repetition, fifty moves) are not granted: the game goes on to
    /// `max_plies` (long games on purpose).
    pub refuse_draw_claims: bool,
    /// Speak ICC (level-1 and level-2 units) instead of the FICS-lineage text.
    pub icc: bool,
    /// The opponent challenges again this long after each result (an automatic
    /// rematch), whether or not the bot seeks.
    pub rematch_after: Option<Duration>,
    /// Games are rated (their lines say so). A shutdown adjourns only rated games, as
    /// lasker's does: an unrated game in progress vanishes without a game line and
    /// cannot be resumed (transcript `g_shutdown`, rated `g2_shutdown_countdown_rated`).
    pub rated: bool,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            users: vec![("botone".into(), "onepass".into())],
            minutes: 1,
            inc: 0,
            games: 1,
            fics_mode: false,
            autoflag: false,
            lag: Duration::ZERO,
            jitter: Duration::ZERO,
            opp_think: Duration::from_millis(20),
            opp_nodes: 300,
            max_plies: 400,
            opp_resign_at: None,
            opp_offer_draw_at: None,
            opp_accepts_draws: false,
            opp_abort_request_at: None,
            opp_takeback_at: None,
            opp_accepts_abort: false,
            opp_stall_at: None,
            abort_needs_agreement: false,
            drop_at: None,
            shutdown_at: None,
            down_for: Duration::from_secs(1),
            illegal_reply_at: None,
            bad_board_at: None,
            idle_logout: None,
            garbage: false,
            opp_book: Vec::new(),
            opp_color: None,
            clock_ms: None,
            adjourned_moves: Vec::new(),
            no_timeseal: false,
            opp_disconnect_at: None,
            opp_disconnect_after: Duration::from_millis(300),
            opp_return_after: None,
            shutdown_countdown: None,
            observable: Vec::new(),
            start_fen: None,
            refuse_draw_claims: false,
            icc: false,
            rated: false,
            rematch_after: None,
        }
    }
}

/// What happened, for the assertions and the measurements.
#[derive(Clone, Debug, Default)]
pub struct FakeStats {
    pub logins: usize,
    pub connections: usize,
    pub results: Vec<(String, String, usize)>,
    /// Moves of the bot the server found illegal.
    pub illegal_moves: usize,
    /// Games the bot lost on time.
    pub bot_time_losses: usize,
    /// Smallest time the bot had left after one of its moves, ms.
    pub min_bot_reserve_ms: Option<i64>,
    pub commands: Vec<String>,
    /// Timeseal pings answered.
    pub pings_answered: usize,
    pub declined: Vec<String>,
    /// Lines answered with `Command not found.` (what our commands must never be).
    pub not_found: Vec<String>,
    /// ICC: the `level1=`/`level2settings=` lines read at the login prompt.
    pub login_lines: Vec<String>,
}

struct Game {
    num: u32,
    white: String,
    black: String,
    board: Board,
    start: Board,
    moves: Vec<Move>,
    clock: [i64; 2],
    turn_since: Instant,
    /// Client stamp of the ping reply for the current board (timeseal).
    stamp_since: Option<u32>,
    illegal_done: bool,
    bad_done: bool,
    abort_asked: bool,
    offered: bool,
    takeback_asked: bool,
    stalled: bool,
}

impl Game {
    /// A game from `start`, both clocks at `ms`, no move played yet.
    fn new(num: u32, white: &str, black: &str, start: Board, ms: i64) -> Game {
        Game {
            num,
            white: white.into(),
            black: black.into(),
            board: start.clone(),
            start,
            moves: Vec::new(),
            clock: [ms, ms],
            turn_since: Instant::now(),
            stamp_since: None,
            illegal_done: false,
            bad_done: false,
            abort_asked: false,
            offered: false,
            takeback_asked: false,
            stalled: false,
        }
    }

    /// A game known by its number and players only (others' games).
    fn blank(num: u32, white: &str, black: &str) -> Game {
        Game::new(num, white, black, Board::startpos(), 0)
    }

    fn bot_color(&self, bot: &str) -> Color {
        if self.white == bot {
            Color::White
        } else {
            Color::Black
        }
    }
    fn ply(&self) -> usize {
        self.moves.len()
    }
}

struct World {
    cfg: FakeConfig,
    stats: FakeStats,
    game: Option<Game>,
    adjourned: Option<Game>,
    games_started: usize,
    next_num: u32,
    /// The bot's connection: its handle and writer.
    bot: Option<(String, mpsc::UnboundedSender<Vec<u8>>)>,
    challenge_pending: bool,
    down_until: Option<Instant>,
    rng: u64,
    /// The bot's `set width` (the server wraps long lines there).
    width: usize,
    /// When the opponent challenges again after a result (`rematch_after`).
    rematch_at: Option<Instant>,
}

/// A running fake server.
pub struct FakeServer {
    pub port: u16,
    world: Arc<Mutex<World>>,
}

fn lines(text: &str) -> Vec<u8> {
    text.replace('\n', "\n\r").into_bytes()
}

/// Wraps `text` at `width` columns as lasker does: a break after the last space
/// that fits (the space stays at the end of the line), continuation lines starting
/// with a backslash and three spaces, words longer than a line cut.
pub fn wrap(text: &str, width: usize) -> String {
    let width = width.max(20);
    let mut out = String::new();
    let mut rest = text;
    let mut first = true;
    loop {
        let room = if first { width } else { width - 4 };
        if !first {
            out.push_str("\n\\   ");
        }
        if rest.len() <= room {
            out.push_str(rest);
            return out;
        }
        let cut = match rest[..room].rfind(' ') {
            Some(i) if i > 0 => i + 1,
            _ => room,
        };
        out.push_str(&rest[..cut]);
        rest = &rest[cut..];
        first = false;
    }
}

const PROMPT: &str = "fics% ";
const BANNER: &str = "\n\r  (fake FICS-lineage server for tests)\n\r\n\rIf you are not a registered player enter the login name \"guest\"\n\rlogin: ";

impl World {
    /// `rated` or `unrated`, as the game lines say.
    fn rated_word(&self) -> &'static str {
        if self.cfg.rated {
            "rated"
        } else {
            "unrated"
        }
    }

    fn send(&self, text: &str) {
        if let Some((_, tx)) = &self.bot {
            let _ = tx.send(lines(text));
        }
    }

    fn rand(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn style12(&self, g: &Game, bot: &str, corrupt: bool) -> String {
        let b = &g.board;
        let mut ranks = Vec::new();
        for r in (0..8).rev() {
            let mut row = String::new();
            for f in 0..8 {
                let sq =
                    kibitzer::chess::Square::parse(&format!("{}{}", (b'a' + f) as char, r + 1))
                        .unwrap();
                row.push(b.piece_at(sq).map_or('-', |p| p.fen_char()));
            }
            ranks.push(row);
        }
        if corrupt {
            // A queen appears on a4 (or vanishes).
            let row = &mut ranks[4];
            let c = if row.as_bytes()[0] == b'-' { "Q" } else { "-" };
            row.replace_range(0..1, c);
        }
        let last = g.moves.last().copied();
        let mut prev = g.start.clone();
        for &m in &g.moves[..g.moves.len().saturating_sub(1)] {
            prev.make_move(m);
        }
        let (verbose, pretty, dpp) = match last {
            Some(m) => {
                let v = if m.is_castle() {
                    prev.verbose(m)
                } else {
                    // lasker omits the promotion piece in the verbose form.
                    let v = prev.verbose(m);
                    v.split('=').next().unwrap().to_string()
                };
                let dp = if prev.piece_at(m.from()).map(|p| p.kind()) == Some(PieceType::Pawn)
                    && (m.from().index() as i32 - m.to().index() as i32).abs() == 16
                {
                    (m.from().index() % 8) as i64
                } else if m.is_castle() {
                    -5760280 // lasker's garbage after castling
                } else {
                    -1
                };
                (v, prev.san(m).replace('#', "+"), dp)
            }
            None => ("none".to_string(), "none".to_string(), -1),
        };
        let cr = b.castling().to_fen();
        let c = |ch: char| if cr.contains(ch) { 1 } else { 0 };
        let bot_color = g.bot_color(bot);
        let relation = if b.side_to_move() == bot_color { 1 } else { -1 };
        let clock = |v: i64| {
            if self.cfg.fics_mode {
                v
            } else {
                v.div_euclid(1000)
            }
        };
        let mut line = format!(
            "<12> {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            ranks.join(" "),
            if b.side_to_move() == Color::White {
                "W"
            } else {
                "B"
            },
            dpp,
            c('K'),
            c('Q'),
            c('k'),
            c('q'),
            b.halfmove_clock(),
            g.num,
            g.white,
            g.black,
            relation,
            self.cfg.minutes,
            self.cfg.inc,
            39,
            39,
            clock(g.clock[0]),
            clock(g.clock[1]),
            b.fullmove_number(),
            verbose,
            "(0:00)",
            pretty,
            (bot_color == Color::Black) as u8,
            (g.ply() > 0) as u8,
            ""
        );
        line = line.trim_end().to_string();
        if self.cfg.fics_mode {
            line.push_str(" 0");
        }
        line
    }

    /// Sends the board to the bot (with a timeseal ping when it is its move).
    fn send_board(&mut self, bot: &str) {
        let corrupt = {
            let g = self.game.as_mut().unwrap();
            let c = self.cfg.bad_board_at == Some(g.ply()) && !g.bad_done;
            if c {
                g.bad_done = true;
            }
            c
        };
        let g = self.game.as_ref().unwrap();
        if self.cfg.icc {
            let issuer = if g.board.side_to_move() == g.bot_color(bot) {
                OPP
            } else {
                "*"
            };
            let u = icc::unit(icc::CN_MOVE, issuer, &self.icc_moved(g, corrupt));
            self.send(&u);
            if self.cfg.garbage && g.ply() % 7 == 3 {
                self.garbage();
            }
            return;
        }
        let mut out = String::new();
        if corrupt {
            out.push_str(&format!("\n{}\n{PROMPT}", self.style12(g, bot, true)));
        }
        out.push_str(&format!("\n{}\n{PROMPT}", self.style12(g, bot, false)));
        let ping = g.board.side_to_move() == g.bot_color(bot);
        self.send(&out);
        if ping {
            if let Some((_, tx)) = &self.bot {
                let _ = tx.send(b"[G]\0".to_vec());
            }
        }
        if self.cfg.garbage && g.ply() % 7 == 3 {
            self.garbage();
        }
    }

    fn garbage(&mut self) {
        if self.cfg.icc {
            let junk = self.icc_garbage();
            if let Some((_, tx)) = &self.bot {
                let _ = tx.send(junk);
            }
            return;
        }
        let long = "x".repeat(40_000);
        let mut junk: Vec<u8> = Vec::new();
        junk.extend_from_slice(b"\n\r");
        junk.extend_from_slice(long.as_bytes());
        junk.extend_from_slice(b"\n\r\xff\xfb\x01\x07fics% fics% GuestXYZ tells you: this is a long tell that the server wrapped at 79 \n\r\\   columns for us\n\r\r\nsome line with crlf\r\n\xff\xfc\x01\xc3\x28 broken utf-8 \x00\n\rfics% ");
        if let Some((_, tx)) = &self.bot {
            let _ = tx.send(junk);
        }
    }

    fn end_game(&mut self, text: &str, result: &str) {
        if let Some(g) = self.game.take() {
            let line = if self.cfg.icc {
                icc::unit(icc::CN_MOVE, "*", &self.icc_result(&g, text, result))
            } else {
                format!(
                    "\n{{Game {} ({} vs. {}) {}}} {}\nNo ratings adjustment done.\n{PROMPT}",
                    g.num, g.white, g.black, text, result
                )
            };
            self.send(&line);
            self.stats
                .results
                .push((result.to_string(), text.to_string(), g.ply()));
            self.challenge_pending = false;
            self.rematch_at = self.cfg.rematch_after.map(|d| Instant::now() + d);
        }
    }

    /// After a move: mate, stalemate, material, adjudication.
    fn check_end(&mut self) -> bool {
        let g = self.game.as_ref().unwrap();
        let b = &g.board;
        let (w, bl) = (g.white.clone(), g.black.clone());
        if !b.has_legal_move() {
            if b.in_check() {
                let loser = if b.side_to_move() == Color::White {
                    w
                } else {
                    bl
                };
                let res = if b.side_to_move() == Color::White {
                    "0-1"
                } else {
                    "1-0"
                };
                self.end_game(&format!("{loser} checkmated"), res);
            } else {
                self.end_game("Game drawn by stalemate", "1/2-1/2");
            }
            return true;
        }
        if b.is_insufficient_material() {
            self.end_game("Neither player has mating material", "1/2-1/2");
            return true;
        }
        if g.ply() >= self.cfg.max_plies {
            self.end_game("Game drawn by adjudication", "1/2-1/2");
            return true;
        }
        false
    }

    fn side_name(&self, c: Color) -> String {
        let g = self.game.as_ref().unwrap();
        if c == Color::White {
            g.white.clone()
        } else {
            g.black.clone()
        }
    }

    /// Charges the side to move and applies `m`; false when that side's time is out.
    fn apply(&mut self, m: Move, charge_ms: i64) -> bool {
        let inc = self.cfg.inc as i64 * 1000;
        let g = self.game.as_mut().unwrap();
        let side = g.board.side_to_move();
        let i = side.index();
        g.clock[i] -= charge_ms;
        if g.clock[i] < 0 {
            return false;
        }
        if g.ply() >= 2 {
            g.clock[i] += inc;
        }
        g.board.make_move(m);
        g.moves.push(m);
        g.turn_since = Instant::now();
        g.stamp_since = None;
        true
    }

    fn movelist(&self, g: &Game) -> String {
        let mut s = format!(
            "\nMovelist for game {}:\n\n{} ({r}) vs. {} ({r}) --- Sat Apr 20, 12:52 UTC 2013\n{} blitz match, initial time: {} minutes, increment: {} seconds.\n\nMove  {:<18} {:<18}\n----  ----------------   ----------------\n",
            g.num,
            g.white,
            g.black,
            if self.cfg.rated { "Rated" } else { "Unrated" },
            self.cfg.minutes,
            self.cfg.inc,
            g.white,
            g.black,
            r = if self.cfg.rated { "1500" } else { "UNR" }
        );
        let mut b = g.start.clone();
        for (i, &m) in g.moves.iter().enumerate() {
            if i % 2 == 0 {
                s.push_str(&format!("{:>3}.  ", i / 2 + 1));
            }
            let san = b.san(m).replace('#', "+");
            s.push_str(&format!("{:<8}(0:00)     ", san));
            b.make_move(m);
            if i % 2 == 1 {
                s.push('\n');
            }
        }
        if g.moves.len() % 2 == 1 {
            s.push('\n');
        }
        s.push_str(&format!("      {{Still in progress}} *\n\n{PROMPT}"));
        s
    }
}

impl FakeServer {
    pub async fn start(cfg: FakeConfig) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let engine = Arc::new(EngineHandle::new(4 << 20, 1));
        let adjourned = (!cfg.adjourned_moves.is_empty()).then(|| {
            let mut board = Board::startpos();
            let mut moves = Vec::new();
            for san in &cfg.adjourned_moves {
                let m = board.parse_move(san).unwrap();
                board.make_move(m);
                moves.push(m);
            }
            let ms = cfg.clock_ms.unwrap_or(cfg.minutes as i64 * 60_000);
            let mut g = Game::new(1, &cfg.users[0].0, OPP, Board::startpos(), ms);
            g.board = board;
            g.moves = moves;
            g
        });
        let world = Arc::new(Mutex::new(World {
            cfg,
            stats: FakeStats::default(),
            game: None,
            adjourned,
            games_started: 0,
            next_num: 1,
            bot: None,
            challenge_pending: false,
            down_until: None,
            rng: 0x1234_5678_9abc_def1,
            width: 79,
            rematch_at: None,
        }));
        let w2 = Arc::clone(&world);
        tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                let down = w2
                    .lock()
                    .unwrap()
                    .down_until
                    .is_some_and(|t| Instant::now() < t);
                if down {
                    drop(sock);
                    continue;
                }
                tokio::spawn(connection(sock, Arc::clone(&w2), Arc::clone(&engine)));
            }
        });
        // The opponent's automatic rematch, right after a result.
        let w4 = Arc::clone(&world);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(2)).await;
                let mut w = w4.lock().unwrap();
                if w.rematch_at.is_some_and(|t| Instant::now() >= t) {
                    w.rematch_at = None;
                    if let Some(bot) = w.bot.as_ref().map(|b| b.0.clone()) {
                        challenge(&mut w, &bot);
                    }
                }
            }
        });
        // The clock referee: the opponent claims the bot's flag; autoflag for the opponent.
        let w3 = Arc::clone(&world);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let mut w = w3.lock().unwrap();
                let Some(bot) = w.bot.as_ref().map(|b| b.0.clone()) else {
                    continue;
                };
                let Some(g) = w.game.as_ref() else { continue };
                if g.ply() < 2 && !g.stalled {
                    continue;
                }
                let side = g.board.side_to_move();
                let left = g.clock[side.index()] - g.turn_since.elapsed().as_millis() as i64;
                if left >= 0 {
                    continue;
                }
                let bot_side = g.bot_color(&bot);
                let name = w.side_name(side);
                let res = if side == Color::White { "0-1" } else { "1-0" };
                if side == bot_side {
                    w.stats.bot_time_losses += 1;
                    w.end_game(&format!("{name} forfeits on time"), res);
                } else if w.cfg.autoflag {
                    w.end_game(&format!("{name} forfeits on time"), res);
                }
            }
        });
        FakeServer { port, world }
    }

    pub fn stats(&self) -> FakeStats {
        self.world.lock().unwrap().stats.clone()
    }

    /// Sends raw bytes to the logged-in bot.
    #[allow(dead_code)]
    pub fn inject(&self, bytes: &[u8]) {
        if let Some((_, tx)) = &self.world.lock().unwrap().bot {
            let _ = tx.send(bytes.to_vec());
        }
    }

    /// A tell to the bot as the server sends it: wrapped at the bot's width.
    #[allow(dead_code)]
    pub fn tell(&self, from: &str, text: &str) {
        let w = self.world.lock().unwrap();
        if w.cfg.icc {
            // `GuestXYZ(U)`: ICC sends the name and its titles apart.
            let (name, rest) = from.split_once('(').unwrap_or((from, ""));
            let titles = rest.replace(['(', ')'], " ");
            let t = icc::d(
                kibitzer::ics::icc::dg::PERSONAL_TELL,
                &[name, titles.trim(), text, "1"],
            );
            w.send(&icc::unit(101, name, &t));
            return;
        }
        let body = wrap(&format!("{from} tells you: {text}"), w.width);
        w.send(&format!("\n{body}\n{PROMPT}"));
    }

    /// A game the bot observes (relation 0) or an examined game (-2) at `fen`, in
    /// the server's dialect (a style-12 board, or ICC's units).
    #[allow(dead_code)]
    pub fn observed(&self, fen: &str, game: u32, relation: i32, white: &str, black: &str) {
        let w = self.world.lock().unwrap();
        if w.cfg.icc {
            w.send(&icc::unit(
                icc::CN_MOVE,
                white,
                &icc::observed(fen, game, relation, white, black),
            ));
        } else {
            w.send(&crate::bot_daemon::style12(
                fen, game, relation, white, black,
            ));
        }
    }

    /// The end of an observed game (`text` in FICS's words, with names).
    #[allow(dead_code)]
    pub fn observed_end(&self, game: u32, white: &str, black: &str, text: &str, result: &str) {
        let w = self.world.lock().unwrap();
        if w.cfg.icc {
            let g = Game::blank(game, white, black);
            w.send(&icc::unit(
                icc::CN_MOVE,
                white,
                &w.icc_result(&g, text, result),
            ));
        } else {
            w.send(&format!(
                "\n{{Game {game} ({white} vs. {black}) {text}}} {result}\n{PROMPT}"
            ));
        }
    }

    /// An examined game loses its examiners.
    #[allow(dead_code)]
    pub fn examined_gone(&self, game: u32) {
        let w = self.world.lock().unwrap();
        if w.cfg.icc {
            let u = icc::d(
                kibitzer::ics::icc::dg::MY_RELATION_TO_GAME,
                &[&game.to_string(), "X"],
            );
            w.send(&icc::unit(0, "$server$", &u));
        } else {
            w.send(&format!(
                "\nGame {game} (which you were observing) has no examiners.\n{PROMPT}"
            ));
        }
    }

    /// Someone else kibitzes (or whispers) in a game the bot observes.
    #[allow(dead_code)]
    pub fn kibitz(&self, game: u32, from: &str, text: &str, kibitz: bool) {
        let w = self.world.lock().unwrap();
        if w.cfg.icc {
            w.send(&icc::unit(0, from, &icc::kibitz(game, from, text, kibitz)));
        } else {
            let verb = if kibitz { "kibitzes" } else { "whispers" };
            w.send(&format!("\n{from}(1800)[{game}] {verb}: {text}\n{PROMPT}"));
        }
    }

    /// Whether this server speaks ICC.
    #[allow(dead_code)]
    pub fn is_icc(&self) -> bool {
        self.world.lock().unwrap().cfg.icc
    }

    /// The opponent challenges the bot now (without waiting for a seek).
    #[allow(dead_code)]
    pub fn challenge_now(&self) {
        let mut w = self.world.lock().unwrap();
        let Some(bot) = w.bot.as_ref().map(|b| b.0.clone()) else {
            return;
        };
        challenge(&mut w, &bot);
    }

    pub fn set_config(&self, f: impl FnOnce(&mut FakeConfig)) {
        f(&mut self.world.lock().unwrap().cfg);
    }

    /// Waits until `n` games have ended (or the timeout passes).
    pub async fn wait_results(&self, n: usize, timeout: Duration) -> FakeStats {
        let end = Instant::now() + timeout;
        loop {
            let s = self.stats();
            if s.results.len() >= n || Instant::now() > end {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    pub async fn wait_for(&self, timeout: Duration, f: impl Fn(&FakeStats) -> bool) -> bool {
        let end = Instant::now() + timeout;
        loop {
            if f(&self.stats()) {
                return true;
            }
            if Instant::now() > end {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Map of the fake server's own tests.
#[allow(dead_code)]
pub fn _unused() -> HashMap<u8, u8> {
    HashMap::new()
}

#[tokio::test]
async fn fake_server_login_and_style12_format() {
    let srv = FakeServer::start(FakeConfig::default()).await;
    let mut s = TcpStream::connect(("127.0.0.1", srv.port)).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    async fn until(s: &mut TcpStream, got: &mut Vec<u8>, buf: &mut [u8], pat: &str) {
        while !String::from_utf8_lossy(got).contains(pat) {
            let n = tokio::time::timeout(Duration::from_secs(5), s.read(buf))
                .await
                .unwrap()
                .unwrap();
            assert!(
                n > 0,
                "closed before {pat:?}: {}",
                String::from_utf8_lossy(got)
            );
            got.extend_from_slice(&buf[..n]);
        }
    }
    until(&mut s, &mut got, &mut buf, "login: ").await;
    s.write_all(b"botone\n").await.unwrap();
    until(&mut s, &mut got, &mut buf, "password: ").await;
    s.write_all(b"onepass\n").await.unwrap();
    until(&mut s, &mut got, &mut buf, "fics% ").await;
    s.write_all(b"seek 1 0 u m\n").await.unwrap();
    until(&mut s, &mut got, &mut buf, "Challenge: bottwo").await;
    s.write_all(b"accept bottwo\n").await.unwrap();
    until(&mut s, &mut got, &mut buf, "<12> ").await;
    let text = String::from_utf8_lossy(&got).into_owned();
    let line = text
        .lines()
        .map(|l| l.trim_start_matches('\r'))
        .find(|l| l.starts_with("<12> "))
        .unwrap();
    let s12 = kibitzer::ics::Style12::parse(line).expect("our own style 12 parses");
    assert!(s12.is_initial());
    assert_eq!(
        line.split_whitespace().count(),
        32,
        "lasker's 32 fields: {line}"
    );
    assert!(text.contains("\n\r"));
}
