//! A fake Lichess on 127.0.0.1, written from the published BOT API description:
//! `/api/account`, `/api/stream/event` (ndjson, keep-alive empty lines),
//! challenges accepted (a game starts) or declined (the reason kept), the game
//! stream (`gameFull`, then a `gameState` after every move) with a real clock
//! that flags at zero and Fisher increments, moves checked by the crate's own
//! move generator (an illegal or out-of-turn move is answered 400), a scripted
//! opponent that plays legal moves, resign, abort, draw and chat, a 401 for a
//! wrong token and a 429 when more than `burst` requests come within a second.
//! Also: the first-move rule (a side that does not make its first move within
//! `first_move_limit` gets the game aborted, with `expiration` in the states
//! before), berserk (the bot's clock halved, no increment, `wberserk`/`bberserk`),
//! an opponent that never moves or leaves (`opponentGone`, then
//! `claim-victory`), chat lines, draw and takeback offers and their answers,
//! `/api/account/playing`, `/api/bot/online` and our own challenges (accepted,
//! declined or left unanswered by name).
//! Rude on request, as the internet is: a game stream cut by a TCP reset in the
//! middle of a line, or gone silent (no state, no keep-alive) while the connection
//! stays open (`stream_cuts`).
//! Draws by rule as on Lichess: threefold repetition and the fifty-move rule end
//! the game only when claimed (`claim-draw`; `draw/yes` is an offer, which the
//! opponent declines), the fivefold repetition and the 75-move rule at once.

use bytes::Bytes;
use http_body_util::{combinators::UnsyncBoxBody, BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use kibitzer::chess::{Board, Color, Move};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

pub const TOKEN: &str = "lip_good_token";

type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// How a game stream is cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Half a line, then a TCP reset.
    Reset,
    /// Nothing at all (no state, no keep-alive) for this long, the connection open.
    Silence(Duration),
}

/// A cut of the game stream of the `game`th game (0 first), after `after_states`
/// states of it were sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamCut {
    pub game: usize,
    pub after_states: usize,
    pub kind: Cut,
}

#[derive(Clone, Debug)]
pub struct FakeConfig {
    /// The account's title (`BOT` for a bot account).
    pub title: Option<String>,
    /// More requests than this within a second are answered 429.
    pub burst: usize,
    /// The opponent's delay before each move.
    pub opponent_delay: Duration,
    /// The opponent resigns after this many of its moves (`None`: never).
    pub opponent_resigns_after: Option<usize>,
    /// Every game stream is cut once, after this many states (`None`: never).
    pub drop_game_streams_after: Option<usize>,
    /// A side that has not made its first move this long after its turn began
    /// gets the game aborted (Lichess: 20 s at bullet for casual games).
    pub first_move_limit: Duration,
    /// The opponent never moves.
    pub opponent_never_moves: bool,
    /// After this many of its moves the opponent stops and leaves: `opponentGone`
    /// with `claimWinInSeconds` of `gone_claim_s`.
    pub opponent_leaves_after: Option<usize>,
    pub gone_claim_s: u32,
    /// The bot's side has berserked in every game (half the clock, no increment).
    pub bot_berserks: bool,
    /// Each of our moves is held this long before the server takes it (network lag,
    /// charged to our clock).
    pub move_lag: Duration,
    /// Bots listed by `/api/bot/online`: name, bullet and blitz rating.
    pub online_bots: Vec<(String, i32, i32)>,
    /// Bots that accept our challenges (others in `decline` decline, the rest never answer).
    pub accept: Vec<String>,
    pub decline: Vec<String>,
    /// Game streams cut on purpose.
    pub stream_cuts: Vec<StreamCut>,
    /// Each accept of a challenge is answered this late (as while the client waits
    /// out a 429): challenges read meanwhile meet an accept in flight.
    pub accept_delay: Duration,
    /// Moves (UCI) already played when a game starts.
    pub start_moves: Vec<&'static str>,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            title: Some("BOT".into()),
            burst: 1000,
            opponent_delay: Duration::from_millis(20),
            opponent_resigns_after: None,
            drop_game_streams_after: None,
            first_move_limit: Duration::from_secs(20),
            opponent_never_moves: false,
            opponent_leaves_after: None,
            gone_claim_s: 2,
            bot_berserks: false,
            move_lag: Duration::ZERO,
            online_bots: Vec::new(),
            accept: Vec::new(),
            decline: Vec::new(),
            stream_cuts: Vec::new(),
            accept_delay: Duration::ZERO,
            start_moves: Vec::new(),
        }
    }
}

/// A challenge to send on the event stream.
#[derive(Clone, Debug)]
pub struct ChallengeSpec {
    pub id: String,
    pub variant: String,
    pub rated: bool,
    pub limit_s: u32,
    pub increment_s: u32,
    pub challenger_title: Option<String>,
    /// The challenger's name and rating (the bot is rated 2000).
    pub challenger: String,
    pub challenger_rating: i32,
    /// The colour the bot gets.
    pub bot_color: Color,
}

