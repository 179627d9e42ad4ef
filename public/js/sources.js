// @ts-check
// The gateway's sources (GET /api/sources) with each one's health (GET /api/sources/:id/health):
// state, circuit breaker, error rate, p50/p95 and last success over its last calls. A source whose
// upstream uses OAuth and is not (or no longer) connected has a Connect button: it asks for the
// connect link (POST /api/sources/:id/authorize) and opens it in this tab; the upstream's consent
// comes back to this panel. A connected one can be disconnected (its tokens revoked upstream).
// Each source opens its review (source-review.js): tools held since their definitions changed
// upstream, with an Approve button, and what was removed from its tools' text.
import { api } from "./api.js";
import { errorView } from "./step-up.js";
import { clear, formatMs, formatRate, formatTime, h } from "./dom.js";
import { renderSourceReview } from "./source-review.js";

/** A source as GET /api/sources lists it (the fields shown here). */
/** @typedef {{ id: number, name: string, slug: string, url: string, tool_count?: number, held_tool_count?: number }} Source */
/**
 * GET /api/sources/:id/health (the fields shown here), or the error that answered instead.
 * @typedef {{ error?: unknown, state?: string, authorization?: string | null, breaker?: string, tool_count?: number, last_discovery_error?: string | null,
 *   calls?: { window?: number, error_rate?: number, p50_ms?: number, p95_ms?: number, last_success_at?: string, last_error?: string } }} SourceHealth
 */

/** @param {HTMLElement} panel */
export async function renderSourcesPanel(panel) {
  const body = h(
    "div",
    { class: "panel-body", "aria-live": "polite", "aria-busy": "true" },
    h("p", { class: "muted" }, "Loading sources…"),
  );
  const refresh = h("button", { type: "button" }, "Refresh");
  refresh.addEventListener("click", () => renderSourcesPanel(panel));
  clear(
    panel,
    h("div", { class: "panel-head" }, h("h2", {}, "Gateway sources"), refresh),
    h(
      "p",
      { class: "muted" },
      "Upstream MCP servers whose tools the gateway ",
      h("code", {}, "/mcp"),
      " serves as ",
      h("code", {}, "<slug>__<tool>"),
      ".",
    ),
    body,
  );
  let sources;
  try {
    ({ sources } = await api("/api/sources"));
  } catch (error) {
    clear(body, errorView(error, "Could not list sources"));
    body.setAttribute("aria-busy", "false");
    return;
  }
  if (sources.length === 0) {
    clear(
      body,
      h(
        "div",
        { class: "empty" },
        h("p", {}, h("strong", {}, "No sources yet."), " The gateway serves only the built-in tools."),
        h(
          "p",
          {},
          "Register an upstream MCP server with ",
          h("code", {}, "POST /api/sources"),
          " (see the README); its tools then appear on ",
          h("code", {}, "/mcp"),
          " and its health here.",
        ),
      ),
    );
    body.setAttribute("aria-busy", "false");
    return;
  }
  /** @type {SourceHealth[]} */
  const healths = await Promise.all(
    sources.map((/** @type {Source} */ source) => api(`/api/sources/${source.id}/health`).catch((error) => ({ error }))),
  );
  clear(
    body,
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "sources" },
        h("caption", { class: "sr-only" }, "Sources and their health"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Source", "State", "Breaker", "Tools", "Error rate", "p50", "p95", "Last success", "Last error"].map((label) =>
              h("th", { scope: "col" }, label),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          sources.map((/** @type {Source} */ source, /** @type {number} */ index) =>
            sourceRow(source, healths[index], () => renderSourcesPanel(panel)),
          ),
        ),
      ),
    ),
  );
  body.setAttribute("aria-busy", "false");
}

const NEEDS_CONNECTING = new Set(["needs_authorization", "authorization_expired"]);

/**
 * Connect (or Disconnect) for a source whose upstream uses OAuth; nothing for others.
 * @param {Source} source
 * @param {SourceHealth} health
 * @param {() => void} reload
 */
