//! ICC: the level-1/level-2 framing of the codec, the datagram reader and the ICC
//! state (fuzzed and property-tested: no input panics, a unit cut short never
//! costs the next one), and games to mate as White and as Black against the fake
//! ICC server. The behaviour tests that run against both fakes (FICS-lineage and
//! ICC, one body each) are in `daemon` and `bot_daemon` (`icc_*`).

use crate::ics_fake_server::{FakeConfig, FakeServer, OPP};
use bytes::BytesMut;
use kibitzer::bot::{ControlMsg, Daemon, Exit};
use kibitzer::chess::Color;
use kibitzer::ics::codec::{decode_all, IcsCodec, IcsItem};
use kibitzer::ics::datagram::{encode, Datagram};
use kibitzer::ics::icc::dg;
use kibitzer::ics::{LineParser, ServerEvent, ServerKind};
use proptest::prelude::*;
use std::time::Duration;
use tokio_util::codec::Decoder;

/// Everything a byte stream gives, fed in the given chunks.
fn chunked(bytes: &[u8], cuts: &[usize]) -> Vec<IcsItem> {
    let mut codec = IcsCodec::new(4096);
    let mut buf = BytesMut::new();
    let mut items = Vec::new();
    let mut at = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    cuts.push(bytes.len());
    for c in cuts {
        if c < at {
            continue;
        }
        buf.extend_from_slice(&bytes[at..c]);
        at = c;
        while let Ok(Some(it)) = codec.decode(&mut buf) {
            items.push(it);
        }
    }
    while let Ok(Some(it)) = codec.decode_eof(&mut buf) {
        items.push(it);
    }
    items
}

/// Every item through an ICC parser: what a connection's reader does.
fn events(items: &[IcsItem]) -> Vec<ServerEvent> {
    let mut p = LineParser::for_server(ServerKind::Icc);
    let mut out = Vec::new();
    for it in items {
        match it {
            IcsItem::Line(l) => out.push(p.line(l)),
            IcsItem::Prompt(t) => out.push(p.prompt(t)),
            IcsItem::Datagram(d) => out.extend(p.datagram(d)),
            IcsItem::BadDatagram(d) => out.extend(p.bad_datagram(d)),
            IcsItem::UnitStart(_) => p.unit_start(),
            IcsItem::UnitEnd => out.extend(p.unit_end()),
            IcsItem::Ping | IcsItem::Overlong(_) => {}
        }
    }
    out
}

fn field() -> impl Strategy<Value = String> {
    // Printable ASCII with blanks and braces: every quoting the server uses.
    proptest::string::string_regex("[ -~]{0,24}").unwrap()
}

