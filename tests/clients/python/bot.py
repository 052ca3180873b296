"""An example third-party client, written as a developer outside the project would: the client
package is generated from the committed spec with openapi-python-client, and this bot uses
nothing else (httpx, which the generated client is built on, reads the event stream).

    openapi-python-client generate --path ../../../openapi/openapi.json --config config.yaml \\
        --meta none --output-path generated/saboteur_client
    MYPYPATH=generated mypy --strict bot.py
    PYTHONPATH=generated python bot.py http://127.0.0.1:8080 base 4

It creates a game, takes seat 0, gives the other seats to the server's bots, starts, follows
the event stream (Server-Sent Events, resumed with Last-Event-ID), and plays a legal move
whenever its seat is awaited until the game ends; then it prints the final score. Once, on
purpose, it sends a move chosen at a stale version (412: it reloads) and a card it does not
hold (422: it reads the problem's `code`). It keeps the signed receipt of every view and reply
it is served, and once the game is over has the server check them against the game's record,
as a player preparing a dispute would (`saboteur verify --receipts` does it offline).
"""

from __future__ import annotations

import random
import sys
import uuid
from typing import TypeVar

import httpx

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.audit import receipts_verdict
from saboteur_client.api.games import add_bot, create_game, join, start_game
from saboteur_client.api.play import get_state, legal_moves, send_command
from saboteur_client.models import (
    AddBot,
    BotLevel,
    Card,
    CommandChooseGold,
    CommandDiscardToRemove,
    CommandPass,
    CommandPassType,
    CommandPlayAction,
    CommandPlayPath,
    CommandSteal,
    CreateGame,
    JoinGame,
    Outcome,
    PhaseName,
    Problem,
    Receipt,
    ReceiptsChecked,
    Ruleset,
    StateView,
)
from saboteur_client.types import Response, Unset

Command = (
    CommandPlayPath
    | CommandPlayAction
    | CommandPass
    | CommandDiscardToRemove
    | CommandChooseGold
    | CommandSteal
)


T = TypeVar("T")


def expect(what: str, response: Response[T | Problem]) -> T:
    """The parsed body of a success, or an error naming the problem's code."""
    parsed = response.parsed
    if parsed is None or isinstance(parsed, Problem):
        code = parsed.code if isinstance(parsed, Problem) else ""
        detail = parsed.detail if isinstance(parsed, Problem) else response.content.decode()
        raise RuntimeError(f"{what}: {response.status_code} {code} {detail}")
    return parsed


class Bot:
    def __init__(self, base: str, ruleset: Ruleset, players: int) -> None:
        self.base = base
        anonymous = Client(base_url=base)
        created = expect(
            "create",
            create_game.sync_detailed(
                client=anonymous, body=CreateGame(ruleset=ruleset, players=players)
            ),
        )
        self.game = created.game_id
        host = AuthenticatedClient(base_url=base, token=created.host_token)
        joined = expect(
            "join",
            join.sync_detailed(self.game, client=anonymous, body=JoinGame(name="python example")),
        )
        self.seat = joined.seat
        self.token = joined.player_token
        self.client = AuthenticatedClient(base_url=base, token=self.token)
        for _ in range(1, players):
            expect(
                "add a bot",
                add_bot.sync_detailed(self.game, client=host, body=AddBot(level=BotLevel.HEURISTIC)),
            )
        expect("start", start_game.sync_detailed(self.game, client=host))
        print(f"game {self.game} ({ruleset.value}, {players} players): seat {self.seat}")
        self.shown_stale = False
        self.shown_illegal = False
        self.receipts: list[Receipt] = []

    def keep(self, receipt: Receipt | None | Unset) -> None:
        """Keeps a receipt the server signed."""
        if isinstance(receipt, Receipt):
            self.receipts.append(receipt)

    def state(self) -> StateView:
        view = expect("state", get_state.sync_detailed(self.game, client=self.client))
        self.keep(view.receipt)
        return view

    def send(self, command: Command, version: int) -> int:
        """Sends a command chosen at `version`; 409, 412 and 422 are expected answers."""
        sent = send_command.sync_detailed(
            self.game,
            client=self.client,
            body=command,
            if_match=f'"{version}"',
            idempotency_key=str(uuid.uuid4()),
        )
        status = int(sent.status_code)
        if isinstance(sent.parsed, Outcome):
            self.keep(sent.parsed.receipt)
        if status in (200, 409, 412):
            return status
        if status == 422 and isinstance(sent.parsed, Problem):
            print(f"422 {sent.parsed.code.value}: {sent.parsed.detail}")
            return status
        expect("command", sent)
        return status

    def turn(self) -> bool:
        """Plays once if the seat is awaited. Returns whether the game is over."""
        now = self.state()
        if now.view.phase.name == PhaseName.GAME_OVER:
            return True
        if now.view.phase.awaited != self.seat:
            return False
        moves = expect("legal moves", legal_moves.sync_detailed(self.game, client=self.client))
        if not moves.commands:
            return False
        move = random.choice(moves.commands)
        if not self.shown_stale and now.version > 1:
            self.shown_stale = True
            if self.send(move, now.version - 1) == 412:
                print("412 precondition_failed: the move was chosen at an old version; reloaded")
            return False
        hand = now.view.hand if isinstance(now.view.hand, list) else []
        missing = [c for c in (Card.TUNNEL_NESW, Card.BREAK_PICKAXE, Card.MAP) if c not in hand]
        if not self.shown_illegal and hand and missing:
            self.shown_illegal = True
            self.send(CommandPass(type_=CommandPassType.PASS, discard=[missing[0]]), now.version)
            return False
        self.send(move, now.version)
        return False

    def play(self) -> None:
        """Follows the live stream; every event, or a quiet second, is a chance to play."""
        last_event_id: str | None = None
        over = self.turn()
        while not over:
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
            if last_event_id:
                headers["Last-Event-ID"] = last_event_id
            timeout = httpx.Timeout(10.0, read=1.0)
            try:
                with httpx.stream(
                    "GET", f"{self.base}/games/{self.game}/events/stream", headers=headers, timeout=timeout
                ) as stream:
                    stream.raise_for_status()
                    for line in stream.iter_lines():
                        if line.startswith("id:"):
                            last_event_id = line[3:].strip()
                        elif line == "":
                            over = self.turn()
                            if over:
                                break
            except httpx.ReadTimeout:
                pass
            if not over:
                over = self.turn()
        end = self.state()
        gold = end.view.gold if isinstance(end.view.gold, list) else []
        score = ", ".join(f"seat {seat} {g}" for seat, g in enumerate(gold))
        winners = ", ".join(str(w) for w in end.view.winners)
        print(f"final score: {score}; winners {winners}; events {end.version}")
        self.check_receipts()

    def check_receipts(self) -> None:
        """Has the server check every receipt kept against the finished game's record, 50 at a
        time (a request holds at most 64 KiB)."""
        agreed = 0
        for i in range(0, len(self.receipts), 50):
            verdict = expect(
                "check receipts",
                receipts_verdict.sync_detailed(
                    self.game, client=self.client, body=self.receipts[i : i + 50]
                ),
            )
            if not verdict.ok:
                raise RuntimeError(f"receipts: {verdict.contradiction} {verdict.refused}")
            if isinstance(verdict.checked, ReceiptsChecked):
                agreed += verdict.checked.receipts
        print(f"receipts: {agreed} kept, every one agrees with the record")


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
    ruleset = Ruleset(sys.argv[2]) if len(sys.argv) > 2 else Ruleset.BASE
    players = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    Bot(base, ruleset, players).play()


if __name__ == "__main__":
    main()
