// The live stream of a game's events (`GET /games/{id}/events/stream`), followed to its end.
//
// `follow` reads Server-Sent Events with eventsource-parser over `fetch` (which, unlike
// `EventSource`, sends `Authorization`), resumes with `Last-Event-ID` after a dropped connection
// (every event once, in order), stops after a finished (or cancelled) game's last event, and
// yields each message as a `StreamRecord`. With `table: true` the newest event of each batch
// carries `table`, the caller's `TableRead` at its version: a client reads nothing after the
// news. The stream is asked with `Api-Version`, so an event type a later API version introduced
// comes as a `NewerEvent` (the spec's wrapper, `type: "newer"`); one the server sends unwrapped
// anyway is yielded as an `UnknownEvent`. Neither is an error.
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { components } from "./generated/api.js";
import { API_VERSION, EVENT_TYPES } from "./generated/spec.js";
import type { Api } from "./client.js";
import { checkOpenings } from "./openings.js";
import { ApiProblem, check } from "./problems.js";

type Event = components["schemas"]["Event"];
type NewerEvent = components["schemas"]["NewerEvent"];
type TableRead = components["schemas"]["TableRead"];

/** How long a quiet stream may stay silent, in seconds: the server sends a comment every 5 s,
 * so three missed in a row mean the connection is gone. */
export const READ_TIMEOUT = 15;

/** An event of a type this client does not know: nothing for it to do. `name` is its `type` as
 * sent, `fields` the event as sent. Its own `type` is `"unknown"`, so that a `switch` on
 * `record.event.type` still narrows the events the spec names. */
export class UnknownEvent {
  readonly type = "unknown";
  constructor(readonly name: string, readonly fields: Readonly<Record<string, unknown>>) {}
}

/** One message of the stream, the spec's `StreamRecord`: an `EventRecord` (`seq`, the game's
 * version once the event is applied, and `event`, one the spec names, a `NewerEvent` or an
 * `UnknownEvent`) and,
 * on a stream opened with `table: true`, on the newest event of each batch, `table`: the
 * caller's table at this version (`table.state` its view and receipt, `table.legal` its legal
 * moves). */
export interface StreamRecord {
  readonly seq: number;
  readonly event: Event | NewerEvent | UnknownEvent;
  readonly table?: TableRead;
}

/** The stream kept ending (or dropping) without a new event: the server is gone. */
export class StreamLost extends Error {
  override name = "StreamLost";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A message's `data`, the spec's `StreamRecord` as JSON; an event of a type the spec does not
 * name (nor the `newer` wrapper) becomes an `UnknownEvent` (its table is still read). The
 * openings of the seat's own values are checked first (`checkOpenings`): a value shown that the
 * chain does not commit to throws `OpeningMismatch`. */
export function parseRecord(data: string): StreamRecord {
  const value: unknown = JSON.parse(data);
  if (!isObject(value) || typeof value.seq !== "number" || !isObject(value.event)) {
    throw new SyntaxError(`not a StreamRecord: ${data.slice(0, 200)}`);
  }
  checkOpenings(value);
  const raw = value.event;
  const type = typeof raw.type === "string" ? raw.type : "";
  const event = EVENT_TYPES.has(type)
    ? (raw as unknown as Event)
    : type === "newer"
      ? (raw as unknown as NewerEvent)
      : new UnknownEvent(type, raw);
  const table = isObject(value.table) ? (value.table as unknown as TableRead) : undefined;
  return table === undefined ? { seq: value.seq, event } : { seq: value.seq, event, table };
}

/** Whether `record` is a game's last event: nothing follows it. */
export function endsGame(record: StreamRecord): boolean {
  return record.event.type === "game_ended" || record.event.type === "game_cancelled";
}

export interface FollowOptions {
  /** The token to read the stream with (by default the client's; none: a spectator's). */
  token?: string;
  /** The last event already seen: the stream starts after it (0, the default: from the first). */
  after?: number;
  /** Ask for `table` on the newest event of each batch (`?table=true`). */
  table?: boolean;
  /** How many reconnections in a row without news before `StreamLost` (5 by default). */
  retries?: number;
  /** Seconds of silence after which the connection is taken as lost (`READ_TIMEOUT`). */
  readTimeout?: number;
  /** Ends the stream (the iterator throws the signal's reason). */
  signal?: AbortSignal;
}

/** Every event of `game` after `options.after`, live, as `StreamRecord`s, until the game's last.
 *
 * A dropped connection, or a stream ended before the game's end, is resumed with
 * `Last-Event-ID`: the events come once each, in order. Throws the `ApiProblem` of a refused
 * stream (401 once the token was issued again: follow again with the new one and `after` the
 * last `seq` seen), and `StreamLost` after `retries` reconnections in a row without news. */
export async function* follow(api: Api, game: string, options: FollowOptions = {}): AsyncGenerator<StreamRecord, void, undefined> {
  const url = new URL(`${api.baseUrl}/games/${encodeURIComponent(game)}/events/stream`);
  if (options.table) url.searchParams.set("table", "true");
  const token = options.token ?? api.token;
  const retries = options.retries ?? 5;
  let last = options.after ?? 0;
  let fruitless = 0;
  for (;;) {
    const before = last;
    const headers: Record<string, string> = { Accept: "text/event-stream", "Api-Version": API_VERSION };
    if (token !== undefined) headers.Authorization = `Bearer ${token}`;
    if (last > 0) headers["Last-Event-ID"] = String(last);
    for await (const record of connection(api, url, headers, options, parseRecord)) {
      if (record.seq <= last) continue;
      last = record.seq;
      yield record;
      if (endsGame(record)) return;
    }
    fruitless = last === before ? fruitless + 1 : 0;
    if (fruitless > retries) throw new StreamLost(`the stream of game ${game} ends without news after event ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100 * fruitless));
  }
}

/** One connection's messages, each `data` read by `parse`, until it ends or drops (a drop ends
 * it quietly); a refusal throws its problem. The connection is taken as lost after
 * `readTimeout` seconds without a byte while the caller is not busy with a message. */
export async function* connection<T>(api: Api, url: URL, headers: Record<string, string>,
  options: Pick<FollowOptions, "readTimeout" | "signal">, parse: (data: string) => T): AsyncGenerator<T, void, undefined> {
  const controller = new AbortController();
  const abort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", abort);
  const timeout = (options.readTimeout ?? READ_TIMEOUT) * 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new StreamLost("the stream stayed silent")), timeout);
  };
  try {
    arm();
    const response = await check(await api.fetch(url, { headers, signal: controller.signal }));
    if (response.body === null) return;
    // Every byte (a keep-alive comment too) shows the connection alive.
    const decoder = new TextDecoder();
    const text = new TransformStream<Uint8Array, string>({
      transform(chunk, out) {
        arm();
        out.enqueue(decoder.decode(chunk, { stream: true }));
      },
    });
    const messages = response.body.pipeThrough(text).pipeThrough(new EventSourceParserStream());
    for await (const message of messages) {
      // Keep-alive comments are not messages; an event always has data.
      if (!message.data) continue;
      const record = parse(message.data);
      clearTimeout(timer);
      yield record;
      arm();
    }
  } catch (e) {
    if (options.signal?.aborted || e instanceof ApiProblem || e instanceof SyntaxError) throw e;
    // dropped: the caller resumes after the last event it saw
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
    controller.abort();
  }
}
