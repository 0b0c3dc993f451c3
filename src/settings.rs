//! Layered configuration for the daemon: the TOML file (read with the `config`
//! crate), then `KIBITZER_...` environment variables, then command-line `--set`
//! pairs, all into the one option table (`options`), whose declarations define the
//! keys, types, ranges and defaults. Errors name the key, where it came from, and
//! the fix. The password is not an option: it comes from the file named by
//! `ics.password_file` or from the environment variable `KIBITZER_PASSWORD`, and is
//! never printed.

use crate::net::Secret;
use crate::options::{lookup, OptionError, Options, Source};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The environment variable that may hold the password.
pub const PASSWORD_ENV: &str = "KIBITZER_PASSWORD";

/// The environment variable that may hold the status page's token.
pub const WEB_TOKEN_ENV: &str = "KIBITZER_WEB_TOKEN";

/// A configuration problem, naming the key, where it was set and how to fix it.
#[derive(Debug, Error)]
pub enum SettingsError {
    #[error("{origin}: key `{key}`: {problem}; fix: {fix}")]
    Key {
        origin: String,
        key: String,
        problem: String,
        fix: String,
    },
    #[error("{file}: {problem}")]
    File { file: String, problem: String },
    /// Several problems, each on its own line (`daemon --check` reports them all).
    #[error("{} problems:\n  {}", .0.len(), .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  "))]
    Many(Vec<SettingsError>),
}

impl SettingsError {
    /// One error as itself, several as `Many`; `None` for none.
    fn collect(mut errors: Vec<SettingsError>) -> Option<SettingsError> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(SettingsError::Many(errors)),
        }
    }
}

/// The loaded configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    pub options: Options,
    /// The configuration file read, if any.
    pub file: Option<PathBuf>,
    pub password: Option<Secret>,
    /// The status page's access token (`web.token_file` or `KIBITZER_WEB_TOKEN`).
    pub web_token: Option<Secret>,
    /// The Lichess API token (`lichess.token_file` or `KIBITZER_LICHESS_TOKEN`).
    pub lichess_token: Option<Secret>,
}

/// A secret: the first line of the file named by the option `key` when it names
/// one (a file that cannot be read is an error that names the key), else the
/// environment's value. A token is trimmed and must not be empty; a password
/// keeps its leading spaces.
fn read_secret(
    o: &Options,
    file: Option<&Path>,
    key: &str,
    what: &str,
    env: Option<Secret>,
    errors: &mut Vec<SettingsError>,
) -> Option<Secret> {
    let f = o.str(key);
    if f.is_empty() {
        return env;
    }
    let path = resolve(file, f);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let line = text.lines().next().unwrap_or("");
            if what == "password" {
                Some(Secret::new(line.trim_end()))
            } else {
                Some(Secret::new(line.trim())).filter(|t| !t.is_empty())
            }
        }
        Err(e) => {
            errors.push(SettingsError::Key {
                origin: o.source(key).map(|s| s.name()).unwrap_or("").to_string(),
                key: key.into(),
                problem: format!("cannot read {}: {e}", path.display()),
                fix: format!("point it at a readable file whose first line is the {what}"),
            });
            None
        }
    }
}

fn key_error(origin: &str, key: &str, e: &OptionError) -> SettingsError {
    let (problem, fix) = match e {
        OptionError::Unknown { .. } => (
            "no such setting".to_string(),
            "remove it or correct the spelling (`kibitzer daemon --keys` lists every key)"
                .to_string(),
        ),
        OptionError::Invalid {
            value, expected, ..
        }
        | OptionError::OutOfRange {
            value, expected, ..
        } => (
            format!("'{value}' is not accepted"),
            format!("use {expected}"),
        ),
        OptionError::NotSettable { .. } => (
            "this is an action, not a setting".to_string(),
            "remove it".to_string(),
        ),
    };
    SettingsError::Key {
        origin: origin.to_string(),
        key: lookup(key).map_or(key, |s| s.name).to_string(),
        problem,
        fix,
    }
}

