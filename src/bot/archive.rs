//! Records: every game appended as PGN to one file once it has ended (rotated past
//! a size limit, a fixed number of old files kept); while a game is in progress, or
//! adjourned, its record lives in `in-progress/<white>-<black>.pgn`, replaced
//! crash-safely (temporary file, fsync, rename) after every move and removed when the
//! game is appended, so an adjourned and resumed game is written once and a game
//! lost with the server still has a record. One log per game of what the engine
//! thought (like Crafty's `log.nnn`, the oldest deleted past a count), and the
//! instance lock. Plain blocking file I/O: callers run it off the async threads.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Final records a write error held back, by PGN file (see `Archive::finish`).
static PENDING: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());

#[derive(Clone, Debug)]
pub struct Archive {
    pub dir: PathBuf,
    /// The PGN file (inside `dir`); `None`: no PGN.
    pub pgn: Option<PathBuf>,
    pub pgn_max_bytes: u64,
    pub pgn_keep: usize,
    pub logs: bool,
    pub logs_keep: usize,
}

impl Archive {
    pub fn from_options(o: &crate::options::Options) -> Archive {
        let dir = PathBuf::from(o.str("records.dir"));
        let pgn = match o.str("records.pgn") {
            "" => None,
            p => Some(dir.join(p)),
        };
        Archive {
            dir,
            pgn,
            pgn_max_bytes: o.int("records.pgn_max_mb") as u64 * 1024 * 1024,
            pgn_keep: o.int("records.pgn_keep") as usize,
            logs: o.bool("log"),
            logs_keep: o.int("records.logs_keep") as usize,
        }
    }

    /// Appends one game, rotating the file first when it is too big.
    pub fn append_pgn(&self, text: &str) -> std::io::Result<()> {
        let Some(path) = &self.pgn else { return Ok(()) };
        fs::create_dir_all(&self.dir)?;
        if fs::metadata(path).map(|m| m.len()).unwrap_or(0) + text.len() as u64 > self.pgn_max_bytes
        {
            rotate(path, self.pgn_keep)?;
        }
        let mut f = OpenOptions::new().create(true).append(true).open(path)?;
        let before = f.metadata()?.len();
        if let Err(e) = f.write_all(text.as_bytes()).and_then(|_| f.flush()) {
            // A full disk took part of the record: cut it off again, so the file
            // holds whole records only and the retry does not follow a fragment.
            let _ = f.set_len(before);
            return Err(e);
        }
        Ok(())
    }

    /// Writes the final records a full disk held back (oldest first); stops at the
    /// first that still cannot be written. Returns how many were written.
    pub fn flush_pending(&self) -> std::io::Result<usize> {
        let Some(path) = &self.pgn else { return Ok(0) };
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        let mut n = 0;
        while let Some(i) = pending.iter().position(|(p, _)| p == path) {
            self.append_pgn(&pending[i].1)?;
            pending.remove(i);
            n += 1;
        }
        if n > 0 {
            tracing::info!("{n} game record(s) held back by a write error now written");
        }
        Ok(n)
    }

    /// Final records waiting for room on the disk (all archives of the process).
    pub fn pending() -> usize {
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Where the record of a game between `white` and `black` lives until it ends.
    pub fn in_progress_path(&self, white: &str, black: &str) -> PathBuf {
        let clean = |s: &str| -> String {
            s.chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .take(40)
                .collect::<String>()
                .to_ascii_lowercase()
        };
        self.dir
            .join("in-progress")
            .join(format!("{}-{}.pgn", clean(white), clean(black)))
    }

    /// Replaces the in-progress record of a game (temporary file, fsync, rename).
    pub fn write_in_progress(&self, white: &str, black: &str, text: &str) -> std::io::Result<()> {
        if self.pgn.is_none() {
            return Ok(());
        }
        let path = self.in_progress_path(white, black);
        let dir = path.parent().expect("a directory");
        fs::create_dir_all(dir)?;
        // A name of its own per write: two writes in flight never share a file.
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{}-{n}.tmp", std::process::id()));
        let written = fs::File::create(&tmp).and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.sync_all()
        });
        if let Err(e) = written.and_then(|_| fs::rename(&tmp, &path)) {
            // A full disk: no half-written temporary file is left behind; the last
            // complete record in progress stays.
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        // Room again: what a full disk held back goes first.
        if let Err(e) = self.flush_pending() {
            tracing::debug!("held-back records still cannot be written: {e}");
        }
        Ok(())
    }

