//! xboard/CECP v2 (in progress).

use super::{Exit, Session};

pub fn run(s: &mut Session) -> Exit {
    let _ = s;
    Exit::Quit
}
