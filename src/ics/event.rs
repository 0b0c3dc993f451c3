//! The ICS events: what a FICS-lineage or ICC server can tell the daemon, typed
//! (`ServerEvent`), with the style-12 board (`Style12`, FICS's own board line), a
//! game's end, its `moves` listing and a challenge. The parsers (`parse`, `icc`)
//! produce them; the daemon's ICS account reads them.

use crate::chess::{Board, Color};
use std::time::Duration;

/// One style-12 board line, all fields kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Style12 {
    /// Ranks 8 to 1, files a to h: `-` empty, `PNBRQK` White, `pnbrqk` Black.
    pub ranks: [[u8; 8]; 8],
    pub side_to_move: Color,
    /// File (0-7) of a pawn that just made a double push; `None` for -1 and for the
    /// garbage some servers send after castling.
    pub double_push: Option<u8>,
    /// White short, White long, Black short, Black long.
    pub castling: [bool; 4],
    /// Plies since the last irreversible move (the 50-move counter).
    pub irreversible: u32,
    pub game: u32,
    pub white: String,
    pub black: String,
    /// 1: we move now; -1: the opponent moves; 0: observing a played game (our turn
    /// never comes); 2/-2/-3: examining, observing, isolated position.
    pub relation: i32,
    /// Initial time in minutes and increment in seconds.
    pub initial_minutes: u32,
    pub increment_secs: u32,
    pub white_strength: i32,
    pub black_strength: i32,
    /// Clocks as sent: seconds, or milliseconds when the server honours `iset ms 1`
    /// (see `ClockUnit`). May be negative.
    pub white_clock: i64,
    pub black_clock: i64,
    /// Full move number of the move about to be made.
    pub move_number: u32,
    /// The last move in the server's verbose form (`P/e2-e4`, `o-o`), `none` at start.
    pub verbose_move: String,
    /// Time the last move took, as sent (`(0:00)` or `(0:01.234)`).
    pub move_time: String,
    /// The last move in SAN, `none` at start.
    pub pretty_move: String,
    /// Board shown from Black's side.
    pub flip: bool,
    /// Whether the clock runs (field 31); absent on old servers.
    pub ticking: Option<bool>,
    /// Lag in milliseconds (FICS's 33rd field).
    pub lag_ms: Option<u64>,
}

/// Units of the style-12 clocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockUnit {
    Seconds,
    Millis,
}

impl ClockUnit {
    /// A clock value in this unit as a duration (negative values read as zero).
    pub fn duration(self, v: i64) -> Duration {
        let v = v.max(0) as u64;
        match self {
            ClockUnit::Seconds => Duration::from_secs(v),
            ClockUnit::Millis => Duration::from_millis(v),
        }
    }

    /// Milliseconds, sign kept.
    pub fn millis(self, v: i64) -> i64 {
        match self {
            ClockUnit::Seconds => v.saturating_mul(1000),
            ClockUnit::Millis => v,
        }
    }
}

impl Style12 {
    /// The piece placement field of a FEN.
    pub fn placement(&self) -> String {
        let mut s = String::with_capacity(72);
        for (r, row) in self.ranks.iter().enumerate() {
            let mut empty = 0;
            for &c in row {
                if c == b'-' {
                    empty += 1;
                } else {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(c as char);
                }
            }
            if empty > 0 {
                s.push((b'0' + empty) as char);
            }
            if r < 7 {
                s.push('/');
            }
        }
        s
    }

    /// The position as FEN (castling rights only where king and rook stand on their
    /// squares, an en-passant square only after a double push).
    pub fn fen(&self) -> String {
        let at = |file: usize, rank_from_8: usize| self.ranks[rank_from_8][file];
        let mut castle = String::new();
        if self.castling[0] && at(4, 7) == b'K' && at(7, 7) == b'R' {
            castle.push('K');
        }
        if self.castling[1] && at(4, 7) == b'K' && at(0, 7) == b'R' {
            castle.push('Q');
        }
        if self.castling[2] && at(4, 0) == b'k' && at(7, 0) == b'r' {
            castle.push('k');
        }
        if self.castling[3] && at(4, 0) == b'k' && at(0, 0) == b'r' {
            castle.push('q');
        }
        if castle.is_empty() {
            castle.push('-');
        }
        let ep = match self.double_push {
            Some(f) => {
                let file = (b'a' + f) as char;
                match self.side_to_move {
                    Color::White => format!("{file}6"),
                    Color::Black => format!("{file}3"),
                }
            }
            None => "-".into(),
        };
        format!(
            "{} {} {} {} {} {}",
            self.placement(),
            if self.side_to_move == Color::White {
                "w"
            } else {
                "b"
            },
            castle,
            ep,
            self.irreversible,
            self.move_number.max(1)
        )
    }

