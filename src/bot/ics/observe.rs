//! Observing: the games, players and relay handles of `bot.observe` are observed
//! (`observe N`), their positions analysed without end on an engine of their own (the
//! analyst thread), and what the analysis finds is whispered or kibitzed (`talk`)
//! once it has passed `noise`. Several observed games are analysed in turn, a slice
//! (`bot.observe_slice`) each. Broadcast relays are usually examined games (style-12
//! relation -2) whose boards jump back, forward and to new set-ups: any position is
//! accepted and the analysis restarts on it. When a game ends, or its examiners leave,
//! the talk stops; for a player or relay handle the observer looks for its next game
//! (`bot.observe_retry`). While the bot plays, the analysis pauses unless
//! `bot.observe_while_playing` is on. A guest account cannot talk in others' games:
//! that is logged once and the bot stays quiet.

use crate::bot::talk::{Change, Channel, Levels, Talk, Thought, Venue};
use crate::chess::Board;
use crate::engine::{EventSink, SearchEvent};
use crate::ics::{ServerCommand, Writer};
use crate::options::{Options, Source};
use std::collections::BTreeMap;
use std::sync::mpsc as std_mpsc;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

/// Something to observe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Game(u32),
    Player(String),
    Relay(String),
}

impl Target {
    /// `12`, `player:name`, `relay:name` (a bare name is a player).
    pub fn parse(s: &str) -> Result<Target, String> {
        let s = s.trim();
        let bad = || format!("'{s}' is not a game number, player:<handle> or relay:<handle>");
        if let Ok(n) = s.parse::<u32>() {
            return if n > 0 {
                Ok(Target::Game(n))
            } else {
                Err(bad())
            };
        }
        let (kind, name) = s.split_once(':').unwrap_or(("player", s));
        if !crate::bot::lists::valid_handle(name) {
            return Err(bad());
        }
        match kind.to_ascii_lowercase().as_str() {
            "player" => Ok(Target::Player(name.to_string())),
            "relay" => Ok(Target::Relay(name.to_string())),
            _ => Err(bad()),
        }
    }

    pub fn parse_list(s: &str) -> Result<Vec<Target>, String> {
        s.split([',', ';'])
            .map(str::trim)
            .filter(|w| !w.is_empty())
            .map(Target::parse)
            .collect()
    }

    /// What `observe` takes.
    fn word(&self) -> String {
        match self {
            Target::Game(n) => n.to_string(),
            Target::Player(p) | Target::Relay(p) => p.clone(),
        }
    }

    fn matches(&self, white: &str, black: &str) -> bool {
        match self {
            Target::Game(_) => false,
            Target::Player(p) | Target::Relay(p) => {
                p.eq_ignore_ascii_case(white) || p.eq_ignore_ascii_case(black)
            }
        }
    }
}

// ----- the analyst thread -------------------------------------------------------------

enum AnalystCmd {
    Analyse { tag: u64, board: Box<Board> },
    Stop,
    Quit,
}

/// What the analyst reports, tagged with the analysis it belongs to.
#[derive(Debug)]
pub enum AnalystEvent {
    Iteration(u64, Thought),
    Change(u64, Change, Thought),
}

struct Analyst {
    tx: std_mpsc::Sender<AnalystCmd>,
}

