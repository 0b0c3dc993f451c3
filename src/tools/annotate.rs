//! `annotate` and `annotateh`: Crafty's game annotation.
//!
//! `annotate <file> <colors|name> <moves> <margin> <time>` reads every game of a PGN
//! file (or a plain move list) and, for each selected move, searches the move played
//! and then every move. When the best move beats the played one by more than `margin`
//! pawns (or always, with a negative margin) the move gets the comment
//! `{real_value (depth:best_value PV)}`, scores from White's point of view. Moves
//! given in the file as variations `(Nf3)` or comments `{Nf3}` where they could have
//! been played are searched too (only the first move of each). The games are written
//! to `<file>.can` with their tags and these comments.
//!
//! `annotateh` also writes `<file>.html`: a self-contained page with an SVG board for
//! every commented position (the move played and the better move drawn as arrows) and
//! an SVG graph of the evaluation after every annotated move.
//!
//! The searches run on the engine given (the console's), limited by time per
//! search, or by depth or nodes (`d8`, `n200000`) so results do not depend on the
//! machine. Front ends parse nothing here but the argument string and print the
//! returned report; the progress callback drives their progress bar.

use crate::chess::pgn::{PgnGame, PgnReader};
use crate::chess::{Board, Color, Move};
use crate::engine::SearchResult;
use crate::engine::{EventSink, SearchConfig, SearchEvent, SearchLimits, Searcher};
use crate::format;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The arguments' syntax, for usage lines.
pub const USAGE: &str =
    "<file> <w|b|wb|name> <moves: 20-33|1-999|20> <margin pawns> <seconds|dN|nN>";

/// Which side's moves are annotated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sides {
    White,
    Black,
    Both,
    /// The side whose name (White or Black tag) contains this text (case-sensitive).
    Player(String),
}

/// How long each search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Time(Duration),
    Depth(i32),
    Nodes(u64),
}

impl std::fmt::Display for Limit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limit::Time(t) => write!(f, "{} s per search", t.as_secs_f64()),
            Limit::Depth(d) => write!(f, "depth {d}"),
            Limit::Nodes(n) => write!(f, "{n} nodes per search"),
        }
    }
}

/// A parsed `annotate` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub file: PathBuf,
    pub sides: Sides,
    /// First and last full-move number annotated.
    pub first: u32,
    pub last: u32,
    /// Centipawns; negative: comment every selected move.
    pub margin: i32,
    pub limit: Limit,
    /// Also write the HTML page (`annotateh`).
    pub html: bool,
}

/// Splits arguments at spaces, keeping `"double quoted"` words together.
fn words(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in args.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

impl Request {
    /// Parses `<file> <colors|name> <moves> <margin> <time>`; the error says which
    /// argument is wrong and what was expected.
    pub fn parse(args: &str, html: bool) -> Result<Request, String> {
        let w = words(args);
        if w.len() != 5 {
            return Err(format!("expected 5 arguments, got {}", w.len()));
        }
        let sides = match w[1].as_str() {
            "w" | "W" | "white" => Sides::White,
            "b" | "B" | "black" => Sides::Black,
            "wb" | "bw" | "WB" | "BW" => Sides::Both,
            name => Sides::Player(name.to_string()),
        };
        let num = |t: &str| -> Result<u32, String> {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| format!("moves: '{t}' is not a move number (1 or more)"))
        };
        let (first, last) = match w[2].split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(&w[2])?, u32::MAX),
        };
        if first > last {
            return Err(format!("moves: {first} comes after {last}"));
        }
        let margin: f64 = w[3]
            .parse()
            .ok()
            .filter(|m: &f64| m.is_finite() && m.abs() < 1000.0)
            .ok_or_else(|| format!("margin: '{}' is not a number of pawns", w[3]))?;
        let limit = parse_limit(&w[4])?;
        Ok(Request {
            file: PathBuf::from(&w[0]),
            sides,
            first,
            last,
            margin: (margin * 100.0).round() as i32,
            limit,
            html,
        })
    }

    /// `<file>.can`.
    pub fn can_path(&self) -> PathBuf {
        append_ext(&self.file, "can")
    }

    /// `<file>.html`.
    pub fn html_path(&self) -> PathBuf {
        append_ext(&self.file, "html")
    }
}

