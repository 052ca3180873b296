//! Who is calling: bearer tokens, hashed and compared in constant time with a game's
//! credentials, and what each kind of caller may do.

use saboteur_domain::{Audience, Seat};
use saboteur_storage::{Credential, Role};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::ApiError;

/// Who is calling, as far as one game is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Caller {
    /// No token.
    Anonymous,
    /// The host's token.
    Host,
    /// A player's token.
    Player(Seat),
}

impl Caller {
    /// The caller's seat: only a player's token acts for a seat.
    pub fn seat(self) -> Result<Seat, ApiError> {
        match self {
            Caller::Player(s) => Ok(s),
            Caller::Host => Err(ApiError::Forbidden(
                "the host is not a player: use a player's token".into(),
            )),
            Caller::Anonymous => Err(ApiError::Unauthorized("a player's token is needed".into())),
        }
    }

    /// Only the host's token may `what`.
    pub fn host(self, what: &str) -> Result<(), ApiError> {
        match self {
            Caller::Host => Ok(()),
            Caller::Anonymous => Err(ApiError::Unauthorized("the host's token is needed".into())),
            Caller::Player(_) => Err(ApiError::Forbidden(format!("only the host {what}"))),
        }
    }

    /// What the caller may see while the game runs.
    pub fn audience(self) -> Audience {
        match self {
            Caller::Player(s) => Audience::Seat(s),
            _ => Audience::Spectator,
        }
    }
}

/// Hex SHA-256 of a token: what the store keeps.
pub(crate) fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// A fresh 256-bit bearer token, as 64 hex digits.
pub(crate) fn new_token() -> Result<String, ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ApiError::Internal(format!("no randomness: {e}")))?;
    Ok(hex::encode(bytes))
}

/// The caller a token names among a game's credentials: `None` when it is not the game's.
pub(crate) fn identify(token: &str, credentials: &[Credential]) -> Option<Caller> {
    let hash = token_hash(token);
    let mut found = None;
    // Every credential is compared, so the time taken does not say which one matched.
    for c in credentials {
        let Some(held) = &c.token_hash else { continue };
        if bool::from(held.as_bytes().ct_eq(hash.as_bytes())) {
            found = Some(c);
        }
    }
    found.map(|c| match (c.role, c.seat) {
        (Role::Host, _) | (_, None) => Caller::Host,
        (_, Some(s)) => Caller::Player(s),
    })
}
