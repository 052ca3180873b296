"""A thin layer over the client openapi-python-client generates from the spec: every call gives
the success body or raises `ApiProblem`, and the live stream is read with httpx-sse.

    from saboteur_wrap import ApiProblem, ok, follow
    view = ok(get_state.sync_detailed(game, client=client))     # a StateView, or ApiProblem
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TypeVar

import httpx
from httpx_sse import connect_sse

from saboteur_client.models import EventRecord, Problem
from saboteur_client.types import Response

T = TypeVar("T")


class ApiProblem(Exception):
    """An RFC 9457 problem the server answered with. `code` is a string: codes the client does
    not know yet (the spec's `ProblemCode` lists today's) are kept as they are."""

    def __init__(self, status: int, code: str, detail: str, retry_after: str | None) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.retry_after = retry_after


def ok(response: Response[T | Problem]) -> T:
    """The parsed body of a 2xx answer; otherwise raises `ApiProblem`."""
    parsed = response.parsed
    status = int(response.status_code)
    if 200 <= status < 300 and parsed is not None and not isinstance(parsed, Problem):
        return parsed
    retry_after = response.headers.get("retry-after")
    if isinstance(parsed, Problem):
        raise ApiProblem(status, parsed.code, parsed.detail, retry_after)
    raise ApiProblem(status, "", response.content.decode(errors="replace"), retry_after)


def follow(
    http: httpx.Client, game: str, token: str | None, last_event_id: str | None
) -> Iterator[EventRecord]:
    """The game's events, live (`GET /games/{id}/events/stream`), from after `last_event_id`.
    Ends when the server ends the stream: the game is over, or the token was issued again."""
    headers = {"Accept": "text/event-stream"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    with connect_sse(http, "GET", f"/games/{game}/events/stream", headers=headers) as source:
        if source.response.status_code != 200:
            body = source.response.read()
            problem = Problem.from_dict(json.loads(body))
            raise ApiProblem(
                source.response.status_code,
                problem.code,
                problem.detail,
                source.response.headers.get("retry-after"),
            )
        for message in source.iter_sse():
            # Keep-alive comments carry no data: nothing to dispatch (httpx-sse still yields
            # them as empty messages once an id was seen).
            if not message.data:
                continue
            yield EventRecord.from_dict(json.loads(message.data))
