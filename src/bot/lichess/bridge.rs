//! One Lichess game: its stream (`gameFull`, `gameState`, `chatLine`,
//! `opponentGone`) turned into the game-level events the FICS side produces
//! (a style-12 board built from the UCI move list and the millisecond clocks, draw
//! and takeback offers, the end of the game), fed to the same game task
//! (`bot::play::run`), whose typed commands become BOT API requests (move, draw,
//! resign, abort, takeback answer, chat). The engine is the game task's own.
//! Requests never hold up the stream: each is a task of its own.

use super::{chat, Shared};
use crate::bot::play::{self as game, GameInput, GameOutcome, GameSetup};
use crate::chess::{Board, Color, Move};
use crate::ics::{GameEnd, GameMoves, ServerCommand, ServerEvent, ServerKind, ServerProfile};
use crate::lichess::{GameEvent, GameFull, GameState, Ndjson, Room};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{debug, error, info, warn};

/// Our clock as the engine sees it before our first move: Lichess aborts a game
/// whose first move does not come within about 20 seconds, whatever the clock.
pub const FIRST_MOVE_MS: i64 = 8_000;

/// Our clock's cap before our first move: `FIRST_MOVE_MS`, less when the state's
/// `expiration` (ours when it is our turn) leaves less time (two fifths of it, the
/// game task thinking at most about half of the clock it sees).
fn first_move_cap(s: &GameState, our_turn: bool) -> i64 {
    match s.expiration {
        Some(e) if our_turn && s.in_progress() => FIRST_MOVE_MS.min((e.left_ms() * 2 / 5).max(500)),
        _ => FIRST_MOVE_MS,
    }
}

/// The game as the last state showed it.
struct View {
    number: u32,
    white: String,
    black: String,
    our_color: Color,
    opponent: String,
    initial_ms: i64,
    moves: Vec<Move>,
    board: Board,
    state: Option<GameState>,
    /// The opponent's draw and takeback offers as last seen (to notice new ones).
    draw_offer: bool,
    takeback_offer: bool,
}

impl View {
    /// Replays the UCI move list from the start; an error names the move.
    fn replay(moves: &str) -> Result<(Board, Vec<Move>), String> {
        let mut b = Board::startpos();
        let mut list = Vec::new();
        for (i, t) in moves.split_whitespace().enumerate() {
            let m = b
                .parse_uci(t)
                .map_err(|e| format!("move {} '{t}': {e}", i + 1))?;
            b.make_move(m);
            list.push(m);
        }
        Ok((b, list))
    }

    fn our_moves(&self) -> usize {
        let first = if self.our_color == Color::White { 0 } else { 1 };
        (self.moves.len() + 1 - first) / 2
    }

    /// The board as a style-12 event.
    fn style12(&self, s: &GameState) -> crate::ics::Style12 {
        let mut white_clock = s.wtime;
        let mut black_clock = s.btime;
        let stm = self.board.side_to_move();
        if self.our_moves() == 0 {
            let c = match self.our_color {
                Color::White => &mut white_clock,
                Color::Black => &mut black_clock,
            };
            *c = (*c).min(first_move_cap(s, stm == self.our_color));
        }
        // Our increment as the server gives it; none once we berserked.
        let (inc, berserk) = match self.our_color {
            Color::White => (s.winc, s.wberserk),
            Color::Black => (s.binc, s.bberserk),
        };
        let inc = if berserk { 0 } else { inc.max(0) };
        crate::ics::Style12 {
            game: self.number,
            white: self.white.clone(),
            black: self.black.clone(),
            relation: if stm == self.our_color { 1 } else { -1 },
            initial_minutes: (self.initial_ms / 60_000) as u32,
            increment_secs: (inc / 1000) as u32,
            white_clock,
            black_clock,
            verbose_move: if self.moves.is_empty() {
                "none".into()
            } else {
                "?".into()
            },
            move_time: "(0:00)".into(),
            pretty_move: if self.moves.is_empty() {
                "none".into()
            } else {
                "?".into()
            },
            flip: self.our_color == Color::Black,
            ticking: Some(self.moves.len() >= 2),
            ..crate::ics::Style12::from_board(&self.board)
        }
    }

