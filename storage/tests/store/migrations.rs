//! Migrations that move data, run over a database written by the version before them.

use std::borrow::Cow;

use sqlx::Connection;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgConnection;

/// The columns every append changes, in the order 0021 leaves them at the end of `games`.
const MOVED: [&str; 5] = [
    "version",
    "last_hash",
    "updated_at",
    "bot_awaited",
    "deadline",
];

/// PostgreSQL's migrations up to (not including) `version`.
fn before(version: i64) -> Migrator {
    let all = sqlx::migrate!("./migrations/postgres");
    Migrator {
        migrations: Cow::Owned(
            all.migrations
                .iter()
                .filter(|m| m.version < version)
                .cloned()
                .collect(),
        ),
        ..all
    }
}

/// 0021 moves the columns an append changes to the end of `games`, side by side (so the WAL of
/// an append's update holds them alone), keeping every row's values, the columns' constraints
/// and defaults, and the indexes on them.
#[tokio::test]
async fn postgres_append_columns_moved_last_with_their_values() {
    let url = saboteur_storage::testing::fresh_database().await;
    let mut conn = PgConnection::connect(&url).await.unwrap();
    before(21).run(&mut conn).await.unwrap();
    let row = "SELECT version, last_hash, updated_at::text, bot_awaited, deadline, status, \
               seed_commitment, lobby_version FROM games WHERE id = $1";
    type Row = (i64, String, String, bool, Option<i64>, String, String, i64);
    sqlx::raw_sql(
        "INSERT INTO games (id, ruleset, options, status, version, last_hash, seed_commitment, \
             seed, created_at, updated_at, players, bot_awaited, deadline, lobby_version) VALUES \
         ('a', 'base', '{}', 'active', 7, 'aa07', 'c0', '\\x07', now(), \
             '2026-12-01 10:00:00+00', 4, TRUE, 1764583200000, 3), \
         ('b', 'base', '{}', 'lobby', 1, 'bb01', 'c1', NULL, now(), \
             '2026-12-01 11:00:00+00', 3, FALSE, NULL, 0)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let mut was: Vec<Row> = Vec::new();
    for id in ["a", "b"] {
        was.push(
            sqlx::query_as(row)
                .bind(id)
                .fetch_one(&mut conn)
                .await
                .unwrap(),
        );
    }

    sqlx::migrate!("./migrations/postgres")
        .run(&mut conn)
        .await
        .unwrap();

    for (id, was) in ["a", "b"].into_iter().zip(&was) {
        let now: Row = sqlx::query_as(row)
            .bind(id)
            .fetch_one(&mut conn)
            .await
            .unwrap();
        assert_eq!(&now, was, "game {id} kept its values");
    }
    // The five are the table's last live columns, in this order.
    let order: Vec<(String,)> = sqlx::query_as(
        "SELECT attname::text FROM pg_attribute WHERE attrelid = 'games'::regclass \
         AND attnum > 0 AND NOT attisdropped ORDER BY attnum DESC LIMIT 5",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let last: Vec<&str> = order.iter().rev().map(|(n,)| n.as_str()).collect();
    assert_eq!(last, MOVED);
    // Required as before, with the defaults they had.
    let defaults: Vec<(String, bool, Option<String>)> = sqlx::query_as(
        "SELECT column_name::text, is_nullable = 'NO', column_default::text \
         FROM information_schema.columns WHERE table_name = 'games' \
         AND column_name = ANY($1) ORDER BY column_name",
    )
    .bind(MOVED)
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let expected = [
        ("bot_awaited", true, Some("false")),
        ("deadline", false, None),
        ("last_hash", true, None),
        ("updated_at", true, None),
        ("version", true, Some("0")),
    ];
    let got: Vec<(&str, bool, Option<&str>)> = defaults
        .iter()
        .map(|(n, required, d)| (n.as_str(), *required, d.as_deref()))
        .collect();
    assert_eq!(got, expected);
    for index in ["games_awaiting_bots", "games_deadline"] {
        let found: Option<(String,)> =
            sqlx::query_as("SELECT indexdef FROM pg_indexes WHERE indexname = $1")
                .bind(index)
                .fetch_optional(&mut conn)
                .await
                .unwrap();
        assert!(found.is_some(), "{index} made again");
    }
    // A row inserted the way the store creates games still gets the defaults.
    sqlx::raw_sql(
        "INSERT INTO games (id, ruleset, options, status, last_hash, seed_commitment, \
             created_at, updated_at) VALUES ('c', 'base', '{}', 'lobby', 'cc', 'c2', now(), now())",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    let (version, bot): (i64, bool) =
        sqlx::query_as("SELECT version, bot_awaited FROM games WHERE id = 'c'")
            .fetch_one(&mut conn)
            .await
            .unwrap();
    assert_eq!((version, bot), (0, false));
}

/// 0022 keeps an event's hashes as their bytes: every hash written before it reads back as the
/// same hex, and a value that was never a hash (a hand in the database) is kept, not refused,
/// and reads back as something no hash matches.
#[tokio::test]
async fn postgres_hashes_kept_as_bytes_read_back_alike() {
    let url = saboteur_storage::testing::fresh_database().await;
    let mut conn = PgConnection::connect(&url).await.unwrap();
    before(22).run(&mut conn).await.unwrap();
    let (genesis, one, two) = (
        saboteur_verifier::hash::GENESIS,
        "0a".repeat(32),
        "f1".repeat(32),
    );
    sqlx::raw_sql(&format!(
        "INSERT INTO events (game_id, seq, event_type, schema_version, payload, seat, \
             command_id, batch_last_seq, recorded_at, prev_hash, hash) VALUES \
         ('g', 1, 'game_created', 1, '{{}}', NULL, NULL, 1, now(), '{genesis}', '{one}'), \
         ('g', 2, 'x', 1, '{{}}', 0, 'c', 3, now(), '{one}', '{two}'), \
         ('g', 3, 'x', 1, '{{}}', 0, NULL, 3, now(), '{two}', 'not a hash')"
    ))
    .execute(&mut conn)
    .await
    .unwrap();

    sqlx::migrate!("./migrations/postgres")
        .run(&mut conn)
        .await
        .unwrap();

    let read: Vec<(String, String, i32)> = sqlx::query_as(
        "SELECT encode(prev_hash, 'hex'), encode(hash, 'hex'), octet_length(hash) \
         FROM events WHERE game_id = 'g' ORDER BY seq",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let kept = hex::encode("not a hash");
    assert_eq!(
        read,
        [
            (genesis.to_string(), one.clone(), 32),
            (one, two.clone(), 32),
            (two, kept, 10)
        ]
    );
}
