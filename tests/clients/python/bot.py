"""An example third-party client, written as a developer outside the project would: the client
package is generated from the committed spec with openapi-python-client; `saboteur_wrap` turns
each answer into its body or an `ApiProblem`, and reads the live stream with httpx-sse.

    openapi-python-client generate --path ../../../openapi/openapi.json --config config.yaml \\
        --meta none --output-path generated/saboteur_client
    MYPYPATH=generated mypy --strict bot.py saboteur_wrap.py
    PYTHONPATH=generated python bot.py http://127.0.0.1:8080 base 4
    PYTHONPATH=generated SABOTEUR_BIN=saboteur python bot.py http://127.0.0.1:8080 online 4

`base`: a game of one seat and the server's bots. `online`: a Saboteur 2 game with a turn clock
in which this client holds two seats; it talks at the table, asks for an undo (the bots decline
when the move showed its player a card), asks again after a move that drew nothing (the bots
approve, and its other seat votes), has the host issue a seat's token again (the stream opened
with the old token ends; it resumes with the new one), and drops its stream once on purpose.

Either way the live stream drives it (Server-Sent Events, resumed with `Last-Event-ID`, every
event exactly once): when the stream reaches the newest version the client knows of, it reads
the state of its seats and plays a legal move for each one awaited. It shows a 412 (a move
chosen at an old version) and a 422 (a card it does not hold), keeps every signed receipt and
the server's keys from first contact, and once the game is over checks the receipts: on the
server, and, in `online`, offline with `saboteur verify` ($SABOTEUR_BIN) against the
downloaded bundle, with `--player-key` for every key it registered for each of its seats (every
act of those seats must be signed by one of them).
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import uuid
from contextlib import closing

import httpx

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.audit import list_keys, receipts_verdict
from saboteur_client.api.events import audit_bundle
from saboteur_client.api.games import add_bot, create_game, join, start_game
from saboteur_client.api.play import get_state, legal_moves
from saboteur_client.api.table import reissue_token
from saboteur_client.models import (
    AddBot,
    BotLevel,
    Card,
    ClockPerDecision,
    ClockPerDecisionKind,
    CommandChooseGold,
    CommandDiscardToRemove,
    CommandPass,
    CommandPassType,
    CommandPlayAction,
    CommandPlayPath,
    CommandSteal,
    CreateGame,
    EventCommandAccepted,
    EventGameEnded,
    EventRecord,
    EventTalkPosted,
    EventTokenReissued,
    EventTurnTimedOut,
    EventUndoDeclined,
    EventUndone,
    EventUndoRequested,
    JoinGame,
    KeyList,
    NewToken,
    Options,
    Outcome,
    PhaseName,
    Receipt,
    ReceiptsChecked,
    Ruleset,
    StateView,
    TalkRequest,
)
from saboteur_wrap import ApiProblem, Signer, check_record, event_number, follow, ok, signed

Command = (
    CommandPlayPath
    | CommandPlayAction
    | CommandPass
    | CommandDiscardToRemove
    | CommandChooseGold
    | CommandSteal
)

GREETING = "gl hf"


class Seat:
    """A seat this client holds, the client that acts with its token, the key that signs
    its acts, and every public key it registered for the seat (the one sent when taking it,
    then any registered again), which `saboteur verify --player-key` holds its acts to."""

    def __init__(self, base: str, seat: int, token: str, signer: Signer) -> None:
        self.base = base
        self.seat = seat
        self.moves = 0
        self.signer = signer
        self.keys: list[str] = [signer.public_key]
        self.use(token)

    def use(self, token: str) -> None:
        self.token = token
        self.client = AuthenticatedClient(base_url=self.base, token=token)


class Game:
    def __init__(self, base: str, mode: str, players: int) -> None:
        self.online = mode == "online"
        self.anonymous = Client(base_url=base)
        # The server's keys, kept from first contact: receipts are checked against these.
        self.keys: KeyList = ok(list_keys.sync_detailed(client=self.anonymous))
        self.receipts: list[Receipt] = []
        # The newest version this client knows of, from the replies it got: the stream is
        # followed up to it before the client decides again.
        self.known = 0
        ruleset = Ruleset.SABOTEUR2 if self.online else Ruleset(mode)
        # A turn clock generous enough for any bot: every command is recorded with its time.
        clock = ClockPerDecision(kind=ClockPerDecisionKind.PER_DECISION, seconds=120)
        options = Options(clock=clock) if self.online else Options()
        created = ok(
            create_game.sync_detailed(
                client=self.anonymous,
                body=CreateGame(ruleset=ruleset, players=players, options=options),
            )
        )
        self.game = created.game_id
        self.host = AuthenticatedClient(base_url=base, token=created.host_token)
        self.seats: list[Seat] = []
        self.http = self.anonymous.get_httpx_client()
        for name in ["python example", "python partner"][: 2 if self.online else 1]:
            # Each seat with its own key: from the start, every act of the seat is signed.
            signer = Signer(self.game, len(self.seats))
            body = JoinGame(name=name, public_key=signer.public_key, key_proof=signer.key_proof())
            joined = ok(join.sync_detailed(self.game, client=self.anonymous, body=body))
            signer.joined(joined)  # the reply must commit to this key (CommitmentMismatch)
            self.seats.append(Seat(base, joined.seat, joined.player_token, signer))
        self.keys_used = len(self.seats)
        for _ in range(len(self.seats), players):
            ok(add_bot.sync_detailed(self.game, client=self.host, body=AddBot(level=BotLevel.HEURISTIC)))
        self.keep(ok(start_game.sync_detailed(self.game, client=self.host)))
        # A game of another record version than this client signs is refused before any act.
        check_record(self.state(self.seats[0]).table.record_version)
        print(f"game {self.game} ({ruleset.value}, {players} players): seats {[s.seat for s in self.seats]}")
        self.shown_stale = False
        self.shown_illegal = False
        self.said = False
        self.heard = False
        self.undo_asked = False
        self.asked_again = False
        self.reissued = False
        self.dropped = False
        self.timed = 0
        self.timeouts = 0
        self.shown_unsigned = False
        self.retired_acts = 0

    def keep(self, body: StateView | Outcome) -> None:
        """Keeps the receipt the server signed for what it served, and the version it is at."""
        if isinstance(body.receipt, Receipt):
            self.receipts.append(body.receipt)
        self.known = max(self.known, body.version)

    def state(self, seat: Seat) -> StateView:
        view = ok(get_state.sync_detailed(self.game, client=seat.client))
        self.keep(view)
        return view

    def act_signed(self, seat: Seat, path: str, act: str, body: dict[str, object] | None = None,
                   version: int | None = None, headers: dict[str, str] | None = None,
                   about: int | None = None) -> httpx.Response:
        """An act of `seat` on this game, signed with its key at `version` (by default the newest
        version this client knows of), about the event `about`."""
        at = self.known if version is None else version
        return signed(self.http, "POST", f"/games/{self.game}{path}", seat.token, seat.signer, at, act, body,
                      headers, about)

    def send(self, seat: Seat, command: Command, version: int) -> bool:
        """Sends a command chosen at `version`, signed; 409, 412 and 422 are answers a player
        meets. Returns whether it was accepted."""
        headers = {"If-Match": f'"{version}"', "Idempotency-Key": str(uuid.uuid4())}
        if not self.shown_unsigned:
            # Unsigned, a keyed seat's command is refused: 401, nothing changes.
            self.shown_unsigned = True
            try:
                signed(self.http, "POST", f"/games/{self.game}/commands", seat.token, None, version,
                       "command", command.to_dict(), headers)
                raise RuntimeError("an unsigned command was accepted")
            except ApiProblem as problem:
                print(f"{problem.status} {problem.code}: an unsigned command")
        try:
            answer = self.act_signed(seat, "/commands", "command", command.to_dict(), version, headers)
            self.keep(Outcome.from_dict(answer.json()))
            seat.moves += 1
            return True
        except ApiProblem as problem:
            if problem.status == 412:
                print(f"412 {problem.code}: the move was chosen at an old version")
            elif problem.status == 422:
                print(f"422 {problem.code}: {problem.detail}")
            elif problem.status != 409:
                raise
            return False

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
        if not self.shown_stale and moves.decision_version > 1:
            # A version before the last decision-changing event is stale: 412, nothing changes.
            self.shown_stale = True
            self.send(seat, move, moves.decision_version - 1)
        hand = now.view.hand if isinstance(now.view.hand, list) else []
        missing = [c for c in (Card.TUNNEL_NESW, Card.BREAK_PICKAXE, Card.MAP) if c not in hand]
        if not self.shown_illegal and hand and missing:
            # A card this seat does not hold: 422, nothing changes.
            self.shown_illegal = True
            self.send(seat, CommandPass(type_=CommandPassType.PASS, discard=[missing[0]]), moves.version)
        if self.send(seat, move, moves.version) and self.online:
            self.table_acts(seat, drew=now.view.draw_pile_size > 0)
        return False

    def act_all(self) -> bool:
        """Each seat plays if awaited. Returns whether the game is over."""
        over = False
        for seat in self.seats:
            over = self.act(seat) or over
        return over

    def table_acts(self, seat: Seat, drew: bool) -> None:
        """The acts of online play, each once, after a move of `seat` (which `drew` a card)."""
        if not self.said:
            self.said = True
            said = self.act_signed(seat, "/talk", "talk", TalkRequest(text=GREETING).to_dict())
            self.keep(Outcome.from_dict(said.json()))
        elif not self.undo_asked and seat.moves >= 2:
            self.undo_asked = True
            self.ask_undo(seat)
        elif not self.reissued and seat.moves >= 4:
            self.reissued = True
            first = self.seats[0]
            new: NewToken = ok(reissue_token.sync_detailed(self.game, first.seat, client=self.host))
            first.use(new.player_token)
            self.known = max(self.known, new.version)
            print(f"token of seat {first.seat} issued again at version {new.version}")
            # A new token drops the seat's key: its holder registers a new one (unsigned, as
            # the seat has none now), proved for the seat from the reissue on, and signs with it
            # from then on.
            self.retired_acts += first.signer.acts
            first.signer = Signer(self.game, first.seat)
            proof = first.signer.key_proof_at(self.known)
            registered = signed(self.http, "PUT", f"/games/{self.game}/seats/{first.seat}/key", first.token,
                                None, self.known, "key",
                                {"public_key": first.signer.public_key, "key_proof": proof,
                                 "key_proof_version": self.known})
            self.keep(Outcome.from_dict(registered.json()))
            first.keys.append(first.signer.public_key)
            self.keys_used += 1
            print(f"key of seat {first.seat} registered again at version {self.known}")
        elif not self.asked_again and not drew and seat is self.seats[-1]:
            # A move that drew nothing showed its player nothing hidden, so the bots (who play
            # after this seat) approve taking it back, and the vote of the other seat is awaited.
            self.asked_again = True
            self.ask_undo(seat)

    def ask_undo(self, seat: Seat) -> None:
        """Asks to take back `seat`'s last command. 200: settled at once (taken back, or declined
        by a bot, which declines when the command showed its player a hidden card); 202: the
        votes of other players are awaited, here the other seat this client holds."""
        # The statement names the command taken back, as the table's status lists it.
        now = self.state(seat)
        command = event_number(now.table.seats[seat.seat].undoable)
        try:
            asked = self.act_signed(seat, "/undo", "undo", version=now.version, about=command)
        except ApiProblem as problem:
            # 409: the move ended the game, or another request is pending; any other refusal
            # fails.
            if problem.status != 409:
                raise
            print(f"undo refused: {problem.status} {problem.code}")
            return
        outcome = Outcome.from_dict(asked.json())
        self.keep(outcome)
        print(f"undo requested: {asked.status_code} ({settled(outcome.events)})")
        if asked.status_code != 202:
            return
        for other in self.seats:
            if other is seat:
                continue
            try:
                # The vote names the request it answers.
                pending = self.state(other)
                voted = self.act_signed(other, "/undo/approve", "approve", version=pending.version,
                                        about=event_number(pending.table.undo_request))
                outcome = Outcome.from_dict(voted.json())
                self.keep(outcome)
                print(f"undo approved by seat {other.seat}: {voted.status_code} ({settled(outcome.events)})")
            except ApiProblem as problem:
                # Settled meanwhile (a vote of another player): nothing to vote on. Any other
                # refusal (a statement the server does not take) is a failure.
                if problem.status != 409:
                    raise
                print(f"vote of seat {other.seat}: {problem.status} {problem.code}")

    def notice(self, record: EventRecord) -> None:
        """What the client looks for in the stream, besides the chance to play."""
        event = record.event
        if isinstance(event, EventTalkPosted) and event.text == GREETING:
            self.heard = True
        if isinstance(event, EventTokenReissued):
            print(f"stream resumed with the new token at event {record.seq}")
        if isinstance(event, EventCommandAccepted) and isinstance(event.at, int):
            self.timed += 1
        if isinstance(event, EventTurnTimedOut):
            self.timeouts += 1

    def play(self) -> None:
        """Follows the stream with the first seat's token, to the game's end. Whenever the
        stream has shown every event up to the newest version the client knows of, its seats
        decide. The server ends the stream after a finished game's last event, and a stream
        whose token was issued again; any other end is a dropped connection. Either way the
        client reconnects with `Last-Event-ID`, the last sequence number it saw."""
        http = self.anonymous.get_httpx_client()
        last: str | None = None
        seen = 0
        over = False
        ended = False
        fruitless = 0
        while not ended:
            token = self.seats[0].token
            before = seen
            try:
                with closing(follow(http, self.game, token, last)) as records:
                    for record in records:
                        if record.seq != seen + 1:
                            raise RuntimeError(f"event {record.seq} after {seen}: the stream skipped or repeated")
                        seen = record.seq
                        last = str(seen)
                        ended = isinstance(record.event, EventGameEnded)
                        self.notice(record)
                        if not over and seen >= self.known:
                            over = self.act_all()
                        if self.online and not self.dropped and seen >= 40 and self.seats[0].token == token:
                            self.dropped = True
                            print(f"stream dropped after event {seen}; resuming with Last-Event-ID")
                            break
                    else:  # the server ended the stream
                        if self.seats[0].token != token:
                            print(f"stream of the old token ended by the server after event {seen}")
            except httpx.TransportError as error:
                print(f"stream lost after event {seen} ({error!r}); resuming with Last-Event-ID")
            fruitless = fruitless + 1 if seen == before else 0
            if fruitless > 3:
                raise RuntimeError(f"the stream ends without events after event {seen}")
        end = self.state(self.seats[0])
        gold = end.view.gold if isinstance(end.view.gold, list) else []
        score = ", ".join(f"seat {seat} {g}" for seat, g in enumerate(gold))
        winners = ", ".join(str(w) for w in end.view.winners)
        print(f"final score: {score}; winners {winners}; events {end.version}")
        if seen != end.version:
            raise RuntimeError(f"the stream showed {seen} of {end.version} events")
        print(f"stream: every one of {seen} events once, in order")
        if self.online:
            if not (self.heard and self.undo_asked and self.reissued and self.dropped):
                raise RuntimeError("the online acts did not all happen")
            print(f"clock: {self.timed} commands recorded with their time, {self.timeouts} timeouts")
        signed_acts = self.retired_acts + sum(s.signer.acts for s in self.seats)
        keys = f"{self.keys_used} key{'' if self.keys_used == 1 else 's'}"
        print(f"signed: {signed_acts} acts with {keys}")
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
        """`saboteur verify`: the bundle as downloaded, the receipts and the keys kept from
        first contact, and `--player-key SEAT:KEY` for every key registered for each seat held:
        every act of those seats must be signed by one of the seat's keys."""
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
            player_keys = [arg for seat in self.seats for key in seat.keys
                           for arg in ("--player-key", f"{seat.seat}:{key}")]
            checked = subprocess.run(
                [binary, "verify", "--file", paths["bundle"], "--receipts", paths["receipts"],
                 "--keys", paths["keys"], *player_keys],
                capture_output=True,
                text=True,
            )
            if checked.returncode != 0:
                raise RuntimeError(f"saboteur verify: {checked.stdout}{checked.stderr}")
        print(f"verify: ok ({len(self.receipts)} receipts)")
        # Each seat's keys named by their fingerprints: the option was checked, seat by seat.
        lines = checked.stdout.splitlines()
        for seat in self.seats:
            said = f"every act of seat {seat.seat} is signed by the key {' or '.join(map(fingerprint, seat.keys))}"
            if said not in lines:
                raise RuntimeError(f"saboteur verify did not say {said!r}: {checked.stdout}")
            print(f"verify: {said}")


def fingerprint(key: str) -> str:
    """A key's fingerprint, as the server and `saboteur verify` show it: the first 16 hex
    digits of the SHA-256 of its 32 bytes, in groups of four."""
    digest = hashlib.sha256(bytes.fromhex(key)).hexdigest()[:16]
    return " ".join(digest[i : i + 4] for i in range(0, 16, 4))


def settled(records: list[EventRecord]) -> str:
    """Where an undo request stands after a reply's events."""
    events = [r.event for r in records]
    if any(isinstance(e, EventUndone) for e in events):
        return "taken back"
    declined = [e.seat for e in events if isinstance(e, EventUndoDeclined)]
    if declined:
        return f"declined by seat {declined[0]}"
    if any(isinstance(e, EventUndoRequested) for e in events):
        return "votes awaited"
    return "pending"


def main() -> None:
    base = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080"
    mode = sys.argv[2] if len(sys.argv) > 2 else "base"
    players = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    Game(base, mode, players).play()


if __name__ == "__main__":
    main()
