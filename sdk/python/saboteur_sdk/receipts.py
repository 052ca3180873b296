"""The receipts the server signed, kept to be checked once the game is over
(docs/clients.md, "Receipts: proving what you were shown").

`Receipts.first_contact(client)` keeps the server's keys (`GET /keys`) before anything else;
`keep(body)` keeps the receipt of any reply that carries one (a view, an outcome, a table read
from the stream, a commitment, a refusal's `ApiProblem`); `verify(...)` downloads the audit
bundle, writes the receipts and keys as `saboteur verify` reads them and runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from saboteur_client import AuthenticatedClient, Client
from saboteur_client.api.audit import list_keys
from saboteur_client.api.events import audit_bundle
from saboteur_client.models import KeyList, Problem, Receipt, TableRead
from saboteur_client.types import Response

from .problems import ApiProblem, ok
from .stream import StreamRecord

T = TypeVar("T")


class VerificationFailed(Exception):
    """`saboteur verify` named a discrepancy (or could not run): `output` is what it said."""

    def __init__(self, output: str) -> None:
        super().__init__(output)
        self.output = output


class Receipts:
    """Every receipt kept (`receipts`, in the order received), the body of each refusal among
    them (`refusals`, by the receipt's place: what the receipt signs, and why it refused) and
    every list of the server's keys read (`keys`, the first from first contact)."""

    def __init__(self, keys: KeyList | None = None) -> None:
        self.receipts: list[Receipt] = []
        self.refusals: dict[int, Mapping[str, object]] = {}
        self.keys: list[KeyList] = [] if keys is None else [keys]

    @classmethod
    def first_contact(cls, client: Client | AuthenticatedClient) -> Receipts:
        """A collection that starts with the server's keys, read now."""
        return cls(ok(list_keys.sync_detailed(client=client)))

    def read_keys(self, client: Client | AuthenticatedClient) -> KeyList:
        """Reads `GET /keys` again and keeps the list too (after a key rotation)."""
        keys = ok(list_keys.sync_detailed(client=client))
        self.keys.append(keys)
        return keys

    def keep(self, body: T) -> T:
        """Keeps the receipt `body` carries, if any, and gives `body` back: a generated reply
        (`StateView`, `Outcome`, `GameCreated`, `Joined`, `KeyKept`, …), a `TableRead`, a
        `StreamRecord` (its table's view), an `ApiProblem` or a `Problem` (a refusal's)."""
        for receipt in receipts_in(body):
            if isinstance(body, ApiProblem) and body.body is not None:
                self.refusals[len(self.receipts)] = body.body
            self.receipts.append(receipt)
        return body

    def ok(self, response: Response[T | Problem]) -> T:
        """`ok(response)`, keeping the receipt of the body, or of the problem raised."""
        try:
            return self.keep(ok(response))
        except ApiProblem as problem:
            self.keep(problem)
            raise

    def __len__(self) -> int:
        return len(self.receipts)

    def write(
        self, folder: str | os.PathLike[str], statements: Sequence[Mapping[str, object]] = ()
    ) -> list[str]:
        """Writes `receipts.json` (a refusal with its body), `keys.json` (`keys-2.json`, … for
        each list read later) and the `statements` a `Signer` kept (`statements.json`) into
        `folder`; returns the arguments that give them to `saboteur verify`."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        kept = [self.refusals.get(i, r.to_dict()) for i, r in enumerate(self.receipts)]
        (out / "receipts.json").write_text(json.dumps(kept))
        args = ["--receipts", str(out / "receipts.json")]
        if statements:
            (out / "statements.json").write_text(json.dumps(list(statements)))
            args += ["--statements", str(out / "statements.json")]
        for i, keys in enumerate(self.keys, start=1):
            path = out / ("keys.json" if i == 1 else f"keys-{i}.json")
            path.write_text(json.dumps(keys.to_dict()))
            args += ["--keys", str(path)]
        return args

    def verify(
        self,
        client: Client | AuthenticatedClient,
        game: str,
        player_keys: Mapping[int, Sequence[str]] | Iterable[tuple[int, str]] = (),
        *,
        binary: str | None = None,
        folder: str | os.PathLike[str] | None = None,
        statements: Sequence[Mapping[str, object]] = (),
    ) -> str:
        """Checks every receipt kept against the finished game's audit bundle with `saboteur
        verify` (`binary`, by default `$SABOTEUR_BIN` or `saboteur` on the `PATH`; the
        standalone `saboteur-verify`, built from the verifier alone, serves as well), with
        `--player-key SEAT:KEY` for each key given (every act of that seat must be signed by
        one of them), and the `statements` a `Signer` kept (`signer.kept`: each refusal of one
        is decided again). Writes into `folder` (a temporary one by default). Returns what it said;
        raises `VerificationFailed` when it names a discrepancy."""
        pairs = (
            [(seat, key) for seat, keys in player_keys.items() for key in keys]
            if isinstance(player_keys, Mapping)
            else list(player_keys)
        )
        bundle = audit_bundle.sync_detailed(game, client=client)
        ok(bundle)
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(folder if folder is not None else scratch)
            out.mkdir(parents=True, exist_ok=True)
            (out / "bundle.json").write_bytes(bundle.content)
            program = binary or os.environ.get("SABOTEUR_BIN", "saboteur")
            command = [program, *verify_subcommand(program), "--file", str(out / "bundle.json"), *self.write(out, statements)]
            for seat, key in pairs:
                command += ["--player-key", f"{seat}:{key}"]
            try:
                done = subprocess.run(command, capture_output=True, text=True)
            except OSError as error:
                raise VerificationFailed(f"{command[0]}: {error}") from error
        if done.returncode != 0:
            raise VerificationFailed(done.stdout + done.stderr)
        return done.stdout


def verify_subcommand(program: str) -> list[str]:
    """The words before the checks' arguments: `verify` for the server's `saboteur`, none for the
    standalone `saboteur-verify`."""
    return [] if Path(program).name.startswith("saboteur-verify") else ["verify"]


def receipts_in(body: object) -> list[Receipt]:
    """The receipts a reply carries."""
    if isinstance(body, StreamRecord):
        return [] if body.table is None else receipts_in(body.table)
    if isinstance(body, TableRead):
        return receipts_in(body.state)
    receipt = getattr(body, "receipt", None)
    return [receipt] if isinstance(receipt, Receipt) else []
