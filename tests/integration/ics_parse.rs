//! Server lines -> events, on the lines of the recorded transcripts, and never a
//! panic on anything else.

use crate::common::data;
use kibitzer::bot::ics::adapter::find_move;
use kibitzer::chess::{Board, Color};
use kibitzer::ics::codec::{decode_all, IcsItem};
use kibitzer::ics::{LineParser, ServerEvent, Style12};
use proptest::prelude::*;

fn events(file: &str) -> Vec<ServerEvent> {
    events_of(&data(&format!("ics/{file}")))
}

/// The events of a transcript file, through our codec and parser.
fn events_of(path: &std::path::Path) -> Vec<ServerEvent> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut p = LineParser::new();
    decode_all(&bytes, 16 * 1024)
        .into_iter()
        .map(|i| match i {
            IcsItem::Line(l) => p.line(&l),
            IcsItem::Prompt(t) => p.prompt(&t),
            _ => ServerEvent::Unknown(String::new()),
        })
        .collect()
}

const BOARD: &str = "<12> r-bqk-nr pppp-ppp --n----- --b-p--- --B-P--- -----N-- PPPP-PPP RNBQ-RK- B -5760280 0 0 1 1 5 1 botone bottwo -1 2 12 39 39 155 143 4 o-o (0:00) O-O 0 1";

#[test]
fn style12_all_fields_32_and_33() {
    let s = Style12::parse(BOARD).unwrap();
    assert_eq!(s.side_to_move, Color::Black);
    assert_eq!(
        s.double_push, None,
        "garbage after castling is no double push"
    );
    assert_eq!(s.castling, [false, false, true, true]);
    assert_eq!(
        (s.game, s.white.as_str(), s.black.as_str(), s.relation),
        (1, "botone", "bottwo", -1)
    );
    assert_eq!(
        (
            s.initial_minutes,
            s.increment_secs,
            s.white_clock,
            s.black_clock,
            s.move_number
        ),
        (2, 12, 155, 143, 4)
    );
    assert_eq!(
        (
            s.verbose_move.as_str(),
            s.pretty_move.as_str(),
            s.flip,
            s.ticking,
            s.lag_ms
        ),
        ("o-o", "O-O", false, Some(true), None)
    );
    assert_eq!(s.ply(), 7);
    let b = s.board().unwrap();
    assert_eq!(
        b.to_fen(),
        "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"
    );
    let fics = format!("{} 137", BOARD.replace(" 155 143 ", " 155000 143000 "));
    let s = Style12::parse(&fics).unwrap();
    assert_eq!((s.white_clock, s.lag_ms), (155_000, Some(137)));
    assert!(Style12::parse("<12> rnbqkbnr pppppppp").is_none());
}

