//! Differential test against shakmaty: over the positions of seeded random games played
//! to their end and over every perft suite position, the same legal moves (as UCI), the
//! same SAN for every move (and SAN, UCI and the server's verbose form read back to the
//! move), the same FEN, the same check/mate/stalemate/dead-position
//! verdicts, and keys that identify positions exactly as shakmaty's Zobrist keys do
//! (the map between the two is a bijection). Coverage of special moves is counted and
//! printed.

use crate::common::{epd_fen_text, epd_lines, game_over, shakmaty_position, Rng, PERFT_FILES};
use kibitzer::chess::{Board, Move, PieceType};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};
use std::collections::HashMap;
use std::time::Instant;

/// Positions of random games to visit (the last game is played to its end).
const RANDOM_POSITIONS: usize = 100_000;

#[derive(Default, Clone, Copy)]
struct Coverage {
    positions: u64,
    moves: u64,
    en_passant: u64,
    castle_king_side: u64,
    castle_queen_side: u64,
    promotions: u64,
    promotion_captures: u64,
    underpromotions: u64,
    underpromotion_captures: u64,
    checks: u64,
    double_checks: u64,
    checkmates: u64,
    stalemates: u64,
    positions_in_check: u64,
    positions_in_double_check: u64,
    mated_positions: u64,
    stalemated_positions: u64,
    dead_positions: u64,
}

