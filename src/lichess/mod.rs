//! The Lichess BOT API: an HTTPS client (`http`: rustls, the token as a bearer
//! token, the 429 gate), the JSON it sends as typed values (`event`), and the
//! requests the bot makes (`Lichess`: the account, the event and game streams,
//! accepting and declining challenges, moves, resigning, aborting, draw and takeback
//! answers, chat). It makes no game decision and never touches the engine: the
//! daemon's `bot::lichess` does both, through the same game task as on FICS.

pub mod event;
pub mod http;

pub use event::{
    parse_account, parse_event, parse_game_event, parse_online_user, parse_playing, Account,
    Challenge, DeclineReason, Event, Expiration, GameEvent, GameFull, GameState, OnlineUser,
    ParseError, Playing,
};
pub use http::{BaseUrl, Client, HttpError, Ndjson, RATE_LIMIT_WAIT};

use crate::net::Secret;
use std::time::Duration;
use thiserror::Error;

/// The environment variable that may hold the API token.
pub const TOKEN_ENV: &str = "KIBITZER_LICHESS_TOKEN";

#[derive(Debug, Error)]
pub enum LichessError {
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error(transparent)]
    Parse(#[from] ParseError),
    #[error("the account {username} is not a BOT account: upgrade it once with `curl -d '' https://lichess.org/api/bot/account/upgrade -H \"Authorization: Bearer <token>\"` (only an account that has played no game can be upgraded, and it cannot be undone); kibitzer never upgrades by itself")]
    NotBot { username: String },
    #[error("'{0}' is not a Lichess id")]
    BadId(String),
    #[error("'{0}' is not a move in UCI notation")]
    BadMove(String),
}

impl LichessError {
    /// Retrying cannot help (a refused token, an account that is not a bot).
    pub fn is_permanent(&self) -> bool {
        match self {
            LichessError::Http(e) => {
                matches!(e, HttpError::Unauthorized { .. } | HttpError::BadUrl(_))
            }
            LichessError::NotBot { .. } => true,
            _ => false,
        }
    }
}

/// A game or challenge id: letters and digits only (it goes into a path).
fn id(s: &str) -> Result<&str, LichessError> {
    if !s.is_empty() && s.len() <= 16 && s.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(s)
    } else {
        Err(LichessError::BadId(s.chars().take(40).collect()))
    }
}

/// A user name: letters, digits, `_` and `-` (it goes into a path).
fn user(s: &str) -> Result<&str, LichessError> {
    if !s.is_empty()
        && s.len() <= 30
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        Ok(s)
    } else {
        Err(LichessError::BadId(s.chars().take(40).collect()))
    }
}

/// The chat rooms of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    Player,
    Spectator,
}

/// The requests of the BOT API.
#[derive(Clone, Debug)]
pub struct Lichess {
    pub client: Client,
}

impl Lichess {
    pub fn new(url: &str, token: Secret, timeout: Duration) -> Result<Lichess, LichessError> {
        let base = BaseUrl::parse(url)?;
        Ok(Lichess {
            client: Client::new(base, token, timeout)?,
        })
    }

    /// `/api/account`.
    pub async fn account(&self) -> Result<Account, LichessError> {
        let text = self.client.get_text("/api/account").await?;
        Ok(parse_account(&text)?)
    }

    /// The account, which must be a BOT account.
    pub async fn bot_account(&self) -> Result<Account, LichessError> {
        let a = self.account().await?;
        if !a.is_bot() {
            return Err(LichessError::NotBot {
                username: a.username,
            });
        }
        Ok(a)
    }

    /// `/api/stream/event`.
    pub async fn events(&self) -> Result<Ndjson, LichessError> {
        Ok(self.client.stream("/api/stream/event").await?)
    }

    /// `/api/bot/game/stream/{id}`.
    pub async fn game_stream(&self, game: &str) -> Result<Ndjson, LichessError> {
        let path = format!("/api/bot/game/stream/{}", id(game)?);
        Ok(self.client.stream(&path).await?)
    }

    /// `/api/account/playing`: the games in progress (to pick up after a start or
    /// a reconnection).
    pub async fn playing(&self) -> Result<Vec<Playing>, LichessError> {
        let text = self.client.get_text("/api/account/playing?nb=50").await?;
        Ok(parse_playing(&text)?)
    }

    /// `/api/bot/online`: up to `nb` bots online (lines that do not parse are
    /// skipped with a warning).
    pub async fn online_bots(&self, nb: u32) -> Result<Vec<OnlineUser>, LichessError> {
        let mut s = self
            .client
            .stream(&format!("/api/bot/online?nb={}", nb.clamp(1, 300)))
            .await?;
        let mut out = Vec::new();
        while let Some(line) = s.next_line().await {
            match parse_online_user(&line?) {
                Ok(u) => out.push(u),
                Err(e) => tracing::warn!("lichess: {e}"),
            }
        }
        Ok(out)
    }

