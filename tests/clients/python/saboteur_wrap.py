"""A thin layer over the client openapi-python-client generates from the spec: every call gives
the success body or raises `ApiProblem`, the live stream is read with httpx-sse, and a seat's
acts are signed with its key (the `cryptography` package's Ed25519).

    from saboteur_wrap import ApiProblem, Signer, follow, ok, signed

    view = ok(get_state.sync_detailed(game, client=client))   # a StateView, or ApiProblem
    for record in follow(http, game, token, last_event_id):   # EventRecords, live
        ...
    signer = Signer(game, seat)                               # send signer.public_key when seated,
    proof = signer.key_proof()                                # and its proof with it
    reply = signed(http, "POST", f"/games/{game}/commands", token, signer, version, "command", body)
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping
from typing import Any, TypeVar, cast
from urllib.parse import quote

import httpx
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from httpx_sse import connect_sse

from saboteur_client.models import EventRecord, Problem
from saboteur_client.types import Response

T = TypeVar("T")

# How long a quiet stream may stay silent: the server sends a keep-alive comment every 5 s, so
# three missed in a row mean the connection is gone.
STREAM_READ_TIMEOUT = 15.0


class ApiProblem(Exception):
    """An RFC 9457 problem the server answered with.

    `code` is a plain string: compare it with the values of the generated `ProblemCode`, and
    treat a code this client does not know yet by its `status`. `headers` are the response's
    (`retry_after` is its `Retry-After`, for 429 and 503)."""

    def __init__(self, status: int, code: str, detail: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers

    @property
    def retry_after(self) -> str | None:
        return self.headers.get("retry-after")


def problem_of(status: int, content: bytes, headers: Mapping[str, str]) -> ApiProblem:
    """The `ApiProblem` of an answer that is not a success: its `application/problem+json` body
    when it has one (whatever its code), else its text."""
    try:
        problem = Problem.from_dict(json.loads(content))
        return ApiProblem(status, problem.code, problem.detail, headers)
    except (ValueError, KeyError, TypeError):
        return ApiProblem(status, "", content.decode(errors="replace"), headers)


def ok(response: Response[T | Problem]) -> T:
    """The parsed body of a 2xx answer; otherwise raises `ApiProblem`."""
    parsed = response.parsed
    status = int(response.status_code)
    if 200 <= status < 300 and parsed is not None and not isinstance(parsed, Problem):
        return parsed
    if isinstance(parsed, Problem):
        raise ApiProblem(status, parsed.code, parsed.detail, response.headers)
    raise problem_of(status, response.content, response.headers)


def follow(
    http: httpx.Client, game: str, token: str | None, last_event_id: str | None
) -> Generator[EventRecord]:
    """The game's events, live (`GET /games/{id}/events/stream`), from after `last_event_id`
    (every event from the first when it is `None`).

    Ends when the server ends the stream: after a finished game's last event, or when `token`
    was issued again. Raises `ApiProblem` when the stream is refused, and httpx's
    `TransportError` when the connection drops: resume with the last `seq` seen."""
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    url = f"/games/{quote(game, safe='')}/events/stream"
    timeout = httpx.Timeout(5.0, read=STREAM_READ_TIMEOUT)
    with connect_sse(http, "GET", url, headers=headers, timeout=timeout) as source:
        answer = source.response
        if answer.status_code != 200:
            raise problem_of(answer.status_code, answer.read(), answer.headers)
        for message in source.iter_sse():
            # A keep-alive comment dispatches nothing, but httpx-sse yields it as a message
            # without data once an `id` was seen: skip it.
            if not message.data:
                continue
            yield EventRecord.from_dict(json.loads(message.data))


RECORD_VERSION = 7
"""The record version this client signs for: its games' players sign `saboteur-act-v3`."""


def check_record(record_version: int) -> None:
    """Refuses a game whose record version (`TableStatus.record_version`, or `game_created`'s)
    is not the one this client signs: an older one binds signatures less (docs/clients.md)."""
    if record_version != RECORD_VERSION:
        raise RuntimeError(
            f"the game is of record version {record_version}; this client signs record version {RECORD_VERSION} only"
        )


