//! In every crate of the workspace the FILES of `src/` depend on each other one way: no file
//! names, through any chain of paths, an item of a file that names one of its own.
//!
//! The graph's nodes are the files under `src/`, `lib.rs`, `main.rs` and every `mod.rs`
//! included. An edge A → B means that file A names an item defined in file B: `crate::a::b::X`,
//! `super::x`, `self::x` and paths that start with a child module (`mod x;`) or with a name the
//! file imports are walked segment by segment while a module file exists (`a.rs`, `a/mod.rs`,
//! `a/b.rs`, …); the first name that is not a module is an item of the file reached so far,
//! unless that file imports it (`pub use some::path::Name;`, `pub use some::{A, B as C};`, a
//! module alias `pub use x as y`), in which case the import is followed to the defining file.
//! `use` declarations are edges of the file that holds them, so an item defined in `lib.rs` and
//! used by a file that `lib.rs` re-exports from is a circle: `lib.rs` and `mod.rs` only wire.
//! `mod x;` declarations are not edges; comments, doc comments and literals are skipped.

mod exhaustive;
mod parse;
mod scripts;
mod seam;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use parse::{Import, Parsed, parse};

/// A crate's sources: each file's path under `src/` (`decide/mod.rs`) and its text.
type Sources = BTreeMap<String, String>;

/// Each file and the files it names items of.
type Graph = BTreeMap<String, BTreeSet<String>>;

/// A crate's files, parsed, and how a path names one of them.
struct Crate {
    files: BTreeMap<String, Parsed>,
}

impl Crate {
    fn new(sources: &Sources) -> Crate {
        let files = sources.iter().map(|(f, t)| (f.clone(), parse(t))).collect();
        Crate { files }
    }

    /// The file `crate::` means in `file`: `main.rs` for itself, else `lib.rs` if any.
    fn root_of(&self, file: &str) -> String {
        if file == "main.rs" || !self.files.contains_key("lib.rs") {
            "main.rs".into()
        } else {
            "lib.rs".into()
        }
    }

    /// The module path a file holds: `[]` for the roots, `[decide]` for `decide/mod.rs`.
    fn module_of(file: &str) -> Vec<String> {
        let mut m: Vec<String> = file
            .trim_end_matches(".rs")
            .split('/')
            .map(String::from)
            .collect();
        if m.last().is_some_and(|l| l == "mod")
            || (m.len() == 1 && (m[0] == "lib" || m[0] == "main"))
        {
            m.pop();
        }
        m
    }

    /// The file of a module path, if it exists.
    fn file_of(&self, root: &str, module: &[String]) -> Option<String> {
        if module.is_empty() {
            return self.files.contains_key(root).then(|| root.to_string());
        }
        let base = module.join("/");
        [format!("{base}.rs"), format!("{base}/mod.rs")]
            .into_iter()
            .find(|f| self.files.contains_key(f))
    }

    /// The import of `name` visible at inline depth `depth` of `file`.
    fn import(&self, file: &str, name: &str, depth: usize) -> Option<&Import> {
        self.files[file]
            .imports
            .iter()
            .filter(|u| u.depth <= depth && u.name.as_deref() == Some(name))
            .max_by_key(|u| u.depth)
    }

