// @ts-check
// Tiny DOM helpers: the console builds its views with h() rather than innerHTML, so text from the
// API (tool descriptions, task titles, error messages) is never parsed as markup.

/** What h() and svg() take as children: nodes, text, nested lists; null, undefined and false are skipped. */
/** @typedef {Node | string | number | boolean | null | undefined | readonly unknown[]} Child */
/** Attribute values: `true` sets an empty attribute, false/null/undefined skip it, functions on `on<event>` listen. */
/** @typedef {Record<string, unknown>} Attributes */

/**
 * h("button", { class: "primary", onclick: fn, "aria-label": "Call" }, "Call")
 * Attributes: `class`, `text`, `on<event>` handlers, boolean `true` sets an empty attribute,
 * `false`/null/undefined skip it. Children: nodes, strings, arrays, null (skipped).
 */
/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    else if (name === "text") el.textContent = String(value);
    else if (name === "value") /** @type {HTMLInputElement} */ (el).value = /** @type {string} */ (value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

/**
 * @param {Element} el
 * @param {readonly unknown[]} children
 */
function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * SVG elements need their namespace.
 * @param {string} tag
 * @param {Attributes} [attrs]
 * @param {...Child} children
 * @returns {SVGElement}
 */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/**
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let counter = 0;
/** A document-unique id for label/aria-describedby wiring. */
/** @param {string} prefix */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/**
 * JSON pretty-printed in a <pre>, for schemas and results.
 * @param {unknown} value
 * @param {Attributes} [attrs]
 */
export function jsonBlock(value, attrs = {}) {
  return h("pre", { class: "json", tabindex: "0", ...attrs }, JSON.stringify(value, null, 2));
}

/**
 * An error box screen readers announce.
 * @param {Child} message
 * @param {string} [title]
 */
export function errorBox(message, title = "Error") {
  return h("div", { class: "error", role: "alert" }, h("strong", {}, `${title}: `), message);
}

/** @param {number | null | undefined} value */
export function formatMs(value) {
  if (value === null || value === undefined) return "—";
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value * 10) / 10} ms`;
}

/** @param {string | null | undefined} iso */
export function formatTime(iso) {
  if (!iso) return "never";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

/** @param {number | null | undefined} rate */
export function formatRate(rate) {
  return rate === null || rate === undefined ? "—" : `${Math.round(rate * 1000) / 10}%`;
}
