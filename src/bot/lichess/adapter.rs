//! The Lichess adapter of one game: its stream (`gameFull`, `gameState`,
//! `chatLine`, `opponentGone`) becomes port events (the position replayed from
//! the UCI move list with the millisecond clocks, draw and takeback offers, the
//! end), and the game task's port commands become BOT API requests (move, draw
//! offer and answer, the draw claim, resign, abort, takeback answer, chat).
//!
//! The stream recovers by itself: an error, a reset, a truncated body, an end
//! before the game's, or silence longer than a few missed keep-alives closes it and
//! it is opened again at once, then with growing waits (capped at two seconds while
//! the game is on); its first line, `gameFull`, gives the whole game again, so
//! nothing that happened meanwhile is lost. Requests never hold up the stream: each
//! is a task of its own.

use super::{chat, Shared};
use crate::bot::life::Frame;
use crate::bot::play::port::{
    Channel, End, GameCommand, GameEvent, GameInput, Offer, PortRx, PortTx, Position,
};
use crate::bot::play::{self, GameOutcome, GameSetup};
use crate::chess::{Board, Color, Move};
use crate::lichess::{GameEvent as LiEvent, GameFull, GameState, Ndjson, Room};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tracing::{debug, error, info, warn};

/// Our clock as the engine sees it before our first move: Lichess aborts a game
/// whose first move does not come within about 20 seconds, whatever the clock.
pub const FIRST_MOVE_MS: i64 = 8_000;

/// Silence on a game stream longer than this (Lichess sends a keep-alive line about
/// every 7 seconds) means the stream is dead: it is opened again.
pub const GAME_STREAM_SILENCE: Duration = Duration::from_secs(12);

/// How long a game's stream keeps trying to open before the game is given up.
const GIVE_UP: Duration = Duration::from_secs(600);

/// What a game tells its account.
pub enum GameNews {
    /// The game has its result: its slot is free.
    Result { id: String },
    /// The game's task has ended (`None`: the game never started here).
    Done {
        id: String,
        out: Option<Box<GameOutcome>>,
    },
}

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
    white: String,
    black: String,
    our_color: Color,
    moves: Vec<Move>,
    board: Board,
    state: Option<GameState>,
    /// The opponent's draw and takeback offers as last seen (to notice new ones).
    draw_offer: bool,
    takeback_offer: bool,
    /// The end was passed on.
    ended: bool,
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

    /// The position for the game task.
    fn position(&self, s: &GameState) -> Position {
        let mut clock_ms = [s.wtime, s.btime];
        let stm = self.board.side_to_move();
        if self.our_moves() == 0 {
            let c = &mut clock_ms[self.our_color.index()];
            *c = (*c).min(first_move_cap(s, stm == self.our_color));
        }
        // The increment as the server gives it; none for a side that berserked.
        let inc = |inc: i64, berserk: bool| if berserk { 0 } else { inc.max(0) };
        Position {
            start: Board::startpos(),
            moves: self.moves.clone(),
            clock_ms,
            ticking: self.moves.len() >= 2,
            increment_ms: [inc(s.winc, s.wberserk), inc(s.binc, s.bberserk)],
            coarse: false,
            clocks_after: Vec::new(),
            control: None,
        }
    }

    /// The end of the game in the server's words, for the record.
    fn end(&self, s: &GameState) -> End {
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
        End { result, reason }
    }
}

/// The game stream, opened again until it opens (or the game is given up).
async fn open(sh: &Shared, id: &str, deadline: Instant) -> Option<Ndjson> {
    let mut delay = Duration::ZERO;
    let mut attempt = 0u32;
    loop {
        attempt += 1;
        match sh.api.game_stream(id).await {
            Ok(mut s) => {
                s.set_idle(GAME_STREAM_SILENCE);
                return Some(s);
            }
            Err(e) if e.is_permanent() => {
                error!(game = id, "cannot open the game stream: {e}");
                return None;
            }
            Err(e) => {
                warn!(game = id, attempt, "cannot open the game stream: {e}");
                if Instant::now() >= deadline {
                    error!(
                        game = id,
                        "the game stream stayed closed: giving the game up"
                    );
                    return None;
                }
                delay = (delay * 2).clamp(Duration::from_millis(250), Duration::from_secs(2));
                tokio::time::sleep(delay).await;
            }
        }
    }
}

