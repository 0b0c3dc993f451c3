//! Crash-safe file primitives: CRC-32, whole-file replacement through a temporary file
//! (write, fsync, rename, fsync the directory), checksummed append-only logs, broken
//! files set aside under a new name, and an advisory lock (`flock`) so two processes
//! never write the same files at once.
//!
//! A reader of these files sees either the state before a write or the state after
//! it: a replaced file is renamed into place only once it is complete on disk, and an
//! append that a crash cut short is recognised (short or failed-checksum last record)
//! and dropped as if it had never been made.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

// ----- CRC-32 (IEEE 802.3, reflected, as zlib computes it) ---------------------------

const fn crc_table() -> [[u32; 256]; 4] {
    let mut t = [[0u32; 256]; 4];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut j = 1;
        while j < 4 {
            let prev = t[j - 1][i];
            t[j][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            j += 1;
        }
        i += 1;
    }
    t
}

static CRC: [[u32; 256]; 4] = crc_table();

/// A running CRC-32.
#[derive(Clone, Copy, Debug)]
pub struct Crc32(u32);

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}

impl Crc32 {
    pub const fn new() -> Crc32 {
        Crc32(0xFFFF_FFFF)
    }

    pub fn update(&mut self, data: &[u8]) {
        let mut c = self.0;
        let mut chunks = data.chunks_exact(4);
        for ch in &mut chunks {
            c ^= u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]);
            c = CRC[3][(c & 0xFF) as usize]
                ^ CRC[2][((c >> 8) & 0xFF) as usize]
                ^ CRC[1][((c >> 16) & 0xFF) as usize]
                ^ CRC[0][(c >> 24) as usize];
        }
        for &b in chunks.remainder() {
            c = CRC[0][((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
        }
        self.0 = c;
    }

    pub fn finish(self) -> u32 {
        !self.0
    }
}

/// CRC-32 of a byte string.
pub fn crc32(data: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(data);
    c.finish()
}

// ----- errors -------------------------------------------------------------------------

/// A file problem, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The file exists but is not what it should be.
    #[error("{path}: {reason}")]
    Broken { path: PathBuf, reason: String },
    /// A well-formed file of a kind or version this build does not read (left alone).
    #[error("{path}: {reason}")]
    Unsupported { path: PathBuf, reason: String },
    #[error("{path}: locked by another kibitzer process (waited {waited:?})")]
    Locked { path: PathBuf, waited: Duration },
}

impl FileError {
    pub fn io(path: &Path, source: io::Error) -> FileError {
        FileError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn broken(path: &Path, reason: impl Into<String>) -> FileError {
        FileError::Broken {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }
}

/// `io::Result` -> `Result<_, FileError>` naming the path.
pub trait Context<T> {
    fn at(self, path: &Path) -> Result<T, FileError>;
}

impl<T> Context<T> for io::Result<T> {
    fn at(self, path: &Path) -> Result<T, FileError> {
        self.map_err(|e| FileError::io(path, e))
    }
}

// ----- whole-file replacement ---------------------------------------------------------

/// The temporary name used while `path` is being written (same directory, so the
/// rename is atomic): `.name.tmp.<pid>`.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    path.with_file_name(format!(".{name}.tmp.{}", std::process::id()))
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Makes a rename in `dir` durable.
pub fn sync_dir(dir: &Path) -> Result<(), FileError> {
    // Opening a directory read-only and fsyncing it is the POSIX way; platforms that
    // refuse it have no better one, so failures to open are ignored.
    if let Ok(d) = File::open(dir) {
        d.sync_all().at(dir)?;
    }
    Ok(())
}

/// A file being written under a temporary name; `commit` moves it into place.
/// Dropped without `commit`, the temporary file is removed.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: Option<io::BufWriter<File>>,
}

impl AtomicFile {
    /// Errors name `path` (the file asked for), not the temporary name.
    pub fn create(path: &Path) -> Result<AtomicFile, FileError> {
        let tmp = temp_path(path);
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)
            .at(path)?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file: Some(io::BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// The file being written (for seeking back to patch a header).
    pub fn writer(&mut self) -> &mut io::BufWriter<File> {
        self.file.as_mut().expect("open until commit")
    }

    pub fn tmp_path(&self) -> &Path {
        &self.tmp
    }

    /// Flushes, fsyncs, renames over the destination and fsyncs the directory.
    pub fn commit(mut self) -> Result<(), FileError> {
        let w = self.file.take().expect("open until commit");
        let f = w
            .into_inner()
            .map_err(|e| FileError::io(&self.path, e.into_error()))?;
        f.sync_all().at(&self.path)?;
        drop(f);
        fs::rename(&self.tmp, &self.path).at(&self.path)?;
        sync_dir(&parent_dir(&self.path))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

/// Removes what writers killed in mid-write left behind in `dir`: the temporary files
/// `.NAME.tmp.PID`, `.NAME.idx.PID` and `.NAME.runN.PID` of processes that no longer
/// run (checked through `/proc`; where there is none, nothing is removed). Returns
/// how many were removed.
pub fn remove_stale_temps(dir: &Path) -> usize {
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') {
            continue;
        }
        let Some((head, pid)) = name.rsplit_once('.') else {
            continue;
        };
        let temp = head.ends_with(".tmp")
            || head.ends_with(".idx")
            || head
                .rsplit_once(".run")
                .is_some_and(|(_, n)| n.bytes().all(|b| b.is_ascii_digit()));
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        if temp
            && pid != std::process::id()
            && !Path::new(&format!("/proc/{pid}")).exists()
            && fs::remove_file(e.path()).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// Replaces `path` with `data` crash-safely.
pub fn atomic_write(path: &Path, data: &[u8]) -> Result<(), FileError> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(data).at(&f.tmp.clone())?;
    f.commit()
}

/// Renames a broken file out of the way (`name.broken-20261201T213000Z`, the UTC
/// time, never over another file) and returns the new name.
pub fn set_aside(path: &Path) -> Result<PathBuf, FileError> {
    let stamp = utc_stamp(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs()),
    );
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut n = 0;
    let target = loop {
        let suffix = if n == 0 {
            format!("{name}.broken-{stamp}")
        } else {
            format!("{name}.broken-{stamp}-{n}")
        };
        let t = path.with_file_name(suffix);
        if !t.exists() {
            break t;
        }
        n += 1;
    };
    fs::rename(path, &target).at(path)?;
    sync_dir(&parent_dir(path))?;
    Ok(target)
}

/// Year, month, day of a day number counted from 1970-01-01 (proleptic Gregorian;
/// Howard Hinnant's days-to-civil algorithm).
pub fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + (m <= 2) as i64, m, d)
}

