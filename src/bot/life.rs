//! One game life for every account. What the daemon's accounts (ICS, Lichess)
//! share: the `Frame` (status, event stream, hooks, test faults) that starts each
//! game's task, the `Slots` that say whether another game fits (a slot is taken
//! when we accept a challenge and freed at the game's result, so `concurrency`
//! holds while accepts are in flight and a rematch offered right after a result
//! finds the slot free), `Opponents` (rematches in a row, repeat aborters), and the
//! one finish path: the PGN record, the game log, the results ledger, the status
//! counters and metrics (labelled by account), the learning counts and the
//! `GameEnded` report, the same for every server.

use super::archive::{self, Archive};
use super::brain::{Brain, Fault};
use super::formula::NoPlay;
use super::play::port::{GameInput, PortTx};
use super::play::{GameOutcome, GameSetup};
use super::status::{self, StatusTx};
use super::{history, BotEvent, GameReport};
use crate::chess::Color;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinHandle;
use tracing::{error, info, info_span, warn, Instrument};

/// How long an accepted challenge holds its slot waiting for its game to start.
pub const ACCEPT_HOLD: Duration = Duration::from_secs(30);

/// What every account of the daemon shares.
#[derive(Clone)]
pub struct Frame {
    pub status: StatusTx,
    pub events: broadcast::Sender<BotEvent>,
    /// The health of the external engines (none when the built-in engine plays).
    pub engines: crate::external::HealthBoard,
    /// Fault injection for tests: the engine's.
    pub fault: Option<Fault>,
    /// `fault` only in games that start while this is on; in every game when `None`.
    pub fault_on: Option<Arc<AtomicBool>>,
    /// Panic once in the task of this game number (tests).
    pub task_panic_game: Option<u32>,
    pub task_panicked: Arc<AtomicBool>,
}

/// A game task that runs: its input and its end.
pub struct Running {
    pub setup: GameSetup,
    pub tx: mpsc::UnboundedSender<GameInput>,
    pub handle: JoinHandle<GameOutcome>,
}

impl Frame {
    pub fn emit(&self, e: BotEvent) {
        let _ = self.events.send(e);
    }

    /// The injected engine fault of a game starting now (tests).
    pub fn fault_now(&self) -> Option<Fault> {
        self.fault.filter(|_| {
            self.fault_on
                .as_ref()
                .is_none_or(|on| on.load(Ordering::SeqCst))
        })
    }

    /// Starts the task of a game and lists the game on the status page (`live`,
    /// made from the setup, may be renamed by the account).
    pub fn start_game(
        &self,
        setup: GameSetup,
        port: PortTx,
        brain: Option<Brain>,
        live: status::LiveGame,
    ) -> Running {
        let (tx, rx) = mpsc::unbounded_channel();
        let span = info_span!("game", account = %setup.account, game = setup.game, white = %setup.white, black = %setup.black);
        let panic_now = self.task_panic_game == Some(setup.game)
            && !self.task_panicked.swap(true, Ordering::SeqCst);
        let s2 = setup.clone();
        let handle = tokio::spawn(
            async move {
                if panic_now {
                    panic!("injected game task fault");
                }
                super::play::run(s2, port, brain, rx).await
            }
            .instrument(span),
        );
        self.emit(BotEvent::GameStarted {
            game: setup.game,
            opponent: setup.opponent.clone(),
        });
        self.status.update(|s| {
            s.games.retain(|g| g.game != live.game);
            s.games.push(live);
        });
        Running { setup, tx, handle }
    }

