//! Audit bundles: a finished game's whole record, and the offline check of it.
//!
//! A bundle holds every event as stored (nothing redacted), the revealed seed and its
//! commitment. [`verify`] checks, in order: the seed against its commitment, the hash chain,
//! every event's decoding, that the log was created with the revealed seed, then the engine's
//! audit — every deal derived again from the seed, every command decided again against the
//! state before it and compared with the recorded events, every undo checked — and the final
//! scores.

use actix_web::{HttpResponse, get, web};
use saboteur_domain::{AuditReport, Event};
use saboteur_storage::{GENESIS, StoredEvent, chain_hash, seed_commitment};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::AppState;
use crate::error::ApiError;

pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(audit_bundle);
}

/// One stored event, as it is in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BundleEvent {
    /// Its place in the log, from 1.
    pub seq: i64,
    /// Its type tag.
    pub event_type: String,
    /// The schema version of its payload.
    pub schema_version: i32,
    /// The event, unredacted.
    #[schema(value_type = Object)]
    pub payload: Value,
    /// The previous event's hash.
    pub prev_hash: String,
    /// SHA-256 over the previous hash and this event's canonical bytes.
    pub hash: String,
}

/// A finished game's whole record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditBundle {
    /// The game's id.
    pub game_id: String,
    /// The ruleset.
    pub ruleset: saboteur_domain::Ruleset,
    /// The seed every shuffle was drawn from, 64 hex digits.
    pub seed: String,
    /// Hex SHA-256 of the seed, published when the game was created.
    pub seed_commitment: String,
    /// Every event, in order.
    pub events: Vec<BundleEvent>,
}

/// What a verified bundle showed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Verified {
    /// Events checked.
    pub events: u64,
    /// Commands decided again.
    pub commands_checked: u64,
    /// Deals derived again from the seed.
    pub deals_checked: u64,
    /// Undo events checked.
    pub undos_checked: u64,
    /// Bot commands chosen again from the bot's view and recorded seed.
    pub bot_moves_checked: u64,
    /// Bot commands of another bot version, decided again but not chosen again.
    pub bot_moves_of_other_versions: u64,
    /// Each seat's final total.
    pub gold: Vec<u32>,
    /// The winning seats.
    pub winners: Vec<u8>,
}

impl From<AuditReport> for Verified {
    fn from(r: AuditReport) -> Self {
        Verified {
            events: r.events,
            commands_checked: r.commands_checked,
            deals_checked: r.deals_checked,
            undos_checked: r.undos_checked,
            bot_moves_checked: r.bot_moves_checked,
            bot_moves_of_other_versions: r.bot_moves_of_other_versions,
            gold: r.gold,
            winners: r.winners.iter().map(|s| s.0).collect(),
        }
    }
}

impl AuditBundle {
    /// A bundle from a game's stored events.
    pub fn new(
        game_id: &str,
        ruleset: saboteur_domain::Ruleset,
        seed: &[u8],
        commitment: &str,
        events: &[StoredEvent],
    ) -> Self {
        AuditBundle {
            game_id: game_id.to_string(),
            ruleset,
            seed: hex::encode(seed),
            seed_commitment: commitment.to_string(),
            events: events
                .iter()
                .map(|e| BundleEvent {
                    seq: e.seq,
                    event_type: e.event_type.clone(),
                    schema_version: e.schema_version,
                    payload: e.payload.clone(),
                    prev_hash: e.prev_hash.clone(),
                    hash: e.hash.clone(),
                })
                .collect(),
        }
    }
}

/// Checks a bundle; the error names the first discrepancy.
pub fn verify(bundle: &AuditBundle) -> Result<Verified, String> {
    let seed = hex::decode(&bundle.seed).map_err(|_| "the seed is not hex".to_string())?;
    if seed_commitment(&seed) != bundle.seed_commitment {
        return Err("the revealed seed does not match the commitment published at creation".into());
    }
    let mut prev = GENESIS.to_string();
    let mut log = Vec::with_capacity(bundle.events.len());
    for (i, e) in bundle.events.iter().enumerate() {
        let seq = i as i64 + 1;
        if e.seq != seq {
            return Err(format!("event {seq}: numbered {}", e.seq));
        }
        if e.prev_hash != prev {
            return Err(format!("event {seq}: its previous hash breaks the chain"));
        }
        let hash = chain_hash(
            &prev,
            &bundle.game_id,
            seq,
            &e.event_type,
            e.schema_version,
            &e.payload,
        );
        if hash != e.hash {
            return Err(format!("event {seq}: its contents do not match its hash"));
        }
        prev = hash;
        let version = u16::try_from(e.schema_version)
            .map_err(|_| format!("event {seq}: bad schema version"))?;
        let event =
            Event::decode(version, &e.payload).map_err(|err| format!("event {seq}: {err}"))?;
        if event.kind() != e.event_type {
            return Err(format!(
                "event {seq}: recorded as {} but is {}",
                e.event_type,
                event.kind()
            ));
        }
        log.push(event);
    }
    match log.first() {
        Some(Event::GameCreated { seed: s, .. })
            if s.known().map(|s| s.0.as_slice()) == Some(seed.as_slice()) => {}
        _ => return Err("event 1: the game was not created with the revealed seed".into()),
    }
    saboteur_domain::audit(&log)
        .map(Verified::from)
        .map_err(|d| d.to_string())
}

/// Download the audit bundle
///
/// A finished game's whole record: every event unredacted, the revealed seed and its
/// commitment. Check it offline with `saboteur verify --file BUNDLE`.
#[utoipa::path(
    tag = "events",
    params(("id" = String, Path, description = "The game's id")),
    responses(
        (status = 200, description = "The bundle", body = AuditBundle),
        (status = 404, description = "No such game", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached, or too many streams are open: try again after `Retry-After` seconds", body = saboteur_openapi::Problem, content_type = "application/problem+json", headers(("Retry-After" = String, description = "Seconds to wait"))),
        (status = 409, description = "The game is not over: its secrets are still secret", body = saboteur_openapi::Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/audit")]
async fn audit_bundle(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let bundle = bundle_from_store(&state.store, &id).await?;
    Ok(HttpResponse::Ok()
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"saboteur-{id}.json\""),
        ))
        .json(bundle))
}

/// Builds a finished game's bundle from the store.
pub async fn bundle_from_store(
    store: &saboteur_storage::EventStore,
    id: &str,
) -> Result<AuditBundle, ApiError> {
    let game = store.get_game(id).await?;
    let Some(seed) = &game.seed else {
        return Err(ApiError::Conflict(
            "the game is not over: its record is only public once it ends".into(),
        ));
    };
    let mut events = Vec::new();
    loop {
        let page = store.events_after(id, events.len() as i64, 1000).await?;
        if page.is_empty() {
            break;
        }
        events.extend(page);
    }
    Ok(AuditBundle::new(
        id,
        game.ruleset,
        seed,
        &game.seed_commitment,
        &events,
    ))
}
