// The receipts the server signed, kept to be checked once the game is over (docs/clients.md,
// "Receipts: proving what you were shown").
//
// `Receipts.firstContact(api)` keeps the server's keys (`GET /keys`) before anything else;
// `keep(body)` keeps the receipt of any reply that carries one (a view, an outcome, a table read
// from the stream, a commitment, a refusal's `ApiProblem`); `verify(...)` downloads the audit
// bundle, writes the receipts and keys as `saboteur verify` reads them and runs it.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { components } from "./generated/api.js";
import type { Api } from "./client.js";
import { type Answer, ApiProblem, check, ok } from "./problems.js";

type KeyList = components["schemas"]["KeyList"];
type Receipt = components["schemas"]["Receipt"];

/** The words before the checks' arguments: `verify` for the server's `saboteur`, none for the
 * standalone `saboteur-verify`. */
export function verifySubcommand(binary: string): string[] {
  return basename(binary).startsWith("saboteur-verify") ? [] : ["verify"];
}

/** `saboteur verify` named a discrepancy (or could not run): `output` is what it said. */
export class VerificationFailed extends Error {
  override name = "VerificationFailed";
  constructor(readonly output: string) {
    super(output);
  }
}

/** The keys `verify` gives as `--player-key SEAT:KEY`: for each seat, every key it registered
 * (every act of that seat must be signed by one of them). */
export type PlayerKeys = Readonly<Record<number, readonly string[]>> | Iterable<readonly [number, string]>;

export interface VerifyOptions {
  /** The statements a `Signer` kept (`signer.kept`): each refusal of one is decided again. */
  statements?: readonly unknown[];
  /** The `saboteur` binary (by default `$SABOTEUR_BIN`, or `saboteur` on the `PATH`). */
  binary?: string;
  /** Where the bundle, receipts and keys are written (by default a temporary folder, removed). */
  folder?: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The receipts a reply carries: its own `receipt`; a `StreamRecord`'s or a `TableRead`'s view's;
 * an `ApiProblem`'s (a refusal's). */
export function receiptsIn(body: unknown): Receipt[] {
  if (body instanceof ApiProblem) return body.receipt ? [body.receipt] : [];
  if (!isObject(body)) return [];
  if ("seq" in body && "event" in body) return receiptsIn(body.table);
  if ("state" in body && "legal" in body) return receiptsIn(body.state);
  return isObject(body.receipt) ? [body.receipt as Receipt] : [];
}

/** Every receipt kept (`receipts`, in the order received), the body of each refusal among them
 * (`refusals`, by the receipt's place: what the receipt signs, and why it refused) and every list
 * of the server's keys read (`keys`, the first from first contact). */
export class Receipts {
  readonly receipts: Receipt[] = [];
  readonly refusals = new Map<number, Readonly<Record<string, unknown>>>();
  readonly keys: KeyList[];

  constructor(keys?: KeyList) {
    this.keys = keys === undefined ? [] : [keys];
  }

  /** A collection that starts with the server's keys, read now. */
  static async firstContact(api: Api): Promise<Receipts> {
    return new Receipts(await ok(api.GET("/keys")));
  }

  /** Reads `GET /keys` again and keeps the list too (after a key rotation). */
  async readKeys(api: Api): Promise<KeyList> {
    const keys = await ok(api.GET("/keys"));
    this.keys.push(keys);
    return keys;
  }

  /** Keeps the receipt `body` carries, if any, and gives `body` back: a reply (`StateView`,
   * `Outcome`, `GameCreated`, `Joined`, `KeyKept`, …), a `TableRead`, a `StreamRecord` (its
   * table's view) or an `ApiProblem` (a refusal's). */
  keep<T>(body: T): T {
    for (const receipt of receiptsIn(body)) {
      if (body instanceof ApiProblem && body.body !== null) this.refusals.set(this.receipts.length, body.body);
      this.receipts.push(receipt);
    }
    return body;
  }

  /** `ok(call)`, keeping the receipt of the body, or of the problem thrown. */
  async ok<D>(call: Promise<Answer<D>> | Answer<D>): Promise<D> {
    try {
      return this.keep(await ok(call));
    } catch (e) {
      this.keep(e);
      throw e;
    }
  }

  get length(): number {
    return this.receipts.length;
  }

  /** Writes `receipts.json` (a refusal with its body), `keys.json` (`keys-2.json`, … for each
   * list read later) and the `statements` a `Signer` kept (`statements.json`) into `folder`;
   * returns the arguments that give them to `saboteur verify`. */
  write(folder: string, statements: readonly unknown[] = []): string[] {
    mkdirSync(folder, { recursive: true });
    const kept = this.receipts.map((r, i) => this.refusals.get(i) ?? r);
    writeFileSync(join(folder, "receipts.json"), JSON.stringify(kept));
    const args = ["--receipts", join(folder, "receipts.json")];
    if (statements.length > 0) {
      writeFileSync(join(folder, "statements.json"), JSON.stringify(statements));
      args.push("--statements", join(folder, "statements.json"));
    }
    this.keys.forEach((keys, i) => {
      const path = join(folder, i === 0 ? "keys.json" : `keys-${i + 1}.json`);
      writeFileSync(path, JSON.stringify(keys));
      args.push("--keys", path);
    });
    return args;
  }

  /** Checks every receipt kept against the finished game's audit bundle with `saboteur verify`
   * (or the standalone `saboteur-verify`, built from the verifier alone: `options.binary`),
   * with `--player-key SEAT:KEY` for each key given. Resolves to what it said; throws
   * `VerificationFailed` when it names a discrepancy (or cannot run). */
  async verify(api: Api, game: string, playerKeys: PlayerKeys = [], options: VerifyOptions = {}): Promise<string> {
    const pairs: (readonly [number, string])[] = Symbol.iterator in playerKeys
      ? [...(playerKeys as Iterable<readonly [number, string]>)]
      : Object.entries(playerKeys as Record<number, readonly string[]>)
        .flatMap(([seat, keys]) => keys.map((key) => [Number(seat), key] as const));
    const url = `${api.baseUrl}/games/${encodeURIComponent(game)}/audit`;
    const headers: Record<string, string> = api.token === undefined ? {} : { Authorization: `Bearer ${api.token}` };
    const bundle = await (await check(await api.fetch(url, { headers }))).text();
    const folder = options.folder ?? mkdtempSync(join(tmpdir(), "saboteur-receipts-"));
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "bundle.json"), bundle);
      const binary = options.binary ?? process.env.SABOTEUR_BIN ?? "saboteur";
      const args = [...verifySubcommand(binary), "--file", join(folder, "bundle.json"), ...this.write(folder, options.statements)];
      for (const [seat, key] of pairs) args.push("--player-key", `${seat}:${key}`);
      return await new Promise<string>((resolve, reject) => {
        execFile(binary, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
          if (error === null) resolve(stdout);
          else reject(new VerificationFailed(stdout + stderr || `${binary}: ${error.message}`));
        });
      });
    } finally {
      if (options.folder === undefined) rmSync(folder, { recursive: true, force: true });
    }
  }
}
