"""Clients of the server that say which API version they were generated from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, overload

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.event import API_VERSION

__all__ = ["API_VERSION", "connect"]


@overload
def connect(base_url: str, token: None = None, *, headers: Mapping[str, str] | None = None, **options: Any) -> Client: ...


@overload
def connect(base_url: str, token: str, *, headers: Mapping[str, str] | None = None, **options: Any) -> AuthenticatedClient: ...


def connect(
    base_url: str, token: str | None = None, *, headers: Mapping[str, str] | None = None, **options: Any
) -> Client | AuthenticatedClient:
    """A generated client of the server at `base_url` (`http://127.0.0.1:8080`) that sends
    `token` as `Authorization: Bearer` (without one, a spectator's `Client`) and `Api-Version`,
    the version this package was generated from, with every request: an event of a type a later
    API version introduced comes as a `NewerEvent`, which the generated models parse, instead
    of failing them. `headers` are sent too; `options` go to the generated client (such as
    `httpx_args` or `timeout`)."""
    sent = {"Api-Version": API_VERSION, **(headers or {})}
    if token is None:
        return Client(base_url=base_url, headers=sent, **options)
    return AuthenticatedClient(base_url=base_url, token=token, headers=sent, **options)
