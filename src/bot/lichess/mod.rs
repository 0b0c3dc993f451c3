//! The Lichess account: its supervisor checks that the account is a BOT account,
//! follows `/api/stream/event` and opens it again after any error, reset or
//! silence with backoff (after an HTTP 429 the client holds every request back a
//! minute), reporting the account's state like every other account; it answers
//! challenges by the same formula and noplay list as on an ICS with Lichess's
//! decline reasons, on the account's slots (taken at accept, freed at the result,
//! so `lichess.concurrency` holds while accepts wait), challenges other bots when
//! asked (`matchmaking`), and plays each game that starts through its adapter
//! (`adapter`) and the game port, each with its own engine. Finished games take
//! the one finish path of every account.

pub mod adapter;
pub mod chat;
pub mod matchmaking;

use super::archive::{self, Archive};
use super::formula::{Formula, NoPlay, Refusal, Request, Seen};
use super::life::{Opponents, Slots};
use super::lists::Lists;
use super::status::{AccountStatus, StatusTx};
use super::{AccountCtx, BotEvent, Exit, Stop};
use crate::lichess::{Account, Challenge, DeclineReason, Event, Lichess};
use crate::net::Backoff;
use crate::options::Options;
use adapter::GameNews;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tracing::{debug, error, info, info_span, warn, Instrument};

/// The account's name in the status, the games and the metrics.
pub const ACCOUNT: &str = "lichess";

/// What every game of the account shares.
pub struct Shared {
    pub api: Lichess,
    /// The server's web address (game pages: `{web_base}/{game}`).
    pub web_base: String,
    pub account: Account,
    pub opts: Options,
    pub lists: Lists,
    pub host: String,
    pub status: StatusTx,
    /// The challengers waiting for a free slot, oldest first (the chat's `!queue`).
    pub queue: std::sync::Mutex<Vec<String>>,
}

/// A Lichess challenge as the formula reads it (`None`: no challenger, an open
/// challenge).
pub fn request(c: &Challenge) -> Option<Request> {
    let who = c.challenger.as_ref()?;
    let clock = match (c.time_control.limit, c.time_control.increment) {
        (Some(l), Some(i)) if c.time_control.kind == "clock" => Some((l, i)),
        _ => None,
    };
    Some(Request {
        names: vec![who.id.clone(), who.name.clone()],
        rating: who.rating,
        own_rating: c.dest_user.as_ref().and_then(|u| u.rating),
        rated: c.rated,
        standard_chess: c.variant.key == "standard",
        standard_start: c.initial_fen.as_deref().is_none_or(|p| p == "startpos"),
        clock,
        computer: who.title.as_deref() == Some("BOT"),
        resume: false,
    })
}

/// Lichess's decline reason for a refusal.
pub fn reason(r: Refusal) -> DeclineReason {
    match r {
        Refusal::NoPlay | Refusal::Rating(_) | Refusal::RatingDiff(_) | Refusal::NotAllowed => {
            DeclineReason::Generic
        }
        Refusal::Busy
        | Refusal::DailyLimit(_)
        | Refusal::NotAccepting
        | Refusal::ShuttingDown
        | Refusal::EngineDown
        | Refusal::Rematches => DeclineReason::Later,
        Refusal::Variant => DeclineReason::Variant,
        Refusal::SetUpPosition => DeclineReason::Standard,
        Refusal::Untimed | Refusal::Increment(_) | Refusal::IncrementRequired(_) => {
            DeclineReason::TimeControl
        }
        Refusal::RatedOnly => DeclineReason::Rated,
        Refusal::UnratedOnly => DeclineReason::Casual,
        Refusal::TooFast(_) => DeclineReason::TooFast,
        Refusal::TooSlow(_) => DeclineReason::TooSlow,
        Refusal::NoComputers => DeclineReason::NoBot,
        Refusal::ComputersOnly => DeclineReason::OnlyBot,
    }
}