/// Bytes rich in ICC's delimiters.
fn wire() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(0x19u8),
            Just(b'('),
            Just(b')'),
            Just(b'{'),
            Just(b'}'),
            Just(b'['),
            Just(b']'),
            Just(b'\n'),
            Just(b' '),
            Just(b'2'),
            Just(b'4'),
            any::<u8>(),
        ],
        0..600,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn any_bytes_in_any_chunks_never_panic(bytes in wire(), cuts in prop::collection::vec(any::<usize>(), 0..6)) {
        let items = chunked(&bytes, &cuts);
        let _ = events(&items);
    }

    #[test]
    fn datagrams_round_trip_through_the_codec_in_any_chunks(
        n in any::<u16>(),
        fields in prop::collection::vec(field(), 0..8),
        cuts in prop::collection::vec(any::<usize>(), 0..6),
    ) {
        let refs: Vec<&str> = fields.iter().map(|s| s.as_str()).collect();
        let mut wire = b"text before\n".to_vec();
        wire.extend_from_slice(encode(n, &refs).as_bytes());
        wire.extend_from_slice(b"after\n");
        let items = chunked(&wire, &cuts);
        let dgs: Vec<&String> = items.iter().filter_map(|i| match i { IcsItem::Datagram(d) => Some(d), _ => None }).collect();
        prop_assert_eq!(dgs.len(), 1, "{:?}", items);
        let d = Datagram::parse(dgs[0]).unwrap();
        prop_assert_eq!(d.number, n);
        prop_assert_eq!(d.fields, fields);
        prop_assert!(items.contains(&IcsItem::Line("after".into())), "{:?}", items);
    }

    #[test]
    fn a_unit_cut_short_never_costs_the_next(cut in any::<usize>(), text in field()) {
        let first = encode(dg::PERSONAL_TELL, &["alice", "", "first {one} here", "1"]);
        let first = &first.as_bytes()[..cut % first.len()];
        let second = encode(dg::PERSONAL_TELL, &["bob", "C", &text, "1"]);
        let mut wire = first.to_vec();
        wire.extend_from_slice(second.as_bytes());
        let evs = events(&decode_all(&wire, 4096));
        let want = ServerEvent::Tell { from: "bob".into(), text: text.clone(), unregistered: false };
        prop_assert_eq!(evs.last(), Some(&want), "{:?}", evs);
    }

    #[test]
    fn any_fields_for_any_wanted_unit_never_panic(
        i in 0usize..dg::WANTED.len(),
        fields in prop::collection::vec(prop_oneof![field(), Just("7".to_string()), Just("W".to_string()), Just("e2e4".to_string()), Just("PW".to_string())], 0..24),
    ) {
        let mut p = LineParser::for_server(ServerKind::Icc);
        let refs: Vec<&str> = fields.iter().map(|s| s.as_str()).collect();
        // A game to refer to first, then the unit.
        let start = encode(dg::WHO_AM_I, &["botone", ""]);
        let game = encode(dg::MY_GAME_STARTED, &["7", "botone", "x", "0", "Blitz", "0", "1", "0", "1", "0", "1", "", "0", "0", "1", "", "", "0", "0", "0", "", "0"]);
        let unit = encode(dg::WANTED[i], &refs);
        let mut wire = start.into_bytes();
        wire.extend_from_slice(game.as_bytes());
        wire.extend_from_slice(b"\x19[2 *\n");
        wire.extend_from_slice(unit.as_bytes());
        wire.extend_from_slice(b"\x19]");
        for it in decode_all(&wire, 4096) {
            match it {
                IcsItem::Datagram(d) => { let _ = p.datagram(&d); }
                IcsItem::UnitEnd => { let _ = p.unit_end(); }
                _ => {}
            }
        }
    }
}

#[test]
fn level_one_units_frame_text_and_datagrams_without_prompts() {
    let mut wire = b"\x19[12 $LoggingIn$\nWelcome\n".to_vec();
    wire.extend_from_slice(encode(dg::WHO_AM_I, &["botone", "C"]).as_bytes());
    wire.extend_from_slice(b"\x19]\x19[101 alice\n");
    wire.extend_from_slice(
        encode(dg::PERSONAL_TELL, &["alice", "", "x {y}; quit", "1"]).as_bytes(),
    );
    wire.extend_from_slice(b"no newline before the close\x19]");
    let items = decode_all(&wire, 4096);
    assert_eq!(
        items,
        vec![
            IcsItem::UnitStart("12 $LoggingIn$".into()),
            IcsItem::Line("Welcome".into()),
            IcsItem::Datagram("0 botone C".into()),
            IcsItem::UnitEnd,
            IcsItem::UnitStart("101 alice".into()),
            IcsItem::Datagram("31 alice {} \u{19}{x {y}; quit\u{19}} 1".into()),
            IcsItem::Line("no newline before the close".into()),
            IcsItem::UnitEnd,
        ]
    );
    let evs = events(&items);
    assert!(evs.contains(&ServerEvent::SessionStarted {
        handle: "botone".into()
    }));
    assert!(evs.contains(&ServerEvent::Tell {
        from: "alice".into(),
        text: "x {y}; quit".into(),
        unregistered: false
    }));
}

