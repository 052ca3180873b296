//! The acts that make a game rather than append to one: a creation and a rematch (the game, its
//! first event and its host's credential in one transaction). Sent with an `Idempotency-Key`,
//! the act's reply is kept in that transaction, and a retry answers it again.

use saboteur_domain::{Event, Seat, Seed};
use saboteur_storage::{Credential, KeptReply, NewGame, Role, StoreError};
use saboteur_verifier::seal::Sealer;

use crate::app::act::{Act, Done, KeyFor};
use crate::app::auth::{new_token, token_hash};
use crate::app::check::host;
use crate::app::ids::{GameId, Version};
use crate::app::reply::{Signed, sign};
use crate::app::state::AppState;
use crate::dto::{GameCreated, SeedCommitment};
use crate::error::{ApiError, Conflict};
use crate::receipt::ReceiptKind;
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
    let Act::Create(body, key, creator) = act else {
        return Err(ApiError::Internal("only a creation has no game".into()));
    };
    if let Some(key) = &key
        && let Some(done) = again(state, key).await?
    {
        return Ok(done);
    }
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
        id: GameId::new(),
        ruleset: body.ruleset,
        options: body.options,
        players: body.players,
        seed_commitment: saboteur_storage::seed_commitment(&seed.0),
        seed: seed.0.to_vec(),
        previous: None,
        creator,
    };
    record_game(state, game, Vec::new(), &created, key.as_ref()).await
}

/// The reply kept for a retried key, if any: refused (422 `idempotency_key_reused`) when the
/// key came with another request.
async fn again(state: &AppState, key: &KeyFor) -> Result<Option<Done>, ApiError> {
    let Some(reply) = crate::app::lobby_replies::first_reply(state, key).await? else {
        return Ok(None);
    };
    let created: GameCreated = serde_json::from_str(&reply)
        .map_err(|e| ApiError::Internal(format!("a kept reply is not a creation's: {e}")))?;
    Ok(Some(Done::Replayed(Box::new(Done::Created(Box::new(
        created,
    ))))))
}

/// The reply to a creation: the game (its id, version and head once its first events are
/// recorded), its host's token and the signed commitment to its seed.
fn created_reply(
    state: &AppState,
    game: &NewGame,
    (version, head): (Version, String),
    host_token: String,
) -> Result<GameCreated, ApiError> {
    let commitment = SeedCommitment {
        game_id: game.id.to_string(),
        seed_commitment: game.seed_commitment.clone(),
        seat: None,
        entropy: None,
        share_commitment: None,
        public_key: None,
    };
    let at = Signed {
        game: game.id.as_str(),
        version: version.stored(),
        first: None,
        head,
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
    Ok(GameCreated {
        game_id: game.id.to_string(),
        host_token,
        seed_commitment: game.seed_commitment.clone(),
        version: version.stored(),
        commitment,
        receipt: Some(receipt),
    })
}

/// Records a new game with its host's credential (and seats kept from the game before), and
/// the reply to it, kept with it when it came with a key. A key kept meanwhile (the same
/// request through another process) answers that reply.
async fn record_game(
    state: &AppState,
    game: NewGame,
    seats: Vec<Credential>,
    created: &Event,
    key: Option<&KeyFor>,
) -> Result<Done, ApiError> {
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
        key_proof: None,
        share_commitment: None,
    };
    let first = saboteur_storage::to_new_events(
        std::slice::from_ref(created),
        Version::of(1),
        Sealer::for_game(game.id.as_str(), created).as_ref(),
    );
    let head = saboteur_storage::first_head(&game.id, &first);
    let reply = created_reply(state, &game, head, token)?;
    let kept = match key {
        Some(k) => Some(KeptReply {
            scope: k.scope.clone(),
            key: k.key.clone(),
            request: k.request.clone(),
            reply: serde_json::to_string(&reply)
                .map_err(|e| ApiError::Internal(format!("a reply not written: {e}")))?,
        }),
        None => None,
    };
    match (
        state
            .writer
            .create_game_kept(game, host, seats, first, kept.as_ref())
            .await,
        key,
    ) {
        (Ok(_), _) => Ok(Done::Created(Box::new(reply))),
        (Err(StoreError::Exists), Some(key)) => match again(state, key).await? {
            Some(done) => Ok(done),
            None => Err(ApiError::Conflict(
                Conflict::Rematched,
                "this game already has a rematch".into(),
            )),
        },
        (Err(StoreError::Exists), None) => Err(ApiError::Conflict(
            Conflict::Rematched,
            "this game already has a rematch".into(),
        )),
        (Err(e), _) => Err(e.into()),
    }
}

/// [`Act::Rematch`]: from a finished game, the next one with the same ruleset, options, seats
/// and bots, a new seed, the next seat starting; each player's seat kept for their old token.
pub(crate) async fn rematch(
    state: &AppState,
    token: Option<&str>,
    previous: &GameId,
    key: Option<&KeyFor>,
) -> Result<Done, ApiError> {
    let (ruleset, options, players, first, seats) = {
        let mut table = state.tables.open(previous).await?;
        host(
            table.caller(&state.store, token).await?,
            "creates the rematch",
        )?;
        if let Some(key) = key
            && let Some(done) = again(state, key).await?
        {
            return Ok(done);
        }
        if !table.over() {
            return Err(ApiError::Conflict(
                Conflict::NotOver,
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
            game_id: id.clone(),
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
            key_proof: None,
            share_commitment: None,
        })
        .collect();
    let game = NewGame {
        id: id.clone(),
        ruleset,
        options,
        players,
        seed_commitment: saboteur_storage::seed_commitment(&seed.0),
        seed: seed.0.to_vec(),
        previous: Some(previous.clone()),
        creator: None,
    };
    record_game(state, game, kept, &created, key).await
}
