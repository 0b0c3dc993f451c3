//! `kibitzer train`: fits the net of `crate::nnue` to `kibitzer datagen`'s
//! positions. Floating point while training (f32), Adam, the batch's gradient
//! shared out over threads; each epoch ends with a checkpoint (weights and Adam's
//! moments: a run stopped at any moment goes on from the last epoch when started
//! again with the same output) and the quantised net file.
//!
//! The loss, from the side to move's view: `lambda` x (sigmoid(net / 400) -
//! sigmoid(score / 400))^2 + (1 - lambda) x (sigmoid(net / K) - result)^2, where
//! score is the search's and K the result's own scale (fitted on the data: the K
//! at which sigmoid(score / K) predicts the results best, about 150 on our
//! self-play data). Both terms are smallest where the net says what the search
//! said; a result term at 400 would ask for values far beyond the scores.
//!
//! With a `base` other than `Alone` the net learns what that base misses (the
//! whole handcrafted evaluation, or its material, piece squares and pawns): its
//! output is added to the base's static value (computed once per position,
//! mirrored positions too) before the sigmoid, and the engine adds the two the
//! same way (`nnue::compose`).

use crate::nnue::{self, Base, Network, BUCKETS, HIDDEN, INPUTS, QA, QB, WEIGHT_CLIP};
use crate::tools::datagen::RECORD;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct TrainOptions {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub epochs: usize,
    pub batch: usize,
    pub lr: f32,
    /// The learning rate is multiplied by this at `lr_drop_at` (a fraction of the epochs).
    pub lr_drop: f32,
    pub lr_drop_at: f32,
    /// Weight of the search's score against the result (0-1).
    pub lambda: f32,
    /// The result term's scale in centipawns (`None`: fitted on the data).
    pub result_scale: Option<f32>,
    pub threads: usize,
    pub seed: u64,
    /// Positions kept aside to measure the loss on (every `1/validation`-th).
    pub validation: usize,
    /// What the net is trained on top of (`Base::Alone`: it replaces the
    /// handcrafted evaluation).
    pub base: Base,
    /// The net file's output layer is the trained one times this (percent): a
    /// net's corrections measured to play best shrunk (see the README).
    pub output_scale: u32,
    /// A net file whose weights a new run starts from (rather than random ones):
    /// a committed net trained further on new data.
    pub init: Option<PathBuf>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            data: Vec::new(),
            out: PathBuf::from("kibitzer.knn"),
            epochs: 20,
            batch: 16384,
            lr: 0.001,
            lr_drop: 0.1,
            lr_drop_at: 0.75,
            lambda: 1.0,
            result_scale: None,
            threads: 2,
            seed: 1,
            validation: 50,
            base: Base::Alone,
            output_scale: 100,
            init: None,
        }
    }
}

/// What one epoch measured.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    pub epoch: usize,
    pub train_loss: f64,
    pub validation_loss: f64,
    /// Mean |quantised - float| evaluation on the validation positions, centipawns.
    pub quantisation_cp: f64,
    pub seconds: f64,
    pub positions: usize,
}

// Parameter layout in one flat vector.
const FT_W: usize = 0;
const FT_B: usize = FT_W + INPUTS * HIDDEN;
const OUT_W: usize = FT_B + HIDDEN;
const OUT_B: usize = OUT_W + BUCKETS * 2 * HIDDEN;
const N_PARAMS: usize = OUT_B + BUCKETS;

