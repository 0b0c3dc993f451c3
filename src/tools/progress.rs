//! A one-line progress bar for long console commands (`annotate`, `test`): drawn on
//! standard error, only when that is a terminal and the session is interactive, so
//! pipes, logs and tests never see it. It owns nothing else.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Width of the bar itself, in characters.
const WIDTH: usize = 30;

/// A progress bar over `total` steps.
pub struct Progress {
    label: String,
    total: u64,
    done: u64,
    enabled: bool,
    start: Instant,
    last_draw: Option<Instant>,
}

impl Progress {
    /// A bar that draws only when `enabled`.
    pub fn new(label: &str, total: u64, enabled: bool) -> Progress {
        Progress {
            label: label.to_string(),
            total,
            done: 0,
            enabled,
            start: Instant::now(),
            last_draw: None,
        }
    }

    /// A bar that draws when `interactive` and standard error is a terminal.
    pub fn on_terminal(label: &str, total: u64, interactive: bool) -> Progress {
        Progress::new(label, total, interactive && std::io::stderr().is_terminal())
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Steps done so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// Sets the steps done and redraws (at most ten times a second, always at the end).
    pub fn set(&mut self, done: u64) {
        self.done = done.min(self.total);
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let due = self
            .last_draw
            .is_none_or(|t| now.duration_since(t) >= Duration::from_millis(100));
        if due || self.done == self.total {
            self.last_draw = Some(now);
            let mut err = std::io::stderr();
            let _ = write!(err, "\r{}\x1b[K", self.line());
            let _ = err.flush();
        }
    }

    /// One more step done.
    pub fn inc(&mut self) {
        self.set(self.done + 1);
    }

    /// The bar as text: `annotate [#########.....] 12/40 0:07 eta 0:16`.
    pub fn line(&self) -> String {
        let total = self.total.max(1);
        let filled = (self.done as usize * WIDTH) / total as usize;
        let elapsed = self.start.elapsed();
        let eta = if self.done > 0 && self.done < self.total {
            let per = elapsed.as_secs_f64() / self.done as f64;
            format!(
                " eta {}",
                clock(Duration::from_secs_f64(
                    per * (self.total - self.done) as f64
                ))
            )
        } else {
            String::new()
        };
        format!(
            "{} [{}{}] {}/{} {}{}",
            self.label,
            "#".repeat(filled),
            ".".repeat(WIDTH - filled),
            self.done,
            self.total,
            clock(elapsed),
            eta
        )
    }

    /// Clears the bar's line for a moment (before other output; the next step draws
    /// it again).
    pub fn clear_line(&mut self) {
        if self.enabled && self.last_draw.is_some() {
            let mut err = std::io::stderr();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            self.last_draw = None;
        }
    }

    /// Clears the bar's line.
    pub fn finish(&mut self) {
        if self.enabled && self.last_draw.is_some() {
            let mut err = std::io::stderr();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
        self.enabled = false;
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_steps() {
        let mut p = Progress::new("test", 4, false);
        assert!(p.line().contains("[......"));
        p.inc();
        p.inc();
        assert!(p
            .line()
            .contains(&format!("[{}{}]", "#".repeat(15), ".".repeat(15))));
        assert!(p.line().contains("2/4"));
        p.set(10);
        assert_eq!(p.done(), 4);
    }
}