function authorizationActions(source, health, reload) {
  if (!health.authorization) return null;
  const status = h("span", { class: "small", "aria-live": "polite" });
  if (NEEDS_CONNECTING.has(health.authorization)) {
    const connect = h(
      "button",
      { type: "button", class: "primary", "data-connect": source.slug },
      health.authorization === "authorization_expired" ? "Reconnect" : "Connect",
    );
    connect.addEventListener("click", async () => {
      connect.disabled = true;
      clear(status, "Opening the upstream's sign-in…");
      try {
        const { authorization_url } = await api(`/api/sources/${source.id}/authorize`, { method: "POST", body: { return_to: "console" } });
        location.assign(authorization_url);
      } catch (error) {
        clear(status, errorView(error, "Could not start connecting"));
        connect.disabled = false;
      }
    });
    return h("div", { class: "actions" }, connect, status);
  }
  const disconnect = h("button", { type: "button", "data-disconnect": source.slug }, "Disconnect");
  disconnect.addEventListener("click", async () => {
    disconnect.disabled = true;
    try {
      await api(`/api/sources/${source.id}/authorization`, { method: "DELETE" });
      reload();
    } catch (error) {
      clear(status, errorView(error, "Could not disconnect"));
      disconnect.disabled = false;
    }
  });
  return h("div", { class: "actions" }, h("span", { class: "muted small" }, "connected "), disconnect, status);
}

/**
 * "Review N held" (or "Details") under the tool count: opens the source's review in a row below.
 * @param {Source} source
 * @param {() => void} reload
 */
function reviewToggle(source, reload) {
  const held = source.held_tool_count ?? 0;
  const toggle = h(
    "button",
    { type: "button", class: held > 0 ? "primary" : "", "aria-expanded": "false", "data-review": source.slug },
    held > 0 ? `Review ${held} held` : "Details",
  );
  /** @type {HTMLTableRowElement | null} */
  let open = null;
  toggle.addEventListener("click", () => {
    if (open) {
      open.remove();
      open = null;
      toggle.setAttribute("aria-expanded", "false");
      return;
    }
    const container = h("div", {});
    open = h("tr", { class: "source-review-row", "data-review-of": source.slug }, h("td", { colspan: "9" }, container));
    toggle.closest("tr")?.after(open);
    toggle.setAttribute("aria-expanded", "true");
    void renderSourceReview(container, source.id, reload);
  });
  return h("div", {}, held > 0 ? h("span", { class: "bad small" }, `${held} held `) : null, toggle);
}

/**
 * @param {Source} source
 * @param {SourceHealth} health
 * @param {() => void} reload
 */
function sourceRow(source, health, reload) {
  const name = h(
    "th",
    { scope: "row" },
    source.name,
    h("br"),
    h("code", { class: "muted" }, source.slug),
    h("br"),
    h("span", { class: "muted small" }, source.url),
  );
  if (health.error) {
    return h("tr", { "data-source": source.slug }, name, h("td", { colspan: "8" }, errorView(health.error, "Health unavailable")));
  }
  /** @type {NonNullable<SourceHealth["calls"]>} */
  const calls = health.calls ?? {};
  const lastError = health.last_discovery_error ?? calls.last_error;
  return h(
    "tr",
    { "data-source": source.slug },
    name,
    h(
      "td",
      {},
      h("span", { class: `state state-${health.state}` }, String(health.state).replace("_", " ")),
      authorizationActions(source, health, reload),
    ),
    h("td", {}, h("span", { class: `breaker breaker-${health.breaker}` }, String(health.breaker).replace("_", "-"))),
    h("td", {}, String(health.tool_count ?? source.tool_count), reviewToggle(source, reload)),
    h("td", {}, calls.window ? `${formatRate(calls.error_rate)} of ${calls.window}` : "no calls yet"),
    h("td", {}, formatMs(calls.p50_ms)),
    h("td", {}, formatMs(calls.p95_ms)),
    h("td", {}, formatTime(calls.last_success_at)),
    h("td", { class: "small" }, lastError ? h("span", { class: "bad" }, lastError) : "—"),
  );
}
