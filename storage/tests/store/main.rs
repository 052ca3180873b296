//! The event store's conformance suite, run against both backends: SQLite (a temporary file)
//! and PostgreSQL (`DATABASE_URL`, or a throwaway cluster).
//!
//! One file per topic; `helpers.rs` holds what they share, and this file only wires: the
//! conformance tests run each topic's checks on both backends.

mod appends;
mod credentials;
mod games;
mod helpers;
mod keys;
mod lobby;
mod migrations;
mod notify;
mod outage;
mod presence;
mod races;
mod reads;

use saboteur_storage::{EventStore, StoreError};

use appends::{
    conflicts_and_missing_games, idempotent_retry, immutable_and_tamper_evident, pagination,
    round_trip,
};
use credentials::{credentials, join_limit_holds_under_races, tokens_and_deadlines};
use helpers::{postgres, sqlite};
use keys::{signing_keys, transparency_log};
use races::{many_games, race};

macro_rules! conformance {
    ($backend:ident) => {
        mod $backend {
            use super::*;

            #[tokio::test]
            async fn append_and_read_round_trip() {
                let (store, _keep) = $backend().await;
                round_trip(store).await;
            }
            #[tokio::test]
            async fn stale_versions_and_missing_games_are_refused() {
                let (store, _keep) = $backend().await;
                conflicts_and_missing_games(store).await;
            }
            #[tokio::test]
            async fn a_retried_command_id_appends_nothing() {
                let (store, _keep) = $backend().await;
                idempotent_retry(store).await;
            }
            #[tokio::test]
            async fn events_and_games_page() {
                let (store, _keep) = $backend().await;
                pagination(store).await;
            }
            #[tokio::test]
            async fn events_are_immutable_and_tampering_is_found() {
                let (store, _keep) = $backend().await;
                immutable_and_tamper_evident(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn thirty_two_racers_one_winner_per_version() {
                let (store, _keep) = $backend().await;
                race(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn simultaneous_appends_to_many_games_keep_their_own_outcomes() {
                let (store, _keep) = $backend().await;
                many_games(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn tokens_swap_with_their_batch_and_deadlines_are_swept() {
                let (store, _keep) = $backend().await;
                tokens_and_deadlines(store).await;
            }
            #[tokio::test]
            async fn a_players_seats_are_found_by_its_key() {
                let (store, _keep) = $backend().await;
                credentials::seats_by_key(store).await;
            }
            #[tokio::test]
            async fn credentials_are_stored_hashed_and_removable() {
                let (store, _keep) = $backend().await;
                credentials(store).await;
            }
            #[tokio::test]
            async fn a_signed_lobby_act_holds_only_at_its_lobby_version() {
                let (store, _keep) = $backend().await;
                lobby::lobby_versions(store).await;
            }
            #[tokio::test]
            async fn a_player_moves_only_its_own_seat_to_a_free_one_while_the_lobby_is_open() {
                let (store, _keep) = $backend().await;
                lobby::seat_moves(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn a_join_limit_holds_when_seats_are_taken_at_once() {
                let (store, _keep) = $backend().await;
                join_limit_holds_under_races(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn one_signing_key_is_active_and_every_key_is_kept() {
                let (store, _keep) = $backend().await;
                signing_keys(store).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn finished_games_are_logged_once_in_one_chain() {
                let (store, _keep) = $backend().await;
                transparency_log(store).await;
            }
        }
    };
}

conformance!(sqlite);
conformance!(postgres);

#[tokio::test]
async fn unknown_urls_are_refused() {
    assert!(matches!(
        EventStore::connect("mysql://x").await,
        Err(StoreError::Invalid(_))
    ));
}
