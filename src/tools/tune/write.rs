//! Writing `src/eval/weights.rs` from a flat vector of weights: one constant per
//! registry entry, in registry order, with its doc line; lists of pairs eight to a
//! line and piece-square tables as board diagrams, so the file reads like the
//! hand-written one and `rustfmt` leaves it alone.

use crate::eval::params::{Shape, PARAMS};
use crate::eval::S;
use std::fmt::Write;

/// The header's fixed part; `origin` follows it.
const HEADER: &str = "\
//! The tunable weights of the evaluation, in centipawns, as (middle game, end game)
//! pairs (`i32` where a term is middle game only). `src/eval/params.rs` lists them for
//! the tuner, which writes this file (`kibitzer tune run ... --write`); a hand edit is
//! fine, the next tuning starts from it.
//!
";

/// The text of `weights.rs` for the flat `weights`, with `origin` (one or more lines,
/// saying where the numbers came from) in the header.
pub fn render(weights: &[S], origin: &str) -> String {
    let mut out = String::from(HEADER);
    for line in origin.lines() {
        let _ = writeln!(out, "//! {line}").map(|_| ());
    }
    out = out.replace("//! \n", "//!\n");
    out.push_str("\nuse super::score::{s, S};\n");
    let mut at = 0;
    for p in PARAMS {
        let vals = &weights[at..at + p.len];
        at += p.len;
        let _ = writeln!(out, "\n/// {}", p.doc);
        match p.shape {
            Shape::Scalar => {
                let _ = writeln!(out, "pub const {}: S = {};", p.name, pair(vals[0]));
            }
            Shape::MgScalar => {
                let _ = writeln!(out, "pub const {}: i32 = {};", p.name, vals[0].mg);
            }
            Shape::Array | Shape::Psqt => {
                let _ = writeln!(out, "#[rustfmt::skip]");
                let _ = writeln!(out, "pub const {}: [S; {}] = [", p.name, p.len);
                for row in vals.chunks(8) {
                    let items: Vec<String> = row.iter().map(|&v| pair(v) + ",").collect();
                    let _ = writeln!(out, "    {}", items.join(" "));
                }
                out.push_str("];\n");
            }
            Shape::MgArray => {
                let _ = writeln!(out, "#[rustfmt::skip]");
                let _ = writeln!(out, "pub const {}: [i32; {}] = [", p.name, p.len);
                for row in vals.chunks(8) {
                    let items: Vec<String> = row.iter().map(|v| format!("{},", v.mg)).collect();
                    let _ = writeln!(out, "    {}", items.join(" "));
                }
                out.push_str("];\n");
            }
        }
    }
    out
}

fn pair(v: S) -> String {
    format!("s({}, {})", v.mg, v.eg)
}

/// The origin lines of a `weights.rs` text (what follows the fixed header), so a
/// rewrite with unchanged numbers reproduces the file.
pub fn origin_of(text: &str) -> Option<String> {
    let rest = text.strip_prefix(HEADER)?;
    let lines: Vec<&str> = rest
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| {
            l.strip_prefix("//! ")
                .unwrap_or(l.trim_start_matches("//!"))
        })
        .collect();
    Some(lines.join("\n"))
}
