//! The tuner's data set: every training position reduced to its evaluation trace
//! (`eval::trace`), stored compactly (the weights that fired, their coefficients, the
//! unexplained part, phase and scale), built on all cores.

use super::extract::Sample;
use crate::eval::params::NUM_PARAMS;
use crate::eval::{Evaluator, PHASE_MAX, SCALE_MAX};

/// One position.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// Game result from White's side (1, 0.5, 0).
    pub result: f32,
    /// Middle-game share: phase / PHASE_MAX.
    pub mg_share: f32,
    /// Drawish-ending scale / SCALE_MAX.
    pub scale: f32,
    /// The part of the evaluation no weight explains (mg, eg), White's side.
    pub constant: [f32; 2],
    start: u32,
    len: u16,
}

/// All positions.
#[derive(Default)]
pub struct Dataset {
    pub entries: Vec<Entry>,
    coefs: Vec<(u16, i16)>,
}

impl Dataset {
    /// Traces every sample (using `threads` threads).
    pub fn build(samples: &[Sample], threads: usize) -> Dataset {
        let threads = threads.max(1);
        let chunk = samples.len().div_ceil(threads).max(1);
        let parts: Vec<Dataset> = std::thread::scope(|scope| {
            let handles: Vec<_> = samples
                .chunks(chunk)
                .map(|part| scope.spawn(move || Dataset::build_one(part)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("trace thread"))
                .collect()
        });
        let mut all = Dataset::default();
        for p in parts {
            let base = all.coefs.len() as u32;
            all.entries.extend(p.entries.iter().map(|e| Entry {
                start: e.start + base,
                ..*e
            }));
            all.coefs.extend(p.coefs);
        }
        all
    }

    fn build_one(samples: &[Sample]) -> Dataset {
        let mut ev = Evaluator::new(4 << 20);
        let mut d = Dataset::default();
        for s in samples {
            let tr = ev.trace(&s.board);
            let sparse = tr.sparse();
            d.entries.push(Entry {
                result: s.result,
                mg_share: tr.phase as f32 / PHASE_MAX as f32,
                scale: tr.scale as f32 / SCALE_MAX as f32,
                constant: [tr.constant.mg as f32, tr.constant.eg as f32],
                start: d.coefs.len() as u32,
                len: sparse.len() as u16,
            });
            d.coefs.extend(sparse);
        }
        d
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The weights that fired in an entry.
    #[inline]
    pub fn coefs(&self, e: &Entry) -> &[(u16, i16)] {
        &self.coefs[e.start as usize..e.start as usize + e.len as usize]
    }

    /// How many positions each weight fired in (for the report).
    pub fn usage(&self) -> Vec<u64> {
        let mut n = vec![0u64; NUM_PARAMS];
        for &(i, _) in &self.coefs {
            n[i as usize] += 1;
        }
        n
    }
}

/// The evaluation of an entry in floating point for weights `w` ((mg, eg) pairs).
#[inline]
pub fn linear_eval(d: &Dataset, e: &Entry, w: &[[f64; 2]]) -> f64 {
    let mut mg = e.constant[0] as f64;
    let mut eg = e.constant[1] as f64;
    for &(i, c) in d.coefs(e) {
        let p = w[i as usize];
        mg += p[0] * c as f64;
        eg += p[1] * c as f64;
    }
    let share = e.mg_share as f64;
    (mg * share + eg * (1.0 - share)) * e.scale as f64
}
