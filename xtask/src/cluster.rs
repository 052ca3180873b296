//! `cargo xtask cluster …`: the local high-availability cluster of `deploy/cluster.sh`, and
//! what it needs installed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use clap::{Args, Subcommand};

use crate::host::{apt_install, has_postgres, on_path, root, target_dir};

/// The cluster's directory: its configuration, data, logs, pids and `cluster.env`.
#[derive(Args)]
pub struct ClusterDir {
    /// Where the cluster lives [default: target/cluster in the workspace's target directory].
    #[arg(long)]
    dir: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum ClusterAction {
    /// Start the cluster, wait until it serves, and print its `cluster.env`.
    Up {
        #[command(flatten)]
        dir: ClusterDir,
        /// The first of its ports (etcd P, PostgreSQL P+10/P+11, Patroni P+20/P+21, HAProxy
        /// writes P+30, reads P+31, stats P+39, HTTP P+40, server i P+40+i).
        #[arg(long, default_value_t = 26000)]
        base_port: u16,
        /// How many servers behind HAProxy [default: 2].
        #[arg(long)]
        servers: Option<u32>,
        /// The server binary [default: target/release/saboteur if present, else
        /// target/debug/saboteur].
        #[arg(long)]
        bin: Option<PathBuf>,
        /// The database and HAProxy only, no servers.
        #[arg(long)]
        no_servers: bool,
        /// Seconds each wait may take before `up` fails [default: 60].
        #[arg(long)]
        timeout: Option<u32>,
        /// More arguments for every `saboteur serve` (after `--`).
        #[arg(last = true)]
        rest: Vec<String>,
    },
    /// Stop every process of the cluster and remove its directory.
    Down {
        #[command(flatten)]
        dir: ClusterDir,
    },
    /// Patroni's view of the nodes (`patronictl list`).
    Status {
        #[command(flatten)]
        dir: ClusterDir,
    },
    /// SIGKILL the current primary's postmaster (Patroni fails over to the standby).
    KillPrimary {
        #[command(flatten)]
        dir: ClusterDir,
    },
    /// Wait until there is a primary and a streaming synchronous standby again.
    WaitSync {
        #[command(flatten)]
        dir: ClusterDir,
        /// Seconds to wait at most [default: 60].
        #[arg(long)]
        timeout: Option<u32>,
    },
    /// Stall the primary's machine: SIGSTOP its Patroni, postmaster and the postmaster's
    /// children for SECONDS, then SIGCONT.
    PausePrimary(Pause),
    /// Stall the synchronous standby's machine likewise.
    PauseStandby(Pause),
    /// Stop one member and start it again with its configuration and data: node1, node2
    /// (Patroni and its PostgreSQL), etcd1, etcd2 or etcd3.
    Restart {
        #[command(flatten)]
        dir: ClusterDir,
        /// The member: node1, node2, etcd1, etcd2 or etcd3.
        member: String,
    },
    /// Stop every etcd member: the consensus store lost (the primary keeps running while it
    /// reaches the other node's Patroni: `failsafe_mode`).
    StopEtcd {
        #[command(flatten)]
        dir: ClusterDir,
    },
    /// Start every etcd member again with its data, and wait until each answers.
    StartEtcd {
        #[command(flatten)]
        dir: ClusterDir,
    },
}

/// How long, and what, a pause stops.
#[derive(Args)]
pub struct Pause {
    #[command(flatten)]
    dir: ClusterDir,
    /// How long the node stays stopped.
    seconds: u32,
    /// Stop PostgreSQL alone (the postmaster and its children), not Patroni.
    #[arg(long)]
    postgres_only: bool,
}

impl ClusterDir {
    /// The directory given, or `cluster` in the workspace's target directory.
    fn path(&self) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(|| target_dir().join("cluster"))
    }
}

impl Pause {
    fn args(&self, command: &str, args: &mut Vec<String>) {
        args.extend([command.into(), "--seconds".into(), self.seconds.to_string()]);
        if self.postgres_only {
            args.push("--postgres-only".into());
        }
    }
}

