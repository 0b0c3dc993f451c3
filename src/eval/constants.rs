//! Hand-set numbers of the evaluation that the tuner does not touch: piece values for
//! the search, the game phase, the king-attack unit weights and the pawn-race bonus.

/// Piece values in centipawns (pawn, knight, bishop, rook, queen, king), middle-game
/// flavoured; for the search's delta pruning and move ordering. The king is 0.
pub const PIECE_VALUES: [i32; 6] = [100, 325, 335, 500, 975, 0];

/// Game phase: knights and bishops 1, rooks 2, queens 4; 24 is the full middle game.
pub const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const PHASE_MAX: i32 = 24;

/// Attack weight of a piece type hitting the king zone (king-danger units).
pub const ATTACK_WEIGHT: [i32; 6] = [0, 2, 2, 3, 5, 0];
/// Units for a safe check by a piece type.
pub const SAFE_CHECK: [i32; 6] = [0, 4, 3, 5, 6, 0];
/// Entries of the king-danger table (`weights::KING_DANGER`), indexed by units.
pub const KING_DANGER_SIZE: usize = 64;

/// An unstoppable passed pawn in a pawn ending, less 10 per move it needs to queen.
pub const UNSTOPPABLE: i32 = 600;