impl Analyst {
    fn spawn(
        opts: &Options,
        etx: mpsc::UnboundedSender<AnalystEvent>,
        engines: crate::external::HealthBoard,
    ) -> Analyst {
        let (tx, rx) = std_mpsc::channel::<AnalystCmd>();
        let mut opts = opts.clone();
        // Its own modest table: the games' engine keeps its own.
        let hash = opts.size("hash").min(64 << 20);
        let _ = opts.set_from(Source::Runtime, "hash", &format!("{}K", hash >> 10));
        let _ = opts.set_from(Source::Runtime, "ponder", "off");
        let _ = std::thread::Builder::new()
            .name("analyst".into())
            .spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let mut game = crate::bot::brain::new_game(&opts, &engines);
                    game.set_engine_side(None);
                    while let Ok(cmd) = rx.recv() {
                        match cmd {
                            AnalystCmd::Analyse { tag, board } => {
                                game.abort_search();
                                game.set_position(*board);
                                let etx = etx.clone();
                                let sink: EventSink = Arc::new(move |e: &SearchEvent| {
                                    let (kind, i) = match e {
                                        SearchEvent::Iteration(i) => (None, i),
                                        SearchEvent::NewBest(i) => (Some(Change::NewBest), i),
                                        SearchEvent::FailHigh(i) => (Some(Change::FailHigh), i),
                                        SearchEvent::FailLow(i) => (Some(Change::FailLow), i),
                                        _ => return,
                                    };
                                    let t = Thought {
                                        depth: i.depth,
                                        score: i.score,
                                        nodes: i.nodes,
                                        time: i.time,
                                        pv: i.pv.clone(),
                                    };
                                    let _ = etx.send(match kind {
                                        None => AnalystEvent::Iteration(tag, t),
                                        Some(k) => AnalystEvent::Change(tag, k, t),
                                    });
                                });
                                game.analyse(sink, true);
                            }
                            AnalystCmd::Stop => game.abort_search(),
                            AnalystCmd::Quit => break,
                        }
                    }
                    game.abort_search();
                }));
                if r.is_err() {
                    tracing::error!("the analyst thread panicked; observing goes on without analysis until the next game");
                }
            });
        Analyst { tx }
    }

    fn send(&self, c: AnalystCmd) -> bool {
        self.tx.send(c).is_ok()
    }
}

impl Drop for Analyst {
    fn drop(&mut self) {
        let _ = self.tx.send(AnalystCmd::Quit);
    }
}

// ----- the observer -------------------------------------------------------------------

/// One observed game.
#[derive(Debug)]
struct Watched {
    white: String,
    black: String,
    board: Board,
    talk: Talk,
    /// The latest iteration of the current position's analysis.
    last: Option<Thought>,
    /// The analysis tag of its current position (0: not analysed yet).
    tag: u64,
    relay: bool,
    /// What was said about the game (for the status page).
    said: Vec<String>,
}

/// A board of an observed game, as any server gives it.
pub struct Seen {
    pub game: u32,
    pub white: String,
    pub black: String,
    /// An examined game (a relay's or our own examining), not one being played.
    pub examined: bool,
    pub board: crate::chess::Board,
}

impl Seen {
    /// A FICS/lasker style-12 board of a game we observe or examine (relation 0,
    /// -2 or 2); `None` for our own games and unreadable boards.
    pub fn of_style12(s: &crate::ics::Style12) -> Option<Seen> {
        if !matches!(s.relation, 0 | -2 | 2) {
            return None;
        }
        let Some(board) = s.board() else {
            warn!(game = s.game, "observed board unreadable; ignored");
            return None;
        };
        Some(Seen {
            game: s.game,
            white: s.white.clone(),
            black: s.black.clone(),
            examined: s.relation != 0,
            board,
        })
    }

    /// An ICC position of a game we observe or examine.
    pub fn of_position(p: &crate::ics::GamePosition) -> Option<Seen> {
        use crate::ics::Relation;
        let examined = match p.relation {
            Relation::Playing(_) => return None,
            Relation::Observing => false,
            Relation::Examining => true,
        };
        let Some(board) = p.board() else {
            warn!(game = p.game, "observed position unreadable; ignored");
            return None;
        };
        Some(Seen {
            game: p.game,
            white: p.white.clone(),
            black: p.black.clone(),
            examined,
            board,
        })
    }
}

