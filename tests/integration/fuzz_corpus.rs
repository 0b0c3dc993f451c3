//! The fuzz targets (`fuzz/src/lib.rs`, run coverage-guided with `cargo fuzz`) on
//! the stable toolchain: every committed corpus file of every target, then a few
//! thousand mutations of them (bytes flipped, inserted, deleted, pieces of two
//! inputs spliced), from a fixed seed so a failure repeats. A failing input is
//! written to `target/fuzz-failures/<target>-<n>` and named in the failure; put
//! it in `fuzz/corpus/<target>/` as a regression once fixed. `KIBITZER_FUZZ_SCALE=n`
//! runs n times as many mutations.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod targets;

use crate::common::Rng;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

fn corpus(name: &str) -> Vec<Vec<u8>> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

fn mutate(rng: &mut Rng, inputs: &[Vec<u8>]) -> Vec<u8> {
    let mut v = inputs[rng.below(inputs.len())].clone();
    for _ in 0..1 + rng.below(8) {
        let n = v.len();
        match rng.below(7) {
            0 if n > 0 => {
                let i = rng.below(n);
                v[i] ^= 1 << rng.below(8);
            }
            1 => {
                let i = rng.below(n + 1);
                const SPECIAL: &[u8] = b"\0\n\r\x19(){}[]<>;:/\\ -+=#%\"'\xff\x80";
                v.insert(i, SPECIAL[rng.below(SPECIAL.len())]);
            }
            2 if n > 0 => {
                let i = rng.below(n);
                let len = 1 + rng.below((n - i).min(16));
                v.drain(i..i + len);
            }
            3 if n > 0 => {
                let i = rng.below(n);
                v[i] = (rng.next_u64() & 0xff) as u8;
            }
            4 => {
                // Splice a piece of another input.
                let o = &inputs[rng.below(inputs.len())];
                if !o.is_empty() {
                    let a = rng.below(o.len());
                    let b = a + rng.below((o.len() - a).min(64)) + 1;
                    let i = rng.below(n + 1);
                    v.splice(i..i, o[a..b.min(o.len())].iter().copied());
                }
            }
            5 if n > 0 => {
                // Repeat a piece (bursts, long lines).
                let i = rng.below(n);
                let len = 1 + rng.below((n - i).min(32));
                let piece: Vec<u8> = v[i..i + len].to_vec();
                for _ in 0..1 + rng.below(32) {
                    v.splice(i..i, piece.iter().copied());
                }
            }
            _ if n > 0 => {
                // A number made extreme.
                let i = rng.below(n);
                const BIG: &[&[u8]] = &[
                    b"-1",
                    b"0",
                    b"99999999999999999999",
                    b"4294967296",
                    b"-2147483648",
                ];
                let w = BIG[rng.below(BIG.len())];
                v.splice(i..i, w.iter().copied());
            }
            _ => v.push(b'\n'),
        }
    }
    v
}

fn run_target(name: &str, mutations: usize) {
    let f = targets::TARGETS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no fuzz target {name}"))
        .1;
    // KIBITZER_FUZZ_SCALE=n runs n times the mutations (a longer local run).
    let scale: usize = std::env::var("KIBITZER_FUZZ_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mutations = mutations * scale;
    let inputs = corpus(name);
    assert!(!inputs.is_empty(), "fuzz/corpus/{name} is empty");
    let mut rng = Rng::new(0x5eed ^ name.len() as u64);
    let all = inputs
        .iter()
        .cloned()
        .chain((0..mutations).map(|_| mutate(&mut rng, &inputs)));
    for (n, input) in all.enumerate() {
        let t0 = std::time::Instant::now();
        let ok = catch_unwind(AssertUnwindSafe(|| f(&input))).is_ok();
        if t0.elapsed() > std::time::Duration::from_secs(2) {
            eprintln!(
                "fuzz target {name}: input {n} took {:.1} s: {:?}",
                t0.elapsed().as_secs_f64(),
                String::from_utf8_lossy(&input[..input.len().min(300)])
            );
        }
        if !ok {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
            let _ = std::fs::create_dir_all(&dir);
            let p = dir.join(format!("{name}-{n}"));
            let _ = std::fs::write(&p, &input);
            panic!(
                "fuzz target {name} failed on input {n} (saved in {}): {:?}",
                p.display(),
                String::from_utf8_lossy(&input[..input.len().min(300)])
            );
        }
    }
}

macro_rules! fuzz_tests {
    ($($name:ident: $n:expr,)*) => {
        $(
            #[test]
            fn $name() {
                run_target(stringify!($name), $n);
            }
        )*
        /// Every target of `fuzz/src/lib.rs` is run here.
        #[test]
        fn every_target_is_run_and_has_a_fuzz_binary() {
            let here = [$(stringify!($name)),*];
            for (t, _) in targets::TARGETS {
                assert!(here.contains(t), "{t} has no test here");
                let bin = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fuzz/fuzz_targets/{t}.rs"));
                assert!(bin.is_file(), "{} is missing", bin.display());
            }
        }
    };
}

fuzz_tests! {
    ics_text: 4000,
    icc_units: 4000,
    timeseal: 4000,
    lichess_events: 4000,
    web_http: 400,
    fen_epd: 3000,
    moves: 4000,
    pgn: 2000,
    config: 1000,
    protocol_lines: 1000,
    book_files: 2000,
    learning_files: 1000,
    engine_lines: 4000,
    tells_and_wire: 2000,
}
