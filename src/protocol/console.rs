//! The console (in progress).

use super::{split_command, Exit, Input, Protocol, Session};

pub fn run(s: &mut Session) -> Exit {
    loop {
        match s.next_input() {
            Input::Eof => return Exit::Quit,
            Input::Wake => {}
            Input::Line(line) => {
                let (cmd, _) = split_command(&line);
                match cmd {
                    "uci" => return Exit::Switch(Protocol::Uci, line),
                    "xboard" | "protover" => return Exit::Switch(Protocol::Xboard, line),
                    "quit" | "end" => return Exit::Quit,
                    _ => {}
                }
            }
        }
    }
}
