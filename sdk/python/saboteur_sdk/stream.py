"""The live stream of a game's events (`GET /games/{id}/events/stream`), followed to its end.

`follow` reads Server-Sent Events with httpx-sse, resumes with `Last-Event-ID` after a dropped
connection (every event once, in order), stops after a finished (or cancelled) game's last
event, and yields each message as a `StreamRecord`. With `table=True` the newest event of each
batch carries `table`, the caller's `TableRead` at its version: a client reads nothing after the
news. The stream is asked with `Api-Version`, so an event type a later API version introduced
comes as a `NewerEvent` (the generated model of the wrapper); one the server sends unwrapped
anyway is yielded as an `UnknownEvent`. Neither is an error.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from httpx_sse import connect_sse

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.event import API_VERSION, Event
from saboteur_client.models import EventGameCancelled, EventGameEnded, NewerEvent, TableRead
from saboteur_client.models import StreamRecord as Message

from .openings import check_openings
from .problems import problem_of

READ_TIMEOUT = 15.0
"""How long a quiet stream may stay silent: the server sends a comment every 5 s, so three
missed in a row mean the connection is gone."""


@dataclass(frozen=True)
class UnknownEvent:
    """An event of a type this client does not know: nothing for it to do. `fields` is the
    event as sent."""

    type: str
    fields: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamRecord:
    """One message of the stream, the spec's `StreamRecord` (`seq`, `event`, `table`) with a
    place for events this client does not know: the event's `seq` (the game's version once it is applied),
    the `event` (an `Event…` class of the generated client, a `NewerEvent` or an `UnknownEvent`) and, on a stream
    opened with `table=True`, on the newest event of each batch, `table`: the caller's table at
    this version (`table.state` its view and receipt, `table.legal` its legal moves)."""

    seq: int
    event: Event | NewerEvent | UnknownEvent
    table: TableRead | None = None

    @property
    def ends_game(self) -> bool:
        """Whether this is a game's last event: nothing follows it."""
        return isinstance(self.event, (EventGameEnded, EventGameCancelled))


class StreamLost(Exception):
    """The stream kept ending (or dropping) without a new event: the server is gone."""


def parse(data: str) -> StreamRecord:
    """A message's `data`, the spec's `StreamRecord` as JSON, parsed with the generated model;
    an event it does not know becomes an `UnknownEvent` (its table is still read). The
    openings of the seat's own values are checked first (`check_openings`): a value shown
    that the chain does not commit to raises `OpeningMismatch`."""
    value = json.loads(data)
    check_openings(value)
    try:
        message = Message.from_dict(value)
        table = message.table if isinstance(message.table, TableRead) else None
        return StreamRecord(message.seq, message.event, table)
    except (TypeError, ValueError, KeyError, AttributeError):
        pass
    raw = value.get("event")
    raw = raw if isinstance(raw, dict) else {}
    table_value = value.get("table")
    table = TableRead.from_dict(table_value) if isinstance(table_value, dict) else None
    return StreamRecord(int(value["seq"]), UnknownEvent(str(raw.get("type", "")), raw), table)


def follow(
    client: Client | AuthenticatedClient,
    game: str,
    *,
    token: str | None = None,
    after: int = 0,
    table: bool = False,
    retries: int = 5,
    read_timeout: float = READ_TIMEOUT,
) -> Iterator[StreamRecord]:
    """Every event of `game` after `after`, live, as `StreamRecord`s, until the game's last.

    The stream is read as `token`'s holder (by default as `client`'s, a spectator's with a
    `Client`). A dropped connection, or a stream ended before the game's end, is resumed with
    `Last-Event-ID`: the events come once each, in order. Raises the `ApiProblem` of a refused
    stream (401 once the token was issued again: follow again with the new one and `after` the
    last `seq` seen), and `StreamLost` after `retries` reconnections in a row without news."""
    http = client.get_httpx_client()
    url = f"/games/{quote(game, safe='')}/events/stream"
    params = {"table": "true"} if table else {}
    last = after
    fruitless = 0
    while True:
        headers = {"Accept": "text/event-stream", "Api-Version": API_VERSION}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if last > 0:
            headers["Last-Event-ID"] = str(last)
        before = last
        try:
            timeout = httpx.Timeout(10.0, read=read_timeout)
            with connect_sse(http, "GET", url, params=params, headers=headers, timeout=timeout) as source:
                answer = source.response
                if answer.status_code != 200:
                    raise problem_of(answer.status_code, answer.read(), answer.headers)
                for message in source.iter_sse():
                    # A keep-alive comment carries no data (httpx-sse may yield it once an
                    # `id` was seen).
                    if not message.data:
                        continue
                    record = parse(message.data)
                    if record.seq <= last:
                        continue
                    last = record.seq
                    yield record
                    if record.ends_game:
                        return
        except httpx.TransportError:
            pass  # dropped: resume after `last`
        fruitless = fruitless + 1 if last == before else 0
        if fruitless > retries:
            raise StreamLost(f"the stream of game {game} ends without news after event {last}")
        time.sleep(0.1 * fruitless)
