//! Choosing a book move: which candidates stay, how they are ranked, and the weighted
//! random pick.
//!
//! The candidates are the legal moves of the position found in any book (the main
//! book, the steering book, a Polyglot book), their statistics merged, their flags
//! OR-ed, with the learned value and the result-learning mark of the learning overlay.
//! Then, in this order:
//!
//! 1. Learning adjusts flags: a move marked by result learning becomes `??`; a learned
//!    value above +100 promotes to `!` (unless flagged `?`), below -100 demotes to `?`
//!    (unless it has a play percentage or a `!`). A `{play nn%}` move counts as `!`.
//! 2. `?` and `??` moves are removed. When nothing is left (a lone `?` move) there is
//!    no book move.
//! 3. Moves that never won a game are removed (moves only in the steering book have
//!    no games and stay).
//! 4. If any move is `!!`, only `!!` moves stay; else if any is `!`, only `!` moves.
//! 5. If any move has a play percentage, only those stay and are picked with
//!    probability proportional to their percentages (width does not cut them).
//! 6. Otherwise each move gets a value by `book random`:
//!    - 0 and 1: the `bookw` mix `1 + 1000 x (freq x games/most games + ratio x
//!      score fraction + eval x normalised static evaluation + learn x normalised
//!      learned value)`; 0 then searches the kept moves briefly instead of picking;
//!    - 2: games played (popularity);
//!    - 3: win ratio, `((wins + 1) / (losses + 1))^2`;
//!    - 4: learned value, `(learned - lowest + 1)^2` over the candidates.
//!
//!    Moves are sorted by value, the first `book width` stay, and one is picked with
//!    probability proportional to its value.

use super::bookfile::{flags, MoveStats};
use crate::chess::{Board, Move};

/// `bookw` weights, each 0..=1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    pub freq: f64,
    pub ratio: f64,
    pub eval: f64,
    pub learn: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            freq: 1.0,
            ratio: 0.0,
            eval: 0.0,
            learn: 0.5,
        }
    }
}

/// How moves are chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelectParams {
    /// `book width`: candidates kept after ranking (at least 1).
    pub width: usize,
    /// `book random` 0..=4.
    pub random: u8,
    pub weights: Weights,
}

impl Default for SelectParams {
    fn default() -> Self {
        SelectParams {
            width: 5,
            random: 1,
            weights: Weights::default(),
        }
    }
}

/// One candidate move with everything the choice used.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub mv: Move,
    pub san: String,
    /// Statistics from the books (games, wins... from the side to move), flags and
    /// play percentage as stored.
    pub stats: MoveStats,
    /// Found in a book built from games (or a Polyglot book).
    pub in_book: bool,
    /// Found in the steering book.
    pub in_steering: bool,
    /// Learned value (centipawns, side to move), 0 when nothing was learned.
    pub learned: i32,
    /// Result learning said never to play it again.
    pub never: bool,
    /// Static evaluation after the move, side to move (when the eval weight is used).
    pub eval: Option<i32>,
    /// Flags after learning (step 1).
    pub flags: u8,
    /// Ranking value (step 6).
    pub value: f64,
    /// Probability of being picked.
    pub prob: f64,
    /// Why it was removed, if it was.
    pub dropped: Option<&'static str>,
}

impl Candidate {
    pub fn new(board: &Board, mv: Move) -> Candidate {
        Candidate {
            mv,
            san: board.san(mv),
            stats: MoveStats {
                code: super::key::encode_move(mv),
                ..Default::default()
            },
            in_book: false,
            in_steering: false,
            learned: 0,
            never: false,
            eval: None,
            flags: 0,
            value: 0.0,
            prob: 0.0,
            dropped: None,
        }
    }

    /// Score fraction from the side to move: (wins + draws / 2) / games.
    pub fn score(&self) -> f64 {
        let s = &self.stats;
        if s.games == 0 {
            0.0
        } else {
            (s.wins as f64 + s.draws as f64 / 2.0) / s.games as f64
        }
    }
}

/// The outcome of a selection.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Every candidate: the kept ones first (by rank), then the removed ones.
    pub candidates: Vec<Candidate>,
    /// How many candidates were kept.
    pub kept: usize,
    /// `book random 0`: search the kept moves instead of picking one.
    pub search: bool,
    /// Picking follows `{play nn%}`.
    pub by_play: bool,
}

impl Selection {
    pub fn kept(&self) -> &[Candidate] {
        &self.candidates[..self.kept]
    }

    /// The move for a uniform random number `r` in `[0, 1)`.
    pub fn pick(&self, r: f64) -> Option<Move> {
        let kept = self.kept();
        let mut acc = 0.0;
        for c in kept {
            acc += c.prob;
            if r < acc {
                return Some(c.mv);
            }
        }
        kept.last().map(|c| c.mv)
    }

    /// Table of every candidate for `show book`.
    pub fn show(&self, params: &SelectParams) -> Vec<String> {
        let mut out = vec![format!(
            "book moves: {} found, {} kept (book random {}, width {}{})",
            self.candidates.len(),
            self.kept,
            params.random,
            params.width,
            if self.by_play { ", by {play nn%}" } else { "" }
        )];
        out.push(
            "  move     flag   games  played   W/D/L            score  learned  play   value    prob".into(),
        );
        let total: u64 = self.candidates.iter().map(|c| c.stats.games as u64).sum();
        for c in &self.candidates {
            let s = &c.stats;
            let played = if total > 0 {
                format!("{:5.1}%", 100.0 * s.games as f64 / total as f64)
            } else {
                "    -".into()
            };
            let mut line = format!(
                "  {:<8} {:<4} {:>7}  {played}   {:<15} {:>5.1}%  {:>+7.2}  {:>4}  {:>6.0}  {:>5.1}%",
                c.san,
                flags::text(c.flags),
                s.games,
                format!("{}/{}/{}", s.wins, s.draws, s.losses),
                100.0 * c.score(),
                c.learned as f64 / 100.0,
                if s.play > 0 {
                    format!("{}%", s.play)
                } else {
                    "-".into()
                },
                c.value,
                100.0 * c.prob,
            );
            if c.never {
                line.push_str("  (lost: never again)");
            }
            if let Some(why) = c.dropped {
                line.push_str(&format!("  dropped: {why}"));
            }
            out.push(line);
        }
        out
    }
}

