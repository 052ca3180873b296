//! Errors as RFC 9457 problem details. Internal causes are logged, never shown.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use saboteur_domain::RuleViolation;
use saboteur_openapi::{PROBLEM_JSON, Problem};
use saboteur_storage::StoreError;

/// The `Retry-After` of a 503: long enough for a database to come back from a restart.
pub const RETRY_AFTER_SECONDS: u64 = 2;

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The request is malformed.
    #[error("{0}")]
    BadRequest(String),
    /// No valid token for this game.
    #[error("{0}")]
    Unauthorized(String),
    /// The token does not allow this.
    #[error("{0}")]
    Forbidden(String),
    /// No such game or resource.
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with the game's state: what with ([`Conflict`], its own stable
    /// code), and the detail.
    #[error("{1}")]
    Conflict(Conflict, String),
    /// `If-Match` names another version.
    #[error("{0}")]
    PreconditionFailed(String),
    /// The command breaks a rule of the game.
    #[error("{0}")]
    Rule(RuleViolation),
    /// The request is well-formed but cannot be taken, for a reason with its own stable code
    /// (e.g. `idempotency_key_reused`).
    #[error("{detail}")]
    Unprocessable {
        /// The stable code.
        code: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// The path exists, but not with this method: the methods it has.
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The request's body is over the limit (`crate::http::limits::BODY_LIMIT`).
    #[error("{0}")]
    TooLarge(String),
    /// Too many of something at once (e.g. open event streams): try again later.
    #[error("{0}")]
    Busy(String),
    /// The game cannot be answered for now (e.g. it moved on while it was read): try again
    /// after a moment.
    #[error("{0}")]
    Unavailable(String),
    /// The database cannot be reached: try again after a moment. A command's outcome is then
    /// unknown; retrying it with the same `Idempotency-Key` is safe. (The same problem as
    /// [`ApiError::Unavailable`] on the wire; apart so a table knows the store is away.)
    #[error("{0}")]
    Unreachable(String),
    /// The request cannot be taken now, for a reason with its own stable code (an undo or an
    /// act at the table refused by the engine), answered with `status`.
    #[error("{detail}")]
    Refused {
        /// The HTTP status.
        status: StatusCode,
        /// The stable code.
        code: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// The caller posts too fast (table talk): try again after `retry_after` seconds.
    #[error("{detail}")]
    TooManyRequests {
        /// What was refused.
        detail: String,
        /// Seconds to wait.
        retry_after: u64,
    },
    /// Something failed on our side.
    #[error("internal error")]
    Internal(String),
    /// A refusal of a player's or the host's write, with the server's signed receipt of it:
    /// the version and time at which it was refused (its `view_hash` covers the problem).
    #[error("{error}")]
    Signed {
        /// The refusal.
        error: Box<ApiError>,
        /// Its receipt.
        receipt: Box<crate::receipt::Receipt>,
    },
}

impl ApiError {
    /// Something failed on our side because of `cause`: its whole chain is kept for the log
    /// (never shown to the client).
    pub fn internal(what: &str, cause: impl std::error::Error) -> ApiError {
        let mut text = format!("{what}: {cause}");
        let mut source = cause.source();
        while let Some(s) = source {
            text.push_str(&format!(": {s}"));
            source = s.source();
        }
        ApiError::Internal(text)
    }
}

impl From<saboteur_domain::TableError> for ApiError {
    fn from(e: saboteur_domain::TableError) -> Self {
        use saboteur_domain::TableError as T;
        let status = match e {
            T::TooFast { retry_after_ms } => {
                return ApiError::TooManyRequests {
                    detail: e.to_string(),
                    retry_after: retry_after_ms.div_ceil(1000),
                };
            }
            T::NoCommand(_) => return ApiError::internal("a timeout found no command", e),
            T::NotInLobby(_) => {
                return ApiError::internal("the lobby's bots could not be recorded", e);
            }
            T::BadText(_) | T::BadKey | T::BadKeyProof => StatusCode::BAD_REQUEST,
            T::NoSuchSeat(_) | T::NoSuchMessage(_) => StatusCode::NOT_FOUND,
            T::SpectatorsMayNotTalk => StatusCode::FORBIDDEN,
            T::GameOver
            | T::KeyInUse(_)
            | T::NotStarted
            | T::AlreadyStarted
            | T::Cancelled
            | T::AlreadyHidden(_)
            | T::NoDeadline
            | T::NotYet(_)
            | T::AlreadyBot(_)
            | T::NotBot(_) => StatusCode::CONFLICT,
        };
        ApiError::Refused {
            status,
            code: e.code(),
            detail: e.to_string(),
        }
    }
}

impl From<saboteur_domain::UndoError> for ApiError {
    fn from(e: saboteur_domain::UndoError) -> Self {
        use saboteur_domain::UndoError as U;
        let status = match e {
            U::BadVersion(_) | U::NoReason => StatusCode::BAD_REQUEST,
            U::GameOver
            | U::NothingToUndo(_)
            | U::AlreadyPending
            | U::NonePending
            | U::CannotVote(_) => StatusCode::CONFLICT,
        };
        ApiError::Refused {
            status,
            code: e.code(),
            detail: e.to_string(),
        }
    }
}

impl From<RuleViolation> for ApiError {
    fn from(v: RuleViolation) -> Self {
        ApiError::Rule(v)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => ApiError::NotFound("no such game".into()),
            StoreError::Conflict { expected, actual } => ApiError::Conflict(
                Conflict::MovedOn,
                format!(
                    "another command was recorded first: the game moved from version {expected} to {actual}; fetch the state and try again"
                ),
            ),
            StoreError::LobbyChanged => ApiError::Conflict(
                Conflict::MovedOn,
                "the lobby changed meanwhile (through another request): read the game and try again"
                    .into(),
            ),
            StoreError::Invalid(m) => ApiError::BadRequest(m),
            StoreError::OverLimit => ApiError::TooManyRequests {
                detail: "over a per-client limit: try again after Retry-After".into(),
                retry_after: 1,
            },
            StoreError::Unavailable(m) => ApiError::Unreachable(format!(
                "the database cannot be reached ({m}); try again shortly"
            )),
            other @ (StoreError::Exists
            | StoreError::Corrupt(_)
            | StoreError::Database(_)
            | StoreError::Migrate(_)) => ApiError::internal("the store failed", other),
        }
    }
}

