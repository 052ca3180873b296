//! The server's signing keys: one for two processes starting on one database, kept across a
//! rotation, read from a key file; a checkpoint commits to every key published when it was
//! signed.

use std::process::Command;

use crate::operator::*;
use crate::play;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_file_is_published_and_a_rotation_keeps_the_old_key() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}?mode=rwc", dir.path().join("k.db").display());
    // Two processes starting on one database (its schema made first): one key.
    drop(saboteur_storage::EventStore::connect(&url).await.unwrap());
    let (a, b) = tokio::join!(Server::start(&url), Server::start(&url));
    let keys = a.call("GET", "/keys", None, None).await;
    assert_eq!(keys, b.call("GET", "/keys", None, None).await);
    assert_eq!(keys["keys"].as_array().unwrap().len(), 1);
    let first = keys["keys"][0]["id"].as_str().unwrap().to_string();
    assert!(keys["keys"][0]["retired_at"].is_null());
    assert_eq!(keys["keys"][0]["public_key"].as_str().unwrap().len(), 64);

    // `saboteur keys rotate`: a new active key; the old one stays published, retired.
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["keys", "rotate", "--database-url", &url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let rotated: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = a.call("GET", "/keys", None, None).await;
    let keys = keys["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert!(
        keys.iter()
            .any(|k| k["id"] == first.as_str() && k["retired_at"].is_string())
    );
    assert!(
        keys.iter()
            .any(|k| k["id"] == rotated["id"] && k["retired_at"].is_null())
    );

    // The retired key's secret half is erased from the store; the active key's is kept.
    let store = saboteur_storage::EventStore::connect(&url).await.unwrap();
    let stored = store.server_keys().await.unwrap();
    assert!(
        stored
            .iter()
            .all(|k| k.secret_key.is_some() == k.retired_at.is_none())
    );

    // A key file: its key is the one published as active, and the one receipts name.
    let file = dir.path().join("signing.key");
    let config = saboteur_api::Config {
        signing_key_file: Some(file.clone()),
        // Many clients from one address: the per-client limits are switched off.
        limits: saboteur_api::Limits {
            off: true,
            ..saboteur_api::Limits::default()
        },
        ..saboteur_api::Config::new("127.0.0.1:0", url.as_str())
    };
    let (server, addr) = saboteur_api::start(config).await.unwrap();
    tokio::spawn(server);
    let mine = saboteur_api::receipt::Signer::from_file(&file).unwrap();
    let keys: Value = reqwest::get(format!("http://{addr}/keys"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let active: Vec<&Value> = keys["keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["retired_at"].is_null())
        .collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["id"], mine.id());
    assert_eq!(active[0]["public_key"], mine.public_hex().as_str());
    let checkpoint: Value = reqwest::get(format!("http://{addr}/log/checkpoint"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(checkpoint["key_id"], mine.id());
    assert_eq!(checkpoint["size"], 0);

    // The file's key cannot endorse its successor from the store: a rotation without the file
    // is refused, and changes nothing; with it, the new key is endorsed and the chain holds.
    let rotate = |file: Option<&std::path::Path>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_saboteur"));
        command.args(["keys", "rotate", "--database-url", &url]);
        if let Some(file) = file {
            command.arg("--signing-key-file").arg(file);
        }
        command.output().unwrap()
    };
    let out = rotate(None);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the active signing key {} is kept outside the store, so it cannot endorse its \
             successor",
            mine.id()
        )),
        "{}",
        text(&out)
    );
    assert_eq!(store.server_keys().await.unwrap().len(), 3);
    let out = rotate(Some(&file));
    assert!(out.status.success(), "{}", text(&out));
    let published: Vec<saboteur_verifier::receipt::PublishedKey> = store
        .server_keys()
        .await
        .unwrap()
        .iter()
        .map(saboteur_verifier::receipt::PublishedKey::from)
        .collect();
    assert_eq!(published.len(), 4);
    assert_eq!(saboteur_verifier::receipt::broken_chain(&published), None);
}

