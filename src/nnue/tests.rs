//! The net: incremental accumulators against a refresh from scratch over every
//! kind of move, the SIMD copies against the plain one, the file format, colour
//! symmetry.

use super::simd::{self, Level};
use super::*;
use crate::chess::{Board, Move};

struct Xs(u64);

impl Xs {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn range(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % (hi - lo + 1) as u64) as i32
    }
}

/// A net with random weights small enough for any position.
pub(crate) fn random_net(seed: u64) -> Network {
    let mut x = Xs(seed | 1);
    Network {
        ft_w: (0..INPUTS * HIDDEN)
            .map(|_| x.range(-400, 400) as i16)
            .collect(),
        ft_b: (0..HIDDEN).map(|_| x.range(-300, 300) as i16).collect(),
        out_w: (0..BUCKETS * 2 * HIDDEN)
            .map(|_| x.range(-127, 127) as i16)
            .collect(),
        out_b: (0..BUCKETS).map(|_| x.range(-100_000, 100_000)).collect(),
        base: Base::Alone,
        out_pct: 100,
        source: "random".into(),
    }
}

/// Walks every line `depth` plies deep, checking the incremental accumulator
/// against a refresh at every node.
fn walk(net: &Network, stack: &mut AccumulatorStack, b: &mut Board, depth: u32, n: &mut u64) {
    assert_eq!(
        stack.current(),
        &net.refresh(b),
        "after {:?} at {}",
        b.to_fen(),
        depth
    );
    *n += 1;
    if depth == 0 {
        return;
    }
    let moves: Vec<Move> = b.legal_moves().iter().copied().collect();
    for m in moves {
        stack.push(b, m);
        b.make_move(m);
        walk(net, stack, b, depth - 1, n);
        b.unmake_move();
        stack.pop();
    }
    if !b.in_check() {
        stack.push_null();
        b.make_null_move();
        assert_eq!(stack.current(), &net.refresh(b));
        b.unmake_null_move();
        stack.pop();
    }
}

#[test]
fn incremental_accumulators_equal_a_refresh_for_every_kind_of_move() {
    let net = Arc::new(random_net(7));
    let mut total = 0;
    for fen in [
        // Castling both ways for both sides, captures, en passant.
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        // Promotions with and without capture, for both sides.
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ] {
        let mut b = Board::from_fen(fen).unwrap();
        let mut stack = AccumulatorStack::new(net.clone());
        stack.reset(&b);
        walk(&net, &mut stack, &mut b, 3, &mut total);
        assert_eq!(
            stack.evaluate(b.side_to_move(), b.occupied().count()),
            net.evaluate(&b),
            "{fen}"
        );
    }
    assert!(total > 10_000, "{total} nodes");
}

