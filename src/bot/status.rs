//! What the daemon is doing, published for readers outside the bot (the operator's
//! window in `web`): one `Status` value behind a `tokio::sync::watch` channel.
//! The supervisor and the game tasks change it with `StatusTx::update` (a short
//! in-memory edit, never I/O, never waiting on a reader); readers take a clone of the
//! latest value when they want it and never see a backlog. Counters for monitoring
//! live here too, as plain numbers, so the bot knows nothing of any metrics format.

use super::history::Results;
use crate::chess::{Board, Color, Move};
use serde::Serialize;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// Upper bounds (seconds) of the buckets of the time-left histogram.
pub const TIME_LEFT_BUCKETS: [f64; 12] = [
    0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0,
];

/// Talk lines kept per game.
const TALK_KEPT: usize = 30;

/// Milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Everything the operator's window shows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Status {
    pub version: String,
    pub started_unix_ms: u64,
    /// The accounts (ICS, Lichess), each with its state.
    pub accounts: Vec<AccountStatus>,
    pub engine: EngineFacts,
    /// Our games in progress.
    pub games: Vec<LiveGame>,
    /// Observed games and relays (analysis only).
    pub observed: Vec<ObservedGame>,
    /// Finished games (this session and the PGN files found at start).
    #[serde(skip)]
    pub results: Arc<Results>,
    pub counters: Counters,
}

/// Where an account stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountState {
    /// Connecting and logging in (or, on Lichess, opening the event stream).
    #[default]
    Connecting,
    /// Logged in (ICS) or streaming events (Lichess).
    LoggedIn,
    /// Waiting to try again after a failure (`reason`, `next_try_unix_ms`).
    BackingOff,
    /// Ended for good (shutdown, or a refusal trying again cannot mend).
    Stopped,
}

impl AccountState {
    pub fn name(self) -> &'static str {
        match self {
            AccountState::Connecting => "connecting",
            AccountState::LoggedIn => "logged in",
            AccountState::BackingOff => "backing off",
            AccountState::Stopped => "stopped",
        }
    }
}

/// One account of the daemon (the ICS account of `[ics]`, the Lichess account),
/// each reporting the same way.
#[derive(Clone, Debug, Default, Serialize)]
pub struct AccountStatus {
    /// `ics` or `lichess`: the label of this account's games, counters and metrics.
    pub name: String,
    pub server: String,
    pub port: u16,
    /// `fics`, `lasker`, `icc`, `lichess`.
    pub server_type: String,
    /// The handle we log in as (the server's name for a guest once logged in).
    pub handle: String,
    pub state: AccountState,
    /// Why the account is not logged in: the last failure, or why it stopped.
    pub reason: Option<String>,
    /// When the next try is due (while backing off).
    pub next_try_unix_ms: Option<u64>,
    /// Logged in (ICS) or streaming (Lichess).
    pub connected: bool,
    /// Connected and the link answers (the keepalive on an ICS, the stream's
    /// traffic on Lichess).
    pub healthy: bool,
    pub logged_in_since_unix_ms: Option<u64>,
    pub disconnected_since_unix_ms: Option<u64>,
    pub last_reconnect: Option<Reconnect>,
    pub reconnects: u64,
    /// Connection or login attempts that failed.
    pub failed_attempts: u64,
    /// What the server charged for our last move beyond our own thinking time, ms.
    pub lag_ms: Option<i64>,
    /// The adaptive move overhead of the current (or last) game, ms.
    pub overhead_ms: Option<u64>,
    /// Shutting down: no new games.
    pub draining: bool,
    /// Challengers waiting for a free game slot, oldest first (Lichess's queue).
    pub queued: Vec<String>,
    /// When the state last changed.
    pub since_unix_ms: u64,
}

impl AccountStatus {
    /// A new entry, connecting.
    pub fn new(name: &str, server: &str, port: u16, server_type: &str, handle: &str) -> Self {
        AccountStatus {
            name: name.to_string(),
            server: server.to_string(),
            port,
            server_type: server_type.to_string(),
            handle: handle.to_string(),
            since_unix_ms: unix_ms(),
            ..Default::default()
        }
    }

