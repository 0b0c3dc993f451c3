//! The tuner's arithmetic: the written file, the gradient against finite differences,
//! K, Adam, checkpoints and position extraction.

use super::data::Dataset;
use super::extract::{self, ExtractOptions, Sample};
use super::fit::{self, Adam, State};
use super::*;
use crate::chess::Board;
use crate::eval::params;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kibitzer-tune-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A few hundred positions from deterministic random games, labelled by a material
/// count so the data has a signal to fit.
fn samples() -> Vec<Sample> {
    let mut rng = Rng::new(3);
    let mut out = Vec::new();
    for _ in 0..40 {
        let mut b = Board::startpos();
        for _ in 0..60 {
            let moves = b.legal_moves();
            if moves.is_empty() {
                break;
            }
            b.make_move(moves.as_slice()[rng.below(moves.len())]);
            let board = Board::from_fen(&b.to_fen()).unwrap();
            let mut ev = crate::eval::Evaluator::default();
            let tr = ev.trace(&board);
            let m = (0..5)
                .map(|k| tr.coef[params::ix::MATERIAL + k] * [1, 3, 3, 5, 9][k])
                .sum::<i32>();
            let result = match m {
                m if m > 1 => 1.0,
                m if m < -1 => 0.0,
                _ => 0.5,
            };
            out.push(Sample { board, result });
        }
    }
    out
}

#[test]
fn weights_rs_is_the_writers_output() {
    let origin = write::origin_of(params::SOURCE).expect("weights.rs has the tuner's header");
    assert!(origin.starts_with("Origin:"), "{origin}");
    let text = write::render(&params::current(), &origin);
    assert!(
        text == params::SOURCE,
        "src/eval/weights.rs is not what `kibitzer tune write` produces from its own values"
    );
}

