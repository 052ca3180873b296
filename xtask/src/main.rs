//! `cargo xtask test`: the one test command. It installs what the tests need when it is
//! missing and it can (PostgreSQL for the store's and the server's tests; Patroni, etcd and
//! HAProxy for the high-availability cluster of `deploy/cluster.sh` that the fault tests start;
//! a Python virtual environment with Schemathesis for the spec check; Chromium, Node.js and the
//! npm packages for the web client's tests), says exactly what to run when it cannot, then runs
//! the whole suite and closes with one line: `total: N passed, N failed`.
//!
//! `cargo xtask cluster up|down|status|kill-primary|wait-sync|pause-primary|pause-standby|
//! restart|stop-etcd|start-etcd`: the local high-availability cluster (three etcd members, two
//! PostgreSQL nodes under Patroni 4, HAProxy, the servers) of `deploy/cluster.sh`, what it
//! needs installed first when missing.
//!
//! `cargo xtask dist`: the release archive of the server (`xtask/dist.sh`), as the release
//! workflow (`.github/workflows/release.yml`) publishes it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Parser, Subcommand};

mod cluster;
mod host;
mod lanes;
mod quick;
mod suite;

use suite::{
    CLUSTER_TEST, Count, DOMAIN, NOT_DOMAIN, Priority, Tally, cargo_test, counted, server_binary,
};

use cluster::{ClusterAction, cluster, ensure_cluster_tools};
use host::{apt_install, has_postgres, is_root, on_path, root, run};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "The project's own tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install what the tests need when missing (while the tests build), then run every test:
    /// every crate's but the domain's (`cargo test --workspace --exclude saboteur-domain`) and
    /// the cluster's; then the web client's type check and browser tests (against the server
    /// binary the tests built), beside them the cluster's test and then the example clients;
    /// beside all, at the lowest priority, the domain's tests and Schemathesis against the
    /// live server's spec.
    Test {
        /// Skip the Schemathesis run.
        #[arg(long)]
        no_schemathesis: bool,
        /// Skip the web client's tests (types and browser).
        #[arg(long)]
        no_browser: bool,
        /// Skip the example clients generated from the spec (TypeScript, Python, Rust, Go) and the
        /// README walkthrough.
        #[arg(long)]
        no_clients: bool,
        /// Passed to `cargo test` after `--` (e.g. a test name filter).
        #[arg(last = true)]
        rest: Vec<String>,
    },
    /// The fast loop while changing code: every crate's tests on SQLite alone — the domain
    /// (with a tenth of its random games), the verifier, the store's suite, the API's and the
    /// end-to-end tests — with no PostgreSQL, cluster, Schemathesis, browser or generated
    /// client (`test` runs those too).
    Quick {
        /// One layer's loop instead of the whole: `domain` (the rules: the engine's tests but
        /// the bots' searches), `bots` (the bots' and the analysis' searches), `api` (every
        /// crate's tests but the domain's, on SQLite).
        #[arg(value_enum)]
        layer: Option<quick::Layer>,
        /// Passed to `cargo test` after `--` (e.g. a test name filter).
        #[arg(last = true)]
        rest: Vec<String>,
    },
    /// Run the rule scenarios alone (docs/scenarios.md): the repository's own, or the scenario
    /// files under a directory of your own.
    Scenarios {
        /// A directory of scenario files to run instead of `domain/tests/scenarios/`.
        dir: Option<PathBuf>,
    },
    /// A local high-availability cluster on this machine (`deploy/cluster.sh`, described in
    /// `deploy/README.md`): three etcd members, two PostgreSQL nodes under Patroni (a primary
    /// and a synchronous standby), HAProxy, and servers behind it. Installs the Debian
    /// packages `etcd-server haproxy postgresql python3-venv` and Patroni 4 from PyPI
    /// (`deploy/install-patroni.sh`) when missing; builds nothing.
    Cluster {
        #[command(subcommand)]
        action: ClusterAction,
    },
    /// The release archive, as the release workflow makes it: builds the server with
    /// `--release --locked`, then packs it (`xtask/dist.sh`) into
    /// `target/dist/saboteur-VERSION-TARGET.tar.gz` with its `.sha256`.
    Dist,
}

/// Builds the release binary and packs it into `target/dist/`; the status is the task's.
fn dist() -> ExitCode {
    let built = Command::new(env!("CARGO"))
        .args(["build", "--release", "--locked", "-p", "saboteur-api"])
        .args(["--bin", "saboteur"])
        .status()
        .is_ok_and(|s| s.success());
    let target = host::target_dir();
    let bin = target.join("release/saboteur");
    let packed = built
        && Command::new("bash")
            .arg(host::root().join("xtask/dist.sh"))
            .args([bin, target.join("dist")])
            .status()
            .is_ok_and(|s| s.success());
    if packed {
        ExitCode::SUCCESS
    } else {
        eprintln!("xtask: the release archive was not made (see above)");
        ExitCode::FAILURE
    }
}