    /// The one finish path of a game task that ended: its record and log, the
    /// opponents' book, the counters, the ledger, the learning counts, the report.
    /// Returns the engine to reuse.
    pub async fn finish(
        &self,
        mut out: GameOutcome,
        archive: &Archive,
        opponents: &mut Opponents,
        noplay: &mut NoPlay,
        opts: &crate::options::Options,
    ) -> Option<Brain> {
        let brain = out.brain.take();
        let (result, reason) = match &out.end {
            Some(e) => (e.result.clone(), e.reason.clone()),
            None => (String::new(), "connection lost".into()),
        };
        let finished = out
            .end
            .as_ref()
            .is_some_and(|e| archive::termination(&e.reason, &e.result) != "unterminated");
        // The record: appended once the game has really ended; an adjourned game (or
        // one cut off with the connection) stays in progress until resumed.
        {
            let archive = archive.clone();
            let pgn = out.pgn.clone();
            let (white, black) = (out.setup.white.clone(), out.setup.black.clone());
            let log = out.log.clone();
            let log_name = out.end.is_some().then(|| {
                let secs = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0);
                format!(
                    "game-{}-{secs}-{}-{}-{}.log",
                    super::play::pgn_date().replace('.', ""),
                    out.setup.account,
                    out.setup.game,
                    log_file_word(&out.setup.opponent)
                )
            });
            let _ = tokio::task::spawn_blocking(move || {
                if let Err(e) = archive.record(&white, &black, pgn.as_deref(), finished) {
                    error!("cannot write the game record: {e}");
                }
                if let Some(name) = log_name {
                    if let Err(e) = archive.write_log(&name, &log) {
                        error!("cannot write the game log: {e}");
                    }
                }
            })
            .await;
        }
        if out.end.is_some() || out.left {
            // A game we left because the opponent never moved counts as theirs
            // aborted, however the server ended it.
            let aborted = out.opponent_moves == 0
                && (out.left || result == "*" && reason.to_ascii_lowercase().contains("abort"));
            opponents.after_game(&out.setup.opponent, aborted, noplay, opts);
        }
        self.count(&out, &result, &reason, finished).await;
        self.emit(BotEvent::GameEnded(Box::new(GameReport::new(
            out, result, reason,
        ))));
        brain
    }

    /// The counters, the results ledger and the learning counts after a game.
    async fn count(&self, out: &GameOutcome, result: &str, reason: &str, finished: bool) {
        let su = &out.setup;
        let class = status::class_name(su.class).to_string();
        let outcome = if out.end.is_none() {
            "lost".to_string()
        } else if !finished {
            "adjourned".to_string()
        } else {
            history::Outcome::of(result, su.our_color)
                .name()
                .to_string()
        };
        let forfeit = finished && archive::termination(reason, result) == "time forfeit";
        let ours = history::Outcome::of(result, su.our_color);
        let lost_on_time = forfeit && ours == history::Outcome::Loss;
        let won_on_time = forfeit && ours == history::Outcome::Win;
        let pgn = out.pgn.clone().filter(|_| finished);
        let handle = match su.our_color {
            Color::White => su.white.clone(),
            Color::Black => su.black.clone(),
        };
        let (game, account) = (su.game, su.account.clone());
        self.status.update(|s| {
            s.games.retain(|g| g.game != game);
            s.counters.count_game(&account, &outcome, &class);
            s.counters.time_forfeits_us += lost_on_time as u64;
            s.counters.time_forfeits_opponent += won_on_time as u64;
            if let Some(p) = &pgn {
                let mut r = (*s.results).clone();
                r.add_record(p, &handle, &|_| class.clone());
                s.results = Arc::new(r);
            }
        });
        if finished {
            let bookpath = su.opts.str("bookpath").trim().to_string();
            if let Ok(learning) =
                tokio::task::spawn_blocking(move || learning_counts(&bookpath)).await
            {
                self.status.update_if(|s| {
                    let changed = s.engine.learning != learning;
                    s.engine.learning = learning;
                    changed
                });
            }
        }
    }
}

