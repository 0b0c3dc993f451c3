//! A game's records: the PGN text of the game so far (with clock and evaluation
//! comments), the in-progress record rewritten after every move on a thread of its
//! own, the retiring of an earlier game's record the server dropped, and the PGN
//! date.

use super::*;

/// Writes a game's in-progress record on a thread of its own, in order, only the
/// newest snapshot when several wait; finished (joined) before the game's final
/// record is written, so a late snapshot can never follow it.
pub(super) struct Recorder {
    tx: std::sync::mpsc::Sender<String>,
    thread: std::thread::JoinHandle<()>,
}

impl Recorder {
    pub(super) fn start(
        archive: crate::bot::archive::Archive,
        white: String,
        black: String,
    ) -> Recorder {
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let thread = std::thread::spawn(move || {
            while let Ok(mut text) = rx.recv() {
                while let Ok(newer) = rx.try_recv() {
                    text = newer;
                }
                if let Err(e) = archive.write_in_progress(&white, &black, &text) {
                    warn!("cannot write the in-progress record: {e}");
                }
            }
        });
        Recorder { tx, thread }
    }

    /// Waits (off the async threads) for the last snapshot to be written.
    pub(super) async fn finish(self) {
        drop(self.tx);
        let t = self.thread;
        let _ = tokio::task::spawn_blocking(move || t.join()).await;
    }
}

/// What we thought of one of our moves: the search's score (side to move's view)
/// and depth, or that it came from the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MoveEval {
    pub score: i32,
    pub depth: i32,
    pub book: bool,
}

impl MoveEval {
    /// The PGN comment: `[%eval 0.23] d12` (White's view, pawns), a mate as
    /// `[%eval #5]` / `[%eval #-3]` (the lichess and ChessBase convention), a book
    /// move as `book`.
    pub fn comment(&self, mover: Color) -> String {
        if self.book {
            return "book".into();
        }
        let white = if mover == Color::White {
            self.score
        } else {
            -self.score
        };
        match crate::engine::mate_in(white) {
            Some(n) => format!("[%eval #{n}] d{}", self.depth),
            None => format!("[%eval {:.2}] d{}", white as f64 / 100.0, self.depth),
        }
    }

    /// Reads back a comment `comment` wrote (`None`: not one of ours).
    pub fn parse(comment: &str, mover: Color) -> Option<MoveEval> {
        let c = comment.trim();
        if c.split_whitespace().any(|w| w == "book") {
            return Some(MoveEval {
                score: 0,
                depth: 0,
                book: true,
            });
        }
        let rest = &c[c.find("[%eval ")? + 7..];
        let (value, after) = rest.split_once(']')?;
        let depth = after
            .split_whitespace()
            .find_map(|w| w.strip_prefix('d')?.parse().ok())
            .unwrap_or(0);
        let white = match value.trim().strip_prefix('#') {
            Some(n) => {
                let n: i32 = n.parse().ok()?;
                let plies = if n > 0 { 2 * n - 1 } else { -2 * n };
                let m = crate::engine::MATE - plies;
                if n > 0 {
                    m
                } else {
                    -m
                }
            }
            None => (value.trim().parse::<f64>().ok()? * 100.0).round() as i32,
        };
        Some(MoveEval {
            score: if mover == Color::White { white } else { -white },
            depth,
            book: false,
        })
    }
}

/// The evaluations of a resumed game's moves, read from its record in progress
/// (what the game's earlier task wrote), by ply with the move.
pub(super) async fn restore_evals(
    archive: crate::bot::archive::Archive,
    setup: &GameSetup,
) -> Vec<(Move, Option<MoveEval>)> {
    let path = archive.in_progress_path(&setup.white, &setup.black);
    let read = tokio::task::spawn_blocking(move || std::fs::read_to_string(path)).await;
    let Ok(Ok(text)) = read else {
        return Vec::new();
    };
    let Some(Ok(g)) = crate::chess::pgn::read_all(&text).into_iter().next() else {
        return Vec::new();
    };
    let mut b = g.start.clone();
    let mut out = Vec::new();
    for m in &g.moves {
        let mover = b.side_to_move();
        let e = m.comment.as_deref().and_then(|c| MoveEval::parse(c, mover));
        out.push((m.mv, e.filter(|_| mover == setup.our_color)));
        b.make_move(m.mv);
    }
    out
}

fn fmt_clk(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn pgn_date() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Civil date from days since 1970-01-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{y:04}.{m:02}.{d:02}")
}

