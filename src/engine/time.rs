//! Time: one injectable clock, and the time manager that turns the limits of a search
//! into a soft limit (do not start another iteration after it), a hard limit (stop at
//! once), and adjustments for unstable or obvious best moves.
//!
//! Invariants (tested): the hard limit never exceeds the time left minus the operator
//! reserve and the move overhead; neither limit ever touches the operator reserve.

use super::limits::{SearchConfig, SearchLimits};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic clock. The engine reads time only through this trait, so tests can
/// drive it.
pub trait Clock: Send + Sync {
    /// Time since an arbitrary fixed point.
    fn now(&self) -> Duration;
}

/// The real monotonic clock.
pub struct SystemClock {
    origin: Instant,
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that moves only when told to (tests).
#[derive(Default)]
pub struct ManualClock {
    micros: AtomicU64,
}

impl ManualClock {
    pub fn advance(&self, d: Duration) {
        self.micros
            .fetch_add(d.as_micros() as u64, Ordering::SeqCst);
    }
    pub fn set(&self, d: Duration) {
        self.micros.store(d.as_micros() as u64, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_micros(self.micros.load(Ordering::SeqCst))
    }
}

/// Time limits of one search, measured from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Do not start a new iteration after this (scaled by stability factors).
    pub soft: Duration,
    /// Stop searching at once after this.
    pub hard: Duration,
    /// Fixed time per move (`st`, `movetime`): use all of it, no early stop.
    pub fixed: bool,
}

/// What one move costs beyond the search itself in a game without increment (the
/// reply's way through the server, a clock that counts whole seconds), for the floor.
const SUDDEN_DEATH_MOVE_COST_MS: u64 = 25;

/// How many move overheads (beside one increment) the hard limit of an increment
/// game keeps on the clock.
const INCREMENT_FLOOR_OVERHEADS: u64 = 10;

/// Computes the budget for a search, or `None` when the search is not timed.
pub fn allocate(limits: &SearchLimits, config: &SearchConfig) -> Option<TimeBudget> {
    if limits.infinite {
        return None;
    }
    if let Some(mt) = limits.movetime {
        let t = mt
            .saturating_sub(config.move_overhead)
            .max(Duration::from_millis(1));
        return Some(TimeBudget {
            soft: t,
            hard: t,
            fixed: true,
        });
    }
    let c = limits.clock?;
    let usable = c
        .time_left
        .saturating_sub(config.operator_reserve)
        .saturating_sub(config.move_overhead);
    let usable_ms = usable.as_millis() as u64;
    let inc_ms = c.increment.as_millis() as u64;
    let ply = limits.game_ply as u64;
    let moves = match c.moves_to_go {
        Some(n) if n > 0 => n.min(40) as u64,
        // Sudden death: assume the game lasts a while longer, less so late on.
        _ if c.increment.is_zero() => 40u64.saturating_sub(ply / 8).max(20),
        // Increment: the clock is refilled every move, so spend more of it early;
        // late on a move costs about the increment.
        _ => 28u64.saturating_sub(ply / 8).max(14),
    };
    // Without increment and without a coming time control nothing is ever added to
    // the clock, while every move still costs at least the overhead (lag, the
    // server's whole-second clocks). Keep a floor that scales with the moves still
    // expected, and spend only above it: the clock then decays towards the floor
    // instead of towards zero, and below it every move is almost instant.
    let sudden_death = inc_ms == 0 && c.moves_to_go.is_none();
    let overhead_ms = config.move_overhead.as_millis() as u64;
    let floor_ms = if sudden_death {
        moves * (overhead_ms + SUDDEN_DEATH_MOVE_COST_MS)
    } else {
        0
    };
    // Below the floor a move gets a sliver (a shallow search); above it, the part
    // above the floor is shared out.
    let spendable_ms = above_floor(usable_ms, floor_ms);
    // Most of the increment, unless the clock is down to a couple of them.
    let inc_part = if inc_ms > 0 && usable_ms > 2 * inc_ms {
        inc_ms * 3 / 4
    } else {
        0
    };
    let base = spendable_ms / moves + inc_part;
    let usage = (100 + config.usage.clamp(-90, 400)) as u64;
    let mut soft = base * usage / 100;
    if config.ponder {
        soft = soft * 5 / 4;
    }
    // The hard limit: a few times the target, never more than a share of what is left
    // (all of it only when this is the last move before the control). Without a
    // control to come, the share is of what lies above the floor (plus the increment
    // part), so even a move that runs to its hard limit leaves the floor alone.
    let share = match c.moves_to_go {
        Some(1) => usable_ms * 9 / 10,
        Some(2) => usable_ms * 6 / 10,
        Some(_) => usable_ms * 4 / 10,
        None => {
            // Sudden death keeps its floor. With an increment the clock would settle
            // where a move's share of it plus most of the increment equals the
            // increment: a few hundred milliseconds at 10+0.1, and a search that runs
            // to its hard limit could take 40 % of a 1 s clock, so one stall of the
            // machine or the server (a busy host, a lag spike) loses on time. The soft
            // target ignores this floor (it costs nothing while the clock is high);
            // the hard limit keeps above it, so the clock settles just above it.
            let hard_floor_ms = if sudden_death {
                floor_ms
            } else {
                inc_ms + INCREMENT_FLOOR_OVERHEADS * overhead_ms
            };
            above_floor(usable_ms, hard_floor_ms) * 4 / 10 + inc_part
        }
    };
    let hard = (soft * 4).min(share).min(usable_ms);
    let soft = soft.min(hard);
    Some(TimeBudget {
        soft: Duration::from_millis(soft.max(1)),
        hard: Duration::from_millis(hard.max(1)),
        fixed: false,
    })
}

/// What lies above a floor; below it, a sliver (enough for a shallow search).
fn above_floor(usable_ms: u64, floor_ms: u64) -> u64 {
    if usable_ms > floor_ms {
        usable_ms - floor_ms
    } else {
        usable_ms / 100
    }
}

/// Soft-limit scaling by how the search is going, in percent.
/// `best_changes`: how many times the best move changed in recent iterations
/// (decayed); `fail_low`: the last iteration's score dropped; `stable_iterations`:
/// iterations in a row with the same best move.
pub fn soft_scale(best_changes: u32, score_drop: i32, stable_iterations: u32) -> u64 {
    let mut pct: u64 = 100;
    pct += (best_changes as u64 * 35).min(150);
    if score_drop > 20 {
        pct += (score_drop as u64 * 2).min(100);
    }
    if stable_iterations >= 6 && best_changes == 0 && score_drop <= 0 {
        pct = pct * 6 / 10;
    }
    pct
}

/// Soft-limit scaling by the best move's share of the root's nodes, in percent: a
/// move that took nearly all the effort (nothing else came close) gets less time, one
/// that shared it with its rivals more. From 60 % (all nodes) to 160 % (none).
pub fn node_share_scale(best_move_nodes: u64, all_nodes: u64) -> u64 {
    if all_nodes == 0 {
        return 100;
    }
    160 - best_move_nodes.min(all_nodes) * 100 / all_nodes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::limits::ClockLimits;

    fn cfg(reserve_s: u64, overhead_ms: u64) -> SearchConfig {
        SearchConfig {
            operator_reserve: Duration::from_secs(reserve_s),
            move_overhead: Duration::from_millis(overhead_ms),
            ..Default::default()
        }
    }

    fn clock(left_ms: u64, inc_ms: u64, mtg: Option<u32>) -> SearchLimits {
        SearchLimits {
            clock: Some(ClockLimits {
                time_left: Duration::from_millis(left_ms),
                increment: Duration::from_millis(inc_ms),
                moves_to_go: mtg,
                opponent_left: None,
            }),
            ..Default::default()
        }
    }

    /// Plays `plies / 2` of our moves from `start_ms` on a clock with `inc_ms`, each
    /// charged what `spend` picks from its budget plus 10 ms of lag; panics if a move
    /// would take the whole clock, and returns the lowest clock seen.
    fn lowest_clock(
        c: &SearchConfig,
        start_ms: u64,
        inc_ms: u64,
        plies: u32,
        spend: fn(&TimeBudget) -> Duration,
    ) -> u64 {
        let mut left = start_ms;
        let mut smallest = left;
        for ply in (0..plies).step_by(2) {
            let mut l = clock(left, inc_ms, None);
            l.game_ply = ply;
            let spent = spend(&allocate(&l, c).unwrap()).as_millis() as u64 + 10;
            assert!(
                spent < left,
                "ply {ply}: {spent} ms spent with {left} ms left"
            );
            left = left - spent + inc_ms;
            smallest = smallest.min(left);
        }
        smallest
    }

    #[test]
    fn never_past_time_left_minus_reserve_and_overhead() {
        for left in [
            1u64, 10, 50, 100, 500, 1_000, 5_000, 60_000, 600_000, 7_200_000,
        ] {
            for inc in [0u64, 100, 2_000, 12_000] {
                for mtg in [None, Some(1), Some(2), Some(5), Some(40)] {
                    for reserve in [0u64, 1, 5] {
                        for usage in [-50, 0, 100, 400] {
                            let mut c = cfg(reserve, 50);
                            c.usage = usage;
                            c.ponder = usage > 0;
                            let b = allocate(&clock(left, inc, mtg), &c).unwrap();
                            let usable = Duration::from_millis(left)
                                .saturating_sub(Duration::from_secs(reserve))
                                .saturating_sub(Duration::from_millis(50));
                            assert!(b.soft <= b.hard, "{left} {inc} {mtg:?}");
                            // 1 ms is the floor when nothing at all is left.
                            assert!(
                                b.hard <= usable.max(Duration::from_millis(1)),
                                "hard {:?} > usable {usable:?} (left {left} inc {inc} mtg {mtg:?} reserve {reserve})",
                                b.hard
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn allocation_per_time_control_form() {
        let c = cfg(0, 0);
        // 40 moves in 40 minutes, 40 to go: about a minute a move.
        let b = allocate(&clock(2_400_000, 0, Some(40)), &c).unwrap();
        assert_eq!(b.soft, Duration::from_secs(60));
        // Last move before the control may use most of what is left.
        let b = allocate(&clock(10_000, 0, Some(1)), &c).unwrap();
        assert!(b.soft >= Duration::from_secs(9) && b.hard <= Duration::from_secs(9));
        // Increment games spend most of the increment.
        let b = allocate(&clock(60_000, 2_000, None), &c).unwrap();
        assert!(b.soft >= Duration::from_millis(1_500 + 1_000));
        assert!(b.soft < Duration::from_millis(5_000));
        // Fixed time per move.
        let mut l = SearchLimits::movetime(Duration::from_millis(1_000));
        let b = allocate(&l, &cfg(0, 50)).unwrap();
        assert_eq!(b.hard, Duration::from_millis(950));
        l.infinite = true;
        assert!(allocate(&l, &c).is_none());
        // Usage +100% doubles the target.
        let mut c2 = cfg(0, 0);
        c2.usage = 100;
        let b2 = allocate(&clock(2_400_000, 0, Some(40)), &c2).unwrap();
        assert_eq!(b2.soft, Duration::from_secs(120));
    }

    #[test]
    fn operator_reserve_is_never_touched() {
        // 10 minutes left, 10 reserved: nothing to spend but the floor.
        let b = allocate(&clock(600_000, 0, None), &cfg(600, 50)).unwrap();
        assert_eq!(b.hard, Duration::from_millis(1));
        // 15 minutes left, 10 reserved: at most 40% of the 5 usable minutes.
        let b = allocate(&clock(900_000, 0, None), &cfg(600, 0)).unwrap();
        assert!(b.hard <= Duration::from_secs(120));
    }

    #[test]
    fn sudden_death_keeps_a_floor_and_never_spends_it() {
        // A 1 0 game played to 200 moves, each move charged its search time plus 10 ms
        // of lag (the overhead estimate is 80): the clock settles above zero instead
        // of running out.
        let c = cfg(0, 80);
        // Spend the soft target (a search stops between soft and hard).
        let smallest = lowest_clock(&c, 60_000, 0, 400, |b| b.soft);
        assert!(smallest > 1_000, "the clock went down to {smallest} ms");
        // Below the floor the search gets next to nothing: an instant move.
        let b = allocate(&clock(900, 0, None), &c).unwrap();
        assert!(b.hard <= Duration::from_millis(200), "{b:?}");
        // With an increment there is no floor: the increment is spent.
        let b = allocate(&clock(10_000, 2_000, None), &c).unwrap();
        assert!(b.soft >= Duration::from_millis(1_500));
    }

    #[test]
    fn increment_games_spend_early_and_settle_near_the_increment() {
        // 10 s + 0.1 s: the first move out of book gets more than 1/30 of the clock.
        let c = cfg(0, 50);
        let b = allocate(&clock(10_000, 100, None), &c).unwrap();
        assert!(b.soft > Duration::from_millis(10_000 / 30), "{b:?}");
        // Played to 300 moves, each charged its soft target plus 10 ms of lag: the
        // clock settles above the hard limit's floor (one increment and ten
        // overheads, 600 ms) instead of at a few hundred milliseconds.
        let smallest = lowest_clock(&c, 10_000, 100, 600, |b| b.soft);
        assert!(smallest > 600, "the clock went down to {smallest} ms");
        // The same game with every move running to its hard limit (an unstable
        // search each time): the floor still holds.
        let smallest = lowest_clock(&c, 10_000, 100, 600, |b| b.hard);
        assert!(
            smallest > 600,
            "at hard limits the clock went down to {smallest} ms"
        );
        // Below the floor (after a stall) a move costs less than the increment, so
        // the clock climbs back.
        for left in [100u64, 300, 500] {
            let b = allocate(&clock(left, 100, None), &c).unwrap();
            assert!(b.soft < Duration::from_millis(90), "{left}: {b:?}");
            assert!(b.hard < Duration::from_millis(left), "{left}: {b:?}");
        }
        // A bigger increment and overhead (a server game, 2 12 with lag): the floor
        // is 12 + 10 * 0.3 s; a minute left still spends most of the increment, and
        // just above the floor a move costs less than the increment.
        let c = cfg(0, 300);
        let b = allocate(&clock(60_000, 12_000, None), &c).unwrap();
        assert!(b.soft >= Duration::from_millis(9_000), "{b:?}");
        let b = allocate(&clock(25_000, 12_000, None), &c).unwrap();
        assert!(b.soft < Duration::from_millis(12_000 - 300), "{b:?}");
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let c = ManualClock::default();
        assert_eq!(c.now(), Duration::ZERO);
        c.advance(Duration::from_millis(250));
        assert_eq!(c.now(), Duration::from_millis(250));
        c.set(Duration::from_secs(3));
        assert_eq!(c.now(), Duration::from_secs(3));
    }

    #[test]
    fn scaling_extends_unstable_and_shortens_obvious() {
        assert!(soft_scale(3, 0, 0) > 100);
        assert!(soft_scale(0, 60, 0) > 100);
        assert!(soft_scale(0, 0, 8) < 100);
        assert_eq!(node_share_scale(95, 100), 65);
        assert_eq!(node_share_scale(30, 100), 130);
        assert_eq!(node_share_scale(0, 0), 100);
        assert_eq!(node_share_scale(200, 100), 60);
    }
}
