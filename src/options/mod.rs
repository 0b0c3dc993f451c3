//! The one option table. Every setting (hash, threads, ponder, level, noise, resign,
//! book width, ...) is declared once in `TABLE` with its type, range, default, help,
//! the front ends that expose it and its UCI name where that differs. UCI `option`
//! lines, xboard `feature option="..."` strings, console `help`, configuration keys and
//! environment variable names are all derived from it.
//!
//! Values are layered by where they came from: `Default < ConfigFile < Environment <
//! CommandLine < Runtime`. A value set from a lower layer never hides one from a higher
//! layer (setting `hash` in the config file after `--set hash=...` on the command line
//! changes nothing visible). Errors name the option, the bad value and what is allowed.
//!
//! This module owns the syntax of values (sizes `64M`, times `2.5`/`1:30`, time
//! controls `40 5 0`/`60/30/sd/30`) and nothing else: applying a value to the engine
//! or a game is the game controller's and the front ends' business. Loading a
//! configuration file (the `config` crate) is `settings`'s, which feeds
//! `set_from(Source::ConfigFile, ...)`; the daemon's keys (`ics.*`, `bot.*`,
//! `records.*`) are declared here like every other option.

use std::fmt;
use std::time::Duration;
use thiserror::Error;

/// Where a value came from; later variants win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    Default = 0,
    ConfigFile = 1,
    Environment = 2,
    CommandLine = 3,
    Runtime = 4,
}

impl Source {
    pub const ALL: [Source; 5] = [
        Source::Default,
        Source::ConfigFile,
        Source::Environment,
        Source::CommandLine,
        Source::Runtime,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Source::Default => "default",
            Source::ConfigFile => "config file",
            Source::Environment => "environment",
            Source::CommandLine => "command line",
            Source::Runtime => "runtime",
        }
    }
}

/// The type of an option, with its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `on`/`off`, `true`/`false`, `1`/`0`, `yes`/`no`.
    Bool,
    /// A whole number in `min..=max`.
    Int { min: i64, max: i64 },
    /// Bytes, written `nnn`, `nnnK`, `nnnM` or `nnnG`; UCI and xboard show megabytes.
    Size { min: u64, max: u64 },
    /// A time, written in seconds (`2.5`) or `mm:ss`; stored in milliseconds.
    Time { max_ms: u64 },
    /// A time control: `level` form `<moves> <minutes|mm:ss> <increment>` or Crafty's
    /// `time` form `60/30/sd/30`, `sd/15`, `sd/2/12`.
    Level,
    /// Free text.
    Str,
    /// One of a fixed list of words.
    Enum(&'static [&'static str]),
    /// An action (UCI `Clear Hash`); it holds no value.
    Button,
}

/// Which front ends show an option (bit set).
pub mod front {
    pub const UCI: u8 = 1;
    pub const XBOARD: u8 = 2;
    pub const CONSOLE: u8 = 4;
    pub const CONFIG: u8 = 8;
    pub const ALL: u8 = UCI | XBOARD | CONSOLE | CONFIG;
    /// Console and configuration only (the protocols have their own commands).
    pub const LOCAL: u8 = CONSOLE | CONFIG;
    /// Everything but UCI (game play settings a UCI GUI manages itself).
    pub const NOT_UCI: u8 = XBOARD | CONSOLE | CONFIG;
}

/// One declared option.
#[derive(Debug)]
pub struct Spec {
    /// Canonical name: console command, configuration key (`evaluation.kscale` is key
    /// `kscale` of table `[evaluation]`), and xboard option name.
    pub name: &'static str,
    /// Other names the console and configuration accept (`mt`, `smpmt`).
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub default: &'static str,
    pub help: &'static str,
    /// `front::*` bits.
    pub fronts: u8,
    /// UCI name where it differs from `name`.
    pub uci_name: Option<&'static str>,
}