    /// Logged in (or streaming) as `handle`.
    pub fn logged_in(&mut self, handle: &str) {
        if let Some(why) = self
            .reason
            .take()
            .filter(|_| self.disconnected_since_unix_ms.is_some())
        {
            self.reconnects += 1;
            self.last_reconnect = Some(Reconnect {
                at_unix_ms: unix_ms(),
                why,
            });
        }
        self.state = AccountState::LoggedIn;
        self.handle = handle.to_string();
        self.connected = true;
        self.healthy = true;
        self.next_try_unix_ms = None;
        self.logged_in_since_unix_ms = Some(unix_ms());
        self.disconnected_since_unix_ms = None;
        self.since_unix_ms = unix_ms();
    }

    /// The link or the login failed: waiting `delay` before the next try.
    pub fn backing_off(&mut self, why: &str, delay: std::time::Duration) {
        if self.connected {
            self.disconnected_since_unix_ms = Some(unix_ms());
        } else {
            self.failed_attempts += 1;
            self.disconnected_since_unix_ms.get_or_insert(unix_ms());
        }
        self.state = AccountState::BackingOff;
        self.reason = Some(why.to_string());
        self.next_try_unix_ms = Some(unix_ms() + delay.as_millis() as u64);
        self.connected = false;
        self.healthy = false;
        self.logged_in_since_unix_ms = None;
        self.since_unix_ms = unix_ms();
    }

    /// Trying now.
    pub fn connecting(&mut self) {
        self.state = AccountState::Connecting;
        self.next_try_unix_ms = None;
        self.since_unix_ms = unix_ms();
    }

