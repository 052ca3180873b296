//! Architecture invariant: the verifier builds alone. Its normal dependency tree (what
//! `cargo build -p saboteur-verifier` compiles) holds no database, web, async or HTTP crate and
//! no crate of the server, so anyone can build it to check a game's record.

use std::process::Command;

/// Crates that must not be in the verifier's tree, by the start of their names.
const FORBIDDEN: [&str; 7] = [
    "sqlx",
    "actix",
    "reqwest",
    "tokio",
    "hyper",
    "saboteur-storage",
    "saboteur-api",
];

#[test]
fn the_verifier_depends_on_no_database_web_or_server_crate() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let out = Command::new(env!("CARGO"))
        .current_dir(&workspace)
        .args([
            "tree",
            "-p",
            "saboteur-verifier",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8(out.stdout).unwrap();
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        crates.contains(&"saboteur-domain") && crates.len() > 10,
        "cargo tree listed too little to judge: {tree}"
    );
    let found: Vec<&&str> = crates
        .iter()
        .filter(|c| FORBIDDEN.iter().any(|f| c.starts_with(f)))
        .collect();
    assert!(
        found.is_empty(),
        "the verifier's dependencies include {found:?}: it must build without the server, a \
         database or the web"
    );
}
