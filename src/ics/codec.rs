//! Line framing of the server's byte stream (a `tokio_util` decoder).
//!
//! What the servers send is telnet-flavoured text: lines end in `\n\r` (lasker, FICS)
//! or `\r\n`; prompts (`fics% `, `aics% `, `login: `, `password: `) come without a
//! newline and are often glued to the start of the next message
//! (`fics% {Game 1 (...) Continuing ...}`); long lines may be wrapped with the rest
//! on `\   ` continuation lines; telnet IAC sequences (`IAC WILL ECHO` around the
//! password) and BEL characters are mixed in; timeseal 2 pings (`[G]\0`) arrive in
//! band. The decoder turns all of that into `IcsItem`s and never buffers more than
//! `max_line` bytes of one line: longer lines are dropped (reported once as
//! `Overlong`) up to their newline.
//!
//! ICC's structured output shares the stream: control-Y sequences open and close
//! level-1 units (`^Y[` header, `^Y]`) and level-2 units (`^Y(` ... `^Y)`, with
//! `^Y{ ^Y}` quoting inside, newlines allowed). They come out as `UnitStart`,
//! `UnitEnd` and `Datagram` items wherever they stand in a line; a unit cut short by
//! the next, or longer than `max_line`, is a `BadDatagram` and reading goes on.

use super::datagram::CTRL_Y;
use bytes::{Buf, BytesMut};
use std::collections::VecDeque;
use tokio_util::codec::Decoder;

/// One unit of server output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IcsItem {
    /// A complete line without its line end (continuation lines already joined).
    Line(String),
    /// A prompt: `fics% `, `aics% `, `login: `, `password: `, or the guest's
    /// `Press return to enter the server as "X":` which comes without a newline.
    Prompt(String),
    /// A timeseal ping (`[G]\0`, or a `[G]` line for timeseal 1): answer at once.
    Ping,
    /// A line longer than the limit was dropped; the number is its length so far.
    Overlong(usize),
    /// ICC: the body of a level-2 unit, between `^Y(` and `^Y)` (`^Y{ ^Y}` quotes
    /// kept as they came, see `datagram`).
    Datagram(String),
    /// ICC: a level-2 unit cut short (another unit or a level-1 bracket opened
    /// inside it, or it outgrew the line limit): what was read of it.
    BadDatagram(String),
    /// ICC: a level-1 unit opens (`^Y[` and its header: command number, issuer).
    UnitStart(String),
    /// ICC: a level-1 unit closes (`^Y]`).
    UnitEnd,
}

const IAC: u8 = 255;
const SB: u8 = 250;
const SE: u8 = 240;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Telnet {
    Data,
    /// After IAC.
    Command,
    /// After IAC WILL/WONT/DO/DONT: one option byte follows.
    Option,
    /// Inside IAC SB ... IAC SE.
    Sub,
    /// IAC seen inside a subnegotiation.
    SubIac,
}

/// The decoder. Keeps the partial line between reads.
#[derive(Debug)]
pub struct IcsCodec {
    max_line: usize,
    prompts: Vec<Vec<u8>>,
    /// Bytes of the line being read (cleaned of telnet, `\r`, BEL).
    line: Vec<u8>,
    /// Dropping an overlong line until its newline.
    dropping: bool,
    telnet: Telnet,
    /// A complete long line held back in case a `\   ` continuation follows.
    held: Option<String>,
    out: VecDeque<IcsItem>,
    /// ICC delimiters: a control-Y was just read (outside a level-2 unit).
    ctrl: bool,
    /// Inside a level-2 unit: its bytes so far.
    dg: Option<Vec<u8>>,
    /// Inside a level-2 unit, a control-Y was just read.
    dg_ctrl: bool,
    /// Inside `^Y{ ... ^Y}` within a level-2 unit.
    dg_quote: bool,
    /// Reading a level-1 header (`^Y[` up to the end of its line).
    header: Option<Vec<u8>>,
}

/// Longest line kept by default (a style-12 line is about 200 bytes, a `moves`
/// line or a long tell a few hundred).
pub const DEFAULT_MAX_LINE: usize = 16 * 1024;

impl Default for IcsCodec {
    fn default() -> Self {
        IcsCodec::new(DEFAULT_MAX_LINE)
    }
}

impl IcsCodec {
    pub fn new(max_line: usize) -> IcsCodec {
        IcsCodec {
            max_line: max_line.max(64),
            prompts: ["fics% ", "aics% ", "login: ", "password: "]
                .iter()
                .map(|p| p.as_bytes().to_vec())
                .collect(),
            line: Vec::new(),
            dropping: false,
            telnet: Telnet::Data,
            held: None,
            out: VecDeque::new(),
            ctrl: false,
            dg: None,
            dg_ctrl: false,
            dg_quote: false,
            header: None,
        }
    }

