//! Events of types a client does not know yet. A request may declare the API version its client
//! was generated from (the `Api-Version` request header); every event whose type a later
//! version introduced is then served wrapped as a [`NewerEvent`] — a variant every client since
//! API 0.14.0 knows — instead of failing the client's parser. The wrapper keeps the whole
//! event, so a body signed by a receipt is the body served with each wrapper replaced by the
//! event it holds ([`unwrapped`]).

use std::borrow::Cow;

use saboteur_domain::Event;
use semver::Version;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The API version that introduced an event's type (CHANGELOG.md). Every new event type is
/// given one here: the match names every variant.
pub fn introduced(event: &Event) -> Version {
    let (major, minor) = match event {
        Event::TalkPosted { .. }
        | Event::TalkHidden { .. }
        | Event::TurnTimedOut { .. }
        | Event::SeatHandedToBot { .. }
        | Event::SeatReclaimed { .. }
        | Event::TokenReissued { .. } => (0, 3),
        Event::SeedMixed { .. } => (0, 5),
        Event::SeatKeyRegistered { .. } => (0, 6),
        Event::GameCancelled {} => (0, 11),
        Event::GameCreated { .. }
        | Event::RoundStarted { .. }
        | Event::PathPlayed { .. }
        | Event::GoalRevealed { .. }
        | Event::ToolBroken { .. }
        | Event::ToolRepaired { .. }
        | Event::PathRemoved { .. }
        | Event::MapUsed { .. }
        | Event::Passed { .. }
        | Event::CardDrawn { .. }
        | Event::TurnSkipped { .. }
        | Event::RoundEnded { .. }
        | Event::GoldDrawn { .. }
        | Event::GoldOffered { .. }
        | Event::GoldKept { .. }
        | Event::SaboteursPaid { .. }
        | Event::DiscardedToRemove { .. }
        | Event::TheftPlayed { .. }
        | Event::PlayerTrapped { .. }
        | Event::ActionCancelled { .. }
        | Event::HatsSwapped { .. }
        | Event::Inspected { .. }
        | Event::HandsSwapped { .. }
        | Event::CoinsPaid { .. }
        | Event::StealingStarted { .. }
        | Event::CoinStolen { .. }
        | Event::CommandAccepted { .. }
        | Event::UndoRequested { .. }
        | Event::UndoApproved { .. }
        | Event::UndoDeclined { .. }
        | Event::Undone { .. }
        | Event::GameEnded { .. } => (0, 1),
    };
    Version::new(major, minor, 0)
}

/// The version a request declared in its `Api-Version` header: exactly `MAJOR.MINOR.PATCH`,
/// each a number without leading zeros of at most nine digits, as the spec's pattern says
/// (`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$`: no suffix, no space);
/// the error says what is expected.
pub fn declared(header: &str) -> Result<Version, String> {
    let number = |part: &str| {
        let digits =
            !part.is_empty() && part.len() <= 9 && part.bytes().all(|b| b.is_ascii_digit());
        (digits && (part == "0" || !part.starts_with('0')))
            .then(|| part.parse::<u64>().ok())
            .flatten()
    };
    let parts: Vec<Option<u64>> = header.split('.').map(number).collect();
    match parts[..] {
        [Some(major), Some(minor), Some(patch)] => Ok(Version::new(major, minor, patch)),
        _ => Err(format!(
            "Api-Version is the API version your client was generated from, MAJOR.MINOR.PATCH \
             (such as 0.15.0), not {header:?}"
        )),
    }
}

/// The tag of a `NewerEvent`: `newer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum NewerTag {
    /// The only value.
    Newer,
}

/// An event of a type introduced after the API version the request declared (`Api-Version`):
/// a client generated from that version has no model for it. Treat it as nothing to do; its
/// whole event is in `event`, as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct NewerEvent {
    /// `newer`.
    #[serde(rename = "type")]
    pub tag: NewerTag,
    /// The event's own type (such as `game_cancelled`).
    pub event_type: String,
    /// The API version that introduced that type.
    pub since: String,
    /// The event itself, as a client of that version or later reads it: a receipt signs the
    /// body with this in place of the wrapper.
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub event: Value,
}

/// An event as a request is served it: the event, or, for a client that declared an older
/// `Api-Version` than its type, the event wrapped (`NewerEvent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum ServedEvent {
    /// An event of a type the client knows.
    Known(Event),
    /// An event of a type the client does not know.
    Newer(NewerEvent),
}

impl From<Event> for ServedEvent {
    fn from(event: Event) -> Self {
        ServedEvent::Known(event)
    }
}

impl ServedEvent {
    /// The event, as served to a client that declared `declared` (`None`: it declared nothing,
    /// and is served every event as it is).
    pub fn for_client(self, declared: Option<&Version>) -> ServedEvent {
        match (self, declared) {
            (ServedEvent::Known(event), Some(declared)) if introduced(&event) > *declared => {
                let event_type = event.kind().to_string();
                let since = introduced(&event).to_string();
                match serde_json::to_value(&event) {
                    Ok(event) => ServedEvent::Newer(NewerEvent {
                        tag: NewerTag::Newer,
                        event_type,
                        since,
                        event,
                    }),
                    Err(_) => ServedEvent::Known(event),
                }
            }
            (served, _) => served,
        }
    }

    /// The event, if it is served as itself.
    pub fn known(&self) -> Option<&Event> {
        match self {
            ServedEvent::Known(event) => Some(event),
            ServedEvent::Newer(_) => None,
        }
    }