/// Flattens a configuration tree into `table.key = text` pairs.
fn flatten(
    prefix: &str,
    value: config::Value,
    out: &mut Vec<(String, String)>,
) -> Result<(), String> {
    use config::ValueKind;
    match value.kind {
        ValueKind::Table(t) => {
            let mut entries: Vec<_> = t.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, v) in entries {
                let key = if prefix.is_empty() {
                    k
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out)?;
            }
        }
        ValueKind::Array(items) => {
            let mut texts = Vec::new();
            for v in items {
                match v.kind {
                    ValueKind::Table(_) | ValueKind::Array(_) => {
                        return Err(format!("key `{prefix}`: a list may hold only plain values"))
                    }
                    _ => texts.push(v.into_string().unwrap_or_default()),
                }
            }
            out.push((prefix.to_string(), texts.join(", ")));
        }
        ValueKind::Nil => out.push((prefix.to_string(), String::new())),
        // As written (`true`), so an error about a key that is not a switch quotes the
        // file; switches read `true`/`false` as on/off.
        ValueKind::Boolean(b) => out.push((prefix.to_string(), b.to_string())),
        _ => out.push((prefix.to_string(), value.into_string().unwrap_or_default())),
    }
    Ok(())
}

/// Reads a TOML file into `key = value` pairs (dots join tables).
pub fn read_file(path: &Path) -> Result<Vec<(String, String)>, SettingsError> {
    let shown = path.display().to_string();
    if !path.exists() {
        return Err(SettingsError::File {
            file: shown,
            problem: "no such file (give another with --config, or copy config/kibitzer.toml)"
                .into(),
        });
    }
    if path.is_dir() {
        return Err(SettingsError::File {
            file: shown,
            problem: "is a directory, not a configuration file (TOML)".into(),
        });
    }
    let bytes = std::fs::read(path).map_err(|e| SettingsError::File {
        file: shown.clone(),
        problem: format!("cannot read it: {e}"),
    })?;
    // A binary file given by mistake: say so, never print its bytes.
    if let Err(e) = crate::text::check(&bytes) {
        return Err(SettingsError::File {
            file: shown,
            problem: format!("{e}; a TOML configuration is expected"),
        });
    }
    let text = std::str::from_utf8(&bytes).map_err(|e| SettingsError::File {
        file: shown.clone(),
        problem: format!(
            "not UTF-8 at byte {} (a TOML configuration is UTF-8 text)",
            e.valid_up_to()
        ),
    })?;
    let cfg = config::Config::builder()
        .add_source(config::File::from_str(text, config::FileFormat::Toml))
        .build()
        .map_err(|e| SettingsError::File {
            file: shown.clone(),
            problem: e
                .to_string()
                .lines()
                .take(12)
                .map(|l| crate::text::printable(l, 200))
                .collect::<Vec<_>>()
                .join("\n"),
        })?;
    let root: config::Value = cfg.cache.clone();
    let mut pairs = Vec::new();
    flatten("", root, &mut pairs).map_err(|problem| SettingsError::File {
        file: shown,
        problem,
    })?;
    Ok(pairs)
}

/// Loads the layers: `file` (if given), the environment `env` (`KIBITZER_*`
/// variables other than the password), then `cli` pairs (`name=value`). The
/// password is read from `ics.password_file` or `KIBITZER_PASSWORD`. Every problem
/// found is reported, not only the first.
pub fn load<I, K, V>(file: Option<&Path>, env: I, cli: &[String]) -> Result<Settings, SettingsError>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    load_with_flags(file, env, cli, &[])
}

/// A check a higher layer makes of one of its own keys (the daemon's `bot.owners`,
/// `bot.observe` and `lichess.matchmaking`, read by the bot): the loader reports its
/// problem like any other, naming the key, where it was set and the fix, without
/// importing upwards. The check sees every option (a key may depend on others).
#[derive(Clone, Copy)]
pub struct KeyCheck {
    pub key: &'static str,
    pub check: fn(&Options) -> Result<(), String>,
    pub fix: &'static str,
}