impl Spec {
    pub fn uci_name(&self) -> &'static str {
        self.uci_name.unwrap_or(self.name)
    }

    pub fn shown_in(&self, f: u8) -> bool {
        self.fronts & f != 0
    }

    /// The environment variable that sets this option (see `Options::load_env`):
    /// `KIBITZER_` and the name in upper case with dots as underscores
    /// (`KIBITZER_EVALUATION_KSCALE`).
    pub fn env_var(&self) -> String {
        format!(
            "{ENV_PREFIX}{}",
            self.name.to_ascii_uppercase().replace('.', "_")
        )
    }

    /// The configuration key (dots separate tables).
    pub fn config_key(&self) -> &'static str {
        self.name
    }

    /// What values are allowed, in words.
    pub fn expected(&self) -> String {
        match self.kind {
            Kind::Bool => "on or off".into(),
            Kind::Int { min, max } => format!("a whole number in {min}..={max}"),
            Kind::Size { min, max } => {
                format!("a size like 64M or 512K, {}..={}", fmt_size(min), fmt_size(max))
            }
            Kind::Time { max_ms } => format!(
                "seconds (2.5) or mm:ss, at most {} s",
                max_ms / 1000
            ),
            Kind::Level => {
                "a time control: <moves> <minutes or mm:ss> <increment s> (0 moves: whole game), or 60/30/sd/30, sd/15, sd/2/12".into()
            }
            Kind::Str => "any text".into(),
            Kind::Enum(words) => format!("one of {}", words.join(", ")),
            Kind::Button => "no value (an action)".into(),
        }
    }

    fn type_word(&self) -> &'static str {
        match self.kind {
            Kind::Bool => "bool",
            Kind::Int { .. } => "int",
            Kind::Size { .. } => "size",
            Kind::Time { .. } => "time",
            Kind::Level => "level",
            Kind::Str => "string",
            Kind::Enum(_) => "enum",
            Kind::Button => "button",
        }
    }
}

const MB: u64 = 1 << 20;

/// The prefix of every kibitzer environment variable.
pub const ENV_PREFIX: &str = "KIBITZER_";

/// kibitzer's environment variables that are not options: the secrets (read by
/// `settings`, never an option, never echoed), the configuration file's path (a
/// command-line flag's default) and the test harness's own measurement switches.
/// `Options::load_env` leaves them alone for every command.
pub const NOT_OPTIONS: &[&str] = &[
    "KIBITZER_PASSWORD",
    "KIBITZER_LICHESS_TOKEN",
    "KIBITZER_WEB_TOKEN",
    "KIBITZER_CONFIG",
    "KIBITZER_SCREENSHOT",
    "KIBITZER_SCREENSHOT_ACCOUNTS",
    "KIBITZER_MEASURE_SERIES",
    "KIBITZER_LICHESS_MEASURE",
    "KIBITZER_LICHESS_MEASURE_SN",
    "KIBITZER_PERFT_BUDGET",
];

mod table;
pub use table::TABLE;

/// A typed option value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    /// Bytes.
    Size(u64),
    /// Milliseconds.
    Millis(u64),
    Level(TimeControl),
    Str(String),
    Button,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => f.write_str(if *b { "on" } else { "off" }),
            Value::Int(i) => write!(f, "{i}"),
            Value::Size(s) => f.write_str(&fmt_size(*s)),
            Value::Millis(ms) => {
                if ms % 1000 == 0 {
                    write!(f, "{}", ms / 1000)
                } else {
                    write!(f, "{}.{:03}", ms / 1000, ms % 1000)
                }
            }
            Value::Level(tc) => write!(f, "{tc}"),
            Value::Str(s) => f.write_str(s),
            Value::Button => Ok(()),
        }
    }
}

/// Why a value was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OptionError {
    #[error("unknown option '{name}' (`help` lists them)")]
    Unknown { name: String },
    #[error("option {name}: '{value}' is not valid: expected {expected}")]
    Invalid {
        name: String,
        value: String,
        expected: String,
    },
    #[error("option {name}: {value} is out of range: expected {expected}")]
    OutOfRange {
        name: String,
        value: String,
        expected: String,
    },
    #[error("option {name} cannot be set from the {source_name}")]
    NotSettable {
        name: String,
        source_name: &'static str,
    },
}

