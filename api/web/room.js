// The host's and the waiting room's parts of the table (/play/{id}): before the start, the seats
// taken, joining or taking back one's seat of a rematch, leaving, and the host's invites, bots and
// start; while the game runs, the host's panel.
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api, keys, seatable, seated, share, tokens } from "./net.js";
import { levelPicker } from "./parts.js";
import { seatName, shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/**
 * The waiting room's parts, under the table's heading.
 * @param {{ id: string, s: Schemas["GameSummary"], mine: Record<string, any>, refresh: () => unknown, say: (message: string) => void }} room
 * the game, what this browser holds of it (token, seat, key, host token), a redraw after a
 * write, and the message to show (an error, or "" once a write went through)
 * @returns {HTMLElement[]}
 */
export function waitingRoom({ id, s, mine, refresh, say }) {
  /** @type {HTMLElement[]} */
  const parts = [];
  const join = h(
    "form",
    {},
    h("label", {}, `${t("lobby.name")} `, h("input", { name: "name", value: t("lobby.default_name") })),
    " ",
    h("button", { type: "submit" }, t("table.join")),
  );
  join.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await seatable(id, t);
      const key = await keys.make();
      /** @type {Schemas["Joined"]} */
      const j = await api(`/games/${id}/seats`, {
        method: "POST",
        body: {
          name: new FormData(/** @type {HTMLFormElement} */ (join)).get("name"),
          entropy: share(),
          ...(await keys.sent(key, id)),
        },
      });
      tokens.set(id, seated(j, key));
      Object.assign(mine, tokens.get(id));
      refresh();
    } catch (e) {
      say(e.message);
      refresh();
    }
  });
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
  const before = s.previous ? tokens.get(s.previous) : {};
  const mySeat = s.seats.find((x) => x.seat === before.seat && x.reserved);
  if (!mine.token && mySeat && before.token) {
    parts.push(
      h(
        "p",
        {},
        `${t("table.rematch_yours")} `,
        h(
          "button",
          {
            type: "button",
            onclick: async () => {
              try {
                await seatable(id, t);
                const key = await keys.make();
                /** @type {Schemas["Joined"]} */
                const j = await api(`/games/${id}/seats/${mySeat.seat}/claim`, {
                  method: "POST",
                  token: before.token,
                  body: { entropy: share(), ...(await keys.sent(key, id)) },
                });
                tokens.set(id, seated(j, key));
                Object.assign(mine, tokens.get(id));
                say("");
              } catch (e) {
                say(e.message);
              }
              refresh();
            },
          },
          t("table.take_seat"),
        ),
      ),
    );
  } else if (!mine.token) parts.push(join);
  // A seated player may leave before the start (a signed act once the seat has a key).
  if (mine.token && mine.seat != null) {
    const seat = mine.seat;
    parts.push(
      h(
        "p",
        {},
        h(
          "button",
          {
            type: "button",
            onclick: async () => {
              try {
                await api(`/games/${id}/seats/${seat}`, {
                  method: "DELETE",
                  token: mine.token,
                  sign: mine.key ? { game: id, seat, version: s.version, act: "leave", key: mine.key } : undefined,
                });
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
                say(e.message);
              }
              refresh();
            },
          },
          t("table.leave"),
        ),
      ),
    );
  }
  if (mine.host) {
    // The host frees any other seat before the start (a bot's, or a stranger's) and may
    // seat a bot there.
    const others = s.seats.filter((x) => x.seat !== mine.seat && !x.reserved);
    if (others.length)
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
                    say(e.message);
                  }
                  refresh();
                },
              },
              t("table.free_seat", { name: x.name }),
            ),
          ),
        ),
      );
    // The invite links made here are kept with the game's tokens, so a redraw of the room
    // (a seat taken, a bot seated) or a reload never loses one; a seat freed since drops its.
    const invites = tokens.get(id).invites ?? {};
    const links = s.seats
      .filter((x) => invites[x.seat])
      .map((x) => h("a", { href: invites[x.seat] }, location.origin + invites[x.seat]));
    const out = h("output", {}, ...links.flatMap((a, i) => (i ? [h("br", {}), a] : [a])));
    const invite = h("button", { type: "button" }, t("table.invite"));
    invite.addEventListener("click", async () => {
      try {
        /** @type {Schemas["Joined"]} */
        const j = await api(`/games/${id}/seats`, { method: "POST", body: { name: t("table.guest") } });
        const path = `/play/${id}#seat=${j.seat}&token=${j.player_token}`;
        tokens.set(id, { invites: { ...(tokens.get(id).invites ?? {}), [j.seat]: path } });
        say("");
      } catch (e) {
        say(e.message);
      }
      refresh();
    });
    const start = h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await api(`/games/${id}/start`, { method: "POST", token: mine.host });
          } catch (e) {
            say(e.message);
          }
          refresh();
        },
      },
      t("table.start"),
    );
    const level = levelPicker({ "aria-label": t("lobby.level") });
    const addBot = h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await api(`/games/${id}/bots`, { method: "POST", token: mine.host, body: { level: level.value } });
            say("");
          } catch (e) {
            say(e.message);
          }
          refresh();
        },
      },
      t("host.add_bot"),
    );
    // Cancelling is for everyone and cannot be taken back: asked once more.
    const cancel = h(
      "button",
      {
        type: "button",
        onclick: async () => {
          if (!confirm(t("table.cancel_confirm"))) return;
          try {
            await api(`/games/${id}/cancel`, { method: "POST", token: mine.host });
            say("");
          } catch (e) {
            say(e.message);
          }
          refresh();
        },
      },
      t("table.cancel"),
    );
    parts.push(h("p", {}, invite, " ", out), h("p", {}, addBot, " ", level), h("p", {}, start, " ", cancel));
  }
  return parts;
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
      say(e.message);
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
                      say(e.message);
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
                  link.textContent = e.message;
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
