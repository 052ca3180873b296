//! Credentials, and the token swaps and deadlines that appends carry.

use std::collections::BTreeSet;

use saboteur_storage::{
    AppendOutcome, Credential, EventStore, GameStatus, LobbyAt, Role, SeatTaker, StoreError,
    TokenSwap,
};

use super::helpers::{batch, created, event, gid, host, new_game};
use saboteur_domain::Seat;

/// A seat in game `g1`: Ada's, a player's at `seat` holding the token hashed `hash`.
pub(crate) fn player(hash: &str, seat: Option<u8>) -> Credential {
    Credential {
        game_id: gid("g1"),
        token_hash: Some(hash.into()),
        role: Role::Player,
        seat: seat.map(Seat),
        display_name: Some("Ada".into()),
        created_at: chrono::Utc::now(),
        claimed_by: None,
        entropy: None,
        public_key: None,
        key_proof: None,
        share_commitment: None,
    }
}

/// Credentials of one lobby: seats added (once each), counted for the client that took them and
/// removed; seats with no token kept as stored; a kept seat claimed with its key, the key's
/// proof and a share; a key registered later kept with the seat.
pub(crate) async fn credentials(store: EventStore) {
    new_game(&store, "g1", GameStatus::Lobby).await;
    seats_added_counted_and_removed(&store).await;
    seats_without_a_token(&store).await;
    a_kept_seat_claimed(&store).await;
    a_key_registered_later(&store).await;
}

