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
