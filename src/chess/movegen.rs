//! Legal move generation into a `MoveList`, by stage: captures and promotions, quiet
//! moves, or everything (check evasions are simply all moves when in check). Every
//! generated move is legal: pins, checks, en passant discovered checks and castling
//! through attacked squares are handled during generation, never by trial.
//! Also `is_legal`, which validates any 16-bit move (from the hash table, a killer, a
//! parser) against the position without generating.

use super::attacks::*;
use super::bitboard::Bitboard;
use super::board::Board;
use super::moves::{kind, Move, MoveList};
use super::types::*;

const FILE_A: Bitboard = Bitboard::file(File::A);
const FILE_H: Bitboard = Bitboard::file(File::H);

/// Precomputed check data of a position (see `Board::check_info`).
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    ksq: Square,
    squares: [Bitboard; 6],
    discoverers: Bitboard,
}

/// Which moves to generate.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum GenType {
    /// All legal moves.
    All,
    /// Captures (en passant included) and all promotions.
    Captures,
    /// Everything else: quiet moves and castling.
    Quiets,
}

#[inline(always)]
fn push_promotions(list: &mut MoveList, from: Square, to: Square, capture: bool) {
    for p in [
        PieceType::Queen,
        PieceType::Knight,
        PieceType::Rook,
        PieceType::Bishop,
    ] {
        list.push(Move::promotion(from, to, p, capture));
    }
}

