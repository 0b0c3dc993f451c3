//! Opponent lists and the per-class policy: list edits saved atomically and read back
//! (as after a restart), classification, and each class changing resignation, book
//! width and draws through the game controller's one policy; tournament mode doing
//! nothing unasked; bad table entries refused by the settings loader with the key.

use crate::session::test_options;
use kibitzer::bot::ics::owner::{Level, OwnerCommand, Owners};
use kibitzer::bot::lists::Lists;
use kibitzer::chess::Color;
use kibitzer::engine::{EventSink, SearchEvent};
use kibitzer::game::{ClassRules, EngineAction, Game, Opponent, OpponentClass, Policy};
use kibitzer::options::Options;
use std::sync::mpsc::channel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("kibitzer-lists-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn opts(pairs: &[(&str, &str)]) -> Options {
    let mut o = test_options();
    for (k, v) in pairs {
        o.set(k, v).unwrap();
    }
    o
}

#[test]
fn list_edits_are_saved_atomically_and_survive_a_restart() {
    let dir = temp_dir("edit");
    std::fs::write(dir.join("GM"), "# grandmasters\nCarlsen\n\n# more\n").unwrap();
    let mut l = Lists::load(&dir);
    assert!(l.contains("gm", "carlsen") && l.contains("GM", "CARLSEN"));
    let r = l.command("GM +Hikaru -carlsen +firouzja").unwrap();
    assert_eq!(r, "list GM: firouzja hikaru", "no path in the reply");
    // Errors name the problem, never repeat the words (a tell's `;` or a path).
    for (bad, want) in [
        ("GM,resign", "that is not a list"),
        ("GM +a;b;resign", "change 1 is not a handle"),
        ("GM +ok x;quit", "change 2 is not +name or -name"),
    ] {
        let e = l.command(bad).unwrap_err();
        assert!(e.starts_with(want), "{bad}: {e}");
        assert!(
            !e.contains(';') && !e.contains("resign") && !e.contains("quit"),
            "{e}"
        );
    }
    // The file keeps its comments, holds the names, and no temporary file is left.
    let text = std::fs::read_to_string(dir.join("GM")).unwrap();
    assert_eq!(text, "# grandmasters\n# more\nfirouzja\nhikaru\n");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left, vec!["GM".to_string()]);
    // A restart reads the same lists.
    let l2 = Lists::load(&dir);
    assert_eq!(l2.names("GM"), vec!["firouzja", "hikaru"]);
    assert!(!l2.contains("GM", "carlsen"));
    // Bad edits change nothing and say what was wrong.
    assert!(l.command("XX +a").unwrap_err().contains("not a list"));
    assert!(l
        .command("GM hikaru")
        .unwrap_err()
        .contains("+name or -name"));
    assert!(l
        .command("GM +bad/name")
        .unwrap_err()
        .contains("not a handle"));
    assert_eq!(Lists::load(&dir).names("GM").len(), 2);
    // A new list file is created on the first edit.
    l.command("AK +fan").unwrap();
    assert!(Lists::load(&dir).auto_kibitz("Fan"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn opponents_are_classified_special_first_then_titles_then_computers() {
    let dir = temp_dir("classify");
    std::fs::write(dir.join("GM"), "gmone\nboth\n").unwrap();
    std::fs::write(dir.join("IM"), "imone\n").unwrap();
    std::fs::write(dir.join("C"), "crafty\n").unwrap();
    std::fs::write(dir.join("S"), "both\n").unwrap();
    let l = Lists::load(&dir);
    assert_eq!(l.classify("GMone", false), OpponentClass::Gm);
    assert_eq!(l.classify("imone", false), OpponentClass::Im);
    assert_eq!(l.classify("crafty", false), OpponentClass::Computer);
    assert_eq!(l.classify("someone", true), OpponentClass::Computer);
    assert_eq!(l.classify("someone", false), OpponentClass::Normal);
    assert_eq!(l.classify("both", false), OpponentClass::Special);
    let _ = std::fs::remove_dir_all(&dir);
}

fn game_with(o: &Options) -> (Game, std::sync::mpsc::Receiver<()>) {
    let mut g = Game::new(o);
    let (tx, rx) = channel();
    let tx = Mutex::new(tx);
    g.set_notify(Arc::new(move || {
        let _ = tx.lock().unwrap().send(());
    }));
    (g, rx)
}

fn quiet() -> EventSink {
    Arc::new(|_: &SearchEvent| {})
}

fn against(g: &mut Game, class: OpponentClass) {
    *g.opponent_mut() = Opponent {
        name: "x".into(),
        class,
        ..Default::default()
    };
}

/// The engine (White) a bishop down (about -4.3 pawns at depth 3): does it resign with
/// this class?
fn resigns(o: &Options, class: OpponentClass) -> bool {
    let (mut g, rx) = game_with(o);
    against(&mut g, class);
    g.set_fen("4kb2/pp6/8/8/8/8/PP6/4K3 w - - 0 1").unwrap();
    g.set_engine_side(Some(Color::White));
    g.think(quiet());
    let f = loop {
        rx.recv_timeout(Duration::from_secs(60)).unwrap();
        if let Some(f) = g.take_finished() {
            break f;
        }
    };
    let s = f.result.score;
    assert!((-600..-300).contains(&s), "a bishop down: {s}");
    g.engine_move(&f.result) == EngineAction::Resign
}

#[test]
fn each_class_changes_resignation() {
    let o = opts(&[("sd", "3"), ("resign_count", "1")]);
    // Crafty's defaults: 9 pawns normally, 6 against IMs, 3 against GMs.
    assert!(!resigns(&o, OpponentClass::Normal));
    assert!(!resigns(&o, OpponentClass::Im));
    assert!(resigns(&o, OpponentClass::Gm));
    // The table is configurable; tournament mode resigns nothing by itself.
    let o2 = opts(&[
        ("sd", "3"),
        ("resign_count", "1"),
        ("policy.computer", "resign=2"),
    ]);
    assert!(resigns(&o2, OpponentClass::Computer));
    let o3 = opts(&[("sd", "3"), ("resign_count", "1"), ("mode", "tournament")]);
    assert!(!resigns(&o3, OpponentClass::Gm));
}

#[test]
fn each_class_changes_book_width_and_draws() {
    let mut p = kibitzer::game::DefaultPolicy::default();
    p.configure(&opts(&[("policy.computer", "width=2 random=0 accept=off")]));
    let opp = |class| Opponent {
        class,
        ..Default::default()
    };
    assert_eq!(p.book_override(&opp(OpponentClass::Normal)).width, None);
    assert_eq!(p.book_override(&opp(OpponentClass::Gm)).width, Some(3));
    assert_eq!(p.book_override(&opp(OpponentClass::Im)).width, Some(3));
    let c = p.book_override(&opp(OpponentClass::Computer));
    assert_eq!((c.width, c.random), (Some(2), Some(0)));
    // xboard's `computer` (or a (C) title) without a list: the computer class.
    let flagged = Opponent {
        computer: true,
        ..Default::default()
    };
    assert_eq!(p.book_override(&flagged).width, Some(2));
    // Draws: a computer's offer is never accepted here; others by the draw score.
    p.set_opponent(&opp(OpponentClass::Computer));
    assert!(!p.accept_draw(-200));
    p.set_opponent(&opp(OpponentClass::Normal));
    assert!(p.accept_draw(0) && !p.accept_draw(1));
    // Special scoring: contempt in the search's draw score and in accepting draws
    // (a dead draw is judged at its worst, so it is accepted whatever the class).
    let (mut g, _rx) = game_with(&opts(&[("drawscore", "10")]));
    assert_eq!(g.config().draw_score, 10);
    g.set_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 30").unwrap();
    against(&mut g, OpponentClass::Special);
    assert!(g.draw_offered(), "bare kings");
    assert_eq!(g.config().draw_score, -25);
    against(&mut g, OpponentClass::Normal);
    assert!(g.draw_offered(), "bare kings");
    assert_eq!(g.config().draw_score, 10);
    // Tournament mode: no overrides, no draws accepted or offered.
    let mut t = kibitzer::game::DefaultPolicy::default();
    t.configure(&opts(&[("mode", "tournament")]));
    assert_eq!(t.book_override(&opp(OpponentClass::Gm)).width, None);
    assert!(!t.accept_draw(-500) && !t.offer_draw(&[0; 20]));
}

#[test]
fn class_rules_parse_and_bad_entries_name_their_key() {
    let r = ClassRules::parse(
        "resign=3, count=2 width=3 random=1 drawscore=-20 accept=off offer=on kibitz=2",
    )
    .unwrap();
    assert_eq!(r.resign, Some(3));
    assert_eq!(r.resign_count, Some(2));
    assert_eq!(r.book_width, Some(3));
    assert_eq!(r.book_random, Some(1));
    assert_eq!(r.draw_score, Some(-20));
    assert_eq!(r.accept_draws, Some(false));
    assert_eq!(r.offer_draws, Some(true));
    assert_eq!(r.kibitz, Some(2));
    assert!(ClassRules::parse("resign=99")
        .unwrap_err()
        .contains("resign=99"));
    assert!(ClassRules::parse("colour=red")
        .unwrap_err()
        .contains("colour"));
    assert!(ClassRules::parse("width")
        .unwrap_err()
        .contains("name=value"));
    for (cli, key) in [
        ("policy.gm=resign=x", "policy.gm"),
        ("bot.owners=GuestAB:admin", "bot.owners"),
        ("bot.owners=alice:king", "bot.owners"),
        ("bot.observe=game:1", "bot.observe"),
    ] {
        let e = kibitzer::settings::load_checked(
            None,
            [("X", "y")],
            &[cli.to_string()],
            &[],
            kibitzer::bot::KEY_CHECKS,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(&format!("`{key}`")) && e.contains("fix:"), "{e}");
    }
    // The bot's keys are the bot's to check: the loader alone leaves them to it.
    assert!(
        kibitzer::settings::load(None, [("X", "y")], &["bot.observe=game:1".to_string()]).is_ok()
    );
}

#[test]
fn owners_have_levels_and_guests_never_own() {
    let o = Owners::parse("Alice:admin, bob:operator; carol").unwrap();
    assert_eq!(o.level("alice", false), Some(Level::Admin));
    assert_eq!(o.level("BOB", false), Some(Level::Operator));
    assert_eq!(o.level("carol", false), Some(Level::Viewer));
    assert_eq!(
        o.level("alice", true),
        None,
        "(U) marks an unregistered teller"
    );
    assert_eq!(o.level("mallory", false), None);
    assert_eq!(o.level("GuestXYZ", false), None);
    assert!(Owners::parse("guestfoo:admin").is_err());
    let needs = |t: &str| OwnerCommand::parse(t).unwrap().needs();
    assert_eq!(needs("status"), Level::Viewer);
    assert_eq!(needs("list GM"), Level::Viewer);
    assert_eq!(needs("kibitz 3"), Level::Operator);
    assert_eq!(needs("resign"), Level::Operator);
    assert_eq!(needs("list GM +x"), Level::Admin);
    assert_eq!(needs("softquit"), Level::Admin);
    for bad in [
        "kibitz 9",
        "observe ;rm -rf",
        "mode crazy",
        "shutdown",
        "noise lots",
    ] {
        assert!(OwnerCommand::parse(bad).is_err(), "{bad}");
    }
}
