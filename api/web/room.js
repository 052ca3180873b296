// The host's and the waiting room's parts of the table (/play/{id}): before the start, the seats
// taken, joining or taking back one's seat of a rematch, leaving, and the host's invites, bots and
// start (with the players' shares committed to, the lobby closed first for them to be revealed,
// shares.js); while the game runs, the host's panel.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api, choices, takeSeat, tokens } from "./net.js";
import { levelPicker } from "./parts.js";
import { closedLine, revealShare, startAgain } from "./shares.js";
import { seatName, shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/**
 * The waiting room: what it is drawn from and acts on.
 * @typedef {{ id: string, s: Schemas["GameSummary"], mine: Record<string, any>, refresh: () => unknown, say: (message: string) => void }} Room
 * the game, what this browser holds of it (token, seat, key, host token), a redraw after a
 * write, and the message to show (an error, or "" once a write went through)
 */

/**
 * The waiting room's parts, under the table's heading: the seats taken; once the host closed
 * the lobby, until when the players' shares are awaited (this browser's revealed, the host's
 * start sent again when their time is up); a seat of the rematch to take back, or the form to
 * join; leaving; the host's part.
 * @param {Room} room
 * @returns {HTMLElement[]}
 */
export function waitingRoom(room) {
  const { s, mine } = room;
  // No seat is taken or given back once the lobby is closed.
  const open = !s.reveal_by;
  revealShare(room);
  startAgain(room);
  /** @type {HTMLElement[]} */
  const parts = [];
  parts.push(
    h(
      "p",
      {},
      t("table.seats", {
        n: s.seats.length,
        of: s.players,
        names: s.seats.map((x) => shownName(x) + (x.reserved ? ` ${t("table.not_back")}` : "")).join(", "),
      }),
    ),
  );
  const closed = closedLine(s);
  if (closed) parts.push(closed);
  const before = s.previous ? tokens.get(s.previous) : {};
  const mySeat = s.seats.find((x) => x.seat === before.seat && x.reserved);
  if (open && !mine.token)
    parts.push(mySeat && before.token ? takeBack(room, mySeat.seat, before.token) : joinForm(room));
  // A seated player may name the seat anew (a guest invited as "Guest") or leave before the
  // start (each a signed act once the seat has a key).
  if (mine.token && mine.seat != null) parts.push(nameForm(room, mine.seat));
  if (mine.token && mine.seat != null && open) {
    const move = placeForm(room, mine.seat);
    if (move) parts.push(move);
    parts.push(leave(room, mine.seat));
  }
  if (mine.host) parts.push(...hostRoom(room));
  return parts;
}

/** The form to take a seat, under a name, with this browser's key. @param {Room} room */
function joinForm({ id, mine, refresh, say }) {
  const join = h(
    "form",
    {},
    h(
      "label",
      {},
      `${t("lobby.name")} `,
      h("input", { name: "name", value: choices.get().name || t("lobby.default_name") }),
    ),
    " ",
    h("button", { type: "submit" }, t("table.join")),
  );
  join.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const name = String(new FormData(/** @type {HTMLFormElement} */ (join)).get("name") ?? "");
      if (name) choices.set({ name });
      Object.assign(mine, await takeSeat(id, `/games/${id}/seats`, { name }));
      refresh();
    } catch (e) {
      say(/** @type {Error} */ (e).message);
      refresh();
    }
  });
  return join;
}

/**
 * A seat of the game this one is a rematch of, held for this browser: taken back with the old
 * token and a new key. @param {Room} room @param {number} seat @param {string} token the old game's
 */
function takeBack({ id, mine, refresh, say }, seat, token) {
  return h(
    "p",
    {},
    `${t("table.rematch_yours")} `,
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            Object.assign(mine, await takeSeat(id, `/games/${id}/seats/${seat}/claim`, {}, token));
            say("");
          } catch (e) {
            say(/** @type {Error} */ (e).message);
          }
          refresh();
        },
      },
      t("table.take_seat"),
    ),
  );
}

/**
 * The reader's name at their seat, to change before the start: a guest invited under the host's
 * word for them says who they are. @param {Room} room @param {number} seat
 */