def event_number(value: object) -> int | None:
    """An event number the table's status lists (`undoable`, `undo_request`, `handed_at`), or
    `None` when it lists none (a generated model's `None` or `UNSET`)."""
    return value if isinstance(value, int) else None


class Signer:
    """A seat's Ed25519 key. Once the seat has registered it (`public_key` when taking the seat,
    or `PUT /games/{id}/seats/{seat}/key`, each time with its `key_proof()`), every act of the
    seat carries its signature of the act's canonical statement: the RFC 8785 JSON of the
    scheme, the act's name, the game, the seat, the version the act was chosen at, the body as a
    value (the generated model's `to_dict()`) and the event the act is about (docs/clients.md,
    "Signing your acts")."""

    def __init__(self, game: str, seat: int) -> None:
        self.game = game
        self.seat = seat
        self.key = Ed25519PrivateKey.generate()
        self.acts = 0

    @property
    def public_key(self) -> str:
        """The public key as the server takes it: 64 hex digits."""
        return self.key.public_key().public_bytes_raw().hex()

    def joined(self, reply: Any) -> int:
        """Takes the reply to taking the seat (`Joined`): its signed commitment must name this key,
        or nothing is signed for the seat (a reply rewritten to name the operator's key).
        Sets and returns `seat`."""
        named = getattr(reply.commitment, "public_key", None)
        if named != self.public_key:
            raise RuntimeError(f"the reply to taking the seat commits to the key {named}, not the key sent ({self.public_key})")
        self.seat = int(reply.seat)
        return self.seat

    def key_proof(self, game: str | None = None) -> str:
        """The proof that this key's holder sends it, for `game` (by default the signer's): the
        signature of the RFC 8785 JSON of the scheme, the game and the key, 128 hex digits. It
        goes with `public_key` wherever that is sent (a seat taken, a rematch's seat claimed,
        a new key registered)."""
        statement = rfc8785.dumps(
            {"scheme": "saboteur-key-v1", "game": self.game if game is None else game, "key": self.public_key}
        )
        return self.key.sign(statement).hex()

    def key_proof_at(self, version: int) -> str:
        """The proof for registering this key for `seat` during play (record version 7): the
        signature of the RFC 8785 JSON of the scheme (`saboteur-key-v2`), the game, the key, the
        seat and `version` (the game's version read since the seat's token was reissued), sent
        with `key_proof_version=version`."""
        statement = rfc8785.dumps(
            {"scheme": "saboteur-key-v2", "game": self.game, "key": self.public_key, "seat": self.seat, "version": version}
        )
        return self.key.sign(statement).hex()

    def headers(
        self, version: int, act: str, body: Mapping[str, object] | None, about: int | None = None
    ) -> dict[str, str]:
        """The two headers that sign `act` with `body` (a model's `to_dict()`, or `None`),
        chosen at `version`, about the event `about` (an undo's command, a vote's request, a
        reclaim's hand-over, as the table's status lists them; `None` for the other acts)."""
        act_of: dict[str, object] = {
            "scheme": "saboteur-act-v3",
            "act": act,
            "game": self.game,
            "seat": self.seat,
            "version": version,
            "body": None if body is None else dict(body),
            "about": about,
        }
        # rfc8785's own type names only JSON values; a model's `to_dict()` is one.
        statement = rfc8785.dumps(cast(Any, act_of))
        self.acts += 1
        return {
            "Seat-Signature": self.key.sign(statement).hex(),
            "Seat-Signature-Version": str(version),
        }


def signed(
    http: httpx.Client,
    method: str,
    path: str,
    token: str,
    signer: Signer | None,
    version: int,
    act: str,
    body: Mapping[str, object] | None = None,
    headers: Mapping[str, str] | None = None,
    about: int | None = None,
) -> httpx.Response:
    """Sends an act of a seat signed by `signer` (unsigned when it is `None`), about the event
    `about`: the statement signs the body as a value, so httpx writes the JSON as it likes.
    Returns the success; raises `ApiProblem` otherwise."""
    sent = {"Authorization": f"Bearer {token}", **(headers or {})}
    if signer is not None:
        sent.update(signer.headers(version, act, body, about))
    answer = http.request(method, path, json=body, headers=sent)
    if not 200 <= answer.status_code < 300:
        raise problem_of(answer.status_code, answer.content, answer.headers)
    return answer