/// A Unix time as a compact ISO 8601 UTC stamp: `20261201T213000Z`.
pub fn utc_stamp(secs: u64) -> String {
    let (y, m, d) = civil_date((secs / 86_400) as i64);
    let t = secs % 86_400;
    format!(
        "{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

// ----- advisory lock ------------------------------------------------------------------

/// An exclusive advisory lock on a lock file (`flock`), released on drop. Locks are
/// per open file, so two handles in one process exclude each other too.
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    /// Takes the lock, waiting up to `wait` for another holder to let go.
    pub fn acquire(path: &Path, wait: Duration) -> Result<FileLock, FileError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .at(path)?;
        let start = Instant::now();
        loop {
            match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {
                    return Ok(FileLock {
                        file,
                        path: path.to_path_buf(),
                    })
                }
                Err(e) if e == rustix::io::Errno::WOULDBLOCK || e == rustix::io::Errno::INTR => {
                    if start.elapsed() >= wait {
                        return Err(FileError::Locked {
                            path: path.to_path_buf(),
                            waited: wait,
                        });
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(e) => return Err(FileError::io(path, e.into())),
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock);
    }
}

// ----- append-only logs of checksummed records ---------------------------------------

/// Magic and version that open a log file; `record` is the size of one record
/// including its trailing CRC-32.
#[derive(Clone, Copy, Debug)]
pub struct LogFormat {
    pub magic: [u8; 8],
    pub version: u16,
    pub record: usize,
}

/// Log header: magic (8), version (u16 LE), record size (u16 LE), CRC-32 of those 12
/// bytes (u32 LE). Records follow back to back: `record - 4` bytes of payload and the
/// CRC-32 of the payload.
pub const LOG_HEADER: usize = 16;

impl LogFormat {
    fn header(&self) -> [u8; LOG_HEADER] {
        let mut h = [0u8; LOG_HEADER];
        h[..8].copy_from_slice(&self.magic);
        h[8..10].copy_from_slice(&self.version.to_le_bytes());
        h[10..12].copy_from_slice(&(self.record as u16).to_le_bytes());
        let c = crc32(&h[..12]);
        h[12..16].copy_from_slice(&c.to_le_bytes());
        h
    }

    /// Seals a payload of `record - 4` bytes into a record.
    pub fn seal(&self, payload: &[u8]) -> Vec<u8> {
        debug_assert_eq!(payload.len() + 4, self.record);
        let mut v = payload.to_vec();
        v.extend_from_slice(&crc32(payload).to_le_bytes());
        v
    }
}

/// What reading a log found.
#[derive(Debug, Default)]
pub struct LogRead {
    /// Payloads of the intact records, oldest first.
    pub records: Vec<Vec<u8>>,
    /// Bytes of an incomplete or failed last record (a write cut short by a crash).
    pub torn_tail: usize,
    /// File length up to the end of the last intact record.
    pub good_len: u64,
}

/// Reads a log's records from `offset` (at least the header size). A damaged record
/// that is not the last one makes the file broken.
pub fn read_log(path: &Path, fmt: &LogFormat, offset: u64) -> Result<LogRead, FileError> {
    let data = fs::read(path).at(path)?;
    if data.len() < LOG_HEADER {
        return Err(FileError::broken(
            path,
            format!("{} bytes, shorter than the log header", data.len()),
        ));
    }
    if data[..LOG_HEADER] != fmt.header() {
        let found = String::from_utf8_lossy(&data[..8]).into_owned();
        return Err(FileError::broken(
            path,
            format!(
                "not a version {} {} log (header '{found}' does not match)",
                fmt.version,
                String::from_utf8_lossy(&fmt.magic).trim_end_matches('\0')
            ),
        ));
    }
    let mut out = LogRead::default();
    let mut pos = (offset as usize).max(LOG_HEADER);
    if pos > data.len() {
        // The file shrank under us: another process compacted it; read it all.
        pos = LOG_HEADER;
    }
    while pos < data.len() {
        let rest = data.len() - pos;
        if rest < fmt.record {
            out.torn_tail = rest;
            break;
        }
        let rec = &data[pos..pos + fmt.record];
        let (payload, crc) = rec.split_at(fmt.record - 4);
        if crc32(payload).to_le_bytes() != crc {
            if rest == fmt.record {
                out.torn_tail = rest;
                break;
            }
            return Err(FileError::broken(
                path,
                format!(
                    "record {} (byte {pos}) fails its checksum",
                    (pos - LOG_HEADER) / fmt.record + 1
                ),
            ));
        }
        out.records.push(payload.to_vec());
        pos += fmt.record;
    }
    out.good_len = pos as u64;
    Ok(out)
}

/// Creates an empty log (crash-safely) if there is none.
pub fn create_log(path: &Path, fmt: &LogFormat) -> Result<(), FileError> {
    if path.exists() {
        return Ok(());
    }
    atomic_write(path, &fmt.header())
}

/// Appends sealed records in one write and fsyncs. `good_len` is where the intact
/// records end: a torn tail left by a crash is cut off first.
pub fn append_log(path: &Path, good_len: u64, records: &[u8]) -> Result<u64, FileError> {
    let mut f = OpenOptions::new().write(true).open(path).at(path)?;
    let len = f.metadata().at(path)?.len();
    if len != good_len {
        f.set_len(good_len).at(path)?;
    }
    use std::io::Seek;
    f.seek(io::SeekFrom::Start(good_len)).at(path)?;
    f.write_all(records).at(path)?;
    f.sync_data().at(path)?;
    Ok(good_len + records.len() as u64)
}

/// Appends text to a readable log (`.lrn`): records end with a blank line; a record
/// that a crash cut short (the file does not end with `\n\n`) is cut off first, and
/// its length returned so the caller can say so.
pub fn append_text(path: &Path, text: &str) -> Result<usize, FileError> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .at(path)?;
    use std::io::{Read, Seek};
    let len = f.metadata().at(path)?.len();
    // Records are small: the last megabyte holds the end of the last complete one.
    let start = len.saturating_sub(1 << 20);
    f.seek(io::SeekFrom::Start(start)).at(path)?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).at(path)?;
    let good = start + clean_text_len(&tail) as u64;
    let torn = (len - good) as usize;
    if torn > 0 {
        f.set_len(good).at(path)?;
    }
    f.seek(io::SeekFrom::Start(good)).at(path)?;
    f.write_all(text.as_bytes()).at(path)?;
    f.sync_data().at(path)?;
    Ok(torn)
}