/// A checkpoint commits to every key published when it was signed. The operator rotates its
/// key, then deletes the old one (trigger dropped): a player who kept no `GET /keys` but a
/// checkpoint signed after the rotation (by the key still published) has the withdrawal named,
/// and their receipts signed by the withdrawn key are shown genuine, not forged. A client that
/// kept only the first key trusts the checkpoint signed by the key rotated in, which the kept
/// key endorsed.
async fn checkpoints_commit_the_keys(url: &str, dir: &std::path::Path) {
    let server = Server::start(url).await;
    let (id, kept) = play(&server).await;
    let old = kept[0]["receipt"]["key_id"].as_str().unwrap().to_string();
    let first_keys = server.call("GET", "/keys", None, None).await;
    let out = Command::new(env!("CARGO_BIN_EXE_saboteur"))
        .args(["keys", "rotate", "--database-url", url])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    // Restarted, the server signs with the new key, and its checkpoints list both.
    let server = Server::start(url).await;
    let checkpoint = server.call("GET", "/log/checkpoint", None, None).await;
    assert_ne!(checkpoint["key_id"], old.as_str());
    let listed: Vec<&str> = checkpoint["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&old.as_str()) && listed.len() == 2,
        "{checkpoint}"
    );
    let cp_file = file(dir, "checkpoint-keys.json", &checkpoint);
    let log_file = file(
        dir,
        "log-keys.json",
        &server.call("GET", "/log", None, None).await,
    );
    let kept_file = file(dir, "kept-keys.json", &json!(kept));
    // A client that kept only the first key list follows the rotation through the checkpoint:
    // its new key, endorsed by the kept one, signed it.
    let out = verify_with(&[
        "--receipts",
        &kept_file,
        "--keys",
        &file(dir, "first-keys.json", &first_keys),
        "--log",
        &log_file,
        "--checkpoint",
        &cp_file,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "checkpoint of size {} is a prefix of the log",
            checkpoint["size"]
        )),
        "{}",
        text(&out)
    );
    // Untouched: the checkpoint's keys are all published.
    let bundle = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let args = |bundle_file: &str| {
        vec![
            "--file".to_string(),
            bundle_file.to_string(),
            "--receipts".into(),
            kept_file.clone(),
            "--log".into(),
            log_file.clone(),
            "--checkpoint".into(),
            cp_file.clone(),
        ]
    };
    let run = |a: Vec<String>| verify_with(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let out = run(args(&file(dir, "bundle-keys.json", &bundle)));
    assert!(out.status.success(), "{}", text(&out));
    // The operator withdraws the old key.
    let store = without_trigger(url, "server_keys_no_delete", "server_keys").await;
    let sql = format!("DELETE FROM server_keys WHERE id = '{old}'");
    assert_eq!(store.execute_raw(&sql).await.unwrap(), 1);
    let server = Server::start(url).await;
    let without = server
        .call("GET", &format!("/games/{id}/audit"), None, None)
        .await;
    let out = run(args(&file(dir, "without-keys.json", &without)));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains(&format!(
            "the checkpoint of size {} signed at {} commits to key {old}, which the bundle no \
             longer publishes as it was: the server withdrew its key",
            checkpoint["size"],
            checkpoint["time"].as_str().unwrap()
        )),
        "{}",
        text(&out)
    );
    // Without the checkpoint, the same receipts look forged.
    let out = verify_with(&[
        "--file",
        &file(dir, "without-keys.json", &without),
        "--receipts",
        &kept_file,
    ]);
    assert!(
        text(&out).contains("a forgery proves nothing"),
        "{}",
        text(&out)
    );
}

on_both_stores!(
    checkpoints_commit_the_keys_on_sqlite,
    checkpoints_commit_the_keys_on_postgres,
    checkpoints_commit_the_keys
);