    /// A game has ended: its record goes to the PGN file and the in-progress one is
    /// removed (after the append, so a crash between the two leaves both, never
    /// neither).
    /// The record of a game as its end left it: appended when `finished`, else kept
    /// as the game in progress; nothing without a PGN text.
    pub fn record(
        &self,
        white: &str,
        black: &str,
        pgn: Option<&str>,
        finished: bool,
    ) -> std::io::Result<()> {
        match pgn {
            Some(p) if finished => self.finish(white, black, p),
            Some(p) => self.write_in_progress(white, black, p),
            None => Ok(()),
        }
    }

    ///
    /// When the record cannot be appended (a full disk), it is held in memory and
    /// written before the next record or with the next in-progress write that
    /// succeeds (so when the disk has room again), and the in-progress record is
    /// removed all the same: a new game between the same players must not find it
    /// and file it as a dropped game. A held-back record is lost only if the
    /// process ends before the disk has room (the log then has its text).
    pub fn finish(&self, white: &str, black: &str, text: &str) -> std::io::Result<()> {
        let r = self.flush_pending().and_then(|_| self.append_pgn(text));
        if let (Err(e), Some(path)) = (&r, &self.pgn) {
            tracing::error!(
                "cannot append the game record ({e}); kept in memory and written once the disk has room"
            );
            PENDING
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((path.clone(), text.to_string()));
        }
        match fs::remove_file(self.in_progress_path(white, black)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => r,
        }
    }

    /// At the end of the process: the records still held back, logged whole so the
    /// operator can recover them.
    pub fn log_unwritten(&self) {
        if let Err(e) = self.flush_pending() {
            let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
            for (path, text) in pending.iter().filter(|(p, _)| Some(p) == self.pgn.as_ref()) {
                tracing::error!(
                    "a game record could not be written to {} ({e}):\n{text}",
                    path.display()
                );
            }
        }
    }