/// A time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TimeControl {
    /// Moves per period; 0 = the whole game (sudden death).
    pub moves: u32,
    /// Time per period.
    pub base: Duration,
    /// Fischer increment per move.
    pub inc: Duration,
    /// A secondary control after the first period: (moves, time); moves 0 = sudden
    /// death (`time 60/30/sd/30`).
    pub then: Option<(u32, Duration)>,
}

impl TimeControl {
    /// The moves and time of period `n` (0-based).
    pub fn period(&self, n: u32) -> (u32, Duration) {
        if n == 0 {
            (self.moves, self.base)
        } else {
            self.then.unwrap_or((self.moves, self.base))
        }
    }

    /// Parses the `level` form `<moves> <minutes|mm:ss> <increment s>` (increment
    /// optional) or Crafty's `time` form (`60/30/sd/30`, `sd/15`, `sd/2/12`).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let t = text.trim();
        if t.contains('/') {
            return Self::parse_slashes(t);
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        if !(2..=3).contains(&words.len()) {
            return Err("expected <moves> <minutes or mm:ss> [<increment s>]".into());
        }
        let moves: u32 = words[0]
            .parse()
            .map_err(|_| format!("'{}' is not a number of moves", words[0]))?;
        let base = parse_minutes(words[1])?;
        let inc = match words.get(2) {
            Some(w) => parse_seconds(w)?,
            None => Duration::ZERO,
        };
        if base.is_zero() && inc.is_zero() {
            return Err("a time control needs time or an increment".into());
        }
        Ok(TimeControl {
            moves,
            base,
            inc,
            then: None,
        })
    }

    fn parse_slashes(t: &str) -> Result<TimeControl, String> {
        let parts: Vec<&str> = t.split('/').map(str::trim).collect();
        let moves_of = |w: &str| -> Result<u32, String> {
            if w.eq_ignore_ascii_case("sd") {
                Ok(0)
            } else {
                w.parse()
                    .map_err(|_| format!("'{w}' is not a number of moves or sd"))
            }
        };
        let (moves, base) = (
            moves_of(parts[0])?,
            parse_minutes(parts.get(1).copied().unwrap_or(""))?,
        );
        let mut tc = TimeControl {
            moves,
            base,
            inc: Duration::ZERO,
            then: None,
        };
        match parts.len() {
            2 => {}
            3 if moves == 0 => tc.inc = parse_seconds(parts[2])?,
            3 => tc.then = Some((0, parse_minutes(parts[2])?)),
            4 => tc.then = Some((moves_of(parts[2])?, parse_minutes(parts[3])?)),
            5 => {
                tc.then = Some((moves_of(parts[2])?, parse_minutes(parts[3])?));
                tc.inc = parse_seconds(parts[4])?;
            }
            _ => return Err("expected nmoves/ntime[/nmoves/ntime][/increment]".into()),
        }
        Ok(tc)
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mins = |d: Duration| {
            let s = d.as_secs();
            if s % 60 == 0 {
                format!("{}", s / 60)
            } else {
                format!("{}:{:02}", s / 60, s % 60)
            }
        };
        let secs = |d: Duration| {
            let ms = d.as_millis();
            if ms % 1000 == 0 {
                format!("{}", ms / 1000)
            } else {
                format!("{}.{:03}", ms / 1000, ms % 1000)
            }
        };
        match self.then {
            None => write!(f, "{} {} {}", self.moves, mins(self.base), secs(self.inc)),
            Some((m2, b2)) => {
                let mv = |m: u32| {
                    if m == 0 {
                        "sd".to_string()
                    } else {
                        m.to_string()
                    }
                };
                write!(
                    f,
                    "{}/{}/{}/{}",
                    mv(self.moves),
                    mins(self.base),
                    mv(m2),
                    mins(b2)
                )?;
                if !self.inc.is_zero() {
                    write!(f, "/{}", secs(self.inc))?;
                }
                Ok(())
            }
        }
    }
}

