//! The opponent lists: `GM`, `IM`, `C` (computers), `AK` (auto-kibitz) and `S`
//! (special scoring), one lower-case handle per line in files of the `bot.lists`
//! directory, `#` starting a comment. `list GM +name -name` edits them at run time (the
//! console and owners' tells) and saves the file atomically (a temporary file, fsync,
//! rename), keeping its comments, so a crash never leaves a half-written list.
//!
//! `classify` turns a handle into the policy's `OpponentClass`; computers are also
//! recognised from the server (`(C)` titles), which the caller passes in.

use crate::game::OpponentClass;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The list names, as typed in `list <NAME>` and as file names.
pub const NAMES: [&str; 5] = ["GM", "IM", "C", "AK", "S"];

/// The lists, loaded from a directory.
#[derive(Clone, Debug, Default)]
pub struct Lists {
    pub dir: PathBuf,
    /// Handles per list, in the order of `NAMES`.
    sets: [BTreeSet<String>; 5],
}

fn index(name: &str) -> Option<usize> {
    NAMES.iter().position(|n| n.eq_ignore_ascii_case(name))
}

fn handle_of(line: &str) -> Option<String> {
    let t = line.split('#').next().unwrap_or("").trim();
    (!t.is_empty()).then(|| t.to_ascii_lowercase())
}

/// A handle as servers allow it: letters, digits, `_` and `-`, at most 20 characters.
pub fn valid_handle(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 20
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

impl Lists {
    /// Loads every list of `dir` (a missing file is an empty list).
    pub fn load(dir: &Path) -> Lists {
        let mut l = Lists {
            dir: dir.to_path_buf(),
            ..Default::default()
        };
        for (i, name) in NAMES.iter().enumerate() {
            if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
                l.sets[i] = text.lines().filter_map(handle_of).collect();
            }
        }
        l
    }

    pub fn contains(&self, list: &str, handle: &str) -> bool {
        index(list).is_some_and(|i| self.sets[i].contains(&handle.to_ascii_lowercase()))
    }

    pub fn names(&self, list: &str) -> Vec<String> {
        index(list).map_or(Vec::new(), |i| self.sets[i].iter().cloned().collect())
    }

    /// The policy class of `handle`; `computer`: the server showed a `(C)` title.
    /// Special scoring comes first, then the titles, then computers.
    pub fn classify(&self, handle: &str, computer: bool) -> OpponentClass {
        if self.contains("S", handle) {
            OpponentClass::Special
        } else if self.contains("GM", handle) {
            OpponentClass::Gm
        } else if self.contains("IM", handle) {
            OpponentClass::Im
        } else if computer || self.contains("C", handle) {
            OpponentClass::Computer
        } else {
            OpponentClass::Normal
        }
    }

    /// True when talk is on for games against `handle` (the AK list).
    pub fn auto_kibitz(&self, handle: &str) -> bool {
        self.contains("AK", handle)
    }

    /// `list <NAME> [+name|-name ...]`: applies the changes, saves the file when
    /// something changed, and returns the one-line report (`list GM: a b`). The
    /// report and the errors name the problem without repeating what was typed
    /// (what an owner tells is never echoed back to the server) and show no path.
    pub fn command(&mut self, args: &str) -> Result<String, String> {
        let mut words = args.split_whitespace();
        let list = words.next().unwrap_or("");
        let Some(i) = index(list) else {
            return Err("that is not a list: the lists are GM, IM, C, AK and S".into());
        };
        let mut changes = Vec::new();
        for (n, w) in words.enumerate() {
            let (add, name) = match w.split_at_checked(1) {
                Some(("+", n)) => (true, n),
                Some(("-", n)) => (false, n),
                _ => return Err(format!("change {} is not +name or -name", n + 1)),
            };
            if !valid_handle(name) {
                return Err(format!(
                    "change {} is not a handle (letters, digits, _ and -, at most 20)",
                    n + 1
                ));
            }
            changes.push((add, name.to_ascii_lowercase()));
        }
        let mut changed = false;
        for (add, name) in &changes {
            changed |= if *add {
                self.sets[i].insert(name.clone())
            } else {
                self.sets[i].remove(name)
            };
        }
        if changed {
            self.save(i).map_err(|e| {
                tracing::error!("cannot save {}: {e}", self.dir.join(NAMES[i]).display());
                format!(
                    "the {} list could not be saved (the log says why)",
                    NAMES[i]
                )
            })?;
        }
        let names: Vec<&str> = self.sets[i].iter().map(String::as_str).collect();
        Ok(format!(
            "list {}: {}",
            NAMES[i],
            if names.is_empty() {
                "empty".to_string()
            } else {
                names.join(" ")
            }
        ))
    }

    /// The file of the list named `list` (`GM`...), for the local console.
    pub fn path(&self, list: &str) -> Option<std::path::PathBuf> {
        index(list).map(|i| self.dir.join(NAMES[i]))
    }

    /// Writes list `i`: the old file's comment lines first, then the handles, through a
    /// temporary file that replaces the old one only once it is on disk.
    fn save(&self, i: usize) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(NAMES[i]);
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        let mut out = String::new();
        for line in old.lines() {
            if handle_of(line).is_none() && !line.trim().is_empty() {
                out.push_str(line);
                out.push('\n');
            }
        }
        for name in &self.sets[i] {
            out.push_str(name);
            out.push('\n');
        }
        let tmp = self.dir.join(format!(".{}.tmp", NAMES[i]));
        {
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(out.as_bytes())?;
            f.sync_all()?;
        }
        std::fs::rename(&tmp, &path)?;
        if let Ok(d) = std::fs::File::open(&self.dir) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}