/// Runs the scenario runner, on `dir` when given; its exit status is the task's.
fn scenarios(dir: Option<&Path>) -> ExitCode {
    let mut command = Command::new(env!("CARGO"));
    command.args(["test", "-p", "saboteur-domain", "--test", "scenarios"]);
    if let Some(dir) = dir {
        command.env("SCENARIOS_DIR", dir);
    }
    match command.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: cannot run cargo: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The Chromium the browser tests drive: Debian's package.
const CHROMIUM: &str = "/usr/bin/chromium";

/// Chromium, Node.js and npm for the web client's tests, and Java for openapi-generator
/// (the example clients), from Debian's packages.
fn ensure_browser_tools(browser: bool, clients: bool) -> Result<(), String> {
    let mut missing = Vec::new();
    if browser && !Path::new(CHROMIUM).is_file() {
        missing.push("chromium");
    }
    if clients && !on_path("java") {
        missing.push("default-jre-headless");
    }
    // The Go example client: Debian's Go, and the one library its generated code imports.
    if clients && !on_path("go") {
        missing.push("golang-go");
    }
    if clients && !Path::new("/usr/share/gocode/src/gopkg.in/validator.v2").is_dir() {
        missing.push("golang-gopkg-validator.v2-dev");
    }
    // The README's walkthrough (tests/clients/readme.sh) keeps ids with jq.
    if clients && !on_path("jq") {
        missing.push("jq");
    }
    if !on_path("node") {
        missing.push("nodejs");
    }
    if !on_path("npm") {
        missing.push("npm");
    }
    if missing.is_empty() {
        return Ok(());
    }
    apt_install(&missing, |list| {
        format!(
            "the web client's tests need {list}: run `sudo apt-get install -y {list}` \
             (or `cargo xtask test --no-browser`), then `cargo xtask test` again"
        )
    })
}

/// The npm packages of `tests/browser` (playwright-core, axe-core, TypeScript,
/// openapi-typescript, esbuild, Biome), installed from its lock file when missing or older
/// than it.
fn ensure_npm_packages() -> Result<(), String> {
    let dir = root().join("tests/browser");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let installed = modified(&dir.join("node_modules/.package-lock.json"));
    let wanted = modified(&dir.join("package-lock.json"));
    if installed.is_some() && installed >= wanted {
        return Ok(());
    }
    eprintln!("xtask: installing the browser tests' npm packages (npm ci)");
    let ok = Command::new("npm")
        .current_dir(&dir)
        .args(["ci", "--no-audit", "--no-fund"])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        Ok(())
    } else {
        Err("`npm ci` in tests/browser failed".into())
    }
}

/// The web client's tests, served by `bin`: every `*.test.mjs` of `tests/browser`, its types
/// against the spec first, the others by name. Each file starts its own server, on a port the
/// system chooses.
fn browser_tests(bin: &Path) -> Result<Command, String> {
    let dir = root().join("tests/browser");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".test.mjs") && name != "types.test.mjs")
        .collect();
    files.sort();
    files.insert(0, "types.test.mjs".into());
    let mut node = Command::new("node");
    node.current_dir(&dir)
        .args(["--test", "--test-concurrency=1", "--test-reporter=tap"])
        .args(&files)
        .env("SABOTEUR_BIN", bin)
        .env("CHROMIUM", CHROMIUM);
    Ok(node)
}

/// The example clients (`tests/clients/run.sh`): generated from the spec, type-checked, and
/// playing whole games against `bin`.
fn client_tests(bin: &Path) -> Command {
    let mut run = Command::new("bash");
    run.current_dir(root())
        .arg("tests/clients/run.sh")
        .env("SABOTEUR_BIN", bin);
    run
}

/// PostgreSQL for the tests' throwaway clusters (unless `DATABASE_URL` names a server).
fn ensure_postgres() -> Result<(), String> {
    if std::env::var_os("DATABASE_URL").is_some() || has_postgres() {
        return Ok(());
    }
    if !is_root() {
        return Err(
            "PostgreSQL is missing: run `sudo apt-get install -y postgresql` \
                    (or set DATABASE_URL to a server), then `cargo xtask test` again"
                .into(),
        );
    }
    eprintln!("xtask: installing PostgreSQL (apt-get install postgresql)");
    if run("apt-get", &["update", "-qq"])
        && run("apt-get", &["install", "-y", "-qq", "postgresql"])
        && has_postgres()
    {
        Ok(())
    } else {
        Err("installing PostgreSQL failed: run `apt-get install -y postgresql`".into())
    }
}

