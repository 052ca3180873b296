//! `saboteur-verify` and `saboteur verify`: a bundle, receipts, commitments, kept keys, the
//! transparency log and checkpoints, and a player's own key, checked offline; the exit code
//! says what was found ([`crate::report`]: 0 all verified, 1 a discrepancy or a
//! contradiction, 2 a receipt refused, 3 bot moves this verifier cannot vouch for, 4 a game it
//! cannot place in the log yet, 64 a usage error, 66 a file it cannot read).
//!
//! The server's `saboteur verify` adds `--game` (a bundle read from its store) and runs
//! [`verify_with`].

use crate::audit::AuditBundle;
use crate::receipt::PublishedKey;
use crate::report::{code, fail, finish, found, said};
use crate::transparency::Checkpoint;

/// What to check: the arguments of `saboteur-verify` (and of `saboteur verify`, which adds
/// `--game`).
#[derive(clap::Args, Debug, Default)]
pub struct VerifyArgs {
    /// A bundle downloaded from `GET /games/{id}/audit`.
    #[arg(long, group = "source")]
    pub file: Option<std::path::PathBuf>,
    /// Receipts kept from the server: a JSON array of receipts, or of the bodies served with
    /// them (views, outcomes), checked against the bundle.
    #[arg(long)]
    pub receipts: Option<std::path::PathBuf>,
    /// A reply kept from the game's creation (`POST /games`) or from taking a seat (`POST
    /// /games/{id}/seats`), or its `commitment` and `receipt`: the seed the server committed
    /// to, and the share the seat sent, checked against the bundle's seed and its
    /// `seed_mixed` event. Given with the request that took the seat (the reply with a `sent`
    /// member: the body sent, its `public_key` and `entropy`), the commitment must name what
    /// was sent. Repeatable.
    #[arg(long)]
    pub commitment: Vec<std::path::PathBuf>,
    /// Statements the player signed and kept (`{"statement": …, "signature": …}` each, as the
    /// SDKs and the web client keep them), for the refusals among `--receipts` (given with
    /// their bodies): each refused command, undo request, vote or reclaim is decided again at
    /// the refusal's version, and one the rules allow there is named, "the server refused a
    /// legal move at version N" (exit 1). Repeatable. With a bundle, against its record;
    /// without one (during the game), a command signed at the refusal's version is decided from
    /// the seat's own view at that version, given among `--receipts` with its body.
    #[arg(long)]
    pub statements: Vec<std::path::PathBuf>,
    /// The transparency log's entries, from the first (`GET /log` pages joined as one JSON
    /// array, or a page), for `--checkpoint`; the bundle's entry is looked for in it.
    #[arg(long)]
    pub log: Option<std::path::PathBuf>,
    /// A log checkpoint kept earlier (`GET /log/checkpoint`), checked to be a prefix of
    /// `--log`; the keys it commits to must all be published by the bundle. Repeatable.
    #[arg(long)]
    pub checkpoint: Vec<std::path::PathBuf>,
    /// The server's keys as kept from `GET /keys` (the body, or a list of keys). Repeatable.
    /// A receipt signed by a kept key that the bundle no longer publishes is reported as the
    /// server withdrawing its key (exit 1), not as a forgery.
    #[arg(long)]
    pub keys: Vec<std::path::PathBuf>,
    /// Audit a game that may not be over: without it, a record that does not end the game is
    /// a discrepancy (exit 1), saying where it stops.
    #[arg(long)]
    pub unfinished: bool,
    /// A player's own key, as `SEAT:KEY` (the seat number, then the public key's 64 hex
    /// digits): every act of that seat not signed by this key, and not made while the record
    /// gave the seat to a bot, is named (exit 1) — a key swapped in the lobby, or put in place
    /// of the player's after a token reissue. Repeatable: give every key the player held for a
    /// seat (a changed key, a key registered again with a new token); needs a bundle.
    #[arg(long = "player-key", value_name = "SEAT:KEY")]
    pub player_key: Vec<String>,
    /// Say everything as one JSON document on standard output (`exit_code`, `result`,
    /// `verified`, `found`) instead of lines; the exit code is the same.
    #[arg(long)]
    pub json: bool,
}

