//! Rooms a person can hold: no Rust source file of the workspace is over 600 lines, and no
//! function in one is over 150 lines.
//!
//! The sources are every `*.rs` of the workspace's crates (`domain`, `verifier`, `storage`,
//! `openapi`, `api`, `tests`, `xtask`): their `src/`, their tests and benchmarks, and their build
//! scripts. Only `target/` and `node_modules/` directories are left out, and so is a generated
//! file (one that says `@generated` in its first lines).
//!
//! Functions are measured with a real parser (`syn`, with `proc-macro2`'s line numbers): every
//! `fn` item, method (inherent, trait implementation, or trait default) and nested `fn`. A
//! function's length is the line of its closing brace minus the line its signature starts on,
//! plus one; its attributes and doc comments are not counted.

use std::fmt;
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// The most lines a source file may have.
const MAX_FILE_LINES: usize = 600;

/// The most lines a function may have.
const MAX_FN_LINES: usize = 150;

/// The workspace's crates, each a folder of the workspace's root.
const CRATES: [&str; 7] = [
    "domain", "verifier", "storage", "openapi", "api", "tests", "xtask",
];

/// Folders never measured, wherever they are.
const SKIPPED_DIRS: [&str; 2] = ["target", "node_modules"];

/// A function's name (qualified by its `impl` or trait and enclosing functions), where it
/// starts, and how many lines it has.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

/// A source that is too big: the whole file, or one function in it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Offender {
    File { path: String, lines: usize },
    Function { path: String, function: Function },
}

impl fmt::Display for Offender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Offender::File { path, lines } => {
                write!(f, "{path}: {lines} lines (file, at most {MAX_FILE_LINES})")
            }
            Offender::Function { path, function } => write!(
                f,
                "{path}:{}: fn {}: {} lines (function, at most {MAX_FN_LINES})",
                function.line, function.name, function.lines
            ),
        }
    }
}

/// Walks a parsed file and collects every function with a body.
#[derive(Default)]
struct Functions {
    /// The names that qualify the next function: `Type` inside `impl Type`, `Trait` inside
    /// `trait Trait`, the outer function's name inside its body, a module's name inside it.
    scope: Vec<String>,
    found: Vec<Function>,
}

impl Functions {
    fn record(&mut self, name: &syn::Ident, sig: &syn::Signature, block: &syn::Block) {
        let start = sig.span().start().line;
        let end = block.brace_token.span.close().end().line;
        let mut qualified = self.scope.clone();
        qualified.push(name.to_string());
        self.found.push(Function {
            name: qualified.join("::"),
            line: start,
            lines: end + 1 - start,
        });
    }

    fn within<F: FnOnce(&mut Self)>(&mut self, name: String, walk: F) {
        self.scope.push(name);
        walk(self);
        self.scope.pop();
    }
}

/// The last segment of a type's path (`Game` for `crate::game::Game<'a>`), through references;
/// `_` for any other type.
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => "_".to_string(),
    }
}

impl<'ast> Visit<'ast> for Functions {
    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.record(&item.sig.ident, &item.sig, &item.block);
        self.within(item.sig.ident.to_string(), |v| {
            visit::visit_item_fn(v, item)
        });
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.record(&item.sig.ident, &item.sig, &item.block);
        self.within(item.sig.ident.to_string(), |v| {
            visit::visit_impl_item_fn(v, item)
        });
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        if let Some(block) = &item.default {
            self.record(&item.sig.ident, &item.sig, block);
        }
        self.within(item.sig.ident.to_string(), |v| {
            visit::visit_trait_item_fn(v, item)
        });
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        let name = type_name(&item.self_ty);
        self.within(name, |v| visit::visit_item_impl(v, item));
    }

    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        self.within(item.ident.to_string(), |v| visit::visit_item_trait(v, item));
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.within(item.ident.to_string(), |v| visit::visit_item_mod(v, item));
    }
}

/// Every function with a body in a file's text, in the order they start.
fn functions(text: &str) -> Result<Vec<Function>, syn::Error> {
    let file = syn::parse_file(text)?;
    let mut walker = Functions::default();
    walker.visit_file(&file);
    Ok(walker.found)
}

