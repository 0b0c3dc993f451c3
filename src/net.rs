//! What every server account shares, whatever the server: `Secret` (a password or
//! token that never prints) and `Backoff` (reconnect delays with jitter). The ICS
//! connection and the Lichess client both use them; neither imports the other.

use std::time::Duration;

/// A password (or any secret): never printed.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(********)")
    }
}

/// Exponential backoff with jitter for reconnecting.
#[derive(Clone, Debug)]
pub struct Backoff {
    pub min: Duration,
    pub max: Duration,
    attempt: u32,
}

impl Backoff {
    pub fn new(min: Duration, max: Duration) -> Backoff {
        Backoff {
            min: min.max(Duration::from_millis(10)),
            max: max.max(min),
            attempt: 0,
        }
    }

    /// The next wait: min * 2^attempt, capped at max, with +-25% jitter.
    pub fn next_delay(&mut self) -> Duration {
        let base = self
            .min
            .saturating_mul(1u32 << self.attempt.min(20))
            .min(self.max);
        self.attempt = self.attempt.saturating_add(1);
        let jitter: f64 = 0.75 + rand::random::<f64>() * 0.5;
        base.mul_f64(jitter).min(self.max)
    }

    pub fn reset(&mut self) {
        self.attempt = 0;
    }

    pub fn attempts(&self) -> u32 {
        self.attempt
    }
}
