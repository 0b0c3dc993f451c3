//! `Board`: piece placement (bitboards and a mailbox), side to move, castling rights,
//! en-passant square, clocks, incremental Zobrist keys, checkers and pinned pieces, and
//! the stack of earlier states that makes `unmake_move` exact and repetition detection
//! possible. Move generation lives in `movegen.rs`, notation in `fen.rs`/`notation.rs`.
//!
//! The en-passant square is kept (and hashed) only when an en-passant capture is
//! actually legal, so identical positions always have identical keys.

use super::attacks::*;
use super::bitboard::Bitboard;
use super::moves::{kind, Move};
use super::types::*;
use super::zobrist;

/// What `make_move` must remember to undo a move exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Undo {
    pub mv: Move,
    pub captured: Option<Piece>,
    pub castling: CastleRights,
    pub ep: Option<Square>,
    pub halfmove: u16,
    pub key: u64,
    pub pawn_key: u64,
    pub non_pawn_keys: [u64; 2],
    pub checkers: Bitboard,
    pub pinned: Bitboard,
}

/// A chess position with its history since the position it was set up from.
#[derive(Clone)]
pub struct Board {
    pub(crate) pieces: [Bitboard; 6],
    pub(crate) colors: [Bitboard; 2],
    pub(crate) mailbox: [Option<Piece>; 64],
    pub(crate) side: Color,
    pub(crate) castling: CastleRights,
    pub(crate) ep: Option<Square>,
    pub(crate) halfmove: u16,
    pub(crate) fullmove: u16,
    pub(crate) key: u64,
    pub(crate) pawn_key: u64,
    /// Zobrist keys of each colour's pieces other than pawns (king included).
    pub(crate) non_pawn_keys: [u64; 2],
    pub(crate) checkers: Bitboard,
    pub(crate) pinned: Bitboard,
    pub(crate) king_sq: [Square; 2],
    pub(crate) history: Vec<Undo>,
}

/// Castling rights kept when a piece moves from or to each square.
static CASTLE_MASK: [u8; 64] = {
    let mut m = [15u8; 64];
    m[Square::A1 as usize] = 15 & !CastleRights::WHITE_QUEEN;
    m[Square::H1 as usize] = 15 & !CastleRights::WHITE_KING;
    m[Square::E1 as usize] = 15 & !(CastleRights::WHITE_KING | CastleRights::WHITE_QUEEN);
    m[Square::A8 as usize] = 15 & !CastleRights::BLACK_QUEEN;
    m[Square::H8 as usize] = 15 & !CastleRights::BLACK_KING;
    m[Square::E8 as usize] = 15 & !(CastleRights::BLACK_KING | CastleRights::BLACK_QUEEN);
    m
};

/// Material values used by static exchange evaluation.
pub const SEE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 20000];

/// The FEN of the standard starting position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Default for Board {
    fn default() -> Self {
        Board::startpos()
    }
}

impl PartialEq for Board {
    /// Two boards are equal when the positions are equal (placement, side, rights,
    /// en passant, clocks); the history is not compared.
    fn eq(&self, other: &Board) -> bool {
        self.pieces == other.pieces
            && self.colors == other.colors
            && self.mailbox == other.mailbox
            && self.side == other.side
            && self.castling == other.castling
            && self.ep == other.ep
            && self.halfmove == other.halfmove
            && self.fullmove == other.fullmove
            && self.key == other.key
            && self.pawn_key == other.pawn_key
            && self.non_pawn_keys == other.non_pawn_keys
            && self.checkers == other.checkers
            && self.pinned == other.pinned
            && self.king_sq == other.king_sq
    }
}

impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Board({})", self.to_fen())
    }
}

impl Board {
    /// The standard starting position.
    pub fn startpos() -> Board {
        Board::from_fen(START_FEN).expect("start position FEN is valid")
    }

    /// An empty board with White to move; used by the FEN parser before pieces are
    /// placed. Not a valid position until kings are placed and `finish_setup` runs.
    pub(crate) fn empty() -> Board {
        Board {
            pieces: [Bitboard::EMPTY; 6],
            colors: [Bitboard::EMPTY; 2],
            mailbox: [None; 64],
            side: Color::White,
            castling: CastleRights::NONE,
            ep: None,
            halfmove: 0,
            fullmove: 1,
            key: 0,
            pawn_key: 0,
            non_pawn_keys: [0; 2],
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            king_sq: [Square::E1, Square::E8],
            history: Vec::with_capacity(1024),
        }
    }

