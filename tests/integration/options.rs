//! The option table: precedence of sources, errors, and the listings every front end
//! derives from it.

use kibitzer::options::{front, lookup, Kind, OptionError, Options, Source, TABLE};

#[test]
fn precedence_is_file_then_environment_then_command_line_then_runtime() {
    let mut o = Options::new();
    o.set_from(Source::ConfigFile, "threads", "2").unwrap();
    assert_eq!(
        (o.int("threads"), o.source("threads")),
        (2, Some(Source::ConfigFile))
    );
    let errs = o.load_env([("KIBITZER_THREADS", "3")]);
    assert!(errs.is_empty());
    assert_eq!(o.int("threads"), 3);
    o.load_pairs(Source::CommandLine, ["threads=4"]);
    assert_eq!(o.int("threads"), 4);
    // A lower layer arriving late does not win.
    o.set_from(Source::ConfigFile, "threads", "5").unwrap();
    o.load_env([("KIBITZER_THREADS", "6")]);
    assert_eq!(o.int("threads"), 4);
    o.set("threads", "7").unwrap();
    assert_eq!(
        (o.int("threads"), o.source("threads")),
        (7, Some(Source::Runtime))
    );
    o.unset(Source::Runtime, "threads").unwrap();
    assert_eq!(o.int("threads"), 4);
}

#[test]
fn every_option_has_a_valid_default_help_and_reachable_names() {
    let o = Options::new();
    for s in TABLE {
        assert!(!s.help.is_empty(), "{} has no help", s.name);
        assert!(s.fronts != 0, "{} is shown nowhere", s.name);
        assert!(std::ptr::eq(lookup(s.name).unwrap(), s));
        assert!(
            std::ptr::eq(lookup(&s.env_var()["KIBITZER_".len()..]).unwrap(), s),
            "{}",
            s.env_var()
        );
        assert!(std::ptr::eq(lookup(s.config_key()).unwrap(), s));
        if s.kind != Kind::Button {
            assert!(o.value(s.name).is_some());
        }
    }
    // The settings the issue names are all there.
    for n in [
        "hash",
        "hashp",
        "threads",
        "mt",
        "smpmt",
        "ponder",
        "multipv",
        "move_overhead",
        "drawscore",
        "noise",
        "display.movenum",
        "extensions.incheck",
        "extensions.onerep",
        "extensions.recapture",
        "extensions.pushpp",
        "extensions.mate",
        "evaluation.asymmetry",
        "evaluation.bscale",
        "evaluation.kscale",
        "evaluation.tropism",
        "evaluation.pscale",
        "evaluation.ppscale",
        "evaluation.netscale",
        "usage",
        "operator",
        "resign",
        "book.width",
        "book.random",
        "sd",
        "st",
        "sn",
        "learn",
        "log",
        "level",
    ] {
        assert!(lookup(n).is_some(), "{n}");
    }
}

#[test]
fn bad_values_name_option_value_and_range() {
    let mut o = Options::new();
    match o.set("evaluation.kscale", "2000") {
        Err(OptionError::OutOfRange {
            name,
            value,
            expected,
        }) => {
            assert_eq!(
                (name.as_str(), value.as_str()),
                ("evaluation.kscale", "2000")
            );
            assert!(expected.contains("0..=1000"));
        }
        r => panic!("{r:?}"),
    }
    let e = o.set("ponder", "maybe").unwrap_err().to_string();
    assert!(
        e.contains("ponder") && e.contains("maybe") && e.contains("on or off"),
        "{e}"
    );
    let e = o.set("level", "40 x 0").unwrap_err().to_string();
    assert!(e.contains("level") && e.contains("40 x 0"), "{e}");
    let e = o.set("mode", "blitz").unwrap_err().to_string();
    assert!(e.contains("normal, tournament"), "{e}");
    assert!(matches!(
        o.set("nosuch", "1"),
        Err(OptionError::Unknown { .. })
    ));
}

#[test]
fn uci_and_xboard_listings_are_derived_from_the_table() {
    let o = Options::new();
    let uci = o.uci_lines();
    assert_eq!(
        uci.len(),
        TABLE.iter().filter(|s| s.shown_in(front::UCI)).count()
    );
    assert!(uci.contains(&"option name Hash type spin default 64 min 1 max 65536".to_string()));
    assert!(uci.contains(&"option name Ponder type check default false".to_string()));
    assert!(uci.contains(&"option name Clear Hash type button".to_string()));
    assert!(uci.contains(&"option name SyzygyPath type string default <empty>".to_string()));
    let xb = o.xboard_options();
    assert_eq!(
        xb.len(),
        TABLE.iter().filter(|s| s.shown_in(front::XBOARD)).count()
    );
    assert!(xb.contains(&"mode -combo *normal /// tournament".to_string()));
    assert!(xb.contains(&"log -check 0".to_string()));
    assert!(xb.contains(&"clear_hash -button".to_string()));
    let help = o.help_lines();
    assert_eq!(
        help.len(),
        TABLE.iter().filter(|s| s.shown_in(front::CONSOLE)).count()
    );
    assert!(help.iter().any(|l| l.starts_with("threads (mt, smpmt)")));
}

#[test]
fn uci_units_are_megabytes_and_milliseconds() {
    let mut o = Options::new();
    o.set_uci("Hash", "128").unwrap();
    assert_eq!(o.size("hash"), 128 << 20);
    o.set_uci("SyzygyPath", "<empty>").unwrap();
    assert_eq!(o.str("egtpath"), "");
    o.set_uci("Ponder", "true").unwrap();
    assert!(o.bool("ponder"));
    o.set_xboard("hashp", "2").unwrap();
    assert_eq!(o.size("hashp"), 2 << 20);
}
