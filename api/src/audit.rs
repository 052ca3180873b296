//! Audit bundles built from the store. The bundle, its offline checks and the checks of
//! receipts against it are the verifier's ([`saboteur_verifier::audit`], re-exported here; see
//! docs/threat-model.md for what they prove).

pub use saboteur_verifier::audit::{
    AuditBundle, AuditCheck, AuditError, BundleEvent, CLOCK_SKEW_MS, ReceiptProblem,
    ReceiptsChecked, ReceiptsProve, Verified, acts_not_signed_by, check_equivocation,
    check_receipts, check_receipts_with_keys, check_signatures, prove_with_receipts, read_receipts,
    verify, verify_unfinished,
};
use saboteur_verifier::transparency::LogRecord;

use crate::error::{ApiError, Conflict};

/// Builds a finished game's bundle from the store.
pub async fn bundle_from_store(
    store: &saboteur_storage::ReadStore,
    id: &saboteur_storage::GameId,
) -> Result<AuditBundle, ApiError> {
    Ok(bundle_and_version(store, id).await?.0)
}

/// [`bundle_from_store`], with the game's version as its row gives it.
async fn bundle_and_version(
    store: &saboteur_storage::ReadStore,
    id: &saboteur_storage::GameId,
) -> Result<(AuditBundle, saboteur_storage::Version), ApiError> {
    let game = store.get_game(id).await?;
    let Some(seed) = &game.seed else {
        return Err(ApiError::Conflict(
            Conflict::NotOver,
            "the game is not over: its record is only public once it ends".into(),
        ));
    };
    let mut events = Vec::new();
    loop {
        let after = saboteur_storage::Version::of(0).plus(events.len());
        let page = store.events_after(id, after, 1000).await?;
        if page.is_empty() {
            break;
        }
        events.extend(page);
    }
    let events = events.iter().map(BundleEvent::from).collect();
    let mut bundle = AuditBundle::new(
        id.as_str(),
        game.ruleset,
        seed,
        &game.seed_commitment,
        events,
    );
    bundle.keys = crate::transparency::published_keys(store).await?;
    bundle.log_entry = store.log_entry_of(id).await?.map(LogRecord::from);
    Ok((bundle, game.version))
}

/// [`bundle_from_store`] from the read-only store when it holds the whole finished game (its
/// events up to the game's version, and its transparency log entry), from the store otherwise.
/// While neither can be reached, the bundle this process last served for the game, if it kept
/// one (a finished game's record no longer changes).
pub(crate) async fn bundle_from_reads(
    state: &crate::app::state::AppState,
    id: &saboteur_storage::GameId,
) -> Result<AuditBundle, ApiError> {
    state
        .reading_or_kept(
            &state.bundles,
            id.as_str(),
            |store| {
                let id = id.clone();
                async move { bundle_and_version(&store, &id).await }
            },
            |(bundle, version)| {
                saboteur_storage::Version::of(0).plus(bundle.events.len()) >= *version
                    && bundle.log_entry.is_some()
            },
        )
        .await
        .map(|(bundle, _)| bundle)
}
