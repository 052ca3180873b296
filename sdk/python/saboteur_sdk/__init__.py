"""Saboteur Server's Python SDK: the client generated from the API's spec (`saboteur_client`)
and a small layer over it.

    from saboteur_sdk import Receipts, Signer, connect, follow, ok

    player = connect(base, token)                                 # a generated client
    view = ok(get_state.sync_detailed(game, client=player))      # a StateView, or ApiProblem
    signer = Signer(game)                                         # the seat's Ed25519 key
    outcome = signer.command(player, moves.version, command)      # signed, sent as signed
    for record in follow(player, game, table=True):               # StreamRecords, to the end
        ...
    receipts.verify(anonymous, game, {seat: [signer.public_key]})  # `saboteur verify`
"""

from importlib.metadata import PackageNotFoundError, version

from .problems import (
    BY_CODE,
    BY_STATUS,
    ApiProblem,
    BadRequest,
    BadSignature,
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    NotFound,
    PreconditionFailed,
    RuleViolation,
    ServerError,
    SignatureRequired,
    TooLarge,
    TooManyRequests,
    Unauthorized,
    Unavailable,
    check,
    ok,
    problem_class,
    problem_of,
)
from .connect import API_VERSION, connect
from .openings import OpeningMismatch, check_openings
from .players import PlayerNotice, follow_player
from .receipts import Receipts, VerificationFailed
from .signing import (
    RECORD_VERSION,
    Command,
    CommitmentMismatch,
    Share,
    Signer,
    check_record,
    event_number,
    share_commitment,
)
from .stream import StreamLost, StreamRecord, UnknownEvent, follow

try:
    __version__ = version("saboteur-sdk")
    """The SDK's version: the version of the API it was generated from."""
except PackageNotFoundError:  # run from the source tree
    __version__ = "0"

__all__ = [
    "API_VERSION",
    "BY_CODE",
    "BY_STATUS",
    "RECORD_VERSION",
    "ApiProblem",
    "BadRequest",
    "BadSignature",
    "Command",
    "CommitmentMismatch",
    "Conflict",
    "Forbidden",
    "IdempotencyKeyReused",
    "NotFound",
    "OpeningMismatch",
    "PlayerNotice",
    "PreconditionFailed",
    "Receipts",
    "RuleViolation",
    "ServerError",
    "SignatureRequired",
    "Share",
    "Signer",
    "StreamLost",
    "StreamRecord",
    "TooLarge",
    "TooManyRequests",
    "Unauthorized",
    "Unavailable",
    "UnknownEvent",
    "VerificationFailed",
    "__version__",
    "check",
    "check_openings",
    "check_record",
    "connect",
    "event_number",
    "follow",
    "follow_player",
    "ok",
    "problem_class",
    "problem_of",
    "share_commitment",
]
