"""A seat's Ed25519 key, and its acts sent signed (docs/clients.md, "Signing your acts").

Every act of a seat with a key carries `Seat-Signature`, the signature of the act's statement
(the RFC 8785 JSON of `scheme`, `act`, `game`, `seat`, `version`, `body` and `about`), and
`Seat-Signature-Version`. `Signer.send` writes the body as the canonical JSON it signed and
sends exactly those bytes, whatever model it was given.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any, Protocol, cast
from urllib.parse import quote

import httpx
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from saboteur_client import AuthenticatedClient
from saboteur_client.event import API_VERSION
from saboteur_client.models import (
    CommandChooseGold,
    CommandDiscardToRemove,
    CommandPass,
    CommandPlayAction,
    CommandPlayPath,
    CommandSteal,
    Outcome,
)

from .problems import check

RECORD_VERSION = 7
"""The record version this client signs for: its games' seats sign `saboteur-act-v3`."""

SCHEME = "saboteur-act-v3"

Command = CommandPlayPath | CommandPlayAction | CommandPass | CommandDiscardToRemove | CommandChooseGold | CommandSteal
"""A command, as `LegalMoves.commands` lists them."""


class Model(Protocol):
    """A generated request model."""

    def to_dict(self) -> dict[str, Any]: ...


Body = Model | Mapping[str, object] | None


def check_record(record_version: int) -> None:
    """Refuses a game whose record version (`TableStatus.record_version`) is not the one this
    client signs: an older one binds signatures less."""
    if record_version != RECORD_VERSION:
        raise RuntimeError(
            f"the game is of record version {record_version}; this client signs record version {RECORD_VERSION} only"
        )


def event_number(value: object) -> int | None:
    """An event number the table's status lists (`undoable`, `undo_request`, `handed_at`) as an
    act's `about`, or `None` when it lists none (a generated `None` or `UNSET`)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_value(body: Body) -> dict[str, object] | None:
    """A body as a JSON value: a model's `to_dict()`."""
    if body is None:
        return None
    if isinstance(body, Mapping):
        return dict(body)
    return body.to_dict()


class CommitmentMismatch(Exception):
    """The server's signed reply to taking a seat commits to another key (or share) than the one
    sent: the reply was rewritten, or the seat taken with another key. Nothing should be signed
    for such a seat."""


SHARE_PREFIX = b"saboteur share commitment v1"


def share_commitment(entropy: str) -> str:
    """The commitment to a share (64 hex digits): SHA-256 of `saboteur share commitment v1`
    then the share's 32 bytes, as 64 lowercase hex digits (`JoinGame.share_commitment`)."""
    share = bytes.fromhex(entropy)
    if len(share) != 32:
        raise ValueError("a share is 32 bytes written as 64 hex digits")
    return hashlib.sha256(SHARE_PREFIX + share).hexdigest()


def _text(model: object, name: str) -> str | None:
    """A model's text field, `None` when it is absent (a generated model's `UNSET`) or null."""
    value = getattr(model, name, None)
    return value if isinstance(value, str) else None


@dataclass(frozen=True)
class Share:
    """A seat's share in the seed (`entropy`) and the commitment to it. Send `commitment` as
    `share_commitment` when taking the seat; once the host's start closed the lobby (202, or the
    game's `reveal_by`), reveal `entropy` (`PUT /games/{id}/seats/{seat}/share`) and give the
    reply to `Signer.revealed`. Nobody sees the share before every seat has committed."""

    entropy: str
    commitment: str

    @staticmethod
    def new() -> Share:
        """32 bytes from the operating system's generator, and their commitment."""
        entropy = os.urandom(32).hex()
        return Share(entropy, share_commitment(entropy))


