// The client every module of the SDK takes: an openapi-fetch client that knows its address,
// its token and its `fetch` (made by `connect`, in index.ts).
import type { Client } from "openapi-fetch";
import type { paths } from "./generated/api.js";

/** An openapi-fetch client of the API, typed from the spec, that knows its address, the token it
 * sends (a player's or the host's; none for a spectator) and the `fetch` it calls: the SDK's
 * signed acts, stream and audit downloads go the same way. */
export type Api = Client<paths> & {
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly fetch: typeof globalThis.fetch;
};
