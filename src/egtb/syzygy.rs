//! Syzygy tables through the `shakmaty-syzygy` crate (the prober of python-chess's
//! author; chosen over `pyrrhic-rs`, a process-wide singleton, and over writing our
//! own decoder, for the same speed with memory-mapped files).
//!
//! Our `Board` becomes a `shakmaty::Chess` straight from its bitboards, a value on the
//! stack, so a probe does not allocate. The crate opens a table lazily on its first
//! probe (allocating its decoding tables then), so `open` probes one position of every
//! table it finds: no WDL table is opened later, inside a search. A table that cannot
//! be opened is reported and left out.

use super::{sets, Dtz, Loaded, Tablebase, Wdl};
use crate::chess::{Board, Color, PieceType};
use shakmaty::{
    Bitboard as SBitboard, ByColor, ByRole, CastlingMode, Chess, Color as SColor, FromSetup,
    Position, Setup, Square as SSquare,
};
use shakmaty_syzygy::{filesystem::MmapFilesystem, MaybeRounded, SyzygyError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Loaded Syzygy tables.
pub struct SyzygyTables {
    tb: shakmaty_syzygy::Tablebase<Chess>,
    max_pieces: u32,
    dirs: Vec<PathBuf>,
    wdl: BTreeSet<String>,
    dtz: BTreeSet<String>,
}

impl std::fmt::Debug for SyzygyTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyzygyTables")
            .field("dirs", &self.dirs)
            .field("wdl", &self.wdl.len())
            .field("dtz", &self.dtz.len())
            .field("max_pieces", &self.max_pieces)
            .finish()
    }
}

fn mmap_tablebase() -> shakmaty_syzygy::Tablebase<Chess> {
    // SAFETY: the table files are memory-mapped. The contract is that they are not
    // modified while mapped and that reading them does not fail (an I/O error would
    // be a SIGBUS). Table directories are read-only data installed once; the README
    // says so. Every file is checked when it is loaded (`open` probes each table).
    let fs = unsafe { MmapFilesystem::new() }.with_advise_random(true);
    shakmaty_syzygy::Tablebase::with_filesystem(Arc::new(fs))
}

/// Table files (`.rtbw`, `.rtbz`) in `dir`, sorted, or why the directory cannot be read.
fn table_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd =
        std::fs::read_dir(dir).map_err(|e| format!("table directory '{}': {e}", dir.display()))?;
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let ext = p.extension().and_then(|e| e.to_str());
            matches!(ext, Some("rtbw") | Some("rtbz"))
                && p.file_stem()
                    .and_then(|s| s.to_str())
                    .and_then(sets::parse_stem)
                    .is_some()
        })
        .collect();
    v.sort();
    Ok(v)
}

fn probe_error_text(e: &SyzygyError) -> String {
    match e {
        SyzygyError::ProbeFailed {
            metric,
            material,
            error,
        } => {
            let why = match &**error {
                shakmaty_syzygy::ProbeError::Read { error } => format!("read error: {error}"),
                shakmaty_syzygy::ProbeError::Magic { .. } => "not a Syzygy table".to_string(),
                shakmaty_syzygy::ProbeError::CorruptedTable { .. } => "corrupted".to_string(),
            };
            format!("{metric} table {material}: {why}")
        }
        e => e.to_string(),
    }
}

