//! The learned evaluation: a small efficiently-updatable network of our own,
//! trained by `kibitzer train` on the engine's self-play positions
//! (`kibitzer datagen`).
//!
//! Shape: 768 inputs per perspective (12 pieces x 64 squares, seen from that side:
//! "ours" first, squares flipped for Black), one shared layer of [`HIDDEN`]
//! neurons (the accumulator, updated move by move), a clipped ReLU, and one output
//! from the side to move's half followed by the other side's half, with weights of
//! its own for each of [`BUCKETS`] bands of material (the pieces on the board, kings
//! and pawns included: 2-5, 6-9, ... 30-32), so an ending is not judged by the
//! middle game's weights. Integer
//! arithmetic only: the accumulator in `i16` (weights x [`QA`]), the output in
//! `i32` (output weights x [`QB`]), so every CPU and every SIMD path gives the same
//! number, and the same bench signature.
//!
//! The net file (`.knn`), little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0-7 | magic `KBZNET03` |
//! | 8-11 | hidden size (u32, must be [`HIDDEN`]) |
//! | 12-15 | output scale (u32, [`SCALE`]) |
//! | 16-19 | QA (u32), 20-23 QB (u32), 24-27 output buckets (u32, [`BUCKETS`]) |
//! | 28-31 | base (u32, [`Base`]): 0 the net alone, 1 on top of the handcrafted evaluation, 2 on top of its material, piece squares and pawns |
//! | then | feature weights, i16, 768 x hidden, by feature then neuron |
//! | then | feature biases, i16, hidden |
//! | then | output weights, i16, buckets x 2 x hidden (side to move's half first) |
//! | then | output biases, i32 (x QA x QB), one per bucket |
//! | last 8 | FNV-1a 64 of everything before |

mod accumulator;
pub mod simd;

pub use accumulator::{AccumulatorStack, Delta};

use crate::chess::{Board, Color};
use std::path::Path;
use std::sync::Arc;

/// Inputs per perspective.
pub const INPUTS: usize = 768;
/// Neurons in the accumulator (per perspective).
pub const HIDDEN: usize = 256;
/// Centipawns per unit of the float output (the trainer's sigmoid scale too).
pub const SCALE: i32 = 400;
/// Quantisation of the feature weights and the accumulator.
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 256;
/// Output buckets, by the number of pieces on the board ([`bucket`]).
pub const BUCKETS: usize = 8;
/// The largest magnitude a float feature or output weight may take, so its
/// quantised value fits (the trainer clips to this).
pub const WEIGHT_CLIP: f32 = 1.98;

/// The percentages `evaluation.netscale` (and [`Network::scaled`]) accept.
pub const SCALE_RANGE: std::ops::RangeInclusive<i64> = 10..=200;

/// The name of the net built into the program: `evaluation.net=builtin`.
pub const BUILTIN: &str = "builtin";
/// The built-in net: the committed `nets/kibitzer.knn`, read at build time.
static BUILTIN_NET: &[u8] = include_bytes!("../../nets/kibitzer.knn");

const MAGIC: &[u8; 8] = b"KBZNET03";
/// Earlier formats, read no more: one output for all material (01), no base field (02).
const MAGIC_OLD: [(&[u8; 8], &str); 2] = [
    (b"KBZNET01", "one output bucket"),
    (b"KBZNET02", "no base field"),
];
const HEADER: usize = 32;

/// Bytes of a net file.
pub const FILE_BYTES: usize =
    HEADER + 2 * (INPUTS * HIDDEN + HIDDEN + BUCKETS * 2 * HIDDEN) + 4 * BUCKETS + 8;

/// The output bucket of a position with `pieces` pieces on the board (2-32).
#[inline(always)]
pub fn bucket(pieces: u32) -> usize {
    (pieces.saturating_sub(2) as usize / 4).min(BUCKETS - 1)
}

/// The input index of `piece` (0-11: White pawn to king, then Black) on `sq`
/// (0 = a1) as `persp` sees it: its own pieces first, the board flipped for Black.
#[inline(always)]
pub fn feature(persp: Color, piece: usize, sq: usize) -> usize {
    match persp {
        Color::White => piece * 64 + sq,
        Color::Black => ((piece + 6) % 12) * 64 + (sq ^ 56),
    }
}

/// The accumulator: one half per perspective (White's first).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    pub v: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            v: [[0; HIDDEN]; 2],
        }
    }
}

