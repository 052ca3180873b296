// Every answer that is not a success, as a typed error.
//
// `ok(call)` gives an openapi-fetch call's success body, or throws the `ApiProblem` subclass of
// its status (and, for a few stable codes a bot handles, of its code). A code this client does
// not know yet (a minor version may add codes) is thrown as its status's class: handle problems
// by class or status first, and by `code` only where it matters.
import type { components } from "./generated/api.js";

type Problem = components["schemas"]["Problem"];
type Receipt = components["schemas"]["Receipt"];
export type ProblemCode = components["schemas"]["ProblemCode"];

/** An RFC 9457 problem the server answered with: `status`, `code` (a plain string: compare it
 * with the spec's `ProblemCode`), `detail` (for people), the response's `headers`, `retryAfter`
 * (seconds, from `Retry-After`, on 429 and 503) and `receipt`, the server's signed receipt of a
 * refusal when the problem carries one (keep it with the others: `receipts.keep(problem)`). */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Headers = new Headers(),
    readonly receipt: Receipt | null = null,
    readonly title: string = "",
    /** The problem as served: what its receipt signs, and what `verify --statements` reads to
     * judge the refusal. */
    readonly body: Readonly<Record<string, unknown>> | null = null,
  ) {
    super(`${status} ${code}: ${detail}`);
    this.name = new.target.name;
  }

  /** How long to wait before sending again, in seconds (`Retry-After` as seconds or as a
   * date); null without the header. */
  get retryAfter(): number | null {
    const value = this.headers.get("retry-after");
    if (value === null) return null;
    const seconds = Number(value);
    if (value.trim() !== "" && Number.isFinite(seconds)) return Math.max(0, seconds);
    const date = Date.parse(value);
    return Number.isNaN(date) ? null : Math.max(0, (date - Date.now()) / 1000);
  }
}

/** 400: the request is malformed (`bad_request`, `bad_key`, `bad_text`, …). */
export class BadRequest extends ApiProblem {}
/** 401: no token, a token the game does not know, or an act's signature missing or bad. */
export class Unauthorized extends ApiProblem {}
/** 401 `signature_required`: the seat has a key and the act was not signed. */
export class SignatureRequired extends Unauthorized {}
/** 401 `bad_signature`: the signature does not verify; `detail` spells the statement expected. */
export class BadSignature extends Unauthorized {}
/** 403: the token may not do this. */
export class Forbidden extends ApiProblem {}
/** 404: no such game, seat or message. */
export class NotFound extends ApiProblem {}
/** 409: another act was recorded first (`conflict`), or the request does not fit the game's
 * status (`not_started`, `game_over`, `undo_pending`, …). Read the game again. */
export class Conflict extends ApiProblem {}
/** 412 `precondition_failed`: the act was chosen (or signed) at a version that no longer holds.
 * Read the state again and decide again. */
export class PreconditionFailed extends ApiProblem {}
/** 413 `too_large`: a body over 64 KiB. */
export class TooLarge extends ApiProblem {}
/** 422: the command breaks a rule (`not_your_turn`, `edges_mismatch`, …). */
export class RuleViolation extends ApiProblem {}
/** 422 `idempotency_key_reused`: the same `Idempotency-Key` with another request. */
export class IdempotencyKeyReused extends RuleViolation {}
/** 429 `too_many_requests`: wait `retryAfter` seconds. */
export class TooManyRequests extends ApiProblem {}
/** 5xx: the server's fault (`internal`). */
export class ServerError extends ApiProblem {}
/** 503 `unavailable` (the database) or `busy` (too many streams): wait `retryAfter`. */
export class Unavailable extends ServerError {}

type ProblemClass = typeof ApiProblem;

/** The class of each status a problem comes with; another 5xx is `ServerError`, any other status
 * `ApiProblem`. */
export const BY_STATUS: Readonly<Record<number, ProblemClass>> = {
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
};

/** The codes with a class of their own (a subclass of their status's). */
export const BY_CODE: Readonly<Partial<Record<ProblemCode, ProblemClass>>> = {
  signature_required: SignatureRequired,
  bad_signature: BadSignature,
  idempotency_key_reused: IdempotencyKeyReused,
};

/** The class a problem of `status` and `code` is thrown as. */
export function problemClass(status: number, code: string): ProblemClass {
  const byStatus = BY_STATUS[status] ?? (status >= 500 ? ServerError : ApiProblem);
  const byCode = (BY_CODE as Record<string, ProblemClass | undefined>)[code];
  return byCode !== undefined && byCode.prototype instanceof byStatus ? byCode : byStatus;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The problem an answer that is not a success carries: its `application/problem+json` body
 * (parsed, or as text) when it has one, else its status text. */
export function problemOf(response: Response, body: unknown): ApiProblem {
  if (isObject(body) && typeof body.code === "string" && typeof body.detail === "string") {
    const problem = body as Partial<Problem> & { code: string; detail: string };
    const receipt = isObject(problem.receipt) ? problem.receipt : null;
    const Class = problemClass(response.status, problem.code);
    return new Class(response.status, problem.code, problem.detail, response.headers, receipt, problem.title ?? "", body);
  }
  const detail = typeof body === "string" && body ? body : response.statusText;
  return new (problemClass(response.status, ""))(response.status, "", detail, response.headers);
}

/** `response` when it is a success (2xx); throws its problem otherwise (its body read). */
export async function check(response: Response): Promise<Response> {
  if (response.ok) return response;
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the detail
  }
  throw problemOf(response, body);
}

/** What an openapi-fetch call resolves to. */
export type Answer<D> = { data?: D; error?: unknown; response: Response };

/** The body of a 2xx answer (undefined for a 204); otherwise throws its `ApiProblem`. Takes the
 * call (a promise) or what it resolved to, when the caller also wants the response (its status,
 * its headers). */
export async function ok<D>(call: Promise<Answer<D>> | Answer<D>): Promise<D> {
  const { data, error, response } = await call;
  if (response.ok) return data as D;
  throw problemOf(response, error);
}