#[test]
fn gradient_matches_finite_differences() {
    let d = Dataset::build(&samples(), 2);
    assert!(d.len() > 1000);
    let w = start_weights();
    let k = 1.1;
    let g = fit::gradient(&d, &w, k, 2);
    let n = d.len() as f64;
    let usage = d.usage();
    let mut checked = 0;
    for i in [
        params::ix::MATERIAL + 1,
        params::ix::MATERIAL + 4,
        params::ix::TEMPO,
        params::ix::PSQT_KNIGHT + 45,
        params::ix::MOB_BISHOP + 6,
        params::ix::DOUBLED,
    ] {
        if usage[i] == 0 {
            continue;
        }
        for h in 0..2 {
            let eps = 0.5;
            let mut plus = w.clone();
            plus[i][h] += eps;
            let mut minus = w.clone();
            minus[i][h] -= eps;
            let numeric =
                (fit::error(&d, &plus, k, 2) - fit::error(&d, &minus, k, 2)) / (2.0 * eps);
            let analytic = 2.0 / n * g[i][h];
            let tol = 1e-3 * analytic.abs().max(1e-7);
            assert!(
                (numeric - analytic).abs() <= tol,
                "weight {i} half {h}: numeric {numeric:e} analytic {analytic:e}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 8);
}

#[test]
fn k_is_a_minimum_and_adam_lowers_the_error() {
    let d = Dataset::build(&samples(), 2);
    let w = start_weights();
    let k = fit::fit_k(&d, &w, 2);
    let e = fit::error(&d, &w, k, 2);
    assert!(e <= fit::error(&d, &w, k * 1.1, 2));
    assert!(e <= fit::error(&d, &w, k / 1.1, 2));
    let mut st = State::new(w, k);
    let mask = fit::free_mask();
    for _ in 0..30 {
        st.step(&d, Adam::default(), &mask, 2);
    }
    let after = fit::error(&d, &st.weights, k, 2);
    assert!(after < e, "{after} !< {e}");
    // Middle-game-only weights never get an end-game half.
    let shield = params::ix::SHIELD;
    assert_eq!(st.weights[shield + 5][1], 0.0);
}

#[test]
fn checkpoints_round_trip_and_reject_damage() {
    let dir = temp("state");
    let path = dir.join("t.state");
    let d = Dataset::build(&samples()[..200], 1);
    let mut st = State::new(start_weights(), 0.9);
    st.step(&d, Adam::default(), &fit::free_mask(), 1);
    st.save(&path).unwrap();
    assert_eq!(State::load(&path).unwrap(), st);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("params ", "params 1")).unwrap();
    let e = State::load(&path).unwrap_err().to_string();
    assert!(e.contains("this build has"), "{e}");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[10] = "1 2 x 4 5 6";
    std::fs::write(&path, lines.join("\n")).unwrap();
    let e = format!("{:#}", State::load(&path).unwrap_err());
    assert!(e.contains("line 11"), "{e}");
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn integer_weights_keep_the_king_danger_table_rising() {
    let mut w = start_weights();
    let kd = params::ix::KING_DANGER;
    w[kd + 30] = [1000.0, 900.0];
    w[kd + 31] = [3.2, -4.0];
    let ints = to_integer(&w);
    assert_eq!(ints[kd + 31], s(1000, 900));
    assert!(ints[kd + 63].mg >= 1000);
    assert_eq!(
        ints[params::ix::TEMPO],
        params::current()[params::ix::TEMPO]
    );
}

const GAMES: &str = r#"[Event "a"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O
9. h3 Nb8 10. d4 Nbd7 11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 1-0

[Event "b"]
[Result "*"]

1. d4 d5 2. c4 e6 *

[Event "c"]
[Result "1/2-1/2"]

1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. Qc2 O-O 5. a3 Bxc3+ 6. Qxc3 d5 7. Nf3 dxc4
8. Qxc4 b6 9. Bg5 Ba6 10. Qa4 c5 11. dxc5 bxc5 12. Rd1 Qb6 1/2-1/2
"#;

#[test]
fn extract_writes_quiet_distinct_positions_with_results() {
    let dir = temp("extract");
    let pgn = dir.join("g.pgn");
    std::fs::write(&pgn, GAMES).unwrap();
    let out = dir.join("p.txt");
    let opts = ExtractOptions {
        skip_plies: 4,
        per_game: 8,
        seed: 5,
    };
    let stats = extract::extract(std::slice::from_ref(&pgn), &out, &opts, &mut |_| {}).unwrap();
    let s = &stats[0].1;
    assert_eq!(s.games, 3);
    assert_eq!(s.games_skipped, 1, "the game without a result");
    assert_eq!(s.sampled, 16);
    assert_eq!(s.written + s.in_check + s.duplicates, s.sampled);
    let read = extract::read_positions(&out).unwrap();
    assert_eq!(read.len() as u64, s.written);
    let mut fens = std::collections::HashSet::new();
    let mut ev = crate::eval::Evaluator::default();
    for p in &read {
        assert!(!p.board.in_check());
        assert!(p.result == 1.0 || p.result == 0.5);
        assert!(fens.insert(p.board.to_fen()));
        // Quiet: the quiescence search finds nothing to resolve.
        let (leaf, _) = quiet::quiet_leaf(&p.board, &mut ev);
        assert_eq!(leaf.to_fen(), p.board.to_fen());
    }
    // The same seed gives the same file.
    let again = dir.join("q.txt");
    extract::extract(&[pgn], &again, &opts, &mut |_| {}).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&again).unwrap());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn bad_position_lines_name_the_problem() {
    let e = extract::parse_line("8/8/8/8/8/8/8/8 w - - 0 1").unwrap_err();
    assert!(format!("{e:#}").contains("expected"), "{e:#}");
    let e = extract::parse_line("4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 2-0").unwrap_err();
    assert!(format!("{e:#}").contains("'2-0'"), "{e:#}");
    let e = extract::parse_line("4k3/8/8/9/8/8/8/4K3 w - - 0 1 | 1-0").unwrap_err();
    assert!(format!("{e:#}").contains("bad FEN"), "{e:#}");
    let ok = extract::parse_line("4k3/8/8/8/8/8/8/4K3 b - - 0 1 | 0-1").unwrap();
    assert_eq!(ok.result, 0.0);
}
