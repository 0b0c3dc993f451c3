//! The JSON the Lichess BOT API sends, as typed values: the account, the events of
//! `/api/stream/event` and of a game stream. Every parser takes one line of text and
//! returns an error that names what was wrong, never a panic; event types this code
//! does not know are `Unknown`, so a new event on the server side is skipped, not
//! fatal. Fields the bot does not use are not read.

use serde::Deserialize;
use thiserror::Error;

/// A line that is not the JSON expected.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{what}: {problem} (in {excerpt:?})")]
pub struct ParseError {
    /// What was being read (`an event`, `a game event`, `the account`).
    pub what: &'static str,
    pub problem: String,
    /// The start of the line, for the log.
    pub excerpt: String,
}

fn excerpt(line: &str) -> String {
    line.chars().take(120).collect()
}

fn parse<T: serde::de::DeserializeOwned>(what: &'static str, line: &str) -> Result<T, ParseError> {
    serde_json::from_str(line.trim()).map_err(|e| ParseError {
        what,
        problem: e.to_string(),
        excerpt: excerpt(line),
    })
}

/// `/api/account`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Account {
    pub id: String,
    pub username: String,
    #[serde(default)]
    pub title: Option<String>,
}

impl Account {
    pub fn is_bot(&self) -> bool {
        self.title.as_deref() == Some("BOT")
    }
}

/// Reads `/api/account`.
pub fn parse_account(text: &str) -> Result<Account, ParseError> {
    parse("the account", text)
}

/// A player as a challenge shows them.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct ChallengeUser {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub rating: Option<i32>,
    #[serde(default)]
    pub title: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Variant {
    pub key: String,
}

/// `timeControl` of a challenge: `clock` (with limit and increment in seconds),
/// `correspondence` or `unlimited`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct TimeControl {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub limit: Option<u32>,
    #[serde(default)]
    pub increment: Option<u32>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Challenge {
    pub id: String,
    /// Absent for open challenges.
    #[serde(default)]
    pub challenger: Option<ChallengeUser>,
    #[serde(default, rename = "destUser")]
    pub dest_user: Option<ChallengeUser>,
    pub variant: Variant,
    pub rated: bool,
    #[serde(rename = "timeControl")]
    pub time_control: TimeControl,
    #[serde(default)]
    pub speed: String,
    /// `initial` when a position is given (`fromPosition`); we play the standard start only.
    #[serde(default, rename = "initialFen")]
    pub initial_fen: Option<String>,
}

/// The opponent in `gameStart`/`gameFinish`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct GameOpponent {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub rating: Option<i32>,
}

/// `game` of `gameStart`/`gameFinish`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct GameInfo {
    #[serde(rename = "gameId")]
    pub game_id: String,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub opponent: Option<GameOpponent>,
}

/// An event of `/api/stream/event`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "type")]
pub enum Event {
    #[serde(rename = "challenge")]
    Challenge { challenge: Challenge },
    #[serde(rename = "challengeCanceled")]
    ChallengeCanceled { challenge: ChallengeRef },
    #[serde(rename = "challengeDeclined")]
    ChallengeDeclined { challenge: ChallengeRef },
    #[serde(rename = "gameStart")]
    GameStart { game: GameInfo },
    #[serde(rename = "gameFinish")]
    GameFinish { game: GameInfo },
    #[serde(other)]
    Unknown,
}

/// A challenge known by its id only.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct ChallengeRef {
    pub id: String,
}

/// Reads one line of `/api/stream/event`.
pub fn parse_event(line: &str) -> Result<Event, ParseError> {
    parse("an event", line)
}

/// The answer to a challenge we made: the challenge (`ChallengeJson`), or older
/// servers' `{"challenge": ...}`; its id.
pub fn parse_challenge_id(text: &str) -> Result<String, ParseError> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Made {
        Wrapped { challenge: ChallengeRef },
        Bare(ChallengeRef),
    }
    parse::<Made>("the challenge made", text).map(|m| match m {
        Made::Wrapped { challenge } | Made::Bare(challenge) => challenge.id,
    })
}

/// A player of `gameFull` (a user, or Lichess's AI with `aiLevel`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct GamePlayer {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub rating: Option<i32>,
    #[serde(default, rename = "aiLevel")]
    pub ai_level: Option<u32>,
}