#[test]
fn every_simd_copy_gives_the_plain_result() {
    let levels = Level::available();
    let mut x = Xs(0xDEAD_BEEF);
    for round in 0..200 {
        // Extremes too: the sums wrap the same way everywhere.
        let big = if round % 10 == 0 { 32767 } else { 600 };
        let acc: Vec<i16> = (0..HIDDEN).map(|_| x.range(-big, big) as i16).collect();
        let rows: Vec<Vec<i16>> = (0..4)
            .map(|_| (0..HIDDEN).map(|_| x.range(-big, big) as i16).collect())
            .collect();
        let w: Vec<i16> = (0..HIDDEN).map(|_| x.range(-32767, 32767) as i16).collect();
        let plain_dot = simd::crelu_dot_with(Level::Scalar, &acc, &w);
        let mut plain = vec![0; HIDDEN];
        simd::update_with(
            Level::Scalar,
            &mut plain,
            &acc,
            &[&rows[0], &rows[1]],
            &[&rows[2], &rows[3]],
        );
        // By hand, for the first element.
        assert_eq!(
            plain[0],
            acc[0]
                .wrapping_add(rows[0][0])
                .wrapping_add(rows[1][0])
                .wrapping_sub(rows[2][0])
                .wrapping_sub(rows[3][0])
        );
        for &l in &levels {
            assert_eq!(simd::crelu_dot_with(l, &acc, &w), plain_dot, "{}", l.name());
            let mut a = vec![0; HIDDEN];
            simd::update_with(
                l,
                &mut a,
                &acc,
                &[&rows[0], &rows[1]],
                &[&rows[2], &rows[3]],
            );
            assert_eq!(a, plain, "{}", l.name());
            // Every shape a move gives (the AVX2 copy has its own loops for the
            // common ones) and others, each against the plain copy.
            for (n_add, n_sub) in [(1, 1), (1, 2), (2, 2), (2, 1), (1, 0), (0, 0)] {
                let adds: Vec<&[i16]> = rows[..n_add].iter().map(|r| &r[..]).collect();
                let subs: Vec<&[i16]> = rows[2..2 + n_sub].iter().map(|r| &r[..]).collect();
                let mut want = vec![0; HIDDEN];
                simd::update_with(Level::Scalar, &mut want, &acc, &adds, &subs);
                let mut got = vec![1; HIDDEN];
                simd::update_with(l, &mut got, &acc, &adds, &subs);
                assert_eq!(got, want, "{} {n_add}+{n_sub}-", l.name());
            }
            // A length that is not a whole number of vectors: the tail is done too.
            let n = HIDDEN - 5;
            let mut short = vec![0; n];
            let (r0, r1) = (&rows[0][..n], &rows[1][..n]);
            simd::update_with(l, &mut short, &acc[..n], &[r0], &[r1]);
            assert_eq!(
                short[n - 1],
                acc[n - 1].wrapping_add(r0[n - 1]).wrapping_sub(r1[n - 1])
            );
        }
    }
    // The dot product really clips: negative inputs count 0, large ones QA.
    let acc = [-5i16, 0, 100, 1000].repeat(HIDDEN / 4);
    let w = vec![1i16; HIDDEN];
    for &l in &levels {
        assert_eq!(
            simd::crelu_dot_with(l, &acc, &w),
            (HIDDEN / 4) as i32 * (100 + QA)
        );
    }
}

