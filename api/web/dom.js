// The page's element and the helpers every page builds its HTML and SVG with.

/** Where every page draws itself. */
export const main = /** @type {HTMLElement} */ (document.getElementById("main"));

/**
 * An HTML element: attributes (`on…` ones are listeners; `false` and null leave one out) and
 * children (nested arrays flattened, null skipped).
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...any} kids
 * @returns {HTMLElement & Record<string, any>}
 */
export const h = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids.flat()) if (k != null) e.append(k);
  return /** @type {any} */ (e);
};

const NS = "http://www.w3.org/2000/svg";

/**
 * An SVG element: attributes (each as a string) and children.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name @param {Record<string, unknown>} [attrs] @param {...(Node | string)} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function el(name, attrs = {}, ...children) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c);
  return e;
}

/** Whether a press (a mouse button, a pen or a finger) is down on the page. */
let pressed = false;
/** @type {(() => void)[]} the redraws put off until the press ends */
let putOff = [];

const released = () => {
  if (!pressed) return;
  pressed = false;
  const due = putOff;
  putOff = [];
  // After the click's own listeners have run (they draw what the press chose).
  setTimeout(() => {
    for (const f of due) f();
  });
};
// Only the main button's press (or a finger's, a pen's tip) ends in a click: another button's
// release may never reach the page (a context menu takes it), and must not hold the page still.
addEventListener(
  "pointerdown",
  (e) => {
    if (e.isPrimary && e.button === 0) pressed = true;
  },
  true,
);
// A click is sent after the release, in the same task: the press ends as it arrives, before its
// listeners run. A release with no click (the pointer moved off, a finger that scrolled, a long
// press that opened a menu) ends it once that task is over.
addEventListener("click", released, true);
for (const ends of ["pointerup", "pointercancel", "contextmenu"])
  addEventListener(ends, () => setTimeout(released), true);
addEventListener("blur", released);

/**
 * Puts `redraw` off while a press is down on the page, and says so: the browser sends a click
 * only to the element that was both pressed and released, so a page redrawn in between (news
 * read from another seat) would lose the person's click. Runs it once the press ends, once
 * however often it was put off.
 * @param {() => void} redraw
 */
export function heldBack(redraw) {
  if (!pressed) return false;
  if (!putOff.includes(redraw)) putOff.push(redraw);
  return true;
}