impl Board {
    /// All legal moves.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<true, true>(&mut list);
        list
    }

    /// Appends the legal moves of one stage to `list`.
    pub fn generate_moves(&self, gen: GenType, list: &mut MoveList) {
        match gen {
            GenType::All => self.generate::<true, true>(list),
            GenType::Captures => self.generate::<true, false>(list),
            GenType::Quiets => self.generate::<false, true>(list),
        }
    }

    /// Does the side to move have any legal move?
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        self.generate::<true, true>(&mut list);
        !list.is_empty()
    }

    /// Number of legal moves (used by perft's bulk counting).
    #[inline]
    pub fn count_legal_moves(&self) -> usize {
        let mut list = MoveList::new();
        self.generate::<true, true>(&mut list);
        list.len()
    }

    pub(crate) fn generate<const CAPS: bool, const QUIETS: bool>(&self, list: &mut MoveList) {
        let us = self.side;
        let them = !us;
        let occ = self.occupied();
        let ours = self.colors[us.index()];
        let theirs = self.colors[them.index()];
        let ksq = self.king_sq[us.index()];
        let checkers = self.checkers;

        // King moves: the destination must not be attacked once the king has left.
        let mut king_targets = king_attacks(ksq) & !ours;
        if !CAPS {
            king_targets &= !occ;
        }
        if !QUIETS {
            king_targets &= theirs;
        }
        let occ_no_king = occ ^ Bitboard::from_square(ksq);
        for to in king_targets {
            if !self.is_attacked(to, them, occ_no_king) {
                let k = if theirs.contains(to) {
                    kind::CAPTURE
                } else {
                    kind::QUIET
                };
                list.push(Move::new(ksq, to, k));
            }
        }
        if checkers.more_than_one() {
            return;
        }

        let check_mask = if checkers.not_empty() {
            between(ksq, checkers.lsb()) | checkers
        } else {
            Bitboard::FULL
        };
        let cap_targets = if CAPS {
            theirs & check_mask
        } else {
            Bitboard::EMPTY
        };
        let quiet_targets = if QUIETS {
            !occ & check_mask
        } else {
            Bitboard::EMPTY
        };
        let pinned = self.pinned;
        let p = &self.pieces;

        // Knights: a pinned knight can never move.
        for from in p[PieceType::Knight.index()] & ours & !pinned {
            let att = knight_attacks(from);
            for to in att & cap_targets {
                list.push(Move::new(from, to, kind::CAPTURE));
            }
            for to in att & quiet_targets {
                list.push(Move::new(from, to, kind::QUIET));
            }
        }
        // Sliders: a pinned slider may move along the pin line only.
        let queens = p[PieceType::Queen.index()];
        for from in (p[PieceType::Bishop.index()] | queens) & ours {
            let mut att = bishop_attacks(from, occ);
            if pinned.contains(from) {
                att &= line(ksq, from);
            }
            for to in att & cap_targets {
                list.push(Move::new(from, to, kind::CAPTURE));
            }
            for to in att & quiet_targets {
                list.push(Move::new(from, to, kind::QUIET));
            }
        }
        for from in (p[PieceType::Rook.index()] | queens) & ours {
            let mut att = rook_attacks(from, occ);
            if pinned.contains(from) {
                att &= line(ksq, from);
            }
            for to in att & cap_targets {
                list.push(Move::new(from, to, kind::CAPTURE));
            }
            for to in att & quiet_targets {
                list.push(Move::new(from, to, kind::QUIET));
            }
        }

        self.generate_pawn_moves::<CAPS, QUIETS>(list, check_mask);

        // Castling: never out of or through check; rights imply king and rook in place.
        if QUIETS && checkers.is_empty() {
            let (rank_base, ks, qs) = match us {
                Color::White => (0u8, CastleRights::WHITE_KING, CastleRights::WHITE_QUEEN),
                Color::Black => (56u8, CastleRights::BLACK_KING, CastleRights::BLACK_QUEEN),
            };
            let sq = |f: u8| Square::from_index(rank_base + f);
            if self.castling.has(ks)
                && (occ & (Bitboard::from_square(sq(5)) | Bitboard::from_square(sq(6)))).is_empty()
                && !self.is_attacked(sq(5), them, occ)
                && !self.is_attacked(sq(6), them, occ)
            {
                list.push(Move::new(ksq, sq(6), kind::KING_CASTLE));
            }
            if self.castling.has(qs)
                && (occ
                    & (Bitboard::from_square(sq(1))
                        | Bitboard::from_square(sq(2))
                        | Bitboard::from_square(sq(3))))
                .is_empty()
                && !self.is_attacked(sq(3), them, occ)
                && !self.is_attacked(sq(2), them, occ)
            {
                list.push(Move::new(ksq, sq(2), kind::QUEEN_CASTLE));
            }
        }
    }

    #[inline(always)]
    fn generate_pawn_moves<const CAPS: bool, const QUIETS: bool>(
        &self,
        list: &mut MoveList,
        check_mask: Bitboard,
    ) {
        let us = self.side;
        let them = !us;
        let occ = self.occupied();
        let empty = !occ;
        let theirs = self.colors[them.index()];
        let pawns = self.pieces(us, PieceType::Pawn);
        let pinned = self.pinned;
        let free = pawns & !pinned;
        let (rank7, rank3) = match us {
            Color::White => (Bitboard::rank(Rank::R7), Bitboard::rank(Rank::R3)),
            Color::Black => (Bitboard::rank(Rank::R2), Bitboard::rank(Rank::R6)),
        };
        // Shifts per colour: push, capture towards the h-file, towards the a-file.
        let (up, right, left): (i8, i8, i8) = match us {
            Color::White => (8, 9, 7),
            Color::Black => (-8, -7, -9),
        };
        let push = |b: Bitboard| match us {
            Color::White => b.north(),
            Color::Black => b.south(),
        };
        let cap_right = |b: Bitboard| push(b & !FILE_H).east_unmasked();
        let cap_left = |b: Bitboard| push(b & !FILE_A).west_unmasked();

        let normal = free & !rank7;
        let promo = free & rank7;

        if QUIETS {
            let single = push(normal) & empty;
            let double = push(single & rank3) & empty & check_mask;
            for to in single & check_mask {
                list.push(Move::new(to.offset(-up), to, kind::QUIET));
            }
            for to in double {
                list.push(Move::new(to.offset(-2 * up), to, kind::DOUBLE_PUSH));
            }
        }
        if CAPS {
            let targets = theirs & check_mask;
            for to in cap_right(normal) & targets {
                list.push(Move::new(to.offset(-right), to, kind::CAPTURE));
            }
            for to in cap_left(normal) & targets {
                list.push(Move::new(to.offset(-left), to, kind::CAPTURE));
            }
            if promo.not_empty() {
                for to in push(promo) & empty & check_mask {
                    push_promotions(list, to.offset(-up), to, false);
                }
                for to in cap_right(promo) & targets {
                    push_promotions(list, to.offset(-right), to, true);
                }
                for to in cap_left(promo) & targets {
                    push_promotions(list, to.offset(-left), to, true);
                }
            }
            if let Some(ep) = self.ep {
                for from in pawn_attacks(them, ep) & pawns {
                    if self.ep_capture_legal(from, ep) {
                        list.push(Move::new(from, ep, kind::EN_PASSANT));
                    }
                }
            }
        }

        // Pinned pawns (never when in check: a pinned piece cannot answer a check).
        let pinned_pawns = pawns & pinned;
        if pinned_pawns.not_empty() && self.checkers.is_empty() {
            let ksq = self.king_sq[us.index()];
            for from in pinned_pawns {
                let allowed = line(ksq, from);
                let last = from.rank() == us.relative_rank(Rank::R7);
                if CAPS {
                    for to in pawn_attacks(us, from) & theirs & allowed {
                        if last {
                            push_promotions(list, from, to, true);
                        } else {
                            list.push(Move::new(from, to, kind::CAPTURE));
                        }
                    }
                }
                let one = from.offset(up);
                if allowed.contains(one) && empty.contains(one) {
                    if last {
                        if CAPS {
                            push_promotions(list, from, one, false);
                        }
                    } else if QUIETS {
                        list.push(Move::new(from, one, kind::QUIET));
                        if from.rank() == us.relative_rank(Rank::R2) {
                            let two = one.offset(up);
                            if empty.contains(two) {
                                list.push(Move::new(from, two, kind::DOUBLE_PUSH));
                            }
                        }
                    }
                }
            }
        }
    }

    /// Is `m` a legal move in this position? Accepts any 16-bit value (hash moves,
    /// killers, parsed input) and never panics; agrees exactly with generation.
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_null() {
            return false;
        }
        let us = self.side;
        let them = !us;
        let from = m.from();
        let to = m.to();
        let Some(piece) = self.mailbox[from.index()] else {
            return false;
        };
        if piece.color() != us || from == to {
            return false;
        }
        let occ = self.occupied();
        let theirs = self.colors[them.index()];
        let target = self.mailbox[to.index()];
        let k = m.kind();
        if matches!(k, 6 | 7) {
            return false;
        }
        // Capture flag must match the board (en passant checked separately).
        if k != kind::EN_PASSANT {
            let is_cap = matches!(target, Some(t) if t.color() == them);
            if m.is_capture() != is_cap {
                return false;
            }
            if target.is_some() && !is_cap {
                return false;
            }
        }
        let ksq = self.king_sq[us.index()];

        if piece.kind() == PieceType::King {
            if m.is_promotion() || matches!(k, kind::DOUBLE_PUSH | kind::EN_PASSANT) {
                return false;
            }
            if m.is_castle() {
                let mut list = MoveList::new();
                self.generate::<false, true>(&mut list);
                return list.contains(m);
            }
            return king_attacks(from).contains(to)
                && !self.is_attacked(to, them, occ ^ Bitboard::from_square(from));
        }
        if m.is_castle() {
            return false;
        }

        if piece.kind() == PieceType::Pawn {
            let last_rank = to.rank() == us.relative_rank(Rank::R8);
            if last_rank != m.is_promotion() {
                return false;
            }
            let up: i8 = if us == Color::White { 8 } else { -8 };
            let ok = match k {
                kind::EN_PASSANT => {
                    return self.ep == Some(to)
                        && pawn_attacks(us, from).contains(to)
                        && self.ep_capture_legal(from, to);
                }
                kind::DOUBLE_PUSH => {
                    from.rank() == us.relative_rank(Rank::R2)
                        && to.index() as i8 == from.index() as i8 + 2 * up
                        && self.mailbox[from.offset(up).index()].is_none()
                        && target.is_none()
                }
                _ if m.is_capture() => pawn_attacks(us, from).contains(to),
                _ => to.index() as i8 == from.index() as i8 + up && target.is_none(),
            };
            if !ok {
                return false;
            }
        } else {
            if m.is_promotion() || matches!(k, kind::DOUBLE_PUSH | kind::EN_PASSANT) {
                return false;
            }
            if !piece_attacks(piece.kind(), from, occ).contains(to) {
                return false;
            }
        }
        debug_assert!(k == kind::EN_PASSANT || theirs.contains(to) == m.is_capture());

        // Non-king moves: resolve checks and respect pins.
        if self.checkers.not_empty() {
            if self.checkers.more_than_one() {
                return false;
            }
            let c = self.checkers.lsb();
            if !(between(ksq, c) | self.checkers).contains(to) {
                return false;
            }
        }
        !self.pinned.contains(from) || line(ksq, from).contains(to)
    }

    /// What `gives_check_fast` needs, computed once per position: the squares from
    /// which each piece type would attack the enemy king, and our pieces that shield
    /// the enemy king from one of our sliders (moving them off the line checks).
    pub fn check_info(&self) -> CheckInfo {
        let us = self.side;
        let ksq = self.king_sq[(!us).index()];
        let occ = self.occupied();
        let b = bishop_attacks(ksq, occ);
        let r = rook_attacks(ksq, occ);
        CheckInfo {
            ksq,
            squares: [
                pawn_attacks(!us, ksq),
                knight_attacks(ksq),
                b,
                r,
                b | r,
                Bitboard::EMPTY,
            ],
            discoverers: self.blockers_for(ksq, us) & self.colors[us.index()],
        }
    }

    /// `gives_check` with precomputed `CheckInfo`: a table lookup for ordinary
    /// moves; castling, en passant and promotions take the full path.
    #[inline]
    pub fn gives_check_fast(&self, ci: &CheckInfo, m: Move) -> bool {
        if m.is_castle() || m.is_promotion() || m.is_en_passant() {
            return self.gives_check(m);
        }
        let from = m.from();
        let to = m.to();
        let Some(piece) = self.mailbox[from.index()] else {
            return false;
        };
        if ci.squares[piece.kind().index()].contains(to) {
            return true;
        }
        // Leaving the line between our slider and their king discovers a check.
        ci.discoverers.contains(from) && !line(from, ci.ksq).contains(to)
    }

    /// Does the legal move `m` give check? Computed from the position after the move
    /// without making it: direct checks by the moved (or promoted) piece and
    /// discovered checks by sliders, including castling and en passant.
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let ksq = self.king_sq[(!us).index()];
        let from = m.from();
        let to = m.to();
        let Some(piece) = self.mailbox[from.index()] else {
            return false;
        };
        let new_kind = m.promotion_piece().unwrap_or(piece.kind());
        let p = &self.pieces;
        let ours = self.colors[us.index()];
        let from_bb = Bitboard::from_square(from);
        let to_bb = Bitboard::from_square(to);
        let mut occ = (self.occupied() ^ from_bb) | to_bb;
        let mut diag =
            (p[PieceType::Bishop.index()] | p[PieceType::Queen.index()]) & ours & !from_bb;
        let mut orth = (p[PieceType::Rook.index()] | p[PieceType::Queen.index()]) & ours & !from_bb;
        match new_kind {
            PieceType::Bishop => diag |= to_bb,
            PieceType::Rook => orth |= to_bb,
            PieceType::Queen => {
                diag |= to_bb;
                orth |= to_bb;
            }
            PieceType::Knight => {
                if knight_attacks(to).contains(ksq) {
                    return true;
                }
            }
            PieceType::Pawn => {
                if pawn_attacks(us, to).contains(ksq) {
                    return true;
                }
            }
            PieceType::King => {}
        }
        if m.is_castle() {
            let (rf, rt) = Board::castle_rook_squares(to);
            occ = (occ ^ Bitboard::from_square(rf)) | Bitboard::from_square(rt);
            orth = (orth & !Bitboard::from_square(rf)) | Bitboard::from_square(rt);
        } else if m.is_en_passant() {
            occ ^= Bitboard::from_square(Square::new(to.file(), from.rank()));
        }
        (bishop_attacks(ksq, occ) & diag).not_empty() || (rook_attacks(ksq, occ) & orth).not_empty()
    }
}

/// Shifts used after a pawn push for diagonal captures; the file masks are applied
/// before the push, so these need none.
trait PawnShift {
    fn east_unmasked(self) -> Bitboard;
    fn west_unmasked(self) -> Bitboard;
}

impl PawnShift for Bitboard {
    #[inline(always)]
    fn east_unmasked(self) -> Bitboard {
        Bitboard(self.0 << 1)
    }
    #[inline(always)]
    fn west_unmasked(self) -> Bitboard {
        Bitboard(self.0 >> 1)
    }
}
