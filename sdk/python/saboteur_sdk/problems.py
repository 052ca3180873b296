"""Every answer that is not a success, as a typed exception.

`ok(response)` gives a generated call's success body, or raises the `ApiProblem` subclass of
its status (and, for a few stable codes a bot handles, of its code). A code this client does not
know yet (a minor version may add codes) is raised as its status's class: handle problems by
class or status first, and by `code` only where it matters.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import TypeVar

import httpx

from saboteur_client.models import Problem, ProblemCode, Receipt
from saboteur_client.types import Response

T = TypeVar("T")


class ApiProblem(Exception):
    """An RFC 9457 problem the server answered with: `status`, `code` (a plain string; compare
    it with `ProblemCode`, or read `known_code`), `detail` (for people), the response's
    `headers`, `retry_after` (seconds, from `Retry-After`, on 429 and 503) and `receipt`, the
    server's signed receipt of a refusal when the problem carries one (keep it with the
    others: `Receipts.keep(problem)`), and `body`, the problem as served (what the receipt
    signs, and what `verify --statements` reads to judge the refusal)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        headers: Mapping[str, str] | None = None,
        receipt: Receipt | None = None,
        title: str = "",
        body: Mapping[str, object] | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {detail}")
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title
        self.headers: Mapping[str, str] = headers if headers is not None else {}
        self.receipt = receipt
        self.body = body

    @property
    def known_code(self) -> ProblemCode | None:
        """The code as the spec this client was generated from lists it; `None` for a newer one."""
        try:
            return ProblemCode(self.code)
        except ValueError:
            return None

    @property
    def retry_after(self) -> float | None:
        """How long to wait before sending again, in seconds (`Retry-After` as seconds or as a
        date); `None` without the header."""
        value = self.headers.get("retry-after")
        if value is None:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


class BadRequest(ApiProblem):
    """400: the request is malformed (`bad_request`, `bad_key`, `bad_text`, …)."""


class Unauthorized(ApiProblem):
    """401: no token, a token the game does not know, or an act's signature missing or bad."""


class SignatureRequired(Unauthorized):
    """401 `signature_required`: the seat has a key and the act was not signed."""


class BadSignature(Unauthorized):
    """401 `bad_signature`: the signature does not verify; `detail` spells the statement
    expected."""


class Forbidden(ApiProblem):
    """403: the token may not do this."""


class NotFound(ApiProblem):
    """404: no such game, seat or message."""


class Conflict(ApiProblem):
    """409: another act was recorded first (`conflict`), or the request does not fit the game's
    status (`not_started`, `game_over`, `undo_pending`, …). Read the game again."""


class PreconditionFailed(ApiProblem):
    """412 `precondition_failed`: the act was chosen (or signed) at a version that no longer
    holds. Read the state again and decide again."""


class TooLarge(ApiProblem):
    """413 `too_large`: a body over 64 KiB."""


class RuleViolation(ApiProblem):
    """422: the command breaks a rule (`not_your_turn`, `edges_mismatch`, …)."""


class IdempotencyKeyReused(RuleViolation):
    """422 `idempotency_key_reused`: the same `Idempotency-Key` with another request."""


class TooManyRequests(ApiProblem):
    """429 `too_many_requests`: wait `retry_after` seconds."""


class ServerError(ApiProblem):
    """5xx: the server's fault (`internal`)."""


class Unavailable(ServerError):
    """503 `unavailable` (the database) or `busy` (too many streams): wait `retry_after`."""


BY_STATUS: dict[int, type[ApiProblem]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    412: PreconditionFailed,
    413: TooLarge,
    422: RuleViolation,
    429: TooManyRequests,
    503: Unavailable,
}
"""The class of each status a problem comes with; another 5xx is `ServerError`, any other
status `ApiProblem`."""

BY_CODE: dict[str, type[ApiProblem]] = {
    ProblemCode.SIGNATURE_REQUIRED.value: SignatureRequired,
    ProblemCode.BAD_SIGNATURE.value: BadSignature,
    ProblemCode.IDEMPOTENCY_KEY_REUSED.value: IdempotencyKeyReused,
}
"""The codes with a class of their own (a subclass of their status's)."""


def problem_class(status: int, code: str) -> type[ApiProblem]:
    """The class a problem of `status` and `code` is raised as."""
    by_status = BY_STATUS.get(status, ServerError if status >= 500 else ApiProblem)
    by_code = BY_CODE.get(code)
    return by_code if by_code is not None and issubclass(by_code, by_status) else by_status


def problem_of(status: int, content: bytes, headers: Mapping[str, str]) -> ApiProblem:
    """The problem an answer that is not a success carries: its `application/problem+json` body
    when it has one, else its text."""
    try:
        body = json.loads(content)
        return from_problem(status, Problem.from_dict(body), headers, body)
    except (ValueError, KeyError, TypeError, AttributeError):
        return problem_class(status, "")(status, "", content.decode(errors="replace"), headers)


def from_problem(
    status: int, problem: Problem, headers: Mapping[str, str], body: Mapping[str, object] | None = None
) -> ApiProblem:
    receipt = problem.receipt if isinstance(problem.receipt, Receipt) else None
    kind = problem_class(status, problem.code)
    return kind(status, problem.code, problem.detail, headers, receipt, problem.title, body)


def check(response: httpx.Response) -> httpx.Response:
    """`response` when it is a success (2xx); raises its problem otherwise."""
    if not 200 <= response.status_code < 300:
        raise problem_of(response.status_code, response.read(), response.headers)
    return response


def ok(response: Response[T | Problem]) -> T:
    """The parsed body of a generated call's success (`sync_detailed`); raises its `ApiProblem`
    otherwise."""
    parsed = response.parsed
    status = int(response.status_code)
    if 200 <= status < 300 and parsed is not None and not isinstance(parsed, Problem):
        return parsed
    if isinstance(parsed, Problem):
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
        raise from_problem(status, parsed, response.headers, body if isinstance(body, dict) else None)
    raise problem_of(status, response.content, response.headers)
