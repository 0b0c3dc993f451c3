//! The fake server's ICC mode (`FakeConfig::icc`): the same games, clock and
//! opponent as the FICS-lineage mode, told the way ICC's published formats
//! (`formats.txt`) describe: level-1 units (`^Y[<command> <issuer>` ... `^Y]`, no
//! prompts) around level-2 units (`^Y(<number> fields ^Y)`, `{}` and `^Y{ ^Y}`
//! quoting). A game starts with DG_MY_GAME_STARTED, DG_MY_RELATION_TO_GAME,
//! DG_POSITION_BEGIN (and the moves so far, for a resumed game) and DG_MSEC for
//! both clocks; each move is DG_SEND_MOVES (algebraic, Smith, seconds used,
//! seconds left) followed by DG_MSEC; the end is DG_MY_GAME_RESULT (the 3-letter
//! code, the score and ICC's description with White/Black) and
//! DG_MY_RELATION_TO_GAME `X`; offers are DG_OFFERS_IN_MY_GAME; challenges
//! DG_MATCH; tells DG_PERSONAL_TELL; kibitzes DG_KIBITZ; refused moves
//! DG_ILLEGAL_MOVE (with the text ICC sends anyway).

use super::{Game, World, OPP};
use kibitzer::chess::{Board, Color, Move};
use kibitzer::ics::datagram::encode;
use kibitzer::ics::icc::dg;

pub(super) const BANNER: &str =
    "\n\r  (fake ICC server for tests)\n\r\n\rEnter \"guest\" to look around.\n\rlogin: ";

/// ICC's level-1 command numbers used here (Appendix 1 of `formats.txt`).
pub(super) const CN_MOVE: u32 = 2;
pub(super) const CN_LOGIN: u32 = 12;
pub(super) const CN_ACCEPT: u32 = 123;
pub(super) const CN_MATCH: u32 = 121;

/// A level-1 unit around `body`.
pub(super) fn unit(cn: u32, issuer: &str, body: &str) -> String {
    format!("\u{19}[{cn} {issuer}\n{body}\u{19}]")
}

pub(super) fn d(n: u16, f: &[&str]) -> String {
    encode(n, f)
}

/// Smith notation of `m` on `b`: from, to, what was taken (`E` en passant, `c`/`C`
/// castling), the promotion piece in capitals.
pub(super) fn smith(b: &Board, m: Move) -> String {
    let uci = m.to_uci();
    let mut s = uci[..4].to_string();
    if m.is_castle() {
        s.push(if m.to().index() % 8 >= 4 { 'c' } else { 'C' });
    } else if m.is_en_passant() {
        s.push('E');
    } else if let Some(p) = b.piece_at(m.to()) {
        s.push(p.kind().upper_char().to_ascii_lowercase());
    }
    if let Some(p) = m.promotion_piece() {
        s.push(p.upper_char());
    }
    s
}

fn secs(ms: i64) -> String {
    (ms.max(0) / 1000).to_string()
}