    /// Its `type` as served: the event's, or `newer`.
    pub fn kind(&self) -> &'static str {
        match self {
            ServedEvent::Known(event) => event.kind(),
            ServedEvent::Newer(_) => "newer",
        }
    }
}

/// Whether a wrapper says of its event what the event is: its `event_type` the event's `type`,
/// and, for an event this crate reads, its `since` the version that introduced the type. The
/// receipt signs the event, not the wrapper's words: a wrapper that misnames its event is left
/// as it is, so the body no longer hashes as the one signed.
fn truthful(wrapper: &Value) -> bool {
    let inner = wrapper.get("event").unwrap_or(&Value::Null);
    let named = wrapper.get("event_type").and_then(Value::as_str);
    if named.is_none() || inner.get("type").and_then(Value::as_str) != named {
        return false;
    }
    match serde_json::from_value::<Event>(inner.clone()) {
        Ok(event) => {
            wrapper.get("since").and_then(Value::as_str) == Some(&introduced(&event).to_string())
        }
        // A type newer than this crate: its words cannot be checked, its event still is.
        Err(_) => true,
    }
}

/// `body` as it was signed: each event of its `events` list served wrapped ([`NewerEvent`])
/// replaced by the event it holds, when the wrapper names it truthfully (its `event_type` the
/// event's `type`, and its `since` the version that introduced the type, for an event this
/// crate reads). A body with no wrapper is borrowed as it is.
pub fn unwrapped(body: &Value) -> Cow<'_, Value> {
    let wrapped = |record: &Value| record.pointer("/event/type") == Some(&Value::from("newer"));
    let Some(events) = body.get("events").and_then(Value::as_array) else {
        return Cow::Borrowed(body);
    };
    if !events.iter().any(wrapped) {
        return Cow::Borrowed(body);
    }
    let mut body = body.clone();
    if let Some(events) = body.get_mut("events").and_then(Value::as_array_mut) {
        for record in events.iter_mut().filter(|r| wrapped(r)) {
            if let Some(slot) = record.get_mut("event")
                && truthful(slot)
            {
                let inner = slot.get_mut("event").map(Value::take).unwrap_or_default();
                *slot = inner;
            }
        }
    }
    Cow::Owned(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cancelled() -> ServedEvent {
        ServedEvent::Known(Event::GameCancelled {})
    }

    #[test]
    fn an_event_newer_than_the_declared_version_is_wrapped_whole() {
        let old = declared("0.10.1").unwrap();
        let ServedEvent::Newer(wrapped) = cancelled().for_client(Some(&old)) else {
            panic!("game_cancelled (0.11.0) is newer than 0.10.1");
        };
        assert_eq!(wrapped.event_type, "game_cancelled");
        assert_eq!(wrapped.since, "0.11.0");
        assert_eq!(wrapped.event, serde_json::json!({"type": "game_cancelled"}));
        let json = serde_json::to_value(ServedEvent::Newer(wrapped.clone())).unwrap();
        assert_eq!(json["type"], "newer");
        // Read back as served: the wrapper, not an event.
        let back: ServedEvent = serde_json::from_value(json).unwrap();
        assert_eq!(back, ServedEvent::Newer(wrapped));
    }

    #[test]
    fn a_client_that_knows_the_type_or_declares_nothing_gets_the_event() {
        for declared in [None, Some("0.11.0"), Some("2.0.0")] {
            let declared = declared.map(|d| super::declared(d).unwrap());
            let served = cancelled().for_client(declared.as_ref());
            assert_eq!(served.kind(), "game_cancelled", "{declared:?}");
        }
    }

    #[test]
    fn a_version_that_does_not_parse_is_refused_with_what_is_expected() {
        // The spec's pattern exactly: no suffix, no space, no leading zero, at most 9 digits.
        for bad in [
            "",
            "0.14",
            "v0.14.0",
            "latest",
            "0.14.0.1",
            "0.11.0-rc.1",
            "0.14.0+build",
            " 0.14.0",
            "0.14.0\t",
            "00.14.0",
            "0.014.0",
            "1234567890.0.0",
            "0.-1.0",
        ] {
            let error = declared(bad).unwrap_err();
            assert!(error.contains("MAJOR.MINOR.PATCH"), "{bad}: {error}");
        }
    }

    #[test]
    fn a_body_with_wrappers_unwraps_to_the_body_signed() {
        let signed = serde_json::json!({
            "version": 3,
            "events": [
                {"seq": 2, "event": {"type": "talk_hidden", "message": 1}},
                {"seq": 3, "event": {"type": "game_cancelled"}},
            ],
        });
        let old = declared("0.2.0").unwrap();
        let mut served = signed.clone();
        for record in served["events"].as_array_mut().unwrap() {
            let event: Event = serde_json::from_value(record["event"].clone()).unwrap();
            let wrapped = ServedEvent::Known(event).for_client(Some(&old));
            record["event"] = serde_json::to_value(wrapped).unwrap();
        }
        assert_eq!(served["events"][0]["event"]["type"], "newer");
        assert_eq!(served["events"][1]["event"]["event_type"], "game_cancelled");
        assert_eq!(*unwrapped(&served), signed);
        assert!(matches!(unwrapped(&signed), Cow::Borrowed(_)));
        // A wrapper that misnames its event, or the version of its type, is not unwrapped: the
        // body then hashes as another than the one signed.
        for (pointer, lie) in [
            ("/events/1/event/event_type", "talk_posted"),
            ("/events/1/event/since", "0.2.0"),
        ] {
            let mut relabelled = served.clone();
            *relabelled.pointer_mut(pointer).unwrap() = Value::from(lie);
            assert_ne!(*unwrapped(&relabelled), signed, "{pointer}");
        }
    }
}
