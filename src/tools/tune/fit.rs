//! Texel-style fitting: the mean squared error between each position's game result
//! and `sigmoid(K * eval)` (eval in centipawns, the sigmoid base 10 over 400), first
//! over K with the weights as they are, then over every weight by Adam on the full
//! gradient, computed on all cores. The state (weights, Adam's moments, epoch, K) is
//! saved to a checkpoint file so a run can stop and resume.

use super::data::{linear_eval, Dataset};
use crate::eval::params::{NUM_PARAMS, PARAMS};
use anyhow::{bail, Context, Result};
use std::path::Path;

const LN10_400: f64 = std::f64::consts::LN_10 / 400.0;

#[inline]
fn sigmoid(k: f64, eval: f64) -> f64 {
    1.0 / (1.0 + (-k * LN10_400 * eval).exp())
}

/// Splits the entries over `threads` threads, folds each part with `f` and sums.
fn par_sum<T: Send>(
    d: &Dataset,
    threads: usize,
    init: impl Fn() -> T + Sync,
    f: impl Fn(&mut T, &super::data::Entry) + Sync,
    merge: impl Fn(&mut T, T),
) -> T {
    let chunk = d.entries.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<T> = std::thread::scope(|scope| {
        let handles: Vec<_> = d
            .entries
            .chunks(chunk)
            .map(|part| {
                let (init, f) = (&init, &f);
                scope.spawn(move || {
                    let mut acc = init();
                    for e in part {
                        f(&mut acc, e);
                    }
                    acc
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("tuner thread"))
            .collect()
    });
    let mut total = init();
    for p in parts {
        merge(&mut total, p);
    }
    total
}

/// Mean squared error of the weights `w` with scaling constant `k`.
pub fn error(d: &Dataset, w: &[[f64; 2]], k: f64, threads: usize) -> f64 {
    if d.is_empty() {
        return 0.0;
    }
    let sum = par_sum(
        d,
        threads,
        || 0.0f64,
        |acc, e| {
            let diff = e.result as f64 - sigmoid(k, linear_eval(d, e, w));
            *acc += diff * diff;
        },
        |a, b| *a += b,
    );
    sum / d.len() as f64
}

/// The K that minimises the error for the weights `w` (golden-section search).
pub fn fit_k(d: &Dataset, w: &[[f64; 2]], threads: usize) -> f64 {
    let (mut lo, mut hi) = (0.05f64, 4.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - g * (hi - lo);
    let mut b = lo + g * (hi - lo);
    let mut ea = error(d, w, a, threads);
    let mut eb = error(d, w, b, threads);
    for _ in 0..40 {
        if ea < eb {
            hi = b;
            b = a;
            eb = ea;
            a = hi - g * (hi - lo);
            ea = error(d, w, a, threads);
        } else {
            lo = a;
            a = b;
            ea = eb;
            b = lo + g * (hi - lo);
            eb = error(d, w, b, threads);
        }
    }
    (lo + hi) / 2.0
}

/// Gradient of the error (up to the constant factor 2 / N) for every weight.
pub fn gradient(d: &Dataset, w: &[[f64; 2]], k: f64, threads: usize) -> Vec<[f64; 2]> {
    par_sum(
        d,
        threads,
        || vec![[0.0f64; 2]; NUM_PARAMS],
        |g, e| {
            let s = sigmoid(k, linear_eval(d, e, w));
            let r = e.result as f64;
            let de = (s - r) * s * (1.0 - s) * k * LN10_400 * e.scale as f64;
            let share = e.mg_share as f64;
            let (gm, ge) = (de * share, de * (1.0 - share));
            for &(i, c) in d.coefs(e) {
                let c = c as f64;
                let gi = &mut g[i as usize];
                gi[0] += gm * c;
                gi[1] += ge * c;
            }
        },
        |a, b| {
            for (x, y) in a.iter_mut().zip(b) {
                x[0] += y[0];
                x[1] += y[1];
            }
        },
    )
}

/// Which halves of each flat weight may move: (mg, eg).
pub fn free_mask() -> Vec<[bool; 2]> {
    let mut mask = Vec::with_capacity(NUM_PARAMS);
    for p in PARAMS {
        for _ in 0..p.len {
            mask.push([true, !p.shape.mg_only()]);
        }
    }
    mask
}

/// Adam's state and the weights it moves.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub epoch: u64,
    pub k: f64,
    pub weights: Vec<[f64; 2]>,
    /// Where the weights started (the L2 penalty's centre).
    pub start: Vec<[f64; 2]>,
    m: Vec<[f64; 2]>,
    v: Vec<[f64; 2]>,
}

/// Adam's settings.
#[derive(Clone, Copy, Debug)]
pub struct Adam {
    /// Step size in centipawns.
    pub rate: f64,
    pub beta1: f64,
    pub beta2: f64,
    /// Weight of the penalty `l2 * (w - start)^2` added to the error per weight half:
    /// it keeps weights that few positions use near their starting values, where the
    /// data alone would fit noise, and settles the trade between material and the
    /// piece-square tables' averages.
    pub l2: f64,
}

impl Default for Adam {
    fn default() -> Self {
        Adam {
            rate: 1.0,
            beta1: 0.9,
            beta2: 0.999,
            l2: 0.0,
        }
    }
}

impl State {
    pub fn new(weights: Vec<[f64; 2]>, k: f64) -> State {
        State {
            epoch: 0,
            k,
            m: vec![[0.0; 2]; weights.len()],
            v: vec![[0.0; 2]; weights.len()],
            start: weights.clone(),
            weights,
        }
    }

    /// One full-gradient Adam step; returns nothing, moves the weights.
    pub fn step(&mut self, d: &Dataset, adam: Adam, mask: &[[bool; 2]], threads: usize) {
        let g = gradient(d, &self.weights, self.k, threads);
        self.epoch += 1;
        let t = self.epoch as i32;
        let c1 = 1.0 - adam.beta1.powi(t);
        let c2 = 1.0 - adam.beta2.powi(t);
        let n = d.len().max(1) as f64;
        for i in 0..self.weights.len() {
            for h in 0..2 {
                if !mask[i][h] {
                    continue;
                }
                let gi =
                    2.0 * g[i][h] / n + 2.0 * adam.l2 * (self.weights[i][h] - self.start[i][h]);
                self.m[i][h] = adam.beta1 * self.m[i][h] + (1.0 - adam.beta1) * gi;
                self.v[i][h] = adam.beta2 * self.v[i][h] + (1.0 - adam.beta2) * gi * gi;
                let mh = self.m[i][h] / c1;
                let vh = self.v[i][h] / c2;
                self.weights[i][h] -= adam.rate * mh / (vh.sqrt() + 1e-12);
            }
        }
    }

    /// Writes the checkpoint (a small text file), replacing it atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "kibitzer-tune 2");
        let _ = writeln!(s, "params {}", self.weights.len());
        let _ = writeln!(s, "epoch {}", self.epoch);
        let _ = writeln!(s, "k {:e}", self.k);
        for i in 0..self.weights.len() {
            let (w, m, v, s0) = (self.weights[i], self.m[i], self.v[i], self.start[i]);
            let _ = writeln!(
                s,
                "{:e} {:e} {:e} {:e} {:e} {:e} {:e} {:e}",
                w[0], w[1], m[0], m[1], v[0], v[1], s0[0], s0[1]
            );
        }
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, s).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
        Ok(())
    }

    /// Reads a checkpoint written by `save`.
    pub fn load(path: &Path) -> Result<State> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let mut lines = text.lines().enumerate();
        let mut header = |key: &str| -> Result<String> {
            let (n, l) = lines.next().context("checkpoint ends early")?;
            match l.split_once(' ') {
                Some((k, v)) if k == key => Ok(v.to_string()),
                _ => bail!("{} line {}: expected '{key} ...'", path.display(), n + 1),
            }
        };
        if header("kibitzer-tune")? != "2" {
            bail!("{}: not a version 2 checkpoint", path.display());
        }
        let params: usize = header("params")?.parse().context("params")?;
        if params != NUM_PARAMS {
            bail!(
                "{}: {params} weights, this build has {NUM_PARAMS} (the checkpoint is from another evaluation)",
                path.display()
            );
        }
        let epoch = header("epoch")?.parse().context("epoch")?;
        let k = header("k")?.parse().context("k")?;
        let mut st = State::new(Vec::new(), k);
        st.epoch = epoch;
        for (n, l) in lines {
            let v: Vec<f64> = l
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .with_context(|| format!("{} line {}", path.display(), n + 1))?;
            if v.len() != 8 || v.iter().any(|x| !x.is_finite()) {
                bail!("{} line {}: expected eight numbers", path.display(), n + 1);
            }
            st.weights.push([v[0], v[1]]);
            st.m.push([v[2], v[3]]);
            st.v.push([v[4], v[5]]);
            st.start.push([v[6], v[7]]);
        }
        if st.weights.len() != params {
            bail!(
                "{}: {} weights listed, {params} announced",
                path.display(),
                st.weights.len()
            );
        }
        Ok(st)
    }
}
