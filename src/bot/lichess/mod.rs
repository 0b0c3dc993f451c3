//! A Lichess account in the daemon: checks that the account is a BOT account,
//! follows `/api/stream/event` (reconnecting with backoff; after an HTTP 429 the
//! client holds every request back a minute), answers challenges by the same
//! formula and noplay list as on FICS with Lichess's decline reasons, and plays
//! each game that starts (`bridge`) through the FICS game task, up to
//! `lichess.concurrency` at once, each with its own engine. Finished games go to the
//! same PGN archive and game logs.

pub mod bridge;
pub mod chat;
pub mod matchmaking;

use super::archive::{self, Archive};
use super::formula::{Formula, NoPlay};
use super::lists::Lists;
use super::{BotEvent, Exit, GameReport};
use crate::ics::Backoff;
use crate::lichess::{Account, Challenge, DeclineReason, Event, Lichess};
use crate::options::Options;
use crate::settings::Settings;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, mpsc, watch};
use tokio::task::JoinHandle;
use tracing::{debug, error, info, info_span, warn, Instrument};

/// What the supervisor asks of the account.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Run,
    /// Accept nothing new, finish the games in progress, then end.
    Drain,
    /// End now (games in progress are left to the server's clock).
    Quit,
}

impl Stop {
    /// What a signal asks of the account (`Reload` asks nothing of it).
    pub fn of(m: super::ControlMsg) -> Option<Stop> {
        match m {
            super::ControlMsg::Shutdown => Some(Stop::Drain),
            super::ControlMsg::Quit => Some(Stop::Quit),
            super::ControlMsg::Reload => None,
        }
    }
}

/// The supervisor's request after `stop.changed()` (a closed channel is `Quit`).
fn requested(changed: Result<(), watch::error::RecvError>, stop: &watch::Receiver<Stop>) -> Stop {
    match changed {
        Ok(()) => *stop.borrow(),
        Err(_) => Stop::Quit,
    }
}

/// What every game of the account shares.
pub struct Shared {
    pub api: Lichess,
    /// The server's web address (game pages: `{web_base}/{game}`).
    pub web_base: String,
    pub account: Account,
    pub opts: Options,
    pub lists: Lists,
    pub host: String,
    pub status: super::status::StatusTx,
    pub events: broadcast::Sender<BotEvent>,
}

/// The challenge policy: the FICS formula's limits, Lichess's reasons.
pub fn judge(
    f: &Formula,
    noplay: &NoPlay,
    c: &Challenge,
    in_a_row: u32,
    busy: bool,
) -> Result<(), DeclineReason> {
    let Some(who) = &c.challenger else {
        return Err(DeclineReason::Generic);
    };
    if noplay.contains(&who.id) || noplay.contains(&who.name) {
        return Err(DeclineReason::Generic);
    }
    if busy || !f.accept {
        return Err(DeclineReason::Later);
    }
    if c.variant.key != "standard" {
        return Err(DeclineReason::Variant);
    }
    if c.initial_fen.as_deref().is_some_and(|p| p != "startpos") {
        return Err(DeclineReason::Standard);
    }
    let (Some(limit), Some(inc)) = (c.time_control.limit, c.time_control.increment) else {
        return Err(DeclineReason::TimeControl);
    };
    if c.time_control.kind != "clock" || (limit == 0 && inc == 0) {
        return Err(DeclineReason::TimeControl);
    }
    match (f.rated.as_str(), c.rated) {
        ("rated", false) => return Err(DeclineReason::Rated),
        ("unrated", true) => return Err(DeclineReason::Casual),
        _ => {}
    }
    if limit < f.time.0 * 60 {
        return Err(DeclineReason::TooFast);
    }
    if limit > f.time.1 * 60 {
        return Err(DeclineReason::TooSlow);
    }
    if inc < f.inc.0 || inc > f.inc.1 {
        return Err(DeclineReason::TimeControl);
    }
    let bot = who.title.as_deref() == Some("BOT");
    if bot && !f.computers {
        return Err(DeclineReason::NoBot);
    }
    if !bot && !f.humans {
        return Err(DeclineReason::OnlyBot);
    }
    let r = who.rating.unwrap_or(0);
    if r < f.rating.0 || r > f.rating.1 {
        return Err(DeclineReason::Generic);
    }
    if f.max_rematches > 0 && in_a_row >= f.max_rematches {
        return Err(DeclineReason::Later);
    }
    Ok(())
}

