//! A scripted front-end session run in-process: commands go in through a channel
//! that the protocol's reader thread reads as a `BufRead`, output is collected from
//! the shared writer, and the test waits for the lines it expects.

use kibitzer::engine::time::Clock;
use kibitzer::options::Options;
use kibitzer::protocol::{output, run, Protocol, Session};
use std::io::{BufRead, Read, Write};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Generous: a loaded machine may be slow; tests use depth and node limits.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Input from a channel of lines.
pub struct ChanReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for ChanReader {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChanReader {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos >= self.buf.len() {
            match self.rx.recv() {
                Ok(v) => {
                    self.buf = v;
                    self.pos = 0;
                }
                Err(_) => return Ok(&[]),
            }
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

/// Output collected in memory.
#[derive(Clone, Default)]
pub struct SharedBuf(pub Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A running session.
pub struct Driver {
    tx: Option<Sender<Vec<u8>>>,
    out: SharedBuf,
    /// Lines already matched by `expect`.
    cursor: usize,
    thread: Option<JoinHandle<()>>,
}

impl Driver {
    pub fn start(proto: Protocol) -> Driver {
        Driver::start_with(proto, test_options(), None)
    }

    /// Starts `proto` with these options and, if given, an injected clock.
    pub fn start_with(proto: Protocol, opts: Options, clock: Option<Arc<dyn Clock>>) -> Driver {
        let (tx, rx) = channel();
        let reader = ChanReader {
            rx,
            buf: Vec::new(),
            pos: 0,
        };
        let out = SharedBuf::default();
        let o = output(out.clone());
        let thread = std::thread::spawn(move || {
            let mut s = match clock {
                Some(c) => Session::with_clock(reader, o, opts, c),
                None => Session::new(reader, o, opts),
            };
            run(&mut s, proto);
        });
        Driver {
            tx: Some(tx),
            out,
            cursor: 0,
            thread: Some(thread),
        }
    }

    pub fn send(&self, line: &str) {
        let mut v = line.as_bytes().to_vec();
        v.push(b'\n');
        self.tx
            .as_ref()
            .expect("open")
            .send(v)
            .expect("session alive");
    }

    /// Every output line so far, the last one possibly incomplete (a prompt).
    pub fn lines(&self) -> Vec<String> {
        self.lines_and_tail().0
    }

    fn lines_and_tail(&self) -> (Vec<String>, bool) {
        let b = self.out.0.lock().unwrap();
        let text = String::from_utf8_lossy(&b);
        let mut v: Vec<String> = text.split('\n').map(String::from).collect();
        let tail = v.pop().unwrap_or_default();
        let incomplete = !tail.is_empty();
        if incomplete {
            v.push(tail);
        }
        (v, incomplete)
    }

    /// The output as one text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.out.0.lock().unwrap()).into_owned()
    }

    /// Waits for a line after the cursor for which `pred` holds; moves the cursor past
    /// it and returns it.
    pub fn expect(&mut self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let (lines, incomplete) = self.lines_and_tail();
            if let Some(i) = lines[self.cursor.min(lines.len())..]
                .iter()
                .position(|l| pred(l))
            {
                let idx = self.cursor + i;
                // An incomplete last line (a prompt) may still grow: stay on it.
                self.cursor = if incomplete && idx + 1 == lines.len() {
                    idx
                } else {
                    idx + 1
                };
                return lines[idx].clone();
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; output:\n{}", self.text());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Waits for a line starting with `prefix`.
    pub fn expect_prefix(&mut self, prefix: &str) -> String {
        let p = prefix.to_string();
        self.expect(prefix, move |l| l.starts_with(&p))
    }

    /// Waits for a line containing `part`.
    pub fn expect_contains(&mut self, part: &str) -> String {
        let p = part.to_string();
        self.expect(part, move |l| l.contains(&p))
    }

    /// Lines after the cursor (not consumed).
    pub fn pending(&self) -> Vec<String> {
        let l = self.lines();
        l[self.cursor.min(l.len())..].to_vec()
    }

    /// Asserts that for `d` no line after the cursor satisfies `pred`.
    pub fn expect_none_for(&self, d: Duration, what: &str, pred: impl Fn(&str) -> bool) {
        std::thread::sleep(d);
        let p = self.pending();
        assert!(!p.iter().any(|l| pred(l)), "unexpected {what}: {p:?}");
    }

    /// Ends the input and waits for the session to finish; returns all output.
    pub fn finish(mut self) -> Vec<String> {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            t.join().expect("session thread");
        }
        self.lines()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(b"quit\n".to_vec());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Small and quiet: 8 MB of hash, no noise threshold.
pub fn test_options() -> Options {
    let mut o = Options::new();
    o.set("hash", "8M").unwrap();
    o.set("noise", "0").unwrap();
    o
}