function nameForm({ id, s, mine, refresh, say }, seat) {
  const now = s.seats.find((x) => x.seat === seat)?.name ?? "";
  const field = h("input", { type: "text", maxlength: 40, value: now, autocomplete: "nickname" });
  const save = h("button", { type: "submit" }, t("table.rename"));
  return h(
    "form",
    {
      class: "rename",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const name = /** @type {HTMLInputElement} */ (field).value.trim();
        if (!name || name === now) return;
        try {
          await lobbyAct({ id, s, mine }, seat, "name", `/games/${id}/seats/${seat}/name`, {
            method: "PUT",
            body: { name },
          });
          say("");
        } catch (err) {
          say(/** @type {Error} */ (err).message);
        }
        refresh();
      },
    },
    h("label", {}, `${t("table.your_name")} `, field),
    " ",
    save,
  );
}

/**
 * The reader's place in the order of play, to change for a free one while the lobby is open
 * (friends choose where they sit); none when no place is free. @param {Room} room
 * @param {number} seat
 */
function placeForm({ id, s, mine, refresh, say }, seat) {
  const taken = new Set(s.seats.map((x) => x.seat));
  const free = [...Array(s.players).keys()].filter((n) => !taken.has(n));
  if (!free.length) return null;
  const places = [seat, ...free].sort((a, b) => a - b);
  const field = h(
    "select",
    { name: "place" },
    places.map((n) => h("option", { value: n, selected: n === seat }, String(n + 1))),
  );
  return h(
    "form",
    {
      class: "place",
      onsubmit: async (/** @type {SubmitEvent} */ e) => {
        e.preventDefault();
        const to = Number(/** @type {HTMLSelectElement} */ (field).value);
        if (to === seat) return;
        try {
          /** @type {Schemas["SeatMoved"]} */
          const moved = await lobbyAct({ id, s, mine }, seat, "sit", `/games/${id}/seats/${seat}/move`, {
            method: "POST",
            body: { to },
          });
          tokens.set(id, { seat: moved.seat });
          mine.seat = moved.seat;
          // The new seat's commitment names the key and the share the first one did, or it is
          // not kept (the first stays, to show the mismatch).
          const was = tokens.get(id).commitment;
          const c = moved.commitment;
          const same = /** @type {const} */ (["public_key", "share_commitment", "entropy"]).every(
            (k) => (c[k] ?? null) === (was?.[k] ?? null),
          );
          if (was && !same) throw new Error(t("join.commitment_mismatch"));
          tokens.set(id, { commitment: c, commitmentReceipt: moved.receipt });
          say("");
        } catch (err) {
          say(/** @type {Error} */ (err).message);
        }
        refresh();
      },
    },
    h("label", {}, `${t("table.your_place", { of: s.players })} `, field),
    " ",
    h("button", { type: "submit" }, t("table.move_seat")),
  );
}

/**
 * A seat's act before the start, signed at the lobby's version (docs/clients.md): when the lobby
 * moved on between the page's reading and the click (a seat taken, a name changed: 412), the
 * same act is signed once more at the lobby's version read anew.
 * @param {Pick<Room, "id" | "s" | "mine">} room @param {number} seat @param {string} act
 * @param {string} path @param {{ method: string, body?: unknown }} request
 */
async function lobbyAct({ id, s, mine }, seat, act, path, { method, body }) {
  /** @param {number} version */
  const send = (version) =>
    api(path, {
      method,
      token: mine.token,
      body,
      sign: mine.key ? { game: id, seat, version, act, key: mine.key } : undefined,
    });
  try {
    return await send(s.lobby_version);
  } catch (e) {
    if (!mine.key || /** @type {any} */ (e).status !== 412) throw e;
    /** @type {Schemas["GameSummary"]} */
    const now = await api(`/games/${id}`);
    return send(now.lobby_version);
  }
}

/** Leaving the seat before the start; a host keeps hosting. @param {Room} room @param {number} seat */
function leave({ id, s, mine, refresh, say }, seat) {
  return h(
    "p",
    {},
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await lobbyAct({ id, s, mine }, seat, "leave", `/games/${id}/seats/${seat}`, { method: "DELETE" });
            // The seat is gone; a host keeps hosting.
            const host = mine.host;
            localStorage.removeItem(`saboteur:${id}`);
            for (const k of Object.keys(mine)) delete (/** @type {any} */ (mine)[k]);
            if (host) {
              tokens.set(id, { host });
              mine.host = host;
            }
            say("");
          } catch (e) {
            say(/** @type {Error} */ (e).message);
          }
          refresh();
        },
      },
      t("table.leave"),
    ),
  );
}

