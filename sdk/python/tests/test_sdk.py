"""The SDK against a live server: typed problems, signed acts, the stream and receipts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from conftest import Table, new_table
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.events import list_events
from saboteur_client.api.games import add_bot, cancel_game, close_lobby, create_game, join, reveal_share, start_game
from saboteur_client.api.play import get_state, legal_moves
from saboteur_client.models import (
    AddBot,
    BotLevel,
    CreateGame,
    EventCommandAccepted,
    EventGameCancelled,
    EventGameEnded,
    JoinGame,
    LegalMoves,
    LobbyClosed,
    NewerEvent,
    ProblemCode,
    RevealShare,
    Ruleset,
    SeatSignature,
)
from saboteur_sdk import (
    API_VERSION,
    RECORD_VERSION,
    ApiProblem,
    BadSignature,
    CommitmentMismatch,
    Conflict,
    NotFound,
    OpeningMismatch,
    PreconditionFailed,
    Share,
    Signer,
    SignatureRequired,
    StreamRecord,
    UnknownEvent,
    __version__,
    check_openings,
    connect,
    follow,
    follow_player,
    ok,
    problem_class,
)
from saboteur_sdk.stream import parse


def awaited_moves(t: Table) -> tuple[int, int]:
    """Waits (on the stream) until this seat is awaited; the version and decision version of
    its legal moves."""
    for record in follow(t.player, t.game, table=True):
        if record.table is not None and record.table.state.view.phase.awaited == t.seat:
            break
    moves = ok(legal_moves.sync_detailed(t.game, client=t.player))
    return moves.version, moves.decision_version


def test_problem_is_typed(table: Table) -> None:
    with pytest.raises(NotFound) as missing:
        ok(get_state.sync_detailed("no-such-game", client=table.player))
    assert (missing.value.status, missing.value.code) == (404, "not_found")
    assert missing.value.known_code is ProblemCode.NOT_FOUND
    awaited_moves(table)
    moves = ok(legal_moves.sync_detailed(table.game, client=table.player))
    if moves.decision_version <= 1:
        pytest.skip("no version before the last decision")
    with pytest.raises(PreconditionFailed) as stale:
        table.signer.command(table.player, moves.decision_version - 1, moves.commands[0])
    assert (stale.value.status, stale.value.code) == (412, "precondition_failed")
    assert stale.value.receipt is not None and stale.value.receipt.kind.value == "refusal"
    # A code newer than the client is raised as its status's class.
    assert problem_class(412, "some_new_code") is PreconditionFailed
    assert problem_class(599, "x").__name__ == "ServerError"


def test_signed_command_is_accepted_and_recorded(table: Table) -> None:
    version, _ = awaited_moves(table)
    moves = ok(legal_moves.sync_detailed(table.game, client=table.player))
    outcome = table.signer.command(table.player, version, moves.commands[0])
    assert table.signer.acts == 1
    mine = [r for r in outcome.events if isinstance(r.event, EventCommandAccepted) and r.event.seat == table.seat]
    assert mine, "the reply holds the command accepted"
    page = ok(list_events.sync_detailed(table.game, client=table.player, after=mine[0].seq - 1, limit=1))
    accepted = page.events[0].event
    assert isinstance(accepted, EventCommandAccepted)
    assert isinstance(accepted.signature, SeatSignature), "the record keeps the signature"


def test_unsigned_and_forged_commands_are_refused(table: Table) -> None:
    version, _ = awaited_moves(table)
    moves = ok(legal_moves.sync_detailed(table.game, client=table.player))
    with pytest.raises(SignatureRequired) as unsigned:
        table.signer.command(table.player, version, moves.commands[0], signed=False)
    assert (unsigned.value.status, unsigned.value.code) == (401, "signature_required")
    forger = Signer(table.game, table.seat)  # another key than the seat's
    with pytest.raises(BadSignature) as forged:
        forger.command(table.player, version, moves.commands[0])
    assert (forged.value.status, forged.value.code) == (401, "bad_signature")
    assert isinstance(forged.value, ApiProblem)


class Dropping(httpx.BaseTransport):
    """Cuts the first event stream after `after` bytes of its body, as a lost connection."""

    def __init__(self, after: int) -> None:
        self.inner = httpx.HTTPTransport()
        self.after = after
        self.drops = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        if not request.url.path.endswith("/events/stream") or self.drops:
            return response
        self.drops += 1
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=Cut(response, self.after), request=request)


class Cut(httpx.SyncByteStream):
    def __init__(self, response: httpx.Response, after: int) -> None:
        self.response = response
        self.after = after

    def __iter__(self) -> Iterator[bytes]:
        sent = 0
        for chunk in self.response.stream:  # type: ignore[union-attr]
            if sent + len(chunk) > self.after:
                yield chunk[: self.after - sent]
                raise httpx.ReadError("connection cut")
            sent += len(chunk)
            yield chunk

    def close(self) -> None:
        self.response.close()


def play_to_the_end(t: Table, records: list[StreamRecord], client: Client) -> None:
    """Follows the game with `client` (table on), keeping every record and receipt, and plays
    the seat's first legal move whenever it is awaited, signed; the first time, it first sends
    a signed pass that discards nothing (refused: a pass discards a card) and keeps the
    refusal."""
    tried = False
    for record in follow(client, t.game, token=t.token, table=True):
        records.append(record)
        t.receipts.keep(record)
        if record.table is None or record.table.state.view.phase.awaited != t.seat:
            continue
        legal = record.table.legal
        if not isinstance(legal, LegalMoves) or not legal.commands:
            continue
        if not tried:
            tried = True
            with pytest.raises(ApiProblem) as refused:
                t.signer.send(t.player, "POST", "/commands", "command", legal.version, {"type": "pass", "discard": []})
            assert refused.value.status == 422 and refused.value.body is not None
            t.receipts.keep(refused.value)
        try:
            t.receipts.keep(t.signer.command(t.player, legal.version, legal.commands[0]))
        except ApiProblem as problem:
            t.receipts.keep(problem)
            if problem.status not in (409, 412):
                raise


@pytest.fixture(scope="module")
def played(base: str) -> tuple[Table, list[StreamRecord], Dropping]:
    t = new_table(base)
    dropping = Dropping(after=3000)
    records: list[StreamRecord] = []
    play_to_the_end(t, records, Client(base_url=base, httpx_args={"transport": dropping}))
    return t, records, dropping


def test_follow_resumes_after_a_drop_with_every_event_once(played: tuple[Table, list[StreamRecord], Dropping]) -> None:
    t, records, dropping = played
    assert dropping.drops == 1
    seqs = [r.seq for r in records]
    assert seqs == list(range(1, len(seqs) + 1)), "every event once, in order"
    assert isinstance(records[-1].event, EventGameEnded)
    assert ok(get_state.sync_detailed(t.game, client=t.player)).version == seqs[-1]


def test_table_rides_on_the_newest_event(played: tuple[Table, list[StreamRecord], Dropping]) -> None:
    _, records, _ = played
    tables = [r for r in records if r.table is not None]
    assert tables, "a stream opened with table=true carries the table"
    assert all(r.table is not None and r.table.version == r.seq for r in tables)
    assert records[-1].table is not None, "the newest event carries the table"


def test_receipts_are_written_and_verified(played: tuple[Table, list[StreamRecord], Dropping], binary: str) -> None:
    t, _, _ = played
    assert len(t.receipts) > 3
    said = t.receipts.verify(t.anonymous, t.game, {t.seat: [t.signer.public_key]}, binary=binary, statements=t.signer.kept)
    assert f"every act of seat {t.seat} is signed by the key" in said
    # The refused pass, kept with its body and statement, is decided again: rightly refused.
    assert f"of seat {t.seat}'s signed command was right: the rules refuse it too" in said
    # The standalone verifier, built from the verifier crate alone (beside the server's binary),
    # checks the same receipts of the sealed chain (record version 6 on), without a subcommand.
    alone = Path(binary).with_name("saboteur-verify")
    assert alone.exists(), f"{alone}: the standalone verifier is built beside the server"
    said = t.receipts.verify(t.anonymous, t.game, {t.seat: [t.signer.public_key]}, binary=str(alone))
    assert f"every act of seat {t.seat} is signed by the key" in said


def test_a_seat_checks_its_own_cards_against_the_chain(table: Table) -> None:
    """Record version 6 on: the events served to a seat carry the openings of its own hidden
    values (its hand, what it drew), which the SDK checks; a value the chain does not commit to
    is refused loudly, and nobody else is given a salt."""
    assert ok(get_state.sync_detailed(table.game, client=table.player)).table.record_version == RECORD_VERSION == 7
    url = f"/games/{table.game}/events?after=0&limit=1000"
    mine = table.player.get_httpx_client().get(url).json()["events"]
    opened = sum(check_openings(record) for record in mine)
    assert opened >= 2, "the deal and the draws open to the seat"
    dealt = next(r for r in mine if r["event"]["type"] == "round_started")
    assert sorted(o["path"] for o in dealt["openings"]) == [f"/hands/{table.seat}", f"/roles/{table.seat}"]
    # Another card in the hand than the one committed to: refused, by the stream's parser too.
    dealt["event"]["hands"][table.seat][0] = "map" if dealt["event"]["hands"][table.seat][0] != "map" else "rockfall"
    with pytest.raises(OpeningMismatch):
        check_openings(dealt)
    with pytest.raises(OpeningMismatch):
        parse(json.dumps(dealt))
    theirs = table.anonymous.get_httpx_client().get(url).json()["events"]
    assert not any(r.get("openings") for r in theirs), "a spectator is given no salt"


def test_a_reply_that_commits_to_another_key_is_refused() -> None:
    """A reply to taking a seat rewritten to name another key (the operator's) or another share
    is refused loudly, and the seat is not taken up for signing."""
    signer = Signer("g")
    theirs = Signer("g").public_key
    forged = SimpleNamespace(seat=1, commitment=SimpleNamespace(public_key=theirs, entropy=None))
    with pytest.raises(CommitmentMismatch, match="not the key sent"):
        signer.joined(forged)
    assert signer.seat == 0
    mine = SimpleNamespace(seat=1, commitment=SimpleNamespace(public_key=signer.public_key, entropy="aa" * 32))
    with pytest.raises(CommitmentMismatch, match="not the share sent"):
        signer.joined(mine, entropy="bb" * 32)
    assert signer.joined(mine, entropy="aa" * 32) == 1 == signer.seat


def test_a_share_committed_then_revealed_starts_the_game(base: str) -> None:
    """A seat taken with the commitment to its share: a start waits for it, the host closes the
    lobby, the share revealed (its reply checked) starts the game, and the record mixes the share in
    beside its commitment. A reply naming another share is refused loudly."""
    anonymous = connect(base)
    created = ok(create_game.sync_detailed(client=anonymous, body=CreateGame(ruleset=Ruleset.BASE, players=3)))
    game = created.game_id
    signer, share = Signer(game), Share.new()
    body = JoinGame(
        name="sdk", public_key=signer.public_key, key_proof=signer.key_proof(), share_commitment=share.commitment
    )
    me = ok(join.sync_detailed(game, client=anonymous, body=body))
    assert signer.joined(me, committed=share) == me.seat
    host = connect(base, created.host_token)
    for _ in range(2):
        ok(add_bot.sync_detailed(game, client=host, body=AddBot(level=BotLevel.RANDOM)))
    with pytest.raises(Conflict, match="close the lobby"):
        ok(start_game.sync_detailed(game, client=host))
    closed = ok(close_lobby.sync_detailed(game, client=host))
    assert isinstance(closed, LobbyClosed) and closed.waiting == [me.seat]
    player = connect(base, me.player_token)
    revealed = ok(reveal_share.sync_detailed(game, me.seat, client=player, body=RevealShare(entropy=share.entropy)))
    assert signer.revealed(revealed, share) == [] and revealed.started
    with pytest.raises(CommitmentMismatch):
        signer.revealed(revealed, Share.new())
    page = ok(list_events.sync_detailed(game, client=player, after=0))
    mixed = [e.event.to_dict() for e in page.events if e.event.to_dict().get("type") == "seed_mixed"]
    assert len(mixed) == 1
    assert mixed[0]["committed"] == [{"seat": me.seat, "commitment": share.commitment}]
    assert mixed[0]["contributions"] == [{"seat": me.seat, "entropy": share.entropy}]


def test_an_unknown_event_is_yielded_not_raised() -> None:
    record = parse('{"seq": 7, "event": {"type": "dragon_woke", "seat": 1}}')
    assert record.seq == 7 and record.table is None
    assert isinstance(record.event, UnknownEvent) and record.event.type == "dragon_woke"
    known = parse('{"seq": 8, "event": {"type": "card_drawn", "seat": 0, "card": null}}')
    assert not isinstance(known.event, UnknownEvent)


def test_an_older_client_is_served_newer_event_types_wrapped(base: str) -> None:
    """A client that says it was generated from API 0.10.0 reads a cancelled lobby's events
    with its generated models: `game_cancelled` (0.11.0) comes wrapped as a `NewerEvent`; the
    SDK's own clients (`connect`), of this version, read it as the event."""
    anonymous = connect(base)
    created = ok(create_game.sync_detailed(client=anonymous, body=CreateGame(ruleset=Ruleset.BASE, players=3)))
    host = connect(base, created.host_token)
    ok(cancel_game.sync_detailed(created.game_id, client=host))
    old = AuthenticatedClient(base_url=base, token=created.host_token, headers={"Api-Version": "0.10.0"})
    events = ok(list_events.sync_detailed(created.game_id, client=old)).events
    wrapped = events[-1].event
    assert isinstance(wrapped, NewerEvent), wrapped
    assert (wrapped.event_type, wrapped.since) == ("game_cancelled", "0.11.0")
    assert wrapped.event.additional_properties == {"type": "game_cancelled"}
    assert isinstance(ok(list_events.sync_detailed(created.game_id, client=host)).events[-1].event, EventGameCancelled)
    assert API_VERSION == __version__ or __version__ == "0"
    record = parse('{"seq": 2, "event": {"type": "newer", "event_type": "x", "since": "9.0.0", "event": {"type": "x"}}}')
    assert isinstance(record.event, NewerEvent) and record.event.since == "9.0.0"


def test_one_player_stream_plays_three_games(base: str) -> None:
    """One key in three games, followed on one connection: each started, every turn of the
    key's seat announced once and played, each ended."""
    key = Ed25519PrivateKey.generate()
    anonymous = Client(base_url=base)
    signers: dict[str, Signer] = {}
    players: dict[str, AuthenticatedClient] = {}
    for _ in range(3):
        created = ok(create_game.sync_detailed(client=anonymous, body=CreateGame(ruleset=Ruleset.BASE, players=3)))
        signer = Signer(created.game_id, key=key)
        body = JoinGame(name="many", public_key=signer.public_key, key_proof=signer.key_proof())
        me = ok(join.sync_detailed(created.game_id, client=anonymous, body=body))
        signer.joined(me)
        host = AuthenticatedClient(base_url=base, token=created.host_token)
        for _ in range(2):
            ok(add_bot.sync_detailed(created.game_id, client=host, body=AddBot(level=BotLevel.RANDOM)))
        ok(start_game.sync_detailed(created.game_id, client=host))
        signers[created.game_id] = signer
        players[created.game_id] = AuthenticatedClient(base_url=base, token=me.player_token)
    started: set[str] = set()
    ended: set[str] = set()
    turns = 0
    for notice in follow_player(anonymous, key):
        assert notice.game_id in signers, notice
        if notice.kind == "started":
            started.add(notice.game_id)
        elif notice.kind == "your_turn":
            assert notice.game_id not in ended
            turns += 1
            player, signer = players[notice.game_id], signers[notice.game_id]
            moves = ok(legal_moves.sync_detailed(notice.game_id, client=player))
            try:
                signer.command(player, moves.version, moves.commands[0])
            except PreconditionFailed:
                pass  # the game moved on: the stream says what next
        elif notice.kind == "ended":
            ended.add(notice.game_id)
            if len(ended) == len(signers):
                break
    assert started == ended == set(signers)
    assert turns >= len(signers)


def test_a_key_registered_after_a_reissue_is_proved_from_it(table: Table, base: str) -> None:
    """Record version 7: after the host issues the seat a new token (which drops its key), a key
    is registered with `key_proof_at(version)`, a version read since the reissue; the lobby's
    undated proof, or one dated before the reissue, is refused and changes nothing."""
    from saboteur_client.api.table import reissue_token

    fresh = ok(reissue_token.sync_detailed(table.game, table.seat, client=table.host))
    player = connect(base, fresh.player_token)
    signer = Signer(table.game, table.seat)
    url = f"/games/{table.game}/seats/{table.seat}/key"
    refused: list[dict[str, object]] = [
        {"public_key": signer.public_key, "key_proof": signer.key_proof()},
        {"public_key": signer.public_key, "key_proof": signer.key_proof_at(fresh.version - 1),
         "key_proof_version": fresh.version - 1},
    ]
    for body in refused:
        answer = player.get_httpx_client().put(url, json=body)
        assert (answer.status_code, answer.json()["code"]) == (400, "bad_key_proof")
    assert ok(get_state.sync_detailed(table.game, client=player)).version == fresh.version
    body = {"public_key": signer.public_key, "key_proof": signer.key_proof_at(fresh.version),
            "key_proof_version": fresh.version}
    answer = player.get_httpx_client().put(url, json=body)
    assert answer.status_code == 200, answer.text
    registered = answer.json()["events"][0]["event"]
    assert (registered["type"], registered["key"], registered["at"]) == (
        "seat_key_registered", signer.public_key, fresh.version)