#[test]
fn net_files_round_trip_and_damage_is_named() {
    let net = random_net(3);
    let bytes = net.to_bytes();
    assert_eq!(bytes.len(), FILE_BYTES);
    let back = Network::from_bytes(&bytes, "x").unwrap();
    assert_eq!(back.ft_w, net.ft_w);
    assert_eq!(back.ft_b, net.ft_b);
    assert_eq!(back.out_w, net.out_w);
    assert_eq!(back.out_b, net.out_b);
    let mut bad = bytes.clone();
    bad[1000] ^= 1;
    assert!(Network::from_bytes(&bad, "x")
        .unwrap_err()
        .contains("checksum"));
    assert!(Network::from_bytes(&bytes[..500], "x")
        .unwrap_err()
        .contains("bytes"));
    assert!(Network::from_bytes(b"hello", "x")
        .unwrap_err()
        .contains("not a kibitzer net"));
    let mut other = bytes.clone();
    other[8..12].copy_from_slice(&0u32.to_le_bytes()); // hidden size 0
    assert!(Network::from_bytes(&other, "x")
        .unwrap_err()
        .contains("this program reads"));
    let mut other = bytes.clone();
    other[24] = 1; // one output bucket
    assert!(Network::from_bytes(&other, "x")
        .unwrap_err()
        .contains("1 buckets"));
    for old in [b"KBZNET01", b"KBZNET02"] {
        let mut first = bytes.clone();
        first[..8].copy_from_slice(old);
        let e = Network::from_bytes(&first, "x").unwrap_err();
        assert!(
            e.contains("an earlier format") && e.contains("train it again"),
            "{e}"
        );
    }
    // The base field: 1 and 2 (on the handcrafted evaluation, on its material)
    // round-trip, 3 is refused.
    assert_eq!(back.base, Base::Alone);
    for base in [Base::Handcrafted, Base::Material] {
        let mut on = random_net(3);
        on.base = base;
        assert_eq!(Network::from_bytes(&on.to_bytes(), "x").unwrap().base, base);
    }
    let mut other = bytes.clone();
    other[28] = 3;
    assert!(Network::from_bytes(&other, "x")
        .unwrap_err()
        .contains("base 3"));
    // Weights whose sum could overflow the accumulator are refused.
    let mut wild = random_net(3);
    for f in 0..INPUTS {
        wild.ft_w[f * HIDDEN + 5] = 2000;
    }
    let e = Network::from_bytes(&wild.to_bytes(), "wild").unwrap_err();
    assert!(e.contains("neuron 5 could overflow"), "{e}");
    let dir = std::env::temp_dir().join(format!("kbz-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("n.knn");
    std::fs::write(&p, &bytes).unwrap();
    assert_eq!(Network::load(p.to_str().unwrap()).unwrap().ft_w, net.ft_w);
    assert!(Network::load(dir.join("none.knn").to_str().unwrap())
        .unwrap_err()
        .contains("cannot read"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The output's weights and bias are those of the position's band of material:
/// 2-5 pieces bucket 0, ..., 30-32 bucket 7.
#[test]
fn each_band_of_material_has_its_own_output() {
    assert_eq!(
        [2, 5, 6, 9, 10, 29, 30, 32].map(bucket),
        [0, 0, 1, 1, 2, 6, 7, 7]
    );
    let mut net = random_net(5);
    let start = Board::startpos();
    let kpk = Board::from_fen("8/8/4k3/8/8/4P3/4K3/8 w - - 0 1").unwrap();
    let (s0, k0) = (net.evaluate(&start), net.evaluate(&kpk));
    // Zero bucket 0 (three pieces): the ending reads 0, the opening is untouched.
    net.out_w[..2 * HIDDEN].iter_mut().for_each(|w| *w = 0);
    net.out_b[0] = 0;
    assert_eq!(net.evaluate(&kpk), 0);
    assert_ne!(k0, 0);
    assert_eq!(net.evaluate(&start), s0);
    // And bucket 7 moves the opening only.
    net.out_b[7] += 1_000_000;
    assert_eq!(net.evaluate(&kpk), 0);
    assert!(net.evaluate(&start) > s0);
}

#[test]
fn the_net_sees_both_colours_alike() {
    // Each side's half is read from its own point of view, so a position and its
    // colour-mirrored twin (the other side to move) evaluate the same.
    let net = random_net(11);
    for fen in [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1",
    ] {
        let b = Board::from_fen(fen).unwrap();
        let rows: Vec<&str> = fen.split(' ').next().unwrap().split('/').rev().collect();
        let flipped: String = rows
            .join("/")
            .chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect();
        let stm = if b.side_to_move() == Color::White {
            "b"
        } else {
            "w"
        };
        let m = Board::from_fen(&format!("{flipped} {stm} - - 0 1")).unwrap();
        assert_eq!(net.evaluate(&b), net.evaluate(&m), "{fen}");
    }
}

/// A net on the handcrafted evaluation is added to it (knobs and all); a net
/// alone gets only the knobs' share, 0 at the defaults.
#[test]
fn compose_adds_the_handcrafted_value_to_a_net_on_it() {
    let board =
        Board::from_fen("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 0 1")
            .unwrap();
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    let hce = ev.evaluate(&board);
    let on = compose(Base::Handcrafted, 37, &mut ev, &board);
    assert_eq!((on.net, on.added, on.value), (37, hce, 37 + hce));
    let alone = compose(Base::Alone, 37, &mut ev, &board);
    assert_eq!((alone.net, alone.added, alone.value), (37, 0, 37));
    let mut p = *ev.params();
    p.kscale = 150;
    ev.set_params(p);
    let knobs = ev.evaluate(&board);
    assert_eq!(
        compose(Base::Handcrafted, 37, &mut ev, &board).value,
        37 + knobs
    );
    assert_eq!(
        compose(Base::Alone, 37, &mut ev, &board).value,
        37 + knobs - hce
    );
}

/// A net on the handcrafted material gets material, piece squares, pawns and
/// tempo added (the sum scaled in a drawish ending), plus the knobs' share.
#[test]
fn compose_adds_the_material_base_to_a_net_on_it() {
    let board =
        Board::from_fen("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 0 1")
            .unwrap();
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    let mb = ev.material_base(&board);
    let c = compose(Base::Material, 37, &mut ev, &board);
    assert_eq!((c.net, c.added, c.value), (37, mb, 37 + mb));
    // The base is cheap but not blind: it is symmetric in colour and sees a
    // rook more (about its material value).
    let black = Board::from_fen(&crate::eval::tests::mirror_fen(&board.to_fen())).unwrap();
    let mirror = board.clone();
    assert_eq!(ev.material_base(&black), ev.material_base(&mirror));
    let up = Board::from_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/R3K3 w Q - 0 1").unwrap();
    let even = Board::from_fen("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1").unwrap();
    let rook = ev.material_base(&up) - ev.material_base(&even);
    assert!((350..=750).contains(&rook), "a rook is worth {rook}");
    // With kscale 150 the knobs' share (the whole evaluation's change) is added.
    let mut p = *ev.params();
    p.kscale = 150;
    ev.set_params(p);
    let share = ev.knob_deviation(&board);
    assert_ne!(share, 0);
    assert_eq!(
        compose(Base::Material, 37, &mut ev, &board).value,
        37 + mb + share
    );
    // A knight against a bare king: no mating material, a draw whatever the net
    // and the base say.
    let knight = Board::from_fen("4k3/8/8/8/8/8/8/3NK3 w - - 0 1").unwrap();
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    assert!(ev.material_base(&knight) > 200);
    let v = compose(Base::Material, 150, &mut ev, &knight).value;
    assert!(v.abs() < 30, "{v}");
}

/// The committed net (`nets/kibitzer.knn`, off by default) is one this program
/// reads: a net on the handcrafted evaluation whose corrections stay corrections
/// (the start position and a quiet middle game within half a pawn of the
/// handcrafted value, a queen up still a queen up).
#[test]
fn the_committed_net_loads_and_corrects_the_handcrafted_evaluation() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/kibitzer.knn");
    let net = Network::load(path).unwrap();
    assert_eq!(net.base, Base::Handcrafted);
    // `builtin` is that file, built into the program (any case).
    let builtin = Network::load("Builtin").unwrap();
    assert_eq!(builtin.to_bytes(), net.to_bytes());
    assert!(builtin.source.starts_with("builtin"), "{}", builtin.source);
    let mut ev = crate::eval::Evaluator::new(1 << 16);
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    ] {
        let b = Board::from_fen(fen).unwrap();
        let raw = net.evaluate(&b);
        assert!(raw.abs() < 50, "{fen}: correction {raw}");
    }
    let up = Board::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
    let c = super::compose(net.base, net.evaluate(&up), &mut ev, &up);
    assert!(c.value > 500, "a queen up: {c:?}");
}

/// The options table (which does not import the engine's modules) gives
/// `evaluation.netscale` and the knobs the ranges the engine checks:
/// `SCALE_RANGE` here, the evaluation's knob ranges there.
#[test]
fn the_options_table_ranges_are_the_engines() {
    use crate::options::{Kind, TABLE};
    let kind = |name: &str| {
        TABLE
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} is not in the table"))
            .kind
    };
    assert_eq!(
        kind("evaluation.netscale"),
        Kind::Int {
            min: *SCALE_RANGE.start(),
            max: *SCALE_RANGE.end()
        }
    );
    for knob in crate::eval::EvalParams::NAMES {
        let r = crate::eval::EvalParams::range(knob).unwrap();
        assert_eq!(
            kind(&format!("evaluation.{knob}")),
            Kind::Int {
                min: *r.start() as i64,
                max: *r.end() as i64
            },
            "{knob}"
        );
    }
}