/**
 * A button of the host's that posts to the game (`path` under it, with `body`), then reads the
 * table again: the message cleared once it went through (unless `quiet`), a refusal's sentence
 * otherwise. Asked once more first when `confirmed` says so.
 * @param {Room} room @param {string} path @param {string} label
 * @param {{ body?: () => unknown, quiet?: boolean, confirmed?: () => boolean }} [how]
 */
function hostButton({ id, mine, refresh, say }, path, label, { body, quiet = false, confirmed } = {}) {
  return h(
    "button",
    {
      type: "button",
      onclick: async () => {
        if (confirmed && !confirmed()) return;
        try {
          await api(`/games/${id}${path}`, { method: "POST", token: mine.host, body: body?.() });
          if (!quiet) say("");
        } catch (e) {
          say(/** @type {Error} */ (e).message);
        }
        refresh();
      },
    },
    label,
  );
}

/**
 * The host's part of the waiting room: any other seat freed (a bot's, or a stranger's), invite
 * links, a bot seated at the level chosen, the start, and the game cancelled.
 * @param {Room} room
 */
function hostRoom(room) {
  const { id, s, mine, refresh, say } = room;
  /** @type {HTMLElement[]} */
  const parts = [];
  const open = !s.reveal_by;
  const others = s.seats.filter((x) => x.seat !== mine.seat && !x.reserved);
  if (others.length && open)
    parts.push(
      h(
        "p",
        {},
        ...others.map((x) =>
          h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  await api(`/games/${id}/seats/${x.seat}`, { method: "DELETE", token: mine.host });
                  // The seat's invite link, if any, invites no more.
                  const { [x.seat]: _freed, ...kept } = tokens.get(id).invites ?? {};
                  tokens.set(id, { invites: kept });
                  say("");
                } catch (e) {
                  say(/** @type {Error} */ (e).message);
                }
                refresh();
              },
            },
            t("table.free_seat", { name: x.name }),
          ),
        ),
      ),
    );
  // With a player's share committed to, the start closes the lobby first: each player's page
  // then reveals its share, and the last one revealed starts the game.
  const closes = open && s.seats.some((x) => x.share === "committed");
  const start = hostButton(room, closes ? "/close" : "/start", t("table.start"), { quiet: true });
  const level = levelPicker({ "aria-label": t("lobby.level") });
  const addBot = hostButton(room, "/bots", t("host.add_bot"), { body: () => ({ level: level.value }) });
  // Cancelling is for everyone and cannot be taken back: asked once more.
  const cancel = hostButton(room, "/cancel", t("table.cancel"), {
    confirmed: () => confirm(t("table.cancel_confirm")),
  });
  if (open) parts.push(invites(room), h("p", {}, addBot, " ", level));
  parts.push(h("p", {}, start, " ", cancel));
  return parts;
}

/**
 * The invite links made here, one per seat taken for a guest under the name the host gives
 * (or "Guest"), each listed with its seat and name and a button that copies it. They are kept
 * with the game's tokens, so a redraw of the room (a seat taken, a bot seated) or a reload
 * never loses one; a seat freed since drops its.
 * @param {Room} room
 */
function invites({ id, s, refresh, say }) {
  const kept = tokens.get(id).invites ?? {};
  const links = s.seats
    .filter((x) => kept[x.seat])
    .map((x) => {
      const url = location.origin + kept[x.seat];
      const copy = h("button", { type: "button" }, t("table.copy"));
      // Said where the room says what went wrong; without a clipboard, the link itself.
      copy.addEventListener("click", () =>
        navigator.clipboard
          .writeText(url)
          .then(
            () => say(t("table.copied")),
            () => say(url),
          )
          .then(refresh),
      );
      return h(
        "li",
        {},
        `${t("table.invite_for", { n: x.seat, name: x.name })} `,
        h("a", { href: kept[x.seat] }, url),
        " ",
        copy,
      );
    });
  const name = h("input", {
    type: "text",
    maxlength: 40,
    placeholder: t("table.guest"),
    "aria-label": t("table.invite_name"),
  });
  const invite = h("button", { type: "button" }, t("table.invite"));
  invite.addEventListener("click", async () => {
    try {
      const guest = /** @type {HTMLInputElement} */ (name).value.trim() || t("table.guest");
      /** @type {Schemas["Joined"]} */
      const j = await api(`/games/${id}/seats`, { method: "POST", body: { name: guest } });
      const path = `/play/${id}#seat=${j.seat}&token=${j.player_token}`;
      tokens.set(id, { invites: { ...(tokens.get(id).invites ?? {}), [j.seat]: path } });
      // The name went with its link: the next invite starts from an empty field.
      /** @type {HTMLInputElement} */ (name).value = "";
      say("");
    } catch (e) {
      say(/** @type {Error} */ (e).message);
    }
    refresh();
  });
  const list = links.length ? h("ul", { class: "invites", "aria-label": t("table.invites") }, ...links) : "";
  return h("div", {}, h("p", {}, name, " ", invite), list);
}