/// A handle as a file name word.
fn log_file_word(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(40)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// What the learning files of `bookpath` hold (blocking: reads the files).
pub fn learning_counts(bookpath: &str) -> Option<status::LearningCounts> {
    if bookpath.is_empty() {
        return None;
    }
    let dir = std::path::Path::new(bookpath);
    let l = crate::learn::Learner::open_read_only(dir);
    let results = std::fs::read_to_string(dir.join(crate::learn::Learner::BOOK_LRN))
        .map(|t| t.lines().filter(|l| l.starts_with("[Event ")).count())
        .unwrap_or(0);
    Some(status::LearningCounts {
        book: l.overlay().len(),
        position: l.positions().len(),
        results,
    })
}

/// The results ledger read from the PGN records, for every account: all accounts
/// write the same archive, and a record is ours when one of our handles played it.
/// A handle an account learns only at login (Lichess's) comes later: the records
/// that were in the files at start are read again with it, and the games finished
/// since are kept after them. Reading is blocking I/O, done off the async threads,
/// one load at a time.
#[derive(Clone)]
pub struct Ledger {
    tx: mpsc::UnboundedSender<String>,
}

impl Ledger {
    /// Starts the ledger's loader with the handles known at start.
    pub fn start(
        status: &StatusTx,
        archive: &Archive,
        handles: Vec<String>,
        lists_dir: std::path::PathBuf,
        bookpath: String,
    ) -> Ledger {
        let files = archive
            .pgn
            .as_ref()
            .map(|p| history::archive_files(p, archive.pgn_keep))
            .unwrap_or_default();
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        for h in handles {
            let _ = tx.send(h);
        }
        let status = status.clone();
        tokio::spawn(async move {
            let mut handles: Vec<String> = Vec::new();
            // Records in the files at the first load, and the ledger's rows then:
            // the rows after those are games of this run.
            let mut at_start: Option<usize> = None;
            let mut base_rows = 0usize;
            let mut first = true;
            while let Some(h) = rx.recv().await {
                let mut changed = push_handle(&mut handles, h);
                while let Ok(h) = rx.try_recv() {
                    changed |= push_handle(&mut handles, h);
                }
                if !changed && !first {
                    continue;
                }
                let (files, hs, lists_dir, bookpath) = (
                    files.clone(),
                    handles.clone(),
                    lists_dir.clone(),
                    bookpath.clone(),
                );
                let limit = at_start;
                let Ok((results, records, learning)) = tokio::task::spawn_blocking(move || {
                    let lists = super::lists::Lists::load(&lists_dir);
                    let classify =
                        |name: &str| status::class_name(lists.classify(name, false)).to_string();
                    let (r, n) = history::Results::load_any(&files, &hs, &classify, limit);
                    (r, n, learning_counts(&bookpath))
                })
                .await
                else {
                    continue;
                };
                at_start.get_or_insert(records);
                info!(
                    games = results.rows.len(),
                    handles = ?handles,
                    "results read from the PGN records"
                );
                let loaded = results.rows.len();
                status.update(|s| {
                    let mut r = results;
                    for row in s.results.rows.iter().skip(base_rows) {
                        r.push(row.clone());
                    }
                    s.results = Arc::new(r);
                    if first {
                        s.engine.learning = learning;
                    }
                });
                base_rows = loaded;
                first = false;
            }
        });
        Ledger { tx }
    }

    /// An account logged in as `handle`: its games in the records count too.
    pub fn add_handle(&self, handle: &str) {
        if !handle.trim().is_empty() {
            let _ = self.tx.send(handle.trim().to_string());
        }
    }
}

fn push_handle(handles: &mut Vec<String>, h: String) -> bool {
    if h.is_empty() || handles.iter().any(|x| x.eq_ignore_ascii_case(&h)) {
        return false;
    }
    handles.push(h);
    true
}

/// The slots of one account: how many games may run at once, taken at accept and
/// freed at the result.
#[derive(Debug)]
pub struct Slots {
    capacity: usize,
    /// Accepted challenges whose game has not started: their key (the challenger
    /// on an ICS, the challenge id on Lichess) and when.
    accepted: Vec<(String, Instant)>,
    /// Games in progress, by their key.
    playing: Vec<String>,
}

impl Slots {
    pub fn new(capacity: usize) -> Slots {
        Slots {
            capacity: capacity.max(1),
            accepted: Vec::new(),
            playing: Vec::new(),
        }
    }

    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
    }

    /// Slots in use (accepted or playing), after dropping accepts whose game never
    /// came (`ACCEPT_HOLD`).
    pub fn in_use(&mut self, now: Instant) -> usize {
        self.accepted
            .retain(|(_, t)| now.duration_since(*t) < ACCEPT_HOLD);
        self.accepted.len() + self.playing.len()
    }

    /// True when another game fits.
    pub fn free(&mut self, now: Instant) -> bool {
        self.in_use(now) < self.capacity
    }

    /// We accepted the challenge `key`: its slot is taken now.
    pub fn accept(&mut self, key: &str, now: Instant) {
        self.accepted.push((key.to_ascii_lowercase(), now));
    }

    /// The accept `key` came to nothing (the request failed, the challenge was
    /// withdrawn).
    pub fn cancel(&mut self, key: &str) {
        let key = key.to_ascii_lowercase();
        self.accepted.retain(|(k, _)| *k != key);
    }

    /// The link our accepts went out on is gone: a server drops the offers of a
    /// player who left, so none of them can still become a game.
    pub fn forget_accepts(&mut self) {
        self.accepted.clear();
    }

    /// The game `game` started, from the accept `from` when there was one (a game
    /// we did not accept, a resumed one, takes a slot all the same).
    pub fn start(&mut self, game: &str, from: Option<&str>) {
        let game = game.to_ascii_lowercase();
        if let Some(f) = from {
            self.cancel(f);
        }
        if !self.playing.contains(&game) {
            self.playing.push(game);
        }
    }

    /// The game `game` has its result (or is gone): its slot is free.
    pub fn end(&mut self, game: &str) {
        let game = game.to_ascii_lowercase();
        self.playing.retain(|g| *g != game);
    }

    pub fn is_playing(&self, game: &str) -> bool {
        self.playing.contains(&game.to_ascii_lowercase())
    }

    pub fn playing(&self) -> usize {
        self.playing.len()
    }
}