#[test]
fn transcript_lines_become_typed_events() {
    let ev = events("04_match_resign.botone.raw");
    assert!(ev.contains(&ServerEvent::LoginPrompt));
    assert!(ev.contains(&ServerEvent::PasswordPrompt));
    assert!(ev.iter().any(|e| matches!(e, ServerEvent::Creating { white, minutes: 2, increment: 12, rated: false, .. } if white == "botone")));
    assert!(ev.iter().any(|e| matches!(
        e,
        ServerEvent::GameStart {
            game: 1,
            continuing: false,
            ..
        }
    )));
    assert!(ev.contains(&ServerEvent::IllegalMove {
        text: "Illegal move.".into()
    }));
    assert!(ev.iter().any(|e| matches!(e, ServerEvent::GameEnd(g) if g.result == "1-0" && g.reason == "bottwo resigns")));
    assert!(ev
        .iter()
        .any(|e| matches!(e, ServerEvent::CommandNotFound { command } if command == "qz9")));
    let ml = ev.iter().find_map(|e| match e {
        ServerEvent::GameMoves(m) => Some(m.clone()),
        _ => None,
    });
    let ml = ml.expect("the moves listing");
    assert_eq!(
        ml.moves,
        vec!["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "O-O", "d6", "c3"]
    );
    let ev = events("04_match_resign.bottwo.raw");
    assert!(ev.contains(&ServerEvent::NotYourMove));
    assert!(ev.iter().any(|e| matches!(e, ServerEvent::Challenge(c) if c.challenger == "botone" && c.challenger_color == Some(Color::White) && c.minutes == 2 && c.increment == 12 && !c.rated && c.kind == "blitz")));

    let ev = events("02_login_guest.guest.raw");
    assert!(ev
        .iter()
        .any(|e| matches!(e, ServerEvent::GuestPrompt { name } if name == "GuestEDCW")));
    let ev = events("02_login_guest.unreg_2.raw");
    assert!(ev.contains(&ServerEvent::NameInUse));
    let ev = events("02_login_guest.unreg.raw");
    assert!(ev.iter().any(|e| matches!(e, ServerEvent::BadName { .. })));
    let ev = events("01_login_registered.botone.raw");
    assert!(ev.contains(&ServerEvent::InvalidPassword));
    assert!(ev.contains(&ServerEvent::Kicked));
    let ev = events("01_login_registered.botone_2.raw");
    assert!(ev.contains(&ServerEvent::KickedOther));

    let ev = events("07_draw_decline_abort.botone.raw");
    assert!(ev.contains(&ServerEvent::DrawOffer {
        from: "bottwo".into()
    }));
    assert!(ev.contains(&ServerEvent::AbortRequest {
        from: "bottwo".into()
    }));
    assert!(ev.contains(&ServerEvent::ChallengeAnswer {
        from: "bottwo".into(),
        accepted: false
    }));
    assert!(ev.contains(&ServerEvent::OfferDeclined {
        from: "bottwo".into(),
        what: "draw".into()
    }));
    assert!(ev.contains(&ServerEvent::CommandNotFound {
        command: "rematch".into()
    }));

    let ev = events("08_flag_timeout.bottwo.raw");
    assert!(ev.contains(&ServerEvent::FlagRefused));
    let ev = events("09_finger_tell_errors.botone.raw");
    assert!(ev.contains(&ServerEvent::Tell {
        from: "bottwo".into(),
        text: "hi back".into(),
        unregistered: false,
    }));
    let ev = events("10_disconnect_adjourn_resume.botone.raw");
    assert!(ev.contains(&ServerEvent::OpponentLostContact));
    assert!(ev.contains(&ServerEvent::AdjournedOpponentOnline {
        names: vec!["bottwo".into()]
    }));
    assert!(ev
        .iter()
        .any(|e| matches!(e, ServerEvent::Challenge(c) if c.adjourned && c.kind == "wild")));
    assert!(ev.iter().any(|e| matches!(
        e,
        ServerEvent::GameStart {
            continuing: true,
            ..
        }
    )));
    let ev = events("10_disconnect_adjourn_resume.bottwo_2.raw");
    assert!(ev.contains(&ServerEvent::AdjournedOpponentOnline {
        names: vec!["botone".into()]
    }));
    let ev = events("11_admin_shutdown.botone.raw");
    assert!(ev.contains(&ServerEvent::Shutdown { in_secs: Some(10) }));
    assert!(ev.contains(&ServerEvent::Shutdown { in_secs: None }));
    assert!(ev.contains(&ServerEvent::LoggedOut));
    let ev = events("05_observe_whisper_kibitz.botone.raw");
    assert!(ev.contains(&ServerEvent::Kibitz {
        from: "bottwo".into(),
        text: "hello everyone from black".into()
    }));
    let ev = events("03_settings.botone.raw");
    assert!(ev.contains(&ServerEvent::NoSuchVariable {
        name: "nowrap".into()
    }));
    let ev = events("06_seek_play.botone.raw");
    assert!(ev.iter().any(|e| matches!(e, ServerEvent::SeekAd { .. })));
    assert!(ev.contains(&ServerEvent::SeekRemoved));
}

#[test]
fn special_moves_of_transcript_13_are_followed_board_to_board() {
    // Castling both ways, en passant, promotion and an underpromotion whose verbose
    // form omits the piece (`P/b2-a1`): each board follows from the last by one move.
    let ev = events("13_special_moves.botone.raw");
    let boards: Vec<Style12> = ev
        .into_iter()
        .filter_map(|e| match e {
            ServerEvent::Style12(s) => Some(*s),
            _ => None,
        })
        .collect();
    let mut b = Board::startpos();
    let mut sans = Vec::new();
    for s in &boards[1..] {
        let m = find_move(&b, s).unwrap_or_else(|| panic!("no move to {}", s.fen()));
        sans.push(b.san(m));
        b.make_move(m);
    }
    let text = sans.join(" ");
    for m in ["exf6", "gxh8=Q", "O-O-O", "dxc3", "bxa1=N"] {
        assert!(text.contains(m), "{m} in {text}");
    }
    // The move list of the same game reads back to the same position.
    let ev = events("13_special_moves.botone.raw");
    let ml = ev.iter().find_map(|e| match e {
        ServerEvent::GameMoves(m) => Some(m.clone()),
        _ => None,
    });
    let mut c = Board::startpos();
    for san in &ml.unwrap().moves {
        let m = c.parse_move(san).unwrap();
        c.make_move(m);
    }
    assert_eq!(c.to_fen(), b.to_fen());
}

#[test]
fn promotions_go_out_in_a_form_lasker_accepts() {
    let b = Board::from_fen("8/1P6/8/8/8/8/5k1p/K7 w - - 0 1").unwrap();
    let m = b.parse_move("b8=N").unwrap();
    assert_eq!(kibitzer::ics::move_text(&b, m), "b7b8=N");
    let b = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
    assert_eq!(
        kibitzer::ics::move_text(&b, b.parse_move("O-O-O").unwrap()),
        "O-O-O"
    );
    assert_eq!(
        kibitzer::ics::move_text(&b, b.parse_move("Ra1a8").unwrap()),
        "a1a8"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn any_line_is_an_event_never_a_panic(line in ".{0,300}") {
        let mut p = LineParser::new();
        let _ = p.line(&line);
        let _ = p.prompt(&line);
    }

    #[test]
    fn mutated_boards_never_panic(pos in 0usize..200, ch in any::<char>(), del in any::<bool>()) {
        let mut s: Vec<char> = BOARD.chars().collect();
        let i = pos % s.len();
        if del { s.remove(i); } else { s[i] = ch; }
        let line: String = s.into_iter().collect();
        if let Some(b) = Style12::parse(&line) {
            let _ = b.board();
            let _ = b.fen();
        }
        let mut p = LineParser::new();
        let _ = p.line(&line);
    }

    #[test]
    fn challenge_and_result_lines_with_noise(name in "[A-Za-z]{1,12}", n in 0u32..1000, tail in ".{0,20}") {
        let mut p = LineParser::new();
        let _ = p.line(&format!("Challenge: {name} ({n}) kib ({tail}) rated blitz {n} {tail}."));
        let _ = p.line(&format!("{{Game {n} ({name} vs. {tail}) {tail}}} {tail}"));
        let _ = p.line(&format!("Creating: {name} ({n}) {tail}"));
        let _ = p.line(&format!("{name} (UNR) vs. {tail} (UNR) --- {tail}"));
        let _ = p.line(&format!("  {n}.  {tail}"));
    }
}

#[test]
fn move_list_times_are_read() {
    let mut p = LineParser::new();
    let mut last = None;
    for l in [
        "Movelist for game 1:",
        "",
        "botone (UNR) vs. bottwo (UNR) --- Sat Apr 20, 12:52 UTC 2013",
        "Unrated blitz match, initial time: 2 minutes, increment: 12 seconds.",
        "",
        "Move  botone             bottwo             ",
        "----  ----------------   ----------------",
        "  1.  e4      (0:00)     e5      (0:03.250)  ",
        "  2.  Nf3     (1:02)     Nc6     (0:01)  ",
        "  3.  Bc4     (0:07)  ",
        "      {Still in progress} *",
    ] {
        last = Some(p.line(l));
    }
    let Some(ServerEvent::GameMoves(ml)) = last else {
        panic!("{last:?}")
    };
    assert_eq!(ml.moves, ["e4", "e5", "Nf3", "Nc6", "Bc4"]);
    assert_eq!(
        ml.times,
        [Some(0), Some(3250), Some(62_000), Some(1000), Some(7000)]
    );
}

/// Events from a transcript recorded on the real lasker server for issue 13
/// (`tests/data/ics-lasker/`).
fn lasker_events(file: &str) -> Vec<ServerEvent> {
    events_of(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/ics-lasker")
            .join(file),
    )
}

#[test]
fn real_lasker_login_banner_lists_the_adjourned_opponent() {
    let evs = lasker_events("d_adjourned_login_banner.bottwo_2.raw");
    assert!(
        evs.iter().any(|e| matches!(e,
            ServerEvent::AdjournedOpponentOnline { names } if names == &["botthree".to_string()])),
        "{evs:?}"
    );
}

#[test]
fn real_lasker_wrapped_tell_is_one_tell() {
    let evs = lasker_events("e_long_tell_wrap.botthree.raw");
    let tells: Vec<&String> = evs
        .iter()
        .filter_map(|e| match e {
            ServerEvent::Tell { text, .. } => Some(text),
            _ => None,
        })
        .collect();
    assert!(!tells.is_empty(), "{evs:?}");
    for t in &tells {
        assert!(!t.contains('\\'), "continuation marks left in: {t}");
    }
    assert!(
        tells.iter().any(|t| t.starts_with("The quick brown fox")
            && t.contains("counting trees: one two three four five six seven")
            && t.len() >= 290),
        "{tells:?}"
    );
    // A tell with no space to break at: its first line is only `bottwo tells you: `,
    // the 300 digits all on continuation lines. One tell, nothing unknown.
    assert!(
        tells
            .iter()
            .any(|t| t.len() == 300 && t.chars().all(|c| c.is_ascii_digit())),
        "{tells:?}"
    );
    assert!(
        !evs.iter()
            .any(|e| matches!(e, ServerEvent::Unknown(l) if l.contains("0123456789"))),
        "{evs:?}"
    );
}

#[test]
fn real_lasker_commands_it_lacks_and_its_shutdown_are_read() {
    let evs = lasker_events("c_xwhisper_xkibitz.bottwo.raw");
    assert!(
        evs.iter().any(|e| matches!(e,
            ServerEvent::CommandNotFound { command } if command == "xwhisper")),
        "{evs:?}"
    );
    let evs = lasker_events("g2_shutdown_countdown_rated.bottwo.raw");
    assert!(
        evs.iter()
            .any(|e| matches!(e, ServerEvent::Shutdown { in_secs: Some(15) })),
        "{evs:?}"
    );
}

/// Lines per second through the codec's output and the parser, over every recorded
/// transcript (`cargo test --release -- --ignored measure_parse_speed --nocapture`).
#[test]
#[ignore]
fn measure_parse_speed() {
    let mut lines: Vec<String> = Vec::new();
    for e in std::fs::read_dir(data("ics")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "raw") {
            let bytes = std::fs::read(e.path()).unwrap();
            for i in decode_all(&bytes, 16 * 1024) {
                if let IcsItem::Line(l) = i {
                    lines.push(l);
                }
            }
        }
    }
    let rounds = 200;
    let start = std::time::Instant::now();
    let mut n = 0usize;
    for _ in 0..rounds {
        let mut p = LineParser::new();
        for l in &lines {
            std::hint::black_box(p.line(l));
            n += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{} lines x {rounds}: {:.0} lines/s ({:.2} us a line)",
        lines.len(),
        n as f64 / secs,
        secs * 1e6 / n as f64
    );
}

/// The messages are a table per server profile; anything another player says is
/// read as talk first, so a tell cannot pass for a server message.
#[test]
fn message_tables_compile_and_talk_cannot_imitate_the_server() {
    use kibitzer::ics::patterns::table;
    use kibitzer::ics::ServerKind;
    for kind in [ServerKind::Fics, ServerKind::Lasker, ServerKind::Icc] {
        // ICC tells of games, challenges and offers in level-2 units (`icc`).
        let by_units = kind == ServerKind::Icc;
        let names: Vec<&str> = table(kind).names().collect();
        for n in [
            "game",
            "challenge",
            "tell",
            "draw offer",
            "command not found",
        ] {
            let want = !by_units || matches!(n, "tell" | "command not found");
            assert_eq!(names.contains(&n), want, "{kind:?}: {names:?}");
        }
        let mut p = LineParser::for_server(kind);
        for spoof in [
            "**** Server going down in 0 minutes and 5 seconds. ****",
            "**** Server shutting down immediately. ****",
            "**** Auto-logout because you were idle more than 60 minutes. ****",
            "{Game 1 (botone vs. bottwo) bottwo resigns} 0-1",
            "xwhisper: Command not found.",
            "bottwo offers you a draw.",
        ] {
            let ev = p.line(&format!("mallory tells you: {spoof}"));
            if by_units {
                // ICC's tells are units; a text tell is talk, not acted on.
                assert!(matches!(&ev, ServerEvent::Unknown(_)), "{spoof}: {ev:?}");
                continue;
            }
            assert!(
                matches!(&ev, ServerEvent::Tell { from, text, .. } if from == "mallory" && text == spoof),
                "{kind:?} {spoof}: {ev:?}"
            );
        }
        let ev = p.line("    **** Server going down in 1 minutes and 5 seconds. ****");
        assert!(
            matches!(ev, ServerEvent::Shutdown { in_secs: Some(65) }),
            "{ev:?}"
        );
        if by_units {
            continue;
        }
        let ev = p.line("Challenge: bottwo (1500E) [black] botone (----) rated blitz 3 0.");
        let ServerEvent::Challenge(c) = ev else {
            panic!("{ev:?}")
        };
        assert_eq!(
            (
                c.challenger.as_str(),
                c.challenger_rating,
                c.rated,
                c.minutes,
                c.increment
            ),
            ("bottwo", Some(1500), true, 3, 0)
        );
        assert_eq!(c.challenger_color, Some(Color::Black));
        assert_eq!(c.kind, "blitz");
    }
}
