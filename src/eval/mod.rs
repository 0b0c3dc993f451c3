//! Handcrafted, tapered evaluation in Crafty's spirit. It owns: material and
//! piece-square tables; pawn structure (doubled, isolated, backward, connected,
//! candidate and passed pawns) cached with the king shelter in a per-thread pawn/king
//! hash (`hashp=`); passed pawns per node (king support, free path, connected
//! passers, rooks behind them, unstoppable pawns in pawn endings); king safety
//! (shelter, storm, attack units on the king zone, safe checks and the squares they
//! come from, weak zone squares, a pawnless flank) and tropism; mobility and space;
//! bishop pair and long diagonals; minors behind pawns; knights and rooks by their
//! own pawn count; rooks on open files, the seventh and the queen's file; outposts;
//! blocked pawns; threats (by pawns, minors, rooks, the king, pawn pushes; hanging
//! pieces); the king's distance to the pawns; tempo; known drawish endings scaled
//! towards a draw. Crafty's knobs (`asymmetry`, `bscale`, `kscale`,
//! `tropism`, `pscale`, `ppscale`) scale their terms, and `breakdown` gives the
//! per-term table the `score` command prints.
//!
//! Integer arithmetic only, so scores (and the bench signature) do not depend on the
//! CPU; no allocation in `evaluate`. It leaves the search, draws by rule and all I/O to
//! others. Every term is computed for each side from that side's point of view and
//! the two are subtracted, so the evaluation is exactly colour-symmetric.

mod breakdown;
mod constants;
mod endgame;
pub mod params;
mod pawns;
mod psqt;
mod score;
mod tables;
pub mod trace;
pub mod weights;

#[cfg(test)]
pub(crate) mod tests;

pub use breakdown::{Breakdown, Term, TermRow, NUM_TERMS, TERM_NAMES};
pub use constants::{PHASE_MAX, PIECE_VALUES};
pub use endgame::SCALE_MAX;
pub use score::{s, S};

use crate::chess::attacks::{
    bishop_attacks, king_attacks, knight_attacks, pawn_attacks_bb, queen_attacks, rook_attacks,
};
use crate::chess::{Bitboard, Board, CastleRights, Color, PieceType};
use constants::*;
use endgame::Material;
use params::{ix, PSQT_IX, TROPISM_IX};
use pawns::PawnTable;
use psqt::psqt;
use tables::*;
use trace::{EvalTrace, NoTrace, Tracer};
use weights::*;

/// Tropism tables by piece type (pawn and king have none).
const TROPISM: [[S; 8]; 6] = [
    [S::ZERO; 8],
    TROPISM_KNIGHT,
    TROPISM_BISHOP,
    TROPISM_ROOK,
    TROPISM_QUEEN,
    [S::ZERO; 8],
];

/// The largest value `evaluate` returns in either direction (well inside mate scores).
pub const MAX_EVAL: i32 = 10_000;

/// Crafty's evaluation knobs, in percent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EvalParams {
    /// Scales the opponent's king safety (as seen from the engine) by +-%.
    pub asymmetry: i32,
    /// Blocked pawns (centre pawns and bad bishops), %.
    pub bscale: i32,
    /// King safety, %.
    pub kscale: i32,
    /// King tropism, %.
    pub tropism: i32,
    /// Pawn structure, %.
    pub pscale: i32,
    /// Passed pawns, %.
    pub ppscale: i32,
}

impl Default for EvalParams {
    fn default() -> Self {
        EvalParams {
            asymmetry: 0,
            bscale: 100,
            kscale: 100,
            tropism: 100,
            pscale: 100,
            ppscale: 100,
        }
    }
}

impl EvalParams {
    /// The knob names `set` and `get` accept.
    pub const NAMES: [&'static str; 6] = [
        "asymmetry",
        "bscale",
        "kscale",
        "tropism",
        "pscale",
        "ppscale",
    ];
    /// Accepted range of `asymmetry` (percent).
    pub const ASYMMETRY_RANGE: std::ops::RangeInclusive<i32> = -100..=100;
    /// Accepted range of the other knobs (percent).
    pub const SCALE_RANGE: std::ops::RangeInclusive<i32> = 0..=1000;

    /// The accepted range of a knob, or `None` for an unknown name.
    pub fn range(name: &str) -> Option<std::ops::RangeInclusive<i32>> {
        match name {
            "asymmetry" => Some(Self::ASYMMETRY_RANGE),
            "bscale" | "kscale" | "tropism" | "pscale" | "ppscale" => Some(Self::SCALE_RANGE),
            _ => None,
        }
    }