/// As `load`, with the daemon's own flags last: (`--port`, `ics.port=0`) pairs, so an
/// error names the flag that was given.
pub fn load_with_flags<I, K, V>(
    file: Option<&Path>,
    env: I,
    cli: &[String],
    flags: &[(&str, String)],
) -> Result<Settings, SettingsError>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    load_checked(file, env, cli, flags, &[])
}

/// As `load_with_flags`, with the checks of the layers above (`bot::KEY_CHECKS`).
pub fn load_checked<I, K, V>(
    file: Option<&Path>,
    env: I,
    cli: &[String],
    flags: &[(&str, String)],
    checks: &[KeyCheck],
) -> Result<Settings, SettingsError>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut o = Options::new();
    let mut errors = Vec::new();
    if let Some(path) = file {
        let origin = path.display().to_string();
        for (k, v) in read_file(path)? {
            if lookup(&k).is_none() && (k == "web.token" || k == "token") {
                errors.push(SettingsError::Key {
                    origin: origin.clone(),
                    key: k,
                    problem: "secrets are not kept in the configuration file".into(),
                    fix: "put the token in a file named by web.token_file or in KIBITZER_WEB_TOKEN"
                        .into(),
                });
                continue;
            }
            if lookup(&k).is_none() && k == "lichess.token" {
                errors.push(SettingsError::Key {
                    origin: origin.clone(),
                    key: k,
                    problem: "secrets are not kept in the configuration file".into(),
                    fix: "put the token in a file named by lichess.token_file or in KIBITZER_LICHESS_TOKEN"
                        .into(),
                });
                continue;
            }
            if lookup(&k).is_none() && (k == "password" || k == "ics.password") {
                errors.push(SettingsError::Key {
                    origin: origin.clone(),
                    key: k,
                    problem: "passwords are not kept in the configuration file".into(),
                    fix: "put it in a file named by ics.password_file or in KIBITZER_PASSWORD"
                        .into(),
                });
                continue;
            }
            if let Err(e) = o.set_from(Source::ConfigFile, &k, &v) {
                errors.push(key_error(&origin, &k, &e));
            }
        }
    }
    let env: Vec<(String, String)> = env
        .into_iter()
        .map(|(k, v)| (k.as_ref().to_string(), v.as_ref().to_string()))
        .collect();
    let secret = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let password_env = secret(PASSWORD_ENV).map(Secret::new);
    let web_token_env = secret(WEB_TOKEN_ENV)
        .map(|v| Secret::new(v.trim()))
        .filter(|t| !t.is_empty());
    let lichess_token_env = secret(crate::lichess::TOKEN_ENV)
        .map(|v| Secret::new(v.trim()))
        .filter(|t| !t.is_empty());
    for (var, e) in o.load_env(env.iter().map(|(k, v)| (k.as_str(), v.as_str()))) {
        let key = var.strip_prefix(crate::options::ENV_PREFIX).unwrap_or(&var);
        errors.push(key_error(&format!("environment variable {var}"), key, &e));
    }
    let pairs = cli
        .iter()
        .map(|p| ("command line --set".to_string(), p.as_str()))
        .chain(
            flags
                .iter()
                .map(|(flag, p)| (format!("command line {flag}"), p.as_str())),
        );
    for (origin, pair) in pairs {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let k = k.trim();
        if k.eq_ignore_ascii_case("web.token") || k.eq_ignore_ascii_case("lichess.token") {
            errors.push(SettingsError::Key {
                origin: "command line".into(),
                key: k.to_string(),
                problem: "a token on the command line would be visible to every user".into(),
                fix: "use KIBITZER_WEB_TOKEN or web.token_file (KIBITZER_LICHESS_TOKEN or lichess.token_file for Lichess)".into(),
            });
            continue;
        }
        if k.eq_ignore_ascii_case("password") || k.eq_ignore_ascii_case("ics.password") {
            errors.push(SettingsError::Key {
                origin: "command line".into(),
                key: k.to_string(),
                problem: "a password on the command line would be visible to every user".into(),
                fix: "use KIBITZER_PASSWORD or ics.password_file".into(),
            });
            continue;
        }
        if let Err(e) = o.set_from(Source::CommandLine, k, v.trim()) {
            errors.push(key_error(&origin, k, &e));
        }
    }
    let password = read_secret(
        &o,
        file,
        "ics.password_file",
        "password",
        password_env,
        &mut errors,
    );
    let web_token = read_secret(
        &o,
        file,
        "web.token_file",
        "token",
        web_token_env,
        &mut errors,
    );
    let lichess_token = read_secret(
        &o,
        file,
        "lichess.token_file",
        "token",
        lichess_token_env,
        &mut errors,
    );
    if o.bool("lichess.enabled") {
        let origin = match o.source("lichess.enabled") {
            Some(Source::ConfigFile) => file.map(|f| f.display().to_string()).unwrap_or_default(),
            Some(s) => s.name().to_string(),
            None => String::new(),
        };
        if lichess_token.is_none() {
            errors.push(SettingsError::Key {
                origin: origin.clone(),
                key: "lichess.enabled".into(),
                problem: "no Lichess API token".into(),
                fix: "put the token (scope bot:play) in a file named by lichess.token_file or in KIBITZER_LICHESS_TOKEN".into(),
            });
        }
        if let Err(e) = crate::lichess::BaseUrl::parse(o.str("lichess.url")) {
            errors.push(SettingsError::Key {
                origin: origin.clone(),
                key: "lichess.url".into(),
                problem: e.to_string(),
                fix: "write https://lichess.org (or http://host:port for a local test server)"
                    .into(),
            });
        }
    }
    errors.extend(validate(&o, file, checks));
    if let Err(problem) = web_listen(&o, web_token.is_some()) {
        let origin = match o.source("web.listen") {
            Some(Source::ConfigFile) => file.map(|f| f.display().to_string()).unwrap_or_default(),
            Some(Source::Environment) => "environment variable KIBITZER_WEB_LISTEN".to_string(),
            Some(Source::CommandLine) => "command line --set".to_string(),
            Some(s) => s.name().to_string(),
            None => String::new(),
        };
        let fix = if problem.contains("token") {
            "set a token with web.token_file or KIBITZER_WEB_TOKEN, or listen on loopback (127.0.0.1:8088)"
        } else {
            "write an address and port, for example 127.0.0.1:8088 or [::1]:8088; empty turns the page off"
        };
        errors.push(SettingsError::Key {
            origin,
            key: "web.listen".into(),
            problem,
            fix: fix.into(),
        });
    }
    if let Some(e) = SettingsError::collect(errors) {
        return Err(e);
    }
    Ok(Settings {
        options: o,
        file: file.map(Path::to_path_buf),
        password,
        web_token,
        lichess_token,
    })
}

