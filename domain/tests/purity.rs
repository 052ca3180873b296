//! Architecture invariant: the domain crate does no IO. Its only dependencies are serde,
//! rand_core, rand_chacha, thiserror, sha2, serde_json and serde_json_canonicalizer (the
//! canonical statement a player signs): no async runtime, no database, no clock, no OS
//! randomness. The one optional dependency is utoipa, which only describes types for the
//! API's OpenAPI schemas, behind the `openapi` feature.

const ALLOWED: [&str; 7] = [
    "serde",
    "rand_core",
    "rand_chacha",
    "thiserror",
    "sha2",
    "serde_json",
    "serde_json_canonicalizer",
];
/// Optional dependencies, each with the only feature line that may enable it.
const OPTIONAL: [(&str, &str); 1] = [("utoipa", r#"openapi = ["dep:utoipa"]"#)];

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
        if runtime && let Some((name, spec)) = line.split_once('=') {
            let name = name.trim();
            if !name.is_empty() && !name.starts_with('#') {
                let name = name.split('.').next().unwrap().to_string();
                let optional = OPTIONAL.iter().any(|(o, _)| *o == name);
                assert_eq!(
                    spec.contains("optional = true"),
                    optional,
                    "`{name}`: only {OPTIONAL:?} are optional, and they must be"
                );
                deps.push(name);
            }
        }
        if section == "features" && !line.is_empty() && !line.starts_with('#') {
            assert!(
                OPTIONAL.iter().any(|(_, f)| *f == line),
                "domain features may only enable {OPTIONAL:?}, not `{line}`"
            );
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
            ALLOWED.contains(&dep.as_str()) || OPTIONAL.iter().any(|(o, _)| o == dep),
            "domain must stay pure: `{dep}` is not allowed"
        );
    }
}
