//! Receipts signed as the server signs them, for every seat, a spectator and (once the game
//! is over) everyone, agree with the views and outcomes recomputed from the game's bundle.

use proptest::prelude::*;
use saboteur_domain::bot::random_game;
use saboteur_domain::{Audience, Event, History, Options, Ruleset, Seat, Seed};
use serde::Serialize;
use serde_json::Value;

use super::*;
use crate::body::{outcome_body, state_view};
use crate::receipt::{Receipt, ReceiptKind, audience_of};
use crate::testing::Signer;

fn bundle(log: &[Event], seed: Seed) -> AuditBundle {
    AuditBundle::of_log("g", seed, log)
}

fn sign(
    signer: &Signer,
    bundle: &AuditBundle,
    kind: ReceiptKind,
    (version, first): (i64, Option<i64>),
    audience: Audience,
    body: &impl Serialize,
) -> (Receipt, Option<Value>) {
    let value = serde_json::to_value(body).unwrap();
    let (audience, seat) = audience_of(audience);
    let receipt = signer.sign(Receipt {
        kind,
        game_id: bundle.game_id.clone(),
        version,
        first,
        head: bundle.events[version as usize - 1].hash.clone(),
        served_at: "2026-11-23T00:00:00.000Z".into(),
        audience,
        seat,
        view_hash: crate::receipt::view_hash(&value),
        request_hash: None,
        key_id: String::new(),
        signature: String::new(),
    });
    (receipt, Some(value))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn receipts_match_the_views_recomputed_from_the_bundle(
        n in any::<u64>(),
        players in 3u8..=6,
        expansion in any::<bool>(),
    ) {
        let ruleset = if expansion { Ruleset::Saboteur2 } else { Ruleset::Base };
        let seed = Seed::from_u64(n);
        let log = random_game(ruleset, Options::default(), players, seed);
        prop_assume!(log.len() > 1);
        let signer = Signer::from_secret(&[9; 32]);
        let mut bundle = bundle(&log, seed);
        bundle.ruleset = ruleset;
        bundle.keys = vec![signer.published()];
        // The server's way: a history growing event by event, the view of its current
        // state, the outcome of its last event; a sample of versions, and the last.
        let step = (log.len() / 12).max(1);
        let mut history = History::new(log[0].clone()).unwrap();
        let mut receipts = Vec::new();
        for (i, event) in log.iter().enumerate().skip(1) {
            history.push(event.clone());
            let version = i as i64 + 1;
            if i % step != 0 && i + 1 != log.len() {
                continue;
            }
            let over = *history.game().phase() == saboteur_domain::Phase::GameOver;
            let mut audiences: Vec<Audience> =
                (0..players).map(|s| Audience::Seat(Seat(s))).collect();
            audiences.push(Audience::Spectator);
            if over {
                audiences = vec![Audience::Omniscient];
            }
            for audience in audiences {
                let view = state_view(&history, version, audience).unwrap();
                receipts.push(sign(&signer, &bundle, ReceiptKind::View, (version, None), audience, &view));
            }
            let seat = Audience::Seat(Seat((i % players as usize) as u8));
            let sealer = crate::seal::Sealer::for_game("g", &log[0]);
            let out = outcome_body(&history, version, std::slice::from_ref(event), seat, sealer.as_ref());
            receipts.push(sign(&signer, &bundle, ReceiptKind::Outcome, (version, Some(version)), seat, &out));
        }
        let checked = check_receipts(&bundle, &receipts);
        prop_assert!(checked.is_ok(), "{:?}", checked);
        prop_assert_eq!(checked.unwrap().receipts, receipts.len() as u64);
    }
}
