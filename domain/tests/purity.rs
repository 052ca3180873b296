//! Architecture invariant: the domain crate does no IO. Its only dependencies are serde,
//! rand_core, rand_chacha and thiserror: no async runtime, no database, no clock, no OS
//! randomness.

const ALLOWED: [&str; 4] = ["serde", "rand_core", "rand_chacha", "thiserror"];

#[test]
fn domain_depends_only_on_pure_crates() {
    let manifest =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let mut section = String::new();
    let mut deps = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line.trim_matches(|c| c == '[' || c == ']').to_string();
            continue;
        }
        let runtime = section == "dependencies"
            || (section.starts_with("target.") && section.ends_with(".dependencies"));
        if runtime && let Some((name, _)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && !name.starts_with('#') {
                deps.push(name.split('.').next().unwrap().to_string());
            }
        }
        assert!(
            !section.starts_with("dependencies."),
            "use inline tables in [dependencies]"
        );
    }
    assert!(
        !deps.is_empty(),
        "no [dependencies] found in domain/Cargo.toml"
    );
    for dep in &deps {
        assert!(
            ALLOWED.contains(&dep.as_str()),
            "domain must stay pure: `{dep}` is not allowed"
        );
    }
    assert!(
        !manifest.contains("[features]"),
        "no optional IO behind features either"
    );
}