    /// Sets a knob by name (`evaluation <name> <value>`).
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), String> {
        let range = Self::range(name).ok_or_else(|| {
            format!(
                "unknown evaluation option '{name}' (valid: {})",
                Self::NAMES.join(", ")
            )
        })?;
        if !range.contains(&value) {
            return Err(format!(
                "evaluation {name} {value}: out of range ({}..={} percent)",
                range.start(),
                range.end()
            ));
        }
        *self.slot(name).expect("name checked above") = value;
        Ok(())
    }

    /// A knob's value by name.
    pub fn get(&self, name: &str) -> Option<i32> {
        Some(match name {
            "asymmetry" => self.asymmetry,
            "bscale" => self.bscale,
            "kscale" => self.kscale,
            "tropism" => self.tropism,
            "pscale" => self.pscale,
            "ppscale" => self.ppscale,
            _ => return None,
        })
    }

    fn slot(&mut self, name: &str) -> Option<&mut i32> {
        Some(match name {
            "asymmetry" => &mut self.asymmetry,
            "bscale" => &mut self.bscale,
            "kscale" => &mut self.kscale,
            "tropism" => &mut self.tropism,
            "pscale" => &mut self.pscale,
            "ppscale" => &mut self.ppscale,
            _ => return None,
        })
    }

    /// The king-danger table as the knobs leave it (what `evaluation` prints):
    /// centipawns by attack units, for the engine's own king and the opponent's.
    pub fn king_safety_table(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let own = self.kscale;
        let opp = self.kscale * (100 + self.asymmetry) / 100;
        for (label, pct) in [("own king", own), ("opponent's king", opp)] {
            let _ = writeln!(out, "king safety, {label} ({pct}%):");
            for row in KING_DANGER.chunks(16) {
                let line: Vec<String> = row
                    .iter()
                    .map(|&v| format!("{:4}", v.mg * pct / 100))
                    .collect();
                let _ = writeln!(out, " {}", line.join(""));
            }
        }
        out
    }
}

/// The evaluation of one search thread: the knobs and a pawn/king hash.
pub struct Evaluator {
    params: EvalParams,
    engine_color: Option<Color>,
    pawns: PawnTable,
    /// The same evaluation at the default knobs (made the first time a net needs
    /// the knobs' share: see [`Evaluator::knob_deviation`]).
    default_twin: Option<Box<Evaluator>>,
}

/// What one evaluation found besides the per-term values.
#[derive(Clone, Copy, Debug)]
struct Summary {
    phase: i32,
    total: S,
    tapered: i32,
    scale: i32,
    white: i32,
}

type Terms = [[S; 2]; NUM_TERMS];

#[inline(always)]
fn add(t: &mut Terms, term: Term, c: Color, v: S) {
    t[term as usize][c.index()] += v;
}

impl Evaluator {
    /// An evaluator whose pawn hash takes about `pawn_hash_bytes` (at least a small
    /// minimum, rounded down to a power of two entries).
    pub fn new(pawn_hash_bytes: usize) -> Evaluator {
        Evaluator {
            params: EvalParams::default(),
            engine_color: None,
            pawns: PawnTable::new(pawn_hash_bytes),
            default_twin: None,
        }
    }

    pub fn set_params(&mut self, p: EvalParams) {
        self.params = p;
    }

    pub fn params(&self) -> &EvalParams {
        &self.params
    }

    /// The side the engine plays; `asymmetry` scales the other side's king safety.
    /// `None` (the default) keeps the evaluation symmetric.
    pub fn set_engine_color(&mut self, c: Option<Color>) {
        self.engine_color = c;
    }

    pub fn engine_color(&self) -> Option<Color> {
        self.engine_color
    }

    pub fn resize_pawn_hash(&mut self, bytes: usize) {
        self.pawns = PawnTable::new(bytes);
    }

    /// Entries in the pawn hash.
    pub fn pawn_hash_entries(&self) -> usize {
        self.pawns.len()
    }

    /// Empties the pawn hash.
    pub fn clear(&mut self) {
        self.pawns.clear();
    }

