"""A seat's own hidden values checked against the game's chain while the game runs.

In a game of record version 6 on the chain hashes each event sealed: every value some audience
may not see stands in it as a commitment (docs/threat-model.md, "What each public value
reveals"). An event served to a seat carries `openings`: for each value of it that the seat
sees and others do not, its place (a JSON pointer), the commitment the chain holds and its
salt. `check_openings` recomputes each commitment from the value the seat was shown and
refuses a mismatch; `follow` calls it on every event it yields.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any


class OpeningMismatch(Exception):
    """The server showed a seat a value that is not the one its chain commits to."""


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(8, "big") + data


def canonical(value: Any) -> bytes:
    """A JSON value's canonical bytes, as the chain hashes them: compact, keys sorted."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()


def commitment(salt: bytes, value: Any) -> str:
    """The commitment to `value` under `salt`: hex SHA-256 of `saboteur commitment v1`, the
    salt and the value's canonical JSON, each length-prefixed (8 bytes, big-endian)."""
    return hashlib.sha256(_field(b"saboteur commitment v1") + _field(salt) + _field(canonical(value))).hexdigest()


def _at(value: Any, pointer: str) -> Any:
    """The value at an RFC 6901 JSON pointer."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def check_openings(record: Mapping[str, Any]) -> int:
    """Checks every opening of an event record as served (`EventRecord` or `StreamRecord` JSON):
    each commitment must open, with its salt, to the value the event shows at its place. Returns
    how many were checked; raises `OpeningMismatch` naming the first that does not."""
    event = record.get("event")
    openings = record.get("openings") or []
    for opening in openings:
        path, salt = opening["path"], opening.get("salt")
        if salt is None:
            continue
        try:
            shown = _at(event, path)
        except (KeyError, IndexError, ValueError, TypeError) as missing:
            raise OpeningMismatch(f"event {record.get('seq')}: no value at {path}") from missing
        if commitment(bytes.fromhex(salt), shown) != opening["commitment"]:
            raise OpeningMismatch(
                f"event {record.get('seq')}: the value shown at {path} is not the one the game's chain commits to"
            )
    return len(openings)