    /// The file defining what `path`, written in `file` at inline depth `depth`, names;
    /// `None` for what lies outside the crate.
    fn resolve(&self, file: &str, path: &[String], depth: usize, hops: usize) -> Option<String> {
        if hops > 16 || path.is_empty() {
            return None;
        }
        let here = Crate::module_of(file);
        let (module, rest) = match path[0].as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                if ups <= depth {
                    return Some(file.to_string());
                }
                let up = ups - depth;
                (here[..here.len().checked_sub(up)?].to_vec(), &path[ups..])
            }
            "self" if depth > 0 => return Some(file.to_string()),
            "self" => (here, &path[1..]),
            child if depth == 0 && self.files[file].children.contains(child) => {
                let mut m = here;
                m.push(child.to_string());
                (m, &path[1..])
            }
            name => {
                let import = self.import(file, name, depth)?;
                let mut full = import.path.clone();
                full.extend_from_slice(&path[1..]);
                return self.resolve(file, &full, import.depth, hops + 1);
            }
        };
        self.walk(&self.root_of(file), module, rest, hops)
    }

    /// Walks `rest` down from `module` while module files exist, following imports.
    fn walk(
        &self,
        root: &str,
        mut module: Vec<String>,
        rest: &[String],
        hops: usize,
    ) -> Option<String> {
        let mut file = self.file_of(root, &module)?;
        for (k, segment) in rest.iter().enumerate() {
            if segment == "super" {
                module.pop();
                file = self.file_of(root, &module)?;
                continue;
            }
            let mut next = module.clone();
            next.push(segment.clone());
            if let Some(f) = self.file_of(root, &next) {
                (module, file) = (next, f);
                continue;
            }
            if let Some(import) = self.import(&file, segment, 0) {
                let mut full = import.path.clone();
                full.extend_from_slice(&rest[k + 1..]);
                return self.resolve(&file, &full, 0, hops + 1);
            }
            break;
        }
        Some(file)
    }

    fn graph(&self) -> Graph {
        let mut graph = Graph::new();
        for (file, parsed) in &self.files {
            let imports = parsed.imports.iter().map(|u| (&u.path, u.depth));
            let paths = parsed.paths.iter().map(|(p, d)| (p, *d));
            let mut to: BTreeSet<String> = imports
                .chain(paths)
                .filter_map(|(path, depth)| self.resolve(file, path, depth, 0))
                .collect();
            to.remove(file);
            graph.insert(file.clone(), to);
        }
        graph
    }
}