/// A virtual environment with Schemathesis, made once under the system's temporary folder.
fn ensure_schemathesis() -> Result<PathBuf, String> {
    let venv = std::env::temp_dir().join("saboteur-schemathesis");
    let exe = venv.join("bin/schemathesis");
    if exe.is_file() {
        return Ok(exe);
    }
    eprintln!("xtask: installing Schemathesis into {}", venv.display());
    let venv_text = venv.to_string_lossy().to_string();
    let pip = venv.join("bin/pip").to_string_lossy().to_string();
    if run("python3", &["-m", "venv", &venv_text]) && run(&pip, &["install", "-q", "schemathesis"])
    {
        Ok(exe)
    } else {
        Err(
            "installing Schemathesis failed: it needs python3 with venv and pip \
             (`apt-get install -y python3-venv`)"
                .into(),
        )
    }
}

/// Schemathesis against the live server's own spec (`xtask/schemathesis.sh`), served by `bin`.
fn schemathesis(exe: &Path, bin: &Path) -> Command {
    let mut run = Command::new("bash");
    run.current_dir(root())
        .arg("xtask/schemathesis.sh")
        .env("SCHEMATHESIS", exe)
        .env("SABOTEUR_BIN", bin);
    run
}

fn test(
    no_schemathesis: bool,
    no_browser: bool,
    no_clients: bool,
    rest: &[String],
) -> Result<Tally, String> {
    // What the tests need is installed (packages downloaded, unpacked) while the tests are
    // built (the compiler's work): the two take little from each other.
    let setup = std::thread::spawn(move || -> Result<Option<PathBuf>, String> {
        ensure_postgres()?;
        ensure_cluster_tools()?;
        if !no_browser || !no_clients {
            ensure_browser_tools(!no_browser, !no_clients)?;
        }
        if !no_browser {
            ensure_npm_packages()?;
        }
        if no_schemathesis {
            Ok(None)
        } else {
            ensure_schemathesis().map(Some)
        }
    });
    let bin = server_binary();
    let st = setup
        .join()
        .map_err(|_| "installing what the tests need panicked")??;
    let Some(bin) = bin else {
        return Err("the tests do not build".into());
    };
    let mut tally = Tally::default();
    // The domain's tests and Schemathesis time nothing: they run at the lowest priority
    // (`nice -n 19`), each beside the rest from the start, on what the timed tests (servers,
    // databases, the cluster's faults, the browser) leave idle while they wait; their output is
    // shown once they end.
    let mut runs = vec![(
        std::thread::spawn({
            let domain = cargo_test(&DOMAIN, rest);
            move || vec![suite::captured(domain, Count::Lines, Priority::Idle)]
        }),
        "the domain's tests",
    )];
    if let Some(exe) = st {
        let check = schemathesis(&exe, &bin);
        runs.push((
            std::thread::spawn(move || vec![suite::captured(check, Count::Whole, Priority::Idle)]),
            "Schemathesis",
        ));
    }
    let mut skipping: Vec<String> = vec!["--skip".into(), CLUSTER_TEST.into()];
    skipping.extend_from_slice(rest);
    // The server's test programs, three at a time, then the tests that measure alone.
    let mut ok = lanes::api(&skipping, lanes::Games::All, &mut tally);
    // The cluster's faults wait far more than they compute (stalls of 35 s, failovers, TTLs):
    // once every other server test has ended, they run beside the web client's tests, at the
    // same priority, and the example clients after them; their output is shown once they end.
    let beside = std::thread::spawn({
        let cluster = cargo_test(&[&NOT_DOMAIN[..], &["--test", "cluster"]].concat(), rest);
        let clients = (!no_clients).then(|| client_tests(&bin));
        move || {
            let mut runs = vec![suite::captured(cluster, Count::Lines, Priority::Equal)];
            runs.extend(clients.map(|c| suite::captured(c, Count::Lines, Priority::Equal)));
            runs
        }
    });
    if !no_browser {
        ok &= counted(browser_tests(&bin)?, &mut tally);
    }
    runs.push((beside, "the cluster's test"));
    for (thread, what) in runs {
        for run in thread
            .join()
            .map_err(|_| format!("the runner of {what} panicked"))?
        {
            ok &= run.show(&mut tally);
        }
    }
    if ok && tally.failed == 0 {
        Ok(tally)
    } else {
        println!("total: {} passed, {} failed", tally.passed, tally.failed);
        Err("some tests failed".into())
    }
}

fn main() -> ExitCode {
    match Cli::parse().task {
        Task::Test {
            no_schemathesis,
            no_browser,
            no_clients,
            rest,
        } => match test(no_schemathesis, no_browser, no_clients, &rest) {
            Ok(tally) => {
                println!("total: {} passed, {} failed", tally.passed, tally.failed);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("xtask: {e}");
                ExitCode::FAILURE
            }
        },
        Task::Quick { layer, rest } => quick::quick(layer, &rest),
        Task::Scenarios { dir } => scenarios(dir.as_deref()),
        Task::Cluster { action } => cluster(action),
        Task::Dist => dist(),
    }
}