    /// Ended for good.
    pub fn stopped(&mut self, why: &str) {
        self.state = AccountState::Stopped;
        self.reason = Some(why.to_string());
        self.next_try_unix_ms = None;
        self.connected = false;
        self.healthy = false;
        self.logged_in_since_unix_ms = None;
        self.since_unix_ms = unix_ms();
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Reconnect {
    pub at_unix_ms: u64,
    pub why: String,
}

/// The engine's configuration and what it has learned.
#[derive(Clone, Debug, Default, Serialize)]
pub struct EngineFacts {
    pub threads: i64,
    pub hash_mb: u64,
    pub ponder: bool,
    /// False after an engine fault until the engine answers again.
    pub healthy: bool,
    /// The last fault, while not healthy.
    pub fault: Option<String>,
    /// The external engine's program (`engine.command`), if one plays.
    pub external: Option<String>,
    pub book: String,
    pub tables: String,
    pub learning: Option<LearningCounts>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LearningCounts {
    /// Learned book moves (`book.learn`).
    pub book: usize,
    /// Learned positions (`position.bin`).
    pub position: usize,
    /// Game result records (`book.lrn`).
    pub results: usize,
}

/// One of our games in progress.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LiveGame {
    pub game: u32,
    /// Where it is played: `ics` (the server of `[ics]`) or `lichess`.
    pub site: String,
    /// A name unique among the games in progress (`ics/12`, `lichess/AbCd1234`).
    pub name: String,
    /// The game's page on the server, when it has one.
    pub url: Option<String>,
    pub white: String,
    pub black: String,
    pub white_rating: Option<i32>,
    pub black_rating: Option<i32>,
    /// `white` or `black`.
    pub our_color: String,
    pub opponent: String,
    pub opponent_rating: Option<i32>,
    /// `GM`, `IM`, `C`, `S` or `normal`.
    pub class: String,
    pub rated: bool,
    pub kind: String,
    /// `minutes+increment`.
    pub time_control: String,
    pub fen: String,
    pub ply: usize,
    pub last_move: Option<LastMove>,
    pub white_ms: i64,
    pub black_ms: i64,
    /// When the last board arrived (the running clock counts from there).
    pub board_unix_ms: u64,
    /// The side whose clock runs (`white`/`black`), none before the first move.
    pub running: Option<String>,
    pub search: Option<Search>,
    /// Our evaluation after each of our moves (White's view, centipawns).
    pub evals: Vec<EvalPoint>,
    /// What was whispered or kibitzed, newest last.
    pub talk: Vec<String>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct LastMove {
    pub uci: String,
    pub san: String,
}

impl LastMove {
    /// The last of `moves` played from `start`.
    pub fn of(start: &Board, moves: &[Move]) -> Option<LastMove> {
        let (&last, before) = moves.split_last()?;
        let mut b = start.clone();
        for &m in before {
            b.make_move(m);
        }
        Some(LastMove {
            uci: last.to_string(),
            san: b.san(last),
        })
    }
}

/// The latest finished iteration of a search.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Search {
    pub depth: i32,
    /// White's view, centipawns.
    pub score_cp: i32,
    /// As Crafty prints it (`+0.23`, `Mat05`).
    pub score: String,
    /// Crafty format with move numbers (`12. ... Nxe4 13. Bxe4`).
    pub pv: String,
    pub nodes: u64,
    pub nps: u64,
    pub time_ms: u64,
}

impl Search {
    /// From a search report: `stm_score` from the side to move of `root`.
    pub fn new(
        root: &Board,
        depth: i32,
        stm_score: i32,
        nodes: u64,
        time: std::time::Duration,
        pv: &[Move],
    ) -> Search {
        let white = if root.side_to_move() == Color::White {
            stm_score
        } else {
            -stm_score
        };
        let secs = time.as_secs_f64();
        Search {
            depth,
            score_cp: white,
            score: crate::format::score(white),
            pv: crate::format::pv(root, crate::format::legal_prefix(root, pv), true),
            nodes,
            nps: if secs > 0.0 {
                (nodes as f64 / secs) as u64
            } else {
                0
            },
            time_ms: time.as_millis() as u64,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct EvalPoint {
    /// `12. Nf3` or `12... Bd7`.
    pub label: String,
    pub cp: i32,
}

impl EvalPoint {
    /// The evaluation `white_cp` after `mv` from `root`.
    pub fn of(root: &Board, mv: Move, white_cp: i32) -> EvalPoint {
        let number = root.fullmove_number();
        let dots = if root.side_to_move() == Color::White {
            "."
        } else {
            "..."
        };
        EvalPoint {
            label: format!("{number}{dots} {}", root.san(mv)),
            cp: white_cp,
        }
    }
}

/// An observed game or relay.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ObservedGame {
    pub game: u32,
    pub white: String,
    pub black: String,
    pub relay: bool,
    pub fen: String,
    pub search: Option<Search>,
    pub talk: Vec<String>,
}

/// Counters and gauges for monitoring (the web side renders them as Prometheus
/// metrics).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counters {
    /// Finished games by account (`ics`, `lichess`), our result (`win`, `loss`,
    /// `draw`, `aborted`, `adjourned`, `lost` for a game cut off with the
    /// connection) and opponent class.
    pub games: std::collections::BTreeMap<
        String,
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>,
    >,
    /// Moves we sent that the server answered with `Illegal move.`.
    pub illegal_move_replies: u64,
    /// Games lost on time (`us`) or won on time (`opponent`).
    pub time_forfeits_us: u64,
    pub time_forfeits_opponent: u64,
    pub tells_received: u64,
    pub tells_refused: u64,
    /// Our clock when each of our moves was sent.
    pub time_left: Histogram,
    /// The last search of ours: nodes per second and depth.
    pub engine_nps: u64,
    pub search_depth: i32,
    pub moves_sent: u64,
}

/// A histogram with the fixed `TIME_LEFT_BUCKETS` (counts per bucket, not
/// cumulative; the last entry counts the values above every bound).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Histogram {
    pub buckets: Vec<u64>,
    pub sum: f64,
    pub count: u64,
}

impl Histogram {
    pub fn observe(&mut self, v: f64) {
        if self.buckets.len() != TIME_LEFT_BUCKETS.len() + 1 {
            self.buckets = vec![0; TIME_LEFT_BUCKETS.len() + 1];
        }
        let i = TIME_LEFT_BUCKETS
            .iter()
            .position(|&b| v <= b)
            .unwrap_or(TIME_LEFT_BUCKETS.len());
        self.buckets[i] += 1;
        self.sum += v;
        self.count += 1;
    }

    /// (upper bound, cumulative count) for each bound, then `+Inf`.
    pub fn cumulative(&self) -> Vec<(f64, u64)> {
        let mut acc = 0;
        let mut out = Vec::new();
        for (i, &b) in TIME_LEFT_BUCKETS.iter().enumerate() {
            acc += self.buckets.get(i).copied().unwrap_or(0);
            out.push((b, acc));
        }
        out.push((f64::INFINITY, self.count));
        out
    }
}

impl Counters {
    /// One more finished game of `account` with this result and opponent class.
    pub fn count_game(&mut self, account: &str, outcome: &str, class: &str) {
        *self
            .games
            .entry(account.to_string())
            .or_default()
            .entry(outcome.to_string())
            .or_default()
            .entry(class.to_string())
            .or_insert(0) += 1;
    }
}

impl Status {
    /// The account named `name` (`ics`, `lichess`).
    pub fn account_mut(&mut self, name: &str) -> Option<&mut AccountStatus> {
        self.accounts.iter_mut().find(|a| a.name == name)
    }

    pub fn account(&self, name: &str) -> Option<&AccountStatus> {
        self.accounts.iter().find(|a| a.name == name)
    }

    /// Adds the account's entry, or replaces it.
    pub fn set_account(&mut self, a: AccountStatus) {
        match self.account_mut(&a.name) {
            Some(x) => *x = a,
            None => self.accounts.push(a),
        }
    }

    /// What `/healthz` and the metric `healthy` check: every account logged in (or
    /// streaming) with a live link, and the engine healthy. `Err` names the first
    /// problem.
    pub fn health(&self) -> Result<(), String> {
        if self.accounts.is_empty() {
            return Err("no account has started yet".into());
        }
        for a in &self.accounts {
            if !a.connected {
                let why = a.reason.as_deref().unwrap_or("not logged in yet");
                return Err(format!("{} account {}: {why}", a.name, a.state.name()));
            }
            if !a.healthy {
                return Err(format!("{} account: the link does not answer", a.name));
            }
        }
        if !self.engine.healthy {
            return Err(format!(
                "engine fault: {}",
                self.engine.fault.as_deref().unwrap_or("it did not answer")
            ));
        }
        Ok(())
    }

    /// Our move in `game` was chosen by a search: the engine answered, the counters,
    /// the game's evaluation graph and search facts.
    pub fn our_move(&mut self, game: u32, point: EvalPoint, facts: Search) {
        self.engine.healthy = true;
        self.counters.engine_nps = facts.nps;
        self.counters.search_depth = facts.depth;
        if let Some(g) = self.games.iter_mut().find(|g| g.game == game) {
            g.evals.push(point);
            g.search = Some(facts);
        }
    }
}

/// The writing end, shared by the supervisor and the game tasks.
#[derive(Clone)]
pub struct StatusTx(Arc<watch::Sender<Status>>);

impl std::fmt::Debug for StatusTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusTx")
    }
}

