//! Placeholder evaluation (material and centralisation) with the final API; replaced by
//! the handcrafted evaluation.

use crate::chess::{Board, Color, PieceType};

pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 0];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalParams {
    pub asymmetry: i32,
    pub bscale: i32,
    pub kscale: i32,
    pub tropism: i32,
    pub pscale: i32,
    pub ppscale: i32,
}

impl Default for EvalParams {
    fn default() -> Self {
        EvalParams { asymmetry: 0, bscale: 100, kscale: 100, tropism: 100, pscale: 100, ppscale: 100 }
    }
}

impl EvalParams {
    pub fn set(&mut self, name: &str, value: i32) -> Result<(), String> {
        match name {
            "asymmetry" => self.asymmetry = value,
            "bscale" => self.bscale = value,
            "kscale" => self.kscale = value,
            "tropism" => self.tropism = value,
            "pscale" => self.pscale = value,
            "ppscale" => self.ppscale = value,
            _ => return Err(format!("unknown evaluation term '{name}'")),
        }
        Ok(())
    }
}

pub struct Evaluator {
    params: EvalParams,
}

pub struct Breakdown {
    pub total: i32,
}

impl std::fmt::Display for Breakdown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "total {}", self.total)
    }
}

impl Evaluator {
    pub fn new(_pawn_hash_bytes: usize) -> Evaluator {
        Evaluator { params: EvalParams::default() }
    }
    pub fn set_params(&mut self, p: EvalParams) {
        self.params = p;
    }
    pub fn params(&self) -> &EvalParams {
        &self.params
    }
    pub fn resize_pawn_hash(&mut self, _bytes: usize) {}
    pub fn clear(&mut self) {}
    pub fn set_engine_color(&mut self, _c: Option<Color>) {}
    pub fn evaluate(&mut self, board: &Board) -> i32 {
        let mut s = 0;
        for c in Color::ALL {
            let sign = if c == Color::White { 1 } else { -1 };
            for k in PieceType::ALL {
                for sq in board.pieces(c, k) {
                    let f = sq.file() as i32;
                    let r = sq.rank() as i32;
                    let centre = 6 - ((2 * f - 7).abs() + (2 * r - 7).abs()) / 2;
                    let adv = if k == PieceType::Pawn { (if c == Color::White { r } else { 7 - r }) * 3 } else { 0 };
                    s += sign * (PIECE_VALUES[k.index()] + if k == PieceType::King { 0 } else { centre * 3 } + adv);
                }
            }
        }
        10 + if board.side_to_move() == Color::White { s } else { -s }
    }
    pub fn breakdown(&mut self, board: &Board) -> Breakdown {
        Breakdown { total: self.evaluate(board) }
    }
}
