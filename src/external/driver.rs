//! The driver: one thread per external engine that owns its process. It starts the
//! process and does the handshake, writes the protocol's lines, reads the engine's
//! (through a reader thread; standard error goes to the log), turns them into
//! `SearchEvent`s, and answers every fault (crash, hang, garbage, an illegal or
//! missing move) with a legal move and a restart, as `external`'s header says.

use super::protocol::{self, Handshake, Identity, Protocol};
use super::{ExternalConfig, GoCmd, HealthBoard, Msg, Shared, MAX_LINE, NEXT_DRIVER, STOP_MARGIN};
use crate::chess::{Board, Move};
use crate::engine::{
    EngineHandle, SearchConfig, SearchEvent, SearchInfo, SearchLimits, SearchResult,
};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tracing::{debug, error, info, warn};

/// How long an idle driver waits for the move of a search it gave up.
const STALE_WAIT: Duration = Duration::from_secs(2);
/// How long a restarted engine may take to answer its one-ply probe search.
const PROBE_WAIT: Duration = Duration::from_secs(10);
/// How long a restarted engine waits after crashes in a row (doubling, capped).
const RESTART_WAIT_MAX: Duration = Duration::from_secs(30);

/// A running engine process.
struct Proc {
    child: Child,
    stdin: ChildStdin,
    generation: u64,
}

/// The search the driver is running.
struct Running {
    go: Box<GoCmd>,
    started: Instant,
    last: Option<SearchInfo>,
    /// `stop` was sent at this instant (the engine owes its move within a margin).
    stop_sent: Option<Instant>,
    /// A ponder search not yet confirmed.
    pondering: bool,
    /// Sent to the engine (a search waiting for the handshake is not).
    sent: bool,
}

pub(super) struct Driver {
    cfg: ExternalConfig,
    shared: Arc<Shared>,
    tx: mpsc::Sender<Msg>,
    proc: Option<Proc>,
    generation: u64,
    /// The handshake: when it started, and whether it is over.
    started_at: Instant,
    ready: bool,
    identity: Identity,
    running: Option<Running>,
    /// When the next start may be tried (after crashes in a row).
    next_start: Instant,
    /// The built-in engine, for a quick move when the engine fails us.
    spare: Option<EngineHandle>,
    /// xboard: the engine is in analysis mode.
    analysing: bool,
    /// A probe search runs (after a restart, to see the engine answer again).
    probing: bool,
    /// Best moves still to come from searches given up (a stopped probe, a
    /// ponder search the opponent's move missed).
    stale_moves: u32,
    /// Since when the driver, idle, waits for such a move.
    stale_since: Option<Instant>,
    /// When the probe search was sent.
    probe_since: Option<Instant>,
    /// This driver's entry on the health board.
    id: u64,
    board: HealthBoard,
}

impl Driver {
    pub(super) fn new(
        cfg: ExternalConfig,
        shared: Arc<Shared>,
        tx: mpsc::Sender<Msg>,
        board: HealthBoard,
    ) -> Driver {
        Driver {
            cfg,
            shared,
            tx,
            proc: None,
            generation: 0,
            started_at: Instant::now(),
            ready: false,
            identity: Identity::default(),
            running: None,
            next_start: Instant::now(),
            spare: None,
            analysing: false,
            probing: false,
            stale_moves: 0,
            stale_since: None,
            probe_since: None,
            id: NEXT_DRIVER.fetch_add(1, Ordering::SeqCst) as u64,
            board,
        }
    }

    fn publish(&self) {
        self.board.register(self.id, self.shared.health());
    }

    fn write(&mut self, line: &str) {
        let Some(p) = self.proc.as_mut() else { return };
        debug!(target: "kibitzer::engine", ">> {line}");
        if writeln!(p.stdin, "{line}")
            .and_then(|_| p.stdin.flush())
            .is_err()
        {
            debug!("the engine's input is closed");
        }
    }