impl Default for StatusTx {
    fn default() -> Self {
        StatusTx::new()
    }
}

impl StatusTx {
    pub fn new() -> StatusTx {
        let status = Status {
            version: env!("CARGO_PKG_VERSION").to_string(),
            started_unix_ms: unix_ms(),
            ..Default::default()
        };
        StatusTx(Arc::new(watch::channel(status).0))
    }

    /// Changes the status and wakes the readers.
    pub fn update(&self, f: impl FnOnce(&mut Status)) {
        self.0.send_modify(f);
    }

    /// Changes the status; wakes the readers only when `f` says it changed something.
    pub fn update_if(&self, f: impl FnOnce(&mut Status) -> bool) {
        self.0.send_if_modified(f);
    }

    /// Changes one game in progress (nothing when it is not listed).
    pub fn game(&self, game: u32, f: impl FnOnce(&mut LiveGame)) {
        self.0
            .send_if_modified(|s| match s.games.iter_mut().find(|g| g.game == game) {
                Some(g) => {
                    f(g);
                    true
                }
                None => false,
            });
    }

    /// Games with a result finished against `who` today (UTC), from the ledger.
    pub fn games_today(&self, who: &str) -> u32 {
        let today = super::history::today();
        let s = self.0.borrow();
        s.results
            .rows
            .iter()
            .filter(|r| r.day == today)
            .filter(|r| r.outcome != super::history::Outcome::Other)
            .filter(|r| r.opponent.eq_ignore_ascii_case(who))
            .count() as u32
    }

    pub fn subscribe(&self) -> watch::Receiver<Status> {
        self.0.subscribe()
    }
}

impl LiveGame {
    /// A game that starts, named by its account and number (the Lichess account
    /// names it by its id and gives its `url`).
    pub fn of(setup: &super::play::GameSetup) -> LiveGame {
        LiveGame {
            game: setup.game,
            site: setup.account.clone(),
            name: format!("{}/{}", setup.account, setup.game),
            url: None,
            white: setup.white.clone(),
            black: setup.black.clone(),
            white_rating: setup.white_rating,
            black_rating: setup.black_rating,
            our_color: color_name(setup.our_color).into(),
            opponent: setup.opponent.clone(),
            opponent_rating: match setup.our_color {
                Color::White => setup.black_rating,
                Color::Black => setup.white_rating,
            },
            class: class_name(setup.class).into(),
            rated: setup.rated,
            kind: setup.kind.clone(),
            time_control: time_control_text(setup.initial_secs, setup.increment),
            fen: Board::startpos().to_fen(),
            white_ms: setup.initial_secs as i64 * 1000,
            black_ms: setup.initial_secs as i64 * 1000,
            board_unix_ms: unix_ms(),
            ..Default::default()
        }
    }

