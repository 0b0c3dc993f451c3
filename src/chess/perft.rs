//! Perft: counts the leaf nodes of the legal move tree, the standard exactness test of a
//! move generator. Counted the usual way: bulk counting at the last ply.

use super::board::Board;
use super::moves::{Move, MoveList};

/// Number of leaf nodes at `depth` plies.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    board.generate::<true, true>(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &m in list.iter() {
        board.make_move(m);
        nodes += perft(board, depth - 1);
        board.unmake_move();
    }
    nodes
}

/// Perft split by root move, in generation order.
pub fn perft_divide(board: &mut Board, depth: u32) -> Vec<(Move, u64)> {
    let list = board.legal_moves();
    let mut out = Vec::with_capacity(list.len());
    for &m in list.iter() {
        board.make_move(m);
        let n = if depth <= 1 {
            1
        } else {
            perft(board, depth - 1)
        };
        board.unmake_move();
        out.push((m, n));
    }
    out
}
