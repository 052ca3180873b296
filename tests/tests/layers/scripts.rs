//! The TypeScript SDK's modules and the web client's form no import circle either: an edge
//! A → B for each static `import … from "./b.js"` or `export … from "./b.js"` of A (types
//! included; a dynamic `import("./b.js")` loads later and is no edge).

use std::path::Path;

use super::{Graph, circles};

/// The files a script imports statically: each `from "…"` naming a relative path, resolved
/// against the script's folder, `.js` read as the `.ts` beside it when only that exists.
fn imports(file: &str, text: &str, exists: &dyn Fn(&str) -> bool) -> Vec<String> {
    let folder: Vec<&str> = file
        .rsplit_once('/')
        .map_or(vec![], |(d, _)| d.split('/').collect());
    let mut found = Vec::new();
    for part in text.split("from \"").skip(1) {
        let Some(target) = part.split('"').next() else {
            continue;
        };
        if !target.starts_with("./") && !target.starts_with("../") {
            continue;
        }
        let mut at = folder.clone();
        for step in target.split('/') {
            match step {
                "." => {}
                ".." => {
                    at.pop();
                }
                name => at.push(name),
            }
        }
        let path = at.join("/");
        let ts = path.strip_suffix(".js").map(|p| format!("{p}.ts"));
        match ts {
            Some(ts) if !exists(&path) && exists(&ts) => found.push(ts),
            _ => found.push(path),
        }
    }
    found
}

/// The import graph of the scripts (`.js`, `.ts`) under `dir`, generated folders aside.
fn script_graph(dir: &Path) -> Graph {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() && name != "generated" && name != "node_modules" {
                walk(root, &path, out);
            } else if name.ends_with(".js") || name.ends_with(".ts") && !name.ends_with(".d.ts") {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    let names: std::collections::BTreeSet<String> = files.iter().map(|(f, _)| f.clone()).collect();
    let exists = |f: &str| names.contains(f);
    files
        .iter()
        .map(|(f, text)| (f.clone(), imports(f, text, &exists).into_iter().collect()))
        .collect()
}

/// Fails, naming every circle, when the scripts under `dir` import each other in one.
fn assert_no_script_circle(dir: &str, at_least_files: usize) {
    let graph = script_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir));
    super::assert_graph_has_no_circle(dir, &graph, at_least_files, at_least_files);
}

#[test]
fn the_modules_of_the_typescript_sdk_form_no_circle() {
    assert_no_script_circle("sdk/typescript/src", 6);
}

#[test]
fn the_modules_of_the_web_client_form_no_circle() {
    assert_no_script_circle("api/web", 20);
}

/// A type imported back from the module that re-exports the importer is a circle; a shared
/// module beside them is not.
#[test]
fn a_type_imported_back_from_the_index_is_a_circle() {
    let files = ["index.ts", "stream.ts", "client.ts"];
    let exists = |f: &str| files.contains(&f);
    let index = "import type { Api } from \"./client.js\";\nexport * from \"./stream.js\";";
    assert_eq!(
        imports("index.ts", index, &exists),
        vec!["client.ts", "stream.ts"]
    );
    let back = "import type { Api } from \"./index.js\";\nconst m = import(\"./x.js\");";
    let graph: Graph = [
        ("index.ts", imports("index.ts", index, &exists)),
        ("stream.ts", imports("stream.ts", back, &exists)),
    ]
    .into_iter()
    .map(|(f, to)| (f.to_string(), to.into_iter().collect()))
    .collect();
    assert_eq!(circles(&graph).len(), 1);
    assert_eq!(
        imports("a/b.js", "import { h } from \"../dom.js\";", &|_| true),
        vec!["dom.js"]
    );
}
