//! The server's seam is a wall: the HTTP layer holds no writer of the store, and the
//! application (`api/src/app/`) is tied one way to every other module of the crate.

use std::collections::{BTreeMap, BTreeSet};

use super::{Graph, crate_graph, graph_of};

/// The top-level module a file of `src/` belongs to: its first folder, or the file itself.
fn module(file: &str) -> &str {
    file.split('/').next().unwrap_or(file)
}

/// Each module outside `app/` (the crate's roots aside, which only wire) that a file of `app/`
/// names an item of while one of its own files names an item of `app/`: a two-way tie, with
/// one edge each way as the example.
fn ties_with_app(graph: &Graph) -> Vec<String> {
    let roots = ["lib.rs", "main.rs"];
    let mut down: BTreeMap<&str, (String, String)> = BTreeMap::new();
    let mut up: BTreeMap<&str, (String, String)> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            let (a, b) = (module(from), module(to));
            if a == b || roots.contains(&a) || roots.contains(&b) {
                continue;
            }
            if a == "app" {
                down.entry(b).or_insert((from.clone(), to.clone()));
            } else if b == "app" {
                up.entry(a).or_insert((from.clone(), to.clone()));
            }
        }
    }
    down.iter()
        .filter_map(|(m, (f, t))| {
            let (g, u) = up.get(m)?;
            Some(format!("{m}: {f} → {t}, and {g} → {u}"))
        })
        .collect()
}

/// `app/` and each other module of the server point one way: the configuration, the shared
/// state and the wire's shapes (`dto.rs`) no longer both use the application and are used by
/// it.
#[test]
fn the_application_is_tied_one_way_to_every_other_module() {
    let graph = crate_graph("api");
    assert!(graph.keys().filter(|f| f.starts_with("app/")).count() >= 10);
    let ties = ties_with_app(&graph);
    assert!(
        ties.is_empty(),
        "app/ and {} module(s) use each other:\n{}",
        ties.len(),
        ties.join("\n")
    );
}

/// The tie check names a module both using and used by the application.
#[test]
fn a_two_way_tie_is_found() {
    let files = [
        ("lib.rs", "mod app;\nmod config;"),
        ("app/mod.rs", "mod clock;\nmod joins;"),
        ("app/clock.rs", "pub struct Time;"),
        (
            "app/joins.rs",
            "use crate::config::Config;\npub fn join(_: &Config) {}",
        ),
        (
            "config.rs",
            "use crate::app::clock::Time;\npub struct Config(Time);",
        ),
    ];
    assert_eq!(
        ties_with_app(&graph_of(&files)),
        vec!["config.rs: app/joins.rs → config.rs, and config.rs → app/clock.rs".to_string()]
    );
    let mut fixed = files;
    fixed[4] = ("config.rs", "pub struct Config;");
    assert!(ties_with_app(&graph_of(&fixed)).is_empty());
}

/// The store's writers are methods of `EventStore`; the read-only handle (`ReadStore`) has
/// none. Each line of `source` that names the writer's type.
fn writer_named(source: &str) -> Vec<String> {
    source
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .filter(|l| {
            l.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == "EventStore")
        })
        .map(|l| l.trim().to_string())
        .collect()
}

/// Nothing in `http/` holds a writer of the store: no handler names `EventStore` (it gets the
/// service's acts and opens, and `ReadStore`, which only reads), and the service's writer is
/// visible only inside `app/` (the compiler refuses `state.writer` in a handler).
#[test]
fn nothing_in_http_holds_a_writer_of_the_store() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../api/src");
    let mut files = super::Sources::new();
    super::rust_files(&src, &src.join("http"), &mut files);
    assert!(
        files.len() >= 10,
        "http/ has its handlers: {:?}",
        files.keys()
    );
    let found: BTreeSet<String> = files
        .iter()
        .flat_map(|(f, text)| {
            writer_named(text)
                .into_iter()
                .map(move |l| format!("{f}: {l}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "http/ names the store's writer {} time(s):\n{}",
        found.len(),
        found.into_iter().collect::<Vec<_>>().join("\n")
    );
    let service = std::fs::read_to_string(src.join("app/state.rs")).unwrap();
    assert!(
        service.contains("pub(in crate::app) writer: EventStore"),
        "the service's writer is visible inside app/ only"
    );
}

/// The writer check flags a handler that could write, and passes one that reads.
#[test]
fn a_handler_holding_a_writer_is_found() {
    let writes = "async fn h(s: &saboteur_storage::EventStore) { s.append(a).await; }";
    assert_eq!(writer_named(writes), vec![writes.to_string()]);
    let reads = "/// Not an EventStore.\nasync fn h(s: &ReadStore) { s.get_game(id).await; }";
    assert!(writer_named(reads).is_empty());
}
