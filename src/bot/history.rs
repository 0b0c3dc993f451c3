//! The results ledger: every finished game of ours as a row (date, opponent, class,
//! time control, result, ratings), read at start from the PGN files the archive wrote
//! (rotated files oldest first, then the current one) and extended as games end. It
//! answers the operator's questions: W/L/D by class and time control for today, this
//! week and all time, the last games with their PGN text, and the rating history.
//! Reading the files is blocking I/O: the daemon runs it off the async threads.

use crate::chess::Color;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Games whose PGN text is kept in memory (the page links the newest).
pub const RECENT: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win,
    Loss,
    Draw,
    /// Aborted or otherwise without a result.
    Other,
}

impl Outcome {
    pub fn of(result: &str, ours: Color) -> Outcome {
        match (result, ours) {
            ("1-0", Color::White) | ("0-1", Color::Black) => Outcome::Win,
            ("1-0", Color::Black) | ("0-1", Color::White) => Outcome::Loss,
            ("1/2-1/2", _) => Outcome::Draw,
            _ => Outcome::Other,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Loss => "loss",
            Outcome::Draw => "draw",
            Outcome::Other => "aborted",
        }
    }
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct ResultRow {
    /// The record number (`/games/<n>.pgn`), from 1, in the order games ended.
    pub n: u64,
    /// Days since 1970-01-01 (UTC) of the PGN date.
    pub day: i64,
    pub date: String,
    pub white: String,
    pub black: String,
    pub our_color: Color,
    pub opponent: String,
    pub class: String,
    /// `minutes+increment`.
    pub time_control: String,
    pub result: String,
    pub outcome: Outcome,
    pub our_rating: Option<i32>,
    pub opponent_rating: Option<i32>,
    pub termination: String,
    /// The PGN record, for the newest `RECENT` games.
    pub pgn: Option<Arc<str>>,
}

/// W/L/D of one class at one time control.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub class: String,
    pub time_control: String,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    pub other: u32,
}

#[derive(Clone, Debug, Default)]
pub struct Results {
    pub rows: Vec<ResultRow>,
}

/// Days since 1970-01-01 of a PGN date `YYYY.MM.DD`.
pub fn day_of(date: &str) -> Option<i64> {
    let mut it = date.split('.');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    // Days from civil (proleptic Gregorian).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// Today, in days since 1970-01-01 (UTC).
pub fn today() -> i64 {
    (super::status::unix_ms() / 86_400_000) as i64
}

/// The Monday starting the week of `day` (1970-01-01 was a Thursday).
pub fn week_start(day: i64) -> i64 {
    day - (day + 3).rem_euclid(7)
}

/// `60+0` (seconds+increment, the PGN tag) as `1+0` (minutes+increment).
pub fn time_control(tag: &str) -> String {
    let (base, inc) = tag.split_once('+').unwrap_or((tag, "0"));
    match (base.parse::<u32>(), inc.parse::<u32>()) {
        (Ok(s), Ok(i)) => super::status::time_control_text(s, i),
        _ => tag.to_string(),
    }
}

/// The PGN files of an archive, oldest first: `games.pgn.<keep>` .. `games.pgn.1`,
/// then `games.pgn`.
pub fn archive_files(pgn: &Path, keep: usize) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = (1..=keep)
        .rev()
        .map(|i| PathBuf::from(format!("{}.{i}", pgn.display())))
        .collect();
    v.push(pgn.to_path_buf());
    v.into_iter().filter(|p| p.exists()).collect()
}

/// The value of a PGN tag line `[Name "Value"]`.
fn tag(line: &str) -> Option<(&str, &str)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(' ')?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((name, value))
}

/// Which side is ours: the configured handle, or for a guest login (whose server
/// name changes) the side named `Guest...`.
fn our_side(white: &str, black: &str, handle: &str) -> Option<Color> {
    if white.eq_ignore_ascii_case(handle) {
        return Some(Color::White);
    }
    if black.eq_ignore_ascii_case(handle) {
        return Some(Color::Black);
    }
    if crate::ics::parse::is_guest(handle) {
        let g = |s: &str| s.to_ascii_lowercase().starts_with("guest");
        return match (g(white), g(black)) {
            (true, false) => Some(Color::White),
            (false, true) => Some(Color::Black),
            _ => None,
        };
    }
    None
}

impl Results {
    /// Reads the games of `files` (PGN as the archive writes it). Games in which
    /// `handle` did not play are skipped; `classify` names an opponent's class.
    pub fn load(files: &[PathBuf], handle: &str, classify: &dyn Fn(&str) -> String) -> Results {
        Results::load_any(files, &[handle.to_string()], classify, None).0
    }