    /// A new game (not a resumed one) between these two players is starting: a
    /// record still in progress for them, in either colour, is of a game the server
    /// no longer has (lasker drops an unrated game at a shutdown; an adjournment may
    /// lapse). It goes to the PGN file as it stood (result `*`, unterminated) and
    /// is removed, so the new game's record cannot overwrite it. Returns the texts
    /// moved.
    pub fn retire_in_progress(&self, white: &str, black: &str) -> std::io::Result<Vec<String>> {
        let mut moved = Vec::new();
        if self.pgn.is_none() {
            return Ok(moved);
        }
        let mut paths = vec![self.in_progress_path(white, black)];
        let swapped = self.in_progress_path(black, white);
        if swapped != paths[0] {
            paths.push(swapped);
        }
        for path in paths {
            let text = match fs::read_to_string(&path) {
                Ok(t) => t,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            };
            // What is known now: the game never finished on the server.
            let text: String = text
                .lines()
                .map(|l| {
                    if l.starts_with("[TerminationDetails ") {
                        format!("[TerminationDetails \"{DROPPED}\"]\n")
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            if !text.trim().is_empty() {
                self.append_pgn(&text)?;
            }
            fs::remove_file(&path)?;
            moved.push(text);
        }
        Ok(moved)
    }

    /// Writes the engine log of a game and prunes old logs.
    pub fn write_log(&self, name: &str, lines: &[String]) -> std::io::Result<()> {
        if !self.logs || self.logs_keep == 0 {
            return Ok(());
        }
        let dir = self.dir.join("logs");
        fs::create_dir_all(&dir)?;
        let mut f = fs::File::create(dir.join(name))?;
        for l in lines {
            writeln!(f, "{l}")?;
        }
        prune(&dir, self.logs_keep)
    }
}

/// `games.pgn` -> `games.pgn.1` -> ... -> `games.pgn.<keep>` (dropped beyond).
fn rotate(path: &Path, keep: usize) -> std::io::Result<()> {
    let name = |i: usize| PathBuf::from(format!("{}.{i}", path.display()));
    if keep == 0 {
        return fs::remove_file(path);
    }
    let _ = fs::remove_file(name(keep));
    for i in (1..keep).rev() {
        let _ = fs::rename(name(i), name(i + 1));
    }
    fs::rename(path, name(1))
}

/// Keeps the newest `keep` files of `dir` (by modification time, then name).
fn prune(dir: &Path, keep: usize) -> std::io::Result<()> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
        .map(|e| {
            (
                e.metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH),
                e.path(),
            )
        })
        .collect();
    if files.len() <= keep {
        return Ok(());
    }
    files.sort();
    let excess = files.len() - keep;
    for (_, p) in files.into_iter().take(excess) {
        let _ = fs::remove_file(p);
    }
    Ok(())
}

/// One instance per account: an exclusive lock on a file, held while the process
/// lives. Returns the open file (keep it) or an error naming the holder's file.
pub fn lock_instance(dir: &Path, server: &str, handle: &str) -> std::io::Result<fs::File> {
    use fs2::FileExt;
    fs::create_dir_all(dir)?;
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect()
    };
    let path = dir.join(format!("kibitzer-{}-{}.lock", clean(server), clean(handle)));
    let mut f = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)?;
    f.try_lock_exclusive().map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::WouldBlock,
            format!(
                "{} is locked: another kibitzer runs for this account",
                path.display()
            ),
        )
    })?;
    let _ = f.set_len(0);
    let _ = writeln!(f, "{}", std::process::id());
    Ok(f)
}

/// The PGN `Termination` value for the server's words about a game's end.
/// `TerminationDetails` of a record retired by `Archive::retire_in_progress`.
pub const DROPPED: &str = "not finished: the server no longer had the game";

