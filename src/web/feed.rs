//! The live feed behind `/ws` and `/events`: one renderer turns each new `Status`
//! into the page's sections (at most once per interval, on the blocking pool, so the
//! runtime's workers stay free for the game tasks), and every open feed only picks
//! the sections it has not sent yet. The cost of a change is one rendering however
//! many browsers watch.

use super::page::{self, SECTIONS};
use crate::bot::history::Results;
use crate::bot::status::{unix_ms, Status};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The sections as last rendered: each with a version (bumped when its HTML
/// changes) and its HTML already encoded as a JSON string.
#[derive(Clone, Debug, Default)]
pub struct Rendered {
    pub seq: u64,
    pub board_ms: Option<u64>,
    pub sections: [(u64, Arc<str>); 5],
    /// The results ledger the results section was drawn from.
    results_of: Option<Arc<Results>>,
}

/// Renders `s`, keeping the versions (and the results drawing) of `prev` where
/// nothing changed.
pub fn render(s: &Status, prev: &Rendered) -> Rendered {
    let same_results = prev
        .results_of
        .as_ref()
        .is_some_and(|r| Arc::ptr_eq(r, &s.results));
    let mut sections: [(u64, Arc<str>); 5] = Default::default();
    for (i, (id, _)) in SECTIONS.iter().enumerate() {
        let old = &prev.sections[i];
        if *id == "results" && same_results {
            sections[i] = old.clone();
            continue;
        }
        let json: Arc<str> = serde_json::Value::String(page::section(id, s))
            .to_string()
            .into();
        sections[i] = if json == old.1 {
            old.clone()
        } else {
            (old.0 + 1, json)
        };
    }
    Rendered {
        seq: prev.seq + 1,
        board_ms: s.games.iter().map(|g| g.board_unix_ms).max(),
        sections,
        results_of: Some(Arc::clone(&s.results)),
    }
}

/// Starts the renderer; it ends when the status sender goes away.
pub fn spawn_renderer(
    mut status: watch::Receiver<Status>,
    min_interval: Duration,
) -> (watch::Receiver<Arc<Rendered>>, tokio::task::JoinHandle<()>) {
    let first = render(&status.borrow_and_update(), &Rendered::default());
    let (tx, rx) = watch::channel(Arc::new(first));
    let task = tokio::spawn(async move {
        let mut last = Instant::now();
        loop {
            tokio::time::sleep_until((last + min_interval).into()).await;
            if status.changed().await.is_err() {
                return;
            }
            let s = status.borrow_and_update().clone();
            let prev = Arc::clone(&tx.borrow());
            let Ok(r) = tokio::task::spawn_blocking(move || render(&s, &prev)).await else {
                return;
            };
            last = Instant::now();
            if tx.send(Arc::new(r)).is_err() {
                // No server holds a receiver any more.
                return;
            }
        }
    });
    (rx, task)
}

/// What one feed has sent.
#[derive(Default)]
pub struct Cursor {
    sent: [u64; 5],
}

impl Cursor {
    /// The event for `r`: the sections this feed has not sent in this version, a
    /// sequence number, the newest board's time (the page measures its own update
    /// latency from it) and the time sent; `None` when nothing is new.
    pub fn event(&mut self, r: &Rendered) -> Option<String> {
        let mut out = format!(
            "{{\"seq\":{},\"sent_ms\":{},\"board_ms\":{}",
            r.seq,
            unix_ms(),
            r.board_ms.map_or("null".to_string(), |b| b.to_string())
        );
        let mut any = false;
        for (i, (id, _)) in SECTIONS.iter().enumerate() {
            let (version, json) = &r.sections[i];
            if self.sent[i] != *version {
                out.push_str(&format!(",\"{id}\":{json}"));
                self.sent[i] = *version;
                any = true;
            }
        }
        out.push('}');
        any.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_feed_gets_only_what_changed_and_results_are_drawn_once() {
        let mut s = Status::default();
        let r1 = render(&s, &Rendered::default());
        let mut c = Cursor::default();
        let e: serde_json::Value = serde_json::from_str(&c.event(&r1).unwrap()).unwrap();
        for (id, _) in SECTIONS {
            assert!(e[id].is_string(), "{id}");
        }
        assert!(c.event(&r1).is_none(), "nothing new");
        let mut a = crate::bot::status::AccountStatus::new("ics", "x", 5000, "fics", "me");
        a.logged_in("me");
        s.accounts.push(a);
        let r2 = render(&s, &r1);
        let e: serde_json::Value = serde_json::from_str(&c.event(&r2).unwrap()).unwrap();
        assert!(e["accounts"].as_str().unwrap().contains(">connected<"));
        assert!(e.get("results").is_none() && e.get("engine").is_none());
        assert!(Arc::ptr_eq(&r1.sections[3].1, &r2.sections[3].1));
        // A feed that joins late gets everything.
        let e: serde_json::Value =
            serde_json::from_str(&Cursor::default().event(&r2).unwrap()).unwrap();
        assert!(e["results"].is_string() && e["seq"] == 2);
    }
}