/// An account's book of opponents: games in a row against the same one (the
/// rematch limit) and aborted games in a row (repeat aborters go to the noplay
/// list).
#[derive(Debug, Default)]
pub struct Opponents {
    /// The last opponent and games against them in a row.
    streak: (String, u32),
    /// Aborted games in a row per opponent.
    aborts: HashMap<String, u32>,
}

impl Opponents {
    /// Games in a row against `who` just before now.
    pub fn in_a_row(&self, who: &str) -> u32 {
        if self.streak.0.eq_ignore_ascii_case(who) {
            self.streak.1
        } else {
            0
        }
    }

    /// A game against `who` ended (`aborted`: before they moved).
    pub fn after_game(
        &mut self,
        who: &str,
        aborted: bool,
        noplay: &mut NoPlay,
        opts: &crate::options::Options,
    ) {
        if self.streak.0.eq_ignore_ascii_case(who) {
            self.streak.1 += 1;
        } else {
            self.streak = (who.to_string(), 1);
        }
        let key = who.to_ascii_lowercase();
        if aborted {
            let n = self.aborts.entry(key).or_insert(0);
            *n += 1;
            let limit = opts.int("bot.aborts_to_noplay") as u32;
            if limit > 0 && *n >= limit {
                warn!(opponent = %who, "repeat aborter: added to the noplay list");
                if let Err(e) = noplay.add(who, "repeat aborter") {
                    error!("cannot write the noplay list: {e}");
                }
            }
        } else {
            self.aborts.remove(&key);
        }
        if self.aborts.len() > 10_000 {
            self.aborts.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_die_with_their_link_games_do_not() {
        let t0 = Instant::now();
        let mut s = Slots::new(2);
        s.start("game1", None);
        s.accept("chal1", t0);
        assert!(!s.free(t0));
        s.forget_accepts();
        assert!(s.free(t0), "the accept sent on the lost link holds nothing");
        assert!(s.is_playing("game1"), "a game in progress keeps its slot");
    }

    #[test]
    fn a_slot_is_taken_at_accept_and_freed_at_the_result() {
        let t0 = Instant::now();
        let mut s = Slots::new(1);
        assert!(s.free(t0));
        s.accept("chal1", t0);
        assert!(!s.free(t0), "an accept in flight holds the slot");
        s.start("game1", Some("CHAL1"));
        assert_eq!(s.in_use(t0), 1);
        assert!(!s.free(t0));
        s.end("GAME1");
        assert!(s.free(t0), "free at the result");
        // An accept whose game never comes lets go after the hold.
        s.accept("chal2", t0);
        assert!(!s.free(t0 + Duration::from_secs(1)));
        assert!(s.free(t0 + ACCEPT_HOLD + Duration::from_secs(1)));
        s.accept("chal3", t0);
        s.cancel("chal3");
        assert!(s.free(t0));
        let mut two = Slots::new(2);
        two.accept("a", t0);
        two.start("g", None);
        assert!(!two.free(t0), "a game we did not accept counts too");
    }

    #[test]
    fn rematches_in_a_row_are_counted_per_opponent() {
        let mut o = Opponents::default();
        let mut noplay = NoPlay::load(None);
        let opts = crate::options::Options::new();
        o.after_game("Alice", false, &mut noplay, &opts);
        o.after_game("alice", false, &mut noplay, &opts);
        assert_eq!(o.in_a_row("ALICE"), 2);
        o.after_game("bob", false, &mut noplay, &opts);
        assert_eq!((o.in_a_row("alice"), o.in_a_row("bob")), (0, 1));
    }
}