/// The status page's address (`web.listen`): `None` when off. An address other
/// than loopback without a token is refused: the page would be open to anyone.
pub fn web_listen(o: &Options, has_token: bool) -> Result<Option<std::net::SocketAddr>, String> {
    let text = o.str("web.listen").trim();
    if text.is_empty() {
        return Ok(None);
    }
    let text = match text.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => text.to_string(),
    };
    let addr: std::net::SocketAddr = text
        .parse()
        .map_err(|_| format!("'{text}' is not an address with a port"))?;
    if !addr.ip().is_loopback() && !has_token {
        return Err(format!(
            "'{addr}' is not a loopback address and no token is set: the page would be open to anyone who can reach it"
        ));
    }
    Ok(Some(addr))
}

/// What `daemon --check` adds to `load`: problems the server would find at login (a
/// handle it refuses, a registered handle without a password).
pub fn check_login(s: &Settings) -> Result<(), SettingsError> {
    let o = &s.options;
    if !o.bool("ics.enabled") {
        return Ok(());
    }
    let origin = match o.source("ics.handle") {
        Some(Source::ConfigFile) => s
            .file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_default(),
        Some(src) => src.name().to_string(),
        None => "default".to_string(),
    };
    let handle = o.str("ics.handle").trim();
    let mut errors = Vec::new();
    let valid = (3..=17).contains(&handle.len())
        && handle
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !valid {
        errors.push(SettingsError::Key {
            origin: origin.clone(),
            key: "ics.handle".into(),
            problem: format!("'{handle}' is not a handle a server accepts"),
            fix: "use 3 to 17 letters or digits (`guest` for a guest login)".into(),
        });
    } else if !crate::ics::parse::is_guest(handle) && s.password.is_none() {
        errors.push(SettingsError::Key {
            origin,
            key: "ics.handle".into(),
            problem: format!("'{handle}' is a registered handle but no password is given"),
            fix: "set KIBITZER_PASSWORD or ics.password_file, or log in as `guest`".into(),
        });
    }
    SettingsError::collect(errors).map_or(Ok(()), Err)
}