class Signer:
    """A seat's Ed25519 key (`key`, made when not given). Send `public_key` and `key_proof()`
    when taking the seat, then give the reply to `joined` (it checks the reply's commitment and
    sets `seat`); from then on every act of the seat goes through `send` (or `command`). `acts`
    counts the acts signed; `kept` holds each statement signed with its signature, as `verify
    --statements` reads them (`Receipts.verify(..., statements=signer.kept)`): with the
    refusals' receipts they show a legal move the server refused."""

    def __init__(self, game: str, seat: int = 0, key: Ed25519PrivateKey | None = None) -> None:
        self.game = game
        self.seat = seat
        self.key = key if key is not None else Ed25519PrivateKey.generate()
        self.acts = 0
        self.kept: list[dict[str, object]] = []

    @property
    def public_key(self) -> str:
        """The public key as the server takes it: 64 hex digits."""
        return self.key.public_key().public_bytes_raw().hex()

    def joined(self, reply: Any, entropy: str | None = None, committed: Share | None = None) -> int:
        """Takes the reply to taking (or claiming) the seat: checks that its signed `commitment`
        names this key, and `entropy` when one was sent (the share), or the commitment to
        `committed` when that was sent instead, and sets `seat`. Raises `CommitmentMismatch` when
        it names another: a reply rewritten to name another key (the operator's) must not be
        played on. Returns the seat."""
        commitment = reply.commitment
        named = getattr(commitment, "public_key", None)
        if named != self.public_key:
            raise CommitmentMismatch(
                f"the reply to taking the seat commits to the key {named}, not the key sent ({self.public_key})"
            )
        share = _text(commitment, "entropy")
        if entropy is not None and share != entropy:
            raise CommitmentMismatch(f"the reply commits to the share {share}, not the share sent ({entropy})")
        if committed is not None:
            said = _text(commitment, "share_commitment")
            if said != committed.commitment or share is not None:
                raise CommitmentMismatch(
                    f"the reply commits to the share commitment {said}, not the one sent ({committed.commitment})"
                )
        self.seat = int(reply.seat)
        return self.seat

    def revealed(self, reply: Any, share: Share) -> list[int]:
        """Takes the reply to revealing `share` (`ShareRevealed`): checks that its signed
        `commitment` names this key, the share and its commitment (else `CommitmentMismatch`:
        keep the reply, `saboteur verify --commitment` names a deal drawn without the share).
        Returns the seats still awaited."""
        commitment = reply.commitment
        named = (
            _text(commitment, "public_key"),
            _text(commitment, "entropy"),
            _text(commitment, "share_commitment"),
        )
        if named != (self.public_key, share.entropy, share.commitment):
            raise CommitmentMismatch(
                f"the reply to revealing the share commits to {named}, not to the key, share and "
                f"commitment sent ({self.public_key}, {share.entropy}, {share.commitment})"
            )
        return [int(s) for s in reply.waiting]

    def key_proof(self, game: str | None = None) -> str:
        """The proof of possession that goes with `public_key`: the signature of the RFC 8785 JSON
        of `{"scheme": "saboteur-key-v1", "game", "key"}`, for `game` (by default the signer's)."""
        statement = {"scheme": "saboteur-key-v1", "game": self.game if game is None else game, "key": self.public_key}
        return self.key.sign(rfc8785.dumps(statement)).hex()

    def key_proof_at(self, version: int) -> str:
        """The proof of possession for registering `public_key` for `seat` during play (after the
        host reissued the seat's token, which drops its key): the signature of the RFC 8785 JSON
        of `{"scheme": "saboteur-key-v2", "game", "key", "seat", "version"}`, `version` the
        game's version read since the reissue. Send it with `key_proof_version=version`."""
        statement = rfc8785.dumps(
            {"scheme": "saboteur-key-v2", "game": self.game, "key": self.public_key, "seat": self.seat, "version": version}
        )
        return self.key.sign(statement).hex()

    def statement(self, act: str, version: int, body: Body = None, about: int | None = None) -> bytes:
        """The bytes signed for `act` with `body`, chosen at `version`, about the event `about`."""
        value = {
            "scheme": SCHEME,
            "act": act,
            "game": self.game,
            "seat": self.seat,
            "version": version,
            "body": as_value(body),
            "about": about,
        }
        # rfc8785's own types name only JSON values; a model's `to_dict()` is one.
        return rfc8785.dumps(cast(Any, value))

    def headers(self, act: str, version: int, body: Body = None, about: int | None = None) -> dict[str, str]:
        """The two headers that sign an act, as strings."""
        statement = self.statement(act, version, body, about)
        signature = self.key.sign(statement).hex()
        self.acts += 1
        self.kept.append({"statement": json.loads(statement), "signature": signature})
        return {"Seat-Signature": signature, "Seat-Signature-Version": str(version)}

    def path(self, suffix: str) -> str:
        return f"/games/{quote(self.game, safe='')}{suffix}"

    def send(
        self,
        client: AuthenticatedClient,
        method: str,
        suffix: str,
        act: str,
        version: int,
        body: Body = None,
        *,
        about: int | None = None,
        headers: Mapping[str, str] | None = None,
        signed: bool = True,
    ) -> httpx.Response:
        """Sends `act` of the seat with the player's `client` to `/games/{game}{suffix}`, signed
        at `version` (unsigned with `signed=False`), with `body` (a generated model, a mapping or
        `None`) written as the canonical JSON the statement holds. Before the start (`leave`,
        `name`, `key`) `version` is the game's `lobby_version`, which every change to the lobby
        raises: signed at one gone by, the act is refused (412, `PreconditionFailed`); read the
        game and sign again. Returns the success; raises its `ApiProblem` otherwise."""
        sent = {"Api-Version": API_VERSION, **{str(k): str(v) for k, v in (headers or {}).items()}}
        if signed:
            sent.update(self.headers(act, version, body, about))
        value = as_value(body)
        content = None
        if value is not None:
            content = rfc8785.dumps(cast(Any, value))
            sent["Content-Type"] = "application/json"
        http = client.get_httpx_client()
        return check(http.request(method, self.path(suffix), content=content, headers=sent))

    def outcome(
        self,
        client: AuthenticatedClient,
        suffix: str,
        act: str,
        version: int,
        body: Body = None,
        *,
        about: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Outcome:
        """A signed `POST` whose reply is an `Outcome` (talk, undo, votes, reclaim, …)."""
        reply = self.send(client, "POST", suffix, act, version, body, about=about, headers=headers)
        return Outcome.from_dict(reply.json())

    def command(
        self,
        client: AuthenticatedClient,
        version: int,
        command: Command,
        *,
        idempotency_key: str | None = None,
        signed: bool = True,
    ) -> Outcome:
        """Plays `command`, chosen at `version` (sent as `If-Match`), signed, with an
        `Idempotency-Key` (a new one unless given: send the same one again to retry safely)."""
        headers = {"If-Match": f'"{version}"', "Idempotency-Key": idempotency_key or str(uuid.uuid4())}
        reply = self.send(client, "POST", "/commands", "command", version, command, headers=headers, signed=signed)
        return Outcome.from_dict(reply.json())