    fn move_list(&self) -> GameMoves {
        let mut b = Board::startpos();
        let mut sans = Vec::new();
        for &m in &self.moves {
            sans.push(b.san(m));
            b.make_move(m);
        }
        GameMoves {
            game: Some(self.number),
            white: self.white.clone(),
            black: self.black.clone(),
            times: vec![None; sans.len()],
            moves: sans,
            standard_start: true,
        }
    }

    /// The end of the game in the server's words, for the record.
    fn end(&self, s: &GameState) -> GameEnd {
        let result = s.result().to_string();
        let (winner, loser) = match s.winner.as_deref() {
            Some("white") => (self.white.as_str(), self.black.as_str()),
            Some("black") => (self.black.as_str(), self.white.as_str()),
            _ => ("", ""),
        };
        let reason = match s.status.as_str() {
            "mate" => format!("{loser} checkmated"),
            "resign" => format!("{loser} resigns"),
            "stalemate" => "Game drawn by stalemate".into(),
            "outoftime" if winner.is_empty() => {
                "Game drawn: a player ran out of time and the other has no material to mate".into()
            }
            "outoftime" => format!("{loser} forfeits on time"),
            "timeout" => {
                format!("{loser} left the game (disconnected) and {winner} claimed the win")
            }
            "draw" => "Game drawn".into(),
            "aborted" => "Game aborted".into(),
            "noStart" => "Game aborted: the first move did not come in time".into(),
            other => format!("Game ended: {other}"),
        };
        GameEnd {
            game: self.number,
            white: self.white.clone(),
            black: self.black.clone(),
            reason,
            result,
        }
    }
}

/// Opens the game stream, a few times if need be.
async fn open(sh: &Shared, id: &str) -> Option<Ndjson> {
    let mut delay = Duration::from_secs(1);
    for attempt in 1..=5 {
        match sh.api.game_stream(id).await {
            Ok(s) => return Some(s),
            Err(e) if e.is_permanent() => {
                error!(game = id, "cannot open the game stream: {e}");
                return None;
            }
            Err(e) => {
                warn!(game = id, attempt, "cannot open the game stream: {e}");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(16));
            }
        }
    }
    None
}

/// The first `gameFull` of a stream (other lines before it are skipped).
async fn first_full(stream: &mut Ndjson, id: &str) -> Option<Box<GameFull>> {
    while let Some(line) = stream.next_line().await {
        match line.map(|l| crate::lichess::parse_game_event(&l)) {
            Ok(Ok(GameEvent::Full(g))) => return Some(g),
            Ok(Ok(other)) => debug!(game = id, ?other, "before gameFull: skipped"),
            Ok(Err(e)) => warn!(game = id, "{e}"),
            Err(e) => {
                warn!(game = id, "{e}");
                return None;
            }
        }
    }
    None
}