impl Coverage {
    fn fields(&self) -> [(&'static str, u64); 18] {
        [
            ("positions", self.positions),
            ("legal moves", self.moves),
            ("en passant", self.en_passant),
            ("O-O", self.castle_king_side),
            ("O-O-O", self.castle_queen_side),
            ("promotions without capture", self.promotions),
            ("promotions with capture", self.promotion_captures),
            ("underpromotions without capture", self.underpromotions),
            ("underpromotions with capture", self.underpromotion_captures),
            ("moves giving check", self.checks),
            ("moves giving double check", self.double_checks),
            ("moves giving checkmate", self.checkmates),
            ("moves giving stalemate", self.stalemates),
            ("positions in check", self.positions_in_check),
            ("positions in double check", self.positions_in_double_check),
            ("checkmated positions", self.mated_positions),
            ("stalemated positions", self.stalemated_positions),
            (
                "dead positions (insufficient material)",
                self.dead_positions,
            ),
        ]
    }

    fn add(&self, o: &Coverage) -> Coverage {
        let mut r = *self;
        r.positions += o.positions;
        r.moves += o.moves;
        r.en_passant += o.en_passant;
        r.castle_king_side += o.castle_king_side;
        r.castle_queen_side += o.castle_queen_side;
        r.promotions += o.promotions;
        r.promotion_captures += o.promotion_captures;
        r.underpromotions += o.underpromotions;
        r.underpromotion_captures += o.underpromotion_captures;
        r.checks += o.checks;
        r.double_checks += o.double_checks;
        r.checkmates += o.checkmates;
        r.stalemates += o.stalemates;
        r.positions_in_check += o.positions_in_check;
        r.positions_in_double_check += o.positions_in_double_check;
        r.mated_positions += o.mated_positions;
        r.stalemated_positions += o.stalemated_positions;
        r.dead_positions += o.dead_positions;
        r
    }
}

/// shakmaty key -> our key and back; both must stay functions (a bijection).
#[derive(Default)]
struct KeyMap {
    theirs_to_ours: HashMap<u64, u64>,
    ours_to_theirs: HashMap<u64, u64>,
}

impl KeyMap {
    fn insert(&mut self, theirs: u64, ours: u64, what: &dyn Fn() -> String) {
        let o = *self.theirs_to_ours.entry(theirs).or_insert(ours);
        assert_eq!(o, ours, "one shakmaty key, two of our keys: {}", what());
        let t = *self.ours_to_theirs.entry(ours).or_insert(theirs);
        assert_eq!(
            t,
            theirs,
            "one of our keys for two different positions: {}",
            what()
        );
    }
}

fn zobrist(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// Compares one position in every way; returns our legal moves sorted by UCI with the
/// matching shakmaty moves. `ours` has no history (cheap to clone for SAN).
fn compare(
    ours: &mut Board,
    pos: &Chess,
    cov: &mut Coverage,
    keys: &mut KeyMap,
    what: &dyn Fn() -> String,
) -> Vec<(Move, shakmaty::Move)> {
    let fen = ours.to_fen();
    let their_fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    assert_eq!(fen, their_fen, "FEN differs: {}", what());
    keys.insert(zobrist(pos), ours.key(), &|| format!("{fen} ({})", what()));
    assert_eq!(ours.key(), ours.compute_key(), "{fen}");

    // Legal moves as UCI.
    let mut mine: Vec<(String, Move)> = ours
        .legal_moves()
        .iter()
        .map(|&m| (m.to_uci(), m))
        .collect();
    mine.sort_by(|a, b| a.0.cmp(&b.0));
    let mut theirs: Vec<(String, shakmaty::Move)> = pos
        .legal_moves()
        .iter()
        .map(|&m| (UciMove::from_standard(m).to_string(), m))
        .collect();
    theirs.sort_by(|a, b| a.0.cmp(&b.0));
    let a: Vec<&str> = mine.iter().map(|x| x.0.as_str()).collect();
    let b: Vec<&str> = theirs.iter().map(|x| x.0.as_str()).collect();
    assert_eq!(a, b, "legal moves differ in {fen} ({})", what());

    // Position verdicts.
    assert_eq!(ours.checkers().0, pos.checkers().0, "checkers in {fen}");
    assert_eq!(ours.is_checkmate(), pos.is_checkmate(), "mate in {fen}");
    assert_eq!(
        ours.is_stalemate(),
        pos.is_stalemate(),
        "stalemate in {fen}"
    );
    assert_eq!(
        ours.is_insufficient_material(),
        pos.is_insufficient_material(),
        "insufficient material in {fen}"
    );
    cov.positions += 1;
    cov.positions_in_check += ours.in_check() as u64;
    cov.positions_in_double_check += (ours.checkers().count() == 2) as u64;
    cov.mated_positions += ours.is_checkmate() as u64;
    cov.stalemated_positions += ours.is_stalemate() as u64;
    cov.dead_positions += ours.is_insufficient_material() as u64;

    let mut pairs = Vec::with_capacity(mine.len());
    for ((uci, m), (_, sm)) in mine.into_iter().zip(theirs) {
        // SAN with check and mate marks.
        let san = ours.san(m);
        let their_san = SanPlus::from_move(pos.clone(), sm).to_string();
        assert_eq!(san, their_san, "SAN of {uci} in {fen}");
        // And every notation reads back to the move.
        assert_eq!(ours.parse_san(&san), Ok(m), "{san} in {fen}");
        assert_eq!(ours.parse_uci(&uci), Ok(m), "{uci} in {fen}");
        let verbose = ours.verbose(m);
        assert_eq!(ours.parse_verbose(&verbose), Ok(m), "{verbose} in {fen}");

        // The position after the move.
        ours.make_move(m);
        let mut child = pos.clone();
        child.play_unchecked(sm);
        assert_eq!(ours.key(), ours.compute_key(), "key after {uci} in {fen}");
        keys.insert(zobrist(&child), ours.key(), &|| {
            format!("{} after {uci} in {fen}", ours.to_fen())
        });
        assert_eq!(ours.checkers().0, child.checkers().0, "{uci} in {fen}");
        assert_eq!(
            ours.ep_square().map(|s| s.index()),
            child.legal_ep_square().map(|s| s as usize),
            "ep square after {uci} in {fen}"
        );
        let replies = ours.has_legal_move();
        assert_eq!(replies, !child.legal_moves().is_empty(), "{uci} in {fen}");
        cov.moves += 1;
        cov.en_passant += m.is_en_passant() as u64;
        if m.is_castle() {
            if m.to().file() == kibitzer::chess::File::G {
                cov.castle_king_side += 1;
            } else {
                cov.castle_queen_side += 1;
            }
        }
        if let Some(p) = m.promotion_piece() {
            match (p == PieceType::Queen, m.is_capture()) {
                (true, false) => cov.promotions += 1,
                (true, true) => cov.promotion_captures += 1,
                (false, false) => {
                    cov.promotions += 1;
                    cov.underpromotions += 1
                }
                (false, true) => {
                    cov.promotion_captures += 1;
                    cov.underpromotion_captures += 1
                }
            }
        }
        if ours.in_check() {
            cov.checks += 1;
            cov.double_checks += (ours.checkers().count() == 2) as u64;
            cov.checkmates += !replies as u64;
        } else {
            cov.stalemates += !replies as u64;
        }
        ours.unmake_move();
        pairs.push((m, sm));
    }
    pairs
}

fn print_coverage(title: &str, c: &Coverage) {
    println!("differential coverage, {title}:");
    for (name, n) in c.fields() {
        println!("  {name:>40}: {n}");
    }
}

#[test]
fn differential_against_shakmaty() {
    let start_time = Instant::now();
    let mut keys = KeyMap::default();

    // Random games from the start position, played to their end.
    let mut random = Coverage::default();
    let mut rng = Rng::new(0x6469_6666);
    let mut games = 0usize;
    let mut endings: HashMap<&'static str, usize> = HashMap::new();
    while random.positions < RANDOM_POSITIONS as u64 {
        games += 1;
        let mut game = Board::startpos();
        let mut pos = Chess::default();
        loop {
            let mut flat = game.clone();
            flat.clear_history();
            let ply = game.ply_count();
            let pairs = compare(&mut flat, &pos, &mut random, &mut keys, &|| {
                format!("random game {games}, ply {ply}")
            });
            if game_over(&game) {
                let why = if pairs.is_empty() {
                    if game.in_check() {
                        "checkmate"
                    } else {
                        "stalemate"
                    }
                } else if game.is_insufficient_material() {
                    "insufficient material"
                } else if game.is_fifty_move_draw() {
                    "fifty-move rule"
                } else {
                    "threefold repetition"
                };
                *endings.entry(why).or_default() += 1;
                break;
            }
            // The choice depends only on the RNG and the sorted move list.
            let (m, sm) = pairs[rng.below(pairs.len())];
            game.make_move(m);
            pos.play_unchecked(sm);
        }
    }
    let random_secs = start_time.elapsed().as_secs_f64();

    // Every position of every perft suite.
    let mut suites = Coverage::default();
    for f in PERFT_FILES {
        for l in epd_lines(f) {
            let fen_text = epd_fen_text(&l.text);
            let pos = shakmaty_position(&fen_text)
                .unwrap_or_else(|e| panic!("{f}:{}: shakmaty refuses it: {e}", l.line));
            let mut b = l.epd.board.clone();
            compare(&mut b, &pos, &mut suites, &mut keys, &|| {
                format!("{f}:{}", l.line)
            });
        }
    }

    let mut endings: Vec<_> = endings.into_iter().collect();
    endings.sort();
    println!(
        "differential: {games} random games ({} positions, {random_secs:.1} s), endings \
         {endings:?}; {} perft suite positions; {} distinct keys; {:.1} s in all",
        random.positions,
        suites.positions,
        keys.theirs_to_ours.len(),
        start_time.elapsed().as_secs_f64()
    );
    print_coverage("random games", &random);
    print_coverage("perft suites", &suites);
    let all = random.add(&suites);
    print_coverage("all", &all);
    for (name, n) in all.fields() {
        assert!(n > 0, "no {name} met: the differential test lost coverage");
    }
    assert!(random.positions >= RANDOM_POSITIONS as u64);
    assert_eq!(keys.theirs_to_ours.len(), keys.ours_to_theirs.len());
    // Random games alone must meet the common special moves.
    assert!(random.en_passant > 0 && random.castle_king_side > 0 && random.checkmates > 0);
}