pub fn termination(reason: &str, result: &str) -> &'static str {
    let r = reason.to_ascii_lowercase();
    if r.contains("adjourn") || (result == "*" && !r.contains("abort")) {
        "unterminated"
    } else if r.contains("forfeits on time") || r.contains("ran out of time") {
        "time forfeit"
    } else if r.contains("adjudicat") {
        "adjudication"
    } else if r.contains("abort") || r.contains("disconnect") || r.contains("lost contact") {
        "abandoned"
    } else {
        "normal"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminations_are_pgn_values() {
        for (reason, result, want) in [
            ("bottwo resigns", "1-0", "normal"),
            ("botone checkmated", "0-1", "normal"),
            ("Game drawn by repetition", "1/2-1/2", "normal"),
            ("bottwo forfeits on time", "1-0", "time forfeit"),
            (
                "bottwo ran out of time and botone has no material to mate",
                "1/2-1/2",
                "time forfeit",
            ),
            ("Game drawn by adjudication", "1/2-1/2", "adjudication"),
            ("Game aborted by mutual agreement", "*", "abandoned"),
            ("bottwo forfeits by disconnection", "1-0", "abandoned"),
            ("adjourned", "*", "unterminated"),
            ("Game adjourned by mutual agreement", "*", "unterminated"),
            ("connection lost", "*", "unterminated"),
        ] {
            assert_eq!(termination(reason, result), want, "{reason}");
        }
    }

    /// An archive with a PGN file in a fresh temporary directory.
    fn temp_archive(name: &str) -> (Archive, PathBuf) {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let a = Archive {
            dir: dir.clone(),
            pgn: Some(dir.join("games.pgn")),
            pgn_max_bytes: 1 << 20,
            pgn_keep: 2,
            logs: false,
            logs_keep: 0,
        };
        (a, dir)
    }

    #[test]
    fn a_record_a_full_disk_refused_is_written_once_there_is_room() {
        let (a, dir) = temp_archive("kibitzer-archive-full");
        let pgn = dir.join("games.pgn");
        a.write_in_progress("botone", "bottwo", "[Result \"*\"]\n1. e4 *\n")
            .unwrap();
        // Every write to /dev/full fails with ENOSPC, as on a full disk.
        std::os::unix::fs::symlink("/dev/full", &pgn).unwrap();
        let rec = "[Result \"1-0\"]\n1. e4 e5 1-0\n";
        assert!(a.finish("botone", "bottwo", rec).is_err());
        // The stale in-progress record is gone: the next game between the same
        // players must not file it as a dropped game.
        assert!(!a.in_progress_path("botone", "bottwo").exists());
        assert!(a.retire_in_progress("botone", "bottwo").unwrap().is_empty());
        fs::remove_file(&pgn).unwrap();
        // Room again: the next write puts the held-back record in the file, once.
        a.write_in_progress("botone", "bottwo", "[Result \"*\"]\n1. d4 *\n")
            .unwrap();
        a.write_in_progress("botone", "bottwo", "[Result \"*\"]\n1. d4 d5 *\n")
            .unwrap();
        assert_eq!(fs::read_to_string(&pgn).unwrap(), rec);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn in_progress_records_are_replaced_then_moved_once() {
        let (a, dir) = temp_archive("kibitzer-archive");
        a.write_in_progress("botone", "bottwo", "[Result \"*\"]\n1. e4 *\n")
            .unwrap();
        a.write_in_progress("botone", "bottwo", "[Result \"*\"]\n1. e4 e5 *\n")
            .unwrap();
        let p = a.in_progress_path("botone", "bottwo");
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "[Result \"*\"]\n1. e4 e5 *\n"
        );
        a.finish("botone", "bottwo", "[Result \"1-0\"]\n1. e4 e5 1-0\n")
            .unwrap();
        assert!(!p.exists());
        let all = fs::read_to_string(dir.join("games.pgn")).unwrap();
        assert_eq!(all.matches("[Result").count(), 1);
        // No temporary files are left behind.
        let left: Vec<_> = fs::read_dir(dir.join("in-progress")).unwrap().collect();
        assert!(left.is_empty());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_stale_record_is_retired_to_the_pgn_file_in_either_colour() {
        let (a, dir) = temp_archive("kibitzer-retire");
        // Nothing in progress: nothing moves, no file appears.
        assert!(a.retire_in_progress("botone", "bottwo").unwrap().is_empty());
        assert!(!dir.join("games.pgn").exists());
        let cut = "[White \"BotOne\"]\n[Black \"bottwo\"]\n[Result \"*\"]\n[TerminationDetails \"in progress\"]\n\n1. e4 e5 *\n\n";
        let retired = cut.replace("in progress", DROPPED);
        a.write_in_progress("BotOne", "bottwo", cut).unwrap();
        a.write_in_progress("carol", "botone", "[Result \"*\"]\n\n1. d4 *\n\n")
            .unwrap();
        // The next game has the colours the other way round.
        let moved = a.retire_in_progress("bottwo", "botone").unwrap();
        assert_eq!(moved, vec![retired.clone()]);
        assert!(!a.in_progress_path("botone", "bottwo").exists());
        // Another opponent's record stays.
        assert!(a.in_progress_path("carol", "botone").exists());
        assert_eq!(fs::read_to_string(dir.join("games.pgn")).unwrap(), retired);
        // Once only.
        assert!(a.retire_in_progress("botone", "bottwo").unwrap().is_empty());
        assert_eq!(fs::read_to_string(dir.join("games.pgn")).unwrap(), retired);
        let _ = fs::remove_dir_all(&dir);
    }
}
