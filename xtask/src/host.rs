//! The machine the tasks run on: the workspace's paths, the programs on PATH, and Debian's
//! packages installed when missing.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The workspace's target directory (`CARGO_TARGET_DIR` when set).
pub(crate) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

/// Whether this runs as root (who may install packages).
pub(crate) fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"))
}

/// Whether PostgreSQL's `initdb` is on PATH or where Debian keeps it.
pub(crate) fn has_postgres() -> bool {
    let on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("initdb").is_file()));
    let debian = std::fs::read_dir("/usr/lib/postgresql").is_ok_and(|versions| {
        versions
            .flatten()
            .any(|v| v.path().join("bin/initdb").is_file())
    });
    on_path || debian
}

/// Whether a program is on PATH.
pub(crate) fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

/// Installs the Debian packages `missing` with apt-get as root; as another user, the error
/// `unprivileged` words for the list.
pub(crate) fn apt_install(
    missing: &[&str],
    unprivileged: impl Fn(&str) -> String,
) -> Result<(), String> {
    let list = missing.join(" ");
    if !is_root() {
        return Err(unprivileged(&list));
    }
    eprintln!("xtask: installing {list} (apt-get install)");
    let mut args = vec!["install", "-y", "-qq"];
    args.extend(missing);
    if run("apt-get", &["update", "-qq"]) && run("apt-get", &args) {
        Ok(())
    } else {
        Err(format!(
            "installing {list} failed: run `apt-get install -y {list}`"
        ))
    }
}

/// Runs a command, its output shown; whether it succeeded.
pub(crate) fn run(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}
