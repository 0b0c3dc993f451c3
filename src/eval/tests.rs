//! Evaluation tests: colour symmetry over many positions (suites from
//! `../shared/data/` when present, plus deterministic random games), the pawn hash
//! against fresh computation, knobs, drawish endings, and the `score` table.

use super::*;
use crate::chess::epd::Epd;
use crate::chess::{Board, Color};
use std::path::PathBuf;

// ----- position sources -------------------------------------------------------------

/// The shared data folder, wherever this checkout sits relative to it.
fn data_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    [
        root.join("../shared/data"),
        root.join("../../shared/data"),
        root.join("shared/data"),
        root.join("tests/data"),
    ]
    .into_iter()
    .find(|p| p.join("epd").is_dir() || p.join("perft").is_dir())
}

fn epd_boards(rel: &str, every: usize) -> Vec<Board> {
    let Some(dir) = data_dir() else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(dir.join(rel)) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .step_by(every)
        .map(|l| {
            Epd::parse(l)
                .unwrap_or_else(|e| panic!("{rel}: {e}: {l}"))
                .board
        })
        .collect()
}

const FIXED: &[&str] = &[
    crate::chess::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/1P3PPP/6K1 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
];

/// Positions from deterministic pseudo-random games.
fn random_game_boards(games: usize, plies: usize) -> Vec<Board> {
    let mut out = Vec::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..games {
        let mut b = Board::startpos();
        for _ in 0..plies {
            let moves = b.legal_moves();
            if moves.is_empty() {
                break;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.make_move(moves[(x % moves.len() as u64) as usize]);
            out.push(Board::from_fen(&b.to_fen()).unwrap());
        }
    }
    out
}

fn all_boards() -> Vec<Board> {
    let mut v: Vec<Board> = FIXED.iter().map(|f| Board::from_fen(f).unwrap()).collect();
    v.extend(epd_boards("epd/wac.epd", 1));
    v.extend(epd_boards("epd/bratko-kopec.epd", 1));
    v.extend(epd_boards("perft/perftsuite.epd", 1));
    v.extend(epd_boards("perft/perft_whittington.epd", 1));
    v.extend(epd_boards("perft/perft_double_checks.epd", 1));
    v.extend(epd_boards("perft/perft_marcel.epd", 7));
    v.extend(random_game_boards(60, 120));
    v
}

/// The same position with the board mirrored top to bottom and the colours swapped.
pub(crate) fn mirror_fen(fen: &str) -> String {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()
    };
    let placement: Vec<String> = f[0].split('/').rev().map(swap).collect();
    let side = if f[1] == "w" { "b" } else { "w" };
    let castling = if f[2] == "-" {
        "-".to_string()
    } else {
        let c = swap(f[2]);
        "KQkq".chars().filter(|x| c.contains(*x)).collect()
    };
    let ep = if f[3] == "-" {
        "-".to_string()
    } else {
        let b = f[3].as_bytes();
        format!("{}{}", b[0] as char, (b'1' + b'8' - b[1]) as char)
    };
    let mut out = format!("{} {side} {castling} {ep}", placement.join("/"));
    for rest in &f[4..] {
        out.push(' ');
        out.push_str(rest);
    }
    out
}

fn mirror(b: &Board) -> Board {
    Board::from_fen(&mirror_fen(&b.to_fen())).unwrap()
}

fn eval_fen(fen: &str) -> i32 {
    Evaluator::new(1 << 16).evaluate(&Board::from_fen(fen).unwrap())
}

fn breakdown_fen(e: &mut Evaluator, fen: &str) -> Breakdown {
    e.breakdown(&Board::from_fen(fen).unwrap())
}

// ----- symmetry and consistency -----------------------------------------------------------

#[test]
fn mirror_helper_round_trips() {
    let fen = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w Kq d6 0 3";
    let m = mirror_fen(fen);
    assert_eq!(
        m,
        "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b Qk d3 0 3"
    );
    assert_eq!(mirror_fen(&m), fen);
}