    /// As `load`, for the games of any of `handles` (every account writes the same
    /// archive), reading at most `limit` records; also returns the records read.
    pub fn load_any(
        files: &[PathBuf],
        handles: &[String],
        classify: &dyn Fn(&str) -> String,
        limit: Option<usize>,
    ) -> (Results, usize) {
        let mut r = Results::default();
        let mut records = 0usize;
        let mut add = |r: &mut Results, text: &str| {
            if limit.is_some_and(|l| records >= l) {
                return;
            }
            records += 1;
            for h in handles {
                if r.add_record(text, h, classify).is_some() {
                    break;
                }
            }
        };
        for f in files {
            let Ok(file) = std::fs::File::open(f) else {
                continue;
            };
            let mut text = String::new();
            let mut in_moves = false;
            for line in std::io::BufReader::new(file).lines() {
                let Ok(line) = line else { break };
                let is_tag = line.starts_with('[');
                if is_tag && in_moves {
                    add(&mut r, &std::mem::take(&mut text));
                    in_moves = false;
                }
                if !is_tag && !line.trim().is_empty() {
                    in_moves = true;
                }
                text.push_str(&line);
                text.push('\n');
            }
            if !text.trim().is_empty() {
                add(&mut r, &text);
            }
        }
        (r, records)
    }

    /// Adds one PGN record (a game of ours); returns its number, or `None` when it
    /// is not a game of `handle`'s.
    pub fn add_record(
        &mut self,
        pgn: &str,
        handle: &str,
        classify: &dyn Fn(&str) -> String,
    ) -> Option<u64> {
        let mut tags = std::collections::HashMap::new();
        for line in pgn.lines() {
            if let Some((k, v)) = tag(line) {
                tags.entry(k.to_string()).or_insert_with(|| v.to_string());
            } else if !line.trim().is_empty() {
                break;
            }
        }
        let get = |k: &str| tags.get(k).cloned().unwrap_or_default();
        let (white, black) = (get("White"), get("Black"));
        let ours = our_side(&white, &black, handle)?;
        let opponent = if ours == Color::White {
            black.clone()
        } else {
            white.clone()
        };
        let rating = |k: &str| tags.get(k).and_then(|v| v.parse::<i32>().ok());
        let (wr, br) = (rating("WhiteElo"), rating("BlackElo"));
        let (our_rating, opponent_rating) = if ours == Color::White {
            (wr, br)
        } else {
            (br, wr)
        };
        let date = get("Date");
        let result = get("Result");
        let row = ResultRow {
            n: 0,
            day: day_of(&date).unwrap_or_else(today),
            date,
            class: classify(&opponent),
            white,
            black,
            our_color: ours,
            opponent,
            time_control: time_control(&get("TimeControl")),
            outcome: Outcome::of(&result, ours),
            result,
            our_rating,
            opponent_rating,
            termination: get("Termination"),
            pgn: Some(Arc::from(pgn)),
        };
        Some(self.push(row))
    }

    /// Adds a row (numbered here); keeps the PGN text of the newest `RECENT` only.
    pub fn push(&mut self, mut row: ResultRow) -> u64 {
        row.n = self.rows.last().map_or(1, |r| r.n + 1);
        let n = row.n;
        self.rows.push(row);
        if self.rows.len() > RECENT {
            let i = self.rows.len() - RECENT - 1;
            self.rows[i].pgn = None;
        }
        n
    }

    /// W/L/D by class and time control of the games from `since_day` on (all when
    /// `None`), sorted by class then time control.
    pub fn tally(&self, since_day: Option<i64>) -> Vec<Tally> {
        let mut map: std::collections::BTreeMap<(String, String), Tally> = Default::default();
        for r in &self.rows {
            if since_day.is_some_and(|d| r.day < d) {
                continue;
            }
            let t = map
                .entry((r.class.clone(), r.time_control.clone()))
                .or_insert_with(|| Tally {
                    class: r.class.clone(),
                    time_control: r.time_control.clone(),
                    ..Default::default()
                });
            match r.outcome {
                Outcome::Win => t.wins += 1,
                Outcome::Loss => t.losses += 1,
                Outcome::Draw => t.draws += 1,
                Outcome::Other => t.other += 1,
            }
        }
        map.into_values().collect()
    }

    /// The newest `n` games, newest first.
    pub fn recent(&self, n: usize) -> impl Iterator<Item = &ResultRow> {
        self.rows.iter().rev().take(n)
    }