    /// Starts the process and its handshake.
    fn spawn(&mut self) {
        self.kill();
        self.generation += 1;
        self.ready = false;
        self.started_at = Instant::now();
        self.identity = Identity::default();
        let mut cmd = Command::new(&self.cfg.command);
        cmd.args(&self.cfg.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(d) = &self.cfg.dir {
            cmd.current_dir(d);
        }
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                self.fault(&format!("cannot start `{}`: {e}", self.cfg.command));
                return;
            }
        };
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            self.fault("the engine's pipes are missing");
            return;
        };
        let generation = self.generation;
        let tx = self.tx.clone();
        std::thread::Builder::new()
            .name("engine-stdout".into())
            .spawn(move || read_lines(stdout, generation, tx))
            .ok();
        let name = self.cfg.command.clone();
        std::thread::Builder::new()
            .name("engine-stderr".into())
            .spawn(move || log_stderr(stderr, name))
            .ok();
        self.proc = Some(Proc {
            child,
            stdin,
            generation,
        });
        info!(command = %self.cfg.command, protocol = ?self.cfg.protocol, "starting the engine");
        match self.cfg.protocol {
            Protocol::Uci => self.write("uci"),
            Protocol::Xboard => {
                self.write("xboard");
                self.write("protover 2");
            }
        }
    }

    fn kill(&mut self) {
        if let Some(mut p) = self.proc.take() {
            let _ = writeln!(p.stdin, "quit");
            let _ = p.stdin.flush();
            // A moment to quit by itself, then the kill.
            let deadline = Instant::now() + Duration::from_millis(200);
            loop {
                match p.child.try_wait() {
                    Ok(Some(_)) => break,
                    _ if Instant::now() >= deadline => {
                        let _ = p.child.kill();
                        let _ = p.child.wait();
                        break;
                    }
                    _ => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        }
        self.ready = false;
        self.analysing = false;
        self.stale_moves = 0;
        self.stale_since = None;
        self.probe_since = None;
    }

    /// Something went wrong with the engine: logged, counted, the process started
    /// again (after a wait that grows with crashes in a row).
    fn fault(&mut self, what: &str) {
        let n = self.shared.restarts.fetch_add(1, Ordering::SeqCst) + 1;
        error!(engine = %self.cfg.command, restarts_in_a_row = n, "engine fault: {what}");
        *self
            .shared
            .last_fault
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(what.to_string());
        self.shared.healthy.store(false, Ordering::SeqCst);
        self.probing = false;
        self.publish();
        self.kill();
        let wait = Duration::from_millis(250)
            .saturating_mul(1 << n.min(8))
            .min(RESTART_WAIT_MAX);
        self.next_start = Instant::now() + if n <= 1 { Duration::ZERO } else { wait };
    }

    fn healthy(&mut self) {
        if !self.shared.healthy.swap(true, Ordering::SeqCst) {
            info!(engine = %self.identity.name, "the engine answers again");
        }
        self.shared.restarts.store(0, Ordering::SeqCst);
        self.publish();
    }

    pub(super) fn run(mut self, rx: mpsc::Receiver<Msg>) {
        self.publish();
        self.spawn();
        loop {
            let timeout = self
                .next_deadline()
                .map(|t| t.saturating_duration_since(Instant::now()));
            let msg = match timeout {
                Some(t) => match rx.recv_timeout(t) {
                    Ok(m) => Some(m),
                    Err(mpsc::RecvTimeoutError::Timeout) => None,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                },
                None => match rx.recv() {
                    Ok(m) => Some(m),
                    Err(_) => break,
                },
            };
            match msg {
                None => self.on_timer(),
                Some(Msg::Quit) => break,
                Some(m) => self.on_msg(m),
            }
            if self.running.is_none() && self.stale_moves > 0 {
                self.stale_since.get_or_insert_with(Instant::now);
            } else {
                self.stale_since = None;
            }
            self.maybe_probe();
        }
        if let Some(r) = self.running.take() {
            (r.go.sink)(&SearchEvent::Done(
                self.fallback_result(&r, "the engine was shut down"),
            ));
        }
        self.kill();
        self.board.unregister(self.id);
        self.set_searching(false);
    }

    fn next_deadline(&self) -> Option<Instant> {
        let mut t: Option<Instant> = None;
        let mut at = |x: Instant| t = Some(t.map_or(x, |y: Instant| y.min(x)));
        if !self.ready {
            at(self.started_at + self.cfg.start_timeout);
        }
        if self.proc.is_none() {
            at(self.next_start);
        }
        if let Some(r) = &self.running {
            if let Some(s) = r.stop_sent {
                at(s + STOP_MARGIN);
            }
        }
        if let Some(s) = self.stale_since {
            at(s + STALE_WAIT);
        }
        if let (true, Some(s)) = (self.probing, self.probe_since) {
            at(s + PROBE_WAIT);
        }
        t
    }

    fn on_timer(&mut self) {
        let now = Instant::now();
        if self.stale_since.is_some_and(|s| now >= s + STALE_WAIT) {
            self.fault("the engine did not answer `stop` of a search it was told to give up");
            return;
        }
        if self.probing && self.probe_since.is_some_and(|s| now >= s + PROBE_WAIT) {
            self.fault("the engine did not answer a one-ply search");
            return;
        }
        if self.proc.is_none() && now >= self.next_start {
            self.spawn();
            return;
        }
        if !self.ready && now >= self.started_at + self.cfg.start_timeout {
            let waited = self.cfg.start_timeout.as_secs_f64();
            if let Some(r) = self.running.take() {
                if !r.pondering {
                    self.finish_with_fallback(r, &format!("no handshake within {waited:.1} s"));
                }
            }
            self.fault(&format!(
                "the engine did not finish its handshake within {waited:.1} s"
            ));
            return;
        }
        if let Some(r) = &self.running {
            if r.stop_sent.is_some_and(|s| now >= s + STOP_MARGIN) {
                let r = self.running.take().expect("checked");
                if r.pondering || r.go.limits.infinite {
                    self.finish(r, None, "");
                    return;
                }
                self.finish_with_fallback(r, "no move within 150 ms of `stop`");
                self.fault("the engine did not answer `stop`");
            }
        }
    }

    fn set_searching(&self, on: bool) {
        *self
            .shared
            .searching
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = on;
        self.shared.cv.notify_all();
    }

    fn on_msg(&mut self, m: Msg) {
        match m {
            Msg::Go(g) => {
                if let Some(r) = self.running.take() {
                    // A search still running in the engine (a ponder search the
                    // opponent's move missed, above all): stopped, and the move it
                    // answers with is not taken for the new search's.
                    if r.sent {
                        match self.cfg.protocol {
                            Protocol::Uci => {
                                if r.stop_sent.is_none() {
                                    self.write("stop");
                                }
                                self.stale_moves += 1;
                            }
                            Protocol::Xboard if self.analysing => {
                                self.write("exit");
                                self.analysing = false;
                            }
                            Protocol::Xboard => {
                                if r.stop_sent.is_none() {
                                    self.write("?");
                                }
                                self.stale_moves += 1;
                            }
                        }
                    }
                    self.finish(r, None, "");
                }
                if self.probing {
                    // A game comes before the probe; its answer is ignored.
                    self.probing = false;
                    match self.cfg.protocol {
                        Protocol::Uci => {
                            self.write("stop");
                            self.stale_moves += 1;
                        }
                        Protocol::Xboard => {
                            self.write("?");
                            self.stale_moves += 1;
                        }
                    }
                }
                self.running = Some(Running {
                    pondering: g.limits.ponder,
                    go: g,
                    started: Instant::now(),
                    last: None,
                    stop_sent: None,
                    sent: false,
                });
                if self.ready {
                    self.send_go();
                }
            }
            Msg::Stop => {
                let Some(r) = self.running.as_mut() else {
                    self.set_searching(false);
                    return;
                };
                if r.stop_sent.is_none() {
                    r.stop_sent = Some(Instant::now());
                    if !r.sent {
                        // Never sent (the handshake is not over): no move from the
                        // engine; ours, at once.
                        let r = self.running.take().expect("checked");
                        if r.pondering {
                            self.finish(r, None, "");
                        } else {
                            self.finish_with_fallback(r, "the engine was not ready in time");
                        }
                        return;
                    }
                    match self.cfg.protocol {
                        Protocol::Uci => self.write("stop"),
                        Protocol::Xboard if self.analysing => {
                            self.write("exit");
                            self.analysing = false;
                            let r = self.running.take().expect("checked");
                            self.finish(r, None, "");
                        }
                        Protocol::Xboard if r.pondering => {
                            let r = self.running.take().expect("checked");
                            self.finish(r, None, "");
                        }
                        Protocol::Xboard => self.write("?"),
                    }
                }
            }
            Msg::PonderHit => {
                let Some(r) = self.running.as_mut() else {
                    return;
                };
                if r.pondering {
                    r.pondering = false;
                    r.go.limits.ponder = false;
                    match self.cfg.protocol {
                        Protocol::Uci if r.sent => self.write("ponderhit"),
                        // xboard ponders by itself (`hard`): the search starts now.
                        _ => {
                            if self.ready {
                                self.send_go();
                            }
                        }
                    }
                }
            }
            Msg::NewGame => {
                if self.ready {
                    match self.cfg.protocol {
                        Protocol::Uci => {
                            self.write("ucinewgame");
                            self.write("isready");
                        }
                        Protocol::Xboard => self.write("new"),
                    }
                }
            }
            Msg::Quit => {}
            Msg::Line(gen, line) => {
                if self.proc.as_ref().is_some_and(|p| p.generation == gen) {
                    self.on_line(&line);
                }
            }
            Msg::Eof(gen, why) => {
                if self.proc.as_ref().is_some_and(|p| p.generation == gen) {
                    if let Some(r) = self.running.take() {
                        if r.pondering || r.go.limits.infinite {
                            self.finish(r, None, "");
                        } else {
                            self.finish_with_fallback(r, &format!("the engine ended ({why})"));
                        }
                    }
                    self.fault(&format!("the engine ended: {why}"));
                }
            }
        }
    }

    /// The handshake is over: options set, a waiting search sent.
    fn on_ready(&mut self) {
        self.ready = true;
        *self
            .shared
            .identity
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = Some(self.identity.clone());
        info!(
            engine = %self.identity.name,
            author = %self.identity.author,
            ms = self.started_at.elapsed().as_millis() as u64,
            "the engine is ready"
        );
        let opts = self.cfg.options.clone();
        match self.cfg.protocol {
            Protocol::Uci => {
                for (k, v) in &opts {
                    if self.identity.option(k).is_none() {
                        warn!(engine = %self.identity.name, "the engine has no option {k}: not set");
                        continue;
                    }
                    self.write(&protocol::uci_setoption(k, v));
                }
                if self.identity.option("Ponder").is_some() {
                    let p = if self.cfg.ponder { "true" } else { "false" };
                    self.write(&protocol::uci_setoption("Ponder", p));
                }
                self.write("ucinewgame");
                self.write("isready");
            }
            Protocol::Xboard => {
                for (k, v) in &opts {
                    self.write(&protocol::xboard_option(k, v));
                }
                self.write("new");
                self.write("post");
                self.write(if self.cfg.ponder { "hard" } else { "easy" });
            }
        }
        if self.running.is_some() {
            self.send_go();
        }
    }

    /// After a fault, once the engine is started again and idle: a one-ply search
    /// shows whether it answers (the accounts take no game until it does). Asked
    /// after every message, so an engine whose game ended before it answered is
    /// probed too.
    fn maybe_probe(&mut self) {
        if self.probing
            || !self.ready
            || self.proc.is_none()
            || self.running.is_some()
            || self.stale_moves > 0
            || self.shared.healthy.load(Ordering::SeqCst)
        {
            return;
        }
        self.probing = true;
        self.probe_since = Some(Instant::now());
        {
            match self.cfg.protocol {
                Protocol::Uci => {
                    self.write("position startpos");
                    self.write("go depth 1");
                }
                Protocol::Xboard => {
                    self.write("new");
                    self.write("sd 1");
                    self.write("go");
                }
            }
        }
    }

    fn send_go(&mut self) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        if r.pondering && self.cfg.protocol == Protocol::Xboard {
            // xboard ponders on its own (`hard`); the search starts at ponderhit.
            return;
        }
        r.sent = true;
        r.started = Instant::now();
        let (start, moves, limits, overhead) = (
            r.go.start.clone(),
            r.go.moves.clone(),
            r.go.limits.clone(),
            r.go.overhead,
        );
        let root = r.go.root.clone();
        match self.cfg.protocol {
            Protocol::Uci => {
                self.write(&protocol::uci_position(&start, &moves));
                self.write(&protocol::uci_go(&limits, overhead, root.side_to_move()));
            }
            Protocol::Xboard => {
                // From the start: `new` and the moves; from a set-up position
                // `setboard`, where the engine has it.
                self.write("new");
                self.write("post");
                self.write(if self.cfg.ponder { "hard" } else { "easy" });
                self.write("force");
                if start.to_fen() != Board::startpos().to_fen() {
                    if self.identity.feature("setboard") == Some("1") {
                        self.write(&format!("setboard {}", start.to_fen()));
                    } else {
                        let r = self.running.take().expect("running");
                        self.finish_with_fallback(
                            r,
                            "the engine cannot set up a position (no setboard)",
                        );
                        return;
                    }
                }
                let usermove = self.identity.feature("usermove") == Some("1");
                for m in &moves {
                    let t = m.to_uci();
                    self.write(&if usermove { format!("usermove {t}") } else { t });
                }
                if limits.infinite {
                    self.write("analyze");
                    self.analysing = true;
                    return;
                }
                if let Some(c) = &limits.clock {
                    let cs = (c.time_left.saturating_sub(overhead).as_millis() / 10).max(1);
                    let inc = c.increment.as_secs();
                    let mins = (c.time_left.as_secs() / 60).max(1);
                    self.write(&format!("level 0 {mins} {inc}"));
                    let otim = c.opponent_left.map_or(cs, |t| (t.as_millis() / 10).max(1));
                    self.write(&format!("time {cs}"));
                    self.write(&format!("otim {otim}"));
                } else if let Some(t) = limits.movetime {
                    self.write(&format!("st {}", t.as_secs().max(1)));
                }
                if let Some(d) = limits.depth {
                    self.write(&format!("sd {d}"));
                }
                self.write("go");
            }
        }
    }

    fn on_line(&mut self, line: &str) {
        debug!(target: "kibitzer::engine", "<< {line}");
        if !self.ready {
            let h = match self.cfg.protocol {
                Protocol::Uci => protocol::uci_handshake(line),
                Protocol::Xboard => protocol::xboard_handshake(line),
            };
            match h {
                Some(Handshake::Name(n)) => self.identity.name = n,
                Some(Handshake::Author(a)) => self.identity.author = a,
                Some(Handshake::Option(o)) => self.identity.options.push(o),
                Some(Handshake::Features(f)) => {
                    if let Some((_, n)) = f.iter().find(|(k, _)| k == "myname") {
                        self.identity.name = n.clone();
                    }
                    for (k, _) in &f {
                        if k != "option" && k != "myname" && k != "done" {
                            self.write(&format!("accepted {k}"));
                        }
                    }
                    self.identity.options.extend(protocol::xboard_options(&f));
                    self.identity.features.extend(f);
                }
                Some(Handshake::Done) => self.on_ready(),
                Some(Handshake::Ready) | None => {}
            }
            return;
        }
        if self.stale_moves > 0 {
            let is_move = match self.cfg.protocol {
                Protocol::Uci => protocol::uci_bestmove(line).is_some(),
                Protocol::Xboard => protocol::xboard_move(line).is_some(),
            };
            if is_move {
                self.stale_moves -= 1;
            }
            // Its thinking is about another position: not the new search's.
            return;
        }
        if self.probing && self.running.is_none() {
            let answered = match self.cfg.protocol {
                Protocol::Uci => protocol::uci_bestmove(line).map(|(m, _)| m),
                Protocol::Xboard => protocol::xboard_move(line),
            };
            if let Some(m) = answered {
                self.probing = false;
                let start = Board::startpos();
                if start
                    .parse_uci(&m)
                    .or_else(|_| start.parse_move(&m))
                    .is_ok()
                {
                    self.healthy();
                } else {
                    self.fault(&format!("the probe's move `{}` is not legal", cut(&m, 40)));
                }
                if self.cfg.protocol == Protocol::Xboard {
                    self.write("new");
                }
            }
            return;
        }
        let Some(r) = self.running.as_mut() else {
            return;
        };
        if !r.sent {
            return;
        }
        match self.cfg.protocol {
            Protocol::Uci => {
                if let Some(info) = protocol::uci_info(line, &r.go.root) {
                    if info.multipv == 1 {
                        let ev = match info.bound {
                            crate::engine::Bound::Lower => SearchEvent::FailHigh(info.clone()),
                            crate::engine::Bound::Upper => SearchEvent::FailLow(info.clone()),
                            crate::engine::Bound::Exact => SearchEvent::Iteration(info.clone()),
                        };
                        (r.go.sink)(&ev);
                        if !info.pv.is_empty() {
                            r.last = Some(info);
                        }
                    }
                } else if let Some((best, ponder)) = protocol::uci_bestmove(line) {
                    let r = self.running.take().expect("checked");
                    self.on_bestmove(r, &best, ponder.as_deref());
                }
            }
            Protocol::Xboard => {
                if let Some(mv) = protocol::xboard_move(line) {
                    let r = self.running.take().expect("checked");
                    self.on_bestmove(r, &mv, None);
                } else if let Some(info) = protocol::xboard_thinking(line, &r.go.root) {
                    (r.go.sink)(&SearchEvent::Iteration(info.clone()));
                    if !info.pv.is_empty() {
                        r.last = Some(info);
                    }
                } else if line.starts_with("resign")
                    || line.starts_with("1-0")
                    || line.starts_with("0-1")
                    || line.starts_with("1/2-1/2")
                {
                    // The engine's own verdicts are not ours: the policy decides.
                    debug!("the engine says: {line}");
                }
            }
        }
    }

    fn on_bestmove(&mut self, r: Running, best: &str, ponder: Option<&str>) {
        let root = &r.go.root;
        let mv = root.parse_uci(best).or_else(|_| root.parse_move(best));
        match mv {
            Ok(m) if root.is_legal(m) => {
                self.healthy();
                let after = {
                    let mut b = root.clone();
                    b.make_move(m);
                    b
                };
                let ponder = ponder.and_then(|p| after.parse_uci(p).ok());
                self.finish(r, Some((m, ponder)), "");
            }
            _ if r.pondering || r.go.limits.infinite || !root.has_legal_move() => {
                self.finish(r, None, "");
            }
            _ => {
                let why = format!("the engine's move `{}` is not legal here", cut(best, 40));
                self.finish_with_fallback(r, &why);
                self.fault(&why);
            }
        }
    }

    /// Ends a search with the engine's move (or none).
    fn finish(&mut self, r: Running, best: Option<(Move, Option<Move>)>, error: &str) {
        let last = r.last.clone();
        let (best, ponder) = best.unwrap_or((Move::NULL, None));
        let pv = match &last {
            Some(i) if i.pv.first() == Some(&best) => i.pv.clone(),
            _ if !best.is_null() => vec![best],
            _ => Vec::new(),
        };
        let ponder = ponder.or_else(|| pv.get(1).copied());
        let result = SearchResult {
            best,
            ponder,
            score: last.as_ref().map_or(0, |i| i.score),
            depth: last.as_ref().map_or(0, |i| i.depth),
            nodes: last.as_ref().map_or(0, |i| i.nodes),
            time: r.started.elapsed(),
            pv,
            root_side: r.go.root.side_to_move(),
            error: (!error.is_empty()).then(|| error.to_string()),
        };
        (r.go.sink)(&SearchEvent::Done(result));
        self.set_searching(false);
    }

    /// Ends a search the engine failed: the best legal move it reported, else a
    /// quick move of the built-in engine. Logged; not an error of the game.
    fn finish_with_fallback(&mut self, r: Running, why: &str) {
        let root = r.go.root.clone();
        let from_pv = r
            .last
            .as_ref()
            .and_then(|i| i.pv.first().copied())
            .filter(|&m| root.is_legal(m));
        let (mv, how) = match from_pv {
            Some(m) => (Some(m), "the engine's last reported move"),
            None => (
                self.quick_move(&root),
                "a quick move of the built-in engine",
            ),
        };
        warn!(engine = %self.cfg.command, "{why}: playing {how}");
        self.finish(r, mv.map(|m| (m, None)), "");
    }

    fn fallback_result(&mut self, r: &Running, why: &str) -> SearchResult {
        let root = &r.go.root;
        let best = r
            .last
            .as_ref()
            .and_then(|i| i.pv.first().copied())
            .filter(|&m| root.is_legal(m))
            .unwrap_or(Move::NULL);
        SearchResult {
            best,
            ponder: None,
            score: r.last.as_ref().map_or(0, |i| i.score),
            depth: 0,
            nodes: 0,
            time: r.started.elapsed(),
            pv: if best.is_null() {
                Vec::new()
            } else {
                vec![best]
            },
            root_side: root.side_to_move(),
            error: Some(why.to_string()),
        }
    }

    /// A move of the built-in engine in a few milliseconds.
    fn quick_move(&mut self, root: &Board) -> Option<Move> {
        if !root.has_legal_move() {
            return None;
        }
        let e = self
            .spare
            .get_or_insert_with(|| EngineHandle::new(1 << 20, 1));
        let r = e.search_sync(root, SearchLimits::nodes(20_000), SearchConfig::default());
        Some(r.best).filter(|m| !m.is_null() && root.is_legal(*m))
    }
}

