//! Both players' clocks, read from the injectable `Clock`: time left per side, the
//! running side's elapsed time, increments and period ends of the time control.

use crate::chess::Color;
use crate::engine::time::Clock;
use crate::options::TimeControl;
use std::sync::Arc;
use std::time::Duration;

/// The two clocks of one game.
#[derive(Clone)]
pub struct Clocks {
    clock: Arc<dyn Clock>,
    /// Time left of each side when its current turn started (or now, off turn).
    left: [Duration; 2],
    /// Moves each side has made since the clocks were reset.
    moves: [u32; 2],
    /// The side whose clock runs, and since when.
    running: Option<(Color, Duration)>,
    tc: TimeControl,
}

impl Clocks {
    pub fn new(clock: Arc<dyn Clock>, tc: TimeControl) -> Clocks {
        Clocks {
            clock,
            left: [tc.base; 2],
            moves: [0; 2],
            running: None,
            tc,
        }
    }

    pub fn time_control(&self) -> TimeControl {
        self.tc
    }

    /// A new time control; both clocks are reset to its first period.
    pub fn reset(&mut self, tc: TimeControl) {
        self.tc = tc;
        self.left = [tc.base; 2];
        self.moves = [0; 2];
        if let Some((c, _)) = self.running {
            self.running = Some((c, self.clock.now()));
        }
    }

    /// Changes the time control without touching the time left.
    pub fn set_time_control(&mut self, tc: TimeControl) {
        self.tc = tc;
    }

    /// Starts (or restarts) `side`'s clock now.
    pub fn start(&mut self, side: Color) {
        self.stop();
        self.running = Some((side, self.clock.now()));
    }

    /// Stops the running clock, charging the time used.
    pub fn stop(&mut self) {
        if let Some((c, since)) = self.running.take() {
            let used = self.clock.now().saturating_sub(since);
            self.left[c.index()] = self.left[c.index()].saturating_sub(used);
        }
    }

    pub fn running(&self) -> Option<Color> {
        self.running.map(|(c, _)| c)
    }

    /// Time left of `side`, counting the running turn.
    pub fn left(&self, side: Color) -> Duration {
        let base = self.left[side.index()];
        match self.running {
            Some((c, since)) if c == side => {
                base.saturating_sub(self.clock.now().saturating_sub(since))
            }
            _ => base,
        }
    }

    /// Time the running side has used on this turn.
    pub fn elapsed(&self) -> Duration {
        self.running.map_or(Duration::ZERO, |(_, since)| {
            self.clock.now().saturating_sub(since)
        })
    }

    /// Sets the time left of `side` (xboard `time`/`otim`, UCI `wtime`/`btime`,
    /// console `clock`); a running turn restarts from now.
    pub fn set_left(&mut self, side: Color, left: Duration) {
        self.left[side.index()] = left;
        if let Some((c, _)) = self.running {
            if c == side {
                self.running = Some((c, self.clock.now()));
            }
        }
    }

    /// Moves `side` has made in this game (since the clocks were reset).
    pub fn moves_made(&self, side: Color) -> u32 {
        self.moves[side.index()]
    }

    /// Moves `side` must still make before the next time control, or `None` in
    /// sudden death.
    pub fn moves_to_go(&self, side: Color) -> Option<u32> {
        let mut n = self.moves[side.index()];
        for p in 0..10_000 {
            let (m, _) = self.tc.period(p);
            if m == 0 {
                return None;
            }
            if n < m {
                return Some(m - n);
            }
            n -= m;
        }
        None
    }

    /// Sets the moves `side` must still make before the first time control (console
    /// `settc` after `setboard`); nothing in sudden death.
    pub fn set_moves_to_go(&mut self, side: Color, n: u32) {
        let (m, _) = self.tc.period(0);
        if m == 0 || n == 0 {
            return;
        }
        self.moves[side.index()] = m - n.min(m);
    }

    /// `side` has moved: charges the time used, adds the increment and, at the end of
    /// a period, the next period's time; starts the other side's clock. Returns the
    /// time the move took.
    pub fn moved(&mut self, side: Color) -> Duration {
        let used = match self.running {
            Some((c, since)) if c == side => self.clock.now().saturating_sub(since),
            _ => Duration::ZERO,
        };
        let i = side.index();
        self.left[i] = self.left[i].saturating_sub(used) + self.tc.inc;
        if self.moves_to_go(side) == Some(1) {
            // This move ends a period: the next one's time is added.
            let mut n = self.moves[i] + 1;
            let mut p = 0;
            loop {
                let (m, _) = self.tc.period(p);
                if m == 0 || n <= m {
                    break;
                }
                n -= m;
                p += 1;
            }
            self.left[i] += self.tc.period(p + 1).1;
        }
        self.moves[i] += 1;
        self.running = Some((!side, self.clock.now()));
        used
    }

    /// Takes back `side`'s last move count (undo); time is not given back.
    pub fn unmoved(&mut self, side: Color) {
        let i = side.index();
        self.moves[i] = self.moves[i].saturating_sub(1);
        if self.running.is_some() {
            self.running = Some((side, self.clock.now()));
        }
    }
}
