# A client of the previous release (API 0.12.0), kept as it was: the whole bot docs/clients.md
# gave then, with the wrapper beside it (saboteur_wrap.py) and the spec it was generated from
# (openapi.json). tests/clients/run.sh generates the client from that spec and plays a game
# with it against this server: a minor version must not break it. Do not update these files;
# replace them with the next release's when it is published.
import json
import subprocess

import httpx

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.audit import list_keys
from saboteur_client.api.events import audit_bundle
from saboteur_client.api.games import add_bot, create_game, join, start_game
from saboteur_client.api.play import get_state, legal_moves
from saboteur_client.models import AddBot, BotLevel, CreateGame, EventGameEnded, JoinGame, Outcome, Receipt, Ruleset
from saboteur_wrap import ApiProblem, Signer, check_record, follow, ok, signed

base = "http://127.0.0.1:8080"
anonymous = Client(base_url=base)
keys = ok(list_keys.sync_detailed(client=anonymous))  # the server's keys, from first contact
created = ok(create_game.sync_detailed(client=anonymous, body=CreateGame(ruleset=Ruleset.BASE, players=3)))
game = created.game_id
host = AuthenticatedClient(base_url=base, token=created.host_token)
signer = Signer(game, 0)  # an Ed25519 key: its public key goes with the seat
me = ok(join.sync_detailed(game, client=anonymous,
                           body=JoinGame(name="me", public_key=signer.public_key, key_proof=signer.key_proof())))
signer.seat = me.seat
player = AuthenticatedClient(base_url=base, token=me.player_token)
for _ in range(2):
    ok(add_bot.sync_detailed(game, client=host, body=AddBot(level=BotLevel.RANDOM)))
ok(start_game.sync_detailed(game, client=host))
# A game of a record version this client does not sign is refused before any act.
check_record(ok(get_state.sync_detailed(game, client=player)).table.record_version)

receipts: list[Receipt] = []
last: str | None = None  # the last event seen, for Last-Event-ID
ended = False
while not ended:  # the stream ends after the game's last event; any other end is a drop
    try:
        for record in follow(anonymous.get_httpx_client(), game, me.player_token, last):
            last = str(record.seq)
            ended = isinstance(record.event, EventGameEnded)
            view = ok(get_state.sync_detailed(game, client=player))
            if isinstance(view.receipt, Receipt):
                receipts.append(view.receipt)
            if view.view.phase.awaited != me.seat:
                continue
            moves = ok(legal_moves.sync_detailed(game, client=player))
            try:  # signed: the model's statement; the model sent as httpx writes it
                sent = signed(anonymous.get_httpx_client(), "POST", f"/games/{game}/commands", me.player_token,
                              signer, moves.version, "command", moves.commands[0].to_dict(),
                              {"If-Match": f'"{moves.version}"'})
                outcome = Outcome.from_dict(sent.json())
            except ApiProblem as problem:
                if problem.status not in (409, 412):  # the game moved on: the stream shows how
                    raise
                continue
            if isinstance(outcome.receipt, Receipt):
                receipts.append(outcome.receipt)
    except httpx.TransportError:
        pass  # the connection dropped: resume after `last`

with open("bundle.json", "wb") as f:
    f.write(audit_bundle.sync_detailed(game, client=anonymous).content)
with open("receipts.json", "w") as f:
    json.dump([r.to_dict() for r in receipts], f)
with open("keys.json", "w") as f:
    json.dump(keys.to_dict(), f)
# --player-key: every act of my seat must be signed by my key (give each key you registered)
subprocess.run(["saboteur", "verify", "--file", "bundle.json", "--receipts", "receipts.json",
                "--keys", "keys.json", "--player-key", f"{me.seat}:{signer.public_key}"], check=True)
print(f"game over: {len(receipts)} receipts verified")
