//! Records: every game appended as PGN to one file (rotated past a size limit, a
//! fixed number of old files kept), one log per game of what the engine thought
//! (like Crafty's `log.nnn`, the oldest deleted past a count), and the instance
//! lock. Plain blocking file I/O: callers run it off the async threads.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

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
        f.write_all(text.as_bytes())?;
        f.flush()
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
