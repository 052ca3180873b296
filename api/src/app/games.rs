//! The acts that make a game rather than append to one: a creation and a rematch (the game, its
//! first event and its host's credential in one transaction).

use saboteur_domain::{Event, Seat, Seed};
use saboteur_storage::{Credential, NewGame, Role, StoreError};

use crate::app::act::{Act, Done};
use crate::app::auth::{new_token, token_hash};
use crate::app::check::host;
use crate::app::ids::GameId;
use crate::app::reply::{Signed, sign};
use crate::dto::{GameCreated, SeedCommitment};
use crate::error::ApiError;
use crate::receipt::ReceiptKind;
use crate::state::AppState;
use saboteur_domain::Audience;

/// A new game's seed: the client's fixed one (only on a server that allows it), or 32 random
/// bytes.
fn seed(state: &AppState, fixed: Option<&str>) -> Result<Seed, ApiError> {
    match fixed {
        Some(_) if !state.config.allow_fixed_seed => Err(ApiError::BadRequest(
            "a fixed seed is only accepted by a server started with --allow-fixed-seed".into(),
        )),
        Some(hex) => Seed::from_hex(hex)
            .ok_or_else(|| ApiError::BadRequest("a seed is 64 hex digits".into())),
        None => {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes)
                .map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
            Ok(Seed(bytes))
        }
    }
}

/// [`Act::Create`]: the game, its first event and the host's credential, in one transaction.
pub(crate) async fn create(state: &AppState, act: Act) -> Result<Done, ApiError> {
    let Act::Create(body) = act else {
        return Err(ApiError::Internal("only a creation has no game".into()));
    };
    let seed = seed(state, body.seed.as_deref())?;
    let created = saboteur_domain::create(
        body.ruleset,
        body.options,
        body.players,
        Seat(body.first_player),
        seed,
    )
    .map_err(|e| ApiError::BadRequest(e.to_string()))?;
    let game = NewGame {
        id: GameId::new().to_string(),
        ruleset: body.ruleset,
        options: body.options,
        players: body.players,
        seed_commitment: saboteur_storage::seed_commitment(&seed.0),
        seed: seed.0.to_vec(),
        previous: None,
    };
    let (record, host_token) = record_game(state, game, Vec::new(), &created).await?;
    created_reply(state, record, host_token)
}

/// The reply to a creation: the game, its host's token and the signed commitment to its seed.
fn created_reply(
    state: &AppState,
    record: saboteur_storage::GameRecord,
    host_token: String,
) -> Result<Done, ApiError> {
    let commitment = SeedCommitment {
        game_id: record.id.clone(),
        seed_commitment: record.seed_commitment.clone(),
        seat: None,
        entropy: None,
        public_key: None,
    };
    let at = Signed {
        game: &record.id,
        version: record.version,
        first: None,
        head: record.last_hash.clone(),
        served_at: state.config.time.rfc3339(),
        request_hash: None,
    };
    let receipt = sign(
        state,
        ReceiptKind::Commitment,
        at,
        Audience::Spectator,
        &commitment,
    )?;
    Ok(Done::Created(Box::new(GameCreated {
        game_id: record.id,
        host_token,
        seed_commitment: record.seed_commitment,
        version: record.version,
        commitment,
        receipt: Some(receipt),
    })))
}

/// Records a new game with its host's credential (and seats kept from the game before).
async fn record_game(
    state: &AppState,
    game: NewGame,
    seats: Vec<Credential>,
    created: &Event,
) -> Result<(saboteur_storage::GameRecord, String), ApiError> {
    let token = new_token()?;
    let host = Credential {
        game_id: game.id.clone(),
        token_hash: Some(token_hash(&token)),
        role: Role::Host,
        seat: None,
        display_name: None,
        created_at: chrono::Utc::now(),
        claimed_by: None,
        entropy: None,
        public_key: None,
    };
    let first = vec![saboteur_storage::to_new_event(created)];
    let record = state
        .store
        .create_game_seated(game, host, seats, first)
        .await
        .map_err(|e| match e {
            StoreError::Exists => ApiError::Conflict("this game already has a rematch".into()),
            other => other.into(),
        })?;
    Ok((record, token))
}

/// [`Act::Rematch`]: from a finished game, the next one with the same ruleset, options, seats
/// and bots, a new seed, the next seat starting; each player's seat kept for their old token.
pub(crate) async fn rematch(
    state: &AppState,
    token: Option<&str>,
    previous: &GameId,
) -> Result<Done, ApiError> {
    let (ruleset, options, players, first, seats) = {
        let mut table = state.tables.open(previous).await?;
        host(
            table.caller(&state.store, token).await?,
            "creates the rematch",
        )?;
        if !table.over() {
            return Err(ApiError::Conflict(
                "the game is not over: a rematch follows a finished game".into(),
            ));
        }
        let game = table.history().game();
        (
            game.ruleset(),
            game.options(),
            table.players(),
            Seat((game.first_player().0 + 1) % table.players().max(1)),
            table.credentials().to_vec(),
        )
    };
    let seed = seed(state, None)?;
    let created = saboteur_domain::create(ruleset, options, players, first, seed)
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let id = GameId::new();
    let now = chrono::Utc::now();
    let kept = seats
        .iter()
        .filter(|c| c.seat.is_some())
        .map(|c| Credential {
            game_id: id.to_string(),
            token_hash: None,
            role: match c.role {
                Role::Bot(level) => Role::Bot(level),
                _ => Role::Reserved,
            },
            seat: c.seat,
            display_name: c.display_name.clone(),
            created_at: now,
            // A player's seat waits for the token that held it; a bot's is taken at once.
            claimed_by: match c.role {
                Role::Bot(_) => None,
                _ => c.token_hash.clone(),
            },
            // The rematch has a new seed and its own record: a share and a key are sent
            // again with the claim.
            entropy: None,
            public_key: None,
        })
        .collect();
    let game = NewGame {
        id: id.to_string(),
        ruleset,
        options,
        players,
        seed_commitment: saboteur_storage::seed_commitment(&seed.0),
        seed: seed.0.to_vec(),
        previous: Some(previous.to_string()),
    };
    let (record, host_token) = record_game(state, game, kept, &created).await?;
    created_reply(state, record, host_token)
}
