//! `kibitzer tune`: our Texel-style tuner. `extract` turns games with results into
//! quiet training positions; `run` traces them (`eval::trace`), fits the sigmoid's K,
//! then moves every weight of `eval/weights.rs` by Adam on the full gradient, printing
//! the error per epoch and saving a checkpoint to resume from; `--write` turns the
//! result back into `weights.rs` (integers, still tapered).

pub mod data;
pub mod extract;
pub mod fit;
pub mod quiet;
pub mod write;

use crate::eval::params::{self, ix, NUM_PARAMS, PARAMS};
use crate::eval::{s, S};
use anyhow::{bail, Result};
use data::Dataset;
use fit::{Adam, State};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A small deterministic generator (SplitMix64) for sampling.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// Settings of `kibitzer tune run`.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub positions: Vec<PathBuf>,
    pub epochs: u64,
    pub adam: Adam,
    /// Fixed K instead of fitting it.
    pub k: Option<f64>,
    /// Checkpoint file: resumed from when it exists, saved every `save_every` epochs.
    pub state: Option<PathBuf>,
    pub save_every: u64,
    /// Print the error every this many epochs.
    pub report_every: u64,
    pub threads: usize,
    /// Where to write the new `weights.rs`.
    pub write: Option<PathBuf>,
}

/// The compiled-in weights as floats.
pub fn start_weights() -> Vec<[f64; 2]> {
    params::current()
        .iter()
        .map(|w| [w.mg as f64, w.eg as f64])
        .collect()
}

/// Floats back to integer pairs: rounded; the king-danger table made non-decreasing
/// (rarely reached entries would otherwise keep the noise of a few positions); the
/// middle-game-only weights keep an end-game half of 0.
pub fn to_integer(w: &[[f64; 2]]) -> Vec<S> {
    let mut out: Vec<S> = w
        .iter()
        .map(|p| s(p[0].round() as i32, p[1].round() as i32))
        .collect();
    let kd = ix::KING_DANGER;
    let len = PARAMS
        .iter()
        .find(|p| p.name == "KING_DANGER")
        .map_or(0, |p| p.len);
    for i in kd + 1..kd + len {
        out[i].mg = out[i].mg.max(out[i - 1].mg);
        out[i].eg = out[i].eg.max(out[i - 1].eg);
    }
    let mut at = 0;
    for p in PARAMS {
        if p.shape.mg_only() {
            for v in &mut out[at..at + p.len] {
                v.eg = 0;
            }
        }
        at += p.len;
    }
    out
}

/// `kibitzer tune run`.
pub fn run(opts: &RunOptions, out: &mut dyn std::io::Write) -> Result<()> {
    if opts.positions.is_empty() {
        bail!("no positions file given (make one with 'kibitzer tune extract')");
    }
    let t0 = Instant::now();
    let mut samples = Vec::new();
    for p in &opts.positions {
        let v = extract::read_positions(p)?;
        writeln!(out, "{}: {} positions", p.display(), v.len())?;
        samples.extend(v);
    }
    let d = Dataset::build(&samples, opts.threads);
    drop(samples);
    let usage = d.usage();
    let unused = usage.iter().filter(|&&n| n == 0).count();
    writeln!(
        out,
        "traced {} positions, {} weights ({} never used) in {:.1}s",
        d.len(),
        NUM_PARAMS,
        unused,
        t0.elapsed().as_secs_f64()
    )?;
    let mut state = match &opts.state {
        Some(p) if p.exists() => {
            let st = State::load(p)?;
            writeln!(
                out,
                "resumed {} at epoch {} (K = {:.4})",
                p.display(),
                st.epoch,
                st.k
            )?;
            st
        }
        _ => {
            let w = start_weights();
            let k = match opts.k {
                Some(k) => k,
                None => fit::fit_k(&d, &w, opts.threads),
            };
            writeln!(out, "K = {k:.4}")?;
            State::new(w, k)
        }
    };
    let start_error = fit::error(&d, &start_weights(), state.k, opts.threads);
    let mut last = fit::error(&d, &state.weights, state.k, opts.threads);
    writeln!(
        out,
        "error: compiled-in weights {start_error:.6}, epoch {} {last:.6}",
        state.epoch
    )?;
    let mask = fit::free_mask();
    let target = state.epoch + opts.epochs;
    let run_start = Instant::now();
    let first = state.epoch;
    while state.epoch < target {
        state.step(&d, opts.adam, &mask, opts.threads);
        let done = state.epoch - first;
        if state.epoch % opts.report_every.max(1) == 0 || state.epoch == target {
            let e = fit::error(&d, &state.weights, state.k, opts.threads);
            let per = run_start.elapsed().as_secs_f64() / done as f64;
            writeln!(
                out,
                "epoch {:5}  error {e:.6}  ({:+.2e})  {:.3}s/epoch",
                state.epoch,
                e - last,
                per
            )?;
            out.flush()?;
            last = e;
        }
        if let Some(p) = &opts.state {
            if state.epoch % opts.save_every.max(1) == 0 || state.epoch == target {
                state.save(p)?;
            }
        }
    }
    let ints = to_integer(&state.weights);
    let int_w: Vec<[f64; 2]> = ints.iter().map(|v| [v.mg as f64, v.eg as f64]).collect();
    let final_error = fit::error(&d, &int_w, state.k, opts.threads);
    writeln!(
        out,
        "final (integer) error {final_error:.6}, from {start_error:.6}; K = {:.4}",
        state.k
    )?;
    if let Some(path) = &opts.write {
        let sources: Vec<String> = opts
            .positions
            .iter()
            .map(|p| {
                p.file_name()
                    .map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into())
            })
            .collect();
        let origin = format!(
            "Origin: produced by `kibitzer tune` ({} epochs of Adam, rate {}, L2 {:e}) from {}\n\
             quiet positions ({}); K = {:.4}, mean squared error {:.6} -> {:.6}.",
            state.epoch,
            opts.adam.rate,
            opts.adam.l2,
            d.len(),
            sources.join(", "),
            state.k,
            start_error,
            final_error
        );
        write_weights(path, &ints, &origin)?;
        writeln!(out, "wrote {}", path.display())?;
    }
    Ok(())
}

/// Writes `weights.rs` text to `path` (via a temporary file).
pub fn write_weights(path: &Path, weights: &[S], origin: &str) -> Result<()> {
    let text = write::render(weights, origin);
    let tmp = path.with_extension("rs.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}

#[cfg(test)]
mod tests;