/// Plays the game `id` to its end; returns the game task's outcome (none when the
/// game could not be started).
pub async fn play(sh: Arc<Shared>, id: String, number: u32) -> Option<GameOutcome> {
    let mut stream = open(&sh, &id).await?;
    let full = first_full(&mut stream, &id).await?;
    let standard_start = full
        .initial_fen
        .as_deref()
        .is_none_or(|f| f == "startpos" || f == Board::startpos().to_fen());
    if full.variant.key != "standard" || !standard_start {
        error!(game = %id, variant = %full.variant.key, "not standard chess from the start: aborting");
        let _ = sh.api.abort(&id).await;
        return None;
    }
    let me = sh.account.id.to_ascii_lowercase();
    let our_color = if full.white.id.as_deref().map(str::to_ascii_lowercase) == Some(me.clone()) {
        Color::White
    } else {
        Color::Black
    };
    let them = match our_color {
        Color::White => &full.black,
        Color::Black => &full.white,
    };
    let white = full.white.display();
    let black = full.black.display();
    let opponent = them.display();
    let computer = them.title.as_deref() == Some("BOT") || them.ai_level.is_some();
    let clock = full.clock.unwrap_or_default();
    let (mut initial_ms, mut inc_ms) = (clock.initial as i64, clock.increment as i64);
    let berserked = match our_color {
        Color::White => full.state.wberserk,
        Color::Black => full.state.bberserk,
    };
    if berserked {
        // Half the time, no increment: the clock we really have.
        initial_ms /= 2;
        inc_ms = 0;
    }
    let mut opts = sh.opts.clone();
    // Whole seconds: a half-minute game is not "0 minutes".
    let (initial_secs, increment) = ((initial_ms / 1000) as u32, (inc_ms / 1000) as u32);
    super::super::play::set_game_level(&mut opts, initial_secs as u64, increment as u64);
    let class = sh.lists.classify(&opponent, computer);
    let profile = ServerProfile::new(ServerKind::Fics);
    let setup = GameSetup {
        game: number,
        white: white.clone(),
        black: black.clone(),
        our_color,
        opponent: opponent.clone(),
        white_rating: full.white.rating,
        black_rating: full.black.rating,
        rated: full.rated,
        kind: full.speed.clone(),
        initial_secs,
        increment,
        continuing: !full.state.moves.trim().is_empty(),
        fresh: false,
        server: sh.host.clone(),
        clock_unit: Some(crate::ics::ClockUnit::Millis),
        autoflag: true,
        opts,
        fault: None,
        class,
        computer,
        status: sh.status.clone(),
        decline_draws: true,
    };
    info!(game = %id, number, %white, %black, berserked, "Lichess game started");
    let _ = sh.events.send(crate::bot::BotEvent::GameStarted {
        game: number,
        opponent: opponent.clone(),
    });
    let mut live = crate::bot::status::LiveGame::of(&setup);
    live.site = "lichess".into();
    live.name = format!("lichess/{id}");
    live.url = Some(format!("{}/{id}", sh.web_base));
    sh.status.update(|s| {
        s.games.retain(|g| g.game != number);
        s.games.push(live);
    });
    let kibitz = setup.opts.int("kibitz") > 0;
    let (writer, mut cmds) = crate::ics::Writer::typed(profile);
    let (tx, rx) = mpsc::unbounded_channel();
    let mut task = tokio::spawn(game::run(setup, writer, None, rx));
    let mut view = View {
        number,
        white,
        black,
        our_color,
        opponent,
        initial_ms,
        moves: Vec::new(),
        board: Board::startpos(),
        state: None,
        draw_offer: false,
        takeback_offer: false,
    };
    let mut ended = on_state(&mut view, full.state.clone(), &tx, &id);
    let mut stream = Some(stream);
    let mut chat = chat::Limiter::default();
    // When to claim the win: the opponent has left (`opponentGone`).
    let mut claim_at: Option<tokio::time::Instant> = None;
    let mut claims = 0u32;
    loop {
        tokio::select! {
            line = next(&mut stream) => match line {
                Some(Ok(text)) => match crate::lichess::parse_game_event(&text) {
                    Ok(GameEvent::Full(g)) => ended |= on_state(&mut view, g.state, &tx, &id),
                    Ok(GameEvent::State(s)) => ended |= on_state(&mut view, s, &tx, &id),
                    Ok(GameEvent::Chat { room, username, text }) => {
                        on_chat(&sh, &id, number, &room, &username, &text, kibitz, &mut chat);
                    }
                    Ok(GameEvent::OpponentGone { gone, claim_win_in_seconds }) => {
                        info!(game = %id, gone, ?claim_win_in_seconds, "opponent gone");
                        claim_at = match (gone, claim_win_in_seconds) {
                            (true, Some(s)) if !ended => Some(
                                tokio::time::Instant::now()
                                    + Duration::from_secs(s as u64)
                                    + Duration::from_millis(300),
                            ),
                            _ => None,
                        };
                    }
                    Ok(GameEvent::Unknown) => debug!(game = %id, "unknown game event: {text}"),
                    Err(e) => warn!(game = %id, "{e}"),
                },
                Some(Err(e)) => {
                    warn!(game = %id, "game stream: {e}");
                    stream = None;
                }
                None => {
                    stream = None;
                    if ended {
                        continue;
                    }
                    warn!(game = %id, "the game stream ended; opening it again");
                    match open(&sh, &id).await {
                        Some(s) => stream = Some(s),
                        None => {
                            let _ = tx.send(GameInput::ConnectionLost);
                        }
                    }
                }
            },
            _ = sleep_until(claim_at) => {
                claims += 1;
                // Again in a few seconds if the claim is refused (too early, or a
                // state crossed it); a handful of tries at most.
                claim_at = (claims < 5 && !ended)
                    .then(|| tokio::time::Instant::now() + Duration::from_secs(3));
                if !ended {
                    info!(game = %id, "the opponent has left: claiming the win");
                    spawn_request(&id, "claim victory", {
                        let api = sh.api.clone();
                        let gid = id.clone();
                        async move { api.claim_victory(&gid).await }
                    });
                }
            }
            Some(c) = cmds.recv() => command(&sh, &id, &view, c, &tx),
            out = &mut task => {
                // Lines the game said last (the farewell) still go out.
                // (The task's writer is gone with it: the channel ends at once.)
                while let Ok(Some(c)) =
                    tokio::time::timeout(Duration::from_millis(200), cmds.recv()).await
                {
                    command(&sh, &id, &view, c, &tx);
                }
                return match out {
                    Ok(o) => Some(o),
                    Err(e) => {
                        error!(game = %id, "the game task failed: {e}; resigning");
                        let _ = sh.api.resign(&id).await;
                        None
                    }
                };
            }
        }
    }
}

