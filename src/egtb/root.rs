//! What a table value means in a game: the result of a position under the 50-move
//! rule given its halfmove clock, the ranking of the root moves (the search chooses
//! among the ones that keep the best result), the verdict the resign and draw policy
//! reads, and the swindle choice.
//!
//! The rule used throughout: from a position with halfmove clock `h` whose DTZ is `n`
//! plies (the capture, pawn move or mate that decides the game comes on ply `n`), the
//! result stands when `h + n <= 100`: the deciding move is made before the clock
//! reaches 100 and a draw can be claimed. Otherwise the position is a draw. A DTZ the
//! table stores rounded counts one ply more.

use super::{probeable, Tablebase};
use crate::chess::moves::MAX_MOVES;
use crate::chess::{Board, Color, Move, PieceType};

/// A game result for the side to move (ordered: a loss is the worst).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    Loss,
    Draw,
    Win,
}

impl Outcome {
    /// The same result seen from the other side.
    pub fn flip(self) -> Outcome {
        match self {
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
            Outcome::Win => Outcome::Loss,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Outcome::Loss => "lost",
            Outcome::Draw => "drawn",
            Outcome::Win => "won",
        }
    }
}

/// The result of `board` for the side to move under the 50-move rule, given its
/// halfmove clock, and the plies to the move that decides it (0 when the side to move
/// is mated or the game is drawn). `None` when the tables do not know the position.
pub fn outcome_of(tb: &dyn Tablebase, board: &Board) -> Option<(Outcome, i32)> {
    if !probeable(board, tb.max_pieces()) {
        return None;
    }
    if !board.has_legal_move() {
        return Some(if board.in_check() {
            (Outcome::Loss, 0)
        } else {
            (Outcome::Draw, 0)
        });
    }
    let clock = board.halfmove_clock() as i32;
    if clock >= 100 {
        return Some((Outcome::Draw, 0));
    }
    if board.occupied().count() == 2 {
        return Some((Outcome::Draw, 0));
    }
    let dtz = tb.probe_dtz(board)?;
    if dtz.plies == 0 {
        return Some((Outcome::Draw, 0));
    }
    let n = dtz.plies.abs() + dtz.rounded as i32;
    if clock + n > 100 {
        return Some((Outcome::Draw, 0));
    }
    Some(if dtz.plies > 0 {
        (Outcome::Win, n)
    } else {
        (Outcome::Loss, n)
    })
}

/// One root move with its table result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    pub outcome: Outcome,
    /// Plies to the deciding move: 0 for a mate now, 1 for a capture or pawn move that
    /// keeps a win (or gives up a loss at once), else one more than the DTZ after it.
    pub plies: i32,
}

impl RankedMove {
    const EMPTY: RankedMove = RankedMove {
        mv: Move::NULL,
        outcome: Outcome::Draw,
        plies: 0,
    };

    /// Higher is better: wins (sooner first), draws, losses (later first).
    pub fn rank(&self) -> i32 {
        match self.outcome {
            Outcome::Win => 10_000 - self.plies,
            Outcome::Draw => 0,
            Outcome::Loss => -10_000 + self.plies,
        }
    }
}

/// The root moves of a table position, each with its result (fixed size, no
/// allocation).
#[derive(Clone, Debug)]
pub struct RootRanking {
    moves: [RankedMove; MAX_MOVES],
    len: usize,
    best: usize,
    /// Table probes made.
    pub probes: u64,
}

impl RootRanking {
    pub fn moves(&self) -> &[RankedMove] {
        &self.moves[..self.len]
    }

    /// The best move by table result (for a win the fastest, for a loss the slowest).
    pub fn best(&self) -> RankedMove {
        self.moves[self.best]
    }

    /// The result of the position with best play.
    pub fn outcome(&self) -> Outcome {
        self.best().outcome
    }

    /// True for a move that keeps the best result: in a won position the moves that
    /// reach the deciding capture, pawn move or mate soonest (so every move makes
    /// progress, even where the evaluation sees none, as in KBNK), any drawing move in
    /// a drawn one, and the moves that resist longest in a lost one.
    pub fn keeps(&self, mv: Move) -> bool {
        let best = self.best();
        self.find(mv).is_some_and(|r| {
            r.outcome == best.outcome && (best.outcome == Outcome::Draw || r.plies == best.plies)
        })
    }

