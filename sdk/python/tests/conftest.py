"""The SDK's tests run against a live server: `SABOTEUR_URL` (its address) and `SABOTEUR_BIN`
(the `saboteur` binary, for `saboteur verify`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.games import add_bot, create_game, join, start_game
from saboteur_client.models import AddBot, BotLevel, CreateGame, JoinGame, Ruleset
from saboteur_sdk import Receipts, Signer, connect, ok


@pytest.fixture(scope="session")
def base() -> str:
    return os.environ.get("SABOTEUR_URL", "http://127.0.0.1:8080")


@pytest.fixture(scope="session")
def binary() -> str:
    return os.environ.get("SABOTEUR_BIN", "saboteur")


@dataclass
class Table:
    """A started base game: one seat held here (signed), two of the server's bots."""

    anonymous: Client
    host: AuthenticatedClient
    player: AuthenticatedClient
    game: str
    seat: int
    token: str
    signer: Signer
    receipts: Receipts
    notes: dict[str, object] = field(default_factory=dict)


def new_table(base: str) -> Table:
    anonymous = connect(base)
    receipts = Receipts.first_contact(anonymous)
    created = receipts.ok(create_game.sync_detailed(client=anonymous, body=CreateGame(ruleset=Ruleset.BASE, players=3)))
    signer = Signer(created.game_id)
    body = JoinGame(name="sdk", public_key=signer.public_key, key_proof=signer.key_proof())
    me = receipts.ok(join.sync_detailed(created.game_id, client=anonymous, body=body))
    signer.joined(me)
    host = connect(base, created.host_token)
    for _ in range(2):
        ok(add_bot.sync_detailed(created.game_id, client=host, body=AddBot(level=BotLevel.RANDOM)))
    receipts.ok(start_game.sync_detailed(created.game_id, client=host))
    player = connect(base, me.player_token)
    return Table(anonymous, host, player, created.game_id, me.seat, me.player_token, signer, receipts)


@pytest.fixture
def table(base: str) -> Iterator[Table]:
    yield new_table(base)