/// Length of the complete records of a readable log: up to the last `\n\n` (a file
/// that is empty or ends with a blank line is complete).
pub fn clean_text_len(data: &[u8]) -> usize {
    if data.is_empty() || data.ends_with(b"\n\n") {
        return data.len();
    }
    data.windows(2)
        .rposition(|w| w == b"\n\n")
        .map_or(0, |i| i + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_aside_names_carry_a_readable_utc_time() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(utc_stamp(0), "19700101T000000Z");
        // 2026-12-01 21:30:00 UTC.
        assert_eq!(utc_stamp(1_796_160_600), "20261201T213000Z");
        assert_eq!(utc_stamp(951_782_400), "20000229T000000Z");
        let dir = std::env::temp_dir().join(format!("kibitzer-aside-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let f = dir.join("book.bin");
        fs::write(&f, b"x").unwrap();
        let to = set_aside(&f).unwrap();
        let name = to.file_name().unwrap().to_string_lossy().into_owned();
        let stamp = name.strip_prefix("book.bin.broken-").expect("suffix");
        assert_eq!(stamp.len(), "20261201T213000Z".len(), "{name}");
        assert!(
            stamp.ends_with('Z') && stamp.as_bytes()[8] == b'T',
            "{name}"
        );
        assert!(!f.exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn crc_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        let mut c = Crc32::new();
        c.update(b"1234");
        c.update(b"56789");
        assert_eq!(c.finish(), 0xCBF4_3926);
    }

    #[test]
    fn clean_text_len_drops_a_torn_record() {
        assert_eq!(clean_text_len(b""), 0);
        assert_eq!(clean_text_len(b"a\n\n"), 3);
        assert_eq!(clean_text_len(b"a\n\nb"), 3);
        assert_eq!(clean_text_len(b"a\n\nb\n"), 3);
        assert_eq!(clean_text_len(b"partial"), 0);
    }
}
