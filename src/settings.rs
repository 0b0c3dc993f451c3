//! Layered configuration for the daemon: the TOML file (read with the `config`
//! crate), then `KIBITZER_...` environment variables, then command-line `--set`
//! pairs, all into the one option table (`options`), whose declarations define the
//! keys, types, ranges and defaults. Errors name the key, where it came from, and
//! the fix. The password is not an option: it comes from the file named by
//! `ics.password_file` or from the environment variable `KIBITZER_PASSWORD`, and is
//! never printed.

use crate::ics::Secret;
use crate::options::{lookup, OptionError, Options, Source};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The environment variable that may hold the password.
pub const PASSWORD_ENV: &str = "KIBITZER_PASSWORD";

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
}

/// The loaded configuration.
#[derive(Clone, Debug)]
pub struct Settings {
    pub options: Options,
    /// The configuration file read, if any.
    pub file: Option<PathBuf>,
    pub password: Option<Secret>,
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
        ValueKind::Boolean(b) => {
            out.push((prefix.to_string(), if b { "on" } else { "off" }.into()))
        }
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
    let cfg = config::Config::builder()
        .add_source(config::File::from(path).format(config::FileFormat::Toml))
        .build()
        .map_err(|e| SettingsError::File {
            file: shown.clone(),
            problem: e.to_string(),
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
/// password is read from `ics.password_file` or `KIBITZER_PASSWORD`.
pub fn load<I, K, V>(file: Option<&Path>, env: I, cli: &[String]) -> Result<Settings, SettingsError>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut o = Options::new();
    if let Some(path) = file {
        let origin = path.display().to_string();
        for (k, v) in read_file(path)? {
            if lookup(&k).is_none() && (k == "password" || k == "ics.password") {
                return Err(SettingsError::Key {
                    origin,
                    key: k,
                    problem: "passwords are not kept in the configuration file".into(),
                    fix: "put it in a file named by ics.password_file or in KIBITZER_PASSWORD"
                        .into(),
                });
            }
            o.set_from(Source::ConfigFile, &k, &v)
                .map_err(|e| key_error(&origin, &k, &e))?;
        }
    }
    let mut password_env = None;
    for (k, v) in env {
        let (k, v) = (k.as_ref(), v.as_ref());
        if k == PASSWORD_ENV {
            password_env = Some(Secret::new(v));
            continue;
        }
        let Some(name) = k.strip_prefix("KIBITZER_") else {
            continue;
        };
        if name.is_empty() || name == "CONFIG" {
            continue;
        }
        o.set_from(Source::Environment, name, v)
            .map_err(|e| key_error(&format!("environment variable {k}"), name, &e))?;
    }
    for pair in cli {
        let (k, v) = pair.split_once('=').unwrap_or((pair.as_str(), ""));
        let k = k.trim();
        if k.eq_ignore_ascii_case("password") || k.eq_ignore_ascii_case("ics.password") {
            return Err(SettingsError::Key {
                origin: "command line".into(),
                key: k.to_string(),
                problem: "a password on the command line would be visible to every user".into(),
                fix: "use KIBITZER_PASSWORD or ics.password_file".into(),
            });
        }
        o.set_from(Source::CommandLine, k, v.trim())
            .map_err(|e| key_error("command line --set", k, &e))?;
    }
    let password = match o.str("ics.password_file") {
        "" => password_env,
        f => {
            let path = resolve(file, f);
            let text = std::fs::read_to_string(&path).map_err(|e| SettingsError::Key {
                origin: o
                    .source("ics.password_file")
                    .map(|s| s.name())
                    .unwrap_or("")
                    .to_string(),
                key: "ics.password_file".into(),
                problem: format!("cannot read {}: {e}", path.display()),
                fix: "point it at a readable file whose first line is the password".into(),
            })?;
            Some(Secret::new(text.lines().next().unwrap_or("").trim_end()))
        }
    };
    validate(&o, file)?;
    Ok(Settings {
        options: o,
        file: file.map(Path::to_path_buf),
        password,
    })
}

/// A path from the configuration: relative paths are taken from the working
/// directory (the systemd unit sets it).
pub fn resolve(_config: Option<&Path>, p: &str) -> PathBuf {
    PathBuf::from(p)
}

fn validate(o: &Options, file: Option<&Path>) -> Result<(), SettingsError> {
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
            return Err(SettingsError::Key {
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
            return Err(SettingsError::Key {
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
        crate::game::ClassRules::parse(o.str(&key)).map_err(|p| bad(&key, p, &rules_fix))?;
    }
    crate::bot::owner::Owners::parse(o.str("bot.owners")).map_err(|p| {
        bad(
            "bot.owners",
            p,
            "list registered handles with a level, for example \"alice:admin, bob:operator, carol:viewer\"",
        )
    })?;
    crate::bot::observe::Target::parse_list(o.str("bot.observe")).map_err(|p| {
        bad(
            "bot.observe",
            p,
            "list game numbers, player:<handle> or relay:<handle>, for example \"12, player:hikaru\"",
        )
    })?;
    if o.str("ics.server").trim().is_empty() {
        return Err(SettingsError::Key {
            origin: origin("ics.server"),
            key: "ics.server".into(),
            problem: "empty".into(),
            fix: "name the server, for example freechess.org".into(),
        });
    }
    Ok(())
}

/// The configured seeks.
pub fn seeks(o: &Options) -> Vec<String> {
    o.str("bot.seeks")
        .split([',', ';'])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}