/// What a request conflicts with (409), each kind with its own stable code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflict {
    /// Another act was recorded first: the game moved on (`conflict`).
    MovedOn,
    /// The act needs a started game (`not_started`).
    NotStarted,
    /// The act needs a lobby: the game has started (`already_started`).
    Started,
    /// The start needs every seat taken (`seats_open`).
    SeatsOpen,
    /// Every seat is taken (`seats_full`).
    SeatsFull,
    /// The seat was taken by another request just now (`seat_taken`).
    SeatTaken,
    /// A bot holds the seat (`bot_seat`).
    BotSeat,
    /// The act needs a finished game (`not_over`).
    NotOver,
    /// The game already has a rematch (`already_rematched`).
    Rematched,
    /// The seat's time ran out before its decision was recorded (`clock_ran_out`).
    ClockRanOut,
    /// The client names an event after the log's end (`log_shorter`).
    LogShorter,
    /// The seats cannot start the game (`cannot_start`).
    CannotStart,
    /// The host cancelled the game before its start (`cancelled`).
    Cancelled,
    /// The host closed the lobby for the shares to be revealed: no seat is taken or given
    /// back (`lobby_closed`).
    LobbyClosed,
    /// Shares committed to are not all revealed and their time is not up (`shares_unrevealed`).
    SharesUnrevealed,
    /// Shares are revealed once the host closes the lobby (`lobby_open`).
    LobbyOpen,
}

