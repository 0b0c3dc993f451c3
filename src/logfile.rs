//! The daemon's log file for operators without journald (`records.log_file`): every
//! line the log writes, appended to one file that is rotated by size
//! (`records.log_max` MB; `<file>` -> `<file>.1` -> ... -> `<file>.<keep>`, the
//! oldest dropped). A write error (a full disk) loses that line, never the daemon.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// An appending, size-rotated log file.
pub struct RotatingFile {
    path: PathBuf,
    max_bytes: u64,
    keep: usize,
    file: Option<File>,
    size: u64,
}

impl RotatingFile {
    /// Opens (creating) `path` for appending; `max_bytes` 0 never rotates.
    pub fn open(path: &Path, max_bytes: u64, keep: usize) -> io::Result<RotatingFile> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let size = file.metadata()?.len();
        Ok(RotatingFile {
            path: path.to_path_buf(),
            max_bytes,
            keep,
            file: Some(file),
            size,
        })
    }

    fn numbered(&self, i: usize) -> PathBuf {
        PathBuf::from(format!("{}.{i}", self.path.display()))
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.file = None;
        if self.keep == 0 {
            fs::remove_file(&self.path)?;
        } else {
            let _ = fs::remove_file(self.numbered(self.keep));
            for i in (1..self.keep).rev() {
                let from = self.numbered(i);
                if from.exists() {
                    fs::rename(&from, self.numbered(i + 1))?;
                }
            }
            fs::rename(&self.path, self.numbered(1))?;
        }
        self.file = Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)?,
        );
        self.size = 0;
        Ok(())
    }
}

impl Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.max_bytes > 0 && self.size > 0 && self.size + buf.len() as u64 > self.max_bytes {
            // A failed rotation keeps writing where it can.
            let _ = self.rotate();
        }
        if self.file.is_none() {
            self.file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.path)
                .ok();
        }
        match self.file.as_mut() {
            Some(f) => {
                f.write_all(buf)?;
                self.size += buf.len() as u64;
                Ok(buf.len())
            }
            None => Ok(buf.len()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().map_or(Ok(()), |f| f.flush())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_is_rotated_by_size_and_old_files_are_dropped() {
        let dir = std::env::temp_dir().join(format!("kibitzer-logfile-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let path = dir.join("sub").join("kibitzer.log");
        let mut f = RotatingFile::open(&path, 100, 2).unwrap();
        // One write per line, as the log writes each event.
        for i in 0..10 {
            f.write_all(format!("line {i:02} {}\n", "x".repeat(30)).as_bytes())
                .unwrap();
        }
        f.flush().unwrap();
        let read = |p: &Path| fs::read_to_string(p).unwrap_or_default();
        // 39 bytes a line, 100 a file: two lines per file; only two old files kept.
        assert!(read(&path).contains("line 08") && read(&path).contains("line 09"));
        assert!(read(&dir.join("sub/kibitzer.log.1")).contains("line 06"));
        assert!(read(&dir.join("sub/kibitzer.log.2")).contains("line 04"));
        assert!(!dir.join("sub/kibitzer.log.3").exists());
        for p in [&path, &dir.join("sub/kibitzer.log.1")] {
            assert!(fs::metadata(p).unwrap().len() <= 100);
        }
        // Appends to what is there after a restart.
        drop(f);
        let mut f = RotatingFile::open(&path, 1000, 2).unwrap();
        f.write_all(b"after restart\n").unwrap();
        assert!(read(&path).contains("line 09") && read(&path).contains("after restart"));
        let _ = fs::remove_dir_all(&dir);
    }
}