/// The account's running state.
struct Runner {
    ctx: AccountCtx,
    sh: Arc<Shared>,
    formula: Formula,
    noplay: NoPlay,
    archive: Archive,
    opts: Options,
    concurrency: usize,
    /// The games' adapter tasks, by game id.
    games: HashMap<String, JoinHandle<()>>,
    /// Engines of finished games, for the next ones.
    brains: Vec<super::brain::Brain>,
    slots: Slots,
    opponents: Opponents,
    news_tx: mpsc::UnboundedSender<GameNews>,
    /// Accepts that failed (their slot is freed).
    accept_tx: mpsc::UnboundedSender<String>,
    /// Game numbers in the daemon (apart from an ICS's).
    next_number: u32,
    draining: bool,
    /// Challenging other bots (`lichess.matchmaking`).
    mm: Option<matchmaking::Matchmaker>,
    mm_tx: mpsc::UnboundedSender<MmDone>,
    /// Challenges inside the formula that came while every slot was busy, oldest
    /// first (at most `lichess.queue`); accepted as slots free.
    queue: std::collections::VecDeque<Challenge>,
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

fn set_state(status: &StatusTx, f: impl FnOnce(&mut AccountStatus)) {
    status.update(|s| {
        if let Some(a) = s.account_mut(ACCOUNT) {
            f(a);
        }
    });
}

/// Waits `d`, or less when the frame stops the account; `Some` exit then.
async fn wait_or_stop(ctx: &mut AccountCtx, d: Duration) -> Option<Exit> {
    let sleep = tokio::time::sleep(d);
    tokio::pin!(sleep);
    let mut beat = tokio::time::interval(Duration::from_secs(5));
    loop {
        tokio::select! {
            _ = &mut sleep => return None,
            _ = beat.tick() => ctx.beat.beat(),
            changed = ctx.stop.changed() => {
                if super::requested(changed, &ctx.stop) != Stop::Run {
                    return Some(Exit::Ok);
                }
            }
        }
    }
}

/// Runs the account until the frame stops it, or until the token or the account
/// is refused.
pub async fn run(mut ctx: AccountCtx) -> Exit {
    let settings = ctx.settings.borrow().clone();
    let o = settings.options.clone();
    let url = o.str("lichess.url").trim().to_string();
    let status = ctx.frame.status.clone();
    let (host, port) = match crate::lichess::BaseUrl::parse(&url) {
        Ok(b) => (b.host.clone(), b.port),
        Err(_) => (url.clone(), 0),
    };
    status.update(|s| s.set_account(AccountStatus::new(ACCOUNT, &host, port, "lichess", "")));
    let Some(token) = settings.lichess_token.clone() else {
        error!("lichess: no API token (lichess.token_file or KIBITZER_LICHESS_TOKEN)");
        set_state(&status, |a| a.stopped("no API token"));
        return Exit::Config;
    };
    let api = match Lichess::new(&url, token, Duration::from_secs(30)) {
        Ok(a) => a,
        Err(e) => {
            error!("lichess: {e}");
            set_state(&status, |a| a.stopped(&e.to_string()));
            return Exit::Config;
        }
    };
    let mut backoff = Backoff::new(
        o.duration("ics.reconnect_min"),
        o.duration("ics.reconnect_max"),
    );
    let account = loop {
        ctx.beat.beat();
        set_state(&status, |a| a.connecting());
        let r = tokio::select! {
            r = api.bot_account() => r,
            changed = ctx.stop.changed() => {
                if super::requested(changed, &ctx.stop) != Stop::Run {
                    set_state(&status, |a| a.stopped("shutdown"));
                    return Exit::Ok;
                }
                continue;
            }
        };
        match r {
            Ok(a) => break a,
            Err(e) if e.is_permanent() => {
                error!("lichess: {e}");
                set_state(&status, |a| a.stopped(&e.to_string()));
                return Exit::Credentials;
            }
            Err(e) => {
                let d = backoff.next_delay();
                warn!(
                    "lichess: cannot read the account: {e}; again in {:.0} s",
                    d.as_secs_f64()
                );
                set_state(&status, |a| {
                    a.backing_off(&format!("cannot read the account: {e}"), d)
                });
                if let Some(exit) = wait_or_stop(&mut ctx, d).await {
                    set_state(&status, |a| a.stopped("shutdown"));
                    return exit;
                }
            }
        }
    };
    let archive = Archive::from_options(&o);
    let api_host = api.client.base().host.clone();
    let _lock = match archive::lock_instance(&archive.dir, &api_host, &account.id) {
        Ok(f) => f,
        Err(e) => {
            error!(
                "lichess: another instance runs for {}: {e}",
                account.username
            );
            set_state(&status, |a| a.stopped(&e.to_string()));
            return Exit::Locked;
        }
    };
    info!(account = %account.username, %url, "logged in to Lichess as a BOT account");
    ctx.frame.emit(BotEvent::LoggedIn {
        handle: account.username.clone(),
    });
    ctx.ledger.add_handle(&account.username);
    let name = account.username.clone();
    set_state(&status, |a| a.handle = name);
    let noplay_path = match o.str("bot.noplay_file") {
        "" => None,
        p => Some(PathBuf::from(p)),
    };
    let (news_tx, mut news_rx) = mpsc::unbounded_channel();
    let (accept_tx, mut accept_rx) = mpsc::unbounded_channel();
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
    let concurrency = o.int("lichess.concurrency").max(1) as usize;
    let mut r = Runner {
        formula: Formula::from_options(&o),
        noplay: NoPlay::load(noplay_path),
        archive,
        concurrency,
        games: HashMap::new(),
        brains: Vec::new(),
        slots: Slots::new(concurrency),
        opponents: Opponents::default(),
        news_tx,
        accept_tx,
        next_number: 1_000_001,
        draining: false,
        mm,
        mm_tx,
        sh: Arc::new(Shared {
            lists: Lists::load(&PathBuf::from(o.str("bot.lists").trim())),
            api,
            web_base,
            account,
            opts: o.clone(),
            host: api_host,
            status: status.clone(),
            queue: std::sync::Mutex::new(Vec::new()),
        }),
        opts: o,
        ctx,
        queue: std::collections::VecDeque::new(),
    };
    backoff.reset();
    let mut stream: Option<crate::lichess::Ndjson> = None;
    // When the event stream is to be opened again (now: at once).
    let mut reopen_at: Option<tokio::time::Instant> = Some(tokio::time::Instant::now());
    let mut beat = tokio::time::interval(Duration::from_secs(2));
    loop {
        r.serve_queue();
        if stream.is_none()
            && !r.draining
            && reopen_at.is_some_and(|t| t <= tokio::time::Instant::now())
        {
            reopen_at = None;
            r.set_state(|a| a.connecting());
            match r.sh.api.events().await {
                Ok(s) => {
                    backoff.reset();
                    stream = Some(s);
                    let me = r.sh.account.username.clone();
                    r.set_state(|a| a.logged_in(&me));
                    // Games that went on while we were away (or before we started).
                    r.pick_up().await;
                }
                Err(e) if e.is_permanent() => {
                    error!("lichess: the event stream: {e}");
                    r.set_state(|a| a.stopped(&format!("the event stream: {e}")));
                    r.quit();
                    return Exit::Credentials;
                }
                Err(e) => {
                    let d = backoff.next_delay();
                    warn!(
                        "lichess: the event stream: {e}; again in {:.0} s",
                        d.as_secs_f64()
                    );
                    r.set_state(|a| a.backing_off(&format!("the event stream: {e}"), d));
                    reopen_at = Some(tokio::time::Instant::now() + d);
                }
            }
        }
        let mm_due = r.mm_due();
        tokio::select! {
            line = next_line(&mut stream) => match line {
                Some(Ok(text)) => match crate::lichess::parse_event(&text) {
                    Ok(ev) => r.on_event(ev),
                    Err(e) => warn!("lichess: {e}"),
                },
                end => {
                    let why = match end {
                        Some(Err(e)) => format!("the event stream broke: {e}"),
                        _ => "the event stream ended".to_string(),
                    };
                    stream = None;
                    let d = backoff.next_delay();
                    warn!("lichess: {why}; opening it again in {:.1} s", d.as_secs_f64());
                    r.set_state(|a| a.backing_off(&why, d));
                    reopen_at = Some(tokio::time::Instant::now() + d);
                }
            },
            _ = sleep_until(reopen_at), if stream.is_none() && !r.draining => {}
            Some(news) = news_rx.recv() => {
                if let Some(exit) = r.on_news(news).await {
                    return exit;
                }
            }
            Some(id) = accept_rx.recv() => r.slots.cancel(&id),
            _ = sleep_until(mm_due) => r.matchmake(),
            Some(done) = mm_rx.recv() => r.on_mm(done),
            _ = beat.tick() => {
                r.ctx.beat.beat();
            }
            r2 = r.ctx.settings.changed() => {
                if r2.is_ok() {
                    r.reload();
                }
            }
            changed = r.ctx.stop.changed() => {
                let now = super::requested(changed, &r.ctx.stop);
                if let Some(exit) = r.on_stop(now) {
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
    fn set_state(&self, f: impl FnOnce(&mut AccountStatus)) {
        set_state(&self.sh.status, f);
    }

    /// New settings (SIGHUP): the formula, the noplay list, the archive, the
    /// concurrency; games in progress keep theirs.
    fn reload(&mut self) {
        let s = self.ctx.settings.borrow_and_update().clone();
        let o = &s.options;
        let noplay_path = match o.str("bot.noplay_file") {
            "" => None,
            p => Some(PathBuf::from(p)),
        };
        self.formula = Formula::from_options(o);
        self.noplay = NoPlay::load(noplay_path);
        self.archive = Archive::from_options(o);
        self.concurrency = o.int("lichess.concurrency").max(1) as usize;
        self.slots.set_capacity(self.concurrency);
        self.opts = o.clone();
    }

    /// A request of the frame; the exit status when the account ends now.
    fn on_stop(&mut self, now: Stop) -> Option<Exit> {
        match now {
            Stop::Run => None,
            Stop::Drain => {
                if !self.draining {
                    info!("lichess: no new games; the games in progress are played out");
                    self.set_state(|a| a.draining = true);
                }
                self.draining = true;
                if self.games.is_empty() {
                    self.set_state(|a| a.stopped("shutdown"));
                    return Some(Exit::Ok);
                }
                None
            }
            Stop::Quit => {
                self.quit();
                self.set_state(|a| a.stopped("shutdown"));
                Some(Exit::Ok)
            }
        }
    }

    fn quit(&mut self) {
        for (_, h) in self.games.drain() {
            h.abort();
        }
    }

    /// News of a game: its result (the slot is free), its end (the finish path).
    async fn on_news(&mut self, news: GameNews) -> Option<Exit> {
        match news {
            GameNews::Result { id } => self.slots.end(&id),
            GameNews::Done { id, out } => {
                self.games.remove(&id);
                self.slots.end(&id);
                if let Some(out) = out {
                    let opts = self.opts.clone();
                    let brain = self
                        .ctx
                        .frame
                        .finish(
                            *out,
                            &self.archive,
                            &mut self.opponents,
                            &mut self.noplay,
                            &opts,
                        )
                        .await;
                    // Kept for the next game (its engine stays warm, and an external
                    // engine's health stays known between games).
                    if let Some(b) = brain.filter(|_| self.brains.len() < self.concurrency) {
                        self.brains.push(b);
                    }
                }
                if self.draining && self.games.is_empty() {
                    info!("lichess: games over; stopping as asked");
                    self.set_state(|a| a.stopped("shutdown"));
                    return Some(Exit::Ok);
                }
            }
        }
        None
    }

    fn on_event(&mut self, ev: Event) {
        match ev {
            Event::Challenge { challenge } => self.on_challenge(challenge),
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
            Event::GameFinish { game } => {
                debug!(game = %game.game_id, "lichess: the event stream says the game finished");
                self.slots.end(&game.game_id);
            }
            Event::ChallengeCanceled { challenge } | Event::ChallengeDeclined { challenge } => {
                info!(challenge = %challenge.id, "lichess: challenge withdrawn or declined");
                self.slots.cancel(&challenge.id);
                if self.queue.iter().any(|c| c.id == challenge.id) {
                    self.queue.retain(|c| c.id != challenge.id);
                    self.publish_queue();
                }
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

    /// True while another game fits.
    fn free(&mut self) -> bool {
        !self.draining && self.ctx.frame.engines.down().is_none() && self.slots.free(Instant::now())
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
        let free = self.free();
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
        let free = self.free();
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

    fn on_challenge(&mut self, c: Challenge) {
        let Some(who) = c.challenger.clone() else {
            return;
        };
        if who.id.eq_ignore_ascii_case(&self.sh.account.id) {
            return; // our own challenge
        }
        if self.queue.iter().any(|q| q.id == c.id) {
            return; // listed again when the event stream opens again
        }
        let verdict = self.judge(&c, &who.id);
        let busy = !self.slots.free(Instant::now());
        let max_queue = self.opts.int("lichess.queue").max(0) as usize;
        if verdict.is_ok() && busy && self.queue.len() < max_queue {
            info!(challenger = %who.name, challenge = %c.id, waiting = self.queue.len() + 1, "lichess: challenge queued until a game slot is free");
            self.queue.push_back(c);
            self.publish_queue();
            return;
        }
        let verdict = match verdict {
            Ok(()) if busy => Err(reason(Refusal::Busy)),
            v => v,
        };
        self.answer(c, verdict);
    }

    /// The formula's verdict on `c` from `who`, as if a slot were free.
    fn judge(&self, c: &Challenge, who: &str) -> Result<(), DeclineReason> {
        let in_a_row = self.opponents.in_a_row(who);
        match request(c) {
            None => Err(DeclineReason::Generic),
            Some(_) if self.draining => Err(reason(Refusal::ShuttingDown)),
            Some(_) if self.ctx.frame.engines.down().is_some() => Err(reason(Refusal::EngineDown)),
            Some(q) => {
                let seen = Seen {
                    in_a_row,
                    today: self.sh.status.games_today(who),
                    busy: false,
                };
                self.formula.judge(&q, &self.noplay, seen).map_err(reason)
            }
        }
    }

    /// Accepts queued challenges while slots are free (each judged again: the
    /// day's games or the noplay list may have changed); declines them all when
    /// the account drains.
    fn serve_queue(&mut self) {
        if self.queue.is_empty() {
            return;
        }
        let before = self.queue.len();
        while !self.queue.is_empty() {
            let free = self.slots.free(Instant::now());
            if !free && !self.draining {
                break;
            }
            let c = self.queue.pop_front().expect("a queued challenge");
            let who = c
                .challenger
                .as_ref()
                .map(|w| w.id.clone())
                .unwrap_or_default();
            let verdict = self.judge(&c, &who);
            self.answer(c, verdict);
        }
        if self.queue.len() != before {
            self.publish_queue();
        }
    }

    /// Who waits, for the chat's `!queue` and the operator's window.
    fn publish_queue(&self) {
        let names: Vec<String> = self
            .queue
            .iter()
            .filter_map(|c| c.challenger.as_ref().map(|w| w.name.clone()))
            .collect();
        self.set_state(|a| a.queued = names.clone());
        *self.sh.queue.lock().unwrap_or_else(|e| e.into_inner()) = names;
    }

    /// Sends the answer to a challenge (off the event loop) and says it.
    fn answer(&mut self, c: Challenge, verdict: Result<(), DeclineReason>) {
        let who = c.challenger.clone().unwrap_or_default();
        let said = match &verdict {
            Ok(()) => "accepted".to_string(),
            Err(why) => format!("declined: {}", why.key()),
        };
        info!(challenger = %who.name, challenge = %c.id, verdict = %said, "lichess: challenge");
        // The slot is taken now, before the answer goes out: a challenge read while
        // this one's accept waits (a 429's minute) finds it taken.
        if verdict.is_ok() {
            self.slots.accept(&c.id, Instant::now());
        }
        let api = self.sh.api.clone();
        let failed = self.accept_tx.clone();
        let (cid, v) = (c.id.clone(), verdict);
        tokio::spawn(async move {
            let answer = match v {
                Ok(()) => api.accept(&cid).await,
                Err(why) => api.decline(&cid, why).await,
            };
            if let Err(e) = answer {
                warn!(challenge = %cid, "lichess: cannot answer the challenge: {e}");
                if v.is_ok() {
                    let _ = failed.send(cid);
                }
            }
        });
        let verdict = match verdict {
            Ok(()) => super::formula::Verdict::Accept,
            Err(why) => super::formula::Verdict::Decline(why.key().to_string()),
        };
        self.ctx.frame.emit(BotEvent::Challenge {
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
        self.slots.start(&id, Some(&id));
        let span = info_span!("lichess", game = %id);
        let h = tokio::spawn(
            adapter::play(
                self.sh.clone(),
                self.ctx.frame.clone(),
                id.clone(),
                number,
                self.news_tx.clone(),
                self.brains.pop(),
            )
            .instrument(span),
        );
        self.games.insert(id, h);
    }
}