    /// The rank of `mv` (see `RankedMove::rank`), `i32::MIN` for a move not ranked.
    pub fn rank_of(&self, mv: Move) -> i32 {
        self.find(mv).map_or(i32::MIN, |r| r.rank())
    }

    pub fn find(&self, mv: Move) -> Option<&RankedMove> {
        self.moves().iter().find(|r| r.mv == mv)
    }
}

/// Ranks every legal move of `board` with the tables, under the 50-move rule given the
/// board's halfmove clock. `None` when the position has more than `limit` pieces (or
/// more than the tables hold), castling rights, no legal move, or a successor the
/// tables do not know. The board is returned as it came.
pub fn rank_root(tb: &dyn Tablebase, board: &mut Board, limit: u32) -> Option<RootRanking> {
    if !probeable(board, limit.min(tb.max_pieces())) {
        return None;
    }
    let legal = board.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let mut r = RootRanking {
        moves: [RankedMove::EMPTY; MAX_MOVES],
        len: 0,
        best: 0,
        probes: 0,
    };
    for &m in legal.iter() {
        let zeroing = m.is_capture()
            || board
                .piece_at(m.from())
                .is_some_and(|p| p.kind() == PieceType::Pawn);
        board.make_move(m);
        let after = outcome_of(tb, board);
        board.unmake_move();
        r.probes += 1;
        let (theirs, n) = after?;
        let outcome = theirs.flip();
        let plies = match (outcome, n) {
            (Outcome::Draw, _) => 0,
            // The reply is mate.
            (_, 0) => 0,
            _ if zeroing => 1,
            _ => n + 1,
        };
        let rm = RankedMove {
            mv: m,
            outcome,
            plies,
        };
        if r.len == 0 || rm.rank() > r.moves[r.best].rank() {
            r.best = r.len;
        }
        r.moves[r.len] = rm;
        r.len += 1;
    }
    Some(r)
}

/// What the tables say about a position, for the resign and draw policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The result for the side to move with best play, under the 50-move rule.
    pub outcome: Outcome,
    /// Plies to the deciding move (see `RankedMove::plies`).
    pub plies: i32,
    /// The material of the side to move and of the other side (`KR`, `KQ`).
    pub ours: String,
    pub theirs: String,
}

impl Verdict {
    /// The same verdict seen from the other side.
    pub fn flipped(&self) -> Verdict {
        Verdict {
            outcome: self.outcome.flip(),
            plies: self.plies,
            ours: self.theirs.clone(),
            theirs: self.ours.clone(),
        }
    }

    /// The ending named the usual way, the side that wins first (`KQvKR`); the side
    /// to move first when drawn.
    pub fn ending(&self) -> String {
        match self.outcome {
            Outcome::Loss => format!("{}v{}", self.theirs, self.ours),
            _ => format!("{}v{}", self.ours, self.theirs),
        }
    }
}

/// The material of `c`: `K` then queens, rooks, bishops, knights, pawns.
pub fn material(board: &Board, c: Color) -> String {
    let mut s = String::from("K");
    for (k, ch) in [
        (PieceType::Queen, 'Q'),
        (PieceType::Rook, 'R'),
        (PieceType::Bishop, 'B'),
        (PieceType::Knight, 'N'),
        (PieceType::Pawn, 'P'),
    ] {
        for _ in 0..board.pieces(c, k).count() {
            s.push(ch);
        }
    }
    s
}

/// The tables' verdict on `board` (`None` outside the tables; see `rank_root`).
pub fn verdict(tb: &dyn Tablebase, board: &Board, limit: u32) -> Option<Verdict> {
    let mut b = board.clone();
    let r = rank_root(tb, &mut b, limit)?;
    let us = board.side_to_move();
    Some(Verdict {
        outcome: r.outcome(),
        plies: r.best().plies,
        ours: material(board, us),
        theirs: material(board, !us),
    })
}