/// The shortest path from `from` to `to`, both included.
fn shortest_path(graph: &Graph, from: &str, to: &str) -> Option<Vec<String>> {
    let mut came: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            let mut path = vec![to.to_string()];
            let mut at = to;
            while at != from {
                at = came[at];
                path.push(at.to_string());
            }
            path.reverse();
            return Some(path);
        }
        for next in graph.get(node).into_iter().flatten() {
            if next != from && !came.contains_key(next.as_str()) {
                came.insert(next, node);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Every circle of the graph that is the shortest one through one of its edges: the files
/// along it, the first repeated at the end, each circle starting at its least file.
fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let mut found = BTreeSet::new();
    for (from, tos) in graph {
        for to in tos {
            if let Some(back) = shortest_path(graph, to, from) {
                let mut circle = vec![from.clone()];
                circle.extend(back.into_iter().take_while(|f| f != from));
                let least = (0..circle.len()).min_by_key(|k| &circle[*k]).unwrap_or(0);
                circle.rotate_left(least);
                circle.push(circle[0].clone());
                found.insert(circle);
            }
        }
    }
    found.into_iter().collect()
}

fn rust_files(src: &Path, dir: &Path, out: &mut Sources) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(src, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path
                .strip_prefix(src)
                .unwrap()
                .to_str()
                .unwrap()
                .replace('\\', "/");
            out.insert(relative, std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// The file graph of a crate of the workspace (`domain`, `storage`, `api`, …).
fn crate_graph(krate: &str) -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    let mut sources = Sources::new();
    rust_files(&src, &src, &mut sources);
    Crate::new(&sources).graph()
}

/// Fails, naming every circle, when the files of `krate/src` depend on each other in one; the
/// counts guard against a reader that finds nothing.
fn assert_no_circle(krate: &str, at_least_files: usize, at_least_edges: usize) {
    let where_ = format!("{krate}/src");
    assert_graph_has_no_circle(&where_, &crate_graph(krate), at_least_files, at_least_edges);
}

/// Fails, naming every circle, when the files of `graph` (read from `where_`) depend on each
/// other in one, or when it has fewer files or edges than a reader that found them would.
fn assert_graph_has_no_circle(
    where_: &str,
    graph: &Graph,
    at_least_files: usize,
    at_least_edges: usize,
) {
    let edges: usize = graph.values().map(BTreeSet::len).sum();
    assert!(
        graph.len() >= at_least_files && edges >= at_least_edges,
        "{where_}: {} files and {edges} edges found: {graph:#?}",
        graph.len()
    );
    let circles: Vec<String> = circles(graph).iter().map(|c| c.join(" → ")).collect();
    assert!(
        circles.is_empty(),
        "the files of {where_} depend on each other in {} circle(s):\n{}",
        circles.len(),
        circles.join("\n")
    );
}

#[test]
fn the_files_of_domain_form_no_circle() {
    assert_no_circle("domain", 30, 150);
}

#[test]
fn the_files_of_verifier_form_no_circle() {
    assert_no_circle("verifier", 12, 20);
}

#[test]
fn the_files_of_storage_form_no_circle() {
    assert_no_circle("storage", 14, 30);
}

#[test]
fn the_files_of_openapi_form_no_circle() {
    assert_no_circle("openapi", 1, 0);
}

#[test]
fn the_files_of_api_form_no_circle() {
    assert_no_circle("api", 25, 60);
}

#[test]
fn the_files_of_tests_and_xtask_form_no_circle() {
    assert_no_circle("tests", 1, 0);
    assert_no_circle("xtask", 1, 0);
}

/// Every way a file under `lower/` reaches a file under `upper/`, through any chain of files
/// (the crate's root files included): one path per file of `lower/` that does, shortest first.
fn up_arrows(graph: &Graph, lower: &str, upper: &str) -> Vec<Vec<String>> {
    let (lower, upper) = (format!("{lower}/"), format!("{upper}/"));
    let mut found = Vec::new();
    for start in graph.keys().filter(|f| f.starts_with(&lower)) {
        let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = VecDeque::from([start]);
        let mut seen = BTreeSet::from([start]);
        while let Some(file) = queue.pop_front() {
            if file.starts_with(&upper) {
                let mut path = vec![file.clone()];
                let mut at = file;
                while let Some(prev) = came_from.get(at) {
                    path.push((*prev).clone());
                    at = prev;
                }
                path.reverse();
                found.push(path);
                break;
            }
            for next in graph.get(file).into_iter().flatten() {
                if seen.insert(next) {
                    came_from.insert(next, file);
                    queue.push_back(next);
                }
            }
        }
    }
    found
}

/// The server's layers point one way: the application (`api/src/app/`, the seam and the game
/// tables) never reaches the HTTP layer (`api/src/http/`: handlers, per-client limits), not even
/// through a root file such as the shared state. The HTTP layer calls the application.
#[test]
fn the_application_layer_never_reaches_the_http_layer() {
    let graph = crate_graph("api");
    assert!(
        graph.keys().filter(|f| f.starts_with("app/")).count() >= 10
            && graph.keys().filter(|f| f.starts_with("http/")).count() >= 10,
        "api/src has its app/ and http/ folders: {graph:#?}"
    );
    assert!(
        !up_arrows(&graph, "http", "app").is_empty(),
        "the HTTP layer calls the application"
    );
    let up: Vec<String> = up_arrows(&graph, "app", "http")
        .iter()
        .map(|p| p.join(" → "))
        .collect();
    assert!(
        up.is_empty(),
        "the application layer reaches the HTTP layer {} time(s):\n{}",
        up.len(),
        up.join("\n")
    );
}

/// The direction check finds an up-arrow through a root file, and passes a tree without one.
#[test]
fn an_up_arrow_through_a_root_file_is_found() {
    let files = [
        ("lib.rs", "mod app;\nmod http;\nmod state;"),
        ("app/mod.rs", "mod seam;"),
        (
            "app/seam.rs",
            "use crate::state::State;\npub fn act(_: &State) {}",
        ),
        ("http/mod.rs", "mod quota;\nmod games;"),
        ("http/quota.rs", "pub struct Quotas;"),
        (
            "http/games.rs",
            "use crate::app::seam::act;\nuse crate::state::State;\nfn h(s: &State) { act(s) }",
        ),
        (
            "state.rs",
            "use crate::http::quota::Quotas;\npub struct State(Quotas);",
        ),
    ];
    let graph = graph_of(&files);
    assert_eq!(
        up_arrows(&graph, "app", "http"),
        vec![names(&["app/seam.rs", "state.rs", "http/quota.rs"])]
    );
    // The state no longer holds the quotas: one way.
    let mut fixed = files;
    fixed[6] = ("state.rs", "pub struct State;");
    assert!(up_arrows(&graph_of(&fixed), "app", "http").is_empty());
}

fn graph_of(files: &[(&str, &str)]) -> Graph {
    let sources = files
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    Crate::new(&sources).graph()
}

fn names(circle: &[&str]) -> Vec<String> {
    circle.iter().map(|f| f.to_string()).collect()
}

#[test]
fn a_circle_inside_one_folder_is_found() {
    let graph = graph_of(&[
        ("lib.rs", "pub mod decide;\npub use decide::pass;"),
        (
            "decide/mod.rs",
            "mod pass;\nmod round_end;\npub use pass::pass;",
        ),
        (
            "decide/pass.rs",
            "use super::round_end::end_round;\npub fn pass() { end_round() }",
        ),
        (
            "decide/round_end.rs",
            "pub fn end_round() { super::pass::end_turn() }",
        ),
    ]);
    let circle = names(&["decide/pass.rs", "decide/round_end.rs", "decide/pass.rs"]);
    assert_eq!(circles(&graph), vec![circle]);

    // A `mod.rs` that defines what its children use while naming one of their items.
    let graph = graph_of(&[
        ("lib.rs", "mod decide;"),
        (
            "decide/mod.rs",
            "mod pass;\npub struct Tx;\npub use pass::pass;",
        ),
        ("decide/pass.rs", "use super::Tx;\npub fn pass(_: Tx) {}"),
    ]);
    assert_eq!(
        circles(&graph),
        vec![names(&["decide/mod.rs", "decide/pass.rs", "decide/mod.rs"])]
    );

    // A plain file with a child module in a folder, named by its bare module name.
    let graph = graph_of(&[
        ("lib.rs", "mod bot;"),
        (
            "bot.rs",
            "mod heuristic;\npub fn rebuild() {}\npub fn choose() { heuristic::choose() }",
        ),
        (
            "bot/heuristic.rs",
            "use super::rebuild;\npub fn choose() { rebuild() }",
        ),
    ]);
    assert_eq!(
        circles(&graph),
        vec![names(&["bot.rs", "bot/heuristic.rs", "bot.rs"])]
    );
}

#[test]
fn a_re_export_is_followed_to_the_defining_file() {
    let graph = graph_of(&[
        (
            "lib.rs",
            "mod game;\nmod view;\npub mod decide;\npub use game::Game;\n\
             pub use decide::saboteur2 as expansion;",
        ),
        (
            "game/mod.rs",
            "mod state;\npub use self::state::{Game, Phase as Stage};",
        ),
        ("game/state.rs", "pub struct Game;\npub enum Phase {}"),
        ("decide/mod.rs", "pub mod saboteur2;"),
        ("decide/saboteur2.rs", "pub fn routes() {}"),
        (
            "view.rs",
            "use crate::Game;\nuse crate::game::Stage;\nfn f() { crate::expansion::routes() }",
        ),
    ]);
    let set = |files: &[&str]| files.iter().map(|f| f.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(
        graph["view.rs"],
        set(&["game/state.rs", "decide/saboteur2.rs"])
    );
    assert_eq!(
        graph["lib.rs"],
        set(&["game/state.rs", "decide/saboteur2.rs"])
    );
    assert_eq!(graph["game/mod.rs"], set(&["game/state.rs"]));
    assert!(circles(&graph).is_empty());

    // An item defined in `lib.rs`, used by a file `lib.rs` re-exports from: a circle.
    let graph = graph_of(&[
        ("lib.rs", "mod a;\npub use a::f;\npub struct State;"),
        ("a.rs", "use crate::State;\npub fn f(_: State) {}"),
    ]);
    assert_eq!(circles(&graph), vec![names(&["a.rs", "lib.rs", "a.rs"])]);
}

#[test]
fn an_acyclic_tree_is_not_flagged() {
    let graph = graph_of(&[
        (
            "lib.rs",
            "//! See [`crate::a`].\nmod a;\nmod b;\npub use b::Thing;",
        ),
        (
            "a.rs",
            "/// Not [`crate::b::Thing`], nor /* crate::b::Thing */ this.\n\
             // use crate::b::Thing;\n\
             pub struct A;\nconst S: &str = \"crate::b::Thing\";\nconst R: &str = r#\"crate::b\"#;\n\
             const C: char = '\"'; fn f<'a>(x: &'a str) -> &'a str { x }\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n    fn g() { super::A; }\n}",
        ),
        (
            "b.rs",
            "use crate::a::A;\npub struct Thing(A);\nfn h() { self::Thing(crate::a::A); }",
        ),
    ]);
    let expected: Graph = [
        ("lib.rs", vec!["b.rs"]),
        ("a.rs", vec![]),
        ("b.rs", vec!["a.rs"]),
    ]
    .into_iter()
    .map(|(f, to)| (f.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(graph, expected);
    assert!(circles(&graph).is_empty());
}
