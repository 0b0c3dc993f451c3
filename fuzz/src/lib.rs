//! kibitzer's fuzz targets: every parser of outside input, each asserting more
//! than "no panic" where it can (a round trip, an invariant, a clear error).
//!
//! Two ways to run them:
//! - coverage-guided, with `cargo fuzz` on a nightly toolchain (`fuzz/README.md`):
//!   `fuzz_targets/<name>.rs` hands libFuzzer's input to the function here;
//! - on the stable toolchain, as part of the test suite: `tests/integration/
//!   fuzz_corpus.rs` includes this file and runs every committed corpus file
//!   (`fuzz/corpus/<name>/`) and a few thousand mutations of them through it.
//!
//! A target takes bytes; where the parser takes text, invalid UTF-8 is replaced
//! (the daemon's own readers do the same) so the fuzzer's bytes still reach it.

use kibitzer::chess::Board;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A fuzz target: bytes in, a panic on a finding.
pub type Target = fn(&[u8]);

/// Every target by name (the names of `fuzz_targets/*.rs` and `corpus/*/`).
pub const TARGETS: &[(&str, Target)] = &[
    ("ics_text", ics_text),
    ("icc_units", icc_units),
    ("timeseal", timeseal),
    ("lichess_events", lichess_events),
    ("web_http", web_http),
    ("fen_epd", fen_epd),
    ("moves", moves),
    ("pgn", pgn),
    ("config", config),
    ("protocol_lines", protocol_lines),
    ("book_files", book_files),
    ("learning_files", learning_files),
    ("engine_lines", engine_lines),
    ("tells_and_wire", tells_and_wire),
];

/// `s` cut in two near its middle (on a character boundary).
fn halves(s: &str) -> (&str, &str) {
    let mut i = s.len() / 2;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    s.split_at(i)
}

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A scratch directory of this process (files written by the file targets).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("kibitzer-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("scratch directory");
        d
    })
}

/// A file in the scratch directory holding `data` (one per thread and name).
fn scratch_file(name: &str, data: &[u8]) -> PathBuf {
    let p =
        scratch().join(format!("{:?}-{name}", std::thread::current().id()).replace(['(', ')'], ""));
    std::fs::write(&p, data).expect("write a scratch file");
    p
}

/// Positions the move targets start from: the start, castling both ways, en
/// passant, promotions with captures, a check, a checkmate, a stalemate.
const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/pppq1ppp/2n2n2/2bpp3/2BPP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 4 8",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 w - - 0 1",
    "1r2k3/P1P5/8/8/8/8/5p1p/3K2R1 b - - 0 1",
    "4k3/8/8/8/8/8/4q3/4K3 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
];

fn position(selector: u8) -> Board {
    Board::from_fen(POSITIONS[selector as usize % POSITIONS.len()]).expect("a good FEN")
}

/// FICS and lasker: bytes through the line codec, every line through the line
/// parser; a style-12 board that reads as a position gives the same position back
/// after `from_board`. Lines never pass the codec's limit.
pub fn ics_text(data: &[u8]) {
    use kibitzer::ics::codec::{decode_all, IcsItem};
    use kibitzer::ics::parse::LineParser;
    use kibitzer::ics::server::ServerKind;
    const MAX: usize = 4096;
    let items = decode_all(data, MAX);
    for kind in [ServerKind::Fics, ServerKind::Lasker] {
        let mut p = LineParser::for_server(kind);
        for it in &items {
            match it {
                IcsItem::Line(l) => {
                    assert!(
                        l.len() <= MAX + 8,
                        "a line of {} bytes passed the limit",
                        l.len()
                    );
                    let _ = p.line(l);
                }
                IcsItem::Prompt(t) => {
                    let _ = p.prompt(t);
                }
                _ => {}
            }
        }
    }
    for line in text(data).lines() {
        if let Some(s) = kibitzer::ics::event::Style12::parse(line) {
            if let Some(b) = s.board() {
                let again = kibitzer::ics::event::Style12::from_board(&b)
                    .board()
                    .expect("our own style 12 reads back");
                assert_eq!(
                    again.to_fen(),
                    b.to_fen(),
                    "style 12 round trip of {line:?}"
                );
            }
        }
    }
}