impl Task {
    /// Replaces the in-progress record when the game has grown (off the async
    /// threads), so a game cut short by a crash or a lost server keeps a record.
    pub(super) fn save_in_progress(&mut self) {
        let ply = self.ply();
        if self.saved_ply == Some(ply) || self.archive.pgn.is_none() {
            return;
        }
        self.saved_ply = Some(ply);
        let text = self.pgn(&End {
            reason: "in progress".into(),
            result: "*".into(),
        });
        if self.recorder.is_none() {
            self.recorder = Some(Recorder::start(
                self.archive.clone(),
                self.s.white.clone(),
                self.s.black.clone(),
            ));
        }
        if let Some(r) = &self.recorder {
            let _ = r.tx.send(text);
        }
    }

    pub(super) fn pgn(&self, end: &End) -> String {
        let mut g = crate::chess::pgn::PgnGame::new(self.start.clone());
        let rated = if self.s.rated { "rated" } else { "unrated" };
        g.set_tag(
            "Event",
            &format!("{} {rated} {} game", self.s.server, self.s.kind),
        );
        g.set_tag("Site", &self.s.site);
        g.set_tag("Date", &pgn_date());
        g.set_tag("Round", "-");
        g.set_tag("White", &self.s.white);
        g.set_tag("Black", &self.s.black);
        if let Some(r) = self.s.white_rating {
            g.set_tag("WhiteElo", &r.to_string());
        }
        if let Some(r) = self.s.black_rating {
            g.set_tag("BlackElo", &r.to_string());
        }
        g.set_tag(
            "TimeControl",
            &format!("{}+{}", self.s.initial_secs, self.s.increment),
        );
        g.set_tag(
            "Termination",
            crate::bot::archive::termination(&end.reason, &end.result),
        );
        g.set_tag("TerminationDetails", &end.reason);
        let mut b = self.start.clone();
        for (i, &m) in self.moves.iter().enumerate() {
            g.push_move(&b, m);
            let mut c = Vec::new();
            if let Some(Some(ms)) = self.clk.get(i) {
                c.push(format!("[%clk {}]", fmt_clk(*ms)));
            }
            if let Some(Some(e)) = self.evals.get(i) {
                c.push(e.comment(b.side_to_move()));
            }
            if !c.is_empty() {
                if let Some(last) = g.moves.last_mut() {
                    last.comment = Some(c.join(" "));
                }
            }
            b.make_move(m);
        }
        g.result = end.result.clone();
        g.to_pgn()
    }
}

/// Moves the in-progress record of an earlier game between the players of `setup`
/// to the PGN file (see `Archive::retire_in_progress`) and into the results ledger.
pub(super) async fn retire_stale_record(archive: crate::bot::archive::Archive, setup: &GameSetup) {
    let (white, black) = (setup.white.clone(), setup.black.clone());
    let moved =
        tokio::task::spawn_blocking(move || archive.retire_in_progress(&white, &black)).await;
    let texts = match moved {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => {
            error!("cannot move the unfinished record of an earlier game to the PGN file: {e}");
            return;
        }
        Err(_) => return,
    };
    if texts.is_empty() {
        return;
    }
    info!(
        opponent = %setup.opponent,
        records = texts.len(),
        "an earlier game with this opponent never ended on the server: its record went to the PGN file unterminated"
    );
    let handle = match setup.our_color {
        Color::White => setup.white.clone(),
        Color::Black => setup.black.clone(),
    };
    let class = crate::bot::status::class_name(setup.class).to_string();
    setup.status.update(|s| {
        let mut r = (*s.results).clone();
        for t in &texts {
            r.add_record(t, &handle, &|_| class.clone());
        }
        s.results = std::sync::Arc::new(r);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_evals_are_written_and_read_back() {
        let cases = [
            (
                MoveEval {
                    score: 23,
                    depth: 12,
                    book: false,
                },
                Color::White,
                "[%eval 0.23] d12",
            ),
            (
                MoveEval {
                    score: 23,
                    depth: 12,
                    book: false,
                },
                Color::Black,
                "[%eval -0.23] d12",
            ),
            (
                MoveEval {
                    score: crate::engine::MATE - 9,
                    depth: 20,
                    book: false,
                },
                Color::White,
                "[%eval #5] d20",
            ),
            (
                MoveEval {
                    score: crate::engine::MATE - 5,
                    depth: 9,
                    book: false,
                },
                Color::Black,
                "[%eval #-3] d9",
            ),
            (
                MoveEval {
                    score: 0,
                    depth: 0,
                    book: true,
                },
                Color::White,
                "book",
            ),
        ];
        for (e, mover, text) in cases {
            assert_eq!(e.comment(mover), text);
            let back = MoveEval::parse(&format!("[%clk 0:00:59] {text}"), mover).unwrap();
            assert_eq!(back.comment(mover), text, "{text}");
        }
        assert!(MoveEval::parse("[%clk 0:01:00]", Color::White).is_none());
        assert!(MoveEval::parse("[%eval x] d3", Color::White).is_none());
    }
}