/// Runs steps 1-6 on the candidates (see the module comment).
pub fn select(mut cands: Vec<Candidate>, params: &SelectParams) -> Selection {
    // 1. Learning adjusts flags; play% counts as `!`.
    for c in &mut cands {
        let mut f = c.stats.flags;
        if c.stats.play > 0 {
            f |= flags::GOOD;
        }
        if c.learned > 100 && f & flags::BAD == 0 {
            f |= flags::GOOD;
        }
        if c.learned < -100 && c.stats.play == 0 && f & flags::PREFERRED == 0 {
            f |= flags::MISTAKE;
        }
        if c.never {
            f |= flags::BLUNDER;
        }
        c.flags = f;
    }
    let drop =
        |cands: &mut Vec<Candidate>, why: &'static str, test: &dyn Fn(&Candidate) -> bool| {
            for c in cands.iter_mut().filter(|c| c.dropped.is_none()) {
                if test(c) {
                    c.dropped = Some(why);
                }
            }
        };
    // 2. `?` and `??` go.
    drop(&mut cands, "?? (never play)", &|c| {
        c.flags & flags::BLUNDER != 0
    });
    drop(&mut cands, "? (do not play)", &|c| {
        c.flags & flags::MISTAKE != 0
    });
    // 3. Moves that never won.
    drop(&mut cands, "never won a game", &|c| {
        c.stats.games > 0 && c.stats.wins == 0 && c.flags & flags::PREFERRED == 0
    });
    let live = |cands: &Vec<Candidate>, test: &dyn Fn(&Candidate) -> bool| {
        cands.iter().any(|c| c.dropped.is_none() && test(c))
    };
    // 4. `!!`, then `!`.
    if live(&cands, &|c| c.flags & flags::BRILLIANT != 0) {
        drop(&mut cands, "not !! (a !! move exists)", &|c| {
            c.flags & flags::BRILLIANT == 0
        });
    } else if live(&cands, &|c| c.flags & flags::GOOD != 0) {
        drop(&mut cands, "not ! (a ! move exists)", &|c| {
            c.flags & flags::GOOD == 0
        });
    }
    // 5. Play percentages.
    let by_play = live(&cands, &|c| c.stats.play > 0);
    if by_play {
        drop(&mut cands, "no {play nn%} (others have one)", &|c| {
            c.stats.play == 0
        });
    }
    // 6. Values.
    values(&mut cands, params);
    cands.sort_by(|a, b| {
        a.dropped
            .is_some()
            .cmp(&b.dropped.is_some())
            .then(b.stats.play.cmp(&a.stats.play))
            .then(b.value.total_cmp(&a.value))
            .then(a.mv.cmp(&b.mv))
    });
    let mut kept = cands.iter().filter(|c| c.dropped.is_none()).count();
    if !by_play && kept > params.width.max(1) {
        for c in &mut cands[params.width.max(1)..kept] {
            c.dropped = Some("beyond book width");
        }
        kept = params.width.max(1);
    }
    let weight = |c: &Candidate| {
        if by_play {
            c.stats.play as f64
        } else {
            c.value.max(0.0)
        }
    };
    let total: f64 = cands[..kept].iter().map(weight).sum();
    for c in cands.iter_mut().take(kept) {
        c.prob = if total > 0.0 {
            weight(c) / total
        } else {
            1.0 / kept as f64
        };
    }
    Selection {
        kept,
        search: params.random == 0 && !by_play && kept > 1,
        by_play,
        candidates: cands,
    }
}

fn values(cands: &mut [Candidate], params: &SelectParams) {
    let live: Vec<usize> = (0..cands.len())
        .filter(|&i| cands[i].dropped.is_none())
        .collect();
    let max_games = live
        .iter()
        .map(|&i| cands[i].stats.games)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (min_l, max_l) = live.iter().fold((i32::MAX, i32::MIN), |(lo, hi), &i| {
        (lo.min(cands[i].learned), hi.max(cands[i].learned))
    });
    let evals: Vec<i32> = live.iter().filter_map(|&i| cands[i].eval).collect();
    let (min_e, max_e) = (
        evals.iter().copied().min().unwrap_or(0),
        evals.iter().copied().max().unwrap_or(0),
    );
    let w = params.weights;
    for &i in &live {
        let c = &cands[i];
        let s = &c.stats;
        let v = match params.random {
            2 => s.games as f64,
            3 => {
                let r = (s.wins as f64 + 1.0) / (s.losses as f64 + 1.0);
                r * r
            }
            4 => {
                let d = (c.learned - min_l) as f64 + 1.0;
                d * d
            }
            _ => {
                let freq = s.games as f64 / max_games;
                let learn = if max_l > min_l {
                    (c.learned - min_l) as f64 / (max_l - min_l) as f64
                } else {
                    0.0
                };
                let eval = match c.eval {
                    Some(e) if max_e > min_e => {
                        (e - min_e) as f64 / ((max_e - min_e).max(50)) as f64
                    }
                    _ => 0.0,
                };
                1.0 + 1000.0
                    * (w.freq * freq + w.ratio * c.score() + w.eval * eval + w.learn * learn)
            }
        };
        cands[i].value = v;
    }
}