/// What a net's output is added to (the net file's base field): the net learned
/// the difference between the search's scores and it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    /// Nothing: the net is the evaluation.
    Alone = 0,
    /// The whole handcrafted evaluation (with the knobs).
    Handcrafted = 1,
    /// The handcrafted material, piece-square values, pawn structure and tempo
    /// (`Evaluator::material_base`), cheap beside the whole evaluation.
    Material = 2,
}

impl Base {
    pub fn from_u32(v: u32) -> Option<Base> {
        match v {
            0 => Some(Base::Alone),
            1 => Some(Base::Handcrafted),
            2 => Some(Base::Material),
            _ => None,
        }
    }

    /// What a net on this base is, in words ("a net {describe}").
    pub fn describe(self) -> &'static str {
        match self {
            Base::Alone => "alone",
            Base::Handcrafted => "on the handcrafted evaluation",
            Base::Material => "on the handcrafted material, piece squares and pawns",
        }
    }
}

/// A quantised network.
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// `INPUTS x HIDDEN`, by feature.
    pub ft_w: Vec<i16>,
    pub ft_b: Vec<i16>,
    /// `BUCKETS x 2 x HIDDEN`: per bucket the side to move's half, then the other's.
    pub out_w: Vec<i16>,
    /// One per bucket.
    pub out_b: Vec<i32>,
    /// What the net's value is added to (what it was trained on top of).
    pub base: Base,
    /// The output times this percent (`evaluation.netscale`; 100 as read from a
    /// file, which does not hold it): exact, applied to the output's sum.
    pub out_pct: i32,
    /// Where it came from (its path), for `score` and the logs.
    pub source: String,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({}, {} hidden)", self.source, HIDDEN)
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Network {
    /// Reads a net file's bytes, or says what is wrong with them.
    pub fn from_bytes(bytes: &[u8], source: &str) -> Result<Network, String> {
        for (old, what) in MAGIC_OLD {
            if bytes.len() >= 8 && &bytes[0..8] == old {
                return Err(format!(
                    "{source}: a net of an earlier format ({}, {what}); this program reads \
                     {} (train it again)",
                    String::from_utf8_lossy(old),
                    String::from_utf8_lossy(MAGIC)
                ));
            }
        }
        if bytes.len() < HEADER || &bytes[0..8] != MAGIC {
            return Err(format!(
                "{source}: not a kibitzer net file (no {} header)",
                String::from_utf8_lossy(MAGIC)
            ));
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let (hidden, scale, qa, qb, buckets, base) = (
            u32_at(8),
            u32_at(12),
            u32_at(16),
            u32_at(20),
            u32_at(24),
            u32_at(28),
        );
        if hidden as usize != HIDDEN
            || scale as i32 != SCALE
            || qa as i32 != QA
            || qb as i32 != QB
            || buckets as usize != BUCKETS
        {
            return Err(format!(
                "{source}: a net of {hidden} hidden, scale {scale}, QA {qa}, QB {qb}, \
                 {buckets} buckets; this program reads {HIDDEN}, {SCALE}, {QA}, {QB}, {BUCKETS}"
            ));
        }
        let Some(base) = Base::from_u32(base) else {
            return Err(format!(
                "{source}: base {base} (0 the net alone, 1 on top of the handcrafted \
                 evaluation, 2 on top of its material, piece squares and pawns)"
            ));
        };
        if bytes.len() != FILE_BYTES {
            return Err(format!(
                "{source}: {} bytes, a net file is {FILE_BYTES}",
                bytes.len()
            ));
        }
        let body = FILE_BYTES - 8;
        let sum = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
        if fnv1a(&bytes[..body]) != sum {
            return Err(format!("{source}: checksum mismatch (a damaged net file)"));
        }
        let mut at = HEADER;
        let mut i16s = |n: usize| -> Vec<i16> {
            let v = bytes[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        let ft_w = i16s(INPUTS * HIDDEN);
        let ft_b = i16s(HIDDEN);
        let out_w = i16s(BUCKETS * 2 * HIDDEN);
        let out_b = bytes[at..at + 4 * BUCKETS]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        let net = Network {
            ft_w,
            ft_b,
            out_w,
            out_b,
            base,
            out_pct: 100,
            source: source.to_string(),
        };
        net.check_range()?;
        Ok(net)
    }

    /// The accumulator cannot overflow: with 32 pieces on the board, no neuron's sum
    /// of bias and weights leaves `i16`.
    fn check_range(&self) -> Result<(), String> {
        for n in 0..HIDDEN {
            let mut hi: Vec<i32> = (0..INPUTS)
                .map(|f| (self.ft_w[f * HIDDEN + n] as i32).abs())
                .collect();
            hi.sort_unstable_by(|a, b| b.cmp(a));
            let worst: i32 = hi.iter().take(32).sum::<i32>() + (self.ft_b[n] as i32).abs();
            if worst > i16::MAX as i32 {
                return Err(format!(
                    "{}: neuron {n} could overflow the accumulator ({worst})",
                    self.source
                ));
            }
        }
        Ok(())
    }

    /// The bytes of its net file.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(FILE_BYTES);
        out.extend_from_slice(MAGIC);
        for v in [
            HIDDEN as u32,
            SCALE as u32,
            QA as u32,
            QB as u32,
            BUCKETS as u32,
            self.base as u32,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in self.ft_w.iter().chain(&self.ft_b).chain(&self.out_w) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for b in &self.out_b {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Loads a net file, or the net built into the program (`builtin`).
    pub fn load(spec: &str) -> Result<Arc<Network>, String> {
        if spec.eq_ignore_ascii_case(BUILTIN) {
            return Network::from_bytes(BUILTIN_NET, "builtin (nets/kibitzer.knn of this build)")
                .map(Arc::new);
        }
        let bytes = std::fs::read(Path::new(spec))
            .map_err(|e| format!("evaluation.net: cannot read {spec}: {e}"))?;
        Network::from_bytes(&bytes, spec).map(Arc::new)
    }

    /// The net `evaluation.net` names, its output layer at `scale` percent
    /// (`evaluation.netscale`, see [`Network::scaled`]): `None` for the handcrafted
    /// evaluation (empty or `off`), else the net (a file, or `builtin`), read once
    /// and kept while the file stays the same (its size and modification time) and
    /// the scale too.
    pub fn cached(spec: &str, scale: i64) -> Result<Option<Arc<Network>>, String> {
        use std::sync::Mutex;
        type Key = (String, Option<(u64, std::time::SystemTime)>, i64);
        static CACHE: Mutex<Option<(Key, Arc<Network>)>> = Mutex::new(None);
        let spec = spec.trim();
        if spec.is_empty() || spec.eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        // The built-in net never changes; a file of that name is not it.
        let stamp = if spec.eq_ignore_ascii_case(BUILTIN) {
            None
        } else {
            std::fs::metadata(spec)
                .ok()
                .and_then(|m| Some((m.len(), m.modified().ok()?)))
        };
        let key = (spec.to_string(), stamp, scale);
        let mut c = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((k, net)) = c.as_ref() {
            if *k == key {
                return Ok(Some(net.clone()));
            }
        }
        let mut net = Network::load(spec)?;
        if scale != 100 {
            net = Arc::new(net.scaled(scale)?);
        }
        *c = Some((key, net.clone()));
        Ok(Some(net))
    }

    /// This net with its output times `pct` percent: its value shrunk or grown
    /// (for a net on the handcrafted evaluation, its corrections: they measured to
    /// play better shrunk). 10-200.
    pub fn scaled(&self, pct: i64) -> Result<Network, String> {
        if !(SCALE_RANGE).contains(&pct) {
            return Err(format!(
                "evaluation.netscale {pct}: between {} and {} (percent)",
                SCALE_RANGE.start(),
                SCALE_RANGE.end()
            ));
        }
        let mut net = self.clone();
        net.out_pct = pct as i32;
        if pct != 100 {
            net.source = format!("{} at {pct}%", self.source);
        }
        Ok(net)
    }

    /// The accumulator of the inputs each side sees (White's first), from scratch.
    pub fn accumulate<I: IntoIterator<Item = usize>>(&self, inputs: [I; 2]) -> Accumulator {
        let mut acc = Accumulator::default();
        for (half, feats) in acc.v.iter_mut().zip(inputs) {
            half.copy_from_slice(&self.ft_b);
            for f in feats {
                simd::add(half, &self.ft_w[f * HIDDEN..(f + 1) * HIDDEN]);
            }
        }
        acc
    }

    /// The accumulator of `board`, from scratch.
    pub fn refresh(&self, board: &Board) -> Accumulator {
        let inputs = |persp: Color| {
            board.occupied().map(move |sq| {
                let p = board.piece_at(sq).expect("occupied").index();
                feature(persp, p, sq.index())
            })
        };
        self.accumulate([inputs(Color::White), inputs(Color::Black)])
    }

    /// The evaluation in centipawns for the side to move, from an accumulator, with
    /// `pieces` on the board.
    #[inline]
    pub fn output(&self, acc: &Accumulator, stm: Color, pieces: u32) -> i32 {
        let (us, them) = match stm {
            Color::White => (&acc.v[0], &acc.v[1]),
            Color::Black => (&acc.v[1], &acc.v[0]),
        };
        let b = bucket(pieces);
        let w = &self.out_w[b * 2 * HIDDEN..(b + 1) * 2 * HIDDEN];
        let sum = simd::crelu_dot(us, &w[..HIDDEN]) + simd::crelu_dot(them, &w[HIDDEN..]);
        let out = (sum as i64 + self.out_b[b] as i64) * (SCALE * self.out_pct) as i64
            / (100 * QA * QB) as i64;
        out.clamp(
            -(crate::eval::MAX_EVAL as i64),
            crate::eval::MAX_EVAL as i64,
        ) as i32
    }

    /// The evaluation of `board` for the side to move, from scratch.
    pub fn evaluate(&self, board: &Board) -> i32 {
        self.output(
            &self.refresh(board),
            board.side_to_move(),
            board.occupied().count(),
        )
    }
}

/// A net's output made into the evaluation the search uses (the side to move's
/// view): the one place that says how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Composed {
    /// The net's output, scaled in the drawish endings if the net plays alone.
    pub net: i32,
    /// What is added to it: the handcrafted evaluation (with its knobs) for a net
    /// on the handcrafted evaluation, else the knobs' share of the handcrafted terms
    /// (0 at the default knobs).
    pub added: i32,
    /// Their sum, within the evaluation's bounds.
    pub value: i32,
}

/// Composes the net's output `raw` for `board` (side to move's view) with what it
/// was trained on top of: alone, scaled as the handcrafted evaluation scales its
/// drawish endings, plus the knobs' share; on the handcrafted evaluation, plus
/// that evaluation (knobs and all); on the handcrafted material, piece squares and
/// pawns, plus those, the sum scaled for drawish endings, plus the knobs' share.
#[inline]
pub fn compose(base: Base, raw: i32, ev: &mut crate::eval::Evaluator, board: &Board) -> Composed {
    let (net, added) = match base {
        Base::Handcrafted => (raw, ev.evaluate(board)),
        Base::Alone => (
            crate::eval::Evaluator::scale_net(board, raw),
            ev.knob_deviation(board),
        ),
        Base::Material => {
            let sum = crate::eval::Evaluator::scale_net(board, raw + ev.material_base(board));
            (raw, sum - raw + ev.knob_deviation(board))
        }
    };
    Composed {
        net,
        added,
        value: (net + added).clamp(-crate::eval::MAX_EVAL, crate::eval::MAX_EVAL),
    }
}

/// The lines `score` adds under the handcrafted table when a net plays: the net's
/// value, what is added to it, and their sum (what the search uses), in pawns from
/// White's view.
pub fn score_lines(net: &Network, ev: &mut crate::eval::Evaluator, board: &Board) -> String {
    let white = |v: i32| match board.side_to_move() {
        Color::White => v,
        Color::Black => -v,
    };
    let pawns = |v: i32| format!("{:+.2}", v as f64 / 100.0);
    let raw = net.evaluate(board);
    let c = compose(net.base, raw, ev, board);
    let scaled = if c.net == raw {
        String::new()
    } else {
        format!("scaled for a drawish ending: {}\n", pawns(white(c.net)))
    };
    let (kind, added, sum) = match net.base {
        Base::Handcrafted => (
            ", on the handcrafted evaluation",
            "handcrafted evaluation (with the knobs)",
            "net + handcrafted",
        ),
        Base::Material => (
            ", on the handcrafted material, piece squares and pawns",
            "handcrafted material, piece squares, pawns (the sum scaled for drawish endings) and the knobs' share",
            "net + those",
        ),
        Base::Alone => ("", "knobs' share of the handcrafted terms", "net + knobs"),
    };
    format!(
        "net {} ({HIDDEN} hidden{kind}): {}\n{scaled}{added}: {}\nevaluation ({sum}, White's view): {}\n",
        net.source,
        pawns(white(raw)),
        pawns(white(c.added)),
        pawns(white(c.value))
    )
}

#[cfg(test)]
mod tests;