fn read_json(path: &std::path::Path) -> std::io::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)?;
    serde_json::from_str(&text)
        .map_err(|e| std::io::Error::other(format!("{}: not JSON: {e}", path.display())))
}

/// A JSON array's items, or a single object as one item; `field` names the array inside an
/// object (a page of `GET /log` holds `entries`).
fn items(value: serde_json::Value, field: &str) -> Vec<serde_json::Value> {
    match value {
        serde_json::Value::Array(items) => items,
        serde_json::Value::Object(mut o) => match o.remove(field) {
            Some(serde_json::Value::Array(items)) => items,
            Some(other) => {
                o.insert(field.to_string(), other);
                vec![serde_json::Value::Object(o)]
            }
            None => vec![serde_json::Value::Object(o)],
        },
        other => vec![other],
    }
}

/// Checks what `args` names, with the bundle of `--file`; says what was verified, and exits
/// with the code of what was found (see [`crate::report`]); returns when everything verified.
pub fn verify(args: VerifyArgs) -> std::io::Result<()> {
    if args.json {
        crate::report::json();
    }
    let bundle = load_bundle(&args)?;
    verify_with(&args, bundle)
}

/// [`verify`], with the bundle given (read from a file, or from the server's store); the
/// caller has already turned `--json` on ([`crate::report::json`]) before reading the bundle.
pub fn verify_with(args: &VerifyArgs, bundle: Option<AuditBundle>) -> std::io::Result<()> {
    if bundle.is_none() && args.receipts.is_none() && args.log.is_none() {
        fail(
            code::USAGE,
            "give a bundle (--file or --game), receipts (--receipts) or a log (--log)",
        );
    }
    if bundle.is_none() && (!args.commitment.is_empty() || !args.player_key.is_empty()) {
        fail(
            code::USAGE,
            "a commitment or a player's key is checked against the game's bundle: give --file \
             or --game",
        );
    }
    if bundle.is_none() && !args.statements.is_empty() && args.receipts.is_none() {
        fail(
            code::USAGE,
            "a kept statement is judged with the refusals among --receipts: give them",
        );
    }
    let (kept, checkpoints) = kept_keys(args, bundle.as_ref())?;
    // Receipts are checked even when the engine's audit fails: a genuine receipt the record
    // contradicts says more than the record's own inconsistency.
    let (mut failed, unvouched) = match &bundle {
        Some(bundle) => audit(bundle, args.unfinished),
        None => (false, false),
    };
    let proved = receipts(args, bundle.as_ref(), &kept, failed)?;
    let mut cannot_tell = false;
    if let Some(path) = &args.log {
        let mut keys = kept.clone();
        if let Some(bundle) = &bundle {
            keys.extend(bundle.keys.iter().cloned());
        }
        cannot_tell = log(path, bundle.as_ref(), &keys, &checkpoints, &proved)?;
    }
    if let Some(bundle) = &bundle
        && !players_own_acts(bundle, &args.player_key)?
    {
        failed = true;
    }
    if failed {
        finish(code::DISCREPANCY);
    }
    if unvouched {
        finish(code::UNVOUCHED);
    }
    if cannot_tell {
        finish(code::CANNOT_TELL);
    }
    Ok(())
}

/// The bundle named by `--file`, if any.
pub fn load_bundle(args: &VerifyArgs) -> std::io::Result<Option<AuditBundle>> {
    Ok(match &args.file {
        Some(path) => {
            let text = std::fs::read_to_string(path)?;
            Some(serde_json::from_str(&text).map_err(|e| {
                std::io::Error::other(format!("{}: not a bundle: {e}", path.display()))
            })?)
        }
        None => None,
    })
}