async fn sleep_until(t: Option<tokio::time::Instant>) {
    match t {
        Some(t) => tokio::time::sleep_until(t).await,
        None => std::future::pending().await,
    }
}

/// A chat line: logged only cleaned; a command answered in its room, politely and
/// not too often.
#[allow(clippy::too_many_arguments)]
fn on_chat(
    sh: &Arc<Shared>,
    id: &str,
    number: u32,
    room: &str,
    username: &str,
    text: &str,
    kibitz: bool,
    limiter: &mut chat::Limiter,
) {
    let line = chat::sanitize(text);
    let who = chat::sanitize(username);
    info!(game = %id, room = %chat::sanitize(room), user = %who, "chat: {line}");
    if who.eq_ignore_ascii_case(&sh.account.username) || who.eq_ignore_ascii_case("lichess") {
        return;
    }
    let room = match room {
        "player" => Room::Player,
        "spectator" => Room::Spectator,
        _ => return,
    };
    let Some(cmd) = chat::command(&line) else {
        return;
    };
    if !limiter.allow(Instant::now()) {
        debug!(game = %id, "chat command not answered (rate limit)");
        return;
    }
    let search = sh
        .status
        .subscribe()
        .borrow()
        .games
        .iter()
        .find(|g| g.game == number)
        .and_then(|g| g.search.clone());
    let answer = chat::answer(cmd, room, search.as_ref(), kibitz);
    let api = sh.api.clone();
    let gid = id.to_string();
    spawn_request(
        id,
        "chat",
        async move { api.chat(&gid, room, &answer).await },
    );
}

async fn next(s: &mut Option<Ndjson>) -> Option<Result<String, crate::lichess::HttpError>> {
    match s.as_mut() {
        Some(s) => s.next_line().await,
        None => std::future::pending().await,
    }
}

