//! The line codec on the recorded transcripts and on hostile input, and the
//! timeseal encoder against vectors checked by the lasker server's own decoder.

use crate::common::{data, Rng};
use bytes::BytesMut;
use kibitzer::ics::codec::{decode_all, IcsCodec, IcsItem};
use kibitzer::ics::{LineParser, ServerEvent};
use proptest::prelude::*;
use tokio_util::codec::Decoder;

fn raw_files() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(data("ics"))
        .expect("../shared/data/ics")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "raw"))
        .collect();
    v.sort();
    v
}

/// Decodes in chunks split at the given points.
fn decode_chunked(bytes: &[u8], cuts: &[usize]) -> Vec<IcsItem> {
    let mut codec = IcsCodec::default();
    let mut buf = BytesMut::new();
    let mut items = Vec::new();
    let mut last = 0;
    let mut points: Vec<usize> = cuts.iter().map(|&c| c.min(bytes.len())).collect();
    points.sort();
    points.push(bytes.len());
    for p in points {
        buf.extend_from_slice(&bytes[last..p]);
        last = p;
        while let Some(i) = codec.decode(&mut buf).unwrap() {
            items.push(i);
        }
    }
    while let Some(i) = codec.decode_eof(&mut buf).unwrap() {
        items.push(i);
    }
    items
}

#[test]
fn every_transcript_decodes_and_every_board_parses() {
    let mut boards = 0;
    for f in raw_files() {
        let bytes = std::fs::read(&f).unwrap();
        let items = decode_all(&bytes, 16 * 1024);
        let mut p = LineParser::new();
        for it in &items {
            if let IcsItem::Line(l) = it {
                assert!(
                    !l.contains('\r') && !l.contains('\u{7}'),
                    "{}: {l:?}",
                    f.display()
                );
                assert!(!l.as_bytes().contains(&0xff), "telnet bytes left in {l:?}");
                if l.starts_with("<12>") {
                    boards += 1;
                    assert!(
                        matches!(p.line(l), ServerEvent::Style12(_)),
                        "{}: {l}",
                        f.display()
                    );
                }
            }
        }
        // Splitting the stream anywhere gives the same items (except where a held
        // long line meets the end of a chunk, which changes nothing either).
        let mut rng = Rng::new(bytes.len() as u64);
        let cuts: Vec<usize> = (0..20).map(|_| rng.below(bytes.len().max(1))).collect();
        assert_eq!(decode_chunked(&bytes, &cuts), items, "{}", f.display());
    }
    assert!(boards > 100, "{boards} boards");
}

#[test]
fn prompts_glued_prompts_and_login_prompts() {
    let items = decode_all(b"fics% {Game 1 (botone vs. bottwo) Continuing unrated blitz match.}\n\rfics% fics% \n\rlogin: ", 1024);
    assert_eq!(
        items,
        vec![
            IcsItem::Prompt("fics% ".into()),
            IcsItem::Line("{Game 1 (botone vs. bottwo) Continuing unrated blitz match.}".into()),
            IcsItem::Prompt("fics% ".into()),
            IcsItem::Prompt("fics% ".into()),
            IcsItem::Prompt("login: ".into()),
        ]
    );
    let items = decode_all(b"\n\r\"X\" is not a registered name.\n\r\n\rPress return to enter the FICS as \"GuestEDCW\":", 1024);
    assert!(
        matches!(items.last(), Some(IcsItem::Prompt(p)) if p.contains("GuestEDCW")),
        "{items:?}"
    );
    let items = decode_all(b"aics% Hello\r\n", 1024);
    assert_eq!(items[0], IcsItem::Prompt("aics% ".into()));
}

#[test]
fn wrapped_lines_are_joined_as_in_transcript_14() {
    let bytes = std::fs::read(data("ics/14_line_wrap.guest.raw")).unwrap();
    let items = decode_all(&bytes, 16 * 1024);
    let tells: Vec<&String> = items
        .iter()
        .filter_map(|i| match i {
            IcsItem::Line(l) if l.contains("tells you:") => Some(l),
            _ => None,
        })
        .collect();
    let full = "botone tells you: this is a deliberately long tell message this is a deliberately long tell message this is a deliberately long tell message this is a deliberately long tell message";
    assert_eq!(tells.len(), 2, "{tells:?}");
    assert!(tells.iter().all(|t| t.as_str() == full), "{tells:?}");
}

#[test]
fn telnet_bel_crlf_overlong_and_timeseal_pings() {
    let mut bytes = b"\xff\xfb\x01pass\x07word: \xff\xfa\x18\x01\xff\xf0ok\r\n".to_vec();
    bytes.extend_from_slice(&vec![b'x'; 5000]);
    bytes.extend_from_slice(b"\n\rafter\n\r[G]\x00\n\r[G]\n\r");
    let items = decode_all(&bytes, 1024);
    assert_eq!(
        items,
        vec![
            IcsItem::Prompt("password: ".into()),
            IcsItem::Line("ok".into()),
            IcsItem::Overlong(1025),
            IcsItem::Line("after".into()),
            IcsItem::Ping,
            IcsItem::Ping,
        ]
    );
}

#[test]
fn timeseal_encoder_matches_the_servers_decoder() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/timeseal_vectors.txt"
    ))
    .unwrap();
    let unhex = |h: &str| -> Vec<u8> {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    };
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let plain = if f[0] == "-" { Vec::new() } else { unhex(f[0]) };
        let plain = String::from_utf8(plain).unwrap();
        let (stamp, offset): (u32, u8) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        let mut enc = kibitzer::ics::timeseal::encode(&plain, stamp, offset);
        assert_eq!(enc.pop(), Some(b'\n'));
        assert_eq!(enc, unhex(f[3]), "encoding of {plain:?}");
        assert_eq!(kibitzer::ics::timeseal::decode(&enc), Some((plain, stamp)));
        n += 1;
    }
    assert!(n >= 10);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic_and_respect_the_limit(bytes in proptest::collection::vec(any::<u8>(), 0..4000), cuts in proptest::collection::vec(0usize..4000, 0..8)) {
        let items = decode_chunked(&bytes, &cuts);
        for it in items {
            if let IcsItem::Line(l) = it {
                prop_assert!(l.len() <= 16 * 1024 * 2);
                let mut p = LineParser::new();
                let _ = p.line(&l);
            }
        }
    }
}