/// The keys kept from `GET /keys` (what the server published, whatever it publishes now),
/// with every key a genuine checkpoint committed to, and the checkpoints. A genuine checkpoint
/// (signed by a key kept or published) whose keys the bundle no longer publishes as they were
/// names the server withdrawing its key (exit 1).
fn kept_keys(
    args: &VerifyArgs,
    bundle: Option<&AuditBundle>,
) -> std::io::Result<(Vec<PublishedKey>, Vec<Checkpoint>)> {
    let mut kept: Vec<PublishedKey> = Vec::new();
    for path in &args.keys {
        let keys: Vec<PublishedKey> =
            serde_json::from_value(serde_json::Value::Array(items(read_json(path)?, "keys")))
                .map_err(|e| {
                    std::io::Error::other(format!("{}: not a list of keys: {e}", path.display()))
                })?;
        if let Some(broken) = crate::receipt::broken_chain(&keys) {
            fail(code::DISCREPANCY, format!("{}: {broken}", path.display()));
        }
        kept.extend(keys);
    }
    if let Some(broken) = bundle.and_then(|b| crate::receipt::broken_chain(&b.keys)) {
        fail(code::DISCREPANCY, format!("the bundle's keys: {broken}"));
    }
    let mut checkpoints = Vec::new();
    for path in &args.checkpoint {
        let checkpoint: Checkpoint = serde_json::from_value(read_json(path)?).map_err(|e| {
            std::io::Error::other(format!("{}: not a checkpoint: {e}", path.display()))
        })?;
        checkpoints.push(checkpoint);
    }
    let mut trusted = kept.clone();
    if let Some(bundle) = bundle {
        trusted.extend(bundle.keys.iter().cloned());
    }
    let mut committed = Vec::new();
    for checkpoint in &checkpoints {
        // A key the checkpoint lists, endorsed by one trusted (a key rotated in after the
        // client kept its keys), is trusted too.
        crate::receipt::follow_endorsements(&mut trusted, &checkpoint.keys);
        let genuine = crate::receipt::check_bytes(
            &trusted,
            &checkpoint.key_id,
            &checkpoint.signed_bytes(),
            &checkpoint.signature,
        );
        if genuine.is_err() {
            continue;
        }
        if let Some(bundle) = bundle
            && let Some(key) = crate::transparency::withdrawn_keys(checkpoint, &bundle.keys).first()
        {
            fail(
                code::DISCREPANCY,
                format!(
                    "the checkpoint of size {} signed at {} commits to key {}, which the bundle \
                     no longer publishes as it was: the server withdrew its key",
                    checkpoint.size, checkpoint.time, key.id
                ),
            );
        }
        committed.extend(checkpoint.keys.iter().cloned());
    }
    kept.extend(committed);
    Ok((kept, checkpoints))
}

/// The engine's audit of the bundle, said: whether it found a discrepancy, and whether some bot
/// moves are of a bot version this verifier cannot vouch for.
fn audit(bundle: &AuditBundle, unfinished: bool) -> (bool, bool) {
    let checked = if unfinished {
        crate::audit::verify_unfinished(bundle)
    } else {
        crate::audit::verify(bundle)
    };
    match checked {
        Ok(report) => {
            said(format!(
                "verified: {}",
                serde_json::to_string(&report).unwrap_or_default()
            ));
            for line in crate::audit::withheld_shares(bundle) {
                said(line);
            }
            let unvouched = report.bot_moves_of_other_versions > 0;
            if unvouched {
                found(format!(
                    "cannot vouch for {} bot moves: they were recorded by a bot version this \
                     verifier does not have (it knows versions up to {}); each was found legal, \
                     but not chosen again: check them with a newer verifier",
                    report.bot_moves_of_other_versions,
                    saboteur_domain::BOT_VERSION
                ));
            }
            (false, unvouched)
        }
        Err(discrepancy) => {
            found(format!("first discrepancy: {discrepancy}"));
            (true, false)
        }
    }
}