/// One decoded training position.
struct Pos {
    /// Inputs as White sees them and as Black does (same order).
    feats: [[u16; 32]; 2],
    n: usize,
    /// 0 White to move, 1 Black.
    stm: usize,
    /// The output bucket (by the pieces on the board).
    bucket: usize,
    /// The search's score through sigmoid(score / 400), the side to move's view.
    score: f32,
    /// The game's result, the side to move's view (0, 0.5, 1).
    result: f32,
    /// What the output is added to before the sigmoid: the handcrafted value (side
    /// to move's view, / `SCALE`) for a net on the handcrafted evaluation, else 0.
    base: f32,
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Decodes a record (as `datagen::Sample::decode` would accept it), or `None`;
/// `mirror` flips the board from the a-file to the h-file (the same position in
/// value, as records hold no castling rights: twice the positions to learn from).
fn decode(rec: &[u8], mirror: bool) -> Option<Pos> {
    let occ = u64::from_le_bytes(rec[0..8].try_into().ok()?);
    if occ.count_ones() > 32 || rec[26] > 2 || rec[27] > 1 {
        return None;
    }
    let mut p = Pos {
        feats: [[0; 32]; 2],
        n: 0,
        stm: rec[27] as usize,
        bucket: nnue::bucket(occ.count_ones()),
        score: 0.0,
        result: 0.0,
        base: 0.0,
    };
    let mut bits = occ;
    while bits != 0 {
        let sq = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let sq = if mirror { sq ^ 7 } else { sq };
        let code = ((rec[8 + p.n / 2] >> (4 * (p.n % 2))) & 15) as usize;
        if code > 11 {
            return None;
        }
        p.feats[0][p.n] = nnue::feature(crate::chess::Color::White, code, sq) as u16;
        p.feats[1][p.n] = nnue::feature(crate::chess::Color::Black, code, sq) as u16;
        p.n += 1;
    }
    let white_score = i16::from_le_bytes([rec[24], rec[25]]) as f32;
    let white_result = rec[26] as f32 / 2.0;
    let (score, result) = if p.stm == 0 {
        (white_score, white_result)
    } else {
        (-white_score, 1.0 - white_result)
    };
    p.score = sigmoid(score / nnue::SCALE as f32);
    p.result = result;
    Some(p)
}

/// How the loss blends the search's score and the game's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blend {
    /// Weight of the score term (0-1).
    pub lambda: f32,
    /// The result term's scale, centipawns.
    pub result_scale: f32,
}

impl Blend {
    /// The loss of an output `out` (in units of `SCALE` centipawns, base added)
    /// on `p`, and its derivative by `out`.
    fn loss_grad(&self, out: f32, p: &Pos) -> (f32, f32) {
        let ps = sigmoid(out);
        let es = ps - p.score;
        let (mut loss, mut grad) = (0.0, 0.0);
        if self.lambda > 0.0 {
            loss += self.lambda * es * es;
            grad += self.lambda * 2.0 * es * ps * (1.0 - ps);
        }
        if self.lambda < 1.0 {
            let m = nnue::SCALE as f32 / self.result_scale;
            let pr = sigmoid(out * m);
            let er = pr - p.result;
            loss += (1.0 - self.lambda) * er * er;
            grad += (1.0 - self.lambda) * 2.0 * er * pr * (1.0 - pr) * m;
        }
        (loss, grad)
    }
}

/// The scale K (centipawns) at which sigmoid(score / K) predicts the games'
/// results best on `data` (mean squared error over at most 400,000 records
/// spread through it), with that error: the result term's scale.
pub fn fit_result_scale(data: &Data) -> (f32, f64) {
    let step = (data.len() / 400_000).max(1);
    let pairs: Vec<(f32, f32)> = (0..data.len())
        .step_by(step)
        .filter_map(|i| crate::tools::datagen::Sample::decode(data.record(i)).ok())
        // Score and result both from White's view.
        .map(|s| (s.score as f32, s.result as f32 / 2.0))
        .collect();
    let error = |k: f32| {
        pairs
            .iter()
            .map(|&(s, r)| {
                let e = (sigmoid(s / k) - r) as f64;
                e * e
            })
            .sum::<f64>()
            / pairs.len().max(1) as f64
    };
    let mut best = (400.0, error(400.0));
    for k in (40..=1000).step_by(10) {
        let e = error(k as f32);
        if e < best.1 {
            best = (k as f32, e);
        }
    }
    best
}

/// The blend `opts` asks for, the result's scale fitted on `data` where it is
/// not given (and not needed where `lambda` is 1).
pub fn blend(opts: &TrainOptions, data: &Data) -> Blend {
    let result_scale = match opts.result_scale {
        Some(k) => k,
        None if opts.lambda >= 1.0 => nnue::SCALE as f32,
        None => fit_result_scale(data).0,
    };
    Blend {
        lambda: opts.lambda,
        result_scale,
    }
}

/// The float network.
pub struct Model {
    pub w: Vec<f32>,
}

struct Forward {
    h: [[f32; HIDDEN]; 2],
    out: f32,
}

