//! Matchmaking on Lichess (`lichess.matchmaking`, off by default): while the
//! account has a free game slot, every `lichess.challenge_interval` it challenges
//! one bot of `/api/bot/online` whose rating for the time control is inside
//! `lichess.challenge_min_rating..=lichess.challenge_max_rating`, in turn through
//! the time controls of `lichess.challenge_tc`, never one on
//! `lichess.challenge_block` or the noplay list. A bot that declines (or lets the
//! challenge expire) is left alone for an hour, doubling with each refusal up to
//! a day; refusals in a row stretch the interval (up to 16 times) until a
//! challenge is accepted. The requests themselves go through the client, which
//! holds everything back a minute after an HTTP 429.

use crate::lichess::OnlineUser;
use crate::options::Options;
use std::collections::HashMap;
use std::time::Duration;
use tokio::time::Instant;

/// How long an unanswered challenge of ours stands before it is withdrawn
/// (Lichess lets it expire after 20 s).
pub const ANSWER_WAIT: Duration = Duration::from_secs(25);

const COOL_FIRST: Duration = Duration::from_secs(3600);
const COOL_MAX: Duration = Duration::from_secs(24 * 3600);

/// What matchmaking is configured to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub interval: Duration,
    /// Initial time and increment, in seconds.
    pub time_controls: Vec<(u32, u32)>,
    pub min_rating: i32,
    pub max_rating: i32,
    pub rated: bool,
    /// Lower-case user ids never challenged.
    pub block: Vec<String>,
}

/// `1+0 3+2 0.5+0`: minutes (0.25, 0.5, 0.75, 1.5 or whole) plus seconds of
/// increment, separated by spaces or commas; Lichess's limits (at most 180
/// minutes and 60 s) are checked.
pub fn parse_time_controls(text: &str) -> Result<Vec<(u32, u32)>, String> {
    let mut out = Vec::new();
    for item in text.split([' ', ',']).filter(|s| !s.is_empty()) {
        let bad = || format!("'{item}' is not minutes+increment (e.g. 3+2)");
        let (m, i) = item.split_once('+').ok_or_else(bad)?;
        let limit = match m {
            "0" => 0,
            "0.25" | ".25" => 15,
            "0.5" | ".5" => 30,
            "0.75" | ".75" => 45,
            "1.5" => 90,
            m => m
                .parse::<u32>()
                .ok()
                .filter(|&m| m <= 180)
                .ok_or_else(bad)?
                .saturating_mul(60),
        };
        let inc = i.parse::<u32>().ok().filter(|&i| i <= 60).ok_or_else(bad)?;
        if limit == 0 && inc == 0 {
            return Err(format!("'{item}': a game needs some time"));
        }
        out.push((limit, inc));
    }
    if out.is_empty() {
        return Err("no time control given (e.g. 1+0 3+2)".into());
    }
    Ok(out)
}

/// Lichess's speed of a clock (from the estimated duration, initial + 40 increments).
pub fn speed(limit_s: u32, inc_s: u32) -> &'static str {
    match limit_s + 40 * inc_s {
        0..=29 => "ultraBullet",
        30..=179 => "bullet",
        180..=479 => "blitz",
        480..=1499 => "rapid",
        _ => "classical",
    }
}

impl Config {
    pub fn from_options(o: &Options) -> Result<Config, String> {
        let min_rating = o.int("lichess.challenge_min_rating") as i32;
        let max_rating = o.int("lichess.challenge_max_rating") as i32;
        if min_rating > max_rating {
            return Err(format!(
                "lichess.challenge_min_rating {min_rating} is above lichess.challenge_max_rating {max_rating}"
            ));
        }
        Ok(Config {
            interval: o
                .duration("lichess.challenge_interval")
                .max(Duration::from_secs(10)),
            time_controls: parse_time_controls(o.str("lichess.challenge_tc"))
                .map_err(|e| format!("lichess.challenge_tc: {e}"))?,
            min_rating,
            max_rating,
            rated: o.bool("lichess.challenge_rated"),
            block: o
                .str("lichess.challenge_block")
                .split([' ', ','])
                .filter(|s| !s.is_empty())
                .map(str::to_ascii_lowercase)
                .collect(),
        })
    }
}