impl SyzygyTables {
    /// Loads every table file of `dirs`, opens each table once (see the module
    /// comment) and reports what was found and what was not.
    pub fn open(dirs: &[PathBuf]) -> Loaded {
        let mut problems = Vec::new();
        let mut files: Vec<PathBuf> = Vec::new();
        let mut good_dirs = Vec::new();
        for d in dirs {
            match table_files(d) {
                Ok(f) if f.is_empty() => problems.push(format!(
                    "no Syzygy tables (*.rtbw, *.rtbz) in '{}'",
                    d.display()
                )),
                Ok(f) => {
                    files.extend(f);
                    good_dirs.push(d.clone());
                }
                Err(e) => problems.push(e),
            }
        }
        let mut bad: BTreeSet<PathBuf> = BTreeSet::new();
        // At most two rounds: the second leaves out the tables the first could not open.
        for _round in 0..2 {
            let mut tb = mmap_tablebase();
            let (mut wdl, mut dtz) = (BTreeSet::new(), BTreeSet::new());
            let round_files: Vec<&PathBuf> = files.iter().filter(|f| !bad.contains(*f)).collect();
            for f in round_files {
                match tb.add_file(f) {
                    Ok(()) => {
                        let stem = f
                            .file_stem()
                            .and_then(|s| s.to_str())
                            .unwrap_or_default()
                            .to_string();
                        if f.extension().and_then(|e| e.to_str()) == Some("rtbw") {
                            wdl.insert(stem);
                        } else {
                            dtz.insert(stem);
                        }
                    }
                    Err(e) => {
                        problems.push(format!("table file '{}': {e}", f.display()));
                        bad.insert(f.clone());
                    }
                }
            }
            let tables = SyzygyTables {
                max_pieces: tb.max_pieces() as u32,
                tb,
                dirs: good_dirs.clone(),
                wdl,
                dtz,
            };
            let failed = tables.open_all();
            if failed.is_empty() {
                if tables.wdl.is_empty() {
                    break;
                }
                let summary = tables.summary();
                return Loaded {
                    tables: Some(Arc::new(tables)),
                    summary,
                    problems,
                };
            }
            for (stem, why) in failed {
                problems.push(format!("left out: {why}"));
                for d in &good_dirs {
                    bad.insert(d.join(format!("{stem}.rtbw")));
                    bad.insert(d.join(format!("{stem}.rtbz")));
                }
            }
        }
        Loaded {
            tables: None,
            summary: "no usable Syzygy tables".into(),
            problems,
        }
    }

    /// Opens every table by probing positions of its material without captures (so
    /// the table itself is read): one for the WDL table, and for the DTZ table a few
    /// won or lost ones with either side to move (DTZ tables may hold one side only).
    /// Returns the tables that failed, with why.
    fn open_all(&self) -> Vec<(String, String)> {
        const DTZ_SAMPLES: u32 = 8;
        let mut failed = Vec::new();
        let stems: BTreeSet<&String> = self.wdl.iter().chain(self.dtz.iter()).collect();
        for stem in stems {
            let Some((w, b)) = sets::parse_stem(stem) else {
                continue;
            };
            let mut rng = 0x2545_F491_4F6C_DD1Du64 ^ ((stem.len() as u64) << 32);
            let mut wdl_done = !self.wdl.contains(stem);
            let need_dtz = self.dtz.contains(stem);
            let mut dtz_done = [!need_dtz; 2];
            let mut dtz_probes = [0u32; 2];
            for _ in 0..3000 {
                if wdl_done && dtz_done[0] && dtz_done[1] {
                    break;
                }
                let Some(pos) = quiet_position(w, b, &mut rng) else {
                    continue;
                };
                let side = (pos.turn() == SColor::Black) as usize;
                let wdl = match self.tb.probe_wdl_after_zeroing(&pos) {
                    Ok(wdl) => wdl,
                    // Only the DTZ file is there (or a table it needs is missing).
                    Err(SyzygyError::MissingTable { .. }) => {
                        wdl_done = true;
                        dtz_done = [true; 2];
                        continue;
                    }
                    Err(e) => {
                        failed.push((stem.clone(), probe_error_text(&e)));
                        break;
                    }
                };
                wdl_done = true;
                if wdl == shakmaty_syzygy::Wdl::Draw || dtz_done[side] {
                    continue;
                }
                match self.tb.probe_dtz(&pos) {
                    Ok(_) => {
                        dtz_probes[side] += 1;
                        dtz_done[side] = dtz_probes[side] >= DTZ_SAMPLES;
                    }
                    Err(SyzygyError::MissingTable { .. }) => dtz_done = [true; 2],
                    Err(e) => {
                        failed.push((stem.clone(), probe_error_text(&e)));
                        break;
                    }
                }
            }
        }
        failed
    }

    /// The largest `n` with every table of 3..=n pieces present (WDL and DTZ).
    pub fn complete_pieces(&self) -> usize {
        sets::largest_complete(|s| self.wdl.contains(s) && self.dtz.contains(s))
    }

    /// Directories the tables came from.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// What `egtb` prints: files found, the largest complete set, where.
    pub fn summary(&self) -> String {
        let dirs: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        let complete = match self.complete_pieces() {
            0 => "no complete set".to_string(),
            n => format!("largest complete set: {n}-piece"),
        };
        format!(
            "Syzygy tables: {} WDL and {} DTZ files, up to {} pieces, {complete} (memory-mapped; in {})",
            self.wdl.len(),
            self.dtz.len(),
            self.max_pieces,
            dirs.join(", ")
        )
    }