    /// The position as a board, if it is a legal chess position.
    pub fn board(&self) -> Option<Board> {
        Board::from_fen(&self.fen()).ok().or_else(|| {
            // A bad en-passant square must not cost the whole position.
            let mut s = self.clone();
            s.double_push = None;
            Board::from_fen(&s.fen()).ok()
        })
    }

    /// Plies played since the start position (from the move number and side).
    pub fn ply(&self) -> u32 {
        2 * self.move_number.saturating_sub(1) + (self.side_to_move == Color::Black) as u32
    }

    /// True when this is the first board of a game from the standard start.
    pub fn is_initial(&self) -> bool {
        self.verbose_move == "none"
            && self.placement() == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
    }

    /// The colour we play, from the relation and the names (`None`: not our game).
    pub fn our_color(&self, handle: &str) -> Option<Color> {
        if !matches!(self.relation, 1 | -1) {
            return None;
        }
        if self.white.eq_ignore_ascii_case(handle) {
            Some(Color::White)
        } else if self.black.eq_ignore_ascii_case(handle) {
            Some(Color::Black)
        } else if self.relation == 1 {
            Some(self.side_to_move)
        } else {
            Some(!self.side_to_move)
        }
    }

    pub fn clock(&self, side: Color) -> i64 {
        match side {
            Color::White => self.white_clock,
            Color::Black => self.black_clock,
        }
    }
}

/// How we stand to a game a server tells us of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// We play it, with this colour.
    Playing(Color),
    /// We observe a game being played.
    Observing,
    /// A game being examined (ours or one we observe).
    Examining,
}

/// A game as ICC tells it (moves, not boards): where it started, every move since
/// with the time each took, and both clocks in milliseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GamePosition {
    pub game: u32,
    pub white: String,
    pub black: String,
    pub relation: Relation,
    /// The start position as FEN.
    pub start_fen: String,
    pub moves: Vec<crate::chess::Move>,
    /// The time each move took, ms, where the server said.
    pub times_ms: Vec<Option<i64>>,
    /// White's and Black's clocks, ms.
    pub clock_ms: [i64; 2],
    /// The side to move's clock runs.
    pub running: bool,
    pub initial_minutes: u32,
    pub increment_secs: u32,
}

impl GamePosition {
    pub fn start(&self) -> Option<Board> {
        Board::from_fen(&self.start_fen).ok()
    }

    /// The position reached (`None` when the start is unreadable or a move does
    /// not fit, which the ICC reader never lets through).
    pub fn board(&self) -> Option<Board> {
        let mut b = self.start()?;
        for &m in &self.moves {
            if !b.is_legal(m) {
                return None;
            }
            b.make_move(m);
        }
        Some(b)
    }
}

/// A match request addressed to us.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    pub challenger: String,
    /// `None` for `----`/`++++` (unrated or guest).
    pub challenger_rating: Option<i32>,
    pub receiver: String,
    /// Our own rating as the challenge shows it (`None`: unrated, provisional marks kept).
    pub receiver_rating: Option<i32>,
    /// The colour the challenger asked for, if any.
    pub challenger_color: Option<Color>,
    pub rated: bool,
    /// `blitz`, `lightning`, `standard`, `untimed`, `wild`, `non-standard`...
    pub kind: String,
    pub minutes: u32,
    pub increment: u32,
    /// Our own adjourned game (`Loaded from ... (adjourned)`).
    pub adjourned: bool,
    /// The challenger's handle carries the computer title `(C)`.
    pub computer: bool,
    pub line: String,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameEnd {
    pub game: u32,
    pub white: String,
    pub black: String,
    /// The server's words (`bottwo resigns`, `Game drawn by mutual agreement`).
    pub reason: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
}

/// A game's move list from the `moves` command.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct GameMoves {
    pub game: Option<u32>,
    pub white: String,
    pub black: String,
    /// The moves in the server's SAN, in order.
    pub moves: Vec<String>,
    /// The time each move took, in ms, as listed (`(0:03)`, `(1:02.345)`), where
    /// it could be read.
    pub times: Vec<Option<i64>>,
    /// Whether the listing said the game starts from the standard position.
    pub standard_start: bool,
}