/// ICC: bytes through the codec in ICC mode (level-2 datagrams, level-1 units),
/// every datagram through the ICC parser; a datagram that reads is written back
/// by `encode` and reads the same.
pub fn icc_units(data: &[u8]) {
    use kibitzer::ics::codec::{decode_all, IcsItem};
    use kibitzer::ics::datagram::{encode, Datagram};
    use kibitzer::ics::parse::LineParser;
    use kibitzer::ics::server::ServerKind;
    let mut p = LineParser::for_server(ServerKind::Icc);
    for it in decode_all(data, 8192) {
        match it {
            IcsItem::Line(l) => {
                let _ = p.line(&l);
            }
            IcsItem::Prompt(t) => {
                let _ = p.prompt(&t);
            }
            IcsItem::Datagram(body) => {
                let _ = p.datagram(&body);
                if let Ok(mut d) = Datagram::parse(&body) {
                    // Control-Y cannot be carried in a field (`encode` drops it).
                    for f in &mut d.fields {
                        f.retain(|c| c != '\u{19}');
                    }
                    let fields: Vec<&str> = d.fields.iter().map(String::as_str).collect();
                    let wire = encode(d.number, &fields);
                    let inner = wire
                        .strip_prefix("\u{19}(")
                        .and_then(|w| w.strip_suffix("\u{19})"))
                        .unwrap_or(&wire);
                    let back = Datagram::parse(inner).expect("our own datagram reads back");
                    assert_eq!(back, d, "datagram round trip of {body:?}");
                }
            }
            other => {
                p.unit_start();
                let _ = format!("{other:?}");
                let _ = p.unit_end();
            }
        }
    }
}

/// Timeseal: what the server sends decodes or is refused; what we encode
/// decodes to the same line.
pub fn timeseal(data: &[u8]) {
    use kibitzer::ics::timeseal::{decode, encode};
    let _ = decode(data);
    if data.len() > 5 {
        let line = text(&data[5..]).replace(['\n', '\r', '\0'], " ");
        let stamp = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
        let enc = encode(&line, stamp, data[4]);
        let _ = decode(&enc);
    }
}

/// Lichess: every ndjson line through every reader of the API's answers.
pub fn lichess_events(data: &[u8]) {
    use kibitzer::lichess::event::*;
    let t = text(data);
    for line in t.lines() {
        let _ = parse_event(line);
        let _ = parse_game_event(line);
        let _ = parse_online_user(line);
    }
    let _ = parse_account(&t);
    let _ = parse_playing(&t);
    let _ = parse_challenge_id(&t);
}

/// The operator's window: raw bytes as an HTTP request to a running server (one
/// per process, with a token); the answer, if any, is an HTTP/1.1 status line,
/// and the server still answers a plain request afterwards.
pub fn web_http(data: &[u8]) {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;
    let addr = web_server();
    let ask = |bytes: &[u8]| -> Vec<u8> {
        let mut s = TcpStream::connect(addr).expect("connect to the window");
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let _ = s.write_all(bytes);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut out = Vec::new();
        let _ = s.take(1 << 20).read_to_end(&mut out);
        out
    };
    let answer = ask(data);
    if !answer.is_empty() {
        // hyper answers an HTTP/1.0 request in HTTP/1.0 (as RFC 9110 asks).
        assert!(
            answer.starts_with(b"HTTP/1.1 ") || answer.starts_with(b"HTTP/1.0 "),
            "not an HTTP answer: {:?}",
            String::from_utf8_lossy(&answer[..answer.len().min(80)])
        );
    }
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    if N.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 64 == 0 {
        let ok =
            ask(b"GET /api/status?token=fuzz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(
            ok.starts_with(b"HTTP/1.1 200"),
            "the window stopped answering: {:?}",
            String::from_utf8_lossy(&ok[..ok.len().min(200)])
        );
    }
}

fn web_server() -> std::net::SocketAddr {
    static ADDR: OnceLock<std::net::SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("a runtime");
            rt.block_on(async move {
                let (_keep, status) =
                    tokio::sync::watch::channel(kibitzer::bot::status::Status::default());
                let mut cfg = kibitzer::web::WebConfig::new("127.0.0.1:0".parse().unwrap());
                cfg.token = Some("fuzz".into());
                cfg.max_connections = 256;
                cfg.head_timeout = std::time::Duration::from_millis(500);
                let server = kibitzer::web::start(cfg, status)
                    .await
                    .expect("start the window");
                tx.send(server.local_addr()).unwrap();
                let _server = server;
                std::future::pending::<()>().await;
            });
        });
        rx.recv().expect("the window's address")
    })
}