impl Conflict {
    /// Every kind, once.
    pub const ALL: [Conflict; 16] = [
        Conflict::MovedOn,
        Conflict::NotStarted,
        Conflict::Started,
        Conflict::SeatsOpen,
        Conflict::SeatsFull,
        Conflict::SeatTaken,
        Conflict::BotSeat,
        Conflict::NotOver,
        Conflict::Rematched,
        Conflict::ClockRanOut,
        Conflict::LogShorter,
        Conflict::CannotStart,
        Conflict::Cancelled,
        Conflict::LobbyClosed,
        Conflict::SharesUnrevealed,
        Conflict::LobbyOpen,
    ];

    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            Conflict::MovedOn => "conflict",
            Conflict::NotStarted => "not_started",
            Conflict::Started => "already_started",
            Conflict::SeatsOpen => "seats_open",
            Conflict::SeatsFull => "seats_full",
            Conflict::SeatTaken => "seat_taken",
            Conflict::BotSeat => "bot_seat",
            Conflict::NotOver => "not_over",
            Conflict::Rematched => "already_rematched",
            Conflict::ClockRanOut => "clock_ran_out",
            Conflict::LogShorter => "log_shorter",
            Conflict::CannotStart => "cannot_start",
            Conflict::Cancelled => "cancelled",
            Conflict::LobbyClosed => "lobby_closed",
            Conflict::SharesUnrevealed => "shares_unrevealed",
            Conflict::LobbyOpen => "lobby_open",
        }
    }

    fn title(self) -> &'static str {
        match self {
            Conflict::MovedOn => "The game has moved on",
            Conflict::NotStarted => "The game has not started",
            Conflict::Started => "The game has started",
            Conflict::SeatsOpen => "Seats are still free",
            Conflict::SeatsFull => "Every seat is taken",
            Conflict::SeatTaken => "The seat was just taken",
            Conflict::BotSeat => "A bot holds the seat",
            Conflict::NotOver => "The game is not over",
            Conflict::Rematched => "The game already has a rematch",
            Conflict::ClockRanOut => "The time ran out",
            Conflict::LogShorter => "The log is shorter",
            Conflict::CannotStart => "The game cannot start",
            Conflict::Cancelled => "The game was cancelled",
            Conflict::LobbyClosed => "The lobby is closed",
            Conflict::SharesUnrevealed => "Shares are still to be revealed",
            Conflict::LobbyOpen => "The lobby is still open",
        }
    }
}

/// Every code a problem may carry besides the rule-violation codes, the conflicts
/// ([`Conflict::code`]) and the engine's refusals of undos and acts at the table
/// ([`refusal_codes`]), as `parts` gives them.
pub const API_CODES: &[&str] = &[
    "bad_request",
    "unauthorized",
    "forbidden",
    "not_found",
    "precondition_failed",
    "idempotency_key_reused",
    "method_not_allowed",
    "too_large",
    "busy",
    "unavailable",
    "too_many_requests",
    "signature_required",
    "bad_signature",
    "internal",
];

/// The engine's refusal codes a client never meets, each the server's own fault answered as 500
/// `internal`: `no_command` (a timeout that found no command to record), `not_in_lobby` (the
/// lobby's bots could not be recorded at the start; in an audit, a lobby bot out of place).
const INTERNAL_REFUSALS: [&str; 2] = ["no_command", "not_in_lobby"];

/// The stable codes of the engine's refusals of undos and acts at the table that a client can
/// meet, each once.
pub fn refusal_codes() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = Vec::new();
    for c in saboteur_domain::UndoError::CODES
        .iter()
        .chain(saboteur_domain::TableError::CODES)
    {
        if !codes.contains(c) && !API_CODES.contains(c) && !INTERNAL_REFUSALS.contains(c) {
            codes.push(c);
        }
    }
    codes
}