/// The account's running state.
struct Runner {
    sh: Arc<Shared>,
    formula: Formula,
    noplay: NoPlay,
    archive: Archive,
    events: broadcast::Sender<BotEvent>,
    concurrency: usize,
    games: HashMap<String, JoinHandle<()>>,
    /// Games being played, counted down by each game's task as soon as it ends
    /// (a rematch right after the end finds the slot free).
    active: Arc<std::sync::atomic::AtomicUsize>,
    /// Finished games: their id and the opponent, when the game was played.
    done_tx: mpsc::UnboundedSender<(String, Option<String>)>,
    /// Game numbers for the game task (apart from FICS's).
    next_number: u32,
    draining: bool,
    /// The last opponent and games against them in a row (`bot.max_rematches`).
    streak: (String, u32),
    /// Challenging other bots (`lichess.matchmaking`).
    mm: Option<matchmaking::Matchmaker>,
    mm_tx: mpsc::UnboundedSender<MmDone>,
}

/// The end of a matchmaking request (made off the event loop).
enum MmDone {
    /// The bots online, or why they could not be read.
    Bots(Result<Vec<crate::lichess::OnlineUser>, String>),
    /// Our challenge to `opponent`: its id, or why it could not be made.
    Sent {
        opponent: String,
        id: Result<String, String>,
    },
}