/// FEN and EPD: a FEN that reads writes back the same, and reads again to the
/// same position; its legal moves each leave a position that writes a FEN that
/// reads. EPD lines read or are refused with a reason.
pub fn fen_epd(data: &[u8]) {
    let t = text(data);
    for line in t.lines().take(8) {
        if let Ok(b) = Board::from_fen(line) {
            let fen = b.to_fen();
            let again = Board::from_fen(&fen).expect("our own FEN reads back");
            assert_eq!(again.to_fen(), fen, "FEN round trip of {line:?}");
            assert_eq!(again.key(), b.key(), "the same key after the round trip");
            for &m in b.legal_moves().iter() {
                let mut c = b.clone();
                c.make_move(m);
                Board::from_fen(&c.to_fen()).expect("a position after a legal move reads");
            }
        }
        match kibitzer::chess::epd::Epd::parse(line) {
            Ok(e) => {
                let _ = e.op("bm");
                let _ = e.op_str("id");
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
}

/// Moves in every notation from one of a few positions: a move that reads is
/// legal there, its SAN reads back to the same move, and so does its coordinate
/// form.
pub fn moves(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let b = position(sel);
    let t = text(rest);
    for word in t.split_whitespace().take(16) {
        for m in [b.parse_move(word), b.parse_uci(word), b.parse_san(word)]
            .into_iter()
            .flatten()
        {
            {
                assert!(b.is_legal(m), "{word:?} read as an illegal move");
                let san = b.san(m);
                assert_eq!(
                    b.parse_san(&san).ok(),
                    Some(m),
                    "SAN round trip of {word:?}"
                );
                assert_eq!(
                    b.parse_move(&m.to_uci()).ok(),
                    Some(m),
                    "coordinates of {word:?}"
                );
                let _ = kibitzer::ics::command::move_text(&b, m);
            }
        }
    }
}

/// PGN: every game read is written by us and reads back with the same moves, the
/// same start and the same result.
pub fn pgn(data: &[u8]) {
    let t = text(data);
    for g in kibitzer::chess::pgn::read_all(&t).into_iter().take(16) {
        let Ok(g) = g else { continue };
        let out = g.to_pgn();
        let back: Vec<_> = kibitzer::chess::pgn::read_all(&out);
        let again = back
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("our PGN reads back: {out:?}"))
            .unwrap_or_else(|e| panic!("our PGN reads back: {e} in {out:?}"));
        assert_eq!(again.start.to_fen(), g.start.to_fen(), "start of {out:?}");
        let a: Vec<_> = g.moves.iter().map(|m| m.mv).collect();
        let b: Vec<_> = again.moves.iter().map(|m| m.mv).collect();
        assert_eq!(a, b, "moves of {out:?}");
        assert_eq!(again.result, g.result, "result of {out:?}");
    }
}

/// A configuration file: it loads or is refused with an error naming the
/// problem; never a panic, never a value outside its option's range.
pub fn config(data: &[u8]) {
    let p = scratch_file("config.toml", data);
    let env: [(&str, &str); 0] = [];
    match kibitzer::settings::load(Some(&p), env, &[]) {
        Ok(s) => {
            let _ = kibitzer::settings::seeks(&s.options);
            let _ = kibitzer::settings::web_listen(&s.options, false);
        }
        Err(e) => assert!(!e.to_string().is_empty(), "an error says what is wrong"),
    }
}

/// Lines the session target leaves out: commands that read or write files by
/// name (the fuzzer must not write over files, nor read `/dev/zero`) and
/// commands that run for minutes by design (perft, bench, test suites).
fn left_out(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    const ANYWHERE: &[&str] = &[
        "log", "learn", "path", "book", "save", "import", "input", "read",
    ];
    const FIRST: &[&str] = &[
        "ls", "perf", "perft", "bench", "test", "annotate", "selfplay", "tune", "rc", "cd", "pgn",
        "tables", "egtb", "datagen", "train", "shell", "!",
    ];
    let first = l.split_whitespace().next().unwrap_or("");
    ANYWHERE.iter().any(|w| l.contains(w)) || FIRST.contains(&first)
}

/// The console, UCI and xboard: lines to a session of the chosen protocol (the
/// first byte) with small limits; the session ends at its `quit` without a
/// panic. (Under `cargo fuzz` it runs in a scratch directory.)
pub fn protocol_lines(data: &[u8]) {
    use kibitzer::protocol::{output, run, Protocol, Session};
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    if cfg!(fuzzing) {
        static CWD: OnceLock<()> = OnceLock::new();
        CWD.get_or_init(|| {
            let d = scratch().join("session");
            std::fs::create_dir_all(&d).unwrap();
            std::env::set_current_dir(&d).unwrap();
        });
    }
    let proto = [Protocol::Console, Protocol::Uci, Protocol::Xboard][sel as usize % 3];
    let mut o = kibitzer::options::Options::new();
    o.set("hash", "1M").unwrap();
    o.set("noise", "0").unwrap();
    o.set("learn", "0").unwrap();
    o.set("bookpath", "").unwrap();
    // The input ends with `quit`: at the end of its input a session lets a
    // search that ends by itself finish, and `go depth 900` would.
    let mut input: String = text(rest)
        .lines()
        .take(64)
        .filter(|l| !left_out(l))
        .map(|l| {
            let l: String = l.chars().take(200).collect();
            format!("{l}\n")
        })
        .collect();
    input.push_str("quit\n");
    let mut s = Session::new(
        std::io::Cursor::new(input.into_bytes()),
        output(std::io::sink()),
        o,
    );
    run(&mut s, proto);
}

/// Book files (kibitzer's `.bin`, Polyglot, Crafty's): bytes read or are refused
/// with an error; a book that reads answers lookups with legal moves only.
pub fn book_files(data: &[u8]) {
    use kibitzer::book::{bookfile::BookFile, crafty::CraftyBook, key, polyglot::PolyglotBook};
    use std::path::Path;
    let path = Path::new("fuzz.bin");
    let boards: Vec<Board> = (0..POSITIONS.len() as u8).map(position).collect();
    if let Ok(b) = BookFile::from_bytes(path, data.to_vec()) {
        for (k, ms) in b.iter().take(64) {
            let _ = (k, ms.len());
        }
        for board in &boards {
            for m in b.lookup(key::polyglot_key(board)) {
                if let Some(mv) = key::decode_move(board, m.code) {
                    assert!(board.is_legal(mv));
                }
            }
        }
    }
    if let Ok(b) = PolyglotBook::from_bytes(path, data.to_vec()) {
        for board in &boards {
            for e in b.lookup(key::polyglot_key(board)) {
                if let Some(mv) = kibitzer::book::polyglot::decode(board, e.mv) {
                    assert!(board.is_legal(mv));
                }
            }
        }
        let _ = b.entries().take(64).count();
    }
    if let Ok(b) = CraftyBook::from_bytes(path, data.to_vec()) {
        for board in &boards {
            for (mv, _) in b.stats(board) {
                assert!(board.is_legal(mv));
            }
        }
    }
}

/// Learning files: a `.lrn` text's records write back and read the same;
/// `position.bin` and the book learning log read from disk or are refused (a
/// position file that reads is written again and reads the same entries).
pub fn learning_files(data: &[u8]) {
    use kibitzer::learn::lrn::{parse, Record};
    let (records, _problems) = parse(&text(data));
    // Written by us, a record reads back as one that writes the same text (the
    // first writing adds the tags every PGN has).
    let write = |r: &Record| match r {
        Record::Book(b) => b.to_pgn(),
        Record::Position(p) => p.to_pgn(),
    };
    for r in records.iter().take(8) {
        let out = write(r);
        let (back, problems) = parse(&out);
        assert_eq!(back.len(), 1, "{out:?} reads as one record: {problems:?}");
        assert_eq!(write(&back[0]), out, "learning record round trip");
    }
    let p = scratch_file("position.bin", data);
    if let Ok(store) = kibitzer::learn::position::PositionStore::load(&p) {
        let bytes = store.encode();
        let q = scratch_file("position2.bin", &bytes);
        let again = kibitzer::learn::position::PositionStore::load(&q).expect("our own file reads");
        assert_eq!(again.entries(), store.entries());
    }
    // Entries made of the bytes, written by us, read back the same.
    let mut store = kibitzer::learn::position::PositionStore::new(&scratch().join("unused"));
    for c in data.chunks_exact(11).take(64) {
        store.add(kibitzer::learn::position::PositionEntry {
            key: u64::from_le_bytes(c[0..8].try_into().unwrap()),
            score: i16::from_le_bytes([c[8], c[9]]) as i32,
            depth: c[10] as i32 % 100,
            code: u16::from_le_bytes([c[9], c[10]]),
        });
    }
    let q = scratch_file("position3.bin", &store.encode());
    let again = kibitzer::learn::position::PositionStore::load(&q).expect("our own file reads");
    assert_eq!(
        again.entries(),
        store.entries(),
        "position learning round trip"
    );
    let p = scratch_file("book.lrnlog", data);
    let _ = kibitzer::learn::overlay::Overlay::load(&p);
    // Training positions (`kibitzer datagen`): any 32 bytes decode to a position
    // or a clear error; a position read writes a record that reads back the same.
    use kibitzer::tools::datagen::{Sample, RECORD};
    for rec in data.chunks_exact(RECORD).take(16) {
        if let Ok(s) = Sample::decode(rec) {
            let back = Sample::decode(&s.encode()).expect("our own record reads");
            assert_eq!(back, s, "training record round trip");
        }
    }
    // A net file (`evaluation.net`): read or refused by name; one read writes
    // back the same bytes and evaluates a position.
    match kibitzer::nnue::Network::from_bytes(data, "fuzz") {
        Ok(net) => {
            assert_eq!(net.to_bytes(), data, "net file round trip");
            let _ = net.evaluate(&kibitzer::chess::Board::startpos());
        }
        Err(e) => assert!(e.starts_with("fuzz: "), "{e}"),
    }
}

/// An external engine's lines: the handshake, options, `info` and thinking lines
/// (PVs legal from the root, scores in range), best moves; and what we write to an
/// engine stays one line whatever an option's name or value holds.
pub fn engine_lines(data: &[u8]) {
    use kibitzer::external::protocol::*;
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let root = position(sel);
    let t = text(rest);
    for line in t.lines().take(32) {
        let _ = uci_handshake(line);
        let _ = xboard_handshake(line);
        if let Some(f) = xboard_features(line) {
            let _ = xboard_options(&f);
        }
        for info in [uci_info(line, &root), xboard_thinking(line, &root)]
            .into_iter()
            .flatten()
        {
            assert!(
                info.score.abs() <= kibitzer::engine::MATE,
                "score {}",
                info.score
            );
            let mut b = root.clone();
            for &m in &info.pv {
                assert!(b.is_legal(m), "an illegal PV move from {line:?}");
                b.make_move(m);
            }
        }
        let _ = uci_bestmove(line);
        let _ = xboard_move(line);
        let _ = kibitzer::external::parse_option_pairs(line);
        let (name, value) = halves(line);
        for set in [uci_setoption(name, value), xboard_option(name, value)] {
            assert!(
                !set.contains(|c: char| c.is_control()),
                "one line to the engine: {set:?}"
            );
        }
    }
}

/// Tells and everything we send: an owner's command, the owners list, a `list`
/// command, and any text rendered as a command for FICS, lasker or ICC is one
/// printable line that starts with its own command word; what cannot be a word is
/// refused, never sent.
pub fn tells_and_wire(data: &[u8]) {
    use kibitzer::ics::command::ServerCommand as C;
    use kibitzer::ics::server::{ServerKind, ServerProfile};
    let t = text(data);
    let _ = kibitzer::bot::ics::owner::OwnerCommand::parse(&t);
    let _ = kibitzer::bot::ics::owner::Owners::parse(&t);
    let _ = kibitzer::bot::lists::valid_handle(&t);
    let (a, b) = halves(&t);
    let cmds = [
        C::Tell(a.into(), b.into()),
        C::Whisper(t.clone()),
        C::Kibitz(t.clone()),
        C::Say(t.clone()),
        C::XWhisper(7, t.clone()),
        C::Set(a.into(), b.into()),
        C::FingerNote(data.first().copied().unwrap_or(1) % 12, t.clone()),
        C::Seek(t.clone()),
        C::Accept(Some(t.clone())),
        C::Observe(t.clone()),
        C::Move(t.clone()),
        C::Operator(t.clone()),
    ];
    for kind in [ServerKind::Fics, ServerKind::Lasker, ServerKind::Icc] {
        let p = ServerProfile::new(kind);
        for c in &cmds {
            if let Ok(line) = p.render(c, &|_| false) {
                assert!(
                    line.bytes().all(|b| (0x20..0x7f).contains(&b)),
                    "{c:?} rendered with a control or non-ASCII byte: {line:?}"
                );
                if let Some(sep) = p.separator {
                    assert!(
                        !line.contains(sep),
                        "{c:?} rendered with the separator: {line:?}"
                    );
                }
                assert!(line.len() <= p.max_text + 64, "{c:?} rendered too long");
            }
        }
    }
    let dir =
        scratch().join(format!("{:?}-lists", std::thread::current().id()).replace(['(', ')'], ""));
    let _ = std::fs::create_dir_all(&dir);
    let mut lists = kibitzer::bot::lists::Lists::load(&dir);
    if let Ok(reply) = lists.command(&t) {
        assert!(
            !reply.contains(&*dir.to_string_lossy()),
            "a reply shows the lists' path"
        );
    }
}