/// The swindle: in a drawn or lost table position, the move among those that keep the
/// result and set the opponent a problem (some reply gives their result away) that
/// leaves them the fewest replies keeping theirs (ties: the longest resistance, then
/// the most replies). `None` in a won position, outside the tables, or when no move
/// sets a problem.
pub fn swindle_move(tb: &dyn Tablebase, board: &Board, limit: u32) -> Option<Move> {
    let mut b = board.clone();
    let ranking = rank_root(tb, &mut b, limit)?;
    let ours = ranking.outcome();
    if ours == Outcome::Win {
        return None;
    }
    // (replies keeping their result, -plies, -replies, move)
    let mut best: Option<(usize, i32, i32, Move)> = None;
    for rm in ranking.moves().iter().filter(|r| r.outcome == ours) {
        b.make_move(rm.mv);
        let replies = b.legal_moves();
        let mut keeping = 0usize;
        let mut known = true;
        for &reply in replies.iter() {
            b.make_move(reply);
            let after = outcome_of(tb, &b);
            b.unmake_move();
            match after {
                // After their reply we are to move: they keep their result when ours
                // is no better than it was.
                Some((o, _)) if o <= ours => keeping += 1,
                Some(_) => {}
                None => known = false,
            }
        }
        b.unmake_move();
        // A move after which every reply keeps their result sets no problem.
        if !known || keeping == replies.len() {
            continue;
        }
        let key = (keeping, -rm.plies, -(replies.len() as i32), rm.mv);
        if best.is_none_or(|b| (key.0, key.1, key.2) < (b.0, b.1, b.2)) {
            best = Some(key);
        }
    }
    best.map(|b| b.3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::egtb::{Dtz, Wdl};

    /// Tables that know one thing: every position has this DTZ.
    struct Fixed(i32);

    impl Tablebase for Fixed {
        fn max_pieces(&self) -> u32 {
            5
        }
        fn probe_wdl(&self, _: &Board) -> Option<Wdl> {
            Some(Wdl::Draw)
        }
        fn probe_dtz(&self, _: &Board) -> Option<Dtz> {
            Some(Dtz {
                plies: self.0,
                rounded: false,
            })
        }
    }

    #[test]
    fn the_fifty_move_rule_decides_with_the_clock() {
        let b = |clock: u32| {
            Board::from_fen(&format!("8/8/8/5k2/8/8/1Q4r1/K7 w - - {clock} 1")).unwrap()
        };
        assert_eq!(outcome_of(&Fixed(20), &b(0)), Some((Outcome::Win, 20)));
        assert_eq!(outcome_of(&Fixed(20), &b(80)), Some((Outcome::Win, 20)));
        assert_eq!(outcome_of(&Fixed(20), &b(81)), Some((Outcome::Draw, 0)));
        assert_eq!(outcome_of(&Fixed(-20), &b(80)), Some((Outcome::Loss, 20)));
        assert_eq!(outcome_of(&Fixed(-20), &b(81)), Some((Outcome::Draw, 0)));
        // Cursed wins and blessed losses are draws whatever the clock.
        assert_eq!(outcome_of(&Fixed(101), &b(0)), Some((Outcome::Draw, 0)));
        assert_eq!(outcome_of(&Fixed(-120), &b(0)), Some((Outcome::Draw, 0)));
        assert_eq!(outcome_of(&Fixed(0), &b(0)), Some((Outcome::Draw, 0)));
        assert_eq!(outcome_of(&Fixed(5), &b(100)), Some((Outcome::Draw, 0)));
    }

    #[test]
    fn castling_rights_or_too_many_pieces_are_not_probed() {
        let b = Board::from_fen("r3k3/8/8/8/8/8/8/4K3 b q - 0 1").unwrap();
        assert_eq!(outcome_of(&Fixed(3), &b), None);
        let b = Board::from_fen("4k3/pppp4/8/8/8/8/8/4K3 w - - 0 1").unwrap();
        assert_eq!(outcome_of(&Fixed(3), &b), None);
    }

    #[test]
    fn verdict_names_the_ending_winner_first() {
        let v = Verdict {
            outcome: Outcome::Loss,
            plies: 10,
            ours: "KR".into(),
            theirs: "KQ".into(),
        };
        assert_eq!(v.ending(), "KQvKR");
        let b = Board::from_fen("8/8/8/5k2/8/8/1Q4r1/K7 w - - 0 1").unwrap();
        assert_eq!(material(&b, Color::White), "KQ");
        assert_eq!(material(&b, Color::Black), "KR");
    }
}
