//! Which table sets are complete: every material balance with `n` pieces (kings
//! included), as Syzygy names them (`KQvKR`, stronger side first, pieces in the order
//! K Q R B N P).

/// Non-king pieces in Syzygy's order.
const PIECES: [char; 5] = ['Q', 'R', 'B', 'N', 'P'];

/// Every multiset of `k` non-king pieces, as text in Syzygy's order (`QQ`, `QR`...).
fn multisets(k: usize) -> Vec<String> {
    fn go(k: usize, from: usize, cur: &mut String, out: &mut Vec<String>) {
        if k == 0 {
            out.push(cur.clone());
            return;
        }
        for (i, &p) in PIECES.iter().enumerate().skip(from) {
            cur.push(p);
            go(k - 1, i, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(k, 0, &mut String::new(), &mut out);
    out
}

/// The sides (`KQ`, `KR`) of every table with `n` pieces, each balance once. The
/// seven-piece set has no six-against-a-lone-king tables (they were never generated),
/// so they do not count against completeness there.
pub fn materials(n: usize) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !(3..=7).contains(&n) {
        return out;
    }
    let others = n - 2;
    for strong in (others.div_ceil(2)..=others).rev() {
        let weak = others - strong;
        if n == 7 && weak == 0 {
            continue;
        }
        let a_sets = multisets(strong);
        let b_sets = multisets(weak);
        for (i, a) in a_sets.iter().enumerate() {
            for (j, b) in b_sets.iter().enumerate() {
                if strong == weak && j < i {
                    continue;
                }
                out.push((format!("K{a}"), format!("K{b}")));
            }
        }
    }
    out
}

/// The largest `n` such that every table of 3..=n pieces is there (both orders of a
/// name count); 0 when not even the 3-piece set is complete. `have` answers whether
/// a table stem (`KQvKR`) was found.
pub fn largest_complete(have: impl Fn(&str) -> bool) -> usize {
    let mut best = 0;
    for n in 3..=7 {
        let complete = materials(n)
            .iter()
            .all(|(a, b)| have(&format!("{a}v{b}")) || have(&format!("{b}v{a}")));
        if !complete {
            break;
        }
        best = n;
    }
    best
}

/// Splits a table stem (`KQvKR`) into its sides, checking that it names a table:
/// two sides, each one king first, then queens, rooks, bishops, knights, pawns.
pub fn parse_stem(stem: &str) -> Option<(&str, &str)> {
    let (a, b) = stem.split_once('v')?;
    let side_ok =
        |s: &str| s.starts_with('K') && s[1..].chars().all(|c| PIECES.contains(&c)) && s.len() <= 7;
    (side_ok(a) && side_ok(b) && a.len() + b.len() <= 7).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_counts_match_the_published_sets() {
        assert_eq!(materials(3).len(), 5);
        assert_eq!(materials(4).len(), 30);
        assert_eq!(materials(5).len(), 110);
        assert_eq!(materials(6).len(), 365);
        assert!(materials(4).contains(&("KQ".into(), "KR".into())));
        assert!(materials(4).contains(&("KBN".into(), "K".into())));
    }

    #[test]
    fn completeness_accepts_either_order() {
        let names: Vec<String> = materials(3)
            .into_iter()
            .chain(materials(4))
            .map(|(a, b)| format!("{b}v{a}"))
            .collect();
        assert_eq!(largest_complete(|s| names.iter().any(|n| n == s)), 4);
        assert_eq!(largest_complete(|s| s != "KQvK" && s != "KvKQ"), 0);
    }

    #[test]
    fn stems() {
        assert_eq!(parse_stem("KQvKR"), Some(("KQ", "KR")));
        assert_eq!(parse_stem("KBNvK"), Some(("KBN", "K")));
        assert_eq!(parse_stem("README"), None);
        assert_eq!(parse_stem("KXvK"), None);
    }
}
