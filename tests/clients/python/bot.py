"""An example third-party client, written as a developer outside the project would: the client
package is generated from the committed spec with openapi-python-client; `saboteur_wrap` turns
each answer into its body or an `ApiProblem`, and reads the live stream with httpx-sse.

    openapi-python-client generate --path ../../../openapi/openapi.json --config config.yaml \\
        --meta none --output-path generated/saboteur_client
    MYPYPATH=generated mypy --strict bot.py
    PYTHONPATH=generated python bot.py http://127.0.0.1:8080 base 4
    PYTHONPATH=generated SABOTEUR_BIN=saboteur python bot.py http://127.0.0.1:8080 online 4

`base`: a game of one seat and the server's bots. `online`: a Saboteur 2 game with a turn clock
in which this client holds two seats; it talks at the table, asks for an undo (and votes on it
with its other seat), has the host issue a seat's token again (the stream opened with the old
token ends; it resumes with the new one), and drops its stream once on purpose. Either way it
follows the live stream (Server-Sent Events, resumed with `Last-Event-ID`, every event exactly
once), plays a legal move whenever one of its seats is awaited, shows a 412 (a move chosen at an
old version) and a 422 (a card it does not hold), keeps every signed receipt and the server's
keys from first contact, and once the game is over checks the receipts: on the server, and, in
`online`, offline with `saboteur verify` ($SABOTEUR_BIN) against the downloaded bundle.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import uuid

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.audit import list_keys, receipts_verdict
from saboteur_client.api.events import audit_bundle
from saboteur_client.api.games import add_bot, create_game, join, start_game
from saboteur_client.api.play import (
    approve_undo,
    get_state,
    legal_moves,
    request_undo,
    send_command,
)
from saboteur_client.api.table import reissue_token, talk
from saboteur_client.models import (
    AddBot,
    BotLevel,
    Card,
    ClockType0,
    ClockType0Kind,
    CommandChooseGold,
    CommandDiscardToRemove,
    CommandPass,
    CommandPassType,
    CommandPlayAction,
    CommandPlayPath,
    CommandSteal,
    CreateGame,
        EventTalkPosted,
    EventTokenReissued,
    JoinGame,
    KeyList,
    Options,
    Outcome,
    PhaseName,
    Receipt,
    ReceiptsChecked,
    Ruleset,
    StateView,
    TalkRequest,
)
from saboteur_client.types import Unset
from saboteur_wrap import ApiProblem, follow, ok

Command = (
    CommandPlayPath
    | CommandPlayAction
    | CommandPass
    | CommandDiscardToRemove
    | CommandChooseGold
    | CommandSteal
)


class Seat:
    """A seat this client holds, and the client that acts with its token."""

    def __init__(self, base: str, seat: int, token: str) -> None:
        self.base = base
        self.seat = seat
        self.use(token)
        self.moves = 0

    def use(self, token: str) -> None:
        self.token = token
        self.client = AuthenticatedClient(base_url=self.base, token=token)


class Game:
    def __init__(self, base: str, mode: str, players: int) -> None:
        self.online = mode == "online"
        self.anonymous = Client(base_url=base)
        # The server's keys, kept from first contact: receipts are checked against these.
        self.keys: KeyList = ok(list_keys.sync_detailed(client=self.anonymous))
        ruleset = Ruleset.SABOTEUR2 if self.online else Ruleset(mode)
        options = (
            Options(clock=ClockType0(kind=ClockType0Kind.PER_DECISION, seconds=120))
            if self.online
            else Options()
        )
        created = ok(
            create_game.sync_detailed(
                client=self.anonymous,
                body=CreateGame(ruleset=ruleset, players=players, options=options),
            )
        )
        self.game = created.game_id
        self.host = AuthenticatedClient(base_url=base, token=created.host_token)
        self.seats: list[Seat] = []
        for name in ["python example", "python partner"][: 2 if self.online else 1]:
            joined = ok(join.sync_detailed(self.game, client=self.anonymous, body=JoinGame(name=name)))
            self.seats.append(Seat(base, joined.seat, joined.player_token))
        for _ in range(len(self.seats), players):
            ok(add_bot.sync_detailed(self.game, client=self.host, body=AddBot(level=BotLevel.HEURISTIC)))
        self.receipts: list[Receipt] = []
        self.keep(ok(start_game.sync_detailed(self.game, client=self.host)))
        print(f"game {self.game} ({ruleset.value}, {players} players): seats {[s.seat for s in self.seats]}")
        self.shown_stale = False
        self.shown_illegal = False
        self.said = False
        self.heard = False
        self.undo_asked = False
        self.reissued = False
        self.dropped = False

    def keep(self, body: StateView | Outcome) -> None:
        """Keeps the receipt the server signed for what it served."""
        if isinstance(body.receipt, Receipt):
            self.receipts.append(body.receipt)

    def state(self, seat: Seat) -> StateView:
        view = ok(get_state.sync_detailed(self.game, client=seat.client))
        self.keep(view)
        return view

    def send(self, seat: Seat, command: Command, version: int) -> None:
        """Sends a command chosen at `version`; 409, 412 and 422 are answers a player meets."""
        try:
            self.keep(
                ok(
                    send_command.sync_detailed(
                        self.game,
                        client=seat.client,
                        body=command,
                        if_match=f'"{version}"',
                        idempotency_key=str(uuid.uuid4()),
                    )
                )
            )
            seat.moves += 1
        except ApiProblem as problem:
            if problem.status == 412:
                print(f"412 {problem.code}: the move was chosen at an old version; reloaded")
            elif problem.status == 422:
                print(f"422 {problem.code}: {problem.detail}")
            elif problem.status != 409:
                raise

    def act(self, seat: Seat) -> bool:
        """Plays once if `seat` is awaited. Returns whether the game is over."""
        now = self.state(seat)
        if now.view.phase.name == PhaseName.GAME_OVER:
            return True
        if now.view.phase.awaited != seat.seat:
            return False
        moves = ok(legal_moves.sync_detailed(self.game, client=seat.client))
        if not moves.commands:
            return False
        move = random.choice(moves.commands)
        if not self.shown_stale and now.version > 2:
            self.shown_stale = True
            self.send(seat, move, now.version - 1)
            return False
        hand = now.view.hand if isinstance(now.view.hand, list) else []
        missing = [c for c in (Card.TUNNEL_NESW, Card.BREAK_PICKAXE, Card.MAP) if c not in hand]
        if not self.shown_illegal and hand and missing:
            self.shown_illegal = True
            self.send(seat, CommandPass(type_=CommandPassType.PASS, discard=[missing[0]]), now.version)
            return False
        self.send(seat, move, now.version)
        if self.online:
            self.table_acts(seat)
        return False

    def act_all(self) -> bool:
        """Each seat plays if awaited. Returns whether the game is over."""
        over = False
        for seat in self.seats:
            over = self.act(seat) or over
        return over

    def table_acts(self, seat: Seat) -> None:
        """The acts of online play, each once, after a move of `seat`."""
        if not self.said:
            self.said = True
            self.keep(ok(talk.sync_detailed(self.game, client=seat.client, body=TalkRequest(text="gl hf"))))
        elif not self.undo_asked and seat.moves >= 2:
            self.undo_asked = True
            asked = request_undo.sync_detailed(self.game, client=seat.client)
            outcome = ok(asked)
            self.keep(outcome)
            print(f"undo requested: {int(asked.status_code)}")
            if int(asked.status_code) == 202:
                for other in self.seats:
                    if other is seat:
                        continue
                    try:
                        voted = approve_undo.sync_detailed(self.game, client=other.client)
                        self.keep(ok(voted))
                        print(f"undo approved by seat {other.seat}: {int(voted.status_code)}")
                    except ApiProblem as problem:
                        print(f"vote: {problem.status} {problem.code}")
        elif not self.reissued and seat.moves >= 4:
            self.reissued = True
            first = self.seats[0]
            new = ok(reissue_token.sync_detailed(self.game, first.seat, client=self.host))
            first.use(new.player_token)
            print(f"token of seat {first.seat} issued again at version {new.version}")

    def play(self) -> None:
        """Follows the stream with the first seat's token, to its end: every event is a chance
        to play. The server ends the stream after a finished game's last event (and a stream
        whose token was issued again); every other end is a dropped connection, resumed with
        Last-Event-ID."""
        http = self.anonymous.get_httpx_client()
        last: str | None = None
        seen = 0
        over = self.act_all()
        followed = False
        while not followed:
            token = self.seats[0].token
            left = False
            for record in follow(http, self.game, token, last):
                if record.seq != seen + 1:
                    raise RuntimeError(f"event {record.seq} after {seen}: the stream skipped or repeated")
                seen = record.seq
                last = str(record.seq)
                event = record.event
                if isinstance(event, EventTalkPosted) and event.text == "gl hf":
                    self.heard = True
                if isinstance(event, EventTokenReissued):
                    print(f"stream resumed with the new token at event {record.seq}")
                if not over:
                    over = self.act_all()
                if self.online and not self.dropped and seen >= 40:
                    self.dropped = True
                    print(f"stream dropped after event {seen}; resuming with Last-Event-ID")
                    left = True
                    break
                if self.seats[0].token != token:
                    # The old token's stream is over for this seat; resume with the new one.
                    left = True
                    break
            if not left:
                followed = self.state(self.seats[0]).view.phase.name == PhaseName.GAME_OVER
            if not over:
                over = self.act_all()
        end = self.state(self.seats[0])
        gold = end.view.gold if isinstance(end.view.gold, list) else []
        score = ", ".join(f"seat {seat} {g}" for seat, g in enumerate(gold))
        winners = ", ".join(str(w) for w in end.view.winners)
        print(f"final score: {score}; winners {winners}; events {end.version}")
        if seen != end.version:
            raise RuntimeError(f"the stream showed {seen} of {end.version} events")
        print(f"stream: every one of {seen} events once, in order")
        if self.online and not (self.heard and self.undo_asked and self.reissued and self.dropped):
            raise RuntimeError("the online acts did not all happen")
        self.check_receipts()
        if self.online:
            self.verify_offline()

    def check_receipts(self) -> None:
        """Has the server check every receipt kept against the finished game's record, 50 at a
        time (a request holds at most 64 KiB)."""
        agreed = 0
        for i in range(0, len(self.receipts), 50):
            verdict = ok(
                receipts_verdict.sync_detailed(
                    self.game, client=self.anonymous, body=self.receipts[i : i + 50]
                )
            )
            if not verdict.ok:
                raise RuntimeError(f"receipts: {verdict.contradiction} {verdict.refused}")
            if isinstance(verdict.checked, ReceiptsChecked):
                agreed += verdict.checked.receipts
        print(f"receipts: {agreed} kept, every one agrees with the record")

    def verify_offline(self) -> None:
        """`saboteur verify`: the bundle, the receipts and the keys kept from first contact."""
        bundle = audit_bundle.sync_detailed(self.game, client=self.anonymous)
        ok(bundle)
        with tempfile.TemporaryDirectory() as folder:
            paths = {}
            for name, text in [
                ("bundle", bundle.content.decode()),
                ("receipts", json.dumps([r.to_dict() for r in self.receipts])),
                ("keys", json.dumps(self.keys.to_dict())),
            ]:
                paths[name] = os.path.join(folder, f"{name}.json")
                with open(paths[name], "w") as f:
                    f.write(text)
            binary = os.environ.get("SABOTEUR_BIN", "saboteur")
            checked = subprocess.run(
                [binary, "verify", "--file", paths["bundle"], "--receipts", paths["receipts"],
                 "--keys", paths["keys"]],
                capture_output=True,
                text=True,
            )
            if checked.returncode != 0:
                raise RuntimeError(f"saboteur verify: {checked.stdout}{checked.stderr}")
        print(f"verify: ok ({len(self.receipts)} receipts)")


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
    mode = sys.argv[2] if len(sys.argv) > 2 else "base"
    players = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    Game(base, mode, players).play()


if __name__ == "__main__":
    main()