fn append_ext(p: &Path, ext: &str) -> PathBuf {
    let mut s = p.as_os_str().to_os_string();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// `30`, `2.5` (seconds), `d8` (depth), `n200000` (nodes).
pub fn parse_limit(t: &str) -> Result<Limit, String> {
    let bad = || format!("time: '{t}' is not seconds, dN (depth) or nN (nodes)");
    if let Some(d) = t.strip_prefix('d') {
        return d
            .parse::<i32>()
            .ok()
            .filter(|d| (1..=100).contains(d))
            .map(Limit::Depth)
            .ok_or_else(bad);
    }
    if let Some(n) = t.strip_prefix('n') {
        return n
            .parse::<u64>()
            .ok()
            .filter(|&n| n >= 1)
            .map(Limit::Nodes)
            .ok_or_else(bad);
    }
    let s: f64 = t.parse().map_err(|_| bad())?;
    if !(0.001..=86_400.0).contains(&s) {
        return Err(bad());
    }
    Ok(Limit::Time(Duration::from_secs_f64(s)))
}

/// A move searched on its own (an analysis move from the file).
#[derive(Clone, Debug)]
pub struct Alternative {
    pub mv: Move,
    pub san: String,
    /// White's point of view.
    pub score: i32,
    pub depth: i32,
    pub pv: Vec<Move>,
}

/// One annotated move: the position before it and what the searches found.
#[derive(Clone, Debug)]
pub struct Ply {
    /// 0-based index of the move in the game.
    pub index: usize,
    pub board: Board,
    pub played: Move,
    pub played_san: String,
    /// Score of the move played, White's point of view.
    pub played_score: i32,
    pub played_depth: i32,
    /// Best move of the search over all moves, with its score (White's view), depth
    /// and principal variation.
    pub best: Move,
    pub best_score: i32,
    pub best_depth: i32,
    pub best_pv: Vec<Move>,
    pub alternatives: Vec<Alternative>,
    /// The comment written after the move, if any.
    pub comment: Option<String>,
}

impl Ply {
    /// The best move when it is another move than the one played.
    pub fn better(&self) -> Option<Move> {
        (self.best != self.played && !self.best.is_null()).then_some(self.best)
    }

    /// `12.` or `12...` before the move.
    pub fn label(&self) -> String {
        let n = self.board.fullmove_number();
        match self.board.side_to_move() {
            Color::White => format!("{n}."),
            Color::Black => format!("{n}..."),
        }
    }
}

/// One game as annotated.
#[derive(Clone, Debug)]
pub struct AnnotatedGame {
    /// The game with the annotation comments (and no others).
    pub pgn: PgnGame,
    /// The sides annotated.
    pub sides: Vec<Color>,
    pub plies: Vec<Ply>,
}

impl AnnotatedGame {
    pub fn comments(&self) -> usize {
        self.plies.iter().filter(|p| p.comment.is_some()).count()
    }
}

/// What `annotate` did.
#[derive(Clone, Debug)]
pub struct Report {
    pub games: Vec<AnnotatedGame>,
    /// Games not annotated, with the reason.
    pub skipped: Vec<String>,
    pub can_path: PathBuf,
    pub html_path: Option<PathBuf>,
}

impl Report {
    pub fn plies(&self) -> usize {
        self.games.iter().map(|g| g.plies.len()).sum()
    }

    pub fn comments(&self) -> usize {
        self.games.iter().map(|g| g.comments()).sum()
    }

    /// The console's closing line.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "annotate: {} game(s), {} move(s) searched, {} comment(s) -> {}",
            self.games.len(),
            self.plies(),
            self.comments(),
            self.can_path.display()
        );
        if let Some(h) = &self.html_path {
            s.push_str(&format!(", {}", h.display()));
        }
        if !self.skipped.is_empty() {
            s.push_str(&format!(" ({} skipped)", self.skipped.len()));
        }
        s
    }
}

/// Marks the start of every comment and variation of the movetext (the PGN reader
/// joins the comments after a move): `{text}` becomes `{\x1ftext}` and a variation
/// `(Nf3 e5 (d4) {x})` becomes the comment `{\x1f(Nf3 e5)}`, its own comments and
/// inner variations dropped. Tag lines and `;` comments are kept as they are.
const MARK: char = '\u{1f}';

