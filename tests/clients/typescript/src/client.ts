// A thin layer over the client openapi-fetch makes from the generated types: every call gives
// the success body or throws `ApiProblem`, and the live stream is read with eventsource-parser.
//
//   const view = await ok(api.GET("/games/{id}/state", { params: { path: { id } } }));
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { components } from "../generated/api.js";

export type EventRecord = components["schemas"]["EventRecord"];

/** An RFC 9457 problem the server answered with. `code` is a string: codes this client does not
 * know yet (the spec's `ProblemCode` lists today's) are kept as they are. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfter: string | null,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

/** The body of a 2xx answer; otherwise throws `ApiProblem`. */
export async function ok<D>(call: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  const problem = (error ?? {}) as Partial<components["schemas"]["Problem"]>;
  throw new ApiProblem(response.status, problem.code ?? "", problem.detail ?? response.statusText, response.headers.get("retry-after"));
}

/** The game's events, live (`GET /games/{id}/events/stream`), from after `lastEventId`. Ends when
 * the server ends the stream (the game is over, or the token was issued again) or `signal`
 * aborts. */
export async function* follow(base: string, game: string, token: string | undefined, lastEventId: string | undefined, signal?: AbortSignal): AsyncGenerator<EventRecord> {
  const headers: Record<string, string> = { Accept: "text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (lastEventId) headers["Last-Event-ID"] = lastEventId;
  const response = await fetch(`${base}/games/${game}/events/stream`, { headers, signal });
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => ({}))) as Partial<components["schemas"]["Problem"]>;
    throw new ApiProblem(response.status, problem.code ?? "", problem.detail ?? "", response.headers.get("retry-after"));
  }
  const messages = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  for await (const message of messages) {
    if (message.data) yield JSON.parse(message.data) as EventRecord;
  }
}
