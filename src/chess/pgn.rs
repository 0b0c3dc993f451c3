//! PGN reading and writing.
//!
//! `PgnReader` streams games from any `BufRead` in bounded memory (lines longer than
//! `MAX_LINE` are cut), keeps tags, main-line moves with their NAGs and comments, and
//! skips variations. Moves are resolved against our own board (SAN, leniently, and
//! coordinate moves). A broken game (illegal move, bad FEN, unsupported variant) is
//! reported as an error naming its number and line, and reading goes on with the next.
//!
//! `PgnGame::to_pgn` writes the seven-tag roster first, then the other tags, then
//! movetext wrapped at 79 columns.

use super::board::{Board, START_FEN};
use super::moves::Move;
use std::fmt;
use std::io::BufRead;

/// Longest line kept; the rest of a longer line is dropped.
pub const MAX_LINE: usize = 1 << 20;

/// A move of the main line with what was written around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnMove {
    pub mv: Move,
    /// The move as written in the file.
    pub san: String,
    /// Numeric annotation glyphs, including those written as `!`, `?`, `!!`, `??`,
    /// `!?`, `?!` (1 to 6).
    pub nags: Vec<u8>,
    /// Comment after the move, if any (several comments are joined by a space).
    pub comment: Option<String>,
}

/// One game.
#[derive(Debug, Clone)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    /// The position before the first move.
    pub start: Board,
    pub moves: Vec<PgnMove>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// Comment before the first move.
    pub intro: Option<String>,
}

/// A game that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnError {
    /// 1-based number of the game in the file.
    pub game: usize,
    /// 1-based line where the problem was found.
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "game {} (line {}): {}",
            self.game, self.line, self.reason
        )
    }
}

impl std::error::Error for PgnError {}

impl Default for PgnGame {
    fn default() -> Self {
        PgnGame::new(Board::startpos())
    }
}

impl PgnGame {
    pub fn new(start: Board) -> PgnGame {
        PgnGame {
            tags: Vec::new(),
            start,
            moves: Vec::new(),
            result: "*".into(),
            intro: None,
        }
    }

    /// Value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets (or replaces) a tag.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some(t) => t.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// Appends a legal move; its SAN is computed from the position it is played in.
    pub fn push_move(&mut self, board: &Board, mv: Move) {
        self.moves.push(PgnMove {
            mv,
            san: board.san(mv),
            nags: Vec::new(),
            comment: None,
        });
    }

    /// The position after all moves.
    pub fn end_position(&self) -> Board {
        let mut b = self.start.clone();
        for m in &self.moves {
            b.make_move(m.mv);
        }
        b
    }

    /// Writes the game as PGN text (ends with a blank line).
    pub fn to_pgn(&self) -> String {
        const ROSTER: [&str; 7] = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
        let mut out = String::new();
        for name in ROSTER {
            let value = if name == "Result" {
                self.result.clone()
            } else {
                self.tag(name)
                    .map(str::to_string)
                    .unwrap_or_else(|| if name == "Date" { "????.??.??" } else { "?" }.into())
            };
            out.push_str(&format!("[{name} \"{}\"]\n", escape_tag(&value)));
        }
        let setup = self.start.to_fen() != START_FEN;
        for (name, value) in &self.tags {
            if ROSTER.contains(&name.as_str()) || name == "SetUp" || name == "FEN" {
                continue;
            }
            out.push_str(&format!("[{name} \"{}\"]\n", escape_tag(value)));
        }
        if setup {
            out.push_str("[SetUp \"1\"]\n");
            out.push_str(&format!("[FEN \"{}\"]\n", self.start.to_fen()));
        }
        out.push('\n');

        let mut tokens: Vec<String> = Vec::new();
        if let Some(c) = &self.intro {
            tokens.push(format!("{{{}}}", clean_comment(c)));
        }
        let mut b = self.start.clone();
        let mut need_number = true;
        for m in &self.moves {
            let white = b.side_to_move() == super::types::Color::White;
            if white {
                tokens.push(format!("{}.", b.fullmove_number()));
            } else if need_number {
                tokens.push(format!("{}...", b.fullmove_number()));
            }
            tokens.push(b.san(m.mv));
            need_number = false;
            for n in &m.nags {
                tokens.push(format!("${n}"));
            }
            if let Some(c) = &m.comment {
                tokens.push(format!("{{{}}}", clean_comment(c)));
                need_number = true;
            }
            b.make_move(m.mv);
        }
        tokens.push(self.result.clone());
        let mut line = String::new();
        for t in tokens {
            // Comments may be long: break them at spaces.
            for piece in t.split(' ') {
                let sep = if line.is_empty() { 0 } else { 1 };
                if !line.is_empty() && line.len() + sep + piece.len() > 79 {
                    out.push_str(&line);
                    out.push('\n');
                    line.clear();
                } else if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(piece);
            }
        }
        if !line.is_empty() {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
        out
    }
}

fn escape_tag(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"")
}