/// Runs the account until told to stop, or until the token or account is refused.
pub async fn run(
    settings: Settings,
    events: broadcast::Sender<BotEvent>,
    status: super::status::StatusTx,
    mut stop: watch::Receiver<Stop>,
) -> Exit {
    let o = settings.options.clone();
    let url = o.str("lichess.url").trim().to_string();
    let Some(token) = settings.lichess_token.clone() else {
        error!("lichess: no API token (lichess.token_file or KIBITZER_LICHESS_TOKEN)");
        return Exit::Config;
    };
    let api = match Lichess::new(&url, token, Duration::from_secs(30)) {
        Ok(a) => a,
        Err(e) => {
            error!("lichess: {e}");
            return Exit::Config;
        }
    };
    let mut backoff = Backoff::new(
        o.duration("ics.reconnect_min"),
        o.duration("ics.reconnect_max"),
    );
    let account = loop {
        match api.bot_account().await {
            Ok(a) => break a,
            Err(e) if e.is_permanent() => {
                error!("lichess: {e}");
                return Exit::Credentials;
            }
            Err(e) => {
                let d = backoff.next_delay();
                warn!(
                    "lichess: cannot read the account: {e}; again in {:.0} s",
                    d.as_secs_f64()
                );
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    _ = stop.changed() => return Exit::Ok,
                }
            }
        }
    };
    let archive = Archive::from_options(&o);
    let host = api.client.base().host.clone();
    let _lock = match archive::lock_instance(&archive.dir, &host, &account.id) {
        Ok(f) => f,
        Err(e) => {
            error!(
                "lichess: another instance runs for {}: {e}",
                account.username
            );
            return Exit::Locked;
        }
    };
    info!(account = %account.username, %url, "logged in to Lichess as a BOT account");
    let _ = events.send(BotEvent::LoggedIn {
        handle: account.username.clone(),
    });
    let noplay_path = match o.str("bot.noplay_file") {
        "" => None,
        p => Some(PathBuf::from(p)),
    };
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let (mm_tx, mut mm_rx) = mpsc::unbounded_channel();
    let mm = if o.bool("lichess.matchmaking") {
        match matchmaking::Config::from_options(&o) {
            Ok(c) => {
                info!(interval_s = c.interval.as_secs(), tc = ?c.time_controls, "lichess: matchmaking on");
                Some(matchmaking::Matchmaker::new(c, tokio::time::Instant::now()))
            }
            Err(e) => {
                error!("lichess: matchmaking off: {e}");
                None
            }
        }
    } else {
        None
    };
    let web_base = url.trim_end_matches('/').to_string();
    let mut r = Runner {
        events: events.clone(),
        formula: Formula::from_options(&o),
        noplay: NoPlay::load(noplay_path),
        archive,
        concurrency: o.int("lichess.concurrency").max(1) as usize,
        games: HashMap::new(),
        active: Arc::new(std::sync::atomic::AtomicUsize::new(0)),
        done_tx,
        next_number: 1_000_001,
        draining: false,
        streak: (String::new(), 0),
        mm,
        mm_tx,
        sh: Arc::new(Shared {
            lists: Lists::load(&PathBuf::from(o.str("bot.lists").trim())),
            api,
            web_base,
            account,
            opts: o,
            host,
            status,
            events: events.clone(),
        }),
    };
    let mut stream = None;
    loop {
        if stream.is_none() && !r.draining {
            match r.sh.api.events().await {
                Ok(s) => {
                    backoff.reset();
                    stream = Some(s);
                    // Games that went on while we were away (or before we started).
                    r.pick_up().await;
                }
                Err(e) if e.is_permanent() => {
                    error!("lichess: the event stream: {e}");
                    r.quit();
                    return Exit::Credentials;
                }
                Err(e) => {
                    let d = backoff.next_delay();
                    warn!(
                        "lichess: the event stream: {e}; again in {:.0} s",
                        d.as_secs_f64()
                    );
                    tokio::select! {
                        _ = tokio::time::sleep(d) => continue,
                        changed = stop.changed() => {
                            if let Some(exit) = r.on_stop(requested(changed, &stop)) {
                                return exit;
                            }
                            continue;
                        }
                    }
                }
            }
        }
        let mm_due = r.mm_due();
        tokio::select! {
            line = next_line(&mut stream) => match line {
                Some(Ok(text)) => match crate::lichess::parse_event(&text) {
                    Ok(ev) => r.on_event(ev).await,
                    Err(e) => warn!("lichess: {e}"),
                },
                Some(Err(e)) => {
                    warn!("lichess: the event stream broke: {e}");
                    stream = None;
                    tokio::time::sleep(backoff.next_delay()).await;
                }
                None => {
                    warn!("lichess: the event stream ended; opening it again");
                    stream = None;
                    tokio::time::sleep(backoff.next_delay()).await;
                }
            },
            Some((id, opponent)) = done_rx.recv() => {
                r.games.remove(&id);
                if let Some(opp) = opponent {
                    if r.streak.0.eq_ignore_ascii_case(&opp) {
                        r.streak.1 += 1;
                    } else {
                        r.streak = (opp, 1);
                    }
                }
                if r.draining && r.games.is_empty() {
                    info!("lichess: games over; stopping as asked");
                    return Exit::Ok;
                }
            }
            _ = sleep_until(mm_due) => r.matchmake(),
            Some(done) = mm_rx.recv() => r.on_mm(done),
            changed = stop.changed() => {
                if let Some(exit) = r.on_stop(requested(changed, &stop)) {
                    return exit;
                }
                if r.draining {
                    stream = None;
                }
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

async fn next_line(
    s: &mut Option<crate::lichess::Ndjson>,
) -> Option<Result<String, crate::lichess::HttpError>> {
    match s.as_mut() {
        Some(s) => s.next_line().await,
        None => std::future::pending().await,
    }
}

impl Runner {
    /// A request of the supervisor; the exit status when the account ends now.
    fn on_stop(&mut self, now: Stop) -> Option<Exit> {
        match now {
            Stop::Run => None,
            Stop::Drain => {
                if !self.draining {
                    info!("lichess: no new games; the games in progress are played out");
                }
                self.draining = true;
                self.games.is_empty().then_some(Exit::Ok)
            }
            Stop::Quit => {
                self.quit();
                Some(Exit::Ok)
            }
        }
    }

    fn quit(&mut self) {
        for (_, h) in self.games.drain() {
            h.abort();
        }
    }

    async fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Challenge { challenge } => self.on_challenge(challenge).await,
            Event::GameStart { game } => {
                if let Some(mm) = self.mm.as_mut() {
                    if mm
                        .outstanding
                        .as_ref()
                        .is_some_and(|o| o.id == game.game_id)
                    {
                        info!(game = %game.game_id, "lichess: our challenge was accepted");
                        mm.accepted();
                    }
                }
                self.start(game.game_id)
            }
            Event::GameFinish { game } => info!(game = %game.game_id, "lichess: game finished"),
            Event::ChallengeCanceled { challenge } | Event::ChallengeDeclined { challenge } => {
                info!(challenge = %challenge.id, "lichess: challenge withdrawn or declined");
                if let Some(mm) = self.mm.as_mut() {
                    if let Some(o) = mm.outstanding.clone().filter(|o| o.id == challenge.id) {
                        info!(opponent = %o.opponent, "lichess: our challenge was declined; backing off");
                        mm.refused(&o.opponent, tokio::time::Instant::now());
                        mm.schedule(tokio::time::Instant::now());
                    }
                }
            }
            Event::Unknown => {}
        }
    }

    /// Starts the games in progress that `/api/account/playing` lists and that are
    /// not being played (after a start or a reconnection).
    async fn pick_up(&mut self) {
        match self.sh.api.playing().await {
            Ok(games) => {
                for g in games {
                    if !self.games.contains_key(&g.game_id) {
                        info!(game = %g.game_id, "lichess: picking up a game in progress");
                        self.start(g.game_id);
                    }
                }
            }
            Err(e) => warn!("lichess: cannot list the games in progress: {e}"),
        }
    }

    /// When matchmaking next wants to act: a challenge to send, or ours to withdraw.
    fn mm_due(&self) -> Option<tokio::time::Instant> {
        let mm = self.mm.as_ref()?;
        if mm.busy {
            return None;
        }
        Some(match &mm.outstanding {
            Some(o) => o.sent + matchmaking::ANSWER_WAIT,
            None => mm.next_at,
        })
    }

    /// Matchmaking's turn: withdraws an unanswered challenge, or (with a free slot)
    /// looks up the bots online.
    fn matchmake(&mut self) {
        let now = tokio::time::Instant::now();
        let free = !self.draining
            && self.active.load(std::sync::atomic::Ordering::SeqCst) < self.concurrency;
        let Some(mm) = self.mm.as_mut() else { return };
        if let Some(o) = mm.outstanding.clone() {
            info!(opponent = %o.opponent, "lichess: our challenge was not answered; withdrawing it");
            mm.refused(&o.opponent, now);
            mm.schedule(now);
            let api = self.sh.api.clone();
            tokio::spawn(async move {
                if let Err(e) = api.cancel_challenge(&o.id).await {
                    debug!("lichess: cancelling our challenge: {e}");
                }
            });
            return;
        }
        mm.schedule(now);
        if !free {
            return;
        }
        mm.busy = true;
        let api = self.sh.api.clone();
        let tx = self.mm_tx.clone();
        tokio::spawn(async move {
            let bots = api.online_bots(100).await.map_err(|e| e.to_string());
            let _ = tx.send(MmDone::Bots(bots));
        });
    }

    fn on_mm(&mut self, done: MmDone) {
        let now = tokio::time::Instant::now();
        let free = !self.draining
            && self.active.load(std::sync::atomic::Ordering::SeqCst) < self.concurrency;
        let me = self.sh.account.id.clone();
        let noplay = &self.noplay;
        let Some(mm) = self.mm.as_mut() else { return };
        match done {
            MmDone::Bots(Err(e)) => {
                mm.busy = false;
                warn!("lichess: matchmaking: cannot read the bots online: {e}");
            }
            MmDone::Bots(Ok(bots)) => {
                let pick = free
                    .then(|| {
                        mm.pick(
                            &bots,
                            &me,
                            |b| noplay.contains(&b.id) || noplay.contains(&b.username),
                            now,
                        )
                    })
                    .flatten();
                let Some(p) = pick else {
                    mm.busy = false;
                    debug!(
                        online = bots.len(),
                        "lichess: matchmaking: nobody to challenge now"
                    );
                    return;
                };
                info!(opponent = %p.username, limit_s = p.limit_s, inc_s = p.increment_s, rated = p.rated, "lichess: challenging");
                let api = self.sh.api.clone();
                let tx = self.mm_tx.clone();
                tokio::spawn(async move {
                    let id = api
                        .challenge(&p.username, p.rated, p.limit_s, p.increment_s)
                        .await
                        .map_err(|e| e.to_string());
                    let _ = tx.send(MmDone::Sent {
                        opponent: p.username,
                        id,
                    });
                });
            }
            MmDone::Sent { opponent, id } => {
                mm.busy = false;
                match id {
                    Ok(id) => {
                        mm.outstanding = Some(matchmaking::Outstanding {
                            id,
                            opponent,
                            sent: now,
                        })
                    }
                    Err(e) => {
                        warn!(%opponent, "lichess: the challenge could not be made: {e}");
                        mm.refused(&opponent, now);
                        mm.schedule(now);
                    }
                }
            }
        }
    }

    async fn on_challenge(&mut self, c: Challenge) {
        let Some(who) = c.challenger.clone() else {
            return;
        };
        if who.id.eq_ignore_ascii_case(&self.sh.account.id) {
            return; // our own challenge
        }
        let in_a_row = if self.streak.0.eq_ignore_ascii_case(&who.id) {
            self.streak.1
        } else {
            0
        };
        let busy = self.active.load(std::sync::atomic::Ordering::SeqCst) >= self.concurrency;
        let verdict = if self.draining {
            Err(DeclineReason::Later)
        } else {
            judge(&self.formula, &self.noplay, &c, in_a_row, busy)
        };
        info!(challenger = %who.name, challenge = %c.id, ?verdict, "lichess: challenge");
        let answer = match verdict {
            Ok(()) => self.sh.api.accept(&c.id).await,
            Err(why) => self.sh.api.decline(&c.id, why).await,
        };
        if let Err(e) = answer {
            warn!(challenge = %c.id, "lichess: cannot answer the challenge: {e}");
        }
        let verdict = match verdict {
            Ok(()) => super::formula::Verdict::Accept,
            Err(why) => super::formula::Verdict::Decline(why.key().to_string()),
        };
        let _ = self.events.send(BotEvent::Challenge {
            challenger: who.name,
            verdict,
        });
    }

    fn start(&mut self, id: String) {
        if self.games.contains_key(&id) {
            return;
        }
        let number = self.next_number;
        self.next_number += 1;
        let sh = self.sh.clone();
        let archive = self.archive.clone();
        let events = self.events.clone();
        let done = self.done_tx.clone();
        let active = self.active.clone();
        active.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let gid = id.clone();
        let span = info_span!("lichess", game = %id);
        let h = tokio::spawn(
            async move {
                let mut report = None;
                let mut opponent = None;
                if let Some(out) = bridge::play(sh.clone(), gid.clone(), number).await {
                    opponent = Some(out.setup.opponent.clone());
                    report = Some(finish(out, &archive).await);
                }
                // The slot is free before the game is reported over.
                active.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                sh.status.update(|s| s.games.retain(|g| g.game != number));
                let _ = done.send((gid, opponent));
                if let Some(r) = report {
                    let _ = events.send(BotEvent::GameEnded(Box::new(r)));
                }
            }
            .instrument(span),
        );
        self.games.insert(id, h);
    }
}

/// A finished game: its record and log; the report.
async fn finish(out: super::play::GameOutcome, archive: &Archive) -> GameReport {
    let (result, reason) = match &out.end {
        Some(e) => (e.result.clone(), e.reason.clone()),
        None => (String::new(), "connection lost".into()),
    };
    let finished = out
        .end
        .as_ref()
        .is_some_and(|e| archive::termination(&e.reason, &e.result) != "unterminated");
    let a = archive.clone();
    let pgn = out.pgn.clone();
    let log = out.log.clone();
    let (white, black) = (out.setup.white.clone(), out.setup.black.clone());
    let name = format!(
        "game-{}-lichess-{}-{}.log",
        super::play::pgn_date().replace('.', ""),
        out.setup.game,
        out.setup.opponent.to_ascii_lowercase()
    );
    let _ = tokio::task::spawn_blocking(move || {
        let r = a.record(&white, &black, pgn.as_deref(), finished);
        if let Err(e) = r {
            error!("cannot write the game record: {e}");
        }
        if let Err(e) = a.write_log(&name, &log) {
            error!("cannot write the game log: {e}");
        }
    })
    .await;
    GameReport::new(out, result, reason)
}