/// What in one file's text is too big: the file, then each function, in order.
fn offenders_in(path: &str, text: &str) -> Result<Vec<Offender>, String> {
    let mut offenders = Vec::new();
    let lines = text.lines().count();
    if lines > MAX_FILE_LINES {
        offenders.push(Offender::File {
            path: path.to_string(),
            lines,
        });
    }
    let found = functions(text).map_err(|e| {
        let at = e.span().start();
        format!("{path}:{}:{}: does not parse: {e}", at.line, at.column)
    })?;
    offenders.extend(
        found
            .into_iter()
            .filter(|f| f.lines > MAX_FN_LINES)
            .map(|function| Offender::Function {
                path: path.to_string(),
                function,
            }),
    );
    Ok(offenders)
}

/// A file that says it was generated, in its first lines.
fn generated(text: &str) -> bool {
    text.lines().take(5).any(|l| l.contains("@generated"))
}

/// Every `*.rs` under `dir`, skipping the folders never measured, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&name.as_ref()) {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The workspace's root: the folder above this crate's.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is inside the workspace")
        .to_path_buf()
}

/// The workspace's sources: every `*.rs` of each crate's folder.
fn sources(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for krate in CRATES {
        rust_files(&root.join(krate), &mut files);
    }
    files.sort();
    files.dedup();
    files
}

#[test]
fn no_file_over_600_lines_and_no_function_over_150() {
    let root = workspace_root();
    let files = sources(&root);
    assert!(
        files.len() > 50,
        "found only {} sources under {}: is the scope right?",
        files.len(),
        root.display()
    );
    let mut offenders = Vec::new();
    let mut unreadable = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source is readable");
        if generated(&text) {
            continue;
        }
        let path = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        match offenders_in(&path, &text) {
            Ok(found) => offenders.extend(found),
            Err(e) => unreadable.push(e),
        }
    }
    assert!(unreadable.is_empty(), "{}", unreadable.join("\n"));
    let listed: Vec<String> = offenders.iter().map(ToString::to_string).collect();
    assert!(
        offenders.is_empty(),
        "{} sources are over the limits (files {MAX_FILE_LINES} lines, functions \
         {MAX_FN_LINES} lines):\n  {}",
        offenders.len(),
        listed.join("\n  ")
    );
}

/// A function `n` lines long, its body's braces hidden in a string and a comment.
fn function_of(name: &str, n: usize) -> String {
    let mut text =
        format!("/// Docs are not counted.\n/// Nor are these.\n#[inline]\npub fn {name}() {{\n");
    text.push_str("    let _ = \"}}}\"; // }\n");
    for _ in 0..n - 3 {
        text.push_str("    let _ = 1;\n");
    }
    text.push_str("}\n");
    text
}

#[test]
fn a_function_is_measured_from_its_signature_to_its_closing_brace() {
    let found = functions(&function_of("f", 151)).expect("parses");
    assert_eq!(
        found,
        vec![Function {
            name: "f".into(),
            line: 4,
            lines: 151
        }]
    );
}

#[test]
fn methods_trait_defaults_and_nested_functions_are_measured_by_name() {
    let text = "
struct Game;
impl Game {
    fn apply(&self) {
        fn inner() {
        }
    }
}
trait Play {
    fn step(&self) {}
    fn declared(&self);
}
mod deep {
    impl<T> super::Wrap<T> {
        fn unwrap(self) {}
    }
}
";
    let names: Vec<(String, usize)> = functions(text)
        .expect("parses")
        .into_iter()
        .map(|f| (f.name, f.lines))
        .collect();
    assert_eq!(
        names,
        vec![
            ("Game::apply".to_string(), 4),
            ("Game::apply::inner".to_string(), 2),
            ("Play::step".to_string(), 1),
            ("deep::Wrap::unwrap".to_string(), 1),
        ]
    );
}

#[test]
fn the_limits_fail_one_line_past_them() {
    let long = function_of("long", MAX_FN_LINES + 1);
    let fine = function_of("fine", MAX_FN_LINES);
    let found = offenders_in("x.rs", &format!("{long}{fine}")).expect("parses");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].to_string().contains("fn long: 151 lines"),
        "{}",
        found[0]
    );

    let big_file = "// a line\n".repeat(MAX_FILE_LINES + 1);
    let found = offenders_in("big.rs", &big_file).expect("parses");
    assert_eq!(
        found,
        vec![Offender::File {
            path: "big.rs".into(),
            lines: MAX_FILE_LINES + 1
        }]
    );
    let fits = "// a line\n".repeat(MAX_FILE_LINES);
    assert!(offenders_in("fits.rs", &fits).expect("parses").is_empty());
}