/// Seats added once each, a seat taken by a client counted for it until forgotten, and a seat
/// removed once.
async fn seats_added_counted_and_removed(store: &EventStore) {
    let before = chrono::Utc::now() - chrono::Duration::seconds(1);
    store.add_credential(&player("h1", Some(0))).await.unwrap();
    store
        .add_credential_by(&player("h2", Some(1)), Some(taker("192.0.2.1")))
        .await
        .unwrap();
    assert!(matches!(
        store.add_credential(&player("h1", Some(2))).await,
        Err(StoreError::Exists)
    ));
    // A seat taken by a client is counted for it (and a refused one is not).
    assert!(matches!(
        store
            .add_credential_by(&player("h3", Some(1)), Some(taker("192.0.2.1")))
            .await,
        Err(StoreError::Exists)
    ));
    let taken = store.seats_taken_by("192.0.2.1", before).await.unwrap();
    assert_eq!(taken.len(), 1, "{taken:?}");
    assert!(
        store
            .seats_taken_by("192.0.2.2", before)
            .await
            .unwrap()
            .is_empty()
    );
    let later = chrono::Utc::now() + chrono::Duration::seconds(1);
    assert_eq!(store.forget_seat_takes(later).await.unwrap(), 1);
    assert!(
        store
            .seats_taken_by("192.0.2.1", before)
            .await
            .unwrap()
            .is_empty()
    );
    let all = store.credentials(&gid("g1")).await.unwrap();
    assert_eq!(
        all.iter()
            .filter_map(|c| c.token_hash.as_deref())
            .collect::<BTreeSet<_>>(),
        BTreeSet::from(["h1", "h2"])
    );
    store
        .remove_seat(&gid("g1"), Seat(0), LobbyAt::OPEN)
        .await
        .unwrap();
    assert!(matches!(
        store.remove_seat(&gid("g1"), Seat(0), LobbyAt::OPEN).await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(store.credentials(&gid("g1")).await.unwrap().len(), 1);
}

/// A bot's seat and a seat kept for a rematch's claim: no token, read back as stored.
async fn seats_without_a_token(store: &EventStore) {
    // A bot and a seat kept for a rematch's claim hold no token: they read back as stored,
    // and only the claiming hash turns the kept seat into a player's.
    let bot = Credential {
        token_hash: None,
        role: Role::Bot(saboteur_domain::BotLevel::Heuristic),
        claimed_by: None,
        entropy: None,
        public_key: None,
        key_proof: None,
        share_commitment: None,
        ..player("unused", Some(2))
    };
    let kept = Credential {
        token_hash: None,
        role: Role::Reserved,
        claimed_by: Some("old-h3".into()),
        entropy: None,
        public_key: None,
        key_proof: None,
        share_commitment: None,
        ..player("unused", Some(3))
    };
    store.add_credential(&bot).await.unwrap();
    store.add_credential(&kept).await.unwrap();
    // (Times compare to the microsecond PostgreSQL keeps.)
    let same = |a: &Credential, b: &Credential| {
        (&a.token_hash, a.role, a.seat, &a.claimed_by)
            == (&b.token_hash, b.role, b.seat, &b.claimed_by)
    };
    let all = store.credentials(&gid("g1")).await.unwrap();
    assert!(
        all.iter().any(|c| same(c, &bot)) && all.iter().any(|c| same(c, &kept)),
        "{all:?}"
    );
}

/// The kept seat claimed: only with the claiming hash, and then a player's, with its share, key
/// and proof.
async fn a_kept_seat_claimed(store: &EventStore) {
    assert!(matches!(
        store
            .claim_seat(
                &gid("g1"),
                Seat(3),
                "someone-else",
                "h3",
                (None, None, None, None)
            )
            .await,
        Err(StoreError::NotFound)
    ));
    let key = "ab".repeat(32);
    let share = "cd".repeat(32);
    let proof = "12".repeat(64);
    store
        .claim_seat(
            &gid("g1"),
            Seat(3),
            "old-h3",
            "h3",
            (Some(&share), Some(&key), Some(&proof), None),
        )
        .await
        .unwrap();
    let claimed = store.credentials(&gid("g1")).await.unwrap();
    let seat3 = claimed.iter().find(|c| c.seat == Some(Seat(3))).unwrap();
    assert_eq!(
        (
            seat3.role,
            seat3.token_hash.as_deref(),
            seat3.claimed_by.as_deref(),
            seat3.entropy.as_deref(),
            seat3.public_key.as_deref(),
            seat3.key_proof.as_deref(),
        ),
        (
            Role::Player,
            Some("h3"),
            None,
            Some(share.as_str()),
            Some(key.as_str()),
            Some(proof.as_str()),
        )
    );
}

/// A key registered in the lobby kept with the seat; the seat, claimed, is not claimed again.
async fn a_key_registered_later(store: &EventStore) {
    // A key registered in the lobby is kept with the seat, its proof with it.
    let other = "ef".repeat(32);
    let other_proof = "34".repeat(64);
    store
        .set_public_key(
            &gid("g1"),
            Seat(3),
            (&other, Some(&other_proof)),
            LobbyAt::default(),
        )
        .await
        .unwrap();
    let seat3 = store.credentials(&gid("g1")).await.unwrap();
    let seat3 = seat3.iter().find(|c| c.seat == Some(Seat(3))).unwrap();
    assert_eq!(
        (seat3.public_key.as_deref(), seat3.key_proof.as_deref()),
        (Some(other.as_str()), Some(other_proof.as_str()))
    );
    assert!(matches!(
        store
            .claim_seat(
                &gid("g1"),
                Seat(3),
                "old-h3",
                "h3",
                (None, None, None, None)
            )
            .await,
        Err(StoreError::NotFound)
    ));
}

/// Appends that swap a seat's token and keep a deadline, many at once (so PostgreSQL writes
/// them in groups too): the token changes exactly when the batch is in, a refused batch
/// changes no token, and the sweep finds the games past their deadline.
pub(crate) async fn tokens_and_deadlines(store: EventStore) {
    let games: Vec<String> = (0..24).map(|i| format!("t{i}")).collect();
    for id in &games {
        created(&store, id, GameStatus::Active).await;
        let mut player = host(id);
        player.token_hash = Some(format!("old-{id}"));
        player.role = Role::Player;
        player.seat = Some(Seat(1));
        store.add_credential(&player).await.unwrap();
    }
    let appends: Vec<_> = games
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let store = store.clone();
            let id = id.clone();
            tokio::spawn(async move {
                let mut a = batch(&id, 1, vec![event(1)], None);
                a.token = Some(TokenSwap {
                    seat: Seat(1),
                    token_hash: format!("new-{id}"),
                });
                a.deadline = Some(1_000 + i as i64);
                store.append(a).await
            })
        })
        .collect();
    for handle in appends {
        let outcome = handle.await.unwrap();
        assert!(
            matches!(outcome, Ok(AppendOutcome::Appended { .. })),
            "{outcome:?}"
        );
    }
    for id in &games {
        let held: Vec<String> = store
            .credentials(&gid(id))
            .await
            .unwrap()
            .into_iter()
            .filter(|c| c.seat == Some(Seat(1)))
            .filter_map(|c| c.token_hash)
            .collect();
        assert_eq!(held, vec![format!("new-{id}")]);
    }
    // A stale append with a swap: refused, and the token stays.
    let mut stale = batch(&games[0], 1, vec![event(2)], None);
    stale.token = Some(TokenSwap {
        seat: Seat(1),
        token_hash: "never".into(),
    });
    assert!(matches!(
        store.append(stale).await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(
        store
            .credentials(&gid(&games[0]))
            .await
            .unwrap()
            .iter()
            .all(|c| c.token_hash.as_deref() != Some("never"))
    );
    // Games past their deadline at 1010: the first eleven.
    let mut due: Vec<String> = store
        .games_due(1_010, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|(id, _)| id.to_string())
        .collect();
    due.sort();
    let mut expected: Vec<String> = games[..11].to_vec();
    expected.sort();
    assert_eq!(due, expected);
}

/// A client with no join limit.
fn taker(client: &str) -> SeatTaker<'_> {
    SeatTaker {
        client,
        at_most: None,
    }
}

/// A client's join limit holds when its seats are taken at the same moment through many
/// connections: the count and the record are one step, so exactly the limit passes and the
/// rest store nothing.
pub(crate) async fn join_limit_holds_under_races(store: EventStore) {
    let since = chrono::Utc::now() - chrono::Duration::hours(1);
    for g in 0..4 {
        new_game(&store, &format!("j{g}"), GameStatus::Lobby).await;
    }
    let tries: Vec<_> = (0..16u8)
        .map(|n| {
            let store = store.clone();
            tokio::spawn(async move {
                let seat = Credential {
                    game_id: gid(&format!("j{}", n % 4)),
                    token_hash: Some(format!("racer-{n}")),
                    role: Role::Player,
                    seat: Some(Seat(n / 4)),
                    display_name: None,
                    created_at: chrono::Utc::now(),
                    claimed_by: None,
                    entropy: None,
                    public_key: None,
                    key_proof: None,
                    share_commitment: None,
                };
                let limited = SeatTaker {
                    client: "198.51.100.7",
                    at_most: Some((5, since)),
                };
                store.add_credential_by(&seat, Some(limited)).await
            })
        })
        .collect();
    let (mut taken, mut refused) = (0, 0);
    for t in tries {
        match t.await.unwrap() {
            Ok(()) => taken += 1,
            Err(StoreError::OverLimit) => refused += 1,
            Err(e) => panic!("a seat neither taken nor refused: {e}"),
        }
    }
    assert_eq!(
        (taken, refused),
        (5, 11),
        "the limit of 5 passed {taken} times"
    );
    let recorded = store.seats_taken_by("198.51.100.7", since).await.unwrap();
    assert_eq!(recorded.len(), 5);
    let seated: usize = players_seated(&store).await;
    assert_eq!(seated, 5, "a refused take stored no seat");
}

/// How many players' seats the race's four games hold.
async fn players_seated(store: &EventStore) -> usize {
    let mut n = 0;
    for g in 0..4 {
        n += store
            .credentials(&gid(&format!("j{g}")))
            .await
            .unwrap()
            .iter()
            .filter(|c| c.role == Role::Player)
            .count();
    }
    n
}

/// The seats a player's key holds, found by the key: games not over only, oldest first, every
/// seat of the key, and no other key's.
pub(crate) async fn seats_by_key(store: EventStore) {
    let key = "ab".repeat(32);
    let other = "cd".repeat(32);
    let seat = |game: &str, hash: &str, seat: u8, public_key: &str| Credential {
        game_id: gid(game),
        token_hash: Some(hash.into()),
        role: Role::Player,
        seat: Some(Seat(seat)),
        display_name: None,
        created_at: chrono::Utc::now(),
        claimed_by: None,
        entropy: None,
        public_key: Some(public_key.into()),
        key_proof: None,
        share_commitment: None,
    };
    for (game, status) in [
        ("k1", GameStatus::Lobby),
        ("k2", GameStatus::Active),
        ("k3", GameStatus::Finished),
        ("k4", GameStatus::Cancelled),
    ] {
        new_game(&store, game, status).await;
        store
            .add_credential(&seat(game, &format!("{game}a"), 1, &key))
            .await
            .unwrap();
        store
            .add_credential(&seat(game, &format!("{game}b"), 0, &other))
            .await
            .unwrap();
    }
    store
        .add_credential(&seat("k2", "k2c", 2, &key))
        .await
        .unwrap();
    // Games not over; games that ended or were cancelled since the stream opened, too.
    let later = chrono::Utc::now() + chrono::Duration::seconds(1);
    let found = store.seats_of_key(&key, later, 100).await.unwrap();
    assert_eq!(
        found,
        vec![
            (gid("k1"), Seat(1)),
            (gid("k2"), Seat(1)),
            (gid("k2"), Seat(2))
        ]
    );
    let earlier = chrono::Utc::now() - chrono::Duration::hours(1);
    let since = store.seats_of_key(&key, earlier, 100).await.unwrap();
    assert_eq!(
        since,
        vec![
            (gid("k1"), Seat(1)),
            (gid("k2"), Seat(1)),
            (gid("k2"), Seat(2)),
            (gid("k3"), Seat(1)),
            (gid("k4"), Seat(1))
        ]
    );
    assert_eq!(store.seats_of_key(&key, later, 1).await.unwrap().len(), 1);
    // Games not over come first: a limit never crowds them out with games that ended.
    assert_eq!(
        store.seats_of_key(&key, earlier, 2).await.unwrap(),
        vec![(gid("k1"), Seat(1)), (gid("k2"), Seat(1))]
    );
    assert!(
        store
            .seats_of_key(&"ef".repeat(32), earlier, 100)
            .await
            .unwrap()
            .is_empty()
    );
}