impl ChallengeSpec {
    pub fn standard(id: &str, limit_s: u32, increment_s: u32, bot_color: Color) -> Self {
        ChallengeSpec {
            id: id.into(),
            variant: "standard".into(),
            rated: false,
            limit_s,
            increment_s,
            challenger_title: None,
            challenger: "Opponent".into(),
            challenger_rating: 1500,
            bot_color,
        }
    }
}

pub struct Game {
    pub id: String,
    /// Cuts still to come for this game's stream.
    pub cuts: Vec<StreamCut>,
    /// When each cut happened, and when each stream was opened.
    pub cut_at: Vec<Instant>,
    pub opened_at: Vec<Instant>,
    /// A draw claimed by rule (`claim-draw`) ended the game.
    pub claimed_draw: bool,
    pub bot_color: Color,
    pub board: Board,
    pub moves: Vec<Move>,
    pub clock: [i64; 2],
    pub inc: i64,
    pub initial: i64,
    /// When the side to move started its turn (the clock runs from both first moves).
    pub turn_started: Instant,
    pub status: String,
    pub winner: Option<Color>,
    pub subscribers: Vec<mpsc::UnboundedSender<String>>,
    pub opponent_moves: usize,
    /// Our clock after each of our moves, ms.
    pub bot_clock_after: Vec<i64>,
    /// gameState sent -> our move received, ms, for each of our moves.
    pub responses: Vec<f64>,
    pub last_state_at: Instant,
    /// States sent, and when to cut the streams once.
    pub states_sent: usize,
    pub drop_after: Option<usize>,
    pub streams_opened: usize,
    pub berserk: [bool; 2],
    pub inc_of: [i64; 2],
    /// The opponent's offers standing.
    pub opp_draw: bool,
    pub opp_takeback: bool,
    /// The scripted opponent asks for a takeback just after its next move
    /// (two game states back to back: the move, then the proposal), so the
    /// request comes on our turn however fast we move.
    pub takeback_after_move: bool,
    /// Takebacks granted (each changes the scripted opponent's next choice).
    pub takebacks: usize,
    /// Plies each takeback removed.
    pub took_back: Vec<usize>,
    /// Answers the bot gave: `draw/no`, `takeback/no`...
    pub answers: Vec<String>,
    /// The opponent left at this instant.
    pub gone_since: Option<Instant>,
    pub claims: usize,
    pub gone_claim: Duration,
    pub first_move_limit_ms: i64,
    /// Who failed to make their first move in time.
    pub no_start: Option<Color>,
}

#[derive(Default)]
pub struct Stats {
    /// Method, path, body, status, when.
    pub requests: Vec<(String, String, String, u16, Instant)>,
    /// Our challenges: the challenged bot, limit, increment.
    pub our_challenges: Vec<(String, u32, u32)>,
    pub cancelled: Vec<String>,
    pub declined: Vec<(String, String)>,
    pub accepted: Vec<String>,
    pub illegal: usize,
    pub chats: Vec<(String, String)>,
    pub rate_limited: usize,
    pub unauthorized: usize,
}

struct Inner {
    cfg: FakeConfig,
    challenges: Vec<ChallengeSpec>,
    events: Vec<mpsc::UnboundedSender<String>>,
    games: Vec<Game>,
    recent: Vec<Instant>,
    stats: Stats,
}

#[derive(Clone)]
pub struct FakeLichess {
    pub port: u16,
    inner: Arc<Mutex<Inner>>,
}