impl Model {
    fn new(seed: u64) -> Model {
        let mut rng = Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B);
        let mut w = vec![0f32; N_PARAMS];
        let ft = 1.0 / (32f32).sqrt();
        for x in &mut w[FT_W..FT_B] {
            *x = rng.uniform() * ft;
        }
        let out = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        for x in &mut w[OUT_W..OUT_B] {
            *x = rng.uniform() * out;
        }
        Model { w }
    }

    fn forward(&self, p: &Pos) -> Forward {
        let mut h = [[0f32; HIDDEN]; 2];
        for (persp, hp) in h.iter_mut().enumerate() {
            hp.copy_from_slice(&self.w[FT_B..OUT_W]);
            for &f in &p.feats[persp][..p.n] {
                let row = &self.w[FT_W + f as usize * HIDDEN..FT_W + (f as usize + 1) * HIDDEN];
                for (a, b) in hp.iter_mut().zip(row) {
                    *a += b;
                }
            }
        }
        let (us, them) = (p.stm, 1 - p.stm);
        let mut out = self.w[OUT_B + p.bucket] + p.base;
        let ow = OUT_W + p.bucket * 2 * HIDDEN;
        let (w_us, w_them) = self.w[ow..ow + 2 * HIDDEN].split_at(HIDDEN);
        for (i, (a, b)) in w_us.iter().zip(w_them).enumerate() {
            out += a * h[us][i].clamp(0.0, 1.0) + b * h[them][i].clamp(0.0, 1.0);
        }
        Forward { h, out }
    }

    /// Adds the gradient of this position's loss to `g`; returns the loss.
    fn backward(&self, p: &Pos, blend: &Blend, g: &mut [f32]) -> f32 {
        let fw = self.forward(p);
        let (loss, d) = blend.loss_grad(fw.out, p);
        g[OUT_B + p.bucket] += d;
        let (us, them) = (p.stm, 1 - p.stm);
        let ow = OUT_W + p.bucket * 2 * HIDDEN;
        let mut dh = [[0f32; HIDDEN]; 2];
        for (half, persp) in [(0usize, us), (1, them)] {
            for i in 0..HIDDEN {
                let h = fw.h[persp][i];
                g[ow + half * HIDDEN + i] += d * h.clamp(0.0, 1.0);
                if h > 0.0 && h < 1.0 {
                    dh[persp][i] = d * self.w[ow + half * HIDDEN + i];
                }
            }
        }
        for (feats, d) in p.feats.iter().zip(&dh) {
            for (a, b) in g[FT_B..OUT_W].iter_mut().zip(d) {
                *a += b;
            }
            for &f in &feats[..p.n] {
                let row = &mut g[FT_W + f as usize * HIDDEN..FT_W + (f as usize + 1) * HIDDEN];
                for (a, b) in row.iter_mut().zip(d) {
                    *a += b;
                }
            }
        }
        loss
    }

    fn loss(&self, p: &Pos, blend: &Blend) -> f32 {
        blend.loss_grad(self.forward(p).out, p).0
    }

    /// The float net's own value in centipawns (the side to move's view; without
    /// the base).
    fn eval_cp(&self, p: &Pos) -> f32 {
        (self.forward(p).out - p.base) * nnue::SCALE as f32
    }

    /// The float net a quantised one stands for (each weight divided by its
    /// quantisation): what [`Model::quantise`] at 100 % gives back exactly.
    fn from_network(net: &Network) -> Model {
        let mut w = vec![0f32; N_PARAMS];
        let ints = |from: &[i16], to: &mut [f32], q: f32| {
            for (a, &b) in to.iter_mut().zip(from) {
                *a = b as f32 / q;
            }
        };
        ints(&net.ft_w, &mut w[FT_W..FT_B], QA as f32);
        ints(&net.ft_b, &mut w[FT_B..OUT_W], QA as f32);
        ints(&net.out_w, &mut w[OUT_W..OUT_B], QB as f32);
        for (a, &b) in w[OUT_B..].iter_mut().zip(&net.out_b) {
            *a = b as f32 / (QA * QB) as f32;
        }
        Model { w }
    }

    /// The quantised net, its output layer times `output_scale` percent.
    pub fn quantise(&self, source: &str, base: Base, output_scale: u32) -> Network {
        let q16 = |x: f32, s: f32| (x * s).round().clamp(-32767.0, 32767.0) as i16;
        let k = output_scale as f32 / 100.0;
        Network {
            ft_w: self.w[FT_W..FT_B]
                .iter()
                .map(|&x| q16(x, QA as f32))
                .collect(),
            ft_b: self.w[FT_B..OUT_W]
                .iter()
                .map(|&x| q16(x, QA as f32))
                .collect(),
            out_w: self.w[OUT_W..OUT_B]
                .iter()
                .map(|&x| q16(x, QB as f32 * k))
                .collect(),
            out_b: self.w[OUT_B..]
                .iter()
                .map(|&x| (x * (QA * QB) as f32 * k).round() as i32)
                .collect(),
            base,
            out_pct: 100,
            source: source.to_string(),
        }
    }
}