/// The PGN records once `n` games are in them (the daemon appends a game after
/// the server's result), or what is there after 20 s.
async fn pgn_with(dir: &std::path::Path, n: usize) -> String {
    let mut pgn = String::new();
    for _ in 0..400 {
        pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap_or_default();
        if pgn.matches("[Event ").count() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    pgn
}

/// The daemon plays one game from `fen` against the fake ICC; the result text.
async fn game_from(fen: &'static str, opp: Color, name: &str) -> (String, String) {
    let srv = FakeServer::start(FakeConfig {
        icc: true,
        start_fen: Some(fen),
        opp_color: Some(opp),
        max_plies: 60,
        ..Default::default()
    })
    .await;
    let dir = crate::daemon::temp_dir(name);
    let s = crate::daemon::settings(srv.port, &dir, &["ics.server_type=icc", "sn=20000"]);
    let d = Daemon::new(s);
    let control = d.control();
    let handle = tokio::spawn(d.run());
    let stats = srv.wait_results(1, Duration::from_secs(60)).await;
    let pgn = pgn_with(&dir, 1).await;
    control.send(ControlMsg::Quit);
    let exit = tokio::time::timeout(Duration::from_secs(20), handle)
        .await
        .expect("daemon stops")
        .expect("no panic");
    assert_eq!(exit, Exit::Ok);
    let s2 = srv.stats();
    assert_eq!(s2.illegal_moves, 0, "{s2:?}");
    assert_eq!(s2.bot_time_losses, 0, "{s2:?}");
    assert!(s2.not_found.is_empty(), "{s2:?}");
    let _ = std::fs::remove_dir_all(&dir);
    let (res, text, _) = stats.results.first().cloned().expect("a result");
    (format!("{res} {text}"), pgn)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn icc_mates_as_white_and_as_black() {
    // White to move: mate in one (Qb8#).
    let (r, pgn) = game_from("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", Color::Black, "icc-mate-w").await;
    assert_eq!(r, format!("1-0 {OPP} checkmated"));
    assert!(
        pgn.contains("[Result \"1-0\"]") && pgn.contains("Q") && pgn.contains('#'),
        "{pgn}"
    );
    // Black to move: mate in one.
    let (r, pgn) = game_from("1q6/8/8/8/8/6k1/8/7K b - - 0 1", Color::White, "icc-mate-b").await;
    assert_eq!(r, format!("0-1 {OPP} checkmated"));
    assert!(
        pgn.contains("[Result \"0-1\"]") && pgn.contains('#'),
        "{pgn}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn icc_a_whole_game_from_the_start_as_white_and_as_black() {
    // The opponent plays at a low node count; the bot (stronger) plays to the end:
    // mate, or the fake's adjudication after 120 plies.
    let srv = FakeServer::start(FakeConfig {
        icc: true,
        games: 2,
        opp_nodes: 50,
        max_plies: 120,
        ..Default::default()
    })
    .await;
    let dir = crate::daemon::temp_dir("icc-whole");
    let s = crate::daemon::settings(
        srv.port,
        &dir,
        &["ics.server_type=icc", "sn=4000", "bot.max_rematches=5"],
    );
    let d = Daemon::new(s);
    let control = d.control();
    let handle = tokio::spawn(d.run());
    let stats = srv.wait_results(2, Duration::from_secs(120)).await;
    let pgn = pgn_with(&dir, 2).await;
    control.send(ControlMsg::Quit);
    let _ = tokio::time::timeout(Duration::from_secs(20), handle).await;
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(stats.results.len(), 2, "{stats:?}");
    assert_eq!(stats.illegal_moves, 0);
    assert_eq!(stats.bot_time_losses, 0);
    // Both colours played, both games recorded with their clocks.
    assert!(
        pgn.contains("[White \"botone\"]") && pgn.contains("[Black \"botone\"]"),
        "{pgn}"
    );
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    assert!(pgn.contains("%clk"), "{pgn}");
    for (res, text, plies) in &stats.results {
        assert!(*plies > 20, "{res} {text} after {plies} plies");
    }
}