/// Everything the daemon can be told by a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerEvent {
    // ----- login ------------------------------------------------------------------
    /// `login:` (the item came as a prompt).
    LoginPrompt,
    PasswordPrompt,
    /// `Press return to enter the server as "GuestXYZW":`.
    GuestPrompt {
        name: String,
    },
    /// `"botone" is a registered name.`
    RegisteredName {
        name: String,
    },
    InvalidPassword,
    /// `*** Sorry newbie is already logged in ***`.
    NameInUse,
    /// The server refused the name itself (too short, bad characters).
    BadName {
        why: String,
    },
    /// `**** Starting FICS session as X ****`.
    SessionStarted {
        handle: String,
    },
    /// `**** X is already logged in - kicking them out. ****` (we kicked ourselves).
    KickedOther,
    /// `**** X has arrived - you can't both be logged in. ****` (we were kicked).
    Kicked,
    /// A shell prompt (`fics% `).
    Prompt,
    // ----- games ------------------------------------------------------------------
    /// FICS and lasker: a board.
    Style12(Box<Style12>),
    /// ICC: a game's moves and clocks.
    Position(Box<GamePosition>),
    /// `Creating: botone (1500) bottwo (----) unrated blitz 2 12`.
    Creating {
        white: String,
        black: String,
        white_rating: Option<i32>,
        black_rating: Option<i32>,
        rated: bool,
        kind: String,
        minutes: u32,
        increment: u32,
    },
    /// `{Game 1 (botone vs. bottwo) Creating unrated blitz match.}` or `Continuing`.
    GameStart {
        game: u32,
        white: String,
        black: String,
        continuing: bool,
        description: String,
    },
    GameEnd(GameEnd),
    GameMoves(GameMoves),
    IllegalMove {
        text: String,
    },
    NotYourMove,
    NotPlaying,
    // ----- offers -----------------------------------------------------------------
    Challenge(Challenge),
    /// `X accepts your challenge.` / `X declines the match offer.`
    ChallengeAnswer {
        from: String,
        accepted: bool,
    },
    DrawOffer {
        from: String,
    },
    AbortRequest {
        from: String,
    },
    AdjournRequest {
        from: String,
    },
    TakebackRequest {
        from: String,
        plies: u32,
    },
    /// `X declines draw request.` and the like.
    OfferDeclined {
        from: String,
        what: String,
    },
    /// `Your opponent is not out of time!`
    FlagRefused,
    // ----- seeks ------------------------------------------------------------------
    /// A seek ad line of ours or others (`  0    0 botone   2  12 rated   blitz`).
    SeekAd {
        line: String,
    },
    /// `Ads removed: ...`, `AD_DESTROY: ...`.
    SeekRemoved,
    // ----- talk -------------------------------------------------------------------
    Tell {
        from: String,
        text: String,
        /// The teller is a guest or unregistered (`(U)`): never an owner.
        unregistered: bool,
    },
    Say {
        from: String,
        text: String,
    },
    Whisper {
        from: String,
        text: String,
    },
    Kibitz {
        from: String,
        text: String,
    },
    // ----- observing --------------------------------------------------------------
    /// `You are now observing game 12.`
    Observing {
        game: u32,
    },
    /// `Removing game 12 from observation list.`, `Game 12 (which you were observing)
    /// has no examiners.`
    ObservationEnded {
        game: u32,
    },
    // ----- notifications ---------------------------------------------------------
    /// `Notification: X, who has an adjourned game with you, has arrived.` and the
    /// list of such players printed at login.
    AdjournedOpponentOnline {
        names: Vec<String>,
    },
    /// `Your opponent has lost contact or quit.`
    OpponentLostContact,
    /// Idle logout announced (`**** Auto-logout because you were idle ... ****`).
    AutoLogout,
    /// `**** Server going down in 0 minutes and 10 seconds. ****` (None: at once).
    Shutdown {
        in_secs: Option<u32>,
    },
    /// `Logging you out.` / `Thank you for using ...`: the server closes.
    LoggedOut,
    // ----- command replies --------------------------------------------------------
    CommandNotFound {
        command: String,
    },
    /// `No such ivariable "nowrap".` / `No such variable name x.`
    NoSuchVariable {
        name: String,
    },
    Unknown(String),
}
