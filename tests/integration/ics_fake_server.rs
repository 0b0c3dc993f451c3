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

#[path = "ics_fake_icc.rs"]
mod icc;

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
    /// The opponent stops moving at this ply (its clock runs out).
    pub opp_stall_at: Option<usize>,
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
            shutdown_countdown: None,
            observable: Vec::new(),
            start_fen: None,
            refuse_draw_claims: false,
            icc: false,
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
    /// A game known by its number and players only (others' games).
    fn blank(num: u32, white: &str, black: &str) -> Game {
        Game {
            num,
            white: white.into(),
            black: black.into(),
            board: Board::startpos(),
            start: Board::startpos(),
            moves: Vec::new(),
            clock: [0, 0],
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
            "\nMovelist for game {}:\n\n{} (UNR) vs. {} (UNR) --- Sat Apr 20, 12:52 UTC 2013\nUnrated blitz match, initial time: {} minutes, increment: {} seconds.\n\nMove  {:<18} {:<18}\n----  ----------------   ----------------\n",
            g.num, g.white, g.black, self.cfg.minutes, self.cfg.inc, g.white, g.black
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
            Game {
                num: 1,
                white: cfg.users[0].0.clone(),
                black: OPP.into(),
                board,
                start: Board::startpos(),
                moves,
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

/// Reads one line (up to `\n`), handling timeseal when the client uses it.
async fn read_line(
    sock: &mut tokio::net::tcp::OwnedReadHalf,
    buf: &mut Vec<u8>,
) -> Option<Vec<u8>> {
    loop {
        if let Some(i) = buf.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = buf.drain(..=i).collect();
            line.pop();
            while line.last() == Some(&b'\r') {
                line.pop();
            }
            return Some(line);
        }
        let mut chunk = [0u8; 4096];
        match sock.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn opp_move(engine: &EngineHandle, board: &Board, nodes: u64, book: &[&str], rng: u64) -> Move {
    let n = board.ply_count() / 2;
    if let Some(san) = book.get(n) {
        if let Ok(m) = board.parse_move(san) {
            return m;
        }
    }
    let nodes = nodes + rng % (nodes.max(1));
    let r = engine.search_sync(board, SearchLimits::nodes(nodes), SearchConfig::default());
    r.best
}

async fn connection(sock: TcpStream, world: Arc<Mutex<World>>, engine: Arc<EngineHandle>) {
    let (mut rd, mut wr) = sock.into_split();
    let (tx, mut rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        while let Some(b) = rx.recv().await {
            if b.is_empty() {
                let _ = wr.shutdown().await;
                return;
            }
            if wr.write_all(&b).await.is_err() {
                return;
            }
        }
    });
    let icc_mode = {
        let mut w = world.lock().unwrap();
        w.stats.connections += 1;
        w.cfg.icc
    };
    let _ = tx.send(
        if icc_mode { icc::BANNER } else { BANNER }
            .as_bytes()
            .to_vec(),
    );
    let mut buf = Vec::new();
    let mut seal = false;
    let mut first = true;
    let mut handle = String::new();
    let mut state = 0; // 0 login, 1 password, 2 guest return, 3 logged in
    let mut last_input = Instant::now();
    loop {
        let idle = world.lock().unwrap().cfg.idle_logout;
        let line = match idle {
            Some(d) if state == 3 => {
                let wait = d.saturating_sub(last_input.elapsed());
                match tokio::time::timeout(wait, read_line(&mut rd, &mut buf)).await {
                    Ok(l) => l,
                    Err(_) => {
                        let _ = tx.send(lines("\n**** Auto-logout because you were idle more than 60 minutes. ****\n\nThank you for using a Free (GNU) Internet Chess server.\n"));
                        let _ = tx.send(Vec::new());
                        break;
                    }
                }
            }
            _ => read_line(&mut rd, &mut buf).await,
        };
        let Some(raw) = line else { break };
        last_input = Instant::now();
        let mut stamp = None;
        let no_seal = world.lock().unwrap().cfg.no_timeseal;
        let text = if first && raw.len() > 12 && !no_seal {
            match timeseal::decode(&raw) {
                Some((t, s)) => {
                    seal = true;
                    first = false;
                    let _ = t;
                    let _ = s;
                    continue;
                }
                None => String::from_utf8_lossy(&raw).into_owned(),
            }
        } else if seal {
            match timeseal::decode(&raw) {
                Some((t, s)) => {
                    stamp = Some(s);
                    t
                }
                None => String::from_utf8_lossy(&raw).into_owned(),
            }
        } else {
            String::from_utf8_lossy(&raw).into_owned()
        };
        first = false;
        if seal && (text == "\u{2}9" || text == "9") {
            let mut w = world.lock().unwrap();
            w.stats.pings_answered += 1;
            if let Some(g) = w.game.as_mut() {
                g.stamp_since = stamp;
            }
            continue;
        }
        let text = text.trim().to_string();
        if icc_mode && state < 3 {
            // ICC: `level1=`/`level2settings=` at the prompt, then the name; guests
            // and unregistered names enter at once; a refused password is
            // DG_LOGIN_FAILED.
            let mut w = world.lock().unwrap();
            if state == 0 && (text.starts_with("level1=") || text.starts_with("level2settings=")) {
                w.stats.login_lines.push(text.clone());
                let _ = tx.send(lines("login: "));
                continue;
            }
            if state == 0 {
                if w.cfg.users.iter().any(|(u, _)| u == &text) {
                    handle = text.clone();
                    let _ = tx.send(lines("password: "));
                    state = 1;
                    continue;
                }
                handle = if text.eq_ignore_ascii_case("guest") || text.is_empty() {
                    "guest2345".to_string()
                } else {
                    text.clone()
                };
            } else {
                let ok = w.cfg.users.iter().any(|(u, p)| u == &handle && p == &text);
                if !ok {
                    let f = icc::d(
                        kibitzer::ics::icc::dg::LOGIN_FAILED,
                        &["11", "Invalid password."],
                    );
                    let _ = tx.send(lines(&format!("{f}\nInvalid password.\nlogin: ")));
                    state = 0;
                    continue;
                }
            }
            drop(w);
            state = 3;
            login(&world, &handle, &tx);
            continue;
        }
        match state {
            0 => {
                let name = text.clone();
                let w = world.lock().unwrap();
                if name.eq_ignore_ascii_case("guest") {
                    handle = "GuestABCD".into();
                    let _ = tx.send(lines(&format!("\nCreated temporary login '{handle}'\n\n\"{handle}\" is not a registered name.  You may play unrated games as a guest.\n\nPress return to enter the FICS as \"{handle}\":")));
                    state = 2;
                } else if w.cfg.users.iter().any(|(u, _)| u == &name) {
                    handle = name.clone();
                    let _ = tx.send(b"\xff\xfb\x01".to_vec());
                    let _ = tx.send(lines(&format!("\n\"{name}\" is a registered name.  If it is yours, type the password.\nIf not, just hit return to try another name.\n\npassword: ")));
                    state = 1;
                } else if !name.chars().all(|c| c.is_ascii_alphabetic()) {
                    // What lasker answers to a name with anything but letters (a
                    // timeseal hello included).
                    let _ = tx.send(lines("\nSorry, names can only consist of lower and upper case letters.  Try again.\n\nIf you are not a registered player enter the login name \"guest\"\nlogin: "));
                } else if name.len() < 3 {
                    let _ = tx.send(lines("\nA name should be at least three characters long!  Try again.\n\nIf you are not a registered player enter the login name \"guest\"\nlogin: "));
                } else {
                    handle = name.clone();
                    let _ = tx.send(lines(&format!("\n\"{name}\" is not a registered name.  You may play unrated games as a guest.\n\nPress return to enter the FICS as \"{name}\":")));
                    state = 2;
                }
            }
            1 => {
                let ok = world
                    .lock()
                    .unwrap()
                    .cfg
                    .users
                    .iter()
                    .any(|(u, p)| u == &handle && p == &text);
                let _ = tx.send(b"\xff\xfc\x01".to_vec());
                if ok {
                    state = 3;
                    login(&world, &handle, &tx);
                } else {
                    let _ = tx.send(lines("\n**** Invalid password! ****\n\n\nIf you are not a registered player enter the login name \"guest\"\nlogin: "));
                    state = 0;
                }
            }
            2 => {
                state = 3;
                login(&world, &handle, &tx);
            }
            _ => {
                // The server splits every line on `;` unless it starts with `$`
                // (one `$` is taken off): each part is a command of its own.
                let parts: Vec<String> = match text.strip_prefix('$') {
                    Some(t) => vec![t.to_string()],
                    None => text.split(';').map(|p| p.trim().to_string()).collect(),
                };
                let mut quit = false;
                for part in parts {
                    if command(&world, &engine, &handle, &part, stamp, &tx) {
                        quit = true;
                        break;
                    }
                }
                if quit {
                    break;
                }
            }
        }
    }
    // Connection gone: adjourn a game in progress.
    let mut w = world.lock().unwrap();
    if w.bot
        .as_ref()
        .is_some_and(|b| b.0 == handle && b.1.same_channel(&tx))
    {
        w.bot = None;
        if let Some(g) = w.game.take() {
            w.adjourned = Some(g);
        }
    }
}

fn login(world: &Arc<Mutex<World>>, handle: &str, tx: &mpsc::UnboundedSender<Vec<u8>>) {
    let mut w = world.lock().unwrap();
    w.stats.logins += 1;
    w.bot = Some((handle.to_string(), tx.clone()));
    w.width = 79;
    if w.cfg.icc {
        let titles = if kibitzer::ics::parse::is_guest(handle) {
            "U"
        } else {
            "C"
        };
        let mut body = icc::d(kibitzer::ics::icc::dg::WHO_AM_I, &[handle, titles]);
        if w.adjourned.is_some() {
            body.push_str(&format!(
                "\n1 player, who has an adjourned game with you, is online:\n{OPP}\n"
            ));
        }
        let _ = tx.send(lines(&icc::unit(icc::CN_LOGIN, "$LoggingIn$", &body)));
        return;
    }
    // lasker lists the opponents with adjourned games inside the banner, before the
    // first prompt (a bell after the colon, two spaces after the name).
    let adjourned = if w.adjourned.is_some() {
        format!("1 player, who has an adjourned game with you, is online:\x07\n{OPP}  \n\n")
    } else {
        String::new()
    };
    let _ = tx.send(lines(&format!("__________________________________________________________________________\nDo 'help' for a list of the commands that are available.\n__________________________________________________________________________\n\n\n{adjourned}\nfics% ")));
}

fn reply(tx: &mpsc::UnboundedSender<Vec<u8>>, text: &str) {
    let _ = tx.send(lines(&format!("{text}\n{PROMPT}")));
}

/// A reply in the server's dialect (ICC: a level-1 unit, no prompt).
fn reply_to(icc_mode: bool, tx: &mpsc::UnboundedSender<Vec<u8>>, text: &str) {
    if icc_mode {
        let _ = tx.send(lines(&icc::unit(0, "*", &format!("{text}\n"))));
    } else {
        reply(tx, text);
    }
}

/// Starts a game with the opponent (from the bot's acceptance).
fn create_game(w: &mut World, bot: &str) {
    let opp_color = w.cfg.opp_color.unwrap_or(if w.games_started % 2 == 0 {
        Color::Black
    } else {
        Color::White
    });
    let (white, black) = if opp_color == Color::White {
        (OPP.to_string(), bot.to_string())
    } else {
        (bot.to_string(), OPP.to_string())
    };
    w.games_started += 1;
    let num = w.next_num;
    let ms = w.cfg.clock_ms.unwrap_or(w.cfg.minutes as i64 * 60_000);
    let start = match w.cfg.start_fen {
        Some(f) => Board::from_fen(f).expect("fake start position"),
        None => Board::startpos(),
    };
    w.game = Some(Game {
        num,
        white: white.clone(),
        black: black.clone(),
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
    });
    let (m, i) = (w.cfg.minutes, w.cfg.inc);
    let kind = if m * 60 + i * 40 < 180 {
        "lightning"
    } else {
        "blitz"
    };
    if w.cfg.icc {
        let u = icc::unit(
            icc::CN_ACCEPT,
            "*",
            &w.icc_started(w.game.as_ref().unwrap(), bot),
        );
        w.send(&u);
        return;
    }
    w.send(&format!("\nCreating: {white} (----) {black} (----) unrated {kind} {m} {i}\n\n{{Game {num} ({white} vs. {black}) Creating unrated {kind} match.}}\n"));
    w.send_board(bot);
}

fn challenge(w: &mut World, bot: &str) {
    if w.game.is_some()
        || w.challenge_pending
        || w.games_started >= w.cfg.games
        || w.adjourned.is_some()
    {
        return;
    }
    w.challenge_pending = true;
    if w.cfg.icc {
        let u = icc::unit(icc::CN_MATCH, OPP, &w.icc_match(bot));
        w.send(&u);
        return;
    }
    let (m, i) = (w.cfg.minutes, w.cfg.inc);
    let kind = if m * 60 + i * 40 < 180 {
        "lightning"
    } else {
        "blitz"
    };
    w.send(&format!("\nChallenge: {OPP} (1500) {bot} (----) unrated {kind} {m} {i}.\nYou can \"accept\" or \"decline\", or propose different parameters.\n{PROMPT}"));
}

/// The opponent's turn: think, then move (on a separate task).
fn opponent_turn(world: &Arc<Mutex<World>>, engine: &Arc<EngineHandle>, bot: &str) {
    let (board, think, nodes, book, rng, num) = {
        let mut w = world.lock().unwrap();
        let rng = w.rand();
        let cfg = w.cfg.clone();
        let Some(g) = w.game.as_mut() else { return };
        if g.board.side_to_move() == g.bot_color(bot) {
            return;
        }
        if cfg.opp_stall_at.is_some_and(|p| g.ply() >= p) {
            g.stalled = true;
            return;
        }
        (
            g.board.clone(),
            cfg.opp_think,
            cfg.opp_nodes,
            cfg.opp_book.clone(),
            rng,
            g.num,
        )
    };
    let world = Arc::clone(world);
    let engine = Arc::clone(engine);
    let bot = bot.to_string();
    tokio::spawn(async move {
        tokio::time::sleep(think).await;
        let e2 = Arc::clone(&engine);
        let m = tokio::task::spawn_blocking(move || opp_move(&e2, &board, nodes, &book, rng))
            .await
            .unwrap();
        let mut w = world.lock().unwrap();
        let Some(g) = w.game.as_ref() else { return };
        if g.num != num || g.board.side_to_move() == g.bot_color(&bot) {
            return;
        }
        let ply = g.ply();
        let charge = g.turn_since.elapsed().as_millis() as i64;
        if w.cfg.opp_resign_at.is_some_and(|p| ply >= p) {
            let name = OPP.to_string();
            let res = if g.white == OPP { "0-1" } else { "1-0" };
            w.end_game(&format!("{name} resigns"), res);
            return;
        }
        if !w.apply(m, charge) {
            return; // out of time: the referee ends it
        }
        // ICC sends the move (DG_SEND_MOVES) before the result of the game.
        if w.cfg.icc {
            w.send_board(&bot);
        }
        if w.check_end() {
            return;
        }
        if !w.cfg.icc {
            w.send_board(&bot);
        }
        let ply = w.game.as_ref().unwrap().ply();
        if w.cfg.opp_disconnect_at.is_some_and(|p| ply >= p) {
            // The opponent's link drops while the bot thinks: lasker adjourns at once.
            w.cfg.opp_disconnect_at = None;
            let after = w.cfg.opp_disconnect_after;
            let world = Arc::clone(&world);
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                let mut w = world.lock().unwrap();
                if let Some(g) = w.game.take() {
                    let line = if w.cfg.icc {
                        let who = if g.white == OPP { "White" } else { "Black" };
                        let t = format!("Game adjourned when {who} disconnected");
                        icc::unit(
                            0,
                            "$server$",
                            &format!(
                                "Your opponent has lost contact or quit.\n{}",
                                w.icc_result(&g, &t, "*")
                            ),
                        )
                    } else {
                        format!("Your opponent has lost contact or quit.\n{{Game {} ({} vs. {}) adjourned}} *\nNo ratings adjustment done.\n{PROMPT}", g.num, g.white, g.black)
                    };
                    w.stats
                        .results
                        .push(("*".into(), "adjourned".into(), g.ply()));
                    w.adjourned = Some(g);
                    w.challenge_pending = false;
                    w.send(&line);
                }
            });
            return;
        }
        if w.cfg.opp_offer_draw_at.is_some_and(|p| ply >= p) && !w.game.as_ref().unwrap().offered {
            w.game.as_mut().unwrap().offered = true;
            let out = if w.cfg.icc {
                icc::unit(0, OPP, &w.icc_offer(w.game.as_ref().unwrap(), &bot, 0))
            } else {
                format!("\n{OPP} offers you a draw.\n{PROMPT}")
            };
            w.send(&out);
        }
        if w.cfg.opp_abort_request_at.is_some_and(|p| ply >= p)
            && !w.game.as_ref().unwrap().abort_asked
        {
            w.game.as_mut().unwrap().abort_asked = true;
            let out = if w.cfg.icc {
                icc::unit(0, OPP, &w.icc_offer(w.game.as_ref().unwrap(), &bot, 4))
            } else {
                format!("\n{OPP} would like to abort the game; type \"abort\" to accept.\n{PROMPT}")
            };
            w.send(&out);
        }
        if w.cfg.opp_takeback_at.is_some_and(|p| ply >= p)
            && !w.game.as_ref().unwrap().takeback_asked
        {
            w.game.as_mut().unwrap().takeback_asked = true;
            let out = if w.cfg.icc {
                icc::unit(0, OPP, &w.icc_offer(w.game.as_ref().unwrap(), &bot, 6))
            } else {
                format!("\n{OPP} would like to take back 1 half move(s).\n{PROMPT}")
            };
            w.send(&out);
        }
    });
}

/// One command from the bot; true to close the connection.
fn command(
    world: &Arc<Mutex<World>>,
    engine: &Arc<EngineHandle>,
    bot: &str,
    text: &str,
    stamp: Option<u32>,
    tx: &mpsc::UnboundedSender<Vec<u8>>,
) -> bool {
    let mut w = world.lock().unwrap();
    w.stats.commands.push(text.to_string());
    let word = text
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let arg = text
        .split_once(' ')
        .map(|x| x.1.trim().to_string())
        .unwrap_or_default();
    match word.as_str() {
        "" => reply_to(w.cfg.icc, tx, ""),
        "set" => {
            let var = arg.split_whitespace().next().unwrap_or("");
            let msg = match var {
                "style" => "Style 12 set.".to_string(),
                "bell" => "Bell off.".into(),
                "seek" => "You will not hear ads.".into(),
                "width" => {
                    let n = arg
                        .split_whitespace()
                        .nth(1)
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(79);
                    w.width = n;
                    format!("Width set to {n}.")
                }
                "interface" | "level1" | "sshout" => String::new(),
                "shout" | "cshout" | "pin" | "gin" | "open" => "Set.".into(),
                n if n.parse::<u8>().is_ok_and(|n| (1..=10).contains(&n)) => {
                    format!("Plan line {n} changed.")
                }
                v => format!("No such variable name {v}."),
            };
            reply_to(w.cfg.icc, tx, &msg);
        }
        "iset" => {
            let var = arg.split_whitespace().next().unwrap_or("");
            match var {
                "ms" | "startpos" | "lock" => reply_to(w.cfg.icc, tx, &format!("{var} set")),
                v => reply_to(w.cfg.icc, tx, &format!("No such ivariable \"{v}\".")),
            }
        }
        "seek" => {
            reply_to(w.cfg.icc, tx, &format!("  0    0 {bot:<18} {}", arg));
            challenge(&mut w, bot);
        }
        "set-2" => reply_to(w.cfg.icc, tx, ""),
        "unseek" => reply_to(w.cfg.icc, tx, "Ads removed: 0"),
        "accept" => {
            if w.challenge_pending && w.game.is_none() {
                w.challenge_pending = false;
                reply_to(
                    w.cfg.icc,
                    tx,
                    &format!("You accept the challenge of {OPP}."),
                );
                create_game(&mut w, bot);
                drop(w);
                opponent_turn(world, engine, bot);
                return false;
            }
            reply_to(w.cfg.icc, tx, "You have no offers to accept.");
        }
        "decline" => {
            w.stats.declined.push(arg.clone());
            w.challenge_pending = false;
            reply_to(w.cfg.icc, tx, &format!("You decline the offer from {arg}."));
        }
        "match" => {
            if arg.starts_with(OPP) && w.adjourned.is_some() && w.game.is_none() {
                let mut g = w.adjourned.take().unwrap();
                g.num = w.next_num + 1;
                w.next_num += 1;
                g.turn_since = Instant::now();
                let (white, black, num) = (g.white.clone(), g.black.clone(), g.num);
                w.game = Some(g);
                if w.cfg.icc {
                    let u = icc::unit(
                        icc::CN_MATCH,
                        "*",
                        &w.icc_started(w.game.as_ref().unwrap(), bot),
                    );
                    w.send(&u);
                    drop(w);
                    opponent_turn(world, engine, bot);
                    return false;
                }
                w.send(&format!("Issuing: {bot} (----) {OPP} (----) unrated wild 1 0 Loaded from blitz/0 (adjourned).\n{PROMPT}\n{OPP} accepts your challenge.\n{PROMPT}{{Game {num} ({white} vs. {black}) Continuing unrated blitz match.}}\n\nCreating: {white} (0) {black} (0) unrated blitz {} {}\n\n{{Game {num} ({white} vs. {black}) Continuing unrated blitz match.}}\n", w.cfg.minutes, w.cfg.inc));
                w.send_board(bot);
                drop(w);
                opponent_turn(world, engine, bot);
                return false;
            }
            reply_to(
                w.cfg.icc,
                tx,
                &format!("No user named \"{arg}\" is logged in."),
            );
        }
        "moves" => {
            let out = match w.game.as_ref() {
                Some(g) => w.movelist(g),
                None => format!("You are not playing or examining a game.\n{PROMPT}"),
            };
            w.send(&out);
        }
        "refresh" if w.cfg.icc => match w.game.as_ref() {
            Some(g) => {
                let u = icc::d(kibitzer::ics::icc::dg::REFRESH, &[&g.num.to_string()]);
                w.send(&icc::unit(0, "*", &u));
            }
            None => reply_to(
                true,
                tx,
                "You aren't playing, examining, or observing a game.",
            ),
        },
        "refresh" => {
            if w.game.is_some() {
                w.send_board(bot);
            } else {
                reply_to(
                    w.cfg.icc,
                    tx,
                    "You are not playing, examining, or observing a game.",
                );
            }
        }
        "draw" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            if w.cfg.refuse_draw_claims {
                reply(
                    tx,
                    &format!("Draw request sent.\n\n{OPP} declines draw request."),
                );
            } else if g.board.is_threefold_repetition() {
                w.end_game("Game drawn by repetition", "1/2-1/2");
            } else if g.board.is_fifty_move_draw() {
                w.end_game("Game drawn by the 50 move rule", "1/2-1/2");
            } else if g.offered || w.cfg.opp_accepts_draws {
                w.end_game("Game drawn by mutual agreement", "1/2-1/2");
            } else {
                reply(
                    tx,
                    &format!("Draw request sent.\n\n{OPP} declines draw request."),
                );
            }
        }
        "abort" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            if g.abort_asked || w.cfg.opp_accepts_abort || g.ply() < 1 {
                w.end_game("Game aborted by mutual agreement", "*");
            } else {
                reply_to(w.cfg.icc, tx, "Abort request sent.");
            }
        }
        "adjourn" => reply_to(w.cfg.icc, tx, "Adjourn request sent."),
        "resign" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            let res = if g.white == bot { "0-1" } else { "1-0" };
            w.end_game(&format!("{bot} resigns"), res);
        }
        "flag" => {
            let Some(g) = w.game.as_ref() else {
                reply_to(w.cfg.icc, tx, "You are not playing a game.");
                return false;
            };
            let side = g.board.side_to_move();
            let left = g.clock[side.index()] - g.turn_since.elapsed().as_millis() as i64;
            if side != g.bot_color(bot) && left <= 0 {
                let res = if side == Color::White { "0-1" } else { "1-0" };
                w.end_game(&format!("{OPP} forfeits on time"), res);
            } else {
                reply_to(w.cfg.icc, tx, "Your opponent is not out of time!");
            }
        }
        "quit" => {
            if w.game.is_some() {
                reply_to(w.cfg.icc, tx, "You can't quit while you are playing a game.\nType 'resign' to resign the game, or you can request an abort with 'abort'.");
            } else {
                let _ = tx.send(lines(
                    "\nThank you for using a Free (GNU) Internet Chess server.\n",
                ));
                let _ = tx.send(Vec::new());
                return true;
            }
        }
        // lasker has no xwhisper/xkibitz (FICS has them).
        "xwhisper" | "xkibitz" if !w.cfg.fics_mode || w.cfg.icc => {
            w.stats.not_found.push(text.to_string());
            reply_to(w.cfg.icc, tx, &format!("{word}: Command not found."))
        }
        "whisper" | "kibitz" | "xwhisper" | "xkibitz" | "say" => {
            reply_to(w.cfg.icc, tx, &format!("{word}ed to 1."))
        }
        "observe" => {
            let target = arg.split_whitespace().next().unwrap_or("").to_string();
            if w.cfg
                .observable
                .iter()
                .any(|o| o.eq_ignore_ascii_case(&target))
            {
                if w.cfg.icc {
                    let start = Board::startpos().to_fen();
                    let u = icc::observed(&start, 99, 0, &target, "rival");
                    w.send(&icc::unit(0, "*", &u));
                    return false;
                }
                reply_to(w.cfg.icc, tx, "You are now observing game 99.");
            } else if target.parse::<u32>().is_ok() {
                reply_to(w.cfg.icc, tx, "There is no such game.");
            } else {
                reply_to(
                    w.cfg.icc,
                    tx,
                    &format!("No user named \"{target}\" is logged in."),
                );
            }
        }
        "unobserve" => reply_to(w.cfg.icc, tx, "You are not observing any games."),
        "date" | "finger" | "games" | "who" => reply_to(w.cfg.icc, tx, &format!("({word} output)")),
        "tell" => reply(
            tx,
            &format!("(told {})", arg.split_whitespace().next().unwrap_or("")),
        ),
        _ => {
            // A move?
            let Some(g) = w.game.as_ref() else {
                w.stats.not_found.push(text.to_string());
                reply_to(w.cfg.icc, tx, &format!("{word}: Command not found."));
                return false;
            };
            let bot_side = g.bot_color(bot);
            // lasker rejects `b2a1n`.
            let lasker_bad = text.len() == 5
                && text.as_bytes()[4].is_ascii_lowercase()
                && text.as_bytes()[1].is_ascii_digit();
            let parsed = if lasker_bad {
                Err(())
            } else {
                g.board.parse_move(text).map_err(|_| ())
            };
            let Ok(m) = parsed else {
                if text.len() <= 8
                    && text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && text.chars().any(|c| c.is_ascii_digit())
                {
                    w.stats.illegal_moves += 1;
                    if w.cfg.icc {
                        let num = w.game.as_ref().map_or(0, |g| g.num).to_string();
                        let u = icc::d(kibitzer::ics::icc::dg::ILLEGAL_MOVE, &[&num, text, "2"]);
                        w.send(&icc::unit(1, "*", &format!("{u}Illegal move ({text}).\n")));
                        return false;
                    }
                    reply_to(w.cfg.icc, tx, "Illegal move.");
                } else {
                    w.stats.not_found.push(text.to_string());
                    reply_to(w.cfg.icc, tx, &format!("{word}: Command not found."));
                }
                return false;
            };
            if g.board.side_to_move() != bot_side {
                if w.cfg.icc {
                    let u = icc::d(
                        kibitzer::ics::icc::dg::ILLEGAL_MOVE,
                        &[&g.num.to_string(), text, "4"],
                    );
                    w.send(&icc::unit(1, "*", &format!("{u}It is not your move.\n")));
                    return false;
                }
                reply_to(w.cfg.icc, tx, "It is not your move.");
                return false;
            }
            if w.cfg.illegal_reply_at == Some(g.ply()) && !g.illegal_done {
                w.game.as_mut().unwrap().illegal_done = true;
                if w.cfg.icc {
                    let num = w.game.as_ref().unwrap().num.to_string();
                    let u = icc::d(kibitzer::ics::icc::dg::ILLEGAL_MOVE, &[&num, text, "2"]);
                    w.send(&icc::unit(1, "*", &format!("{u}Illegal move ({text}).\n")));
                    return false;
                }
                reply_to(w.cfg.icc, tx, "Illegal move.");
                return false;
            }
            let g = w.game.as_ref().unwrap();
            let mut charge = g.turn_since.elapsed().as_millis() as i64;
            if let (Some(a), Some(b)) = (g.stamp_since, stamp) {
                charge = b.wrapping_sub(a) as i64;
            } else {
                let jitter = w.cfg.jitter.as_millis() as u64;
                let j = if jitter > 0 {
                    w.rand() % (jitter + 1)
                } else {
                    0
                };
                charge += w.cfg.lag.as_millis() as i64 + j as i64;
            }
            if !w.apply(m, charge) {
                w.stats.bot_time_losses += 1;
                let name = bot.to_string();
                let res = if bot_side == Color::White {
                    "0-1"
                } else {
                    "1-0"
                };
                w.end_game(&format!("{name} forfeits on time"), res);
                return false;
            }
            let left = w.game.as_ref().unwrap().clock[bot_side.index()];
            w.stats.min_bot_reserve_ms =
                Some(w.stats.min_bot_reserve_ms.map_or(left, |x| x.min(left)));
            if w.cfg.icc {
                w.send_board(bot);
            }
            if w.check_end() {
                return false;
            }
            if !w.cfg.icc {
                w.send_board(bot);
            }
            let ply = w.game.as_ref().unwrap().ply();
            if w.cfg.drop_at.is_some_and(|p| ply >= p) {
                w.cfg.drop_at = None;
                let g = w.game.take().unwrap();
                w.adjourned = Some(g);
                w.bot = None;
                let _ = tx.send(Vec::new());
                return true;
            }
            if w.cfg.shutdown_at.is_some_and(|p| ply >= p) && w.cfg.shutdown_countdown.is_some() {
                // The real server's countdown: announced now, down when it runs out.
                w.cfg.shutdown_at = None;
                let secs = w.cfg.shutdown_countdown.take().unwrap();
                w.send(&format!("\n\n    **** Server shutdown ordered by admin. ****\n    **** Server going down in {} minutes and {} seconds. ****\n\n{PROMPT}", secs / 60, secs % 60));
                let world = Arc::clone(world);
                let tx = tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_secs(secs)).await;
                    let mut w = world.lock().unwrap();
                    let mut line =
                        String::from("\n\n    **** Server shutdown ordered by admin. ****\n\n");
                    if let Some(g) = w.game.take() {
                        line.push_str(&format!("{{Game {} ({} vs. {}) Game adjourned by mutual agreement}} *\nNo ratings adjustment done.\n{PROMPT}\n", g.num, g.white, g.black));
                        w.stats
                            .results
                            .push(("*".into(), "adjourned by shutdown".into(), g.ply()));
                        w.adjourned = Some(g);
                    }
                    line.push_str("    **** Server shutting down immediately. ****\n\nLogging you out.\n\nThank you for using a Free (GNU) Internet Chess server.\n");
                    w.send(&line);
                    w.down_until = Some(Instant::now() + w.cfg.down_for);
                    w.bot = None;
                    let _ = tx.send(Vec::new());
                });
            }
            if w.cfg.shutdown_at.is_some_and(|p| ply >= p) {
                w.cfg.shutdown_at = None;
                let g = w.game.take().unwrap();
                let line = format!("\n\n    **** Server shutdown ordered by admin. ****\n\n    **** We are going down because: testing shutdown. ****\n\n{{Game {} ({} vs. {}) Game adjourned by mutual agreement}} *\nNo ratings adjustment done.\n{PROMPT}\n    **** Server shutting down immediately. ****\n\nLogging you out.\n\nThank you for using a Free (GNU) Internet Chess server.\n", g.num, g.white, g.black);
                w.adjourned = Some(g);
                w.send(&line);
                w.down_until = Some(Instant::now() + w.cfg.down_for);
                w.bot = None;
                let _ = tx.send(Vec::new());
                return true;
            }
            drop(w);
            opponent_turn(world, engine, bot);
        }
    }
    false
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
