//! Resolving a position to a quiet one for the tuner: a small quiescence search
//! (captures and promotions, stand pat, losing captures skipped) with the playing
//! evaluation, whose principal variation leads to the leaf the tuner learns from.

use crate::chess::{Board, GenType, Move, MoveList};
use crate::eval::{Evaluator, PIECE_VALUES};

/// Captures deeper than this are not followed (the leaf is taken as it stands).
const MAX_PLY: usize = 12;

/// The quiet leaf of `board`'s capture sequence and its score from the side to move.
pub fn quiet_leaf(board: &Board, ev: &mut Evaluator) -> (Board, i32) {
    let mut b = board.clone();
    let mut pv = Vec::new();
    let score = qsearch(&mut b, ev, -32_000, 32_000, 0, &mut pv);
    let mut leaf = board.clone();
    for m in pv {
        leaf.make_move(m);
    }
    leaf.clear_history();
    (leaf, score)
}

fn qsearch(
    b: &mut Board,
    ev: &mut Evaluator,
    mut alpha: i32,
    beta: i32,
    ply: usize,
    pv: &mut Vec<Move>,
) -> i32 {
    pv.clear();
    let stand = ev.evaluate(b);
    if stand >= beta || ply >= MAX_PLY {
        return stand;
    }
    alpha = alpha.max(stand);
    let mut list = MoveList::new();
    b.generate_moves(GenType::Captures, &mut list);
    let mut moves: Vec<(i32, Move)> = list
        .iter()
        .filter(|&&m| b.see_ge(m, 0))
        .map(|&m| {
            let victim = b
                .piece_at(m.to())
                .map_or(PIECE_VALUES[0], |p| PIECE_VALUES[p.kind().index()]);
            let promo = m.promotion_piece().map_or(0, |p| PIECE_VALUES[p.index()]);
            (victim + promo, m)
        })
        .collect();
    moves.sort_by_key(|&(v, _)| -v);
    let mut child = Vec::new();
    for (_, m) in moves {
        b.make_move(m);
        let score = -qsearch(b, ev, -beta, -alpha, ply + 1, &mut child);
        b.unmake_move();
        if score > alpha {
            alpha = score;
            pv.clear();
            pv.push(m);
            pv.extend_from_slice(&child);
            if score >= beta {
                break;
            }
        }
    }
    alpha
}
