//! In every crate of the workspace the modules of `src/` point one way: no module depends,
//! through any chain of `crate::` or `super::` paths, on itself. Each file belongs to its
//! top-level module (`bot/heuristic.rs` to `bot`); `lib.rs` and `main.rs`, which wire the
//! modules together, are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file under `src/` belongs to; `None` for `lib.rs` and `main.rs`.
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (name != "lib" && name != "main").then(|| name.to_string())
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The top-level modules a file's code names after `crate::` (also inside `crate::{…}`
/// groups), and its own module for `super::` in a submodule. Comments are skipped.
fn imports(text: &str, own: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(is_ident) {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a::X, b, c::{Y, Z}}`: the first name of each top-level item.
            let mut depth = 0;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && is_ident(c) => {
                        let name: String =
                            group[k..].chars().take_while(|c| is_ident(*c)).collect();
                        out.insert(name);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            out.insert(rest.chars().take_while(|c| is_ident(*c)).collect());
        }
    }
    if code.contains("super::") {
        out.insert(own.to_string());
    }
    out.retain(|m| m != own && modules.contains(m));
    out
}

/// A cycle in the graph, as the modules along it with the first repeated at the end.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|m| m == node) {
            let mut cycle = stack[i..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, done, stack) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut done, &mut Vec::new()))
}

/// The module graph of a crate of the workspace (`domain`, `storage`, `api`, …).
fn module_graph(krate: &str) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let owned: Vec<(String, String)> = files
        .iter()
        .filter_map(|f| {
            let own = module_of(f.strip_prefix(&src).unwrap())?;
            Some((own, std::fs::read_to_string(f).unwrap()))
        })
        .collect();
    let modules: BTreeSet<String> = owned.iter().map(|(m, _)| m.clone()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (own, text) in &owned {
        graph
            .entry(own.clone())
            .or_default()
            .extend(imports(text, own, &modules));
    }
    graph
}

#[test]
fn the_module_graphs_have_no_cycle() {
    for (krate, at_least) in [("domain", 10), ("storage", 8), ("api", 15), ("openapi", 0)] {
        let graph = module_graph(krate);
        assert!(
            graph.len() >= at_least,
            "the modules of {krate}/src were found: {graph:?}"
        );
        if let Some(cycle) = find_cycle(&graph) {
            panic!(
                "the modules of {krate} depend on each other in a circle: {}",
                cycle.join(" → ")
            );
        }
    }
}

#[test]
fn a_circle_is_named() {
    let modules: BTreeSet<String> = ["a", "b", "c"].map(String::from).into();
    let mut graph = BTreeMap::new();
    graph.insert(
        "a".to_string(),
        imports("use crate::{b::X, c};", "a", &modules),
    );
    graph.insert(
        "b".to_string(),
        imports("fn f() { crate::c::g() }", "b", &modules),
    );
    graph.insert(
        "c".to_string(),
        imports("// crate::a\nuse crate::a::Y;", "c", &modules),
    );
    assert_eq!(
        find_cycle(&graph),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
    graph.insert(
        "c".to_string(),
        imports("// use crate::a::Y;", "c", &modules),
    );
    assert_eq!(find_cycle(&graph), None);
}