/// A new state: the board to the game task, new offers, the end. True when the
/// game is over.
fn on_state(v: &mut View, s: GameState, tx: &mpsc::UnboundedSender<GameInput>, id: &str) -> bool {
    let at = Instant::now();
    match View::replay(&s.moves) {
        Ok((b, moves)) => {
            v.board = b;
            v.moves = moves;
        }
        Err(e) => {
            // Never guessed: the board stays as it was, the game task waits.
            error!(game = id, "the server's move list cannot be replayed: {e}");
            return false;
        }
    }
    let _ = tx.send(GameInput::Event(
        ServerEvent::Style12(Box::new(v.style12(&s))),
        at,
    ));
    let (draw, takeback) = match v.our_color {
        Color::White => (s.bdraw, s.btakeback),
        Color::Black => (s.wdraw, s.wtakeback),
    };
    if draw && !v.draw_offer {
        let _ = tx.send(GameInput::Event(
            ServerEvent::DrawOffer {
                from: v.opponent.clone(),
            },
            at,
        ));
    }
    if takeback && !v.takeback_offer {
        let _ = tx.send(GameInput::Event(
            ServerEvent::TakebackRequest {
                from: v.opponent.clone(),
                plies: 1,
            },
            at,
        ));
    }
    v.draw_offer = draw;
    v.takeback_offer = takeback;
    let over = !s.in_progress();
    if over {
        let _ = tx.send(GameInput::Event(ServerEvent::GameEnd(v.end(&s)), at));
    }
    v.state = Some(s);
    over
}