/// `--receipts` and `--commitment`, against the bundle or, without one, against each other:
/// what they prove game by game. A contradiction exits 1, a refused receipt 2 (1 when the
/// audit already failed).
fn receipts(
    args: &VerifyArgs,
    bundle: Option<&AuditBundle>,
    kept: &[PublishedKey],
    failed: bool,
) -> std::io::Result<Vec<crate::audit::ReceiptsProve>> {
    use crate::audit::ReceiptProblem;
    let mut kept_items = Vec::new();
    if let Some(path) = &args.receipts {
        kept_items.extend(items(read_json(path)?, "receipts"));
    }
    for path in &args.commitment {
        kept_items.extend(items(read_json(path)?, "commitments"));
    }
    if args.receipts.is_none() && args.commitment.is_empty() {
        return Ok(Vec::new());
    }
    let path = args
        .receipts
        .as_ref()
        .or(args.commitment.first())
        .cloned()
        .unwrap_or_default();
    let receipts = crate::audit::read_receipts(&kept_items)
        .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
    let mut proved = Vec::new();
    let outcome = match bundle {
        Some(bundle) => crate::audit::check_receipts_with_keys(bundle, &receipts, kept)
            .map(|checked| {
                said(format!(
                    "receipts agree with the bundle: {}",
                    serde_json::to_string(&checked).unwrap_or_default()
                ))
            })
            .and_then(|()| refusals(args, Some(bundle), &receipts)),
        None => crate::audit::prove_with_receipts(&receipts, kept)
            .map(|games| {
                for game in &games {
                    let over = game
                        .signed_game_over_at
                        .map(|v| format!("; the server signed the game over at version {v}"))
                        .unwrap_or_default();
                    said(format!(
                        "game {}: {} genuine receipts, signed up to version {} (served at \
                     {}){over}",
                        game.game_id, game.receipts, game.latest_version, game.latest_served_at
                    ));
                }
                proved = games;
            })
            .and_then(|()| refusals(args, None, &receipts)),
    };
    match outcome {
        Ok(()) => Ok(proved),
        Err(problem @ ReceiptProblem::Contradiction(_)) => fail(code::DISCREPANCY, problem),
        Err(problem) if failed => fail(code::DISCREPANCY, problem),
        Err(problem) => fail(code::REFUSED, problem),
    }
}

/// `--statements`: each refusal among the receipts that names a kept statement, decided again
/// against the bundle, or without it from the seat's own view at the refusal's version (a view
/// receipt given with its body); a legal move refused is a contradiction.
fn refusals(
    args: &VerifyArgs,
    bundle: Option<&AuditBundle>,
    receipts: &[(crate::receipt::Receipt, Option<serde_json::Value>)],
) -> Result<(), crate::audit::ReceiptProblem> {
    use crate::audit::{Judged, KeptStatement, ReceiptProblem};
    let mut statements: Vec<KeptStatement> = Vec::new();
    for path in &args.statements {
        let list = read_json(path)
            .map_err(|e| e.to_string())
            .and_then(|v| {
                serde_json::from_value(serde_json::Value::Array(items(v, "statements")))
                    .map_err(|e| format!("{}: not kept statements: {e}", path.display()))
            })
            .unwrap_or_else(|e| fail(code::UNREADABLE, e));
        statements.extend::<Vec<KeptStatement>>(list);
    }
    if statements.is_empty() {
        return Ok(());
    }
    let judged = match bundle {
        Some(bundle) => crate::audit::judge_bundle(bundle, receipts, &statements)
            .map_err(ReceiptProblem::Refused)?,
        None => crate::audit::judge_from_views(receipts, &statements),
    };
    if judged.is_empty() {
        said("no refusal among the receipts names a kept statement");
    }
    for (name, verdict) in judged {
        match verdict {
            Judged::Right(why) => said(format!("{name} was right: {why}")),
            Judged::NotJudged(why) => said(format!("{name} is not judged: {why}")),
            Judged::LegalRefused(what) => {
                return Err(ReceiptProblem::Contradiction(format!("{name}: {what}")));
            }
        }
    }
    Ok(())
}