#[test]
fn colour_flipped_positions_evaluate_the_same() {
    let boards = all_boards();
    assert!(boards.len() > 5000, "only {} positions", boards.len());
    eprintln!(
        "symmetry: {} positions (data dir {:?})",
        boards.len(),
        data_dir()
    );
    let mut e = Evaluator::new(1 << 20);
    let mut nonzero = 0;
    for b in &boards {
        let m = mirror(b);
        let v = e.evaluate(b);
        let vm = e.evaluate(&m);
        assert_eq!(v, vm, "{} vs mirrored {}", b.to_fen(), m.to_fen());
        // Every term is mirrored too, side by side.
        let bd = e.breakdown(b);
        let bm = e.breakdown(&m);
        for (r, rm) in bd.rows.iter().zip(bm.rows.iter()) {
            assert_eq!(
                (r.white, r.black),
                (rm.black, rm.white),
                "{} {}",
                r.name(),
                b.to_fen()
            );
        }
        nonzero += usize::from(v != 0);
    }
    assert!(nonzero > boards.len() / 2);
    // With asymmetry, mirroring the engine's colour too keeps the symmetry.
    let mut p = EvalParams::default();
    p.set("asymmetry", 40).unwrap();
    p.set("kscale", 130).unwrap();
    let mut w = Evaluator::new(0);
    w.set_params(p);
    w.set_engine_color(Some(Color::White));
    let mut b = Evaluator::new(0);
    b.set_params(p);
    b.set_engine_color(Some(Color::Black));
    let mut differs = 0;
    for pos in boards.iter().step_by(11) {
        let v = w.evaluate(pos);
        assert_eq!(v, b.evaluate(&mirror(pos)), "{}", pos.to_fen());
        differs += usize::from(v != b.evaluate(pos));
    }
    assert!(differs > 0, "asymmetry never mattered");
}

#[test]
fn breakdown_agrees_with_evaluate() {
    let mut e = Evaluator::new(1 << 16);
    for b in all_boards().iter().step_by(5) {
        let v = e.evaluate(b);
        let bd = e.breakdown(b);
        assert_eq!(bd.stm_score(), v, "{}", b.to_fen());
        let sum = bd.rows.iter().fold(S::ZERO, |a, r| a + r.diff());
        assert_eq!(sum, bd.total);
        assert_eq!(bd.tapered, bd.total.taper(bd.phase, PHASE_MAX));
        assert!((0..=SCALE_MAX).contains(&bd.scale));
        assert!(v.abs() <= MAX_EVAL);
    }
}

#[test]
fn pawn_hash_matches_fresh_computation() {
    // A minimal table (lots of replacement) and a warm large one must agree with a
    // fresh evaluator for every position, in any order, and after clearing.
    let boards = all_boards();
    let mut small = Evaluator::new(0);
    let mut big = Evaluator::new(1 << 22);
    assert_eq!(small.pawn_hash_entries(), pawns::MIN_ENTRIES);
    for (i, b) in boards.iter().enumerate().step_by(3) {
        let fresh = Evaluator::new(0).evaluate(b);
        assert_eq!(small.evaluate(b), fresh, "{}", b.to_fen());
        assert_eq!(big.evaluate(b), fresh, "{}", b.to_fen());
        assert_eq!(big.evaluate(b), fresh, "second probe {}", b.to_fen());
        if i % 500 == 0 {
            big.clear();
        }
    }
    for b in boards.iter().rev().step_by(7) {
        assert_eq!(big.evaluate(b), Evaluator::new(0).evaluate(b));
    }
    big.resize_pawn_hash(1 << 12);
    assert_eq!(
        big.evaluate(&boards[1]),
        Evaluator::new(0).evaluate(&boards[1])
    );
}

#[test]
fn pawn_entry_shelter_follows_the_king() {
    // Same pawns, the king moves: the cached shelter must be recomputed.
    let mut e = Evaluator::new(0);
    let castled = "6k1/5ppp/8/8/8/8/5PPP/6K1 w - - 0 1";
    let wandered = "6k1/5ppp/8/8/8/8/5PPP/2K5 w - - 0 1";
    let a1 = breakdown_fen(&mut e, castled).row(Term::KingSafety).white;
    let a2 = breakdown_fen(&mut e, wandered).row(Term::KingSafety).white;
    let a3 = breakdown_fen(&mut e, castled).row(Term::KingSafety).white;
    assert_eq!(a1, a3);
    assert!(a1.mg > a2.mg, "{a1:?} {a2:?}");
}

