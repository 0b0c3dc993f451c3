//! `/metrics`: the bot's counters in the Prometheus (OpenMetrics) text format, made
//! with `prometheus-client` from the newest `Status` at each scrape (a collector, so
//! nothing is counted twice and nothing here runs between scrapes).

use crate::bot::status::{AccountState, AccountStatus, Status};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::watch;

pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The registry, with one collector reading the status.
pub struct Metrics {
    registry: Registry,
}

impl Metrics {
    /// `clients`: the page's live feeds open.
    pub fn new(status: watch::Receiver<Status>, clients: Arc<AtomicUsize>) -> Metrics {
        let mut registry = Registry::default();
        registry
            .sub_registry_with_prefix("kibitzer")
            .register_collector(Box::new(StatusCollector { status, clients }));
        // The process's own, under the names Prometheus's process collectors use.
        registry.register_collector(Box::new(ProcessCollector));
        Metrics { registry }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            tracing::error!("cannot encode the metrics: {e}");
        }
        out
    }
}

/// `process_cpu_seconds_total`, `process_resident_memory_bytes`,
/// `process_virtual_memory_bytes`, `process_open_fds`, `process_start_time_seconds`,
/// read from `/proc/self` at each scrape (absent where there is no `/proc`).
#[derive(Debug)]
struct ProcessCollector;

/// The clock ticks of `/proc` times (USER_HZ, 100 on Linux whatever the kernel's HZ).
const TICKS: f64 = 100.0;

impl Collector for ProcessCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
            return Ok(());
        };
        // The fields after the command name (which may hold spaces) in parentheses.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<&str> = rest.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        // Field numbers of proc(5) minus 3: utime 14, stime 15, starttime 22, vsize 23.
        let cpu = (num(11) + num(12)) / TICKS;
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let kb = |key: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
                .unwrap_or(0.0)
                * 1024.0
        };
        let boot = std::fs::read_to_string("/proc/stat")
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("btime "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .unwrap_or(0.0);
        let fds = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count()) as f64;
        let c = prometheus_client::metrics::counter::ConstCounter::new(cpu);
        c.encode(enc.encode_descriptor(
            "process_cpu",
            "user and system CPU time spent",
            Some(&Unit::Seconds),
            MetricType::Counter,
        )?)?;
        gauge(
            &mut enc,
            "process_resident_memory",
            "resident memory size",
            Some(&Unit::Bytes),
            kb("VmRSS:"),
        )?;
        gauge(
            &mut enc,
            "process_virtual_memory",
            "virtual memory size",
            Some(&Unit::Bytes),
            num(20),
        )?;
        gauge(
            &mut enc,
            "process_open_fds",
            "open file descriptors",
            None,
            fds,
        )?;
        gauge(
            &mut enc,
            "process_start_time",
            "start time of the process since the Unix epoch",
            Some(&Unit::Seconds),
            boot + num(19) / TICKS,
        )?;
        Ok(())
    }
}

struct StatusCollector {
    status: watch::Receiver<Status>,
    clients: Arc<AtomicUsize>,
}

impl std::fmt::Debug for StatusCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StatusCollector")
    }
}

/// A histogram given as cumulative buckets.
#[derive(Debug)]
struct ConstHistogram {
    sum: f64,
    count: u64,
    buckets: Vec<(f64, u64)>,
}

impl EncodeMetric for ConstHistogram {
    fn encode(
        &self,
        mut encoder: prometheus_client::encoding::MetricEncoder,
    ) -> Result<(), std::fmt::Error> {
        // The buckets given here are cumulative; the encoder wants them per bucket.
        let mut prev = 0;
        let per: Vec<(f64, u64)> = self
            .buckets
            .iter()
            .map(|&(b, c)| {
                let n = c - prev;
                prev = c;
                (b, n)
            })
            .collect();
        encoder.encode_histogram::<prometheus_client::encoding::NoLabelSet>(
            self.sum, self.count, &per, None,
        )
    }

    fn metric_type(&self) -> MetricType {
        MetricType::Histogram
    }
}

fn counter(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    v: u64,
) -> Result<(), std::fmt::Error> {
    let c = ConstCounter::new(v);
    let m = enc.encode_descriptor(name, help, None, c.metric_type())?;
    c.encode(m)
}