    /// `POST /api/challenge/{username}`: a clock challenge; the challenge's id.
    pub async fn challenge(
        &self,
        username: &str,
        rated: bool,
        limit_s: u32,
        increment_s: u32,
    ) -> Result<String, LichessError> {
        let path = format!("/api/challenge/{}", user(username)?);
        let (limit, inc) = (limit_s.to_string(), increment_s.to_string());
        let text = self
            .client
            .post_text(
                &path,
                &[
                    ("rated", if rated { "true" } else { "false" }),
                    ("clock.limit", &limit),
                    ("clock.increment", &inc),
                    ("color", "random"),
                    ("variant", "standard"),
                ],
            )
            .await?;
        Ok(event::parse_challenge_id(&text)?)
    }

    /// Withdraws one of our challenges.
    pub async fn cancel_challenge(&self, challenge: &str) -> Result<(), LichessError> {
        let path = format!("/api/challenge/{}/cancel", id(challenge)?);
        Ok(self.client.post(&path, &[]).await?)
    }

    /// Claims the win when the opponent has left (after `claimWinInSeconds`).
    pub async fn claim_victory(&self, game: &str) -> Result<(), LichessError> {
        let path = format!("/api/bot/game/{}/claim-victory", id(game)?);
        Ok(self.client.post(&path, &[]).await?)
    }

    /// Claims a draw by rule (threefold repetition, fifty moves) or, where the
    /// opponent has left, the draw the server offers then.
    pub async fn claim_draw(&self, game: &str) -> Result<(), LichessError> {
        let path = format!("/api/bot/game/{}/claim-draw", id(game)?);
        Ok(self.client.post(&path, &[]).await?)
    }

    pub async fn accept(&self, challenge: &str) -> Result<(), LichessError> {
        let path = format!("/api/challenge/{}/accept", id(challenge)?);
        Ok(self.client.post(&path, &[]).await?)
    }

    pub async fn decline(&self, challenge: &str, why: DeclineReason) -> Result<(), LichessError> {
        let path = format!("/api/challenge/{}/decline", id(challenge)?);
        Ok(self.client.post(&path, &[("reason", why.key())]).await?)
    }

    /// Our move in UCI notation, offering a draw with it if asked.
    pub async fn play(&self, game: &str, uci: &str, offer_draw: bool) -> Result<(), LichessError> {
        let ok = (4..=5).contains(&uci.len())
            && uci
                .bytes()
                .all(|b| matches!(b, b'a'..=b'h' | b'1'..=b'8' | b'q' | b'r' | b'n'));
        if !ok {
            return Err(LichessError::BadMove(uci.chars().take(20).collect()));
        }
        let mut path = format!("/api/bot/game/{}/move/{uci}", id(game)?);
        if offer_draw {
            path.push_str("?offeringDraw=true");
        }
        Ok(self.client.post(&path, &[]).await?)
    }

    pub async fn resign(&self, game: &str) -> Result<(), LichessError> {
        let path = format!("/api/bot/game/{}/resign", id(game)?);
        Ok(self.client.post(&path, &[]).await?)
    }

    pub async fn abort(&self, game: &str) -> Result<(), LichessError> {
        let path = format!("/api/bot/game/{}/abort", id(game)?);
        Ok(self.client.post(&path, &[]).await?)
    }

    /// Offers or accepts a draw (`yes`), or declines one.
    pub async fn draw(&self, game: &str, yes: bool) -> Result<(), LichessError> {
        let path = format!(
            "/api/bot/game/{}/draw/{}",
            id(game)?,
            if yes { "yes" } else { "no" }
        );
        Ok(self.client.post(&path, &[]).await?)
    }

    /// Accepts or declines a takeback.
    pub async fn takeback(&self, game: &str, yes: bool) -> Result<(), LichessError> {
        let path = format!(
            "/api/bot/game/{}/takeback/{}",
            id(game)?,
            if yes { "yes" } else { "no" }
        );
        Ok(self.client.post(&path, &[]).await?)
    }

    /// A chat line (at most 140 characters, control characters removed).
    pub async fn chat(&self, game: &str, room: Room, text: &str) -> Result<(), LichessError> {
        let path = format!("/api/bot/game/{}/chat", id(game)?);
        let room = match room {
            Room::Player => "player",
            Room::Spectator => "spectator",
        };
        let text: String = text.chars().filter(|c| !c.is_control()).take(140).collect();
        Ok(self
            .client
            .post(&path, &[("room", room), ("text", &text)])
            .await?)
    }
}