#[test]
fn pawn_entry_king_terms_follow_the_king() {
    // Same pawns, the king walks away from them and onto a pawnless flank: the
    // king-to-pawn distance and the pawnless flank kept in the entry must change
    // with it, in whatever order the positions come, as a fresh evaluator says.
    let near = "8/5ppp/6k1/8/8/8/5PPP/6K1 w - - 0 1";
    let far = "8/5ppp/6k1/8/8/8/5PPP/K7 w - - 0 1";
    let mut e = Evaluator::new(0);
    for fen in [near, far, near, far] {
        let b = Board::from_fen(fen).unwrap();
        assert_eq!(e.evaluate(&b), Evaluator::new(0).evaluate(&b), "{fen}");
    }
    let kp = |fen: &str| {
        breakdown_fen(&mut Evaluator::new(0), fen)
            .row(Term::Pawns)
            .white
    };
    let ks = |fen: &str| {
        breakdown_fen(&mut Evaluator::new(0), fen)
            .row(Term::KingSafety)
            .white
    };
    assert_ne!(kp(near), kp(far));
    assert_ne!(ks(near), ks(far));
}

// ----- values ------------------------------------------------------------------------------

#[test]
fn start_position_is_the_tempo() {
    let v = eval_fen(crate::chess::START_FEN);
    assert_eq!(v, TEMPO_MG);
    assert!(v > 0 && v < 30);
    // Black to move in the start position: the same from Black's side.
    let vb = eval_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!(vb, TEMPO_MG);
}

const TEMPO_MG: i32 = weights::TEMPO.mg;

#[test]
fn material_advantage_signs() {
    let no_black_queen = "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
    assert!(eval_fen(&format!("{no_black_queen} w KQkq - 0 1")) > 700);
    assert!(eval_fen(&format!("{no_black_queen} b KQkq - 0 1")) < -700);
    let no_white_knight = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR";
    let v = eval_fen(&format!("{no_white_knight} w KQkq - 0 1"));
    assert!((-450..-200).contains(&v), "{v}");
    // A pawn up in a quiet ending is worth about a pawn.
    let v = eval_fen("4k3/pp3ppp/8/8/8/8/PP2PPPP/4K3 w - - 0 1");
    assert!((60..250).contains(&v), "{v}");
    assert!(PIECE_VALUES[0] == 100 && PIECE_VALUES[4] > PIECE_VALUES[3]);
}

#[test]
fn passed_pawns_and_races() {
    // An advanced passed pawn is worth more than a back one.
    let far = eval_fen("4k3/8/1P6/8/8/8/8/4K3 w - - 0 1");
    let near = eval_fen("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1");
    assert!(far > near + 50, "{far} {near}");
    // Black's king is outside the square of the a-pawn: unstoppable.
    let run = eval_fen("7k/8/8/P7/8/8/8/K7 w - - 0 1");
    assert!(run > 500, "{run}");
    // With Black to move the king gets into the square: just a pawn.
    let caught = eval_fen("4k3/8/8/P7/8/8/8/K7 b - - 0 1");
    assert!(eval_fen("4k3/8/8/P7/8/8/8/K7 w - - 0 1") > 500);
    assert!(caught > -300 && caught < 0, "{caught}");
    // Pawn race: both unstoppable, White to move queens first.
    let mut e = Evaluator::new(0);
    let bd = breakdown_fen(&mut e, "k7/7P/8/8/8/8/p7/7K w - - 0 1");
    let race = bd.row(Term::PassedPawns);
    assert!(race.white.eg > race.black.eg + 400, "{race:?}");
}