/// Minutes (`5`, `0.5`) or `mm:ss`.
fn parse_minutes(w: &str) -> Result<Duration, String> {
    if let Some((m, s)) = w.split_once(':') {
        let m: u64 = m
            .parse()
            .map_err(|_| format!("'{w}' is not minutes or mm:ss"))?;
        let s: u64 = s
            .parse()
            .map_err(|_| format!("'{w}' is not minutes or mm:ss"))?;
        return Ok(Duration::from_secs(m * 60 + s));
    }
    let m: f64 = w
        .parse()
        .map_err(|_| format!("'{w}' is not minutes or mm:ss"))?;
    if !(0.0..=100_000.0).contains(&m) {
        return Err(format!("'{w}' minutes is out of range"));
    }
    Ok(Duration::from_millis((m * 60_000.0).round() as u64))
}

/// Seconds (`2`, `0.5`) or `mm:ss`.
pub fn parse_seconds(w: &str) -> Result<Duration, String> {
    if let Some((m, s)) = w.split_once(':') {
        let m: u64 = m
            .parse()
            .map_err(|_| format!("'{w}' is not seconds or mm:ss"))?;
        let s: f64 = s
            .parse()
            .map_err(|_| format!("'{w}' is not seconds or mm:ss"))?;
        if !(0.0..60.0).contains(&s) {
            return Err(format!("'{w}': seconds must be below 60"));
        }
        return Ok(Duration::from_millis(
            m * 60_000 + (s * 1000.0).round() as u64,
        ));
    }
    let s: f64 = w
        .parse()
        .map_err(|_| format!("'{w}' is not seconds or mm:ss"))?;
    if !(0.0..=10_000_000.0).contains(&s) {
        return Err(format!("'{w}' seconds is out of range"));
    }
    Ok(Duration::from_millis((s * 1000.0).round() as u64))
}

/// `64M`, `512K`, `1G`, or bytes when not a whole number of K.
pub fn fmt_size(b: u64) -> String {
    if b >= 1 << 30 && b % (1 << 30) == 0 {
        format!("{}G", b >> 30)
    } else if b >= MB && b % MB == 0 {
        format!("{}M", b >> 20)
    } else if b % 1024 == 0 && b > 0 {
        format!("{}K", b >> 10)
    } else {
        format!("{b}")
    }
}

/// Parses `nnn`, `nnnK`, `nnnM`, `nnnG` (also `nnnKB`, `nnnMB`); plain numbers are bytes.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_uppercase();
    let t = t.strip_suffix('B').unwrap_or(&t);
    let (digits, mult) = match t.chars().last()? {
        'K' => (&t[..t.len() - 1], 1u64 << 10),
        'M' => (&t[..t.len() - 1], 1 << 20),
        'G' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(mult)
}

fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "yes" => Some(true),
        "off" | "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// GUIs keep spin values in 32 bits.
fn spin(v: i64) -> i64 {
    v.clamp(i32::MIN as i64, i32::MAX as i64)
}

