//! Robustness: random command lines (real commands with random, often broken,
//! arguments, and plain garbage) never kill a front end; afterwards it still answers.
//! Also: the value parsers never panic on arbitrary text.

use crate::common::Rng;
use crate::session::Driver;
use kibitzer::options::{Options, TimeControl, TABLE};
use kibitzer::protocol::Protocol;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "",
    "0",
    "1",
    "3",
    "-5",
    "x",
    "e2e4",
    "e7e5",
    "g1f3",
    "a7a8q",
    "e1g1",
    "Nf3",
    "O-O",
    "startpos",
    "fen",
    "moves",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "infinite",
    "ponder",
    "searchmoves",
    "mate",
    "name",
    "value",
    "Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "true",
    "on",
    "off",
    "=",
    "8/8/8/8/8/8/8/8",
    "w",
    "-",
    "99999999999999999999",
    "0:30",
    "1/2-1/2",
    "{x}",
    "hash=2M",
    "drawscore",
    "kscale",
    "incheck",
    "sd",
    "st",
    "level",
    "\u{e9}\u{1f600}",
];

const UCI: &[&str] = &[
    "uci",
    "isready",
    "setoption",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "d",
    "eval",
    "debug",
    "frob",
];
const XBOARD: &[&str] = &[
    "protover",
    "new",
    "force",
    "go",
    "playother",
    "level",
    "st",
    "sd",
    "time",
    "otim",
    "usermove",
    "?",
    "ping",
    "draw",
    "result",
    "setboard",
    "hint",
    "undo",
    "remove",
    "hard",
    "easy",
    "post",
    "nopost",
    "analyze",
    ".",
    "exit",
    "name",
    "rating",
    "computer",
    "option",
    "variant",
    "white",
    "black",
    "bk",
    "frob",
];
const CONSOLE: &[&str] = &[
    "go",
    "move",
    "new",
    "setboard",
    "display",
    "score",
    "analyze",
    "exit",
    "back",
    "history",
    "ponder",
    "level",
    "time",
    "extensions",
    "evaluation",
    "sd",
    "sn",
    "noise",
    "drawscore",
    "usage",
    "operator",
    "e4",
    "?",
    "help",
    "info",
    "book.width",
    "frob",
];

fn line(rng: &mut Rng, cmds: &[&str]) -> String {
    let mut words = vec![cmds[rng.below(cmds.len())].to_string()];
    for _ in 0..rng.below(6) {
        words.push(WORDS[rng.below(WORDS.len())].to_string());
    }
    // Keep searches short and sizes small: the point is the parsing and the states.
    let l = words.join(" ");
    l.replace("infinite", "depth 2")
}

fn hammer(proto: Protocol, cmds: &[&str], seed: u64) -> Driver {
    let d = Driver::start(proto);
    let mut rng = Rng::new(seed);
    match proto {
        Protocol::Xboard => d.send("protover 2"),
        Protocol::Uci => d.send("uci"),
        Protocol::Console => {}
    }
    for _ in 0..250 {
        let l = line(&mut rng, cmds);
        if l.starts_with("go")
            || l.starts_with("analyze")
            || l.starts_with("move")
            || l.starts_with("e4")
        {
            // Depth-limited searches only.
            d.send(if proto == Protocol::Uci {
                "go depth 2"
            } else {
                "sd 2"
            });
        }
        d.send(&l);
    }
    d.send("isready");
    d
}

#[test]
fn random_uci_input_never_kills_the_session() {
    let mut d = hammer(Protocol::Uci, UCI, 1);
    d.send("stop");
    // A reply no random line can produce.
    d.send("setoption name drawscore value 123");
    d.send("uci");
    d.expect_prefix("option name drawscore type spin default 123 ");
}

#[test]
fn random_xboard_input_never_kills_the_session() {
    let mut d = hammer(Protocol::Xboard, XBOARD, 2);
    d.send("exit");
    d.send("force");
    d.send("ping 4242");
    d.expect_prefix("pong 4242");
}

#[test]
fn random_console_input_never_kills_the_session() {
    let mut d = hammer(Protocol::Console, CONSOLE, 3);
    d.send("exit");
    d.send("new");
    d.send("perft 2");
    d.expect_contains("perft 2: 400 nodes");
}

proptest! {
    #[test]
    fn option_values_never_panic(i in 0..TABLE.len(), text in ".{0,40}") {
        let mut o = Options::new();
        let _ = o.set(TABLE[i].name, &text);
        let _ = o.set_uci(TABLE[i].name, &text);
        let _ = o.set_xboard(TABLE[i].name, &text);
        let _ = TimeControl::parse(&text);
        let _ = o.set(&text, "1");
        let _ = kibitzer::protocol::uci::parse_go(&kibitzer::chess::Board::startpos(), &text);
    }
}
