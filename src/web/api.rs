//! `/api/status`: the page's facts as JSON (documented in the README): the `Status`
//! as the bot publishes it, plus a `results` object (tallies for today, this week
//! and all time, the last games with their PGN links, the rating history).

use crate::bot::history::{self, Results, Tally};
use crate::bot::status::Status;
use serde_json::{json, Value};

/// Rated games shown in the rating history.
pub const RATING_POINTS: usize = 200;

fn tallies(t: &[Tally]) -> Value {
    Value::Array(
        t.iter()
            .map(|t| {
                json!({
                    "class": t.class,
                    "time_control": t.time_control,
                    "wins": t.wins,
                    "losses": t.losses,
                    "draws": t.draws,
                    "other": t.other,
                })
            })
            .collect(),
    )
}

/// The results part.
pub fn results(r: &Results) -> Value {
    let today = history::today();
    let recent: Vec<Value> = r
        .recent(history::RECENT)
        .map(|g| {
            json!({
                "n": g.n,
                "date": g.date,
                "white": g.white,
                "black": g.black,
                "opponent": g.opponent,
                "class": g.class,
                "time_control": g.time_control,
                "result": g.result,
                "outcome": g.outcome.name(),
                "our_rating": g.our_rating,
                "opponent_rating": g.opponent_rating,
                "termination": g.termination,
                "pgn": g.pgn.as_ref().map(|_| format!("/games/{}.pgn", g.n)),
            })
        })
        .collect();
    json!({
        "today": tallies(&r.tally(Some(today))),
        "week": tallies(&r.tally(Some(history::week_start(today)))),
        "all_time": tallies(&r.tally(None)),
        "games": r.rows.len(),
        "recent": recent,
        "rating_history": r.rating_history(RATING_POINTS),
    })
}

pub fn json(s: &Status) -> String {
    let mut v = serde_json::to_value(s).unwrap_or_else(|e| json!({ "error": e.to_string() }));
    if let Value::Object(m) = &mut v {
        m.insert("results".into(), results(&s.results));
        m.insert("now_unix_ms".into(), json!(crate::bot::status::unix_ms()));
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_has_every_part() {
        let mut s = Status::default();
        let mut r = Results::default();
        r.add_record(
            "[White \"botone\"]\n[Black \"x\"]\n[Result \"1-0\"]\n[Date \"2024.01.01\"]\n[WhiteElo \"1500\"]\n[TimeControl \"60+0\"]\n\n1. e4 1-0\n",
            "botone",
            &|_| "normal".into(),
        );
        s.results = std::sync::Arc::new(r);
        let v: Value = serde_json::from_str(&json(&s)).unwrap();
        for k in [
            "accounts", "engine", "games", "observed", "counters", "results",
        ] {
            assert!(v.get(k).is_some(), "{k}");
        }
        assert_eq!(v["results"]["recent"][0]["pgn"], "/games/1.pgn");
        assert_eq!(v["results"]["all_time"][0]["wins"], 1);
        assert_eq!(v["results"]["all_time"][0]["time_control"], "1+0");
        assert_eq!(v["results"]["rating_history"][0][1], 1500);
    }
}