/// `--log`: the entries chain and bind their times, each checkpoint is a prefix signed no
/// earlier than its entries and than a smaller checkpoint, the bundle's game matches its
/// entry, and no game whose end the receipts show signed was hidden. Whether a game could not
/// be placed yet (nothing given is late enough to tell).
fn log(
    path: &std::path::Path,
    bundle: Option<&AuditBundle>,
    keys: &[PublishedKey],
    checkpoints: &[Checkpoint],
    proved: &[crate::audit::ReceiptsProve],
) -> std::io::Result<bool> {
    use crate::transparency::{
        LogRecord, Placed, check_checkpoint, check_checkpoint_times, check_entries, place_game,
    };
    let entries: Vec<LogRecord> =
        serde_json::from_value(serde_json::Value::Array(items(read_json(path)?, "entries")))
            .map_err(|e| {
                std::io::Error::other(format!("{}: not log entries: {e}", path.display()))
            })?;
    if let Err(e) = check_entries(&entries) {
        fail(
            code::DISCREPANCY,
            format!("first discrepancy in the log: {e}"),
        );
    }
    said(format!("the log's {} entries chain", entries.len()));
    for checkpoint in checkpoints {
        match check_checkpoint(checkpoint, &entries, keys) {
            Ok(()) => said(format!(
                "checkpoint of size {} is a prefix of the log",
                checkpoint.size
            )),
            Err(e) => fail(code::DISCREPANCY, e),
        }
    }
    if let Err(e) = check_checkpoint_times(checkpoints, &entries) {
        fail(code::DISCREPANCY, e);
    }
    if let Some(bundle) = bundle {
        match entries.iter().find(|e| e.game_id == bundle.game_id) {
            Some(entry)
                if entry.version != bundle.events.len() as i64
                    || Some(entry.head.as_str())
                        != bundle.events.last().map(|e| e.hash.as_str()) =>
            {
                fail(
                    code::DISCREPANCY,
                    format!(
                        "log entry {}: the game ended at version {} with head {}; the bundle \
                         differs: the record was changed after it was logged",
                        entry.seq, entry.version, entry.head
                    ),
                );
            }
            Some(entry) => said(format!("the game is log entry {}", entry.seq)),
            None => said("the game is not in the log given"),
        }
    }
    // A game whose end the server signed must be logged; games logged, or checkpoints signed,
    // well after that moment show it was left out, not late. Nothing that late: cannot tell.
    let mut cannot_tell = false;
    for game in proved.iter().filter(|g| g.signed_game_over_at.is_some()) {
        match place_game(
            &game.game_id,
            game.signed_game_over_at.unwrap_or_default(),
            &game.latest_served_at,
            &entries,
            checkpoints,
        ) {
            Placed::Logged(line) => said(line),
            Placed::Hidden(hidden) => fail(code::DISCREPANCY, hidden),
            Placed::CannotTell(line) => {
                found(line);
                cannot_tell = true;
            }
        }
    }
    Ok(cannot_tell)
}

/// `--player-key SEAT:KEY`: every act of the seat checked against the player's own keys (all
/// those given for the seat: a player who changed keys holds each); says what it found, and
/// whether every act was the player's.
fn players_own_acts(bundle: &AuditBundle, given: &[String]) -> std::io::Result<bool> {
    let mut by_seat: std::collections::BTreeMap<u8, Vec<String>> = Default::default();
    for one in given {
        let (seat, key) = one
            .split_once(':')
            .and_then(|(s, k)| Some((s.parse::<u8>().ok()?, k)))
            .unwrap_or_else(|| {
                fail(
                    code::USAGE,
                    format!("--player-key {one}: give SEAT:KEY, a seat number and a key"),
                )
            });
        by_seat.entry(seat).or_default().push(key.to_string());
    }
    let mut all_theirs = true;
    for (seat, keys) in &by_seat {
        let named = crate::audit::acts_not_signed_by(bundle, *seat, keys)
            .map_err(|e| std::io::Error::other(format!("--player-key {seat}:…: {e}")))?;
        for (seq, what) in &named {
            found(format!("event {seq}: {what}"));
        }
        if named.is_empty() {
            let prints: Vec<String> = keys
                .iter()
                .map(|k| saboteur_domain::fingerprint(&k.to_ascii_lowercase()))
                .collect();
            said(format!(
                "every act of seat {seat} is signed by the key {}",
                prints.join(" or ")
            ));
        }
        all_theirs &= named.is_empty();
    }
    Ok(all_theirs)
}