/// A small deterministic generator (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    fn uniform(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }

    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// Adam's state.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    step: u64,
}

impl Adam {
    fn new() -> Adam {
        Adam {
            m: vec![0.0; N_PARAMS],
            v: vec![0.0; N_PARAMS],
            step: 0,
        }
    }

    fn update(&mut self, w: &mut [f32], g: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-8;
        self.step += 1;
        let c1 = 1.0 - B1.powi(self.step.min(1 << 20) as i32);
        let c2 = 1.0 - B2.powi(self.step.min(1 << 20) as i32);
        let rate = lr * c2.sqrt() / c1;
        for i in 0..N_PARAMS {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            w[i] -= rate * self.m[i] / (self.v[i].sqrt() + EPS);
        }
        // Every weight stays where its quantised value fits.
        for x in &mut w[FT_W..OUT_B] {
            *x = x.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
        }
    }
}

const CKPT_MAGIC: &[u8; 8] = b"KBZCKPT2";
const CKPT_HEADER: usize = 28;

/// The checkpoint beside the net: `<out>.ckpt`.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    let mut s = out.as_os_str().to_owned();
    s.push(".ckpt");
    PathBuf::from(s)
}

fn save_checkpoint(
    path: &Path,
    epoch: usize,
    model: &Model,
    adam: &Adam,
    base: Base,
) -> Result<()> {
    let mut b = Vec::with_capacity(CKPT_HEADER + 12 * N_PARAMS);
    b.extend_from_slice(CKPT_MAGIC);
    b.extend_from_slice(&(HIDDEN as u32).to_le_bytes());
    b.extend_from_slice(&(epoch as u32).to_le_bytes());
    b.extend_from_slice(&adam.step.to_le_bytes());
    b.extend_from_slice(&(base as u32).to_le_bytes());
    for v in [&model.w, &adam.m, &adam.v] {
        for x in v.iter() {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    write_atomically(path, &b)
}

fn load_checkpoint(path: &Path, base: Base) -> Result<(usize, Model, Adam)> {
    let b = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    if b.len() != CKPT_HEADER + 12 * N_PARAMS || &b[0..8] != CKPT_MAGIC {
        bail!(
            "{}: not a checkpoint of this trainer ({} hidden, {} output buckets)",
            path.display(),
            HIDDEN,
            BUCKETS
        );
    }
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
    if u32_at(8) as usize != HIDDEN {
        bail!("{}: a checkpoint of {} hidden", path.display(), u32_at(8));
    }
    let theirs = Base::from_u32(u32_at(24));
    if theirs != Some(base) {
        bail!(
            "{}: a checkpoint of a net {}; this run trains a net {} (another --out, or \
             the same --on-handcrafted / --on-material)",
            path.display(),
            theirs.map_or("on an unknown base", Base::describe),
            base.describe()
        );
    }
    let epoch = u32_at(12) as usize;
    let step = u64::from_le_bytes(b[16..24].try_into().expect("8 bytes"));
    let floats = |k: usize| -> Vec<f32> {
        b[CKPT_HEADER + 4 * k * N_PARAMS..CKPT_HEADER + 4 * (k + 1) * N_PARAMS]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    Ok((
        epoch,
        Model { w: floats(0) },
        Adam {
            m: floats(1),
            v: floats(2),
            step,
        },
    ))
}

/// Writes `path` through a temporary file and a rename: never half a file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

/// The data: every whole, well-formed record of the files.
pub struct Data {
    bytes: Vec<u8>,
    /// Records skipped as malformed, and bytes of a partial record at a file's end.
    pub malformed: u64,
    pub partial_bytes: u64,
}

impl Data {
    pub fn load(paths: &[PathBuf]) -> Result<Data> {
        let mut d = Data {
            bytes: Vec::new(),
            malformed: 0,
            partial_bytes: 0,
        };
        for p in paths {
            let b = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
            d.partial_bytes += (b.len() % RECORD) as u64;
            for rec in b.chunks_exact(RECORD) {
                if decode(rec, false).is_some() {
                    d.bytes.extend_from_slice(rec);
                } else {
                    d.malformed += 1;
                }
            }
        }
        Ok(d)
    }

    pub fn len(&self) -> usize {
        self.bytes.len() / RECORD
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn record(&self, i: usize) -> &[u8] {
        &self.bytes[i * RECORD..(i + 1) * RECORD]
    }
}

/// The positions kept aside for validation (the same every run of the same data).
fn validation_split(n: usize, every: usize) -> (Vec<usize>, Vec<usize>) {
    let every = every.max(2);
    (0..n).partition(|i| (i * 2_654_435_761usize) % every != 0)
}

/// The loss the handcrafted evaluation (its static value as the net's output)
/// has on the validation positions: the mark a net should beat.
pub fn handcrafted_loss(opts: &TrainOptions, data: &Data) -> f64 {
    base_loss(opts, data, Base::Handcrafted)
}

/// The loss of a base's static value alone (the whole handcrafted evaluation, or
/// its material part) on the validation positions.
pub fn base_loss(opts: &TrainOptions, data: &Data, base: Base) -> f64 {
    let blend = blend(opts, data);
    validation_mean(opts, data, |ev, p, board| {
        blend.loss_grad(base_value(ev, base, board), p).0
    })
}

/// The loss a finished net (e.g. `--init`'s, before a run trains it further) has
/// on the validation positions, scored as training scores its own nets: the mark
/// that run must beat. The net's base is computed for each position.
pub fn net_loss(opts: &TrainOptions, data: &Data, net: &Network) -> f64 {
    let blend = blend(opts, data);
    let model = Model::from_network(net);
    validation_mean(opts, data, |ev, p, board| {
        if net.base != Base::Alone {
            p.base = base_value(ev, net.base, board);
        }
        model.loss(p, &blend)
    })
}

/// The mean of `loss` over the validation positions that decode (each given an
/// evaluator for its base, the position as training reads it, and its board).
fn validation_mean(
    opts: &TrainOptions,
    data: &Data,
    mut loss: impl FnMut(&mut crate::eval::Evaluator, &mut Pos, &crate::chess::Board) -> f32,
) -> f64 {
    let (_, val_ix) = validation_split(data.len(), opts.validation);
    let mut ev = crate::eval::Evaluator::new(1 << 20);
    let (mut sum, mut n) = (0f64, 0usize);
    for &i in &val_ix {
        let rec = data.record(i);
        let (Some(mut p), Ok(s)) = (
            decode(rec, false),
            crate::tools::datagen::Sample::decode(rec),
        ) else {
            continue;
        };
        sum += loss(&mut ev, &mut p, &s.board) as f64;
        n += 1;
    }
    sum / n.max(1) as f64
}

/// Refuses settings no run can use, naming the option.
pub fn check_options(opts: &TrainOptions) -> Result<()> {
    if !(0.0..=1.0).contains(&opts.lambda) {
        bail!("--lambda {}: between 0 and 1", opts.lambda);
    }
    if !(10..=200).contains(&opts.output_scale) {
        bail!(
            "--output-scale {}: between 10 and 200 (percent)",
            opts.output_scale
        );
    }
    if let Some(k) = opts.result_scale {
        if !(10.0..=10_000.0).contains(&k) {
            bail!("--result-scale {k}: between 10 and 10000 centipawns");
        }
    }
    Ok(())
}

/// Trains for `opts.epochs` epochs (going on from the checkpoint beside
/// `opts.out` if there is one); `report` gets each epoch's figures and `progress`
/// the positions done within an epoch. `stop` ends the run at the next batch,
/// after a checkpoint.
pub fn train(
    opts: &TrainOptions,
    data: &Data,
    stop: &AtomicBool,
    progress: &(dyn Fn(usize, usize) + Sync),
    report: &mut dyn FnMut(&EpochReport),
) -> Result<Network> {
    if data.len() < 2 {
        bail!("{} positions: too few to train on", data.len());
    }
    check_options(opts)?;
    let blend = blend(opts, data);
    let threads = opts.threads.max(1);
    let batch = opts.batch.max(1);
    let ckpt = checkpoint_path(&opts.out);
    let (first_epoch, mut model, mut adam) = if ckpt.exists() {
        if let Some(init) = &opts.init {
            bail!(
                "--init {}: {} holds a run already (--init starts a new one: another --out)",
                init.display(),
                ckpt.display()
            );
        }
        let (e, m, a) = load_checkpoint(&ckpt, opts.base)?;
        (e + 1, m, a)
    } else if let Some(init) = &opts.init {
        let spec = init.display().to_string();
        let net = Network::load(&spec).map_err(anyhow::Error::msg)?;
        if net.base != opts.base {
            bail!(
                "--init {spec}: a net {}; this run trains a net {} (the same \
                 --on-handcrafted / --on-material)",
                net.base.describe(),
                opts.base.describe()
            );
        }
        (1, Model::from_network(&net), Adam::new())
    } else {
        (1, Model::new(opts.seed), Adam::new())
    };
    // The same split every run of the same data (a resumed run validates on the
    // same positions).
    let (mut train_ix, val_ix) = validation_split(data.len(), opts.validation);
    if train_ix.is_empty() || val_ix.is_empty() {
        bail!("{} positions: too few to keep some aside", data.len());
    }
    let bases = match opts.base {
        Base::Alone => Vec::new(),
        base => base_values(data, base, threads),
    };
    let position = |i: usize, mirror: bool| {
        let mut p = decode(data.record(i), mirror)?;
        if let Some(b) = bases.get(i) {
            p.base = b[mirror as usize];
        }
        Some(p)
    };
    let val: Vec<Pos> = val_ix.iter().filter_map(|&i| position(i, false)).collect();
    let mut grads: Vec<Vec<f32>> = (0..threads).map(|_| vec![0f32; N_PARAMS]).collect();
    for epoch in first_epoch..=opts.epochs {
        let started = std::time::Instant::now();
        // Each epoch's order from the epoch's number alone, so a resumed run
        // sees the order the whole run would have.
        let mut rng = Rng(opts.seed.wrapping_mul(1_000_003).wrapping_add(epoch as u64));
        train_ix.sort_unstable();
        rng.shuffle(&mut train_ix);
        let lr = if (epoch as f32) > opts.lr_drop_at * opts.epochs as f32 {
            opts.lr * opts.lr_drop
        } else {
            opts.lr
        };
        let mut loss_sum = 0f64;
        let mut done = 0usize;
        for chunk in train_ix.chunks(batch) {
            if stop.load(Ordering::SeqCst) {
                // The epoch is not finished: the checkpoint of the last one stands.
                return Ok(model.quantise(
                    &opts.out.display().to_string(),
                    opts.base,
                    opts.output_scale,
                ));
            }
            let per = chunk.len().div_ceil(threads);
            let model_ref = &model;
            let position = &position;
            let blend = &blend;
            let losses: Vec<f64> = std::thread::scope(|s| {
                let hs: Vec<_> = grads
                    .iter_mut()
                    .zip(chunk.chunks(per))
                    .map(|(g, part)| {
                        s.spawn(move || {
                            g.iter_mut().for_each(|x| *x = 0.0);
                            let mut l = 0f64;
                            for &i in part {
                                // Half the positions mirrored, a different half each epoch.
                                let mirror = (i as u64 ^ epoch as u64)
                                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                                    >> 63
                                    == 1;
                                if let Some(p) = position(i, mirror) {
                                    l += model_ref.backward(&p, blend, g) as f64;
                                }
                            }
                            l
                        })
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().expect("training thread"))
                    .collect()
            });
            let parts = chunk.chunks(per).count();
            let (first, rest) = grads.split_at_mut(1);
            for g in rest.iter().take(parts - 1) {
                for (a, b) in first[0].iter_mut().zip(g.iter()) {
                    *a += b;
                }
            }
            let scale = 1.0 / chunk.len() as f32;
            first[0].iter_mut().for_each(|x| *x *= scale);
            adam.update(&mut model.w, &first[0], lr);
            loss_sum += losses.iter().sum::<f64>();
            done += chunk.len();
            progress(done, train_ix.len());
        }
        let net = model.quantise(
            &opts.out.display().to_string(),
            opts.base,
            opts.output_scale,
        );
        let (mut vloss, mut qdiff) = (0f64, 0f64);
        for p in &val {
            vloss += model.loss(p, &blend) as f64;
            let q = net.output(&accumulate(&net, p), side(p.stm), p.n as u32);
            let f = (model.eval_cp(p) * opts.output_scale as f32 / 100.0).clamp(
                -(crate::eval::MAX_EVAL as f32),
                crate::eval::MAX_EVAL as f32,
            );
            qdiff += (q as f64 - f as f64).abs();
        }
        save_checkpoint(&ckpt, epoch, &model, &adam, opts.base)?;
        write_atomically(&opts.out, &net.to_bytes())?;
        report(&EpochReport {
            epoch,
            train_loss: loss_sum / done.max(1) as f64,
            validation_loss: vloss / val.len().max(1) as f64,
            quantisation_cp: qdiff / val.len().max(1) as f64,
            seconds: started.elapsed().as_secs_f64(),
            positions: done,
        });
    }
    // Written again at the end, so a finished run given another --output-scale
    // rewrites its net from the checkpoint without training.
    let net = model.quantise(
        &opts.out.display().to_string(),
        opts.base,
        opts.output_scale,
    );
    write_atomically(&opts.out, &net.to_bytes())?;
    Ok(net)
}

/// The static value of `base` (the whole handcrafted evaluation or its material
/// part) of every record, as it is and mirrored a-h (the side to move's view, in
/// the net's units: / `SCALE`); a record that does not decode gets 0 (`decode`
/// skips it anyway).
fn base_values(data: &Data, base: Base, threads: usize) -> Vec<[f32; 2]> {
    let mut out = vec![[0f32; 2]; data.len()];
    let per = data.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        for (k, part) in out.chunks_mut(per).enumerate() {
            s.spawn(move || {
                let mut ev = crate::eval::Evaluator::new(1 << 20);
                for (j, b) in part.iter_mut().enumerate() {
                    let Ok(sample) =
                        crate::tools::datagen::Sample::decode(data.record(k * per + j))
                    else {
                        continue;
                    };
                    b[0] = base_value(&mut ev, base, &sample.board);
                    if let Some(m) = mirrored(&sample.board) {
                        b[1] = base_value(&mut ev, base, &m);
                    }
                }
            });
        }
    });
    out
}

/// The static value of `base` (`Alone` reads as the whole handcrafted
/// evaluation, the mark a net alone must beat) for the side to move, in the net's
/// units (/ `SCALE`).
fn base_value(ev: &mut crate::eval::Evaluator, base: Base, board: &crate::chess::Board) -> f32 {
    let v = match base {
        Base::Material => ev.material_base(board),
        Base::Alone | Base::Handcrafted => ev.evaluate(board),
    };
    v as f32 / nnue::SCALE as f32
}

/// `board` mirrored from the a-file to the h-file (a record's position: no
/// castling rights, no en passant square).
fn mirrored(board: &crate::chess::Board) -> Option<crate::chess::Board> {
    let fen = board.to_fen();
    let mut fields = fen.split(' ');
    let placement: Vec<String> = fields
        .next()?
        .split('/')
        .map(|rank| rank.chars().rev().collect())
        .collect();
    let stm = fields.next()?;
    crate::chess::Board::from_fen(&format!("{} {stm} - - 0 1", placement.join("/"))).ok()
}

fn side(stm: usize) -> crate::chess::Color {
    if stm == 0 {
        crate::chess::Color::White
    } else {
        crate::chess::Color::Black
    }
}

/// The quantised accumulator of a decoded position.
fn accumulate(net: &Network, p: &Pos) -> nnue::Accumulator {
    net.accumulate([0, 1].map(|persp| p.feats[persp][..p.n].iter().map(|&f| f as usize)))
}

#[cfg(test)]
mod tests;
