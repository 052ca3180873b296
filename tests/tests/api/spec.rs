//! The checks against the committed spec that every other test relies on.

use serde_json::{Value, json};

use crate::helpers::validators;

/// The schema checks used above can fail: what the spec does not describe is refused.
#[test]
fn the_spec_check_refuses_what_the_spec_does_not_describe() {
    let outcome = |event: Value| json!({ "version": 3, "events": [{ "seq": 3, "event": event }], "awaited": 1 });
    let good = outcome(json!({ "type": "turn_skipped", "seat": 0 }));
    let unknown = outcome(json!({ "type": "no_such_event", "seat": 0 }));
    let bad_card = outcome(json!({ "type": "card_drawn", "seat": 0, "card": "joker" }));
    let v = &validators()["Outcome"];
    assert!(v.is_valid(&good), "{:?}", v.validate(&good).err());
    assert!(!v.is_valid(&unknown));
    assert!(!v.is_valid(&bad_card));
    let moves = &validators()["LegalMoves"];
    assert!(
        moves.is_valid(
            &json!({ "decision_version": 1, "version": 1, "commands": [{ "type": "pass", "discard": ["map"] }] })
        )
    );
    assert!(
        !moves
            .is_valid(&json!({ "version": 1, "commands": [{ "type": "pass", "discard": "map" }] }))
    );
}
