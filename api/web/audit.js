// The audit view (/audit/{id}): the verdict in a sentence, the game move by move with each
// move's check and a link to that moment, the receipts checked, the bundle, receipts and keys
// to download; and what this browser checks itself with what it kept.
import { h, main } from "./dom.js";
import { t } from "./i18n.js";
import { api, keys, receipts, serverKeys, statement, statements, tokens } from "./net.js";
import { eventSentence, movesTakenBack, seatName, shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/** The RFC 8785 form of a flat JSON object of strings and integers (a receipt): keys sorted. @param {Record<string, unknown>} o */
const jcs = (o) =>
  `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`)
    .join(",")}}`;

/** Whether `signature` (hex) is `key`'s (hex) Ed25519 signature of `text`. @param {string} key @param {string} text @param {string} signature */
async function verifies(key, text, signature) {
  try {
    const bytes = (/** @type {string} */ x) => Uint8Array.from(x.match(/../g) ?? [], (b) => parseInt(b, 16));
    const k = await crypto.subtle.importKey("raw", bytes(key), { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, k, bytes(signature), new TextEncoder().encode(text));
  } catch {
    return false;
  }
}

/** The act a player signed for a recorded event (docs/clients.md). @param {string} type */
const signedActOf = (type) =>
  /** @type {Record<string, string>} */ ({
    command_accepted: "command",
    undo_requested: "undo",
    undone: "undo",
    undo_approved: "approve",
    undo_declined: "decline",
    talk_posted: "talk",
    seat_reclaimed: "reclaim",
    seat_key_registered: "key",
  })[type];

/**
 * The checks this browser makes itself with what it kept: the server's keys it kept are still
 * published, every receipt it kept is signed by the server's key, every player's signature in
 * the record verifies under the seat's key, and the key of this browser's seat is its own.
 * @param {string} id
 * @param {import("./net.js").KeptReceipt[]} kept
 * @returns {Promise<{ ok: boolean, lines: string[] }>}
 */
async function checkHere(id, kept) {
  const lines = [];
  let ok = true;
  const bundle = await api(`/games/${id}/audit`);
  /** @type {Map<string, string>} */
  const published = new Map(bundle.keys.map((/** @type {Schemas["PublishedKey"]} */ k) => [k.id, k.public_key]));
  const mine = serverKeys.get();
  for (const k of mine) {
    if (published.get(k.id) !== k.public_key) {
      ok = false;
      lines.push(t("here.withdrawn", { id: k.id, since: k.created_at }));
    }
  }
  let good = 0;
  for (const r of kept.map((x) => /** @type {any} */ (x).receipt ?? x)) {
    const key = published.get(r.key_id) ?? mine.find((k) => k.id === r.key_id)?.public_key;
    const { signature, ...signedPart } = r;
    if (key && (await verifies(key, jcs(signedPart), signature))) good++;
    else {
      ok = false;
      lines.push(t("here.bad_receipt", { version: r.version }));
      break;
    }
  }
  lines.push(t("here.receipts", { good, n: kept.length, keys: mine.length }));
  /** @type {Record<number, string>} */
  const seatKeys = {};
  let signatures = 0;
  // The game's record version says what its players signed (1 when not written).
  const record = bundle.events[0]?.payload?.record_version ?? 1;
  // What each signed undo, vote and reclaim is about (record version 5): the command taken back,
  // the last request, the seat's last hand-over, followed as the log goes.
  /** @type {number | null} */
  let lastRequest = null;
  /** @type {Record<number, number>} */
  const handedAt = {};
  for (const e of bundle.events) {
    const p = e.payload;
    const seat = p.seat ?? p.by;
    if (p.signature) {
      const key = seatKeys[seat];
      const s = p.signature;
      /** @type {unknown} */
      let body;
      try {
        body = s.body ? JSON.parse(s.body) : undefined;
      } catch {
        body = undefined;
      }
      const act = signedActOf(e.event_type);
      const about =
        act === "undo"
          ? p.to_version + 1
          : act === "approve" || act === "decline"
            ? lastRequest
            : act === "reclaim"
              ? (handedAt[seat] ?? null)
              : null;
      const text = statement({ game: id, seat, version: s.version, act, record, about }, body, s.body);
      if (key && (await verifies(key, text, s.signature))) signatures++;
      else {
        ok = false;
        lines.push(t("here.bad_signature", { n: e.seq, seat }));
        break;
      }
    }
    if (e.event_type === "seat_key_registered") seatKeys[p.seat] = p.key;
    if (e.event_type === "token_reissued") delete seatKeys[p.seat];
    if (e.event_type === "undo_requested") lastRequest = e.seq;
    if (e.event_type === "seat_handed_to_bot") handedAt[p.seat] = e.seq;
  }
  lines.push(t("here.signatures", { n: signatures }));
  const me = tokens.get(id);
  if (me.key && me.seat != null) {
    // Every key the record registers for this seat must be one this browser held, except
    // those registered after the host issued the seat a new token (its new holder's).
    const own = me.keys ?? [me.key.public];
    let reissued = false;
    /** @type {string[]} */ const foreign = [];
    /** @type {string[]} */ const afterReissue = [];
    for (const e of bundle.events) {
      if (e.payload.seat !== me.seat) continue;
      if (e.event_type === "token_reissued") reissued = true;
      if (e.event_type !== "seat_key_registered") continue;
      if (own.includes(e.payload.key)) reissued = false;
      else (reissued ? afterReissue : foreign).push(e.payload.key);
    }
    for (const key of foreign) {
      ok = false;
      lines.push(t("here.other_key", { print: await keys.fingerprint(key) }));
    }
    for (const key of afterReissue) lines.push(t("here.reissued_key", { print: await keys.fingerprint(key) }));
    if (!foreign.length && seatKeys[me.seat] === me.key.public)
      lines.push(t("here.own_key", { print: await keys.fingerprint(me.key.public) }));
  }
  return { ok, lines };
}

/** @param {string} id @param {Promise<void>} ready the language loaded */
export async function audit(id, ready) {
  await ready;
  document.title = t("audit.title");
  await serverKeys.keep();
  /** @type {Schemas["GameSummary"]} */
  const summary = await api(`/games/${id}`);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, shownName(s)]));
  const who = (/** @type {number} */ s) => seatName(names, s);
  const code = (/** @type {string} */ x) => h("code", { class: "hex" }, x);
  /** @type {(HTMLElement | null)[]} */
  const kids = [h("h1", {}, t("audit.heading", { id: id.slice(0, 8) }))];
  // The seed and its commitment, each said in one sentence: what a person needs to know of them.
  const secrets = [
    h("p", {}, t("audit.commitment_explained")),
    h("p", {}, `${t("audit.commitment")} `, code(summary.seed_commitment)),
    h("p", {}, t("audit.seed_explained")),
    h("p", {}, `${t("audit.seed")} `, summary.seed ? code(summary.seed) : t("audit.seed_hidden")),
  ];
  // A game's audit opens when it ends: before, its secrets are still secret.
  if (summary.status !== "finished") {
    kids.push(
      h("p", { class: "error", role: "alert" }, t("audit.not_over")),
      h("p", {}, h("a", { href: `/play/${id}` }, t("audit.to_table"))),
      ...secrets,
    );
    main.replaceChildren(...kids.filter((k) => k != null));
    return;
  }
  try {
    /** @type {Schemas["AuditVerdict"]} */
    const v = await api(`/games/${id}/audit/verdict`);
    const kept = receipts.get(id);
    const file = URL.createObjectURL(new Blob([JSON.stringify(kept, null, 1)], { type: "application/json" }));
    const signed = statements.get(id);
    const signedFile = URL.createObjectURL(new Blob([JSON.stringify(signed, null, 1)], { type: "application/json" }));
    // The event a discrepancy names, to see the table at that moment.
    const disputed = Number(/^event (\d+)/.exec(v.discrepancy ?? "")?.[1] ?? 0);
    // The verdict first, in words and large; the evidence for experts folded below.
    kids.push(...verdict(id, v, disputed, who));
    const here = h(
      "section",
      { "aria-label": t("audit.here") },
      h("h2", {}, t("audit.here")),
      h("p", {}, t("audit.checking")),
    );
    kids.push(here);
    kids.push(await account(id, names, v.ok ? null : { seq: disputed, what: v.discrepancy ?? "" }));
    kids.push(
      h(
        "details",
        { class: "experts" },
        h("summary", {}, t("audit.experts")),
        ...secrets,
        h(
          "p",
          {},
          v.log_entry
            ? t("audit.log_entry", {
                n: v.log_entry.seq,
                version: v.log_entry.version,
                head: v.log_entry.head,
                at: v.log_entry.logged_at,
              })
            : t("audit.not_logged"),
        ),
        h("h2", {}, t("audit.keys")),
        h(
          "ul",
          {},
          v.keys.map((k) =>
            h(
              "li",
              {},
              code(k.id),
              ": ",
              code(k.public_key),
              `, ${t(k.retired_at ? "audit.key_retired" : "audit.key_in_use", { since: new Date(k.created_at).toLocaleString(), retired: k.retired_at ? new Date(k.retired_at).toLocaleString() : "" })}`,
            ),
          ),
        ),
        h(
          "p",
          {},
          h("a", { href: `/games/${id}/audit`, download: `saboteur-${id}.json` }, t("audit.download_bundle")),
          " ",
          h("a", { href: file, download: `receipts-${id}.json` }, t("audit.download_receipts", { n: kept.length })),
          signed.length ? " " : null,
          signed.length
            ? h(
                "a",
                { href: signedFile, download: `statements-${id}.json` },
                t("audit.download_statements", { n: signed.length }),
              )
            : null,
        ),
        h(
          "p",
          {},
          `${t("audit.offline")} `,
          h(
            "code",
            {},
            `saboteur verify --file saboteur-${id}.json --receipts receipts-${id}.json${signed.length ? ` --statements statements-${id}.json` : ""}`,
          ),
        ),
        checkReceipts(id, kept),
      ),
    );
    checkHere(id, kept)
      .then(({ ok, lines }) =>
        here.replaceChildren(
          here.firstChild ?? "",
          h(
            "div",
            { role: "status", class: ok ? "" : "error" },
            h(
              "ul",
              {},
              lines.map((l) => h("li", {}, l)),
            ),
          ),
        ),
      )
      .catch((e) => here.replaceChildren(here.firstChild ?? "", h("p", { class: "error" }, e.message)));
  } catch (e) {
    kids.push(h("p", { class: "error", role: "alert" }, /** @type {Error} */ (e).message));
  }
  main.replaceChildren(...kids.filter((k) => k != null));
}

/**
 * The game move by move, as a person reads it: each round's events in words, each with a
 * link to the table at that moment.
 * Each player's move is marked checked (decided again and found legal) up to the event a
 * discrepancy names, which says what is wrong; nothing after it was checked.
 * @param {string} id
 * @param {Record<number, string>} names
 * @param {{ seq: number, what: string } | null} wrong
 */
async function account(id, names, wrong) {
  const bundle = await api(`/games/${id}/audit`);
  await Promise.all(
    bundle.events
      .filter((/** @type {any} */ e) => e.event_type === "seat_key_registered")
      .map((/** @type {any} */ e) => keys.fingerprint(e.payload.key)),
  );
  const back = movesTakenBack(
    bundle.events.map((/** @type {any} */ e) => ({ seq: e.seq, event: { ...e.payload, type: e.event_type } })),
  );
  /** @type {HTMLElement[]} */
  const parts = [];
  /** @type {HTMLElement} */
  let list = h("ol", {});
  parts.push(h("h3", {}, t("audit.before_deal")), list);
  for (const e of bundle.events) {
    const ev = e.payload;
    if (e.event_type === "round_started") {
      list = h("ol", { start: e.seq });
      parts.push(h("h3", {}, t("audit.round", { n: ev.round })), list);
    }
    if (e.event_type === "card_drawn") continue;
    const checked =
      wrong?.seq && e.seq >= wrong.seq
        ? e.seq === wrong.seq
          ? h("strong", { class: "error" }, ` ✗ ${wrong.what.replace(/^event \d+: /, "")}`)
          : ` ${t("audit.not_checked")}`
        : e.event_type === "command_accepted"
          ? h("span", { class: "legal", title: t("audit.legal_title") }, ` ✓ ${t("audit.legal")}`)
          : "";
    list.append(
      h(
        "li",
        { value: e.seq, class: wrong?.seq === e.seq ? "disputed" : null },
        eventSentence({ seq: e.seq, event: ev }, names, back),
        checked,
        ev.at && typeof ev.at === "number" ? ` ${t("audit.at", { time: new Date(ev.at).toLocaleTimeString() })}` : "",
        " ",
        h(
          "a",
          { href: `/replay/${id}?v=${e.seq}&as=everyone`, "aria-label": t("audit.see_label", { n: e.seq }) },
          t("audit.see"),
        ),
      ),
    );
  }
  return h(
    "section",
    { "aria-label": t("audit.account"), class: "account" },
    h("h2", {}, t("audit.account")),
    h("p", {}, t("audit.account_intro")),
    ...parts,
  );
}

/**
 * The verdict in words: the record verified (what was checked, and who won), or the first
 * discrepancy, with a link to the table just before the event it names (`disputed`).
 * @param {string} id @param {Schemas["AuditVerdict"]} v @param {number} disputed @param {(seat: number) => string} who
 */
function verdict(id, v, disputed, who) {
  // (The report is there whenever the record verified: it is read only then.)
  const report = /** @type {Schemas["Verified"]} */ (v.report);
  return [
    h(
      "p",
      { role: "status", class: v.ok ? "verdict" : "verdict error" },
      v.ok
        ? t("audit.verified", {
            events: v.events,
            commands: report.commands_checked,
            deals: report.deals_checked,
            signatures: report.signatures_checked ?? 0,
          })
        : t("audit.discrepancy", { what: v.discrepancy ?? "" }),
    ),
    v.ok ? h("p", {}, t("audit.plain")) : null,
    disputed
      ? h(
          "p",
          {},
          h(
            "a",
            { href: `/replay/${id}?v=${Math.max(1, disputed - 1)}&as=everyone` },
            t("audit.see_before", { n: disputed }),
          ),
        )
      : null,
    v.ok
      ? h(
          "p",
          {},
          t("audit.winners", {
            winners: report.winners.map(who).join(", ") || t("word.nobody"),
            gold: report.gold.map((g, i) => `${who(i)} ${g}`).join(", "),
          }),
        )
      : null,
  ];
}

/**
 * A form that checks receipts (kept by this browser, or pasted) against the game's record.
 * @param {string} id @param {import("./net.js").KeptReceipt[]} kept
 */
function checkReceipts(id, kept) {
  const area = h("textarea", { id: "receipts", rows: 6, cols: 80, placeholder: '[{ "kind": "view", … }]' });
  const out = h("p", { role: "status", "aria-live": "polite" });
  /** Checks receipts, each as served or as kept in a file (`{ "receipt": … }`). @param {Record<string, unknown>[]} list */
  const check = async (list) => {
    out.textContent = t("audit.checking");
    let count = 0;
    try {
      // The server reads at most 64 KiB a request: a few dozen receipts at a time.
      for (let i = 0; i < list.length; i += 50) {
        /** @type {Schemas["ReceiptsVerdict"]} */
        const r = await api(`/games/${id}/audit/receipts`, {
          method: "POST",
          body: list.slice(i, i + 50).map((x) => x.receipt ?? x),
        });
        if (!r.ok) {
          out.textContent = r.contradiction
            ? t("audit.contradiction", { what: r.contradiction })
            : t("audit.refused", { what: r.refused ?? "" });
          out.className = "error";
          return;
        }
        count += r.checked?.receipts ?? 0;
      }
      out.className = "";
      out.textContent = t("audit.receipts_agree", { n: count });
    } catch (e) {
      out.className = "error";
      out.textContent = /** @type {Error} */ (e).message;
    }
  };
  return h(
    "section",
    { "aria-label": t("audit.receipts") },
    h("h2", {}, t("audit.receipts")),
    h("p", {}, h("button", { type: "button", onclick: () => check(kept) }, t("audit.check_kept", { n: kept.length }))),
    h(
      "p",
      {},
      h("label", { for: "receipts" }, t("audit.paste")),
      h("br"),
      area,
      h("br"),
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            try {
              check(JSON.parse(area.value || "[]"));
            } catch (e) {
              out.className = "error";
              out.textContent = /** @type {Error} */ (e).message;
            }
          },
        },
        t("audit.check_pasted"),
      ),
    ),
    out,
  );
}