/// What the observer wants done (the supervisor does it).
#[derive(Debug, Default)]
pub struct Observer {
    targets: Vec<Target>,
    games: BTreeMap<u32, Watched>,
    /// The game being analysed and since when.
    current: Option<(u32, Instant)>,
    next_tag: u64,
    analyst: Option<Analyst>,
    events: Option<mpsc::UnboundedReceiver<AnalystEvent>>,
    paused: bool,
    /// Our account is a guest: no talk in others' games.
    pub guest: bool,
    /// Where an external analyst engine reports its health.
    pub engines: crate::external::HealthBoard,
    guest_logged: bool,
    multi_quiet_logged: bool,
    retry_at: Option<Instant>,
    /// Targets added by a reload, observed at the next tick.
    to_observe: Vec<Target>,
    opts: Option<Options>,
}

impl std::fmt::Debug for Analyst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Analyst")
    }
}

impl Observer {
    /// From `bot.observe` (validated by the settings loader).
    pub fn new(opts: &Options) -> Observer {
        Observer {
            targets: Target::parse_list(opts.str("bot.observe")).unwrap_or_default(),
            opts: Some(opts.clone()),
            ..Default::default()
        }
    }

    /// New options (SIGHUP, an owner's `whisper 3`): talk levels at once; targets new
    /// to `bot.observe` are observed at the next tick.
    pub fn configure(&mut self, opts: &Options) {
        let levels = Levels::from_options(opts);
        for w in self.games.values_mut() {
            w.talk.levels = levels;
        }
        for t in Target::parse_list(opts.str("bot.observe")).unwrap_or_default() {
            if !self.targets.contains(&t) {
                self.targets.push(t.clone());
                self.to_observe.push(t);
            }
        }
        self.opts = Some(opts.clone());
    }

    fn opts(&self) -> &Options {
        self.opts.as_ref().expect("observer configured")
    }

    /// Sends `observe` for every target (after logging in).
    pub fn start(&mut self, w: &Writer) {
        self.games.clear();
        self.current = None;
        for t in &self.targets {
            w.send(&ServerCommand::Observe(t.word()));
        }
        self.schedule_retry(Instant::now());
    }

    /// A followed player or relay with no game of theirs observed now.
    fn unmatched_followed(&self) -> Vec<Target> {
        self.targets
            .iter()
            .filter(|t| !matches!(t, Target::Game(_)))
            .filter(|t| !self.games.values().any(|g| t.matches(&g.white, &g.black)))
            .cloned()
            .collect()
    }

    /// Looks again after `bot.observe_retry` when a followed player has no game
    /// observed (not logged in, not playing, or `observe` refused).
    fn schedule_retry(&mut self, now: Instant) {
        if self.retry_at.is_none() && !self.unmatched_followed().is_empty() {
            self.retry_at = Some(now + self.opts().duration("bot.observe_retry"));
        }
    }

    /// `observe X` from an owner.
    pub fn add(&mut self, t: Target, w: &Writer) {
        w.send(&ServerCommand::Observe(t.word()));
        if !self.targets.contains(&t) {
            self.targets.push(t);
        }
        self.schedule_retry(Instant::now());
    }

    /// `unobserve X` from an owner.
    pub fn remove(&mut self, t: &Target, w: &Writer) {
        self.targets.retain(|x| x != t);
        let games: Vec<u32> = self
            .games
            .iter()
            .filter(|(n, g)| match t {
                Target::Game(x) => *x == **n,
                _ => t.matches(&g.white, &g.black),
            })
            .map(|(n, _)| *n)
            .collect();
        for g in games {
            w.send(&ServerCommand::Unobserve(g));
            self.end(g, "unobserved");
        }
    }