fn clean_comment(c: &str) -> String {
    c.replace('}', ")").replace(['\n', '\r'], " ")
}

fn is_result(t: &str) -> bool {
    matches!(t, "1-0" | "0-1" | "1/2-1/2" | "*" | "½-½")
}

/// Streams games from a reader.
pub struct PgnReader<R: BufRead> {
    reader: R,
    line_no: usize,
    game_no: usize,
    /// A line read ahead (the tag that started the next game).
    pending: Option<String>,
    buf: Vec<u8>,
    done: bool,
    /// The game last refused for an unreadable move, with the moves before it.
    partial: Option<PgnGame>,
}

enum Tok {
    Move(String),
    Nag(u8),
    Comment(String),
    Open,
    Close,
    Result(String),
}

impl<R: BufRead> PgnReader<R> {
    pub fn new(reader: R) -> PgnReader<R> {
        PgnReader {
            reader,
            line_no: 0,
            game_no: 0,
            pending: None,
            buf: Vec::new(),
            done: false,
            partial: None,
        }
    }

    /// Number of games started so far (the current game's number).
    pub fn games_read(&self) -> usize {
        self.game_no
    }

    /// Line number of the last line read.
    pub fn line(&self) -> usize {
        self.line_no
    }

    fn read_line(&mut self) -> Option<String> {
        if let Some(l) = self.pending.take() {
            return Some(l);
        }
        self.buf.clear();
        let mut total = 0usize;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.done = true;
                    break;
                }
            };
            if chunk.is_empty() {
                break;
            }
            let (used, found_nl) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            let room = MAX_LINE.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&chunk[..used.min(room)]);
            total += used;
            self.reader.consume(used);
            if found_nl {
                break;
            }
        }
        if total == 0 {
            self.done = true;
            return None;
        }
        self.line_no += 1;
        let mut s = String::from_utf8_lossy(&self.buf).into_owned();
        if self.line_no == 1 {
            if let Some(rest) = s.strip_prefix('\u{feff}') {
                s = rest.to_string();
            }
        }
        while s.ends_with('\n') || s.ends_with('\r') {
            s.pop();
        }
        Some(s)
    }

    fn err(&self, line: usize, reason: impl Into<String>) -> PgnError {
        PgnError {
            game: self.game_no,
            line,
            reason: reason.into(),
        }
    }

    /// The game `next_game` last refused for a move it could not read, with its tags,
    /// its result and the moves before that one (`None` when the last game was read,
    /// or refused for another reason). Taken once.
    pub fn take_partial(&mut self) -> Option<PgnGame> {
        self.partial.take()
    }

    /// Reads the next game. `None` at the end of the input.
    pub fn next_game(&mut self) -> Option<Result<PgnGame, PgnError>> {
        self.partial = None;
        // Skip to the start of a game: a tag or movetext.
        let first = loop {
            let line = self.read_line()?;
            let t = line.trim();
            if t.is_empty() || t.starts_with('%') {
                continue;
            }
            break line;
        };
        self.game_no += 1;
        let start_line = self.line_no;
        let mut tags: Vec<(String, String)> = Vec::new();
        let mut line = Some(first);
        let mut tag_error = None;
        // Tag section.
        while let Some(l) = line.take() {
            let t = l.trim();
            if t.is_empty() && !tags.is_empty() {
                line = self.read_line();
                // Blank lines between tags and moves.
                while let Some(ref l2) = line {
                    if l2.trim().is_empty() {
                        line = self.read_line();
                    } else {
                        break;
                    }
                }
                break;
            }
            if t.starts_with('[') {
                if let Err(e) = parse_tag_line(t, &mut tags) {
                    tag_error.get_or_insert(self.err(self.line_no, e));
                }
                line = self.read_line();
                continue;
            }
            line = Some(l);
            break;
        }

        let mut error = tag_error;
        let mut move_error = false;
        let mut board = Board::startpos();
        if error.is_none() {
            match start_position(&tags) {
                Ok(b) => board = b,
                Err(e) => error = Some(self.err(start_line, e)),
            }
        }
        let mut game = PgnGame::new(board.clone());
        game.tags = tags;

        // Movetext.
        let mut depth = 0usize; // variation nesting
        let mut in_comment: Option<String> = None;
        let mut finished = false;
        while let Some(l) = line.take() {
            let lno = self.line_no;
            if in_comment.is_none() && depth == 0 && l.starts_with('[') && !game_started(&game) {
                // Tags after a blank line before any move: keep reading tags (and
                // check a variant or FEN among them like the others).
                if let Err(e) = parse_tag_line(l.trim(), &mut game.tags) {
                    error.get_or_insert(self.err(lno, e));
                }
                if error.is_none() {
                    match start_position(&game.tags) {
                        Ok(b) => {
                            board = b.clone();
                            game.start = b;
                        }
                        Err(e) => error = Some(self.err(lno, e)),
                    }
                }
                line = self.read_line();
                continue;
            }
            if in_comment.is_none() && depth == 0 && l.starts_with('[') {
                // The next game started without a result.
                self.pending = Some(l);
                self.line_no -= 1;
                break;
            }
            // The escape applies to movetext lines; inside a comment a line may start
            // with '%' (the writer wraps comments at any word).
            if in_comment.is_none() && l.starts_with('%') {
                line = self.read_line();
                continue;
            }
            let mut toks = Vec::new();
            tokenize(&l, &mut in_comment, &mut toks);
            for tok in toks {
                if finished {
                    break;
                }
                match tok {
                    Tok::Open => depth += 1,
                    Tok::Close => depth = depth.saturating_sub(1),
                    _ if depth > 0 => {}
                    Tok::Result(r) => {
                        game.result = if r == "½-½" { "1/2-1/2".into() } else { r };
                        finished = true;
                    }
                    _ if error.is_some() => {}
                    Tok::Comment(c) => {
                        let c = c.trim().to_string();
                        match game.moves.last_mut() {
                            Some(m) => {
                                m.comment = Some(match m.comment.take() {
                                    Some(old) => format!("{old} {c}"),
                                    None => c,
                                })
                            }
                            None => {
                                game.intro = Some(match game.intro.take() {
                                    Some(old) => format!("{old} {c}"),
                                    None => c,
                                })
                            }
                        }
                    }
                    Tok::Nag(n) => {
                        if let Some(m) = game.moves.last_mut() {
                            m.nags.push(n);
                        }
                    }
                    Tok::Move(text) => {
                        let (core, nag) = split_suffix_nag(&text);
                        match board.parse_move(core) {
                            Ok(mv) => {
                                board.make_move(mv);
                                game.moves.push(PgnMove {
                                    mv,
                                    san: core.to_string(),
                                    nags: nag.into_iter().collect(),
                                    comment: None,
                                });
                            }
                            Err(e) => {
                                error = Some(
                                    self.err(lno, format!("move {}: {e}", move_label(&board))),
                                );
                                move_error = true;
                            }
                        }
                    }
                }
            }
            if finished {
                break;
            }
            line = self.read_line();
        }
        if !finished {
            if let Some(c) = in_comment {
                error.get_or_insert(self.err(
                    self.line_no,
                    format!("comment never closed: '{{{}'", truncate(&c, 40)),
                ));
            }
            if game.result == "*" {
                if let Some(r) = game.tag("Result") {
                    if is_result(r) {
                        game.result = r.to_string();
                    }
                }
            }
        }
        Some(match error {
            Some(e) => {
                if move_error {
                    self.partial = Some(game);
                }
                Err(e)
            }
            None => Ok(game),
        })
    }
}