fn idx(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl Game {
    fn uci_moves(&self) -> String {
        self.moves
            .iter()
            .map(|m| m.to_uci())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The clocks now (the side to move's running once both have moved).
    fn clocks_now(&self) -> [i64; 2] {
        let mut c = self.clock;
        if self.status == "started" && self.moves.len() >= 2 {
            let s = idx(self.board.side_to_move());
            c[s] -= self.turn_started.elapsed().as_millis() as i64;
        }
        c
    }

    fn state_json(&self) -> serde_json::Value {
        let c = self.clocks_now();
        let mut v = serde_json::json!({
            "type": "gameState",
            "moves": self.uci_moves(),
            "wtime": c[0].max(0),
            "btime": c[1].max(0),
            "winc": self.inc,
            "binc": self.inc,
            "status": self.status,
        });
        if let Some(w) = self.winner {
            v["winner"] = color_name(w).into();
        }
        for (i, k) in ["wberserk", "bberserk"].iter().enumerate() {
            if self.berserk[i] {
                v[*k] = true.into();
            }
        }
        let opp = if self.bot_color == Color::White {
            "b"
        } else {
            "w"
        };
        if self.opp_draw {
            v[format!("{opp}draw")] = true.into();
        }
        if self.opp_takeback {
            v[format!("{opp}takeback")] = true.into();
        }
        if self.status == "started" && self.moves.len() < 2 {
            v["expiration"] = serde_json::json!({
                "idleMillis": self.turn_started.elapsed().as_millis() as i64,
                "millisToMove": self.first_move_limit_ms,
            });
        }
        v
    }

    fn send_line(&mut self, line: String) {
        self.subscribers.retain(|s| s.send(line.clone()).is_ok());
    }

    fn full_json(&self, bot: &str) -> String {
        let bot_player = serde_json::json!({"id": bot.to_ascii_lowercase(), "name": bot, "title": "BOT", "rating": 2000});
        let opp = serde_json::json!({"id": "opponent", "name": "Opponent", "title": null, "rating": 1500});
        let (w, b) = match self.bot_color {
            Color::White => (bot_player, opp),
            Color::Black => (opp, bot_player),
        };
        serde_json::json!({
            "type": "gameFull",
            "id": self.id,
            "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "clock": {"initial": self.initial, "increment": self.inc},
            "speed": "bullet",
            "perf": {"name": "Bullet"},
            "rated": false,
            "createdAt": 0,
            "white": w,
            "black": b,
            "initialFen": "startpos",
            "state": self.state_json(),
        })
        .to_string()
    }

    fn broadcast(&mut self) {
        let line = format!("{}\n", self.state_json());
        self.last_state_at = Instant::now();
        self.subscribers.retain(|s| s.send(line.clone()).is_ok());
        self.states_sent += 1;
        if self.drop_after == Some(self.states_sent) {
            // The connection drops: every stream of this game ends.
            self.subscribers.clear();
        }
        let due: Vec<StreamCut> = self
            .cuts
            .iter()
            .copied()
            .filter(|c| c.after_states == self.states_sent)
            .collect();
        self.cuts.retain(|c| c.after_states != self.states_sent);
        for c in due {
            let marker = match c.kind {
                Cut::Reset => RESET.to_string(),
                Cut::Silence(d) => format!("{SILENCE}{}", d.as_millis()),
            };
            self.cut_at.push(Instant::now());
            // The streams open now are the ones cut; later ones are whole.
            for s in self.subscribers.drain(..) {
                let _ = s.send(marker.clone());
            }
        }
    }

    /// Plays `m` for the side to move (checked by the caller), runs the clock.
    fn play(&mut self, m: Move) {
        let s = idx(self.board.side_to_move());
        if self.moves.len() >= 2 {
            self.clock[s] -= self.turn_started.elapsed().as_millis() as i64;
            self.clock[s] += self.inc_of[s];
        }
        self.opp_draw = false;
        self.opp_takeback = false;
        self.board.make_move(m);
        self.moves.push(m);
        self.turn_started = Instant::now();
        if self.board.is_checkmate() {
            self.status = "mate".into();
            self.winner = Some(!self.board.side_to_move());
        } else if self.board.is_stalemate() {
            self.status = "stalemate".into();
        } else if self.board.is_insufficient_material()
            || self.board.repetition_count() >= 4
            || self.board.halfmove_clock() >= 150
        {
            // Lichess ends these at once; threefold and fifty moves wait for a claim.
            self.status = "draw".into();
        }
    }

    /// Takes back the last `plies` moves (the clocks stay as they are, as on Lichess).
    fn take_back(&mut self, plies: usize) {
        let keep = self.moves.len().saturating_sub(plies);
        self.moves.truncate(keep);
        let mut b = Board::startpos();
        for &m in &self.moves {
            b.make_move(m);
        }
        self.board = b;
        self.opp_takeback = false;
        self.opp_draw = false;
        self.takebacks += 1;
        self.took_back.push(plies);
        self.turn_started = Instant::now();
    }

    fn end(&mut self, status: &str, winner: Option<Color>) {
        self.status = status.into();
        self.winner = winner;
    }
}

impl FakeLichess {
    pub async fn start(cfg: FakeConfig) -> FakeLichess {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let fake = FakeLichess {
            port,
            inner: Arc::new(Mutex::new(Inner {
                cfg,
                challenges: Vec::new(),
                events: Vec::new(),
                games: Vec::new(),
                recent: Vec::new(),
                stats: Stats::default(),
            })),
        };
        let f = fake.clone();
        tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    return;
                };
                let f = f.clone();
                tokio::spawn(async move {
                    let sock = Rude::new(sock);
                    let reset = sock.reset.clone();
                    let svc = hyper::service::service_fn(move |req| {
                        let f = f.clone();
                        let reset = reset.clone();
                        async move { Ok::<_, std::convert::Infallible>(f.answer(req, reset).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(sock), svc)
                        .await;
                });
            }
        });
        let f = fake.clone();
        // The clock: flags a side whose time is out.
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let mut g = f.inner.lock().unwrap();
                for game in g.games.iter_mut() {
                    if game.status != "started" {
                        continue;
                    }
                    let c = game.clocks_now();
                    let s = game.board.side_to_move();
                    if game.moves.len() < 2
                        && game.turn_started.elapsed().as_millis() as i64
                            >= game.first_move_limit_ms
                    {
                        // The first-move rule: a casual game is aborted.
                        game.no_start = Some(s);
                        game.end("aborted", None);
                        game.broadcast();
                    } else if c[idx(s)] <= 0 {
                        game.clock = c;
                        game.end("outoftime", Some(!s));
                        game.broadcast();
                    }
                }
            }
        });
        fake
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn with<R>(&self, f: impl FnOnce(&Stats, &[Game]) -> R) -> R {
        let g = self.inner.lock().unwrap();
        f(&g.stats, &g.games)
    }

    /// Sends a challenge on every open event stream (and to streams opened later).
    pub fn challenge(&self, c: ChallengeSpec) {
        let mut g = self.inner.lock().unwrap();
        let line = challenge_json(&c);
        g.events.retain(|s| s.send(line.clone()).is_ok());
        g.challenges.push(c);
    }

    pub async fn wait_for(
        &self,
        limit: Duration,
        mut f: impl FnMut(&Stats, &[Game]) -> bool,
    ) -> bool {
        let end = Instant::now() + limit;
        while Instant::now() < end {
            if self.with(&mut f) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.with(f)
    }

    async fn answer(&self, req: Request<Incoming>, reset: Arc<AtomicBool>) -> Response<Body> {
        let method = req.method().to_string();
        let path = req.uri().path().to_string();
        let query = req.uri().query().unwrap_or("").to_string();
        let auth = req
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = req
            .into_body()
            .collect()
            .await
            .map(|b| String::from_utf8_lossy(&b.to_bytes()).to_string())
            .unwrap_or_default();
        if method == "POST" && path.starts_with("/api/challenge/") && path.ends_with("/accept") {
            let d = self.inner.lock().unwrap().cfg.accept_delay;
            if !d.is_zero() {
                tokio::time::sleep(d).await;
            }
        }
        if method == "POST" && path.contains("/move/") {
            let lag = self.inner.lock().unwrap().cfg.move_lag;
            if !lag.is_zero() {
                tokio::time::sleep(lag).await;
            }
        }
        let (status, resp) = self.route(&method, &path, &query, &auth, &body, reset);
        self.inner.lock().unwrap().stats.requests.push((
            method,
            path,
            body,
            status,
            Instant::now(),
        ));
        resp
    }

    fn route(
        &self,
        method: &str,
        path: &str,
        _query: &str,
        auth: &str,
        body: &str,
        reset: Arc<AtomicBool>,
    ) -> (u16, Response<Body>) {
        let mut g = self.inner.lock().unwrap();
        let now = Instant::now();
        g.recent
            .retain(|t| now.duration_since(*t) < Duration::from_secs(1));
        g.recent.push(now);
        if g.recent.len() > g.cfg.burst {
            g.stats.rate_limited += 1;
            return (
                429,
                json(
                    StatusCode::TOO_MANY_REQUESTS,
                    r#"{"error":"Too many requests. Try again later."}"#,
                ),
            );
        }
        if auth != format!("Bearer {TOKEN}") {
            g.stats.unauthorized += 1;
            return (
                401,
                json(StatusCode::UNAUTHORIZED, r#"{"error":"No such token"}"#),
            );
        }
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let ok = || (200, json(StatusCode::OK, r#"{"ok":true}"#));
        let bad = |why: &str| {
            (
                400,
                json(StatusCode::BAD_REQUEST, &format!(r#"{{"error":"{why}"}}"#)),
            )
        };
        match (method, parts.as_slice()) {
            ("GET", ["api", "account"]) => {
                let mut v = serde_json::json!({"id": "kibbot", "username": "KibBot", "perfs": {}, "createdAt": 0});
                if let Some(t) = &g.cfg.title {
                    v["title"] = t.clone().into();
                }
                (200, json(StatusCode::OK, &v.to_string()))
            }
            ("GET", ["api", "stream", "event"]) => {
                let (tx, rx) = mpsc::unbounded_channel();
                let _ = tx.send("\n".to_string());
                for c in &g.challenges {
                    if !g.stats.accepted.contains(&c.id)
                        && !g.stats.declined.iter().any(|d| d.0 == c.id)
                    {
                        let _ = tx.send(challenge_json(c));
                    }
                }
                g.events.push(tx);
                (200, stream(rx))
            }
            ("POST", ["api", "challenge", id, "accept"]) => {
                let Some(c) = g.challenges.iter().find(|c| c.id == *id).cloned() else {
                    return (404, json(StatusCode::NOT_FOUND, r#"{"error":"Not found"}"#));
                };
                g.stats.accepted.push(c.id.clone());
                // Lichess: the game of an accepted challenge has the challenge's id.
                let gid = c.id.clone();
                drop(g);
                self.new_game(&gid, c.bot_color, c.limit_s, c.increment_s);
                ok()
            }
            ("POST", ["api", "challenge", id, "decline"]) => {
                let reason = body
                    .split('&')
                    .find_map(|kv| kv.strip_prefix("reason="))
                    .unwrap_or("generic")
                    .to_string();
                g.stats.declined.push((id.to_string(), reason));
                ok()
            }
            ("GET", ["api", "account", "playing"]) => {
                let now: Vec<serde_json::Value> = g
                    .games
                    .iter()
                    .filter(|x| x.status == "started")
                    .map(|x| {
                        serde_json::json!({
                            "gameId": x.id, "fullId": format!("{}xxxx", x.id),
                            "color": color_name(x.bot_color), "fen": x.board.to_fen(),
                            "hasMoved": x.moves.len() > (x.bot_color == Color::Black) as usize,
                            "isMyTurn": x.board.side_to_move() == x.bot_color,
                            "lastMove": x.moves.last().map(|m| m.to_uci()).unwrap_or_default(),
                            "opponent": {"id": "opponent", "username": "Opponent", "rating": 1500},
                            "perf": "bullet", "rated": false, "rating": 2000,
                            "secondsLeft": x.clock[idx(x.bot_color)] / 1000,
                            "source": "friend", "speed": "bullet",
                            "status": {"id": 20, "name": "started"},
                            "variant": {"key": "standard", "name": "Standard"}
                        })
                    })
                    .collect();
                let v = serde_json::json!({"nowPlaying": now, "nbMyTurn": 0});
                (200, json(StatusCode::OK, &v.to_string()))
            }
            ("GET", ["api", "bot", "online"]) => {
                let (tx, rx) = mpsc::unbounded_channel();
                for (name, bullet, blitz) in &g.cfg.online_bots {
                    let v = serde_json::json!({
                        "id": name.to_ascii_lowercase(), "username": name, "title": "BOT",
                        "perfs": {"bullet": {"rating": bullet, "games": 100, "rd": 50, "prog": 0},
                                  "blitz": {"rating": blitz, "games": 100, "rd": 50, "prog": 0}},
                        "createdAt": 0, "seenAt": 0, "playTime": {"total": 0, "tv": 0}
                    });
                    let _ = tx.send(format!("{v}\n"));
                }
                drop(tx);
                (200, stream(rx))
            }
            ("POST", ["api", "challenge", id, "cancel"]) => {
                g.stats.cancelled.push(id.to_string());
                ok()
            }
            ("POST", ["api", "challenge", user]) => {
                let field = |k: &str| {
                    body.split('&')
                        .find_map(|kv| kv.strip_prefix(&format!("{k}=")[..]))
                        .unwrap_or("")
                        .to_string()
                };
                let limit: u32 = field("clock.limit").parse().unwrap_or(0);
                let inc: u32 = field("clock.increment").parse().unwrap_or(0);
                let n = g.stats.our_challenges.len();
                let cid = format!("out{n}");
                g.stats.our_challenges.push((user.to_string(), limit, inc));
                let user = user.to_string();
                let accepts = g.cfg.accept.iter().any(|a| a.eq_ignore_ascii_case(&user));
                let declines = g.cfg.decline.iter().any(|a| a.eq_ignore_ascii_case(&user));
                let v = serde_json::json!({
                    "id": cid, "url": format!("https://lichess.org/{cid}"), "status": "created",
                    "challenger": {"id": "kibbot", "name": "KibBot", "title": "BOT", "rating": 2000},
                    "destUser": {"id": user.to_ascii_lowercase(), "name": user, "title": "BOT", "rating": 2000},
                    "variant": {"key": "standard", "name": "Standard", "short": "Std"},
                    "rated": false, "speed": "bullet",
                    "timeControl": {"type": "clock", "limit": limit, "increment": inc, "show": "x"},
                    "color": "random", "finalColor": "white", "perf": {"icon": "", "name": "Bullet"}
                });
                if declines {
                    let line = serde_json::json!({"type": "challengeDeclined", "challenge": {"id": cid, "declineReason": "I'm not accepting challenges at the moment.", "declineReasonKey": "generic"}}).to_string() + "\n";
                    let f = self.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        f.inner
                            .lock()
                            .unwrap()
                            .events
                            .retain(|s| s.send(line.clone()).is_ok());
                    });
                } else if accepts {
                    let f = self.clone();
                    let cid2 = cid.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        f.new_game(&cid2, Color::White, limit, inc);
                    });
                }
                (200, json(StatusCode::OK, &v.to_string()))
            }
            ("GET", ["api", "bot", "game", "stream", id]) => {
                let Some(game) = g.games.iter_mut().find(|x| x.id == *id) else {
                    return (404, json(StatusCode::NOT_FOUND, r#"{"error":"Not found"}"#));
                };
                let (tx, rx) = mpsc::unbounded_channel();
                let _ = tx.send(format!("{}\n\n", game.full_json("KibBot")));
                game.last_state_at = Instant::now();
                game.streams_opened += 1;
                game.opened_at.push(Instant::now());
                game.subscribers.push(tx);
                (200, rude_stream(rx, reset))
            }
            ("POST", ["api", "bot", "game", id, "move", uci]) => {
                let Some(game) = g.games.iter_mut().find(|x| x.id == *id) else {
                    return (404, json(StatusCode::NOT_FOUND, r#"{"error":"Not found"}"#));
                };
                if game.status != "started" || game.board.side_to_move() != game.bot_color {
                    g.stats.illegal += 1;
                    return bad("Not your turn, or game already over");
                }
                let Ok(m) = game.board.parse_uci(uci) else {
                    g.stats.illegal += 1;
                    return bad(&format!("Illegal move {uci}"));
                };
                game.responses
                    .push(game.last_state_at.elapsed().as_secs_f64() * 1000.0);
                game.play(m);
                let c = game.clock[idx(game.bot_color)];
                game.bot_clock_after.push(c);
                game.broadcast();
                let over = game.status != "started";
                let gid = game.id.clone();
                drop(g);
                if !over {
                    self.opponent_moves_later(gid);
                }
                ok()
            }
            ("POST", ["api", "bot", "game", id, action])
            | ("POST", ["api", "bot", "game", id, action, _]) => {
                let Some(game) = g.games.iter_mut().find(|x| x.id == *id) else {
                    return (404, json(StatusCode::NOT_FOUND, r#"{"error":"Not found"}"#));
                };
                match *action {
                    "resign" if game.status == "started" => {
                        let w = !game.bot_color;
                        game.end("resign", Some(w));
                        game.broadcast();
                    }
                    "abort" if game.status == "started" && game.moves.len() < 2 => {
                        game.end("aborted", None);
                        game.broadcast();
                    }
                    "claim-draw" if game.status == "started" => {
                        if game.board.is_threefold_repetition() || game.board.is_fifty_move_draw() {
                            game.claimed_draw = true;
                            game.answers.push("claim-draw".into());
                            game.end("draw", None);
                            game.broadcast();
                        } else {
                            return bad("No draw to claim");
                        }
                    }
                    "draw" | "takeback" => {
                        let yes = path.ends_with("/yes");
                        game.answers
                            .push(format!("{action}/{}", if yes { "yes" } else { "no" }));
                        if *action == "draw" && yes && game.opp_draw && game.status == "started" {
                            game.end("draw", None);
                            game.broadcast();
                        } else if *action == "draw" && !yes {
                            game.opp_draw = false;
                            game.broadcast();
                        } else if *action == "takeback" && !yes {
                            game.opp_takeback = false;
                            game.broadcast();
                        } else if *action == "takeback" && game.opp_takeback {
                            // Lichess's rule: the moves since the proposer's last move
                            // go: one ply when it is our turn, two when theirs.
                            let plies = if game.board.side_to_move() == game.bot_color {
                                1
                            } else {
                                2
                            };
                            game.take_back(plies);
                            game.broadcast();
                            let gid = game.id.clone();
                            let their_turn = game.board.side_to_move() != game.bot_color;
                            drop(g);
                            if their_turn {
                                self.opponent_moves_later(gid);
                            }
                            return ok();
                        } else if *action == "takeback" {
                            // No request standing: on Lichess this asks for a takeback
                            // of our own.
                            game.answers.push("takeback/propose".into());
                        }
                    }
                    "claim-victory" => {
                        game.claims += 1;
                        let due = g_claim_due(game);
                        if !due {
                            return bad("The opponent has not left long enough");
                        }
                        let w = game.bot_color;
                        game.end("timeout", Some(w));
                        game.broadcast();
                    }
                    "chat" => {
                        let text = body
                            .split('&')
                            .find_map(|kv| kv.strip_prefix("text="))
                            .unwrap_or("")
                            .to_string();
                        let room = body
                            .split('&')
                            .find_map(|kv| kv.strip_prefix("room="))
                            .unwrap_or("")
                            .to_string();
                        g.stats.chats.push((room, text));
                    }
                    _ => return bad("cannot do that now"),
                }
                ok()
            }
            _ => (404, json(StatusCode::NOT_FOUND, r#"{"error":"Not found"}"#)),
        }
    }

    /// A game starts (a challenge accepted either way): `gameStart` on the event
    /// streams, and the opponent's first move when it has White.
    fn new_game(&self, gid: &str, bot_color: Color, limit_s: u32, increment_s: u32) {
        let mut g = self.inner.lock().unwrap();
        let initial = limit_s as i64 * 1000;
        let inc = increment_s as i64 * 1000;
        let drop_after = g.cfg.drop_game_streams_after;
        let berserk = g.cfg.bot_berserks;
        let gone_claim = Duration::from_secs(g.cfg.gone_claim_s as u64);
        let first_move_limit_ms = g.cfg.first_move_limit.as_millis() as i64;
        let mut clock = [initial; 2];
        let mut inc_of = [inc; 2];
        let mut berserked = [false; 2];
        if berserk {
            let b = idx(bot_color);
            clock[b] = initial / 2;
            inc_of[b] = 0;
            berserked[b] = true;
        }
        let index = g.games.len();
        let cuts: Vec<StreamCut> = g
            .cfg
            .stream_cuts
            .iter()
            .copied()
            .filter(|c| c.game == index)
            .collect();
        let mut board = Board::startpos();
        let mut moves = Vec::new();
        for u in &g.cfg.start_moves {
            let m = board.parse_uci(u).expect("a legal start move");
            board.make_move(m);
            moves.push(m);
        }
        g.games.push(Game {
            id: gid.to_string(),
            cuts,
            cut_at: Vec::new(),
            opened_at: Vec::new(),
            claimed_draw: false,
            bot_color,
            board,
            moves,
            clock,
            inc,
            initial,
            turn_started: Instant::now(),
            status: "started".into(),
            winner: None,
            subscribers: Vec::new(),
            opponent_moves: 0,
            bot_clock_after: Vec::new(),
            responses: Vec::new(),
            last_state_at: Instant::now(),
            states_sent: 0,
            drop_after,
            streams_opened: 0,
            berserk: berserked,
            inc_of,
            opp_draw: false,
            opp_takeback: false,
            takeback_after_move: false,
            takebacks: 0,
            took_back: Vec::new(),
            answers: Vec::new(),
            gone_since: None,
            claims: 0,
            gone_claim,
            first_move_limit_ms,
            no_start: None,
        });
        let line = serde_json::json!({"type": "gameStart", "game": {"gameId": gid, "fullId": format!("{gid}xxxx"), "color": color_name(bot_color), "fen": Board::startpos().to_fen(), "hasMoved": false, "isMyTurn": bot_color == Color::White, "lastMove": "", "opponent": {"id": "opponent", "username": "Opponent", "rating": 1500}, "perf": "bullet", "rated": false, "secondsLeft": limit_s, "source": "friend", "speed": "bullet", "variant": {"key": "standard", "name": "Standard"}, "compat": {"bot": true, "board": true}, "id": gid}}).to_string() + "\n";
        g.events.retain(|s| s.send(line.clone()).is_ok());
        drop(g);
        if bot_color == Color::Black {
            self.opponent_moves_later(gid.to_string());
        }
    }

    /// A chat line from `username` in `room` of game `gid`.
    pub fn chat_line(&self, gid: &str, room: &str, username: &str, text: &str) {
        let mut g = self.inner.lock().unwrap();
        if let Some(game) = g.games.iter_mut().find(|x| x.id == gid) {
            let v = serde_json::json!({"type": "chatLine", "room": room, "username": username, "text": text});
            game.send_line(format!("{v}\n"));
        }
    }

    /// The opponent resigns game `gid` now.
    pub fn opponent_resigns(&self, gid: &str) {
        let mut g = self.inner.lock().unwrap();
        if let Some(game) = g.games.iter_mut().find(|x| x.id == gid) {
            if game.status == "started" {
                let w = game.bot_color;
                game.end("resign", Some(w));
                game.broadcast();
            }
        }
    }

    /// Changes the configuration for what comes next (games started later read it
    /// at their start).
    pub fn set_config(&self, f: impl FnOnce(&mut FakeConfig)) {
        f(&mut self.inner.lock().unwrap().cfg);
    }

    /// Every open event stream ends (the client must open it again).
    pub fn drop_event_streams(&self) {
        self.inner.lock().unwrap().events.clear();
    }

    /// The challenger withdraws challenge `id` (`challengeCanceled`).
    pub fn withdraw(&self, id: &str) {
        let mut g = self.inner.lock().unwrap();
        g.challenges.retain(|c| c.id != id);
        let line = serde_json::json!({"type": "challengeCanceled", "challenge": {"id": id, "status": "canceled"}}).to_string() + "\n";
        g.events.retain(|s| s.send(line.clone()).is_ok());
    }

    /// An opponent that did not move (`opponent_never_moves`) makes its moves
    /// from now on.
    pub fn opponent_starts(&self, gid: &str) {
        self.inner.lock().unwrap().cfg.opponent_never_moves = false;
        self.opponent_moves_later(gid.to_string());
    }

    /// The opponent offers a draw (`draw`) or asks for a takeback.
    pub fn offer(&self, gid: &str, what: &str) {
        let mut g = self.inner.lock().unwrap();
        if let Some(game) = g.games.iter_mut().find(|x| x.id == gid) {
            match what {
                "draw" => game.opp_draw = true,
                _ => game.opp_takeback = true,
            }
            game.broadcast();
        }
    }

    /// The opponent asks for a takeback right after its next move.
    pub fn takeback_after_next_move(&self, gid: &str) {
        let mut g = self.inner.lock().unwrap();
        if let Some(game) = g.games.iter_mut().find(|x| x.id == gid) {
            game.takeback_after_move = true;
        }
    }

    /// The scripted opponent: a legal move after a short delay (a capture when
    /// there is one, else a move picked by the ply), or resignation when told.
    fn opponent_moves_later(&self, gid: String) {
        let f = self.clone();
        tokio::spawn(async move {
            let delay = f.inner.lock().unwrap().cfg.opponent_delay;
            tokio::time::sleep(delay).await;
            let mut g = f.inner.lock().unwrap();
            let resign_after = g.cfg.opponent_resigns_after;
            let never = g.cfg.opponent_never_moves;
            let leaves_after = g.cfg.opponent_leaves_after;
            let claim_s = g.cfg.gone_claim_s;
            let Some(game) = g.games.iter_mut().find(|x| x.id == gid) else {
                return;
            };
            if game.status != "started" || game.board.side_to_move() == game.bot_color || never {
                return;
            }
            if leaves_after.is_some_and(|n| game.opponent_moves >= n) {
                game.gone_since = Some(Instant::now());
                let v = serde_json::json!({"type": "opponentGone", "gone": true, "claimWinInSeconds": claim_s});
                game.send_line(format!("{v}\n"));
                return;
            }
            if resign_after.is_some_and(|n| game.opponent_moves >= n) {
                let w = game.bot_color;
                game.end("resign", Some(w));
                game.broadcast();
                return;
            }
            let legal = game.board.legal_moves();
            let moves: Vec<Move> = legal.iter().copied().collect();
            if moves.is_empty() {
                return;
            }
            let capture = moves
                .iter()
                .copied()
                .find(|&m| game.board.piece_at(m.to()).is_some());
            let m = capture
                .filter(|_| game.takebacks == 0)
                .unwrap_or(moves[(game.moves.len() * 7 + 3 + game.takebacks * 5) % moves.len()]);
            game.play(m);
            game.opponent_moves += 1;
            game.broadcast();
            if std::mem::take(&mut game.takeback_after_move) && game.status == "started" {
                game.opp_takeback = true;
                game.broadcast();
            }
        });
    }
}

/// The opponent has been gone long enough for a claim.
fn g_claim_due(game: &Game) -> bool {
    game.status == "started"
        && game
            .gone_since
            .is_some_and(|t| t.elapsed() >= game.gone_claim)
}

fn challenge_json(c: &ChallengeSpec) -> String {
    serde_json::json!({
        "type": "challenge",
        "challenge": {
            "id": c.id,
            "url": format!("https://lichess.org/{}", c.id),
            "status": "created",
            "challenger": {"id": c.challenger.to_ascii_lowercase(), "name": c.challenger, "rating": c.challenger_rating, "title": c.challenger_title, "online": true},
            "destUser": {"id": "kibbot", "name": "KibBot", "rating": 2000, "title": "BOT"},
            "variant": {"key": c.variant, "name": c.variant, "short": "X"},
            "rated": c.rated,
            "speed": "bullet",
            "timeControl": {"type": "clock", "limit": c.limit_s, "increment": c.increment_s, "show": format!("{}+{}", c.limit_s / 60, c.increment_s)},
            "color": "random",
            "finalColor": color_name(!c.bot_color),
            "perf": {"icon": "", "name": "Bullet"}
        }
    })
    .to_string()
        + "\n"
}

fn json(status: StatusCode, text: &str) -> Response<Body> {
    let mut r = Response::new(
        Full::new(Bytes::from(text.to_string()))
            .map_err(|never| match never {})
            .boxed_unsync(),
    );
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

/// The marker that cuts a stream by a reset, and the one that silences it (with
/// the milliseconds after it).
const RESET: &str = "\u{0}reset";
const SILENCE: &str = "\u{0}silence:";

/// An ndjson stream fed by `rx`, with a keep-alive newline every few seconds.
fn stream(rx: mpsc::UnboundedReceiver<String>) -> Response<Body> {
    rude_stream(rx, Arc::new(AtomicBool::new(false)))
}

/// `stream`, which a marker from `rx` can cut: `RESET` sends half a line and resets
/// the connection (`reset` makes its socket close with a RST), `SILENCE` stops every
/// byte, keep-alives too, for a while.
fn rude_stream(rx: mpsc::UnboundedReceiver<String>, reset: Arc<AtomicBool>) -> Response<Body> {
    // State: 0 streaming, 1 half a line sent (an error follows), 2 over.
    let s = futures_util::stream::unfold((rx, reset, 0u8), |(mut rx, reset, state)| async move {
        match state {
            1 => {
                let e = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut");
                return Some((Err(e), (rx, reset, 2)));
            }
            2 => return None,
            _ => {}
        }
        let line = tokio::select! {
            l = rx.recv() => l?,
            _ = tokio::time::sleep(Duration::from_secs(3)) => "\n".to_string(),
        };
        if line == RESET {
            reset.store(true, Ordering::SeqCst);
            let half = Frame::data(Bytes::from_static(b"{\"type\":\"gameSt"));
            return Some((Ok(half), (rx, reset, 1)));
        }
        if let Some(ms) = line.strip_prefix(SILENCE) {
            let ms: u64 = ms.parse().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            return Some((Ok(Frame::data(Bytes::from_static(b"\n"))), (rx, reset, 0)));
        }
        Some((Ok(Frame::data(Bytes::from(line))), (rx, reset, 0)))
    });
    let mut r = Response::new(StreamBody::new(s).boxed_unsync());
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/x-ndjson"),
    );
    r
}

/// A server socket that can end with a TCP reset: when `reset` is set, closing it
/// sends RST (SO_LINGER 0) instead of an orderly FIN, as a dead NAT entry or a
/// crashed proxy does.
struct Rude {
    sock: Option<tokio::net::TcpStream>,
    reset: Arc<AtomicBool>,
}

impl Rude {
    fn new(sock: tokio::net::TcpStream) -> Rude {
        Rude {
            sock: Some(sock),
            reset: Arc::new(AtomicBool::new(false)),
        }
    }

    fn io(&mut self) -> std::pin::Pin<&mut tokio::net::TcpStream> {
        std::pin::Pin::new(self.sock.as_mut().expect("open"))
    }
}

impl Drop for Rude {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            if let Some(s) = self.sock.take() {
                #[allow(deprecated)]
                let _ = s.set_linger(Some(Duration::ZERO));
            }
        }
    }
}

impl tokio::io::AsyncRead for Rude {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.io().poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Rude {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.io().poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.io().poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if self.reset.load(Ordering::SeqCst) {
            // No FIN before the reset.
            return std::task::Poll::Ready(Ok(()));
        }
        self.io().poll_shutdown(cx)
    }
}