/// Runs `deploy/cluster.sh` for an action; its exit status is the task's.
pub fn cluster(action: ClusterAction) -> ExitCode {
    let mut args: Vec<String> = Vec::new();
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let dir = match &action {
        ClusterAction::Up { dir, .. }
        | ClusterAction::Down { dir }
        | ClusterAction::Status { dir }
        | ClusterAction::KillPrimary { dir }
        | ClusterAction::WaitSync { dir, .. }
        | ClusterAction::PausePrimary(Pause { dir, .. })
        | ClusterAction::PauseStandby(Pause { dir, .. })
        | ClusterAction::Restart { dir, .. }
        | ClusterAction::StopEtcd { dir }
        | ClusterAction::StartEtcd { dir } => dir.path(),
    };
    match action {
        ClusterAction::Up {
            base_port,
            servers,
            bin,
            no_servers,
            timeout,
            rest,
            ..
        } => {
            if let Err(e) = ensure_cluster_tools() {
                eprintln!("xtask: {e}");
                return ExitCode::FAILURE;
            }
            args.extend(["up".into(), "--base-port".into(), base_port.to_string()]);
            if let Some(n) = servers {
                args.extend(["--servers".into(), n.to_string()]);
            }
            if let Some(bin) = bin {
                args.extend(["--bin".into(), text(&bin)]);
            }
            if no_servers {
                args.push("--no-servers".into());
            }
            if let Some(t) = timeout {
                args.extend(["--timeout".into(), t.to_string()]);
            }
            args.extend(["--dir".into(), text(&dir)]);
            if !rest.is_empty() {
                args.push("--".into());
                args.extend(rest);
            }
        }
        ClusterAction::Down { .. } => args.push("down".into()),
        ClusterAction::Status { .. } => args.push("status".into()),
        ClusterAction::KillPrimary { .. } => args.push("kill-primary".into()),
        ClusterAction::WaitSync { timeout, .. } => {
            args.push("wait-sync".into());
            if let Some(t) = timeout {
                args.extend(["--timeout".into(), t.to_string()]);
            }
        }
        ClusterAction::PausePrimary(pause) => pause.args("pause-primary", &mut args),
        ClusterAction::PauseStandby(pause) => pause.args("pause-standby", &mut args),
        ClusterAction::Restart { member, .. } => {
            args.extend(["restart".into(), "--member".into(), member]);
        }
        ClusterAction::StopEtcd { .. } => args.push("stop-etcd".into()),
        ClusterAction::StartEtcd { .. } => args.push("start-etcd".into()),
    }
    if args[0] != "up" {
        args.extend(["--dir".into(), text(&dir)]);
    }
    match Command::new("bash")
        .arg(root().join("deploy/cluster.sh"))
        .args(&args)
        .status()
    {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("xtask: cannot run deploy/cluster.sh: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What `deploy/cluster.sh` runs: etcd, HAProxy and PostgreSQL from Debian's packages (and
/// curl, which it asks with, and python3-venv); Patroni 4 from PyPI in a virtual environment
/// of its own (`deploy/install-patroni.sh`: Debian's Patroni is too old).
pub fn ensure_cluster_tools() -> Result<(), String> {
    let mut missing = Vec::new();
    if !python_has_venv() {
        missing.push("python3-venv");
    }
    if !on_path("etcd") {
        missing.push("etcd-server");
    }
    // HAProxy is in /usr/sbin, which a user's PATH may lack.
    if !on_path("haproxy") && !Path::new("/usr/sbin/haproxy").is_file() {
        missing.push("haproxy");
    }
    if !has_postgres() {
        missing.push("postgresql");
    }
    if !on_path("curl") {
        missing.push("curl");
    }
    if !missing.is_empty() {
        apt_install(&missing, |list| {
            format!(
                "the high-availability cluster (deploy/cluster.sh) needs {list}: run \
                 `sudo apt-get install -y {list}`, then run this again"
            )
        })?;
    }
    // Installs or upgrades when its version is not the one it names; else does nothing.
    let installed = Command::new("bash")
        .arg(root().join("deploy/install-patroni.sh"))
        .status()
        .is_ok_and(|s| s.success());
    if installed {
        Ok(())
    } else {
        Err("installing Patroni failed: run `bash deploy/install-patroni.sh`".into())
    }
}

/// Whether the system's Python makes virtual environments: Debian keeps `ensurepip` in
/// python3-venv.
fn python_has_venv() -> bool {
    let python = if Path::new("/usr/bin/python3").is_file() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    Command::new(python)
        .args(["-c", "import ensurepip, venv"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