impl<R: BufRead> Iterator for PgnReader<R> {
    type Item = Result<PgnGame, PgnError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done && self.pending.is_none() {
            return None;
        }
        self.next_game()
    }
}

/// The start position the tags ask for: refuses variants other than standard chess
/// and bad FEN tags.
fn start_position(tags: &[(String, String)]) -> Result<Board, String> {
    let variant = tags
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("Variant"))
        .map(|(_, v)| v.to_ascii_lowercase());
    if let Some(v) = variant {
        if !matches!(
            v.as_str(),
            "" | "standard" | "chess" | "normal" | "from position"
        ) {
            return Err(format!("variant '{v}' is not supported"));
        }
    }
    match tags.iter().find(|(n, _)| n == "FEN") {
        Some((_, fen)) => Board::from_fen(fen).map_err(|e| format!("bad FEN tag: {e}")),
        None => Ok(Board::startpos()),
    }
}

fn game_started(g: &PgnGame) -> bool {
    !g.moves.is_empty() || g.intro.is_some()
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// "12. Nf3" style label of the move about to be played.
fn move_label(board: &Board) -> String {
    let n = board.fullmove_number();
    match board.side_to_move() {
        super::types::Color::White => format!("{n}."),
        super::types::Color::Black => format!("{n}..."),
    }
}

/// Parses one or more `[Name "Value"]` tags on a line.
fn parse_tag_line(line: &str, tags: &mut Vec<(String, String)>) -> Result<(), String> {
    let mut rest = line.trim();
    while !rest.is_empty() {
        let inner = rest
            .strip_prefix('[')
            .ok_or_else(|| format!("bad tag line '{}'", truncate(line, 60)))?;
        let inner = inner.trim_start();
        let name_end = inner
            .find(|c: char| c.is_whitespace() || c == '"')
            .ok_or_else(|| format!("bad tag line '{}'", truncate(line, 60)))?;
        let name = &inner[..name_end];
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Err(format!("bad tag name in '{}'", truncate(line, 60)));
        }
        let after = inner[name_end..].trim_start();
        let after = after
            .strip_prefix('"')
            .ok_or_else(|| format!("tag {name} has no quoted value"))?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        value.push(n);
                    }
                }
                '"' => {
                    end = Some(i);
                    break;
                }
                c => value.push(c),
            }
        }
        let end = end.ok_or_else(|| format!("tag {name} value is not closed"))?;
        let tail = after[end + 1..].trim_start();
        let tail = tail
            .strip_prefix(']')
            .ok_or_else(|| format!("tag {name} is not closed with ']'"))?;
        tags.push((name.to_string(), value));
        rest = tail.trim_start();
    }
    Ok(())
}