/// One value per account, labelled `account`.
fn per_account(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    kind: MetricType,
    s: &Status,
    value: impl Fn(&AccountStatus) -> f64,
) -> Result<(), std::fmt::Error> {
    let mut m = enc.encode_descriptor(name, help, unit, kind)?;
    for a in &s.accounts {
        let labels = [("account", a.name.as_str())];
        let fm = m.encode_family(&labels)?;
        match kind {
            MetricType::Counter => ConstCounter::new(value(a) as u64).encode(fm)?,
            _ => ConstGauge::new(value(a)).encode(fm)?,
        }
    }
    Ok(())
}

fn gauge(
    enc: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<&Unit>,
    v: f64,
) -> Result<(), std::fmt::Error> {
    let g = ConstGauge::new(v);
    let m = enc.encode_descriptor(name, help, unit, g.metric_type())?;
    g.encode(m)
}

impl Collector for StatusCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let s = self.status.borrow().clone();
        let c = &s.counters;
        let up = |b: bool| if b { 1.0 } else { 0.0 };
        {
            let mut m = enc.encode_descriptor(
                "build_info",
                "the version and commit of this binary (always 1)",
                None,
                MetricType::Gauge,
            )?;
            let labels = [
                ("version", env!("CARGO_PKG_VERSION")),
                ("commit", env!("BUILD_GIT_COMMIT")),
            ];
            ConstGauge::new(1.0).encode(m.encode_family(&labels)?)?;
        }
        per_account(
            &mut enc,
            "connected",
            "1 while the account is logged in (Lichess: streaming)",
            None,
            MetricType::Gauge,
            &s,
            |a| up(a.connected),
        )?;
        gauge(
            &mut enc,
            "healthy",
            "1 while every account is logged in with a live link and the engine is healthy (what /healthz checks)",
            None,
            up(s.health().is_ok()),
        )?;
        {
            let mut m = enc.encode_descriptor(
                "account_state",
                "1 for the state each account is in (connecting, logged_in, backing_off, stopped)",
                None,
                MetricType::Gauge,
            )?;
            for a in &s.accounts {
                for st in [
                    AccountState::Connecting,
                    AccountState::LoggedIn,
                    AccountState::BackingOff,
                    AccountState::Stopped,
                ] {
                    let name = st.name().replace(' ', "_");
                    let labels = [("account", a.name.as_str()), ("state", name.as_str())];
                    ConstGauge::new(up(a.state == st)).encode(m.encode_family(&labels)?)?;
                }
            }
        }
        let now = crate::bot::status::unix_ms();
        per_account(
            &mut enc,
            "next_try",
            "time to the account's next connection attempt (0: not waiting)",
            Some(&Unit::Seconds),
            MetricType::Gauge,
            &s,
            |a| {
                a.next_try_unix_ms
                    .map_or(0.0, |t| t.saturating_sub(now) as f64 / 1000.0)
            },
        )?;
        per_account(
            &mut enc,
            "reconnects",
            "logins after a lost connection",
            None,
            MetricType::Counter,
            &s,
            |a| a.reconnects as f64,
        )?;
        per_account(
            &mut enc,
            "failed_connections",
            "connection or login attempts that failed",
            None,
            MetricType::Counter,
            &s,
            |a| a.failed_attempts as f64,
        )?;
        {
            let m = enc.encode_descriptor(
                "games",
                "finished games by account, our result (win, loss, draw, aborted, adjourned, lost) and opponent class",
                None,
                MetricType::Counter,
            )?;
            let mut m = m;
            for (account, by_result) in &c.games {
                for (result, by_class) in by_result {
                    for (class, &n) in by_class {
                        let labels = [
                            ("account", account.as_str()),
                            ("result", result.as_str()),
                            ("class", class.as_str()),
                        ];
                        let fm = m.encode_family(&labels)?;
                        ConstCounter::new(n).encode(fm)?;
                    }
                }
            }
        }
        counter(
            &mut enc,
            "illegal_move_replies",
            "moves of ours the server answered with Illegal move",
            c.illegal_move_replies,
        )?;
        {
            let mut m = enc.encode_descriptor(
                "time_forfeits",
                "games decided on time: lost by us (side=us) or won on the opponent's flag (side=opponent)",
                None,
                MetricType::Counter,
            )?;
            for (side, n) in [
                ("us", c.time_forfeits_us),
                ("opponent", c.time_forfeits_opponent),
            ] {
                let labels = [("side", side)];
                ConstCounter::new(n).encode(m.encode_family(&labels)?)?;
            }
        }
        per_account(
            &mut enc,
            "move_overhead",
            "the adaptive move overhead of the current or last game",
            Some(&Unit::Seconds),
            MetricType::Gauge,
            &s,
            |a| a.overhead_ms.unwrap_or(0) as f64 / 1000.0,
        )?;
        per_account(
            &mut enc,
            "lag",
            "what the server charged for our last move beyond our own thinking time",
            Some(&Unit::Seconds),
            MetricType::Gauge,
            &s,
            |a| a.lag_ms.unwrap_or(0) as f64 / 1000.0,
        )?;
        {
            let h = ConstHistogram {
                sum: c.time_left.sum,
                count: c.time_left.count,
                buckets: c.time_left.cumulative(),
            };
            let m = enc.encode_descriptor(
                "time_left",
                "our clock when each of our moves was sent",
                Some(&Unit::Seconds),
                MetricType::Histogram,
            )?;
            h.encode(m)?;
        }
        counter(&mut enc, "moves_sent", "moves we sent", c.moves_sent)?;
        gauge(
            &mut enc,
            "engine_nps",
            "nodes per second of our last search",
            None,
            c.engine_nps as f64,
        )?;
        gauge(
            &mut enc,
            "search_depth",
            "depth of our last search",
            None,
            c.search_depth as f64,
        )?;
        counter(
            &mut enc,
            "tells_received",
            "tells received",
            c.tells_received,
        )?;
        counter(
            &mut enc,
            "tells_refused",
            "tells refused (not an owner, or not allowed)",
            c.tells_refused,
        )?;
        gauge(
            &mut enc,
            "games_in_progress",
            "our games in progress",
            None,
            s.games.len() as f64,
        )?;
        gauge(
            &mut enc,
            "observed_games",
            "games observed",
            None,
            s.observed.len() as f64,
        )?;
        gauge(
            &mut enc,
            "web_clients",
            "live feeds of the status page open (WebSocket and event streams)",
            None,
            self.clients.load(Ordering::Relaxed) as f64,
        )?;
        let uptime = crate::bot::status::unix_ms().saturating_sub(s.started_unix_ms);
        gauge(
            &mut enc,
            "uptime",
            "time since the daemon started",
            Some(&Unit::Seconds),
            uptime as f64 / 1000.0,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::status::StatusTx;

    #[test]
    fn counters_gauges_and_the_histogram_are_rendered() {
        let tx = StatusTx::new();
        tx.update(|s| {
            let mut a = AccountStatus::new("ics", "freechess.org", 5000, "fics", "botone");
            a.logged_in("botone");
            a.reconnects = 2;
            s.accounts.push(a);
            for _ in 0..3 {
                s.counters.count_game("ics", "win", "GM");
            }
            s.counters.time_left.observe(0.7);
            s.counters.time_left.observe(50.0);
            s.counters.tells_refused = 4;
            s.counters.time_forfeits_us = 1;
        });
        let text = Metrics::new(tx.subscribe(), Arc::new(AtomicUsize::new(2))).render();
        for want in [
            "kibitzer_connected{account=\"ics\"} 1",
            "kibitzer_account_state{account=\"ics\",state=\"logged_in\"} 1",
            "kibitzer_account_state{account=\"ics\",state=\"backing_off\"} 0",
            "kibitzer_web_clients 2",
            "kibitzer_reconnects_total{account=\"ics\"} 2",
            "kibitzer_games_total{account=\"ics\",result=\"win\",class=\"GM\"} 3",
            "kibitzer_time_forfeits_total{side=\"us\"} 1",
            "kibitzer_tells_refused_total 4",
            "kibitzer_time_left_seconds_bucket{le=\"1.0\"} 1",
            "kibitzer_time_left_seconds_bucket{le=\"60.0\"} 2",
            "kibitzer_time_left_seconds_count 2",
            "# TYPE kibitzer_time_left_seconds histogram",
            "# TYPE kibitzer_uptime_seconds gauge",
            "# EOF",
        ] {
            assert!(text.contains(want), "{want} missing from\n{text}");
        }
    }
}