    /// WDL of a shakmaty position (tests and tools).
    pub fn probe_wdl_shakmaty(&self, pos: &Chess) -> Option<Wdl> {
        self.tb
            .probe_wdl_after_zeroing(pos)
            .ok()
            .map(|w| Wdl::from_i32(w as i32).expect("five values"))
    }
}

/// A legal position of the material `w` (White) against `b` (Black) with no capture
/// for the side to move, placed at random from `rng`.
fn quiet_position(w: &str, b: &str, rng: &mut u64) -> Option<Chess> {
    let mut next = || {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        *rng
    };
    let mut role = ByRole::<SBitboard>::default();
    let mut color = ByColor::<SBitboard>::default();
    let mut occ = 0u64;
    for (side, text) in [(SColor::White, w), (SColor::Black, b)] {
        for c in text.chars() {
            let sq = loop {
                let s = (next() % 64) as u32;
                let back_rank = !(8..56).contains(&s);
                if occ & (1 << s) == 0 && !(c == 'P' && back_rank) {
                    break s;
                }
            };
            occ |= 1 << sq;
            let bb = SBitboard(1 << sq);
            let r = match c {
                'K' => &mut role.king,
                'Q' => &mut role.queen,
                'R' => &mut role.rook,
                'B' => &mut role.bishop,
                'N' => &mut role.knight,
                _ => &mut role.pawn,
            };
            *r |= bb;
            *color.get_mut(side) |= bb;
        }
    }
    let board = shakmaty::Board::try_from_bitboards(role, color).ok()?;
    let setup = Setup {
        board,
        turn: if next() & 1 == 0 {
            SColor::White
        } else {
            SColor::Black
        },
        castling_rights: SBitboard::EMPTY,
        ..Setup::empty()
    };
    let pos = Chess::from_setup(setup, CastlingMode::Standard).ok()?;
    (pos.capture_moves().is_empty() && !pos.is_game_over()).then_some(pos)
}

/// Our board as a shakmaty position, built from bitboards (no allocation). `None`
/// for a position shakmaty rejects (which our move generator would not produce).
#[inline]
pub fn to_shakmaty(board: &Board) -> Option<Chess> {
    let bb = |k: PieceType| SBitboard(board.kind_bb(k).0);
    let role = ByRole {
        pawn: bb(PieceType::Pawn),
        knight: bb(PieceType::Knight),
        bishop: bb(PieceType::Bishop),
        rook: bb(PieceType::Rook),
        queen: bb(PieceType::Queen),
        king: bb(PieceType::King),
    };
    let color = ByColor {
        white: SBitboard(board.color_bb(Color::White).0),
        black: SBitboard(board.color_bb(Color::Black).0),
    };
    let setup = Setup {
        board: shakmaty::Board::try_from_bitboards(role, color).ok()?,
        turn: match board.side_to_move() {
            Color::White => SColor::White,
            Color::Black => SColor::Black,
        },
        castling_rights: SBitboard::EMPTY,
        ep_square: board.ep_square().map(|s| SSquare::new(s.index() as u32)),
        halfmoves: board.halfmove_clock() as u32,
        ..Setup::empty()
    };
    Chess::from_setup(setup, CastlingMode::Standard).ok()
}

impl Tablebase for SyzygyTables {
    fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    fn probe_wdl(&self, board: &Board) -> Option<Wdl> {
        if !super::probeable(board, self.max_pieces) {
            return None;
        }
        let pos = to_shakmaty(board)?;
        let w = self.tb.probe_wdl_after_zeroing(&pos).ok()?;
        Wdl::from_i32(w as i32)
    }

    fn probe_dtz(&self, board: &Board) -> Option<Dtz> {
        if !super::probeable(board, self.max_pieces) {
            return None;
        }
        let pos = to_shakmaty(board)?;
        Some(match self.tb.probe_dtz(&pos).ok()? {
            MaybeRounded::Precise(d) => Dtz {
                plies: d.0,
                rounded: false,
            },
            MaybeRounded::Rounded(d) => Dtz {
                plies: d.0,
                rounded: true,
            },
        })
    }
}