/// A path from the configuration: relative paths are taken from the working
/// directory (the systemd unit sets it).
pub fn resolve(_config: Option<&Path>, p: &str) -> PathBuf {
    PathBuf::from(p)
}

fn validate(o: &Options, file: Option<&Path>, checks: &[KeyCheck]) -> Vec<SettingsError> {
    let mut errors = Vec::new();
    let origin = |key: &str| -> String {
        match o.source(key) {
            Some(Source::ConfigFile) => file.map(|f| f.display().to_string()).unwrap_or_default(),
            Some(s) => s.name().to_string(),
            None => String::new(),
        }
    };
    let pairs = [
        ("bot.min_time", "bot.max_time"),
        ("bot.min_inc", "bot.max_inc"),
        ("bot.min_rating", "bot.max_rating"),
        ("bot.min_overhead", "bot.max_overhead"),
    ];
    for (lo, hi) in pairs {
        if o.int(lo) > o.int(hi) {
            errors.push(SettingsError::Key {
                origin: origin(lo),
                key: lo.to_string(),
                problem: format!("{} is above {hi} = {}", o.int(lo), o.int(hi)),
                fix: format!("make {lo} at most {hi}"),
            });
        }
    }
    for seek in seeks(o) {
        let w: Vec<&str> = seek.split_whitespace().collect();
        let ok = w.len() >= 2 && w[0].parse::<u32>().is_ok() && w[1].parse::<u32>().is_ok();
        if !ok {
            errors.push(SettingsError::Key {
                origin: origin("bot.seeks"),
                key: "bot.seeks".into(),
                problem: format!("'{seek}' is not a seek"),
                fix: "write each seek as <minutes> <increment> [r|u] [m], for example \"3 0 u m\""
                    .into(),
            });
        }
    }
    let bad = |key: &str, problem: String, fix: &str| SettingsError::Key {
        origin: origin(key),
        key: key.to_string(),
        problem,
        fix: fix.to_string(),
    };
    let rules_fix = format!("write {}", crate::game::ClassRules::SYNTAX);
    let rules_keys = crate::game::OpponentClass::ALL
        .iter()
        .map(|c| c.option())
        .chain(std::iter::once("policy.autokibitz".to_string()));
    for key in rules_keys {
        if let Err(p) = crate::game::ClassRules::parse(o.str(&key)) {
            errors.push(bad(&key, p, &rules_fix));
        }
    }
    for c in checks {
        if let Err(p) = (c.check)(o) {
            errors.push(bad(c.key, p, c.fix));
        }
    }
    if o.bool("ics.enabled") && o.str("ics.server").trim().is_empty() {
        errors.push(SettingsError::Key {
            origin: origin("ics.server"),
            key: "ics.server".into(),
            problem: "empty".into(),
            fix: "name the server, for example freechess.org".into(),
        });
    }
    errors
}

/// The configured seeks.
pub fn seeks(o: &Options) -> Vec<String> {
    o.str("bot.seeks")
        .split([',', ';'])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
