//! No catch-all over acts: every `match` in `api/src` whose arms name `Act::` variants names
//! them all, with no `_` arm and no arm that binds whatever is left (`other =>`), so a new act
//! is placed by the compiler in every list of acts, never by a default.

use std::path::Path;

/// `text` with the contents of comments, string and character literals blanked out (their
/// length kept), so that braces and arrows in them are not read as code.
fn code_of(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + e + 4);
                blank(&mut out, i, end);
                i = end;
            }
            b'r' if matches!(b.get(i + 1), Some(b'#' | b'"'))
                && !b[i.saturating_sub(1)].is_ascii_alphanumeric() =>
            {
                let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = text[start..]
                    .find(&close)
                    .map_or(b.len(), |e| start + e + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            }
            // A character literal ('{', '\n', '\''), not a lifetime ('a).
            b'\'' if b.get(i + 2) == Some(&b'\'') || b.get(i + 1) == Some(&b'\\') => {
                let end = text[i + 2..].find('\'').map_or(b.len(), |e| i + 3 + e);
                blank(&mut out, i, end);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

/// The arms' patterns of every `match` block in `code` (blanked by [`code_of`]).
fn match_patterns(code: &[u8]) -> Vec<Vec<String>> {
    let text = String::from_utf8_lossy(code);
    let mut all = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("match ").map(|a| from + a) {
        from = at + 6;
        if at > 0 && (code[at - 1].is_ascii_alphanumeric() || code[at - 1] == b'_') {
            continue;
        }
        let Some(open) = text[at..].find('{').map(|o| at + o) else {
            break;
        };
        let (mut depth, mut in_pattern, mut start) = (0i32, true, open + 1);
        let mut patterns = Vec::new();
        let mut i = open;
        while i < code.len() {
            match code[i] {
                b'{' | b'(' | b'[' => depth += 1,
                b'}' | b')' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    if depth == 1 && code[i] == b'}' && !in_pattern {
                        (in_pattern, start) = (true, i + 1);
                    }
                }
                b',' if depth == 1 => (in_pattern, start) = (true, i + 1),
                b'=' if depth == 1 && code.get(i + 1) == Some(&b'>') && in_pattern => {
                    patterns.push(text[start..i].trim().to_string());
                    in_pattern = false;
                }
                _ => {}
            }
            i += 1;
        }
        all.push(patterns);
    }
    all
}

/// Whether an arm's pattern takes whatever is left: `_`, or a lone binding, guarded or not.
fn catch_all(pattern: &str) -> bool {
    let unguarded = pattern.split(" if ").next().unwrap_or_default().trim();
    unguarded == "_"
        || (unguarded.starts_with(|c: char| c.is_ascii_lowercase())
            && unguarded
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The matches over acts in `source` that leave a catch-all: each one's patterns.
fn catch_alls_over_acts(source: &str) -> Vec<Vec<String>> {
    match_patterns(&code_of(source))
        .into_iter()
        .filter(|arms| arms.iter().any(|p| p.contains("Act::")))
        .filter(|arms| arms.iter().any(|p| catch_all(p)))
        .collect()
}

#[test]
fn the_scanner_finds_a_catch_all_over_acts_and_passes_an_exhaustive_match() {
    let with = "fn f(a: &Act) -> u8 { match a { Act::Talk { .. } => { 1 } \
                Act::Leave { seat, .. } if seat.0 > 0 => 2, _ => 3 } }";
    assert_eq!(catch_alls_over_acts(with).len(), 1);
    let binding = "fn f(a: Act) -> u8 { match a { Act::Talk { .. } => 1, other => g(other) } }";
    assert_eq!(catch_alls_over_acts(binding).len(), 1);
    let exhaustive = "fn f(a: &Act) -> &str { match a { Act::Talk { .. } => \"{_ => }\", \
                      Act::Leave { .. } | Act::Rename { .. } => '}'.to_string(), } }";
    assert!(catch_alls_over_acts(exhaustive).is_empty());
    let other = "fn f(x: Option<u8>) -> u8 { match x { Some(n) => n, _ => 0 } }";
    assert!(catch_alls_over_acts(other).is_empty());
}

#[test]
fn no_match_over_acts_has_a_catch_all() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../api/src");
    let mut todo = vec![root.clone()];
    let (mut read, mut over_acts, mut found) = (0, 0, Vec::new());
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).expect("api/src").flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("a source file");
            read += 1;
            over_acts += match_patterns(&code_of(&source))
                .iter()
                .filter(|arms| arms.iter().any(|p| p.contains("Act::")))
                .count();
            for arms in catch_alls_over_acts(&source) {
                found.push(format!("{}: {arms:?}", path.display()));
            }
        }
    }
    // The acts are matched over in two places: their declaration (`Act::declared`) and their
    // decision (`decision.rs`); fewer means this test no longer reads them.
    assert!(
        read > 50 && over_acts >= 2,
        "api/src was read: {read} files, {over_acts} matches over acts"
    );
    assert!(
        found.is_empty(),
        "matches over acts with a catch-all:\n{}",
        found.join("\n")
    );
}