impl GamePlayer {
    /// The name to show (`stockfish level 3` for the AI).
    pub fn display(&self) -> String {
        match (&self.name, &self.id, self.ai_level) {
            (Some(n), _, _) => n.clone(),
            (None, Some(id), _) => id.clone(),
            (None, None, Some(l)) => format!("lichess-ai-level-{l}"),
            _ => "anonymous".to_string(),
        }
    }
}

/// `clock` of `gameFull`, in milliseconds; absent for correspondence and unlimited games.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Clock {
    pub initial: u64,
    pub increment: u64,
}

/// `gameState`: the moves so far in UCI and the clocks, the truth.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct GameState {
    pub moves: String,
    pub wtime: i64,
    pub btime: i64,
    pub winc: i64,
    pub binc: i64,
    pub status: String,
    #[serde(default)]
    pub winner: Option<String>,
    #[serde(default)]
    pub wdraw: bool,
    #[serde(default)]
    pub bdraw: bool,
    #[serde(default)]
    pub wtakeback: bool,
    #[serde(default)]
    pub btakeback: bool,
    /// A player berserked (arena): their clock was halved and has no increment.
    #[serde(default)]
    pub wberserk: bool,
    #[serde(default)]
    pub bberserk: bool,
    /// Before both first moves: how long the side to move may still wait.
    #[serde(default)]
    pub expiration: Option<Expiration>,
}

/// `expiration` of a game state: the first move's deadline.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
pub struct Expiration {
    #[serde(rename = "idleMillis")]
    pub idle_millis: i64,
    #[serde(rename = "millisToMove")]
    pub millis_to_move: i64,
}

impl Expiration {
    /// Milliseconds left for the first move (never negative).
    pub fn left_ms(&self) -> i64 {
        (self.millis_to_move - self.idle_millis).max(0)
    }
}

impl GameState {
    /// The game goes on (`created` or `started`).
    pub fn in_progress(&self) -> bool {
        matches!(self.status.as_str(), "created" | "started")
    }

    /// `1-0`, `0-1`, `1/2-1/2`, or `*` (aborted, or no winner told).
    pub fn result(&self) -> &'static str {
        match (self.status.as_str(), self.winner.as_deref()) {
            ("aborted" | "noStart", _) => "*",
            (_, Some("white")) => "1-0",
            (_, Some("black")) => "0-1",
            ("draw" | "stalemate" | "insufficientMaterialClaim", _) => "1/2-1/2",
            // A flag with insufficient material to mate is a draw.
            ("outoftime" | "timeout", None) => "1/2-1/2",
            _ => "*",
        }
    }
}

/// `gameFull`: the game's fixed facts and its state.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct GameFull {
    pub id: String,
    pub variant: Variant,
    #[serde(default)]
    pub clock: Option<Clock>,
    #[serde(default)]
    pub speed: String,
    #[serde(default)]
    pub rated: bool,
    pub white: GamePlayer,
    pub black: GamePlayer,
    /// `startpos` or a FEN.
    #[serde(default, rename = "initialFen")]
    pub initial_fen: Option<String>,
    pub state: GameState,
}

/// An event of a game stream.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(tag = "type")]
pub enum GameEvent {
    #[serde(rename = "gameFull")]
    Full(Box<GameFull>),
    #[serde(rename = "gameState")]
    State(GameState),
    #[serde(rename = "chatLine")]
    Chat {
        room: String,
        username: String,
        text: String,
    },
    #[serde(rename = "opponentGone")]
    OpponentGone {
        gone: bool,
        #[serde(default, rename = "claimWinInSeconds")]
        claim_win_in_seconds: Option<u32>,
    },
    #[serde(other)]
    Unknown,
}

/// Reads one line of a game stream.
pub fn parse_game_event(line: &str) -> Result<GameEvent, ParseError> {
    parse("a game event", line)
}

/// One game of `/api/account/playing` (the fields the bot reads).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Playing {
    #[serde(rename = "gameId")]
    pub game_id: String,
    #[serde(default)]
    pub color: Option<String>,
    #[serde(default)]
    pub speed: Option<String>,
    #[serde(default)]
    pub variant: Option<Variant>,
}

#[derive(Deserialize)]
struct NowPlaying {
    #[serde(rename = "nowPlaying")]
    now_playing: Vec<Playing>,
}

/// Reads `/api/account/playing`: the games in progress.
pub fn parse_playing(text: &str) -> Result<Vec<Playing>, ParseError> {
    parse::<NowPlaying>("the games in progress", text).map(|n| n.now_playing)
}