/// Every code a problem may carry: the rule-violation codes, the engine's refusals of undos
/// and acts at the table, and the API's own, each once. The spec's `Problem.code` lists
/// exactly these.
pub fn all_codes() -> Vec<&'static str> {
    let mut codes: Vec<&'static str> = saboteur_domain::Violation::ALL
        .iter()
        .map(|v| v.code())
        .collect();
    let conflicts = Conflict::ALL.iter().map(|c| c.code());
    for c in API_CODES
        .iter()
        .copied()
        .chain(conflicts)
        .chain(refusal_codes())
    {
        if !codes.contains(&c) {
            codes.push(c);
        }
    }
    codes
}

impl ApiError {
    fn parts(&self) -> (&'static str, &'static str) {
        match self {
            ApiError::Signed { error, .. } => error.parts(),
            ApiError::BadRequest(_) => ("bad_request", "The request is malformed"),
            ApiError::Unauthorized(_) => ("unauthorized", "A valid bearer token is needed"),
            ApiError::Forbidden(_) => ("forbidden", "This token may not do that"),
            ApiError::NotFound(_) => ("not_found", "Not found"),
            ApiError::Conflict(kind, _) => (kind.code(), kind.title()),
            ApiError::PreconditionFailed(_) => {
                ("precondition_failed", "The version does not match")
            }
            ApiError::Rule(v) => (v.code(), "The command breaks a rule"),
            ApiError::Unprocessable { code, .. } => (code, "The request cannot be taken"),
            ApiError::Refused { code, .. } => (code, "The request cannot be taken now"),
            ApiError::MethodNotAllowed(_) => ("method_not_allowed", "Method not allowed"),
            ApiError::TooLarge(_) => ("too_large", "The body is too large"),
            ApiError::Busy(_) => ("busy", "Too busy"),
            ApiError::Unavailable(_) | ApiError::Unreachable(_) => {
                ("unavailable", "Service unavailable")
            }
            ApiError::TooManyRequests { .. } => ("too_many_requests", "Too many requests"),
            ApiError::Internal(_) => ("internal", "Internal error"),
        }
    }