/**
 * The host's acts while the game runs: a seat handed to a bot, a seat's new link (its old token
 * and key no longer act), the game rolled back to before a move, with a reason.
 * @param {{ id: string, s: Schemas["GameSummary"], st: Schemas["StateView"], log: Schemas["EventPage"], host: string, names: Record<number, string>,
 *   open: boolean, toggled: (open: boolean) => void, refresh: () => unknown, say: (message: string) => void }} panel
 * the game, the table read, the host's token, the seats' names, whether the panel is open (and
 * what to do when it is opened or closed), a redraw after a write, and the message to show
 */
export function hostPanel({ id, s, st, log, host, names, open, toggled, refresh, say }) {
  const botSeats = new Set(s.seats.filter((x) => x.bot).map((x) => x.seat));
  const people = s.seats.filter((x) => !botSeats.has(x.seat));
  const link = h("output", {});
  const moves = log.events.filter((e) => e.event.type === "command_accepted").reverse();
  const to = h(
    "select",
    { "aria-label": t("host.rollback_to") },
    moves.map((e) =>
      h(
        "option",
        { value: e.seq - 1 },
        t("host.before_move", { n: e.seq, who: seatName(names, /** @type {any} */ (e.event).seat) }),
      ),
    ),
  );
  const reason = h("input", {
    name: "reason",
    maxlength: "200",
    "aria-label": t("host.reason"),
    placeholder: t("host.reason"),
  });
  const rollback = h(
    "form",
    { "aria-label": t("host.rollback") },
    to,
    " ",
    reason,
    " ",
    h("button", { type: "submit" }, t("host.rollback")),
  );
  rollback.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api(`/games/${id}/rollback`, {
        method: "POST",
        token: host,
        body: { to_version: Number(to.value), reason: reason.value },
      });
      say("");
    } catch (e) {
      say(/** @type {Error} */ (e).message);
    }
    refresh();
  });
  return h(
    "details",
    {
      class: "host",
      open,
      ontoggle: (/** @type {Event} */ ev) => {
        toggled(/** @type {HTMLDetailsElement} */ (ev.target).open);
      },
    },
    h("summary", {}, t("host.label")),
    h(
      "ul",
      {},
      people.map((x) =>
        h(
          "li",
          {},
          st.table.seats[x.seat]?.handed_to
            ? ""
            : h(
                "button",
                {
                  type: "button",
                  onclick: async () => {
                    try {
                      await api(`/games/${id}/seats/${x.seat}/handover`, {
                        method: "POST",
                        token: host,
                        body: { level: "heuristic" },
                      });
                      say("");
                    } catch (e) {
                      say(/** @type {Error} */ (e).message);
                    }
                    refresh();
                  },
                },
                t("host.hand_over", { name: x.name }),
              ),
          " ",
          h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  /** @type {Schemas["NewToken"]} */
                  const n = await api(`/games/${id}/seats/${x.seat}/token`, { method: "POST", token: host });
                  const path = `/play/${id}#seat=${n.seat}&token=${n.player_token}`;
                  link.replaceChildren(h("a", { href: path }, location.origin + path));
                } catch (e) {
                  link.textContent = /** @type {Error} */ (e).message;
                }
              },
            },
            t("host.new_token", { name: x.name }),
          ),
        ),
      ),
    ),
    link,
    moves.length ? rollback : null,
  );
}
