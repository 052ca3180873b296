// The SDK's tests run against a live server: `SABOTEUR_URL` (its address) and `SABOTEUR_BIN`
// (the `saboteur` binary, for `saboteur verify`).
import { type Api, connect, follow, type LegalMoves, ok, Receipts, Signer } from "../src/index.js";

export const base = process.env.SABOTEUR_URL ?? "http://127.0.0.1:8080";
export const binary = process.env.SABOTEUR_BIN ?? "saboteur";

/** A started base game: one seat held here (signed), two of the server's bots. */
export interface Table {
  anonymous: Api;
  host: Api;
  player: Api;
  game: string;
  seat: number;
  token: string;
  signer: Signer;
  receipts: Receipts;
}

export async function newTable(): Promise<Table> {
  const anonymous = connect(base);
  const receipts = await Receipts.firstContact(anonymous);
  const created = await receipts.ok(anonymous.POST("/games", { body: { ruleset: "base", players: 3 } }));
  const game = created.game_id;
  const path = { params: { path: { id: game } } };
  const signer = new Signer(game);
  const me = await receipts.ok(anonymous.POST("/games/{id}/seats", {
    ...path, body: { name: "sdk", public_key: signer.publicKey, key_proof: signer.keyProof() },
  }));
  signer.joined(me);
  const host = connect(base, created.host_token);
  for (let i = 0; i < 2; i++) await ok(host.POST("/games/{id}/bots", { ...path, body: { level: "random" } }));
  await receipts.ok(host.POST("/games/{id}/start", path));
  const player = connect(base, me.player_token);
  return { anonymous, host, player, game, seat: me.seat, token: me.player_token, signer, receipts };
}

/** Waits (on the stream) until this seat is awaited; its legal moves then. */
export async function awaitedMoves(t: Table): Promise<LegalMoves> {
  for await (const record of follow(t.player, t.game, { table: true })) {
    if (record.table?.state.view.phase.awaited === t.seat) break;
  }
  return ok(t.player.GET("/games/{id}/legal-moves", { params: { path: { id: t.game } } }));
}

/** A `fetch` that cuts the body of the first event stream after `after` bytes, as a lost
 * connection; `drops` counts the cuts. */
export function dropping(after: number): { fetch: typeof fetch; drops: number } {
  const state = { drops: 0, fetch: undefined as unknown as typeof fetch };
  state.fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes("/events/stream") || state.drops > 0 || response.body === null) return response;
    state.drops++;
    const reader = response.body.getReader();
    let sent = 0;
    const cut = new ReadableStream<Uint8Array>({
      async pull(out) {
        const { done, value } = await reader.read();
        if (done) return out.close();
        if (sent + value.length > after) {
          out.enqueue(value.slice(0, after - sent));
          await reader.cancel();
          return out.error(new TypeError("connection cut"));
        }
        sent += value.length;
        out.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(cut, { status: response.status, headers: response.headers });
  };
  return state;
}
