//! The trainer on small synthetic data: it learns (the loss falls, material is
//! read the right way round), a stopped run goes on exactly where it was, the
//! quantised net tracks the float one, and damaged records are skipped.

use super::*;
use crate::chess::Board;
use crate::tools::datagen::Sample;

/// Positions from pseudo-random games, scored by material (White's view).
fn material_data(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::new();
    let value = [100, 300, 300, 500, 900, 0];
    while out.len() < n * RECORD {
        let mut b = Board::startpos();
        for _ in 0..120 {
            let moves = b.legal_moves();
            if moves.is_empty() {
                break;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Captures first, so material changes hands.
            let caps: Vec<_> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let m = if !caps.is_empty() && x % 2 == 0 {
                caps[(x as usize / 2) % caps.len()]
            } else {
                moves[(x % moves.len() as u64) as usize]
            };
            b.make_move(m);
            let mut score = 0i32;
            for sq in b.occupied() {
                let p = b.piece_at(sq).unwrap();
                let v = value[p.kind().index()];
                score += if p.color() == crate::chess::Color::White {
                    v
                } else {
                    -v
                };
            }
            let s = Sample {
                board: Board::from_fen(&b.to_fen()).unwrap(),
                score: score.clamp(-2000, 2000) as i16,
                result: if score > 0 {
                    2
                } else if score < 0 {
                    0
                } else {
                    1
                },
                ply: 0,
            };
            out.extend_from_slice(&s.encode());
        }
    }
    out.truncate(n * RECORD);
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kbz-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts(dir: &Path, epochs: usize) -> TrainOptions {
    TrainOptions {
        data: vec![dir.join("data.bin")],
        out: dir.join("net.knn"),
        epochs,
        batch: 1024,
        lr: 0.003,
        threads: 2,
        ..TrainOptions::default()
    }
}

fn run(o: &TrainOptions) -> (Network, Vec<EpochReport>) {
    let data = Data::load(&o.data).unwrap();
    let mut reports = Vec::new();
    let net = train(o, &data, &AtomicBool::new(false), &|_, _| {}, &mut |r| {
        reports.push(r.clone())
    })
    .unwrap();
    (net, reports)
}

#[test]
fn the_trainer_learns_material_and_its_net_reads_it() {
    let dir = temp_dir("learn");
    std::fs::write(dir.join("data.bin"), material_data(30_000, 5)).unwrap();
    let (_, reports) = run(&opts(&dir, 4));
    assert_eq!(reports.len(), 4);
    let (first, last) = (&reports[0], &reports[3]);
    assert!(
        last.validation_loss < first.validation_loss * 0.9,
        "{reports:?}"
    );
    // The quantised net evaluates as the float one does, within a few centipawns.
    assert!(last.quantisation_cp < 5.0, "{reports:?}");
    // The file written is a net the engine loads, and it reads material.
    let net = Network::load(dir.join("net.knn").to_str().unwrap()).unwrap();
    let up = Board::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
    let down = Board::from_fen("3qk3/8/8/8/8/8/8/4K3 w - - 0 1").unwrap();
    let (u, d) = (net.evaluate(&up), net.evaluate(&down));
    assert!(u > 200 && d < -200, "queen up {u}, queen down {d}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_stopped_run_goes_on_where_it_was() {
    let a = temp_dir("resume-a");
    let b = temp_dir("resume-b");
    let data = material_data(6_000, 9);
    std::fs::write(a.join("data.bin"), &data).unwrap();
    std::fs::write(b.join("data.bin"), &data).unwrap();
    let (whole, _) = run(&opts(&a, 3));
    // The same command stopped (Ctrl-C) during its second epoch...
    let o = opts(&b, 3);
    let d = Data::load(&o.data).unwrap();
    let stop = AtomicBool::new(false);
    let mut first = Vec::new();
    train(&o, &d, &stop, &|_, _| {}, &mut |r| {
        first.push(r.epoch);
        stop.store(true, Ordering::SeqCst);
    })
    .unwrap();
    assert_eq!(first, [1]);
    // ... and started again.
    let (resumed, rest) = run(&opts(&b, 3));
    assert_eq!(
        rest.iter().map(|r| r.epoch).collect::<Vec<_>>(),
        vec![2, 3],
        "the second run starts at epoch 2"
    );
    assert!(
        whole.to_bytes() == resumed.to_bytes(),
        "the same net either way"
    );
    // A run to an epoch already reached trains no more.
    let (again, none) = run(&opts(&b, 3));
    assert!(none.is_empty());
    assert!(again.to_bytes() == resumed.to_bytes());
    std::fs::remove_dir_all(&a).ok();
    std::fs::remove_dir_all(&b).ok();
}

#[test]
fn damaged_records_are_counted_and_skipped() {
    let dir = temp_dir("damaged");
    let mut data = material_data(100, 3);
    data[26] = 9; // a result of 9
    data[32 + 8] = 0xff; // piece code 15
    data.extend_from_slice(&[1, 2, 3]); // a partial record
    std::fs::write(dir.join("data.bin"), &data).unwrap();
    let d = Data::load(&[dir.join("data.bin")]).unwrap();
    assert_eq!((d.len(), d.malformed, d.partial_bytes), (98, 2, 3));
    assert!(Data::load(&[dir.join("missing.bin")]).is_err());
    let empty = Data {
        bytes: Vec::new(),
        malformed: 0,
        partial_bytes: 0,
    };
    let e = train(
        &opts(&dir, 1),
        &empty,
        &AtomicBool::new(false),
        &|_, _| {},
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("too few"), "{e}");
    let mut bad = opts(&dir, 1);
    bad.lambda = 1.5;
    let e = train(&bad, &d, &AtomicBool::new(false), &|_, _| {}, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("--lambda"), "{e}");
    let mut bad = opts(&dir, 1);
    bad.result_scale = Some(0.0);
    let e = train(&bad, &d, &AtomicBool::new(false), &|_, _| {}, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("--result-scale"), "{e}");
    // A checkpoint of something else is refused by name.
    std::fs::write(checkpoint_path(&dir.join("net.knn")), b"junk").unwrap();
    let e = train(
        &opts(&dir, 1),
        &d,
        &AtomicBool::new(false),
        &|_, _| {},
        &mut |_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("not a checkpoint"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_mirrored_record_is_the_mirrored_position() {
    // The a-h mirror the trainer uses on half the positions: the same inputs as
    // the record of the board mirrored file by file (and `mirrored`, which gives
    // the handcrafted value of the mirror, is that board).
    let fen = "r1bq1rk1/pp3ppp/2n1pn2/2bp4/2P5/2N1PN2/PP1B1PPP/R2QKB1R b - - 0 1";
    let flipped = "1kr1qb1r/ppp3pp/2np1n2/4pb2/5P2/2NP1N2/PPP1B1PP/R1BKQ2R b - - 0 1";
    let rec = |f: &str| {
        Sample {
            board: Board::from_fen(f).unwrap(),
            score: 37,
            result: 1,
            ply: 0,
        }
        .encode()
    };
    let sorted = |p: &Pos| {
        let mut v: Vec<Vec<u16>> = p.feats.iter().map(|f| f[..p.n].to_vec()).collect();
        v.iter_mut().for_each(|x| x.sort_unstable());
        (v, p.stm, p.score.to_bits(), p.result.to_bits())
    };
    let a = decode(&rec(fen), true).unwrap();
    let b = decode(&rec(flipped), false).unwrap();
    assert_eq!(sorted(&a), sorted(&b));
    assert_ne!(sorted(&a), sorted(&decode(&rec(fen), false).unwrap()));
    assert_eq!(
        mirrored(&Board::from_fen(fen).unwrap()).unwrap().to_fen(),
        Board::from_fen(flipped).unwrap().to_fen()
    );
}

#[test]
fn a_net_on_the_handcrafted_evaluation_learns_what_it_misses() {
    learns_what_its_base_misses(Base::Handcrafted);
}

#[test]
fn a_net_on_the_handcrafted_material_learns_what_it_misses() {
    learns_what_its_base_misses(Base::Material);
}

fn learns_what_its_base_misses(base: Base) {
    // Scores: the base's value with each knight worth 200 more than it says
    // (positions within 10 pawns, where the sigmoid still learns).
    let dir = temp_dir(&format!("on-{}", base as u32));
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    let mut data = Vec::new();
    for rec in material_data(60_000, 7).chunks_exact(RECORD) {
        let s = Sample::decode(rec).unwrap();
        let stm = match base {
            Base::Material => ev.material_base(&s.board),
            _ => ev.evaluate(&s.board),
        };
        let white = match s.board.side_to_move() {
            crate::chess::Color::White => stm,
            crate::chess::Color::Black => -stm,
        };
        let knights = |c| s.board.pieces(c, crate::chess::PieceType::Knight).count() as i32;
        let score = white
            + 200 * (knights(crate::chess::Color::White) - knights(crate::chess::Color::Black));
        if white.abs() < 1000 && score.abs() < 1000 {
            let mut r = rec.to_vec();
            r[24..26].copy_from_slice(&(score as i16).to_le_bytes());
            data.extend_from_slice(&r);
        }
    }
    std::fs::write(dir.join("data.bin"), &data).unwrap();
    let mut o = opts(&dir, 4);
    o.base = base;
    let (_, reports) = run(&o);
    assert!(reports[3].quantisation_cp < 5.0, "{reports:?}");
    let net = Network::load(dir.join("net.knn").to_str().unwrap()).unwrap();
    assert_eq!(net.base, base, "the file says what the net is");
    // The net holds the knight's 200, not the handcrafted value of the knight.
    let knight = |stm: &str| {
        Board::from_fen(&format!(
            "r3k3/pppppppp/8/8/8/8/PPPPPPPP/RN2K3 {stm} - - 0 1"
        ))
        .unwrap()
    };
    let none = Board::from_fen("r3k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w - - 0 1").unwrap();
    let (w, b, n) = (
        net.evaluate(&knight("w")),
        net.evaluate(&knight("b")),
        net.evaluate(&none),
    );
    assert!(w - n > 100 && w - n < 320, "White's knight {w}, none {n}");
    assert!(b < -80, "White's knight, Black to move: {b}");
    // The finished net scored on its own (its base computed again) has the loss
    // its last epoch reported (the float net's; the file's is quantised).
    let d = Data::load(&o.data).unwrap();
    let (scored, last) = (net_loss(&o, &d, &net), reports[3].validation_loss);
    assert!(
        (scored - last).abs() < last * 0.1,
        "the file's net {scored}, its last epoch {last}"
    );
    // A checkpoint of the other kind is refused by name.
    o.epochs = 5;
    o.base = Base::Alone;
    let d = Data::load(&o.data).unwrap();
    let e = train(&o, &d, &AtomicBool::new(false), &|_, _| {}, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains(base.describe()), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_result_scale_is_fitted_to_how_scores_predict_results() {
    // Results drawn so that a score s wins with probability sigmoid(s / 150).
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let boards = material_data(40_000, 3);
    let mut bytes = Vec::new();
    for rec in boards.chunks_exact(RECORD) {
        let mut s = Sample::decode(rec).unwrap();
        let score = (next() * 1200.0 - 600.0) as i16;
        let white_wins = next() < 1.0 / (1.0 + (-(score as f64) / 150.0).exp());
        s.score = score;
        s.result = if white_wins { 2 } else { 0 };
        bytes.extend_from_slice(&s.encode());
    }
    let data = Data {
        bytes,
        malformed: 0,
        partial_bytes: 0,
    };
    let (k, e) = fit_result_scale(&data);
    assert!((120.0..=190.0).contains(&k), "fitted {k} (error {e})");
    // Where lambda is 1 the result's scale is not needed (nor fitted); given, it is kept.
    let mut o = TrainOptions::default();
    assert_eq!(blend(&o, &data).result_scale, nnue::SCALE as f32);
    o.lambda = 0.5;
    assert_eq!(blend(&o, &data).result_scale, k);
    o.result_scale = Some(220.0);
    assert_eq!(blend(&o, &data).result_scale, 220.0);
}

#[test]
fn the_blended_loss_has_the_gradient_it_reports_and_is_least_at_the_score() {
    let rec = Sample {
        board: Board::startpos(),
        score: 120,
        result: 2,
        ply: 0,
    }
    .encode();
    let p = decode(&rec, false).unwrap();
    let blend = Blend {
        lambda: 0.6,
        result_scale: 150.0,
    };
    for out in [-2.0f32, -0.3, 0.0, 0.3, 1.5] {
        let (_, g) = blend.loss_grad(out, &p);
        let h = 1e-3;
        let numeric = (blend.loss_grad(out + h, &p).0 - blend.loss_grad(out - h, &p).0) / (2.0 * h);
        assert!(
            (g - numeric).abs() < 1e-3,
            "at {out}: {g} against {numeric}"
        );
    }
    // The score alone: least where the output is the score (120 cp = 0.3 x 400).
    let alone = Blend {
        lambda: 1.0,
        result_scale: 150.0,
    };
    assert!(alone.loss_grad(0.3, &p).1.abs() < 1e-6);
    // A won game pulls the blended optimum above the score, but not far past it
    // at the fitted scale.
    let best = (0..400)
        .map(|i| i as f32 * 0.01)
        .min_by(|a, b| {
            blend
                .loss_grad(*a, &p)
                .0
                .total_cmp(&blend.loss_grad(*b, &p).0)
        })
        .unwrap();
    assert!(best > 0.3 && best < 1.5, "least loss at {best}");
}

#[test]
fn a_finished_run_rewrites_its_net_at_another_output_scale() {
    let dir = temp_dir("scale");
    std::fs::write(dir.join("data.bin"), material_data(30_000, 11)).unwrap();
    let o = opts(&dir, 3);
    let (whole, reports) = run(&o);
    assert_eq!(reports.len(), 3);
    let boards = [
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
        "3qk3/8/8/8/8/8/8/4K3 w - - 0 1",
        "r3k3/pppppppp/8/8/8/8/PPPPPPPP/RN2K3 b - - 0 1",
    ]
    .map(|f| Board::from_fen(f).unwrap());
    let full = boards.clone().map(|b| whole.evaluate(&b));
    assert!(full[0] > 200 && full[1] < -200, "{full:?}");
    // The same run at 50 %: no epoch trained, the file rewritten at half the output.
    let mut half = o.clone();
    half.output_scale = 50;
    let (net, reports) = run(&half);
    assert!(reports.is_empty(), "{reports:?}");
    let file = Network::load(dir.join("net.knn").to_str().unwrap()).unwrap();
    assert_eq!(*file, net);
    for (b, f) in boards.iter().zip(full) {
        let v = file.evaluate(b);
        // Within the rounding of 512 output weights.
        assert!((v - f / 2).abs() <= 8, "{v} against {f}");
    }
    // The engine's `evaluation.netscale` does the same to the whole net's value as
    // it is read (within the trainer's rounding), and names itself when refused.
    let at_half = whole.scaled(50).unwrap();
    assert!(at_half.source.ends_with("at 50%"), "{}", at_half.source);
    for (b, f) in boards.iter().zip(&file_values(&file, &boards)) {
        assert!((at_half.evaluate(b) - f).abs() <= 8, "{b:?}");
    }
    assert!(whole.scaled(100).unwrap() == whole);
    for bad in [9, 201] {
        let e = whole.scaled(bad).unwrap_err();
        assert!(e.contains("evaluation.netscale"), "{e}");
    }
    // Out of range is refused by name.
    half.output_scale = 0;
    let d = Data::load(&half.data).unwrap();
    let e = train(&half, &d, &AtomicBool::new(false), &|_, _| {}, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("--output-scale"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

fn file_values(net: &Network, boards: &[Board]) -> Vec<i32> {
    boards.iter().map(|b| net.evaluate(b)).collect()
}

#[test]
fn a_new_run_starts_from_a_net_given_with_init() {
    let dir = temp_dir("init");
    std::fs::write(dir.join("data.bin"), material_data(30_000, 13)).unwrap();
    let (first, reports) = run(&opts(&dir, 3));
    // The float net a quantised one stands for quantises back to it.
    let back = Model::from_network(&first).quantise(&first.source, first.base, 100);
    assert!(back == first);
    // A second run from that net starts where the first ended, not at random.
    let mut o = opts(&dir, 1);
    o.out = dir.join("next.knn");
    o.init = Some(dir.join("net.knn"));
    let (_, again) = run(&o);
    let (_, fresh) = run(&TrainOptions {
        out: dir.join("fresh.knn"),
        init: None,
        ..o.clone()
    });
    let last = reports[2].validation_loss;
    assert!(
        again[0].validation_loss < fresh[0].validation_loss
            && again[0].validation_loss < last * 1.2,
        "from the net {} (it ended at {last}), from random {}",
        again[0].validation_loss,
        fresh[0].validation_loss
    );
    // What the CLI prints before such a run: the starting net's loss, where the
    // first run ended.
    let d = Data::load(&o.data).unwrap();
    let start = net_loss(&o, &d, &first);
    assert!(
        (start - last).abs() < last * 0.1 && start < fresh[0].validation_loss,
        "the starting net {start}, its run's last epoch {last}"
    );
    // Refused by name: a run that exists already, and a net of another kind.
    let e = train(&o, &d, &AtomicBool::new(false), &|_, _| {}, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("holds a run already"), "{e}");
    let other = TrainOptions {
        out: dir.join("other.knn"),
        base: Base::Handcrafted,
        ..o.clone()
    };
    let e = train(&other, &d, &AtomicBool::new(false), &|_, _| {}, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("a net alone"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