    /// Adds a prompt recognised at the start of a line (a server's own prompt).
    pub fn add_prompt(&mut self, prompt: &str) {
        if !prompt.is_empty() && !self.prompts.iter().any(|p| p == prompt.as_bytes()) {
            self.prompts.push(prompt.as_bytes().to_vec());
        }
    }

    /// The line held for a continuation, when the reader has waited long enough
    /// for one (the server sent nothing more).
    pub fn take_held(&mut self) -> Option<IcsItem> {
        self.held.take().map(IcsItem::Line)
    }

    pub fn has_held(&self) -> bool {
        self.held.is_some()
    }

    fn flush_held(&mut self) {
        if let Some(h) = self.held.take() {
            self.out.push_back(IcsItem::Line(h));
        }
    }

    fn end_line(&mut self) {
        if self.dropping {
            self.dropping = false;
            self.line.clear();
            return;
        }
        let text = String::from_utf8_lossy(&self.line).into_owned();
        self.line.clear();
        if text == "[G]" {
            self.flush_held();
            self.out.push_back(IcsItem::Ping);
            return;
        }
        if let Some(rest) = text.strip_prefix('\\') {
            if let Some(h) = self.held.as_mut() {
                // Wrapped text: "\   " continues the previous line.
                let rest = rest.strip_prefix("   ").unwrap_or(rest.trim_start());
                h.push_str(rest);
                if h.len() > self.max_line {
                    let n = h.len();
                    self.held = None;
                    self.out.push_back(IcsItem::Overlong(n));
                }
                return;
            }
        }
        self.flush_held();
        if text.trim().is_empty() {
            return;
        }
        // Any line but a board may have been wrapped (even a short one: a tell
        // whose first word did not fit, `alice tells you: ` alone), so it waits for
        // the next bytes; the reader lets it go when nothing comes (`take_held`).
        if !text.starts_with("<12>") {
            self.held = Some(text);
        } else {
            self.out.push_back(IcsItem::Line(text));
        }
    }

    /// ICC's control-Y sequences, ahead of the line logic. True when `b` was used.
    fn icc_byte(&mut self, b: u8) -> bool {
        if let Some(dg) = self.dg.as_mut() {
            if self.dg_ctrl {
                self.dg_ctrl = false;
                match b {
                    b')' if !self.dg_quote => {
                        let body = String::from_utf8_lossy(dg).into_owned();
                        self.dg = None;
                        self.flush_held();
                        self.out.push_back(IcsItem::Datagram(body));
                        return true;
                    }
                    b'{' | b'}' => {
                        self.dg_quote = b == b'{';
                        dg.extend_from_slice(&[CTRL_Y, b]);
                    }
                    b'(' | b'[' | b']' => {
                        // A new unit or bracket inside this one: it was cut short.
                        let body = String::from_utf8_lossy(dg).into_owned();
                        self.dg = None;
                        self.dg_quote = false;
                        self.flush_held();
                        self.out.push_back(IcsItem::BadDatagram(body));
                        self.ctrl = true;
                        return self.icc_byte(b);
                    }
                    // Two control-Ys: the first was stray.
                    CTRL_Y => {
                        dg.push(CTRL_Y);
                        self.dg_ctrl = true;
                    }
                    _ => dg.extend_from_slice(&[CTRL_Y, b]),
                }
            } else if b == CTRL_Y {
                self.dg_ctrl = true;
            } else if b != b'\r' {
                dg.push(b);
            }
            if dg.len() > self.max_line {
                let body = String::from_utf8_lossy(&dg[..64]).into_owned();
                self.dg = None;
                self.dg_quote = false;
                self.flush_held();
                self.out.push_back(IcsItem::BadDatagram(body));
            }
            return true;
        }
        if let Some(h) = self.header.as_mut() {
            if b == b'\n' || b == CTRL_Y || h.len() > 200 {
                let text = String::from_utf8_lossy(h).trim().to_string();
                self.header = None;
                self.flush_held();
                self.out.push_back(IcsItem::UnitStart(text));
                if b != CTRL_Y {
                    return true;
                }
            } else {
                if b != b'\r' {
                    h.push(b);
                }
                return true;
            }
        }
        if self.ctrl {
            self.ctrl = b == CTRL_Y;
            match b {
                b'(' => {
                    self.dg = Some(Vec::new());
                    self.dg_quote = false;
                    self.dg_ctrl = false;
                }
                b'[' => {
                    self.end_partial();
                    self.header = Some(Vec::new());
                }
                b']' => {
                    self.end_partial();
                    self.flush_held();
                    self.out.push_back(IcsItem::UnitEnd);
                }
                // `^Y<` `^Y>` (command start/end), stray `^Y)` `^Y{` `^Y}`: dropped.
                _ => {}
            }
            return true;
        }
        if b == CTRL_Y {
            self.ctrl = true;
            return true;
        }
        false
    }

