"""A player's stream (`GET /players/{key}/stream`): one connection for every game where the
player's key holds a seat, announcing what asks for the player — a game started, the seat
awaited (`your_turn`, with the version to play at), an undo to vote on, a game over.

`follow_player` asks the server for a challenge, signs its statement with the player's key,
opens the stream, and yields each notice once. After a dropped connection it asks for a new
challenge and opens the stream again; the server then announces each game's present state,
and the notices already yielded are not yielded again. A notice kind this client does not know
(a minor version may add some) is yielded like the others, its `kind` a plain string.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from httpx_sse import connect_sse

from saboteur_client import AuthenticatedClient, Client

from .problems import problem_of
from .stream import READ_TIMEOUT, StreamLost


@dataclass(frozen=True)
class PlayerNotice:
    """One notice: what asks for the player in one game."""

    kind: str
    """`started`, `your_turn`, `undo_vote`, `ended`, `cancelled`, or a kind added later."""
    game_id: str
    seat: int
    version: int
    """The game's version when it was seen; for `your_turn`, the version to play at."""
    about: int | None = None
    """For `undo_vote`: the undo request's event, which a signed vote names."""


def _notice(data: str) -> PlayerNotice:
    d = json.loads(data)
    about = d.get("about")
    return PlayerNotice(
        kind=str(d["kind"]),
        game_id=str(d["game_id"]),
        seat=int(d["seat"]),
        version=int(d["version"]),
        about=None if about is None else int(about),
    )


def follow_player(
    client: Client | AuthenticatedClient,
    key: Ed25519PrivateKey,
    *,
    retries: int = 5,
    read_timeout: float = READ_TIMEOUT,
) -> Iterator[PlayerNotice]:
    """Every notice of the games where `key` holds a seat, live, each once, for as long as the
    caller reads. Raises the `ApiProblem` of a refused challenge or stream, and `StreamLost`
    after `retries` reconnections in a row without news."""
    http = client.get_httpx_client()
    public = key.public_key().public_bytes_raw().hex()
    seen: set[PlayerNotice] = set()
    fruitless = 0
    while True:
        news = False
        try:
            answer = http.post("/players/challenge", json={"public_key": public})
            if answer.status_code != 200:
                raise problem_of(answer.status_code, answer.content, answer.headers)
            challenge = answer.json()
            headers = {
                "Accept": "text/event-stream",
                "Player-Challenge": str(challenge["challenge"]),
                "Player-Signature": key.sign(str(challenge["statement"]).encode()).hex(),
            }
            timeout = httpx.Timeout(10.0, read=read_timeout)
            with connect_sse(http, "GET", f"/players/{public}/stream", headers=headers, timeout=timeout) as source:
                response = source.response
                if response.status_code != 200:
                    raise problem_of(response.status_code, response.read(), response.headers)
                for message in source.iter_sse():
                    if not message.data:
                        continue  # a keep-alive comment
                    notice = _notice(message.data)
                    if notice in seen:
                        continue
                    seen.add(notice)
                    news = True
                    yield notice
        except httpx.TransportError:
            pass  # dropped: a new challenge, and the stream again
        fruitless = 0 if news else fruitless + 1
        if fruitless > retries:
            raise StreamLost(f"the player's stream ends without news ({public[:8]})")
        time.sleep(0.1 * fruitless)