/// The first `gameFull` of a stream (other lines before it are skipped).
async fn first_full(stream: &mut Ndjson, id: &str) -> Result<Box<GameFull>, String> {
    while let Some(line) = stream.next_line().await {
        match line.map(|l| crate::lichess::parse_game_event(&l)) {
            Ok(Ok(LiEvent::Full(g))) => return Ok(g),
            Ok(Ok(other)) => debug!(game = id, ?other, "before gameFull: skipped"),
            Ok(Err(e)) => warn!(game = id, "{e}"),
            Err(e) => return Err(e.to_string()),
        }
    }
    Err("the stream ended before gameFull".into())
}

/// Plays the game `id` (numbered `number` in the daemon) to its end, telling the
/// account of its result and its end.
pub async fn play(
    sh: Arc<Shared>,
    frame: Frame,
    id: String,
    number: u32,
    news: mpsc::UnboundedSender<GameNews>,
    brain: Option<crate::bot::brain::Brain>,
) {
    let done = |out: Option<GameOutcome>| {
        let _ = news.send(GameNews::Done {
            id: id.clone(),
            out: out.map(Box::new),
        });
    };
    let mut deadline = Instant::now() + GIVE_UP;
    // The stream and its gameFull, a few tries (a cut right after the open).
    let (stream, full) = loop {
        let Some(mut s) = open(&sh, &id, deadline).await else {
            return done(None);
        };
        match first_full(&mut s, &id).await {
            Ok(f) => break (s, f),
            Err(e) if Instant::now() < deadline => {
                warn!(game = %id, "the game stream broke before gameFull: {e}")
            }
            Err(e) => {
                error!(game = %id, "no gameFull: {e}");
                return done(None);
            }
        }
    };
    let standard_start = full
        .initial_fen
        .as_deref()
        .is_none_or(|f| f == "startpos" || f == Board::startpos().to_fen());
    if full.variant.key != "standard" || !standard_start {
        error!(game = %id, variant = %full.variant.key, "not standard chess from the start: aborting");
        let _ = sh.api.abort(&id).await;
        return done(None);
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
    play::set_game_level(&mut opts, initial_secs as u64, increment as u64);
    let class = sh.lists.classify(&opponent, computer);
    let url = format!("{}/{id}", sh.web_base);
    let setup = GameSetup {
        game: number,
        account: super::ACCOUNT.to_string(),
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
        site: url.clone(),
        autoflag: true,
        opts,
        fault: frame.fault_now(),
        class,
        computer,
        status: frame.status.clone(),
        engines: frame.engines.clone(),
        max_takebacks: sh.opts.int("lichess.max_takebacks") as u32,
    };
    info!(game = %id, number, %white, %black, berserked, "Lichess game started");
    let mut live = crate::bot::status::LiveGame::of(&setup);
    live.name = format!("{}/{id}", super::ACCOUNT);
    live.url = Some(url);
    let kibitz = setup.opts.int("kibitz") > 0;
    let (port, mut cmds): (_, PortRx) = PortTx::channel();
    let running = frame.start_game(setup, port.for_game(number), brain, live);
    let tx = running.tx;
    let mut task = running.handle;
    let mut view = View {
        white,
        black,
        our_color,
        moves: Vec::new(),
        board: Board::startpos(),
        state: None,
        draw_offer: false,
        takeback_offer: false,
        ended: false,
    };
    on_state(&mut view, full.state.clone(), &tx, &id, &news);
    let mut stream = Some(stream);
    let mut chat = chat::Limiter::default();
    // When to claim the win: the opponent has left (`opponentGone`).
    let mut claim_at: Option<tokio::time::Instant> = None;
    let mut claims = 0u32;
    // A stream being opened again, and since when (for the log).
    let (reopen_tx, mut reopen_rx) = mpsc::unbounded_channel::<(Option<Ndjson>, Instant)>();
    let mut reopening = false;
    loop {
        tokio::select! {
            line = next(&mut stream) => match line {
                Some(Ok(text)) => match crate::lichess::parse_game_event(&text) {
                    Ok(LiEvent::Full(g)) => on_state(&mut view, g.state, &tx, &id, &news),
                    Ok(LiEvent::State(s)) => on_state(&mut view, s, &tx, &id, &news),
                    Ok(LiEvent::Chat { room, username, text }) => {
                        let line = ChatLine { room: &room, username: &username, text: &text };
                        on_chat(&sh, &id, number, line, &view, &tx, kibitz, &mut chat);
                    }
                    Ok(LiEvent::OpponentGone { gone, claim_win_in_seconds }) => {
                        info!(game = %id, gone, ?claim_win_in_seconds, "opponent gone");
                        claim_at = match (gone, claim_win_in_seconds) {
                            (true, Some(s)) if !view.ended => Some(
                                tokio::time::Instant::now()
                                    + Duration::from_secs(s as u64)
                                    + Duration::from_millis(300),
                            ),
                            _ => None,
                        };
                    }
                    Ok(LiEvent::Unknown) => debug!(game = %id, "unknown game event: {text}"),
                    Err(e) => warn!(game = %id, "{e}"),
                },
                end => {
                    stream = None;
                    if view.ended {
                        continue;
                    }
                    let why = match end {
                        Some(Err(e)) => e.to_string(),
                        _ => "it ended before the game".to_string(),
                    };
                    warn!(game = %id, "the game stream broke ({why}); opening it again");
                    deadline = Instant::now() + GIVE_UP;
                    reopening = true;
                    let (sh2, id2, rtx) = (sh.clone(), id.clone(), reopen_tx.clone());
                    let cut = Instant::now();
                    tokio::spawn(async move {
                        let s = open(&sh2, &id2, deadline).await;
                        let _ = rtx.send((s, cut));
                    });
                }
            },
            Some((s, cut)) = reopen_rx.recv(), if reopening => {
                reopening = false;
                match s {
                    Some(s) => {
                        // Its first line, gameFull, re-synchronises the game.
                        info!(game = %id, ms = cut.elapsed().as_millis() as u64, "the game stream is open again");
                        stream = Some(s);
                    }
                    None if !view.ended => {
                        error!(game = %id, "the game stream could not be opened again: the game is left to the server");
                        let _ = tx.send(GameInput::ConnectionLost);
                    }
                    None => {}
                }
            }
            _ = sleep_until(claim_at) => {
                claims += 1;
                // Again in a few seconds if the claim is refused (too early, or a
                // state crossed it); a handful of tries at most.
                claim_at = (claims < 5 && !view.ended)
                    .then(|| tokio::time::Instant::now() + Duration::from_secs(3));
                if !view.ended {
                    info!(game = %id, "the opponent has left: claiming the win");
                    spawn_request(&id, "claim victory", {
                        let api = sh.api.clone();
                        let gid = id.clone();
                        async move { api.claim_victory(&gid).await }
                    });
                }
            }
            Some((_, c)) = cmds.recv() => command(&sh, &id, &mut view, c, &tx, &news),
            out = &mut task => {
                // Lines the game said last (the farewell) still go out.
                while let Ok(Some((_, c))) =
                    tokio::time::timeout(Duration::from_millis(200), cmds.recv()).await
                {
                    command(&sh, &id, &mut view, c, &tx, &news);
                }
                if !view.ended {
                    let _ = news.send(GameNews::Result { id: id.clone() });
                }
                return match out {
                    Ok(o) => done(Some(o)),
                    Err(e) => {
                        error!(game = %id, "the game task failed: {e}; resigning");
                        let _ = sh.api.resign(&id).await;
                        frame.emit(crate::bot::BotEvent::GamePanicked { game: number });
                        frame.status.update(|s| s.games.retain(|g| g.game != number));
                        done(None)
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

async fn next(s: &mut Option<Ndjson>) -> Option<Result<String, crate::lichess::HttpError>> {
    match s.as_mut() {
        Some(s) => s.next_line().await,
        None => std::future::pending().await,
    }
}

/// A chat line as it came (not yet cleaned).
struct ChatLine<'a> {
    room: &'a str,
    username: &'a str,
    text: &'a str,
}

/// A chat line: logged only cleaned; a command answered in its room, politely and
/// not too often.
#[allow(clippy::too_many_arguments)]
fn on_chat(
    sh: &Arc<Shared>,
    id: &str,
    number: u32,
    l: ChatLine,
    view: &View,
    tx: &mpsc::UnboundedSender<GameInput>,
    kibitz: bool,
    limiter: &mut chat::Limiter,
) {
    let (room, text) = (l.room, l.text);
    let line = chat::sanitize(text);
    let who = chat::sanitize(l.username);
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
    // Their first move is ply 0 when they have White, else ply 1.
    let first = (view.our_color == Color::White) as usize;
    let before_their_first_move = !view.ended && view.moves.len() <= first;
    if cmd == chat::Command::Wait && room == Room::Player && before_their_first_move {
        info!(game = %id, "the opponent asks for time before their first move");
        let _ = tx.send(GameInput::WaitForFirstMove(chat::WAIT));
    }
    let queue = sh.queue.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let cx = chat::Context {
        search: search.as_ref(),
        kibitz,
        before_their_first_move,
        queue_on: sh.opts.int("lichess.queue") > 0,
        queue: &queue,
    };
    let answer = chat::answer(cmd, room, cx);
    // What the bot says shows on the page, as in an ICS game.
    sh.status.game(number, |g| g.said(&answer));
    let api = sh.api.clone();
    let gid = id.to_string();
    spawn_request(
        id,
        "chat",
        async move { api.chat(&gid, room, &answer).await },
    );
}

/// A new state: the position to the game task, new offers, the end.
fn on_state(
    v: &mut View,
    s: GameState,
    tx: &mpsc::UnboundedSender<GameInput>,
    id: &str,
    news: &mpsc::UnboundedSender<GameNews>,
) {
    let at = Instant::now();
    match View::replay(&s.moves) {
        Ok((b, moves)) => {
            v.board = b;
            v.moves = moves;
        }
        Err(e) => {
            // Never guessed: the position stays as it was, the game task waits.
            error!(game = id, "the server's move list cannot be replayed: {e}");
            return;
        }
    }
    let send = |ev: GameEvent| {
        let _ = tx.send(GameInput::Event(ev, at));
    };
    send(GameEvent::Position(Box::new(v.position(&s))));
    let (draw, takeback) = match v.our_color {
        Color::White => (s.bdraw, s.btakeback),
        Color::Black => (s.wdraw, s.wtakeback),
    };
    if draw && !v.draw_offer {
        send(GameEvent::Offer(Offer::Draw));
    }
    if takeback && !v.takeback_offer {
        send(GameEvent::Offer(Offer::Takeback));
    }
    v.draw_offer = draw;
    v.takeback_offer = takeback;
    if !s.in_progress() && !v.ended {
        v.ended = true;
        send(GameEvent::End(v.end(&s)));
        let _ = news.send(GameNews::Result { id: id.to_string() });
    }
    v.state = Some(s);
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
    v: &mut View,
    c: GameCommand,
    tx: &mpsc::UnboundedSender<GameInput>,
    news: &mpsc::UnboundedSender<GameNews>,
) {
    let api = sh.api.clone();
    let gid = id.to_string();
    match c {
        GameCommand::Move(m) => {
            if !v.board.is_legal(m) {
                error!(game = id, %m, "our move does not fit the server's position; not sent");
                let _ = tx.send(GameInput::Event(
                    GameEvent::MoveRefused(format!("{m} does not fit the position")),
                    Instant::now(),
                ));
                return;
            }
            let uci = m.to_uci();
            let tx = tx.clone();
            tokio::spawn(async move {
                if let Err(e) = api.play(&gid, &uci, false).await {
                    warn!(game = %gid, "move {uci} refused: {e}");
                    // The game task asks for the position again and thinks again.
                    let _ = tx.send(GameInput::Event(
                        GameEvent::MoveRefused(format!("{uci}: {e}")),
                        Instant::now(),
                    ));
                }
            });
        }
        GameCommand::Resync => {
            // The server's last state is the truth: the task gets it again.
            if let Some(s) = v.state.clone() {
                on_state(v, s, tx, id, news);
            }
        }
        GameCommand::OfferDraw | GameCommand::Answer(Offer::Draw, true) => {
            spawn_request(id, "draw", async move { api.draw(&gid, true).await })
        }
        GameCommand::Answer(Offer::Draw, false) if v.draw_offer => spawn_request(
            id,
            "draw answer",
            async move { api.draw(&gid, false).await },
        ),
        GameCommand::ClaimDraw => spawn_request(id, "draw claim", async move {
            // The API's claim; where the server does not take it (an older
            // server), `draw/yes`, which Lichess treats as the claim when the
            // position allows one.
            match api.claim_draw(&gid).await {
                Ok(()) => Ok(()),
                Err(e) => {
                    debug!(game = %gid, "claim-draw refused ({e}); draw/yes");
                    api.draw(&gid, true).await
                }
            }
        }),
        GameCommand::Answer(Offer::Takeback, yes) if v.takeback_offer => {
            spawn_request(id, "takeback answer", async move {
                api.takeback(&gid, yes).await
            })
        }
        GameCommand::Resign => spawn_request(id, "resign", async move { api.resign(&gid).await }),
        GameCommand::Abort | GameCommand::Answer(Offer::Abort, true) => {
            spawn_request(id, "abort", async move { api.abort(&gid).await })
        }
        GameCommand::Say(Channel::Whisper, t) => spawn_request(id, "chat", async move {
            api.chat(&gid, Room::Spectator, &t).await
        }),
        GameCommand::Say(Channel::Kibitz, t) => spawn_request(id, "chat", async move {
            api.chat(&gid, Room::Player, &t).await?;
            api.chat(&gid, Room::Spectator, &t).await
        }),
        GameCommand::Say(Channel::Opponent, t) => {
            spawn_request(
                id,
                "chat",
                async move { api.chat(&gid, Room::Player, &t).await },
            )
        }
        other => debug!(game = id, ?other, "no Lichess request for this command"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(moves: &str, our: Color) -> View {
        let (board, moves) = View::replay(moves).unwrap();
        View {
            white: "w".into(),
            black: "b".into(),
            our_color: our,
            moves,
            board,
            state: None,
            draw_offer: false,
            takeback_offer: false,
            ended: false,
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
        assert_eq!(v.position(&s).increment_ms, [2000, 2000]);
        s.bberserk = true;
        assert_eq!(
            v.position(&s).increment_ms,
            [2000, 0],
            "no increment once we berserked"
        );
        s.expiration = Some(crate::lichess::Expiration {
            idle_millis: 15_000,
            millis_to_move: 20_000,
        });
        assert_eq!(
            v.position(&s).clock_ms[1],
            2_000,
            "two fifths of the 5 s left to make the first move"
        );
        s.expiration = Some(crate::lichess::Expiration {
            idle_millis: 25_000,
            millis_to_move: 20_000,
        });
        assert_eq!(v.position(&s).clock_ms[1], 500, "never below half a second");
        // Not our turn: the expiration is the opponent's.
        let w = view("", Color::Black);
        assert_eq!(w.position(&s).clock_ms[1], FIRST_MOVE_MS);
    }

    #[test]
    fn positions_from_uci_moves() {
        let m = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1g1";
        let v = view(m, Color::Black);
        let p = v.position(&state(m, 50_000, 40_000));
        assert_eq!(p.board().to_fen(), v.board.to_fen());
        assert_eq!(p.board().side_to_move(), Color::Black);
        assert_eq!(p.moves.len(), 7);
        assert_eq!(p.clock_ms, [50_000, 40_000]);
        assert!(p.ticking);
        let first = view("e2e4", Color::Black);
        let p1 = first.position(&state("e2e4", 60_000, 60_000));
        assert_eq!(
            p1.clock_ms,
            [60_000, FIRST_MOVE_MS],
            "our clock capped before our first move"
        );
        assert!(!p1.ticking);
        assert!(View::replay("e2e4 e2e4").is_err());
        assert!(View::replay("e1h1").is_err());
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