    /// Adds a talk line, keeping the newest.
    pub fn said(&mut self, line: &str) {
        self.talk.push(line.to_string());
        if self.talk.len() > TALK_KEPT {
            self.talk.remove(0);
        }
    }
}

impl ObservedGame {
    pub fn said(&mut self, line: &str) {
        self.talk.push(line.to_string());
        if self.talk.len() > TALK_KEPT {
            self.talk.remove(0);
        }
    }
}

/// The class's short name as the lists call it.
pub fn class_name(c: crate::game::OpponentClass) -> &'static str {
    use crate::game::OpponentClass::*;
    match c {
        Normal => "normal",
        Im => "IM",
        Gm => "GM",
        Computer => "C",
        Special => "S",
    }
}

/// A game's control as the servers write it, minutes + increment seconds: `3+2`, and
/// `0.5+0` for a Lichess half-minute game.
pub fn time_control_text(initial_secs: u32, increment: u32) -> String {
    if initial_secs % 60 == 0 {
        format!("{}+{increment}", initial_secs / 60)
    } else {
        let m = format!("{:.2}", initial_secs as f64 / 60.0);
        format!("{}+{increment}", m.trim_end_matches('0'))
    }
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_in_minutes_even_under_one() {
        assert_eq!(time_control_text(180, 2), "3+2");
        assert_eq!(time_control_text(0, 12), "0+12");
        assert_eq!(time_control_text(30, 0), "0.5+0");
        assert_eq!(time_control_text(15, 0), "0.25+0");
        assert_eq!(time_control_text(90, 1), "1.5+1");
    }

    #[test]
    fn histogram_buckets_are_cumulative_with_inf_last() {
        let mut h = Histogram::default();
        for v in [0.2, 0.7, 15.0, 5000.0] {
            h.observe(v);
        }
        let c = h.cumulative();
        assert_eq!(c[0], (0.5, 1));
        assert_eq!(c[1], (1.0, 2));
        assert_eq!(c.iter().find(|(b, _)| *b == 20.0).unwrap().1, 3);
        assert_eq!(c.last().unwrap().1, 4);
        assert_eq!(c[c.len() - 2].1, 3, "5000 s is above every bound");
        assert!((h.sum - 5015.9).abs() < 1e-9);
    }

    #[test]
    fn updates_reach_readers_and_unknown_games_change_nothing() {
        let tx = StatusTx::new();
        let mut rx = tx.subscribe();
        rx.borrow_and_update();
        tx.game(7, |g| g.fen = "x".into());
        assert!(!rx.has_changed().unwrap());
        tx.update(|s| {
            s.games.push(LiveGame {
                game: 7,
                ..Default::default()
            })
        });
        assert!(rx.has_changed().unwrap());
        rx.borrow_and_update();
        tx.game(7, |g| g.said("hello"));
        assert!(rx.has_changed().unwrap());
        assert_eq!(rx.borrow().games[0].talk, vec!["hello".to_string()]);
    }

    #[test]
    fn last_moves_and_eval_points_are_in_san_with_numbers() {
        let b = Board::startpos();
        let e4 = b.parse_move("e4").unwrap();
        let mut a = b.clone();
        a.make_move(e4);
        let e5 = a.parse_move("e5").unwrap();
        let l = LastMove::of(&b, &[e4, e5]).unwrap();
        assert_eq!((l.uci.as_str(), l.san.as_str()), ("e7e5", "e5"));
        assert!(LastMove::of(&b, &[]).is_none());
        assert_eq!(EvalPoint::of(&a, e5, -20).label, "1... e5");
        assert_eq!(EvalPoint::of(&b, e4, 20).label, "1. e4");
    }

    #[test]
    fn search_scores_are_from_whites_view_with_numbered_pv() {
        let b =
            Board::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").unwrap();
        let e5 = b.parse_move("e5").unwrap();
        let s = Search::new(
            &b,
            9,
            30,
            2000,
            std::time::Duration::from_millis(500),
            &[e5],
        );
        assert_eq!(s.score_cp, -30);
        assert_eq!(s.score, "-0.30");
        assert_eq!(s.nps, 4000);
        assert!(s.pv.starts_with("1. ... e5"), "{}", s.pv);
    }
}