fn cut(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Reads the engine's lines (each cut at `MAX_LINE`) into the driver's channel.
fn read_lines(stdout: std::process::ChildStdout, generation: u64, tx: mpsc::Sender<Msg>) {
    let mut r = BufReader::new(stdout);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // Read a line, but never hold more than MAX_LINE bytes of it.
        let mut too_long = false;
        loop {
            let chunk = match r.fill_buf() {
                Ok(c) => c,
                Err(e) => {
                    let _ = tx.send(Msg::Eof(generation, e.to_string()));
                    return;
                }
            };
            if chunk.is_empty() {
                if !buf.is_empty() {
                    let _ = tx.send(Msg::Line(
                        generation,
                        String::from_utf8_lossy(&buf).into_owned(),
                    ));
                }
                let _ = tx.send(Msg::Eof(generation, "end of output".into()));
                return;
            }
            match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => {
                    if buf.len() + i <= MAX_LINE {
                        buf.extend_from_slice(&chunk[..i]);
                    } else {
                        too_long = true;
                    }
                    r.consume(i + 1);
                    break;
                }
                None => {
                    let n = chunk.len();
                    if buf.len() + n <= MAX_LINE {
                        buf.extend_from_slice(chunk);
                    } else {
                        too_long = true;
                    }
                    r.consume(n);
                }
            }
        }
        if too_long {
            warn!("the engine wrote a line longer than {MAX_LINE} bytes: dropped");
            continue;
        }
        let line = String::from_utf8_lossy(&buf)
            .trim_end_matches('\r')
            .to_string();
        if tx.send(Msg::Line(generation, line)).is_err() {
            return;
        }
    }
}

/// The engine's standard error, to the log (each line cut).
fn log_stderr(stderr: std::process::ChildStderr, name: String) {
    let mut r = BufReader::new(stderr.take(u64::MAX));
    let mut line = String::new();
    loop {
        line.clear();
        match r.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let t: String = line.trim_end().chars().take(MAX_LINE).collect();
                if !t.is_empty() {
                    warn!(engine = %name, "stderr: {t}");
                }
            }
        }
    }
}