    /// The problem details for this error.
    pub fn problem(&self) -> Problem {
        if let ApiError::Signed { error, .. } = self {
            return error.problem();
        }
        let (code, title) = self.parts();
        let kind = match self {
            ApiError::Rule(_) => "rule-violation".to_string(),
            _ => code.replace('_', "-"),
        };
        let detail = match self {
            ApiError::Internal(_) => {
                "something failed on the server; it has been logged".to_string()
            }
            ApiError::Rule(v) => v.detail.clone(),
            other => other.to_string(),
        };
        Problem {
            kind: format!("https://saboteur.invalid/problems/{kind}"),
            title: title.to_string(),
            status: self.status_code().as_u16(),
            detail,
            code: code.to_string(),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::Forbidden(_) => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Conflict(..) => StatusCode::CONFLICT,
            ApiError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            ApiError::Rule(_) | ApiError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Refused { status, .. } => *status,
            ApiError::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Busy(_) | ApiError::Unavailable(_) | ApiError::Unreachable(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::TooManyRequests { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Signed { error, .. } => error.status_code(),
        }
    }

    fn error_response(&self) -> HttpResponse {
        if let ApiError::Signed { error, receipt } = self {
            let response = error.error_response();
            let mut body = serde_json::to_value(error.problem()).unwrap_or_default();
            if let Some(o) = body.as_object_mut() {
                o.insert(
                    "receipt".into(),
                    serde_json::to_value(receipt).unwrap_or_default(),
                );
            }
            let bytes = serde_json::to_vec(&body).unwrap_or_default();
            return response.set_body(actix_web::body::BoxBody::new(bytes));
        }
        if let ApiError::Internal(cause) = self {
            tracing::error!(cause = %cause, "request failed");
        }
        let mut response = HttpResponse::build(self.status_code());
        match self {
            ApiError::Busy(_) | ApiError::Unavailable(_) | ApiError::Unreachable(_) => {
                response.insert_header(("Retry-After", RETRY_AFTER_SECONDS.to_string()));
            }
            ApiError::MethodNotAllowed(allow) => {
                response.insert_header(("Allow", allow.as_str()));
            }
            ApiError::TooManyRequests { retry_after, .. } => {
                response.insert_header(("Retry-After", retry_after.to_string()));
            }
            _ => {}
        }
        response.content_type(PROBLEM_JSON).json(self.problem())
    }
}

impl ApiError {
    /// Whether the database could not be reached (or took no statement): the store's 503,
    /// signed or not.
    pub fn unreachable(&self) -> bool {
        match self {
            ApiError::Unreachable(_) => true,
            ApiError::Signed { error, .. } => error.unreachable(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_a_problem_carries_is_listed_in_the_spec() {
        let s = || String::from("x");
        let errors = [
            ApiError::BadRequest(s()),
            ApiError::Unauthorized(s()),
            ApiError::Forbidden(s()),
            ApiError::NotFound(s()),
            ApiError::PreconditionFailed(s()),
            ApiError::Unprocessable {
                code: "idempotency_key_reused",
                detail: s(),
            },
            ApiError::MethodNotAllowed(s()),
            ApiError::TooLarge(s()),
            ApiError::Busy(s()),
            ApiError::Unavailable(s()),
            ApiError::Unreachable(s()),
            ApiError::TooManyRequests {
                detail: s(),
                retry_after: 1,
            },
            // A seat's signature (`crate::app::signing`).
            ApiError::Refused {
                status: StatusCode::UNAUTHORIZED,
                code: "signature_required",
                detail: s(),
            },
            ApiError::Refused {
                status: StatusCode::UNAUTHORIZED,
                code: "bad_signature",
                detail: s(),
            },
            ApiError::Internal(s()),
        ];
        let mut codes: Vec<&str> = errors.iter().map(|e| e.parts().0).collect();
        // (`Unavailable` and `Unreachable` are one problem on the wire.)
        codes.dedup();
        assert_eq!(codes, API_CODES);
        // Each kind of conflict has its own code, and the spec lists it.
        let conflicts: Vec<&str> = Conflict::ALL
            .iter()
            .map(|&c| ApiError::Conflict(c, s()).parts().0)
            .collect();
        let mut distinct = conflicts.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), conflicts.len(), "{conflicts:?}");
        assert!(conflicts.iter().all(|c| all_codes().contains(c)));
        // Every refusal the engine can give maps to a listed code.
        use saboteur_domain::{Seat, TableError as T, UndoError as U};
        let refusals: Vec<ApiError> = vec![
            U::GameOver.into(),
            U::NothingToUndo(Seat(0)).into(),
            U::AlreadyPending.into(),
            U::NonePending.into(),
            U::CannotVote(Seat(0)).into(),
            U::BadVersion(1).into(),
            U::NoReason.into(),
            T::GameOver.into(),
            T::NotStarted.into(),
            T::NoSuchSeat(Seat(0)).into(),
            T::BadText(s()).into(),
            T::SpectatorsMayNotTalk.into(),
            T::TooFast { retry_after_ms: 1 }.into(),
            T::NoSuchMessage(1).into(),
            T::AlreadyHidden(1).into(),
            T::NoDeadline.into(),
            T::NotYet(1).into(),
            T::AlreadyBot(Seat(0)).into(),
            T::NotBot(Seat(0)).into(),
            T::NoCommand(Seat(0)).into(),
            T::BadKey.into(),
            T::BadKeyProof.into(),
            T::NotInLobby(Seat(0)).into(),
            T::AlreadyStarted.into(),
            T::Cancelled.into(),
            T::KeyInUse(Seat(0)).into(),
        ];
        let all = all_codes();
        for e in &refusals {
            let code = e.parts().0;
            assert!(all.contains(&code), "{code} is not listed");
        }
        // And every refusal code is one some refusal gives (none listed for nothing).
        for code in refusal_codes() {
            assert!(
                refusals.iter().any(|e| e.parts().0 == code) || code == "too_many_requests",
                "{code} is listed but never given"
            );
        }
    }
}