impl World {
    fn rating_type(&self) -> &'static str {
        if self.cfg.minutes * 60 + self.cfg.inc * 40 < 180 {
            "Bullet"
        } else {
            "Blitz"
        }
    }

    fn msec(&self, g: &Game, c: Color) -> String {
        let running = g.board.side_to_move() == c && g.ply() >= 2;
        d(
            dg::MSEC,
            &[
                &g.num.to_string(),
                if c == Color::White { "W" } else { "B" },
                &g.clock[c.index()].to_string(),
                if running { "1" } else { "0" },
            ],
        )
    }

    /// A game starts (or resumes): its units, the moves so far included.
    pub(super) fn icc_started(&self, g: &Game, bot: &str) -> String {
        let (m, i) = (self.cfg.minutes.to_string(), self.cfg.inc.to_string());
        let num = g.num.to_string();
        let mut s = d(
            dg::MY_GAME_STARTED,
            &[
                &num,
                &g.white,
                &g.black,
                "0",
                self.rating_type(),
                "0",
                &m,
                &i,
                &m,
                &i,
                "1",
                "",
                "0",
                "1500",
                "902425349",
                "",
                "C",
                "0",
                "0",
                "0",
                "",
                "0",
            ],
        );
        let rel = if g.bot_color(bot) == Color::White {
            "PW"
        } else {
            "PB"
        };
        s.push_str(&d(dg::MY_RELATION_TO_GAME, &[&num, rel]));
        let fen = if g.start.to_fen() == Board::startpos().to_fen() {
            String::new()
        } else {
            g.start.to_fen()
        };
        s.push_str(&d(
            dg::POSITION_BEGIN,
            &[&num, &fen, &g.moves.len().to_string()],
        ));
        let mut b = g.start.clone();
        for &mv in &g.moves {
            s.push_str(&d(
                dg::SEND_MOVES,
                &[&num, &b.san(mv), &smith(&b, mv), "0", "0"],
            ));
            b.make_move(mv);
        }
        s.push_str(&self.msec(g, Color::White));
        s.push_str(&self.msec(g, Color::Black));
        s
    }

    /// The last move of the game: DG_SEND_MOVES then both clocks. `corrupt`: a
    /// move that does not fit the board comes first (the server's mistake).
    pub(super) fn icc_moved(&self, g: &Game, corrupt: bool) -> String {
        let Some(&mv) = g.moves.last() else {
            return String::new();
        };
        let mut prev = g.start.clone();
        for &x in &g.moves[..g.moves.len() - 1] {
            prev.make_move(x);
        }
        let mover = prev.side_to_move();
        let num = g.num.to_string();
        let mut s = String::new();
        if corrupt {
            s.push_str(&d(dg::SEND_MOVES, &[&num, "Z9", "e1e8", "0", "0"]));
        }
        s.push_str(&d(
            dg::SEND_MOVES,
            &[
                &num,
                &prev.san(mv),
                &smith(&prev, mv),
                "0",
                &secs(g.clock[mover.index()]),
            ],
        ));
        s.push_str(&self.msec(g, mover));
        s.push_str(&self.msec(g, !mover));
        s
    }

    /// The end of a game in ICC's words (`text` is the FICS wording with names).
    pub(super) fn icc_result(&self, g: &Game, text: &str, result: &str) -> String {
        let mut descr = text.to_string();
        if let Some(rest) = text.strip_prefix(&format!("{} ", g.white)) {
            descr = format!("White {rest}");
        } else if let Some(rest) = text.strip_prefix(&format!("{} ", g.black)) {
            descr = format!("Black {rest}");
        }
        let t = text.to_ascii_lowercase();
        let code = [
            ("resigns", "Res"),
            ("checkmated", "Mat"),
            ("forfeits on time", "Fla"),
            ("mutual agreement", "Agr"),
            ("repetition", "Rep"),
            ("50 move", "50"),
            ("stalemate", "Sta"),
            ("mating material", "NM"),
            ("adjudication", "Adj"),
        ]
        .iter()
        .find(|(k, _)| t.contains(k))
        .map_or("?", |x| x.1);
        let score = if t.contains("abort") {
            "aborted"
        } else {
            result
        };
        let num = g.num.to_string();
        let mut s = d(dg::MY_GAME_RESULT, &[&num, "0", code, score, &descr, "C20"]);
        s.push_str(&d(dg::MY_RELATION_TO_GAME, &[&num, "X"]));
        s
    }

    /// The opponent's challenge.
    pub(super) fn icc_match(&self, bot: &str) -> String {
        let (m, i) = (self.cfg.minutes.to_string(), self.cfg.inc.to_string());
        let mut s = d(
            dg::MATCH,
            &[
                OPP,
                "1500",
                "2",
                "C",
                bot,
                "0",
                "0",
                "",
                "0",
                self.rating_type(),
                "0",
                "0",
                &m,
                &i,
                &m,
                &i,
                "-1",
                "",
            ],
        );
        s.push_str(&format!(
            "\nChallenge: {OPP} (1500) {bot} (----) unrated {} {m} {i}.\n",
            self.rating_type().to_ascii_lowercase()
        ));
        s
    }

    /// The opponent's offer: 0 draw, 2 adjourn, 4 abort, 6 takeback (one ply).
    pub(super) fn icc_offer(&self, g: &Game, bot: &str, what: usize) -> String {
        let mut f = [0u32; 8];
        let opp_white = g.bot_color(bot) == Color::Black;
        f[what + if opp_white { 0 } else { 1 }] = 1;
        let mut fields = vec![g.num.to_string()];
        fields.extend(f.iter().map(|x| x.to_string()));
        let refs: Vec<&str> = fields.iter().map(|s| s.as_str()).collect();
        d(dg::OFFERS_IN_MY_GAME, &refs)
    }

    /// Garbage in ICC's framing: a unit cut short by the next, a stray close, a
    /// field never closed, an unknown unit, an overlong unit, bytes that are not
    /// UTF-8, then a tell that must still arrive whole.
    pub(super) fn icc_garbage(&self) -> Vec<u8> {
        let mut j: Vec<u8> = Vec::new();
        j.extend_from_slice(b"\x19(31 GuestXY {} \x19{cut short");
        j.extend_from_slice(b"\x19(24 999 e4 e2e4 0 0\x19)");
        j.extend_from_slice(b"\x19)\x19}stray\n\r");
        j.extend_from_slice(b"\x19(26 77 {never closed\x19)");
        j.extend_from_slice(b"\x19(4242 a b c\x19)\x19(zz\x19)\x19(\x19)");
        j.extend_from_slice(b"\x19(31 x ");
        j.extend_from_slice("y".repeat(40_000).as_bytes());
        j.extend_from_slice(b"\x19)\xff\xfb\x01\xc3\x28\x07 broken utf-8\n\r");
        j.extend_from_slice(b"\x19[99 *\n");
        j.extend_from_slice(
            d(dg::PERSONAL_TELL, &["GuestXY", "U", "still whole {x}", "1"]).as_bytes(),
        );
        j.extend_from_slice(b"\x19]");
        j
    }
}

/// The opponent's kibitz or whisper in a game we observe.
pub(super) fn kibitz(game: u32, from: &str, text: &str, kibitz: bool) -> String {
    d(
        dg::KIBITZ,
        &[
            &game.to_string(),
            from,
            "",
            if kibitz { "1" } else { "0" },
            text,
        ],
    )
}

/// A game we observe (relation 0) or an examined one (-2), at `fen`: the start
/// of observing, then the position (again: an examiner's jump).
pub(super) fn observed(fen: &str, game: u32, relation: i32, white: &str, black: &str) -> String {
    let num = game.to_string();
    let played = if relation == 0 { "1" } else { "0" };
    let mut s = d(
        dg::STARTED_OBSERVING,
        &[
            &num, white, black, "0", "Blitz", "0", "3", "0", "3", "0", played, "", "2500", "2500",
            "1", "GM", "GM", "0", "0", "0", "", "0",
        ],
    );
    s.push_str(&d(
        dg::MY_RELATION_TO_GAME,
        &[&num, if relation == 0 { "O" } else { "E" }],
    ));
    s.push_str(&d(dg::POSITION_BEGIN, &[&num, fen, "0"]));
    for c in ["W", "B"] {
        s.push_str(&d(dg::MSEC, &[&num, c, "180000", "0"]));
    }
    s
}