fn mark_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_comment = false;
    let mut depth = 0usize;
    let mut var_comment = false;
    let mut var = String::new();
    for line in text.split_inclusive('\n') {
        let top = !in_comment && depth == 0;
        if top && (line.starts_with('[') || line.starts_with('%')) {
            out.push_str(line);
            continue;
        }
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if in_comment {
                if c == '}' {
                    in_comment = false;
                }
                out.push(c);
                continue;
            }
            if depth > 0 {
                if var_comment {
                    var_comment = c != '}';
                    continue;
                }
                match c {
                    '{' => var_comment = true,
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            out.push_str(&format!(" {{{MARK}({})}} ", var.trim()));
                            var.clear();
                        }
                    }
                    '\n' | '\r' | ';' if depth == 1 => var.push(' '),
                    c if depth == 1 => var.push(c),
                    _ => {}
                }
                continue;
            }
            match c {
                '{' => {
                    in_comment = true;
                    out.push('{');
                    out.push(MARK);
                }
                '(' => depth = 1,
                ';' => {
                    out.push(';');
                    out.extend(chars.by_ref());
                }
                c => out.push(c),
            }
        }
    }
    out
}

/// The first move of a comment or variation segment, resolved in `board`.
fn first_move(segment: &str, board: &Board) -> Option<Move> {
    let s = segment.trim();
    let s = s
        .strip_prefix('(')
        .map(|v| v.trim_end_matches(')'))
        .unwrap_or(s);
    let tok = s.split_whitespace().find(|t| {
        // Skip move numbers ("12.", "12...").
        !t.trim_end_matches('.').chars().all(|c| c.is_ascii_digit())
    })?;
    let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let tok = tok.trim_end_matches(['!', '?', ',', ';']);
    if tok.is_empty() {
        return None;
    }
    board.parse_move(tok).ok().filter(|&m| board.is_legal(m))
}

/// The analysis moves given in the file, per move of the game (alternatives to that
/// move): a variation or comment after move i is an alternative to move i; a comment
/// whose first move is not legal there but is legal after move i belongs to move i+1;
/// the comment before the first move belongs to it.
fn analysis_moves(game: &PgnGame) -> Vec<Vec<Move>> {
    let n = game.moves.len();
    let mut boards = Vec::with_capacity(n + 1);
    let mut b = game.start.clone();
    boards.push(b.clone());
    for m in &game.moves {
        b.make_move(m.mv);
        boards.push(b.clone());
    }
    let mut out = vec![Vec::new(); n];
    let mut add = |i: usize, m: Move| {
        if i < n && game.moves[i].mv != m && !out[i].contains(&m) {
            out[i].push(m);
        }
    };
    if let Some(intro) = &game.intro {
        for seg in intro.split(MARK) {
            if let Some(m) = first_move(seg, &boards[0]) {
                add(0, m);
            }
        }
    }
    for (i, pm) in game.moves.iter().enumerate() {
        let Some(c) = &pm.comment else { continue };
        for seg in c.split(MARK) {
            if let Some(m) = first_move(seg, &boards[i]) {
                add(i, m);
            } else if i + 1 < n {
                if let Some(m) = first_move(seg, &boards[i + 1]) {
                    add(i + 1, m);
                }
            }
        }
    }
    out
}

