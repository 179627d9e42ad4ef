// Tiny DOM helpers: the console builds its views with h() rather than innerHTML, so text from the
// API (tool descriptions, task titles, error messages) is never parsed as markup.

/**
 * h("button", { class: "primary", onclick: fn, "aria-label": "Call" }, "Call")
 * Attributes: `class`, `text`, `on<event>` handlers, boolean `true` sets an empty attribute,
 * `false`/null/undefined skip it. Children: nodes, strings, arrays, null (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "text") el.textContent = String(value);
    else if (name === "value") el.value = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** SVG elements need their namespace. */
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

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

let counter = 0;
/** A document-unique id for label/aria-describedby wiring. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** JSON pretty-printed in a <pre>, for schemas and results. */
export function jsonBlock(value, attrs = {}) {
  return h("pre", { class: "json", tabindex: "0", ...attrs }, JSON.stringify(value, null, 2));
}

/** An error box screen readers announce. */
export function errorBox(message, title = "Error") {
  return h("div", { class: "error", role: "alert" }, h("strong", {}, `${title}: `), message);
}

export function formatMs(value) {
  if (value === null || value === undefined) return "—";
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value * 10) / 10} ms`;
}

export function formatTime(iso) {
  if (!iso) return "never";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
}

export function formatRate(rate) {
  return rate === null || rate === undefined ? "—" : `${Math.round(rate * 1000) / 10}%`;
}