#[test]
fn drawish_endings_are_near_zero() {
    for fen in [
        "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",   // KB v K
        "8/8/4k3/8/8/3NK3/8/8 b - - 0 1",   // KN v K
        "8/8/4k3/8/8/2NNK3/8/8 w - - 0 1",  // KNN v K
        "8/8/4k3/8/8/4K3/8/8 w - - 0 1",    // K v K
        "8/8/4k3/8/8/3BK3/2B5/8 w - - 0 1", // two bishops on light squares
        "k7/8/1K6/P7/8/8/8/8 w - - 0 1",    // rook pawn, king in the corner
        "1k6/8/1K6/P7/8/8/3B4/8 w - - 0 1", // wrong bishop (dark d2, a8 light)
    ] {
        assert_eq!(eval_fen(fen), 0, "{fen}");
    }
    // Right bishop for the rook pawn still wins.
    assert!(eval_fen("1k6/8/1K6/P7/8/8/4B3/8 w - - 0 1") > 200);
    // KR v KB and KR v KN: a small edge, not a rook.
    for fen in [
        "8/8/4k3/8/3b4/8/3RK3/8 w - - 0 1",
        "8/8/4k3/3n4/8/8/3RK3/8 b - - 0 1",
    ] {
        let v = eval_fen(fen);
        let white_pov = if fen.contains(" w ") { v } else { -v };
        assert!((1..60).contains(&white_pov), "{fen}: {v}");
    }
    // A bare-king mate is still a win.
    assert!(eval_fen("8/8/4k3/8/8/8/3RK3/8 w - - 0 1") > 400);
    assert!(eval_fen("8/8/4k3/8/8/8/3QK3/3r4 w - - 0 1") > 300);
    // Opposite-coloured bishops halve (at least) the same pawn edge.
    let ocb = eval_fen("4k3/5p2/3b4/8/2P1P3/3B4/5P2/4K3 w - - 0 1");
    let same = eval_fen("4k3/5p2/4b3/8/2P1P3/3B4/5P2/4K3 w - - 0 1");
    assert!(ocb > 0 && ocb * 2 <= same, "{ocb} {same}");
}

/// A net's value is scaled by the same rules, for whichever side it favours, from
/// the side to move's view; outside those endings it passes unchanged.
#[test]
fn a_nets_value_is_scaled_in_drawish_endings() {
    let b = |fen: &str| Board::from_fen(fen).unwrap();
    // KB v K: nothing to win, whoever is to move and whatever sign.
    for fen in [
        "8/8/4k3/8/8/3BK3/8/8 w - - 0 1",
        "8/8/4k3/8/8/3BK3/8/8 b - - 0 1",
    ] {
        for v in [350, -350] {
            assert_eq!(Evaluator::scale_net(&b(fen), v), 0, "{fen} {v}");
        }
    }
    // Opposite-coloured bishops, one pawn up: a quarter stays.
    let ocb = b("4k3/8/3b4/8/2P5/3B4/8/4K3 w - - 0 1");
    assert_eq!(Evaluator::scale_net(&ocb, 200), 50);
    // Black to move and the net likes Black: the scale is of Black's edge.
    let ocb_b = b("4k3/5p2/3b4/8/8/3B4/8/4K3 b - - 0 1");
    assert_eq!(Evaluator::scale_net(&ocb_b, 80), 80 * 32 / 128);
    // An ordinary middle game: unchanged.
    assert_eq!(Evaluator::scale_net(&b(KNOB_FEN), 123), 123);
    assert_eq!(Evaluator::scale_net(&b(KNOB_FEN), -77), -77);
    assert_eq!(Evaluator::scale_net(&b(KNOB_FEN), 0), 0);
}