    // ----- accessors -------------------------------------------------------------

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline(always)]
    pub fn castling(&self) -> CastleRights {
        self.castling
    }

    /// The en-passant target square, present only when a capture there is legal.
    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// Zobrist key of the position.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Zobrist key of the pawns alone (for the pawn hash).
    #[inline(always)]
    pub fn pawn_key(&self) -> u64 {
        self.pawn_key
    }

    /// Zobrist key of the pieces of colour `c` other than its pawns.
    #[inline(always)]
    pub fn non_pawn_key(&self, c: Color) -> u64 {
        self.non_pawn_keys[c.index()]
    }

    /// Pieces of the side not to move that attack the king of the side to move.
    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.not_empty()
    }

    /// Pieces of the side to move pinned to their own king.
    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    #[inline(always)]
    pub fn color_bb(&self, c: Color) -> Bitboard {
        self.colors[c.index()]
    }

    #[inline(always)]
    pub fn kind_bb(&self, k: PieceType) -> Bitboard {
        self.pieces[k.index()]
    }

    #[inline(always)]
    pub fn pieces(&self, c: Color, k: PieceType) -> Bitboard {
        self.pieces[k.index()] & self.colors[c.index()]
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.mailbox[sq.index()]
    }

    #[inline(always)]
    pub fn king_square(&self, c: Color) -> Square {
        self.king_sq[c.index()]
    }

    /// Number of moves made on this board since it was set up.
    #[inline(always)]
    pub fn ply_count(&self) -> usize {
        self.history.len()
    }

    /// The moves made on this board since it was set up, oldest first.
    pub fn moves_played(&self) -> impl Iterator<Item = Move> + '_ {
        self.history.iter().map(|u| u.mv)
    }

    /// The last move made, if any.
    pub fn last_move(&self) -> Option<Move> {
        self.history.last().map(|u| u.mv)
    }

    /// The piece captured by the last move, if any.
    pub fn last_captured(&self) -> Option<Piece> {
        self.history.last().and_then(|u| u.captured)
    }

    /// Forgets the history (the current position becomes the root of repetition
    /// detection). Used when a server sets up a position we cannot link to ours.
    pub fn clear_history(&mut self) {
        self.history.clear();
    }

    // ----- attacks ----------------------------------------------------------------

    /// All pieces of both colours attacking `sq`, given occupancy `occ`.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        let p = &self.pieces;
        (pawn_attacks(Color::White, sq) & self.colors[1] & p[0])
            | (pawn_attacks(Color::Black, sq) & self.colors[0] & p[0])
            | (knight_attacks(sq) & p[1])
            | (king_attacks(sq) & p[5])
            | (bishop_attacks(sq, occ) & (p[2] | p[4]))
            | (rook_attacks(sq, occ) & (p[3] | p[4]))
    }

    /// Does `by` attack `sq` with occupancy `occ`?
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let p = &self.pieces;
        let them = self.colors[by.index()];
        (pawn_attacks(!by, sq) & p[0] & them).not_empty()
            || (knight_attacks(sq) & p[1] & them).not_empty()
            || (king_attacks(sq) & p[5] & them).not_empty()
            || (bishop_attacks(sq, occ) & (p[2] | p[4]) & them).not_empty()
            || (rook_attacks(sq, occ) & (p[3] | p[4]) & them).not_empty()
    }

    /// Pieces of either colour that block a slider of `attackers`' colour from
    /// `sq`: the pieces pinned to (or discovering on) `sq`.
    #[inline(always)]
    pub fn blockers_for(&self, sq: Square, attackers: Color) -> Bitboard {
        let p = &self.pieces;
        let them = self.colors[attackers.index()];
        let snipers = ((rook_attacks(sq, Bitboard::EMPTY) & (p[3] | p[4]))
            | (bishop_attacks(sq, Bitboard::EMPTY) & (p[2] | p[4])))
            & them;
        let occ = self.occupied();
        let mut blockers = Bitboard::EMPTY;
        for s in snipers {
            let b = between(sq, s) & occ;
            if b.not_empty() && !b.more_than_one() {
                blockers |= b;
            }
        }
        blockers
    }

    /// Recomputes checkers and pinned pieces for the side to move.
    #[inline(always)]
    pub(crate) fn update_check_info(&mut self) {
        let us = self.side;
        let ksq = self.king_sq[us.index()];
        self.checkers = self.attackers_to(ksq, self.occupied()) & self.colors[(!us).index()];
        self.pinned = self.blockers_for(ksq, !us) & self.colors[us.index()];
    }

    // ----- piece placement primitives (no key updates) ----------------------------

    #[inline(always)]
    pub(crate) fn put_piece(&mut self, p: Piece, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.pieces[p.kind().index()] |= b;
        self.colors[p.color().index()] |= b;
        self.mailbox[sq.index()] = Some(p);
    }

    #[inline(always)]
    pub(crate) fn remove_piece(&mut self, p: Piece, sq: Square) {
        let b = Bitboard::from_square(sq);
        self.pieces[p.kind().index()] ^= b;
        self.colors[p.color().index()] ^= b;
        self.mailbox[sq.index()] = None;
    }

    #[inline(always)]
    fn move_piece(&mut self, p: Piece, from: Square, to: Square) {
        let b = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.pieces[p.kind().index()] ^= b;
        self.colors[p.color().index()] ^= b;
        self.mailbox[from.index()] = None;
        self.mailbox[to.index()] = Some(p);
    }

    /// Rook squares (from, to) for a castling move whose king lands on `king_to`.
    #[inline(always)]
    pub(crate) fn castle_rook_squares(king_to: Square) -> (Square, Square) {
        match king_to {
            Square::G1 => (Square::H1, Square::F1),
            Square::C1 => (Square::A1, Square::D1),
            Square::G8 => (Square::H8, Square::F8),
            _ => (Square::A8, Square::D8),
        }
    }

    // ----- make / unmake ------------------------------------------------------------

    /// Plays a legal move (as produced by move generation or a notation parser that
    /// resolved against this board). Playing an illegal move corrupts the board.
    pub fn make_move(&mut self, m: Move) {
        let us = self.side;
        let them = !us;
        let from = m.from();
        let to = m.to();
        let piece = match self.mailbox[from.index()] {
            Some(p) => p,
            None => {
                debug_assert!(false, "make_move: no piece on {from} for {m:?}");
                return;
            }
        };
        self.history.push(Undo {
            mv: m,
            captured: None,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            key: self.key,
            pawn_key: self.pawn_key,
            non_pawn_keys: self.non_pawn_keys,
            checkers: self.checkers,
            pinned: self.pinned,
        });

        let mut key = self.key ^ zobrist::side_key();
        if let Some(ep) = self.ep.take() {
            key ^= zobrist::ep_key(ep);
        }
        self.halfmove = self.halfmove.saturating_add(1);
        if us == Color::Black {
            self.fullmove = self.fullmove.wrapping_add(1);
        }

        let mut captured = None;
        match m.kind() {
            kind::KING_CASTLE | kind::QUEEN_CASTLE => {
                let (rf, rt) = Board::castle_rook_squares(to);
                let rook = Piece::new(us, PieceType::Rook);
                self.move_piece(piece, from, to);
                self.move_piece(rook, rf, rt);
                let k = zobrist::piece_key(piece, from)
                    ^ zobrist::piece_key(piece, to)
                    ^ zobrist::piece_key(rook, rf)
                    ^ zobrist::piece_key(rook, rt);
                key ^= k;
                self.non_pawn_keys[us.index()] ^= k;
            }
            kind::EN_PASSANT => {
                let cap_sq = Square::new(to.file(), from.rank());
                let cap = Piece::new(them, PieceType::Pawn);
                self.remove_piece(cap, cap_sq);
                self.move_piece(piece, from, to);
                let k = zobrist::piece_key(cap, cap_sq)
                    ^ zobrist::piece_key(piece, from)
                    ^ zobrist::piece_key(piece, to);
                key ^= k;
                self.pawn_key ^= k;
                captured = Some(cap);
                self.halfmove = 0;
            }
            _ => {
                if m.is_capture() {
                    if let Some(cap) = self.mailbox[to.index()] {
                        self.remove_piece(cap, to);
                        let k = zobrist::piece_key(cap, to);
                        key ^= k;
                        if cap.kind() == PieceType::Pawn {
                            self.pawn_key ^= k;
                        } else {
                            self.non_pawn_keys[them.index()] ^= k;
                        }
                        captured = Some(cap);
                    }
                    self.halfmove = 0;
                }
                if let Some(promo) = m.promotion_piece() {
                    let np = Piece::new(us, promo);
                    self.remove_piece(piece, from);
                    self.put_piece(np, to);
                    let k = zobrist::piece_key(piece, from);
                    let kn = zobrist::piece_key(np, to);
                    key ^= k ^ kn;
                    self.pawn_key ^= k;
                    self.non_pawn_keys[us.index()] ^= kn;
                } else {
                    self.move_piece(piece, from, to);
                    let k = zobrist::piece_key(piece, from) ^ zobrist::piece_key(piece, to);
                    key ^= k;
                    if piece.kind() == PieceType::Pawn {
                        self.pawn_key ^= k;
                    } else {
                        self.non_pawn_keys[us.index()] ^= k;
                    }
                }
                if piece.kind() == PieceType::Pawn {
                    self.halfmove = 0;
                }
            }
        }
        if piece.kind() == PieceType::King {
            self.king_sq[us.index()] = to;
        }

        let old = self.castling.0;
        let new = old & CASTLE_MASK[from.index()] & CASTLE_MASK[to.index()];
        if old != new {
            key ^= zobrist::castle_key(old ^ new);
            self.castling = CastleRights(new);
        }

        if let Some(last) = self.history.last_mut() {
            last.captured = captured;
        }
        self.side = them;
        self.update_check_info();

        if m.is_double_push() {
            let ep = Square::from_index(((from as u8) + (to as u8)) / 2);
            if self.ep_capture_possible(ep) {
                self.ep = Some(ep);
                key ^= zobrist::ep_key(ep);
            }
        }
        self.key = key;
    }

    /// Takes back the last move made with `make_move`. Does nothing when there is no
    /// move to take back.
    pub fn unmake_move(&mut self) {
        let Some(u) = self.history.pop() else {
            return;
        };
        let m = u.mv;
        self.side = !self.side;
        let us = self.side;
        if us == Color::Black {
            self.fullmove = self.fullmove.wrapping_sub(1);
        }
        if !m.is_null() {
            let from = m.from();
            let to = m.to();
            match m.kind() {
                kind::KING_CASTLE | kind::QUEEN_CASTLE => {
                    let (rf, rt) = Board::castle_rook_squares(to);
                    self.move_piece(Piece::new(us, PieceType::King), to, from);
                    self.move_piece(Piece::new(us, PieceType::Rook), rt, rf);
                    self.king_sq[us.index()] = from;
                }
                kind::EN_PASSANT => {
                    let pawn = Piece::new(us, PieceType::Pawn);
                    self.move_piece(pawn, to, from);
                    self.put_piece(
                        Piece::new(!us, PieceType::Pawn),
                        Square::new(to.file(), from.rank()),
                    );
                }
                _ => {
                    if let Some(promo) = m.promotion_piece() {
                        self.remove_piece(Piece::new(us, promo), to);
                        self.put_piece(Piece::new(us, PieceType::Pawn), from);
                    } else if let Some(p) = self.mailbox[to.index()] {
                        self.move_piece(p, to, from);
                        if p.kind() == PieceType::King {
                            self.king_sq[us.index()] = from;
                        }
                    }
                    if let Some(cap) = u.captured {
                        self.put_piece(cap, to);
                    }
                }
            }
        }
        self.castling = u.castling;
        self.ep = u.ep;
        self.halfmove = u.halfmove;
        self.key = u.key;
        self.pawn_key = u.pawn_key;
        self.non_pawn_keys = u.non_pawn_keys;
        self.checkers = u.checkers;
        self.pinned = u.pinned;
    }

    /// Passes the move (for null-move pruning). Must not be called in check.
    pub fn make_null_move(&mut self) {
        debug_assert!(!self.in_check());
        self.history.push(Undo {
            mv: Move::NULL,
            captured: None,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            key: self.key,
            pawn_key: self.pawn_key,
            non_pawn_keys: self.non_pawn_keys,
            checkers: self.checkers,
            pinned: self.pinned,
        });
        self.key ^= zobrist::side_key();
        if let Some(ep) = self.ep.take() {
            self.key ^= zobrist::ep_key(ep);
        }
        self.halfmove = self.halfmove.saturating_add(1);
        if self.side == Color::Black {
            self.fullmove = self.fullmove.wrapping_add(1);
        }
        self.side = !self.side;
        self.update_check_info();
    }

    /// Takes back a null move.
    pub fn unmake_null_move(&mut self) {
        self.unmake_move();
    }

    /// Can the side to move legally capture en passant on `ep`? (Called after a
    /// double push, with check information already updated.)
    pub(crate) fn ep_capture_possible(&self, ep: Square) -> bool {
        let us = self.side;
        let capturers = pawn_attacks(!us, ep) & self.pieces(us, PieceType::Pawn);
        capturers
            .into_iter()
            .any(|from| self.ep_capture_legal(from, ep))
    }

    /// Is the en-passant capture from `from` to `ep` legal for the side to move?
    pub(crate) fn ep_capture_legal(&self, from: Square, ep: Square) -> bool {
        let us = self.side;
        let them = !us;
        let ksq = self.king_sq[us.index()];
        let cap_sq = Square::new(ep.file(), from.rank());
        // A knight (or any non-slider other than the pawn taken) giving check cannot
        // be answered by this capture.
        let non_sliders = (self.pieces[PieceType::Knight.index()]
            | self.pieces[PieceType::Pawn.index()])
            & !Bitboard::from_square(cap_sq);
        if (self.checkers & non_sliders).not_empty() {
            return false;
        }
        let occ = (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(cap_sq))
            | Bitboard::from_square(ep);
        let theirs = self.colors[them.index()];
        let p = &self.pieces;
        (rook_attacks(ksq, occ) & (p[3] | p[4]) & theirs).is_empty()
            && (bishop_attacks(ksq, occ) & (p[2] | p[4]) & theirs).is_empty()
    }

    // ----- keys from scratch and consistency ---------------------------------------

    /// The Zobrist key computed from scratch (equals `key()` when the incremental
    /// updates are right).
    pub fn compute_key(&self) -> u64 {
        let mut k = 0u64;
        for sq in self.occupied() {
            if let Some(p) = self.mailbox[sq.index()] {
                k ^= zobrist::piece_key(p, sq);
            }
        }
        k ^= zobrist::castle_key(self.castling.0);
        if let Some(ep) = self.ep {
            k ^= zobrist::ep_key(ep);
        }
        k ^ zobrist::color_key(self.side)
    }

    /// The pawn key computed from scratch.
    pub fn compute_pawn_key(&self) -> u64 {
        let mut k = 0u64;
        for sq in self.kind_bb(PieceType::Pawn) {
            if let Some(p) = self.mailbox[sq.index()] {
                k ^= zobrist::piece_key(p, sq);
            }
        }
        k
    }

    /// The non-pawn keys of both colours computed from scratch.
    pub fn compute_non_pawn_keys(&self) -> [u64; 2] {
        let mut k = [0u64; 2];
        for sq in self.occupied() & !self.kind_bb(PieceType::Pawn) {
            if let Some(p) = self.mailbox[sq.index()] {
                k[p.color().index()] ^= zobrist::piece_key(p, sq);
            }
        }
        k
    }

    /// Checks every internal invariant; returns a description of the first broken one.
    /// Used by tests and debug assertions.
    pub fn check_consistency(&self) -> Result<(), String> {
        for sq in Square::all() {
            let from_bb = PieceType::ALL.iter().find_map(|&k| {
                Color::ALL
                    .iter()
                    .find(|&&c| self.pieces(c, k).contains(sq))
                    .map(|&c| Piece::new(c, k))
            });
            if from_bb != self.mailbox[sq.index()] {
                return Err(format!("mailbox and bitboards disagree on {sq}"));
            }
        }
        if (self.colors[0] & self.colors[1]).not_empty() {
            return Err("a square holds both colours".into());
        }
        for c in Color::ALL {
            if self.pieces(c, PieceType::King) != Bitboard::from_square(self.king_sq[c.index()]) {
                return Err(format!("{} king square is stale", c.name()));
            }
        }
        if self.key != self.compute_key() {
            return Err("incremental key differs from the key computed from scratch".into());
        }
        if self.pawn_key != self.compute_pawn_key() {
            return Err("incremental pawn key differs from scratch".into());
        }
        if self.non_pawn_keys != self.compute_non_pawn_keys() {
            return Err("incremental non-pawn keys differ from scratch".into());
        }
        let mut copy = self.clone();
        copy.update_check_info();
        if copy.checkers != self.checkers || copy.pinned != self.pinned {
            return Err("checkers or pinned pieces are stale".into());
        }
        Ok(())
    }

    // ----- draws and game end ---------------------------------------------------------

    /// How many times the current position occurred before, within the reversible
    /// moves since the last capture, pawn move or null move.
    pub fn repetition_count(&self) -> usize {
        let n = self.history.len();
        let limit = (self.halfmove as usize).min(n);
        let mut count = 0;
        let mut i = 1;
        while i <= limit {
            let u = &self.history[n - i];
            if u.mv.is_null() {
                break;
            }
            if i % 2 == 0 && u.key == self.key {
                count += 1;
            }
            i += 1;
        }
        count
    }

    /// True if the position occurred before at a ply strictly after `since_ply` (in
    /// search, the root's ply: a repetition inside the tree is scored as a draw), or
    /// occurred twice before anywhere (threefold repetition).
    pub fn is_repetition(&self, since_ply: usize) -> bool {
        let n = self.history.len();
        let limit = (self.halfmove as usize).min(n);
        let mut seen = 0;
        let mut i = 2;
        while i <= limit {
            let idx = n - i;
            if self.history[idx + 1].mv.is_null() || self.history[idx].mv.is_null() {
                break;
            }
            if self.history[idx].key == self.key {
                if idx > since_ply {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            i += 2;
        }
        false
    }

    /// Threefold repetition (the position has occurred at least twice before).
    pub fn is_threefold_repetition(&self) -> bool {
        self.repetition_count() >= 2
    }

    /// The 50-move rule applies: 100 plies without capture or pawn move, and the side
    /// to move is not mated (a mate on the hundredth ply stands).
    pub fn is_fifty_move_draw(&self) -> bool {
        self.halfmove >= 100 && (!self.in_check() || self.has_legal_move())
    }

    /// Neither side can mate by any sequence of legal moves: K v K, K+minor v K, and
    /// positions with only bishops, all on squares of one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let p = &self.pieces;
        if (p[PieceType::Pawn.index()] | p[PieceType::Rook.index()] | p[PieceType::Queen.index()])
            .not_empty()
        {
            return false;
        }
        let knights = p[PieceType::Knight.index()];
        let bishops = p[PieceType::Bishop.index()];
        if (knights | bishops).count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & Bitboard::LIGHT_SQUARES).is_empty())
    }

    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_move()
    }

    pub fn is_stalemate(&self) -> bool {
        !self.in_check() && !self.has_legal_move()
    }

    // ----- static exchange evaluation -----------------------------------------------

    /// Static exchange evaluation of a move: the material balance, for the side making
    /// it, of the best sequence of captures on the target square (either side may stop
    /// capturing). Castling scores 0.
    pub fn see(&self, m: Move) -> i32 {
        if m.is_castle() {
            return 0;
        }
        let from = m.from();
        let to = m.to();
        let mut occ = self.occupied();
        let mut gain = [0i32; 34];
        let Some(mover) = self.mailbox[from.index()] else {
            return 0;
        };
        let mut attacker_value = SEE_VALUES[mover.kind().index()];
        gain[0] = if m.is_en_passant() {
            occ ^= Bitboard::from_square(Square::new(to.file(), from.rank()));
            SEE_VALUES[0]
        } else {
            self.mailbox[to.index()].map_or(0, |c| SEE_VALUES[c.kind().index()])
        };
        if let Some(promo) = m.promotion_piece() {
            let extra = SEE_VALUES[promo.index()] - SEE_VALUES[0];
            gain[0] += extra;
            attacker_value = SEE_VALUES[promo.index()];
        }
        occ ^= Bitboard::from_square(from);
        let p = &self.pieces;
        let diag = p[PieceType::Bishop.index()] | p[PieceType::Queen.index()];
        let orth = p[PieceType::Rook.index()] | p[PieceType::Queen.index()];
        let mut attackers = self.attackers_to(to, occ) & occ;
        let mut stm = !mover.color();
        let mut d = 0;
        loop {
            let mine = attackers & self.colors[stm.index()];
            if mine.is_empty() {
                break;
            }
            // Least valuable attacker.
            let mut kind_found = PieceType::King;
            let mut sq_found = None;
            for k in PieceType::ALL {
                let b = mine & p[k.index()];
                if b.not_empty() {
                    kind_found = k;
                    sq_found = Some(b.lsb());
                    break;
                }
            }
            let Some(sq) = sq_found else { break };
            // A king may only capture if the other side has no attacker left (x-rays
            // behind the king included).
            if kind_found == PieceType::King {
                let occ2 = occ ^ Bitboard::from_square(sq);
                let rest = (attackers
                    | (bishop_attacks(to, occ2) & diag)
                    | (rook_attacks(to, occ2) & orth))
                    & occ2;
                if (rest & self.colors[(!stm).index()]).not_empty() {
                    break;
                }
            }
            d += 1;
            if d >= gain.len() {
                break;
            }
            gain[d] = attacker_value - gain[d - 1];
            attacker_value = SEE_VALUES[kind_found.index()];
            if kind_found == PieceType::Pawn && (to.rank() == Rank::R8 || to.rank() == Rank::R1) {
                let extra = SEE_VALUES[PieceType::Queen.index()] - SEE_VALUES[0];
                gain[d] += extra;
                attacker_value = SEE_VALUES[PieceType::Queen.index()];
            }
            occ ^= Bitboard::from_square(sq);
            // Reveal x-ray attackers behind the piece that just captured.
            attackers |= (bishop_attacks(to, occ) & diag) | (rook_attacks(to, occ) & orth);
            attackers &= occ;
            stm = !stm;
        }
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        gain[0]
    }

    /// Is the static exchange value of `m` at least `threshold`? Faster than
    /// `see(m) >= threshold`: it stops as soon as the outcome is decided.
    pub fn see_ge(&self, m: Move, threshold: i32) -> bool {
        if m.is_castle() {
            return threshold <= 0;
        }
        let from = m.from();
        let to = m.to();
        let Some(mover) = self.mailbox[from.index()] else {
            return threshold <= 0;
        };
        let us = mover.color();
        let mut occ = self.occupied() ^ Bitboard::from_square(from);
        let mut balance = if m.is_en_passant() {
            occ ^= Bitboard::from_square(Square::new(to.file(), from.rank()));
            SEE_VALUES[0]
        } else {
            self.mailbox[to.index()].map_or(0, |c| SEE_VALUES[c.kind().index()])
        } - threshold;
        let mut on_square = SEE_VALUES[mover.kind().index()];
        if let Some(promo) = m.promotion_piece() {
            balance += SEE_VALUES[promo.index()] - SEE_VALUES[0];
            on_square = SEE_VALUES[promo.index()];
        }
        if balance < 0 {
            return false;
        }
        // Even losing the piece that captured keeps us at or above the threshold.
        balance -= on_square;
        if balance >= 0 {
            return true;
        }
        let p = &self.pieces;
        let diag = p[PieceType::Bishop.index()] | p[PieceType::Queen.index()];
        let orth = p[PieceType::Rook.index()] | p[PieceType::Queen.index()];
        let mut attackers = self.attackers_to(to, occ) & occ;
        let mut stm = !us;
        loop {
            let mine = attackers & self.colors[stm.index()];
            if mine.is_empty() {
                break;
            }
            let mut kind = PieceType::King;
            for k in PieceType::ALL {
                if (mine & p[k.index()]).not_empty() {
                    kind = k;
                    break;
                }
            }
            let sq = (mine & p[kind.index()]).lsb();
            occ ^= Bitboard::from_square(sq);
            attackers |= (bishop_attacks(to, occ) & diag) | (rook_attacks(to, occ) & orth);
            attackers &= occ;
            // A king may not capture onto a square the other side still attacks: the
            // exchange ends with this side unable to go on.
            if kind == PieceType::King && (attackers & self.colors[(!stm).index()]).not_empty() {
                break;
            }
            stm = !stm;
            // The side that just captured now risks its piece: from its side, the
            // balance is the negation, less the piece it put on the square.
            balance = -balance - 1 - SEE_VALUES[kind.index()];
            if balance >= 0 {
                break;
            }
        }
        // The side to move when the exchange ends is the one that lost it.
        stm != us
    }
}