    /// Static evaluation in centipawns from the side to move's point of view.
    ///
    /// The default build targets every x86-64 CPU, where counting a bitboard's
    /// squares (mobility, king attacks, threats) takes a dozen shifts and masks. On
    /// CPUs with the `popcnt` instruction (nearly all since 2008) the same code runs
    /// compiled with it, chosen here at run time by the feature check the standard
    /// library caches. The result is the same either way, so the search and the
    /// bench signature are the same on every CPU.
    #[inline]
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has just been found to support `popcnt`.
            return unsafe { self.evaluate_popcnt(board) };
        }
        self.evaluate_portable(board)
    }

    /// [`Self::evaluate`] compiled for CPUs with `popcnt`.
    ///
    /// # Safety
    /// Only on a CPU that supports `popcnt`.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    #[target_feature(enable = "popcnt")]
    unsafe fn evaluate_popcnt(&mut self, board: &Board) -> i32 {
        self.evaluate_portable(board)
    }

    #[inline(always)]
    fn evaluate_portable(&mut self, board: &Board) -> i32 {
        let mut t = [[S::ZERO; 2]; NUM_TERMS];
        let sum = self.compute(board, &mut t, &mut NoTrace);
        match board.side_to_move() {
            Color::White => sum.white,
            Color::Black => -sum.white,
        }
    }

    /// What the knobs add to a learned evaluation: this evaluation with the knobs as
    /// set less the same at their defaults, for the side to move. Each term the knob
    /// scales moves by (knob - 100) / 100 of itself (`asymmetry` by its share of the
    /// opponent's king safety), so the defaults give 0 and the net plays alone.
    pub fn knob_deviation(&mut self, board: &Board) -> i32 {
        if self.params == EvalParams::default() {
            return 0;
        }
        let engine_color = self.engine_color;
        let twin = self
            .default_twin
            .get_or_insert_with(|| Box::new(Evaluator::new(1 << 16)));
        twin.engine_color = engine_color;
        let base = twin.evaluate(board);
        self.evaluate(board) - base
    }

    /// The cheap part of this evaluation a net can be trained on top of
    /// (`nnue::Base::Material`): material, piece-square values, the hashed pawn
    /// structure and the side to move's tempo, tapered by phase, at the default
    /// knobs and without the drawish-ending scale (the sum with the net is scaled
    /// by [`Self::scale_net`]); the side to move's view.
    pub fn material_base(&mut self, board: &Board) -> i32 {
        let entry = self.pawns.probe(board);
        let mut total = S::ZERO;
        let mut phase = 0;
        for c in Color::ALL {
            let mut side = entry.score[c.index()];
            for kind in PieceType::ALL {
                for sq in board.pieces(c, kind) {
                    side += psqt(c, kind.index(), sq);
                }
                let n = board.pieces(c, kind).count() as i32;
                side += MATERIAL[kind.index()] * n;
                phase += PHASE_WEIGHT[kind.index()] * n;
            }
            total = if c == Color::White {
                total + side
            } else {
                total - side
            };
        }
        let phase = phase.min(PHASE_MAX);
        let white = total.taper(phase, PHASE_MAX);
        let stm = match board.side_to_move() {
            Color::White => white,
            Color::Black => -white,
        };
        (stm + TEMPO.taper(phase, PHASE_MAX)).clamp(-MAX_EVAL, MAX_EVAL)
    }

    /// A net's value `v` (for the side to move) scaled down as the handcrafted
    /// evaluation scales its own in the endings `endgame::scale` knows to be drawish
    /// (no mating material, a wrong rook pawn, opposite-coloured bishops...): our
    /// games reach them too rarely for a net to learn them from its data.
    pub fn scale_net(board: &Board, v: i32) -> i32 {
        if v == 0 {
            return 0;
        }
        let white_ahead = (v > 0) == (board.side_to_move() == Color::White);
        let strong = if white_ahead {
            Color::White
        } else {
            Color::Black
        };
        // `endgame::scale` is below its maximum only where the strong side has no
        // pawns or rook pawns only, each side one bishop, or one pawn against none:
        // the middle game skips the material count.
        let sp = board.pieces(strong, PieceType::Pawn);
        let one_bishop = |c: Color| board.pieces(c, PieceType::Bishop).count() == 1;
        let a_or_h = |f: usize| (sp & !file_bb(f)).is_empty();
        if !(a_or_h(0)
            || a_or_h(7)
            || (one_bishop(Color::White) && one_bishop(Color::Black))
            || (sp.count() == 1 && board.pieces(!strong, PieceType::Pawn).is_empty()))
        {
            return v;
        }
        let mat = [
            Material::of(board, Color::White),
            Material::of(board, Color::Black),
        ];
        v * endgame::scale(board, strong, &mat) / SCALE_MAX
    }

    /// The evaluation term by term (for `score`).
    pub fn breakdown(&mut self, board: &Board) -> Breakdown {
        let mut t = [[S::ZERO; 2]; NUM_TERMS];
        let sum = self.compute(board, &mut t, &mut NoTrace);
        Breakdown::new(
            &t,
            sum.phase,
            sum.total,
            sum.tapered,
            sum.scale,
            sum.white,
            board.side_to_move(),
            self.params,
        )
    }

    /// The tuner's trace of the position (see `trace.rs`): which weights fired how
    /// often, with the phase and scale. Exact for the default knobs.
    pub fn trace(&mut self, board: &Board) -> EvalTrace {
        let mut t = [[S::ZERO; 2]; NUM_TERMS];
        let mut tr = EvalTrace::default();
        let sum = self.compute(board, &mut t, &mut tr);
        tr.phase = sum.phase;
        tr.scale = sum.scale;
        tr
    }

    /// Fills `t` with every term (knobs applied) for both sides, each from its own
    /// point of view, and returns the combined score from White's point of view.
    /// Every weight used is reported to `tr`.
    #[inline(always)]
    fn compute<T: Tracer>(&mut self, board: &Board, t: &mut Terms, tr: &mut T) -> Summary {
        use PieceType::*;
        let entry = self.pawns.probe(board);
        if T::ON {
            // The pawn hash keeps scores only: recompute its weights for the trace.
            let w = board.pieces(Color::White, Pawn);
            let b = board.pieces(Color::Black, Pawn);
            for (c, us, them) in [(Color::White, w, b), (Color::Black, b, w)] {
                pawns::structure(c, us, them, tr);
                let castle = pawns::castle_bits(board, c);
                pawns::shelter(c, board.king_square(c), castle, us, them, tr);
            }
        }
        let occ = board.occupied();
        let stm = board.side_to_move();
        let mat = [
            Material::of(board, Color::White),
            Material::of(board, Color::Black),
        ];
        let ksq = [
            board.king_square(Color::White),
            board.king_square(Color::Black),
        ];
        let zone = [Color::White, Color::Black].map(|c| {
            let k = king_attacks(ksq[c.index()]) | Bitboard::from_square(ksq[c.index()]);
            k | forward(c, k)
        });

        // Attacks by colour and piece type, and attacks on the enemy king zone by the
        // attacking colour (count of attackers, their weights, squares hit).
        let mut att_by = [[Bitboard::EMPTY; 6]; 2];
        let mut att_all = [Bitboard::EMPTY; 2];
        let mut ka_count = [0i32; 2];
        let mut ka_weight = [0i32; 2];
        let mut ka_hits = [0i32; 2];

        for c in Color::ALL {
            let ci = c.index();
            let them = !c;
            let ti = them.index();
            let own_pawns = board.pieces(c, Pawn);
            let their_pawns = board.pieces(them, Pawn);
            let their_king = ksq[ti];
            let their_zone = zone[ti];
            let mob_area = !(own_pawns | Bitboard::from_square(ksq[ci])) & !entry.attacks[ti];
            let outpost_ranks = match c {
                Color::White => Bitboard(0x0000_FFFF_FF00_0000),
                Color::Black => Bitboard(0x0000_00FF_FFFF_0000),
            };
            let blocked_pawns = own_pawns & backward(c, occ);

            let material = MATERIAL
                .iter()
                .zip(mat[ci].count)
                .fold(S::ZERO, |acc, (&v, n)| acc + v * n as i32);
            add(t, Term::Material, c, material);
            if T::ON {
                for (k, &n) in mat[ci].count.iter().enumerate() {
                    tr.add(c, ix::MATERIAL + k, n as i32);
                }
            }

            let mut psq = psqt(c, King.index(), ksq[ci]);
            tr.add(c, psq_ix(ci, King, ksq[ci]), 1);
            for sq in own_pawns {
                psq += psqt(c, Pawn.index(), sq);
                tr.add(c, psq_ix(ci, Pawn, sq), 1);
            }
            let mut mobility = S::ZERO;
            let mut tropism = S::ZERO;
            let mut knights = S::ZERO;
            let mut bishops = S::ZERO;
            let mut rooks = S::ZERO;
            let mut blocked = S::ZERO;

            let mut king_hit = |a: Bitboard, kind: PieceType| {
                let hits = a & their_zone;
                if hits.not_empty() {
                    ka_count[ci] += 1;
                    ka_weight[ci] += ATTACK_WEIGHT[kind.index()];
                    ka_hits[ci] += hits.count() as i32;
                }
            };

            for sq in board.pieces(c, Knight) {
                psq += psqt(c, Knight.index(), sq);
                tr.add(c, psq_ix(ci, Knight, sq), 1);
                let a = knight_attacks(sq);
                att_by[ci][Knight.index()] |= a;
                let mob = (a & mob_area).count() as usize;
                mobility += MOB_KNIGHT[mob];
                tr.add(c, ix::MOB_KNIGHT + mob, 1);
                king_hit(a, Knight);
                let d = distance(sq, their_king) as usize;
                tropism += TROPISM[Knight.index()][d];
                tr.add(c, TROPISM_IX[Knight.index()] + d, 1);
                if outpost_ranks.contains(sq) && !entry.spans[ti].contains(sq) {
                    if entry.attacks[ci].contains(sq) {
                        knights += KNIGHT_OUTPOST_SUPPORTED;
                        tr.add(c, ix::KNIGHT_OUTPOST_SUPPORTED, 1);
                    } else {
                        knights += KNIGHT_OUTPOST;
                        tr.add(c, ix::KNIGHT_OUTPOST, 1);
                    }
                }
            }

            let own_bishops = board.pieces(c, Bishop);
            for sq in own_bishops {
                psq += psqt(c, Bishop.index(), sq);
                tr.add(c, psq_ix(ci, Bishop, sq), 1);
                let a = bishop_attacks(sq, occ);
                att_by[ci][Bishop.index()] |= a;
                let mob = (a & mob_area).count() as usize;
                mobility += MOB_BISHOP[mob];
                tr.add(c, ix::MOB_BISHOP + mob, 1);
                king_hit(a, Bishop);
                let d = distance(sq, their_king) as usize;
                tropism += TROPISM[Bishop.index()][d];
                tr.add(c, TROPISM_IX[Bishop.index()] + d, 1);
                if outpost_ranks.contains(sq)
                    && !entry.spans[ti].contains(sq)
                    && entry.attacks[ci].contains(sq)
                {
                    bishops += BISHOP_OUTPOST_SUPPORTED;
                    tr.add(c, ix::BISHOP_OUTPOST_SUPPORTED, 1);
                }
                let same_colour = if sq.is_dark() {
                    Bitboard::DARK_SQUARES
                } else {
                    Bitboard::LIGHT_SQUARES
                };
                if LONG_DIAGONALS.contains(sq)
                    && !CENTER.contains(sq)
                    && (bishop_attacks(sq, board.kind_bb(Pawn)) & CENTER).count() >= 2
                {
                    bishops += BISHOP_LONG_DIAGONAL;
                    tr.add(c, ix::BISHOP_LONG_DIAGONAL, 1);
                }
                let bad = (blocked_pawns & same_colour).count() as i32;
                blocked += BAD_BISHOP_PAWN * bad;
                tr.add(c, ix::BAD_BISHOP_PAWN, bad);
            }
            let pawn_excess = own_pawns.count() as i32 - 5;
            let n_knights = board.pieces(c, Knight).count() as i32;
            knights += KNIGHT_PAWNS * (pawn_excess * n_knights);
            tr.add(c, ix::KNIGHT_PAWNS, pawn_excess * n_knights);
            let n_rooks = board.pieces(c, Rook).count() as i32;
            rooks += ROOK_PAWNS * (pawn_excess * n_rooks);
            tr.add(c, ix::ROOK_PAWNS, pawn_excess * n_rooks);
            let behind =
                (forward(c, board.pieces(c, Knight) | own_bishops) & own_pawns).count() as i32;
            knights += MINOR_BEHIND_PAWN * behind;
            tr.add(c, ix::MINOR_BEHIND_PAWN, behind);
            if (own_bishops & Bitboard::DARK_SQUARES).not_empty()
                && (own_bishops & Bitboard::LIGHT_SQUARES).not_empty()
            {
                bishops += BISHOP_PAIR;
                tr.add(c, ix::BISHOP_PAIR, 1);
            }

            for sq in board.pieces(c, Rook) {
                psq += psqt(c, Rook.index(), sq);
                tr.add(c, psq_ix(ci, Rook, sq), 1);
                let a = rook_attacks(sq, occ);
                att_by[ci][Rook.index()] |= a;
                let mob = (a & mob_area).count();
                mobility += MOB_ROOK[mob as usize];
                tr.add(c, ix::MOB_ROOK + mob as usize, 1);
                king_hit(a, Rook);
                let d = distance(sq, their_king) as usize;
                tropism += TROPISM[Rook.index()][d];
                tr.add(c, TROPISM_IX[Rook.index()] + d, 1);
                let f = sq.file().index();
                if entry.half_open[ci] & (1 << f) != 0 {
                    if entry.half_open[ti] & (1 << f) != 0 {
                        rooks += ROOK_OPEN_FILE;
                        tr.add(c, ix::ROOK_OPEN_FILE, 1);
                    } else {
                        rooks += ROOK_HALF_OPEN_FILE;
                        tr.add(c, ix::ROOK_HALF_OPEN_FILE, 1);
                    }
                }
                if (file_bb(f) & board.pieces(them, Queen)).not_empty() {
                    rooks += ROOK_ON_QUEEN_FILE;
                    tr.add(c, ix::ROOK_ON_QUEEN_FILE, 1);
                }
                let r = rel_rank(c, sq);
                if r == 6
                    && (rel_rank(c, their_king) == 7
                        || (their_pawns & rank_bb(sq.rank().index())).not_empty())
                {
                    rooks += ROOK_SEVENTH;
                    tr.add(c, ix::ROOK_SEVENTH, 1);
                }
                if mob <= 3 && r == 0 && rel_rank(c, ksq[ci]) == 0 {
                    // Shut in by its own king, which can no longer castle that way.
                    let kf = ksq[ci].file().index();
                    let rights = board.castling();
                    if (kf >= 4 && f > kf && !rights.has(CastleRights::king_side(c)))
                        || (kf <= 3 && f < kf && !rights.has(CastleRights::queen_side(c)))
                    {
                        rooks += ROOK_TRAPPED;
                        tr.add(c, ix::ROOK_TRAPPED, 1);
                    }
                }
            }

            for sq in board.pieces(c, Queen) {
                psq += psqt(c, Queen.index(), sq);
                tr.add(c, psq_ix(ci, Queen, sq), 1);
                let a = queen_attacks(sq, occ);
                att_by[ci][Queen.index()] |= a;
                let mob = (a & mob_area).count() as usize;
                mobility += MOB_QUEEN[mob];
                tr.add(c, ix::MOB_QUEEN + mob, 1);
                king_hit(a, Queen);
                let d = distance(sq, their_king) as usize;
                tropism += TROPISM[Queen.index()][d];
                tr.add(c, TROPISM_IX[Queen.index()] + d, 1);
            }

            att_by[ci][Pawn.index()] = entry.attacks[ci];
            att_by[ci][King.index()] = king_attacks(ksq[ci]);
            att_all[ci] = att_by[ci].iter().fold(Bitboard::EMPTY, |a, &b| a | b);

            // Centre pawns stuck on their own side of the board block the bishops.
            let center = file_bb(3) | file_bb(4);
            let second = rank_bb(if c == Color::White { 1 } else { 6 });
            let third = rank_bb(if c == Color::White { 2 } else { 5 });
            let n2 = (blocked_pawns & center & second).count() as i32;
            let n3 = (blocked_pawns & center & third).count() as i32;
            blocked += BLOCKED_CENTER_PAWN * n2 + BLOCKED_CENTER_PAWN_3 * n3;
            tr.add(c, ix::BLOCKED_CENTER_PAWN, n2);
            tr.add(c, ix::BLOCKED_CENTER_PAWN_3, n3);

            // Space (kept in the pawn entry).
            let space = i32::from(entry.space[ci]);
            mobility += SPACE * space;
            tr.add(c, ix::SPACE, space);

            add(t, Term::PieceSquares, c, psq);
            add(t, Term::Pawns, c, entry.score[ci]);
            add(t, Term::Mobility, c, mobility);
            add(t, Term::Tropism, c, tropism);
            add(t, Term::Knights, c, knights);
            add(t, Term::Bishops, c, bishops);
            add(t, Term::Rooks, c, rooks);
            add(t, Term::BlockedPawns, c, blocked);
        }

        // King safety (needs every attack of both sides), threats, passed pawns.
        let mut unstoppable: [Option<i32>; 2] = [None, None];
        for c in Color::ALL {
            let ci = c.index();
            let them = !c;
            let ti = them.index();
            let k = ksq[ci];

            let mut ks = s(entry.shelter[ci], 0);
            let safe = !att_all[ci] & !board.color_bb(them);
            let rook_lines = rook_attacks(k, occ);
            let bishop_lines = bishop_attacks(k, occ);
            // Safe checks by piece type: the squares they come from, and the units
            // for any at all.
            let mut checks = 0;
            for (kind, lines) in [
                (Knight, knight_attacks(k)),
                (Bishop, bishop_lines),
                (Rook, rook_lines),
                (Queen, rook_lines | bishop_lines),
            ] {
                let n = (lines & att_by[ti][kind.index()] & safe).count() as i32;
                if n > 0 {
                    checks += SAFE_CHECK[kind.index()];
                }
                ks += SAFE_CHECK_SQUARES[kind.index()] * n;
                tr.add(c, ix::SAFE_CHECK_SQUARES + kind.index(), n);
            }
            // King to nearest pawn and a pawnless king flank (kept in the pawn entry).
            let d = usize::from(entry.king_pawn_distance[ci]);
            if d > 0 {
                add(t, Term::Pawns, c, KING_PAWN_DISTANCE[d]);
                tr.add(c, ix::KING_PAWN_DISTANCE + d, 1);
            }
            if entry.pawnless_flank[ci] {
                ks += PAWNLESS_FLANK;
                tr.add(c, ix::PAWNLESS_FLANK, 1);
            }
            let defended = att_by[ci][Pawn.index()]
                | att_by[ci][Knight.index()]
                | att_by[ci][Bishop.index()]
                | att_by[ci][Rook.index()];
            let weak = (zone[ci] & att_all[ti] & !defended).count() as i32;
            ks += KING_WEAK_SQUARE * weak;
            tr.add(c, ix::KING_WEAK_SQUARE, weak);
            if ka_count[ti] >= 2 || checks > 0 {
                let defect = (-entry.shelter[ci]).max(0) / 10;
                let mut units = ka_weight[ti] + ka_hits[ti] / 2 + checks + defect;
                if mat[ti].count[Queen.index()] == 0 {
                    units /= 2;
                }
                let u = (units.max(0) as usize).min(KING_DANGER_SIZE - 1);
                ks -= KING_DANGER[u];
                tr.add(c, ix::KING_DANGER + u, -1);
            }
            add(t, Term::KingSafety, c, ks);

            // Threats by c against them.
            let their_pieces = board.color_bb(them) & !board.kind_bb(Pawn) & !board.kind_bb(King);
            let by_pawn = (their_pieces & entry.attacks[ci]).count() as i32;
            let minors = att_by[ci][Knight.index()] | att_by[ci][Bishop.index()];
            let rook_att = att_by[ci][Rook.index()];
            let pawn_defended = entry.attacks[ti];
            let hanging = (their_pieces & att_all[ci] & !att_all[ti]).count() as i32;
            let mut threats = THREAT_BY_PAWN * by_pawn + HANGING * hanging;
            tr.add(c, ix::THREAT_BY_PAWN, by_pawn);
            tr.add(c, ix::HANGING, hanging);
            // Minors threaten rooks and queens, rooks threaten queens, whatever
            // defends them; lesser victims count when no pawn defends them.
            for (attacks, weights, at, always) in [
                (minors, &THREAT_BY_MINOR, ix::THREAT_BY_MINOR, Rook),
                (rook_att, &THREAT_BY_ROOK, ix::THREAT_BY_ROOK, Queen),
            ] {
                for kind in [Pawn, Knight, Bishop, Rook, Queen] {
                    let victims = board.pieces(them, kind);
                    let targets = if kind.index() >= always.index() {
                        victims
                    } else {
                        victims & !pawn_defended
                    };
                    let n = (targets & attacks).count() as i32;
                    threats += weights[kind.index()] * n;
                    tr.add(c, at + kind.index(), n);
                }
            }
            let by_king = (board.color_bb(them)
                & !board.kind_bb(King)
                & att_by[ci][King.index()]
                & !att_all[ti])
                .count() as i32;
            threats += THREAT_BY_KING * by_king;
            tr.add(c, ix::THREAT_BY_KING, by_king);
            let own_pawns = board.pieces(c, Pawn);
            let single = forward(c, own_pawns) & !occ;
            let third = rank_bb(if c == Color::White { 2 } else { 5 });
            let pushes = (single | (forward(c, single & third) & !occ))
                & !entry.attacks[ti]
                & (att_all[ci] | !att_all[ti]);
            let push_threats =
                (pawn_attacks_bb(c, pushes) & their_pieces & !entry.attacks[ci]).count() as i32;
            threats += THREAT_PAWN_PUSH * push_threats;
            tr.add(c, ix::THREAT_PAWN_PUSH, push_threats);
            add(t, Term::Threats, c, threats);

            // Passed pawns.
            let passers = entry.passed[ci] & board.pieces(c, Pawn);
            let mut passed = S::ZERO;
            for sq in passers {
                let r = rel_rank(c, sq);
                let block = push_square(c, sq);
                let path = forward_file(c, sq);
                passed += PASSED[r];
                tr.add(c, ix::PASSED + r, 1);
                let theirs = distance(ksq[ti], block).min(5);
                let own = distance(k, block).min(5);
                passed += PASSED_KING_THEIRS[r] * theirs + PASSED_KING_OWN[r] * own;
                tr.add(c, ix::PASSED_KING_THEIRS + r, theirs);
                tr.add(c, ix::PASSED_KING_OWN + r, own);
                let unsafe_path = path & (board.color_bb(them) | att_all[ti]);
                if unsafe_path.is_empty() {
                    passed += PASSED_FREE_PATH[r];
                    tr.add(c, ix::PASSED_FREE_PATH + r, 1);
                } else if !unsafe_path.contains(block) {
                    passed += PASSED_SAFE_PUSH[r];
                    tr.add(c, ix::PASSED_SAFE_PUSH + r, 1);
                }
                let behind = fill_forward(them, Bitboard::from_square(sq));
                if (board.pieces(c, Rook) & rook_attacks(sq, occ) & behind).not_empty() {
                    passed += ROOK_BEHIND_PASSER;
                    tr.add(c, ix::ROOK_BEHIND_PASSER, 1);
                }
                if (passers & king_attacks(sq) & adjacent_files(sq.file().index())).not_empty() {
                    passed += PASSED_CONNECTED[r];
                    tr.add(c, ix::PASSED_CONNECTED + r, 1);
                }
                if mat[ti].npm == 0 && (path & occ).is_empty() {
                    let promo = match c {
                        Color::White => path.msb(),
                        Color::Black => path.lsb(),
                    };
                    let moves = if r == 1 { 5 } else { 7 - r as i32 };
                    let kd = distance(ksq[ti], promo) - i32::from(stm == them);
                    if kd > moves && unstoppable[ci].is_none_or(|m| moves < m) {
                        unstoppable[ci] = Some(moves);
                    }
                }
            }
            add(t, Term::PassedPawns, c, passed);

            // Driving a bare king into the corner.
            let mop = endgame::mop_up(board, c, &mat);
            add(t, Term::MopUp, c, s(0, mop));
            tr.constant(c, s(0, mop));
        }
        // A pawn race: only the side that queens first keeps its bonus.
        let winner = match unstoppable {
            [Some(w), Some(b)] => {
                let white_first = if stm == Color::White { w <= b } else { w < b };
                Some(if white_first {
                    (Color::White, w)
                } else {
                    (Color::Black, b)
                })
            }
            [Some(w), None] => Some((Color::White, w)),
            [None, Some(b)] => Some((Color::Black, b)),
            [None, None] => None,
        };
        if let Some((c, moves)) = winner {
            add(t, Term::PassedPawns, c, s(0, UNSTOPPABLE - 10 * moves));
            tr.constant(c, s(0, UNSTOPPABLE - 10 * moves));
        }

        add(t, Term::Tempo, stm, TEMPO);
        tr.add(stm, ix::TEMPO, 1);

        // Knobs.
        let p = &self.params;
        for c in Color::ALL {
            let ci = c.index();
            let scale = |term: Term, pct: i32, t: &mut Terms| {
                t[term as usize][ci] = t[term as usize][ci].percent(pct);
            };
            scale(Term::Pawns, p.pscale, t);
            scale(Term::PassedPawns, p.ppscale, t);
            scale(Term::Tropism, p.tropism, t);
            scale(Term::BlockedPawns, p.bscale, t);
            scale(Term::KingSafety, p.kscale, t);
            if self.engine_color.is_some_and(|e| e != c) {
                scale(Term::KingSafety, 100 + p.asymmetry, t);
            }
        }

        let total = t.iter().fold(S::ZERO, |acc, pair| acc + pair[0] - pair[1]);
        let phase = (0..6)
            .map(|k| PHASE_WEIGHT[k] * (mat[0].count[k] + mat[1].count[k]) as i32)
            .sum::<i32>()
            .min(PHASE_MAX);
        let tapered = total.taper(phase, PHASE_MAX);
        let scale = match tapered {
            0 => SCALE_MAX,
            v if v > 0 => endgame::scale(board, Color::White, &mat),
            _ => endgame::scale(board, Color::Black, &mat),
        };
        let white = (tapered * scale / SCALE_MAX).clamp(-MAX_EVAL, MAX_EVAL);
        Summary {
            phase,
            total,
            tapered,
            scale,
            white,
        }
    }
}

/// Flat index of the piece-square weight of a `kind` of colour index `ci` on `sq`.
#[inline(always)]
fn psq_ix(ci: usize, kind: PieceType, sq: crate::chess::Square) -> usize {
    PSQT_IX[kind.index()] + params::psqt_index(ci, sq.index())
}

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator::new(0)
    }
}