/// A rating of a user's `perfs`.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Perf {
    #[serde(default)]
    pub rating: Option<i32>,
    #[serde(default)]
    pub games: Option<u32>,
}

/// A user of `/api/bot/online` (one ndjson line).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct OnlineUser {
    pub id: String,
    pub username: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub perfs: std::collections::BTreeMap<String, Perf>,
    #[serde(default)]
    pub disabled: bool,
    #[serde(default, rename = "tosViolation")]
    pub tos_violation: bool,
}

impl OnlineUser {
    /// The rating for `speed` (`bullet`, `blitz`, ...), if the user has one.
    pub fn rating(&self, speed: &str) -> Option<i32> {
        self.perfs.get(speed).and_then(|p| p.rating)
    }
}

/// Reads one line of `/api/bot/online`.
pub fn parse_online_user(line: &str) -> Result<OnlineUser, ParseError> {
    parse("an online bot", line)
}

/// Why a challenge is declined, as Lichess names it (`declineReasonKey`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeclineReason {
    Generic,
    Later,
    TooFast,
    TooSlow,
    TimeControl,
    Rated,
    Casual,
    Standard,
    Variant,
    NoBot,
    OnlyBot,
}

impl DeclineReason {
    /// The key sent as `reason`.
    pub fn key(self) -> &'static str {
        match self {
            DeclineReason::Generic => "generic",
            DeclineReason::Later => "later",
            DeclineReason::TooFast => "tooFast",
            DeclineReason::TooSlow => "tooSlow",
            DeclineReason::TimeControl => "timeControl",
            DeclineReason::Rated => "rated",
            DeclineReason::Casual => "casual",
            DeclineReason::Standard => "standard",
            DeclineReason::Variant => "variant",
            DeclineReason::NoBot => "noBot",
            DeclineReason::OnlyBot => "onlyBot",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_of_the_published_shapes() {
        let c = r#"{"type":"challenge","challenge":{"id":"H9fIRZUk","url":"https://lichess.org/H9fIRZUk","status":"created","challenger":{"id":"bobby","name":"Bobby","rating":1635,"title":null,"online":true},"destUser":{"id":"kib","name":"Kib","rating":2000,"title":"BOT"},"variant":{"key":"standard","name":"Standard","short":"Std"},"rated":true,"speed":"blitz","timeControl":{"type":"clock","limit":300,"increment":3,"show":"5+3"},"color":"random","finalColor":"white","perf":{"icon":"","name":"Blitz"}}}"#;
        let Event::Challenge { challenge } = parse_event(c).unwrap() else {
            panic!("not a challenge")
        };
        assert_eq!(challenge.time_control.limit, Some(300));
        assert_eq!(challenge.challenger.unwrap().rating, Some(1635));
        assert_eq!(
            parse_event(r#"{"type":"somethingNew","x":1}"#).unwrap(),
            Event::Unknown
        );
        let f = r#"{"type":"gameFull","id":"abc","variant":{"key":"standard"},"clock":{"initial":60000,"increment":0},"speed":"bullet","rated":false,"white":{"id":"kib","name":"Kib","title":"BOT","rating":2000},"black":{"aiLevel":3},"initialFen":"startpos","state":{"type":"gameState","moves":"e2e4","wtime":60000,"btime":60000,"winc":0,"binc":0,"status":"started"}}"#;
        let GameEvent::Full(g) = parse_game_event(f).unwrap() else {
            panic!("not gameFull")
        };
        assert_eq!(g.black.display(), "lichess-ai-level-3");
        assert_eq!(g.state.moves, "e2e4");
        let e = parse_event(r#"{"type":"challenge"}"#).unwrap_err();
        assert!(e.to_string().contains("challenge"), "{e}");
    }

    #[test]
    fn results() {
        let s = |status: &str, winner: Option<&str>| GameState {
            moves: String::new(),
            wtime: 0,
            btime: 0,
            winc: 0,
            binc: 0,
            status: status.into(),
            winner: winner.map(str::to_string),
            wdraw: false,
            bdraw: false,
            wtakeback: false,
            btakeback: false,
            wberserk: false,
            bberserk: false,
            expiration: None,
        };
        assert_eq!(s("mate", Some("black")).result(), "0-1");
        assert_eq!(s("aborted", None).result(), "*");
        assert_eq!(s("draw", None).result(), "1/2-1/2");
        assert!(s("started", None).in_progress());
    }
}