/// Makes `Move Overhead`, `move-overhead`, `move.overhead` and `MOVE_OVERHEAD` the same.
fn normalize(name: &str) -> String {
    name.trim()
        .chars()
        .map(|c| match c {
            ' ' | '-' | '.' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Finds an option by canonical name, alias or UCI name (any case; spaces, dashes,
/// dots and underscores alike).
pub fn lookup(name: &str) -> Option<&'static Spec> {
    let n = normalize(name);
    TABLE.iter().find(|s| {
        normalize(s.name) == n
            || s.aliases.iter().any(|a| normalize(a) == n)
            || s.uci_name.is_some_and(|u| normalize(u) == n)
    })
}

/// Parses and checks `text` as a value of `spec`.
pub fn parse_value(spec: &Spec, text: &str) -> Result<Value, OptionError> {
    let t = text.trim();
    let invalid = || OptionError::Invalid {
        name: spec.name.to_string(),
        value: t.to_string(),
        expected: spec.expected(),
    };
    let out_of_range = || OptionError::OutOfRange {
        name: spec.name.to_string(),
        value: t.to_string(),
        expected: spec.expected(),
    };
    Ok(match spec.kind {
        Kind::Bool => Value::Bool(parse_bool(t).ok_or_else(invalid)?),
        Kind::Int { min, max } => {
            let v: i64 = t.parse().map_err(|_| invalid())?;
            if !(min..=max).contains(&v) {
                return Err(out_of_range());
            }
            Value::Int(v)
        }
        Kind::Size { min, max } => {
            let v = parse_size(t).ok_or_else(invalid)?;
            if !(min..=max).contains(&v) {
                return Err(out_of_range());
            }
            Value::Size(v)
        }
        Kind::Time { max_ms } => {
            let d = parse_seconds(t).map_err(|_| invalid())?;
            if d.as_millis() as u64 > max_ms {
                return Err(out_of_range());
            }
            Value::Millis(d.as_millis() as u64)
        }
        Kind::Level => Value::Level(TimeControl::parse(t).map_err(|why| OptionError::Invalid {
            name: spec.name.to_string(),
            value: t.to_string(),
            expected: format!("{} ({why})", spec.expected()),
        })?),
        Kind::Str => Value::Str(t.to_string()),
        Kind::Enum(words) => {
            let w = words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(t))
                .ok_or_else(invalid)?;
            Value::Str(w.to_string())
        }
        Kind::Button => Value::Button,
    })
}

/// The layered option store.
#[derive(Clone, Debug)]
pub struct Options {
    /// Per option (index into `TABLE`), the value set by each source.
    layers: Vec<[Option<Value>; 5]>,
}

impl Default for Options {
    fn default() -> Self {
        Options::new()
    }
}

impl Options {
    /// Every option at its default.
    pub fn new() -> Options {
        let layers = TABLE
            .iter()
            .map(|spec| {
                let mut l: [Option<Value>; 5] = Default::default();
                l[Source::Default as usize] =
                    Some(parse_value(spec, spec.default).expect("defaults in TABLE are valid"));
                l
            })
            .collect();
        Options { layers }
    }

    fn index(name: &str) -> Result<usize, OptionError> {
        let spec = lookup(name).ok_or_else(|| OptionError::Unknown {
            name: name.trim().to_string(),
        })?;
        Ok(TABLE
            .iter()
            .position(|s| std::ptr::eq(s, spec))
            .expect("lookup returns a TABLE entry"))
    }

    /// Sets `name` from `source`. A value from a lower layer is stored but stays hidden
    /// while a higher layer has one. Buttons are accepted (and store nothing) only at
    /// run time; the caller performs the action.
    pub fn set_from(
        &mut self,
        source: Source,
        name: &str,
        value: &str,
    ) -> Result<&'static Spec, OptionError> {
        let i = Self::index(name)?;
        let spec = &TABLE[i];
        if spec.kind == Kind::Button {
            if source != Source::Runtime {
                return Err(OptionError::NotSettable {
                    name: spec.name.to_string(),
                    source_name: source.name(),
                });
            }
            return Ok(spec);
        }
        if source == Source::Default {
            return Err(OptionError::NotSettable {
                name: spec.name.to_string(),
                source_name: source.name(),
            });
        }
        let v = parse_value(spec, value)?;
        self.layers[i][source as usize] = Some(v);
        Ok(spec)
    }

    /// Shorthand for `set_from(Source::Runtime, ...)`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<&'static Spec, OptionError> {
        self.set_from(Source::Runtime, name, value)
    }

    /// Forgets what `source` set for `name` (a lower layer shows through again).
    pub fn unset(&mut self, source: Source, name: &str) -> Result<(), OptionError> {
        let i = Self::index(name)?;
        if source != Source::Default {
            self.layers[i][source as usize] = None;
        }
        Ok(())
    }

    /// The effective value and where it came from.
    pub fn value_with_source(&self, name: &str) -> Option<(&Value, Source)> {
        let i = Self::index(name).ok()?;
        Source::ALL
            .iter()
            .rev()
            .find_map(|&s| self.layers[i][s as usize].as_ref().map(|v| (v, s)))
    }

    pub fn value(&self, name: &str) -> Option<&Value> {
        self.value_with_source(name).map(|(v, _)| v)
    }

    pub fn source(&self, name: &str) -> Option<Source> {
        self.value_with_source(name).map(|(_, s)| s)
    }

    /// The effective value as text (`64M`, `on`, `0 5 3`).
    pub fn text(&self, name: &str) -> String {
        self.value(name).map(|v| v.to_string()).unwrap_or_default()
    }

    fn must(&self, name: &str) -> &Value {
        self.value(name)
            .unwrap_or_else(|| panic!("option '{name}' is not declared in options::TABLE"))
    }

    pub fn bool(&self, name: &str) -> bool {
        matches!(self.must(name), Value::Bool(true))
    }

    pub fn int(&self, name: &str) -> i64 {
        match self.must(name) {
            Value::Int(i) => *i,
            Value::Size(s) => *s as i64,
            Value::Millis(m) => *m as i64,
            Value::Bool(b) => *b as i64,
            _ => 0,
        }
    }

    /// A size option in bytes.
    pub fn size(&self, name: &str) -> usize {
        match self.must(name) {
            Value::Size(s) => *s as usize,
            v => panic!("option '{name}' is not a size: {v:?}"),
        }
    }

    /// A time option (`st`), or an int option taken as milliseconds.
    pub fn duration(&self, name: &str) -> Duration {
        match self.must(name) {
            Value::Millis(m) => Duration::from_millis(*m),
            Value::Int(i) => Duration::from_millis((*i).max(0) as u64),
            v => panic!("option '{name}' is not a time: {v:?}"),
        }
    }

    pub fn str(&self, name: &str) -> &str {
        match self.must(name) {
            Value::Str(s) => s,
            _ => "",
        }
    }

    pub fn level(&self) -> TimeControl {
        match self.must("level") {
            Value::Level(tc) => *tc,
            v => panic!("level is not a time control: {v:?}"),
        }
    }

    /// The environment layer, for every command: sets each option found among
    /// `vars` (`KIBITZER_HASH=256M`...) and returns the errors, each with the
    /// variable's name. A `KIBITZER_*` variable that is not an option is an error
    /// (`KIBITZER_HAHS`), except those of `NOT_OPTIONS` (secrets the settings read
    /// themselves, the configuration file's path, the test harness's own), which
    /// are left alone. Variables without the prefix are none of ours.
    pub fn load_env<I, K, V>(&mut self, vars: I) -> Vec<(String, OptionError)>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut errors = Vec::new();
        for (k, v) in vars {
            let k = k.as_ref();
            let Some(name) = k.strip_prefix(ENV_PREFIX) else {
                continue;
            };
            if name.is_empty() || NOT_OPTIONS.contains(&k) {
                continue;
            }
            if let Err(e) = self.set_from(Source::Environment, name, v.as_ref()) {
                errors.push((k.to_string(), e));
            }
        }
        errors
    }

    /// Sets `name=value` pairs (or `name value`) from one source, e.g. the command
    /// line's `--set` flags; returns the errors.
    pub fn load_pairs<'a>(
        &mut self,
        source: Source,
        pairs: impl IntoIterator<Item = &'a str>,
    ) -> Vec<OptionError> {
        let mut errors = Vec::new();
        for p in pairs {
            let (k, v) = p
                .split_once('=')
                .or_else(|| p.trim().split_once(' '))
                .unwrap_or((p, ""));
            if let Err(e) = self.set_from(source, k.trim(), v.trim()) {
                errors.push(e);
            }
        }
        errors
    }

    // ----- derived listings ---------------------------------------------------------

    /// UCI `option name ... type ...` lines, in table order.
    pub fn uci_lines(&self) -> Vec<String> {
        TABLE
            .iter()
            .filter(|s| s.shown_in(front::UCI))
            .map(|s| {
                let name = s.uci_name();
                let cur = self.value(s.name).expect("declared");
                match s.kind {
                    Kind::Bool => format!(
                        "option name {name} type check default {}",
                        cur == &Value::Bool(true)
                    ),
                    Kind::Int { min, max } => format!(
                        "option name {name} type spin default {cur} min {} max {}",
                        spin(min),
                        spin(max)
                    ),
                    Kind::Size { min, max } => format!(
                        "option name {name} type spin default {} min {} max {}",
                        self.size(s.name) >> 20,
                        min >> 20,
                        max >> 20
                    ),
                    Kind::Time { max_ms } => format!(
                        "option name {name} type spin default {} min 0 max {max_ms}",
                        self.duration(s.name).as_millis()
                    ),
                    Kind::Enum(words) => {
                        let vars: Vec<String> = words.iter().map(|w| format!("var {w}")).collect();
                        format!(
                            "option name {name} type combo default {cur} {}",
                            vars.join(" ")
                        )
                    }
                    Kind::Str | Kind::Level => {
                        let t = cur.to_string();
                        format!(
                            "option name {name} type string default {}",
                            if t.is_empty() { "<empty>".into() } else { t }
                        )
                    }
                    Kind::Button => format!("option name {name} type button"),
                }
            })
            .collect()
    }

    /// Sets an option the way UCI's `setoption` gives it (sizes in megabytes, times
    /// in milliseconds, `<empty>` for an empty string).
    pub fn set_uci(&mut self, name: &str, value: &str) -> Result<&'static Spec, OptionError> {
        let spec = lookup(name).ok_or_else(|| OptionError::Unknown {
            name: name.trim().to_string(),
        })?;
        let v = value.trim();
        let text = match spec.kind {
            Kind::Size { .. } if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) => {
                format!("{v}M")
            }
            Kind::Time { .. } => match v.parse::<u64>() {
                Ok(ms) => format!("{}.{:03}", ms / 1000, ms % 1000),
                Err(_) => v.to_string(),
            },
            Kind::Str if v == "<empty>" => String::new(),
            _ => v.to_string(),
        };
        self.set_from(Source::Runtime, spec.name, &text)
    }

    /// xboard `feature option="..."` values (without the `feature option=` wrapper).
    pub fn xboard_options(&self) -> Vec<String> {
        TABLE
            .iter()
            .filter(|s| s.shown_in(front::XBOARD))
            .map(|s| {
                let name = s.name;
                let cur = self.value(s.name).expect("declared");
                match s.kind {
                    Kind::Bool => format!("{name} -check {}", (cur == &Value::Bool(true)) as u8),
                    Kind::Int { min, max } => {
                        format!("{name} -spin {cur} {} {}", spin(min), spin(max))
                    }
                    Kind::Size { min, max } => format!(
                        "{name} -spin {} {} {}",
                        self.size(s.name) >> 20,
                        min >> 20,
                        max >> 20
                    ),
                    Kind::Time { max_ms } => {
                        format!(
                            "{name} -spin {} 0 {max_ms}",
                            self.duration(s.name).as_millis()
                        )
                    }
                    Kind::Enum(words) => {
                        let vals: Vec<String> = words
                            .iter()
                            .map(|w| {
                                if cur.to_string() == *w {
                                    format!("*{w}")
                                } else {
                                    w.to_string()
                                }
                            })
                            .collect();
                        format!("{name} -combo {}", vals.join(" /// "))
                    }
                    Kind::Str | Kind::Level => format!("{name} -string {cur}"),
                    Kind::Button => format!("{name} -button"),
                }
            })
            .collect()
    }

    /// Sets an option the way xboard's `option NAME=VALUE` gives it (sizes in
    /// megabytes, checks as 0/1).
    pub fn set_xboard(&mut self, name: &str, value: &str) -> Result<&'static Spec, OptionError> {
        // xboard shows the same units as UCI.
        self.set_uci(name, value)
    }

    /// The console's `help` listing of every option: name (aliases), type, current
    /// value, where it came from, help.
    pub fn help_lines(&self) -> Vec<String> {
        TABLE
            .iter()
            .filter(|s| s.shown_in(front::CONSOLE))
            .map(|s| self.describe(s))
            .collect()
    }

    /// One option in a line.
    pub fn describe(&self, s: &Spec) -> String {
        let names = if s.aliases.is_empty() {
            s.name.to_string()
        } else {
            format!("{} ({})", s.name, s.aliases.join(", "))
        };
        let cur = match self.value_with_source(s.name) {
            Some((Value::Button, _)) => String::new(),
            Some((v, src)) => format!(" = {v} [{}]", src.name()),
            None => String::new(),
        };
        format!(
            "{names:<24} {:<6}{cur}  {}; {}",
            s.type_word(),
            s.help,
            s.expected()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_and_names_are_unique() {
        let o = Options::new();
        for s in TABLE {
            // Every spelling finds this option and no other.
            for n in std::iter::once(s.name)
                .chain(s.aliases.iter().copied())
                .chain(s.uci_name)
            {
                assert!(
                    std::ptr::eq(lookup(n).unwrap(), s),
                    "{n} finds another option"
                );
            }
            assert!(o.value(s.name).is_some());
        }
    }

    #[test]
    fn layers_never_let_a_lower_source_win() {
        let mut o = Options::new();
        o.set_from(Source::CommandLine, "hash", "128M").unwrap();
        o.set_from(Source::ConfigFile, "hash", "16M").unwrap();
        assert_eq!(o.size("hash"), 128 << 20);
        assert_eq!(o.source("hash"), Some(Source::CommandLine));
        o.set("hash", "32M").unwrap();
        assert_eq!(o.size("hash"), 32 << 20);
        o.unset(Source::Runtime, "hash").unwrap();
        o.unset(Source::CommandLine, "hash").unwrap();
        assert_eq!(o.size("hash"), 16 << 20);
        assert_eq!(o.source("hash"), Some(Source::ConfigFile));
    }

    #[test]
    fn errors_name_option_value_and_range() {
        let mut o = Options::new();
        let e = o.set("threads", "1000").unwrap_err().to_string();
        assert!(
            e.contains("threads") && e.contains("1000") && e.contains("1..=512"),
            "{e}"
        );
        let e = o.set("hash", "lots").unwrap_err().to_string();
        assert!(
            e.contains("hash") && e.contains("lots") && e.contains("64M"),
            "{e}"
        );
        let e = o.set("nosuch", "1").unwrap_err().to_string();
        assert!(e.contains("nosuch"), "{e}");
        assert!(o.set_from(Source::ConfigFile, "clear_hash", "").is_err());
    }

    #[test]
    fn aliases_and_spellings() {
        let mut o = Options::new();
        o.set("mt", "3").unwrap();
        assert_eq!(o.int("threads"), 3);
        o.set("Move Overhead", "100").unwrap();
        assert_eq!(o.int("move_overhead"), 100);
        o.set("evaluation_kscale", "120").unwrap();
        assert_eq!(o.int("evaluation.kscale"), 120);
        o.set_uci("Hash", "16").unwrap();
        assert_eq!(o.size("hash"), 16 << 20);
    }

    #[test]
    fn time_controls() {
        let tc = TimeControl::parse("40 5 0").unwrap();
        assert_eq!(
            (tc.moves, tc.base, tc.inc),
            (40, Duration::from_secs(300), Duration::ZERO)
        );
        let tc = TimeControl::parse("0 0:30 0.5").unwrap();
        assert_eq!(
            (tc.moves, tc.base, tc.inc),
            (0, Duration::from_secs(30), Duration::from_millis(500))
        );
        let tc = TimeControl::parse("60/30/sd/30").unwrap();
        assert_eq!(tc.then, Some((0, Duration::from_secs(1800))));
        assert_eq!(tc.to_string(), "60/30/sd/30");
        let tc = TimeControl::parse("sd/2/12").unwrap();
        assert_eq!((tc.moves, tc.inc), (0, Duration::from_secs(12)));
        assert!(TimeControl::parse("40").is_err());
        assert!(TimeControl::parse("x 5 0").is_err());
        assert_eq!(TimeControl::parse("40 5 0").unwrap().to_string(), "40 5 0");
    }

    #[test]
    fn env_and_pairs() {
        let mut o = Options::new();
        let errs = o.load_env([
            ("KIBITZER_HASH", "8M"),
            ("PATH", "/bin"),
            ("KIBITZER_EVALUATION_KSCALE", "90"),
        ]);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(o.size("hash"), 8 << 20);
        assert_eq!(o.int("evaluation.kscale"), 90);
        let errs = o.load_pairs(Source::CommandLine, ["threads=2", "bogus=1"]);
        assert_eq!(errs.len(), 1);
        assert_eq!(o.int("threads"), 2);
    }
}