    /// Games observed now.
    /// The observed games as the status page shows them.
    pub fn snapshot(&self) -> Vec<crate::bot::status::ObservedGame> {
        self.games
            .iter()
            .map(|(&game, g)| crate::bot::status::ObservedGame {
                game,
                white: g.white.clone(),
                black: g.black.clone(),
                relay: g.relay,
                fen: g.board.to_fen(),
                search: g.last.as_ref().map(|t| {
                    crate::bot::status::Search::new(
                        &g.board, t.depth, t.score, t.nodes, t.time, &t.pv,
                    )
                }),
                talk: g.said.clone(),
            })
            .collect()
    }

    pub fn watching(&self) -> Vec<u32> {
        self.games.keys().copied().collect()
    }

    /// The analysis pauses while the bot plays (unless configured otherwise).
    pub fn pause(&mut self, playing: bool) {
        let keep = self.opts().bool("bot.observe_while_playing");
        let pause = playing && !keep;
        if pause == self.paused {
            return;
        }
        self.paused = pause;
        if pause {
            if let Some(a) = &self.analyst {
                a.send(AnalystCmd::Stop);
            }
            self.current = None;
        } else {
            self.rotate(Instant::now(), true);
        }
    }

    /// The next analysis report (pending for ever while there is no analyst).
    pub async fn recv(&mut self) -> Option<AnalystEvent> {
        match self.events.as_mut() {
            Some(rx) => rx.recv().await,
            None => std::future::pending().await,
        }
    }

    /// A board of a game that is not our own (any server's).
    pub fn on_board(&mut self, s: Seen, w: &Writer) {
        let board = s.board;
        let relay = s.examined
            || self
                .targets
                .iter()
                .any(|t| matches!(t, Target::Relay(_)) && t.matches(&s.white, &s.black));
        let venue = if relay { Venue::Relay } else { Venue::Live };
        let opts = self.opts().clone();
        let now = Instant::now();
        let w_entry = self.games.entry(s.game).or_insert_with(|| {
            info!(game = s.game, white = %s.white, black = %s.black, "observing");
            Watched {
                white: s.white.clone(),
                black: s.black.clone(),
                board: board.clone(),
                talk: Talk::from_options(&opts, Levels::from_options(&opts), venue),
                last: None,
                tag: 0,
                relay,
                said: Vec::new(),
            }
        });
        w_entry.talk.venue = venue;
        w_entry.relay = relay;
        // A refresh of the same position changes nothing; any other board (a move, a
        // jump of an examined game) restarts the analysis.
        let changed = w_entry.tag == 0 || w_entry.board.to_fen() != board.to_fen();
        if !changed {
            return;
        }
        // The analysis of the previous position ends: its summary (levels 2 and 3).
        if w_entry.tag != 0 {
            if let Some(t) = w_entry.last.take() {
                let old = w_entry.board.clone();
                let lines = w_entry.talk.moved(&old, &t, None, now);
                self.send_lines(s.game, lines, w);
            }
        }
        let entry = self.games.get_mut(&s.game).expect("just inserted");
        entry.board = board;
        entry.last = None;
        entry.tag = 0;
        match self.current {
            Some((g, _)) if g == s.game => self.analyse(s.game, now),
            None => self.analyse(s.game, now),
            _ => {}
        }
    }

    /// The game ended or is no longer observed.
    pub fn end(&mut self, game: u32, why: &str) {
        if self.games.remove(&game).is_none() {
            return;
        }
        info!(game, "observation ended: {why}");
        if self.current.is_some_and(|(g, _)| g == game) {
            if let Some(a) = &self.analyst {
                a.send(AnalystCmd::Stop);
            }
            self.current = None;
            self.rotate(Instant::now(), true);
        }
        self.schedule_retry(Instant::now());
    }