#[test]
fn mop_up_drives_the_king_to_the_edge() {
    let edge = eval_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let center = eval_fen("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    assert!(edge > center, "{edge} {center}");
    // Bishop and knight: towards a corner of the bishop's colour (c1 is dark: a1/h8).
    let right = eval_fen("7k/8/8/8/3K4/8/8/2B1N3 w - - 0 1");
    let wrong = eval_fen("k7/8/8/8/3K4/8/8/2B1N3 w - - 0 1");
    assert!(right > wrong && wrong > 300, "{right} {wrong}");
}

// ----- knobs ---------------------------------------------------------------------------------

/// A middle game with weak pawns, passed pawns, attacks on both kings and blocked
/// centre pawns. White's a5 pawn gives the passed-pawn term a clear net value (with
/// only the e5 pawn, its middle and end game parts tapered to zero under the second
/// retuned weights, so `ppscale 0` changed nothing).
const KNOB_FEN: &str = "r4rk1/5pbp/2n1b1p1/P2pP3/q2N1P2/2P1B1Q1/2P1B1PP/R4RK1 w - - 0 1";
const KNOB_FEN2: &str = "2rq1rk1/pp3ppp/2n1pn2/3p4/1bPP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 1";

fn with(name: &str, value: i32, fen: &str) -> Breakdown {
    let mut p = EvalParams::default();
    p.set(name, value).unwrap();
    let mut e = Evaluator::new(0);
    e.set_params(p);
    breakdown_fen(&mut e, fen)
}

#[test]
fn knobs_scale_their_terms() {
    let base = with("pscale", 100, KNOB_FEN);
    for (name, term) in [
        ("pscale", Term::Pawns),
        ("ppscale", Term::PassedPawns),
        ("kscale", Term::KingSafety),
        ("tropism", Term::Tropism),
        ("bscale", Term::BlockedPawns),
    ] {
        let b = base.row(term);
        assert!(
            b.white != S::ZERO || b.black != S::ZERO,
            "{name}: the test position needs a non-zero {}",
            term.name()
        );
        let zero = with(name, 0, KNOB_FEN);
        assert_eq!(zero.row(term).white, S::ZERO, "{name} 0");
        assert_eq!(zero.row(term).black, S::ZERO, "{name} 0");
        let double = with(name, 200, KNOB_FEN);
        assert_eq!(double.row(term).white, b.white * 2, "{name} 200");
        assert_eq!(double.row(term).black, b.black * 2, "{name} 200");
        // Nothing else moves.
        for t in Term::ALL.iter().filter(|&&t| t != term) {
            assert_eq!(zero.row(*t), base.row(*t), "{name} changed {}", t.name());
        }
        assert_ne!(zero.score, base.score, "{name} 0 changed nothing");
    }
    // The blocked-pawns knob on a position with a blocked centre pawn.
    let b2 = with("bscale", 100, KNOB_FEN2);
    assert!(b2.row(Term::BlockedPawns).white.mg < 0 || b2.row(Term::BlockedPawns).black.mg < 0);
}

#[test]
fn asymmetry_scales_the_opponents_king_safety_only() {
    let mut p = EvalParams::default();
    p.set("asymmetry", 50).unwrap();
    let board = Board::from_fen(KNOB_FEN).unwrap();
    let mut e = Evaluator::new(0);
    let base = e.breakdown(&board);
    e.set_params(p);
    // No engine colour: symmetric, the knob does nothing.
    assert_eq!(e.breakdown(&board).rows, base.rows);
    e.set_engine_color(Some(Color::White));
    let w = e.breakdown(&board);
    let ks = base.row(Term::KingSafety);
    assert_eq!(w.row(Term::KingSafety).white, ks.white);
    assert_eq!(w.row(Term::KingSafety).black, ks.black.percent(150));
    e.set_engine_color(Some(Color::Black));
    let b = e.breakdown(&board);
    assert_eq!(b.row(Term::KingSafety).white, ks.white.percent(150));
    assert_eq!(b.row(Term::KingSafety).black, ks.black);
    assert_eq!(e.engine_color(), Some(Color::Black));
}

#[test]
fn params_set_and_reject() {
    let mut p = EvalParams::default();
    assert_eq!(
        (
            p.asymmetry,
            p.bscale,
            p.kscale,
            p.tropism,
            p.pscale,
            p.ppscale
        ),
        (0, 100, 100, 100, 100, 100)
    );
    for name in EvalParams::NAMES {
        p.set(name, 50).unwrap();
        assert_eq!(p.get(name), Some(50));
    }
    let err = p.set("kingsafety", 100).unwrap_err();
    assert!(err.contains("kingsafety"), "{err}");
    for name in EvalParams::NAMES {
        assert!(err.contains(name), "{err}");
    }
    let err = p.set("kscale", -5).unwrap_err();
    assert!(err.contains("kscale") && err.contains("range"), "{err}");
    assert!(p.set("asymmetry", -100).is_ok());
    assert!(p.set("asymmetry", 101).is_err());
    assert_eq!(p.get("nonsense"), None);
    assert_eq!(p.asymmetry, -100);
    let table = p.king_safety_table();
    assert!(
        table.contains("opponent") && table.lines().count() > 4,
        "{table}"
    );
}

// ----- the score table -------------------------------------------------------------------

#[test]
fn breakdown_display_names_every_term() {
    let mut e = Evaluator::new(0);
    let bd = breakdown_fen(&mut e, KNOB_FEN);
    let text = bd.to_string();
    for name in TERM_NAMES {
        assert!(text.contains(name), "{name} missing from\n{text}");
    }
    assert!(text.contains("White") && text.contains("Black") && text.contains("score"));
    assert!(text.contains("phase") && text.contains("draw scale"));
    let m = breakdown_fen(
        &mut e,
        "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    let text = m.to_string();
    // A queen less with phase 24 - 4: the queen's material tapered at phase 20.
    let queen = weights::MATERIAL[4].taper(20, PHASE_MAX);
    let shown = format!("{:.2}", queen as f64 / 100.0);
    assert!(
        text.contains("material") && text.contains(&shown),
        "{shown} not in\n{text}"
    );
}

// ----- speed -----------------------------------------------------------------------------

/// `cargo test --release --lib eval::tests::speed -- --ignored --nocapture`
#[test]
#[ignore]
fn speed() {
    let mut boards = epd_boards("epd/wac.epd", 1);
    if boards.is_empty() {
        boards = random_game_boards(20, 60);
    }
    let mut e = Evaluator::new(1 << 20);
    let n = 2_000_000usize;
    let mut sum = 0i64;
    let start = std::time::Instant::now();
    for i in 0..n {
        sum += i64::from(e.evaluate(&boards[i % boards.len()]));
    }
    let el = start.elapsed();
    let per_sec = n as u128 * 1_000_000_000 / el.as_nanos().max(1);
    println!(
        "{} positions, {n} evals in {:?}: {} evals/s, {} ns/eval (checksum {sum})",
        boards.len(),
        el,
        per_sec,
        el.as_nanos() / n as u128
    );
}

/// Prints the `score` table of each FEN in `FENS` (separated by `|`):
/// `FENS='<fen>|<fen>' cargo test --lib eval::tests::show_breakdown -- --ignored --nocapture`
#[test]
#[ignore]
fn show_breakdown() {
    let mut e = Evaluator::new(0);
    for fen in std::env::var("FENS").unwrap_or_default().split('|') {
        if !fen.is_empty() {
            println!("{fen}\n{}\n", breakdown_fen(&mut e, fen));
        }
    }
}

// ----- the tuner's trace --------------------------------------------------------------

#[test]
fn trace_reproduces_the_evaluation_exactly() {
    let w = params::current();
    assert_eq!(w.len(), params::NUM_PARAMS);
    let mut ev = Evaluator::new(1 << 20);
    let boards = all_boards();
    assert!(boards.len() >= 3000, "only {} positions", boards.len());
    for b in &boards {
        let v = ev.evaluate(b);
        let white = if b.side_to_move() == Color::White {
            v
        } else {
            -v
        };
        let tr = ev.trace(b);
        assert_eq!(tr.evaluate(&w), white, "{}", b.to_fen());
    }
}

#[test]
fn trace_counts_what_is_on_the_board() {
    let mut ev = Evaluator::default();
    // White has an extra knight on f3; Black's king has no shield pawns.
    let b = Board::from_fen("4k3/8/8/8/8/5N2/PPP5/1K6 w - - 0 1").unwrap();
    let tr = ev.trace(&b);
    assert_eq!(tr.coef[params::ix::MATERIAL + 1], 1);
    assert_eq!(tr.coef[params::ix::MATERIAL], 3);
    // f3 is row 5 (rank 3) of White's diagram: index 5 * 8 + 5.
    assert_eq!(tr.coef[params::ix::PSQT_KNIGHT + 45], 1);
    assert_eq!(tr.coef[params::ix::TEMPO], 1);
    // Each weight's trace moves the result by exactly its coefficient.
    let mut w = params::current();
    let before = tr.total(&w);
    w[params::ix::PSQT_KNIGHT + 45] += s(7, 3);
    assert_eq!(tr.total(&w), before + s(7, 3));
    // Black to move: the tempo counts for Black.
    let b = Board::from_fen("4k3/8/8/8/8/5N2/PPP5/1K6 b - - 0 1").unwrap();
    assert_eq!(ev.trace(&b).coef[params::ix::TEMPO], -1);
}

#[test]
fn cpu_dispatched_evaluation_equals_the_portable_one() {
    // `evaluate` runs the copy compiled for `popcnt` where the CPU has it; both copies
    // must give the same number, or the bench signature would depend on the CPU. A
    // fresh evaluator for each copy, so neither reads the other's pawn hash entries.
    let mut dispatched = Evaluator::new(1 << 20);
    let mut portable = Evaluator::new(1 << 20);
    let boards = all_boards();
    assert!(boards.len() >= 3000, "only {} positions", boards.len());
    for b in &boards {
        assert_eq!(
            dispatched.evaluate(b),
            portable.evaluate_portable(b),
            "{}",
            b.to_fen()
        );
    }
}

#[test]
fn piece_and_threat_terms_fire_where_they_should() {
    let mut ev = Evaluator::default();
    let coef = |ev: &mut Evaluator, fen: &str, ix: usize| {
        ev.trace(&Board::from_fen(fen).unwrap()).coef[ix]
    };
    // A rook behind its passed pawn; in front of it, not.
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/8/3P4/8/8/3RK3 w - - 0 1",
            params::ix::ROOK_BEHIND_PASSER
        ),
        1
    );
    assert_eq!(
        coef(
            &mut ev,
            "4k3/3R4/8/8/3P4/8/8/4K3 w - - 0 1",
            params::ix::ROOK_BEHIND_PASSER
        ),
        0
    );
    // A rook attacking the queen on its file.
    let fen = "3qk3/8/8/8/8/8/8/3RK3 w - - 0 1";
    assert_eq!(coef(&mut ev, fen, params::ix::THREAT_BY_ROOK + 4), 1);
    assert_eq!(coef(&mut ev, fen, params::ix::ROOK_ON_QUEEN_FILE), 1);
    // e3-e4 would attack the knight on d5; with a black pawn on e5 it cannot go.
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/3n4/8/4P3/8/4K3 w - - 0 1",
            params::ix::THREAT_PAWN_PUSH
        ),
        1
    );
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/3n4/4p3/4P3/8/4K3 w - - 0 1",
            params::ix::THREAT_PAWN_PUSH
        ),
        0
    );
    // A knight attacking an undefended bishop; defended by a pawn it does not count.
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/3b4/8/2N5/8/4K3 w - - 0 1",
            params::ix::THREAT_BY_MINOR + 2
        ),
        1
    );
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/4p3/3b4/8/2N5/8/4K3 w - - 0 1",
            params::ix::THREAT_BY_MINOR + 2
        ),
        0
    );
    // White's king on the pawnless king side, Black's next to the a-pawn.
    assert_eq!(
        coef(
            &mut ev,
            "k7/8/8/8/8/8/P7/6K1 w - - 0 1",
            params::ix::PAWNLESS_FLANK
        ),
        1
    );
    // Only Black's king can be checked (by the rook from a8): Black's count.
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
            params::ix::SAFE_CHECK_SQUARES + 3
        ),
        -1
    );
    // A bishop on the open long diagonal; a knight behind its own pawn.
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/8/8/8/1B6/4K3 w - - 0 1",
            params::ix::BISHOP_LONG_DIAGONAL
        ),
        1
    );
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/8/3P4/8/1B6/4K3 w - - 0 1",
            params::ix::BISHOP_LONG_DIAGONAL
        ),
        0
    );
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/8/8/3P4/3N4/4K3 w - - 0 1",
            params::ix::MINOR_BEHIND_PAWN
        ),
        1
    );
    // Knights gain with pawns on the board, per pawn over five.
    assert_eq!(
        coef(
            &mut ev,
            "4k3/8/8/8/8/8/PPPPPPPP/1N2K3 w - - 0 1",
            params::ix::KNIGHT_PAWNS
        ),
        3
    );
}

#[test]
fn knob_deviation_is_what_the_knobs_add_to_a_net() {
    // At the defaults a net plays alone; a moved knob adds exactly the change it
    // makes to the handcrafted evaluation (so `kscale 150` adds half the king
    // safety term again), for the side to move.
    let mut ev = Evaluator::new(1 << 16);
    let mut plain = Evaluator::new(1 << 16);
    let boards = all_boards();
    for b in boards.iter().step_by(37) {
        assert_eq!(ev.knob_deviation(b), 0, "{}", b.to_fen());
    }
    let p = EvalParams {
        kscale: 150,
        ppscale: 60,
        ..EvalParams::default()
    };
    ev.set_params(p);
    let mut moved = 0;
    for b in boards.iter().step_by(37) {
        let mut with = Evaluator::new(1 << 16);
        with.set_params(p);
        let want = with.evaluate(b) - plain.evaluate(b);
        assert_eq!(ev.knob_deviation(b), want, "{}", b.to_fen());
        moved += (want != 0) as usize;
    }
    assert!(moved > 20, "the knobs moved only {moved} evaluations");
}