    /// Our rating after each of the last `max` rated games: (record number, rating).
    pub fn rating_history(&self, max: usize) -> Vec<(u64, i32)> {
        let v: Vec<(u64, i32)> = self
            .rows
            .iter()
            .filter_map(|r| r.our_rating.map(|x| (r.n, x)))
            .collect();
        v[v.len().saturating_sub(max)..].to_vec()
    }

    /// The PGN record of game `n`, while it is among the newest.
    pub fn pgn(&self, n: u64) -> Option<Arc<str>> {
        let first = self.rows.first()?.n;
        let i = n.checked_sub(first)? as usize;
        self.rows.get(i).filter(|r| r.n == n)?.pgn.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(white: &str, black: &str, result: &str, date: &str, welo: i32) -> String {
        format!(
            "[Event \"x\"]\n[Date \"{date}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[WhiteElo \"{welo}\"]\n[TimeControl \"180+2\"]\n[Result \"{result}\"]\n\n1. e4 e5 {result}\n\n"
        )
    }

    #[test]
    fn dates_weeks_and_time_controls() {
        assert_eq!(day_of("1970.01.01"), Some(0));
        assert_eq!(day_of("2000.03.01"), Some(11_017));
        assert_eq!(day_of("2024.13.01"), None);
        assert_eq!(day_of("????.??.??"), None);
        // 2024-06-13 was a Thursday; its week began on Monday 2024-06-10.
        let thu = day_of("2024.06.13").unwrap();
        assert_eq!(week_start(thu), day_of("2024.06.10").unwrap());
        assert_eq!(
            week_start(day_of("2024.06.10").unwrap()),
            day_of("2024.06.10").unwrap()
        );
        assert_eq!(time_control("180+2"), "3+2");
        assert_eq!(time_control("90+0"), "1.5+0");
    }

    #[test]
    fn loads_rotated_files_oldest_first_and_tallies() {
        let dir = std::env::temp_dir().join(format!("kibitzer-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let pgn = dir.join("games.pgn");
        std::fs::write(
            dir.join("games.pgn.1"),
            record("botone", "gmx", "1-0", "2024.06.10", 1500),
        )
        .unwrap();
        let mut cur = record("gmx", "botone", "1-0", "2024.06.13", 1600);
        cur.push_str(&record("other", "people", "1/2-1/2", "2024.06.13", 1));
        cur.push_str(&record("botone", "pat", "1/2-1/2", "2024.06.13", 1510));
        std::fs::write(&pgn, cur).unwrap();
        let files = archive_files(&pgn, 5);
        assert_eq!(files.len(), 2);
        let class = |o: &str| if o == "gmx" { "GM" } else { "normal" }.to_string();
        let r = Results::load(&files, "botone", &class);
        assert_eq!(r.rows.len(), 3, "the game of others is skipped");
        assert_eq!(r.rows[0].n, 1);
        assert_eq!(r.rows[0].outcome, Outcome::Win);
        assert_eq!(r.rows[1].outcome, Outcome::Loss);
        assert_eq!(r.rows[1].our_color, Color::Black);
        assert_eq!(r.rows[2].outcome, Outcome::Draw);
        let all = r.tally(None);
        let gm = all.iter().find(|t| t.class == "GM").unwrap();
        assert_eq!(
            (gm.wins, gm.losses, gm.draws, gm.time_control.as_str()),
            (1, 1, 0, "3+2")
        );
        let since = r.tally(day_of("2024.06.13"));
        assert_eq!(since.iter().map(|t| t.wins).sum::<u32>(), 0);
        assert_eq!(r.rating_history(10), vec![(1, 1500), (3, 1510)]);
        assert!(r.pgn(2).unwrap().contains("[White \"gmx\"]"));
        assert!(r.pgn(9).is_none());
        assert_eq!(r.recent(1).next().unwrap().opponent, "pat");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_the_newest_keep_their_text() {
        let mut r = Results::default();
        for i in 0..(RECENT + 5) {
            r.add_record(
                &record("botone", &format!("p{i}"), "1-0", "2024.01.01", 1500),
                "botone",
                &|_| "normal".into(),
            );
        }
        assert!(r.pgn(1).is_none() && r.pgn(5).is_none());
        assert!(r.pgn(6).is_some() && r.pgn((RECENT + 5) as u64).is_some());
    }

    #[test]
    fn guest_games_are_found_by_the_guest_name() {
        let mut r = Results::default();
        let n = r.add_record(
            &record("GuestABCD", "bottwo", "0-1", "2024.01.01", 0),
            "guest",
            &|_| "normal".into(),
        );
        assert_eq!(n, Some(1));
        assert_eq!(r.rows[0].outcome, Outcome::Loss);
    }
}
