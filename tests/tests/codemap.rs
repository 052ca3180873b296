//! ARCHITECTURE.md read against the tree, so that what it names stays true: every file or
//! folder it names exists, every item it names (`Table::commit`, `check_no_leak`) is defined in
//! the sources, and every invariant names the test that holds it. A file moved, an item renamed
//! or an invariant left without its test fails here with the claim's words.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace")
        .to_path_buf()
}

/// Folders never read: builds, installed packages, what tests leave behind.
const SKIPPED: [&str; 7] = [
    "target",
    "node_modules",
    ".git",
    "artifacts",
    "generated",
    "dist",
    "build",
];

/// Every file of the repository (paths relative to the root, `/`-separated), and every folder.
fn tree() -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut files, mut dirs) = (BTreeSet::new(), BTreeSet::new());
    let root = root();
    let mut todo = vec![root.clone()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("a readable folder")
            .flatten()
        {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            let relative = path
                .strip_prefix(&root)
                .expect("under the root")
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if !SKIPPED.contains(&name.as_str()) {
                    dirs.insert(relative);
                    todo.push(path);
                }
            } else {
                files.insert(relative);
            }
        }
    }
    (files, dirs)
}

/// The spans ARCHITECTURE.md writes in backticks, each with the line it is on.
fn spans(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let parts: Vec<&str> = line.split('`').collect();
        for i in (1..parts.len().saturating_sub(1)).step_by(2) {
            out.push((n + 1, parts[i].to_string()));
        }
    }
    out
}

/// Whether a span names a file or a folder: a `/` in it, or a file's ending, and no spaces.
fn is_path(span: &str) -> bool {
    const ENDINGS: [&str; 12] = [
        ".rs", ".md", ".mjs", ".js", ".ts", ".sql", ".toml", ".json", ".sh", ".py", ".ftl", ".yml",
    ];
    !span.contains([' ', '*', '{', '<', '?', '='])
        && !span.starts_with('/')
        && !span.contains("://")
        && (span.contains('/') || ENDINGS.iter().any(|e| span.ends_with(e)))
}

/// Whether `span` names a file or folder of the tree: from the root, or as the end of a
/// path (`app/games.rs` for `api/src/app/games.rs`).
fn exists(span: &str, (files, dirs): &(BTreeSet<String>, BTreeSet<String>)) -> bool {
    let span = span.trim_end_matches('/');
    let ends = |p: &String| p == span || p.ends_with(&format!("/{span}"));
    files.iter().any(ends) || dirs.iter().any(ends)
}

/// Whether a span names an item of the code: `Name`, `path::to::item`, `Type::method()`.
fn is_item(span: &str) -> bool {
    let span = span.trim_end_matches("()");
    !span.is_empty()
        && span.split("::").all(|s| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
        && (span.contains("::") || span.contains('_') || span.chars().any(|c| c.is_uppercase()))
}

/// The words of the sources (Rust, the web client's and the tests' scripts, SQL).
fn words(files: &BTreeSet<String>) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    for f in files {
        let source = [".rs", ".mjs", ".js", ".ts", ".sql"]
            .iter()
            .any(|e| f.ends_with(e))
            && !f.ends_with("bundle.js");
        if !source {
            continue;
        }
        let text = std::fs::read_to_string(root().join(f)).unwrap_or_default();
        for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if !w.is_empty() {
                words.insert(w.to_string());
            }
        }
    }
    words
}

#[test]
fn every_file_and_item_the_codemap_names_is_there() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let tree = tree();
    let words = words(&tree.0);
    let mut wrong = Vec::new();
    let mut read = (0, 0);
    for (line, span) in spans(&text) {
        if is_path(&span) {
            read.0 += 1;
            if !exists(&span, &tree) {
                wrong.push(format!("line {line}: `{span}` is no file or folder here"));
            }
        } else if is_item(&span) {
            read.1 += 1;
            let missing: Vec<&str> = span
                .trim_end_matches("()")
                .split("::")
                .filter(|s| !words.contains(*s))
                .collect();
            if !missing.is_empty() {
                wrong.push(format!(
                    "line {line}: `{span}`: no {missing:?} in the sources"
                ));
            }
        }
    }
    assert!(
        read.0 > 50 && read.1 > 50,
        "the codemap's paths and items were read: {read:?}"
    );
    assert!(wrong.is_empty(), "ARCHITECTURE.md:\n{}", wrong.join("\n"));
}

#[test]
fn every_invariant_names_the_test_that_holds_it() {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let section = text
        .split("\n## ")
        .find(|s| s.starts_with("Invariants"))
        .expect("an Invariants section");
    let bullets: Vec<&str> = section.split("\n- ").skip(1).collect();
    assert!(
        bullets.len() >= 10,
        "the invariants were read: {}",
        bullets.len()
    );
    let tree = tree();
    let unheld: Vec<String> = bullets
        .iter()
        .filter(|b| {
            !spans(b).iter().any(|(_, s)| {
                is_path(s) && (s.contains("tests/") || s.ends_with(".test.mjs")) && exists(s, &tree)
            })
        })
        .map(|b| b.lines().next().unwrap_or_default().to_string())
        .collect();
    assert!(
        unheld.is_empty(),
        "invariants that name no test holding them:\n{}",
        unheld.join("\n")
    );
}