/// A challenge to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    pub username: String,
    pub limit_s: u32,
    pub increment_s: u32,
    pub rated: bool,
}

/// One challenge of ours waiting for an answer.
#[derive(Clone, Debug)]
pub struct Outstanding {
    pub id: String,
    pub opponent: String,
    pub sent: Instant,
}

/// Matchmaking's memory.
#[derive(Debug)]
pub struct Matchmaker {
    pub cfg: Config,
    /// Bots that declined: not before this instant, and how often they declined.
    cooling: HashMap<String, (Instant, u32)>,
    /// When each bot was last challenged (the least recent goes first).
    last: HashMap<String, Instant>,
    /// Refusals in a row (declined, expired, failed).
    refusals: u32,
    next_tc: usize,
    pub outstanding: Option<Outstanding>,
    pub next_at: Instant,
    /// A look-up or a challenge request is under way.
    pub busy: bool,
}

impl Matchmaker {
    pub fn new(cfg: Config, now: Instant) -> Matchmaker {
        Matchmaker {
            next_at: now + cfg.interval.min(Duration::from_secs(30)),
            cfg,
            cooling: HashMap::new(),
            last: HashMap::new(),
            refusals: 0,
            next_tc: 0,
            outstanding: None,
            busy: false,
        }
    }

    /// The wait before the next attempt: the interval, stretched by refusals.
    pub fn delay(&self) -> Duration {
        self.cfg.interval * (1u32 << self.refusals.min(4))
    }

    /// The next attempt after the current wait.
    pub fn schedule(&mut self, now: Instant) {
        self.next_at = now + self.delay();
    }

    /// The bot to challenge among `bots` (us, blocked, cooling and disabled ones
    /// left out; `refused` says whether the noplay list has them), and the time
    /// control; none when nobody fits.
    pub fn pick(
        &mut self,
        bots: &[OnlineUser],
        me: &str,
        refused: impl Fn(&OnlineUser) -> bool,
        now: Instant,
    ) -> Option<Pick> {
        let n = self.cfg.time_controls.len();
        for k in 0..n {
            let (limit, inc) = self.cfg.time_controls[(self.next_tc + k) % n];
            let sp = speed(limit, inc);
            let best = bots
                .iter()
                .filter(|b| {
                    let id = b.id.to_ascii_lowercase();
                    id != me.to_ascii_lowercase()
                        && b.title.as_deref() == Some("BOT")
                        && !b.disabled
                        && !b.tos_violation
                        && !self.cfg.block.contains(&id)
                        && self.cooling.get(&id).is_none_or(|c| now >= c.0)
                        && !refused(b)
                        && b.rating(sp)
                            .is_some_and(|r| r >= self.cfg.min_rating && r <= self.cfg.max_rating)
                })
                .min_by_key(|b| {
                    (
                        self.last.get(&b.id.to_ascii_lowercase()).copied(),
                        b.id.clone(),
                    )
                });
            if let Some(b) = best {
                self.next_tc = (self.next_tc + k + 1) % n;
                self.last.insert(b.id.to_ascii_lowercase(), now);
                return Some(Pick {
                    username: b.username.clone(),
                    limit_s: limit,
                    increment_s: inc,
                    rated: self.cfg.rated,
                });
            }
        }
        None
    }

    /// Our challenge became a game.
    pub fn accepted(&mut self) {
        self.refusals = 0;
        self.outstanding = None;
    }