/// Runs one search to its limit and returns the result.
fn search(
    engine: &dyn Searcher,
    board: &Board,
    limit: Limit,
    config: &SearchConfig,
    only: Option<Move>,
) -> SearchResult {
    let mut limits = match limit {
        Limit::Depth(d) => SearchLimits::depth(d),
        Limit::Nodes(n) => SearchLimits::nodes(n),
        // Timed searches of a single root move stop after one iteration (a forced
        // move is played at once): search "without end" and stop it on time instead.
        Limit::Time(_) => SearchLimits {
            infinite: true,
            ..Default::default()
        },
    };
    if let Some(m) = only {
        limits.searchmoves = vec![m];
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    let sink: EventSink = Arc::new(move |e: &SearchEvent| {
        if let SearchEvent::Done(r) = e {
            let _ = tx.lock().unwrap_or_else(|e| e.into_inner()).send(r.clone());
        }
    });
    engine.go(board, limits, config.clone(), sink);
    let r = match limit {
        Limit::Time(t) => match rx.recv_timeout(t) {
            Ok(r) => r,
            Err(_) => {
                engine.stop();
                rx.recv().expect("a search always ends with Done")
            }
        },
        _ => rx.recv().expect("a search always ends with Done"),
    };
    engine.wait();
    r
}

fn white(score: i32, side: Color) -> i32 {
    match side {
        Color::White => score,
        Color::Black => -score,
    }
}

/// The sides to annotate in a game, or why it is skipped.
fn sides_of(game: &PgnGame, sides: &Sides) -> Result<Vec<Color>, String> {
    Ok(match sides {
        Sides::White => vec![Color::White],
        Sides::Black => vec![Color::Black],
        Sides::Both => vec![Color::White, Color::Black],
        Sides::Player(name) => {
            let w = game.tag("White").unwrap_or("").contains(name.as_str());
            let b = game.tag("Black").unwrap_or("").contains(name.as_str());
            match (w, b) {
                (true, true) => {
                    return Err(format!("'{name}' matches both players' names"));
                }
                (true, false) => vec![Color::White],
                (false, true) => vec![Color::Black],
                (false, false) => return Err(format!("'{name}' plays in neither colour")),
            }
        }
    })
}

fn game_title(g: &PgnGame) -> String {
    format!(
        "{} - {}",
        g.tag("White").unwrap_or("?"),
        g.tag("Black").unwrap_or("?")
    )
}

/// Annotates every game of `req.file`, writes `<file>.can` (and `<file>.html`), and
/// returns the report. `progress(done, total)` is called after every annotated move;
/// `note` receives one line per comment and per skipped game.
pub fn annotate(
    engine: &dyn Searcher,
    config: &SearchConfig,
    req: &Request,
    progress: &mut dyn FnMut(u64, u64),
    note: &mut dyn FnMut(&str),
) -> Result<Report, String> {
    let bytes = std::fs::read(&req.file).map_err(|e| format!("{}: {e}", req.file.display()))?;
    let text = mark_comments(&String::from_utf8_lossy(&bytes));
    let mut skipped = Vec::new();
    // Read everything first: the progress bar needs the total.
    let mut work = Vec::new();
    let mut cut = Vec::new();
    let mut reader = PgnReader::new(std::io::Cursor::new(text.as_bytes()));
    let mut n = 0;
    while let Some(g) = reader.next_game() {
        n += 1;
        let g = match g {
            Ok(g) => g,
            // A move that cannot be read (ChessBase's `Z0` null move, a typo): the
            // moves before it are annotated, and the note says where it stopped.
            Err(e) => match reader.take_partial().filter(|p| !p.moves.is_empty()) {
                Some(p) => {
                    cut.push(format!(
                        "game {n} ({}): annotated up to ply {}, then stopped: {e}",
                        game_title(&p),
                        p.moves.len()
                    ));
                    p
                }
                None => {
                    skipped.push(e.to_string());
                    continue;
                }
            },
        };
        match sides_of(&g, &req.sides) {
            Ok(sides) => work.push((g, sides)),
            Err(why) => skipped.push(format!("game {n} ({}): {why}", game_title(&g))),
        }
    }
    for s in &skipped {
        note(&format!("skipped {s}"));
    }
    for s in &cut {
        note(s);
    }
    let selected = |b: &Board, sides: &[Color]| {
        let n = b.fullmove_number() as u32;
        sides.contains(&b.side_to_move()) && n >= req.first && n <= req.last
    };
    let mut total = 0u64;
    for (g, sides) in &work {
        let mut b = g.start.clone();
        for m in &g.moves {
            total += selected(&b, sides) as u64;
            b.make_move(m.mv);
        }
    }
    if work.is_empty() {
        return Err(match skipped.first() {
            Some(s) => format!("no game to annotate in {} ({s})", req.file.display()),
            None => format!("no game in {}", req.file.display()),
        });
    }
    let mut done = 0u64;
    progress(done, total);
    let mut games = Vec::new();
    for (g, sides) in work {
        let alts = analysis_moves(&g);
        let mut out = g.clone();
        out.intro = None;
        out.set_tag(
            "Annotator",
            &format!("kibitzer {}", env!("CARGO_PKG_VERSION")),
        );
        let mut plies = Vec::new();
        let mut b = g.start.clone();
        for (i, pm) in g.moves.iter().enumerate() {
            out.moves[i].comment = None;
            out.moves[i].nags.clear();
            if !selected(&b, &sides) {
                b.make_move(pm.mv);
                continue;
            }
            let side = b.side_to_move();
            let played = search(engine, &b, req.limit, config, Some(pm.mv));
            let best = search(engine, &b, req.limit, config, None);
            let played_stm = played.score;
            let best_stm = best.score;
            let better = best.best != pm.mv && !best.best.is_null();
            let best_pv = format::legal_prefix(&b, &best.pv).to_vec();
            let mut parts = Vec::new();
            if req.margin < 0 || (better && best_stm - played_stm > req.margin) {
                parts.push(format!(
                    "{} ({}:{} {})",
                    format::score(white(played_stm, side)),
                    best.depth,
                    format::score(white(best_stm, side)),
                    format::pv(&b, &best_pv, true)
                ));
            }
            let mut alternatives = Vec::new();
            for &alt in &alts[i] {
                let r = search(engine, &b, req.limit, config, Some(alt));
                let pv = format::legal_prefix(&b, &r.pv).to_vec();
                let a = Alternative {
                    mv: alt,
                    san: b.san(alt),
                    score: white(r.score, side),
                    depth: r.depth,
                    pv,
                };
                parts.push(format!(
                    "{}: {} ({}:{})",
                    a.san,
                    format::score(a.score),
                    a.depth,
                    if a.pv.is_empty() {
                        String::new()
                    } else {
                        format!(" {}", format::pv(&b, &a.pv, true))
                    }
                ));
                alternatives.push(a);
            }
            let comment = (!parts.is_empty()).then(|| parts.join("; "));
            let ply = Ply {
                index: i,
                board: b.clone(),
                played: pm.mv,
                played_san: b.san(pm.mv),
                played_score: white(played_stm, side),
                played_depth: played.depth,
                best: if best.best.is_null() {
                    pm.mv
                } else {
                    best.best
                },
                best_score: white(best_stm, side),
                best_depth: best.depth,
                best_pv,
                alternatives,
                comment: comment.clone(),
            };
            if let Some(c) = &comment {
                note(&format!("{} {} {{{c}}}", ply.label(), ply.played_san));
            }
            out.moves[i].comment = comment;
            plies.push(ply);
            b.make_move(pm.mv);
            done += 1;
            progress(done, total);
        }
        games.push(AnnotatedGame {
            pgn: out,
            sides,
            plies,
        });
    }
    let can_path = req.can_path();
    let can: String = games.iter().map(|g| g.pgn.to_pgn()).collect();
    std::fs::write(&can_path, can).map_err(|e| format!("{}: {e}", can_path.display()))?;
    let html_path = if req.html {
        let p = req.html_path();
        std::fs::write(&p, html(&games, req)).map_err(|e| format!("{}: {e}", p.display()))?;
        Some(p)
    } else {
        None
    };
    Ok(Report {
        games,
        skipped,
        can_path,
        html_path,
    })
}

// ----- HTML and SVG (drawn by `crate::svg`) ----------------------------------------

pub use crate::svg::{board_svg, escape, graph_svg};

fn side_names(sides: &[Color]) -> String {
    let v: Vec<&str> = sides.iter().map(|c| c.name()).collect();
    v.join(" and ")
}

/// The self-contained HTML page for the annotated games.
pub fn html(games: &[AnnotatedGame], req: &Request) -> String {
    let title = match games.first() {
        Some(g) if games.len() == 1 => game_title(&g.pgn),
        _ => req.file.display().to_string(),
    };
    let mut s = String::new();
    s.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    s.push_str(&format!("<title>{}</title>\n", escape(&title)));
    s.push_str(
        "<style>\nbody{font-family:sans-serif;max-width:960px;margin:1em auto;padding:0 1em;color:#222}\n\
table.tags td{padding:0 .6em 0 0}\n.moves{line-height:1.7}\n.move{font-weight:bold}\n\
.comment{color:#1a5276}\n.diagram{display:flex;gap:1em;align-items:center;margin:.6em 0}\n\
.diagram svg.board{flex:none}\n\
.legend{font-size:.9em;color:#555}\n</style>\n</head>\n<body>\n",
    );
    s.push_str(&format!(
        "<h1>{}</h1>\n<p class=\"legend\">Annotated by kibitzer: moves {}{}, margin {} pawns, {}. \
Scores are from White's point of view. Red arrow: the move played; green arrow: the better move.</p>\n",
        escape(&title),
        req.first,
        if req.last == u32::MAX {
            " to the end".to_string()
        } else {
            format!("-{}", req.last)
        },
        format::score(req.margin).trim_start_matches('+'),
        req.limit
    ));
    for (gi, g) in games.iter().enumerate() {
        s.push_str(&format!(
            "<section class=\"game\" id=\"game{}\">\n<h2>{}</h2>\n<table class=\"tags\">\n",
            gi + 1,
            escape(&game_title(&g.pgn))
        ));
        for (k, v) in &g.pgn.tags {
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td></tr>\n",
                escape(k),
                escape(v)
            ));
        }
        s.push_str(&format!(
            "</table>\n<p>{} annotated; result {}</p>\n<h3>Evaluation</h3>\n",
            side_names(&g.sides),
            escape(&g.pgn.result)
        ));
        let points: Vec<(String, i32)> = g
            .plies
            .iter()
            .map(|p| (format!("{} {}", p.label(), p.played_san), p.played_score))
            .collect();
        s.push_str(&graph_svg(&points));
        s.push_str("\n<h3>Moves</h3>\n<div class=\"moves\">\n");
        let mut b = g.pgn.start.clone();
        let mut need_number = true;
        for (i, m) in g.pgn.moves.iter().enumerate() {
            let n = b.fullmove_number();
            let label = match b.side_to_move() {
                Color::White => format!("{n}. "),
                Color::Black if need_number => format!("{n}... "),
                Color::Black => String::new(),
            };
            s.push_str(&format!(
                "<span class=\"move\">{}{}</span>\n",
                label,
                escape(&b.san(m.mv))
            ));
            need_number = false;
            if let Some(c) = &m.comment {
                let ply = g.plies.iter().find(|p| p.index == i);
                // The comment names the move with its number: `12... Bd7`.
                let numbered = match b.side_to_move() {
                    Color::White => format!("{n}. "),
                    Color::Black => format!("{n}... "),
                };
                s.push_str("<div class=\"diagram\">");
                s.push_str(&board_svg(&b, Some(m.mv), ply.and_then(|p| p.better())));
                s.push_str(&format!(
                    "<p class=\"comment\">{}{} {{{}}}</p></div>\n",
                    numbered,
                    escape(&b.san(m.mv)),
                    escape(c)
                ));
                need_number = true;
            }
            b.make_move(m.mv);
        }
        s.push_str(&format!(
            "<span class=\"result\">{}</span>\n</div>\n</section>\n",
            escape(&g.pgn.result)
        ));
    }
    s.push_str("</body>\n</html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments() {
        let r = Request::parse("game.pgn wb 20-33 0.5 d6", false).unwrap();
        assert_eq!(r.sides, Sides::Both);
        assert_eq!((r.first, r.last, r.margin), (20, 33, 50));
        assert_eq!(r.limit, Limit::Depth(6));
        let r = Request::parse("g \"Ding, Liren\" 12 -1 2.5", true).unwrap();
        assert_eq!(r.sides, Sides::Player("Ding, Liren".into()));
        assert_eq!((r.first, r.last, r.margin), (12, u32::MAX, -100));
        assert_eq!(r.limit, Limit::Time(Duration::from_millis(2500)));
        assert_eq!(r.can_path(), PathBuf::from("g.can"));
        assert!(Request::parse("g w 1-999 1", false).is_err());
        assert!(Request::parse("g w x 1 30", false)
            .unwrap_err()
            .contains("moves"));
        assert!(Request::parse("g w 5-2 1 30", false).is_err());
        assert!(Request::parse("g w 1-9 z 30", false)
            .unwrap_err()
            .contains("margin"));
        assert!(Request::parse("g w 1-9 1 q", false)
            .unwrap_err()
            .contains("time"));
    }

    #[test]
    fn comments_and_variations_become_analysis_moves() {
        let text = "[Event \"x (y)\"]\n\n{d4} 1. e4 (1. c4 e5 (1... c5) {hm}) e5 2. Nf3 {Nc6 is usual} ({Bc4}) Nc6 *\n";
        let marked = mark_comments(text);
        assert!(marked.contains("[Event \"x (y)\"]"));
        let g = crate::chess::pgn::read_all(&marked).remove(0).unwrap();
        let alts = analysis_moves(&g);
        let b = Board::startpos();
        assert_eq!(alts[0].len(), 2, "{alts:?}");
        assert!(alts[0].contains(&b.parse_move("d4").unwrap()));
        assert!(alts[0].contains(&b.parse_move("c4").unwrap()));
        // `{Nc6 is usual}` after 2. Nf3 is Black's move: it belongs to ply 3, which
        // played Nc6 itself, so nothing is added; the empty variation adds nothing.
        assert!(alts[1].is_empty() && alts[2].is_empty() && alts[3].is_empty());
    }

    #[test]
    fn svg_board_has_pieces_and_arrows() {
        let b = Board::startpos();
        let e4 = b.parse_move("e4").unwrap();
        let d4 = b.parse_move("d4").unwrap();
        let s = board_svg(&b, Some(e4), Some(d4));
        assert_eq!(s.matches("class=\"piece\"").count(), 32);
        assert!(s.contains("class=\"arrow played\" data-from=\"e2\" data-to=\"e4\""));
        assert!(s.contains("class=\"arrow best\" data-from=\"d2\" data-to=\"d4\""));
        let g = graph_svg(&[("1. e4".into(), 20), ("1... e5".into(), -30)]);
        assert_eq!(g.matches("class=\"point\"").count(), 2);
    }

    #[test]
    fn the_graph_has_move_numbers_a_pawn_scale_and_a_legend() {
        let points: Vec<(String, i32)> = (0..40)
            .map(|i| {
                let n = 10 + i / 2;
                let label = if i % 2 == 0 {
                    format!("{n}. Nf3")
                } else {
                    format!("{n}... Bd7")
                };
                (label, (i - 20) * 30)
            })
            .collect();
        let g = graph_svg(&points);
        let x_labels: Vec<&str> = g
            .split("class=\"x-label\"")
            .skip(1)
            .map(|t| t.split('>').nth(1).unwrap().split('<').next().unwrap())
            .collect();
        assert!(x_labels.len() >= 8 && x_labels.len() <= 21, "{x_labels:?}");
        assert_eq!(x_labels[0], "10.");
        assert!(x_labels.contains(&"29..."), "{x_labels:?}");
        for y in [">+6<", ">+3<", ">0<", ">-3<", ">-6<"] {
            assert!(g.contains(y), "{y}");
        }
        assert!(g.contains("class=\"legend\"") && g.contains("White better"));
        assert!(g.contains("Black better") && g.contains("White's view"));
    }

    #[test]
    fn boards_keep_their_size_and_comments_number_black_moves() {
        let text = "[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 {a long comment that wraps around the board, and goes on and on} 3. Bb5 *\n";
        let pgn = crate::chess::pgn::read_all(text).remove(0).unwrap();
        let game = AnnotatedGame {
            pgn,
            sides: vec![Color::Black],
            plies: Vec::new(),
        };
        let req = Request::parse("g.pgn b 1-999 0.5 d2", true).unwrap();
        let page = html(&[game], &req);
        assert!(
            page.contains("<p class=\"comment\">2... Nc6 {a long"),
            "{page}"
        );
        // The board is not shrunk by the comment beside it (fixed size in a flex row).
        assert!(page.contains(".diagram svg.board{flex:none}"), "{page}");
        assert!(page.contains("<svg class=\"board\"") && page.contains("width=\""));
    }
}