/// Runs a request on a task of its own, logging a failure.
fn spawn_request<F>(id: &str, what: &'static str, f: F)
where
    F: std::future::Future<Output = Result<(), crate::lichess::LichessError>> + Send + 'static,
{
    let id = id.to_string();
    tokio::spawn(async move {
        if let Err(e) = f.await {
            warn!(game = %id, "{what}: {e}");
        }
    });
}

/// A command of the game task as a BOT API request.
fn command(
    sh: &Arc<Shared>,
    id: &str,
    v: &View,
    c: ServerCommand,
    tx: &mpsc::UnboundedSender<GameInput>,
) {
    let api = sh.api.clone();
    let gid = id.to_string();
    match c {
        ServerCommand::Move(text) => {
            let uci = match v.board.parse_move(&text) {
                Ok(m) => m.to_uci(),
                Err(e) => {
                    error!(game = id, "our move '{text}' does not fit the board: {e}");
                    let _ = tx.send(GameInput::Event(
                        ServerEvent::IllegalMove { text },
                        Instant::now(),
                    ));
                    return;
                }
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                if let Err(e) = api.play(&gid, &uci, false).await {
                    warn!(game = %gid, "move {uci} refused: {e}");
                    // The game task re-synchronises (`moves`) and thinks again.
                    let _ = tx.send(GameInput::Event(
                        ServerEvent::IllegalMove {
                            text: format!("{uci}: {e}"),
                        },
                        Instant::now(),
                    ));
                }
            });
        }
        ServerCommand::Moves(_) => {
            let _ = tx.send(GameInput::Event(
                ServerEvent::GameMoves(v.move_list()),
                Instant::now(),
            ));
        }
        ServerCommand::Draw => spawn_request(id, "draw", async move { api.draw(&gid, true).await }),
        ServerCommand::Resign => spawn_request(id, "resign", async move { api.resign(&gid).await }),
        ServerCommand::Abort => spawn_request(id, "abort", async move { api.abort(&gid).await }),
        ServerCommand::Decline(_) if v.takeback_offer => {
            spawn_request(id, "takeback answer", async move {
                api.takeback(&gid, false).await
            })
        }
        ServerCommand::Decline(_) if v.draw_offer => {
            spawn_request(
                id,
                "draw answer",
                async move { api.draw(&gid, false).await },
            )
        }
        ServerCommand::Whisper(t) => spawn_request(id, "chat", async move {
            api.chat(&gid, Room::Spectator, &t).await
        }),
        ServerCommand::Kibitz(t) => spawn_request(id, "chat", async move {
            api.chat(&gid, Room::Player, &t).await?;
            api.chat(&gid, Room::Spectator, &t).await
        }),
        ServerCommand::Say(t) | ServerCommand::Tell(_, t) => spawn_request(
            id,
            "chat",
            async move { api.chat(&gid, Room::Player, &t).await },
        ),
        other => debug!(game = id, ?other, "no Lichess request for this command"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(moves: &str, our: Color) -> View {
        let (board, moves) = View::replay(moves).unwrap();
        View {
            number: 7,
            white: "w".into(),
            black: "b".into(),
            our_color: our,
            opponent: "x".into(),
            initial_ms: 60_000,
            moves,
            board,
            state: None,
            draw_offer: false,
            takeback_offer: false,
        }
    }

    fn state(moves: &str, w: i64, b: i64) -> GameState {
        GameState {
            moves: moves.into(),
            wtime: w,
            btime: b,
            winc: 0,
            binc: 0,
            status: "started".into(),
            winner: None,
            wdraw: false,
            bdraw: false,
            wtakeback: false,
            btakeback: false,
            wberserk: false,
            bberserk: false,
            expiration: None,
        }
    }

    #[test]
    fn berserk_and_the_first_move_deadline() {
        let v = view("e2e4", Color::Black);
        let mut s = state("e2e4", 60_000, 30_000);
        s.binc = 2000;
        s.winc = 2000;
        assert_eq!(v.style12(&s).increment_secs, 2);
        s.bberserk = true;
        assert_eq!(
            v.style12(&s).increment_secs,
            0,
            "no increment once we berserked"
        );
        s.expiration = Some(crate::lichess::Expiration {
            idle_millis: 15_000,
            millis_to_move: 20_000,
        });
        assert_eq!(
            v.style12(&s).black_clock,
            2_000,
            "two fifths of the 5 s left to make the first move"
        );
        s.expiration = Some(crate::lichess::Expiration {
            idle_millis: 25_000,
            millis_to_move: 20_000,
        });
        assert_eq!(v.style12(&s).black_clock, 500, "never below half a second");
        // Not our turn: the expiration is the opponent's.
        let w = view("", Color::Black);
        assert_eq!(w.style12(&s).black_clock, FIRST_MOVE_MS);
    }

    #[test]
    fn style12_from_uci_moves() {
        let m = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1";
        let v = view(m, Color::Black);
        let s = v.style12(&state(m, 50_000, 40_000));
        let b = s.board().unwrap();
        assert_eq!(b.to_fen(), v.board.to_fen());
        assert_eq!(s.side_to_move, Color::Black);
        assert_eq!(s.relation, 1);
        assert_eq!(s.ply(), 7);
        assert_eq!((s.white_clock, s.black_clock), (50_000, 40_000));
        let first = view("e2e4", Color::Black);
        let s1 = first.style12(&state("e2e4", 60_000, 60_000));
        assert_eq!(
            (s1.white_clock, s1.black_clock),
            (60_000, FIRST_MOVE_MS),
            "our clock capped before our first move"
        );
        assert!(View::replay("e2e4 e2e4").is_err());
        assert!(View::replay("e1h1").is_err());
        let ml = v.move_list();
        assert_eq!(ml.moves.last().map(String::as_str), Some("O-O"));
    }

    #[test]
    fn ends_in_the_server_words() {
        let v = view("f2f3 e7e5 g2g4 d8h4", Color::White);
        let mut s = state("", 0, 0);
        s.status = "mate".into();
        s.winner = Some("black".into());
        let e = v.end(&s);
        assert_eq!(
            (e.result.as_str(), e.reason.as_str()),
            ("0-1", "w checkmated")
        );
        s.status = "outoftime".into();
        s.winner = Some("white".into());
        let e = v.end(&s);
        assert_eq!(
            crate::bot::archive::termination(&e.reason, &e.result),
            "time forfeit"
        );
    }
}