    fn analyse(&mut self, game: u32, now: Instant) {
        if self.paused {
            return;
        }
        if self.analyst.is_none() {
            let (etx, erx) = mpsc::unbounded_channel();
            self.analyst = Some(Analyst::spawn(self.opts(), etx, self.engines.clone()));
            self.events = Some(erx);
        }
        let Some(entry) = self.games.get_mut(&game) else {
            return;
        };
        self.next_tag += 1;
        entry.tag = self.next_tag;
        entry.last = None;
        let ok = self.analyst.as_ref().is_some_and(|a| {
            a.send(AnalystCmd::Analyse {
                tag: entry.tag,
                board: Box::new(entry.board.clone()),
            })
        });
        if !ok {
            // The thread died: a fresh one next time.
            self.analyst = None;
            self.events = None;
        }
        self.current = Some((game, now));
        debug!(game, "analysing");
    }

    /// Gives the next game its turn; `force`: even before the slice is over.
    fn rotate(&mut self, now: Instant, force: bool) {
        if self.paused || self.games.is_empty() {
            return;
        }
        let slice = self.opts().duration("bot.observe_slice");
        let next = match self.current {
            None => self.games.keys().next().copied(),
            Some((g, since)) => {
                if !force && (self.games.len() < 2 || now.duration_since(since) < slice) {
                    return;
                }
                self.games
                    .range(g + 1..)
                    .next()
                    .or_else(|| self.games.iter().next())
                    .map(|(n, _)| *n)
            }
        };
        if let Some(n) = next {
            if self.current.is_some_and(|(g, _)| g == n) && !force {
                return;
            }
            self.analyse(n, now);
        }
    }

    /// Once a second: the slices, and looking again for followed players.
    pub fn tick(&mut self, now: Instant, w: &Writer) {
        for t in std::mem::take(&mut self.to_observe) {
            w.send(&ServerCommand::Observe(t.word()));
        }
        self.rotate(now, false);
        if self.retry_at.is_some_and(|t| now >= t) {
            self.retry_at = None;
            for t in self.unmatched_followed() {
                debug!(target = %t.word(), "looking again for a followed player's game");
                w.send(&ServerCommand::Observe(t.word()));
            }
            self.schedule_retry(now);
        }
    }

    /// An analysis report: talk about it if it is of a position still shown.
    pub fn on_analysis(&mut self, ev: AnalystEvent, w: &Writer) {
        let now = Instant::now();
        let (tag, change, t) = match ev {
            AnalystEvent::Iteration(tag, t) => (tag, None, t),
            AnalystEvent::Change(tag, k, t) => (tag, Some(k), t),
        };
        let Some((&game, entry)) = self.games.iter_mut().find(|(_, g)| g.tag == tag) else {
            return;
        };
        let board = entry.board.clone();
        let lines = match change {
            None => {
                let l = entry.talk.iteration(&board, &t, now);
                entry.last = Some(t);
                l
            }
            Some(k) => entry.talk.change(&board, k, &t, now),
        };
        self.send_lines(game, lines, w);
    }

    fn send_lines(&mut self, game: u32, lines: Vec<(Channel, String)>, w: &Writer) {
        if lines.is_empty() {
            return;
        }
        if self.guest {
            if !self.guest_logged {
                self.guest_logged = true;
                warn!("guests cannot whisper or kibitz in other players' games: staying quiet");
            }
            return;
        }
        if !w.profile().observe_talk_is_per_game() || !w.has_command("xwhisper") {
            // A plain `whisper` reaches the one game we observe; with several it
            // could land in the wrong one.
            if self.games.len() > 1 {
                if !self.multi_quiet_logged {
                    self.multi_quiet_logged = true;
                    warn!("this server cannot address talk to one of several observed games (no xwhisper): quiet while observing more than one");
                }
                return;
            }
        }
        if let Some(g) = self.games.get_mut(&game) {
            g.said.extend(lines.iter().map(|(_, t)| t.clone()));
            let excess = g.said.len().saturating_sub(30);
            g.said.drain(..excess);
        }
        for (ch, text) in lines {
            w.send(&match ch {
                Channel::Whisper => ServerCommand::XWhisper(game, text),
                Channel::Kibitz => ServerCommand::XKibitz(game, text),
            });
        }
    }
}
