//! What a request brings besides its act: a player's signature of it, the `Idempotency-Key`
//! of an act whose first reply is kept, and a seat's key and share as sent. Parsed by the
//! handlers, read by the seam.

/// A player's signature of a request: the `Seat-Signature` and `Seat-Signature-Version`
/// headers and the body exactly as sent.
#[derive(Debug, Clone)]
pub(crate) struct Signed {
    /// The version the act was chosen (and signed) at.
    pub version: u64,
    /// 128 lowercase hex digits.
    pub signature: String,
    /// The body as sent (empty without one).
    pub body: String,
}

/// The `Idempotency-Key` of an act whose first reply is kept apart from the log, for
/// [`saboteur_storage::KEPT_FOR`], and answered again to a retry: a creation's and a rematch's
/// with the game they make, a lobby act's (`app/lobby_replies.rs`) after it.
#[derive(Debug, Clone)]
pub(crate) struct KeyFor {
    /// Who may get the reply back: `create <client>` (the client as the per-client limits name
    /// it), `rematch <game>` (whose host alone may ask), or a lobby act's: `join <game>
    /// <client>`, or `<act> <game> <token hash>` for one sent with a token.
    pub scope: String,
    /// The key.
    pub key: String,
    /// The SHA-256 of the request (hex): the key sent with another request is refused.
    pub request: String,
}

/// A public key as sent with a seat, and its proof of possession
/// ([`saboteur_domain::key_proof_statement`]), if sent.
#[derive(Debug, Clone)]
pub(crate) struct SentKey {
    /// The key (64 hex digits, any case as sent).
    pub key: String,
    /// Its holder's signature of the game's key statement (128 hex digits).
    pub proof: Option<String>,
    /// The version a proof made during play names
    /// ([`saboteur_domain::key_proof_statement_at`]), if sent.
    pub at: Option<u64>,
}

/// A player's share in the seed as sent with a seat: the share itself, or the commitment to it
/// (both 64 hex digits, any case as sent), or neither.
#[derive(Debug, Clone, Default)]
pub(crate) struct SentShare {
    /// The share.
    pub entropy: Option<String>,
    /// The commitment to the share ([`saboteur_domain::Seed::share_commitment`]).
    pub commitment: Option<String>,
}