/// `Nf3!?` -> ("Nf3", Some(5)). Check marks stay on the move text.
fn split_suffix_nag(text: &str) -> (&str, Option<u8>) {
    for (suffix, nag) in [
        ("!!", 3),
        ("??", 4),
        ("!?", 5),
        ("?!", 6),
        ("!", 1),
        ("?", 2),
    ] {
        if let Some(core) = text.strip_suffix(suffix) {
            return (core, Some(nag));
        }
    }
    (text, None)
}

fn tokenize(line: &str, in_comment: &mut Option<String>, out: &mut Vec<Tok>) {
    if let Some(c) = in_comment.as_mut() {
        match line.find('}') {
            Some(i) => {
                c.push(' ');
                c.push_str(&line[..i]);
                let text = in_comment.take().unwrap_or_default();
                out.push(Tok::Comment(text));
                tokenize_rest(&line[i + 1..], in_comment, out);
            }
            None => {
                // Keep memory bounded even for a comment that is never closed.
                if c.len() < MAX_LINE {
                    c.push(' ');
                    c.push_str(line);
                }
            }
        }
        return;
    }
    tokenize_rest(line, in_comment, out);
}

fn tokenize_rest(line: &str, in_comment: &mut Option<String>, out: &mut Vec<Tok>) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'{' => match line[i + 1..].find('}') {
                Some(j) => {
                    out.push(Tok::Comment(line[i + 1..i + 1 + j].to_string()));
                    i += j + 2;
                }
                None => {
                    *in_comment = Some(line[i + 1..].to_string());
                    return;
                }
            },
            b';' => return,
            b'(' => {
                out.push(Tok::Open);
                i += 1;
            }
            b')' => {
                out.push(Tok::Close);
                i += 1;
            }
            b'$' => {
                let start = i + 1;
                let mut j = start;
                while j < bytes.len() && bytes[j].is_ascii_digit() {
                    j += 1;
                }
                if let Ok(n) = line[start..j].parse::<u16>() {
                    out.push(Tok::Nag(n.min(255) as u8));
                }
                i = j.max(i + 1);
            }
            _ => {
                let start = i;
                while i < bytes.len()
                    && !matches!(
                        bytes[i],
                        b' ' | b'\t' | b'\r' | b'{' | b'(' | b')' | b';' | b'$'
                    )
                {
                    i += 1;
                }
                let word = &line[start..i];
                push_word(word, out);
            }
        }
    }
}

fn push_word(word: &str, out: &mut Vec<Tok>) {
    if is_result(word) {
        out.push(Tok::Result(word.to_string()));
        return;
    }
    // Move numbers: "12.", "12...", or glued "12.e4" / "12...Nf6".
    let digits = word.bytes().take_while(|b| b.is_ascii_digit()).count();
    let mut rest = word;
    if digits > 0 && word[digits..].starts_with('.') {
        rest = word[digits..].trim_start_matches('.');
    } else if digits == word.len() {
        return; // a bare number
    }
    let rest = rest.trim_start_matches('.');
    if rest.is_empty() {
        return;
    }
    if is_result(rest) {
        out.push(Tok::Result(rest.to_string()));
        return;
    }
    // Stand-alone annotation glyphs.
    match rest {
        "!" => return out.push(Tok::Nag(1)),
        "?" => return out.push(Tok::Nag(2)),
        "!!" => return out.push(Tok::Nag(3)),
        "??" => return out.push(Tok::Nag(4)),
        "!?" => return out.push(Tok::Nag(5)),
        "?!" => return out.push(Tok::Nag(6)),
        _ => {}
    }
    out.push(Tok::Move(rest.to_string()));
}

/// Reads every game of a string (convenience for tests and small files).
pub fn read_all(text: &str) -> Vec<Result<PgnGame, PgnError>> {
    PgnReader::new(std::io::Cursor::new(text.as_bytes())).collect()
}