    /// Ends a line that has no newline yet (an ICC bracket follows it).
    fn end_partial(&mut self) {
        if !self.line.is_empty() || self.dropping {
            self.end_line();
        }
    }

    fn push_byte(&mut self, b: u8) {
        if self.icc_byte(b) {
            return;
        }
        match b {
            b'\n' => self.end_line(),
            b'\r' | 0x07 => {}
            0 => {
                if self.line.ends_with(b"[G]") {
                    self.line.truncate(self.line.len() - 3);
                    self.flush_held();
                    self.out.push_back(IcsItem::Ping);
                }
            }
            _ => {
                if self.dropping {
                    return;
                }
                self.line.push(b);
                if self.line.len() > self.max_line {
                    let n = self.line.len();
                    self.line.clear();
                    self.dropping = true;
                    self.flush_held();
                    self.out.push_back(IcsItem::Overlong(n));
                    return;
                }
                // The guest's "Press return to enter the server as "X":" has no newline.
                if b == b':'
                    && self.line.starts_with(b"Press return to enter")
                    && self.line.ends_with(b"\":")
                {
                    let p = String::from_utf8_lossy(&self.line).into_owned();
                    self.line.clear();
                    self.flush_held();
                    self.out.push_back(IcsItem::Prompt(p));
                    return;
                }
                if self.line.len() <= 10 && self.prompts.iter().any(|p| p == &self.line) {
                    let p = String::from_utf8_lossy(&self.line).into_owned();
                    self.line.clear();
                    self.flush_held();
                    self.out.push_back(IcsItem::Prompt(p));
                }
            }
        }
    }

    fn process(&mut self, src: &mut BytesMut) {
        let mut i = 0;
        while i < src.len() {
            let b = src[i];
            i += 1;
            match self.telnet {
                Telnet::Data => {
                    if b == IAC {
                        self.telnet = Telnet::Command;
                    } else {
                        self.push_byte(b);
                    }
                }
                Telnet::Command => {
                    self.telnet = match b {
                        IAC => {
                            self.push_byte(IAC);
                            Telnet::Data
                        }
                        251..=254 => Telnet::Option,
                        SB => Telnet::Sub,
                        _ => Telnet::Data,
                    }
                }
                Telnet::Option => self.telnet = Telnet::Data,
                Telnet::Sub => {
                    if b == IAC {
                        self.telnet = Telnet::SubIac;
                    }
                }
                Telnet::SubIac => {
                    self.telnet = if b == SE { Telnet::Data } else { Telnet::Sub };
                }
            }
        }
        src.advance(i);
    }
}

impl Decoder for IcsCodec {
    type Item = IcsItem;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<IcsItem>, std::io::Error> {
        if let Some(item) = self.out.pop_front() {
            return Ok(Some(item));
        }
        if !src.is_empty() {
            self.process(src);
        }
        Ok(self.out.pop_front())
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<IcsItem>, std::io::Error> {
        if let Some(item) = self.decode(src)? {
            return Ok(Some(item));
        }
        if !self.line.is_empty() && !self.dropping {
            let text = String::from_utf8_lossy(&self.line).into_owned();
            self.line.clear();
            self.flush_held();
            if !text.trim().is_empty() {
                self.out.push_back(IcsItem::Line(text));
            }
        }
        if let Some(dg) = self.dg.take() {
            self.out.push_back(IcsItem::BadDatagram(
                String::from_utf8_lossy(&dg).into_owned(),
            ));
        }
        self.flush_held();
        Ok(self.out.pop_front())
    }
}

/// Decodes a whole byte string at once (tests, transcripts): every item in order,
/// including what `decode_eof` flushes.
pub fn decode_all(bytes: &[u8], max_line: usize) -> Vec<IcsItem> {
    let mut codec = IcsCodec::new(max_line);
    let mut buf = BytesMut::from(bytes);
    let mut items = Vec::new();
    while let Ok(Some(item)) = codec.decode(&mut buf) {
        items.push(item);
    }
    while let Ok(Some(item)) = codec.decode_eof(&mut buf) {
        items.push(item);
    }
    items
}