    /// Our challenge to `opponent` was declined, expired or could not be made.
    pub fn refused(&mut self, opponent: &str, now: Instant) {
        self.refusals = self.refusals.saturating_add(1);
        let e = self
            .cooling
            .entry(opponent.to_ascii_lowercase())
            .or_insert((now, 0));
        e.1 += 1;
        let cool = (COOL_FIRST * (1u32 << (e.1 - 1).min(5))).min(COOL_MAX);
        e.0 = now + cool;
        self.outstanding = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bot(id: &str, bullet: i32, blitz: Option<i32>) -> OnlineUser {
        let mut perfs = std::collections::BTreeMap::new();
        perfs.insert(
            "bullet".to_string(),
            crate::lichess::event::Perf {
                rating: Some(bullet),
                games: Some(10),
            },
        );
        if let Some(r) = blitz {
            perfs.insert(
                "blitz".to_string(),
                crate::lichess::event::Perf {
                    rating: Some(r),
                    games: Some(10),
                },
            );
        }
        OnlineUser {
            id: id.to_ascii_lowercase(),
            username: id.into(),
            title: Some("BOT".into()),
            perfs,
            disabled: false,
            tos_violation: false,
        }
    }

    fn cfg() -> Config {
        Config {
            interval: Duration::from_secs(60),
            time_controls: vec![(60, 0), (180, 2)],
            min_rating: 1500,
            max_rating: 2500,
            rated: false,
            block: vec!["blocked".into()],
        }
    }

    #[test]
    fn time_controls_and_speeds() {
        assert_eq!(
            parse_time_controls("1+0, 3+2 0.5+0").unwrap(),
            vec![(60, 0), (180, 2), (30, 0)]
        );
        for bad in ["", "3", "3+", "x+1", "200+0", "3+61", "0+0"] {
            assert!(parse_time_controls(bad).is_err(), "{bad}");
        }
        assert_eq!(speed(60, 0), "bullet");
        assert_eq!(speed(180, 2), "blitz");
        assert_eq!(speed(15, 0), "ultraBullet");
        assert_eq!(speed(600, 5), "rapid");
    }

    #[test]
    fn picks_by_rating_block_and_turn() {
        let now = Instant::now();
        let mut m = Matchmaker::new(cfg(), now);
        let bots = vec![
            bot("Me", 2000, Some(2000)),
            bot("Blocked", 2000, Some(2000)),
            bot("Weak", 1000, Some(1000)),
            bot("Alpha", 2000, None),
            bot("Beta", 2100, Some(2100)),
        ];
        let p = m.pick(&bots, "me", |_| false, now).unwrap();
        assert_eq!((p.username.as_str(), p.limit_s), ("Alpha", 60));
        // The next time control (3+2, blitz): only Beta has a blitz rating in range.
        let p = m.pick(&bots, "me", |_| false, now).unwrap();
        assert_eq!(
            (p.username.as_str(), p.limit_s, p.increment_s),
            ("Beta", 180, 2)
        );
        // Back to bullet: Alpha was challenged more recently than Beta? Both were;
        // the least recent goes first.
        let p = m.pick(&bots, "me", |_| false, now + Duration::from_secs(1));
        assert_eq!(p.unwrap().username, "Alpha");
        // The noplay list.
        let p = m.pick(&bots, "me", |b| b.id == "alpha" || b.id == "beta", now);
        assert!(p.is_none());
    }

    #[test]
    fn refusals_cool_the_bot_and_stretch_the_interval() {
        let now = Instant::now();
        let mut m = Matchmaker::new(cfg(), now);
        let bots = vec![bot("Alpha", 2000, None)];
        assert_eq!(m.delay(), Duration::from_secs(60));
        m.refused("Alpha", now);
        assert_eq!(m.delay(), Duration::from_secs(120));
        assert!(m.pick(&bots, "me", |_| false, now).is_none(), "cooling");
        let later = now + Duration::from_secs(3601);
        assert!(m.pick(&bots, "me", |_| false, later).is_some());
        m.refused("Alpha", later);
        assert!(
            m.pick(&bots, "me", |_| false, later + Duration::from_secs(3601))
                .is_none(),
            "two hours the second time"
        );
        for _ in 0..10 {
            m.refused("x", now);
        }
        assert_eq!(m.delay(), Duration::from_secs(60 * 16), "at most 16 times");
        m.accepted();
        assert_eq!(m.delay(), Duration::from_secs(60));
    }
}
